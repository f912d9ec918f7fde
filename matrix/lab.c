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
#include <glob.h>
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

const char *lab_spec_arch(const char *spec)
{
	const char *slash = lab_is_spec(spec) ? strrchr(spec, '/') : NULL;

	return slash ? slash + 1 : NULL;
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
bool lab_kernel_dir(char *out, size_t len)
{
	const char *env = getenv("TESTFS_KERNEL_DIR");
	char exe[PATH_MAX], p[PATH_MAX + 32];

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return readable(out, "build.sh");
	}
	if (self_dir(0, exe, sizeof(exe)) == 0) {
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

/* Whether kernel/NAME (or kernel/MAJOR.x/NAME for @ver) holds a *.patch. */
static bool series_exists_for(const char *kdir, const char *ver,
			      const char *name)
{
	char p[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(p, sizeof(p), "%s/%d.x/%s", kdir, ver ? atoi(ver) : -1, name);
	d = opendir(p);
	if (!d) {
		snprintf(p, sizeof(p), "%s/%s", kdir, name);
		d = opendir(p);
	}
	if (!d) {
		/*
		 * A series of one other line only (7.x/fuse-large-folios):
		 * build.sh tries it as written and names the hunk that does
		 * not apply.
		 */
		glob_t g;

		snprintf(p, sizeof(p), "%s/*.x/%s", kdir, name);
		if (glob(p, GLOB_ONLYDIR, NULL, &g) == 0) {
			if (g.gl_pathc)
				d = opendir(g.gl_pathv[0]);
			globfree(&g);
		}
	}
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		found = l > 6 && strcmp(e->d_name + l - 6, ".patch") == 0;
	}
	closedir(d);
	return found;
}

static bool series_exists(const char *kdir, const char *name)
{
	return series_exists_for(kdir, NULL, name);
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
		/* the first line's: the 6.x line's base series */
		tok = strstr(line, "base_series=(");
		if (!tok)
			continue;
		tok[strcspn(tok, ")")] = '\0';
		for (tok = strtok_r(tok + 13, " \t", &save); tok;
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

int lab_check_series(const char *kdir, const char *ver, const char *s,
		     char *why, size_t whylen)
{
	char known[256];

	if (!valid_name(s)) {
		snprintf(why, whylen,
			 "bad series name '%s' (lower-case letters, digits, "
			 "'-')",
			 s);
		return -EINVAL;
	}
	if (kdir && !series_exists_for(kdir, ver, s)) {
		series_list(kdir, known, sizeof(known));
		snprintf(why, whylen, "no patch series '%s' in %s (known: %s)",
			 s, kdir, known[0] ? known : "none");
		return -EINVAL;
	}
	return 0;
}

/*
 * "7.3" or "7.3-TAG" (a tree's folder name): the line of a lab SPEC into
 * @ver (MAJOR.MINOR), whether it has a tag into *@tagged. False if @tok is
 * not one, or not a line the lab's series are written for (6.x, 7.x).
 */
static bool lab_line(const char *tok, char *ver, size_t len, bool *tagged)
{
	int major, minor, n = 0;

	if (sscanf(tok, "%d.%d%n", &major, &minor, &n) != 2 || major < 6 ||
	    major > 7 || minor < 0 || (tok[n] && tok[n] != '-') ||
	    (tok[n] == '-' && !valid_name(tok + n + 1)))
		return false;
	snprintf(ver, len, "%d.%d", major, minor);
	*tagged = tok[n] == '-';
	return true;
}

int lab_check_spec(const char *spec, char *why, size_t whylen)
{
	char buf[256], kdir[PATH_MAX - 64], ver[32], *tok, *save = NULL;
	bool have = lab_kernel_dir(kdir, sizeof(kdir)), tagged;
	const char *arch = lab_spec_arch(spec);
	int err;

	snprintf(buf, sizeof(buf), "%s", spec + 4);
	buf[strcspn(buf, "/")] = '\0';
	tok = strtok_r(buf, "+", &save);
	if (!tok || !lab_line(tok, ver, sizeof(ver), &tagged) ||
	    (arch && strcmp(arch, LAB_ARM64_64K))) {
		snprintf(why, whylen,
			 "unknown lab kernel '%s' (lab:VERSION[+NAME]...[/%s], "
			 "VERSION a 6.x or 7.x line such as %s or 7.3, built "
			 "from Debian's linux-source-VERSION or a kernel tree; "
			 "/%s: for arm64 with 64 KiB pages)",
			 spec, LAB_ARM64_64K, LAB_VERSION, LAB_ARM64_64K);
		return -EINVAL;
	}
	/* Not cached: each name must be a series (a patch's is unknown) */
	while ((tok = strtok_r(NULL, "+", &save))) {
		err = lab_check_series(have ? kdir : NULL, ver, tok, why,
				       whylen);
		if (err) {
			snprintf(why + strlen(why), whylen - strlen(why),
				 "; a kernel built with --patch is known "
				 "once it is built");
			return err;
		}
	}
	return 0;
}

void lab_not_built(const char *spec, char *why, size_t whylen)
{
	char buf[256], args[256] = "", ver[32], *tok, *save = NULL;
	const char *arch = lab_spec_arch(spec);
	size_t used = 0;
	bool tagged = false;

	snprintf(buf, sizeof(buf), "%s", spec + 4);
	buf[strcspn(buf, "/")] = '\0';
	tok = strtok_r(buf, "+", &save);
	if (tok && lab_line(tok, ver, sizeof(ver), &tagged) &&
	    strcmp(tok, LAB_VERSION))
		used = (size_t)snprintf(args, sizeof(args), " --source %s",
					tagged ? "PATH" : "");
	if (used && !tagged)
		used += (size_t)snprintf(args + used, sizeof(args) - used,
					 "debian:%s", ver);
	while ((tok = strtok_r(NULL, "+", &save)) && used < sizeof(args))
		used += (size_t)snprintf(args + used, sizeof(args) - used,
					 " --patches %s", tok);
	if (arch && used < sizeof(args))
		snprintf(args + used, sizeof(args) - used, " --arch %s", arch);
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

	if (!lab_kernel_dir(kdir, sizeof(kdir))) {
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
	/* Lab kernels of other sources and patches, as built */
	snprintf(p, sizeof(p), "%s/kernels", root);
	n = scandir(p, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *s = ents[i]->d_name;
		char img[PATH_MAX + 300], arm[PATH_MAX + 300], name[256];
		size_t l = strlen(s), t = strlen("-" LAB_ARM64_64K);

		snprintf(img, sizeof(img), "%s/kernels/%s/bzImage", root, s);
		snprintf(arm, sizeof(arm), "%s/kernels/%s/Image", root, s);
		/* kernels/lab-7.3-arm64-64k is lab:7.3/arm64-64k */
		snprintf(name, sizeof(name), "%s", s + (l > 4 ? 4 : l));
		if (l > t + 4 && !strcmp(s + l - t, "-" LAB_ARM64_64K))
			name[l - 4 - t] = '/';
		if (!strncmp(s, "lab-", 4) &&
		    (strncmp(s, "lab-" LAB_VERSION, strlen(LAB_VERSION) + 4) ||
		     !access(arm, R_OK)) &&
		    (!access(img, R_OK) || !access(arm, R_OK)))
			printf("lab:%-30s built (kernels/%s)\n", name, s);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}
