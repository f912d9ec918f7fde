/* SPDX-License-Identifier: MIT */
/*
 * Untrusted bytes in text: file names from disk, names and paths from
 * the command line. UTF-8 decoding for the JSON writer, and the one
 * escape every message on stderr uses for such names, so a name can
 * neither forge a line ("testfs: ...") nor reach the terminal as an
 * escape sequence.
 */
#ifndef TESTFS_TEXT_H
#define TESTFS_TEXT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length (1..4) of the valid UTF-8 sequence at @s (@avail bytes, at
 * least 1), with its code point in *@cp; 0 if it is not one (overlong
 * forms, surrogates and values past U+10FFFF are not).
 */
size_t utf8_char(const unsigned char *s, size_t avail, uint32_t *cp);

/*
 * Writes @s (@len bytes) into @out (@size bytes, at least 4) for a
 * message: printable UTF-8 as is; '\\' as "\\\\"; newline, tab, carriage
 * return as "\\n", "\\t", "\\r"; every other control character (C0, DEL,
 * C1 such as U+009B), every bidirectional formatting character (U+202A..
 * U+202E, U+2066..U+2069) and each byte of invalid UTF-8 as "\\xNN" per
 * byte. What does not fit is cut at a whole escape and marked "...".
 * Always NUL-terminates; returns @out.
 */
char *text_escape(char *out, size_t size, const char *s, size_t len);

/*
 * text_escape() of NUL-terminated @s into one of 4 buffers of this
 * thread, used in turn (up to 4 names in one message), each 1 KiB: a
 * longer name is cut and marked "...". NULL prints as "(null)".
 */
const char *esc(const char *s);

#endif
