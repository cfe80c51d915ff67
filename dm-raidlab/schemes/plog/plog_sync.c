// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: region operations, each in a preallocated workspace
 * (struct plog_ws: one region's check information, f * S chunks, the rows'
 * P then for f = 2 their Q; a staging buffer, a segment or a window of a
 * member's slice; a window of log segments). Reintegrations run
 * concurrently, up to plog_nr_ws() of them, each on a region whose log is
 * on members no other one reads (op_sem read); every other operation runs
 * alone (op_sem write, workspace 0):
 *
 *   reintegrate   the region's log on disk, generation disk_gen, is
 *                 applied to its parity: one sequential read of the
 *                 parity slots per data member, the segments read and
 *                 checked one by one, applied in log order, the parity
 *                 written back (REQ_FUA), then the log truncated
 *                 (generation + 1). Records meanwhile go to the next
 *                 generation, whose segments wait.
 *   recompute     the parity from the data (every data member's slice
 *                 read), the log dropped: resync, a lost sublog.
 *   fix-up        a member became unreadable: if it is one of the
 *                 region's data members its log is reintegrated; if it
 *                 logs the region the parity is recomputed. The region
 *                 then runs DIRECT until the member is back.
 *   check/repair  after a reintegration, the parity against the data.
 *   rebuild       of a data member: reintegrate, then its slice from the
 *                 other members' rows; of a log member: recompute.
 *
 * With f = 2 (P + Q, the log on two copies, paper §9) the same, except:
 * a segment is read from copy 0, or from copy 1 when copy 0 cannot be
 * read or fails its check (counted in log_fallbacks); a lost log member
 * costs nothing while every sublog has a readable copy (the fix-up
 * reintegrates from it, buffers a lost copy keeps from the disk are
 * applied from memory), the check information is recomputed only when a
 * sublog has no copy left; a rebuild of a data member solves each row
 * for its chunk with lib/raid6 (a second member may be missing too); a
 * rebuild of a log member reintegrates the region's log (its other copy)
 * so that nothing refers to the blank one.
 *
 * Operations that drop or rewrite the whole log freeze the region first
 * (new accesses wait, those in flight end). The parity is rewritten under
 * a write-intent bit (with metadata): a crash in the middle leaves the
 * region dirty, and it is then recomputed from the data (sync.c's resync)
 * instead of a log replayed over a torn parity. With DAX the rewrite is
 * also marked in the region table until its parity is durable: the intent
 * bit clears lazily, the mark tells recovery which parity may be torn.
 *
 * Crash recovery at construction (DAX metadata): each region's segments
 * on disk are applied (the data members were flushed before each segment
 * was written: its records describe durable data); the rows of the
 * records in the twins of buffers that held its records are recomputed
 * from the data (their data writes may sit in a volatile cache a crash
 * empties, COMMITTED or not); the parity is written and the log
 * truncated.
 */
#include <linux/raid/xor.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "../../svc/parity.h"
#include "plog_int.h"

/* Scratch chunks after the stage window, for f = 2 row solving. */
#define PLOG_NR_SCRATCH		3

static size_t plog_lo_check_bytes(const struct rl_plog_layout *lo)
{
	return ((size_t)lo->f * lo->slice) << (lo->chunk_shift + SECTOR_SHIFT);
}

static size_t plog_check_bytes(const struct plog *p)
{
	return plog_lo_check_bytes(&p->lo);
}

/* Check chunk @i of the region: P of row i for i < S, Q of row i - S after. */
static void *plog_cchunk(struct plog_ws *w, u32 i)
{
	return w->parity + ((size_t)i << (w->p->lo.chunk_shift + SECTOR_SHIFT));
}

static void *plog_prow(struct plog_ws *w, u32 row)
{
	return plog_cchunk(w, row);
}

static void *plog_qrow(struct plog_ws *w, u32 row)
{
	return plog_cchunk(w, w->p->lo.slice + row);
}

static void *plog_stage(struct plog_ws *w, u32 j)
{
	return w->stage + ((size_t)j << (w->p->lo.chunk_shift + SECTOR_SHIFT));
}

static void *plog_scratch(struct plog_ws *w, unsigned int i)
{
	return plog_stage(w, w->stage_chunks + i);
}

static void plog_xor_chunk(struct plog *p, void *dst, void *src)
{
	xor_blocks(1, plog_chunk_bytes(p), dst, &src);
}

/* The first check slot of a slice: S/g P slots (then S/g Q slots) follow. */
static u32 plog_first_parity_slot(const struct rl_plog_layout *lo)
{
	return lo->slice - lo->f * (lo->slice / lo->g);
}

/* check slots of a member's slice */
static u32 plog_check_slots(const struct rl_plog_layout *lo)
{
	return lo->slice - plog_first_parity_slot(lo);
}

/* data member @t's check slots in w->pstage */
static void *plog_pstage(struct plog_ws *w, unsigned int t)
{
	const struct rl_plog_layout *lo = &w->p->lo;

	return w->pstage + ((size_t)t * plog_check_slots(lo) <<
			    (lo->chunk_shift + SECTOR_SHIFT));
}

/* The log window: at most this many bytes of segments, at least L. */
#define PLOG_LOGBUF_BYTES	(8U << 20)

/*
 * Reintegration I/O is queued all at once but in pieces of at most this
 * many sectors: sequential, yet no foreground request waits behind more
 * than one piece of a background one (member queues interleave classes).
 */
#define PLOG_BG_PIECE		256

/* Background I/O of @sectors at @msector of member @m, in pieces. */
static void plog_bg_io(struct plog *p, struct plog_iog *g, unsigned int m,
		       blk_opf_t opf, sector_t msector, void *buf,
		       unsigned int sectors, enum rl_io_kind kind)
{
	unsigned int n;

	for (; sectors; sectors -= n) {
		n = min_t(unsigned int, sectors, PLOG_BG_PIECE);
		plog_io(p, g, m, opf, msector, buf, n, RL_BG, kind);
		msector += n;
		buf += (size_t)n << SECTOR_SHIFT;
	}
}

/* Where the check chunk at syndrome position @pos of @row is in w->parity. */
static void *plog_check_of(struct plog_ws *w, u32 row, unsigned int pos)
{
	return pos == w->p->lo.cols + 1 ? plog_qrow(w, row) : plog_prow(w, row);
}

/*
 * The chunk at syndrome position @pos of @row (a data column, P or Q)
 * accumulated into the row's check chunks: a data column into P (and, for
 * f = 2, times g^pos into Q), P into P, Q into Q. With every chunk of a
 * row accumulated into zeroed check chunks, they are zero again; with its
 * data columns only, they are its P and Q.
 */
static void plog_acc(struct plog_ws *w, u32 row, unsigned int pos, void *chunk)
{
	struct plog *p = w->p;
	void *ptrs[RL_PQ_MAX_DISKS];
	unsigned int cols = p->lo.cols, k;

	if (p->lo.f == 1 || pos >= cols) {
		plog_xor_chunk(p, plog_check_of(w, row, pos), chunk);
		return;
	}
	for (k = 0; k < cols; k++)
		ptrs[k] = chunk;	/* only column @pos is read */
	ptrs[cols] = plog_prow(w, row);
	ptrs[cols + 1] = plog_qrow(w, row);
	rl_pq_xor_va(ptrs, cols + 2, pos, pos, plog_chunk_bytes(p));
}

/* Workspace @w's buffers: the sizes of the region layout's. */
/* Chunks of a workspace's stage: a segment, the check slots, a window. */
static u32 plog_stage_chunks(const struct rl_plog_layout *lo)
{
	return max3(DIV_ROUND_UP(lo->seg_sectors, 1U << lo->chunk_shift),
		    plog_check_slots(lo), min_t(u32, lo->slice, 64));
}

static int plog_ws_alloc(struct plog *p, struct plog_ws *w)
{
	const struct rl_plog_layout *lo = &p->lo;
	u32 scratch = lo->f > 1 ? PLOG_NR_SCRATCH : 0;

	w->p = p;
	w->region = U32_MAX;
	INIT_WORK(&w->work, plog_reint_work);
	w->stage_chunks = plog_stage_chunks(lo);
	w->parity = vmalloc(plog_check_bytes(p));
	w->stage = vmalloc(array_size(w->stage_chunks + scratch,
				      plog_chunk_bytes(p)));
	w->pstage = vmalloc(array3_size(lo->g, plog_check_slots(lo),
					plog_chunk_bytes(p)));
	w->logbuf_segs = PLOG_LOGBUF_BYTES / (lo->seg_sectors << SECTOR_SHIFT);
	w->logbuf_segs = max(rounddown(min(w->logbuf_segs, lo->segs), lo->l),
			     lo->l);
	w->logbuf = vmalloc(array_size(w->logbuf_segs,
				       (size_t)lo->seg_sectors << SECTOR_SHIFT));
	w->slot_row = kvcalloc(lo->slice, sizeof(*w->slot_row), GFP_KERNEL);
	w->slot_pos = kvcalloc(lo->slice, sizeof(*w->slot_pos), GFP_KERNEL);
	w->recompute = bitmap_zalloc(lo->slice, GFP_KERNEL);
	if (!w->parity || !w->stage || !w->pstage || !w->logbuf ||
	    !w->slot_row || !w->slot_pos || !w->recompute)
		return -ENOMEM;
	return 0;
}

static void plog_ws_free(struct plog_ws *w)
{
	vfree(w->parity);
	vfree(w->stage);
	vfree(w->pstage);
	vfree(w->logbuf);
	kvfree(w->slot_row);
	kvfree(w->slot_pos);
	bitmap_free(w->recompute);
}

/* The bytes of one workspace's big buffers (pure: plog_mem() counts them). */
size_t plog_ws_bytes(const struct rl_plog_layout *lo)
{
	size_t seg = (size_t)lo->seg_sectors << SECTOR_SHIFT;

	return 2 * plog_lo_check_bytes(lo) +
	       ((size_t)plog_stage_chunks(lo) << (lo->chunk_shift + SECTOR_SHIFT)) +
	       min_t(size_t, PLOG_LOGBUF_BYTES, lo->segs * seg);
}

/**
 * plog_nr_ws() - how many reintegrations may run at once
 * @nr_members: N
 * @log_members: f * L, the members one region's log occupies
 * @ws_bytes: one workspace's buffers
 *
 * As many as disjoint sets of log members there can be (N / (f * L): each
 * reintegration reads a log on members no other one reads), at most
 * PLOG_MAX_WS, and as the PLOG_WS_BUDGET of memory allows; one at least.
 * Pure (KUnit suite dm_raidlab_plog_sync).
 */
unsigned int plog_nr_ws(unsigned int nr_members, unsigned int log_members,
			size_t ws_bytes)
{
	unsigned int n = nr_members / max(log_members, 1U);

	n = min_t(unsigned int, n, PLOG_MAX_WS);
	if (ws_bytes)
		n = min_t(size_t, n, PLOG_WS_BUDGET / ws_bytes);
	return max(n, 1U);
}

int plog_region_ops_init(struct plog *p)
{
	unsigned int i;
	int ret;

	p->nr_ws = plog_nr_ws(p->lo.n, p->lo.f * p->lo.l, plog_ws_bytes(&p->lo));
	p->ws = kcalloc(p->nr_ws, sizeof(*p->ws), GFP_KERNEL);
	if (!p->ws)
		return -ENOMEM;
	for (i = 0; i < p->nr_ws; i++) {
		ret = plog_ws_alloc(p, &p->ws[i]);
		if (ret)
			return ret;
	}
	return 0;
}

void plog_region_ops_free(struct plog *p)
{
	unsigned int i;

	for (i = 0; p->ws && i < p->nr_ws; i++)
		plog_ws_free(&p->ws[i]);
	kfree(p->ws);
}

/**
 * plog_fill_slot_map() - which row, and which of its chunks, each slot of
 * a member's slice holds
 * @lo: the layout
 * @r: a region
 * @m: one of its data members
 * @slot_row: S entries: the row of slot s (data or check chunk), or
 *	U32_MAX for a slot no row uses
 * @slot_pos: NULL, or S entries: the chunk's syndrome position in its row
 *	(data column k: k; P: cols; Q: cols + 1), U8_MAX for an unused slot
 *
 * Pure (KUnit suite dm_raidlab_plog_sync).
 */
void plog_fill_slot_map(const struct rl_plog_layout *lo, u32 r,
			unsigned int m, u32 *slot_row, u8 *slot_pos)
{
	u64 start = rl_plog_region_start(lo, m, r);
	struct rl_plog_loc loc;
	unsigned int k;
	u32 i;

	for (i = 0; i < lo->slice; i++)
		slot_row[i] = U32_MAX;
	if (slot_pos)
		memset(slot_pos, U8_MAX, lo->slice);
	for (i = 0; i < lo->slice; i++) {
		for (k = 0; k < lo->cols; k++) {
			rl_plog_row_loc(lo, r, i, k, &loc);
			if (loc.member == m && loc.mchunk - start < lo->slice) {
				slot_row[loc.mchunk - start] = i;
				if (slot_pos)
					slot_pos[loc.mchunk - start] = k;
			}
			if (k)
				continue;
			if (loc.pmember == m && loc.pchunk - start < lo->slice) {
				slot_row[loc.pchunk - start] = i;
				if (slot_pos)
					slot_pos[loc.pchunk - start] = lo->cols;
			}
			if (lo->f > 1 && loc.qmember == m &&
			    loc.qchunk - start < lo->slice) {
				slot_row[loc.qchunk - start] = i;
				if (slot_pos)
					slot_pos[loc.qchunk - start] = lo->cols + 1;
			}
		}
	}
}

/**
 * plog_fill_slot_rows() - which row each slot of a member's slice holds
 * @lo: the layout
 * @r: a region
 * @m: one of its data members
 * @slot_row: S entries: the row of slot s (data or check chunk), or
 *	U32_MAX for a slot no row uses
 *
 * Pure (KUnit suite dm_raidlab_plog).
 */
void plog_fill_slot_rows(const struct rl_plog_layout *lo, u32 r,
			 unsigned int m, u32 *slot_row)
{
	plog_fill_slot_map(lo, r, m, slot_row, NULL);
}

/* w->slot_row[s], w->slot_pos[s]: slot s of region @r's slice on @m. */
static void plog_slot_rows(struct plog_ws *w, u32 r, unsigned int m)
{
	plog_fill_slot_map(&w->p->lo, r, m, w->slot_row, w->slot_pos);
}

/* Slots [s0, s0 + n) of region @r's slice on @m, from or into the stage. */
static int plog_slice_io(struct plog_ws *w, u32 r, unsigned int m, u32 s0, u32 n,
			 bool write, enum rl_io_kind kind)
{
	struct plog *p = w->p;
	u64 start = rl_plog_region_start(&p->lo, m, r) + s0;
	unsigned long failed;
	struct plog_iog g;

	plog_iog_init(&g);
	plog_io(p, &g, m, write ? REQ_OP_WRITE | REQ_FUA : REQ_OP_READ,
		start << p->lo.chunk_shift, w->stage, n << p->lo.chunk_shift,
		RL_BG, kind);
	failed = plog_iog_wait(p, &g);
	if (failed) {
		plog_iog_fail(p, &g, write ? "write error" : "read error");
		return -EIO;
	}
	if (!write && is_vmalloc_addr(w->stage))
		invalidate_kernel_vmap_range(w->stage, (size_t)n <<
					     (p->lo.chunk_shift + SECTOR_SHIFT));
	return 0;
}

/*
 * Member @m's chunks of region @r accumulated into their rows' check
 * chunks (plog_acc()), over its data slots (and its check slots too with
 * @with_parity).
 */
static int plog_slice_xor(struct plog_ws *w, u32 r, unsigned int m,
			  bool with_parity)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	u32 end = with_parity ? lo->slice : plog_first_parity_slot(lo);
	u32 s0, j, n, row;
	int ret;

	plog_slot_rows(w, r, m);
	for (s0 = 0; s0 < end; s0 += n) {
		n = min(w->stage_chunks, end - s0);
		ret = plog_slice_io(w, r, m, s0, n, false, RL_DATA_READ);
		if (ret)
			return ret;
		for (j = 0; j < n; j++) {
			row = w->slot_row[s0 + j];
			if (row != U32_MAX)
				plog_acc(w, row, w->slot_pos[s0 + j],
					 plog_stage(w, j));
		}
	}
	return 0;
}

/*
 * Every data member's f * S/g check slots of region @r, read or written
 * with one sequential I/O per member (in pieces), all members at once
 * (w->pstage). Returns @bad and the members whose I/O failed.
 */
static unsigned long plog_check_io(struct plog_ws *w, u32 r, unsigned long bad,
				   bool write)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	u32 first = plog_first_parity_slot(lo), n = plog_check_slots(lo);
	struct plog_iog g;
	unsigned long failed;
	unsigned int t, m;

	plog_iog_init(&g);
	for (t = 0; t < lo->g; t++) {
		m = rl_plog_data_member(lo, r, t);
		if (test_bit(m, &bad))
			continue;
		plog_bg_io(p, &g, m, write ? REQ_OP_WRITE | REQ_FUA : REQ_OP_READ,
			   (rl_plog_region_start(lo, m, r) + first) << lo->chunk_shift,
			   plog_pstage(w, t), n << lo->chunk_shift,
			   write ? RL_PARITY_WRITE : RL_PARITY_READ);
	}
	failed = plog_iog_wait(p, &g);
	plog_iog_fail(p, &g, write ? "write error" : "read error");
	if (!write && is_vmalloc_addr(w->pstage))
		invalidate_kernel_vmap_range(w->pstage, (size_t)lo->g * n <<
					     (lo->chunk_shift + SECTOR_SHIFT));
	return failed | bad;
}

/* data member @t's check slot @j in w->pstage */
static void *plog_pslot(struct plog_ws *w, unsigned int t, u32 j)
{
	return plog_pstage(w, t) + ((size_t)j << (w->p->lo.chunk_shift + SECTOR_SHIFT));
}

/*
 * The region's check chunks into w->parity (one read of the f * S/g check
 * slots per data member, all at once); rows' chunks on @bad members, or
 * on members whose read fails, read as zero.
 */
static void plog_parity_read(struct plog_ws *w, u32 r, unsigned long bad)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	u32 first = plog_first_parity_slot(lo), j, row;
	unsigned int t, m;

	memset(w->parity, 0, plog_check_bytes(p));
	bad = plog_check_io(w, r, bad, false);
	for (t = 0; t < lo->g; t++) {
		m = rl_plog_data_member(lo, r, t);
		if (test_bit(m, &bad))
			continue;	/* failed: its rows need no parity */
		plog_slot_rows(w, r, m);
		for (j = 0; first + j < lo->slice; j++) {
			row = w->slot_row[first + j];
			if (row != U32_MAX)
				memcpy(plog_check_of(w, row, w->slot_pos[first + j]),
				       plog_pslot(w, t, j), plog_chunk_bytes(p));
		}
	}
}

/* w->parity back to the check slots of every member but @bad ones. */
static int plog_parity_write(struct plog_ws *w, u32 r, unsigned long bad)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	u32 first = plog_first_parity_slot(lo), j, row;
	unsigned int t, m;

	for (t = 0; t < lo->g; t++) {
		m = rl_plog_data_member(lo, r, t);
		if (test_bit(m, &bad))
			continue;
		plog_slot_rows(w, r, m);
		for (j = 0; first + j < lo->slice; j++) {
			row = w->slot_row[first + j];
			if (row != U32_MAX)
				memcpy(plog_pslot(w, t, j),
				       plog_check_of(w, row, w->slot_pos[first + j]),
				       plog_chunk_bytes(p));
			else
				memset(plog_pslot(w, t, j), 0, plog_chunk_bytes(p));
		}
	}
	plog_check_io(w, r, bad, true);
	return rl_nr_failed(p->a) > p->a->redundancy ? -EIO : 0;
}

/*
 * Segment @s of region @r's log, generation @gen, into the stage, checked:
 * from copy 0, or (f = 2) from the next copy when a copy's member is in
 * @bad, its read fails or it fails its check (a replacement's blank
 * sublog). -EIO or -EILSEQ when no copy serves.
 */
static int plog_read_seg(struct plog_ws *w, u32 r, u64 gen, u32 s,
			 unsigned long bad)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	const char *dev = dm_table_device_name(p->a->ti->table);
	unsigned int c, m;
	struct plog_iog g;
	const char *why;
	int ret = -EIO;
	u64 msector;

	for (c = 0; c < lo->f; c++) {
		rl_plog_seg_loc(lo, r, s, c, &m, &msector);
		if (lo->f > 1 && test_bit(m, &bad))
			continue;
		plog_iog_init(&g);
		plog_io(p, &g, m, REQ_OP_READ, msector, w->stage,
			lo->seg_sectors, RL_BG, RL_PARITY_READ);
		if (plog_iog_wait(p, &g)) {
			plog_iog_fail(p, &g, "log read error");
			ret = -EIO;
			continue;
		}
		if (is_vmalloc_addr(w->stage))
			invalidate_kernel_vmap_range(w->stage, lo->seg_sectors <<
						     SECTOR_SHIFT);
		if (rl_plog_seg_check(w->stage, lo, r, gen, s, true, &why)) {
			if (lo->f > 1)
				DMWARN_LIMIT("%s: plog region %u segment %u copy %u: %s",
					     dev, r, s, c, why);
			else
				DMERR("%s: plog region %u segment %u: %s",
				      dev, r, s, why);
			ret = -EILSEQ;
			continue;
		}
		if (c) {
			mutex_lock(&p->lock);
			p->log_fallbacks++;
			mutex_unlock(&p->lock);
		}
		return 0;
	}
	return ret;
}

/*
 * Segment @s of the log window that starts at segment @w0: run i of the
 * window (i < L) holds segments w0 + i, w0 + i + L, ..., consecutive in
 * their sublog, and is read with one I/O; run i starts at segment
 * i * (window / L) of w->logbuf.
 */
static void *plog_logbuf_seg(struct plog_ws *w, u32 w0, u32 s)
{
	struct plog *p = w->p;
	u32 q = w->logbuf_segs / p->lo.l, i = (s - w0) % p->lo.l;

	return w->logbuf + ((size_t)(i * q + (s - w0) / p->lo.l) *
			    p->lo.seg_sectors << SECTOR_SHIFT);
}

/*
 * Read the window [@w0, @end) of region @r's log into w->logbuf: each run
 * from the first copy of its sublog on a member not in @bad, all runs at
 * once. Returns the members whose read failed (their runs, and runs with
 * no such copy, are marked in @*miss by run index).
 */
static unsigned long plog_read_window(struct plog_ws *w, u32 r, u32 w0, u32 end,
				      unsigned long bad, unsigned long *miss)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	unsigned int i, c, m, run_m[RL_MAX_MEMBERS];
	unsigned long failed;
	struct plog_iog g;
	u64 msector;

	*miss = 0;
	plog_iog_init(&g);
	for (i = 0; i < lo->l && w0 + i < end; i++) {
		run_m[i] = RL_NONE;
		for (c = 0; c < lo->f; c++) {
			rl_plog_seg_loc(lo, r, w0 + i, c, &m, &msector);
			if (test_bit(m, &bad))
				continue;
			run_m[i] = m;
			plog_bg_io(p, &g, m, REQ_OP_READ, msector,
				   plog_logbuf_seg(w, w0, w0 + i),
				   DIV_ROUND_UP(end - (w0 + i), lo->l) *
				   lo->seg_sectors, RL_PARITY_READ);
			break;
		}
		if (run_m[i] == RL_NONE)
			__set_bit(i, miss);
	}
	failed = plog_iog_wait(p, &g);
	plog_iog_fail(p, &g, "log read error");
	for (i = 0; i < lo->l && w0 + i < end; i++)
		if (run_m[i] != RL_NONE && test_bit(run_m[i], &failed))
			__set_bit(i, miss);
	if (is_vmalloc_addr(w->logbuf))
		invalidate_kernel_vmap_range(w->logbuf, (size_t)w->logbuf_segs *
					     lo->seg_sectors << SECTOR_SHIFT);
	return failed;
}

/*
 * Apply segments [@s0, @segs) of region @r's log, generation @gen, in log
 * order. The log is read a window at a time with large sequential I/O:
 * one read per sublog, the L sublogs at once (paper §2.5). A segment whose
 * run could not be read, or that fails its check, is read again one copy
 * after another (plog_read_seg()).
 */
static int plog_apply_log(struct plog_ws *w, u32 r, u64 gen, u32 s0, u32 segs)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	unsigned long bad = rl_unreadable_at(p->a, p->keys[r]), miss;
	const char *why;
	u32 w0, s, end;
	void *seg;
	int ret;

	for (w0 = s0; w0 < segs; w0 = end) {
		end = min(segs, w0 + w->logbuf_segs);
		bad |= plog_read_window(w, r, w0, end, bad, &miss);
		for (s = w0; s < end; s++) {
			seg = plog_logbuf_seg(w, w0, s);
			if (test_bit((s - w0) % lo->l, &miss) ||
			    rl_plog_seg_check(seg, lo, r, gen, s, true, &why)) {
				ret = plog_read_seg(w, r, gen, s, bad);
				if (ret)
					return ret;
				seg = w->stage;
			}
			ret = rl_plog_apply(lo, seg, w->parity, NULL);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The parity of region @r from its data; every data member is needed. */
static int plog_recompute(struct plog_ws *w, u32 r)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	unsigned long bad = rl_unreadable_at(p->a, p->keys[r]);
	unsigned int t;
	int ret;

	for (t = 0; t < lo->g; t++)
		if (test_bit(rl_plog_data_member(lo, r, t), &bad))
			return -EIO;
	memset(w->parity, 0, plog_check_bytes(p));
	for (t = 0; t < lo->g; t++) {
		ret = plog_slice_xor(w, r, rl_plog_data_member(lo, r, t), false);
		if (ret)
			return ret;
	}
	return plog_parity_write(w, r, bad);
}

/*
 * Intent over a parity rewrite: a crash in it makes the region resync.
 * With DAX the rewrite is also marked in the region table, durably and
 * until plog_op_intent_end() (the intent bit clears lazily: recovery
 * tells a torn parity by the mark). *@region is U64_MAX without a
 * bitmap. An error means the intent is not durable: the caller must not
 * write parity.
 */
static int plog_op_intent(struct plog *p, u32 r, u64 *region)
{
	struct rl_md *md = p->a->md;
	u64 reg;
	int ret;

	*region = U64_MAX;
	if (!md)
		return 0;
	reg = rl_md_region(rl_md_state(md), p->keys[r]);
	ret = rl_md_intent_start(md, reg);
	if (ret)
		return ret;
	if (p->pm)
		rl_plog_md_set_rewrite(p->pm, r, true);
	*region = reg;
	return 0;
}

/*
 * The rewrite plog_op_intent() covered ended: @done, its parity durable
 * (the mark cleared); else the mark stays, and a crash before the next
 * rewrite that is done recomputes the region rather than replay its log.
 */
static void plog_op_intent_end(struct plog *p, u32 r, u64 region, bool done)
{
	if (region == U64_MAX)
		return;
	if (p->pm && done)
		rl_plog_md_set_rewrite(p->pm, r, false);
	rl_md_intent_end(p->a->md, region);
}

/*
 * Drop region @r's log, in RAM and on disk: a new generation. The region
 * is frozen; called with p->lock held. Returns true if the region's
 * write-intent reference is to be dropped.
 */
static bool plog_truncate_locked(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];
	u64 gen = max(rg->gen, rg->disk_gen) + 1;
	struct rl_plog_buf *b, *n;
	bool drop = rg->intent;

	while (rg->log_busy)
		plog_wait_locked(p);
	/* the table first: a crash after it must not replay what follows */
	if (p->pm)
		rl_plog_md_set_region(p->pm, r, gen, 0);
	if (rg->cur) {
		plog_buf_drop(p, rg->cur);
		rg->cur = NULL;
	}
	list_for_each_entry_safe(b, n, &p->sealq, list) {
		if (b->region != r)
			continue;
		list_del(&b->list);
		plog_buf_drop(p, b);
	}
	rg->gen = gen;
	rg->disk_gen = gen;
	rg->next_seg = 0;
	rg->disk_segs = 0;
	rg->queued = 0;
	rg->recs = 0;
	rg->reint = false;
	rg->intent = false;
	plog_kick(p);
	return drop;
}

static void plog_truncate(struct plog *p, u32 r)
{
	bool drop;

	mutex_lock(&p->lock);
	drop = plog_truncate_locked(p, r);
	mutex_unlock(&p->lock);
	if (drop)
		rl_md_intent_end(p->a->md, rl_md_region(rl_md_state(p->a->md),
							p->keys[r]));
}

/* Recompute the parity of frozen region @r and drop its log. */
static int plog_recompute_truncate(struct plog_ws *w, u32 r)
{
	struct plog *p = w->p;
	u64 region;
	int ret;

	ret = plog_op_intent(p, r, &region);
	if (ret)
		return ret;
	ret = plog_recompute(w, r);
	if (!ret) {
		/*
		 * the parity now describes the data as read: make that data
		 * durable before the log and twins that cover it go
		 */
		plog_flush_data(p, r);
		plog_truncate(p, r);
	}
	plog_op_intent_end(p, r, region, !ret);
	return ret;
}

/* Is a log member of region @r in @bad? */
static bool plog_log_member_bad(struct plog *p, u32 r, unsigned long bad)
{
	unsigned int i;

	for (i = 0; i < p->lo.nlog; i++)
		if (test_bit(rl_plog_log_member(&p->lo, r, i), &bad))
			return true;
	return false;
}

/* Has a sublog of region @r no copy off the @bad members (its log lost)? */
static bool plog_log_bad(struct plog *p, u32 r, unsigned long bad)
{
	const struct rl_plog_layout *lo = &p->lo;
	unsigned int i, c;

	for (i = 0; i < lo->l; i++) {
		for (c = 0; c < lo->f; c++)
			if (!test_bit(rl_plog_log_member(lo, r, c * lo->l + i),
				      &bad))
				break;
		if (c == lo->f)
			return true;
	}
	return false;
}

/* Is a data member of region @r in @bad? */
static bool plog_data_bad(struct plog *p, u32 r, unsigned long bad)
{
	unsigned int t;

	for (t = 0; t < p->lo.g; t++)
		if (test_bit(rl_plog_data_member(&p->lo, r, t), &bad))
			return true;
	return false;
}

/*
 * Wait until every buffer of the generation on disk is written. -EIO if
 * one cannot be: a member the log needs is unreadable. With f = 2 and a
 * copy of the log lost but each sublog still readable, a frozen region
 * does not wait for them (the log writer may not write segments one of
 * whose copies cannot land): 1, its buffers are to be applied from memory
 * (plog_take_mem()); one not frozen gets -EIO, and its fix-up comes.
 */
static int plog_wait_gen_written(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b;
	unsigned long bad;
	bool left;

	for (;;) {
		left = rg->log_busy;
		list_for_each_entry(b, &p->sealq, list)
			if (b->region == r &&
			    le64_to_cpu(((struct rl_plog_seg_disk *)b->seg)->gen) ==
			    rg->disk_gen)
				left = true;
		if (!left)
			return 0;
		bad = rl_unreadable_at(p->a, p->keys[r]);
		if (plog_log_bad(p, r, bad))
			return -EIO;
		if (plog_log_member_bad(p, r, bad)) {
			if (!rg->frozen)
				return -EIO;
			if (!rg->log_busy)
				return 1;
		}
		plog_wait_locked(p);
	}
}

/* Is a buffer of region @r's generation on disk waiting for a commit? */
static bool plog_gen_pending(struct plog *p, u32 r)
{
	struct rl_plog_buf *b;

	list_for_each_entry(b, &p->sealq, list)
		if (b->region == r && b->pending &&
		    le64_to_cpu(((struct rl_plog_seg_disk *)b->seg)->gen) ==
		    p->reg[r].disk_gen)
			return true;
	return false;
}

/*
 * The buffers of region @r's generation on disk still on the seal queue
 * (f = 2, a log copy lost, the region frozen and no log write of it in
 * flight) moved to @mem, in segment order, no longer counted as queued.
 * p->lock held; waits (dropping it) until every record of theirs is
 * COMMITTED: a writer in flight still owns its record and its buffer.
 */
static void plog_take_mem(struct plog *p, u32 r, struct list_head *mem)
{
	struct plog_region *rg = &p->reg[r];
	const struct rl_plog_seg_disk *h;
	struct rl_plog_buf *b, *n;

	while (plog_gen_pending(p, r))
		plog_wait_locked(p);
	list_for_each_entry_safe(b, n, &p->sealq, list) {
		h = b->seg;
		if (b->region != r || le64_to_cpu(h->gen) != rg->disk_gen)
			continue;
		list_move_tail(&b->list, mem);
		rg->queued--;
		rg->recs -= le16_to_cpu(h->nr);
	}
}

/*
 * A reintegration that took buffers failed: they go back to the front of
 * the seal queue (they are the oldest), counted again, for the next try
 * or the fix-up. p->lock held.
 */
static void plog_return_mem(struct plog *p, u32 r, struct list_head *mem)
{
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b;

	list_for_each_entry(b, mem, list) {
		rg->queued++;
		rg->recs += le16_to_cpu(((struct rl_plog_seg_disk *)b->seg)->nr);
	}
	list_splice_init(mem, &p->sealq);
}

static void plog_drop_mem(struct plog *p, struct list_head *mem)
{
	struct rl_plog_buf *b, *n;

	list_for_each_entry_safe(b, n, mem, list) {
		list_del(&b->list);
		plog_buf_drop(p, b);
	}
}

/*
 * Apply region @r's log, generation @gen: [0, @segs) from disk, then
 * (@mem_too) what the log writer wrote meanwhile and the buffers it did
 * not write, which move to @mem (dropped by the caller once the check
 * information is written).
 */
static int plog_apply_gen(struct plog_ws *w, u32 r, u64 gen, u32 segs,
			  bool mem_too, struct list_head *mem)
{
	struct plog *p = w->p;
	struct plog_region *rg = &p->reg[r];
	struct rl_plog_buf *b;
	u32 done = 0;
	int ret;

	for (;;) {
		ret = plog_apply_log(w, r, gen, done, segs);
		if (ret || !mem_too)
			return ret;
		done = segs;
		mutex_lock(&p->lock);
		while (rg->log_busy)
			plog_wait_locked(p);
		segs = rg->disk_segs;
		if (segs == done)
			break;
		mutex_unlock(&p->lock);
	}
	plog_take_mem(p, r, mem);
	mutex_unlock(&p->lock);
	/* as the log writer does: the data its records describe first */
	plog_flush_data(p, r);
	list_for_each_entry(b, mem, list) {
		ret = rl_plog_apply(&p->lo, b->seg, w->parity, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Reintegrate region @r's log on disk if that is wanted, in workspace @w:
 * op_sem held, for reading by a workspace's worker (other regions'
 * reintegrations may run meanwhile), or for writing with @w ws[0].
 */
static int plog_do_reint(struct plog_ws *w, u32 r)
{
	struct plog *p = w->p;
	struct plog_region *rg = &p->reg[r];
	LIST_HEAD(mem);
	unsigned long bad;
	u64 gen, region = U64_MAX;
	bool drop = false, mem_too;
	u32 segs;
	int ret;

	mutex_lock(&p->lock);
	if (!rg->reint) {
		mutex_unlock(&p->lock);
		return 0;
	}
	ret = plog_wait_gen_written(p, r);
	gen = rg->disk_gen;
	segs = rg->disk_segs;
	mutex_unlock(&p->lock);
	if (ret < 0)
		return ret;
	mem_too = ret == 1;

	if (segs || mem_too) {
		bad = rl_unreadable_at(p->a, p->keys[r]);
		plog_parity_read(w, r, bad);
		ret = plog_apply_gen(w, r, gen, segs, mem_too, &mem);
		if (!ret)
			ret = plog_op_intent(p, r, &region);
		if (!ret) {
			ret = plog_parity_write(w, r, bad | READ_ONCE(p->a->failed));
			if (ret)
				plog_op_intent_end(p, r, region, false);
		}
		if (ret) {
			if (!list_empty(&mem)) {
				mutex_lock(&p->lock);
				plog_return_mem(p, r, &mem);
				plog_kick(p);
				mutex_unlock(&p->lock);
			}
			return ret;
		}
	}

	mutex_lock(&p->lock);
	if (p->pm)
		rl_plog_md_set_region(p->pm, r, gen + 1, 0);
	plog_drop_mem(p, &mem);		/* after the table: see plog.h */
	rg->disk_gen = gen + 1;
	rg->disk_segs = 0;
	rg->reint = false;
	rg->reints++;
	p->reintegrations++;
	if (!p->pm && rg->intent && !rg->recs) {
		rg->intent = false;
		drop = true;
	}
	if (rg->next_seg >= p->lo.segs)
		plog_want_reint(p, r);
	queue_work(p->log_wq, &p->log_work);	/* the next generation's */
	plog_kick(p);
	mutex_unlock(&p->lock);
	plog_op_intent_end(p, r, region, true);
	if (drop)
		rl_md_intent_end(p->a->md, rl_md_region(rl_md_state(p->a->md),
							p->keys[r]));
	return 0;
}

/**
 * plog_log_members() - the members region @r's log is on
 * @lo: the layout
 * @r: a region
 *
 * Every sublog's, every copy's: f * L members, none of them one of the
 * region's data members. Pure (KUnit suite dm_raidlab_plog_sync).
 */
unsigned long plog_log_members(const struct rl_plog_layout *lo, u32 r)
{
	unsigned long mask = 0;
	unsigned int s, c, m;
	u64 msector;

	for (s = 0; s < lo->l && s < lo->segs; s++)
		for (c = 0; c < lo->f; c++) {
			rl_plog_seg_loc(lo, r, s, c, &m, &msector);
			__set_bit(m, &mask);
		}
	return mask;
}

/*
 * A region for workspace @w to reintegrate, claimed, or U32_MAX: one that
 * wants it, that no other workspace has, that waits for no fix-up or
 * recomputation, that has not lost more members than it survives (its
 * reintegration would fail again and again), and whose log is on members no running reintegration
 * reads (two sequential log reads on one disk would seek between them).
 * Round robin, so that every region gets its turn; one passed over for
 * its log members is looked at first next time. p->lock held.
 */
static u32 plog_reint_pick(struct plog *p, struct plog_ws *w)
{
	unsigned long busy = 0, mask;
	u32 k, r, skipped = U32_MAX;
	unsigned int i;

	for (i = 0; i < p->nr_ws; i++)
		if (p->ws[i].region != U32_MAX)
			busy |= p->ws[i].log_members;
	for (k = 0; k < p->lo.nr_regions; k++) {
		r = (p->reint_next + k) % p->lo.nr_regions;
		if (!p->reg[r].reint || p->reg[r].reinting ||
		    p->reg[r].fix || p->reg[r].recomp)
			continue;
		/* more members lost than it survives: nothing to be done */
		if (hweight_long(rl_unreadable_at(p->a, p->keys[r])) >
		    p->a->redundancy)
			continue;
		mask = plog_log_members(&p->lo, r);
		if (mask & busy) {
			if (skipped == U32_MAX)
				skipped = r;
			continue;
		}
		p->reg[r].reinting = true;
		/* a region passed over for its log members is first next */
		p->reint_next = skipped != U32_MAX ? skipped :
				(r + 1) % p->lo.nr_regions;
		w->region = r;
		w->log_members = mask;
		return r;
	}
	return U32_MAX;
}

/* Let every workspace look for a reintegration to run. */
void plog_kick_reint(struct plog *p)
{
	unsigned int i;

	if (READ_ONCE(p->stopping))
		return;
	for (i = 0; i < p->nr_ws; i++)
		queue_work(p->reint_wq, &p->ws[i].work);
}

/*
 * A workspace's worker: reintegrate regions while there are some it may
 * take (plog_reint_pick()), concurrently with the other workspaces'. A
 * region whose reintegration fails goes to plog_bg_work(): a fix-up if a
 * member of it is unreadable, a recomputation otherwise.
 */
void plog_reint_work(struct work_struct *ws)
{
	struct plog_ws *w = container_of(ws, struct plog_ws, work);
	struct plog *p = w->p;
	struct plog_region *rg;
	int ret;
	u32 r;

	for (;;) {
		mutex_lock(&p->lock);
		r = plog_reint_pick(p, w);
		mutex_unlock(&p->lock);
		if (r == U32_MAX)
			return;
		down_read(&p->op_sem);
		ret = plog_do_reint(w, r);
		up_read(&p->op_sem);

		rg = &p->reg[r];
		mutex_lock(&p->lock);
		rg->reinting = false;
		w->region = U32_MAX;
		w->log_members = 0;
		if (ret && rg->reint) {
			if (rl_unreadable_at(p->a, p->keys[r]))
				rg->fix = true;
			else
				rg->recomp = true;
			if (!p->stopping)
				queue_work(p->bg_wq, &p->bg_work);
		}
		plog_kick(p);
		mutex_unlock(&p->lock);
		/* its log members are free: another workspace may want them */
		plog_kick_reint(p);
	}
}

/*
 * Region @r takes no new access; those in flight end (writers in it that
 * wait for log buffers get them from other regions' reintegrations,
 * which run meanwhile). Not with op_sem held.
 */
static void plog_freeze(struct plog *p, u32 r)
{
	struct plog_region *rg = &p->reg[r];

	mutex_lock(&p->lock);
	while (rg->frozen)
		plog_wait_locked(p);
	rg->frozen = true;
	while (rg->busy || rg->log_busy)
		plog_wait_locked(p);
	mutex_unlock(&p->lock);
}

static void plog_thaw(struct plog *p, u32 r)
{
	mutex_lock(&p->lock);
	p->reg[r].frozen = false;
	plog_kick(p);
	mutex_unlock(&p->lock);
}

/* Every record of frozen region @r reintegrated. op_sem held for writing. */
static int plog_flush_region(struct plog_ws *w, u32 r)
{
	struct plog *p = w->p;
	struct plog_region *rg = &p->reg[r];
	unsigned int i;
	bool has;
	int ret;

	for (i = 0; i < 3; i++) {
		mutex_lock(&p->lock);
		has = rg->cur || rg->queued || rg->disk_segs || rg->reint;
		if (has)
			plog_want_reint(p, r);
		mutex_unlock(&p->lock);
		if (!has)
			return 0;
		ret = plog_do_reint(w, r);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Members of region @r became unreadable (at most f): make its check
 * information whole without them, then serve the region DIRECT. While
 * every sublog has a readable copy the log is reintegrated (for f = 1: the
 * lost member is a data member); otherwise the check information is
 * recomputed from the data (a log member lost, the data whole).
 */
static void plog_fixup(struct plog *p, u32 r)
{
	struct plog_ws *w = &p->ws[0];
	struct rl_array *a = p->a;
	unsigned long bad;
	bool data_bad;
	int ret = 0;

	plog_freeze(p, r);
	down_write(&p->op_sem);
	bad = rl_unreadable_at(a, p->keys[r]);
	if (bad && hweight_long(bad) <= a->redundancy) {
		data_bad = plog_data_bad(p, r, bad);
		if (!plog_log_bad(p, r, bad)) {
			ret = plog_flush_region(w, r);	/* its log is whole */
			/* f = 2: a log read on both copies failed */
			if (ret && !data_bad)
				ret = plog_recompute_truncate(w, r);
		} else if (!data_bad) {
			ret = plog_recompute_truncate(w, r);	/* its log is not */
		} else {
			ret = -EIO;
		}
		if (ret) {
			DMERR("%s: plog region %u: stale parity (%d), member %u's data may be lost",
			      dm_table_device_name(a->ti->table), r, ret,
			      (unsigned int)__ffs(bad));
			plog_truncate(p, r);
		}
	}
	mutex_lock(&p->lock);
	p->reg[r].fix = false;
	if (bad)
		p->reg[r].mode = PLOG_DIRECT;
	mutex_unlock(&p->lock);
	up_write(&p->op_sem);
	plog_thaw(p, r);
}

/*
 * Region @r's reintegration failed with every member readable (a segment
 * that fails its check): its parity from its data, its log dropped.
 */
static void plog_recomp(struct plog *p, u32 r)
{
	plog_freeze(p, r);
	down_write(&p->op_sem);
	if (plog_recompute_truncate(&p->ws[0], r)) {
		DMERR("%s: plog region %u: cannot recompute its parity",
		      dm_table_device_name(p->a->ti->table), r);
		plog_truncate(p, r);
	}
	mutex_lock(&p->lock);
	p->reg[r].recomp = false;
	mutex_unlock(&p->lock);
	up_write(&p->op_sem);
	plog_thaw(p, r);
}

/*
 * The worker of fix-ups, then recomputations of regions whose
 * reintegration failed (plog_reint_work() runs the reintegrations).
 */
void plog_bg_work(struct work_struct *ws)
{
	struct plog *p = container_of(ws, struct plog, bg_work);
	u32 r, fix, recomp;

	for (;;) {
		fix = U32_MAX;
		recomp = U32_MAX;
		mutex_lock(&p->lock);
		for (r = 0; r < p->lo.nr_regions && fix == U32_MAX; r++) {
			if (p->reg[r].fix)
				fix = r;
			else if (p->reg[r].recomp && recomp == U32_MAX)
				recomp = r;
		}
		mutex_unlock(&p->lock);
		if (fix != U32_MAX)
			plog_fixup(p, fix);
		else if (recomp != U32_MAX)
			plog_recomp(p, recomp);
		else
			break;
	}
	/* regions a fix-up or recomputation held back may be taken again */
	plog_kick_reint(p);
}

/* Reintegrate every region with a log (message, suspend). */
int plog_reintegrate_all(struct plog *p)
{
	struct plog_region *rg;
	int ret, err = 0;
	bool has;
	u32 r;

	for (r = 0; r < p->lo.nr_regions; r++) {
		rg = &p->reg[r];
		mutex_lock(&p->lock);
		has = rg->cur || rg->queued || rg->disk_segs || rg->reint;
		mutex_unlock(&p->lock);
		/* a region with an unreadable member is fixed up instead */
		if (!has || rl_unreadable_at(p->a, p->keys[r]))
			continue;
		plog_freeze(p, r);
		down_write(&p->op_sem);
		ret = plog_flush_region(&p->ws[0], r);
		up_write(&p->op_sem);
		plog_thaw(p, r);
		if (ret)
			err = ret;
	}
	return err;
}

/* Member @m's slice of region @r rebuilt from the other data members. */
static int plog_rebuild_member(struct plog_ws *w, u32 r, unsigned int m)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	unsigned int t, mt;
	u32 s0, j, n, row;
	int ret;

	memset(w->parity, 0, (size_t)lo->slice * plog_chunk_bytes(p));
	for (t = 0; t < lo->g; t++) {
		mt = rl_plog_data_member(lo, r, t);
		if (mt == m)
			continue;
		ret = plog_slice_xor(w, r, mt, true);
		if (ret)
			return ret;
	}
	/* every row's chunks xor to zero: m's chunk is the others' xor */
	plog_slot_rows(w, r, m);
	for (s0 = 0; s0 < lo->slice; s0 += n) {
		n = min(w->stage_chunks, lo->slice - s0);
		for (j = 0; j < n; j++) {
			row = w->slot_row[s0 + j];
			if (row != U32_MAX)
				memcpy(plog_stage(w, j), plog_prow(w, row),
				       plog_chunk_bytes(p));
			else
				memset(plog_stage(w, j), 0, plog_chunk_bytes(p));
		}
		ret = plog_slice_io(w, r, m, s0, n, true, RL_DATA_WRITE);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Syndrome positions of @row's chunks on @bad members (RL_NONE if fewer
 * than two): -EIO if more than two.
 */
static int plog_row_missing(struct plog *p, u32 r, u32 row, unsigned long bad,
			    unsigned int *fa, unsigned int *fb)
{
	const struct rl_plog_layout *lo = &p->lo;
	unsigned int k, nr = 0, pos[3];
	struct rl_plog_loc loc;

	for (k = 0; k < lo->cols && nr < 3; k++) {
		rl_plog_row_loc(lo, r, row, k, &loc);
		if (test_bit(loc.member, &bad))
			pos[nr++] = k;
		if (k)
			continue;
		if (nr < 3 && test_bit(loc.pmember, &bad))
			pos[nr++] = lo->cols;
		if (nr < 3 && test_bit(loc.qmember, &bad))
			pos[nr++] = lo->cols + 1;
	}
	if (nr > 2)
		return -EIO;
	*fa = nr > 0 ? pos[0] : RL_NONE;
	*fb = nr > 1 ? pos[1] : RL_NONE;
	return 0;
}

/**
 * plog_pq_solve() - a row's missing chunk from its accumulated check
 * chunks (f = 2)
 * @ptrs: cols + 2 pointers, syndrome order, filled here
 * @cols: data columns of the row
 * @x: its P accumulated with every chunk present (plog_acc()): P ^ the
 *	present data columns if P is present, their xor if not
 * @y: the same for Q
 * @zero: a zeroed chunk
 * @fa: a missing syndrome position
 * @fb: another one (below or above @fa), or RL_NONE
 * @out: two chunks: the missing chunks come out here, @fa's at @out[0]
 * @bytes: chunk bytes
 *
 * The present chunks taken out of the row leave a codeword whose present
 * data columns are zero and whose P and Q are @x and @y where present:
 * lib/raid6 solves it for the missing ones. A missing data column is its
 * chunk; a missing P or Q is the solution xor the accumulated @x or @y.
 * @x and @y may be overwritten; @zero is only read. Pure (KUnit suite
 * dm_raidlab_plog_sync).
 */
void plog_pq_solve(void **ptrs, unsigned int cols, void *x, void *y,
		   void *zero, unsigned int fa, unsigned int fb, void **out,
		   size_t bytes)
{
	unsigned int k, f[2] = { fa, fb };
	void *src, *o[2] = { out[0], out[1] };

	if (fb != RL_NONE && fb < fa) {		/* lib/raid6 wants a < b */
		swap(f[0], f[1]);
		swap(o[0], o[1]);
	}
	for (k = 0; k < cols; k++)
		ptrs[k] = zero;
	ptrs[cols] = x;
	ptrs[cols + 1] = y;
	for (k = 0; k < 2; k++)
		if (f[k] != RL_NONE)
			ptrs[f[k]] = o[k];
	rl_pq_recover_va(ptrs, cols + 2, f[0], f[1], bytes);
	for (k = 0; k < 2; k++) {
		if (f[k] == RL_NONE || f[k] < cols)
			continue;
		src = f[k] == cols ? x : y;
		xor_blocks(1, bytes, o[k], &src);
	}
}

/*
 * f = 2: member @m's slice of region @r rebuilt row by row from the
 * readable members (another may be missing too): each present member's
 * slice accumulated into the rows' P and Q buffers, then each row solved
 * for m's chunk (plog_pq_solve()).
 */
static int plog_rebuild_member_pq(struct plog_ws *w, u32 r, unsigned int m)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	unsigned long bad = rl_unreadable_at(p->a, p->keys[r]);
	void *ptrs[RL_PQ_MAX_DISKS], *out[2];
	unsigned int t, mt, fa, fb;
	u32 s0, j, n, row;
	int ret;

	__set_bit(m, &bad);
	memset(w->parity, 0, plog_check_bytes(p));
	for (t = 0; t < lo->g; t++) {
		mt = rl_plog_data_member(lo, r, t);
		if (test_bit(mt, &bad))
			continue;
		ret = plog_slice_xor(w, r, mt, true);
		if (ret)
			return ret;
	}
	memset(plog_scratch(w, 0), 0, plog_chunk_bytes(p));
	plog_slot_rows(w, r, m);
	for (s0 = 0; s0 < lo->slice; s0 += n) {
		n = min(w->stage_chunks, lo->slice - s0);
		for (j = 0; j < n; j++) {
			row = w->slot_row[s0 + j];
			if (row == U32_MAX) {
				memset(plog_stage(w, j), 0, plog_chunk_bytes(p));
				continue;
			}
			ret = plog_row_missing(p, r, row, bad, &fa, &fb);
			if (ret)
				return ret;
			/* m's chunk comes out in the stage */
			if (fa == w->slot_pos[s0 + j]) {
				out[0] = plog_stage(w, j);
				out[1] = plog_scratch(w, 1);
			} else {
				out[0] = plog_scratch(w, 1);
				out[1] = plog_stage(w, j);
			}
			plog_pq_solve(ptrs, lo->cols, plog_prow(w, row),
				      plog_qrow(w, row), plog_scratch(w, 0),
				      fa, fb, out, plog_chunk_bytes(p));
		}
		ret = plog_slice_io(w, r, m, s0, n, true, RL_DATA_WRITE);
		if (ret)
			return ret;
	}
	return 0;
}

/* Check (and with REPAIR fix) region @r's parity against its data. */
static int plog_check(struct plog_ws *w, u32 r, struct rl_sync_req *req)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	size_t bytes = plog_check_bytes(p), pos;
	u64 region, mismatches = 0;
	unsigned int t;
	int ret;

	plog_parity_read(w, r, 0);
	for (t = 0; t < lo->g; t++) {
		ret = plog_slice_xor(w, r, rl_plog_data_member(lo, r, t), false);
		if (ret)
			return ret;
	}
	/* stored ^ computed: a sector that is not zero mismatches */
	for (pos = 0; pos < bytes; pos += SECTOR_SIZE)
		if (memchr_inv(w->parity + pos, 0, SECTOR_SIZE))
			mismatches++;
	req->mismatches = mismatches;
	if (!mismatches || req->job != RL_SYNC_REPAIR)
		return 0;
	ret = plog_op_intent(p, r, &region);
	if (ret)
		return ret;
	ret = plog_recompute(w, r);
	plog_op_intent_end(p, r, region, !ret);
	return ret;
}

/*
 * ->sync_range: the one region rl_plog_region_at(req->msector), frozen,
 * as the job says; the range reported reaches its key (plog.h, SYNC
 * COORDINATES).
 */
int plog_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct plog *p = plog_of(a);
	struct plog_ws *w = &p->ws[0];
	u32 r = rl_plog_region_at(&p->lo, req->msector);
	int ret = 0;

	req->mismatches = 0;
	if (r >= p->lo.nr_regions) {
		/* past the last region's key: nothing there */
		req->len = max_t(sector_t, 1, a->member_sectors - req->msector);
		rl_sync_advance(a, req);
		return 0;
	}
	plog_freeze(p, r);
	down_write(&p->op_sem);
	switch (req->job) {
	case RL_SYNC_RESYNC:
		ret = plog_recompute_truncate(w, r);
		break;
	case RL_SYNC_CHECK:
	case RL_SYNC_REPAIR:
		ret = plog_flush_region(w, r);
		if (!ret)
			ret = plog_check(w, r, req);
		break;
	case RL_SYNC_REBUILD:
		if (rl_plog_member_role(&p->lo, r, req->target) == RL_NONE &&
		    p->lo.f > 1) {
			/*
			 * its copy of the sublog is gone: the log from the
			 * other copy (nothing, if the fix-up has run), so that
			 * nothing refers to the blank one
			 */
			ret = plog_flush_region(w, r);
			if (ret && !plog_data_bad(p, r, rl_unreadable_at(a, p->keys[r])))
				ret = plog_recompute_truncate(w, r);
		} else if (rl_plog_member_role(&p->lo, r, req->target) == RL_NONE) {
			/* its sublog is gone: the parity from the data */
			ret = plog_recompute_truncate(w, r);
		} else {
			ret = plog_flush_region(w, r);
			if (!ret)
				ret = p->lo.f > 1 ?
				      plog_rebuild_member_pq(w, r, req->target) :
				      plog_rebuild_member(w, r, req->target);
		}
		break;
	default:
		break;
	}
	req->len = p->keys[r] + 1 - req->msector;
	if (!ret)
		rl_sync_advance(a, req);
	up_write(&p->op_sem);
	plog_thaw(p, r);
	return ret;
}

/* ------------------------------------------------------------------------
 * Crash recovery (DAX)
 */

struct plog_twin {
	u32 region;
	u32 seg;
	u64 gen;
	unsigned int idx;
	bool ok;		/* of the generation replayed, checked */
};

/* Recovery scratch: S bits each, and a twin image per pool buffer. */
struct plog_rec_scratch {
	unsigned long *pend;		/* rows of PENDING records unresolved */
	unsigned long *resolved;	/* rows resolved from a data slot */
	const void **segs;		/* a region's twins that checked out */
};

static int plog_twin_cmp(const void *x, const void *y)
{
	const struct plog_twin *a = x, *b = y;

	if (a->region != b->region)
		return a->region < b->region ? -1 : 1;
	if (a->gen != b->gen)
		return a->gen < b->gen ? -1 : 1;
	if (a->seg != b->seg)
		return a->seg < b->seg ? -1 : 1;
	return 0;
}

/*
 * Row @row of region @r: its P (and Q) in w->parity from its data. -EIO,
 * the row untouched, if one of its data chunks is on a @bad member.
 */
static int plog_recompute_row(struct plog_ws *w, u32 r, u32 row,
			      unsigned long bad)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	struct rl_plog_loc loc;
	struct plog_iog g;
	unsigned int k;

	for (k = 0; k < lo->cols; k++) {
		rl_plog_row_loc(lo, r, row, k, &loc);
		if (test_bit(loc.member, &bad))
			return -EIO;
	}
	memset(plog_prow(w, row), 0, plog_chunk_bytes(p));
	if (lo->f > 1)
		memset(plog_qrow(w, row), 0, plog_chunk_bytes(p));
	for (k = 0; k < lo->cols; k++) {
		rl_plog_row_loc(lo, r, row, k, &loc);
		plog_iog_init(&g);
		plog_io(p, &g, loc.member, REQ_OP_READ,
			loc.mchunk << lo->chunk_shift, w->stage,
			1U << lo->chunk_shift, RL_BG, RL_DATA_READ);
		if (plog_iog_wait(p, &g)) {
			plog_iog_fail(p, &g, "read error");
			return -EIO;
		}
		if (is_vmalloc_addr(w->stage))
			invalidate_kernel_vmap_range(w->stage, plog_chunk_bytes(p));
		plog_acc(w, row, k, w->stage);
	}
	return 0;
}

/* Set the rows of a checked segment's records in @rows. */
static void plog_twin_rows(const struct rl_plog_layout *lo, const void *seg,
			   unsigned long *rows)
{
	const struct rl_plog_seg_disk *h = seg;
	unsigned int i;

	for (i = 0; i < le16_to_cpu(h->nr); i++)
		__set_bit(le32_to_cpu(h->recs[i].row), rows);
}

/*
 * Region @r recovered by recomputing all of its parity from its data, the
 * log dropped (generation @gen) before the intent ends.
 */
static int plog_recover_recompute(struct plog_ws *w, u32 r, u64 gen)
{
	struct plog *p = w->p;
	u64 region;
	int ret;

	ret = plog_op_intent(p, r, &region);
	if (ret)
		return ret;
	ret = plog_recompute(w, r);
	if (!ret)
		rl_plog_md_set_region(p->pm, r, gen, 0);
	plog_op_intent_end(p, r, region, !ret);
	return ret;
}

/*
 * Data slot @id (of region @r, resolving its row): its data written again
 * to the row's readable data columns, durably (FUA). -EIO if a write
 * failed (its member is failed).
 */
static int plog_slot_replay(struct plog_ws *w, u32 r,
			    const struct rl_plog_slot_id *id, const void *data,
			    unsigned long bad)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	struct rl_plog_loc loc;
	struct plog_iog g;
	unsigned int k;
	u32 clo, chi;
	size_t at;

	plog_iog_init(&g);
	for (k = 0; k < lo->cols; k++) {
		if (!plog_span(id->off, id->len, lo->chunk_shift, k, &clo, &chi))
			continue;
		rl_plog_row_loc(lo, r, id->row, k, &loc);
		if (test_bit(loc.member, &bad))
			continue;
		at = (((size_t)k << lo->chunk_shift) + clo - id->off) << SECTOR_SHIFT;
		plog_io(p, &g, loc.member, REQ_OP_WRITE | REQ_FUA,
			(loc.mchunk << lo->chunk_shift) + clo,
			(void *)data + at, chi - clo, RL_BG, RL_DATA_WRITE);
	}
	if (plog_iog_wait(p, &g)) {
		plog_iog_fail(p, &g, "write error");
		return -EIO;
	}
	return 0;
}

/*
 * With a data member unreadable: the data slots of region @r that
 * resolve their row (rl_plog_slot_resolves() over the twins [@t, @t + @nt)
 * that checked out) written again, their rows set in sc->resolved; then
 * every checked twin's records applied in log order, the PENDING ones of
 * resolved rows included, the rows of the others set in sc->pend.
 * Returns the rows resolved.
 */
static u32 plog_recover_pending(struct plog_ws *w, u32 r, struct plog_twin *t,
				unsigned int nt, unsigned long bad,
				struct plog_rec_scratch *sc)
{
	struct plog *p = w->p;
	const char *dev = dm_table_device_name(p->a->ti->table);
	const struct rl_plog_slot_id *id;
	unsigned int i, nseg = 0;
	const void *data;
	u32 done = 0;

	bitmap_zero(sc->resolved, p->lo.slice);
	for (i = 0; i < nt; i++)
		if (t[i].ok)
			sc->segs[nseg++] = rl_plog_md_twin(p->pm, t[i].idx);
	for (i = 0; i < rl_plog_md_nr_slots(p->pm); i++) {
		id = rl_plog_md_slot(p->pm, i, &data);
		if (!id || id->region != r ||
		    !rl_plog_slot_resolves(id, sc->segs, nseg))
			continue;
		if (plog_slot_replay(w, r, id, data, bad))
			continue;
		__set_bit(id->row, sc->resolved);
		done++;
	}
	for (i = 0; i < nseg; i++)
		if (rl_plog_apply_resolved(&p->lo, sc->segs[i], w->parity,
					   sc->pend, sc->resolved))
			DMWARN("%s: plog region %u: a twin has a bad record",
			       dev, r);
	if (done)
		DMINFO("%s: plog region %u: %u writes in flight replayed from their data slots",
		       dev, r, done);
	return done;
}

/*
 * Replay region @r: its log on disk (the data behind it was flushed
 * before each segment was written), then the rows of twins [@t, @t + @nt)
 * recomputed from the data; the log dropped (generation @gen) before the
 * write intent ends. @sc is scratch.
 *
 * A log that cannot be read (a log member unreadable, a segment that fails
 * its check, as on a replacement member) or a twin of this generation
 * that fails its check (torn) makes the whole region be recomputed from
 * its data. With a data member unreadable that is impossible: the log is
 * replayed (the parity is left as it is if it cannot be), torn twins are
 * skipped, and twin rows that cannot be recomputed get the twins'
 * records: the COMMITTED ones, and the PENDING ones whose write's data is
 * in its data slot (written again first, plog_recover_pending()); rows
 * with a PENDING record without a slot are lost (counted).
 */
static int plog_recover_region(struct plog_ws *w, u32 r, struct plog_twin *t,
			       unsigned int nt, u64 gen,
			       struct plog_rec_scratch *sc)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	const char *dev = dm_table_device_name(p->a->ti->table);
	struct plog_region *rg = &p->reg[r];
	unsigned long bad = rl_unreadable_at(p->a, p->keys[r]);
	bool data_bad = false, whole = false;
	const char *why;
	unsigned long *pend = sc->pend;
	u64 region;
	u32 row, lost = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < lo->g; i++)
		if (test_bit(rl_plog_data_member(lo, r, i), &bad))
			data_bad = true;
	if (plog_log_bad(p, r, bad)) {
		DMWARN("%s: plog region %u: a log member is unreadable, recomputing it",
		       dev, r);
		whole = true;
	}
	bitmap_zero(w->recompute, lo->slice);
	bitmap_zero(pend, lo->slice);
	if (!whole) {
		plog_parity_read(w, r, bad);
		ret = plog_apply_log(w, r, rg->disk_gen, 0, rg->disk_segs);
		if (ret) {
			DMWARN("%s: plog region %u: log unreadable (%d), recomputing it",
			       dev, r, ret);
			whole = true;
		}
	}
	for (i = 0; i < nt; i++)
		t[i].ok = false;
	for (i = 0; !whole && i < nt; i++) {
		const void *seg = rl_plog_md_twin(p->pm, t[i].idx);

		/* the generation on disk from its last segment on, or the next */
		if (!(t[i].gen == rg->disk_gen && t[i].seg >= rg->disk_segs) &&
		    t[i].gen != rg->disk_gen + 1)
			continue;
		if (rl_plog_seg_check(seg, lo, r, t[i].gen, t[i].seg, false,
				      &why)) {
			DMWARN("%s: plog region %u: twin %u torn (%s)%s",
			       dev, r, t[i].idx, why,
			       data_bad ? "" : ", recomputing the region");
			whole = !data_bad;
			continue;
		}
		/*
		 * A twin's data writes were not flushed, a crash may have
		 * undone them even when COMMITTED: its rows are recomputed
		 * from the data. Its records are applied for rows that
		 * cannot be (a data member unreadable).
		 */
		plog_twin_rows(lo, seg, w->recompute);
		t[i].ok = true;
	}
	if (!whole && data_bad)
		plog_recover_pending(w, r, t, nt, bad, sc);
	if (whole) {
		if (!data_bad)
			return plog_recover_recompute(w, r, gen);
		/* log unreadable, nothing to rebuild from: keep the parity */
		DMERR("%s: plog region %u: log and data both unreadable, its parity may be stale",
		      dev, r);
		rl_plog_md_set_region(p->pm, r, gen, 0);
		return 0;
	}
	for_each_set_bit(row, w->recompute, lo->slice)
		if (plog_recompute_row(w, r, row, bad) &&
		    (!data_bad || test_bit(row, pend)))
			lost++;
	if (lost)
		DMERR("%s: plog region %u: %u rows with a write in flight could not be recomputed",
		      dev, r, lost);
	ret = plog_op_intent(p, r, &region);
	if (ret)
		return ret;
	ret = plog_parity_write(w, r, bad);
	/* dropped before the intent ends: a crash then replays nothing twice */
	rl_plog_md_set_region(p->pm, r, gen, 0);
	plog_op_intent_end(p, r, region, !ret);
	return ret;
}

/*
 * Region @r, whose parity rewrite the crash tore (the region table's
 * mark): its parity recomputed from its data, its log dropped
 * (generation @gen). With a data member unreadable that is impossible:
 * the log is dropped and the parity kept as it is (still marked).
 */
static int plog_recover_torn(struct plog_ws *w, u32 r, u64 gen)
{
	struct plog *p = w->p;
	const char *dev = dm_table_device_name(p->a->ti->table);

	if (!plog_data_bad(p, r, rl_unreadable_at(p->a, p->keys[r]))) {
		DMWARN("%s: plog region %u: a parity rewrite was torn, recomputing it",
		       dev, r);
		return plog_recover_recompute(w, r, gen);
	}
	DMERR("%s: plog region %u: rewrite torn, data member unreadable, parity kept",
	      dev, r);
	rl_plog_md_set_region(p->pm, r, gen, 0);
	return 0;
}

/*
 * At construction: every region's state from the region table, and with
 * DAX what a crash left replayed. A region whose parity rewrite the crash
 * tore (marked in the region table) is recomputed from its data, its log
 * dropped; any other region's log is replayed, whether its write-intent
 * bit is set or not (the bits clear lazily, after the rewrite is done).
 */
int plog_recover(struct plog *p, char **error)
{
	struct plog_ws *w = &p->ws[0];
	struct plog_twin *tw = NULL;
	struct plog_rec_scratch sc;
	unsigned int i, nt = 0, first;
	struct plog_region *rg;
	u64 gen, maxgen;
	u32 r, segs;
	int ret = 0;

	for (r = 0; r < p->lo.nr_regions; r++) {
		rg = &p->reg[r];
		rg->mode = PLOG_LOG;
		if (p->pm) {
			rl_plog_md_region(p->pm, r, &gen, &segs);
			rg->gen = gen;
			rg->disk_gen = gen;
			rg->disk_segs = segs;
		}
	}
	if (!p->pm)
		return 0;

	tw = kvcalloc(p->pool.nr, sizeof(*tw), GFP_KERNEL);
	sc.pend = bitmap_zalloc(p->lo.slice, GFP_KERNEL);
	sc.resolved = bitmap_zalloc(p->lo.slice, GFP_KERNEL);
	sc.segs = kvcalloc(p->pool.nr, sizeof(*sc.segs), GFP_KERNEL);
	if (!tw || !sc.pend || !sc.resolved || !sc.segs) {
		ret = -ENOMEM;
		*error = "Cannot allocate plog recovery state";
		goto out;
	}
	for (i = 0; i < p->pool.nr; i++) {
		const struct rl_plog_seg_disk *h = rl_plog_md_twin(p->pm, i);

		if (!h || le64_to_cpu(h->region) >= p->lo.nr_regions)
			continue;
		tw[nt].region = le64_to_cpu(h->region);
		tw[nt].gen = le64_to_cpu(h->gen);
		tw[nt].seg = le32_to_cpu(h->seg);
		tw[nt].idx = i;
		nt++;
	}
	sort(tw, nt, sizeof(*tw), plog_twin_cmp, NULL);

	for (i = 0, r = 0; r < p->lo.nr_regions; r++) {
		rg = &p->reg[r];
		first = i;
		maxgen = rg->disk_gen;
		while (i < nt && tw[i].region == r)
			maxgen = max(maxgen, tw[i++].gen);
		if (rl_plog_md_rewrite(p->pm, r))
			ret = plog_recover_torn(w, r, maxgen + 1);
		else if (rg->disk_segs || i != first)
			ret = plog_recover_region(w, r, tw + first, i - first,
						  maxgen + 1, &sc);
		else
			continue;
		if (ret) {
			*error = "plog: cannot replay the parity log";
			break;
		}
		rl_plog_md_set_region(p->pm, r, maxgen + 1, 0);
		rg->gen = maxgen + 1;
		rg->disk_gen = maxgen + 1;
		rg->disk_segs = 0;
	}
	/* replayed or stale: every twin is free again */
	for (i = 0; !ret && i < nt; i++)
		rl_plog_md_release(p->pm, &p->pool.bufs[tw[i].idx]);
out:
	/* the slots' copies are not needed past the replay */
	rl_plog_md_slots_done(p->pm);
	kvfree(sc.segs);
	bitmap_free(sc.resolved);
	bitmap_free(sc.pend);
	kvfree(tw);
	return ret;
}
