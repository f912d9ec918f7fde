// SPDX-License-Identifier: MIT
/*
 * Client helpers: map, split, touch and read testfs files, and ask the page
 * cache what it holds.
 */
#include "lib_i.h"

#include "pagecache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The running kernel's pages: what mmap, mincore and cachestat count. */
#define PAGE ((uint64_t)lib_page_size())

/* Largest page number whose byte offset still fits in an off_t. */
#define MAX_OFF_PAGES ((uint64_t)INT64_MAX / PAGE)

/* mincore() one window of 2^18 pages (1 GiB of 4 KiB pages) at a time. */
#define WINDOW_PAGES (1ull << 18)

/* Sub-ranges each cachestat() probe splits a larger range into. */
#define PROBE_FANOUT 16

static uint64_t pages_of(uint64_t bytes)
{
	return bytes / PAGE + (bytes % PAGE != 0);
}

int testfs_map(struct testfs_mount *fs, const char *name, uint64_t first_page,
	       uint64_t npages, int prot, int flags, struct testfs_map *out)
{
	char path[PATH_MAX];
	uint64_t file_pages;
	struct stat st;
	void *addr;
	int fd, err, oflags = O_RDONLY;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (!fs || !name || npages == 0)
		return -EINVAL;
	err = testfs_path(fs, name, path, sizeof(path));
	if (err)
		return err;
	if (stat(path, &st) < 0)
		return -errno;
	file_pages = pages_of((uint64_t)st.st_size);
	if (first_page >= file_pages || npages > file_pages - first_page)
		return -EINVAL;
	if (first_page > MAX_OFF_PAGES || npages > SIZE_MAX / PAGE)
		return -EOVERFLOW;
	/* A private writable mapping never writes back: read-only will do. */
	if ((prot & PROT_WRITE) && (flags & MAP_TYPE) != MAP_PRIVATE)
		oflags = O_RDWR;
	fd = testfs_open(fs, name, oflags);
	if (fd < 0)
		return fd;
	addr = mmap(NULL, npages * PAGE, prot, flags, fd,
		    (off_t)(first_page * PAGE));
	if (addr == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	out->addr = addr;
	out->len = npages * PAGE;
	out->first_page = first_page;
	out->npages = npages;
	out->fd = fd;
	out->prot = prot;
	return 0;
}

int testfs_unmap(struct testfs_map *m)
{
	int err = 0;

	if (!m)
		return -EINVAL;
	if (m->addr && munmap(m->addr, m->len) < 0)
		err = -errno;
	if (m->fd >= 0 && close(m->fd) < 0 && !err)
		err = -errno;
	m->addr = NULL;
	m->fd = -1;
	return err;
}

int testfs_split(struct testfs_map *m, uint64_t vma_pages, int prot_a,
		 int prot_b)
{
	uint64_t nvma, i;

	if (!m || !m->addr || vma_pages == 0)
		return -EINVAL;
	nvma = m->npages / vma_pages + (m->npages % vma_pages != 0);
	if (nvma > INT_MAX)
		return -EINVAL;
	for (i = 0; i < nvma; i++) {
		uint64_t p = i * vma_pages;
		uint64_t n =
			m->npages - p < vma_pages ? m->npages - p : vma_pages;

		if (mprotect(m->addr + p * PAGE, n * PAGE,
			     i % 2 ? prot_b : prot_a) < 0)
			return -errno;
	}
	/* Neighbours with equal protections stay (or merge into) one VMA. */
	return prot_a == prot_b ? 1 : (int)nvma;
}

int testfs_madvise(const struct testfs_map *m, int advice)
{
	if (!m || !m->addr)
		return -EINVAL;
	if (madvise(m->addr, m->len, advice) < 0)
		return -errno;
	return 0;
}

/*
 * splitmix64: a tiny generator of our own, so that a seed gives the same
 * order with any libc and in any thread.
 */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound), without modulo bias. */
static uint64_t random_below(uint64_t *state, uint64_t bound)
{
	uint64_t r, threshold = -bound % bound;

	do
		r = splitmix64(state);
	while (r < threshold);
	return r % bound;
}

/* The indices 0..n-1 (or every step-th) in one of the orders. */
struct walk {
	enum testfs_order order;
	uint64_t n;
	uint64_t step;
	uint64_t k;
	uint64_t *perm;
};

static int walk_init(struct walk *w, enum testfs_order order, uint64_t arg,
		     uint64_t n)
{
	uint64_t i, j, t, state = arg;

	memset(w, 0, sizeof(*w));
	w->order = order;
	w->n = n;
	w->step = 1;
	switch (order) {
	case TESTFS_ORDER_FORWARD:
	case TESTFS_ORDER_REVERSE:
		return 0;
	case TESTFS_ORDER_STRIDE:
		if (arg < 1)
			return -EINVAL;
		w->step = arg;
		return 0;
	case TESTFS_ORDER_RANDOM:
		if (n > SIZE_MAX / sizeof(*w->perm))
			return -ENOMEM;
		w->perm = malloc((n ? n : 1) * sizeof(*w->perm));
		if (!w->perm)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			w->perm[i] = i;
		for (i = n; i > 1; i--) {
			j = random_below(&state, i);
			t = w->perm[i - 1];
			w->perm[i - 1] = w->perm[j];
			w->perm[j] = t;
		}
		return 0;
	}
	return -EINVAL;
}

static bool walk_next(struct walk *w, uint64_t *idx)
{
	if (w->k >= w->n)
		return false;
	switch (w->order) {
	case TESTFS_ORDER_FORWARD:
		*idx = w->k++;
		break;
	case TESTFS_ORDER_REVERSE:
		*idx = w->n - 1 - w->k++;
		break;
	case TESTFS_ORDER_STRIDE:
		*idx = w->k;
		w->k = w->n - w->k > w->step ? w->k + w->step : w->n;
		break;
	case TESTFS_ORDER_RANDOM:
		*idx = w->perm[w->k++];
		break;
	default:
		return false;
	}
	return true;
}

static void walk_free(struct walk *w)
{
	free(w->perm);
	w->perm = NULL;
}

/* Adds the units a walk visits, @unit pages each from page @first. */
static int add_walked(struct testfs_extents *e, const struct walk *w,
		      uint64_t first, uint64_t unit)
{
	uint64_t i;
	int err;

	if (w->n == 0)
		return 0;
	if (w->order != TESTFS_ORDER_STRIDE || w->step == 1)
		return testfs_extents_add(e, first, first + w->n * unit - 1);
	for (i = 0; i<w->n; i = w->n - i> w->step ? i + w->step : w->n) {
		err = testfs_extents_add(e, first + i * unit,
					 first + (i + 1) * unit - 1);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The pages of @m whose VMA allows reading, from /proc/self/maps, as map
 * page indices into @out (emptied first): an mprotect(PROT_NONE) part, or
 * a hole the caller unmapped, would fault on a read.
 */
static int readable_pages(const struct testfs_map *m,
			  struct testfs_extents *out)
{
	uintptr_t lo = (uintptr_t)m->addr, hi = lo + m->npages * PAGE;
	unsigned long long start, end;
	char line[512], perms[8];
	int err = 0;
	FILE *f;

	testfs_extents_free(out);
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s", &start, &end, perms) != 3)
			continue;
		/* A long path name: the rest of the line is not a record. */
		if (!strchr(line, '\n'))
			while (fgets(line, sizeof(line), f) &&
			       !strchr(line, '\n'))
				;
		if (perms[0] != 'r' || end <= lo || start >= hi)
			continue;
		if (start < lo)
			start = lo;
		if (end > hi)
			end = hi;
		err = testfs_extents_add(out, (start - lo) / PAGE,
					 (end - lo) / PAGE - 1);
	}
	fclose(f);
	return err;
}

/* Adds to @touched the pages of @walked (map indices) in @ok, as file pages. */
static int add_readable(struct testfs_extents *touched,
			const struct testfs_extents *walked,
			const struct testfs_extents *ok, uint64_t first_page)
{
	size_t i, j = 0;
	uint64_t a, b;
	int err;

	for (i = 0; i < walked->n; i++) {
		for (; j < ok->n && ok->v[j].last < walked->v[i].first; j++)
			;
		for (size_t k = j;
		     k < ok->n && ok->v[k].first <= walked->v[i].last; k++) {
			a = walked->v[i].first > ok->v[k].first
				    ? walked->v[i].first
				    : ok->v[k].first;
			b = walked->v[i].last < ok->v[k].last
				    ? walked->v[i].last
				    : ok->v[k].last;
			err = testfs_extents_add(touched, first_page + a,
						 first_page + b);
			if (err)
				return err;
		}
	}
	return 0;
}

int64_t testfs_touch(const struct testfs_map *m, enum testfs_order order,
		     uint64_t arg, struct testfs_extents *touched)
{
	struct testfs_extents ok = TESTFS_EXTENTS_INIT;
	struct testfs_extents walked = TESTFS_EXTENTS_INIT;
	uint64_t i, count = 0;
	struct walk w;
	bool all;
	int err;

	if (!m || !m->addr)
		return -EINVAL;
	err = readable_pages(m, &ok);
	if (err)
		goto free_ok;
	if (!ok.pages) {
		err = -EACCES;
		goto free_ok;
	}
	all = ok.pages == m->npages;
	err = walk_init(&w, order, arg, m->npages);
	if (err)
		goto free_ok;
	while (walk_next(&w, &i)) {
		if (!all && !testfs_extents_contains(&ok, i))
			continue;
		(void)*(volatile const char *)(m->addr + i * PAGE);
		count++;
	}
	if (touched && all) {
		err = add_walked(touched, &w, m->first_page, 1);
	} else if (touched) {
		err = add_walked(&walked, &w, 0, 1);
		if (!err)
			err = add_readable(touched, &walked, &ok,
					   m->first_page);
	}
	walk_free(&w);
free_ok:
	testfs_extents_free(&walked);
	testfs_extents_free(&ok);
	return err ? err : (int64_t)count;
}

int64_t testfs_read_pages(int fd, uint64_t first_page, uint64_t npages,
			  size_t block, enum testfs_order order, uint64_t arg,
			  struct testfs_extents *touched)
{
	uint64_t bpages, b, page, *got = NULL;
	int64_t r, total = 0;
	struct walk w;
	char *buf = NULL;
	int err;

	if (block == 0)
		block = PAGE;
	if (fd < 0 || block % PAGE)
		return -EINVAL;
	bpages = block / PAGE;
	if (npages % bpages)
		return -EINVAL;
	if (first_page > MAX_OFF_PAGES || npages > MAX_OFF_PAGES - first_page)
		return -EOVERFLOW;
	err = walk_init(&w, order, arg, npages / bpages);
	if (err)
		return err;
	if (npages == 0)
		goto out;
	/* Page-aligned, so that an O_DIRECT descriptor works too. */
	err = posix_memalign((void **)&buf, PAGE, block);
	if (err) {
		buf = NULL;
		err = -err;
		goto out;
	}
	/*
	 * A random order would fragment @touched on the way; remember what
	 * each block gave and add them in file order at the end.
	 */
	if (touched && order == TESTFS_ORDER_RANDOM) {
		got = calloc(w.n, sizeof(*got));
		if (!got) {
			err = -ENOMEM;
			goto out;
		}
	}
	while (walk_next(&w, &b)) {
		page = first_page + b * bpages;
		r = lib_read_full_at(fd, buf, block, (int64_t)(page * PAGE));
		if (r < 0) {
			err = (int)r;
			goto out;
		}
		total += r;
		if (got)
			got[b] = (uint64_t)r;
		else if (touched && r > 0)
			err = testfs_extents_add(touched, page,
						 page + pages_of((uint64_t)r) -
							 1);
		if (err)
			goto out;
	}
	for (b = 0; got && b < w.n && !err; b++) {
		page = first_page + b * bpages;
		if (got[b])
			err = testfs_extents_add(touched, page,
						 page + pages_of(got[b]) - 1);
	}
out:
	free(got);
	free(buf);
	walk_free(&w);
	return err ? err : total;
}

int testfs_fadvise(int fd, uint64_t first_page, uint64_t npages, int advice)
{
	if (first_page > MAX_OFF_PAGES || npages > MAX_OFF_PAGES)
		return -EOVERFLOW;
	/* posix_fadvise() returns the error rather than setting errno. */
	return -posix_fadvise(fd, (off_t)(first_page * PAGE),
			      (off_t)(npages * PAGE), advice);
}

struct scan {
	int fd;
	bool probe;
	unsigned char *vec;
	struct testfs_extents *out;
};

static int scan_window(struct scan *s, uint64_t first, uint64_t n)
{
	size_t len = n * PAGE;
	uint64_t i, j;
	void *map;
	int err = 0;

	map = mmap(NULL, len, PROT_READ, MAP_SHARED, s->fd,
		   (off_t)(first * PAGE));
	if (map == MAP_FAILED)
		return -errno;
	if (mincore(map, len, s->vec) < 0)
		err = -errno;
	munmap(map, len);
	for (i = 0; i < n && !err; i = j) {
		for (j = i; j < n && (s->vec[j] & 1); j++)
			;
		if (j > i)
			err = testfs_extents_add(s->out, first + i,
						 first + j - 1);
		else
			j++;
	}
	return err;
}

/*
 * A file can have 2^50 pages: cachestat() on ever smaller sub-ranges finds
 * the windows that hold anything, so only those get mapped and mincore()d.
 */
static int scan_range(struct scan *s, uint64_t first, uint64_t n)
{
	struct pagecache_stat st;
	uint64_t chunk, p;
	int err;

	if (n <= WINDOW_PAGES)
		return scan_window(s, first, n);
	if (s->probe) {
		err = pagecache_stat(s->fd, first * PAGE, n * PAGE, &st);
		if (err)
			s->probe = false; /* no cachestat(): scan it all */
		else if (st.nr_cache == 0)
			return 0;
	}
	chunk = n / PROBE_FANOUT;
	chunk = (chunk + WINDOW_PAGES - 1) / WINDOW_PAGES * WINDOW_PAGES;
	for (p = 0; p < n; p += chunk) {
		err = scan_range(s, first + p, n - p < chunk ? n - p : chunk);
		if (err)
			return err;
	}
	return 0;
}

int testfs_resident(struct testfs_mount *fs, const char *name,
		    struct testfs_extents *out)
{
	struct scan s = { .probe = true, .out = out };
	uint64_t npages;
	struct stat st;
	int err;

	if (!fs || !name || !out)
		return -EINVAL;
	testfs_extents_free(out);
	s.fd = testfs_open(fs, name, O_RDONLY);
	if (s.fd < 0)
		return s.fd;
	if (fstat(s.fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	npages = pages_of((uint64_t)st.st_size);
	s.vec = malloc(npages < WINDOW_PAGES ? npages + 1 : WINDOW_PAGES);
	if (!s.vec) {
		err = -ENOMEM;
		goto out;
	}
	err = npages ? scan_range(&s, 0, npages) : 0;
out:
	free(s.vec);
	close(s.fd);
	if (err)
		testfs_extents_free(out);
	return err;
}

int testfs_cachestat(struct testfs_mount *fs, const char *name,
		     uint64_t first_page, uint64_t npages,
		     struct testfs_cachestat *out)
{
	struct pagecache_stat st;
	int fd, err;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!fs || !name)
		return -EINVAL;
	if (first_page > MAX_OFF_PAGES || npages > MAX_OFF_PAGES)
		return -EOVERFLOW;
	fd = testfs_open(fs, name, O_RDONLY);
	if (fd < 0)
		return fd;
	err = pagecache_stat(fd, first_page * PAGE, npages * PAGE, &st);
	close(fd);
	if (err)
		return err;
	out->nr_cache = st.nr_cache;
	out->nr_dirty = st.nr_dirty;
	out->nr_writeback = st.nr_writeback;
	out->nr_evicted = st.nr_evicted;
	out->nr_recently_evicted = st.nr_recently_evicted;
	return 0;
}
