/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab: classic disk-array redundancy schemes as one device-mapper
 * target. This header holds the array context shared by the core target,
 * the schemes (behind struct rl_scheme_ops, each owning its options: a
 * file each, or a folder: plog), the engines (the parity stripe engine,
 * the copy-set engine and its layouts) and the shared services (member
 * I/O and its failure hooks, parity, metadata, background jobs).
 */
#ifndef DM_RAIDLAB_H
#define DM_RAIDLAB_H

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/device-mapper.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "svc/sched.h"

#define DM_MSG_PREFIX		"raidlab"

/* the target's version (dmsetup targets, modinfo; Documentation/dm-raidlab.rst) */
#define RL_VERSION_MAJOR	1
#define RL_VERSION_MINOR	22
#define RL_VERSION_PATCH	0

#define RL_MAX_MEMBERS		32
#define RL_MAX_SPARES		4
#define RL_HOMEHOST_LEN		64	/* == RL_MD_HOMEHOST_LEN */
#define RL_NONE			UINT_MAX

#define RL_DEFAULT_CHUNK	128	/* sectors: 64 KiB */
#define RL_MIN_CHUNK		8	/* sectors: one page */
#define RL_MAX_CHUNK		(2048U * 1024)	/* sectors: 1 GiB */
#define RL_MAX_PARITY_CHUNK	2048	/* sectors: 1 MiB, bounds stripe buffers */
#define RL_STRIPE_BUDGET	(16U << 20)	/* bytes of stripe buffers by default */
#define RL_STRIPE_MAX_BYTES	(512ULL << 20)	/* and at the most */
#define RL_MAX_STRIPES		4096
#define RL_DEFAULT_QUEUE_DEPTH	32	/* member I/Os in flight per member */
#define RL_MAX_QUEUE_DEPTH	1024
/* read errors a member may have rewritten before it fails (md's default) */
#define RL_MAX_READ_ERRORS	20

/* The journal option (journal.h). */
enum rl_jnl_mode {
	RL_JNL_AUTO,		/* on with a DAX metadata device */
	RL_JNL_ON,
	RL_JNL_OFF,
};

/* What a member location holds (struct rl_locset, ->owner). */
enum rl_part {
	RL_PART_NONE,		/* nothing: outside the layout */
	RL_PART_DATA,		/* the data: the copy listed first */
	RL_PART_COPY,		/* another whole copy of the data */
	RL_PART_P,		/* the row's parity */
	RL_PART_Q,		/* the row's second syndrome (raid6) */
	RL_PART_LOG,		/* a log of pending parity updates (plog) */
	RL_NR_PARTS,
};

/* One location of a logical sector. */
struct rl_where {
	unsigned int member;
	sector_t sector;		/* member sector, data_offset included */
	enum rl_part part;
};

/*
 * Every location of a logical sector (->locate): loc[0] is the data, then
 * its copies, P and Q. The sectors after it, @len of them counting it,
 * are at the same offsets from each location (to the end of its chunk).
 */
#define RL_MAX_LOCS		RL_MAX_MEMBERS
struct rl_locset {
	sector_t len;
	u64 row;			/* stripe row (0 for a mirror) */
	unsigned int col;		/* data column within the row */
	unsigned int nr;
	struct rl_where loc[RL_MAX_LOCS];
};

/*
 * A scheme's own table options (->opts): at most this many, each a word
 * of value (dm-flakey's dm_arg idiom).
 */
#define RL_MAX_SCHEME_OPTS	8

/**
 * struct rl_opt - one of a scheme's table options, "<name> <value>"
 * @name: the key (case does not matter)
 * @range: the value's bounds and its message, "Invalid <name>"
 * @def: the value when the table line does not give it
 * @parse: for a value that is not a plain number (a decimal, a word):
 *	returns 0 with *@val set, or -EINVAL. Pure. Optional.
 * @word: the value is a word the scheme reads itself (a geometry line):
 *	kept as given in rl_array.sopt_word[] (@parse checks it)
 * @flag: no value follows the key: given, it is 1
 * @invalid: the message when @parse refuses the value
 * @dup: "Duplicate <name>"
 * @refused: the message when another scheme's line gives it,
 *	"<name> needs the <scheme> scheme"
 *
 * The value lands in rl_args.sopt[] (then rl_array.sopt[]) at the
 * option's index in its scheme's table. RL_OPT() makes one, with its
 * messages; any other fields follow (.def, .parse, .invalid).
 */
struct rl_opt {
	const char *name;
	struct dm_arg range;
	unsigned int def;
	int (*parse)(const char *word, unsigned int *val);
	bool word;
	bool flag;
	const char *invalid;
	const char *dup;
	const char *refused;
};

#define RL_OPT(scheme, n, lo, hi, ...) {				\
	.name = #n, .range = { lo, hi, "Invalid " #n },			\
	.dup = "Duplicate " #n, .refused = #n " needs the " scheme " scheme", \
	__VA_ARGS__ }

/* Who is told of a new member failure (rl_array.fail_hook[]), in order. */
enum rl_fail_hook {
	RL_FAIL_RECORD,		/* failrec.c: record it before completions */
	RL_FAIL_SYNC,		/* sync.c: the lifecycle (spares, rebuilds) */
	RL_NR_FAIL_HOOKS,
};

/* Kinds of member I/O counted in the status line. */
enum rl_io_kind {
	RL_DATA_READ,
	RL_DATA_WRITE,
	RL_PARITY_READ,
	RL_PARITY_WRITE,
	RL_NR_KINDS,
};

struct rl_args;
struct rl_parity_layout;

/*
 * The pure inputs of a layout: everything the mapping helpers need and
 * nothing else, so they can be tested without a device.
 */
struct rl_geom {
	const struct rl_parity_layout *layout;	/* parity schemes: where parity is */
	unsigned int nr_members;
	unsigned int nr_data;		/* data chunks in one row */
	unsigned int chunk_shift;	/* chunk = 1 << chunk_shift sectors */
	sector_t data_offset;		/* first member sector the array uses */
};

static inline sector_t rl_chunk_sectors(const struct rl_geom *g)
{
	return (sector_t)1 << g->chunk_shift;
}

/* Sectors from @lsector to the end of its chunk, @lsector's included. */
static inline sector_t rl_chunk_left(const struct rl_geom *g, sector_t lsector)
{
	return rl_chunk_sectors(g) - (lsector & (rl_chunk_sectors(g) - 1));
}

/* Where a logical sector lives. */
struct rl_loc {
	unsigned int member;
	sector_t sector;		/* member sector */
	u64 row;			/* stripe row (0 for mirrors) */
	unsigned int col;		/* data column within the row */
};

/*
 * A member's queue (sched.h): entries wait in their class until the
 * policy picks them and fewer than the array's queue_depth are issued.
 */
struct rl_queue {
	/*
	 * Protects everything below but issued, dispatched and work. queued
	 * changes under it and is read without it (WRITE_ONCE/READ_ONCE);
	 * issued and dispatched are atomic: an I/O may be issued and end
	 * without the lock (member.c, "the direct path").
	 */
	spinlock_t lock;
	struct list_head wait[RL_NR_CLASSES];
	unsigned int queued[RL_NR_CLASSES];
	atomic_t issued;		/* submitted, not yet done */
	unsigned int fg_run;		/* foreground picks in a row */
	u64 seq;			/* arrival counter */
	struct rl_head_state hs;	/* the policy's view of the head */
	/*
	 * The tracker's end of the last I/O issued (rl_queue_pick()), and
	 * what completions have moved the ends predicted so far (member.c,
	 * "the tail").
	 */
	u64 tail_ns, tail_shift;
	atomic64_t dispatched[RL_NR_CLASSES];
	/* head tracking (trackio.c): NULL until a geometry is loaded */
	struct rl_tracker *trk;
	struct rl_refread *ref;
	bool ref_due;			/* hold dispatch: a reference read waits */
	bool ref_busy;			/* a reference read is in flight */
	bool ref_hold;			/* no reference read (geometry change) */
	u64 ref_backoff_ns;		/* after failed or refused samples */
	u64 ref_last_ns;		/* completion of the last reference read */
	u64 ref_samples, ref_errors;
	struct work_struct work;	/* dispatch after a completion */
};

/* One member disk. */
struct rl_member {
	struct dm_dev *dev;
	struct rl_array *a;
	unsigned int idx;
	atomic64_t io[RL_NR_KINDS];
	atomic_t inflight;		/* member I/Os queued or in flight */
	atomic_t read_errors;		/* read errors rewritten from redundancy */
	sector_t head;			/* sector after the last completed I/O */
	struct rl_queue q;
	struct delayed_work ref_work;	/* the reference read (trackio.c) */
};

struct rl_scheme_ops;
struct rl_sync;
struct rl_reload;
struct rl_replace;
struct rl_jnl;
struct rl_bbl;
struct rl_array;

/*
 * Waits for the durable record of the member failures seen so far
 * (failrec.c): ->fn runs from a work item once they are in the metadata,
 * with BLK_STS_IOERR if they could not be written.
 */
struct rl_commit_waiter {
	struct list_head node;
	struct rl_array *a;
	void (*fn)(struct rl_commit_waiter *w, blk_status_t st);
};

/* Background jobs (sync.c), run one range at a time by ->sync_range. */
enum rl_sync_job {
	RL_SYNC_RESYNC,		/* make redundancy consistent with the data */
	RL_SYNC_REBUILD,	/* write member @target from the others */
	RL_SYNC_CHECK,		/* count inconsistent sectors, change nothing */
	RL_SYNC_REPAIR,		/* count them and make them consistent */
	RL_SYNC_REPLACE,	/* copy member @target onto a spare (sync_replace.c) */
	RL_NR_SYNC_JOBS,
};

/*
 * A scheme's own background work item (->get_work): what, in the scheme's
 * terms (plog: the repair a region waits for), and where.
 */
struct rl_work {
	u32 op;
	u64 key;
};

struct rl_sync_req {
	enum rl_sync_job job;
	unsigned int target;		/* RL_SYNC_REBUILD: the member */
	sector_t msector;		/* member sectors after data_offset */
	sector_t len;			/* in: wanted; out: done (>= 1 unit) */
	u64 mismatches;			/* out: CHECK/REPAIR, sectors */
	bool readd;			/* RL_SYNC_REBUILD of a re-added member */
};

/* The array: one per target instance (ti->private). */
struct rl_array {
	struct dm_target *ti;
	const struct rl_scheme_ops *ops;
	struct rl_geom geom;
	sector_t member_sectors;	/* usable sectors on each member */
	/*
	 * member sectors after data_offset the placement reaches, where it
	 * goes past member_sectors (sr's replicas: rl_member_span()); 0 if not
	 */
	sector_t member_span;
	unsigned int redundancy;	/* member failures the data survives */
	unsigned int stripe_cache;	/* stripe contexts (parity schemes) */
	unsigned int opt_stripes_set:1;
	unsigned int assume_clean:1;	/* parity taken as consistent */
	unsigned int start_dirty_degraded:1;	/* table option: start anyway */
	unsigned int opt_sched_set:1;
	unsigned int queue_depth;	/* member I/Os issued per member */
	const struct rl_sched_policy *policy;	/* per-member queue policy */
	bool track_stopped;		/* no reference reads (suspended) */
	/* the member-I/O hook of a replace (svc/replace.h), or NULL */
	struct rl_replace *replace;
	/* postsuspend done, no resume since: a reload may take it over */
	bool postsuspended;
	bool resumed_once;		/* the device's live table once */
	/* a successor: a line loaded over a live array (target/reload.c) */
	struct rl_reload *reload;
	struct mutex track_mutex;	/* serializes geom messages */

	unsigned long failed;		/* bitmap of failed members */
	/*
	 * The failure record (failrec.c): fail_seq counts failures,
	 * fail_committed is the count the metadata holds; waiters for it on
	 * fail_waiters. fail_lock also orders a failure charged to a disk
	 * against a spare taking the disk's role (rl_member_fail_io()).
	 */
	atomic64_t fail_seq;
	u64 fail_committed;
	spinlock_t fail_lock;		/* fail_waiters; failure vs. spare swap */
	struct list_head fail_waiters;
	struct work_struct fail_work;
	/*
	 * Told of each new member failure (rl_member_fail_io()), in enum
	 * rl_fail_hook's order. The services above member.c set them when
	 * they start, so member.c calls nothing above it (md tells its
	 * personality through ->error_handler). Any context: they queue work.
	 */
	void (*fail_hook[RL_NR_FAIL_HOOKS])(struct rl_array *a);
	/*
	 * Members being rebuilt (sync.c): member m holds good data below
	 * rebuild_cursor[m] (member sectors after data_offset) only; it is
	 * written everywhere a scheme writes but read only below the cursor.
	 * A stripe row at or above the cursor treats m as failed.
	 */
	unsigned long rebuilding;
	sector_t rebuild_cursor[RL_MAX_MEMBERS];
	/*
	 * Rebuilding members re-added (sync.c, message re_add): the role's
	 * own disk came back, and its rebuild copies only the rows whose
	 * write-intent regions were written while it was away
	 * (rl_sync_skip_clean()). Set before the role leaves a->failed.
	 */
	unsigned long readd;
	unsigned long replacements;	/* set by rl_md_open(), see metadata.h */

	struct rl_md *md;		/* metadata device, or NULL */
	enum rl_jnl_mode journal;	/* the journal option */
	struct rl_jnl *jnl;		/* write-hole journal (journal.h), or NULL */
	struct rl_bbl *bbl;		/* bad-block lists (bbl.h), or NULL */
	struct dm_dev *md_dev;
	unsigned int region_shift;	/* region_size from the table, or 0 */
	/* homehost from the table, recorded in the metadata, or "" */
	char homehost[RL_HOMEHOST_LEN];
	unsigned int nr_spares;
	struct dm_dev *spares[RL_MAX_SPARES];	/* NULL once promoted */
	struct dm_dev *retired[RL_MAX_SPARES];	/* the roles' disks spares replaced */
	/*
	 * spares a scheme holds for its own recovery (altmirror's second
	 * replacement): no role is given to them (rl_sync_hold_spare())
	 */
	unsigned long spares_held;
	struct rl_sync *sync;		/* background work (sync.c) */
	struct workqueue_struct *wq;
	struct work_struct event_work;	/* dm_table_event() outside irq */

	atomic64_t logical[2];		/* logical reads, writes */
	unsigned int sopt[RL_MAX_SCHEME_OPTS];	/* the scheme's ->opts values */
	char *sopt_word[RL_MAX_SCHEME_OPTS];	/* a word option's, or NULL */
	unsigned long sopt_given;	/* those the line gave: a bit each */

	void *scheme;			/* scheme-private state */
	struct rl_member members[];
};

/* Member sectors after data_offset the layout places anything in. */
static inline sector_t rl_member_span(const struct rl_array *a)
{
	return max(a->member_sectors, a->member_span);
}

/* What a bio was before it was remapped, to serve it again (dm-bio-record). */
struct rl_bio_record {
	struct bvec_iter iter;
	struct block_device *bdev;
	unsigned short flags;
};

/*
 * Per-bio data (ti->per_io_data_size). Saved at map time so that a failed
 * member read can be retried elsewhere with the bio as it arrived.
 */
struct rl_bio {
	struct rl_bio_record rec;	/* the bio as mapped */
	sector_t lsector;		/* target-relative first sector */
	struct rl_array *a;		/* of a remapped bio: its array */
	unsigned int member;		/* member of a directly remapped bio */
	struct dm_dev *dev;		/* the disk it was remapped to */
	bool held;			/* completion held for the failure record */
	struct rl_commit_waiter cw;	/* failrec.c, or a scheme's wait */
	struct rl_qent qe;		/* its place in the member's queue */
};

/*
 * One redundancy scheme. Every method may assume a fully constructed
 * struct rl_array with opened members; the table line was validated by
 * args.c and core.c before ->ctr is called.
 */
struct rl_scheme_ops {
	const char *name;
	/* fewest members the scheme accepts */
	unsigned int min_members;
	/* member failures the data survives (capped at members - 1) */
	unsigned int redundancy;
	/* true if the chunk size bounds stripe buffers (parity schemes) */
	bool parity;
	/* parity schemes: the placement of parity and data (stripe.h) */
	const struct rl_parity_layout *layout;
	/* bytes of per-bio data the scheme keeps beside struct rl_bio */
	size_t per_bio_size;

	/*
	 * The scheme's own table options, @nr_opts of them (at most
	 * RL_MAX_SCHEME_OPTS): args.c parses each into rl_args.sopt[] at its
	 * index here, and refuses it for the other schemes. The scheme's
	 * ->status emits them for STATUSTYPE_TABLE. Optional.
	 */
	const struct rl_opt *opts;
	unsigned int nr_opts;

	/*
	 * Check the scheme's options against the whole line (the generic
	 * options included), once it is parsed. Pure. On error sets *error
	 * and returns -EINVAL. Optional.
	 */
	int (*check_args)(const struct rl_args *args, char **error);

	/*
	 * Member failures the data survives with these options, when that
	 * is not ->redundancy (plog: its faults option). Pure. Optional.
	 */
	unsigned int (*redundancy_of)(const struct rl_args *args);

	/*
	 * Whether the data survives the members in @failed (a bit each)
	 * failing, where more than a->redundancy of them may fail as long as
	 * the right ones do (a copy-set layout: while every chunk keeps a
	 * copy). Called through rl_survives() only when more than
	 * a->redundancy have failed; must answer true for any set the
	 * guaranteed count covers. Reads the instance after ->ctr; pure, any
	 * context. Optional: without it no more than a->redundancy may fail.
	 */
	bool (*survives)(struct rl_array *a, unsigned long failed);

	/*
	 * Size the layout: check the target length @len against
	 * a->member_sectors (the smallest member's usable sectors), set
	 * a->geom.nr_data where the layout has rows, and set a->member_sectors
	 * to the span the layout uses on every member. Called before the
	 * metadata is opened and before ->ctr. Pure but for @a. On error sets
	 * *error and returns -EINVAL. Row layouts call rl_size_rows().
	 */
	int (*capacity)(struct rl_array *a, sector_t len, char **error);

	/*
	 * Every location of logical sector @lsector: the data first, then its
	 * other copies, P and Q (struct rl_locset), and for how many sectors
	 * from @lsector that placement holds. The placement only: failed
	 * members are listed too. Reads the instance (geometry, options, any
	 * table the scheme keeps) after ->ctr; no I/O, does not sleep. Called
	 * through rl_locate() (svc/layout.h), which keeps @lsector below
	 * ti->len.
	 */
	void (*locate)(struct rl_array *a, sector_t lsector,
		       struct rl_locset *ls);

	/*
	 * The inverse of ->locate: what sector @msector of @member holds.
	 * RL_PART_DATA or RL_PART_COPY with *@lsector set to the logical
	 * sector; RL_PART_P, RL_PART_Q or RL_PART_LOG (*@lsector untouched);
	 * RL_PART_NONE where the layout puts nothing. Every location ->locate
	 * gives is owned with that part and sector. Same context as ->locate;
	 * called through rl_owner(), which answers RL_PART_NONE itself
	 * outside [data_offset, data_offset + member_sectors) and keeps
	 * @member below nr_members.
	 */
	enum rl_part (*owner)(struct rl_array *a, unsigned int member,
			      sector_t msector, sector_t *lsector);

	/*
	 * Set up scheme state in a->scheme and the target's limits
	 * (max_io_len, num_flush_bios, num_discard_bios). May sleep. On error
	 * sets a->ti->error and returns a negative errno; ->dtr is not called.
	 */
	int (*ctr)(struct rl_array *a);

	/* Free what ->ctr made. No I/O is in flight. */
	void (*dtr)(struct rl_array *a);

	/*
	 * Map one bio, as a dm map function: return DM_MAPIO_REMAPPED,
	 * DM_MAPIO_SUBMITTED or DM_MAPIO_KILL. The per-bio data has been
	 * filled by the core. Must not sleep waiting for other I/O.
	 */
	int (*map)(struct rl_array *a, struct bio *bio);

	/*
	 * An empty REQ_PREFLUSH bio, for a scheme that sets num_flush_bios to
	 * 1 and completes flushes itself (altmirror's volatile pool: when
	 * every write before it is on every disk); as ->map. Optional:
	 * without it the core sends a flush to every member.
	 */
	int (*flush)(struct rl_array *a, struct bio *bio);

	/*
	 * Completion of a bio the scheme remapped, as a dm end_io function.
	 * Optional.
	 */
	int (*end_io)(struct rl_array *a, struct bio *bio, blk_status_t *error);

	/*
	 * Start no new background work (resync): the target is being
	 * suspended. Optional. May sleep.
	 */
	void (*presuspend)(struct rl_array *a);

	/*
	 * Wait for background work in flight: after this no member I/O may
	 * be issued until ->resume. Optional. May sleep.
	 */
	void (*postsuspend)(struct rl_array *a);

	/*
	 * Before the table goes live (after the core's preresume: failed
	 * roles given to spares, the bad-block lists loaded): work that must
	 * come before any bio and any background job, such as the replay of
	 * a crash's records. 0, or a negative errno that fails the resume.
	 * Optional. May sleep.
	 */
	int (*preresume)(struct rl_array *a);

	/* The table is live again: (re)start background work. Optional. */
	void (*resume)(struct rl_array *a);

	/* Queue limits for the array. Optional. */
	void (*io_hints)(struct rl_array *a, struct queue_limits *limits);

	/*
	 * Append the scheme's own fields to the status line at *@sz, each
	 * word after a space; the core counts them. STATUSTYPE_INFO: the
	 * fields of the scheme's group, which the core ends the line with
	 * ("<scheme> <#fields> <fields>..."). STATUSTYPE_TABLE: its options,
	 * after queue_depth. Optional.
	 */
	void (*status)(struct rl_array *a, status_type_t type, char *result,
		       unsigned int maxlen, unsigned int *sz);

	/*
	 * A message the core does not know: return -ENOTTY if it is not the
	 * scheme's either, else as a dm message function (0, a negative
	 * errno, or 1 after writing to @result). May sleep. Optional.
	 */
	int (*message)(struct rl_array *a, unsigned int argc, char **argv,
		       char *result, unsigned int maxlen);

	/*
	 * Background work over member sectors [req->msector, req->msector +
	 * req->len) of every member (after data_offset), as req->job says.
	 * Blocks until done; may set req->len to less than asked (one unit
	 * at least: a row, a copy window). The scheme keeps foreground I/O
	 * to the same sectors correct while it runs (row locks, a window
	 * lock) and issues its member I/O in the background class. Member
	 * errors fail their members (rl_member_fail()) and return -EIO; the
	 * job stops there. Called by the sync worker only, one at a time.
	 * Optional: without it the scheme has no redundancy to sync.
	 */
	int (*sync_range)(struct rl_array *a, struct rl_sync_req *req);
	/*
	 * True if ->sync_range honours req->readd: it asks
	 * rl_sync_skip_clean() of each unit of a rebuild (a row, a piece)
	 * under the lock that orders the unit against foreground writes, and
	 * copies nothing where it says so. The message re_add is refused for
	 * the other schemes.
	 */
	bool readd;

	/*
	 * True if every member I/O the scheme makes goes through the member
	 * queues (rl_queue_add(), rl_mio(), rl_remap()), so that a replace
	 * (svc/replace.h) sees every write to the role: the message replace
	 * is refused for the other schemes.
	 */
	bool replace;

	/*
	 * Members @newly (a bit each) failed, and the failure is recorded
	 * (failrec.c: durable in the metadata, or known, without one). Each
	 * failure of a role is told once, those the metadata holds at load at
	 * the first resume; a role a spare took and that fails again is told
	 * again. Not called if the record could not be written (the metadata
	 * failed). Called by the sync worker in process context, in the pass
	 * that gives the roles to spares and before it does; also from
	 * postsuspend, before the scheme's ->postsuspend, which must drain
	 * what this queued. The scheme queues what restores its redundancy
	 * without the members, rather than leave it to the next access (plog:
	 * the fix-up of every region with a log); it must not wait for member
	 * I/O here. Optional.
	 */
	void (*member_failed)(struct rl_array *a, unsigned long newly);

	/*
	 * The scheme's background work other than range jobs, in the pair
	 * dm-cache's policy has (get_background_work, complete): the array's
	 * background service (sync.c) owns the thread and runs the items, one
	 * at a time, beside the range worker and not behind it (a range may
	 * wait for an item). ->get_work fills @w with the next item and
	 * returns true, or false when none is left; ->do_work does it and
	 * completes it (the work is the scheme's own, so is its completion).
	 * The scheme asks for a pass with rl_sync_want_work() (any context but
	 * hard irq) and drains one with rl_sync_flush_work(): at
	 * ->postsuspend, and in ->dtr, where it first stops asking (the
	 * service outlives ->dtr). A pass asked for from ->ctr runs at the
	 * first resume, any other at once, suspended or not. Process
	 * context; may sleep and issue member I/O. Both or neither. Optional.
	 */
	bool (*get_work)(struct rl_array *a, struct rl_work *w);
	void (*do_work)(struct rl_array *a, const struct rl_work *w);
};

extern const struct rl_scheme_ops rl_raid0_ops;
extern const struct rl_scheme_ops rl_mirror_ops;
extern const struct rl_scheme_ops rl_raid10_ops;
extern const struct rl_scheme_ops rl_chained_ops;
extern const struct rl_scheme_ops rl_sr_ops;
extern const struct rl_scheme_ops rl_altmirror_ops;
extern const struct rl_scheme_ops rl_raid4_ops;
extern const struct rl_scheme_ops rl_raid5_ops;
extern const struct rl_scheme_ops rl_raid6_ops;
extern const struct rl_scheme_ops rl_plog_ops;

/* args.c: the table line, parsed without touching any device. */
struct rl_args {
	const struct rl_scheme_ops *ops;
	unsigned int chunk_sectors;
	unsigned int stripe_cache;
	bool chunk_set;
	bool stripes_set;
	bool assume_clean;
	bool start_dirty_degraded;
	const struct rl_sched_policy *policy;
	unsigned int queue_depth;
	bool depth_set;
	unsigned int nr_devs;
	char **devs;			/* points into argv; "-": missing */
	unsigned int nr_missing;
	const char *md_dev;		/* metadata <dev>, or NULL */
	unsigned int nr_spares;
	const char *spares[RL_MAX_SPARES];
	unsigned int region_sectors;	/* region_size, or 0: the default */
	const char *homehost;		/* homehost <name>, or NULL */
	enum rl_jnl_mode journal;	/* journal on|off, or auto */
	unsigned int sopt[RL_MAX_SCHEME_OPTS];	/* the scheme's ->opts values */
	const char *sopt_word[RL_MAX_SCHEME_OPTS];	/* word options', in argv */
	unsigned long sopt_given;	/* those in the line: a bit each */
};

const struct rl_scheme_ops *rl_scheme_find(const char *name);
unsigned int rl_args_redundancy(const struct rl_args *args);
int rl_parse_args(unsigned int argc, char **argv, struct rl_args *args,
		  char **error);

/* member.c: member I/O bookkeeping and failure handling. */
static inline struct rl_bio *rl_pb(struct bio *bio)
{
	return dm_per_bio_data(bio, sizeof(struct rl_bio));
}

/*
 * The scheme's per-bio data (->per_bio_size bytes, given as @size), just
 * before struct rl_bio: rl_pb() does not depend on the scheme.
 */
static inline void *rl_pb_scheme(struct bio *bio, size_t size)
{
	return dm_per_bio_data(bio, sizeof(struct rl_bio) + size);
}

static inline bool rl_member_failed(const struct rl_array *a, unsigned int m)
{
	return test_bit(m, &a->failed);
}

unsigned int rl_nr_failed(const struct rl_array *a);
/*
 * Whether the data survives the members in @failed failing: no more than
 * a->redundancy of them, or a set the scheme's ->survives accepts. Any
 * context.
 */
bool rl_survives(struct rl_array *a, unsigned long failed);
/* Whether the array still holds its data with the members failed now. */
static inline bool rl_array_alive(struct rl_array *a)
{
	return rl_survives(a, READ_ONCE(a->failed));
}

void rl_member_fail(struct rl_array *a, unsigned int m, const char *why);
unsigned long rl_members_flush(struct rl_array *a, unsigned long members);
void rl_members_flush_fail(struct rl_array *a, unsigned long members,
			   const char *why);
void rl_member_fail_io(struct rl_array *a, unsigned int m,
		       const struct dm_dev *dev, const char *why);
void rl_member_set_dev(struct rl_array *a, unsigned int m, struct dm_dev *dev);
bool rl_member_read_error(struct rl_array *a, unsigned int m,
			  const struct dm_dev *dev, u64 where);
bool rl_member_read_lost(struct rl_array *a, unsigned int m,
			 const struct dm_dev *dev, u64 where);
bool rl_status_fails_member(blk_status_t status);
void rl_member_start(struct rl_array *a, unsigned int m, enum rl_io_kind kind);
/* submit what a member queue issued (svc/replace_io.c) */
void rl_member_submit(struct rl_array *a, unsigned int m, struct bio *bio);
void rl_member_done(struct rl_array *a, unsigned int m,
		    const struct rl_qent *qe);
/* Whether anything waits in @q. Any context, with or without its lock. */
static inline bool rl_queue_waiting(const struct rl_queue *q)
{
	return READ_ONCE(q->queued[RL_FG]) || READ_ONCE(q->queued[RL_BG]);
}

/*
 * Whether member @m's queue is idle: nothing waits and nothing is issued.
 * Any context; a hint (it may change at once).
 */
static inline bool rl_queue_idle(struct rl_array *a, unsigned int m)
{
	const struct rl_queue *q = &a->members[m].q;

	return !rl_queue_waiting(q) && !atomic_read(&q->issued);
}

void rl_queue_init(struct rl_array *a, unsigned int m);
void rl_queue_add(struct rl_array *a, unsigned int m, struct rl_qent *qe);
bool rl_queue_cancel(struct rl_array *a, unsigned int m, struct rl_qent *qe);
void rl_queue_unused(struct rl_array *a, unsigned int m);
void rl_queue_set_policy(struct rl_array *a, const struct rl_sched_policy *p);
void rl_queue_counts(struct rl_array *a, unsigned int m,
		     unsigned int queued[RL_NR_CLASSES], unsigned int *issued);
void rl_remap(struct rl_array *a, struct bio *bio, unsigned int m,
	      sector_t msector);
void rl_remap_alts(struct rl_array *a, struct bio *bio, unsigned int m,
		   const sector_t *alt, unsigned int nr);
void rl_remap_prepare(struct rl_array *a, struct bio *bio, unsigned int m,
		      sector_t msector);

/*
 * sync.c: background jobs (resync, rebuild onto spares, check, repair)
 * with progress, checkpoints in the metadata and a rate limit.
 */
int rl_sync_init(struct rl_array *a, char **error);
/*
 * After ->ctr and rl_sync_init(): refuse (-EINVAL, *error set) to start a
 * parity array that is dirty and degraded with no journal over its write
 * hole, unless the table says start_dirty_degraded (md's rule).
 */
int rl_sync_check_start(struct rl_array *a, char **error);
void rl_sync_free(struct rl_array *a);
void rl_sync_preresume(struct rl_array *a);	/* spares take failed roles */
void rl_sync_start(struct rl_array *a);	/* resume */
void rl_sync_stop(struct rl_array *a);	/* presuspend: no new range */
void rl_sync_wait(struct rl_array *a);	/* postsuspend: range in flight done */
/*
 * Spares a scheme holds for its own use (their slots in a->spares stay
 * theirs, so the table line still names them): the spare whose disk uuid
 * is @uuid, or -ENOENT; hold spare @j (no role is given to it); release it
 * (the lifecycle looks again); and the exchange of an in-sync role @m's
 * disk with held spare @j's, in one metadata commit that rewrites every
 * superblock: @j's disk takes the role, the role's disk becomes spare @j.
 * Process context, the array's sync worker (->sync_range) or ->ctr.
 */
int rl_sync_find_spare(struct rl_array *a, const u8 uuid[16]);

/* The first spare no role took and no scheme holds, or -1. */
static inline int rl_free_spare(const struct rl_array *a)
{
	unsigned int j;

	for (j = 0; j < a->nr_spares; j++)
		if (a->spares[j] && !test_bit(j, &a->spares_held))
			return j;
	return -1;
}

void rl_sync_hold_spare(struct rl_array *a, unsigned int j);
void rl_sync_release_spare(struct rl_array *a, unsigned int j);
int rl_sync_swap_spare(struct rl_array *a, unsigned int m, unsigned int j);
/* A pass over the scheme's work items (->get_work), and waiting for one. */
void rl_sync_want_work(struct rl_array *a);
void rl_sync_flush_work(struct rl_array *a);
/*
 * A range of req->job is done: move its cursor. ->sync_range calls it
 * before foreground I/O to the range may go on when the cursor matters to
 * that I/O (the stripe engine's rebuild: a write above the cursor skips
 * the rebuilding member).
 */
void rl_sync_advance(struct rl_array *a, const struct rl_sync_req *req);
/*
 * For ->sync_range, of a unit of a rebuild at member sectors [@msector,
 * @msector + @len) of req->target: true if the unit may be skipped, the
 * member being re-added (req->readd) and no write having touched the
 * unit's write-intent regions since the member failed. The caller holds
 * the unit against foreground writes (a row lock, a copy window): a write
 * that left the member out there set its region's bit before it let go.
 * Any context.
 */
bool rl_sync_skip_clean(struct rl_array *a, const struct rl_sync_req *req,
			sector_t msector, sector_t len);
/*
 * Failed member @m missed a write that no write-intent region records (a
 * mirror's discard): a re-add must rebuild it whole. Any context.
 */
void rl_sync_readd_forget(struct rl_array *a, unsigned int m);
/*
 * True if redundancy at member sector @msector may be inconsistent with the
 * data: not resynced yet since creation, or in a region dirty at an unclean
 * shutdown and not resynced since. A write there must rewrite all of its
 * redundancy (a stripe row's whole parity); a mirror read there must come
 * from the resync's source, the lowest in-sync member. Any context.
 */
bool rl_sync_suspect(struct rl_array *a, sector_t msector);
unsigned long __rl_unreadable_at(struct rl_array *a, sector_t msector,
				 unsigned long failed, unsigned long reb);

/*
 * Members that must not be read at member sector @msector: failed ones,
 * and those being rebuilt at or above their cursor. With no member being
 * rebuilt (the usual case) that is the failed ones, without a call. Any
 * context.
 *
 * A role moves between the two sets without a lock: a disk taking it
 * (rl_member_set_dev()) enters rebuilding, cursor 0, before it leaves
 * failed; a rebuilding member that fails enters failed before it leaves
 * rebuilding (the lifecycle). Reading rebuilding on both sides of failed
 * sees the role in one set or the other, whichever way it moves; the
 * cursors are read after.
 */
static inline unsigned long rl_unreadable_at(struct rl_array *a,
					     sector_t msector)
{
	unsigned long reb = READ_ONCE(a->rebuilding), failed;

	smp_rmb();	/* a role out of rebuilding is in failed (above) */
	failed = READ_ONCE(a->failed);
	smp_rmb();	/* a role out of failed is in rebuilding (above) */
	reb |= READ_ONCE(a->rebuilding);
	if (!reb)
		return failed;
	return __rl_unreadable_at(a, msector, failed, reb);
}

/* the failures ->member_failed is not yet told of (sync.c; pure) */
unsigned long rl_sync_untold(unsigned long *told, unsigned long failed);
/* sync_ctl.c: what the status says of the background jobs */
struct rl_sync_progress {
	sector_t done, total;		/* array sectors */
	const char *action;		/* dm-raid's sync_action word */
	u64 mismatches;			/* of the last or current check/repair */
	bool resyncing;			/* copies or parity not yet consistent */
};

void rl_sync_status(struct rl_array *a, struct rl_sync_progress *p);
/* sync_ctl.c: -ENOTTY if @argv is not one of its messages; 1 with text */
int rl_sync_message(struct rl_array *a, unsigned int argc, char **argv,
		    char *result, unsigned int maxlen);
/* A message is refused: log the reason, keep it for "last_error". */
__printf(2, 3)
void rl_msg_refused(struct rl_array *a, const char *fmt, ...);
/* Forget the last reason (a new message came in). */
void rl_msg_clear(struct rl_array *a);

/*
 * failrec.c: the durable record of member failures, and the completions
 * that wait for it.
 */
void rl_failrec_init(struct rl_array *a);
/* rl_member_fail() calls it: a new failure to record. Any context. */
void rl_failrec_kick(struct rl_array *a);
/*
 * Returns true if every failure so far is durable; else queues @w, whose
 * @fn runs once they are (or could not be made so), and returns false.
 * Any context.
 */
bool rl_failrec_wait(struct rl_array *a, struct rl_commit_waiter *w,
		     void (*fn)(struct rl_commit_waiter *w, blk_status_t st));
/*
 * Sleep until every failure so far is durable. Returns 0, or -EIO if it
 * could not be recorded. Process context, holding nothing the commit
 * takes (the metadata lock).
 */
int rl_failrec_sync(struct rl_array *a);
/*
 * The core's end_io: hold a write or flush that ended with @error while a
 * failure is not yet durable. Returns true if held (end_io returns
 * DM_ENDIO_INCOMPLETE; the bio is ended again once the record is made).
 */
bool rl_failrec_hold(struct rl_array *a, struct bio *bio, blk_status_t error);
/*
 * At construction, after the metadata is open: members missing from the
 * table (or failed at load) that the metadata still counts in the array
 * are written failed, events raised, before the table goes live.
 */
int rl_failrec_load(struct rl_array *a);

/* trackio.c: head tracking on the members (tracker.h). */
void rl_track_init(struct rl_array *a);
int rl_track_set_geom(struct rl_array *a, unsigned int m, const char *line,
		      char **error);
void rl_track_stop(struct rl_array *a);
void rl_track_quiesce(struct rl_array *a);
void rl_track_start(struct rl_array *a);
void rl_track_free(struct rl_array *a);
void rl_track_status(struct rl_array *a, unsigned int m, char *result,
		     unsigned int maxlen);
u64 __rl_track_predict(struct rl_array *a, unsigned int m, sector_t sector,
		       unsigned int sectors);

/*
 * The tracker's predicted time, in ns from now, until a read of @sectors
 * at @sector on member @m would complete, queued behind the I/Os the
 * member has issued and those waiting; U64_MAX when it cannot say (no
 * geometry loaded, the usual case, answered here without a call; see
 * __rl_track_predict()).
 */
static inline u64 rl_track_predict(struct rl_array *a, unsigned int m,
				   sector_t sector, unsigned int sectors)
{
	if (!READ_ONCE(a->members[m].q.trk))
		return U64_MAX;
	return __rl_track_predict(a, m, sector, sectors);
}

void rl_restore(struct bio *bio);
void rl_trim_to_chunk(struct rl_array *a, struct bio *bio, sector_t lsector);
void rl_bio_record(struct bio *bio, struct rl_bio_record *rec);
void rl_bio_restore(struct bio *bio, const struct rl_bio_record *rec);
int rl_map_duplicate(struct rl_array *a, struct bio *bio);
bool rl_end_remapped(struct rl_array *a, struct bio *bio, blk_status_t error);

#endif /* DM_RAIDLAB_H */
