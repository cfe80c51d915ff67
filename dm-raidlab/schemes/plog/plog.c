// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: parity logging (paper 000, Stodolsky et al.), on the
 * parity-log region manager of plog.h (layout, segments, records, the
 * buffer pool, durable state).
 *
 * Reads are remapped straight to the data member. A write covers at most
 * one row (max_io_len); it is served by a foreground context under the
 * row's lock (svc/cell.c, the stripe engine's row lock too):
 *
 *   map() -> incoming list -> dispatch work -> context for the row
 *   (bios for a busy row wait on its context, in arrival order)
 *
 * A context (preallocated, with its chunk buffers; it sleeps, on a
 * workqueue of its own) serves a write in a region in LOG mode so:
 *
 *   partial row  old data of the touched columns from the data cache or
 *                a preread; delta = old ^ new over the hull of the
 *                columns (one UPDATE record)
 *   full row     the row's new parity in memory (one OVERWRITE record),
 *                no preread
 *   then         the record is appended PENDING to the region's current
 *                log buffer (mirrored to its DAX twin), the data is
 *                written, the record made COMMITTED, the bio ended.
 *
 * A buffer that is full (or flushed because the pool ran dry) leaves its
 * region for the seal queue; the log writer writes it, once all its
 * records are committed, as the region's next segment (REQ_FUA), in
 * segment order. When a region's log is full its reintegration is queued
 * (plog_reint.c); new records go to the next generation meanwhile, whose
 * segments wait for the truncation. A region with an unreadable member
 * is fixed up and served DIRECT (read-modify-write of data and parity, no
 * log) until the member is back: see plog_bg.c and the documentation.
 *
 * The files of schemes/plog/, each calling only the ones below it
 * (scripts/layers.py fails on a call cycle):
 *
 *   plog.c          the scheme: ctr/dtr, map, status, messages, options
 *   plog_recover.c  crash recovery at construction (DAX)
 *   plog_bg.c       fix-up, recomputation (the sync service's work
 *                   items: ->get_work), rebuild, check and repair
 *   plog_reint.c    reintegration, log truncation
 *   plog_ws.c       the region operations' workspaces and their I/O
 *   plog_write.c    foreground contexts: the row lock, logged and DIRECT
 *                   writes, reads
 *   plog_log.c      region state, log buffers, the log writer
 *   plog_plan.c     the records a write appends (pure)
 *   plog_cache.c    the data cache
 *
 * and below them the region manager (plog.h; plog_region.h its private
 * part), each file calling only the ones below it:
 *
 *   plog_slots.c    the data slots on DAX
 *   plog_md.c       the durable state on DAX: header, region table, twins
 *   plog_md_fmt.c   the durable encodings (pure)
 *   plog_seg.c      log segments and records (pure), the buffer pool
 *   plog_layout.c   the layout (pure)
 *
 * Member I/O goes through the member queues, in groups of member I/Os
 * (svc/mio.h): foreground class for data and log writes, background for
 * region operations. Bios come from a bioset (mempool); nothing else is
 * allocated per I/O.
 */
#include <linux/crc32c.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../../svc/layout.h"
#include "../../svc/metadata.h"
#include "../../svc/parity.h"
#include "plog_int.h"

static void plog_params(struct rl_array *a, struct rl_plog_params *pp)
{
	const unsigned int *o = a->sopt;

	memset(pp, 0, sizeof(*pp));
	pp->nr_members = a->geom.nr_members;
	pp->chunk_sectors = rl_chunk_sectors(&a->geom);
	pp->log_disks = o[RL_PLOG_OPT_LOG_DISKS];
	pp->log_ratio = o[RL_PLOG_OPT_LOG_RATIO];
	pp->log_tracks = o[RL_PLOG_OPT_LOG_TRACKS];
	pp->track_sectors = o[RL_PLOG_OPT_TRACK_SECTORS];
	pp->regions = o[RL_PLOG_OPT_REGIONS];
	pp->faults = o[RL_PLOG_OPT_FAULTS] ?: 1;
}

/* The layout, checked against what a context and a segment must hold. */
static int plog_layout(struct rl_array *a, u64 member_sectors,
		       struct rl_plog_layout *lo, char **error)
{
	struct rl_plog_params pp;
	int r;

	plog_params(a, &pp);
	if (pp.faults > 1 && !rl_pq_available()) {
		*error = "plog: faults 2 needs lib/raid6 P+Q support";
		return -EINVAL;
	}
	r = rl_plog_layout_init(lo, &pp, member_sectors, error);
	if (r)
		return r;
	if (lo->g < 2 || lo->max_recs < 1 ||
	    lo->seg_sectors < lo->hdr_sectors + rl_chunk_sectors(&a->geom)) {
		*error = "plog: a log segment cannot hold a chunk's record";
		return -EINVAL;
	}
	return 0;
}

static int plog_capacity(struct rl_array *a, sector_t len, char **error)
{
	struct rl_plog_layout lo;
	int r;

	r = plog_layout(a, a->member_sectors, &lo, error);
	if (r)
		return r;
	if (!len) {
		*error = "Zero target length";
		return -EINVAL;
	}
	if (len > lo.data_chunks << lo.chunk_shift) {
		*error = "Target length exceeds the plog capacity";
		return -EINVAL;
	}
	if (len & (rl_chunk_sectors(&a->geom) - 1)) {
		*error = "Target length is not a multiple of chunk_size";
		return -EINVAL;
	}
	a->member_sectors = lo.member_chunks << lo.chunk_shift;
	return 0;
}

/* The data, then P (and Q) at the same offset in their chunks. */
static void plog_locate(struct rl_array *a, sector_t lsector,
			struct rl_locset *ls)
{
	const struct rl_plog_layout *lo = &plog_of(a)->lo;
	sector_t off = lsector & (rl_chunk_sectors(&a->geom) - 1);
	sector_t base = a->geom.data_offset + off;
	struct rl_plog_loc loc;

	rl_plog_map(lo, lsector >> lo->chunk_shift, &loc);
	rl_locset_init(ls, rl_chunk_left(&a->geom, lsector),
		       (u64)loc.region * lo->slice + loc.row, loc.col);
	rl_locset_add(ls, loc.member, base + (loc.mchunk << lo->chunk_shift),
		      RL_PART_DATA);
	rl_locset_add(ls, loc.pmember, base + (loc.pchunk << lo->chunk_shift),
		      RL_PART_P);
	if (loc.qmember != RL_NONE)
		rl_locset_add(ls, loc.qmember,
			      base + (loc.qchunk << lo->chunk_shift), RL_PART_Q);
}

static enum rl_part plog_owner(struct rl_array *a, unsigned int member,
			       sector_t msector, sector_t *lsector)
{
	const struct rl_plog_layout *lo = &plog_of(a)->lo;
	sector_t mask = rl_chunk_sectors(&a->geom) - 1;
	enum rl_part part;
	u64 lchunk;

	msector -= a->geom.data_offset;
	part = rl_plog_owner(lo, member, msector >> lo->chunk_shift, &lchunk);
	if (part == RL_PART_DATA)
		*lsector = (lchunk << lo->chunk_shift) + (msector & mask);
	return part;
}

/**
 * plog_mem() - the memory a plog table asks for at load
 * @lo: its layout
 * @nr_bufs: log buffers in the pool
 * @cache_blocks: data_cache, 4 KiB blocks
 * @m: filled in: the bytes of each use
 *
 * What the table's options scale: the log-buffer pool (log_buffers
 * segments of log_tracks * track_sectors), the data cache (data_cache
 * pages and their entries), the reintegration workspaces (a region's check
 * chunks, twice, a stage and a log window each: fewer regions, larger
 * ones, ask for more), the foreground contexts (a row's chunks each) and
 * the per-region state (regions). Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: the bytes of all of them.
 */
u64 plog_mem(const struct rl_plog_layout *lo, unsigned int nr_bufs,
	     unsigned int cache_blocks, struct plog_mem *m)
{
	u64 ws = plog_ws_bytes(lo);
	unsigned int nr_ctx;
	size_t ctx;

	nr_ctx = plog_nr_ctx(lo, &ctx);
	m->pool = (u64)nr_bufs * (((u64)lo->seg_sectors << SECTOR_SHIFT) +
				  sizeof(struct rl_plog_buf));
	m->cache = (u64)cache_blocks * plog_cache_block_bytes();
	m->ws = plog_nr_ws(lo->n, lo->f * lo->l, ws) * ws;
	m->ctx = nr_ctx * ((u64)ctx + sizeof(struct plog_ctx));
	/* keys, reg, batch, batch_copies */
	m->regions = (u64)lo->nr_regions * (sizeof(u64) + sizeof(struct plog_region) +
					    sizeof(struct rl_plog_buf *) + sizeof(u8));
	m->total = m->pool + m->cache + m->ws + m->ctx + m->regions;
	return m->total;
}

static_assert(PLOG_MEM_BUDGET == 512ULL << 20);	/* plog_mem_check()'s message */

/**
 * plog_mem_check() - does a plog table ask for no more than PLOG_MEM_BUDGET?
 * @lo: its layout
 * @nr_bufs: log buffers in the pool
 * @cache_blocks: data_cache, 4 KiB blocks
 * @m: filled in by plog_mem()
 * @error: set to a static message for ti->error when it does
 *
 * Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: 0, or -EINVAL.
 */
int plog_mem_check(const struct rl_plog_layout *lo, unsigned int nr_bufs,
		   unsigned int cache_blocks, struct plog_mem *m, char **error)
{
	if (plog_mem(lo, nr_bufs, cache_blocks, m) <= PLOG_MEM_BUDGET)
		return 0;
	*error = "plog options ask for more than the 512 MiB memory budget";
	return -EINVAL;
}

/* plog_mem_check(), and what the options ask for in the kernel log. */
static int plog_check_mem(struct plog *p, unsigned int nr_bufs, char **error)
{
	const char *name = dm_table_device_name(p->a->ti->table);
	struct plog_mem m;

	if (!plog_mem_check(&p->lo, nr_bufs, p->a->sopt[RL_PLOG_OPT_DATA_CACHE], &m,
			    error))
		return 0;
	DMERR("%s: plog options ask for %llu MiB of buffers, more than the %llu MiB budget",
	      name, DIV_ROUND_UP_ULL(m.total, 1 << 20), PLOG_MEM_BUDGET >> 20);
	DMERR("%s: MiB of log buffers %llu, data cache %llu, workspaces %llu, contexts %llu",
	      name, m.pool >> 20, m.cache >> 20, m.ws >> 20, m.ctx >> 20);
	return -EINVAL;
}

static void plog_dtr(struct rl_array *a)
{
	struct plog *p = plog_of(a);
	struct rl_plog_buf *b, *n;
	unsigned int i;
	u32 r;

	if (!p)
		return;
	/*
	 * The log writer queues region operations and they queue the log
	 * writer and each other: drain them until none has work, then
	 * destroy them.
	 */
	if (p->log_wq && p->reint_wq) {
		/*
		 * Once stopping is seen, no work item queues region operations;
		 * one begun before may have queued one more, hence two rounds.
		 */
		mutex_lock(&p->lock);
		WRITE_ONCE(p->stopping, true);
		mutex_unlock(&p->lock);
		for (i = 0; i < 2; i++) {
			flush_workqueue(p->log_wq);
			flush_workqueue(p->reint_wq);
			rl_sync_flush_work(p->a);
		}
	}
	if (p->reint_wq)
		destroy_workqueue(p->reint_wq);
	if (p->log_wq)
		destroy_workqueue(p->log_wq);
	rl_cells_exit(&p->cells);	/* no dispatch after this: contexts go */
	if (p->ctx_wq)
		destroy_workqueue(p->ctx_wq);
	/* buffers left in RAM: their twins (DAX) or intent bits cover them */
	list_for_each_entry_safe(b, n, &p->sealq, list) {
		list_del(&b->list);
		rl_plog_pool_put(&p->pool, b);
	}
	for (r = 0; p->reg && r < p->lo.nr_regions; r++)
		if (p->reg[r].cur)
			rl_plog_pool_put(&p->pool, p->reg[r].cur);
	if (p->pm)
		rl_plog_md_close(p->pm);
	plog_region_ops_free(p);
	plog_free_ctx(p);
	plog_cache_free(p->cache);
	if (p->pool.bufs)
		rl_plog_pool_exit(&p->pool);
	bioset_exit(&p->bs);
	kvfree(p->reg);
	kvfree(p->keys);
	kvfree(p->batch);
	kvfree(p->batch_copies);
	kfree(p);
	a->scheme = NULL;
}

/* Durable state: the DAX record area, or the intent bitmap, or none. */
static int plog_open_md(struct plog *p, unsigned int nr_bufs, char **error)
{
	struct rl_array *a = p->a;
	const char *why;
	int r;

	if (!a->md || a->journal == RL_JNL_OFF)
		return 0;
	r = rl_plog_md_open(a->md, &p->lo, nr_bufs, &p->pm, error);
	if (r == -EOPNOTSUPP) {
		p->pm = NULL;
		if (a->journal == RL_JNL_ON) {
			*error = "plog: journal on needs a DAX metadata device";
			return -EINVAL;
		}
		return 0;
	}
	if (r)
		return r;
	/* the new data of writes in flight, one slot per context */
	if (rl_plog_md_slots_open(p->pm, a->md, &p->lo, p->nr_ctx, &why))
		DMWARN("%s: plog: no data slots (%s): degraded replays skip writes in flight",
		       dm_table_device_name(a->ti->table), why);
	return 0;
}

/*
 * f = 2: one write appends up to cols records (a chunk each at most), all
 * at once, possibly over several fresh buffers: the region's log and the
 * pool must hold that many. A default pool grows to it.
 */
static int plog_check_room(struct plog *p, unsigned int *nr_bufs,
			   char **error)
{
	struct plog_rec_plan plan[RL_MAX_MEMBERS];
	unsigned int k, need;

	for (k = 0; k < p->lo.cols; k++) {
		plan[k].lo = 0;
		plan[k].hi = 1U << p->lo.chunk_shift;
	}
	need = plog_plan_bufs(&p->lo, NULL, plan, p->lo.cols);
	if (need > p->lo.segs) {
		*error = "plog: a region's log cannot hold one write's records";
		return -EINVAL;
	}
	if (need > *nr_bufs) {
		if (p->a->sopt[RL_PLOG_OPT_LOG_BUFFERS]) {
			*error = "plog: log_buffers too few for one write's records";
			return -EINVAL;
		}
		*nr_bufs = need;
	}
	return 0;
}

/* The locks, lists and work items of a new plog state. */
static void plog_init(struct plog *p, struct rl_array *a)
{
	a->scheme = p;
	p->a = a;
	mutex_init(&p->lock);
	init_rwsem(&p->op_sem);
	INIT_LIST_HEAD(&p->sealq);
	init_waitqueue_head(&p->wait);
	INIT_WORK(&p->log_work, plog_log_work);
}

/* The log buffers of the pool: log_buffers, or a default; checked. */
static int plog_nr_bufs(struct plog *p, unsigned int *nr_bufs, char **error)
{
	int ret;

	/* by default a buffer per region, so that each can fill one */
	*nr_bufs = p->a->sopt[RL_PLOG_OPT_LOG_BUFFERS];
	if (!*nr_bufs)
		*nr_bufs = clamp_t(u32, p->lo.nr_regions, RL_PLOG_DEF_BUFFERS,
				   RL_PLOG_MAX_DEF_BUFFERS);
	if (p->lo.f > 1) {
		ret = plog_check_room(p, nr_bufs, error);
		if (ret)
			return ret;
	}
	return plog_check_mem(p, *nr_bufs, error);
}

/* Everything the layout sizes: region state, pool, cache, contexts, queues. */
static int plog_alloc(struct plog *p, unsigned int nr_bufs, char **error)
{
	u32 r;

	*error = "Cannot allocate plog state";
	p->keys = kvcalloc(p->lo.nr_regions, sizeof(*p->keys), GFP_KERNEL);
	p->reg = kvcalloc(p->lo.nr_regions, sizeof(*p->reg), GFP_KERNEL);
	p->batch = kvcalloc(p->lo.nr_regions, sizeof(*p->batch), GFP_KERNEL);
	p->batch_copies = kvcalloc(p->lo.nr_regions, sizeof(*p->batch_copies),
				   GFP_KERNEL);
	if (!p->keys || !p->reg || !p->batch || !p->batch_copies)
		return -ENOMEM;
	for (r = 0; r < p->lo.nr_regions; r++)
		p->keys[r] = rl_plog_region_key(&p->lo, r);
	if (rl_mio_bioset_init(&p->bs, 4 * RL_MAX_MEMBERS))
		return -ENOMEM;
	if (rl_plog_pool_init(&p->pool, nr_bufs,
			      p->lo.seg_sectors << SECTOR_SHIFT)) {
		*error = "Cannot allocate the log buffers";
		return -ENOMEM;
	}
	p->cache = plog_cache_alloc(p->a->sopt[RL_PLOG_OPT_DATA_CACHE]);
	if (!p->cache || plog_alloc_ctx(p) || plog_region_ops_init(p))
		return -ENOMEM;
	p->ctx_wq = alloc_workqueue("kraidlab_plog", WQ_MEM_RECLAIM | WQ_UNBOUND,
				    p->nr_ctx);
	p->log_wq = alloc_ordered_workqueue("kraidlab_plog_log", WQ_MEM_RECLAIM);
	p->reint_wq = alloc_workqueue("kraidlab_plog_reint",
				      WQ_MEM_RECLAIM | WQ_UNBOUND, p->nr_ws);
	if (!p->ctx_wq || !p->log_wq || !p->reint_wq)
		return -ENOMEM;
	return 0;
}

static int plog_ctr(struct rl_array *a)
{
	struct dm_target *ti = a->ti;
	unsigned int nr_bufs;
	struct plog *p;
	int ret;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		ti->error = "Cannot allocate plog state";
		return -ENOMEM;
	}
	plog_init(p, a);
	ret = plog_layout(a, a->member_sectors, &p->lo, &ti->error);
	if (ret)
		goto bad;
	/* regions fill in order (rl_plog_map()): the rest hold no data */
	p->used_regions = DIV64_U64_ROUND_UP(ti->len >> p->lo.chunk_shift,
					     (u64)p->lo.slice * p->lo.cols);
	ret = plog_nr_bufs(p, &nr_bufs, &ti->error);
	if (ret)
		goto bad;
	ret = plog_alloc(p, nr_bufs, &ti->error);
	if (ret)
		goto bad;
	ret = plog_open_md(p, nr_bufs, &ti->error);
	if (ret)
		goto bad;
	/* replay what a crash left in the log, before any I/O */
	ret = plog_recover(p, &ti->error);
	if (ret)
		goto bad;

	ret = dm_set_target_max_io_len(ti, (sector_t)p->lo.cols <<
				       p->lo.chunk_shift);
	if (ret)
		goto bad;
	ti->num_discard_bios = 0;	/* discards are refused */
	return 0;
bad:
	plog_dtr(a);
	return ret;
}

static int plog_map(struct rl_array *a, struct bio *bio)
{
	struct plog *p = plog_of(a);
	struct rl_bio *pb = rl_pb(bio);
	struct rl_plog_loc loc;
	unsigned long bad;

	if (bio_op(bio) == REQ_OP_READ) {
		rl_trim_to_chunk(a, bio, pb->lsector);
		rl_plog_map(&p->lo, pb->lsector >> p->lo.chunk_shift, &loc);
		bad = rl_unreadable_at(a, p->keys[loc.region]);
		if (!test_bit(loc.member, &bad)) {
			rl_remap(a, bio, loc.member, a->geom.data_offset +
				 plog_msector(p, loc.mchunk, pb->lsector &
					      ((1U << p->lo.chunk_shift) - 1)));
			return DM_MAPIO_SUBMITTED;
		}
	} else if (bio_op(bio) != REQ_OP_WRITE) {
		return DM_MAPIO_KILL;
	}
	if (!rl_array_alive(a))
		return DM_MAPIO_KILL;
	plog_queue_bio(p, bio);
	return DM_MAPIO_SUBMITTED;
}

/* A direct read that failed is served again through a context. */
static int plog_end_io(struct rl_array *a, struct bio *bio, blk_status_t *error)
{
	if (!rl_end_remapped(a, bio, *error))
		return DM_ENDIO_DONE;
	plog_queue_bio(plog_of(a), bio);
	return DM_ENDIO_INCOMPLETE;
}

/*
 * Suspended: no bio is in flight. Reintegrate every log, so that the
 * parity is whole and the intent bits (without DAX) can clear; then the
 * log writer and region operations stop until the resume.
 */
static void plog_postsuspend(struct rl_array *a)
{
	struct plog *p = plog_of(a);

	plog_reintegrate_all(p);
	flush_workqueue(p->reint_wq);
	rl_sync_flush_work(a);
	flush_workqueue(p->log_wq);
}

static void plog_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	struct plog *p = plog_of(a);
	unsigned int cb = plog_chunk_bytes(p);
	unsigned int row = (cb >> SECTOR_SHIFT) * p->lo.cols;

	rl_limits_io(limits, cb, cb * p->lo.cols);
	limits->max_hw_sectors = max(limits->max_hw_sectors, row);
	limits->max_sectors = max(limits->max_sectors, row);
}

static const char *plog_durability(struct plog *p)
{
	return p->pm ? "pmem" : p->a->md ? "intent" : "none";
}

/*
 * INFO: plog <L> <A.aaa> <K> <B> <S> <G> <seg_sectors> <capacity_sectors>
 *       <durability> <log_bytes> <pool_total> <pool_free> <pool_min_free>
 *       <pool_waits> <reintegrations> <regions_with_log>
 *       <max_region_fill_segs> <cache_hits> <cache_misses> <faults>
 * TABLE: log_disks log_ratio log_tracks track_sectors regions log_buffers
 *        data_cache, each with its value, then faults 2 if f = 2 (a
 *        faults 1 table line reads as before the option).
 */
static void plog_status(struct rl_array *a, status_type_t type, char *result,
			unsigned int maxlen, unsigned int *psz)
{
	struct plog *p = plog_of(a);
	const struct rl_plog_layout *lo = &p->lo;
	unsigned int sz = *psz, ratio;
	u32 r, with_log = 0, fill, max_fill = 0;
	u64 hits, misses;

	if (type == STATUSTYPE_INFO) {
		mutex_lock(&p->lock);
		for (r = 0; r < lo->nr_regions; r++) {
			struct plog_region *rg = &p->reg[r];

			fill = rg->disk_segs + rg->queued + !!rg->cur;
			if (fill || rg->recs)
				with_log++;
			max_fill = max(max_fill, fill);
		}
		mutex_unlock(&p->lock);
		plog_cache_counts(p->cache, &hits, &misses);
		DMEMIT(" %u %u.%03u %u %u %u %u %u %llu %s %llu",
		       lo->l, lo->a_milli / 1000, lo->a_milli % 1000, lo->k,
		       lo->nr_regions, lo->slice, lo->sublog, lo->seg_sectors,
		       (unsigned long long)lo->data_chunks << lo->chunk_shift,
		       plog_durability(p), READ_ONCE(p->log_bytes));
		spin_lock_irq(&p->pool.lock);
		DMEMIT(" %u %u %u %llu", p->pool.nr, p->pool.nr_free,
		       p->pool.min_free, p->pool.waits);
		spin_unlock_irq(&p->pool.lock);
		DMEMIT(" %llu %u %u %llu %llu %u", READ_ONCE(p->reintegrations),
		       with_log, max_fill, hits, misses, lo->f);
	} else if (type == STATUSTYPE_TABLE) {
		ratio = a->sopt[RL_PLOG_OPT_LOG_RATIO] ?: RL_PLOG_DEF_A;
		DMEMIT(" log_disks %u log_ratio %u.%03u log_tracks %u",
		       lo->l, ratio / 1000, ratio % 1000, lo->k);
		DMEMIT(" track_sectors %u regions %u log_buffers %u data_cache %u",
		       lo->track_sectors, lo->nr_regions, p->pool.nr,
		       plog_cache_blocks(p->cache));
		if (lo->f > 1)
			DMEMIT(" faults %u", lo->f);
	}
	*psz = sz;
}

/*
 * Messages:
 *   plog_regions   one line per region with a log or reintegrations:
 *                  <r> <fill_segs> <buffered_recs> <reints>
 *   reintegrate    reintegrate every region's log now; returns when done
 */
static int plog_message(struct rl_array *a, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	struct plog *p = plog_of(a);
	unsigned int sz = 0;
	u32 r, fill;

	if (argc == 1 && !strcasecmp(argv[0], "reintegrate"))
		return plog_reintegrate_all(p);
	if (argc == 1 && !strcasecmp(argv[0], "plog_regions")) {
		result[0] = '\0';
		mutex_lock(&p->lock);
		for (r = 0; r < p->lo.nr_regions; r++) {
			struct plog_region *rg = &p->reg[r];

			fill = rg->disk_segs + rg->queued + !!rg->cur;
			if (!fill && !rg->recs && !rg->reints)
				continue;
			DMEMIT("%u %u %u %u\n", r, fill, rg->recs, rg->reints);
		}
		mutex_unlock(&p->lock);
		return 1;
	}
	return -ENOTTY;
}

/* ------------------------------------------------------------------------
 * The scheme's table options (after the generic ones, args.c):
 *
 *   log_disks <L>           log members per region,
 *                           1 .. members - 2 (default:
 *                           the paper's balance rule)
 *   log_ratio <A>           log to parity size, a
 *                           decimal with up to three
 *                           places, 0.001 .. 64
 *                           (default 1)
 *   log_tracks <K>          tracks per log write, 1 .. 64
 *   track_sectors <n>       sectors a track, 8 .. 8192
 *                           (K * n <= 8192)
 *   regions <B>             parity-log regions, 1 .. 65536
 *                           (default: sqrt(tracks / K))
 *   log_buffers <n>         log buffers in the pool,
 *                           2 .. 1024 (default: one per
 *                           region, 16 .. 128)
 *   data_cache <blocks>     4 KiB blocks of recently
 *                           written data, 0 .. 65536
 *                           (default 256; 0: none)
 *   faults <f>              failures tolerated, 1
 *                           (parity, default) or 2 (P+Q
 *                           check information, the log
 *                           replicated twice)
 * the memory they ask for together (log buffers, data
 * cache, the workspaces the region size scales) is
 * checked against a 512 MiB budget at load
 * (plog_mem_check())
 */

/**
 * rl_parse_log_ratio() - parse a decimal with up to three places
 * @s: the word, e.g. "1", "0.5", "2.25"
 * @milli: result, in thousandths
 *
 * Return: 0, or -EINVAL for anything else (signs, exponents, more than
 * three places, no digits, zero, more than RL_PLOG_MAX_RATIO).
 */
int rl_parse_log_ratio(const char *s, unsigned int *milli)
{
	unsigned int whole = 0, frac = 0, places = 0, digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		whole = whole * 10 + (*s - '0');
		if (whole > RL_PLOG_MAX_RATIO / 1000)
			return -EINVAL;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, places++) {
			if (places == 3)
				return -EINVAL;
			frac = frac * 10 + (*s - '0');
		}
		if (!places)
			return -EINVAL;
	}
	if (*s || !digits)
		return -EINVAL;
	while (places++ < 3)
		frac *= 10;
	*milli = whole * 1000 + frac;
	if (!*milli || *milli > RL_PLOG_MAX_RATIO)
		return -EINVAL;
	return 0;
}

/* In enum rl_plog_opt's order. */
static const struct rl_opt rl_plog_opts[RL_PLOG_NR_OPTS] = {
	[RL_PLOG_OPT_LOG_DISKS] = RL_OPT("plog", log_disks, 1, RL_MAX_MEMBERS - 2),
	[RL_PLOG_OPT_LOG_RATIO] = RL_OPT("plog", log_ratio, 1, RL_PLOG_MAX_RATIO,
		.parse = rl_parse_log_ratio,
		.invalid = "Invalid log_ratio: a decimal such as 1, 0.5 or 2.25, at most 64"),
	[RL_PLOG_OPT_LOG_TRACKS] = RL_OPT("plog", log_tracks, 1, RL_PLOG_MAX_K),
	[RL_PLOG_OPT_TRACK_SECTORS] = RL_OPT("plog", track_sectors, 8, RL_PLOG_MAX_SEG),
	[RL_PLOG_OPT_REGIONS] = RL_OPT("plog", regions, 1, RL_PLOG_MAX_REGIONS),
	[RL_PLOG_OPT_LOG_BUFFERS] = RL_OPT("plog", log_buffers, 2, RL_PLOG_MAX_BUFFERS),
	[RL_PLOG_OPT_DATA_CACHE] = RL_OPT("plog", data_cache, 0, RL_PLOG_MAX_CACHE,
		.def = RL_PLOG_DEF_CACHE),
	[RL_PLOG_OPT_FAULTS] = RL_OPT("plog", faults, 1, 2),
};

static int plog_check_args(const struct rl_args *args, char **error)
{
	const unsigned int *o = args->sopt;

	if (args->stripes_set) {
		*error = "stripe_cache is not a plog option";
		return -EINVAL;
	}
	if ((u64)o[RL_PLOG_OPT_LOG_TRACKS] *
	    (o[RL_PLOG_OPT_TRACK_SECTORS] ?: RL_PLOG_DEF_TRACK) > RL_PLOG_MAX_SEG) {
		*error = "log_tracks * track_sectors exceeds a log write (8192 sectors)";
		return -EINVAL;
	}
	return 0;
}

/* plog survives as many failures as its faults option says */
static unsigned int plog_redundancy_of(const struct rl_args *args)
{
	return max(args->sopt[RL_PLOG_OPT_FAULTS], 1U);
}

/*
 * Members failed: fix up the regions with a log now (plog_bg.c). Which
 * members does not matter: a fix-up looks at what is unreadable when it
 * runs.
 */
static void plog_member_failed(struct rl_array *a, unsigned long newly)
{
	plog_want_fixups(plog_of(a));
}

/*
 * The plog scheme: the layout is the region manager's (plog.h); geom's
 * nr_data means nothing here.
 */
const struct rl_scheme_ops rl_plog_ops = {
	.name = "plog",
	.min_members = 3,
	.redundancy = 1,
	.parity = true,
	.replace = true,
	.opts = rl_plog_opts,
	.nr_opts = RL_PLOG_NR_OPTS,
	.check_args = plog_check_args,
	.redundancy_of = plog_redundancy_of,
	.capacity = plog_capacity,
	.locate = plog_locate,
	.owner = plog_owner,
	.ctr = plog_ctr,
	.dtr = plog_dtr,
	.map = plog_map,
	.end_io = plog_end_io,
	.postsuspend = plog_postsuspend,
	.io_hints = plog_io_hints,
	.status = plog_status,
	.message = plog_message,
	.sync_range = plog_sync_range,
	.member_failed = plog_member_failed,
	.get_work = plog_get_work,
	.do_work = plog_do_work,
};
