// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the dm-hddsim timing model (suite dm_hddsim_model).
 *
 * The expected numbers are worked out by hand from the formulas in model.h
 * (the comments show the working), mostly on the IBM Lightning preset:
 * 949 cylinders, 14 heads, 48 sectors per track, period 13.9 ms (one slot
 * is 13 900 000 / 48 = 289 583.3 ns), track skew 5, cylinder skew 9, head
 * switch 1.16 ms, seek 2 ms + 10 us * d + 460 us * sqrt(d).
 */
#include <kunit/test.h>

#include "hddsim.h"

#define LT_PERIOD	13900000ULL

static struct hs_geom hs_lightning(struct kunit *test)
{
	struct hs_geom g = hs_preset_find("lightning")->geom;
	char *error = NULL;

	KUNIT_ASSERT_EQ(test, hs_geom_finish(&g, &error), 0);
	return g;
}

/* slot k of a 48-sector Lightning track starts at k * 13.9 ms / 48 */
static u64 lt_slot(u64 k)
{
	return k * LT_PERIOD / 48;
}

static void hs_model_capacity(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);

	/* 949 * 14 * 48 */
	KUNIT_EXPECT_EQ(test, g.capacity, 637728ULL);
	KUNIT_EXPECT_EQ(test, g.zones[0].first_lba, 0ULL);
}

struct hs_chs_case {
	u64 lba;
	u32 cyl, head, sector, slot;
};

/*
 * The skew of track (c, h) is c * (13 * 5 + 9) + 5 * h = 74 c + 5 h;
 * slot = (sector + skew) mod 48.
 */
static const struct hs_chs_case hs_chs_cases[] = {
	{ 0, 0, 0, 0, 0 },
	{ 47, 0, 0, 47, 47 },
	{ 48, 0, 1, 0, 5 },			/* skew 5 */
	{ 664, 0, 13, 40, 9 },			/* 40 + 65 = 105 = 2 * 48 + 9 */
	{ 672, 1, 0, 0, 26 },			/* 74 = 48 + 26 */
	{ 1498, 2, 3, 10, 29 },			/* 1344 + 144 + 10; 10 + 163 = 173 */
	{ 637727, 948, 13, 47, 40 },		/* 47 + 70217 = 70264 = 1463 * 48 + 40 */
};

static void hs_model_lba_to_chs(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);
	struct hs_chs p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hs_chs_cases); i++) {
		const struct hs_chs_case *c = &hs_chs_cases[i];

		hs_lba_to_chs(&g, c->lba, &p);
		KUNIT_EXPECT_EQ_MSG(test, p.cyl, c->cyl, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, p.head, c->head, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, p.sector, c->sector, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, p.slot, c->slot, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ(test, p.spt, 48U);
	}
}

static void hs_model_seek(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);

	KUNIT_EXPECT_EQ(test, hs_seek_ns(&g, 0), 0ULL);
	/* 2 + 0.01 + 0.46 ms */
	KUNIT_EXPECT_EQ(test, hs_seek_ns(&g, 1), 2470000ULL);
	/* sqrt(2) to 1/1024: 1448; 460000 * 1448 / 1024 = 650468.75 */
	KUNIT_EXPECT_EQ(test, hs_seek_ns(&g, 2), 2670468ULL);
	/* 2 + 1 + 0.46 * 10 ms */
	KUNIT_EXPECT_EQ(test, hs_seek_ns(&g, 100), 7600000ULL);
	/* full stroke: within a microsecond of 25.6432 ms */
	KUNIT_EXPECT_EQ(test, hs_seek_ns(&g, 948), 25642968ULL);
}

static void hs_model_rot_wait(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);

	KUNIT_EXPECT_EQ(test, hs_slot_ns(&g, 48, 1), 289583ULL);
	KUNIT_EXPECT_EQ(test, hs_slot_ns(&g, 48, 48), LT_PERIOD);
	/* the slot is under the head */
	KUNIT_EXPECT_EQ(test, hs_rot_wait_ns(&g, 0, 48, 0), 0ULL);
	/* just missed: a full turn less a nanosecond (wrap-around) */
	KUNIT_EXPECT_EQ(test, hs_rot_wait_ns(&g, 1, 48, 0), LT_PERIOD - 1);
	/* six turns later the angle is the same again: 6 950 000 - 100 */
	KUNIT_EXPECT_EQ(test, hs_rot_wait_ns(&g, 5 * LT_PERIOD + 100, 48, 24),
			6949900ULL);
	KUNIT_EXPECT_EQ(test, hs_rot_wait_ns(&g, 3 * LT_PERIOD - 10, 48, 0), 10ULL);
}

/* 8 sectors from slot 0 at the index: no seek, no wait */
static void hs_model_service_simple(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);
	struct hs_arm arm = { 0, 0 };
	struct hs_service s;

	hs_service(&g, &arm, 0, 0, 8, &s);
	KUNIT_EXPECT_EQ(test, s.seek_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, s.rot_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, s.xfer_ns, lt_slot(8));
	KUNIT_EXPECT_EQ(test, s.total_ns, 2316666ULL);
	KUNIT_EXPECT_EQ(test, s.seek_cyls, 0ULL);
	KUNIT_EXPECT_EQ(test, s.end.cyl, 0U);
	KUNIT_EXPECT_EQ(test, s.end.head, 0U);

	/* at phase 13.0 ms slot 0 is 0.9 ms away */
	hs_service(&g, &arm, 2 * LT_PERIOD + 13000000, 0, 1, &s);
	KUNIT_EXPECT_EQ(test, s.rot_ns, 900000ULL);
	KUNIT_EXPECT_EQ(test, s.total_ns, 900000ULL + 289583);
}

/*
 * lba 40..55: slots 40..47 of track (0,0), a head switch, slots 5..12 of
 * track (0,1). Wait 11 583 333 for slot 40, read to the index (13.9 ms),
 * switch 1.16 ms, then slot 5 (1 447 916) is 287 916 away: the 5-sector
 * skew covers the switch.
 */
static void hs_model_service_head_switch(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);
	struct hs_arm arm = { 0, 0 };
	struct hs_service s;

	hs_service(&g, &arm, 0, 40, 16, &s);
	KUNIT_EXPECT_EQ(test, s.seek_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, s.switch_ns, 1160000ULL);
	KUNIT_EXPECT_EQ(test, s.rot_ns, 11583333ULL + 287916);
	KUNIT_EXPECT_EQ(test, s.xfer_ns, 2 * 2316667ULL);
	KUNIT_EXPECT_EQ(test, s.total_ns, 17664583ULL);
	KUNIT_EXPECT_EQ(test, s.seek_cyls, 0ULL);
	KUNIT_EXPECT_EQ(test, s.end.cyl, 0U);
	KUNIT_EXPECT_EQ(test, s.end.head, 1U);

	/* one sector less skew than the switch needs costs a turn */
	g.track_skew = 4;	/* 1 158 333 ns < 1.16 ms */
	hs_service(&g, &arm, 0, 40, 16, &s);
	KUNIT_EXPECT_EQ(test, s.rot_ns, 11583333ULL + lt_slot(4) + LT_PERIOD - 1160000);
}

/*
 * lba 664..679: slots 9..16 of track (0,13), a one-cylinder seek
 * (2.47 ms), slots 26..33 of track (1,0). Read ends at 4 922 916; after the
 * seek, 7 392 916; slot 26 starts at 7 529 166: a wait of 136 250.
 */
static void hs_model_service_cyl_switch(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);
	struct hs_arm arm = { 0, 13 };
	struct hs_service s;

	hs_service(&g, &arm, 0, 664, 16, &s);
	KUNIT_EXPECT_EQ(test, s.seek_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, s.switch_ns, 2470000ULL);
	KUNIT_EXPECT_EQ(test, s.rot_ns, 2606250ULL + 136250);
	KUNIT_EXPECT_EQ(test, s.xfer_ns, 2316666ULL + 2316667);
	KUNIT_EXPECT_EQ(test, s.total_ns, 9845833ULL);
	KUNIT_EXPECT_EQ(test, s.seek_cyls, 1ULL);
	KUNIT_EXPECT_EQ(test, s.end.cyl, 1U);
	KUNIT_EXPECT_EQ(test, s.end.head, 0U);
}

/* positioning: a seek from another cylinder, or a head switch */
static void hs_model_service_seek(struct kunit *test)
{
	struct hs_geom g = hs_lightning(test);
	struct hs_arm arm = { 0, 0 };
	struct hs_service s;

	/* lba 1498 = (2, 3, 10), slot 29: seek(2), then wait to 8 397 916 */
	hs_service(&g, &arm, 0, 1498, 1, &s);
	KUNIT_EXPECT_EQ(test, s.seek_ns, 2670468ULL);
	KUNIT_EXPECT_EQ(test, s.rot_ns, lt_slot(29) - 2670468);
	KUNIT_EXPECT_EQ(test, s.total_ns, lt_slot(30));
	KUNIT_EXPECT_EQ(test, s.seek_cyls, 2ULL);
	KUNIT_EXPECT_EQ(test, s.end.cyl, 2U);
	KUNIT_EXPECT_EQ(test, s.end.head, 3U);

	/* same cylinder, other head: a head switch */
	arm.cyl = 2;
	hs_service(&g, &arm, 0, 1498, 1, &s);
	KUNIT_EXPECT_EQ(test, s.seek_ns, 1160000ULL);
	KUNIT_EXPECT_EQ(test, s.seek_cyls, 0ULL);
	KUNIT_EXPECT_EQ(test, s.total_ns, lt_slot(30));

	/* full stroke back to lba 0: done at slot 1 of the third turn */
	arm.cyl = 948;
	arm.head = 13;
	hs_service(&g, &arm, 0, 0, 1, &s);
	KUNIT_EXPECT_EQ(test, s.seek_ns, 25642968ULL);
	KUNIT_EXPECT_EQ(test, s.rot_ns, 2 * LT_PERIOD - 25642968);
	KUNIT_EXPECT_EQ(test, s.total_ns, 2 * LT_PERIOD + lt_slot(1));
	KUNIT_EXPECT_EQ(test, s.seek_cyls, 948ULL);
}

/*
 * Two zones: cylinders 0-3 with 10 sectors per track, 4-9 with 8; 2 heads;
 * period 1 ms; track skew 1, cylinder skew 2; seek 100 us flat.
 */
static struct hs_geom hs_zoned(struct kunit *test)
{
	struct hs_geom g = {
		.cylinders = 10, .heads = 2, .nr_zones = 2,
		.zones = { { .first_cyl = 0, .spt = 10 },
			   { .first_cyl = 4, .spt = 8 } },
		.period_ns = 1000000, .track_skew = 1, .cyl_skew = 2,
		.head_switch_ns = 50000, .seek_a_ns = 100000,
	};
	char *error = NULL;

	KUNIT_ASSERT_EQ(test, hs_geom_finish(&g, &error), 0);
	return g;
}

static void hs_model_zones(struct kunit *test)
{
	struct hs_geom g = hs_zoned(test);
	struct hs_arm arm = { 3, 1 };
	struct hs_service s;
	struct hs_chs p;

	/* 4 * 2 * 10 + 6 * 2 * 8 */
	KUNIT_EXPECT_EQ(test, g.capacity, 176ULL);
	KUNIT_EXPECT_EQ(test, g.zones[1].first_lba, 80ULL);

	hs_lba_to_chs(&g, 79, &p);
	KUNIT_EXPECT_EQ(test, p.zone, 0U);
	KUNIT_EXPECT_EQ(test, p.cyl, 3U);
	KUNIT_EXPECT_EQ(test, p.head, 1U);
	KUNIT_EXPECT_EQ(test, p.sector, 9U);
	/* skew 3 * (1 + 2) + 1 = 10 */
	KUNIT_EXPECT_EQ(test, p.slot, 9U);

	/* the skew starts again at a zone */
	hs_lba_to_chs(&g, 80, &p);
	KUNIT_EXPECT_EQ(test, p.zone, 1U);
	KUNIT_EXPECT_EQ(test, p.cyl, 4U);
	KUNIT_EXPECT_EQ(test, p.spt, 8U);
	KUNIT_EXPECT_EQ(test, p.slot, 0U);
	hs_lba_to_chs(&g, 96, &p);
	KUNIT_EXPECT_EQ(test, p.cyl, 5U);
	KUNIT_EXPECT_EQ(test, p.slot, 3U);
	hs_lba_to_chs(&g, 175, &p);
	KUNIT_EXPECT_EQ(test, p.cyl, 9U);
	KUNIT_EXPECT_EQ(test, p.head, 1U);
	KUNIT_EXPECT_EQ(test, p.sector, 7U);

	/*
	 * lba 78..81 across the zone boundary: slots 8-9 of a 10-slot track
	 * (wait 0.8 ms, read 0.2 ms), seek 0.1 ms, slot 0 of an 8-slot track
	 * 0.9 ms away, read 2 * 125 us.
	 */
	hs_service(&g, &arm, 0, 78, 4, &s);
	KUNIT_EXPECT_EQ(test, s.rot_ns, 800000ULL + 900000);
	KUNIT_EXPECT_EQ(test, s.xfer_ns, 200000ULL + 250000);
	KUNIT_EXPECT_EQ(test, s.switch_ns, 100000ULL);
	KUNIT_EXPECT_EQ(test, s.total_ns, 2250000ULL);
	KUNIT_EXPECT_EQ(test, s.seek_cyls, 1ULL);
	KUNIT_EXPECT_EQ(test, s.end.cyl, 4U);
	KUNIT_EXPECT_EQ(test, s.end.head, 0U);
}

static void hs_model_geom_errors(struct kunit *test)
{
	struct hs_geom g = hs_zoned(test);
	char *error = NULL;

	g.cylinders = 4;	/* zone 1 starts at 4 */
	KUNIT_EXPECT_EQ(test, hs_geom_finish(&g, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Invalid zone start cylinder");

	g = hs_zoned(test);
	g.zones[0].first_cyl = 1;
	KUNIT_EXPECT_EQ(test, hs_geom_finish(&g, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "The first zone must start at cylinder 0");

	g = hs_zoned(test);
	g.period_ns = 99999;
	KUNIT_EXPECT_EQ(test, hs_geom_finish(&g, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Invalid rotation period");

	g = hs_zoned(test);
	g.zones[1].spt = 0;
	KUNIT_EXPECT_EQ(test, hs_geom_finish(&g, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Invalid sectors per track");
}

static void hs_model_time_scale(struct kunit *test)
{
	struct hs_scale fast = { 10, 1 }, slow = { 1, 4 }, odd = { 3, 1 };
	struct hs_scale one = { 1, 1 };

	KUNIT_EXPECT_EQ(test, hs_wall_to_emul(&one, 12345), 12345ULL);
	KUNIT_EXPECT_EQ(test, hs_emul_to_wall(&one, 12345), 12345ULL);
	KUNIT_EXPECT_EQ(test, hs_wall_to_emul(&fast, 1000), 10000ULL);
	KUNIT_EXPECT_EQ(test, hs_emul_to_wall(&fast, 10000), 1000ULL);
	/* 10001 emulated ns are reached only at wall 1001 */
	KUNIT_EXPECT_EQ(test, hs_emul_to_wall(&fast, 10001), 1001ULL);
	KUNIT_EXPECT_EQ(test, hs_wall_to_emul(&slow, 1000), 250ULL);
	KUNIT_EXPECT_EQ(test, hs_emul_to_wall(&slow, 250), 1000ULL);
	/* 3 wall ns are 9 emulated: 10 needs 4 */
	KUNIT_EXPECT_EQ(test, hs_emul_to_wall(&odd, 10), 4ULL);
	/* a day of wall time at 1000x: no overflow */
	KUNIT_EXPECT_EQ(test, hs_wall_to_emul(&(struct hs_scale){ 1000, 1 },
					      86400ULL * NSEC_PER_SEC),
			86400000ULL * NSEC_PER_SEC);
}

static struct kunit_case hs_model_cases[] = {
	KUNIT_CASE(hs_model_capacity),
	KUNIT_CASE(hs_model_lba_to_chs),
	KUNIT_CASE(hs_model_seek),
	KUNIT_CASE(hs_model_rot_wait),
	KUNIT_CASE(hs_model_service_simple),
	KUNIT_CASE(hs_model_service_head_switch),
	KUNIT_CASE(hs_model_service_cyl_switch),
	KUNIT_CASE(hs_model_service_seek),
	KUNIT_CASE(hs_model_zones),
	KUNIT_CASE(hs_model_geom_errors),
	KUNIT_CASE(hs_model_time_scale),
	{}
};

static struct kunit_suite hs_model_suite = {
	.name = "dm_hddsim_model",
	.test_cases = hs_model_cases,
};

kunit_test_suite(hs_model_suite);
