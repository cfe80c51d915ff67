// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: delayed propagation of rotational replicas
 * (sr's "propagate bg"; paper 002 section 3.4, spec section 4.2).
 *
 * A write goes to replica 0 of every copy and completes when those land;
 * its other replicas are written later, by the array's background service
 * (->get_work, ->do_work: sync.c's item worker), from replica 0 on disk,
 * as a resync of that one piece (cs_propagate()). The write's table entry
 * (copyset_ptab.h) is taken at map, before any clone is queued, and ends
 * when the replicas are written:
 *
 *  - reads of its range are offered replica 0 only (the fresh one);
 *  - the write keeps its write-intent regions until then, so a crash
 *    leaves them dirty and the resync at the next load copies replica 0
 *    over the others (the spec's fallback without a pmem table: the
 *    first write is the canonical replica's, never the nearest one);
 *  - a propagation starts only when every member of its piece is idle
 *    (nothing queued, nothing in flight; the first such entry of the
 *    oldest CS_PROP_SCAN, so that an idle member's writes do not wait
 *    behind a busy one's): the idle class of the paper,
 *    decided here rather than in the member queue, because the copy
 *    holds the window lock (which parks new writes to its bucket) and
 *    must not wait behind foreground work while it does;
 *  - with the table full, propagations start at once (forced) and new
 *    writes go to every replica in the foreground (counted "full");
 *  - a write that covers a waiting entry's range drops that entry
 *    (counted "discarded"): the new one copies the newer data;
 *  - the window lock keeps a propagation and the writes of its bucket
 *    apart, so no replica is written with older data after newer;
 *  - at postsuspend every waiting entry is propagated (forced), so that
 *    a clean shutdown leaves no stale replica behind a cleared bit.
 *
 * An entry whose piece no member can read stays (STUCK) with its
 * regions dirty: its reads keep to replica 0 and fail, and the next load
 * resyncs the regions.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "copyset_int.h"

/* A propagation waits this long for its members to go idle, then looks. */
#define CS_PROP_POLL	1	/* jiffies */
/* Waiting entries a look goes through for one whose members are idle. */
#define CS_PROP_SCAN	32

static void cs_prop_kick(struct work_struct *ws)
{
	struct rl_cs_prop *p = container_of(to_delayed_work(ws),
					    struct rl_cs_prop, kick);

	rl_sync_want_work(p->a);
}

/**
 * rl_copyset_propagation() - write replicas other than 0 in the background
 * @a: the array, its engine made with replicas and a metadata device
 * @entries: the table's entries (writes whose replicas may wait)
 *
 * Sets a->ti->error on failure.
 *
 * Return: 0 or -ENOMEM.
 */
int rl_copyset_propagation(struct rl_array *a, unsigned int entries)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prop *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p || rl_cs_ptab_init(&p->tab, entries, cs->layout.chunk_shift)) {
		kfree(p);
		a->ti->error = "Cannot allocate the propagation table";
		return -ENOMEM;
	}
	spin_lock_init(&p->lock);
	INIT_DELAYED_WORK(&p->kick, cs_prop_kick);
	p->a = a;
	cs->prop = p;
	return 0;
}

/* At destroy: no more passes; the service is drained first. */
void cs_prop_free(struct rl_array *a)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;

	if (!p)
		return;
	spin_lock_irq(&p->lock);
	p->stopped = true;
	spin_unlock_irq(&p->lock);
	cancel_delayed_work_sync(&p->kick);
	rl_sync_flush_work(a);
	rl_cs_ptab_exit(&p->tab);
	kfree(p);
}

/*
 * Whether every member of piece @pc that has not failed is idle: nothing
 * queued or issued.
 */
static bool cs_prop_idle(struct rl_array *a, const struct rl_cs_piece *pc)
{
	unsigned long members = pc->members & ~READ_ONCE(a->failed);
	unsigned int m;

	for_each_set_bit(m, &members, a->geom.nr_members)
		if (!rl_queue_idle(a, m))
			return false;
	return true;
}

/*
 * The first of the first CS_PROP_SCAN waiting entries whose members are
 * idle, or NULL: each member's waiting writes go when that member is
 * idle, as the paper's per-disk delayed-write queues, not behind another
 * member's. Under p->lock.
 */
static struct rl_cs_pent *cs_prop_idle_entry(struct rl_array *a,
					     struct rl_cs_prop *p)
{
	struct rl_cs_piece pc;
	struct rl_cs_pent *e;
	unsigned int n = 0;

	list_for_each_entry(e, &p->tab.ready, node) {
		if (n++ == CS_PROP_SCAN)
			break;
		cs_piece(a, e->lsector, e->len, &pc);
		if (cs_prop_idle(a, &pc))
			return e;
	}
	return NULL;
}

/**
 * rl_copyset_get_work() - the next propagation to do (->get_work)
 * @a: the array
 * @w: filled with the entry's index
 *
 * A waiting entry whose members are idle (cs_prop_idle_entry()); with
 * the table full, or while suspending, the oldest at once. With none the
 * service is asked again a little later. Process context.
 *
 * Return: true with @w filled, false if there is none to do now.
 */
bool rl_copyset_get_work(struct rl_array *a, struct rl_work *w)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	struct rl_cs_pent *e = NULL;
	bool waiting, forced = false;

	if (!p)
		return false;
	spin_lock_irq(&p->lock);
	waiting = !p->stopped && rl_cs_ptab_next(&p->tab);
	if (waiting) {
		e = cs_prop_idle_entry(a, p);
		if (!e && (p->force || rl_cs_ptab_full(&p->tab))) {
			e = rl_cs_ptab_next(&p->tab);
			forced = true;
		}
		if (e)
			rl_cs_ptab_start(&p->tab, e);
	}
	spin_unlock_irq(&p->lock);
	if (!e) {
		if (waiting)
			mod_delayed_work(a->wq, &p->kick, CS_PROP_POLL);
		return false;
	}
	if (forced)
		atomic64_inc(&p->forced);
	w->op = 0;
	w->key = e - p->tab.ent;
	return true;
}

/**
 * rl_copyset_do_work() - propagate one entry (->do_work)
 * @a: the array
 * @w: from rl_copyset_get_work()
 *
 * Copies replica 0 over the other replicas of the entry's range, then
 * releases the write's intent and frees the entry; an entry no member
 * could read (or whose member failure could not be recorded) stays,
 * stuck, until a covering write drops it or the next resume retries it.
 * Sleeps.
 */
void rl_copyset_do_work(struct rl_array *a, const struct rl_work *w)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	struct rl_cs_pent *e = &p->tab.ent[w->key];
	int r = cs_propagate(a, e->lsector, e->len);

	/*
	 * Done, or a member failed writing (the others have it): its
	 * failure must be durable before the intent goes, as a write's
	 * (cs_write_put()); else, or with nothing read, it stays.
	 */
	if (r == -ENODATA || (r && rl_failrec_sync(a))) {
		spin_lock_irq(&p->lock);
		rl_cs_ptab_stuck(&p->tab, e);
		spin_unlock_irq(&p->lock);
		return;
	}
	cs_write_intent_end(a, e->lsector);
	spin_lock_irq(&p->lock);
	rl_cs_ptab_put(&p->tab, e);
	spin_unlock_irq(&p->lock);
}

/**
 * rl_copyset_postsuspend() - propagate everything waiting (->postsuspend)
 * @a: the array; its writes have all ended
 *
 * Every waiting entry is propagated at once, and then no pass runs until
 * rl_copyset_resume(). May sleep.
 */
void rl_copyset_postsuspend(struct rl_array *a)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;

	if (!p)
		return;
	spin_lock_irq(&p->lock);
	p->force = true;
	spin_unlock_irq(&p->lock);
	cancel_delayed_work_sync(&p->kick);
	rl_sync_want_work(a);
	rl_sync_flush_work(a);
	spin_lock_irq(&p->lock);
	p->stopped = true;
	p->force = false;
	spin_unlock_irq(&p->lock);
}

/* ->resume: passes again; stuck entries are tried again. */
void rl_copyset_resume(struct rl_array *a)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;

	if (!p)
		return;
	spin_lock_irq(&p->lock);
	p->stopped = false;
	rl_cs_ptab_retry(&p->tab);
	spin_unlock_irq(&p->lock);
	rl_sync_want_work(a);
}

/**
 * rl_copyset_status_prop() - the propagation's status words
 * @a: the array
 * @result: the status line
 * @maxlen: its size
 * @psz: where the line ends, moved on
 *
 * " <mode> <pending> <forced> <full> <discarded>": bg or fg, the entries
 * not yet propagated, the propagations started before their members were
 * idle, the writes a full table sent to every replica, and the entries a
 * covering write dropped.
 */
void rl_copyset_status_prop(struct rl_array *a, char *result,
			    unsigned int maxlen, unsigned int *psz)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	unsigned int sz = *psz, used = 0;

	if (!p) {
		DMEMIT(" fg 0 0 0 0");
		*psz = sz;
		return;
	}
	spin_lock_irq(&p->lock);
	used = p->tab.used;
	spin_unlock_irq(&p->lock);
	DMEMIT(" bg %u %llu %llu %llu", used,
	       (unsigned long long)atomic64_read(&p->forced),
	       (unsigned long long)atomic64_read(&p->full),
	       (unsigned long long)atomic64_read(&p->discarded));
	*psz = sz;
}
