// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab metadata: the write-intent bitmap (metadata.c's head
 * comment has the locking): a bit durable before the write it covers
 * starts, cleared by a pass that runs now and then once the members are
 * flushed and nothing runs in the region.
 */
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/dax.h>
#include <linux/device-mapper.h>
#include <linux/dm-bufio.h>
#include <linux/dm-io.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pfn_t.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "metadata_int.h"

/* Regions in bitmap block @index. */
unsigned int rl_md_block_bits(struct rl_md *md, u64 index)
{
	return min_t(u64, RL_MD_BITS_PER_BLOCK,
		     md->st.nr_regions - index * RL_MD_BITS_PER_BLOCK);
}

/* Write bitmap block @index from bits | pending and make it durable. */
static int rl_md_bitmap_write(struct rl_md *md, u64 index)
{
	unsigned long *bits = md->bits + index * RL_MD_WORDS_PER_BLOCK;
	unsigned long *pend = md->pending + index * RL_MD_WORDS_PER_BLOCK;
	unsigned long *snap = md->snap;
	int r;

	lockdep_assert_held(&md->io_mutex);
	spin_lock_irq(&md->ilock);
	bitmap_or(snap, bits, pend, RL_MD_BITS_PER_BLOCK);
	spin_unlock_irq(&md->ilock);

	rl_md_bitmap_encode(md->st.bitmap_start + index, ++md->bitmap_seq,
			    snap, rl_md_block_bits(md, index), md->bmblk);
	r = rl_md_write(md, md->st.bitmap_start + index, md->bmblk);
	if (!r)
		r = rl_md_sync(md);
	if (r)
		return r;
	atomic64_inc(&md->intent_writes);
	/* what was written is durable, pending bits included */
	spin_lock_irq(&md->ilock);
	bitmap_or(bits, bits, snap, RL_MD_BITS_PER_BLOCK);
	bitmap_andnot(pend, pend, snap, RL_MD_BITS_PER_BLOCK);
	spin_unlock_irq(&md->ilock);
	return 0;
}

int rl_md_intent_start(struct rl_md *md, u64 region)
{
	bool durable;
	int r = 0;

	if (region >= md->st.nr_regions)
		return -EINVAL;
	if (rl_md_failed(md))
		return -EIO;
	spin_lock_irq(&md->ilock);
	md->inflight[region]++;
	__set_bit(region, md->used);
	durable = test_bit(region, md->bits);
	if (!durable)
		__set_bit(region, md->pending);
	spin_unlock_irq(&md->ilock);
	if (durable)
		return 0;

	mutex_lock(&md->io_mutex);
	spin_lock_irq(&md->ilock);
	durable = test_bit(region, md->bits);	/* another writer did it */
	spin_unlock_irq(&md->ilock);
	if (!durable && md->clean_durable) {
		/* a bit is about to be set: the shutdown is not clean */
		rl_md_lock(md);
		md->st.flags &= ~RL_MD_CLEAN;
		r = rl_md_commit(md, false);
		rl_md_unlock(md);
		if (!r)
			md->clean_durable = false;
	}
	if (!durable && !r)
		r = rl_md_bitmap_write(md, div_u64(region, RL_MD_BITS_PER_BLOCK));
	mutex_unlock(&md->io_mutex);
	if (r) {
		rl_md_intent_end(md, region);
		return rl_md_failed(md) ? -EIO : r;
	}
	queue_delayed_work(system_long_wq, &md->clear_work, RL_MD_CLEAR_PERIOD);
	return 0;
}

bool rl_md_intent_try(struct rl_md *md, u64 region)
{
	unsigned long flags;
	bool durable;

	if (region >= md->st.nr_regions || rl_md_failed(md))
		return false;
	spin_lock_irqsave(&md->ilock, flags);
	durable = test_bit(region, md->bits);
	if (durable) {
		md->inflight[region]++;
		__set_bit(region, md->used);
	}
	spin_unlock_irqrestore(&md->ilock, flags);
	return durable;
}

void rl_md_intent_end(struct rl_md *md, u64 region)
{
	unsigned long flags;

	if (region >= md->st.nr_regions)
		return;
	spin_lock_irqsave(&md->ilock, flags);
	if (!WARN_ON_ONCE(!md->inflight[region]))
		md->inflight[region]--;
	spin_unlock_irqrestore(&md->ilock, flags);
}

void rl_md_intent_resynced(struct rl_md *md, u64 first, u64 nr)
{
	if (first >= md->st.nr_regions)
		return;
	nr = min(nr, md->st.nr_regions - first);
	spin_lock_irq(&md->ilock);
	bitmap_clear(md->pinned, first, nr);
	spin_unlock_irq(&md->ilock);
}

const unsigned long *rl_md_dirty_at_load(struct rl_md *md)
{
	return md->dirty_at_load;
}

void rl_md_intent_counts(struct rl_md *md, u64 *dirty, u64 *writes)
{
	unsigned long flags;

	spin_lock_irqsave(&md->ilock, flags);
	*dirty = bitmap_weight(md->bits, md->st.nr_regions);
	spin_unlock_irqrestore(&md->ilock, flags);
	*writes = atomic64_read(&md->intent_writes);
}

/*
 * Flush every live member: completed writes reach their media. A member
 * whose flush fails is reported (md->member_error).
 */
static int rl_md_flush_members(struct rl_md *md)
{
	struct rl_array *a = md->a;
	unsigned int i;
	int r = 0;

	for (i = 0; i < a->geom.nr_members; i++) {
		if (!a->members[i].dev || rl_member_failed(a, i))
			continue;
		if (blkdev_issue_flush(a->members[i].dev->bdev)) {
			md->member_error(a, i, "flush failed");
			r = -EIO;
		}
	}
	return r;
}

/*
 * Whether a member is out: failed, or re-added and not rebuilt yet. A
 * role moves between the two sets without a lock: a re-add enters
 * a->readd before it leaves a->failed (sync_readd.c); a re-added member
 * that fails again enters a->failed before it leaves a->readd (the
 * lifecycle, after a full barrier). Reading a->readd on both sides of
 * a->failed finds it in one of them, whichever way it moves. Any context.
 */
static bool rl_md_holding(struct rl_md *md)
{
	struct rl_array *a = md->a;

	if (READ_ONCE(a->readd))
		return true;
	smp_rmb();	/* a role out of a->readd is in a->failed (above) */
	if (READ_ONCE(a->failed))
		return true;
	smp_rmb();	/* a role out of a->failed is in a->readd (above) */
	return READ_ONCE(a->readd);
}

bool rl_md_intent_touched(struct rl_md *md, u64 first, u64 last)
{
	u64 end = last + 1;
	unsigned long flags;
	bool touched;

	if (last >= md->st.nr_regions || first > last || rl_md_failed(md))
		return true;
	spin_lock_irqsave(&md->ilock, flags);
	touched = find_next_bit(md->bits, end, first) < end ||
		  find_next_bit(md->pending, end, first) < end ||
		  find_next_bit(md->held, end, first) < end;
	spin_unlock_irqrestore(&md->ilock, flags);
	return touched;
}

/* Pick idle regions to clear; returns their count. Under io_mutex. */
static u64 rl_md_pick_idle(struct rl_md *md, bool clean)
{
	u64 nr = md->st.nr_regions, n = 0;
	unsigned long r;

	spin_lock_irq(&md->ilock);
	bitmap_andnot(md->cand, md->bits, md->pinned, nr);
	if (!clean)
		bitmap_andnot(md->cand, md->cand, md->used, nr);
	for_each_set_bit(r, md->cand, nr) {
		if (md->inflight[r])
			__clear_bit(r, md->cand);
		else
			n++;
	}
	bitmap_zero(md->used, nr);
	spin_unlock_irq(&md->ilock);
	return n;
}

int rl_md_intent_flush(struct rl_md *md, bool clean)
{
	u64 nr = md->st.nr_regions, index;
	unsigned long r;
	bool empty, hold;
	int ret = 0;

	mutex_lock(&md->io_mutex);
	if (rl_md_failed(md)) {
		ret = -EIO;
		goto out;
	}
	if (rl_md_pick_idle(md, clean)) {
		if (rl_md_flush_members(md)) {
			ret = -EIO;
			goto out;
		}
		/* after the flush: a member out before it was not flushed */
		hold = rl_md_holding(md);
		/* a write started since the pick keeps its region */
		spin_lock_irq(&md->ilock);
		for_each_set_bit(r, md->cand, nr) {
			if (md->inflight[r] || (!clean && test_bit(r, md->used)))
				__clear_bit(r, md->cand);
			else
				__clear_bit(r, md->bits);
		}
		if (hold)
			bitmap_or(md->held, md->held, md->cand, nr);
		spin_unlock_irq(&md->ilock);
		for (index = 0; index < md->st.bitmap_blocks; index++) {
			u64 first = index * RL_MD_BITS_PER_BLOCK;
			u64 last = first + rl_md_block_bits(md, index);

			if (find_next_bit(md->cand, last, first) >= last)
				continue;
			ret = rl_md_bitmap_write(md, index);
			if (ret)
				goto out;
		}
	}
	spin_lock_irq(&md->ilock);
	if (!rl_md_holding(md))
		bitmap_zero(md->held, nr);	/* nobody is out to catch up */
	empty = bitmap_empty(md->bits, nr) && bitmap_empty(md->pending, nr);
	spin_unlock_irq(&md->ilock);
	if (clean && empty) {
		rl_md_lock(md);
		md->st.flags |= RL_MD_CLEAN;
		ret = rl_md_commit(md, false);
		rl_md_unlock(md);
		if (!ret)
			md->clean_durable = true;
	}
out:
	mutex_unlock(&md->io_mutex);
	return ret;
}

void rl_md_resume(struct rl_md *md)
{
	mutex_lock(&md->io_mutex);
	md->clean_durable = true;
	mutex_unlock(&md->io_mutex);
}

void rl_md_clear_work(struct work_struct *ws)
{
	struct rl_md *md = container_of(to_delayed_work(ws), struct rl_md,
					clear_work);
	bool again;

	if (rl_md_intent_flush(md, false))
		return;
	spin_lock_irq(&md->ilock);
	again = !bitmap_subset(md->bits, md->pinned, md->st.nr_regions);
	spin_unlock_irq(&md->ilock);
	if (again)
		queue_delayed_work(system_long_wq, &md->clear_work,
				   RL_MD_CLEAR_PERIOD);
}
