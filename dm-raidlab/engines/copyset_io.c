// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: foreground I/O. Reads go to one copy
 * (rl_cs_read_balance()), writes are cloned to every copy whose member
 * has not failed, through the member queues; the window lock keeps
 * writes and background copies apart; background copies and reads go
 * through the member queues too, in groups of member I/Os (svc/mio.h).
 * Every access is cut into pieces (struct rl_cs_piece): a logical range
 * within one chunk, whose copies are each one run of member sectors, at
 * the same offset on every member for a mirror and at offsets of their
 * own for RAID-10's and chained declustering's layouts.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../svc/bbl.h"
#include "../svc/metadata.h"
#include "copyset_int.h"

/*
 * The members of piece @p whose own copy @test names: @test gives the
 * members it names over a range of member sectors, asked once where
 * every copy is at the same offset, else once a copy. Inlined with its
 * @test, so the read path makes no indirect call. Any context.
 */
static __always_inline unsigned long
cs_copies(struct rl_array *a, const struct rl_cs_piece *p,
	  unsigned long (*test)(struct rl_array *a, sector_t s, sector_t len))
{
	unsigned long members = p->members, named = 0;
	unsigned int m;

	if (p->same)
		return test(a, p->sector[__ffs(members)], p->len) & members;
	for_each_set_bit(m, &members, a->geom.nr_members)
		named |= test(a, p->sector[m], p->len) & BIT(m);
	return named;
}

/*
 * Members that must not be read anywhere in [s, s + len) (member sectors
 * after data_offset) but for bad blocks: failed ones, and those rebuilt
 * at or above their cursor (testing both ends covers the range).
 */
static unsigned long cs_out_at(struct rl_array *a, sector_t s, sector_t len)
{
	return rl_unreadable_at(a, s) | rl_unreadable_at(a, s + len - 1);
}

/* Members of piece @p whose copy has bad-block entries in its range. */
unsigned long cs_bb_members(struct rl_array *a, const struct rl_cs_piece *p)
{
	return cs_copies(a, p, rl_bbl_members);
}

/*
 * Members that cannot serve piece @p but for bad blocks: those without a
 * copy, and those whose copy is out (cs_out_at()). Any context.
 */
unsigned long cs_unavailable(struct rl_array *a, const struct rl_cs_piece *p)
{
	return (GENMASK(a->geom.nr_members - 1, 0) & ~p->members) |
	       cs_copies(a, p, cs_out_at);
}

/*
 * Members that must not be read for piece @p: cs_unavailable(), and those
 * whose copy has bad-block entries in its range. Any context.
 */
unsigned long cs_unreadable(struct rl_array *a, const struct rl_cs_piece *p)
{
	return cs_unavailable(a, p) | cs_bb_members(a, p);
}

/*
 * The piece of @len sectors at logical sector @lsector; with replicas,
 * within one logical track of each copy (copyset_rep.c).
 */
sector_t cs_piece(struct rl_array *a, sector_t lsector, sector_t len,
		  struct rl_cs_piece *p)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned long members;
	unsigned int m;

	rl_cs_piece(&cs->layout, lsector, len, p);
	if (!cs->dr)
		return p->len;
	members = p->members;
	for_each_set_bit(m, &members, a->geom.nr_members)
		p->len = cs_rep_left(cs, p->sector[m], p->len, false);
	return p->len;
}

/* Intent regions are 1 << shift member sectors. */
static unsigned int cs_region_shift(struct rl_array *a)
{
	return rl_md_state(a->md)->region_shift;
}

/* Writes are split at this: slots, and intent regions if smaller. */
unsigned int cs_split_shift(struct rl_array *a)
{
	if (!a->md)
		return RL_CS_SLOT_SHIFT;
	return min_t(unsigned int, RL_CS_SLOT_SHIFT, cs_region_shift(a));
}

/*
 * Whether any sector of [s, s + len) may differ between the members:
 * suspect-ness comes in intent regions (with a metadata device) or at and
 * above the resync cursor, so asking at the last sector (its region, and
 * the cursor) and at the start of every other region the range touches
 * covers it: one question for a range within one region.
 */
static bool cs_suspect_at(struct rl_array *a, sector_t s, sector_t len)
{
	unsigned int shift = cs_split_shift(a);
	sector_t last = s + len - 1;

	if (rl_sync_suspect(a, last))
		return true;
	while (s >> shift != last >> shift) {
		if (rl_sync_suspect(a, s))
			return true;
		s += rl_cs_split_len(s, last - s, shift);
	}
	return false;
}

/* cs_suspect_at() as cs_copies() asks it: every member, or none. */
static unsigned long cs_suspect_members(struct rl_array *a, sector_t s,
					sector_t len)
{
	return cs_suspect_at(a, s, len) ? ~0UL : 0;
}

/*
 * Whether the copies of piece @p may differ: any copy's range suspect.
 * Any context.
 */
bool cs_piece_suspect(struct rl_array *a, const struct rl_cs_piece *p)
{
	return cs_copies(a, p, cs_suspect_members);
}

/*
 * Send a read, piece @p (all of it), to the chosen copy, through its
 * member's queue (with reads dup, to two: copyset_read.c); false if none
 * can serve it. Process context.
 */
static bool cs_read_piece(struct rl_array *a, struct bio *bio,
			  const struct rl_cs_piece *p)
{
	unsigned long unreadable = cs_unreadable(a, p);
	struct rl_cs_bio *mb = cs_pb(bio);
	bool free, pending, suspect = cs_piece_suspect(a, p);
	unsigned int m, n;

	m = cs_choose(a, p, unreadable, suspect, &free);
	if (m == RL_NONE)
		return false;
	pending = cs_prop_pending(a, p->lsector, p->len);
	if (free && !pending && rl_copyset(a)->reads == RL_CS_READS_DUP &&
	    cs_read_dup(a, bio, p, m, unreadable))
		return true;
	n = cs_rep_alts(a, p->sector[m], p->len, mb->alt, mb->rep);
	/*
	 * where a write's other replicas wait (copyset_prop.c), the one it
	 * went to; where copies may differ, the resync's source
	 */
	if (pending || suspect)
		n = cs_prop_read_places(a, p, m, mb, n, suspect);
	rl_remap_alts(a, bio, m, mb->alt, n);
	return true;
}

/* Copy @j's member sector (after data_offset) of logical sector @lsector. */
static sector_t cs_copy_sector(const struct rl_cs_layout *l, sector_t lsector,
			       unsigned int j)
{
	struct rl_cs_copy c;

	rl_cs_copy(l, lsector, j, &c);
	return c.sector;
}

/* With replicas, @len cut where a replica of a copy would wrap its track. */
static sector_t cs_write_rep_len(struct rl_copyset *cs, sector_t lsector,
				 sector_t len)
{
	unsigned int j;

	for (j = 0; cs->dr && j < cs->layout.copies; j++)
		len = cs_rep_left(cs, cs_copy_sector(&cs->layout, lsector, j),
				  len, true);
	return len;
}

/*
 * Map a read: cut it to one chunk (a piece), then send it to a copy as
 * cs_read_piece(). Returns a DM_MAPIO_* value. Process context.
 */
int cs_map_read(struct rl_array *a, struct bio *bio)
{
	struct rl_copyset *cs = rl_copyset(a);
	sector_t lsector = rl_pb(bio)->lsector, len;
	struct rl_cs_piece p;

	if (cs_piece(a, lsector, bio_sectors(bio), &p) < bio_sectors(bio))
		dm_accept_partial_bio(bio, p.len);
	/* every replica must be able to serve it: the fresh one may be any */
	len = cs->prop ? cs_write_rep_len(cs, lsector, p.len) : p.len;
	if (len < p.len) {
		dm_accept_partial_bio(bio, len);
		cs_piece(a, lsector, len, &p);
	}
	return cs_read_piece(a, bio, &p) ? DM_MAPIO_SUBMITTED : DM_MAPIO_KILL;
}

/* Send a read again, within one chunk (it was cut so when mapped). */
static bool cs_remap_read(struct rl_array *a, struct bio *bio)
{
	struct rl_cs_piece p;

	cs_piece(a, rl_pb(bio)->lsector, bio_sectors(bio), &p);
	return cs_read_piece(a, bio, &p);
}

/* Queue @bio on @list for the work item. Any context. */
void cs_defer(struct rl_copyset *cs, struct bio_list *list, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&cs->lock, flags);
	bio_list_add(list, bio);
	spin_unlock_irqrestore(&cs->lock, flags);
	queue_work(cs->a->wq, &cs->retry_work);
}

/*
 * The copies a write counts in the window lock's buckets and in the
 * intent regions: the first only where every copy is at the same offset
 * (a mirror), else each (a bucket or region that two copies share counts
 * twice, and is released twice).
 */
static unsigned int cs_counted(const struct rl_cs_layout *l)
{
	return l->kind == RL_CS_MIRROR ? 1 : l->copies;
}

/*
 * Let a write past the window lock: count it in flight in the bucket of
 * each of its copies, or, if the open window holds any copy off, park it
 * until the window closes. Returns true if it was counted. Any context.
 */
static bool cs_write_admit(struct rl_copyset *cs, struct bio *bio)
{
	const struct rl_cs_layout *l = &cs->layout;
	sector_t lsector = rl_pb(bio)->lsector, len = bio_sectors(bio);
	unsigned int j, n = cs_counted(l);
	unsigned long flags;
	bool ok = true;

	spin_lock_irqsave(&cs->lock, flags);
	for (j = 0; j < n && ok; j++)
		ok = !rl_cs_blocks(&cs->win, cs_copy_sector(l, lsector, j), len);
	for (j = 0; j < n && ok; j++)
		cs->bucket_writes[rl_cs_bucket(cs_copy_sector(l, lsector, j))]++;
	if (!ok)
		bio_list_add(&cs->win_waiting, bio);
	spin_unlock_irqrestore(&cs->lock, flags);
	return ok;
}

/* A write admitted at @lsector is no longer in flight. Any context. */
static void cs_write_unadmit(struct rl_copyset *cs, sector_t lsector)
{
	const struct rl_cs_layout *l = &cs->layout;
	unsigned int j, b, n = cs_counted(l);
	unsigned long flags;

	spin_lock_irqsave(&cs->lock, flags);
	for (j = 0; j < n; j++) {
		b = rl_cs_bucket(cs_copy_sector(l, lsector, j));
		if (!--cs->bucket_writes[b] && cs->win_draining &&
		    b == rl_cs_bucket(cs->win.start)) {
			cs->win_draining = false;
			complete(&cs->win_drained);
		}
	}
	spin_unlock_irqrestore(&cs->lock, flags);
}

/* The intent region of copy @j of a write at @lsector. */
static u64 cs_region(struct rl_array *a, sector_t lsector, unsigned int j)
{
	return rl_md_region(rl_md_state(a->md),
			    cs_copy_sector(&rl_copyset(a)->layout, lsector, j));
}

/* Release the intent of the first @n counted copies of a write. */
static void cs_intent_end(struct rl_array *a, sector_t lsector, unsigned int n)
{
	while (n--)
		rl_md_intent_end(a->md, cs_region(a, lsector, n));
}

/*
 * Take the intent of the regions of a write's copies if each is durable
 * already; if one is not, take none. Any context.
 */
static bool cs_intent_try(struct rl_array *a, sector_t lsector)
{
	unsigned int j, n = cs_counted(&rl_copyset(a)->layout);

	for (j = 0; j < n; j++) {
		if (!rl_md_intent_try(a->md, cs_region(a, lsector, j))) {
			cs_intent_end(a, lsector, j);
			return false;
		}
	}
	return true;
}

/* Make the intent of a write's regions durable and take it. Sleeps. */
static int cs_intent_start(struct rl_array *a, sector_t lsector)
{
	unsigned int j, n = cs_counted(&rl_copyset(a)->layout);

	for (j = 0; j < n; j++) {
		if (rl_md_intent_start(a->md, cs_region(a, lsector, j))) {
			cs_intent_end(a, lsector, j);
			return -EIO;
		}
	}
	return 0;
}

/*
 * Take back the intent a write at @lsector held when the array was last
 * stopped (an entry a load takes back, copyset_prop.c): its regions are
 * dirty still. False if one is not, or there is no metadata device.
 */
bool cs_write_intent_try(struct rl_array *a, sector_t lsector)
{
	return a->md && cs_intent_try(a, lsector);
}

/* Release the intent a write at @lsector holds (with a metadata device). */
void cs_write_intent_end(struct rl_array *a, sector_t lsector)
{
	if (a->md)
		cs_intent_end(a, lsector, cs_counted(&rl_copyset(a)->layout));
}

/*
 * A write whose other replicas wait (copyset_pwait.c) ended: the waiting
 * entries it covers go, with the intent they held (its own propagation
 * copies the newer data over their replicas).
 */
static void cs_write_cover(struct rl_array *a, struct rl_cs_pent *e)
{
	struct rl_cs_pent *o;
	LIST_HEAD(dropped);

	if (!cs_prop_cover(a, e, &dropped))
		return;
	list_for_each_entry(o, &dropped, node)
		cs_write_intent_end(a, o->lsector);
	cs_prop_put_list(a, &dropped);
}

/*
 * End a write: release its intent, or hand it to its propagation entry
 * (copyset_prop.c), which releases it once the other replicas are
 * written.
 */
static void cs_write_end(struct rl_array *a, struct bio *bio,
			 blk_status_t status)
{
	struct rl_cs_pent *e = cs_pb(bio)->prop;

	if (e) {
		cs_write_cover(a, e);
		cs_prop_written(a, e);
	} else {
		cs_write_intent_end(a, rl_pb(bio)->lsector);
	}
	bio->bi_status = status;
	bio_endio(bio);
}

/*
 * A write whose copies have all ended succeeded if one of them landed and
 * none was left unsent for want of its record (a copy's replica would be
 * taken for fresh without its data).
 */
static blk_status_t cs_write_status(struct bio *bio)
{
	struct rl_cs_bio *mb = cs_pb(bio);

	return atomic_read(&mb->ok) && !READ_ONCE(mb->unrecorded) ?
	       BLK_STS_OK : BLK_STS_IOERR;
}

/* The failures a write saw are durable (failrec.c): end it. */
static void cs_write_recorded(struct rl_commit_waiter *w, blk_status_t st)
{
	struct rl_bio *pb = container_of(w, struct rl_bio, cw);
	struct bio *bio = dm_bio_from_per_bio_data(pb, sizeof(*pb));

	cs_write_end(w->a, bio, st ? st : cs_write_status(bio));
}

/* End a write once any member failure it saw is durable. */
static void cs_write_finish(struct rl_array *a, struct bio *bio)
{
	if (rl_failrec_wait(a, &rl_pb(bio)->cw, cs_write_recorded))
		cs_write_end(a, bio, cs_write_status(bio));
}

/*
 * A copy ended. The last one ends the write, once any member failure is
 * durable: a copy that failed, or a member the write skipped, is stale, and
 * the intent that covers its region must outlive the unrecorded failure.
 * A write that cleared bad-block entries first waits, in the work item,
 * for the lists to be durable: a crash must not bring back an entry over
 * the only copy of acknowledged data.
 */
static void cs_write_put(struct rl_array *a, struct bio *bio)
{
	struct rl_cs_bio *mb = cs_pb(bio);

	if (!atomic_dec_and_test(&mb->pending))
		return;
	cs_write_unadmit(rl_copyset(a), rl_pb(bio)->lsector);
	if (READ_ONCE(mb->bb_landed))
		cs_defer(rl_copyset(a), &rl_copyset(a)->bb_cleared, bio);
	else
		cs_write_finish(a, bio);
}

/*
 * The copies of @bio that landed over bad-block entries: clear those
 * entries, in memory (the caller makes them durable). Process context:
 * the kernel's badblocks_clear() enables interrupts.
 */
static void cs_bb_clear(struct rl_array *a, struct bio *bio)
{
	const struct rl_cs_layout *l = &rl_copyset(a)->layout;
	unsigned long landed = cs_pb(bio)->bb_landed;
	struct rl_cs_copy c;
	unsigned int j;

	for (j = 0; j < l->copies; j++) {
		rl_cs_copy(l, rl_pb(bio)->lsector, j, &c);
		if (test_bit(c.member, &landed))
			rl_bbl_clear(a, c.member, c.sector, bio_sectors(bio));
	}
}

static void cs_write_endio(struct bio *clone)
{
	struct rl_cs_clone *mc = container_of(clone, struct rl_cs_clone, clone);
	struct bio *orig = mc->orig;
	struct rl_array *a = mc->a;

	rl_member_done(a, mc->member, &mc->qe);
	if (!clone->bi_status) {
		struct rl_cs_bio *mb = cs_pb(orig);

		atomic_inc(&mb->ok);
		/* its entries go in the work item (cs_bb_clear()) */
		if (mc->clears)
			set_bit(mc->member, &mb->bb_landed);
	} else if (mc->unrecorded) {
		WRITE_ONCE(cs_pb(orig)->unrecorded, true);
	} else if (rl_status_fails_member(clone->bi_status)) {
		rl_member_fail_io(a, mc->member, mc->dev, "write error");
	}
	bio_put(clone);
	cs_write_put(a, orig);
}

/*
 * Issue a write clone; one whose other replicas wait goes to the replica
 * its queue picked, recorded first (cs_prop_issue()). A record that could
 * not be made (the metadata failed) ends it unsent, the member not
 * blamed.
 */
static void cs_write_submit(struct rl_qent *qe)
{
	struct rl_cs_clone *mc = container_of(qe, struct rl_cs_clone, qe);

	if (mc->pent) {
		if (cs_prop_issue(mc->a, mc->pent, mc->copy,
				  mc->rep[qe->alt ? qe->chosen : 0])) {
			mc->unrecorded = true;
			qe->issue_ns = U64_MAX;	/* nothing was issued */
			mc->clone.bi_status = BLK_STS_IOERR;
			bio_endio(&mc->clone);
			return;
		}
		mc->clone.bi_iter.bi_sector = rl_qent_sector(qe);
	}
	rl_member_submit(mc->a, mc->member, &mc->clone);
}

/*
 * The replicas write clone @c of copy @j (member sector @y) may go to:
 * the one its entry names, or any (the queue policy picks). Sets c->alt
 * and c->rep; returns how many.
 */
static unsigned int cs_write_alts(struct rl_array *a, struct rl_cs_clone *c,
				  unsigned int j, sector_t y, sector_t len)
{
	unsigned int n = cs_rep_alts(a, y, len, c->alt, c->rep);
	u8 pin = c->pent->rep[j];

	if (pin == RL_CS_REP_ANY)
		return n;
	c->alt[0] = cs_rep_sector(a, y, pin);
	c->rep[0] = pin;
	return 1;
}

/*
 * Whether copy @c of a write of @len sectors lies over bad-block entries
 * of its member; @bb: the members with entries at a mirror's one offset,
 * or NULL (every copy at an offset of its own: look). Any context.
 */
static bool cs_copy_bb(struct rl_array *a, const struct rl_cs_copy *c,
		       sector_t len, const unsigned long *bb)
{
	unsigned long here = bb ? *bb : rl_bbl_members(a, c->sector, len);

	return test_bit(c->member, &here);
}

/*
 * Set up and queue write clone @c of @bio to replica @r of its copy @cp,
 * copy @j; with an entry (its other replicas wait), to the replica the
 * entry names or the queue picks.
 */
static void cs_write_queue(struct rl_array *a, struct bio *bio,
			   struct rl_cs_clone *c, const struct rl_cs_copy *cp,
			   unsigned int j, unsigned int r, bool clears)
{
	sector_t msector = cs_rep_sector(a, cp->sector, r);
	unsigned int n = 0;

	bio_clear_polled(&c->clone);	/* nobody polls the copies */
	c->orig = bio;
	c->a = a;
	c->member = cp->member;
	c->clone.bi_iter.bi_sector = msector;
	c->clone.bi_end_io = cs_write_endio;
	/* its entries are cleared once it lands: durably */
	c->clears = clears;
	if (clears)
		c->clone.bi_opf |= REQ_FUA;
	c->pent = cs_pb(bio)->prop;
	c->copy = j;
	c->unrecorded = false;
	if (c->pent) {
		n = cs_write_alts(a, c, j, cp->sector, bio_sectors(bio));
		msector = c->alt[0];
	}
	rl_qent_init(&c->qe, msector, bio_sectors(bio), true, RL_FG,
		     cs_write_submit);
	if (n > 1) {
		c->qe.alt = c->alt;
		c->qe.nr_alts = n;
	}
	rl_member_start(a, cp->member, RL_DATA_WRITE);
	atomic_inc(&cs_pb(bio)->pending);
	rl_queue_add(a, cp->member, &c->qe);
}

/*
 * Whether a write's copies may differ (not resynced since the load): its
 * first replica is then replica 0, the resync's source and what reads
 * there are offered, so that the resync keeps what reads returned.
 */
static bool cs_write_suspect(struct rl_array *a, struct bio *bio)
{
	struct rl_cs_prop *pr = rl_copyset(a)->prop;
	struct rl_cs_piece p;

	/* without records every entry is replica 0's anyway */
	if (!pr || !pr->recorded)
		return false;
	cs_piece(a, rl_pb(bio)->lsector, bio_sectors(bio), &p);
	return cs_piece_suspect(a, &p);
}

/*
 * Allocate @k clones of @bio in @mc, one a replica of each copy (clone i:
 * copy i / replicas, replica i % replicas), NULL for a copy whose member
 * has failed and for replicas @reps and up. Returns false, with none
 * allocated, if @gfp could not get them all.
 */
static bool cs_write_alloc(struct rl_array *a, struct bio *bio, gfp_t gfp,
			   struct rl_cs_clone **mc, unsigned int k,
			   unsigned int reps)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int i, nr = cs_rep_count(cs);
	struct rl_cs_copy c;

	for (i = 0; i < k; i++) {
		struct dm_dev *dev;
		struct bio *clone;

		mc[i] = NULL;
		if (i % nr == 0)	/* the copy's first replica */
			rl_cs_copy(&cs->layout, rl_pb(bio)->lsector, i / nr, &c);
		if (i % nr >= reps || rl_member_failed(a, c.member))
			continue;
		dev = READ_ONCE(a->members[c.member].dev);
		clone = bio_alloc_clone(dev->bdev, bio, gfp, &cs->bs);
		if (!clone) {
			while (i--)
				if (mc[i])
					bio_put(&mc[i]->clone);
			return false;
		}
		mc[i] = container_of(clone, struct rl_cs_clone, clone);
		mc[i]->dev = dev;
	}
	return true;
}

/*
 * Clone a write, within one piece, for every copy whose member has not
 * failed (members being rebuilt included: they must get every write)
 * and queue the clones. All clones are allocated before any is queued:
 * once queued, a clone may be issued and hold a member's queue slot, and
 * none may then wait for the bioset. Returns false, with nothing
 * allocated or queued, if @gfp could not get them all.
 */
static bool cs_write_clones(struct rl_array *a, struct bio *bio, gfp_t gfp)
{
	struct rl_copyset *cs = rl_copyset(a);
	const struct rl_cs_layout *l = &cs->layout;
	unsigned int j, r, nr = cs_rep_count(cs), k = l->copies * nr;
	sector_t lsector = rl_pb(bio)->lsector;
	struct rl_cs_bio *mb = cs_pb(bio);
	struct rl_cs_clone *mc[RL_MAX_LOCS];
	unsigned long bb = 0, *one = NULL;
	struct rl_cs_copy c;
	bool clears;

	/* one replica of each copy only, if the others may wait */
	mb->prop = cs_prop_begin(a, bio, cs_write_suspect(a, bio));
	/* clone i: copy i / nr, replica i % nr */
	if (!cs_write_alloc(a, bio, gfp, mc, k, mb->prop ? 1 : nr)) {
		if (mb->prop)
			cs_prop_cancel(a, mb->prop);
		mb->prop = NULL;
		return false;
	}
	atomic_set(&mb->pending, 1);
	atomic_set(&mb->ok, 0);
	mb->unrecorded = false;
	mb->bb_landed = 0;
	if (l->kind == RL_CS_MIRROR) {	/* one offset: one look */
		bb = rl_bbl_members(a, lsector, bio_sectors(bio));
		one = &bb;
	}
	for (j = 0; j < l->copies; j++) {
		rl_cs_copy(l, lsector, j, &c);
		/* a discard lands no data: it clears no entry */
		clears = bio_op(bio) == REQ_OP_WRITE &&
			 cs_copy_bb(a, &c, bio_sectors(bio), one);
		for (r = 0; r < nr; r++)
			if (mc[j * nr + r])
				cs_write_queue(a, bio, mc[j * nr + r], &c, j,
					       r, clears);
	}
	cs_write_put(a, bio);
	return true;
}

/*
 * A write that holds its intent, from the work item: past the window lock
 * (or parked until the window closes), then cloned. May sleep.
 */
static void cs_write_ready(struct rl_array *a, struct bio *bio)
{
	struct rl_copyset *cs = rl_copyset(a);

	if (!rl_array_alive(a)) {
		cs_write_end(a, bio, BLK_STS_IOERR);
		return;
	}
	if (!cs_write_admit(cs, bio))
		return;
	if (!cs_write_clones(a, bio, GFP_NOIO)) {
		cs_write_unadmit(cs, rl_pb(bio)->lsector);
		cs_write_end(a, bio, BLK_STS_IOERR);
	}
}

/*
 * A write, split to one chunk, one slot and one intent region (so that
 * each copy lies in one slot and one region: copies are chunk-aligned,
 * and slots and regions hold whole chunks). It goes at once if its
 * intent is durable already, the window lock lets it pass and the
 * bioset has room without waiting (map must not wait for the bioset while
 * clones it queued may hold member slots in the caller's pending bio
 * list); otherwise the engine's work item takes it: it makes the intent
 * durable (which sleeps) and may wait for the bioset; a write the window
 * holds off is queued again when the window closes.
 */
int cs_map_write(struct rl_array *a, struct bio *bio)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_bio *pb = rl_pb(bio);
	sector_t len;

	if (!rl_array_alive(a) || (a->md && rl_md_failed(a->md)))
		return DM_MAPIO_KILL;
	cs_pb(bio)->prop = NULL;	/* cs_write_end() may come first */
	len = rl_cs_split_len(pb->lsector, bio_sectors(bio),
			      cs_split_shift(a));
	len = min(len, rl_cs_left(&cs->layout, pb->lsector));
	len = cs_write_rep_len(cs, pb->lsector, len);
	if (len < bio_sectors(bio))
		dm_accept_partial_bio(bio, len);

	if (a->md && !cs_intent_try(a, pb->lsector)) {
		cs_defer(cs, &cs->writes, bio);
		return DM_MAPIO_SUBMITTED;
	}
	if (!cs_write_admit(cs, bio))
		return DM_MAPIO_SUBMITTED;	/* parked behind the window */
	if (!cs_write_clones(a, bio, GFP_NOWAIT)) {
		cs_write_unadmit(cs, pb->lsector);
		cs_defer(cs, &cs->ready, bio);
	}
	return DM_MAPIO_SUBMITTED;
}

/*
 * Serve failed reads again elsewhere; make deferred writes' intent durable
 * and clone them.
 */
void cs_retry_work(struct work_struct *ws)
{
	struct rl_copyset *cs = container_of(ws, struct rl_copyset, retry_work);
	struct rl_array *a = cs->a;
	struct bio_list list, writes, ready, cleared;
	struct bio *bio;

	spin_lock_irq(&cs->lock);
	list = cs->retry;
	writes = cs->writes;
	ready = cs->ready;
	cleared = cs->bb_cleared;
	bio_list_init(&cs->retry);
	bio_list_init(&cs->writes);
	bio_list_init(&cs->ready);
	bio_list_init(&cs->bb_cleared);
	spin_unlock_irq(&cs->lock);

	bio_list_for_each(bio, &cleared)
		cs_bb_clear(a, bio);
	if (!bio_list_empty(&cleared) && rl_bbl_persist(a))
		while ((bio = bio_list_pop(&cleared)))
			cs_write_end(a, bio, BLK_STS_IOERR);
	while ((bio = bio_list_pop(&cleared)))
		cs_write_finish(a, bio);

	while ((bio = bio_list_pop(&list))) {
		if (!cs_remap_read(a, bio)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
		}
	}
	while ((bio = bio_list_pop(&writes))) {
		if (cs_intent_start(a, rl_pb(bio)->lsector)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			continue;
		}
		cs_write_ready(a, bio);
	}
	while ((bio = bio_list_pop(&ready)))
		cs_write_ready(a, bio);
}

/*
 * Open the window [s, s + len) (member sectors after data_offset, the same
 * on every member): from now on writes with a copy in its bucket wait,
 * and once those in flight have ended the window is ours. One window at a
 * time: win_mutex is held until cs_window_close() (the sync worker and
 * fix_work share it, and the check buffers). Sleeps.
 */
void cs_window_open(struct rl_copyset *cs, sector_t s, sector_t len)
{
	bool wait;

	mutex_lock(&cs->win_mutex);
	spin_lock_irq(&cs->lock);
	cs->win.start = s;
	cs->win.len = len;
	reinit_completion(&cs->win_drained);
	wait = cs->bucket_writes[rl_cs_bucket(s)] != 0;
	cs->win_draining = wait;
	spin_unlock_irq(&cs->lock);
	if (wait)
		wait_for_completion(&cs->win_drained);
}

/* Close the window and queue the writes it held off again. */
void cs_window_close(struct rl_copyset *cs)
{
	bool kick;

	spin_lock_irq(&cs->lock);
	cs->win.len = 0;
	kick = !bio_list_empty(&cs->win_waiting);
	bio_list_merge(&cs->ready, &cs->win_waiting);
	bio_list_init(&cs->win_waiting);
	spin_unlock_irq(&cs->lock);
	mutex_unlock(&cs->win_mutex);
	if (kick)
		queue_work(cs->a->wq, &cs->retry_work);
}

/*
 * Member I/O of a background job or a read fix, through member @m's queue
 * in @class: [s, s + len) (after data_offset) to or from @data (a check
 * buffer). Returns 0, or -EIO if it failed. Sleeps.
 */
int cs_io(struct rl_array *a, unsigned int m, blk_opf_t opf, void *data,
	  sector_t s, sector_t len, enum rl_class class)
{
	return cs_io_rep(a, m, opf, CS_REP_ALL, data, s, len, class);
}

/*
 * cs_io() of the replicas in @reps (cs_rep_mio(): a read reads the
 * first). Sleeps.
 */
int cs_io_rep(struct rl_array *a, unsigned int m, blk_opf_t opf,
	      unsigned long reps, void *data, sector_t s, sector_t len,
	      enum rl_class class)
{
	struct rl_mio_group g;
	bool write = op_is_write(opf);

	rl_mio_init(&g, a, &rl_copyset(a)->mio_bs);
	cs_rep_mio(&g, m, opf, reps, s, data, len, class,
		   write ? RL_DATA_WRITE : RL_DATA_READ);
	if (rl_mio_wait(&g))
		return -EIO;
	if (!write)
		rl_mio_read_done(data, len);
	return 0;
}

/*
 * Read piece @p's copy on every member in @members into its check buffer,
 * all at once, in the background class, from replica @srep[m] (NULL: 0).
 * Returns the members whose read failed. Sleeps.
 */
unsigned long cs_read_all(struct rl_array *a, unsigned long members,
			  const struct rl_cs_piece *p, const u8 *srep)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_mio_group g;
	unsigned long failed;
	unsigned int m;

	rl_mio_init(&g, a, &cs->mio_bs);
	for_each_set_bit(m, &members, a->geom.nr_members)
		cs_rep_mio(&g, m, REQ_OP_READ, BIT(srep ? srep[m] : 0),
			   p->sector[m],
			   cs->buf[m].data, p->len, RL_BG, RL_DATA_READ);
	failed = rl_mio_wait(&g);
	for_each_set_bit(m, &members, a->geom.nr_members)
		if (!test_bit(m, &failed))
			rl_mio_read_done(cs->buf[m].data, p->len);
	return failed;
}
