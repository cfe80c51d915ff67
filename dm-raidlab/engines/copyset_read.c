// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: which copy a read goes to. The balance
 * (rl_cs_read_balance()) chooses over what each member's queue and head
 * say (cs_views()); chained declustering with members out holds that
 * choice to the chain's loads (cs_shift()); and with the "reads dup"
 * option (paper 002, section 3.3) a read whose copies are all readable
 * and alike goes to the balance's choice alone if a member holding a copy
 * is idle, and is otherwise queued on every member holding one (svc/dup.h;
 * at most RL_DUP_MAX, the balance's choice first, then fewest I/Os in
 * flight), each offered every replica of its copy. The first queue to
 * pick it issues the bio there; the other entries are cancelled. That
 * pays off where reads wait in the member queues (a low queue_depth, as
 * the paper's scheduler keeps the disk's).
 *
 * A duplicate group is a mempool element, not per-bio data: its losing
 * entry may still wait in a queue when the bio has ended. The engine
 * counts the groups alive and waits for them before it frees the pool.
 */
#include <linux/mempool.h>
#include <linux/wait_bit.h>

#include "../svc/dup.h"
#include "copyset_int.h"

#define RL_CS_DUP_MIN	16	/* groups reserved in the pool */

/*
 * Chained declustering with members out (failed, or being rebuilt):
 * the balance's choice @m for piece @p, held to the chain's loads
 * (rl_cs_chained_prefer()) against the chunk's other readable copy, and
 * counted. The counts start again when the set of members out changes,
 * and before they grow large enough to overflow the comparison.
 */
static unsigned int cs_shift(struct rl_array *a, const struct rl_cs_piece *p,
			     unsigned int m, unsigned long unreadable,
			     unsigned long out)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned long others = p->members & ~unreadable & ~BIT(m);
	unsigned long seen = READ_ONCE(cs->shift_out);
	unsigned int o, i;

	if (seen != out && cmpxchg(&cs->shift_out, seen, out) == seen)
		for (i = 0; i < a->geom.nr_members; i++)
			atomic64_set(&cs->served[i], 0);
	if (others) {
		o = __ffs(others);
		m = rl_cs_chained_prefer(a->geom.nr_members, out, m, o,
					 atomic64_read(&cs->served[m]),
					 atomic64_read(&cs->served[o]));
	}
	if (atomic64_inc_return(&cs->served[m]) > RL_CS_SHIFT_MAX)
		WRITE_ONCE(cs->shift_out, 0);	/* the next read starts again */
	return m;
}

/*
 * The tracker's access time of member @m's copy of piece @p, 0 for none:
 * with replicas, of the replica it would reach first (paper 002 section
 * 3.3, "the idle disk head that is closest to a copy"), v->sector that
 * replica's.
 */
static void cs_view_predict(struct rl_array *a, unsigned int m,
			    const struct rl_cs_piece *p, struct rl_cs_view *v)
{
	sector_t alt[RL_RREP_MAX_DR];
	unsigned int i, n = cs_rep_alts(a, p->sector[m], p->len, alt, NULL);
	u64 t;

	v->sector = alt[0];
	v->predicted_ns = U64_MAX;
	for (i = 0; i < n; i++) {
		t = rl_track_predict(a, m, alt[i], p->len);
		if (t < v->predicted_ns) {
			v->predicted_ns = t;
			v->sector = alt[i];
		}
	}
	if (v->predicted_ns == U64_MAX)
		v->predicted_ns = 0;
}

/* What the balance knows of each member for piece @p. */
static void cs_views(struct rl_array *a, const struct rl_cs_piece *p,
		     unsigned long unreadable, struct rl_cs_view *v)
{
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		v[m].failed = rl_member_failed(a, m) ||
			      test_bit(m, &unreadable);
		if (v[m].failed) {
			v[m].predicted_ns = 0;
			continue;
		}
		v[m].head = READ_ONCE(a->members[m].head);
		v[m].inflight = atomic_read(&a->members[m].inflight);
		cs_view_predict(a, m, p, &v[m]);
	}
}

/*
 * The member to read piece @p from, or RL_NONE: @unreadable are the
 * members that must not read it (cs_unreadable()), @suspect whether its
 * copies may differ (cs_suspect(): then the resync's source). *@free is
 * set to whether the balance chose among copies that are alike, with no
 * rule of the layout's.
 */
unsigned int cs_choose(struct rl_array *a, const struct rl_cs_piece *p,
		       unsigned long unreadable, bool suspect, bool *free)
{
	struct rl_cs_view v[RL_MAX_MEMBERS];
	unsigned long out;
	unsigned int m;

	cs_views(a, p, unreadable, v);
	m = rl_cs_read_choose(v, a->geom.nr_members, unreadable, suspect);
	*free = !suspect && m != RL_NONE;
	if (!*free || rl_copyset(a)->layout.kind != RL_CS_CHAINED)
		return m;
	out = READ_ONCE(a->failed) | READ_ONCE(a->rebuilding);
	if (!out)
		return m;
	*free = false;
	return cs_shift(a, p, m, unreadable, out);
}

/*
 * A duplicate group and, for each entry, which replica each of its
 * places is (the winner's go into the bio's per-bio data).
 */
struct cs_dup {
	struct rl_dup d;
	u8 rep[RL_DUP_MAX][RL_RREP_MAX_DR];
};

/*
 * The winner: the bio goes to ent[@i]'s member, holding its slot, at the
 * place its queue picked; its places are copied into the bio's data (the
 * group may go before the bio ends).
 */
static void cs_dup_issue(struct rl_dup *d, unsigned int i)
{
	struct cs_dup *cd = container_of(d, struct cs_dup, d);
	struct bio *bio = d->private;
	struct rl_cs_bio *mb = cs_pb(bio);
	struct rl_bio *pb = rl_pb(bio);
	struct rl_dup_ent *e = &d->ent[i];

	rl_remap_prepare(d->a, bio, e->member, rl_qent_sector(&e->qe));
	pb->qe = e->qe;			/* rl_member_done() at its end */
	INIT_LIST_HEAD(&pb->qe.node);
	if (e->qe.alt) {
		memcpy(mb->alt, e->alt, sizeof(mb->alt));
		memcpy(mb->rep, cd->rep[i], sizeof(mb->rep));
		pb->qe.alt = mb->alt;
	} else {
		mb->rep[0] = cd->rep[i][0];
	}
	rl_member_submit(d->a, e->member, bio);
}

static void cs_dup_release(struct rl_dup *d)
{
	struct rl_copyset *cs = rl_copyset(d->a);

	mempool_free(container_of(d, struct cs_dup, d), &cs->dup_pool);
	if (atomic_dec_and_test(&cs->dups))
		wake_up_var(&cs->dups);
}

/*
 * The members a read of piece @p waits on, @first (the balance's choice)
 * first, then the others that can read it, fewest I/Os in flight first;
 * at most RL_DUP_MAX. Returns how many, or 0 if one of them is idle: the
 * read then goes to one member alone (paper 002, section 3.3: "if some of
 * the disks that contain the data are idle, the scheduler immediately
 * sends the request to the idle disk head that is closest to a copy",
 * which is what the balance picks among idle ones).
 */
static unsigned int cs_dup_members(struct rl_array *a,
				   const struct rl_cs_piece *p,
				   unsigned int first, unsigned long unreadable,
				   unsigned int *mem)
{
	unsigned long left = p->members & ~unreadable & ~BIT(first);
	unsigned int m, best, n = 0;

	mem[n++] = first;
	while (left && n < RL_DUP_MAX) {
		best = RL_NONE;
		for_each_set_bit(m, &left, a->geom.nr_members)
			if (best == RL_NONE ||
			    atomic_read(&a->members[m].inflight) <
			    atomic_read(&a->members[best].inflight))
				best = m;
		__clear_bit(best, &left);
		mem[n++] = best;
	}
	for (m = 0; m < n; m++)
		if (rl_queue_idle(a, mem[m]))
			return 0;
	return n > 1 ? n : 0;
}

/*
 * Queue read piece @p (all of @bio) on @first and on the other members
 * that hold a readable copy (cs_dup_members()), each offered every
 * replica of its copy that stays on its track; or return false (a member
 * idle, no other copy, no group free now: the caller reads @first
 * alone). Not for a range whose propagation waits (its replicas differ).
 * Process context.
 */
bool cs_read_dup(struct rl_array *a, struct bio *bio,
		 const struct rl_cs_piece *p, unsigned int first,
		 unsigned long unreadable)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int mem[RL_DUP_MAX], i, n;
	struct rl_dup_ent *e;
	struct cs_dup *cd;

	/* @unreadable holds the failed members too (cs_unreadable()) */
	n = cs_dup_members(a, p, first, unreadable, mem);
	if (!n)
		return false;
	cd = mempool_alloc(&cs->dup_pool, GFP_NOWAIT);
	if (!cd)
		return false;
	atomic_inc(&cs->dups);
	cd->d.a = a;
	cd->d.nr = n;
	cd->d.private = bio;
	cd->d.issue = cs_dup_issue;
	cd->d.release = cs_dup_release;
	for (i = 0; i < n; i++) {
		e = &cd->d.ent[i];
		e->member = mem[i];
		e->nr_alts = cs_rep_alts(a, p->sector[mem[i]], p->len, e->alt,
					 cd->rep[i]);
		e->qe.sector = e->alt[0];
	}
	rl_dup_queue(&cd->d, p->len);
	return true;
}

/*
 * The reads option's TABLE words, after the scheme's own: " reads dup"
 * when it is not the default.
 */
void rl_copyset_status_table(struct rl_array *a, char *result,
			     unsigned int maxlen, unsigned int *psz)
{
	enum rl_cs_reads reads = rl_copyset(a)->reads;
	unsigned int sz = *psz;

	if (reads != RL_CS_READS_BALANCE)
		DMEMIT(" reads %s", rl_cs_reads_name(reads));
	*psz = sz;
}

/* The pool, for "reads dup" only. Sets no ti->error. */
int cs_dup_init(struct rl_copyset *cs, enum rl_cs_reads reads)
{
	cs->reads = reads;
	atomic_set(&cs->dups, 0);
	if (reads != RL_CS_READS_DUP)
		return 0;
	return mempool_init_kmalloc_pool(&cs->dup_pool, RL_CS_DUP_MIN,
					 sizeof(struct cs_dup));
}

/*
 * Wait for the groups still alive (losing entries left in queues whose
 * bios have ended: each queue picks them as its slots free), then free
 * the pool. The array is suspended. May sleep.
 */
void cs_dup_exit(struct rl_copyset *cs)
{
	wait_var_event(&cs->dups, !atomic_read(&cs->dups));
	mempool_exit(&cs->dup_pool);
}
