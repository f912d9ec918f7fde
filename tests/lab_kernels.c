// SPDX-License-Identifier: MIT
/*
 * The lab kernels (kernel/: Debian's 6.12 with the readahead tracepoints,
 * and 7.3, each alone and with the unconditional or the conditional VMA
 * limit) observed by testfs: each lab scenario runs on each lab kernel in
 * the cache through testfs-matrix, and what the stories say of each policy
 * must hold there:
 *
 *   vma-boundary    lab:LINE fetches around the VMA like every current
 *                   kernel; +vma-limit nothing outside it; +vma-limit-
 *                   conditional nothing before it and at most one
 *                   window (ra_pages) after it
 *   mprotect-split  +vma-limit finds VMA boundaries missing when touched;
 *                   lab:LINE and the conditional limit none
 *   both            every read has a known cause (the tracepoints
 *                   series) and the verdict of the policy the kernel
 *                   carries is "matches"
 *
 * Suite `lab`, outside the default run (docs/matrix.md): exit 77 (meson's
 * skip) with the reason when no lab kernel is cached.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "jsonv.h"
#include "mount_harness.h"

/* Each source line's three kernels, in the order of enum below */
static const char *const lab_specs[] = {
	"lab:6.12", "lab:6.12+vma-limit", "lab:6.12+vma-limit-conditional",
	"lab:7.3",  "lab:7.3+vma-limit",  "lab:7.3+vma-limit-conditional",
};

#define NLAB (sizeof(lab_specs) / sizeof(lab_specs[0]))

enum { BASE, LIMITED, CONDITIONAL, NKINDS };

/* Whether lab_specs[@i] is built (kernels/lab-6.12+SERIES/bzImage). */
static bool built(size_t i)
{
	char root[512], p[1024];

	cache_root(root, sizeof(root));
	snprintf(p, sizeof(p), "%s/kernels/lab-%s/bzImage", root,
		 lab_specs[i] + 4);
	return access(p, R_OK) == 0;
}

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/testfs-test.lab.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	const char *argv[] = { "/bin/rm", "-rf", dir, NULL };
	char *out = NULL;

	if (dir[0])
		harness_run(argv, &out, 30);
	free(out);
}

/* One guest boot and scenario is about 20-40 s under TCG on 2 cores. */
TestSuite(lab, .init = setup, .fini = teardown, .timeout = 900);

/*
 * Runs `testfs-matrix scenario NAME PARAMS` on every built lab kernel;
 * its JSON, and in @idx[i] the run index of lab_specs[i] (-1: not built).
 */
static struct jv *run_matrix(const char *const *scenario, int idx[NLAB])
{
	const char *argv[32];
	char json[128], *out = NULL, *text;
	const char *matrix = getenv("TESTFS_MATRIX");
	struct jv *v;
	int n = 0, runs = 0, code;
	size_t i;

	cr_assert_not_null(matrix, "TESTFS_MATRIX not set");
	snprintf(json, sizeof(json), "%s/out.json", dir);
	argv[n++] = matrix;
	argv[n++] = "--timeout";
	argv[n++] = "300";
	argv[n++] = "--json";
	argv[n++] = json;
	for (i = 0; i < NLAB; i++) {
		idx[i] = -1;
		if (!built(i))
			continue;
		argv[n++] = "--kernel";
		argv[n++] = lab_specs[i];
		idx[i] = runs++;
	}
	if (!runs)
		cr_skip_test("no lab kernel cached");
	argv[n++] = "scenario";
	while (*scenario && n < 31)
		argv[n++] = *scenario++;
	argv[n] = NULL;
	code = harness_run(argv, &out, 310 * runs);
	cr_assert_eq(code, 0, "testfs-matrix exited %d:\n%s", code, out);
	text = harness_read_file(json, NULL);
	cr_assert_not_null(text, "%s not written:\n%s", json, out);
	v = jv_parse(text, strlen(text));
	cr_assert_not_null(v, "%s is not whole JSON", json);
	cr_log_info("%s", out);
	free(text);
	free(out);
	return v;
}

static const struct jv *run_of(const struct jv *v, int i)
{
	char path[32];
	const struct jv *r;
	const char *status;

	snprintf(path, sizeof(path), "runs.%d", i);
	r = jv_get(v, path);
	cr_assert_not_null(r);
	status = jv_str(r, "status");
	cr_assert(status && strcmp(status, "ok") == 0, "%s: %s: %s",
		  jv_str(r, "spec"), status, jv_str(r, "reason"));
	return r;
}

/*
 * Every read of the scenario has a cause other than "unknown": the lab
 * kernels have the readahead:* events 6.18 has.
 */
static void expect_known_causes(const struct jv *r)
{
	const struct jv *reads = jv_get(r, "result.fetched.request_list");
	const char *spec = jv_str(r, "spec");
	size_t i;

	cr_expect(jv_get(r, "result.fetched.causes_available") &&
			  jv_get(r, "result.fetched.causes_available")->b,
		  "%s: causes not available", spec);
	cr_assert(reads && reads->type == JV_ARR && reads->n,
		  "%s: no request_list", spec);
	for (i = 0; i < reads->n; i++) {
		const char *c = jv_str(reads->vals[i], "cause");

		cr_expect(c && strcmp(c, "unknown") != 0,
			  "%s: read %zu (page %.0f) has cause %s", spec, i,
			  jv_num(reads->vals[i], "page", -1), c ? c : "(none)");
	}
}

/* The verdict row of the policy the kernel carries says "matches". */
static void expect_carried_matches(const struct jv *r, const char *model)
{
	const struct jv *rows = jv_get(r, "result.verdicts.policies");
	const char *spec = jv_str(r, "spec");
	const char *release = jv_str(r, "release");
	size_t i, carried = 0;

	cr_assert(rows && rows->type == JV_ARR, "%s: no verdicts", spec);
	cr_expect(release && jv_str(r, "result.verdicts.kernel") &&
			  strcmp(release,
				 jv_str(r, "result.verdicts.kernel")) == 0,
		  "%s: verdicts observed on %s, the guest is %s", spec,
		  jv_str(r, "result.verdicts.kernel"), release);
	for (i = 0; i < rows->n; i++) {
		const struct jv *row = rows->vals[i];
		const struct jv *c = jv_get(row, "kernel_carries");

		if (!c || !c->b)
			continue;
		carried++;
		cr_expect_str_eq(jv_str(row, "model"), model, "%s", spec);
		cr_expect_str_eq(jv_str(row, "verdict"), "matches",
				 "%s: %s: expected %s, observed %s", spec,
				 jv_str(row, "policy"), jv_str(row, "expected"),
				 jv_str(row, "observed"));
	}
	cr_expect_eq(carried, 1, "%s (%s): %zu rows carried", spec, release,
		     carried);
}

static const char *const models[NKINDS] = {
	"current kernels",
	"VMA-limited",
	"conditional VMA limit",
};

Test(lab, vma_boundary)
{
	const char *const args[] = { "vma-boundary", "throughput=no", NULL };
	int idx[NLAB];
	struct jv *v = run_matrix(args, idx);
	size_t i;

	for (i = 0; i < NLAB; i++) {
		const struct jv *r;
		double before, after, ra;

		if (idx[i] < 0)
			continue;
		r = run_of(v, idx[i]);
		before = jv_num(r, "result.fetched.before", -1);
		after = jv_num(r, "result.fetched.after", -1);
		ra = jv_num(r, "result.settings.ra_pages", 32);
		cr_log_info("%s: %.0f before, %.0f after the VMA", lab_specs[i],
			    before, after);
		switch (i % NKINDS) {
		case BASE:
			/* Read-around starts ra_pages/2 before the VMA. */
			cr_expect_gt(before, 0, "%s", lab_specs[i]);
			cr_expect_gt(after, 0, "%s", lab_specs[i]);
			break;
		case LIMITED:
			cr_expect_eq(before, 0, "%s", lab_specs[i]);
			cr_expect_eq(after, 0, "%s", lab_specs[i]);
			break;
		case CONDITIONAL:
			/* At most the window a fault ra_pages from the end
			 * starts (kernel/README.md). */
			cr_expect_eq(before, 0, "%s", lab_specs[i]);
			cr_expect_leq(after, ra, "%s", lab_specs[i]);
			break;
		}
		expect_known_causes(r);
		expect_carried_matches(r, models[i % NKINDS]);
	}
	jv_free(v);
}

Test(lab, mprotect_split)
{
	const char *const args[] = { "mprotect-split", NULL };
	int idx[NLAB];
	struct jv *v = run_matrix(args, idx);
	size_t i;

	for (i = 0; i < NLAB; i++) {
		const struct jv *r;
		double missing;

		if (idx[i] < 0)
			continue;
		r = run_of(v, idx[i]);
		missing = jv_num(
			r, "result.verdicts.policies.0.observed_missing", -1);
		cr_log_info(
			"%s: %.0f of %.0f boundaries missing, %.1f ms",
			lab_specs[i], missing,
			jv_num(r, "result.verdicts.policies.0.boundaries", -1),
			jv_num(r, "result.done.touch_ms", -1));
		if (i % NKINDS == LIMITED)
			cr_expect_gt(missing, 0, "%s", lab_specs[i]);
		else
			cr_expect_eq(missing, 0, "%s", lab_specs[i]);
		expect_known_causes(r);
		expect_carried_matches(r, models[i % NKINDS]);
	}
	jv_free(v);
}

int main(int argc, char *argv[])
{
	struct criterion_test_set *tests;
	char root[512];
	bool any = false;
	size_t i;
	int ok = 1;

	for (i = 0; i < NLAB; i++)
		any |= built(i);
	if (!any) {
		cache_root(root, sizeof(root));
		printf("SKIP: no lab kernel in %s/kernels (build them with "
		       "testfs-matrix build, --patches vma-limit, --patches "
		       "vma-limit-conditional)\n",
		       root);
		return 77;
	}
	tests = criterion_initialize();
	if (criterion_handle_args(argc, argv, true))
		ok = criterion_run_all_tests(tests);
	criterion_finalize(tests);
	return ok ? 0 : 1;
}
