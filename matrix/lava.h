/* SPDX-License-Identifier: MIT */
/*
 * testfs-matrix and LAVA (the job scheduler of kernel CI labs): each
 * kernel of a run as a LAVA job of device type qemu that boots the
 * kernel with the guest image as its ramdisk and records one result
 * per test case from the guest's plain `testfs-result:` lines (a
 * `monitors` test); the jobs written for other tooling (lava-job),
 * submitted and followed through lavacli (--lava), and LAVA's job log
 * read back by decode. See docs/matrix.md.
 */
#ifndef TESTFS_MATRIX_LAVA_H
#define TESTFS_MATRIX_LAVA_H

#include <stdbool.h>
#include <stddef.h>

struct matrix;
struct run;

struct lava_opts {
	const char *url;	   /* --lava: the server's URL, or NULL */
	const char *token;	   /* --lava-token FILE, or NULL */
	const char *artifacts;	   /* --artifacts DIR, or NULL */
	const char *artifacts_url; /* --artifacts-url BASE, or NULL */
	const char *arch;	   /* --arch: every kernel's (or NULL) */
	int job_timeout_s;	   /* --lava-timeout: LAVA's limit, or 0 */
};

/* LAVA's own time limit for each job, in seconds: --lava-timeout, else
 * --timeout and 10 minutes (the guest's boot and the deploy). */
int lava_job_timeout(const struct matrix *m, const struct lava_opts *o);

/* The LAVA job of one kernel: where its files are. */
struct lava_job {
	char dir[4096]; /* DIR/SLUG: bzImage, initrd.cpio, job.yaml */
	char yaml[4200];
	char url[4400]; /* the job's page, once submitted */
	long id;	/* 0: not submitted */
};

/* Whether @text is a LAVA job log (its first line an entry). */
bool lava_log_is(const char *text, size_t len);

/*
 * The console lines (the entries of level "target") of the LAVA job log
 * @text, one a line: malloc'd, its length in @out_len.
 */
char *lava_log_console(const char *text, size_t len, size_t *out_len);

/*
 * Checks the LAVA options: 0, or 2 after a usage message. @for_lava: the
 * command is a --lava run (else lava-job).
 */
int lava_check_opts(struct lava_opts *o, bool for_lava);
/*
 * The kernels of @specs resolved and their guest images and jobs written
 * to the artifacts folder: *@runs (malloc'd) and *@np; @o_arch (--arch,
 * or NULL) must be every kernel's architecture. 0, 1 or 2.
 */
int lava_prepare(struct matrix *m, const char *const *specs, size_t nspec,
		 struct run **runs, size_t *np, const char *o_arch);

/* Makes the run's scratch folder (m->workdir). 0, or 1 after a message. */
int lava_workdir(struct matrix *m);

/*
 * Writes every kernel's artifacts and job definition under
 * o->artifacts (@runs already prepared; a skipped run gets no job).
 * 0, or 1 after a message.
 */
int lava_write_jobs(struct matrix *m, struct run *runs, struct lava_job *jobs,
		    size_t n, const struct lava_opts *o);

/*
 * lava-job COMMAND [ARGS...]: the jobs of every --kernel, written and
 * listed. 0, 1 or 2.
 */
int cmd_lava_job(struct matrix *m, const char *const *specs, size_t nspec,
		 struct lava_opts *o);

/*
 * A --lava run of COMMAND on @specs (default: Debian's three lines):
 * checks, writes the jobs, runs them (lava_run_all); @runs (malloc'd,
 * @n of them) for the table and files. 0, 1 or 2.
 */
int lava_main(struct matrix *m, const char *const *specs, size_t nspec,
	      struct lava_opts *o, struct run **runs, size_t *n);

/*
 * --lava URL: submits every kernel's job at once, follows them to their
 * end and fills @runs from their logs. 0, or 1 when LAVA could not be
 * used at all (after a message); a job that failed is a failed run.
 */
int lava_run_all(struct matrix *m, struct run *runs, size_t n,
		 const struct lava_opts *o);

#endif
