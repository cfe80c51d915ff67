// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab replace, the copy (replace.h): the message "replace <m>
 * [<spare>]" asks (sync_ctl.c), and the sync worker, which owns the roles
 * and the spares, does the rest:
 *
 *   1. start (rl_replace_lifecycle()): the spare is held, so that no
 *      failed role takes it; role m's disk and the spare are paired, and
 *      the role's I/O is quiesced once (replace_io.c);
 *   2. copy (rl_replace_range()), a range at a time as job "recover"
 *      after any rebuild, through the old disk's queue (the background
 *      class) and the rate limit of the other jobs: each range is read
 *      from the old disk and written to the new one inside a window no
 *      write enters;
 *   3. swap (rl_replace_finish()): the new disk is flushed, then takes
 *      the role and the old disk takes the spare's slot, in one metadata
 *      commit (rl_sync_swap_spare()); the pair ends after it.
 *
 * While it runs the old disk serves every read and the role is in sync:
 * the array keeps all its redundancy. It stops, the role keeping its
 * old disk, when the old disk fails (the role is then rebuilt from
 * redundancy, onto a spare: the new disk itself, maybe), when the new
 * disk fails a write, or when the old disk fails a read (the message
 * "repair" rewrites bad sectors from redundancy). It is not resumed after
 * a new table or a crash: until the swap's commit the metadata names the
 * old disk in the role and the new one a spare, and the old disk has
 * every write.
 */
#include <linux/vmalloc.h>

#include "bbl.h"
#include "metadata.h"
#include "replace.h"
#include "sync_int.h"

/* Log the replace's end, and keep the reason for "last_error". */
static void rl_rp_say(struct rl_array *a, const char *fmt, unsigned int m,
		      const char *why)
{
	char text[RL_MSG_ERROR_LEN];

	scnprintf(text, sizeof(text), fmt, m, why);
	DMWARN("%s: %s", dm_table_device_name(a->ti->table), text);
	rl_sync_set_reason(rl_sync(a), text);
}

/*
 * Why role @m cannot be replaced by spare @j (-1: the first free one)
 * now, or NULL. The message asks it, and the worker again at the start.
 */
const char *rl_replace_refused(struct rl_array *a, unsigned int m, int j)
{
	if (!a->md || !a->replace)
		return "no metadata device records the swap";
	if (!a->ops->replace)
		return "the scheme writes its members outside the member queues";
	if (READ_ONCE(a->replace->active))
		return "a replace runs already";
	if (READ_ONCE(a->replace->member) != RL_NONE)
		return "the last replace's routing ends at the next suspend";
	if (!rl_array_alive(a))
		return "the array has lost data";
	if (!a->members[m].dev || rl_member_failed(a, m) ||
	    test_bit(m, &a->rebuilding))
		return "the member is not in sync: it is rebuilt, not replaced";
	if (rl_bbl_count(a, m))
		return "the member has bad blocks: 'repair' rewrites them first";
	if (j < 0 ? rl_free_spare(a) < 0 :
	    !a->spares[j] || test_bit(j, &a->spares_held))
		return "no free spare";
	return NULL;
}

/* Ask for role @m to be replaced by spare @j (-1: any); -EBUSY if asked. */
int rl_replace_ask(struct rl_array *a, unsigned int m, int j)
{
	struct rl_replace *rp = a->replace;
	struct rl_sync *s = rl_sync(a);
	int r = -EBUSY;

	spin_lock_irq(&s->lock);
	if (!rp->want && !rp->active) {
		rp->want = true;
		rp->want_member = m;
		rp->want_spare = j;
		r = 0;
	}
	spin_unlock_irq(&s->lock);
	return r;
}

/* What the copy needs beside the hook: a buffer, its I/O. */
static int rl_rp_get(struct rl_replace *rp)
{
	rp->buf = vmalloc(RL_SYNC_UNIT << SECTOR_SHIFT);
	rp->io = dm_io_client_create();
	if (!rp->buf || IS_ERR(rp->io)) {
		if (!IS_ERR(rp->io))
			dm_io_client_destroy(rp->io);
		rp->io = NULL;
		vfree(rp->buf);
		rp->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Free what rl_rp_get() made. */
static void rl_rp_put(struct rl_replace *rp)
{
	if (!rp->io)
		return;
	dm_io_client_destroy(rp->io);
	rp->io = NULL;
	vfree(rp->buf);
	rp->buf = NULL;
}

/* The replace ends, the role keeping its old disk, for @why. */
static void rl_rp_stop(struct rl_array *a, const char *why)
{
	struct rl_replace *rp = a->replace;
	unsigned int m = rp->member;

	rl_replace_unpair(rp);
	rl_rp_put(rp);
	/* the worker runs: the lifecycle after this sees the spare free */
	clear_bit(rp->spare, &a->spares_held);
	rp->spare = -1;
	WRITE_ONCE(rp->active, false);
	rl_rp_say(a, "replace of member %u stopped: %s", m, why);
	schedule_work(&a->event_work);
}

/* Start the replace asked for, if it still can be. The worker. */
static void rl_rp_start(struct rl_array *a, unsigned int m, int j)
{
	struct rl_replace *rp = a->replace;
	const char *why = rl_replace_refused(a, m, j);

	if (!why && j < 0)
		j = rl_free_spare(a);
	if (!why && rl_rp_get(rp))
		why = "no memory for the copy";
	if (why) {
		rl_rp_say(a, "replace of member %u refused: %s", m, why);
		return;
	}
	rl_sync_hold_spare(a, j);
	rp->spare = j;
	rp->cursor = 0;
	WRITE_ONCE(rp->active, true);
	rl_replace_pair(rp, m, a->members[m].dev, a->spares[j]);
	rl_replace_quiesce(a);
	DMINFO("%s: member %u (%s): copy onto %s started",
	       dm_table_device_name(a->ti->table), m, a->members[m].dev->name,
	       a->spares[j]->name);
	schedule_work(&a->event_work);
}

/*
 * The lifecycle's part (sync.c, before spares go to failed roles): stop a
 * replace that cannot go on, start one asked for.
 */
void rl_replace_lifecycle(struct rl_array *a)
{
	struct rl_replace *rp = a->replace;
	struct rl_sync *s = rl_sync(a);
	unsigned int m;
	bool want;
	int j;

	if (!rp)
		return;
	if (rp->active) {
		if (rl_member_failed(a, rp->member))
			rl_rp_stop(a, "the old disk failed (the role is rebuilt)");
		else if (READ_ONCE(rp->broken))
			rl_rp_stop(a, "the new disk failed a write");
		return;
	}
	spin_lock_irq(&s->lock);
	want = rp->want;
	m = rp->want_member;
	j = rp->want_spare;
	rp->want = false;
	spin_unlock_irq(&s->lock);
	if (want)
		rl_rp_start(a, m, j);
}

/* The next range of the copy, after any rebuild's. Under s->lock. */
bool rl_replace_next(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_replace *rp = a->replace;
	sector_t total = rl_member_span(a);

	if (!rp || !READ_ONCE(rp->active) || rp->cursor >= total)
		return false;
	req->job = RL_SYNC_REPLACE;
	req->target = rp->member;
	req->msector = rp->cursor;
	req->len = min_t(sector_t, RL_SYNC_UNIT, total - req->msector);
	return true;
}

/*
 * @opf @sectors at member sector @at of @dev, from or into the buffer.
 * Not through the member queue: writes parked in the window hold its
 * slots, and the read they wait for must not wait for one.
 */
static int rl_rp_io(struct rl_replace *rp, struct dm_dev *dev, blk_opf_t opf,
		    sector_t at, sector_t sectors)
{
	struct dm_io_region where = {
		.bdev = dev->bdev, .sector = at, .count = sectors,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_VMA,
		.mem.ptr.vma = rp->buf,
		.client = rp->io,
	};
	unsigned long err = 0;

	return rl_dm_io(&req, 1, &where, &err) ?: (err ? -EIO : 0);
}

/*
 * Copy one range, @req->len member sectors from @req->msector, from the
 * old disk to the new one, no write landing in between. A failure stops
 * the replace; the range is done either way (the job then has none).
 */
int rl_replace_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_replace *rp = a->replace;
	sector_t at = a->geom.data_offset + req->msector;
	int rr, rw = 0;

	if (READ_ONCE(rp->broken))
		return 0;	/* the lifecycle stops it */
	rl_replace_window(rp, at, at + req->len);
	rr = rl_rp_io(rp, rp->old, REQ_OP_READ, at, req->len);
	if (!rr)
		rw = rl_rp_io(rp, rp->new, REQ_OP_WRITE, at, req->len);
	rl_replace_window(rp, 0, 0);
	if (rr)
		rl_rp_stop(a, "a read of the old disk failed ('repair' rewrites bad sectors)");
	else if (rw)
		rl_rp_stop(a, "the new disk failed a write");
	return 0;
}

/* The copy has done @req's range: true if it is complete. Under s->lock. */
bool rl_replace_done(struct rl_array *a, const struct rl_sync_req *req)
{
	struct rl_replace *rp = a->replace;

	if (!READ_ONCE(rp->active))
		return false;
	rp->cursor = req->msector + req->len;
	return rp->cursor >= rl_member_span(a);
}

/*
 * The copy is complete: the new disk takes the role, in the commit of
 * rl_sync_swap_spare(). It is flushed first, so that the commit never
 * names a disk whose copy is in its cache; writes stay paired through the
 * commit, so that whichever disk the role has after it has every write.
 * Then the role is quiesced: what was issued before has ended, and an I/O
 * queued for the disk that lost (before the swap) goes to the one that
 * won, until the next suspend (rl_replace_suspended()). The old disk is
 * a spare after it; with bad-block entries recorded meanwhile (sectors
 * the array lost on it), it keeps the role.
 */
void rl_replace_finish(struct rl_array *a)
{
	struct rl_replace *rp = a->replace;
	unsigned int m = rp->member;
	bool done;

	if (rl_bbl_count(a, m)) {
		rl_rp_stop(a, "the old disk has bad blocks now: 'repair' first");
		return;
	}
	if (blkdev_issue_flush(rp->new->bdev) || READ_ONCE(rp->broken)) {
		rl_rp_stop(a, "the new disk failed a write");
		return;
	}
	done = !rl_sync_swap_spare(a, m, rp->spare);
	rl_replace_swapped(rp, done);
	rl_replace_quiesce(a);
	rl_replace_drain(rp);
	rl_rp_put(rp);
	WRITE_ONCE(rp->active, false);
	if (!done) {
		/* the new disk stays held: I/O may still be redirected from it */
		rl_rp_say(a, "replace of member %u stopped: %s", m,
			  "the metadata commit of the swap failed");
		return;
	}
	rp->spare = -1;
	DMINFO("%s: member %u replaced: %s is a spare now",
	       dm_table_device_name(a->ti->table), m, rp->old->name);
	/* a write the new disk failed before the swap: it lacks it */
	if (READ_ONCE(rp->broken))
		rl_member_fail(a, m, "the new disk missed a write during the swap");
	schedule_work(&a->event_work);
}

/*
 * The array is suspended (rl_sync_wait()): no I/O is in flight or queued,
 * so nothing is prepared for a swap's loser any more: the routing ends,
 * and a new disk a failed swap kept held is a spare again.
 */
void rl_replace_suspended(struct rl_array *a)
{
	struct rl_replace *rp = a->replace;

	if (!rp || rp->active || READ_ONCE(rp->member) == RL_NONE)
		return;
	rl_replace_unpair(rp);
	if (rp->spare >= 0)
		clear_bit(rp->spare, &a->spares_held);
	rp->spare = -1;
}

/* The array goes: free what a replace under way holds. No I/O is in flight. */
void rl_replace_drop(struct rl_array *a)
{
	struct rl_replace *rp = a->replace;

	if (!rp || !rp->active)
		return;
	rl_replace_unpair(rp);
	rl_rp_put(rp);
	rp->active = false;
}
