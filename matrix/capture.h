/* SPDX-License-Identifier: MIT */
/*
 * Running one child process with a time limit and reading what it prints:
 * the matrix runner on the host, QEMU with the guest's serial console on
 * its stdout, apt-get and dpkg. Output lines of the form
 * "@@testfs-matrix begin|end|progress|booted|done ..." are framing from
 * matrix/run.sh and init.sh: frames are decoded (base64) as they arrive.
 */
#ifndef TESTFS_MATRIX_CAPTURE_H
#define TESTFS_MATRIX_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

struct frame {
	char *name;
	char *data; /* NUL-terminated, @len bytes before the NUL */
	size_t len;
	bool whole; /* its length matched the end line's */
};

struct capture {
	struct frame *frames;
	size_t nframes;
	bool booted; /* the guest's init began */
	bool done;   /* the runner finished */
	bool timed_out;
	int status; /* wait status; -1 if never started */
	char *text; /* everything printed, at most the last CAPTURE_KEEP */
	size_t text_len;
};

struct capture_opts {
	const char *const *argv;
	const char *cwd;     /* NULL: unchanged */
	char *const *setenv; /* "KEY=VALUE" to set in the child, NULL-ended */
	int timeout_s;	     /* killed (its process group) after this */
	const char *label;   /* progress lines printed as "[label] ..." */
};

/*
 * Runs @o->argv to its end or its time limit and fills @c. Returns 0 when
 * it ran (whatever its exit status), -errno if it could not be started.
 */
int capture_run(const struct capture_opts *o, struct capture *c);

/*
 * Fills @c from @len bytes of a console log written by someone else (a
 * CI engine that booted the guest image): frames, booted, done.
 */
void capture_parse(struct capture *c, const char *text, size_t len);

/*
 * Kills the process group of the child capture_run() is waiting for, if
 * any: for a signal handler, as the child runs in its own group and gets
 * no terminal signal itself.
 */
void capture_kill_current(void);

/* The last frame called @name, or NULL. */
const struct frame *capture_frame(const struct capture *c, const char *name);

/* The last @lines lines printed (malloc'd, never NULL unless no memory). */
char *capture_tail(const struct capture *c, unsigned lines);

/* Whether the text shows a kernel panic or oops. */
bool capture_panicked(const struct capture *c);

/* The console's first panic or oops line, at most 200 bytes, into @out
 * ("" if none). */
void capture_panic_why(const struct capture *c, char *out, size_t len);

/*
 * Whether the guest is worth booting once more: its kernel panicked or
 * oopsed before the command finished, and it did not run to its time
 * limit (a hang already cost that). The panic line into @why then, as
 * capture_panic_why(). A local run boots it again (matrix/guest.c), a
 * --lava run submits its job again (matrix/lavarun.c).
 */
bool capture_boot_again(const struct capture *c, char *why, size_t len);

void capture_free(struct capture *c);

/* Decodes base64 @in into @out (room for 3 * len / 4 + 3); the bytes. */
size_t base64_decode(const char *in, size_t len, unsigned char *out, bool *bad);

#endif
