// SPDX-License-Identifier: MIT
/*
 * debian.h: Debian's kernel lines from the package indexes, fetched and
 * unpacked into the kernel cache.
 */
#include "debian.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apt.h"
#include "cache.h"
#include "capture.h"
#include "labsrc.h"

/* The image packages of every flavour, filtered by parse_image(). */
#define IMAGE_REGEX "^linux-image-[0-9].*-(amd64|arm64)(-16k)?(-unsigned)?$"

struct image {
	char pkg[160];
	char line[32];
	char version[96]; /* "6.1.0-57", "7.3.4+deb13" */
	char flavour[16]; /* "amd64", "arm64", "arm64-16k" */
	bool unsigned_;
};

bool debian_is_spec(const char *spec)
{
	return strncmp(spec, "debian:", 7) == 0;
}

/* Whether @s is N.N (a kernel line). */
static bool is_line(const char *s)
{
	size_t a = strspn(s, "0123456789");

	return a && a < 4 && s[a] == '.' && strspn(s + a + 1, "0123456789") &&
	       strspn(s + a + 1, "0123456789") < 4 &&
	       !s[a + 1 + strspn(s + a + 1, "0123456789")];
}

/*
 * debian:LINE[/FLAVOUR] into @line and @flavour ("amd64" without one);
 * false when it is not of that form.
 */
static bool split_spec(const char *spec, char *line, size_t llen, char *flavour,
		       size_t flen)
{
	const char *slash = strchr(spec + 7, '/');

	snprintf(line, llen, "%.*s",
		 (int)(slash ? (size_t)(slash - spec - 7) : strlen(spec + 7)),
		 spec + 7);
	snprintf(flavour, flen, "%s", slash ? slash + 1 : "amd64");
	return debian_is_spec(spec) &&
	       (!strcmp(line, "latest") || is_line(line)) &&
	       (!slash || !strcmp(flavour, "arm64") ||
		!strcmp(flavour, "arm64-16k"));
}

int debian_check_spec(const char *spec, char *why, size_t whylen)
{
	char line[64], flavour[64];

	if (split_spec(spec, line, sizeof(line), flavour, sizeof(flavour)))
		return 0;
	snprintf(why, whylen,
		 "unknown kernel '%s': a Debian kernel is debian:LINE (6.1, "
		 "6.12, 7.3, ...: 'testfs-matrix kernels --available' lists "
		 "them) or debian:latest, for x86-64, or either followed by "
		 "/arm64 or /arm64-16k for Debian's arm64 images (4 KiB or "
		 "16 KiB pages)",
		 spec);
	return -EINVAL;
}

void debian_name(const struct debian_kernel *dk, char *name, size_t len)
{
	if (strcmp(dk->flavour, "amd64"))
		snprintf(name, len, "debian-%s-%s", dk->line, dk->flavour);
	else
		snprintf(name, len, "debian-%s", dk->line);
}

/*
 * linux-image-VERSION-FLAVOUR[-unsigned] of the plain flavours into @im;
 * false for the others (cloud, rt) and the meta packages.
 */
static bool parse_image(const char *pkg, struct image *im)
{
	static const char *const flavours[] = { "-amd64", "-arm64-16k",
						"-arm64" };
	char rest[160];
	size_t n, i, k;

	memset(im, 0, sizeof(*im));
	if (strncmp(pkg, "linux-image-", 12))
		return false;
	snprintf(im->pkg, sizeof(im->pkg), "%s", pkg);
	snprintf(rest, sizeof(rest), "%s", pkg + 12);
	n = strlen(rest);
	if (n > 9 && !strcmp(rest + n - 9, "-unsigned")) {
		im->unsigned_ = true;
		rest[n -= 9] = '\0';
	}
	for (i = 0; i < 3; i++) {
		size_t f = strlen(flavours[i]);

		if (n > f && !strcmp(rest + n - f, flavours[i])) {
			snprintf(im->flavour, sizeof(im->flavour), "%s",
				 flavours[i] + 1);
			rest[n - f] = '\0';
			break;
		}
	}
	if (i == 3)
		return false;
	/* The version: digits, '.', '-' and "+debN" only */
	for (k = 0; rest[k]; k++) {
		if (!strncmp(rest + k, "+deb", 4)) {
			k += 3;
			continue;
		}
		if (!strchr("0123456789.-", rest[k]))
			return false;
	}
	snprintf(im->version, sizeof(im->version), "%s", rest);
	n = strspn(rest, "0123456789");
	if (rest[n] != '.')
		return false;
	n += 1 + strspn(rest + n + 1, "0123456789");
	snprintf(im->line, sizeof(im->line), "%.*s", (int)n, rest);
	return is_line(im->line);
}

/* The plain images the indexes hold, into *@out. */
static int images(struct image **out, size_t *n, char *why, size_t whylen)
{
	char *names, *line, *save = NULL;
	size_t cap = 0;
	int err = apt_search(IMAGE_REGEX, &names, why, whylen);

	*out = NULL;
	*n = 0;
	if (err)
		return err;
	for (line = strtok_r(names, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct image im;

		if (!parse_image(line, &im))
			continue;
		if (*n == cap) {
			struct image *m;

			cap = cap ? 2 * cap : 256;
			m = realloc(*out, cap * sizeof(**out));
			if (!m) {
				err = -ENOMEM;
				break;
			}
			*out = m;
		}
		(*out)[(*n)++] = im;
	}
	free(names);
	return err;
}

/* The newest image of @line for @flavour (the unsigned one first). */
static const struct image *newest(const struct image *ims, size_t n,
				  const char *line, const char *flavour)
{
	const struct image *best = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		int c;

		if (strcmp(ims[i].line, line) ||
		    strcmp(ims[i].flavour, flavour))
			continue;
		c = best ? strverscmp(ims[i].version, best->version) : 1;
		if (c > 0 || (c == 0 && ims[i].unsigned_))
			best = &ims[i];
	}
	return best;
}

/* The x86-64 lines, oldest first, comma-separated into @buf. */
static void lines_of(const struct image *ims, size_t n, char *buf, size_t len,
		     char *newest_line, size_t nlen)
{
	char last[32] = "";
	size_t used = 0;

	buf[0] = '\0';
	for (;;) {
		const char *next = NULL;
		size_t i;

		for (i = 0; i < n; i++)
			if (!strcmp(ims[i].flavour, "amd64") &&
			    (!last[0] || strverscmp(ims[i].line, last) > 0) &&
			    (!next || strverscmp(ims[i].line, next) < 0))
				next = ims[i].line;
		if (!next)
			break;
		snprintf(last, sizeof(last), "%s", next);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? ", " : "", next);
	}
	snprintf(newest_line, nlen, "%s", last);
}

int debian_resolve(const char *spec, struct debian_kernel *dk, char *why,
		   size_t whylen)
{
	struct image *ims;
	const struct image *im;
	char lines[512], latest[32], want[64], flavour[16];
	const char *line = want;
	size_t n;
	int err = debian_check_spec(spec, why, whylen);

	memset(dk, 0, sizeof(*dk));
	split_spec(spec, want, sizeof(want), flavour, sizeof(flavour));
	if (!err)
		err = apt_ready(false, why, whylen);
	if (!err)
		err = images(&ims, &n, why, whylen);
	if (err)
		return err;
	lines_of(ims, n, lines, sizeof(lines), latest, sizeof(latest));
	if (!strcmp(line, "latest"))
		line = latest;
	im = newest(ims, n, line, flavour);
	if (!im) {
		snprintf(why, whylen,
			 "no Debian suite offers a %s kernel of the %s flavour "
			 "(x86-64 lines: %s)",
			 line, flavour, lines[0] ? lines : "none");
		free(ims);
		return -ENOENT;
	}
	snprintf(dk->line, sizeof(dk->line), "%s", im->line);
	snprintf(dk->package, sizeof(dk->package), "%s", im->pkg);
	snprintf(dk->flavour, sizeof(dk->flavour), "%s", flavour);
	snprintf(dk->release, sizeof(dk->release), "%s-%s", im->version,
		 flavour);
	free(ims);
	return 0;
}

static int run_quiet(const char *const *argv, int timeout_s, char *why,
		     size_t whylen)
{
	struct capture_opts o = { .argv = argv, .timeout_s = timeout_s };
	struct capture c;
	int err = capture_run(&o, &c);
	char *tail;

	if (err) {
		snprintf(why, whylen, "cannot run %s: %s", argv[0],
			 strerror(-err));
		return err;
	}
	if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		tail = capture_tail(&c, 3);
		snprintf(why, whylen, "'%s %s' %s: %s", argv[0],
			 argv[1] ? argv[1] : "",
			 c.timed_out ? "timed out" : "failed",
			 tail && *tail ? tail : "(it printed nothing)");
		free(tail);
		err = -EIO;
	}
	capture_free(&c);
	return err;
}

/* dpkg -x every fetched .deb of @pkgs (NULL-ended) into @un. */
static int unpack(const char *debs, const char *const *pkgs, const char *un,
		  char *why, size_t whylen)
{
	char deb[4200];
	const char *dpkg[] = { "dpkg", "-x", deb, un, NULL };
	int err = 0;

	for (; !err && *pkgs; pkgs++) {
		if (!apt_deb_path(debs, *pkgs, deb, sizeof(deb))) {
			snprintf(why, whylen, "no .deb of %s in %s", *pkgs,
				 debs);
			return -ENOENT;
		}
		err = run_quiet(dpkg, 900, why, whylen);
	}
	return err;
}

/* The first of @a and @b (under @un) that exists, into @out. */
static bool either(const char *un, const char *a, const char *b, char *out,
		   size_t len)
{
	snprintf(out, len, "%s/%s", un, a);
	if (path_is_file(out) || path_is_dir(out))
		return true;
	snprintf(out, len, "%s/%s", un, b);
	return path_is_file(out) || path_is_dir(out);
}

/* CONFIG_FUSE_FS=m in @config. */
static bool fuse_module(const char *config)
{
	char line[256];
	bool m = false;
	FILE *f = fopen(config, "r");

	while (f && !m && fgets(line, sizeof(line), f))
		m = !strncmp(line, "CONFIG_FUSE_FS=m", 16);
	if (f)
		fclose(f);
	return m;
}

static void remove_debs(const char *debs, const char *const *pkgs)
{
	char deb[4200];

	for (; *pkgs; pkgs++)
		while (apt_deb_path(debs, *pkgs, deb, sizeof(deb)) &&
		       !unlink(deb))
			;
}

/* Unpacked in @tmp/unpack: keeps bzImage, config, release, fuse.ko. */
static int keep(const struct debian_kernel *dk, const char *tmp,
		const char *debs, const char *tag, char *why, size_t whylen)
{
	char un[4200], a[512], b[512], p[8400], q[8400], cmd[9000];
	char mods[512], modpkg[200];
	const char *sh[] = { "sh", "-c", cmd, NULL };
	const char *more[] = { modpkg, NULL };
	const char *r = dk->release;
	int err;

	snprintf(un, sizeof(un), "%s/unpack", tmp);
	snprintf(a, sizeof(a), "boot/vmlinuz-%s", r);
	snprintf(b, sizeof(b), "usr/lib/modules/%s/vmlinuz", r);
	if (!either(un, a, b, p, sizeof(p))) {
		snprintf(why, whylen, "%s holds no %s nor %s", dk->package, a,
			 b);
		return -ENOENT;
	}
	if (strcmp(dk->flavour, "amd64")) {
		/* arm64's vmlinuz is a gzip'd Image: QEMU and the page-size
		 * check read the Image itself. */
		snprintf(cmd, sizeof(cmd),
			 "set -e; if gzip -t '%s' 2>/dev/null; then gzip -dc "
			 "'%s' > '%s/Image'; else mv '%s' '%s/Image'; fi",
			 p, p, tmp, p, tmp);
		err = run_quiet(sh, 300, why, whylen);
		if (err)
			return err;
	} else {
		snprintf(q, sizeof(q), "%s/bzImage", tmp);
		if (rename(p, q)) {
			snprintf(why, whylen, "%s: %s", q, strerror(errno));
			return -errno;
		}
	}
	snprintf(a, sizeof(a), "boot/config-%s", r);
	snprintf(b, sizeof(b), "usr/lib/modules/%s/config", r);
	snprintf(q, sizeof(q), "%s/config", tmp);
	if (either(un, a, b, p, sizeof(p)))
		rename(p, q);
	snprintf(mods, sizeof(mods), "lib/modules/%s/kernel/fs/fuse", r);
	snprintf(b, sizeof(b), "usr/lib/modules/%s/kernel/fs/fuse", r);
	if (fuse_module(q) && !either(un, mods, b, p, sizeof(p))) {
		/* Split packaging: the modules are a package of their own */
		snprintf(modpkg, sizeof(modpkg), "linux-modules-%s", r);
		err = apt_fetch(more, debs, tag, why, whylen);
		if (!err)
			err = unpack(debs, more, un, why, whylen);
		remove_debs(debs, more);
		if (err)
			return err;
	}
	if (either(un, mods, b, p, sizeof(p))) {
		snprintf(
			cmd, sizeof(cmd),
			"set -e; d='%s/modules/kernel/fs/fuse'; mkdir -p \"$d\"; "
			"cd '%s'; if [ -f fuse.ko ]; then cp fuse.ko \"$d\"; "
			"elif [ -f fuse.ko.xz ]; then xz -dc fuse.ko.xz > "
			"\"$d/fuse.ko\"; elif [ -f fuse.ko.zst ]; then zstd "
			"-qdc fuse.ko.zst > \"$d/fuse.ko\"; fi",
			tmp, p);
		err = run_quiet(sh, 120, why, whylen);
		if (err)
			return err;
	}
	snprintf(p, sizeof(p), "%s/release", tmp);
	snprintf(cmd, sizeof(cmd), "%s\n", r);
	err = write_atomic(p, cmd, strlen(cmd));
	snprintf(p, sizeof(p), "%s/source.txt", tmp);
	snprintf(cmd, sizeof(cmd), "Debian package %s (%s)\n", dk->package, r);
	if (!err)
		err = write_atomic(p, cmd, strlen(cmd));
	if (err)
		snprintf(why, whylen, "%s: %s", p, strerror(-err));
	return err;
}

int debian_fetch(const struct debian_kernel *dk, const char *dir,
		 const char *tag, char *why, size_t whylen)
{
	char debs[2100], tmp[4200], un[4300], deps[1024], binary[200],
		base[200];
	const char *mono[] = { dk->package, NULL };
	const char *split[] = { binary, base, NULL };
	const char *const *pkgs = mono;
	int err = cache_dir("debs", debs, sizeof(debs), why, whylen);

	if (err)
		return err;
	/* 6.19 and later: the image is a meta package of binary+base+modules */
	snprintf(binary, sizeof(binary), "linux-binary-%s", dk->release);
	snprintf(base, sizeof(base), "linux-base-%s", dk->release);
	err = apt_field(dk->package, "Depends", deps, sizeof(deps), why,
			whylen);
	if (err && err != -ENOENT)
		return err;
	if (!err && strstr(deps, binary))
		pkgs = split;
	/*
	 * linux-base (the config, System.map) is not in every suite's
	 * indexes (7.0.13 and 6.19.14 of trixie-backports name one that has
	 * no version): the image is in linux-binary, so go without it.
	 */
	if (pkgs == split &&
	    apt_field(base, "Version", deps, sizeof(deps), why, whylen)) {
		printf("[%s] %s is not in the indexes: no config beside the "
		       "image\n",
		       tag, base);
		split[1] = NULL;
	}
	err = apt_fetch(pkgs, debs, tag, why, whylen);
	if (err)
		return err;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dir, (int)getpid());
	snprintf(un, sizeof(un), "%s/unpack", tmp);
	remove_tree(tmp);
	err = mkdir_parents(un);
	if (err) {
		snprintf(why, whylen, "cannot create %s: %s", un,
			 strerror(-err));
		return err;
	}
	printf("[%s] unpacking %s (dpkg -x, not installed)\n", tag,
	       dk->package);
	fflush(stdout);
	err = unpack(debs, pkgs, un, why, whylen);
	if (!err)
		err = keep(dk, tmp, debs, tag, why, whylen);
	remove_tree(un);
	if (!err && rename(tmp, dir) && !path_is_dir(dir)) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
	}
	/* Gone after the rename; left over on every failure path. */
	remove_tree(tmp);
	if (!err)
		remove_debs(debs, pkgs);
	return err;
}

int debian_available(bool refresh)
{
	struct image *ims;
	char lines[512], latest[32], why[1024], suite[64], root[2048];
	char dir[2200], *srcs = NULL, *tok, *save = NULL;
	size_t n;
	int err = apt_ready(refresh, why, sizeof(why));

	if (!err)
		err = images(&ims, &n, why, sizeof(why));
	if (!err)
		err = apt_search(LAB_SOURCE_REGEX, &srcs, why, sizeof(why));
	if (err) {
		fprintf(stderr,
			"testfs-matrix: cannot read Debian's package "
			"indexes: %s\n",
			why);
		return 1;
	}
	cache_root(root, sizeof(root));
	lines_of(ims, n, lines, sizeof(lines), latest, sizeof(latest));
	printf("Debian kernel lines (debian:latest is debian:%s; the arm64 "
	       "images are debian:LINE/arm64 and debian:LINE/arm64-16k):\n",
	       latest);
	for (tok = strtok_r(lines, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		const struct image *x = newest(ims, n, tok, "amd64");
		const struct image *a = newest(ims, n, tok, "arm64");
		const struct image *k = newest(ims, n, tok, "arm64-16k");
		char spec[64], src[64];

		apt_suite(x->pkg, suite, sizeof(suite));
		snprintf(spec, sizeof(spec), "debian:%s", tok);
		snprintf(dir, sizeof(dir), "%s/kernels/debian-%s/bzImage", root,
			 tok);
		printf("  %-13s %-44s %-18s %s\n", spec, x->pkg, suite,
		       path_is_file(dir) ? "cached" : "fetched on first use");
		if (a || k)
			printf("  %-13s %s%s%s\n", "", a ? a->pkg : "",
			       a && k ? ", " : "", k ? k->pkg : "");
		snprintf(src, sizeof(src), "linux-source-%s\n", tok);
		if (strstr(srcs, src))
			printf("  %-13s source: %.*s\n", "",
			       (int)strlen(src) - 1, src);
	}
	free(srcs);
	free(ims);
	return 0;
}
