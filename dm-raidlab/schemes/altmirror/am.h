/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab altmirror: alternating deferred-update mirrors (Polyzois,
 * Bhide and Dias, paper 003; Documentation/dm-raidlab.rst, "Alternating
 * deferred-update mirrors"). This header holds the scheme's pure parts,
 * tested by the KUnit suite dm_raidlab_altmirror:
 *
 *   the pool's slots on pmem   encode, decode, and the load's choice of
 *                              the newest version of each block
 *   the batch builder          a disk's pending blocks in physical order,
 *                              contiguous ones merged into runs
 *   the cycle                  when each disk starts its next batch
 *
 * The pool. Each acknowledged write of a 4 KiB block is a slot of the
 * pool's record area on the DAX metadata device (RL_AM_AREA_ID): a 64-byte
 * header in the header blocks, its data in a block of its own.
 *
 *   struct rl_am_slot_disk (64 bytes, little endian)
 *     csum       crc32c of the data block, then of the header from
 *                magic to reserved, ^ RL_AM_CSUM_XOR
 *     magic      RL_AM_MAGIC; 0: a free slot
 *     seq        the order writes were made durable in, from 1
 *     lblock     the logical block (4 KiB) the data belongs to
 *     installed  seq << 2 | a bit per disk that holds the data: an 8-byte
 *                store of its own (failure atomic on pmem), outside the
 *                checksum; it counts only while its seq is the header's
 *
 * A write copies its data into a free slot, then the header, with
 * memcpy_flushcache(), and is acknowledged after one fence: a torn header
 * or data block fails the checksum, and such a write was never
 * acknowledged. A disk's bit is set after that disk's batch and a flush of
 * the disk; the slot is freed (magic zeroed) once every disk in the array
 * has the data, or once a newer version of the block is durable and the
 * slot is not being installed. At load, the newest valid version of each
 * block (the highest seq) is taken back with its bits; older versions
 * and torn slots are freed.
 */
#ifndef DM_RAIDLAB_AM_H
#define DM_RAIDLAB_AM_H

#include <linux/types.h>

#define RL_AM_AREA_ID		0x504d4152U	/* "RAMP" */
#define RL_AM_MAGIC		0x314d4152U	/* "RAM1" */
#define RL_AM_CSUM_XOR		0x7a3e11c5U
#define RL_AM_SLOT_SIZE		64
#define RL_AM_BLOCK		4096
#define RL_AM_BLOCK_SHIFT	3	/* sectors */
#define RL_AM_SLOTS_PER_BLOCK	(RL_AM_BLOCK / RL_AM_SLOT_SIZE)
#define RL_AM_DISKS		2
#define RL_AM_ALL		(BIT(RL_AM_DISKS) - 1)

struct rl_am_slot_disk {
	__le32 csum;
	__le32 magic;
	__le64 seq;
	__le64 lblock;
	__le64 reserved;
	__le64 installed;		/* seq << 2 | disks */
	u8 pad[24];
} __packed;

/* A slot's header in core. */
struct rl_am_slot {
	u64 seq;
	u64 lblock;
	u8 installed;			/* a bit per disk */
};

/* Area blocks a pool of @nr slots takes: headers, then the data. */
u64 rl_am_area_blocks(u32 nr);
/* Where slot @slot's header and data lie in the area. */
u64 rl_am_hdr_pos(u32 slot);
u64 rl_am_data_block(u32 nr, u32 slot);

u32 rl_am_data_crc(u32 crc, const void *data, size_t len);
void rl_am_slot_encode(const struct rl_am_slot *s, u32 data_crc,
		       struct rl_am_slot_disk *d);
u64 rl_am_installed_word(u64 seq, u8 installed);
int rl_am_slot_decode(const struct rl_am_slot_disk *d, const void *data,
		      u64 nr_blocks, struct rl_am_slot *s);

/*
 * What a load keeps of the decoded slots: for each block, the slot of its
 * newest version (the highest seq; of two with one seq, the lower slot).
 */
struct rl_am_found {
	u64 seq;
	u64 lblock;
	u32 slot;
	u8 installed;
	bool keep;			/* out: the newest version of its block */
};

u32 rl_am_choose(struct rl_am_found *f, u32 n);

/* One run of a batch: contiguous blocks, written by one I/O. */
struct rl_am_bent {
	u64 lblock;
	u32 slot;
};

struct rl_am_run {
	u64 lblock;			/* the first */
	u32 first;			/* its index in the sorted entries */
	u32 nr;				/* blocks */
};

void rl_am_batch_sort(struct rl_am_bent *e, u32 n);
u32 rl_am_batch_runs(const struct rl_am_bent *e, u32 n, u32 max_run,
		     struct rl_am_run *runs);

/*
 * The cycle (paper 003 section 2, spec 2.4 decision 1). Each disk installs
 * the blocks pending for it as one batch; disk d's batches start every T,
 * half a period after the other disk's. T is the time the write rate
 * takes to fill a batch (half the pool), within [tmin, tmax]; a disk with
 * a whole batch pending starts at once (paper 003: "when a certain number
 * of updates have accumulated"). By default
 * a disk whose start comes while the other disk writes waits for it (the
 * write spans never overlap); with overlap allowed it starts anyway.
 * Pool pressure (three quarters used, writers waiting, or a flush
 * waiting) brings the next start forward to now. With one disk left, it
 * installs as soon as anything is pending (write through), or, with
 * single_batch (paper 003 section 5's single-disk baseline), every T as
 * the pair's disks do.
 */
struct rl_am_cycle {
	u64 period;			/* T, ns */
	u64 tmin, tmax;
	u64 next[RL_AM_DISKS];		/* ns: disk d's next start */
	u64 last_start;			/* ns: disk 0's last period start */
	u64 arrived;			/* writes since then */
	unsigned int turn;		/* the disk whose start comes next */
	bool writing[RL_AM_DISKS];
	bool overlap;			/* the spans may overlap */
	bool single_batch;		/* one disk left: batches every T */
	/* counts */
	u64 overlaps;			/* batches started while the other wrote */
	u64 held;			/* starts held back by the other's batch */
};

/* What rl_am_cycle_next() looked at. */
struct rl_am_cycle_in {
	u64 now;
	u64 batch;			/* blocks a batch should hold */
	u32 pending[RL_AM_DISKS];	/* blocks waiting for each disk */
	unsigned int live;		/* disks that install: a bit each */
	bool pressure;
};

enum rl_am_act {
	RL_AM_WAIT,			/* until *@until (U64_MAX: a kick) */
	RL_AM_START,			/* disk *@disk's batch, now */
};

void rl_am_cycle_init(struct rl_am_cycle *c, u64 now, u64 tmin, u64 tmax,
		      bool overlap);
u64 rl_am_period(u64 batch, u64 arrived, u64 elapsed, u64 tmin, u64 tmax);
enum rl_am_act rl_am_cycle_next(struct rl_am_cycle *c,
				const struct rl_am_cycle_in *in,
				unsigned int *disk, u64 *until);
void rl_am_cycle_done(struct rl_am_cycle *c, unsigned int disk);

/*
 * The recovery record (paper 003 section 4): while a member's role is
 * rebuilt onto one spare (R1) and a second spare (R2) stands in for the
 * survivor S's copy, S is only read, so every block written since the
 * recovery began is newer on the replacements (or in the pool) than on S.
 * The record area (RL_AM_REC_ID) on the DAX metadata device holds
 *
 *   block 0    two copies of struct rl_am_rec_disk (at 0 and 64), each
 *              crc32c'd; the valid one with the higher gen counts, and a
 *              change is written over the other, so a torn write leaves
 *              the one before
 *   block 1..  the "modified since the recovery began" bitmap: a bit per
 *              4 KiB block, set (and made durable with the write's pool
 *              slot) before the write is acknowledged
 *
 * States: none; active (R1 is the rebuilding member, R2 the spare of
 * r2_uuid, the survivor's installed bits in the pool mean R2's); catch-up
 * from R1 or from R2 (a replacement failed: the survivor is brought up to
 * date from the other, and the recovery ends).
 */
#define RL_AM_REC_ID		0x524d4152U	/* "RAMR" */
#define RL_AM_REC_MAGIC		0x31524152U	/* "RAR1" */
#define RL_AM_REC_CSUM_XOR	0x1c2d3e4fU
#define RL_AM_REC_SIZE		64
#define RL_AM_REC_BITS		(RL_AM_BLOCK * 8)	/* bitmap bits per block */

enum rl_am_rec_state {
	RL_AM_REC_NONE = 0,
	RL_AM_REC_ACTIVE = 1,
	RL_AM_REC_CATCHUP_R1 = 2,
	RL_AM_REC_CATCHUP_R2 = 3,
};

struct rl_am_rec_disk {
	__le32 csum;
	__le32 magic;
	__le32 version;			/* 1 */
	__le32 state;
	__le64 gen;
	u8 uuid[16];			/* the array's */
	u8 r2_uuid[16];			/* the second replacement's disk */
	__le32 survivor;		/* its role */
	__le32 reserved;
} __packed;

struct rl_am_rec {
	u32 state;
	u64 gen;
	u8 uuid[16];
	u8 r2_uuid[16];
	u32 survivor;
};

u64 rl_am_rec_blocks(u64 nr_blocks);
void rl_am_rec_encode(const struct rl_am_rec *r, struct rl_am_rec_disk *d);
int rl_am_rec_decode(const struct rl_am_rec_disk *d, const u8 uuid[16],
		     struct rl_am_rec *r);
int rl_am_rec_choose(const struct rl_am_rec_disk *d, const u8 uuid[16],
		     struct rl_am_rec *r);

#endif /* DM_RAIDLAB_AM_H */
