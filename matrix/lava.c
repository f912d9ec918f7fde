// SPDX-License-Identifier: MIT
/*
 * LAVA job definitions of a matrix run (lava.h): per kernel a folder
 * under --artifacts holding its bzImage, its initrd (the guest image of
 * the command, with that kernel's fuse.ko) and job.yaml, a job of device
 * type qemu that deploys both to tmpfs from --artifacts-url, boots them
 * with `method: qemu` and records the guest's `testfs-result:` lines as
 * test cases (a `monitors` test between the guest's booted and done
 * lines). The schema the job follows is lava-common's
 * (lava_common.schemas); tests/lava_jobs.sh validates it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lava.h"
#include "matrix.h"
#include "outfile.h"
#include "prereq.h"
#include "strbuf.h"

/* The guest's kernel command line (as matrix/guest.c boots it). */
#define LAVA_CMDLINE "panic=-1 quiet no_timer_check"

/* What the monitors test waits for and records (matrix/init.sh, run.sh). */
#define LAVA_START "@@testfs-matrix booted"
#define LAVA_END "@@testfs-matrix done"
#define LAVA_PATTERN                                                           \
	"testfs-result: name=(?P<test_case_id>\\S+) "                          \
	"result=(?P<result>pass|fail|skip) "                                   \
	"measurement=(?P<measurement>\\d+) units=(?P<units>[a-z_]+)\\s"

/*
 * The guest architectures a job can name (the kernel's): LAVA's qemu
 * device type picks qemu-system-aarch64 for context arch arm64, with the
 * machine and cpu of the context (those matrix/arch.c boots).
 */
static const struct lava_arch {
	const char *name;    /* the job's context arch */
	const char *console; /* the guest's serial console */
	const char *kernel;  /* the kernel's file name in the artifacts */
	const char *machine; /* context machine and cpu, or NULL */
	const char *cpu;
} arches[] = {
	{ "x86_64", "ttyS0", "bzImage", NULL, NULL },
	{ "arm64", "ttyAMA0", "Image", "virt", "max,pauth-impdef=on" },
};

static const struct lava_arch *find_arch(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (strcmp(arches[i].name, name) == 0)
			return &arches[i];
	return NULL;
}

static bool has_scheme(const char *url, const char *const *schemes)
{
	for (; *schemes; schemes++)
		if (!strncmp(url, *schemes, strlen(*schemes)) &&
		    url[strlen(*schemes)])
			return true;
	return false;
}

int lava_check_opts(struct lava_opts *o, bool for_lava)
{
	static const char *const art_schemes[] = { "file:///", "http://",
						   "https://", NULL };
	static const char *const lava_schemes[] = { "http://", "https://",
						    NULL };
	static char file_url[4200];
	char abs[4096];

	if (o->arch && !find_arch(o->arch))
		return matrix_usage_error("--arch '%s': x86_64 or arm64",
					  o->arch);
	if (for_lava && !has_scheme(o->url, lava_schemes))
		return matrix_usage_error(
			"--lava '%s': the server's http:// or https:// URL",
			o->url);
	if (!o->artifacts)
		return matrix_usage_error(
			"%s needs --artifacts DIR (where the kernels and "
			"images go for the workers to fetch)",
			for_lava ? "--lava" : "lava-job");
	if (mkdir(o->artifacts, 0755) && errno != EEXIST) {
		fprintf(stderr, "testfs-matrix: --artifacts %s: %s\n",
			o->artifacts, strerror(errno));
		return 2;
	}
	if (!realpath(o->artifacts, abs)) {
		fprintf(stderr, "testfs-matrix: --artifacts %s: %s\n",
			o->artifacts, strerror(errno));
		return 2;
	}
	if (!o->artifacts_url) {
		/* A worker on this machine reads the folder itself. */
		snprintf(file_url, sizeof(file_url), "file://%s", abs);
		o->artifacts_url = file_url;
	} else if (!has_scheme(o->artifacts_url, art_schemes)) {
		return matrix_usage_error(
			"--artifacts-url '%s': file:///PATH, http:// or "
			"https:// (what the workers fetch DIR's files from)",
			o->artifacts_url);
	}
	return 0;
}

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') ||
	       ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* A folder name for @spec: debian:6.12 -> debian-6.12. */
static void slug_of(const char *spec, const char *release, size_t index,
		    char *out, size_t len)
{
	size_t i, j = 0;

	/* A path SPEC: its release names it better than the path. */
	if (strchr(spec, '/') && release[0])
		spec = release;
	j = (size_t)snprintf(out, len, "%02zu-", index + 1);
	for (i = 0; spec[i] && j + 1 < len && j < 64; i++)
		out[j++] = strchr("._+-", spec[i]) || is_alnum(spec[i])
				   ? spec[i]
				   : '-';
	out[j] = '\0';
}

/* @s as a YAML single-quoted scalar. */
static void yaml_str(struct strbuf *sb, const char *s)
{
	strbuf_addc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addc(sb, '\'');
		strbuf_addc(sb, (*s == '\n' || *s == '\r') ? ' ' : *s);
	}
	strbuf_addc(sb, '\'');
}

/* The monitors test's name: testfs-suite, testfs-scenario-vma-boundary. */
static void definition_name(const struct matrix *m, char *out, size_t len)
{
	size_t i;

	snprintf(out, len, "testfs-%s%s%s", m->argv[0], m->argc > 1 ? "-" : "",
		 strcmp(m->argv[0], "scenario") == 0 ? m->argv[1] : "");
	for (i = 0; out[i]; i++)
		if (!strchr("-_.", out[i]) && !is_alnum(out[i]))
			out[i] = '_';
	if (out[strlen(out) - 1] == '-')
		out[strlen(out) - 1] = '\0';
}

static int cap(int a, int b)
{
	return a < b ? a : b;
}

int lava_job_timeout(const struct matrix *m, const struct lava_opts *o)
{
	return o->job_timeout_s ? o->job_timeout_s
				: ((m->timeout_s + 59) / 60 + 10) * 60;
}

static char *job_yaml(const struct matrix *m, const struct run *r,
		      const struct lava_opts *o, const char *slug)
{
	const char *accel = getenv("TESTFS_MATRIX_ACCEL");
	bool kvm = accel && strcmp(accel, "kvm") == 0;
	int job_s = lava_job_timeout(m, o);
	/* No action's limit past the job's (lava-common's schema). */
	int test_s = cap((m->timeout_s + 59) / 60 * 60, job_s);
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;
	const struct lava_arch *a = find_arch(r->k.arch);
	char def[128];
	int i;

	strbuf_addf(&name, "testfs-matrix %s:", r->k.spec);
	for (i = 0; i < m->argc && name.len < 180; i++)
		strbuf_addf(&name, " %s", m->argv[i]);
	if (name.len > 200)
		name.len = 200;
	strbuf_addc(&name, '\0');
	definition_name(m, def, sizeof(def));
	strbuf_adds(&sb, "# testfs-matrix: the command on one kernel (");
	strbuf_adds(&sb, r->k.release[0] ? r->k.release : r->k.spec);
	strbuf_adds(&sb, ")\ndevice_type: qemu\njob_name: ");
	yaml_str(&sb, name.data);
	strbuf_addf(&sb,
		    "\nvisibility: public\npriority: medium\n"
		    "timeouts:\n  job:\n    seconds: %d\n"
		    "  connection:\n    seconds: %d\n",
		    job_s, test_s);
	if (a->machine)
		/* A device per page size: a worker's qemu may lack 16k. */
		strbuf_addf(&sb, "tags:\n- page-%uk\n", r->k.page_size / 1024);
	strbuf_addf(&sb, "context:\n  arch: %s\n  no_kvm: %s\n", a->name,
		    kvm ? "false" : "true");
	if (a->machine)
		strbuf_addf(&sb, "  machine: %s\n  cpu: '%s'\n", a->machine,
			    a->cpu);
	strbuf_adds(&sb, "  memory: 2048\n"
			 "  extra_options:\n  - -smp 2\n  - -no-reboot\n");
	strbuf_adds(&sb, "actions:\n- deploy:\n    to: tmpfs\n"
			 "    timeout:\n");
	strbuf_addf(&sb, "      seconds: %d\n", cap(300, job_s));
	strbuf_adds(&sb, "    images:\n      kernel:\n        image_arg: ");
	strbuf_addf(&sb, "'-kernel {kernel} -append \"console=%s %s\"'\n",
		    a->console, LAVA_CMDLINE);
	strbuf_adds(&sb, "        url: ");
	strbuf_addf(&sb, "'%s/%s/%s'\n", o->artifacts_url, slug, a->kernel);
	strbuf_adds(&sb, "      ramdisk:\n        image_arg: '-initrd "
			 "{ramdisk}'\n        url: ");
	strbuf_addf(&sb, "'%s/%s/initrd.cpio'\n", o->artifacts_url, slug);
	strbuf_adds(&sb, "- boot:\n    method: qemu\n    media: tmpfs\n"
			 "    timeout:\n");
	strbuf_addf(&sb, "      seconds: %d\n", cap(180, job_s));
	strbuf_addf(&sb, "- test:\n    timeout:\n      seconds: %d\n", test_s);
	strbuf_adds(&sb, "    monitors:\n    - name: ");
	strbuf_adds(&sb, def);
	strbuf_adds(&sb, "\n      start: ");
	yaml_str(&sb, LAVA_START);
	strbuf_adds(&sb, "\n      end: ");
	yaml_str(&sb, LAVA_END);
	strbuf_adds(&sb, "\n      pattern: ");
	yaml_str(&sb, LAVA_PATTERN);
	strbuf_adds(&sb, "\n");
	strbuf_free(&name);
	return strbuf_detach(&sb, NULL);
}

/* One kernel's folder: bzImage, initrd.cpio, job.yaml. 0 or -errno. */
static int write_job(struct matrix *m, struct run *r, struct lava_job *j,
		     const struct lava_opts *o, const char *slug, char *why,
		     size_t whylen)
{
	const char *base = guest_base_image(m, r);
	char path[4300], tmp[4300];
	char *yaml;
	int err;

	if (!base)
		return snprintf(why, whylen, "%s", r->reason), -ENOENT;

	if (mkdir(j->dir, 0755) && errno != EEXIST)
		return snprintf(why, whylen, "%s: %s", j->dir, strerror(errno)),
		       -errno;
	snprintf(path, sizeof(path), "%s/%s", j->dir,
		 find_arch(r->k.arch)->kernel);
	err = copy_out(r->k.image, path);
	if (err)
		return snprintf(why, whylen, "%s: %s", path, strerror(-err)),
		       err;
	snprintf(path, sizeof(path), "%s/initrd.cpio", j->dir);
	snprintf(tmp, sizeof(tmp), "%s/.initrd.cpio.tmp", j->dir);
	err = image_for_kernel(base, &r->k, m->argv, tmp, why, whylen);
	if (!err && rename(tmp, path)) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
	}
	if (err) {
		unlink(tmp);
		return err;
	}
	yaml = job_yaml(m, r, o, slug);
	err = yaml ? outfile_write(j->yaml, yaml, strlen(yaml)) : -ENOMEM;
	free(yaml);
	if (err)
		snprintf(why, whylen, "%s: %s", j->yaml, strerror(-err));
	return err;
}

int lava_workdir(struct matrix *m)
{
	snprintf(m->workdir, sizeof(m->workdir), "/tmp/testfs-matrix.XXXXXX");
	if (mkdtemp(m->workdir))
		return 0;
	fprintf(stderr, "testfs-matrix: mkdtemp: %s\n", strerror(errno));
	m->workdir[0] = '\0';
	return 1;
}

int lava_write_jobs(struct matrix *m, struct run *runs, struct lava_job *jobs,
		    size_t n, const struct lava_opts *o)
{
	char why[1024], slug[80];
	size_t i;

	if (!m->workdir[0] && lava_workdir(m))
		return 1;
	for (i = 0; i < n; i++) {
		if (runs[i].k.skip[0])
			continue;
		slug_of(runs[i].k.spec, runs[i].k.release, i, slug,
			sizeof(slug));
		snprintf(jobs[i].dir, sizeof(jobs[i].dir), "%s/%s",
			 o->artifacts, slug);
		snprintf(jobs[i].yaml, sizeof(jobs[i].yaml), "%s/job.yaml",
			 jobs[i].dir);
		if (write_job(m, &runs[i], &jobs[i], o, slug, why,
			      sizeof(why))) {
			fprintf(stderr, "testfs-matrix: %s: %s\n",
				runs[i].k.spec, why);
			return 1;
		}
	}
	return 0;
}

/*
 * What a run of lava-job or --lava checks before any work: the command,
 * the binaries, the kernels (default: Debian's, no host). 0, 1 or 2.
 */
int lava_prepare(struct matrix *m, const char *const *specs, size_t nspec,
		 struct run **runs, size_t *np, const char *o_arch)
{
	static const char *const defaults[] = { "debian:6.1", "debian:6.12",
						"debian:latest" };
	const char *const *use = nspec ? specs : defaults;
	size_t n = nspec ? nspec : 3, i;
	unsigned needs = NEED_CACHE;
	char why[1024];
	int err;

	if (check_command(m->argc, m->argv))
		return 2;
	if (bins_find(&m->bins, why, sizeof(why))) {
		fprintf(stderr, "testfs-matrix: %s\n", why);
		return 2;
	}
	if (!m->bins.busybox[0]) {
		fprintf(stderr, "testfs-matrix: /bin/busybox is missing "
				"(apt-get install busybox-static)\n");
		return 1;
	}
	if (strcmp(m->argv[0], "scenario") == 0 &&
	    check_scenario(&m->bins, m->argv[1]))
		return 2;
	for (i = 0; i < n; i++) {
		if (strcmp(use[i], "host") == 0)
			return matrix_usage_error(
				"%s: a LAVA job boots a kernel; the host's "
				"runs without one (leave it out)",
				use[i]);
		err = kernel_resolve(use[i], why, sizeof(why));
		if (err == -ENOENT || err == -EINVAL)
			return matrix_usage_error("%s", why);
		if (err) {
			fprintf(stderr, "testfs-matrix: %s: %s\n", use[i], why);
			return 1;
		}
	}
	if (prereq_check(needs, "testfs-matrix"))
		return 1;
	*runs = calloc(n, sizeof(**runs));
	if (!*runs)
		return 1;
	for (i = 0; i < n; i++) {
		struct kernel *k = &(*runs)[i].k;

		kernel_prepare(k, use[i]);
		if (o_arch && !k->skip[0] && strcmp(o_arch, k->arch)) {
			fprintf(stderr,
				"testfs-matrix: --arch %s: %s is an %s "
				"kernel\n",
				o_arch, use[i], k->arch);
			free(*runs);
			*runs = NULL;
			return 2;
		}
	}
	*np = n;
	return 0;
}

int cmd_lava_job(struct matrix *m, const char *const *specs, size_t nspec,
		 struct lava_opts *o)
{
	struct lava_job *jobs = NULL;
	struct run *runs = NULL;
	int status;
	size_t i, n;

	m->argv++;
	m->argc--;
	if (m->argc < 1)
		return matrix_usage_error("%s",
					  "lava-job: a COMMAND is needed");
	status = lava_check_opts(o, false);
	if (!status)
		status = lava_prepare(m, specs, nspec, &runs, &n, o->arch);
	if (status)
		return status;
	jobs = calloc(n, sizeof(*jobs));
	status = !jobs || lava_write_jobs(m, runs, jobs, n, o);
	for (i = 0; !status && i < n; i++) {
		if (runs[i].k.skip[0]) {
			fprintf(stderr, "testfs-matrix: %s: no job: %s\n",
				runs[i].k.spec, runs[i].k.skip);
			status = 1;
			continue;
		}
		printf("%s: %s (%s)\n", runs[i].k.spec, jobs[i].yaml,
		       runs[i].k.release);
	}
	cleanup_work(m);
	free(jobs);
	free(runs);
	return status;
}
