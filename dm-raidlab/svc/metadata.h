/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab metadata service: the state of an array that must survive a
 * crash, kept on a metadata device named in the table line (pmem through
 * DAX, or any block device through dm-bufio), and the small superblock at
 * the start of every member.
 *
 * Metadata device layout, in 4 KiB blocks:
 *
 *   0, 1     superblock slots (struct rl_md_sb). A commit writes the slot
 *            the last commit did not, with seq + 1, and makes it durable;
 *            loading takes the valid slot with the larger seq. A torn
 *            commit leaves the other slot, the previous state, valid.
 *   2 ..     the write-intent bitmap: one bit per region of member space
 *            (1 << region_shift member sectors), set and durable before a
 *            write that could leave redundancy inconsistent reaches a
 *            member in that region, cleared lazily once the region is
 *            idle and the members flushed. A block a crash tore (bad
 *            checksum, or blank) makes all of its regions dirty.
 *   then     record areas (struct rl_md_area) that schemes register:
 *            parity logs, floating maps, deferred-write tables...; and
 *            the core's bad-block lists (bbl.h, "BBL0"). A new
 *            one goes after everything placed; loading accepts any
 *            placement that overlaps nothing and fits the device.
 *
 * Member layout: sectors 0 .. 7 hold struct rl_msb, sectors up to
 * RL_MD_DATA_OFFSET are reserved, data starts at RL_MD_DATA_OFFSET.
 * Arrays without a metadata device keep data from sector 0 and carry no
 * member superblock.
 *
 * A zeroed metadata device (both slots all zeroes) is a new array: the
 * target formats it (new uuid, every member in sync unless the table asks
 * for a resync) and writes the member superblocks. Anything else must
 * validate, and must describe the array the table line describes.
 *
 * All on-disk integers are little endian; every block carries a crc32c of
 * its bytes after the csum field, seeded with ~0 and xored with a
 * per-structure constant so a block of one kind never validates as
 * another.
 */
#ifndef DM_RAIDLAB_METADATA_H
#define DM_RAIDLAB_METADATA_H

#include <linux/types.h>

#define RL_MD_BLOCK		4096
#define RL_MD_BLOCK_SECTORS	(RL_MD_BLOCK >> 9)
#define RL_MD_MAGIC		0x3130444d42414c52ULL	/* "RLABMD01" */
#define RL_MSB_MAGIC		0x3130424d42414c52ULL	/* "RLABMB01" */
#define RL_MD_VERSION		1
#define RL_MD_SB_CSUM_XOR	0x52d1a5b0U
#define RL_MSB_CSUM_XOR		0x4d53b0a1U
#define RL_MD_BITMAP_CSUM_XOR	0x42d1b17aU
#define RL_MD_DATA_OFFSET	2048	/* member sectors before data: 1 MiB */
#define RL_MD_MAX_MEMBERS	32	/* == RL_MAX_MEMBERS */
#define RL_MD_MAX_AREAS		8
#define RL_MD_SCHEME_LEN	16
#define RL_MD_MIN_REGION	8	/* sectors: a region is at least a page */
#define RL_MD_DEFAULT_REGION	2048	/* sectors: default regions are at least 1 MiB */
#define RL_MD_MAX_REGION_SHIFT	40
#define RL_MD_DEFAULT_REGIONS	65536	/* the default region size aims below */
#define RL_MD_MAX_REGIONS	BIT(20)	/* in-core counts: 4 MiB at most */

/* superblock flags */
#define RL_MD_CLEAN		BIT(0)	/* shut down cleanly: no intent bit is live */

/*
 * feature masks. ro_compat: a version that does not know the feature may
 * not write the superblock (it would drop the feature's field); version
 * 1's loader refuses any bit it does not know, and any byte after the
 * structure it knows.
 */
#define RL_MD_RO_COMPAT_HOMEHOST BIT(0)	/* rl_md_sb.homehost is set (1.21) */
#define RL_MD_COMPAT_SUPP	0U
#define RL_MD_INCOMPAT_SUPP	0U
#define RL_MD_RO_COMPAT_SUPP	RL_MD_RO_COMPAT_HOMEHOST

/* the host the array belongs to: letters, digits, '.', '_', '-' */
#define RL_MD_HOMEHOST_LEN	64	/* NUL included */

/* member states (struct rl_md_member.state) */
enum rl_member_state {
	RL_MS_IN_SYNC = 1,	/* holds its data */
	RL_MS_FAILED = 2,	/* failed or missing: holds nothing */
	RL_MS_REBUILDING = 3,	/* in sync below cursor, being rebuilt above */
};

/* member superblock roles besides a member index */
#define RL_ROLE_SPARE		0xfffffffeU

struct rl_md_member_disk {
	__le32 state;			/* enum rl_member_state */
	__le32 reserved;
	__le64 cursor;			/* REBUILDING: member sectors done */
	u8 dev_uuid[16];		/* the disk in this role (its rl_msb) */
} __packed;

struct rl_md_area_disk {
	__le32 id;			/* the scheme's choice, unique in the sb */
	__le32 reserved;
	__le64 start;			/* metadata block */
	__le64 blocks;
} __packed;

struct rl_md_sb {
	__le32 csum;
	__le32 flags;			/* RL_MD_CLEAN */
	__le64 magic;			/* RL_MD_MAGIC */
	__le32 version;			/* RL_MD_VERSION */
	__le32 compat;
	__le32 incompat;
	__le32 ro_compat;
	__le64 seq;			/* commit number */
	__le64 events;			/* membership changes */
	u8 uuid[16];			/* the array */
	char scheme[RL_MD_SCHEME_LEN];	/* NUL padded */
	__le32 nr_members;
	__le32 chunk_sectors;
	__le64 data_offset;		/* member sectors before data */
	__le64 member_sectors;		/* data sectors used on each member */
	__le64 array_sectors;		/* the target's length */
	__le64 resync_cursor;		/* member sectors known consistent */
	__le64 mismatches;		/* found by the last check or repair */
	__le32 region_shift;		/* intent region: 1 << shift member sectors */
	__le32 nr_areas;
	__le64 nr_regions;
	__le64 bitmap_start;		/* metadata block */
	__le64 bitmap_blocks;
	struct rl_md_area_disk areas[RL_MD_MAX_AREAS];
	struct rl_md_member_disk members[RL_MD_MAX_MEMBERS];
	char homehost[RL_MD_HOMEHOST_LEN];	/* NUL padded; RL_MD_RO_COMPAT_HOMEHOST */
} __packed;

/* A bitmap block: a header, then bits (region = block * RL_MD_BITS_PER_BLOCK + bit) */
struct rl_md_bitmap_disk {
	__le32 csum;
	__le32 reserved;
	__le64 blocknr;			/* its own block number */
	__le64 seq;			/* last write */
	u8 bits[RL_MD_BLOCK - 24];
} __packed;

#define RL_MD_BITS_PER_BLOCK	((RL_MD_BLOCK - 24) * 8)

struct rl_msb {
	__le32 csum;
	__le32 flags;
	__le64 magic;			/* RL_MSB_MAGIC */
	__le32 version;
	__le32 role;			/* member index, or RL_ROLE_SPARE */
	u8 uuid[16];			/* the array's */
	u8 dev_uuid[16];		/* this disk's */
	__le64 events;			/* the array's events when last written */
	__le32 nr_members;
	__le32 chunk_sectors;
	__le64 data_offset;
	__le64 member_sectors;
	char scheme[RL_MD_SCHEME_LEN];
} __packed;

/* ------------------------------------------------------------------------
 * In-core forms (CPU endian). The encode/decode helpers are pure, so the
 * KUnit suite dm_raidlab_metadata tests them without a device.
 */
struct rl_md_member {
	enum rl_member_state state;
	u64 cursor;
	u8 dev_uuid[16];
};

struct rl_md_area {
	u32 id;
	u64 start;
	u64 blocks;
};

struct rl_md_state {
	u32 flags;
	u64 seq;
	u64 events;
	u8 uuid[16];
	char scheme[RL_MD_SCHEME_LEN];
	u32 nr_members;
	u32 chunk_sectors;
	u64 data_offset;
	u64 member_sectors;
	u64 array_sectors;
	u64 resync_cursor;
	u64 mismatches;
	u32 region_shift;
	u64 nr_regions;
	u64 bitmap_start;
	u64 bitmap_blocks;
	u32 nr_areas;
	struct rl_md_area areas[RL_MD_MAX_AREAS];
	struct rl_md_member members[RL_MD_MAX_MEMBERS];
	char homehost[RL_MD_HOMEHOST_LEN];	/* "" if none */
};

struct rl_msb_state {
	u32 role;
	u8 uuid[16];
	u8 dev_uuid[16];
	u64 events;
	u32 nr_members;
	u32 chunk_sectors;
	u64 data_offset;
	u64 member_sectors;
	char scheme[RL_MD_SCHEME_LEN];
};

/*
 * The checksum of a @len-byte block whose first field is its __le32 csum:
 * crc32c of the bytes after it, seeded with ~0, xored with @xor (one
 * constant per kind of block). Every record of the metadata uses it.
 */
u32 rl_md_csum(const void *block, size_t len, u32 xor);
/* Fill a 4 KiB block (zeroed first, csum set) from @st. */
void rl_md_sb_encode(const struct rl_md_state *st, void *block);
/*
 * Validate a 4 KiB block and decode it. Returns 0, -ENODATA for a block of
 * zeroes, or -EINVAL with *error set to what is wrong (bad magic,
 * checksum, unsupported version or feature, impossible geometry).
 */
int rl_md_sb_decode(const void *block, struct rl_md_state *st, char **error);
/*
 * The checks rl_md_sb_decode() ends with, and assembly repeats with the
 * device's size: geometry, and every extent (bitmap, record areas) for
 * overflow, overlap with the slots and each other, and against a device
 * of @dev_blocks 4 KiB blocks (RL_MD_ANY_SIZE: not known). Record areas
 * may lie in any order. Returns 0 or -EINVAL with *error set.
 */
#define RL_MD_ANY_SIZE		U64_MAX
int rl_md_sb_check(const struct rl_md_state *st, u64 dev_blocks, char **error);
/* The first block past the slots, the bitmap and every record area. */
u64 rl_md_used_blocks(const struct rl_md_state *st);
void rl_msb_encode(const struct rl_msb_state *st, void *block);
int rl_msb_decode(const void *block, struct rl_msb_state *st, char **error);
/* A member superblock against the metadata (pure): what refuses it, or NULL */
char *rl_md_member_mismatch(const struct rl_md_state *st, unsigned int i,
			    const struct rl_msb_state *msb);
/* Whether @name may be a homehost: 1 .. 63 of [A-Za-z0-9._-] (pure) */
bool rl_md_homehost_ok(const char *name);
/* Whether it is failed role @i's own disk, back (pure): what refuses it, or NULL */
char *rl_md_readd_mismatch(const struct rl_md_state *st, unsigned int i,
			   const struct rl_msb_state *msb);
/* Whether it may take failed role @i (rebuilt from the start) */
bool rl_md_taking_role(const struct rl_md_state *st, unsigned int i,
		       const struct rl_msb_state *msb);
/* Whether it may be a spare: a spare, or a member whose role moved on */
bool rl_md_spare_ok(const struct rl_md_state *st,
		    const struct rl_msb_state *msb);

/*
 * The region of member sector @msector (relative to data_offset), and how
 * many regions cover @member_sectors with regions of 1 << @shift sectors.
 */
static inline u64 rl_md_region(const struct rl_md_state *st, u64 msector)
{
	return msector >> st->region_shift;
}

/* The default region shift: regions of at least @min_sectors, at most 65536 regions. */
u32 rl_md_default_region_shift(u64 member_sectors, u32 min_sectors);
u64 rl_md_nr_regions(u64 member_sectors, u32 shift);
u64 rl_md_bitmap_blocks(u64 nr_regions);

/*
 * Bitmap block @blocknr (a metadata block number) holding @nbits regions
 * (at most RL_MD_BITS_PER_BLOCK), from or into @bits, the in-core bitmap
 * of those regions (bit 0: the block's first region). Decode sets bits
 * only; it returns 0, -ENODATA for a zeroed block, -EBADMSG for a bad
 * checksum, or -EINVAL (misplaced block, a bit past the last region),
 * with *error set.
 */
void rl_md_bitmap_encode(u64 blocknr, u64 seq, const unsigned long *bits,
			 unsigned int nbits, void *block);
int rl_md_bitmap_decode(const void *block, u64 blocknr, unsigned long *bits,
			unsigned int nbits, char **error);
/*
 * A bitmap block as assembly takes it: decoded (0), or torn by a crash
 * (blank or a bad checksum: RL_MD_BITMAP_TORN, all @nbits regions set in
 * @bits, *error says why), or refused (-EINVAL, *error set: a block that
 * validates but is not this one, which no crash leaves).
 */
#define RL_MD_BITMAP_TORN	1
int rl_md_bitmap_load(const void *block, u64 blocknr, unsigned long *bits,
		      unsigned int nbits, char **error);

/* ------------------------------------------------------------------------
 * The service (metadata.c). All calls may sleep unless said otherwise.
 */
struct rl_md;
struct rl_array;
struct dm_dev;
struct block_device;

/*
 * Open @dev as the metadata of @a (geometry and members already set up and
 * opened): DAX if the device supports it, dm-bufio otherwise. Loads the
 * newest valid superblock or, for a zeroed device, formats a new one.
 * Checks it against the table (scheme, members, chunk, length) and reads
 * and checks every member superblock: a foreign uuid, a disk that is not
 * the one the metadata knows in that role, or a stale event count is
 * refused. On error sets *error and returns a negative errno.
 *
 * Members (a->members[i].dev, NULL for a missing one, "-" in the table):
 *   - new array: every member and spare must be blank (no valid rl_msb of
 *     any array); all become RL_MS_IN_SYNC (resync_cursor 0, or
 *     member_sectors with assume_clean), spares get RL_ROLE_SPARE.
 *   - state IN_SYNC or REBUILDING: the superblock must be this array's,
 *     role i, the dev_uuid the metadata holds for i, and events equal to
 *     the metadata's or one more (a commit torn after the member
 *     superblocks); a missing device is allowed (the core fails it).
 *   - state FAILED: a disk whose superblock is blank, or a spare of this
 *     array, is a replacement: its bit is set in a->replacements and the
 *     core rebuilds it. Any other disk stays failed.
 *   - spares (a->spares[j]): blank, or RL_ROLE_SPARE of this array.
 *
 * The metadata fails no member itself: a member I/O of its own that fails
 * (a member superblock write in rl_md_commit(), a flush before write-intent
 * bits clear) is reported to @member_error, with a reason, before the call
 * that did it returns; the metadata carries on without that member. The
 * core passes rl_member_fail(). Called in process context, possibly with
 * rl_md_lock() or the bitmap's mutex held: it must not take them.
 */
int rl_md_open(struct rl_array *a, struct dm_dev *dev,
	       void (*member_error)(struct rl_array *a, unsigned int m,
				    const char *why),
	       struct rl_md **mdp, char **error);
void rl_md_close(struct rl_md *md);
/*
 * The array whose metadata device is @dev (the device's claim, which
 * rl_md_open() takes and rl_md_close() drops): @fn runs with it under the
 * claims' lock, so the array is not freed meanwhile (its scheme may be
 * going). Returns @fn's result, -ENOENT if no array has the device, or
 * -EBUSY if one is still opening it. A table loaded over the live array
 * (dmsetup reload, target/reload.c) finds the array it takes over so.
 */
int rl_md_with_claimant(dev_t dev, int (*fn)(struct rl_array *a, void *ctx),
			void *ctx);
/*
 * A spare given to the array: a blank disk is claimed (a spare superblock
 * with a new uuid), a spare of the array taken as it is, a former member
 * whose role moved on made a spare; its disk uuid into @uuid. Anything
 * else is refused (*@error). Process context.
 */
int rl_md_take_spare(struct rl_md *md, struct dm_dev *dev, u8 uuid[16],
		     char **error);
/*
 * @dev replaces failed role @i (state FAILED): a blank disk, or a spare of
 * the array, as at a load (a->replacements); its disk uuid is the role's
 * from now on, committed with the role's next change. Anything else is
 * refused (*@error). Process context.
 */
int rl_md_take_role(struct rl_md *md, unsigned int i, struct dm_dev *dev,
		    char **error);
/*
 * @bdev's member superblock, read with an I/O client of its own (no
 * rl_md): 0, -ENODATA (blank), -EINVAL (*@why) or -EIO. Sleeps.
 */
int rl_msb_read_bdev(struct block_device *bdev, struct rl_msb_state *msb,
		     char **why);
/*
 * Whether a disk whose superblock read gave @read (rl_msb_read_bdev(),
 * into @msb) may be the array's spare (@role < 0) or take failed role
 * @role: what refuses it, or NULL. Blank and foreign-format disks are
 * claimed; a disk that cannot be read is refused. Process context.
 */
char *rl_md_disk_mismatch(struct rl_md *md, int role, int read,
			  const struct rl_msb_state *msb);
/* Record @name as the array's homehost, and commit. Process context. */
int rl_md_set_homehost(struct rl_md *md, const char *name);

/* The in-core state: change it under rl_md_lock(), then rl_md_commit(). */
struct rl_md_state *rl_md_state(struct rl_md *md);
void rl_md_lock(struct rl_md *md);
void rl_md_unlock(struct rl_md *md);
/*
 * Make the in-core state durable (two-phase, see above). With
 * @members_changed, bump events and rewrite every live member's
 * superblock first. Caller holds rl_md_lock(). On an I/O error the
 * metadata turns read-only (rl_md_failed()) and -EIO is returned.
 */
int rl_md_commit(struct rl_md *md, bool members_changed);
/* True once a metadata I/O failed: the array must refuse writes. Any context. */
bool rl_md_failed(struct rl_md *md);
/* "dax" or "bufio". Any context. */
const char *rl_md_backend(struct rl_md *md);
/* True if the device was formatted by this open (a new array). */
bool rl_md_new(struct rl_md *md);
/*
 * The disk uuid of spare @j (a->spares[j]): read from its superblock, or
 * made up at open for a blank disk. The core copies it into
 * state->members[m].dev_uuid when the spare takes role m.
 */
void rl_md_spare_uuid(struct rl_md *md, unsigned int j, u8 uuid[16]);
/* Spare @j is disk @uuid now (a role's disk became it). Under rl_md_lock(). */
void rl_md_set_spare_uuid(struct rl_md *md, unsigned int j,
			  const u8 uuid[16]);

/*
 * Write intent. rl_md_intent_start() returns once region @region's bit is
 * durable (at once if it already was); then the caller may write. Each
 * start is paired with an rl_md_intent_end() when the write has completed.
 * Returns -EIO if the metadata failed. Sleeps (stripe/mirror workers).
 */
int rl_md_intent_start(struct rl_md *md, u64 region);
/*
 * Map-time variant, any context: if region @region's bit is durable
 * already, count the write as started and return true (pair it with
 * rl_md_intent_end()); else return false and count nothing, and the caller
 * defers the write to a worker that calls rl_md_intent_start().
 */
bool rl_md_intent_try(struct rl_md *md, u64 region);
/* Any context. */
void rl_md_intent_end(struct rl_md *md, u64 region);
/*
 * Regions [@first, @first + @nr) dirty at load are consistent again (the
 * resync went past them): the clear pass may clear their bits. Until then
 * it keeps them, so a crash before the resync still finds them dirty.
 */
void rl_md_intent_resynced(struct rl_md *md, u64 first, u64 nr);
/*
 * Regions whose bit was set when the array was loaded after an unclean
 * shutdown: their redundancy must be made consistent before it is trusted.
 * The bitmap has state->nr_regions bits; NULL if none were set.
 */
const unsigned long *rl_md_dirty_at_load(struct rl_md *md);
/*
 * Clear the bits of idle regions: flush every live member, then clear and
 * commit. Called periodically by the service itself; exported for the
 * clean shutdown path (postsuspend), which also sets RL_MD_CLEAN (when no
 * bit is left: regions dirty at load and not resynced keep theirs). The
 * next intent_start() that sets a bit clears RL_MD_CLEAN first. Must not
 * be called under rl_md_lock() (the lock order is the bitmap's, then the
 * state's).
 */
int rl_md_intent_flush(struct rl_md *md, bool clean);
/*
 * The target is resumed: the next bit to be set first commits RL_MD_CLEAN
 * away, whoever set it meanwhile (a table suspended after this one was
 * loaded over the same device: a reload). Process context.
 */
void rl_md_resume(struct rl_md *md);
/*
 * Held regions. While a member is failed or re-added (a->failed,
 * a->readd), the clear pass keeps what it clears in memory, held: a
 * region with a write since the failure is then set, durable, pending
 * or held, until no member is out. rl_md_intent_touched() says whether
 * any of regions [@first, @last] is, beyond the metadata's regions
 * included. The held set lives as long as this rl_md: a role failed at
 * load has no record of what it missed. Any context.
 */
bool rl_md_intent_touched(struct rl_md *md, u64 first, u64 last);
/*
 * Whether failed member @m's disk @bdev may be re-added: its superblock
 * reads, and names the array, role @m and the disk the metadata knows in
 * the role (rl_md_readd_mismatch()). 0, or -EIO/-EINVAL with *@why set.
 * Process context.
 */
int rl_md_readd_check(struct rl_md *md, unsigned int m,
		      struct block_device *bdev, char **why);
/* Count of set bits (status), and intent writes so far. Any context. */
void rl_md_intent_counts(struct rl_md *md, u64 *dirty, u64 *writes);

/*
 * Record areas for schemes (parity logs, maps). rl_md_area_find() returns
 * the area @id, allocating @blocks at the end of the device at format time
 * (-ENOSPC if it does not fit); an existing area must have @blocks.
 * Blocks are then read and written through:
 *   rl_md_area_map()    DAX: a kernel pointer to the block (write it with
 *                       memcpy_flushcache(), order with rl_md_persist());
 *                       bufio: a pinned buffer's data (*bp to release)
 *   rl_md_area_dirty()  mark a mapped bufio block dirty (no-op on DAX)
 *   rl_md_area_unmap()  release it
 *   rl_md_persist()     everything written so far is durable
 * or, for byte ranges across blocks, through:
 *   rl_md_area_write()  copy into the area (DAX: memcpy_flushcache())
 *   rl_md_area_read()   copy out of it
 */
struct dm_buffer;
int rl_md_area_find(struct rl_md *md, u32 id, u64 blocks,
		    struct rl_md_area *area);
void *rl_md_area_map(struct rl_md *md, const struct rl_md_area *area,
		     u64 block, bool new, struct dm_buffer **bp);
void rl_md_area_dirty(struct rl_md *md, struct dm_buffer *b);
void rl_md_area_unmap(struct rl_md *md, struct dm_buffer *b);
int rl_md_area_write(struct rl_md *md, const struct rl_md_area *area,
		     u64 pos, const void *src, size_t len);
int rl_md_area_read(struct rl_md *md, const struct rl_md_area *area,
		    u64 pos, void *dst, size_t len);
int rl_md_persist(struct rl_md *md);

#endif /* DM_RAIDLAB_METADATA_H */
