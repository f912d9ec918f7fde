// SPDX-License-Identifier: MIT
/*
 * MOUNT/.testfs/config, the one reader of it in the tree: file names for
 * the log's inode numbers (the "files" array), the kernel tracer's state
 * (the "trace" object) and the settings in effect (testfs_settings()).
 * protocol/control_dir.h lists the members it relies on.
 */
#include "lib_i.h"

#include "array.h"
#include "json_reader.h"

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
	if (!array_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v)))
		return -ENOMEM;
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
static int parse_file(struct json_reader *in, struct name_table *t)
{
	struct json_iter it;
	char *name = NULL;
	bool have_ino = false;
	uint64_t ino = 0;
	int err;

	json_read_object(in, &it);
	while (json_read_next(&it)) {
		if (json_key_is(&it, "name")) {
			free(name);
			name = NULL;
			json_read_string(in, &name);
		} else if (json_key_is(&it, "ino")) {
			have_ino = !json_read_u64(in, &ino);
		} else {
			json_read_skip(in);
		}
	}
	err = json_read_error(in);
	if (!err && name && have_ino) {
		err = add_name(t, ino, name);
		if (!err)
			return 0;
	}
	free(name);
	return err;
}

static int parse_files(struct json_reader *in, struct name_table *t)
{
	struct json_iter it;
	int err = 0;

	json_read_array(in, &it);
	while (!err && json_read_next(&it))
		err = parse_file(in, t);
	return err ? err : json_read_error(in);
}

/*
 * {"on":true|false,"why":"...",...}: other members (the daemon's
 * details) are skipped. An object without "on" leaves tr->on at -1.
 */
static void parse_trace(struct json_reader *in, struct trace_state *tr)
{
	struct json_iter it;
	bool on, reads;

	json_read_object(in, &it);
	while (json_read_next(&it)) {
		if (json_key_is(&it, "on")) {
			if (!json_read_bool(in, &on))
				tr->on = on;
		} else if (json_key_is(&it, "reads")) {
			if (!json_read_bool(in, &reads))
				tr->reads = reads;
		} else if (json_key_is(&it, "why") && !json_read_null(in)) {
			free(tr->why);
			tr->why = NULL;
			json_read_string(in, &tr->why);
		} else if (!json_key_is(&it, "why")) {
			json_read_skip(in);
		}
	}
}

/* {"requested":N|null,"effective":N|null}: the effective value, 0 if null. */
static void parse_knob(struct json_reader *in, unsigned *effective)
{
	struct json_iter it;
	uint64_t v;

	json_read_object(in, &it);
	while (json_read_next(&it)) {
		if (!json_key_is(&it, "effective"))
			json_read_skip(in);
		else if (!json_read_null(in) && !json_read_u64(in, &v))
			*effective = v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
	}
}

/* A string into @buf of @size bytes (cut to fit); null gives "". */
static void parse_text(struct json_reader *in, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!json_read_null(in))
		json_read_string_into(in, buf, size, NULL);
}

/* "slow":{"default":"MODEL",...}: the default latency model. */
static void parse_slow(struct json_reader *in, struct testfs_settings *set)
{
	struct json_iter it;

	json_read_object(in, &it);
	while (json_read_next(&it)) {
		if (json_key_is(&it, "default"))
			parse_text(in, set->latency, sizeof(set->latency));
		else
			json_read_skip(in);
	}
}

/* The settings member whose key is it->key (testfs_settings()). */
static void parse_setting(struct json_reader *in, const struct json_iter *it,
			  struct testfs_settings *s)
{
	uint64_t v;

	if (json_key_is(it, "version"))
		parse_text(in, s->version, sizeof(s->version));
	else if (json_key_is(it, "kernel"))
		parse_text(in, s->kernel, sizeof(s->kernel));
	else if (json_key_is(it, "bdi"))
		parse_text(in, s->bdi, sizeof(s->bdi));
	else if (json_key_is(it, "transport"))
		parse_text(in, s->transport, sizeof(s->transport));
	else if (json_key_is(it, "transport_note"))
		parse_text(in, s->transport_note, sizeof(s->transport_note));
	else if (json_key_is(it, "ra_kb"))
		parse_knob(in, &s->ra_kb);
	else if (json_key_is(it, "max_pages"))
		parse_knob(in, &s->max_pages);
	else if (json_key_is(it, "max_background"))
		parse_knob(in, &s->max_background);
	else if (json_key_is(it, "congestion_threshold"))
		parse_knob(in, &s->congestion_threshold);
	else if (json_key_is(it, "slow"))
		parse_slow(in, s);
	else if (json_key_is(it, "pid")) {
		if (!json_read_u64(in, &v) && v > 0 && v <= INT_MAX)
			s->pid = (pid_t)v;
	} else if (json_key_is(it, "log_capacity"))
		json_read_u64(in, &s->log_capacity);
	else
		json_read_skip(in);
}

/*
 * The config object; members it does not know are skipped. Names are
 * read with the daemon's escape for bytes of invalid UTF-8 (\u00XX).
 */
static int parse_config(const char *buf, size_t len, struct config_out *o)
{
	struct json_reader in;
	struct json_iter it;
	int err = 0;

	json_reader_init(&in, buf, len, JSON_READ_BYTE_ESCAPES);
	json_read_object(&in, &it);
	while (!err && json_read_next(&it)) {
		if (json_key_is(&it, "files"))
			err = parse_files(&in, o->names);
		else if (json_key_is(&it, "trace"))
			parse_trace(&in, o->trace);
		else if (o->set)
			parse_setting(&in, &it, o->set);
		else
			json_read_skip(&in);
	}
	if (!err)
		err = json_read_error(&in);
	if (err)
		return err == -EFBIG ? -EPROTO : err;
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
	if (!out->transport[0])
		snprintf(out->transport, sizeof(out->transport), "dev");
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
