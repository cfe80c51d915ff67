// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: parity logging (paper 000, Stodolsky et al.), on the
 * parity-log region manager of plog.h (layout, segments, records, the
 * buffer pool, durable state).
 *
 * Reads are remapped straight to the data member. A write covers at most
 * one row (max_io_len); it is served by a foreground context under the
 * row's lock (a hash of busy rows, as the stripe engine does):
 *
 *   map() -> incoming list -> dispatch work -> context for the row
 *   (bios for a busy row wait on its context, in arrival order)
 *
 * A context (preallocated, with its chunk buffers; it sleeps, on a
 * workqueue of its own) serves a write in a region in LOG mode so:
 *
 *   partial row  old data of the touched columns from the data cache or
 *                a preread; delta = old ^ new over the hull of the
 *                columns (one UPDATE record)
 *   full row     the row's new parity in memory (one OVERWRITE record),
 *                no preread
 *   then         the record is appended PENDING to the region's current
 *                log buffer (mirrored to its DAX twin), the data is
 *                written, the record made COMMITTED, the bio ended.
 *
 * A buffer that is full (or flushed because the pool ran dry) leaves its
 * region for the seal queue; the log writer writes it, once all its
 * records are committed, as the region's next segment (REQ_FUA), in
 * segment order. When a region's log is full its reintegration is queued
 * (plog_sync.c); new records go to the next generation meanwhile, whose
 * segments wait for the truncation. A region with an unreadable member
 * is fixed up and served DIRECT (read-modify-write of data and parity, no
 * log) until the member is back: see plog_sync.c and the documentation.
 *
 * Member I/O goes through the member queues: foreground class for data
 * and log writes, background for region operations. Bios come from a
 * bioset (mempool); nothing else is allocated per I/O.
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

/* A foreground context: one bio at a time, its row locked. */
struct plog_ctx {
	struct plog *p;
	struct hlist_node hnode;	/* in the row hash while busy */
	struct list_head lnode;		/* on the free list while idle */
	u64 row;			/* region * S + row: the lock */
	u32 region, rrow;
	u32 off;			/* the bio's first sector in the row */
	struct bio *bio;
	struct bio_list waiting;	/* later bios for the row */
	struct work_struct work;
	unsigned int id;		/* its index: its data slot (DAX) */
	bool slot;			/* the bio's data is in the slot */
	u32 slot_csum;			/* and its crc32c */
	unsigned int nr_recs;		/* the write's records: plan, */
	struct plog_rec_plan plan[RL_MAX_MEMBERS];
	struct {			/* and where they were appended */
		struct rl_plog_buf *buf;
		int idx;
	} rec[RL_MAX_MEMBERS];
	void *mem;			/* g + 1 chunks */
	/*
	 * data columns 0 .. cols - 1, then the check blocks (f = 1: parity;
	 * f = 2: P, Q), then col[g] == delta
	 */
	void *col[RL_MAX_MEMBERS + 1];
	void *delta;
	struct rl_plog_loc loc[RL_MAX_MEMBERS];	/* each data column */
};

/* ------------------------------------------------------------------------
 * Member I/O
 */

static void plog_io_endio(struct bio *bio)
{
	struct plog_io *io = container_of(bio, struct plog_io, bio);
	struct plog_iog *g = io->g;

	/*
	 * An error from a disk that has been replaced meanwhile (a spare took
	 * the role) fails the operation, not the member's new disk.
	 */
	if (bio->bi_status) {
		if (io->dev == READ_ONCE(io->a->members[io->member].dev)) {
			g->fdev[io->member] = io->dev;
			set_bit(io->member, &g->failed);
		} else {
			set_bit(io->member, &g->stale);
		}
	}
	rl_member_done(io->a, io->member, &io->qe);
	bio_put(bio);
	if (atomic_dec_and_test(&g->pending))
		complete(&g->done);
}

static void plog_io_submit(struct rl_qent *qe)
{
	submit_bio_noacct(&container_of(qe, struct plog_io, qe)->bio);
}

void plog_iog_init(struct plog_iog *g)
{
	atomic_set(&g->pending, 1);
	init_completion(&g->done);
	g->failed = 0;
	g->stale = 0;
}

static struct page *plog_virt_page(void *addr)
{
	return is_vmalloc_addr(addr) ? vmalloc_to_page(addr) : virt_to_page(addr);
}

/*
 * Queue member I/O of @sectors at member sector @msector (relative to
 * data_offset) from or into @buf (vmalloc or lowmem, sector aligned), in
 * bios of BIO_MAX_VECS pages at most, as part of group @g. A member that
 * is gone counts as failed at once.
 */
void plog_io(struct plog *p, struct plog_iog *g, unsigned int m,
	     blk_opf_t opf, sector_t msector, void *buf, unsigned int sectors,
	     enum rl_class class, enum rl_io_kind kind)
{
	struct rl_array *a = p->a;
	struct dm_dev *dev = READ_ONCE(a->members[m].dev);
	size_t left = (size_t)sectors << SECTOR_SHIFT;
	sector_t sector = a->geom.data_offset + msector;
	bool write = op_is_write(opf);

	if (!dev || rl_member_failed(a, m)) {
		g->fdev[m] = dev;
		set_bit(m, &g->failed);
		return;
	}
	if (write && is_vmalloc_addr(buf))
		flush_kernel_vmap_range(buf, left);
	while (left) {
		unsigned int nr = min_t(size_t, BIO_MAX_VECS,
					DIV_ROUND_UP(offset_in_page(buf) + left,
						     PAGE_SIZE));
		struct plog_io *io;
		struct bio *bio;
		unsigned int done = 0;

		bio = bio_alloc_bioset(dev->bdev, nr, opf, GFP_NOIO, &p->bs);
		io = container_of(bio, struct plog_io, bio);
		io->a = a;
		io->dev = dev;
		io->g = g;
		io->member = m;
		bio->bi_iter.bi_sector = sector;
		bio->bi_end_io = plog_io_endio;
		while (left && bio->bi_vcnt < nr) {
			unsigned int n = min_t(size_t, left,
					       PAGE_SIZE - offset_in_page(buf));

			__bio_add_page(bio, plog_virt_page(buf), n,
				       offset_in_page(buf));
			buf += n;
			left -= n;
			done += n;
		}
		sector += done >> SECTOR_SHIFT;
		rl_qent_init(&io->qe, bio->bi_iter.bi_sector, done >> SECTOR_SHIFT,
			     write, class, plog_io_submit);
		rl_member_start(a, m, kind);
		atomic_inc(&g->pending);
		rl_queue_add(a, m, &io->qe);
	}
}

/* Wait for the group; returns the members whose I/O failed. */
unsigned long plog_iog_wait(struct plog *p, struct plog_iog *g)
{
	if (!atomic_dec_and_test(&g->pending))
		wait_for_completion_io(&g->done);
	return g->failed | g->stale;
}

/* Read buffers that vmalloc addresses may alias (no-op on x86). */
static void plog_read_done(void *buf, unsigned int sectors)
{
	if (is_vmalloc_addr(buf))
		invalidate_kernel_vmap_range(buf, sectors << SECTOR_SHIFT);
}

/*
 * Fail the members whose disks failed I/O of group @g, and wait until the
 * failures are durable: what the caller does next (reintegrate, retire a
 * log record, end an intent) must not run ahead of the record, or a crash
 * could reassemble the failed disk as in sync. Process context.
 */
void plog_iog_fail(struct plog *p, const struct plog_iog *g, const char *why)
{
	unsigned int m;

	if (!g->failed)
		return;
	for_each_set_bit(m, &g->failed, p->a->geom.nr_members)
		rl_member_fail_io(p->a, m, g->fdev[m], why);
	if (rl_failrec_sync(p->a))
		DMERR_LIMIT("%s: %s not recorded: the metadata is read-only",
			    dm_table_device_name(p->a->ti->table), why);
}

/* ------------------------------------------------------------------------
 * The data cache: recently written 4 KiB blocks, so that a small write
 * that follows need not preread. LRU, preallocated, under a spinlock.
 */

struct plog_centry {
	struct hlist_node hnode;
	struct list_head lru;
	u64 key;			/* logical 4 KiB block */
	bool valid;
};

struct plog_cache {
	spinlock_t lock;		/* everything below */
	unsigned int nr, bits;
	void *mem;
	struct plog_centry *e;
	struct hlist_head *hash;
	struct list_head lru;		/* most recent first */
	u64 hits, misses;
};

struct plog_cache *plog_cache_alloc(unsigned int nr)
{
	struct plog_cache *c;
	unsigned int i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->lru);
	c->nr = nr;
	if (!nr)
		return c;
	c->bits = max(1, ilog2(roundup_pow_of_two(nr)));	/* hash_64: bits > 0 */
	c->mem = vmalloc(array_size(nr, PAGE_SIZE));
	c->e = kvcalloc(nr, sizeof(*c->e), GFP_KERNEL);
	c->hash = kvcalloc(1U << c->bits, sizeof(*c->hash), GFP_KERNEL);
	if (!c->mem || !c->e || !c->hash) {
		vfree(c->mem);
		kvfree(c->e);
		kvfree(c->hash);
		kfree(c);
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		INIT_HLIST_NODE(&c->e[i].hnode);
		list_add_tail(&c->e[i].lru, &c->lru);
	}
	return c;
}

void plog_cache_free(struct plog_cache *c)
{
	if (!c)
		return;
	vfree(c->mem);
	kvfree(c->e);
	kvfree(c->hash);
	kfree(c);
}

static struct plog_centry *plog_cache_find(struct plog_cache *c, u64 key)
{
	struct plog_centry *e;

	hlist_for_each_entry(e, &c->hash[hash_64(key, c->bits)], hnode)
		if (e->key == key)
			return e;
	return NULL;
}

static void *plog_cache_data(struct plog_cache *c, struct plog_centry *e)
{
	return c->mem + ((size_t)(e - c->e) << PAGE_SHIFT);
}

/*
 * The cache's calls (pure but for the lock; KUnit suite dm_raidlab_plog):
 *   plog_cache_get()   copy blocks [key, key + nr) to @dst if every one is
 *                      cached (they become the most recent), else nothing
 *   plog_cache_put()   cache blocks [key, key + nr) from @src, evicting the
 *                      least recently used
 *   plog_cache_drop()  forget blocks [key, key + nr)
 * A cache of no blocks holds nothing.
 */
bool plog_cache_get(struct plog_cache *c, u64 key, unsigned int nr,
		    void *dst)
{
	struct plog_centry *e;
	unsigned int i;
	bool hit = true;

	if (!c->nr)
		return false;
	spin_lock(&c->lock);
	for (i = 0; i < nr && hit; i++)
		hit = plog_cache_find(c, key + i);
	if (hit) {
		for (i = 0; i < nr; i++) {
			e = plog_cache_find(c, key + i);
			memcpy(dst + ((size_t)i << PAGE_SHIFT),
			       plog_cache_data(c, e), PAGE_SIZE);
			list_move(&e->lru, &c->lru);
		}
		c->hits++;
	} else {
		c->misses++;
	}
	spin_unlock(&c->lock);
	return hit;
}

void plog_cache_put(struct plog_cache *c, u64 key, unsigned int nr,
		    const void *src)
{
	struct plog_centry *e;
	unsigned int i;

	if (!c->nr)
		return;
	spin_lock(&c->lock);
	for (i = 0; i < nr; i++) {
		e = plog_cache_find(c, key + i);
		if (!e) {
			e = list_last_entry(&c->lru, struct plog_centry, lru);
			if (e->valid)
				hlist_del(&e->hnode);
			e->key = key + i;
			e->valid = true;
			hlist_add_head(&e->hnode,
				       &c->hash[hash_64(e->key, c->bits)]);
		}
		memcpy(plog_cache_data(c, e), src + ((size_t)i << PAGE_SHIFT),
		       PAGE_SIZE);
		list_move(&e->lru, &c->lru);
	}
	spin_unlock(&c->lock);
}

void plog_cache_drop(struct plog_cache *c, u64 key, unsigned int nr)
{
	struct plog_centry *e;
	unsigned int i;

	if (!c->nr)
		return;
	spin_lock(&c->lock);
	for (i = 0; i < nr; i++) {
		e = plog_cache_find(c, key + i);
		if (!e)
			continue;
		hlist_del_init(&e->hnode);
		e->valid = false;
		list_move_tail(&e->lru, &c->lru);
	}
	spin_unlock(&c->lock);
}

void plog_cache_counts(struct plog_cache *c, u64 *hits, u64 *misses)
{
	spin_lock(&c->lock);
	*hits = c->hits;
	*misses = c->misses;
	spin_unlock(&c->lock);
}

/* ------------------------------------------------------------------------
 * Region state and log buffers (under p->lock)
 */

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

/*
 * Reintegrate region @r's log on disk: records go to the next generation
 * meanwhile, whose segments wait for the truncation.
 */
void plog_want_reint(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];

	if (rg->reint)
		return;
	plog_detach_cur(p, r);
	rg->reint = true;
	rg->gen = rg->disk_gen + 1;
	rg->next_seg = 0;
	plog_kick_reint(p);
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
static void plog_slot_write(struct plog_ctx *c)
{
	struct rl_plog_md *pm = c->p->pm;
	struct bvec_iter it;
	struct bio_vec bv;
	u32 crc = ~0U, off = 0;

	c->slot = rl_plog_md_slots_on(pm);
	if (!c->slot)
		return;
	bio_for_each_segment(bv, c->bio, it) {
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
		.len = bio_sectors(c->bio),
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
		if (!rg->reint) {
			plog_want_reint(p, c->region);
		} else {
			if (!rg->reinting)
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
static int plog_append(struct plog_ctx *c)
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
static void plog_commit(struct plog_ctx *c)
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
	struct rl_array *a = p->a;
	struct dm_dev *dev;
	unsigned int m;

	for_each_set_bit(m, &members, p->lo.n) {
		dev = READ_ONCE(a->members[m].dev);
		if (!dev || rl_member_failed(a, m))
			continue;
		if (blkdev_issue_flush(dev->bdev))
			rl_member_fail(a, m, "flush failed");
	}
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

/* A log write of region @r's segment cannot be done: a fix-up drops it. */
static void plog_want_fix(struct plog *p, struct plog_region *rg)
{
	if (!rg->fix) {
		rg->fix = true;
		if (!READ_ONCE(p->stopping))
			queue_work(p->bg_wq, &p->bg_work);
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
static void plog_log_work(struct work_struct *ws)
{
	struct plog *p = container_of(ws, struct plog, log_work);
	struct rl_plog_buf *b, *x, **batch = p->batch;
	unsigned int i, nr, m, t, cp, copies;
	struct plog_region *rg;
	struct plog_iog g;
	unsigned long bad, flush;
	u64 msector;
	u32 seg;

	for (;;) {
		nr = 0;
		flush = 0;
		mutex_lock(&p->lock);
		list_for_each_entry(x, &p->sealq, list) {
			rg = &p->reg[x->region];
			if (x->pending || rg->log_busy ||
			    plog_seg_gen(x->seg) != rg->disk_gen ||
			    plog_seg_no(x->seg) != rg->disk_segs)
				continue;
			copies = plog_seg_copies(p, x);
			if (!copies) {
				/* the fix-up drops it: make sure one comes */
				plog_want_fix(p, rg);
				continue;
			}
			rg->log_busy = true;
			rl_plog_seg_seal(x->seg, &p->lo);
			for (t = 0; t < p->lo.g; t++)
				__set_bit(rl_plog_data_member(&p->lo, x->region, t),
					  &flush);
			p->batch_copies[nr] = copies;
			batch[nr++] = x;
		}
		mutex_unlock(&p->lock);
		if (!nr)
			return;

		/* the data its records describe is durable before they are */
		plog_flush_members(p, flush);
		plog_iog_init(&g);
		for (i = 0; i < nr; i++) {
			b = batch[i];
			for (cp = 0; cp < p->lo.f; cp++) {
				if (!(p->batch_copies[i] & BIT(cp)))
					continue;
				rl_plog_seg_loc(&p->lo, b->region,
						plog_seg_no(b->seg), cp, &m,
						&msector);
				plog_io(p, &g, m, REQ_OP_WRITE | REQ_FUA, msector,
					b->seg, p->lo.seg_sectors, RL_FG,
					RL_PARITY_WRITE);
			}
		}
		bad = plog_iog_wait(p, &g);
		plog_iog_fail(p, &g, "log write error");

		mutex_lock(&p->lock);
		for (i = 0; i < nr; i++) {
			b = batch[i];
			rg = &p->reg[b->region];
			seg = plog_seg_no(b->seg);
			rg->log_busy = false;
			copies = plog_seg_landed(p, b, p->batch_copies[i], bad);
			if (!copies) {
				plog_want_fix(p, rg);
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
		plog_kick(p);
		mutex_unlock(&p->lock);
	}
}

/* ------------------------------------------------------------------------
 * Foreground contexts
 */

static void plog_xor(void *dst, const void *src, unsigned int bytes)
{
	void *s = (void *)src;

	xor_blocks(1, bytes, dst, &s);
}

/*
 * Wait until region @r may be served, and count the access in it. A
 * region with an unreadable member is fixed up first (plog_sync.c).
 * Returns the region's mode, or -EIO if the array has failed.
 */
static int plog_enter(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];
	struct rl_array *a = p->a;
	unsigned long bad;
	int mode;

	mutex_lock(&p->lock);
	for (;;) {
		bad = rl_unreadable_at(a, p->keys[r]);
		if (hweight_long(bad) > a->redundancy) {
			mutex_unlock(&p->lock);
			return -EIO;
		}
		if (!rg->frozen) {
			if (!bad || rg->mode == PLOG_DIRECT)
				break;
			if (!rg->fix) {
				rg->fix = true;
				queue_work(p->bg_wq, &p->bg_work);
			}
		}
		plog_wait_locked(p);
	}
	/* back to logging once every member is readable and no RMW is on */
	if (!bad && rg->mode == PLOG_DIRECT && !rg->busy)
		rg->mode = PLOG_LOG;
	rg->busy++;
	mode = rg->mode;
	mutex_unlock(&p->lock);
	return mode;
}

static void plog_exit(struct plog *p, u32 r)
{
	mutex_lock(&p->lock);
	if (!--p->reg[r].busy)
		plog_kick(p);
	mutex_unlock(&p->lock);
}

/*
 * plog_write_log()'s "nothing written, again once the region is thawed"
 * (plog_append()'s -EBUSY); plog_serve() retries it, it never ends a bio.
 */
#define PLOG_STS_THAW		BLK_STS_RESOURCE

/* How plog_bio_copy() moves the bio's data. */
enum plog_copy {
	PLOG_FROM_BIO,		/* the column buffers = the bio's data */
	PLOG_TO_BIO,		/* the bio's data = the column buffers */
	PLOG_XOR_BIO,		/* the column buffers ^= the bio's data */
};

/* Between the bio and the column buffers, from row sector @off on. */
static void plog_bio_copy(struct plog_ctx *c, enum plog_copy how)
{
	unsigned int cb = plog_chunk_bytes(c->p);
	u64 pos = (u64)c->off << SECTOR_SHIFT;
	struct bvec_iter it;
	struct bio_vec bv;

	bio_for_each_segment(bv, c->bio, it) {
		unsigned int done = 0;
		char *va = bvec_kmap_local(&bv);

		while (done < bv.bv_len) {
			unsigned int col = pos >> (c->p->lo.chunk_shift + SECTOR_SHIFT);
			unsigned int coff = pos & (cb - 1);
			unsigned int n = min(bv.bv_len - done, cb - coff);

			if (how == PLOG_TO_BIO)
				memcpy(va + done, c->col[col] + coff, n);
			else if (how == PLOG_FROM_BIO)
				memcpy(c->col[col] + coff, va + done, n);
			else
				plog_xor(c->col[col] + coff, va + done, n);
			done += n;
			pos += n;
		}
		kunmap_local(va);
		if (how == PLOG_TO_BIO)
			flush_dcache_page(bv.bv_page);
	}
}

/**
 * plog_span() - the part of a column an access to a row touches
 * @off: the access's first sector in the row
 * @len: its sectors
 * @chunk_shift: chunk = 1 << chunk_shift sectors
 * @k: a data column
 * @lo: set to the first sector touched within the column's chunk
 * @hi: and the end
 *
 * Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: false if the access does not touch column @k.
 */
bool plog_span(u32 off, u32 len, unsigned int chunk_shift, unsigned int k,
	       u32 *lo, u32 *hi)
{
	u32 s = k << chunk_shift, e = s + (1U << chunk_shift);

	if (off + len <= s || off >= e)
		return false;
	*lo = max(off, s) - s;
	*hi = min(off + len, e) - s;
	return true;
}

static void plog_plan_set(struct plog_rec_plan *pl, enum rl_plog_rec_type type,
			  unsigned int col, unsigned int src, u32 lo, u32 hi)
{
	pl->type = type;
	pl->col = col;
	pl->src = src;
	pl->lo = lo;
	pl->hi = hi;
}

/**
 * plog_plan_recs() - the records a write to a row appends to the log
 * @lo: the layout (f, cols, g, chunk_shift)
 * @off: the write's first sector in the row
 * @len: its sectors, within the row
 * @plan: set to the records, in append order (at most max(cols, 2))
 *
 * f = 1: one record, its payload in the delta buffer (src g): for a full
 * row an OVERWRITE with the row's new parity, else an UPDATE with the
 * parity's update image over the hull of the columns touched. f = 2: for
 * a full row an OVERWRITE of P (col 0, src cols) and one of Q (col 1, src
 * cols + 1); else an UPDATE per column k touched, its old ^ new over its
 * own span (col k, src k). Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: the number of records.
 */
unsigned int plog_plan_recs(const struct rl_plog_layout *lo, u32 off, u32 len,
			    struct plog_rec_plan *plan)
{
	u32 cs = 1U << lo->chunk_shift, l, h, hlo = cs, hhi = 0;
	unsigned int k, nr = 0;

	if (!off && len == lo->cols * cs) {
		if (lo->f == 1) {
			plog_plan_set(plan, RL_PLOG_OVERWRITE, 0, lo->g, 0, cs);
			return 1;
		}
		plog_plan_set(&plan[0], RL_PLOG_OVERWRITE, 0, lo->cols, 0, cs);
		plog_plan_set(&plan[1], RL_PLOG_OVERWRITE, 1, lo->cols + 1, 0, cs);
		return 2;
	}
	for (k = 0; k < lo->cols; k++) {
		if (!plog_span(off, len, lo->chunk_shift, k, &l, &h))
			continue;
		if (lo->f == 1) {
			hlo = min(hlo, l);
			hhi = max(hhi, h);
			continue;
		}
		plog_plan_set(&plan[nr++], RL_PLOG_UPDATE, k, k, l, h);
	}
	if (lo->f == 1 && hhi > hlo)
		plog_plan_set(&plan[nr++], RL_PLOG_UPDATE, 0, lo->g, hlo, hhi);
	return nr;
}

/**
 * plog_plan_bufs() - the fresh log buffers a plan needs
 * @lo: the layout
 * @seg: the region's current buffer's image, or NULL if it has none
 * @plan: records, appended in order: to @seg while they fit (descriptors
 *	and payload), then each to a fresh buffer once the last one is full
 * @nr: how many
 *
 * Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: the fresh buffers the records take (0: they all fit @seg).
 */
unsigned int plog_plan_bufs(const struct rl_plog_layout *lo, const void *seg,
			    const struct plog_rec_plan *plan, unsigned int nr)
{
	const struct rl_plog_seg_disk *h = seg;
	u32 max = lo->seg_sectors - lo->hdr_sectors, used, len;
	unsigned int i, recs, bufs = 0;

	/* no buffer: as one that is full */
	recs = h ? le16_to_cpu(h->nr) : lo->max_recs;
	used = h ? le32_to_cpu(h->payload_sectors) : max;
	for (i = 0; i < nr; i++) {
		len = plan[i].hi - plan[i].lo;
		if (recs >= lo->max_recs || used > max || len > max - used) {
			bufs++;
			recs = 0;
			used = 0;
		}
		recs++;
		used += len;
	}
	return bufs;
}

/* Sector range [*lo, *hi) of column @k the bio touches; false: none. */
static bool plog_col_span(struct plog_ctx *c, unsigned int k, u32 *lo, u32 *hi)
{
	return plog_span(c->off, bio_sectors(c->bio), c->p->lo.chunk_shift, k,
			 lo, hi);
}

static u64 plog_block_key(struct plog_ctx *c, unsigned int k, u32 sector)
{
	u64 lchunk = (u64)c->row * c->p->lo.cols + k;

	return (lchunk << (c->p->lo.chunk_shift - PLOG_BLOCK_SHIFT)) +
	       (sector >> PLOG_BLOCK_SHIFT);
}

static sector_t plog_msector(struct plog *p, u64 mchunk, u32 off)
{
	return (mchunk << p->lo.chunk_shift) + off;
}

static void plog_locate(struct plog_ctx *c)
{
	unsigned int k;

	for (k = 0; k < c->p->lo.cols; k++)
		rl_plog_row_loc(&c->p->lo, c->region, c->rrow, k, &c->loc[k]);
}

/*
 * The member and member chunk of the row's syndrome position @j: data
 * column j < cols, then the check blocks (P at cols, Q at cols + 1).
 */
static unsigned int plog_pos(struct plog_ctx *c, unsigned int j, u64 *mchunk)
{
	unsigned int cols = c->p->lo.cols;

	if (j < cols) {
		*mchunk = c->loc[j].mchunk;
		return c->loc[j].member;
	}
	if (j == cols) {
		*mchunk = c->loc[0].pchunk;
		return c->loc[0].pmember;
	}
	*mchunk = c->loc[0].qchunk;
	return c->loc[0].qmember;
}

/*
 * Intent for a write that logs, without DAX: the region keeps one
 * reference while it has records not yet reintegrated.
 */
static int plog_log_intent(struct plog_ctx *c, bool *held)
{
	struct plog *p = c->p;
	struct rl_md *md = p->a->md;

	*held = false;
	if (!md || p->pm)
		return 0;
	if (rl_md_intent_start(md, rl_md_region(rl_md_state(md),
						p->keys[c->region])))
		return -EIO;
	*held = true;
	return 0;
}

/*
 * A logging write's payloads in the context: a partial row's old data
 * read (or found in the data cache) and old ^ new computed, a full row's
 * new check blocks. BLK_STS_AGAIN if a preread failed.
 */
static blk_status_t plog_log_prepare(struct plog_ctx *c, bool full)
{
	struct plog *p = c->p;
	unsigned int k, cols = p->lo.cols;
	u32 cs = 1U << p->lo.chunk_shift;
	u32 lo, hi, rlo, rhi;
	const struct plog_rec_plan *pl = &c->plan[0];
	struct plog_iog g;
	unsigned long failed;

	if (!full) {
		plog_iog_init(&g);
		for (k = 0; k < cols; k++) {
			if (!plog_col_span(c, k, &lo, &hi))
				continue;
			rlo = round_down(lo, 1U << PLOG_BLOCK_SHIFT);
			rhi = round_up(hi, 1U << PLOG_BLOCK_SHIFT);
			if (plog_cache_get(p->cache, plog_block_key(c, k, rlo),
					   (rhi - rlo) >> PLOG_BLOCK_SHIFT,
					   c->col[k] + (rlo << SECTOR_SHIFT)))
				continue;
			plog_io(p, &g, c->loc[k].member, REQ_OP_READ,
				plog_msector(p, c->loc[k].mchunk, rlo),
				c->col[k] + (rlo << SECTOR_SHIFT), rhi - rlo,
				RL_FG, RL_DATA_READ);
		}
		failed = plog_iog_wait(p, &g);
		if (failed) {
			plog_iog_fail(p, &g, "read error");
			return BLK_STS_AGAIN;
		}
		for (k = 0; k < cols; k++)
			if (plog_col_span(c, k, &lo, &hi))
				plog_read_done(c->col[k] + (lo << SECTOR_SHIFT),
					       hi - lo);
		if (p->lo.f == 1) {
			/* delta = old ^ new over the hull of the columns */
			memset(c->delta + (pl->lo << SECTOR_SHIFT), 0,
			       (pl->hi - pl->lo) << SECTOR_SHIFT);
			for (k = 0; k < cols; k++)
				if (plog_col_span(c, k, &lo, &hi))
					plog_xor(c->delta + (lo << SECTOR_SHIFT),
						 c->col[k] + (lo << SECTOR_SHIFT),
						 (hi - lo) << SECTOR_SHIFT);
			plog_bio_copy(c, PLOG_FROM_BIO);
			for (k = 0; k < cols; k++)
				if (plog_col_span(c, k, &lo, &hi))
					plog_xor(c->delta + (lo << SECTOR_SHIFT),
						 c->col[k] + (lo << SECTOR_SHIFT),
						 (hi - lo) << SECTOR_SHIFT);
		} else {
			/* each column's old ^ new, in place (the new data after) */
			plog_bio_copy(c, PLOG_XOR_BIO);
		}
	} else {
		/* a full row: its new check blocks, no preread */
		plog_bio_copy(c, PLOG_FROM_BIO);
		if (p->lo.f == 1) {
			memcpy(c->delta, c->col[0], cs << SECTOR_SHIFT);
			for (k = 1; k < cols; k++)
				plog_xor(c->delta, c->col[k], cs << SECTOR_SHIFT);
		} else {
			rl_pq_gen_va(c->col, p->lo.g, cs << SECTOR_SHIFT);
		}
	}
	return BLK_STS_OK;
}

/*
 * A write in a LOG region. BLK_STS_AGAIN: nothing was written (a preread
 * failed, or a member became unreadable before the append): serve again.
 */
static blk_status_t plog_write_log(struct plog_ctx *c)
{
	struct plog *p = c->p;
	struct rl_array *a = p->a;
	unsigned int k, cols = p->lo.cols;
	u32 cs = 1U << p->lo.chunk_shift;
	u32 lo, hi, rlo, rhi;
	bool full = !c->off && bio_sectors(c->bio) == cols * cs;
	u64 region = 0;
	struct plog_iog g;
	blk_status_t sts;
	bool held;
	int ret;

	plog_locate(c);
	c->nr_recs = plog_plan_recs(&p->lo, c->off, bio_sectors(c->bio),
				    c->plan);
	sts = plog_log_prepare(c, full);
	if (sts)
		return sts;
	if (plog_log_intent(c, &held))
		return BLK_STS_IOERR;
	if (held)
		region = rl_md_region(rl_md_state(a->md), p->keys[c->region]);
	plog_slot_write(c);
	ret = plog_append(c);
	if (ret) {
		if (held)
			rl_md_intent_end(a->md, region);
		/* nothing written: again after the thaw, or DIRECT */
		return ret == -EBUSY ? PLOG_STS_THAW : BLK_STS_AGAIN;
	}
	if (held) {
		/* the first record of the region keeps the reference */
		mutex_lock(&p->lock);
		if (!p->reg[c->region].intent) {
			p->reg[c->region].intent = true;
			held = false;
		}
		mutex_unlock(&p->lock);
	}
	if (p->lo.f > 1 && !full)
		plog_bio_copy(c, PLOG_FROM_BIO);

	plog_iog_init(&g);
	for (k = 0; k < cols; k++)
		if (plog_col_span(c, k, &lo, &hi))
			plog_io(p, &g, c->loc[k].member,
				REQ_OP_WRITE | (c->bio->bi_opf & (REQ_FUA | REQ_SYNC)),
				plog_msector(p, c->loc[k].mchunk, lo),
				c->col[k] + (lo << SECTOR_SHIFT), hi - lo,
				RL_FG, RL_DATA_WRITE);
	plog_iog_wait(p, &g);
	/* what did not land is in the check blocks and their log: committed anyway */
	plog_iog_fail(p, &g, "write error");
	plog_commit(c);
	if (held)
		rl_md_intent_end(a->md, region);

	for (k = 0; k < cols; k++) {
		if (full) {
			/* not kept (a full row is seldom rewritten in part soon) */
			plog_cache_drop(p->cache, plog_block_key(c, k, 0),
					cs >> PLOG_BLOCK_SHIFT);
			continue;
		}
		if (!plog_col_span(c, k, &lo, &hi))
			continue;
		rlo = round_down(lo, 1U << PLOG_BLOCK_SHIFT);
		rhi = round_up(hi, 1U << PLOG_BLOCK_SHIFT);
		plog_cache_put(p->cache, plog_block_key(c, k, rlo),
			       (rhi - rlo) >> PLOG_BLOCK_SHIFT,
			       c->col[k] + (rlo << SECTOR_SHIFT));
	}
	return rl_nr_failed(a) > a->redundancy ? BLK_STS_IOERR : BLK_STS_OK;
}

/*
 * Read the row's chunks over [lo, hi) into the context (syndrome order:
 * data columns, then the check blocks, plog_pos()), but for unreadable
 * members. Returns the positions missing, a bit each; *err is -EIO if
 * more than f are, -EAGAIN if a read failed (its member is failed now).
 */
static unsigned long plog_read_row(struct plog_ctx *c, u32 lo, u32 hi, int *err)
{
	struct plog *p = c->p;
	unsigned int j, m, cols = p->lo.cols, n = p->lo.g;
	unsigned long bad, failed, missing = 0;
	struct plog_iog g;
	u64 mchunk;

	*err = 0;
	bad = rl_unreadable_at(p->a, p->keys[c->region]);
	plog_iog_init(&g);
	for (j = 0; j < n; j++) {
		m = plog_pos(c, j, &mchunk);
		if (test_bit(m, &bad)) {
			__set_bit(j, &missing);
			continue;
		}
		plog_io(p, &g, m, REQ_OP_READ, plog_msector(p, mchunk, lo),
			c->col[j] + (lo << SECTOR_SHIFT), hi - lo, RL_FG,
			j < cols ? RL_DATA_READ : RL_PARITY_READ);
	}
	if (hweight_long(missing) > p->lo.f)
		*err = -EIO;
	failed = plog_iog_wait(p, &g);
	if (failed) {
		plog_iog_fail(p, &g, "read error");
		*err = -EAGAIN;
	}
	for (j = 0; j < n; j++)
		if (!test_bit(j, &missing))
			plog_read_done(c->col[j] + (lo << SECTOR_SHIFT), hi - lo);
	return missing;
}

/*
 * col[k] = xor of the row's other data columns and P (position cols)
 * over [lo, hi).
 */
static void plog_rebuild_col(struct plog_ctx *c, unsigned int k, u32 lo, u32 hi)
{
	unsigned int j, cols = c->p->lo.cols;
	size_t o = (size_t)lo << SECTOR_SHIFT, n = (size_t)(hi - lo) << SECTOR_SHIFT;

	memset(c->col[k] + o, 0, n);
	for (j = 0; j <= cols; j++)
		if (j != k)
			plog_xor(c->col[k] + o, c->col[j] + o, n);
}

/*
 * Rebuild the row's @missing positions over [lo, hi) from the others (at
 * most f missing): with P at hand and one data column missing, by xor;
 * otherwise, for f = 2, from the P+Q syndrome (lib/raid6).
 */
static void plog_rebuild(struct plog_ctx *c, unsigned long missing, u32 lo,
			 u32 hi)
{
	unsigned int j, cols = c->p->lo.cols, a, b;
	size_t o = (size_t)lo << SECTOR_SHIFT;
	void *ptrs[RL_MAX_MEMBERS];

	a = find_first_bit(&missing, BITS_PER_LONG);
	if (a >= cols)
		return;		/* only check blocks: nothing to rebuild */
	b = find_next_bit(&missing, BITS_PER_LONG, a + 1);
	if (c->p->lo.f == 1 || b >= cols + 1) {
		/* one data column, and P is there (Q may be missing) */
		plog_rebuild_col(c, a, lo, hi);
		return;
	}
	for (j = 0; j < c->p->lo.g; j++)
		ptrs[j] = c->col[j] + o;
	rl_pq_recover_va(ptrs, c->p->lo.g, a, b,
			 (size_t)(hi - lo) << SECTOR_SHIFT);
}

/* A read that needs a column rebuilt (its member is unreadable). */
static blk_status_t plog_read(struct plog_ctx *c)
{
	unsigned int k = c->off >> c->p->lo.chunk_shift;
	unsigned long missing;
	u32 lo, hi;
	int err;

	plog_locate(c);
	plog_col_span(c, k, &lo, &hi);
	/* every readable position; rebuilt if the column is missing */
	missing = plog_read_row(c, lo, hi, &err);
	if (err)
		return err == -EAGAIN ? BLK_STS_AGAIN : BLK_STS_IOERR;
	if (test_bit(k, &missing))
		plog_rebuild(c, missing, lo, hi);
	plog_bio_copy(c, PLOG_TO_BIO);
	return BLK_STS_OK;
}

/*
 * A write in a DIRECT region (degraded): the row's chunks over the hull
 * are read (missing data columns rebuilt), the new data put in, the check
 * blocks recomputed (f = 1: parity; f = 2: P and Q), and the data and
 * check blocks written where their members are readable. The
 * write-intent bitmap covers the write hole.
 */
static blk_status_t plog_write_direct(struct plog_ctx *c)
{
	struct plog *p = c->p;
	struct rl_array *a = p->a;
	unsigned int j, m, cols = p->lo.cols;
	u32 cs = 1U << p->lo.chunk_shift, lo, hi, hlo = cs, hhi = 0;
	void *ptrs[RL_MAX_MEMBERS];
	unsigned long missing;
	struct plog_iog g;
	u64 region = 0, mchunk;
	size_t o, n;
	int err;

	plog_locate(c);
	for (j = 0; j < cols; j++)
		if (plog_col_span(c, j, &lo, &hi)) {
			hlo = min(hlo, lo);
			hhi = max(hhi, hi);
		}
	missing = plog_read_row(c, hlo, hhi, &err);
	if (err)
		return err == -EAGAIN ? BLK_STS_AGAIN : BLK_STS_IOERR;
	plog_rebuild(c, missing, hlo, hhi);
	plog_bio_copy(c, PLOG_FROM_BIO);
	o = (size_t)hlo << SECTOR_SHIFT;
	n = (size_t)(hhi - hlo) << SECTOR_SHIFT;
	if (p->lo.f == 1) {
		memcpy(c->col[cols] + o, c->col[0] + o, n);
		for (j = 1; j < cols; j++)
			plog_xor(c->col[cols] + o, c->col[j] + o, n);
	} else {
		for (j = 0; j < p->lo.g; j++)
			ptrs[j] = c->col[j] + o;
		rl_pq_gen_va(ptrs, p->lo.g, n);
	}

	if (a->md) {
		region = rl_md_region(rl_md_state(a->md), p->keys[c->region]);
		if (rl_md_intent_start(a->md, region))
			return BLK_STS_IOERR;
	}
	plog_iog_init(&g);
	for (j = 0; j < p->lo.g; j++) {
		if (test_bit(j, &missing))
			continue;
		if (j < cols && !plog_col_span(c, j, &lo, &hi))
			continue;
		if (j >= cols) {
			lo = hlo;
			hi = hhi;
		}
		m = plog_pos(c, j, &mchunk);
		plog_io(p, &g, m,
			REQ_OP_WRITE | (c->bio->bi_opf & (REQ_FUA | REQ_SYNC)),
			plog_msector(p, mchunk, lo),
			c->col[j] + (lo << SECTOR_SHIFT), hi - lo, RL_FG,
			j < cols ? RL_DATA_WRITE : RL_PARITY_WRITE);
	}
	plog_iog_wait(p, &g);
	plog_iog_fail(p, &g, "write error");
	if (a->md)
		rl_md_intent_end(a->md, region);
	for (j = 0; j < cols; j++)
		if (plog_col_span(c, j, &lo, &hi))
			plog_cache_drop(p->cache, plog_block_key(c, j, 0),
					cs >> PLOG_BLOCK_SHIFT);
	return rl_nr_failed(a) > a->redundancy ? BLK_STS_IOERR : BLK_STS_OK;
}

static void plog_serve(struct plog_ctx *c)
{
	struct plog *p = c->p;
	unsigned int tries = 0;
	blk_status_t st;
	int mode;

	do {
		mode = plog_enter(p, c->region);
		if (mode < 0) {
			st = BLK_STS_IOERR;
			break;
		}
		if (bio_op(c->bio) == REQ_OP_READ)
			st = plog_read(c);
		else if (mode == PLOG_LOG)
			st = plog_write_log(c);
		else
			st = plog_write_direct(c);
		plog_exit(p, c->region);
	} while (st == PLOG_STS_THAW ||
		 (st == BLK_STS_AGAIN && ++tries <= p->a->geom.nr_members));
	if (st == BLK_STS_AGAIN)
		st = BLK_STS_IOERR;
	c->bio->bi_status = st;
	bio_endio(c->bio);
}

/* Where the bio goes: its row (the lock), region, and offset in the row. */
static void plog_bio_row(struct plog *p, struct bio *bio, u32 *region,
			 u32 *rrow, u32 *off)
{
	sector_t ls = rl_pb(bio)->lsector;
	struct rl_plog_loc loc;

	rl_plog_map(&p->lo, ls >> p->lo.chunk_shift, &loc);
	*region = loc.region;
	*rrow = loc.row;
	*off = ((u32)loc.col << p->lo.chunk_shift) +
	       (u32)(ls & ((1U << p->lo.chunk_shift) - 1));
}

static u64 plog_row_id(struct plog *p, u32 region, u32 rrow)
{
	return (u64)region * p->lo.slice + rrow;
}

static struct plog_ctx *plog_ctx_lookup(struct plog *p, u64 row)
{
	struct plog_ctx *c;

	hlist_for_each_entry(c, &p->hash[hash_64(row, p->hash_bits)], hnode)
		if (c->row == row)
			return c;
	return NULL;
}

static void plog_queue_bio(struct plog *p, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&p->hlock, flags);
	bio_list_add(&p->incoming, bio);
	spin_unlock_irqrestore(&p->hlock, flags);
	queue_work(p->a->wq, &p->dispatch);
}

static void plog_dispatch(struct work_struct *ws)
{
	struct plog *p = container_of(ws, struct plog, dispatch);
	struct plog_ctx *c;
	u32 region, rrow, off;
	struct bio *bio;
	u64 row;

	spin_lock_irq(&p->hlock);
	while ((bio = bio_list_peek(&p->incoming))) {
		plog_bio_row(p, bio, &region, &rrow, &off);
		row = plog_row_id(p, region, rrow);
		c = plog_ctx_lookup(p, row);
		if (c) {
			bio_list_pop(&p->incoming);
			bio_list_add(&c->waiting, bio);
			continue;
		}
		if (list_empty(&p->free))
			break;	/* a context that goes idle kicks us again */
		bio_list_pop(&p->incoming);
		c = list_first_entry(&p->free, struct plog_ctx, lnode);
		list_del_init(&c->lnode);
		c->row = row;
		c->region = region;
		c->rrow = rrow;
		c->off = off;
		c->bio = bio;
		hlist_add_head(&c->hnode, &p->hash[hash_64(row, p->hash_bits)]);
		queue_work(p->ctx_wq, &c->work);
	}
	spin_unlock_irq(&p->hlock);
}

/* The next bio for the context's row, or the context goes idle. */
static bool plog_ctx_next(struct plog_ctx *c)
{
	struct plog *p = c->p;

	spin_lock_irq(&p->hlock);
	c->bio = bio_list_pop(&c->waiting);
	if (c->bio) {
		spin_unlock_irq(&p->hlock);
		plog_bio_row(p, c->bio, &c->region, &c->rrow, &c->off);
		return true;
	}
	hlist_del_init(&c->hnode);
	list_add(&c->lnode, &p->free);
	if (!bio_list_empty(&p->incoming))
		queue_work(p->a->wq, &p->dispatch);
	spin_unlock_irq(&p->hlock);
	return false;
}

static void plog_ctx_work(struct work_struct *ws)
{
	struct plog_ctx *c = container_of(ws, struct plog_ctx, work);

	do {
		plog_serve(c);
	} while (plog_ctx_next(c));
}

/* ------------------------------------------------------------------------
 * The scheme
 */

static void plog_params(struct rl_array *a, struct rl_plog_params *pp)
{
	const unsigned int *o = a->sopt;

	memset(pp, 0, sizeof(*pp));
	pp->nr_members = a->geom.nr_members;
	pp->chunk_sectors = rl_chunk_sectors(&a->geom);
	pp->log_disks = o[RL_PLOG_OPT_LOG_DISKS];
	pp->log_ratio = o[RL_PLOG_OPT_LOG_RATIO];
	pp->log_tracks = o[RL_PLOG_OPT_LOG_TRACKS];
	pp->track_sectors = o[RL_PLOG_OPT_TRACK_SECTORS];
	pp->regions = o[RL_PLOG_OPT_REGIONS];
	pp->faults = o[RL_PLOG_OPT_FAULTS] ?: 1;
}

/* The layout, checked against what a context and a segment must hold. */
static int plog_layout(struct rl_array *a, u64 member_sectors,
		       struct rl_plog_layout *lo, char **error)
{
	struct rl_plog_params pp;
	int r;

	plog_params(a, &pp);
	if (pp.faults > 1 && !rl_pq_available()) {
		*error = "plog: faults 2 needs lib/raid6 P+Q support";
		return -EINVAL;
	}
	r = rl_plog_layout_init(lo, &pp, member_sectors, error);
	if (r)
		return r;
	if (lo->g < 2 || lo->max_recs < 1 ||
	    lo->seg_sectors < lo->hdr_sectors + rl_chunk_sectors(&a->geom)) {
		*error = "plog: a log segment cannot hold a chunk's record";
		return -EINVAL;
	}
	return 0;
}

static int plog_capacity(struct rl_array *a, sector_t len, char **error)
{
	struct rl_plog_layout lo;
	int r;

	r = plog_layout(a, a->member_sectors, &lo, error);
	if (r)
		return r;
	if (!len) {
		*error = "Zero target length";
		return -EINVAL;
	}
	if (len > lo.data_chunks << lo.chunk_shift) {
		*error = "Target length exceeds the plog capacity";
		return -EINVAL;
	}
	if (len & (rl_chunk_sectors(&a->geom) - 1)) {
		*error = "Target length is not a multiple of chunk_size";
		return -EINVAL;
	}
	a->member_sectors = lo.member_chunks << lo.chunk_shift;
	return 0;
}

static unsigned int plog_data_columns(unsigned int nr_members)
{
	return 1;	/* unused: ->capacity sizes the array */
}

static void plog_map_sector(const struct rl_geom *g, sector_t lsector,
			    struct rl_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->member = RL_NONE;	/* unused: the layout needs the table's options */
}

static bool plog_unmap_sector(const struct rl_geom *g, unsigned int member,
			      sector_t msector, sector_t *lsector)
{
	return false;
}

static void plog_free_ctx(struct plog *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_ctx; i++) {
		vfree(p->ctx[i]->mem);
		kfree(p->ctx[i]);
	}
	kfree(p->ctx);
	p->ctx = NULL;
	p->nr_ctx = 0;
}

/* Contexts: as many as PLOG_CTX_BUDGET of row buffers (*bytes each) allows, 2 .. 64. */
static unsigned int plog_nr_ctx(const struct rl_plog_layout *lo, size_t *bytes)
{
	*bytes = (size_t)(lo->g + 1) << (lo->chunk_shift + SECTOR_SHIFT);
	return clamp_t(size_t, PLOG_CTX_BUDGET / *bytes, 2, PLOG_MAX_CTX);
}

static int plog_alloc_ctx(struct plog *p)
{
	size_t cb = plog_chunk_bytes(p), bytes;
	unsigned int i, k, nr = plog_nr_ctx(&p->lo, &bytes);
	struct plog_ctx *c;

	p->ctx = kcalloc(nr, sizeof(*p->ctx), GFP_KERNEL);
	if (!p->ctx)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		c->mem = vmalloc(bytes);
		if (!c->mem) {
			kfree(c);
			return -ENOMEM;
		}
		c->id = p->nr_ctx;
		p->ctx[p->nr_ctx++] = c;
		c->p = p;
		INIT_HLIST_NODE(&c->hnode);
		bio_list_init(&c->waiting);
		INIT_WORK(&c->work, plog_ctx_work);
		for (k = 0; k < p->lo.g; k++)
			c->col[k] = c->mem + k * cb;
		c->delta = c->mem + p->lo.g * cb;
		c->col[p->lo.g] = c->delta;
		list_add_tail(&c->lnode, &p->free);
	}
	p->hash_bits = ilog2(roundup_pow_of_two(nr));
	p->hash = kcalloc(1U << p->hash_bits, sizeof(*p->hash), GFP_KERNEL);
	if (!p->hash)
		return -ENOMEM;
	for (i = 0; i < (1U << p->hash_bits); i++)
		INIT_HLIST_HEAD(&p->hash[i]);
	return 0;
}

/**
 * plog_mem() - the memory a plog table asks for at load
 * @lo: its layout
 * @nr_bufs: log buffers in the pool
 * @cache_blocks: data_cache, 4 KiB blocks
 * @m: filled in: the bytes of each use
 *
 * What the table's options scale: the log-buffer pool (log_buffers
 * segments of log_tracks * track_sectors), the data cache (data_cache
 * pages and their entries), the reintegration workspaces (a region's check
 * chunks, twice, a stage and a log window each: fewer regions, larger
 * ones, ask for more), the foreground contexts (a row's chunks each) and
 * the per-region state (regions). Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: the bytes of all of them.
 */
u64 plog_mem(const struct rl_plog_layout *lo, unsigned int nr_bufs,
	     unsigned int cache_blocks, struct plog_mem *m)
{
	u64 ws = plog_ws_bytes(lo);
	unsigned int nr_ctx;
	size_t ctx;

	nr_ctx = plog_nr_ctx(lo, &ctx);
	m->pool = (u64)nr_bufs * (((u64)lo->seg_sectors << SECTOR_SHIFT) +
				  sizeof(struct rl_plog_buf));
	/* a page, an entry and at most two hash heads a block */
	m->cache = (u64)cache_blocks * (PAGE_SIZE + sizeof(struct plog_centry) +
					2 * sizeof(struct hlist_head));
	m->ws = plog_nr_ws(lo->n, lo->f * lo->l, ws) * ws;
	m->ctx = nr_ctx * ((u64)ctx + sizeof(struct plog_ctx));
	/* keys, reg, batch, batch_copies */
	m->regions = (u64)lo->nr_regions * (sizeof(u64) + sizeof(struct plog_region) +
					    sizeof(struct rl_plog_buf *) + sizeof(u8));
	m->total = m->pool + m->cache + m->ws + m->ctx + m->regions;
	return m->total;
}

static_assert(PLOG_MEM_BUDGET == 512ULL << 20);	/* plog_mem_check()'s message */

/**
 * plog_mem_check() - does a plog table ask for no more than PLOG_MEM_BUDGET?
 * @lo: its layout
 * @nr_bufs: log buffers in the pool
 * @cache_blocks: data_cache, 4 KiB blocks
 * @m: filled in by plog_mem()
 * @error: set to a static message for ti->error when it does
 *
 * Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: 0, or -EINVAL.
 */
int plog_mem_check(const struct rl_plog_layout *lo, unsigned int nr_bufs,
		   unsigned int cache_blocks, struct plog_mem *m, char **error)
{
	if (plog_mem(lo, nr_bufs, cache_blocks, m) <= PLOG_MEM_BUDGET)
		return 0;
	*error = "plog options ask for more than the 512 MiB memory budget";
	return -EINVAL;
}

/* plog_mem_check(), and what the options ask for in the kernel log. */
static int plog_check_mem(struct plog *p, unsigned int nr_bufs, char **error)
{
	const char *name = dm_table_device_name(p->a->ti->table);
	struct plog_mem m;

	if (!plog_mem_check(&p->lo, nr_bufs, p->a->sopt[RL_PLOG_OPT_DATA_CACHE], &m,
			    error))
		return 0;
	DMERR("%s: plog options ask for %llu MiB of buffers, more than the %llu MiB budget",
	      name, DIV_ROUND_UP_ULL(m.total, 1 << 20), PLOG_MEM_BUDGET >> 20);
	DMERR("%s: MiB of log buffers %llu, data cache %llu, workspaces %llu, contexts %llu",
	      name, m.pool >> 20, m.cache >> 20, m.ws >> 20, m.ctx >> 20);
	return -EINVAL;
}

static void plog_dtr(struct rl_array *a)
{
	struct plog *p = plog_of(a);
	struct rl_plog_buf *b, *n;
	unsigned int i;
	u32 r;

	if (!p)
		return;
	/*
	 * The log writer queues region operations and they queue the log
	 * writer and each other: drain them until none has work, then
	 * destroy them.
	 */
	if (p->bg_wq && p->log_wq && p->reint_wq) {
		/*
		 * Once stopping is seen, no work item queues region operations;
		 * one begun before may have queued one more, hence two rounds.
		 */
		mutex_lock(&p->lock);
		WRITE_ONCE(p->stopping, true);
		mutex_unlock(&p->lock);
		for (i = 0; i < 2; i++) {
			flush_workqueue(p->log_wq);
			flush_workqueue(p->reint_wq);
			flush_workqueue(p->bg_wq);
		}
	}
	if (p->reint_wq)
		destroy_workqueue(p->reint_wq);
	if (p->bg_wq)
		destroy_workqueue(p->bg_wq);
	if (p->log_wq)
		destroy_workqueue(p->log_wq);
	if (p->ctx_wq)
		destroy_workqueue(p->ctx_wq);
	/* buffers left in RAM: their twins (DAX) or intent bits cover them */
	list_for_each_entry_safe(b, n, &p->sealq, list) {
		list_del(&b->list);
		rl_plog_pool_put(&p->pool, b);
	}
	for (r = 0; p->reg && r < p->lo.nr_regions; r++)
		if (p->reg[r].cur)
			rl_plog_pool_put(&p->pool, p->reg[r].cur);
	if (p->pm)
		rl_plog_md_close(p->pm);
	plog_region_ops_free(p);
	plog_free_ctx(p);
	kfree(p->hash);
	plog_cache_free(p->cache);
	if (p->pool.bufs)
		rl_plog_pool_exit(&p->pool);
	bioset_exit(&p->bs);
	kvfree(p->reg);
	kvfree(p->keys);
	kvfree(p->batch);
	kvfree(p->batch_copies);
	kfree(p);
	a->scheme = NULL;
}

/* Durable state: the DAX record area, or the intent bitmap, or none. */
static int plog_open_md(struct plog *p, unsigned int nr_bufs, char **error)
{
	struct rl_array *a = p->a;
	const char *why;
	int r;

	if (!a->md || a->journal == RL_JNL_OFF)
		return 0;
	r = rl_plog_md_open(a->md, &p->lo, nr_bufs, &p->pm, error);
	if (r == -EOPNOTSUPP) {
		p->pm = NULL;
		if (a->journal == RL_JNL_ON) {
			*error = "plog: journal on needs a DAX metadata device";
			return -EINVAL;
		}
		return 0;
	}
	if (r)
		return r;
	/* the new data of writes in flight, one slot per context */
	if (rl_plog_md_slots_open(p->pm, a->md, &p->lo, p->nr_ctx, &why))
		DMWARN("%s: plog: no data slots (%s): degraded replays skip writes in flight",
		       dm_table_device_name(a->ti->table), why);
	return 0;
}

/*
 * f = 2: one write appends up to cols records (a chunk each at most), all
 * at once, possibly over several fresh buffers: the region's log and the
 * pool must hold that many. A default pool grows to it.
 */
static int plog_check_room(struct plog *p, unsigned int *nr_bufs,
			   char **error)
{
	struct plog_rec_plan plan[RL_MAX_MEMBERS];
	unsigned int k, need;

	for (k = 0; k < p->lo.cols; k++) {
		plan[k].lo = 0;
		plan[k].hi = 1U << p->lo.chunk_shift;
	}
	need = plog_plan_bufs(&p->lo, NULL, plan, p->lo.cols);
	if (need > p->lo.segs) {
		*error = "plog: a region's log cannot hold one write's records";
		return -EINVAL;
	}
	if (need > *nr_bufs) {
		if (p->a->sopt[RL_PLOG_OPT_LOG_BUFFERS]) {
			*error = "plog: log_buffers too few for one write's records";
			return -EINVAL;
		}
		*nr_bufs = need;
	}
	return 0;
}

static int plog_ctr(struct rl_array *a)
{
	struct dm_target *ti = a->ti;
	unsigned int nr_bufs = a->sopt[RL_PLOG_OPT_LOG_BUFFERS];
	struct plog *p;
	u32 r;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		ti->error = "Cannot allocate plog state";
		return -ENOMEM;
	}
	a->scheme = p;
	p->a = a;
	mutex_init(&p->lock);
	init_rwsem(&p->op_sem);
	INIT_LIST_HEAD(&p->sealq);
	init_waitqueue_head(&p->wait);
	spin_lock_init(&p->hlock);
	bio_list_init(&p->incoming);
	INIT_LIST_HEAD(&p->free);
	INIT_WORK(&p->dispatch, plog_dispatch);
	INIT_WORK(&p->log_work, plog_log_work);
	INIT_WORK(&p->bg_work, plog_bg_work);

	ret = plog_layout(a, a->member_sectors, &p->lo, &ti->error);
	if (ret)
		goto bad;
	/* by default a buffer per region, so that each can fill one */
	if (!nr_bufs)
		nr_bufs = clamp_t(u32, p->lo.nr_regions, RL_PLOG_DEF_BUFFERS,
				  RL_PLOG_MAX_DEF_BUFFERS);
	if (p->lo.f > 1) {
		ret = plog_check_room(p, &nr_bufs, &ti->error);
		if (ret)
			goto bad;
	}
	ret = plog_check_mem(p, nr_bufs, &ti->error);
	if (ret)
		goto bad;
	ret = -ENOMEM;
	ti->error = "Cannot allocate plog state";
	p->keys = kvcalloc(p->lo.nr_regions, sizeof(*p->keys), GFP_KERNEL);
	p->reg = kvcalloc(p->lo.nr_regions, sizeof(*p->reg), GFP_KERNEL);
	p->batch = kvcalloc(p->lo.nr_regions, sizeof(*p->batch), GFP_KERNEL);
	p->batch_copies = kvcalloc(p->lo.nr_regions, sizeof(*p->batch_copies),
				   GFP_KERNEL);
	if (!p->keys || !p->reg || !p->batch || !p->batch_copies)
		goto bad;
	for (r = 0; r < p->lo.nr_regions; r++)
		p->keys[r] = rl_plog_region_key(&p->lo, r);
	if (bioset_init(&p->bs, 4 * RL_MAX_MEMBERS, offsetof(struct plog_io, bio),
			BIOSET_NEED_BVECS))
		goto bad;
	if (rl_plog_pool_init(&p->pool, nr_bufs,
			      p->lo.seg_sectors << SECTOR_SHIFT)) {
		ti->error = "Cannot allocate the log buffers";
		goto bad;
	}
	p->cache = plog_cache_alloc(a->sopt[RL_PLOG_OPT_DATA_CACHE]);
	if (!p->cache || plog_alloc_ctx(p) || plog_region_ops_init(p))
		goto bad;
	p->ctx_wq = alloc_workqueue("kraidlab_plog", WQ_MEM_RECLAIM | WQ_UNBOUND,
				    p->nr_ctx);
	p->log_wq = alloc_ordered_workqueue("kraidlab_plog_log", WQ_MEM_RECLAIM);
	p->bg_wq = alloc_ordered_workqueue("kraidlab_plog_bg", WQ_MEM_RECLAIM);
	p->reint_wq = alloc_workqueue("kraidlab_plog_reint",
				      WQ_MEM_RECLAIM | WQ_UNBOUND, p->nr_ws);
	if (!p->ctx_wq || !p->log_wq || !p->bg_wq || !p->reint_wq)
		goto bad;

	ret = plog_open_md(p, nr_bufs, &ti->error);
	if (ret)
		goto bad;
	/* replay what a crash left in the log, before any I/O */
	ret = plog_recover(p, &ti->error);
	if (ret)
		goto bad;

	ret = dm_set_target_max_io_len(ti, (sector_t)p->lo.cols <<
				       p->lo.chunk_shift);
	if (ret)
		goto bad;
	ti->num_discard_bios = 0;	/* discards are refused */
	return 0;
bad:
	plog_dtr(a);
	return ret;
}

static int plog_map(struct rl_array *a, struct bio *bio)
{
	struct plog *p = plog_of(a);
	struct rl_bio *pb = rl_pb(bio);
	struct rl_plog_loc loc;
	unsigned long bad;

	if (bio_op(bio) == REQ_OP_READ) {
		rl_trim_to_chunk(a, bio);
		rl_plog_map(&p->lo, pb->lsector >> p->lo.chunk_shift, &loc);
		bad = rl_unreadable_at(a, p->keys[loc.region]);
		if (!test_bit(loc.member, &bad)) {
			rl_remap(a, bio, loc.member, a->geom.data_offset +
				 plog_msector(p, loc.mchunk, pb->lsector &
					      ((1U << p->lo.chunk_shift) - 1)));
			return DM_MAPIO_SUBMITTED;
		}
	} else if (bio_op(bio) != REQ_OP_WRITE) {
		return DM_MAPIO_KILL;
	}
	if (rl_nr_failed(a) > a->redundancy)
		return DM_MAPIO_KILL;
	plog_queue_bio(p, bio);
	return DM_MAPIO_SUBMITTED;
}

/* A direct read that failed is served again through a context. */
static int plog_end_io(struct rl_array *a, struct bio *bio, blk_status_t *error)
{
	if (!rl_end_remapped(a, bio, *error))
		return DM_ENDIO_DONE;
	plog_queue_bio(plog_of(a), bio);
	return DM_ENDIO_INCOMPLETE;
}

/*
 * Suspended: no bio is in flight. Reintegrate every log, so that the
 * parity is whole and the intent bits (without DAX) can clear; then the
 * log writer and region operations stop until the resume.
 */
static void plog_postsuspend(struct rl_array *a)
{
	struct plog *p = plog_of(a);

	plog_reintegrate_all(p);
	flush_workqueue(p->reint_wq);
	flush_workqueue(p->bg_wq);
	flush_workqueue(p->log_wq);
}

static void plog_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	struct plog *p = plog_of(a);
	unsigned int cb = plog_chunk_bytes(p);
	unsigned int row = (cb >> SECTOR_SHIFT) * p->lo.cols;

	blk_limits_io_min(limits, cb);
	blk_limits_io_opt(limits, cb * p->lo.cols);
	limits->max_hw_sectors = max(limits->max_hw_sectors, row);
	limits->max_sectors = max(limits->max_sectors, row);
}

static const char *plog_durability(struct plog *p)
{
	return p->pm ? "pmem" : p->a->md ? "intent" : "none";
}

/*
 * INFO: plog <L> <A.aaa> <K> <B> <S> <G> <seg_sectors> <capacity_sectors>
 *       <durability> <log_bytes> <pool_total> <pool_free> <pool_min_free>
 *       <pool_waits> <reintegrations> <regions_with_log>
 *       <max_region_fill_segs> <cache_hits> <cache_misses> <faults>
 * TABLE: log_disks log_ratio log_tracks track_sectors regions log_buffers
 *        data_cache, each with its value, then faults 2 if f = 2 (a
 *        faults 1 table line reads as before the option).
 */
static void plog_status(struct rl_array *a, status_type_t type, char *result,
			unsigned int maxlen, unsigned int *psz)
{
	struct plog *p = plog_of(a);
	const struct rl_plog_layout *lo = &p->lo;
	unsigned int sz = *psz, ratio;
	u32 r, with_log = 0, fill, max_fill = 0;
	u64 hits, misses;

	if (type == STATUSTYPE_INFO) {
		mutex_lock(&p->lock);
		for (r = 0; r < lo->nr_regions; r++) {
			struct plog_region *rg = &p->reg[r];

			fill = rg->disk_segs + rg->queued + !!rg->cur;
			if (fill || rg->recs)
				with_log++;
			max_fill = max(max_fill, fill);
		}
		mutex_unlock(&p->lock);
		plog_cache_counts(p->cache, &hits, &misses);
		DMEMIT(" plog %u %u.%03u %u %u %u %u %u %llu %s %llu",
		       lo->l, lo->a_milli / 1000, lo->a_milli % 1000, lo->k,
		       lo->nr_regions, lo->slice, lo->sublog, lo->seg_sectors,
		       (unsigned long long)lo->data_chunks << lo->chunk_shift,
		       plog_durability(p), READ_ONCE(p->log_bytes));
		spin_lock_irq(&p->pool.lock);
		DMEMIT(" %u %u %u %llu", p->pool.nr, p->pool.nr_free,
		       p->pool.min_free, p->pool.waits);
		spin_unlock_irq(&p->pool.lock);
		DMEMIT(" %llu %u %u %llu %llu %u", READ_ONCE(p->reintegrations),
		       with_log, max_fill, hits, misses, lo->f);
	} else if (type == STATUSTYPE_TABLE) {
		ratio = a->sopt[RL_PLOG_OPT_LOG_RATIO] ?: RL_PLOG_DEF_A;
		DMEMIT(" log_disks %u log_ratio %u.%03u log_tracks %u",
		       lo->l, ratio / 1000, ratio % 1000, lo->k);
		DMEMIT(" track_sectors %u regions %u log_buffers %u data_cache %u",
		       lo->track_sectors, lo->nr_regions, p->pool.nr,
		       p->cache->nr);
		if (lo->f > 1)
			DMEMIT(" faults %u", lo->f);
	}
	*psz = sz;
}

/*
 * Messages:
 *   plog_regions   one line per region with a log or reintegrations:
 *                  <r> <fill_segs> <buffered_recs> <reints>
 *   reintegrate    reintegrate every region's log now; returns when done
 */
static int plog_message(struct rl_array *a, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	struct plog *p = plog_of(a);
	unsigned int sz = 0;
	u32 r, fill;

	if (argc == 1 && !strcasecmp(argv[0], "reintegrate"))
		return plog_reintegrate_all(p);
	if (argc == 1 && !strcasecmp(argv[0], "plog_regions")) {
		result[0] = '\0';
		mutex_lock(&p->lock);
		for (r = 0; r < p->lo.nr_regions; r++) {
			struct plog_region *rg = &p->reg[r];

			fill = rg->disk_segs + rg->queued + !!rg->cur;
			if (!fill && !rg->recs && !rg->reints)
				continue;
			DMEMIT("%u %u %u %u\n", r, fill, rg->recs, rg->reints);
		}
		mutex_unlock(&p->lock);
		return 1;
	}
	return -ENOTTY;
}

/* ------------------------------------------------------------------------
 * The scheme's table options (after the generic ones, args.c):
 *
 *   log_disks <L>           log members per region,
 *                           1 .. members - 2 (default:
 *                           the paper's balance rule)
 *   log_ratio <A>           log to parity size, a
 *                           decimal with up to three
 *                           places, 0.001 .. 64
 *                           (default 1)
 *   log_tracks <K>          tracks per log write, 1 .. 64
 *   track_sectors <n>       sectors a track, 8 .. 8192
 *                           (K * n <= 8192)
 *   regions <B>             parity-log regions, 1 .. 65536
 *                           (default: sqrt(tracks / K))
 *   log_buffers <n>         log buffers in the pool,
 *                           2 .. 1024 (default: one per
 *                           region, 16 .. 128)
 *   data_cache <blocks>     4 KiB blocks of recently
 *                           written data, 0 .. 65536
 *                           (default 256; 0: none)
 *   faults <f>              failures tolerated, 1
 *                           (parity, default) or 2 (P+Q
 *                           check information, the log
 *                           replicated twice)
 * the memory they ask for together (log buffers, data
 * cache, the workspaces the region size scales) is
 * checked against a 512 MiB budget at load
 * (plog_mem_check())
 */

/**
 * rl_parse_log_ratio() - parse a decimal with up to three places
 * @s: the word, e.g. "1", "0.5", "2.25"
 * @milli: result, in thousandths
 *
 * Return: 0, or -EINVAL for anything else (signs, exponents, more than
 * three places, no digits, zero, more than RL_PLOG_MAX_RATIO).
 */
int rl_parse_log_ratio(const char *s, unsigned int *milli)
{
	unsigned int whole = 0, frac = 0, places = 0, digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		whole = whole * 10 + (*s - '0');
		if (whole > RL_PLOG_MAX_RATIO / 1000)
			return -EINVAL;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, places++) {
			if (places == 3)
				return -EINVAL;
			frac = frac * 10 + (*s - '0');
		}
		if (!places)
			return -EINVAL;
	}
	if (*s || !digits)
		return -EINVAL;
	while (places++ < 3)
		frac *= 10;
	*milli = whole * 1000 + frac;
	if (!*milli || *milli > RL_PLOG_MAX_RATIO)
		return -EINVAL;
	return 0;
}

/* In enum rl_plog_opt's order. */
static const struct rl_opt rl_plog_opts[RL_PLOG_NR_OPTS] = {
	[RL_PLOG_OPT_LOG_DISKS] = RL_OPT("plog", log_disks, 1, RL_MAX_MEMBERS - 2),
	[RL_PLOG_OPT_LOG_RATIO] = RL_OPT("plog", log_ratio, 1, RL_PLOG_MAX_RATIO,
		.parse = rl_parse_log_ratio,
		.invalid = "Invalid log_ratio: a decimal such as 1, 0.5 or 2.25, at most 64"),
	[RL_PLOG_OPT_LOG_TRACKS] = RL_OPT("plog", log_tracks, 1, RL_PLOG_MAX_K),
	[RL_PLOG_OPT_TRACK_SECTORS] = RL_OPT("plog", track_sectors, 8, RL_PLOG_MAX_SEG),
	[RL_PLOG_OPT_REGIONS] = RL_OPT("plog", regions, 1, RL_PLOG_MAX_REGIONS),
	[RL_PLOG_OPT_LOG_BUFFERS] = RL_OPT("plog", log_buffers, 2, RL_PLOG_MAX_BUFFERS),
	[RL_PLOG_OPT_DATA_CACHE] = RL_OPT("plog", data_cache, 0, RL_PLOG_MAX_CACHE,
		.def = RL_PLOG_DEF_CACHE),
	[RL_PLOG_OPT_FAULTS] = RL_OPT("plog", faults, 1, 2),
};

static int plog_check_args(const struct rl_args *args, char **error)
{
	const unsigned int *o = args->sopt;

	if (args->stripes_set) {
		*error = "stripe_cache is not a plog option";
		return -EINVAL;
	}
	if ((u64)o[RL_PLOG_OPT_LOG_TRACKS] *
	    (o[RL_PLOG_OPT_TRACK_SECTORS] ?: RL_PLOG_DEF_TRACK) > RL_PLOG_MAX_SEG) {
		*error = "log_tracks * track_sectors exceeds a log write (8192 sectors)";
		return -EINVAL;
	}
	return 0;
}

/* plog survives as many failures as its faults option says */
static unsigned int plog_redundancy_of(const struct rl_args *args)
{
	return max(args->sopt[RL_PLOG_OPT_FAULTS], 1U);
}

/*
 * The plog scheme: the layout is the region manager's (plog.h); geom's
 * nr_data and the ->map_sector/->unmap_sector helpers mean nothing here,
 * ->capacity sizes the array instead.
 */
const struct rl_scheme_ops rl_plog_ops = {
	.name = "plog",
	.min_members = 3,
	.redundancy = 1,
	.parity = true,
	.opts = rl_plog_opts,
	.nr_opts = RL_PLOG_NR_OPTS,
	.check_args = plog_check_args,
	.redundancy_of = plog_redundancy_of,
	.data_columns = plog_data_columns,
	.map_sector = plog_map_sector,
	.unmap_sector = plog_unmap_sector,
	.capacity = plog_capacity,
	.ctr = plog_ctr,
	.dtr = plog_dtr,
	.map = plog_map,
	.end_io = plog_end_io,
	.postsuspend = plog_postsuspend,
	.io_hints = plog_io_hints,
	.status = plog_status,
	.message = plog_message,
	.sync_range = plog_sync_range,
};
