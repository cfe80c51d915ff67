// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab replace, the member-I/O hook (replace.h). Every I/O a member
 * queue issues is submitted through rl_member_submit(), and the flushes
 * and discards dm sends once per member through rl_replace_dup(). While
 * no role is replaced that is submit_bio_noacct(); while one is, its I/O
 * is routed (rl_replace_route()):
 *
 *   pair      a write to either disk of the pair is cloned to both; the
 *             bio ends when both clones have, with the status of the
 *             role's disk: the other disk's error breaks the replace, it
 *             does not fail the member;
 *   park      I/O the copy must not race waits on a list until the copy
 *             lets it go: every I/O of the role during a quiesce, a write
 *             into the copy's window;
 *   redirect  once the swap was tried, an I/O prepared for the disk that
 *             lost it goes to the one that won;
 *   pass      anything else, as it is.
 *
 * Pair writes are counted in two generations: the copy flips the
 * generation when it sets its window and waits for the old one to drain
 * (rl_replace_window()), so no write that was in flight is still landing
 * when it reads the old disk.
 */
#include <linux/delay.h>
#include <linux/slab.h>

#include "replace.h"

#define RL_RP_POOL	64	/* clones in reserve, in each bioset */

/* A write's clone to one disk of the pair (bioset front_pad). */
struct rl_rp_io {
	struct rl_replace *rp;
	struct bio *orig;
	struct rl_rp_io *own;	/* the clone to orig's own disk: the state */
	atomic_t left;		/* own: clones not yet ended */
	unsigned int gen;	/* own: the generation it counts in */
	bool to_old;		/* own: orig was aimed at the old disk */
	blk_status_t status;	/* own: its disk's */
	blk_status_t peer_status;	/* own: the other disk's */
	struct bio bio;		/* must be last: bioset front_pad */
};

/*
 * What the hook does with an I/O of @sectors at member sector @sector
 * (@write: it changes the disk: a write, a discard, a flush; @to_loser:
 * it was prepared for the disk that lost the swap), the role being
 * replaced as @v says. Pure.
 */
enum rl_rp_route rl_replace_route(const struct rl_rp_view *v, sector_t sector,
				  unsigned int sectors, bool write, bool to_loser)
{
	if (v->quiesce)
		return RL_RP_PARK;
	if (!v->on)
		return RL_RP_PASS;
	if (v->swapped)
		return to_loser ? RL_RP_REDIRECT : RL_RP_PASS;
	if (!write)
		return RL_RP_PASS;
	if (sectors && sector < v->hi && sector + sectors > v->lo)
		return RL_RP_PARK;
	return RL_RP_PAIR;
}

/* The other disk of the pair from @bdev, or NULL if @bdev is in none. */
static struct dm_dev *rl_rp_peer(struct rl_replace *rp, struct block_device *bdev)
{
	if (rp->old && bdev == rp->old->bdev)
		return rp->new;
	if (rp->new && bdev == rp->new->bdev)
		return rp->old;
	return NULL;
}

/*
 * One clone of a pair write ended; the last one ends the write, with the
 * status of the disk that has the role now: a write aimed at the old disk
 * and still in flight when the swap was made reports the new disk's.
 */
static void rl_rp_put(struct rl_rp_io *own)
{
	struct rl_replace *rp = own->rp;
	struct bio *orig = own->orig;
	blk_status_t st = own->status;
	unsigned long flags;

	if (!atomic_dec_and_test(&own->left))
		return;
	spin_lock_irqsave(&rp->lock, flags);
	if (own->to_old && rp->v.swapped && rp->to == rp->new)
		st = own->peer_status;
	spin_unlock_irqrestore(&rp->lock, flags);
	if (st)
		orig->bi_status = st;
	if (atomic_dec_and_test(&rp->writes[own->gen]))
		wake_up_all(&rp->wait);
	bio_put(&own->bio);
	bio_endio(orig);	/* @rp lives until it has ended */
}

static void rl_rp_endio(struct bio *bio)
{
	struct rl_rp_io *io = container_of(bio, struct rl_rp_io, bio);
	struct rl_rp_io *own = io->own;
	struct rl_replace *rp = own->rp;

	if (io == own) {
		own->status = bio->bi_status;
		rl_rp_put(own);
		return;
	}
	own->peer_status = bio->bi_status;
	/* the new disk missed a write (a discard it lacks is no loss) */
	if (bio->bi_status && bio->bi_bdev == rp->new->bdev &&
	    !(bio->bi_status == BLK_STS_NOTSUPP && !bio_has_data(bio)))
		WRITE_ONCE(rp->broken, true);
	bio_put(bio);
	rl_rp_put(own);
}

/* A clone of pair write @bio to @bdev, from @bs. */
static struct rl_rp_io *rl_rp_clone(struct rl_replace *rp, struct bio *bio,
				    struct block_device *bdev, struct bio_set *bs)
{
	struct bio *c = bio_alloc_clone(bdev, bio, GFP_NOIO, bs);
	struct rl_rp_io *io = container_of(c, struct rl_rp_io, bio);

	io->rp = rp;
	io->orig = bio;
	c->bi_end_io = rl_rp_endio;
	return io;
}

/* Write @bio to its own disk and to @peer; it counts in generation @gen. */
static void rl_rp_pair(struct rl_replace *rp, struct bio *bio,
		       struct dm_dev *peer, unsigned int gen)
{
	struct rl_rp_io *own, *io;

	own = rl_rp_clone(rp, bio, bio->bi_bdev, &rp->bs);
	own->own = own;
	own->gen = gen;
	own->to_old = peer == rp->new;
	own->status = BLK_STS_OK;
	own->peer_status = BLK_STS_OK;
	atomic_set(&own->left, 2);
	io = rl_rp_clone(rp, bio, peer->bdev, &rp->bs_peer);
	io->own = own;
	submit_bio_noacct(&own->bio);
	submit_bio_noacct(&io->bio);
}

/* Park @bio (@dup: rl_replace_dup()'s, which no queue counts). Under rp->lock. */
static void rl_rp_park(struct rl_replace *rp, struct bio *bio, bool dup)
{
	if (dup) {
		bio_list_add(&rp->parked_dup, bio);
	} else {
		bio_list_add(&rp->parked, bio);
		rp->nr_parked++;
	}
}

/* Route @bio of the role replaced (@dup: rl_replace_dup()'s). */
static void rl_rp_submit(struct rl_replace *rp, struct bio *bio, bool dup)
{
	struct block_device *bdev = bio->bi_bdev;
	struct dm_dev *peer = NULL, *to = NULL;
	enum rl_rp_route route;
	unsigned long flags;
	unsigned int gen = 0;

	spin_lock_irqsave(&rp->lock, flags);
	route = rl_replace_route(&rp->v, bio->bi_iter.bi_sector, bio_sectors(bio),
				 op_is_write(bio_op(bio)),
				 rp->from && bdev == rp->from->bdev);
	if (route == RL_RP_PAIR)
		peer = rl_rp_peer(rp, bdev);
	if (route == RL_RP_PAIR && peer) {
		gen = rp->gen;
		atomic_inc(&rp->writes[gen]);
	} else if (route == RL_RP_PAIR) {
		route = RL_RP_PASS;	/* aimed at neither disk */
	} else if (route == RL_RP_PARK) {
		rl_rp_park(rp, bio, dup);
	} else if (route == RL_RP_REDIRECT) {
		to = rp->to;
	}
	spin_unlock_irqrestore(&rp->lock, flags);

	if (route == RL_RP_REDIRECT)
		bio_set_dev(bio, to->bdev);
	if (route == RL_RP_PASS || route == RL_RP_REDIRECT)
		submit_bio_noacct(bio);
	else if (route == RL_RP_PAIR)
		rl_rp_pair(rp, bio, peer, gen);
}

/**
 * rl_member_submit() - submit a member I/O a queue issued
 * @a: the array
 * @m: the member it was queued on
 * @bio: the I/O, pointed at the member's disk
 *
 * What every queue entry's ->submit ends in. Process context.
 */
void rl_member_submit(struct rl_array *a, unsigned int m, struct bio *bio)
{
	struct rl_replace *rp = a->replace;

	/* a stale RL_NONE is issued already: the quiesce waits for it */
	if (likely(!rp || READ_ONCE(rp->member) != m))
		submit_bio_noacct(bio);
	else
		rl_rp_submit(rp, bio, false);
}

/*
 * A bio dm sent once per member (a flush, a mirror's discard), for member
 * @m: if @m is replaced, the hook submits it and returns true (the map
 * function returns DM_MAPIO_SUBMITTED); else false.
 */
bool rl_replace_dup(struct rl_array *a, unsigned int m, struct bio *bio)
{
	struct rl_replace *rp = a->replace;

	if (!rp || READ_ONCE(rp->member) != m)
		return false;
	rl_rp_submit(rp, bio, true);
	return true;
}

/* Let what waits go, routed again. */
static void rl_rp_unpark(struct rl_replace *rp)
{
	struct bio_list q, d;
	struct bio *bio;

	spin_lock_irq(&rp->lock);
	q = rp->parked;
	d = rp->parked_dup;
	bio_list_init(&rp->parked);
	bio_list_init(&rp->parked_dup);
	rp->nr_parked = 0;
	spin_unlock_irq(&rp->lock);
	while ((bio = bio_list_pop(&q)))
		rl_rp_submit(rp, bio, false);
	while ((bio = bio_list_pop(&d)))
		rl_rp_submit(rp, bio, true);
}

/*
 * Role @m's disk @old is paired with @new, and every I/O of the role
 * waits until rl_replace_quiesce(). The sync worker.
 */
void rl_replace_pair(struct rl_replace *rp, unsigned int m, struct dm_dev *old,
		     struct dm_dev *new)
{
	spin_lock_irq(&rp->lock);
	rp->old = old;
	rp->new = new;
	rp->from = NULL;
	rp->to = NULL;
	rp->broken = false;
	rp->v = (struct rl_rp_view){ .on = true, .quiesce = true };
	WRITE_ONCE(rp->member, m);
	spin_unlock_irq(&rp->lock);
}

/* Whether every I/O the role's queue has issued is parked. */
static bool rl_rp_quiet(struct rl_replace *rp, struct rl_queue *q)
{
	bool quiet;

	/* parking takes the lock: one issued but not parked yet is counted */
	spin_lock_irq(&rp->lock);
	quiet = atomic_read(&q->issued) <= rp->nr_parked;
	spin_unlock_irq(&rp->lock);
	return quiet;
}

/*
 * Quiesce the role, whose I/O rl_replace_pair() or rl_replace_swapped()
 * parks: wait until every I/O its queue has issued is parked, so that
 * those issued before have ended; then let the parked I/O go, routed as
 * the state is now. Not long: the member's queue depth of I/Os in flight.
 * The sync worker.
 */
void rl_replace_quiesce(struct rl_array *a)
{
	struct rl_replace *rp = a->replace;
	struct rl_queue *q = &a->members[rp->member].q;

	while (!rl_rp_quiet(rp, q))
		usleep_range(200, 500);
	spin_lock_irq(&rp->lock);
	rp->v.quiesce = false;
	spin_unlock_irq(&rp->lock);
	rl_rp_unpark(rp);
}

/*
 * The copy's window is [@lo, @hi) (member sectors): writes into it wait,
 * and the pair writes in flight, all routed before it, are waited for.
 * @lo == @hi: no window, what waited goes. The sync worker.
 */
void rl_replace_window(struct rl_replace *rp, sector_t lo, sector_t hi)
{
	unsigned int old = 0;

	spin_lock_irq(&rp->lock);
	rp->v.lo = lo;
	rp->v.hi = hi;
	if (lo != hi) {
		old = rp->gen;
		rp->gen ^= 1;
	}
	spin_unlock_irq(&rp->lock);
	if (lo == hi)
		rl_rp_unpark(rp);
	else
		wait_event(rp->wait, !atomic_read(&rp->writes[old]));
}

/*
 * The swap was tried (@done: and made): from now on an I/O prepared for
 * the disk that lost goes to the one that won, and writes pair no more.
 * The role's I/O is parked meanwhile: rl_replace_quiesce() follows. Pair
 * writes in flight still go to both disks.
 */
void rl_replace_swapped(struct rl_replace *rp, bool done)
{
	spin_lock_irq(&rp->lock);
	rp->from = done ? rp->old : rp->new;
	rp->to = done ? rp->new : rp->old;
	rp->v.swapped = true;
	rp->v.quiesce = true;
	spin_unlock_irq(&rp->lock);
}

/* Wait until no pair write is in flight, in either generation. */
void rl_replace_drain(struct rl_replace *rp)
{
	wait_event(rp->wait, !atomic_read(&rp->writes[0]) &&
		   !atomic_read(&rp->writes[1]));
}

/* The routing ends: every I/O goes as it is, once the pair writes end. */
void rl_replace_unpair(struct rl_replace *rp)
{
	spin_lock_irq(&rp->lock);
	rp->v.on = false;
	rp->v.quiesce = false;
	rp->v.lo = 0;
	rp->v.hi = 0;
	spin_unlock_irq(&rp->lock);
	rl_rp_unpark(rp);
	rl_replace_drain(rp);
	spin_lock_irq(&rp->lock);
	WRITE_ONCE(rp->member, RL_NONE);
	rp->old = NULL;
	rp->new = NULL;
	rp->from = NULL;
	rp->to = NULL;
	rp->v.swapped = false;
	spin_unlock_irq(&rp->lock);
}

/* The hook's state, for an array with a metadata device. */
int rl_replace_init(struct rl_array *a)
{
	struct rl_replace *rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	int r;

	if (!rp)
		return -ENOMEM;
	spin_lock_init(&rp->lock);
	rp->member = RL_NONE;
	rp->spare = -1;
	bio_list_init(&rp->parked);
	bio_list_init(&rp->parked_dup);
	atomic_set(&rp->writes[0], 0);
	atomic_set(&rp->writes[1], 0);
	init_waitqueue_head(&rp->wait);
	/* a rescuer: clones wait in current->bio_list under map */
	r = bioset_init(&rp->bs, RL_RP_POOL, offsetof(struct rl_rp_io, bio),
			BIOSET_NEED_RESCUER);
	if (r)
		goto bad;
	r = bioset_init(&rp->bs_peer, RL_RP_POOL, offsetof(struct rl_rp_io, bio),
			BIOSET_NEED_RESCUER);
	if (r) {
		bioset_exit(&rp->bs);
		goto bad;
	}
	a->replace = rp;
	return 0;
bad:
	kfree(rp);
	return r;
}

void rl_replace_free(struct rl_array *a)
{
	struct rl_replace *rp = a->replace;

	if (!rp)
		return;
	bioset_exit(&rp->bs_peer);
	bioset_exit(&rp->bs);
	kfree(rp);
	a->replace = NULL;
}
