// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the cells, the row lock of the context engines (suite
 * dm_raidlab_cell): bios of one key are served one at a time and in
 * order, bios of other keys in parallel, a bio waits for a free cell (and
 * the bios behind it wait too: arrival order, as the engines had it), the
 * reserve keeps cells back for background work and a cell going free
 * wakes the background waiters only then, grab takes only a free key,
 * and exit is safe on cells never set up.
 */
#include <kunit/test.h>

#include "cell.h"

#define RL_CT_CELLS	3

/* The test's engine: its cells and the order they were started in. */
struct rl_ct {
	struct rl_cells cells;
	struct rl_cell cell[RL_CT_CELLS];
	struct rl_cell *started[8];
	unsigned int nr_started;
};

static u64 rl_ct_key_of(struct rl_cells *c, struct bio *bio)
{
	return bio->bi_iter.bi_sector;	/* the test's key */
}

static void rl_ct_start(struct rl_cells *c, struct rl_cell *cell)
{
	struct rl_ct *t = container_of(c, struct rl_ct, cells);

	if (t->nr_started < ARRAY_SIZE(t->started))
		t->started[t->nr_started++] = cell;
}

static const struct rl_cells_ops rl_ct_ops = {
	.key_of = rl_ct_key_of,
	.start = rl_ct_start,
};

static struct rl_ct *rl_ct_new(struct kunit *test, unsigned int nr)
{
	struct rl_ct *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, rl_cells_init(&t->cells, nr, system_wq,
					    &rl_ct_ops), 0);
	for (i = 0; i < nr; i++)
		rl_cell_add(&t->cells, &t->cell[i]);
	return t;
}

static struct bio *rl_ct_bio(struct kunit *test, u64 key)
{
	struct bio *bio = kunit_kzalloc(test, sizeof(*bio), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bio);
	bio->bi_iter.bi_sector = key;
	return bio;
}

/* Queue bios and let the dispatch work run. */
static void rl_ct_queue(struct rl_ct *t, struct bio *bio)
{
	rl_cells_queue(&t->cells, bio);
	flush_work(&t->cells.dispatch);
}

static void rl_cell_same_key_in_order(struct kunit *test)
{
	struct rl_ct *t = rl_ct_new(test, RL_CT_CELLS);
	struct bio *a = rl_ct_bio(test, 5), *b = rl_ct_bio(test, 5);
	struct bio *c = rl_ct_bio(test, 7), *d = rl_ct_bio(test, 5);
	struct rl_cell *x;

	rl_ct_queue(t, a);
	rl_ct_queue(t, b);
	rl_ct_queue(t, c);
	rl_ct_queue(t, d);
	/* key 5 in one cell, key 7 in another, in parallel */
	KUNIT_ASSERT_EQ(test, t->nr_started, 2U);
	x = t->started[0];
	KUNIT_EXPECT_PTR_EQ(test, x->bio, a);
	KUNIT_EXPECT_EQ(test, x->key, 5ULL);
	KUNIT_EXPECT_PTR_EQ(test, t->started[1]->bio, c);
	KUNIT_EXPECT_EQ(test, t->cells.nr_free, RL_CT_CELLS - 2U);
	/* the key's later bios, in arrival order, in the same cell */
	KUNIT_EXPECT_TRUE(test, rl_cell_next(&t->cells, x));
	KUNIT_EXPECT_PTR_EQ(test, x->bio, b);
	KUNIT_EXPECT_TRUE(test, rl_cell_next(&t->cells, x));
	KUNIT_EXPECT_PTR_EQ(test, x->bio, d);
	KUNIT_EXPECT_FALSE(test, rl_cell_next(&t->cells, x));
	KUNIT_EXPECT_PTR_EQ(test, x->bio, NULL);
	KUNIT_EXPECT_EQ(test, t->cells.nr_free, RL_CT_CELLS - 1U);
	/* key 5 is free again: a new bio takes a cell of its own */
	rl_ct_queue(t, rl_ct_bio(test, 5));
	KUNIT_EXPECT_EQ(test, t->nr_started, 3U);
	rl_cells_exit(&t->cells);
}

static void rl_cell_waits_for_a_free_cell(struct kunit *test)
{
	struct rl_ct *t = rl_ct_new(test, 1);
	struct bio *a = rl_ct_bio(test, 1), *b = rl_ct_bio(test, 2);

	rl_ct_queue(t, a);
	rl_ct_queue(t, b);
	KUNIT_ASSERT_EQ(test, t->nr_started, 1U);
	KUNIT_EXPECT_FALSE(test, bio_list_empty(&t->cells.incoming));
	/* the cell goes free and kicks the dispatch: b gets it */
	KUNIT_EXPECT_FALSE(test, rl_cell_next(&t->cells, t->started[0]));
	flush_work(&t->cells.dispatch);
	KUNIT_ASSERT_EQ(test, t->nr_started, 2U);
	KUNIT_EXPECT_PTR_EQ(test, t->started[1]->bio, b);
	KUNIT_EXPECT_EQ(test, t->started[1]->key, 2ULL);
	rl_cells_exit(&t->cells);
}

static void rl_cell_reserve_and_grab(struct kunit *test)
{
	struct rl_ct *t = rl_ct_new(test, 2);
	struct bio *a = rl_ct_bio(test, 1), *b = rl_ct_bio(test, 2);
	struct bio *n = rl_ct_bio(test, 9);
	struct rl_cell *g;

	rl_cells_reserve(&t->cells, 1);
	rl_ct_queue(t, a);
	KUNIT_ASSERT_EQ(test, t->nr_started, 1U);
	/* grab ignores the reserve but not a busy key */
	KUNIT_EXPECT_PTR_EQ(test, rl_cells_grab(&t->cells, 1), NULL);
	g = rl_cells_grab(&t->cells, 9);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_EXPECT_PTR_EQ(test, g->bio, NULL);
	KUNIT_EXPECT_EQ(test, g->key, 9ULL);
	KUNIT_EXPECT_PTR_EQ(test, rl_cells_grab(&t->cells, 10), NULL);
	/* a bio for the grabbed key waits in its cell; b has no cell */
	rl_ct_queue(t, n);
	rl_ct_queue(t, b);
	KUNIT_EXPECT_EQ(test, t->nr_started, 1U);
	KUNIT_EXPECT_TRUE(test, rl_cell_next(&t->cells, g));
	KUNIT_EXPECT_PTR_EQ(test, g->bio, n);
	/* g goes free, but it is the reserved one: b still waits */
	KUNIT_EXPECT_FALSE(test, rl_cell_next(&t->cells, g));
	flush_work(&t->cells.dispatch);
	KUNIT_EXPECT_EQ(test, t->nr_started, 1U);
	/* the reserve lifted: b is served */
	rl_cells_reserve(&t->cells, 0);
	flush_work(&t->cells.dispatch);
	KUNIT_ASSERT_EQ(test, t->nr_started, 2U);
	KUNIT_EXPECT_PTR_EQ(test, t->started[1]->bio, b);
	rl_cells_exit(&t->cells);
}

/* A wait entry on c->idle that only counts its wake-ups. */
static int rl_ct_woken(struct wait_queue_entry *w, unsigned int mode, int sync,
		       void *key)
{
	(*(unsigned int *)w->private)++;
	return 0;
}

static void rl_cell_idle_wakes_while_reserved(struct kunit *test)
{
	struct rl_ct *t = rl_ct_new(test, 2);
	unsigned int woken = 0;
	struct wait_queue_entry w;
	struct rl_cell *x;

	init_waitqueue_func_entry(&w, rl_ct_woken);
	w.private = &woken;
	add_wait_queue(&t->cells.idle, &w);
	/* no reserve: a cell going free wakes no one */
	rl_ct_queue(t, rl_ct_bio(test, 1));
	KUNIT_ASSERT_EQ(test, t->nr_started, 1U);
	KUNIT_EXPECT_FALSE(test, rl_cell_next(&t->cells, t->started[0]));
	KUNIT_EXPECT_EQ(test, woken, 0U);
	/* reserved (a background range waits for a cell): it is woken */
	rl_cells_reserve(&t->cells, 1);
	x = rl_cells_grab(&t->cells, 5);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_EXPECT_FALSE(test, rl_cell_next(&t->cells, x));
	KUNIT_EXPECT_EQ(test, woken, 1U);
	remove_wait_queue(&t->cells.idle, &w);
	rl_cells_exit(&t->cells);
}

static void rl_cell_blocked_head_holds_the_rest(struct kunit *test)
{
	struct rl_ct *t = rl_ct_new(test, 1);
	struct bio *a = rl_ct_bio(test, 1), *b = rl_ct_bio(test, 2);
	struct bio *c = rl_ct_bio(test, 1);
	struct rl_cell *x;

	rl_ct_queue(t, a);
	rl_ct_queue(t, b);
	rl_ct_queue(t, c);
	/* b has no cell; c, of a's key, stays behind b, not in a's cell */
	KUNIT_ASSERT_EQ(test, t->nr_started, 1U);
	x = t->started[0];
	KUNIT_EXPECT_TRUE(test, bio_list_empty(&x->waiting));
	KUNIT_EXPECT_FALSE(test, rl_cell_next(&t->cells, x));
	flush_work(&t->cells.dispatch);
	/* arrival order: b, then c once b's cell is free */
	KUNIT_ASSERT_EQ(test, t->nr_started, 2U);
	KUNIT_EXPECT_PTR_EQ(test, t->started[1]->bio, b);
	KUNIT_EXPECT_FALSE(test, rl_cell_next(&t->cells, t->started[1]));
	flush_work(&t->cells.dispatch);
	KUNIT_ASSERT_EQ(test, t->nr_started, 3U);
	KUNIT_EXPECT_PTR_EQ(test, t->started[2]->bio, c);
	rl_cells_exit(&t->cells);
}

/* A constructor that failed before rl_cells_init(): exit does nothing. */
static void rl_cell_exit_uninitialised(struct kunit *test)
{
	struct rl_cells *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	rl_cells_exit(c);
	KUNIT_EXPECT_PTR_EQ(test, c->hash, NULL);
}

static struct kunit_case rl_cell_test_cases[] = {
	KUNIT_CASE(rl_cell_same_key_in_order),
	KUNIT_CASE(rl_cell_waits_for_a_free_cell),
	KUNIT_CASE(rl_cell_reserve_and_grab),
	KUNIT_CASE(rl_cell_idle_wakes_while_reserved),
	KUNIT_CASE(rl_cell_blocked_head_holds_the_rest),
	KUNIT_CASE(rl_cell_exit_uninitialised),
	{}
};

static struct kunit_suite rl_cell_test_suite = {
	.name = "dm_raidlab_cell",
	.test_cases = rl_cell_test_cases,
};

kunit_test_suite(rl_cell_test_suite);
