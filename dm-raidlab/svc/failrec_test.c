// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the failure record (suite dm_raidlab_failrec): with no
 * failure pending nothing waits; after a failure a waiter is held until
 * the record's work has run, then released once, with the status of the
 * commit; failures counted after a waiter queued are recorded too, and no
 * waiter is released twice. Arrays here have no metadata device: the
 * record is the sequence number alone (the VM test 92-fail-crash covers
 * the commit and the held bios).
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../raidlab.h"

struct rl_failrec_probe {
	struct rl_commit_waiter w;
	int calls;
	blk_status_t st;
};

static void rl_failrec_probe_fn(struct rl_commit_waiter *w, blk_status_t st)
{
	struct rl_failrec_probe *p = container_of(w, struct rl_failrec_probe, w);

	p->calls++;
	p->st = st;
}

static struct rl_array *rl_failrec_array(struct kunit *test)
{
	struct rl_array *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->wq = alloc_workqueue("rl_failrec_test", WQ_UNBOUND, 0);
	KUNIT_ASSERT_NOT_NULL(test, a->wq);
	rl_failrec_init(a);
	return a;
}

static void rl_failrec_array_free(struct rl_array *a)
{
	destroy_workqueue(a->wq);
}

static void rl_failrec_nothing_pending(struct kunit *test)
{
	struct rl_array *a = rl_failrec_array(test);
	struct rl_failrec_probe p = {};

	KUNIT_EXPECT_TRUE(test, rl_failrec_wait(a, &p.w, rl_failrec_probe_fn));
	flush_work(&a->fail_work);
	KUNIT_EXPECT_EQ(test, p.calls, 0);
	rl_failrec_array_free(a);
}

static void rl_failrec_held_until_recorded(struct kunit *test)
{
	struct rl_array *a = rl_failrec_array(test);
	struct rl_failrec_probe p = {}, q = {};

	/* a failure, its work not run yet: the gate is closed */
	atomic64_inc(&a->fail_seq);
	KUNIT_EXPECT_FALSE(test, rl_failrec_wait(a, &p.w, rl_failrec_probe_fn));
	flush_work(&a->fail_work);
	KUNIT_EXPECT_EQ(test, p.calls, 1);
	KUNIT_EXPECT_TRUE(test, p.st == BLK_STS_OK);
	KUNIT_EXPECT_EQ(test, a->fail_committed, 1);
	/* recorded: the next access goes on at once */
	KUNIT_EXPECT_TRUE(test, rl_failrec_wait(a, &q.w, rl_failrec_probe_fn));

	/*
	 * two failures, the second after the first waiter queued, each
	 * counted and kicked as rl_member_fail_io() does
	 */
	atomic64_inc(&a->fail_seq);
	rl_failrec_kick(a);
	KUNIT_EXPECT_FALSE(test, rl_failrec_wait(a, &q.w, rl_failrec_probe_fn));
	atomic64_inc(&a->fail_seq);
	rl_failrec_kick(a);
	flush_work(&a->fail_work);
	flush_work(&a->fail_work);
	KUNIT_EXPECT_EQ(test, q.calls, 1);
	KUNIT_EXPECT_EQ(test, a->fail_committed, 3);
	KUNIT_EXPECT_EQ(test, p.calls, 1);
	rl_failrec_array_free(a);
}

/*
 * rl_failrec_sync() returns at once with nothing pending; else it returns
 * only once the record is made (the sequence number committed).
 */
static void rl_failrec_sync_sleeps(struct kunit *test)
{
	struct rl_array *a = rl_failrec_array(test);

	KUNIT_EXPECT_EQ(test, rl_failrec_sync(a), 0);
	KUNIT_EXPECT_EQ(test, a->fail_committed, 0);

	atomic64_inc(&a->fail_seq);
	atomic64_inc(&a->fail_seq);
	KUNIT_EXPECT_EQ(test, rl_failrec_sync(a), 0);
	KUNIT_EXPECT_EQ(test, a->fail_committed, 2);
	rl_failrec_array_free(a);
}

static struct kunit_case rl_failrec_test_cases[] = {
	KUNIT_CASE(rl_failrec_nothing_pending),
	KUNIT_CASE(rl_failrec_held_until_recorded),
	KUNIT_CASE(rl_failrec_sync_sleeps),
	{}
};

static struct kunit_suite rl_failrec_test_suite = {
	.name = "dm_raidlab_failrec",
	.test_cases = rl_failrec_test_cases,
};

kunit_test_suite(rl_failrec_test_suite);
