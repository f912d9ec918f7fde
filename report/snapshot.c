// SPDX-License-Identifier: MIT
/*
 * A libtestfs log snapshot into the page's model: what testfs-scenario
 * --html draws, from the same records its text report is made of.
 */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include <testfs.h>

static long file_of(struct htmlrep *r, const char *name)
{
	return htmlrep_file(r, name && *name ? name : "?", 0);
}

static int add_read(struct htmlrep *r, const struct testfs_record *rec)
{
	struct htmlrep_range g;
	long f;

	if (!rec->pages)
		return 0;
	f = file_of(r, rec->file);
	if (f < 0)
		return (int)f;
	memset(&g, 0, sizeof(g));
	g.seq = rec->seq;
	g.file = (size_t)f;
	g.first = rec->page;
	g.pages = rec->pages;
	snprintf(g.cause, sizeof(g.cause), "%s",
		 rec->direct ? "direct" : testfs_cause_name(rec->cause));
	g.window = rec->window;
	g.ra_start = rec->ra_start;
	g.ra_size = rec->ra_size;
	g.ra_async = rec->ra_async;
	g.marker = rec->ra_marker;
	g.trigger = rec->trigger_page;
	g.t_ns = rec->t_ns;
	g.done_ns = rec->done_ns;
	g.delay_ns = rec->delay_ns;
	g.err = rec->err;
	g.late = rec->late;
	g.ra_pages = rec->ra_pages;
	g.by_read = rec->by_read;
	return htmlrep_add_range(r, &g);
}

static const char *access_name(enum testfs_access_type type)
{
	static const char *const names[] = {
		[TESTFS_ACCESS_FAULT] = "fault",
		[TESTFS_ACCESS_READ] = "read",
		[TESTFS_ACCESS_MAP] = "map",
	};

	if ((unsigned)type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}

static int add_access(struct htmlrep *r, const struct testfs_access *a)
{
	struct htmlrep_access h;
	long f = file_of(r, a->file);

	if (f < 0)
		return (int)f;
	memset(&h, 0, sizeof(h));
	h.file = (size_t)f;
	snprintf(h.type, sizeof(h.type), "%s", access_name(a->type));
	h.first = a->first;
	h.pages = a->last - a->first + 1;
	h.t_ns = a->t_ns;
	h.end_ns = a->end_ns < a->t_ns ? a->t_ns : a->end_ns;
	h.events = a->events;
	h.late = a->late;
	return htmlrep_add_access(r, &h);
}

int htmlrep_add_snapshot(struct htmlrep *r, const struct testfs_log *log)
{
	size_t i, n = testfs_log_count(log);
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct testfs_record *rec = testfs_log_at(log, i);

		if (rec->kind == TESTFS_RECORD_READ)
			err = add_read(r, rec);
		else if (rec->kind == TESTFS_RECORD_MARK)
			err = htmlrep_add_mark(r, rec->seq, rec->t_ns,
					       rec->mark ? rec->mark : "");
	}
	n = testfs_log_access_count(log);
	for (i = 0; i < n && !err; i++)
		err = add_access(r, testfs_log_access_at(log, i));
	r->lost += testfs_log_lost(log);
	return err;
}
