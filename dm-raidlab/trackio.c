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

#include "raidlab.h"
#include "tracker.h"

/* One member's reference read: a preallocated one-sector bio. */
struct rl_refread {
	struct rl_member *mb;
	struct bio bio;
	struct bio_vec bvec;
	struct page *page;
	u64 issue_ns;
};

static void rl_ref_endio(struct bio *bio)
{
	struct rl_refread *r = container_of(bio, struct rl_refread, bio);
	struct rl_member *mb = r->mb;
	struct rl_array *a = mb->a;
	struct rl_queue *q = &mb->q;
	u64 done = ktime_get_ns(), next = 0;
	unsigned long flags;
	bool more;

	spin_lock_irqsave(&q->lock, flags);
	if (!bio->bi_status) {
		rl_tracker_ref_sample(q->trk, r->issue_ns, done);
		q->ref_samples++;
	} else {
		q->ref_errors++;
	}
	next = rl_tracker_next_ref_ns(q->trk);
	q->issued--;
	more = q->queued[RL_FG] || q->queued[RL_BG];
	spin_unlock_irqrestore(&q->lock, flags);

	if (more)
		queue_work(a->wq, &q->work);
	if (!READ_ONCE(a->track_stopped))
		queue_delayed_work(a->wq, &mb->ref_work,
				   nsecs_to_jiffies(next > done ? next - done : 0));
	atomic_dec(&a->ref_inflight);
	wake_up_var(&a->ref_inflight);
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
	if (!r || READ_ONCE(a->track_stopped) || rl_member_failed(a, mb->idx)) {
		q->ref_due = false;
		spin_unlock_irq(&q->lock);
		return;
	}
	now = ktime_get_ns();
	next = rl_tracker_next_ref_ns(q->trk);
	if (now < next) {
		spin_unlock_irq(&q->lock);
		queue_delayed_work(a->wq, &mb->ref_work,
				   nsecs_to_jiffies(next - now));
		return;
	}
	if (q->issued) {
		q->ref_due = true;	/* rl_member_done() calls us back */
		spin_unlock_irq(&q->lock);
		return;
	}
	q->ref_due = false;
	q->issued++;
	atomic_inc(&a->ref_inflight);
	spin_unlock_irq(&q->lock);

	bio_init(&r->bio, mb->dev->bdev, &r->bvec, 1, REQ_OP_READ | REQ_SYNC);
	r->bio.bi_iter.bi_sector = q->trk->geom.ref;
	r->bio.bi_end_io = rl_ref_endio;
	__bio_add_page(&r->bio, r->page, SECTOR_SIZE, 0);
	r->issue_ns = ktime_get_ns();
	submit_bio_noacct(&r->bio);
}

/* Set up head tracking for the array: nothing tracked yet. */
void rl_track_init(struct rl_array *a)
{
	unsigned int m;

	atomic_set(&a->ref_inflight, 0);
	for (m = 0; m < a->geom.nr_members; m++)
		INIT_DELAYED_WORK(&a->members[m].ref_work, rl_ref_work);
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
	}

	/* a reference read in flight belongs to the old geometry */
	cancel_delayed_work_sync(&mb->ref_work);
	wait_var_event(&a->ref_inflight, !atomic_read(&a->ref_inflight));

	spin_lock_irq(&q->lock);
	if (!q->trk) {
		q->trk = trk;
		q->ref = r;
		trk = NULL;
		r = NULL;
	}
	rl_tracker_set_geom(q->trk, g);
	q->hs.trk = q->trk;
	q->ref_due = false;
	spin_unlock_irq(&q->lock);
	if (!READ_ONCE(a->track_stopped))
		queue_delayed_work(a->wq, &mb->ref_work, 0);
	ret = 0;
out:
	if (r && r->page)
		__free_page(r->page);
	kfree(r);
	kvfree(trk);
	kfree(g);
	return ret;
}

/* No new reference read from here on (presuspend). */
void rl_track_stop(struct rl_array *a)
{
	unsigned int m;

	WRITE_ONCE(a->track_stopped, true);
	for (m = 0; m < a->geom.nr_members; m++)
		cancel_delayed_work_sync(&a->members[m].ref_work);
}

/* And wait for those in flight (postsuspend). */
void rl_track_quiesce(struct rl_array *a)
{
	rl_track_stop(a);
	wait_var_event(&a->ref_inflight, !atomic_read(&a->ref_inflight));
}

/* The table is live again: tracked members read their reference again. */
void rl_track_start(struct rl_array *a)
{
	unsigned int m;

	WRITE_ONCE(a->track_stopped, false);
	for (m = 0; m < a->geom.nr_members; m++)
		if (READ_ONCE(a->members[m].q.trk))
			queue_delayed_work(a->wq, &a->members[m].ref_work, 0);
}

/* Free the trackers; nothing is in flight (dtr, after rl_track_quiesce()). */
void rl_track_free(struct rl_array *a)
{
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++) {
		struct rl_queue *q = &a->members[m].q;

		if (q->ref)
			__free_page(q->ref->page);
		kfree(q->ref);
		kvfree(q->trk);
		q->ref = NULL;
		q->trk = NULL;
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
