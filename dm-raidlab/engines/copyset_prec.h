/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab copy-set engine: the durable records of delayed
 * propagations (sr's "propagate bg" over a DAX metadata device; paper
 * 002 section 3.4's NVRAM table, spec section 4.2).
 *
 * A write whose other replicas wait goes, on each copy, to the replica
 * its member's queue policy finds nearest when it issues it. Before that
 * write is submitted, a record of where it goes is made durable:
 *
 *   struct rl_cs_prec_disk (32 bytes, little endian)
 *     csum     crc32c of the bytes after it, ^ RL_CS_PREC_CSUM_XOR
 *     magic    RL_CS_PREC_MAGIC; 0: a free slot
 *     seq      the order records were written in, from 1
 *     lsector  the write's first logical sector, len its sectors
 *     copy     the copy it went to, rep the replica of that copy
 *
 * Slot (entry * copies + copy) holds entry's record for that copy, in a
 * record area of the metadata device (RL_CS_PREC_AREA_ID). A record is
 * written with memcpy_flushcache() and a fence; a torn one fails its
 * checksum, and its write was never submitted. Once the entry's other
 * replicas are written and the members flushed, its records are cleared
 * (the magic zeroed and fenced before the entry is freed: a record left
 * over would replay its replica over a later write to the chunk, which
 * no entry pins to that replica any more).
 *
 * Suspending leaves the records (and the entries) as they are. Before
 * the next load goes live (->preresume), an entry each of whose copies
 * has a record is taken back into the table (rl_cs_prec_group()), in seq
 * order, READY, at its own index, so that its slots stay its own: it is
 * propagated in the background, as it would have been, and reads of its
 * range keep to its replica until then. Every other valid record (an
 * entry with a copy whose write was never recorded, so its replicas hold
 * older data than the others; a slot the table no longer has; or no
 * table in the background: propagate fg, no pmem) is replayed in seq order
 * then: its replica is copied over every other replica of every copy.
 * The entries of a chunk name the same replicas (copyset_ptab.h), so
 * that the records of overlapping writes agree, and seq order puts a
 * record left over before a newer one. This file's encode, decode,
 * grouping and replay order are pure (KUnit suite
 * dm_raidlab_copyset_prec).
 */
#ifndef DM_RAIDLAB_COPYSET_PREC_H
#define DM_RAIDLAB_COPYSET_PREC_H

#include <linux/types.h>

#define RL_CS_PREC_AREA_ID	0x54505352U	/* "RSPT" */
#define RL_CS_PREC_MAGIC	0x31434552U	/* "REC1" */
#define RL_CS_PREC_CSUM_XOR	0x5ac396e1U
#define RL_CS_PREC_SIZE		32

struct rl_cs_prec_disk {
	__le32 csum;
	__le32 magic;
	__le64 seq;
	__le64 lsector;
	__le32 len;
	u8 copy;
	u8 rep;
	__le16 reserved;
} __packed;

/* A record in core. */
struct rl_cs_prec {
	u64 seq;
	u64 lsector;
	u32 len;
	u8 copy;
	u8 rep;
};

/* What a record may describe: an array's copies, replicas and length. */
struct rl_cs_prec_bounds {
	unsigned int copies;
	unsigned int dr;
	u64 sectors;
	unsigned int chunk_shift;	/* a record lies within one chunk */
};

/* The copies an entry taken back may have (a member each, at most). */
#define RL_CS_PREC_MAX_COPIES	32

/* An entry whose records a load takes back (rl_cs_prec_group()). */
struct rl_cs_prec_ent {
	u64 seq;		/* its first record's: the order entries wait in */
	u64 last;		/* its last record's */
	u64 lsector;
	u32 len;
	u32 idx;		/* the entry: slots idx * copies + copy */
	u8 rep[RL_CS_PREC_MAX_COPIES];	/* each copy's replica */
};

void rl_cs_prec_encode(const struct rl_cs_prec *r, struct rl_cs_prec_disk *d);
int rl_cs_prec_decode(const struct rl_cs_prec_disk *d,
		      const struct rl_cs_prec_bounds *b, struct rl_cs_prec *r);
unsigned int rl_cs_prec_collect(const struct rl_cs_prec_disk *slots,
				unsigned int n,
				const struct rl_cs_prec_bounds *b,
				struct rl_cs_prec *out, unsigned int *bad);
unsigned int rl_cs_prec_group(const struct rl_cs_prec_disk *slots,
			      unsigned int n, unsigned int nr,
			      const struct rl_cs_prec_bounds *b,
			      struct rl_cs_prec_ent *out);

#endif /* DM_RAIDLAB_COPYSET_PREC_H */
