// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab background jobs and the failure lifecycle.
 *
 * One worker per array runs, a range at a time through the scheme's
 * ->sync_range, whichever job comes first:
 *
 *   1. the lifecycle: a spare (or a replacement disk found at load) takes
 *      a failed member's role and starts rebuilding (failrec.c has written
 *      the failure to the metadata already);
 *   2. resync of the regions the write-intent bitmap left dirty at an
 *      unclean shutdown;
 *   3. resync of a new array, from resync_cursor on;
 *   4. rebuild of each rebuilding member, from its cursor on;
 *   5. check or repair, when asked for by message.
 *
 * Progress is in the status line. With a metadata device, cursors are
 * checkpointed every RL_SYNC_CHECKPOINT_MS and at the end of a job, so a
 * crash resumes a resync or a rebuild near where it stopped; check and
 * repair are not resumed. The worker stops at presuspend and is waited for
 * at postsuspend. Background member I/O goes through the member queues'
 * background class, so foreground I/O keeps priority; a rate limit
 * (message sync_rate) bounds it further.
 *
 * Beside the range worker, on a workqueue of its own so that it is never
 * behind a range (nor behind one under memory pressure: each has its
 * rescuer), the item worker runs the scheme's own background work
 * (->get_work, ->do_work: plog's region repairs) one item at a time,
 * whenever the scheme asks for a pass (rl_sync_want_work()).
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "bbl.h"
#include "metadata.h"
#include "replace.h"
#include "sync_int.h"
#include "../raidlab.h"

#define RL_SYNC_CHECKPOINT_MS	2000

const char *const rl_sync_names[RL_NR_SYNC_JOBS] = {
	[RL_SYNC_RESYNC] = "resync",
	[RL_SYNC_REBUILD] = "recover",
	[RL_SYNC_CHECK] = "check",
	[RL_SYNC_REPAIR] = "repair",
	[RL_SYNC_REPLACE] = "recover",	/* md's word for a replacement's copy */
};

/* rl_unreadable_at(), with the sets it read (@reb: rebuilding) */
unsigned long __rl_unreadable_at(struct rl_array *a, sector_t msector,
				 unsigned long failed, unsigned long reb)
{
	unsigned long bad = failed;
	unsigned int m;

	smp_rmb();	/* the cursors after the sets: a new disk's is 0 */
	for_each_set_bit(m, &reb, a->geom.nr_members)
		if (msector >= READ_ONCE(a->rebuild_cursor[m]))
			__set_bit(m, &bad);
	return bad;
}

bool rl_sync_suspect(struct rl_array *a, sector_t msector)
{
	struct rl_sync *s = rl_sync(a);

	if (msector >= READ_ONCE(s->resync_cursor))
		return true;
	return s->dirty && READ_ONCE(s->dirty_left) &&
	       test_bit(msector >> s->region_shift, s->dirty);
}

/*
 * A range of a job is done: move its cursor. Schemes whose foreground
 * writes depend on the cursor (the stripe engine skips a rebuilding member
 * above it) call this before they let foreground I/O to the range go on;
 * the worker calls it again after ->sync_range, which changes nothing.
 */
void rl_sync_advance(struct rl_array *a, const struct rl_sync_req *req)
{
	struct rl_sync *s = rl_sync(a);
	sector_t end = req->msector + req->len;

	switch (req->job) {
	case RL_SYNC_REBUILD:
		if (READ_ONCE(a->rebuild_cursor[req->target]) < end)
			WRITE_ONCE(a->rebuild_cursor[req->target], end);
		break;
	case RL_SYNC_RESYNC:
		if (req->msector == READ_ONCE(s->resync_cursor))
			WRITE_ONCE(s->resync_cursor, end);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------------------
 * The lifecycle: failures to the metadata, spares to failed roles
 */

/*
 * Checkpoint the cursors. What the jobs wrote below them must be durable
 * first, or a crash could keep a cursor over rows still in a volatile
 * cache: flush every member that is written.
 */
static void rl_sync_checkpoint(struct rl_array *a, bool members_changed)
{
	struct rl_sync *s = rl_sync(a);
	struct rl_md_state *st;

	s->last_checkpoint = jiffies;
	if (!a->md)
		return;
	rl_members_flush_fail(a, GENMASK(a->geom.nr_members - 1, 0),
			      "flush failed");
	rl_md_lock(a->md);
	st = rl_md_state(a->md);
	rl_sync_state_members(a, st);
	st->resync_cursor = READ_ONCE(s->resync_cursor);
	st->mismatches = s->mismatches;
	if (rl_md_commit(a->md, members_changed))
		DMERR("%s: metadata commit failed", dm_table_device_name(a->ti->table));
	rl_md_unlock(a->md);
}

/* A spare @dev, or the replacement in @m's slot (NULL), rebuilds role @m. */
static void rl_sync_start_rebuild(struct rl_array *a, unsigned int m,
				  struct dm_dev *dev)
{
	rl_member_set_dev(a, m, dev);
	/* the old disk's bad blocks are not the new one's */
	rl_bbl_reset(a, m);
	DMINFO("%s: member %u (%s) rebuilding", dm_table_device_name(a->ti->table),
	       m, a->members[m].dev->name);
}

/*
 * The failures in @failed not yet in *@told, which is updated: roles no
 * longer failed (a spare took them) are forgotten, so that a role failing
 * again is told again. Pure.
 */
unsigned long rl_sync_untold(unsigned long *told, unsigned long failed)
{
	unsigned long newly;

	*told &= failed;
	newly = failed & ~*told;
	*told |= newly;
	return newly;
}

/*
 * The failed members now, waited for until they are recorded (*@recorded:
 * the record is durable), and the scheme told of those it was not
 * (->member_failed). Read under fail_lock, where rl_member_fail_io() sets
 * a failure and counts it: every failure read here is pending in
 * failrec.c until recorded, so rl_failrec_sync() waits for it. A record
 * that could not be written leaves the metadata failed; the scheme is
 * then not told, as its fix-ups could not hold write-intent bits for
 * their writes.
 */
static unsigned long rl_sync_tell_scheme(struct rl_array *a, bool *recorded)
{
	struct rl_sync *s = rl_sync(a);
	unsigned long failed, newly;

	spin_lock_irq(&a->fail_lock);
	failed = a->failed;
	spin_unlock_irq(&a->fail_lock);
	*recorded = !failed ||
		    (!rl_failrec_sync(a) && !(a->md && rl_md_failed(a->md)));
	if (!a->ops->member_failed)
		return failed;
	newly = rl_sync_untold(&s->told, failed);
	if (newly && *recorded)
		a->ops->member_failed(a, newly);
	return failed;
}

/*
 * Tell the scheme of new failures, record them, and give failed roles to
 * replacements and spares: only roles whose failure the scheme was told
 * of, so that no failure goes untold; a later one is the next pass's (it
 * kicked the worker). Returns true if the membership changed.
 *
 * A role goes to a spare only once its failure is durable, whether or not
 * the scheme is told: until then the metadata may still hold the role in
 * sync, and a crash after the spare's superblock took the role would
 * assemble the blank spare as in sync.
 */
static bool rl_sync_lifecycle(struct rl_array *a)
{
	bool changed = false, recorded;
	unsigned long failed = rl_sync_tell_scheme(a, &recorded);
	unsigned int m;
	int j;
	u8 uuid[16];

	/*
	 * A rebuilding member that fails is failed, not rebuilding. The
	 * failure itself is in the metadata already (failrec.c).
	 */
	for_each_set_bit(m, &failed, a->geom.nr_members) {
		if (!test_and_clear_bit(m, &a->rebuilding))
			continue;
		changed = true;
		/*
		 * Its disk was good only below its cursor: the held
		 * regions do not say what it lacks, unless it was being
		 * re-added (they covered its whole absence, and do still:
		 * it is failed). After the full barrier above, so that
		 * rl_md_holding() finds it failed once out of a->readd.
		 */
		if (!test_and_clear_bit(m, &a->readd))
			set_bit(m, &rl_sync(a)->untracked);
	}
	/* before the spares go: a replace whose old disk failed lets its go */
	rl_replace_lifecycle(a);

	if (a->md && recorded && rl_array_alive(a)) {
		if (rl_sync_readd(a, failed))
			changed = true;
		for_each_set_bit(m, &failed, a->geom.nr_members) {
			if (test_and_clear_bit(m, &a->replacements)) {
				clear_bit(m, &rl_sync(a)->untracked);
				rl_sync_start_rebuild(a, m, NULL);
				changed = true;
			}
		}
		failed &= READ_ONCE(a->failed);	/* less the replaced roles */
		for_each_set_bit(m, &failed, a->geom.nr_members) {
			j = rl_free_spare(a);
			if (j < 0)
				break;	/* no spare left */
			rl_md_spare_uuid(a->md, j, uuid);
			rl_md_lock(a->md);
			memcpy(rl_md_state(a->md)->members[m].dev_uuid, uuid, 16);
			rl_md_unlock(a->md);
			/*
			 * The failed disk's I/O that is still in flight carries
			 * its own bdev, and its errors are charged to it, not
			 * to the spare (rl_member_fail_io()); its reference is
			 * dropped with the table.
			 */
			a->retired[j] = a->members[m].dev;
			clear_bit(m, &rl_sync(a)->untracked);
			rl_sync_start_rebuild(a, m, a->spares[j]);
			a->spares[j] = NULL;
			changed = true;
		}
	}
	if (changed) {
		rl_sync_checkpoint(a, true);
		schedule_work(&a->event_work);
	}
	return changed;
}

/* ------------------------------------------------------------------------
 * The worker
 */

/* Choose the next range. Called with the lock held. */
bool rl_sync_next(struct rl_array *a, struct rl_sync_req *req, bool *dirty)
{
	struct rl_sync *s = rl_sync(a);
	sector_t total = rl_sync_total(a);
	unsigned long reb;
	unsigned int m;
	u64 r;

	memset(req, 0, sizeof(*req));
	req->len = RL_SYNC_UNIT;
	*dirty = false;
	if (!a->ops->sync_range || !rl_array_alive(a))
		return false;

	/* resyncs need every member: with one failed there is no parity to fix */
	if (!READ_ONCE(a->failed) && !READ_ONCE(a->rebuilding)) {
		if (s->dirty && s->dirty_left) {
			r = find_next_bit(s->dirty, s->nr_regions,
					  s->dirty_pos >> s->region_shift);
			if (r < s->nr_regions) {
				req->job = RL_SYNC_RESYNC;
				req->msector = max_t(sector_t, s->dirty_pos,
						     r << s->region_shift);
				req->len = min3((sector_t)RL_SYNC_UNIT,
						((r + 1) << s->region_shift) - req->msector,
						total - req->msector);
				*dirty = true;
				return true;
			}
		}
		if (s->resync_cursor < total) {
			req->job = RL_SYNC_RESYNC;
			req->msector = s->resync_cursor;
			req->len = min_t(sector_t, RL_SYNC_UNIT, total - req->msector);
			return true;
		}
	}

	/* a rebuild reads every other member (a mirror: one of them) */
	reb = READ_ONCE(a->rebuilding);
	if (!rl_survives(a, reb | READ_ONCE(a->failed)))
		reb = 0;
	for_each_set_bit(m, &reb, a->geom.nr_members) {
		req->job = RL_SYNC_REBUILD;
		req->target = m;
		req->readd = test_bit(m, &a->readd);
		req->msector = READ_ONCE(a->rebuild_cursor[m]);
		req->len = min_t(sector_t, RL_SYNC_UNIT, total - req->msector);
		return true;
	}
	if (rl_replace_next(a, req))
		return true;

	if (s->scrub_wanted && !READ_ONCE(a->failed)) {
		req->job = s->scrub_job;
		req->msector = s->scrub_cursor;
		req->len = min_t(sector_t, RL_SYNC_UNIT, total - req->msector);
		return true;
	}
	return false;
}

/*
 * The dirty resync has done [@start, @end): clear the bit of every region
 * it covers whole. A scheme may do more than the one region asked for (a
 * plog region spans several intent regions): those are done too, and the
 * search for the next dirty bit starts past them, so their bits must not
 * be left behind. Called with the lock held.
 */
static void rl_sync_dirty_done(struct rl_array *a, sector_t start, sector_t end)
{
	struct rl_sync *s = rl_sync(a);
	sector_t total = rl_sync_total(a);
	u64 r;

	s->dirty_pos = end;
	for (r = start >> s->region_shift; r < s->nr_regions; r++) {
		if (end < min_t(sector_t, (r + 1) << s->region_shift, total))
			break;
		if (test_and_clear_bit(r, s->dirty)) {
			s->dirty_left--;
			/* the metadata kept its bit until now */
			rl_md_intent_resynced(a->md, r, 1);
		}
	}
}

/* The range in @req is done: move the job on. Called with the lock held. */
static bool rl_sync_done(struct rl_array *a, const struct rl_sync_req *req)
{
	struct rl_sync *s = rl_sync(a);
	sector_t end = req->msector + req->len, total = rl_sync_total(a);
	bool finished = false;

	rl_sync_advance(a, req);
	switch (req->job) {
	case RL_SYNC_RESYNC:
		if (!s->dirty_job) {
			finished = s->resync_cursor >= total;
			break;
		}
		rl_sync_dirty_done(a, req->msector, end);
		finished = !s->dirty_left;
		break;
	case RL_SYNC_REBUILD:
		if (end >= total) {
			clear_bit(req->target, &a->rebuilding);
			DMINFO("%s: member %u rebuilt",
			       dm_table_device_name(a->ti->table), req->target);
			if (test_bit(req->target, &a->readd))
				rl_sync_readd_done(a, req->target);
			finished = true;
		}
		break;
	case RL_SYNC_REPLACE:
		finished = rl_replace_done(a, req);
		break;
	case RL_SYNC_CHECK:
	case RL_SYNC_REPAIR:
		s->mismatches += req->mismatches;
		s->scrub_cursor = end;
		if (end >= total) {
			s->scrub_wanted = false;
			s->scrub_done = true;
			DMINFO("%s: %s complete: %llu mismatched sectors",
			       dm_table_device_name(a->ti->table),
			       rl_sync_names[req->job], s->mismatches);
			finished = true;
		}
		break;
	default:
		break;
	}
	return finished;
}

/* Sleep long enough that @sectors keep within the rate limit. */
static void rl_sync_throttle(struct rl_sync *s, sector_t sectors, u64 start_ns)
{
	unsigned int rate = READ_ONCE(s->rate_kbps);
	u64 want_ns, took;

	if (!rate)
		return;
	want_ns = div_u64((u64)sectors * 512 * NSEC_PER_SEC, (u64)rate * 1024);
	took = ktime_get_ns() - start_ns;
	if (want_ns > took)
		/* a new rate, frozen or idle (messages) end the sleep */
		wait_event_timeout(s->wait, READ_ONCE(s->stopped) ||
				   READ_ONCE(s->frozen) ||
				   READ_ONCE(s->rate_kbps) != rate ||
				   ((READ_ONCE(s->job) == RL_SYNC_CHECK ||
				     READ_ONCE(s->job) == RL_SYNC_REPAIR) &&
				    !READ_ONCE(s->scrub_wanted)),
				   nsecs_to_jiffies(want_ns - took));
}

/*
 * Run the range @req: the replace's copy, or the scheme's. On an error,
 * returns it: member errors became failures, which the lifecycle takes
 * up; any other error stops the work until the next resume.
 */
static int rl_sync_run_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_sync *s = rl_sync(a);
	unsigned long failed = READ_ONCE(a->failed);
	int r;

	r = req->job == RL_SYNC_REPLACE ? rl_replace_range(a, req) :
	    a->ops->sync_range(a, req);
	if (r && READ_ONCE(a->failed) == failed) {
		DMERR("%s: %s stopped at sector %llu: %d",
		      dm_table_device_name(a->ti->table), rl_sync_names[req->job],
		      (unsigned long long)req->msector, r);
		spin_lock_irq(&s->lock);
		s->scrub_wanted = false;
		s->stopped = true;
		spin_unlock_irq(&s->lock);
	}
	return r;
}

static void rl_sync_work(struct work_struct *ws)
{
	struct rl_sync *s = container_of(ws, struct rl_sync, work);
	struct rl_array *a = s->a;
	struct rl_sync_req req;
	bool finished, members, dirty, started;
	u64 t0, skipped;

	for (;;) {
		spin_lock_irq(&s->lock);
		s->kicked = false;
		spin_unlock_irq(&s->lock);
		rl_sync_lifecycle(a);

		spin_lock_irq(&s->lock);
		if (s->stopped || s->frozen || !rl_sync_next(a, &req, &dirty)) {
			if (s->kicked && !s->stopped) {
				/* a failure or a message came in meanwhile */
				spin_unlock_irq(&s->lock);
				continue;
			}
			s->active = false;
			s->busy = false;
			spin_unlock_irq(&s->lock);
			wake_up_all(&s->wait);
			return;
		}
		/* a job that starts is an event (its end is one too) */
		started = !s->active || s->job != req.job ||
			  s->target != req.target;
		s->active = true;
		s->dirty_job = dirty;
		s->job = req.job;
		s->target = req.target;
		s->cursor = req.msector;
		spin_unlock_irq(&s->lock);
		if (started)
			schedule_work(&a->event_work);

		t0 = ktime_get_ns();
		skipped = rl_sync_readd_skipped(a, &req);
		if (rl_sync_run_range(a, &req))
			continue;

		spin_lock_irq(&s->lock);
		finished = rl_sync_done(a, &req);
		s->cursor = req.msector + req.len;
		spin_unlock_irq(&s->lock);

		if (finished && req.job == RL_SYNC_REPLACE)
			rl_replace_finish(a);	/* the swap commits the members */
		members = finished && req.job == RL_SYNC_REBUILD;
		if (finished || time_after(jiffies, s->last_checkpoint +
					   msecs_to_jiffies(RL_SYNC_CHECKPOINT_MS)))
			rl_sync_checkpoint(a, members);
		if (finished)	/* dm-raid's too: a job's end is an event */
			schedule_work(&a->event_work);
		/* what a re-add skipped costs no I/O */
		skipped = rl_sync_readd_skipped(a, &req) - skipped;
		rl_sync_throttle(s, req.len - min_t(u64, skipped, req.len), t0);
		cond_resched();
	}
}

/* The scheme's work items, until it has none. */
static void rl_sync_item_work(struct work_struct *ws)
{
	struct rl_sync *s = container_of(ws, struct rl_sync, item_work);
	struct rl_array *a = s->a;
	struct rl_work w;

	while (a->ops->get_work(a, &w)) {
		a->ops->do_work(a, &w);
		cond_resched();
	}
}

/*
 * The service exists from rl_sync_init() to rl_sync_free(), which comes
 * after the scheme's ->dtr: a scheme asking before it exists (from its
 * ->ctr) has its pass at the first resume.
 */
void rl_sync_want_work(struct rl_array *a)
{
	/* pairs with rl_sync_init()'s release: the workqueue is there */
	struct rl_sync *s = smp_load_acquire(&a->sync);

	if (s && a->ops->get_work)
		queue_work(s->item_wq, &s->item_work);
}

void rl_sync_flush_work(struct rl_array *a)
{
	/* pairs with rl_sync_init()'s release */
	struct rl_sync *s = smp_load_acquire(&a->sync);

	if (s)
		flush_work(&s->item_work);
}

/* Run the worker unless it runs already or the array is suspended. */
void rl_sync_kick(struct rl_array *a)
{
	struct rl_sync *s = rl_sync(a);
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	s->kicked = true;
	if (!s->stopped && !s->busy) {
		s->busy = true;
		queue_work(s->wq, &s->work);
	}
	spin_unlock_irqrestore(&s->lock, flags);
}

/* Spare @j, held by the scheme, may take a role again (spare.c). */
void rl_sync_release_spare(struct rl_array *a, unsigned int j)
{
	clear_bit(j, &a->spares_held);
	if (a->sync)
		rl_sync_kick(a);
}

/* ------------------------------------------------------------------------
 * Set-up, suspend and resume (status and messages: sync_ctl.c)
 */

/*
 * Load the dirty regions. The metadata keeps their bits set until
 * rl_md_intent_resynced(), so a crash before their resync finds them again.
 */
static int rl_sync_load_dirty(struct rl_array *a, struct rl_sync *s)
{
	const struct rl_md_state *st = rl_md_state(a->md);
	const unsigned long *d = rl_md_dirty_at_load(a->md);

	s->region_shift = st->region_shift;
	s->nr_regions = st->nr_regions;
	if (!d || !a->ops->sync_range)
		return 0;
	s->dirty = bitmap_zalloc(s->nr_regions, GFP_KERNEL);
	if (!s->dirty)
		return -ENOMEM;
	bitmap_copy(s->dirty, d, s->nr_regions);
	s->dirty_left = bitmap_weight(s->dirty, s->nr_regions);
	if (s->dirty_left)
		DMINFO("%s: unclean shutdown: %llu dirty regions to resync",
		       dm_table_device_name(a->ti->table), s->dirty_left);
	return 0;
}

/* Say where the jobs a checkpoint left under way resume. */
static void rl_sync_log_resume(struct rl_array *a)
{
	struct rl_sync *s = rl_sync(a);
	unsigned long reb = READ_ONCE(a->rebuilding);
	unsigned int m;

	if (!a->md)
		return;
	for_each_set_bit(m, &reb, a->geom.nr_members)
		DMINFO("%s: member %u: rebuild resumes at member sector %llu",
		       dm_table_device_name(a->ti->table), m,
		       (unsigned long long)a->rebuild_cursor[m]);
	if (s->resync_cursor && s->resync_cursor < rl_sync_total(a))
		DMINFO("%s: resync resumes at member sector %llu",
		       dm_table_device_name(a->ti->table),
		       (unsigned long long)s->resync_cursor);
}

/* A member failed (rl_array.fail_hook[]): the lifecycle looks. */
static void rl_sync_member_failed(struct rl_array *a)
{
	if (a->sync)
		rl_sync_kick(a);
}

/* @s and what it holds, of as much as rl_sync_init() made. */
static void rl_sync_destroy(struct rl_sync *s)
{
	if (s->item_wq)
		destroy_workqueue(s->item_wq);
	if (s->wq)
		destroy_workqueue(s->wq);
	bitmap_free(s->dirty);
	kfree(s);
}

/*
 * Called by the core's constructor after the scheme's ->ctr (and after
 * rl_md_open(), which set a->failed, a->rebuilding and the cursors from
 * the metadata).
 */
int rl_sync_init(struct rl_array *a, char **error)
{
	struct rl_sync *s;
	int r;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*error = "Cannot allocate sync state";
		return -ENOMEM;
	}
	s->a = a;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wait);
	INIT_WORK(&s->work, rl_sync_work);
	INIT_WORK(&s->item_work, rl_sync_item_work);
	s->stopped = true;		/* until the first resume */
	s->last_checkpoint = jiffies;
	s->untracked = READ_ONCE(a->failed);	/* from the metadata */

	if (!a->ops->sync_range)
		s->resync_cursor = rl_sync_total(a);
	else if (a->md)
		s->resync_cursor = min_t(sector_t, rl_md_state(a->md)->resync_cursor,
					 rl_sync_total(a));
	else if (a->assume_clean)
		/*
		 * No metadata and no assume_clean: nothing says the copies or
		 * the parity agree (a crash may have torn a write), so the
		 * whole array is resynced, as dm-raid1 does with a core log.
		 */
		s->resync_cursor = rl_sync_total(a);
	if (a->md && a->ops->replace && rl_replace_init(a)) {
		*error = "Cannot allocate replace state";
		r = -ENOMEM;
		goto bad;
	}
	if (a->md) {
		s->mismatches = rl_md_state(a->md)->mismatches;
		r = rl_sync_load_dirty(a, s);
		if (r) {
			*error = "Cannot load the write-intent bitmap";
			goto bad;
		}
	}
	s->wq = alloc_ordered_workqueue("kraidlab_sync", WQ_MEM_RECLAIM);
	s->item_wq = alloc_ordered_workqueue("kraidlab_items", WQ_MEM_RECLAIM);
	if (!s->wq || !s->item_wq) {
		*error = "Cannot allocate sync workqueues";
		r = -ENOMEM;
		goto bad;
	}

	/*
	 * Complete, and nothing fails from here: rl_sync_want_work(), which
	 * a scheme's worker may call, and the failure hook may use it.
	 */
	smp_store_release(&a->sync, s);
	a->fail_hook[RL_FAIL_SYNC] = rl_sync_member_failed;
	rl_sync_log_resume(a);
	return 0;

bad:
	rl_replace_free(a);
	rl_sync_destroy(s);
	return r;
}

int rl_sync_check_start(struct rl_array *a, char **error)
{
	struct rl_sync *s = rl_sync(a);
	unsigned long out = READ_ONCE(a->failed) | READ_ONCE(a->rebuilding);

	if (!s->dirty_left || !out || !a->ops->layout || a->jnl)
		return 0;
	if (!a->start_dirty_degraded) {
		DMERR("%s: %llu regions dirty and members %*pbl not in sync, no journal: refused",
		      dm_table_device_name(a->ti->table), s->dirty_left,
		      a->geom.nr_members, &out);
		*error = "Dirty and degraded with no journal: start_dirty_degraded forces it";
		return -EINVAL;
	}
	DMWARN("%s: dirty and degraded, started anyway: %llu regions may hold wrong data",
	       dm_table_device_name(a->ti->table), s->dirty_left);
	return 0;
}

void rl_sync_free(struct rl_array *a)
{
	struct rl_sync *s = rl_sync(a);

	if (!s)
		return;
	rl_replace_drop(a);
	rl_replace_free(a);
	rl_sync_destroy(s);
	a->sync = NULL;
}

/*
 * Before the table goes live: one pass of the lifecycle, the worker being
 * stopped. A role failed at load (recorded by then, rl_failrec_load()) goes
 * to its replacement or to a spare now, so that the first status after the
 * load already shows the rebuild ('R', recover), not a failed member and
 * idle until the worker's first pass.
 */
void rl_sync_preresume(struct rl_array *a)
{
	rl_sync_lifecycle(a);
}

void rl_sync_start(struct rl_array *a)
{
	struct rl_sync *s = rl_sync(a);

	spin_lock_irq(&s->lock);
	s->stopped = false;
	s->frozen = false;	/* as dm-raid's resume: frozen ends */
	spin_unlock_irq(&s->lock);
	rl_sync_kick(a);
	rl_sync_want_work(a);	/* what the scheme asked for before */
}

void rl_sync_stop(struct rl_array *a)
{
	struct rl_sync *s = rl_sync(a);

	spin_lock_irq(&s->lock);
	s->stopped = true;
	spin_unlock_irq(&s->lock);
	wake_up_all(&s->wait);		/* out of a throttle sleep */
}

/* Wait for the range in flight; then checkpoint the cursors. */
void rl_sync_wait(struct rl_array *a)
{
	struct rl_sync *s = rl_sync(a);

	rl_sync_stop(a);
	wait_event(s->wait, !READ_ONCE(s->busy));
	flush_workqueue(s->wq);
	rl_sync_lifecycle(a);
	rl_sync_checkpoint(a, false);
}
