// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity stripe engine: single parity (raid4, raid5) and P+Q
 * double parity (raid6).
 *
 * Reads of a live member are remapped straight to it. Writes, and reads
 * that need a failed member rebuilt, go to a stripe context, which carries
 * out the access's plan (plan.c):
 *
 *   map() -> incoming list -> dispatch work -> stripe context for the row
 *   (bios for a row that is busy wait on that context, in arrival order)
 *
 * A context serves one bio at a time through three steps in its work item:
 *
 *   PLAN    rl_plan_access() decides the member reads and writes
 *   READ    the reads land in the context's per-member chunk buffers;
 *           new data is copied in, parity formed with xor_blocks(), or
 *           P and Q with lib/raid6 (parity.h)
 *   LOG     with a journal (journal.h), a partial-row write's member
 *           writes are logged and made durable first (the context waits
 *           here, off the workqueue, while the ring is full)
 *   WRITE   the writes are issued (REQ_FUA when journaled)
 *   RETIRE  once they have landed and every member failure so far is
 *           durable (failrec.c: the context waits off the workqueue), the
 *           journal record is retired, the intent released and the bio
 *           ended
 *
 * Contexts and their buffers and bios are allocated once at construction
 * (stripe_cache of them): nothing is allocated per I/O. A member that fails
 * a read of a foreground access, where the row's redundancy is trusted,
 * has the row's chunk rewritten from the rest of the row first (a rebuild
 * plan for it: md's fix_read_error), up to RL_MAX_READ_ERRORS times, and
 * the access is planned again around it; past that, or where the row
 * cannot be rebuilt, the member fails and the access is planned again
 * around it.
 *
 * Background jobs (sync.c: resync, rebuild, check, repair) go through
 * contexts like any access, a row per context, a few rows at a time
 * (rl_stripe_sync_range()), their member I/O in the queues' background
 * class. With a metadata device, a write first marks its row's region in
 * the write-intent bitmap (rl_md_intent_start()), so that after a crash
 * only dirty regions are resynced and the parity of a torn partial-row
 * write is made consistent again.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "../svc/bbl.h"
#include "journal.h"
#include "../svc/metadata.h"
#include "../svc/parity.h"
#include "stripe.h"

#define RL_SYNC_PARALLEL	4	/* rows of a background range at once */
#define RL_NO_REGION		U64_MAX
#define RL_ROW_SKIP		1	/* rl_stripe_plan(): nothing to do for the row */

enum rl_stripe_step {
	RL_STEP_PLAN,
	RL_STEP_READ_DONE,
	RL_STEP_LOG,
	RL_STEP_WRITE_DONE,
	RL_STEP_RETIRE,
	RL_STEP_END,
};

struct rl_stripe_col {
	struct bio *bio;		/* reused for this member's I/O */
	struct page **buf;		/* one chunk */
	struct rl_stripe *s;
	unsigned int member;
	struct dm_dev *dev;		/* the disk of this step's I/O */
	struct rl_qent qe;		/* its place in the member's queue */
};

struct rl_stripe {
	struct rl_engine *e;
	struct hlist_node hnode;	/* in the row hash while busy */
	struct list_head lnode;		/* on the free list while idle */
	u64 row;
	struct bio *bio;		/* the access being served */
	struct bio_list waiting;	/* later accesses to the same row */
	struct work_struct work;
	enum rl_stripe_step step;
	bool sync;			/* a background job on the row, no bio */
	enum rl_sync_job job;		/* which, if sync */
	u64 region;			/* write intent held, or RL_NO_REGION */
	bool journaled;			/* record jseq is live in the journal */
	u64 jseq;
	struct rl_jnl_waiter jw;	/* waiting for journal space */
	struct rl_commit_waiter cw;	/* waiting for the failure record */
	atomic_t pending;		/* member I/Os in flight, plus a bias */
	unsigned long io_failed;	/* members whose I/O failed this step */
	unsigned long bad;		/* members this access reads around */
	unsigned long bblk;		/* members with bad-block entries in the row */
	unsigned long bb_clear;		/* of those, members the write rewrites whole */
	unsigned int fix;		/* member whose chunk is being rewritten, or RL_NONE */
	unsigned int attempts;
	blk_status_t status;
	struct rl_plan plan;
	struct page **bufs[RL_MAX_MEMBERS];	/* col[m].buf, for the plan */
	struct rl_stripe_col col[];
};

struct rl_engine {
	struct rl_array *a;
	spinlock_t lock;		/* incoming, free, hash, waiting lists */
	struct bio_list incoming;
	struct list_head free;
	struct hlist_head *hash;
	unsigned int hash_bits;
	struct work_struct dispatch;
	unsigned int nr_stripes;
	struct rl_stripe **stripes;

	/*
	 * Background ranges (rl_stripe_sync_range()): sync_want keeps the
	 * last free context for them; sync_pending counts their rows in
	 * flight.
	 */
	bool sync_want;
	atomic_t sync_pending;
	atomic_t sync_errors;
	atomic64_t sync_mismatches;
	const struct rl_sync_req *sync_req;
	struct rl_stripe *parked[RL_SYNC_PARALLEL];	/* the range's contexts */
	wait_queue_head_t sync_wait;
};

/* ------------------------------------------------------------------------
 * Stripe contexts
 */

static struct rl_engine *rl_engine(struct rl_array *a)
{
	return a->scheme;
}

static sector_t rl_row_start(const struct rl_geom *g, u64 row)
{
	return (row * g->nr_data) << g->chunk_shift;
}

static u64 rl_bio_row(struct rl_engine *e, struct bio *bio)
{
	return rl_row_of(&e->a->geom, rl_pb(bio)->lsector, NULL);
}

static struct rl_stripe *rl_stripe_lookup(struct rl_engine *e, u64 row)
{
	struct rl_stripe *s;

	hlist_for_each_entry(s, &e->hash[hash_64(row, e->hash_bits)], hnode)
		if (s->row == row)
			return s;
	return NULL;
}

/* Hand a bio to the engine; it is ended by a stripe context. */
static void rl_engine_queue(struct rl_engine *e, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&e->lock, flags);
	bio_list_add(&e->incoming, bio);
	spin_unlock_irqrestore(&e->lock, flags);
	queue_work(e->a->wq, &e->dispatch);
}

/* A context starts an access (its bio, or a background row) at PLAN. */
static void rl_stripe_begin(struct rl_stripe *s)
{
	s->step = RL_STEP_PLAN;
	s->attempts = 0;
	s->bad = 0;
	s->bblk = 0;
	s->bb_clear = 0;
	s->fix = RL_NONE;
}

/* Give each incoming bio to its row's context, or a free one. */
static void rl_engine_dispatch(struct work_struct *ws)
{
	struct rl_engine *e = container_of(ws, struct rl_engine, dispatch);
	struct rl_stripe *s;
	unsigned long flags;
	struct bio *bio;

	spin_lock_irqsave(&e->lock, flags);
	while ((bio = bio_list_peek(&e->incoming))) {
		u64 row = rl_bio_row(e, bio);

		s = rl_stripe_lookup(e, row);
		if (s) {
			bio_list_pop(&e->incoming);
			bio_list_add(&s->waiting, bio);
			continue;
		}
		/* keep the last free context for background work, or it starves */
		if (list_empty(&e->free) ||
		    (list_is_singular(&e->free) && e->sync_want))
			break;	/* a context that goes idle kicks us again */
		bio_list_pop(&e->incoming);
		s = list_first_entry(&e->free, struct rl_stripe, lnode);
		list_del_init(&s->lnode);
		s->row = row;
		s->bio = bio;
		rl_stripe_begin(s);
		hlist_add_head(&s->hnode, &e->hash[hash_64(row, e->hash_bits)]);
		queue_work(e->a->wq, &s->work);
	}
	spin_unlock_irqrestore(&e->lock, flags);
}

static void rl_stripe_endio(struct bio *bio)
{
	struct rl_stripe_col *c = bio->bi_private;
	struct rl_stripe *s = c->s;
	unsigned int m = c->member;

	if (rl_status_fails_member(bio->bi_status))
		set_bit(m, &s->io_failed);
	rl_member_done(s->e->a, m, &c->qe);
	if (atomic_dec_and_test(&s->pending))
		queue_work(s->e->a->wq, &s->work);
}

static void rl_stripe_submit(struct rl_qent *qe)
{
	struct rl_stripe_col *c = container_of(qe, struct rl_stripe_col, qe);

	submit_bio_noacct(c->bio);
}

/*
 * Queue one member I/O of the plan over @span of the row's chunk: the
 * background class for a resync row.
 */
static void rl_stripe_io(struct rl_stripe *s, unsigned int m, blk_opf_t opf,
			 struct rl_span span)
{
	struct rl_array *a = s->e->a;
	struct rl_stripe_col *c = &s->col[m];
	unsigned int pos = span.lo << SECTOR_SHIFT;
	unsigned int end = span.hi << SECTOR_SHIFT;
	bool parity = m == s->plan.pmember || m == s->plan.qmember;
	enum rl_io_kind kind;

	c->dev = a->members[m].dev;
	bio_reset(c->bio, c->dev->bdev, opf);
	c->bio->bi_iter.bi_sector = a->geom.data_offset +
				    (s->row << a->geom.chunk_shift) + span.lo;
	c->bio->bi_end_io = rl_stripe_endio;
	c->bio->bi_private = c;
	while (pos < end) {
		unsigned int n = min_t(unsigned int, end - pos,
				       PAGE_SIZE - offset_in_page(pos));

		__bio_add_page(c->bio, c->buf[pos >> PAGE_SHIFT], n,
			       offset_in_page(pos));
		pos += n;
	}

	if (op_is_write(opf))
		kind = parity ? RL_PARITY_WRITE : RL_DATA_WRITE;
	else
		kind = parity ? RL_PARITY_READ : RL_DATA_READ;
	rl_qent_init(&c->qe, c->bio->bi_iter.bi_sector, span.hi - span.lo,
		     op_is_write(opf), s->sync ? RL_BG : RL_FG, rl_stripe_submit);
	rl_member_start(a, m, kind);
	atomic_inc(&s->pending);
	rl_queue_add(a, m, &c->qe);
}

/*
 * Issue every I/O in @spans. Returns true if they have all completed
 * already (or there were none), so the caller goes on at once.
 */
static bool rl_stripe_issue(struct rl_stripe *s, const struct rl_span *spans,
			    blk_opf_t opf)
{
	unsigned int m;

	s->io_failed = 0;
	atomic_set(&s->pending, 1);
	for (m = 0; m < s->e->a->geom.nr_members; m++)
		if (!rl_span_empty(spans[m]))
			rl_stripe_io(s, m, opf, spans[m]);
	return atomic_dec_and_test(&s->pending);
}

static const unsigned int rl_sync_plan_flags[RL_NR_SYNC_JOBS] = {
	[RL_SYNC_RESYNC] = RL_PLAN_RESYNC,
	[RL_SYNC_REBUILD] = RL_PLAN_DO_REBUILD,
	[RL_SYNC_CHECK] = RL_PLAN_DO_CHECK,
	[RL_SYNC_REPAIR] = RL_PLAN_DO_CHECK,
};

/*
 * A write to a row with bad-block entries rewrites the listed members
 * whole when no other member of the row is out: a reconstruct-write of the
 * whole row's parity (RL_PLAN_FULL_ROW) writes a parity member whole, and
 * a data member whose chunk the write covers. Then those entries are
 * cleared once the write has landed (s->bb_clear); else every listed
 * member is read around, as if failed for the row. All or none.
 */
static unsigned long rl_stripe_bb_rewritten(struct rl_stripe *s, u32 off,
					    u32 len, unsigned long out)
{
	const struct rl_geom *g = &s->e->a->geom;
	u32 chunk = rl_chunk_sectors(g);
	unsigned int m, col;

	if (out || !op_is_write(bio_op(s->bio)))
		return 0;
	for_each_set_bit(m, &s->bblk, g->nr_members) {
		col = g->layout->member_col(g, s->row, m);
		if (col != RL_NONE &&
		    (off > col * chunk || off + len < (col + 1) * chunk))
			return 0;
	}
	return s->bblk;
}

/*
 * Plan the context's access: a background job, or its bio. A member with
 * bad-block entries in the row is out of the row (rl_stripe_bb_rewritten()
 * aside). Returns RL_ROW_SKIP for a resync, check or repair of a row with
 * entries: its redundancy cannot be checked against data that is lost.
 */
static int rl_stripe_plan(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	sector_t msector = s->row << a->geom.chunk_shift;
	unsigned long out = rl_unreadable_at(a, msector);
	unsigned int flags = 0, t;
	u32 off, len;

	s->bblk = rl_bbl_members(a, msector, rl_chunk_sectors(&a->geom));
	s->bb_clear = 0;
	if (s->fix != RL_NONE)
		/* rewrite the chunk that failed a read from the rest of the row */
		return rl_plan_rebuild(&a->geom, s->row, s->fix,
				       out | s->bad | s->bblk | BIT(s->fix),
				       &s->plan);
	if (s->sync && s->job == RL_SYNC_REBUILD) {
		/*
		 * The target is unreadable above its cursor, whatever order
		 * the range's rows end in; with P+Q another failed or
		 * rebuilding member is rebuilt in memory too. A row rebuilt
		 * clears the target's entries (a rebuild resumed below a
		 * row it had lost).
		 */
		t = s->e->sync_req->target;
		s->bb_clear = s->bblk & BIT(t);
		return rl_plan_rebuild(&a->geom, s->row, t,
				       out | s->bblk | BIT(t), &s->plan);
	}
	if (s->sync) {
		if (s->bblk)
			return RL_ROW_SKIP;
		return rl_plan_access(&a->geom, s->row, 0, 0,
				      rl_sync_plan_flags[s->job], out, &s->plan);
	}
	off = rl_pb(s->bio)->lsector - rl_row_start(&a->geom, s->row);
	len = bio_sectors(s->bio);
	if (op_is_write(bio_op(s->bio)))
		flags = RL_PLAN_WRITE;
	if (rl_sync_suspect(a, msector))
		flags |= RL_PLAN_FULL_ROW;
	if (s->bblk)
		s->bb_clear = rl_stripe_bb_rewritten(s, off, len, out | s->bad);
	if (s->bb_clear)
		flags |= RL_PLAN_FULL_ROW;
	return rl_plan_access(&a->geom, s->row, off, len, flags,
			      out | s->bad | (s->bblk & ~s->bb_clear), &s->plan);
}

/*
 * Before a foreground write's plan goes on, the row's region is marked in
 * the write-intent bitmap. Background writes need no mark: a resync or
 * rebuild torn by a crash is redone from its checkpointed cursor, a dirty
 * region stays marked until its resync ends, and a repair fixes a row that
 * was wrong already. Returns false if the metadata has failed: the access
 * must fail.
 */
static bool rl_stripe_intent(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	u64 region;

	if (!a->md || s->region != RL_NO_REGION || s->sync ||
	    !rl_plan_writes(&s->plan))
		return true;
	region = rl_md_region(rl_md_state(a->md), s->row << a->geom.chunk_shift);
	if (rl_md_intent_start(a->md, region))
		return false;
	s->region = region;
	return true;
}

/*
 * A background row finished; its context stays parked, the row locked,
 * until rl_stripe_sync_range() has moved the job's cursor past the range.
 */
static void rl_stripe_sync_done(struct rl_stripe *s)
{
	struct rl_engine *e = s->e;

	if (s->status)
		atomic_inc(&e->sync_errors);
	if (atomic_dec_and_test(&e->sync_pending))
		wake_up_all(&e->sync_wait);
}

static void rl_stripe_fail_members(struct rl_stripe *s, const char *why)
{
	unsigned int m;

	for_each_set_bit(m, &s->io_failed, s->e->a->geom.nr_members)
		rl_member_fail_io(s->e->a, m, s->col[m].dev, why);
}

/*
 * A read of one member failed: rewrite its chunk of the row from the rest
 * (s->fix), then plan the access again. Only where the row can be rebuilt
 * without it and its redundancy is trusted (not suspect: a parity torn by
 * a crash would rebuild garbage; not a resync, which is there because it
 * is not trusted), and while the member is under RL_MAX_READ_ERRORS.
 * A foreground access is then served around the member; a background row
 * (rebuild, check, repair) reads it again, as md does. Returns false to
 * fail the member.
 */
static bool rl_stripe_fix_read(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	sector_t msector = s->row << a->geom.chunk_shift;
	unsigned int m;

	if ((s->sync && s->job == RL_SYNC_RESYNC) || s->fix != RL_NONE ||
	    hweight_long(s->io_failed) != 1)
		return false;
	m = __ffs(s->io_failed);
	if (hweight_long(rl_unreadable_at(a, msector) | s->bad | s->bblk |
			 BIT(m)) > a->redundancy || rl_sync_suspect(a, msector) ||
	    !rl_member_read_error(a, m, s->col[m].dev, s->row))
		return false;
	if (!s->sync)
		s->bad |= BIT(m);
	s->fix = m;
	return true;
}

/*
 * A rebuild row that cannot be rebuilt, for a survivor's read error or
 * bad-block entries where the scheme has no redundancy left (raid5 with a
 * member rebuilding, raid6 with two out), is lost: its chunk on the target
 * is recorded bad (durable before the cursor moves past it:
 * rl_stripe_sync_range()) and the rebuild goes on. Not where failed
 * members alone use up the redundancy. Returns false if the row cannot be
 * recorded: the row fails.
 */
static bool rl_stripe_row_lost(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	unsigned int t = s->e->sync_req->target;
	sector_t msector = s->row << a->geom.chunk_shift;

	if (hweight_long(rl_unreadable_at(a, msector) | BIT(t)) > a->redundancy)
		return false;
	if (rl_bbl_record(a, t, msector, rl_chunk_sectors(&a->geom))) {
		if (a->bbl)
			rl_member_fail(a, t, "bad-block list full");
		return false;
	}
	DMERR_LIMIT("%s: member %u: row %llu lost in rebuild: recorded bad",
		    dm_table_device_name(a->ti->table), t, s->row);
	s->bb_clear = 0;
	s->step = RL_STEP_END;
	return true;
}

/*
 * A read failed where the row cannot be rebuilt without the member, but
 * failed members are not what uses up the redundancy: a rebuild under way
 * or bad-block entries are. md keeps such a disk and records the range
 * bad: so here, up to RL_MAX_READ_ERRORS. The range recorded is the
 * failed read's span (a rebuild's: the whole chunk), not narrowed to the
 * bad sectors. A rebuild row is then lost; a foreground access fails with
 * EIO. Returns false to fail the members as before (no bad-block list,
 * past the limit, a full list, a resync or scrub).
 */
static bool rl_stripe_read_lost(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	sector_t msector = s->row << a->geom.chunk_shift;
	struct rl_span *sp;
	unsigned int m;

	if (!a->bbl || (s->sync && s->job != RL_SYNC_REBUILD) ||
	    s->fix != RL_NONE ||
	    hweight_long(READ_ONCE(a->failed) | s->io_failed) > a->redundancy)
		return false;
	for_each_set_bit(m, &s->io_failed, a->geom.nr_members) {
		sp = &s->plan.read[m];
		if (!rl_member_read_lost(a, m, s->col[m].dev, s->row))
			return false;
		if (rl_bbl_record(a, m, msector + sp->lo, sp->hi - sp->lo)) {
			/* the caller's failure of it then changes nothing */
			rl_member_fail_io(a, m, s->col[m].dev, "bad-block list full");
			return false;
		}
	}
	if (s->sync)
		return rl_stripe_row_lost(s);
	rl_bbl_persist_async(a);
	s->status = BLK_STS_IOERR;
	s->step = RL_STEP_END;
	return true;
}

/*
 * A write landed that rewrote whole the chunks of the members in
 * s->bb_clear: their entries for the row go, durably before the bio ends
 * (a rebuild's: before its cursor moves, rl_stripe_sync_range()).
 */
static void rl_stripe_bb_cleared(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	sector_t msector = s->row << a->geom.chunk_shift;
	unsigned int m;

	for_each_set_bit(m, &s->bb_clear, a->geom.nr_members)
		rl_bbl_clear(a, m, msector, rl_chunk_sectors(&a->geom));
	s->bb_clear = 0;
	if (!s->sync && rl_bbl_persist(a))
		s->status = BLK_STS_IOERR;
}

/* The failures this context saw are durable (or cannot be made so). */
static void rl_stripe_recorded(struct rl_commit_waiter *w, blk_status_t st)
{
	struct rl_stripe *s = container_of(w, struct rl_stripe, cw);

	if (st)
		s->status = st;
	queue_work(s->e->a->wq, &s->work);
}

/*
 * The context's access is over: serve the next bio waiting for the row, or
 * unlock the row and free the context. Returns true to go on with the next
 * bio at once.
 */
static bool rl_stripe_release(struct rl_stripe *s)
{
	struct rl_engine *e = s->e;
	unsigned long flags;

	spin_lock_irqsave(&e->lock, flags);
	s->sync = false;
	s->bio = bio_list_pop(&s->waiting);
	if (s->bio) {
		spin_unlock_irqrestore(&e->lock, flags);
		rl_stripe_begin(s);
		return true;
	}
	hlist_del_init(&s->hnode);
	list_add(&s->lnode, &e->free);
	if (!bio_list_empty(&e->incoming))
		queue_work(e->a->wq, &e->dispatch);
	if (e->sync_want)
		wake_up_all(&e->sync_wait);
	spin_unlock_irqrestore(&e->lock, flags);
	return false;	/* @s may be reused from here on */
}

/* PLAN: plan the access (or a rewrite), mark its intent, issue its reads. */
static bool rl_stripe_step_plan(struct rl_stripe *s)
{
	blk_opf_t flags_in;
	int r;

	s->status = BLK_STS_OK;
	r = rl_stripe_plan(s);
	if (r == RL_ROW_SKIP) {
		s->step = RL_STEP_END;
		return true;
	}
	if (r && s->sync && s->job == RL_SYNC_REBUILD && s->fix == RL_NONE &&
	    rl_stripe_row_lost(s))
		return true;
	if (r || !rl_stripe_intent(s)) {
		s->status = BLK_STS_IOERR;
		s->step = RL_STEP_END;
		return true;
	}
	s->step = RL_STEP_READ_DONE;
	flags_in = s->bio ? s->bio->bi_opf & (REQ_SYNC | REQ_META | REQ_PRIO) : 0;
	return rl_stripe_issue(s, s->plan.read, REQ_OP_READ | flags_in);
}

/* READ_DONE: a failed read is rewritten or fails its member; else compute. */
static bool rl_stripe_step_read_done(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;

	if (s->io_failed && rl_stripe_fix_read(s)) {
		s->step = RL_STEP_PLAN;
		return true;
	}
	if (s->io_failed && rl_stripe_read_lost(s))
		return true;
	if (s->io_failed) {
		rl_stripe_fail_members(s, "read error");
		if (++s->attempts > a->geom.nr_members)
			s->status = BLK_STS_IOERR;
		s->step = s->status ? RL_STEP_END : RL_STEP_PLAN;
		return true;
	}
	if (s->plan.mode == RL_PLAN_CHECK)
		atomic64_add(rl_plan_check(&s->plan, &a->geom, s->bufs,
					   s->job == RL_SYNC_REPAIR),
			     &s->e->sync_mismatches);
	else
		rl_plan_compute(&s->plan, &a->geom, s->bufs, s->bio,
				s->bio ? rl_pb(s->bio)->lsector -
					 rl_row_start(&a->geom, s->row) : 0);
	s->step = rl_plan_writes(&s->plan) ? RL_STEP_LOG : RL_STEP_END;
	return true;
}

/* LOG: journal a foreground partial-row write, then issue the writes. */
static bool rl_stripe_step_log(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	blk_opf_t flags_in;

	if (a->jnl && !s->sync && s->fix == RL_NONE &&
	    rl_jnl_wanted(&s->plan, &a->geom)) {
		int r = rl_jnl_log(a->jnl, &s->plan, s->bufs, &s->jw, &s->jseq);

		if (r == -EAGAIN)
			return false;	/* requeued when there is space */
		if (r) {
			s->status = BLK_STS_IOERR;
			s->step = RL_STEP_END;
			return true;
		}
		s->journaled = true;
	}
	s->step = RL_STEP_WRITE_DONE;
	flags_in = s->bio ? s->bio->bi_opf &
			    (REQ_FUA | REQ_SYNC | REQ_META | REQ_PRIO) : 0;
	/*
	 * a record is retired only once its writes are durable, and a
	 * bad-block entry cleared only once the chunk it covered is
	 */
	if (s->journaled || (s->bb_clear && !s->sync))
		flags_in |= REQ_FUA;
	return rl_stripe_issue(s, s->plan.write, REQ_OP_WRITE | flags_in);
}

/* WRITE_DONE: fail the members the writes failed on; wait for the record. */
static bool rl_stripe_step_write_done(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;

	if (s->io_failed) {
		rl_stripe_fail_members(s, s->fix == RL_NONE ? "write error" :
				       "read error, and its rewrite failed");
		/* what did not land is rebuilt from the rest */
		if (rl_nr_failed(a) > a->redundancy)
			s->status = BLK_STS_IOERR;
	} else if (s->bb_clear) {
		rl_stripe_bb_cleared(s);
	}
	s->step = RL_STEP_RETIRE;
	/*
	 * A member this write skipped or failed on is stale: its failure
	 * must be durable before the record that could replay the row is
	 * retired and the bio ends.
	 */
	return s->sync || rl_failrec_wait(a, &s->cw, rl_stripe_recorded);
}

/*
 * END: release the intent; after a rewrite, serve the access itself; park
 * a background row; end the bio and serve the row's next one.
 */
static bool rl_stripe_step_end(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;

	if (s->region != RL_NO_REGION) {
		rl_md_intent_end(a->md, s->region);
		s->region = RL_NO_REGION;
	}
	if (s->fix != RL_NONE) {
		s->fix = RL_NONE;
		s->step = RL_STEP_PLAN;
		return true;
	}
	if (s->sync) {
		/* parked, row still locked, until its range is done */
		rl_stripe_sync_done(s);
		return false;
	}
	s->bio->bi_status = s->status;
	bio_endio(s->bio);
	return rl_stripe_release(s);
}

/*
 * One step of the context's state machine. Returns true to take the next
 * step at once, false when waiting for member I/O, journal space, the
 * failure record, or idle.
 */
static bool rl_stripe_step(struct rl_stripe *s)
{
	switch (s->step) {
	case RL_STEP_PLAN:
		return rl_stripe_step_plan(s);
	case RL_STEP_READ_DONE:
		return rl_stripe_step_read_done(s);
	case RL_STEP_LOG:
		return rl_stripe_step_log(s);
	case RL_STEP_WRITE_DONE:
		return rl_stripe_step_write_done(s);
	case RL_STEP_RETIRE:
		if (s->journaled) {
			rl_jnl_done(s->e->a->jnl, s->jseq);
			s->journaled = false;
		}
		s->step = RL_STEP_END;
		return true;
	case RL_STEP_END:
		return rl_stripe_step_end(s);
	}
	return false;
}

static void rl_stripe_work(struct work_struct *ws)
{
	struct rl_stripe *s = container_of(ws, struct rl_stripe, work);

	while (rl_stripe_step(s))
		;
}

/* ------------------------------------------------------------------------
 * Construction and the scheme hooks
 */

static void rl_stripe_free(struct rl_stripe *s, unsigned int nr_members,
			   unsigned int chunk_bytes)
{
	unsigned int m;

	for (m = 0; m < nr_members; m++) {
		if (s->col[m].bio) {
			bio_uninit(s->col[m].bio);
			kfree(s->col[m].bio);
		}
		rl_buf_free(s->col[m].buf, chunk_bytes);
	}
	kfree(s);
}

static struct rl_stripe *rl_stripe_alloc(struct rl_engine *e)
{
	const struct rl_geom *g = &e->a->geom;
	unsigned int chunk_bytes = rl_chunk_sectors(g) << SECTOR_SHIFT;
	unsigned int nr_vecs = chunk_bytes >> PAGE_SHIFT;
	struct rl_stripe *s;
	unsigned int m;

	s = kzalloc(struct_size(s, col, g->nr_members), GFP_KERNEL);
	if (!s)
		return NULL;
	s->e = e;
	INIT_HLIST_NODE(&s->hnode);
	INIT_LIST_HEAD(&s->lnode);
	bio_list_init(&s->waiting);
	INIT_WORK(&s->work, rl_stripe_work);
	s->region = RL_NO_REGION;
	INIT_LIST_HEAD(&s->jw.node);
	s->jw.work = &s->work;
	for (m = 0; m < g->nr_members; m++) {
		struct rl_stripe_col *c = &s->col[m];

		c->s = s;
		c->member = m;
		c->buf = rl_buf_alloc(chunk_bytes, GFP_KERNEL);
		s->bufs[m] = c->buf;
		c->bio = bio_kmalloc(nr_vecs, GFP_KERNEL);
		if (c->bio)
			bio_init(c->bio, NULL, c->bio->bi_inline_vecs, nr_vecs, 0);
		if (!c->buf || !c->bio) {
			rl_stripe_free(s, g->nr_members, chunk_bytes);
			return NULL;
		}
	}
	return s;
}

/* Default stripe contexts: what fits RL_STRIPE_BUDGET, within 4 .. 32. */
static unsigned int rl_default_stripes(const struct rl_geom *g)
{
	u64 row_bytes = ((u64)g->nr_members << g->chunk_shift) << SECTOR_SHIFT;

	return clamp_t(u64, div64_u64(RL_STRIPE_BUDGET, row_bytes), 4, 32);
}

int rl_stripe_ctr(struct rl_array *a)
{
	struct dm_target *ti = a->ti;
	struct rl_engine *e;
	unsigned int i;
	int r;

	if (a->geom.layout->q_member && !rl_pq_available()) {
		ti->error = "The kernel's raid6 library has no xor_syndrome";
		return -EINVAL;
	}
	if (!a->opt_stripes_set)
		a->stripe_cache = rl_default_stripes(&a->geom);
	if ((u64)a->stripe_cache * a->geom.nr_members *
	    (rl_chunk_sectors(&a->geom) << SECTOR_SHIFT) > RL_STRIPE_MAX_BYTES) {
		ti->error = "stripe_cache too large for this geometry";
		return -EINVAL;
	}

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		goto nomem;
	e->a = a;
	spin_lock_init(&e->lock);
	bio_list_init(&e->incoming);
	INIT_LIST_HEAD(&e->free);
	INIT_WORK(&e->dispatch, rl_engine_dispatch);
	init_waitqueue_head(&e->sync_wait);
	e->hash_bits = ilog2(roundup_pow_of_two(a->stripe_cache));
	e->hash = kcalloc(1U << e->hash_bits, sizeof(*e->hash), GFP_KERNEL);
	e->stripes = kcalloc(a->stripe_cache, sizeof(*e->stripes), GFP_KERNEL);
	if (!e->hash || !e->stripes)
		goto nomem_engine;
	for (i = 0; i < (1U << e->hash_bits); i++)
		INIT_HLIST_HEAD(&e->hash[i]);
	for (i = 0; i < a->stripe_cache; i++) {
		e->stripes[i] = rl_stripe_alloc(e);
		if (!e->stripes[i])
			goto nomem_engine;
		list_add_tail(&e->stripes[i]->lnode, &e->free);
		e->nr_stripes++;
	}
	a->scheme = e;

	/* replay what a crash left in the journal, before any I/O */
	r = rl_jnl_init(a, &ti->error);
	if (r) {
		rl_stripe_dtr(a);
		return r;
	}

	/* one row per bio at most; reads are trimmed to a chunk in map */
	r = dm_set_target_max_io_len(ti, (sector_t)a->geom.nr_data <<
				     a->geom.chunk_shift);
	if (r) {
		rl_stripe_dtr(a);
		return r;
	}
	ti->num_discard_bios = 0;	/* discards are refused, see the docs */
	return 0;

nomem_engine:
	a->scheme = e;
	rl_stripe_dtr(a);
nomem:
	ti->error = "Cannot allocate stripe contexts";
	return -ENOMEM;
}

void rl_stripe_dtr(struct rl_array *a)
{
	struct rl_engine *e = rl_engine(a);
	unsigned int i, chunk_bytes = rl_chunk_sectors(&a->geom) << SECTOR_SHIFT;

	if (!e)
		return;
	rl_jnl_free(a);
	for (i = 0; i < e->nr_stripes; i++)
		rl_stripe_free(e->stripes[i], a->geom.nr_members, chunk_bytes);
	kfree(e->stripes);
	kfree(e->hash);
	kfree(e);
	a->scheme = NULL;
}

int rl_stripe_map(struct rl_array *a, struct bio *bio)
{
	struct rl_engine *e = rl_engine(a);
	struct rl_bio *pb = rl_pb(bio);
	unsigned long bad;
	struct rl_loc loc;

	if (bio_op(bio) == REQ_OP_READ) {
		rl_trim_to_chunk(a, bio);
		rl_stripe_map_sector(&a->geom, pb->lsector, &loc);
		bad = rl_unreadable_at(a, loc.sector - a->geom.data_offset) |
		      rl_bbl_members(a, loc.sector - a->geom.data_offset,
				     bio_sectors(bio));
		if (!test_bit(loc.member, &bad)) {
			rl_remap(a, bio, loc.member, loc.sector);
			return DM_MAPIO_SUBMITTED;
		}
	} else if (bio_op(bio) != REQ_OP_WRITE) {
		return DM_MAPIO_KILL;
	}

	rl_engine_queue(e, bio);
	return DM_MAPIO_SUBMITTED;
}

/*
 * A direct read that failed is served again through a stripe context: it
 * reads the member again and, if that fails too, rewrites the chunk from
 * redundancy (rl_stripe_fix_read()) or fails the member.
 */
int rl_stripe_end_io(struct rl_array *a, struct bio *bio, blk_status_t *error)
{
	struct rl_bio *pb = rl_pb(bio);

	if (pb->member != RL_NONE && rl_status_fails_member(*error) &&
	    bio_op(bio) == REQ_OP_READ && !(bio->bi_opf & REQ_RAHEAD)) {
		rl_member_done(a, pb->member, &pb->qe);
		rl_restore(bio);
		rl_engine_queue(rl_engine(a), bio);
		return DM_ENDIO_INCOMPLETE;
	}
	if (!rl_end_remapped(a, bio, *error))
		return DM_ENDIO_DONE;
	rl_engine_queue(rl_engine(a), bio);
	return DM_ENDIO_INCOMPLETE;
}

/*
 * io_min is a chunk, io_opt a full row. A write is copied into stripe
 * buffers and never sent down as it came, so the members' request size
 * limit does not apply to it: let a full row arrive in one bio, or it would
 * be split into partial-row writes that must read. (Reads are remapped, but
 * at most a chunk at a time; a member splits what it cannot take.)
 */
void rl_stripe_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	unsigned int chunk_bytes = rl_chunk_sectors(&a->geom) << SECTOR_SHIFT;
	unsigned int row = (chunk_bytes >> SECTOR_SHIFT) * a->geom.nr_data;

	blk_limits_io_min(limits, chunk_bytes);
	blk_limits_io_opt(limits, chunk_bytes * a->geom.nr_data);
	limits->max_hw_sectors = max(limits->max_hw_sectors, row);
	limits->max_sectors = max(limits->max_sectors, row);
}

/*
 * Take a free context for background row @row, if the row is not busy and
 * one is free. Called with the lock held.
 */
static struct rl_stripe *rl_stripe_grab(struct rl_engine *e, u64 row)
{
	struct rl_stripe *s;

	if (rl_stripe_lookup(e, row) || list_empty(&e->free))
		return NULL;
	s = list_first_entry(&e->free, struct rl_stripe, lnode);
	list_del_init(&s->lnode);
	s->row = row;
	s->bio = NULL;
	s->sync = true;
	rl_stripe_begin(s);
	hlist_add_head(&s->hnode, &e->hash[hash_64(row, e->hash_bits)]);
	return s;
}

static bool rl_stripe_sync_start(struct rl_engine *e, u64 row,
				 enum rl_sync_job job, unsigned int i)
{
	struct rl_stripe *s;

	spin_lock_irq(&e->lock);
	s = rl_stripe_grab(e, row);
	if (s) {
		s->job = job;
		e->parked[i] = s;
		atomic_inc(&e->sync_pending);
	}
	spin_unlock_irq(&e->lock);
	if (s)
		queue_work(e->a->wq, &s->work);
	return s;
}

/*
 * ->sync_range: the rows of the range, RL_SYNC_PARALLEL at a time, each in
 * a stripe context under its row lock like a foreground access. The rows
 * stay locked until all have ended and a rebuild's cursor has moved past
 * them: a foreground access to one of them then finds the member rebuilt
 * (it reads it, and writes include it), whatever order the rows ended in.
 */
int rl_stripe_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_engine *e = rl_engine(a);
	u64 row = req->msector >> a->geom.chunk_shift;
	u64 end = DIV_ROUND_UP_ULL(req->msector + req->len,
				   rl_chunk_sectors(&a->geom));
	u64 next = row;
	int r;

	end = min_t(u64, end, row + RL_SYNC_PARALLEL);
	e->sync_req = req;
	atomic_set(&e->sync_errors, 0);
	atomic64_set(&e->sync_mismatches, 0);
	atomic_set(&e->sync_pending, 1);	/* bias */
	spin_lock_irq(&e->lock);
	e->sync_want = true;
	spin_unlock_irq(&e->lock);
	while (next < end) {
		wait_event(e->sync_wait,
			   rl_stripe_sync_start(e, next, req->job, next - row));
		next++;
	}
	spin_lock_irq(&e->lock);
	e->sync_want = false;
	if (!bio_list_empty(&e->incoming))
		queue_work(a->wq, &e->dispatch);
	spin_unlock_irq(&e->lock);
	if (!atomic_dec_and_test(&e->sync_pending))
		wait_event(e->sync_wait, !atomic_read(&e->sync_pending));

	req->msector = row << a->geom.chunk_shift;
	req->len = (end - row) << a->geom.chunk_shift;
	req->mismatches = atomic64_read(&e->sync_mismatches);
	r = atomic_read(&e->sync_errors) ? -EIO : 0;
	/* rows lost or rebuilt: their entries are durable before the cursor moves */
	if (rl_bbl_persist(a))
		r = -EIO;
	if (!r)
		rl_sync_advance(a, req);
	for (next = row; next < end; next++)
		if (rl_stripe_release(e->parked[next - row]))
			queue_work(a->wq, &e->parked[next - row]->work);
	return r;
}
