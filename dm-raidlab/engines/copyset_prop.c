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
 *  - at postsuspend the propagation under way ends and the waiting
 *    entries stay, with their records and intent (a suspend does not
 *    wait for a backlog of minutes): a resume goes on with them; the
 *    next load takes them back from their records (rl_copyset_preresume()),
 *    or, without records, resyncs their regions, dirty still, from
 *    replica 0.
 *
 * An entry whose piece no member can read is recorded bad on every copy
 * (reads of it fail until a write covers it) and goes; without bad-block
 * lists it stays (STUCK) with its regions dirty: its reads keep to its
 * replica and fail, and the next load resyncs the regions.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "../svc/bbl.h"
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
 * With a DAX metadata device, a write's first replica on each copy is
 * the nearest, recorded there (copyset_prec.h); else replica 0, the
 * write-intent bitmap behind it. rl_copyset_replay() comes first. Sets
 * a->ti->error on failure.
 *
 * Return: 0, -ENOMEM, or cs_prec_open()'s error.
 */
int rl_copyset_propagation(struct rl_array *a, unsigned int entries)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prop *p;
	int r;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p || rl_cs_ptab_init(&p->tab, entries, cs->layout.chunk_shift,
				  cs->layout.copies)) {
		kfree(p);
		a->ti->error = "Cannot allocate the propagation table";
		return -ENOMEM;
	}
	/* with pmem, first writes go to the nearest replica, recorded */
	if (!strcmp(rl_md_backend(a->md), "dax")) {
		r = cs_prec_open(a, entries * cs->layout.copies, &p->rec);
		if (r) {
			rl_cs_ptab_exit(&p->tab);
			kfree(p);
			return r;
		}
		p->recorded = true;
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
 * A waiting entry whose members are idle (cs_prop_idle_entry()); with the
 * table full, the oldest at once. With none the service is asked again a
 * little later. Process context.
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
		if (!e && rl_cs_ptab_full(&p->tab)) {
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

/*
 * Flush the members that hold entry @e's copies, so that its records may
 * go: a replica the propagation wrote must not sit in a volatile cache
 * while nothing says which one is fresh. Returns 0 or -EIO. Sleeps.
 */
static int cs_prop_flush(struct rl_array *a, const struct rl_cs_pent *e)
{
	struct rl_cs_piece pc;

	cs_piece(a, e->lsector, e->len, &pc);
	return rl_members_flush(a, pc.members) ? -EIO : 0;
}

/*
 * Record [@lsector, +@len) lost on every copy that has not failed: no
 * member could read the replica its write went to, and the others hold
 * older data. Reads of it fail until a write covers it, as after a
 * rebuild that could not read a sector. Returns 0, or -EIO (no bad-block
 * lists, or a list full: that member is failed).
 */
static int cs_range_lost(struct rl_array *a, sector_t lsector, u32 len)
{
	const struct rl_cs_layout *l = &rl_copyset(a)->layout;
	struct rl_cs_copy c;
	unsigned int j;
	int ret = 0;

	if (!a->bbl)
		return -EIO;
	for (j = 0; j < l->copies; j++) {
		rl_cs_copy(l, lsector, j, &c);
		if (rl_member_failed(a, c.member))
			continue;
		if (rl_bbl_record(a, c.member, c.sector, len)) {
			rl_member_fail(a, c.member, "bad-block list full");
			ret = -EIO;
		}
	}
	DMERR("%s: sr: sectors %llu+%u: no member could read its write's replica: recorded bad",
	      dm_table_device_name(a->ti->table), (unsigned long long)lsector,
	      len);
	return ret;
}

/*
 * Where the copies of entry @e's range may differ (its region dirty at
 * load, not resynced yet), its chunk's source is the replica it names
 * (rl_cs_ptab_named()), for reads there too: copy the rest of its chunk
 * from it as well, so that once the chunk's entries are gone and the
 * source is replica 0 again, every replica reads what that one served.
 * (A resync, which may wait for a missing member, would do it later.)
 * Returns 0; -EIO if a member failed writing; a part no member can read
 * is left (its reads fail alike before and after). Sleeps.
 */
static int cs_prop_chunk_rest(struct rl_array *a, const struct rl_cs_pent *e)
{
	sector_t len = (sector_t)1 << rl_copyset(a)->layout.chunk_shift;
	sector_t start = round_down(e->lsector, len), end = e->lsector + e->len;
	struct rl_cs_piece pc;
	int before = 0, after = 0;

	cs_piece(a, e->lsector, e->len, &pc);
	if (!cs_piece_suspect(a, &pc))
		return 0;
	len = min_t(sector_t, start + len, a->ti->len);
	if (e->lsector > start)
		before = cs_propagate(a, start, e->lsector - start, e->rep);
	if (end < len)
		after = cs_propagate(a, end, len - end, e->rep);
	return before == -EIO || after == -EIO ? -EIO : 0;
}

/**
 * rl_copyset_do_work() - propagate one entry (->do_work)
 * @a: the array
 * @w: from rl_copyset_get_work()
 *
 * Copies the replica the write went to over the others of the entry's
 * range (and of its chunk, where copies may differ: cs_prop_chunk_rest())
 * (with records, flushes those members and clears its records),
 * then releases the write's intent and frees the entry. A range no
 * member could read is recorded bad on every copy first. An entry whose
 * failures could not be made durable (or with nothing read and no
 * bad-block lists) stays, stuck, until a covering write drops it or the
 * next resume retries it.
 * Sleeps.
 */
void rl_copyset_do_work(struct rl_array *a, const struct rl_work *w)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	struct rl_cs_pent *e = &p->tab.ent[w->key];
	int r = cs_propagate(a, e->lsector, e->len, e->rep);

	if (!r)
		r = cs_prop_chunk_rest(a, e);
	/*
	 * No member could read it: recorded bad on every copy, as a load's
	 * replay would (without bad-block lists it stays, stuck).
	 */
	if (r == -ENODATA && a->bbl) {
		cs_range_lost(a, e->lsector, e->len);
		r = rl_bbl_persist(a) ? -ENODATA : -EIO;
	}
	/*
	 * Done, or a member failed writing (the others have it) or its list
	 * was full: the failure must be durable before the intent goes, as
	 * a write's (cs_write_put()); else, or with nothing read, it stays.
	 */
	if (r == -ENODATA || (r && rl_failrec_sync(a)) ||
	    (p->recorded && cs_prop_flush(a, e))) {
		spin_lock_irq(&p->lock);
		rl_cs_ptab_stuck(&p->tab, e);
		spin_unlock_irq(&p->lock);
		return;
	}
	cs_write_intent_end(a, e->lsector);
	spin_lock_irq(&p->lock);
	cs_prop_clear(p, e);
	rl_cs_ptab_put(&p->tab, e);
	spin_unlock_irq(&p->lock);
}

/**
 * rl_copyset_postsuspend() - stop propagating (->postsuspend)
 * @a: the array; its writes have all ended
 *
 * The propagation under way ends; the waiting entries stay, with their
 * records and the intent of their writes (see the top of this file), and
 * no pass runs until rl_copyset_resume(). May sleep.
 */
void rl_copyset_postsuspend(struct rl_array *a)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;

	if (!p)
		return;
	spin_lock_irq(&p->lock);
	p->stopped = true;
	spin_unlock_irq(&p->lock);
	cancel_delayed_work_sync(&p->kick);
	rl_sync_flush_work(a);
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
 * " <mode> <pending> <forced> <full> <discarded> <records> <first>": bg
 * or fg, the entries not yet propagated, the propagations started before
 * their members were idle, the writes sent to every replica in the
 * foreground (a full table, or a chunk whose entries were not all
 * issued), the entries a covering write dropped, where a write's first
 * replica is recorded (pmem: the nearest, recorded on the DAX metadata;
 * intent: replica 0, the write-intent bitmap behind it; - in fg), and
 * the first writes each replica took (':'-joined).
 */
void rl_copyset_status_prop(struct rl_array *a, char *result,
			    unsigned int maxlen, unsigned int *psz)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prop *p = cs->prop;
	unsigned int sz = *psz, used = 0, r;

	if (!p) {
		DMEMIT(" fg 0 0 0 0 -");
		for (r = 0; r < cs_rep_count(cs); r++)
			DMEMIT("%s0", r ? ":" : " ");
		*psz = sz;
		return;
	}
	spin_lock_irq(&p->lock);
	used = p->tab.used;
	spin_unlock_irq(&p->lock);
	DMEMIT(" bg %u %llu %llu %llu %s", used,
	       (unsigned long long)atomic64_read(&p->forced),
	       (unsigned long long)atomic64_read(&p->full),
	       (unsigned long long)atomic64_read(&p->discarded),
	       p->recorded ? "pmem" : "intent");
	for (r = 0; r < cs_rep_count(cs); r++)
		DMEMIT("%s%llu", r ? ":" : " ",
		       (unsigned long long)atomic64_read(&p->first[r]));
	*psz = sz;
}

/* ------------------------------------------------------------------------
 * The records a crash left (copyset_prec.h): replayed before the table
 * first goes live (->preresume), once the bad-block lists are loaded and
 * failed roles given to spares, before any bio and any resync.
 */

/*
 * Replay record @r: its replica copied over every other replica of every
 * copy that has not failed (a record on a failed member is skipped: with
 * dm 1 its data went with the member; with dm > 1 the record of another
 * copy of the same write, if it was issued there, replays it). Returns 0,
 * or nonzero if it could not be replayed whole.
 */
static int cs_prec_replay_one(struct rl_array *a, const struct rl_cs_prec *r)
{
	struct rl_copyset *cs = rl_copyset(a);
	u8 rep[RL_MAX_LOCS];
	struct rl_cs_copy c;
	int ret;

	rl_cs_copy(&cs->layout, r->lsector, r->copy, &c);
	if (rl_member_failed(a, c.member))
		return -EIO;
	memset(rep, RL_CS_REP_ANY, sizeof(rep));
	rep[r->copy] = r->rep;
	ret = cs_propagate(a, r->lsector, r->len, rep);
	if (ret == -ENODATA)
		cs_range_lost(a, r->lsector, r->len);
	return ret;
}

/* Flush every member that has not failed; one that cannot is failed. */
static void cs_prec_flush(struct rl_array *a)
{
	rl_members_flush_fail(a, GENMASK(a->geom.nr_members - 1, 0),
			      "flush error");
}

/*
 * Replay the valid records of @slots slots in @buf, in seq order; then
 * flush the members, make the failures and bad blocks it found durable,
 * and leave the slots as @keep has them (the records of the entries
 * taken back). Returns how many records, or a negative errno.
 */
static int cs_prec_replay_all(struct rl_array *a, struct rl_cs_precs *pr,
			      struct rl_cs_prec_disk *buf,
			      const struct rl_cs_prec_disk *keep,
			      unsigned int slots,
			      const struct rl_cs_prec_bounds *b)
{
	struct rl_cs_prec *rec;
	unsigned int i, k, bad, failed = 0;

	rec = kvmalloc_array(slots, sizeof(*rec), GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	k = rl_cs_prec_collect(buf, slots, b, rec, &bad);
	if (bad)
		DMWARN("%s: sr: %u propagation records do not fit the array: ignored",
		       dm_table_device_name(a->ti->table), bad);
	for (i = 0; i < k; i++)
		if (cs_prec_replay_one(a, &rec[i]))
			failed++;
	kvfree(rec);
	if (failed)
		DMWARN("%s: sr: %u of %u propagation records not replayed whole",
		       dm_table_device_name(a->ti->table), failed, k);
	if (k)
		cs_prec_flush(a);
	/* before the records go: what they would replay is durable now */
	if (rl_failrec_sync(a) || rl_bbl_persist(a))
		return -EIO;
	if (rl_md_area_write(pr->md, &pr->area, 0, keep,
			     (size_t)slots * RL_CS_PREC_SIZE) ||
	    rl_md_persist(pr->md))
		return -EIO;
	return k;
}

/*
 * The entries of @buf's @slots slots a load takes back, in seq order
 * (rl_cs_prec_group()): those whose intent is taken again (their regions
 * dirty still); their slots move from @buf to @keep. None without a
 * table in the background that records. Returns how many *@ents holds
 * (kvfree() it), or -ENOMEM.
 */
static int cs_prec_pick(struct rl_array *a, struct rl_cs_prec_disk *buf,
			struct rl_cs_prec_disk *keep, unsigned int slots,
			const struct rl_cs_prec_bounds *b,
			struct rl_cs_prec_ent **ents)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	size_t size = b->copies * RL_CS_PREC_SIZE;
	struct rl_cs_prec_ent *e;
	unsigned int i, k, n = 0;

	*ents = NULL;
	if (!p || !p->recorded)
		return 0;
	e = kvmalloc_array(p->tab.nr, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	k = rl_cs_prec_group(buf, slots, p->tab.nr, b, e);
	for (i = 0; i < k; i++) {
		if (!cs_write_intent_try(a, e[i].lsector))
			continue;	/* replayed now */
		memcpy(&keep[e[i].idx * b->copies], &buf[e[i].idx * b->copies],
		       size);
		memset(&buf[e[i].idx * b->copies], 0, size);
		e[n++] = e[i];
	}
	*ents = e;
	return n;
}

/*
 * Put the @n entries taken back in the table, READY in seq order, before
 * the array goes live; new records are numbered after theirs.
 */
static void cs_prec_adopt(struct rl_array *a, const struct rl_cs_prec_ent *e,
			  unsigned int n)
{
	struct rl_cs_prop *p = rl_copyset(a)->prop;
	u64 seq = 0;
	unsigned int i;

	if (!n)
		return;
	spin_lock_irq(&p->lock);
	for (i = 0; i < n; i++) {
		/* a free index below the table's size, a range in its chunk */
		if (WARN_ON_ONCE(rl_cs_ptab_adopt(&p->tab, e[i].idx,
						  e[i].lsector, e[i].len,
						  e[i].rep))) {
			cs_write_intent_end(a, e[i].lsector);
			continue;
		}
		seq = max(seq, e[i].last);
	}
	spin_unlock_irq(&p->lock);
	atomic64_set(&p->seq, seq);
}

/*
 * Take back the entries whose records are whole (cs_prec_pick()) and
 * replay the other records a crash or a reload left: their replica
 * copied over the other replicas of every copy, oldest first; then the
 * members flushed and those records cleared. Nothing to do without the
 * area. Sleeps.
 */
static int cs_prec_replay(struct rl_array *a)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_cs_prec_bounds b = {
		.copies = cs->layout.copies, .dr = cs_rep_count(cs),
		.sectors = a->ti->len, .chunk_shift = cs->layout.chunk_shift,
	};
	struct rl_cs_precs pr = { .md = a->md };
	unsigned int slots = cs_prec_lookup(a->md, &pr.area), i;
	struct rl_cs_prec_disk *buf, *keep;
	struct rl_cs_prec_ent *ents = NULL;
	int k, n = 0;

	if (!slots)
		return 0;
	buf = vmalloc(array_size(slots, RL_CS_PREC_SIZE));
	keep = vzalloc(array_size(slots, RL_CS_PREC_SIZE));
	k = buf && keep ? 0 : -ENOMEM;
	if (!k)
		k = rl_md_area_read(a->md, &pr.area, 0, buf,
				    (size_t)slots * RL_CS_PREC_SIZE);
	if (!k) {
		k = cs_prec_pick(a, buf, keep, slots, &b, &ents);
		n = max(k, 0);
	}
	if (k >= 0)
		k = cs_prec_replay_all(a, &pr, buf, keep, slots, &b);
	if (k >= 0)
		cs_prec_adopt(a, ents, n);
	else
		for (i = 0; i < n; i++)
			cs_write_intent_end(a, ents[i].lsector);
	kvfree(ents);
	vfree(keep);
	vfree(buf);
	if (k > 0 || n > 0)
		DMINFO("%s: sr: delayed propagations: %d replayed, %d taken back",
		       dm_table_device_name(a->ti->table), max(k, 0), n);
	return min(k, 0);
}

/**
 * rl_copyset_preresume() - replay a crash's records (->preresume)
 * @a: the array, with or without a metadata device
 *
 * Once per table, before it first goes live: the entries whose records
 * are whole are taken back into the table, to be propagated in the
 * background, and every other record on the metadata device is replayed
 * (whatever the propagate option is now), before the resync of the
 * regions dirty at load, which then copies each chunk from the replica
 * its entries name. A replay that cannot make its work durable (the
 * metadata failed) fails the resume. May sleep.
 *
 * Return: 0 or a negative errno.
 */
int rl_copyset_preresume(struct rl_array *a)
{
	struct rl_copyset *cs = rl_copyset(a);
	int r;

	if (!a->md || cs->replayed)
		return 0;
	r = cs_prec_replay(a);
	if (r)
		DMERR("%s: sr: cannot replay the propagation records: %d",
		      dm_table_device_name(a->ti->table), r);
	else
		cs->replayed = true;
	return r;
}
