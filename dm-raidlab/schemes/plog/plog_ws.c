// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: region operations' workspaces and the I/O they do.
 *
 * A workspace (struct plog_ws) holds one region's check information, a
 * staging buffer and a window of log segments; this file allocates it
 * and reads and writes through it: a member's slice of a region, the
 * parity slots, log segments (each checked, copy 1 when copy 0 fails),
 * a generation's records applied, the parity recomputed from the data.
 * The operations themselves are in plog_reint.c and plog_bg.c.
 */
#include <linux/raid/xor.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../svc/parity.h"
#include "plog_int.h"

static void plog_xor_chunk(struct plog *p, void *dst, void *src)
{
	xor_blocks(1, plog_chunk_bytes(p), dst, &src);
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
static void plog_bg_io(struct plog *p, struct rl_mio_group *g, unsigned int m,
		       blk_opf_t opf, sector_t msector, void *buf,
		       unsigned int sectors, enum rl_io_kind kind)
{
	unsigned int n;

	for (; sectors; sectors -= n) {
		n = min_t(unsigned int, sectors, PLOG_BG_PIECE);
		rl_mio(g, m, opf, msector, buf, n, RL_BG, kind);
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
void plog_acc(struct plog_ws *w, u32 row, unsigned int pos, void *chunk)
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

int plog_ws_alloc(struct plog *p, struct plog_ws *w)
{
	const struct rl_plog_layout *lo = &p->lo;
	u32 scratch = lo->f > 1 ? PLOG_NR_SCRATCH : 0;

	w->p = p;
	w->region = U32_MAX;
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

void plog_ws_free(struct plog_ws *w)
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
void plog_slot_rows(struct plog_ws *w, u32 r, unsigned int m)
{
	plog_fill_slot_map(&w->p->lo, r, m, w->slot_row, w->slot_pos);
}

/* Slots [s0, s0 + n) of region @r's slice on @m, from or into the stage. */
int plog_slice_io(struct plog_ws *w, u32 r, unsigned int m, u32 s0, u32 n,
		  bool write, enum rl_io_kind kind)
{
	struct plog *p = w->p;
	u64 start = rl_plog_region_start(&p->lo, m, r) + s0;
	unsigned long failed;
	struct rl_mio_group g;

	rl_mio_init(&g, p->a, &p->bs);
	rl_mio(&g, m, write ? REQ_OP_WRITE | REQ_FUA : REQ_OP_READ,
	       start << p->lo.chunk_shift, w->stage, n << p->lo.chunk_shift,
	       RL_BG, kind);
	failed = rl_mio_wait(&g);
	if (failed) {
		rl_mio_fail(&g, write ? "write error" : "read error");
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
int plog_slice_xor(struct plog_ws *w, u32 r, unsigned int m,
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
	struct rl_mio_group g;
	unsigned long failed;
	unsigned int t, m;

	rl_mio_init(&g, p->a, &p->bs);
	for (t = 0; t < lo->g; t++) {
		m = rl_plog_data_member(lo, r, t);
		if (test_bit(m, &bad))
			continue;
		plog_bg_io(p, &g, m, write ? REQ_OP_WRITE | REQ_FUA : REQ_OP_READ,
			   (rl_plog_region_start(lo, m, r) + first) << lo->chunk_shift,
			   plog_pstage(w, t), n << lo->chunk_shift,
			   write ? RL_PARITY_WRITE : RL_PARITY_READ);
	}
	failed = rl_mio_wait(&g);
	rl_mio_fail(&g, write ? "write error" : "read error");
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
void plog_parity_read(struct plog_ws *w, u32 r, unsigned long bad)
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
int plog_parity_write(struct plog_ws *w, u32 r, unsigned long bad)
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
	return rl_array_alive(p->a) ? 0 : -EIO;
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
	struct rl_mio_group g;
	const char *why;
	int ret = -EIO;
	u64 msector;

	for (c = 0; c < lo->f; c++) {
		rl_plog_seg_loc(lo, r, s, c, &m, &msector);
		if (lo->f > 1 && test_bit(m, &bad))
			continue;
		rl_mio_init(&g, p->a, &p->bs);
		rl_mio(&g, m, REQ_OP_READ, msector, w->stage,
		       lo->seg_sectors, RL_BG, RL_PARITY_READ);
		if (rl_mio_wait(&g)) {
			rl_mio_fail(&g, "log read error");
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
	struct rl_mio_group g;
	u64 msector;

	*miss = 0;
	rl_mio_init(&g, p->a, &p->bs);
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
	failed = rl_mio_wait(&g);
	rl_mio_fail(&g, "log read error");
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
int plog_apply_log(struct plog_ws *w, u32 r, u64 gen, u32 s0, u32 segs)
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
int plog_recompute(struct plog_ws *w, u32 r)
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
