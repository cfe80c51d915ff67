// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity logging, the region manager (plog.h): its durable
 * state on a DAX metadata device (or RAM blocks, for KUnit): the record
 * area's header, the region table and one twin per pool buffer.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/crc32c.h>
#include <linux/gcd.h>
#include <linux/kernel.h>
#include <linux/lcm.h>
#include <linux/libnvdimm.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "../../svc/parity.h"
#include "plog_region.h"
#include "../../raidlab.h"

#define RL_PLOG_ERR_CHANGED \
	"plog: the table changed under an existing parity log (layout or buffers differ)"

/* everything written so far is durable (no-op over RAM blocks, for KUnit) */
int rl_plog_md_persist(struct rl_plog_md *pm)
{
	return pm->md ? rl_md_persist(pm->md) : 0;
}

/*
 * Copy @len bytes to byte @off of the area, block by block (the DAX
 * mapping may be split: consecutive blocks need not be contiguous).
 * Durable after rl_plog_md_persist().
 */
void rl_plog_blk_put(void *const *blk, u64 off, const void *src,
		     size_t len)
{
	while (len) {
		u64 b = off / RL_MD_BLOCK;
		size_t boff = off % RL_MD_BLOCK;
		size_t n = min_t(size_t, len, RL_MD_BLOCK - boff);

		memcpy_flushcache(blk[b] + boff, src, n);
		src += n;
		off += n;
		len -= n;
	}
}

static void rl_plog_md_put(struct rl_plog_md *pm, u64 off, const void *src,
			   size_t len)
{
	rl_plog_blk_put(pm->blk, off, src, len);
}

/* Read @len bytes at byte @off of an area: 0 or -EIO (media error). */
int rl_plog_blk_get(void *const *blk, u64 off, void *dst, size_t len)
{
	while (len) {
		u64 b = off / RL_MD_BLOCK;
		size_t boff = off % RL_MD_BLOCK;
		size_t n = min_t(size_t, len, RL_MD_BLOCK - boff);

		if (copy_mc_to_kernel(dst, blk[b] + boff, n))
			return -EIO;
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int rl_plog_md_get(struct rl_plog_md *pm, u64 off, void *dst,
			  size_t len)
{
	return rl_plog_blk_get(pm->blk, off, dst, len);
}

static u64 rl_plog_md_twin_off(const struct rl_plog_md *pm, unsigned int idx)
{
	return (pm->twin_start + (u64)idx * pm->twin_blocks) * RL_MD_BLOCK;
}

static u64 rl_plog_md_ent_off(u32 region, unsigned int slot)
{
	return (1 + region / RL_PLOG_ENTS_PER_BLOCK) * (u64)RL_MD_BLOCK +
	       (region % RL_PLOG_ENTS_PER_BLOCK) * 2 *
	       sizeof(struct rl_plog_md_ent) +
	       slot * sizeof(struct rl_plog_md_ent);
}

/**
 * rl_plog_md_slots_done() - free the copies made at open
 * @pm: the durable state
 *
 * After the recovery: the slots stay in use, their copies are not needed.
 */
void rl_plog_md_slots_done(struct rl_plog_md *pm)
{
	unsigned int i;

	if (pm->sdata)
		for (i = 0; i < pm->nr_slots; i++)
			vfree(pm->sdata[i]);
	kvfree(pm->sdata);
	kvfree(pm->sid);
	pm->sdata = NULL;
	pm->sid = NULL;
}

/**
 * rl_plog_md_close() - free the durable state's in-core part
 * @pm: from rl_plog_md_open(), or NULL
 */
void rl_plog_md_close(struct rl_plog_md *pm)
{
	unsigned int i;

	if (!pm)
		return;
	rl_plog_md_slots_done(pm);
	kvfree(pm->sblk);
	if (pm->img)
		for (i = 0; i < pm->nr_bufs; i++)
			vfree(pm->img[i]);
	kvfree(pm->img);
	kvfree(pm->reg);
	kvfree(pm->blk);
	kfree(pm);
}

/* A new area: every region gen 1 segs 0, every twin free, then the header. */
static int rl_plog_md_format(struct rl_plog_md *pm,
			     const struct rl_plog_layout *lo, void *buf)
{
	struct rl_plog_md_ent *ents = buf;
	u8 zero[RL_PLOG_HDR_FIXED] = { };
	u32 r, b;
	int ret;

	for (b = 0; b < rl_plog_table_blocks(lo); b++) {
		memset(buf, 0, RL_MD_BLOCK);
		for (r = 0; r < RL_PLOG_ENTS_PER_BLOCK; r++) {
			u32 region = b * RL_PLOG_ENTS_PER_BLOCK + r;

			if (region < lo->nr_regions)
				rl_plog_md_ent_encode(region, 1, 0, &ents[2 * r]);
		}
		rl_plog_md_put(pm, (1 + (u64)b) * RL_MD_BLOCK, buf, RL_MD_BLOCK);
	}
	for (b = 0; b < pm->nr_bufs; b++)
		rl_plog_md_put(pm, rl_plog_md_twin_off(pm, b), zero,
			       sizeof(zero));
	ret = rl_plog_md_persist(pm);
	if (ret)
		return ret;
	memset(buf, 0, RL_MD_BLOCK);
	rl_plog_md_hdr_encode(lo, pm->nr_bufs, buf);
	rl_plog_md_put(pm, 0, buf, RL_MD_BLOCK);
	return rl_plog_md_persist(pm);
}

/* An existing area: the region table and the twins in use. */
static int rl_plog_md_load(struct rl_plog_md *pm, char **error)
{
	struct rl_plog_md_ent pair[2];
	__le32 magic;
	u32 r;
	unsigned int i;

	for (r = 0; r < pm->nr_regions; r++) {
		int slot;

		if (rl_plog_md_get(pm, rl_plog_md_ent_off(r, 0), pair,
				   sizeof(pair)))
			goto eio;
		slot = rl_plog_md_ent_pick(pair, r, &pm->reg[r].gen,
					   &pm->reg[r].segs);
		if (slot < 0) {
			*error = "plog: the parity-log region table is corrupt";
			return -EINVAL;
		}
		pm->reg[r].slot = slot;
		pm->reg[r].rewrite = pm->reg[r].segs & RL_PLOG_ENT_REWRITE;
		pm->reg[r].segs &= ~RL_PLOG_ENT_REWRITE;
	}
	for (i = 0; i < pm->nr_bufs; i++) {
		u64 off = rl_plog_md_twin_off(pm, i);

		if (rl_plog_md_get(pm, off + offsetof(struct rl_plog_seg_disk,
						      magic),
				   &magic, sizeof(magic)))
			goto eio;
		if (le32_to_cpu(magic) != RL_PLOG_SEG_MAGIC)
			continue;
		pm->img[i] = vmalloc(pm->seg_bytes);
		if (!pm->img[i]) {
			*error = "plog: cannot allocate the parity-log recovery buffers";
			return -ENOMEM;
		}
		if (rl_plog_md_get(pm, off, pm->img[i], pm->seg_bytes))
			goto eio;
	}
	return 0;
eio:
	*error = "plog: cannot read the parity-log area (media error)";
	return -EIO;
}

bool rl_plog_md_have(struct rl_md *md, u32 id)
{
	const struct rl_md_state *st = rl_md_state(md);
	bool have = false;
	unsigned int i;

	rl_md_lock(md);
	for (i = 0; i < st->nr_areas; i++)
		if (st->areas[i].id == id)
			have = true;
	rl_md_unlock(md);
	return have;
}

static struct rl_plog_md *
rl_plog_md_alloc(const struct rl_plog_layout *lo, unsigned int nr_bufs,
		 u64 blocks)
{
	struct rl_plog_md *pm = kzalloc(sizeof(*pm), GFP_KERNEL);

	if (!pm)
		return NULL;
	pm->nr_regions = lo->nr_regions;
	pm->nr_bufs = nr_bufs;
	pm->seg_bytes = lo->seg_sectors << SECTOR_SHIFT;
	pm->twin_start = 1 + rl_plog_table_blocks(lo);
	pm->twin_blocks = rl_plog_twin_blocks(lo);
	spin_lock_init(&pm->lock);
	pm->blk = kvcalloc(blocks, sizeof(*pm->blk), GFP_KERNEL);
	pm->reg = kvcalloc(pm->nr_regions, sizeof(*pm->reg), GFP_KERNEL);
	pm->img = kvcalloc(nr_bufs, sizeof(*pm->img), GFP_KERNEL);
	if (!pm->blk || !pm->reg || !pm->img) {
		rl_plog_md_close(pm);
		return NULL;
	}
	return pm;
}

/* Blocks mapped: format a new area (or one whose format did not finish), or load it. */
static int rl_plog_md_setup(struct rl_plog_md *pm,
			    const struct rl_plog_layout *lo, bool have,
			    char **error)
{
	const char *why;
	void *buf;
	u32 i;
	int r;

	buf = kzalloc(RL_MD_BLOCK, GFP_KERNEL);
	if (!buf) {
		*error = "plog: cannot allocate the parity log's durable state";
		return -ENOMEM;
	}
	r = have ? rl_plog_md_get(pm, 0, buf, RL_MD_BLOCK) : 0;
	if (r) {
		*error = "plog: cannot read the parity-log area (media error)";
		goto out;
	}
	r = have ? rl_plog_md_hdr_check(buf, lo, pm->nr_bufs, &why) : -ENODATA;
	if (r == -ENODATA) {
		r = rl_plog_md_format(pm, lo, buf);
		if (r) {
			*error = "plog: cannot write the parity-log area";
			goto out;
		}
		for (i = 0; i < pm->nr_regions; i++)
			pm->reg[i].gen = 1;
		pm->formatted = true;
	} else if (r == -ESTALE) {
		*error = RL_PLOG_ERR_CHANGED;
	} else if (r) {
		*error = "plog: the parity-log area's header is corrupt";
	} else {
		r = rl_plog_md_load(pm, error);
	}
out:
	kfree(buf);
	return r;
}

/**
 * rl_plog_md_open() - open (or make) the parity log's durable state
 * @md: the array's metadata service
 * @lo: the layout
 * @nr_bufs: pool buffers, one twin each
 * @pmp: set to the state
 * @error: set to a static message on failure (for ti->error)
 *
 * A new area is formatted (every region generation 1 with no segment,
 * every twin free). An existing one must describe the same layout and
 * buffer count; its region table is loaded and the twins in use are
 * copied for rl_plog_md_twin(). The DAX mapping may come in pieces, so
 * every block's address is kept and copies go block by block. Process
 * context.
 *
 * Return: 0; -EOPNOTSUPP without DAX (dm-bufio metadata); -ESTALE when
 * the table changed under an existing log; -ENOSPC, -ENOMEM, -EINVAL or
 * -EIO.
 */
int rl_plog_md_open(struct rl_md *md, const struct rl_plog_layout *lo,
		    unsigned int nr_bufs, struct rl_plog_md **pmp,
		    char **error)
{
	struct rl_plog_md *pm;
	struct rl_md_area area;
	bool have;
	u64 b;
	int r;

	*pmp = NULL;
	if (strcmp(rl_md_backend(md), "dax")) {
		*error = "plog: a durable parity log needs a DAX metadata device";
		return -EOPNOTSUPP;
	}
	if (!nr_bufs) {
		*error = "plog: the parity log needs at least one buffer";
		return -EINVAL;
	}
	have = rl_plog_md_have(md, RL_PLOG_AREA_ID);
	r = rl_md_area_find(md, RL_PLOG_AREA_ID, rl_plog_md_blocks(lo, nr_bufs),
			    &area);
	if (r == -EINVAL) {
		*error = RL_PLOG_ERR_CHANGED;	/* the area has another size */
		return -ESTALE;
	} else if (r == -ENOSPC) {
		*error = "plog: no room for the parity log on the metadata device";
		return r;
	} else if (r) {
		*error = "plog: cannot make the parity-log area";
		return r;
	}
	pm = rl_plog_md_alloc(lo, nr_bufs, area.blocks);
	if (!pm) {
		*error = "plog: cannot allocate the parity log's durable state";
		return -ENOMEM;
	}
	pm->md = md;
	pm->area = area;
	for (b = 0; b < area.blocks; b++) {
		struct dm_buffer *bp;

		pm->blk[b] = rl_md_area_map(md, &area, b, false, &bp);
		if (!pm->blk[b]) {
			*error = "plog: cannot map the parity-log area";
			r = -EIO;
			goto bad;
		}
	}
	r = rl_plog_md_setup(pm, lo, have, error);
	if (r)
		goto bad;
	*pmp = pm;
	return 0;
bad:
	rl_plog_md_close(pm);
	return r;
}

/**
 * rl_plog_md_open_blocks() - the durable state over caller's RAM blocks
 * @blk: @nr_blocks addresses of 4 KiB blocks (need not be contiguous)
 * @nr_blocks: must be rl_plog_md_blocks(@lo, @nr_bufs)
 * @lo: the layout
 * @nr_bufs: pool buffers
 * @pmp: set to the state
 * @error: set on failure
 *
 * For KUnit: rl_plog_md_open() without a metadata device; blocks of
 * zeroes are formatted, durability points do nothing.
 *
 * Return: as rl_plog_md_open().
 */
int rl_plog_md_open_blocks(void *const *blk, u64 nr_blocks,
			   const struct rl_plog_layout *lo,
			   unsigned int nr_bufs, struct rl_plog_md **pmp,
			   char **error)
{
	struct rl_plog_md *pm;
	int r;

	*pmp = NULL;
	if (!nr_bufs || nr_blocks != rl_plog_md_blocks(lo, nr_bufs)) {
		*error = RL_PLOG_ERR_CHANGED;
		return -ESTALE;
	}
	pm = rl_plog_md_alloc(lo, nr_bufs, nr_blocks);
	if (!pm) {
		*error = "plog: cannot allocate the parity log's durable state";
		return -ENOMEM;
	}
	memcpy(pm->blk, blk, nr_blocks * sizeof(*blk));
	r = rl_plog_md_setup(pm, lo, true, error);
	if (r) {
		rl_plog_md_close(pm);
		return r;
	}
	*pmp = pm;
	return 0;
}

/**
 * rl_plog_md_region() - a region's log state
 * @pm: the state
 * @region: the region
 * @gen: set to its log's generation
 * @segs: set to its segments on disk in that generation
 *
 * Any context.
 */
void rl_plog_md_region(struct rl_plog_md *pm, u32 region, u64 *gen,
		       u32 *segs)
{
	unsigned long flags;

	spin_lock_irqsave(&pm->lock, flags);
	*gen = pm->reg[region].gen;
	*segs = pm->reg[region].segs;
	spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * rl_plog_md_set_region() - change a region's log state, durably
 * @pm: the state
 * @region: the region
 * @gen: its log's generation; (gen, segs) must not go backwards
 * @segs: its segments on disk in that generation
 *
 * Writes the slot that does not hold the current value, so a torn write
 * leaves the previous value. Durable on return; any context.
 */
void rl_plog_md_set_region(struct rl_plog_md *pm, u32 region, u64 gen,
			   u32 segs)
{
	struct rl_plog_md_reg *reg = &pm->reg[region];
	struct rl_plog_md_ent ent;
	unsigned long flags;
	unsigned int slot;

	spin_lock_irqsave(&pm->lock, flags);
	rl_plog_md_ent_encode(region, gen,
			      segs | (reg->rewrite ? RL_PLOG_ENT_REWRITE : 0),
			      &ent);
	slot = !reg->slot;
	rl_plog_md_put(pm, rl_plog_md_ent_off(region, slot), &ent, sizeof(ent));
	rl_plog_md_persist(pm);
	reg->gen = gen;
	reg->segs = segs;
	reg->slot = slot;
	spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * rl_plog_md_set_rewrite() - mark a region's parity rewrite, durably
 * @pm: the state
 * @region: the region
 * @on: a rewrite of its check information starts (true) or has ended,
 *	the check information written and durable (false)
 *
 * The mark is RL_PLOG_ENT_REWRITE in the region table slot. Set: the
 * slot not holding the current value gets it with the mark, which makes
 * it the larger pair (a torn write leaves the value unmarked: nothing was
 * rewritten yet). Cleared: both slots get the value without it, the one
 * not current first, so that a torn write leaves either the marked value
 * or the unmarked one. rl_plog_md_set_region() keeps the mark as it is.
 * Durable on return; any context.
 */
void rl_plog_md_set_rewrite(struct rl_plog_md *pm, u32 region, bool on)
{
	struct rl_plog_md_reg *reg = &pm->reg[region];
	struct rl_plog_md_ent ent;
	unsigned long flags;

	spin_lock_irqsave(&pm->lock, flags);
	reg->rewrite = on;
	rl_plog_md_ent_encode(region, reg->gen,
			      reg->segs | (on ? RL_PLOG_ENT_REWRITE : 0), &ent);
	reg->slot = !reg->slot;
	rl_plog_md_put(pm, rl_plog_md_ent_off(region, reg->slot), &ent,
		       sizeof(ent));
	rl_plog_md_persist(pm);
	if (!on) {
		rl_plog_md_put(pm, rl_plog_md_ent_off(region, !reg->slot), &ent,
			       sizeof(ent));
		rl_plog_md_persist(pm);
	}
	spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * rl_plog_md_rewrite() - was a parity rewrite of a region marked?
 * @pm: the state
 * @region: the region
 *
 * At construction, before anything clears it: true if a crash tore a
 * rewrite of the region's check information (rl_plog_md_set_rewrite()).
 */
bool rl_plog_md_rewrite(struct rl_plog_md *pm, u32 region)
{
	return READ_ONCE(pm->reg[region].rewrite);
}

/**
 * rl_plog_md_sync() - copy part of a buffer's image to its twin, durably
 * @pm: the state
 * @b: the buffer
 * @lo: first byte of the image to copy
 * @hi: end of the bytes to copy
 *
 * Ordered so that a crash leaves a twin rl_plog_seg_check() accepts with
 * what it had before or after: the bytes past the segment's fixed header
 * (descriptors, payload) first, then the fixed header's payload_sectors
 * (persistent memory is atomic per 8 bytes only, and the record count is
 * in another word: the count never gets ahead of the payload), then the
 * rest of the fixed header but its magic, then the magic (which turns a
 * free twin into a used one). A range that
 * touches the fixed header is widened to every descriptor the record
 * count counts. The caller serializes a buffer's appends, state changes
 * and syncs (as it must for the image itself) and syncs a record's
 * payload before the header bytes that count it: a record in the twin
 * then always has its payload. Durable on return; any context.
 */
void rl_plog_md_sync(struct rl_plog_md *pm, const struct rl_plog_buf *b,
		     unsigned int lo, unsigned int hi)
{
	const size_t fixed = RL_PLOG_HDR_FIXED;
	const size_t m_lo = offsetof(struct rl_plog_seg_disk, magic);
	const size_t m_hi = m_lo + sizeof(__le32);
	const size_t p_lo = offsetof(struct rl_plog_seg_disk, payload_sectors);
	u64 base = rl_plog_md_twin_off(pm, b->idx);
	size_t s, e;

	/* the record count goes with every descriptor it counts */
	if (lo < fixed)
		hi = max_t(unsigned int, hi, fixed +
			   le16_to_cpu(((const struct rl_plog_seg_disk *)b->seg)->nr) *
			   sizeof(struct rl_plog_rec_disk));
	hi = min(hi, pm->seg_bytes);
	if (lo >= hi)
		return;
	if (hi > fixed) {
		s = max_t(size_t, lo, fixed);
		rl_plog_md_put(pm, base + s, b->seg + s, hi - s);
		rl_plog_md_persist(pm);
	}
	if (lo >= fixed)
		return;
	e = min_t(size_t, hi, fixed);
	if (e > p_lo) {
		s = max_t(size_t, lo, p_lo);
		rl_plog_md_put(pm, base + s, b->seg + s, e - s);
		rl_plog_md_persist(pm);
		if (lo >= p_lo)
			return;
		e = p_lo;
	}
	if (lo < m_lo)
		rl_plog_md_put(pm, base + lo, b->seg + lo,
			       min_t(size_t, e, m_lo) - lo);
	if (e > m_hi) {
		s = max_t(size_t, lo, m_hi);
		rl_plog_md_put(pm, base + s, b->seg + s, e - s);
	}
	rl_plog_md_persist(pm);
	if (lo < m_hi && e > m_lo) {
		s = max_t(size_t, lo, m_lo);
		rl_plog_md_put(pm, base + s, b->seg + s,
			       min_t(size_t, e, m_hi) - s);
		rl_plog_md_persist(pm);
	}
}

/**
 * rl_plog_md_release() - the twin of @b is free again
 * @pm: the state
 * @b: the buffer (its records are on disk or applied)
 *
 * Zeroes the twin's segment magic. Durable on return; any context.
 */
void rl_plog_md_release(struct rl_plog_md *pm, const struct rl_plog_buf *b)
{
	static const __le32 zero;

	rl_plog_md_put(pm, rl_plog_md_twin_off(pm, b->idx) +
		       offsetof(struct rl_plog_seg_disk, magic),
		       &zero, sizeof(zero));
	rl_plog_md_persist(pm);
}

/**
 * rl_plog_md_twin() - a twin that held records when the array stopped
 * @pm: the state
 * @idx: the twin (pool buffer index)
 *
 * The copy made at rl_plog_md_open() (kept until rl_plog_md_close()); the
 * caller validates it with rl_plog_seg_check(..., sealed = false) and the
 * region table (see plog.h).
 *
 * Return: the twin's image, or NULL if it was free.
 */
const void *rl_plog_md_twin(struct rl_plog_md *pm, unsigned int idx)
{
	return idx < pm->nr_bufs ? pm->img[idx] : NULL;
}
