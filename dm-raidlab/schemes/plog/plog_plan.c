// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: the records a write appends, planned (pure, KUnit suite
 * dm_raidlab_plog). f = 1: one record, an UPDATE over the hull of the
 * columns a partial-row write touches, or an OVERWRITE with a full row's
 * new parity. f = 2: an UPDATE per column touched, or OVERWRITEs of P and
 * Q. plog_plan_bufs() counts the fresh log buffers the records need, so
 * that a context knows what it waits for before it appends.
 */
#include "plog_int.h"

/**
 * plog_span() - the part of a column an access to a row touches
 * @off: the access's first sector in the row
 * @len: its sectors
 * @chunk_shift: chunk = 1 << chunk_shift sectors
 * @k: a data column
 * @lo: set to the first sector touched within the column's chunk
 * @hi: and the end
 *
 * Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: false if the access does not touch column @k.
 */
bool plog_span(u32 off, u32 len, unsigned int chunk_shift, unsigned int k,
	       u32 *lo, u32 *hi)
{
	u32 s = k << chunk_shift, e = s + (1U << chunk_shift);

	if (off + len <= s || off >= e)
		return false;
	*lo = max(off, s) - s;
	*hi = min(off + len, e) - s;
	return true;
}

static void plog_plan_set(struct plog_rec_plan *pl, enum rl_plog_rec_type type,
			  unsigned int col, unsigned int src, u32 lo, u32 hi)
{
	pl->type = type;
	pl->col = col;
	pl->src = src;
	pl->lo = lo;
	pl->hi = hi;
}

/**
 * plog_plan_recs() - the records a write to a row appends to the log
 * @lo: the layout (f, cols, g, chunk_shift)
 * @off: the write's first sector in the row
 * @len: its sectors, within the row
 * @plan: set to the records, in append order (at most max(cols, 2))
 *
 * f = 1: one record, its payload in the delta buffer (src g): for a full
 * row an OVERWRITE with the row's new parity, else an UPDATE with the
 * parity's update image over the hull of the columns touched. f = 2: for
 * a full row an OVERWRITE of P (col 0, src cols) and one of Q (col 1, src
 * cols + 1); else an UPDATE per column k touched, its old ^ new over its
 * own span (col k, src k). Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: the number of records.
 */
unsigned int plog_plan_recs(const struct rl_plog_layout *lo, u32 off, u32 len,
			    struct plog_rec_plan *plan)
{
	u32 cs = 1U << lo->chunk_shift, l, h, hlo = cs, hhi = 0;
	unsigned int k, nr = 0;

	if (!off && len == lo->cols * cs) {
		if (lo->f == 1) {
			plog_plan_set(plan, RL_PLOG_OVERWRITE, 0, lo->g, 0, cs);
			return 1;
		}
		plog_plan_set(&plan[0], RL_PLOG_OVERWRITE, 0, lo->cols, 0, cs);
		plog_plan_set(&plan[1], RL_PLOG_OVERWRITE, 1, lo->cols + 1, 0, cs);
		return 2;
	}
	for (k = 0; k < lo->cols; k++) {
		if (!plog_span(off, len, lo->chunk_shift, k, &l, &h))
			continue;
		if (lo->f == 1) {
			hlo = min(hlo, l);
			hhi = max(hhi, h);
			continue;
		}
		plog_plan_set(&plan[nr++], RL_PLOG_UPDATE, k, k, l, h);
	}
	if (lo->f == 1 && hhi > hlo)
		plog_plan_set(&plan[nr++], RL_PLOG_UPDATE, 0, lo->g, hlo, hhi);
	return nr;
}

/**
 * plog_plan_bufs() - the fresh log buffers a plan needs
 * @lo: the layout
 * @seg: the region's current buffer's image, or NULL if it has none
 * @plan: records, appended in order: to @seg while they fit (descriptors
 *	and payload), then each to a fresh buffer once the last one is full
 * @nr: how many
 *
 * Pure (KUnit suite dm_raidlab_plog).
 *
 * Return: the fresh buffers the records take (0: they all fit @seg).
 */
unsigned int plog_plan_bufs(const struct rl_plog_layout *lo, const void *seg,
			    const struct plog_rec_plan *plan, unsigned int nr)
{
	const struct rl_plog_seg_disk *h = seg;
	u32 max = lo->seg_sectors - lo->hdr_sectors, used, len;
	unsigned int i, recs, bufs = 0;

	/* no buffer: as one that is full */
	recs = h ? le16_to_cpu(h->nr) : lo->max_recs;
	used = h ? le32_to_cpu(h->payload_sectors) : max;
	for (i = 0; i < nr; i++) {
		len = plan[i].hi - plan[i].lo;
		if (recs >= lo->max_recs || used > max || len > max - used) {
			bufs++;
			recs = 0;
			used = 0;
		}
		recs++;
		used += len;
	}
	return bufs;
}
