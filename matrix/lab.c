// SPDX-License-Identifier: MIT
/*
 * lab.h: lab SPECs and `testfs-matrix build`, a front end to the project's
 * kernel/build.sh (which owns unpacking, patching, ccache, the build lock
 * and the cache entry): testfs-matrix only checks the arguments, finds the
 * script, passes its progress through and prints the SPEC it built.
 */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache.h"
#include "prereq.h"

#define MAX_SERIES 8

/* The only source kernel/build.sh knows, and its lab SPEC's version. */
#define LAB_SOURCE "debian:6.12"
#define LAB_VERSION "6.12"

bool lab_is_spec(const char *spec)
{
	return strncmp(spec, "lab:", 4) == 0;
}

static bool readable(const char *dir, const char *file)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return access(p, R_OK) == 0;
}

/*
 * kernel/ of the source tree this build was made from (when run from the
 * build tree), else the installed copy; TESTFS_KERNEL_DIR overrides both.
 */
static bool kernel_dir(char *out, size_t len)
{
	const char *env = getenv("TESTFS_KERNEL_DIR");
	char exe[PATH_MAX], p[PATH_MAX + 32];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return readable(out, "build.sh");
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(p, sizeof(p), "%s/../src/testfs", exe);
		if (access(p, X_OK) == 0) {
			snprintf(out, len, "%s/kernel", MATRIX_SOURCE_ROOT);
			if (readable(out, "build.sh"))
				return true;
		}
	}
	snprintf(out, len, "%s/kernel", MATRIX_DATADIR);
	return readable(out, "build.sh");
}

static bool valid_name(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return i < 64;
}

/* Whether kernel/NAME holds a *.patch. */
static bool series_exists(const char *kdir, const char *name)
{
	char p[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(p, sizeof(p), "%s/%s", kdir, name);
	d = opendir(p);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		found = l > 6 && strcmp(e->d_name + l - 6, ".patch") == 0;
	}
	closedir(d);
	return found;
}

/*
 * Whether @name is applied to every lab kernel: build.sh's
 * base_series=(...) line says which.
 */
static bool base_series(const char *kdir, const char *name)
{
	char p[PATH_MAX], line[512], *tok, *save = NULL;
	bool base = false;
	FILE *f;

	snprintf(p, sizeof(p), "%s/build.sh", kdir);
	f = fopen(p, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "base_series=(", 13))
			continue;
		line[strcspn(line, ")")] = '\0';
		for (tok = strtok_r(line + 13, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save))
			base |= strcmp(tok, name) == 0;
		break;
	}
	fclose(f);
	return base;
}

/* The policy series of kernel/, comma-separated, into @buf. */
static void series_list(const char *kdir, char *buf, size_t len)
{
	struct dirent **ents;
	size_t used = 0;
	int n, i;

	buf[0] = '\0';
	n = scandir(kdir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *s = ents[i]->d_name;

		if (s[0] != '.' && series_exists(kdir, s) &&
		    !base_series(kdir, s) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? ", " : "", s);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static int check_series(const char *kdir, const char *s, char *why,
			size_t whylen)
{
	char known[256];

	if (!valid_name(s)) {
		snprintf(why, whylen,
			 "bad series name '%s' (lower-case letters, digits, "
			 "'-')",
			 s);
		return -EINVAL;
	}
	if (kdir && !series_exists(kdir, s)) {
		series_list(kdir, known, sizeof(known));
		snprintf(why, whylen, "no patch series '%s' in %s (known: %s)",
			 s, kdir, known[0] ? known : "none");
		return -EINVAL;
	}
	return 0;
}

int lab_check_spec(const char *spec, char *why, size_t whylen)
{
	char buf[256], kdir[PATH_MAX - 64], *tok, *save = NULL;
	bool have = kernel_dir(kdir, sizeof(kdir));
	int err;

	snprintf(buf, sizeof(buf), "%s", spec + 4);
	tok = strtok_r(buf, "+", &save);
	if (!tok || strcmp(tok, LAB_VERSION)) {
		snprintf(why, whylen,
			 "unknown lab kernel '%s' (lab:%s or lab:%s+SERIES, "
			 "built from Debian's linux-source-%s)",
			 spec, LAB_VERSION, LAB_VERSION, LAB_VERSION);
		return -EINVAL;
	}
	while ((tok = strtok_r(NULL, "+", &save))) {
		err = check_series(have ? kdir : NULL, tok, why, whylen);
		if (err)
			return err;
	}
	return 0;
}

void lab_not_built(const char *spec, char *why, size_t whylen)
{
	char buf[256], args[256] = "", *tok, *save = NULL;
	size_t used = 0;

	snprintf(buf, sizeof(buf), "%s", spec + 4);
	strtok_r(buf, "+", &save);
	while ((tok = strtok_r(NULL, "+", &save)) && used < sizeof(args))
		used += (size_t)snprintf(args + used, sizeof(args) - used,
					 " --patches %s", tok);
	snprintf(why, whylen,
		 "%s is not built yet: run 'testfs-matrix build%s' (about "
		 "30 minutes on 2 cores for the first lab kernel, minutes "
		 "for another policy once one is built)",
		 spec, args);
}

void lab_list(void)
{
	char kdir[PATH_MAX - 64], root[PATH_MAX - 300], p[PATH_MAX];
	char spec[128];
	struct dirent **ents;
	int n, i;

	if (!kernel_dir(kdir, sizeof(kdir))) {
		printf("lab kernels: kernel/build.sh not found (source tree "
		       "or %s/kernel)\n",
		       MATRIX_DATADIR);
		return;
	}
	cache_root(root, sizeof(root));
	n = scandir(kdir, &ents, NULL, alphasort);
	for (i = -1; i < n; i++) {
		const char *s = i < 0 ? NULL : ents[i]->d_name;

		if (s && (s[0] == '.' || !series_exists(kdir, s) ||
			  base_series(kdir, s))) {
			free(ents[i]);
			continue;
		}
		snprintf(spec, sizeof(spec), "lab:%s%s%s", LAB_VERSION,
			 s ? "+" : "", s ? s : "");
		snprintf(p, sizeof(p), "%s/kernels/lab-%s%s%s/bzImage", root,
			 LAB_VERSION, s ? "+" : "", s ? s : "");
		if (access(p, R_OK) == 0)
			printf("%-34s built (kernels/lab-%s%s%s)\n", spec,
			       LAB_VERSION, s ? "+" : "", s ? s : "");
		else
			printf("%-34s not built: testfs-matrix build%s%s\n",
			       spec, s ? " --patches " : "", s ? s : "");
		if (s)
			free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static int build_usage(const char *fmt, const char *arg)
{
	fputs("testfs-matrix build: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nusage: testfs-matrix build [--source debian:6.12] "
	      "[--patches SERIES]... [--jobs N] [--force]\n",
	      stderr);
	return 2;
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
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "testfs-matrix build: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
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
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "patches", required_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	char kdir[PATH_MAX - 64], script[PATH_MAX], why[512], spec[512];
	char *args[8 + 2 * MAX_SERIES];
	const char *series[MAX_SERIES];
	const char *jobs = NULL;
	size_t nseries = 0, i, k = 0;
	bool force = false;
	int c, rc;
	char *end, *nl;

	optind = 0; /* glibc: start again, main() has parsed its own */
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (strcmp(optarg, LAB_SOURCE))
				return build_usage("unknown --source '%s' "
						   "(supported: debian:6.12)",
						   optarg);
			break;
		case 'p':
			if (nseries == MAX_SERIES)
				return build_usage("at most 8 --patches (%s)",
						   optarg);
			series[nseries++] = optarg;
			break;
		case 'j':
			if (strtoul(optarg, &end, 10) < 1 || *end ||
			    optarg[0] == '-')
				return build_usage("--jobs '%s': a number of "
						   "jobs, 1 or more",
						   optarg);
			jobs = optarg;
			break;
		case 'f':
			force = true;
			break;
		default:
			return build_usage("%s", "unknown option");
		}
	}
	if (optind < argc)
		return build_usage("unexpected argument '%s'", argv[optind]);
	if (!kernel_dir(kdir, sizeof(kdir))) {
		fprintf(stderr,
			"testfs-matrix build: kernel/build.sh not found (in "
			"the source tree next to this build, or in %s/kernel)"
			"\n",
			MATRIX_DATADIR);
		return 2;
	}
	for (i = 0; i < nseries; i++)
		if (check_series(kdir, series[i], why, sizeof(why)))
			return build_usage("%s", why);
	if (prereq_check(NEED_BUILD, "testfs-matrix build"))
		return 1;
	/* build.sh's cache is ours: one definition, matrix/cache.c */
	cache_root(script, sizeof(script));
	setenv("TESTFS_CACHE", script, 1);
	snprintf(script, sizeof(script), "%s/build.sh", kdir);
	args[k++] = (char *)"bash";
	args[k++] = script;
	args[k++] = (char *)"--source";
	args[k++] = (char *)LAB_SOURCE;
	for (i = 0; i < nseries; i++) {
		args[k++] = (char *)"--patches";
		args[k++] = (char *)series[i];
	}
	if (jobs) {
		args[k++] = (char *)"--jobs";
		args[k++] = (char *)jobs;
	}
	if (force)
		args[k++] = (char *)"--force";
	args[k] = NULL;
	rc = run_build(args, spec, sizeof(spec));
	/* The SPEC is the last line build.sh printed on stdout. */
	while ((nl = strrchr(spec, '\n')) && !nl[1])
		*nl = '\0';
	nl = strrchr(spec, '\n');
	if (rc == 0 && lab_is_spec(nl ? nl + 1 : spec)) {
		printf("%s\n", nl ? nl + 1 : spec);
		return 0;
	}
	fprintf(stderr,
		"testfs-matrix build: kernel/build.sh failed (exit status "
		"%d); the log's tail is above\n",
		rc < 0 ? -rc : rc);
	return 1;
}
