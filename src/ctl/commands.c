// SPDX-License-Identifier: MIT
/*
 * Commands written to MOUNT/.testfs/ctl, one per line. Every command is
 * one row of the table below (name, handler, whether it needs a worker,
 * usage): the "unknown command" message and the usage that --help shows
 * are generated from it.
 */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "pagecache.h"
#include "parse.h"
#include "thread.h"
#include "knobs.h"
#include "delay_queue.h"
#include "rules.h"

/* Eviction is retried while pages are busy (locked for an in-flight read). */
#define DROP_RETRIES 200
#define DROP_RETRY_NS 5000000L

/* Complete lines taken from one write (or a flush), run in order. */
struct command_batch {
	struct testfs *t;
	fuse_req_t req;
	size_t len; /* bytes to acknowledge (writes) */
	bool is_flush;
	char *text;
};

void control_set_error(struct testfs *t, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&t->ctl_lock);
	va_start(ap, fmt);
	vsnprintf(t->error, sizeof(t->error), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&t->ctl_lock);
}

/*
 * Writes the --log file up to @verb's effect. A failed write (a full
 * disk), now or since the last flush, fails the command: the ring and
 * .testfs/log have its effect, the file lacks records.
 */
static int flush_log_file(struct testfs *t, const char *verb)
{
	int err;

	if (!t->writer)
		return 0;
	err = log_writer_flush(t->writer);
	if (err)
		control_set_error(
			t,
			"%s: ran, but the --log file '%s' is missing records: %s (log_file_lost in stats counts them; a loss line stands for them once the file takes writes again)",
			verb, t->opts->log_path, strerror(-err));
	return err;
}

static int cmd_clear(struct testfs *t, const char *verb, const char *arg)
{
	if (*arg) {
		control_set_error(t, "clear: takes no argument (got '%s')",
				  arg);
		return -EINVAL;
	}
	/* What the kernel did before the clear is logged before it. */
	testfs_correlate_sync(t);
	atomic_store(&t->log.clear_pos, log_ring_head(&t->log));
	atomic_fetch_add(&t->stats.clears, 1);
	return flush_log_file(t, verb);
}

static int cmd_mark(struct testfs *t, const char *verb, const char *arg)
{
	struct log_record rec;
	size_t len = strlen(arg);

	if (!len) {
		control_set_error(t, "mark: missing TEXT (usage: mark TEXT)");
		return -EINVAL;
	}
	if (len > LOG_MARK_MAX) {
		control_set_error(t, "mark: TEXT is %zu bytes, the limit is %d",
				  len, LOG_MARK_MAX);
		return -EINVAL;
	}
	testfs_correlate_sync(t);
	memset(&rec, 0, sizeof(rec));
	rec.kind = LOG_MARK;
	rec.t_ns = clock_now_ns();
	memcpy(rec.mark.text, arg, len);
	log_ring_append(&t->log, &rec);
	atomic_fetch_add(&t->stats.marks, 1);
	return flush_log_file(t, verb);
}

static void sleep_ns(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/*
 * Evicts one file through the kernel (FUSE_NOTIFY_INVAL_INODE unmaps and
 * drops every page of the inode) and checks with cachestat() on a file
 * descriptor opened through the mount that no page is left.
 */
static int drop_one(struct testfs *t, struct node *n)
{
	struct pagecache_stat st;
	char *path = NULL;
	int fd, err, i;

	/*
	 * The windows the kernel opened on this file so far explain the
	 * reads before the eviction, none after it.
	 */
	testfs_correlate_forget(t, n->ino);
	err = fuse_lowlevel_notify_inval_inode(t->se, n->ino, 0, 0);
	if (err == -ENOENT)
		return 0; /* the kernel never looked it up: nothing cached */
	if (err) {
		control_set_error(t, "drop-cache %s: invalidation failed: %s",
				  n->path, strerror(-err));
		return err;
	}
	if (asprintf(&path, "%s/%s", t->mountpoint, n->path) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		control_set_error(t, "drop-cache %s: cannot open %s: %s",
				  n->path, path, strerror(errno));
		free(path);
		return err;
	}
	for (i = 0; i < DROP_RETRIES; i++) {
		/* Serving waits for this worker: give up rather than delay it.
		 */
		if (atomic_load(&t->stopping)) {
			control_set_error(t,
					  "drop-cache %s: testfs is stopping",
					  n->path);
			err = -ESHUTDOWN;
			break;
		}
		err = pagecache_stat(fd, 0, 0, &st);
		if (err == -ENOSYS) {
			/* No cachestat(): trust the kernel's invalidation. */
			err = 0;
			break;
		}
		if (err) {
			control_set_error(t, "drop-cache %s: cachestat: %s",
					  n->path, strerror(-err));
			break;
		}
		if (st.nr_cache == 0)
			break;
		sleep_ns(DROP_RETRY_NS);
		fuse_lowlevel_notify_inval_inode(t->se, n->ino, 0, 0);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	if (!err && i == DROP_RETRIES) {
		control_set_error(
			t,
			"drop-cache %s: %llu pages still cached after %d attempts (pages in use?)",
			n->path, (unsigned long long)st.nr_cache, DROP_RETRIES);
		err = -EBUSY;
	}
	close(fd);
	free(path);
	return err;
}

static int cmd_drop_cache(struct testfs *t, const char *verb, const char *arg)
{
	struct node *n;
	size_t i;
	int err;

	(void)verb;
	atomic_fetch_add(&t->stats.drop_caches, 1);
	if (*arg) {
		n = fileset_find(&t->files, arg);
		if (!n || n->kind != NODE_FILE) {
			control_set_error(
				t,
				"drop-cache: '%s' is not a data file of this mount",
				arg);
			return -EINVAL;
		}
		return drop_one(t, n);
	}
	for (i = 0; i < t->files.count; i++) {
		n = &t->files.nodes[i];
		if (n->kind != NODE_FILE || !atomic_load(&n->was_read))
			continue;
		err = drop_one(t, n);
		if (err)
			return err;
	}
	return 0;
}

/* latency MODEL, rule SPEC, error SPEC: the same as the options. */
static int cmd_slow(struct testfs *t, const char *verb, const char *arg)
{
	char why[512];
	int err;

	if (!*arg) {
		control_set_error(t, "%s: missing %s", verb,
				  verb[0] == 'l' ? "MODEL" : "SPEC");
		return -EINVAL;
	}
	if (verb[0] == 'l')
		err = rules_set_default(t->rules, arg, why, sizeof(why));
	else if (verb[0] == 'r')
		err = rules_add_latency(t->rules, arg, why, sizeof(why));
	else
		err = rules_add_error(t->rules, arg, why, sizeof(why));
	if (err) {
		control_set_error(t, "%s '%s': %s", verb, arg,
				  rules_why_detail(why, verb, arg));
		return err;
	}
	atomic_store(&t->slow_active, true);
	return 0;
}

/* pause SPEC: hold the reads it matches until resume (or its for=). */
static int cmd_pause(struct testfs *t, const char *verb, const char *arg)
{
	char why[512];
	int err;

	(void)verb;
	if (!*arg) {
		control_set_error(
			t,
			"pause: missing SPEC (expected [file=NAME,][pages=A-B,][for=DURATION])");
		return -EINVAL;
	}
	err = rules_add_pause(t->rules, arg, why, sizeof(why));
	if (err) {
		control_set_error(t, "pause '%s': %s", arg,
				  rules_why_detail(why, "pause", arg));
		return err;
	}
	atomic_store(&t->slow_active, true);
	return 0;
}

/*
 * resume: drops every pause rule, then answers what they hold, so no read
 * is held after it. Nothing held is not an error.
 */
static int cmd_resume(struct testfs *t, const char *verb, const char *arg)
{
	(void)verb;
	if (*arg) {
		control_set_error(t, "resume: takes no argument (got '%s')",
				  arg);
		return -EINVAL;
	}
	rules_resume(t->rules);
	delay_queue_release_held(t->delays);
	return 0;
}

static int cmd_rules(struct testfs *t, const char *verb, const char *arg)
{
	(void)verb;
	if (strcmp(arg, "clear") != 0) {
		control_set_error(t, "rules: expected 'rules clear' (got '%s')",
				  arg);
		return -EINVAL;
	}
	rules_clear(t->rules);
	return 0;
}

/*
 * ra-kb N: the mount's read_ahead_kb, as --ra-kb but on a running mount.
 * The kernel gives a file its window when it is opened: files opened
 * before keep theirs.
 */
static int cmd_ra_kb(struct testfs *t, const char *verb, const char *arg)
{
	char why_set[320];
	const char *why;
	uint64_t kb;
	int err;

	(void)verb;
	if (!*arg) {
		control_set_error(
			t, "ra-kb: missing N (usage: ra-kb N, in KiB, 0 to %u)",
			KNOBS_RA_KB_MAX);
		return -EINVAL;
	}
	err = parse_uint(arg, 0, KNOBS_RA_KB_MAX, &kb, &why);
	if (err) {
		control_set_error(t, "ra-kb '%s': %s (expected KiB, 0 to %u)",
				  arg, why, KNOBS_RA_KB_MAX);
		return -EINVAL;
	}
	pthread_mutex_lock(&t->ctl_lock);
	err = knobs_set_ra_kb(t, (int64_t)kb, why_set, sizeof(why_set));
	pthread_mutex_unlock(&t->ctl_lock);
	if (err) {
		control_set_error(t, "ra-kb %s: %s", arg, why_set);
		return err;
	}
	return 0;
}

struct ctl_command {
	const char *name;
	int (*run)(struct testfs *t, const char *verb, const char *arg);
	/*
	 * Runs on a worker thread, not on the request loop: drop-cache
	 * opens the file through this very mount.
	 */
	bool needs_worker;
	const char *usage;
};

/* In the order the messages and --help list them. */
static const struct ctl_command commands[] = {
	{ "clear", cmd_clear, false, "clear" },
	{ "drop-cache", cmd_drop_cache, true, "drop-cache [NAME]" },
	{ "mark", cmd_mark, false, "mark TEXT" },
	{ "latency", cmd_slow, false, "latency MODEL" },
	{ "rule", cmd_slow, false, "rule SPEC" },
	{ "error", cmd_slow, false, "error SPEC" },
	{ "rules", cmd_rules, false, "rules clear" },
	{ "pause", cmd_pause, false, "pause SPEC" },
	{ "resume", cmd_resume, false, "resume" },
	{ "ra-kb", cmd_ra_kb, false, "ra-kb N" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

const char *control_command_usage(size_t i)
{
	return i < N_COMMANDS ? commands[i].usage : NULL;
}

void control_command_list(struct strbuf *sb, const char *sep,
			  const char *last_sep)
{
	size_t i;

	for (i = 0; i < N_COMMANDS; i++) {
		if (i)
			strbuf_adds(sb, i + 1 == N_COMMANDS ? last_sep : sep);
		strbuf_adds(sb, commands[i].usage);
	}
}

/* The command that line @line (blanks before it allowed) starts with. */
static const struct ctl_command *find_command(const char *line)
{
	size_t len, i;

	line += strspn(line, " \t");
	len = strcspn(line, " \t\r\n");
	for (i = 0; i < N_COMMANDS; i++)
		if (strlen(commands[i].name) == len &&
		    strncmp(commands[i].name, line, len) == 0)
			return &commands[i];
	return NULL;
}

/* Splits "verb rest" and runs it. */
static int run_line(struct testfs *t, char *line)
{
	const struct ctl_command *c;
	struct strbuf list = STRBUF_INIT;
	char *arg;

	line += strspn(line, " \t");
	arg = line + strcspn(line, " \t");
	if (*arg) {
		*arg++ = '\0';
		arg += strspn(arg, " \t");
	}
	atomic_fetch_add(&t->stats.ctl_commands, 1);
	c = find_command(line);
	if (c)
		return c->run(t, line, arg);
	control_command_list(&list, ", ", " or ");
	control_set_error(t, "unknown command '%s' (expected %s)", line,
			  list.oom ? "a command of testfs-control(5)"
				   : list.data);
	strbuf_free(&list);
	return -EINVAL;
}

/* Says which command of a multi-line write failed and what ran. */
static void note_position(struct testfs *t, unsigned failed, unsigned total)
{
	char first[sizeof(t->error)];

	if (total < 2)
		return;
	pthread_mutex_lock(&t->ctl_lock);
	snprintf(first, sizeof(first), "%s", t->error);
	snprintf(
		t->error, sizeof(t->error),
		"command %u of %u: %.400s (the %u before it ran, the rest did not)",
		failed, total, first, failed - 1);
	pthread_mutex_unlock(&t->ctl_lock);
}

static unsigned count_commands(const char *text)
{
	unsigned n = 0;
	const char *p = text;

	while (*p) {
		const char *end = strchrnul(p, '\n');
		const char *q = p + strspn(p, " \t\r");

		if (q < end && *q != '#')
			n++;
		p = *end ? end + 1 : end;
	}
	return n;
}

static int run_batch(struct testfs *t, char *text)
{
	unsigned total = count_commands(text), done = 0;
	char *line = text, *next;
	int err;

	while (line && *line) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line && line[strlen(line) - 1] == '\r')
			line[strlen(line) - 1] = '\0';
		if (line[strspn(line, " \t")] &&
		    line[strspn(line, " \t")] != '#') {
			done++;
			err = run_line(t, line);
			if (err) {
				atomic_fetch_add(&t->stats.ctl_rejected, 1);
				note_position(t, done, total);
				return err;
			}
		}
		line = next;
	}
	return 0;
}

static void reply_batch(struct command_batch *b, int err)
{
	if (err)
		fuse_reply_err(b->req, -err);
	else if (b->is_flush)
		fuse_reply_err(b->req, 0);
	else
		fuse_reply_write(b->req, b->len);
	free(b->text);
	free(b);
}

static void *batch_worker(void *arg)
{
	struct command_batch *b = arg;
	struct testfs *t = b->t;

	reply_batch(b, run_batch(t, b->text));
	testfs_worker_end(t);
	return NULL;
}

static bool needs_worker(const char *text)
{
	const struct ctl_command *c;
	const char *p;

	for (p = text; *p; p = strchrnul(p, '\n')) {
		if (*p == '\n')
			p++;
		c = find_command(p);
		if (c && c->needs_worker)
			return true;
	}
	return false;
}

/* Runs @b here, or on a worker when it needs the mount; @b is consumed. */
static void start_batch(struct testfs *t, struct command_batch *b)
{
	pthread_t th;
	int err;

	if (!needs_worker(b->text))
		return reply_batch(b, run_batch(t, b->text));
	if (!testfs_worker_begin(t)) {
		control_set_error(t, "drop-cache: testfs is stopping");
		return reply_batch(b, -ESHUTDOWN);
	}
	/*
	 * drop-cache opens the file through this very mount, so it must not
	 * run on the thread that serves requests.
	 */
	err = thread_start_quiet(&th, batch_worker, b, true);
	if (err) {
		control_set_error(t, "cannot start a worker: %s",
				  strerror(err));
		reply_batch(b, -err);
		testfs_worker_end(t);
	}
}

/* A refused write: counted, explained; the caller replies @err. */
static int reject(struct testfs *t, const char *why, int err)
{
	control_set_error(t, "%s", why);
	/* A refused write counts as one command, so rejected <= commands. */
	atomic_fetch_add(&t->stats.ctl_commands, 1);
	atomic_fetch_add(&t->stats.ctl_rejected, 1);
	return err;
}

static void release_session(struct testfs *t, struct handle_link *link)
{
	control_session_free(t,
			     container_of(link, struct control_session, link));
}

struct control_session *control_session_new(struct testfs *t)
{
	struct control_session *s = calloc(1, sizeof(*s));

	/* .testfs/error explains what went wrong since ctl was last opened. */
	control_set_error(t, "%s", "");
	if (s) {
		pthread_mutex_init(&s->lock, NULL);
		ctl_lines_init(&s->lines, CTL_LINE_MAX);
		testfs_track(t, &s->link, release_session);
	}
	return s;
}

void control_session_free(struct testfs *t, struct control_session *s)
{
	if (!s)
		return;
	testfs_untrack(t, &s->link);
	ctl_lines_free(&s->lines);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/*
 * The lines the assembler gave (@err 0, @text NULL when none) as a batch
 * in *@out, or the refusal it reported.
 */
static int batch_of(struct testfs *t, int err, const char *why, char *text,
		    struct command_batch **out)
{
	*out = NULL;
	if (err)
		return reject(t, why, err);
	if (!text)
		return 0;
	*out = calloc(1, sizeof(**out));
	if (!*out) {
		free(text);
		return reject(t, "out of memory", -ENOMEM);
	}
	(*out)->text = text;
	return 0;
}

/*
 * The part of a write that needs @s locked: the complete lines it ends
 * into *@out (NULL: none yet). Nothing is replied under the lock: once the
 * reply is sent the client may close the file, and the session is freed
 * on another request thread.
 */
static int take_lines(struct testfs *t, struct control_session *s,
		      const char *buf, size_t len, struct command_batch **out)
{
	char why[160], *text;
	int err;

	err = ctl_lines_write(&s->lines, buf, len, &text, why, sizeof(why));
	return batch_of(t, err, why, text, out);
}

void control_write(struct testfs *t, fuse_req_t req, struct control_session *s,
		   const char *buf, size_t len)
{
	struct command_batch *b;
	int err;

	pthread_mutex_lock(&s->lock);
	err = take_lines(t, s, buf, len, &b);
	pthread_mutex_unlock(&s->lock);
	if (err)
		return (void)fuse_reply_err(req, -err);
	if (!b)
		return (void)fuse_reply_write(req, len);
	b->t = t;
	b->req = req;
	b->len = len;
	start_batch(t, b);
}

/* close() of ctl: the pending incomplete line, taken under the lock. */
static int take_rest(struct testfs *t, struct control_session *s,
		     struct command_batch **out)
{
	char why[160], *text;
	int err;

	err = ctl_lines_close(&s->lines, &text, why, sizeof(why));
	return batch_of(t, err, why, text, out);
}

void control_flush(struct testfs *t, fuse_req_t req, struct control_session *s)
{
	struct command_batch *b = NULL;
	int err = 0;

	if (s) {
		pthread_mutex_lock(&s->lock);
		err = take_rest(t, s, &b);
		pthread_mutex_unlock(&s->lock);
	}
	if (err || !b)
		return (void)fuse_reply_err(req, -err);
	b->t = t;
	b->req = req;
	b->is_flush = true;
	start_batch(t, b);
}
