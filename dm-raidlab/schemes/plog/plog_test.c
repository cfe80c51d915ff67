// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the plog scheme's pure helpers (suite dm_raidlab_plog):
 *
 *   span       the part of each column an access to a row touches: the
 *              spans of a row's columns tile the access exactly
 *   slot rows  every row of a region has its g - 1 data chunks and its
 *              parity chunk in exactly one slot of its data members'
 *              slices, parity in the parity slots, every slot used
 *   cache      the data cache: all-or-nothing lookups, LRU eviction,
 *              drop, the counters, and a cache of no blocks
 *   plan recs  the records a write appends: f = 1 one over the hull (or
 *              the full row's parity), f = 2 one per column touched over
 *              its own span (or P and Q of a full row)
 *   plan bufs  the fresh log buffers a write's records need, after what
 *              the current buffer holds (descriptors and payload)
 *   mem        the memory a table's options ask for, against the budget
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "plog_int.h"

static void rl_plog_span(struct kunit *test)
{
	static const struct {
		u32 off, len;
	} cases[] = {
		{ 0, 8 }, { 0, 64 }, { 0, 192 }, { 3, 1 }, { 60, 8 },
		{ 63, 66 }, { 64, 64 }, { 100, 92 }, { 8, 120 }, { 191, 1 },
	};
	const unsigned int shift = 6, cols = 3;	/* 64-sector chunks, g - 1 = 3 */
	unsigned int i, k;
	u32 lo, hi, total;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u32 off = cases[i].off, len = cases[i].len;

		total = 0;
		for (k = 0; k < cols; k++) {
			u32 s = k << shift, e = s + (1U << shift);
			bool in = off < e && off + len > s;

			KUNIT_ASSERT_EQ_MSG(test, plog_span(off, len, shift, k, &lo, &hi),
					    in, "off %u len %u col %u", off, len, k);
			if (!in)
				continue;
			KUNIT_EXPECT_LT(test, lo, hi);
			KUNIT_EXPECT_LE(test, hi, 1U << shift);
			KUNIT_EXPECT_EQ(test, s + lo, max(off, s));
			KUNIT_EXPECT_EQ(test, s + hi, min(off + len, e));
			total += hi - lo;
		}
		KUNIT_EXPECT_EQ_MSG(test, total, len, "off %u len %u", off, len);
	}
	/* a column the access misses, on either side */
	KUNIT_EXPECT_FALSE(test, plog_span(64, 64, shift, 0, &lo, &hi));
	KUNIT_EXPECT_FALSE(test, plog_span(64, 64, shift, 2, &lo, &hi));
}

static void rl_plog_cache(struct kunit *test)
{
	struct plog_cache *c = plog_cache_alloc(4);
	u8 *src, *dst;
	u64 hits, misses;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	src = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	dst = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	for (i = 0; i < 4; i++)
		memset(src + i * PAGE_SIZE, 0x10 + i, PAGE_SIZE);

	KUNIT_EXPECT_FALSE(test, plog_cache_get(c, 100, 1, dst));
	plog_cache_put(c, 100, 3, src);		/* blocks 100, 101, 102 */
	KUNIT_EXPECT_TRUE(test, plog_cache_get(c, 101, 2, dst));
	KUNIT_EXPECT_EQ(test, dst[0], 0x11);
	KUNIT_EXPECT_EQ(test, dst[2 * PAGE_SIZE - 1], 0x12);
	/* all or nothing: 103 is not there, dst is left alone */
	memset(dst, 0, 4 * PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, plog_cache_get(c, 102, 2, dst));
	KUNIT_EXPECT_EQ(test, dst[0], 0);

	/* 101, 102 are the most recent: two more blocks evict 100, then 103 */
	plog_cache_put(c, 200, 1, src + 3 * PAGE_SIZE);	/* 4 used */
	plog_cache_put(c, 201, 1, src);			/* evicts 100 */
	KUNIT_EXPECT_FALSE(test, plog_cache_get(c, 100, 1, dst));
	KUNIT_EXPECT_TRUE(test, plog_cache_get(c, 101, 2, dst));
	KUNIT_EXPECT_TRUE(test, plog_cache_get(c, 200, 2, dst));
	KUNIT_EXPECT_EQ(test, dst[0], 0x13);
	KUNIT_EXPECT_EQ(test, dst[PAGE_SIZE], 0x10);

	/* a put over a cached block replaces its data */
	plog_cache_put(c, 101, 1, src + 3 * PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, plog_cache_get(c, 101, 1, dst));
	KUNIT_EXPECT_EQ(test, dst[0], 0x13);

	plog_cache_drop(c, 101, 1);
	KUNIT_EXPECT_FALSE(test, plog_cache_get(c, 101, 1, dst));
	KUNIT_EXPECT_TRUE(test, plog_cache_get(c, 102, 1, dst));
	plog_cache_drop(c, 500, 3);	/* not cached: nothing happens */
	KUNIT_EXPECT_TRUE(test, plog_cache_get(c, 200, 2, dst));

	plog_cache_counts(c, &hits, &misses);
	KUNIT_EXPECT_EQ(test, hits, 6ULL);
	KUNIT_EXPECT_EQ(test, misses, 4ULL);
	plog_cache_free(c);

	/* data_cache 0: nothing is kept, nothing counted */
	c = plog_cache_alloc(0);
	KUNIT_ASSERT_NOT_NULL(test, c);
	plog_cache_put(c, 1, 1, src);
	KUNIT_EXPECT_FALSE(test, plog_cache_get(c, 1, 1, dst));
	plog_cache_counts(c, &hits, &misses);
	KUNIT_EXPECT_EQ(test, hits + misses, 0ULL);
	plog_cache_free(c);
}

/* A hand-made layout: what plog_plan_recs() and plog_plan_bufs() read. */
static void rl_plog_test_lo(struct rl_plog_layout *lo, unsigned int f,
			    unsigned int g, unsigned int chunk_shift)
{
	memset(lo, 0, sizeof(*lo));
	lo->f = f;
	lo->g = g;
	lo->cols = g - f;
	lo->chunk_shift = chunk_shift;
	lo->seg_sectors = 256;
	lo->hdr_sectors = 8;
	lo->max_recs = 4;
}

static void rl_plog_plan_recs(struct kunit *test)
{
	static const struct {
		u32 off, len;
	} cases[] = {
		{ 0, 8 }, { 3, 1 }, { 60, 8 }, { 63, 66 }, { 64, 64 },
		{ 100, 92 }, { 8, 240 }, { 255, 1 }, { 0, 255 }, { 1, 255 },
	};
	struct rl_plog_plan_recs_buf {
		struct plog_rec_plan plan[RL_MAX_MEMBERS];
	} *b;
	struct rl_plog_layout lo;
	unsigned int i, k, f, nr;
	u32 l, h, total;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	for (f = 1; f <= 2; f++) {
		/* 64-sector chunks, 4 data columns: a row of 256 sectors */
		rl_plog_test_lo(&lo, f, 4 + f, 6);
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			u32 off = cases[i].off, len = cases[i].len, hlo = 64, hhi = 0;

			nr = plog_plan_recs(&lo, off, len, b->plan);
			if (f == 1) {
				for (k = 0; k < lo.cols; k++)
					if (plog_span(off, len, 6, k, &l, &h)) {
						hlo = min(hlo, l);
						hhi = max(hhi, h);
					}
				KUNIT_ASSERT_EQ(test, nr, 1U);
				KUNIT_EXPECT_EQ(test, b->plan[0].type, RL_PLOG_UPDATE);
				KUNIT_EXPECT_EQ(test, b->plan[0].col, 0);
				KUNIT_EXPECT_EQ(test, b->plan[0].src, lo.g);
				KUNIT_EXPECT_EQ(test, b->plan[0].lo, hlo);
				KUNIT_EXPECT_EQ(test, b->plan[0].hi, hhi);
				continue;
			}
			/* one UPDATE per column touched, in column order */
			total = 0;
			for (k = 0; k < nr; k++) {
				const struct plog_rec_plan *pl = &b->plan[k];

				KUNIT_EXPECT_EQ(test, pl->type, RL_PLOG_UPDATE);
				KUNIT_EXPECT_EQ(test, pl->src, pl->col);
				KUNIT_EXPECT_LT(test, (unsigned int)pl->col, lo.cols);
				if (k)
					KUNIT_EXPECT_GT(test, pl->col, b->plan[k - 1].col);
				KUNIT_ASSERT_TRUE(test, plog_span(off, len, 6, pl->col,
								  &l, &h));
				KUNIT_EXPECT_EQ(test, pl->lo, l);
				KUNIT_EXPECT_EQ(test, pl->hi, h);
				total += h - l;
			}
			KUNIT_EXPECT_EQ_MSG(test, total, len, "off %u len %u", off, len);
			KUNIT_EXPECT_EQ(test, nr, DIV_ROUND_UP(off + len, 64) - off / 64);
		}
		/* a full row: its check blocks, OVERWRITE */
		nr = plog_plan_recs(&lo, 0, 256, b->plan);
		KUNIT_ASSERT_EQ(test, nr, f);
		for (k = 0; k < nr; k++) {
			KUNIT_EXPECT_EQ(test, b->plan[k].type, RL_PLOG_OVERWRITE);
			KUNIT_EXPECT_EQ(test, b->plan[k].col, k);
			KUNIT_EXPECT_EQ(test, b->plan[k].src,
					f == 1 ? lo.g : lo.cols + k);
			KUNIT_EXPECT_EQ(test, b->plan[k].lo, 0U);
			KUNIT_EXPECT_EQ(test, b->plan[k].hi, 64U);
		}
	}
}

static void rl_plog_plan_bufs(struct kunit *test)
{
	struct plog_rec_plan plan[6];
	struct rl_plog_seg_disk *h;
	struct rl_plog_layout lo;
	unsigned int i;

	/* 64-sector chunks; 248 payload sectors and 4 records a segment */
	rl_plog_test_lo(&lo, 2, 6, 6);
	h = kunit_kzalloc(test, struct_size(h, recs, 4), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i < ARRAY_SIZE(plan); i++) {
		plan[i].lo = 0;
		plan[i].hi = 64;
	}
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, NULL, plan, 0), 0U);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 0), 0U);
	/* no current buffer: every record needs room in a fresh one */
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, NULL, plan, 1), 1U);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, NULL, plan, 3), 1U);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, NULL, plan, 4), 2U);
	/* an empty buffer takes three chunks (192 of 248 sectors) */
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 3), 0U);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 6), 1U);
	/* 200 payload sectors used: 48 left, a chunk does not fit */
	h->payload_sectors = cpu_to_le32(200);
	h->nr = cpu_to_le16(1);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 1), 1U);
	plan[0].hi = 48;
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 1), 0U);
	plan[0].hi = 49;
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 1), 1U);
	/* the descriptors run out first: 3 of 4 used */
	plan[0].hi = 8;
	plan[1].hi = 8;
	h->payload_sectors = 0;
	h->nr = cpu_to_le16(3);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 1), 0U);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 2), 1U);
	h->nr = cpu_to_le16(4);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 1), 1U);
	/* a segment of one chunk's payload: a buffer per record */
	lo.seg_sectors = 72;
	h->nr = 0;
	for (i = 0; i < ARRAY_SIZE(plan); i++)
		plan[i].hi = 64;
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, NULL, plan, 4), 4U);
	KUNIT_EXPECT_EQ(test, plog_plan_bufs(&lo, h, plan, 4), 3U);
}

/*
 * The memory a table asks for (plog_mem()): every use is counted, the
 * defaults and any one option at its largest fit PLOG_MEM_BUDGET, and a
 * pool of 4 MiB segments or a few regions over large members do not (the
 * layouts of tests/vm/30-badtable.sh's lines: 4 members of 2 GiB).
 */
static void rl_plog_mem(struct kunit *test)
{
	struct rl_plog_params pp = { .nr_members = 4, .chunk_sectors = 128 };
	const u64 vm_member = 2ULL << 21, big_member = 64ULL << 21;
	struct rl_plog_layout lo;
	struct plog_mem m;
	char *error = "";
	u64 total, seg, over;
	unsigned int nr_ws;

	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &pp, vm_member, &error),
			    0, "%s", error);
	seg = (u64)lo.seg_sectors << SECTOR_SHIFT;
	total = plog_mem(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE, &m);
	kunit_info(test, "defaults: %llu KiB: pool %llu cache %llu ws %llu ctx %llu regions %llu",
		   total >> 10, m.pool >> 10, m.cache >> 10, m.ws >> 10,
		   m.ctx >> 10, m.regions >> 10);
	KUNIT_EXPECT_EQ(test, total, m.pool + m.cache + m.ws + m.ctx + m.regions);
	KUNIT_EXPECT_EQ(test, m.pool, RL_PLOG_DEF_BUFFERS * (seg + sizeof(struct rl_plog_buf)));
	KUNIT_EXPECT_GE(test, m.cache, (u64)RL_PLOG_DEF_CACHE * PAGE_SIZE);
	KUNIT_EXPECT_LT(test, m.cache, (u64)RL_PLOG_DEF_CACHE * (PAGE_SIZE + 256));
	KUNIT_EXPECT_EQ(test, m.ws, plog_nr_ws(lo.n, lo.f * lo.l, plog_ws_bytes(&lo)) *
			(u64)plog_ws_bytes(&lo));
	KUNIT_EXPECT_GE(test, m.ws, 2ULL * lo.f * lo.slice << (lo.chunk_shift + SECTOR_SHIFT));
	KUNIT_EXPECT_GE(test, m.ctx, 2ULL * (lo.g + 1) << (lo.chunk_shift + SECTOR_SHIFT));
	KUNIT_EXPECT_GE(test, m.regions, (u64)lo.nr_regions * sizeof(struct plog_region));
	KUNIT_EXPECT_EQ(test, m.total, total);
	KUNIT_EXPECT_LE(test, total, PLOG_MEM_BUDGET);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE,
					     &m, &error), 0);
	/* more of anything asks for more */
	KUNIT_EXPECT_GT(test, plog_mem(&lo, RL_PLOG_DEF_BUFFERS + 1, RL_PLOG_DEF_CACHE, &m),
			total);
	KUNIT_EXPECT_GT(test, plog_mem(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE + 1, &m),
			total);
	/* each option at its largest, alone */
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_MAX_BUFFERS, RL_PLOG_DEF_CACHE,
					     &m, &error), 0);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_MAX_CACHE,
					     &m, &error), 0);
	/* and a total just over the budget is refused: more cache blocks */
	over = RL_PLOG_DEF_CACHE + DIV_ROUND_UP_ULL(PLOG_MEM_BUDGET - total + 1, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_DEF_BUFFERS, over, &m, &error),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "plog options ask for more than the 512 MiB memory budget");

	/* log_buffers 1024 of 4 MiB segments (track_sectors 8192): 4 GiB */
	pp.track_sectors = RL_PLOG_MAX_SEG;
	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &pp, vm_member, &error),
			    0, "%s", error);
	total = plog_mem(&lo, RL_PLOG_MAX_BUFFERS, RL_PLOG_DEF_CACHE, &m);
	kunit_info(test, "1024 buffers of 4 MiB: %llu MiB (pool %llu)", total >> 20, m.pool >> 20);
	KUNIT_EXPECT_GE(test, m.pool, 4ULL << 30);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_MAX_BUFFERS, RL_PLOG_DEF_CACHE,
					     &m, &error), -EINVAL);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE,
					     &m, &error), 0);

	/* regions 4: a region's check chunks, a quarter of a member's, in RAM */
	pp.track_sectors = 0;
	pp.regions = 4;
	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &pp, vm_member, &error),
			    0, "%s", error);
	total = plog_mem(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE, &m);
	kunit_info(test, "regions 4 over 2 GiB: %llu MiB (workspaces %llu)",
		   total >> 20, m.ws >> 20);
	KUNIT_EXPECT_GT(test, m.ws, PLOG_MEM_BUDGET);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE,
					     &m, &error), -EINVAL);
	/* over 64 GiB members: the default regions fit, regions 64 do not */
	pp.regions = 0;
	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &pp, big_member, &error),
			    0, "%s", error);
	total = plog_mem(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE, &m);
	kunit_info(test, "64 GiB, default regions (%u): %llu MiB (workspaces %llu)",
		   lo.nr_regions, total >> 20, m.ws >> 20);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE,
					     &m, &error), 0);
	pp.regions = 64;
	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &pp, big_member, &error),
			    0, "%s", error);
	total = plog_mem(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE, &m);
	kunit_info(test, "64 GiB, regions 64: %llu MiB (workspaces %llu)", total >> 20, m.ws >> 20);
	KUNIT_EXPECT_EQ(test, plog_mem_check(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE,
					     &m, &error), -EINVAL);

	/* 5 members of 256 MiB: smaller regions, several workspaces, each counted */
	pp.nr_members = 5;
	pp.regions = 0;
	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &pp, 256ULL << 11, &error),
			    0, "%s", error);
	nr_ws = plog_nr_ws(lo.n, lo.f * lo.l, plog_ws_bytes(&lo));
	KUNIT_ASSERT_GT(test, nr_ws, 1U);
	plog_mem(&lo, RL_PLOG_DEF_BUFFERS, RL_PLOG_DEF_CACHE, &m);
	KUNIT_EXPECT_EQ(test, m.ws, nr_ws * (u64)plog_ws_bytes(&lo));
}

static struct kunit_case rl_plog_test_cases[] = {
	KUNIT_CASE(rl_plog_span),
	KUNIT_CASE(rl_plog_cache),
	KUNIT_CASE(rl_plog_plan_recs),
	KUNIT_CASE(rl_plog_plan_bufs),
	KUNIT_CASE(rl_plog_mem),
	{}
};

static struct kunit_suite rl_plog_test_suite = {
	.name = "dm_raidlab_plog",
	.test_cases = rl_plog_test_cases,
};

kunit_test_suite(rl_plog_test_suite);
