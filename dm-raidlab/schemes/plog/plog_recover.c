// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: crash recovery at construction (DAX metadata).
 *
 * Each region's segments on disk are applied (the data members were
 * flushed before each segment was written: its records describe durable
 * data); the rows of the records in the twins of buffers that held its
 * records are recomputed from the data (their data writes may sit in a
 * volatile cache a crash empties, COMMITTED or not); the parity is
 * written and the log truncated. Rows a data slot resolves are written
 * from the slot instead.
 */
#include <linux/raid/xor.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "plog_int.h"

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
 * the row untouched, if one of its data chunks is on a @bad member; -EIO
 * with the row's P (and Q) half computed if a read fails (the member is
 * failed then: plog_recover_region() starts the region again).
 */
static int plog_recompute_row(struct plog_ws *w, u32 r, u32 row,
			      unsigned long bad)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	struct rl_plog_loc loc;
	struct rl_mio_group g;
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
		rl_mio_init(&g, p->a, &p->bs);
		rl_mio(&g, loc.member, REQ_OP_READ,
		       loc.mchunk << lo->chunk_shift, w->stage,
		       1U << lo->chunk_shift, RL_BG, RL_DATA_READ);
		if (rl_mio_wait(&g)) {
			rl_mio_fail(&g, "read error");
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
	struct rl_mio_group g;
	unsigned int k;
	u32 clo, chi;
	size_t at;

	rl_mio_init(&g, p->a, &p->bs);
	for (k = 0; k < lo->cols; k++) {
		if (!plog_span(id->off, id->len, lo->chunk_shift, k, &clo, &chi))
			continue;
		rl_plog_row_loc(lo, r, id->row, k, &loc);
		if (test_bit(loc.member, &bad))
			continue;
		at = (((size_t)k << lo->chunk_shift) + clo - id->off) << SECTOR_SHIFT;
		rl_mio(&g, loc.member, REQ_OP_WRITE | REQ_FUA,
		       (loc.mchunk << lo->chunk_shift) + clo,
		       (void *)data + at, chi - clo, RL_BG, RL_DATA_WRITE);
	}
	if (rl_mio_wait(&g)) {
		rl_mio_fail(&g, "write error");
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
 * Region @r's twins of the generation on disk (from its last segment on)
 * or the next, checked: each that checks out is ok and marks its rows for
 * recomputation in w->recompute. Returns true if the whole region is to be
 * recomputed (a twin is torn and the data is whole).
 */
static bool plog_recover_twins(struct plog_ws *w, u32 r, struct plog_twin *t,
			       unsigned int nt, bool data_bad)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	struct plog_region *rg = &p->reg[r];
	bool whole = false;
	const char *why;
	unsigned int i;

	for (i = 0; !whole && i < nt; i++) {
		const void *seg = rl_plog_md_twin(p->pm, t[i].idx);

		/* the generation on disk from its last segment on, or the next */
		if (!(t[i].gen == rg->disk_gen && t[i].seg >= rg->disk_segs) &&
		    t[i].gen != rg->disk_gen + 1)
			continue;
		if (rl_plog_seg_check(seg, lo, r, t[i].gen, t[i].seg, false,
				      &why)) {
			DMWARN("%s: plog region %u: twin %u torn (%s)%s",
			       dm_table_device_name(p->a->ti->table), r,
			       t[i].idx, why,
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
	return whole;
}

/*
 * The rows marked in w->recompute recomputed from the data (a row a data
 * member cannot give counts as lost if a write was in flight in it,
 * @pend), then region @r's parity written under an intent and its log
 * dropped: generation @gen, no segment.
 */
static int plog_recover_rows(struct plog_ws *w, u32 r, u64 gen,
			     unsigned long bad, bool data_bad,
			     const unsigned long *pend)
{
	struct plog *p = w->p;
	u32 row, lost = 0;
	u64 region;
	int ret;

	for_each_set_bit(row, w->recompute, p->lo.slice)
		if (plog_recompute_row(w, r, row, bad) &&
		    (!data_bad || test_bit(row, pend)))
			lost++;
	/* a member failed on the way: nothing written yet, start again */
	if (rl_unreadable_at(p->a, p->keys[r]) != bad)
		return -EAGAIN;
	if (lost)
		DMERR("%s: plog region %u: %u rows with a write in flight could not be recomputed",
		      dm_table_device_name(p->a->ti->table), r, lost);
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
static int __plog_recover_region(struct plog_ws *w, u32 r,
				 struct plog_twin *t, unsigned int nt, u64 gen,
				 struct plog_rec_scratch *sc)
{
	struct plog *p = w->p;
	const struct rl_plog_layout *lo = &p->lo;
	const char *dev = dm_table_device_name(p->a->ti->table);
	struct plog_region *rg = &p->reg[r];
	unsigned long bad = rl_unreadable_at(p->a, p->keys[r]);
	bool data_bad = false, whole = false;
	unsigned long *pend = sc->pend;
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
	if (!whole)
		whole = plog_recover_twins(w, r, t, nt, data_bad);
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
	return plog_recover_rows(w, r, gen, bad, data_bad, pend);
}

/*
 * Region @r recovered (__plog_recover_region()) with the members known
 * unreadable when it starts. A member that fails on the way (a parity or
 * data read) was read as good: its log records would be missing from the
 * parity, and its rows half recomputed. Nothing is written to the parity
 * before the end (a data slot written again is written again the same),
 * so the region starts again with that member known, at most once per
 * member.
 */
static int plog_recover_region(struct plog_ws *w, u32 r, struct plog_twin *t,
			       unsigned int nt, u64 gen,
			       struct plog_rec_scratch *sc)
{
	struct plog *p = w->p;
	unsigned int tries;
	int ret;

	for (tries = 0; tries <= p->a->geom.nr_members; tries++) {
		ret = __plog_recover_region(w, r, t, nt, gen, sc);
		if (ret != -EAGAIN)
			return ret;
		DMWARN("%s: plog region %u: a member failed during its replay, starting it again",
		       dm_table_device_name(p->a->ti->table), r);
	}
	return -EIO;
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
