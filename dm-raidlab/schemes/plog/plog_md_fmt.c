// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity logging, the region manager (plog.h): the block
 * encodings of its durable state, pure (KUnit suite dm_raidlab_plog_log):
 * the record area's header and region table, and the data slots with
 * the recovery decision they carry.
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

/* ------------------------------------------------------------------------
 * Durable state: the record area's encodings (pure).
 */

u32 rl_plog_twin_blocks(const struct rl_plog_layout *lo)
{
	return DIV_ROUND_UP(lo->seg_sectors, RL_MD_BLOCK_SECTORS);
}

u32 rl_plog_table_blocks(const struct rl_plog_layout *lo)
{
	return DIV_ROUND_UP(lo->nr_regions, RL_PLOG_ENTS_PER_BLOCK);
}

/**
 * rl_plog_md_blocks() - the record area's size
 * @lo: the layout
 * @nr_bufs: pool buffers, one twin each
 *
 * Return: metadata blocks: the header, the region table and the twins.
 */
u64 rl_plog_md_blocks(const struct rl_plog_layout *lo, unsigned int nr_bufs)
{
	return 1 + rl_plog_table_blocks(lo) +
	       (u64)nr_bufs * rl_plog_twin_blocks(lo);
}

static u32 rl_plog_md_hdr_csum(const void *block)
{
	return rl_md_csum(block, RL_MD_BLOCK, RL_PLOG_MD_CSUM_XOR);
}

/**
 * rl_plog_md_hdr_encode() - the area's header block
 * @lo: the layout
 * @nr_bufs: pool buffers
 * @block: a zeroed 4 KiB block, filled in
 */
void rl_plog_md_hdr_encode(const struct rl_plog_layout *lo,
			   unsigned int nr_bufs, void *block)
{
	struct rl_plog_md_hdr_disk *h = block;

	h->magic = cpu_to_le32(RL_PLOG_MD_MAGIC);
	h->version = cpu_to_le32(RL_PLOG_MD_VERSION);
	h->n = cpu_to_le32(lo->n);
	h->l = cpu_to_le32(lo->l);
	h->chunk_shift = cpu_to_le32(lo->chunk_shift);
	h->regions = cpu_to_le32(lo->nr_regions);
	h->slice = cpu_to_le32(lo->slice);
	h->sublog = cpu_to_le32(lo->sublog);
	h->seg_sectors = cpu_to_le32(lo->seg_sectors);
	h->hdr_sectors = cpu_to_le32(lo->hdr_sectors);
	h->nr_bufs = cpu_to_le32(nr_bufs);
	h->blocks = cpu_to_le64(rl_plog_md_blocks(lo, nr_bufs));
	h->faults = cpu_to_le32(lo->f);
	h->csum = cpu_to_le32(rl_plog_md_hdr_csum(block));
}

/**
 * rl_plog_md_hdr_check() - validate the area's header block
 * @block: the 4 KiB block
 * @lo: the layout the table line describes
 * @nr_bufs: the pool buffers it asks for
 * @why: set to the reason on failure
 *
 * A version 1 block (before faults) describes an f = 1 log; version 2
 * carries f.
 *
 * Return: 0; -ENODATA for a block of zeroes (a new area); -EINVAL for a
 * bad magic, checksum or version; -ESTALE when the block describes
 * another layout, buffer count or number of faults (the table changed
 * under the log).
 */
int rl_plog_md_hdr_check(const void *block, const struct rl_plog_layout *lo,
			 unsigned int nr_bufs, const char **why)
{
	const struct rl_plog_md_hdr_disk *h = block;
	u32 version, faults;

	if (!memchr_inv(block, 0, RL_MD_BLOCK)) {
		*why = "empty";
		return -ENODATA;
	}
	if (le32_to_cpu(h->magic) != RL_PLOG_MD_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(h->csum) != rl_plog_md_hdr_csum(block)) {
		*why = "bad checksum";
		return -EINVAL;
	}
	version = le32_to_cpu(h->version);
	if (version != 1 && version != RL_PLOG_MD_VERSION) {
		*why = "unsupported version";
		return -EINVAL;
	}
	faults = version == 1 ? 1 : le32_to_cpu(h->faults);
	if (faults != lo->f) {
		*why = version == 1 ?
		       "a version 1 log (faults 1) under a faults 2 table" :
		       "the table changed the number of faults under an existing log";
		return -ESTALE;
	}
	if (le32_to_cpu(h->n) != lo->n || le32_to_cpu(h->l) != lo->l ||
	    le32_to_cpu(h->chunk_shift) != lo->chunk_shift ||
	    le32_to_cpu(h->regions) != lo->nr_regions ||
	    le32_to_cpu(h->slice) != lo->slice ||
	    le32_to_cpu(h->sublog) != lo->sublog ||
	    le32_to_cpu(h->seg_sectors) != lo->seg_sectors ||
	    le32_to_cpu(h->hdr_sectors) != lo->hdr_sectors ||
	    le32_to_cpu(h->nr_bufs) != nr_bufs ||
	    le64_to_cpu(h->blocks) != rl_plog_md_blocks(lo, nr_bufs)) {
		*why = "the table changed under an existing log";
		return -ESTALE;
	}
	*why = NULL;
	return 0;
}

static u32 rl_plog_md_ent_csum(u32 region, const struct rl_plog_md_ent *ent)
{
	__le32 r = cpu_to_le32(region);
	u32 crc = crc32c(~0U, &r, sizeof(r));

	crc = crc32c(crc, ent, offsetof(struct rl_plog_md_ent, csum));
	return crc ^ RL_PLOG_ENT_CSUM_XOR;
}

/**
 * rl_plog_md_ent_encode() - a region table slot
 * @region: the region (in the checksum: a slot never validates elsewhere)
 * @gen: its log's generation, at least 1
 * @segs: its segments on disk in that generation
 * @ent: filled in
 */
void rl_plog_md_ent_encode(u32 region, u64 gen, u32 segs,
			   struct rl_plog_md_ent *ent)
{
	ent->gen = cpu_to_le64(gen);
	ent->segs = cpu_to_le32(segs);
	ent->csum = cpu_to_le32(rl_plog_md_ent_csum(region, ent));
}

/**
 * rl_plog_md_ent_decode() - read a region table slot
 * @ent: the slot
 * @region: the region it must belong to
 * @gen: set to its generation
 * @segs: set to its segments on disk
 *
 * Return: true if the slot is valid (checksum, generation not 0).
 */
bool rl_plog_md_ent_decode(const struct rl_plog_md_ent *ent, u32 region,
			   u64 *gen, u32 *segs)
{
	if (!ent->gen ||
	    le32_to_cpu(ent->csum) != rl_plog_md_ent_csum(region, ent))
		return false;
	*gen = le64_to_cpu(ent->gen);
	*segs = le32_to_cpu(ent->segs);
	return true;
}

/**
 * rl_plog_md_ent_pick() - a region's current value from its two slots
 * @pair: the two slots
 * @region: the region
 * @gen: set to the current generation
 * @segs: set to the current segments on disk
 *
 * (gen, segs) only grows, so the valid slot with the larger pair wins.
 *
 * Return: the slot (0 or 1), or -EINVAL if neither is valid.
 */
int rl_plog_md_ent_pick(const struct rl_plog_md_ent *pair, u32 region,
			u64 *gen, u32 *segs)
{
	u64 g[2];
	u32 s[2];
	bool ok0 = rl_plog_md_ent_decode(&pair[0], region, &g[0], &s[0]);
	bool ok1 = rl_plog_md_ent_decode(&pair[1], region, &g[1], &s[1]);
	int i;

	if (!ok0 && !ok1)
		return -EINVAL;
	if (ok0 && ok1)
		i = (g[1] > g[0] || (g[1] == g[0] && s[1] > s[0])) ? 1 : 0;
	else
		i = ok1 ? 1 : 0;
	*gen = g[i];
	*segs = s[i];
	return i;
}

/* ------------------------------------------------------------------------
 * Data slots: the encodings and the recovery decision (pure).
 */

static u32 rl_plog_row_sectors(const struct rl_plog_layout *lo)
{
	return lo->cols << lo->chunk_shift;
}

/**
 * rl_plog_slot_blocks() - a data slot's size
 * @lo: the layout
 *
 * Return: metadata blocks: the slot's header, then a row of data.
 */
u32 rl_plog_slot_blocks(const struct rl_plog_layout *lo)
{
	return 1 + DIV_ROUND_UP(rl_plog_row_sectors(lo), RL_MD_BLOCK_SECTORS);
}

/**
 * rl_plog_slots_blocks() - the data-slot area's size
 * @lo: the layout
 * @nr_slots: slots, one per foreground context
 *
 * Return: metadata blocks: the header block and the slots.
 */
u64 rl_plog_slots_blocks(const struct rl_plog_layout *lo,
			 unsigned int nr_slots)
{
	return 1 + (u64)nr_slots * rl_plog_slot_blocks(lo);
}

static u32 rl_plog_slots_hdr_csum(const void *block)
{
	return rl_md_csum(block, RL_MD_BLOCK, RL_PLOG_SLOTS_CSUM_XOR);
}

/**
 * rl_plog_slots_hdr_encode() - the data-slot area's header block
 * @lo: the layout
 * @nr_slots: slots
 * @block: a zeroed 4 KiB block, filled in
 */
void rl_plog_slots_hdr_encode(const struct rl_plog_layout *lo,
			      unsigned int nr_slots, void *block)
{
	struct rl_plog_slots_hdr_disk *h = block;

	h->magic = cpu_to_le32(RL_PLOG_SLOTS_MAGIC);
	h->version = cpu_to_le32(RL_PLOG_SLOTS_VERSION);
	h->nr_slots = cpu_to_le32(nr_slots);
	h->slot_blocks = cpu_to_le32(rl_plog_slot_blocks(lo));
	h->row_sectors = cpu_to_le32(rl_plog_row_sectors(lo));
	h->blocks = cpu_to_le64(rl_plog_slots_blocks(lo, nr_slots));
	h->csum = cpu_to_le32(rl_plog_slots_hdr_csum(block));
}

/**
 * rl_plog_slots_hdr_check() - validate the data-slot area's header block
 * @block: the 4 KiB block
 * @lo: the layout the table line describes
 * @nr_slots: the slots it needs
 * @why: set to the reason on failure
 *
 * Return: 0; -ENODATA for a block of zeroes; -EINVAL for a bad magic,
 * checksum or version; -ESTALE for another slot count or size.
 */
int rl_plog_slots_hdr_check(const void *block, const struct rl_plog_layout *lo,
			    unsigned int nr_slots, const char **why)
{
	const struct rl_plog_slots_hdr_disk *h = block;

	if (!memchr_inv(block, 0, RL_MD_BLOCK)) {
		*why = "empty";
		return -ENODATA;
	}
	if (le32_to_cpu(h->magic) != RL_PLOG_SLOTS_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(h->csum) != rl_plog_slots_hdr_csum(block)) {
		*why = "bad checksum";
		return -EINVAL;
	}
	if (le32_to_cpu(h->version) != RL_PLOG_SLOTS_VERSION) {
		*why = "unsupported version";
		return -EINVAL;
	}
	if (le32_to_cpu(h->nr_slots) != nr_slots ||
	    le32_to_cpu(h->slot_blocks) != rl_plog_slot_blocks(lo) ||
	    le32_to_cpu(h->row_sectors) != rl_plog_row_sectors(lo) ||
	    le64_to_cpu(h->blocks) != rl_plog_slots_blocks(lo, nr_slots)) {
		*why = "another slot count or size";
		return -ESTALE;
	}
	*why = NULL;
	return 0;
}

static u32 rl_plog_slot_csum(const struct rl_plog_slot_disk *s)
{
	return crc32c(~0U, (const u8 *)s + sizeof(__le32),
		      sizeof(*s) - sizeof(__le32)) ^ RL_PLOG_SLOT_CSUM_XOR;
}

/**
 * rl_plog_slot_encode() - a data slot's header
 * @id: the write's first record, record count and row span
 * @data_csum: crc32c (seed ~0) of the slot's data
 * @s: filled in
 */
void rl_plog_slot_encode(const struct rl_plog_slot_id *id, u32 data_csum,
			 struct rl_plog_slot_disk *s)
{
	memset(s, 0, sizeof(*s));
	s->magic = cpu_to_le32(RL_PLOG_SLOT_MAGIC);
	s->region = cpu_to_le32(id->region);
	s->seg = cpu_to_le32(id->seg);
	s->gen = cpu_to_le64(id->gen);
	s->rec = cpu_to_le16(id->rec);
	s->nrec = cpu_to_le16(id->nrec);
	s->row = cpu_to_le32(id->row);
	s->off = cpu_to_le32(id->off);
	s->len = cpu_to_le32(id->len);
	s->data_csum = cpu_to_le32(data_csum);
	s->csum = cpu_to_le32(rl_plog_slot_csum(s));
}

/**
 * rl_plog_slot_check() - validate a data slot
 * @s: its header
 * @data: its data (len sectors), or NULL to check the header only
 * @lo: the layout
 * @id: filled in when valid
 * @why: set to the reason on failure
 *
 * Return: 0; -ENODATA for a header of zeroes (never written); -EINVAL
 * for a bad magic, checksum, extent or data checksum (a torn slot).
 */
int rl_plog_slot_check(const struct rl_plog_slot_disk *s, const void *data,
		       const struct rl_plog_layout *lo,
		       struct rl_plog_slot_id *id, const char **why)
{
	u32 region = le32_to_cpu(s->region), row = le32_to_cpu(s->row);
	u32 off = le32_to_cpu(s->off), len = le32_to_cpu(s->len);
	u32 nrec = le16_to_cpu(s->nrec);

	if (!memchr_inv(s, 0, sizeof(*s))) {
		*why = "empty";
		return -ENODATA;
	}
	if (le32_to_cpu(s->magic) != RL_PLOG_SLOT_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(s->csum) != rl_plog_slot_csum(s)) {
		*why = "bad checksum";
		return -EINVAL;
	}
	if (region >= lo->nr_regions || row >= lo->slice || !len ||
	    (u64)off + len > rl_plog_row_sectors(lo) || !nrec ||
	    nrec > lo->cols || !le64_to_cpu(s->gen)) {
		*why = "bad extent";
		return -EINVAL;
	}
	if (data && crc32c(~0U, data, (size_t)len << SECTOR_SHIFT) !=
		    le32_to_cpu(s->data_csum)) {
		*why = "bad data checksum";
		return -EINVAL;
	}
	id->region = region;
	id->gen = le64_to_cpu(s->gen);
	id->seg = le32_to_cpu(s->seg);
	id->rec = le16_to_cpu(s->rec);
	id->nrec = nrec;
	id->row = row;
	id->off = off;
	id->len = len;
	*why = NULL;
	return 0;
}

/**
 * rl_plog_slot_resolves() - may a slot's data resolve its row?
 * @id: the slot (checked)
 * @segs: the twin images of region @id->region that checked out
 * @nr: their number
 *
 * A row has one write in flight at most (its lock), so every PENDING
 * record of the row is that write's. The slot resolves the row if the
 * record it names is there, PENDING and of the row, and the row's PENDING
 * records are as many as the write appended: a record in a torn twin, or
 * in one not written yet, leaves the row to the caller's old ways.
 *
 * Return: true if the row's PENDING records may be applied, the slot's
 * data written again.
 */
bool rl_plog_slot_resolves(const struct rl_plog_slot_id *id,
			   const void *const *segs, unsigned int nr)
{
	unsigned int i, j, pending = 0;
	bool named = false;

	for (i = 0; i < nr; i++) {
		const struct rl_plog_seg_disk *h = segs[i];

		if (le64_to_cpu(h->region) != id->region)
			continue;
		for (j = 0; j < le16_to_cpu(h->nr); j++) {
			const struct rl_plog_rec_disk *r = &h->recs[j];

			if (r->state != RL_PLOG_PENDING ||
			    le32_to_cpu(r->row) != id->row)
				continue;
			pending++;
			if (le64_to_cpu(h->gen) == id->gen &&
			    le32_to_cpu(h->seg) == id->seg && j == id->rec)
				named = true;
		}
	}
	return named && pending == id->nrec;
}
