// SPDX-License-Identifier: MIT
/*
 * kernel.h: SPECs, the kernel cache, Debian packages.
 */
#include "kernel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture.h"
#include "jsonv.h"
#include "lab.h"

/*
 * Debian 12's kernel image packages (the unsigned ones: the same kernel
 * without the Secure Boot signature), as measured in READAHEAD.md.
 */
static const struct {
	const char *spec;
	const char *package;
	/* The same line's packages, for when the one above is gone. */
	const char *newest;
} debian[] = {
	{ "debian:6.1", "linux-image-6.1.0-57-amd64-unsigned",
	  "^linux-image-6\\.1\\.0-[0-9]+-amd64-unsigned$" },
	{ "debian:6.12", "linux-image-6.12.117+deb12-amd64-unsigned",
	  "^linux-image-6\\.12\\.[0-9]+\\+deb12-amd64-unsigned$" },
};

#define NDEBIAN (sizeof(debian) / sizeof(debian[0]))

void cache_root(char *buf, size_t len)
{
	const char *env = getenv("TESTFS_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (xdg && *xdg)
		snprintf(buf, len, "%s/testfs", xdg);
	else
		snprintf(buf, len, "%s/.cache/testfs",
			 home && *home ? home : "/tmp");
}

static void spec_to_name(const char *spec, char *name, size_t len)
{
	size_t i;

	snprintf(name, len, "%s", spec);
	for (i = 0; name[i]; i++)
		if (name[i] == ':')
			name[i] = '-';
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool cached(const char *name, char *dir, size_t len)
{
	char root[PATH_MAX - 300];
	char img[PATH_MAX];

	cache_root(root, sizeof(root));
	snprintf(dir, len, "%s/kernels/%s", root, name);
	snprintf(img, sizeof(img), "%s/bzImage", dir);
	return is_file(img);
}

static int debian_index(const char *spec)
{
	unsigned i;

	for (i = 0; i < NDEBIAN; i++)
		if (strcmp(spec, debian[i].spec) == 0)
			return (int)i;
	return -1;
}

int kernel_check_spec(const char *spec, char *why, size_t whylen)
{
	char name[256], dir[PATH_MAX];

	if (strcmp(spec, "host") == 0 || debian_index(spec) >= 0)
		return 0;
	if (strchr(spec, '/') || spec[0] == '.') {
		if (is_file(spec) || is_dir(spec))
			return 0;
		snprintf(why, whylen, "%s: no such file or folder", spec);
		return -EINVAL;
	}
	spec_to_name(spec, name, sizeof(name));
	if (!strchr(spec, '/') && cached(name, dir, sizeof(dir)))
		return 0;
	/* Built or not: an unbuilt lab kernel is a skipped run */
	if (lab_is_spec(spec))
		return lab_check_spec(spec, why, whylen);
	snprintf(why, whylen,
		 "unknown kernel '%s' (known: host, debian:6.1, debian:6.12, "
		 "lab:6.12[+SERIES], a kernel in the cache as kernels/NAME, "
		 "or a path to a bzImage)",
		 spec);
	return -EINVAL;
}

/* The first line of @path into @buf ("" if none). */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * Whether @path is an x86 bzImage (the boot sector's 0xAA55 and the
 * "HdrS" setup header, Documentation/arch/x86/boot.rst), with its
 * release (the first word of the kernel_version string) in @rel.
 */
static bool bzimage_release(const char *path, char *rel, size_t len)
{
	unsigned char hdr[0x240];
	char ver[128];
	unsigned off;
	bool ok = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    hdr[0x1fe] != 0x55 || hdr[0x1ff] != 0xaa ||
	    memcmp(hdr + 0x202, "HdrS", 4) != 0)
		goto out;
	ok = true;
	off = hdr[0x20e] | (unsigned)hdr[0x20f] << 8;
	rel[0] = '\0';
	if (off && pread(fd, ver, sizeof(ver) - 1, off + 0x200) > 0) {
		ver[sizeof(ver) - 1] = '\0';
		ver[strcspn(ver, " ")] = '\0';
		snprintf(rel, len, "%s", ver);
	}
out:
	close(fd);
	return ok;
}

/* CONFIG_FUSE_FS from a .config: 'y', 'm', 'n' or '?' (no config). */
static char config_fuse(const char *config)
{
	char line[256];
	char v = '?';
	FILE *f = config[0] ? fopen(config, "r") : NULL;

	if (!f)
		return '?';
	v = 'n';
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "CONFIG_FUSE_FS=", 15) == 0) {
			v = line[15];
			break;
		}
	}
	fclose(f);
	return v == 'y' || v == 'm' ? v : 'n';
}

bool config_has(const char *config, const char *opt)
{
	char line[256];
	size_t n = strlen(opt);
	bool yes = false;
	FILE *f = config[0] ? fopen(config, "r") : NULL;

	if (!f)
		return false;
	while (!yes && fgets(line, sizeof(line), f))
		yes = strncmp(line, opt, n) == 0 && line[n] == '=' &&
		      line[n + 1] == 'y';
	fclose(f);
	return yes;
}

/* Fills @k from a folder laid out like a cache entry. */
static void from_dir(struct kernel *k, const char *dir)
{
	char p[PATH_MAX];

	snprintf(k->image, sizeof(k->image), "%s/bzImage", dir);
	snprintf(p, sizeof(p), "%s/config", dir);
	if (is_file(p))
		snprintf(k->config, sizeof(k->config), "%s", p);
	snprintf(p, sizeof(p), "%s/release", dir);
	read_line(p, k->release, sizeof(k->release));
	snprintf(p, sizeof(p), "%s/modules/kernel/fs/fuse/fuse.ko", dir);
	if (is_file(p))
		snprintf(k->fuse_ko, sizeof(k->fuse_ko), "%s", p);
}

static int run_quiet(const char *const *argv, const char *cwd, int timeout_s,
		     char *why, size_t whylen)
{
	struct capture_opts o = { .argv = argv,
				  .cwd = cwd,
				  .timeout_s = timeout_s };
	struct capture c;
	int err = capture_run(&o, &c);
	char *tail;

	if (err) {
		snprintf(why, whylen, "%s: %s", argv[0], strerror(-err));
		return err;
	}
	if (c.timed_out || !WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		tail = capture_tail(&c, 3);
		snprintf(why, whylen, "%s %s: %s", argv[0],
			 c.timed_out ? "timed out" : "failed",
			 tail ? tail : "");
		free(tail);
		capture_free(&c);
		return -EIO;
	}
	capture_free(&c);
	return 0;
}

/* The newest PACKAGE_*.deb in @dir into @out; false if none. */
static bool find_deb(const char *dir, const char *package, char *out,
		     size_t len)
{
	size_t n = strlen(package);
	struct dirent *e;
	DIR *d = opendir(dir);
	bool found = false;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		size_t el = strlen(e->d_name);

		if (strncmp(e->d_name, package, n) || e->d_name[n] != '_' ||
		    el < 4 || strcmp(e->d_name + el - 4, ".deb"))
			continue;
		snprintf(out, len, "%s/%s", dir, e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

/* The single entry of @dir starting with @prefix into @out. */
static bool find_prefixed(const char *dir, const char *prefix, char *out,
			  size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	bool found = false;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
		    e->d_name[strlen(prefix)]) {
			snprintf(out, len, "%s/%s", dir, e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/*
 * Unpacks @deb into the cache entry @name: the image, its config and
 * release, and fuse.ko (decompressed) where FUSE is a module.
 */
static int unpack_deb(const char *deb, const char *name, char *why,
		      size_t whylen)
{
	char root[PATH_MAX - 600], tmp[PATH_MAX - 300], un[PATH_MAX - 200];
	char p[PATH_MAX], q[PATH_MAX], rel[128], mods[PATH_MAX - 100];
	char final[PATH_MAX], cmd[3 * PATH_MAX];
	const char *dpkg[] = { "dpkg", "-x", deb, un, NULL };
	const char *rm[] = { "rm", "-rf", tmp, NULL };
	const char *sh[] = { "sh", "-c", cmd, NULL };
	const char *base = strrchr(deb, '/');
	int err;

	cache_root(root, sizeof(root));
	snprintf(tmp, sizeof(tmp), "%s/kernels/.tmp-%s.%d", root, name,
		 (int)getpid());
	snprintf(un, sizeof(un), "%s/unpack", tmp);
	snprintf(final, sizeof(final), "%s/kernels/%s", root, name);
	snprintf(p, sizeof(p), "%s/kernels", root);
	mkdir(root, 0755);
	mkdir(p, 0755);
	if (mkdir(tmp, 0755) && errno != EEXIST) {
		snprintf(why, whylen, "%s: %s", tmp, strerror(errno));
		return -errno;
	}
	err = run_quiet(dpkg, NULL, 600, why, whylen);
	if (err)
		goto out;
	snprintf(p, sizeof(p), "%s/boot", un);
	if (!find_prefixed(p, "vmlinuz-", q, sizeof(q))) {
		snprintf(why, whylen, "%s holds no boot/vmlinuz-*", deb);
		err = -ENOENT;
		goto out;
	}
	snprintf(rel, sizeof(rel), "%s", strrchr(q, '/') + 9);
	snprintf(p, sizeof(p), "%s/bzImage", tmp);
	if (rename(q, p)) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", p, strerror(errno));
		goto out;
	}
	snprintf(q, sizeof(q), "%s/boot/config-%s", un, rel);
	snprintf(p, sizeof(p), "%s/config", tmp);
	rename(q, p);
	snprintf(p, sizeof(p), "%s/release", tmp);
	snprintf(cmd, sizeof(cmd), "%s\n", rel);
	write_file(p, cmd);
	snprintf(p, sizeof(p), "%s/source.txt", tmp);
	snprintf(cmd, sizeof(cmd), "Debian package %s\n",
		 base ? base + 1 : deb);
	write_file(p, cmd);
	/* Only FUSE's module is kept: the guest loads nothing else. */
	snprintf(mods, sizeof(mods), "%s/lib/modules/%s/kernel/fs/fuse", un,
		 rel);
	if (!is_dir(mods))
		snprintf(mods, sizeof(mods),
			 "%s/usr/lib/modules/%s/kernel/fs/fuse", un, rel);
	if (is_dir(mods)) {
		snprintf(
			cmd, sizeof(cmd),
			"set -e; d='%s/modules/kernel/fs/fuse'; mkdir -p \"$d\"; "
			"cd '%s'; if [ -f fuse.ko ]; then cp fuse.ko \"$d\"; "
			"elif [ -f fuse.ko.xz ]; then xz -dc fuse.ko.xz > "
			"\"$d/fuse.ko\"; elif [ -f fuse.ko.zst ]; then zstd "
			"-qdc fuse.ko.zst > \"$d/fuse.ko\"; fi",
			tmp, mods);
		err = run_quiet(sh, NULL, 120, why, whylen);
		if (err)
			goto out;
	}
	rm[2] = un;
	run_quiet(rm, NULL, 600, why, whylen);
	rm[2] = tmp;
	if (rename(tmp, final) && !is_dir(final)) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", final, strerror(errno));
	}
out:
	/* Gone after the rename; left over on every failure path. */
	if (is_dir(tmp))
		run_quiet(rm, NULL, 600, p, sizeof(p));
	return err;
}

/*
 * The newest package of debian[@i]'s line that apt knows (the mirrors
 * drop old kernel packages), into @out; false if none.
 */
static bool newest_package(int i, char *out, size_t len)
{
	const char *argv[] = { "apt-cache", "search", "--names-only",
			       debian[i].newest, NULL };
	struct capture_opts o = { .argv = argv, .timeout_s = 120 };
	char *line, *save = NULL;
	struct capture c;
	bool found = false;

	if (capture_run(&o, &c))
		return false;
	for (line = strtok_r(c.text ? c.text : (char *)"", "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " ")] = '\0';
		if (strncmp(line, "linux-image-", 12))
			continue;
		if (!found || strverscmp(line, out) > 0)
			snprintf(out, len, "%s", line);
		found = true;
	}
	capture_free(&c);
	return found;
}

static void prepare_debian(struct kernel *k, int i)
{
	char root[PATH_MAX - 300], debs[PATH_MAX - 200], deb[PATH_MAX];
	char dir[PATH_MAX];
	char why[400], pkg[160];
	const char *apt[] = { "apt-get", "download", "-q", pkg, NULL };

	if (cached(k->name, dir, sizeof(dir))) {
		from_dir(k, dir);
		return;
	}
	cache_root(root, sizeof(root));
	snprintf(debs, sizeof(debs), "%s/debs", root);
	mkdir(root, 0755);
	mkdir(debs, 0755);
	snprintf(pkg, sizeof(pkg), "%s", debian[i].package);
	if (!find_deb(debs, pkg, deb, sizeof(deb))) {
		printf("[%s] fetching %s (apt-get download)\n", k->spec, pkg);
		fflush(stdout);
		if (run_quiet(apt, debs, 900, why, sizeof(why)) &&
		    newest_package(i, pkg, sizeof(pkg)) &&
		    strcmp(pkg, debian[i].package) != 0) {
			printf("[%s] %s is gone; fetching %s\n", k->spec,
			       debian[i].package, pkg);
			fflush(stdout);
			run_quiet(apt, debs, 900, why, sizeof(why));
		}
		if (!find_deb(debs, pkg, deb, sizeof(deb))) {
			snprintf(k->skip, sizeof(k->skip),
				 "kernel package %s not available: %s", pkg,
				 why);
			return;
		}
	}
	printf("[%s] unpacking %s\n", k->spec, strrchr(deb, '/') + 1);
	fflush(stdout);
	if (unpack_deb(deb, k->name, why, sizeof(why))) {
		snprintf(k->skip, sizeof(k->skip), "cannot unpack %s: %s", deb,
			 why);
		return;
	}
	if (cached(k->name, dir, sizeof(dir)))
		from_dir(k, dir);
	else
		snprintf(k->skip, sizeof(k->skip), "%s: no bzImage", dir);
}

static void prepare_path(struct kernel *k, const char *spec)
{
	char dir[PATH_MAX], p[PATH_MAX];
	char *slash;

	if (is_dir(spec)) {
		from_dir(k, spec);
		return;
	}
	snprintf(k->image, sizeof(k->image), "%s", spec);
	snprintf(dir, sizeof(dir), "%s", spec);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	snprintf(p, sizeof(p), "%s/config", dir);
	if (!is_file(p))
		snprintf(p, sizeof(p), "%s/.config", dir);
	if (is_file(p))
		snprintf(k->config, sizeof(k->config), "%s", p);
	snprintf(p, sizeof(p), "%s/modules/kernel/fs/fuse/fuse.ko", dir);
	if (is_file(p))
		snprintf(k->fuse_ko, sizeof(k->fuse_ko), "%s", p);
}

void kernel_prepare(struct kernel *k, const char *spec)
{
	char dir[PATH_MAX], rel[128];
	struct utsname u;
	int i;

	memset(k, 0, sizeof(*k));
	snprintf(k->spec, sizeof(k->spec), "%s", spec);
	spec_to_name(spec, k->name, sizeof(k->name));
	k->fuse = '?';
	if (strcmp(spec, "host") == 0) {
		k->host = true;
		if (uname(&u) == 0)
			snprintf(k->release, sizeof(k->release), "%s",
				 u.release);
		k->fuse = access("/dev/fuse", F_OK) == 0 ? 'y' : 'n';
		if (k->fuse == 'n')
			snprintf(k->skip, sizeof(k->skip),
				 "/dev/fuse is missing on the host");
		return;
	}
	i = debian_index(spec);
	if (i >= 0)
		prepare_debian(k, i);
	else if (strchr(spec, '/') || spec[0] == '.')
		prepare_path(k, spec);
	else if (cached(k->name, dir, sizeof(dir)))
		from_dir(k, dir);
	else if (lab_is_spec(spec))
		lab_not_built(spec, k->skip, sizeof(k->skip));
	if (k->skip[0])
		return;
	if (!bzimage_release(k->image, rel, sizeof(rel))) {
		snprintf(k->skip, sizeof(k->skip),
			 "%s is not an x86 kernel image (no bzImage header)",
			 k->image);
		return;
	}
	if (!k->release[0])
		snprintf(k->release, sizeof(k->release), "%s", rel);
	k->fuse = config_fuse(k->config);
	if (k->fuse == 'n')
		snprintf(k->skip, sizeof(k->skip),
			 "the kernel has no FUSE (CONFIG_FUSE_FS is not set)");
	else if (k->fuse == 'm' && !k->fuse_ko[0])
		snprintf(k->skip, sizeof(k->skip),
			 "FUSE is a module and modules/kernel/fs/fuse/fuse.ko "
			 "is missing");
}

int write_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	int fd, err = 0;
	size_t off = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)n;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

void kernel_save_caps(const struct kernel *k, const char *json, size_t len)
{
	char dir[PATH_MAX - 32], p[PATH_MAX];

	if (k->host || !cached(k->name, dir, sizeof(dir)))
		return;
	snprintf(p, sizeof(p), "%s/caps.json", dir);
	write_atomic(p, json, len);
}

static void list_one(const char *root, const char *name)
{
	char dir[PATH_MAX - 32], p[PATH_MAX], caps[512];
	struct kernel k;
	struct jv *cv;

	snprintf(dir, sizeof(dir), "%s/kernels/%s", root, name);
	memset(&k, 0, sizeof(k));
	from_dir(&k, dir);
	k.fuse = config_fuse(k.config);
	snprintf(p, sizeof(p), "%s/caps.json", dir);
	read_line(p, caps, sizeof(caps));
	printf("%-28s %-28s FUSE %-9s cachestat %-3s THP %-3s\n", name,
	       k.release[0] ? k.release : "?",
	       k.fuse == 'y'   ? "built-in"
	       : k.fuse == 'm' ? (k.fuse_ko[0] ? "module" : "module?")
	       : k.fuse == 'n' ? "no"
			       : "?",
	       config_has(k.config, "CONFIG_CACHESTAT_SYSCALL") ? "yes" : "no",
	       config_has(k.config, "CONFIG_TRANSPARENT_HUGEPAGE") ? "yes"
								   : "no");
	cv = jv_parse(caps, strlen(caps));
	if (caps[0])
		printf("%-28s readahead:* events %s, filemap events %s (seen "
		       "when it last ran)\n",
		       "", jv_true(cv, "readahead_events") ? "yes" : "no",
		       jv_true(cv, "filemap_events") ? "yes" : "no");
	else
		printf("%-28s tracepoints: not known until it has run once\n",
		       "");
	jv_free(cv);
}

int kernels_list(void)
{
	char root[PATH_MAX - 64], p[PATH_MAX];
	struct dirent **ents;
	struct utsname u;
	int n, i;

	cache_root(root, sizeof(root));
	uname(&u);
	printf("host: %s, /dev/fuse %s, readahead:* events %s, filemap "
	       "events %s\n",
	       u.release, access("/dev/fuse", F_OK) ? "missing" : "present",
	       is_dir("/sys/kernel/tracing/events/readahead") ? "yes" : "no",
	       is_dir("/sys/kernel/tracing/events/filemap") ? "yes" : "no");
	printf("cache: %s\n", root);
	snprintf(p, sizeof(p), "%s/kernels", root);
	n = scandir(p, &ents, NULL, alphasort);
	if (n < 0) {
		printf("no kernels cached (debian:6.1 and debian:6.12 are "
		       "fetched on first use)\n");
		return 0;
	}
	for (i = 0; i < n; i++) {
		char img[PATH_MAX + 300];

		snprintf(img, sizeof(img), "%s/%s/bzImage", p, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && is_file(img))
			list_one(root, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	for (i = 0; i < (int)NDEBIAN; i++)
		printf("%s: Debian package %s\n", debian[i].spec,
		       debian[i].package);
	lab_list();
	return 0;
}
