// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: region operations, each in a preallocated workspace
 * (struct plog_ws: one region's check information, f * S chunks, the rows'
 * P then for f = 2 their Q; a staging buffer, a segment or a window of a
 * member's slice; a window of log segments). Reintegrations run
 * concurrently, up to plog_nr_ws() of them, each on a region whose log is
 * on members no other one reads (op_sem read); every other operation runs
 * alone (op_sem write, workspace 0):
 *
 *   reintegrate   the region's log on disk, generation disk_gen, is
 *                 applied to its parity: one sequential read of the
 *                 parity slots per data member, the segments read and
 *                 checked one by one, applied in log order, the parity
 *                 written back (REQ_FUA), then the log truncated
 *                 (generation + 1). Records meanwhile go to the next
 *                 generation, whose segments wait.
 *   recompute     the parity from the data (every data member's slice
 *                 read), the log dropped: resync, a lost sublog.
 *   fix-up        a member became unreadable: if it is one of the
 *                 region's data members its log is reintegrated; if it
 *                 logs the region the parity is recomputed. The region
 *                 then runs DIRECT until the member is back.
 *   check/repair  after a reintegration, the parity against the data.
 *   rebuild       of a data member: reintegrate, then its slice from the
 *                 other members' rows; of a log member: recompute.
 *
 * With f = 2 (P + Q, the log on two copies, paper §9) the same, except:
 * a segment is read from copy 0, or from copy 1 when copy 0 cannot be
 * read or fails its check (counted in log_fallbacks); a lost log member
 * costs nothing while every sublog has a readable copy (the fix-up
 * reintegrates from it, buffers a lost copy keeps from the disk are
 * applied from memory), the check information is recomputed only when a
 * sublog has no copy left; a rebuild of a data member solves each row
 * for its chunk with lib/raid6 (a second member may be missing too); a
 * rebuild of a log member reintegrates the region's log (its other copy)
 * so that nothing refers to the blank one.
 *
 * Operations that drop or rewrite the whole log freeze the region first
 * (new accesses wait, those in flight end). The parity is rewritten under
 * a write-intent bit (with metadata): a crash in the middle leaves the
 * region dirty, and it is then recomputed from the data (sync.c's resync)
 * instead of a log replayed over a torn parity. With DAX the rewrite is
 * also marked in the region table until its parity is durable: the intent
 * bit clears lazily, the mark tells recovery which parity may be torn.
 *
 * This file has reintegration and what it needs: intents over a parity
 * rewrite, the log's truncation; the other operations are in plog_bg.c,
 * crash recovery in plog_recover.c.
 */
#include <linux/raid/xor.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "plog_int.h"

/*
 * Intent over a parity rewrite: a crash in it makes the region resync.
 * With DAX the rewrite is also marked in the region table, durably and
 * until plog_op_intent_end() (the intent bit clears lazily: recovery
 * tells a torn parity by the mark). *@region is U64_MAX without a
 * bitmap. An error means the intent is not durable: the caller must not
 * write parity.
 */
int plog_op_intent(struct plog *p, u32 r, u64 *region)
{
	struct rl_md *md = p->a->md;
	u64 reg;
	int ret;

	*region = U64_MAX;
	if (!md)
		return 0;
	reg = rl_md_region(rl_md_state(md), p->keys[r]);
	ret = rl_md_intent_start(md, reg);
	if (ret)
		return ret;
	if (p->pm)
		rl_plog_md_set_rewrite(p->pm, r, true);
	*region = reg;
	return 0;
}

/*
 * The rewrite plog_op_intent() covered ended: @done, its parity durable
 * (the mark cleared); else the mark stays, and a crash before the next
 * rewrite that is done recomputes the region rather than replay its log.
 */
void plog_op_intent_end(struct plog *p, u32 r, u64 region, bool done)
{
	if (region == U64_MAX)
		return;
	if (p->pm && done)
		rl_plog_md_set_rewrite(p->pm, r, false);
	rl_md_intent_end(p->a->md, region);
}

/*
 * Drop region @r's log, in RAM and on disk: a new generation. The region
 * is frozen; called with p->lock held. Returns true if the region's
 * write-intent reference is to be dropped.
 */
static bool plog_truncate_locked(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];
	u64 gen = max(rg->gen, rg->disk_gen) + 1;
	struct rl_plog_buf *b, *n;
	bool drop = rg->intent;

	while (rg->log_busy)
		plog_wait_locked(p);
	/* the table first: a crash after it must not replay what follows */
	if (p->pm)
		rl_plog_md_set_region(p->pm, r, gen, 0);
	if (rg->cur) {
		plog_buf_drop(p, rg->cur);
		rg->cur = NULL;
	}
	list_for_each_entry_safe(b, n, &p->sealq, list) {
		if (b->region != r)
			continue;
		list_del(&b->list);
		plog_buf_drop(p, b);
	}
	rg->gen = gen;
	rg->disk_gen = gen;
	rg->next_seg = 0;
	rg->disk_segs = 0;
	rg->queued = 0;
	rg->recs = 0;
	rg->rs = PLOG_RS_OPEN;
	rg->intent = false;
	plog_kick(p);
	return drop;
}

void plog_truncate(struct plog *p, u32 r)
{
	bool drop;

	mutex_lock(&p->lock);
	drop = plog_truncate_locked(p, r);
	mutex_unlock(&p->lock);
	if (drop)
		rl_md_intent_end(p->a->md, rl_md_region(rl_md_state(p->a->md),
							p->keys[r]));
}

/* Recompute the parity of frozen region @r and drop its log. */
int plog_recompute_truncate(struct plog_ws *w, u32 r)
{
	struct plog *p = w->p;
	u64 region;
	int ret;

	ret = plog_op_intent(p, r, &region);
	if (ret)
		return ret;
	ret = plog_recompute(w, r);
	if (!ret) {
		/*
		 * the parity now describes the data as read: make that data
		 * durable before the log and twins that cover it go
		 */
		plog_flush_data(p, r);
		plog_truncate(p, r);
	}
	plog_op_intent_end(p, r, region, !ret);
	return ret;
}

/* Is a log member of region @r in @bad? */
static bool plog_log_member_bad(struct plog *p, u32 r, unsigned long bad)
{
	unsigned int i;

	for (i = 0; i < p->lo.nlog; i++)
		if (test_bit(rl_plog_log_member(&p->lo, r, i), &bad))
			return true;
	return false;
}

/* Has a sublog of region @r no copy off the @bad members (its log lost)? */
bool plog_log_bad(struct plog *p, u32 r, unsigned long bad)
{
	const struct rl_plog_layout *lo = &p->lo;
	unsigned int i, c;

	for (i = 0; i < lo->l; i++) {
		for (c = 0; c < lo->f; c++)
			if (!test_bit(rl_plog_log_member(lo, r, c * lo->l + i),
				      &bad))
				break;
		if (c == lo->f)
			return true;
	}
	return false;
}

/* Is a data member of region @r in @bad? */
bool plog_data_bad(struct plog *p, u32 r, unsigned long bad)
{
	unsigned int t;

	for (t = 0; t < p->lo.g; t++)
		if (test_bit(rl_plog_data_member(&p->lo, r, t), &bad))
			return true;
	return false;
}

/*
 * Wait until every buffer of the generation on disk is written. -EIO if
 * one cannot be: a member the log needs is unreadable. With f = 2 and a
 * copy of the log lost but each sublog still readable, a frozen region
 * does not wait for them (the log writer may not write segments one of
 * whose copies cannot land): 1, its buffers are to be applied from memory
 * (plog_take_mem()); one not frozen gets -EIO, and its fix-up comes.
 */
static int plog_wait_gen_written(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b;
	unsigned long bad;
	bool left;

	for (;;) {
		left = rg->log_busy;
		list_for_each_entry(b, &p->sealq, list)
			if (b->region == r &&
			    le64_to_cpu(((struct rl_plog_seg_disk *)b->seg)->gen) ==
			    rg->disk_gen)
				left = true;
		if (!left)
			return 0;
		bad = rl_unreadable_at(p->a, p->keys[r]);
		if (plog_log_bad(p, r, bad))
			return -EIO;
		if (plog_log_member_bad(p, r, bad)) {
			if (!rg->frozen)
				return -EIO;
			if (!rg->log_busy)
				return 1;
		}
		plog_wait_locked(p);
	}
}

/* Is a buffer of region @r's generation on disk waiting for a commit? */
static bool plog_gen_pending(struct plog *p, u32 r)
{
	struct rl_plog_buf *b;

	list_for_each_entry(b, &p->sealq, list)
		if (b->region == r && b->pending &&
		    le64_to_cpu(((struct rl_plog_seg_disk *)b->seg)->gen) ==
		    p->reg[r].disk_gen)
			return true;
	return false;
}

/*
 * The buffers of region @r's generation on disk still on the seal queue
 * (f = 2, a log copy lost, the region frozen and no log write of it in
 * flight) moved to @mem, in segment order, no longer counted as queued.
 * p->lock held; waits (dropping it) until every record of theirs is
 * COMMITTED: a writer in flight still owns its record and its buffer.
 */
static void plog_take_mem(struct plog *p, u32 r, struct list_head *mem)
{
	struct plog_region *rg = &p->reg[r];
	const struct rl_plog_seg_disk *h;
	struct rl_plog_buf *b, *n;

	while (plog_gen_pending(p, r))
		plog_wait_locked(p);
	list_for_each_entry_safe(b, n, &p->sealq, list) {
		h = b->seg;
		if (b->region != r || le64_to_cpu(h->gen) != rg->disk_gen)
			continue;
		list_move_tail(&b->list, mem);
		rg->queued--;
		rg->recs -= le16_to_cpu(h->nr);
	}
}

/*
 * A reintegration that took buffers failed: they go back to the front of
 * the seal queue (they are the oldest), counted again, for the next try
 * or the fix-up. p->lock held.
 */
static void plog_return_mem(struct plog *p, u32 r, struct list_head *mem)
{
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b;

	list_for_each_entry(b, mem, list) {
		rg->queued++;
		rg->recs += le16_to_cpu(((struct rl_plog_seg_disk *)b->seg)->nr);
	}
	list_splice_init(mem, &p->sealq);
}

static void plog_drop_mem(struct plog *p, struct list_head *mem)
{
	struct rl_plog_buf *b, *n;

	list_for_each_entry_safe(b, n, mem, list) {
		list_del(&b->list);
		plog_buf_drop(p, b);
	}
}

/*
 * Apply region @r's log, generation @gen: [0, @segs) from disk, then
 * (@mem_too) what the log writer wrote meanwhile and the buffers it did
 * not write, which move to @mem (dropped by the caller once the check
 * information is written).
 */
static int plog_apply_gen(struct plog_ws *w, u32 r, u64 gen, u32 segs,
			  bool mem_too, struct list_head *mem)
{
	struct plog *p = w->p;
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b;
	u32 done = 0;
	int ret;

	for (;;) {
		ret = plog_apply_log(w, r, gen, done, segs);
		if (ret || !mem_too)
			return ret;
		done = segs;
		mutex_lock(&p->lock);
		while (rg->log_busy)
			plog_wait_locked(p);
		segs = rg->disk_segs;
		if (segs == done)
			break;
		mutex_unlock(&p->lock);
	}
	plog_take_mem(p, r, mem);
	mutex_unlock(&p->lock);
	/* as the log writer does: the data its records describe first */
	plog_flush_data(p, r);
	list_for_each_entry(b, mem, list) {
		ret = rl_plog_apply(&p->lo, b->seg, w->parity, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Reintegrate region @r's log on disk if that is wanted, in workspace @w:
 * op_sem held, for reading by a workspace's worker (other regions'
 * reintegrations may run meanwhile), or for writing with @w ws[0].
 */
int plog_do_reint(struct plog_ws *w, u32 r)
{
	struct plog *p = w->p;
	struct plog_region *rg = &p->reg[r];
	LIST_HEAD(mem);
	unsigned long bad;
	u64 gen, region = U64_MAX;
	bool drop = false, mem_too;
	u32 segs;
	int ret;

	mutex_lock(&p->lock);
	if (rg->rs == PLOG_RS_OPEN) {
		mutex_unlock(&p->lock);
		return 0;
	}
	ret = plog_wait_gen_written(p, r);
	gen = rg->disk_gen;
	segs = rg->disk_segs;
	mutex_unlock(&p->lock);
	if (ret < 0)
		return ret;
	mem_too = ret == 1;

	if (segs || mem_too) {
		bad = rl_unreadable_at(p->a, p->keys[r]);
		plog_parity_read(w, r, bad);
		ret = plog_apply_gen(w, r, gen, segs, mem_too, &mem);
		if (!ret)
			ret = plog_op_intent(p, r, &region);
		if (!ret) {
			ret = plog_parity_write(w, r, bad | READ_ONCE(p->a->failed));
			if (ret)
				plog_op_intent_end(p, r, region, false);
		}
		if (ret) {
			if (!list_empty(&mem)) {
				mutex_lock(&p->lock);
				plog_return_mem(p, r, &mem);
				plog_kick(p);
				mutex_unlock(&p->lock);
			}
			return ret;
		}
	}

	mutex_lock(&p->lock);
	if (p->pm)
		rl_plog_md_set_region(p->pm, r, gen + 1, 0);
	plog_drop_mem(p, &mem);		/* after the table: see plog.h */
	rg->disk_gen = gen + 1;
	rg->disk_segs = 0;
	rg->rs = PLOG_RS_OPEN;
	rg->reints++;
	p->reintegrations++;
	if (!p->pm && rg->intent && !rg->recs) {
		rg->intent = false;
		drop = true;
	}
	if (rg->next_seg >= p->lo.segs)
		plog_want_reint(p, r);
	queue_work(p->log_wq, &p->log_work);	/* the next generation's */
	plog_kick(p);
	mutex_unlock(&p->lock);
	plog_op_intent_end(p, r, region, true);
	if (drop)
		rl_md_intent_end(p->a->md, rl_md_region(rl_md_state(p->a->md),
							p->keys[r]));
	return 0;
}

/**
 * plog_log_members() - the members region @r's log is on
 * @lo: the layout
 * @r: a region
 *
 * Every sublog's, every copy's: f * L members, none of them one of the
 * region's data members. Pure (KUnit suite dm_raidlab_plog_sync).
 */
unsigned long plog_log_members(const struct rl_plog_layout *lo, u32 r)
{
	unsigned long mask = 0;
	unsigned int s, c, m;
	u64 msector;

	for (s = 0; s < lo->l && s < lo->segs; s++)
		for (c = 0; c < lo->f; c++) {
			rl_plog_seg_loc(lo, r, s, c, &m, &msector);
			__set_bit(m, &mask);
		}
	return mask;
}

/*
 * A region for workspace @w to reintegrate, claimed, or U32_MAX: one that
 * wants it, that no other workspace has, that waits for no fix-up or
 * recomputation, that has not lost more members than it survives (its
 * reintegration would fail again and again), and whose log is on members no running reintegration
 * reads (two sequential log reads on one disk would seek between them).
 * Round robin, so that every region gets its turn; one passed over for
 * its log members is looked at first next time. p->lock held.
 */
static u32 plog_reint_pick(struct plog *p, struct plog_ws *w)
{
	unsigned long busy = 0, mask;
	u32 k, r, skipped = U32_MAX;
	unsigned int i;

	for (i = 0; i < p->nr_ws; i++)
		if (p->ws[i].region != U32_MAX)
			busy |= p->ws[i].log_members;
	for (k = 0; k < p->lo.nr_regions; k++) {
		r = (p->reint_next + k) % p->lo.nr_regions;
		if (p->reg[r].rs != PLOG_RS_WANTED ||
		    p->reg[r].repair != PLOG_REPAIR_NONE)
			continue;
		/* more members lost than it survives: nothing to be done */
		if (hweight_long(rl_unreadable_at(p->a, p->keys[r])) >
		    p->a->redundancy)
			continue;
		mask = plog_log_members(&p->lo, r);
		if (mask & busy) {
			if (skipped == U32_MAX)
				skipped = r;
			continue;
		}
		p->reg[r].rs = PLOG_RS_RUNNING;
		/* a region passed over for its log members is first next */
		p->reint_next = skipped != U32_MAX ? skipped :
				(r + 1) % p->lo.nr_regions;
		w->region = r;
		w->log_members = mask;
		return r;
	}
	return U32_MAX;
}

/*
 * A workspace's worker: reintegrate regions while there are some it may
 * take (plog_reint_pick()), concurrently with the other workspaces'. A
 * region whose reintegration fails goes to plog_get_work(): a fix-up if a
 * member of it is unreadable, a recomputation otherwise.
 */
void plog_reint_work(struct work_struct *ws)
{
	struct plog_ws *w = container_of(ws, struct plog_ws, work);
	struct plog *p = w->p;
	struct plog_region *rg;
	int ret;
	u32 r;

	for (;;) {
		mutex_lock(&p->lock);
		r = plog_reint_pick(p, w);
		mutex_unlock(&p->lock);
		if (r == U32_MAX)
			return;
		down_read(&p->op_sem);
		ret = plog_do_reint(w, r);
		up_read(&p->op_sem);

		rg = &p->reg[r];
		mutex_lock(&p->lock);
		if (rg->rs == PLOG_RS_RUNNING)
			rg->rs = PLOG_RS_WANTED;
		w->region = U32_MAX;
		w->log_members = 0;
		if (ret && rg->rs != PLOG_RS_OPEN)
			plog_want_repair(p, r,
					 rl_unreadable_at(p->a, p->keys[r]) ?
					 PLOG_REPAIR_FIX : PLOG_REPAIR_RECOMP);
		plog_kick(p);
		mutex_unlock(&p->lock);
		/* its log members are free: another workspace may want them */
		plog_kick_reint(p);
	}
}
