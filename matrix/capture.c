// SPDX-License-Identifier: MIT
/*
 * capture.h: one child in its own process group, its stdout and stderr on
 * one pipe, read with poll() against a deadline so nothing it does can
 * hang testfs-matrix.
 */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The console text kept for the tail and the panic check. */
#define CAPTURE_KEEP (1u << 20)
#define MARK "@@testfs-matrix "

/* The running child's process group, for capture_kill_current(). */
static volatile sig_atomic_t current_pgid;

void capture_kill_current(void)
{
	pid_t pid = (pid_t)current_pgid;

	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

struct parser {
	struct capture *c;
	const char *label;
	long long t0_ms;
	char *line;
	size_t line_len, line_cap;
	bool in_frame;
	char *b64;
	size_t b64_len, b64_cap;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

static const signed char *b64_table(void)
{
	static signed char t[256];
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned i;

	if (!t[0]) {
		memset(t, -1, sizeof(t));
		for (i = 0; i < 64; i++)
			t[(unsigned char)a[i]] = (signed char)i;
	}
	return t;
}

size_t base64_decode(const char *in, size_t len, unsigned char *out, bool *bad)
{
	const signed char *t = b64_table();
	unsigned acc = 0, bits = 0;
	size_t i, n = 0;

	*bad = false;
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)in[i];

		if (ch == '=')
			break;
		if (t[ch] < 0) {
			*bad = true;
			continue;
		}
		acc = (acc << 6) | (unsigned)t[ch];
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return n;
}

static int grow(char **buf, size_t *cap, size_t need)
{
	char *nb;
	size_t nc = *cap ? *cap : 256;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	nb = realloc(*buf, nc);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = nc;
	return 0;
}

static void keep_text(struct capture *c, const char *s, size_t n)
{
	char *nt;

	if (n >= CAPTURE_KEEP) {
		s += n - CAPTURE_KEEP / 2;
		n = CAPTURE_KEEP / 2;
	}
	if (c->text_len + n > CAPTURE_KEEP) {
		size_t drop = c->text_len + n - CAPTURE_KEEP / 2;

		if (drop > c->text_len)
			drop = c->text_len;
		memmove(c->text, c->text + drop, c->text_len - drop);
		c->text_len -= drop;
	}
	nt = realloc(c->text, c->text_len + n + 1);
	if (!nt)
		return;
	c->text = nt;
	memcpy(c->text + c->text_len, s, n);
	c->text_len += n;
	c->text[c->text_len] = '\0';
}

static void end_frame(struct parser *p, const char *rest)
{
	struct capture *c = p->c;
	struct frame *f, *nf;
	char name[256];
	unsigned long long want = 0;
	bool bad;

	p->in_frame = false;
	if (sscanf(rest, "%255s %llu", name, &want) < 1)
		return;
	nf = realloc(c->frames, (c->nframes + 1) * sizeof(*nf));
	if (!nf)
		return;
	c->frames = nf;
	f = &c->frames[c->nframes];
	f->data = malloc(p->b64_len / 4 * 3 + 4);
	f->name = strdup(name);
	if (!f->data || !f->name) {
		free(f->data);
		free(f->name);
		return;
	}
	f->len = base64_decode(p->b64, p->b64_len, (unsigned char *)f->data,
			       &bad);
	f->data[f->len] = '\0';
	f->whole = !bad && f->len == want;
	c->nframes++;
}

static void on_line(struct parser *p, char *l)
{
	size_t n = strlen(l);
	char *mark;

	while (n && (l[n - 1] == '\r' || l[n - 1] == '\n'))
		l[--n] = '\0';
	/*
	 * A CI engine's log may put a prefix before each console line (a
	 * time, "target: "): the marker is looked for anywhere, and a data
	 * line is its last word.
	 */
	mark = strstr(l, MARK);
	if (!mark) {
		char *w = strrchr(l, ' ');

		w = w ? w + 1 : l;
		n = strlen(w);
		while (n && (w[n - 1] == '\'' || w[n - 1] == '"'))
			n--;
		if (p->in_frame &&
		    !grow(&p->b64, &p->b64_cap, p->b64_len + n + 1)) {
			memcpy(p->b64 + p->b64_len, w, n);
			p->b64_len += n;
		}
		return;
	}
	l = mark + strlen(MARK);
	n = strlen(l);
	while (n && (l[n - 1] == '\'' || l[n - 1] == '"'))
		l[--n] = '\0';
	if (strncmp(l, "begin ", 6) == 0) {
		p->in_frame = true;
		p->b64_len = 0;
	} else if (strncmp(l, "end ", 4) == 0 && p->in_frame) {
		end_frame(p, l + 4);
	} else if (strncmp(l, "progress ", 9) == 0 && p->label) {
		printf("[%s] %5.1f s %s\n", p->label,
		       (now_ms() - p->t0_ms) / 1000.0, l + 9);
		fflush(stdout);
	} else if (strncmp(l, "booted", 6) == 0) {
		p->c->booted = true;
		if (p->label) {
			printf("[%s] %5.1f s booted%s\n", p->label,
			       (now_ms() - p->t0_ms) / 1000.0, l + 6);
			fflush(stdout);
		}
	} else if (strcmp(l, "done") == 0) {
		p->c->done = true;
	}
}

static void feed(struct parser *p, const char *buf, size_t n)
{
	size_t i;

	keep_text(p->c, buf, n);
	for (i = 0; i < n; i++) {
		if (grow(&p->line, &p->line_cap, p->line_len + 2))
			return;
		p->line[p->line_len++] = buf[i];
		if (buf[i] == '\n') {
			p->line[p->line_len] = '\0';
			on_line(p, p->line);
			p->line_len = 0;
		}
	}
}

static void child(const struct capture_opts *o, int wfd)
{
	char *const *e;
	int null = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	if (null >= 0)
		dup2(null, 0);
	dup2(wfd, 1);
	dup2(wfd, 2);
	if (o->cwd && chdir(o->cwd) != 0)
		_exit(127);
	for (e = o->setenv; e && *e; e++)
		putenv(*e);
	execvp(o->argv[0], (char *const *)o->argv);
	fprintf(stderr, "testfs-matrix: cannot run %s: %s\n", o->argv[0],
		strerror(errno));
	_exit(127);
}

int capture_run(const struct capture_opts *o, struct capture *c)
{
	long long deadline = now_ms() + (long long)o->timeout_s * 1000;
	struct parser p = { .c = c, .label = o->label, .t0_ms = now_ms() };
	int fds[2], err = 0;
	char buf[65536];
	pid_t pid;

	memset(c, 0, sizeof(*c));
	c->status = -1;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0)
		child(o, fds[1]);
	/* Both sides set the group: whichever runs first, no window. */
	setpgid(pid, pid);
	current_pgid = pid;
	close(fds[1]);
	for (;;) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left <= 0) {
			c->timed_out = true;
			break;
		}
		r = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		feed(&p, buf, (size_t)n);
	}
	if (c->timed_out)
		kill(-pid, SIGKILL);
	close(fds[0]);
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
	current_pgid = 0;
	if (p.line_len) {
		p.line[p.line_len] = '\0';
		on_line(&p, p.line);
	}
	free(p.line);
	free(p.b64);
	return 0;
}

void capture_parse(struct capture *c, const char *text, size_t len)
{
	struct parser p = { .c = c };

	memset(c, 0, sizeof(*c));
	c->status = 0;
	feed(&p, text, len);
	if (p.line_len) {
		p.line[p.line_len] = '\0';
		on_line(&p, p.line);
	}
	free(p.line);
	free(p.b64);
}

const struct frame *capture_frame(const struct capture *c, const char *name)
{
	size_t i;

	for (i = c->nframes; i-- > 0;)
		if (strcmp(c->frames[i].name, name) == 0)
			return &c->frames[i];
	return NULL;
}

char *capture_tail(const struct capture *c, unsigned lines)
{
	const char *s = c->text ? c->text : "";
	size_t n = c->text_len;
	size_t i = n;

	while (n && s[n - 1] == '\n')
		n--;
	for (i = n; i > 0; i--)
		if (s[i - 1] == '\n' && --lines == 0)
			break;
	return strndup(s + i, n - i);
}

/* The console's first line that shows a panic or an oops, or NULL. */
static const char *panic_line(const struct capture *c)
{
	static const char *const signs[] = { "Kernel panic",
					     "Oops:", "invalid opcode:" };
	const char *first = NULL, *p;
	size_t i;

	if (!c->text)
		return NULL;
	for (i = 0; i < sizeof(signs) / sizeof(signs[0]); i++) {
		p = strstr(c->text, signs[i]);
		if (p && (!first || p < first))
			first = p;
	}
	return first;
}

bool capture_panicked(const struct capture *c)
{
	return panic_line(c) != NULL;
}

void capture_panic_why(const struct capture *c, char *out, size_t len)
{
	const char *p = panic_line(c);
	size_t n;

	if (!len)
		return;
	out[0] = '\0';
	if (!p)
		return;
	n = strcspn(p, "\r\n");
	snprintf(out, len, "%.*s", (int)(n < 200 ? n : 200), p);
}

bool capture_boot_again(const struct capture *c, char *why, size_t len)
{
	if (c->done || c->timed_out || !capture_panicked(c))
		return false;
	capture_panic_why(c, why, len);
	return true;
}

void capture_free(struct capture *c)
{
	size_t i;

	for (i = 0; i < c->nframes; i++) {
		free(c->frames[i].name);
		free(c->frames[i].data);
	}
	free(c->frames);
	free(c->text);
	memset(c, 0, sizeof(*c));
}
