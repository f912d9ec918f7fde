// SPDX-License-Identifier: MIT
/*
 * labreq: what `testfs-matrix build` and `bisect` ask kernel/build.sh for.
 * The options of both, the --patch files read (matrix/patchset.c) and
 * written clean into the cache (patches/HASH/NAME.patch, content-named so
 * two builds never share a file that differs), and build.sh run with them.
 */
#include "lab.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "labsrc.h"
#include "matrix.h"
#include "prereq.h"

static int req_usage(bool bisect, const char *fmt, const char *arg)
{
	fprintf(stderr, "testfs-matrix %s: ", bisect ? "bisect" : "build");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	matrix_command_synopsis(bisect ? "bisect" : "build", stderr);
	fprintf(stderr, "Try 'testfs-matrix %s --help'.\n",
		bisect ? "bisect" : "build");
	return 2;
}

/*
 * Appends @arg to list @list of *@n, which takes at most @max (option
 * --@opt): 0, or the usage status when it is full.
 */
static int list_arg(bool bisect, const char **list, size_t *n, size_t max,
		    const char *opt, const char *arg)
{
	char fmt[64];

	if (*n == max) {
		snprintf(fmt, sizeof(fmt), "at most %zu --%s (%%s)", max, opt);
		return req_usage(bisect, fmt, arg);
	}
	list[(*n)++] = arg;
	return 0;
}

/*
 * The number @arg, from @min to @max, into *@v: 0, or the usage status
 * with @bad (a format of @arg).
 */
static int number_arg(bool bisect, const char *arg, long min, long max,
		      const char *bad, long *v)
{
	char *end;

	*v = strtol(arg, &end, 10);
	if (*end || end == arg || *v < min || *v > max)
		return req_usage(bisect, bad, arg);
	return 0;
}

int lab_req_parse(int argc, char **argv, bool bisect, struct lab_req *r)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "patches", required_argument, NULL, 'S' },
		{ "patch", required_argument, NULL, 'p' },
		{ "fuzz", required_argument, NULL, 'z' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ "arch", required_argument, NULL, 'A' },
		{ "field", required_argument, NULL, 'F' },
		{ "json", required_argument, NULL, 'J' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	int c, major, minor, n = 0, idx = 0, ret = 0;
	long v = 0;

	memset(r, 0, sizeof(*r));
	r->source = "debian:6.12";
	r->fuzz = 2;
	r->timeout_s = 600;
	optind = 0; /* glibc: start again, main() has parsed its own */
	while ((c = getopt_long(argc, argv, "+", opts, &idx)) != -1) {
		if (!bisect && c > 0 && strchr("FJTa", c))
			return req_usage(bisect, "--%s is an option of bisect",
					 opts[idx].name);
		switch (c) {
		case 's':
			r->source = optarg;
			break;
		case 'S':
			ret = list_arg(bisect, r->series, &r->nseries,
				       LAB_MAX_SERIES, "patches", optarg);
			break;
		case 'p':
			ret = list_arg(bisect, r->files, &r->nfiles,
				       LAB_MAX_PATCHES, "patch", optarg);
			break;
		case 'z':
			ret = number_arg(bisect, optarg, 0, 9,
					 "--fuzz '%s': 0 to 9 context lines",
					 &v);
			r->fuzz = (int)v;
			break;
		case 'j':
			ret = number_arg(bisect, optarg, 1, LONG_MAX,
					 "--jobs '%s': a number of jobs, 1 or "
					 "more",
					 &v);
			r->jobs = optarg;
			break;
		case 'f':
			r->force = true;
			break;
		case 'A':
			if (strcmp(optarg, "x86_64") &&
			    strcmp(optarg, LAB_ARM64_64K))
				return req_usage(bisect,
						 "unknown --arch '%s' (x86_64, "
						 "or " LAB_ARM64_64K
						 ": arm64 with 64 KiB pages)",
						 optarg);
			r->arch = strcmp(optarg, "x86_64") ? optarg : NULL;
			break;
		case 'F':
			ret = list_arg(bisect, r->fields, &r->nfields,
				       LAB_MAX_FIELDS, "field", optarg);
			break;
		case 'J':
			r->json = optarg;
			break;
		case 'a':
			r->all = true;
			break;
		case 'T':
			ret = number_arg(bisect, optarg, 1, 86400,
					 "--timeout '%s': seconds, 1 to 86400",
					 &v);
			r->timeout_s = (int)v;
			break;
		default:
			return req_usage(bisect, "%s", "unknown option");
		}
		if (ret)
			return ret;
	}
	if (!bisect && optind < argc)
		return req_usage(bisect, "unexpected argument '%s'",
				 argv[optind]);
	if (bisect && !r->nfiles)
		return req_usage(bisect, "%s",
				 "--patch FILE is needed (the series to "
				 "bisect, in order)");
	if (bisect && optind >= argc)
		return req_usage(bisect, "%s",
				 "a COMMAND is needed (scenario NAME ..., "
				 "touch ...)");
	if (!strncmp(r->source, "debian:", 7) &&
	    strcmp(r->source + 7, "latest") &&
	    (sscanf(r->source + 7, "%d.%d%n", &major, &minor, &n) != 2 ||
	     r->source[7 + n] || major < 0 || minor < 0))
		return req_usage(bisect,
				 "unknown --source '%s' (debian:MAJOR.MINOR: "
				 "debian:6.12, debian:7.3, ..., or "
				 "debian:latest)",
				 r->source);
	if (strncmp(r->source, "debian:", 7) && access(r->source, F_OK))
		return req_usage(bisect,
				 "--source '%s': neither debian:VERSION nor "
				 "an existing folder",
				 r->source);
	return 0;
}

/* FNV-1a: a content name for a patch file in the cache. */
static uint64_t fnv(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int mkdirs(const char *path)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s", path);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -errno : 0;
}

/* @name, or @name-2, -3, ... so that no two patches share a name. */
static void unique_name(struct lab_req *r, const char *name, char *out,
			size_t len, bool split)
{
	size_t i, k = 1;
	bool taken;

	snprintf(out, len, "%s", name);
	do {
		taken = false;
		for (i = 0; i < r->npatches; i++)
			if (!strcmp(r->patches[i].name, out) &&
			    (split || strcmp(r->patches[i].from,
					     r->files[r->nfiles - 1])))
				taken = true;
		if (taken)
			snprintf(out, len, "%.*s-%zu", PATCH_NAME_MAX - 4, name,
				 ++k);
	} while (taken);
}

static int add_patches(struct lab_req *r, const char *file,
		       const struct patchset *ps, bool split, const char *root)
{
	char dir[PATH_MAX - 64], name[PATCH_NAME_MAX + 4];
	size_t k;
	int err;

	for (k = 0; k < ps->n; k++) {
		struct lab_patch_file *pf = &r->patches[r->npatches];
		const struct lab_patch *lp = &ps->patches[k];
		char base[PATCH_NAME_MAX + 4];
		uint64_t h;

		if (r->npatches == LAB_MAX_PATCHES) {
			fprintf(stderr,
				"testfs-matrix: at most %d patches in all "
				"(%s has %zu)\n",
				LAB_MAX_PATCHES, file, ps->n);
			return 2;
		}
		base[0] = '\0';
		if (split)
			patch_short_name(lp->subject, base, sizeof(base));
		if (!base[0] && split && ps->n > 1)
			snprintf(base, sizeof(base), "%.*s-%zu",
				 PATCH_NAME_MAX - 4, ps->name, k + 1);
		if (!base[0])
			snprintf(base, sizeof(base), "%s", ps->name);
		/* files[] up to this one: unique_name() looks at its last */
		unique_name(r, base, name, sizeof(name), split);
		memset(pf, 0, sizeof(*pf));
		snprintf(pf->name, sizeof(pf->name), "%s", name);
		snprintf(pf->subject, sizeof(pf->subject), "%s", lp->subject);
		snprintf(pf->from, sizeof(pf->from), "%s", file);
		h = fnv(lp->diff, fnv(name, 1469598103934665603ULL));
		snprintf(dir, sizeof(dir), "%s/patches/%016llx", root,
			 (unsigned long long)h);
		err = mkdirs(dir);
		if (!err) {
			/* NAME.K.patch: apply-patch.sh labels it so */
			if (ps->n > 1 && !split)
				snprintf(pf->path, sizeof(pf->path),
					 "%s/%s.%zu.patch", dir, name, k + 1);
			else
				snprintf(pf->path, sizeof(pf->path),
					 "%s/%s.patch", dir, name);
			err = write_atomic(pf->path, lp->diff,
					   strlen(lp->diff));
		}
		if (err) {
			fprintf(stderr, "testfs-matrix: writing %s: %s\n", dir,
				strerror(-err));
			return 1;
		}
		r->npatches++;
	}
	return 0;
}

int lab_req_prepare(struct lab_req *r, bool split, const char *cmd)
{
	char kdir[PATH_MAX - 64], root[PATH_MAX - 128], why[1024];
	char ver[32] = "";
	struct patchset ps;
	size_t i, nfiles = r->nfiles;
	int rc;

	if (!lab_kernel_dir(kdir, sizeof(kdir))) {
		fprintf(stderr,
			"testfs-matrix %s: kernel/build.sh not found (in the "
			"source tree next to this build, or in %s/kernel)\n",
			cmd, MATRIX_DATADIR);
		return 2;
	}
	if (!strcmp(r->source, "debian:latest")) {
		rc = lab_latest_source(ver, sizeof(ver), why, sizeof(why));
		if (rc) {
			fprintf(stderr, "testfs-matrix %s: %s\n", cmd, why);
			return rc == -ENOENT ? 2 : 1;
		}
		snprintf(r->latest, sizeof(r->latest), "debian:%s", ver);
		fprintf(stderr,
			"testfs-matrix %s: debian:latest is %s "
			"(linux-source-%s, the newest line of the suites)\n",
			cmd, r->latest, ver);
		r->source = r->latest;
	}
	if (!strncmp(r->source, "debian:", 7))
		snprintf(ver, sizeof(ver), "%s", r->source + 7);
	for (i = 0; i < r->nseries; i++)
		if (lab_check_series(kdir, ver[0] ? ver : NULL, r->series[i],
				     why, sizeof(why))) {
			fprintf(stderr, "testfs-matrix %s: %s\n", cmd, why);
			return 2;
		}
	cache_root(root, sizeof(root));
	r->npatches = 0;
	for (r->nfiles = 1; r->nfiles <= nfiles; r->nfiles++) {
		const char *file = r->files[r->nfiles - 1];

		if (patchset_read(file, &ps, why, sizeof(why))) {
			fprintf(stderr, "testfs-matrix %s: --patch %s\n", cmd,
				why);
			patchset_free(&ps);
			r->nfiles = nfiles;
			return 2;
		}
		fprintf(stderr,
			"testfs-matrix %s: %s: %s, %zu patch%s, named '%s'\n",
			cmd, file, ps.kind, ps.n, ps.n == 1 ? "" : "es",
			ps.name);
		rc = add_patches(r, file, &ps, split, root);
		patchset_free(&ps);
		if (rc) {
			r->nfiles = nfiles;
			return rc;
		}
	}
	r->nfiles = nfiles;
	return 0;
}

/* Runs build.sh with @argv, its stdout (the SPEC) into @spec. */
static int run_build(char *const *argv, char *spec, size_t len)
{
	int fd[2], status;
	size_t used = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -errno;
	}
	if (pid == 0) {
		/* Its own process group: a signal stops it whole (signals.c) */
		setpgid(0, 0);
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "testfs-matrix build: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	matrix_build_child(pid);
	close(fd[1]);
	while ((n = read(fd[0], spec + used, len - 1 - used)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		used += (size_t)n;
		if (used == len - 1)
			used = 0; /* only the last line matters */
	}
	spec[used] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			matrix_build_child(0);
			return -errno;
		}
	matrix_build_child(0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int lab_req_build(const struct lab_req *r, size_t npatches, char *spec,
		  size_t len, const char *cmd)
{
	char kdir[PATH_MAX - 64], script[PATH_MAX], fuzz[8], why[1024];
	char pf[LAB_MAX_PATCHES][PATH_MAX + PATCH_NAME_MAX + 8];
	char *args[16 + 2 * (LAB_MAX_SERIES + LAB_MAX_PATCHES)];
	size_t i, k = 0;
	char *nl;
	int rc;

	if (!lab_kernel_dir(kdir, sizeof(kdir)))
		return 2;
	/* build.sh's cache is ours: one definition, matrix/cache.c */
	cache_root(script, sizeof(script));
	setenv("TESTFS_CACHE", script, 1);
	/* A Debian source not installed: fetched into the cache first */
	if (!strncmp(r->source, "debian:", 7) &&
	    lab_fetch_source(r->source + 7, why, sizeof(why))) {
		fprintf(stderr, "testfs-matrix %s: %s\n", cmd, why);
		return 1;
	}
	snprintf(script, sizeof(script), "%s/build.sh", kdir);
	snprintf(fuzz, sizeof(fuzz), "%d", r->fuzz);
	args[k++] = (char *)"bash";
	args[k++] = script;
	args[k++] = (char *)"--source";
	args[k++] = (char *)r->source;
	for (i = 0; i < r->nseries; i++) {
		args[k++] = (char *)"--patches";
		args[k++] = (char *)r->series[i];
	}
	for (i = 0; i < npatches && i < r->npatches; i++) {
		snprintf(pf[i], sizeof(pf[i]), "%s=%s", r->patches[i].name,
			 r->patches[i].path);
		args[k++] = (char *)"--patch-file";
		args[k++] = pf[i];
	}
	args[k++] = (char *)"--fuzz";
	args[k++] = fuzz;
	if (r->jobs) {
		args[k++] = (char *)"--jobs";
		args[k++] = (char *)r->jobs;
	}
	if (r->arch) {
		args[k++] = (char *)"--arch";
		args[k++] = (char *)r->arch;
	}
	if (r->force)
		args[k++] = (char *)"--force";
	if (r->one_tree)
		args[k++] = (char *)"--one-tree";
	args[k] = NULL;
	rc = run_build(args, spec, len);
	/* The SPEC is the last line build.sh printed on stdout. */
	while ((nl = strrchr(spec, '\n')) && !nl[1])
		*nl = '\0';
	nl = strrchr(spec, '\n');
	if (nl)
		memmove(spec, nl + 1, strlen(nl + 1) + 1);
	if (rc == 0 && lab_is_spec(spec))
		return 0;
	fprintf(stderr,
		"testfs-matrix %s: kernel/build.sh failed (exit status %d); "
		"its reason is above\n",
		cmd, rc < 0 ? -rc : rc);
	return rc == 2 ? 2 : 1;
}

int cmd_build(int argc, char **argv)
{
	struct lab_req r;
	char spec[512];
	int rc;

	rc = lab_req_parse(argc, argv, false, &r);
	rc = rc ?: lab_req_prepare(&r, false, "build");
	if (!rc &&
	    prereq_check(NEED_CACHE | NEED_BUILD | (r.arch ? NEED_CROSS : 0),
			 "testfs-matrix build"))
		rc = 1;
	rc = rc ?: lab_req_build(&r, r.npatches, spec, sizeof(spec), "build");
	if (!rc)
		printf("%s\n", spec);
	return rc;
}
