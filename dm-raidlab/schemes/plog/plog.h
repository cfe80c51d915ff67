/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab parity logging (Stodolsky, Holland, Courtright, Gibson,
 * CMU-CS-93-200, "paper 000"): the parity-log region manager, a shared
 * service (plog_layout.c lists its files), and what the scheme (plog.c)
 * needs of it.
 *
 * LAYOUT (pure, struct rl_plog_layout). N members, chunk c sectors, f
 * failures tolerated (the table's faults: 1, parity; 2, P+Q check
 * information and the log replicated f times, paper §9 and Fig. 29). The
 * array is divided into B regions. Region r has f * L log members (nlog),
 *
 *   log member i  = (r * nlog + i) mod N,        i in [0, nlog)
 *   data member t = (r * nlog + nlog + t) mod N, t in [0, g), g = N - nlog
 *
 * log member i holds copy i / L of sublog i mod L: the f copies of a
 * sublog are on different members, and their contents are identical (a
 * record is the data's update image, not tied to one check block).
 *
 * so a sublog never shares a disk with the data it protects, and the log
 * role rotates over the members region by region. On each of its g data
 * members region r has a slice of S chunks (S a multiple of g): S - f*S/g
 * data chunks, then f*S/g check chunks (S/g P slots, then for f = 2 S/g Q
 * slots), so that the region's check information is block-striped over
 * its data members and read and written back with one sequential I/O per
 * member at reintegration (paper Fig. 8-9). On each of its nlog log
 * members it has a sublog of G chunks. A region holds S rows; a row has
 * cols = g - f data chunks and f check chunks. For f = 1:
 *
 *   row i: parity on data member p = i mod g, in parity slot i / g
 *          (member chunk: slice start + S - S/g + i / g)
 *          data column k (0 .. g-2) on data member t = k < p ? k : k + 1,
 *          in data slot (i / g) * (g - 1) + (p < t ? p : p - 1) ... see
 *          rl_plog_map(); logical data chunk x of the region is row
 *          x / cols, column x mod cols.
 *
 * For f = 2, row i's P is on data member p = i mod g in P slot i / g, its
 * Q on data member q = (i + 1) mod g in Q slot i / g, and its data columns
 * k = 0 .. cols - 1 on the other members in increasing t. Q is the
 * lib/raid6 syndrome of the row: column k weighs g^k.
 *
 * The log-to-parity ratio is A = L * G / S (paper §2.3): G follows from the
 * table's A, rounded to whole log segments.
 *
 * Members lay out regions one after another, each member its own way (a
 * slice where it is a data member, a sublog where it is a log member), so
 * region r starts on member m at
 *
 *   r * S + nlog(m, r) * (G - S) chunks,  nlog(m, r) = #{r' < r : m logs r'}
 *
 * Over a cycle of C = N / gcd(N, L) regions every member logs exactly
 * C * L / N of them, so a cycle spans the same member chunks on every
 * member; B is a multiple of C and every member uses the same span
 * (member_chunks). Member chunks here are relative to the array's
 * data_offset.
 *
 * B defaults to sqrt(TV / K) (TV: tracks on a member, K: tracks per log
 * write; §2.4), moved within +-10 % (and to a multiple of C) to the value
 * that wastes the least member space once S and G are rounded to whole
 * tracks (S * c and G * c multiples of track_sectors when a track is at
 * least a chunk). L defaults to the §6 balance rule (rl_plog_default_l()).
 *
 * SYNC COORDINATES. sync.c, the write-intent bitmap and rebuild cursors
 * speak member sectors. Region r's key is rl_plog_region_key(): the last
 * member sector (after data_offset) of its span on the member where that
 * span ends last. Keys grow with r. A write to region r marks the intent
 * region of its key; ->sync_range(msector, len) serves the one region
 * rl_plog_region_at(msector) (the first whose key >= msector) and reports
 * len up to key + 1; a member being rebuilt is readable in region r once
 * its cursor is past the key (rl_unreadable_at(a, key)).
 *
 * LOG SEGMENTS. A log write is one segment of K * track_sectors sectors.
 * Segment s of region r's current generation goes to sublog s mod L, at
 * sector (s / L) * seg_sectors of the sublog, on each of its f copies
 * (rl_plog_seg_loc(..., copy, ...)); a region's log holds
 * L * floor(G * c / seg_sectors) segments. A segment starts with
 * hdr_sectors of header (struct rl_plog_seg_disk and its records'
 * descriptors), then payload sectors. The header's crc32c covers header
 * and payload; a segment counts only if its region and generation match
 * the region table. Records are applied in log order (segment, then record
 * within the segment): sequential reintegration, the simple algorithm of
 * §2.5. A full-row write logs an OVERWRITE record holding the row's new
 * parity (§2.5), so that no parity is written outside reintegration.
 *
 * RECORDS AND f. For f = 1 an UPDATE's payload is the parity's update
 * image (the xor of old ^ new of the columns it covers) and col is 0. For
 * f = 2 an UPDATE covers one data column, col: its payload is that
 * column's old ^ new, applied as P ^= payload and Q ^= g^col * payload;
 * an OVERWRITE's col says which check block it sets (0: P, 1: Q), so a
 * full-row write logs two of them.
 *
 * DURABILITY. Log buffers are order-independent RAM images of segments
 * (vmalloc, written and read with whole-segment member I/O). With a DAX
 * metadata device each pool buffer has a twin in the record area
 * RL_PLOG_AREA_ID, kept equal to it with memcpy_flushcache()
 * (rl_plog_md_sync()), and the region table (generation, segments on
 * disk) lives there too: a crash loses no parity update. A record is
 * appended PENDING before its data write is issued and made COMMITTED when
 * the data write has completed; recovery applies committed records and
 * recomputes from data the parity of rows with a pending one (the data
 * write may or may not have landed); a row that cannot be recomputed (a
 * data member unreadable) gets its write's data again from its data slot
 * and its pending records applied (DATA SLOTS). Without DAX, buffers are
 * RAM only;
 * a region is marked in the write-intent bitmap while it has unapplied
 * records, and recovery recomputes the parity of the dirty regions, as
 * the paper does.
 */
#ifndef DM_RAIDLAB_PLOG_H
#define DM_RAIDLAB_PLOG_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "../../raidlab.h"

#define RL_PLOG_AREA_ID		0x474f4c50U	/* "PLOG" */
#define RL_PLOG_SEG_MAGIC	0x47534c50U	/* "PLSG" */
#define RL_PLOG_SEG_CSUM_XOR	0x9e3c41d7U

#define RL_PLOG_DEF_TRACK	256	/* sectors: track_sectors default */
#define RL_PLOG_DEF_K		1	/* log_tracks default */
#define RL_PLOG_DEF_A		1000	/* log_ratio default, thousandths */
#define RL_PLOG_MAX_K		64
#define RL_PLOG_MAX_SEG		8192	/* sectors: one log write, 4 MiB at most */
#define RL_PLOG_MAX_REGIONS	65536
#define RL_PLOG_MAX_SLICE	131072	/* sectors: default regions span 64 MiB at most */
#define RL_PLOG_DEF_CACHE	256	/* data_cache default: 4 KiB blocks */
#define RL_PLOG_MAX_CACHE	65536
#define RL_PLOG_DEF_BUFFERS	16	/* log_buffers default: regions, */
#define RL_PLOG_MAX_DEF_BUFFERS	128	/* within 16 .. 128 */
#define RL_PLOG_MAX_BUFFERS	1024
#define RL_PLOG_MAX_RATIO	64000	/* log_ratio at most, thousandths */

/*
 * The scheme's table options (plog.c, rl_plog_opts[]): their index in
 * rl_array.sopt[] and rl_args.sopt[]. 0 means the default, but for
 * data_cache (RL_PLOG_DEF_CACHE; 0: no cache).
 */
enum rl_plog_opt {
	RL_PLOG_OPT_LOG_DISKS,		/* L */
	RL_PLOG_OPT_LOG_RATIO,		/* A, thousandths */
	RL_PLOG_OPT_LOG_TRACKS,		/* K */
	RL_PLOG_OPT_TRACK_SECTORS,
	RL_PLOG_OPT_REGIONS,		/* B */
	RL_PLOG_OPT_LOG_BUFFERS,
	RL_PLOG_OPT_DATA_CACHE,		/* 4 KiB blocks */
	RL_PLOG_OPT_FAULTS,		/* f: 1 or 2; 0: 1 */
	RL_PLOG_NR_OPTS,
};

int rl_parse_log_ratio(const char *s, unsigned int *milli);

enum rl_plog_rec_type {
	RL_PLOG_UPDATE = 1,	/* parity ^= payload */
	RL_PLOG_OVERWRITE = 2,	/* parity = payload */
};

enum rl_plog_rec_state {
	RL_PLOG_PENDING = 1,	/* data write issued, not known landed */
	RL_PLOG_COMMITTED = 2,	/* data write landed: apply it */
};

/* One record's descriptor, in the segment header. 16 bytes. */
struct rl_plog_rec_disk {
	__le32 row;		/* row within the region */
	u8 type;		/* enum rl_plog_rec_type */
	u8 state;		/* enum rl_plog_rec_state */
	__le16 off;		/* first sector within the chunk */
	__le16 len;		/* sectors */
	__le16 payload;		/* first payload sector within the segment */
	u8 col;			/* f = 2: UPDATE's data column, OVERWRITE's 0 P, 1 Q */
	u8 reserved[3];
} __packed;

/* The segment header, then nr descriptors; hdr_sectors in all. */
struct rl_plog_seg_disk {
	__le32 csum;		/* crc32c of header and payload, ^ CSUM_XOR */
	__le32 magic;		/* RL_PLOG_SEG_MAGIC */
	__le64 region;
	__le64 gen;		/* the region log's generation */
	__le32 seg;		/* segment index within that generation */
	__le16 nr;		/* records */
	__le16 hdr_sectors;
	__le32 payload_sectors;	/* payload sectors used */
	__le32 reserved;
	struct rl_plog_rec_disk recs[];
} __packed;

/* Table parameters; 0 means "the default". */
struct rl_plog_params {
	unsigned int nr_members;	/* N */
	unsigned int chunk_sectors;	/* c */
	unsigned int log_disks;		/* L */
	unsigned int log_ratio;		/* A, thousandths */
	unsigned int log_tracks;	/* K */
	unsigned int track_sectors;
	unsigned int regions;		/* B */
	unsigned int faults;		/* f: 1 or 2 */
};

/* The layout: pure, filled by rl_plog_layout_init(). */
struct rl_plog_layout {
	unsigned int n, l, g;		/* members, log disks, data members */
	unsigned int f;			/* failures tolerated: 1 or 2 */
	unsigned int nlog;		/* f * l: log members of a region */
	unsigned int cols;		/* g - f: data columns of a row */
	unsigned int chunk_shift;
	unsigned int k;			/* tracks per log write */
	unsigned int track_sectors;
	u32 cycle;			/* C: regions per cycle */
	u32 nr_regions;			/* B, a multiple of C */
	u32 slice;			/* S: chunks, a multiple of g */
	u32 sublog;			/* G: chunks */
	u32 seg_sectors;		/* K * track_sectors */
	u32 hdr_sectors;		/* header sectors of a segment */
	u32 max_recs;			/* descriptors that fit the header */
	u32 segs;			/* segments in a region's log */
	u64 cycle_chunks;		/* a cycle's span, the same on every member */
	u64 member_chunks;		/* span used on every member */
	u64 data_chunks;		/* capacity, in chunks */
	unsigned int a_milli;		/* A achieved: 1000 * L * G / S */
};

/* Where a logical chunk lives. */
struct rl_plog_loc {
	u32 region;
	u32 row;			/* within the region */
	unsigned int col;		/* data column in the row */
	unsigned int member;		/* data member */
	u64 mchunk;			/* its member chunk */
	unsigned int pmember;		/* the row's parity member */
	u64 pchunk;			/* and the parity's member chunk */
	unsigned int qmember;		/* f = 2: the row's Q member */
	u64 qchunk;			/* and its member chunk */
};

/* plog_layout.c: layout (pure, KUnit suite dm_raidlab_plog_layout) */
unsigned int rl_plog_default_l(unsigned int nr_members);
int rl_plog_layout_init(struct rl_plog_layout *lo,
			const struct rl_plog_params *p, u64 member_sectors,
			char **error);
unsigned int rl_plog_log_member(const struct rl_plog_layout *lo, u32 region,
				unsigned int i);
unsigned int rl_plog_data_member(const struct rl_plog_layout *lo, u32 region,
				 unsigned int t);
/* @i in [0, nlog): copy i / L of sublog i mod L */
/* index t of @m among region's data members, or RL_NONE if it logs it */
unsigned int rl_plog_member_role(const struct rl_plog_layout *lo, u32 region,
				 unsigned int m);
/* first member chunk of region's slice or sublog on @m */
u64 rl_plog_region_start(const struct rl_plog_layout *lo, unsigned int m,
			 u32 region);
void rl_plog_map(const struct rl_plog_layout *lo, u64 lchunk,
		 struct rl_plog_loc *loc);
/* the row's data member, chunk of column @col; and its P (and Q) */
void rl_plog_row_loc(const struct rl_plog_layout *lo, u32 region, u32 row,
		     unsigned int col, struct rl_plog_loc *loc);
bool rl_plog_unmap(const struct rl_plog_layout *lo, unsigned int m,
		   u64 mchunk, u64 *lchunk);
/* what @m's member chunk @mchunk holds: data (with *@lchunk), P, Q, log */
enum rl_part rl_plog_owner(const struct rl_plog_layout *lo, unsigned int m,
			   u64 mchunk, u64 *lchunk);
/*
 * copy @copy (0 .. f - 1) of segment @seg of region's log: member and
 * member sector (rel. data_offset)
 */
void rl_plog_seg_loc(const struct rl_plog_layout *lo, u32 region, u32 seg,
		     unsigned int copy, unsigned int *member, u64 *msector);
u64 rl_plog_region_key(const struct rl_plog_layout *lo, u32 region);
/* the first region whose key >= msector; nr_regions past the last key */
u32 rl_plog_region_at(const struct rl_plog_layout *lo, u64 msector);

/* plog_seg.c: segments and records (pure, suite dm_raidlab_plog_log) */
void rl_plog_seg_init(void *seg, const struct rl_plog_layout *lo, u32 region,
		      u64 gen, u32 segno);
/* payload sectors still free, given one more descriptor */
u32 rl_plog_seg_room(const void *seg, const struct rl_plog_layout *lo);
/*
 * Append a record whose payload (@len sectors at @data) is copied in;
 * returns its index, or -ENOSPC when it does not fit (the caller seals
 * and writes the segment, and appends to a fresh one). What changed is
 * reported by rl_plog_seg_dirty(), for rl_plog_md_sync().
 */
int rl_plog_seg_append(void *seg, const struct rl_plog_layout *lo,
		       enum rl_plog_rec_type type, u32 row, unsigned int col,
		       u32 off, u32 len, const void *data,
		       enum rl_plog_rec_state state);
/* bytes of the image record @rec touched: header [0, *hdr_hi), payload [*lo, *hi) */
void rl_plog_seg_dirty(const void *seg, unsigned int rec, unsigned int *hdr_hi,
		       unsigned int *lo, unsigned int *hi);
void rl_plog_seg_set_state(void *seg, unsigned int rec,
			   enum rl_plog_rec_state state);
/* all records COMMITTED? (a segment is written to disk only then) */
bool rl_plog_seg_committed(const void *seg);
void rl_plog_seg_seal(void *seg, const struct rl_plog_layout *lo);
/* 0, or -EINVAL with *why set (sealed: checksum, every record COMMITTED) */
int rl_plog_seg_check(const void *seg, const struct rl_plog_layout *lo,
		      u32 region, u64 gen, u32 segno, bool sealed,
		      const char **why);

/*
 * Reintegration in memory: @parity is the region's f * S check chunks
 * (row i's P at byte i << (chunk_shift + 9), for f = 2 its Q at chunk
 * S + i). Apply the COMMITTED records of @seg in order: UPDATE xors (for
 * f = 2 into Q too, times g^col, with lib/raid6), OVERWRITE copies. Rows
 * with a PENDING record are set in @recompute (S bits; NULL: pending
 * records are a bug, -EINVAL) and their records skipped: the caller
 * recomputes those rows from data.
 */
int rl_plog_apply(const struct rl_plog_layout *lo, const void *seg,
		  void *parity, unsigned long *recompute);
/*
 * As rl_plog_apply(), but the PENDING records of rows set in @resolved
 * (S bits; NULL: none) are applied as if COMMITTED: their write's new
 * data has been written again from its data slot (see DATA SLOTS below).
 */
int rl_plog_apply_resolved(const struct rl_plog_layout *lo, const void *seg,
			   void *parity, unsigned long *recompute,
			   const unsigned long *resolved);

/* plog_seg.c: the global log-buffer pool (§2.1), suite dm_raidlab_plog_pool */
struct rl_plog_buf {
	struct list_head list;
	void *seg;			/* seg_sectors << 9 bytes, vmalloc */
	unsigned int idx;		/* its twin on the metadata device */
	u32 region;
	unsigned int pending;		/* records not yet COMMITTED */
};

struct rl_plog_pool {
	spinlock_t lock;		/* the free list and counters; irq-safe */
	struct list_head free;
	unsigned int nr, nr_free;
	unsigned int min_free;		/* low-water mark, for status */
	u64 gets, waits;		/* buffers handed out; gets that found none */
	struct rl_plog_buf *bufs;
};

int rl_plog_pool_init(struct rl_plog_pool *pool, unsigned int nr,
		      unsigned int seg_bytes);
void rl_plog_pool_exit(struct rl_plog_pool *pool);
/* NULL when the pool is exhausted (counted in ->waits); any context */
struct rl_plog_buf *rl_plog_pool_get(struct rl_plog_pool *pool);
void rl_plog_pool_put(struct rl_plog_pool *pool, struct rl_plog_buf *b);

/*
 * plog_md.c: durable state on a DAX metadata device. The record area
 * holds a header, the region table (generation and segments on disk per
 * region) and one twin per pool buffer. Not available on dm-bufio
 * (rl_plog_md_open() returns -EOPNOTSUPP there: the scheme falls back to
 * the intent bitmap).
 */
struct rl_md;
struct rl_plog_md;

int rl_plog_md_open(struct rl_md *md, const struct rl_plog_layout *lo,
		    unsigned int nr_bufs, struct rl_plog_md **pmp,
		    char **error);
void rl_plog_md_close(struct rl_plog_md *pm);
void rl_plog_md_region(struct rl_plog_md *pm, u32 region, u64 *gen,
		       u32 *segs);
/* durable on return; keeps the rewrite mark */
void rl_plog_md_set_region(struct rl_plog_md *pm, u32 region, u64 gen,
			   u32 segs);
/*
 * A rewrite of the region's check information (reintegration,
 * recomputation, replay, repair) is marked durably before its first
 * parity write and cleared once the parity is durable. Unlike the
 * write-intent bit, which clears lazily, the mark says at construction
 * whether the parity on disk may be torn: unmarked, the region's log is
 * replayed over it.
 */
void rl_plog_md_set_rewrite(struct rl_plog_md *pm, u32 region, bool on);
bool rl_plog_md_rewrite(struct rl_plog_md *pm, u32 region);
/*
 * Copy bytes [lo, hi) of buffer @b's image to its twin, durable on return.
 * Within a call, bytes past the fixed header land first, the segment
 * magic last, and a range touching the fixed header is widened to every
 * descriptor its record count counts. Serialize a buffer's appends, state
 * changes and syncs, and sync a record's payload before the header bytes
 * that count it (rl_plog_seg_dirty()).
 */
void rl_plog_md_sync(struct rl_plog_md *pm, const struct rl_plog_buf *b,
		     unsigned int lo, unsigned int hi);
/* the twin is free again (its records are on disk or applied) */
void rl_plog_md_release(struct rl_plog_md *pm, const struct rl_plog_buf *b);
/*
 * At construction: the twins that held records at the crash, to be
 * applied after the region's on-disk segments. Returns the twin's image
 * (read only) or NULL if twin @idx was free. A twin counts only if its
 * region's generation matches the table and its segment index is not
 * below the table's segments on disk (a crash between a log write's
 * completion and the twin's release must not apply it twice); the caller
 * checks, with rl_plog_seg_check(..., sealed = false).
 *
 * Order of durable steps: log write done -> set_region(gen, segs + 1) ->
 * release the twin. Reintegration done: parity written and flushed ->
 * set_region(gen + 1, 0) -> release the old generation's twins.
 */
/* (a copy made at open, kept until rl_plog_md_close()) */
const void *rl_plog_md_twin(struct rl_plog_md *pm, unsigned int idx);
/*
 * For KUnit: the same state over @nr_blocks (== rl_plog_md_blocks())
 * caller-provided 4 KiB RAM blocks, without a metadata device (zeroed
 * blocks are formatted; durability points do nothing).
 */
int rl_plog_md_open_blocks(void *const *blk, u64 nr_blocks,
			   const struct rl_plog_layout *lo,
			   unsigned int nr_bufs, struct rl_plog_md **pmp,
			   char **error);

/*
 * The record area's blocks (pure, tested in dm_raidlab_plog_log):
 *
 *   block 0   struct rl_plog_md_hdr_disk: the layout's fingerprint
 *   1 ..      the region table: per region two struct rl_plog_md_ent
 *             slots (32 bytes, 128 regions a block); set_region writes
 *             the slot not holding the current value, so a torn write
 *             leaves the previous one valid; the valid slot with the
 *             larger (gen, segs) wins (segs with the rewrite mark,
 *             RL_PLOG_ENT_REWRITE, in its top bit)
 *   then      nr_bufs twins of DIV_ROUND_UP(seg_sectors, 8) blocks each;
 *             a twin is free when its segment magic is zero
 */
#define RL_PLOG_MD_MAGIC	0x444d4c50U	/* "PLMD" */
#define RL_PLOG_MD_VERSION	2	/* 2: faults; a version 1 area is f = 1 */
#define RL_PLOG_MD_CSUM_XOR	0x5d1e07a3U
#define RL_PLOG_ENT_CSUM_XOR	0x37c9e2b5U
#define RL_PLOG_ENTS_PER_BLOCK	128

struct rl_plog_md_hdr_disk {
	__le32 csum;		/* crc32c of the block after csum, ^ MD_CSUM_XOR */
	__le32 magic;		/* RL_PLOG_MD_MAGIC */
	__le32 version;		/* RL_PLOG_MD_VERSION */
	__le32 n;
	__le32 l;
	__le32 chunk_shift;
	__le32 regions;		/* B */
	__le32 slice;		/* S */
	__le32 sublog;		/* G */
	__le32 seg_sectors;
	__le32 hdr_sectors;
	__le32 nr_bufs;
	__le64 blocks;		/* the area's */
	__le32 faults;		/* version 2 */
} __packed;

/* in a slot's segs: a parity rewrite runs (rl_plog_md_set_rewrite()) */
#define RL_PLOG_ENT_REWRITE	0x80000000U

struct rl_plog_md_ent {
	__le64 gen;		/* 0: never written */
	__le32 segs;		/* | RL_PLOG_ENT_REWRITE */
	__le32 csum;		/* crc32c of region, gen, segs, ^ ENT_CSUM_XOR */
} __packed;

u64 rl_plog_md_blocks(const struct rl_plog_layout *lo, unsigned int nr_bufs);
/* Fill a zeroed 4 KiB block. */
void rl_plog_md_hdr_encode(const struct rl_plog_layout *lo,
			   unsigned int nr_bufs, void *block);
/*
 * 0; -ENODATA for a zeroed block; -EINVAL (bad magic, bad checksum,
 * unsupported version) or -ESTALE (the layout or buffer count differ),
 * with *why set.
 */
int rl_plog_md_hdr_check(const void *block, const struct rl_plog_layout *lo,
			 unsigned int nr_bufs, const char **why);
void rl_plog_md_ent_encode(u32 region, u64 gen, u32 segs,
			   struct rl_plog_md_ent *ent);
bool rl_plog_md_ent_decode(const struct rl_plog_md_ent *ent, u32 region,
			   u64 *gen, u32 *segs);
/* the slot (0, 1) holding region's current value, or -EINVAL if none */
int rl_plog_md_ent_pick(const struct rl_plog_md_ent *pair, u32 region,
			u64 *gen, u32 *segs);

/*
 * DATA SLOTS (DAX). A row's PENDING record says that its data write may
 * or may not have landed; with a data member unreadable at recovery the
 * row cannot be recomputed from its data, so the new data of every
 * logging write is kept on pmem too, as the write-hole journal does: a
 * second record area, RL_PLOG_SLOT_AREA_ID, holds one slot per
 * foreground context (a context is the only place a record is PENDING,
 * from its append to its commit). Before the append the context copies
 * the write's data to its slot (memcpy_flushcache, a crc32c of it
 * computed on the way); under the log lock, after its first record is
 * appended to the buffer and before that record reaches the twin, the
 * slot's header is written naming that record (region, generation,
 * segment, index; the write's record count, the row and the row span)
 * and made durable with the data. A PENDING record in a twin therefore always has its slot, unless
 * the slot was overwritten by a later write of the same context, which
 * commits the record first. At recovery with a data member unreadable, a
 * slot whose header and data check out and whose named record is a
 * PENDING record of the same row in a valid twin, with all of the
 * write's records there (rl_plog_slot_resolves()),
 * has its data written again to the row's readable data columns, and the
 * row's PENDING records are applied with the others
 * (rl_plog_apply_resolved()): the missing member's chunk then reads
 * through the parity what the row holds. A stale slot names a record that
 * is COMMITTED or gone: it never matches.
 *
 *   block 0   struct rl_plog_slots_hdr_disk
 *   then      nr_slots slots of rl_plog_slot_blocks() blocks: a block
 *             with struct rl_plog_slot_disk, then the data (a row at most)
 *
 * The area is separate from the PLOG area, whose size and header are as
 * before: an array made by a version without slots assembles as it did,
 * and gets the slot area if the metadata device has room for it (if not,
 * or if an area of another size is there, PENDING records are not
 * resolved, as before, and the kernel log says so once).
 */
#define RL_PLOG_SLOT_AREA_ID	0x53444c50U	/* "PLDS" */
#define RL_PLOG_SLOTS_MAGIC	0x48534c50U	/* "PLSH" */
#define RL_PLOG_SLOTS_VERSION	1
#define RL_PLOG_SLOTS_CSUM_XOR	0x6b2f90e1U
#define RL_PLOG_SLOT_MAGIC	0x54444c50U	/* "PLDT" */
#define RL_PLOG_SLOT_CSUM_XOR	0x1c8a4e53U

struct rl_plog_slots_hdr_disk {
	__le32 csum;		/* crc32c of the block after csum, ^ SLOTS_CSUM_XOR */
	__le32 magic;		/* RL_PLOG_SLOTS_MAGIC */
	__le32 version;		/* RL_PLOG_SLOTS_VERSION */
	__le32 nr_slots;
	__le32 slot_blocks;
	__le32 row_sectors;	/* cols << chunk_shift: a slot's data at most */
	__le64 blocks;		/* the area's */
} __packed;

struct rl_plog_slot_disk {
	__le32 csum;		/* crc32c of the header after csum, ^ SLOT_CSUM_XOR */
	__le32 magic;		/* RL_PLOG_SLOT_MAGIC */
	__le32 region;		/* the write's first record: region, */
	__le32 seg;		/* segment index in */
	__le64 gen;		/* the region log's generation, */
	__le16 rec;		/* and its index in the segment */
	__le16 nrec;		/* the write's records (f = 2: up to cols) */
	__le32 row;		/* the row within the region */
	__le32 off;		/* the data: first sector within the row */
	__le32 len;		/* sectors */
	__le32 data_csum;	/* crc32c of the data (seed ~0) */
} __packed;

/* the identity of the record a slot names, and its data */
struct rl_plog_slot_id {
	u32 region;
	u64 gen;
	u32 seg;
	u16 rec;
	u16 nrec;
	u32 row;
	u32 off, len;		/* sectors within the row */
};

/* plog_md_fmt.c: data slots (pure, suite dm_raidlab_plog_log) */
u32 rl_plog_slot_blocks(const struct rl_plog_layout *lo);
u64 rl_plog_slots_blocks(const struct rl_plog_layout *lo,
			 unsigned int nr_slots);
void rl_plog_slots_hdr_encode(const struct rl_plog_layout *lo,
			      unsigned int nr_slots, void *block);
/* as rl_plog_md_hdr_check() */
int rl_plog_slots_hdr_check(const void *block, const struct rl_plog_layout *lo,
			    unsigned int nr_slots, const char **why);
void rl_plog_slot_encode(const struct rl_plog_slot_id *id, u32 data_csum,
			 struct rl_plog_slot_disk *s);
/*
 * 0 with *id filled if @s is a slot whose header checks out for @lo and
 * whose @data (len sectors; NULL: the data is not checked) has its
 * checksum; -ENODATA for a never written one, -EINVAL with *why set.
 */
int rl_plog_slot_check(const struct rl_plog_slot_disk *s, const void *data,
		       const struct rl_plog_layout *lo,
		       struct rl_plog_slot_id *id, const char **why);
/*
 * The recovery decision, over the @nr twin images @segs of region
 * @id->region that checked out: does the slot name a PENDING record of
 * its row, and do that row's PENDING records number the write's records
 * (a write's records may span buffers: one whose twin is torn or was not
 * written yet leaves the row unresolved)?
 */
bool rl_plog_slot_resolves(const struct rl_plog_slot_id *id,
			   const void *const *segs, unsigned int nr);

/* plog_slots.c: the slots on the DAX metadata device */
int rl_plog_md_slots_open(struct rl_plog_md *pm, struct rl_md *md,
			  const struct rl_plog_layout *lo,
			  unsigned int nr_slots, const char **why);
/* For KUnit: over caller's RAM blocks, as rl_plog_md_open_blocks() */
int rl_plog_md_slots_open_blocks(struct rl_plog_md *pm, void *const *blk,
				 u64 nr_blocks,
				 const struct rl_plog_layout *lo,
				 unsigned int nr_slots);
bool rl_plog_md_slots_on(const struct rl_plog_md *pm);
/* @len bytes at byte @off of slot @slot's data; durable with the header */
void rl_plog_md_slot_put(struct rl_plog_md *pm, unsigned int slot, u32 off,
			 const void *src, size_t len);
/* the slot's header naming @id, durable with its data on return */
void rl_plog_md_slot_seal(struct rl_plog_md *pm, unsigned int slot,
			  const struct rl_plog_slot_id *id, u32 data_csum);
/*
 * At construction: the slots that checked out at open (copies, read
 * only), @*data their data; NULL if slot @slot did not. Freed by
 * rl_plog_md_slots_done() or rl_plog_md_close().
 */
const struct rl_plog_slot_id *rl_plog_md_slot(struct rl_plog_md *pm,
					      unsigned int slot,
					      const void **data);
unsigned int rl_plog_md_nr_slots(const struct rl_plog_md *pm);
void rl_plog_md_slots_done(struct rl_plog_md *pm);

#endif /* DM_RAIDLAB_PLOG_H */
