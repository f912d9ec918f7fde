// SPDX-License-Identifier: MIT
/*
 * The framework's run of a scenario's steps (scenario/core/run.c): measure,
 * analyse and render in order on one zeroed result, release on every path,
 * the first failure returned and the steps after it not run, the older
 * single run() still run.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "scenario.h"

struct fake_result {
	/* Zeroed by the framework: measure() checks it. */
	char zero[64];
	int value;
};

/* The order the steps ran in, one letter each, and what they should do. */
static char trace[16];
static int measure_err, analyse_err;
/* What render() saw. */
static int rendered;

static void step(char c)
{
	size_t n = strlen(trace);

	if (n + 1 < sizeof(trace))
		trace[n] = c;
}

static int fake_measure(struct scenario_ctx *ctx, void *result)
{
	struct fake_result *r = result;
	size_t i;

	step('m');
	for (i = 0; i < sizeof(r->zero); i++)
		cr_assert_eq(r->zero[i], 0);
	r->value = 41;
	return measure_err ? scenario_fail(ctx, measure_err, "measuring") : 0;
}

static int fake_analyse(struct scenario_ctx *ctx, void *result)
{
	struct fake_result *r = result;

	step('a');
	cr_assert_eq(r->value, 41);
	r->value++;
	return analyse_err ? scenario_fail(ctx, analyse_err, "analysing") : 0;
}

static void fake_render(struct scenario_ctx *ctx, const void *result)
{
	const struct fake_result *r = result;

	(void)ctx;
	step('r');
	rendered = r->value;
}

static void fake_release(void *result)
{
	(void)result;
	step('f');
}

static int fake_run(struct scenario_ctx *ctx)
{
	(void)ctx;
	step('R');
	return -EAGAIN;
}

static const struct param_def no_params[] = {
	{ NULL, 0, NULL, NULL, NULL, 0, 0, NULL },
};

static const struct scenario steps = {
	.name = "fake",
	.summary = "",
	.description = "",
	.params = no_params,
	SCENARIO_STEPS(struct fake_result, fake_measure, fake_analyse,
		       fake_render, fake_release),
};

static int execute(const struct scenario *sc, struct scenario_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	memset(trace, 0, sizeof(trace));
	ctx->sc = sc;
	return scenario_execute(ctx);
}

Test(scenario_steps, in_order_then_released)
{
	struct scenario_ctx ctx;

	measure_err = analyse_err = 0;
	cr_assert_eq(execute(&steps, &ctx), 0);
	cr_assert_str_eq(trace, "marf");
	cr_assert_eq(rendered, 42);
}

Test(scenario_steps, measure_fails_released_not_rendered)
{
	struct scenario_ctx ctx;

	measure_err = -ENOENT;
	analyse_err = 0;
	cr_assert_eq(execute(&steps, &ctx), -ENOENT);
	cr_assert_str_eq(trace, "mf");
	cr_assert(strstr(ctx.why, "measuring") != NULL, "why: %s", ctx.why);
}

Test(scenario_steps, analyse_fails_released_not_rendered)
{
	struct scenario_ctx ctx;

	measure_err = 0;
	analyse_err = -EINVAL;
	cr_assert_eq(execute(&steps, &ctx), -EINVAL);
	cr_assert_str_eq(trace, "maf");
	cr_assert(strstr(ctx.why, "analysing") != NULL, "why: %s", ctx.why);
}

Test(scenario_steps, optional_steps_left_out)
{
	const struct scenario bare = {
		.name = "bare",
		.params = no_params,
		SCENARIO_STEPS(struct fake_result, fake_measure, NULL,
			       fake_render, NULL),
	};
	struct scenario_ctx ctx;

	measure_err = analyse_err = 0;
	/* render() sees 41: no analyse() ran to make it 42. */
	cr_assert_eq(execute(&bare, &ctx), 0);
	cr_assert_str_eq(trace, "mr");
	cr_assert_eq(rendered, 41);
}

Test(scenario_steps, older_run_function)
{
	const struct scenario old = {
		.name = "old",
		.params = no_params,
		.run = fake_run,
	};
	struct scenario_ctx ctx;

	cr_assert_eq(execute(&old, &ctx), -EAGAIN);
	cr_assert_str_eq(trace, "R");
}
