// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for replace (suite dm_raidlab_replace): the member-I/O
 * hook's routing (rl_replace_route()): everything parks during the
 * quiesce; reads and any I/O while no pair is on pass; a write pairs
 * unless it overlaps the copy's window, whose edges are exact, and a
 * flush (no sectors) pairs inside it; once swapped, what was prepared for
 * the loser goes to the winner and nothing pairs. The start's refusals
 * (rl_replace_refused()), over an array of the test's own. The VM test
 * 37-replace covers the copy, the swap and their failures.
 */
#include <kunit/test.h>

#include "../raidlab.h"
#include "replace.h"

static void rl_replace_route_quiesce(struct kunit *test)
{
	struct rl_rp_view v = { .on = true, .quiesce = true };

	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 0, 8, false, false), RL_RP_PARK);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 4096, 8, true, false), RL_RP_PARK);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 0, 0, true, false), RL_RP_PARK);
	v.quiesce = false;
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 0, 8, false, false), RL_RP_PASS);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 4096, 8, true, false), RL_RP_PAIR);
	/* no pair: everything as it is */
	v.on = false;
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 4096, 8, true, false), RL_RP_PASS);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 4096, 0, true, false), RL_RP_PASS);
}

static void rl_replace_route_window(struct kunit *test)
{
	struct rl_rp_view v = { .on = true, .lo = 2048, .hi = 4096 };

	/* ends where the window begins, begins where it ends: outside */
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 2040, 8, true, false), RL_RP_PAIR);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 4096, 8, true, false), RL_RP_PAIR);
	/* one sector in, at either edge, or across the whole window */
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 2041, 8, true, false), RL_RP_PARK);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 4095, 8, true, false), RL_RP_PARK);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 0, 8192, true, false), RL_RP_PARK);
	/* a read in the window: the old disk has it */
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 3000, 8, false, false), RL_RP_PASS);
	/* a flush has no sectors: to both disks at once */
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 3000, 0, true, false), RL_RP_PAIR);
	/* no window */
	v.lo = 0;
	v.hi = 0;
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 0, 8, true, false), RL_RP_PAIR);
}

static void rl_replace_route_swapped(struct kunit *test)
{
	struct rl_rp_view v = { .on = true, .swapped = true, .lo = 0, .hi = 64 };

	/* prepared for the loser: to the winner, reads and writes alike */
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 8, false, true), RL_RP_REDIRECT);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 8, true, true), RL_RP_REDIRECT);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 0, true, true), RL_RP_REDIRECT);
	/* for the winner: as it is, no pair, no window */
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 8, true, false), RL_RP_PASS);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 8, false, false), RL_RP_PASS);
	/* the quiesce after the swap parks both */
	v.quiesce = true;
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 8, true, true), RL_RP_PARK);
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 8, true, false), RL_RP_PARK);
	/* the routing ended */
	v.quiesce = false;
	v.on = false;
	KUNIT_EXPECT_EQ(test, rl_replace_route(&v, 8, 8, true, true), RL_RP_PASS);
}

static const struct rl_scheme_ops rl_replace_fake_ops = {
	.name = "fake",
	.replace = true,
};

static const struct rl_scheme_ops rl_replace_fake_noops = {
	.name = "fake",
};

static struct rl_array *rl_replace_fake(struct kunit *test)
{
	struct rl_array *a = kunit_kzalloc(test, struct_size(a, members, 4),
					   GFP_KERNEL);
	static struct dm_dev disk;
	unsigned int m;

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->replace = kunit_kzalloc(test, sizeof(*a->replace), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a->replace);
	a->replace->member = RL_NONE;
	a->md = (struct rl_md *)a;	/* only looked at, never used */
	a->ops = &rl_replace_fake_ops;
	a->redundancy = 1;
	a->geom.nr_members = 4;
	for (m = 0; m < 4; m++)
		a->members[m].dev = &disk;
	a->nr_spares = 2;
	a->spares[1] = &disk;
	return a;
}

static void rl_replace_refusals(struct kunit *test)
{
	struct rl_array *a = rl_replace_fake(test);

	KUNIT_EXPECT_NULL(test, rl_replace_refused(a, 2, -1));
	KUNIT_EXPECT_NULL(test, rl_replace_refused(a, 2, 1));
	/* spare 0 is empty (taken by a role), spare 1 held by a scheme */
	KUNIT_EXPECT_STREQ(test, rl_replace_refused(a, 2, 0), "no free spare");
	a->spares_held = BIT(1);
	KUNIT_EXPECT_STREQ(test, rl_replace_refused(a, 2, 1), "no free spare");
	KUNIT_EXPECT_STREQ(test, rl_replace_refused(a, 2, -1), "no free spare");
	a->spares_held = 0;
	/* a member out of sync is rebuilt, not replaced */
	a->failed = BIT(2);
	KUNIT_EXPECT_STREQ(test, rl_replace_refused(a, 2, -1),
			   "the member is not in sync: it is rebuilt, not replaced");
	KUNIT_EXPECT_NULL(test, rl_replace_refused(a, 3, -1));
	/* two out of one's redundancy: nothing to copy the data from */
	a->failed = BIT(2) | BIT(1);
	KUNIT_EXPECT_STREQ(test, rl_replace_refused(a, 3, -1),
			   "the array has lost data");
	a->failed = 0;
	a->rebuilding = BIT(3);
	KUNIT_EXPECT_NOT_NULL(test, rl_replace_refused(a, 3, -1));
	a->rebuilding = 0;
	/* one at a time */
	a->replace->active = true;
	KUNIT_EXPECT_STREQ(test, rl_replace_refused(a, 1, -1),
			   "a replace runs already");
	a->replace->active = false;
	/* a swap's routing on until the next suspend */
	a->replace->member = 2;
	KUNIT_EXPECT_NOT_NULL(test, rl_replace_refused(a, 1, -1));
	a->replace->member = RL_NONE;
	/* a scheme that writes members its own way; no metadata */
	a->ops = &rl_replace_fake_noops;
	KUNIT_EXPECT_NOT_NULL(test, rl_replace_refused(a, 1, -1));
	a->ops = &rl_replace_fake_ops;
	a->md = NULL;
	KUNIT_EXPECT_STREQ(test, rl_replace_refused(a, 1, -1),
			   "no metadata device records the swap");
}

static struct kunit_case rl_replace_test_cases[] = {
	KUNIT_CASE(rl_replace_route_quiesce),
	KUNIT_CASE(rl_replace_route_window),
	KUNIT_CASE(rl_replace_route_swapped),
	KUNIT_CASE(rl_replace_refusals),
	{}
};

static struct kunit_suite rl_replace_test_suite = {
	.name = "dm_raidlab_replace",
	.test_cases = rl_replace_test_cases,
};

kunit_test_suite(rl_replace_test_suite);
