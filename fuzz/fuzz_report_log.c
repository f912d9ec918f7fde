// SPDX-License-Identifier: MIT
/*
 * testfs-report's log reader (report/jsonl.c, report/model.c): the input
 * is a saved JSON Lines log, read from memory with one file, a.bin, of
 * known size (1024 pages) so the end-of-file checks run too. Besides not
 * crashing, the reader must be consistent:
 *  - the same input gives the same answer and the same message twice;
 *  - a refusal is -EPROTO ("log:LINE: why", LINE within the input),
 *    -ENODATA (no record) or -ENOMEM, and says why;
 *  - a log refused at line N was fine up to it: the lines before N load
 *    (or hold no record);
 *  - an accepted model holds only records that can be (every read and
 *    access passes htmlrep_check_range/access(), so first + pages stays
 *    below page 2^51 and no time runs backwards), and its page data is
 *    safe to put in a page.
 */
#include <errno.h>

#include "fuzz.h"

#include "report.h"

#define KNOWN_FILE "a.bin"
#define KNOWN_PAGES 1024

/* Reads @size bytes of @data as a log; the message in @why. */
static int load(struct htmlrep *r, const uint8_t *data, size_t size, char *why,
		size_t whylen)
{
	FILE *f;
	int err;

	htmlrep_init(r);
	FUZZ_CHECK(htmlrep_file(r, KNOWN_FILE, KNOWN_PAGES) == 0, "no memory");
	why[0] = '\0';
	/* fmemopen() may refuse 0 bytes; an empty stream is what it is. */
	f = size ? fmemopen((void *)data, size, "r") : tmpfile();
	if (!f)
		abort();
	err = htmlrep_read_jsonl(r, f, "log", why, whylen);
	fclose(f);
	return err;
}

/*
 * Read or access @i of an accepted model: its check passed (@err, @why),
 * its pages stay below the limit and it does not end before it starts.
 */
static void check_record(const char *what, size_t i, int err, const char *why,
			 uint64_t first, uint64_t pages, uint64_t t_ns,
			 uint64_t end_ns)
{
	FUZZ_CHECK(err == 0, "accepted %s %zu: %s", what, i, why);
	FUZZ_CHECK(first + pages <= HTMLREP_PAGE_LIMIT && end_ns >= t_ns,
		   "%s %zu", what, i);
}

/* The model holds only what the checks allow, and draws safely. */
static void check_model(const struct htmlrep *r)
{
	char why[256];
	char *data;
	size_t i;

	for (i = 0; i < r->nranges; i++) {
		const struct htmlrep_range *g = &r->ranges[i];

		check_record("read", i,
			     htmlrep_check_range(r, g, why, sizeof(why)), why,
			     g->first, g->pages, g->t_ns, g->done_ns);
	}
	for (i = 0; i < r->naccesses; i++) {
		const struct htmlrep_access *a = &r->accesses[i];

		check_record("access", i,
			     htmlrep_check_access(r, a, why, sizeof(why)), why,
			     a->first, a->pages, a->t_ns, a->end_ns);
	}
	for (i = 0; i < r->nmarks; i++)
		FUZZ_CHECK(r->marks[i].t_ns <= HTMLREP_TIME_LIMIT, "mark %zu",
			   i);
	data = htmlrep_data(r);
	FUZZ_CHECK(data && htmlrep_data_safe(data), "unsafe page data");
	free(data);
}

/* The offset of line @n (1-based) of @data, or @size past its end. */
static size_t line_start(const uint8_t *data, size_t size, unsigned long n)
{
	size_t i;

	for (i = 0; i < size && n > 1; i++)
		if (data[i] == '\n')
			n--;
	return n > 1 ? size : i;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[1024], again[1024];
	struct htmlrep r, r2;
	unsigned long line;
	size_t lines = 1, i;
	char *end;
	int err, err2;

	err = load(&r, data, size, why, sizeof(why));
	err2 = load(&r2, data, size, again, sizeof(again));
	FUZZ_CHECK(err == err2 && strcmp(why, again) == 0,
		   "twice: %d '%s', then %d '%s'", err, why, err2, again);
	FUZZ_CHECK(r.nranges == r2.nranges && r.naccesses == r2.naccesses &&
			   r.nmarks == r2.nmarks && r.lost == r2.lost,
		   "twice: different models");
	htmlrep_free(&r2);
	if (!err) {
		check_model(&r);
		htmlrep_free(&r);
		return 0;
	}
	htmlrep_free(&r);
	FUZZ_CHECK(err == -EPROTO || err == -ENODATA || err == -ENOMEM,
		   "refused with %d: %s", err, why);
	FUZZ_CHECK(why[0], "refused (%d) without a reason", err);
	if (err != -EPROTO)
		return 0;
	FUZZ_CHECK(strncmp(why, "log:", 4) == 0, "no line: %s", why);
	line = strtoul(why + 4, &end, 10);
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	FUZZ_CHECK(line >= 1 && line <= lines && *end == ':',
		   "line %lu of %zu: %s", line, lines, why);
	/* Everything before the refused line was fine. */
	err2 = load(&r2, data, line_start(data, size, line), again,
		    sizeof(again));
	FUZZ_CHECK(err2 == 0 || err2 == -ENODATA,
		   "refused at line %lu, but the lines before it give %d: %s",
		   line, err2, again);
	if (!err2)
		check_model(&r2);
	htmlrep_free(&r2);
	return 0;
}
