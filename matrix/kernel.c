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

#include "arch.h"
#include "cache.h"
#include "debian.h"
#include "jsonv.h"
#include "lab.h"
#include "outfile.h"
#include "prereq.h"

static void spec_to_name(const char *spec, char *name, size_t len)
{
	size_t i;

	snprintf(name, len, "%s", spec);
	for (i = 0; name[i]; i++)
		if (name[i] == ':' || name[i] == '/')
			name[i] = '-';
}

/* A kernel folder's image: bzImage (x86-64) or Image (arm64). */
static bool dir_image(const char *dir, char *img, size_t len)
{
	snprintf(img, len, "%s/bzImage", dir);
	if (path_is_file(img))
		return true;
	snprintf(img, len, "%s/Image", dir);
	return path_is_file(img);
}

static bool cached(const char *name, char *dir, size_t len)
{
	char root[PATH_MAX - 300];
	char img[PATH_MAX];

	cache_root(root, sizeof(root));
	snprintf(dir, len, "%s/kernels/%s", root, name);
	return dir_image(dir, img, sizeof(img));
}

/* What a file that is neither a regular file nor a folder is. */
static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	}
	return "a special file";
}

/*
 * A PATH SPEC: an image, or a folder laid out like a cache entry
 * (from_dir()). Says what is wrong with it, and where it looked.
 */
static int check_path(const char *spec, char *why, size_t whylen)
{
	char img[PATH_MAX], tree[PATH_MAX];
	struct stat st;

	if (stat(spec, &st)) {
		snprintf(why, whylen,
			 "%s: %s (give a bzImage, or a folder holding one)",
			 spec,
			 errno == ENOENT ? "no such file or folder"
					 : strerror(errno));
		return -EINVAL;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen,
			 "%s: not a regular file but %s (give a bzImage, or a "
			 "folder holding one)",
			 spec, file_kind(st.st_mode));
		return -EINVAL;
	}
	if (dir_image(spec, img, sizeof(img)))
		return 0;
	snprintf(img, sizeof(img), "%s/bzImage", spec);
	snprintf(tree, sizeof(tree), "%s/arch/x86/boot/bzImage", spec);
	snprintf(why, whylen,
		 "%s: a folder without bzImage (looked for %s: %s; a kernel "
		 "folder holds bzImage and, optionally, config, release and "
		 "modules/kernel/fs/fuse/fuse.ko)%s%s; an arm64 kernel folder "
		 "holds Image instead",
		 spec, img,
		 stat(img, &st) ? strerror(errno) : "not a regular file",
		 path_is_file(tree) ? "; a kernel build tree: give " : "",
		 path_is_file(tree) ? tree : "");
	return -EINVAL;
}

int kernel_check_spec(const char *spec, char *why, size_t whylen)
{
	char name[256], dir[PATH_MAX];

	if (strcmp(spec, "host") == 0)
		return 0;
	if (debian_is_spec(spec))
		return debian_check_spec(spec, why, whylen);
	if (!lab_is_spec(spec) && (strchr(spec, '/') || spec[0] == '.'))
		return check_path(spec, why, whylen);
	spec_to_name(spec, name, sizeof(name));
	if (cached(name, dir, sizeof(dir)))
		return 0;
	/* Built or not: an unbuilt lab kernel is a skipped run */
	if (lab_is_spec(spec))
		return lab_check_spec(spec, why, whylen);
	snprintf(why, whylen,
		 "unknown kernel '%s' (known: host, debian:LINE such as "
		 "debian:6.1 or debian:7.3, debian:latest, lab:6.12[+SERIES], "
		 "lab:7.3/arm64-64k, "
		 "a kernel in the cache as kernels/NAME, or a path to a "
		 "bzImage)",
		 spec);
	return -EINVAL;
}

int kernel_resolve(const char *spec, char *why, size_t whylen)
{
	struct debian_kernel dk;
	char name[256], dir[PATH_MAX];

	if (!debian_is_spec(spec))
		return 0;
	spec_to_name(spec, name, sizeof(name));
	if (cached(name, dir, sizeof(dir)))
		return 0;
	return debian_resolve(spec, &dk, why, whylen);
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

	dir_image(dir, k->image, sizeof(k->image));
	snprintf(p, sizeof(p), "%s/config", dir);
	if (path_is_file(p))
		snprintf(k->config, sizeof(k->config), "%s", p);
	snprintf(p, sizeof(p), "%s/release", dir);
	read_first_line(p, k->release, sizeof(k->release));
	snprintf(p, sizeof(p), "%s/modules/kernel/fs/fuse/fuse.ko", dir);
	if (path_is_file(p))
		snprintf(k->fuse_ko, sizeof(k->fuse_ko), "%s", p);
}

/*
 * debian:LINE from the cache, else resolved through the indexes and
 * fetched; debian:latest is the newest line's folder.
 */
static void prepare_debian(struct kernel *k)
{
	struct debian_kernel dk;
	char dir[PATH_MAX], why[700];
	int err;

	if (cached(k->name, dir, sizeof(dir))) {
		from_dir(k, dir);
		return;
	}
	err = debian_resolve(k->spec, &dk, why, sizeof(why));
	if (err) {
		snprintf(k->skip, sizeof(k->skip), "%s", why);
		k->fetch_failed = true;
		return;
	}
	debian_name(&dk, k->name, sizeof(k->name));
	if (strncmp(k->spec + 7, dk.line, strcspn(k->spec + 7, "/")) ||
	    strcspn(k->spec + 7, "/") != strlen(dk.line))
		printf("[%s] is debian:%s (%s)\n", k->spec, dk.line,
		       dk.package);
	if (!cached(k->name, dir, sizeof(dir))) {
		err = debian_fetch(&dk, dir, k->spec, why, sizeof(why));
		if (err) {
			snprintf(k->skip, sizeof(k->skip),
				 "cannot fetch %s (%s): %s", k->spec,
				 dk.package, why);
			k->fetch_failed = true;
			return;
		}
	}
	from_dir(k, dir);
}

static void prepare_path(struct kernel *k, const char *spec)
{
	char dir[PATH_MAX], p[PATH_MAX];
	char *slash;

	if (path_is_dir(spec)) {
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
	if (!path_is_file(p))
		snprintf(p, sizeof(p), "%s/.config", dir);
	if (path_is_file(p))
		snprintf(k->config, sizeof(k->config), "%s", p);
	snprintf(p, sizeof(p), "%s/modules/kernel/fs/fuse/fuse.ko", dir);
	if (path_is_file(p))
		snprintf(k->fuse_ko, sizeof(k->fuse_ko), "%s", p);
}

void kernel_prepare(struct kernel *k, const char *spec)
{
	char dir[PATH_MAX], rel[128];
	struct utsname u;

	memset(k, 0, sizeof(*k));
	snprintf(k->spec, sizeof(k->spec), "%s", spec);
	spec_to_name(spec, k->name, sizeof(k->name));
	k->fuse = '?';
	if (strcmp(spec, "host") == 0) {
		k->host = true;
		if (uname(&u) == 0) {
			snprintf(k->release, sizeof(k->release), "%s",
				 u.release);
			snprintf(k->arch, sizeof(k->arch), "%s",
				 strcmp(u.machine, "aarch64") ? u.machine
							      : "arm64");
		}
		k->page_size = (unsigned)sysconf(_SC_PAGESIZE);
		k->fuse = access("/dev/fuse", F_OK) == 0 ? 'y' : 'n';
		if (k->fuse == 'n')
			snprintf(k->skip, sizeof(k->skip),
				 "/dev/fuse is missing on the host");
		return;
	}
	if (debian_is_spec(spec))
		prepare_debian(k);
	else if (!lab_is_spec(spec) && (strchr(spec, '/') || spec[0] == '.'))
		prepare_path(k, spec);
	else if (cached(k->name, dir, sizeof(dir)))
		from_dir(k, dir);
	else if (lab_is_spec(spec))
		lab_not_built(spec, k->skip, sizeof(k->skip));
	if (k->skip[0])
		return;
	snprintf(k->arch, sizeof(k->arch), "x86_64");
	k->page_size = 4096;
	if (arch_arm64_image(k->image, &k->page_size)) {
		snprintf(k->arch, sizeof(k->arch), "arm64");
		if (!k->release[0])
			arch_image_release(k->image, k->release,
					   sizeof(k->release));
	} else if (!bzimage_release(k->image, rel, sizeof(rel))) {
		struct stat st;

		if (stat(k->image, &st))
			snprintf(k->skip, sizeof(k->skip), "%s: %s", k->image,
				 strerror(errno));
		else if (!S_ISREG(st.st_mode))
			snprintf(k->skip, sizeof(k->skip),
				 "%s: not a regular file but %s", k->image,
				 S_ISDIR(st.st_mode) ? "a folder"
						     : file_kind(st.st_mode));
		else if (access(k->image, R_OK))
			snprintf(k->skip, sizeof(k->skip), "%s: %s", k->image,
				 strerror(errno));
		else
			snprintf(k->skip, sizeof(k->skip),
				 "%s is not an x86 kernel image (no bzImage "
				 "header) nor an uncompressed arm64 Image (no "
				 "ARM\\x64 magic)",
				 k->image);
		return;
	} else if (!k->release[0]) {
		snprintf(k->release, sizeof(k->release), "%s", rel);
	}
	k->fuse = config_fuse(k->config);
	if (k->fuse == 'n')
		snprintf(k->skip, sizeof(k->skip),
			 "the kernel has no FUSE (CONFIG_FUSE_FS is not set)");
	else if (k->fuse == 'm' && !k->fuse_ko[0])
		snprintf(k->skip, sizeof(k->skip),
			 "FUSE is a module and modules/kernel/fs/fuse/fuse.ko "
			 "is missing");
}

void kernel_save_caps(const struct kernel *k, const char *json, size_t len)
{
	char dir[PATH_MAX - 32], p[PATH_MAX];

	if (k->host || !cached(k->name, dir, sizeof(dir)))
		return;
	snprintf(p, sizeof(p), "%s/caps.json", dir);
	outfile_write(p, json, len);
}

static void list_one(const char *root, const char *name)
{
	char dir[PATH_MAX - 32], p[PATH_MAX], caps[512];
	struct kernel k;
	struct jv *cv;
	bool arm64;

	snprintf(dir, sizeof(dir), "%s/kernels/%s", root, name);
	memset(&k, 0, sizeof(k));
	from_dir(&k, dir);
	k.fuse = config_fuse(k.config);
	k.page_size = 4096;
	if (!k.release[0] && arch_arm64_image(k.image, NULL))
		arch_image_release(k.image, k.release, sizeof(k.release));
	snprintf(p, sizeof(p), "%s/caps.json", dir);
	read_first_line(p, caps, sizeof(caps));
	arm64 = arch_arm64_image(k.image, &k.page_size);
	printf("%-28s %-28s %-6s %2uK pages FUSE %-9s cachestat %-3s THP "
	       "%-3s\n",
	       name, k.release[0] ? k.release : "?", arm64 ? "arm64" : "x86_64",
	       k.page_size / 1024,
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

static int kernels_list(void)
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
	       path_is_dir("/sys/kernel/tracing/events/readahead") ? "yes"
								   : "no",
	       path_is_dir("/sys/kernel/tracing/events/filemap") ? "yes"
								 : "no");
	printf("cache: %s\n", root);
	snprintf(p, sizeof(p), "%s/kernels", root);
	n = scandir(p, &ents, NULL, alphasort);
	if (n < 0) {
		printf("no kernels cached\n");
		n = 0;
	}
	for (i = 0; i < n; i++) {
		char d[PATH_MAX + 300], img[PATH_MAX + 320];

		snprintf(d, sizeof(d), "%s/%s", p, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && dir_image(d, img, sizeof(img)))
			list_one(root, ents[i]->d_name);
		free(ents[i]);
	}
	if (n)
		free(ents);
	printf("debian:LINE, debian:latest: Debian's kernels, fetched on "
	       "first use ('testfs-matrix kernels --available' lists the "
	       "lines)\n");
	lab_list();
	return 0;
}

int kernels_command(int argc, char **argv)
{
	bool available = false, refresh = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--available") == 0)
			available = true;
		else if (strcmp(argv[i], "--refresh") == 0)
			refresh = true;
		else {
			fprintf(stderr,
				"testfs-matrix: kernels: unknown argument "
				"'%s' (--available, --refresh)\n",
				argv[i]);
			return 2;
		}
	}
	if (available || refresh) {
		if (prereq_check(NEED_DEBIAN, "testfs-matrix"))
			return 1;
		return debian_available(refresh);
	}
	return kernels_list();
}
