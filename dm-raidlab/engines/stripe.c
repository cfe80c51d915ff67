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
 *
 * This file has the stripe contexts; construction and the scheme hooks
 * (ctr, dtr, map, end_io, background ranges) are in stripe_ctr.c.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "../svc/bbl.h"
#include "../svc/metadata.h"
#include "../svc/parity.h"
#include "stripe_int.h"

static sector_t rl_row_start(const struct rl_geom *g, u64 row)
{
	return (row * g->nr_data) << g->chunk_shift;
}

/* Hand a bio to the engine; it is ended by a stripe context. */
void rl_engine_queue(struct rl_engine *e, struct bio *bio)
{
	rl_cells_queue(&e->cells, bio);
}

/* A context starts an access (its bio, or a background row) at PLAN. */
void rl_stripe_begin(struct rl_stripe *s)
{
	s->step = RL_STEP_PLAN;
	s->attempts = 0;
	s->bad = 0;
	s->rewritten = 0;
	s->bblk = 0;
	s->bb_clear = 0;
	s->fix = RL_NONE;
}

/* The row lock's methods (cell.h): a bio's key is its row. */
static u64 rl_stripe_key_of(struct rl_cells *c, struct bio *bio)
{
	struct rl_engine *e = container_of(c, struct rl_engine, cells);

	return rl_row_of(&e->a->geom, rl_pb(bio)->lsector, NULL);
}

static void rl_stripe_start(struct rl_cells *c, struct rl_cell *cell)
{
	struct rl_stripe *s = container_of(cell, struct rl_stripe, cell);

	rl_stripe_begin(s);
	queue_work(s->e->a->wq, &s->work);
}

const struct rl_cells_ops rl_stripe_cells_ops = {
	.key_of = rl_stripe_key_of,
	.start = rl_stripe_start,
};

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

	rl_member_submit(c->s->e->a, c->member, c->bio);
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
				    (s->cell.key << a->geom.chunk_shift) + span.lo;
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

	if (out || !op_is_write(bio_op(s->cell.bio)))
		return 0;
	for_each_set_bit(m, &s->bblk, g->nr_members) {
		col = g->layout->member_col(g, s->cell.key, m);
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
 * entries: its redundancy cannot be checked against data that is lost;
 * and for a re-added member's row that no write touched while it was out
 * (the row is locked: a write that left the member out has marked it).
 */
static int rl_stripe_plan(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	sector_t msector = s->cell.key << a->geom.chunk_shift;
	unsigned long out = rl_unreadable_at(a, msector);
	unsigned int flags = 0, t;
	u32 off, len;

	s->bblk = rl_bbl_members(a, msector, rl_chunk_sectors(&a->geom));
	s->bb_clear = 0;
	if (s->fix != RL_NONE)
		/* rewrite the chunk that failed a read from the rest of the row */
		return rl_plan_rebuild(&a->geom, s->cell.key, s->fix,
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
		/* a re-added member's row no write touched: it is good */
		if (rl_sync_skip_clean(a, s->e->sync_req, msector,
				       rl_chunk_sectors(&a->geom)))
			return RL_ROW_SKIP;
		s->bb_clear = s->bblk & BIT(t);
		return rl_plan_rebuild(&a->geom, s->cell.key, t,
				       out | s->bblk | BIT(t), &s->plan);
	}
	if (s->sync) {
		if (s->bblk)
			return RL_ROW_SKIP;
		return rl_plan_access(&a->geom, s->cell.key, 0, 0,
				      rl_sync_plan_flags[s->job], out, &s->plan);
	}
	off = rl_pb(s->cell.bio)->lsector - rl_row_start(&a->geom, s->cell.key);
	len = bio_sectors(s->cell.bio);
	if (op_is_write(bio_op(s->cell.bio)))
		flags = RL_PLAN_WRITE;
	if (rl_sync_suspect(a, msector))
		flags |= RL_PLAN_FULL_ROW;
	if (s->bblk)
		s->bb_clear = rl_stripe_bb_rewritten(s, off, len, out | s->bad);
	if (s->bb_clear)
		flags |= RL_PLAN_FULL_ROW;
	return rl_plan_access(&a->geom, s->cell.key, off, len, flags,
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
	region = rl_md_region(rl_md_state(a->md), s->cell.key << a->geom.chunk_shift);
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
 * A foreground read is then served around the member; a write and a
 * background row (rebuild, check, repair) read it again, as md does: a
 * write planned around it would leave its chunk, or the parity, stale
 * where the write lands, and nothing would say so. A member a write has
 * rewritten once and still cannot read is written around, what the write
 * leaves stale on it recorded bad (rl_stripe_bb_skip()); without lists,
 * it fails. Returns false to fail the member.
 */
static bool rl_stripe_fix_read(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	sector_t msector = s->cell.key << a->geom.chunk_shift;
	unsigned long out;
	unsigned int m;

	if ((s->sync && s->job == RL_SYNC_RESYNC) || s->fix != RL_NONE ||
	    hweight_long(s->io_failed) != 1)
		return false;
	m = __ffs(s->io_failed);
	out = rl_unreadable_at(a, msector) | s->bad | s->bblk | BIT(m);
	if (hweight_long(out) > a->redundancy)
		return false;
	if (s->rewritten & BIT(m)) {
		if (!a->bbl)
			return false;
		DMERR_LIMIT("%s: member %u (%s): row %llu still unreadable: written around",
			    dm_table_device_name(a->ti->table), m,
			    s->col[m].dev->name, s->cell.key);
		s->bad |= BIT(m);
		return true;
	}
	if (rl_sync_suspect(a, msector) ||
	    !rl_member_read_error(a, m, s->col[m].dev, s->cell.key))
		return false;
	if (!s->sync && op_is_write(bio_op(s->cell.bio)))
		s->rewritten |= BIT(m);
	else if (!s->sync)
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
	sector_t msector = s->cell.key << a->geom.chunk_shift;

	if (hweight_long(rl_unreadable_at(a, msector) | BIT(t)) > a->redundancy)
		return false;
	if (rl_bbl_record(a, t, msector, rl_chunk_sectors(&a->geom))) {
		if (a->bbl)
			rl_member_fail(a, t, "bad-block list full");
		return false;
	}
	DMERR_LIMIT("%s: member %u: row %llu lost in rebuild: recorded bad",
		    dm_table_device_name(a->ti->table), t, s->cell.key);
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
	sector_t msector = s->cell.key << a->geom.chunk_shift;
	struct rl_span *sp;
	unsigned int m;

	if (!a->bbl || (s->sync && s->job != RL_SYNC_REBUILD) ||
	    s->fix != RL_NONE ||
	    hweight_long(READ_ONCE(a->failed) | s->io_failed) > a->redundancy)
		return false;
	for_each_set_bit(m, &s->io_failed, a->geom.nr_members) {
		sp = &s->plan.read[m];
		if (!rl_member_read_lost(a, m, s->col[m].dev, s->cell.key))
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
	sector_t msector = s->cell.key << a->geom.chunk_shift;
	unsigned int m;

	for_each_set_bit(m, &s->bb_clear, a->geom.nr_members)
		rl_bbl_clear(a, m, msector, rl_chunk_sectors(&a->geom));
	s->bb_clear = 0;
	if (!s->sync && rl_bbl_persist(a))
		s->status = BLK_STS_IOERR;
}

/*
 * A foreground write planned without members that can still be read: those
 * with bad-block entries in its row (s->bblk, but those it rewrites whole)
 * and those it writes around (s->bad). It will not land on them: what it
 * would write there, its span of the member's column (of the parity's,
 * for P or Q), is recorded bad, durably before any of it is written, so
 * that a read of it is rebuilt from the rest whether the write lands or a
 * crash comes first. A member whose list is full fails instead. Returns
 * false if the lists cannot be made durable: the write fails.
 */
static bool rl_stripe_bb_skip(struct rl_stripe *s)
{
	struct rl_array *a = s->e->a;
	sector_t msector = s->cell.key << a->geom.chunk_shift;
	const struct rl_plan *p = &s->plan;
	unsigned long skip;
	struct rl_span sp;
	unsigned int m;

	if (s->sync || s->fix != RL_NONE || !rl_plan_writes(p))
		return true;
	skip = ((s->bblk & ~s->bb_clear) | s->bad) &
	       ~rl_unreadable_at(a, msector);
	if (!skip)
		return true;
	for_each_set_bit(m, &skip, a->geom.nr_members) {
		sp = m == p->pmember || m == p->qmember ? p->prange : p->bio[m];
		if (!rl_span_empty(sp) &&
		    rl_bbl_record(a, m, msector + sp.lo, sp.hi - sp.lo))
			rl_member_fail(a, m, "bad-block list full");
	}
	/* at once if every span was listed already */
	return !rl_bbl_persist(a);
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
bool rl_stripe_release(struct rl_stripe *s)
{
	s->sync = false;
	if (rl_cell_next(&s->e->cells, &s->cell)) {
		rl_stripe_begin(s);
		return true;
	}
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
	if (r || !rl_stripe_intent(s) || !rl_stripe_bb_skip(s)) {
		s->status = BLK_STS_IOERR;
		s->step = RL_STEP_END;
		return true;
	}
	s->step = RL_STEP_READ_DONE;
	flags_in = s->cell.bio ? s->cell.bio->bi_opf & (REQ_SYNC | REQ_META | REQ_PRIO) : 0;
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
		rl_plan_compute(&s->plan, &a->geom, s->bufs, s->cell.bio,
				s->cell.bio ? rl_pb(s->cell.bio)->lsector -
					 rl_row_start(&a->geom, s->cell.key) : 0);
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
	flags_in = s->cell.bio ? s->cell.bio->bi_opf &
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
		if (!rl_array_alive(a))
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
	s->cell.bio->bi_status = s->status;
	bio_endio(s->cell.bio);
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

void rl_stripe_work(struct work_struct *ws)
{
	struct rl_stripe *s = container_of(ws, struct rl_stripe, work);

	while (rl_stripe_step(s))
		;
}
