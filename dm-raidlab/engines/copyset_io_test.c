// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the copy-set engine's pure helpers (suite
 * dm_raidlab_copyset_io): read balancing and the read choice under
 * unreadable and suspect members, the resync source, the sync window
 * lock's overlap and bucket test, the split of a write at slot and intent
 * region boundaries, the window length and the comparison of copies.
 */
#include <kunit/test.h>

#include "copyset.h"

/* Every copy of the read starts at @sector (a mirror's): returns @v. */
static struct rl_cs_view *at(struct rl_cs_view *v, unsigned int nr,
			     sector_t sector)
{
	unsigned int m;

	for (m = 0; m < nr; m++)
		v[m].sector = sector;
	return v;
}

static unsigned int balance_at(struct rl_cs_view *v, unsigned int nr,
			       sector_t sector)
{
	return rl_cs_read_balance(at(v, nr, sector), nr);
}

static unsigned int choose_at(struct rl_cs_view *v, unsigned int nr,
			      sector_t sector, unsigned long unreadable,
			      bool suspect)
{
	return rl_cs_read_choose(at(v, nr, sector), nr, unreadable, suspect);
}

static void rl_cs_io_sequential_stream_stays(struct kunit *test)
{
	struct rl_cs_view v[3] = {
		{ .head = 5000, .inflight = 4 },
		{ .head = 1000, .inflight = 0 },
		{ .head = 9000, .inflight = 0 },
	};

	/* member 0's head is exactly at the sector: keep the stream there */
	KUNIT_EXPECT_EQ(test, balance_at(v, 3, 5000), 0);
}

static void rl_cs_io_fewest_inflight_wins(struct kunit *test)
{
	struct rl_cs_view v[3] = {
		{ .head = 100, .inflight = 3 },
		{ .head = 900000, .inflight = 1 },
		{ .head = 50, .inflight = 2 },
	};

	KUNIT_EXPECT_EQ(test, balance_at(v, 3, 120), 1);
}

static void rl_cs_io_nearest_head_breaks_ties(struct kunit *test)
{
	struct rl_cs_view v[4] = {
		{ .head = 0, .inflight = 1 },
		{ .head = 7000, .inflight = 1 },
		{ .head = 4100, .inflight = 1 },
		{ .head = 3000, .inflight = 1 },
	};

	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 4000), 2);
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 6000), 1);
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 10), 0);
}

static void rl_cs_io_failed_members_skipped(struct kunit *test)
{
	struct rl_cs_view v[3] = {
		{ .head = 4000, .inflight = 0, .failed = true },
		{ .head = 9000, .inflight = 5 },
		{ .head = 1, .inflight = 0, .failed = true },
	};

	/* even the exact head match of a failed member is ignored */
	KUNIT_EXPECT_EQ(test, balance_at(v, 3, 4000), 1);
	v[1].failed = true;
	KUNIT_EXPECT_EQ(test, balance_at(v, 3, 4000), RL_NONE);
}

/*
 * Once every member that can read has a predicted time, the shortest
 * wins, over the sequential stream, queue lengths and head distance;
 * failed members are not compared. If one that can read has none (not
 * calibrated, or busy in a way the tracker cannot follow), no prediction
 * counts: the head-position rules choose among them all.
 */
static void rl_cs_io_predicted_time_wins(struct kunit *test)
{
	struct rl_cs_view v[4] = {
		{ .head = 4000, .inflight = 0, .predicted_ns = 3000000 },	/* at the sector */
		{ .head = 900000, .inflight = 0, .predicted_ns = 900000 },
		{ .head = 4100, .inflight = 0, .predicted_ns = 2500000 },
		{ .head = 1, .inflight = 0, .predicted_ns = 100, .failed = true },
	};

	/* far away but rotationally close beats near but a rotation away */
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 4000), 1);
	v[2].predicted_ns = 900000;	/* a tie: the lower index */
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 4000), 1);
	v[2].predicted_ns = 899999;
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 4000), 2);
	/* one without a prediction: none counts, the head at the sector wins */
	v[0].predicted_ns = 0;
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 4000), 0);
	/* nor does the best one's, against a member with fewer in flight */
	v[0].head = 0;
	v[0].inflight = 0;
	v[1].inflight = 3;
	v[1].predicted_ns = 1;
	v[2].inflight = 3;
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 4000), 0);
	/* no predictions at all: the head-position rules again */
	v[1].predicted_ns = 0;
	v[2].predicted_ns = 0;
	KUNIT_EXPECT_EQ(test, balance_at(v, 4, 4000), 0);
}

/*
 * Copies at different offsets (RAID-10's far and offset layouts, chained
 * declustering): each member's head is compared with its own copy.
 */
static void rl_cs_io_head_near_own_copy(struct kunit *test)
{
	struct rl_cs_view v[3] = {
		{ .head = 1000, .sector = 900000 },
		{ .head = 500000, .sector = 500008 },
		{ .head = 1000, .sector = 1000, .failed = true },
	};

	/* member 0's head is near member 2's copy, not its own */
	KUNIT_EXPECT_EQ(test, rl_cs_read_balance(v, 3), 1U);
	v[0].sector = 1000;	/* now exactly at its own: the stream stays */
	KUNIT_EXPECT_EQ(test, rl_cs_read_balance(v, 3), 0U);
}

/* Under a uniform random load with equal queues, every member gets used. */
static void rl_cs_io_spreads_load(struct kunit *test)
{
	struct rl_cs_view v[3] = { {0}, {0}, {0} };
	unsigned int hits[3] = { 0 }, i, m;
	u64 seed = 5;

	for (i = 0; i < 3000; i++) {
		sector_t s;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		s = (seed >> 20) % 1000000;
		m = balance_at(v, 3, s);
		KUNIT_ASSERT_LT(test, m, 3U);
		hits[m]++;
		v[m].head = s + 8;
	}
	for (m = 0; m < 3; m++)
		KUNIT_EXPECT_GT(test, hits[m], 300U);
}

/* The source is the lowest member that may be read; none if all are out. */
static void rl_cs_io_source_lowest_readable(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rl_cs_source(0, 3), 0U);
	KUNIT_EXPECT_EQ(test, rl_cs_source(BIT(0), 3), 1U);
	KUNIT_EXPECT_EQ(test, rl_cs_source(BIT(0) | BIT(1), 3), 2U);
	KUNIT_EXPECT_EQ(test, rl_cs_source(BIT(1), 3), 0U);
	KUNIT_EXPECT_EQ(test, rl_cs_source(GENMASK(2, 0), 3), RL_NONE);
	/* bits past the last member do not make a member of it */
	KUNIT_EXPECT_EQ(test, rl_cs_source(GENMASK(1, 0) | BIT(5), 2),
			RL_NONE);
	KUNIT_EXPECT_EQ(test, rl_cs_source(GENMASK(30, 0), 32), 31U);
}

/*
 * Unreadable members (failed, or rebuilt above their cursor) are never
 * chosen, even with the head exactly at the read or the best prediction.
 */
static void rl_cs_io_read_skips_unreadable(struct kunit *test)
{
	const struct rl_cs_view init[3] = {
		{ .head = 4000, .inflight = 0 },
		{ .head = 9000, .inflight = 7 },
		{ .head = 4000, .inflight = 0 },
	};
	struct rl_cs_view v[3];

	memcpy(v, init, sizeof(v));
	KUNIT_EXPECT_EQ(test, choose_at(v, 3, 4000, 0, false), 0U);
	KUNIT_EXPECT_EQ(test,
			choose_at(v, 3, 4000, BIT(0), false), 2U);
	/* the views are marked, as the comment of the helper says */
	KUNIT_EXPECT_TRUE(test, v[0].failed);
	KUNIT_EXPECT_FALSE(test, v[2].failed);
	memcpy(v, init, sizeof(v));
	KUNIT_EXPECT_EQ(test,
			choose_at(v, 3, 4000, BIT(0) | BIT(2), false),
			1U);
	memcpy(v, init, sizeof(v));
	KUNIT_EXPECT_EQ(test,
			choose_at(v, 3, 4000, GENMASK(2, 0), false),
			RL_NONE);

	/*
	 * an unreadable member's prediction does not count either, nor does
	 * its lack of one
	 */
	memset(v, 0, sizeof(v));
	v[1].predicted_ns = 100;
	v[2].predicted_ns = 5000;
	KUNIT_EXPECT_EQ(test, choose_at(v, 3, 0, BIT(0), false), 1U);
	memset(v, 0, sizeof(v));
	v[1].predicted_ns = 100;
	v[2].predicted_ns = 5000;
	KUNIT_EXPECT_EQ(test,
			choose_at(v, 3, 0, BIT(0) | BIT(1), false), 2U);
}

/*
 * Where the copies may differ, a read goes to the resync source whatever
 * balancing would say, so it reads what the resync will leave everywhere.
 */
static void rl_cs_io_suspect_read_goes_to_source(struct kunit *test)
{
	struct rl_cs_view v[3] = {
		{ .head = 0, .inflight = 9 },
		{ .head = 500, .inflight = 0, .predicted_ns = 10 },
		{ .head = 500, .inflight = 0 },
	};

	KUNIT_EXPECT_EQ(test, choose_at(v, 3, 500, 0, false), 1U);
	KUNIT_EXPECT_EQ(test, choose_at(v, 3, 500, 0, true), 0U);
	/* a failed view counts as unreadable for the source too */
	v[0].failed = true;
	KUNIT_EXPECT_EQ(test, choose_at(v, 3, 500, 0, true), 1U);
	v[0].failed = false;
	KUNIT_EXPECT_EQ(test,
			choose_at(v, 3, 500, BIT(0) | BIT(1), true),
			2U);
	KUNIT_EXPECT_EQ(test,
			choose_at(v, 3, 500, GENMASK(2, 0), true),
			RL_NONE);
}

static void rl_cs_io_overlap_edges(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, rl_cs_overlap(100, 10, 105, 1));
	KUNIT_EXPECT_TRUE(test, rl_cs_overlap(100, 10, 90, 11));
	KUNIT_EXPECT_TRUE(test, rl_cs_overlap(100, 10, 109, 100));
	KUNIT_EXPECT_TRUE(test, rl_cs_overlap(100, 10, 0, 1000));
	/* touching is not overlapping */
	KUNIT_EXPECT_FALSE(test, rl_cs_overlap(100, 10, 90, 10));
	KUNIT_EXPECT_FALSE(test, rl_cs_overlap(100, 10, 110, 10));
	/* empty ranges overlap nothing */
	KUNIT_EXPECT_FALSE(test, rl_cs_overlap(100, 0, 100, 10));
	KUNIT_EXPECT_FALSE(test, rl_cs_overlap(100, 10, 105, 0));
}

/*
 * An open window holds off writes that overlap it and writes to other
 * slots of its bucket (so its drain cannot be kept waiting), nothing else.
 */
static void rl_cs_io_window_blocks_bucket(struct kunit *test)
{
	const sector_t slot = RL_CS_SLOT_SECTORS;
	struct rl_cs_window none = { .start = 3 * slot, .len = 0 };
	struct rl_cs_window w = { .start = 3 * slot + 256, .len = 512 };

	KUNIT_EXPECT_FALSE(test, rl_cs_blocks(&none, 3 * slot + 256, 8));

	KUNIT_EXPECT_TRUE(test, rl_cs_blocks(&w, 3 * slot + 300, 8));
	KUNIT_EXPECT_TRUE(test, rl_cs_blocks(&w, 3 * slot + 250, 8));
	/* same slot, outside the window: the bucket holds it */
	KUNIT_EXPECT_TRUE(test, rl_cs_blocks(&w, 3 * slot, 8));
	KUNIT_EXPECT_TRUE(test, rl_cs_blocks(&w, 4 * slot - 8, 8));
	/* another slot of the same bucket */
	KUNIT_EXPECT_TRUE(test,
			  rl_cs_blocks(&w, (3 + RL_CS_BUCKETS) * slot, 8));
	/* neighbouring slots are other buckets */
	KUNIT_EXPECT_FALSE(test, rl_cs_blocks(&w, 2 * slot, 8));
	KUNIT_EXPECT_FALSE(test, rl_cs_blocks(&w, 4 * slot, 8));
	KUNIT_EXPECT_FALSE(test, rl_cs_blocks(&w, 2 * slot + 100, 8));
	/* a range from another bucket that reaches into the window */
	KUNIT_EXPECT_TRUE(test, rl_cs_blocks(&w, 3 * slot - 8, 512));

	KUNIT_EXPECT_EQ(test, rl_cs_bucket(0), 0U);
	KUNIT_EXPECT_EQ(test, rl_cs_bucket(slot - 1), 0U);
	KUNIT_EXPECT_EQ(test, rl_cs_bucket(slot), 1U);
	KUNIT_EXPECT_EQ(test, rl_cs_bucket(RL_CS_BUCKETS * slot), 0U);
}

/*
 * A write is cut at the next boundary of its block (slot or intent region,
 * whichever is smaller); walking a range with it visits every block once.
 */
static void rl_cs_io_split_at_region(struct kunit *test)
{
	sector_t s, end, n;
	unsigned int pieces;

	/* inside one block: untouched */
	KUNIT_EXPECT_EQ(test, rl_cs_split_len(0, 8, 11), (sector_t)8);
	KUNIT_EXPECT_EQ(test, rl_cs_split_len(2040, 8, 11), (sector_t)8);
	KUNIT_EXPECT_EQ(test, rl_cs_split_len(0, 2048, 11), (sector_t)2048);
	/* across a boundary: up to it */
	KUNIT_EXPECT_EQ(test, rl_cs_split_len(2044, 8, 11), (sector_t)4);
	KUNIT_EXPECT_EQ(test, rl_cs_split_len(2048, 4096, 11),
			(sector_t)2048);
	/* smaller regions (shift 7: 64 KiB) */
	KUNIT_EXPECT_EQ(test, rl_cs_split_len(100, 256, 7), (sector_t)28);
	KUNIT_EXPECT_EQ(test, rl_cs_split_len(128, 256, 7), (sector_t)128);

	/* 1 MiB at sector 100 spans 17 regions of 128 sectors */
	s = 100;
	end = s + 2048;
	pieces = 0;
	while (s < end) {
		n = rl_cs_split_len(s, end - s, 7);
		KUNIT_ASSERT_GT(test, n, (sector_t)0);
		/* each piece is inside one region */
		KUNIT_EXPECT_EQ(test, s >> 7, (s + n - 1) >> 7);
		s += n;
		pieces++;
	}
	KUNIT_EXPECT_EQ(test, s, end);
	KUNIT_EXPECT_EQ(test, pieces, 17U);
}

/* Sync windows: at most @max, never past the end of their slot. */
static void rl_cs_io_window_length(struct kunit *test)
{
	const sector_t slot = RL_CS_SLOT_SECTORS;

	KUNIT_EXPECT_EQ(test, rl_cs_window_len(0, 1 << 20, slot), slot);
	KUNIT_EXPECT_EQ(test, rl_cs_window_len(0, 100, slot), (sector_t)100);
	KUNIT_EXPECT_EQ(test, rl_cs_window_len(slot + 48, 1 << 20, slot),
			slot - 48);
	KUNIT_EXPECT_EQ(test, rl_cs_window_len(slot + 48, 1 << 20, 256),
			(sector_t)256);
	KUNIT_EXPECT_EQ(test, rl_cs_window_len(2 * slot - 1, 1 << 20, 256),
			(sector_t)1);
}

/*
 * The comparison counts differing sectors, reports the first and last,
 * and the map collects the union over members.
 */
static void rl_cs_io_diff_counts_sectors(struct kunit *test)
{
	const unsigned int sectors = 64;
	DECLARE_BITMAP(map, 64);
	unsigned int first = 99, last = 99;
	u8 *src, *b1, *b2;

	src = kunit_kzalloc(test, sectors * SECTOR_SIZE, GFP_KERNEL);
	b1 = kunit_kzalloc(test, sectors * SECTOR_SIZE, GFP_KERNEL);
	b2 = kunit_kzalloc(test, sectors * SECTOR_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, b1);
	KUNIT_ASSERT_NOT_NULL(test, b2);
	memset(src, 0x5a, sectors * SECTOR_SIZE);
	memcpy(b1, src, sectors * SECTOR_SIZE);
	memcpy(b2, src, sectors * SECTOR_SIZE);
	bitmap_zero(map, sectors);

	KUNIT_EXPECT_EQ(test, rl_cs_diff(src, b1, sectors, map, &first,
					 &last), 0U);
	KUNIT_EXPECT_TRUE(test, bitmap_empty(map, sectors));
	KUNIT_EXPECT_EQ(test, first, 99U);

	/* one byte in sector 3, the last byte of sector 10, sector 63 */
	b1[3 * SECTOR_SIZE + 17] ^= 1;
	b1[11 * SECTOR_SIZE - 1] ^= 0x80;
	b1[63 * SECTOR_SIZE] = 0;
	KUNIT_EXPECT_EQ(test, rl_cs_diff(src, b1, sectors, map, &first,
					 &last), 3U);
	KUNIT_EXPECT_EQ(test, first, 3U);
	KUNIT_EXPECT_EQ(test, last, 63U);
	KUNIT_EXPECT_TRUE(test, test_bit(3, map));
	KUNIT_EXPECT_TRUE(test, test_bit(10, map));
	KUNIT_EXPECT_FALSE(test, test_bit(11, map));
	KUNIT_EXPECT_EQ(test, bitmap_weight(map, sectors), 3U);

	/* a second member differing in sector 10 and 20: union of 4 */
	b2[10 * SECTOR_SIZE] ^= 0xff;
	b2[20 * SECTOR_SIZE + 100] ^= 0xff;
	KUNIT_EXPECT_EQ(test, rl_cs_diff(src, b2, sectors, map, &first,
					 &last), 2U);
	KUNIT_EXPECT_EQ(test, first, 10U);
	KUNIT_EXPECT_EQ(test, last, 20U);
	KUNIT_EXPECT_EQ(test, bitmap_weight(map, sectors), 4U);
}

static struct kunit_case rl_cs_io_test_cases[] = {
	KUNIT_CASE(rl_cs_io_sequential_stream_stays),
	KUNIT_CASE(rl_cs_io_fewest_inflight_wins),
	KUNIT_CASE(rl_cs_io_nearest_head_breaks_ties),
	KUNIT_CASE(rl_cs_io_failed_members_skipped),
	KUNIT_CASE(rl_cs_io_predicted_time_wins),
	KUNIT_CASE(rl_cs_io_head_near_own_copy),
	KUNIT_CASE(rl_cs_io_spreads_load),
	KUNIT_CASE(rl_cs_io_source_lowest_readable),
	KUNIT_CASE(rl_cs_io_read_skips_unreadable),
	KUNIT_CASE(rl_cs_io_suspect_read_goes_to_source),
	KUNIT_CASE(rl_cs_io_overlap_edges),
	KUNIT_CASE(rl_cs_io_window_blocks_bucket),
	KUNIT_CASE(rl_cs_io_split_at_region),
	KUNIT_CASE(rl_cs_io_window_length),
	KUNIT_CASE(rl_cs_io_diff_counts_sectors),
	{}
};

static struct kunit_suite rl_cs_io_test_suite = {
	.name = "dm_raidlab_copyset_io",
	.test_cases = rl_cs_io_test_cases,
};

kunit_test_suite(rl_cs_io_test_suite);
