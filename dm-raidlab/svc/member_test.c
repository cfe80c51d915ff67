// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for member I/O bookkeeping (suite dm_raidlab_member): a bio
 * that a lower device split, chained and ended with an error is restored
 * to exactly what it was when it was mapped, so that it can be sent again;
 * and the member queues: at most queue_depth entries issued, the rest
 * issued by completions in the policy's order, the background floor, and
 * dispatch held while a reference read is due, the tracker's prediction
 * behind the I/Os issued; and duplicate-then-cancel
 * (dup.c): the first queue to pick a read issues it, the other entry is
 * cancelled, and a group is released once.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "../raidlab.h"
#include "dup.h"
#include "tracker.h"

static void rl_member_restore_after_split(struct kunit *test)
{
	struct bio_vec bvec[4];
	struct rl_bio_record rec;
	struct page *page;
	struct bio bio;
	unsigned int i;

	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	bio_init(&bio, NULL, bvec, ARRAY_SIZE(bvec), REQ_OP_READ);
	for (i = 0; i < ARRAY_SIZE(bvec); i++)
		__bio_add_page(&bio, page, PAGE_SIZE, 0);
	bio.bi_iter.bi_sector = 1000;
	rl_bio_record(&bio, &rec);

	/* a lower device splits it in three and chains it, then fails it */
	bio_inc_remaining(&bio);
	bio_inc_remaining(&bio);
	bio_advance(&bio, 3 * PAGE_SIZE);
	atomic_set(&bio.__bi_remaining, 0);	/* every piece has ended */
	bio_clear_flag(&bio, BIO_CHAIN);
	bio_set_flag(&bio, BIO_REMAPPED);
	bio.bi_status = BLK_STS_IOERR;

	rl_bio_restore(&bio, &rec);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_sector, 1000);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_size, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_idx, 0);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_bvec_done, 0);
	KUNIT_EXPECT_TRUE(test, bio.bi_status == BLK_STS_OK);
	KUNIT_EXPECT_FALSE(test, bio_flagged(&bio, BIO_REMAPPED));

	/*
	 * Sent again and split in two: it must end once, with the last piece.
	 * bio_remaining_done() is what bio_endio() asks.
	 */
	bio_inc_remaining(&bio);
	KUNIT_EXPECT_EQ(test, atomic_read(&bio.__bi_remaining), 2);
	KUNIT_EXPECT_FALSE(test, atomic_dec_and_test(&bio.__bi_remaining));
	KUNIT_EXPECT_TRUE(test, atomic_dec_and_test(&bio.__bi_remaining));

	bio_uninit(&bio);
	__free_page(page);
}

/* A one-member array with a queue, and entries that record their issue. */
#define RL_QT_MAX 32

struct rl_qtest {
	struct rl_array *a;
	struct rl_qent qe[RL_QT_MAX];
	unsigned int order[RL_QT_MAX];	/* entry index by issue order */
	unsigned int nr_issued;
	spinlock_t lock;		/* protects order and nr_issued */
};

static struct rl_qtest *rl_qtest_current;

static void rl_qtest_submit(struct rl_qent *qe)
{
	struct rl_qtest *t = rl_qtest_current;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	t->order[t->nr_issued++] = qe - t->qe;
	spin_unlock_irqrestore(&t->lock, flags);
}

/* Suite exit: free the array of the test that made one. */
static void rl_qtest_exit(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_current;

	if (!t)
		return;
	destroy_workqueue(t->a->wq);
	kfree(t->a);
	rl_qtest_current = NULL;
}

static struct rl_qtest *rl_qtest_init_nr(struct kunit *test,
					 const struct rl_sched_policy *policy,
					 unsigned int depth, unsigned int nr)
{
	struct rl_qtest *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct rl_array *a;
	unsigned int m;

	KUNIT_ASSERT_NOT_NULL(test, t);
	a = kzalloc(struct_size(a, members, nr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->wq = alloc_workqueue("rl_qtest", WQ_UNBOUND, 0);
	if (!a->wq)
		kfree(a);
	KUNIT_ASSERT_NOT_NULL(test, a->wq);
	a->geom.nr_members = nr;
	a->policy = policy;
	a->queue_depth = depth;
	for (m = 0; m < nr; m++)
		rl_queue_init(a, m);
	t->a = a;
	spin_lock_init(&t->lock);
	rl_qtest_current = t;
	return t;
}

static struct rl_qtest *rl_qtest_init(struct kunit *test,
				      const struct rl_sched_policy *policy,
				      unsigned int depth)
{
	return rl_qtest_init_nr(test, policy, depth, 1);
}

static void rl_qtest_add_on(struct rl_qtest *t, unsigned int m,
			    unsigned int i, sector_t sector,
			    enum rl_class class)
{
	struct rl_qent *qe = &t->qe[i];

	qe->sector = sector;
	qe->sectors = 8;
	qe->class = class;
	qe->submit = rl_qtest_submit;
	rl_member_start(t->a, m, RL_NR_KINDS);
	rl_queue_add(t->a, m, qe);
}

static void rl_qtest_add(struct rl_qtest *t, unsigned int i, sector_t sector,
			 enum rl_class class)
{
	rl_qtest_add_on(t, 0, i, sector, class);
}

/* Complete the @k-th issued entry and let the queue's work issue more. */
static void rl_qtest_done_on(struct rl_qtest *t, unsigned int m,
			     unsigned int k)
{
	rl_member_done(t->a, m, &t->qe[t->order[k]]);
	flush_workqueue(t->a->wq);
}

static void rl_qtest_done(struct rl_qtest *t, unsigned int k)
{
	rl_qtest_done_on(t, 0, k);
}

static void rl_member_queue_depth(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init(test, &rl_sched_fifo, 2);
	unsigned int i, queued[RL_NR_CLASSES], issued;

	for (i = 0; i < 5; i++)
		rl_qtest_add(t, i, 1000 - i * 8, RL_FG);
	/* two go at once, three wait */
	KUNIT_EXPECT_EQ(test, t->nr_issued, 2U);
	rl_queue_counts(t->a, 0, queued, &issued);
	KUNIT_EXPECT_EQ(test, queued[RL_FG], 3U);
	KUNIT_EXPECT_EQ(test, issued, 2U);
	/* each completion lets exactly one more go, in arrival order (fifo) */
	for (i = 0; i < 3; i++) {
		rl_qtest_done(t, i);
		KUNIT_EXPECT_EQ(test, t->nr_issued, i + 3);
	}
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, t->order[i], i);
	rl_qtest_done(t, 3);
	rl_qtest_done(t, 4);
	rl_queue_counts(t->a, 0, queued, &issued);
	KUNIT_EXPECT_EQ(test, issued, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->a->members[0].inflight), 0);
	/* the head follows the last completion */
	KUNIT_EXPECT_EQ(test, t->a->members[0].head, 1000 - 4 * 8 + 8);
}

/* At depth 1, look orders what waits by the head's sweep. */
static void rl_member_queue_look_order(struct kunit *test)
{
	static const sector_t at[] = { 500, 900, 100, 700, 300 };
	struct rl_qtest *t = rl_qtest_init(test, &rl_sched_look, 1);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(at); i++)
		rl_qtest_add(t, i, at[i], RL_FG);
	/* 500 goes at once; the head is then at 508, sweeping up */
	for (i = 0; i < ARRAY_SIZE(at) - 1; i++)
		rl_qtest_done(t, i);
	KUNIT_ASSERT_EQ(test, t->nr_issued, 5U);
	KUNIT_EXPECT_EQ(test, at[t->order[0]], 500);
	KUNIT_EXPECT_EQ(test, at[t->order[1]], 700);
	KUNIT_EXPECT_EQ(test, at[t->order[2]], 900);
	KUNIT_EXPECT_EQ(test, at[t->order[3]], 300);
	KUNIT_EXPECT_EQ(test, at[t->order[4]], 100);
	rl_qtest_done(t, 4);
}

/* Background waits behind foreground, but gets one in RL_BG_FLOOR + 1. */
static void rl_member_queue_background_floor(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init(test, &rl_sched_fifo, 1);
	unsigned int i, n = 2 * (RL_BG_FLOOR + 1) + 1;

	rl_qtest_add(t, 0, 0, RL_FG);		/* takes the only slot */
	rl_qtest_add(t, 1, 8, RL_BG);
	rl_qtest_add(t, 2, 16, RL_BG);
	for (i = 3; i < n + 1; i++)
		rl_qtest_add(t, i, i * 8, RL_FG);
	for (i = 0; i < n; i++)
		rl_qtest_done(t, i);
	KUNIT_ASSERT_EQ(test, t->nr_issued, n + 1);
	/* after the first, RL_BG_FLOOR foreground, then a background */
	KUNIT_EXPECT_EQ(test, t->qe[t->order[RL_BG_FLOOR]].class, RL_FG);
	KUNIT_EXPECT_EQ(test, t->order[RL_BG_FLOOR + 1], 1U);
	KUNIT_EXPECT_EQ(test, t->order[2 * (RL_BG_FLOOR + 1)], 2U);
	rl_qtest_done(t, n);
}

/*
 * A reference read that is due holds dispatch until the member is idle
 * (member.c/trackio.c); releasing it lets what waits go.
 */
static void rl_member_queue_ref_hold(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init(test, &rl_sched_fifo, 4);
	struct rl_queue *q = &t->a->members[0].q;

	rl_qtest_add(t, 0, 0, RL_FG);
	spin_lock_irq(&q->lock);
	WRITE_ONCE(q->ref_due, true);
	spin_unlock_irq(&q->lock);
	rl_qtest_add(t, 1, 8, RL_FG);
	rl_qtest_add(t, 2, 16, RL_FG);
	KUNIT_EXPECT_EQ(test, t->nr_issued, 1U);
	spin_lock_irq(&q->lock);
	WRITE_ONCE(q->ref_due, false);
	spin_unlock_irq(&q->lock);
	rl_qtest_add(t, 3, 24, RL_FG);	/* the next add runs the queue */
	KUNIT_EXPECT_EQ(test, t->nr_issued, 4U);
	rl_member_done(t->a, 0, &t->qe[0]);
	rl_member_done(t->a, 0, &t->qe[1]);
	rl_member_done(t->a, 0, &t->qe[2]);
	rl_member_done(t->a, 0, &t->qe[3]);
	flush_workqueue(t->a->wq);
}

/*
 * The direct path: an I/O that finds a fifo queue empty, with a slot free,
 * goes at once without the lock (it takes no arrival number); one that
 * must wait takes the lock; a slot given back without the lock lets the
 * waiting one go; look keeps head state and never takes the direct path.
 */
static void rl_member_queue_direct_path(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init(test, &rl_sched_fifo, 2);
	struct rl_queue *q = &t->a->members[0].q;
	unsigned int queued[RL_NR_CLASSES], issued;

	rl_qtest_add(t, 0, 0, RL_FG);
	rl_qtest_add(t, 1, 8, RL_BG);
	KUNIT_EXPECT_EQ(test, t->nr_issued, 2U);
	KUNIT_EXPECT_EQ(test, q->seq, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&q->dispatched[RL_FG]), 1LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&q->dispatched[RL_BG]), 1LL);
	/* full: it waits, and the slot it tried gives itself back */
	rl_qtest_add(t, 2, 16, RL_FG);
	KUNIT_EXPECT_EQ(test, t->nr_issued, 2U);
	KUNIT_EXPECT_EQ(test, q->seq, 1ULL);
	rl_queue_counts(t->a, 0, queued, &issued);
	KUNIT_EXPECT_EQ(test, queued[RL_FG], 1U);
	KUNIT_EXPECT_EQ(test, issued, 2U);
	rl_qtest_done(t, 0);
	KUNIT_EXPECT_EQ(test, t->nr_issued, 3U);
	KUNIT_EXPECT_EQ(test, t->order[2], 2U);
	rl_qtest_done(t, 1);
	rl_qtest_done(t, 2);
	rl_queue_counts(t->a, 0, queued, &issued);
	KUNIT_EXPECT_EQ(test, issued, 0U);
	KUNIT_EXPECT_EQ(test, atomic64_read(&q->dispatched[RL_FG]), 2LL);
	/*
	 * look: the head it starts from is where the last I/O ended (the
	 * direct path kept none), and it takes the lock even into an empty
	 * queue
	 */
	rl_queue_set_policy(t->a, &rl_sched_look);
	KUNIT_EXPECT_EQ(test, q->hs.sector, 24ULL);
	rl_qtest_add(t, 3, 40, RL_FG);
	KUNIT_EXPECT_EQ(test, t->nr_issued, 4U);
	KUNIT_EXPECT_EQ(test, q->seq, 2ULL);
	KUNIT_EXPECT_EQ(test, q->hs.sector, 48ULL);
	rl_qtest_done(t, 3);
}

/* sched_test.c's disk: 12 ms a rotation, 949 cylinders of 14 x 48 sectors */
#define RL_QT_GEOM "period_ns=12000000,cylinders=949,heads=14,spt=48," \
		   "track_skew=0,cyl_skew=0,head_switch_ns=100000," \
		   "seek_a_ns=2000000,seek_b_ns=10000,seek_c_ns=460000,ref=0"

/*
 * The tracker's prediction on a busy member (the tail): behind an I/O
 * issued to the last cylinder, a read at the start is predicted to end
 * after what is left of that I/O and its own seek back; an I/O issued behind
 * another is observed without a prediction (only an idle disk's says
 * something of the phase); behind an entry waiting in a fifo queue too,
 * but not in a queue whose policy reorders; idle again, no seek.
 */
static const u32 rl_qt_last = 948;	/* the geometry's last cylinder */

/* Give member 0 of @t a calibrated tracker; its geometry in *@g. */
static void rl_qtest_track(struct kunit *test, struct rl_qtest *t,
			   struct rl_disk_geom *g)
{
	struct rl_tracker *trk = kunit_kzalloc(test, sizeof(*trk), GFP_KERNEL);
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, trk);
	KUNIT_ASSERT_EQ(test, rl_disk_geom_parse(RL_QT_GEOM, g, &error), 0);
	rl_tracker_set_geom(trk, g);
	trk->calibrated = true;
	trk->slack = 0;
	t->a->members[0].q.trk = trk;
}

static void rl_member_queue_tail_predict(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init(test, &rl_sched_fifo, 2);
	struct rl_queue *q = &t->a->members[0].q;
	const u32 last = rl_qt_last;
	struct rl_disk_geom g;
	u64 seek, rot, p, tail, n0, n1;

	rl_qtest_track(test, t, &g);
	seek = rl_disk_seek_ns(&g, 0, last);
	rot = g.period_ns;

	/* idle, the head on cylinder 0: a rotation and a transfer at most */
	p = __rl_track_predict(t->a, 0, 8, 8);
	KUNIT_EXPECT_LE(test, p, 2 * rot);

	rl_qtest_add(t, 0, (sector_t)last * 14 * 48, RL_FG);
	KUNIT_ASSERT_EQ(test, t->nr_issued, 1U);
	KUNIT_EXPECT_GE(test, t->qe[0].predicted_ns, seek);
	KUNIT_EXPECT_LE(test, t->qe[0].predicted_ns, seek + 2 * rot);
	tail = q->tail_ns;

	KUNIT_EXPECT_GE(test, tail, t->qe[0].issue_ns + seek);

	/* behind it: what is left of it, then the seek back */
	n0 = ktime_get_ns();
	p = __rl_track_predict(t->a, 0, 8, 8);
	n1 = ktime_get_ns();
	KUNIT_EXPECT_GE(test, p, (tail > n1 ? tail - n1 : 0) + seek);
	KUNIT_EXPECT_LE(test, p, (tail > n0 ? tail - n0 : 0) + seek + 2 * rot);

	rl_qtest_add(t, 1, 8, RL_FG);		/* the second slot */
	KUNIT_ASSERT_EQ(test, t->nr_issued, 2U);
	KUNIT_EXPECT_EQ(test, t->qe[1].predicted_ns, U64_MAX);
	KUNIT_EXPECT_GE(test, q->tail_ns, tail + seek);

	/* one waits: fifo, behind it (at least the seek back from the tail) */
	rl_qtest_add(t, 2, 16, RL_FG);
	KUNIT_ASSERT_EQ(test, t->nr_issued, 2U);
	tail = q->tail_ns;
	n0 = ktime_get_ns();
	p = __rl_track_predict(t->a, 0, 8, 8);
	n1 = ktime_get_ns();
	KUNIT_EXPECT_GE(test, p, (tail > n1 ? tail - n1 : 0));
	KUNIT_EXPECT_LE(test, p, (tail > n0 ? tail - n0 : 0) + seek + 4 * rot);
	/* a policy that reorders what waits: none */
	rl_queue_set_policy(t->a, &rl_sched_look);
	KUNIT_EXPECT_EQ(test, __rl_track_predict(t->a, 0, 8, 8), U64_MAX);

	rl_qtest_done(t, 0);
	rl_qtest_done(t, 1);
	rl_qtest_done(t, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&q->issued), 0);
	p = __rl_track_predict(t->a, 0, 48, 8);
	KUNIT_EXPECT_LE(test, p, 2 * rot);
}

/*
 * The tail follows the completions: an I/O that ends before its predicted
 * end moves the tail back by as much, so that what is issued behind it is
 * predicted from when the disk really was free.
 */
static void rl_member_queue_tail_done(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init(test, &rl_sched_fifo, 2);
	struct rl_queue *q = &t->a->members[0].q;
	struct rl_disk_geom g;
	u64 seek, rot, n;

	rl_qtest_track(test, t, &g);
	seek = rl_disk_seek_ns(&g, 0, rl_qt_last);
	rot = g.period_ns;
	/* out to the last cylinder and back: both seeks in the tail */
	rl_qtest_add(t, 0, (sector_t)rl_qt_last * 14 * 48, RL_FG);
	rl_qtest_add(t, 1, 8, RL_FG);
	KUNIT_ASSERT_EQ(test, t->nr_issued, 2U);
	KUNIT_EXPECT_GE(test, q->tail_ns, t->qe[0].issue_ns + 2 * seek);
	/* the first ends at once, long before its end: the second's is left */
	rl_qtest_done(t, 0);
	n = ktime_get_ns();
	KUNIT_EXPECT_LE(test, q->tail_ns, n + seek + rot + rot / 4);
	rl_qtest_done(t, 1);
	KUNIT_EXPECT_LE(test, q->tail_ns, ktime_get_ns());
}

/* A duplicate-then-cancel group whose issue and release are counted. */
struct rl_duptest {
	struct rl_dup d;
	unsigned int nr_issue, nr_release;
	unsigned int won;		/* the entry issued */
	struct rl_qent slot;		/* its copy: what rl_member_done() gets */
};

static void rl_duptest_issue(struct rl_dup *d, unsigned int i)
{
	struct rl_duptest *dt = container_of(d, struct rl_duptest, d);

	dt->nr_issue++;
	dt->won = i;
	dt->slot = d->ent[i].qe;
	rl_member_start(d->a, d->ent[i].member, RL_NR_KINDS);
}

static void rl_duptest_release(struct rl_dup *d)
{
	container_of(d, struct rl_duptest, d)->nr_release++;
}

/* Two members at depth 1, each busy with one entry; a group on both. */
static struct rl_duptest *rl_duptest_init(struct kunit *test,
					  struct rl_qtest *t, bool busy)
{
	struct rl_duptest *dt = kunit_kzalloc(test, sizeof(*dt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dt);
	if (busy) {
		rl_qtest_add_on(t, 0, 0, 5000, RL_FG);
		rl_qtest_add_on(t, 1, 1, 5000, RL_FG);
		KUNIT_ASSERT_EQ(test, t->nr_issued, 2U);
	}
	dt->d.a = t->a;
	dt->d.nr = 2;
	dt->d.issue = rl_duptest_issue;
	dt->d.release = rl_duptest_release;
	dt->d.ent[0].member = 0;
	dt->d.ent[0].qe.sector = 100;
	dt->d.ent[1].member = 1;
	dt->d.ent[1].qe.sector = 200;
	rl_dup_queue(&dt->d, 8);
	return dt;
}

static unsigned int rl_qtest_waiting(struct rl_qtest *t, unsigned int m,
				     unsigned int *issued)
{
	unsigned int queued[RL_NR_CLASSES];

	rl_queue_counts(t->a, m, queued, issued);
	return queued[RL_FG] + queued[RL_BG];
}

/*
 * Duplicate-then-cancel: with a free slot the first member takes the read
 * at once and nothing is queued on the second; with both busy it waits on
 * both, the first queue to pick it issues it at its own copy and the other
 * entry leaves its queue; a loser its queue picked anyway gives its slot
 * back. Each group is released once, after both entries are done with.
 */
static void rl_member_dup_claim(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init_nr(test, &rl_sched_fifo, 1, 2);
	struct rl_duptest *dt;
	unsigned int issued;

	/* idle: issued on member 0 at once, never queued on 1 */
	dt = rl_duptest_init(test, t, false);
	KUNIT_EXPECT_EQ(test, dt->nr_issue, 1U);
	KUNIT_EXPECT_EQ(test, dt->won, 0U);
	KUNIT_EXPECT_EQ(test, dt->nr_release, 1U);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 1, &issued), 0U);
	KUNIT_EXPECT_EQ(test, issued, 0U);
	rl_member_done(t->a, 0, &dt->slot);
	flush_workqueue(t->a->wq);

	/* both busy: waits on both; member 1 frees first and wins */
	dt = rl_duptest_init(test, t, true);
	KUNIT_EXPECT_EQ(test, dt->nr_issue, 0U);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 0, &issued), 1U);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 1, &issued), 1U);
	rl_qtest_done_on(t, 1, 1);
	KUNIT_EXPECT_EQ(test, dt->nr_issue, 1U);
	KUNIT_EXPECT_EQ(test, dt->won, 1U);
	KUNIT_EXPECT_EQ(test, dt->slot.sector, (sector_t)200);
	KUNIT_EXPECT_EQ(test, dt->nr_release, 1U);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 0, &issued), 0U);
	rl_qtest_done_on(t, 0, 0);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 0, &issued), 0U);
	KUNIT_EXPECT_EQ(test, issued, 0U);	/* the cancelled entry never went */
	rl_member_done(t->a, 1, &dt->slot);
	flush_workqueue(t->a->wq);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 1, &issued), 0U);
	KUNIT_EXPECT_EQ(test, issued, 0U);

	/*
	 * a loser picked before the cancel reached it: entry 0 has won
	 * elsewhere (its claim set, out of its queue, its reference gone);
	 * member 1's queue picks entry 1, which gives its slot back
	 */
	t->nr_issued = 0;
	dt = rl_duptest_init(test, t, true);
	atomic_set(&dt->d.claim, 1);
	KUNIT_ASSERT_TRUE(test, rl_queue_cancel(t->a, 0, &dt->d.ent[0].qe));
	KUNIT_EXPECT_FALSE(test, rl_queue_cancel(t->a, 0, &dt->d.ent[0].qe));
	KUNIT_ASSERT_FALSE(test, refcount_dec_and_test(&dt->d.refs));
	rl_qtest_done_on(t, 1, 1);
	KUNIT_EXPECT_EQ(test, dt->nr_issue, 0U);
	KUNIT_EXPECT_EQ(test, dt->nr_release, 1U);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 1, &issued), 0U);
	KUNIT_EXPECT_EQ(test, issued, 0U);
	rl_qtest_done_on(t, 0, 0);
}

/* A group over members 0, 1 and 2, each entry with two places if @alts. */
static void rl_duptest_three(struct rl_duptest *dt, struct rl_qtest *t,
			     bool alts)
{
	unsigned int m;

	memset(dt, 0, sizeof(*dt));
	dt->d.a = t->a;
	dt->d.nr = 3;
	dt->d.issue = rl_duptest_issue;
	dt->d.release = rl_duptest_release;
	for (m = 0; m < 3; m++) {
		dt->d.ent[m].member = m;
		dt->d.ent[m].qe.sector = 100 * (m + 1);
		dt->d.ent[m].alt[0] = 100 * (m + 1);
		dt->d.ent[m].alt[1] = 100 * (m + 1) + 40;
		dt->d.ent[m].nr_alts = alts ? 2 : 0;
	}
	rl_dup_queue(&dt->d, 8);
}

/*
 * Every holder busy, three of them: the read waits on all three, the
 * queue that frees first (member 1) issues it at the place its policy
 * picked among the entry's replicas, and both other entries leave their
 * queues; the group is released once. With one holder's queue free, the
 * entries after the one issued at once are never queued.
 */
static void rl_member_dup_claim_many(struct kunit *test)
{
	struct rl_qtest *t = rl_qtest_init_nr(test, &rl_sched_fifo, 1, 3);
	struct rl_duptest *dt = kunit_kzalloc(test, sizeof(*dt), GFP_KERNEL);
	unsigned int m, issued;

	KUNIT_ASSERT_NOT_NULL(test, dt);
	for (m = 0; m < 3; m++)
		rl_qtest_add_on(t, m, m, 5000, RL_FG);
	KUNIT_ASSERT_EQ(test, t->nr_issued, 3U);
	rl_duptest_three(dt, t, true);
	for (m = 0; m < 3; m++)
		KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, m, &issued), 1U);
	KUNIT_EXPECT_EQ(test, dt->nr_issue, 0U);
	rl_qtest_done_on(t, 1, 1);
	KUNIT_EXPECT_EQ(test, dt->nr_issue, 1U);
	KUNIT_EXPECT_EQ(test, dt->won, 1U);
	/* its queue was offered the entry's places (fifo takes the first) */
	KUNIT_EXPECT_EQ(test, dt->slot.nr_alts, 2U);
	KUNIT_EXPECT_EQ(test, rl_qent_sector(&dt->slot), (sector_t)200);
	KUNIT_EXPECT_EQ(test, dt->nr_release, 1U);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 0, &issued), 0U);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 2, &issued), 0U);
	rl_qtest_done_on(t, 0, 0);
	rl_qtest_done_on(t, 2, 2);
	KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, 0, &issued), 0U);
	KUNIT_EXPECT_EQ(test, issued, 0U);	/* cancelled: never issued */
	rl_member_done(t->a, 1, &dt->slot);
	flush_workqueue(t->a->wq);

	/* member 0 free: issued there at once, entries 1 and 2 never queued */
	rl_duptest_three(dt, t, false);
	KUNIT_EXPECT_EQ(test, dt->nr_issue, 1U);
	KUNIT_EXPECT_EQ(test, dt->won, 0U);
	KUNIT_EXPECT_EQ(test, dt->nr_release, 1U);
	for (m = 1; m < 3; m++) {
		KUNIT_EXPECT_EQ(test, rl_qtest_waiting(t, m, &issued), 0U);
		KUNIT_EXPECT_EQ(test, issued, 0U);
	}
	rl_member_done(t->a, 0, &dt->slot);
	flush_workqueue(t->a->wq);
}

static struct kunit_case rl_member_test_cases[] = {
	KUNIT_CASE(rl_member_restore_after_split),
	KUNIT_CASE(rl_member_queue_depth),
	KUNIT_CASE(rl_member_queue_look_order),
	KUNIT_CASE(rl_member_queue_background_floor),
	KUNIT_CASE(rl_member_queue_ref_hold),
	KUNIT_CASE(rl_member_queue_direct_path),
	KUNIT_CASE(rl_member_queue_tail_predict),
	KUNIT_CASE(rl_member_queue_tail_done),
	KUNIT_CASE(rl_member_dup_claim),
	KUNIT_CASE(rl_member_dup_claim_many),
	{}
};

static struct kunit_suite rl_member_test_suite = {
	.name = "dm_raidlab_member",
	.exit = rl_qtest_exit,
	.test_cases = rl_member_test_cases,
};

kunit_test_suite(rl_member_test_suite);
