// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab duplicate-then-cancel (dup.h): one read queued on two
 * members, the first queue to pick it issues it.
 *
 * The claim is one cmpxchg: the entry whose queue picks it first takes
 * it. The winner then cancels the other entry (rl_queue_cancel(): out of
 * its queue if it still waits) and issues. A loser whose queue picked it
 * before the cancel could reach it finds the claim taken and gives back
 * the slot it was given (rl_queue_unused()). The references: one for each
 * entry until it is issued, cancelled or given back, one for the adder
 * until both entries are queued, so that the group outlives every path
 * that can still reach it.
 */
#include "dup.h"

static void rl_dup_put(struct rl_dup *d)
{
	if (refcount_dec_and_test(&d->refs))
		d->release(d);
}

/* A queue picked entry @e: issue it if it is the first, else give it up. */
static void rl_dup_submit(struct rl_qent *qe)
{
	struct rl_dup_ent *e = container_of(qe, struct rl_dup_ent, qe);
	struct rl_dup *d = e->dup;
	unsigned int i = e - d->ent;
	struct rl_dup_ent *o = &d->ent[!i];

	if (atomic_cmpxchg(&d->claim, 0, i + 1)) {
		rl_queue_unused(d->a, e->member);
		rl_dup_put(d);
		return;
	}
	if (rl_queue_cancel(d->a, o->member, &o->qe))
		rl_dup_put(d);
	d->issue(d, i);
	rl_dup_put(d);
}

/**
 * rl_dup_queue() - queue one read on two members, the first to pick wins
 * @d: the group: a, ent[].member, ent[].qe.sector, issue, release set
 * @sectors: the read's length
 *
 * The first entry is added first: if its member has a free slot it is
 * issued at once and the second is never queued. Process context (it may
 * issue). @d must stay allocated until ->release.
 */
void rl_dup_queue(struct rl_dup *d, unsigned int sectors)
{
	unsigned int i;

	atomic_set(&d->claim, 0);
	refcount_set(&d->refs, 3);
	for (i = 0; i < 2; i++) {
		d->ent[i].dup = d;
		INIT_LIST_HEAD(&d->ent[i].qe.node);
		rl_qent_init(&d->ent[i].qe, d->ent[i].qe.sector, sectors, false,
			     RL_FG, rl_dup_submit);
	}
	rl_queue_add(d->a, d->ent[0].member, &d->ent[0].qe);
	if (atomic_read(&d->claim))
		rl_dup_put(d);		/* won already: no second entry */
	else
		rl_queue_add(d->a, d->ent[1].member, &d->ent[1].qe);
	rl_dup_put(d);
}
