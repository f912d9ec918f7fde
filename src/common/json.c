// SPDX-License-Identifier: MIT
#include "json.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at @s, or 0 if it is not one. */
static size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void json_add_string(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	strbuf_addc(sb, '"');
	while (i < len) {
		unsigned char c = p[i];

		switch (c) {
		case '"':
			strbuf_add(sb, "\\\"", 2);
			i++;
			continue;
		case '\\':
			strbuf_add(sb, "\\\\", 2);
			i++;
			continue;
		case '\n':
			strbuf_add(sb, "\\n", 2);
			i++;
			continue;
		case '\t':
			strbuf_add(sb, "\\t", 2);
			i++;
			continue;
		case '\r':
			strbuf_add(sb, "\\r", 2);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			strbuf_addf(sb, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_seq_len(p + i, len - i);
		if (n == 0) {
			strbuf_addf(sb, "\\u%04x", c);
			i++;
			continue;
		}
		strbuf_add(sb, p + i, n);
		i += n;
	}
	strbuf_addc(sb, '"');
}

void json_add_cstring(struct strbuf *sb, const char *s)
{
	json_add_string(sb, s, strlen(s));
}
