// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab mirror: member I/O. Reads go to one member
 * (rl_mirror_read_balance()), writes are cloned to every member that has
 * not failed, through the member queues; the window lock keeps writes
 * and background copies apart; background copies and reads go through
 * the member queues too, in groups of member I/Os (svc/mio.h).
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../../svc/bbl.h"
#include "../../svc/metadata.h"
#include "mirror_int.h"

/*
 * Members that must not be read anywhere in [msector, msector + sectors)
 * (after data_offset). A member being rebuilt is readable below its cursor
 * only, so testing both ends covers the range.
 */
unsigned long mirror_unreadable(struct rl_array *a, sector_t msector,
				sector_t sectors)
{
	return rl_unreadable_at(a, msector) |
	       rl_unreadable_at(a, msector + sectors - 1) |
	       rl_bbl_members(a, msector, sectors);
}

/* Intent regions are 1 << shift member sectors. */
static unsigned int mirror_region_shift(struct rl_array *a)
{
	return rl_md_state(a->md)->region_shift;
}

/* Writes are split at this: slots, and intent regions if smaller. */
unsigned int mirror_split_shift(struct rl_array *a)
{
	if (!a->md)
		return RL_MIRROR_SLOT_SHIFT;
	return min_t(unsigned int, RL_MIRROR_SLOT_SHIFT, mirror_region_shift(a));
}

/*
 * Whether any sector of [msector, msector + sectors) may differ between the
 * members: suspect-ness comes in intent regions (with a metadata device)
 * or behind the resync cursor, so asking at the start of every region the
 * read touches and at its last sector covers the range.
 */
static bool mirror_suspect(struct rl_array *a, sector_t msector,
			   sector_t sectors)
{
	unsigned int shift = mirror_split_shift(a);
	sector_t s = msector, end = msector + sectors;

	while (s < end) {
		if (rl_sync_suspect(a, s))
			return true;
		s += rl_mirror_split_len(s, end - s, shift);
	}
	return rl_sync_suspect(a, end - 1);
}

/*
 * The member to read [@lsector, + @sectors) from (member sectors after
 * data_offset), or RL_NONE.
 */
static unsigned int mirror_choose(struct rl_array *a, sector_t lsector,
				  unsigned int sectors)
{
	struct rl_mirror_view v[RL_MAX_MEMBERS];
	sector_t msector = a->geom.data_offset + lsector;
	unsigned long unreadable = mirror_unreadable(a, lsector, sectors);
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		v[m].head = READ_ONCE(a->members[m].head);
		v[m].inflight = atomic_read(&a->members[m].inflight);
		v[m].failed = rl_member_failed(a, m) ||
			      test_bit(m, &unreadable);
		v[m].predicted_ns = v[m].failed ? U64_MAX :
			rl_track_predict(a, m, msector, sectors);
		if (v[m].predicted_ns == U64_MAX)
			v[m].predicted_ns = 0;
	}
	return rl_mirror_read_choose(v, a->geom.nr_members, msector,
				     unreadable,
				     mirror_suspect(a, lsector, sectors));
}

/*
 * Send a read to the chosen member, through its queue; false if none can
 * serve it. Process context.
 */
bool mirror_map_read(struct rl_array *a, struct bio *bio)
{
	sector_t lsector = rl_pb(bio)->lsector;
	unsigned int m = mirror_choose(a, lsector, bio_sectors(bio));

	if (m == RL_NONE)
		return false;
	rl_remap(a, bio, m, a->geom.data_offset + lsector);
	return true;
}

/* Queue @bio on @list for the work item. Any context. */
void mirror_defer(struct rl_mirror *mi, struct bio_list *list,
		  struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&mi->lock, flags);
	bio_list_add(list, bio);
	spin_unlock_irqrestore(&mi->lock, flags);
	queue_work(mi->a->wq, &mi->retry_work);
}

/*
 * Let a write past the window lock: count it in flight in its bucket, or,
 * if the open window holds it off, park it until the window closes.
 * Returns true if it was counted. Any context.
 */
static bool mirror_write_admit(struct rl_mirror *mi, struct bio *bio)
{
	sector_t s = rl_pb(bio)->lsector;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&mi->lock, flags);
	ok = !rl_mirror_blocks(&mi->win, s, bio_sectors(bio));
	if (ok)
		mi->bucket_writes[rl_mirror_bucket(s)]++;
	else
		bio_list_add(&mi->win_waiting, bio);
	spin_unlock_irqrestore(&mi->lock, flags);
	return ok;
}

/* A write admitted at @s is no longer in flight. Any context. */
static void mirror_write_unadmit(struct rl_mirror *mi, sector_t s)
{
	unsigned int b = rl_mirror_bucket(s);
	unsigned long flags;

	spin_lock_irqsave(&mi->lock, flags);
	if (!--mi->bucket_writes[b] && mi->win_draining &&
	    b == rl_mirror_bucket(mi->win.start)) {
		mi->win_draining = false;
		complete(&mi->win_drained);
	}
	spin_unlock_irqrestore(&mi->lock, flags);
}

/* End a write: release its intent (it holds one with a metadata device). */
static void mirror_write_end(struct rl_array *a, struct bio *bio,
			     blk_status_t status)
{
	if (a->md)
		rl_md_intent_end(a->md, rl_md_region(rl_md_state(a->md),
						     rl_pb(bio)->lsector));
	bio->bi_status = status;
	bio_endio(bio);
}

/* A write whose copies have all ended succeeded if one of them landed. */
static blk_status_t mirror_write_status(struct bio *bio)
{
	return atomic_read(&mirror_pb(bio)->ok) ? BLK_STS_OK : BLK_STS_IOERR;
}

/* The failures a write saw are durable (failrec.c): end it. */
static void mirror_write_recorded(struct rl_commit_waiter *w, blk_status_t st)
{
	struct rl_bio *pb = container_of(w, struct rl_bio, cw);
	struct bio *bio = dm_bio_from_per_bio_data(pb, sizeof(*pb));

	mirror_write_end(w->a, bio, st ? st : mirror_write_status(bio));
}

/* End a write once any member failure it saw is durable. */
static void mirror_write_finish(struct rl_array *a, struct bio *bio)
{
	if (rl_failrec_wait(a, &rl_pb(bio)->cw, mirror_write_recorded))
		mirror_write_end(a, bio, mirror_write_status(bio));
}

/*
 * A copy ended. The last one ends the write, once any member failure is
 * durable: a copy that failed, or a member the write skipped, is stale, and
 * the intent that covers its region must outlive the unrecorded failure.
 * A write that cleared bad-block entries first waits, in the work item,
 * for the lists to be durable: a crash must not bring back an entry over
 * the only copy of acknowledged data.
 */
static void mirror_write_put(struct rl_array *a, struct bio *bio)
{
	struct rl_mirror_bio *mb = mirror_pb(bio);

	if (!atomic_dec_and_test(&mb->pending))
		return;
	mirror_write_unadmit(rl_mirror(a), rl_pb(bio)->lsector);
	if (READ_ONCE(mb->bb_landed))
		mirror_defer(rl_mirror(a), &rl_mirror(a)->bb_cleared, bio);
	else
		mirror_write_finish(a, bio);
}

/*
 * The copies of @bio that landed over bad-block entries: clear those
 * entries, in memory (the caller makes them durable). Process context:
 * the kernel's badblocks_clear() enables interrupts.
 */
static void mirror_bb_clear(struct rl_array *a, struct bio *bio)
{
	unsigned long landed = mirror_pb(bio)->bb_landed;
	unsigned int m;

	for_each_set_bit(m, &landed, a->geom.nr_members)
		rl_bbl_clear(a, m, rl_pb(bio)->lsector, bio_sectors(bio));
}

static void mirror_write_endio(struct bio *clone)
{
	struct rl_mirror_clone *mc = container_of(clone, struct rl_mirror_clone,
						  clone);
	struct bio *orig = mc->orig;
	struct rl_array *a = mc->a;

	rl_member_done(a, mc->member, &mc->qe);
	if (!clone->bi_status) {
		struct rl_mirror_bio *mb = mirror_pb(orig);

		atomic_inc(&mb->ok);
		/* its entries go in the work item (mirror_bb_clear()) */
		if (mc->clears)
			set_bit(mc->member, &mb->bb_landed);
	} else if (rl_status_fails_member(clone->bi_status)) {
		rl_member_fail_io(a, mc->member, mc->dev, "write error");
	}
	bio_put(clone);
	mirror_write_put(a, orig);
}

static void mirror_write_submit(struct rl_qent *qe)
{
	struct rl_mirror_clone *mc = container_of(qe, struct rl_mirror_clone,
						  qe);

	submit_bio_noacct(&mc->clone);
}

/*
 * Clone a write for every member that has not failed (members being
 * rebuilt included: they must get every write) and queue the clones. All
 * clones are allocated before any is queued: once queued, a clone may be
 * issued and hold a member's queue slot, and none may then wait for the
 * bioset. Returns false, with nothing allocated or queued, if @gfp could
 * not get them all.
 */
static bool mirror_write_clones(struct rl_array *a, struct bio *bio, gfp_t gfp)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct rl_bio *pb = rl_pb(bio);
	struct rl_mirror_bio *mb = mirror_pb(bio);
	sector_t msector = a->geom.data_offset + pb->lsector;
	struct rl_mirror_clone *mc[RL_MAX_MEMBERS];
	unsigned long bb = rl_bbl_members(a, pb->lsector, bio_sectors(bio));
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		struct dm_dev *dev;
		struct bio *clone;

		mc[m] = NULL;
		if (rl_member_failed(a, m))
			continue;
		dev = READ_ONCE(a->members[m].dev);
		clone = bio_alloc_clone(dev->bdev, bio, gfp, &mi->bs);
		if (!clone) {
			while (m--)
				if (mc[m])
					bio_put(&mc[m]->clone);
			return false;
		}
		mc[m] = container_of(clone, struct rl_mirror_clone, clone);
		mc[m]->dev = dev;
	}

	atomic_set(&mb->pending, 1);
	atomic_set(&mb->ok, 0);
	mb->bb_landed = 0;
	for (m = 0; m < a->geom.nr_members; m++) {
		struct rl_mirror_clone *c = mc[m];

		if (!c)
			continue;
		bio_clear_polled(&c->clone);	/* nobody polls the copies */
		c->orig = bio;
		c->a = a;
		c->member = m;
		c->clone.bi_iter.bi_sector = msector;
		c->clone.bi_end_io = mirror_write_endio;
		/* its entries are cleared once it lands: durably */
		c->clears = test_bit(m, &bb);
		if (c->clears)
			c->clone.bi_opf |= REQ_FUA;
		rl_qent_init(&c->qe, msector, bio_sectors(bio), true, RL_FG,
			     mirror_write_submit);
		rl_member_start(a, m, RL_DATA_WRITE);
		atomic_inc(&mb->pending);
		rl_queue_add(a, m, &c->qe);
	}
	mirror_write_put(a, bio);
	return true;
}

/*
 * A write that holds its intent, from the work item: past the window lock
 * (or parked until the window closes), then cloned. May sleep.
 */
static void mirror_write_ready(struct rl_array *a, struct bio *bio)
{
	struct rl_mirror *mi = rl_mirror(a);

	if (rl_nr_failed(a) > a->redundancy) {
		mirror_write_end(a, bio, BLK_STS_IOERR);
		return;
	}
	if (!mirror_write_admit(mi, bio))
		return;
	if (!mirror_write_clones(a, bio, GFP_NOIO)) {
		mirror_write_unadmit(mi, rl_pb(bio)->lsector);
		mirror_write_end(a, bio, BLK_STS_IOERR);
	}
}

/*
 * A write, split to one slot and one intent region. It goes at once if
 * its intent is durable already, the window lock lets it pass and the
 * bioset has room without waiting (map must not wait for the bioset while
 * clones it queued may hold member slots in the caller's pending bio
 * list); otherwise the mirror's work item takes it: it makes the intent
 * durable (which sleeps) and may wait for the bioset; a write the window
 * holds off is queued again when the window closes.
 */
int mirror_map_write(struct rl_array *a, struct bio *bio)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct rl_bio *pb = rl_pb(bio);
	sector_t len;

	if (rl_nr_failed(a) > a->redundancy || (a->md && rl_md_failed(a->md)))
		return DM_MAPIO_KILL;
	len = rl_mirror_split_len(pb->lsector, bio_sectors(bio),
				  mirror_split_shift(a));
	if (len < bio_sectors(bio))
		dm_accept_partial_bio(bio, len);

	if (a->md && !rl_md_intent_try(a->md, rl_md_region(rl_md_state(a->md),
							   pb->lsector))) {
		mirror_defer(mi, &mi->writes, bio);
		return DM_MAPIO_SUBMITTED;
	}
	if (!mirror_write_admit(mi, bio))
		return DM_MAPIO_SUBMITTED;	/* parked behind the window */
	if (!mirror_write_clones(a, bio, GFP_NOWAIT)) {
		mirror_write_unadmit(mi, pb->lsector);
		mirror_defer(mi, &mi->ready, bio);
	}
	return DM_MAPIO_SUBMITTED;
}

/*
 * Serve failed reads again elsewhere; make deferred writes' intent durable
 * and clone them.
 */
void mirror_retry_work(struct work_struct *ws)
{
	struct rl_mirror *mi = container_of(ws, struct rl_mirror, retry_work);
	struct rl_array *a = mi->a;
	struct bio_list list, writes, ready, cleared;
	struct bio *bio;

	spin_lock_irq(&mi->lock);
	list = mi->retry;
	writes = mi->writes;
	ready = mi->ready;
	cleared = mi->bb_cleared;
	bio_list_init(&mi->retry);
	bio_list_init(&mi->writes);
	bio_list_init(&mi->ready);
	bio_list_init(&mi->bb_cleared);
	spin_unlock_irq(&mi->lock);

	bio_list_for_each(bio, &cleared)
		mirror_bb_clear(a, bio);
	if (!bio_list_empty(&cleared) && rl_bbl_persist(a))
		while ((bio = bio_list_pop(&cleared)))
			mirror_write_end(a, bio, BLK_STS_IOERR);
	while ((bio = bio_list_pop(&cleared)))
		mirror_write_finish(a, bio);

	while ((bio = bio_list_pop(&list))) {
		if (!mirror_map_read(a, bio)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
		}
	}
	while ((bio = bio_list_pop(&writes))) {
		u64 region = rl_md_region(rl_md_state(a->md),
					  rl_pb(bio)->lsector);

		if (rl_md_intent_start(a->md, region)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
			continue;
		}
		mirror_write_ready(a, bio);
	}
	while ((bio = bio_list_pop(&ready)))
		mirror_write_ready(a, bio);
}

/*
 * Open the window [s, s + len) (member sectors after data_offset): from now
 * on writes to its bucket wait, and once those in flight have ended the
 * window is ours. One window at a time: win_mutex is held until
 * mirror_window_close() (the sync worker and fix_work share it, and the
 * check buffers). Sleeps.
 */
void mirror_window_open(struct rl_mirror *mi, sector_t s, sector_t len)
{
	bool wait;

	mutex_lock(&mi->win_mutex);
	spin_lock_irq(&mi->lock);
	mi->win.start = s;
	mi->win.len = len;
	reinit_completion(&mi->win_drained);
	wait = mi->bucket_writes[rl_mirror_bucket(s)] != 0;
	mi->win_draining = wait;
	spin_unlock_irq(&mi->lock);
	if (wait)
		wait_for_completion(&mi->win_drained);
}

/* Close the window and queue the writes it held off again. */
void mirror_window_close(struct rl_mirror *mi)
{
	bool kick;

	spin_lock_irq(&mi->lock);
	mi->win.len = 0;
	kick = !bio_list_empty(&mi->win_waiting);
	bio_list_merge(&mi->ready, &mi->win_waiting);
	bio_list_init(&mi->win_waiting);
	spin_unlock_irq(&mi->lock);
	mutex_unlock(&mi->win_mutex);
	if (kick)
		queue_work(mi->a->wq, &mi->retry_work);
}

/*
 * Member I/O of a background job or a read fix, through member @m's queue
 * in @class: [s, s + len) (after data_offset) to or from @data (a check
 * buffer). Returns 0, or -EIO if it failed. Sleeps.
 */
int mirror_io(struct rl_array *a, unsigned int m, blk_opf_t opf, void *data,
	      sector_t s, sector_t len, enum rl_class class)
{
	struct rl_mio_group g;
	bool write = op_is_write(opf);

	rl_mio_init(&g, a, &rl_mirror(a)->mio_bs);
	rl_mio(&g, m, opf, s, data, len, class,
	       write ? RL_DATA_WRITE : RL_DATA_READ);
	if (rl_mio_wait(&g))
		return -EIO;
	if (!write)
		rl_mio_read_done(data, len);
	return 0;
}

/*
 * Read [s, s + len) of every member in @members into its check buffer, all
 * at once, in the background class. Returns the members whose read
 * failed. Sleeps.
 */
unsigned long mirror_read_all(struct rl_array *a, unsigned long members,
			      sector_t s, sector_t len)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct rl_mio_group g;
	unsigned long failed;
	unsigned int m;

	rl_mio_init(&g, a, &mi->mio_bs);
	for_each_set_bit(m, &members, a->geom.nr_members)
		rl_mio(&g, m, REQ_OP_READ, s, mi->buf[m].data, len, RL_BG,
		       RL_DATA_READ);
	failed = rl_mio_wait(&g);
	for_each_set_bit(m, &members, a->geom.nr_members)
		if (!test_bit(m, &failed))
			rl_mio_read_done(mi->buf[m].data, len);
	return failed;
}

/*
 * Member @m could not read the window at @s of a background job, and
 * another member can: the caller rewrites @m's copy from it. Returns true
 * if it may (the error is counted), false once @m has had more than
 * RL_MAX_READ_ERRORS: then @m has failed, unless it is the last member in
 * sync.
 */
bool mirror_bg_read_error(struct rl_array *a, unsigned int m,
			  sector_t s, const char *job)
{
	struct dm_dev *dev = READ_ONCE(a->members[m].dev);
	char why[32];

	if (rl_member_read_error(a, m, dev, s))
		return true;
	/* md keeps its last working device: the sectors are lost instead */
	if (!(GENMASK(a->geom.nr_members - 1, 0) & ~BIT(m) &
	      ~READ_ONCE(a->failed) & ~READ_ONCE(a->rebuilding)))
		return false;
	snprintf(why, sizeof(why), "%s read error", job);
	rl_member_fail_io(a, m, dev, why);
	return false;
}

/* A window no member could read: the job stops there (sync.c logs where). */
int mirror_bg_no_source(struct rl_array *a, unsigned long bad,
			sector_t s, const char *job)
{
	DMERR_LIMIT("%s: %s: no member can read member sector %llu (%*pbl tried)",
		    dm_table_device_name(a->ti->table), job,
		    (unsigned long long)s, a->geom.nr_members, &bad);
	return -EIO;
}

/*
 * Copy [s, s + len) from member @src over the members in @dests, as
 * dm-kcopyd overlaps its sub-jobs: the window in two pieces or more,
 * each in a check buffer of its own (the members' buffers hold a window:
 * nr * check_sectors >= RL_MIRROR_SLOT_SECTORS, mirror_ctr()), every
 * read queued on @src at once, back to back, and each piece's
 * writes queued as soon as it is read. Fails the members whose disks
 * could not write (a disk replaced meanwhile is the new one's rebuild's
 * business); returns 0 or -EIO. @read_err: set (to BIT(@src)) if @src
 * could not read it. Sleeps.
 */
static int mirror_copy(struct rl_array *a, unsigned int src,
		       unsigned long dests, sector_t s, sector_t len,
		       const char *job, unsigned long *read_err)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned int nr = a->geom.nr_members, i, k, m;
	sector_t piece = min_t(sector_t, mi->check_sectors,
			       round_up(DIV_ROUND_UP(len, 2), 8));
	struct rl_mio_group *wg = &mi->copy_wg;
	bool bad = false;
	char why[32];
	sector_t n;
	u8 *buf;

	k = DIV_ROUND_UP(len, piece);
	for (i = 0; i < k; i++) {
		rl_mio_init(&mi->copy_rg[i], a, &mi->mio_bs);
		rl_mio(&mi->copy_rg[i], src, REQ_OP_READ, s + i * piece,
		       mi->buf[(src + i) % nr].data,
		       min(piece, len - i * piece), RL_BG, RL_DATA_READ);
	}
	rl_mio_init(wg, a, &mi->mio_bs);
	for (i = 0; i < k; i++) {
		buf = mi->buf[(src + i) % nr].data;
		n = min(piece, len - i * piece);
		/* wait for every read, even after one failed: they use buf */
		if (rl_mio_wait(&mi->copy_rg[i]))
			bad = true;
		if (bad)
			continue;
		rl_mio_read_done(buf, n);
		for_each_set_bit(m, &dests, nr)
			rl_mio(wg, m, REQ_OP_WRITE, s + i * piece, buf, n,
			       RL_BG, RL_DATA_WRITE);
	}
	rl_mio_wait(wg);
	*read_err = bad ? BIT(src) : 0;
	if (!(wg->failed & dests))
		return 0;
	snprintf(why, sizeof(why), "%s write error", job);
	for_each_set_bit(m, &wg->failed, nr)
		rl_member_fail_io(a, m, wg->fdev[m], why);
	return -EIO;
}

/*
 * Copied over @dests: their bad-block entries in [s, s + len) go (durable
 * at the end of the window, mirror_sync_range()). Process context.
 */
static void mirror_copied(struct rl_array *a, unsigned long dests, sector_t s,
			  sector_t len)
{
	unsigned long bb = rl_bbl_members(a, s, len) & dests;
	unsigned int m;

	for_each_set_bit(m, &bb, a->geom.nr_members)
		rl_bbl_clear(a, m, s, len);
}

/*
 * A copy job's window: copy it over @dests from the first readable member.
 * A source that cannot read it is rewritten, with @dests, from the next
 * one, as md's raid1 does with a sync read error: a bad sector costs no
 * disk (past RL_MAX_READ_ERRORS it does). With no member left to read it
 * returns -ENODATA (a resync then stops; a rebuild loses the sectors,
 * mirror_rebuild_lost()). Sleeps; the window is open.
 */
int mirror_copy_window(struct rl_array *a, unsigned long unreadable,
		       unsigned long dests, sector_t s, sector_t len,
		       const char *job)
{
	unsigned long fix = 0, read_err;
	unsigned int src;
	int r;

	for (;;) {
		src = rl_mirror_source(unreadable | fix, a->geom.nr_members);
		if (src == RL_NONE) {
			mirror_bg_no_source(a, fix, s, job);
			return -ENODATA;
		}
		dests = (dests | fix) & ~BIT(src) & ~READ_ONCE(a->failed);
		if (!dests)
			return 0;
		r = mirror_copy(a, src, dests, s, len, job, &read_err);
		if (!r && !read_err)
			mirror_copied(a, dests, s, len);
		if (r || !read_err)
			return r;
		if (mirror_bg_read_error(a, src, s, job))
			__set_bit(src, &fix);
		else
			__set_bit(src, &unreadable);
	}
}
