// SPDX-License-Identifier: MIT
/*
 * elf-startup's analysis: the model's prediction under each policy
 * (driven by the same accesses as the run), and the counts the report
 * shows: pages per segment and in the gaps, pages no segment maps, the
 * pages each step touched first, the comparison with a VMA-limited
 * kernel.
 */

#include "elf_startup.h"

/*
 * The model's accesses: the header read(2), then the first access of
 * each page (later ones do not fault: the page is mapped), each in the
 * VMA it has at that time.
 */
static int drive(struct ra_model *m, const void *arg)
{
	const struct elf_result *r = arg;
	const struct elf_plan *p = &r->plan;
	struct testfs_extents seen = TESTFS_EXTENTS_INIT;
	size_t i;
	int err = 0;

	m->unaligned_async = !r->async_round;
	ra_model_read(m, 0, (p->header_bytes + ELF_PAGE - 1) / ELF_PAGE,
		      (uint32_t)((p->header_bytes + ELF_PAGE - 1) / ELF_PAGE));
	if (p->phdr_len) {
		uint64_t a = p->phdr_off / ELF_PAGE;
		uint64_t b = (p->phdr_off + p->phdr_len - 1) / ELF_PAGE;

		ra_model_read(m, a, b - a + 1, (uint32_t)(b - a + 1));
	}
	for (i = 0; i < p->n && !err; i++) {
		uint64_t page = p->v[i].vaddr / ELF_PAGE;
		struct elf_vma v;

		if (testfs_extents_contains(&seen, page))
			continue;
		err = testfs_extents_add(&seen, page, page);
		if (err || !elf_vma_of(&r->img, p, p->v[i].vaddr,
				       i >= p->relro_at, &v))
			continue;
		m->exec = r->exec_clamp && (v.prot & 4 /* PROT_EXEC */);
		ra_model_fault(m,
			       elf_file_page(&r->img,
					     elf_seg_of(&r->img, p->v[i].vaddr),
					     p->v[i].vaddr),
			       v.first_page, v.last_page);
	}
	testfs_extents_free(&seen);
	return err;
}

/* Pages of @e in [@first, @last] (none if @first > @last). */
static uint64_t in_range(const struct testfs_extents *e, uint64_t first,
			 uint64_t last)
{
	return first > last ? 0 : extents_pages_in(e, first, last);
}

/* The file pages of the segments (those with file data). */
static int segment_pages(const struct elf_image *img, struct testfs_extents *u)
{
	size_t i;
	int err = 0;

	for (i = 0; i < img->nseg && !err; i++)
		if (img->seg[i].npages)
			err = testfs_extents_add(u, img->seg[i].first_page,
						 img->seg[i].first_page +
							 img->seg[i].npages -
							 1);
	return err;
}

/*
 * Of @e, the pages inside segment @i, and those of the gap before it
 * (after the previous segment's last page, or from page 0) and after it
 * (up to the next segment's first page, or to the end of the file).
 */
static void seg_counts(const struct elf_image *img,
		       const struct testfs_extents *e, size_t i,
		       struct elf_seg_counts *c)
{
	const struct elf_seg *s = &img->seg[i];
	uint64_t first = s->first_page;
	uint64_t last = s->npages ? first + s->npages - 1 : first;
	uint64_t lo = 0, hi = img->pages ? img->pages - 1 : 0;
	size_t j;

	for (j = 0; j < i; j++)
		if (img->seg[j].npages &&
		    img->seg[j].first_page + img->seg[j].npages > lo)
			lo = img->seg[j].first_page + img->seg[j].npages;
	if (i + 1 < img->nseg && img->seg[i + 1].first_page > 0)
		hi = img->seg[i + 1].first_page - 1;
	c->inside = s->npages ? in_range(e, first, last) : 0;
	c->before = first ? in_range(e, lo, first - 1) : 0;
	c->after = in_range(e, s->npages ? last + 1 : first, hi);
}

/* The pages each step touched that no earlier step had touched. */
static int steps_new(struct elf_result *r)
{
	struct testfs_extents seen = TESTFS_EXTENTS_INIT,
			      fresh = TESTFS_EXTENTS_INIT;
	unsigned i;
	size_t k;
	int err = 0;

	for (i = 0; i < ELF_NSTEPS && !err; i++) {
		const struct testfs_extents *t = &r->run.step_touched[i];

		err = testfs_extents_subtract(t, &seen, &fresh);
		r->step_new[i] = fresh.pages;
		for (k = 0; k < t->n && !err; k++)
			err = testfs_extents_add(&seen, t->v[k].first,
						 t->v[k].last);
	}
	testfs_extents_free(&seen);
	testfs_extents_free(&fresh);
	return err;
}

/* The segments' counts, and the pages fetched outside every segment. */
static int segments(struct elf_result *r, const struct testfs_extents *u)
{
	uint64_t sum = 0;
	size_t i;
	int err;

	err = testfs_extents_subtract(&r->fetched, u, &r->outside);
	for (i = 0; i < r->img.nseg; i++) {
		const struct elf_seg *s = &r->img.seg[i];

		seg_counts(&r->img, &r->fetched, i, &r->seg[i]);
		r->seg[i].touched =
			s->npages ? in_range(&r->run.touched, s->first_page,
					     s->first_page + s->npages - 1)
				  : 0;
		sum += r->seg[i].inside;
	}
	r->in_segments = r->fetched.pages - r->outside.pages;
	r->shared = sum - r->in_segments;
	return err;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * ((double)b - (double)a) / (double)b : 0;
}

int elf_analyse(struct scenario_ctx *ctx, void *result)
{
	struct testfs_extents u = TESTFS_EXTENTS_INIT, o = TESTFS_EXTENTS_INIT;
	struct elf_result *r = result;
	uint64_t obs = r->fetched.pages;
	unsigned p;
	int err;

	/*
	 * Async windows are rounded to their folio order from 6.16; exec
	 * read-around is clamped to the VMA from 6.17 (vma-boundary exec=yes
	 * measured 16 before / 48 after on Debian's 6.16.12, 0 / 0 on
	 * 6.17.13).
	 */
	r->exec_clamp = ra_release_at_least(r->s->kernel, 6, 17);
	r->async_round = ra_release_at_least(r->s->kernel, 6, 16);
	err = segment_pages(&r->img, &u);
	for (p = 0; p < RA_NPOLICIES && !err; p++) {
		struct elf_policy *v = &r->policy[p];
		bool same;

		err = session_predict(r->s, (enum ra_policy)p, drive, r,
				      &r->reads, &v->pred, &v->same_reads);
		if (!err)
			err = testfs_extents_subtract(&v->pred, &u, &o);
		v->outside = o.pages;
		same = testfs_extents_equal(&v->pred, &r->fetched);
		v->verdict = same && v->same_reads ? "matches"
			     : same		   ? "same pages, other reads"
						   : "differs";
	}
	if (err) {
		testfs_extents_free(&u);
		testfs_extents_free(&o);
		return scenario_fail(ctx, err, "the model");
	}
	err = segments(r, &u);
	if (!err)
		err = steps_new(r);
	r->fewer_than_observed_pct =
		pct(r->policy[RA_POLICY_VMA_LIMITED].pred.pages, obs);
	r->fewer_than_current_pct =
		pct(r->policy[RA_POLICY_VMA_LIMITED].pred.pages,
		    r->policy[RA_POLICY_CURRENT].pred.pages);
	testfs_extents_free(&u);
	testfs_extents_free(&o);
	return err ? scenario_fail(ctx, err, "the counts") : 0;
}
