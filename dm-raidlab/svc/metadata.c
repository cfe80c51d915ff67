// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab metadata service (metadata.h): the superblock slots, the
 * write-intent bitmap and the record areas on the metadata device, and the
 * member superblocks.
 *
 * The first part is pure (encode, decode, validation), tested by the KUnit
 * suite dm_raidlab_metadata. The rest is the service:
 *
 *   backend   DAX (the device's pages mapped once at open, written with
 *             memcpy_flushcache() and ordered with pmem_wmb()) or dm-bufio
 *             (4 KiB buffers, dm_bufio_write_dirty_buffers() and a flush).
 *   commit    phase 1 makes everything written so far durable (bitmap,
 *             areas), phase 2 writes the other superblock slot with seq + 1
 *             and makes it durable.
 *   members   struct rl_msb at member sector 0, read and written with
 *             synchronous dm-io (REQ_FUA on writes) through one page.
 *   intent    one bit per region. Locks: md->io_mutex serializes bitmap
 *             writes and the clear pass, md->lock the state and commits
 *             (taken inside io_mutex, never the other way round),
 *             md->ilock (a spinlock) the in-memory bitmaps and counts.
 *             A bit in md->bits is durable; md->pending holds bits being
 *             made durable. A region's bit is cleared only by the clear
 *             pass, under ilock, when nothing is in flight there and
 *             nothing started there since the members were flushed.
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

#include "metadata.h"
#include "../raidlab.h"

#define RL_MD_CLEAR_PERIOD	(5 * HZ)
#define RL_MD_MAX_SEGS		64
#define RL_MD_WORDS_PER_BLOCK	(RL_MD_BITS_PER_BLOCK / BITS_PER_LONG)

static_assert(sizeof(struct rl_md_sb) <= RL_MD_BLOCK);
static_assert(sizeof(struct rl_msb) <= 8 * SECTOR_SIZE);
static_assert(sizeof(struct rl_md_bitmap_disk) == RL_MD_BLOCK);
static_assert(RL_MD_BITS_PER_BLOCK % BITS_PER_LONG == 0);
static_assert(RL_MD_MAX_MEMBERS == RL_MAX_MEMBERS);

/* ------------------------------------------------------------------------
 * Pure helpers.
 */

u32 rl_md_csum(const void *block, size_t len, u32 xor)
{
	return crc32c(~0U, block + sizeof(__le32), len - sizeof(__le32)) ^ xor;
}

static bool rl_md_zero(const void *block, size_t len)
{
	return !memchr_inv(block, 0, len);
}

static bool rl_md_scheme_ok(const char *scheme)
{
	unsigned int i;

	/* NUL terminated, and NUL padded after the name */
	for (i = 0; i < RL_MD_SCHEME_LEN && scheme[i]; i++)
		;
	if (!i || i == RL_MD_SCHEME_LEN)
		return false;
	return !memchr_inv(scheme + i, 0, RL_MD_SCHEME_LEN - i);
}

/**
 * rl_md_bitmap_blocks() - bitmap blocks for @nr_regions regions
 * @nr_regions: regions
 *
 * Return: the number of 4 KiB bitmap blocks.
 */
u64 rl_md_bitmap_blocks(u64 nr_regions)
{
	return DIV_ROUND_UP_ULL(nr_regions, RL_MD_BITS_PER_BLOCK);
}

/**
 * rl_md_nr_regions() - regions of 1 << @shift sectors covering @member_sectors
 * @member_sectors: data sectors on each member
 * @shift: region shift
 *
 * Return: the region count.
 */
u64 rl_md_nr_regions(u64 member_sectors, u32 shift)
{
	return (member_sectors >> shift) +
	       !!(member_sectors & ((1ULL << shift) - 1));
}

u32 rl_md_default_region_shift(u64 member_sectors, u32 min_sectors)
{
	u32 shift = ilog2(max_t(u32, roundup_pow_of_two(max(min_sectors, 1U)),
				RL_MD_MIN_REGION));

	while (shift < RL_MD_MAX_REGION_SHIFT &&
	       rl_md_nr_regions(member_sectors, shift) > RL_MD_DEFAULT_REGIONS)
		shift++;
	return shift;
}

void rl_md_sb_encode(const struct rl_md_state *st, void *block)
{
	struct rl_md_sb *sb = block;
	unsigned int i;

	memset(block, 0, RL_MD_BLOCK);
	sb->flags = cpu_to_le32(st->flags);
	sb->magic = cpu_to_le64(RL_MD_MAGIC);
	sb->version = cpu_to_le32(RL_MD_VERSION);
	sb->seq = cpu_to_le64(st->seq);
	sb->events = cpu_to_le64(st->events);
	memcpy(sb->uuid, st->uuid, sizeof(sb->uuid));
	strscpy_pad(sb->scheme, st->scheme, sizeof(sb->scheme));
	sb->nr_members = cpu_to_le32(st->nr_members);
	sb->chunk_sectors = cpu_to_le32(st->chunk_sectors);
	sb->data_offset = cpu_to_le64(st->data_offset);
	sb->member_sectors = cpu_to_le64(st->member_sectors);
	sb->array_sectors = cpu_to_le64(st->array_sectors);
	sb->resync_cursor = cpu_to_le64(st->resync_cursor);
	sb->mismatches = cpu_to_le64(st->mismatches);
	sb->region_shift = cpu_to_le32(st->region_shift);
	sb->nr_areas = cpu_to_le32(st->nr_areas);
	sb->nr_regions = cpu_to_le64(st->nr_regions);
	sb->bitmap_start = cpu_to_le64(st->bitmap_start);
	sb->bitmap_blocks = cpu_to_le64(st->bitmap_blocks);
	for (i = 0; i < st->nr_areas && i < RL_MD_MAX_AREAS; i++) {
		sb->areas[i].id = cpu_to_le32(st->areas[i].id);
		sb->areas[i].start = cpu_to_le64(st->areas[i].start);
		sb->areas[i].blocks = cpu_to_le64(st->areas[i].blocks);
	}
	for (i = 0; i < st->nr_members && i < RL_MD_MAX_MEMBERS; i++) {
		sb->members[i].state = cpu_to_le32(st->members[i].state);
		sb->members[i].cursor = cpu_to_le64(st->members[i].cursor);
		memcpy(sb->members[i].dev_uuid, st->members[i].dev_uuid, 16);
	}
	sb->csum = cpu_to_le32(rl_md_csum(block, RL_MD_BLOCK, RL_MD_SB_CSUM_XOR));
}

/**
 * rl_md_used_blocks() - the end of what a superblock places on the device
 * @st: a state whose extents do not overflow
 *
 * Return: the first block past the superblock slots, the bitmap and every
 * record area (in whatever order they lie): the device must have that many
 * blocks, and a new record area starts there.
 */
u64 rl_md_used_blocks(const struct rl_md_state *st)
{
	u64 end = max_t(u64, 2, st->bitmap_start + st->bitmap_blocks);
	unsigned int i;

	for (i = 0; i < st->nr_areas && i < RL_MD_MAX_AREAS; i++)
		end = max(end, st->areas[i].start + st->areas[i].blocks);
	return end;
}

/* Blocks [@a, @a + @an) and [@b, @b + @bn) share a block (no sum overflows). */
static bool rl_md_overlap(u64 a, u64 an, u64 b, u64 bn)
{
	return a < b + bn && b < a + an;
}

/* Record area @i of @st: within block numbers, and over nothing else. */
static int rl_md_sb_check_area(const struct rl_md_state *st, unsigned int i,
			       char **error)
{
	const struct rl_md_area *ar = &st->areas[i];
	unsigned int j;

	if (!ar->blocks) {
		*error = "Metadata superblock: empty record area";
		return -EINVAL;
	}
	if (ar->start > U64_MAX - ar->blocks) {
		*error = "Metadata superblock: record area past the last block number";
		return -EINVAL;
	}
	if (ar->start < 2) {
		*error = "Metadata superblock: record area over the superblock slots";
		return -EINVAL;
	}
	if (rl_md_overlap(ar->start, ar->blocks, st->bitmap_start,
			  st->bitmap_blocks)) {
		*error = "Metadata superblock: record area over the bitmap";
		return -EINVAL;
	}
	for (j = 0; j < i; j++) {
		if (st->areas[j].id == ar->id) {
			*error = "Metadata superblock: duplicate record area";
			return -EINVAL;
		}
		if (rl_md_overlap(ar->start, ar->blocks, st->areas[j].start,
				  st->areas[j].blocks)) {
			*error = "Metadata superblock: record areas overlap";
			return -EINVAL;
		}
	}
	return 0;
}

/* The members' states and rebuild cursors. */
static int rl_md_sb_check_members(const struct rl_md_state *st, char **error)
{
	unsigned int i;

	for (i = 0; i < st->nr_members; i++) {
		const struct rl_md_member *m = &st->members[i];

		if (m->state < RL_MS_IN_SYNC || m->state > RL_MS_REBUILDING) {
			*error = "Metadata superblock: member state out of range";
			return -EINVAL;
		}
		if (m->cursor > st->member_sectors) {
			*error = "Metadata superblock: rebuild cursor past the end";
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * rl_md_sb_check() - check a decoded superblock before any of it is used
 * @st: the state, as rl_md_sb_decode() read it from the device
 * @dev_blocks: the metadata device's 4 KiB blocks, or RL_MD_ANY_SIZE
 * @error: set to a static message for ti->error on failure
 *
 * Every count and extent of an image is untrusted until this passes:
 * members, chunk and region geometry, the region count against the member
 * size and the bitmap against the region count, each extent for overflow,
 * the bitmap and each record area against the superblock slots (blocks 0
 * and 1), against each other and against the device, the cursors against
 * the member size. Pure (KUnit suite dm_raidlab_metadata).
 *
 * Return: 0, or -EINVAL with *error set.
 */
int rl_md_sb_check(const struct rl_md_state *st, u64 dev_blocks, char **error)
{
	unsigned int i;

	if (!st->nr_members || st->nr_members > RL_MD_MAX_MEMBERS) {
		*error = "Metadata superblock: invalid number of members";
		return -EINVAL;
	}
	if (!st->chunk_sectors || !is_power_of_2(st->chunk_sectors)) {
		*error = "Metadata superblock: chunk size is not a power of two";
		return -EINVAL;
	}
	if (st->region_shift < ilog2(RL_MD_MIN_REGION) ||
	    st->region_shift > RL_MD_MAX_REGION_SHIFT) {
		*error = "Metadata superblock: region shift out of range";
		return -EINVAL;
	}
	/* a row's intent bit covers the row: regions are whole chunks */
	if (st->region_shift < ilog2(st->chunk_sectors)) {
		*error = "Metadata superblock: region smaller than a chunk";
		return -EINVAL;
	}
	if (!st->member_sectors) {
		*error = "Metadata superblock: no member sectors";
		return -EINVAL;
	}
	if (st->nr_regions != rl_md_nr_regions(st->member_sectors,
					       st->region_shift) ||
	    st->nr_regions > RL_MD_MAX_REGIONS) {
		*error = "Metadata superblock: region count does not match";
		return -EINVAL;
	}
	if (st->bitmap_start < 2 ||
	    st->bitmap_blocks != rl_md_bitmap_blocks(st->nr_regions)) {
		*error = "Metadata superblock: bad bitmap placement";
		return -EINVAL;
	}
	if (st->bitmap_start > U64_MAX - st->bitmap_blocks) {
		*error = "Metadata superblock: bitmap past the last block number";
		return -EINVAL;
	}
	if (st->nr_areas > RL_MD_MAX_AREAS) {
		*error = "Metadata superblock: too many record areas";
		return -EINVAL;
	}
	if (st->resync_cursor > st->member_sectors) {
		*error = "Metadata superblock: resync cursor past the end";
		return -EINVAL;
	}
	for (i = 0; i < st->nr_areas; i++)
		if (rl_md_sb_check_area(st, i, error))
			return -EINVAL;
	if (rl_md_sb_check_members(st, error))
		return -EINVAL;
	if (rl_md_used_blocks(st) > dev_blocks) {
		*error = "Metadata device is smaller than its contents";
		return -EINVAL;
	}
	return 0;
}

int rl_md_sb_decode(const void *block, struct rl_md_state *st, char **error)
{
	const struct rl_md_sb *sb = block;
	unsigned int i;

	if (rl_md_zero(block, RL_MD_BLOCK)) {
		*error = "Metadata superblock is blank";
		return -ENODATA;
	}
	if (le64_to_cpu(sb->magic) != RL_MD_MAGIC) {
		*error = "Metadata superblock: bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->csum) !=
	    rl_md_csum(block, RL_MD_BLOCK, RL_MD_SB_CSUM_XOR)) {
		*error = "Metadata superblock: bad checksum";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->version) != RL_MD_VERSION) {
		*error = "Metadata superblock: unsupported version";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->incompat) & ~RL_MD_INCOMPAT_SUPP) {
		*error = "Metadata superblock: unknown incompatible feature";
		return -EINVAL;
	}
	if (le32_to_cpu(sb->ro_compat) & ~RL_MD_RO_COMPAT_SUPP) {
		*error = "Metadata superblock: unknown read-only feature";
		return -EINVAL;
	}
	if (!rl_md_scheme_ok(sb->scheme)) {
		*error = "Metadata superblock: bad scheme name";
		return -EINVAL;
	}
	/* the encoder zeroes the whole block after the structure */
	if (!rl_md_zero(block + sizeof(*sb), RL_MD_BLOCK - sizeof(*sb))) {
		*error = "Metadata superblock: garbage after the structure";
		return -EINVAL;
	}

	memset(st, 0, sizeof(*st));
	st->flags = le32_to_cpu(sb->flags);
	st->seq = le64_to_cpu(sb->seq);
	st->events = le64_to_cpu(sb->events);
	memcpy(st->uuid, sb->uuid, sizeof(st->uuid));
	memcpy(st->scheme, sb->scheme, sizeof(st->scheme));
	st->nr_members = le32_to_cpu(sb->nr_members);
	st->chunk_sectors = le32_to_cpu(sb->chunk_sectors);
	st->data_offset = le64_to_cpu(sb->data_offset);
	st->member_sectors = le64_to_cpu(sb->member_sectors);
	st->array_sectors = le64_to_cpu(sb->array_sectors);
	st->resync_cursor = le64_to_cpu(sb->resync_cursor);
	st->mismatches = le64_to_cpu(sb->mismatches);
	st->region_shift = le32_to_cpu(sb->region_shift);
	st->nr_areas = le32_to_cpu(sb->nr_areas);
	st->nr_regions = le64_to_cpu(sb->nr_regions);
	st->bitmap_start = le64_to_cpu(sb->bitmap_start);
	st->bitmap_blocks = le64_to_cpu(sb->bitmap_blocks);
	for (i = 0; i < RL_MD_MAX_AREAS; i++) {
		st->areas[i].id = le32_to_cpu(sb->areas[i].id);
		st->areas[i].start = le64_to_cpu(sb->areas[i].start);
		st->areas[i].blocks = le64_to_cpu(sb->areas[i].blocks);
	}
	for (i = 0; i < RL_MD_MAX_MEMBERS; i++) {
		st->members[i].state = le32_to_cpu(sb->members[i].state);
		st->members[i].cursor = le64_to_cpu(sb->members[i].cursor);
		memcpy(st->members[i].dev_uuid, sb->members[i].dev_uuid, 16);
	}
	return rl_md_sb_check(st, RL_MD_ANY_SIZE, error);
}

void rl_msb_encode(const struct rl_msb_state *st, void *block)
{
	struct rl_msb *msb = block;

	memset(block, 0, RL_MD_BLOCK);
	msb->magic = cpu_to_le64(RL_MSB_MAGIC);
	msb->version = cpu_to_le32(RL_MD_VERSION);
	msb->role = cpu_to_le32(st->role);
	memcpy(msb->uuid, st->uuid, sizeof(msb->uuid));
	memcpy(msb->dev_uuid, st->dev_uuid, sizeof(msb->dev_uuid));
	msb->events = cpu_to_le64(st->events);
	msb->nr_members = cpu_to_le32(st->nr_members);
	msb->chunk_sectors = cpu_to_le32(st->chunk_sectors);
	msb->data_offset = cpu_to_le64(st->data_offset);
	msb->member_sectors = cpu_to_le64(st->member_sectors);
	strscpy_pad(msb->scheme, st->scheme, sizeof(msb->scheme));
	msb->csum = cpu_to_le32(rl_md_csum(block, RL_MD_BLOCK, RL_MSB_CSUM_XOR));
}

int rl_msb_decode(const void *block, struct rl_msb_state *st, char **error)
{
	const struct rl_msb *msb = block;

	if (rl_md_zero(block, RL_MD_BLOCK)) {
		*error = "Member superblock is blank";
		return -ENODATA;
	}
	if (le64_to_cpu(msb->magic) != RL_MSB_MAGIC) {
		*error = "Member superblock: bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(msb->csum) !=
	    rl_md_csum(block, RL_MD_BLOCK, RL_MSB_CSUM_XOR)) {
		*error = "Member superblock: bad checksum";
		return -EINVAL;
	}
	if (le32_to_cpu(msb->version) != RL_MD_VERSION) {
		*error = "Member superblock: unsupported version";
		return -EINVAL;
	}
	if (!rl_md_scheme_ok(msb->scheme)) {
		*error = "Member superblock: bad scheme name";
		return -EINVAL;
	}
	if (!rl_md_zero(block + sizeof(*msb), RL_MD_BLOCK - sizeof(*msb))) {
		*error = "Member superblock: garbage after the structure";
		return -EINVAL;
	}

	memset(st, 0, sizeof(*st));
	st->role = le32_to_cpu(msb->role);
	memcpy(st->uuid, msb->uuid, sizeof(st->uuid));
	memcpy(st->dev_uuid, msb->dev_uuid, sizeof(st->dev_uuid));
	st->events = le64_to_cpu(msb->events);
	st->nr_members = le32_to_cpu(msb->nr_members);
	st->chunk_sectors = le32_to_cpu(msb->chunk_sectors);
	st->data_offset = le64_to_cpu(msb->data_offset);
	st->member_sectors = le64_to_cpu(msb->member_sectors);
	memcpy(st->scheme, msb->scheme, sizeof(st->scheme));

	if (!st->nr_members || st->nr_members > RL_MD_MAX_MEMBERS) {
		*error = "Member superblock: invalid number of members";
		return -EINVAL;
	}
	if (st->role >= st->nr_members && st->role != RL_ROLE_SPARE) {
		*error = "Member superblock: role out of range";
		return -EINVAL;
	}
	if (!st->chunk_sectors || !is_power_of_2(st->chunk_sectors)) {
		*error = "Member superblock: chunk size is not a power of two";
		return -EINVAL;
	}
	return 0;
}

void rl_md_bitmap_encode(u64 blocknr, u64 seq, const unsigned long *bits,
			 unsigned int nbits, void *block)
{
	struct rl_md_bitmap_disk *bd = block;
	unsigned long r;

	memset(block, 0, RL_MD_BLOCK);
	bd->blocknr = cpu_to_le64(blocknr);
	bd->seq = cpu_to_le64(seq);
	for_each_set_bit(r, bits, min_t(unsigned int, nbits, RL_MD_BITS_PER_BLOCK))
		__set_bit_le(r, bd->bits);
	bd->csum = cpu_to_le32(rl_md_csum(block, RL_MD_BLOCK,
					  RL_MD_BITMAP_CSUM_XOR));
}

int rl_md_bitmap_decode(const void *block, u64 blocknr, unsigned long *bits,
			unsigned int nbits, char **error)
{
	const struct rl_md_bitmap_disk *bd = block;
	unsigned long b;

	if (rl_md_zero(block, RL_MD_BLOCK)) {
		*error = "Metadata bitmap block is blank";
		return -ENODATA;
	}
	if (le32_to_cpu(bd->csum) !=
	    rl_md_csum(block, RL_MD_BLOCK, RL_MD_BITMAP_CSUM_XOR)) {
		*error = "Metadata bitmap block: bad checksum";
		return -EBADMSG;
	}
	if (le64_to_cpu(bd->blocknr) != blocknr) {
		*error = "Metadata bitmap block: misplaced";
		return -EINVAL;
	}
	if (!nbits || nbits > RL_MD_BITS_PER_BLOCK) {
		*error = "Metadata bitmap block: past the last region";
		return -EINVAL;
	}
	if (find_next_bit_le(bd->bits, RL_MD_BITS_PER_BLOCK, nbits) <
	    RL_MD_BITS_PER_BLOCK) {
		*error = "Metadata bitmap block: bit past the last region";
		return -EINVAL;
	}
	for (b = find_next_bit_le(bd->bits, nbits, 0); b < nbits;
	     b = find_next_bit_le(bd->bits, nbits, b + 1))
		__set_bit(b, bits);
	return 0;
}

/**
 * rl_md_bitmap_load() - what a bitmap block read at load says
 * @block: the 4 KiB block read at metadata block @blocknr
 * @blocknr: its metadata block number
 * @bits: the in-core bitmap of its regions (bit 0: its first region)
 * @nbits: its regions, 1 .. RL_MD_BITS_PER_BLOCK
 * @error: set to what is wrong with the block, unless it validates
 *
 * A crash during a bitmap write can tear it: a disk writes a 4 KiB block
 * in sectors, and may leave old and new ones mixed (or, on some devices,
 * zeroes). Such a block fails its checksum, or is blank, and says nothing
 * about its regions: all of them are then taken as dirty, so that the
 * resync covers whatever write was in flight there, and the block is
 * rewritten valid when its bits are next written. A block that validates
 * but is not this one (its own block number another, or a bit set past
 * the last region) is no torn write of this block: something else wrote
 * there, and the superblock cannot be trusted to place the bitmap.
 * Pure (KUnit suite dm_raidlab_metadata).
 *
 * Return: 0 (its set bits set in @bits), RL_MD_BITMAP_TORN (blank or a
 * bad checksum: bits 0 .. @nbits - 1 all set in @bits), or -EINVAL
 * (refused; @bits untouched).
 */
int rl_md_bitmap_load(const void *block, u64 blocknr, unsigned long *bits,
		      unsigned int nbits, char **error)
{
	int r = rl_md_bitmap_decode(block, blocknr, bits, nbits, error);

	if (r != -ENODATA && r != -EBADMSG)
		return r ? -EINVAL : 0;
	if (!nbits || nbits > RL_MD_BITS_PER_BLOCK) {
		*error = "Metadata bitmap block: past the last region";
		return -EINVAL;
	}
	bitmap_set(bits, 0, nbits);
	return RL_MD_BITMAP_TORN;
}

/* ------------------------------------------------------------------------
 * The service.
 */

struct rl_md_seg {
	u64 block;			/* first metadata block */
	u64 nr;				/* blocks */
	void *kaddr;
};

struct rl_md {
	struct rl_array *a;
	struct dm_dev *dev;
	struct list_head open_node;	/* in rl_md_open_list */
	u64 dev_blocks;
	struct dm_bufio_client *bufio;	/* NULL on DAX */
	struct rl_md_seg *segs;		/* DAX mapping */
	unsigned int nr_segs;
	struct dm_io_client *io;
	struct page *msb_page;		/* member superblock I/O (lock) */
	void *blk;			/* superblock image (lock) */
	void *bmblk;			/* bitmap block image (io_mutex) */

	struct mutex lock;		/* st, commits, msb_page */
	struct rl_md_state st;
	unsigned int slot;		/* slot of the last commit */
	bool new;
	unsigned long flags;		/* RL_MDF_* */
	u8 spare_uuid[RL_MAX_SPARES][16];

	struct mutex io_mutex;		/* bitmap writes, the clear pass */
	bool clean_durable;		/* RL_MD_CLEAN may be on the device (io_mutex) */
	spinlock_t ilock;		/* the bitmaps and counts below */
	unsigned long *bits;		/* durable */
	unsigned long *pending;		/* being made durable */
	unsigned long *used;		/* started since the last clear pass */
	unsigned long *pinned;		/* dirty at load, not resynced */
	unsigned long *cand;		/* clear pass candidates (io_mutex) */
	unsigned long snap[RL_MD_WORDS_PER_BLOCK];	/* io_mutex */
	unsigned long *dirty_at_load;	/* NULL if none */
	u32 *inflight;
	u64 bitmap_seq;			/* io_mutex */
	atomic64_t intent_writes;
	struct delayed_work clear_work;
};

enum {
	RL_MDF_FAILED,			/* an I/O failed: read-only */
};

bool rl_md_failed(struct rl_md *md)
{
	return test_bit(RL_MDF_FAILED, &md->flags);
}

const char *rl_md_backend(struct rl_md *md)
{
	return md->bufio ? "bufio" : "dax";
}

bool rl_md_new(struct rl_md *md)
{
	return md->new;
}

struct rl_md_state *rl_md_state(struct rl_md *md)
{
	return &md->st;
}

void rl_md_lock(struct rl_md *md)
{
	mutex_lock(&md->lock);
}

void rl_md_unlock(struct rl_md *md)
{
	mutex_unlock(&md->lock);
}

void rl_md_spare_uuid(struct rl_md *md, unsigned int j, u8 uuid[16])
{
	memcpy(uuid, md->spare_uuid[j], 16);
}

static const char *rl_md_name(struct rl_md *md)
{
	return dm_table_device_name(md->a->ti->table);
}

/* An I/O on the metadata failed: read-only from now on, said once. */
static int rl_md_io_error(struct rl_md *md, const char *what, int r)
{
	if (!test_and_set_bit(RL_MDF_FAILED, &md->flags))
		DMERR("%s: metadata device %s: %s failed (%d): writes are refused",
		      rl_md_name(md), md->dev->name, what, r);
	return -EIO;
}

static void *rl_md_dax_addr(struct rl_md *md, u64 block)
{
	unsigned int i;

	for (i = 0; i < md->nr_segs; i++)
		if (block >= md->segs[i].block &&
		    block < md->segs[i].block + md->segs[i].nr)
			return md->segs[i].kaddr +
			       (block - md->segs[i].block) * RL_MD_BLOCK;
	return NULL;
}

/*
 * Map the whole device (as dm-writecache does): direct_access may hand out
 * the range in pieces, kept as segments. Returns 0, or nonzero to fall
 * back to dm-bufio.
 */
static int rl_md_dax_claim(struct rl_md *md)
{
#if IS_ENABLED(CONFIG_FS_DAX)
	sector_t start = get_start_sect(md->dev->bdev);
	u64 done = 0;
	long da;
	void *kaddr;
	pfn_t pfn;
	int id, r = 0;

	if (!md->dev->dax_dev || PAGE_SIZE != RL_MD_BLOCK ||
	    start & (RL_MD_BLOCK_SECTORS - 1))
		return -EOPNOTSUPP;
	md->segs = kcalloc(RL_MD_MAX_SEGS, sizeof(*md->segs), GFP_KERNEL);
	if (!md->segs)
		return -ENOMEM;
	id = dax_read_lock();
	while (done < md->dev_blocks) {
		if (md->nr_segs == RL_MD_MAX_SEGS) {
			r = -E2BIG;
			break;
		}
		da = dax_direct_access(md->dev->dax_dev,
				       (start >> (PAGE_SHIFT - SECTOR_SHIFT)) + done,
				       md->dev_blocks - done, DAX_ACCESS,
				       &kaddr, &pfn);
		if (da <= 0) {
			r = da ? da : -EIO;
			break;
		}
		da = min_t(u64, da, md->dev_blocks - done);
		md->segs[md->nr_segs].block = done;
		md->segs[md->nr_segs].nr = da;
		md->segs[md->nr_segs].kaddr = kaddr;
		md->nr_segs++;
		done += da;
	}
	dax_read_unlock(id);
	if (r) {
		DMWARN("%s: metadata device %s: no DAX mapping (%d), using dm-bufio",
		       rl_md_name(md), md->dev->name, r);
		kfree(md->segs);
		md->segs = NULL;
		md->nr_segs = 0;
	}
	return r;
#else
	return -EOPNOTSUPP;
#endif
}

static int rl_md_read(struct rl_md *md, u64 block, void *buf)
{
	struct dm_buffer *b;
	void *p;

	if (!md->bufio) {
		p = rl_md_dax_addr(md, block);
		if (!p || copy_mc_to_kernel(buf, p, RL_MD_BLOCK))
			return rl_md_io_error(md, "read", -EIO);
		return 0;
	}
	p = dm_bufio_read(md->bufio, block, &b);
	if (IS_ERR(p))
		return rl_md_io_error(md, "read", PTR_ERR(p));
	memcpy(buf, p, RL_MD_BLOCK);
	dm_bufio_release(b);
	return 0;
}

/* Write a block; durable after rl_md_sync(). */
static int rl_md_write(struct rl_md *md, u64 block, const void *buf)
{
	struct dm_buffer *b;
	void *p;

	if (!md->bufio) {
		p = rl_md_dax_addr(md, block);
		if (!p)
			return rl_md_io_error(md, "write", -EIO);
		memcpy_flushcache(p, buf, RL_MD_BLOCK);
		return 0;
	}
	p = dm_bufio_new(md->bufio, block, &b);
	if (IS_ERR(p))
		return rl_md_io_error(md, "write", PTR_ERR(p));
	memcpy(p, buf, RL_MD_BLOCK);
	dm_bufio_mark_buffer_dirty(b);
	dm_bufio_release(b);
	return 0;
}

/* Everything written so far is durable. */
static int rl_md_sync(struct rl_md *md)
{
	int r;

	if (rl_md_failed(md))
		return -EIO;
	if (!md->bufio) {
		pmem_wmb();
		return 0;
	}
	r = dm_bufio_write_dirty_buffers(md->bufio);
	if (!r)
		r = dm_bufio_issue_flush(md->bufio);
	if (r)
		return rl_md_io_error(md, "write", r);
	return 0;
}

int rl_md_persist(struct rl_md *md)
{
	return rl_md_sync(md);
}

/* Member superblock I/O at sector 0 of @bdev, through md->msb_page. */
static int rl_md_msb_io(struct rl_md *md, struct block_device *bdev,
			blk_opf_t opf)
{
	struct dm_io_region where = {
		.bdev = bdev, .sector = 0, .count = RL_MD_BLOCK_SECTORS,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_KMEM,
		.mem.ptr.addr = page_address(md->msb_page),
		.client = md->io,
	};

	lockdep_assert_held(&md->lock);
	return dm_io(&req, 1, &where, NULL, IOPRIO_DEFAULT);
}

/* Read and decode @bdev's superblock: 0, -ENODATA, -EINVAL or -EIO. */
static int rl_md_msb_read(struct rl_md *md, struct block_device *bdev,
			  struct rl_msb_state *msb, char **error)
{
	int r = rl_md_msb_io(md, bdev, REQ_OP_READ | REQ_SYNC);

	if (r) {
		*error = "Cannot read a member superblock";
		return -EIO;
	}
	return rl_msb_decode(page_address(md->msb_page), msb, error);
}

static int rl_md_msb_write(struct rl_md *md, struct block_device *bdev,
			   u32 role, const u8 dev_uuid[16])
{
	struct rl_msb_state msb = {
		.role = role,
		.events = md->st.events,
		.nr_members = md->st.nr_members,
		.chunk_sectors = md->st.chunk_sectors,
		.data_offset = md->st.data_offset,
		.member_sectors = md->st.member_sectors,
	};

	memcpy(msb.uuid, md->st.uuid, 16);
	memcpy(msb.dev_uuid, dev_uuid, 16);
	memcpy(msb.scheme, md->st.scheme, sizeof(msb.scheme));
	rl_msb_encode(&msb, page_address(md->msb_page));
	return rl_md_msb_io(md, bdev, REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
}

/*
 * Write the superblock of every live member (not failed in the metadata)
 * and of every spare. A member whose write fails is failed; the metadata
 * stays usable.
 */
static void rl_md_msb_write_all(struct rl_md *md)
{
	struct rl_array *a = md->a;
	unsigned int i;

	for (i = 0; i < a->geom.nr_members; i++) {
		struct dm_dev *dev = a->members[i].dev;

		if (!dev || md->st.members[i].state == RL_MS_FAILED ||
		    rl_member_failed(a, i))
			continue;
		if (rl_md_msb_write(md, dev->bdev, i,
				    md->st.members[i].dev_uuid))
			rl_member_fail(a, i, "superblock write failed");
	}
	for (i = 0; i < a->nr_spares; i++)
		if (a->spares[i] &&
		    rl_md_msb_write(md, a->spares[i]->bdev, RL_ROLE_SPARE,
				    md->spare_uuid[i]))
			DMWARN("%s: spare %s: superblock write failed",
			       rl_md_name(md), a->spares[i]->name);
}

int rl_md_commit(struct rl_md *md, bool members_changed)
{
	unsigned int slot = md->slot ^ 1;
	int r;

	lockdep_assert_held(&md->lock);
	/* phase 1: the bitmap and the areas the new state may point to */
	r = rl_md_sync(md);
	if (r)
		return r;
	if (members_changed) {
		md->st.events++;
		rl_md_msb_write_all(md);
	}
	/* phase 2: the other slot */
	md->st.seq++;
	rl_md_sb_encode(&md->st, md->blk);
	r = rl_md_write(md, slot, md->blk);
	if (!r)
		r = rl_md_sync(md);
	if (r)
		return -EIO;
	md->slot = slot;
	return 0;
}

/* ------------------------------------------------------------------------
 * Write intent.
 */

/* Regions in bitmap block @index. */
static unsigned int rl_md_block_bits(struct rl_md *md, u64 index)
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

/* Flush every live member: completed writes reach their media. */
static int rl_md_flush_members(struct rl_md *md)
{
	struct rl_array *a = md->a;
	unsigned int i;
	int r = 0;

	for (i = 0; i < a->geom.nr_members; i++) {
		if (!a->members[i].dev || rl_member_failed(a, i))
			continue;
		if (blkdev_issue_flush(a->members[i].dev->bdev)) {
			rl_member_fail(a, i, "flush failed");
			r = -EIO;
		}
	}
	return r;
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
	bool empty;
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
		/* a write started since the pick keeps its region */
		spin_lock_irq(&md->ilock);
		for_each_set_bit(r, md->cand, nr) {
			if (md->inflight[r] || (!clean && test_bit(r, md->used)))
				__clear_bit(r, md->cand);
			else
				__clear_bit(r, md->bits);
		}
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

static void rl_md_clear_work(struct work_struct *ws)
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

/* ------------------------------------------------------------------------
 * Record areas.
 */

int rl_md_area_find(struct rl_md *md, u32 id, u64 blocks,
		    struct rl_md_area *area)
{
	struct rl_md_state *st = &md->st;
	unsigned int i;
	int r = 0;
	u64 end;

	if (!blocks)
		return -EINVAL;
	rl_md_lock(md);
	for (i = 0; i < st->nr_areas; i++) {
		if (st->areas[i].id == id) {
			if (st->areas[i].blocks != blocks)
				r = -EINVAL;
			else
				*area = st->areas[i];
			goto out;
		}
	}
	/* after everything placed (checked at load: end <= dev_blocks) */
	end = rl_md_used_blocks(st);
	if (st->nr_areas == RL_MD_MAX_AREAS || end > md->dev_blocks ||
	    blocks > md->dev_blocks - end) {
		r = -ENOSPC;
		goto out;
	}
	st->areas[i].id = id;
	st->areas[i].start = end;
	st->areas[i].blocks = blocks;
	st->nr_areas++;
	r = rl_md_commit(md, false);
	if (r)
		st->nr_areas--;
	else
		*area = st->areas[i];
out:
	rl_md_unlock(md);
	return r;
}

void *rl_md_area_map(struct rl_md *md, const struct rl_md_area *area,
		     u64 block, bool new, struct dm_buffer **bp)
{
	u64 blk = area->start + block;
	void *p;

	*bp = NULL;
	if (block >= area->blocks)
		return NULL;
	if (!md->bufio)
		return rl_md_dax_addr(md, blk);
	p = new ? dm_bufio_new(md->bufio, blk, bp) :
		  dm_bufio_read(md->bufio, blk, bp);
	if (IS_ERR(p)) {
		rl_md_io_error(md, "area read", PTR_ERR(p));
		*bp = NULL;
		return NULL;
	}
	return p;
}

void rl_md_area_dirty(struct rl_md *md, struct dm_buffer *b)
{
	if (b)
		dm_bufio_mark_buffer_dirty(b);
}

void rl_md_area_unmap(struct rl_md *md, struct dm_buffer *b)
{
	if (b)
		dm_bufio_release(b);
}

/* ------------------------------------------------------------------------
 * Open: load or format, and check the members against it.
 */

/* The state a new array gets from the table. */
static void rl_md_format_state(struct rl_md *md)
{
	struct rl_array *a = md->a;
	struct rl_md_state *st = &md->st;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	get_random_bytes(st->uuid, sizeof(st->uuid));
	strscpy_pad(st->scheme, a->ops->name, sizeof(st->scheme));
	st->nr_members = a->geom.nr_members;
	st->chunk_sectors = rl_chunk_sectors(&a->geom);
	st->data_offset = a->geom.data_offset;
	st->member_sectors = a->member_sectors;
	st->array_sectors = a->ti->len;
	st->resync_cursor = a->assume_clean ? a->member_sectors : 0;
	st->region_shift = a->region_shift ? a->region_shift :
		rl_md_default_region_shift(a->member_sectors,
					   max_t(u32, rl_chunk_sectors(&a->geom),
						 RL_MD_DEFAULT_REGION));
	st->nr_regions = rl_md_nr_regions(a->member_sectors, st->region_shift);
	st->bitmap_start = 2;
	st->bitmap_blocks = rl_md_bitmap_blocks(st->nr_regions);
	for (i = 0; i < st->nr_members; i++) {
		st->members[i].state = a->members[i].dev ? RL_MS_IN_SYNC :
							   RL_MS_FAILED;
		get_random_bytes(st->members[i].dev_uuid, 16);
	}
	for (i = 0; i < a->nr_spares; i++)
		get_random_bytes(md->spare_uuid[i], 16);
}

/* New array: every disk must be blank (no valid superblock of any array). */
static int rl_md_check_blank(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	struct rl_msb_state msb;
	char *why;
	unsigned int i;
	int r;

	for (i = 0; i < a->geom.nr_members + a->nr_spares; i++) {
		bool spare = i >= a->geom.nr_members;
		struct dm_dev *dev = spare ? a->spares[i - a->geom.nr_members] :
					     a->members[i].dev;

		if (!dev)
			continue;
		r = rl_md_msb_read(md, dev->bdev, &msb, &why);
		if (r == -EIO) {
			*error = why;
			return r;
		}
		if (!r) {
			DMERR("%s: %s %s already belongs to an array (role %u)",
			      rl_md_name(md), spare ? "spare" : "member",
			      dev->name, msb.role);
			*error = spare ? "Spare already belongs to an array" :
					 "Member already belongs to an array";
			return -EINVAL;
		}
	}
	return 0;
}

static int rl_md_format(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	u64 i;
	int r;

	r = rl_md_check_blank(md, error);
	if (r)
		return r;

	for (i = 0; i < md->st.bitmap_blocks; i++) {
		rl_md_bitmap_encode(md->st.bitmap_start + i, 0, md->bits,
				    rl_md_block_bits(md, i), md->bmblk);
		r = rl_md_write(md, md->st.bitmap_start + i, md->bmblk);
		if (r)
			goto io;
	}
	r = rl_md_commit(md, true);
	if (r)
		goto io;
	md->new = true;
	DMINFO("%s: new array on metadata device %s (%s, %u members, regions of %llu sectors)",
	       rl_md_name(md), md->dev->name, rl_md_backend(md),
	       a->geom.nr_members, 1ULL << md->st.region_shift);
	return 0;
io:
	*error = "Cannot write the metadata device";
	return -EIO;
}

/* The loaded state must describe the array the table describes. */
static int rl_md_check_table(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	struct rl_md_state *st = &md->st;

	if (strncmp(st->scheme, a->ops->name, RL_MD_SCHEME_LEN)) {
		*error = "Metadata describes another scheme";
		return -EINVAL;
	}
	if (st->nr_members != a->geom.nr_members) {
		*error = "Metadata describes another number of members";
		return -EINVAL;
	}
	if (st->chunk_sectors != rl_chunk_sectors(&a->geom)) {
		*error = "Metadata describes another chunk_size";
		return -EINVAL;
	}
	if (st->data_offset != a->geom.data_offset ||
	    st->member_sectors != a->member_sectors ||
	    st->array_sectors != a->ti->len) {
		*error = "Metadata describes another length";
		return -EINVAL;
	}
	if (a->region_shift && st->region_shift != a->region_shift) {
		*error = "region_size differs from the metadata";
		return -EINVAL;
	}
	/* the slot was checked without the device: now with it */
	return rl_md_sb_check(st, md->dev_blocks, error);
}

/* Load the newest valid slot: 0, -ENODATA (both blank), or an error. */
static int rl_md_load_sb(struct rl_md *md, char **error)
{
	struct rl_md_state *st2;
	char *err[2];
	int r[2], ret = 0;
	unsigned int s;

	st2 = kmalloc(sizeof(*st2), GFP_KERNEL);
	if (!st2)
		return -ENOMEM;
	for (s = 0; s < 2; s++) {
		if (rl_md_read(md, s, md->blk)) {
			*error = "Cannot read the metadata device";
			ret = -EIO;
			goto out;
		}
		r[s] = rl_md_sb_decode(md->blk, s ? st2 : &md->st, &err[s]);
	}
	if (r[0] == -ENODATA && r[1] == -ENODATA) {
		ret = -ENODATA;
	} else if (r[0] && r[1]) {
		DMERR("%s: metadata device %s: slot 0: %s; slot 1: %s",
		      rl_md_name(md), md->dev->name, err[0], err[1]);
		*error = r[0] == -ENODATA ? err[1] : err[0];
		ret = -EINVAL;
	} else if (r[0] || (!r[1] && st2->seq > md->st.seq)) {
		if (r[0])
			DMWARN("%s: metadata slot 0 ignored: %s",
			       rl_md_name(md), err[0]);
		md->st = *st2;
		md->slot = 1;
	} else {
		if (r[1])
			DMWARN("%s: metadata slot 1 ignored: %s",
			       rl_md_name(md), err[1]);
		md->slot = 0;
	}
out:
	kfree(st2);
	return ret;
}

/*
 * Read the bitmap after an unclean shutdown: those regions are dirty. A
 * torn block (rl_md_bitmap_load()) makes all of its regions dirty; it
 * stays as it is on the device until its bits are next written (the clear
 * pass once they are resynced), and a crash before that finds it torn
 * again.
 */
static int rl_md_load_bitmap(struct rl_md *md, char **error)
{
	u64 nr = md->st.nr_regions, i, blk;
	char *why;
	int r;

	if (md->st.flags & RL_MD_CLEAN)
		return 0;
	for (i = 0; i < md->st.bitmap_blocks; i++) {
		blk = md->st.bitmap_start + i;
		if (rl_md_read(md, blk, md->bmblk)) {
			*error = "Cannot read the metadata device";
			return -EIO;
		}
		r = rl_md_bitmap_load(md->bmblk, blk,
				      md->bits + i * RL_MD_WORDS_PER_BLOCK,
				      rl_md_block_bits(md, i), &why);
		if (r < 0) {
			DMERR("%s: metadata device %s: bitmap block %llu refused: %s",
			      rl_md_name(md), md->dev->name, blk, why);
			*error = why;
			return -EINVAL;
		}
		if (r == RL_MD_BITMAP_TORN)
			DMWARN("%s: bitmap block %llu: %s (torn write): its %u regions dirty",
			       rl_md_name(md), blk, why, rl_md_block_bits(md, i));
	}
	if (bitmap_empty(md->bits, nr))
		return 0;
	md->dirty_at_load = bitmap_zalloc(nr, GFP_KERNEL);
	if (!md->dirty_at_load)
		return -ENOMEM;
	bitmap_copy(md->dirty_at_load, md->bits, nr);
	bitmap_copy(md->pinned, md->bits, nr);
	DMWARN("%s: unclean shutdown: %u regions dirty", rl_md_name(md),
	       bitmap_weight(md->bits, nr));
	return 0;
}

/* A new array's bitmap must fit in memory and on the device. */
static int rl_md_check_size(struct rl_md *md, char **error)
{
	if (md->st.nr_regions > RL_MD_MAX_REGIONS) {
		*error = "region_size too small: too many regions";
		return -EINVAL;
	}
	if (md->st.bitmap_start + md->st.bitmap_blocks > md->dev_blocks) {
		*error = "Metadata device too small";
		return -ENOSPC;
	}
	return 0;
}

/* What makes @msb not member @i of the array @st describes, or NULL. */
static char *rl_md_member_mismatch(const struct rl_md_state *st, unsigned int i,
				   const struct rl_msb_state *msb)
{
	if (memcmp(msb->uuid, st->uuid, 16))
		return "Member belongs to another array";
	if (msb->role != i)
		return "Member has another role in the array";
	if (memcmp(msb->dev_uuid, st->members[i].dev_uuid, 16))
		return "Member is not the disk the metadata knows in its role";
	if (msb->events < st->events)
		return "Member superblock is stale";
	if (msb->events > st->events + 1)
		return "Member superblock is newer than the metadata";
	return NULL;
}

/* Check member @i of an existing array against the metadata. */
static int rl_md_check_member(struct rl_md *md, unsigned int i, char **error)
{
	struct rl_array *a = md->a;
	struct rl_md_member *mm = &md->st.members[i];
	struct dm_dev *dev = a->members[i].dev;
	struct rl_msb_state msb;
	char *why;
	int r;

	if (!dev)
		return 0;
	r = rl_md_msb_read(md, dev->bdev, &msb, &why);
	if (r == -EIO) {
		*error = why;
		return r;
	}
	if (mm->state == RL_MS_FAILED) {
		/* a blank disk, or a spare of this array, replaces it */
		if (r) {
			set_bit(i, &a->replacements);
			get_random_bytes(mm->dev_uuid, 16);
		} else if (!memcmp(msb.uuid, md->st.uuid, 16) &&
			   msb.role == RL_ROLE_SPARE) {
			set_bit(i, &a->replacements);
			memcpy(mm->dev_uuid, msb.dev_uuid, 16);
		}
		return 0;
	}
	if (r) {
		DMERR("%s: member %u (%s): %s", rl_md_name(md), i, dev->name, why);
		*error = r == -ENODATA ? "Member superblock is blank" : why;
		return -EINVAL;
	}
	*error = rl_md_member_mismatch(&md->st, i, &msb);
	if (!*error)
		return 0;
	DMERR("%s: member %u (%s) refused: %s (events %llu, metadata %llu, role %u)",
	      rl_md_name(md), i, dev->name, *error, msb.events, md->st.events,
	      msb.role);
	return -EINVAL;
}

static int rl_md_check_members(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	struct rl_msb_state msb;
	unsigned int i;
	char *why;
	int r;

	for (i = 0; i < a->geom.nr_members; i++) {
		r = rl_md_check_member(md, i, error);
		if (r)
			return r;
	}
	for (i = 0; i < a->nr_spares; i++) {
		r = rl_md_msb_read(md, a->spares[i]->bdev, &msb, &why);
		if (r == -EIO) {
			*error = why;
			return r;
		}
		if (r) {
			/* a new spare: claim it, so no other array takes it */
			get_random_bytes(md->spare_uuid[i], 16);
			if (rl_md_msb_write(md, a->spares[i]->bdev, RL_ROLE_SPARE,
					    md->spare_uuid[i])) {
				*error = "Cannot write a spare's superblock";
				return -EIO;
			}
			continue;
		}
		if (memcmp(msb.uuid, md->st.uuid, 16) ||
		    msb.role != RL_ROLE_SPARE) {
			DMERR("%s: spare %s refused (role %u)", rl_md_name(md),
			      a->spares[i]->name, msb.role);
			*error = "Spare belongs to another array or role";
			return -EINVAL;
		}
		memcpy(md->spare_uuid[i], msb.dev_uuid, 16);
	}
	return 0;
}

static int rl_md_alloc(struct rl_md *md)
{
	u64 words = md->st.bitmap_blocks * RL_MD_WORDS_PER_BLOCK;

	md->bits = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->pending = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->used = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->pinned = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->cand = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->inflight = kvcalloc(md->st.nr_regions, sizeof(u32), GFP_KERNEL);
	if (!md->bits || !md->pending || !md->used || !md->pinned ||
	    !md->cand || !md->inflight)
		return -ENOMEM;
	return 0;
}

/*
 * Metadata devices in use. A table loaded over a live array (dmsetup
 * reload) would open the device a second time and both would commit to it:
 * such a table is refused, and the array is removed and created again
 * instead (a spare is added that way too).
 */
static LIST_HEAD(rl_md_open_list);
static DEFINE_MUTEX(rl_md_open_mutex);

static bool rl_md_claim(struct rl_md *md)
{
	struct rl_md *o;

	mutex_lock(&rl_md_open_mutex);
	list_for_each_entry(o, &rl_md_open_list, open_node) {
		if (o->dev->bdev->bd_dev == md->dev->bdev->bd_dev) {
			mutex_unlock(&rl_md_open_mutex);
			return false;
		}
	}
	list_add(&md->open_node, &rl_md_open_list);
	mutex_unlock(&rl_md_open_mutex);
	return true;
}

static void rl_md_unclaim(struct rl_md *md)
{
	mutex_lock(&rl_md_open_mutex);
	list_del(&md->open_node);
	mutex_unlock(&rl_md_open_mutex);
}

static void rl_md_free(struct rl_md *md)
{
	rl_md_unclaim(md);
	kvfree(md->bits);
	kvfree(md->pending);
	kvfree(md->used);
	kvfree(md->pinned);
	kvfree(md->cand);
	kvfree(md->inflight);
	bitmap_free(md->dirty_at_load);
	if (md->bufio)
		dm_bufio_client_destroy(md->bufio);
	kfree(md->segs);
	if (md->io)
		dm_io_client_destroy(md->io);
	if (md->msb_page)
		__free_page(md->msb_page);
	kfree(md->blk);
	kfree(md->bmblk);
	kfree(md);
}

/* Backend, buffers and dm-io client. */
static int rl_md_setup(struct rl_md *md, char **error)
{
	md->dev_blocks = bdev_nr_sectors(md->dev->bdev) >> (ilog2(RL_MD_BLOCK) -
							    SECTOR_SHIFT);
	if (md->dev_blocks < 3) {
		*error = "Metadata device too small";
		return -EINVAL;
	}
	md->blk = kmalloc(RL_MD_BLOCK, GFP_KERNEL);
	md->bmblk = kmalloc(RL_MD_BLOCK, GFP_KERNEL);
	md->msb_page = alloc_page(GFP_KERNEL);
	if (!md->blk || !md->bmblk || !md->msb_page) {
		*error = "Cannot allocate metadata buffers";
		return -ENOMEM;
	}
	md->io = dm_io_client_create();
	if (IS_ERR(md->io)) {
		md->io = NULL;
		*error = "Cannot create a dm-io client";
		return -ENOMEM;
	}
	if (!rl_md_dax_claim(md))
		return 0;
	md->bufio = dm_bufio_client_create(md->dev->bdev, RL_MD_BLOCK, 1, 0,
					   NULL, NULL, 0);
	if (IS_ERR(md->bufio)) {
		int r = PTR_ERR(md->bufio);

		md->bufio = NULL;
		*error = "Cannot create a dm-bufio client";
		return r;
	}
	return 0;
}

/* What the core needs from the state: failed and rebuilding members. */
static void rl_md_apply(struct rl_md *md)
{
	struct rl_array *a = md->a;
	unsigned int i;

	for (i = 0; i < a->geom.nr_members; i++) {
		if (md->st.members[i].state == RL_MS_FAILED) {
			set_bit(i, &a->failed);
		} else if (md->st.members[i].state == RL_MS_REBUILDING) {
			set_bit(i, &a->rebuilding);
			a->rebuild_cursor[i] = md->st.members[i].cursor;
		}
	}
}

int rl_md_open(struct rl_array *a, struct dm_dev *dev, struct rl_md **mdp,
	       char **error)
{
	struct rl_md *md;
	int r;

	md = kzalloc(sizeof(*md), GFP_KERNEL);
	if (!md) {
		*error = "Cannot allocate metadata context";
		return -ENOMEM;
	}
	md->dev = dev;
	if (!rl_md_claim(md)) {
		kfree(md);
		*error = "Metadata device in use by a live table: remove the array first";
		return -EBUSY;
	}
	md->a = a;
	md->dev = dev;
	md->slot = 1;		/* the first commit goes to slot 0 */
	mutex_init(&md->lock);
	mutex_init(&md->io_mutex);
	spin_lock_init(&md->ilock);
	atomic64_set(&md->intent_writes, 0);
	INIT_DELAYED_WORK(&md->clear_work, rl_md_clear_work);

	r = rl_md_setup(md, error);
	if (r)
		goto bad;

	rl_md_lock(md);
	r = rl_md_load_sb(md, error);
	if (r == -ENODATA) {
		rl_md_format_state(md);
		r = rl_md_check_size(md, error);
		if (!r)
			r = rl_md_alloc(md);
		if (!r)
			r = rl_md_format(md, error);
	} else if (!r) {
		r = rl_md_check_table(md, error);
		if (!r)
			r = rl_md_alloc(md);
		if (!r)
			r = rl_md_load_bitmap(md, error);
		if (!r)
			r = rl_md_check_members(md, error);
		if (!r) {
			/* live from now on: not clean until shut down */
			md->st.flags &= ~RL_MD_CLEAN;
			r = rl_md_commit(md, false);
			if (r)
				*error = "Cannot write the metadata device";
		}
	}
	rl_md_unlock(md);
	if (r == -ENOMEM)
		*error = "Cannot allocate the write-intent bitmap";
	if (r)
		goto bad;

	rl_md_apply(md);
	if (!bitmap_subset(md->bits, md->pinned, md->st.nr_regions))
		queue_delayed_work(system_long_wq, &md->clear_work,
				   RL_MD_CLEAR_PERIOD);
	*mdp = md;
	return 0;
bad:
	rl_md_free(md);
	return r;
}

void rl_md_close(struct rl_md *md)
{
	if (!md)
		return;
	cancel_delayed_work_sync(&md->clear_work);
	rl_md_free(md);
}
