// SPDX-License-Identifier: MIT
/*
 * Rendering of the readable control files: log, log.bin, config, stats,
 * error (named in protocol/control_dir.h, which also lists the config
 * members clients rely on).
 */
#include "control.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "clock.h"
#include "json.h"
#include "knobs.h"
#include "correlate.h"
#include "usage.h"
#include "log_json.h"
#include "delay_queue.h"
#include "rules.h"
#include "backing.h"

#ifndef TESTFS_VERSION
#define TESTFS_VERSION "unknown"
#endif

struct render_ctx {
	struct testfs *t;
	struct strbuf *sb;
	uint64_t count;
	uint64_t lost;
};

static const char *name_of(struct testfs *t, uint64_t ino)
{
	struct node *n = fileset_get(&t->files, ino);

	return n ? n->path : "";
}

static void json_visit(void *arg, const struct log_record *rec)
{
	struct render_ctx *c = arg;

	const char *file = NULL;

	if (rec->kind == LOG_READ)
		file = name_of(c->t, rec->read.ino);
	else if (rec->kind == LOG_ACCESS || rec->kind == LOG_FOLIO)
		file = name_of(c->t, rec->access.ino);
	log_json_record(c->sb, rec, file, c->t->page_size);
	c->count++;
}

static void json_lost(void *arg, uint64_t first_seq, uint64_t count)
{
	struct render_ctx *c = arg;

	log_json_lost(c->sb, first_seq, count);
	c->lost += count;
}

static void bin_visit(void *arg, const struct log_record *rec)
{
	struct render_ctx *c = arg;

	strbuf_add(c->sb, rec, sizeof(*rec));
	c->count++;
}

static void bin_lost(void *arg, uint64_t first_seq, uint64_t count)
{
	struct render_ctx *c = arg;

	(void)first_seq;
	c->lost += count;
}

static void render_log_bin(struct testfs *t, struct strbuf *sb)
{
	struct log_bin_header hdr;
	struct render_ctx c = { t, sb, 0, 0 };
	uint64_t done = testfs_correlate_sync(t);
	uint64_t from = atomic_load(&t->log.clear_pos);

	memset(&hdr, 0, sizeof(hdr));
	strbuf_add(sb, &hdr, sizeof(hdr));
	log_ring_walk_range(&t->log, from, done, UINT64_MAX, bin_visit,
			    bin_lost, &c);
	if (sb->oom)
		return;
	memcpy(hdr.magic, LOG_BIN_MAGIC, 8);
	hdr.version = LOG_BIN_VERSION;
	hdr.record_size = sizeof(struct log_record);
	hdr.count = c.count;
	hdr.lost = c.lost;
	hdr.first_seq = from + 1;
	hdr.next_seq = log_ring_head(&t->log) + 1;
	hdr.page_size = t->page_size;
	hdr.flags = t->corr ? LOG_BIN_TRACED : 0;
	if (t->corr && correlator_traces_reads(t->corr))
		hdr.flags |= LOG_BIN_TRACE_READS;
	if (t->corr && correlator_traces_folios(t->corr))
		hdr.flags |= LOG_BIN_TRACE_FOLIOS;
	if (t->corr && correlator_traces_folios(t->corr) &&
	    !correlator_traces_all_folios(t->corr))
		hdr.flags |= LOG_BIN_FOLIOS_LARGE;
	if (t->corr && !correlator_causes(t->corr, NULL, 0))
		hdr.flags |= LOG_BIN_NO_CAUSES;
	hdr.flags |= LOG_BIN_UNIQUE;
	memcpy(sb->data, &hdr, sizeof(hdr));
}

static void add_knob(struct strbuf *sb, const char *key, int64_t requested,
		     int64_t effective)
{
	strbuf_addf(sb, "\"%s\":{\"requested\":", key);
	if (requested == OPT_UNSET)
		strbuf_adds(sb, "null");
	else
		strbuf_addf(sb, "%lld", (long long)requested);
	strbuf_adds(sb, ",\"effective\":");
	if (effective < 0)
		strbuf_adds(sb, "null");
	else
		strbuf_addf(sb, "%lld", (long long)effective);
	strbuf_adds(sb, "},");
}

/* "trace":{"on":..,"why":..,"tracer":..}: whether causes are filled. */
static void render_trace_config(struct testfs *t, struct strbuf *sb)
{
	char desc[1024], why[256];
	bool on;

	if (!atomic_load(&t->trace_decided)) {
		strbuf_adds(sb, "{\"on\":false,\"why\":\"not started yet\"}");
		return;
	}
	if (!t->corr) {
		strbuf_adds(sb, "{\"on\":false,\"why\":");
		json_add_cstring(sb, t->trace_why);
		strbuf_adds(sb, "}");
		return;
	}
	correlator_describe(t->corr, desc, sizeof(desc));
	strbuf_addf(sb,
		    "{\"on\":true,\"why\":\"\",\"reads\":%s,\"folios\":\"%s\","
		    "\"tracer\":",
		    correlator_traces_reads(t->corr) ? "true" : "false",
		    !correlator_traces_folios(t->corr)	    ? "none"
		    : correlator_traces_all_folios(t->corr) ? "all"
							    : "large");
	json_add_cstring(sb, desc);
	/* Tracing on, causes unknown: the kernel's events cannot prove them. */
	on = correlator_causes(t->corr, why, sizeof(why));
	strbuf_addf(sb,
		    ",\"causes\":%s,\"causes_why\":", on ? "true" : "false");
	json_add_cstring(sb, why);
	strbuf_adds(sb, "}");
}

static const char *usage_name(void *ctx, uint64_t ino)
{
	return name_of(ctx, ino);
}

/* "trace":{counters},"files":{...},"histograms":{...} */
static void render_trace_stats(struct testfs *t, struct strbuf *sb)
{
	struct correlator_stats cs;
	unsigned i;

	testfs_correlate_sync(t);
	if (t->corr) {
		correlator_get_stats(t->corr, &cs);
		strbuf_addf(
			sb,
			"\"trace\":{\"on\":true,\"events\":%" PRIu64
			",\"events_lost\":%" PRIu64 ",\"batches\":%" PRIu64
			",\"windows\":%" PRIu64 ",\"access_records\":%" PRIu64
			",\"access_events\":%" PRIu64
			",\"late_accesses\":%" PRIu64 ",\"late_reads\":%" PRIu64
			",\"given_up\":%" PRIu64 ",\"flush_timeouts\":%" PRIu64
			",\"decision_gaps\":%" PRIu64
			",\"read_prefixes\":%" PRIu64 ",\"reads_by_cause\":{",
			cs.events, cs.events_lost, cs.batches, cs.windows,
			cs.access_records, cs.access_events, cs.late_accesses,
			cs.late_reads, cs.given_up, cs.flush_timeouts,
			cs.decision_gaps, cs.read_prefixes);
		for (i = 0; i < LOG_CAUSE_COUNT; i++)
			strbuf_addf(sb, "%s\"%s\":%" PRIu64, i ? "," : "",
				    log_cause_name(i), cs.reads_by_cause[i]);
		strbuf_adds(sb, "}},");
	} else {
		strbuf_adds(sb, "\"trace\":{\"on\":false},");
	}
	usage_render(&t->log, atomic_load(&t->log.clear_pos), t->page_size,
		     t->corr != NULL,
		     t->corr && correlator_traces_reads(t->corr),
		     t->corr && correlator_causes(t->corr, NULL, 0), usage_name,
		     t, sb);
}

/*
 * "backing":null, or {"dir":..,"io":"io_uring","registered_buffers":B,
 * "files":N,"direct":N,"buffered":N,"uring_reads":N,"sync_reads":N,
 * "direct_fallbacks":N}: how the backing files are read.
 */
static void render_backing_config(struct testfs *t, struct strbuf *sb)
{
	struct backing_counters c;
	uint64_t files = 0, direct = 0;
	size_t i;

	if (!t->opts->backing) {
		strbuf_adds(sb, "null");
		return;
	}
	for (i = 0; i < t->files.count; i++) {
		struct node *n = &t->files.nodes[i];

		if (n->kind == NODE_FILE && n->backing_fd >= 0) {
			files++;
			direct += atomic_load(&n->direct);
		}
	}
	backing_counters(&c);
	strbuf_adds(sb, "{\"dir\":");
	json_add_cstring(sb, t->opts->backing);
	strbuf_addf(
		sb,
		",\"io\":\"io_uring\",\"registered_buffers\":%s,"
		"\"files\":%" PRIu64 ",\"direct\":%" PRIu64
		",\"buffered\":%" PRIu64 ",\"uring_reads\":%" PRIu64
		",\"sync_reads\":%" PRIu64 ",\"direct_fallbacks\":%" PRIu64 "}",
		c.registered ? "true" : "false", files, direct, files - direct,
		c.uring_reads, c.sync_reads, c.direct_fallbacks);
}

/* "transport":"dev"|"uring","transport_requested":..., with the rings. */
static void render_transport_config(struct testfs *t, struct strbuf *sb)
{
	const struct testfs_transport *tr = &t->transport;

	strbuf_addf(sb,
		    "\"transport\":\"%s\",\"transport_requested\":\"%s\","
		    "\"uring_queues\":%u,\"uring_threads\":%u,"
		    "\"uring_entries\":%u,\"transport_note\":",
		    tr->uring ? "uring" : "dev",
		    t->opts->transport == OPT_TRANSPORT_URING ? "uring" : "dev",
		    tr->queues, tr->threads, tr->entries);
	if (tr->note[0])
		json_add_cstring(sb, tr->note);
	else
		strbuf_adds(sb, "null");
	strbuf_adds(sb, ",");
}

static void render_config(struct testfs *t, struct strbuf *sb)
{
	const struct options *o = t->opts;
	char pattern[64];
	struct utsname u;
	bool first = true;
	size_t i;

	knobs_refresh(t);
	if (uname(&u) != 0)
		strcpy(u.release, "unknown");
	strbuf_adds(sb, "{\"version\":");
	json_add_cstring(sb, TESTFS_VERSION);
	strbuf_adds(sb, ",\"mountpoint\":");
	json_add_cstring(sb, t->mountpoint);
	/* The serving process (after a fork into the background). */
	strbuf_addf(sb, ",\"pid\":%d", (int)getpid());
	strbuf_addf(sb, ",\"bdi\":\"%s\",\"page_size\":%u,\"kernel\":",
		    t->knobs.bdi, t->page_size);
	json_add_cstring(sb, u.release);
	strbuf_adds(sb, ",");
	/* The ra-kb command replaces the option's request. */
	add_knob(sb, "ra_kb",
		 t->knobs.ra_kb_set ? t->knobs.ra_kb_requested : o->ra_kb,
		 t->knobs.ra_kb);
	add_knob(sb, "max_pages", o->max_pages, t->knobs.max_pages);
	add_knob(sb, "max_background", o->max_background,
		 t->knobs.max_background);
	add_knob(sb, "congestion_threshold", o->congestion_threshold,
		 t->knobs.congestion_threshold);
	strbuf_addf(
		sb,
		"\"max_pages_limit\":%lld,\"keep_cache\":true,\"auto_inval_data\":false,\"threads\":%u,",
		(long long)t->knobs.max_pages_limit, t->threads);
	render_transport_config(t, sb);
	strbuf_addf(sb, "\"log_capacity\":%" PRIu64 ",\"log_path\":",
		    t->log.capacity);
	if (o->log_path)
		json_add_cstring(sb, o->log_path);
	else
		strbuf_adds(sb, "null");
	strbuf_adds(sb, ",\"slow\":");
	rules_format_json(t->rules, sb);
	strbuf_adds(sb, ",\"trace\":");
	render_trace_config(t, sb);
	strbuf_adds(sb, ",\"backing\":");
	render_backing_config(t, sb);
	strbuf_adds(sb, ",\"note\":");
	json_add_cstring(sb, t->knobs.note);
	strbuf_addf(sb, ",\"default_files\":%s,\"files\":[",
		    o->default_files ? "true" : "false");
	for (i = 0; i < t->files.count; i++) {
		const struct node *n = &t->files.nodes[i];

		if (n->kind != NODE_FILE)
			continue;
		testfs_pattern_format(&n->pattern, pattern, sizeof(pattern));
		strbuf_adds(sb, first ? "{\"name\":" : ",{\"name\":");
		first = false;
		json_add_cstring(sb, n->path);
		strbuf_addf(sb, ",\"ino\":%" PRIu64 ",\"size\":%" PRIu64,
			    n->ino, n->size);
		/* A backing file has no pattern: say how it is read. */
		if (n->backing_fd >= 0)
			strbuf_addf(sb, ",\"backing\":\"%s\"}",
				    atomic_load(&n->direct) ? "direct"
							    : "buffered");
		else
			strbuf_addf(sb, ",\"pattern\":\"%s\"}", pattern);
	}
	strbuf_adds(sb, "]}\n");
}

static uint64_t ld(_Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static void render_stats(struct testfs *t, struct strbuf *sb)
{
	struct testfs_stats *s = &t->stats;
	uint64_t head = log_ring_head(&t->log);
	uint64_t clear = atomic_load(&t->log.clear_pos);
	struct log_order_stats os;

	strbuf_addf(
		sb,
		"{\"reads\":%" PRIu64 ",\"read_bytes\":%" PRIu64
		",\"reads_past_eof\":%" PRIu64 ",\"errors_injected\":%" PRIu64
		",\"records\":%" PRIu64 ",\"records_since_clear\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"log_file_lost\":%" PRIu64
		",\"log_capacity\":%" PRIu64 ",\"marks\":%" PRIu64
		",\"clears\":%" PRIu64 ",\"drop_caches\":%" PRIu64
		",\"ctl_commands\":%" PRIu64 ",\"ctl_rejected\":%" PRIu64
		",\"uptime_ns\":%" PRIu64 ",\"dev_requests\":%" PRIu64
		",\"dev_reads\":%" PRIu64 ",\"uring_requests\":%" PRIu64
		",\"uring_reads\":%" PRIu64 ",\"delayed_now\":%zu,\"held\":",
		ld(&s->reads), ld(&s->read_bytes), ld(&s->reads_past_eof),
		rules_errors_injected(t->rules), head, head - clear,
		log_ring_lost_since_clear(&t->log),
		t->writer ? log_writer_lost(t->writer) : 0, t->log.capacity,
		ld(&s->marks), ld(&s->clears), ld(&s->drop_caches),
		ld(&s->ctl_commands), ld(&s->ctl_rejected),
		clock_now_ns() - t->started_ns, ld(&s->dev_requests),
		ld(&s->dev_reads), ld(&s->uring_requests), ld(&s->uring_reads),
		t->delays ? delay_queue_pending(t->delays) : (size_t)0);
	delay_queue_format_held(t->delays, sb, usage_name, t);
	if (t->order) {
		log_order_stats(t->order, &os);
		strbuf_addf(sb,
			    ",\"order_gaps\":%" PRIu64
			    ",\"order_late\":%" PRIu64
			    ",\"order_waiting\":%" PRIu64,
			    os.gaps, os.late, os.waiting);
	}
	strbuf_adds(sb, ",\"slow\":");
	rules_format_json(t->rules, sb);
	strbuf_adds(sb, ",");
	render_trace_stats(t, sb);
	strbuf_adds(sb, "}\n");
}

static void release_snapshot(struct testfs *t, struct handle_link *link)
{
	control_snapshot_free(
		t, container_of(link, struct control_snapshot, link));
}

int control_snapshot(struct testfs *t, const struct node *n,
		     struct control_snapshot **out)
{
	struct strbuf sb = STRBUF_INIT;
	struct control_snapshot *snap;
	uint64_t done;

	snap = calloc(1, sizeof(*snap));
	if (!snap)
		return -ENOMEM;
	pthread_mutex_init(&snap->lock, NULL);
	testfs_track(t, &snap->link, release_snapshot);
	switch (n->control) {
	case CONTROL_LOG:
		done = testfs_correlate_sync(t);
		snap->stream = true;
		snap->start_pos = atomic_load(&t->log.clear_pos);
		snap->next_pos = snap->start_pos;
		snap->end_pos = log_ring_head(&t->log);
		if (done < snap->end_pos)
			snap->end_pos = done;
		*out = snap;
		return 0;
	case CONTROL_LOG_BIN:
		render_log_bin(t, &sb);
		break;
	case CONTROL_CONFIG:
		pthread_mutex_lock(&t->ctl_lock);
		render_config(t, &sb);
		pthread_mutex_unlock(&t->ctl_lock);
		break;
	case CONTROL_STATS:
		render_stats(t, &sb);
		break;
	case CONTROL_ERROR:
		pthread_mutex_lock(&t->ctl_lock);
		if (t->error[0])
			strbuf_addf(&sb, "%s\n", t->error);
		pthread_mutex_unlock(&t->ctl_lock);
		break;
	default:
		break;
	}
	if (sb.oom) {
		strbuf_free(&sb);
		control_snapshot_free(t, snap);
		return -ENOMEM;
	}
	snap->data = strbuf_detach(&sb, &snap->len);
	*out = snap;
	return 0;
}

/* Records rendered per step of a streamed log. */
#define STREAM_STEP 512

static void stream_read(struct testfs *t, struct control_snapshot *snap,
			uint64_t off, size_t size, const char **data,
			size_t *len)
{
	struct render_ctx c = { t, &snap->buf, 0, 0 };
	size_t drop;

	if (off < snap->base_off) {
		strbuf_reset(&snap->buf);
		snap->next_pos = snap->start_pos;
		snap->base_off = 0;
	}
	while (snap->base_off + snap->buf.len < off + size &&
	       snap->next_pos < snap->end_pos && !snap->buf.oom) {
		uint64_t pos = log_ring_walk_range(&t->log, snap->next_pos,
						   snap->end_pos, STREAM_STEP,
						   json_visit, json_lost, &c);

		if (pos == snap->next_pos)
			break; /* a record still in flight ends the view */
		snap->next_pos = pos;
	}
	/* What lies before @off was read already: sequential readers only
	 * keep the window they have not consumed. */
	if (off > snap->base_off) {
		drop = off - snap->base_off;
		if (drop > snap->buf.len)
			drop = snap->buf.len;
		memmove(snap->buf.data, snap->buf.data + drop,
			snap->buf.len - drop);
		snap->buf.len -= drop;
		snap->base_off += drop;
	}
	if (off != snap->base_off || !snap->buf.len)
		return;
	*data = snap->buf.data;
	*len = size < snap->buf.len ? size : snap->buf.len;
}

void control_snapshot_read(struct testfs *t, struct control_snapshot *snap,
			   uint64_t off, size_t size, char *copy,
			   const char **data, size_t *len)
{
	*data = copy;
	*len = 0;
	/*
	 * Copied even when fixed: the reply lets the client close the file,
	 * and the RELEASE that frees the snapshot may run on another request
	 * thread before writev() has returned (the kernel has copied the
	 * bytes by then, but sanitizers check the buffer after the call).
	 */
	if (!snap->stream) {
		if (off >= snap->len)
			return;
		*len = size < snap->len - off ? size : snap->len - off;
		memcpy(copy, snap->data + off, *len);
		return;
	}
	pthread_mutex_lock(&snap->lock);
	stream_read(t, snap, off, size, data, len);
	if (*len)
		memcpy(copy, *data, *len);
	pthread_mutex_unlock(&snap->lock);
	*data = copy;
}

void control_snapshot_free(struct testfs *t, struct control_snapshot *snap)
{
	size_t big;

	if (!snap)
		return;
	testfs_untrack(t, &snap->link);
	big = snap->len + snap->buf.cap;
	free(snap->data);
	strbuf_free(&snap->buf);
	pthread_mutex_destroy(&snap->lock);
	free(snap);
	/* Give a large snapshot's memory back to the system now. */
	if (big > (1u << 20))
		malloc_trim(0);
}
