// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the parity-log region manager (plog_region.c):
 *
 *   dm_raidlab_plog_layout  every logical chunk maps to one member chunk
 *                           and back, regions and roles never overlap, a
 *                           sublog never shares a disk with its region's
 *                           data, everything fits, sync keys, defaults
 *                           and table errors
 *   dm_raidlab_plog_log     segment encode/decode, every validator
 *                           failure, the area header and region table
 *                           slots, the durable state over RAM blocks
 *                           (reopened as after a crash), and applying
 *                           segments in log order against a reference
 *   dm_raidlab_plog_pool    the log-buffer pool
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/crc32c.h>
#include <linux/gcd.h>
#include <linux/irqflags.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "../../svc/parity.h"
#include "plog.h"
#include "../../svc/pq_ref.h"
#include "../../raidlab.h"

/* ------------------------------------------------------------------------
 * dm_raidlab_plog_layout
 */

struct rl_plt_case {
	const char *name;
	unsigned int n, l, a, k, b, chunk, track;
	u64 member_sectors;
	unsigned int f;
};

static const struct rl_plt_case rl_plt_cases[] = {
	{ "n5_defaults", 5, 0, 0, 0, 0, 8, 0, 1 << 18 },
	{ "n6_l2_a500", 6, 2, 500, 0, 0, 16, 0, 1 << 18 },
	{ "n7_l3_a2000_k2", 7, 3, 2000, 2, 0, 8, 0, 1 << 18 },
	{ "n22_default_l", 22, 0, 0, 0, 0, 8, 0, 1 << 17 },
	{ "n4_l2_chunk_is_track", 4, 2, 0, 0, 0, 64, 64, 1 << 18 },
	{ "n8_l3_chunk_over_track_b10", 8, 3, 0, 0, 10, 512, 128, 1 << 19 },
	{ "n10_l4_k3_track96", 10, 4, 1500, 3, 0, 32, 96, 1 << 18 },
	{ "n3_l1_small", 3, 1, 0, 0, 0, 8, 8, 1 << 14 },
	{ "n32_l5", 32, 5, 0, 0, 0, 8, 64, 1 << 17 },
	{ "n12_l3_b4_a250", 12, 3, 250, 0, 4, 8, 0, 1 << 16 },
	{ "n9_l6_g3", 9, 6, 3000, 0, 0, 16, 0, 1 << 18 },
	/* f = 2: P + Q, the log on 2 L members */
	{ "f2_n6_l1_defaults", 6, 1, 0, 0, 0, 8, 0, 1 << 18, 2 },
	{ "f2_n6_default_l", 6, 0, 0, 0, 0, 16, 0, 1 << 18, 2 },
	{ "f2_n7_l1_a2000_k2", 7, 1, 2000, 2, 0, 8, 0, 1 << 18, 2 },
	{ "f2_n8_l2_g4", 8, 2, 0, 0, 0, 8, 8, 1 << 16, 2 },
	{ "f2_n9_l2_a500", 9, 2, 500, 0, 0, 16, 0, 1 << 18, 2 },
	{ "f2_n10_l3_g4_b10", 10, 3, 0, 0, 10, 8, 64, 1 << 17, 2 },
	{ "f2_n11_l1_chunk_over_track", 11, 1, 0, 0, 0, 512, 128, 1 << 19, 2 },
	{ "f2_n12_l2_k3_track96", 12, 2, 1500, 3, 0, 32, 96, 1 << 18, 2 },
	{ "f2_n13_l3_b26", 13, 3, 1000, 0, 26, 8, 0, 1 << 17, 2 },
	{ "f2_n14_l2_a3000", 14, 2, 3000, 0, 0, 16, 0, 1 << 18, 2 },
	{ "f2_n16_l3", 16, 3, 0, 0, 0, 8, 64, 1 << 17, 2 },
	{ "f2_n22_default_l", 22, 0, 0, 0, 0, 8, 0, 1 << 17, 2 },
	{ "f2_n32_l4", 32, 4, 0, 0, 0, 8, 64, 1 << 17, 2 },
};

static void rl_plt_case_desc(const struct rl_plt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_plt, rl_plt_cases, rl_plt_case_desc);

static void rl_plt_params(const struct rl_plt_case *c,
			  struct rl_plog_params *p)
{
	memset(p, 0, sizeof(*p));
	p->nr_members = c->n;
	p->chunk_sectors = c->chunk;
	p->log_disks = c->l;
	p->log_ratio = c->a;
	p->log_tracks = c->k;
	p->track_sectors = c->track;
	p->regions = c->b;
	p->faults = c->f;
}

/* mark member chunk @mc of @m in @used: false if it was marked already */
static bool rl_plt_mark(unsigned long **used, unsigned int m, u64 mc)
{
	return !__test_and_set_bit(mc, used[m]);
}

/* a check chunk of @region on @m is in slot range [lo_slot, hi_slot) of its slice */
static bool rl_plt_in_slots(const struct rl_plog_layout *lo, unsigned int m,
			    u32 region, u64 mc, u32 lo_slot, u32 hi_slot)
{
	u64 start = rl_plog_region_start(lo, m, region);

	return mc >= start + lo_slot && mc < start + hi_slot;
}

/*
 * The layout's invariants, for any f: shape and capacity; every logical
 * chunk maps to one member chunk and back, on a data member of its region
 * that holds neither of its row's check blocks, the data slots of a
 * member in increasing logical order; a row's columns, P and Q on its g
 * data members, one each; P and Q in their slot ranges; every copy of
 * every sublog on a log member of the region, the copies of a sublog on
 * different members, segments inside; every member chunk used once;
 * unmap finds data exactly where data is; the sync keys.
 */
static void rl_plt_check(struct kunit *test, const struct rl_plog_layout *lo,
			 u64 member_sectors)
{
	struct rl_plog_loc loc, loc2;
	unsigned long **used, **data;
	u32 sg = lo->slice / lo->g, r, s;
	u64 x, mc, lchunk, key, prev_key = 0, rowmask = 0, *next;
	unsigned int m, i, t, cp;

	/* shape */
	KUNIT_EXPECT_TRUE(test, lo->f == 1 || lo->f == 2);
	KUNIT_EXPECT_EQ(test, lo->nlog, lo->f * lo->l);
	KUNIT_EXPECT_EQ(test, lo->g, lo->n - lo->nlog);
	KUNIT_EXPECT_EQ(test, lo->cols, lo->g - lo->f);
	KUNIT_EXPECT_GE(test, lo->cols, lo->f);
	KUNIT_EXPECT_EQ(test, lo->cycle, lo->n / gcd(lo->n, lo->nlog));
	KUNIT_EXPECT_EQ(test, lo->slice % lo->g, 0U);
	if (lo->track_sectors >= (1U << lo->chunk_shift))
		KUNIT_EXPECT_EQ(test, ((u64)lo->slice << lo->chunk_shift) %
				lo->track_sectors, 0ULL);
	KUNIT_EXPECT_EQ(test, ((u64)lo->sublog << lo->chunk_shift) % lo->seg_sectors,
			0ULL);
	KUNIT_EXPECT_GE(test, (u64)lo->sublog << lo->chunk_shift,
			(u64)lo->seg_sectors);
	KUNIT_EXPECT_EQ(test, lo->nr_regions % lo->cycle, 0U);
	KUNIT_EXPECT_LE(test, lo->member_chunks, member_sectors >> lo->chunk_shift);
	KUNIT_EXPECT_EQ(test, lo->member_chunks,
			(u64)(lo->nr_regions / lo->cycle) * lo->cycle_chunks);
	KUNIT_EXPECT_EQ(test, lo->data_chunks,
			(u64)lo->nr_regions * lo->slice * lo->cols);
	KUNIT_EXPECT_EQ(test, lo->segs, lo->l * (u32)(((u64)lo->sublog <<
							lo->chunk_shift) / lo->seg_sectors));

	used = kunit_kcalloc(test, lo->n, sizeof(*used), GFP_KERNEL);
	data = kunit_kcalloc(test, lo->n, sizeof(*data), GFP_KERNEL);
	next = kunit_kcalloc(test, lo->n, sizeof(*next), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, used && data && next);
	for (m = 0; m < lo->n; m++) {
		used[m] = kunit_kcalloc(test, BITS_TO_LONGS(lo->member_chunks),
					sizeof(long), GFP_KERNEL);
		data[m] = kunit_kcalloc(test, BITS_TO_LONGS(lo->member_chunks),
					sizeof(long), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, used[m]);
		KUNIT_ASSERT_NOT_NULL(test, data[m]);
	}

	/* data, P and Q: unique, on the right members, and back */
	for (x = 0; x < lo->data_chunks; x++) {
		rl_plog_map(lo, x, &loc);
		KUNIT_ASSERT_LT(test, loc.member, lo->n);
		KUNIT_ASSERT_LT(test, loc.mchunk, lo->member_chunks);
		KUNIT_ASSERT_LT(test, loc.pchunk, lo->member_chunks);
		KUNIT_ASSERT_EQ(test, (u64)loc.row * lo->cols + loc.col,
				x % ((u64)lo->slice * lo->cols));
		KUNIT_ASSERT_NE(test, rl_plog_member_role(lo, loc.region,
							  loc.member), RL_NONE);
		KUNIT_ASSERT_NE(test, rl_plog_member_role(lo, loc.region,
							  loc.pmember), RL_NONE);
		if (lo->f == 2) {
			KUNIT_ASSERT_LT(test, loc.qchunk, lo->member_chunks);
			KUNIT_ASSERT_NE(test, rl_plog_member_role(lo, loc.region,
								  loc.qmember), RL_NONE);
			/* Q on the member after P's */
			KUNIT_ASSERT_EQ(test, rl_plog_member_role(lo, loc.region,
								  loc.qmember),
					(rl_plog_member_role(lo, loc.region, loc.pmember) +
					 1) % lo->g);
		} else {
			KUNIT_ASSERT_EQ(test, loc.qmember, RL_NONE);
		}
		KUNIT_ASSERT_EQ(test, rl_plog_member_role(lo, loc.region, loc.pmember),
				loc.row % lo->g);
		/* the row's members: P, Q and its columns, all different */
		if (loc.col == 0) {
			rowmask = BIT_ULL(loc.pmember);
			if (lo->f == 2) {
				KUNIT_ASSERT_NE(test, loc.qmember, loc.pmember);
				rowmask |= BIT_ULL(loc.qmember);
			}
		}
		KUNIT_ASSERT_FALSE_MSG(test, rowmask & BIT_ULL(loc.member),
				       "region %u row %u col %u: member %u twice",
				       loc.region, loc.row, loc.col, loc.member);
		rowmask |= BIT_ULL(loc.member);
		if (loc.col == lo->cols - 1)
			KUNIT_ASSERT_EQ(test, (unsigned int)hweight64(rowmask), lo->g);
		/* a member's data slots in increasing logical order */
		if (rl_plog_region_start(lo, loc.member, loc.region) <= next[loc.member])
			KUNIT_ASSERT_GE(test, loc.mchunk, next[loc.member]);
		next[loc.member] = loc.mchunk + 1;
		KUNIT_ASSERT_TRUE(test, rl_plt_in_slots(lo, loc.member, loc.region,
							loc.mchunk, 0,
							lo->slice - lo->f * sg));
		KUNIT_ASSERT_TRUE_MSG(test, rl_plt_mark(used, loc.member, loc.mchunk),
				      "lchunk %llu: member %u chunk %llu twice",
				      x, loc.member, loc.mchunk);
		__set_bit(loc.mchunk, data[loc.member]);
		KUNIT_ASSERT_TRUE(test, rl_plog_unmap(lo, loc.member, loc.mchunk,
						      &lchunk));
		KUNIT_ASSERT_EQ(test, lchunk, x);
		rl_plog_row_loc(lo, loc.region, loc.row, loc.col, &loc2);
		KUNIT_ASSERT_EQ(test, memcmp(&loc, &loc2, sizeof(loc)), 0);
		if (loc.col)
			continue;
		KUNIT_ASSERT_TRUE(test, rl_plt_in_slots(lo, loc.pmember, loc.region,
							loc.pchunk,
							lo->slice - lo->f * sg,
							lo->slice - (lo->f - 1) * sg));
		KUNIT_ASSERT_TRUE_MSG(test, rl_plt_mark(used, loc.pmember, loc.pchunk),
				      "row %u of region %u: parity twice",
				      loc.row, loc.region);
		KUNIT_ASSERT_EQ(test, rl_plog_owner(lo, loc.pmember, loc.pchunk,
						    &lchunk), RL_PART_P);
		if (lo->f == 1)
			continue;
		KUNIT_ASSERT_TRUE(test, rl_plt_in_slots(lo, loc.qmember, loc.region,
							loc.qchunk, lo->slice - sg,
							lo->slice));
		KUNIT_ASSERT_TRUE_MSG(test, rl_plt_mark(used, loc.qmember, loc.qchunk),
				      "row %u of region %u: Q twice",
				      loc.row, loc.region);
		KUNIT_ASSERT_EQ(test, rl_plog_owner(lo, loc.qmember, loc.qchunk,
						    &lchunk), RL_PART_Q);
	}

	/* sublogs: not on their region's data members, no overlap, segments inside */
	for (r = 0; r < lo->nr_regions; r++) {
		for (i = 0; i < lo->nlog; i++) {
			m = rl_plog_log_member(lo, r, i);
			KUNIT_ASSERT_EQ(test, rl_plog_member_role(lo, r, m), RL_NONE);
			for (t = 0; t < lo->g; t++)
				KUNIT_ASSERT_NE(test, rl_plog_data_member(lo, r, t), m);
			if (i >= lo->l)
				KUNIT_ASSERT_NE(test, m,
						rl_plog_log_member(lo, r, i - lo->l));
			mc = rl_plog_region_start(lo, m, r);
			for (x = 0; x < lo->sublog; x++) {
				KUNIT_ASSERT_TRUE_MSG(test, rl_plt_mark(used, m, mc + x),
						      "sublog %u of region %u overlaps",
						      i, r);
				KUNIT_ASSERT_EQ(test, rl_plog_owner(lo, m, mc + x,
								    &lchunk),
						RL_PART_LOG);
			}
		}
		for (s = 0; s < lo->segs; s++) {
			unsigned int m0 = RL_NONE;
			u64 ms;

			for (cp = 0; cp < lo->f; cp++) {
				rl_plog_seg_loc(lo, r, s, cp, &m, &ms);
				KUNIT_ASSERT_EQ(test, m, rl_plog_log_member(lo, r,
									    cp * lo->l +
									    s % lo->l));
				mc = rl_plog_region_start(lo, m, r);
				KUNIT_ASSERT_GE(test, ms, mc << lo->chunk_shift);
				KUNIT_ASSERT_LE(test, ms + lo->seg_sectors,
						(mc + lo->sublog) << lo->chunk_shift);
				KUNIT_ASSERT_EQ(test, ms - (mc << lo->chunk_shift),
						(u64)(s / lo->l) * lo->seg_sectors);
				/* the copies of a segment: on other members */
				KUNIT_ASSERT_NE(test, m, m0);
				m0 = m;
			}
		}
	}

	/* every member chunk used once; unmap says data exactly where data is */
	for (m = 0; m < lo->n; m++) {
		KUNIT_EXPECT_EQ(test, bitmap_weight(used[m], lo->member_chunks),
				(unsigned int)lo->member_chunks);
		for (mc = 0; mc < lo->member_chunks; mc++)
			KUNIT_ASSERT_EQ(test, rl_plog_unmap(lo, m, mc, &lchunk),
					(bool)test_bit(mc, data[m]));
		KUNIT_EXPECT_FALSE(test, rl_plog_unmap(lo, m, lo->member_chunks,
						       &lchunk));
		KUNIT_EXPECT_EQ(test, rl_plog_owner(lo, m, lo->member_chunks,
						    &lchunk), RL_PART_NONE);
	}

	/* keys */
	for (r = 0; r < lo->nr_regions; r++) {
		key = rl_plog_region_key(lo, r);
		if (r)
			KUNIT_ASSERT_GT(test, key, prev_key);
		for (m = 0; m < lo->n; m++) {
			u64 end = rl_plog_region_start(lo, m, r) +
				  (rl_plog_member_role(lo, r, m) == RL_NONE ?
				   lo->sublog : lo->slice);

			KUNIT_ASSERT_LE(test, (end << lo->chunk_shift) - 1, key);
		}
		KUNIT_ASSERT_EQ(test, rl_plog_region_at(lo, key), r);
		KUNIT_ASSERT_EQ(test, rl_plog_region_at(lo, r ? prev_key + 1 : 0), r);
		prev_key = key;
	}
	KUNIT_EXPECT_EQ(test, (u64)prev_key + 1, lo->member_chunks << lo->chunk_shift);
	KUNIT_EXPECT_EQ(test, rl_plog_region_at(lo, prev_key + 1), lo->nr_regions);
}

static void rl_plt_layout_maps(struct kunit *test)
{
	const struct rl_plt_case *c = test->param_value;
	struct rl_plog_params p;
	struct rl_plog_layout lo;
	char *error = NULL;

	rl_plt_params(c, &p);
	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &p, c->member_sectors,
						      &error), 0, "%s", error);
	KUNIT_EXPECT_EQ(test, lo.f, c->f ? c->f : 1U);
	if (c->l)
		KUNIT_EXPECT_EQ(test, lo.l, c->l);
	else
		KUNIT_EXPECT_EQ(test, lo.l, rl_plog_default_l(c->n));
	if (c->b)
		KUNIT_EXPECT_EQ(test, lo.nr_regions, roundup(c->b, lo.cycle));
	rl_plt_check(test, &lo, c->member_sectors);
}

/*
 * f = 2 for every N in 6 .. 16 and L in 1 .. 3 that fit (N >= 2 L + 4),
 * with A, K, B and the chunk varied: the invariants of rl_plt_check().
 */
static void rl_plt_f2_sweep(struct kunit *test)
{
	static const unsigned int ratios[] = { 500, 1000, 2000, 1500 };
	struct rl_plog_params p = { .faults = 2, .track_sectors = 8 };
	struct rl_plog_layout lo;
	unsigned int n, l, layouts = 0;
	char *error = NULL;
	u64 ms;

	for (n = 6; n <= 16; n++) {
		for (l = 1; l <= 3 && n >= 2 * l + 4; l++) {
			p.nr_members = n;
			p.log_disks = l;
			p.chunk_sectors = 8 << (n % 2);
			p.track_sectors = p.chunk_sectors;
			p.log_ratio = ratios[(n + l) % ARRAY_SIZE(ratios)];
			p.log_tracks = 1 + (n + l) % 2;
			p.regions = (n % 3) ? 0 : n / 2;
			ms = (u64)(1 << 14) << (n % 2);
			KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &p, ms, &error),
					    0, "n %u l %u: %s", n, l, error);
			KUNIT_ASSERT_EQ(test, lo.cols, n - 2 * l - 2);
			rl_plt_check(test, &lo, ms);
			layouts++;
		}
	}
	KUNIT_EXPECT_EQ(test, layouts, 11U + 9U + 7U);
}

/*
 * The f = 2 numbering by hand, N = 6, L = 1: g = 4, cols = 2; region 0's
 * log members 0 and 1, data members t = 0 .. 3 are members 2 .. 5. Row i
 * (group i / 4, p = i mod 4): P on t = p, Q on t = p + 1 mod 4, columns
 * on the other two in increasing t; member t's data slot is
 * group * 2 + the rank of p among the rows t holds no check block of.
 */
static void rl_plt_f2_numbering(struct kunit *test)
{
	static const struct {
		u32 row;
		unsigned int col, t, slot, pt, qt;
	} want[] = {
		/* row 0: P t0, Q t1, data t2 (its rows 0, 3: slot 0), t3 (rows 0, 1) */
		{ 0, 0, 2, 0, 0, 1 }, { 0, 1, 3, 0, 0, 1 },
		{ 1, 0, 0, 0, 1, 2 }, { 1, 1, 3, 1, 1, 2 },
		{ 2, 0, 0, 1, 2, 3 }, { 2, 1, 1, 0, 2, 3 },
		/* row 3: P t3, Q t0 */
		{ 3, 0, 1, 1, 3, 0 }, { 3, 1, 2, 1, 3, 0 },
		/* the next row group: slots + cols */
		{ 5, 1, 3, 3, 1, 2 },
	};
	struct rl_plog_params p = { .nr_members = 6, .chunk_sectors = 8,
				    .log_disks = 1, .faults = 2, .track_sectors = 8,
				    .regions = 3 };
	struct rl_plog_layout lo;
	struct rl_plog_loc loc;
	char *error = NULL;
	unsigned int i;
	u64 lchunk;

	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &p, 1 << 14, &error), 0,
			    "%s", error);
	KUNIT_ASSERT_EQ(test, lo.g, 4U);
	KUNIT_ASSERT_EQ(test, lo.cols, 2U);
	KUNIT_ASSERT_EQ(test, lo.nlog, 2U);
	KUNIT_EXPECT_EQ(test, rl_plog_log_member(&lo, 0, 0), 0U);
	KUNIT_EXPECT_EQ(test, rl_plog_log_member(&lo, 0, 1), 1U);
	KUNIT_EXPECT_EQ(test, rl_plog_log_member(&lo, 1, 0), 2U);
	KUNIT_EXPECT_EQ(test, rl_plog_data_member(&lo, 1, 3), 1U);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		rl_plog_row_loc(&lo, 0, want[i].row, want[i].col, &loc);
		KUNIT_EXPECT_EQ_MSG(test, loc.member, want[i].t + 2, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, loc.mchunk, (u64)want[i].slot, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, loc.pmember, want[i].pt + 2, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, loc.pchunk,
				    (u64)lo.slice - lo.slice / 2 + want[i].row / 4,
				    "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, loc.qmember, want[i].qt + 2, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, loc.qchunk,
				    (u64)lo.slice - lo.slice / 4 + want[i].row / 4,
				    "case %u", i);
		KUNIT_EXPECT_TRUE(test, rl_plog_unmap(&lo, loc.member, loc.mchunk,
						      &lchunk));
		KUNIT_EXPECT_EQ(test, lchunk, (u64)want[i].row * 2 + want[i].col);
	}
	/* P and Q slots are not data */
	KUNIT_EXPECT_FALSE(test, rl_plog_unmap(&lo, 2, lo.slice / 2, &lchunk));
	KUNIT_EXPECT_FALSE(test, rl_plog_unmap(&lo, 2, lo.slice - 1, &lchunk));
	KUNIT_EXPECT_TRUE(test, rl_plog_unmap(&lo, 2, lo.slice / 2 - 1, &lchunk));
}

/* f = 1 layouts are those of before faults existed: faults 1 == default */
static void rl_plt_f1_unchanged(struct kunit *test)
{
	struct rl_plog_params p = { .nr_members = 9, .chunk_sectors = 16,
				    .log_disks = 2, .log_ratio = 1500 };
	struct rl_plog_layout a, b;
	struct rl_plog_loc la, lb;
	char *error = NULL;
	u64 x;

	KUNIT_ASSERT_EQ(test, rl_plog_layout_init(&a, &p, 1 << 18, &error), 0);
	p.faults = 1;
	KUNIT_ASSERT_EQ(test, rl_plog_layout_init(&b, &p, 1 << 18, &error), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&a, &b, sizeof(a)), 0);
	KUNIT_EXPECT_EQ(test, a.nlog, a.l);
	KUNIT_EXPECT_EQ(test, a.cols, a.g - 1);
	/* the f = 1 formulas of plog.h, chunk by chunk */
	for (x = 0; x < a.data_chunks; x += 7) {
		u32 row, col, pp, t, grp;

		rl_plog_map(&a, x, &la);
		row = la.row;
		col = la.col;
		grp = row / a.g;
		pp = row % a.g;
		t = col < pp ? col : col + 1;
		KUNIT_ASSERT_EQ(test, la.member, rl_plog_data_member(&a, la.region, t));
		KUNIT_ASSERT_EQ(test, la.mchunk,
				rl_plog_region_start(&a, la.member, la.region) +
				(u64)grp * (a.g - 1) + (pp < t ? pp : pp - 1));
		KUNIT_ASSERT_EQ(test, la.pmember, rl_plog_data_member(&a, la.region, pp));
		KUNIT_ASSERT_EQ(test, la.pchunk,
				rl_plog_region_start(&a, la.pmember, la.region) +
				a.slice - a.slice / a.g + grp);
		rl_plog_map(&b, x, &lb);
		KUNIT_ASSERT_EQ(test, memcmp(&la, &lb, sizeof(la)), 0);
	}
}

static void rl_plt_default_l(struct kunit *test)
{
	unsigned int n;

	/* the paper's example array: two to four sublogs per region */
	KUNIT_EXPECT_GE(test, rl_plog_default_l(22), 2U);
	KUNIT_EXPECT_LE(test, rl_plog_default_l(22), 4U);
	/* the rule's slope with t_z = t_rmw: 0.105 N */
	KUNIT_EXPECT_EQ(test, rl_plog_default_l(100), 11U);
	KUNIT_EXPECT_EQ(test, rl_plog_default_l(200), 21U);
	/* clamped */
	KUNIT_EXPECT_EQ(test, rl_plog_default_l(2), 1U);
	KUNIT_EXPECT_EQ(test, rl_plog_default_l(3), 1U);
	KUNIT_EXPECT_EQ(test, rl_plog_default_l(4), 1U);
	for (n = 3; n <= 64; n++) {
		KUNIT_EXPECT_GE(test, rl_plog_default_l(n), 1U);
		KUNIT_EXPECT_LE(test, rl_plog_default_l(n), n - 2);
		KUNIT_EXPECT_LE(test, rl_plog_default_l(n), rl_plog_default_l(n + 1));
	}
}

static void rl_plt_defaults(struct kunit *test)
{
	static const u64 sizes[] = { 1ULL << 27, 1ULL << 31, 3ULL << 30, 1ULL << 24 };
	struct rl_plog_params p = { .nr_members = 22, .chunk_sectors = 8 };
	struct rl_plog_layout lo;
	char *error = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u64 tv = sizes[i] / RL_PLOG_DEF_TRACK, avail = sizes[i] >> 3;
		u64 b0 = max_t(u64, int_sqrt64(tv / RL_PLOG_DEF_K),
			       DIV_ROUND_UP_ULL(sizes[i], RL_PLOG_MAX_SLICE));

		KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &p, sizes[i],
							      &error), 0, "%s", error);
		KUNIT_EXPECT_EQ(test, lo.l, rl_plog_default_l(22));
		KUNIT_EXPECT_EQ(test, lo.k, (unsigned int)RL_PLOG_DEF_K);
		KUNIT_EXPECT_EQ(test, lo.track_sectors, (unsigned int)RL_PLOG_DEF_TRACK);
		KUNIT_EXPECT_EQ(test, lo.seg_sectors, (u32)RL_PLOG_DEF_TRACK);
		/* a region's parity, held to reintegrate it, stays bounded */
		KUNIT_EXPECT_LE(test, (u64)lo.slice * p.chunk_sectors * 10,
				(u64)RL_PLOG_MAX_SLICE * 12);
		/*
		 * B within +-10 % of sqrt(TV / K) (or of one region per
		 * RL_PLOG_MAX_SLICE, on large members), give or take one cycle
		 */
		KUNIT_EXPECT_GE(test, (u64)lo.nr_regions * 10 + 10 * lo.cycle, b0 * 9);
		KUNIT_EXPECT_LE(test, (u64)lo.nr_regions * 10, b0 * 11 + 10 * lo.cycle);
		/* A near 1 and little space wasted (§2.4: under 1 %) */
		KUNIT_EXPECT_GE(test, lo.a_milli, 800U);
		KUNIT_EXPECT_LE(test, lo.a_milli, 1250U);
		KUNIT_EXPECT_LT(test, (avail - lo.member_chunks) * 100, avail);
	}
}

struct rl_plt_err {
	const char *name;
	struct rl_plog_params p;
	u64 member_sectors;
	const char *error;
};

static const struct rl_plt_err rl_plt_errs[] = {
	{ "two_members", { .nr_members = 2, .chunk_sectors = 8 }, 1 << 20,
	  "plog: parity logging needs at least three members" },
	{ "too_many_log_disks", { .nr_members = 5, .chunk_sectors = 8, .log_disks = 4 },
	  1 << 20, "plog: log_disks must leave at least two data members" },
	{ "log_disks_all", { .nr_members = 5, .chunk_sectors = 8, .log_disks = 5 },
	  1 << 20, "plog: log_disks must leave at least two data members" },
	{ "chunk_not_pow2", { .nr_members = 5, .chunk_sectors = 24 }, 1 << 20,
	  "plog: chunk size must be a power of two" },
	{ "chunk_too_large", { .nr_members = 5, .chunk_sectors = 1 << 17 }, 1ULL << 40,
	  "plog: chunk size must be at most 32 MiB" },
	{ "track_odd", { .nr_members = 5, .chunk_sectors = 8, .track_sectors = 12 },
	  1 << 20, "plog: track_sectors must be a multiple of 8 (4 KiB)" },
	{ "track_vs_chunk", { .nr_members = 5, .chunk_sectors = 16, .track_sectors = 24 },
	  1 << 20,
	  "plog: track_sectors must be a multiple of the chunk size, or divide it" },
	{ "k_too_large", { .nr_members = 5, .chunk_sectors = 8, .log_tracks = 65,
			   .track_sectors = 8 }, 1 << 20, "plog: log_tracks is too large" },
	{ "seg_too_large", { .nr_members = 5, .chunk_sectors = 8, .log_tracks = 33 },
	  1 << 20,
	  "plog: a log write (log_tracks * track_sectors) is larger than 4 MiB" },
	{ "ratio_too_large", { .nr_members = 5, .chunk_sectors = 8, .log_ratio = 64001 },
	  1 << 20, "plog: log_ratio is too large" },
	{ "too_many_regions", { .nr_members = 5, .chunk_sectors = 8,
				.regions = RL_PLOG_MAX_REGIONS + 1 }, 1ULL << 40,
	  "plog: too many regions" },
	{ "members_too_small", { .nr_members = 5, .chunk_sectors = 8 }, 1024,
	  "plog: the members are too small for this parity-log layout" },
	{ "regions_too_small", { .nr_members = 5, .chunk_sectors = 8, .regions = 5000 },
	  1 << 20, "plog: the members are too small for this parity-log layout" },
	{ "faults_3", { .nr_members = 8, .chunk_sectors = 8, .faults = 3 }, 1 << 20,
	  "plog: faults must be 1 or 2" },
	{ "faults_huge", { .nr_members = 8, .chunk_sectors = 8, .faults = 1U << 31 },
	  1 << 20, "plog: faults must be 1 or 2" },
	{ "f2_n5", { .nr_members = 5, .chunk_sectors = 8, .log_disks = 1, .faults = 2 },
	  1 << 20, "plog: faults 2 needs N >= 2 * log_disks + 4 members" },
	{ "f2_n7_l2", { .nr_members = 7, .chunk_sectors = 8, .log_disks = 2,
			.faults = 2 }, 1 << 20,
	  "plog: faults 2 needs N >= 2 * log_disks + 4 members" },
	{ "f2_n9_l3", { .nr_members = 9, .chunk_sectors = 8, .log_disks = 3,
			.faults = 2 }, 1 << 20,
	  "plog: faults 2 needs N >= 2 * log_disks + 4 members" },
	{ "f2_l_ge_n", { .nr_members = 8, .chunk_sectors = 8, .log_disks = 8,
			 .faults = 2 }, 1 << 20,
	  "plog: faults 2 needs N >= 2 * log_disks + 4 members" },
	{ "f2_default_l_n5", { .nr_members = 5, .chunk_sectors = 8, .faults = 2 },
	  1 << 20, "plog: faults 2 needs N >= 2 * log_disks + 4 members" },
	{ "f2_too_small", { .nr_members = 8, .chunk_sectors = 8, .faults = 2 }, 1024,
	  "plog: the members are too small for this parity-log layout" },
};

static void rl_plt_err_desc(const struct rl_plt_err *e, char *desc)
{
	strscpy(desc, e->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_plt_err, rl_plt_errs, rl_plt_err_desc);

static void rl_plt_layout_errors(struct kunit *test)
{
	const struct rl_plt_err *e = test->param_value;
	struct rl_plog_layout lo;
	char *error = NULL;

	KUNIT_EXPECT_EQ(test, rl_plog_layout_init(&lo, &e->p, e->member_sectors,
						  &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, e->error);
}

static struct kunit_case rl_plt_test_cases[] = {
	KUNIT_CASE_PARAM(rl_plt_layout_maps, rl_plt_gen_params),
	KUNIT_CASE(rl_plt_f2_sweep),
	KUNIT_CASE(rl_plt_f2_numbering),
	KUNIT_CASE(rl_plt_f1_unchanged),
	KUNIT_CASE(rl_plt_default_l),
	KUNIT_CASE(rl_plt_defaults),
	KUNIT_CASE_PARAM(rl_plt_layout_errors, rl_plt_err_gen_params),
	{}
};

static struct kunit_suite rl_plt_test_suite = {
	.name = "dm_raidlab_plog_layout",
	.test_cases = rl_plt_test_cases,
};

/* ------------------------------------------------------------------------
 * dm_raidlab_plog_log
 */

/* N = 4, L = 1, 8-sector chunks, 16-sector segments (two 8-sector tracks) */
static void rl_pll_layout(struct kunit *test, struct rl_plog_layout *lo)
{
	struct rl_plog_params p = {
		.nr_members = 4, .chunk_sectors = 8, .log_disks = 1,
		.log_tracks = 2, .track_sectors = 8, .regions = 4,
	};
	char *error = NULL;

	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(lo, &p, 1 << 11, &error), 0,
			    "%s", error);
	KUNIT_ASSERT_EQ(test, lo->seg_sectors, 16U);
}

static void *rl_pll_seg(struct kunit *test, const struct rl_plog_layout *lo)
{
	void *seg = kunit_kzalloc(test, (size_t)lo->seg_sectors << SECTOR_SHIFT,
				  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, seg);
	return seg;
}

static void rl_pll_fill(u8 *buf, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		buf[i] = seed >> 16;
	}
}

static void rl_pll_hdr_size(struct kunit *test)
{
	static const unsigned int tracks[] = { 8, 16, 64, 256, 1024, 4096, 8192 };
	struct rl_plog_params p = { .nr_members = 5, .chunk_sectors = 8 };
	struct rl_plog_layout lo;
	char *error = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tracks); i++) {
		size_t fixed = sizeof(struct rl_plog_seg_disk);
		size_t desc = sizeof(struct rl_plog_rec_disk);
		u32 more;

		p.track_sectors = tracks[i];
		KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &p, 1ULL << 26,
							      &error), 0, "%s", error);
		KUNIT_EXPECT_EQ(test, sizeof(struct rl_plog_seg_disk), (size_t)40);
		KUNIT_EXPECT_EQ(test, sizeof(struct rl_plog_rec_disk), (size_t)16);
		KUNIT_EXPECT_EQ(test, lo.hdr_sectors,
				(u32)DIV_ROUND_UP(fixed + desc * lo.max_recs, 512));
		/* a segment of one-sector records fits, and one more would not */
		KUNIT_EXPECT_LE(test, lo.hdr_sectors + lo.max_recs, lo.seg_sectors);
		more = lo.max_recs + 1;
		KUNIT_EXPECT_GT(test, (u32)DIV_ROUND_UP(fixed + desc * more, 512) + more,
				lo.seg_sectors);
	}
}

static void rl_pll_round_trip(struct kunit *test)
{
	static const struct { u8 type, state; u32 row, off, len; } recs[] = {
		{ RL_PLOG_UPDATE, RL_PLOG_PENDING, 0, 0, 1 },
		{ RL_PLOG_OVERWRITE, RL_PLOG_COMMITTED, 5, 0, 8 },
		{ RL_PLOG_UPDATE, RL_PLOG_COMMITTED, 3, 2, 3 },
	};
	struct rl_plog_layout lo;
	struct rl_plog_seg_disk *h;
	const char *why = NULL;
	unsigned int i, hdr_hi, plo, phi;
	u32 room, used = 0;
	u8 *seg, *data;

	rl_pll_layout(test, &lo);
	seg = rl_pll_seg(test, &lo);
	data = kunit_kzalloc(test, 8 << SECTOR_SHIFT, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	rl_plog_seg_init(seg, &lo, 3, 7, 2);
	h = (struct rl_plog_seg_disk *)seg;
	KUNIT_EXPECT_EQ(test, rl_plog_seg_room(seg, &lo), lo.seg_sectors - lo.hdr_sectors);
	KUNIT_EXPECT_TRUE(test, rl_plog_seg_committed(seg));
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, 3, 7, 2, false, &why), 0);

	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		room = rl_plog_seg_room(seg, &lo);
		rl_pll_fill(data, recs[i].len << SECTOR_SHIFT, i);
		KUNIT_ASSERT_EQ(test, rl_plog_seg_append(seg, &lo, recs[i].type,
							 recs[i].row, 0, recs[i].off,
							 recs[i].len, data,
							 recs[i].state), (int)i);
		KUNIT_EXPECT_EQ(test, rl_plog_seg_room(seg, &lo), room - recs[i].len);
		rl_plog_seg_dirty(seg, i, &hdr_hi, &plo, &phi);
		KUNIT_EXPECT_EQ(test, hdr_hi, (unsigned int)(40 + 16 * (i + 1)));
		KUNIT_EXPECT_EQ(test, plo, (lo.hdr_sectors + used) << SECTOR_SHIFT);
		KUNIT_EXPECT_EQ(test, phi - plo, recs[i].len << SECTOR_SHIFT);
		KUNIT_EXPECT_EQ(test, memcmp(seg + plo, data, phi - plo), 0);
		used += recs[i].len;
	}
	KUNIT_EXPECT_FALSE(test, rl_plog_seg_committed(seg));
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, 3, 7, 2, false, &why), 0);

	/* decode by hand */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->magic), RL_PLOG_SEG_MAGIC);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->region), 3ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(h->gen), 7ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->seg), 2U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->nr), (u16)ARRAY_SIZE(recs));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->hdr_sectors), (u16)lo.hdr_sectors);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->payload_sectors), used);
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		KUNIT_EXPECT_EQ(test, h->recs[i].type, recs[i].type);
		KUNIT_EXPECT_EQ(test, h->recs[i].state, recs[i].state);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(h->recs[i].row), recs[i].row);
		KUNIT_EXPECT_EQ(test, (u32)le16_to_cpu(h->recs[i].off), recs[i].off);
		KUNIT_EXPECT_EQ(test, (u32)le16_to_cpu(h->recs[i].len), recs[i].len);
	}

	/* a segment is written only when all records are committed */
	rl_plog_seg_set_state(seg, 0, RL_PLOG_COMMITTED);
	KUNIT_EXPECT_TRUE(test, rl_plog_seg_committed(seg));
	rl_plog_seg_seal(seg, &lo);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, 3, 7, 2, true, &why), 0);
	KUNIT_EXPECT_PTR_EQ(test, why, (const char *)NULL);

	/* full: -ENOSPC; bad arguments: -EINVAL */
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 0, 0, 0,
						 rl_plog_seg_room(seg, &lo) + 1,
						 data, RL_PLOG_COMMITTED), -ENOSPC);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, 0, 0, 0, 0, 1, data,
						 RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 0, 0, 0, 1,
						 data, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, lo.slice,
						 0, 0, 1, data, RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 0, 0, 7, 2,
						 data, RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 0, 0, 0, 0,
						 data, RL_PLOG_COMMITTED), -EINVAL);
}

static void rl_pll_fill_recs(struct kunit *test)
{
	struct rl_plog_layout lo;
	u8 data[SECTOR_SIZE] = { 1 };
	unsigned int nr = 0;
	u8 *seg;
	int r;

	rl_pll_layout(test, &lo);
	seg = rl_pll_seg(test, &lo);
	rl_plog_seg_init(seg, &lo, 0, 1, 0);
	while ((r = rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, nr % lo.slice, 0, 0,
				       1, data, RL_PLOG_COMMITTED)) >= 0)
		nr++;
	KUNIT_EXPECT_EQ(test, r, -ENOSPC);
	KUNIT_EXPECT_EQ(test, nr, lo.max_recs);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_room(seg, &lo), 0U);
}

struct rl_pll_bad {
	const char *name;
	int field;		/* what to break, see rl_pll_break() */
	bool sealed;
	const char *why;
};

enum {
	RL_PLL_MAGIC, RL_PLL_CSUM_PAYLOAD, RL_PLL_CSUM_HDR, RL_PLL_REGION,
	RL_PLL_GEN, RL_PLL_SEGNO, RL_PLL_NR, RL_PLL_HDR_SECTORS,
	RL_PLL_PAYLOAD_SECTORS, RL_PLL_REC_TYPE, RL_PLL_REC_STATE,
	RL_PLL_REC_PENDING, RL_PLL_REC_ROW, RL_PLL_REC_CHUNK,
	RL_PLL_REC_PAYLOAD_LO, RL_PLL_REC_PAYLOAD_HI, RL_PLL_REC_COL,
};

static const struct rl_pll_bad rl_pll_bads[] = {
	{ "magic", RL_PLL_MAGIC, true, "bad magic" },
	{ "csum_payload_bit", RL_PLL_CSUM_PAYLOAD, true, "bad checksum" },
	{ "csum_header_bit", RL_PLL_CSUM_HDR, true, "bad checksum" },
	{ "region", RL_PLL_REGION, true, "wrong region" },
	{ "gen", RL_PLL_GEN, true, "wrong generation" },
	{ "segno", RL_PLL_SEGNO, true, "wrong segment" },
	{ "nr", RL_PLL_NR, false, "too many records" },
	{ "hdr_sectors", RL_PLL_HDR_SECTORS, false, "bad header size" },
	{ "payload_sectors", RL_PLL_PAYLOAD_SECTORS, false,
	  "payload larger than the segment" },
	{ "rec_type", RL_PLL_REC_TYPE, true, "bad record type" },
	{ "rec_state", RL_PLL_REC_STATE, true, "bad record state" },
	{ "rec_pending_sealed", RL_PLL_REC_PENDING, true,
	  "pending record in a sealed segment" },
	{ "rec_row", RL_PLL_REC_ROW, true, "record row outside the region" },
	{ "rec_chunk", RL_PLL_REC_CHUNK, true, "record outside its chunk" },
	{ "rec_payload_in_header", RL_PLL_REC_PAYLOAD_LO, true,
	  "record outside the payload" },
	{ "rec_payload_past_used", RL_PLL_REC_PAYLOAD_HI, true,
	  "record outside the payload" },
	{ "rec_col_f1", RL_PLL_REC_COL, true, "bad record column" },
};

static void rl_pll_bad_desc(const struct rl_pll_bad *b, char *desc)
{
	strscpy(desc, b->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_pll_bad, rl_pll_bads, rl_pll_bad_desc);

static void rl_pll_validators(struct kunit *test)
{
	const struct rl_pll_bad *b = test->param_value;
	struct rl_plog_layout lo;
	struct rl_plog_seg_disk *h;
	struct rl_plog_rec_disk *rec;
	u32 region = 2, segno = 1;
	u64 gen = 5;
	const char *why = NULL;
	u8 data[2 * SECTOR_SIZE];
	u8 *seg;

	rl_pll_layout(test, &lo);
	seg = rl_pll_seg(test, &lo);
	h = (struct rl_plog_seg_disk *)seg;
	rec = &h->recs[1];
	rl_pll_fill(data, sizeof(data), 9);
	rl_plog_seg_init(seg, &lo, region, gen, segno);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 1, 0, 0, 2,
						 data, RL_PLOG_COMMITTED), 0);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_OVERWRITE, 2, 0, 4, 1,
						 data, RL_PLOG_COMMITTED), 1);
	rl_plog_seg_seal(seg, &lo);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_check(seg, &lo, region, gen, segno, true,
						&why), 0);

	switch (b->field) {
	case RL_PLL_MAGIC:
		h->magic = cpu_to_le32(RL_PLOG_SEG_MAGIC ^ 1);
		break;
	case RL_PLL_CSUM_PAYLOAD:
		seg[(lo.hdr_sectors << SECTOR_SHIFT) + 700] ^= 0x10;
		break;
	case RL_PLL_CSUM_HDR:
		seg[(lo.hdr_sectors << SECTOR_SHIFT) - 1] ^= 0x01;
		break;
	case RL_PLL_REGION:
		region++;
		break;
	case RL_PLL_GEN:
		gen--;
		break;
	case RL_PLL_SEGNO:
		segno++;
		break;
	case RL_PLL_NR:
		h->nr = cpu_to_le16(lo.max_recs + 1);
		break;
	case RL_PLL_HDR_SECTORS:
		h->hdr_sectors = cpu_to_le16(lo.hdr_sectors + 1);
		break;
	case RL_PLL_PAYLOAD_SECTORS:
		h->payload_sectors = cpu_to_le32(lo.seg_sectors - lo.hdr_sectors + 1);
		break;
	case RL_PLL_REC_TYPE:
		rec->type = 3;
		break;
	case RL_PLL_REC_STATE:
		rec->state = 0;
		break;
	case RL_PLL_REC_PENDING:
		rec->state = RL_PLOG_PENDING;
		/* a twin may hold it: only a sealed segment refuses it */
		KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, region, gen, segno,
							false, &why), 0);
		break;
	case RL_PLL_REC_ROW:
		rec->row = cpu_to_le32(lo.slice);
		break;
	case RL_PLL_REC_CHUNK:
		rec->off = cpu_to_le16(8);
		break;
	case RL_PLL_REC_PAYLOAD_LO:
		rec->payload = cpu_to_le16(lo.hdr_sectors - 1);
		break;
	case RL_PLL_REC_PAYLOAD_HI:
		rec->payload = cpu_to_le16(lo.hdr_sectors + 3);
		break;
	case RL_PLL_REC_COL:
		rec->col = 1;	/* f = 1: always 0 */
		break;
	}
	/* record corruptions are sealed again: the validator, not the crc, finds them */
	if (b->field >= RL_PLL_REC_TYPE)
		rl_plog_seg_seal(seg, &lo);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, region, gen, segno,
						b->sealed, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, b->why);
}

/* the area header block and the region table slots */
static void rl_pll_md_hdr(struct kunit *test)
{
	struct rl_plog_layout lo, other;
	const char *why = NULL;
	u8 *block;

	rl_pll_layout(test, &lo);
	block = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, block);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo, 4, &why), -ENODATA);
	KUNIT_EXPECT_EQ(test, rl_plog_md_blocks(&lo, 4),
			1 + DIV_ROUND_UP(lo.nr_regions, 128) +
			4ULL * DIV_ROUND_UP(lo.seg_sectors, 8));

	rl_plog_md_hdr_encode(&lo, 4, block);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo, 4, &why), 0);
	/* another buffer count or layout: the table changed */
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo, 5, &why), -ESTALE);
	KUNIT_EXPECT_STREQ(test, why, "the table changed under an existing log");
	other = lo;
	other.sublog += 2;
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &other, 4, &why), -ESTALE);
	other = lo;
	other.l = 2;
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &other, 4, &why), -ESTALE);
	/* a flipped bit anywhere */
	block[100] ^= 4;
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo, 4, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad checksum");
	block[100] ^= 4;
	block[4] ^= 1;
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo, 4, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad magic");
	block[4] ^= 1;
	/* a version this code does not know, checksum right */
	((struct rl_plog_md_hdr_disk *)block)->version = cpu_to_le32(3);
	((struct rl_plog_md_hdr_disk *)block)->csum =
		cpu_to_le32(crc32c(~0U, block + 4, RL_MD_BLOCK - 4) ^
			    RL_PLOG_MD_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo, 4, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "unsupported version");
}

static void rl_pll_md_ent(struct kunit *test)
{
	struct rl_plog_md_ent pair[2], zero = { };
	u64 gen = 0;
	u32 segs = 0;

	rl_plog_md_ent_encode(9, 3, 17, &pair[0]);
	KUNIT_EXPECT_TRUE(test, rl_plog_md_ent_decode(&pair[0], 9, &gen, &segs));
	KUNIT_EXPECT_EQ(test, gen, 3ULL);
	KUNIT_EXPECT_EQ(test, segs, 17U);
	/* a slot of another region, or of zeroes, is not valid */
	KUNIT_EXPECT_FALSE(test, rl_plog_md_ent_decode(&pair[0], 10, &gen, &segs));
	KUNIT_EXPECT_FALSE(test, rl_plog_md_ent_decode(&zero, 9, &gen, &segs));

	/* the larger (gen, segs) wins, whichever slot */
	pair[1] = zero;
	KUNIT_EXPECT_EQ(test, rl_plog_md_ent_pick(pair, 9, &gen, &segs), 0);
	rl_plog_md_ent_encode(9, 3, 18, &pair[1]);
	KUNIT_EXPECT_EQ(test, rl_plog_md_ent_pick(pair, 9, &gen, &segs), 1);
	KUNIT_EXPECT_EQ(test, segs, 18U);
	rl_plog_md_ent_encode(9, 4, 0, &pair[0]);
	KUNIT_EXPECT_EQ(test, rl_plog_md_ent_pick(pair, 9, &gen, &segs), 0);
	KUNIT_EXPECT_EQ(test, gen, 4ULL);
	KUNIT_EXPECT_EQ(test, segs, 0U);
	/* a torn write of the newer slot leaves the older value */
	((u8 *)&pair[0])[3] ^= 0x80;
	KUNIT_EXPECT_EQ(test, rl_plog_md_ent_pick(pair, 9, &gen, &segs), 1);
	KUNIT_EXPECT_EQ(test, gen, 3ULL);
	KUNIT_EXPECT_EQ(test, segs, 18U);
	pair[1] = zero;
	KUNIT_EXPECT_EQ(test, rl_plog_md_ent_pick(pair, 9, &gen, &segs), -EINVAL);
}

/* The durable state over RAM blocks, each its own allocation (a split mapping). */
struct rl_pll_area {
	void **blk;
	u64 nr;
};

static void rl_pll_area(struct kunit *test, struct rl_pll_area *ar,
			const struct rl_plog_layout *lo, unsigned int nr_bufs)
{
	u64 b;

	ar->nr = rl_plog_md_blocks(lo, nr_bufs);
	ar->blk = kunit_kcalloc(test, ar->nr, sizeof(*ar->blk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ar->blk);
	for (b = 0; b < ar->nr; b++) {
		ar->blk[b] = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ar->blk[b]);
	}
}

/* close @pm (if any) and open the area again, as after a crash */
static struct rl_plog_md *rl_pll_reopen(struct kunit *test, struct rl_plog_md *pm,
					const struct rl_pll_area *ar,
					const struct rl_plog_layout *lo,
					unsigned int nr_bufs)
{
	char *error = NULL;

	rl_plog_md_close(pm);
	KUNIT_EXPECT_EQ_MSG(test, rl_plog_md_open_blocks(ar->blk, ar->nr, lo, nr_bufs,
							 &pm, &error), 0, "%s", error);
	return pm;
}

/* region @r's marked slot (the other one if neither is) made invalid */
static void rl_pll_tear_marked(const struct rl_pll_area *ar, u32 r)
{
	struct rl_plog_md_ent *pair = ar->blk[1] + r * 2 * sizeof(*pair);
	u64 gen;
	u32 segs;
	int i = 1;

	if (rl_plog_md_ent_decode(&pair[0], r, &gen, &segs) &&
	    (segs & RL_PLOG_ENT_REWRITE))
		i = 0;
	((u8 *)&pair[i])[2] ^= 0x40;
}

/* the rewrite mark: kept by set_region, a torn set or clear is safe */
static void rl_pll_md_rewrite(struct kunit *test)
{
	struct rl_plog_layout lo;
	struct rl_plog_md *pm;
	struct rl_pll_area ar;
	u64 gen;
	u32 segs;

	rl_pll_layout(test, &lo);
	rl_pll_area(test, &ar, &lo, 3);
	pm = rl_pll_reopen(test, NULL, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_FALSE(test, rl_plog_md_rewrite(pm, 2));
	rl_plog_md_set_region(pm, 2, 1, 1);
	rl_plog_md_set_rewrite(pm, 2, true);
	rl_plog_md_set_region(pm, 2, 1, 2);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_TRUE(test, rl_plog_md_rewrite(pm, 2));
	KUNIT_EXPECT_FALSE(test, rl_plog_md_rewrite(pm, 1));
	rl_plog_md_region(pm, 2, &gen, &segs);
	KUNIT_EXPECT_TRUE(test, gen == 1 && segs == 2);

	/* cleared: either slot torn leaves it clear */
	rl_plog_md_set_rewrite(pm, 2, false);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_FALSE(test, rl_plog_md_rewrite(pm, 2));
	rl_pll_tear_marked(&ar, 2);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_FALSE(test, rl_plog_md_rewrite(pm, 2));
	rl_plog_md_region(pm, 2, &gen, &segs);
	KUNIT_EXPECT_TRUE(test, gen == 1 && segs == 2);

	/* a torn set: nothing was rewritten yet, the value comes back clear */
	rl_plog_md_set_rewrite(pm, 2, true);
	rl_pll_tear_marked(&ar, 2);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_FALSE(test, rl_plog_md_rewrite(pm, 2));

	/* a new generation while marked stays marked, until cleared */
	rl_plog_md_set_rewrite(pm, 2, true);
	rl_plog_md_set_region(pm, 2, 2, 0);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_TRUE(test, rl_plog_md_rewrite(pm, 2));
	rl_plog_md_region(pm, 2, &gen, &segs);
	KUNIT_EXPECT_TRUE(test, gen == 2 && segs == 0);
	rl_plog_md_close(pm);
}

static void rl_pll_md_regions(struct kunit *test)
{
	struct rl_plog_layout lo, other;
	struct rl_plog_md *pm = NULL;
	struct rl_plog_md_ent *pair;
	struct rl_pll_area ar;
	char *error = NULL;
	u64 gen, g2;
	u32 segs, s2, r;

	rl_pll_layout(test, &lo);
	rl_pll_area(test, &ar, &lo, 3);
	pm = rl_pll_reopen(test, NULL, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	/* a new area: generation 1, no segment, every twin free */
	for (r = 0; r < lo.nr_regions; r++) {
		rl_plog_md_region(pm, r, &gen, &segs);
		KUNIT_EXPECT_EQ(test, gen, 1ULL);
		KUNIT_EXPECT_EQ(test, segs, 0U);
	}
	for (r = 0; r < 3; r++)
		KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_twin(pm, r), (const void *)NULL);

	rl_plog_md_set_region(pm, 1, 1, 1);
	rl_plog_md_set_region(pm, 1, 1, 2);
	rl_plog_md_set_region(pm, 2, 2, 0);
	rl_plog_md_region(pm, 1, &gen, &segs);
	KUNIT_EXPECT_EQ(test, segs, 2U);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	rl_plog_md_region(pm, 0, &gen, &segs);
	KUNIT_EXPECT_TRUE(test, gen == 1 && segs == 0);
	rl_plog_md_region(pm, 1, &gen, &segs);
	KUNIT_EXPECT_TRUE(test, gen == 1 && segs == 2);
	rl_plog_md_region(pm, 2, &gen, &segs);
	KUNIT_EXPECT_TRUE(test, gen == 2 && segs == 0);

	/* the newest slot of region 1 torn: the previous value comes back */
	pair = ar.blk[1] + 1 * 2 * sizeof(*pair);
	KUNIT_ASSERT_TRUE(test, rl_plog_md_ent_decode(&pair[0], 1, &gen, &segs));
	KUNIT_ASSERT_TRUE(test, rl_plog_md_ent_decode(&pair[1], 1, &g2, &s2));
	((u8 *)&pair[segs > s2 ? 0 : 1])[2] ^= 0x40;
	pm = rl_pll_reopen(test, pm, &ar, &lo, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	rl_plog_md_region(pm, 1, &gen, &segs);
	KUNIT_EXPECT_TRUE(test, gen == 1 && segs == 1);
	rl_plog_md_close(pm);

	/* the table changed: buffer count, layout */
	KUNIT_EXPECT_EQ(test, rl_plog_md_open_blocks(ar.blk, ar.nr, &lo, 2, &pm, &error),
			-ESTALE);
	other = lo;
	other.sublog += 2;
	KUNIT_EXPECT_EQ(test, rl_plog_md_open_blocks(ar.blk, ar.nr, &other, 3, &pm,
						     &error), -ESTALE);
	KUNIT_EXPECT_STREQ(test, error,
			   "plog: the table changed under an existing parity log (layout or buffers differ)");
	KUNIT_EXPECT_PTR_EQ(test, pm, (struct rl_plog_md *)NULL);

	/* both slots of a region bad */
	memset(pair, 0xff, 2 * sizeof(*pair));
	KUNIT_EXPECT_EQ(test, rl_plog_md_open_blocks(ar.blk, ar.nr, &lo, 3, &pm, &error),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "plog: the parity-log region table is corrupt");
	/* a corrupt header */
	((u8 *)ar.blk[0])[40] ^= 1;
	KUNIT_EXPECT_EQ(test, rl_plog_md_open_blocks(ar.blk, ar.nr, &lo, 3, &pm, &error),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "plog: the parity-log area's header is corrupt");
}

static void rl_pll_md_twins(struct kunit *test)
{
	struct rl_plog_layout lo;
	struct rl_plog_pool pool;
	struct rl_plog_md *pm;
	struct rl_plog_buf *b, *b2;
	struct rl_pll_area ar;
	const struct rl_plog_seg_disk *h;
	unsigned long *recompute;
	unsigned int hdr_hi, plo, phi, hdr0;
	const char *why = NULL;
	u8 *data, *parity;
	const u8 *twin;

	rl_pll_layout(test, &lo);
	rl_pll_area(test, &ar, &lo, 2);
	KUNIT_ASSERT_EQ(test, rl_plog_pool_init(&pool, 2, lo.seg_sectors << SECTOR_SHIFT),
			0);
	parity = kunit_kzalloc(test, (size_t)lo.slice << (lo.chunk_shift + SECTOR_SHIFT),
			       GFP_KERNEL);
	recompute = kunit_kcalloc(test, BITS_TO_LONGS(lo.slice), sizeof(long), GFP_KERNEL);
	data = kunit_kzalloc(test, 3 * SECTOR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, parity && recompute && data);
	pm = rl_pll_reopen(test, NULL, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);

	b = rl_plog_pool_get(&pool);
	b2 = rl_plog_pool_get(&pool);
	KUNIT_ASSERT_TRUE(test, b && b2);
	rl_plog_seg_init(b->seg, &lo, 3, 1, 0);
	rl_plog_md_sync(pm, b, 0, sizeof(struct rl_plog_seg_disk));
	rl_pll_fill(data, 3 * SECTOR_SIZE, 77);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(b->seg, &lo, RL_PLOG_UPDATE, 4, 0, 1, 3,
						 data, RL_PLOG_PENDING), 0);
	rl_plog_seg_dirty(b->seg, 0, &hdr_hi, &plo, &phi);
	rl_plog_md_sync(pm, b, plo, phi);
	rl_plog_md_sync(pm, b, 0, hdr_hi);
	hdr0 = hdr_hi;

	/* a crash now: the twin holds the pending record, the other twin is free */
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_twin(pm, b2->idx), (const void *)NULL);
	twin = rl_plog_md_twin(pm, b->idx);
	KUNIT_ASSERT_NOT_NULL(test, twin);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(twin, &lo, 3, 1, 0, false, &why), 0);
	KUNIT_EXPECT_EQ(test, memcmp(twin, b->seg, hdr_hi), 0);
	KUNIT_EXPECT_EQ(test, memcmp(twin + plo, b->seg + plo, phi - plo), 0);
	KUNIT_EXPECT_EQ(test, rl_plog_apply(&lo, twin, parity, recompute), 0);
	KUNIT_EXPECT_TRUE(test, test_bit(4, recompute));

	/* a second record's payload synced, not yet its header: not counted */
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(b->seg, &lo, RL_PLOG_OVERWRITE, 6, 0, 0, 2,
						 data, RL_PLOG_COMMITTED), 1);
	rl_plog_seg_dirty(b->seg, 1, &hdr_hi, &plo, &phi);
	rl_plog_md_sync(pm, b, plo, phi);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	h = rl_plog_md_twin(pm, b->idx);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->nr), 1);
	KUNIT_EXPECT_EQ(test, h->recs[0].state, RL_PLOG_PENDING);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(h, &lo, 3, 1, 0, false, &why), 0);

	/*
	 * The first record committed and synced with its own header bytes:
	 * the count written covers the second record, so its descriptor
	 * goes along (a count never runs ahead of the descriptors).
	 */
	rl_plog_seg_set_state(b->seg, 0, RL_PLOG_COMMITTED);
	rl_plog_md_sync(pm, b, 0, hdr0);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	h = rl_plog_md_twin(pm, b->idx);
	KUNIT_ASSERT_NOT_NULL(test, h);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->nr), 2);
	KUNIT_EXPECT_TRUE(test, rl_plog_seg_committed(h));
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(h, &lo, 3, 1, 0, false, &why), 0);
	KUNIT_EXPECT_EQ(test, memcmp(h, b->seg, (size_t)(lo.hdr_sectors + 5) << SECTOR_SHIFT),
			0);

	/* released: free after a crash */
	rl_plog_md_release(pm, b);
	rl_plog_pool_put(&pool, b);
	rl_plog_pool_put(&pool, b2);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_twin(pm, 0), (const void *)NULL);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_twin(pm, 1), (const void *)NULL);
	rl_plog_md_close(pm);
	rl_plog_pool_exit(&pool);
}

/* Apply: random records over several segments against plain XOR / copy. */
struct rl_pll_apply_case {
	const char *name;
	unsigned int ops;
	unsigned int overwrite_pct, pending_pct;
	u32 seed;
};

static const struct rl_pll_apply_case rl_pll_apply_cases[] = {
	{ "updates_only", 200, 0, 0, 1 },
	{ "overwrites_only", 120, 100, 0, 2 },
	{ "mixed", 400, 30, 0, 3 },
	{ "mixed_pending", 400, 30, 10, 4 },
	{ "few_rows_many_ops", 600, 20, 5, 5 },
};

static void rl_pll_apply_desc(const struct rl_pll_apply_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_pll_apply, rl_pll_apply_cases, rl_pll_apply_desc);

static u32 rl_pll_rand(u32 *s)
{
	*s = *s * 1664525 + 1013904223;
	return *s >> 8;
}

static void rl_pll_apply(struct kunit *test)
{
	const struct rl_pll_apply_case *c = test->param_value;
	struct rl_plog_layout lo;
	size_t chunk_bytes, pbytes;
	unsigned long *recompute, *want_rc;
	u8 *parity, *ref, *data, **segs;
	unsigned int i, j, nsegs = 0, max_segs, rows;
	u32 s = c->seed;

	rl_pll_layout(test, &lo);
	chunk_bytes = (size_t)SECTOR_SIZE << lo.chunk_shift;
	/* few rows: records pile up on the same rows */
	rows = c->ops > 500 ? 3 : lo.slice;
	pbytes = (size_t)lo.slice * chunk_bytes;
	parity = kunit_kzalloc(test, pbytes, GFP_KERNEL);
	ref = kunit_kzalloc(test, pbytes, GFP_KERNEL);
	data = kunit_kzalloc(test, chunk_bytes, GFP_KERNEL);
	recompute = kunit_kcalloc(test, BITS_TO_LONGS(lo.slice), sizeof(long),
				  GFP_KERNEL);
	want_rc = kunit_kcalloc(test, BITS_TO_LONGS(lo.slice), sizeof(long),
				GFP_KERNEL);
	max_segs = c->ops;
	segs = kunit_kcalloc(test, max_segs, sizeof(*segs), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, parity && ref && data && recompute && want_rc && segs);
	rl_pll_fill(parity, pbytes, c->seed * 31);
	memcpy(ref, parity, pbytes);

	segs[0] = rl_pll_seg(test, &lo);
	rl_plog_seg_init(segs[0], &lo, 1, 2, 0);
	nsegs = 1;
	for (i = 0; i < c->ops; i++) {
		u32 row = rl_pll_rand(&s) % rows;
		u32 off = rl_pll_rand(&s) % 8;
		u32 len = 1 + rl_pll_rand(&s) % (8 - off);
		bool ow = rl_pll_rand(&s) % 100 < c->overwrite_pct;
		bool pending = rl_pll_rand(&s) % 100 < c->pending_pct;
		u8 *dst = ref + row * chunk_bytes + (off << SECTOR_SHIFT);
		int r;

		rl_pll_fill(data, len << SECTOR_SHIFT, s);
		r = rl_plog_seg_append(segs[nsegs - 1], &lo,
				       ow ? RL_PLOG_OVERWRITE : RL_PLOG_UPDATE,
				       row, 0, off, len, data,
				       pending ? RL_PLOG_PENDING : RL_PLOG_COMMITTED);
		if (r == -ENOSPC) {
			rl_plog_seg_seal(segs[nsegs - 1], &lo);
			KUNIT_ASSERT_LT(test, nsegs, max_segs);
			segs[nsegs] = rl_pll_seg(test, &lo);
			rl_plog_seg_init(segs[nsegs], &lo, 1, 2, nsegs);
			nsegs++;
			r = rl_plog_seg_append(segs[nsegs - 1], &lo,
					       ow ? RL_PLOG_OVERWRITE : RL_PLOG_UPDATE,
					       row, 0, off, len, data,
					       pending ? RL_PLOG_PENDING :
							 RL_PLOG_COMMITTED);
		}
		KUNIT_ASSERT_GE(test, r, 0);
		/* the reference: the same operation, done at once */
		if (pending) {
			__set_bit(row, want_rc);
			continue;
		}
		for (j = 0; j < len << SECTOR_SHIFT; j++)
			dst[j] = ow ? data[j] : dst[j] ^ data[j];
	}
	rl_plog_seg_seal(segs[nsegs - 1], &lo);
	KUNIT_EXPECT_GT(test, nsegs, 3U);

	for (i = 0; i < nsegs; i++) {
		const char *why = NULL;

		KUNIT_ASSERT_EQ_MSG(test, rl_plog_seg_check(segs[i], &lo, 1, 2, i,
							    !c->pending_pct, &why),
				    0, "segment %u: %s", i, why);
		KUNIT_ASSERT_EQ(test, rl_plog_apply(&lo, segs[i], parity, recompute), 0);
	}
	KUNIT_EXPECT_TRUE(test, bitmap_equal(recompute, want_rc, lo.slice));
	for (i = 0; i < lo.slice; i++) {
		if (test_bit(i, want_rc))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, memcmp(parity + i * chunk_bytes,
						 ref + i * chunk_bytes, chunk_bytes),
				    0, "row %u", i);
	}
	/* pending records without a recompute map are refused */
	if (c->pending_pct && !bitmap_empty(want_rc, lo.slice)) {
		int bad = 0;

		for (i = 0; i < nsegs; i++)
			if (rl_plog_apply(&lo, segs[i], parity, NULL) == -EINVAL)
				bad++;
		KUNIT_EXPECT_GT(test, bad, 0);
	}
}

/* ------------------------------------------------------------------------
 * dm_raidlab_plog_log, f = 2: records with columns, P + Q reintegration.
 */

/* f = 2 over N members, L log disks: 16-sector chunks, 32-sector segments */
static void rl_pll_f2_layout(struct kunit *test, struct rl_plog_layout *lo,
			     unsigned int n, unsigned int l)
{
	struct rl_plog_params p = {
		.nr_members = n, .chunk_sectors = 16, .log_disks = l,
		.log_tracks = 2, .track_sectors = 16, .faults = 2,
	};
	char *error = NULL;

	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(lo, &p, 1 << 13, &error), 0,
			    "%s", error);
	KUNIT_ASSERT_EQ(test, lo->f, 2U);
	KUNIT_ASSERT_EQ(test, lo->cols, n - 2 * l - 2);
	KUNIT_ASSERT_EQ(test, lo->seg_sectors, 32U);
}

/* encode, decode and check records with columns; bad columns refused */
static void rl_pll_f2_codec(struct kunit *test)
{
	struct rl_plog_layout lo, lo1;
	struct rl_plog_seg_disk *h;
	const char *why = NULL;
	unsigned int cols, i;
	u8 *seg, *data;
	struct { u8 type; u32 row; unsigned int col; u32 off, len; } recs[] = {
		{ RL_PLOG_UPDATE, 0, 0, 0, 1 },
		{ RL_PLOG_UPDATE, 7, 0, 3, 4 },	/* col: the last, below */
		{ RL_PLOG_OVERWRITE, 2, 0, 0, 16 },
		{ RL_PLOG_OVERWRITE, 2, 1, 5, 2 },
	};

	rl_pll_f2_layout(test, &lo, 9, 1);
	cols = lo.cols;
	recs[1].col = cols - 1;
	seg = rl_pll_seg(test, &lo);
	data = kunit_kzalloc(test, 16 << SECTOR_SHIFT, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	h = (struct rl_plog_seg_disk *)seg;

	/* two segments' worth: a fresh one whenever it is full */
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		int r;

		if (i == 2) {
			rl_plog_seg_seal(seg, &lo);
			KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, 1, 1, 0, true,
								&why), 0);
			KUNIT_EXPECT_EQ(test, h->recs[0].col, 0);
			KUNIT_EXPECT_EQ(test, h->recs[1].col, (u8)(cols - 1));
			KUNIT_EXPECT_EQ(test, h->recs[1].type, RL_PLOG_UPDATE);
		}
		if (i == 0 || i == 2)
			rl_plog_seg_init(seg, &lo, 1, 1, 0);
		rl_pll_fill(data, recs[i].len << SECTOR_SHIFT, i);
		r = rl_plog_seg_append(seg, &lo, recs[i].type, recs[i].row, recs[i].col,
				       recs[i].off, recs[i].len, data,
				       RL_PLOG_COMMITTED);
		KUNIT_ASSERT_EQ(test, r, (int)(i % 2));
	}
	rl_plog_seg_seal(seg, &lo);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, 1, 1, 0, true, &why), 0);
	KUNIT_EXPECT_EQ(test, h->recs[0].col, 0);
	KUNIT_EXPECT_EQ(test, h->recs[1].col, 1);
	KUNIT_EXPECT_EQ(test, h->recs[1].type, RL_PLOG_OVERWRITE);
	KUNIT_EXPECT_EQ(test, h->recs[1].reserved[0] | h->recs[1].reserved[1] |
			h->recs[1].reserved[2], 0);

	/* bad columns: not appended */
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 0, cols, 0,
						 1, data, RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 0, 256, 0,
						 1, data, RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_OVERWRITE, 0, 2, 0,
						 1, data, RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->nr), 2);
	rl_pll_layout(test, &lo1);
	rl_plog_seg_init(seg, &lo1, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo1, RL_PLOG_UPDATE, 0, 1, 0, 1,
						 data, RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_plog_seg_append(seg, &lo1, RL_PLOG_OVERWRITE, 0, 1, 0,
						 1, data, RL_PLOG_COMMITTED), -EINVAL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(h->nr), 0);
}

/* a record's column out of range: check and apply refuse it */
static void rl_pll_f2_bad_col(struct kunit *test)
{
	struct rl_plog_layout lo;
	struct rl_plog_seg_disk *h;
	const char *why = NULL;
	u8 *seg, *data, *parity;
	unsigned int i;

	rl_pll_f2_layout(test, &lo, 8, 1);
	seg = rl_pll_seg(test, &lo);
	data = kunit_kzalloc(test, 2 << SECTOR_SHIFT, GFP_KERNEL);
	parity = vzalloc((size_t)2 * lo.slice << (lo.chunk_shift + SECTOR_SHIFT));
	KUNIT_ASSERT_TRUE(test, data && parity);
	h = (struct rl_plog_seg_disk *)seg;
	for (i = 0; i < 4; i++) {
		rl_plog_seg_init(seg, &lo, 0, 1, 0);
		KUNIT_ASSERT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 1, 1, 0,
							 2, data, RL_PLOG_COMMITTED), 0);
		KUNIT_ASSERT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_OVERWRITE, 1, 1,
							 0, 2, data, RL_PLOG_COMMITTED), 1);
		switch (i) {
		case 0:
			h->recs[0].col = lo.cols;
			break;
		case 1:
			h->recs[0].col = 0xff;
			break;
		case 2:
			h->recs[1].col = 2;
			break;
		case 3:
			/* an OVERWRITE's col 1 is Q; an UPDATE's is a column */
			h->recs[1].type = RL_PLOG_UPDATE;
			h->recs[1].col = lo.cols - 1;
			break;
		}
		rl_plog_seg_seal(seg, &lo);
		if (i == 3) {
			KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, 0, 1, 0, true,
								&why), 0);
			KUNIT_EXPECT_EQ(test, rl_plog_apply(&lo, seg, parity, NULL), 0);
			continue;
		}
		KUNIT_EXPECT_EQ(test, rl_plog_seg_check(seg, &lo, 0, 1, 0, true, &why),
				-EINVAL);
		KUNIT_EXPECT_STREQ(test, why, "bad record column");
		KUNIT_EXPECT_EQ(test, rl_plog_apply(&lo, seg, parity, NULL), -EINVAL);
	}
	vfree(parity);
}

/*
 * Apply with P + Q: a model of the rows' data, written by updates of one
 * column (an UPDATE record of the column's update image) and by full-row
 * writes over a sector range (two OVERWRITE records: the range's new P,
 * then its new Q), logged over many segments; the region's check buffer
 * (vmalloc, 2 S chunks of 8 KiB: records cross pages) after applying them
 * in order must hold the reference P and Q (pq_ref.h) of the model, rows
 * with a pending record aside, the rows not written as they were.
 */
struct rl_pll_f2_case {
	const char *name;
	unsigned int n, l;
	unsigned int ops, rows;
	unsigned int overwrite_pct, pending_pct;
	u32 seed;
};

static const struct rl_pll_f2_case rl_pll_f2_cases[] = {
	{ "n6_l1_updates", 6, 1, 200, 12, 0, 0, 11 },
	{ "n6_l1_mixed", 6, 1, 300, 12, 30, 0, 12 },
	{ "n9_l1_overwrites", 9, 1, 120, 14, 100, 0, 13 },
	{ "n9_l1_mixed_pending", 9, 1, 300, 14, 25, 10, 14 },
	{ "n10_l2_mixed", 10, 2, 300, 10, 30, 0, 15 },
	{ "n16_l3_few_rows", 16, 3, 400, 3, 20, 5, 16 },
	{ "n16_l2_mixed", 16, 2, 250, 16, 30, 0, 17 },
};

static void rl_pll_f2_desc(const struct rl_pll_f2_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_pll_f2, rl_pll_f2_cases, rl_pll_f2_desc);

struct rl_pll_f2_ctx {
	struct rl_plog_layout lo;
	size_t cb;			/* chunk bytes */
	u8 *model;			/* rows x cols chunks */
	u8 **segs;
	unsigned int nsegs, max_segs;
};

static u8 *rl_pll_f2_data(struct rl_pll_f2_ctx *x, u32 row, unsigned int k)
{
	return x->model + ((size_t)row * x->lo.cols + k) * x->cb;
}

/* the reference P and Q of the model's row over bytes [lo, hi) of the chunk */
static void rl_pll_f2_ref(struct rl_pll_f2_ctx *x, u32 row, size_t lo, size_t hi,
			  u8 *p, u8 *q)
{
	u8 d[RL_PQ_MAX_DISKS];
	unsigned int k;
	size_t j;

	for (j = lo; j < hi; j++) {
		for (k = 0; k < x->lo.cols; k++)
			d[k] = rl_pll_f2_data(x, row, k)[j];
		rl_pq_ref(d, x->lo.cols, &p[j - lo], &q[j - lo]);
	}
}

/* append to the last segment, sealing it and starting the next when full */
static void rl_pll_f2_append(struct kunit *test, struct rl_pll_f2_ctx *x, u8 type,
			     u32 row, unsigned int col, u32 off, u32 len,
			     const void *data, u8 state)
{
	int r = rl_plog_seg_append(x->segs[x->nsegs - 1], &x->lo, type, row, col, off,
				   len, data, state);

	if (r == -ENOSPC) {
		rl_plog_seg_seal(x->segs[x->nsegs - 1], &x->lo);
		KUNIT_ASSERT_LT(test, x->nsegs, x->max_segs);
		x->segs[x->nsegs] = rl_pll_seg(test, &x->lo);
		rl_plog_seg_init(x->segs[x->nsegs], &x->lo, 4, 9, x->nsegs);
		x->nsegs++;
		r = rl_plog_seg_append(x->segs[x->nsegs - 1], &x->lo, type, row, col,
				       off, len, data, state);
	}
	KUNIT_ASSERT_GE(test, r, 0);
}

static void rl_pll_f2_apply(struct kunit *test)
{
	const struct rl_pll_f2_case *c = test->param_value;
	struct rl_pll_f2_ctx *x = kunit_kzalloc(test, sizeof(*x), GFP_KERNEL);
	unsigned long *recompute, *want_rc;
	u8 *check = NULL, *init = NULL, *buf, *pr, *qr;
	unsigned int i, k, rows, csec, compared = 0;
	size_t cbytes, j;
	u32 s = c->seed, row;

	KUNIT_ASSERT_NOT_NULL(test, x);
	rl_pll_f2_layout(test, &x->lo, c->n, c->l);
	x->cb = (size_t)SECTOR_SIZE << x->lo.chunk_shift;
	csec = 1U << x->lo.chunk_shift;
	rows = min_t(unsigned int, c->rows, x->lo.slice);
	cbytes = 2 * (size_t)x->lo.slice * x->cb;
	x->max_segs = 2 * c->ops + 1;
	x->segs = kunit_kcalloc(test, x->max_segs, sizeof(*x->segs), GFP_KERNEL);
	buf = kunit_kmalloc(test, x->cb, GFP_KERNEL);
	pr = kunit_kmalloc(test, x->cb, GFP_KERNEL);
	qr = kunit_kmalloc(test, x->cb, GFP_KERNEL);
	recompute = kunit_kcalloc(test, BITS_TO_LONGS(x->lo.slice), sizeof(long),
				  GFP_KERNEL);
	want_rc = kunit_kcalloc(test, BITS_TO_LONGS(x->lo.slice), sizeof(long),
				GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, x->segs && buf && pr && qr && recompute && want_rc);
	x->model = vmalloc((size_t)rows * x->lo.cols * x->cb);
	check = vmalloc(cbytes);
	init = vmalloc(cbytes);
	if (!x->model || !check || !init) {
		KUNIT_FAIL(test, "no memory");
		goto out;
	}

	/* random check blocks; the modelled rows' P and Q those of their data */
	rl_pll_fill(check, cbytes, c->seed * 7);
	rl_pll_fill(x->model, (size_t)rows * x->lo.cols * x->cb, c->seed * 5);
	for (row = 0; row < rows; row++)
		rl_pll_f2_ref(x, row, 0, x->cb, check + row * x->cb,
			      check + (x->lo.slice + row) * x->cb);
	memcpy(init, check, cbytes);

	x->segs[0] = rl_pll_seg(test, &x->lo);
	rl_plog_seg_init(x->segs[0], &x->lo, 4, 9, 0);
	x->nsegs = 1;
	for (i = 0; i < c->ops; i++) {
		u32 off = rl_pll_rand(&s) % csec;
		u32 len = 1 + rl_pll_rand(&s) % (csec - off);
		bool ow = rl_pll_rand(&s) % 100 < c->overwrite_pct;
		bool pending = rl_pll_rand(&s) % 100 < c->pending_pct;
		size_t lo = (size_t)off << SECTOR_SHIFT, n = (size_t)len << SECTOR_SHIFT;
		u8 state;

		row = rl_pll_rand(&s) % rows;
		/* odd rows never pending: some rows are always compared */
		pending &= !(row & 1);
		state = pending ? RL_PLOG_PENDING : RL_PLOG_COMMITTED;
		if (pending)
			__set_bit(row, want_rc);
		if (ow) {
			/* a full-row write of the range: new P, then new Q */
			for (k = 0; k < x->lo.cols; k++)
				rl_pll_fill(rl_pll_f2_data(x, row, k) + lo, n,
					    rl_pll_rand(&s));
			rl_pll_f2_ref(x, row, lo, lo + n, pr, qr);
			rl_pll_f2_append(test, x, RL_PLOG_OVERWRITE, row, 0, off, len,
					 pr, state);
			rl_pll_f2_append(test, x, RL_PLOG_OVERWRITE, row, 1, off, len,
					 qr, state);
			continue;
		}
		/* one column's update image */
		k = rl_pll_rand(&s) % x->lo.cols;
		rl_pll_fill(buf, n, rl_pll_rand(&s));
		for (j = 0; j < n; j++)
			rl_pll_f2_data(x, row, k)[lo + j] ^= buf[j];
		rl_pll_f2_append(test, x, RL_PLOG_UPDATE, row, k, off, len, buf, state);
	}
	rl_plog_seg_seal(x->segs[x->nsegs - 1], &x->lo);
	KUNIT_EXPECT_GT(test, x->nsegs, 3U);

	for (i = 0; i < x->nsegs; i++) {
		const char *why = NULL;

		KUNIT_ASSERT_EQ_MSG(test, rl_plog_seg_check(x->segs[i], &x->lo, 4, 9, i,
							    !c->pending_pct, &why),
				    0, "segment %u: %s", i, why);
		KUNIT_ASSERT_EQ(test, rl_plog_apply(&x->lo, x->segs[i], check,
						    recompute), 0);
	}
	KUNIT_EXPECT_TRUE(test, bitmap_equal(recompute, want_rc, x->lo.slice));
	for (row = 0; row < x->lo.slice; row++) {
		u8 *p = check + row * x->cb, *q = check + (x->lo.slice + row) * x->cb;

		if (test_bit(row, want_rc))
			continue;
		if (row >= rows) {
			KUNIT_EXPECT_EQ_MSG(test, memcmp(p, init + row * x->cb, x->cb), 0,
					    "row %u: P changed", row);
			KUNIT_EXPECT_EQ_MSG(test, memcmp(q, init + (x->lo.slice + row) *
							 x->cb, x->cb), 0,
					    "row %u: Q changed", row);
			continue;
		}
		rl_pll_f2_ref(x, row, 0, x->cb, pr, qr);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(p, pr, x->cb), 0, "row %u: P", row);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(q, qr, x->cb), 0, "row %u: Q", row);
		compared++;
	}
	KUNIT_EXPECT_GE(test, compared, rows / 2);	/* the odd rows at least */
	/* pending records without a recompute map are refused */
	if (!bitmap_empty(want_rc, x->lo.slice)) {
		int bad = 0;

		for (i = 0; i < x->nsegs; i++)
			if (rl_plog_apply(&x->lo, x->segs[i], check, NULL) == -EINVAL)
				bad++;
		KUNIT_EXPECT_GT(test, bad, 0);
	}
out:
	vfree(x->model);
	vfree(check);
	vfree(init);
}

/* the area header: version 2 carries faults; version 1 is f = 1 */
static void rl_pll_md_faults(struct kunit *test)
{
	struct rl_plog_layout lo1, lo2, other;
	struct rl_plog_md_hdr_disk *h;
	struct rl_plog_md *pm = NULL;
	struct rl_pll_area ar;
	const char *why = NULL;
	char *error = NULL;
	u8 *block;

	rl_pll_layout(test, &lo1);
	rl_pll_f2_layout(test, &lo2, 8, 1);
	block = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, block);
	h = (struct rl_plog_md_hdr_disk *)block;

	/* f = 1: version 2, faults 1 */
	rl_plog_md_hdr_encode(&lo1, 4, block);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->version), 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->faults), 1U);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo1, 4, &why), 0);
	other = lo1;
	other.f = 2;
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &other, 4, &why), -ESTALE);
	KUNIT_EXPECT_STREQ(test, why,
			   "the table changed the number of faults under an existing log");

	/* an area written before faults existed: version 1, no faults field */
	h->version = cpu_to_le32(1);
	h->faults = 0;
	h->csum = cpu_to_le32(crc32c(~0U, block + 4, RL_MD_BLOCK - 4) ^
			      RL_PLOG_MD_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo1, 4, &why), 0);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &other, 4, &why), -ESTALE);
	KUNIT_EXPECT_STREQ(test, why, "a version 1 log (faults 1) under a faults 2 table");
	/* a flipped bit still counts */
	block[60] ^= 2;
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo1, 4, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad checksum");

	/* f = 2: version 2, faults 2; refused under f = 1 */
	memset(block, 0, RL_MD_BLOCK);
	rl_plog_md_hdr_encode(&lo2, 3, block);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->version), 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(h->faults), 2U);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo2, 3, &why), 0);
	other = lo2;
	other.f = 1;
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &other, 3, &why), -ESTALE);
	KUNIT_EXPECT_STREQ(test, why,
			   "the table changed the number of faults under an existing log");
	/* a faults value of no layout */
	h->faults = cpu_to_le32(3);
	h->csum = cpu_to_le32(crc32c(~0U, block + 4, RL_MD_BLOCK - 4) ^
			      RL_PLOG_MD_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_plog_md_hdr_check(block, &lo2, 3, &why), -ESTALE);

	/* the durable state of an f = 2 layout: formatted, reopened, refused under f = 1 */
	rl_pll_area(test, &ar, &lo2, 3);
	pm = rl_pll_reopen(test, NULL, &ar, &lo2, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	rl_plog_md_set_region(pm, 1, 1, 2);
	pm = rl_pll_reopen(test, pm, &ar, &lo2, 3);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	rl_plog_md_close(pm);
	KUNIT_EXPECT_EQ(test, rl_plog_md_open_blocks(ar.blk, ar.nr, &other, 3, &pm,
						     &error), -ESTALE);
	KUNIT_EXPECT_STREQ(test, error,
			   "plog: the table changed under an existing parity log (layout or buffers differ)");
}

/* two slot identities, field by field (the struct has padding) */
static bool rl_pll_slot_id_eq(const struct rl_plog_slot_id *a,
			      const struct rl_plog_slot_id *b)
{
	return a->region == b->region && a->gen == b->gen && a->seg == b->seg &&
	       a->rec == b->rec && a->nrec == b->nrec && a->row == b->row &&
	       a->off == b->off && a->len == b->len;
}

/* the data-slot area's header, a slot's header and data */
static void rl_pll_slot_codec(struct kunit *test)
{
	struct rl_plog_slot_id id = {
		.region = 2, .gen = 5, .seg = 3, .rec = 7, .nrec = 1,
		.row = 4, .off = 5, .len = 9,
	}, got = { };
	struct rl_plog_slot_disk s, zero = { };
	struct rl_plog_layout lo;
	const char *why = NULL;
	u8 *block, *data;

	rl_pll_layout(test, &lo);
	/* a row: cols (2) chunks of 8 sectors, two blocks, after the header's */
	KUNIT_EXPECT_EQ(test, rl_plog_slot_blocks(&lo), 3U);
	KUNIT_EXPECT_EQ(test, rl_plog_slots_blocks(&lo, 4), 13ULL);
	block = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);
	data = kunit_kzalloc(test, 16 * SECTOR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, block && data);
	KUNIT_EXPECT_EQ(test, rl_plog_slots_hdr_check(block, &lo, 4, &why), -ENODATA);
	rl_plog_slots_hdr_encode(&lo, 4, block);
	KUNIT_EXPECT_EQ(test, rl_plog_slots_hdr_check(block, &lo, 4, &why), 0);
	KUNIT_EXPECT_EQ(test, rl_plog_slots_hdr_check(block, &lo, 5, &why), -ESTALE);
	block[40] ^= 1;
	KUNIT_EXPECT_EQ(test, rl_plog_slots_hdr_check(block, &lo, 4, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad checksum");

	rl_pll_fill(data, 9 * SECTOR_SIZE, 5);
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&zero, NULL, &lo, &got, &why), -ENODATA);
	rl_plog_slot_encode(&id, crc32c(~0U, data, 9 * SECTOR_SIZE), &s);
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, data, &lo, &got, &why), 0);
	KUNIT_EXPECT_TRUE(test, rl_pll_slot_id_eq(&got, &id));
	/* torn data: the header names it, its checksum does not match */
	data[SECTOR_SIZE * 8 + 3] ^= 0x10;
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, NULL, &lo, &got, &why), 0);
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, data, &lo, &got, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad data checksum");
	data[SECTOR_SIZE * 8 + 3] ^= 0x10;
	/* a torn header */
	((u8 *)&s)[20] ^= 2;
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, data, &lo, &got, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad checksum");
	/* extents the layout cannot have, checksums right */
	id.off = 8;	/* 8 + 9 > a row of 16 sectors */
	rl_plog_slot_encode(&id, 0, &s);
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, NULL, &lo, &got, &why), -EINVAL);
	KUNIT_EXPECT_STREQ(test, why, "bad extent");
	id.off = 0;
	id.row = lo.slice;
	rl_plog_slot_encode(&id, 0, &s);
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, NULL, &lo, &got, &why), -EINVAL);
	id.row = 4;
	id.region = lo.nr_regions;
	rl_plog_slot_encode(&id, 0, &s);
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, NULL, &lo, &got, &why), -EINVAL);
	id.region = 2;
	id.nrec = 0;
	rl_plog_slot_encode(&id, 0, &s);
	KUNIT_EXPECT_EQ(test, rl_plog_slot_check(&s, NULL, &lo, &got, &why), -EINVAL);
}

/* the recovery decision: a slot resolves its row only with all of its write's records */
static void rl_pll_slot_resolves(struct kunit *test)
{
	struct rl_plog_layout lo;
	struct rl_plog_slot_id id = {
		.region = 1, .gen = 3, .seg = 2, .rec = 1, .nrec = 1,
		.row = 6, .off = 0, .len = 8,
	};
	const void *segs[2];
	void *a, *b;
	u8 *data;

	rl_pll_layout(test, &lo);
	a = rl_pll_seg(test, &lo);
	b = rl_pll_seg(test, &lo);
	data = kunit_kzalloc(test, 8 * SECTOR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	rl_plog_seg_init(a, &lo, 1, 3, 2);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(a, &lo, RL_PLOG_UPDATE, 5, 0, 0, 1,
						 data, RL_PLOG_COMMITTED), 0);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(a, &lo, RL_PLOG_UPDATE, 6, 0, 0, 1,
						 data, RL_PLOG_PENDING), 1);
	segs[0] = a;
	KUNIT_EXPECT_TRUE(test, rl_plog_slot_resolves(&id, segs, 1));
	/* no twin, or the record named is another one, or of another row */
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 0));
	id.rec = 0;
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 1));
	id.rec = 1;
	id.row = 5;
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 1));
	id.row = 6;
	/* a stale slot: another generation or segment at the same index */
	id.gen = 2;
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 1));
	id.gen = 3;
	id.seg = 1;
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 1));
	id.seg = 2;
	/* the write's data landed and its record committed: nothing to resolve */
	rl_plog_seg_set_state(a, 1, RL_PLOG_COMMITTED);
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 1));
	rl_plog_seg_set_state(a, 1, RL_PLOG_PENDING);

	/* a write of two records over two buffers: both must be there */
	id.nrec = 2;
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 1));
	rl_plog_seg_init(b, &lo, 1, 3, 3);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(b, &lo, RL_PLOG_UPDATE, 6, 0, 2, 3,
						 data, RL_PLOG_PENDING), 0);
	segs[1] = b;
	KUNIT_EXPECT_TRUE(test, rl_plog_slot_resolves(&id, segs, 2));
	/* a twin of another region does not count */
	rl_plog_seg_init(b, &lo, 2, 3, 3);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(b, &lo, RL_PLOG_UPDATE, 6, 0, 2, 3,
						 data, RL_PLOG_PENDING), 0);
	KUNIT_EXPECT_FALSE(test, rl_plog_slot_resolves(&id, segs, 2));
}

/* a resolved row's PENDING record is applied, the others are left to recompute */
static void rl_pll_apply_resolved(struct kunit *test)
{
	struct rl_plog_layout lo;
	size_t cb, i;
	unsigned long *recompute, *resolved;
	u8 *parity, *want, *delta;
	void *seg;

	rl_pll_layout(test, &lo);
	cb = (size_t)1 << (lo.chunk_shift + SECTOR_SHIFT);
	seg = rl_pll_seg(test, &lo);
	parity = kunit_kzalloc(test, lo.slice * cb, GFP_KERNEL);
	want = kunit_kzalloc(test, lo.slice * cb, GFP_KERNEL);
	delta = kunit_kzalloc(test, cb, GFP_KERNEL);
	recompute = kunit_kcalloc(test, BITS_TO_LONGS(lo.slice), sizeof(long), GFP_KERNEL);
	resolved = kunit_kcalloc(test, BITS_TO_LONGS(lo.slice), sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, parity && want && delta && recompute && resolved);
	rl_pll_fill(parity, lo.slice * cb, 11);
	memcpy(want, parity, lo.slice * cb);
	rl_pll_fill(delta, cb, 12);
	rl_plog_seg_init(seg, &lo, 0, 1, 0);
	/* (a segment of 16 sectors: two payloads of 4) */
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 2, 0, 2, 4,
						 delta, RL_PLOG_PENDING), 0);
	KUNIT_ASSERT_EQ(test, rl_plog_seg_append(seg, &lo, RL_PLOG_UPDATE, 3, 0, 2, 4,
						 delta, RL_PLOG_PENDING), 1);
	__set_bit(2, resolved);
	KUNIT_EXPECT_EQ(test, rl_plog_apply_resolved(&lo, seg, parity, recompute,
						     resolved), 0);
	/* row 2: parity ^= old ^ new; row 3 untouched, to be recomputed */
	for (i = 0; i < 4 * SECTOR_SIZE; i++)
		want[2 * cb + 2 * SECTOR_SIZE + i] ^= delta[i];
	KUNIT_EXPECT_EQ(test, memcmp(parity, want, lo.slice * cb), 0);
	KUNIT_EXPECT_FALSE(test, test_bit(2, recompute));
	KUNIT_EXPECT_TRUE(test, test_bit(3, recompute));
	/* without resolved rows it is rl_plog_apply() */
	bitmap_zero(recompute, lo.slice);
	KUNIT_EXPECT_EQ(test, rl_plog_apply_resolved(&lo, seg, parity, recompute, NULL), 0);
	KUNIT_EXPECT_EQ(test, memcmp(parity, want, lo.slice * cb), 0);
	KUNIT_EXPECT_TRUE(test, test_bit(2, recompute));
}

/* the data slots over RAM blocks: formatted, written, found after a crash */
static void rl_pll_md_slots(struct kunit *test)
{
	struct rl_plog_slot_id id = {
		.region = 1, .gen = 2, .seg = 0, .rec = 0, .nrec = 1,
		.row = 3, .off = 4, .len = 10,
	};
	const struct rl_plog_slot_id *got;
	struct rl_plog_layout lo;
	struct rl_plog_md *pm;
	struct rl_pll_area ar;
	const void *gdata = NULL;
	const char *why = NULL;
	void **sblk;
	u64 nr, b;
	u8 *data;

	rl_pll_layout(test, &lo);
	rl_pll_area(test, &ar, &lo, 2);
	nr = rl_plog_slots_blocks(&lo, 3);
	sblk = kunit_kcalloc(test, nr, sizeof(*sblk), GFP_KERNEL);
	data = kunit_kzalloc(test, 10 * SECTOR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, sblk && data);
	for (b = 0; b < nr; b++) {
		sblk[b] = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, sblk[b]);
	}
	pm = rl_pll_reopen(test, NULL, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_EXPECT_FALSE(test, rl_plog_md_slots_on(pm));
	KUNIT_EXPECT_EQ(test, rl_plog_md_slots_open_blocks(pm, sblk, nr - 1, &lo, 3), -ESTALE);
	KUNIT_ASSERT_EQ(test, rl_plog_md_slots_open_blocks(pm, sblk, nr, &lo, 3), 0);
	KUNIT_EXPECT_TRUE(test, rl_plog_md_slots_on(pm));
	KUNIT_EXPECT_EQ(test, rl_plog_md_nr_slots(pm), 3U);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_slot(pm, 1, &gdata), (const void *)NULL);

	/* slot 1: the data in two pieces (across a block), then the header */
	rl_pll_fill(data, 10 * SECTOR_SIZE, 9);
	rl_plog_md_slot_put(pm, 1, 0, data, 3 * SECTOR_SIZE);
	rl_plog_md_slot_put(pm, 1, 3 * SECTOR_SIZE, data + 3 * SECTOR_SIZE,
			    7 * SECTOR_SIZE);
	rl_plog_md_slot_seal(pm, 1, &id, crc32c(~0U, data, 10 * SECTOR_SIZE));
	/* slot 2: data written, never sealed (a crash before the append) */
	rl_plog_md_slot_put(pm, 2, 0, data, 10 * SECTOR_SIZE);

	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_ASSERT_EQ(test, rl_plog_md_slots_open_blocks(pm, sblk, nr, &lo, 3), 0);
	got = rl_plog_md_slot(pm, 1, &gdata);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_EXPECT_TRUE(test, rl_pll_slot_id_eq(got, &id));
	KUNIT_EXPECT_EQ(test, memcmp(gdata, data, 10 * SECTOR_SIZE), 0);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_slot(pm, 2, &gdata), (const void *)NULL);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_slot(pm, 0, &gdata), (const void *)NULL);
	rl_plog_md_slots_done(pm);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_slot(pm, 1, &gdata), (const void *)NULL);

	/* a later write of the context tears the slot's data: not found */
	((u8 *)sblk[1 + rl_plog_slot_blocks(&lo) + 1])[SECTOR_SIZE] ^= 1;
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_ASSERT_EQ(test, rl_plog_md_slots_open_blocks(pm, sblk, nr, &lo, 3), 0);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_slot(pm, 1, &gdata), (const void *)NULL);
	/* a corrupt area header: formatted again, every slot empty */
	((u8 *)sblk[0])[8] ^= 1;
	rl_plog_md_slot_seal(pm, 0, &id, crc32c(~0U, data, 10 * SECTOR_SIZE));
	rl_plog_md_slot_put(pm, 0, 0, data, 10 * SECTOR_SIZE);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_ASSERT_EQ(test, rl_plog_md_slots_open_blocks(pm, sblk, nr, &lo, 3), 0);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_slot(pm, 0, &gdata), (const void *)NULL);
	KUNIT_EXPECT_EQ(test, rl_plog_slots_hdr_check(sblk[0], &lo, 3, &why), 0);

	/* a PLOG area formatted anew (generations restart): the slots too */
	rl_plog_md_slot_seal(pm, 0, &id, crc32c(~0U, data, 10 * SECTOR_SIZE));
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_ASSERT_EQ(test, rl_plog_md_slots_open_blocks(pm, sblk, nr, &lo, 3), 0);
	KUNIT_EXPECT_NOT_NULL(test, rl_plog_md_slot(pm, 0, &gdata));
	memset(ar.blk[0], 0, RL_MD_BLOCK);
	pm = rl_pll_reopen(test, pm, &ar, &lo, 2);
	KUNIT_ASSERT_NOT_NULL(test, pm);
	KUNIT_ASSERT_EQ(test, rl_plog_md_slots_open_blocks(pm, sblk, nr, &lo, 3), 0);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_md_slot(pm, 0, &gdata), (const void *)NULL);
	rl_plog_md_close(pm);
}

static struct kunit_case rl_pll_test_cases[] = {
	KUNIT_CASE(rl_pll_hdr_size),
	KUNIT_CASE(rl_pll_round_trip),
	KUNIT_CASE(rl_pll_fill_recs),
	KUNIT_CASE_PARAM(rl_pll_validators, rl_pll_bad_gen_params),
	KUNIT_CASE(rl_pll_md_hdr),
	KUNIT_CASE(rl_pll_md_ent),
	KUNIT_CASE(rl_pll_md_regions),
	KUNIT_CASE(rl_pll_md_rewrite),
	KUNIT_CASE(rl_pll_md_twins),
	KUNIT_CASE_PARAM(rl_pll_apply, rl_pll_apply_gen_params),
	KUNIT_CASE(rl_pll_f2_codec),
	KUNIT_CASE(rl_pll_f2_bad_col),
	KUNIT_CASE_PARAM(rl_pll_f2_apply, rl_pll_f2_gen_params),
	KUNIT_CASE(rl_pll_md_faults),
	KUNIT_CASE(rl_pll_slot_codec),
	KUNIT_CASE(rl_pll_slot_resolves),
	KUNIT_CASE(rl_pll_apply_resolved),
	KUNIT_CASE(rl_pll_md_slots),
	{}
};

static struct kunit_suite rl_pll_test_suite = {
	.name = "dm_raidlab_plog_log",
	.test_cases = rl_pll_test_cases,
};

/* ------------------------------------------------------------------------
 * dm_raidlab_plog_pool
 */

static void rl_plp_exhaust(struct kunit *test)
{
	struct rl_plog_pool pool;
	struct rl_plog_buf *b[4];
	unsigned long flags;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, rl_plog_pool_init(&pool, 3, 8192), 0);
	KUNIT_EXPECT_EQ(test, pool.nr_free, 3U);
	KUNIT_EXPECT_EQ(test, pool.min_free, 3U);
	for (i = 0; i < 3; i++) {
		b[i] = rl_plog_pool_get(&pool);
		KUNIT_ASSERT_NOT_NULL(test, b[i]);
		KUNIT_EXPECT_LT(test, b[i]->idx, 3U);
		KUNIT_EXPECT_EQ(test, pool.min_free, 2U - i);
		/* the whole image is there, and zeroed */
		KUNIT_EXPECT_EQ(test, ((u8 *)b[i]->seg)[8191], 0);
		memset(b[i]->seg, 0xa5, 8192);
	}
	KUNIT_EXPECT_TRUE(test, b[0]->idx != b[1]->idx && b[1]->idx != b[2]->idx &&
			  b[0]->idx != b[2]->idx);
	/* exhausted: NULL, and a wait counted */
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_pool_get(&pool), (struct rl_plog_buf *)NULL);
	KUNIT_EXPECT_EQ(test, pool.waits, 1ULL);
	KUNIT_EXPECT_EQ(test, pool.gets, 3ULL);
	KUNIT_EXPECT_EQ(test, pool.nr_free, 0U);

	/* put (as from a bio completion, interrupts off) makes it available */
	local_irq_save(flags);
	rl_plog_pool_put(&pool, b[1]);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, pool.nr_free, 1U);
	b[3] = rl_plog_pool_get(&pool);
	KUNIT_EXPECT_PTR_EQ(test, b[3], b[1]);
	KUNIT_EXPECT_PTR_EQ(test, rl_plog_pool_get(&pool), (struct rl_plog_buf *)NULL);
	KUNIT_EXPECT_EQ(test, pool.waits, 2ULL);
	KUNIT_EXPECT_EQ(test, pool.gets, 4ULL);

	for (i = 0; i < 3; i++)
		rl_plog_pool_put(&pool, b[i]);
	KUNIT_EXPECT_EQ(test, pool.nr_free, 3U);
	KUNIT_EXPECT_EQ(test, pool.min_free, 0U);	/* a low-water mark */
	rl_plog_pool_exit(&pool);
	KUNIT_EXPECT_PTR_EQ(test, pool.bufs, (struct rl_plog_buf *)NULL);
}

static void rl_plp_init(struct kunit *test)
{
	struct rl_plog_pool pool;

	KUNIT_EXPECT_EQ(test, rl_plog_pool_init(&pool, 0, 4096), -EINVAL);
	rl_plog_pool_exit(&pool);
	KUNIT_ASSERT_EQ(test, rl_plog_pool_init(&pool, 16, 1 << 20), 0);
	KUNIT_EXPECT_EQ(test, pool.nr, 16U);
	KUNIT_EXPECT_EQ(test, pool.gets + pool.waits, 0ULL);
	rl_plog_pool_exit(&pool);
	rl_plog_pool_exit(&pool);	/* twice is harmless */
}

static struct kunit_case rl_plp_test_cases[] = {
	KUNIT_CASE(rl_plp_exhaust),
	KUNIT_CASE(rl_plp_init),
	{}
};

static struct kunit_suite rl_plp_test_suite = {
	.name = "dm_raidlab_plog_pool",
	.test_cases = rl_plp_test_cases,
};

kunit_test_suites(&rl_plt_test_suite, &rl_pll_test_suite, &rl_plp_test_suite);
