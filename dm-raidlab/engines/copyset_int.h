/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab copy-set engine: what its files share (copyset.c lists
 * them): the instance's state, a write's clones, and each file's
 * functions. Private to the engine; copyset.h is its interface and its
 * pure part.
 */
#ifndef DM_RAIDLAB_COPYSET_INT_H
#define DM_RAIDLAB_COPYSET_INT_H

#include <linux/completion.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "../svc/metadata.h"
#include "../svc/mio.h"
#include "../svc/rrep.h"
#include "copyset.h"
#include "copyset_prec.h"
#include "copyset_ptab.h"

#define RL_CS_CHECK_BUDGET	(4U << 20)	/* check buffers, all members */
#define RL_CS_CHECK_MIN	128		/* sectors a member, at least */

/* A member's check buffer: a window of a check, a copy or a read fix. */
struct rl_cs_buf {
	u8 *data;			/* check_sectors, vmalloc()ed */
};

/* The record slots of delayed propagations (copyset_prec.c). */
struct rl_cs_precs {
	struct rl_md *md;
	struct rl_md_area area;
	unsigned int slots;		/* entries * copies */
};

/*
 * Delayed propagation (copyset_prop.c, copyset_pwait.c): the table of
 * writes whose other replicas wait, and its service's state.
 */
struct rl_cs_prop {
	spinlock_t lock;		/* the table and stopped */
	struct rl_cs_ptab tab;
	/*
	 * DAX metadata: the records (a write's first replica the nearest);
	 * else none (replica 0, the write-intent bitmap behind it)
	 */
	bool recorded;
	struct rl_cs_precs rec;
	atomic64_t seq;			/* the last record's */
	atomic64_t first[RL_RREP_MAX_DR];	/* first writes each replica took */
	bool stopped;			/* suspended: no pass */
	struct delayed_work kick;	/* asks the service for a pass */
	struct rl_array *a;
	atomic64_t forced;		/* started before the members were idle */
	atomic64_t full;		/* writes the full table sent to all */
	atomic64_t discarded;		/* entries a covering write dropped */
};

struct rl_copyset {
	struct bio_set bs;		/* write clones, with struct rl_cs_clone */
	spinlock_t lock;		/* lists, window and bucket counts */
	struct bio_list retry;		/* failed reads to send elsewhere */
	struct bio_list writes;		/* writes waiting for their intent */
	struct bio_list ready;		/* writes that hold it, to clone */
	struct bio_list bb_cleared;	/* writes that cleared bad blocks */
	struct work_struct retry_work;
	struct rl_array *a;
	struct rl_cs_layout layout;	/* member sectors after data_offset */
	unsigned long sets[RL_MAX_MEMBERS];	/* copy sets (rl_cs_sets()) */
	unsigned int nr_sets;

	/*
	 * Reads whose member failed to read them: fixed by fix_work, on a
	 * workqueue of its own (it waits for writes whose member queues
	 * are run from a->wq, so it must never hold a->wq's rescuer).
	 */
	struct bio_list fix;
	struct work_struct fix_work;
	struct workqueue_struct *fix_wq;

	/* the window lock; win_mutex: one window at a time (sync or fix) */
	struct mutex win_mutex;
	struct rl_cs_window win;	/* the open window, len 0: none */
	bool win_draining;		/* win_drained completes at count 0 */
	struct completion win_drained;
	struct bio_list win_waiting;	/* writes held off by the window */
	unsigned int bucket_writes[RL_CS_BUCKETS];	/* writes in flight */

	/*
	 * background I/O (one job at a time: sync.c's worker, or fix_work,
	 * under win_mutex), through the member queues (rl_mio())
	 */
	struct bio_set mio_bs;
	struct rl_mio_group *copy_rg;	/* a copy's reads: a group a piece */
	struct rl_mio_group copy_wg;	/* a copy's writes */
	unsigned int check_sectors;	/* window of a check or repair */

	/* chained with members out: reads served since shift_out changed */
	unsigned long shift_out;
	atomic64_t served[RL_MAX_MEMBERS];

	/* duplicate-then-cancel reads (copyset_read.c) */
	enum rl_cs_reads reads;
	mempool_t dup_pool;		/* struct rl_dup, for reads dup */
	atomic_t dups;			/* groups not yet released */
	/*
	 * rotational replicas on each member (copyset_rep.c): dr of them
	 * (sr), or 0 for none (mirror, raid10, chained); with them buf[]
	 * has one more buffer, for a check's replicas
	 */
	unsigned int dr;
	struct rl_rrep rr;
	atomic64_t rep_reads[RL_RREP_MAX_DR];	/* reads each replica served */
	struct rl_cs_prop *prop;	/* delayed propagation, or NULL */
	bool replayed;			/* a crash's records (->preresume) */
	DECLARE_BITMAP(diff, RL_CS_SLOT_SECTORS);	/* mismatching sectors */
	struct rl_cs_buf buf[];
};

static inline struct rl_cs_bio *cs_pb(struct bio *bio)
{
	return rl_pb_scheme(bio, sizeof(struct rl_cs_bio));
}

struct rl_cs_clone {
	struct bio *orig;
	struct rl_array *a;
	unsigned int member;
	/* a write whose other replicas wait: its copy, and where it may go */
	struct rl_cs_pent *pent;
	unsigned int copy;
	bool unrecorded;		/* its record failed: ended unsent */
	sector_t alt[RL_RREP_MAX_DR];
	u8 rep[RL_RREP_MAX_DR];
	struct dm_dev *dev;		/* the disk it was sent to */
	bool clears;			/* over bad-block entries: FUA, then cleared */
	struct rl_qent qe;		/* its place in the member's queue */
	struct bio clone;		/* must be last: bioset front_pad */
};

static inline struct rl_copyset *rl_copyset(struct rl_array *a)
{
	return a->scheme;
}

/* copyset_io.c */
bool cs_piece_suspect(struct rl_array *a, const struct rl_cs_piece *p);
bool cs_write_intent_try(struct rl_array *a, sector_t lsector);
void cs_write_intent_end(struct rl_array *a, sector_t lsector);
unsigned long cs_bb_members(struct rl_array *a, const struct rl_cs_piece *p);
unsigned long cs_unavailable(struct rl_array *a, const struct rl_cs_piece *p);
unsigned long cs_unreadable(struct rl_array *a, const struct rl_cs_piece *p);
sector_t cs_piece(struct rl_array *a, sector_t lsector, sector_t len,
		  struct rl_cs_piece *p);
void cs_defer(struct rl_copyset *cs, struct bio_list *list, struct bio *bio);
void cs_retry_work(struct work_struct *ws);
int cs_map_read(struct rl_array *a, struct bio *bio);
int cs_map_write(struct rl_array *a, struct bio *bio);
unsigned int cs_split_shift(struct rl_array *a);
void cs_window_open(struct rl_copyset *cs, sector_t s, sector_t len);
void cs_window_close(struct rl_copyset *cs);
int cs_io(struct rl_array *a, unsigned int m, blk_opf_t opf, void *data,
	  sector_t s, sector_t len, enum rl_class class);
int cs_io_rep(struct rl_array *a, unsigned int m, blk_opf_t opf,
	      unsigned long reps, void *data, sector_t s, sector_t len,
	      enum rl_class class);
unsigned long cs_read_all(struct rl_array *a, unsigned long members,
			  const struct rl_cs_piece *p, const u8 *srep);
int cs_copy_window(struct rl_array *a, unsigned long unreadable,
		   unsigned long dests, const struct rl_cs_piece *p,
		   const u8 *srep, const char *job);
bool cs_bg_read_error(struct rl_array *a, unsigned int m,
		      const struct rl_cs_piece *p, const char *job);
int cs_bg_no_source(struct rl_array *a, unsigned long bad,
		    const struct rl_cs_piece *p, const char *job);

/* copyset_rep.c */
#define CS_REP_ALL	(~0UL)
sector_t cs_rep_left(const struct rl_copyset *cs, sector_t y, sector_t max,
		     bool write);
sector_t cs_rep_sector(struct rl_array *a, sector_t y, unsigned int r);
unsigned int cs_rep_count(const struct rl_copyset *cs);
unsigned int cs_rep_alts(struct rl_array *a, sector_t y, sector_t len,
			 sector_t *alt, u8 *rep);
void cs_rep_read_done(struct rl_array *a, struct bio *bio);
void cs_rep_mio(struct rl_mio_group *g, unsigned int m, blk_opf_t opf,
		unsigned long reps, sector_t y, void *buf, sector_t len,
		enum rl_class class, enum rl_io_kind kind);

/* copyset_read.c */
unsigned int cs_choose(struct rl_array *a, const struct rl_cs_piece *p,
		       unsigned long unreadable, bool suspect, bool *free);
bool cs_read_dup(struct rl_array *a, struct bio *bio,
		 const struct rl_cs_piece *p, unsigned int first,
		 unsigned long unreadable);
int cs_dup_init(struct rl_copyset *cs, enum rl_cs_reads reads);
void cs_dup_exit(struct rl_copyset *cs);

/* copyset_fix.c */
void cs_fix_work(struct work_struct *ws);

/* copyset_sync.c */
int cs_sync_range(struct rl_array *a, struct rl_sync_req *req);
int cs_propagate(struct rl_array *a, sector_t lsector, sector_t len,
		 const u8 *rep);

/* copyset_prop.c */
void cs_prop_free(struct rl_array *a);

/* copyset_prec.c */
unsigned int cs_prec_lookup(struct rl_md *md, struct rl_md_area *area);
int cs_prec_open(struct rl_array *a, unsigned int slots,
		 struct rl_cs_precs *pr);
int cs_prec_write(struct rl_cs_precs *pr, unsigned int slot,
		  const struct rl_cs_prec *r);
void cs_prec_clear(struct rl_cs_precs *pr, unsigned int slot);

/* copyset_pwait.c */
struct rl_cs_pent *cs_prop_begin(struct rl_array *a, struct bio *bio,
				 bool suspect);
unsigned int cs_prop_cover(struct rl_array *a, struct rl_cs_pent *e,
			   struct list_head *dropped);
void cs_prop_put_list(struct rl_array *a, struct list_head *dropped);
void cs_prop_cancel(struct rl_array *a, struct rl_cs_pent *e);
void cs_prop_written(struct rl_array *a, struct rl_cs_pent *e);
bool cs_prop_pending(struct rl_array *a, sector_t lsector, sector_t len);
unsigned long cs_prop_fresh(struct rl_array *a, const struct rl_cs_piece *p,
			    unsigned int m, bool chunk);
unsigned long cs_srep_fill(struct rl_array *a, sector_t lsector,
			   const u8 *rep, u8 *srep);
unsigned int cs_prop_read_places(struct rl_array *a,
				 const struct rl_cs_piece *p, unsigned int m,
				 struct rl_cs_bio *mb, unsigned int n,
				 bool suspect);
int cs_prop_issue(struct rl_array *a, struct rl_cs_pent *e,
		  unsigned int copy, unsigned int rep);
void cs_prop_clear(struct rl_cs_prop *p, const struct rl_cs_pent *e);
const u8 *cs_prop_srep(struct rl_array *a, const struct rl_cs_piece *p,
		       u8 *srep);

#endif /* DM_RAIDLAB_COPYSET_INT_H */
