// SPDX-License-Identifier: MIT
/*
 * testfs-matrix as a user runs it, on the host and with bad input: exit
 * status 2 for usage errors, a `skipped` run with its reason for a kernel
 * it cannot use (not a bzImage, no FUSE, no fuse.ko, no QEMU), a guest
 * that never finishes killed at the time limit, and never a half-written
 * JSON. The kernels here are hand-made bzImage headers: only testfs-
 * matrix's checks see them, no guest boots one except the hang test.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cache.h"
#include "jsonv.h"
#include "fifo_reader.h"
#include "mount_harness.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/testfs-test.matrix.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	/* CI=true turns a skipped run into a failure; tested on its own */
	unsetenv("CI");
}

static void teardown(void)
{
	const char *argv[] = { "/bin/rm", "-rf", dir, NULL };
	char *out = NULL;

	if (dir[0])
		harness_run(argv, &out, 30);
	free(out);
}

TestSuite(matrix_cli, .init = setup, .fini = teardown, .timeout = 120);

static const char *matrix(void)
{
	const char *p = getenv("TESTFS_MATRIX");

	cr_assert_not_null(p, "TESTFS_MATRIX not set");
	return p;
}

/* Runs testfs-matrix with @args; its exit status, output in @out. */
static int run(const char *const *args, char **out, int timeout_s)
{
	const char *argv[32];
	int n = 0;

	argv[n++] = matrix();
	while (*args && n < 31)
		argv[n++] = *args++;
	argv[n] = NULL;
	*out = NULL;
	return harness_run(argv, out, timeout_s);
}

static struct jv *read_json(const char *path)
{
	char *text = harness_read_file(path, NULL);
	struct jv *v;

	cr_assert_not_null(text, "%s not written", path);
	v = jv_parse(text, strlen(text));
	cr_assert_not_null(v, "%s is not whole JSON:\n%s", path, text);
	free(text);
	return v;
}

/* A file with an x86 boot header (boot.rst: 0xAA55, "HdrS"). */
static void fake_kernel(const char *name, const char *config)
{
	unsigned char hdr[0x400] = { 0 };
	char path[128];
	FILE *f;

	hdr[0x1fe] = 0x55;
	hdr[0x1ff] = 0xaa;
	memcpy(hdr + 0x202, "HdrS", 4);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/bzImage", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fwrite(hdr, 1, sizeof(hdr), f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s/config", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(config, f);
	fclose(f);
}

Test(matrix_cli, usage_errors_exit_2)
{
	const char *a1[] = { "--kernel", "debian:five", "suite", NULL };
	const char *a2[] = { "--kernel", "/nonexistent/bzImage", "suite",
			     NULL };
	const char *a3[] = { "frobnicate", NULL };
	const char *a4[] = { "touch", "x", "10", NULL };
	const char *a5[] = { "touch", "1", "10", "--bogus", NULL };
	const char *a6[] = { "--timeout", "0", "suite", NULL };
	const char *a7[] = { "--kernel", "host", "scenario", "no-such", NULL };
	const char *a8[] = { "scenario", "vma-boundary", "exec", NULL };
	const char *a9[] = { NULL };
	const char *a10[] = { "suite", "extra", NULL };
	const char *a11[] = { "suite", "causes/*", "causes/x", NULL };
	const char *a12[] = { "suite", "causes/a b", NULL };
	const char *const *cases[] = { a1, a2, a3, a4,	a5,  a6,
				       a7, a8, a9, a10, a11, a12 };
	const char *want[] = { "unknown kernel",
			       "no such file",
			       "unknown command",
			       "FIRST and COUNT",
			       "unknown option",
			       "--timeout",
			       "no-such",
			       "PARAM=VALUE",
			       "COMMAND is needed",
			       "is not one of the suite's tests",
			       "one SUITE/TEST pattern at most",
			       "is not a TEST pattern" };
	unsigned i;
	char *out;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(run(cases[i], &out, 30), 2, "case %u: %s", i, out);
		cr_expect(out && strstr(out, want[i]), "case %u: %s", i, out);
		free(out);
	}
}

/*
 * Every command's --help (and -h): its whole usage on stdout, exit 0;
 * every option it names is in the man page.
 */
Test(matrix_cli, every_command_has_a_complete_help)
{
	static const char *const cmds[] = { "build", "bisect",	 "kernels",
					    "image", "decode",	 "cache-dir",
					    "suite", "scenario", "touch" };
	const char *man_path = getenv("TESTFS_MATRIX_MAN");
	char *man, *out, *p, opt[64], esc[160];
	size_t i, k, e;
	int h;

	cr_assert_not_null(man_path, "TESTFS_MATRIX_MAN not set");
	man = harness_read_file(man_path, NULL);
	cr_assert_not_null(man);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		for (h = 0; h < 2; h++) {
			/* stdout only: stderr goes to /dev/null */
			const char *argv[] = { "/bin/sh",
					       "-c",
					       "exec \"$0\" \"$@\" 2>/dev/null",
					       matrix(),
					       cmds[i],
					       h ? "-h" : "--help",
					       NULL };

			out = NULL;
			cr_expect_eq(harness_run(argv, &out, 30), 0,
				     "%s %s: %s", cmds[i], argv[5], out);
			cr_assert(out && !strncmp(out, "Usage: testfs-matrix",
						  20),
				  "%s %s:\n%s", cmds[i], argv[5], out);
			cr_expect(strstr(out, cmds[i]), "%s", out);
			for (p = strstr(out, "--"); p;
			     p = strstr(p + 2, "--")) {
				k = strspn(p + 2,
					   "abcdefghijklmnopqrstuvwxyz-");
				if (!k || k > 40)
					continue;
				snprintf(opt, sizeof(opt), "%.*s", (int)k,
					 p + 2);
				/* roff writes each '-' of an option as \- */
				for (e = 0, k = 0; opt[k]; k++) {
					if (opt[k] == '-')
						esc[e++] = '\\';
					esc[e++] = opt[k];
				}
				esc[e] = '\0';
				cr_expect(strstr(man, esc),
					  "%s --help names --%s, the man page "
					  "does not (%s)",
					  cmds[i], opt, esc);
			}
			free(out);
		}
	free(man);
}

/*
 * A --kernel PATH that is no kernel says what it is: a device or a FIFO
 * is not a regular file, a folder without bzImage names the bzImage it
 * looked for (and, in a kernel build tree, the one to give). Each is a
 * usage error, before any run.
 */
Test(matrix_cli, kernel_paths_say_what_is_wrong)
{
	char fifo[128], empty[128], tree[160], img[200], want[3][600];
	const char *specs[] = { "/dev/zero", fifo, empty, tree };
	const char *wants[] = { "/dev/zero: not a regular file but a character "
				"device",
				want[0], want[1], want[2] };
	const char *cp[] = { "/bin/cp", "/etc/passwd", img, NULL };
	const char *md[] = { "/bin/mkdir", "-p", img, NULL };
	char *out;
	unsigned i;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	snprintf(want[0], sizeof(want[0]), "%s: not a regular file but a FIFO",
		 fifo);
	snprintf(empty, sizeof(empty), "%s/empty", dir);
	cr_assert_eq(mkdir(empty, 0755), 0);
	snprintf(want[1], sizeof(want[1]),
		 "%s: a folder without bzImage (looked for %s/bzImage: No "
		 "such file or directory",
		 empty, empty);
	/* A build tree: its image is arch/x86/boot/bzImage. */
	snprintf(tree, sizeof(tree), "%s/linux", dir);
	snprintf(img, sizeof(img), "%s/arch/x86/boot", tree);
	cr_assert_eq(harness_run(md, &out, 10), 0, "%s", out);
	free(out);
	snprintf(img, sizeof(img), "%s/arch/x86/boot/bzImage", tree);
	cr_assert_eq(harness_run(cp, &out, 10), 0, "%s", out);
	free(out);
	snprintf(want[2], sizeof(want[2]),
		 "a folder without bzImage (looked for %s/bzImage: No such "
		 "file or directory; a kernel folder holds bzImage and, "
		 "optionally, config, release and "
		 "modules/kernel/fs/fuse/fuse.ko); a kernel build tree: give "
		 "%s",
		 tree, img);
	for (i = 0; i < 4; i++) {
		const char *args[] = { "--kernel", specs[i], "scenario",
				       "vma-boundary", NULL };

		cr_expect_eq(run(args, &out, 30), 2, "%s: %s", specs[i], out);
		cr_expect(strstr(out, wants[i]), "no '%s' in: %s", wants[i],
			  out);
		cr_expect(!strstr(out, "no such file or folder") &&
				  !strstr(out, "not an x86 kernel image"),
			  "%s", out);
		free(out);
	}
}

/* Runs `scenario vma-boundary` on @spec, which cannot run; its reason. */
static void expect_skipped(const char *spec, const char *reason,
			   const char *path_env)
{
	char json[128], *out;
	const char *args[] = { "--json",   json,	   "--kernel", spec,
			       "scenario", "vma-boundary", NULL };
	struct jv *v;
	const char *status, *why;
	int code;

	snprintf(json, sizeof(json), "%s/out.json", dir);
	if (path_env)
		setenv("PATH", path_env, 1);
	code = run(args, &out, 60);
	cr_assert_eq(code, 0, "%s", out);
	v = read_json(json);
	status = jv_str(v, "runs.0.status");
	why = jv_str(v, "runs.0.reason");
	cr_assert(status && strcmp(status, "skipped") == 0, "%s", out);
	cr_assert(why && strstr(why, reason), "reason '%s', want '%s'", why,
		  reason);
	cr_assert(strstr(out, "skipped"), "%s", out);
	jv_free(v);
	free(out);
}

Test(matrix_cli, a_file_that_is_not_a_kernel_is_skipped)
{
	char path[128], *out = NULL;
	const char *cp[] = { "/bin/cp", "/etc/passwd", path, NULL };

	snprintf(path, sizeof(path), "%s/notakernel", dir);
	cr_assert_eq(harness_run(cp, &out, 10), 0, "%s", out);
	free(out);
	expect_skipped(path, "not an x86 kernel image", NULL);
}

/*
 * Output files (src/common/outfile.h). The kernel is a file that is not
 * one, so its run is skipped and no guest boots; --json, --ktap and
 * --html are written all the same. What each output starts with:
 */
static const char *const out_opts[] = { "--json", "--ktap", "--html" };
static const char *const out_heads[] = { "{", "KTAP version 1\n",
					 "<!DOCTYPE html>" };

/* testfs-matrix OPT PATH on a skipped kernel; its status, output in @out. */
static int run_output(const char *opt, const char *path, char **out)
{
	char kernel[128];
	const char *args[] = { opt,	   path,	   "--kernel", kernel,
			       "scenario", "vma-boundary", NULL };
	const char *cp[] = { "/bin/cp", "/etc/passwd", kernel, NULL };

	snprintf(kernel, sizeof(kernel), "%s/notakernel", dir);
	if (access(kernel, F_OK)) {
		cr_assert_eq(harness_run(cp, out, 10), 0, "%s", *out);
		free(*out);
	}
	return run(args, out, 60);
}

static mode_t kind_of(const char *path)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s: %s", path, strerror(errno));
	return st.st_mode & S_IFMT;
}

Test(matrix_cli, outputs_into_a_fifo_keep_the_fifo)
{
	char path[128], *out, *got;
	struct fifo_reader *r;
	size_t len;
	unsigned i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/fifo%u", dir, i);
		r = fifo_reader_start(path);
		cr_assert_not_null(r, "mkfifo: %s", strerror(errno));
		cr_expect_eq(run_output(out_opts[i], path, &out), 0, "%s: %s",
			     out_opts[i], out);
		got = fifo_reader_end(r, &len);
		cr_expect_eq(kind_of(path), S_IFIFO, "%s replaced the FIFO",
			     out_opts[i]);
		cr_expect(strncmp(got, out_heads[i], strlen(out_heads[i])) == 0,
			  "%s: the FIFO got %zu bytes: %.60s", out_opts[i], len,
			  got);
		free(got);
		free(out);
	}
}

Test(matrix_cli, outputs_through_a_symlink_keep_the_link)
{
	char link[128], target[128], *out, *text;
	unsigned i;

	for (i = 0; i < 3; i++) {
		snprintf(target, sizeof(target), "%s/target%u", dir, i);
		snprintf(link, sizeof(link), "%s/link%u", dir, i);
		cr_assert_eq(symlink(target, link), 0);
		cr_expect_eq(run_output(out_opts[i], link, &out), 0, "%s: %s",
			     out_opts[i], out);
		cr_expect_eq(kind_of(link), S_IFLNK, "%s replaced the link",
			     out_opts[i]);
		text = harness_read_file(target, NULL);
		cr_expect(text && strncmp(text, out_heads[i],
					  strlen(out_heads[i])) == 0,
			  "%s: the link's target holds %.60s", out_opts[i],
			  text ? text : "nothing");
		free(text);
		free(out);
	}
}

/*
 * Standard output, a pipe here, named as /dev/stdout or /dev/fd/1: each
 * output goes into it after the table (the link reads "pipe:[ino]", which
 * was taken for a missing file: ENOENT, exit status 1).
 */
Test(matrix_cli, outputs_onto_standard_output)
{
	const char *names[] = { "/dev/stdout", "/dev/fd/1" };
	char *out;
	unsigned i, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < 3; i++) {
			cr_expect_eq(run_output(out_opts[i], names[k], &out), 0,
				     "%s %s: %s", out_opts[i], names[k], out);
			cr_expect(strstr(out, out_heads[i]) &&
					  strstr(out, "skipped"),
				  "%s %s: %s", out_opts[i], names[k], out);
			free(out);
		}
}

/* A scratch node of /dev/full (1, 7): never the real one. */
Test(matrix_cli, a_full_device_is_an_error_and_stays_a_device)
{
	char full[128], want[192], *out;
	unsigned i;

	snprintf(full, sizeof(full), "%s/full", dir);
	if (mknod(full, S_IFCHR | 0666, makedev(1, 7)))
		cr_skip_test("mknod: %s (root is needed)", strerror(errno));
	for (i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "%s %s: No space left on device",
			 out_opts[i], full);
		cr_expect_eq(run_output(out_opts[i], full, &out), 1, "%s: %s",
			     out_opts[i], out);
		cr_expect(strstr(out, want), "no '%s' in: %s", want, out);
		cr_expect_eq(kind_of(full), S_IFCHR, "%s replaced the device",
			     out_opts[i]);
		free(out);
	}
}

/* `image OUT`: the same rules (built in the work folder, copied out). */
Test(matrix_cli, image_onto_a_link_or_a_full_device)
{
	char full[128], link[128], target[128], want[192], *out, *text;
	const char *a1[] = { "image", link, "scenario", "vma-boundary", NULL };
	const char *a2[] = { "image", full, "scenario", "vma-boundary", NULL };
	size_t len = 0;

	if (access("/bin/busybox", X_OK))
		cr_skip_test("busybox-static missing");
	snprintf(target, sizeof(target), "%s/guest.cpio", dir);
	snprintf(link, sizeof(link), "%s/link.cpio", dir);
	cr_assert_eq(symlink("guest.cpio", link), 0);
	cr_assert_eq(run(a1, &out, 60), 0, "%s", out);
	free(out);
	cr_expect_eq(kind_of(link), S_IFLNK);
	text = harness_read_file(target, &len);
	cr_expect(text && len > 1024 && memcmp(text, "070701", 6) == 0);
	free(text);
	snprintf(full, sizeof(full), "%s/full", dir);
	if (mknod(full, S_IFCHR | 0666, makedev(1, 7)))
		cr_skip_test("mknod: %s (root is needed)", strerror(errno));
	snprintf(want, sizeof(want), "image: %s: No space left on device",
		 full);
	cr_expect_eq(run(a2, &out, 60), 1, "%s", out);
	cr_expect(strstr(out, want), "no '%s' in: %s", want, out);
	cr_expect_eq(kind_of(full), S_IFCHR);
	free(out);
}

Test(matrix_cli, a_kernel_without_fuse_is_skipped)
{
	char path[128];

	fake_kernel("nofuse", "# CONFIG_FUSE_FS is not set\n");
	snprintf(path, sizeof(path), "%s/nofuse", dir);
	expect_skipped(path, "no FUSE", NULL);
}

Test(matrix_cli, fuse_as_a_module_without_fuse_ko_is_skipped)
{
	char path[128];

	fake_kernel("nomod", "CONFIG_FUSE_FS=m\n");
	snprintf(path, sizeof(path), "%s/nomod/bzImage", dir);
	expect_skipped(path, "fuse.ko", NULL);
}

/*
 * What is missing is found before any work, all of it in one message with
 * the command that installs it: QEMU for a guest, and the kernel build's
 * tools for `build` (PATH holds none of them here).
 */
Test(matrix_cli, missing_tools_are_listed_up_front)
{
	char path[128], *out;
	const char *guest[] = { "--kernel", path, "scenario", "vma-boundary",
				NULL };
	const char *build[] = { "build", NULL };
	const char *tools[] = {
		"ccache", "flex", "bison", "bc", "gcc", "make"
	};
	unsigned i;

	fake_kernel("noqemu", "CONFIG_FUSE_FS=y\n");
	snprintf(path, sizeof(path), "%s/noqemu", dir);
	setenv("TESTFS_CACHE", dir, 1);
	setenv("PATH", "/nonexistent", 1);
	cr_assert_eq(run(guest, &out, 30), 1, "%s", out);
	cr_expect(out && strstr(out, "qemu-system-x86_64 (package "
				     "qemu-system-x86)"),
		  "%s", out);
	cr_expect(out && strstr(out, "apt-get install -y qemu-system-x86"),
		  "%s", out);
	cr_expect(out && strstr(out, "setup.sh --matrix"), "%s", out);
	cr_expect(out && !strstr(out, "booting"), "%s", out);
	free(out);
	cr_assert_eq(run(build, &out, 30), 1, "%s", out);
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char want[64];

		snprintf(want, sizeof(want), "  %s (package %s)", tools[i],
			 tools[i]);
		cr_expect(out && strstr(out, want), "no '%s' in:\n%s", want,
			  out);
	}
	cr_expect(out && strstr(out, "apt-get install -y") &&
			  strstr(out, " ccache") && strstr(out, " flex"),
		  "%s", out);
	cr_expect(out && strstr(out, "setup.sh --lab"), "%s", out);
	free(out);
}

/*
 * An arm64 Image (booting.rst: "ARM\x64" at 0x38; flags at 24, bits 1-2
 * the page size: 2 is 16 KiB) in @dir/@name/Image.
 */
static void fake_arm64_kernel(const char *name, unsigned page_code)
{
	unsigned char hdr[0x400] = { 0 };
	char path[160];
	FILE *f;

	memcpy(hdr + 0x38, "ARM\x64", 4);
	hdr[24] = (unsigned char)(page_code << 1);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/Image", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fwrite(hdr, 1, sizeof(hdr), f);
	fputs("Linux version 7.3.4-test-16k (a fake) #1 SMP\n", f);
	fclose(f);
}

/*
 * testfs-matrix @args for an arm64 kernel on a PATH without its tools:
 * exit 1 before any boot, qemu-system-aarch64 and the cross compiler
 * listed with their packages. Its output, for more checks.
 */
static char *expect_arm64_tools_listed(const char *const *args)
{
	char *out;

	cr_assert_eq(run(args, &out, 30), 1, "%s", out);
	cr_expect(out && strstr(out, "qemu-system-aarch64 (package "
				     "qemu-system-arm)"),
		  "%s", out);
	cr_expect(out && strstr(out, "(package gcc-aarch64-linux-gnu)"), "%s",
		  out);
	cr_expect(out && !strstr(out, "booting"), "%s", out);
	return out;
}

/*
 * An arm64 kernel without qemu-system-aarch64, the cross compiler and
 * the arm64 build: one message listing the three, before any work; a
 * malformed arm64 SPEC is a usage error.
 */
Test(matrix_cli, an_arm64_kernel_without_its_tools_lists_them)
{
	char path[128], *out;
	const char *guest[] = { "--kernel", path, "scenario", "vma-boundary",
				NULL };
	const char *bad[] = { "--kernel", "debian:7.3/arm32", "scenario",
			      "vma-boundary", NULL };

	fake_arm64_kernel("arm16k", 2);
	snprintf(path, sizeof(path), "%s/arm16k", dir);
	setenv("TESTFS_CACHE", dir, 1);
	setenv("TESTFS_MATRIX_ARM64_BUILD", "/nonexistent", 1);
	setenv("PATH", "/nonexistent", 1);
	out = expect_arm64_tools_listed(guest);
	cr_expect(out && strstr(out, "testfs built for arm64 in /nonexistent"),
		  "%s", out);
	cr_expect(out && strstr(out, "setup.sh --matrix-arm64"), "%s", out);
	free(out);
	cr_assert_eq(run(bad, &out, 30), 2, "%s", out);
	cr_expect(out && strstr(out, "/arm64-16k"), "%s", out);
	free(out);
	unsetenv("TESTFS_MATRIX_ARM64_BUILD");
}

/* The cache's kernels say their architecture and page size. */
Test(matrix_cli, kernels_lists_each_page_size)
{
	char kdir[128], *out;
	const char *list[] = { "kernels", NULL };

	snprintf(kdir, sizeof(kdir), "%s/kernels", dir);
	mkdir(kdir, 0755);
	snprintf(kdir, sizeof(kdir), "kernels/a16k");
	fake_arm64_kernel(kdir, 2);
	snprintf(kdir, sizeof(kdir), "kernels/a64k");
	fake_arm64_kernel(kdir, 3);
	snprintf(kdir, sizeof(kdir), "kernels/x86");
	fake_kernel(kdir, "CONFIG_FUSE_FS=y\n");
	setenv("TESTFS_CACHE", dir, 1);
	cr_assert_eq(run(list, &out, 30), 0, "%s", out);
	cr_expect(out && strstr(out, "7.3.4-test-16k") &&
			  strstr(out, "arm64  16K pages"),
		  "%s", out);
	cr_expect(out && strstr(out, "arm64  64K pages"), "%s", out);
	cr_expect(out && strstr(out, "x86_64  4K pages"), "%s", out);
	free(out);
}

/*
 * lab:VERSION/arm64-64k, the arm64 lab kernel with 64 KiB pages: without
 * qemu-system-aarch64 and the cross compiler, one message listing them
 * (for a run and for its build); with them (stand-ins here, never run)
 * and not built, a skipped run naming the command that builds it; built,
 * `kernels` lists it under its SPEC with its 64K pages.
 */
Test(matrix_cli, an_arm64_64k_lab_kernel)
{
	char a64[128], p[256], path_env[400], *out;
	const char *guest[] = { "--kernel", "lab:7.3/arm64-64k", "scenario",
				"vma-boundary", NULL };
	const char *build[] = { "build",  "--source",  "debian:7.3",
				"--arch", "arm64-64k", NULL };
	const char *list[] = { "kernels", NULL };
	const char *stubs[] = { "qemu-system-x86_64", "qemu-system-aarch64",
				"aarch64-linux-gnu-gcc" };
	unsigned i;

	setenv("TESTFS_CACHE", dir, 1);
	setenv("PATH", "/nonexistent", 1);
	free(expect_arm64_tools_listed(guest));
	cr_assert_eq(run(build, &out, 30), 1, "%s", out);
	cr_expect(out && strstr(out, "  aarch64-linux-gnu-gcc (package "
				     "gcc-aarch64-linux-gnu): compiles the "
				     "arm64 kernel"),
		  "%s", out);
	cr_expect(out && strstr(out, "setup.sh --lab --matrix-arm64"), "%s",
		  out);
	free(out);

	/* The tools and an arm64 build of testfs, as stand-ins */
	snprintf(p, sizeof(p), "%s/bin", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	for (i = 0; i < sizeof(stubs) / sizeof(stubs[0]); i++) {
		snprintf(p, sizeof(p), "%s/bin/%s", dir, stubs[i]);
		cr_assert_eq(symlink("/bin/false", p), 0, "%s", p);
	}
	snprintf(a64, sizeof(a64), "%s/a64", dir);
	snprintf(p, sizeof(p), "%s/a64/src", dir);
	cr_assert_eq(mkdir(a64, 0755) | mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a64/src/testfs", dir);
	cr_assert_eq(symlink("/bin/false", p), 0, "%s", p);
	snprintf(p, sizeof(p), "%s/a64/sysroot", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a64/sysroot/bin", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/a64/sysroot/bin/busybox", dir);
	cr_assert_eq(symlink("/bin/busybox", p), 0);
	setenv("TESTFS_MATRIX_ARM64_BUILD", a64, 1);
	snprintf(path_env, sizeof(path_env),
		 "%s/bin:/usr/sbin:/usr/bin:/sbin:/bin", dir);
	expect_skipped("lab:7.3/arm64-64k",
		       "not built yet: run 'testfs-matrix build --source "
		       "debian:7.3 --arch arm64-64k'",
		       path_env);

	snprintf(p, sizeof(p), "%s/kernels", dir);
	cr_assert_eq(mkdir(p, 0755), 0);
	fake_arm64_kernel("kernels/lab-7.3-arm64-64k", 3);
	cr_assert_eq(run(list, &out, 30), 0, "%s", out);
	cr_expect(out && strstr(out, "lab:7.3/arm64-64k") &&
			  strstr(out, "built (kernels/lab-7.3-arm64-64k)"),
		  "%s", out);
	cr_expect(out && strstr(out, "arm64  64K pages"), "%s", out);
	free(out);
	unsetenv("TESTFS_MATRIX_ARM64_BUILD");
}

/*
 * A new user's machine: no ~/.cache at all, and a Debian mirror that
 * does not answer. The cache folder is made with its parents, the run
 * stops before any guest with exit 1 and a reason that names the command
 * that failed and what it said; nothing half-made is left in kernels/.
 */
Test(matrix_cli, a_fresh_home_and_a_mirror_that_does_not_answer)
{
	char home[128], p[256], *out, *text;
	const char *args[] = { "--kernel", "debian:6.1", "scenario",
			       "vma-boundary", NULL };
	const char *list[] = { "kernels", "--available", NULL };

	if (access("/usr/bin/qemu-system-x86_64", X_OK) ||
	    access("/bin/busybox", X_OK))
		cr_skip_test("qemu-system-x86 or busybox-static missing");
	snprintf(home, sizeof(home), "%s/new/home", dir);
	setenv("HOME", home, 1);
	unsetenv("TESTFS_CACHE");
	unsetenv("XDG_CACHE_HOME");
	/* Port 9 (discard) on the loopback: refused at once */
	setenv("TESTFS_DEBIAN_MIRROR", "http://127.0.0.1:9/debian", 1);
	cr_assert_eq(run(args, &out, 120), 1, "%s", out);
	cr_expect(out && strstr(out, "cannot read Debian's package indexes: "
				     "'apt-get update' failed: "),
		  "%s", out);
	/* apt's own words follow the colon */
	cr_expect(out && (strstr(out, "127.0.0.1") || strstr(out, "E: ")), "%s",
		  out);
	cr_expect(out && !strstr(out, "booting"), "%s", out);
	free(out);
	snprintf(p, sizeof(p), "%s/.cache/testfs/apt/sources.list", home);
	text = harness_read_file(p, NULL);
	cr_assert_not_null(text, "%s not written", p);
	cr_expect(strstr(text, "http://127.0.0.1:9/debian sid main"), "%s",
		  text);
	cr_expect(strstr(text, "http://127.0.0.1:9/debian-security "
			       "trixie-security main"),
		  "%s", text);
	free(text);
	snprintf(p, sizeof(p), "%s/.cache/testfs/kernels", home);
	cr_expect(access(p, F_OK), "%s exists", p);
	cr_assert_eq(run(list, &out, 120), 1, "%s", out);
	cr_expect(out && strstr(out, "'apt-get update' failed"), "%s", out);
	free(out);
}

/* cache-dir: the one definition of the cache folder, for scripts. */
Test(matrix_cli, cache_dir_follows_the_environment)
{
	const char *args[] = { "cache-dir", NULL };
	char want[256], *out;

	unsetenv("TESTFS_CACHE");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", dir, 1);
	cr_assert_eq(run(args, &out, 30), 0, "%s", out);
	snprintf(want, sizeof(want), "%s/.cache/testfs\n", dir);
	cr_expect_str_eq(out, want);
	free(out);
	setenv("XDG_CACHE_HOME", "/x/y", 1);
	cr_assert_eq(run(args, &out, 30), 0, "%s", out);
	cr_expect_str_eq(out, "/x/y/testfs\n");
	free(out);
	setenv("TESTFS_CACHE", "/z", 1);
	cr_assert_eq(run(args, &out, 30), 0, "%s", out);
	cr_expect_str_eq(out, "/z\n");
	free(out);
}

/* Under CI=true a skipped kernel fails the run: no green with no guest. */
Test(matrix_cli, a_skipped_kernel_fails_under_ci)
{
	char path[128], *out;
	const char *args[] = { "--kernel", path, "scenario", "vma-boundary",
			       NULL };

	if (access("/usr/bin/qemu-system-x86_64", X_OK) ||
	    access("/bin/busybox", X_OK))
		cr_skip_test("qemu-system-x86 or busybox-static missing");
	fake_kernel("nofuse", "# CONFIG_FUSE_FS is not set\n");
	snprintf(path, sizeof(path), "%s/nofuse", dir);
	cr_assert_eq(run(args, &out, 60), 0, "%s", out);
	free(out);
	setenv("CI", "true", 1);
	cr_assert_eq(run(args, &out, 60), 1, "%s", out);
	cr_expect(out && strstr(out, "was skipped (CI=true): the kernel has "
				     "no FUSE"),
		  "%s", out);
	free(out);
}

Test(matrix_cli, a_guest_that_never_finishes_is_killed_at_the_limit)
{
	char path[128], json[128], *out;
	const char *args[] = { "--json",   json,	   "--timeout",
			       "4",	   "--kernel",	   path,
			       "scenario", "vma-boundary", NULL };
	struct jv *v;
	const char *status, *why;

	if (access("/usr/bin/qemu-system-x86_64", X_OK) ||
	    access("/bin/busybox", X_OK))
		cr_skip_test("qemu-system-x86 or busybox-static missing");
	/* A boot header and nothing after it: QEMU never reaches /init. */
	fake_kernel("hang", "CONFIG_FUSE_FS=y\n");
	snprintf(path, sizeof(path), "%s/hang", dir);
	snprintf(json, sizeof(json), "%s/out.json", dir);
	cr_assert_eq(run(args, &out, 90), 1, "%s", out);
	v = read_json(json);
	status = jv_str(v, "runs.0.status");
	why = jv_str(v, "runs.0.reason");
	cr_assert(status && strcmp(status, "failed") == 0, "%s", out);
	cr_assert(why && (strstr(why, "time limit") ||
			  strstr(why, "did not reach /init")),
		  "%s", why);
	jv_free(v);
	free(out);
}

/* A real kernel that cannot boot in time: killed, its console kept. */
Test(matrix_cli, a_slow_guest_is_killed_at_the_time_limit)
{
	char json[128], img[PATH_MAX], *out;
	const char *args[] = { "--json",   json,	   "--timeout",
			       "2",	   "--kernel",	   "debian:6.12",
			       "scenario", "vma-boundary", NULL };
	char cache[PATH_MAX - 64];
	struct jv *v;
	const char *why;

	cache_root(cache, sizeof(cache));
	snprintf(img, sizeof(img), "%s/kernels/debian-6.12/bzImage", cache);
	if (access(img, R_OK) || access("/usr/bin/qemu-system-x86_64", X_OK) ||
	    access("/bin/busybox", X_OK)) {
		/* Said in the output too: scripts/test.sh lists such parts. */
		cr_log_warn("skipped part: %s",
			    "matrix_cli's slow guest needs "
			    "debian:6.12 cached, QEMU and busybox");
		cr_skip_test("needs debian:6.12 cached, QEMU and busybox");
	}
	/* Emulated: boot and scenario take well over 2 s. */
	setenv("TESTFS_MATRIX_ACCEL", "tcg", 1);
	snprintf(json, sizeof(json), "%s/out.json", dir);
	cr_assert_eq(run(args, &out, 60), 1, "%s", out);
	v = read_json(json);
	why = jv_str(v, "runs.0.reason");
	cr_assert_str_eq(jv_str(v, "runs.0.status"), "failed");
	cr_assert(why && strstr(why, "time limit (2 s)"), "%s", out);
	cr_assert_not_null(jv_get(v, "runs.0.console_tail"));
	cr_assert_lt(jv_num(v, "runs.0.seconds", 99), 30);
	jv_free(v);
	free(out);
}

Test(matrix_cli, host_scenario_json_and_ktap)
{
	char json[128], ktap[128], *out, *text;
	const char *args[] = { "--json",   json,	   "--ktap",
			       ktap,	   "--kernel",	   "host",
			       "scenario", "vma-boundary", "preset=small",
			       NULL };
	struct jv *v;
	const char *status;
	int code;

	harness_require_fuse();
	snprintf(json, sizeof(json), "%s/out.json", dir);
	snprintf(ktap, sizeof(ktap), "%s/out.ktap", dir);
	code = run(args, &out, 110);
	cr_assert_eq(code, 0, "%s", out);
	cr_assert(strstr(out, "[host]"), "no progress line: %s", out);
	v = read_json(json);
	status = jv_str(v, "runs.0.status");
	cr_assert(status && strcmp(status, "ok") == 0, "%s", out);
	cr_assert_str_eq(jv_str(v, "runs.0.spec"), "host");
	cr_assert_not_null(jv_str(v, "runs.0.release"));
	cr_assert_gt(jv_num(v, "runs.0.result.fetched.requests", 0), 0);
	cr_assert_not_null(jv_get(v, "runs.0.kernel.readahead_events"));
	jv_free(v);
	text = harness_read_file(ktap, NULL);
	cr_assert_not_null(text);
	cr_assert(strncmp(text, "KTAP version 1\n", 15) == 0, "%s", text);
	cr_assert(strstr(text, "\n1..1\n"), "%s", text);
	cr_assert(strstr(text, "\nok 1 host\n"), "%s", text);
	free(text);
	free(out);
}

/*
 * A cell wider than its column (24 characters) goes on below it, cut
 * between words: the touch's "why" row, "why (kernel tracepoints, N
 * decisions):", was cut to "why (kernel tracepoints,".
 */
Test(matrix_cli, table_wraps_a_long_cell_at_a_word)
{
	char json[128], want[256], *out;
	const char *args[] = { "--json", json,	 "--kernel", "host",
			       "touch",	 "1024", "1024",     NULL };
	const char *why, *rest;
	struct jv *v;

	harness_require_fuse();
	snprintf(json, sizeof(json), "%s/out.json", dir);
	cr_assert_eq(run(args, &out, 110), 0, "%s", out);
	v = read_json(json);
	why = jv_str(v, "runs.0.result.why");
	cr_assert_not_null(why, "%s", out);
	rest = "why (kernel tracepoints, ";
	cr_assert_eq(strncmp(why, rest, strlen(rest)), 0, "%s", why);
	/* Label column (2 + 30), one blank, a 24-wide cell, per line. */
	snprintf(want, sizeof(want), "\n  %-30s %-24s\n  %-30s %-24s\n", "why",
		 "why (kernel tracepoints,", "", why + strlen(rest));
	cr_assert_not_null(strstr(out, want), "want:%s\ngot:\n%s", want, out);
	jv_free(v);
	free(out);
}

Test(matrix_cli, image_is_a_newc_initramfs)
{
	char img[128], *out, *text;
	const char *args[] = { "image", img, "scenario", "vma-boundary", NULL };
	size_t len = 0;

	if (access("/bin/busybox", X_OK))
		cr_skip_test("busybox-static missing");
	snprintf(img, sizeof(img), "%s/guest.cpio", dir);
	cr_assert_eq(run(args, &out, 60), 0, "%s", out);
	text = harness_read_file(img, &len);
	cr_assert_not_null(text);
	/* newc: "070701" headers; the command and the init are in it. */
	cr_assert(len > 1024 && memcmp(text, "070701", 6) == 0);
	cr_assert(memmem(text, len, "matrix/cmd", 10));
	cr_assert(memmem(text, len, "scenario\nvma-boundary\n", 22));
	cr_assert(memmem(text, len, "TRAILER!!!", 10));
	free(text);
	free(out);
}

/* A scenario's binary=PATH goes in as /matrix/host/PATH, named so. */
Test(matrix_cli, image_packs_the_binary_param)
{
	const char *cmd = "elf-startup\nbinary=/matrix/host/";
	char img[128], *out, *text;
	const char *args[] = { "image",		 img, "scenario", "elf-startup",
			       "binary=/bin/sh", NULL };
	size_t len = 0;

	if (access("/bin/busybox", X_OK))
		cr_skip_test("busybox-static missing");
	snprintf(img, sizeof(img), "%s/guest.cpio", dir);
	cr_assert_eq(run(args, &out, 60), 0, "%s", out);
	text = harness_read_file(img, &len);
	cr_assert_not_null(text);
	cr_assert(memmem(text, len, "matrix/host/", 12), "no matrix/host/");
	cr_assert(memmem(text, len, cmd, strlen(cmd)), "no %s", cmd);
	free(text);
	free(out);
}

/*
 * The runner's output as a CI engine would keep it (a time before each
 * line, a kernel message in the middle), decoded into the same JSON.
 */
Test(matrix_cli, decode_reads_a_console_log)
{
	char runner[PATH_MAX], work[128], logp[128], json[128], *out, *line;
	char *save = NULL;
	const char *sh[] = { "/usr/bin/env",
			     NULL, /* TESTFS_BIN= */
			     NULL, /* MATRIX_SCENARIO= */
			     "MATRIX_TOUCH=/bin/false",
			     NULL, /* MATRIX_WORK= */
			     "/bin/sh",
			     runner,
			     "scenario",
			     "vma-boundary",
			     "preset=small",
			     NULL };
	const char *args[] = { "--json", json, "decode", logp, NULL };
	char e1[PATH_MAX + 16], e2[PATH_MAX + 32], e3[160];
	const char *m = matrix(), *scen = getenv("TESTFS_SCENARIO");
	struct jv *v;
	FILE *f;
	int i = 0;

	harness_require_fuse();
	cr_assert_not_null(scen, "TESTFS_SCENARIO not set");
	snprintf(runner, sizeof(runner), "%.*s/run.sh",
		 (int)(strrchr(m, '/') - m), m);
	snprintf(work, sizeof(work), "%s/work", dir);
	snprintf(e1, sizeof(e1), "TESTFS_BIN=%s", harness_bin());
	snprintf(e2, sizeof(e2), "MATRIX_SCENARIO=%s", scen);
	snprintf(e3, sizeof(e3), "MATRIX_WORK=%s", work);
	sh[1] = e1;
	sh[2] = e2;
	sh[4] = e3;
	cr_assert_eq(harness_run(sh, &out, 110), 0, "%s", out);
	snprintf(logp, sizeof(logp), "%s/console.log", dir);
	f = fopen(logp, "w");
	cr_assert_not_null(f);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		fprintf(f, "[%6d.000] %s\r\n", i, line);
		if (i++ == 3)
			fputs("[    3.500] fuse: init (API version 7.41)\r\n",
			      f);
	}
	fclose(f);
	free(out);
	snprintf(json, sizeof(json), "%s/out.json", dir);
	cr_assert_eq(run(args, &out, 30), 0, "%s", out);
	v = read_json(json);
	cr_assert_str_eq(jv_str(v, "command.0"), "scenario");
	cr_assert_str_eq(jv_str(v, "runs.0.status"), "ok");
	cr_assert_gt(jv_num(v, "runs.0.result.fetched.requests", 0), 0);
	jv_free(v);
	free(out);
}

/*
 * A guest that locked up: init.sh makes a soft lockup panic, and the run's
 * reason quotes the panic line (the console as debian:6.1 printed it).
 */
Test(matrix_cli, a_panicked_guest_says_why)
{
	char logp[128], json[128], *out;
	const char *args[] = { "--json", json, "decode", logp, NULL };
	const char *why;
	struct jv *v;
	FILE *f;

	snprintf(logp, sizeof(logp), "%s/panic.log", dir);
	snprintf(json, sizeof(json), "%s/panic.json", dir);
	f = fopen(logp, "w");
	cr_assert_not_null(f);
	fputs("@@testfs-matrix booted 6.1.0-57-amd64\n"
	      "@@testfs-matrix begin command\nc3VpdGUK\n"
	      "@@testfs-matrix end command 6\n"
	      "@@testfs-matrix progress ra_congestion\n"
	      "[   76.563682] watchdog: BUG: soft lockup - CPU#1 stuck for "
	      "45s! [testfs:387]\n"
	      "[   76.571002] Kernel panic - not syncing: softlockup: hung "
	      "tasks\n",
	      f);
	fclose(f);
	cr_assert_eq(run(args, &out, 30), 1, "%s", out);
	v = read_json(json);
	cr_assert_str_eq(jv_str(v, "runs.0.status"), "failed");
	why = jv_str(v, "runs.0.reason");
	cr_assert(why && strstr(why, "the kernel panicked before the command "
				     "finished: Kernel panic - not syncing: "
				     "softlockup: hung tasks"),
		  "%s", why ? why : "(no reason)");
	jv_free(v);
	free(out);
}

/*
 * A KTAP version 1 reader (Documentation/dev-tools/ktap.rst): each level
 * indented 4 spaces more, opened by "KTAP version 1", its plan "1..N",
 * results "ok|not ok K name" numbered 1..N, "# ..." diagnostics. Returns
 * the number of results at the top level, or -1 (the reason in @why).
 */
static int ktap_check(const char *text, char *why, size_t len)
{
	long plan[8] = { 0 }, seen[8] = { 0 };
	bool open[8] = { false };
	const char *l = text;
	int line = 0;

	while (*l) {
		size_t n = strcspn(l, "\n"), ind = 0;
		const char *s;
		unsigned lvl;
		long k;

		line++;
		while (l[ind] == ' ')
			ind++;
		s = l + ind;
		lvl = (unsigned)(ind / 4);
		if (ind % 4 || lvl >= 8) {
			snprintf(why, len, "line %d: indentation %zu", line,
				 ind);
			return -1;
		}
		if (strncmp(s, "KTAP version 1", 14) == 0) {
			if (lvl && !open[lvl - 1]) {
				snprintf(why, len, "line %d: subtest outside",
					 line);
				return -1;
			}
			open[lvl] = true;
			plan[lvl] = -1;
			seen[lvl] = 0;
		} else if (strncmp(s, "1..", 3) == 0) {
			plan[lvl] = strtol(s + 3, NULL, 10);
		} else if (strncmp(s, "ok ", 3) == 0 ||
			   strncmp(s, "not ok ", 7) == 0) {
			k = strtol(s + (s[0] == 'o' ? 3 : 7), NULL, 10);
			if (!open[lvl] || k != ++seen[lvl]) {
				snprintf(why, len,
					 "line %d: result %ld out of "
					 "order",
					 line, k);
				return -1;
			}
			/* The subtest this result closes must be whole. */
			if (lvl + 1 < 8 && open[lvl + 1]) {
				if (seen[lvl + 1] != plan[lvl + 1]) {
					snprintf(why, len,
						 "line %d: subtest "
						 "planned %ld, has %ld",
						 line, plan[lvl + 1],
						 seen[lvl + 1]);
					return -1;
				}
				open[lvl + 1] = false;
			}
		} else if (*s && *s != '#') {
			snprintf(why, len, "line %d: not KTAP: %.*s", line,
				 (int)(n - ind), s);
			return -1;
		}
		l += n + (l[n] == '\n');
	}
	if (!open[0] || seen[0] != plan[0]) {
		snprintf(why, len, "top level planned %ld, has %ld", plan[0],
			 seen[0]);
		return -1;
	}
	return (int)seen[0];
}

/* The "not ok" lines of KTAP @text, indented by nesting, in @buf. */
static const char *not_ok_lines(const char *text, char *buf, size_t len)
{
	const char *line = text, *end;
	size_t n = 0;

	buf[0] = '\0';
	for (; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (!strstr(line, "not ok ") ||
		    (end && strstr(line, "not ok ") > end))
			continue;
		n += (size_t)snprintf(
			buf + n, n < len ? len - n : 0, "%.*s\n",
			end ? (int)(end - line) : (int)strlen(line), line);
		if (n >= len)
			break;
	}
	return buf;
}

Test(matrix_cli, host_suite_ktap_is_well_formed)
{
	char failed[2048];
	char json[128], ktap[128], why[256], *out, *text;
	const char *args[] = { "--json",   json,   "--ktap", ktap,
			       "--kernel", "host", "suite",  NULL };
	struct jv *v;

	harness_require_fuse();
	if (geteuid() != 0)
		cr_skip_test("the suite's tracing tests need root");
	snprintf(json, sizeof(json), "%s/out.json", dir);
	snprintf(ktap, sizeof(ktap), "%s/out.ktap", dir);
	/* This worker's map: a suite binary that inherits it would take
	 * itself for one of our workers. */
	unsetenv("BXFI_MAP");
	cr_assert_eq(run(args, &out, 280), 0, "%s", out);
	text = harness_read_file(ktap, NULL);
	cr_assert_not_null(text);
	cr_assert_eq(ktap_check(text, why, sizeof(why)), 1, "%s\n%s", why,
		     text);
	/* One nested subtest per binary, one result per test. */
	cr_assert(strstr(text, "        # Subtest: ra_read_ramp\n"), "%s",
		  text);
	cr_assert(strstr(text, "\nok 1 host\n"), "%s", text);
	v = read_json(json);
	cr_assert_eq(jv_num(v, "runs.0.result.not_ok", -1), 0,
		     "the host suite has tests not ok:\n%s",
		     not_ok_lines(text, failed, sizeof(failed)));
	cr_assert_gt(jv_num(v, "runs.0.result.ok", 0), 20);
	cr_assert_str_eq(jv_str(v, "runs.0.ktap") ? "yes" : "no", "yes");
	/*
	 * The JSON's KTAP of one kernel is a whole document too, closed by
	 * its result line (without it the kernel's kunit_parser.py says
	 * "missing subtest result line").
	 */
	cr_assert_eq(ktap_check(jv_str(v, "runs.0.ktap"), why, sizeof(why)), 1,
		     "%s\n%s", why, jv_str(v, "runs.0.ktap"));
	cr_assert(strstr(jv_str(v, "runs.0.ktap"), "\nok 1 host\n"), "%s",
		  jv_str(v, "runs.0.ktap"));
	jv_free(v);
	free(text);
	free(out);
}

Test(matrix_cli, ktap_reader_refuses_broken_ktap)
{
	char why[256];

	cr_assert_eq(ktap_check("KTAP version 1\n1..2\nok 1 a\nok 2 b\n", why,
				sizeof(why)),
		     2, "%s", why);
	cr_assert_eq(
		ktap_check("KTAP version 1\n1..2\nok 1 a\n", why, sizeof(why)),
		-1);
	cr_assert_eq(ktap_check("KTAP version 1\n1..1\n    KTAP version 1\n"
				"    1..2\n    ok 1 x\nok 1 a\n",
				why, sizeof(why)),
		     -1);
	cr_assert_eq(
		ktap_check("KTAP version 1\n1..1\nok 2 a\n", why, sizeof(why)),
		-1);
}

/*
 * mprotect-split decides each boundary from the log's times, not from
 * major faults (6.1 counts a fault that waited on a read in flight as
 * major). On this kernel async readahead crosses every boundary (6.18,
 * measured: no VMA starts with a read of its own), so none may be
 * "missing", and the current kernels' verdict must match.
 */
Test(matrix_cli, host_mprotect_split_boundaries_from_the_log)
{
	char json[128], *out;
	const char *args[] = { "--json",       json,	   "--kernel",
			       "host",	       "scenario", "mprotect-split",
			       "preset=small", NULL };
	struct jv *v;
	double vmas;

	harness_require_fuse();
	snprintf(json, sizeof(json), "%s/out.json", dir);
	cr_assert_eq(run(args, &out, 110), 0, "%s", out);
	v = read_json(json);
	vmas = jv_num(v, "runs.0.result.done.vmas", 0);
	cr_assert_gt(vmas, 1);
	cr_assert_eq(jv_num(v, "runs.0.result.fetched.boundaries.missing", -1),
		     0, "%s", out);
	cr_assert_eq(
		jv_num(v, "runs.0.result.fetched.boundaries.ready", 0) +
			jv_num(v, "runs.0.result.fetched.boundaries.in_flight",
			       0),
		vmas - 1);
	cr_assert_str_eq(jv_str(v, "runs.0.result.verdicts.policies.0.verdict"),
			 "matches", "%s", out);
	jv_free(v);
	free(out);
}

/*
 * Lab kernels (kernel/build.sh): a series that kernel/ does not have, a
 * bad name, a source build.sh does not know and an unknown lab version are
 * usage errors, caught before build.sh (and its half-hour build) starts.
 */
Test(matrix_cli, lab_build_and_spec_usage_errors)
{
	const char *a1[] = { "build", "--patches", "no-such-series", NULL };
	const char *a2[] = { "build", "--patches", "Bad/Name", NULL };
	const char *a3[] = { "build", "--source", "debian:six", NULL };
	const char *a4[] = { "build", "stray", NULL };
	const char *a5[] = { "build", "--jobs", "0", NULL };
	const char *a6[] = { "--kernel", "lab:6.12+no-such-series", "scenario",
			     "vma-boundary", NULL };
	const char *a7[] = { "--kernel", "lab:5.10", "suite", NULL };
	const char *a8[] = { "--kernel", "lab:7.3/arm32", "scenario",
			     "vma-boundary", NULL };
	const char *a9[] = { "build", "--arch", "arm32", NULL };
	const char *const *cases[] = { a1, a2, a3, a4, a5, a6, a7, a8, a9 };
	const char *want[] = {
		"no patch series 'no-such-series'",
		"bad series name 'Bad/Name'",
		"unknown --source 'debian:six'",
		"unexpected argument 'stray'",
		"--jobs '0'",
		"no patch series 'no-such-series'",
		"unknown lab kernel 'lab:5.10'",
		"unknown lab kernel 'lab:7.3/arm32'",
		"unknown --arch 'arm32' (x86_64, or arm64-64k",
	};
	unsigned i;
	char *out;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(run(cases[i], &out, 30), 2, "case %u: %s", i, out);
		cr_expect(out && strstr(out, want[i]), "case %u: %s", i, out);
		free(out);
	}
	/* The message names the series there are. */
	cr_expect_eq(run(a1, &out, 30), 2);
	cr_expect(out && strstr(out, "vma-limit-conditional"), "%s", out);
	free(out);
}

/* An empty cache: each lab SPEC is a skipped run naming its build. */
Test(matrix_cli, an_unbuilt_lab_kernel_is_skipped_with_its_build_command)
{
	setenv("TESTFS_CACHE", dir, 1);
	expect_skipped("lab:6.12+vma-limit",
		       "not built yet: run 'testfs-matrix build --patches "
		       "vma-limit'",
		       NULL);
	expect_skipped("lab:6.12", "not built yet: run 'testfs-matrix build'",
		       NULL);
}

/* A lab SPEC resolves to kernels/lab-6.12+SERIES of the cache. */
Test(matrix_cli, a_built_lab_kernel_comes_from_the_cache)
{
	const char *args[] = { "kernels", NULL };
	char path[128], *out;

	setenv("TESTFS_CACHE", dir, 1);
	snprintf(path, sizeof(path), "%s/kernels", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	fake_kernel("kernels/lab-6.12+vma-limit",
		    "# CONFIG_FUSE_FS is not set\n");
	/* Found, and only then stopped by what its config says. */
	expect_skipped("lab:6.12+vma-limit", "no FUSE", NULL);
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	cr_assert_eq(run(args, &out, 30), 0, "%s", out);
	cr_expect(out && strstr(out, "lab:6.12+vma-limit "), "%s", out);
	cr_expect(out && strstr(out, "built (kernels/lab-6.12+vma-limit)"),
		  "%s", out);
	cr_expect(out && strstr(out, "lab:6.12+vma-limit-conditional     "
				     "not built: testfs-matrix build "
				     "--patches vma-limit-conditional"),
		  "%s", out);
	free(out);
}
