// SPDX-License-Identifier: MIT
#include "text.h"

#include <stdio.h>
#include <string.h>

#define ESC_SLOTS 4
#define ESC_SLOT_SIZE 1024

size_t utf8_char(const unsigned char *s, size_t avail, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return n;
}

/* Characters a terminal acts on instead of showing. */
static int acts_on_terminal(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

char *text_escape(char *out, size_t size, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, i = 0, n, k;
	char piece[20];
	uint32_t cp;

	while (i < len) {
		n = utf8_char(p + i, len - i, &cp);
		piece[0] = '\0';
		if (n == 1 && cp == '\\')
			strcpy(piece, "\\\\");
		else if (n == 1 && cp == '\n')
			strcpy(piece, "\\n");
		else if (n == 1 && cp == '\t')
			strcpy(piece, "\\t");
		else if (n == 1 && cp == '\r')
			strcpy(piece, "\\r");
		else if (n == 0)
			snprintf(piece, sizeof(piece), "\\x%02x", p[i]), n = 1;
		else if (acts_on_terminal(cp))
			for (k = 0; k < n; k++)
				snprintf(piece + 4 * k, sizeof(piece) - 4 * k,
					 "\\x%02x", p[i + k]);
		if (!piece[0]) {
			memcpy(piece, p + i, n);
			piece[n] = '\0';
		}
		/* Room for the piece, and for "..." should the next not fit. */
		if (o + strlen(piece) + (i + n < len ? 3 : 0) + 1 > size) {
			if (o + 4 > size)
				o = size - 4;
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(out + o, piece, strlen(piece));
		o += strlen(piece);
		i += n;
	}
	out[o] = '\0';
	return out;
}

const char *esc(const char *s)
{
	static __thread char slots[ESC_SLOTS][ESC_SLOT_SIZE];
	static __thread unsigned next;
	char *out = slots[next++ % ESC_SLOTS];

	if (!s)
		return "(null)";
	return text_escape(out, ESC_SLOT_SIZE, s, strlen(s));
}
