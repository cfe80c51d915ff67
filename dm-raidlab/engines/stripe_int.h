/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab parity stripe engine: what stripe.c (the stripe contexts)
 * and stripe_ctr.c (construction and the scheme hooks) share. Private
 * to the engine; its interface is stripe.h.
 */
#ifndef DM_RAIDLAB_STRIPE_INT_H
#define DM_RAIDLAB_STRIPE_INT_H

#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../svc/cell.h"
#include "journal.h"
#include "stripe.h"

#define RL_SYNC_PARALLEL	4	/* rows of a background range at once */
#define RL_NO_REGION		U64_MAX
#define RL_ROW_SKIP		1	/* rl_stripe_plan(): nothing to do for the row */

enum rl_stripe_step {
	RL_STEP_PLAN,
	RL_STEP_READ_DONE,
	RL_STEP_LOG,
	RL_STEP_WRITE_DONE,
	RL_STEP_RETIRE,
	RL_STEP_END,
};

struct rl_stripe_col {
	struct bio *bio;		/* reused for this member's I/O */
	struct page **buf;		/* one chunk */
	struct rl_stripe *s;
	unsigned int member;
	struct dm_dev *dev;		/* the disk of this step's I/O */
	struct rl_qent qe;		/* its place in the member's queue */
};

struct rl_stripe {
	struct rl_engine *e;
	struct rl_cell cell;		/* its row (key) and bio: the row lock */
	struct work_struct work;
	enum rl_stripe_step step;
	bool sync;			/* a background job on the row, no bio */
	enum rl_sync_job job;		/* which, if sync */
	u64 region;			/* write intent held, or RL_NO_REGION */
	bool journaled;			/* record jseq is live in the journal */
	u64 jseq;
	struct rl_jnl_waiter jw;	/* waiting for journal space */
	struct rl_commit_waiter cw;	/* waiting for the failure record */
	atomic_t pending;		/* member I/Os in flight, plus a bias */
	unsigned long io_failed;	/* members whose I/O failed this step */
	unsigned long bad;		/* members this access reads around */
	unsigned long rewritten;	/* members a write rewrote after a read error */
	unsigned long bblk;		/* members with bad-block entries in the row */
	unsigned long bb_clear;		/* of those, members the write rewrites whole */
	unsigned int fix;		/* member whose chunk is being rewritten, or RL_NONE */
	unsigned int attempts;
	blk_status_t status;
	struct rl_plan plan;
	struct page **bufs[RL_MAX_MEMBERS];	/* col[m].buf, for the plan */
	struct rl_stripe_col col[];
};

struct rl_engine {
	struct rl_array *a;
	struct rl_cells cells;		/* the row lock over the contexts */
	unsigned int nr_stripes;
	struct rl_stripe **stripes;

	/*
	 * Background ranges (rl_stripe_sync_range()): the last free context
	 * is reserved for them meanwhile (rl_cells_reserve()); sync_pending
	 * counts their rows in flight.
	 */
	atomic_t sync_pending;
	atomic_t sync_errors;
	atomic64_t sync_mismatches;
	const struct rl_sync_req *sync_req;
	struct rl_stripe *parked[RL_SYNC_PARALLEL];	/* the range's contexts */
	wait_queue_head_t sync_wait;
};

static inline struct rl_engine *rl_engine(struct rl_array *a)
{
	return a->scheme;
}

/* stripe.c */
void rl_engine_queue(struct rl_engine *e, struct bio *bio);
void rl_stripe_begin(struct rl_stripe *s);
bool rl_stripe_release(struct rl_stripe *s);
void rl_stripe_work(struct work_struct *ws);

extern const struct rl_cells_ops rl_stripe_cells_ops;

#endif /* DM_RAIDLAB_STRIPE_INT_H */
