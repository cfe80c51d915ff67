/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab parity logging: what the scheme's files share (plog.c lists
 * them): its state, struct plog, a region's, a context's and a
 * workspace's, and each file's functions, lowest file first. Private to
 * the scheme; the region manager's interface is plog.h.
 */
#ifndef DM_RAIDLAB_PLOG_INT_H
#define DM_RAIDLAB_PLOG_INT_H

#include <linux/bio.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/workqueue.h>

#include "../../svc/cell.h"
#include "../../svc/mio.h"
#include "plog.h"
#include "../../raidlab.h"

#define PLOG_MAX_CTX		64	/* foreground contexts at most */
#define PLOG_CTX_BUDGET		(16U << 20)	/* bytes of context buffers */
#define PLOG_BLOCK_SHIFT	3	/* data cache block: 8 sectors, 4 KiB */
#define PLOG_MAX_WS		4	/* concurrent reintegrations at most */
#define PLOG_WS_BUDGET		(64U << 20)	/* bytes of workspaces */
/*
 * Bytes a table's options may ask for, everything plog_mem() counts: the
 * stripe engine's bound (RL_STRIPE_MAX_BYTES), which any one option at its
 * largest, with the defaults, stays below.
 */
#define PLOG_MEM_BUDGET		(512ULL << 20)

/* How a region serves writes. */
enum plog_mode {
	PLOG_LOG,		/* parity logging */
	PLOG_DIRECT,		/* degraded: read-modify-write, no log */
};

/*
 * The repair a region waits for (plog_get_work(), highest first). Requests
 * only raise it: a fix-up covers a recomputation, as it flushes the log or
 * recomputes the parity itself, and reintegration is retried after either.
 * A fix-up a member failure asks for (plog_want_fixups()) comes after
 * every other repair; one an access or the log writer waits for, first.
 */
enum plog_repair {
	PLOG_REPAIR_NONE,
	PLOG_REPAIR_FIX_IDLE,	/* a member of it is lost, no one waits */
	PLOG_REPAIR_RECOMP,	/* its reintegration failed: recompute */
	PLOG_REPAIR_FIX,	/* a member of it is lost: fix up, go DIRECT */
};

/*
 * Where a region's log on disk (generation disk_gen) stands with its
 * reintegration. OPEN: it takes records. WANTED (plog_want_reint(): the
 * log is full, or a flush, a fix-up or the reintegrate message asks):
 * records go to the next generation, whose segments wait for this one's
 * truncation. RUNNING (plog_reint_pick()): a workspace has taken it.
 *
 *   OPEN    -> WANTED   plog_want_reint()
 *   WANTED  -> RUNNING  plog_reint_pick(), p->lock held
 *   RUNNING -> WANTED   the workspace's reintegration failed: a repair
 *                       comes (plog_reint_work())
 *   any     -> OPEN     the generation reintegrated (plog_do_reint()), or
 *                       dropped (plog_truncate_locked())
 *
 * A region that went OPEN, or WANTED again, under a workspace stays that
 * workspace's until it returns: plog_reint_pick() takes no region whose
 * log members a workspace holds, and a region's own are among them.
 * A region operation (plog_bg.c) reintegrates with ws[0] in any state but
 * OPEN, holding op_sem for writing: a workspace that took the region
 * meanwhile finds it done.
 */
enum plog_reint_state {
	PLOG_RS_OPEN,
	PLOG_RS_WANTED,
	PLOG_RS_RUNNING,
};

/*
 * One parity-log region's state; under plog->lock. Three state machines
 * (mode, repair, rs: each an enum above) and three holds: frozen (a
 * region operation owns the region: no access enters), log_busy (the log
 * writer has its next segment in flight) and intent (a write-intent
 * reference is held for its log).
 */
struct plog_region {
	struct rl_plog_buf *cur;	/* buffer taking records, or NULL */
	u64 gen;			/* generation new buffers get */
	u32 next_seg;			/* their next segment index */
	u64 disk_gen;			/* the log on disk: its generation */
	u32 disk_segs;			/* and segments written */
	u32 queued;			/* buffers on the seal queue */
	u32 recs;			/* records not yet on disk */
	u32 reints;			/* reintegrations done */
	unsigned int busy;		/* foreground accesses in flight */
	u8 mode;			/* enum plog_mode */
	u8 repair;			/* enum plog_repair: wanted */
	u8 rs;				/* enum plog_reint_state */
	bool frozen;			/* a region operation runs */
	bool log_busy;			/* a log write of it is in flight */
	bool intent;			/* holds a write-intent reference */
};

/*
 * A region operation's buffers: one region's check information (f * S
 * chunks: the rows' P, then for f = 2 their Q), a staging buffer (a
 * segment, or a window of a member's slice), every data member's check
 * slots and a window of log segments. Reintegrations run concurrently,
 * each in a workspace of its own (plog_reint_work(), op_sem read); every
 * other region operation holds op_sem for writing and uses ws[0].
 */
struct plog_ws {
	struct plog *p;
	struct work_struct work;	/* plog_reint_work() */
	u32 region;			/* reintegrating, or U32_MAX */
	unsigned long log_members;	/* its log members */
	void *parity;			/* a region's check chunks */
	void *stage;			/* staging: segments, slice windows */
	u32 stage_chunks;
	void *pstage;			/* every data member's check slots */
	void *logbuf;			/* a window of log segments */
	u32 logbuf_segs;		/* its size: a multiple of L */
	u32 *slot_row;			/* a member's slots -> rows */
	unsigned long *recompute;	/* S bits */
	u8 *slot_pos;			/* a member's slots -> syndrome positions */
};

struct plog_cache;

struct plog {
	struct rl_array *a;
	struct rl_plog_layout lo;
	u64 *keys;			/* rl_plog_region_key() of each region */
	u32 used_regions;		/* those the target's length reaches */
	struct plog_region *reg;
	struct rl_plog_pool pool;
	struct rl_plog_md *pm;		/* DAX durable state, or NULL */
	struct bio_set bs;

	struct mutex lock;		/* regions, buffers, seal queue */
	struct list_head sealq;		/* detached buffers, oldest first */
	wait_queue_head_t wait;		/* anything under lock changed */
	unsigned long events;		/* bumped with each such change */

	/* foreground contexts (plog_write.c) */
	struct rl_cells cells;		/* the row lock over them */
	unsigned int nr_ctx;
	struct plog_ctx **ctx;
	struct workqueue_struct *ctx_wq;	/* contexts: they sleep */
	struct workqueue_struct *log_wq;	/* the log writer, ordered */
	struct work_struct log_work;
	struct rl_plog_buf **batch;	/* the log writer's: one per region */
	struct plog_cache *cache;
	/* added for f = 2 (plog_log.c): the log writer's copies issued, a bit each */
	u8 *batch_copies;

	/*
	 * region operations (plog_reint.c, plog_bg.c): reintegrations concurrently (op_sem
	 * read, a workspace each), anything else alone (op_sem write, ws[0])
	 */
	struct rw_semaphore op_sem;
	/* fix-ups and recomputations: the sync service's items (->get_work) */
	struct workqueue_struct *reint_wq;	/* reintegrations */
	struct plog_ws *ws;
	unsigned int nr_ws;
	u32 reint_next;			/* where the next pick starts */
	bool stopping;			/* destructor: queue no more work */

	/* counters for status */
	u64 log_bytes;
	u64 reintegrations;
	u64 log_fallbacks;		/* f = 2: segments read from copy 1 */
};

static inline struct plog *plog_of(struct rl_array *a)
{
	return a->scheme;
}

static inline unsigned int plog_chunk_bytes(const struct plog *p)
{
	return 1U << (p->lo.chunk_shift + SECTOR_SHIFT);
}

/* A workspace's buffers (plog_ws.c). */
/* Scratch chunks after the stage window, for f = 2 row solving. */
#define PLOG_NR_SCRATCH		3

static inline size_t plog_lo_check_bytes(const struct rl_plog_layout *lo)
{
	return ((size_t)lo->f * lo->slice) << (lo->chunk_shift + SECTOR_SHIFT);
}

static inline size_t plog_check_bytes(const struct plog *p)
{
	return plog_lo_check_bytes(&p->lo);
}

/* Check chunk @i of the region: P of row i for i < S, Q of row i - S after. */
static inline void *plog_cchunk(struct plog_ws *w, u32 i)
{
	return w->parity + ((size_t)i << (w->p->lo.chunk_shift + SECTOR_SHIFT));
}

static inline void *plog_prow(struct plog_ws *w, u32 row)
{
	return plog_cchunk(w, row);
}

static inline void *plog_qrow(struct plog_ws *w, u32 row)
{
	return plog_cchunk(w, w->p->lo.slice + row);
}

static inline void *plog_stage(struct plog_ws *w, u32 j)
{
	return w->stage + ((size_t)j << (w->p->lo.chunk_shift + SECTOR_SHIFT));
}

static inline void *plog_scratch(struct plog_ws *w, unsigned int i)
{
	return plog_stage(w, w->stage_chunks + i);
}

/* The first check slot of a slice: S/g P slots (then S/g Q slots) follow. */
static inline u32 plog_first_parity_slot(const struct rl_plog_layout *lo)
{
	return lo->slice - lo->f * (lo->slice / lo->g);
}

/* check slots of a member's slice */
static inline u32 plog_check_slots(const struct rl_plog_layout *lo)
{
	return lo->slice - plog_first_parity_slot(lo);
}

/* data member @t's check slots in w->pstage */
static inline void *plog_pstage(struct plog_ws *w, unsigned int t)
{
	const struct rl_plog_layout *lo = &w->p->lo;

	return w->pstage + ((size_t)t * plog_check_slots(lo) <<
			    (lo->chunk_shift + SECTOR_SHIFT));
}

/* A record a write appends (plog_plan_recs()). */
struct plog_rec_plan {
	u8 type;			/* enum rl_plog_rec_type */
	u8 col;				/* the record's col (plog.h) */
	u8 src;				/* payload: context buffer (g: delta) */
	u32 lo, hi;			/* sectors within the chunk */
};

/* A foreground context: one bio at a time, its row locked. */
struct plog_ctx {
	struct plog *p;
	struct rl_cell cell;		/* key region * S + row: the row lock */
	u32 region, rrow;		/* of cell.bio */
	u32 off;			/* the bio's first sector in the row */
	struct work_struct work;
	unsigned int id;		/* its index: its data slot (DAX) */
	bool slot;			/* the bio's data is in the slot */
	u32 slot_csum;			/* and its crc32c */
	unsigned int nr_recs;		/* the write's records: plan, */
	struct plog_rec_plan plan[RL_MAX_MEMBERS];
	struct {			/* and where they were appended */
		struct rl_plog_buf *buf;
		int idx;
	} rec[RL_MAX_MEMBERS];
	void *mem;			/* g + 1 chunks */
	/*
	 * data columns 0 .. cols - 1, then the check blocks (f = 1: parity;
	 * f = 2: P, Q), then col[g] == delta
	 */
	void *col[RL_MAX_MEMBERS + 1];
	void *delta;
	struct rl_plog_loc loc[RL_MAX_MEMBERS];	/* each data column */
};

/* The memory a table asks for at load, in bytes by use (plog_mem()). */
struct plog_mem {
	u64 pool;			/* log buffers: log_buffers segments */
	u64 cache;			/* data_cache blocks */
	u64 ws;				/* reintegration workspaces */
	u64 ctx;			/* foreground contexts */
	u64 regions;			/* per-region state */
	u64 total;
};

/* plog_cache.c: the data cache (pure, KUnit suite dm_raidlab_plog) */
struct plog_cache *plog_cache_alloc(unsigned int nr);
void plog_cache_free(struct plog_cache *c);
bool plog_cache_get(struct plog_cache *c, u64 key, unsigned int nr, void *dst);
void plog_cache_put(struct plog_cache *c, u64 key, unsigned int nr,
		    const void *src);
void plog_cache_drop(struct plog_cache *c, u64 key, unsigned int nr);
void plog_cache_counts(struct plog_cache *c, u64 *hits, u64 *misses);
unsigned int plog_cache_blocks(const struct plog_cache *c);
size_t plog_cache_block_bytes(void);

/* plog_plan.c: the records a write appends (pure, suite dm_raidlab_plog) */
bool plog_span(u32 off, u32 len, unsigned int chunk_shift, unsigned int k,
	       u32 *lo, u32 *hi);
unsigned int plog_plan_recs(const struct rl_plog_layout *lo, u32 off, u32 len,
			    struct plog_rec_plan *plan);
unsigned int plog_plan_bufs(const struct rl_plog_layout *lo, const void *seg,
			    const struct plog_rec_plan *plan, unsigned int nr);

/* plog_log.c: region state, log buffers, the log writer */
void plog_kick(struct plog *p);
void plog_wait_locked(struct plog *p);
void plog_buf_drop(struct plog *p, struct rl_plog_buf *b);
void plog_want_reint(struct plog *p, u32 r);
void plog_want_repair(struct plog *p, u32 r, enum plog_repair level);
void plog_kick_reint(struct plog *p);
void plog_detach_cur(struct plog *p, u32 r);
void plog_flush_data(struct plog *p, u32 r);
void plog_log_work(struct work_struct *ws);
void plog_slot_write(struct plog_ctx *c);
int plog_append(struct plog_ctx *c);
void plog_commit(struct plog_ctx *c);

/* plog_write.c: foreground contexts */
void plog_queue_bio(struct plog *p, struct bio *bio);
sector_t plog_msector(struct plog *p, u64 mchunk, u32 off);
void plog_ctx_work(struct work_struct *ws);
unsigned int plog_nr_ctx(const struct rl_plog_layout *lo, size_t *bytes);
int plog_alloc_ctx(struct plog *p);
void plog_free_ctx(struct plog *p);

/* plog_ws.c: workspaces and their I/O (the pure ones: suite dm_raidlab_plog_sync) */
void plog_fill_slot_rows(const struct rl_plog_layout *lo, u32 r,
			 unsigned int m, u32 *slot_row);
void plog_fill_slot_map(const struct rl_plog_layout *lo, u32 r,
			unsigned int m, u32 *slot_row, u8 *slot_pos);
unsigned int plog_nr_ws(unsigned int nr_members, unsigned int log_members,
			size_t ws_bytes);
size_t plog_ws_bytes(const struct rl_plog_layout *lo);
int plog_slice_xor(struct plog_ws *w, u32 r, unsigned int m,
		   bool with_parity);
void plog_slot_rows(struct plog_ws *w, u32 r, unsigned int m);
int plog_slice_io(struct plog_ws *w, u32 r, unsigned int m, u32 s0, u32 n,
		  bool write, enum rl_io_kind kind);
int plog_ws_alloc(struct plog *p, struct plog_ws *w);
void plog_ws_free(struct plog_ws *w);
void plog_parity_read(struct plog_ws *w, u32 r, unsigned long bad);
int plog_parity_write(struct plog_ws *w, u32 r, unsigned long bad);
int plog_recompute(struct plog_ws *w, u32 r);
void plog_acc(struct plog_ws *w, u32 row, unsigned int pos, void *chunk);
int plog_apply_log(struct plog_ws *w, u32 r, u64 gen, u32 s0, u32 segs);

/* plog_reint.c: reintegration */
void plog_reint_work(struct work_struct *ws);
unsigned long plog_log_members(const struct rl_plog_layout *lo, u32 r);
bool plog_data_bad(struct plog *p, u32 r, unsigned long bad);
bool plog_log_bad(struct plog *p, u32 r, unsigned long bad);
int plog_recompute_truncate(struct plog_ws *w, u32 r);
void plog_truncate(struct plog *p, u32 r);
int plog_op_intent(struct plog *p, u32 r, u64 *region);
void plog_op_intent_end(struct plog *p, u32 r, u64 region, bool done);
int plog_do_reint(struct plog_ws *w, u32 r);

/* plog_bg.c: the other region operations, background jobs */
int plog_region_ops_init(struct plog *p);
void plog_region_ops_free(struct plog *p);
bool plog_get_work(struct rl_array *a, struct rl_work *w);
void plog_do_work(struct rl_array *a, const struct rl_work *w);
u32 plog_want_fixups(struct plog *p);
int plog_reintegrate_all(struct plog *p);
int plog_sync_range(struct rl_array *a, struct rl_sync_req *req);
void plog_pq_solve(void **ptrs, unsigned int cols, void *x, void *y,
		   void *zero, unsigned int fa, unsigned int fb, void **out,
		   size_t bytes);

/* plog_recover.c: crash recovery */
int plog_recover(struct plog *p, char **error);

/* plog.c: the memory a table asks for (pure, KUnit suite dm_raidlab_plog) */
u64 plog_mem(const struct rl_plog_layout *lo, unsigned int nr_bufs,
	     unsigned int cache_blocks, struct plog_mem *m);
int plog_mem_check(const struct rl_plog_layout *lo, unsigned int nr_bufs,
		   unsigned int cache_blocks, struct plog_mem *m, char **error);

#endif /* DM_RAIDLAB_PLOG_INT_H */
