// SPDX-License-Identifier: MIT
/*
 * The run of one scenario: its three steps (measure, analyse, render) on
 * one typed result, which is freed on every path. The rest of a run (the
 * report's head, stopping the instance, the outputs and the exit status)
 * is main.c's and the session's.
 */
#include <errno.h>
#include <stdlib.h>

#include "scenario.h"

int scenario_execute(struct scenario_ctx *ctx)
{
	const struct scenario *sc = ctx->sc;
	void *result;
	int err;

	if (sc->run)
		return sc->run(ctx);
	result = calloc(1, sc->result_size ? sc->result_size : 1);
	if (!result)
		return scenario_fail(ctx, -ENOMEM, "%s", sc->name);
	err = sc->measure(ctx, result);
	if (!err && sc->analyse)
		err = sc->analyse(ctx, result);
	if (!err)
		sc->render(ctx, result);
	if (sc->release)
		sc->release(result);
	free(result);
	return err;
}
