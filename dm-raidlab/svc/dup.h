/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab duplicate-then-cancel (paper 002, section 3.3): one read
 * queued on two members that each hold a copy; the first of the two
 * queues to pick it wins and issues it, and the other entry is cancelled,
 * taken out of its queue if it still waits there, or given back its slot
 * if its queue picked it too (the claim decides which one lost).
 *
 * The group lives apart from the bio, refcounted: the bio may end before
 * the losing entry's queue gets to it, and the entry then still points
 * into the group. The owner allocates it (a mempool), fills in the two
 * entries' members and sectors and its callbacks, and calls
 * rl_dup_queue(); ->issue runs once, for the winner, and ->release once
 * the last reference is gone. KUnit: suite dm_raidlab_member.
 */
#ifndef DM_RAIDLAB_DUP_H
#define DM_RAIDLAB_DUP_H

#include <linux/refcount.h>

#include "../raidlab.h"

struct rl_dup;

/* One of the group's two entries. */
struct rl_dup_ent {
	struct rl_qent qe;
	struct rl_dup *dup;
	unsigned int member;
};

struct rl_dup {
	struct rl_array *a;
	struct rl_dup_ent ent[2];
	atomic_t claim;			/* 0: open; i + 1: ent[i] won */
	refcount_t refs;		/* an entry's, and the adder's */
	/*
	 * The winner's I/O: issue it on ent[@i].member, now, as the entry
	 * that holds the queue slot (process context, no queue lock held).
	 * The I/O's end calls rl_member_done() with a copy of the entry.
	 */
	void (*issue)(struct rl_dup *d, unsigned int i);
	/* The last reference is gone: free @d. Any context. */
	void (*release)(struct rl_dup *d);
	void *private;
};

void rl_dup_queue(struct rl_dup *d, unsigned int sectors);

#endif /* DM_RAIDLAB_DUP_H */
