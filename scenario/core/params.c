// SPDX-License-Identifier: MIT
/*
 * What a running scenario asks of its context: its PARAM values and a
 * place for the reason it failed. Apart from main.c, which fills the
 * context and calls the scenarios, so that no scenario calls back into
 * main.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scenario.h"

int param_index(const struct scenario_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->nparams; i++)
		if (strcmp(ctx->defs[i]->name, name) == 0)
			return (int)i;
	return -1;
}

uint64_t param_u(const struct scenario_ctx *ctx, const char *name)
{
	int i = param_index(ctx, name);

	return i < 0 ? 0 : ctx->num[i];
}

const char *param_s(const struct scenario_ctx *ctx, const char *name)
{
	int i = param_index(ctx, name);

	return i < 0 ? "" : ctx->value[i];
}

int scenario_fail(struct scenario_ctx *ctx, int err, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	va_start(ap, fmt);
	used = (size_t)vsnprintf(ctx->why, sizeof(ctx->why), fmt, ap);
	va_end(ap);
	if (err && used < sizeof(ctx->why))
		snprintf(ctx->why + used, sizeof(ctx->why) - used, ": %s",
			 strerror(err < 0 ? -err : err));
	return err < 0 ? err : -EIO;
}
