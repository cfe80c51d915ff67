// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: the table of delayed propagations
 * (copyset_ptab.h). Pure: no locks, no I/O; the caller serialises.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "copyset_ptab.h"

/**
 * rl_cs_ptab_init() - an empty table
 * @t: the table
 * @nr: its entries, at least 1
 * @chunk_shift: the layout's chunk (an entry lies within one chunk)
 * @copies: the layout's copies (each entry names a replica of each)
 *
 * Return: 0 or -ENOMEM. May sleep.
 */
int rl_cs_ptab_init(struct rl_cs_ptab *t, unsigned int nr,
		    unsigned int chunk_shift, unsigned int copies)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->hash_bits = max(ilog2(roundup_pow_of_two(nr)) - 1, 4);
	t->ent = kvcalloc(nr, sizeof(*t->ent), GFP_KERNEL);
	t->reps = kvcalloc(nr, copies, GFP_KERNEL);
	t->hash = kvcalloc(1U << t->hash_bits, sizeof(*t->hash), GFP_KERNEL);
	if (!t->ent || !t->reps || !t->hash) {
		rl_cs_ptab_exit(t);
		return -ENOMEM;
	}
	t->nr = nr;
	t->chunk_shift = chunk_shift;
	t->copies = copies;
	INIT_LIST_HEAD(&t->free);
	INIT_LIST_HEAD(&t->ready);
	for (i = 0; i < nr; i++) {
		t->ent[i].rep = &t->reps[i * copies];
		list_add_tail(&t->ent[i].node, &t->free);
	}
	return 0;
}

void rl_cs_ptab_exit(struct rl_cs_ptab *t)
{
	kvfree(t->ent);
	kvfree(t->reps);
	kvfree(t->hash);
	t->ent = NULL;
	t->reps = NULL;
	t->hash = NULL;
}

static struct hlist_head *rl_cs_ptab_bucket(const struct rl_cs_ptab *t,
					    sector_t lsector)
{
	return &t->hash[hash_64(lsector >> t->chunk_shift, t->hash_bits)];
}

/* Whether @e lies in the chunk of @lsector. */
static bool rl_cs_ptab_same_chunk(const struct rl_cs_ptab *t,
				  const struct rl_cs_pent *e, sector_t lsector)
{
	return e->lsector >> t->chunk_shift == lsector >> t->chunk_shift;
}

/**
 * rl_cs_ptab_pin() - the replicas a new write to a chunk must take
 * @t: the table
 * @lsector: a sector of the chunk
 * @pin: filled, for each copy, with the replica every entry of the chunk
 *	names, or RL_CS_REP_ANY with none in the chunk (the write's queue
 *	picks the nearest)
 *
 * Return: 0, or -EBUSY if an entry of the chunk has a copy whose replica
 * is not chosen yet, or two name different ones: the write must then go
 * to every replica (no entry).
 */
int rl_cs_ptab_pin(const struct rl_cs_ptab *t, sector_t lsector, u8 *pin)
{
	struct rl_cs_pent *e;
	unsigned int j;

	memset(pin, RL_CS_REP_ANY, t->copies);
	hlist_for_each_entry(e, rl_cs_ptab_bucket(t, lsector), hash) {
		if (!rl_cs_ptab_same_chunk(t, e, lsector))
			continue;
		for (j = 0; j < t->copies; j++) {
			if (e->rep[j] == RL_CS_REP_ANY ||
			    (pin[j] != RL_CS_REP_ANY && pin[j] != e->rep[j]))
				return -EBUSY;
			pin[j] = e->rep[j];
		}
	}
	return 0;
}

/* Free entry @e, off the free list, WRITING, hashed, for [lsector, +len). */
static void rl_cs_ptab_take(struct rl_cs_ptab *t, struct rl_cs_pent *e,
			    sector_t lsector, u32 len, const u8 *rep)
{
	list_del_init(&e->node);
	e->lsector = lsector;
	e->len = len;
	memcpy(e->rep, rep, t->copies);
	e->state = RL_PENT_WRITING;
	hlist_add_head(&e->hash, rl_cs_ptab_bucket(t, lsector));
	t->used++;
}

/**
 * rl_cs_ptab_get() - take an entry for a write
 * @t: the table
 * @lsector: the write's first logical sector
 * @len: its length, within one chunk
 * @pin: each copy's replica (rl_cs_ptab_pin()), RL_CS_REP_ANY: not chosen
 *
 * Return: the entry, WRITING, hashed; NULL if the table is full.
 */
struct rl_cs_pent *rl_cs_ptab_get(struct rl_cs_ptab *t, sector_t lsector,
				  u32 len, const u8 *pin)
{
	struct rl_cs_pent *e;

	e = list_first_entry_or_null(&t->free, struct rl_cs_pent, node);
	if (e)
		rl_cs_ptab_take(t, e, lsector, len, pin);
	return e;
}

/**
 * rl_cs_ptab_adopt() - take back an entry a crash or a reload left
 * @t: the table
 * @idx: the entry (its records' slots, copyset_prec.h)
 * @lsector: its write's first logical sector
 * @len: its length, within one chunk
 * @rep: each copy's replica, every one named
 *
 * Called in the order the records were written, before any write: the
 * entry is READY after those taken back before it.
 *
 * Return: 0, or -EINVAL if @idx is out of the table or not free, or the
 * range leaves its chunk.
 */
int rl_cs_ptab_adopt(struct rl_cs_ptab *t, unsigned int idx,
		     sector_t lsector, u32 len, const u8 *rep)
{
	struct rl_cs_pent *e;

	if (idx >= t->nr || !len ||
	    lsector >> t->chunk_shift != (lsector + len - 1) >> t->chunk_shift)
		return -EINVAL;
	e = &t->ent[idx];
	if (e->state != RL_PENT_FREE)
		return -EINVAL;
	rl_cs_ptab_take(t, e, lsector, len, rep);
	rl_cs_ptab_ready(t, e);
	return 0;
}

/**
 * rl_cs_ptab_cover() - drop the waiting entries a new one makes useless
 * @t: the table
 * @e: the new entry (WRITING)
 * @dropped: the READY and STUCK entries @e's range covers are moved here
 *	(off the ready list and out of the hash), for the caller to release
 *	what they hold and then rl_cs_ptab_put() each
 *
 * Return: how many were dropped.
 */
unsigned int rl_cs_ptab_cover(struct rl_cs_ptab *t,
			      const struct rl_cs_pent *e,
			      struct list_head *dropped)
{
	struct hlist_node *tmp;
	struct rl_cs_pent *o;
	unsigned int n = 0;

	hlist_for_each_entry_safe(o, tmp, rl_cs_ptab_bucket(t, e->lsector),
				  hash) {
		if (o == e ||
		    (o->state != RL_PENT_READY && o->state != RL_PENT_STUCK) ||
		    o->lsector < e->lsector ||
		    o->lsector + o->len > e->lsector + e->len)
			continue;
		hlist_del_init(&o->hash);
		list_move_tail(&o->node, dropped);	/* a STUCK one: on none */
		n++;
	}
	return n;
}

/* @e's write ended: it waits to be copied, after those that ended before. */
void rl_cs_ptab_ready(struct rl_cs_ptab *t, struct rl_cs_pent *e)
{
	e->state = RL_PENT_READY;
	list_add_tail(&e->node, &t->ready);
}

/* The oldest READY entry, or NULL. */
struct rl_cs_pent *rl_cs_ptab_next(struct rl_cs_ptab *t)
{
	return list_first_entry_or_null(&t->ready, struct rl_cs_pent, node);
}

/* @e (READY) is being copied. */
void rl_cs_ptab_start(struct rl_cs_ptab *t, struct rl_cs_pent *e)
{
	list_del_init(&e->node);
	e->state = RL_PENT_COPYING;
}

/* @e (COPYING) could not be copied: it stays, for the reads. */
void rl_cs_ptab_stuck(struct rl_cs_ptab *t, struct rl_cs_pent *e)
{
	e->state = RL_PENT_STUCK;
}

/* Every STUCK entry waits again (after the READY ones). */
void rl_cs_ptab_retry(struct rl_cs_ptab *t)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++)
		if (t->ent[i].state == RL_PENT_STUCK)
			rl_cs_ptab_ready(t, &t->ent[i]);
}

/*
 * @e is done (copied), cancelled (WRITING, its write not sent) or dropped
 * (after rl_cs_ptab_cover()): free again.
 */
void rl_cs_ptab_put(struct rl_cs_ptab *t, struct rl_cs_pent *e)
{
	if (!hlist_unhashed(&e->hash))
		hlist_del_init(&e->hash);
	e->state = RL_PENT_FREE;
	list_move(&e->node, &t->free);
	t->used--;
}

/**
 * rl_cs_ptab_pending() - whether replicas of a range may be stale
 * @t: the table
 * @lsector: the first logical sector
 * @len: the length, within one chunk
 *
 * Return: true if an entry not free overlaps [@lsector, @lsector + @len).
 */
bool rl_cs_ptab_pending(const struct rl_cs_ptab *t, sector_t lsector,
			sector_t len)
{
	struct rl_cs_pent *e;

	hlist_for_each_entry(e, rl_cs_ptab_bucket(t, lsector), hash)
		if (rl_cs_ptab_same_chunk(t, e, lsector) &&
		    e->lsector < lsector + len && lsector < e->lsector + e->len)
			return true;
	return false;
}

/**
 * rl_cs_ptab_fresh() - the replicas of a copy a read may be served from
 * @t: the table
 * @lsector: the read's first logical sector
 * @len: its length, within one chunk
 * @copy: the copy
 *
 * Return: a bit for each replica: all of them if no entry overlaps the
 * range or none of those names a replica of @copy yet (every replica
 * then holds the data a completed write left); else the one they name.
 * The entries of a chunk agree (rl_cs_ptab_pin()); 0 if they did not.
 */
unsigned long rl_cs_ptab_fresh(const struct rl_cs_ptab *t, sector_t lsector,
			       sector_t len, unsigned int copy)
{
	unsigned long fresh = ~0UL;
	struct rl_cs_pent *e;

	hlist_for_each_entry(e, rl_cs_ptab_bucket(t, lsector), hash)
		if (rl_cs_ptab_same_chunk(t, e, lsector) &&
		    e->lsector < lsector + len && lsector < e->lsector + e->len &&
		    e->rep[copy] != RL_CS_REP_ANY)
			fresh &= BIT(e->rep[copy]);
	return fresh;
}

/**
 * rl_cs_ptab_named() - the replica of a copy that a chunk's entries name
 * @t: the table
 * @lsector: a sector of the chunk
 * @copy: the copy
 *
 * Where a chunk has entries, the replica they name holds the newest data
 * of the whole chunk (every write to it since went there too), so that a
 * background copy and a read of copies that may differ take it as their
 * source over all of the chunk, not only over the entries' ranges.
 *
 * Return: that replica, or RL_CS_REP_ANY if no entry of the chunk names
 * one (replica 0 is the source then).
 */
unsigned int rl_cs_ptab_named(const struct rl_cs_ptab *t, sector_t lsector,
			      unsigned int copy)
{
	struct rl_cs_pent *e;

	hlist_for_each_entry(e, rl_cs_ptab_bucket(t, lsector), hash)
		if (rl_cs_ptab_same_chunk(t, e, lsector) &&
		    e->rep[copy] != RL_CS_REP_ANY)
			return e->rep[copy];
	return RL_CS_REP_ANY;
}
