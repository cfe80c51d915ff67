// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the write-hole journal's pure helpers (suite
 * dm_raidlab_journal): records built from plans, encoded and validated
 * (checksum over header and payload, torn and foreign records rejected),
 * ring space (wrap, full, release out of order), and which records a
 * recovery replays, in which order.
 */
#include <kunit/test.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "journal.h"
#include "../svc/metadata.h"
#include "stripe.h"

#define RL_JT_CHUNK	16	/* sectors */
#define RL_JT_RING	64	/* blocks */

static const u8 rl_jt_uuid[16] = "raidlab-jnl-test";

static void rl_jt_geom(struct rl_geom *g, unsigned int n)
{
	g->layout = &rl_raid5_layout;
	g->nr_members = n;
	g->nr_data = n - 1;
	g->chunk_shift = ilog2(RL_JT_CHUNK);
	g->data_offset = 0;
}

/*
 * A record as rl_jnl_log() lays it out: header block, then the payload
 * (@payload bytes of a byte pattern), in one flat image of its blocks.
 */
struct rl_jt_img {
	struct rl_jnl_rec rec;
	u8 *blocks;			/* rec.blocks * RL_MD_BLOCK */
};

static void rl_jt_build(struct kunit *test, struct rl_jt_img *img,
			const struct rl_plan *p, unsigned int n, u64 seq,
			u64 pos)
{
	struct rl_jnl_hdr *hdr;
	size_t len, i;
	u32 csum;

	rl_jnl_rec_from_plan(&img->rec, p, n);
	img->rec.seq = seq;
	img->rec.pos = pos;
	img->blocks = kunit_kzalloc(test, (size_t)img->rec.blocks * RL_MD_BLOCK,
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, img->blocks);
	len = (size_t)img->rec.payload << SECTOR_SHIFT;
	for (i = 0; i < len; i++)
		img->blocks[RL_MD_BLOCK + i] = (u8)(i * 7 + seq);
	hdr = (struct rl_jnl_hdr *)img->blocks;
	csum = rl_jnl_hdr_encode(&img->rec, rl_jt_uuid, hdr);
	csum = rl_jnl_csum_add(csum, img->blocks + RL_MD_BLOCK, len);
	rl_jnl_seal(hdr, csum);
}

/* Decode and check the checksum, as the recovery scan does. */
static int rl_jt_validate(const struct rl_jt_img *img, u64 pos, unsigned int n,
			  struct rl_jnl_rec *out)
{
	const struct rl_jnl_hdr *hdr = (const void *)img->blocks;
	u32 csum;
	int r;

	r = rl_jnl_hdr_decode(hdr, pos, RL_JT_RING, rl_jt_uuid, n, RL_JT_CHUNK,
			      out, &csum);
	if (r)
		return r;
	csum = rl_jnl_csum_add(csum, img->blocks + RL_MD_BLOCK,
			       (size_t)out->payload << SECTOR_SHIFT);
	return rl_jnl_csum_ok(hdr, csum) ? 0 : -EINVAL;
}

/* ---- records ------------------------------------------------------- */

/* A small write's record holds its data span and the parity span. */
static void rl_jnl_rec_of_small_write(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_jnl_rec *rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	struct rl_geom g;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	rl_jt_geom(&g, 4);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 5, 4, 8, RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_EQ(test, rl_jnl_rec_from_plan(rec, p, 4), 16U);
	KUNIT_EXPECT_EQ(test, rec->nr, 2U);
	KUNIT_EXPECT_EQ(test, rec->row, 5ULL);
	/* 1 header block + 16 sectors in 4 KiB blocks */
	KUNIT_EXPECT_EQ(test, rec->blocks, 3U);
	KUNIT_EXPECT_LT(test, rec->ent[0].member, rec->ent[1].member);
	KUNIT_EXPECT_EQ(test, rec->ent[0].lo, 4U);
	KUNIT_EXPECT_EQ(test, rec->ent[0].hi, 12U);
	KUNIT_EXPECT_EQ(test, rec->ent[1].lo, 4U);
	KUNIT_EXPECT_EQ(test, rec->ent[1].hi, 12U);
	KUNIT_EXPECT_EQ(test, rl_jnl_rec_blocks(0), 1U);
	KUNIT_EXPECT_EQ(test, rl_jnl_rec_blocks(8), 2U);
	KUNIT_EXPECT_EQ(test, rl_jnl_rec_blocks(9), 3U);
}

/*
 * Partial-row writes with parity are journaled, and full rows with a
 * member failed; whole full rows and no-parity writes are not.
 */
static void rl_jnl_wanted_plans(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_geom g;
	unsigned int pm;

	KUNIT_ASSERT_NOT_NULL(test, p);
	rl_jt_geom(&g, 4);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 8, RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
	/* most of the row: reconstruct-write, still partial */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 2 * RL_JT_CHUNK + 8,
					     RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 3 * RL_JT_CHUNK,
					     RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_FALSE(test, rl_jnl_wanted(p, &g));
	/* degraded: a data member failed, the write hole is still there */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 8, RL_PLAN_WRITE,
					     BIT(g.layout->data_member(&g, 2, 1)), p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
	/* a full row over a failed data member: its chunk is the parity's */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 3 * RL_JT_CHUNK,
					     RL_PLAN_WRITE,
					     BIT(g.layout->data_member(&g, 2, 1)), p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
	/* the parity member failed: no parity write, nothing to journal */
	pm = g.layout->parity_member(&g, 2);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 8, RL_PLAN_WRITE, BIT(pm),
					     p), 0);
	KUNIT_EXPECT_FALSE(test, rl_jnl_wanted(p, &g));
	/* reads and background jobs */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 8, 0, 0, p), 0);
	KUNIT_EXPECT_FALSE(test, rl_jnl_wanted(p, &g));
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 2, 0, 0, RL_PLAN_DO_REBUILD,
					     BIT(pm), p), 0);
	KUNIT_EXPECT_FALSE(test, rl_jnl_wanted(p, &g));
}

/*
 * raid6: a partial-row write's record holds data, P and Q; with P failed
 * the Q write alone still makes it journaled; with P and Q failed nothing.
 */
static void rl_jnl_raid6_logs_q(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_jnl_rec *rec = kunit_kzalloc(test, sizeof(*rec), GFP_KERNEL);
	unsigned int i, pm, qm, dm;
	bool has_q = false;
	struct rl_geom g;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	rl_jt_geom(&g, 6);
	g.layout = &rl_raid6_layout;
	g.nr_data = 4;
	pm = g.layout->parity_member(&g, 3);
	qm = g.layout->q_member(&g, 3);
	dm = g.layout->data_member(&g, 3, 0);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 3, 4, 8, RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
	KUNIT_EXPECT_EQ(test, rl_jnl_rec_from_plan(rec, p, 6), 24U);
	KUNIT_EXPECT_EQ(test, rec->nr, 3U);
	for (i = 0; i < rec->nr; i++)
		has_q |= rec->ent[i].member == qm;
	KUNIT_EXPECT_TRUE(test, has_q);

	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 3, 4, 8, RL_PLAN_WRITE,
					     BIT(pm), p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
	KUNIT_EXPECT_EQ(test, rl_jnl_rec_from_plan(rec, p, 6), 16U);
	KUNIT_EXPECT_EQ(test, rec->nr, 2U);

	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 3, 4, 8, RL_PLAN_WRITE,
					     BIT(pm) | BIT(qm), p), 0);
	KUNIT_EXPECT_FALSE(test, rl_jnl_wanted(p, &g));
	/* a full row is not journaled, but for a member of the row failed */
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 3, 0, 4 * RL_JT_CHUNK,
					     RL_PLAN_WRITE, 0, p), 0);
	KUNIT_EXPECT_FALSE(test, rl_jnl_wanted(p, &g));
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 3, 0, 4 * RL_JT_CHUNK,
					     RL_PLAN_WRITE, BIT(dm), p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 3, 0, 4 * RL_JT_CHUNK,
					     RL_PLAN_WRITE, BIT(qm), p), 0);
	KUNIT_EXPECT_TRUE(test, rl_jnl_wanted(p, &g));
}

static void rl_jnl_encode_decode(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_jnl_rec *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	struct rl_jt_img img;
	struct rl_geom g;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_jt_geom(&g, 5);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 9, 3, 30, RL_PLAN_WRITE, 0, p), 0);
	rl_jt_build(test, &img, p, 5, 42, 7);
	KUNIT_ASSERT_EQ(test, rl_jt_validate(&img, 7, 5, out), 0);
	KUNIT_EXPECT_EQ(test, out->seq, 42ULL);
	KUNIT_EXPECT_EQ(test, out->row, 9ULL);
	KUNIT_EXPECT_EQ(test, out->pos, 7ULL);
	KUNIT_EXPECT_EQ(test, out->nr, img.rec.nr);
	KUNIT_EXPECT_EQ(test, out->payload, img.rec.payload);
	KUNIT_EXPECT_EQ(test, out->blocks, img.rec.blocks);
	for (i = 0; i < out->nr; i++) {
		KUNIT_EXPECT_EQ(test, out->ent[i].member, img.rec.ent[i].member);
		KUNIT_EXPECT_EQ(test, out->ent[i].lo, img.rec.ent[i].lo);
		KUNIT_EXPECT_EQ(test, out->ent[i].hi, img.rec.ent[i].hi);
	}
}

/* A record whose payload or header did not land whole is not replayed. */
static void rl_jnl_torn_rejected(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_jnl_rec *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	struct rl_jnl_hdr *hdr;
	struct rl_jt_img img;
	struct rl_geom g;
	size_t last;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_jt_geom(&g, 4);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 1, 0, 16, RL_PLAN_WRITE, 0, p), 0);

	/* the last payload sector still holds what was there before */
	rl_jt_build(test, &img, p, 4, 3, 0);
	last = RL_MD_BLOCK + ((size_t)img.rec.payload << SECTOR_SHIFT) - 1;
	img.blocks[last] ^= 0x40;
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 0, 4, out), -EINVAL);

	/* a header field flipped */
	rl_jt_build(test, &img, p, 4, 3, 0);
	hdr = (struct rl_jnl_hdr *)img.blocks;
	hdr->row = cpu_to_le64(2);
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 0, 4, out), -EINVAL);

	/* the checksum word itself torn */
	rl_jt_build(test, &img, p, 4, 3, 0);
	hdr = (struct rl_jnl_hdr *)img.blocks;
	hdr->csum = 0;
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 0, 4, out), -EINVAL);

	/* invalidated (retired): no record at all */
	rl_jt_build(test, &img, p, 4, 3, 0);
	hdr = (struct rl_jnl_hdr *)img.blocks;
	hdr->magic = 0;
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 0, 4, out), -ENODATA);

	/* intact: accepted (the cases above failed for their damage alone) */
	rl_jt_build(test, &img, p, 4, 3, 0);
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 0, 4, out), 0);
}

/* Headers that checksum fine but do not belong here are refused. */
static void rl_jnl_foreign_rejected(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_jnl_rec *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	static const u8 other[16] = "another-array-id";
	const struct rl_jnl_hdr *hdr;
	struct rl_jt_img img;
	struct rl_geom g;
	u32 csum;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_jt_geom(&g, 4);
	KUNIT_ASSERT_EQ(test, rl_plan_access(&g, 1, 0, 8, RL_PLAN_WRITE, 0, p), 0);
	rl_jt_build(test, &img, p, 4, 3, 10);
	hdr = (const void *)img.blocks;
	/* a copy of a header found at another block */
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 11, 4, out), -EINVAL);
	/* another array's */
	KUNIT_EXPECT_EQ(test, rl_jnl_hdr_decode(hdr, 10, RL_JT_RING, other, 4,
						RL_JT_CHUNK, out, &csum), -EINVAL);
	/* fewer members than its entries name */
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 10, 3, out), -EINVAL);
	/* past the end of a smaller ring */
	KUNIT_EXPECT_EQ(test, rl_jnl_hdr_decode(hdr, 10, 11, rl_jt_uuid, 4,
						RL_JT_CHUNK, out, &csum), -EINVAL);
	/* spans past a smaller chunk */
	KUNIT_EXPECT_EQ(test, rl_jnl_hdr_decode(hdr, 10, RL_JT_RING, rl_jt_uuid,
						4, 4, out, &csum), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_jt_validate(&img, 10, 4, out), 0);
}

/* ---- ring space ---------------------------------------------------- */

static struct rl_jnl_ring *rl_jt_ring(struct kunit *test, u64 size,
				      unsigned int nr_slots)
{
	struct rl_jnl_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct rl_jnl_slot *slots = kunit_kcalloc(test, nr_slots, sizeof(*slots),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	rl_jnl_ring_init(r, size, 1, slots, nr_slots);
	return r;
}

static void rl_jnl_ring_full_and_wrap(struct kunit *test)
{
	struct rl_jnl_ring *r = rl_jt_ring(test, 10, 8);
	u64 seq, pos;

	KUNIT_ASSERT_TRUE(test, rl_jnl_ring_reserve(r, 4, &seq, &pos));
	KUNIT_EXPECT_EQ(test, seq, 1ULL);
	KUNIT_EXPECT_EQ(test, pos, 0ULL);
	KUNIT_ASSERT_TRUE(test, rl_jnl_ring_reserve(r, 4, &seq, &pos));
	KUNIT_EXPECT_EQ(test, seq, 2ULL);
	KUNIT_EXPECT_EQ(test, pos, 4ULL);
	/* 2 blocks left: a record of 3 must wait */
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_reserve(r, 3, &seq, &pos));
	KUNIT_EXPECT_EQ(test, rl_jnl_ring_used(r), 8ULL);
	/* freeing the first record makes room, but a record never wraps */
	KUNIT_EXPECT_TRUE(test, rl_jnl_ring_release(r, 1));
	KUNIT_EXPECT_EQ(test, rl_jnl_ring_used(r), 4ULL);
	KUNIT_ASSERT_TRUE(test, rl_jnl_ring_reserve(r, 3, &seq, &pos));
	KUNIT_EXPECT_EQ(test, seq, 3ULL);
	KUNIT_EXPECT_EQ(test, pos, 0ULL);	/* skipped blocks 8, 9 */
	KUNIT_EXPECT_EQ(test, rl_jnl_ring_used(r), 9ULL);
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_reserve(r, 2, &seq, &pos));
	KUNIT_EXPECT_TRUE(test, rl_jnl_ring_release(r, 2));
	KUNIT_EXPECT_TRUE(test, rl_jnl_ring_release(r, 3));
	KUNIT_EXPECT_EQ(test, rl_jnl_ring_used(r), 0ULL);
	/* empty, at block 3: a record of the whole ring starts at block 0 */
	KUNIT_ASSERT_TRUE(test, rl_jnl_ring_reserve(r, 10, &seq, &pos));
	KUNIT_EXPECT_EQ(test, pos, 0ULL);
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_reserve(r, 1, &seq, &pos));
	/* larger than the ring: never */
	KUNIT_EXPECT_TRUE(test, rl_jnl_ring_release(r, 4));
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_reserve(r, 11, &seq, &pos));
}

/* Records released out of order: the tail waits for the oldest. */
static void rl_jnl_ring_out_of_order(struct kunit *test)
{
	struct rl_jnl_ring *r = rl_jt_ring(test, 100, 4);
	u64 seq[4], pos;
	unsigned int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_TRUE(test, rl_jnl_ring_reserve(r, 10, &seq[i], &pos));
	/* the slot table (records in flight) is full before the blocks are */
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_reserve(r, 10, &pos, &pos));
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_release(r, seq[2]));
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_release(r, seq[1]));
	KUNIT_EXPECT_EQ(test, rl_jnl_ring_used(r), 40ULL);
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_reserve(r, 10, &pos, &pos));
	/* the oldest goes: the tail passes it and the two released after it */
	KUNIT_EXPECT_TRUE(test, rl_jnl_ring_release(r, seq[0]));
	KUNIT_EXPECT_EQ(test, rl_jnl_ring_used(r), 10ULL);
	KUNIT_EXPECT_TRUE(test, rl_jnl_ring_reserve(r, 10, &pos, &pos));
	KUNIT_EXPECT_EQ(test, pos, 40ULL);
	/* a release twice, or of a seq never reserved, changes nothing */
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_release(r, seq[0]));
	KUNIT_EXPECT_FALSE(test, rl_jnl_ring_release(r, 99));
	KUNIT_EXPECT_EQ(test, rl_jnl_ring_used(r), 20ULL);
}

/* ---- replay selection ---------------------------------------------- */

static void rl_jnl_select_order(struct kunit *test)
{
	struct rl_jnl_rec *recs = kunit_kcalloc(test, 6, sizeof(*recs), GFP_KERNEL);
	static const u64 seqs[6] = { 17, 12, 30, 12, 15, 29 };
	unsigned int i, n;

	KUNIT_ASSERT_NOT_NULL(test, recs);
	for (i = 0; i < 6; i++) {
		recs[i].seq = seqs[i];
		recs[i].pos = i * 5;
		recs[i].row = 100 + i;
	}
	/* 12 twice means damage: neither is replayed; the rest by seq */
	n = rl_jnl_select(recs, 6);
	KUNIT_ASSERT_EQ(test, n, 4U);
	KUNIT_EXPECT_EQ(test, recs[0].seq, 15ULL);
	KUNIT_EXPECT_EQ(test, recs[0].row, 104ULL);
	KUNIT_EXPECT_EQ(test, recs[1].seq, 17ULL);
	KUNIT_EXPECT_EQ(test, recs[2].seq, 29ULL);
	KUNIT_EXPECT_EQ(test, recs[3].seq, 30ULL);
	KUNIT_EXPECT_EQ(test, recs[3].row, 102ULL);
	KUNIT_EXPECT_EQ(test, rl_jnl_select(recs, 0), 0U);
}

/*
 * A ring image after a crash: of the records written, the retired ones
 * (magic zeroed) and the torn one are not replayed, the live ones are, in
 * seq order, whatever their place in the ring.
 */
static void rl_jnl_select_after_crash(struct kunit *test)
{
	struct rl_plan *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct rl_jnl_rec *found = kunit_kcalloc(test, 5, sizeof(*found),
						 GFP_KERNEL);
	struct rl_jt_img *img = kunit_kcalloc(test, 5, sizeof(*img), GFP_KERNEL);
	static const u64 pos[5] = { 40, 0, 10, 20, 30 };
	struct rl_geom g;
	unsigned int i, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, found);
	KUNIT_ASSERT_NOT_NULL(test, img);
	rl_jt_geom(&g, 4);
	for (i = 0; i < 5; i++) {
		KUNIT_ASSERT_EQ(test, rl_plan_access(&g, i, 0, 8, RL_PLAN_WRITE,
						     0, p), 0);
		rl_jt_build(test, &img[i], p, 4, 50 + i, pos[i]);
	}
	((struct rl_jnl_hdr *)img[0].blocks)->magic = 0;	/* retired */
	((struct rl_jnl_hdr *)img[2].blocks)->magic = 0;	/* retired */
	img[4].blocks[RL_MD_BLOCK + 100] ^= 1;			/* torn */
	for (i = 0; i < 5; i++)
		if (!rl_jt_validate(&img[i], pos[i], 4, &found[n]))
			n++;
	KUNIT_ASSERT_EQ(test, n, 2U);
	n = rl_jnl_select(found, n);
	KUNIT_ASSERT_EQ(test, n, 2U);
	KUNIT_EXPECT_EQ(test, found[0].seq, 51ULL);
	KUNIT_EXPECT_EQ(test, found[0].row, 1ULL);
	KUNIT_EXPECT_EQ(test, found[1].seq, 53ULL);
	KUNIT_EXPECT_EQ(test, found[1].row, 3ULL);
}

static struct kunit_case rl_jnl_test_cases[] = {
	KUNIT_CASE(rl_jnl_rec_of_small_write),
	KUNIT_CASE(rl_jnl_wanted_plans),
	KUNIT_CASE(rl_jnl_raid6_logs_q),
	KUNIT_CASE(rl_jnl_encode_decode),
	KUNIT_CASE(rl_jnl_torn_rejected),
	KUNIT_CASE(rl_jnl_foreign_rejected),
	KUNIT_CASE(rl_jnl_ring_full_and_wrap),
	KUNIT_CASE(rl_jnl_ring_out_of_order),
	KUNIT_CASE(rl_jnl_select_order),
	KUNIT_CASE(rl_jnl_select_after_crash),
	{}
};

static struct kunit_suite rl_jnl_test_suite = {
	.name = "dm_raidlab_journal",
	.test_cases = rl_jnl_test_cases,
};

kunit_test_suite(rl_jnl_test_suite);
