// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: the region operations other than reintegration,
 * each with the region frozen and alone (op_sem write, workspace 0):
 * a region's repair (the fix-up of a region with an unreadable member,
 * the recomputation of one whose reintegration failed; the sync service's
 * work items, plog_get_work() and plog_do_work()), the fix-ups a
 * member failure asks for (plog_want_fixups()), reintegrate-all
 * (message, suspend),
 * and the background jobs' rebuild, check and repair (plog_sync_range()).
 * Also the workspaces' setup (plog_region_ops_init()).
 */
#include <linux/raid/xor.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../svc/parity.h"
#include "plog_int.h"

int plog_region_ops_init(struct plog *p)
{
	unsigned int i;
	int ret;

	p->nr_ws = plog_nr_ws(p->lo.n, p->lo.f * p->lo.l, plog_ws_bytes(&p->lo));
	p->ws = kcalloc(p->nr_ws, sizeof(*p->ws), GFP_KERNEL);
	if (!p->ws)
		return -ENOMEM;
	for (i = 0; i < p->nr_ws; i++) {
		INIT_WORK(&p->ws[i].work, plog_reint_work);
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

/* Whether region @rg holds records, in RAM or on disk. p->lock held. */
static bool plog_has_log(const struct plog_region *rg)
{
	return rg->cur || rg->queued || rg->disk_segs || rg->rs != PLOG_RS_OPEN;
}

/*
 * Members failed (->member_failed): every used region with records asks
 * for its fix-up now rather than at its next access. Its logged parity
 * changes then reach its parity, or its parity is recomputed from the
 * data, so that its redundancy no longer rests on the log (a read error
 * in a segment can no longer cost the failed member's data), and the log
 * buffers bound for a lost sublog go back to the pool. These fix-ups come
 * after every repair something waits for: an access to a region raises
 * its own (plog_enter()). Returns the number of regions asked. Takes
 * p->lock.
 */
u32 plog_want_fixups(struct plog *p)
{
	u32 r, n = 0;

	mutex_lock(&p->lock);
	for (r = 0; r < p->used_regions; r++) {
		if (plog_has_log(&p->reg[r])) {
			plog_want_repair(p, r, PLOG_REPAIR_FIX_IDLE);
			n++;
		}
	}
	mutex_unlock(&p->lock);
	return n;
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
		has = plog_has_log(rg);
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
	if (bad) {
		mutex_lock(&p->lock);
		p->reg[r].mode = PLOG_DIRECT;
		mutex_unlock(&p->lock);
	}
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
	up_write(&p->op_sem);
	plog_thaw(p, r);
}

/*
 * The repair of region @r at @level: a fix-up while a member of it is
 * unreadable, whatever was asked (it covers the recomputation), at either
 * fix-up level; a recomputation if that was asked and every member is
 * readable; nothing for a fix-up whose members came back. The request
 * stays up while the repair runs (plog_reint_pick() passes the region
 * over); a higher one made meanwhile is served next.
 */
static void plog_repair(struct plog *p, u32 r, enum plog_repair level)
{
	if (rl_unreadable_at(p->a, p->keys[r]))
		plog_fixup(p, r);
	else if (level == PLOG_REPAIR_RECOMP)
		plog_recomp(p, r);
	mutex_lock(&p->lock);
	if (p->reg[r].repair <= level)
		p->reg[r].repair = PLOG_REPAIR_NONE;
	mutex_unlock(&p->lock);
}

/*
 * ->get_work: the region that waits for the highest repair, fix-ups before
 * recomputations (the lowest such region of equals), in @w->key, its level
 * in @w->op. plog_reint_work() runs the reintegrations.
 */
bool plog_get_work(struct rl_array *a, struct rl_work *w)
{
	struct plog *p = plog_of(a);
	enum plog_repair level = PLOG_REPAIR_NONE;
	u32 r, best = U32_MAX;

	mutex_lock(&p->lock);
	for (r = 0; r < p->lo.nr_regions; r++) {
		if (p->reg[r].repair > level) {
			level = p->reg[r].repair;
			best = r;
		}
	}
	mutex_unlock(&p->lock);
	if (best == U32_MAX)
		return false;
	w->key = best;
	w->op = level;
	return true;
}

/* ->do_work: the repair; regions it held back may be taken again. */
void plog_do_work(struct rl_array *a, const struct rl_work *w)
{
	struct plog *p = plog_of(a);

	plog_repair(p, w->key, w->op);
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
		has = plog_has_log(rg);
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
 * COORDINATES). Regions past the target's length hold no data, no parity
 * anyone reads and no log (the layout keeps a region's log in its own
 * span): a job ends at the last region the length reaches, so that an
 * array shorter than its capacity syncs in proportion to its length.
 */
int plog_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct plog *p = plog_of(a);
	struct plog_ws *w = &p->ws[0];
	u32 r = rl_plog_region_at(&p->lo, req->msector);
	int ret = 0;

	req->mismatches = 0;
	if (r >= p->used_regions) {
		/* past the last used region's key: nothing there */
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
