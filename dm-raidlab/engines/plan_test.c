// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the access plans of plan.c (suite dm_raidlab_plan).
 *
 * Besides the I/O counts of each kind of access, every plan is executed
 * against an in-memory model of a row's members: the plan's reads fill
 * buffers that start as garbage, rl_plan_compute() runs, the plan's writes
 * land, and the row must then hold the expected data with consistent parity,
 * with no I/O to a failed member. raid6 rows are checked against P and Q of
 * the expected data computed by the reference of pq_ref.h, under every
 * failure of one or two members.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/log2.h>
#include <linux/mm.h>

#include "../svc/parity.h"
#include "../svc/pq_ref.h"
#include "stripe.h"

#define RL_ST_CHUNK	16	/* sectors: two pages per chunk */
#define RL_ST_BYTES	(RL_ST_CHUNK << SECTOR_SHIFT)

static void rl_st_geom(struct rl_geom *g, unsigned int n)
{
	g->layout = &rl_raid5_layout;	/* the plan functions take theirs */
	g->nr_members = n;
	g->nr_data = n - 1;
	g->chunk_shift = ilog2(RL_ST_CHUNK);
	g->data_offset = 0;
}

/* ---- I/O counts ---------------------------------------------------- */

static void rl_plan_small_write_is_rmw(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_geom g;
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (n = 4; n <= 8; n++) {
		rl_st_geom(&g, n);
		KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 7, 0, 8,
						     RL_PLAN_WRITE, 0, p), 0);
		KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RMW);
		/* old data + old parity, new data + new parity: 4 member I/Os */
		KUNIT_EXPECT_EQ(test, p->nr_reads, 2);
		KUNIT_EXPECT_EQ(test, p->nr_writes, 2);
	}
}

static void rl_plan_full_stripe_needs_no_reads(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_geom g;
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (n = 3; n <= 8; n++) {
		rl_st_geom(&g, n);
		KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 3, 0,
						     (n - 1) * RL_ST_CHUNK, RL_PLAN_WRITE,
						     0, p), 0);
		KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RCW);
		KUNIT_EXPECT_EQ(test, p->nr_reads, 0);
		KUNIT_EXPECT_EQ(test, p->nr_writes, n);
	}
}

/* Writing most of a row reads the little that is left: reconstruct-write. */
static void rl_plan_large_write_is_rcw(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_geom g;

	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_geom(&g, 6);
	/* columns 0..3 whole, column 4 untouched */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 0, 0,
					     4 * RL_ST_CHUNK, RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 1);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 5);
}

static void rl_plan_degraded(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_geom g;
	unsigned int d0, pm;

	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_geom(&g, 5);
	d0 = rl_raid5_layout.data_member(&g, 2, 0);
	pm = rl_raid5_layout.parity_member(&g, 2);

	/* read of a lost column: the other four members */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 4, 4,
					     0, BIT(d0), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RECON_READ);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 4);
	KUNIT_EXPECT_EQ(test, p->missing, d0);

	/* read of a live column while another is lost: direct */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 20, 4,
					     0, BIT(d0), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_READ);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 1);

	/*
	 * partial write to a lost column that covers the whole parity range:
	 * the other columns' data under it is all the new parity needs
	 */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 4, 4,
					     RL_PLAN_WRITE, BIT(d0), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 3);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 1);	/* parity only */

	/*
	 * a write from the end of the lost column into the next: the parity
	 * range is the whole chunk, so the lost column is rebuilt first
	 */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2,
					     RL_ST_CHUNK - 2, 4, RL_PLAN_WRITE,
					     BIT(d0), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RECON_WRITE);
	KUNIT_EXPECT_EQ(test, p->missing, d0);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 4);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 2);	/* column 1 and parity */

	/* small write while the parity member is lost: data only */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 4, 4,
					     RL_PLAN_WRITE, BIT(pm), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_NO_PARITY);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 0);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 1);

	/* two lost members: refused */
	KUNIT_EXPECT_EQ(test, rl_plan_access(&g, 2, 4, 4,
					     RL_PLAN_WRITE, BIT(d0) | BIT(pm), p), -EIO);
	KUNIT_EXPECT_EQ(test, rl_plan_access(&g, 2, 4, 4,
					     0, BIT(d0) | BIT(pm), p), -EIO);
}

/* ---- Execution against an in-memory row ---------------------------- */

struct rl_st_model {
	struct rl_geom g;
	const struct rl_parity_layout *l;
	u64 row;
	struct page **disk[RL_MAX_MEMBERS];	/* the members' chunk */
	struct page **buf[RL_MAX_MEMBERS];	/* the stripe context */
	u8 *expect;				/* the row's logical data */
	struct page *bio_pages[RL_MAX_MEMBERS * 4];
	struct bio *bio;
	u64 seed;
};

static u8 *rl_st_at(struct page **b, unsigned int pos)
{
	return (u8 *)page_address(b[pos >> PAGE_SHIFT]) + offset_in_page(pos);
}

static u8 rl_st_rand(struct rl_st_model *md)
{
	md->seed = md->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return md->seed >> 33;
}

static void rl_st_model_init(struct kunit *test, struct rl_st_model *md,
			     const struct rl_parity_layout *l, unsigned int n)
{
	unsigned int m, k, pos, nr_pages = ARRAY_SIZE(md->bio_pages);
	struct page **src[RL_MAX_MEMBERS];

	rl_st_geom(&md->g, n);
	md->g.layout = l;
	if (l->q_member)
		md->g.nr_data = n - 2;
	md->l = l;
	md->row = 11;
	md->seed = n;
	md->expect = kunit_kzalloc(test, md->g.nr_data * RL_ST_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, md->expect);
	for (m = 0; m < n; m++) {
		md->disk[m] = rl_buf_alloc(RL_ST_BYTES, GFP_KERNEL);
		md->buf[m] = rl_buf_alloc(RL_ST_BYTES, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, md->disk[m]);
		KUNIT_ASSERT_NOT_NULL(test, md->buf[m]);
	}
	for (k = 0; k < md->g.nr_data; k++) {
		m = l->data_member(&md->g, md->row, k);
		src[k] = md->disk[m];
		for (pos = 0; pos < RL_ST_BYTES; pos++) {
			*rl_st_at(md->disk[m], pos) = rl_st_rand(md);
			md->expect[k * RL_ST_BYTES + pos] = *rl_st_at(md->disk[m], pos);
		}
	}
	if (l->q_member) {
		src[k++] = md->disk[l->parity_member(&md->g, md->row)];
		src[k++] = md->disk[l->q_member(&md->g, md->row)];
		rl_pq_gen(src, n, 0, RL_ST_BYTES);
	} else {
		rl_parity_gen(md->disk[l->parity_member(&md->g, md->row)], src,
			      n - 1, 0, RL_ST_BYTES);
	}
	for (pos = 0; pos < nr_pages; pos++) {
		md->bio_pages[pos] = alloc_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, md->bio_pages[pos]);
	}
	md->bio = bio_kmalloc(nr_pages, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, md->bio);
}

static void rl_st_model_free(struct rl_st_model *md)
{
	unsigned int m;

	for (m = 0; m < md->g.nr_members; m++) {
		rl_buf_free(md->disk[m], RL_ST_BYTES);
		rl_buf_free(md->buf[m], RL_ST_BYTES);
	}
	for (m = 0; m < ARRAY_SIZE(md->bio_pages); m++)
		if (md->bio_pages[m])
			__free_page(md->bio_pages[m]);
	kfree(md->bio);
}

/*
 * Build a bio of @len sectors whose segments start 512 bytes into every
 * other page, so that they straddle chunk and page boundaries.
 */
static void rl_st_bio(struct rl_st_model *md, u32 len, bool write)
{
	unsigned int bytes = len << SECTOR_SHIFT, i = 0;

	bio_init(md->bio, NULL, md->bio->bi_inline_vecs,
		 ARRAY_SIZE(md->bio_pages), write ? REQ_OP_WRITE : REQ_OP_READ);
	while (bytes) {
		unsigned int off = (i & 1) ? 512 : 0;
		unsigned int n = min_t(unsigned int, bytes, PAGE_SIZE - off);

		__bio_add_page(md->bio, md->bio_pages[i++], n, off);
		bytes -= n;
	}
}

static void rl_st_io(struct rl_st_model *md, const struct rl_span *spans,
		     bool to_disk)
{
	unsigned int m;

	for (m = 0; m < md->g.nr_members; m++) {
		struct rl_span s = spans[m];

		if (rl_span_empty(s))
			continue;
		if (to_disk)
			rl_buf_copy(md->disk[m], md->buf[m], s.lo << SECTOR_SHIFT,
				    (s.hi - s.lo) << SECTOR_SHIFT);
		else
			rl_buf_copy(md->buf[m], md->disk[m], s.lo << SECTOR_SHIFT,
				    (s.hi - s.lo) << SECTOR_SHIFT);
	}
}

/*
 * P+Q: every live member holds what it should for the expected data, its
 * data, or P and Q by the reference: then any failed ones can be rebuilt.
 */
static int rl_st_pq_bad_member(struct rl_st_model *md, unsigned long failed,
			       unsigned int *bad_pos)
{
	unsigned int nd = md->g.nr_data, k, m, pos;
	unsigned int pm = md->l->parity_member(&md->g, md->row);
	unsigned int qm = md->l->q_member(&md->g, md->row);
	u8 d[RL_MAX_MEMBERS], p, q;

	for (pos = 0; pos < RL_ST_BYTES; pos++) {
		*bad_pos = pos;
		for (k = 0; k < nd; k++) {
			d[k] = md->expect[k * RL_ST_BYTES + pos];
			m = md->l->data_member(&md->g, md->row, k);
			if (!test_bit(m, &failed) && *rl_st_at(md->disk[m], pos) != d[k])
				return m;
		}
		rl_pq_ref(d, nd, &p, &q);
		if (!test_bit(pm, &failed) && *rl_st_at(md->disk[pm], pos) != p)
			return pm;
		if (!test_bit(qm, &failed) && *rl_st_at(md->disk[qm], pos) != q)
			return qm;
	}
	return -1;
}

static void rl_st_check_row_pq(struct kunit *test, struct rl_st_model *md,
			       unsigned long failed, const char *what)
{
	unsigned int pos;
	int m = rl_st_pq_bad_member(md, failed, &pos);

	if (m >= 0)
		KUNIT_FAIL(test, "%s: member %d byte %u wrong", what, m, pos);
}

/* P+Q: give the failed members what they should hold, as a rebuild would. */
static void rl_st_heal_pq(struct rl_st_model *md, unsigned long failed)
{
	unsigned int nd = md->g.nr_data, k, m, pos;
	unsigned int pm = md->l->parity_member(&md->g, md->row);
	unsigned int qm = md->l->q_member(&md->g, md->row);
	u8 d[RL_MAX_MEMBERS], p, q;

	for (pos = 0; pos < RL_ST_BYTES; pos++) {
		for (k = 0; k < nd; k++) {
			d[k] = md->expect[k * RL_ST_BYTES + pos];
			m = md->l->data_member(&md->g, md->row, k);
			if (test_bit(m, &failed))
				*rl_st_at(md->disk[m], pos) = d[k];
		}
		rl_pq_ref(d, nd, &p, &q);
		if (test_bit(pm, &failed))
			*rl_st_at(md->disk[pm], pos) = p;
		if (test_bit(qm, &failed))
			*rl_st_at(md->disk[qm], pos) = q;
	}
}

/* Check the row: each column as a reader would see it, and the parity. */
static void rl_st_check_row(struct kunit *test, struct rl_st_model *md,
			    unsigned long failed, const char *what)
{
	unsigned int n = md->g.nr_members, k, m, pos;
	struct page **src[RL_MAX_MEMBERS];
	struct page **tmp;

	if (md->l->q_member) {
		rl_st_check_row_pq(test, md, failed, what);
		return;
	}
	tmp = rl_buf_alloc(RL_ST_BYTES, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tmp);
	for (k = 0; k < n - 1; k++) {
		unsigned int nr = 0;
		struct page **col;

		m = md->l->data_member(&md->g, md->row, k);
		col = md->disk[m];
		if (test_bit(m, &failed)) {
			for (pos = 0; pos < n; pos++)
				if (pos != m)
					src[nr++] = md->disk[pos];
			rl_parity_gen(tmp, src, nr, 0, RL_ST_BYTES);
			col = tmp;
		}
		for (pos = 0; pos < RL_ST_BYTES; pos++) {
			if (*rl_st_at(col, pos) != md->expect[k * RL_ST_BYTES + pos]) {
				KUNIT_FAIL(test, "%s: column %u byte %u wrong", what, k, pos);
				goto out;
			}
		}
	}
	if (!failed) {
		for (k = 0; k < n - 1; k++)
			src[k] = md->disk[md->l->data_member(&md->g, md->row, k)];
		rl_parity_gen(tmp, src, n - 1, 0, RL_ST_BYTES);
		m = md->l->parity_member(&md->g, md->row);
		for (pos = 0; pos < RL_ST_BYTES; pos++) {
			if (*rl_st_at(tmp, pos) != *rl_st_at(md->disk[m], pos)) {
				KUNIT_FAIL(test, "%s: parity byte %u wrong", what, pos);
				goto out;
			}
		}
	}
out:
	rl_buf_free(tmp, RL_ST_BYTES);
}

/*
 * Run one access through plan, reads, compute and writes. @flags are the
 * rl_plan_access() flags; a resync has no bio.
 */
static void rl_st_access(struct kunit *test, struct rl_st_model *md, u32 off,
			 u32 len, unsigned int flags, unsigned long failed)
{
	bool write = flags & RL_PLAN_WRITE;
	bool resync = flags & RL_PLAN_RESYNC;
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int m, pos, i;
	struct bvec_iter it;
	struct bio_vec bv;
	char what[64];

	KUNIT_ASSERT_NOT_NULL(test, p);
	snprintf(what, sizeof(what), "%s off=%u len=%u flags=%x failed=%lx",
		 write ? "write" : "read", off, len, flags, failed);
	KUNIT_ASSERT_EQ_MSG(test, rl_plan_access(&md->g, md->row, off, len,
						 flags, failed, p), 0, "%s", what);
	for (m = 0; m < md->g.nr_members; m++) {
		if (!test_bit(m, &failed))
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, rl_span_empty(p->read[m]), "%s", what);
		KUNIT_EXPECT_TRUE_MSG(test, rl_span_empty(p->write[m]), "%s", what);
	}

	/* the context's buffers hold garbage until the reads land */
	for (m = 0; m < md->g.nr_members; m++)
		for (pos = 0; pos < RL_ST_BYTES; pos++)
			*rl_st_at(md->buf[m], pos) = rl_st_rand(md);

	if (!resync)
		rl_st_bio(md, len, write);
	if (write && !resync) {
		pos = off << SECTOR_SHIFT;
		bio_for_each_segment(bv, md->bio, it) {
			u8 *va = (u8 *)page_address(bv.bv_page) + bv.bv_offset;

			for (i = 0; i < bv.bv_len; i++, pos++) {
				va[i] = rl_st_rand(md);
				md->expect[pos] = va[i];
			}
		}
	}

	rl_st_io(md, p->read, false);
	rl_plan_compute(p, &md->g, md->buf, resync ? NULL : md->bio, off);
	rl_st_io(md, p->write, true);

	if (!write && !resync) {
		pos = off << SECTOR_SHIFT;
		bio_for_each_segment(bv, md->bio, it) {
			u8 *va = (u8 *)page_address(bv.bv_page) + bv.bv_offset;

			for (i = 0; i < bv.bv_len; i++, pos++) {
				if (va[i] != md->expect[pos]) {
					KUNIT_FAIL(test, "%s: byte %u read wrong", what, pos);
					return;
				}
			}
		}
	}
	rl_st_check_row(test, md, failed, what);
	if (!resync)
		bio_uninit(md->bio);
}

struct rl_plan_case {
	const char *layout;
	unsigned int nr_members;
};

static const struct rl_plan_case rl_plan_cases[] = {
	{ "raid5", 3 }, { "raid5", 4 }, { "raid5", 5 }, { "raid5", 7 },
	{ "raid4", 3 }, { "raid4", 5 },
};

static void rl_plan_desc(const struct rl_plan_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s n=%u", c->layout, c->nr_members);
}

KUNIT_ARRAY_PARAM(rl_plan, rl_plan_cases, rl_plan_desc);

/*
 * Many accesses, healthy and with each member failed in turn: a write must
 * leave the row readable and consistent, a read must return what was
 * written.
 */
static void rl_plan_execute(struct kunit *test)
{
	const struct rl_plan_case *c = test->param_value;
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	const struct rl_parity_layout *l;
	unsigned int i, f;

	KUNIT_ASSERT_NOT_NULL(test, md);
	l = strcmp(c->layout, "raid4") ? &rl_raid5_layout : &rl_raid4_layout;
	rl_st_model_init(test, md, l, c->nr_members);

	for (f = 0; f <= c->nr_members; f++) {
		unsigned long failed = f < c->nr_members ? BIT(f) : 0;
		u32 row_len = (c->nr_members - 1) * RL_ST_CHUNK;

		/* the failed member's disk no longer changes: model that */
		for (i = 0; i < 40; i++) {
			u32 off = (rl_st_rand(md) | rl_st_rand(md) << 8) % row_len;
			u32 len = 1 + (rl_st_rand(md) | rl_st_rand(md) << 8) %
				  (row_len - off);

			if (i % 5 == 0) {
				off = 0;
				len = row_len;	/* full stripe */
			}
			rl_st_access(test, md, off, len, RL_PLAN_WRITE, failed);
			if (i % 2) {
				/* reads are trimmed to one chunk by map */
				len = min_t(u32, len, RL_ST_CHUNK - off % RL_ST_CHUNK);
				rl_st_access(test, md, off, len, 0, failed);
			}
		}
		/* back to a healthy, consistent row for the next round */
		if (failed) {
			unsigned int m = f, k, nr = 0;
			struct page **src[RL_MAX_MEMBERS];

			for (k = 0; k < c->nr_members; k++)
				if (k != m)
					src[nr++] = md->disk[k];
			rl_parity_gen(md->disk[m], src, nr, 0, RL_ST_BYTES);
			rl_st_check_row(test, md, 0, "rebuilt");
		}
	}
	rl_st_model_free(md);
}

/* Spoil the parity of the model's row, as on disks that held other data. */
static void rl_st_spoil_parity(struct rl_st_model *md)
{
	struct page **pd = md->disk[md->l->parity_member(&md->g, md->row)];
	unsigned int pos;

	for (pos = 0; pos < RL_ST_BYTES; pos++)
		*rl_st_at(pd, pos) ^= rl_st_rand(md) | 1;
}

/*
 * On a row whose parity does not match its data, a full-row write and a
 * resync both leave it consistent (rl_st_check_row checks the parity), so
 * that a member lost afterwards is rebuilt right.
 */
static void rl_plan_full_row_and_resync(struct kunit *test)
{
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int n = 5, f;

	KUNIT_ASSERT_NOT_NULL(test, md);
	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_model_init(test, md, &rl_raid5_layout, n);

	/* the plans: a small write reads every other column, whole chunks */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 3, 2,
					     RL_PLAN_WRITE | RL_PLAN_FULL_ROW, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n - 1);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 2);
	KUNIT_EXPECT_EQ(test, p->prange.lo, 0);
	KUNIT_EXPECT_EQ(test, p->prange.hi, RL_ST_CHUNK);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_RESYNC, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n - 1);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 1);
	/* resync cannot help a degraded row */
	KUNIT_EXPECT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_RESYNC, BIT(2), p), -EIO);

	/* execution: spoilt parity made good by either */
	rl_st_spoil_parity(md);
	rl_st_access(test, md, 3, 2, RL_PLAN_WRITE | RL_PLAN_FULL_ROW, 0);
	rl_st_spoil_parity(md);
	rl_st_access(test, md, 0, 0, RL_PLAN_RESYNC, 0);

	/* and then every member can be lost and rebuilt */
	for (f = 0; f < n; f++)
		rl_st_access(test, md, RL_ST_CHUNK + 1, 4, 0, BIT(f));
	rl_st_model_free(md);
}

/* The negative control: read-modify-write keeps a spoilt row spoilt. */
static void rl_plan_rmw_keeps_bad_parity(struct kunit *test)
{
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct page **tmp;
	unsigned int pm, pos;
	bool differs = false;

	KUNIT_ASSERT_NOT_NULL(test, md);
	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_model_init(test, md, &rl_raid5_layout, 5);
	rl_st_spoil_parity(md);
	tmp = rl_buf_alloc(RL_ST_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tmp);
	pm = md->l->parity_member(&md->g, md->row);
	rl_buf_copy(tmp, md->disk[pm], 0, RL_ST_BYTES);
	rl_st_bio(md, 2, true);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 3, 2,
					     RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RMW);
	rl_st_io(md, p->read, false);
	rl_plan_compute(p, &md->g, md->buf, md->bio, 3);
	rl_st_io(md, p->write, true);
	/* parity outside the written range is still the spoilt one */
	for (pos = 5 << SECTOR_SHIFT; pos < RL_ST_BYTES; pos++)
		if (*rl_st_at(tmp, pos) != *rl_st_at(md->disk[pm], pos))
			differs = true;
	KUNIT_EXPECT_FALSE(test, differs);
	bio_uninit(md->bio);
	rl_buf_free(tmp, RL_ST_BYTES);
	rl_st_model_free(md);
}

/*
 * Rebuild: each member in turn is overwritten with garbage and rebuilt
 * from the rest; the plan reads every other member whole and writes only
 * the rebuilt one. A rebuild with no or two failed members is refused.
 */
static void rl_plan_rebuild_each_member(struct kunit *test)
{
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int n = 5, f, pos;

	KUNIT_ASSERT_NOT_NULL(test, md);
	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_model_init(test, md, &rl_raid5_layout, n);
	KUNIT_EXPECT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_REBUILD, 0, p), -EIO);
	KUNIT_EXPECT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_REBUILD, BIT(0) | BIT(3),
					     p), -EIO);
	for (f = 0; f < n; f++) {
		for (pos = 0; pos < RL_ST_BYTES; pos++)
			*rl_st_at(md->disk[f], pos) = rl_st_rand(md);
		KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
						     RL_PLAN_DO_REBUILD, BIT(f), p), 0);
		KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_REBUILD);
		KUNIT_EXPECT_EQ(test, p->missing, f);
		KUNIT_EXPECT_EQ(test, p->nr_reads, n - 1);
		KUNIT_EXPECT_EQ(test, p->nr_writes, 1);
		KUNIT_EXPECT_EQ(test, p->write[f].hi, RL_ST_CHUNK);
		rl_st_io(md, p->read, false);
		rl_plan_compute(p, &md->g, md->buf, NULL, 0);
		rl_st_io(md, p->write, true);
		/* all members good again: data and parity */
		rl_st_check_row(test, md, 0, "rebuilt");
	}
	rl_st_model_free(md);
}

/*
 * Check and repair: a consistent row has no mismatch; spoilt parity is
 * counted (in sectors) and a repair makes the row consistent; a check
 * changes nothing.
 */
static void rl_plan_check_and_repair(struct kunit *test)
{
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int n = 4, pm;

	KUNIT_ASSERT_NOT_NULL(test, md);
	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_model_init(test, md, &rl_raid5_layout, n);
	pm = md->l->parity_member(&md->g, md->row);
	KUNIT_EXPECT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, BIT(1), p), -EIO);

	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_CHECK);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 0);
	rl_st_io(md, p->read, false);
	KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, true), 0);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 0);

	/* spoil sectors 2 and 9 of the parity */
	*rl_st_at(md->disk[pm], 2 * SECTOR_SIZE + 7) ^= 0x10;
	*rl_st_at(md->disk[pm], 9 * SECTOR_SIZE) ^= 0x01;
	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, 0, p), 0);
	rl_st_io(md, p->read, false);
	KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, false), 2);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 0);

	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, 0, p), 0);
	rl_st_io(md, p->read, false);
	KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, true), 2);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 1);
	rl_st_io(md, p->write, true);
	rl_st_check_row(test, md, 0, "repaired");
	rl_st_model_free(md);
}

/* ---- raid6: P and Q ------------------------------------------------ */

static void rl_st_geom6(struct rl_geom *g, unsigned int n)
{
	rl_st_geom(g, n);
	g->layout = &rl_raid6_layout;
	g->nr_data = n - 2;
}

/* The I/O counts of P+Q plans, healthy and with one, two, three lost. */
static void rl_plan_pq_counts(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	const struct rl_parity_layout *l = &rl_raid6_layout;
	unsigned int n = 6, d0, d1, d2, pm, qm;
	struct rl_geom g;
	u64 row = 7;

	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_geom6(&g, n);
	d0 = l->data_member(&g, row, 0);
	d1 = l->data_member(&g, row, 1);
	d2 = l->data_member(&g, row, 2);
	pm = l->parity_member(&g, row);
	qm = l->q_member(&g, row);

	/* small write: old data, P, Q; new data, P, Q */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 2, 4, RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RMW);
	KUNIT_EXPECT_EQ(test, p->qmember, qm);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 3);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 3);
	KUNIT_EXPECT_FALSE(test, rl_span_empty(p->read[qm]));
	KUNIT_EXPECT_FALSE(test, rl_span_empty(p->write[qm]));

	/* full stripe: no reads, every member written */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 0, 4 * RL_ST_CHUNK,
					     RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 0);
	KUNIT_EXPECT_EQ(test, p->nr_writes, n);

	/* three columns of four: reconstruct-write reads the fourth */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 0, 3 * RL_ST_CHUNK,
					     RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 1);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 5);

	/* a lost column read with another lost: the n - 2 others */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 1, 2, 0,
					     BIT(d0) | BIT(d2), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RECON_READ);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n - 2);
	KUNIT_EXPECT_EQ(test, p->missing, min(d0, d2));
	KUNIT_EXPECT_EQ(test, p->missing2, max(d0, d2));
	/* a live column with two lost: direct */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, RL_ST_CHUNK + 1, 2, 0,
					     BIT(d0) | BIT(pm), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_READ);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 1);

	/* P lost: a small write updates data and Q from the rest of the row */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 2, 4, RL_PLAN_WRITE,
					     BIT(pm), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RCW);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 3);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 2);
	KUNIT_EXPECT_TRUE(test, rl_span_empty(p->write[pm]));
	/* a lost column not written does not stop read-modify-write */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 2, 4, RL_PLAN_WRITE,
					     BIT(d2), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RMW);
	/* a written column lost with another: rebuilt first */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, RL_ST_CHUNK - 2, 4,
					     RL_PLAN_WRITE, BIT(d0) | BIT(qm), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_RECON_WRITE);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n - 2);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 2);	/* column 1 and P */
	/* P and Q lost: data only */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 2, 4, RL_PLAN_WRITE,
					     BIT(pm) | BIT(qm), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_NO_PARITY);
	KUNIT_EXPECT_EQ(test, p->nr_reads, 0);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 1);

	/* three lost: refused */
	KUNIT_EXPECT_EQ(test, rl_plan_access(&g, row, 2, 4, RL_PLAN_WRITE,
					     BIT(d0) | BIT(d1) | BIT(pm), p), -EIO);
	KUNIT_EXPECT_EQ(test, rl_plan_access(&g, row, 2, 4, 0,
					     BIT(d0) | BIT(d1) | BIT(pm), p), -EIO);

	/* resync: every data column read, P and Q written */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, row, 0, 0, RL_PLAN_RESYNC, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n - 2);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 2);
	KUNIT_EXPECT_EQ(test, rl_plan_access(&g, row, 0, 0, RL_PLAN_RESYNC,
					     BIT(qm), p), -EIO);
	KUNIT_EXPECT_EQ(test, rl_plan_access(&g, row, 0, 0, RL_PLAN_DO_CHECK,
					     BIT(qm), p), -EIO);

	/* rebuild: of one of two lost, the others read, the one written */
	KUNIT_ASSERT_EQ(test, rl_plan_rebuild(&g, row, qm, BIT(d1) | BIT(qm), p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_REBUILD);
	KUNIT_EXPECT_EQ(test, p->missing, qm);
	KUNIT_EXPECT_EQ(test, p->missing2, d1);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n - 2);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 1);
	KUNIT_EXPECT_EQ(test, p->write[qm].hi, RL_ST_CHUNK);
	KUNIT_EXPECT_EQ(test, rl_plan_rebuild(&g, row, d0, BIT(d1), p), -EIO);
	KUNIT_EXPECT_EQ(test, rl_plan_rebuild(&g, row, d0,
					      BIT(d0) | BIT(d1) | BIT(d2), p), -EIO);
	/* raid5 rebuilds one lost member only */
	rl_st_geom(&g, n);
	KUNIT_EXPECT_EQ(test, rl_plan_rebuild(&g, row, 0, BIT(0) | BIT(1), p), -EIO);
	KUNIT_ASSERT_EQ(test, rl_plan_rebuild(&g, row, 0, BIT(0), p), 0);
	KUNIT_EXPECT_EQ(test, p->qmember, RL_NONE);
	KUNIT_EXPECT_EQ(test, p->missing2, RL_NONE);
}

static const unsigned int rl_plan_pq_members[] = { 4, 5, 6, 8 };

static void rl_plan_pq_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "raid6 n=%u", *n);
}

KUNIT_ARRAY_PARAM(rl_plan_pq, rl_plan_pq_members, rl_plan_pq_desc);

/*
 * Many accesses to a raid6 row, healthy and under every failure of one
 * member and of two: each write leaves every live member right for the
 * expected data (so any lost ones can be rebuilt), each read returns it.
 */
static void rl_plan_pq_execute(struct kunit *test)
{
	unsigned int n = *(const unsigned int *)test->param_value;
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	u32 row_len = (n - 2) * RL_ST_CHUNK;
	unsigned long failed;
	unsigned int i, sets = 0;

	KUNIT_ASSERT_NOT_NULL(test, md);
	rl_st_model_init(test, md, &rl_raid6_layout, n);
	rl_st_check_row(test, md, 0, "initial");

	/* every set of at most two failed members */
	for (failed = 0; failed < BIT(n); failed++) {
		if (hweight_long(failed) > 2)
			continue;
		sets++;
		for (i = 0; i < 12; i++) {
			u32 off = (rl_st_rand(md) | rl_st_rand(md) << 8) % row_len;
			u32 len = 1 + (rl_st_rand(md) | rl_st_rand(md) << 8) %
				  (row_len - off);

			if (i % 4 == 0) {
				off = 0;
				len = row_len;
			}
			rl_st_access(test, md, off, len, RL_PLAN_WRITE, failed);
			len = min_t(u32, len, RL_ST_CHUNK - off % RL_ST_CHUNK);
			rl_st_access(test, md, off, len, 0, failed);
		}
		rl_st_heal_pq(md, failed);
		rl_st_check_row(test, md, 0, "healed");
	}
	/* healthy, n singles, n (n - 1) / 2 pairs */
	KUNIT_EXPECT_EQ(test, sets, 1 + n + n * (n - 1) / 2);
	rl_st_model_free(md);
}

/*
 * Rebuild of two lost members, one after the other as the sync worker
 * does: the first with the second still lost, then the second.
 */
static void rl_plan_pq_rebuild_pairs(struct kunit *test)
{
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int n = 6, a, b, pos;

	KUNIT_ASSERT_NOT_NULL(test, md);
	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_model_init(test, md, &rl_raid6_layout, n);
	for (a = 0; a < n; a++) {
		for (b = 0; b < n; b++) {
			if (a == b)
				continue;
			for (pos = 0; pos < RL_ST_BYTES; pos++) {
				*rl_st_at(md->disk[a], pos) = rl_st_rand(md);
				*rl_st_at(md->disk[b], pos) = rl_st_rand(md);
			}
			KUNIT_ASSERT_EQ(test, rl_plan_rebuild(&md->g, md->row, a,
							      BIT(a) | BIT(b), p), 0);
			rl_st_io(md, p->read, false);
			rl_plan_compute(p, &md->g, md->buf, NULL, 0);
			rl_st_io(md, p->write, true);
			rl_st_check_row(test, md, BIT(b), "first rebuilt");
			KUNIT_ASSERT_EQ(test, rl_plan_rebuild(&md->g, md->row, b,
							      BIT(b), p), 0);
			KUNIT_EXPECT_EQ(test, p->nr_reads, n - 1);
			rl_st_io(md, p->read, false);
			rl_plan_compute(p, &md->g, md->buf, NULL, 0);
			rl_st_io(md, p->write, true);
			rl_st_check_row(test, md, 0, "both rebuilt");
		}
	}
	rl_st_model_free(md);
}

/*
 * Check and repair of P and Q: a consistent row has no mismatch; spoilt
 * sectors of P and of Q are counted apart (and added), a check changes
 * nothing, a repair writes the one of P and Q that was wrong.
 */
static void rl_plan_pq_check_and_repair(struct kunit *test)
{
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int n = 5, pm, qm, k;

	KUNIT_ASSERT_NOT_NULL(test, md);
	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_st_model_init(test, md, &rl_raid6_layout, n);
	pm = md->l->parity_member(&md->g, md->row);
	qm = md->l->q_member(&md->g, md->row);

	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, 0, p), 0);
	KUNIT_EXPECT_EQ(test, p->mode, RL_PLAN_CHECK);
	KUNIT_EXPECT_EQ(test, p->nr_reads, n);
	rl_st_io(md, p->read, false);
	KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, true), 0);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 0);

	/* Q alone: sectors 5 and 9 */
	*rl_st_at(md->disk[qm], 5 * SECTOR_SIZE + 100) ^= 0x40;
	*rl_st_at(md->disk[qm], 9 * SECTOR_SIZE + 511) ^= 0x01;
	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, 0, p), 0);
	rl_st_io(md, p->read, false);
	KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, false), 2);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 0);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, 0, p), 0);
	rl_st_io(md, p->read, false);
	KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, true), 2);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 1);
	KUNIT_EXPECT_FALSE(test, rl_span_empty(p->write[qm]));
	rl_st_io(md, p->write, true);
	rl_st_check_row(test, md, 0, "Q repaired");

	/* P sector 2 and Q sector 2 and 14: three */
	*rl_st_at(md->disk[pm], 2 * SECTOR_SIZE) ^= 0x80;
	*rl_st_at(md->disk[qm], 2 * SECTOR_SIZE + 3) ^= 0x80;
	*rl_st_at(md->disk[qm], 14 * SECTOR_SIZE + 3) ^= 0x08;
	KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
					     RL_PLAN_DO_CHECK, 0, p), 0);
	rl_st_io(md, p->read, false);
	KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, true), 3);
	KUNIT_EXPECT_EQ(test, p->nr_writes, 2);
	rl_st_io(md, p->write, true);
	rl_st_check_row(test, md, 0, "P and Q repaired");

	/* a data sector of each column: P and Q both wrong there */
	for (k = 0; k < md->g.nr_data; k++) {
		unsigned int dm = md->l->data_member(&md->g, md->row, k);

		*rl_st_at(md->disk[dm], (3 + k) * SECTOR_SIZE + 9) ^= 0x20;
		KUNIT_ASSERT_EQ(test, rl_plan_access(&md->g, md->row, 0, 0,
						     RL_PLAN_DO_CHECK, 0, p), 0);
		rl_st_io(md, p->read, false);
		KUNIT_EXPECT_EQ(test, rl_plan_check(p, &md->g, md->buf, true), 2);
		KUNIT_EXPECT_EQ(test, p->nr_writes, 2);
		rl_st_io(md, p->write, true);
		/* P and Q now agree with the spoilt data */
		md->expect[k * RL_ST_BYTES + (3 + k) * SECTOR_SIZE + 9] ^= 0x20;
		rl_st_check_row(test, md, 0, "data spoilt, parity repaired");
	}
	rl_st_model_free(md);
}

/* The negative control: the row check sees a spoilt Q. */
static void rl_plan_pq_check_row_fails(struct kunit *test)
{
	struct rl_st_model *md = kunit_kzalloc(test, sizeof(*md), GFP_KERNEL);
	unsigned int qm, pos;

	KUNIT_ASSERT_NOT_NULL(test, md);
	rl_st_model_init(test, md, &rl_raid6_layout, 4);
	qm = md->l->q_member(&md->g, md->row);
	KUNIT_EXPECT_EQ(test, rl_st_pq_bad_member(md, 0, &pos), -1);
	*rl_st_at(md->disk[qm], 77) ^= 0x02;
	KUNIT_EXPECT_EQ(test, rl_st_pq_bad_member(md, 0, &pos), (int)qm);
	KUNIT_EXPECT_EQ(test, pos, 77);
	/* unless Q is the failed member */
	KUNIT_EXPECT_EQ(test, rl_st_pq_bad_member(md, BIT(qm), &pos), -1);
	rl_st_model_free(md);
}

static struct kunit_case rl_plan_test_cases[] = {
	KUNIT_CASE(rl_plan_rebuild_each_member),
	KUNIT_CASE(rl_plan_check_and_repair),
	KUNIT_CASE(rl_plan_full_row_and_resync),
	KUNIT_CASE(rl_plan_rmw_keeps_bad_parity),
	KUNIT_CASE(rl_plan_small_write_is_rmw),
	KUNIT_CASE(rl_plan_full_stripe_needs_no_reads),
	KUNIT_CASE(rl_plan_large_write_is_rcw),
	KUNIT_CASE(rl_plan_degraded),
	KUNIT_CASE_PARAM(rl_plan_execute, rl_plan_gen_params),
	KUNIT_CASE(rl_plan_pq_counts),
	KUNIT_CASE_PARAM(rl_plan_pq_execute, rl_plan_pq_gen_params),
	KUNIT_CASE(rl_plan_pq_rebuild_pairs),
	KUNIT_CASE(rl_plan_pq_check_and_repair),
	KUNIT_CASE(rl_plan_pq_check_row_fails),
	{}
};

static struct kunit_suite rl_plan_test_suite = {
	.name = "dm_raidlab_plan",
	.test_cases = rl_plan_test_cases,
};

kunit_test_suite(rl_plan_test_suite);
