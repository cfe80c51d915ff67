// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab metadata: the on-disk encodings and their checks (pure,
 * KUnit suite dm_raidlab_metadata): superblocks, member superblocks,
 * bitmap blocks, the region arithmetic.
 */
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/ctype.h>
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
	if (st->homehost[0]) {
		sb->ro_compat = cpu_to_le32(RL_MD_RO_COMPAT_HOMEHOST);
		strscpy_pad(sb->homehost, st->homehost, sizeof(sb->homehost));
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

bool rl_md_homehost_ok(const char *name)
{
	size_t i, len = strnlen(name, RL_MD_HOMEHOST_LEN);

	if (!len || len == RL_MD_HOMEHOST_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

/*
 * The homehost of @sb into @st: a valid name, NUL padded, with its feature
 * bit; without the bit, the field must be all zeroes.
 */
static int rl_md_sb_homehost(const struct rl_md_sb *sb, struct rl_md_state *st,
			     char **error)
{
	size_t len = strnlen(sb->homehost, sizeof(sb->homehost));

	if (!(le32_to_cpu(sb->ro_compat) & RL_MD_RO_COMPAT_HOMEHOST)) {
		if (rl_md_zero(sb->homehost, sizeof(sb->homehost)))
			return 0;
		*error = "Metadata superblock: a homehost without its feature bit";
		return -EINVAL;
	}
	if (len == sizeof(sb->homehost) || !rl_md_homehost_ok(sb->homehost) ||
	    !rl_md_zero(sb->homehost + len, sizeof(sb->homehost) - len)) {
		*error = "Metadata superblock: bad homehost";
		return -EINVAL;
	}
	memcpy(st->homehost, sb->homehost, sizeof(st->homehost));
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
	if (rl_md_sb_homehost(sb, st, error))
		return -EINVAL;
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

/* What makes @msb not member @i of the array @st describes, or NULL. */
char *rl_md_member_mismatch(const struct rl_md_state *st, unsigned int i,
			    const struct rl_msb_state *msb)
{
	if (memcmp(msb->uuid, st->uuid, 16))
		return "Member belongs to another array";
	/* a swap with a spare whose commit was cut short: still role @i's */
	if (msb->role == RL_ROLE_SPARE && msb->events == st->events + 1 &&
	    !memcmp(msb->dev_uuid, st->members[i].dev_uuid, 16))
		return NULL;
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

/*
 * Whether @msb is failed role @i's own disk come back: of this array, in
 * role @i, the disk the metadata knows there. Its events are behind the
 * metadata's (it missed the commit that failed it), never ahead.
 */
char *rl_md_readd_mismatch(const struct rl_md_state *st, unsigned int i,
			   const struct rl_msb_state *msb)
{
	if (memcmp(msb->uuid, st->uuid, 16))
		return "the disk belongs to another array";
	if (msb->role != i)
		return "the disk had another role";
	if (memcmp(msb->dev_uuid, st->members[i].dev_uuid, 16))
		return "the disk is not the one the role lost";
	if (msb->events > st->events)
		return "the disk's superblock is newer than the metadata";
	return NULL;
}

/*
 * Whether @msb is a disk that may take failed role @i: a spare of this
 * array, or the spare that was taking the role when the commit giving it
 * was cut short (its superblock written, the metadata not: events one
 * ahead). Either is rebuilt from the start. The failed disk itself is
 * not: its superblock is behind the metadata's events.
 */
bool rl_md_taking_role(const struct rl_md_state *st, unsigned int i,
		       const struct rl_msb_state *msb)
{
	if (memcmp(msb->uuid, st->uuid, 16))
		return false;
	return msb->role == RL_ROLE_SPARE ||
	       (msb->role == i && msb->events == st->events + 1);
}

/*
 * Whether @msb may be a spare of the array: a spare of it, or a disk that
 * was a member and whose role the metadata gives to another disk (swapped
 * out, or replaced, with its superblock not rewritten since).
 */
bool rl_md_spare_ok(const struct rl_md_state *st,
		    const struct rl_msb_state *msb)
{
	if (memcmp(msb->uuid, st->uuid, 16))
		return false;
	if (msb->role == RL_ROLE_SPARE)
		return true;
	return msb->role < st->nr_members &&
	       memcmp(msb->dev_uuid, st->members[msb->role].dev_uuid, 16);
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
