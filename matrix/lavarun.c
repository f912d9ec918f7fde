// SPDX-License-Identifier: MIT
/*
 * --lava URL: every kernel's job (matrix/lava.c) submitted to a LAVA
 * server at once through lavacli (XML-RPC at URL/RPC2), followed to its
 * end with a progress line at each change of state, and its job log
 * (`lavacli jobs logs --raw`) decoded like a local console. The token
 * (--lava-token FILE, else $TESTFS_LAVA_TOKEN) and the user (the URL's
 * user part, else $TESTFS_LAVA_USER) go into a private lavacli
 * configuration in the scratch folder, never on a command line. Every
 * lavacli call has a time limit; a job that stays queued past --timeout
 * or runs past its own timeout is canceled. A job whose guest's kernel
 * panicked is submitted once more, as a local run boots such a guest
 * once more (matrix/guest.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jsonv.h"
#include "lava.h"
#include "matrix.h"
#include "outfile.h"
#include "strbuf.h"

#define POLL_S 2
#define CALL_S 180

struct server {
	char uri[1024];	 /* http://host/RPC2, no user */
	char base[1024]; /* http://host: job pages are base/scheduler/job/N */
	char env[2][1100];
	char *envp[3];
	char token[512]; /* hidden in what lavacli says */
};

/* Each copy of the token in @text becomes "<token>". */
static void redact(const char *token, char *text)
{
	size_t n = strlen(token);
	char *p;

	/* (a shorter one would not fit) */
	if (n < 8)
		return;
	while ((p = strstr(text, token))) {
		memcpy(p, "<token>", 7);
		memmove(p + 7, p + n, strlen(p + n) + 1);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Runs `lavacli -i testfs ARGS...` (with its output into @out when not
 * NULL). Returns its stdout and stderr (malloc'd) and sets @ok when it
 * exited 0; NULL when it could not run.
 */
static char *lavacli(const struct server *s, const char *const *args,
		     const char *out, int timeout_s, bool *ok)
{
	const char *argv[16] = { "lavacli", "-i", "testfs" };
	char redirect[4400];
	struct capture c;
	size_t i, k = 3;
	char *text;

	for (i = 0; args[i] && k < 14; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	if (out) {
		/* A job log can be larger than a capture keeps. */
		snprintf(redirect, sizeof(redirect), "exec \"$@\" > '%s'", out);
		memmove(argv + 4, argv, (k + 1) * sizeof(*argv));
		argv[0] = "sh";
		argv[1] = "-c";
		argv[2] = redirect;
		argv[3] = "sh";
	}
	struct capture_opts o = { .argv = argv,
				  .setenv = s->envp,
				  .timeout_s = timeout_s };
	*ok = false;
	if (capture_run(&o, &c))
		return NULL;
	*ok = !c.timed_out && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0;
	text = c.text ? strndup(c.text, c.text_len) : strdup("");
	if (c.timed_out) {
		free(text);
		text = strdup("lavacli did not answer within its time limit");
	}
	capture_free(&c);
	if (text && s->token[0])
		redact(s->token, text);
	while (text && *text && strchr("\n ", text[strlen(text) - 1]))
		text[strlen(text) - 1] = '\0';
	return text;
}

static int read_token(const struct lava_opts *o, char *tok, size_t len)
{
	const char *env = getenv("TESTFS_LAVA_TOKEN");
	FILE *f;

	tok[0] = '\0';
	if (!o->token) {
		snprintf(tok, len, "%s", env ? env : "");
		return 0;
	}
	f = fopen(o->token, "r");
	if (!f) {
		fprintf(stderr, "testfs-matrix: --lava-token %s: %s\n",
			o->token, strerror(errno));
		return 1;
	}
	if (!fgets(tok, (int)len, f))
		tok[0] = '\0';
	fclose(f);
	tok[strcspn(tok, "\r\n")] = '\0';
	if (!tok[0]) {
		fprintf(stderr, "testfs-matrix: --lava-token %s: empty\n",
			o->token);
		return 1;
	}
	return 0;
}

/* The server's URIs and a lavacli configuration with the identity. */
static int server_setup(struct server *s, const struct matrix *m,
			const struct lava_opts *o)
{
	const char *rest = strstr(o->url, "://") + 3, *at, *slash;
	const char *env_user = getenv("TESTFS_LAVA_USER");
	char user[256] = "", tok[512], dir[256], conf[320];
	size_t hostlen, n;
	char *y;
	int err;

	slash = strchr(rest, '/');
	at = strchr(rest, '@');
	if (at && (!slash || at < slash)) {
		snprintf(user, sizeof(user), "%.*s", (int)(at - rest), rest);
		rest = at + 1;
		slash = strchr(rest, '/');
	} else if (env_user) {
		snprintf(user, sizeof(user), "%s", env_user);
	}
	hostlen = slash ? (size_t)(slash - rest) : strlen(rest);
	snprintf(s->base, sizeof(s->base), "%.*s%.*s",
		 (int)(strstr(o->url, "://") + 3 - o->url), o->url,
		 (int)hostlen, rest);
	snprintf(s->uri, sizeof(s->uri), "%s/RPC2", s->base);
	if (read_token(o, tok, sizeof(tok)))
		return 1;
	snprintf(s->token, sizeof(s->token), "%s", tok);
	snprintf(dir, sizeof(dir), "%s/lavacli", m->workdir);
	snprintf(conf, sizeof(conf), "%s/lavacli.yaml", dir);
	if (mkdir(dir, 0700)) {
		fprintf(stderr, "testfs-matrix: %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	n = strlen(s->uri) + strlen(user) + strlen(tok) + 128;
	y = malloc(n);
	if (!y)
		return 1;
	/* JSON strings are YAML too. */
	snprintf(y, n, "testfs: {\"uri\": \"%s\"%s%s%s%s%s%s}\n", s->uri,
		 user[0] ? ", \"username\": \"" : "", user, user[0] ? "\"" : "",
		 tok[0] ? ", \"token\": \"" : "", tok, tok[0] ? "\"" : "");
	err = strpbrk(user, "\"\\") || strpbrk(tok, "\"\\")
		      ? -EINVAL
		      : outfile_write(conf, y, strlen(y));
	chmod(conf, 0600);
	free(y);
	if (err) {
		fprintf(stderr, "testfs-matrix: the lavacli identity: %s\n",
			strerror(-err));
		return 1;
	}
	snprintf(s->env[0], sizeof(s->env[0]), "XDG_CONFIG_HOME=%s", dir);
	snprintf(s->env[1], sizeof(s->env[1]), "PYTHONUNBUFFERED=1");
	s->envp[0] = s->env[0];
	s->envp[1] = s->env[1];
	s->envp[2] = NULL;
	return 0;
}

/*
 * Before any job: the server answers, and has a qemu device that can
 * take jobs (health Good, or Unknown until its health check; the retired
 * ones too are listed, so the message can name them). 0, or 1 after
 * LAVA's own message.
 */
static int server_check(const struct server *s, const struct lava_opts *o)
{
	static const char *const list[] = { "devices", "list", "--all",
					    "--json", NULL };
	struct strbuf qemu = STRBUF_INIT;
	struct jv *v;
	size_t i, usable = 0;
	bool ok;
	char *text = lavacli(s, list, NULL, CALL_S, &ok);

	if (!text || !ok) {
		fprintf(stderr, "testfs-matrix: --lava %s: %s\n", o->url,
			text ? text : "cannot run lavacli");
		free(text);
		return 1;
	}
	v = jv_parse(text, strlen(text));
	for (i = 0; v && v->type == JV_ARR && i < v->n; i++) {
		const char *health = jv_str(v->vals[i], "health");

		if (!jv_str_is(v->vals[i], "type", "qemu"))
			continue;
		usable += health && (strcmp(health, "Good") == 0 ||
				     strcmp(health, "Unknown") == 0);
		strbuf_addf(&qemu, "%s%s %s", qemu.len ? ", " : "",
			    jv_str(v->vals[i], "hostname") ?: "?",
			    health ?: "?");
	}
	jv_free(v);
	if (!usable && qemu.len)
		fprintf(stderr,
			"testfs-matrix: --lava %s: no qemu device can take "
			"jobs (health: %.300s)\n",
			o->url, qemu.data);
	else if (!usable)
		fprintf(stderr,
			"testfs-matrix: --lava %s: no qemu device can take "
			"jobs (the server has no device of type qemu; lavacli "
			"devices list --all: %.300s)\n",
			o->url, text);
	strbuf_free(&qemu);
	free(text);
	return usable ? 0 : 1;
}

enum phase { P_NONE, P_QUEUED, P_RUNNING, P_DONE };

struct follow {
	enum phase phase;
	double since; /* when it entered its phase */
	double t0;    /* submitted */
	double start; /* running */
	double ran;   /* the time its ended jobs ran */
	char health[32];
	char *comment;
	char first[4400]; /* the URL of its first job, once submitted again */
};

static void job_fail(struct run *r, const char *fmt, const char *what,
		     const struct lava_job *j)
{
	char msg[800];

	snprintf(msg, sizeof(msg), fmt, what);
	r->status = RUN_FAILED;
	snprintf(r->reason, sizeof(r->reason), "%s (%s)", msg,
		 j->url[0] ? j->url : "not submitted");
}

static void submit(const struct server *s, struct run *r, struct lava_job *j)
{
	const char *args[] = { "jobs", "submit", j->yaml, NULL };
	bool ok;
	char *text = lavacli(s, args, NULL, CALL_S, &ok);
	char *end;
	long id = text ? strtol(text, &end, 10) : 0;

	if (!text || !ok || id <= 0 || *end) {
		/* lavacli says "Unable to submit FILE: MESSAGE", status 0. */
		const char *msg = text ? text : "cannot run lavacli";
		const char *colon = strstr(msg, "Unable to submit ");

		if (colon && (colon = strstr(colon, ": ")))
			msg = colon + 2;
		job_fail(r, "LAVA rejected the job: %s", msg, j);
	} else {
		j->id = id;
		snprintf(j->url, sizeof(j->url), "%s/scheduler/job/%ld",
			 s->base, id);
		printf("[%s] queued: %s\n", r->k.spec, j->url);
		fflush(stdout);
	}
	free(text);
}

/* The job's state now: a change is printed. True once it has ended. */
static bool poll_job(const struct server *s, struct run *r, struct lava_job *j,
		     struct follow *f)
{
	char id[32];
	const char *args[] = { "jobs", "show", id, "--json", NULL };
	const char *state, *health, *comment;
	enum phase p;
	struct jv *v;
	bool ok;
	char *text;

	snprintf(id, sizeof(id), "%ld", j->id);
	text = lavacli(s, args, NULL, CALL_S, &ok);
	v = text && ok ? jv_parse(text, strlen(text)) : NULL;
	if (!v) {
		/* A passing error (the server restarting) is tried again
		 * until the job's own time limit. */
		free(text);
		return false;
	}
	state = jv_str(v, "state");
	health = jv_str(v, "health");
	comment = jv_str(v, "failure_comment");
	p = !state			     ? f->phase
	    : strcmp(state, "Finished") == 0 ? P_DONE
	    : strcmp(state, "Running") == 0 || strcmp(state, "Canceling") == 0
		    ? P_RUNNING
		    : P_QUEUED;
	if (p != f->phase) {
		f->phase = p;
		f->since = now_s();
		if (p == P_RUNNING)
			f->start = f->since;
		printf("[%s] %s%s: %s\n", r->k.spec,
		       p == P_DONE	? "finished, "
		       : p == P_RUNNING ? "running"
					: "queued",
		       p == P_DONE ? (health ? health : "?") : "", j->url);
		if (p == P_RUNNING && jv_str(v, "device"))
			printf("[%s]   on device %s\n", r->k.spec,
			       jv_str(v, "device"));
		fflush(stdout);
	}
	if (p == P_DONE) {
		snprintf(f->health, sizeof(f->health), "%s",
			 health ? health : "?");
		f->comment = comment && *comment ? strdup(comment) : NULL;
	}
	jv_free(v);
	free(text);
	return p == P_DONE;
}

static void cancel(const struct server *s, const struct lava_job *j)
{
	char id[32];
	const char *args[] = { "jobs", "cancel", id, NULL };
	bool ok;

	snprintf(id, sizeof(id), "%ld", j->id);
	free(lavacli(s, args, NULL, CALL_S, &ok));
}

/*
 * The dispatcher's last error in a job log (`"error_msg": "..."` of a
 * results entry, as "download-retry timed out after 20 seconds"):
 * malloc'd, or NULL. LAVA leaves the job's failure comment empty for
 * some errors (a job timeout among them).
 */
static char *log_error(const char *log)
{
	static const char key[] = "\"error_msg\": \"";
	const char *p, *last = NULL;

	for (p = log; (p = strstr(p, key)); p += sizeof(key) - 1)
		last = p + sizeof(key) - 1;
	return last ? strndup(last, strcspn(last, "\"\n")) : NULL;
}

/*
 * A job whose guest's kernel panicked (@why its panic line), submitted
 * once more: true when it was. A job LAVA rejects then makes the run a
 * failed one, the first job's panic in its reason.
 */
static bool submit_again(const struct server *s, struct run *r,
			 struct lava_job *j, struct follow *f, const char *why)
{
	char rejected[sizeof(r->reason)];

	snprintf(f->first, sizeof(f->first), "%s", j->url);
	printf("[%s] the kernel panicked (%s); submitting the job again: %s\n",
	       r->k.spec, why, j->url);
	fflush(stdout);
	j->id = 0;
	j->url[0] = '\0';
	submit(s, r, j);
	if (j->id > 0)
		return true;
	snprintf(rejected, sizeof(rejected), "%s", r->reason);
	snprintf(r->reason, sizeof(r->reason),
		 "the kernel panicked before the command finished: %s (%s); "
		 "submitting the job again: %s",
		 why, f->first, rejected);
	/* (no end line for a run without a job: this is its line) */
	printf("[%s] %s\n", r->k.spec, r->reason);
	fflush(stdout);
	return false;
}

/*
 * The run whose second job too ended without a Complete (@what: LAVA's
 * health and message) as its guest's kernel panicked: the reason a local
 * run gives it, then LAVA's words and both jobs' URLs.
 */
static void fail_panicked(struct matrix *m, struct run *r,
			  const struct capture *c, const char *what,
			  const struct lava_job *j, const struct follow *f)
{
	size_t l;

	run_collect(m, r, c);
	l = strlen(r->reason);
	snprintf(r->reason + l, sizeof(r->reason) - l,
		 " (the second LAVA job ended %s; jobs %s and %s)", what,
		 f->first, j->url);
}

/*
 * The job's log into the run, decoded like a console. True when the job
 * was submitted again (its guest's kernel panicked, the first time).
 */
static bool collect(struct matrix *m, const struct server *s, struct run *r,
		    struct lava_job *j, struct follow *f)
{
	char id[32], path[320];
	const char *args[] = { "jobs", "logs", id, "--raw", NULL };
	struct capture c;
	size_t len = 0, clen = 0;
	char *text, *console = NULL, *log = NULL;
	char why[256];
	bool ok, again = false;
	FILE *in;

	snprintf(id, sizeof(id), "%ld", j->id);
	snprintf(path, sizeof(path), "%s/job-%ld.log", m->workdir, j->id);
	text = lavacli(s, args, path, 300, &ok);
	in = ok ? fopen(path, "r") : NULL;
	if (in) {
		struct stat st;

		if (!fstat(fileno(in), &st) &&
		    (log = malloc((size_t)st.st_size + 1)))
			len = fread(log, 1, (size_t)st.st_size, in);
		fclose(in);
	}
	unlink(path);
	if (log) {
		log[len] = '\0';
		console = lava_log_console(log, len, &clen);
		if (!f->comment)
			f->comment = log_error(log);
	}
	free(log);
	snprintf(r->accel, sizeof(r->accel), "%s", "lava");
	r->status = RUN_OK;
	capture_parse(&c, console ? console : "", clen);
	free(console);
	if (!ok) {
		job_fail(r, "its log could not be read: %s",
			 text ? text : "cannot run lavacli", j);
	} else if (strcmp(f->health, "Complete") != 0) {
		char what[700];

		snprintf(what, sizeof(what), "%s%s%s", f->health,
			 f->comment ? ": " : "", f->comment ? f->comment : "");
		/* A job LAVA ended at its time limit is a guest killed at
		 * the time limit: not booted again. */
		c.timed_out = f->comment && strstr(f->comment, "timed out");
		if (strcmp(f->health, "Canceled") == 0 ||
		    !capture_boot_again(&c, why, sizeof(why))) {
			job_fail(r, "the LAVA job ended %s", what, j);
			free(r->console_tail);
			r->console_tail = capture_tail(&c, 40);
		} else if (f->first[0]) {
			fail_panicked(m, r, &c, what, j, f);
		} else if (!(again = submit_again(s, r, j, f, why))) {
			free(r->console_tail);
			r->console_tail = capture_tail(&c, 40);
		}
	} else {
		run_collect(m, r, &c);
		if (r->status == RUN_FAILED) {
			size_t l = strlen(r->reason);

			snprintf(r->reason + l, sizeof(r->reason) - l, " (%s)",
				 j->url);
		}
	}
	capture_free(&c);
	free(text);
	return again;
}

/* Follows every submitted job to its end (or cancels it). */
static void follow_all(struct matrix *m, const struct server *s,
		       struct run *runs, struct lava_job *jobs,
		       struct follow *f, size_t n, const struct lava_opts *o)
{
	/*
	 * LAVA's own limit for the job (lava.c), and a margin: LAVA ends a
	 * job past its limit itself, with its own message, but its server
	 * may learn of it minutes later on a loaded machine (seen: over
	 * 100 s at load 30). Only a job LAVA never ends is canceled here.
	 */
	double job_s = (double)lava_job_timeout(m, o) + 600;
	size_t i, left = 0;
	char t[32];

	for (i = 0; i < n; i++)
		left += jobs[i].id > 0;
	while (left) {
		for (i = 0; i < n; i++) {
			double now = now_s();

			if (jobs[i].id <= 0 || f[i].phase == P_DONE)
				continue;
			if (poll_job(s, &runs[i], &jobs[i], &f[i])) {
				bool again = collect(m, s, &runs[i], &jobs[i],
						     &f[i]);

				/* Its jobs' time running; 0 if none ran. */
				f[i].ran += f[i].start > 0
						    ? now_s() - f[i].start
						    : 0;
				runs[i].seconds = f[i].ran;
				if (again) {
					free(f[i].comment);
					f[i].comment = NULL;
					f[i].health[0] = '\0';
					f[i].phase = P_QUEUED;
					f[i].t0 = f[i].since = now_s();
					f[i].start = 0;
				} else {
					left--;
				}
				continue;
			}
			if ((f[i].phase != P_RUNNING &&
			     now - f[i].t0 > m->timeout_s) ||
			    (f[i].phase == P_RUNNING &&
			     now - f[i].start > job_s)) {
				cancel(s, &jobs[i]);
				snprintf(t, sizeof(t), "%d",
					 f[i].phase == P_RUNNING
						 ? (int)job_s
						 : m->timeout_s);
				job_fail(&runs[i],
					 f[i].phase == P_RUNNING
						 ? "still running after %s s: "
						   "canceled"
						 : "still queued after %s s "
						   "(--timeout): canceled",
					 t, &jobs[i]);
				printf("[%s] %s\n", runs[i].k.spec,
				       runs[i].reason);
				f[i].phase = P_DONE;
				left--;
			}
		}
		if (left)
			sleep(POLL_S);
	}
}

int lava_run_all(struct matrix *m, struct run *runs, size_t n,
		 const struct lava_opts *o)
{
	struct lava_job *jobs = calloc(n, sizeof(*jobs));
	struct follow *f = calloc(n, sizeof(*f));
	struct server s = { 0 };
	int status = 1;
	size_t i;

	if (!jobs || !f)
		goto out;
	/* The jobs first (the scratch folder is made there). */
	if (lava_write_jobs(m, runs, jobs, n, o) || server_setup(&s, m, o) ||
	    server_check(&s, o))
		goto out;
	status = 0;
	for (i = 0; i < n; i++) {
		struct run *r = &runs[i];

		if (r->k.skip[0]) {
			r->status = RUN_SKIPPED;
			snprintf(r->reason, sizeof(r->reason), "%s", r->k.skip);
			continue;
		}
		f[i].t0 = now_s();
		f[i].phase = P_QUEUED;
		submit(&s, r, &jobs[i]);
		if (jobs[i].id <= 0) {
			printf("[%s] %s\n", r->k.spec, r->reason);
			fflush(stdout);
		}
	}
	follow_all(m, &s, runs, jobs, f, n, o);
	for (i = 0; i < n; i++) {
		struct run *r = &runs[i];

		if (r->k.skip[0] || jobs[i].id <= 0)
			continue;
		run_print_end(r);
	}
out:
	for (i = 0; f && i < n; i++)
		free(f[i].comment);
	free(f);
	free(jobs);
	return status;
}

int lava_main(struct matrix *m, const char *const *specs, size_t nspec,
	      struct lava_opts *o, struct run **runs, size_t *n)
{
	int status = lava_check_opts(o, true);

	if (!status)
		status = lava_prepare(m, specs, nspec, runs, n, o->arch);
	if (status)
		return status;
	return lava_run_all(m, *runs, *n, o);
}
