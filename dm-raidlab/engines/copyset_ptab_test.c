// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the table of delayed propagations (copyset_ptab.c,
 * suite dm_raidlab_copyset_ptab): entries copied in the order their
 * writes ended, the pending question by range and chunk, overwrite (a
 * covering write drops the waiting and stuck entries it covers, and only
 * those), in-flight exclusion (an entry being written or copied is never
 * dropped), a full table, stuck entries that keep their range
 * pending until they are tried again, and the replicas: a chunk's
 * entries pin a new write to the replicas they name, and reads of their
 * ranges are offered those only; entries taken back at load (adopt)
 * wait in the order given and name their chunk's replica.
 */
#include <kunit/test.h>

#include "copyset_ptab.h"

#define CHUNK_SHIFT	7	/* 128 sectors */
#define COPIES		2

/* each copy's replica: 0 (no records: replica 0) */
static const u8 rep0[COPIES];

static struct rl_cs_ptab *rl_ptab_new(struct kunit *test, unsigned int nr)
{
	struct rl_cs_ptab *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, rl_cs_ptab_init(t, nr, CHUNK_SHIFT, COPIES), 0);
	return t;
}

/* Entries are copied in the order their writes ended. */
static void rl_cs_ptab_order(struct kunit *test)
{
	struct rl_cs_ptab *t = rl_ptab_new(test, 8);
	struct rl_cs_pent *e[3];
	unsigned int i;

	for (i = 0; i < 3; i++)
		e[i] = rl_cs_ptab_get(t, 1000 * i, 8, rep0);
	KUNIT_EXPECT_EQ(test, t->used, 3U);
	/* none is ready while its write is in flight */
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), NULL);
	/* ready out of order: copied in the order they ended */
	rl_cs_ptab_ready(t, e[2]);
	rl_cs_ptab_ready(t, e[0]);
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), e[2]);
	rl_cs_ptab_start(t, e[2]);
	KUNIT_EXPECT_EQ(test, e[2]->state, RL_PENT_COPYING);
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), e[0]);
	rl_cs_ptab_start(t, e[0]);
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), NULL);
	for (i = 0; i < 3; i++)
		rl_cs_ptab_put(t, e[i]);
	KUNIT_EXPECT_EQ(test, t->used, 0U);
	rl_cs_ptab_exit(t);
}

/* Pending: any entry not free that overlaps, in its chunk only. */
static void rl_cs_ptab_pending_ranges(struct kunit *test)
{
	struct rl_cs_ptab *t = rl_ptab_new(test, 4);
	struct rl_cs_pent *e = rl_cs_ptab_get(t, 128 + 16, 8, rep0);

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 128, 128));
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 128 + 23, 1));
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_pending(t, 128 + 24, 8));
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_pending(t, 128, 16));
	/* another chunk, even one that hashes alike */
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_pending(t, 0, 128));
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_pending(t, 128 + (128 << 4) + 16,
						    8));
	/* every state but free is pending */
	rl_cs_ptab_ready(t, e);
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 128 + 20, 1));
	rl_cs_ptab_start(t, e);
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 128 + 20, 1));
	rl_cs_ptab_stuck(t, e);
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 128 + 20, 1));
	rl_cs_ptab_put(t, e);
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_pending(t, 128 + 20, 1));
	rl_cs_ptab_exit(t);
}

/*
 * Overwrite: a new write drops the READY entries its range covers; not
 * those it covers only in part, nor those WRITING or COPYING (in flight).
 */
static void rl_cs_ptab_overwrite(struct kunit *test)
{
	struct rl_cs_ptab *t = rl_ptab_new(test, 8);
	struct rl_cs_pent *in = rl_cs_ptab_get(t, 8, 8, rep0);	/* covered */
	struct rl_cs_pent *part = rl_cs_ptab_get(t, 28, 8, rep0);	/* in part */
	struct rl_cs_pent *wr = rl_cs_ptab_get(t, 16, 8, rep0);	/* WRITING */
	struct rl_cs_pent *cp = rl_cs_ptab_get(t, 0, 8, rep0);	/* COPYING */
	struct rl_cs_pent *other = rl_cs_ptab_get(t, 128 + 8, 8, rep0);
	struct rl_cs_pent *e;
	LIST_HEAD(dropped);

	rl_cs_ptab_ready(t, in);
	rl_cs_ptab_ready(t, part);
	rl_cs_ptab_ready(t, cp);
	rl_cs_ptab_start(t, cp);
	rl_cs_ptab_ready(t, other);
	e = rl_cs_ptab_get(t, 0, 32, rep0);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_cover(t, e, &dropped), 1U);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&dropped, struct rl_cs_pent,
						   node), in);
	KUNIT_EXPECT_EQ(test, wr->state, RL_PENT_WRITING);
	KUNIT_EXPECT_EQ(test, cp->state, RL_PENT_COPYING);
	/* the dropped one is off the ready list; the rest keep their order */
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), part);
	rl_cs_ptab_put(t, in);
	KUNIT_EXPECT_EQ(test, t->used, 5U);
	/* its range is still pending: the new entry covers it */
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 8, 8));
	rl_cs_ptab_exit(t);
}

/* A full table gives no entry until one is put back. */
static void rl_cs_ptab_full_table(struct kunit *test)
{
	struct rl_cs_ptab *t = rl_ptab_new(test, 2);
	struct rl_cs_pent *a = rl_cs_ptab_get(t, 0, 8, rep0);

	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_full(t));
	KUNIT_EXPECT_NOT_NULL(test, rl_cs_ptab_get(t, 8, 8, rep0));
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_full(t));
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_get(t, 16, 8, rep0), NULL);
	/* a WRITING entry cancelled (its write not sent) is free again */
	rl_cs_ptab_put(t, a);
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_full(t));
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_pending(t, 0, 8));
	KUNIT_EXPECT_NOT_NULL(test, rl_cs_ptab_get(t, 16, 8, rep0));
	rl_cs_ptab_exit(t);
}

/*
 * A stuck entry keeps its range pending and its slot; a covering write
 * drops it; a retry makes the others wait again, after the READY ones.
 */
static void rl_cs_ptab_stuck_entries(struct kunit *test)
{
	struct rl_cs_ptab *t = rl_ptab_new(test, 4);
	struct rl_cs_pent *s1 = rl_cs_ptab_get(t, 0, 8, rep0);
	struct rl_cs_pent *s2 = rl_cs_ptab_get(t, 256, 8, rep0);
	struct rl_cs_pent *r = rl_cs_ptab_get(t, 512, 8, rep0);
	struct rl_cs_pent *e;
	LIST_HEAD(dropped);

	rl_cs_ptab_ready(t, s1);
	rl_cs_ptab_ready(t, s2);
	rl_cs_ptab_start(t, s1);
	rl_cs_ptab_start(t, s2);
	rl_cs_ptab_stuck(t, s1);
	rl_cs_ptab_stuck(t, s2);
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 0, 8));
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), NULL);
	/* a write over the first drops it */
	e = rl_cs_ptab_get(t, 0, 16, rep0);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_cover(t, e, &dropped), 1U);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&dropped, struct rl_cs_pent,
						   node), s1);
	rl_cs_ptab_put(t, s1);
	/* the other waits again, after the one that was ready */
	rl_cs_ptab_ready(t, r);
	rl_cs_ptab_retry(t);
	KUNIT_EXPECT_EQ(test, s2->state, RL_PENT_READY);
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), r);
	rl_cs_ptab_start(t, r);
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), s2);
	rl_cs_ptab_exit(t);
}

/*
 * Replicas: a chunk with no entry leaves the choice to the queue; its
 * entries pin a new write to theirs, per copy, once each copy's write is
 * issued, and refuse (every replica in the foreground) while one is not
 * or two disagree; reads of an entry's range are offered its replica.
 */
static void rl_cs_ptab_replicas(struct kunit *test)
{
	struct rl_cs_ptab *t = rl_ptab_new(test, 8);
	u8 pin[COPIES], any[COPIES] = { RL_CS_REP_ANY, RL_CS_REP_ANY };
	struct rl_cs_pent *e, *f;

	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 130, pin), 0);
	KUNIT_EXPECT_EQ(test, pin[0], RL_CS_REP_ANY);
	KUNIT_EXPECT_EQ(test, pin[1], RL_CS_REP_ANY);
	e = rl_cs_ptab_get(t, 128 + 8, 8, any);
	KUNIT_ASSERT_NOT_NULL(test, e);
	/* every replica is fresh until a copy's write is issued */
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_fresh(t, 128 + 8, 8, 0), ~0UL);
	/* a copy not issued yet: a new write cannot be pinned */
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 128 + 40, pin), -EBUSY);
	e->rep[0] = 2;
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_fresh(t, 128 + 8, 8, 0), BIT(2));
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_fresh(t, 128 + 8, 8, 1), ~0UL);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 128 + 40, pin), -EBUSY);
	e->rep[1] = 1;
	/* both issued: a write anywhere in the chunk takes theirs */
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 128 + 100, pin), 0);
	KUNIT_EXPECT_EQ(test, pin[0], 2);
	KUNIT_EXPECT_EQ(test, pin[1], 1);
	/* another chunk is free */
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 0, pin), 0);
	KUNIT_EXPECT_EQ(test, pin[0], RL_CS_REP_ANY);
	/* a range beside the entry: every replica */
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_fresh(t, 128 + 16, 8, 0), ~0UL);
	/* two entries that disagree (never made so): no pin, no replica */
	f = rl_cs_ptab_get(t, 128 + 12, 8, any);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->rep[0] = 3;
	f->rep[1] = 1;
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 128, pin), -EBUSY);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_fresh(t, 128 + 12, 2, 0), 0UL);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_fresh(t, 128 + 12, 2, 1), BIT(1));
	rl_cs_ptab_put(t, f);
	rl_cs_ptab_put(t, e);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 128, pin), 0);
	KUNIT_EXPECT_EQ(test, pin[0], RL_CS_REP_ANY);
	rl_cs_ptab_exit(t);
}

/*
 * Entries taken back at load: at their own index, READY in the order
 * given, pending and pinning as written ones; a taken or out-of-range
 * index and a range leaving its chunk are refused. The replica a chunk's
 * entries name holds for the whole chunk, not their ranges only.
 */
static void rl_cs_ptab_adopted(struct kunit *test)
{
	static const u8 rep21[COPIES] = { 2, 1 };
	struct rl_cs_ptab *t = rl_ptab_new(test, 8);
	u8 pin[COPIES];

	KUNIT_EXPECT_EQ(test, rl_cs_ptab_adopt(t, 5, 256, 8, rep21), 0);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_adopt(t, 2, 1024, 16, rep0), 0);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_adopt(t, 5, 512, 8, rep0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_adopt(t, 8, 512, 8, rep0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_adopt(t, 3, 120, 16, rep0), -EINVAL);
	KUNIT_EXPECT_EQ(test, t->used, 2U);
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), &t->ent[5]);
	KUNIT_EXPECT_TRUE(test, rl_cs_ptab_pending(t, 260, 1));
	KUNIT_EXPECT_FALSE(test, rl_cs_ptab_pending(t, 300, 8));
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_fresh(t, 256, 8, 0), BIT(2));
	/* the chunk's replica, also where no entry's range lies */
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_named(t, 300, 0), 2U);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_named(t, 300, 1), 1U);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_named(t, 512, 0), RL_CS_REP_ANY);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_pin(t, 300, pin), 0);
	KUNIT_EXPECT_EQ(test, pin[0], 2);
	KUNIT_EXPECT_EQ(test, pin[1], 1);
	rl_cs_ptab_start(t, &t->ent[5]);
	KUNIT_EXPECT_PTR_EQ(test, rl_cs_ptab_next(t), &t->ent[2]);
	rl_cs_ptab_put(t, &t->ent[5]);
	KUNIT_EXPECT_EQ(test, rl_cs_ptab_named(t, 300, 0), RL_CS_REP_ANY);
	rl_cs_ptab_exit(t);
}

static struct kunit_case rl_cs_ptab_test_cases[] = {
	KUNIT_CASE(rl_cs_ptab_order),
	KUNIT_CASE(rl_cs_ptab_pending_ranges),
	KUNIT_CASE(rl_cs_ptab_overwrite),
	KUNIT_CASE(rl_cs_ptab_full_table),
	KUNIT_CASE(rl_cs_ptab_stuck_entries),
	KUNIT_CASE(rl_cs_ptab_replicas),
	KUNIT_CASE(rl_cs_ptab_adopted),
	{}
};

static struct kunit_suite rl_cs_ptab_test_suite = {
	.name = "dm_raidlab_copyset_ptab",
	.test_cases = rl_cs_ptab_test_cases,
};

kunit_test_suite(rl_cs_ptab_test_suite);
