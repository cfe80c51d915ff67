/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab mirror: what its files share (mirror.c lists them): the
 * scheme's state, a write's per-bio data and clones, and each file's
 * functions. Private to the scheme; mirror.h is its pure part.
 */
#ifndef DM_RAIDLAB_MIRROR_INT_H
#define DM_RAIDLAB_MIRROR_INT_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "../../svc/mio.h"
#include "mirror.h"

#define RL_MIRROR_CHECK_BUDGET	(4U << 20)	/* check buffers, all members */
#define RL_MIRROR_CHECK_MIN	128		/* sectors a member, at least */

/* A member's check buffer: a window of a check, a copy or a read fix. */
struct rl_mirror_buf {
	u8 *data;			/* check_sectors, vmalloc()ed */
};

struct rl_mirror {
	struct bio_set bs;		/* write clones, with struct rl_mirror_clone */
	spinlock_t lock;		/* lists, window and bucket counts */
	struct bio_list retry;		/* failed reads to send elsewhere */
	struct bio_list writes;		/* writes waiting for their intent */
	struct bio_list ready;		/* writes that hold it, to clone */
	struct bio_list bb_cleared;	/* writes that cleared bad blocks */
	struct work_struct retry_work;
	struct rl_array *a;

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
	struct rl_mirror_window win;	/* the open window, len 0: none */
	bool win_draining;		/* win_drained completes at count 0 */
	struct completion win_drained;
	struct bio_list win_waiting;	/* writes held off by the window */
	unsigned int bucket_writes[RL_MIRROR_BUCKETS];	/* writes in flight */

	/*
	 * background I/O (one job at a time: sync.c's worker, or fix_work,
	 * under win_mutex), through the member queues (rl_mio())
	 */
	struct bio_set mio_bs;
	struct rl_mio_group *copy_rg;	/* a copy's reads: a group a piece */
	struct rl_mio_group copy_wg;	/* a copy's writes */
	unsigned int check_sectors;	/* window of a check or repair */
	DECLARE_BITMAP(diff, RL_MIRROR_SLOT_SECTORS);	/* mismatching sectors */
	struct rl_mirror_buf buf[];
};

/* A write's per-bio data of the mirror's own, beside struct rl_bio. */
struct rl_mirror_bio {
	atomic_t pending;		/* copies not ended, + 1 while cloning */
	atomic_t ok;			/* copies that landed */
	unsigned long bb_landed;	/* copies that landed over bad blocks */
};

static inline struct rl_mirror_bio *mirror_pb(struct bio *bio)
{
	return rl_pb_scheme(bio, sizeof(struct rl_mirror_bio));
}

struct rl_mirror_clone {
	struct bio *orig;
	struct rl_array *a;
	unsigned int member;
	struct dm_dev *dev;		/* the disk it was sent to */
	bool clears;			/* over bad-block entries: FUA, then cleared */
	struct rl_qent qe;		/* its place in the member's queue */
	struct bio clone;		/* must be last: bioset front_pad */
};

static inline struct rl_mirror *rl_mirror(struct rl_array *a)
{
	return a->scheme;
}

/* mirror_io.c */
unsigned long mirror_unreadable(struct rl_array *a, sector_t msector,
				sector_t sectors);
void mirror_defer(struct rl_mirror *mi, struct bio_list *list,
		  struct bio *bio);
void mirror_retry_work(struct work_struct *ws);
bool mirror_map_read(struct rl_array *a, struct bio *bio);
int mirror_map_write(struct rl_array *a, struct bio *bio);
unsigned int mirror_split_shift(struct rl_array *a);
void mirror_window_open(struct rl_mirror *mi, sector_t s, sector_t len);
void mirror_window_close(struct rl_mirror *mi);
int mirror_io(struct rl_array *a, unsigned int m, blk_opf_t opf, void *data,
	      sector_t s, sector_t len, enum rl_class class);
unsigned long mirror_read_all(struct rl_array *a, unsigned long members,
			      sector_t s, sector_t len);
int mirror_copy_window(struct rl_array *a, unsigned long unreadable,
		       unsigned long dests, sector_t s, sector_t len,
		       const char *job);
bool mirror_bg_read_error(struct rl_array *a, unsigned int m,
			  sector_t s, const char *job);
int mirror_bg_no_source(struct rl_array *a, unsigned long bad,
			sector_t s, const char *job);

/* mirror_fix.c */
void mirror_fix_work(struct work_struct *ws);

/* mirror_sync.c */
int mirror_sync_range(struct rl_array *a, struct rl_sync_req *req);

#endif /* DM_RAIDLAB_MIRROR_INT_H */
