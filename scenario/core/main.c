// SPDX-License-Identifier: MIT
/*
 * testfs-scenario: the kernel stories of READAHEAD.md as runnable
 * experiments. `list`, `help NAME`, `run NAME [--json] [PARAM=VALUE ...]`.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario.h"
#include "parse.h"
#include "latency.h"
#include "rules.h"
#include "strbuf.h"

#define SCENARIO(name) extern const struct scenario name##_scenario;
#include "list.h"
#undef SCENARIO

const struct scenario *const scenarios[] = {
#define SCENARIO(name) &name##_scenario,
#include "list.h"
#undef SCENARIO
};
const size_t nscenarios = sizeof(scenarios) / sizeof(scenarios[0]);

const struct param_def common_params[] = {
	{ "preset", PARAM_CHOICE, "default", NULL,
	  "small: the small sizes the test suite uses (each PARAM's "
	  "\"small\" value) unless given",
	  0, 0, "default|small" },
	{ "log", PARAM_PATH, "", NULL,
	  "also write the read log as JSON Lines to this file (marks "
	  "\"PHASE begin\" and \"PHASE end\" around each phase)",
	  0, 0, NULL },
	{ "trace", PARAM_CHOICE, "auto", NULL,
	  "kernel tracing (causes, windows, folio orders): auto (on when "
	  "root and tracefs allow it), on (required), off",
	  0, 0, "auto|on|off" },
	{ "transport", PARAM_CHOICE, "dev", NULL,
	  "how testfs takes FUSE requests: dev (/dev/fuse) or uring (FUSE "
	  "over io_uring, testfs --transport uring; where the kernel lacks "
	  "it testfs serves /dev/fuse and the settings say why)",
	  0, 0, "dev|uring" },
	{ "timeout", PARAM_UINT, "120", NULL,
	  "seconds after which the run stops: testfs is stopped, its mount "
	  "removed, and the exit status is 1",
	  1, 3600, NULL },
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const char models_text[] =
	"none, nvme, ufs4, sata-ssd, nfs, hdd, a device with overrides "
	"(ufs4:bw=1600MB/s,lat=80us,qd=32), fixed:DUR, uniform:MIN-MAX, "
	"normal:MEAN,SD, lognormal:MEDIAN,SIGMA, bw:RATE";

/*
 * Prints @text wrapped at 79 columns; the first line continues at column
 * @col after a space (0: a new line), the others are indented by @indent.
 */
static void print_wrapped(const char *text, int col, int indent)
{
	struct strbuf sb = STRBUF_INIT;

	if (col)
		strbuf_addc(&sb, ' ');
	else
		strbuf_addf(&sb, "%*s", indent, "");
	text_wrap(&sb, text, col ? col + 1 : indent, indent, 79);
	fputs(sb.data && !sb.oom ? sb.data : "\n", stdout);
	strbuf_free(&sb);
}

static void usage(void)
{
	size_t i;

	fputs("Usage: testfs-scenario list\n"
	      "       testfs-scenario help NAME\n"
	      "       testfs-scenario run NAME [--json] [--html FILE] [PARAM=VALUE ...]\n"
	      "       testfs-scenario -h | --help | -V | --version\n"
	      "\n"
	      "Runs a readahead experiment on a fresh testfs instance (a private\n"
	      "mount under $TMPDIR, started and stopped through libtestfs, with\n"
	      "the read_ahead_kb and storage model the scenario asks for) and\n"
	      "prints a report: the kernel and the settings, what was done, what\n"
	      "the kernel fetched (extents, pages before/inside/after each VMA),\n"
	      "the causes when kernel tracing is available, timings under the\n"
	      "storage model, a verdict per readahead policy (what current\n"
	      "kernels and a VMA-limited kernel would fetch, worked out from\n"
	      "mm/readahead.c; \"not modelled\" otherwise) and a page map at most\n"
	      "100 columns wide. A progress line goes to stderr.\n"
	      "\n"
	      "Commands:\n"
	      "  list          the scenarios, one line each\n"
	      "  help NAME     a scenario's description and PARAMs (defaults,\n"
	      "                small-size values, accepted values, meaning)\n"
	      "  run NAME      run it; --json (anywhere after run) prints one\n"
	      "                JSON object with the same content instead of the\n"
	      "                text report, every request and window in full;\n"
	      "                --html FILE also writes the run as one\n"
	      "                self-contained HTML page (page map, time line,\n"
	      "                windows, verdicts; see testfs-report)\n"
	      "\n"
	      "PARAMs every scenario takes:\n",
	      stdout);
	for (i = 0; common_params[i].name; i++) {
		printf("  %s=%s\n", common_params[i].name,
		       *common_params[i].def ? common_params[i].def : "\"\"");
		print_wrapped(common_params[i].help, 0, 6);
	}
	fputs("\nScenarios (help NAME for their PARAMs):\n", stdout);
	for (i = 0; i < nscenarios; i++)
		printf("  %s\n      %s\n", scenarios[i]->name,
		       scenarios[i]->summary);
	fputs("\nStorage models (PARAM model):", stdout);
	print_wrapped(models_text, 28, 2);
	printf("  See testfs --help.\n"
	       "\n"
	       "Environment: TESTFS_BIN names the testfs daemon to run (default:\n"
	       "the installed one, else the build tree's). Root is needed to set\n"
	       "read_ahead_kb and for kernel tracing; without root the kernel's\n"
	       "128 KiB is used and the report says so.\n"
	       "\n"
	       "Exit status: 0 the scenario ran (whatever the kernel did), 1 it\n"
	       "could not run (the reason is printed), 2 bad arguments.\n");
}

static int bad_args(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad_args(const char *fmt, ...)
{
	va_list ap;

	fputs("testfs-scenario: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'testfs-scenario --help'.\n", stderr);
	return 2;
}

static const struct scenario *find_scenario(const char *name)
{
	size_t i;

	for (i = 0; i < nscenarios; i++)
		if (strcmp(scenarios[i]->name, name) == 0)
			return scenarios[i];
	return NULL;
}

static int unknown_scenario(const char *name)
{
	char names[256] = "";
	size_t i, used = 0;

	for (i = 0; i < nscenarios; i++)
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 "%s%s", i ? ", " : "",
					 scenarios[i]->name);
	return bad_args("unknown scenario '%s' (expected one of: %s)", name,
			names);
}

static void accepted_text(const struct param_def *d, char *buf, size_t size)
{
	char a[32], b[32];
	size_t i;

	switch (d->type) {
	case PARAM_UINT:
		snprintf(buf, size, "an integer in %llu..%llu",
			 (unsigned long long)d->min,
			 (unsigned long long)d->max);
		break;
	case PARAM_SIZE:
		snprintf(
			buf, size,
			"a size in bytes, a multiple of the page size, with an "
			"optional K, M, G or T suffix, from %s to %s, or "
			"\"page\" (the kernel's page size)",
			size_text(d->min, a, sizeof(a)),
			size_text(d->max, b, sizeof(b)));
		break;
	case PARAM_CHOICE:
		snprintf(buf, size, "one of: %s", d->choices);
		for (i = 0; buf[i]; i++)
			if (buf[i] == '|')
				buf[i] = ',';
		break;
	case PARAM_MODEL:
		snprintf(buf, size, "a storage model: %s", models_text);
		break;
	case PARAM_PATH:
		snprintf(buf, size, "a file path (empty: none)");
		break;
	case PARAM_INPUT:
		snprintf(buf, size, "a file to read (empty: the default)");
		break;
	}
}

/*
 * Whether a file can be created at @path: its directory exists and is
 * writable, and @path is not a directory; else the reason in @why.
 */
static bool path_dir_writable(const char *path, char *why, size_t size)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (slash && !slash[1]) {
		snprintf(why, size, "names a directory, not a file");
		return false;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(why, size, "is a directory, not a file");
		return false;
	}
	if (stat(dir, &st) != 0) {
		snprintf(why, size, "directory %.200s: %s", dir,
			 strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, size, "%.200s is not a directory", dir);
		return false;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(why, size, "directory %.200s is not writable: %s", dir,
			 strerror(errno));
		return false;
	}
	return true;
}

/* Checks @val for @d; 0 and the number in *@num, or prints and 2. */
static int check_value(const char *scenario, const struct param_def *d,
		       const char *val, uint64_t *num)
{
	char accepted[512], why_model[256], b[32];
	struct latency_model *m = NULL;
	const char *why = NULL;
	size_t len;
	const char *p;

	*num = 0;
	accepted_text(d, accepted, sizeof(accepted));
	switch (d->type) {
	case PARAM_UINT:
		if (parse_uint(val, d->min, d->max, num, &why))
			break;
		return 0;
	case PARAM_SIZE:
		if (strcmp(val, "page") == 0) {
			*num = testfs_page_size();
		} else if (parse_size(val, 1, num, &why)) {
			if (why && strstr(why, "too large")) {
				snprintf(why_model, sizeof(why_model),
					 "too large (the maximum is %s)",
					 size_text(d->max, b, sizeof(b)));
				why = why_model;
			}
			break;
		}
		if (*num % testfs_page_size()) {
			snprintf(why_model, sizeof(why_model),
				 "not a multiple of the page size (%u bytes)",
				 testfs_page_size());
			why = why_model;
			break;
		}
		if (*num < d->min || *num > d->max) {
			snprintf(why_model, sizeof(why_model),
				 "%s (the %s is %s)",
				 *num < d->min ? "too small" : "too large",
				 *num < d->min ? "minimum" : "maximum",
				 size_text(*num < d->min ? d->min : d->max, b,
					   sizeof(b)));
			why = why_model;
			break;
		}
		return 0;
	case PARAM_CHOICE:
		len = strlen(val);
		for (p = d->choices; len && *p;) {
			size_t n = strcspn(p, "|");

			if (n == len && strncmp(p, val, n) == 0)
				return 0;
			p += n + (p[n] == '|');
		}
		why = "not accepted";
		break;
	case PARAM_MODEL:
		if (latency_parse(val, &m, why_model, sizeof(why_model)) == 0) {
			latency_free(m);
			return 0;
		}
		/* "bad value 'X': " names the model: not again. */
		why = rules_why_detail(why_model, "latency", val);
		break;
	case PARAM_PATH:
		if (!*val ||
		    path_dir_writable(val, why_model, sizeof(why_model)))
			return 0;
		why = why_model;
		break;
	case PARAM_INPUT:
		/* The scenario's check() reads it. */
		return 0;
	}
	if (d->type == PARAM_MODEL || d->type == PARAM_PATH)
		fprintf(stderr,
			"testfs-scenario: PARAM %s: bad value '%s': %s\n",
			d->name, val, why);
	else
		fprintf(stderr,
			"testfs-scenario: PARAM %s: bad value '%s': %s; "
			"accepted: %s\n",
			d->name, val, why ? why : "invalid", accepted);
	fprintf(stderr, "Try 'testfs-scenario help %s'.\n", scenario);
	return 2;
}

static int print_help(const char *name)
{
	const struct scenario *sc = find_scenario(name);
	char accepted[512];
	size_t i;
	int pass;

	if (!sc)
		return unknown_scenario(name);
	printf("%s: %s\n\n", sc->name, sc->summary);
	print_wrapped(sc->description, 0, 0);
	printf("\nPARAMs (run %s PARAM=VALUE ...):\n", sc->name);
	for (pass = 0; pass < 2; pass++) {
		const struct param_def *defs =
			pass ? common_params : sc->params;

		for (i = 0; defs[i].name; i++) {
			const struct param_def *d = &defs[i];

			accepted_text(d, accepted, sizeof(accepted));
			printf("  %s=%s", d->name, *d->def ? d->def : "\"\"");
			if (d->small && strcmp(d->small, d->def))
				printf("   (preset=small: %s)", d->small);
			putchar('\n');
			print_wrapped(d->help, 0, 6);
			print_wrapped(accepted, printf("      accepted:"), 8);
		}
	}
	return 0;
}

static int parse_params(struct scenario_ctx *ctx, int argc, char **argv,
			bool *json, const char **html)
{
	char names[512];
	size_t i, used = 0;
	int a, k, ret;

	for (k = 0; k < 2; k++) {
		const struct param_def *defs =
			k ? common_params : ctx->sc->params;

		for (i = 0; defs[i].name; i++) {
			ctx->defs[ctx->nparams] = &defs[i];
			ctx->value[ctx->nparams] = defs[i].def;
			ctx->nparams++;
			used += (size_t)snprintf(
				names + used, sizeof(names) - used, "%s%s",
				used ? ", " : "", defs[i].name);
		}
	}
	for (a = 0; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		char name[64];

		if (strcmp(argv[a], "--json") == 0) {
			*json = true;
			continue;
		}
		if (strcmp(argv[a], "--html") == 0) {
			if (a + 1 >= argc || !*argv[a + 1])
				return bad_args("--html: expected a FILE");
			*html = argv[++a];
			continue;
		}
		if (!eq || eq == argv[a] ||
		    (size_t)(eq - argv[a]) >= sizeof(name))
			return bad_args("'%s': expected PARAM=VALUE or --json "
					"(PARAMs of %s: %s)",
					argv[a], ctx->sc->name, names);
		memcpy(name, argv[a], (size_t)(eq - argv[a]));
		name[eq - argv[a]] = '\0';
		k = param_index(ctx, name);
		if (k < 0)
			return bad_args("unknown PARAM '%s' for %s (expected "
					"one of: %s)",
					name, ctx->sc->name, names);
		if (ctx->given[k])
			return bad_args("PARAM '%s' given twice ('%s=%s' and "
					"'%s')",
					name, name, ctx->value[k], argv[a]);
		ctx->value[k] = eq + 1;
		ctx->given[k] = true;
	}
	k = param_index(ctx, "preset");
	if (strcmp(ctx->value[k], "small") == 0)
		for (i = 0; i < ctx->nparams; i++)
			if (!ctx->given[i] && ctx->defs[i]->small)
				ctx->value[i] = ctx->defs[i]->small;
	for (i = 0; i < ctx->nparams; i++) {
		ret = check_value(ctx->sc->name, ctx->defs[i], ctx->value[i],
				  &ctx->num[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int run(const char *name, int argc, char **argv)
{
	struct scenario_ctx ctx;
	struct rnode *sec, *list;
	const char *html = NULL;
	bool json = false;
	char title[128];
	size_t i;
	int ret;

	memset(&ctx, 0, sizeof(ctx));
	ctx.sc = find_scenario(name);
	if (!ctx.sc)
		return unknown_scenario(name);
	ret = parse_params(&ctx, argc, argv, &json, &html);
	if (!ret && ctx.sc->check)
		ret = ctx.sc->check(&ctx);
	if (ret)
		return ret;
	if (html) {
		ret = html_begin(&ctx, html);
		if (ret) {
			fprintf(stderr, "testfs-scenario: --html %s: %s\n",
				html, strerror(-ret));
			return ret == -ENOMEM ? 1 : 2;
		}
	}
	/* A time limit for the whole run: on SIGALRM the instance is
	 * stopped, a message printed and the exit status is 1. */
	session_arm_timeout((unsigned)param_u(&ctx, "timeout"));

	snprintf(title, sizeof(title), "testfs-scenario run %s", ctx.sc->name);
	ctx.rep = report_new(title);
	if (!ctx.rep) {
		fprintf(stderr, "testfs-scenario: out of memory\n");
		return 1;
	}
	sec = rep_section(ctx.rep, "scenario", "Scenario");
	rep_str(sec, "name", NULL, "%s", ctx.sc->name);
	rep_str(sec, "summary", NULL, "%s", ctx.sc->summary);
	rep_str(sec, "version", "testfs version", "%s", TESTFS_VERSION);
	list = rep_obj(sec, "params", "PARAMs");
	rep_json_only(list);
	for (i = 0; i < ctx.nparams; i++)
		if (ctx.defs[i]->type == PARAM_UINT ||
		    ctx.defs[i]->type == PARAM_SIZE)
			rep_uint(list, ctx.defs[i]->name, ctx.defs[i]->name,
				 ctx.num[i], NULL);
		else
			rep_str(list, ctx.defs[i]->name, ctx.defs[i]->name,
				"%s", ctx.value[i]);
	list = rep_list(sec, "params_text", "PARAMs");
	rep_text_only(list);
	for (i = 0; i < ctx.nparams; i++)
		rep_str(list, NULL, NULL, "%s=%s", ctx.defs[i]->name,
			*ctx.value[i] ? ctx.value[i] : "\"\"");

	ret = scenario_execute(&ctx);
	session_end(&ctx, ret >= 0);
	progress_end();
	if (ret < 0) {
		fprintf(stderr, "testfs-scenario: %s could not run: %s\n",
			ctx.sc->name, ctx.why[0] ? ctx.why : strerror(-ret));
		report_free(ctx.rep);
		html_end(&ctx);
		/* No page rather than an empty one. */
		if (html)
			remove(html);
		return 1;
	}
	if (html) {
		ret = html_finish(&ctx, html);
		html_end(&ctx);
		if (ret) {
			fprintf(stderr, "testfs-scenario: %s: %s\n", html,
				strerror(-ret));
			report_free(ctx.rep);
			return 1;
		}
	}
	ret = json ? report_print_json(ctx.rep, stdout)
		   : report_print_text(ctx.rep, stdout);
	report_free(ctx.rep);
	if (ret) {
		fprintf(stderr, "testfs-scenario: writing the report: %s\n",
			strerror(-ret));
		return 1;
	}
	/* A daemon that did not stop cleanly is a failed run. */
	ret = session_daemon_status();
	if (ret) {
		if (ret > 0)
			fprintf(stderr,
				"testfs-scenario: the testfs daemon exited "
				"with status %d\n",
				ret);
		else
			fprintf(stderr,
				"testfs-scenario: the testfs daemon did not "
				"stop cleanly: %s\n",
				strerror(-ret));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;

	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		return bad_args("a command is required (list, help, run)");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage();
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("testfs-scenario %s\n", TESTFS_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "list") == 0) {
		if (argc > 2)
			return bad_args("list: unexpected argument '%s'",
					argv[2]);
		for (i = 0; i < nscenarios; i++)
			printf("%-15s %s\n", scenarios[i]->name,
			       scenarios[i]->summary);
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) {
		if (argc != 3)
			return bad_args("help: expected one scenario NAME");
		return print_help(argv[2]);
	}
	if (strcmp(argv[1], "run") == 0) {
		const char *name;
		int a, n = 0;

		/* NAME is the first argument that is not an option. */
		for (a = 2; a < argc && (strcmp(argv[a], "--json") == 0 ||
					 strcmp(argv[a], "--html") == 0);
		     a++)
			if (strcmp(argv[a], "--html") == 0)
				a++;
		if (a >= argc)
			return bad_args("run: expected a scenario NAME");
		/* The others, in order, without NAME. */
		name = argv[a];
		for (i = 2; i < (size_t)argc; i++)
			if ((int)i != a)
				argv[n++] = argv[i];
		return run(name, n, argv);
	}
	return bad_args("unknown command '%s' (expected list, help or run)",
			argv[1]);
}
