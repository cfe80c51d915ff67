// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity stripe engine (stripe.c): construction, the hooks
 * raid4, raid5 and raid6 fill their ops with (rl_stripe_ctr(), _dtr(),
 * _map(), _end_io(), _io_hints()), and background ranges
 * (rl_stripe_sync_range(): a few rows at a time, each through a
 * context).
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "../svc/bbl.h"
#include "../svc/metadata.h"
#include "../svc/parity.h"
#include "stripe_int.h"

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
	init_waitqueue_head(&e->sync_wait);
	e->stripes = kcalloc(a->stripe_cache, sizeof(*e->stripes), GFP_KERNEL);
	if (rl_cells_init(&e->cells, a->stripe_cache, a->wq,
			  &rl_stripe_cells_ops) || !e->stripes)
		goto nomem_engine;
	for (i = 0; i < a->stripe_cache; i++) {
		e->stripes[i] = rl_stripe_alloc(e);
		if (!e->stripes[i])
			goto nomem_engine;
		rl_cell_add(&e->cells, &e->stripes[i]->cell);
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
	rl_cells_exit(&e->cells);	/* no dispatch after this: contexts go */
	for (i = 0; i < e->nr_stripes; i++)
		rl_stripe_free(e->stripes[i], a->geom.nr_members, chunk_bytes);
	kfree(e->stripes);
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
		rl_trim_to_chunk(a, bio, pb->lsector);
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

	rl_limits_io(limits, chunk_bytes, chunk_bytes * a->geom.nr_data);
	limits->max_hw_sectors = max(limits->max_hw_sectors, row);
	limits->max_sectors = max(limits->max_sectors, row);
}

/* A free context for background row @row, if the row is not busy and one is free. */
static bool rl_stripe_sync_start(struct rl_engine *e, u64 row,
				 enum rl_sync_job job, unsigned int i)
{
	struct rl_cell *cell = rl_cells_grab(&e->cells, row);
	struct rl_stripe *s;

	if (!cell)
		return false;
	s = container_of(cell, struct rl_stripe, cell);
	s->sync = true;
	s->job = job;
	rl_stripe_begin(s);
	e->parked[i] = s;
	atomic_inc(&e->sync_pending);
	queue_work(e->a->wq, &s->work);
	return true;
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
	/* the last free context is kept for the range, or it starves */
	rl_cells_reserve(&e->cells, 1);
	while (next < end) {
		wait_event(e->cells.idle,
			   rl_stripe_sync_start(e, next, req->job, next - row));
		next++;
	}
	rl_cells_reserve(&e->cells, 0);
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
