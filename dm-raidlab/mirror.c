// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab mirror: N-way mirroring. Every member holds every sector.
 *
 * Writes are cloned to every live member and end when all copies have; they
 * succeed if at least one copy landed (members whose copy failed are marked
 * failed). Reads go to one member chosen by rl_mirror_read_balance(); a read
 * that fails marks its member failed and is sent to another.
 */
#include "mirror.h"

struct rl_mirror {
	struct bio_set bs;		/* write clones, with struct rl_mirror_clone */
	spinlock_t lock;
	struct bio_list retry;		/* failed reads to send elsewhere */
	struct bio_list writes;		/* writes map could not clone */
	struct work_struct retry_work;
	struct rl_array *a;
};

struct rl_mirror_clone {
	struct bio *orig;
	struct rl_array *a;
	unsigned int member;
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

static unsigned int mirror_choose(struct rl_array *a, sector_t msector,
				  unsigned int sectors)
{
	struct rl_mirror_view v[RL_MAX_MEMBERS];
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		v[m].head = READ_ONCE(a->members[m].head);
		v[m].inflight = atomic_read(&a->members[m].inflight);
		v[m].failed = rl_member_failed(a, m);
		v[m].predicted_ns = v[m].failed ? U64_MAX :
			rl_track_predict(a, m, msector, sectors);
		if (v[m].predicted_ns == U64_MAX)
			v[m].predicted_ns = 0;
	}
	return rl_mirror_read_balance(v, a->geom.nr_members, msector);
}

/*
 * Send a read to the best live member, through its queue; false if none is
 * left. Process context.
 */
static bool mirror_map_read(struct rl_array *a, struct bio *bio)
{
	sector_t msector = a->geom.data_offset + rl_pb(bio)->lsector;
	unsigned int m = mirror_choose(a, msector, bio_sectors(bio));

	if (m == RL_NONE)
		return false;
	rl_remap(a, bio, m, msector);
	return true;
}

static void mirror_write_put(struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);

	if (!atomic_dec_and_test(&pb->pending))
		return;
	bio->bi_status = atomic_read(&pb->ok) ? BLK_STS_OK : BLK_STS_IOERR;
	bio_endio(bio);
}

static void mirror_write_endio(struct bio *clone)
{
	struct rl_mirror_clone *mc = container_of(clone, struct rl_mirror_clone,
						  clone);
	struct bio *orig = mc->orig;

	rl_member_done(mc->a, mc->member, &mc->qe);
	if (!clone->bi_status)
		atomic_inc(&rl_pb(orig)->ok);
	else if (rl_status_fails_member(clone->bi_status))
		rl_member_fail(mc->a, mc->member, "write error");
	bio_put(clone);
	mirror_write_put(orig);
}

static void mirror_write_submit(struct rl_qent *qe)
{
	struct rl_mirror_clone *mc = container_of(qe, struct rl_mirror_clone,
						  qe);

	submit_bio_noacct(&mc->clone);
}

/*
 * Clone a write for every live member and queue the clones. All clones are
 * allocated before any is queued: once queued, a clone may be issued and
 * hold a member's queue slot, and none may then wait for the bioset.
 * Returns false, with nothing allocated or queued, if @gfp could not get
 * them all.
 */
static bool mirror_write_clones(struct rl_array *a, struct bio *bio, gfp_t gfp)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct rl_bio *pb = rl_pb(bio);
	sector_t msector = a->geom.data_offset + pb->lsector;
	struct rl_mirror_clone *mc[RL_MAX_MEMBERS];
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		struct bio *clone;

		mc[m] = NULL;
		if (rl_member_failed(a, m))
			continue;
		clone = bio_alloc_clone(a->members[m].dev->bdev, bio, gfp,
					&mi->bs);
		if (!clone) {
			while (m--)
				if (mc[m])
					bio_put(&mc[m]->clone);
			return false;
		}
		mc[m] = container_of(clone, struct rl_mirror_clone, clone);
	}

	atomic_set(&pb->pending, 1);
	atomic_set(&pb->ok, 0);
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
		rl_qent_init(&c->qe, msector, bio_sectors(bio), true, RL_FG,
			     mirror_write_submit);
		rl_member_start(a, m, RL_DATA_WRITE);
		atomic_inc(&pb->pending);
		rl_queue_add(a, m, &c->qe);
	}
	mirror_write_put(bio);
	return true;
}

/*
 * A write: cloned at once if the bioset has room without waiting (map must
 * not wait for the bioset while clones it queued may hold member slots in
 * the caller's pending bio list), else from the mirror's work item, which
 * may wait.
 */
static int mirror_map_write(struct rl_array *a, struct bio *bio)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned long flags;

	if (rl_nr_failed(a) > a->redundancy)
		return DM_MAPIO_KILL;
	if (mirror_write_clones(a, bio, GFP_NOWAIT))
		return DM_MAPIO_SUBMITTED;

	spin_lock_irqsave(&mi->lock, flags);
	bio_list_add(&mi->writes, bio);
	spin_unlock_irqrestore(&mi->lock, flags);
	queue_work(a->wq, &mi->retry_work);
	return DM_MAPIO_SUBMITTED;
}

/* Serve failed reads again elsewhere, and writes map deferred. */
static void mirror_retry_work(struct work_struct *ws)
{
	struct rl_mirror *mi = container_of(ws, struct rl_mirror, retry_work);
	struct bio_list list, writes;
	struct bio *bio;

	spin_lock_irq(&mi->lock);
	list = mi->retry;
	writes = mi->writes;
	bio_list_init(&mi->retry);
	bio_list_init(&mi->writes);
	spin_unlock_irq(&mi->lock);

	while ((bio = bio_list_pop(&list))) {
		if (!mirror_map_read(mi->a, bio)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
		}
	}
	while ((bio = bio_list_pop(&writes))) {
		if (rl_nr_failed(mi->a) > mi->a->redundancy ||
		    !mirror_write_clones(mi->a, bio, GFP_NOIO)) {
			bio->bi_status = BLK_STS_IOERR;
			bio_endio(bio);
		}
	}
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

static int mirror_end_io(struct rl_array *a, struct bio *bio,
			 blk_status_t *error)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned long flags;

	if (!rl_end_remapped(a, bio, *error))
		return DM_ENDIO_DONE;

	/* send it to another member */
	spin_lock_irqsave(&mi->lock, flags);
	bio_list_add(&mi->retry, bio);
	spin_unlock_irqrestore(&mi->lock, flags);
	queue_work(a->wq, &mi->retry_work);
	return DM_ENDIO_INCOMPLETE;
}

static int mirror_ctr(struct rl_array *a)
{
	struct rl_mirror *mi;
	int r;

	mi = kzalloc(sizeof(*mi), GFP_KERNEL);
	if (!mi) {
		a->ti->error = "Cannot allocate mirror state";
		return -ENOMEM;
	}
	r = bioset_init(&mi->bs, BIO_POOL_SIZE * a->geom.nr_members,
			offsetof(struct rl_mirror_clone, clone),
			BIOSET_NEED_RESCUER);
	if (r) {
		kfree(mi);
		a->ti->error = "Cannot allocate mirror bioset";
		return r;
	}
	spin_lock_init(&mi->lock);
	bio_list_init(&mi->retry);
	bio_list_init(&mi->writes);
	INIT_WORK(&mi->retry_work, mirror_retry_work);
	mi->a = a;
	a->scheme = mi;
	a->ti->num_discard_bios = a->geom.nr_members;
	return 0;
}

static void mirror_dtr(struct rl_array *a)
{
	struct rl_mirror *mi = rl_mirror(a);

	bioset_exit(&mi->bs);
	kfree(mi);
}

const struct rl_scheme_ops rl_mirror_ops = {
	.name = "mirror",
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
};
