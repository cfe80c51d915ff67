// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity logging, the region manager (plog.h): the data
 * slots of writes in flight, on the DAX metadata device (see DATA SLOTS
 * in plog.h).
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

static u64 rl_plog_slot_off(const struct rl_plog_md *pm, unsigned int slot)
{
	return (1 + (u64)slot * pm->slot_blocks) * RL_MD_BLOCK;
}

/* A new area (or one whose header does not check out): empty slots, then the header. */
static int rl_plog_slots_format(struct rl_plog_md *pm,
				const struct rl_plog_layout *lo, void *buf)
{
	const struct rl_plog_slot_disk zero = { };
	unsigned int i;
	int r;

	for (i = 0; i < pm->nr_slots; i++)
		rl_plog_blk_put(pm->sblk, rl_plog_slot_off(pm, i), &zero,
				sizeof(zero));
	r = rl_plog_md_persist(pm);
	if (r)
		return r;
	memset(buf, 0, RL_MD_BLOCK);
	rl_plog_slots_hdr_encode(lo, pm->nr_slots, buf);
	rl_plog_blk_put(pm->sblk, 0, buf, RL_MD_BLOCK);
	return rl_plog_md_persist(pm);
}

/* Slot @i checks out (header and data): keep a copy for the recovery. */
static int rl_plog_slot_load(struct rl_plog_md *pm,
			     const struct rl_plog_layout *lo, unsigned int i)
{
	struct rl_plog_slot_disk hdr;
	struct rl_plog_slot_id id;
	u64 off = rl_plog_slot_off(pm, i);
	const char *why;
	void *data;

	if (rl_plog_blk_get(pm->sblk, off, &hdr, sizeof(hdr)) ||
	    rl_plog_slot_check(&hdr, NULL, lo, &id, &why))
		return 0;
	data = vmalloc((size_t)id.len << SECTOR_SHIFT);
	if (!data)
		return -ENOMEM;
	if (rl_plog_blk_get(pm->sblk, off + RL_MD_BLOCK, data,
			    (size_t)id.len << SECTOR_SHIFT) ||
	    rl_plog_slot_check(&hdr, data, lo, &id, &why)) {
		vfree(data);
		return 0;
	}
	pm->sid[i] = id;
	pm->sdata[i] = data;
	return 0;
}

/* Blocks mapped: load the slots, or format the area. */
static int rl_plog_slots_setup(struct rl_plog_md *pm,
			       const struct rl_plog_layout *lo, bool have,
			       const char **why)
{
	void *buf;
	unsigned int i;
	int r;

	pm->sid = kvcalloc(pm->nr_slots, sizeof(*pm->sid), GFP_KERNEL);
	pm->sdata = kvcalloc(pm->nr_slots, sizeof(*pm->sdata), GFP_KERNEL);
	buf = kzalloc(RL_MD_BLOCK, GFP_KERNEL);
	r = -ENOMEM;
	*why = "cannot allocate them";
	if (!pm->sid || !pm->sdata || !buf)
		goto out;
	/*
	 * A PLOG area formatted anew restarts every generation at 1: a slot
	 * left from before could name a record position used again.
	 */
	have = have && !pm->formatted;
	r = have ? rl_plog_blk_get(pm->sblk, 0, buf, RL_MD_BLOCK) : 0;
	if (!r && have)
		r = rl_plog_slots_hdr_check(buf, lo, pm->nr_slots, why);
	else if (!r)
		r = -ENODATA;
	if (!r) {
		for (i = 0; !r && i < pm->nr_slots; i++)
			r = rl_plog_slot_load(pm, lo, i);
		goto out;
	}
	/* nothing to trust in it: slots matter only for records PENDING */
	r = rl_plog_slots_format(pm, lo, buf);
	*why = "cannot write them";
out:
	kfree(buf);
	return r;
}

static int rl_plog_slots_init(struct rl_plog_md *pm, void *const *blk,
			      u64 nr_blocks, const struct rl_plog_layout *lo,
			      unsigned int nr_slots, bool have,
			      const char **why)
{
	int r;

	pm->nr_slots = nr_slots;
	pm->slot_blocks = rl_plog_slot_blocks(lo);
	if (!pm->sblk)
		pm->sblk = kvcalloc(nr_blocks, sizeof(*pm->sblk), GFP_KERNEL);
	r = -ENOMEM;
	*why = "cannot allocate them";
	if (pm->sblk) {
		if (blk)
			memcpy(pm->sblk, blk, nr_blocks * sizeof(*blk));
		r = rl_plog_slots_setup(pm, lo, have, why);
	}
	if (r) {
		rl_plog_md_slots_done(pm);
		kvfree(pm->sblk);
		pm->sblk = NULL;
		pm->nr_slots = 0;
	}
	return r;
}

/**
 * rl_plog_md_slots_open() - open (or make) the data slots
 * @pm: the durable state, from rl_plog_md_open()
 * @md: the metadata service
 * @lo: the layout
 * @nr_slots: slots, one per foreground context
 * @why: set to a static reason on failure
 *
 * A separate record area, so that a PLOG area made before it keeps its
 * size: an existing array gets it if the metadata device has room. An
 * area whose header does not check out is formatted again (its slots
 * could only resolve records a crash left PENDING). The slots that check
 * out are copied for rl_plog_md_slot(). Process context.
 *
 * Return: 0; otherwise the slots are off (the caller says so): -ENOSPC,
 * -ESTALE (an area of another size), -ENOMEM or -EIO.
 */
int rl_plog_md_slots_open(struct rl_plog_md *pm, struct rl_md *md,
			  const struct rl_plog_layout *lo,
			  unsigned int nr_slots, const char **why)
{
	struct rl_md_area area;
	struct dm_buffer *bp;
	bool have = rl_plog_md_have(md, RL_PLOG_SLOT_AREA_ID);
	u64 b;
	int r;

	r = rl_md_area_find(md, RL_PLOG_SLOT_AREA_ID,
			    rl_plog_slots_blocks(lo, nr_slots), &area);
	if (r == -EINVAL) {
		*why = "an area of another size is there";
		return -ESTALE;
	} else if (r == -ENOSPC) {
		*why = "no room on the metadata device";
		return r;
	} else if (r) {
		*why = "cannot make their area";
		return r;
	}
	pm->sblk = kvcalloc(area.blocks, sizeof(*pm->sblk), GFP_KERNEL);
	if (!pm->sblk) {
		*why = "cannot allocate them";
		return -ENOMEM;
	}
	for (b = 0; b < area.blocks; b++) {
		pm->sblk[b] = rl_md_area_map(md, &area, b, false, &bp);
		if (!pm->sblk[b]) {
			kvfree(pm->sblk);
			pm->sblk = NULL;
			*why = "cannot map their area";
			return -EIO;
		}
	}
	return rl_plog_slots_init(pm, NULL, area.blocks, lo, nr_slots, have,
				  why);
}

/**
 * rl_plog_md_slots_open_blocks() - the data slots over caller's RAM blocks
 * @pm: the durable state, from rl_plog_md_open_blocks()
 * @blk: @nr_blocks addresses of 4 KiB blocks
 * @nr_blocks: must be rl_plog_slots_blocks(@lo, @nr_slots)
 * @lo: the layout
 * @nr_slots: slots
 *
 * For KUnit: blocks of zeroes are formatted.
 *
 * Return: as rl_plog_md_slots_open().
 */
int rl_plog_md_slots_open_blocks(struct rl_plog_md *pm, void *const *blk,
				 u64 nr_blocks,
				 const struct rl_plog_layout *lo,
				 unsigned int nr_slots)
{
	const char *why;

	if (nr_blocks != rl_plog_slots_blocks(lo, nr_slots))
		return -ESTALE;
	return rl_plog_slots_init(pm, blk, nr_blocks, lo, nr_slots, true,
				  &why);
}

/**
 * rl_plog_md_slots_on() - are the data slots in use?
 * @pm: the durable state
 *
 * Return: true if rl_plog_md_slots_open() succeeded.
 */
bool rl_plog_md_slots_on(const struct rl_plog_md *pm)
{
	return pm && pm->nr_slots;
}

/**
 * rl_plog_md_slot_put() - copy part of a write's data to its slot
 * @pm: the durable state (slots on)
 * @slot: the slot (the context's)
 * @off: byte offset in the slot's data
 * @src: the bytes
 * @len: their number; @off + @len at most a row
 *
 * memcpy_flushcache(), without a fence: rl_plog_md_slot_seal() makes the
 * data durable with the header. Any context.
 */
void rl_plog_md_slot_put(struct rl_plog_md *pm, unsigned int slot, u32 off,
			 const void *src, size_t len)
{
	rl_plog_blk_put(pm->sblk, rl_plog_slot_off(pm, slot) + RL_MD_BLOCK +
			off, src, len);
}

/**
 * rl_plog_md_slot_seal() - name the record a slot's data belongs to
 * @pm: the durable state (slots on)
 * @slot: the slot
 * @id: the write's first record, its record count and the row span
 * @data_csum: crc32c (seed ~0) of the data put in the slot
 *
 * Writes the header and fences: data and header are durable on return,
 * before the caller lets the named record reach its twin. Any context.
 */
void rl_plog_md_slot_seal(struct rl_plog_md *pm, unsigned int slot,
			  const struct rl_plog_slot_id *id, u32 data_csum)
{
	struct rl_plog_slot_disk s;

	rl_plog_slot_encode(id, data_csum, &s);
	rl_plog_blk_put(pm->sblk, rl_plog_slot_off(pm, slot), &s, sizeof(s));
	rl_plog_md_persist(pm);
}

/**
 * rl_plog_md_slot() - a slot that checked out at open
 * @pm: the durable state
 * @slot: the slot
 * @data: set to its data (id->len sectors)
 *
 * Return: the slot's identity, or NULL if it did not check out (or the
 * slots are off, or rl_plog_md_slots_done() was called).
 */
const struct rl_plog_slot_id *rl_plog_md_slot(struct rl_plog_md *pm,
					      unsigned int slot,
					      const void **data)
{
	if (!pm->sdata || slot >= pm->nr_slots || !pm->sdata[slot])
		return NULL;
	*data = pm->sdata[slot];
	return &pm->sid[slot];
}

/**
 * rl_plog_md_nr_slots() - the number of data slots
 * @pm: the durable state
 *
 * Return: slots, 0 if they are off.
 */
unsigned int rl_plog_md_nr_slots(const struct rl_plog_md *pm)
{
	return pm->nr_slots;
}
