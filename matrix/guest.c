// SPDX-License-Identifier: MIT
/*
 * Running the command on one kernel: matrix/run.sh straight on the host,
 * or in a QEMU guest whose init runs it and powers off. A guest that
 * panics is booted once more; one that hangs is killed at the time limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "json_reader.h"
#include "jsonv.h"
#include "matrix.h"

#define QEMU "qemu-system-x86_64"
/*
 * Panics reboot at once, and -no-reboot turns that into QEMU's exit.
 * no_timer_check: under TCG on a loaded host (load 36 on 2 cores) 6.1
 * panicked twice in a row with "IO-APIC + timer doesn't work": the
 * boot's timer check counts ticks against a host too slow to give them.
 */
#define GUEST_CMDLINE "panic=-1 quiet no_timer_check"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Whether the CPU offers virtualisation (vmx or svm) to this machine. */
static bool cpu_virt(void)
{
	char line[4096];
	bool yes = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!yes && fgets(line, sizeof(line), f))
		yes = strncmp(line, "flags", 5) == 0 &&
		      (strstr(line, " vmx") || strstr(line, " svm"));
	fclose(f);
	return yes;
}

/*
 * Whether KVM can run the guest. /dev/kvm can exist and even create a VM
 * on a CPU without vmx/svm (measured here: the guest then stops at its
 * first instruction with "KVM internal error"), so both are checked.
 * TESTFS_MATRIX_ACCEL=tcg|kvm overrides.
 */
static bool kvm_usable(void)
{
	const char *env = getenv("TESTFS_MATRIX_ACCEL");
	int fd, vm;

	if (env && *env)
		return strcmp(env, "kvm") == 0;
	if (!cpu_virt())
		return false;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (ioctl(fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION) {
		close(fd);
		return false;
	}
	vm = ioctl(fd, KVM_CREATE_VM, 0);
	if (vm >= 0)
		close(vm);
	close(fd);
	return vm >= 0;
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	const char *p, *e;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p, prog);
		if (access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

static char *dup_frame(const struct capture *c, const char *name)
{
	const struct frame *f = capture_frame(c, name);

	return f ? strndup(f->data, f->len) : NULL;
}

static void set_failed(struct run *r, const struct capture *c, const char *fmt,
		       const char *what)
{
	r->status = RUN_FAILED;
	snprintf(r->reason, sizeof(r->reason), fmt, what);
	free(r->console_tail);
	r->console_tail = capture_tail(c, 40);
}

/*
 * The guest tells cachestat(2) by its syscall tracepoints (a grep of
 * /proc/kallsyms takes seconds under TCG), which a kernel without
 * CONFIG_FTRACE_SYSCALLS (the lab kernels) does not have; its config,
 * when known, says better.
 */
static void trust_config_cachestat(struct run *r)
{
	struct json_reader in;
	struct json_iter it;
	const char *at = NULL;
	char *fixed;
	size_t len, off;
	bool b;

	if (!r->caps || !r->k.config[0] ||
	    !config_has(r->k.config, "CONFIG_CACHESTAT_SYSCALL"))
		return;
	len = strlen(r->caps);
	json_reader_init(&in, r->caps, len, 0);
	json_read_object(&in, &it);
	while (json_read_next(&it)) {
		if (json_key_is(&it, "cachestat") &&
		    json_read_peek(&in) == JSON_BOOL) {
			at = in.p;
			if (json_read_bool(&in, &b) || b)
				at = NULL;
		} else {
			json_read_skip(&in);
		}
	}
	if (!at || json_read_error(&in))
		return;
	/* "false" becomes "true", the rest stays as the guest wrote it. */
	off = (size_t)(at - r->caps);
	fixed = malloc(len);
	if (!fixed)
		return;
	memcpy(fixed, r->caps, off);
	snprintf(fixed + off, len - off, "true%s", at + 5);
	free(r->caps);
	r->caps = fixed;
}

/* The command's outcome from what the runner printed. */
/* The guest's caps.json says it has no /dev/fuse. */
static bool caps_fuse_missing(const char *caps)
{
	struct jv *v = jv_parse(caps, strlen(caps));
	bool missing = jv_str_is(v, "fuse", "missing");

	jv_free(v);
	return missing;
}

void run_collect(struct matrix *m, struct run *r, const struct capture *c)
{
	const struct frame *st = capture_frame(c, "status");
	const struct frame *res = capture_frame(c, "result");
	const struct frame *err = capture_frame(c, "error");
	char *tail;

	r->caps = dup_frame(c, "caps");
	trust_config_cachestat(r);
	if (r->caps)
		kernel_save_caps(&r->k, r->caps, strlen(r->caps));
	if (r->caps && caps_fuse_missing(r->caps)) {
		r->status = RUN_SKIPPED;
		snprintf(r->reason, sizeof(r->reason),
			 "the kernel has no FUSE (/dev/fuse missing)");
		return;
	}
	if (c->timed_out) {
		char t[32];

		snprintf(t, sizeof(t), "%d", m->timeout_s);
		set_failed(r, c, "killed at the time limit (%s s)", t);
		return;
	}
	if (!c->done || !st) {
		char why[256];

		capture_panic_why(c, why, sizeof(why));
		if (why[0])
			set_failed(r, c,
				   "the kernel panicked before the command "
				   "finished: %s",
				   why);
		else
			set_failed(r, c, "%s",
				   c->booted
					   ? "the command did not finish "
					     "(the runner's output stops "
					     "early)"
					   : "the kernel did not reach /init");
		return;
	}
	if (err) {
		set_failed(r, c, "%s", err->data);
		return;
	}
	if (strcmp(m->argv[0], "suite") == 0) {
		suite_collect(r, c);
		return;
	}
	/* What --html draws (matrix/html.c). */
	r->page = dup_frame(c, "page");
	r->log = dup_frame(c, "testfs-log");
	if (strcmp(m->argv[0], "touch") == 0) {
		touch_collect(r, c);
	} else if (res && res->whole && res->len) {
		r->result = strndup(res->data, res->len);
		r->result_len = res->len;
	}
	if (atoi(st->data) != 0 || !r->result) {
		tail = dup_frame(c, "stderr");
		r->status = RUN_FAILED;
		snprintf(r->reason, sizeof(r->reason),
			 "%s exited with status %s%s%s", m->argv[0], st->data,
			 tail && *tail ? ": " : "", tail ? tail : "");
		free(tail);
	}
}

int matrix_work(struct matrix *m)
{
	const char *tmp = getenv("TMPDIR");

	if (m->workdir[0])
		return 0;
	if (!tmp || !*tmp || strlen(tmp) > sizeof(m->workdir) - 32)
		tmp = "/tmp";
	snprintf(m->workdir, sizeof(m->workdir), "%s/testfs-matrix.XXXXXX",
		 tmp);
	if (!mkdtemp(m->workdir)) {
		m->workdir[0] = '\0';
		return -errno;
	}
	return 0;
}

static void run_host(struct matrix *m, struct run *r)
{
	char work[PATH_MAX], e[5][PATH_MAX + 32];
	char *env[6];
	const char **argv;
	struct capture c;
	int i, err;

	snprintf(work, sizeof(work), "%s/host", m->workdir);
	snprintf(e[0], sizeof(e[0]), "TESTFS_BIN=%s", m->bins.daemon);
	snprintf(e[1], sizeof(e[1]), "MATRIX_TOUCH=%s", m->bins.touch);
	snprintf(e[2], sizeof(e[2]), "MATRIX_SCENARIO=%s", m->bins.scenario);
	snprintf(e[3], sizeof(e[3]), "MATRIX_TESTS=%s", m->bins.tests_dir);
	snprintf(e[4], sizeof(e[4]), "MATRIX_WORK=%s", work);
	for (i = 0; i < 5; i++)
		env[i] = e[i];
	env[5] = NULL;
	argv = calloc((size_t)m->argc + 3, sizeof(*argv));
	if (!argv) {
		r->status = RUN_FAILED;
		snprintf(r->reason, sizeof(r->reason), "out of memory");
		return;
	}
	argv[0] = "sh";
	argv[1] = m->bins.run_sh;
	for (i = 0; i < m->argc; i++)
		argv[i + 2] = m->argv[i];
	struct capture_opts o = { .argv = argv,
				  .setenv = env,
				  .timeout_s = m->timeout_s,
				  .label = r->k.spec };
	err = capture_run(&o, &c);
	free(argv);
	if (err) {
		r->status = RUN_FAILED;
		snprintf(r->reason, sizeof(r->reason), "cannot run %s: %s",
			 m->bins.run_sh, strerror(-err));
		return;
	}
	c.booted = true;
	run_collect(m, r, &c);
	capture_free(&c);
}

/* @r's architecture's guest image (base archive), built once. */
const char *guest_base_image(struct matrix *m, struct run *r)
{
	struct arch_guest host = { .base = "" }, *g = &host;
	bool arm64 = strcmp(r->k.arch, "arm64") == 0;

	if (arm64 && !m->arm64) {
		m->arm64 = calloc(1, sizeof(*m->arm64));
		if (!m->arm64) {
			r->status = RUN_FAILED;
			snprintf(r->reason, sizeof(r->reason), "out of memory");
			return NULL;
		}
		m->arm64->bins = m->bins;
		if (arch_arm64_bins(&m->arm64->bins, m->arm64->why,
				    sizeof(m->arm64->why)))
			m->arm64->failed = true;
		snprintf(m->arm64->base, sizeof(m->arm64->base),
			 "%s/base-arm64.cpio", m->workdir);
	}
	if (arm64) {
		g = m->arm64;
	} else {
		snprintf(m->base, sizeof(m->base), "%s/base.cpio", m->workdir);
		host.bins = m->bins;
		host.built = m->base_built;
		host.failed = m->base_failed;
		snprintf(host.why, sizeof(host.why), "%s", m->base_why);
	}
	if (!g->built && !g->failed) {
		printf("[%s] building the %sguest image\n", r->k.spec,
		       arm64 ? "arm64 " : "");
		fflush(stdout);
		if (image_build_base(&g->bins, strcmp(m->argv[0], "suite") == 0,
				     arm64 ? g->base : m->base, g->why,
				     sizeof(g->why)))
			g->failed = true;
		else
			g->built = true;
	}
	if (!arm64) {
		m->base_built = g->built;
		m->base_failed = g->failed;
		snprintf(m->base_why, sizeof(m->base_why), "%s", g->why);
	}
	if (g->failed) {
		r->status = RUN_SKIPPED;
		snprintf(r->reason, sizeof(r->reason), "no guest image: %s",
			 g->why);
		return NULL;
	}
	return arm64 ? m->arm64->base : m->base;
}

static void run_guest(struct matrix *m, struct run *r)
{
	const char *env_smp = getenv("TESTFS_MATRIX_SMP");
	const char *smp = env_smp && *env_smp ? env_smp : "2";
	const char *extra = getenv("TESTFS_MATRIX_APPEND");
	bool arm64 = strcmp(r->k.arch, "arm64") == 0;
	const char *qemu = arm64 ? QEMU_ARM64 : QEMU;
	char cmdline[512];
	char initrd[PATH_MAX], why[512];
	const char *base;
	const char *arm_argv[32];
	const char *x86_argv[] = {
		QEMU,	      "-nodefaults", "-no-user-config",
		"-display",   "none",	     "-serial",
		"stdio",      "-monitor",    "none",
		"-no-reboot", "-m",	     "2048",
		"-smp",	      smp,	     "-accel",
		NULL,	      "-kernel",     r->k.image,
		"-initrd",    initrd,	     "-append",
		cmdline,      NULL
	};
	const char **argv = arm64 ? arm_argv : x86_argv;
	struct capture c;
	int attempt, err;

	snprintf(cmdline, sizeof(cmdline), "console=%s %s%s%s",
		 arch_console(&r->k), GUEST_CMDLINE, extra && *extra ? " " : "",
		 extra ? extra : "");
	if (!in_path(qemu)) {
		r->status = RUN_SKIPPED;
		snprintf(r->reason, sizeof(r->reason),
			 "%s not found (apt-get install %s)", qemu,
			 arm64 ? "qemu-system-arm" : "qemu-system-x86");
		return;
	}
	base = guest_base_image(m, r);
	if (!base)
		return;
	/* One initrd at a time: a fixed name (a path SPEC has slashes). */
	snprintf(initrd, sizeof(initrd), "%s/guest.cpio", m->workdir);
	if (image_for_kernel(base, &r->k, m->argv, initrd, why, sizeof(why))) {
		r->status = RUN_FAILED;
		snprintf(r->reason, sizeof(r->reason), "%s", why);
		return;
	}
	if (!m->accel)
		m->accel = kvm_usable() ? "kvm" : "tcg";
	/* TCG: one host thread per vCPU, where QEMU does not by default. */
	x86_argv[15] =
		strcmp(m->accel, "tcg") == 0 ? "tcg,thread=multi" : m->accel;
	/* An arm64 guest on this x86-64 machine: always TCG. */
	arch_arm64_argv(arm_argv, smp, r->k.image, initrd, cmdline);
	snprintf(r->accel, sizeof(r->accel), "%s", arm64 ? "tcg" : m->accel);
	for (attempt = 0; attempt < 2; attempt++) {
		struct capture_opts o = { .argv = argv,
					  .timeout_s = m->timeout_s,
					  .label = r->k.spec };

		printf("[%s] booting %s (%s)%s\n", r->k.spec, r->k.release,
		       r->accel, attempt ? ", second try" : "");
		fflush(stdout);
		err = capture_run(&o, &c);
		if (err) {
			r->status = RUN_FAILED;
			snprintf(r->reason, sizeof(r->reason),
				 "cannot run %s: %s", qemu, strerror(-err));
			return;
		}
		/* A panic is retried once (TCG has been seen to oops early
		 * in boot, and 6.1 and 6.12 guests to lock up now and then:
		 * init.sh makes a lockup panic); a hang past the time limit
		 * is not: it already cost the time limit. */
		if (attempt || !capture_boot_again(&c, why, sizeof(why)))
			break;
		printf("[%s] the kernel panicked (%s); booting it again\n",
		       r->k.spec, why);
		capture_free(&c);
	}
	run_collect(m, r, &c);
	capture_free(&c);
	unlink(initrd);
}

void run_kernel(struct matrix *m, struct run *r)
{
	double t0 = now_s();

	r->status = RUN_OK;
	if (r->k.skip[0]) {
		r->status = RUN_SKIPPED;
		snprintf(r->reason, sizeof(r->reason), "%s", r->k.skip);
	} else if (matrix_work(m)) {
		r->status = RUN_FAILED;
		snprintf(r->reason, sizeof(r->reason), "mkdtemp: %s",
			 strerror(errno));
	} else if (r->k.host) {
		run_host(m, r);
	} else {
		run_guest(m, r);
	}
	r->seconds = now_s() - t0;
	run_print_end(r);
}

void run_print_end(const struct run *r)
{
	printf("[%s] %s in %.1f s%s%s\n", r->k.spec,
	       r->status == RUN_OK	 ? "ok"
	       : r->status == RUN_FAILED ? "FAILED"
					 : "skipped",
	       r->seconds, r->reason[0] ? ": " : "", r->reason);
	if (r->console_tail && r->status == RUN_FAILED)
		printf("[%s] console tail:\n%s\n", r->k.spec, r->console_tail);
	fflush(stdout);
}
