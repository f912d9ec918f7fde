/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer harnesses share: the input turned into the C strings
 * the parsers take, and a check that aborts (so libFuzzer keeps the input)
 * when a parser breaks a promise its header makes.
 */
#ifndef TESTFS_FUZZ_H
#define TESTFS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * A config file in memory, for the harnesses that give the daemon's
 * option parser --config: its descriptor and /proc/self/fd path.
 */
struct fuzz_file {
	int fd;
	char path[64];
};

static inline void fuzz_file_open(struct fuzz_file *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	if (f->fd < 0)
		abort();
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

/* Replaces the file's contents with @data. */
static inline void fuzz_file_set(struct fuzz_file *f, const uint8_t *data,
				 size_t size)
{
	if (ftruncate(f->fd, 0) ||
	    pwrite(f->fd, data, size, 0) != (ssize_t)size)
		abort();
}

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__,     \
				#cond);                                        \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/*
 * A NUL-terminated copy of @data. An embedded NUL ends the string early,
 * as it does for every caller of these parsers.
 */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Splits a NUL-terminated copy of @data at each byte @sep into at most
 * @max strings (the last one keeps the rest, separators included).
 * Returns how many; they point into *@buf, which the caller frees.
 */
static inline size_t fuzz_split(const uint8_t *data, size_t size, char sep,
				char **buf, char **parts, size_t max)
{
	char *s = malloc(size + 1);
	size_t n = 0, i, start = 0;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	*buf = s;
	for (i = 0; i < size && n + 1 < max; i++) {
		if (s[i] == sep) {
			s[i] = '\0';
			parts[n++] = s + start;
			start = i + 1;
		}
	}
	parts[n++] = s + start;
	return n;
}

/*
 * The offset of the first @sep (@seplen bytes) in @data, or @size when
 * there is none: inputs made of a text part and a binary part.
 */
static inline size_t fuzz_find(const uint8_t *data, size_t size,
			       const char *sep, size_t seplen)
{
	size_t i;

	for (i = 0; i + seplen <= size; i++)
		if (memcmp(data + i, sep, seplen) == 0)
			return i;
	return size;
}

#endif
