/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab replace: a member's disk copied onto a spare while it still
 * serves, then swapped for it in one metadata commit (md's
 * want_replacement; Documentation/dm-raidlab.rst, "Replacing a disk").
 *
 * Two halves. replace_io.c is the member-I/O hook every member I/O is
 * submitted through (rl_member_submit()): while a role is replaced, a
 * write to either disk of the pair is written to both, and I/O the copy
 * must not race waits (is parked) until the copy lets it go.
 * sync_replace.c is the copy, a job of the sync worker, and the swap.
 *
 * What the copy relies on:
 *   - at its start every member I/O of the role is parked until the
 *     I/Os issued before it have ended (the quiesce): from then on every
 *     write to the old disk is also written to the new one;
 *   - each range is copied with a window around it: writes into it wait,
 *     and the writes in flight are waited for (two generations of
 *     counts) before the old disk is read, so no write lands between the
 *     copy's read and its write;
 *   - until the swap is durable a write to either disk goes to both, so
 *     a swap whose commit fails leaves the old disk complete;
 *   - after it, the role's I/O is quiesced again, and until the next
 *     suspend an I/O prepared for the disk that lost the swap (queued
 *     before it) goes to the one that won.
 */
#ifndef DM_RAIDLAB_REPLACE_H
#define DM_RAIDLAB_REPLACE_H

#include <linux/bio.h>
#include <linux/dm-io.h>
#include <linux/wait.h>

#include "../raidlab.h"

/* What the hook does with one member I/O (rl_replace_route()). */
enum rl_rp_route {
	RL_RP_PASS,		/* as it is: no pair, or a read */
	RL_RP_PARK,		/* wait for the copy (the quiesce, the window) */
	RL_RP_PAIR,		/* a write: to both disks of the pair */
	RL_RP_REDIRECT,		/* aimed at the swap's loser: to the winner */
};

/* The hook's view, under rp->lock (a copy for the pure helpers). */
struct rl_rp_view {
	bool on;		/* the role's I/O is routed */
	bool quiesce;		/* every I/O of the role waits */
	bool swapped;		/* the swap was tried: redirect, never pair */
	sector_t lo, hi;	/* the copy's window (member sectors), lo == hi: none */
};

/* One replace at a time per array (a->replace, with a metadata device). */
struct rl_replace {
	spinlock_t lock;	/* the fields to @nr_parked; any context */
	unsigned int member;	/* the role replaced, or RL_NONE */
	struct dm_dev *old;	/* its disk when the replace began */
	struct dm_dev *new;	/* the spare it is copied onto */
	/* once swapped: I/O aimed at @from goes to @to (the role's disk) */
	struct dm_dev *from, *to;
	struct rl_rp_view v;
	unsigned int gen;	/* the generation new pair writes count in */
	struct bio_list parked;	/* from the member queues */
	struct bio_list parked_dup;	/* rl_map_duplicate()'s (not queued) */
	unsigned int nr_parked;	/* in @parked */
	atomic_t writes[2];	/* pair writes in flight, by generation */
	bool broken;		/* a pair write failed on the new disk */
	wait_queue_head_t wait;
	struct bio_set bs;	/* clones to the disk a write was meant for */
	struct bio_set bs_peer;	/* and to the other disk of the pair */

	/*
	 * The copy (sync_replace.c): the sync worker's; @want, @want_member
	 * and @want_spare are the message's, under the sync lock, and
	 * @active and @cursor are read there too (status).
	 */
	int spare;		/* a->spares[] slot of @new, or -1 */
	bool active;		/* the copy runs (or waits for its turn) */
	bool want;		/* asked for by message, not started */
	unsigned int want_member;
	int want_spare;		/* -1: the first free spare */
	sector_t cursor;	/* member sectors after data_offset, copied below */
	void *buf;		/* RL_SYNC_UNIT sectors, while active */
	struct dm_io_client *io;	/* the copy's reads and writes */
};

/* replace_io.c: the hook */
enum rl_rp_route rl_replace_route(const struct rl_rp_view *v, sector_t sector,
				  unsigned int sectors, bool write, bool to_loser);
int rl_replace_init(struct rl_array *a);
void rl_replace_free(struct rl_array *a);
bool rl_replace_dup(struct rl_array *a, unsigned int m, struct bio *bio);
void rl_replace_pair(struct rl_replace *rp, unsigned int m, struct dm_dev *old,
		     struct dm_dev *new);
void rl_replace_quiesce(struct rl_array *a);
void rl_replace_window(struct rl_replace *rp, sector_t lo, sector_t hi);
void rl_replace_swapped(struct rl_replace *rp, bool done);
void rl_replace_drain(struct rl_replace *rp);
void rl_replace_unpair(struct rl_replace *rp);

/* sync_replace.c: the copy, a job of the sync worker */
struct rl_sync_req;
const char *rl_replace_refused(struct rl_array *a, unsigned int m, int j);
int rl_replace_ask(struct rl_array *a, unsigned int m, int j);
void rl_replace_lifecycle(struct rl_array *a);
bool rl_replace_next(struct rl_array *a, struct rl_sync_req *req);
int rl_replace_range(struct rl_array *a, struct rl_sync_req *req);
bool rl_replace_done(struct rl_array *a, const struct rl_sync_req *req);
void rl_replace_finish(struct rl_array *a);
void rl_replace_suspended(struct rl_array *a);
void rl_replace_drop(struct rl_array *a);

#endif /* DM_RAIDLAB_REPLACE_H */
