// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the layout helpers (layout.c): sizing a layout of rows,
 * and the text of a location set that the "locate" message answers with.
 */
#include <kunit/test.h>
#include <linux/overflow.h>

#include "layout.h"

static struct rl_array *rl_lsvc_array(struct kunit *test, unsigned int n,
				      unsigned int shift, sector_t member)
{
	struct rl_array *a = kunit_kzalloc(test, struct_size(a, members, n),
					   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->geom.nr_members = n;
	a->geom.chunk_shift = shift;
	a->member_sectors = member;
	return a;
}

static void rl_lsvc_size_rows(struct kunit *test)
{
	struct rl_array *a = rl_lsvc_array(test, 5, 4, 100 * 16 + 7);
	char *error = NULL;

	/* 100 whole rows of 4 data chunks of 16 sectors */
	KUNIT_EXPECT_EQ(test, rl_size_rows(a, 4, 64 * 100, &error), 0);
	KUNIT_EXPECT_EQ(test, a->geom.nr_data, 4);
	KUNIT_EXPECT_EQ(test, a->member_sectors, 1600ULL);
	a->member_sectors = 100 * 16 + 7;
	KUNIT_EXPECT_EQ(test, rl_size_rows(a, 4, 64 * 101, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "Target length exceeds the members' capacity");
	KUNIT_EXPECT_EQ(test, rl_size_rows(a, 4, 64 * 7 + 16, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "Target length is not a multiple of the stripe width");
	KUNIT_EXPECT_EQ(test, rl_size_rows(a, 4, 0, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Zero target length");
	/* one column: any length that fits, the sectors themselves */
	KUNIT_EXPECT_EQ(test, rl_size_rows(a, 1, 1607, &error), 0);
	KUNIT_EXPECT_EQ(test, a->member_sectors, 1607ULL);
	KUNIT_EXPECT_EQ(test, a->geom.nr_data, 1);
	KUNIT_EXPECT_EQ(test, rl_size_rows(a, 1, 1608, &error), -EINVAL);
}

static void rl_lsvc_format(struct kunit *test)
{
	struct rl_locset ls;
	char buf[64];

	rl_locset_init(&ls, 5, 7, 2);
	rl_locset_add(&ls, 3, 2048 + 59, RL_PART_DATA);
	rl_locset_add(&ls, 0, 2048 + 59, RL_PART_P);
	rl_locset_add(&ls, 1, 2048 + 59, RL_PART_Q);
	KUNIT_EXPECT_EQ(test, ls.nr, 3);
	KUNIT_EXPECT_EQ(test, rl_locset_format(&ls, buf, sizeof(buf)), 0);
	KUNIT_EXPECT_STREQ(test, buf, "5 7 2 data:3:2107 p:0:2107 q:1:2107");
	/* a result buffer too small is an error, not a cut answer */
	KUNIT_EXPECT_EQ(test, rl_locset_format(&ls, buf, 20), -ENOSPC);
	KUNIT_EXPECT_EQ(test, rl_locset_format(&ls, buf, 35), -ENOSPC);
	KUNIT_EXPECT_EQ(test, rl_locset_format(&ls, buf, 36), 0);
}

static void rl_lsvc_part_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, rl_part_name(RL_PART_NONE), "none");
	KUNIT_EXPECT_STREQ(test, rl_part_name(RL_PART_DATA), "data");
	KUNIT_EXPECT_STREQ(test, rl_part_name(RL_PART_COPY), "copy");
	KUNIT_EXPECT_STREQ(test, rl_part_name(RL_PART_P), "p");
	KUNIT_EXPECT_STREQ(test, rl_part_name(RL_PART_Q), "q");
	KUNIT_EXPECT_STREQ(test, rl_part_name(RL_PART_LOG), "log");
	KUNIT_EXPECT_STREQ(test, rl_part_name(RL_NR_PARTS), "?");
}

static struct kunit_case rl_lsvc_test_cases[] = {
	KUNIT_CASE(rl_lsvc_size_rows),
	KUNIT_CASE(rl_lsvc_format),
	KUNIT_CASE(rl_lsvc_part_names),
	{}
};

static struct kunit_suite rl_lsvc_test_suite = {
	.name = "dm_raidlab_layout_svc",
	.test_cases = rl_lsvc_test_cases,
};

kunit_test_suite(rl_lsvc_test_suite);
