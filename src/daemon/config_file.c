// SPDX-License-Identifier: MIT
/*
 * Config files (--config): one "key value" per line, the keys being the
 * long names of the options the option table marks as allowed there.
 * --config may be pointed at any file, so what is read is bounded and
 * what is echoed in a message is never a line's content unless it is
 * plainly a setting.
 */
#include "options_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Config files are small text files; anything else is refused. */
#define CONFIG_LINE_MAX 4096u
#define CONFIG_SIZE_MAX (1u << 20)
/* Longest unknown key repeated in a message (the longest key has 20). */
#define CONFIG_KEY_SHOWN_MAX 32

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/*
 * Whether @key may be shown in a message. --config may be pointed at any
 * file (say /etc/shadow), so a line that is not plainly a testfs setting
 * is never echoed: only a short lowercase word, like the keys themselves.
 */
static bool key_is_showable(const char *key)
{
	size_t i;

	if (!(*key >= 'a' && *key <= 'z'))
		return false;
	for (i = 0; key[i]; i++)
		if (i >= CONFIG_KEY_SHOWN_MAX ||
		    !((key[i] >= 'a' && key[i] <= 'z') ||
		      (key[i] >= '0' && key[i] <= '9') || key[i] == '-' ||
		      key[i] == '_'))
			return false;
	return true;
}

static int unknown_key(const char *path, unsigned lineno, const char *key,
		       char *err, size_t errlen)
{
	struct strbuf keys = STRBUF_INIT;
	int ret;

	options_key_list(&keys, ", ", " or ");
	ret = options_fail(err, errlen, "%s:%u: unknown key '%s' (expected %s)",
			   path, lineno, key,
			   keys.oom ? "a key of testfs(8)" : keys.data);
	strbuf_free(&keys);
	return ret;
}

/* One line of a config file, NUL-terminated and already checked. */
static int config_line(const char *path, unsigned lineno, char *line,
		       config_setting_fn *setting, void *ctx, char *err,
		       size_t errlen)
{
	const struct opt_desc *d;
	char *key, *val, *sep;
	char what[192], sub[512];
	int ret;

	key = trim(line);
	if (!*key || *key == '#')
		return 0;
	sep = key + strcspn(key, " \t=");
	val = sep;
	if (*sep) {
		*sep = '\0';
		val = sep + 1;
		val = trim(val);
		if (*val == '=')
			val = trim(val + 1);
	}
	d = options_find_long(key, strlen(key));
	if ((!d || !d->in_config) && !key_is_showable(key))
		return options_fail(
			err, errlen,
			"%s:%u: not a 'key value' line of a testfs config file (its content is not shown)",
			path, lineno);
	if (!d || !d->in_config)
		return unknown_key(path, lineno, key, err, errlen);
	if (!d->has_arg && *val)
		return options_fail(err, errlen,
				    "%s:%u: key '%s' takes no value", path,
				    lineno, key);
	if (d->has_arg && !*val)
		return options_fail(err, errlen,
				    "%s:%u: key '%s' needs a value", path,
				    lineno, key);
	snprintf(what, sizeof(what), "%s:%u: %s", path, lineno, key);
	ret = setting(ctx, d, val, what, sub, sizeof(sub));
	if (ret)
		return options_fail(err, errlen, "%s", sub);
	return 0;
}

/*
 * Reads a whole config file into a NUL-terminated buffer. Only a regular
 * file of at most CONFIG_SIZE_MAX bytes: /dev/zero or a FIFO would
 * otherwise be read forever (O_NONBLOCK: opening a FIFO does not wait).
 */
static int read_config(const char *path, char **out, size_t *len, char *err,
		       size_t errlen)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return options_fail(err, errlen, "--config '%s': %s", path,
				    strerror(errno));
	if (fstat(fd, &st) != 0) {
		ret = options_fail(err, errlen, "--config '%s': %s", path,
				   strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = options_fail(err, errlen,
				   "--config '%s': not a regular file", path);
		goto out_close;
	}
	if (st.st_size > CONFIG_SIZE_MAX)
		goto too_big;
	buf = malloc(CONFIG_SIZE_MAX + 2);
	if (!buf) {
		ret = options_fail(err, errlen, "out of memory");
		goto out_close;
	}
	/* One byte more than allowed: a file that grew is caught too. */
	while (got <= CONFIG_SIZE_MAX) {
		n = read(fd, buf + got, CONFIG_SIZE_MAX + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = options_fail(err, errlen, "--config '%s': %s",
					   path, strerror(errno));
			free(buf);
			goto out_close;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > CONFIG_SIZE_MAX) {
		free(buf);
		goto too_big;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	close(fd);
	return 0;
too_big:
	ret = options_fail(err, errlen, "--config '%s': larger than 1 MiB",
			   path);
out_close:
	close(fd);
	return ret;
}

int config_file_read(const char *path, config_setting_fn *setting, void *ctx,
		     char *err, size_t errlen)
{
	char *buf = NULL, *p, *end, *nl;
	unsigned lineno = 0;
	size_t len = 0;
	int ret;

	ret = read_config(path, &buf, &len, err, errlen);
	if (ret)
		return ret;
	end = buf + len;
	for (p = buf; p < end && !ret; p += len + 1) {
		lineno++;
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl ? nl : end) - p);
		if (len > CONFIG_LINE_MAX)
			ret = options_fail(err, errlen,
					   "%s:%u: line longer than %u bytes",
					   path, lineno, CONFIG_LINE_MAX);
		else if (memchr(p, '\0', len))
			ret = options_fail(
				err, errlen,
				"%s:%u: NUL byte in the line (a config file is text)",
				path, lineno);
		else {
			p[len] = '\0';
			ret = config_line(path, lineno, p, setting, ctx, err,
					  errlen);
		}
	}
	free(buf);
	return ret;
}
