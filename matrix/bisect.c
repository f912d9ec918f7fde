// SPDX-License-Identifier: MIT
/*
 * testfs-matrix bisect: which patch of a series changes what testfs sees.
 * Step k builds the source with the first k patches (one build tree for
 * all steps, so each step recompiles only what its patch changes, and
 * ccache serves the rest), runs the command on that kernel as the matrix
 * does, and reads the chosen fields out of its result; the first step
 * whose fields differ from the step before names the patch.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "jsonv.h"
#include "lab.h"
#include "matrix.h"
#include "prereq.h"
#include "strbuf.h"

#define MAX_VALUES 32

struct step {
	char spec[512];
	char release[128];
	const char *status; /* "ok", "build failed", "run failed" */
	char reason[1024];
	double build_s, run_s;
	char label[MAX_VALUES][96];
	char value[MAX_VALUES][96];
	size_t n;
	bool changed[MAX_VALUES];
};

static void collect(const char *label, const char *value, void *arg)
{
	struct step *s = arg;

	if (s->n == MAX_VALUES)
		return;
	snprintf(s->label[s->n], sizeof(s->label[s->n]), "%s", label);
	snprintf(s->value[s->n], sizeof(s->value[s->n]), "%s", value);
	s->n++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The value of @label in @s, or NULL. */
static const char *value_of(const struct step *s, const char *label)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->label[i], label))
			return s->value[i];
	return NULL;
}

/* Marks what differs from @prev; whether anything does. */
static bool compare(struct step *s, const struct step *prev)
{
	const char *v;
	bool any = false;
	size_t i;

	for (i = 0; i < s->n; i++) {
		v = value_of(prev, s->label[i]);
		s->changed[i] = !v || strcmp(v, s->value[i]);
		any |= s->changed[i];
	}
	for (i = 0; i < prev->n; i++)
		any |= !value_of(s, prev->label[i]);
	return any;
}

static void print_values(const struct step *s, size_t k)
{
	size_t i;

	fprintf(stderr, "bisect: [%zu] %s:", k, s->spec);
	for (i = 0; i < s->n; i++)
		fprintf(stderr, "%s %s%s %s", i ? ";" : "",
			s->changed[i] ? "*" : "", s->label[i], s->value[i]);
	fprintf(stderr, "%s\n", s->n ? "" : " none of the fields is there");
}

/* Builds and runs step @k into @s. 0, or 1 with s->status said. */
static int run_step(struct matrix *m, const struct lab_req *r, size_t k,
		    struct step *s)
{
	struct run run;
	struct jv *res;
	double t0 = now();
	size_t f;
	int rc;

	rc = lab_req_build(r, k, s->spec, sizeof(s->spec), "bisect");
	s->build_s = now() - t0;
	if (rc) {
		s->status = "build failed";
		snprintf(s->reason, sizeof(s->reason),
			 k ? "the build with patch %zu (%s) failed: see above"
			   : "the base build failed: see above",
			 k, k ? r->patches[k - 1].name : "");
		return 1;
	}
	fprintf(stderr, "bisect: [%zu/%zu] %s built in %.0f s; running %s\n", k,
		r->npatches, s->spec, s->build_s, m->argv[0]);
	memset(&run, 0, sizeof(run));
	t0 = now();
	kernel_prepare(&run.k, s->spec);
	run_kernel(m, &run);
	s->run_s = now() - t0;
	snprintf(s->release, sizeof(s->release), "%s", run.k.release);
	if (run.status != RUN_OK || !run.result) {
		s->status = "run failed";
		snprintf(s->reason, sizeof(s->reason), "%s on %s: %s",
			 m->argv[0], s->spec,
			 run.reason[0] ? run.reason : "no result");
		run_free(&run);
		return 1;
	}
	s->status = "ok";
	res = jv_parse(run.result, run.result_len);
	for (f = 0; res && f < r->nfields; f++)
		result_fields(res, r->fields[f], collect, s);
	jv_free(res);
	run_free(&run);
	return 0;
}

static char *bisect_json(const struct matrix *m, const struct lab_req *r,
			 const struct step *steps, size_t nsteps, long first)
{
	struct strbuf sb = STRBUF_INIT;
	bool first_one;
	size_t i, j;

	strbuf_adds(&sb, "{\"command\":[");
	for (i = 0; i < (size_t)m->argc; i++) {
		strbuf_adds(&sb, i ? "," : "");
		json_add_cstring(&sb, m->argv[i]);
	}
	strbuf_adds(&sb, "],\"source\":");
	json_add_cstring(&sb, r->source);
	strbuf_adds(&sb, ",\"fields\":[");
	for (i = 0; i < r->nfields; i++) {
		strbuf_adds(&sb, i ? "," : "");
		json_add_cstring(&sb, r->fields[i]);
	}
	strbuf_adds(&sb, "],\"first_change\":");
	if (first > 0) {
		strbuf_addf(&sb, "{\"step\":%ld,\"patch\":", first);
		json_add_cstring(&sb, r->patches[first - 1].name);
		strbuf_adds(&sb, ",\"subject\":");
		json_add_cstring(&sb, r->patches[first - 1].subject);
		strbuf_adds(&sb, ",\"file\":");
		json_add_cstring(&sb, r->patches[first - 1].from);
		strbuf_adds(&sb, "}");
	} else {
		strbuf_adds(&sb, "null");
	}
	strbuf_adds(&sb, ",\"steps\":[");
	for (i = 0; i < nsteps; i++) {
		const struct step *s = &steps[i];

		strbuf_addf(&sb, "%s\n{\"step\":%zu,\"patch\":", i ? "," : "",
			    i);
		if (i)
			json_add_cstring(&sb, r->patches[i - 1].name);
		else
			strbuf_adds(&sb, "null");
		strbuf_adds(&sb, ",\"subject\":");
		if (i)
			json_add_cstring(&sb, r->patches[i - 1].subject);
		else
			strbuf_adds(&sb, "null");
		strbuf_adds(&sb, ",\"spec\":");
		json_add_cstring(&sb, s->spec);
		strbuf_adds(&sb, ",\"release\":");
		json_add_cstring(&sb, s->release);
		strbuf_adds(&sb, ",\"status\":");
		json_add_cstring(&sb, s->status ? s->status : "not run");
		strbuf_adds(&sb, ",\"reason\":");
		json_add_cstring(&sb, s->reason);
		strbuf_addf(&sb,
			    ",\"build_seconds\":%.1f,\"run_seconds\":%.1f,"
			    "\"fields\":{",
			    s->build_s, s->run_s);
		for (j = 0; j < s->n; j++) {
			strbuf_adds(&sb, j ? "," : "");
			json_add_cstring(&sb, s->label[j]);
			strbuf_adds(&sb, ":");
			json_add_cstring(&sb, s->value[j]);
		}
		strbuf_adds(&sb, "},\"changed\":[");
		for (j = 0, first_one = true; i && j < s->n; j++)
			if (s->changed[j]) {
				strbuf_adds(&sb, first_one ? "" : ",");
				json_add_cstring(&sb, s->label[j]);
				first_one = false;
			}
		strbuf_adds(&sb, "]}");
	}
	strbuf_adds(&sb, "\n]}\n");
	return strbuf_detach(&sb, NULL);
}

static const char *const default_fields[] = {
	"pages before",
	"pages after",
	"boundaries missing",
	"verdicts",
};

int cmd_bisect(int argc, char **argv)
{
	struct matrix m = { .timeout_s = 600 };
	struct lab_req r;
	struct step *steps;
	char why[1024], labels[1024];
	size_t k, nsteps = 0, i;
	long first = -1;
	int rc;
	char *doc;

	rc = lab_req_parse(argc, argv, true, &r);
	if (rc)
		return rc;
	m.argv = argv + optind;
	m.argc = argc - optind;
	m.timeout_s = r.timeout_s;
	for (i = 0; i < r.nfields; i++)
		if (!result_field_known(r.fields[i])) {
			result_field_labels(labels, sizeof(labels));
			fprintf(stderr,
				"testfs-matrix bisect: unknown --field '%s' "
				"(a row of the table: %s; 'verdicts', "
				"'verdict: POLICY', or a JSON path such as "
				"fetched.before)\n",
				r.fields[i], labels);
			return 2;
		}
	for (i = 0; !r.nfields && i < 4; i++)
		r.fields[i] = default_fields[i];
	if (!r.nfields)
		r.nfields = 4;
	if (!strcmp(m.argv[0], "suite") || !strcmp(m.argv[0], "bisect") ||
	    !strcmp(m.argv[0], "build")) {
		fprintf(stderr,
			"testfs-matrix bisect: COMMAND is scenario or touch "
			"(not %s)\n",
			m.argv[0]);
		return 2;
	}
	if (check_command(m.argc, m.argv))
		return 2;
	if (prereq_check(NEED_CACHE | NEED_BUILD | NEED_GUEST,
			 "testfs-matrix bisect"))
		return 1;
	if (bins_find(&m.bins, why, sizeof(why))) {
		fprintf(stderr, "testfs-matrix bisect: %s\n", why);
		return 2;
	}
	if (!strcmp(m.argv[0], "scenario") &&
	    check_scenario(&m.bins, m.argv[1]))
		return 2;
	rc = lab_req_prepare(&r, true, "bisect");
	if (rc)
		return rc;
	/* Ctrl-C from here on leaves no scratch folder and no build running */
	matrix_catch_signals(&m);
	rc = matrix_work(&m);
	if (rc) {
		fprintf(stderr, "testfs-matrix bisect: mkdtemp: %s\n",
			strerror(-rc));
		return 1;
	}
	r.one_tree = true;
	steps = calloc(r.npatches + 1, sizeof(*steps));
	if (!steps)
		return 1;
	for (k = 0; k <= r.npatches; k++) {
		if (k)
			fprintf(stderr,
				"bisect: [%zu/%zu] patch %zu: %s (%s)\n", k,
				r.npatches, k, r.patches[k - 1].name,
				r.patches[k - 1].subject[0]
					? r.patches[k - 1].subject
					: r.patches[k - 1].from);
		else
			fprintf(stderr, "bisect: [0/%zu] the base: %s\n",
				r.npatches, r.source);
		nsteps = k + 1;
		rc = run_step(&m, &r, k, &steps[k]);
		if (rc) {
			fprintf(stderr, "bisect: [%zu/%zu] %s: %s\n", k,
				r.npatches, steps[k].status, steps[k].reason);
			break;
		}
		if (k && compare(&steps[k], &steps[k - 1]) && first < 0)
			first = (long)k;
		print_values(&steps[k], k);
		if (first > 0 && !r.all)
			break;
	}
	if (!rc && first > 0)
		printf("first change after patch %ld of %zu: %s (%s)\n", first,
		       r.npatches, r.patches[first - 1].name,
		       r.patches[first - 1].subject[0]
			       ? r.patches[first - 1].subject
			       : r.patches[first - 1].from);
	else if (!rc)
		printf("no change in the fields over the %zu patches\n",
		       r.npatches);
	if (r.json) {
		doc = bisect_json(&m, &r, steps, nsteps, first);
		if (!doc || write_atomic(r.json, doc, strlen(doc))) {
			fprintf(stderr,
				"testfs-matrix bisect: --json %s: "
				"cannot write it\n",
				r.json);
			rc = 1;
		}
		free(doc);
	}
	free(steps);
	cleanup_work(&m);
	return rc;
}
