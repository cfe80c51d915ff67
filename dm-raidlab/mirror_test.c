// SPDX-License-Identifier: GPL-2.0-only
/* KUnit tests for the mirror's read balancing (suite dm_raidlab_mirror). */
#include <kunit/test.h>

#include "mirror.h"

static void rl_mirror_sequential_stream_stays(struct kunit *test)
{
	struct rl_mirror_view v[3] = {
		{ .head = 5000, .inflight = 4 },
		{ .head = 1000, .inflight = 0 },
		{ .head = 9000, .inflight = 0 },
	};

	/* member 0's head is exactly at the sector: keep the stream there */
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 3, 5000), 0);
}

static void rl_mirror_fewest_inflight_wins(struct kunit *test)
{
	struct rl_mirror_view v[3] = {
		{ .head = 100, .inflight = 3 },
		{ .head = 900000, .inflight = 1 },
		{ .head = 50, .inflight = 2 },
	};

	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 3, 120), 1);
}

static void rl_mirror_nearest_head_breaks_ties(struct kunit *test)
{
	struct rl_mirror_view v[4] = {
		{ .head = 0, .inflight = 1 },
		{ .head = 7000, .inflight = 1 },
		{ .head = 4100, .inflight = 1 },
		{ .head = 3000, .inflight = 1 },
	};

	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 4, 4000), 2);
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 4, 6000), 1);
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 4, 10), 0);
}

static void rl_mirror_failed_members_skipped(struct kunit *test)
{
	struct rl_mirror_view v[3] = {
		{ .head = 4000, .inflight = 0, .failed = true },
		{ .head = 9000, .inflight = 5 },
		{ .head = 1, .inflight = 0, .failed = true },
	};

	/* even the exact head match of a failed member is ignored */
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 3, 4000), 1);
	v[1].failed = true;
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 3, 4000), RL_NONE);
}

/*
 * Once members have predicted access times, the shortest wins, over the
 * sequential stream, queue lengths and head distance; members without a
 * prediction (busy, or not calibrated) and failed ones are not compared.
 */
static void rl_mirror_predicted_time_wins(struct kunit *test)
{
	struct rl_mirror_view v[4] = {
		{ .head = 4000, .inflight = 0 },			/* at the sector */
		{ .head = 900000, .inflight = 0, .predicted_ns = 900000 },
		{ .head = 4100, .inflight = 0, .predicted_ns = 2500000 },
		{ .head = 1, .inflight = 0, .predicted_ns = 100, .failed = true },
	};

	/* far away but rotationally close beats near but a rotation away */
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 4, 4000), 1);
	v[2].predicted_ns = 900000;	/* a tie: the lower index */
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 4, 4000), 1);
	v[2].predicted_ns = 899999;
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 4, 4000), 2);
	/* no predictions at all: the head-position rules again */
	v[1].predicted_ns = 0;
	v[2].predicted_ns = 0;
	KUNIT_EXPECT_EQ(test, rl_mirror_read_balance(v, 4, 4000), 0);
}

/* Under a uniform random load with equal queues, every member gets used. */
static void rl_mirror_spreads_load(struct kunit *test)
{
	struct rl_mirror_view v[3] = { {0}, {0}, {0} };
	unsigned int hits[3] = { 0 }, i, m;
	u64 seed = 5;

	for (i = 0; i < 3000; i++) {
		sector_t s;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		s = (seed >> 20) % 1000000;
		m = rl_mirror_read_balance(v, 3, s);
		KUNIT_ASSERT_LT(test, m, 3U);
		hits[m]++;
		v[m].head = s + 8;
	}
	for (m = 0; m < 3; m++)
		KUNIT_EXPECT_GT(test, hits[m], 300U);
}

static struct kunit_case rl_mirror_test_cases[] = {
	KUNIT_CASE(rl_mirror_sequential_stream_stays),
	KUNIT_CASE(rl_mirror_fewest_inflight_wins),
	KUNIT_CASE(rl_mirror_nearest_head_breaks_ties),
	KUNIT_CASE(rl_mirror_failed_members_skipped),
	KUNIT_CASE(rl_mirror_predicted_time_wins),
	KUNIT_CASE(rl_mirror_spreads_load),
	{}
};

static struct kunit_suite rl_mirror_test_suite = {
	.name = "dm_raidlab_mirror",
	.test_cases = rl_mirror_test_cases,
};

kunit_test_suite(rl_mirror_test_suite);
