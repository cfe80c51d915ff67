// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab head tracking on live members: the I/O side of tracker.c.
 *
 * A member is tracked once a geometry is loaded for it (message
 * `geom <member> <line>`). From then on the member's queue (member.c)
 * stamps every member I/O at dispatch and completion and feeds the
 * tracker, and this file reads the member's reference sector whenever the
 * tracker wants a sample (rl_tracker_next_ref_ns()): the queue holds new
 * dispatches back (ref_due) until the member is idle, the read goes out
 * alone, and its issue and completion times become a reference sample.
 *
 * All tracker state is under the member queue's lock. Reference reads stop
 * at presuspend and are waited for at postsuspend, so a suspended array
 * issues nothing.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "../raidlab.h"
#include "tracker.h"

/* One member's reference read: a preallocated one-sector bio. */
struct rl_refread {
	struct rl_member *mb;
	struct bio bio;
	struct bio_vec bvec;
	struct page *page;
	u64 issue_ns;
	sector_t sector;
};

/* Back-off after a failed or refused reference sample: from, and up to. */
#define RL_REF_BACKOFF_MIN_NS	(100ULL * NSEC_PER_MSEC)
#define RL_REF_BACKOFF_MAX_NS	(120ULL * NSEC_PER_SEC)

/*
 * Give up a pending reference read: dispatch may go on, so kick the queue
 * if anything waits.
 */
static void rl_ref_release(struct rl_array *a, struct rl_member *mb)
{
	struct rl_queue *q = &mb->q;
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&q->lock, flags);
	WRITE_ONCE(q->ref_due, false);
	kick = rl_queue_waiting(q);
	spin_unlock_irqrestore(&q->lock, flags);
	if (kick)
		queue_work(a->wq, &q->work);
}

/* When the next reference read is due: the tracker's time, or a back-off. */
static u64 rl_ref_next_ns(struct rl_queue *q)
{
	u64 next = rl_tracker_next_ref_ns(q->trk);

	if (q->ref_backoff_ns)
		next = max(next, q->ref_last_ns + q->ref_backoff_ns);
	return next;
}

static void rl_ref_endio(struct bio *bio)
{
	struct rl_refread *r = container_of(bio, struct rl_refread, bio);
	struct rl_member *mb = r->mb;
	struct rl_array *a = mb->a;
	struct rl_queue *q = &mb->q;
	u64 done = ktime_get_ns(), next, refused;
	unsigned long flags;
	bool more, due;

	spin_lock_irqsave(&q->lock, flags);
	refused = q->trk->refs_rejected;
	if (!bio->bi_status)
		rl_tracker_ref_sample(q->trk, r->issue_ns, done);
	if (bio->bi_status || q->trk->refs_rejected != refused) {
		/* no sample: try again later, not at once */
		q->ref_errors++;
		q->ref_backoff_ns = clamp(q->ref_backoff_ns * 2,
					  RL_REF_BACKOFF_MIN_NS,
					  RL_REF_BACKOFF_MAX_NS);
	} else {
		q->ref_samples++;
		q->ref_backoff_ns = 0;
	}
	q->ref_last_ns = done;
	q->hs.sector = r->sector + 1;
	WRITE_ONCE(mb->head, r->sector + 1);
	next = rl_ref_next_ns(q);
	q->ref_busy = false;
	due = q->ref_due;
	more = rl_queue_waiting(q);
	spin_unlock_irqrestore(&q->lock, flags);

	/* for rl_track_wait(): the store above before the waitqueue check */
	smp_mb();
	wake_up_var(&q->ref_busy);
	if (more)
		queue_work(a->wq, &q->work);
	if (READ_ONCE(a->track_stopped))
		return;
	if (due)
		mod_delayed_work(a->wq, &mb->ref_work, 0);
	else
		queue_delayed_work(a->wq, &mb->ref_work,
				   nsecs_to_jiffies(next > done ? next - done : 0));
}

/*
 * The reference read of a member, when it is due: at once if the member
 * is idle; otherwise the queue stops dispatching (ref_due) and the
 * completion that leaves it idle runs this again.
 */
static void rl_ref_work(struct work_struct *ws)
{
	struct rl_member *mb = container_of(to_delayed_work(ws),
					    struct rl_member, ref_work);
	struct rl_array *a = mb->a;
	struct rl_queue *q = &mb->q;
	struct rl_refread *r;
	u64 now, next;

	spin_lock_irq(&q->lock);
	r = q->ref;
	if (!r || q->ref_hold || q->ref_busy || READ_ONCE(a->track_stopped) ||
	    rl_member_failed(a, mb->idx)) {
		/* the end of a busy read, or a resume or geom, calls us again */
		spin_unlock_irq(&q->lock);
		rl_ref_release(a, mb);
		return;
	}
	now = ktime_get_ns();
	next = rl_ref_next_ns(q);
	if (now < next) {
		spin_unlock_irq(&q->lock);
		rl_ref_release(a, mb);
		queue_delayed_work(a->wq, &mb->ref_work,
				   nsecs_to_jiffies(next - now));
		return;
	}
	/*
	 * Due before the look at issued: a slot given back without the lock
	 * reads ref_due after its decrement (member.c), so one of us sees
	 * the other and rl_member_done() calls us back.
	 */
	WRITE_ONCE(q->ref_due, true);
	smp_mb();	/* ref_due before issued: see rl_queue_release() */
	if (atomic_read(&q->issued)) {
		spin_unlock_irq(&q->lock);
		return;
	}
	WRITE_ONCE(q->ref_due, false);
	q->ref_busy = true;
	r->sector = q->trk->geom.ref;
	spin_unlock_irq(&q->lock);

	bio_reset(&r->bio, mb->dev->bdev, REQ_OP_READ | REQ_SYNC);
	r->bio.bi_iter.bi_sector = r->sector;
	r->bio.bi_end_io = rl_ref_endio;
	__bio_add_page(&r->bio, r->page, SECTOR_SIZE, 0);
	r->issue_ns = ktime_get_ns();
	submit_bio_noacct(&r->bio);
}

/* Set up head tracking for the array: nothing tracked yet. */
void rl_track_init(struct rl_array *a)
{
	unsigned int m;

	mutex_init(&a->track_mutex);
	for (m = 0; m < a->geom.nr_members; m++)
		INIT_DELAYED_WORK(&a->members[m].ref_work, rl_ref_work);
}

/* Wait until member @mb has no reference read in flight. */
static void rl_track_wait(struct rl_member *mb)
{
	wait_var_event(&mb->q.ref_busy, !READ_ONCE(mb->q.ref_busy));
}

/*
 * Load a geometry for member @m from @line (the `geom` message): parse it,
 * check it against the member, start (or restart) its tracker. Process
 * context. Returns 0 or a negative errno with *@error set.
 */
int rl_track_set_geom(struct rl_array *a, unsigned int m, const char *line,
		      char **error)
{
	struct rl_member *mb = &a->members[m];
	struct rl_queue *q = &mb->q;
	struct rl_disk_geom *g;
	struct rl_tracker *trk = NULL;
	struct rl_refread *r = NULL;
	int ret;

	if (!mb->dev) {
		*error = "geom: the member is missing";
		return -ENODEV;
	}
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	ret = rl_disk_geom_parse(line, g, error);
	if (ret)
		goto out;
	if (g->ref >= bdev_nr_sectors(mb->dev->bdev)) {
		*error = "geom: ref is past the end of the member";
		ret = -EINVAL;
		goto out;
	}
	if (!q->trk) {
		trk = kvzalloc(sizeof(*trk), GFP_KERNEL);
		r = kzalloc(sizeof(*r), GFP_KERNEL);
		if (r)
			r->page = alloc_page(GFP_KERNEL);
		if (!trk || !r || !r->page) {
			*error = "geom: out of memory";
			ret = -ENOMEM;
			goto out;
		}
		r->mb = mb;
		bio_init(&r->bio, NULL, &r->bvec, 1, REQ_OP_READ);
	}

	mutex_lock(&a->track_mutex);
	/* no new reference read; the one in flight belongs to the old one */
	spin_lock_irq(&q->lock);
	q->ref_hold = true;
	spin_unlock_irq(&q->lock);
	cancel_delayed_work_sync(&mb->ref_work);
	rl_track_wait(mb);

	spin_lock_irq(&q->lock);
	if (!q->trk) {
		WRITE_ONCE(q->trk, trk);
		q->ref = r;
		trk = NULL;
		r = NULL;
	}
	rl_tracker_set_geom(q->trk, g);
	q->hs.trk = q->trk;
	q->ref_hold = false;
	q->ref_backoff_ns = 0;
	spin_unlock_irq(&q->lock);
	rl_ref_release(a, mb);
	if (!READ_ONCE(a->track_stopped))
		mod_delayed_work(a->wq, &mb->ref_work, 0);
	mutex_unlock(&a->track_mutex);
	ret = 0;
out:
	if (r) {
		bio_uninit(&r->bio);
		if (r->page)
			__free_page(r->page);
	}
	kfree(r);
	kvfree(trk);
	kfree(g);
	return ret;
}

/*
 * No new reference read from here on (presuspend): a read that was due
 * is given up, so the queue dispatches again.
 */
void rl_track_stop(struct rl_array *a)
{
	unsigned int m;

	WRITE_ONCE(a->track_stopped, true);
	for (m = 0; m < a->geom.nr_members; m++) {
		cancel_delayed_work_sync(&a->members[m].ref_work);
		rl_ref_release(a, &a->members[m]);
	}
}

/* And wait for those in flight (postsuspend, dtr). */
void rl_track_quiesce(struct rl_array *a)
{
	unsigned int m;

	rl_track_stop(a);
	for (m = 0; m < a->geom.nr_members; m++) {
		rl_track_wait(&a->members[m]);
		/* an end_io may have armed it before it saw track_stopped */
		cancel_delayed_work_sync(&a->members[m].ref_work);
		rl_ref_release(a, &a->members[m]);
	}
}

/* The table is live again: tracked members read their reference again. */
void rl_track_start(struct rl_array *a)
{
	unsigned int m;

	WRITE_ONCE(a->track_stopped, false);
	for (m = 0; m < a->geom.nr_members; m++)
		if (READ_ONCE(a->members[m].q.trk))
			mod_delayed_work(a->wq, &a->members[m].ref_work, 0);
}

/* Free the trackers; nothing is in flight (dtr, after rl_track_quiesce()). */
void rl_track_free(struct rl_array *a)
{
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		struct rl_queue *q = &a->members[m].q;

		if (q->ref) {
			bio_uninit(&q->ref->bio);
			__free_page(q->ref->page);
		}
		kfree(q->ref);
		kvfree(q->trk);
		q->ref = NULL;
		WRITE_ONCE(q->trk, NULL);
	}
}

/*
 * The member's tracker words for the `tracker <member>` message:
 * "<member> samples=<n> errors=<n> " then rl_tracker_status()'s words, or
 * "geom=none".
 */
void rl_track_status(struct rl_array *a, unsigned int m, char *result,
		     unsigned int maxlen)
{
	struct rl_queue *q = &a->members[m].q;
	unsigned int sz = 0;

	spin_lock_irq(&q->lock);
	sz = scnprintf(result, maxlen, "%u samples=%llu errors=%llu ", m,
		       q->ref_samples, q->ref_errors);
	if (q->trk)
		rl_tracker_status(q->trk, ktime_get_ns(), result, maxlen, &sz);
	else
		scnprintf(result + sz, maxlen - sz, "geom=none");
	spin_unlock_irq(&q->lock);
}
