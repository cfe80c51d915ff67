// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab member I/O: per-member counters, in-flight counts and head
 * positions (read balancing uses them), the per-member queues every member
 * I/O goes through (sched.h), remapping, and member failure.
 */
#include <linux/bitops.h>
#include <linux/ktime.h>

#include "../raidlab.h"
#include "replace.h"
#include "tracker.h"

unsigned int rl_nr_failed(const struct rl_array *a)
{
	return hweight_long(READ_ONCE(a->failed));
}

bool rl_survives(struct rl_array *a, unsigned long failed)
{
	if (hweight_long(failed) <= a->redundancy)
		return true;
	/* ->survives reads the instance: none before ->ctr */
	return a->ops->survives && READ_ONCE(a->scheme) &&
	       a->ops->survives(a, failed);
}

/* Tell a service above of a new failure, if it has started. */
static void rl_member_notify(struct rl_array *a, enum rl_fail_hook h)
{
	void (*fn)(struct rl_array *a) = READ_ONCE(a->fail_hook[h]);

	if (fn)
		fn(a);
}

/**
 * rl_member_fail_io() - a member I/O to @dev failed: fail member @m
 * @a: the array
 * @m: the member (role) the I/O was issued for
 * @dev: the disk it was issued to, or NULL for the role's disk now
 * @why: for the kernel log
 *
 * An I/O issued to a disk that has since been replaced (a spare took the
 * role) charges nothing to the new disk. The failure is recorded in the
 * metadata by failrec.c before any access that saw it completes. Safe
 * from any context; the table event is raised from a work item because
 * dm_table_event() sleeps.
 */
void rl_member_fail_io(struct rl_array *a, unsigned int m,
		       const struct dm_dev *dev, const char *why)
{
	struct dm_dev *now;
	unsigned long flags;
	bool news;

	spin_lock_irqsave(&a->fail_lock, flags);
	now = a->members[m].dev;
	news = (!dev || dev == now) && !test_and_set_bit(m, &a->failed);
	/*
	 * Counted for the record (failrec.c) in the same section, so that
	 * whoever reads a->failed under fail_lock finds the failure pending
	 * until it is recorded (the sync worker, before ->member_failed)
	 */
	if (news)
		atomic64_inc(&a->fail_seq);
	spin_unlock_irqrestore(&a->fail_lock, flags);
	if (!news) {
		if (dev && dev != now)
			DMDEBUG("%s: member %u: %s on replaced disk %s ignored",
				dm_table_device_name(a->ti->table), m, why,
				dev->name);
		return;
	}
	DMERR("%s: member %u (%s) failed: %s", dm_table_device_name(a->ti->table),
	      m, now ? now->name : "-", why);
	rl_member_notify(a, RL_FAIL_RECORD);
	schedule_work(&a->event_work);
	rl_member_notify(a, RL_FAIL_SYNC);
}

/*
 * Count a read error of member @m's disk @dev at @where, whose data the
 * caller then deals with as @outcome says (for the kernel log). False past
 * RL_MAX_READ_ERRORS or for a replaced disk.
 */
static bool rl_member_count_read_error(struct rl_array *a, unsigned int m,
				       const struct dm_dev *dev, u64 where,
				       const char *outcome)
{
	int n;

	if (dev != READ_ONCE(a->members[m].dev))
		return false;
	n = atomic_inc_return(&a->members[m].read_errors);
	if (n > RL_MAX_READ_ERRORS) {
		DMERR_LIMIT("%s: member %u (%s): read error at %llu: more than %u read errors",
			    dm_table_device_name(a->ti->table), m, dev->name,
			    where, RL_MAX_READ_ERRORS);
		return false;
	}
	DMWARN_LIMIT("%s: member %u (%s): read error at %llu: %s (%d of %u)",
		     dm_table_device_name(a->ti->table), m, dev->name, where,
		     outcome, n, RL_MAX_READ_ERRORS);
	return true;
}

/**
 * rl_member_read_error() - a read of member @m's disk @dev failed at @where
 * @a: the array
 * @m: the member
 * @dev: the disk the read went to
 * @where: for the kernel log (a scheme's row or sector)
 *
 * A bad sector is no reason to drop a disk: the caller rewrites it from
 * redundancy. Returns true if it may (the error is counted, at most
 * RL_MAX_READ_ERRORS of them), false once the member has had too many, or
 * the disk has been replaced: then the caller fails the member as for any
 * other error. Any context.
 */
bool rl_member_read_error(struct rl_array *a, unsigned int m,
			  const struct dm_dev *dev, u64 where)
{
	return rl_member_count_read_error(a, m, dev, where,
					  "rewritten from redundancy");
}

/**
 * rl_member_read_lost() - a read of member @m's disk @dev failed at @where,
 * and the redundancy to rewrite it is lost (a rebuild, bad-block entries)
 * @a: the array
 * @m: the member
 * @dev: the disk the read went to
 * @where: for the kernel log (the row)
 *
 * As md does with a bad-block log, the disk keeps its role: the caller
 * records the range bad instead. The error counts toward
 * RL_MAX_READ_ERRORS; returns false past it, or for a replaced disk: then
 * the caller fails the member. Any context.
 */
bool rl_member_read_lost(struct rl_array *a, unsigned int m,
			 const struct dm_dev *dev, u64 where)
{
	return rl_member_count_read_error(a, m, dev, where,
					  "lost: recorded bad");
}

/**
 * rl_members_flush() - flush the disks of some members
 * @a: the array
 * @members: a bit each; failed members and empty roles are left out
 *
 * Return: the members whose flush failed (the caller decides what that
 * costs them). Sleeps.
 */
unsigned long rl_members_flush(struct rl_array *a, unsigned long members)
{
	unsigned long bad = 0;
	struct dm_dev *dev;
	unsigned int m;

	for_each_set_bit(m, &members, a->geom.nr_members) {
		dev = READ_ONCE(a->members[m].dev);
		if (dev && !rl_member_failed(a, m) &&
		    blkdev_issue_flush(dev->bdev))
			__set_bit(m, &bad);
	}
	return bad;
}

/**
 * rl_members_flush_fail() - flush some members' disks, fail those that
 * cannot
 * @a: the array
 * @members: a bit each (rl_members_flush())
 * @why: the failure's reason in the kernel log
 *
 * Sleeps.
 */
void rl_members_flush_fail(struct rl_array *a, unsigned long members,
			   const char *why)
{
	unsigned long bad = rl_members_flush(a, members);
	unsigned int m;

	for_each_set_bit(m, &bad, a->geom.nr_members)
		rl_member_fail(a, m, why);
}

/* Mark member @m (whatever disk holds the role) failed. Any context. */
void rl_member_fail(struct rl_array *a, unsigned int m, const char *why)
{
	rl_member_fail_io(a, m, NULL, why);
}

/*
 * A spare takes failed member @m's role: from now on @dev is the disk of
 * the role, rebuilding from cursor 0. Under fail_lock, so that a late
 * error of the old disk (rl_member_fail_io()) is either charged before the
 * swap, to the failed role, or ignored after it.
 */
void rl_member_set_dev(struct rl_array *a, unsigned int m, struct dm_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&a->fail_lock, flags);
	WRITE_ONCE(a->rebuild_cursor[m], 0);
	if (dev)
		WRITE_ONCE(a->members[m].dev, dev);
	set_bit(m, &a->rebuilding);
	smp_mb__before_atomic();	/* rebuilding before readable */
	clear_bit(m, &a->failed);
	spin_unlock_irqrestore(&a->fail_lock, flags);
}

/*
 * Whether a member read or write that ended with @status makes the member
 * failed: any error does. A copy or a parity update that did not land,
 * whatever the reason, leaves the member out of step with the rest, and
 * reading it again would return stale data. (Discards and read-ahead are
 * judged by their callers: they never fail a member.)
 */
bool rl_status_fails_member(blk_status_t status)
{
	return status != BLK_STS_OK;
}

/*
 * A member I/O of @kind is being issued to member @m: count it, and count it
 * in flight until rl_member_done(). RL_NR_KINDS: in flight, not counted
 * (discards).
 */
void rl_member_start(struct rl_array *a, unsigned int m, enum rl_io_kind kind)
{
	if (kind < RL_NR_KINDS)
		atomic64_inc(&a->members[m].io[kind]);
	atomic_inc(&a->members[m].inflight);
}

/*
 * The queues' locking. Everything a policy orders is under q->lock, taken
 * with interrupts off (completions may run in interrupt context): the
 * waiting lists, the head state, the reference-read state. Two lock rounds
 * per I/O were most of what the I/O path cost beyond dm's own layer
 * (Documentation/bench-results/cpu-path-lab.md), so the common case takes
 * none, "the direct path": an I/O that finds nothing waiting, no tracker
 * and an in-order policy (fifo: the one it would pick is itself) takes a
 * slot by incrementing issued and goes. Every completion gives its slot
 * back by decrementing issued, without the lock (a tracker's observation
 * of the timing takes it before).
 *
 * What keeps an entry from waiting forever: an adder that queues stores
 * queued, then (smp_mb()) reads issued to see whether a slot is open; a
 * slot's release decrements issued, then (a full barrier) reads queued and
 * runs the queue's work if anything waits. One of the two sees the
 * other's store. The reference read pairs the same way: it stores ref_due
 * before it reads issued, a release reads ref_due after its decrement.
 * The direct path may take a slot between a locked pick's look at issued
 * and its increment, so the depth may be exceeded by one.
 */

/*
 * Whether @q has a slot to issue into: fewer than queue_depth issued, and
 * no reference read waiting for the member to go idle. Under q->lock.
 */
static bool rl_queue_open(struct rl_array *a, struct rl_queue *q)
{
	return atomic_read(&q->issued) < a->queue_depth && !q->ref_due &&
	       !q->ref_busy;
}

/*
 * Give back a slot of member @m's queue, without the lock: what waits goes
 * from the queue's work, a reference read due at idle from its own. Every
 * completion ends here. Any context.
 */
static void rl_queue_release(struct rl_array *a, unsigned int m)
{
	struct rl_member *mb = &a->members[m];
	struct rl_queue *q = &mb->q;
	int left = atomic_dec_return(&q->issued);	/* a full barrier */

	if (READ_ONCE(q->ref_due) && !left)
		mod_delayed_work(a->wq, &mb->ref_work, 0);
	else if (rl_queue_waiting(q))
		queue_work(a->wq, &q->work);
}

/*
 * The direct path: issue @qe at once, without the lock, if nothing waits
 * in @q, no tracker is attached, the policy picks in order and a slot is
 * free. Process context.
 */
static bool rl_queue_direct(struct rl_array *a, unsigned int m,
			    struct rl_qent *qe)
{
	struct rl_queue *q = &a->members[m].q;

	if (!READ_ONCE(a->policy)->in_order || READ_ONCE(q->trk) ||
	    READ_ONCE(q->ref_due) || rl_queue_waiting(q))
		return false;
	/*
	 * The slot, then (a full barrier) the tracker again: a reference
	 * read that saw no slot taken was started after the tracker was
	 * attached, and must run alone (trackio.c).
	 */
	if (atomic_inc_return(&q->issued) > a->queue_depth ||
	    READ_ONCE(q->trk)) {
		rl_queue_release(a, m);
		return false;
	}
	atomic64_inc(&q->dispatched[qe->class]);
	qe->chosen = 0;
	qe->issue_ns = U64_MAX;		/* none: the tracker ignores it */
	qe->predicted_ns = U64_MAX;
	qe->end_ns = U64_MAX;
	qe->submit(qe);
	return true;
}

/*
 * When an I/O issued to @q now would start on an in-order disk: now if
 * nothing is issued, else when the last I/O issued is predicted to end.
 * Under q->lock.
 */
static u64 rl_queue_start_ns(struct rl_queue *q, u64 now)
{
	return atomic_read(&q->issued) ? max(now, q->tail_ns) : now;
}

/*
 * The tail: with a calibrated tracker, q->tail_ns is when the last I/O
 * issued is predicted to end, each I/O starting when the one before it
 * ends. Each I/O keeps its predicted end in end_ns, in a clock that
 * q->tail_shift turns into the tail's: a completion earlier (or later)
 * than its end moves the tail and every end still pending by as much
 * (rl_queue_tail_done()), so errors do not add up while the member stays
 * busy.
 *
 * rl_queue_predict_tail(): move @q's tail past @qe, about to be issued
 * from the head at q->hs.sector, and return the prediction its completion
 * is observed with (rl_tracker_observe()): its access time if the disk is
 * idle, else U64_MAX (a queued I/O's time says nothing of the phase).
 * Under q->lock.
 */
static u64 rl_queue_predict_tail(struct rl_queue *q, struct rl_qent *qe)
{
	bool idle = !atomic_read(&q->issued);
	u64 start, t;

	qe->end_ns = U64_MAX;
	if (!rl_tracker_ready(q->trk))
		return U64_MAX;
	start = rl_queue_start_ns(q, qe->issue_ns);
	t = rl_tracker_predict(q->trk, q->hs.sector, start, rl_qent_sector(qe),
			       qe->sectors);
	if (t == U64_MAX)
		return U64_MAX;
	q->tail_ns = start + t;
	qe->end_ns = q->tail_ns + q->tail_shift;
	return idle ? t : U64_MAX;
}

/* @qe, in the tail, completed at @done_ns. Under q->lock. */
static void rl_queue_tail_done(struct rl_queue *q, const struct rl_qent *qe,
			       u64 done_ns)
{
	u64 early;

	if (qe->end_ns == U64_MAX)
		return;
	/* modulo 2^64: a late completion moves them later */
	early = qe->end_ns - q->tail_shift - done_ns;
	q->tail_ns -= early;
	q->tail_shift += early;
}

/*
 * Take the next entry of @q to issue, or NULL if no slot is open or
 * nothing waits: the class by rl_sched_class(), the entry by the array's
 * policy. Under q->lock.
 */
static struct rl_qent *rl_queue_pick(struct rl_array *a, struct rl_queue *q)
{
	struct rl_qent *qe;
	enum rl_class c;

	lockdep_assert_held(&q->lock);
	if (!rl_queue_open(a, q))
		return NULL;
	c = rl_sched_class(q->queued, &q->fg_run);
	if (c == RL_NR_CLASSES)
		return NULL;
	q->hs.now_ns = ktime_get_ns();
	qe = READ_ONCE(a->policy)->pick(&q->wait[c], &q->hs);
	list_del_init(&qe->node);
	qe->issue_ns = q->hs.now_ns;
	qe->predicted_ns = rl_queue_predict_tail(q, qe);
	WRITE_ONCE(q->queued[c], q->queued[c] - 1);
	atomic_inc(&q->issued);
	atomic64_inc(&q->dispatched[c]);
	q->hs.sector = rl_qent_sector(qe) + qe->sectors;
	return qe;
}

/* Whether another entry of @q may be issued now. Under q->lock. */
static bool rl_queue_more(struct rl_array *a, struct rl_queue *q)
{
	return rl_queue_open(a, q) && rl_queue_waiting(q);
}

/*
 * Issue what member @m's queue lets through now. Submits, so it runs in
 * process context (map, or a work item).
 */
static void rl_queue_run(struct rl_array *a, unsigned int m)
{
	struct rl_queue *q = &a->members[m].q;
	struct rl_qent *qe;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&q->lock, flags);
		qe = rl_queue_pick(a, q);
		spin_unlock_irqrestore(&q->lock, flags);
		if (!qe)
			return;
		qe->submit(qe);
	}
}

static void rl_queue_work(struct work_struct *ws)
{
	struct rl_member *mb = container_of(ws, struct rl_member, q.work);

	rl_queue_run(mb->a, mb->idx);
}

/* Set up member @m's queue: empty, head at the start of the data. */
void rl_queue_init(struct rl_array *a, unsigned int m)
{
	struct rl_member *mb = &a->members[m];
	struct rl_queue *q = &mb->q;
	unsigned int c;

	mb->a = a;
	mb->idx = m;
	spin_lock_init(&q->lock);
	for (c = 0; c < RL_NR_CLASSES; c++)
		INIT_LIST_HEAD(&q->wait[c]);
	q->hs.sector = a->geom.data_offset;
	q->hs.dir = 1;
	INIT_WORK(&q->work, rl_queue_work);
}

/**
 * rl_queue_add() - queue a member I/O on member @m
 * @a: the array
 * @m: member index
 * @qe: the entry; every field but node, seq and chosen filled in
 *
 * The entry is issued (->submit called) at once if the member has a free
 * slot, else when an issued I/O completes (rl_member_done()). Call it in
 * process context: it may submit. The caller has counted the I/O with
 * rl_member_start() and calls rl_member_done() when it ends.
 */
void rl_queue_add(struct rl_array *a, unsigned int m, struct rl_qent *qe)
{
	struct rl_queue *q = &a->members[m].q;
	struct rl_qent *next;
	unsigned long flags;
	bool more;

	if (rl_queue_direct(a, m, qe))
		return;
	qe->chosen = 0;
	spin_lock_irqsave(&q->lock, flags);
	qe->seq = q->seq++;
	list_add_tail(&qe->node, &q->wait[qe->class]);
	WRITE_ONCE(q->queued[qe->class], q->queued[qe->class] + 1);
	smp_mb();	/* queued before issued: see rl_queue_release() */
	/* a free slot: pick under the same lock */
	next = rl_queue_pick(a, q);
	more = next && rl_queue_more(a, q);
	spin_unlock_irqrestore(&q->lock, flags);
	if (!next)
		return;
	next->submit(next);
	if (more)
		rl_queue_run(a, m);
}

/**
 * rl_queue_cancel() - take an entry out of its queue before it is issued
 * @a: the array
 * @m: the member whose queue it was added to
 * @qe: the entry
 *
 * Return: true if @qe was waiting and is out now (it will not be
 * submitted); false if its queue has picked it (->submit is called or
 * being called) or it was never added. Any context.
 */
bool rl_queue_cancel(struct rl_array *a, unsigned int m, struct rl_qent *qe)
{
	struct rl_queue *q = &a->members[m].q;
	unsigned long flags;
	bool waiting;

	spin_lock_irqsave(&q->lock, flags);
	waiting = !list_empty(&qe->node);
	if (waiting) {
		list_del_init(&qe->node);
		WRITE_ONCE(q->queued[qe->class], q->queued[qe->class] - 1);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return waiting;
}

/*
 * An entry member @m's queue picked is not issued after all (it lost a
 * claim): its slot goes back as an I/O's end gives it. Any context.
 */
void rl_queue_unused(struct rl_array *a, unsigned int m)
{
	rl_queue_release(a, m);
}

/*
 * Switch the queues' policy (the "sched" message). The direct path keeps no
 * head state (fifo needs none), so a policy that orders by the head starts
 * from where each member's last I/O ended.
 */
void rl_queue_set_policy(struct rl_array *a, const struct rl_sched_policy *p)
{
	unsigned long flags;
	unsigned int m;

	WRITE_ONCE(a->policy, p);
	if (p->in_order)
		return;
	for (m = 0; m < a->geom.nr_members; m++) {
		struct rl_member *mb = &a->members[m];
		sector_t head = READ_ONCE(mb->head);

		spin_lock_irqsave(&mb->q.lock, flags);
		if (head)
			mb->q.hs.sector = head;
		spin_unlock_irqrestore(&mb->q.lock, flags);
	}
}

/* What waits in member @m's queue, by class, and how much is issued. */
void rl_queue_counts(struct rl_array *a, unsigned int m,
		     unsigned int queued[RL_NR_CLASSES], unsigned int *issued)
{
	struct rl_queue *q = &a->members[m].q;
	unsigned long flags;
	unsigned int c;

	spin_lock_irqsave(&q->lock, flags);
	for (c = 0; c < RL_NR_CLASSES; c++)
		queued[c] = q->queued[c];
	*issued = atomic_read(&q->issued);
	spin_unlock_irqrestore(&q->lock, flags);
}

/*
 * The member I/O @qe, issued through member @m's queue, ended: the head is
 * after it now, the tracker (if any) learns from its timing, and its slot
 * is free. Any context; the next entry is issued from a work item, and a
 * reference read that waited for the member to go idle goes now.
 */
void rl_member_done(struct rl_array *a, unsigned int m,
		    const struct rl_qent *qe)
{
	struct rl_member *mb = &a->members[m];
	struct rl_queue *q = &mb->q;
	sector_t sector = rl_qent_sector(qe);
	unsigned long flags;

	WRITE_ONCE(mb->head, sector + qe->sectors);
	atomic_dec(&mb->inflight);
	/* a tracker (never detached once loaded) learns from the timing */
	if (READ_ONCE(q->trk)) {
		u64 done = ktime_get_ns();

		spin_lock_irqsave(&q->lock, flags);
		rl_tracker_observe(q->trk, sector, qe->sectors, qe->issue_ns,
				   done, qe->predicted_ns);
		rl_queue_tail_done(q, qe, done);
		spin_unlock_irqrestore(&q->lock, flags);
	}
	rl_queue_release(a, m);
}

/* Entries walked behind the issued ones; a longer queue gets no prediction */
#define RL_TRACK_WAIT_MAX	16

/*
 * One I/O of @sectors at @sector on an in-order disk free from *@start_ns
 * with its head at *@head: both move past it. False if the tracker cannot
 * say. Under q->lock.
 */
static bool rl_queue_step(struct rl_queue *q, u64 *start_ns, sector_t *head,
			  sector_t sector, unsigned int sectors)
{
	u64 t = rl_tracker_predict(q->trk, *head, *start_ns, sector, sectors);

	if (t == U64_MAX)
		return false;
	*start_ns += t;
	*head = sector + sectors;
	return true;
}

/*
 * When and where the disk would be free after what @q has issued and,
 * in order, what waits in it (foreground first, as rl_sched_class() picks
 * while both wait): *@start_ns and *@head. False if the policy reorders
 * what waits, or too much waits, or the tracker cannot say. Under q->lock.
 */
static bool rl_queue_predict_free(struct rl_array *a, struct rl_queue *q,
				  u64 *start_ns, sector_t *head)
{
	unsigned int c, n = 0;
	struct rl_qent *qe;

	*start_ns = rl_queue_start_ns(q, *start_ns);
	*head = q->hs.sector;
	if (!rl_queue_waiting(q))
		return true;
	if (!READ_ONCE(a->policy)->in_order)
		return false;
	for (c = 0; c < RL_NR_CLASSES; c++) {
		list_for_each_entry(qe, &q->wait[c], node) {
			if (++n > RL_TRACK_WAIT_MAX ||
			    !rl_queue_step(q, start_ns, head,
					   rl_qent_sector(qe), qe->sectors))
				return false;
		}
	}
	return true;
}

/*
 * The tracker's predicted time from now until @sectors at @sector on
 * member @m would complete if queued now, or U64_MAX: not calibrated, a
 * reference read due or in flight, or entries waiting in a queue whose
 * policy reorders them (or more than RL_TRACK_WAIT_MAX). The read is
 * predicted to start where and when the disk is free of what the member
 * has issued and of what waits before it: the disk serves its I/Os in
 * order, as a disk whose own queue is kept short does (paper 002,
 * section 3; Documentation/dm-raidlab.rst, "I/O behaviour").
 */
u64 __rl_track_predict(struct rl_array *a, unsigned int m, sector_t sector,
		       unsigned int sectors)
{
	struct rl_queue *q = &a->members[m].q;
	unsigned long flags;
	u64 now, end, t = U64_MAX;
	sector_t head;

	spin_lock_irqsave(&q->lock, flags);
	if (!q->ref_due && !q->ref_busy && rl_tracker_ready(q->trk)) {
		now = ktime_get_ns();
		end = now;
		if (rl_queue_predict_free(a, q, &end, &head) &&
		    rl_queue_step(q, &end, &head, sector, sectors))
			t = end - now;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return t;
}

/*
 * Let dm send what lies past the end of @bio's chunk as another bio;
 * @lsector is its first sector (rl_pb(bio)->lsector, which the caller has).
 */
void rl_trim_to_chunk(struct rl_array *a, struct bio *bio, sector_t lsector)
{
	sector_t left = rl_chunk_left(&a->geom, lsector);

	if (bio_sectors(bio) > left)
		dm_accept_partial_bio(bio, left);
}

/* Issue a remapped bio at the replica its queue's policy chose. */
static void rl_submit_remapped(struct rl_qent *qe)
{
	struct rl_bio *pb = container_of(qe, struct rl_bio, qe);
	struct bio *bio = dm_bio_from_per_bio_data(pb, sizeof(*pb));

	bio->bi_iter.bi_sector = rl_qent_sector(qe);
	/* dm accounts it: map returned DM_MAPIO_SUBMITTED */
	rl_member_submit(pb->a, pb->member, bio);
}

/*
 * @bio pointed at @msector of member @m, as mapped (rl_restore() puts it
 * back), and counted on the member.
 */
static void __rl_remap_prepare(struct rl_array *a, struct bio *bio,
			       struct rl_bio *pb, unsigned int m,
			       sector_t msector)
{
	rl_bio_record(bio, &pb->rec);
	pb->a = a;
	pb->member = m;
	pb->dev = a->members[m].dev;
	bio_set_dev(bio, pb->dev->bdev);
	bio->bi_iter.bi_sector = msector;
	rl_member_start(a, m, bio_op(bio) == REQ_OP_READ ? RL_DATA_READ :
			      bio_op(bio) == REQ_OP_WRITE ? RL_DATA_WRITE :
			      RL_NR_KINDS);
}

/*
 * Send a data bio to member @m, sector @msector, through the member's
 * queue, and count it; the map function then returns DM_MAPIO_SUBMITTED.
 * The bio is recorded first so that a failed read can be served again
 * (rl_restore()). Process context.
 */
void rl_remap(struct rl_array *a, struct bio *bio, unsigned int m,
	      sector_t msector)
{
	/* one place: the entry keeps no pointer to it */
	rl_remap_alts(a, bio, m, &msector, 1);
}

/*
 * rl_remap() with rotational replicas: @bio may be served at any of the
 * @nr member sectors @alt (alt[0] first; with more than one the caller
 * keeps @alt until the bio ends), the queue policy picks one (rlook,
 * rsatf; the others take alt[0]) and the bio is issued there.
 */
void rl_remap_alts(struct rl_array *a, struct bio *bio, unsigned int m,
		   const sector_t *alt, unsigned int nr)
{
	struct rl_bio *pb = rl_pb(bio);

	__rl_remap_prepare(a, bio, pb, m, alt[0]);
	rl_qent_init(&pb->qe, alt[0], bio_sectors(bio), op_is_write(bio_op(bio)),
		     RL_FG, rl_submit_remapped);
	if (nr > 1) {
		pb->qe.alt = alt;
		pb->qe.nr_alts = nr;
	}
	rl_queue_add(a, m, &pb->qe);
}

/*
 * The first half of rl_remap(), for a caller that issues @bio through a
 * queue entry of its own (svc/dup.h).
 */
void rl_remap_prepare(struct rl_array *a, struct bio *bio, unsigned int m,
		      sector_t msector)
{
	__rl_remap_prepare(a, bio, rl_pb(bio), m, msector);
}

void rl_bio_record(struct bio *bio, struct rl_bio_record *rec)
{
	rec->iter = bio->bi_iter;
	rec->bdev = bio->bi_bdev;
	rec->flags = bio->bi_flags;
}

/*
 * Put a bio that ended back as rl_bio_record() found it, to be served
 * again: its iterator, device and flags, and its remaining count, which a
 * lower device that split and chained it has used up (what
 * dm_bio_restore() does for dm-raid1). Without that, a retry that is split
 * again would end the bio when all but one of its pieces had.
 */
void rl_bio_restore(struct bio *bio, const struct rl_bio_record *rec)
{
	bio->bi_iter = rec->iter;
	bio->bi_bdev = rec->bdev;
	bio->bi_flags = rec->flags;
	atomic_set(&bio->__bi_remaining, 1);
	bio->bi_status = BLK_STS_OK;
}

/* A remapped bio that failed, as rl_remap() found it, to be served again. */
void rl_restore(struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);

	rl_bio_restore(bio, &pb->rec);
	pb->member = RL_NONE;
}

/*
 * A bio that dm sent once per member (ti->num_flush_bios, and a mirror's
 * num_discard_bios): bio number i goes to member i, at the same offset. A
 * failed member has nothing left to flush or discard.
 */
int rl_map_duplicate(struct rl_array *a, struct bio *bio)
{
	unsigned int m = dm_bio_get_target_bio_nr(bio);

	rl_pb(bio)->member = RL_NONE;
	if (m >= a->geom.nr_members || rl_member_failed(a, m)) {
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	rl_pb(bio)->dev = a->members[m].dev;
	bio_set_dev(bio, a->members[m].dev->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = a->geom.data_offset + rl_pb(bio)->lsector;
	/* a replaced role's: to both disks (svc/replace.h) */
	if (rl_replace_dup(a, m, bio))
		return DM_MAPIO_SUBMITTED;
	return DM_MAPIO_REMAPPED;
}

/*
 * The end of a bio remapped to a member: account it, and if it is a read
 * that failed while the data survives elsewhere, fail the member and put
 * the bio back as it arrived. Returns true if the caller must serve the bio
 * again (and return DM_ENDIO_INCOMPLETE).
 */
bool rl_end_remapped(struct rl_array *a, struct bio *bio, blk_status_t error)
{
	struct rl_bio *pb = rl_pb(bio);

	if (pb->member == RL_NONE)
		return false;
	rl_member_done(a, pb->member, &pb->qe);
	if (!rl_status_fails_member(error) || bio_op(bio) == REQ_OP_DISCARD ||
	    bio->bi_opf & REQ_RAHEAD)
		return false;

	rl_member_fail_io(a, pb->member, pb->dev,
			  op_is_write(bio_op(bio)) ? "write error" : "read error");
	if (bio_op(bio) != REQ_OP_READ || !rl_array_alive(a))
		return false;
	rl_restore(bio);
	return true;
}
