// SPDX-License-Identifier: MIT
/*
 * testfs-scenario as a user runs it: every scenario at its small size
 * exits 0 with valid JSON; the numbers in the report equal those computed
 * from the read log it kept (log=PATH); bad arguments exit 2 naming the
 * PARAM; no mount is left behind. Each run gets its own TMPDIR, so its
 * mounts are told apart from other testfs mounts on the machine.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario_json.h"

extern char **environ;

/* The directory of the last run, removed by the suite's .fini. */
static char last_tmpdir[256];

struct result {
	int status;
	char *out;
	char *err;
	char log[512];
	char tmpdir[256];
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, cap = 65536, n;
	char *buf;

	if (!f)
		return strdup("");
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *g = realloc(buf, 2 * cap + 1);

			if (!g)
				break;
			buf = g;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

static void require_fuse(void)
{
	const char *ci = getenv("CI");
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return;
	}
	if (ci && strcmp(ci, "true") == 0)
		cr_assert_fail("FUSE unavailable under CI=true: /dev/fuse: %s",
			       strerror(errno));
	cr_skip_test("FUSE unavailable: /dev/fuse: %s", strerror(errno));
}

/* No mount under @dir in /proc/mounts. */
static bool no_mount_under(const char *dir)
{
	char *mounts = slurp("/proc/mounts");
	bool none = !mounts || !strstr(mounts, dir);

	free(mounts);
	return none;
}

static void run_env(struct result *r, const char *const *args,
		    const char *extra_env);

static void run(struct result *r, const char *const *args)
{
	run_env(r, args, NULL);
}

/*
 * Runs testfs-scenario with @args (NULL-terminated, after the program
 * name) and @extra_env ("NAME=VALUE" replacing NAME, or NULL), TMPDIR set
 * to a fresh directory; captures stdout and stderr.
 */
static void run_env(struct result *r, const char *const *args,
		    const char *extra_env)
{
	const char *bin = getenv("TESTFS_SCENARIO"), *base = getenv("TMPDIR");
	char outp[300], errp[300], tmpenv[300], logarg[600];
	const char *argv[32];
	char *envp[256];
	posix_spawn_file_actions_t fa;
	size_t i, n = 0, ne = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	cr_assert(bin, "TESTFS_SCENARIO is not set");
	/* Under the run's own $TMPDIR, where scripts/test.sh looks. */
	snprintf(r->tmpdir, sizeof(r->tmpdir), "%s/testfs-scn.XXXXXX",
		 base && base[0] == '/' && strlen(base) < 200 ? base : "/tmp");
	cr_assert(mkdtemp(r->tmpdir), "mkdtemp: %s", strerror(errno));
	snprintf(outp, sizeof(outp), "%s/out", r->tmpdir);
	snprintf(errp, sizeof(errp), "%s/err", r->tmpdir);
	snprintf(r->log, sizeof(r->log), "%s/log.jsonl", r->tmpdir);
	snprintf(tmpenv, sizeof(tmpenv), "TMPDIR=%s", r->tmpdir);
	snprintf(logarg, sizeof(logarg), "log=%s", r->log);
	argv[n++] = bin;
	for (i = 0; args[i] && n < 31; i++)
		argv[n++] = strcmp(args[i], "log=@") == 0 ? logarg : args[i];
	argv[n] = NULL;
	snprintf(last_tmpdir, sizeof(last_tmpdir), "%s", r->tmpdir);
	for (i = 0; environ[i] && ne < 253; i++)
		if (strncmp(environ[i], "TMPDIR=", 7) &&
		    (!extra_env ||
		     strncmp(environ[i], extra_env,
			     (size_t)(strchr(extra_env, '=') - extra_env + 1))))
			envp[ne++] = environ[i];
	envp[ne++] = tmpenv;
	if (extra_env)
		envp[ne++] = (char *)extra_env;
	envp[ne] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, outp,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, errp,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_eq(posix_spawn(&pid, bin, &fa, NULL, (char **)argv, envp), 0,
		     "spawn %s", bin);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(waitpid(pid, &r->status, 0), pid);
	r->out = slurp(outp);
	r->err = slurp(errp);
	cr_assert(no_mount_under(r->tmpdir), "a mount under %s was left behind",
		  r->tmpdir);
}

/* Removes a run's directory: its stdout, stderr and log files. */
static void remove_tmpdir(const char *dir)
{
	static const char *const names[] = { "out", "err", "log.jsonl" };
	char path[300];
	size_t i;

	if (!dir[0])
		return;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
	remove_tmpdir(r->tmpdir);
	last_tmpdir[0] = '\0';
}

/* After a failed assertion, the last run's files go too. */
static void cleanup(void)
{
	remove_tmpdir(last_tmpdir);
}

static int exit_code(const struct result *r)
{
	return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
}

static double num(const struct result *r, const char *path)
{
	double v = -1;

	cr_assert(json_number(r->out, path, &v), "no number at %s", path);
	return v;
}

TestSuite(scenario, .fini = cleanup, .timeout = 120);

Test(scenario, list_names_every_scenario)
{
	const char *args[] = { "list", NULL };
	struct result r;

	run(&r, args);
	cr_assert_eq(exit_code(&r), 0, "%s", r.err);
	cr_assert(strstr(r.out, "vma-boundary"));
	cr_assert(strstr(r.out, "mprotect-split"));
	cr_assert(strstr(r.out, "seqread"));
	cr_assert(strstr(r.out, "folio-order"));
	cr_assert(strstr(r.out, "elf-startup"));
	result_free(&r);
}

Test(scenario, help_lists_params)
{
	const char *args[] = { "help", "vma-boundary", NULL };
	const char *help[] = { "--help", NULL };
	struct result r;

	run(&r, args);
	cr_assert_eq(exit_code(&r), 0, "%s", r.err);
	cr_assert(strstr(r.out, "size=192M"), "%s", r.out);
	cr_assert(strstr(r.out, "preset=small"), "%s", r.out);
	result_free(&r);
	run(&r, help);
	cr_assert_eq(exit_code(&r), 0);
	cr_assert(strstr(r.out, "Exit status"), "%s", r.out);
	result_free(&r);
}

/* Runs NAME at its small size with --json (and log=PATH if @keep_log). */
static void run_small(struct result *r, const char *name, bool keep_log)
{
	const char *args[] = { "run",	      name, "--json", "preset=small",
			       "timeout=100", NULL, NULL };

	require_fuse();
	if (keep_log)
		args[5] = "log=@";
	run(r, args);
	cr_assert_eq(exit_code(r), 0, "%s exited %d: %s", name, exit_code(r),
		     r->err);
	cr_assert(json_valid(r->out), "%s --json is not valid JSON:\n%.2000s",
		  name, r->out);
}

Test(scenario, seqread_small)
{
	struct result r;

	run_small(&r, "seqread", false);
	cr_assert(strstr(r.out, "\"runs\":["));
	/*
	 * read(2) started the readahead and the scenario does not trace
	 * read(2) lookups: page age (with tracing) must say that its never
	 * is not "nothing read them".
	 */
	if (strstr(r.out, "\"page_age\":{"))
		cr_assert(strstr(r.out,
				 "\"never_why\":\"read(2) accesses were "
				 "not traced: pages only read(2) touched "
				 "count as never (the daemon traces them "
				 "with --trace-reads, which scenarios "
				 "leave off)\""),
			  "%.4000s", strstr(r.out, "\"page_age\":{"));
	result_free(&r);
}

/*
 * transports: both transports ran each workload (or the io_uring half
 * says why it could not), and what any kernel does holds over each: the
 * whole file was fetched by the sequential reads, the slice by the
 * mmap touches, and the daemon's counters put every FUSE read of a run
 * on the transport it ran on.
 */
Test(scenario, transports_small)
{
	static const char *const w[] = { "seq4k", "seq1m", "mmap", "split" };
	char path[160], tr[256], note[512];
	double pages, requests, other;
	bool uring;
	size_t i;
	int t;
	struct result r;

	run_small(&r, "transports", false);
	pages = num(&r, "settings.file_pages");
	uring = !json_string(r.out, "done.uring", note, sizeof(note));
	if (!uring)
		cr_log_info("io_uring half not run: %s", note);
	for (i = 0; i < 4; i++) {
		for (t = 0; t < (uring ? 2 : 1); t++) {
			snprintf(path, sizeof(path),
				 "workloads.%s.transports.%d.transport", w[i],
				 t);
			cr_assert(json_string(r.out, path, tr, sizeof(tr)),
				  "no %s", path);
			cr_assert_str_eq(tr, t ? "uring" : "dev", "%s", path);
			snprintf(path, sizeof(path),
				 "workloads.%s.transports.%d.requests", w[i],
				 t);
			requests = num(&r, path);
			cr_assert_gt(requests, 0, "%s", path);
			snprintf(path, sizeof(path),
				 "workloads.%s.transports.%d.pages_fetched",
				 w[i], t);
			if (i < 2)
				cr_assert_eq(num(&r, path), pages,
					     "%s: the whole file", path);
			else
				cr_assert_geq(num(&r, path),
					      i == 2 ? (double)((long)pages / 3)
						     : pages,
					      "%s: the touched pages", path);
			/* The counters: a run's reads all on its transport. */
			snprintf(path, sizeof(path),
				 "workloads.%s.transports.%d.%s", w[i], t,
				 t ? "over_ring" : "over_dev");
			cr_assert_geq(num(&r, path), requests, "%s", path);
			snprintf(path, sizeof(path),
				 "workloads.%s.transports.%d.%s", w[i], t,
				 t ? "over_dev" : "over_ring");
			other = num(&r, path);
			cr_assert_eq(other, 0,
				     "%s: %.0f reads on the other "
				     "transport",
				     path, other);
		}
	}
	result_free(&r);
}

/* A scenario over io_uring says so in its settings, or why not. */
Test(scenario, transport_param)
{
	const char *args[] = { "run",
			       "vma-boundary",
			       "--json",
			       "preset=small",
			       "transport=uring",
			       "timeout=100",
			       NULL };
	char tr[256], note[512];
	struct result r;

	require_fuse();
	run(&r, args);
	cr_assert_eq(exit_code(&r), 0, "%s", r.err);
	cr_assert(json_string(r.out, "settings.transport", tr, sizeof(tr)));
	if (strcmp(tr, "uring"))
		cr_assert(json_string(r.out, "settings.transport_note", note,
				      sizeof(note)),
			  "transport %s without a note", tr);
	result_free(&r);
}

/* The reads between the marks "PHASE begin" and "PHASE end" of @log. */
struct log_count {
	double requests;
	double pages;
	double before;
	double inside;
	double after;
	double first_page;
};

static void count_log(const char *path, const char *phase, double first,
		      double last, struct log_count *c)
{
	char *text = slurp(path), *line, *save = NULL, begin[128], end[128];
	bool in = false;
	unsigned char *seen;
	double p;

	memset(c, 0, sizeof(*c));
	cr_assert(text && *text, "log %s is empty", path);
	snprintf(begin, sizeof(begin), "\"mark\":\"%s begin\"", phase);
	snprintf(end, sizeof(end), "\"mark\":\"%s end\"", phase);
	seen = calloc(1u << 22, 1);
	cr_assert(seen);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		double page, pages;

		if (strstr(line, begin)) {
			in = true;
			continue;
		}
		if (strstr(line, end))
			break;
		/* Reads only: not marks, kernel accesses, O_DIRECT reads. */
		if (!in || strstr(line, "\"mark\"") ||
		    strstr(line, "\"access\"") || strstr(line, "\"direct\"") ||
		    !strstr(line, "\"off\""))
			continue;
		cr_assert(json_valid(line), "bad log line %s", line);
		cr_assert(json_number(line, "page", &page));
		cr_assert(json_number(line, "pages", &pages));
		if (!c->requests)
			c->first_page = page;
		c->requests++;
		for (p = page; p < page + pages; p++) {
			if (p >= (1u << 22) || seen[(size_t)p])
				continue;
			seen[(size_t)p] = 1;
			c->pages++;
			if (p < first)
				c->before++;
			else if (p > last)
				c->after++;
			else
				c->inside++;
		}
	}
	cr_assert(in, "no mark '%s begin' in %s", phase, path);
	free(seen);
	free(text);
}

Test(scenario, vma_boundary_numbers_equal_the_log)
{
	struct log_count c;
	struct result r;
	double first, last;

	run_small(&r, "vma-boundary", true);
	first = num(&r, "fetched.vma.first_page");
	last = num(&r, "fetched.vma.last_page");
	count_log(r.log, "touch", first, last, &c);
	cr_assert_eq(num(&r, "fetched.requests"), c.requests);
	cr_assert_eq(num(&r, "fetched.pages_fetched"), c.pages);
	cr_assert_eq(num(&r, "fetched.before"), c.before);
	cr_assert_eq(num(&r, "fetched.inside"), c.inside);
	cr_assert_eq(num(&r, "fetched.after"), c.after);
	/* Every page of the VMA was touched, so fetched. */
	cr_assert_eq(c.inside, last - first + 1);
	/* cachestat counts the pages the log says were fetched (no
	 * memory pressure in a 12 MiB file). */
	cr_assert_eq(num(&r, "fetched.cachestat.nr_cache"), c.pages);
	cr_assert(strstr(r.out, "\"page_map\":{"));
	/* The JSON numbers: the verdicts' observed counts, every read. */
	cr_assert_eq(num(&r, "verdicts.policies.0.observed_before"), c.before);
	cr_assert_eq(num(&r, "verdicts.policies.0.observed_after"), c.after);
	cr_assert_eq(num(&r, "verdicts.policies.1.observed_pages"), c.pages);
	cr_assert_eq(num(&r, "verdicts.policies.1.expected_before"), 0);
	cr_assert_eq(num(&r, "verdicts.policies.1.expected_after"), 0);
	{
		char path[64];
		double v;

		snprintf(path, sizeof(path), "fetched.request_list.%.0f.pages",
			 c.requests - 1);
		cr_assert(json_number(r.out, path, &v),
			  "request_list has not all %.0f reads", c.requests);
		snprintf(path, sizeof(path), "fetched.request_list.%.0f.page",
			 c.requests);
		cr_assert(!json_number(r.out, path, &v),
			  "request_list has more than %.0f reads", c.requests);
		cr_assert_eq(num(&r, "fetched.request_list.0.page"),
			     c.first_page);
	}
	result_free(&r);
}

/*
 * A VMA whose start is not a multiple of 4 pages (size=4100K: pages
 * 341-681): async windows have their end rounded down to a multiple of 4
 * pages on 6.18; the model must say so. On another kernel the test
 * reports what it saw instead of failing.
 */
Test(scenario, unaligned_vma_matches_current_kernels)
{
	const char *args[] = { "run",	     "vma-boundary",  "--json",
			       "size=4100K", "throughput=no", NULL };
	char kernel[256], verdict[256], exp[256], obs[256];
	struct result r;

	require_fuse();
	run(&r, args);
	cr_assert_eq(exit_code(&r), 0, "%s", r.err);
	cr_assert(json_valid(r.out));
	cr_assert_eq(num(&r, "fetched.vma.first_page"), 341);
	cr_assert(
		json_string(r.out, "settings.kernel", kernel, sizeof(kernel)));
	cr_assert(json_string(r.out, "verdicts.policies.0.verdict", verdict,
			      sizeof(verdict)));
	cr_assert(json_string(r.out, "verdicts.policies.0.expected", exp,
			      sizeof(exp)));
	cr_assert(json_string(r.out, "verdicts.policies.0.observed", obs,
			      sizeof(obs)));
	if (strncmp(kernel, "6.18", 4) != 0 && strcmp(verdict, "matches")) {
		cr_log_warn("kernel %s: current-kernels verdict '%s' "
			    "(expected %s, observed %s)",
			    kernel, verdict, exp, obs);
		result_free(&r);
		cr_skip_test("kernel %s is not 6.18: verdict %s", kernel,
			     verdict);
	}
	cr_assert_str_eq(verdict, "matches",
			 "kernel %s: expected %s, observed %s", kernel, exp,
			 obs);
	cr_assert_eq(num(&r, "verdicts.policies.0.expected_after"),
		     num(&r, "verdicts.policies.0.observed_after"));
	result_free(&r);
}

Test(scenario, timeout_exits_1_and_unmounts)
{
	const char *args[] = { "run",	    "vma-boundary", "size=12M",
			       "model=hdd", "timeout=1",    NULL };
	struct result r;

	require_fuse();
	run(&r, args);
	cr_assert_eq(exit_code(&r), 1, "exit %d: %s", exit_code(&r), r.err);
	cr_assert(strstr(r.err, "timed out after 1 s (timeout=1)"), "%s",
		  r.err);
	/* run() checked that no mount is left under its TMPDIR. */
	result_free(&r);
}

/* Exit 1 and a message naming TESTFS_BIN's path and its problem. */
static void expect_bad_bin(const char *env, const char *path, const char *why)
{
	const char *args[] = { "run", "vma-boundary", "preset=small",
			       "throughput=no", NULL };
	struct result r;

	run_env(&r, args, env);
	cr_assert_eq(exit_code(&r), 1, "exit %d for %s: %s", exit_code(&r), env,
		     r.err);
	cr_assert(strstr(r.err, path), "'%s' not in: %s", path, r.err);
	cr_assert(strstr(r.err, why), "'%s' not in: %s", why, r.err);
	result_free(&r);
}

Test(scenario, bad_testfs_bin_is_named)
{
	expect_bad_bin("TESTFS_BIN=/nonexistent/testfs", "/nonexistent/testfs",
		       "No such file");
	expect_bad_bin("TESTFS_BIN=/etc/passwd", "/etc/passwd",
		       "not executable");
	expect_bad_bin("TESTFS_BIN=/tmp", "/tmp", "is a directory");
	expect_bad_bin("TESTFS_BIN=/bin/true", "/bin/true",
		       "not the testfs daemon");
}

Test(scenario, json_anywhere_after_run)
{
	const char *args[] = { "run",	       "--json",	"vma-boundary",
			       "preset=small", "throughput=no", NULL };
	struct result r;

	require_fuse();
	run(&r, args);
	cr_assert_eq(exit_code(&r), 0, "%s", r.err);
	cr_assert(json_valid(r.out), "%.2000s", r.out);
	result_free(&r);
}

Test(scenario, mprotect_split_numbers_equal_the_log)
{
	struct log_count c;
	struct result r;
	double vmas;

	run_small(&r, "mprotect-split", true);
	count_log(r.log, "touch", 0, 1e18, &c);
	vmas = num(&r, "done.vmas");
	cr_assert_eq(vmas, 8);
	cr_assert_eq(num(&r, "fetched.requests"), c.requests);
	cr_assert_eq(num(&r, "fetched.pages_fetched"), c.pages);
	cr_assert_eq(num(&r, "fetched.boundaries.ready") +
			     num(&r, "fetched.boundaries.in_flight") +
			     num(&r, "fetched.boundaries.missing"),
		     vmas - 1);
	result_free(&r);
}

Test(scenario, folio_order_numbers_equal_the_log)
{
	struct log_count c;
	struct result r;

	run_small(&r, "folio-order", true);
	count_log(r.log, "read", 0, 1e18, &c);
	cr_assert_eq(num(&r, "fetched.requests"), c.requests);
	/* The whole file was read: every page fetched once. */
	cr_assert_eq(c.pages, 2048);
	cr_assert_gt(num(&r, "alignment.windows"), 0);
	/* The folios the kernel added hold every page read (and any page
	 * read again after an eviction). */
	if (strstr(r.out, "\"folios\":{\"available\":true"))
		cr_assert_geq(num(&r, "folios.total_pages"), 2048);
	else
		cr_assert(strstr(r.out, "mm_filemap_add_to_page_cache"),
			  "no folio orders, and no word why: %.3000s", r.out);
	result_free(&r);
}

/* The default binary (the testfs daemon): counts equal the log's. */
Test(scenario, elf_startup_numbers_equal_the_log)
{
	struct log_count c;
	struct result r;

	run_small(&r, "elf-startup", true);
	count_log(r.log, "startup", 0, 1e18, &c);
	cr_assert_eq(num(&r, "fetched.requests"), c.requests);
	cr_assert_eq(num(&r, "fetched.pages_fetched"), c.pages);
	cr_assert_eq(num(&r, "fetched.in_segments") +
			     num(&r, "fetched.outside"),
		     c.pages);
	cr_assert_eq(num(&r, "fetched.checks.touched_not_fetched"), 0);
	cr_assert(strstr(r.out, "\"page_cache_equals_log\":true"), "%.3000s",
		  r.out);
	cr_assert(strstr(r.out, "\"bytes_equal\":true"));
	result_free(&r);
}

Test(scenario, without_tracing_says_why)
{
	const char *args[] = { "run",	    "vma-boundary",
			       "--json",    "preset=small",
			       "trace=off", "throughput=no",
			       NULL };
	char causes[256];
	struct result r;

	require_fuse();
	run(&r, args);
	cr_assert_eq(exit_code(&r), 0, "%s", r.err);
	cr_assert(json_valid(r.out));
	cr_assert(json_string(r.out, "fetched.causes", causes, sizeof(causes)),
		  "no fetched.causes string: %.2000s", r.out);
	cr_assert(strstr(causes, "not available ("), "%s", causes);
	cr_assert(strstr(r.out, "\"causes_available\":false"));
	/* The counts do not need tracing. */
	cr_assert_eq(num(&r, "fetched.before") + num(&r, "fetched.inside") +
			     num(&r, "fetched.after"),
		     num(&r, "fetched.pages_fetched"));
	result_free(&r);
}

/* Exit 2 and a message on stderr that contains each of @words. */
static void expect_bad(const char *const *args, const char *w1, const char *w2)
{
	struct result r;

	run(&r, args);
	cr_assert_eq(exit_code(&r), 2, "exit %d for %s %s: %s", exit_code(&r),
		     args[0], args[1] ? args[1] : "", r.err);
	cr_assert(strstr(r.err, w1), "'%s' not in: %s", w1, r.err);
	if (w2)
		cr_assert(strstr(r.err, w2), "'%s' not in: %s", w2, r.err);
	cr_assert_eq(r.out[0], '\0', "stdout not empty: %s", r.out);
	result_free(&r);
}

Test(scenario, bad_arguments_exit_2_naming_them)
{
	const char *a1[] = { "run", "vma-boundary", "nosuch=1", NULL };
	const char *a2[] = { "run", "vma-boundary", "ra=lots", NULL };
	const char *a3[] = { "run", "seqread", "engines=fio", NULL };
	const char *a4[] = { "run", "mprotect-split", "size=5000", NULL };
	const char *a5[] = { "run", "folio-order", "model=warp9", NULL };
	const char *a6[] = { "run", "no-such-scenario", NULL };
	const char *a7[] = { "help", "no-such-scenario", NULL };
	const char *a8[] = { "frobnicate", NULL };
	const char *a9[] = { "run", "seqread", "size", NULL };
	const char *a10[] = { "run", "vma-boundary", "ra=128", "ra=256", NULL };
	const char *a11[] = { "run", "vma-boundary",
			      "log=/nonexistent/dir/x.jsonl", NULL };
	const char *a12[] = { "run", "vma-boundary", "size=4097", NULL };
	const char *a13[] = { "run", "vma-boundary", "size=0", NULL };
	const char *a14[] = { "run", "vma-boundary", "size=99999999T", NULL };
	const char *a15[] = { "run", "vma-boundary", "transport=pigeon", NULL };
	const char *a16[] = { "run", "transports", "workloads=seq2k", NULL };
	const char *a17[] = { "run", "transports", "rounds=10", NULL };

	expect_bad(a1, "nosuch", "size, ra");
	expect_bad(a2, "ra", "4..1048576");
	expect_bad(a3, "engines", "all,read,io_uring,posix_aio");
	expect_bad(a4, "size", "multiple of the page size");
	expect_bad(a5, "model", "warp9");
	expect_bad(a6, "no-such-scenario", "vma-boundary");
	expect_bad(a7, "no-such-scenario", NULL);
	expect_bad(a8, "frobnicate", NULL);
	expect_bad(a9, "PARAM=VALUE", NULL);
	expect_bad(a10, "'ra' given twice", NULL);
	expect_bad(a11, "log", "/nonexistent/dir");
	expect_bad(a12, "size", "not a multiple of the page size");
	expect_bad(a13, "size", "the minimum is 12 KiB");
	expect_bad(a14, "size", "the maximum is 1 TiB");
	expect_bad(a15, "transport", "dev,uring");
	expect_bad(a16, "workloads", "seq4k");
	expect_bad(a17, "rounds", "1..9");
}

/* model= names the model once (it said "'warp9': latency 'warp9': ..."). */
Test(scenario, unknown_model_is_named_once)
{
	static const char want[] =
		"testfs-scenario: PARAM model: bad value 'warp9': unknown "
		"model 'warp9' (expected none, fixed:DUR, uniform:MIN-MAX, "
		"normal:MEAN,SD, lognormal:MEDIAN,SIGMA, bw:RATE, hdd, "
		"sata-ssd, nvme, ufs4 or nfs)\n";
	const char *args[] = { "run", "folio-order", "model=warp9", NULL };
	struct result r;

	run(&r, args);
	cr_assert_eq(exit_code(&r), 2, "%s", r.err);
	cr_assert_eq(strncmp(r.err, want, strlen(want)), 0, "%s", r.err);
	result_free(&r);
}
