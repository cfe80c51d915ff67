/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab per-member bad-block lists, as md keeps one per rdev.
 *
 * In memory each member's list is a struct badblocks of the kernel's
 * library (<linux/badblocks.h>): md's u64 entries (BB_MAKE: offset in
 * member sectors after data_offset, length 1 .. BB_MAX_LEN, the ack bit),
 * sorted, at most MAX_BADBLOCKS of them.
 *
 * On the metadata device the lists are a record area the core owns,
 * RL_BBL_AREA_ID, of RL_BBL_COPIES blocks per member: member m's copies
 * are blocks 2m and 2m + 1 of the area. A write goes to the copy that
 * does not hold the newest list, with seq + 1, and is made durable; a
 * torn write (bad checksum) leaves the other copy, the previous list. A
 * blank copy is an empty list of seq 0. Every entry on disk is
 * acknowledged: a list is written before anything that depends on it
 * completes.
 */
#ifndef DM_RAIDLAB_BBL_H
#define DM_RAIDLAB_BBL_H

#include <linux/types.h>

#include "metadata.h"

#define RL_BBL_AREA_ID		0x304c4242U	/* "BBL0" */
#define RL_BBL_CSUM_XOR		0x62b1b10cU
#define RL_BBL_COPIES		2
#define RL_BBL_HDR_BYTES	32
/* entries a block holds: 508, below MAX_BADBLOCKS (512 with 4 KiB pages) */
#define RL_BBL_MAX_ENTRIES	((RL_MD_BLOCK - RL_BBL_HDR_BYTES) / 8)

/* One copy of a member's list, a 4 KiB metadata block. */
struct rl_bbl_disk {
	__le32 csum;			/* crc32c after csum, ^ RL_BBL_CSUM_XOR */
	__le32 reserved;
	__le64 blocknr;			/* its own metadata block number */
	__le64 seq;			/* writes of this member's list */
	__le32 count;			/* entries used */
	__le32 reserved2;
	__le64 entries[RL_BBL_MAX_ENTRIES];	/* BB_MAKE(off, len, 1), ascending */
} __packed;

/* A list as the pure helpers see it (CPU endian). */
struct rl_bbl_list {
	u64 seq;
	unsigned int count;
	u64 entries[RL_BBL_MAX_ENTRIES];
};

/* The checksum a block's csum field must hold. */
u32 rl_bbl_csum(const void *block);
/* Fill a 4 KiB block (zeroed first, csum set) from @l (count capped). */
void rl_bbl_encode(u64 blocknr, const struct rl_bbl_list *l, void *block);
/*
 * Validate and decode one copy read at metadata block @blocknr, whose
 * entries must end at or below @limit (member sectors). Returns 0,
 * -ENODATA for a blank block, -EBADMSG for a bad checksum (torn), or
 * -EINVAL (misplaced, count past RL_BBL_MAX_ENTRIES, an entry out of
 * order, overlapping, unacknowledged or past @limit, bytes after the
 * entries), with *error set.
 */
int rl_bbl_decode(const void *block, u64 blocknr, u64 limit,
		  struct rl_bbl_list *l, char **error);
/*
 * A member's list from its two copies @b0 (at @blocknr) and @b1 (at
 * @blocknr + 1): the valid copy with the larger seq; a torn copy is
 * ignored, a blank one is an empty list of seq 0. Returns the copy taken
 * (0 or 1), -ENODATA if both are blank (@l empty), or -EINVAL with *error
 * set: a copy that validates but is not this block, or both copies torn
 * (no single torn write leaves that).
 */
int rl_bbl_pick(const void *b0, const void *b1, u64 blocknr, u64 limit,
		struct rl_bbl_list *l, char **error);

/* ------------------------------------------------------------------------
 * The service (bbl.c). a->bbl is NULL without a metadata device.
 */
struct rl_array;
struct badblocks;

/*
 * After rl_md_open(): find (or allocate, and write empty) the area and
 * load every member's list. An array without the area and no room for it
 * keeps volatile lists (the kernel log says so once). Process context.
 */
int rl_bbl_open(struct rl_array *a, char **error);
void rl_bbl_close(struct rl_array *a);
/* Members with an entry in [@msector, @msector + @len). Any context. */
unsigned long rl_bbl_members(struct rl_array *a, sector_t msector,
			     sector_t len);
/* @bb has all of [@s, @s + @len) (rl_bbl_record(); exported for KUnit). */
bool rl_badblocks_cover(struct badblocks *bb, sector_t s, sector_t len);
/*
 * Record [@msector, @msector + @len) of member @m bad, in memory (a range
 * listed already changes nothing); it is durable after rl_bbl_persist().
 * Returns -ENOSPC when the list is full (the caller fails the member).
 * Any context.
 */
int rl_bbl_record(struct rl_array *a, unsigned int m, sector_t msector,
		  sector_t len);
/*
 * Clear a range of member @m's list, in memory. Process context: the
 * kernel's badblocks_clear() enables interrupts.
 */
int rl_bbl_clear(struct rl_array *a, unsigned int m, sector_t msector,
		 sector_t len);
/*
 * Make every changed list durable (at once if none changed). Returns 0,
 * or -EIO if the metadata failed. Sleeps.
 */
int rl_bbl_persist(struct rl_array *a);
/* The same from a work item, for what nothing waits on. Any context. */
void rl_bbl_persist_async(struct rl_array *a);
/* A new disk takes role @m: its list starts empty (durable). Sleeps. */
void rl_bbl_reset(struct rl_array *a, unsigned int m);
/*
 * Member @m's list into @result, one "<sector> <length>" line per entry
 * (member sectors after data_offset), cut at @maxlen; "none" without
 * lists. Returns the bytes written. Any context.
 */
unsigned int rl_bbl_show(struct rl_array *a, unsigned int m, char *result,
			 unsigned int maxlen);
/* Entries in member @m's list. Any context. */
unsigned int rl_bbl_count(struct rl_array *a, unsigned int m);

#endif /* DM_RAIDLAB_BBL_H */
