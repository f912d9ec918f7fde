// SPDX-License-Identifier: MIT
/*
 * apt.h: the private apt configuration under cache/apt/ and the apt-get
 * and apt-cache commands run with it.
 */
#include "apt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "capture.h"

/* Indexes older than this are refreshed before use. */
#define APT_MAX_AGE_S (24 * 3600)

/*
 * The suites whose kernels testfs-matrix offers: Debian 12 (bookworm),
 * Debian 13 (trixie), their updates and backports, and unstable (sid).
 */
static const char *const main_suites[] = {
	"bookworm", "bookworm-updates", "bookworm-backports",
	"trixie",   "trixie-updates",	"trixie-backports",
	"sid",
};
static const char *const security_suites[] = { "bookworm-security",
					       "trixie-security" };

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define FALLBACK_MIRROR "http://deb.debian.org/debian"
#define FALLBACK_KEYRING "/usr/share/keyrings/debian-archive-keyring.gpg"

struct apt_dirs {
	char top[2048]; /* cache/apt */
	char sources[2100];
	char lists[2100];
	char cache[2100];
	char archives[2200];
	char pkgcache[2200];
	char srcpkgcache[2200];
	char status[2100];
	char prefs[2100];
	char prefs_d[2100];
	char stamp[2100];
	char lock[2100];
};

/* The private configuration's options, for apt-get and apt-cache. */
struct apt_args {
	char opt[16][2300];
	const char *argv[64];
	int argc;
};

static int apt_paths(struct apt_dirs *d, char *why, size_t whylen)
{
	int err = cache_dir("apt", d->top, sizeof(d->top), why, whylen);

	if (err)
		return err;
	snprintf(d->sources, sizeof(d->sources), "%s/sources.list", d->top);
	snprintf(d->lists, sizeof(d->lists), "%s/lists", d->top);
	snprintf(d->cache, sizeof(d->cache), "%s/cache", d->top);
	snprintf(d->archives, sizeof(d->archives), "%s/cache/archives/",
		 d->top);
	snprintf(d->pkgcache, sizeof(d->pkgcache), "%s/cache/pkgcache.bin",
		 d->top);
	snprintf(d->srcpkgcache, sizeof(d->srcpkgcache),
		 "%s/cache/srcpkgcache.bin", d->top);
	snprintf(d->status, sizeof(d->status), "%s/status", d->top);
	snprintf(d->prefs, sizeof(d->prefs), "%s/preferences", d->top);
	snprintf(d->prefs_d, sizeof(d->prefs_d), "%s/preferences.d", d->top);
	mkdir(d->prefs_d, 0755); /* empty: no pinning */
	snprintf(d->stamp, sizeof(d->stamp), "%s/updated", d->top);
	snprintf(d->lock, sizeof(d->lock), "%s/testfs.lock", d->top);
	return 0;
}

static void args_init(struct apt_args *a, const struct apt_dirs *d,
		      const char *tool)
{
	const char *o[][2] = {
		{ "Dir::Etc::sourcelist", d->sources },
		{ "Dir::Etc::sourceparts", "-" },
		{ "Dir::Etc::preferences", d->prefs },
		{ "Dir::Etc::preferencesparts", d->prefs_d },
		{ "Dir::State::Lists", d->lists },
		{ "Dir::State::status", d->status },
		{ "Dir::Cache", d->cache },
		{ "Dir::Cache::archives", d->archives },
		/* Docker-made machines turn the package cache off. */
		{ "Dir::Cache::pkgcache", d->pkgcache },
		{ "Dir::Cache::srcpkgcache", d->srcpkgcache },
		{ "APT::Architectures::", "amd64" },
		{ "APT::Architectures::", "arm64" },
		{ "Acquire::Languages", "none" },
		{ "Acquire::http::Timeout", "30" },
		{ "Acquire::Retries", "1" },
		/* As root apt drops to _apt, who cannot enter the cache. */
		{ "APT::Sandbox::User", geteuid() == 0 ? "root" : "" },
	};
	size_t i;

	a->argc = 0;
	a->argv[a->argc++] = tool;
	a->argv[a->argc++] = "-q";
	for (i = 0; i < N(o) && i < N(a->opt); i++) {
		if (!o[i][1][0])
			continue;
		snprintf(a->opt[i], sizeof(a->opt[i]), "%s=%s", o[i][0],
			 o[i][1]);
		a->argv[a->argc++] = "-o";
		a->argv[a->argc++] = a->opt[i];
	}
	a->argv[a->argc] = NULL;
}

static void args_add(struct apt_args *a, const char *arg)
{
	if (a->argc < (int)N(a->argv) - 1) {
		a->argv[a->argc++] = arg;
		a->argv[a->argc] = NULL;
	}
}

/*
 * Why the command @argv failed, from its output: apt's error, warning and
 * Err: lines when it printed some, else its last lines.
 */
static void failure_reason(const char *const *argv, const struct capture *c,
			   char *why, size_t whylen)
{
	char what[256] = "";
	size_t used = 0;
	const char *text = c->text ? c->text : "";
	const char *p;
	unsigned shown = 0;
	int i;

	/* The tool and its words, without the private configuration's. */
	for (i = 0; argv[i] && used + 2 < sizeof(what); i++) {
		if (!strcmp(argv[i], "-o") && argv[i + 1]) {
			i++;
			continue;
		}
		if (!strcmp(argv[i], "-q"))
			continue;
		used += (size_t)snprintf(what + used, sizeof(what) - used,
					 "%s%s", used ? " " : "", argv[i]);
	}
	used = (size_t)snprintf(why, whylen, "'%s' %s:", what,
				c->timed_out		? "timed out"
				: !WIFEXITED(c->status) ? "was killed"
				: WEXITSTATUS(c->status)
					? "failed"
					: "failed: no suite answered");
	/* apt's errors and failed fetches (not their Err: twins): two */
	for (p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n &&
		    (!strncmp(p, "E: ", 3) || !strncmp(p, "W: Failed", 9) ||
		     strstr(p, "cannot run"))) {
			if (shown < 2 && used + 8 < whylen)
				used += (size_t)snprintf(why + used,
							 whylen - used,
							 " %.*s;", (int)n, p);
			shown++;
		}
		p += n + (p[n] == '\n');
	}
	if (shown > 2 && used + 8 < whylen)
		used += (size_t)snprintf(why + used, whylen - used,
					 " (and %u more)", shown - 2);
	if (why[used - 1] == ':') {
		char *tail = capture_tail(c, 3);

		snprintf(why + used, whylen - used, " %s",
			 tail && *tail ? tail : "(it printed nothing)");
		free(tail);
	}
	used = strlen(why);
	while (used && (why[used - 1] == '\n' || why[used - 1] == ';' ||
			why[used - 1] == ' '))
		why[--used] = '\0';
}

/* Runs apt; 0 (exit 0), or -EIO with failure_reason() in @why. */
static int apt_run(const char *const *argv, const char *cwd, int timeout_s,
		   struct capture *c, char *why, size_t whylen)
{
	static char lc[] = "LC_ALL=C";
	char *env[] = { lc, NULL };
	struct capture_opts o = {
		.argv = argv, .cwd = cwd, .setenv = env, .timeout_s = timeout_s
	};
	int err = capture_run(&o, c);

	if (err) {
		snprintf(why, whylen, "cannot run %s: %s", argv[0],
			 strerror(-err));
		return err;
	}
	if (c->timed_out || !WIFEXITED(c->status) || WEXITSTATUS(c->status)) {
		failure_reason(argv, c, why, whylen);
		return -EIO;
	}
	return 0;
}

/* Skips spaces; the next word of @s into @w. */
static const char *word(const char *s, char *w, size_t len)
{
	size_t n;

	s += strspn(s, " \t");
	n = strcspn(s, " \t\n");
	snprintf(w, len, "%.*s", (int)n, s);
	return s + n;
}

static bool ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);

	return a >= b && strcmp(s + a - b, end) == 0;
}

/*
 * The machine's Debian mirror (the first URI ending in /debian of its apt
 * sources, one-line or deb822) and the keyring that signs it. Read only.
 */
static void machine_mirror(char *uri, size_t ulen, char *key, size_t klen)
{
	const char *pats[] = { "/etc/apt/sources.list",
			       "/etc/apt/sources.list.d/*.list",
			       "/etc/apt/sources.list.d/*.sources" };
	char line[1024], w[512], cur_key[512];
	glob_t g;
	size_t i, j;

	uri[0] = key[0] = '\0';
	for (i = 0; i < N(pats) && !uri[0]; i++) {
		if (glob(pats[i], 0, NULL, &g))
			continue;
		for (j = 0; j < g.gl_pathc && !uri[0]; j++) {
			FILE *f = fopen(g.gl_pathv[j], "r");
			char found[512] = "";

			cur_key[0] = '\0';
			while (f && fgets(line, sizeof(line), f)) {
				const char *s = line;
				char *k;

				s += strspn(s, " \t");
				if (!strncmp(s, "Signed-By:", 10))
					word(s + 10, cur_key, sizeof(cur_key));
				else if ((k = strstr(line, "signed-by=")))
					snprintf(cur_key, sizeof(cur_key),
						 "%.*s",
						 (int)strcspn(k + 10, " ]\n"),
						 k + 10);
				if (!strncmp(s, "URIs:", 5)) {
					word(s + 5, w, sizeof(w));
				} else if (!strncmp(s, "deb ", 4)) {
					s += 4;
					s += strspn(s, " \t");
					if (*s == '[')
						s += strcspn(s, "]") + 1;
					word(s, w, sizeof(w));
				} else if (!line[strspn(line, " \t\n")] &&
					   found[0]) {
					break; /* the end of a deb822 stanza */
				} else {
					continue;
				}
				if (!found[0] && ends_with(w, "/debian"))
					snprintf(found, sizeof(found), "%s", w);
			}
			if (f)
				fclose(f);
			if (found[0]) {
				snprintf(uri, ulen, "%s", found);
				snprintf(key, klen, "%s", cur_key);
			}
		}
		globfree(&g);
	}
	if (!uri[0])
		snprintf(uri, ulen, "%s", FALLBACK_MIRROR);
	if ((!key[0] || access(key, R_OK)) &&
	    access(FALLBACK_KEYRING, R_OK) == 0)
		snprintf(key, klen, "%s", FALLBACK_KEYRING);
	else if (access(key, R_OK))
		key[0] = '\0'; /* apt's trusted.gpg.d then */
}

/* The sources.list text for the mirror: every suite, amd64 and arm64. */
static void sources_text(char *buf, size_t len, char *mirror, size_t mlen)
{
	const char *env = getenv("TESTFS_DEBIAN_MIRROR");
	char key[512], opts[600], sec[600];
	size_t used = 0, i;

	machine_mirror(mirror, mlen, key, sizeof(key));
	if (env && *env)
		snprintf(mirror, mlen, "%s", env);
	while (ends_with(mirror, "/"))
		mirror[strlen(mirror) - 1] = '\0';
	snprintf(opts, sizeof(opts), "[arch=amd64,arm64%s%s]",
		 key[0] ? " signed-by=" : "", key);
	used += (size_t)snprintf(buf + used, len - used,
				 "# testfs-matrix's private apt sources "
				 "(matrix/apt.c): Debian kernels of every "
				 "suite\n");
	for (i = 0; i < N(main_suites) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used,
					 "deb %s %s %s main\n", opts, mirror,
					 main_suites[i]);
	if (!ends_with(mirror, "/debian"))
		return;
	snprintf(sec, sizeof(sec), "%s-security", mirror);
	for (i = 0; i < N(security_suites) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used,
					 "deb %s %s %s main\n", opts, sec,
					 security_suites[i]);
}

/* Whether the lists hold a Packages index from @mirror. */
static bool have_lists(const char *lists, const char *mirror)
{
	char prefix[600];
	const char *s = strstr(mirror, "://");
	struct dirent *e;
	bool found = false;
	size_t i;
	DIR *d;

	snprintf(prefix, sizeof(prefix), "%s_dists_", s ? s + 3 : mirror);
	for (i = 0; prefix[i]; i++)
		if (prefix[i] == '/')
			prefix[i] = '_';
	d = opendir(lists);
	while (d && !found && (e = readdir(d)))
		found = !strncmp(e->d_name, prefix, strlen(prefix)) &&
			strstr(e->d_name, "_Packages");
	if (d)
		closedir(d);
	return found;
}

static int lock_apt(const struct apt_dirs *d)
{
	int fd = open(d->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		while (flock(fd, LOCK_EX) && errno == EINTR)
			;
	return fd;
}

static void unlock_apt(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* The suites that did not answer, from apt-get update's Err: lines. */
static void failed_suites(const struct capture *c, char *out, size_t len)
{
	const char *p = c->text ? c->text : "";
	size_t used = 0;

	out[0] = '\0';
	while ((p = strstr(p, "Err:")) && used + 2 < len) {
		size_t n = strcspn(p, "\n");

		used += (size_t)snprintf(out + used, len - used, "%s%.*s",
					 used ? "; " : "", (int)n, p);
		p += n;
	}
}

int apt_ready(bool refresh, char *why, size_t whylen)
{
	struct apt_dirs d;
	struct apt_args a;
	struct capture c;
	struct stat st;
	char text[4096], old[4096] = "", mirror[512], failed[1024];
	size_t oldlen = 0;
	int err, fd;
	bool stale;
	FILE *f;

	err = apt_paths(&d, why, whylen);
	if (err)
		return err;
	sources_text(text, sizeof(text), mirror, sizeof(mirror));
	fd = lock_apt(&d);
	f = fopen(d.sources, "r");
	if (f) {
		oldlen = fread(old, 1, sizeof(old) - 1, f);
		old[oldlen] = '\0';
		fclose(f);
	}
	stale = refresh || strcmp(old, text) != 0 || stat(d.stamp, &st) ||
		time(NULL) - st.st_mtime > APT_MAX_AGE_S ||
		!have_lists(d.lists, mirror);
	if (!stale) {
		unlock_apt(fd);
		return 0;
	}
	snprintf(failed, sizeof(failed), "%s/partial", d.lists);
	err = mkdir_parents(failed);
	snprintf(failed, sizeof(failed), "%s/partial", d.archives);
	if (!err)
		err = mkdir_parents(failed);
	if (!err && !path_is_file(d.status))
		err = write_atomic(d.status, "", 0);
	if (!err && strcmp(old, text))
		err = write_atomic(d.sources, text, strlen(text));
	if (err) {
		snprintf(why, whylen,
			 "cannot write the apt configuration in "
			 "%s: %s",
			 d.top, strerror(-err));
		unlock_apt(fd);
		return err;
	}
	printf("[apt] updating the Debian package indexes from %s "
	       "(private configuration in %s)\n",
	       mirror, d.top);
	fflush(stdout);
	args_init(&a, &d, "apt-get");
	args_add(&a, "update");
	err = apt_run(a.argv, NULL, 900, &c, why, whylen);
	failed_suites(&c, failed, sizeof(failed));
	if (!err && !have_lists(d.lists, mirror)) {
		failure_reason(a.argv, &c, why, whylen);
		err = -EIO;
	}
	capture_free(&c);
	if (err && have_lists(d.lists, mirror)) {
		fprintf(stderr,
			"testfs-matrix: warning: the package indexes were "
			"not updated (%s); using the older ones\n",
			why);
		err = 0;
	} else if (!err) {
		if (failed[0])
			fprintf(stderr,
				"testfs-matrix: warning: some suites did not "
				"answer: %s\n",
				failed);
		write_atomic(d.stamp, mirror, strlen(mirror));
	}
	unlock_apt(fd);
	return err;
}

static int apt_query(const char *tool, const char *const *args, char **out,
		     char *why, size_t whylen)
{
	struct apt_dirs d;
	struct apt_args a;
	struct capture c;
	int err = apt_paths(&d, why, whylen);

	if (err)
		return err;
	args_init(&a, &d, tool);
	while (*args)
		args_add(&a, *args++);
	err = apt_run(a.argv, NULL, 900, &c, why, whylen);
	if (!err) {
		*out = c.text ? c.text : strdup("");
		c.text = NULL;
		if (!*out)
			err = -ENOMEM;
	}
	capture_free(&c);
	return err;
}

int apt_search(const char *regex, char **names, char *why, size_t whylen)
{
	const char *args[] = { "search", "--names-only", regex, NULL };
	char *text, *w;
	const char *p;
	int err = apt_query("apt-cache", args, &text, why, whylen);

	if (err)
		return err;
	w = *names = text; /* each line cut to its first word, in place */
	for (p = text; *p;) {
		size_t n = strcspn(p, " \n"), rest = strcspn(p, "\n");

		if (n && strncmp(p, "W: ", 3) && strncmp(p, "N: ", 3)) {
			memmove(w, p, n);
			w += n;
			*w++ = '\n';
		}
		p += rest + (p[rest] == '\n');
	}
	*w = '\0';
	return 0;
}

/* @field's value in the record at @rec (ends at a blank line) or NULL. */
static const char *record_field(const char *rec, const char *field, size_t *len)
{
	size_t fl = strlen(field);
	const char *p;

	for (p = rec; *p && *p != '\n'; p += strcspn(p, "\n") + 1) {
		if (!strncmp(p, field, fl) && p[fl] == ':' && p[fl + 1]) {
			p += fl + 1 + strspn(p + fl + 1, " ");
			*len = strcspn(p, "\n");
			return p;
		}
		if (!p[strcspn(p, "\n")])
			break;
	}
	return NULL;
}

int apt_field(const char *pkg, const char *field, char *out, size_t len,
	      char *why, size_t whylen)
{
	/*
	 * Every version, not --no-all-versions: choosing the candidate
	 * takes apt-cache 15 s of CPU over these indexes, this 0.1 s.
	 */
	const char *args[] = { "show", pkg, NULL };
	const char *rec, *v, *best = NULL, *val;
	char ver[128], best_ver[128] = "";
	size_t vl, n;
	char *text;
	int err = apt_query("apt-cache", args, &text, why, whylen);

	if (err)
		return err;
	for (rec = text; *rec; rec = strstr(rec, "\n\n")
					     ? strstr(rec, "\n\n") + 2
					     : rec + strlen(rec)) {
		v = record_field(rec, "Version", &vl);
		if (!v)
			continue;
		snprintf(ver, sizeof(ver), "%.*s", (int)vl, v);
		if (!best || strverscmp(ver, best_ver) > 0) {
			best = rec;
			snprintf(best_ver, sizeof(best_ver), "%s", ver);
		}
	}
	val = best ? record_field(best, field, &n) : NULL;
	if (val)
		snprintf(out, len, "%.*s", (int)n, val);
	else
		snprintf(why, whylen, "no %s field for package %s", field, pkg);
	free(text);
	return val ? 0 : -ENOENT;
}

void apt_suite(const char *pkg, char *out, size_t len)
{
	const char *args[] = { "madison", pkg, NULL };
	char *text, why[256];
	const char *p;

	out[0] = '\0';
	if (apt_query("apt-cache", args, &text, why, sizeof(why)))
		return;
	/* "pkg | version | URI SUITE/main amd64 Packages": the first */
	p = strchr(text, '|');
	p = p ? strchr(p + 1, '|') : NULL;
	if (p) {
		p += 2;
		p += strcspn(p, " ");
		p += strspn(p, " ");
		snprintf(out, len, "%.*s", (int)strcspn(p, "/ \n"), p);
	}
	free(text);
}

bool apt_deb_path(const char *dir, const char *pkg, char *out, size_t len)
{
	size_t n = strlen(pkg);
	struct dirent *e;
	DIR *d = opendir(dir);
	bool found = false;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, pkg, n) || e->d_name[n] != '_' ||
		    !ends_with(e->d_name, ".deb"))
			continue;
		if (!found || strverscmp(e->d_name, strrchr(out, '/') + 1) > 0)
			snprintf(out, len, "%s/%s", dir, e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

int apt_fetch(const char *const *pkgs, const char *dir, const char *tag,
	      char *why, size_t whylen)
{
	struct apt_dirs d;
	struct apt_args a;
	struct capture c;
	char tmp[2300], deb[2600], to[4200], size[32], suite[64];
	struct dirent *e;
	time_t t0 = time(NULL);
	size_t i, want = 0;
	int err, fd;
	DIR *td;

	err = apt_paths(&d, why, whylen);
	if (!err && (err = mkdir_parents(dir)))
		snprintf(why, whylen, "cannot create %s: %s", dir,
			 strerror(-err));
	if (err)
		return err;
	args_init(&a, &d, "apt-get");
	args_add(&a, "download");
	for (i = 0; pkgs[i]; i++) {
		if (apt_deb_path(dir, pkgs[i], deb, sizeof(deb)))
			continue;
		size[0] = '\0';
		apt_field(pkgs[i], "Size", size, sizeof(size), tmp,
			  sizeof(tmp));
		apt_suite(pkgs[i], suite, sizeof(suite));
		printf("[%s] fetching %s (%.1f MB%s%s)\n", tag, pkgs[i],
		       strtod(size, NULL) / 1e6, suite[0] ? ", " : "", suite);
		args_add(&a, pkgs[i]);
		want++;
	}
	fflush(stdout);
	if (!want)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s/.tmp-fetch.%d", dir, (int)getpid());
	if (mkdir(tmp, 0755) && errno != EEXIST) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", tmp, strerror(errno));
		return err;
	}
	fd = lock_apt(&d);
	err = apt_run(a.argv, tmp, 1800, &c, why, whylen);
	unlock_apt(fd);
	capture_free(&c);
	td = err ? NULL : opendir(tmp);
	while (td && (e = readdir(td))) {
		if (!ends_with(e->d_name, ".deb"))
			continue;
		snprintf(deb, sizeof(deb), "%s/%s", tmp, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", dir, e->d_name);
		if (rename(deb, to) && !err) {
			err = -errno;
			snprintf(why, whylen, "%s: %s", to, strerror(errno));
		}
	}
	if (td)
		closedir(td);
	remove_tree(tmp);
	for (i = 0; !err && pkgs[i]; i++)
		if (!apt_deb_path(dir, pkgs[i], deb, sizeof(deb))) {
			snprintf(why, whylen,
				 "apt-get download gave no .deb of %s",
				 pkgs[i]);
			err = -ENOENT;
		}
	if (!err)
		printf("[%s] fetched in %ld s\n", tag, (long)(time(NULL) - t0));
	fflush(stdout);
	return err;
}
