// SPDX-License-Identifier: MIT
#include "json.h"

#include <stdint.h>
#include <string.h>

#include "text.h"

/* The characters written as a backslash and a letter (or themselves). */
static const char short_escape[256] = {
	['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\t'] = 't', ['\r'] = 'r',
};

void json_add_string(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	strbuf_addc(sb, '"');
	while (i < len) {
		unsigned char c = p[i];

		/* A run of printable ASCII that needs no escape: at once. */
		for (n = i; n < len && p[n] >= 0x20 && p[n] < 0x7f &&
			    !short_escape[p[n]];
		     n++)
			;
		if (n > i) {
			strbuf_add(sb, p + i, n - i);
			i = n;
			continue;
		}
		if (short_escape[c]) {
			strbuf_addc(sb, '\\');
			strbuf_addc(sb, short_escape[c]);
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
