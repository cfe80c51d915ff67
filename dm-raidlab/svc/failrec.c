// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab failure record: no access that saw a member fail completes
 * before the failure is durable.
 *
 * A member failure (rl_member_fail()) raises a->fail_seq, under
 * fail_lock with the member's bit in a->failed, and queues a->fail_work,
 * which writes every failed member as RL_MS_FAILED to the metadata with
 * the event count raised (so the failed disk's own superblock is stale
 * from then on and refused at assembly) and then sets a->fail_committed
 * to the sequence number it recorded. Until then:
 *
 *   - the core holds the completion of every write and flush bio
 *     (rl_failrec_hold()), whether the bio saw the failure or ran degraded
 *     because of it, as md holds bios while MD_SB_CHANGE_PENDING is set;
 *   - a scheme that retires durable state after an access (the stripe
 *     engine's journal record and intent count, a mirror write's intent
 *     count) waits with rl_failrec_wait() before it does; one that works
 *     in process context (plog's workers, after a failed I/O group)
 *     sleeps in rl_failrec_sync().
 *
 * Without a metadata device there is nothing durable to write: the record
 * is only the sequence number, and waiters go on as soon as the work runs.
 * If the commit fails the metadata is read-only (writes are refused at
 * map) and waiters are released with BLK_STS_IOERR: a write whose failure
 * could not be recorded is never reported as done.
 *
 * The work runs on a->wq, apart from the sync worker, so a resync or a
 * rate-limited scrub never delays the record.
 */
#include "metadata.h"
#include "sync_int.h"
#include "../raidlab.h"

/* Whether a failure is known in memory but not yet durable. Any context. */
static bool rl_failrec_pending(struct rl_array *a)
{
	return atomic64_read(&a->fail_seq) != READ_ONCE(a->fail_committed);
}

/*
 * Write every failed member as failed, events raised. Process context.
 *
 * a->failed is read under the metadata lock: a spare that took a failed
 * role (the sync worker's lifecycle) clears the role's bit before it
 * writes the role as rebuilding under that lock, so a failure read here
 * is never older than the state the last commit wrote. Read before the
 * lock, a stale bit would write a rebuilding role back as failed, and
 * skip the spare's superblock in every later commit.
 */
static int rl_failrec_commit(struct rl_array *a)
{
	struct rl_md_state *st;
	unsigned long failed;
	unsigned int m;
	int r;

	if (!a->md)
		return 0;
	rl_md_lock(a->md);
	failed = READ_ONCE(a->failed);
	st = rl_md_state(a->md);
	/*
	 * Only the failed members change: a rebuilding member's cursor is
	 * checkpointed by the sync worker after it flushed what lies below.
	 */
	for_each_set_bit(m, &failed, a->geom.nr_members) {
		st->members[m].state = RL_MS_FAILED;
		st->members[m].cursor = 0;
	}
	r = rl_md_commit(a->md, true);
	rl_md_unlock(a->md);
	if (r)
		DMERR("%s: cannot record member failures in the metadata: held writes fail",
		      dm_table_device_name(a->ti->table));
	return r;
}

static void rl_failrec_work(struct work_struct *ws)
{
	struct rl_array *a = container_of(ws, struct rl_array, fail_work);
	struct rl_commit_waiter *w, *n;
	blk_status_t st = BLK_STS_OK;
	LIST_HEAD(list);
	u64 seq;

	/*
	 * Take the waiters first: each saw at most the failures counted by
	 * now, so recording those releases them all.
	 */
	spin_lock_irq(&a->fail_lock);
	list_splice_init(&a->fail_waiters, &list);
	spin_unlock_irq(&a->fail_lock);
	smp_mb();	/* the splice before the read of fail_seq */
	seq = atomic64_read(&a->fail_seq);
	if (seq != READ_ONCE(a->fail_committed)) {
		if (rl_failrec_commit(a))
			st = BLK_STS_IOERR;
		else
			WRITE_ONCE(a->fail_committed, seq);
	}
	list_for_each_entry_safe(w, n, &list, node) {
		list_del_init(&w->node);
		w->fn(w, st);
	}
}

void rl_failrec_init(struct rl_array *a)
{
	spin_lock_init(&a->fail_lock);
	INIT_LIST_HEAD(&a->fail_waiters);
	INIT_WORK(&a->fail_work, rl_failrec_work);
	atomic64_set(&a->fail_seq, 0);
	a->fail_committed = 0;
	a->fail_hook[RL_FAIL_RECORD] = rl_failrec_kick;
}

/*
 * A member failure was counted in a->fail_seq (rl_member_fail_io()):
 * record it. Any context; a->wq must exist.
 */
void rl_failrec_kick(struct rl_array *a)
{
	queue_work(a->wq, &a->fail_work);
}

bool rl_failrec_wait(struct rl_array *a, struct rl_commit_waiter *w,
		     void (*fn)(struct rl_commit_waiter *w, blk_status_t st))
{
	unsigned long flags;

	if (!rl_failrec_pending(a))
		return true;
	w->a = a;
	w->fn = fn;
	spin_lock_irqsave(&a->fail_lock, flags);
	list_add_tail(&w->node, &a->fail_waiters);
	spin_unlock_irqrestore(&a->fail_lock, flags);
	/* the work may have taken its list before ours went in: run it again */
	queue_work(a->wq, &a->fail_work);
	return false;
}

struct rl_failrec_sync_waiter {
	struct rl_commit_waiter w;
	struct completion done;
	blk_status_t st;
};

static void rl_failrec_sync_done(struct rl_commit_waiter *w, blk_status_t st)
{
	struct rl_failrec_sync_waiter *sw =
		container_of(w, struct rl_failrec_sync_waiter, w);

	sw->st = st;
	complete(&sw->done);
}

int rl_failrec_sync(struct rl_array *a)
{
	struct rl_failrec_sync_waiter sw;

	init_completion(&sw.done);
	sw.st = BLK_STS_OK;
	if (rl_failrec_wait(a, &sw.w, rl_failrec_sync_done))
		return 0;
	wait_for_completion(&sw.done);
	return blk_status_to_errno(sw.st);
}

static void rl_failrec_release(struct rl_commit_waiter *w, blk_status_t st)
{
	struct rl_bio *pb = container_of(w, struct rl_bio, cw);
	struct bio *bio = dm_bio_from_per_bio_data(pb, sizeof(*pb));

	if (st)
		bio->bi_status = st;
	bio_endio(bio);		/* the core's end_io lets it pass now */
}

bool rl_failrec_hold(struct rl_array *a, struct bio *bio, blk_status_t error)
{
	struct rl_bio *pb;

	if (!op_is_write(bio_op(bio)) && !(bio->bi_opf & REQ_PREFLUSH))
		return false;
	pb = rl_pb(bio);
	pb->held = true;
	bio->bi_status = error;
	if (rl_failrec_wait(a, &pb->cw, rl_failrec_release)) {
		pb->held = false;
		return false;
	}
	return true;
}

int rl_failrec_load(struct rl_array *a)
{
	unsigned long failed = READ_ONCE(a->failed);
	struct rl_md_state *st;
	bool news = false;
	unsigned int m;

	if (!a->md)
		return 0;
	st = rl_md_state(a->md);
	for_each_set_bit(m, &failed, a->geom.nr_members)
		if (st->members[m].state != RL_MS_FAILED)
			news = true;
	if (!news)
		return 0;
	DMWARN("%s: members %*pbl missing at load recorded as failed",
	       dm_table_device_name(a->ti->table), a->geom.nr_members, &failed);
	return rl_failrec_commit(a);
}

/* Write the state of every member to the metadata. Caller holds rl_md_lock(). */
void rl_sync_state_members(struct rl_array *a, struct rl_md_state *st)
{
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		if (test_bit(m, &a->failed)) {
			st->members[m].state = RL_MS_FAILED;
		} else if (test_bit(m, &a->rebuilding)) {
			st->members[m].state = RL_MS_REBUILDING;
			st->members[m].cursor = READ_ONCE(a->rebuild_cursor[m]);
		} else {
			st->members[m].state = RL_MS_IN_SYNC;
			st->members[m].cursor = 0;
		}
	}
}
