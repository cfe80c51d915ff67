// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the rotational replica layout (suite dm_raidlab_rrep):
 * on an ST39133-like disk (6 heads, 4 zones) every replica of a sector is
 * on its cylinder, on head j + r * K, within 7 slots of round(r * spt /
 * Dr) after replica 0 by the geometry's own angle (rl_disk_geom_chs()),
 * and maps back to its sector, and no replica of a run to the next 4 KiB
 * boundary wraps; the used cylinders start at the first whole one after
 * the data offset and end at the member's end, zone by zone, logical
 * tracks of whole 4 KiB blocks; a replica that would wrap its track is
 * said so; hand-computed offsets on a small disk; refused layouts.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/math64.h>

#include "rrep.h"

/* dm-hddsim's st39133 preset: 10 000 cylinders, 6 heads, 4 zones */
#define ST39133 "period_ns=6000000,cylinders=10000,heads=6," \
		"zones=0:334/2500:302/5000:270/7500:238,track_skew=34," \
		"cyl_skew=35,head_switch_ns=600000,seek_a_ns=541000," \
		"seek_b_ns=459,seek_c_ns=58740,ref=0"
/* A small disk whose offsets are computed by hand below. */
#define SMALL "period_ns=1000000,cylinders=20,heads=4,spt=20,track_skew=1," \
	      "cyl_skew=4,head_switch_ns=0,seek_a_ns=0,seek_b_ns=0," \
	      "seek_c_ns=0,ref=0"
/* One track too short for a 4 KiB block. */
#define TINY "period_ns=1000000,cylinders=20,heads=4,spt=6,track_skew=1," \
	     "cyl_skew=4,head_switch_ns=0,seek_a_ns=0,seek_b_ns=0," \
	     "seek_c_ns=0,ref=0"

static void rl_rrep_geom(struct kunit *test, const char *line,
			 struct rl_disk_geom *g)
{
	char *error = NULL;

	KUNIT_ASSERT_EQ_MSG(test, rl_disk_geom_parse(line, g, &error), 0, "%s",
			    error);
}

static struct rl_rrep *rl_rrep_new(struct kunit *test,
				   const struct rl_disk_geom *g,
				   unsigned int dr, u64 start, u64 end)
{
	struct rl_rrep *rr = kunit_kzalloc(test, sizeof(*rr), GFP_KERNEL);
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, rr);
	KUNIT_ASSERT_EQ_MSG(test, rl_rrep_init(rr, g, dr, start, end, &error),
			    0, "%s", error);
	return rr;
}

static u32 rl_rrep_test_rand(u32 *s)
{
	*s = *s * 1103515245 + 12345;
	return *s >> 1;
}

/* Slots from @a to @b round a track of @spt, the shorter way. */
static u32 rl_rrep_test_dist(u32 a, u32 b, u32 spt)
{
	u32 d = (b + spt - a) % spt;

	return min(d, spt - d);
}

/*
 * Every replica of @y: same cylinder, head j + rK, angle within 7 slots
 * of the even spacing, round trip; and the run to the next 4 KiB
 * boundary fits every replica (a write there is never cut).
 */
static void rl_rrep_check_sector(struct kunit *test, const struct rl_rrep *rr,
				 const struct rl_disk_geom *g, u64 y)
{
	const struct rl_rrep_zone *z;
	struct rl_rrep_loc l;
	struct rl_chs c0, c;
	unsigned int r, rb;
	u32 to4k;
	u64 lba, yb;

	rl_rrep_map(rr, y, &l);
	z = &rr->zone[l.zone];
	KUNIT_ASSERT_EQ(test, z->len % 8, 0);
	KUNIT_ASSERT_LT(test, z->spt - z->len, 8);
	KUNIT_ASSERT_LT(test, l.sector, z->len);
	KUNIT_EXPECT_EQ(test, l.left, z->len - l.sector);
	to4k = 8 - l.sector % 8;
	/* where a write from @y is cut: a 4 KiB boundary */
	KUNIT_EXPECT_EQ_MSG(test, (l.sector + rl_rrep_unwrapped(rr, &l, U32_MAX)) % 8,
			    0, "y %llu", y);
	rl_disk_geom_chs(g, rl_rrep_sector(rr, &l, 0), &c0);
	KUNIT_EXPECT_EQ(test, c0.head, l.track);
	KUNIT_EXPECT_EQ(test, c0.sector, l.sector);
	for (r = 0; r < rr->dr; r++) {
		u32 want;

		lba = rl_rrep_sector(rr, &l, r);
		rl_disk_geom_chs(g, lba, &c);
		want = (c0.slot + (2 * r * c0.spt + rr->dr) / (2 * rr->dr)) %
		       c0.spt;
		KUNIT_EXPECT_EQ_MSG(test, c.cyl, c0.cyl, "y %llu r %u", y, r);
		KUNIT_EXPECT_EQ_MSG(test, c.head, l.track + r * rr->k,
				    "y %llu r %u", y, r);
		KUNIT_EXPECT_LE_MSG(test, rl_rrep_test_dist(c.slot, want, c0.spt),
				    r ? 7 : 0, "y %llu r %u", y, r);
		KUNIT_EXPECT_TRUE_MSG(test, rl_rrep_fits(rr, &l, r, to4k),
				      "y %llu r %u", y, r);
		KUNIT_ASSERT_EQ(test, rl_rrep_unmap(rr, lba, &yb, &rb), 0);
		KUNIT_EXPECT_EQ(test, yb, y);
		KUNIT_EXPECT_EQ(test, rb, r);
	}
}

/* Random sectors and every zone's edges, for each Dr that divides 6 and 4. */
static void rl_rrep_test_angles(struct kunit *test)
{
	static const unsigned int drs[] = { 1, 2, 3, 4, 6 };
	struct rl_disk_geom g;
	unsigned int i, n, z;
	u32 seed = 77;

	rl_rrep_geom(test, ST39133, &g);
	for (i = 0; i < ARRAY_SIZE(drs); i++) {
		struct rl_rrep *rr = rl_rrep_new(test, &g, drs[i], 2048,
						 g.capacity);

		KUNIT_EXPECT_EQ(test, rr->k, 6 / drs[i]);
		KUNIT_EXPECT_EQ(test, rr->nr_zones, 4);
		for (n = 0; n < 2000; n++) {
			u64 y, x = (u64)rl_rrep_test_rand(&seed) << 20 ^
				   rl_rrep_test_rand(&seed);

			div64_u64_rem(x, rr->capacity, &y);
			rl_rrep_check_sector(test, rr, &g, y);
		}
		for (z = 0; z < rr->nr_zones; z++) {
			rl_rrep_check_sector(test, rr, &g, rr->zone[z].first_y);
			if (z)
				rl_rrep_check_sector(test, rr, &g,
						     rr->zone[z].first_y - 1);
		}
		rl_rrep_check_sector(test, rr, &g, rr->capacity - 1);
	}
}

/* The used cylinders: from the first whole one after start, per zone. */
static void rl_rrep_test_zones(struct kunit *test)
{
	struct rl_disk_geom g;
	struct rl_rrep *rr;
	struct rl_rrep_loc l;
	u64 zone1_lba;

	rl_rrep_geom(test, ST39133, &g);
	/* 2048 sectors: cylinder 0 and 1 (2004 sectors each) are skipped */
	rr = rl_rrep_new(test, &g, 2, 2048, 524288);
	KUNIT_EXPECT_EQ(test, rr->nr_zones, 1);
	KUNIT_EXPECT_EQ(test, rr->zone[0].first_cyl, 2);
	KUNIT_EXPECT_EQ(test, rr->zone[0].first_lba, 2 * 2004);
	/*
	 * 524288 / 2004 = 261 whole cylinders; 259 used, 3 logical tracks of
	 * 328 (334 rounded down to 4 KiB)
	 */
	KUNIT_EXPECT_EQ(test, rr->zone[0].cyls, 259);
	KUNIT_EXPECT_EQ(test, rr->zone[0].len, 328);
	KUNIT_EXPECT_EQ(test, rr->capacity, 259ULL * 3 * 328);
	rl_rrep_map(rr, 0, &l);
	KUNIT_EXPECT_EQ(test, rl_rrep_sector(rr, &l, 0), 4008);

	/* across zones 0 and 1: the logical track follows the zone's spt */
	zone1_lba = 2500ULL * 6 * 334;
	rr = rl_rrep_new(test, &g, 3, zone1_lba - 6 * 334 + 1,
			 zone1_lba + 2 * 6 * 302);
	KUNIT_ASSERT_EQ(test, rr->nr_zones, 1);
	KUNIT_EXPECT_EQ(test, rr->zone[0].first_cyl, 2500);
	rr = rl_rrep_new(test, &g, 3, zone1_lba - 6 * 334,
			 zone1_lba + 2 * 6 * 302 + 5);
	KUNIT_ASSERT_EQ(test, rr->nr_zones, 2);
	KUNIT_EXPECT_EQ(test, rr->zone[0].first_cyl, 2499);
	KUNIT_EXPECT_EQ(test, rr->zone[0].sectors, 2 * 328);
	KUNIT_EXPECT_EQ(test, rr->zone[1].first_y, 2 * 328);
	KUNIT_EXPECT_EQ(test, rr->zone[1].spt, 302);
	KUNIT_EXPECT_EQ(test, rr->zone[1].len, 296);
	KUNIT_EXPECT_EQ(test, rr->capacity, 2 * 328 + 2 * 2 * 296);
	rl_rrep_map(rr, 2 * 328 - 1, &l);
	KUNIT_EXPECT_EQ(test, l.zone, 0);
	KUNIT_EXPECT_EQ(test, l.left, 1);
	rl_rrep_map(rr, 2 * 328, &l);
	KUNIT_EXPECT_EQ(test, l.zone, 1);
	KUNIT_EXPECT_EQ(test, l.left, 296);
	KUNIT_EXPECT_EQ(test, rl_rrep_sector(rr, &l, 0), zone1_lba);
}

/*
 * By hand, SMALL (4 heads, 20 sectors a track, track skew 1): logical
 * tracks of 16, and a replica wraps at a multiple of 8, so its offset is
 * 4 or 12 (20 mod 8 = 4). Dr = 2, K = 2: replica 1 is on head j + 2,
 * round(20 / 2) = 10 slots on and 2 * 1 = 2 back for the skew of two
 * heads: 8, between 4 and 12, to 12 (a tie goes up). Dr = 4, K = 1:
 * replica r is round(5 r) = 5, 10, 15 slots on and r back: 4, 8, 12, to
 * 4, 12, 12.
 */
static void rl_rrep_test_by_hand(struct kunit *test)
{
	static const u32 off4[] = { 0, 4, 12, 12 };
	struct rl_disk_geom g;
	struct rl_rrep *rr;
	struct rl_rrep_loc l;
	unsigned int r;

	rl_rrep_geom(test, SMALL, &g);
	rr = rl_rrep_new(test, &g, 2, 1, g.capacity);
	KUNIT_EXPECT_EQ(test, rr->zone[0].off[1], 12);
	KUNIT_EXPECT_EQ(test, rr->zone[0].len, 16);
	KUNIT_EXPECT_EQ(test, rr->capacity, 19 * 2 * 16);
	/* y 21: cylinder 1 (first used), track 1, sector 5 */
	rl_rrep_map(rr, 21, &l);
	KUNIT_EXPECT_EQ(test, l.cyl, 0);
	KUNIT_EXPECT_EQ(test, l.track, 1);
	KUNIT_EXPECT_EQ(test, l.sector, 5);
	KUNIT_EXPECT_EQ(test, rl_rrep_sector(rr, &l, 0), 80 + 20 + 5);
	KUNIT_EXPECT_EQ(test, rl_rrep_sector(rr, &l, 1), 80 + 60 + 17);
	/* y 32: the next cylinder's track 0 */
	rl_rrep_map(rr, 32, &l);
	KUNIT_EXPECT_EQ(test, rl_rrep_sector(rr, &l, 0), 160);
	KUNIT_EXPECT_EQ(test, rl_rrep_sector(rr, &l, 1), 160 + 40 + 12);

	/* the replicas of the first n sectors end with n - 1's cylinder */
	KUNIT_EXPECT_EQ(test, rl_rrep_end(rr, 1), 160);
	KUNIT_EXPECT_EQ(test, rl_rrep_end(rr, 32), 160);
	KUNIT_EXPECT_EQ(test, rl_rrep_end(rr, 33), 240);

	rr = rl_rrep_new(test, &g, 4, 0, g.capacity);
	for (r = 0; r < 4; r++)
		KUNIT_EXPECT_EQ_MSG(test, rr->zone[0].off[r], off4[r], "r %u", r);
}

/*
 * A run that would wrap its track: replica 0 never, the others by angle,
 * at a 4 KiB boundary of the logical track.
 */
static void rl_rrep_test_wrap(struct kunit *test)
{
	struct rl_disk_geom g;
	struct rl_rrep *rr;
	struct rl_rrep_loc l;
	unsigned int r, rb;
	u64 y;

	rl_rrep_geom(test, SMALL, &g);
	rr = rl_rrep_new(test, &g, 2, 0, g.capacity);
	/* sector 0: replica 1 starts at 12, so 8 sectors fit */
	rl_rrep_map(rr, 0, &l);
	KUNIT_EXPECT_EQ(test, l.left, 16);
	KUNIT_EXPECT_TRUE(test, rl_rrep_fits(rr, &l, 0, 16));
	KUNIT_EXPECT_TRUE(test, rl_rrep_fits(rr, &l, 1, 8));
	KUNIT_EXPECT_FALSE(test, rl_rrep_fits(rr, &l, 1, 9));
	KUNIT_EXPECT_EQ(test, rl_rrep_unwrapped(rr, &l, 16), 8);
	/* sector 8: replica 1 at 0, the rest of the logical track fits */
	rl_rrep_map(rr, 8, &l);
	KUNIT_EXPECT_EQ(test, l.left, 8);
	KUNIT_EXPECT_TRUE(test, rl_rrep_fits(rr, &l, 1, 8));
	KUNIT_EXPECT_EQ(test, rl_rrep_unwrapped(rr, &l, 100), 8);
	KUNIT_EXPECT_EQ(test, rl_rrep_unwrapped(rr, &l, 4), 4);
	/* a write at sector 3 is cut after 5, at the 4 KiB boundary */
	rl_rrep_map(rr, 3, &l);
	KUNIT_EXPECT_EQ(test, rl_rrep_unwrapped(rr, &l, 100), 5);

	/* Dr 4 (offsets 0, 4, 12, 12): from sector 0, replicas 2, 3 wrap at 8 */
	rr = rl_rrep_new(test, &g, 4, 0, g.capacity);
	rl_rrep_map(rr, 0, &l);
	KUNIT_EXPECT_EQ(test, rl_rrep_unwrapped(rr, &l, 16), 8);
	KUNIT_EXPECT_TRUE(test, rl_rrep_fits(rr, &l, 1, 16));
	KUNIT_EXPECT_FALSE(test, rl_rrep_fits(rr, &l, 2, 9));
	rl_rrep_map(rr, 10, &l);
	KUNIT_EXPECT_EQ(test, rl_rrep_unwrapped(rr, &l, 16), 6);

	/* 16 of each track's 20 slots hold a sector (of its replica) */
	for (r = 0; r < 4; r++) {
		unsigned int s, held = 0;

		for (s = 0; s < 20; s++)
			if (!rl_rrep_unmap(rr, r * 20 + s, &y, &rb)) {
				held++;
				KUNIT_EXPECT_EQ(test, rb, r);
			}
		KUNIT_EXPECT_EQ_MSG(test, held, 16, "r %u", r);
	}
}

/* Heads left over by Dr, and sectors outside the used cylinders. */
static void rl_rrep_test_unused(struct kunit *test)
{
	struct rl_disk_geom g;
	struct rl_rrep *rr;
	unsigned int r;
	u64 y;

	rl_rrep_geom(test, ST39133, &g);
	rr = rl_rrep_new(test, &g, 4, 2048, 524288);
	KUNIT_EXPECT_EQ(test, rr->k, 1);
	/* cylinder 2: heads 0-3 hold replicas, 4 and 5 nothing */
	KUNIT_EXPECT_EQ(test, rl_rrep_unmap(rr, 4008 + 3 * 334, &y, &r), 0);
	KUNIT_EXPECT_EQ(test, r, 3);
	KUNIT_EXPECT_EQ(test, rl_rrep_unmap(rr, 4008 + 4 * 334, &y, &r), -ENOENT);
	KUNIT_EXPECT_EQ(test, rl_rrep_unmap(rr, 4007, &y, &r), -ENOENT);
	KUNIT_EXPECT_EQ(test, rl_rrep_unmap(rr, 261 * 2004, &y, &r), -ENOENT);
	/* replica 0's slots 328 to 333: past its logical track */
	KUNIT_EXPECT_EQ(test, rl_rrep_unmap(rr, 4008 + 327, &y, &r), 0);
	KUNIT_EXPECT_EQ(test, rl_rrep_unmap(rr, 4008 + 328, &y, &r), -ENOENT);
	KUNIT_EXPECT_EQ(test, rl_rrep_unmap(rr, 4008 + 333, &y, &r), -ENOENT);
	KUNIT_EXPECT_EQ(test, rr->capacity, 259ULL * 328);
}

static void rl_rrep_test_refused(struct kunit *test)
{
	struct rl_rrep *rr = kunit_kzalloc(test, sizeof(*rr), GFP_KERNEL);
	struct rl_disk_geom g;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, rr);
	rl_rrep_geom(test, SMALL, &g);
	KUNIT_EXPECT_EQ(test, rl_rrep_init(rr, &g, 0, 0, g.capacity, &error),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Invalid dr (1 to 6 replicas)");
	KUNIT_EXPECT_EQ(test, rl_rrep_init(rr, &g, 7, 0, g.capacity, &error),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rl_rrep_init(rr, &g, 5, 0, g.capacity, &error),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "dr is above the geometry's heads (replicas share a cylinder)");
	/* 81 .. 159: no whole cylinder (80 sectors each) */
	KUNIT_EXPECT_EQ(test, rl_rrep_init(rr, &g, 2, 81, 159, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "No whole cylinder of the geometry past the data offset");
	KUNIT_EXPECT_EQ(test, rl_rrep_init(rr, &g, 2, 81, 240, &error), 0);
	KUNIT_EXPECT_EQ(test, rr->capacity, 2 * 16);
	rl_rrep_geom(test, TINY, &g);
	KUNIT_EXPECT_EQ(test, rl_rrep_init(rr, &g, 1, 0, g.capacity, &error),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "A track of fewer than 8 sectors (4 KiB) in the geometry");
}

static struct kunit_case rl_rrep_test_cases[] = {
	KUNIT_CASE(rl_rrep_test_angles),
	KUNIT_CASE(rl_rrep_test_zones),
	KUNIT_CASE(rl_rrep_test_by_hand),
	KUNIT_CASE(rl_rrep_test_wrap),
	KUNIT_CASE(rl_rrep_test_unused),
	KUNIT_CASE(rl_rrep_test_refused),
	{}
};

static struct kunit_suite rl_rrep_test_suite = {
	.name = "dm_raidlab_rrep",
	.test_cases = rl_rrep_test_cases,
};

kunit_test_suite(rl_rrep_test_suite);
