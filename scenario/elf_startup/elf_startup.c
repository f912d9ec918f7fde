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
	  "the ELF file to start (64-bit x86-64); empty: the testfs daemon "
	  "this run starts (testfs_find_daemon())",
	  0, 0, NULL },
	{ "ra", PARAM_UINT, "128", NULL, "read_ahead_kb of the mount", 4,
	  1048576, NULL },
	{ "model", PARAM_MODEL, "none", NULL,
	  "storage model for every read (testfs --latency)", 0, 0, NULL },
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
/* The model                                                           */
/* ------------------------------------------------------------------ */

/*
 * 6.16 clamped exec read-around to the VMA and began rounding async
 * windows to their folio order; release "MAJOR.MINOR...".
 */
static bool release_clamps_exec(const char *release)
{
	unsigned maj = 0, min = 0;

	if (sscanf(release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 16);
}

/*
 * The plan under @policy: the header read(2), then the first access of
 * each page (later ones do not fault: the page is mapped), each in the
 * VMA it has at that time. *@same: the model's windows, split at
 * max_pages, are the reads observed.
 */
static int predict(struct elf_result *r, enum ra_policy policy,
		   struct testfs_extents *out, bool *same)
{
	const struct elf_plan *p = &r->plan;
	struct testfs_extents seen = TESTFS_EXTENTS_INIT;
	struct ra_model m;
	size_t i, k = 0;
	int err;

	err = ra_model_init(&m, r->s->file_pages, r->s->ra_pages,
			    r->s->max_pages, policy);
	if (err)
		return err;
	m.unaligned_async = !r->exec_clamp;
	ra_model_read(&m, 0, (p->header_bytes + ELF_PAGE - 1) / ELF_PAGE,
		      (uint32_t)((p->header_bytes + ELF_PAGE - 1) / ELF_PAGE));
	if (p->phdr_len) {
		uint64_t a = p->phdr_off / ELF_PAGE;
		uint64_t b = (p->phdr_off + p->phdr_len - 1) / ELF_PAGE;

		ra_model_read(&m, a, b - a + 1, (uint32_t)(b - a + 1));
	}
	for (i = 0; i < p->n && !err; i++) {
		uint64_t page = p->v[i].vaddr / ELF_PAGE;
		struct elf_vma v;

		if (testfs_extents_contains(&seen, page))
			continue;
		err = testfs_extents_add(&seen, page, page);
		if (err || !elf_vma_of(&r->img, p, p->v[i].vaddr,
				       i >= p->relro_at, &v))
			continue;
		m.exec = r->exec_clamp && (v.prot & 4 /* PROT_EXEC */);
		ra_model_fault(&m,
			       elf_file_page(&r->img,
					     elf_seg_of(&r->img, p->v[i].vaddr),
					     p->v[i].vaddr),
			       v.first_page, v.last_page);
	}
	*same = true;
	for (i = 0; i < m.nwindows && !err; i++) {
		uint64_t first = m.windows[i].first, left = m.windows[i].pages;

		if (!left)
			continue;
		err = testfs_extents_add(out, first, first + left - 1);
		for (; left; k++) {
			uint64_t n =
				left < m.max_request ? left : m.max_request;

			if (k >= r->reads.n || r->reads.v[k]->page != first ||
			    r->reads.v[k]->pages != n)
				*same = false;
			first += n;
			left -= n;
		}
	}
	if (k != r->reads.n)
		*same = false;
	testfs_extents_free(&seen);
	ra_model_free(&m);
	return err;
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
	err = testfs_log_fetched(r->log, s->file, &r->fetched);
	if (!err)
		err = log_fetched_by_cause(r->log, s->file, r->by_cause);
	if (!err)
		err = log_reads(r->log, s->file, &r->reads);
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

static void result_free(struct elf_result *r)
{
	unsigned i;

	elf_image_free(&r->img);
	elf_plan_free(&r->plan);
	elf_run_free(&r->run);
	testfs_log_free(r->log);
	testfs_extents_free(&r->fetched);
	testfs_extents_free(&r->not_fetched);
	for (i = 0; i < NCAUSES; i++)
		testfs_extents_free(&r->by_cause[i]);
	for (i = 0; i < RA_NPOLICIES; i++)
		testfs_extents_free(&r->pred[i]);
	read_list_free(&r->reads);
	free(r->consistent_why);
}

static int elf_startup_run(struct scenario_ctx *ctx)
{
	char path[4096], dir[4200] = "", file[256], why[256];
	struct elf_result *r = calloc(1, sizeof(*r));
	unsigned p;
	int err;
	size_t i;

	if (!r)
		return scenario_fail(ctx, -ENOMEM, "elf-startup");
	err = binary_path(ctx, path, sizeof(path), &r->is_default);
	if (err) {
		free(r);
		return scenario_fail(ctx, err, "the default binary");
	}
	r->path = path;
	err = elf_image_load(path, &r->img, why, sizeof(why));
	if (!err)
		err = elf_plan_build(&r->img,
				     (unsigned)param_u(ctx, "text_stride"),
				     &r->plan);
	if (err) {
		err = scenario_fail(ctx, err, "%s: %s", path,
				    err == -EINVAL ? why : "the plan");
		goto out_free;
	}
	err = stage(ctx, path, dir, sizeof(dir), file, sizeof(file),
		    &r->served);
	if (err)
		goto out_free;
	err = session_start_backing(ctx, &r->s, dir, file, r->img.size,
				    (unsigned)param_u(ctx, "ra"),
				    param_s(ctx, "model"));
	if (err)
		goto out_unstage;
	r->exec_clamp = release_clamps_exec(r->s->kernel);
	session_report_settings(r->s, ctx->rep);
	err = startup_phase(ctx, r);
	for (i = 0; !err && i < r->img.nseg; i++)
		if (r->img.seg[i].npages)
			err = html_vma(ctx, r->s->file,
				       r->img.seg[i].first_page,
				       r->img.seg[i].first_page +
					       r->img.seg[i].npages - 1,
				       r->img.seg[i].prot);
	for (p = 0; p < RA_NPOLICIES && !err; p++)
		err = predict(r, (enum ra_policy)p, &r->pred[p],
			      &r->same_reads[p]);
	if (err) {
		if (!ctx->why[0])
			scenario_fail(ctx, err, "the model");
		goto out_stop;
	}
	elf_report(ctx, r);
out_stop:
	/* Before its directory goes; session_end() reports the status. */
	session_stop(r->s);
out_unstage:
	unstage(dir, file);
out_free:
	result_free(r);
	free(r);
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
	.run = elf_startup_run,
	.check = elf_startup_check,
};
