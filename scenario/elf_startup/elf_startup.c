// SPDX-License-Identifier: MIT
/*
 * elf-startup (story 1 of READAHEAD.md): the 2026 patch that limited
 * fault readahead to the faulting VMA was motivated by ELF files ("~20%
 * fewer pages pulled into the cache" on Android). This scenario serves a
 * real program with --backing, maps it as glibc's loader does
 * (elf_load.c), touches what a start-up touches and reports the pages
 * fetched per segment, between them and where no segment maps, with the
 * model's prediction under each policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_startup.h"

static const struct param_def params[] = {
	{ "binary", PARAM_INPUT, "", NULL,
	  "the ELF file to start (64-bit, this machine's: x86-64 or arm64); "
	  "empty: the testfs daemon "
	  "this run starts (testfs_find_daemon())",
	  0, 0, NULL },
	PARAM_DEF_RA,
	PARAM_DEF_MODEL("none", ""),
	{ "text_stride", PARAM_UINT, "8", NULL,
	  "touch one page in this many of each executable segment, from "
	  "its first page (0: only the entry point's page)",
	  0, 1u << 20, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* The binary= path, or the daemon's; 0 or -errno with @why. */
static int binary_path(struct scenario_ctx *ctx, char *buf, size_t size,
		       bool *is_default)
{
	const char *b = param_s(ctx, "binary");
	int err;

	*is_default = !*b;
	if (*b) {
		snprintf(buf, size, "%s", b);
		return 0;
	}
	err = testfs_find_daemon(NULL, buf, size);
	return err;
}

static int elf_startup_check(struct scenario_ctx *ctx)
{
	struct elf_image img;
	char path[4096], why[256];
	bool def;
	int err = binary_path(ctx, path, sizeof(path), &def);

	if (err) {
		fprintf(stderr,
			"testfs-scenario: elf-startup: no testfs daemon found "
			"for the default binary (%s); set TESTFS_BIN or "
			"binary=PATH\n",
			strerror(-err));
		return 2;
	}
	err = elf_image_load(path, &img, why, sizeof(why));
	if (err == -ENOMEM) {
		fprintf(stderr, "testfs-scenario: out of memory\n");
		return 1;
	}
	if (err) {
		fprintf(stderr,
			"testfs-scenario: PARAM binary: bad value '%s': %s\n"
			"Try 'testfs-scenario help elf-startup'.\n",
			path, why);
		return 2;
	}
	elf_image_free(&img);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The served directory: the binary alone                              */
/* ------------------------------------------------------------------ */

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			err = -EIO;
			break;
		}
	if (n < 0)
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	close(in);
	return err;
}

/*
 * A private directory holding only the binary (hard link, else a copy),
 * so --backing serves it alone.
 */
static int stage(struct scenario_ctx *ctx, const char *path, char *dir,
		 size_t dsize, char *file, size_t fsize, const char **how)
{
	const char *tmp = getenv("TMPDIR"), *base = strrchr(path, '/');
	char dst[4200];
	int err;

	snprintf(dir, dsize, "%s/testfs-elf.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return scenario_fail(ctx, -errno, "mkdtemp %s", dir);
	snprintf(file, fsize, "%.200s", base ? base + 1 : path);
	snprintf(dst, sizeof(dst), "%s/%s", dir, file);
	*how = "hard link";
	if (link(path, dst) == 0)
		return 0;
	*how = "copy";
	err = copy_file(path, dst);
	if (err) {
		unlink(dst);
		rmdir(dir);
		dir[0] = '\0';
		return scenario_fail(ctx, err, "copying %s to %s", path, dst);
	}
	return 0;
}

static void unstage(const char *dir, const char *file)
{
	char p[4200];

	if (!dir[0])
		return;
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	unlink(p);
	rmdir(dir);
}

/* ------------------------------------------------------------------ */
/* The run                                                             */
/* ------------------------------------------------------------------ */

/* 1 if the file read through the mount equals @path, 0 if not, -errno. */
static int bytes_equal(struct session *s, const char *path)
{
	char a[65536], b[65536];
	int fa = testfs_open(s->fs, s->file, O_RDONLY);
	int fb = open(path, O_RDONLY | O_CLOEXEC), ret = 1;
	ssize_t na, nb;

	if (fa < 0 || fb < 0) {
		ret = fa < 0 ? fa : -errno;
		goto out;
	}
	do {
		na = read(fa, a, sizeof(a));
		nb = read(fb, b, sizeof(b));
		if (na < 0 || nb < 0) {
			ret = -EIO;
			break;
		}
		/* Both read in 64 KiB blocks from regular files: equal
		 * lengths unless the files differ. */
		if (na != nb || memcmp(a, b, (size_t)na))
			ret = 0;
	} while (ret == 1 && na > 0);
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return ret;
}

static int startup_phase(struct scenario_ctx *ctx, struct elf_result *r)
{
	struct session *s = r->s;
	char why[256];
	int fd, err;

	err = session_phase(ctx, s, "startup");
	if (err)
		return err;
	progress("startup: mapping %s as the loader does and touching it",
		 s->file);
	fd = testfs_open(s->fs, s->file, O_RDONLY);
	if (fd < 0)
		return scenario_fail(ctx, fd, "open %s on the mount", s->file);
	err = elf_run_plan(&r->img, &r->plan, fd, &r->run, why, sizeof(why));
	close(fd);
	if (err)
		return scenario_fail(ctx, 0, "startup: %s", why);
	err = session_snapshot(ctx, s, "startup", &r->log);
	if (err)
		return err;
	err = log_file_view(r->log, s->file, &r->fetched, r->by_cause,
			    &r->reads);
	if (!err)
		err = testfs_extents_subtract(&r->run.touched, &r->fetched,
					      &r->not_fetched);
	if (err)
		return scenario_fail(ctx, err, "startup: the log");
	/* Before anything else reads the file: mincore equals the log. */
	r->consistent = testfs_check_consistent(
		s->fs, r->log, s->file, s->max_pages, &r->consistent_why);
	r->bytes_equal = bytes_equal(s, r->path);
	return 0;
}

static void release(void *result)
{
	struct elf_result *r = result;
	unsigned i;

	/* Before its directory goes; session_end() reports the status. */
	session_stop(r->s);
	if (r->dir[0])
		unstage(r->dir, r->file);
	elf_image_free(&r->img);
	elf_plan_free(&r->plan);
	elf_run_free(&r->run);
	testfs_log_free(r->log);
	testfs_extents_free(&r->fetched);
	testfs_extents_free(&r->not_fetched);
	testfs_extents_free(&r->outside);
	extents_free_n(r->by_cause, NCAUSES);
	for (i = 0; i < RA_NPOLICIES; i++)
		testfs_extents_free(&r->policy[i].pred);
	read_list_free(&r->reads);
	free(r->consistent_why);
}

static int measure(struct scenario_ctx *ctx, void *result)
{
	struct elf_result *r = result;
	char why[256];
	int err;
	size_t i;

	err = binary_path(ctx, r->path, sizeof(r->path), &r->is_default);
	if (err)
		return scenario_fail(ctx, err, "the default binary");
	err = elf_image_load(r->path, &r->img, why, sizeof(why));
	if (!err)
		err = elf_plan_build(&r->img,
				     (unsigned)param_u(ctx, "text_stride"),
				     &r->plan);
	if (err)
		return scenario_fail(ctx, err, "%s: %s", r->path,
				     err == -EINVAL ? why : "the plan");
	err = stage(ctx, r->path, r->dir, sizeof(r->dir), r->file,
		    sizeof(r->file), &r->served);
	if (!err)
		err = session_start_backing(
			ctx, &r->s, r->dir, r->file, r->img.size,
			(unsigned)param_u(ctx, "ra"), param_s(ctx, "model"));
	if (err)
		return err;
	session_report_settings(r->s, ctx->rep);
	err = startup_phase(ctx, r);
	for (i = 0; !err && i < r->img.nseg; i++)
		if (r->img.seg[i].npages)
			err = html_vma(ctx, r->s->file,
				       r->img.seg[i].first_page,
				       r->img.seg[i].first_page +
					       r->img.seg[i].npages - 1,
				       r->img.seg[i].prot);
	return err;
}

const struct scenario elf_startup_scenario = {
	.name = "elf-startup",
	.summary = "start a program as ld.so maps it: pages fetched per "
		   "segment and outside",
	.description =
		"Story 1 of READAHEAD.md: the VMA limit was motivated by ELF "
		"files (\"~20% fewer pages\" on Android). Serves a real "
		"program (the testfs daemon by default, binary=PATH for "
		"another) with --backing, evicts it, reads its header and "
		"maps its PT_LOAD segments as glibc's _dl_map_segments() "
		"does (one reservation, PROT_NONE holes, each segment "
		"MAP_FIXED with its protections), then touches what a "
		"start-up touches: the page the loader zeroes, the dynamic "
		"section, each relocation entry and its target (a write to "
		"the private mapping), PT_GNU_RELRO after it is made "
		"read-only, the entry point's page and one page in "
		"text_stride of the code. Reports the pages fetched inside, "
		"before and after each segment and where no segment maps, "
		"the verdict of each readahead policy, and the total against "
		"what a VMA-limited kernel would fetch.",
	.params = params,
	SCENARIO_STEPS(struct elf_result, measure, elf_analyse, elf_report,
		       release),
	.check = elf_startup_check,
};
