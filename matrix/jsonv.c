// SPDX-License-Identifier: MIT
/*
 * The JSON tree (jsonv.h), built with the one JSON reader (src/json/),
 * whose depth limit keeps a hostile result from exhausting the stack.
 */
#include "jsonv.h"

#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

static int push(struct jv *v, char *key, struct jv *val)
{
	struct jv **nv = realloc(v->vals, (v->n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	v->vals = nv;
	if (v->type == JV_OBJ) {
		char **nk = realloc(v->keys, (v->n + 1) * sizeof(*nk));

		if (!nk)
			return -1;
		v->keys = nk;
		v->keys[v->n] = key;
	}
	v->vals[v->n++] = val;
	return 0;
}

static struct jv *parse_val(struct json_reader *in);

/* The members or elements of the object or array that comes next. */
static int parse_container(struct json_reader *in, struct jv *v)
{
	struct json_iter it;

	if (v->type == JV_OBJ)
		json_read_object(in, &it);
	else
		json_read_array(in, &it);
	while (json_read_next(&it)) {
		/* A key too long for the reader matches no path: none. */
		char *key = v->type == JV_OBJ ? strdup(it.key_cut ? "" : it.key)
					      : NULL;
		struct jv *val = parse_val(in);

		if ((v->type == JV_OBJ && !key) || !val || push(v, key, val)) {
			free(key);
			jv_free(val);
			return -1;
		}
	}
	return json_read_error(in) ? -1 : 0;
}

static struct jv *parse_val(struct json_reader *in)
{
	struct jv *v = calloc(1, sizeof(*v));
	int err = -1;

	if (!v)
		return NULL;
	switch (json_read_peek(in)) {
	case JSON_OBJECT:
	case JSON_ARRAY:
		v->type = json_read_peek(in) == JSON_OBJECT ? JV_OBJ : JV_ARR;
		err = parse_container(in, v);
		break;
	case JSON_STRING:
		v->type = JV_STR;
		err = json_read_string(in, &v->str);
		break;
	case JSON_NUMBER:
		v->type = JV_NUM;
		err = json_read_double(in, &v->num);
		break;
	case JSON_BOOL:
		v->type = JV_BOOL;
		err = json_read_bool(in, &v->b);
		break;
	case JSON_NULL:
		v->type = JV_NULL;
		err = json_read_null(in) ? 0 : json_read_skip(in);
		break;
	default:
		break;
	}
	if (err) {
		jv_free(v);
		return NULL;
	}
	return v;
}

struct jv *jv_parse(const char *text, size_t len)
{
	struct json_reader in;
	struct jv *v;

	if (json_reader_init(&in, text, len, 0))
		return NULL;
	v = parse_val(&in);
	if (v && json_read_end(&in)) {
		jv_free(v);
		return NULL;
	}
	return v;
}

void jv_free(struct jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		jv_free(v->vals[i]);
	}
	free(v->keys);
	free(v->vals);
	free(v->str);
	free(v);
}

const struct jv *jv_get(const struct jv *v, const char *path)
{
	char key[128];
	size_t i, n;

	while (v && *path) {
		n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		path += n + (path[n] == '.');
		if (v->type == JV_OBJ) {
			for (i = 0; i < v->n; i++)
				if (strcmp(v->keys[i], key) == 0)
					break;
		} else if (v->type == JV_ARR) {
			char *e;

			i = strtoul(key, &e, 10);
			if (*e)
				return NULL;
		} else {
			return NULL;
		}
		v = i < v->n ? v->vals[i] : NULL;
	}
	return v;
}

const char *jv_str(const struct jv *v, const char *path)
{
	v = jv_get(v, path);
	return v && v->type == JV_STR ? v->str : NULL;
}

double jv_num(const struct jv *v, const char *path, double def)
{
	v = jv_get(v, path);
	return v && v->type == JV_NUM ? v->num : def;
}

bool jv_true(const struct jv *v, const char *path)
{
	v = jv_get(v, path);
	return v && v->type == JV_BOOL && v->b;
}

bool jv_str_is(const struct jv *v, const char *path, const char *want)
{
	const char *s = jv_str(v, path);

	return s && strcmp(s, want) == 0;
}
