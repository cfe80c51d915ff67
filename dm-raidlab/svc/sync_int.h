/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab sync service internals shared by sync.c (the worker and the
 * lifecycle), spare.c (spares) and sync_ctl.c (status and messages).
 */
#ifndef DM_RAIDLAB_SYNC_INT_H
#define DM_RAIDLAB_SYNC_INT_H

#include "../raidlab.h"
#include "metadata.h"

#include <linux/math64.h>

#define RL_MSG_ERROR_LEN	96
#define RL_SYNC_UNIT		2048	/* member sectors asked per range */

struct rl_sync {
	struct rl_array *a;
	struct workqueue_struct *wq;	/* ordered: one range at a time */
	struct work_struct work;
	struct workqueue_struct *item_wq;	/* ordered: one item at a time */
	struct work_struct item_work;
	spinlock_t lock;		/* everything below */
	bool stopped;			/* suspended: no new range */
	bool frozen;			/* message frozen: no new range */
	bool busy;			/* the worker is running */
	bool kicked;			/* something to look at since its last pass */
	unsigned long told;		/* failures ->member_failed was told of */
	wait_queue_head_t wait;

	/* the job in progress, for status */
	bool active;
	enum rl_sync_job job;
	unsigned int target;
	sector_t cursor;

	sector_t resync_cursor;		/* READ_ONCE: below, consistent */
	unsigned long *dirty;		/* regions to resync, or NULL */
	u64 nr_regions;
	u32 region_shift;
	u64 dirty_left;
	sector_t dirty_pos;		/* the dirty resync is done below */
	bool dirty_job;			/* the range is of the dirty resync */

	/* check or repair, asked for by message */
	bool scrub_wanted;
	enum rl_sync_job scrub_job;
	sector_t scrub_cursor;
	u64 mismatches;			/* of the last or current scrub */
	bool scrub_done;		/* a scrub ran to the end */

	/* re-add (sync_readd.c): roles asked for, and those asked whole */
	unsigned long readd_want;
	unsigned long readd_full;
	struct dm_dev *readd_dev[RL_MAX_MEMBERS];	/* the disk checked */
	/*
	 * failed roles the held regions do not cover: failed at load, failed
	 * while rebuilt whole (good below a cursor only), or past a mirror
	 * discard they missed; re-added only whole
	 */
	unsigned long untracked;
	atomic64_t readd_skipped[RL_MAX_MEMBERS];	/* sectors not copied */

	unsigned int rate_kbps;		/* 0: unlimited */
	char refused[RL_MSG_ERROR_LEN];	/* the last refused message's reason */
	unsigned long last_checkpoint;	/* jiffies */
};

static inline struct rl_sync *rl_sync(struct rl_array *a)
{
	return a->sync;
}

static inline sector_t rl_sync_total(struct rl_array *a)
{
	return a->member_sectors;
}

/*
 * Progress in array sectors: member sectors scaled by the target's length
 * over the members' span (a stripe row's nr_data; plog has a layout of
 * its own, where nr_data means nothing).
 */
static inline sector_t rl_sync_to_array(struct rl_array *a, sector_t msector)
{
	return mul_u64_u64_div_u64(msector, a->ti->len, rl_sync_total(a));
}

/* Keep @text as the reason "last_error" answers (sync_ctl.c). */
static inline void rl_sync_set_reason(struct rl_sync *s, const char *text)
{
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	strscpy(s->refused, text, sizeof(s->refused));
	spin_unlock_irqrestore(&s->lock, flags);
}

/* the jobs' names, as the status says them (dm-raid's sync_action) */
extern const char *const rl_sync_names[RL_NR_SYNC_JOBS];

/* Run the sync worker unless it runs already or the array is suspended. */
void rl_sync_kick(struct rl_array *a);
/* Every member's state and cursor into @st (failrec.c). Under rl_md_lock(). */
void rl_sync_state_members(struct rl_array *a, struct rl_md_state *st);
/*
 * The range the worker would take next, if any (*@dirty: of the dirty
 * resync). Under s->lock; the worker does not take it while stopped or
 * frozen.
 */
bool rl_sync_next(struct rl_array *a, struct rl_sync_req *req, bool *dirty);
/*
 * sync_readd.c: the re-adds asked for (the message re_add, sync_ctl.c),
 * made by the lifecycle (@failed: the roles failed and recorded; true if
 * one changed); what a re-add's rebuild skipped so far (0 if @req is not
 * one); the end of a re-added member's rebuild (under s->lock).
 */
bool rl_sync_readd(struct rl_array *a, unsigned long failed);
u64 rl_sync_readd_skipped(struct rl_array *a, const struct rl_sync_req *req);
void rl_sync_readd_done(struct rl_array *a, unsigned int m);

#endif /* DM_RAIDLAB_SYNC_INT_H */
