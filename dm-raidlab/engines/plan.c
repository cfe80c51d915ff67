// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab access plans for the parity schemes: single parity (raid4,
 * raid5) and double parity, P and Q (raid6).
 *
 * Everything here is pure: the mapping of logical sectors through a parity
 * layout, the plan of one access to one row (which member ranges to read,
 * how the parity is formed, which ranges to write), and the in-memory step
 * that carries a plan out on chunk buffers. The stripe engine (stripe.c)
 * does the I/O around them; the KUnit suite dm_raidlab_plan runs plans
 * against an in-memory row.
 */
#include <linux/highmem.h>

#include "../svc/layout.h"
#include "../svc/parity.h"
#include "stripe.h"

static_assert(RL_PQ_MAX_DISKS >= RL_MAX_MEMBERS);

/* ------------------------------------------------------------------------
 * Pure layout helpers
 */

/* The row of @lsector, and its data column in @col if not NULL. */
u64 rl_row_of(const struct rl_geom *g, sector_t lsector, unsigned int *col)
{
	u32 rem;
	u64 row = div_u64_rem(lsector >> g->chunk_shift, g->nr_data, &rem);

	if (col)
		*col = rem;
	return row;
}

void rl_stripe_map_sector(const struct rl_geom *g, sector_t lsector,
			  struct rl_loc *loc)
{
	const struct rl_parity_layout *l = g->layout;
	sector_t mask = rl_chunk_sectors(g) - 1;

	loc->row = rl_row_of(g, lsector, &loc->col);
	loc->member = l->data_member(g, loc->row, loc->col);
	loc->sector = g->data_offset + (loc->row << g->chunk_shift) +
		      (lsector & mask);
}

/* One parity chunk in each row, two with a Q (raid6). */
int rl_stripe_capacity(struct rl_array *a, sector_t len, char **error)
{
	unsigned int nr_check = a->geom.layout->q_member ? 2 : 1;

	return rl_size_rows(a, a->geom.nr_members - nr_check, len, error);
}

/* The data, then P and Q at the same offset in their chunks. */
void rl_stripe_locate(struct rl_array *a, sector_t lsector,
		      struct rl_locset *ls)
{
	const struct rl_geom *g = &a->geom;
	const struct rl_parity_layout *l = g->layout;
	struct rl_loc loc;

	rl_stripe_map_sector(g, lsector, &loc);
	rl_locset_init(ls, rl_chunk_left(g, lsector), loc.row, loc.col);
	rl_locset_add(ls, loc.member, loc.sector, RL_PART_DATA);
	rl_locset_add(ls, l->parity_member(g, loc.row), loc.sector, RL_PART_P);
	if (l->q_member)
		rl_locset_add(ls, l->q_member(g, loc.row), loc.sector,
			      RL_PART_Q);
}

enum rl_part rl_stripe_owner(struct rl_array *a, unsigned int member,
			     sector_t msector, sector_t *lsector)
{
	const struct rl_geom *g = &a->geom;
	const struct rl_parity_layout *l = g->layout;
	sector_t mask = rl_chunk_sectors(g) - 1;
	unsigned int col;
	u64 row;

	msector -= g->data_offset;
	row = msector >> g->chunk_shift;
	col = l->member_col(g, row, member);
	if (col == RL_NONE)
		return member == l->parity_member(g, row) ? RL_PART_P : RL_PART_Q;
	*lsector = ((row * g->nr_data + col) << g->chunk_shift) +
		   (msector & mask);
	return RL_PART_DATA;
}

/* ------------------------------------------------------------------------
 * Access planning (pure)
 */

static void rl_plan_read(struct rl_plan *p, unsigned int m, struct rl_span s)
{
	p->read[m] = s;
	p->nr_reads++;
}

static void rl_plan_write(struct rl_plan *p, unsigned int m, struct rl_span s)
{
	p->write[m] = s;
	p->nr_writes++;
}

/* Read (or write) every member range the access itself lands on. */
static void rl_plan_bio_io(const struct rl_geom *g, struct rl_plan *p,
			   bool write)
{
	unsigned int m;

	for (m = 0; m < g->nr_members; m++) {
		if (rl_span_empty(p->bio[m]))
			continue;
		if (write)
			rl_plan_write(p, m, p->bio[m]);
		else
			rl_plan_read(p, m, p->bio[m]);
	}
}

/* Plan a reconstruct-write of the parity range: read what is not rewritten. */
static void rl_plan_rcw(const struct rl_parity_layout *l,
			const struct rl_geom *g, struct rl_plan *p)
{
	unsigned int k, m;

	p->mode = RL_PLAN_RCW;
	for (k = 0; k < g->nr_data; k++) {
		m = l->data_member(g, p->row, k);
		if (p->bio[m].lo != p->prange.lo || p->bio[m].hi != p->prange.hi)
			rl_plan_read(p, m, p->prange);
	}
}

static void rl_plan_init(const struct rl_geom *g, u64 row, struct rl_plan *p)
{
	const struct rl_parity_layout *l = g->layout;

	memset(p, 0, sizeof(*p));
	p->row = row;
	p->pmember = l->parity_member(g, row);
	p->qmember = l->q_member ? l->q_member(g, row) : RL_NONE;
	p->missing = RL_NONE;
	p->missing2 = RL_NONE;
	p->prange.lo = rl_chunk_sectors(g);
}

/* Members the layout's parity survives the loss of: one, or two for P+Q. */
static unsigned int rl_plan_redundancy(const struct rl_plan *p)
{
	return p->qmember == RL_NONE ? 1 : 2;
}

/* Every member not in @failed is read over the parity range. */
static void rl_plan_read_live(const struct rl_geom *g, struct rl_plan *p,
			      unsigned long failed)
{
	unsigned int m;

	for (m = 0; m < g->nr_members; m++)
		if (!test_bit(m, &failed))
			rl_plan_read(p, m, p->prange);
}

/* The members of @failed are rebuilt in memory: missing, then missing2. */
static void rl_plan_set_missing(struct rl_plan *p, unsigned long failed)
{
	if (!failed)
		return;
	p->missing = __ffs(failed);
	failed &= failed - 1;
	if (failed)
		p->missing2 = __ffs(failed);
}

/**
 * rl_plan_rebuild() - plan the rebuild of one member's chunk of a row
 * @g: geometry, with its parity layout
 * @row: the row
 * @target: the member to rebuild and write
 * @failed: bitmap of members that cannot be read, @target among them
 * @p: the plan
 *
 * Every member not in @failed is read whole; the failed ones are rebuilt in
 * memory (two at most with P+Q), and @target alone is written.
 *
 * Return: 0, or -EIO if @target is not in @failed or the row has lost more
 * members than its parity rebuilds.
 */
int rl_plan_rebuild(const struct rl_geom *g, u64 row, unsigned int target,
		    unsigned long failed, struct rl_plan *p)
{
	rl_plan_init(g, row, p);
	failed &= GENMASK(g->nr_members - 1, 0);
	if (target >= g->nr_members || !test_bit(target, &failed) ||
	    hweight_long(failed) > rl_plan_redundancy(p))
		return -EIO;
	p->mode = RL_PLAN_REBUILD;
	p->prange.lo = 0;
	p->prange.hi = rl_chunk_sectors(g);
	rl_plan_set_missing(p, failed & ~BIT(target));
	p->missing2 = p->missing;
	p->missing = target;
	rl_plan_read_live(g, p, failed);
	rl_plan_write(p, target, p->prange);
	return 0;
}

/*
 * Where the access lands in the row: its span in each data member, and the
 * parity range, their hull. Returns the failed members it lands on.
 */
static unsigned long rl_plan_spans(const struct rl_geom *g, struct rl_plan *p,
				   u32 off, u32 len, unsigned long failed)
{
	const struct rl_parity_layout *l = g->layout;
	u32 chunk = rl_chunk_sectors(g);
	unsigned long hit = 0;
	unsigned int k, m;

	for (k = off >> g->chunk_shift; k <= (off + len - 1) >> g->chunk_shift; k++) {
		u32 s = max_t(u32, off, k * chunk) - k * chunk;
		u32 e = min_t(u32, off + len, (k + 1) * chunk) - k * chunk;

		m = l->data_member(g, p->row, k);
		p->bio[m].lo = s;
		p->bio[m].hi = e;
		p->prange.lo = min(p->prange.lo, s);
		p->prange.hi = max(p->prange.hi, e);
		if (test_bit(m, &failed))
			__set_bit(m, &hit);
	}
	return hit;
}

/*
 * The reads each way of writing a row costs, added to *rmw_reads (the
 * caller's count of parity reads) and *rcw_reads: read-modify-write reads
 * the old data under the access; reconstruct-write every data column not
 * wholly overwritten. Returns false if reconstruct-write would need a
 * failed column.
 */
static bool rl_plan_costs(const struct rl_parity_layout *l,
			  const struct rl_geom *g, u64 row,
			  const struct rl_plan *p, unsigned long failed,
			  unsigned int *rmw_reads, unsigned int *rcw_reads)
{
	bool rcw_ok = true;
	unsigned int k, m;

	for (m = 0; m < g->nr_members; m++)
		if (!rl_span_empty(p->bio[m]))
			(*rmw_reads)++;
	for (k = 0; k < g->nr_data; k++) {
		m = l->data_member(g, row, k);
		if (p->bio[m].lo == p->prange.lo && p->bio[m].hi == p->prange.hi)
			continue;
		if (test_bit(m, &failed))
			rcw_ok = false;
		(*rcw_reads)++;
	}
	return rcw_ok;
}

/*
 * A write with a parity member alive (P, or P or Q) and no more members
 * failed than the row survives: read-modify-write, reconstruct-write (a
 * full row is one), or a reconstruct-write around lost columns; then the
 * writes. @hit: a column the access writes is failed.
 */
static void rl_plan_write_parity(const struct rl_geom *g, u64 row,
				 unsigned int flags, unsigned long failed,
				 bool hit, struct rl_plan *p)
{
	const struct rl_parity_layout *l = g->layout;
	bool pq = p->qmember != RL_NONE;
	bool p_ok = !test_bit(p->pmember, &failed);
	bool q_ok = pq && !test_bit(p->qmember, &failed);
	unsigned int m, rmw_reads = pq ? 2 : 1, rcw_reads = 0;
	bool rmw_ok, rcw_ok;

	if ((flags & RL_PLAN_FULL_ROW) && !failed) {
		p->prange.lo = 0;
		p->prange.hi = rl_chunk_sectors(g);
		rl_plan_rcw(l, g, p);
		goto writes;
	}
	rmw_ok = p_ok && (q_ok || !pq) && !hit;
	rcw_ok = rl_plan_costs(l, g, row, p, failed, &rmw_reads, &rcw_reads);
	if (rmw_ok && (!rcw_ok || rmw_reads <= rcw_reads)) {
		p->mode = RL_PLAN_RMW;
		rl_plan_read(p, p->pmember, p->prange);
		if (pq)
			rl_plan_read(p, p->qmember, p->prange);
		rl_plan_bio_io(g, p, false);
	} else if (rcw_ok) {
		rl_plan_rcw(l, g, p);
	} else {
		/* a column the parity needs is lost: rebuild what is */
		p->mode = RL_PLAN_RECON_WRITE;
		rl_plan_set_missing(p, failed);
		rl_plan_read_live(g, p, failed);
	}
writes:
	for (m = 0; m < g->nr_members; m++)
		if (!rl_span_empty(p->bio[m]) && !test_bit(m, &failed))
			rl_plan_write(p, m, p->bio[m]);
	if (p_ok)
		rl_plan_write(p, p->pmember, p->prange);
	if (q_ok)
		rl_plan_write(p, p->qmember, p->prange);
}

/* Check and resync: a whole row, with every member alive. */
static int rl_plan_scrub(const struct rl_geom *g, unsigned int flags,
			 unsigned int nr_failed, struct rl_plan *p)
{
	if (nr_failed)
		return -EIO;
	p->prange.lo = 0;
	p->prange.hi = rl_chunk_sectors(g);
	if (flags & RL_PLAN_DO_CHECK) {
		p->mode = RL_PLAN_CHECK;
		rl_plan_read_live(g, p, 0);
		return 0;
	}
	rl_plan_rcw(g->layout, g, p);
	rl_plan_write(p, p->pmember, p->prange);
	if (p->qmember != RL_NONE)
		rl_plan_write(p, p->qmember, p->prange);
	return 0;
}

/*
 * rl_plan_access() for P+Q (see there). A write uses read-modify-write
 * when P and Q are both live and no written column has failed, and it
 * reads no more than reconstruct-write: old data under the access, old P
 * and old Q, and rl_plan_compute() folds old and new data into both with
 * lib/raid6's xor_syndrome(). Otherwise reconstruct-write, after the failed
 * members the new syndrome needs are rebuilt in memory (any two: data,
 * data and P, data and Q, P and Q). With P and Q both failed a write is
 * data only.
 */
static int rl_plan_access_pq(const struct rl_geom *g, u64 row, u32 off,
			     u32 len, unsigned int flags, unsigned long failed,
			     struct rl_plan *p)
{
	unsigned int nr_failed = hweight_long(failed);
	unsigned long hit;

	if (flags & (RL_PLAN_DO_CHECK | RL_PLAN_RESYNC))
		return rl_plan_scrub(g, flags, nr_failed, p);

	hit = rl_plan_spans(g, p, off, len, failed);
	if (!(flags & RL_PLAN_WRITE)) {
		if (!hit) {
			p->mode = RL_PLAN_READ;
			rl_plan_bio_io(g, p, false);
			return 0;
		}
		if (nr_failed > 2)
			return -EIO;
		p->mode = RL_PLAN_RECON_READ;
		rl_plan_set_missing(p, failed);
		rl_plan_read_live(g, p, failed);
		return 0;
	}
	if (nr_failed > 2)
		return -EIO;
	if (test_bit(p->pmember, &failed) && test_bit(p->qmember, &failed)) {
		p->mode = RL_PLAN_NO_PARITY;
		rl_plan_bio_io(g, p, true);
		return 0;
	}
	rl_plan_write_parity(g, row, flags, failed, hit, p);
	return 0;
}

/*
 * The data columns [@off, @off + @len) touches: their ranges and the
 * parity range. Returns the failed one among them, or RL_NONE.
 */
static unsigned int rl_plan_columns(const struct rl_geom *g, u64 row,
				    u32 off, u32 len, unsigned long failed,
				    struct rl_plan *p)
{
	u32 chunk = rl_chunk_sectors(g);
	unsigned int k, m, missing = RL_NONE;

	for (k = off >> g->chunk_shift; k <= (off + len - 1) >> g->chunk_shift; k++) {
		u32 s = max_t(u32, off, k * chunk) - k * chunk;
		u32 e = min_t(u32, off + len, (k + 1) * chunk) - k * chunk;

		m = g->layout->data_member(g, row, k);
		p->bio[m].lo = s;
		p->bio[m].hi = e;
		p->prange.lo = min(p->prange.lo, s);
		p->prange.hi = max(p->prange.hi, e);
		if (test_bit(m, &failed))
			missing = m;
	}
	return missing;
}

/* A read: straight from its columns, or one rebuilt from the rest. */
static int rl_plan_read_access(const struct rl_geom *g, unsigned int missing,
			       unsigned int nr_failed, struct rl_plan *p)
{
	unsigned int m;

	if (missing == RL_NONE) {
		p->mode = RL_PLAN_READ;
		rl_plan_bio_io(g, p, false);
		return 0;
	}
	if (nr_failed > 1)
		return -EIO;
	p->mode = RL_PLAN_RECON_READ;
	p->missing = missing;
	for (m = 0; m < g->nr_members; m++)
		if (m != missing)
			rl_plan_read(p, m, p->prange);
	return 0;
}

/**
 * rl_plan_access() - plan one access to one row
 * @g: geometry, with its parity layout
 * @row: the row
 * @off: first sector of the access within the row's data (0 .. nr_data * chunk)
 * @len: sectors; the access stays within the row
 * @flags: RL_PLAN_WRITE for a write; RL_PLAN_FULL_ROW if the row's parity
 *	is not known to be consistent with its data (the write then recomputes
 *	the parity of the whole row); RL_PLAN_RESYNC to plan no access but the
 *	recomputation of the row's parity (@off and @len are ignored)
 * @failed: bitmap of failed members
 * @p: the plan
 *
 * A write uses read-modify-write or reconstruct-write, whichever reads
 * fewer members (read-modify-write on a tie: it leaves the other members
 * idle). A failed member is never read or written: its data is rebuilt in
 * memory from the rest of the row when the access needs it. Consistency
 * only matters while no member has failed: once one has, the rows that hold
 * data written since are consistent, and the others hold nothing to lose.
 *
 * RL_PLAN_DO_REBUILD plans the rebuild of the lowest failed member's chunk
 * from the rest of the row (rl_plan_rebuild()); RL_PLAN_DO_CHECK the read of
 * the whole row, every member, for rl_plan_check() (no write: a repair adds
 * the parity write when it finds a mismatch). Both ignore @off and @len.
 *
 * A double-parity layout (one with a Q member) survives two failed members
 * and plans as rl_plan_access_pq() says; the plan's qmember is RL_NONE for
 * single parity.
 *
 * Return: 0, or -EIO if the row has lost more than it can rebuild, for a
 * resync or a check of a row with a failed member, or for a rebuild with
 * none or more than the parity survives.
 */
int rl_plan_access(const struct rl_geom *g, u64 row, u32 off, u32 len,
		   unsigned int flags, unsigned long failed, struct rl_plan *p)
{
	unsigned int nr_failed, missing;

	failed &= GENMASK(g->nr_members - 1, 0);
	nr_failed = hweight_long(failed);

	if (flags & RL_PLAN_DO_REBUILD)
		return rl_plan_rebuild(g, row, failed ? __ffs(failed) : RL_NONE,
				       failed, p);
	rl_plan_init(g, row, p);
	if (p->qmember != RL_NONE)
		return rl_plan_access_pq(g, row, off, len, flags, failed, p);
	if (flags & (RL_PLAN_DO_CHECK | RL_PLAN_RESYNC))
		return rl_plan_scrub(g, flags, nr_failed, p);

	missing = rl_plan_columns(g, row, off, len, failed, p);
	if (!(flags & RL_PLAN_WRITE))
		return rl_plan_read_access(g, missing, nr_failed, p);
	if (nr_failed > 1)
		return -EIO;
	if (test_bit(p->pmember, &failed)) {
		p->mode = RL_PLAN_NO_PARITY;
		rl_plan_bio_io(g, p, true);
		return 0;
	}
	rl_plan_write_parity(g, row, flags, failed, missing != RL_NONE, p);
	return 0;
}

/* ------------------------------------------------------------------------
 * Carrying a plan out in memory
 */

/*
 * Copy between @bio, which starts @off sectors into the row's data, and the
 * data columns' buffers.
 */
static void rl_plan_copy_bio(const struct rl_plan *p,
			     const struct rl_parity_layout *l,
			     const struct rl_geom *g, struct page **const *buf,
			     struct bio *bio, u32 off, bool to_bio)
{
	unsigned int chunk_bytes = rl_chunk_sectors(g) << SECTOR_SHIFT;
	u64 pos = (u64)off << SECTOR_SHIFT;
	struct bvec_iter iter;
	struct bio_vec bv;

	if (!bio)
		return;	/* a resync carries no data */

	bio_for_each_segment(bv, bio, iter) {
		unsigned int done = 0;

		while (done < bv.bv_len) {
			unsigned int col, coff, n;
			void *addr;
			u32 rem;

			col = div_u64_rem(pos, chunk_bytes, &rem);
			coff = rem;
			n = min3(bv.bv_len - done, chunk_bytes - coff,
				 (unsigned int)(PAGE_SIZE - offset_in_page(coff)));
			addr = page_address(buf[l->data_member(g, p->row, col)]
					    [coff >> PAGE_SHIFT]) + offset_in_page(coff);
			if (to_bio)
				memcpy_to_page(bv.bv_page, bv.bv_offset + done,
					       addr, n);
			else
				memcpy_from_page(addr, bv.bv_page,
						 bv.bv_offset + done, n);
			done += n;
			pos += n;
		}
	}
}

static void rl_plan_xor_span(struct page **dst, struct page **src,
			     struct rl_span span)
{
	rl_parity_xor(dst, &src, 1, span.lo << SECTOR_SHIFT,
		      (span.hi - span.lo) << SECTOR_SHIFT);
}

static void rl_plan_gen(struct page **dst, struct page **const *src,
			unsigned int nr, struct rl_span span)
{
	rl_parity_gen(dst, src, nr, span.lo << SECTOR_SHIFT,
		      (span.hi - span.lo) << SECTOR_SHIFT);
}

/*
 * The row's buffers in syndrome order (parity.h): data columns, P, Q.
 * Returns the number of disks.
 */
static unsigned int rl_plan_pq_order(const struct rl_plan *p,
				     const struct rl_geom *g,
				     struct page **const *buf,
				     struct page **sb[RL_PQ_MAX_DISKS])
{
	unsigned int k;

	for (k = 0; k < g->nr_data; k++)
		sb[k] = buf[g->layout->data_member(g, p->row, k)];
	sb[k++] = buf[p->pmember];
	sb[k++] = buf[p->qmember];
	return k;
}

/* The syndrome position of member @m, or RL_NONE for RL_NONE. */
static unsigned int rl_plan_pq_pos(const struct rl_plan *p,
				   const struct rl_geom *g, unsigned int m)
{
	if (m == RL_NONE)
		return RL_NONE;
	if (m == p->pmember)
		return g->nr_data;
	if (m == p->qmember)
		return g->nr_data + 1;
	return g->layout->member_col(g, p->row, m);
}

static void rl_plan_compute_pq(const struct rl_plan *p,
			       const struct rl_geom *g,
			       struct page **const *buf, struct bio *bio,
			       u32 off)
{
	const struct rl_parity_layout *l = g->layout;
	unsigned int lo = p->prange.lo << SECTOR_SHIFT;
	unsigned int len = (p->prange.hi - p->prange.lo) << SECTOR_SHIFT;
	unsigned int disks, k, start = RL_NONE, stop = 0;
	struct page **sb[RL_PQ_MAX_DISKS];

	disks = rl_plan_pq_order(p, g, buf, sb);
	switch (p->mode) {
	case RL_PLAN_RMW:
		/*
		 * Fold the old data out of P and Q and the new in. Columns
		 * between start and stop that are not written, and the parts
		 * of written ones outside the access, hold the same bytes both
		 * times: they cancel.
		 */
		for (k = 0; k < g->nr_data; k++) {
			if (rl_span_empty(p->bio[l->data_member(g, p->row, k)]))
				continue;
			start = min(start, k);
			stop = k;
		}
		rl_pq_xor(sb, disks, start, stop, lo, len);
		rl_plan_copy_bio(p, l, g, buf, bio, off, false);
		rl_pq_xor(sb, disks, start, stop, lo, len);
		break;
	case RL_PLAN_RECON_WRITE:
	case RL_PLAN_RECON_READ:
	case RL_PLAN_REBUILD:
		rl_pq_recover(sb, disks, rl_plan_pq_pos(p, g, p->missing),
			      rl_plan_pq_pos(p, g, p->missing2), lo, len);
		if (p->mode == RL_PLAN_RECON_READ)
			rl_plan_copy_bio(p, l, g, buf, bio, off, true);
		if (p->mode != RL_PLAN_RECON_WRITE)
			break;
		fallthrough;
	case RL_PLAN_RCW:
		rl_plan_copy_bio(p, l, g, buf, bio, off, false);
		rl_pq_gen(sb, disks, lo, len);
		break;
	case RL_PLAN_NO_PARITY:
		rl_plan_copy_bio(p, l, g, buf, bio, off, false);
		break;
	case RL_PLAN_READ:
		rl_plan_copy_bio(p, l, g, buf, bio, off, true);
		break;
	case RL_PLAN_CHECK:
		break;	/* rl_plan_check() */
	}
}

/* Sectors of the chunk in @b that are not all zero. */
static u32 rl_plan_nonzero_sectors(struct page **b, unsigned int chunk)
{
	unsigned int sec;
	u32 bad = 0;

	for (sec = 0; sec < chunk; sec++) {
		unsigned int byte = sec << SECTOR_SHIFT;

		if (memchr_inv(page_address(b[byte >> PAGE_SHIFT]) +
			       offset_in_page(byte), 0, SECTOR_SIZE))
			bad++;
	}
	return bad;
}

/* rl_plan_check() for P+Q: P and Q are checked, and repaired, apart. */
static u32 rl_plan_check_pq(struct rl_plan *p, const struct rl_geom *g,
			    struct page **const *buf, bool repair)
{
	unsigned int chunk = rl_chunk_sectors(g), disks;
	struct page **sb[RL_PQ_MAX_DISKS];
	u32 bad_p, bad_q;

	/* P ^= xor of the data, Q ^= their syndrome: zero where right */
	disks = rl_plan_pq_order(p, g, buf, sb);
	rl_pq_xor(sb, disks, 0, g->nr_data - 1, 0, chunk << SECTOR_SHIFT);
	bad_p = rl_plan_nonzero_sectors(buf[p->pmember], chunk);
	bad_q = rl_plan_nonzero_sectors(buf[p->qmember], chunk);
	if ((bad_p || bad_q) && repair) {
		rl_pq_gen(sb, disks, 0, chunk << SECTOR_SHIFT);
		if (bad_p)
			rl_plan_write(p, p->pmember, p->prange);
		if (bad_q)
			rl_plan_write(p, p->qmember, p->prange);
	}
	return bad_p + bad_q;
}

/**
 * rl_plan_compute() - the in-memory step of a plan
 * @p: the plan, whose reads have landed in @buf
 * @g: geometry, with its parity layout
 * @buf: one chunk buffer per member
 * @bio: the access, or NULL for a resync; @off is its first sector within
 *	the row's data
 * @off: see @bio
 *
 * For a write, leaves in @buf everything the plan's writes need: the new
 * data and the new parity. For a read, fills @bio.
 */
void rl_plan_compute(const struct rl_plan *p, const struct rl_geom *g,
		     struct page **const *buf, struct bio *bio, u32 off)
{
	const struct rl_parity_layout *l = g->layout;
	struct page **pbuf = buf[p->pmember];
	struct page **src[RL_MAX_MEMBERS];
	unsigned int m, k, nr = 0;

	if (p->qmember != RL_NONE) {
		rl_plan_compute_pq(p, g, buf, bio, off);
		return;
	}
	switch (p->mode) {
	case RL_PLAN_RMW:
		/* P ^= old data; data = new; P ^= new data */
		for (m = 0; m < g->nr_members; m++)
			if (!rl_span_empty(p->bio[m]))
				rl_plan_xor_span(pbuf, buf[m], p->bio[m]);
		rl_plan_copy_bio(p, l, g, buf, bio, off, false);
		for (m = 0; m < g->nr_members; m++)
			if (!rl_span_empty(p->bio[m]))
				rl_plan_xor_span(pbuf, buf[m], p->bio[m]);
		break;
	case RL_PLAN_RECON_WRITE:
	case RL_PLAN_RECON_READ:
	case RL_PLAN_REBUILD:
		/* the missing member is the xor of the rest of the row */
		for (m = 0; m < g->nr_members; m++)
			if (m != p->missing)
				src[nr++] = buf[m];
		rl_plan_gen(buf[p->missing], src, nr, p->prange);
		if (p->mode == RL_PLAN_RECON_READ) {
			rl_plan_copy_bio(p, l, g, buf, bio, off, true);
			break;
		}
		if (p->mode == RL_PLAN_REBUILD)
			break;
		nr = 0;
		fallthrough;
	case RL_PLAN_RCW:
		rl_plan_copy_bio(p, l, g, buf, bio, off, false);
		for (k = 0; k < g->nr_data; k++)
			src[nr++] = buf[l->data_member(g, p->row, k)];
		rl_plan_gen(pbuf, src, nr, p->prange);
		break;
	case RL_PLAN_NO_PARITY:
		rl_plan_copy_bio(p, l, g, buf, bio, off, false);
		break;
	case RL_PLAN_READ:
		rl_plan_copy_bio(p, l, g, buf, bio, off, true);
		break;
	case RL_PLAN_CHECK:
		break;	/* rl_plan_check() */
	}
}

/**
 * rl_plan_check() - compare a row's parity with its data
 * @p: an RL_PLAN_CHECK plan, whose reads have landed in @buf
 * @g: geometry, with its parity layout
 * @buf: one chunk buffer per member
 * @repair: on a mismatch, leave the right parity in the parity buffer and
 *	add its write to @p
 *
 * With P and Q, each is checked against the data, and a repair writes
 * those found wrong.
 *
 * Return: the sectors of the chunk whose parity is not the xor of the data;
 * with P+Q, the sectors of P that are wrong plus those of Q.
 */
u32 rl_plan_check(struct rl_plan *p, const struct rl_geom *g,
		  struct page **const *buf, bool repair)
{
	const struct rl_parity_layout *l = g->layout;
	unsigned int chunk = rl_chunk_sectors(g), k, sec;
	struct page **pbuf = buf[p->pmember];
	struct page **src[RL_MAX_MEMBERS];
	u32 bad = 0;

	if (p->qmember != RL_NONE)
		return rl_plan_check_pq(p, g, buf, repair);

	/* P ^= D0 ^ ... ^ Dn-1: zero where the parity is right */
	for (k = 0; k < g->nr_data; k++)
		src[k] = buf[l->data_member(g, p->row, k)];
	rl_parity_xor(pbuf, src, g->nr_data, 0, chunk << SECTOR_SHIFT);
	for (sec = 0; sec < chunk; sec++) {
		unsigned int byte = sec << SECTOR_SHIFT;

		if (memchr_inv(page_address(pbuf[byte >> PAGE_SHIFT]) +
			       offset_in_page(byte), 0, SECTOR_SIZE))
			bad++;
	}
	if (bad && repair) {
		rl_parity_gen(pbuf, src, g->nr_data, 0, chunk << SECTOR_SHIFT);
		rl_plan_write(p, p->pmember, p->prange);
	}
	return bad;
}
