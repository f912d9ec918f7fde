// SPDX-License-Identifier: MIT
/*
 * image.h: a cpio "newc" writer (the format the kernel's initramfs
 * unpacker reads, Documentation/driver-api/early-userspace/
 * buffer-format.rst) and the binaries and libraries that go in it.
 */
#include "image.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "capture.h"
#include "suite_tests.h"
#include "elfdeps.h"

#ifndef MATRIX_DATADIR
#define MATRIX_DATADIR "/usr/local/share/testfs"
#endif

struct cpio {
	FILE *f;
	unsigned ino;
	char **dirs;
	size_t ndirs;
	int err;
};

static void put_header(struct cpio *c, const char *name, unsigned mode,
		       size_t size)
{
	static const char zeros[4];
	size_t nlen = strlen(name) + 1;

	fprintf(c->f,
		"070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		++c->ino, mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, size, 0u,
		0u, 0u, 0u, nlen, 0u);
	fwrite(name, 1, nlen, c->f);
	/* The 110-byte header and the name are padded to 4 bytes. */
	fwrite(zeros, 1, (4 - (110 + nlen) % 4) % 4, c->f);
}

static void put_data(struct cpio *c, const void *data, size_t size)
{
	static const char zeros[4];

	if (size && fwrite(data, 1, size, c->f) != size)
		c->err = -EIO;
	fwrite(zeros, 1, (4 - size % 4) % 4, c->f);
}

/* Adds the folders above @path (no leading '/'), each once. */
static void put_parents(struct cpio *c, const char *path)
{
	char d[PATH_MAX];
	char **nd;
	size_t i;
	char *s;

	snprintf(d, sizeof(d), "%s", path);
	for (s = strchr(d, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		for (i = 0; i < c->ndirs; i++)
			if (strcmp(c->dirs[i], d) == 0)
				break;
		if (i == c->ndirs) {
			nd = realloc(c->dirs, (c->ndirs + 1) * sizeof(*nd));
			if (!nd) {
				c->err = -ENOMEM;
				return;
			}
			c->dirs = nd;
			c->dirs[c->ndirs++] = strdup(d);
			put_header(c, d, S_IFDIR | 0755, 0);
		}
		*s = '/';
	}
}

static void put_dir(struct cpio *c, const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/", path);
	put_parents(c, p);
}

static void put_bytes(struct cpio *c, const char *path, unsigned mode,
		      const void *data, size_t size)
{
	put_parents(c, path);
	put_header(c, path, S_IFREG | mode, size);
	put_data(c, data, size);
}

static void put_symlink(struct cpio *c, const char *path, const char *target)
{
	put_parents(c, path);
	put_header(c, path, S_IFLNK | 0777, strlen(target));
	put_data(c, target, strlen(target));
}

/* Adds host file @src as @path (the file's content: links followed). */
static int put_file(struct cpio *c, const char *path, const char *src,
		    unsigned mode)
{
	struct strbuf sb = STRBUF_INIT;
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return c->err = -errno;
	err = strbuf_read_fd(&sb, fd);
	close(fd);
	if (err)
		c->err = err;
	else
		put_bytes(c, path, mode, sb.data, sb.len);
	strbuf_free(&sb);
	return c->err;
}

static void put_trailer(struct cpio *c)
{
	size_t i;

	put_header(c, "TRAILER!!!", 0, 0);
	for (i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
	c->dirs = NULL;
	c->ndirs = 0;
}

static bool exists_x(const char *p)
{
	return access(p, X_OK) == 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* @out = @dir/@rel if executable. */
static bool try_bin(char *out, size_t len, const char *dir, const char *rel)
{
	snprintf(out, len, "%s/%s", dir, rel);
	return exists_x(out);
}

int bins_tests(struct bins *b)
{
	/* The build's list of the suite's binaries (meson writes it). */
	static const char *const suite[] = { MATRIX_SUITE_TESTS };
	_Static_assert(sizeof(suite) / sizeof(suite[0]) <= MAX_TESTS,
		       "the suite has more binaries than struct bins holds");
	unsigned i;

	b->ntests = 0;
	for (i = 0; i < sizeof(suite) / sizeof(suite[0]); i++)
		if (try_bin(b->tests[b->ntests], PATH_MAX, b->tests_dir,
			    suite[i]))
			b->ntests++;
	return 0;
}

int bins_find(struct bins *b, char *why, size_t whylen)
{
	char dir[PATH_MAX - 64], data[PATH_MAX - 64];
	int err;

	memset(b, 0, sizeof(*b));
	err = self_dir(0, dir, sizeof(dir));
	if (err) {
		snprintf(why, whylen, "/proc/self/exe: %s", strerror(-err));
		return -ENOENT;
	}
	if (try_bin(b->daemon, sizeof(b->daemon), dir, "../src/testfs")) {
		/* The build tree. */
		try_bin(b->touch, sizeof(b->touch), dir,
			"../tools/testfs-touch");
		try_bin(b->scenario, sizeof(b->scenario), dir,
			"../scenario/testfs-scenario");
		snprintf(b->run_sh, sizeof(b->run_sh), "%s/run.sh", dir);
		snprintf(b->init_sh, sizeof(b->init_sh), "%s/init.sh", dir);
		snprintf(b->tests_dir, sizeof(b->tests_dir), "%s/../tests",
			 dir);
		bins_tests(b);
	} else {
		try_bin(b->daemon, sizeof(b->daemon), dir, "testfs");
		try_bin(b->touch, sizeof(b->touch), dir, "testfs-touch");
		try_bin(b->scenario, sizeof(b->scenario), dir,
			"testfs-scenario");
		snprintf(data, sizeof(data), "%s", MATRIX_DATADIR);
		snprintf(b->run_sh, sizeof(b->run_sh), "%s/matrix-run.sh",
			 data);
		snprintf(b->init_sh, sizeof(b->init_sh), "%s/matrix-init.sh",
			 data);
	}
	if (!exists_x(b->daemon) || !exists_x(b->touch) ||
	    !exists_x(b->scenario)) {
		snprintf(why, whylen,
			 "testfs, testfs-touch or testfs-scenario not found "
			 "next to %s (build tree or installed)",
			 dir);
		return -ENOENT;
	}
	if (access(b->run_sh, R_OK) || access(b->init_sh, R_OK)) {
		snprintf(why, whylen, "%s or %s is missing", b->run_sh,
			 b->init_sh);
		return -ENOENT;
	}
	if (exists_x("/bin/busybox"))
		snprintf(b->busybox, sizeof(b->busybox), "/bin/busybox");
	snprintf(b->fusermount, sizeof(b->fusermount), "/usr/bin/fusermount3");
	if (!exists_x(b->fusermount))
		snprintf(b->fusermount, sizeof(b->fusermount),
			 "/bin/fusermount3");
	return 0;
}

/*
 * Adds host file @src as @dst unless @dst is in @seen already. 1 when it
 * was there, 0 when added, or -errno with why.
 */
static int put_lib_once(struct cpio *c, const char *dst, const char *src,
			char ***seen, size_t *nseen, char *why, size_t whylen)
{
	char **ns;
	size_t i;

	for (i = 0; i < *nseen; i++)
		if (strcmp((*seen)[i], dst) == 0)
			return 1;
	ns = realloc(*seen, (*nseen + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	*seen = ns;
	(*seen)[(*nseen)++] = strdup(dst);
	if (put_file(c, dst, src, 0755)) {
		snprintf(why, whylen, "%s: %s", src, strerror(-c->err));
		return c->err;
	}
	return 0;
}

/*
 * Another architecture's @bin: what its dynamic section names, found in
 * @b's sysroot and the multiarch folders, and what those load in turn.
 */
static int put_libs_cross(struct cpio *c, const struct bins *b, const char *bin,
			  char ***seen, size_t *nseen, char *why, size_t whylen)
{
	char d[3][PATH_MAX];
	const char *dirs[] = { d[2],
			       d[0],
			       d[1],
			       "/usr/lib/aarch64-linux-gnu",
			       "/lib/aarch64-linux-gnu",
			       "/usr/aarch64-linux-gnu/lib",
			       NULL };
	char interp[256], src[PATH_MAX], dst[PATH_MAX + 16];
	char *names = NULL, *name;
	size_t n, i;
	int err;

	snprintf(d[0], sizeof(d[0]), "%s/usr/lib/aarch64-linux-gnu",
		 b->sysroot);
	snprintf(d[1], sizeof(d[1]), "%s/lib/aarch64-linux-gnu", b->sysroot);
	/* The build tree's libraries: its RUNPATH ($ORIGIN/../lib) */
	err = elf_needed(bin, interp, sizeof(interp), &names, &n, d[2],
			 sizeof(d[2]));
	d[2][strcspn(d[2], ":")] = '\0';
	if (err) {
		snprintf(why, whylen, "%s: %s", bin,
			 err == -ENOEXEC ? "not a 64-bit ELF file"
					 : strerror(-err));
		return err;
	}
	if (interp[0] == '/') {
		snprintf(dst, sizeof(dst), "%s", interp + 1);
		if (elf_find_lib(dirs, strrchr(interp, '/') + 1, src,
				 sizeof(src)))
			snprintf(src, sizeof(src), "%s", interp);
		err = put_lib_once(c, dst, src, seen, nseen, why, whylen);
	}
	for (i = 0, name = names; err >= 0 && i < n;
	     i++, name += strlen(name) + 1) {
		snprintf(dst, sizeof(dst), "matrix/lib/%s", name);
		if (elf_find_lib(dirs, name, src, sizeof(src))) {
			snprintf(why, whylen,
				 "%s loads %s, found in none of %s, %s, "
				 "/usr/lib/aarch64-linux-gnu (scripts/setup.sh "
				 "--matrix-arm64)",
				 bin, name, d[0], d[1]);
			err = -ENOENT;
			break;
		}
		err = put_lib_once(c, dst, src, seen, nseen, why, whylen);
		if (err == 0)
			err = put_libs_cross(c, b, src, seen, nseen, why,
					     whylen);
	}
	free(names);
	return err < 0 ? err : 0;
}

/* Adds the shared libraries @bin loads (as ldd resolves them). */
static int put_libs(struct cpio *c, const struct bins *b, const char *bin,
		    char ***seen, size_t *nseen, char *why, size_t whylen)
{
	const char *argv[] = { "ldd", bin, NULL };
	struct capture_opts o = { .argv = argv, .timeout_s = 30 };
	struct capture cap;
	char *line, *save = NULL;
	int err;

	if (b->sysroot[0])
		return put_libs_cross(c, b, bin, seen, nseen, why, whylen);
	err = capture_run(&o, &cap);
	if (err || !cap.text) {
		snprintf(why, whylen, "ldd %s failed", bin);
		capture_free(&cap);
		return err ? err : -EIO;
	}
	for (line = strtok_r(cap.text, "\n", &save); line && err >= 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char soname[256], path[PATH_MAX], dst[PATH_MAX + 16];

		if (sscanf(line, " %255s => %4095s", soname, path) == 2) {
			if (path[0] != '/')
				continue;
			snprintf(dst, sizeof(dst), "matrix/lib/%s", soname);
		} else if (sscanf(line, " %4095s (", path) == 1 &&
			   path[0] == '/') {
			/* The ELF interpreter, at its own path. */
			snprintf(dst, sizeof(dst), "%s", path + 1);
		} else {
			continue;
		}
		err = put_lib_once(c, dst, path, seen, nseen, why, whylen);
	}
	capture_free(&cap);
	return err < 0 ? err : 0;
}

/*
 * glibc loads libgcc_s.so.1 at run time, for pthread_cancel() (which the
 * daemon calls as it stops) and for unwinding; ldd does not list it.
 * Without it the daemon aborts as it exits ("libgcc_s.so.1 must be
 * installed for pthread_cancel to work") and every guest run ends with
 * a daemon killed by SIGABRT.
 */
static void put_libgcc_s(struct cpio *c, const struct bins *b, char **seen,
			 size_t nseen)
{
	static const char *const host[] = {
		"/lib/x86_64-linux-gnu/libgcc_s.so.1",
		"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
		"/lib64/libgcc_s.so.1",
		"/usr/lib64/libgcc_s.so.1",
	};
	static const char *const arm64[] = {
		"/lib/aarch64-linux-gnu/libgcc_s.so.1",
		"/usr/lib/aarch64-linux-gnu/libgcc_s.so.1",
		"/usr/aarch64-linux-gnu/lib/libgcc_s.so.1",
		"/usr/lib64/libgcc_s.so.1",
	};
	const char *const *where = b->sysroot[0] ? arm64 : host;
	size_t i;

	for (i = 0; i < nseen; i++)
		if (strcmp(seen[i], "matrix/lib/libgcc_s.so.1") == 0)
			return;
	for (i = 0; i < sizeof(host) / sizeof(host[0]); i++)
		if (access(where[i], R_OK) == 0) {
			put_file(c, "matrix/lib/libgcc_s.so.1", where[i], 0755);
			return;
		}
}

int image_build_base(const struct bins *b, bool with_suite, const char *path,
		     char *why, size_t whylen)
{
	static const char *const dirs[] = { "dev",	  "proc", "sys",
					    "tmp",	  "root", "run",
					    "etc",	  "sbin", "usr/sbin",
					    "lib/modules" };
	struct cpio c = { 0 };
	char dst[PATH_MAX + 32];
	char **seen = NULL;
	size_t nseen = 0, i;
	const char *guest_bins[3] = { b->daemon, b->touch, b->scenario };
	int err = 0;

	if (!b->busybox[0]) {
		snprintf(why, whylen,
			 "/bin/busybox is missing (apt-get install "
			 "busybox-static)");
		return -ENOENT;
	}
	c.f = fopen(path, "w");
	if (!c.f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		put_dir(&c, dirs[i]);
	put_symlink(&c, "etc/mtab", "/proc/self/mounts");
	put_bytes(&c, "etc/passwd", 0644, "root:x:0:0:root:/root:/bin/sh\n",
		  30);
	put_file(&c, "init", b->init_sh, 0755);
	put_file(&c, "bin/busybox", b->busybox, 0755);
	put_file(&c, "matrix/run.sh", b->run_sh, 0755);
	for (i = 0; i < 3 && !err; i++) {
		snprintf(dst, sizeof(dst), "matrix/bin/%s",
			 base_name(guest_bins[i]));
		put_file(&c, dst, guest_bins[i], 0755);
		err = put_libs(&c, b, guest_bins[i], &seen, &nseen, why,
			       whylen);
	}
	if (!err)
		put_libgcc_s(&c, b, seen, nseen);
	if (!err && exists_x(b->fusermount)) {
		put_file(&c, "usr/bin/fusermount3", b->fusermount, 04755);
		err = put_libs(&c, b, b->fusermount, &seen, &nseen, why,
			       whylen);
	}
	for (i = 0; with_suite && i < b->ntests && !err; i++) {
		snprintf(dst, sizeof(dst), "matrix/tests/%s",
			 base_name(b->tests[i]));
		put_file(&c, dst, b->tests[i], 0755);
		err = put_libs(&c, b, b->tests[i], &seen, &nseen, why, whylen);
	}
	if (!err && c.err) {
		err = c.err;
		snprintf(why, whylen, "writing %s: %s", path, strerror(-err));
	}
	put_trailer(&c);
	if (fclose(c.f) && !err) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
	}
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return err;
}

static int copy_into(FILE *out, const char *src)
{
	char buf[1 << 16];
	size_t n;
	FILE *in = fopen(src, "r");

	if (!in)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	fclose(in);
	return ferror(out) ? -EIO : 0;
}

/* The guest's copy of a host file named by PARAM binary=. */
#define HOST_FILES "matrix/host"

/*
 * A scenario's binary=PATH (elf-startup) names a host file: @arg is that
 * PARAM and PATH a regular file. Relative paths are the host's too.
 */
static bool host_file_param(char *const *argv, size_t i, char *abs)
{
	struct stat st;

	if (strcmp(argv[0], "scenario") != 0 || i < 2 ||
	    strncmp(argv[i], "binary=", 7) != 0 || !argv[i][7])
		return false;
	return realpath(argv[i] + 7, abs) && stat(abs, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

int image_for_kernel(const char *base, const struct kernel *k,
		     char *const *argv, const char *path, char *why,
		     size_t whylen)
{
	char abs[PATH_MAX], dst[PATH_MAX + 16];
	struct cpio c = { 0 };
	size_t len = 0, i;
	char *cmd;
	int err;

	c.f = fopen(path, "w");
	if (!c.f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	err = copy_into(c.f, base);
	/* The second archive's inode numbers must not collide. */
	c.ino = 1u << 20;
	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + sizeof(HOST_FILES) + PATH_MAX + 1;
	cmd = malloc(len + 1);
	if (!cmd) {
		fclose(c.f);
		return -ENOMEM;
	}
	/* A host file the command reads goes in, and the command names
	 * the guest's copy, /matrix/host/PATH. */
	for (len = 0, i = 0; argv[i]; i++) {
		if (!err && host_file_param(argv, i, abs)) {
			snprintf(dst, sizeof(dst), HOST_FILES "%s", abs);
			err = put_file(&c, dst, abs, 0755);
			len += (size_t)sprintf(cmd + len, "binary=/%s\n", dst);
			continue;
		}
		len += (size_t)sprintf(cmd + len, "%s\n", argv[i]);
	}
	put_bytes(&c, "matrix/cmd", 0644, cmd, len);
	free(cmd);
	if (k->fuse_ko[0] && !err)
		err = put_file(&c, "lib/modules/fuse.ko", k->fuse_ko, 0644);
	put_trailer(&c);
	if (fclose(c.f) && !err)
		err = -errno;
	if (err)
		snprintf(why, whylen, "writing %s: %s", path, strerror(-err));
	return err;
}
