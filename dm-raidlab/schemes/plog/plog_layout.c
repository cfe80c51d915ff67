// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity logging: the parity-log region manager (plog.h), a
 * shared service of the parity-logging scheme (plog.c).
 *
 *   layout     pure: where a region's data, parity and sublogs live on the
 *              members, the default number of log disks (paper §6) and of
 *              regions (§2.4), and the regions' sync keys. KUnit suite
 *              dm_raidlab_plog_layout.
 *   segments   pure: a log segment's header and record descriptors, the
 *              checksum, the validators, and applying a segment's records
 *              to a region's parity (f = 2: P and Q, with lib/raid6) in
 *              log order. Suite dm_raidlab_plog_log.
 *   pool       the global pool of log buffers (§2.1). Suite
 *              dm_raidlab_plog_pool.
 *   durable    the record area on a DAX metadata device: a header, the
 *              region table and one twin per pool buffer; and a second
 *              one, the data slots of writes in flight. Their block
 *              encodings are pure (rl_plog_md_hdr_*, rl_plog_md_ent_*,
 *              rl_plog_slot*) and tested in dm_raidlab_plog_log; the rest
 *              needs DAX (or RAM blocks, for KUnit).
 *
 * This file is the layout; the region manager's other files:
 * plog_seg.c (segments, records, the buffer pool), plog_md_fmt.c (the
 * durable encodings, pure), plog_md.c (the durable state on DAX) and
 * plog_slots.c (the data slots on DAX).
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/crc32c.h>
#include <linux/gcd.h>
#include <linux/kernel.h>
#include <linux/lcm.h>
#include <linux/libnvdimm.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "../../svc/parity.h"
#include "plog_region.h"
#include "../../raidlab.h"

/*
 * The §6 balance rule with the paper's example disk (Figure 12, IBM 0661
 * "Lightning"), in microseconds:
 *   S  average seek            12500 (12.5 ms)
 *   R  average rotational delay 6950 (half of a 13.9 ms revolution)
 *   H  head switch             1160 (1.16 ms)
 *   M  single-track seek       2000 (2.0 + 0.01 dist + 0.46 sqrt(dist) ms,
 *                               dist = 0: the destination is not counted)
 *   T  tracks per cylinder     14
 *   D  data units per track    12 (48 sectors of 512 bytes, 2 KiB units)
 *   K  tracks per log write    1 (RL_PLOG_DEF_K)
 *   C_L cylinders of log per region: 10 (the ratio hardly depends on it:
 *       the rule is nearly linear in C_L)
 * t_z is t_rmw = S + (3 + 2/D) R (blind writes: the old data is read
 * first, as this target does), t_Ktrack = S + (2K + 1) R + (K - 1) H and
 * t_CL = S + (2 T C_L + 1) R + (T - 1) H C_L + (C_L - 1) M.
 */
#define RL_PLOG_FIG12_S		12500ULL
#define RL_PLOG_FIG12_R		6950ULL
#define RL_PLOG_FIG12_H		1160ULL
#define RL_PLOG_FIG12_M		2000ULL
#define RL_PLOG_FIG12_T		14ULL
#define RL_PLOG_FIG12_D		12ULL
#define RL_PLOG_FIG12_K		1ULL
#define RL_PLOG_FIG12_CL	10ULL

/**
 * rl_plog_default_l() - the default number of log disks (paper §6)
 * @nr_members: N, the array's members
 *
 * Balances a workload concentrated on one region: the work per data disk
 * equals the work per sublog disk,
 *
 *   L = N ((T C_L / K) t_Ktrack + t_CL)
 *         / ((D T C_L) t_z + (T C_L / K) t_Ktrack + t_CL),
 *
 * evaluated with the Figure 12 disk (see the constants above) and rounded
 * to the nearest integer. With t_z = t_rmw this is 0.105 N (the paper's
 * text says 0.16 N for blind writes and 0.11 N for write hits, but the
 * formula gives 0.105 N with t_rmw and 0.164 N with t_w = S + (1 + 2/D) R;
 * the smaller t_z, the larger L).
 *
 * Return: L clamped to [1, N - 2] (1 when N < 3).
 */
unsigned int rl_plog_default_l(unsigned int nr_members)
{
	const u64 s = RL_PLOG_FIG12_S, r = RL_PLOG_FIG12_R;
	const u64 h = RL_PLOG_FIG12_H, m = RL_PLOG_FIG12_M;
	const u64 t = RL_PLOG_FIG12_T, d = RL_PLOG_FIG12_D;
	const u64 k = RL_PLOG_FIG12_K, cl = RL_PLOG_FIG12_CL;
	u64 t_rmw = s + div_u64((3 * d + 2) * r, d);
	u64 t_ktrack = s + (2 * k + 1) * r + (k - 1) * h;
	u64 t_cl = s + (2 * t * cl + 1) * r + (t - 1) * h * cl + (cl - 1) * m;
	u64 log = div_u64(t * cl, k) * t_ktrack + t_cl;
	u64 data = d * t * cl * t_rmw;
	u64 l;

	if (nr_members < 3)
		return 1;
	l = div64_u64((u64)nr_members * log * 2 + data + log, 2 * (data + log));
	return clamp_t(u64, l, 1, nr_members - 2);
}

/* #{r' < r : member m logs region r'}: log cells j in [0, r f L), j = m mod N */
static u64 rl_plog_nlog(const struct rl_plog_layout *lo, unsigned int m,
			u64 r)
{
	u64 cells = r * lo->nlog;

	if (cells <= m)
		return 0;
	return div_u64(cells - m - 1, lo->n) + 1;
}

/* region @r's first chunk on @m, for any r (r == B: the end of the span) */
static u64 rl_plog_start(const struct rl_plog_layout *lo, unsigned int m,
			 u64 r)
{
	u64 nlog = rl_plog_nlog(lo, m, r);

	return (r - nlog) * lo->slice + nlog * lo->sublog;
}

/**
 * rl_plog_log_member() - the member holding log member index @i of a region
 * @lo: the layout
 * @region: the region
 * @i: the log member index, 0 .. f L - 1: copy i / L of sublog i mod L
 *
 * Return: (region * f L + i) mod N.
 */
unsigned int rl_plog_log_member(const struct rl_plog_layout *lo, u32 region,
				unsigned int i)
{
	u32 rem;

	div_u64_rem((u64)region * lo->nlog + i, lo->n, &rem);
	return rem;
}

/**
 * rl_plog_data_member() - the member of a region's data member index @t
 * @lo: the layout
 * @region: the region
 * @t: the data member index, 0 .. g - 1
 *
 * Return: (region * f L + f L + t) mod N.
 */
unsigned int rl_plog_data_member(const struct rl_plog_layout *lo, u32 region,
				 unsigned int t)
{
	u32 rem;

	div_u64_rem((u64)region * lo->nlog + lo->nlog + t, lo->n, &rem);
	return rem;
}

/**
 * rl_plog_member_role() - what member @m holds of a region
 * @lo: the layout
 * @region: the region
 * @m: the member
 *
 * Return: @m's data member index t (0 .. g - 1) in @region, or RL_NONE if
 * @m holds one of the region's sublogs.
 */
unsigned int rl_plog_member_role(const struct rl_plog_layout *lo, u32 region,
				 unsigned int m)
{
	unsigned int first = rl_plog_data_member(lo, region, 0);
	unsigned int t = (m + lo->n - first) % lo->n;

	return t < lo->g ? t : RL_NONE;
}

/**
 * rl_plog_region_start() - where a region's slice or sublog starts on @m
 * @lo: the layout
 * @m: the member
 * @region: the region
 *
 * Return: the member chunk (relative to data_offset) of @region's first
 * chunk on @m: r * S + nlog(m, r) * (G - S). O(1).
 */
u64 rl_plog_region_start(const struct rl_plog_layout *lo, unsigned int m,
			 u32 region)
{
	return rl_plog_start(lo, m, region);
}

/*
 * The check positions (data member indices) of a row whose P is on @p,
 * sorted: {p} for f = 1, {p, (p + 1) mod g} for f = 2. Returns f.
 */
static unsigned int rl_plog_row_checks(const struct rl_plog_layout *lo,
				       unsigned int p, unsigned int *e)
{
	unsigned int q = p + 1 == lo->g ? 0 : p + 1;

	e[0] = p;
	if (lo->f == 1)
		return 1;
	e[0] = min(p, q);
	e[1] = max(p, q);
	return 2;
}

/*
 * The rows of a row group whose check blocks member index @t holds, as
 * P positions p, sorted: {t} for f = 1, {t, (t - 1) mod g} for f = 2
 * (t holds the Q of the row whose P is on t - 1). Returns f.
 */
static unsigned int rl_plog_member_checks(const struct rl_plog_layout *lo,
					  unsigned int t, unsigned int *e)
{
	unsigned int pq = t ? t - 1 : lo->g - 1;

	e[0] = t;
	if (lo->f == 1)
		return 1;
	e[0] = min(t, pq);
	e[1] = max(t, pq);
	return 2;
}

/* the @k-th (from 0) of 0, 1, ... leaving out the @ne sorted values @e */
static unsigned int rl_plog_skip(unsigned int k, const unsigned int *e,
				 unsigned int ne)
{
	unsigned int i;

	for (i = 0; i < ne; i++)
		if (k >= e[i])
			k++;
	return k;
}

/* the rank of @v (not in @e) among 0, 1, ... leaving out the values @e */
static unsigned int rl_plog_rank(unsigned int v, const unsigned int *e,
				 unsigned int ne)
{
	unsigned int i, r = v;

	for (i = 0; i < ne; i++)
		if (e[i] < v)
			r--;
	return r;
}

/* data slots of a member's slice: S - f S / g */
static u32 rl_plog_data_slots(const struct rl_plog_layout *lo)
{
	return lo->slice - lo->f * (lo->slice / lo->g);
}

/**
 * rl_plog_row_loc() - where a row's data chunk and check chunks live
 * @lo: the layout
 * @region: the region
 * @row: the row within the region, 0 .. S - 1
 * @col: the data column, 0 .. cols - 1
 * @loc: filled in (all fields; qmember and qchunk RL_NONE and 0 for f = 1)
 *
 * Row i is in row group i / g; its P is on data member p = i mod g in P
 * slot i / g (member chunk S - f S / g + i / g of the slice) and, for
 * f = 2, its Q on data member (p + 1) mod g in Q slot i / g (chunk
 * S - S / g + i / g). Data column k is on the k-th data member t that
 * holds neither check block of the row, in increasing t, in data slot
 *
 *   (i / g) * cols + (p minus the count of t's own check rows below p)
 *
 * where t's own check rows are the P positions {t} (f = 1) or
 * {t, (t - 1) mod g} (f = 2): member t is a data member of the g - f
 * other rows of each row group, numbered in increasing row. For f = 1
 * this is (i / g) (g - 1) + (p < t ? p : p - 1).
 */
void rl_plog_row_loc(const struct rl_plog_layout *lo, u32 region, u32 row,
		     unsigned int col, struct rl_plog_loc *loc)
{
	unsigned int g = lo->g, e[2], ne, t, p;
	u32 grp = row / g;
	u64 check = rl_plog_data_slots(lo) + grp;

	p = row % g;
	ne = rl_plog_row_checks(lo, p, e);
	t = rl_plog_skip(col, e, ne);
	loc->region = region;
	loc->row = row;
	loc->col = col;
	loc->member = rl_plog_data_member(lo, region, t);
	ne = rl_plog_member_checks(lo, t, e);
	loc->mchunk = rl_plog_start(lo, loc->member, region) +
		      (u64)grp * lo->cols + rl_plog_rank(p, e, ne);
	loc->pmember = rl_plog_data_member(lo, region, p);
	loc->pchunk = rl_plog_start(lo, loc->pmember, region) + check;
	if (lo->f == 1) {
		loc->qmember = RL_NONE;
		loc->qchunk = 0;
		return;
	}
	loc->qmember = rl_plog_data_member(lo, region, p + 1 == g ? 0 : p + 1);
	loc->qchunk = rl_plog_start(lo, loc->qmember, region) + check +
		      lo->slice / g;
}

/**
 * rl_plog_map() - where logical data chunk @lchunk lives
 * @lo: the layout
 * @lchunk: the logical chunk, below @lo->data_chunks
 * @loc: filled in (all fields)
 *
 * Region lchunk / (S cols); within it, chunk x is row x / cols, column
 * x mod cols. O(1).
 */
void rl_plog_map(const struct rl_plog_layout *lo, u64 lchunk,
		 struct rl_plog_loc *loc)
{
	u64 per_region = (u64)lo->slice * lo->cols;
	u64 x;
	u64 region = div64_u64_rem(lchunk, per_region, &x);
	u32 col;
	u64 row = div_u64_rem(x, lo->cols, &col);

	rl_plog_row_loc(lo, region, row, col, loc);
}

/*
 * The region of member chunk @off of a cycle on @m: the last j in [0, C)
 * with start(m, j) <= off, by binary search.
 */
static u32 rl_plog_cycle_region(const struct rl_plog_layout *lo,
				unsigned int m, u64 off)
{
	u32 lo_j = 0, hi_j = lo->cycle, j;

	while (hi_j - lo_j > 1) {
		j = lo_j + (hi_j - lo_j) / 2;
		if (rl_plog_start(lo, m, j) <= off)
			lo_j = j;
		else
			hi_j = j;
	}
	return lo_j;
}

/**
 * rl_plog_owner() - what member chunk @mchunk of @m holds
 * @lo: the layout
 * @m: the member
 * @mchunk: the member chunk (relative to data_offset)
 * @lchunk: set to the logical chunk if the chunk holds data
 *
 * O(log C): the cycle is found by division, the region within the cycle
 * by binary search on region starts. A data member's slice is its data
 * slots, then S/g P slots, then (f = 2) S/g Q slots; a log member's is a
 * sublog.
 *
 * Return: RL_PART_DATA (*@lchunk set), RL_PART_P, RL_PART_Q, RL_PART_LOG,
 * or RL_PART_NONE past the layout's span.
 */
enum rl_part rl_plog_owner(const struct rl_plog_layout *lo, unsigned int m,
			   u64 mchunk, u64 *lchunk)
{
	unsigned int t, p, col, e[2], ne;
	u32 j, slot_in, grp;
	u64 off, cyc, region, slot;

	if (mchunk >= lo->member_chunks || m >= lo->n)
		return RL_PART_NONE;
	cyc = div64_u64_rem(mchunk, lo->cycle_chunks, &off);
	j = rl_plog_cycle_region(lo, m, off);
	region = cyc * lo->cycle + j;
	t = rl_plog_member_role(lo, region, m);
	if (t == RL_NONE)
		return RL_PART_LOG;
	slot = off - rl_plog_start(lo, m, j);
	if (slot >= rl_plog_data_slots(lo))
		return slot - rl_plog_data_slots(lo) < lo->slice / lo->g ?
		       RL_PART_P : RL_PART_Q;
	grp = div_u64_rem(slot, lo->cols, &slot_in);
	ne = rl_plog_member_checks(lo, t, e);
	p = rl_plog_skip(slot_in, e, ne);
	ne = rl_plog_row_checks(lo, p, e);
	col = rl_plog_rank(t, e, ne);
	*lchunk = region * lo->slice * lo->cols +
		  ((u64)grp * lo->g + p) * lo->cols + col;
	return RL_PART_DATA;
}

/**
 * rl_plog_unmap() - which logical chunk member chunk @mchunk of @m holds
 * @lo: the layout
 * @m: the member
 * @mchunk: the member chunk (relative to data_offset)
 * @lchunk: set to the logical chunk if the chunk holds data
 *
 * Return: true for a data chunk, false for P, Q, a sublog or a chunk past
 * the layout's span (rl_plog_owner()).
 */
bool rl_plog_unmap(const struct rl_plog_layout *lo, unsigned int m,
		   u64 mchunk, u64 *lchunk)
{
	return rl_plog_owner(lo, m, mchunk, lchunk) == RL_PART_DATA;
}

/**
 * rl_plog_seg_loc() - where a copy of segment @seg of a region's log goes
 * @lo: the layout
 * @region: the region
 * @seg: the segment index within the region's generation, below @lo->segs
 * @copy: the copy, 0 .. f - 1
 * @member: set to the log member
 * @msector: set to the member sector (relative to data_offset)
 *
 * Segment s goes to sublog s mod L at (s / L) * seg_sectors; copy c of
 * that sublog is on log member index c L + s mod L.
 */
void rl_plog_seg_loc(const struct rl_plog_layout *lo, u32 region, u32 seg,
		     unsigned int copy, unsigned int *member, u64 *msector)
{
	unsigned int m = rl_plog_log_member(lo, region,
					    copy * lo->l + seg % lo->l);

	*member = m;
	*msector = (rl_plog_start(lo, m, region) << lo->chunk_shift) +
		   (u64)(seg / lo->l) * lo->seg_sectors;
}

/* the member whose span of region r ends last: fewest sublogs if G < S */
static unsigned int rl_plog_last_member(const struct rl_plog_layout *lo)
{
	return lo->sublog < lo->slice ? lo->n - 1 : 0;
}

/**
 * rl_plog_region_key() - a region's key in member sectors
 * @lo: the layout
 * @region: the region
 *
 * The last member sector (relative to data_offset) of @region's span on
 * the member where that span ends last. Keys strictly increase with the
 * region. O(1).
 *
 * Return: the key.
 */
u64 rl_plog_region_key(const struct rl_plog_layout *lo, u32 region)
{
	unsigned int m = rl_plog_last_member(lo);

	return (rl_plog_start(lo, m, (u64)region + 1) << lo->chunk_shift) - 1;
}

/**
 * rl_plog_region_at() - the region that serves member sector @msector
 * @lo: the layout
 * @msector: a member sector (relative to data_offset)
 *
 * Binary search on the keys.
 *
 * Return: the first region whose key is at least @msector, or
 * @lo->nr_regions if @msector is past the last region's key.
 */
u32 rl_plog_region_at(const struct rl_plog_layout *lo, u64 msector)
{
	u32 lo_r = 0, hi_r = lo->nr_regions, mid;

	while (lo_r < hi_r) {
		mid = lo_r + (hi_r - lo_r) / 2;
		if (rl_plog_region_key(lo, mid) >= msector)
			hi_r = mid;
		else
			lo_r = mid + 1;
	}
	return lo_r;
}

/* chunks a cycle spans on every member, for slice @s and sublog @gl */
static u64 rl_plog_cycle_chunks(const struct rl_plog_layout *lo, u64 s,
				u64 gl)
{
	u64 logs = (u64)lo->cycle * lo->nlog / lo->n;	/* regions each member logs */

	return (lo->cycle - logs) * s + logs * gl;
}

/*
 * The largest slice (a multiple of @su) and its sublog (from @a_milli, a
 * multiple of @gu, at least @gu) for @b regions within @avail chunks per
 * member. Returns the member chunks used, 0 if nothing fits.
 */
static u64 rl_plog_fit(const struct rl_plog_layout *lo, u64 b, u64 avail,
		       u64 su, u64 gu, unsigned int a_milli, u64 *ps, u64 *pg)
{
	u64 cycles = div_u64(b, lo->cycle);
	u64 logs = (u64)lo->cycle * lo->nlog / lo->n;
	u64 datas = lo->cycle - logs;
	u64 s, gl, used;

	if (!cycles)
		return 0;
	/* per cycle: datas * S + logs * A S / (1000 L) <= avail / cycles */
	s = div64_u64(div64_u64(avail, cycles) * 1000 * lo->l,
		      datas * 1000 * lo->l + logs * a_milli);
	s = rounddown(s, su);
	while (s >= su) {
		gl = div64_u64((u64)a_milli * s + 500 * lo->l, 1000ULL * lo->l);
		gl = max(roundup(gl, gu), gu);
		used = cycles * rl_plog_cycle_chunks(lo, s, gl);
		if (used <= avail && s <= U32_MAX && gl <= U32_MAX) {
			*ps = s;
			*pg = gl;
			return used;
		}
		s -= su;
	}
	return 0;
}

static u64 rl_plog_dist(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

/* header sectors of a segment with @m descriptors */
static u32 rl_plog_hdr_sectors(u32 m)
{
	return DIV_ROUND_UP(sizeof(struct rl_plog_seg_disk) +
			    sizeof(struct rl_plog_rec_disk) * (size_t)m,
			    SECTOR_SIZE);
}

/*
 * The most descriptors m such that a segment of m one-sector records fits:
 * hdr_sectors(m) + m <= seg_sectors (the left side grows with m), capped
 * at U16_MAX (the header's record count).
 */
static u32 rl_plog_max_recs(u32 seg_sectors, u32 *hdr_sectors)
{
	u32 lo_m = 1, hi_m = seg_sectors, mid;

	while (hi_m - lo_m > 1) {
		mid = lo_m + (hi_m - lo_m) / 2;
		if (rl_plog_hdr_sectors(mid) + mid <= seg_sectors)
			lo_m = mid;
		else
			hi_m = mid;
	}
	lo_m = min_t(u32, lo_m, U16_MAX);
	*hdr_sectors = rl_plog_hdr_sectors(lo_m);
	return lo_m;
}

/* The members' roles (N, f, L and what they leave for data), checked. */
static int rl_plog_layout_members(struct rl_plog_layout *lo,
				  const struct rl_plog_params *p, char **error)
{
	unsigned int n = p->nr_members, c = p->chunk_sectors;

	if (!c || !is_power_of_2(c)) {
		*error = "plog: chunk size must be a power of two";
		return -EINVAL;
	}
	if (c > U16_MAX + 1) {	/* a record's offset in the chunk is 16 bits */
		*error = "plog: chunk size must be at most 32 MiB";
		return -EINVAL;
	}
	if (n < 3) {
		*error = "plog: parity logging needs at least three members";
		return -EINVAL;
	}
	if (p->faults > 2) {
		*error = "plog: faults must be 1 or 2";
		return -EINVAL;
	}
	lo->n = n;
	lo->f = p->faults ? p->faults : 1;
	lo->l = p->log_disks ? p->log_disks : rl_plog_default_l(n);
	if (lo->f == 1 && (lo->l >= n || n - lo->l < 2)) {
		*error = "plog: log_disks must leave at least two data members";
		return -EINVAL;
	}
	/* P + Q needs two data columns (lib/raid6: four disks at least) */
	if (lo->f == 2 && (lo->l >= n || n < 2 * lo->l + 4)) {
		*error = "plog: faults 2 needs N >= 2 * log_disks + 4 members";
		return -EINVAL;
	}
	if (lo->f == 2 && !rl_pq_available()) {
		*error = "plog: faults 2 needs lib/raid6 (gen_syndrome and xor_syndrome)";
		return -EINVAL;
	}
	lo->nlog = lo->f * lo->l;
	lo->g = n - lo->nlog;
	lo->cols = lo->g - lo->f;
	lo->chunk_shift = ilog2(c);
	return 0;
}

/* The log writes (K tracks of track_sectors) and the ratio, checked. */
static int rl_plog_layout_segs(struct rl_plog_layout *lo,
			       const struct rl_plog_params *p,
			       unsigned int a_milli, char **error)
{
	unsigned int c = p->chunk_sectors;

	lo->k = p->log_tracks ? p->log_tracks : RL_PLOG_DEF_K;
	lo->track_sectors = p->track_sectors ? p->track_sectors :
			    RL_PLOG_DEF_TRACK;
	if (lo->k > RL_PLOG_MAX_K) {
		*error = "plog: log_tracks is too large";
		return -EINVAL;
	}
	if (lo->track_sectors % 8) {
		*error = "plog: track_sectors must be a multiple of 8 (4 KiB)";
		return -EINVAL;
	}
	if (lo->track_sectors % c && c % lo->track_sectors) {
		*error = "plog: track_sectors must be a multiple of the chunk size, or divide it";
		return -EINVAL;
	}
	if ((u64)lo->k * lo->track_sectors > RL_PLOG_MAX_SEG) {
		*error = "plog: a log write (log_tracks * track_sectors) is larger than 4 MiB";
		return -EINVAL;
	}
	if (a_milli > 64 * 1000) {
		*error = "plog: log_ratio is too large";
		return -EINVAL;
	}
	if (p->regions > RL_PLOG_MAX_REGIONS) {
		*error = "plog: too many regions";
		return -EINVAL;
	}
	lo->seg_sectors = lo->k * lo->track_sectors;
	lo->max_recs = rl_plog_max_recs(lo->seg_sectors, &lo->hdr_sectors);
	lo->cycle = lo->n / gcd(lo->n, lo->nlog);
	return 0;
}

/*
 * The region counts to try, [*b_lo, *b_hi] in steps of the cycle, and the
 * paper's B0 = sqrt(tracks / K) they centre on (or the count asked for).
 */
static void rl_plog_region_range(const struct rl_plog_layout *lo,
				 const struct rl_plog_params *p,
				 u64 member_sectors, u64 *b0, u64 *b_lo,
				 u64 *b_hi)
{
	u64 bmin;

	if (p->regions) {
		*b_lo = roundup(p->regions, lo->cycle);
		*b_hi = *b_lo;
		*b0 = *b_lo;
		return;
	}
	*b0 = int_sqrt64(div_u64(div_u64(member_sectors, lo->track_sectors),
				 lo->k));
	/*
	 * The scheme holds one region's parity in memory to reintegrate it:
	 * on large members, more regions than sqrt(TV/K) keep that below
	 * RL_PLOG_MAX_SLICE.
	 */
	bmin = DIV_ROUND_UP_ULL(member_sectors, RL_PLOG_MAX_SLICE);
	*b0 = max_t(u64, *b0, bmin);
	*b_lo = max_t(u64, roundup(div_u64(*b0 * 9, 10), lo->cycle),
		      roundup(bmin, lo->cycle));
	*b_hi = div_u64(*b0 * 11 + 9, 10);
	*b_lo = min_t(u64, *b_lo, rounddown(RL_PLOG_MAX_REGIONS, lo->cycle));
	/* no multiple of C in range: the nearest one above */
	*b_hi = clamp_t(u64, *b_hi, *b_lo,
			rounddown(RL_PLOG_MAX_REGIONS, lo->cycle));
}

/**
 * rl_plog_layout_init() - validate table parameters and build the layout
 * @lo: filled in (every field)
 * @p: the table's parameters, 0 meaning the default
 * @member_sectors: data sectors available on every member (after
 *	data_offset)
 * @error: set to a static message on failure (for ti->error)
 *
 * Faults f: 1 (the default) or 2; f = 2 needs N >= 2 L + 4 (two data
 * columns besides P and Q) and lib/raid6's syndrome helpers. A region
 * has f L log members, g = N - f L data members and rows of cols = g - f
 * data chunks; the capacity is B S cols chunks. A stays the ratio of one
 * copy of the log to one check set (L G / S): an f = 2 region has 2 L G
 * log chunks and 2 S / g P and Q chunks per data member.
 *
 * Defaults: L from rl_plog_default_l(), K = 1, 256-sector tracks, A = 1,
 * and B = sqrt(TV / K) (TV: tracks per member), searched within +-10 %
 * over multiples of the cycle C = N / gcd(N, f L) for the least wasted
 * member space once S is rounded to a multiple of g and of whole tracks
 * and G to whole log segments (at least one). A given B is rounded up to
 * a multiple of C. A track must be a multiple of the chunk, or divide it;
 * tracks are multiples of 8 sectors, a log write is at most
 * RL_PLOG_MAX_SEG sectors and a chunk at most 32 MiB (a record's offset
 * in its chunk is 16 bits).
 *
 * Return: 0 or -EINVAL.
 */
int rl_plog_layout_init(struct rl_plog_layout *lo,
			const struct rl_plog_params *p, u64 member_sectors,
			char **error)
{
	unsigned int c = p->chunk_sectors;
	unsigned int a_milli = p->log_ratio ? p->log_ratio : RL_PLOG_DEF_A;
	u64 avail, su, gu, tu, b, b0, b_lo, b_hi, best = 0, used, s, gl;
	u64 best_s = 0, best_g = 0, best_b = 0, waste, best_waste = U64_MAX;

	memset(lo, 0, sizeof(*lo));
	if (rl_plog_layout_members(lo, p, error) ||
	    rl_plog_layout_segs(lo, p, a_milli, error))
		return -EINVAL;

	avail = member_sectors >> lo->chunk_shift;
	tu = lo->track_sectors >= c ? lo->track_sectors / c : 1;
	su = lcm(lo->g, tu);
	gu = lo->seg_sectors / gcd(c, lo->seg_sectors);
	rl_plog_region_range(lo, p, member_sectors, &b0, &b_lo, &b_hi);
	for (b = b_lo; b <= b_hi; b += lo->cycle) {
		used = rl_plog_fit(lo, b, avail, su, gu, a_milli, &s, &gl);
		if (!used)
			continue;
		waste = avail - used;
		if (waste < best_waste ||
		    (waste == best_waste &&
		     rl_plog_dist(b, b0) < rl_plog_dist(best_b, b0))) {
			best_waste = waste;
			best = used;
			best_b = b;
			best_s = s;
			best_g = gl;
		}
	}
	if (!best || best_b > RL_PLOG_MAX_REGIONS) {
		*error = "plog: the members are too small for this parity-log layout";
		return -EINVAL;
	}
	lo->nr_regions = best_b;
	lo->slice = best_s;
	lo->sublog = best_g;
	lo->segs = lo->l * div_u64((u64)lo->sublog << lo->chunk_shift,
				   lo->seg_sectors);
	lo->cycle_chunks = rl_plog_cycle_chunks(lo, lo->slice, lo->sublog);
	lo->member_chunks = div_u64(lo->nr_regions, lo->cycle) *
			    lo->cycle_chunks;
	lo->data_chunks = (u64)lo->nr_regions * lo->slice * lo->cols;
	lo->a_milli = div_u64(1000ULL * lo->l * lo->sublog, lo->slice);
	return 0;
}
