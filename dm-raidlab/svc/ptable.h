/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab persistent tables: a fixed array of small entries (a remap
 * table, a deferred-write table, a hot-area map) kept in a metadata record
 * area, DAX or dm-bufio alike (metadata.h), and changed by atomic
 * multi-entry commits. A small redo log, not persistent-data: see
 * Documentation/architecture.rst, "Persistent tables".
 *
 * Area layout, in 4 KiB blocks:
 *
 *   0       header (struct rl_pt_hdr): entry size and count
 *   1, 2    log slots: commit n's record (struct rl_pt_rec, then its
 *           entries: index and bytes) goes to slot 1 + (n & 1)
 *   3 ..    the table: RL_MD_BLOCK / entry_size entries a block
 *
 * Commit n writes its record to its slot and makes it durable with one
 * persist, which also makes commit n - 1's table writes durable; then it
 * writes its entries into the table (durable at commit n + 1's persist, or
 * at rl_ptable_sync()). The slot held commit n - 2, whose table writes were
 * durable at commit n - 1's persist. Loading replays the valid records of
 * both slots, in seq order, and persists: a torn record fails its checksum
 * and none of its entries had been written. So a commit is all or nothing
 * and costs one persist (DAX: flushed stores and a fence; dm-bufio: the
 * dirty blocks written, then a flush).
 *
 * Format zeroes the slots and the table and writes the header, with one
 * persist. A header that does not validate while neither slot holds a
 * valid record is a format a crash tore (no commit can have happened:
 * the last two commits' records stay in the slots), and is formatted
 * again; with a valid record it is damage, and the open fails.
 */
#ifndef DM_RAIDLAB_PTABLE_H
#define DM_RAIDLAB_PTABLE_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "metadata.h"

#define RL_PT_MAGIC		0x3130425441504c52ULL	/* "RLPATB01" */
#define RL_PT_REC_MAGIC		0x3130434552504c52ULL	/* "RLPREC01" */
#define RL_PT_VERSION		1
#define RL_PT_HDR_CSUM_XOR	0x7054a1b3U
#define RL_PT_REC_CSUM_XOR	0x52c0e11dU
#define RL_PT_MAX_ENTRY		512	/* bytes */
#define RL_PT_TABLE_START	3	/* block */

struct rl_pt_hdr {
	__le32 csum;			/* rl_md_csum() of the block, ^ HDR_CSUM_XOR */
	__le32 version;			/* RL_PT_VERSION */
	__le64 magic;			/* RL_PT_MAGIC */
	__le32 entry_size;		/* bytes */
	__le32 reserved;
	__le64 nr_entries;
} __packed;

struct rl_pt_rec {
	__le32 csum;			/* rl_md_csum() of the block, ^ REC_CSUM_XOR */
	__le32 nr;			/* entries that follow */
	__le64 magic;			/* RL_PT_REC_MAGIC */
	__le64 seq;			/* commit number, from 1 */
	__le32 entry_size;
	__le32 reserved;
	/* then nr times: __le64 index, entry_size bytes */
} __packed;

/*
 * Where a table's area lives: a metadata record area (rl_ptable_open()),
 * or memory (the KUnit suite, which tears writes at a persist). Byte
 * offsets are from the area's start; writes are durable after ->persist.
 */
struct rl_pt_store {
	int (*read)(struct rl_pt_store *st, u64 pos, void *dst, size_t len);
	int (*write)(struct rl_pt_store *st, u64 pos, const void *src,
		     size_t len);
	int (*persist)(struct rl_pt_store *st);
};

struct rl_ptable {
	struct rl_pt_store *st;
	struct mutex lock;		/* commits; reads against a commit */
	u32 entry_size;
	u64 nr_entries;
	u64 seq;			/* the last commit */
	bool failed;			/* a persist failed: read-only */
	u64 commits;			/* since open */
	void *buf;			/* RL_MD_BLOCK: load and replay */
	/* the metadata store, for rl_ptable_open() */
	struct rl_pt_md_store {
		struct rl_pt_store st;
		struct rl_md *md;
		struct rl_md_area area;
	} md;
};

/* A commit being built, in a record block of its own (see rl_pt_txn_set()). */
struct rl_pt_txn {
	struct rl_ptable *pt;
	unsigned int nr;
	void *rec;			/* RL_MD_BLOCK */
};

/* Area blocks a table of @nr entries of @size bytes needs. */
u64 rl_ptable_blocks(u32 size, u64 nr);
/* Entries a commit may change at most, for entries of @size bytes. */
unsigned int rl_ptable_txn_max(u32 size);

/*
 * Open table @id of @nr entries of @size bytes in @md's record area @id,
 * making and formatting it if there is none. Replays the log. Returns 0
 * or a negative errno with *error set. Sleeps (construction).
 */
int rl_ptable_open(struct rl_md *md, u32 id, u32 size, u64 nr,
		   struct rl_ptable **ptp, char **error);
/* The same over any store (KUnit); @fresh: format without looking. */
int rl_ptable_open_store(struct rl_pt_store *st, u32 size, u64 nr,
			 bool fresh, struct rl_ptable **ptp, char **error);
void rl_ptable_close(struct rl_ptable *pt);

/* Read entry @idx into @entry. 0, -ERANGE or -EIO. Sleeps. */
int rl_ptable_get(struct rl_ptable *pt, u64 idx, void *entry);
/*
 * Make @t's changes durable, all or none, then reset @t. 0, or -EIO (the
 * table turns read-only: after a reload the commit may or may not be
 * there, as after a crash). Sleeps.
 */
int rl_ptable_commit(struct rl_ptable *pt, struct rl_pt_txn *t);
/* Make the table blocks durable too (a clean close). Sleeps. */
int rl_ptable_sync(struct rl_ptable *pt);

int rl_pt_txn_init(struct rl_pt_txn *t, struct rl_ptable *pt);
void rl_pt_txn_exit(struct rl_pt_txn *t);
void rl_pt_txn_reset(struct rl_pt_txn *t);
/*
 * Stage entry @idx = @entry (a later set of the same index wins). 0,
 * -ERANGE, or -ENOSPC past rl_ptable_txn_max(): commit and go on.
 */
int rl_pt_txn_set(struct rl_pt_txn *t, u64 idx, const void *entry);

#endif /* DM_RAIDLAB_PTABLE_H */
