// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: foreground contexts.
 *
 * A write covers at most one row and is served by a context under the
 * row's lock (svc/cell.c): logged (plog_write_log(): records
 * appended, data written, records committed) in a LOG region,
 * read-modify-write of data and parity in a DIRECT one; reads of an
 * unreadable member are rebuilt from the row.
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

static void plog_xor(void *dst, const void *src, unsigned int bytes)
{
	void *s = (void *)src;

	xor_blocks(1, bytes, dst, &s);
}

/*
 * Wait until region @r may be served, and count the access in it. A
 * region with an unreadable member is fixed up first (plog_bg.c).
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
			plog_want_repair(p, r, PLOG_REPAIR_FIX);
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

	bio_for_each_segment(bv, c->cell.bio, it) {
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

/* Sector range [*lo, *hi) of column @k the bio touches; false: none. */
static bool plog_col_span(struct plog_ctx *c, unsigned int k, u32 *lo, u32 *hi)
{
	return plog_span(c->off, bio_sectors(c->cell.bio), c->p->lo.chunk_shift, k,
			 lo, hi);
}

static u64 plog_block_key(struct plog_ctx *c, unsigned int k, u32 sector)
{
	u64 lchunk = (u64)c->cell.key * c->p->lo.cols + k;

	return (lchunk << (c->p->lo.chunk_shift - PLOG_BLOCK_SHIFT)) +
	       (sector >> PLOG_BLOCK_SHIFT);
}

sector_t plog_msector(struct plog *p, u64 mchunk, u32 off)
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
	struct rl_mio_group g;
	unsigned long failed;

	if (!full) {
		rl_mio_init(&g, p->a, &p->bs);
		for (k = 0; k < cols; k++) {
			if (!plog_col_span(c, k, &lo, &hi))
				continue;
			rlo = round_down(lo, 1U << PLOG_BLOCK_SHIFT);
			rhi = round_up(hi, 1U << PLOG_BLOCK_SHIFT);
			if (plog_cache_get(p->cache, plog_block_key(c, k, rlo),
					   (rhi - rlo) >> PLOG_BLOCK_SHIFT,
					   c->col[k] + (rlo << SECTOR_SHIFT)))
				continue;
			rl_mio(&g, c->loc[k].member, REQ_OP_READ,
			       plog_msector(p, c->loc[k].mchunk, rlo),
			       c->col[k] + (rlo << SECTOR_SHIFT), rhi - rlo,
			       RL_FG, RL_DATA_READ);
		}
		failed = rl_mio_wait(&g);
		if (failed) {
			rl_mio_fail(&g, "read error");
			return BLK_STS_AGAIN;
		}
		for (k = 0; k < cols; k++)
			if (plog_col_span(c, k, &lo, &hi))
				rl_mio_read_done(c->col[k] + (lo << SECTOR_SHIFT),
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
	bool full = !c->off && bio_sectors(c->cell.bio) == cols * cs;
	u64 region = 0;
	struct rl_mio_group g;
	blk_status_t sts;
	bool held;
	int ret;

	plog_locate(c);
	c->nr_recs = plog_plan_recs(&p->lo, c->off, bio_sectors(c->cell.bio),
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

	rl_mio_init(&g, p->a, &p->bs);
	for (k = 0; k < cols; k++)
		if (plog_col_span(c, k, &lo, &hi))
			rl_mio(&g, c->loc[k].member,
			       REQ_OP_WRITE | (c->cell.bio->bi_opf & (REQ_FUA | REQ_SYNC)),
			       plog_msector(p, c->loc[k].mchunk, lo),
			       c->col[k] + (lo << SECTOR_SHIFT), hi - lo,
			       RL_FG, RL_DATA_WRITE);
	rl_mio_wait(&g);
	/* what did not land is in the check blocks and their log: committed anyway */
	rl_mio_fail(&g, "write error");
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
	return rl_array_alive(a) ? BLK_STS_OK : BLK_STS_IOERR;
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
	struct rl_mio_group g;
	u64 mchunk;

	*err = 0;
	bad = rl_unreadable_at(p->a, p->keys[c->region]);
	rl_mio_init(&g, p->a, &p->bs);
	for (j = 0; j < n; j++) {
		m = plog_pos(c, j, &mchunk);
		if (test_bit(m, &bad)) {
			__set_bit(j, &missing);
			continue;
		}
		rl_mio(&g, m, REQ_OP_READ, plog_msector(p, mchunk, lo),
		       c->col[j] + (lo << SECTOR_SHIFT), hi - lo, RL_FG,
		       j < cols ? RL_DATA_READ : RL_PARITY_READ);
	}
	if (hweight_long(missing) > p->lo.f)
		*err = -EIO;
	failed = rl_mio_wait(&g);
	if (failed) {
		rl_mio_fail(&g, "read error");
		*err = -EAGAIN;
	}
	for (j = 0; j < n; j++)
		if (!test_bit(j, &missing))
			rl_mio_read_done(c->col[j] + (lo << SECTOR_SHIFT), hi - lo);
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
	struct rl_mio_group g;
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
	rl_mio_init(&g, p->a, &p->bs);
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
		rl_mio(&g, m,
		       REQ_OP_WRITE | (c->cell.bio->bi_opf & (REQ_FUA | REQ_SYNC)),
		       plog_msector(p, mchunk, lo),
		       c->col[j] + (lo << SECTOR_SHIFT), hi - lo, RL_FG,
		       j < cols ? RL_DATA_WRITE : RL_PARITY_WRITE);
	}
	rl_mio_wait(&g);
	rl_mio_fail(&g, "write error");
	if (a->md)
		rl_md_intent_end(a->md, region);
	for (j = 0; j < cols; j++)
		if (plog_col_span(c, j, &lo, &hi))
			plog_cache_drop(p->cache, plog_block_key(c, j, 0),
					cs >> PLOG_BLOCK_SHIFT);
	return rl_array_alive(a) ? BLK_STS_OK : BLK_STS_IOERR;
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
		if (bio_op(c->cell.bio) == REQ_OP_READ)
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
	c->cell.bio->bi_status = st;
	bio_endio(c->cell.bio);
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

/* The row lock's methods (cell.h): a bio's key is its region's row. */
static u64 plog_key_of(struct rl_cells *cells, struct bio *bio)
{
	struct plog *p = container_of(cells, struct plog, cells);
	u32 region, rrow, off;

	plog_bio_row(p, bio, &region, &rrow, &off);
	return (u64)region * p->lo.slice + rrow;
}

static void plog_start(struct rl_cells *cells, struct rl_cell *cell)
{
	struct plog_ctx *c = container_of(cell, struct plog_ctx, cell);

	queue_work(c->p->ctx_wq, &c->work);
}

static const struct rl_cells_ops plog_cells_ops = {
	.key_of = plog_key_of,
	.start = plog_start,
};

void plog_queue_bio(struct plog *p, struct bio *bio)
{
	rl_cells_queue(&p->cells, bio);
}

/* A context serves its row's bios, one at a time, until none is left. */
void plog_ctx_work(struct work_struct *ws)
{
	struct plog_ctx *c = container_of(ws, struct plog_ctx, work);
	struct plog *p = c->p;

	do {
		plog_bio_row(p, c->cell.bio, &c->region, &c->rrow, &c->off);
		plog_serve(c);
	} while (rl_cell_next(&p->cells, &c->cell));
}

/* ------------------------------------------------------------------------
 * The contexts' memory: allocated at construction, freed at destruction.
 */

void plog_free_ctx(struct plog *p)
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

/*
 * Contexts: as many as PLOG_CTX_BUDGET of row buffers (*bytes each)
 * allows, 2 .. 64. Pure (plog_mem() counts them).
 */
unsigned int plog_nr_ctx(const struct rl_plog_layout *lo, size_t *bytes)
{
	*bytes = (size_t)(lo->g + 1) << (lo->chunk_shift + SECTOR_SHIFT);
	return clamp_t(size_t, PLOG_CTX_BUDGET / *bytes, 2, PLOG_MAX_CTX);
}

int plog_alloc_ctx(struct plog *p)
{
	size_t cb = plog_chunk_bytes(p), bytes;
	unsigned int i, k, nr = plog_nr_ctx(&p->lo, &bytes);
	struct plog_ctx *c;

	p->ctx = kcalloc(nr, sizeof(*p->ctx), GFP_KERNEL);
	if (!p->ctx || rl_cells_init(&p->cells, nr, p->a->wq, &plog_cells_ops))
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
		INIT_WORK(&c->work, plog_ctx_work);
		for (k = 0; k < p->lo.g; k++)
			c->col[k] = c->mem + k * cb;
		c->delta = c->mem + p->lo.g * cb;
		c->col[p->lo.g] = c->delta;
		rl_cell_add(&p->cells, &c->cell);
	}
	return 0;
}
