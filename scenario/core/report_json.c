// SPDX-License-Identifier: MIT
/*
 * The JSON renderer of the report: one object, a member per keyed node
 * (text-only nodes left out), arrays for lists, tables and verbatim
 * blocks, every request and window in full.
 */
#include "report_i.h"

#include "json.h"
#include "strbuf.h"

static void json_node(const struct rnode *n, struct strbuf *out);

static void json_members(const struct rnode *n, struct strbuf *out)
{
	size_t i;

	bool first = true;

	strbuf_addc(out, '{');
	for (i = 0; i < n->n; i++) {
		if (n->kids[i]->text_only)
			continue;
		if (!first)
			strbuf_addc(out, ',');
		first = false;
		json_add_cstring(out, n->kids[i]->key ? n->kids[i]->key : "");
		strbuf_addc(out, ':');
		json_node(n->kids[i], out);
	}
	strbuf_addc(out, '}');
}

static void json_node(const struct rnode *n, struct strbuf *out)
{
	size_t i;

	switch (n->type) {
	case R_SECTION:
	case R_OBJ:
		json_members(n, out);
		break;
	case R_LIST:
	case R_TABLE:
	case R_LINES:
		strbuf_addc(out, '[');
		for (i = 0; i < n->n; i++) {
			if (i)
				strbuf_addc(out, ',');
			json_node(n->kids[i], out);
		}
		strbuf_addc(out, ']');
		break;
	case R_NULL:
		strbuf_adds(out, "null");
		break;
	case R_STR:
	case R_TEXT:
		json_add_cstring(out, n->str ? n->str : "");
		break;
	default:
		rnode_scalar(n, out, true);
		break;
	}
}

int report_print_json(struct report *r, FILE *f)
{
	struct strbuf out = STRBUF_INIT;
	int err;

	json_members(&r->root, &out);
	strbuf_addc(&out, '\n');
	err = report_write(r, &out, f);
	strbuf_free(&out);
	return err;
}
