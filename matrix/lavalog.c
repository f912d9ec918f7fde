// SPDX-License-Identifier: MIT
/*
 * LAVA's job log as testfs-matrix decode reads it. The dispatcher
 * (lava-run) and the server (`lavacli jobs logs --raw`) write one entry
 * per line, a YAML flow mapping in double-quoted style:
 *
 *	- {"dt": "2026-12-02T12:40:01.5", "lvl": "target", "msg": "text"}
 *
 * (lava-run's own log has no leading "- "). The guest's console lines
 * are the entries of level "target" and, once a test has matched its
 * end, "feedback" (the server's log has the guest's last line, its
 * "@@testfs-matrix done", there); their message is a YAML double-quoted
 * scalar (\xNN, \uNNNN, \e, \0, ... escapes). Other levels (the
 * dispatcher's own info, results as mappings) are left out.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lava.h"
#include "strbuf.h"

static const char entry_start[] = "{\"dt\": \"";

/* A line of a LAVA log: its mapping, or NULL. */
static const char *entry_of(const char *line)
{
	if (line[0] == '-' && line[1] == ' ')
		line += 2;
	return strncmp(line, entry_start, sizeof(entry_start) - 1) == 0 ? line
									: NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Adds code point @cp as UTF-8. */
static void add_utf8(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		strbuf_addc(sb, (char)cp);
	} else if (cp < 0x800) {
		strbuf_addc(sb, (char)(0xc0 | (cp >> 6)));
		strbuf_addc(sb, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addc(sb, (char)(0xe0 | (cp >> 12)));
		strbuf_addc(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addc(sb, (char)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addc(sb, (char)(0xf0 | (cp >> 18)));
		strbuf_addc(sb, (char)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addc(sb, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addc(sb, (char)(0x80 | (cp & 0x3f)));
	}
}

/*
 * The YAML double-quoted scalar at @p (just after its opening quote)
 * into @sb; returns the character after its closing quote, or NULL when
 * it does not close on this line.
 */
static const char *unquote(const char *p, const char *end, struct strbuf *sb)
{
	static const char simple[] = "0\0a\ab\bt\tn\nv\vf\fr\re\033 \040\"\"/"
				     "/\\\\";
	unsigned long cp;
	int digits, i, h;
	const char *s;

	while (p < end && *p != '"') {
		if (*p != '\\') {
			strbuf_addc(sb, *p++);
			continue;
		}
		if (++p == end)
			return NULL;
		digits = *p == 'x' ? 2 : *p == 'u' ? 4 : *p == 'U' ? 8 : 0;
		if (digits) {
			for (cp = 0, i = 1; i <= digits; i++) {
				h = p + i < end ? hexval(p[i]) : -1;
				if (h < 0)
					return NULL;
				cp = cp * 16 + (unsigned long)h;
			}
			/* \xNN is a byte as the console sent it; \u a
			 * code point. */
			if (digits == 2)
				strbuf_addc(sb, (char)cp);
			else
				add_utf8(sb, cp);
			p += digits + 1;
			continue;
		}
		for (s = simple; s < simple + sizeof(simple) - 1; s += 2)
			if (*s == *p)
				break;
		if (s < simple + sizeof(simple) - 1)
			strbuf_addc(sb, s[1]);
		else if (*p == 'N')
			add_utf8(sb, 0x85);
		else if (*p == '_')
			add_utf8(sb, 0xa0);
		else if (*p == 'L')
			add_utf8(sb, 0x2028);
		else if (*p == 'P')
			add_utf8(sb, 0x2029);
		else
			strbuf_addc(sb, *p);
		p++;
	}
	return p < end ? p + 1 : NULL;
}

bool lava_log_is(const char *text, size_t len)
{
	const char *end = text + len, *nl;

	/* The first line that is not blank decides. */
	while (text < end && (*text == '\n' || *text == '\r'))
		text++;
	nl = memchr(text, '\n', (size_t)(end - text));
	if (!nl)
		nl = end;
	if ((size_t)(nl - text) < sizeof(entry_start) + 2)
		return false;
	return (text[0] == '-' && text[1] == ' ' &&
		!strncmp(text + 2, entry_start, sizeof(entry_start) - 1)) ||
	       !strncmp(text, entry_start, sizeof(entry_start) - 1);
}

char *lava_log_console(const char *text, size_t len, size_t *out_len)
{
	static const char lvl_target[] = "\"lvl\": \"target\", \"msg\": \"";
	static const char lvl_feedback[] = "\"lvl\": \"feedback\", \"msg\": \"";
	struct strbuf sb = STRBUF_INIT;
	const char *end = text + len, *line, *nl, *e, *m;
	char *copy;

	for (line = text; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		copy = strndup(line, (size_t)(nl - line));
		if (!copy)
			break;
		e = entry_of(copy);
		m = e ? strstr(e, lvl_target) : NULL;
		if (m)
			m += sizeof(lvl_target) - 1;
		else if (e && (m = strstr(e, lvl_feedback)))
			m += sizeof(lvl_feedback) - 1;
		if (m) {
			size_t before = sb.len;

			if (!unquote(m, copy + strlen(copy), &sb))
				sb.len = before; /* a cut line: left out */
			else {
				/* The console's own line end. */
				while (sb.len > before &&
				       (sb.data[sb.len - 1] == '\r' ||
					sb.data[sb.len - 1] == '\n'))
					sb.len--;
				strbuf_addc(&sb, '\n');
			}
		}
		free(copy);
		if (nl == end)
			break;
	}
	return strbuf_detach(&sb, out_len);
}
