// SPDX-License-Identifier: MIT
/*
 * testfs-matrix --html FILE: the kernels side by side on one page (the
 * report module's matrix page). Each guest brings back what the page
 * needs and no more: for a scenario, the #data object of the page that
 * `testfs-scenario --html` wrote in the guest (frame "page"); for touch,
 * the daemon's log (frame "testfs-log"), drawn here with the mapping
 * testfs-touch made, which the log does not record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch.h"
#include "jsonv.h"
#include "parse.h"
#include "matrix.h"
#include "outfile.h"
#include "report.h"
#include "strbuf.h"

/* What run.sh serves to testfs-touch: touch.bin:256M. */
#define TOUCH_FILE "touch.bin"
#define TOUCH_PAGES (256ull * 1024 * 1024 / 4096)

int html_check_command(int argc, char **argv)
{
	(void)argc;
	if (strcmp(argv[0], "scenario") == 0 || strcmp(argv[0], "touch") == 0)
		return 0;
	fprintf(stderr,
		"testfs-matrix: --html draws scenario and touch runs; "
		"'%s' is not supported (use --json or --ktap)\n",
		argv[0]);
	return 2;
}

/* The touch run's log, with its file size and mapping, as page data. */
static char *touch_data(const struct matrix *m, const struct run *r, char *why,
			size_t whylen)
{
	uint64_t first = 0, count = 0;
	struct htmlrep h;
	char *data = NULL;
	const char *perr;
	int i, prot = PROT_READ, err;
	FILE *log;

	parse_uint(m->argv[1], 0, UINT64_MAX, &first, &perr);
	parse_uint(m->argv[2], 0, UINT64_MAX, &count, &perr);
	for (i = 3; i < m->argc; i++)
		if (strcmp(m->argv[i], "--exec") == 0)
			prot |= PROT_EXEC;
	htmlrep_init(&h);
	/* fmemopen() may refuse 0 bytes: an empty log is said here. */
	log = *r->log ? fmemopen(r->log, strlen(r->log), "r") : NULL;
	if (log) {
		err = htmlrep_read_jsonl(&h, log, "the guest's log", why,
					 whylen);
		fclose(log);
	} else {
		err = *r->log ? -errno : -ENODATA;
		snprintf(why, whylen, "the guest's log: %s",
			 *r->log ? strerror(-err) : "empty");
	}
	if (!err && htmlrep_file(&h, TOUCH_FILE, TOUCH_PAGES) < 0)
		err = -ENOMEM;
	if (!err && count)
		err = htmlrep_add_vma(&h, TOUCH_FILE, first, first + count - 1,
				      prot);
	if (!err) {
		snprintf(why, whylen, "testfs-touch%s %s %s on %s",
			 prot & PROT_EXEC ? " --exec" : "", m->argv[1],
			 m->argv[2], r->k.release);
		err = htmlrep_set_subtitle(&h, why);
	}
	if (!err)
		data = htmlrep_data(&h);
	else if (err == -ENOMEM || err == -EIO)
		snprintf(why, whylen, "%s", strerror(-err));
	htmlrep_free(&h);
	return data;
}

/*
 * Whether @data is what the page script reads: whole JSON (a frame that
 * passed its length check can still be cut by the guest's own writer)
 * with the arrays it draws from, and nothing that could end <script>.
 */
static bool data_ok(const char *data)
{
	static const char *const arrays[] = { "files",	  "vmas",  "ranges",
					      "accesses", "marks", "verdicts",
					      "notes" };
	struct jv *v;
	bool ok;
	size_t i;

	if (!htmlrep_data_safe(data))
		return false;
	v = jv_parse(data, strlen(data));
	ok = v && v->type == JV_OBJ;
	for (i = 0; ok && i < sizeof(arrays) / sizeof(arrays[0]); i++) {
		const struct jv *a = jv_get(v, arrays[i]);

		ok = a && a->type == JV_ARR;
	}
	jv_free(v);
	return ok;
}

int matrix_html(const struct matrix *m, const struct run *runs, size_t n,
		const char *path)
{
	static const char *const status[] = { "ok", "failed", "skipped" };
	struct htmlrep_kernel *k = calloc(n ? n : 1, sizeof(*k));
	char **owned = calloc(n ? n : 1, sizeof(*owned));
	char(*why)[600] = calloc(n ? n : 1, sizeof(*why));
	char(*rel)[256] = calloc(n ? n : 1, sizeof(*rel));
	struct strbuf title = STRBUF_INIT;
	char *page = NULL;
	size_t i, len = 0;
	FILE *f;
	int err = -ENOMEM, j;

	if (!k || !owned || !why || !rel)
		goto out;
	strbuf_adds(&title, "testfs-matrix:");
	for (j = 0; j < m->argc; j++)
		strbuf_addf(&title, " %s", m->argv[j]);
	for (i = 0; i < n; i++) {
		const struct run *r = &runs[i];
		char arch[64];

		/* Each kernel's architecture and page size beside it. */
		arch_describe(&r->k, arch, sizeof(arch));
		snprintf(rel[i], sizeof(rel[i]), "%s%s%s%s", r->k.release,
			 arch[0] ? " (" : "", arch, arch[0] ? ")" : "");
		k[i].label = r->k.spec;
		k[i].release = rel[i];
		k[i].status = status[r->status];
		k[i].reason = r->reason;
		if (r->status != RUN_OK)
			continue;
		if (r->log)
			owned[i] = touch_data(m, r, why[i], sizeof(why[i]));
		k[i].data = owned[i] ? owned[i] : r->page;
		if (!data_ok(k[i].data)) {
			k[i].data = NULL;
			k[i].status = "not drawn";
			if (!why[i][0])
				snprintf(why[i], sizeof(why[i]), "%s",
					 "the guest brought back no page "
					 "data (or garbled data)");
			k[i].reason = why[i];
		}
	}
	f = open_memstream(&page, &len);
	if (!f)
		goto out;
	err = htmlrep_write_matrix(f, title.oom ? "testfs-matrix" : title.data,
				   "the same command on each kernel; page "
				   "maps on the same scale",
				   k, n);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err)
		err = outfile_write(path, page, len);
out:
	if (err)
		fprintf(stderr, "testfs-matrix: --html %s: %s\n", path,
			strerror(-err));
	for (i = 0; owned && i < n; i++)
		free(owned[i]);
	free(owned);
	free(why);
	free(rel);
	free(k);
	free(page);
	strbuf_free(&title);
	return err ? 1 : 0;
}
