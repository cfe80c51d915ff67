// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: the write and read paths' side of delayed
 * propagation (copyset_prop.c has the rest): a write takes its entry in
 * the table before it is cloned, with the replicas the chunk's entries
 * name; each copy's write records where it goes before it is submitted;
 * the write drops the waiting entries it covers and hands its own over
 * when it ends; a read asks which replicas hold the data. Below
 * copyset_io.c, which calls it; any context.
 */
#include "copyset_int.h"
#include "copyset_ptab.h"

/* Where copies may differ, a copy no entry pins goes to the source, 0. */
static void cs_pin_source(u8 *pin, unsigned int copies)
{
	unsigned int j;

	for (j = 0; j < copies; j++)
		if (pin[j] == RL_CS_REP_ANY)
			pin[j] = 0;
}

/**
 * cs_prop_begin() - whether a write's replicas other than 0 may wait
 * @a: the array
 * @bio: the write (its piece), not yet cloned
 * @suspect: whether its copies may differ (not resynced since the load)
 *
 * Without records every entry names replica 0 of each copy. With them, a
 * write to a chunk that has entries takes the replicas they name
 * (rl_cs_ptab_pin()); else each copy's queue picks the nearest as it
 * issues the write (cs_prop_issue()), unless its copies may differ
 * (@suspect): then replica 0, the resync's source where no entry names
 * one (rl_cs_ptab_named()).
 *
 * Return: its entry (the write then goes to one replica of each copy,
 * e->rep[], RL_CS_REP_ANY: the queue's pick; if its clones cannot be
 * allocated, cs_prop_cancel()), or NULL: every replica now (no delayed
 * propagation, not a write, the table full, or the chunk's entries not
 * all issued). Any context.
 */
struct rl_cs_pent *cs_prop_begin(struct rl_array *a, struct bio *bio,
				 bool suspect)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prop *p = cs->prop;
	struct rl_cs_pent *e = NULL;
	u8 pin[RL_MAX_LOCS];
	unsigned long flags;

	if (!p || cs->dr < 2 || bio_op(bio) != REQ_OP_WRITE)
		return NULL;
	spin_lock_irqsave(&p->lock, flags);
	if (!p->recorded)
		memset(pin, 0, sizeof(pin));
	else if (rl_cs_ptab_pin(&p->tab, rl_pb(bio)->lsector, pin))
		goto out;	/* the chunk's entries not all issued */
	else if (suspect)
		cs_pin_source(pin, cs->layout.copies);
	e = rl_cs_ptab_get(&p->tab, rl_pb(bio)->lsector, bio_sectors(bio), pin);
out:
	spin_unlock_irqrestore(&p->lock, flags);
	if (!e)
		atomic64_inc(&p->full);
	return e;
}

/*
 * Copy @copy of entry @e's write goes to replica @rep: recorded, durably,
 * before it is submitted (with records), and its reads go there from then
 * on. Returns 0, or -EIO if the record could not be made (the metadata
 * failed: the write must not go, and its replica is not taken). Any
 * context.
 */
int cs_prop_issue(struct rl_array *a, struct rl_cs_pent *e,
		  unsigned int copy, unsigned int rep)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	struct rl_cs_prec r = {
		.lsector = e->lsector, .len = e->len, .copy = copy, .rep = rep,
	};
	unsigned long flags;

	if (p->recorded) {
		r.seq = atomic64_inc_return(&p->seq);
		if (cs_prec_write(&p->rec,
				  (e - p->tab.ent) * p->tab.copies + copy, &r))
			return -EIO;
		spin_lock_irqsave(&p->lock, flags);
		e->rep[copy] = rep;
		spin_unlock_irqrestore(&p->lock, flags);
	}
	atomic64_inc(&p->first[rep]);
	return 0;
}

/*
 * Clear entry @e's records, durably: a record left over would replay its
 * replica over a later write's that no entry pins to it. Any context.
 */
void cs_prop_clear(struct rl_cs_prop *p, const struct rl_cs_pent *e)
{
	unsigned int j, slot = (e - p->tab.ent) * p->tab.copies;

	if (!p->recorded)
		return;
	for (j = 0; j < p->tab.copies; j++)
		cs_prec_clear(&p->rec, slot + j);
	rl_md_persist(p->rec.md);
}

/*
 * The write of entry @e ended: the waiting (and stuck) entries it covers
 * are moved to @dropped, and counted; the caller releases the intent
 * they hold, then cs_prop_put_list(). Not before: until the write's own
 * records are durable, theirs must stay (their replica is the write's,
 * rl_cs_ptab_pin(), but a crash before the write was recorded would find
 * none). Returns how many.
 */
unsigned int cs_prop_cover(struct rl_array *a, struct rl_cs_pent *e,
			   struct list_head *dropped)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&p->lock, flags);
	n = rl_cs_ptab_cover(&p->tab, e, dropped);
	spin_unlock_irqrestore(&p->lock, flags);
	atomic64_add(n, &p->discarded);
	return n;
}

/* Free the entries on @dropped (their intent released). */
void cs_prop_put_list(struct rl_array *a, struct list_head *dropped)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	struct rl_cs_pent *e, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	list_for_each_entry_safe(e, tmp, dropped, node) {
		cs_prop_clear(p, e);
		rl_cs_ptab_put(&p->tab, e);
	}
	spin_unlock_irqrestore(&p->lock, flags);
}

/* The write of entry @e was not sent after all: free it. Any context. */
void cs_prop_cancel(struct rl_array *a, struct rl_cs_pent *e)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	rl_cs_ptab_put(&p->tab, e);
	spin_unlock_irqrestore(&p->lock, flags);
}

/*
 * The write of entry @e ended (it keeps its intent): the entry waits for
 * its propagation. Any context.
 */
void cs_prop_written(struct rl_array *a, struct rl_cs_pent *e)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	rl_cs_ptab_ready(&p->tab, e);
	spin_unlock_irqrestore(&p->lock, flags);
	mod_delayed_work(a->wq, &p->kick, 0);
}

/* A bit for replica @rep, or every replica for RL_CS_REP_ANY. */
static unsigned long cs_rep_mask(unsigned int rep)
{
	return rep == RL_CS_REP_ANY ? ~0UL : BIT(rep);
}

/*
 * The replicas of member @m's copy of piece @p that hold its data: a bit
 * each (rl_cs_ptab_fresh()); with @chunk, the one its chunk's entries
 * name (rl_cs_ptab_named(): the source where copies may differ); every
 * one if @m holds no copy or none is named. Any context.
 */
unsigned long cs_prop_fresh(struct rl_array *a, const struct rl_cs_piece *p,
			    unsigned int m, bool chunk)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prop *pr = cs->prop;
	unsigned long flags, fresh = ~0UL;
	struct rl_cs_copy c;
	unsigned int j;

	if (!pr || !READ_ONCE(pr->tab.used))
		return ~0UL;
	for (j = 0; j < cs->layout.copies; j++) {
		rl_cs_copy(&cs->layout, p->lsector, j, &c);
		if (c.member != m)
			continue;
		spin_lock_irqsave(&pr->lock, flags);
		if (chunk)
			fresh = cs_rep_mask(rl_cs_ptab_named(&pr->tab,
							     p->lsector, j));
		else
			fresh = rl_cs_ptab_fresh(&pr->tab, p->lsector, p->len,
						 j);
		spin_unlock_irqrestore(&pr->lock, flags);
		break;
	}
	return fresh;
}

/* Whether replicas of [@lsector, +@len) may be stale. Any context. */
bool cs_prop_pending(struct rl_array *a, sector_t lsector, sector_t len)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	unsigned long flags;
	bool pending;

	/* a write's entry is taken before its clones: none, none to see */
	if (!p || !READ_ONCE(p->tab.used))
		return false;
	spin_lock_irqsave(&p->lock, flags);
	pending = rl_cs_ptab_pending(&p->tab, lsector, len);
	spin_unlock_irqrestore(&p->lock, flags);
	return pending;
}

/*
 * Where a background copy of piece @p reads each member (the window
 * open: no write to it in flight): the replica its copy's entries in the
 * chunk name (rl_cs_ptab_named(): it holds the chunk's newest data, also
 * where copies may differ), else 0, in @srep. Returns @srep, or NULL with
 * no entry at all (replica 0 everywhere). Any context.
 */
const u8 *cs_prop_srep(struct rl_array *a, const struct rl_cs_piece *p,
		       u8 *srep)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prop *pr = cs->prop;
	u8 rep[RL_MAX_LOCS];
	unsigned int j;
	unsigned long flags;

	if (!pr || !READ_ONCE(pr->tab.used))
		return NULL;
	spin_lock_irqsave(&pr->lock, flags);
	for (j = 0; j < cs->layout.copies; j++)
		rep[j] = rl_cs_ptab_named(&pr->tab, p->lsector, j);
	spin_unlock_irqrestore(&pr->lock, flags);
	cs_srep_fill(a, p->lsector, rep, srep);
	return srep;
}

/*
 * Each member's replica for a copy of logical sector @lsector: @rep[j]
 * (a copy each; RL_CS_REP_ANY: 0) at @srep[member of copy j]. Returns
 * the members whose copy names none (RL_CS_REP_ANY). Any context.
 */
unsigned long cs_srep_fill(struct rl_array *a, sector_t lsector,
			   const u8 *rep, u8 *srep)
{
	const struct rl_cs_layout *l = &rl_copyset(a)->layout;
	unsigned long none = 0;
	struct rl_cs_copy c;
	unsigned int j;

	for (j = 0; j < l->copies; j++) {
		rl_cs_copy(l, lsector, j, &c);
		srep[c.member] = rep[j] == RL_CS_REP_ANY ? 0 : rep[j];
		if (rep[j] == RL_CS_REP_ANY)
			__set_bit(c.member, &none);
	}
	return none;
}

/*
 * Of the @n places of a read of piece @p on member @m (mb->alt[],
 * mb->rep[]), keep those whose replica holds the data while writes to it
 * wait for their propagation (cs_prop_fresh()); where the copies are
 * @suspect, the resync's source: the replica the chunk's entries name,
 * else replica 0. Returns how many: one; or, if no entry names a replica
 * of that copy yet, all @n (one, replica 0, if @suspect). (Reads of an
 * array with replicas that propagates are cut as writes are, so that no
 * replica wraps: the fresh one is among them.)
 */
unsigned int cs_prop_read_places(struct rl_array *a,
				 const struct rl_cs_piece *p, unsigned int m,
				 struct rl_cs_bio *mb, unsigned int n,
				 bool suspect)
{
	unsigned long fresh = cs_prop_fresh(a, p, m, suspect);
	unsigned int i, k = 0;

	if (fresh == ~0UL)
		return suspect ? 1 : n;
	for (i = 0; i < n; i++) {
		if (!(fresh & BIT(mb->rep[i])))
			continue;
		mb->alt[k] = mb->alt[i];
		mb->rep[k++] = mb->rep[i];
	}
	return k ?: 1;
}
