// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity logging, the region manager (plog.h): log segments
 * and their records (pure: headers, descriptors, the checksum, the
 * validators, applying records to a region's parity; KUnit suite
 * dm_raidlab_plog_log), and the global pool of log buffers (paper §2.1;
 * suite dm_raidlab_plog_pool).
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
 * Segments and records (pure).
 */

static u32 rl_plog_seg_payload_max(const struct rl_plog_layout *lo)
{
	return lo->seg_sectors - lo->hdr_sectors;
}

/**
 * rl_plog_seg_init() - start an empty segment image
 * @seg: the image, seg_sectors << 9 bytes
 * @lo: the layout
 * @region: the region whose log it belongs to
 * @gen: the region log's generation
 * @segno: the segment's index within that generation
 *
 * Zeroes the header (hdr_sectors) and fills in the fixed part; the
 * payload is left as it is. The bytes to copy to the twin are
 * [0, sizeof(struct rl_plog_seg_disk)).
 */
void rl_plog_seg_init(void *seg, const struct rl_plog_layout *lo, u32 region,
		      u64 gen, u32 segno)
{
	struct rl_plog_seg_disk *h = seg;

	memset(seg, 0, (size_t)lo->hdr_sectors << SECTOR_SHIFT);
	h->magic = cpu_to_le32(RL_PLOG_SEG_MAGIC);
	h->region = cpu_to_le64(region);
	h->gen = cpu_to_le64(gen);
	h->seg = cpu_to_le32(segno);
	h->hdr_sectors = cpu_to_le16(lo->hdr_sectors);
}

/**
 * rl_plog_seg_room() - payload sectors a new record could still use
 * @seg: the image
 * @lo: the layout
 *
 * Return: the free payload sectors, or 0 if the header has no room for
 * one more descriptor.
 */
u32 rl_plog_seg_room(const void *seg, const struct rl_plog_layout *lo)
{
	const struct rl_plog_seg_disk *h = seg;

	if (le16_to_cpu(h->nr) >= lo->max_recs)
		return 0;
	return rl_plog_seg_payload_max(lo) - le32_to_cpu(h->payload_sectors);
}

/* a record's col is valid: 0 for f = 1; f = 2: a data column, or 0 (P) / 1 (Q) */
static bool rl_plog_col_ok(const struct rl_plog_layout *lo, u8 type,
			   unsigned int col)
{
	if (lo->f == 1)
		return col == 0;
	return col < (type == RL_PLOG_OVERWRITE ? 2 : lo->cols);
}

/**
 * rl_plog_seg_append() - append a record to a segment image
 * @seg: the image, from rl_plog_seg_init()
 * @lo: the layout
 * @type: RL_PLOG_UPDATE (parity ^= payload; f = 2: P ^= payload,
 *	Q ^= g^col payload) or RL_PLOG_OVERWRITE (the check block = payload)
 * @row: the row within the region, below S
 * @col: 0 for f = 1; f = 2: an UPDATE's data column (below cols), an
 *	OVERWRITE's check block (0 P, 1 Q)
 * @off: the first sector within the row's parity chunk
 * @len: sectors, at least one, @off + @len within the chunk
 * @data: @len sectors of payload, copied in
 * @state: RL_PLOG_PENDING or RL_PLOG_COMMITTED
 *
 * The descriptor is written after the payload and the record count last,
 * the order rl_plog_md_sync() keeps on the twin.
 *
 * Return: the record's index, -ENOSPC if it does not fit (seal and write
 * the segment, append to a fresh one), -EINVAL for a bad record.
 */
int rl_plog_seg_append(void *seg, const struct rl_plog_layout *lo,
		       enum rl_plog_rec_type type, u32 row, unsigned int col,
		       u32 off, u32 len, const void *data,
		       enum rl_plog_rec_state state)
{
	struct rl_plog_seg_disk *h = seg;
	struct rl_plog_rec_disk *rec;
	unsigned int nr = le16_to_cpu(h->nr);
	u32 used = le32_to_cpu(h->payload_sectors);
	u32 at = lo->hdr_sectors + used;

	if ((type != RL_PLOG_UPDATE && type != RL_PLOG_OVERWRITE) ||
	    (state != RL_PLOG_PENDING && state != RL_PLOG_COMMITTED) ||
	    !len || row >= lo->slice || !rl_plog_col_ok(lo, type, col) ||
	    (u64)off + len > (1U << lo->chunk_shift))
		return -EINVAL;
	if (len > rl_plog_seg_room(seg, lo))
		return -ENOSPC;
	memcpy(seg + ((size_t)at << SECTOR_SHIFT), data,
	       (size_t)len << SECTOR_SHIFT);
	rec = &h->recs[nr];
	rec->row = cpu_to_le32(row);
	rec->type = type;
	rec->state = state;
	rec->off = cpu_to_le16(off);
	rec->len = cpu_to_le16(len);
	rec->payload = cpu_to_le16(at);
	rec->col = col;
	memset(rec->reserved, 0, sizeof(rec->reserved));
	h->payload_sectors = cpu_to_le32(used + len);
	h->nr = cpu_to_le16(nr + 1);
	return nr;
}

/**
 * rl_plog_seg_dirty() - the bytes of the image record @rec touched
 * @seg: the image
 * @rec: a record index
 * @hdr_hi: set to the end of the header bytes to copy: [0, *hdr_hi)
 *	covers the fixed header and descriptors 0 .. @rec
 * @lo: set to the record's first payload byte
 * @hi: set to the end of its payload
 */
void rl_plog_seg_dirty(const void *seg, unsigned int rec, unsigned int *hdr_hi,
		       unsigned int *lo, unsigned int *hi)
{
	const struct rl_plog_seg_disk *h = seg;
	const struct rl_plog_rec_disk *r = &h->recs[rec];

	*hdr_hi = RL_PLOG_HDR_FIXED + (rec + 1) * sizeof(*r);
	*lo = le16_to_cpu(r->payload) << SECTOR_SHIFT;
	*hi = *lo + (le16_to_cpu(r->len) << SECTOR_SHIFT);
}

/**
 * rl_plog_seg_set_state() - change a record's state
 * @seg: the image
 * @rec: the record's index
 * @state: its new state (the header bytes of rl_plog_seg_dirty() cover it)
 */
void rl_plog_seg_set_state(void *seg, unsigned int rec,
			   enum rl_plog_rec_state state)
{
	struct rl_plog_seg_disk *h = seg;

	h->recs[rec].state = state;
}

/**
 * rl_plog_seg_committed() - may the segment be written to the log?
 * @seg: the image
 *
 * Return: true if every record is COMMITTED.
 */
bool rl_plog_seg_committed(const void *seg)
{
	const struct rl_plog_seg_disk *h = seg;
	unsigned int i, nr = le16_to_cpu(h->nr);

	for (i = 0; i < nr; i++)
		if (h->recs[i].state != RL_PLOG_COMMITTED)
			return false;
	return true;
}

/* crc32c of the header (its csum counted as zero) and the used payload */
static u32 rl_plog_seg_csum(const void *seg, u32 hdr_sectors, u32 payload)
{
	static const __le32 zero;
	u32 crc;

	crc = crc32c(~0U, &zero, sizeof(zero));
	crc = crc32c(crc, seg + sizeof(zero),
		     ((size_t)hdr_sectors << SECTOR_SHIFT) - sizeof(zero));
	crc = crc32c(crc, seg + ((size_t)hdr_sectors << SECTOR_SHIFT),
		     (size_t)payload << SECTOR_SHIFT);
	return crc ^ RL_PLOG_SEG_CSUM_XOR;
}

/**
 * rl_plog_seg_seal() - set a segment's checksum before it is written
 * @seg: the image
 * @lo: the layout
 *
 * The crc32c (seed ~0) runs over the hdr_sectors of header with the csum
 * field taken as zero, then the payload sectors used, and is xored with
 * RL_PLOG_SEG_CSUM_XOR.
 */
void rl_plog_seg_seal(void *seg, const struct rl_plog_layout *lo)
{
	struct rl_plog_seg_disk *h = seg;

	h->csum = cpu_to_le32(rl_plog_seg_csum(seg, lo->hdr_sectors,
					       le32_to_cpu(h->payload_sectors)));
}

/**
 * rl_plog_seg_check() - validate a segment image
 * @seg: the image
 * @lo: the layout
 * @region: the region it must belong to
 * @gen: the generation it must carry
 * @segno: the segment index it must carry
 * @sealed: a segment read from the log: check the checksum, and that
 *	every record is COMMITTED; false for a twin (no checksum yet)
 * @why: set to the reason on failure: "bad magic", "bad header size",
 *	"too many records", "payload larger than the segment", "bad
 *	checksum", "wrong region", "wrong generation", "wrong segment",
 *	"bad record type", "bad record state", "pending record in a sealed
 *	segment", "record row outside the region", "bad record column"
 *	(see rl_plog_seg_append()), "record outside its chunk" or "record
 *	outside the payload"
 *
 * Return: 0 or -EINVAL.
 */
int rl_plog_seg_check(const void *seg, const struct rl_plog_layout *lo,
		      u32 region, u64 gen, u32 segno, bool sealed,
		      const char **why)
{
	const struct rl_plog_seg_disk *h = seg;
	unsigned int i, nr = le16_to_cpu(h->nr);
	u32 payload = le32_to_cpu(h->payload_sectors);

	if (le32_to_cpu(h->magic) != RL_PLOG_SEG_MAGIC)
		*why = "bad magic";
	else if (le16_to_cpu(h->hdr_sectors) != lo->hdr_sectors)
		*why = "bad header size";
	else if (nr > lo->max_recs)
		*why = "too many records";
	else if (payload > rl_plog_seg_payload_max(lo))
		*why = "payload larger than the segment";
	else if (sealed && le32_to_cpu(h->csum) !=
			   rl_plog_seg_csum(seg, lo->hdr_sectors, payload))
		*why = "bad checksum";
	else if (le64_to_cpu(h->region) != region)
		*why = "wrong region";
	else if (le64_to_cpu(h->gen) != gen)
		*why = "wrong generation";
	else if (le32_to_cpu(h->seg) != segno)
		*why = "wrong segment";
	else
		*why = NULL;
	if (*why)
		return -EINVAL;

	for (i = 0; i < nr; i++) {
		const struct rl_plog_rec_disk *r = &h->recs[i];
		u32 at = le16_to_cpu(r->payload), len = le16_to_cpu(r->len);

		if (r->type != RL_PLOG_UPDATE && r->type != RL_PLOG_OVERWRITE)
			*why = "bad record type";
		else if (r->state != RL_PLOG_PENDING &&
			 r->state != RL_PLOG_COMMITTED)
			*why = "bad record state";
		else if (sealed && r->state != RL_PLOG_COMMITTED)
			*why = "pending record in a sealed segment";
		else if (le32_to_cpu(r->row) >= lo->slice)
			*why = "record row outside the region";
		else if (!rl_plog_col_ok(lo, r->type, r->col))
			*why = "bad record column";
		else if (!len || (u64)le16_to_cpu(r->off) + len >
				 (1U << lo->chunk_shift))
			*why = "record outside its chunk";
		else if (at < lo->hdr_sectors ||
			 (u64)at + len > (u64)lo->hdr_sectors + payload)
			*why = "record outside the payload";
		if (*why)
			return -EINVAL;
	}
	return 0;
}

/* f = 2: P ^= @src, Q ^= g^col @src, with lib/raid6's xor_syndrome */
static void rl_plog_apply_pq(const struct rl_plog_layout *lo,
			     unsigned int col, void *src, void *p, void *q,
			     size_t bytes)
{
	void *ptrs[RL_PQ_MAX_DISKS];
	unsigned int k;

	/* only column col is read; the others point at it too */
	for (k = 0; k < lo->cols; k++)
		ptrs[k] = src;
	ptrs[lo->cols] = p;
	ptrs[lo->cols + 1] = q;
	rl_pq_xor_va(ptrs, lo->cols + 2, col, col, bytes);
}

/**
 * rl_plog_apply() - apply a segment's records to a region's check blocks
 * @lo: the layout
 * @seg: a checked segment image
 * @parity: the region's f S check chunks: row i's P at byte
 *	i << (chunk_shift + 9), for f = 2 its Q at chunk S + i
 * @recompute: S bits; a PENDING record sets its row's bit and is skipped
 *	(the caller recomputes those rows from data); NULL if pending
 *	records are not expected
 *
 * Records are applied one after another in log order: UPDATE xors its
 * payload into P (f = 2: and g^col times it into Q, through lib/raid6),
 * OVERWRITE copies it into P (f = 2, col 1: into Q). Call it for the
 * region's segments in order.
 *
 * Return: 0, or -EINVAL for a pending record without @recompute, or a
 * record outside the region, its chunk or the segment, or with a bad
 * column (the records before it are applied, none after it).
 */
int rl_plog_apply(const struct rl_plog_layout *lo, const void *seg,
		  void *parity, unsigned long *recompute)
{
	return rl_plog_apply_resolved(lo, seg, parity, recompute, NULL);
}

/**
 * rl_plog_apply_resolved() - apply a segment, some PENDING rows resolved
 * @lo: the layout
 * @seg: the segment image (checked)
 * @parity: the region's check chunks
 * @recompute: S bits, rows of PENDING records not resolved; or NULL
 * @resolved: S bits, rows whose PENDING records are applied as COMMITTED
 *	(their write's new data was written again from its data slot); or
 *	NULL
 *
 * Return: 0, or -EINVAL for a bad record (or a PENDING one not resolved
 * with @recompute NULL).
 */
int rl_plog_apply_resolved(const struct rl_plog_layout *lo, const void *seg,
			   void *parity, unsigned long *recompute,
			   const unsigned long *resolved)
{
	const struct rl_plog_seg_disk *h = seg;
	const size_t cshift = lo->chunk_shift + SECTOR_SHIFT;
	unsigned int i, nr = le16_to_cpu(h->nr);

	for (i = 0; i < nr; i++) {
		const struct rl_plog_rec_disk *r = &h->recs[i];
		u32 row = le32_to_cpu(r->row), len = le16_to_cpu(r->len);
		u32 off = le16_to_cpu(r->off);
		size_t bytes = (size_t)len << SECTOR_SHIFT;
		void *dst, *src;

		if (row >= lo->slice || !len ||
		    (u64)off + len > (1U << lo->chunk_shift) ||
		    (r->type != RL_PLOG_UPDATE && r->type != RL_PLOG_OVERWRITE) ||
		    !rl_plog_col_ok(lo, r->type, r->col) ||
		    le16_to_cpu(r->payload) < lo->hdr_sectors ||
		    (u64)le16_to_cpu(r->payload) + len > lo->seg_sectors)
			return -EINVAL;
		if (r->state == RL_PLOG_PENDING &&
		    !(resolved && test_bit(row, resolved))) {
			if (!recompute)
				return -EINVAL;
			__set_bit(row, recompute);
			continue;
		}
		if (r->state != RL_PLOG_COMMITTED && r->state != RL_PLOG_PENDING)
			return -EINVAL;
		dst = parity + ((size_t)row << cshift) +
		      ((size_t)off << SECTOR_SHIFT);
		src = (void *)seg + ((size_t)le16_to_cpu(r->payload) << SECTOR_SHIFT);
		if (r->type == RL_PLOG_UPDATE && lo->f == 2)
			rl_plog_apply_pq(lo, r->col, src, dst,
					 dst + ((size_t)lo->slice << cshift), bytes);
		else if (r->type == RL_PLOG_UPDATE)
			xor_blocks(1, bytes, dst, &src);
		else
			memcpy(dst + ((size_t)r->col * lo->slice << cshift), src,
			       bytes);
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * The log-buffer pool.
 */

/**
 * rl_plog_pool_init() - allocate the pool's buffers
 * @pool: the pool
 * @nr: buffers (at least one)
 * @seg_bytes: bytes of a segment image (vmalloc'd)
 *
 * Buffer i gets twin i. Process context.
 *
 * Return: 0 or -ENOMEM (nothing allocated is left behind).
 */
int rl_plog_pool_init(struct rl_plog_pool *pool, unsigned int nr,
		      unsigned int seg_bytes)
{
	unsigned int i;

	memset(pool, 0, sizeof(*pool));
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->free);
	if (!nr)
		return -EINVAL;
	pool->bufs = kvcalloc(nr, sizeof(*pool->bufs), GFP_KERNEL);
	if (!pool->bufs)
		return -ENOMEM;
	pool->nr = nr;
	for (i = 0; i < nr; i++) {
		struct rl_plog_buf *b = &pool->bufs[i];

		b->seg = vzalloc(seg_bytes);
		if (!b->seg) {
			rl_plog_pool_exit(pool);
			return -ENOMEM;
		}
		b->idx = i;
		b->region = U32_MAX;
		list_add_tail(&b->list, &pool->free);
	}
	pool->nr_free = nr;
	pool->min_free = nr;
	return 0;
}

/**
 * rl_plog_pool_exit() - free the pool's buffers
 * @pool: the pool (every buffer back, or never handed out)
 */
void rl_plog_pool_exit(struct rl_plog_pool *pool)
{
	unsigned int i;

	if (!pool->bufs)
		return;
	for (i = 0; i < pool->nr; i++)
		vfree(pool->bufs[i].seg);
	kvfree(pool->bufs);
	pool->bufs = NULL;
	pool->nr = 0;
	pool->nr_free = 0;
	INIT_LIST_HEAD(&pool->free);
}

/**
 * rl_plog_pool_get() - take a free buffer
 * @pool: the pool
 *
 * Any context. Counts the get, or the wait when none is free, and keeps
 * the low-water mark.
 *
 * Return: the buffer, or NULL when the pool is exhausted.
 */
struct rl_plog_buf *rl_plog_pool_get(struct rl_plog_pool *pool)
{
	struct rl_plog_buf *b;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	b = list_first_entry_or_null(&pool->free, struct rl_plog_buf, list);
	if (b) {
		list_del_init(&b->list);
		pool->nr_free--;
		pool->min_free = min(pool->min_free, pool->nr_free);
		pool->gets++;
	} else {
		pool->waits++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return b;
}

/**
 * rl_plog_pool_put() - give a buffer back
 * @pool: the pool
 * @b: a buffer from rl_plog_pool_get()
 *
 * Any context (bio completion included).
 */
void rl_plog_pool_put(struct rl_plog_pool *pool, struct rl_plog_buf *b)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	b->region = U32_MAX;
	b->pending = 0;
	list_add(&b->list, &pool->free);
	pool->nr_free++;
	spin_unlock_irqrestore(&pool->lock, flags);
}
