// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the sync service (suite dm_raidlab_sync):
 * rl_sync_untold() gives each failure of a role to ->member_failed once,
 * the failures at load on the first pass, and a role again once a spare
 * took it (its bit cleared) and it failed again. The item worker, over an
 * array with no members and no metadata and a scheme of the test's own:
 * a pass runs every item ->get_work gives, in its order, also before the
 * first resume when asked for; one asked for before the service exists
 * runs at the first resume; and an item runs while a range waits for it
 * (the item worker is not behind the range worker). A re-added member's
 * rebuild is asked as one (req->readd); a replace's copy comes after the
 * rebuilds, before a scrub. The VM tests 49-plog-fail and
 * 51-plog-pq cover the workers calling plog; 36-readd the re-add.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>

#include "../raidlab.h"
#include "replace.h"
#include "sync_int.h"

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

/* The test's scheme: items 1..nr_items, and a range that may wait for one. */
struct rl_sync_fake {
	struct rl_array a;
	struct mutex lock;		/* below */
	unsigned int nr_items;		/* given by ->get_work so far */
	unsigned int max_items;		/* ->get_work gives up to this many */
	unsigned int gets;		/* ->get_work calls */
	unsigned int done[8];		/* the keys ->do_work saw, in order */
	unsigned int nr_done;
	struct completion range_in;	/* ->sync_range has begun */
	struct completion item_ran;	/* ->do_work ran */
	bool range_saw_item;		/* ->sync_range's wait ended in time */
};

static struct rl_sync_fake *rl_sync_fake_of(struct rl_array *a)
{
	return container_of(a, struct rl_sync_fake, a);
}

static bool rl_sync_fake_get(struct rl_array *a, struct rl_work *w)
{
	struct rl_sync_fake *f = rl_sync_fake_of(a);
	bool more;

	mutex_lock(&f->lock);
	f->gets++;
	more = f->nr_items < f->max_items;
	if (more) {
		w->key = ++f->nr_items;
		w->op = 7;
	}
	mutex_unlock(&f->lock);
	return more;
}

static void rl_sync_fake_do(struct rl_array *a, const struct rl_work *w)
{
	struct rl_sync_fake *f = rl_sync_fake_of(a);

	mutex_lock(&f->lock);
	if (f->nr_done < ARRAY_SIZE(f->done) && w->op == 7)
		f->done[f->nr_done++] = w->key;
	mutex_unlock(&f->lock);
	complete(&f->item_ran);
}

/* A resync range that waits (10 s at most) for an item to run. */
static int rl_sync_fake_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_sync_fake *f = rl_sync_fake_of(a);

	complete(&f->range_in);
	f->range_saw_item = wait_for_completion_timeout(&f->item_ran, 10 * HZ);
	return 0;
}

static const struct rl_scheme_ops rl_sync_fake_ops = {
	.name = "sync-test",
	.get_work = rl_sync_fake_get,
	.do_work = rl_sync_fake_do,
};

static const struct rl_scheme_ops rl_sync_fake_range_ops = {
	.name = "sync-test-range",
	.sync_range = rl_sync_fake_range,
	.get_work = rl_sync_fake_get,
	.do_work = rl_sync_fake_do,
};

/* The array's dm events: the fake has no table to raise them on. */
static void rl_sync_fake_event(struct work_struct *ws)
{
}

static struct rl_sync_fake *rl_sync_fake_new(struct kunit *test,
					     const struct rl_scheme_ops *ops)
{
	struct rl_sync_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->a.ops = ops;
	f->a.redundancy = 1;
	f->a.member_sectors = 2048;	/* one range */
	spin_lock_init(&f->a.fail_lock);
	INIT_WORK(&f->a.event_work, rl_sync_fake_event);
	mutex_init(&f->lock);
	init_completion(&f->range_in);
	init_completion(&f->item_ran);
	return f;
}

static void rl_sync_fake_init(struct kunit *test, struct rl_sync_fake *f)
{
	char *error = NULL;

	KUNIT_ASSERT_EQ(test, rl_sync_init(&f->a, &error), 0);
	KUNIT_ASSERT_NOT_NULL(test, f->a.sync);
}

/* As the target's dtr: the service, then the events it raised. */
static void rl_sync_fake_free(struct rl_sync_fake *f)
{
	rl_sync_free(&f->a);
	cancel_work_sync(&f->a.event_work);
}

static void rl_sync_work_items_in_order(struct kunit *test)
{
	struct rl_sync_fake *f = rl_sync_fake_new(test, &rl_sync_fake_ops);
	unsigned int i;

	rl_sync_fake_init(test, f);
	f->max_items = 5;
	/* not resumed yet: a pass asked for runs all the same */
	rl_sync_want_work(&f->a);
	rl_sync_flush_work(&f->a);
	KUNIT_EXPECT_EQ(test, f->nr_done, 5U);
	for (i = 0; i < f->nr_done; i++)
		KUNIT_EXPECT_EQ(test, f->done[i], i + 1);
	/* until ->get_work had none: one call more than items */
	KUNIT_EXPECT_EQ(test, f->gets, 6U);
	/* no pass unasked */
	f->max_items = 6;
	msleep(20);
	KUNIT_EXPECT_EQ(test, f->nr_done, 5U);
	rl_sync_want_work(&f->a);
	rl_sync_flush_work(&f->a);
	KUNIT_EXPECT_EQ(test, f->nr_done, 6U);
	rl_sync_fake_free(f);
}

static void rl_sync_work_asked_before(struct kunit *test)
{
	struct rl_sync_fake *f = rl_sync_fake_new(test, &rl_sync_fake_ops);

	f->max_items = 2;
	/* from the scheme's ->ctr: no service yet, nothing runs, no oops */
	rl_sync_want_work(&f->a);
	rl_sync_flush_work(&f->a);
	KUNIT_EXPECT_EQ(test, f->gets, 0U);
	rl_sync_fake_init(test, f);
	msleep(20);
	KUNIT_EXPECT_EQ(test, f->nr_done, 0U);
	/* the first resume has the pass */
	rl_sync_start(&f->a);
	rl_sync_flush_work(&f->a);
	KUNIT_EXPECT_EQ(test, f->nr_done, 2U);
	rl_sync_wait(&f->a);
	rl_sync_fake_free(f);
}

static void rl_sync_work_beside_range(struct kunit *test)
{
	struct rl_sync_fake *f = rl_sync_fake_new(test, &rl_sync_fake_range_ops);

	rl_sync_fake_init(test, f);
	/* no metadata, no assume_clean: a resync of the one range */
	rl_sync_start(&f->a);
	/* an EXPECT: the clean-up below must run (the range ends in 10 s) */
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&f->range_in, 10 * HZ));
	mutex_lock(&f->lock);
	f->max_items = 1;
	mutex_unlock(&f->lock);
	rl_sync_want_work(&f->a);
	rl_sync_wait(&f->a);		/* the range's end */
	rl_sync_flush_work(&f->a);
	KUNIT_EXPECT_EQ(test, f->nr_done, 1U);
	KUNIT_EXPECT_TRUE_MSG(test, f->range_saw_item,
			      "the item waited for the range");
	rl_sync_fake_free(f);
}

/* The worker's next range, under its lock as the worker takes it. */
static bool rl_sync_fake_next(struct rl_sync_fake *f, struct rl_sync_req *req,
			      bool *dirty)
{
	struct rl_sync *s = rl_sync(&f->a);
	bool work;

	spin_lock_irq(&s->lock);
	work = rl_sync_next(&f->a, req, dirty);
	spin_unlock_irq(&s->lock);
	return work;
}

/*
 * A re-added member's rebuild is asked with req->readd, another's is not;
 * without a metadata device (nothing held) or for any other job, nothing
 * is skipped.
 */
static void rl_sync_readd_req(struct kunit *test)
{
	struct rl_sync_fake *f = rl_sync_fake_new(test, &rl_sync_fake_range_ops);
	struct rl_sync_req req;
	bool dirty;

	f->a.assume_clean = 1;		/* no resync first */
	f->a.redundancy = 2;		/* two members rebuilding */
	f->a.geom.nr_members = 4;
	rl_sync_fake_init(test, f);
	f->a.rebuilding = BIT(1) | BIT(3);
	f->a.readd = BIT(3);
	f->a.rebuild_cursor[3] = 1024;
	KUNIT_ASSERT_TRUE(test, rl_sync_fake_next(f, &req, &dirty));
	KUNIT_EXPECT_EQ(test, req.job, RL_SYNC_REBUILD);
	KUNIT_EXPECT_EQ(test, req.target, 1U);
	KUNIT_EXPECT_FALSE(test, req.readd);
	f->a.rebuilding = BIT(3);
	KUNIT_ASSERT_TRUE(test, rl_sync_fake_next(f, &req, &dirty));
	KUNIT_EXPECT_EQ(test, req.target, 3U);
	KUNIT_EXPECT_TRUE(test, req.readd);
	KUNIT_EXPECT_EQ(test, req.msector, (sector_t)1024);
	KUNIT_EXPECT_EQ(test, req.len, (sector_t)1024);
	/* no metadata: nothing is known clean */
	KUNIT_EXPECT_FALSE(test, rl_sync_skip_clean(&f->a, &req, 1024, 8));
	req.readd = false;
	KUNIT_EXPECT_FALSE(test, rl_sync_skip_clean(&f->a, &req, 1024, 8));
	rl_sync_fake_free(f);
}

/*
 * A replace's copy is a job after every rebuild and before a scrub, from
 * its cursor, in ranges no longer than what is left.
 */
static void rl_sync_replace_req(struct kunit *test)
{
	struct rl_sync_fake *f = rl_sync_fake_new(test, &rl_sync_fake_range_ops);
	struct rl_replace *rp = kunit_kzalloc(test, sizeof(*rp), GFP_KERNEL);
	struct rl_sync_req req;
	bool dirty;

	KUNIT_ASSERT_NOT_NULL(test, rp);
	f->a.assume_clean = 1;		/* no resync first */
	f->a.geom.nr_members = 4;
	rl_sync_fake_init(test, f);
	f->a.replace = rp;
	rp->member = 2;
	rp->cursor = 512;
	rl_sync(&f->a)->scrub_wanted = true;
	rl_sync(&f->a)->scrub_job = RL_SYNC_CHECK;
	KUNIT_ASSERT_TRUE(test, rl_sync_fake_next(f, &req, &dirty));
	KUNIT_EXPECT_EQ(test, req.job, RL_SYNC_CHECK);	/* nothing to copy */
	rp->active = true;
	f->a.rebuilding = BIT(1);
	KUNIT_ASSERT_TRUE(test, rl_sync_fake_next(f, &req, &dirty));
	KUNIT_EXPECT_EQ(test, req.job, RL_SYNC_REBUILD);
	f->a.rebuilding = 0;
	KUNIT_ASSERT_TRUE(test, rl_sync_fake_next(f, &req, &dirty));
	KUNIT_EXPECT_EQ(test, req.job, RL_SYNC_REPLACE);
	KUNIT_EXPECT_EQ(test, req.target, 2U);
	KUNIT_EXPECT_EQ(test, req.msector, (sector_t)512);
	KUNIT_EXPECT_EQ(test, req.len, (sector_t)(2048 - 512));
	KUNIT_EXPECT_STREQ(test, rl_sync_names[req.job], "recover");
	/* copied to the end: the scrub's turn */
	rp->cursor = 2048;
	KUNIT_ASSERT_TRUE(test, rl_sync_fake_next(f, &req, &dirty));
	KUNIT_EXPECT_EQ(test, req.job, RL_SYNC_CHECK);
	rl_sync(&f->a)->scrub_wanted = false;
	f->a.replace = NULL;		/* the test's own: not the service's */
	rl_sync_fake_free(f);
}

static struct kunit_case rl_sync_test_cases[] = {
	KUNIT_CASE(rl_sync_untold_once),
	KUNIT_CASE(rl_sync_untold_again),
	KUNIT_CASE(rl_sync_work_items_in_order),
	KUNIT_CASE(rl_sync_work_asked_before),
	KUNIT_CASE(rl_sync_work_beside_range),
	KUNIT_CASE(rl_sync_readd_req),
	KUNIT_CASE(rl_sync_replace_req),
	{}
};

static struct kunit_suite rl_sync_test_suite = {
	.name = "dm_raidlab_sync",
	.test_cases = rl_sync_test_cases,
};

kunit_test_suite(rl_sync_test_suite);
