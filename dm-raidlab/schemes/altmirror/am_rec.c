// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab altmirror: recovery onto two replacements (paper 003
 * section 4; am.h has the record's format).
 *
 * A member fails with two spares there: the core gives the failed role
 * to the first (R1, rebuilt by the sync worker's windows); at the
 * rebuild's first window this file holds the second (R2) and the
 * recovery begins. From then on the survivor S is only read:
 *
 *   - the batches of S's role go to R2 (S's installed bits in the pool
 *     are R2's), so R1 and R2 take turns as the pair did;
 *   - a window reads S in track units and writes it to both
 *     replacements, but for the blocks written since the recovery began
 *     (the modified bitmap), which only the pool and the replacements
 *     hold;
 *   - a read goes to the pool, else for a modified block to R1 (it holds
 *     every modified block the pool has let go), else to S or to R1
 *     below its cursor;
 *   - at the last window R2 takes S's role and S becomes a spare
 *     (rl_sync_swap_spare(): one metadata commit).
 *
 * A replacement that fails ends the recovery: S is brought up to date
 * from the other (the catch-up: each modified block the pool no longer
 * holds is copied to S, and the pool's S bits are cleared, so that S's
 * batches install the rest), and the rebuild goes on as a plain
 * mirror's. A crash resumes the recovery (the record, the bitmap, the
 * pool and the rebuild cursor are durable) or the catch-up.
 *
 * R2 is no member, so it has no queue: its I/O goes through dm-io,
 * synchronously, and its window writes are FUA (the rebuild cursor's
 * checkpoint flushes members only).
 */
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "../../svc/mio.h"
#include "../../svc/tracker.h"
#include "am_int.h"

#define AM_SCAN_SECTORS		256	/* a scan read when the track is unknown */
#define AM_WIN_BLOCKS		(AM_SYNC_SECTORS >> RL_AM_BLOCK_SHIFT)

static const char *const am_rec_names[] = {
	[RL_AM_REC_NONE] = "none",
	[RL_AM_REC_ACTIVE] = "active",
	[RL_AM_REC_CATCHUP_R1] = "catchup",
	[RL_AM_REC_CATCHUP_R2] = "catchup",
};

static unsigned int am_rec_s(struct am *am)
{
	return am->rec.r.survivor;
}

static struct dm_dev *am_rec_r2(struct am *am)
{
	return am->rec.r2 >= 0 ? am->a->spares[am->rec.r2] : NULL;
}

/*
 * The record in state @state, over the copy that does not count, fenced.
 * The state in core changes even if the record could not be written (the
 * metadata has failed then, and says so): what runs follows it. Under
 * am->lock, or before the table is live.
 */
static int am_rec_put(struct am *am, u32 state)
{
	struct am_rec *rc = &am->rec;
	struct rl_am_rec r = rc->r;
	struct rl_am_rec_disk d;
	int err;

	r.state = state;
	r.gen++;
	rl_am_rec_encode(&r, &d);
	err = rl_md_area_write(am->a->md, &rc->area,
			       (rc->copy ^ 1) * RL_AM_REC_SIZE, &d, sizeof(d)) ?:
	      am_fence(am);
	if (!err)
		rc->copy ^= 1;
	rc->r.gen = r.gen;
	WRITE_ONCE(rc->r.state, state);
	return err;
}

/* The bitmap's bytes [@first, @first + @n) to pmem (not fenced). */
static int am_rec_store(struct am *am, u64 first, u64 n)
{
	return rl_md_area_write(am->a->md, &am->rec.area, RL_AM_BLOCK + first,
				(u8 *)am->rec.mod + first, n);
}

static bool am_rec_modified(struct am *am, u64 lblock)
{
	return am_rec_state(am) != RL_AM_REC_NONE &&
	       test_bit_le(lblock, am->rec.mod);
}

/* Mark every block the pool holds. Under am->lock. */
static void am_rec_mark_pool(struct am *am)
{
	u32 i;

	for (i = 0; i < am->nr; i++)
		if (am->ents[i].state == AM_LIVE)
			am_rec_set(am, am->ents[i].lblock);
}

/* Clear role @d's installed bits in the pool (a blank disk's now). */
static void am_rec_clear_bits(struct am *am, unsigned int d)
{
	u32 i;

	for (i = 0; i < am->nr; i++) {
		struct am_ent *e = &am->ents[i];

		if (e->state != AM_LIVE || !(e->installed & BIT(d)))
			continue;
		e->installed &= ~BIT(d);
		am_set_installed(am, i);
	}
	am_recount(am);
}

/* ------------------------------------------------------------------------
 * The second replacement's I/O
 */

/* R2 failed: the survivor catches up from R1. Process context. */
static void am_rec_r2_failed(struct am *am)
{
	int r = 0;

	spin_lock_irq(&am->lock);
	if (am_rec_state(am) == RL_AM_REC_ACTIVE) {
		/* no slot may count R2's bits as a copy any more */
		am_rec_clear_bits(am, am_rec_s(am));
		r = am_rec_put(am, RL_AM_REC_CATCHUP_R1);
	}
	spin_unlock_irq(&am->lock);
	DMERR("altmirror: the second replacement failed%s: the survivor catches up from the first",
	      r ? " (not recorded)" : "");
	rl_sync_want_work(am->a);
}

/* @len sectors at member sector @msector of R2. 0 or -EIO (R2 failed). */
int am_rec_r2_io(struct am *am, blk_opf_t opf, sector_t msector, void *buf,
		 sector_t len)
{
	struct dm_dev *dev = am_rec_r2(am);
	struct dm_io_region where = {
		.sector = am->a->geom.data_offset + msector,
		.count = len,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_VMA,
		.mem.ptr.vma = buf,
		.client = am->rec.io,
	};
	unsigned long err = 0;
	u32 state = am_rec_state(am);

	if (state != RL_AM_REC_ACTIVE && state != RL_AM_REC_CATCHUP_R2)
		return -EIO;	/* it failed */
	if (dev) {
		where.bdev = dev->bdev;
		if (!rl_dm_io(&req, 1, &where, &err) && !err)
			return 0;
	}
	am_rec_r2_failed(am);
	return -EIO;
}

int am_rec_r2_flush(struct am *am)
{
	struct dm_dev *dev = am_rec_r2(am);

	if (dev && !blkdev_issue_flush(dev->bdev))
		return 0;
	am_rec_r2_failed(am);
	return -EIO;
}

/* ------------------------------------------------------------------------
 * Reads
 */

/*
 * The disk a read of @msector goes to while a recovery runs (the pool
 * had no newer version), or RL_NONE: a modified block is on R1 (and R2);
 * another is on R1 below its cursor, which takes it unless it is
 * installing a batch (paper 003: the survivor, relieved of the reads of
 * what the replacements hold, has more time for the scan); else on S.
 */
unsigned int am_rec_read_disk(struct am *am, sector_t msector)
{
	struct rl_array *a = am->a;
	unsigned int s = am_rec_s(am), f = !s;
	bool r1 = READ_ONCE(a->members[f].dev) && !rl_member_failed(a, f);
	bool s_ok = !rl_member_failed(a, s);

	if (am_rec_modified(am, msector >> RL_AM_BLOCK_SHIFT))
		return r1 && am_rec_state(am) != RL_AM_REC_CATCHUP_R2 ?
		       f : RL_NONE;
	if (!r1 || rl_unreadable_at(a, msector) & BIT(f) ||
	    (test_bit(f, &am->writing) && s_ok) ||
	    am_rec_state(am) != RL_AM_REC_ACTIVE)
		return s_ok ? s : RL_NONE;
	return f;
}

/*
 * A read of a modified block that R1 cannot serve (it failed): it waits
 * for the catch-up from R2. False if the read is not of those. Any
 * context.
 */
bool am_rec_wait_read(struct am *am, struct bio *bio)
{
	u32 state;
	unsigned long flags;
	struct bio_list *l = &am->rec.wait;

	spin_lock_irqsave(&am->lock, flags);
	state = am_rec_state(am);
	if (state == RL_AM_REC_NONE) {
		l = &am->retry;		/* it ended meanwhile: again */
	} else if (!test_bit_le(am_lblock(bio), am->rec.mod) || am->rec.stuck ||
		   state == RL_AM_REC_CATCHUP_R1) {
		/* S cannot read it, or both replacements are gone */
		spin_unlock_irqrestore(&am->lock, flags);
		return false;
	}
	/* active: R1 failed (its record, then the catch-up, follow) */
	bio_list_add(l, bio);
	spin_unlock_irqrestore(&am->lock, flags);
	if (l == &am->retry)
		am_kick(am);
	return true;
}

/* A read of the survivor ended: its time, for g. Any context. */
void am_rec_read_done(struct am *am, struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);
	u64 now;

	if (am_rec_state(am) != RL_AM_REC_ACTIVE || pb->member != am_rec_s(am))
		return;
	now = ktime_get_ns();
	if (pb->qe.issue_ns >= now)
		return;
	atomic64_inc(&am->rec.s_reads);
	atomic64_add(now - pb->qe.issue_ns, &am->rec.s_read_ns);
}

/* May a read error at @msector be rewritten from the other member? */
bool am_rec_fixable(struct am *am, sector_t msector)
{
	return !am_rec_modified(am, msector >> RL_AM_BLOCK_SHIFT);
}

/* ------------------------------------------------------------------------
 * Windows and the catch-up
 */

/* Sectors from @msector to the end of its track on member @m. */
static sector_t am_rec_track_left(struct am *am, unsigned int m,
				  sector_t msector)
{
	const struct rl_tracker *t = READ_ONCE(am->a->members[m].q.trk);
	struct rl_chs c;

	if (!t || !t->has_geom)
		return AM_SCAN_SECTORS - msector % AM_SCAN_SECTORS;
	rl_disk_geom_chs(&t->geom, am->a->geom.data_offset + msector, &c);
	return c.spt - c.sector;
}

/*
 * Read @len sectors of S into @buf a track at a time, timed from each
 * read's dispatch to its end (the disk's time, not the queue's).
 */
static int am_rec_scan(struct am *am, sector_t msector, sector_t len,
		       void *buf)
{
	unsigned int s = am_rec_s(am);
	sector_t done, n;

	for (done = 0; done < len; done += n) {
		n = min(len - done, am_rec_track_left(am, s, msector + done));
		if (am_sync_read_why(am, s, msector + done,
				     n, buf + (done << SECTOR_SHIFT),
				     "recovery scan failed", &am->rec.scan_ns))
			return -EIO;
	}
	return 0;
}

/*
 * The blocks of the window at @msector not to copy: with @modified, those
 * modified and not in the pool (a scan must not bring S's older version
 * back), else all but those (the catch-up copies only them). Returns how
 * many are to be copied.
 */
static u32 am_rec_skip(struct am *am, sector_t msector, u32 n, bool modified,
		       unsigned long *skip)
{
	u64 lb = msector >> RL_AM_BLOCK_SHIFT;
	u32 i, copy = 0;

	bitmap_zero(skip, AM_WIN_BLOCKS);
	spin_lock_irq(&am->lock);
	for (i = 0; i < n; i++) {
		bool newer = test_bit_le(lb + i, am->rec.mod) &&
			     !am_lookup(am, lb + i);

		if (newer == modified)
			__set_bit(i, skip);
		else
			copy++;
	}
	spin_unlock_irq(&am->lock);
	return copy;
}

/*
 * Write the blocks of @buf not in @skip to the members in @dst, and to R2
 * with @r2 (FUA). 0, or -EIO if a member failed (R2's failure is its own:
 * the catch-up follows).
 */
static int am_rec_write(struct am *am, unsigned long dst, bool r2,
			sector_t msector, void *buf, u32 n,
			const unsigned long *skip)
{
	struct rl_mio_group g;
	u32 i = 0, j;
	unsigned int d;

	rl_mio_init(&g, am->a, &am->bs);
	while ((i = find_next_zero_bit(skip, n, i)) < n) {
		j = find_next_bit(skip, n, i);
		for_each_set_bit(d, &dst, RL_AM_DISKS)
			rl_mio(&g, d, REQ_OP_WRITE,
			       msector + ((sector_t)i << RL_AM_BLOCK_SHIFT),
			       buf + (size_t)i * RL_AM_BLOCK,
			       (j - i) << RL_AM_BLOCK_SHIFT, RL_BG, RL_DATA_WRITE);
		if (r2 && am_rec_state(am) == RL_AM_REC_ACTIVE)
			am_rec_r2_io(am, REQ_OP_WRITE | REQ_FUA,
				     msector + ((sector_t)i << RL_AM_BLOCK_SHIFT),
				     buf + (size_t)i * RL_AM_BLOCK,
				     (j - i) << RL_AM_BLOCK_SHIFT);
		i = j;
	}
	if (rl_mio_wait(&g)) {
		rl_mio_fail(&g, "recovery write failed");
		return -EIO;
	}
	return 0;
}

/* A window of the recovery: S, the pool over it, to R1 and R2. */
static int am_rec_window(struct am *am, sector_t msector, sector_t len)
{
	unsigned long skip[BITS_TO_LONGS(AM_WIN_BLOCKS)];
	unsigned int f = !am_rec_s(am);
	void *buf = am->sync_buf[0];
	u32 n = len >> RL_AM_BLOCK_SHIFT;
	int r;

	r = am_rec_scan(am, msector, len, buf);
	if (r)
		return r;
	am_overlay(am, msector, len, buf, NULL);
	am_rec_skip(am, msector, n, true, skip);
	r = am_rec_write(am, BIT(f), true, msector, buf, n, skip);
	if (!r)
		atomic64_add(n, &am->rec.scanned);
	return r;
}

/* The catch-up's window: S gets the modified blocks the pool let go. */
static int am_rec_catchup_window(struct am *am, u32 state, sector_t msector,
				 sector_t len)
{
	unsigned long skip[BITS_TO_LONGS(AM_WIN_BLOCKS)];
	unsigned int s = am_rec_s(am);
	void *buf = am->sync_buf[0];
	u32 n = len >> RL_AM_BLOCK_SHIFT;
	int r;

	if (!am_rec_skip(am, msector, n, false, skip))
		return 0;
	if (state == RL_AM_REC_CATCHUP_R2)
		r = am_rec_r2_io(am, REQ_OP_READ, msector, buf, len);
	else
		r = am_sync_read_why(am, !s, msector, len, buf,
				     "catch-up read failed", NULL);
	return r ?: am_rec_write(am, BIT(s), false, msector, buf, n, skip);
}

/* Reads waiting for a catch-up are served again (or fail). Under am->lock. */
static void am_rec_release_reads(struct am *am)
{
	bio_list_merge(&am->retry, &am->rec.wait);
	bio_list_init(&am->rec.wait);
}

/* The recovery ends: reads waiting for it go again. Under am->lock. */
static int am_rec_end(struct am *am)
{
	int r = am_rec_put(am, RL_AM_REC_NONE);

	am_rec_release_reads(am);
	am->rec.last_ms = div_u64(ktime_get_ns() - am->rec.t0, NSEC_PER_MSEC);
	return r;
}

/*
 * A replacement failed: S gets every modified block from the other, the
 * pool's S bits (R2's) are cleared, and the recovery ends. Under sync_sem
 * (exclusive).
 */
static int am_rec_catchup(struct am *am)
{
	u32 state = am_rec_state(am);
	unsigned int s = am_rec_s(am);
	sector_t total = am->nr_blocks << RL_AM_BLOCK_SHIFT, m;
	int r;

	spin_lock_irq(&am->lock);
	am_rec_clear_bits(am, s);
	r = am_fence(am);
	spin_unlock_irq(&am->lock);
	for (m = 0; !r && m < total; m += AM_SYNC_SECTORS)
		r = am_rec_catchup_window(am, state, m,
					  min_t(sector_t, AM_SYNC_SECTORS,
						total - m));
	if (!r && rl_members_flush(am->a, BIT(s)))
		r = -EIO;
	if (r) {
		DMERR("altmirror: the catch-up failed: writes since the failure may be lost");
		spin_lock_irq(&am->lock);
		am->rec.stuck = true;
		am_rec_release_reads(am);
		spin_unlock_irq(&am->lock);
		am_kick(am);
		return r;
	}
	spin_lock_irq(&am->lock);
	r = am_rec_end(am);
	spin_unlock_irq(&am->lock);
	if (state == RL_AM_REC_CATCHUP_R2 && am->rec.r2 >= 0)
		rl_sync_release_spare(am->a, am->rec.r2);
	am->rec.r2 = -1;
	DMINFO("altmirror: the survivor caught up%s; the rebuild goes on as a mirror's",
	       r ? " (not recorded)" : "");
	am_kick(am);
	am_kick_cycle(am);
	return r;
}

/* ------------------------------------------------------------------------
 * The recovery's start and end
 */

/*
 * The rebuild of role @f starts from its beginning: with a second spare,
 * the recovery begins. Under sync_sem (exclusive): no batch runs, so every
 * installed bit of S's role is S's until the record says otherwise.
 */
static void am_rec_begin(struct am *am, unsigned int f)
{
	struct rl_array *a = am->a;
	struct am_rec *rc = &am->rec;
	unsigned int s = !f;
	int j = rl_free_spare(a), r;

	if (!rc->on || j < 0 || !a->members[s].dev || rl_member_failed(a, s) ||
	    test_bit(s, &a->rebuilding))
		return;
	rl_sync_hold_spare(a, j);
	rl_md_spare_uuid(a->md, j, rc->r.r2_uuid);
	rc->r.survivor = s;
	/* state none: nothing marks bits meanwhile */
	bitmap_zero(rc->mod, am->nr_blocks);
	rc->modified = 0;
	r = am_rec_store(am, 0, DIV_ROUND_UP_ULL(am->nr_blocks, 8));
	spin_lock_irq(&am->lock);
	if (!r) {
		am_rec_clear_bits(am, s);
		am_rec_mark_pool(am);
		r = am_fence(am) ?: am_rec_put(am, RL_AM_REC_ACTIVE);
	}
	spin_unlock_irq(&am->lock);
	if (r) {
		rl_sync_release_spare(a, j);
		DMERR("altmirror: cannot record the recovery: a plain rebuild");
		return;
	}
	rc->r2 = j;
	rc->t0 = ktime_get_ns();
	rc->nr++;
	atomic64_set(&rc->scanned, 0);
	atomic64_set(&rc->scan_ns, 0);
	atomic64_set(&rc->s_reads, 0);
	atomic64_set(&rc->s_read_ns, 0);
	DMINFO("altmirror: recovery onto %s and %s; %s is only read",
	       a->members[f].dev->name, a->spares[j]->name,
	       a->members[s].dev->name);
}

/* The last window is done: R2 takes S's role, S becomes a spare. */
static void am_rec_finish(struct am *am)
{
	struct rl_array *a = am->a;
	unsigned int s = am_rec_s(am);
	int r;

	r = rl_sync_swap_spare(a, s, am->rec.r2);
	spin_lock_irq(&am->lock);
	if (r)
		am_rec_put(am, RL_AM_REC_CATCHUP_R1);
	else
		r = am_rec_end(am);
	spin_unlock_irq(&am->lock);
	if (am_rec_state(am) != RL_AM_REC_NONE) {
		DMERR("altmirror: the replacements cannot take the roles: the survivor catches up");
		rl_sync_want_work(a);
		return;
	}
	am->rec.r2 = -1;
	am_kick(am);
	DMINFO("altmirror: recovery done in %llu ms: the survivor is a spare%s",
	       am->rec.last_ms, r ? " (the record not cleared)" : "");
}

/*
 * A sync job's window, under sync_sem (exclusive): a catch-up due runs
 * first; a rebuild from its start begins a recovery when it can; a
 * window of the recovery is its own (*@done).
 */
int am_rec_sync(struct am *am, struct rl_sync_req *req, sector_t len,
		bool *done)
{
	u32 state = am_rec_state(am);
	int r;

	*done = false;
	if (state == RL_AM_REC_CATCHUP_R1 || state == RL_AM_REC_CATCHUP_R2) {
		r = am_rec_catchup(am);
		if (r)
			return r;
	}
	if (req->job != RL_SYNC_REBUILD)
		return 0;
	if (am_rec_state(am) == RL_AM_REC_NONE && !req->msector)
		am_rec_begin(am, req->target);
	if (am_rec_state(am) != RL_AM_REC_ACTIVE ||
	    req->target == am_rec_s(am))
		return 0;
	*done = true;
	r = am_rec_window(am, req->msector, len);
	if (!r && req->msector + len >= am->nr_blocks << RL_AM_BLOCK_SHIFT &&
	    am_rec_state(am) == RL_AM_REC_ACTIVE)
		am_rec_finish(am);
	return r;
}

/* The catch-up when no sync job calls it (no rebuild left). */
bool am_rec_get_work(struct rl_array *a, struct rl_work *w)
{
	struct am *am = am_of(a);
	u32 state = am_rec_state(am);

	w->op = 0;
	w->key = 0;
	return !am->rec.stuck && (state == RL_AM_REC_CATCHUP_R1 ||
				  state == RL_AM_REC_CATCHUP_R2);
}

void am_rec_do_work(struct rl_array *a, const struct rl_work *w)
{
	struct am *am = am_of(a);

	down_write(&am->sync_sem);
	if (am_rec_state(am) != RL_AM_REC_NONE &&
	    am_rec_state(am) != RL_AM_REC_ACTIVE)
		am_rec_catchup(am);
	up_write(&am->sync_sem);
}

/*
 * Members @newly failed (recorded). R1's failure during the recovery: S
 * catches up from R2 (the item worker, or the next window first). S's:
 * what it alone held is lost, as a plain mirror's would be.
 */
void am_rec_member_failed(struct am *am, unsigned long newly)
{
	unsigned int s = am_rec_s(am);
	int r = 0;

	if (am_rec_state(am) == RL_AM_REC_NONE)
		return;
	if (newly & BIT(s)) {
		DMERR("altmirror: the survivor failed during the recovery");
		return;
	}
	if (!(newly & BIT(!s)))
		return;
	spin_lock_irq(&am->lock);
	if (am_rec_state(am) == RL_AM_REC_ACTIVE)
		r = am_rec_put(am, RL_AM_REC_CATCHUP_R2);
	spin_unlock_irq(&am->lock);
	DMERR("altmirror: the first replacement failed%s: the survivor catches up from the second",
	      r ? " (not recorded)" : "");
	rl_sync_want_work(am->a);
}

/* ------------------------------------------------------------------------
 * Set-up and load
 */

/* The bitmap from pmem. */
static int am_rec_read_bits(struct am *am)
{
	return rl_md_area_read(am->a->md, &am->rec.area, RL_AM_BLOCK,
			       am->rec.mod, DIV_ROUND_UP_ULL(am->nr_blocks, 8));
}

/*
 * A recovery the record says runs: hold its R2 before the core gives
 * spares to failed roles. Its end may have been committed already (R2 in
 * S's role); without R2, S catches up from R1; without either, the array
 * cannot be assembled.
 */
static int am_rec_resume(struct am *am, char **error)
{
	struct rl_array *a = am->a;
	struct am_rec *rc = &am->rec;
	unsigned int s = am_rec_s(am), f = !s;
	u32 state = am_rec_state(am);
	bool r1 = a->members[f].dev && !rl_member_failed(a, f);
	int j = rl_sync_find_spare(a, rc->r.r2_uuid);

	if (state == RL_AM_REC_ACTIVE &&
	    !memcmp(rl_md_state(a->md)->members[s].dev_uuid, rc->r.r2_uuid, 16))
		return am_rec_put(am, RL_AM_REC_NONE);
	if (j >= 0 && state != RL_AM_REC_CATCHUP_R1) {
		rl_sync_hold_spare(a, j);
		rc->r2 = j;
	}
	if (state == RL_AM_REC_ACTIVE && (j < 0 || !r1))
		state = r1 ? RL_AM_REC_CATCHUP_R1 : RL_AM_REC_CATCHUP_R2;
	if ((state == RL_AM_REC_CATCHUP_R1 && !r1) ||
	    (state == RL_AM_REC_CATCHUP_R2 && j < 0)) {
		*error = "altmirror: a recovery needs its replacements (R1 the member, R2 a spare)";
		return -EINVAL;
	}
	rc->t0 = ktime_get_ns();
	DMINFO("altmirror: the recovery resumes (%s)", am_rec_names[state]);
	if (state != am_rec_state(am))
		return am_rec_put(am, state);
	return 0;
}

int am_rec_init(struct am *am, char **error)
{
	struct am_rec *rc = &am->rec;
	struct rl_array *a = am->a;
	struct rl_am_rec_disk d[2];
	int r;

	rc->r2 = -1;
	bio_list_init(&rc->wait);
	if (am->vol)
		return 0;
	r = rl_md_area_find(a->md, RL_AM_REC_ID, rl_am_rec_blocks(am->nr_blocks),
			    &rc->area);
	if (r == -ENOSPC && !rl_md_new(a->md)) {
		/* an older array's full metadata: the ordinary rebuild only */
		DMWARN("altmirror: no room for a recovery record: rebuilds use one spare");
		return 0;
	}
	if (r) {
		*error = r == -EINVAL ?
			 "altmirror: the metadata holds a recovery record of another size" :
			 "altmirror: no room for the recovery record on the metadata device";
		return r;
	}
	rc->mod = kvcalloc(BITS_TO_LONGS(am->nr_blocks), sizeof(long),
			   GFP_KERNEL);
	rc->io = dm_io_client_create();
	if (!rc->mod || IS_ERR(rc->io)) {
		rc->io = IS_ERR(rc->io) ? NULL : rc->io;
		*error = "altmirror: cannot allocate the recovery's state";
		return -ENOMEM;
	}
	rc->on = true;
	if (rl_md_new(a->md)) {
		memset(d, 0, sizeof(d));
		r = rl_md_area_write(a->md, &rc->area, 0, d, sizeof(d)) ?:
		    am_fence(am);
	} else {
		r = rl_md_area_read(a->md, &rc->area, 0, d, sizeof(d));
	}
	if (r) {
		*error = "altmirror: cannot read the recovery record";
		return r;
	}
	r = rl_am_rec_choose(d, rl_md_state(a->md)->uuid, &rc->r);
	rc->copy = r < 0 ? 0 : r;
	if (am_rec_state(am) == RL_AM_REC_NONE)
		return 0;
	r = am_rec_read_bits(am);
	if (r) {
		*error = "altmirror: cannot read the recovery's bitmap";
		return r;
	}
	rc->modified = bitmap_weight(rc->mod, am->nr_blocks);
	r = am_rec_resume(am, error);
	if (!r && am_rec_state(am) != RL_AM_REC_NONE &&
	    am_rec_state(am) != RL_AM_REC_ACTIVE)
		rl_sync_want_work(a);
	return r;
}

/*
 * After the pool's load: the blocks it holds are newer than S's (a crash
 * may have come before their bits were fenced).
 */
int am_rec_load(struct am *am)
{
	int r;

	if (am_rec_state(am) == RL_AM_REC_NONE)
		return 0;
	spin_lock_irq(&am->lock);
	am_rec_mark_pool(am);
	r = am_fence(am);
	spin_unlock_irq(&am->lock);
	return r;
}

void am_rec_free(struct am *am)
{
	if (am->rec.io)
		dm_io_client_destroy(am->rec.io);
	kvfree(am->rec.mod);
}

/*
 * Status: the state, the blocks copied (the rebuild's cursor) of all, the
 * modified blocks, g, and the time in ms (of the last one, when none runs).
 */
void am_rec_status(struct am *am, char *result, unsigned int maxlen,
		   unsigned int *psz)
{
	struct am_rec *rc = &am->rec;
	u32 state = am_rec_state(am);
	u64 scanned = atomic64_read(&rc->scanned);
	u64 scan_ns = atomic64_read(&rc->scan_ns);
	u64 reads = atomic64_read(&rc->s_reads);
	u64 read_ns = atomic64_read(&rc->s_read_ns);
	u64 g10 = 0, ms = rc->last_ms, done = rc->nr ? am->nr_blocks : 0;
	unsigned int sz = *psz;

	/* g: blocks scanned in the time S takes for one random read */
	if (reads && scan_ns)
		g10 = div64_u64(scanned * 10 * div64_u64(read_ns, reads),
				scan_ns);
	if (state != RL_AM_REC_NONE) {
		ms = div_u64(ktime_get_ns() - rc->t0, NSEC_PER_MSEC);
		done = READ_ONCE(am->a->rebuild_cursor[!am_rec_s(am)]) >>
		       RL_AM_BLOCK_SHIFT;
	}
	DMEMIT(" %s %llu/%llu %llu %llu.%llu %llu", am_rec_names[state],
	       done, am->nr_blocks, READ_ONCE(rc->modified), g10 / 10,
	       g10 % 10, ms);
	*psz = sz;
}
