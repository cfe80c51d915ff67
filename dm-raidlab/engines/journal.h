/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab write-hole journal: a ring of records in a metadata record
 * area (metadata.h), kept on pmem through DAX as dm-writecache keeps its
 * metadata.
 *
 * The write hole: a partial-row write updates data and parity with
 * separate member writes. A crash between them leaves the row's parity
 * out of step with its data. With every member present the write-intent
 * bitmap makes the resync recompute it; with a member missing (failed
 * before or lost by the crash) nothing can: the missing member's chunk,
 * rebuilt from the inconsistent row, is wrong, and that is data which was
 * acknowledged and flushed long ago.
 *
 * The journal closes it. Before the stripe engine issues the member writes
 * of a partial-row write (the plan's write phase), it appends a record
 * holding every one of them, new data and new parity, and makes it
 * durable. When the writes have landed (they carry REQ_FUA, so "landed"
 * means durable even on members with a volatile cache), the record is
 * made invalid, durably, before the row is released. A crash leaves valid
 * only the records whose writes may be torn; the next construction writes
 * them again, in sequence order, on every member that is present, so each
 * such row holds the journaled (consistent) values whatever member is
 * missing. A full-row write is not journaled: it holds no acknowledged
 * data of the row, all of which it rewrites, and a torn one leaves only
 * its own unacknowledged data in doubt.
 *
 * Ring layout (struct rl_md_area blocks of RL_MD_BLOCK bytes): a record
 * is one header block (struct rl_jnl_hdr at its start) then its payload,
 * the new data of each (member, span) entry in entry order, sector after
 * sector, rounded up to whole blocks. Records are placed one after the
 * other and never wrap: one that does not fit before the end of the ring
 * starts again at block 0.
 */
#ifndef DM_RAIDLAB_JOURNAL_H
#define DM_RAIDLAB_JOURNAL_H

#include <linux/types.h>

#include "../raidlab.h"

#define RL_JNL_MAGIC		0x314c4e4a42414c52ULL	/* "RLABJNL1" */
#define RL_JNL_CSUM_XOR		0x4a4e4c31U
#define RL_JNL_AREA_ID		0x4c4e4a52U		/* "RJNL" */
#define RL_JNL_MIN_BLOCKS	2048			/* 8 MiB */
#define RL_JNL_MAX_BLOCKS	1048576U		/* 4 GiB */

struct rl_jnl_ent_disk {
	__le32 member;
	__le32 lo;			/* sectors within the row's chunk */
	__le32 hi;
} __packed;

struct rl_jnl_hdr {
	__le32 csum;			/* crc32c of the rest and the payload */
	__le32 nr;			/* entries */
	__le64 magic;			/* RL_JNL_MAGIC */
	__le64 seq;			/* replay order */
	__le64 row;
	__le64 pos;			/* its own block in the ring */
	__le32 blocks;			/* the record's, header included */
	__le32 payload;			/* sectors */
	u8 uuid[16];			/* the array's */
	struct rl_jnl_ent_disk ent[RL_MAX_MEMBERS];
} __packed;

/* ------------------------------------------------------------------------
 * Pure helpers (KUnit suite dm_raidlab_journal)
 */

/* A record in CPU form. */
struct rl_jnl_rec {
	u64 seq;
	u64 row;
	u64 pos;
	u32 blocks;
	u32 payload;
	unsigned int nr;
	struct {
		unsigned int member;
		u32 lo, hi;
	} ent[RL_MAX_MEMBERS];
};

/* Ring blocks a record of @payload sectors takes. */
u32 rl_jnl_rec_blocks(u32 payload);
/*
 * Fill @rec's entries from a plan's writes (struct rl_plan, stripe.h):
 * every member with a write span, in member order. Returns the payload
 * in sectors.
 */
struct rl_plan;
u32 rl_jnl_rec_from_plan(struct rl_jnl_rec *rec, const struct rl_plan *p,
			 unsigned int nr_members);
/*
 * Encode @rec into @hdr with the checksum of the header alone; the caller
 * runs rl_jnl_csum_add() over the payload, in entry order, then
 * rl_jnl_seal().
 */
u32 rl_jnl_hdr_encode(const struct rl_jnl_rec *rec, const u8 uuid[16],
		      struct rl_jnl_hdr *hdr);
u32 rl_jnl_csum_add(u32 csum, const void *data, size_t len);
void rl_jnl_seal(struct rl_jnl_hdr *hdr, u32 csum);
/*
 * Validate the header found at ring block @pos of a ring of @ring_blocks
 * for an array of @nr_members members, @chunk sectors a chunk: magic,
 * uuid, position, entries (members in increasing order, spans within the
 * chunk), size. Returns 0 and the running checksum in *csum (continue it
 * over the payload, then rl_jnl_csum_ok()), -ENODATA for a block that
 * holds no record, -EINVAL for a damaged or foreign one.
 */
int rl_jnl_hdr_decode(const struct rl_jnl_hdr *hdr, u64 pos, u64 ring_blocks,
		      const u8 uuid[16], unsigned int nr_members, u32 chunk,
		      struct rl_jnl_rec *rec, u32 *csum);
bool rl_jnl_csum_ok(const struct rl_jnl_hdr *hdr, u32 csum);

/*
 * Ring space. Positions are absolute block counts (ring block = position
 * modulo size); records are reserved in sequence order and released in
 * any order; the tail moves past released records only, in order.
 */
struct rl_jnl_slot {
	u64 start;			/* absolute first block of the record */
	u64 end;			/* and the block after it */
	bool busy;			/* reserved, not released */
};

struct rl_jnl_ring {
	u64 size;			/* blocks */
	u64 head;			/* next free block (absolute) */
	u64 tail;			/* first block in use (absolute) */
	u64 next_seq;			/* seq of the next record */
	u64 tail_seq;			/* oldest record not yet passed */
	unsigned int nr_slots;		/* power of two: records in flight */
	struct rl_jnl_slot *slots;
};

void rl_jnl_ring_init(struct rl_jnl_ring *r, u64 size, u64 seq,
		      struct rl_jnl_slot *slots, unsigned int nr_slots);
/*
 * Reserve @blocks for the next record: its seq in *seq and its ring block
 * in *pos. Returns false when the ring (or the slot table) is full.
 */
bool rl_jnl_ring_reserve(struct rl_jnl_ring *r, u32 blocks, u64 *seq,
			 u64 *pos);
/* Release record @seq. Returns true if the tail moved (space freed). */
bool rl_jnl_ring_release(struct rl_jnl_ring *r, u64 seq);
u64 rl_jnl_ring_used(const struct rl_jnl_ring *r);

/*
 * Replay selection: of @n records found valid in the ring, the ones to
 * replay, sorted by seq in place. The records of one life of the ring
 * have distinct seqs (every valid record is invalidated before the ring
 * is used again), so a seq found twice means damage: both are dropped.
 * Returns how many are left at the front of @recs.
 */
unsigned int rl_jnl_select(struct rl_jnl_rec *recs, unsigned int n);

/* ------------------------------------------------------------------------
 * The service (journal.c)
 */
struct rl_jnl;

/*
 * Set up the journal of @a (a parity scheme with a metadata device, the
 * stripe contexts counted in a->stripe_cache): replay what a crash left in
 * the journal area if there is one, then, if a->journal and the metadata
 * backend ask for a journal (on; auto: on DAX), find or make the area and
 * set a->jnl; a->jnl stays NULL otherwise. On error sets *error.
 */
int rl_jnl_init(struct rl_array *a, char **error);
void rl_jnl_free(struct rl_array *a);
/*
 * Replay every record left valid by a crash, in seq order, onto the
 * members present (synchronous writes), flush them and empty the ring.
 * rl_jnl_init() calls it, before any I/O, whether or not this table
 * journals: records a crash left must be replayed before any write that
 * is not journaled. Returns the number of records replayed or a negative
 * errno.
 */
int rl_jnl_recover(struct rl_jnl *j);
/* Whether the writes of plan @p are journaled (pure, see journal.c). */
struct rl_geom;
bool rl_jnl_wanted(const struct rl_plan *p, const struct rl_geom *g);

/* A context waiting for ring space: @work is queued when there is some. */
struct rl_jnl_waiter {
	struct list_head node;
	struct work_struct *work;
};

/*
 * Log the writes of plan @p, whose new data and parity are in @bufs (one
 * chunk buffer per member), and make the record durable. Returns 0 with
 * its seq in *seq; -EAGAIN if the ring is full: @w is queued and the
 * caller tries again when its work runs; -EIO if the metadata failed.
 * Sleeps only on bufio. No allocation.
 */
int rl_jnl_log(struct rl_jnl *j, const struct rl_plan *p,
	       struct page **const *bufs, struct rl_jnl_waiter *w, u64 *seq);
/* The writes of record @seq have landed: invalidate it, free its space. */
void rl_jnl_done(struct rl_jnl *j, u64 seq);
/* Counts for the status line. Any context. */
void rl_jnl_counts(struct rl_jnl *j, u64 *records, u64 *bytes, u64 *waits);
const char *rl_jnl_backend(struct rl_jnl *j);

#endif /* DM_RAIDLAB_JOURNAL_H */
