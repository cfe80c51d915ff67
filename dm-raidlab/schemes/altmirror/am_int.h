/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab altmirror: the instance, shared by its files:
 *
 *   altmirror.c   the ops table, options, sizing, status
 *   am_pool.c     the pool: slots, the index, the write and read paths,
 *                 the load
 *   am_cycle.c    the cycle worker, the batches, failures, the sync jobs
 *   am_rec.c      recovery onto two replacements (paper 003 section 4)
 *   am_io.c       the scheme's own waited-for member I/O (windows, fixes)
 *   am_pure.c     the pure parts (am.h)
 *
 * Locking: am->lock (a spinlock, irqsave) guards the pool's in-core
 * state (the slots, the index, the free stack, the waiting bios) and the
 * pmem stores to a slot's header after it is published. am->cyc_lock (a
 * mutex) guards the cycle. am->sync_sem orders batches (shared) against a
 * sync job's window (exclusive), so that a window's copy never races an
 * install. Order: sync_sem, cyc_lock, lock.
 */
#ifndef DM_RAIDLAB_AM_INT_H
#define DM_RAIDLAB_AM_INT_H

#include <linux/bio.h>
#include <linux/dm-io.h>
#include <linux/rwsem.h>
#include <linux/workqueue.h>

#include "../../raidlab.h"
#include "../../svc/metadata.h"
#include "am.h"

enum am_opt {
	AM_OPT_MEM_FRACTION,
	AM_OPT_VOLATILE,
	AM_OPT_OVERLAP,
	AM_OPT_OVERLAP_READS,
	AM_OPT_CYCLE_MIN,
	AM_OPT_CYCLE_MAX,
	AM_OPT_SINGLE,
	AM_NR_OPTS,
};

#define AM_MEM_FRACTION_DEF	100	/* hundredths of a percent: 1 % */
#define AM_CYCLE_MIN_DEF	100	/* ms */
#define AM_CYCLE_MAX_DEF	30000	/* ms */
#define AM_MIN_SLOTS		16
#define AM_MAX_RUN		64	/* blocks one batch I/O holds */
#define AM_BUF_BLOCKS		1024	/* a batch's bounce buffer: 4 MiB */
#define AM_SYNC_SECTORS		2048	/* a sync window: 1 MiB */
#define AM_SCAN_CHUNK		4096	/* slots a scan holds the lock for */

enum am_state {
	AM_FREE,
	AM_RES,			/* a write is filling it */
	AM_LIVE,		/* the newest version of its block: indexed */
	AM_OLD,			/* a newer one is durable; being installed */
};

/* A pool slot in core. */
struct am_ent {
	u64 seq;
	u64 lblock;
	struct hlist_node hnode;	/* in the index while AM_LIVE */
	u8 state;
	u8 installed;			/* disks that hold it */
	u8 inflight;			/* disks whose batch holds it */
	bool intent;			/* volatile: holds its intent region */
	/*
	 * the lowest seq of the versions it replaced before every disk had
	 * them, and its own (volatile flushes wait for it)
	 */
	u64 floor;
};

struct am;

/* One disk's batch. */
struct am_batch {
	struct rl_am_bent *e;		/* room for the pool */
	struct rl_am_run *runs;
	void *buf;			/* AM_BUF_BLOCKS blocks */
	u32 n;
	struct work_struct work;
	struct am *am;
};

/*
 * A recovery onto two replacements (am_rec.c; am.h has the record). The
 * state changes under am->lock, made durable before it is unlocked.
 */
struct am_rec {
	bool on;			/* the record area exists (a DAX pool) */
	struct rl_md_area area;
	struct rl_am_rec r;		/* the record that counts */
	unsigned int copy;		/* its copy: the next goes over the other */
	int r2;				/* the second replacement's spare slot */
	unsigned long *mod;		/* modified since the recovery began */
	struct dm_io_client *io;
	struct bio_list wait;		/* reads waiting for a catch-up */
	bool stuck;			/* a catch-up failed: not tried again */
	u64 t0;				/* ns: the recovery's start */
	/* counts */
	u64 modified, last_ms, nr;
	atomic64_t scanned, scan_ns, s_reads, s_read_ns;
};

/* A bio's data beside struct rl_bio: what a volatile flush waits for. */
struct am_pb {
	u64 seq;
};

struct am {
	struct rl_array *a;
	bool vol;			/* the volatile option */
	bool defer_reads;		/* overlap_reads defer */
	bool loaded;			/* the pool was read (first preresume) */
	bool stopped;			/* suspended: no batch starts */
	u32 nr;				/* slots */
	u64 nr_blocks;			/* the array's 4 KiB blocks */
	struct rl_md_area area;
	void *vdata;			/* volatile: the slots' data */

	spinlock_t lock;		/* the pool, the bio lists */
	struct am_ent *ents;
	struct hlist_head *index;
	unsigned int index_bits;
	u32 *free;			/* a stack of free slots */
	u32 nr_free, min_free;
	u32 pending[RL_AM_DISKS];	/* live blocks a disk has not */
	u64 seq;
	/*
	 * failures ->member_failed was told of, and the disk each was of: a
	 * role counts as dead while that disk still holds it (a spare that
	 * takes the role is not dead until its own failure is told)
	 */
	unsigned long told;
	const struct dm_dev *told_dev[RL_AM_DISKS];
	unsigned long writing;		/* disks in write mode: a bit each */
	struct bio_list waiting;	/* writes waiting for a slot */
	struct bio_list deferred;	/* reads waiting for a disk to read */
	struct bio_list flushes;	/* volatile: flushes and FUA writes */
	struct bio_list retry;		/* reads to serve again */
	struct bio_list fix;		/* reads to rewrite from the other disk */
	struct work_struct kick_work;
	struct work_struct fix_work;

	struct mutex cyc_lock;		/* the cycle */
	struct rl_am_cycle cyc;
	struct delayed_work cyc_work;
	atomic64_t arrived;

	struct rw_semaphore sync_sem;
	struct am_batch b[RL_AM_DISKS];
	struct bio_set bs;
	void *sync_buf[RL_AM_DISKS];	/* AM_SYNC_SECTORS each */
	struct am_rec rec;

	/* counts */
	atomic64_t hits, waits, batches, batch_blocks, install_ns;
	u64 loaded_slots, loaded_dropped;
};

static inline struct am *am_of(struct rl_array *a)
{
	return a->scheme;
}

static inline sector_t am_msector(u64 lblock)
{
	return lblock << RL_AM_BLOCK_SHIFT;
}

/* The block a (one-block) bio is of. */
static inline u64 am_lblock(struct bio *bio)
{
	return rl_pb(bio)->lsector >> RL_AM_BLOCK_SHIFT;
}

/* Disks that take batches: present, not failed (a rebuilding one does). */
static inline unsigned int am_live(struct am *am)
{
	struct rl_array *a = am->a;
	unsigned int d, live = 0;

	for (d = 0; d < RL_AM_DISKS; d++)
		if (READ_ONCE(a->members[d].dev) && !rl_member_failed(a, d))
			live |= BIT(d);
	return live;
}

/* am_pool.c */
int am_pool_init(struct am *am, char **error);
void am_pool_free(struct am *am);
int am_pool_load(struct am *am);
int am_write(struct am *am, struct bio *bio);
void am_write_waiters(struct am *am);
bool am_read_hit(struct am *am, struct bio *bio);
void *am_slot_data(struct am *am, u32 slot);
struct am_ent *am_lookup(struct am *am, u64 lblock);
void am_overlay(struct am *am, sector_t msector, sector_t len, void *buf,
		unsigned long *skip);
unsigned int am_dead(struct am *am);
bool am_complete(struct am *am, const struct am_ent *e);
void am_free_slot(struct am *am, u32 slot);
void am_set_installed(struct am *am, u32 slot);
void am_recount(struct am *am);
int am_fence(struct am *am);
bool am_pressure(struct am *am);
u64 am_oldest_pending(struct am *am);

/* The kick work: waiting writes, deferred and failed reads, flushes. */
static inline void am_kick(struct am *am)
{
	queue_work(am->a->wq, &am->kick_work);
}

/* The cycle looks again now (a batch's end, a write under pressure). */
static inline void am_kick_cycle(struct am *am)
{
	if (!READ_ONCE(am->stopped))
		mod_delayed_work(am->a->wq, &am->cyc_work, 0);
}

/* am_io.c */
int am_sync_read_why(struct am *am, unsigned int src, sector_t msector,
		     sector_t len, void *buf, const char *why,
		     atomic64_t *busy_ns);
int am_sync_read(struct am *am, unsigned int src, sector_t msector,
		 sector_t len, void *buf);
int am_sync_read_quiet(struct am *am, unsigned int src, sector_t msector,
		       sector_t len, void *buf);
int am_sync_write(struct am *am, unsigned long dst, sector_t msector,
		  sector_t len, void *buf);

/* am_cycle.c */
int am_cycle_init(struct am *am, char **error);
void am_cycle_free(struct am *am);
void am_cycle_stop(struct am *am);
void am_cycle_start(struct am *am);
int am_map_read(struct am *am, struct bio *bio);
bool am_read_fixable(struct am *am, struct bio *bio, blk_status_t error);
void am_member_failed(struct rl_array *a, unsigned long newly);
int am_sync_range(struct rl_array *a, struct rl_sync_req *req);

/* The recovery's state (am.h: enum rl_am_rec_state). Any context. */
static inline u32 am_rec_state(struct am *am)
{
	return READ_ONCE(am->rec.r.state);
}

/*
 * @lblock's modified bit (am_rec.c), in core and on pmem, not fenced: the
 * byte holding it, stored whole (the bitmap is little endian in both).
 * Under am->lock.
 */
static inline void am_rec_set(struct am *am, u64 lblock)
{
	if (__test_and_set_bit_le(lblock, am->rec.mod))
		return;
	am->rec.modified++;
	rl_md_area_write(am->a->md, &am->rec.area, RL_AM_BLOCK + lblock / 8,
			 (u8 *)am->rec.mod + lblock / 8, 1);
}

/*
 * A write of @lblock is published: while a recovery runs, it is newer
 * than the survivor's. Durable with the next fence, which comes before
 * the slot can be freed (a crash before it finds the slot, and the load
 * marks its block again). Under am->lock.
 */
static inline void am_rec_mark(struct am *am, u64 lblock)
{
	if (am_rec_state(am) != RL_AM_REC_NONE)
		am_rec_set(am, lblock);
}

/*
 * Where disk @d's batch goes: 1 to the second replacement, 0 to @d, -1
 * nowhere yet (the survivor catches up first). Under sync_sem (shared).
 */
static inline int am_rec_batch_to(struct am *am, unsigned int d)
{
	u32 state = am_rec_state(am);

	if (d != am->rec.r.survivor || state == RL_AM_REC_NONE)
		return 0;
	return state == RL_AM_REC_ACTIVE ? 1 : -1;
}

/* The survivor's installed bits are R2's and R2 holds what they say. */
static inline bool am_rec_r2_counts(struct am *am)
{
	u32 state = am_rec_state(am);

	return state == RL_AM_REC_ACTIVE || state == RL_AM_REC_CATCHUP_R2;
}

/* am_rec.c */
int am_rec_init(struct am *am, char **error);
void am_rec_free(struct am *am);
int am_rec_load(struct am *am);
unsigned int am_rec_read_disk(struct am *am, sector_t msector);
bool am_rec_wait_read(struct am *am, struct bio *bio);
void am_rec_read_done(struct am *am, struct bio *bio);
bool am_rec_fixable(struct am *am, sector_t msector);
void am_rec_member_failed(struct am *am, unsigned long newly);
int am_rec_sync(struct am *am, struct rl_sync_req *req, sector_t len,
		bool *done);
int am_rec_r2_io(struct am *am, blk_opf_t opf, sector_t msector, void *buf,
		 sector_t len);
int am_rec_r2_flush(struct am *am);
bool am_rec_get_work(struct rl_array *a, struct rl_work *w);
void am_rec_do_work(struct rl_array *a, const struct rl_work *w);
void am_rec_status(struct am *am, char *result, unsigned int maxlen,
		   unsigned int *psz);

#endif /* DM_RAIDLAB_AM_INT_H */
