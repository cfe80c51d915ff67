// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the copy-set engine's replica translation
 * (copyset_rep.c, suite dm_raidlab_copyset_rep), on an instance with a
 * hand-computable replica layout (4 heads, 20 sectors a track, logical
 * tracks of 16, track skew 1, Dr 2: replica 1 on head j + 2 at s + 12 mod
 * 20, svc/rrep_test.c works it out) and on one without
 * replicas: where an access is cut, which replicas a read is offered
 * (replica 0 first, those that wrap left out) and their numbers, each
 * replica's member sector, the identity without replicas, and the
 * place word of the copy layout record.
 */
#include <kunit/test.h>

#include "../svc/metadata.h"
#include "copyset_int.h"

#define SMALL "period_ns=1000000,cylinders=20,heads=4,spt=20,track_skew=1," \
	      "cyl_skew=4,head_switch_ns=0,seek_a_ns=0,seek_b_ns=0," \
	      "seek_c_ns=0,ref=0"

/* An array whose engine instance has Dr @dr over SMALL (0: no replicas). */
static struct rl_array *rl_rep_array(struct kunit *test, unsigned int dr,
				     sector_t data_offset)
{
	struct rl_array *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct rl_copyset *cs = kunit_kzalloc(test, sizeof(*cs), GFP_KERNEL);
	struct rl_disk_geom g;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, cs);
	a->geom.data_offset = data_offset;
	a->scheme = cs;
	if (!dr)
		return a;
	KUNIT_ASSERT_EQ(test, rl_disk_geom_parse(SMALL, &g, &error), 0);
	KUNIT_ASSERT_EQ_MSG(test, rl_rrep_init(&cs->rr, &g, dr, data_offset,
					       g.capacity, &error), 0, "%s", error);
	cs->dr = dr;
	return a;
}

/* Reads are cut at the logical track, writes where a replica wraps. */
static void rl_cs_rep_left(struct kunit *test)
{
	struct rl_array *a = rl_rep_array(test, 2, 0);
	struct rl_copyset *cs = rl_copyset(a);

	/* column sector 0: track 0 sector 0; replica 1 starts at 12 */
	KUNIT_EXPECT_EQ(test, cs_rep_left(cs, 0, 64, false), 16);
	KUNIT_EXPECT_EQ(test, cs_rep_left(cs, 0, 64, true), 8);
	KUNIT_EXPECT_EQ(test, cs_rep_left(cs, 8, 64, true), 8);
	KUNIT_EXPECT_EQ(test, cs_rep_left(cs, 8, 4, true), 4);
	KUNIT_EXPECT_EQ(test, cs_rep_left(cs, 21, 64, false), 11);
	/* without replicas: only @max */
	cs = rl_copyset(rl_rep_array(test, 0, 2048));
	KUNIT_EXPECT_EQ(test, cs_rep_left(cs, 13, 64, true), 64);
}

/* The replicas a read is offered, and each one's member sector. */
static void rl_cs_rep_alts(struct kunit *test)
{
	struct rl_array *a = rl_rep_array(test, 2, 0);
	sector_t alt[RL_RREP_MAX_DR];
	u8 rep[RL_RREP_MAX_DR];

	/* column 21: cylinder 0, track 1, sector 5 -> 20 + 5 and 60 + 17 */
	KUNIT_EXPECT_EQ(test, cs_rep_alts(a, 21, 3, alt, rep), 2);
	KUNIT_EXPECT_EQ(test, alt[0], 25);
	KUNIT_EXPECT_EQ(test, alt[1], 77);
	KUNIT_EXPECT_EQ(test, rep[1], 1);
	KUNIT_EXPECT_EQ(test, cs_rep_sector(a, 21, 1), 77);
	/* column 16 (track 1, sector 0): replica 1 at 12, eight sectors fit */
	KUNIT_EXPECT_EQ(test, cs_rep_alts(a, 16, 9, alt, rep), 1);
	KUNIT_EXPECT_EQ(test, alt[0], 20);
	KUNIT_EXPECT_EQ(test, cs_rep_alts(a, 16, 8, alt, NULL), 2);
	KUNIT_EXPECT_EQ(test, alt[1], 72);
	/* the next cylinder's first track */
	KUNIT_EXPECT_EQ(test, cs_rep_sector(a, 32, 0), 80);
	KUNIT_EXPECT_EQ(test, cs_rep_sector(a, 32, 1), 132);

	/* without replicas: data_offset + the column sector, one place */
	a = rl_rep_array(test, 0, 2048);
	KUNIT_EXPECT_EQ(test, cs_rep_alts(a, 13, 8, alt, rep), 1);
	KUNIT_EXPECT_EQ(test, alt[0], 2048 + 13);
	KUNIT_EXPECT_EQ(test, rep[0], 0);
	KUNIT_EXPECT_EQ(test, cs_rep_sector(a, 13, 0), 2048 + 13);
	KUNIT_EXPECT_EQ(test, cs_rep_count(rl_copyset(a)), 1);
}

/*
 * The copy layout record's place word: 0 from rl_cs_init() whatever the
 * memory held (raid10's record must not change from load to load), and
 * kept through the record.
 */
static void rl_cs_rep_place(struct kunit *test)
{
	void *block = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);
	struct rl_cs_layout l, back;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, block);
	memset(&l, 0xa5, sizeof(l));
	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_NEAR, 4, 2, 7, 0, 1 << 20,
					 &error), 0);
	KUNIT_EXPECT_EQ(test, l.place, 0);
	l.place = 0x1234abcd;
	rl_cs_layout_encode(&l, NULL, block);
	KUNIT_ASSERT_EQ(test, rl_cs_layout_decode(block, &back), 0);
	KUNIT_EXPECT_EQ(test, back.place, 0x1234abcd);
	back.used = l.used;
	KUNIT_EXPECT_TRUE(test, rl_cs_layout_same(&l, &back));
	back.place = 0;
	KUNIT_EXPECT_FALSE(test, rl_cs_layout_same(&l, &back));
}

static struct kunit_case rl_cs_rep_test_cases[] = {
	KUNIT_CASE(rl_cs_rep_left),
	KUNIT_CASE(rl_cs_rep_alts),
	KUNIT_CASE(rl_cs_rep_place),
	{}
};

static struct kunit_suite rl_cs_rep_test_suite = {
	.name = "dm_raidlab_copyset_rep",
	.test_cases = rl_cs_rep_test_cases,
};

kunit_test_suite(rl_cs_rep_test_suite);
