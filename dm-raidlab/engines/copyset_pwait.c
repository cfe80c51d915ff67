// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: the write and read paths' side of delayed
 * propagation (copyset_prop.c has the rest): a write takes its entry in
 * the table before it is cloned, drops the waiting entries it covers
 * once cloned, and hands its entry over when it ends; a read asks
 * whether a replica but 0 may be stale. Below copyset_io.c, which calls
 * it; any context.
 */
#include "copyset_int.h"
#include "copyset_ptab.h"

/**
 * cs_prop_begin() - whether a write's replicas other than 0 may wait
 * @a: the array
 * @bio: the write (its piece), not yet cloned
 *
 * Return: its entry (the write then goes to replica 0 of each copy; once
 * its clones are allocated, cs_prop_cover(), else cs_prop_cancel()), or
 * NULL: every replica now (no delayed propagation, not a write, or the
 * table full). Any context.
 */
struct rl_cs_pent *cs_prop_begin(struct rl_array *a, struct bio *bio)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prop *p = cs->prop;
	struct rl_cs_pent *e;
	unsigned long flags;

	if (!p || cs->dr < 2 || bio_op(bio) != REQ_OP_WRITE)
		return NULL;
	spin_lock_irqsave(&p->lock, flags);
	e = rl_cs_ptab_get(&p->tab, rl_pb(bio)->lsector, bio_sectors(bio));
	spin_unlock_irqrestore(&p->lock, flags);
	if (!e)
		atomic64_inc(&p->full);
	return e;
}

/*
 * The write of entry @e goes: the waiting (and stuck) entries it covers
 * are moved to @dropped, and counted; the caller releases the intent
 * they hold, then cs_prop_put_list(). Not before the write's clones are
 * allocated: a write put off must not leave their ranges without an
 * entry. Returns how many.
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
	list_for_each_entry_safe(e, tmp, dropped, node)
		rl_cs_ptab_put(&p->tab, e);
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
