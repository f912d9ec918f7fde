// SPDX-License-Identifier: MIT
/*
 * What scenarios read off a log snapshot: the reads of a file, pages by
 * cause, and how they go into the report and the page map. Also the
 * progress line and small formatting helpers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "scenario.h"

int log_reads(const struct testfs_log *log, const char *name,
	      struct read_list *out)
{
	size_t i, n = testfs_log_count(log);

	out->n = 0;
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct testfs_record *r = testfs_log_at(log, i);

		if (r->kind == TESTFS_RECORD_READ && !r->direct && r->file &&
		    strcmp(r->file, name) == 0)
			out->v[out->n++] = r;
	}
	return 0;
}

uint64_t read_list_usual_pages(const struct read_list *reads, uint64_t *count)
{
	uint64_t best = 0, best_n = 0;
	size_t i, j;

	for (i = 0; i < reads->n; i++) {
		uint64_t n = 0;

		if (reads->v[i]->pages == best)
			continue;
		for (j = i; j < reads->n; j++)
			n += reads->v[j]->pages == reads->v[i]->pages;
		if (n > best_n) {
			best_n = n;
			best = reads->v[i]->pages;
		}
		if (best_n > reads->n / 2)
			break;
	}
	if (count)
		*count = best_n;
	return best;
}

void read_list_free(struct read_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int log_fetched_by_cause(const struct testfs_log *log, const char *name,
			 struct testfs_extents out[NCAUSES])
{
	size_t i, n = testfs_log_count(log);
	int err = 0;

	for (i = 0; i < NCAUSES; i++)
		testfs_extents_free(&out[i]);
	for (i = 0; i < n && !err; i++) {
		const struct testfs_record *r = testfs_log_at(log, i);
		unsigned c;

		if (r->kind != TESTFS_RECORD_READ || !r->file ||
		    strcmp(r->file, name) ||
		    !an_fetches(r->pages, r->err != 0, r->direct))
			continue;
		c = (unsigned)r->cause < NCAUSES ? (unsigned)r->cause : 0;
		err = testfs_extents_add(&out[c], r->page,
					 r->page + r->pages - 1);
	}
	return err;
}

static int model_predicted(const struct ra_model *m,
			   const struct read_list *reads,
			   struct testfs_extents *out, bool *same)
{
	size_t i, k = 0;
	int err = 0;

	*same = true;
	for (i = 0; i < m->nwindows && !err; i++) {
		uint64_t first = m->windows[i].first,
			 left = m->windows[i].pages;

		if (!left)
			continue;
		err = testfs_extents_add(out, first, first + left - 1);
		for (; left; k++) {
			uint64_t n =
				left < m->max_request ? left : m->max_request;

			if (k >= reads->n || reads->v[k]->page != first ||
			    reads->v[k]->pages != n)
				*same = false;
			first += n;
			left -= n;
		}
	}
	if (k != reads->n)
		*same = false;
	return err;
}

/* The model of @s's file, read-ahead window and request size. */
int session_ra_model(const struct session *s, enum ra_policy policy,
		     struct ra_model *m)
{
	int err = ra_model_init(m, s->file_pages, s->ra_pages, s->max_pages,
				policy);

	/* The scenario runs on the kernel it models: its page size and
	 * release */
	if (!err) {
		ra_model_set_page_size(m, (uint32_t)sysconf(_SC_PAGESIZE));
		ra_model_set_release(m, s->kernel);
	}
	return err;
}

int session_predict(const struct session *s, enum ra_policy policy,
		    int (*drive)(struct ra_model *m, const void *arg),
		    const void *arg, const struct read_list *reads,
		    struct testfs_extents *out, bool *same)
{
	struct ra_model m;
	int err;

	err = session_ra_model(s, policy, &m);
	if (err)
		return err;
	err = drive(&m, arg);
	if (!err)
		err = model_predicted(&m, reads, out, same);
	ra_model_free(&m);
	return err;
}

int log_file_view(const struct testfs_log *log, const char *name,
		  struct testfs_extents *fetched,
		  struct testfs_extents by_cause[NCAUSES],
		  struct read_list *reads)
{
	int err = 0;

	if (fetched)
		err = testfs_log_fetched(log, name, fetched);
	if (!err && by_cause)
		err = log_fetched_by_cause(log, name, by_cause);
	if (!err && reads)
		err = log_reads(log, name, reads);
	return err;
}

void extents_free_n(struct testfs_extents *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		testfs_extents_free(&v[i]);
}

uint64_t extents_pages_in(const struct testfs_extents *e, uint64_t first,
			  uint64_t last)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < e->n; i++) {
		uint64_t a = e->v[i].first > first ? e->v[i].first : first;
		uint64_t b = e->v[i].last < last ? e->v[i].last : last;

		if (a <= b)
			n += b - a + 1;
	}
	return n;
}

int log_accessed(const struct testfs_log *log, const char *name,
		 enum testfs_access_type type, struct testfs_extents *out)
{
	size_t i, n = testfs_log_access_count(log);
	int err = 0;

	testfs_extents_free(out);
	for (i = 0; i < n && !err; i++) {
		const struct testfs_access *a = testfs_log_access_at(log, i);

		if (a && a->type == type && a->file &&
		    strcmp(a->file, name) == 0 && a->first <= a->last)
			err = testfs_extents_add(out, a->first, a->last);
	}
	return err;
}

void report_usage(struct rnode *parent, const struct testfs_log *log,
		  const char *name)
{
	struct testfs_usage u = TESTFS_USAGE_INIT;
	struct rnode *obj;

	if (!testfs_log_traced(log) || testfs_log_usage(log, name, &u, NULL))
		return;
	obj = rep_obj(parent, "usage", "use of the fetched pages (tracing)");
	rep_uint(obj, "fetched", NULL, u.fetched, "pages");
	rep_uint(obj, "accessed", "accessed by faults or read(2)", u.accessed,
		 "pages");
	rep_uint(obj, "mapped", "mapped by fault-around only", u.mapped,
		 "pages");
	rep_uint(obj, "wasted", "wasted (never accessed nor mapped)", u.wasted,
		 "pages");
	rep_uint(obj, "late_accesses", "accesses that waited for a read",
		 u.late_accesses, NULL);
}

static void window_row(struct rnode *table, const struct testfs_window *w)
{
	struct rnode *row = rep_row(table);

	rep_uint(row, "id", "window", w->id, NULL);
	rep_str(row, "cause", NULL, "%s", testfs_cause_name(w->cause));
	if (w->trigger_page == TESTFS_NO_PAGE)
		rep_str(row, "trigger", NULL, "-");
	else
		rep_uint(row, "trigger", NULL, w->trigger_page, NULL);
	rep_uint(row, "start", NULL, w->start, NULL);
	rep_uint(row, "size", NULL, w->size, NULL);
	rep_uint(row, "async_size", "async", w->async_size, NULL);
	if (w->marker == TESTFS_NO_PAGE)
		rep_str(row, "marker", NULL, "-");
	else
		rep_uint(row, "marker", NULL, w->marker, NULL);
	rep_uint(row, "pages", "read", w->pages, NULL);
	rep_uint(row, "requests", "reads", w->requests, NULL);
}

void report_windows(struct rnode *parent, const struct testfs_log *log,
		    const char *name, size_t head, size_t tail)
{
	size_t n = testfs_log_window_count(log), i, k = 0, total = 0;
	const struct testfs_window **v;
	struct rnode *table;

	if (!n)
		return;
	v = calloc(n, sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < n; i++) {
		const struct testfs_window *w = testfs_log_window_at(log, i);

		if (w && w->file && strcmp(w->file, name) == 0)
			v[total++] = w;
	}
	rep_text(parent, "windows_note",
		 "Readahead windows, from kernel tracing: trigger is the page "
		 "whose access started the window, marker the page whose "
		 "access will start the next one (start + size - async).");
	table = rep_table(parent, "windows", "readahead windows");
	rep_text_only(table);
	for (i = 0; i < total; i++) {
		if (i < head || i + tail >= total)
			window_row(table, v[i]);
		else if (!k++) {
			rep_str(parent, "windows_omitted", "windows not shown",
				"%zu", total - head - tail);
			rep_text_only(rep_last(parent));
		}
	}
	/* JSON: every window. */
	table = rep_table(parent, "windows", NULL);
	rep_json_only(table);
	for (i = 0; i < total; i++)
		window_row(table, v[i]);
	free(v);
}

void report_requests(struct rnode *parent, const struct read_list *reads,
		     size_t max)
{
	struct rnode *list = rep_list(parent, "request_list",
				      "requests (first page,pages[,cause])");
	struct rnode *table;
	size_t i;

	/* Text: the first @max as "(page,pages,cause)". */
	rep_text_only(list);
	for (i = 0; i < reads->n && i < max; i++) {
		const struct testfs_record *r = reads->v[i];

		if (r->cause == TESTFS_CAUSE_UNKNOWN)
			rep_str(list, NULL, NULL, "(%llu,%llu)",
				(unsigned long long)r->page,
				(unsigned long long)r->pages);
		else
			rep_str(list, NULL, NULL, "(%llu,%llu,%s)",
				(unsigned long long)r->page,
				(unsigned long long)r->pages,
				testfs_cause_name(r->cause));
	}
	if (reads->n > max)
		rep_str(list, NULL, NULL, "... %zu more", reads->n - max);
	/* JSON: every read, {"page":..,"pages":..,"cause":..|null}. */
	table = rep_table(parent, "request_list", NULL);
	rep_json_only(table);
	for (i = 0; i < reads->n; i++) {
		const struct testfs_record *r = reads->v[i];
		struct rnode *row = rep_row(table);

		rep_uint(row, "page", NULL, r->page, NULL);
		rep_uint(row, "pages", NULL, r->pages, NULL);
		if (r->cause == TESTFS_CAUSE_UNKNOWN)
			rep_null(row, "cause", NULL, "unknown");
		else
			rep_str(row, "cause", NULL, "%s",
				testfs_cause_name(r->cause));
	}
}

void report_causes(struct rnode *parent, const struct session *s,
		   const struct testfs_log *log,
		   const struct testfs_extents by_cause[NCAUSES])
{
	struct rnode *obj;
	unsigned c;

	if (!testfs_log_traced(log)) {
		const char *why = s->trace_why[0] ? s->trace_why : NULL;

		if (s->tracing > 0)
			why = "the log carries no kernel events";
		rep_bool(parent, "causes_available", "causes available", false);
		rep_str(parent, "causes", NULL, "not available (%s)",
			why ? why : "tracing off");
		return;
	}
	rep_bool(parent, "causes_available", "causes available", true);
	obj = rep_obj(parent, "causes", "pages fetched by cause");
	for (c = 0; c < NCAUSES; c++)
		if (by_cause[c].pages)
			rep_uint(obj, testfs_cause_name((enum testfs_cause)c),
				 NULL, by_cause[c].pages, "pages");
}

void pagemap_fetched_rows(struct pagemap *m,
			  const struct testfs_extents by_cause[NCAUSES])
{
	/* '@', not '#': '#' is "touched" in the maps. */
	static const char full[NCAUSES] = { '@', 'S', 'A', 'R', 'F', '1', 'D' };
	static const char part[NCAUSES] = { '+', 's', 'a', 'r', 'f', '1', 'd' };
	static const char *const meaning[NCAUSES] = {
		"fetched (no cause known)",  "fetched: sync readahead",
		"fetched: async readahead",  "fetched: mmap read-around",
		"fetched: forced readahead", "fetched alone (no readahead)",
		"read with O_DIRECT",
	};
	char label[PAGEMAP_LABEL + 1];
	unsigned c;
	bool known = false;

	for (c = 0; c < NCAUSES; c++) {
		if (!extents_pages_in(&by_cause[c], m->first, m->last))
			continue;
		snprintf(label, sizeof(label), "%s",
			 c ? testfs_cause_name((enum testfs_cause)c)
			   : "fetched");
		pagemap_row_set(m, label, &by_cause[c], full[c], part[c]);
		pagemap_legend(m, full[c], meaning[c]);
		if (c)
			known = true;
		else
			pagemap_legend(m, '+', "fetched, part of the column");
	}
	if (known)
		pagemap_legend(m, 0,
			       "lower case: the same, part of the "
			       "column");
}

/* uname -r of the kernel the scenario runs on ("" until a session). */
static char verdict_kernel[128];

void report_verdict_kernel(const char *release)
{
	snprintf(verdict_kernel, sizeof(verdict_kernel), "%s",
		 release ? release : "");
}

struct rnode *report_verdicts(struct report *rep)
{
	struct rnode *sec =
		rep_section(rep, "verdicts", "Verdicts per readahead policy");
	int carried = ra_policy_of_release(verdict_kernel);

	rep_str(sec, "kernel", "observed on kernel", "%s",
		verdict_kernel[0] ? verdict_kernel : "unknown");
	if (carried >= 0) {
		rep_str(sec, "kernel_policy",
			"policy this kernel carries (testfs lab kernel)", "%s",
			ra_policy_name((enum ra_policy)carried));
		rep_text(sec, "kernel_note",
			 "This is a testfs lab kernel built with the %s "
			 "policy: its verdict row is the one the observation "
			 "must match; the other rows say what the other "
			 "policies would have done instead.",
			 ra_policy_name((enum ra_policy)carried));
	}
	return sec;
}

struct rnode *report_verdict(struct rnode *table, const char *policy,
			     const char *expected, const char *observed,
			     const char *verdict)
{
	struct rnode *row = rep_row(table);

	rep_str(row, "policy", NULL, "%s", policy);
	rep_str(row, "verdict", NULL, "%s", verdict);
	rep_str(row, "expected", NULL, "%s", expected);
	rep_str(row, "observed", NULL, "%s", observed);
	rep_str(row, "kernel", NULL, "%s", verdict_kernel);
	rep_json_only(rep_last(row));
	report_keep_verdict(policy, expected, observed, verdict);
	return row;
}

void verdict_policy(struct rnode *row, enum ra_policy policy)
{
	rep_str(row, "model", NULL, "%s", ra_policy_name(policy));
	rep_json_only(rep_last(row));
	rep_bool(row, "kernel_carries", NULL,
		 ra_policy_of_release(verdict_kernel) == (int)policy);
	rep_json_only(rep_last(row));
}

void verdict_num(struct rnode *row, const char *key, uint64_t v)
{
	rep_uint(row, key, NULL, v, NULL);
	rep_json_only(rep_last(row));
}

/* ------------------------------------------------------------------ */
/* Progress and helpers                                                */
/* ------------------------------------------------------------------ */

static int progress_tty = -1;
static bool progress_shown;

void progress(const char *fmt, ...)
{
	static const char prefix[] = "testfs-scenario: ";
	char line[REPORT_COLUMNS + 1];
	size_t width, n;
	va_list ap;

	if (progress_tty < 0)
		progress_tty = isatty(STDERR_FILENO);
	/* At most 100 columns, the prefix included (99 on a terminal, so
	 * the cursor stays on the line); "..." marks a cut. */
	width = progress_tty ? REPORT_COLUMNS - 1
			     : REPORT_COLUMNS - (sizeof(prefix) - 1);
	va_start(ap, fmt);
	n = (size_t)vsnprintf(line, width + 1, fmt, ap);
	va_end(ap);
	if (n > width)
		memcpy(line + width - 3, "...", 4);
	if (progress_tty)
		fprintf(stderr, "\r\033[K%s", line);
	else
		fprintf(stderr, "%s%s\n", prefix, line);
	fflush(stderr);
	progress_shown = true;
}

void progress_end(void)
{
	if (progress_tty > 0 && progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	progress_shown = false;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double mb_per_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0;
}

const char *size_text(uint64_t bytes, char *buf, size_t size)
{
	static const char suffix[] = "KMGTPE";
	unsigned i = 0;

	if (!bytes || bytes % 1024) {
		snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
		return buf;
	}
	bytes /= 1024;
	while (bytes % 1024 == 0 && bytes && i < 5) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, size, "%llu %ciB", (unsigned long long)bytes, suffix[i]);
	return buf;
}
