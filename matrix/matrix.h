/* SPDX-License-Identifier: MIT */
/*
 * testfs-matrix: the same testfs command on several kernels (the host,
 * and QEMU guests booted from an initramfs holding the project's build),
 * compared side by side. One `struct run` per kernel.
 */
#ifndef TESTFS_MATRIX_H
#define TESTFS_MATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "cache.h"
#include "capture.h"
#include "image.h"
#include "kernel.h"

struct arch_guest;
struct jv;

enum run_status { RUN_OK, RUN_FAILED, RUN_SKIPPED };

/* One suite test's result on one kernel. */
struct test_result {
	char name[200]; /* BINARY:SUITE::TEST */
	enum { T_OK, T_NOT_OK, T_SKIP } result;
	char *diag; /* policy warnings, failure text, skip reason */
};

struct run {
	struct kernel k;
	enum run_status status;
	char reason[1024];
	double seconds;
	char accel[8]; /* "kvm", "tcg" or "" (host) */
	char *caps;    /* the kernel's caps JSON, or NULL */
	char *result;  /* the command's JSON (scenario, touch, suite) */
	size_t result_len;
	struct test_result *tests;
	size_t ntests;
	char *page; /* scenario: the #data of its --html page, or NULL */
	char *log;  /* touch: the daemon's log (JSON Lines), or NULL */
	char *ktap; /* the kernel's KTAP subtest (suite), or NULL */
	char *console_tail; /* failures: the last console lines */
};

struct matrix {
	char **argv; /* the command: scenario NAME ..., touch ..., suite */
	int argc;
	int timeout_s;
	struct bins bins;
	char workdir[256]; /* scratch: base image, per-kernel initrds */
	char base[PATH_MAX - 64];
	bool base_built;
	bool base_failed;
	char base_why[512];
	const char *accel;	  /* NULL: probe */
	struct arch_guest *arm64; /* arm64 guests' image, made on first use */
};

/* The line that ends a run: its status, time, reason, console tail. */
void run_print_end(const struct run *r);
/*
 * @r's architecture's guest image (base archive, x86_64 or arm64), built
 * on first use in m->workdir; NULL with @r skipped and its reason set.
 */
const char *guest_base_image(struct matrix *m, struct run *r);

/*
 * Copies the file @src to @out through a temporary file renamed in place
 * (outfile.h). 0 or -errno.
 */
int copy_out(const char *src, const char *out);

/* Runs the command on @r->k (already prepared). */
void run_kernel(struct matrix *m, struct run *r);

/* The command's outcome on @r from what the runner printed (@c). */
void run_collect(struct matrix *m, struct run *r, const struct capture *c);

/* The suite's frames of @c into @r->tests, @r->ktap, @r->result. */
void suite_collect(struct run *r, const struct capture *c);

/* The touch command's text into @r->result as JSON. */
void touch_collect(struct run *r, const struct capture *c);

/* KTAP version 1 of the whole matrix, one subtest per kernel. */
char *ktap_document(const struct run *runs, size_t n, const char *what);

/* The --json document. */
char *json_document(const struct matrix *m, const struct run *runs, size_t n);

/* The side-by-side table of what differs between kernels. */
void print_table(const struct matrix *m, const struct run *runs, size_t n);

/* "testfs-matrix: " @fmt with @arg, and the --help hint; returns 2. */
int matrix_usage_error(const char *fmt, const char *arg);

/*
 * COMMAND --help: prints the command's whole usage on stdout; false for a
 * command that has none (matrix/usage.c).
 */
bool matrix_command_help(const char *cmd);

/* The command's synopsis lines on @f, for a usage error. */
void matrix_command_synopsis(const char *cmd, FILE *f);

/* Whether an argument after the command is -h or --help. */
bool matrix_wants_help(int argc, char **argv);

/* Checks COMMAND's arguments; 2 (after a message) when they are wrong. */
int check_command(int argc, char **argv);

/* Runs `testfs-scenario help NAME`: 0, or 2 after saying why not. */
int check_scenario(const struct bins *b, const char *name);

/*
 * Whether @name is a result field bisect can compare: a row label of the
 * table ("pages before"), "verdicts", "verdict: POLICY", or a JSON path
 * into the result ("fetched.windows.0.size").
 */
bool result_field_known(const char *name);

/* The table's row labels, quoted and comma-separated, into @buf. */
void result_field_labels(char *buf, size_t len);

/*
 * Calls @fn with the label and the table's rendering of each value
 * @name selects in the result @res ("verdicts": one per policy). Returns
 * how many it found.
 */
int result_fields(const struct jv *res, const char *name,
		  void (*fn)(const char *label, const char *value, void *arg),
		  void *arg);

/*
 * The table on stdout, then the --json and --ktap files (each written to
 * a temporary file and renamed). Returns 0, or 1 if one was not written.
 */
int matrix_finish(const struct matrix *m, const struct run *runs, size_t n,
		  const char *json, const char *ktap);

/* --html FILE: 2 (after a message) for a command it cannot draw. */
int html_check_command(int argc, char **argv);

/* Writes the matrix page (matrix/html.c); 0, or 1 after a message. */
int matrix_html(const struct matrix *m, const struct run *runs, size_t n,
		const char *path);

void run_free(struct run *r);
void cleanup_work(struct matrix *m);

/*
 * Makes @m's scratch folder, $TMPDIR/testfs-matrix.XXXXXX (/tmp when
 * TMPDIR is unset or too long), unless it has one. 0, or -errno.
 */
int matrix_work(struct matrix *m);

/*
 * SIGINT, SIGTERM and SIGHUP from now on: the child in flight is stopped
 * (a capture's process group, the build child's), @m's scratch folder is
 * removed and the process dies of the signal (matrix/signals.c).
 */
void matrix_catch_signals(struct matrix *m);

/*
 * The process group of kernel/build.sh while it runs (0: none): on a
 * signal it gets SIGTERM and a grace period to stop its make.
 */
void matrix_build_child(pid_t pgid);

/*
 * image FILE COMMAND [ARGS...]: writes the guest initramfs that runs
 * COMMAND (with fuse.ko of the one --kernel given, if any) for another
 * CI engine to boot.
 */
int cmd_image(struct matrix *m, const char *const *specs, size_t nspec);

/*
 * decode LOG...: turns console logs of guests booted elsewhere (one a
 * kernel) into the table, --json and --ktap.
 */
int cmd_decode(struct matrix *m, const char *json, const char *ktap);

#endif
