// SPDX-License-Identifier: MIT
#include "json.h"

#include <stdint.h>
#include <string.h>

#include "text.h"

void json_add_string(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

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
		n = utf8_char(p + i, len - i, &cp);
		if (n == 0) {
			/* 0x80..0xff: U+DC80..U+DCFF, never a character. */
			strbuf_addf(sb, "\\u%04x", 0xdc00 | c);
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
