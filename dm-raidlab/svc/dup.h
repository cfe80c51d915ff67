/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab duplicate-then-cancel (paper 002, section 3.3): one read
 * queued on several members that each hold a copy (at most RL_DUP_MAX);
 * the first of the queues to pick it wins and issues it, and every other
 * entry is cancelled, taken out of its queue if it still waits there, or
 * given back its slot if its queue picked it too (the claim decides which
 * one won).
 *
 * The group lives apart from the bio, refcounted: the bio may end before
 * a losing entry's queue gets to it, and the entry then still points
 * into the group. The owner allocates it (a mempool), fills in nr, each
 * entry's member, sector and the places its queue may choose from (a
 * member's rotational replicas, as rl_remap_alts() takes them), and its
 * callbacks, and calls rl_dup_queue(); ->issue runs once, for the winner,
 * and ->release once the last reference is gone. KUnit: suite
 * dm_raidlab_member.
 */
#ifndef DM_RAIDLAB_DUP_H
#define DM_RAIDLAB_DUP_H

#include <linux/refcount.h>

#include "../raidlab.h"
#include "rrep.h"

#define RL_DUP_MAX	4	/* entries a group: members a read waits on */

struct rl_dup;

/* One of the group's entries. */
struct rl_dup_ent {
	struct rl_qent qe;		/* qe.sector: the place, alt[0] */
	struct rl_dup *dup;
	unsigned int member;
	/* the places its queue may pick from, alt[0] == qe.sector; 0 or 1: one */
	unsigned int nr_alts;
	sector_t alt[RL_RREP_MAX_DR];
};

struct rl_dup {
	struct rl_array *a;
	unsigned int nr;		/* entries, 2 to RL_DUP_MAX */
	struct rl_dup_ent ent[RL_DUP_MAX];
	atomic_t claim;			/* 0: open; i + 1: ent[i] won */
	refcount_t refs;		/* an entry's each, and the adder's */
	/*
	 * The winner's I/O: issue it on ent[@i].member, now, as the entry
	 * that holds the queue slot (process context, no queue lock held),
	 * at rl_qent_sector(&ent[@i].qe). The I/O's end calls
	 * rl_member_done() with a copy of the entry, whose alt must then
	 * point outside the group (it may be released first).
	 */
	void (*issue)(struct rl_dup *d, unsigned int i);
	/* The last reference is gone: free @d. Any context. */
	void (*release)(struct rl_dup *d);
	void *private;
};

void rl_dup_queue(struct rl_dup *d, unsigned int sectors);

#endif /* DM_RAIDLAB_DUP_H */
