// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the sync worker's pure bookkeeping (suite
 * dm_raidlab_sync): rl_sync_untold() gives each failure of a role to
 * ->member_failed once, the failures at load on the first pass, and a
 * role again once a spare took it (its bit cleared) and it failed again.
 * The VM test 49-plog-fail covers the worker calling the scheme.
 */
#include <kunit/test.h>

#include "../raidlab.h"

static void rl_sync_untold_once(struct kunit *test)
{
	unsigned long told = 0;

	/* failures the metadata held at load: told on the first pass */
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(2)), BIT(2));
	KUNIT_EXPECT_EQ(test, told, BIT(2));
	/* and not again */
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(2)), 0UL);
	/* a second failure: only it */
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(2) | BIT(0)), BIT(0));
	KUNIT_EXPECT_EQ(test, told, BIT(2) | BIT(0));
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(2) | BIT(0)), 0UL);
}

static void rl_sync_untold_again(struct kunit *test)
{
	unsigned long told = 0;

	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(1) | BIT(3)),
			BIT(1) | BIT(3));
	/* a spare took role 1: forgotten, role 3 still failed */
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(3)), 0UL);
	KUNIT_EXPECT_EQ(test, told, BIT(3));
	/* role 1's new disk fails: told again */
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(1) | BIT(3)), BIT(1));
	/* nothing failed: nothing told, nothing kept */
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, 0), 0UL);
	KUNIT_EXPECT_EQ(test, told, 0UL);
	/* the last role of the widest array */
	KUNIT_EXPECT_EQ(test, rl_sync_untold(&told, BIT(RL_MAX_MEMBERS - 1)),
			BIT(RL_MAX_MEMBERS - 1));
}

static struct kunit_case rl_sync_test_cases[] = {
	KUNIT_CASE(rl_sync_untold_once),
	KUNIT_CASE(rl_sync_untold_again),
	{}
};

static struct kunit_suite rl_sync_test_suite = {
	.name = "dm_raidlab_sync",
	.test_cases = rl_sync_test_cases,
};

kunit_test_suite(rl_sync_test_suite);
