// SPDX-License-Identifier: MIT
#include "startup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "text.h"

/*
 * Messages on the pipe are lines: "W text", "R text" or "F status text".
 * Every text is escaped (text.h) when it is made: names in it come from
 * users and disk, and a newline in one must neither start a line of its
 * own on the pipe or stderr nor an escape sequence reach the terminal.
 */
#define TEXT_MAX 1024
static int report_fd = -1;
static bool done;
/* The status startup_fail() was given; 0 if it was not called. */
static int failed_status;

static void send_line(char kind, int status, const char *text)
{
	char buf[4 * TEXT_MAX + 32];
	int n;

	if (report_fd < 0) {
		if (text && *text)
			fprintf(stderr, "testfs: %s%s\n",
				kind == 'W' ? "warning: " : "", text);
		return;
	}
	if (kind == 'F')
		n = snprintf(buf, sizeof(buf), "F %d %s\n", status, text);
	else
		n = snprintf(buf, sizeof(buf), "%c %s\n", kind,
			     text ? text : "");
	if (n > (int)sizeof(buf) - 1) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	if (write(report_fd, buf, (size_t)n) < 0)
		return;
}

static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* The parent: relays the child's messages and takes its verdict. */
static int parent_wait(int fd, pid_t child)
{
	char line[4 * TEXT_MAX + 32];
	int status = 1, wstatus;
	FILE *f = fdopen(fd, "r");

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'W') {
			fprintf(stderr, "testfs: warning: %s\n", line + 2);
		} else if (line[0] == 'R') {
			if (line[2])
				fprintf(stderr, "testfs: %s\n", line + 2);
			fclose(f);
			return 0;
		} else if (line[0] == 'F') {
			char *text = NULL;

			status = (int)strtol(line + 2, &text, 10);
			fprintf(stderr, "testfs: %s\n",
				text && *text ? text + 1 : "start-up failed");
			fclose(f);
			waitpid(child, &wstatus, 0);
			return status ? status : 1;
		}
	}
	fclose(f);
	if (waitpid(child, &wstatus, 0) == child && WIFSIGNALED(wstatus))
		fprintf(stderr,
			"testfs: the daemon died (signal %d) before the mount was ready\n",
			WTERMSIG(wstatus));
	else
		fprintf(stderr,
			"testfs: the daemon exited before the mount was ready\n");
	return 1;
}

int startup_begin(bool foreground)
{
	int fds[2];
	pid_t pid;

	if (foreground)
		return 0;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		fprintf(stderr, "testfs: pipe: %s\n", strerror(errno));
		exit(1);
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "testfs: fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		close(fds[1]);
		exit(parent_wait(fds[0], pid));
	}
	close(fds[0]);
	report_fd = fds[1];
	setsid();
	if (chdir("/") != 0)
		return 0;
	return 0;
}

/*
 * Once start-up has ended, a message goes to stderr when @print (the
 * parent no longer relays it), else nowhere. Returns whether it ended.
 */
static bool after_startup(bool print, const char *prefix, const char *text)
{
	if (done && print)
		fprintf(stderr, "testfs: %s%s\n", prefix, text);
	return done;
}

/* @fmt and @ap formatted, then escaped into @text (4 x TEXT_MAX). */
static void format_text(char *text, const char *fmt, va_list ap)
{
	char raw[TEXT_MAX];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	text_escape(text, 4 * TEXT_MAX, raw, strlen(raw));
}

void startup_warn(const char *fmt, ...)
{
	char text[4 * TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	format_text(text, fmt, ap);
	va_end(ap);
	if (!after_startup(report_fd < 0, "warning: ", text))
		send_line('W', 0, text);
}

void startup_ready(const char *line)
{
	char text[4 * TEXT_MAX];

	if (done)
		return;
	done = true;
	if (line)
		text_escape(text, sizeof(text), line, strlen(line));
	send_line('R', 0, line ? text : NULL);
	if (report_fd >= 0) {
		close(report_fd);
		report_fd = -1;
		detach_stdio();
		/* From here on nothing may print to the closed stderr. */
		report_fd = -2;
	}
}

void startup_fail(int status, const char *fmt, ...)
{
	char text[4 * TEXT_MAX];
	va_list ap;

	va_start(ap, fmt);
	format_text(text, fmt, ap);
	va_end(ap);
	/* Not once the parent has exited (-2): it told how start-up ended. */
	if (after_startup(report_fd == -1, "", text))
		return;
	done = true;
	failed_status = status;
	send_line('F', status, text);
	if (report_fd >= 0) {
		close(report_fd);
		report_fd = -2;
	}
}

bool startup_done(void)
{
	return done;
}

int startup_failed(void)
{
	return failed_status;
}
