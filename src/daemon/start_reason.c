// SPDX-License-Identifier: MIT
#include "start_reason.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_KEPT 1024

/*
 * Touched only by the stream's write function, which stdio calls under
 * the stream's lock, and by start_reason_send() once serving has ended.
 */
static char line[LINE_MAX_KEPT];
static size_t line_len;
static char last_error[LINE_MAX_KEPT];
static char last_warning[LINE_MAX_KEPT];

static const char prefix[] = "testfs: ";
static const char warning[] = "warning: ";

static void keep_line(void)
{
	const char *s = line;

	line[line_len] = '\0';
	line_len = 0;
	if (strncmp(s, prefix, sizeof(prefix) - 1) == 0)
		s += sizeof(prefix) - 1;
	/* The usage hint after a bad option says nothing of the reason. */
	if (!*s || strncmp(s, "Try '", 5) == 0)
		return;
	if (strncmp(s, warning, sizeof(warning) - 1) == 0)
		snprintf(last_warning, sizeof(last_warning), "%s", s);
	else
		snprintf(last_error, sizeof(last_error), "%s", s);
}

static ssize_t stream_write(void *cookie, const char *buf, size_t size)
{
	size_t done = 0, i;
	ssize_t n;

	(void)cookie;
	while (done < size) {
		n = write(STDERR_FILENO, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	for (i = 0; i < size; i++) {
		if (buf[i] == '\n')
			keep_line();
		else if (line_len < sizeof(line) - 1)
			line[line_len++] = buf[i];
	}
	/* What stderr could not take is dropped, as with a closed stderr. */
	return (ssize_t)size;
}

void start_reason_capture(void)
{
	static const cookie_io_functions_t io = { .write = stream_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (!f)
		return;
	setvbuf(f, NULL, _IONBF, 0);
	fflush(stderr);
	stderr = f;
}

void start_reason_send(int fd)
{
	char buf[LINE_MAX_KEPT + 16];
	const char *why;
	int n;

	if (line_len)
		keep_line();
	why = last_error[0] ? last_error : last_warning;
	n = snprintf(buf, sizeof(buf), "error: %s\n",
		     *why ? why : "start-up failed");
	if (n > (int)sizeof(buf) - 1) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	while (write(fd, buf, (size_t)n) < 0 && errno == EINTR)
		;
}
