// SPDX-License-Identifier: MIT
/*
 * MOUNT/.testfs/config, the one reader of it in the tree: file names for
 * the log's inode numbers (the "files" array), the kernel tracer's state
 * (the "trace" object) and the settings in effect (testfs_settings()).
 * protocol/control_dir.h lists the members it relies on.
 */
#include "lib_i.h"
#include "json_in.h"

#include "control_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What one reading of the config fills; any pointer may be NULL. */
struct config_out {
	struct name_table *names;
	struct trace_state *trace;
	struct testfs_settings *set;
};

void lib_free_names(struct name_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int add_name(struct name_table *t, uint64_t ino, char *name)
{
	struct file_name *v;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;

		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].ino = ino;
	t->v[t->n].name = name;
	t->n++;
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	const struct file_name *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

const char *lib_name_of(const struct name_table *t, uint64_t ino)
{
	struct file_name key = { .ino = ino };
	const struct file_name *f;

	if (!t->n)
		return "";
	f = bsearch(&key, t->v, t->n, sizeof(*t->v), cmp_ino);
	return f ? f->name : "";
}

/* One {"name":..,"ino":..,...} of "files"; one without both is skipped. */
static int parse_file(struct json_in *in, struct name_table *t)
{
	char *key = NULL, *name = NULL;
	bool have_ino = false;
	uint64_t ino = 0;
	int err;

	if (!lib_json_take(in, '{'))
		return -EPROTO;
	if (lib_json_take(in, '}'))
		return 0;
	do {
		err = lib_json_string(in, &key);
		if (err)
			goto free_name;
		if (!lib_json_take(in, ':')) {
			err = -EPROTO;
		} else if (strcmp(key, "name") == 0) {
			free(name);
			name = NULL;
			err = lib_json_string(in, &name);
		} else if (strcmp(key, "ino") == 0) {
			err = lib_json_u64(in, &ino);
			have_ino = true;
		} else {
			err = lib_json_skip(in);
		}
		free(key);
		if (err)
			goto free_name;
	} while (lib_json_take(in, ','));
	if (!lib_json_take(in, '}')) {
		err = -EPROTO;
		goto free_name;
	}
	if (!name || !have_ino)
		goto free_name;
	err = add_name(t, ino, name);
	if (err)
		goto free_name;
	return 0;

free_name:
	free(name);
	return err;
}

static int parse_files(struct json_in *in, struct name_table *t)
{
	int err;

	if (!lib_json_take(in, '['))
		return -EPROTO;
	if (lib_json_take(in, ']'))
		return 0;
	do {
		err = parse_file(in, t);
		if (err)
			return err;
	} while (lib_json_take(in, ','));
	return lib_json_take(in, ']') ? 0 : -EPROTO;
}

/*
 * {"on":true|false,"why":"...",...}: other members (the daemon's
 * details) are skipped. An object without "on" leaves tr->on at -1.
 */
static int parse_trace(struct json_in *in, struct trace_state *tr)
{
	char *key = NULL;
	bool on, reads;
	int err = 0;

	if (!lib_json_take(in, '{'))
		return -EPROTO;
	if (lib_json_take(in, '}'))
		return 0;
	do {
		err = lib_json_string(in, &key);
		if (err)
			return err;
		if (!lib_json_take(in, ':')) {
			err = -EPROTO;
		} else if (strcmp(key, "on") == 0) {
			err = lib_json_bool(in, &on);
			if (!err)
				tr->on = on;
		} else if (strcmp(key, "reads") == 0) {
			err = lib_json_bool(in, &reads);
			if (!err)
				tr->reads = reads;
		} else if (strcmp(key, "why") == 0 &&
			   !lib_json_take_word(in, "null")) {
			free(tr->why);
			tr->why = NULL;
			err = lib_json_string(in, &tr->why);
		} else if (strcmp(key, "why") != 0) {
			err = lib_json_skip(in);
		}
		free(key);
		if (err)
			return err;
	} while (lib_json_take(in, ','));
	return lib_json_take(in, '}') ? 0 : -EPROTO;
}

/* {"requested":N|null,"effective":N|null}: the effective value, 0 if null. */
static int parse_knob(struct json_in *in, unsigned *effective)
{
	char *key = NULL;
	uint64_t v;
	int err = 0;

	if (!lib_json_take(in, '{'))
		return -EPROTO;
	if (lib_json_take(in, '}'))
		return 0;
	do {
		err = lib_json_string(in, &key);
		if (err)
			return err;
		if (!lib_json_take(in, ':')) {
			err = -EPROTO;
		} else if (strcmp(key, "effective") == 0 &&
			   !lib_json_take_word(in, "null")) {
			err = lib_json_u64(in, &v);
			if (!err)
				*effective = v > UINT32_MAX ? UINT32_MAX
							    : (unsigned)v;
		} else if (strcmp(key, "effective") != 0) {
			err = lib_json_skip(in);
		}
		free(key);
		if (err)
			return err;
	} while (lib_json_take(in, ','));
	return lib_json_take(in, '}') ? 0 : -EPROTO;
}

/* A string into @buf of @size bytes (cut to fit); null gives "". */
static int parse_text(struct json_in *in, char *buf, size_t size)
{
	char *s;
	int err;

	buf[0] = '\0';
	if (lib_json_take_word(in, "null"))
		return 0;
	err = lib_json_string(in, &s);
	if (err)
		return err;
	snprintf(buf, size, "%s", s);
	free(s);
	return 0;
}

/* "slow":{"default":"MODEL",...}: the default latency model. */
static int parse_slow(struct json_in *in, struct testfs_settings *set)
{
	char *key = NULL;
	int err = 0;

	if (!lib_json_take(in, '{'))
		return -EPROTO;
	if (lib_json_take(in, '}'))
		return 0;
	do {
		err = lib_json_string(in, &key);
		if (err)
			return err;
		if (!lib_json_take(in, ':'))
			err = -EPROTO;
		else if (strcmp(key, "default") == 0)
			err = parse_text(in, set->latency,
					 sizeof(set->latency));
		else
			err = lib_json_skip(in);
		free(key);
		if (err)
			return err;
	} while (lib_json_take(in, ','));
	return lib_json_take(in, '}') ? 0 : -EPROTO;
}

/* One member of the config object whose key is @key. */
static int parse_member(struct json_in *in, const char *key,
			struct config_out *o)
{
	struct testfs_settings *s = o->set;
	uint64_t v;
	int err;

	if (strcmp(key, "files") == 0)
		return parse_files(in, o->names);
	if (strcmp(key, "trace") == 0)
		return parse_trace(in, o->trace);
	if (!s)
		return lib_json_skip(in);
	if (strcmp(key, "version") == 0)
		return parse_text(in, s->version, sizeof(s->version));
	if (strcmp(key, "kernel") == 0)
		return parse_text(in, s->kernel, sizeof(s->kernel));
	if (strcmp(key, "bdi") == 0)
		return parse_text(in, s->bdi, sizeof(s->bdi));
	if (strcmp(key, "ra_kb") == 0)
		return parse_knob(in, &s->ra_kb);
	if (strcmp(key, "max_pages") == 0)
		return parse_knob(in, &s->max_pages);
	if (strcmp(key, "max_background") == 0)
		return parse_knob(in, &s->max_background);
	if (strcmp(key, "congestion_threshold") == 0)
		return parse_knob(in, &s->congestion_threshold);
	if (strcmp(key, "slow") == 0)
		return parse_slow(in, s);
	if (strcmp(key, "pid") == 0) {
		err = lib_json_u64(in, &v);
		if (!err && v > 0 && v <= INT_MAX)
			s->pid = (pid_t)v;
		return err;
	}
	if (strcmp(key, "log_capacity") == 0) {
		err = lib_json_u64(in, &v);
		if (!err)
			s->log_capacity = v;
		return err;
	}
	return lib_json_skip(in);
}

/* The config object; members it does not know are skipped. */
static int parse_config(const char *buf, size_t len, struct config_out *o)
{
	struct json_in in = { buf, buf + len, 0 };
	char *key;
	int err;

	if (!lib_json_take(&in, '{'))
		return -EPROTO;
	if (lib_json_take(&in, '}'))
		return 0;
	do {
		err = lib_json_string(&in, &key);
		if (err)
			return err;
		if (!lib_json_take(&in, ':'))
			err = -EPROTO;
		else
			err = parse_member(&in, key, o);
		free(key);
		if (err)
			return err;
	} while (lib_json_take(&in, ','));
	if (!lib_json_take(&in, '}'))
		return -EPROTO;
	if (o->names->n > 1)
		qsort(o->names->v, o->names->n, sizeof(*o->names->v), cmp_ino);
	return 0;
}

/* The whole of MOUNT/.testfs/config, malloc'd into *@out (*@len bytes). */
static int slurp_config(const struct testfs_mount *fs, char **out, size_t *len)
{
	size_t cap = 16384, used = 0;
	char *buf, *grown;
	ssize_t n;
	int fd, err = 0;

	fd = lib_open_control(fs, CONTROL_PATH_CONFIG);
	if (fd < 0)
		return fd;
	buf = malloc(cap);
	if (!buf) {
		err = -ENOMEM;
		goto close_fd;
	}
	for (;;) {
		n = lib_read_full(fd, buf + used, cap - used);
		if (n < 0) {
			err = (int)n;
			break;
		}
		used += (size_t)n;
		if (used < cap)
			break;
		grown = realloc(buf, 2 * cap);
		if (!grown) {
			err = -ENOMEM;
			break;
		}
		buf = grown;
		cap *= 2;
	}
	if (err) {
		free(buf);
		goto close_fd;
	}
	*out = buf;
	*len = used;
close_fd:
	close(fd);
	return err;
}

int lib_read_config(const struct testfs_mount *fs, struct name_table *t,
		    struct trace_state *tr, struct testfs_settings *set)
{
	struct name_table names = { 0 };
	struct trace_state trace = { -1, false, NULL };
	struct config_out o = { &names, &trace, set };
	size_t len;
	char *buf;
	int err;

	if (t)
		lib_free_names(t);
	if (tr)
		*tr = trace;
	if (set) {
		memset(set, 0, sizeof(*set));
		set->pid = -1;
	}
	err = slurp_config(fs, &buf, &len);
	if (err)
		return err;
	err = parse_config(buf, len, &o);
	free(buf);
	if (err) {
		lib_free_names(&names);
		free(trace.why);
		if (set)
			memset(set, 0, sizeof(*set));
		return err;
	}
	if (t)
		*t = names;
	else
		lib_free_names(&names);
	if (tr)
		*tr = trace;
	else
		free(trace.why);
	return 0;
}

char *lib_trace_why(const struct trace_state *tr)
{
	if (tr->why && *tr->why)
		return strdup(tr->why);
	if (tr->on < 0)
		return strdup("daemon does not report tracing");
	if (tr->on == 0)
		return strdup("the daemon gives no reason");
	return strdup("the daemon was not tracing when the log was read");
}

int testfs_tracing(struct testfs_mount *fs, char *why, size_t whylen)
{
	struct trace_state tr;
	char *text;
	int err;

	if (why && whylen)
		why[0] = '\0';
	if (!fs)
		return -EINVAL;
	err = lib_read_config(fs, NULL, &tr, NULL);
	if (err)
		return err;
	if (tr.on > 0) {
		free(tr.why);
		return 1;
	}
	text = lib_trace_why(&tr);
	free(tr.why);
	if (!text)
		return -ENOMEM;
	if (why && whylen)
		snprintf(why, whylen, "%s", text);
	free(text);
	return 0;
}

int testfs_settings(const struct testfs_mount *fs, struct testfs_settings *out)
{
	struct name_table names = { 0 };
	struct trace_state tr;
	char *text;
	int err;

	if (!fs || !out)
		return -EINVAL;
	err = lib_read_config(fs, &names, &tr, out);
	if (err)
		return err;
	out->files = names.n;
	lib_free_names(&names);
	if (!out->latency[0])
		snprintf(out->latency, sizeof(out->latency), "none");
	out->tracing = tr.on;
	out->trace_reads = tr.on > 0 && tr.reads;
	text = tr.on > 0 ? NULL : lib_trace_why(&tr);
	free(tr.why);
	if (tr.on <= 0 && !text)
		return -ENOMEM;
	if (text)
		snprintf(out->trace_why, sizeof(out->trace_why), "%s", text);
	free(text);
	return 0;
}
