// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab mirror: N-way mirroring. Every member holds every sector.
 *
 * Writes are cloned to every member that has not failed (members being
 * rebuilt included, above and below their cursor) and end when all copies
 * have; they succeed if at least one copy landed (members whose copy failed
 * are marked failed). With a metadata device a write first makes its
 * intent region durable (metadata.h). Reads go to one readable member
 * chosen by rl_mirror_read_balance(), or to the resync source where the
 * copies may differ (rl_sync_suspect()). A read that fails is served by
 * fix_work, as md's fix_read_error does: read from another member and
 * written back over the one that failed (then read back and compared),
 * under the window lock; the member fails only past RL_MAX_READ_ERRORS, or
 * if the rewrite fails. With no other member to read, it fails.
 *
 * Background jobs (->sync_range, called by sync.c's worker) work on one
 * window of at most one slot (1 MiB, mirror.h) at a time:
 *
 *   resync   dm-kcopyd copies the source (the lowest readable member) over
 *            every other member that has not failed
 *   rebuild  dm-kcopyd copies the source over the member being rebuilt
 *   check    dm-io reads the window from every readable member into
 *            buffers allocated at construction and compares each with the
 *            source's; repair then writes the source's data over the
 *            members that differ
 *
 * A member that cannot read a job's window is not failed for it: a copy
 * reads the window from the next member and writes it over that one too;
 * a check rewrites its copy from a member that could read it. Past
 * RL_MAX_READ_ERRORS it fails; a window no member can read stops the job.
 *
 * A window lock keeps the copy and foreground writes apart: while a window
 * is open, writes to its bucket (its slot and the slots that share the
 * bucket's counter) wait on a list and are queued again when it closes;
 * the window opens once the writes already in flight in its bucket have
 * ended. Writes are split at slot (and intent region) boundaries, so each
 * is counted in exactly one bucket. Background I/O does not go through the
 * member queues (it is paced by sync.c's rate limit, not by the queue
 * policy); it is counted in the member counters, one I/O per member and
 * window.
 */
#include <linux/dm-io.h>
#include <linux/dm-kcopyd.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../svc/bbl.h"
#include "../svc/metadata.h"
#include "mirror.h"

#define RL_MIRROR_CHECK_BUDGET	(4U << 20)	/* check buffers, all members */
#define RL_MIRROR_CHECK_MIN	128		/* sectors a member, at least */
#define RL_MIRROR_COPY_GROUPS	DIV_ROUND_UP(RL_MAX_MEMBERS, DM_KCOPYD_MAX_REGIONS)

/* One dm-kcopyd job of a window copy: up to DM_KCOPYD_MAX_REGIONS targets. */
struct rl_mirror_copy {
	struct rl_mirror *mi;
	unsigned int src;
	unsigned int nr;
	unsigned int member[DM_KCOPYD_MAX_REGIONS];
};

/* A member's check buffer and the context of its read. */
struct rl_mirror_buf {
	struct rl_mirror *mi;
	unsigned int member;
	u8 *data;			/* check_sectors, vmalloc()ed */
};

struct rl_mirror {
	struct bio_set bs;		/* write clones, with struct rl_mirror_clone */
	spinlock_t lock;		/* lists, window and bucket counts */
	struct bio_list retry;		/* failed reads to send elsewhere */
	struct bio_list writes;		/* writes waiting for their intent */
	struct bio_list ready;		/* writes that hold it, to clone */
	struct bio_list bb_cleared;	/* writes that cleared bad blocks */
	struct work_struct retry_work;
	struct rl_array *a;

	/*
	 * Reads whose member failed to read them: fixed by fix_work, on a
	 * workqueue of its own (it waits for writes whose member queues
	 * are run from a->wq, so it must never hold a->wq's rescuer).
	 */
	struct bio_list fix;
	struct work_struct fix_work;
	struct workqueue_struct *fix_wq;

	/* the window lock; win_mutex: one window at a time (sync or fix) */
	struct mutex win_mutex;
	struct rl_mirror_window win;	/* the open window, len 0: none */
	bool win_draining;		/* win_drained completes at count 0 */
	struct completion win_drained;
	struct bio_list win_waiting;	/* writes held off by the window */
	unsigned int bucket_writes[RL_MIRROR_BUCKETS];	/* writes in flight */

	/* background I/O (one job at a time: sync.c's worker, or fix_work) */
	struct dm_kcopyd_client *kc;
	struct dm_io_client *io;
	atomic_t bg_pending;
	struct completion bg_done;
	unsigned long bg_read_err;	/* members whose read failed */
	unsigned long bg_write_err;	/* members whose write failed */
	struct rl_mirror_copy copy[RL_MIRROR_COPY_GROUPS];
	unsigned int check_sectors;	/* window of a check or repair */
	DECLARE_BITMAP(diff, RL_MIRROR_SLOT_SECTORS);	/* mismatching sectors */
	struct rl_mirror_buf buf[];
};

/* A write's per-bio data of the mirror's own, beside struct rl_bio. */
struct rl_mirror_bio {
	atomic_t pending;		/* copies not ended, + 1 while cloning */
	atomic_t ok;			/* copies that landed */
	unsigned long bb_landed;	/* copies that landed over bad blocks */
};

static struct rl_mirror_bio *mirror_pb(struct bio *bio)
{
	return rl_pb_scheme(bio, sizeof(struct rl_mirror_bio));
}

struct rl_mirror_clone {
	struct bio *orig;
	struct rl_array *a;
	unsigned int member;
	struct dm_dev *dev;		/* the disk it was sent to */
	bool clears;			/* over bad-block entries: FUA, then cleared */
	struct rl_qent qe;		/* its place in the member's queue */
	struct bio clone;		/* must be last: bioset front_pad */
};

static struct rl_mirror *rl_mirror(struct rl_array *a)
{
	return a->scheme;
}

static unsigned int mirror_data_columns(unsigned int nr_members)
{
	return 1;
}

static void mirror_map_sector(const struct rl_geom *g, sector_t lsector,
			      struct rl_loc *loc)
{
	loc->member = 0;
	loc->row = 0;
	loc->col = 0;
	loc->sector = g->data_offset + lsector;
}

static bool mirror_unmap_sector(const struct rl_geom *g, unsigned int member,
				sector_t msector, sector_t *lsector)
{
	if (msector < g->data_offset || member >= g->nr_members)
		return false;
	*lsector = msector - g->data_offset;
	return true;
}

/**
 * rl_mirror_read_balance() - choose the member to read @sector from
 * @v: one view per member
 * @nr: number of members
 * @sector: first member sector of the read
 *
 * Once head tracking predicts access times (an idle member with a
 * calibrated tracker has a nonzero predicted_ns), the member with the
 * shortest predicted seek + rotation + transfer wins. Without predictions,
 * a member whose head sits exactly at @sector continues a sequential stream
 * and is taken at once; otherwise the member with the fewest I/Os queued or
 * in flight wins, and among those the one whose head is nearest, as md
 * raid1 does for rotating disks. Ties go to the lowest index.
 *
 * Return: the member, or RL_NONE if every member has failed.
 */
unsigned int rl_mirror_read_balance(const struct rl_mirror_view *v,
				    unsigned int nr, sector_t sector)
{
	unsigned int m, best = RL_NONE;
	sector_t best_dist = 0;

	for (m = 0; m < nr; m++)
		if (!v[m].failed && v[m].predicted_ns &&
		    (best == RL_NONE || v[m].predicted_ns < v[best].predicted_ns))
			best = m;
	if (best != RL_NONE)
		return best;

	for (m = 0; m < nr; m++) {
		sector_t dist;

		if (v[m].failed)
			continue;
		dist = v[m].head > sector ? v[m].head - sector : sector - v[m].head;
		if (!dist)
			return m;
		if (best == RL_NONE || v[m].inflight < v[best].inflight ||
		    (v[m].inflight == v[best].inflight && dist < best_dist)) {
			best = m;
			best_dist = dist;
		}
	}
	return best;
}

/**
 * rl_mirror_source() - the member copies are taken from
 * @unreadable: members that must not be read (rl_unreadable_at())
 * @nr: number of members
 *
 * The lowest-index member that can be read: the resync and rebuild copy
 * from it, check compares against it, and reads of sectors whose copies
 * may still differ are served by it, so they return what the resync will
 * leave everywhere.
 *
 * Return: the member, or RL_NONE if none can be read.
 */
unsigned int rl_mirror_source(unsigned long unreadable, unsigned int nr)
{
	unsigned int m = find_first_zero_bit(&unreadable, nr);

	return m < nr ? m : RL_NONE;
}

/**
 * rl_mirror_read_choose() - the member a read of @sector goes to
 * @v: one view per member; members in @unreadable are marked failed in it
 * @nr: number of members
 * @sector: first member sector of the read
 * @unreadable: members that must not be read there (failed, or rebuilt
 *	at or above their cursor)
 * @suspect: the copies of @sector may differ (not resynced yet)
 *
 * A suspect read goes to rl_mirror_source(); any other is balanced by
 * rl_mirror_read_balance() over the readable members.
 *
 * Return: the member, or RL_NONE if none can be read.
 */
unsigned int rl_mirror_read_choose(struct rl_mirror_view *v, unsigned int nr,
				   sector_t sector, unsigned long unreadable,
				   bool suspect)
{
	unsigned int m;

	for (m = 0; m < nr; m++)
		if (v[m].failed)
			__set_bit(m, &unreadable);
		else if (test_bit(m, &unreadable))
			v[m].failed = true;
	if (suspect)
		return rl_mirror_source(unreadable, nr);
	return rl_mirror_read_balance(v, nr, sector);
}

/* True if [s1, s1 + len1) and [s2, s2 + len2) share a sector. */
bool rl_mirror_overlap(sector_t s1, sector_t len1, sector_t s2, sector_t len2)
{
	return len1 && len2 && s1 < s2 + len2 && s2 < s1 + len1;
}

/**
 * rl_mirror_blocks() - whether the sync window holds off a write
 * @w: the window (len 0: none open)
 * @msector: first member sector of the write (after data_offset)
 * @sectors: its length
 *
 * A write waits while it overlaps the window, and also while it falls in
 * the window's bucket: the window waits for the writes of its bucket in
 * flight to end, and new ones of that bucket must not keep it waiting.
 *
 * Return: true if the write must wait for the window to close.
 */
bool rl_mirror_blocks(const struct rl_mirror_window *w, sector_t msector,
		      sector_t sectors)
{
	if (!w->len)
		return false;
	return rl_mirror_overlap(w->start, w->len, msector, sectors) ||
	       rl_mirror_bucket(msector) == rl_mirror_bucket(w->start);
}

/**
 * rl_mirror_split_len() - the part of a range that stays in one block
 * @msector: first sector of the range
 * @sectors: its length
 * @shift: blocks of 1 << @shift sectors, aligned
 *
 * A write is split with it at slot and intent region boundaries (the
 * smaller of the two), so that it is counted in one bucket and holds one
 * region's intent; a read walks the regions it spans with it.
 *
 * Return: the sectors of the range up to the end of @msector's block.
 */
sector_t rl_mirror_split_len(sector_t msector, sector_t sectors,
			     unsigned int shift)
{
	sector_t block = (sector_t)1 << shift;
	sector_t left = block - (msector & (block - 1));

	return min(sectors, left);
}

/**
 * rl_mirror_window_len() - the length of a sync window at @msector
 * @msector: first member sector (after data_offset)
 * @want: sectors the caller asked for (to the end of the members at most)
 * @max: the job's largest window (at most RL_MIRROR_SLOT_SECTORS)
 *
 * Return: @want, cut to @max and to the end of @msector's slot.
 */
sector_t rl_mirror_window_len(sector_t msector, sector_t want, sector_t max)
{
	return rl_mirror_split_len(msector, min(want, max),
				   RL_MIRROR_SLOT_SHIFT);
}

/**
 * rl_mirror_diff() - find the sectors where two copies differ
 * @src: the source's copy
 * @buf: another member's copy
 * @sectors: length of both
 * @map: bit i is set for each differing sector i (others are left alone,
 *	so the map collects the union over members)
 * @first: set to the first differing sector, if any
 * @last: set to the last differing sector, if any
 *
 * Return: the number of differing sectors.
 */
unsigned int rl_mirror_diff(const u8 *src, const u8 *buf,
			    unsigned int sectors, unsigned long *map,
			    unsigned int *first, unsigned int *last)
{
	unsigned int i, n = 0;

	if (!memcmp(src, buf, (size_t)sectors << SECTOR_SHIFT))
		return 0;
	for (i = 0; i < sectors; i++) {
		size_t off = (size_t)i << SECTOR_SHIFT;

		if (!memcmp(src + off, buf + off, SECTOR_SIZE))
			continue;
		__set_bit(i, map);
		if (!n)
			*first = i;
		*last = i;
		n++;
	}
	return n;
}

/*
 * Members that must not be read anywhere in [msector, msector + sectors)
 * (after data_offset). A member being rebuilt is readable below its cursor
 * only, so testing both ends covers the range.
 */
static unsigned long mirror_unreadable(struct rl_array *a, sector_t msector,
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
static unsigned int mirror_split_shift(struct rl_array *a)
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
static bool mirror_map_read(struct rl_array *a, struct bio *bio)
{
	sector_t lsector = rl_pb(bio)->lsector;
	unsigned int m = mirror_choose(a, lsector, bio_sectors(bio));

	if (m == RL_NONE)
		return false;
	rl_remap(a, bio, m, a->geom.data_offset + lsector);
	return true;
}

/* Queue @bio on @list for the work item. Any context. */
static void mirror_defer(struct rl_mirror *mi, struct bio_list *list,
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
static int mirror_map_write(struct rl_array *a, struct bio *bio)
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
static void mirror_retry_work(struct work_struct *ws)
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

static int mirror_map(struct rl_array *a, struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return mirror_map_read(a, bio) ? DM_MAPIO_SUBMITTED : DM_MAPIO_KILL;
	case REQ_OP_WRITE:
		return mirror_map_write(a, bio);
	case REQ_OP_DISCARD:
		return rl_map_duplicate(a, bio);
	default:
		return DM_MAPIO_KILL;
	}
}

/* What to do with a read that failed on its member. */
enum rl_mirror_read_err {
	RL_MIRROR_RE_FAIL,	/* fail the member, read another (or fail) */
	RL_MIRROR_RE_FIX,	/* read another, rewrite it (fix_work) */
	RL_MIRROR_RE_LAST,	/* no other copy: the read fails, not the member */
};

/*
 * A read that failed on its member is fixed if another member can serve
 * it and the member is still the disk the read went to and under
 * RL_MAX_READ_ERRORS. The last readable copy is not failed for a read
 * error, as md keeps its last working device: the read fails. Any
 * context.
 */
static enum rl_mirror_read_err mirror_read_error(struct rl_array *a,
						 struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);
	/* the size as mapped: the completion may have consumed bi_iter */
	sector_t sectors = pb->rec.iter.bi_size >> SECTOR_SHIFT;
	unsigned long unreadable;
	unsigned int m = pb->member;

	if (bio_op(bio) != REQ_OP_READ || m == RL_NONE || !sectors ||
	    bio->bi_opf & REQ_RAHEAD)
		return RL_MIRROR_RE_FAIL;
	unreadable = mirror_unreadable(a, pb->lsector, sectors) | BIT(m);
	if (rl_mirror_source(unreadable, a->geom.nr_members) == RL_NONE) {
		if (pb->dev != READ_ONCE(a->members[m].dev))
			return RL_MIRROR_RE_FAIL;
		DMERR_LIMIT("%s: member %u (%s): read error at %llu: no other copy, the read fails",
			    dm_table_device_name(a->ti->table), m,
			    pb->dev->name, (unsigned long long)pb->lsector);
		return RL_MIRROR_RE_LAST;
	}
	return rl_member_read_error(a, m, pb->dev, pb->lsector) ?
	       RL_MIRROR_RE_FIX : RL_MIRROR_RE_FAIL;
}

static int mirror_end_io(struct rl_array *a, struct bio *bio,
			 blk_status_t *error)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct rl_bio *pb = rl_pb(bio);
	enum rl_mirror_read_err re = *error ? mirror_read_error(a, bio) :
					      RL_MIRROR_RE_FAIL;
	unsigned long flags;

	if (re == RL_MIRROR_RE_LAST) {
		rl_member_done(a, pb->member, &pb->qe);
		pb->member = RL_NONE;
		return DM_ENDIO_DONE;
	}
	if (re == RL_MIRROR_RE_FIX) {
		/* pb->dev stays: it names the disk that could not read */
		rl_member_done(a, pb->member, &pb->qe);
		rl_restore(bio);
		spin_lock_irqsave(&mi->lock, flags);
		bio_list_add(&mi->fix, bio);
		spin_unlock_irqrestore(&mi->lock, flags);
		queue_work(mi->fix_wq, &mi->fix_work);
		return DM_ENDIO_INCOMPLETE;
	}
	if (!rl_end_remapped(a, bio, *error))
		return DM_ENDIO_DONE;

	/* send it to another member */
	mirror_defer(rl_mirror(a), &rl_mirror(a)->retry, bio);
	return DM_ENDIO_INCOMPLETE;
}

/* ---------------------------------------------------------- sync jobs --- */

/*
 * Open the window [s, s + len) (member sectors after data_offset): from now
 * on writes to its bucket wait, and once those in flight have ended the
 * window is ours. One window at a time: win_mutex is held until
 * mirror_window_close() (the sync worker and fix_work share it, and the
 * check buffers). Sleeps.
 */
static void mirror_window_open(struct rl_mirror *mi, sector_t s, sector_t len)
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
static void mirror_window_close(struct rl_mirror *mi)
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

/* Start counting background I/Os: one reference held by the issuer. */
static void mirror_bg_begin(struct rl_mirror *mi)
{
	atomic_set(&mi->bg_pending, 1);
	reinit_completion(&mi->bg_done);
	mi->bg_read_err = 0;
	mi->bg_write_err = 0;
}

static void mirror_bg_put(struct rl_mirror *mi)
{
	if (atomic_dec_and_test(&mi->bg_pending))
		complete(&mi->bg_done);
}

/*
 * Drop the issuer's reference, wait for the background I/Os, and fail the
 * members whose writes failed. Returns 0 or -EIO; the members whose reads
 * failed are returned in @read_err (a bad sector is not a failure: the
 * caller rewrites it from another copy, mirror_bg_read_error()).
 */
static int mirror_bg_wait(struct rl_array *a, const char *job,
			  unsigned long *read_err)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned int m;
	char why[32];

	mirror_bg_put(mi);
	wait_for_completion(&mi->bg_done);
	*read_err = mi->bg_read_err;
	if (!mi->bg_write_err)
		return 0;
	snprintf(why, sizeof(why), "%s write error", job);
	for_each_set_bit(m, &mi->bg_write_err, a->geom.nr_members)
		rl_member_fail(a, m, why);
	return -EIO;
}

/*
 * Member @m could not read the window at @s of a background job, and
 * another member can: the caller rewrites @m's copy from it. Returns true
 * if it may (the error is counted), false once @m has had more than
 * RL_MAX_READ_ERRORS: then @m has failed, unless it is the last member in
 * sync.
 */
static bool mirror_bg_read_error(struct rl_array *a, unsigned int m,
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
static int mirror_bg_no_source(struct rl_array *a, unsigned long bad,
			       sector_t s, const char *job)
{
	DMERR_LIMIT("%s: %s: no member can read member sector %llu (%*pbl tried)",
		    dm_table_device_name(a->ti->table), job,
		    (unsigned long long)s, a->geom.nr_members, &bad);
	return -EIO;
}

static void mirror_copy_done(int read_err, unsigned long write_err,
			     void *context)
{
	struct rl_mirror_copy *c = context;
	struct rl_mirror *mi = c->mi;
	unsigned int i;

	if (read_err)
		set_bit(c->src, &mi->bg_read_err);
	for_each_set_bit(i, &write_err, c->nr)
		set_bit(c->member[i], &mi->bg_write_err);
	mirror_bg_put(mi);
}

static void mirror_copy_issue(struct rl_array *a, struct rl_mirror_copy *c,
			      struct dm_io_region *from)
{
	struct dm_io_region to[DM_KCOPYD_MAX_REGIONS];
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		to[i] = *from;
		to[i].bdev = a->members[c->member[i]].dev->bdev;
		atomic64_inc(&a->members[c->member[i]].io[RL_DATA_WRITE]);
	}
	atomic64_inc(&a->members[c->src].io[RL_DATA_READ]);
	atomic_inc(&c->mi->bg_pending);
	dm_kcopyd_copy(c->mi->kc, from, c->nr, to, 0, mirror_copy_done, c);
}

/*
 * Copy [s, s + len) from member @src over the members in @dests with
 * dm-kcopyd, DM_KCOPYD_MAX_REGIONS at a time, and wait. @read_err: set
 * (to BIT(@src)) if @src could not read it. Sleeps.
 */
static int mirror_copy(struct rl_array *a, unsigned int src,
		       unsigned long dests, sector_t s, sector_t len,
		       const char *job, unsigned long *read_err)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct dm_io_region from = {
		.bdev = a->members[src].dev->bdev,
		.sector = a->geom.data_offset + s,
		.count = len,
	};
	struct rl_mirror_copy *c = NULL;
	unsigned int m, k = 0;

	mirror_bg_begin(mi);
	for_each_set_bit(m, &dests, a->geom.nr_members) {
		if (!c) {
			c = &mi->copy[k++];
			c->src = src;
			c->nr = 0;
		}
		c->member[c->nr++] = m;
		if (c->nr == DM_KCOPYD_MAX_REGIONS) {
			mirror_copy_issue(a, c, &from);
			c = NULL;
		}
	}
	if (c)
		mirror_copy_issue(a, c, &from);
	return mirror_bg_wait(a, job, read_err);
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
static int mirror_copy_window(struct rl_array *a, unsigned long unreadable,
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

static void mirror_read_done(unsigned long error, void *context)
{
	struct rl_mirror_buf *b = context;

	if (error)
		set_bit(b->member, &b->mi->bg_read_err);
	mirror_bg_put(b->mi);
}

/* dm-io on member @m's [s, s + len) to or from @data. */
static int mirror_dm_io(struct rl_array *a, unsigned int m, blk_opf_t opf,
			void *data, sector_t s, sector_t len,
			io_notify_fn fn, void *context)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_VMA,
		.mem.ptr.vma = data,
		.notify.fn = fn,
		.notify.context = context,
		.client = mi->io,
	};
	struct dm_io_region where = {
		.bdev = a->members[m].dev->bdev,
		.sector = a->geom.data_offset + s,
		.count = len,
	};

	atomic64_inc(&a->members[m].io[op_is_write(opf) ? RL_DATA_WRITE :
				     RL_DATA_READ]);
	return dm_io(&req, 1, &where, NULL, IOPRIO_DEFAULT);
}

/* ---------------------------------------------------- read error fix --- */

/* The member whose disk is @dev, or RL_NONE (a spare took the role since). */
static unsigned int mirror_member_of(struct rl_array *a,
				     const struct dm_dev *dev)
{
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++)
		if (READ_ONCE(a->members[m].dev) == dev)
			return m;
	return RL_NONE;
}

/* Copy @bytes of @buf into @bio's data, @off sectors into it. */
static void mirror_copy_to_bio(struct bio *bio, sector_t off, const u8 *buf,
			       size_t bytes)
{
	struct bvec_iter it = bio->bi_iter;
	struct bio_vec bv;

	bio_advance_iter(bio, &it, off << SECTOR_SHIFT);
	while (bytes && it.bi_size) {
		bv = bio_iter_iovec(bio, it);
		bv.bv_len = min_t(size_t, bytes, bv.bv_len);
		memcpy_to_bvec(&bv, buf);
		buf += bv.bv_len;
		bytes -= bv.bv_len;
		bio_advance_iter_single(bio, &it, bv.bv_len);
	}
}

/*
 * Read [s, s + len) from a member other than @bad (that could not read
 * it) into that member's buffer; if one cannot read it either, the next
 * is tried (it is not failed for it: its own reads will rewrite it).
 * Returns the member read, or RL_NONE. The window is open. Sleeps.
 */
static unsigned int mirror_fix_source(struct rl_array *a, unsigned int bad,
				      sector_t s, sector_t len)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned long tried = bad == RL_NONE ? 0 : BIT(bad);
	unsigned int src;

	for (;;) {
		src = rl_mirror_source(mirror_unreadable(a, s, len) | tried,
				       a->geom.nr_members);
		if (src == RL_NONE)
			return RL_NONE;
		if (!mirror_dm_io(a, src, REQ_OP_READ, mi->buf[src].data, s,
				  len, NULL, NULL))
			return src;
		__set_bit(src, &tried);
		DMERR_LIMIT("%s: member %u: read error at %llu, serving a read member %u could not",
			    dm_table_device_name(a->ti->table), src,
			    (unsigned long long)s, bad);
	}
}

/*
 * Fix [s, s + len) of a read that member @bad's disk @dev could not
 * serve: read it from another member and write it back over @bad, then
 * read it back from @bad and compare (md's fix_read_error). A rewrite
 * that fails, or reads back wrong, fails @bad. The window is open, so no
 * write to the range runs meanwhile: the rewrite cannot put older data
 * over a newer write. (A crash in the middle of it leaves @bad's sectors
 * old or rewritten, both the data the others hold: no intent is needed.)
 * Returns the buffer with the data, or NULL if no member could read it.
 * Sleeps.
 */
static const u8 *mirror_fix_piece(struct rl_array *a, unsigned int bad,
				  const struct dm_dev *dev, sector_t s,
				  sector_t len)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned int src = mirror_fix_source(a, bad, s, len);
	const u8 *good;

	if (src == RL_NONE)
		return NULL;
	good = mi->buf[src].data;
	/* not if the role went to a spare meanwhile: its rebuild writes it */
	if (bad == RL_NONE || rl_member_failed(a, bad) ||
	    READ_ONCE(a->members[bad].dev) != dev)
		return good;
	if (mirror_dm_io(a, bad, REQ_OP_WRITE, (void *)good, s, len, NULL,
			 NULL) ||
	    mirror_dm_io(a, bad, REQ_OP_READ, mi->buf[bad].data, s, len, NULL,
			 NULL) ||
	    memcmp(mi->buf[bad].data, good, (size_t)len << SECTOR_SHIFT))
		rl_member_fail_io(a, bad, dev, "read error, rewrite failed");
	return good;
}

/* Serve a read that failed on its member (pb->dev), a window at a time. */
static void mirror_fix_read(struct rl_array *a, struct bio *bio)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct rl_bio *pb = rl_pb(bio);
	unsigned int bad = mirror_member_of(a, pb->dev);
	sector_t s = pb->lsector, end = s + bio_sectors(bio), len;
	const u8 *good;

	bio->bi_status = BLK_STS_OK;
	while (s < end) {
		len = rl_mirror_split_len(s, min_t(sector_t, end - s,
						   mi->check_sectors),
					  mirror_split_shift(a));
		mirror_window_open(mi, s, len);
		good = mirror_fix_piece(a, bad, pb->dev, s, len);
		if (good)
			mirror_copy_to_bio(bio, s - pb->lsector, good,
					   (size_t)len << SECTOR_SHIFT);
		mirror_window_close(mi);
		if (!good) {
			bio->bi_status = BLK_STS_IOERR;
			break;
		}
		s += len;
	}
	bio_endio(bio);
}

static void mirror_fix_work(struct work_struct *ws)
{
	struct rl_mirror *mi = container_of(ws, struct rl_mirror, fix_work);
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&mi->lock);
	list = mi->fix;
	bio_list_init(&mi->fix);
	spin_unlock_irq(&mi->lock);
	while ((bio = bio_list_pop(&list)))
		mirror_fix_read(mi->a, bio);
}

/*
 * Check or repair read [s, s + len) of every member not in @unreadable;
 * those in @rerr could not. Rewrite their copies from the first member
 * that could (a check too, as md's raid1 does: a bad sector is fixed
 * where it is found). Returns that member (the check's source from now
 * on), or RL_NONE if none could read it. Sleeps; the window is open.
 */
static unsigned int mirror_check_fix(struct rl_array *a,
				     unsigned long unreadable,
				     unsigned long rerr, sector_t s,
				     sector_t len, const char *job)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned int src = rl_mirror_source(unreadable | rerr,
					    a->geom.nr_members);
	unsigned int m;

	if (src == RL_NONE)
		return RL_NONE;
	for_each_set_bit(m, &rerr, a->geom.nr_members) {
		if (!mirror_bg_read_error(a, m, s, job))
			continue;
		if (mirror_dm_io(a, m, REQ_OP_WRITE, mi->buf[src].data, s, len,
				 NULL, NULL))
			rl_member_fail(a, m, "read error, rewrite failed");
	}
	return src;
}

/*
 * Check (and with @repair, repair) [s, s + len): read it from every member
 * not in @unreadable, compare each copy with @src's, count the sectors
 * where any differs in req->mismatches, and for repair write @src's copy
 * over each differing member, from its first to its last differing
 * sector. Sleeps.
 */
static int mirror_check(struct rl_array *a, unsigned int src,
			unsigned long unreadable, sector_t s, sector_t len,
			struct rl_sync_req *req, bool repair)
{
	struct rl_mirror *mi = rl_mirror(a);
	const char *job = repair ? "repair" : "check";
	unsigned int m, nr = a->geom.nr_members;
	unsigned int first[RL_MAX_MEMBERS], last[RL_MAX_MEMBERS];
	unsigned long differ = 0, rerr;
	int r;

	mirror_bg_begin(mi);
	for (m = 0; m < nr; m++) {
		if (test_bit(m, &unreadable))
			continue;
		atomic_inc(&mi->bg_pending);
		if (mirror_dm_io(a, m, REQ_OP_READ, mi->buf[m].data, s, len,
				 mirror_read_done, &mi->buf[m])) {
			set_bit(m, &mi->bg_read_err);
			mirror_bg_put(mi);
		}
	}
	r = mirror_bg_wait(a, job, &rerr);
	if (r)
		return r;
	if (rerr) {
		src = mirror_check_fix(a, unreadable, rerr, s, len, job);
		if (src == RL_NONE)
			return mirror_bg_no_source(a, rerr, s, job);
		unreadable |= rerr;	/* rewritten: equal to src's */
	}

	bitmap_zero(mi->diff, len);
	for (m = 0; m < nr; m++) {
		if (m == src || test_bit(m, &unreadable))
			continue;
		if (rl_mirror_diff(mi->buf[src].data, mi->buf[m].data, len,
				   mi->diff, &first[m], &last[m]))
			__set_bit(m, &differ);
	}
	req->mismatches += bitmap_weight(mi->diff, len);
	if (!repair)
		return 0;

	for_each_set_bit(m, &differ, nr) {
		sector_t off = first[m];

		if (mirror_dm_io(a, m, REQ_OP_WRITE,
				 mi->buf[src].data + (off << SECTOR_SHIFT),
				 s + off, last[m] - off + 1, NULL, NULL)) {
			rl_member_fail(a, m, "repair write error");
			r = -EIO;
		}
	}
	return r;
}

/* Record [s, s + n) of rebuild target @t lost. Sleeps. */
static int mirror_record_lost(struct rl_array *a, unsigned int t, sector_t s,
			      sector_t n)
{
	if (rl_bbl_record(a, t, s, n)) {
		rl_member_fail(a, t, "bad-block list full");
		return -EIO;
	}
	DMERR_LIMIT("%s: member %u: member sectors %llu+%llu lost in rebuild: recorded bad",
		    dm_table_device_name(a->ti->table), t,
		    (unsigned long long)s, (unsigned long long)n);
	return 0;
}

/*
 * A rebuild window that no member can read: as md's raid1 does, narrow it
 * down (RL_MIRROR_LOST_SECTORS at a time) and record on the target only
 * the pieces no member can read, durably before the cursor moves past
 * them (mirror_sync_range()); the rebuild goes on, the array stays up, and
 * reads of those sectors fail (EIO) until a write covers them. Without
 * bad-block lists, or with the target's list full, the job stops. Sleeps;
 * the window is open.
 */
static int mirror_rebuild_lost(struct rl_array *a, unsigned int t, sector_t s,
			       sector_t len)
{
	sector_t off, n;
	int r;

	if (!a->bbl)
		return -EIO;
	for (off = 0; off < len; off += n) {
		n = min_t(sector_t, len - off, RL_MIRROR_LOST_SECTORS);
		/* a member with entries elsewhere in the window may serve */
		r = mirror_copy_window(a, mirror_unreadable(a, s + off, n) |
				       BIT(t), BIT(t), s + off, n, "rebuild");
		if (r == -ENODATA)
			r = mirror_record_lost(a, t, s + off, n);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Extra limit of a window at @s of @len: it must not straddle the cursor
 * of a member being rebuilt, so that every sector of the window has the
 * same readable members (and the same source as the reads there).
 */
static sector_t mirror_clip_cursors(struct rl_array *a, sector_t s,
				    sector_t len)
{
	unsigned long rebuilding = READ_ONCE(a->rebuilding);
	unsigned int m;

	for_each_set_bit(m, &rebuilding, a->geom.nr_members) {
		sector_t c = READ_ONCE(a->rebuild_cursor[m]);

		if (c > s && c < s + len)
			len = c - s;
	}
	return len;
}

/*
 * Background work on one window from req->msector (see the contract in
 * struct rl_scheme_ops and the top of this file). Sleeps.
 */
static int mirror_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned int nr = a->geom.nr_members, src;
	sector_t s = req->msector, len, max;
	unsigned long unreadable, dests;
	int r;

	if (s >= a->member_sectors || !req->len)
		return -EINVAL;
	if (req->job == RL_SYNC_REBUILD && req->target >= nr)
		return -EINVAL;
	max = req->job == RL_SYNC_CHECK || req->job == RL_SYNC_REPAIR ?
		mi->check_sectors : RL_MIRROR_SLOT_SECTORS;
	len = rl_mirror_window_len(s, min(req->len, a->member_sectors - s),
				   max);
	len = mirror_clip_cursors(a, s, len);
	req->len = len;

	unreadable = mirror_unreadable(a, s, len);
	if (req->job == RL_SYNC_REBUILD)
		__set_bit(req->target, &unreadable);
	src = rl_mirror_source(unreadable, nr);
	if (src == RL_NONE)
		return -EIO;

	mirror_window_open(mi, s, len);
	switch (req->job) {
	case RL_SYNC_RESYNC:
		/* every member that has not failed, rebuilt ones included */
		dests = ~READ_ONCE(a->failed) & GENMASK(nr - 1, 0);
		r = mirror_copy_window(a, unreadable, dests, s, len, "resync");
		break;
	case RL_SYNC_REBUILD:
		r = rl_member_failed(a, req->target) ? -EIO :
			mirror_copy_window(a, unreadable, BIT(req->target), s,
					   len, "rebuild");
		if (r == -ENODATA)
			r = mirror_rebuild_lost(a, req->target, s, len);
		break;
	case RL_SYNC_CHECK:
	case RL_SYNC_REPAIR:
		r = mirror_check(a, src, unreadable, s, len, req,
				 req->job == RL_SYNC_REPAIR);
		break;
	default:
		r = -EINVAL;
		break;
	}
	mirror_window_close(mi);
	/* entries recorded or cleared: durable before the cursor moves */
	if (r == -ENODATA || rl_bbl_persist(a))
		r = -EIO;
	return r;
}

static void mirror_free(struct rl_array *a, struct rl_mirror *mi)
{
	unsigned int m;

	if (mi->fix_wq)
		destroy_workqueue(mi->fix_wq);
	for (m = 0; m < a->geom.nr_members; m++)
		vfree(mi->buf[m].data);
	if (mi->io)
		dm_io_client_destroy(mi->io);
	if (mi->kc)
		dm_kcopyd_client_destroy(mi->kc);
	bioset_exit(&mi->bs);
	kfree(mi);
}

static int mirror_ctr(struct rl_array *a)
{
	unsigned int nr = a->geom.nr_members, m, k;
	struct rl_mirror *mi;
	int r;

	mi = kzalloc(struct_size(mi, buf, nr), GFP_KERNEL);
	if (!mi) {
		a->ti->error = "Cannot allocate mirror state";
		return -ENOMEM;
	}
	r = bioset_init(&mi->bs, BIO_POOL_SIZE * nr,
			offsetof(struct rl_mirror_clone, clone),
			BIOSET_NEED_RESCUER);
	if (r) {
		kfree(mi);
		a->ti->error = "Cannot allocate mirror bioset";
		return r;
	}
	mi->kc = dm_kcopyd_client_create(NULL);
	if (IS_ERR(mi->kc)) {
		r = PTR_ERR(mi->kc);
		mi->kc = NULL;
		a->ti->error = "Cannot create mirror kcopyd client";
		goto bad;
	}
	mi->io = dm_io_client_create();
	if (IS_ERR(mi->io)) {
		r = PTR_ERR(mi->io);
		mi->io = NULL;
		a->ti->error = "Cannot create mirror dm-io client";
		goto bad;
	}
	mi->fix_wq = alloc_ordered_workqueue("kraidlab_mirror_fix",
					     WQ_MEM_RECLAIM);
	if (!mi->fix_wq) {
		r = -ENOMEM;
		a->ti->error = "Cannot allocate mirror workqueue";
		goto bad;
	}
	/* check windows: the budget shared by the members, at most a slot */
	mi->check_sectors = clamp_t(unsigned int,
				    rounddown_pow_of_two(RL_MIRROR_CHECK_BUDGET /
							 nr >> SECTOR_SHIFT),
				    RL_MIRROR_CHECK_MIN, RL_MIRROR_SLOT_SECTORS);
	for (m = 0; m < nr; m++) {
		mi->buf[m].mi = mi;
		mi->buf[m].member = m;
		mi->buf[m].data = vmalloc((size_t)mi->check_sectors <<
					  SECTOR_SHIFT);
		if (!mi->buf[m].data) {
			r = -ENOMEM;
			a->ti->error = "Cannot allocate mirror check buffers";
			goto bad;
		}
	}
	for (k = 0; k < RL_MIRROR_COPY_GROUPS; k++)
		mi->copy[k].mi = mi;
	atomic_set(&mi->bg_pending, 0);
	init_completion(&mi->bg_done);
	init_completion(&mi->win_drained);
	spin_lock_init(&mi->lock);
	bio_list_init(&mi->retry);
	bio_list_init(&mi->writes);
	bio_list_init(&mi->ready);
	bio_list_init(&mi->win_waiting);
	bio_list_init(&mi->fix);
	bio_list_init(&mi->bb_cleared);
	mutex_init(&mi->win_mutex);
	INIT_WORK(&mi->retry_work, mirror_retry_work);
	INIT_WORK(&mi->fix_work, mirror_fix_work);
	mi->a = a;
	a->scheme = mi;
	a->ti->num_discard_bios = nr;
	return 0;
bad:
	mirror_free(a, mi);
	return r;
}

static void mirror_dtr(struct rl_array *a)
{
	mirror_free(a, rl_mirror(a));
}

const struct rl_scheme_ops rl_mirror_ops = {
	.name = "mirror",
	.per_bio_size = sizeof(struct rl_mirror_bio),
	.min_members = 2,
	.redundancy = RL_MAX_MEMBERS,	/* any one member holds the data */
	.parity = false,
	.data_columns = mirror_data_columns,
	.map_sector = mirror_map_sector,
	.unmap_sector = mirror_unmap_sector,
	.ctr = mirror_ctr,
	.dtr = mirror_dtr,
	.map = mirror_map,
	.end_io = mirror_end_io,
	.sync_range = mirror_sync_range,
};
