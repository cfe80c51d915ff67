// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab duplicate-then-cancel (dup.h): one read queued on several
 * members, the first queue to pick it issues it.
 *
 * The claim is one cmpxchg: the entry whose queue picks it first takes
 * it. The winner then cancels every other entry (rl_queue_cancel(): out
 * of its queue if it still waits) and issues. A loser whose queue picked
 * it before the cancel could reach it finds the claim taken and gives
 * back the slot it was given (rl_queue_unused()). The references: one
 * for each entry until it is issued, cancelled, given back or found not
 * to be needed (the claim taken before it was queued), one for the adder
 * until it has queued them, so that the group outlives every path that
 * can still reach it.
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
	unsigned int i = e - d->ent, o;

	if (atomic_cmpxchg(&d->claim, 0, i + 1)) {
		rl_queue_unused(d->a, e->member);
		rl_dup_put(d);
		return;
	}
	for (o = 0; o < d->nr; o++)
		if (o != i &&
		    rl_queue_cancel(d->a, d->ent[o].member, &d->ent[o].qe))
			rl_dup_put(d);
	d->issue(d, i);
	rl_dup_put(d);
}

/**
 * rl_dup_queue() - queue one read on several members, the first wins
 * @d: the group: a, nr, ent[].member, ent[].qe.sector, ent[].alt and
 *	nr_alts, issue, release set
 * @sectors: the read's length
 *
 * The entries are added in order: once one has been issued (its member
 * had a free slot), the rest are never queued. Process context (it may
 * issue). @d must stay allocated until ->release.
 */
void rl_dup_queue(struct rl_dup *d, unsigned int sectors)
{
	struct rl_dup_ent *e;
	unsigned int i;

	atomic_set(&d->claim, 0);
	refcount_set(&d->refs, d->nr + 1);
	for (i = 0; i < d->nr; i++) {
		e = &d->ent[i];
		e->dup = d;
		INIT_LIST_HEAD(&e->qe.node);
		rl_qent_init(&e->qe, e->qe.sector, sectors, false, RL_FG,
			     rl_dup_submit);
		if (e->nr_alts > 1) {
			e->qe.alt = e->alt;
			e->qe.nr_alts = e->nr_alts;
		}
	}
	for (i = 0; i < d->nr; i++) {
		if (i && atomic_read(&d->claim)) {
			rl_dup_put(d);	/* won already: not queued */
			continue;
		}
		rl_queue_add(d->a, d->ent[i].member, &d->ent[i].qe);
	}
	rl_dup_put(d);
}
