// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: region state and log buffers (under p->lock).
 *
 * A region's records go to its current buffer (PENDING, then COMMITTED
 * once the data is written); a full buffer goes to the seal queue, and
 * the log writer (plog_log_work()) writes sealed buffers whose records
 * are all committed as the region's next segments, in order. A region
 * whose log is full is handed to reintegration (plog_reint.c).
 */
#include <linux/crc32c.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "../../svc/parity.h"
#include "plog_int.h"

/* Something under p->lock changed: wake whoever waits for it. */
void plog_kick(struct plog *p)
{
	WRITE_ONCE(p->events, p->events + 1);
	wake_up_all(&p->wait);
}

/*
 * Called with p->lock held: drop it until the next plog_kick(), or a
 * quarter of a second: a member failure is not an event under p->lock
 * (rl_member_fail() does not know the scheme), so waiters look again at
 * what they wait for now and then, and a writer waiting for a buffer
 * bound for a lost sublog finds its region unreadable.
 */
void plog_wait_locked(struct plog *p)
{
	unsigned long seen = p->events;

	mutex_unlock(&p->lock);
	wait_event_timeout(p->wait, READ_ONCE(p->events) != seen, HZ / 4);
	mutex_lock(&p->lock);
}

static u32 plog_seg_nr(const void *seg)
{
	return le16_to_cpu(((const struct rl_plog_seg_disk *)seg)->nr);
}

static u64 plog_seg_gen(const void *seg)
{
	return le64_to_cpu(((const struct rl_plog_seg_disk *)seg)->gen);
}

static u32 plog_seg_no(const void *seg)
{
	return le32_to_cpu(((const struct rl_plog_seg_disk *)seg)->seg);
}

/* A buffer's records are on disk, applied or dropped: back to the pool. */
void plog_buf_drop(struct plog *p, struct rl_plog_buf *b)
{
	if (p->pm)
		rl_plog_md_release(p->pm, b);
	rl_plog_pool_put(&p->pool, b);
}

/* Region @r's current buffer goes to the seal queue (or back, if empty). */
void plog_detach_cur(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b = rg->cur;

	if (!b)
		return;
	rg->cur = NULL;
	if (!plog_seg_nr(b->seg)) {
		rg->next_seg--;		/* it was the last one handed out */
		plog_buf_drop(p, b);
		plog_kick(p);
		return;
	}
	list_add_tail(&b->list, &p->sealq);
	rg->queued++;
	queue_work(p->log_wq, &p->log_work);
}

/* Let every workspace look for a reintegration to run. */
void plog_kick_reint(struct plog *p)
{
	unsigned int i;

	if (READ_ONCE(p->stopping))
		return;
	for (i = 0; i < p->nr_ws; i++)
		queue_work(p->reint_wq, &p->ws[i].work);
}

/*
 * Reintegrate region @r's log on disk: records go to the next generation
 * meanwhile, whose segments wait for the truncation.
 */
void plog_want_reint(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];

	if (rg->rs != PLOG_RS_OPEN)
		return;
	plog_detach_cur(p, r);
	rg->rs = PLOG_RS_WANTED;
	rg->gen = rg->disk_gen + 1;
	rg->next_seg = 0;
	plog_kick_reint(p);
}

/*
 * Ask for repair @level of region @r, if it does not wait for as much
 * already. p->lock held.
 */
void plog_want_repair(struct plog *p, u32 r, enum plog_repair level)
{
	struct plog_region *rg = &p->reg[r];

	if (rg->repair >= level)
		return;
	rg->repair = level;
	if (!READ_ONCE(p->stopping))
		rl_sync_want_work(p->a);
}

/*
 * The pool is empty: send the fullest partial buffer to the log, so that
 * writers cannot all wait on buffers that no one fills up.
 */
static void plog_pool_pressure(struct plog *p)
{
	u32 r, best = U32_MAX, room, best_room = U32_MAX;

	for (r = 0; r < p->lo.nr_regions; r++) {
		struct rl_plog_buf *b = p->reg[r].cur;

		if (!b || !plog_seg_nr(b->seg))
			continue;
		room = rl_plog_seg_room(b->seg, &p->lo);
		if (room < best_room) {
			best_room = room;
			best = r;
		}
	}
	if (best != U32_MAX)
		plog_detach_cur(p, best);
}

/* Mirror what record @rec changed in @b to its DAX twin. */
static void plog_twin_sync(struct plog *p, struct rl_plog_buf *b,
			   unsigned int rec, bool payload)
{
	unsigned int hdr_hi, lo, hi;

	if (!p->pm)
		return;
	rl_plog_seg_dirty(b->seg, rec, &hdr_hi, &lo, &hi);
	if (payload && hi > lo)
		rl_plog_md_sync(p->pm, b, lo, hi);
	rl_plog_md_sync(p->pm, b, 0, hdr_hi);
}

/*
 * The bio's data to the context's data slot (DAX, slots on): before the
 * append, outside the lock; plog_slot_seal() makes it durable.
 */
void plog_slot_write(struct plog_ctx *c)
{
	struct rl_plog_md *pm = c->p->pm;
	struct bvec_iter it;
	struct bio_vec bv;
	u32 crc = ~0U, off = 0;

	c->slot = rl_plog_md_slots_on(pm);
	if (!c->slot)
		return;
	bio_for_each_segment(bv, c->cell.bio, it) {
		char *va = bvec_kmap_local(&bv);

		rl_plog_md_slot_put(pm, c->id, off, va, bv.bv_len);
		crc = crc32c(crc, va, bv.bv_len);
		kunmap_local(va);
		off += bv.bv_len;
	}
	c->slot_csum = crc;
}

/*
 * Under the lock, the write's first record appended to @b at @idx and not
 * yet in the twin: the slot names it, durably, so that a PENDING record
 * in a twin always has its slot (plog.h, DATA SLOTS).
 */
static void plog_slot_seal(struct plog_ctx *c, struct rl_plog_buf *b, int idx)
{
	struct rl_plog_slot_id id = {
		.region = c->region,
		.gen = plog_seg_gen(b->seg),
		.seg = plog_seg_no(b->seg),
		.rec = idx,
		.nrec = c->nr_recs,
		.row = c->rrow,
		.off = c->off,
		.len = bio_sectors(c->cell.bio),
	};

	if (c->slot)
		rl_plog_md_slot_seal(c->p->pm, c->id, &id, c->slot_csum);
}

/*
 * Room for the context's whole plan in region @r: the fresh buffers it
 * needs are in the pool and within the log. Otherwise make room (a
 * reintegration, a buffer to the log) and wait: false, look again.
 * Nothing is appended meanwhile, so a waiting writer holds no PENDING
 * record that a buffer it waits for could be stuck on.
 */
static bool plog_room(struct plog_ctx *c, struct plog_region *rg)
{
	struct plog *p = c->p;
	unsigned int need;

	need = plog_plan_bufs(&p->lo, rg->cur ? rg->cur->seg : NULL, c->plan,
			      c->nr_recs);
	if (!need)
		return true;
	if (rg->next_seg + need > p->lo.segs) {
		/* the log is full: reintegrate it */
		if (rg->rs == PLOG_RS_OPEN) {
			plog_want_reint(p, c->region);
		} else {
			if (rg->rs == PLOG_RS_WANTED)
				plog_kick_reint(p);
			plog_wait_locked(p);
		}
		return false;
	}
	if (READ_ONCE(p->pool.nr_free) >= need)
		return true;
	spin_lock_irq(&p->pool.lock);
	p->pool.waits++;
	spin_unlock_irq(&p->pool.lock);
	plog_pool_pressure(p);
	plog_wait_locked(p);
	return false;
}

/* A fresh buffer for region @r, from a pool plog_room() found it in. */
static struct rl_plog_buf *plog_new_cur(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b = rl_plog_pool_get(&p->pool);

	if (WARN_ON_ONCE(!b))
		return NULL;
	rl_plog_seg_init(b->seg, &p->lo, r, rg->gen, rg->next_seg++);
	b->region = r;
	b->pending = 0;
	rg->cur = b;
	return b;
}

/*
 * Append the context's records (its plan) PENDING to its region's log,
 * all of them or none: a write's records may span buffers, filled one
 * after the other, without dropping the lock. Returns -EAGAIN, nothing
 * appended, if a member of the region became unreadable meanwhile:
 * buffers bound for a lost sublog never free, and the region is to be
 * fixed up and served DIRECT instead. Returns -EBUSY, nothing appended,
 * if it had to wait for room while the region froze: a fix-up or a
 * recomputation may be what frees it, and it waits for this access.
 */
int plog_append(struct plog_ctx *c)
{
	struct plog *p = c->p;
	struct plog_region *rg = &p->reg[c->region];
	const struct plog_rec_plan *pl;
	struct rl_plog_buf *b;
	unsigned int i;
	int idx;

	mutex_lock(&p->lock);
	for (;;) {
		if (rl_unreadable_at(p->a, p->keys[c->region])) {
			mutex_unlock(&p->lock);
			return -EAGAIN;
		}
		if (plog_room(c, rg))
			break;
		/*
		 * A region operation waits for this access to leave (its
		 * room may only come from that operation): leave, and come
		 * back after the thaw.
		 */
		if (rg->frozen) {
			mutex_unlock(&p->lock);
			return -EBUSY;
		}
	}
	for (i = 0; i < c->nr_recs; i++) {
		pl = &c->plan[i];
		b = rg->cur;
		if (!b || plog_plan_bufs(&p->lo, b->seg, pl, 1)) {
			plog_detach_cur(p, c->region);
			b = plog_new_cur(p, c->region);
			if (!b)
				break;
		}
		idx = rl_plog_seg_append(b->seg, &p->lo, pl->type, c->rrow,
					 pl->col, pl->lo, pl->hi - pl->lo,
					 c->col[pl->src] + (pl->lo << SECTOR_SHIFT),
					 RL_PLOG_PENDING);
		/* not reached: plog_room() counted the buffers */
		if (WARN_ON_ONCE(idx < 0))
			break;
		b->pending++;
		rg->recs++;
		if (!i)
			plog_slot_seal(c, b, idx);
		plog_twin_sync(p, b, idx, true);
		c->rec[i].buf = b;
		c->rec[i].idx = idx;
	}
	mutex_unlock(&p->lock);
	c->nr_recs = i;		/* the records appended get committed */
	return 0;
}

/* The context's data write has ended: its records count. */
void plog_commit(struct plog_ctx *c)
{
	struct plog *p = c->p;
	struct rl_plog_buf *b;
	unsigned int i;

	mutex_lock(&p->lock);
	for (i = 0; i < c->nr_recs; i++) {
		b = c->rec[i].buf;
		rl_plog_seg_set_state(b->seg, c->rec[i].idx, RL_PLOG_COMMITTED);
		plog_twin_sync(p, b, c->rec[i].idx, false);
		if (!--b->pending && b != p->reg[c->region].cur)
			queue_work(p->log_wq, &p->log_work);
		c->rec[i].buf = NULL;
	}
	mutex_unlock(&p->lock);
}

/* Flush the write caches of @members. */
static void plog_flush_members(struct plog *p, unsigned long members)
{
	rl_members_flush_fail(p->a, members, "flush failed");
}

/*
 * Flush the volatile caches of region @r's data members: a record on disk
 * (or applied) must not describe a data write a crash can still undo.
 */
void plog_flush_data(struct plog *p, u32 r)
{
	unsigned long members = 0;
	unsigned int t;

	for (t = 0; t < p->lo.g; t++)
		__set_bit(rl_plog_data_member(&p->lo, r, t), &members);
	plog_flush_members(p, members);
}

/*
 * The copies of @b's segment on members readable in its region, a bit
 * each (f = 2: the log is replicated, paper §9).
 */
static unsigned int plog_seg_copies(struct plog *p, struct rl_plog_buf *b)
{
	unsigned long bad = rl_unreadable_at(p->a, p->keys[b->region]);
	unsigned int i, m, copies = 0;
	u64 msector;

	for (i = 0; i < p->lo.f; i++) {
		rl_plog_seg_loc(&p->lo, b->region, plog_seg_no(b->seg), i, &m,
				&msector);
		if (!test_bit(m, &bad))
			copies |= BIT(i);
	}
	return copies;
}

/* The copies in @copies whose member did not fail I/O in @bad. */
static unsigned int plog_seg_landed(struct plog *p, struct rl_plog_buf *b,
				    unsigned int copies, unsigned long bad)
{
	unsigned int i, m;
	u64 msector;

	for (i = 0; i < p->lo.f; i++) {
		rl_plog_seg_loc(&p->lo, b->region, plog_seg_no(b->seg), i, &m,
				&msector);
		if (test_bit(m, &bad))
			copies &= ~BIT(i);
	}
	return copies;
}

/*
 * The log writer's next batch, under p->lock: every sealed buffer that is
 * its region's next segment and whose records are all committed, marked
 * log_busy; the data members its records describe are added to @flush.
 */
static unsigned int plog_log_batch(struct plog *p, unsigned long *flush)
{
	struct rl_plog_buf *x;
	struct plog_region *rg;
	unsigned int nr = 0, t, copies;

	list_for_each_entry(x, &p->sealq, list) {
		rg = &p->reg[x->region];
		if (x->pending || rg->log_busy ||
		    plog_seg_gen(x->seg) != rg->disk_gen ||
		    plog_seg_no(x->seg) != rg->disk_segs)
			continue;
		copies = plog_seg_copies(p, x);
		if (!copies) {
			/* the fix-up drops it: make sure one comes */
			plog_want_repair(p, x->region, PLOG_REPAIR_FIX);
			continue;
		}
		rg->log_busy = true;
		rl_plog_seg_seal(x->seg, &p->lo);
		for (t = 0; t < p->lo.g; t++)
			__set_bit(rl_plog_data_member(&p->lo, x->region, t),
				  flush);
		p->batch_copies[nr] = copies;
		p->batch[nr++] = x;
	}
	return nr;
}

/* Write the batch's segments, each to its copies; the members that failed. */
static unsigned long plog_log_write(struct plog *p, unsigned int nr)
{
	struct rl_plog_buf *b;
	unsigned long bad;
	struct rl_mio_group g;
	unsigned int i, m, cp;
	u64 msector;

	rl_mio_init(&g, p->a, &p->bs);
	for (i = 0; i < nr; i++) {
		b = p->batch[i];
		for (cp = 0; cp < p->lo.f; cp++) {
			if (!(p->batch_copies[i] & BIT(cp)))
				continue;
			rl_plog_seg_loc(&p->lo, b->region, plog_seg_no(b->seg),
					cp, &m, &msector);
			rl_mio(&g, m, REQ_OP_WRITE | REQ_FUA, msector,
			       b->seg, p->lo.seg_sectors, RL_FG,
			       RL_PARITY_WRITE);
		}
	}
	bad = rl_mio_wait(&g);
	rl_mio_fail(&g, "log write error");
	return bad;
}

/*
 * The batch's segments landed, under p->lock: each that has a copy on
 * disk is its region's next segment (in the DAX table too), its buffer
 * back to the pool; a region whose log is full goes to reintegration.
 */
static void plog_log_landed(struct plog *p, unsigned int nr, unsigned long bad)
{
	struct rl_plog_buf *b;
	struct plog_region *rg;
	unsigned int i, copies;
	u32 seg;

	for (i = 0; i < nr; i++) {
		b = p->batch[i];
		rg = &p->reg[b->region];
		seg = plog_seg_no(b->seg);
		rg->log_busy = false;
		copies = plog_seg_landed(p, b, p->batch_copies[i], bad);
		if (!copies) {
			plog_want_repair(p, b->region, PLOG_REPAIR_FIX);
			continue;
		}
		if (p->pm)
			rl_plog_md_set_region(p->pm, b->region,
					      plog_seg_gen(b->seg), seg + 1);
		rg->disk_segs = seg + 1;
		rg->queued--;
		rg->recs -= plog_seg_nr(b->seg);
		list_del(&b->list);
		p->log_bytes += (u64)hweight32(copies) *
				(p->lo.seg_sectors << SECTOR_SHIFT);
		if (rg->disk_segs >= p->lo.segs)
			plog_want_reint(p, b->region);
		plog_buf_drop(p, b);
	}
}

/*
 * The log writer: write every sealed buffer whose records are all
 * committed, as its region's next segment on disk. Regions' segments go
 * out together, a batch at a time: one flush of the data members the
 * batch's records describe, then all its segment writes in parallel (a
 * region has one segment in flight at most, so its segments land in
 * order). A segment goes to each of its f copies on a readable member; it
 * is on disk once they have completed, if one landed (a copy that failed
 * fails its member). A log write is not on a user write's path, but a
 * slow log writer empties the buffer pool, and then writers wait.
 */
void plog_log_work(struct work_struct *ws)
{
	struct plog *p = container_of(ws, struct plog, log_work);
	unsigned long bad, flush;
	unsigned int nr;

	for (;;) {
		flush = 0;
		mutex_lock(&p->lock);
		nr = plog_log_batch(p, &flush);
		mutex_unlock(&p->lock);
		if (!nr)
			return;
		/* the data its records describe is durable before they are */
		plog_flush_members(p, flush);
		bad = plog_log_write(p, nr);
		mutex_lock(&p->lock);
		plog_log_landed(p, nr, bad);
		plog_kick(p);
		mutex_unlock(&p->lock);
	}
}
