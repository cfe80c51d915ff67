// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab altmirror: the cycle and the batches, reads to a disk,
 * member failures, and the sync jobs.
 *
 * The cycle worker (a delayed work) asks rl_am_cycle_next() what to do:
 * start a disk's batch, or sleep until the next start (a batch's end and
 * a write under pressure kick it). A batch (a work item per disk) takes
 * every live block the disk does not hold, sorts them in physical order,
 * merges contiguous ones into runs of up to AM_MAX_RUN blocks, and queues
 * them on the member in the background class, a bounce buffer's worth
 * (AM_BUF_BLOCKS) at a time, so that the member's policy (look: the
 * paper's SCAN; satf: rotation aware) orders them. After the last one,
 * the disk is flushed; only then are the blocks' installed bits set, and
 * a block every disk holds is freed from the pool. While a disk writes,
 * reads go to the other one.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../../svc/mio.h"
#include "am_int.h"

static void am_cycle_input(struct am *am, struct rl_am_cycle_in *in)
{
	unsigned long flags;

	in->now = ktime_get_ns();
	in->batch = max(am->nr / 2, 1U);
	in->live = am_live(am);
	spin_lock_irqsave(&am->lock, flags);
	memcpy(in->pending, am->pending, sizeof(in->pending));
	in->pressure = am_pressure(am);
	spin_unlock_irqrestore(&am->lock, flags);
}

static void am_cycle_work(struct work_struct *w)
{
	struct am *am = container_of(to_delayed_work(w), struct am, cyc_work);
	struct rl_am_cycle_in in;
	u64 until = U64_MAX;
	unsigned int d, i;

	mutex_lock(&am->cyc_lock);
	for (i = 0; i < 4 && !READ_ONCE(am->stopped); i++) {
		am_cycle_input(am, &in);
		am->cyc.arrived += atomic64_xchg(&am->arrived, 0);
		if (rl_am_cycle_next(&am->cyc, &in, &d, &until) ==
		    RL_AM_START) {
			set_bit(d, &am->writing);
			queue_work(am->a->wq, &am->b[d].work);
			until = in.now;
			continue;
		}
		if (until > in.now)
			break;
	}
	if (until != U64_MAX && !READ_ONCE(am->stopped))
		queue_delayed_work(am->a->wq, &am->cyc_work,
				   until > in.now ?
				   nsecs_to_jiffies(until - in.now) + 1 : 1);
	mutex_unlock(&am->cyc_lock);
}

/* Take disk @d's batch: every live block it lacks. */
static void am_batch_collect(struct am *am, unsigned int d)
{
	struct am_batch *b = &am->b[d];
	unsigned long flags;
	u32 i;

	b->n = 0;
	spin_lock_irqsave(&am->lock, flags);
	for (i = 0; i < am->nr; i++) {
		struct am_ent *e = &am->ents[i];

		/* a large pool: interrupts and writers get their turn */
		if (!(i % AM_SCAN_CHUNK) && i) {
			spin_unlock_irqrestore(&am->lock, flags);
			cond_resched();
			spin_lock_irqsave(&am->lock, flags);
		}
		if (e->state != AM_LIVE ||
		    ((e->installed | e->inflight) & BIT(d)))
			continue;
		e->inflight |= BIT(d);
		b->e[b->n].lblock = e->lblock;
		b->e[b->n].slot = i;
		b->n++;
		/* what it counted: a block published meanwhile still counts */
		if (am->pending[d])
			am->pending[d]--;
	}
	spin_unlock_irqrestore(&am->lock, flags);
}

/*
 * Volatile: the intent of each block's region is taken before its first
 * install and held until every disk has it, so that a crash between the
 * disks' batches leaves the region to the resync.
 */
static int am_batch_intent(struct am *am, struct am_batch *b)
{
	struct rl_md_state *st = rl_md_state(am->a->md);
	unsigned long flags;
	struct am_ent *e, *to;
	u64 region;
	u32 i;

	for (i = 0; i < b->n; i++) {
		e = &am->ents[b->e[i].slot];
		region = rl_md_region(st, am_msector(b->e[i].lblock));
		if (READ_ONCE(e->intent))
			continue;
		if (rl_md_intent_start(am->a->md, region))
			return -EIO;
		/* a newer version may have replaced it meanwhile: its own */
		spin_lock_irqsave(&am->lock, flags);
		to = e->state == AM_LIVE ? e : am_lookup(am, b->e[i].lblock);
		if (to && !to->intent)
			to->intent = true;
		else
			to = NULL;
		spin_unlock_irqrestore(&am->lock, flags);
		if (!to)
			rl_md_intent_end(am->a->md, region);
	}
	return 0;
}

/*
 * Queue runs [*i, ...) that fit the bounce buffer, and wait for them; with
 * @r2, they go to the recovery's second replacement instead (am_rec.c).
 */
static int am_batch_window(struct am *am, unsigned int d, u32 nruns, u32 *i,
			   bool r2)
{
	struct am_batch *b = &am->b[d];
	struct rl_mio_group g;
	u32 off = 0, k;

	rl_mio_init(&g, am->a, &am->bs);
	for (; *i < nruns && off + b->runs[*i].nr <= AM_BUF_BLOCKS; (*i)++) {
		const struct rl_am_run *r = &b->runs[*i];
		void *buf = b->buf + (size_t)off * RL_AM_BLOCK;

		for (k = 0; k < r->nr; k++) {
			void *src = am_slot_data(am, b->e[r->first + k].slot);

			if (!src || copy_mc_to_kernel(buf + k * RL_AM_BLOCK, src,
						      RL_AM_BLOCK)) {
				rl_mio_wait(&g);
				DMERR_LIMIT("altmirror: a pool slot cannot be read");
				return -EIO;
			}
		}
		if (!r2)
			rl_mio(&g, d, REQ_OP_WRITE, am_msector(r->lblock), buf,
			       r->nr << RL_AM_BLOCK_SHIFT, RL_BG, RL_DATA_WRITE);
		else if (am_rec_r2_io(am, REQ_OP_WRITE, am_msector(r->lblock),
				      buf, r->nr << RL_AM_BLOCK_SHIFT))
			set_bit(d, &g.stale);
		off += r->nr;
	}
	if (rl_mio_wait(&g)) {
		rl_mio_fail(&g, "batch write failed");
		return -EIO;
	}
	return 0;
}

/* Write disk @d's batch, then flush the disk. 0 if it holds it all. */
static int am_batch_write(struct am *am, unsigned int d, bool r2)
{
	struct am_batch *b = &am->b[d];
	u32 nruns, i = 0;
	int r = 0;

	rl_am_batch_sort(b->e, b->n);
	nruns = rl_am_batch_runs(b->e, b->n, AM_MAX_RUN, b->runs);
	if (am->vol)
		r = am_batch_intent(am, b);
	while (!r && i < nruns)
		r = am_batch_window(am, d, nruns, &i, r2);
	if (r2)
		return r ?: am_rec_r2_flush(am);
	if (!r && rl_members_flush(am->a, BIT(d))) {
		rl_member_fail(am->a, d, "flush failed after a batch");
		rl_failrec_sync(am->a);
		r = -EIO;
	}
	/* a disk failed meanwhile was not flushed (rl_members_flush()) */
	if (!r && rl_member_failed(am->a, d))
		r = -EIO;
	return r;
}

/*
 * The batch's end: with @ok, disk @d holds its blocks (set their bits,
 * free those every disk holds); else they wait for the next batch. With
 * @r2, the batch went to the recovery's second replacement.
 */
static void am_batch_end(struct am *am, unsigned int d, bool ok, bool r2)
{
	struct am_batch *b = &am->b[d];
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&am->lock, flags);
	/* R2 failed meanwhile: its bits are no one's (am_rec.c) */
	if (r2 && !am_rec_r2_counts(am))
		ok = false;
	for (i = 0; i < b->n; i++) {
		u32 slot = b->e[i].slot;
		struct am_ent *e = &am->ents[slot];

		e->inflight &= ~BIT(d);
		if (e->state == AM_OLD) {
			if (!e->inflight)
				am_free_slot(am, slot);
			continue;
		}
		if (ok)
			e->installed |= BIT(d);
		else
			am->pending[d]++;
		if (am_complete(am, e))
			am_free_slot(am, slot);
		else if (ok)
			am_set_installed(am, slot);
	}
	am_fence(am);
	spin_unlock_irqrestore(&am->lock, flags);
}

/* One batch of disk @d, from start to end. */
static void am_batch_do(struct am *am, unsigned int d)
{
	u64 t0 = ktime_get_ns();
	int r, to;

	down_read(&am->sync_sem);
	/* one look at the recovery: it may move on meanwhile (am_rec.c) */
	to = am_rec_batch_to(am, d);
	if (to < 0) {
		/* the survivor catches up first */
		up_read(&am->sync_sem);
		return;
	}
	am_batch_collect(am, d);
	r = am->b[d].n ? am_batch_write(am, d, to) : 0;
	am_batch_end(am, d, !r, to);
	up_read(&am->sync_sem);
	if (am->b[d].n) {
		atomic64_inc(&am->batches);
		atomic64_add(am->b[d].n, &am->batch_blocks);
		atomic64_add(ktime_get_ns() - t0, &am->install_ns);
	}
}

static void am_install_work(struct work_struct *w)
{
	struct am_batch *b = container_of(w, struct am_batch, work);
	struct am *am = b->am;
	unsigned int d = b - am->b;

	am_batch_do(am, d);
	clear_bit(d, &am->writing);
	mutex_lock(&am->cyc_lock);
	rl_am_cycle_done(&am->cyc, d);
	mutex_unlock(&am->cyc_lock);
	am_kick(am);
	am_kick_cycle(am);
}

/* A disk left that can take reads is not writing (deferred reads go). */
static bool am_reads_may_go(struct am *am)
{
	return am_live(am) & ~READ_ONCE(am->writing);
}

/* The disk a read of member sector @msector goes to, or RL_NONE. */
static unsigned int am_read_disk(struct am *am, sector_t msector,
				 bool *defer)
{
	struct rl_array *a = am->a;
	unsigned int ok, rd, d0, d1;
	sector_t h0, h1;

	*defer = false;
	if (am_rec_state(am) != RL_AM_REC_NONE)
		return am_rec_read_disk(am, msector);
	ok = am_live(am) & ~rl_unreadable_at(a, msector);
	if (!ok)
		return RL_NONE;
	/* a region the resync has not reached: its source, the lowest */
	if (rl_sync_suspect(a, msector))
		return __ffs(ok);
	rd = ok & ~READ_ONCE(am->writing);
	/* one disk: it, unless it writes and reads wait (single batch) */
	if (hweight32(ok) == 1) {
		*defer = !rd && am->defer_reads;
		return *defer ? RL_NONE : __ffs(ok);
	}
	if (hweight32(rd) == 1)
		return __ffs(rd);
	if (!rd && am->defer_reads) {
		*defer = true;
		return RL_NONE;
	}
	/* both read (fewer in flight), or both write (nearest head) */
	d0 = atomic_read(&a->members[0].inflight);
	d1 = atomic_read(&a->members[1].inflight);
	if (rd && d0 != d1)
		return d0 < d1 ? 0 : 1;
	msector += a->geom.data_offset;
	h0 = READ_ONCE(a->members[0].head);
	h1 = READ_ONCE(a->members[1].head);
	h0 = h0 > msector ? h0 - msector : msector - h0;
	h1 = h1 > msector ? h1 - msector : msector - h1;
	return h0 <= h1 ? 0 : 1;
}

/*
 * Serve a read: from the pool when its block's newest version is there,
 * else from a disk in read mode (a->wq's kick work calls it again for a
 * read deferred or to be served again).
 */
int am_map_read(struct am *am, struct bio *bio)
{
	struct rl_array *a = am->a;
	sector_t msector = rl_pb(bio)->lsector;
	unsigned long flags;
	unsigned int d;
	bool defer;

	if (am_read_hit(am, bio))
		return DM_MAPIO_SUBMITTED;
	d = am_read_disk(am, msector, &defer);
	if (defer) {
		spin_lock_irqsave(&am->lock, flags);
		bio_list_add(&am->deferred, bio);
		spin_unlock_irqrestore(&am->lock, flags);
		/* a batch that ended meanwhile has kicked already */
		if (am_reads_may_go(am))
			am_kick(am);
		return DM_MAPIO_SUBMITTED;
	}
	if (d == RL_NONE)
		return am_rec_state(am) != RL_AM_REC_NONE &&
		       am_rec_wait_read(am, bio) ? DM_MAPIO_SUBMITTED :
						   DM_MAPIO_KILL;
	rl_remap(a, bio, d, a->geom.data_offset + msector);
	return DM_MAPIO_SUBMITTED;
}

/* Serve the reads of list @l (taken from am->lock) again. */
static void am_reads_again(struct am *am, struct bio_list *l)
{
	unsigned long flags;
	struct bio_list todo;
	struct bio *bio;

	spin_lock_irqsave(&am->lock, flags);
	todo = *l;
	bio_list_init(l);
	spin_unlock_irqrestore(&am->lock, flags);
	while ((bio = bio_list_pop(&todo)))
		if (am_map_read(am, bio) == DM_MAPIO_KILL)
			bio_io_error(bio);
}

/*
 * A read of @bio failed on its member: rewrite it from the other disk
 * (fix_work) if that disk can read the block there and the member has
 * not had too many read errors (rl_member_read_error()). Any context.
 */
bool am_read_fixable(struct am *am, struct bio *bio, blk_status_t error)
{
	struct rl_array *a = am->a;
	struct rl_bio *pb = rl_pb(bio);
	unsigned int m = pb->member;
	sector_t msector = pb->lsector;

	if (m >= RL_AM_DISKS || !rl_status_fails_member(error) ||
	    bio->bi_opf & REQ_RAHEAD || pb->dev != READ_ONCE(a->members[m].dev))
		return false;
	if (rl_unreadable_at(a, msector) & BIT(!m) ||
	    !am_rec_fixable(am, msector))
		return false;
	return rl_member_read_error(a, m, pb->dev,
				    a->geom.data_offset + msector);
}

/* The member whose disk is @dev, or RL_NONE (a spare took the role). */
static unsigned int am_member_of(struct am *am, const struct dm_dev *dev)
{
	unsigned int m;

	for (m = 0; m < RL_AM_DISKS; m++)
		if (READ_ONCE(am->a->members[m].dev) == dev)
			return m;
	return RL_NONE;
}

/*
 * Rewrite the block of @bio over member @m from the other disk, the
 * pool's newer version over it (it is what @m must hold), read it back,
 * and serve @bio with it; no batch runs meanwhile (sync_sem). As md's
 * fix_read_error: a rewrite that does not read back fails the member.
 * A rewrite that fails has failed @m already; @bio is served all the
 * same, from the good copy.
 */
static blk_status_t am_fix_one(struct am *am, struct bio *bio, unsigned int m)
{
	sector_t msector = rl_pb(bio)->lsector, n = 1 << RL_AM_BLOCK_SHIFT;
	void *good = am->sync_buf[0], *back = am->sync_buf[1];
	struct bvec_iter it;
	struct bio_vec bv;
	unsigned int off = 0;

	if (am_sync_read(am, !m, msector, n, good))
		return BLK_STS_IOERR;
	am_overlay(am, msector, n, good, NULL);
	if (!am_sync_write(am, BIT(m), msector, n, good) &&
	    (am_sync_read_quiet(am, m, msector, n, back) ||
	     memcmp(good, back, RL_AM_BLOCK)))
		rl_member_fail(am->a, m, "read error, rewrite failed");
	bio_for_each_segment(bv, bio, it) {
		memcpy_to_bvec(&bv, good + off);
		off += bv.bv_len;
	}
	return BLK_STS_OK;
}

static void am_fix_work(struct work_struct *w)
{
	struct am *am = container_of(w, struct am, fix_work);
	unsigned long flags;
	struct bio *bio;
	unsigned int m;

	for (;;) {
		spin_lock_irqsave(&am->lock, flags);
		bio = bio_list_pop(&am->fix);
		spin_unlock_irqrestore(&am->lock, flags);
		if (!bio)
			return;
		down_write(&am->sync_sem);
		m = am_member_of(am, rl_pb(bio)->dev);
		/*
		 * the other disk may have failed, or a blank spare taken it,
		 * or the block been written during a recovery (the survivor's
		 * copy is older)
		 */
		if (m == RL_NONE ||
		    rl_unreadable_at(am->a, rl_pb(bio)->lsector) & BIT(!m) ||
		    !am_rec_fixable(am, rl_pb(bio)->lsector)) {
			up_write(&am->sync_sem);
			if (am_map_read(am, bio) == DM_MAPIO_KILL)
				bio_io_error(bio);
			continue;
		}
		bio->bi_status = am_fix_one(am, bio, m);
		up_write(&am->sync_sem);
		bio_endio(bio);
	}
}

/* Volatile flushes (and FUA writes) whose writes every disk now has. */
static void am_flushes_done(struct am *am)
{
	struct bio_list done, keep;
	unsigned long flags;
	struct bio *bio;
	u64 oldest;

	bio_list_init(&done);
	bio_list_init(&keep);
	spin_lock_irqsave(&am->lock, flags);
	oldest = am_oldest_pending(am);
	while ((bio = bio_list_pop(&am->flushes))) {
		struct am_pb *pb = rl_pb_scheme(bio, sizeof(*pb));

		bio_list_add(pb->seq < oldest ? &done : &keep, bio);
	}
	am->flushes = keep;
	spin_unlock_irqrestore(&am->lock, flags);
	while ((bio = bio_list_pop(&done)))
		bio_endio(bio);
}

static void am_kick_work(struct work_struct *w)
{
	struct am *am = container_of(w, struct am, kick_work);

	am_write_waiters(am);
	am_reads_again(am, &am->retry);
	if (am_reads_may_go(am))
		am_reads_again(am, &am->deferred);
	if (am->vol)
		am_flushes_done(am);
}

/*
 * Members @newly failed, and it is recorded: their bits no longer count
 * (a spare that takes the role has nothing), and the blocks the disks
 * left hold are freed.
 */
void am_member_failed(struct rl_array *a, unsigned long newly)
{
	struct am *am = am_of(a);
	unsigned long flags;
	u32 i;

	am_rec_member_failed(am, newly);
	spin_lock_irqsave(&am->lock, flags);
	am->told |= newly & RL_AM_ALL;
	for (i = 0; i < RL_AM_DISKS; i++)
		if (newly & BIT(i))
			am->told_dev[i] = READ_ONCE(a->members[i].dev);
	for (i = 0; i < am->nr; i++) {
		struct am_ent *e = &am->ents[i];
		bool had = e->installed & newly;

		if (e->state != AM_LIVE)
			continue;
		e->installed &= ~newly;
		if (am_complete(am, e))
			am_free_slot(am, i);
		else if (had)
			am_set_installed(am, i);
	}
	am_recount(am);
	am_fence(am);
	spin_unlock_irqrestore(&am->lock, flags);
	am_kick(am);
	am_kick_cycle(am);
}

/* Install everything on every live disk (a volatile pool's suspend). */
static void am_drain(struct am *am)
{
	unsigned int d, round;

	for (round = 0; round < 2; round++)
		for (d = 0; d < RL_AM_DISKS; d++)
			if (am_live(am) & BIT(d))
				am_batch_do(am, d);
}

/* Suspended: no batch starts; the one in flight ends. */
void am_cycle_stop(struct am *am)
{
	unsigned int d;

	WRITE_ONCE(am->stopped, true);
	cancel_delayed_work_sync(&am->cyc_work);
	for (d = 0; d < RL_AM_DISKS; d++)
		flush_work(&am->b[d].work);
	flush_work(&am->kick_work);
	flush_work(&am->fix_work);
	if (am->vol)
		am_drain(am);
}

void am_cycle_start(struct am *am)
{
	struct rl_am_cycle *c = &am->cyc;

	/* a suspend given up (presuspend_undo): the cycle never stopped */
	if (!READ_ONCE(am->stopped)) {
		am_kick_cycle(am);
		return;
	}
	mutex_lock(&am->cyc_lock);
	rl_am_cycle_init(c, ktime_get_ns(), c->tmin, c->tmax, c->overlap);
	c->single_batch = am->a->sopt[AM_OPT_SINGLE];
	mutex_unlock(&am->cyc_lock);
	WRITE_ONCE(am->stopped, false);
	am_kick_cycle(am);
	am_kick(am);
}

/*
 * Resync and rebuild: the source's window with the pool's newer blocks
 * over it, to @dst. Blocks in the pool stay pending for @dst and are
 * installed again by its batches (the same data).
 */
static int am_sync_copy(struct am *am, unsigned int src, unsigned long dst,
			sector_t msector, sector_t len)
{
	void *buf = am->sync_buf[0];
	int r;

	if (src == RL_NONE)
		return -EIO;
	dst &= ~BIT(src);
	if (!dst)
		return 0;
	r = am_sync_read(am, src, msector, len, buf);
	if (r)
		return r;
	am_overlay(am, msector, len, buf, NULL);
	return am_sync_write(am, dst, msector, len, buf);
}

/* Sectors that differ between the disks in block @i of the windows. */
static unsigned int am_block_diff(struct am *am, u32 i)
{
	const u8 *x = am->sync_buf[0] + (size_t)i * RL_AM_BLOCK;
	const u8 *y = am->sync_buf[1] + (size_t)i * RL_AM_BLOCK;
	unsigned int s, n = 0;

	for (s = 0; s < RL_AM_BLOCK; s += SECTOR_SIZE)
		n += !!memcmp(x + s, y + s, SECTOR_SIZE);
	return n;
}

/*
 * Check and repair: the disks compared block by block, but for blocks
 * the pool holds (their disks differ until both installed them); repair
 * copies disk 0's window, the pool's blocks over it, to disk 1.
 */
static int am_sync_check(struct am *am, struct rl_sync_req *req,
			 sector_t len)
{
	unsigned long skip[AM_SYNC_SECTORS / 8 / BITS_PER_LONG] = { 0 };
	u32 i, n = len >> RL_AM_BLOCK_SHIFT;
	u64 bad = 0;
	int r;

	r = am_sync_read(am, 0, req->msector, len, am->sync_buf[0]) ?:
	    am_sync_read(am, 1, req->msector, len, am->sync_buf[1]);
	if (r)
		return r;
	am_overlay(am, req->msector, len, am->sync_buf[0], skip);
	for (i = 0; i < n; i++)
		if (!test_bit(i, skip))
			bad += am_block_diff(am, i);
	req->mismatches += bad;
	if (!bad || req->job != RL_SYNC_REPAIR)
		return 0;
	return am_sync_write(am, BIT(1), req->msector, len, am->sync_buf[0]);
}

/*
 * A sync job's window (sync.c), exclusive of batches: resync (from the
 * lowest readable disk), rebuild (onto req->target), check and repair.
 */
int am_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct am *am = am_of(a);
	sector_t len = min_t(sector_t, req->len, AM_SYNC_SECTORS);
	unsigned int ok = RL_AM_ALL & ~rl_unreadable_at(a, req->msector);
	unsigned int src = ok ? __ffs(ok) : RL_NONE;
	bool done;
	int r;

	len = max_t(sector_t, round_down(len, 1 << RL_AM_BLOCK_SHIFT),
		    1 << RL_AM_BLOCK_SHIFT);
	down_write(&am->sync_sem);
	r = am_rec_sync(am, req, len, &done);
	if (r || done)
		goto out;
	switch (req->job) {
	case RL_SYNC_RESYNC:
		r = am_sync_copy(am, src, am_live(am), req->msector, len);
		break;
	case RL_SYNC_REBUILD:
		ok &= ~BIT(req->target);
		r = am_sync_copy(am, ok ? __ffs(ok) : RL_NONE,
				 BIT(req->target), req->msector, len);
		break;
	default:
		r = am_sync_check(am, req, len);
		break;
	}
out:
	up_write(&am->sync_sem);
	req->len = len;
	return r;
}

int am_cycle_init(struct am *am, char **error)
{
	struct rl_array *a = am->a;
	unsigned int d;

	mutex_init(&am->cyc_lock);
	init_rwsem(&am->sync_sem);
	INIT_DELAYED_WORK(&am->cyc_work, am_cycle_work);
	INIT_WORK(&am->kick_work, am_kick_work);
	INIT_WORK(&am->fix_work, am_fix_work);
	rl_am_cycle_init(&am->cyc, ktime_get_ns(),
			 (u64)a->sopt[AM_OPT_CYCLE_MIN] * NSEC_PER_MSEC,
			 (u64)a->sopt[AM_OPT_CYCLE_MAX] * NSEC_PER_MSEC,
			 a->sopt[AM_OPT_OVERLAP]);
	am->cyc.single_batch = a->sopt[AM_OPT_SINGLE];
	WRITE_ONCE(am->stopped, true);
	if (rl_mio_bioset_init(&am->bs, 256)) {
		*error = "altmirror: cannot allocate its bioset";
		return -ENOMEM;
	}
	for (d = 0; d < RL_AM_DISKS; d++) {
		struct am_batch *b = &am->b[d];

		b->am = am;
		INIT_WORK(&b->work, am_install_work);
		b->e = kvcalloc(am->nr, sizeof(*b->e), GFP_KERNEL);
		b->runs = kvcalloc(am->nr, sizeof(*b->runs), GFP_KERNEL);
		b->buf = vmalloc(array_size(AM_BUF_BLOCKS, RL_AM_BLOCK));
		am->sync_buf[d] = vmalloc(AM_SYNC_SECTORS << SECTOR_SHIFT);
		if (!b->e || !b->runs || !b->buf || !am->sync_buf[d]) {
			*error = "altmirror: cannot allocate its batches";
			return -ENOMEM;
		}
	}
	return 0;
}

void am_cycle_free(struct am *am)
{
	unsigned int d;

	for (d = 0; d < RL_AM_DISKS; d++) {
		vfree(am->sync_buf[d]);
		vfree(am->b[d].buf);
		kvfree(am->b[d].runs);
		kvfree(am->b[d].e);
	}
	bioset_exit(&am->bs);
}
