// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab altmirror: the pool (am.h has its format). Its slots, their
 * in-core state and index (a hash of the newest version of each block),
 * the write path (a slot filled and made durable, then the write is
 * acknowledged), reads served from the pool, and the load's taking back
 * of a crash's slots.
 */
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "am_int.h"

static struct rl_am_slot_disk *am_slot_hdr(struct am *am, u32 slot)
{
	u64 pos = rl_am_hdr_pos(slot);
	struct dm_buffer *b;
	void *p = rl_md_area_map(am->a->md, &am->area, pos / RL_AM_BLOCK,
				 false, &b);

	return p ? p + pos % RL_AM_BLOCK : NULL;
}

/* The slot's data: pmem (DAX, never a dm-bufio buffer) or memory. */
void *am_slot_data(struct am *am, u32 slot)
{
	struct dm_buffer *b;

	if (am->vol)
		return am->vdata + (size_t)slot * RL_AM_BLOCK;
	return rl_md_area_map(am->a->md, &am->area,
			      rl_am_data_block(am->nr, slot), false, &b);
}

static struct hlist_head *am_bucket(struct am *am, u64 lblock)
{
	return &am->index[hash_64(lblock, am->index_bits)];
}

/* The newest version of @lblock in the pool, or NULL. Under am->lock. */
struct am_ent *am_lookup(struct am *am, u64 lblock)
{
	struct am_ent *e;

	hlist_for_each_entry(e, am_bucket(am, lblock), hnode)
		if (e->lblock == lblock)
			return e;
	return NULL;
}

/*
 * Disks whose failure is recorded (->member_failed told) while that disk
 * still holds the role: a spare that took it is not dead before its own
 * failure is recorded.
 */
unsigned int am_dead(struct am *am)
{
	unsigned long dead = am->told & READ_ONCE(am->a->failed) & RL_AM_ALL;
	unsigned int d;

	for_each_set_bit(d, &dead, RL_AM_DISKS)
		if (am->told_dev[d] != READ_ONCE(am->a->members[d].dev))
			__clear_bit(d, &dead);
	return dead;
}

/*
 * Every live disk holds @e, at least one does, and no batch holds it
 * (with both disks dead the pool keeps everything).
 */
bool am_complete(struct am *am, const struct am_ent *e)
{
	unsigned int dead = am_dead(am);

	return !e->inflight && (e->installed & ~dead) &&
	       (e->installed | dead) == RL_AM_ALL;
}

/* Zero @slot's magic and installed word on pmem (not fenced). */
static void am_clear_hdr(struct am *am, u32 slot)
{
	struct rl_am_slot_disk *d;
	__le64 zero = 0;

	if (am->vol)
		return;
	d = am_slot_hdr(am, slot);
	if (!d)
		return;
	memcpy_flushcache(&d->installed, &zero, sizeof(zero));
	memcpy_flushcache(&d->magic, &zero, sizeof(d->magic));
}

/*
 * Free @slot: its magic zeroed on pmem. Under am->lock; the caller fences
 * (rl_md_persist()) before it unlocks, so that the slot is reused only
 * once a crash can no longer find the old header over the new data.
 */
void am_free_slot(struct am *am, u32 slot)
{
	struct am_ent *e = &am->ents[slot];

	if (e->state == AM_LIVE)
		hlist_del_init(&e->hnode);
	if (e->intent)
		rl_md_intent_end(am->a->md,
				 rl_md_region(rl_md_state(am->a->md),
					      am_msector(e->lblock)));
	e->intent = false;
	e->state = AM_FREE;
	e->inflight = 0;
	am_clear_hdr(am, slot);
	am->free[am->nr_free++] = slot;
}

/* Make @slot's installed bits durable (one 8-byte store). Under am->lock. */
void am_set_installed(struct am *am, u32 slot)
{
	struct am_ent *e = &am->ents[slot];
	struct rl_am_slot_disk *d;
	__le64 w;

	if (am->vol)
		return;
	d = am_slot_hdr(am, slot);
	if (!d)
		return;
	w = cpu_to_le64(rl_am_installed_word(e->seq, e->installed));
	memcpy_flushcache(&d->installed, &w, sizeof(w));
}

/* Stores so far are durable (DAX: a fence). Any context on DAX. */
int am_fence(struct am *am)
{
	return am->vol ? 0 : rl_md_persist(am->a->md);
}

/* The pending counts from the slots. Under am->lock. */
void am_recount(struct am *am)
{
	unsigned int d;
	u32 i;

	memset(am->pending, 0, sizeof(am->pending));
	for (i = 0; i < am->nr; i++) {
		struct am_ent *e = &am->ents[i];

		if (e->state != AM_LIVE)
			continue;
		for (d = 0; d < RL_AM_DISKS; d++)
			if (!((e->installed | e->inflight) & BIT(d)))
				am->pending[d]++;
	}
}

/*
 * The lowest seq not yet on every disk (volatile flushes wait for it to
 * pass theirs), U64_MAX if none. Under am->lock.
 */
u64 am_oldest_pending(struct am *am)
{
	u64 seq = U64_MAX;
	u32 i;

	for (i = 0; i < am->nr; i++) {
		struct am_ent *e = &am->ents[i];

		if (e->state == AM_LIVE && !am_complete(am, e))
			seq = min(seq, e->floor);
	}
	return seq;
}

/*
 * @e no longer is the newest version of its block: @by, durable, is. Its
 * header goes at once (a crash must not find it without @by, which a
 * batch may free first); a batch that holds it frees its slot at its
 * end. @by takes over what a volatile flush waits for in it, and its
 * intent region. Under am->lock.
 */
static void am_supersede(struct am *am, struct am_ent *e, struct am_ent *by)
{
	unsigned int d;

	if (e->state == AM_LIVE) {
		hlist_del_init(&e->hnode);
		for (d = 0; d < RL_AM_DISKS; d++)
			if (!((e->installed | e->inflight) & BIT(d)))
				am->pending[d]--;
		if (!am_complete(am, e))
			by->floor = min(by->floor, e->floor);
	}
	if (e->intent && !by->intent) {
		by->intent = true;
		e->intent = false;
	}
	if (e->inflight) {
		e->state = AM_OLD;
		am_clear_hdr(am, e - am->ents);
	} else {
		am_free_slot(am, e - am->ents);
	}
	am_fence(am);
}

/* A durable slot becomes its block's newest version. Under am->lock. */
static void am_publish(struct am *am, struct am_ent *e)
{
	struct am_ent *old = am_lookup(am, e->lblock);
	unsigned int d;

	e->floor = min(e->floor, e->seq);
	if (old && old->seq > e->seq) {
		/* a later write to the block was durable first */
		old->floor = min(old->floor, e->floor);
		e->state = AM_OLD;
		am_supersede(am, e, old);
		return;
	}
	if (old)
		am_supersede(am, old, e);
	e->state = AM_LIVE;
	hlist_add_head(&e->hnode, am_bucket(am, e->lblock));
	am_rec_mark(am, e->lblock);
	for (d = 0; d < RL_AM_DISKS; d++)
		am->pending[d]++;
}

/*
 * Copy @bio's block into @slot and make it durable: the data, then the
 * header, with non-temporal stores, then one fence. Returns 0 or -EIO.
 */
static int am_fill(struct am *am, u32 slot, struct bio *bio)
{
	struct am_ent *e = &am->ents[slot];
	struct rl_am_slot s = { .seq = e->seq, .lblock = e->lblock };
	struct rl_am_slot_disk hdr, *d;
	void *dst = am_slot_data(am, slot);
	struct bvec_iter it;
	struct bio_vec bv;
	unsigned int off = 0;
	u32 crc;

	if (!dst)
		return -EIO;
	bio_for_each_segment(bv, bio, it) {
		void *src = bvec_kmap_local(&bv);

		if (am->vol)
			memcpy(dst + off, src, bv.bv_len);
		else
			memcpy_flushcache(dst + off, src, bv.bv_len);
		kunmap_local(src);
		off += bv.bv_len;
	}
	if (am->vol)
		return 0;
	d = am_slot_hdr(am, slot);
	if (!d)
		return -EIO;
	/* of what the slot holds: a page changed meanwhile cannot tear it */
	crc = rl_am_data_crc(~0U, dst, RL_AM_BLOCK);
	rl_am_slot_encode(&s, crc, &hdr);
	memcpy_flushcache(d, &hdr, sizeof(hdr));
	return am_fence(am);
}

/* Take a free slot for a write to @lblock. Under am->lock. */
static u32 am_reserve(struct am *am, u64 lblock)
{
	u32 slot = am->free[--am->nr_free];
	struct am_ent *e = &am->ents[slot];

	am->min_free = min(am->min_free, am->nr_free);
	e->state = AM_RES;
	e->seq = ++am->seq;
	e->lblock = lblock;
	e->installed = 0;
	e->inflight = 0;
	e->floor = U64_MAX;
	return slot;
}

/*
 * Three quarters of the pool used, writers or volatile flushes waiting:
 * the cycle brings the next batch forward. Under am->lock.
 */
bool am_pressure(struct am *am)
{
	return (u64)(am->nr - am->nr_free) * 4 >= (u64)am->nr * 3 ||
	       !bio_list_empty(&am->waiting) || !bio_list_empty(&am->flushes);
}

/* The write of @bio into its reserved @slot, to its acknowledgment. */
static void am_write_slot(struct am *am, struct bio *bio, u32 slot)
{
	struct am_ent *e = &am->ents[slot];
	unsigned long flags;
	bool kick, waiters;
	int r = am_fill(am, slot, bio);

	spin_lock_irqsave(&am->lock, flags);
	if (r) {
		/* its header may be durable: a failed write must not return */
		am_free_slot(am, slot);
		am_fence(am);
	} else {
		am_publish(am, e);
	}
	if (!r && am->vol && (bio->bi_opf & REQ_FUA)) {
		/* durable once on every disk: a flush of its own */
		((struct am_pb *)rl_pb_scheme(bio, sizeof(struct am_pb)))->seq =
			e->seq;
		bio_list_add(&am->flushes, bio);
		bio = NULL;
	}
	kick = am_pressure(am) || hweight32(am_live(am)) == 1;
	/* a slot this freed (an older version, a failed write) */
	waiters = am->nr_free && !bio_list_empty(&am->waiting);
	spin_unlock_irqrestore(&am->lock, flags);
	if (waiters)
		am_kick(am);
	atomic64_inc(&am->arrived);
	if (bio) {
		if (r)
			bio_io_error(bio);
		else
			bio_endio(bio);
	}
	if (kick || !bio)
		am_kick_cycle(am);
}

/*
 * Map a write of one block: into a free slot, acknowledged once durable;
 * with none free (or writers already waiting, in their order) it waits.
 */
int am_write(struct am *am, struct bio *bio)
{
	unsigned long flags;
	u32 slot;

	spin_lock_irqsave(&am->lock, flags);
	if (!am->nr_free || !bio_list_empty(&am->waiting)) {
		bio_list_add(&am->waiting, bio);
		atomic64_inc(&am->waits);
		spin_unlock_irqrestore(&am->lock, flags);
		am_kick_cycle(am);
		return DM_MAPIO_SUBMITTED;
	}
	slot = am_reserve(am, am_lblock(bio));
	spin_unlock_irqrestore(&am->lock, flags);
	am_write_slot(am, bio, slot);
	return DM_MAPIO_SUBMITTED;
}

/* Writers that waited for a slot, in order, while slots are free. */
void am_write_waiters(struct am *am)
{
	unsigned long flags;
	struct bio *bio;
	u32 slot;

	for (;;) {
		spin_lock_irqsave(&am->lock, flags);
		bio = am->nr_free ? bio_list_pop(&am->waiting) : NULL;
		if (!bio) {
			spin_unlock_irqrestore(&am->lock, flags);
			return;
		}
		slot = am_reserve(am, am_lblock(bio));
		spin_unlock_irqrestore(&am->lock, flags);
		am_write_slot(am, bio, slot);
	}
}

/*
 * Serve a read from the pool if its block's newest version is there.
 * Returns true if it did (the bio is ended).
 */
bool am_read_hit(struct am *am, struct bio *bio)
{
	u64 lblock = am_lblock(bio);
	blk_status_t st = BLK_STS_OK;
	unsigned int off = 0;
	unsigned long flags;
	struct bvec_iter it;
	struct bio_vec bv;
	struct am_ent *e;
	void *src;

	spin_lock_irqsave(&am->lock, flags);
	e = am_lookup(am, lblock);
	if (!e) {
		spin_unlock_irqrestore(&am->lock, flags);
		return false;
	}
	src = am_slot_data(am, e - am->ents);
	bio_for_each_segment(bv, bio, it) {
		void *dst = bvec_kmap_local(&bv);

		if (!src || copy_mc_to_kernel(dst, src + off, bv.bv_len))
			st = BLK_STS_IOERR;
		kunmap_local(dst);
		off += bv.bv_len;
	}
	spin_unlock_irqrestore(&am->lock, flags);
	atomic64_inc(&am->hits);
	if (st)
		DMERR_LIMIT("altmirror: pool slot of block %llu unreadable",
			    lblock);
	bio->bi_status = st;
	bio_endio(bio);
	return true;
}

/*
 * Put the pool's newest version of each block of member sectors
 * [@msector, @msector + @len) over @buf (a sync window), and set a bit
 * of @skip (if given) for each such block.
 */
void am_overlay(struct am *am, sector_t msector, sector_t len, void *buf,
		unsigned long *skip)
{
	u64 first = msector >> RL_AM_BLOCK_SHIFT;
	u64 n = len >> RL_AM_BLOCK_SHIFT, i;
	unsigned long flags;
	struct am_ent *e;
	void *src;

	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&am->lock, flags);
		e = am_lookup(am, first + i);
		src = e ? am_slot_data(am, e - am->ents) : NULL;
		if (src && !copy_mc_to_kernel(buf + i * RL_AM_BLOCK, src,
					      RL_AM_BLOCK) && skip)
			__set_bit(i, skip);
		spin_unlock_irqrestore(&am->lock, flags);
	}
}

/* A slot's header and data, read safely from pmem. 0 or -EIO. */
static int am_read_slot(struct am *am, u32 slot, struct rl_am_slot_disk *d,
			void *data)
{
	struct rl_am_slot_disk *h = am_slot_hdr(am, slot);
	void *p = am_slot_data(am, slot);

	if (!h || !p || copy_mc_to_kernel(d, h, sizeof(*d)))
		return -EIO;
	if (d->magic && copy_mc_to_kernel(data, p, RL_AM_BLOCK))
		return -EIO;
	return 0;
}

/*
 * Decode every slot: the valid ones into @f; torn ones cleared (fenced by
 * the caller). Nothing else runs (preresume): no lock, and a long pool
 * yields the CPU.
 */
static int am_scan(struct am *am, struct rl_am_found *f, u32 *n, void *data)
{
	struct rl_am_slot_disk d;
	struct rl_am_slot s;
	u32 slot;
	int r;

	*n = 0;
	for (slot = 0; slot < am->nr; slot++) {
		if (am_read_slot(am, slot, &d, data)) {
			am->a->ti->error = "altmirror: the pool cannot be read";
			return -EIO;
		}
		r = rl_am_slot_decode(&d, data, am->nr_blocks, &s);
		if (r == -ENODATA)
			continue;
		if (r == -ERANGE) {
			am->a->ti->error = "altmirror: the pool holds a block past the array's end";
			return -EINVAL;
		}
		if (r) {
			am->loaded_dropped++;
			am_clear_hdr(am, slot);
			continue;
		}
		f[*n] = (struct rl_am_found){ .seq = s.seq, .lblock = s.lblock,
					      .slot = slot,
					      .installed = s.installed };
		(*n)++;
		cond_resched();
	}
	return 0;
}

/* The in-core pool empty: every slot free, nothing indexed. */
static void am_pool_reset(struct am *am)
{
	u32 i;

	for (i = 0; i < am->nr; i++) {
		struct am_ent *e = &am->ents[i];

		if (!hlist_unhashed(&e->hnode))
			hlist_del_init(&e->hnode);
		e->state = AM_FREE;
		e->inflight = 0;
		e->intent = false;
	}
	am->nr_free = 0;	/* made again from the slots' states */
	am->seq = 0;
	am->loaded_dropped = 0;
}

/*
 * Take back what a crash or a suspend left in the pool (DAX), before the
 * table goes live: the newest version of each block is live again with
 * the disks that hold it; older versions and torn slots are freed.
 * Installed ones go at the first batches. Sets ti->error.
 */
int am_pool_load(struct am *am)
{
	struct rl_am_found *f;
	void *data;
	u32 n, i, kept = 0;
	int r;

	f = kvcalloc(am->nr, sizeof(*f), GFP_KERNEL);
	data = kmalloc(RL_AM_BLOCK, GFP_KERNEL);
	r = -ENOMEM;
	am->a->ti->error = "altmirror: cannot allocate the pool's load";
	if (!f || !data)
		goto out;
	am_pool_reset(am);
	r = am_scan(am, f, &n, data);
	if (r)
		goto out;
	if (n)
		kept = rl_am_choose(f, n);
	spin_lock_irq(&am->lock);
	for (i = 0; i < n; i++) {
		struct am_ent *e = &am->ents[f[i].slot];

		e->seq = f[i].seq;
		e->lblock = f[i].lblock;
		e->installed = f[i].installed;
		e->floor = U64_MAX;
		e->state = AM_RES;
		am->seq = max(am->seq, e->seq);
		if (f[i].keep)
			am_publish(am, e);
		else
			am_free_slot(am, f[i].slot);
		/* a disk dead at load holds nothing: complete ones go */
		if (f[i].keep && am_complete(am, e))
			am_free_slot(am, f[i].slot);
	}
	am->nr_free = 0;
	for (i = am->nr; i-- > 0;)
		if (am->ents[i].state == AM_FREE)
			am->free[am->nr_free++] = i;
	am->min_free = am->nr_free;
	am_recount(am);
	am->loaded_slots = kept;
	r = am_fence(am);
	if (r)
		am->a->ti->error = "altmirror: cannot write the pool";
	spin_unlock_irq(&am->lock);
	if (kept || am->loaded_dropped)
		DMINFO("altmirror: pool: %u taken back, %u older and %llu torn slots dropped",
		       kept, n - kept, am->loaded_dropped);
out:
	kfree(data);
	kvfree(f);
	return r;
}

/* The pool's memory, and its area on a DAX metadata device. */
int am_pool_init(struct am *am, char **error)
{
	struct rl_array *a = am->a;
	u32 i;
	int r;

	spin_lock_init(&am->lock);
	bio_list_init(&am->waiting);
	bio_list_init(&am->deferred);
	bio_list_init(&am->flushes);
	bio_list_init(&am->retry);
	bio_list_init(&am->fix);
	am->index_bits = ilog2(roundup_pow_of_two(am->nr));
	am->ents = kvcalloc(am->nr, sizeof(*am->ents), GFP_KERNEL);
	am->free = kvcalloc(am->nr, sizeof(*am->free), GFP_KERNEL);
	am->index = kvcalloc(BIT(am->index_bits), sizeof(*am->index),
			     GFP_KERNEL);
	if (am->vol)
		am->vdata = vmalloc(array_size(am->nr, RL_AM_BLOCK));
	if (!am->ents || !am->free || !am->index || (am->vol && !am->vdata)) {
		*error = "altmirror: cannot allocate the pool";
		return -ENOMEM;
	}
	for (i = 0; i < am->nr; i++)
		INIT_HLIST_NODE(&am->ents[i].hnode);
	for (i = am->nr; i-- > 0;)
		am->free[am->nr_free++] = i;
	am->min_free = am->nr_free;
	if (am->vol)
		return 0;
	r = rl_md_area_find(a->md, RL_AM_AREA_ID, rl_am_area_blocks(am->nr),
			    &am->area);
	if (r == -EINVAL)
		*error = "altmirror: the metadata holds a pool of another size (mem_fraction)";
	else if (r)
		*error = "altmirror: no room for the pool on the metadata device";
	if (r)
		return r;
	/* a new array: no header left from an earlier one may validate */
	if (rl_md_new(a->md)) {
		for (i = 0; i < am->nr; i++)
			am_clear_hdr(am, i);
		r = am_fence(am);
		if (r)
			*error = "altmirror: cannot write the pool";
	}
	return r;
}

void am_pool_free(struct am *am)
{
	vfree(am->vdata);
	kvfree(am->index);
	kvfree(am->free);
	kvfree(am->ents);
}
