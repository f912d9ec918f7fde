/* SPDX-License-Identifier: MIT */
/*
 * testfs-scenario: the interface between the framework (core/: main.c, the
 * session, the report and the shared helpers) and the scenarios (one
 * folder each, NAME/NAME.c, listed in list.h).
 *
 * A scenario declares its PARAMs (name, default, small-size default,
 * meaning, accepted values) and its steps on a typed result of its own:
 * measure() starts an instance through libtestfs (session_start_params)
 * and does its work, analyse() computes every figure of the report,
 * render() turns the result into the report's sections and release()
 * frees it. A step that fails returns a negative errno with the reason
 * in ctx->why. A scenario never prints: progress goes through
 * progress(), everything else into the report. The framework (main.c,
 * run.c) owns the rest: it runs the steps, stops the instance on every
 * path, reports the daemon's exit status and chooses the command's.
 */
#ifndef SCENARIO_H
#define SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <testfs.h>

#include "pagemap.h"
#include "ra_model.h"
#include "report_tree.h"

enum param_type {
	/* A decimal integer in [min, max]. */
	PARAM_UINT,
	/* A size in bytes with K, M, G suffixes, in [min, max]. */
	PARAM_SIZE,
	/* One of the words in choices ("a|b|c"). */
	PARAM_CHOICE,
	/* A latency model as for testfs --latency. */
	PARAM_MODEL,
	/* A file path; empty: none. */
	PARAM_PATH,
	/* A file to read, checked by the scenario's check(); empty: none. */
	PARAM_INPUT,
};

struct param_def {
	const char *name;
	enum param_type type;
	/* The default, as text, and the one under preset=small (NULL: same). */
	const char *def;
	const char *small;
	const char *help;
	uint64_t min;
	uint64_t max;
	const char *choices;
};

#define SCENARIO_MAX_PARAMS 24

struct scenario_ctx;
struct htmlrep;

struct scenario {
	const char *name;
	/* One line for `list`. */
	const char *summary;
	/* A paragraph for `help NAME`. */
	const char *description;
	/* Ends with { NULL }. */
	const struct param_def *params;
	/*
	 * A scenario as steps, which the framework runs in order on a
	 * zeroed result of result_size bytes (run.c): measure() starts
	 * the instance and does the experiment, keeping what it observed
	 * in the result; analyse() (optional) computes from it everything
	 * the report shows; render() turns the result into the report's
	 * sections, computing nothing but the words around the numbers;
	 * release() (optional) frees what the result holds, on every
	 * path. measure() and analyse() return 0 or a negative errno with
	 * the reason in ctx->why.
	 */
	size_t result_size;
	int (*measure)(struct scenario_ctx *ctx, void *result);
	int (*analyse)(struct scenario_ctx *ctx, void *result);
	void (*render)(struct scenario_ctx *ctx, const void *result);
	void (*release)(void *result);
	/*
	 * Or the whole run as one function (the older form): it measures,
	 * analyses and fills the report itself.
	 */
	int (*run)(struct scenario_ctx *ctx);
	/*
	 * Optional: checks the PARAMs' values before anything starts;
	 * returns 0, or prints why on stderr and returns 2.
	 */
	int (*check)(struct scenario_ctx *ctx);
};

struct session {
	struct testfs_mount *fs;
	const char *file;
	/* The running kernel's page size: the unit of every page count. */
	uint32_t page_size;
	uint64_t file_pages;
	unsigned ra_kb;
	/* Effective values read back from .testfs/config. */
	unsigned ra_pages;
	unsigned max_pages;
	unsigned max_background;
	unsigned congestion_threshold;
	char kernel[128];
	char model[256];
	/*
	 * The transport asked for and the one in use, from testfs_settings()
	 * ("dev" or "uring"; "dev" for a daemon that does not say), and
	 * the daemon's note on it (why it fell back), empty without one.
	 */
	char transport_asked[8];
	char transport[8];
	char transport_note[256];
	/* testfs_tracing(): 1 on, 0 off (why in trace_why), < 0 unknown;
	 * asked again after each snapshot (the daemon decides late). */
	int tracing;
	char trace_why[256];
	/* The settings section, completed by session_stop(). */
	struct rnode *settings;
	/* What session_stop() got from testfs_stop() (0 before). */
	int status;
};

struct scenario_ctx {
	const struct scenario *sc;
	/* Every PARAM: the scenario's, then the common ones. */
	const struct param_def *defs[SCENARIO_MAX_PARAMS];
	const char *value[SCENARIO_MAX_PARAMS];
	uint64_t num[SCENARIO_MAX_PARAMS];
	bool given[SCENARIO_MAX_PARAMS];
	size_t nparams;
	struct report *rep;
	/* --html FILE: the page's model (report/report.h); NULL without. */
	struct htmlrep *html;
	/* Why it could not run. */
	char why[512];
	/*
	 * The transport the next session_start() asks for ("dev" or
	 * "uring"); NULL: the PARAM transport=.
	 */
	const char *transport;
	/*
	 * The instance session_start() starts: the framework owns it and
	 * stops it after the run (session_end()), whatever the run did.
	 */
	struct session session;
};

/*
 * The steps of a scenario whose result is a @type, in its definition:
 * `.params = params, SCENARIO_STEPS(struct x_result, measure, analyse,
 * x_report, release),` (analyse and release may be NULL).
 */
#define SCENARIO_STEPS(type, measure_fn, analyse_fn, render_fn, release_fn)    \
	.result_size = sizeof(type), .measure = (measure_fn),                  \
	.analyse = (analyse_fn), .render = (render_fn),                        \
	.release = (release_fn)

/* The table (list.h): every scenario, in `list` order. */
extern const struct scenario *const scenarios[];
extern const size_t nscenarios;

/* PARAMs every scenario takes (preset, log, trace, timeout), after its own. */
extern const struct param_def common_params[];

/*
 * PARAMs many scenarios declare alike: the mount's read_ahead_kb ("ra"),
 * and the storage model ("model") with its default and what it is for.
 */
/* clang-format off */
#define PARAM_DEF_RA \
	{ "ra", PARAM_UINT, "128", NULL, "read_ahead_kb of the mount", 4, \
	  1048576, NULL }
#define PARAM_DEF_MODEL(def, help) \
	{ "model", PARAM_MODEL, def, NULL, \
	  "storage model for every read (testfs --latency)" help, 0, 0, NULL }
/* clang-format on */

/*
 * run.c: runs ctx->sc (its three steps, or its run()) and returns 0 or
 * the negative errno of the step that failed (the framework then stops
 * the instance and reports; see session_end()).
 */
int scenario_execute(struct scenario_ctx *ctx);

/*
 * params.c. A PARAM's value (the scenario asks only for PARAMs it
 * declared); param_index() is its slot in @ctx, or -1.
 */
int param_index(const struct scenario_ctx *ctx, const char *name);
uint64_t param_u(const struct scenario_ctx *ctx, const char *name);
const char *param_s(const struct scenario_ctx *ctx, const char *name);

/* Records why the scenario could not run; returns @err (negative). */
int scenario_fail(struct scenario_ctx *ctx, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ */
/* Progress on stderr                                                  */
/* ------------------------------------------------------------------ */

/* One line; overwritten in place when stderr is a terminal. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clears the line (terminal) before the report is printed. */
void progress_end(void);

/* ------------------------------------------------------------------ */
/* Sessions: one testfs instance per run                                */
/* ------------------------------------------------------------------ */

/*
 * Starts an instance serving @file of @size bytes (stamp pattern) with
 * read_ahead_kb @ra_kb and latency model @model ("none" or NULL: none),
 * the log written to the PARAM log= path if given. *@s is the
 * framework's session (ctx->session), one at a time: the framework stops
 * it after the run if the scenario did not (session_end()).
 */
int session_start(struct scenario_ctx *ctx, struct session **s,
		  const char *file, uint64_t size, unsigned ra_kb,
		  const char *model);
/*
 * session_start() with the PARAMs size=, ra= and model= of the scenario,
 * then its "settings" section (session_report_settings()).
 */
int session_start_params(struct scenario_ctx *ctx, struct session **s,
			 const char *file);
/*
 * The same for a real file: serves the files of directory @dir
 * (testfs --backing, no --file), @file among them, of @size bytes.
 */
int session_start_backing(struct scenario_ctx *ctx, struct session **s,
			  const char *dir, const char *file, uint64_t size,
			  unsigned ra_kb, const char *model);
/*
 * Reads the number @key of MOUNT/.testfs/NAME (@name "stats" or "config",
 * a top-level member) into @out. Returns 0, -ENOENT when the daemon
 * does not report it, or -errno.
 */
int session_control_number(struct session *s, const char *name, const char *key,
			   uint64_t *out);
/*
 * Completes the settings section (tracing) and stops the instance;
 * returns the daemon's status (see testfs_stop()). A scenario calls it
 * only to run several instances one after another (transports).
 */
int session_stop(struct session *s);

/* @kb KiB in the session's pages (read_ahead_kb to ra_pages). */
static inline unsigned session_kb_pages(const struct session *s, unsigned kb)
{
	return (unsigned)((uint64_t)kb * 1024 / s->page_size);
}
/*
 * The framework's end of a run (main.c): stops ctx->session if it still
 * runs and, for a run that succeeded (@ran), adds the "daemon" section
 * with a non-zero exit status.
 */
void session_end(struct scenario_ctx *ctx, bool ran);
/*
 * The first non-zero status session_stop() got in this run (as
 * testfs_stop() gives it: an exit status, -EINTR for a daemon that had
 * to be killed, or -errno), or 0. testfs-scenario then exits 1.
 */
int session_daemon_status(void);

/*
 * The run's time limit: after @seconds, SIGALRM stops the running
 * instance (its mount goes), prints "timed out after N s (timeout=N)"
 * and exits 1.
 */
void session_arm_timeout(unsigned seconds);

/*
 * ra_model_init() of @m for the session's file, ra_pages and max_pages,
 * under @policy. Returns 0 or -ENOMEM.
 */
int session_ra_model(const struct session *s, enum ra_policy policy,
		     struct ra_model *m);

/* Cold cache and empty log, then a mark "PHASE begin". */
int session_phase(struct scenario_ctx *ctx, struct session *s,
		  const char *phase);
/* A mark "PHASE end", then the snapshot of the phase. */
int session_snapshot(struct scenario_ctx *ctx, struct session *s,
		     const char *phase, struct testfs_log **log);

/* Adds the "settings" section: kernel, knobs, model, tracing. */
void session_report_settings(struct session *s, struct report *r);

/*
 * --html FILE (html_page.c): html_begin() before the run (creates FILE,
 * so a bad path fails before the mount); html_phase()
 * (called by session_snapshot()) takes the first phase that read the
 * file, html_vma() the VMAs the scenario mapped in it; html_finish()
 * writes the page, html_end() frees it. All return 0 or -errno and do
 * nothing without --html.
 */
int html_begin(struct scenario_ctx *ctx, const char *path);
int html_phase(struct scenario_ctx *ctx, struct session *s, const char *phase,
	       const struct testfs_log *log);
int html_vma(struct scenario_ctx *ctx, const char *file, uint64_t first,
	     uint64_t last, int prot);
int html_finish(struct scenario_ctx *ctx, const char *path);
void html_end(struct scenario_ctx *ctx);

/* ------------------------------------------------------------------ */
/* The log                                                             */
/* ------------------------------------------------------------------ */

/* The reads of @name, in arrival order. */
struct read_list {
	const struct testfs_record **v;
	size_t n;
};

int log_reads(const struct testfs_log *log, const char *name,
	      struct read_list *out);
void read_list_free(struct read_list *l);
/*
 * The most common request size in pages (the steady window of a stream),
 * and in *@count (if not NULL) how many reads had it; 0 for no reads.
 */
uint64_t read_list_usual_pages(const struct read_list *reads, uint64_t *count);

/*
 * What the readahead model under @policy fetches of the session's file
 * when @drive (the scenario's accesses, on @arg) runs it: its windows
 * added to @out and, in *@same, whether they are @reads (each window
 * split at the model's max_request, in order, and nothing more).
 * Returns 0, or -ENOMEM or @drive's negative errno.
 */
int session_predict(const struct session *s, enum ra_policy policy,
		    int (*drive)(struct ra_model *m, const void *arg),
		    const void *arg, const struct read_list *reads,
		    struct testfs_extents *out, bool *same);

/* Frees each of the @n extents of @v. */
void extents_free_n(struct testfs_extents *v, size_t n);

/* Pages of @e within [@first, @last]. */
uint64_t extents_pages_in(const struct testfs_extents *e, uint64_t first,
			  uint64_t last);

/*
 * Adds "request_list": in text the first @max reads as "(page,pages)";
 * in JSON every read as {"page", "pages", "cause"}.
 */
void report_requests(struct rnode *parent, const struct read_list *reads,
		     size_t max);

/*
 * Adds a policy verdict row: policy, expected, observed, verdict (prose);
 * returns the row, for the numbers (verdict_num()).
 */
struct rnode *report_verdict(struct rnode *table, const char *policy,
			     const char *expected, const char *observed,
			     const char *verdict);
/* A number of a verdict row, JSON only ("expected_after": 58). */
void verdict_num(struct rnode *row, const char *key, uint64_t v);

/*
 * The kernel the verdicts are observed on (uname -r, set by
 * session_start()): each verdict row carries it ("kernel", JSON), and
 * report_verdicts() says it in text.
 */
void report_verdict_kernel(const char *release);

/*
 * The "verdicts" section, opened with the kernel it was observed on and,
 * on a testfs lab kernel, the policy that kernel carries (its row must
 * say "matches").
 */
struct rnode *report_verdicts(struct report *rep);

/*
 * Marks @row as the verdict of @policy: "kernel_carries" (JSON) is true
 * when the kernel is a lab kernel built with that policy's patch.
 */
void verdict_policy(struct rnode *row, enum ra_policy policy);

/* ------------------------------------------------------------------ */
/* Kernel correlation                                                  */
/* ------------------------------------------------------------------ */

/*
 * Why the kernel fetched what it fetched: the causes, windows and
 * accesses the daemon's tracer attaches to the log (logview.c). They need
 * kernel tracing (root and tracefs; session.tracing); without it the
 * pages are all of unknown cause, accesses and windows are empty, and
 * each report section says why instead of showing zeros.
 */

/* Causes a read can have (the index of enum testfs_cause). */
#define NCAUSES 7

/* Pages fetched by cause (out[cause], each emptied first). */
int log_fetched_by_cause(const struct testfs_log *log, const char *name,
			 struct testfs_extents out[NCAUSES]);

/*
 * What the log says of @name: the pages fetched (testfs_log_fetched()),
 * the same by cause, and the reads in order; any of them may be NULL.
 * Returns 0 or -errno.
 */
int log_file_view(const struct testfs_log *log, const char *name,
		  struct testfs_extents *fetched,
		  struct testfs_extents by_cause[NCAUSES],
		  struct read_list *reads);

/*
 * Pages of @name the kernel saw accessed with @type (kernel tracing;
 * empty without), into @out (emptied first).
 */
int log_accessed(const struct testfs_log *log, const char *name,
		 enum testfs_access_type type, struct testfs_extents *out);

/* Adds "causes": the pages per cause, or why they are not available. */
void report_causes(struct rnode *parent, const struct session *s,
		   const struct testfs_log *log,
		   const struct testfs_extents by_cause[NCAUSES]);

/*
 * Adds "usage" (testfs_log_usage(): pages fetched, accessed, mapped by
 * fault-around, wasted, late) when the log is traced.
 */
void report_usage(struct rnode *parent, const struct testfs_log *log,
		  const char *name);

/*
 * Adds "page_age" (testfs_log_page_age(): page fetches, late, never
 * accessed, only mapped, resolution, and the age histogram as a table of
 * from_us, below_us, pages) when the log is traced (core/report_age.c).
 */
void report_page_age(struct rnode *parent, const struct testfs_log *log,
		     const char *name);

/*
 * Adds the traced windows of @name (id, cause, trigger, start, size,
 * async size, marker, pages read): in text the first @head and the last
 * @tail, in JSON all of them.
 */
void report_windows(struct rnode *parent, const struct testfs_log *log,
		    const char *name, size_t head, size_t tail);

/* Adds rows per cause to @m (one row per cause with pages). */
void pagemap_fetched_rows(struct pagemap *m,
			  const struct testfs_extents by_cause[NCAUSES]);

/* ------------------------------------------------------------------ */
/* Workloads                                                           */
/* ------------------------------------------------------------------ */

/* One run of the fio matrix: engine, rw, and what it took. */
struct fio_cell {
	const char *engine;
	const char *rw;
	uint64_t ns;
	uint64_t requests;
	uint64_t fetched;
};

#define FIO_CELLS 4

struct fio_matrix {
	uint64_t npages;
	struct fio_cell cell[FIO_CELLS];
};

/*
 * The patch's fio matrix without fio: 4 KiB mmap and pread(2), rw=read
 * and randread (PARAM seed), over pages [@first, @first + @npages) of the
 * session's file, each from a cold cache (phases "mmap read", ...), into
 * @out. Returns 0 or a negative errno (ctx->why).
 */
int fio_matrix_run(struct scenario_ctx *ctx, struct session *s, uint64_t first,
		   uint64_t npages, struct fio_matrix *out);
/* Adds what the runs were and their table to @sec. */
void fio_matrix_report(struct rnode *sec, const struct fio_matrix *fm);

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

uint64_t now_ns(void);
/* qsort() order of uint64_t values. */
int u64_cmp(const void *a, const void *b);
/* MB/s (10^6 bytes per second). */
double mb_per_s(uint64_t bytes, uint64_t ns);
/* "16M", "1G", "4K", or bytes. */
const char *size_text(uint64_t bytes, char *buf, size_t size);

#endif
