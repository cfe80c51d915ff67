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
#include "plog.h"
#include "../../raidlab.h"

/* ------------------------------------------------------------------------
 * Layout (pure).
 */

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

/**
 * rl_plog_unmap() - which logical chunk member chunk @mchunk of @m holds
 * @lo: the layout
 * @m: the member
 * @mchunk: the member chunk (relative to data_offset)
 * @lchunk: set to the logical chunk if the chunk holds data
 *
 * O(log C): the cycle is found by division, the region within the cycle
 * by binary search on region starts.
 *
 * Return: true for a data chunk, false for P, Q, a sublog or a chunk past
 * the layout's span.
 */
bool rl_plog_unmap(const struct rl_plog_layout *lo, unsigned int m,
		   u64 mchunk, u64 *lchunk)
{
	unsigned int t, p, col, e[2], ne;
	u32 lo_j = 0, hi_j = lo->cycle, j, slot_in, grp;
	u64 off, cyc, region, slot;

	if (mchunk >= lo->member_chunks || m >= lo->n)
		return false;
	cyc = div64_u64_rem(mchunk, lo->cycle_chunks, &off);
	/* the last j in [0, C) with start(m, j) <= off */
	while (hi_j - lo_j > 1) {
		j = lo_j + (hi_j - lo_j) / 2;
		if (rl_plog_start(lo, m, j) <= off)
			lo_j = j;
		else
			hi_j = j;
	}
	region = cyc * lo->cycle + lo_j;
	t = rl_plog_member_role(lo, region, m);
	if (t == RL_NONE)
		return false;
	slot = off - rl_plog_start(lo, m, lo_j);
	if (slot >= rl_plog_data_slots(lo))
		return false;
	grp = div_u64_rem(slot, lo->cols, &slot_in);
	ne = rl_plog_member_checks(lo, t, e);
	p = rl_plog_skip(slot_in, e, ne);
	ne = rl_plog_row_checks(lo, p, e);
	col = rl_plog_rank(t, e, ne);
	*lchunk = region * lo->slice * lo->cols +
		  ((u64)grp * lo->g + p) * lo->cols + col;
	return true;
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

/* ------------------------------------------------------------------------
 * Segments and records (pure).
 */

#define RL_PLOG_HDR_FIXED	sizeof(struct rl_plog_seg_disk)

static u32 rl_plog_seg_payload_max(const struct rl_plog_layout *lo)
{
	return lo->seg_sectors - lo->hdr_sectors;
}

/**
 * rl_plog_seg_init() - start an empty segment image
 * @seg: the image, seg_sectors << 9 bytes
 * @lo: the layout
 * @region: the region whose log it belongs to
 * @gen: the region log's generation
 * @segno: the segment's index within that generation
 *
 * Zeroes the header (hdr_sectors) and fills in the fixed part; the
 * payload is left as it is. The bytes to copy to the twin are
 * [0, sizeof(struct rl_plog_seg_disk)).
 */
void rl_plog_seg_init(void *seg, const struct rl_plog_layout *lo, u32 region,
		      u64 gen, u32 segno)
{
	struct rl_plog_seg_disk *h = seg;

	memset(seg, 0, (size_t)lo->hdr_sectors << SECTOR_SHIFT);
	h->magic = cpu_to_le32(RL_PLOG_SEG_MAGIC);
	h->region = cpu_to_le64(region);
	h->gen = cpu_to_le64(gen);
	h->seg = cpu_to_le32(segno);
	h->hdr_sectors = cpu_to_le16(lo->hdr_sectors);
}

/**
 * rl_plog_seg_room() - payload sectors a new record could still use
 * @seg: the image
 * @lo: the layout
 *
 * Return: the free payload sectors, or 0 if the header has no room for
 * one more descriptor.
 */
u32 rl_plog_seg_room(const void *seg, const struct rl_plog_layout *lo)
{
	const struct rl_plog_seg_disk *h = seg;

	if (le16_to_cpu(h->nr) >= lo->max_recs)
		return 0;
	return rl_plog_seg_payload_max(lo) - le32_to_cpu(h->payload_sectors);
}

/* a record's col is valid: 0 for f = 1; f = 2: a data column, or 0 (P) / 1 (Q) */
static bool rl_plog_col_ok(const struct rl_plog_layout *lo, u8 type,
			   unsigned int col)
{
	if (lo->f == 1)
		return col == 0;
	return col < (type == RL_PLOG_OVERWRITE ? 2 : lo->cols);
}

/**
 * rl_plog_seg_append() - append a record to a segment image
 * @seg: the image, from rl_plog_seg_init()
 * @lo: the layout
 * @type: RL_PLOG_UPDATE (parity ^= payload; f = 2: P ^= payload,
 *	Q ^= g^col payload) or RL_PLOG_OVERWRITE (the check block = payload)
 * @row: the row within the region, below S
 * @col: 0 for f = 1; f = 2: an UPDATE's data column (below cols), an
 *	OVERWRITE's check block (0 P, 1 Q)
 * @off: the first sector within the row's parity chunk
 * @len: sectors, at least one, @off + @len within the chunk
 * @data: @len sectors of payload, copied in
 * @state: RL_PLOG_PENDING or RL_PLOG_COMMITTED
 *
 * The descriptor is written after the payload and the record count last,
 * the order rl_plog_md_sync() keeps on the twin.
 *
 * Return: the record's index, -ENOSPC if it does not fit (seal and write
 * the segment, append to a fresh one), -EINVAL for a bad record.
 */
int rl_plog_seg_append(void *seg, const struct rl_plog_layout *lo,
		       enum rl_plog_rec_type type, u32 row, unsigned int col,
		       u32 off, u32 len, const void *data,
		       enum rl_plog_rec_state state)
{
	struct rl_plog_seg_disk *h = seg;
	struct rl_plog_rec_disk *rec;
	unsigned int nr = le16_to_cpu(h->nr);
	u32 used = le32_to_cpu(h->payload_sectors);
	u32 at = lo->hdr_sectors + used;

	if ((type != RL_PLOG_UPDATE && type != RL_PLOG_OVERWRITE) ||
	    (state != RL_PLOG_PENDING && state != RL_PLOG_COMMITTED) ||
	    !len || row >= lo->slice || !rl_plog_col_ok(lo, type, col) ||
	    (u64)off + len > (1U << lo->chunk_shift))
		return -EINVAL;
	if (len > rl_plog_seg_room(seg, lo))
		return -ENOSPC;
	memcpy(seg + ((size_t)at << SECTOR_SHIFT), data,
	       (size_t)len << SECTOR_SHIFT);
	rec = &h->recs[nr];
	rec->row = cpu_to_le32(row);
	rec->type = type;
	rec->state = state;
	rec->off = cpu_to_le16(off);
	rec->len = cpu_to_le16(len);
	rec->payload = cpu_to_le16(at);
	rec->col = col;
	memset(rec->reserved, 0, sizeof(rec->reserved));
	h->payload_sectors = cpu_to_le32(used + len);
	h->nr = cpu_to_le16(nr + 1);
	return nr;
}

/**
 * rl_plog_seg_dirty() - the bytes of the image record @rec touched
 * @seg: the image
 * @rec: a record index
 * @hdr_hi: set to the end of the header bytes to copy: [0, *hdr_hi)
 *	covers the fixed header and descriptors 0 .. @rec
 * @lo: set to the record's first payload byte
 * @hi: set to the end of its payload
 */
void rl_plog_seg_dirty(const void *seg, unsigned int rec, unsigned int *hdr_hi,
		       unsigned int *lo, unsigned int *hi)
{
	const struct rl_plog_seg_disk *h = seg;
	const struct rl_plog_rec_disk *r = &h->recs[rec];

	*hdr_hi = RL_PLOG_HDR_FIXED + (rec + 1) * sizeof(*r);
	*lo = le16_to_cpu(r->payload) << SECTOR_SHIFT;
	*hi = *lo + (le16_to_cpu(r->len) << SECTOR_SHIFT);
}

/**
 * rl_plog_seg_set_state() - change a record's state
 * @seg: the image
 * @rec: the record's index
 * @state: its new state (the header bytes of rl_plog_seg_dirty() cover it)
 */
void rl_plog_seg_set_state(void *seg, unsigned int rec,
			   enum rl_plog_rec_state state)
{
	struct rl_plog_seg_disk *h = seg;

	h->recs[rec].state = state;
}

/**
 * rl_plog_seg_committed() - may the segment be written to the log?
 * @seg: the image
 *
 * Return: true if every record is COMMITTED.
 */
bool rl_plog_seg_committed(const void *seg)
{
	const struct rl_plog_seg_disk *h = seg;
	unsigned int i, nr = le16_to_cpu(h->nr);

	for (i = 0; i < nr; i++)
		if (h->recs[i].state != RL_PLOG_COMMITTED)
			return false;
	return true;
}

/* crc32c of the header (its csum counted as zero) and the used payload */
static u32 rl_plog_seg_csum(const void *seg, u32 hdr_sectors, u32 payload)
{
	static const __le32 zero;
	u32 crc;

	crc = crc32c(~0U, &zero, sizeof(zero));
	crc = crc32c(crc, seg + sizeof(zero),
		     ((size_t)hdr_sectors << SECTOR_SHIFT) - sizeof(zero));
	crc = crc32c(crc, seg + ((size_t)hdr_sectors << SECTOR_SHIFT),
		     (size_t)payload << SECTOR_SHIFT);
	return crc ^ RL_PLOG_SEG_CSUM_XOR;
}

/**
 * rl_plog_seg_seal() - set a segment's checksum before it is written
 * @seg: the image
 * @lo: the layout
 *
 * The crc32c (seed ~0) runs over the hdr_sectors of header with the csum
 * field taken as zero, then the payload sectors used, and is xored with
 * RL_PLOG_SEG_CSUM_XOR.
 */
void rl_plog_seg_seal(void *seg, const struct rl_plog_layout *lo)
{
	struct rl_plog_seg_disk *h = seg;

	h->csum = cpu_to_le32(rl_plog_seg_csum(seg, lo->hdr_sectors,
					       le32_to_cpu(h->payload_sectors)));
}

/**
 * rl_plog_seg_check() - validate a segment image
 * @seg: the image
 * @lo: the layout
 * @region: the region it must belong to
 * @gen: the generation it must carry
 * @segno: the segment index it must carry
 * @sealed: a segment read from the log: check the checksum, and that
 *	every record is COMMITTED; false for a twin (no checksum yet)
 * @why: set to the reason on failure: "bad magic", "bad header size",
 *	"too many records", "payload larger than the segment", "bad
 *	checksum", "wrong region", "wrong generation", "wrong segment",
 *	"bad record type", "bad record state", "pending record in a sealed
 *	segment", "record row outside the region", "bad record column"
 *	(see rl_plog_seg_append()), "record outside its chunk" or "record
 *	outside the payload"
 *
 * Return: 0 or -EINVAL.
 */
int rl_plog_seg_check(const void *seg, const struct rl_plog_layout *lo,
		      u32 region, u64 gen, u32 segno, bool sealed,
		      const char **why)
{
	const struct rl_plog_seg_disk *h = seg;
	unsigned int i, nr = le16_to_cpu(h->nr);
	u32 payload = le32_to_cpu(h->payload_sectors);

	if (le32_to_cpu(h->magic) != RL_PLOG_SEG_MAGIC)
		*why = "bad magic";
	else if (le16_to_cpu(h->hdr_sectors) != lo->hdr_sectors)
		*why = "bad header size";
	else if (nr > lo->max_recs)
		*why = "too many records";
	else if (payload > rl_plog_seg_payload_max(lo))
		*why = "payload larger than the segment";
	else if (sealed && le32_to_cpu(h->csum) !=
			   rl_plog_seg_csum(seg, lo->hdr_sectors, payload))
		*why = "bad checksum";
	else if (le64_to_cpu(h->region) != region)
		*why = "wrong region";
	else if (le64_to_cpu(h->gen) != gen)
		*why = "wrong generation";
	else if (le32_to_cpu(h->seg) != segno)
		*why = "wrong segment";
	else
		*why = NULL;
	if (*why)
		return -EINVAL;

	for (i = 0; i < nr; i++) {
		const struct rl_plog_rec_disk *r = &h->recs[i];
		u32 at = le16_to_cpu(r->payload), len = le16_to_cpu(r->len);

		if (r->type != RL_PLOG_UPDATE && r->type != RL_PLOG_OVERWRITE)
			*why = "bad record type";
		else if (r->state != RL_PLOG_PENDING &&
			 r->state != RL_PLOG_COMMITTED)
			*why = "bad record state";
		else if (sealed && r->state != RL_PLOG_COMMITTED)
			*why = "pending record in a sealed segment";
		else if (le32_to_cpu(r->row) >= lo->slice)
			*why = "record row outside the region";
		else if (!rl_plog_col_ok(lo, r->type, r->col))
			*why = "bad record column";
		else if (!len || (u64)le16_to_cpu(r->off) + len >
				 (1U << lo->chunk_shift))
			*why = "record outside its chunk";
		else if (at < lo->hdr_sectors ||
			 (u64)at + len > (u64)lo->hdr_sectors + payload)
			*why = "record outside the payload";
		if (*why)
			return -EINVAL;
	}
	return 0;
}

/* f = 2: P ^= @src, Q ^= g^col @src, with lib/raid6's xor_syndrome */
static void rl_plog_apply_pq(const struct rl_plog_layout *lo,
			     unsigned int col, void *src, void *p, void *q,
			     size_t bytes)
{
	void *ptrs[RL_PQ_MAX_DISKS];
	unsigned int k;

	/* only column col is read; the others point at it too */
	for (k = 0; k < lo->cols; k++)
		ptrs[k] = src;
	ptrs[lo->cols] = p;
	ptrs[lo->cols + 1] = q;
	rl_pq_xor_va(ptrs, lo->cols + 2, col, col, bytes);
}

/**
 * rl_plog_apply() - apply a segment's records to a region's check blocks
 * @lo: the layout
 * @seg: a checked segment image
 * @parity: the region's f S check chunks: row i's P at byte
 *	i << (chunk_shift + 9), for f = 2 its Q at chunk S + i
 * @recompute: S bits; a PENDING record sets its row's bit and is skipped
 *	(the caller recomputes those rows from data); NULL if pending
 *	records are not expected
 *
 * Records are applied one after another in log order: UPDATE xors its
 * payload into P (f = 2: and g^col times it into Q, through lib/raid6),
 * OVERWRITE copies it into P (f = 2, col 1: into Q). Call it for the
 * region's segments in order.
 *
 * Return: 0, or -EINVAL for a pending record without @recompute, or a
 * record outside the region, its chunk or the segment, or with a bad
 * column (the records before it are applied, none after it).
 */
int rl_plog_apply(const struct rl_plog_layout *lo, const void *seg,
		  void *parity, unsigned long *recompute)
{
	return rl_plog_apply_resolved(lo, seg, parity, recompute, NULL);
}

/**
 * rl_plog_apply_resolved() - apply a segment, some PENDING rows resolved
 * @lo: the layout
 * @seg: the segment image (checked)
 * @parity: the region's check chunks
 * @recompute: S bits, rows of PENDING records not resolved; or NULL
 * @resolved: S bits, rows whose PENDING records are applied as COMMITTED
 *	(their write's new data was written again from its data slot); or
 *	NULL
 *
 * Return: 0, or -EINVAL for a bad record (or a PENDING one not resolved
 * with @recompute NULL).
 */
int rl_plog_apply_resolved(const struct rl_plog_layout *lo, const void *seg,
			   void *parity, unsigned long *recompute,
			   const unsigned long *resolved)
{
	const struct rl_plog_seg_disk *h = seg;
	const size_t cshift = lo->chunk_shift + SECTOR_SHIFT;
	unsigned int i, nr = le16_to_cpu(h->nr);

	for (i = 0; i < nr; i++) {
		const struct rl_plog_rec_disk *r = &h->recs[i];
		u32 row = le32_to_cpu(r->row), len = le16_to_cpu(r->len);
		u32 off = le16_to_cpu(r->off);
		size_t bytes = (size_t)len << SECTOR_SHIFT;
		void *dst, *src;

		if (row >= lo->slice || !len ||
		    (u64)off + len > (1U << lo->chunk_shift) ||
		    (r->type != RL_PLOG_UPDATE && r->type != RL_PLOG_OVERWRITE) ||
		    !rl_plog_col_ok(lo, r->type, r->col) ||
		    le16_to_cpu(r->payload) < lo->hdr_sectors ||
		    (u64)le16_to_cpu(r->payload) + len > lo->seg_sectors)
			return -EINVAL;
		if (r->state == RL_PLOG_PENDING &&
		    !(resolved && test_bit(row, resolved))) {
			if (!recompute)
				return -EINVAL;
			__set_bit(row, recompute);
			continue;
		}
		if (r->state != RL_PLOG_COMMITTED && r->state != RL_PLOG_PENDING)
			return -EINVAL;
		dst = parity + ((size_t)row << cshift) +
		      ((size_t)off << SECTOR_SHIFT);
		src = (void *)seg + ((size_t)le16_to_cpu(r->payload) << SECTOR_SHIFT);
		if (r->type == RL_PLOG_UPDATE && lo->f == 2)
			rl_plog_apply_pq(lo, r->col, src, dst,
					 dst + ((size_t)lo->slice << cshift), bytes);
		else if (r->type == RL_PLOG_UPDATE)
			xor_blocks(1, bytes, dst, &src);
		else
			memcpy(dst + ((size_t)r->col * lo->slice << cshift), src,
			       bytes);
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * The log-buffer pool.
 */

/**
 * rl_plog_pool_init() - allocate the pool's buffers
 * @pool: the pool
 * @nr: buffers (at least one)
 * @seg_bytes: bytes of a segment image (vmalloc'd)
 *
 * Buffer i gets twin i. Process context.
 *
 * Return: 0 or -ENOMEM (nothing allocated is left behind).
 */
int rl_plog_pool_init(struct rl_plog_pool *pool, unsigned int nr,
		      unsigned int seg_bytes)
{
	unsigned int i;

	memset(pool, 0, sizeof(*pool));
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->free);
	if (!nr)
		return -EINVAL;
	pool->bufs = kvcalloc(nr, sizeof(*pool->bufs), GFP_KERNEL);
	if (!pool->bufs)
		return -ENOMEM;
	pool->nr = nr;
	for (i = 0; i < nr; i++) {
		struct rl_plog_buf *b = &pool->bufs[i];

		b->seg = vzalloc(seg_bytes);
		if (!b->seg) {
			rl_plog_pool_exit(pool);
			return -ENOMEM;
		}
		b->idx = i;
		b->region = U32_MAX;
		list_add_tail(&b->list, &pool->free);
	}
	pool->nr_free = nr;
	pool->min_free = nr;
	return 0;
}

/**
 * rl_plog_pool_exit() - free the pool's buffers
 * @pool: the pool (every buffer back, or never handed out)
 */
void rl_plog_pool_exit(struct rl_plog_pool *pool)
{
	unsigned int i;

	if (!pool->bufs)
		return;
	for (i = 0; i < pool->nr; i++)
		vfree(pool->bufs[i].seg);
	kvfree(pool->bufs);
	pool->bufs = NULL;
	pool->nr = 0;
	pool->nr_free = 0;
	INIT_LIST_HEAD(&pool->free);
}

/**
 * rl_plog_pool_get() - take a free buffer
 * @pool: the pool
 *
 * Any context. Counts the get, or the wait when none is free, and keeps
 * the low-water mark.
 *
 * Return: the buffer, or NULL when the pool is exhausted.
 */
struct rl_plog_buf *rl_plog_pool_get(struct rl_plog_pool *pool)
{
	struct rl_plog_buf *b;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	b = list_first_entry_or_null(&pool->free, struct rl_plog_buf, list);
	if (b) {
		list_del_init(&b->list);
		pool->nr_free--;
		pool->min_free = min(pool->min_free, pool->nr_free);
		pool->gets++;
	} else {
		pool->waits++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return b;
}

/**
 * rl_plog_pool_put() - give a buffer back
 * @pool: the pool
 * @b: a buffer from rl_plog_pool_get()
 *
 * Any context (bio completion included).
 */
void rl_plog_pool_put(struct rl_plog_pool *pool, struct rl_plog_buf *b)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	b->region = U32_MAX;
	b->pending = 0;
	list_add(&b->list, &pool->free);
	pool->nr_free++;
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* ------------------------------------------------------------------------
 * Durable state: the record area's encodings (pure).
 */

static u32 rl_plog_twin_blocks(const struct rl_plog_layout *lo)
{
	return DIV_ROUND_UP(lo->seg_sectors, RL_MD_BLOCK_SECTORS);
}

static u32 rl_plog_table_blocks(const struct rl_plog_layout *lo)
{
	return DIV_ROUND_UP(lo->nr_regions, RL_PLOG_ENTS_PER_BLOCK);
}

/**
 * rl_plog_md_blocks() - the record area's size
 * @lo: the layout
 * @nr_bufs: pool buffers, one twin each
 *
 * Return: metadata blocks: the header, the region table and the twins.
 */
u64 rl_plog_md_blocks(const struct rl_plog_layout *lo, unsigned int nr_bufs)
{
	return 1 + rl_plog_table_blocks(lo) +
	       (u64)nr_bufs * rl_plog_twin_blocks(lo);
}

static u32 rl_plog_md_hdr_csum(const void *block)
{
	return rl_md_csum(block, RL_MD_BLOCK, RL_PLOG_MD_CSUM_XOR);
}

/**
 * rl_plog_md_hdr_encode() - the area's header block
 * @lo: the layout
 * @nr_bufs: pool buffers
 * @block: a zeroed 4 KiB block, filled in
 */
void rl_plog_md_hdr_encode(const struct rl_plog_layout *lo,
			   unsigned int nr_bufs, void *block)
{
	struct rl_plog_md_hdr_disk *h = block;

	h->magic = cpu_to_le32(RL_PLOG_MD_MAGIC);
	h->version = cpu_to_le32(RL_PLOG_MD_VERSION);
	h->n = cpu_to_le32(lo->n);
	h->l = cpu_to_le32(lo->l);
	h->chunk_shift = cpu_to_le32(lo->chunk_shift);
	h->regions = cpu_to_le32(lo->nr_regions);
	h->slice = cpu_to_le32(lo->slice);
	h->sublog = cpu_to_le32(lo->sublog);
	h->seg_sectors = cpu_to_le32(lo->seg_sectors);
	h->hdr_sectors = cpu_to_le32(lo->hdr_sectors);
	h->nr_bufs = cpu_to_le32(nr_bufs);
	h->blocks = cpu_to_le64(rl_plog_md_blocks(lo, nr_bufs));
	h->faults = cpu_to_le32(lo->f);
	h->csum = cpu_to_le32(rl_plog_md_hdr_csum(block));
}

/**
 * rl_plog_md_hdr_check() - validate the area's header block
 * @block: the 4 KiB block
 * @lo: the layout the table line describes
 * @nr_bufs: the pool buffers it asks for
 * @why: set to the reason on failure
 *
 * A version 1 block (before faults) describes an f = 1 log; version 2
 * carries f.
 *
 * Return: 0; -ENODATA for a block of zeroes (a new area); -EINVAL for a
 * bad magic, checksum or version; -ESTALE when the block describes
 * another layout, buffer count or number of faults (the table changed
 * under the log).
 */
int rl_plog_md_hdr_check(const void *block, const struct rl_plog_layout *lo,
			 unsigned int nr_bufs, const char **why)
{
	const struct rl_plog_md_hdr_disk *h = block;
	u32 version, faults;

	if (!memchr_inv(block, 0, RL_MD_BLOCK)) {
		*why = "empty";
		return -ENODATA;
	}
	if (le32_to_cpu(h->magic) != RL_PLOG_MD_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(h->csum) != rl_plog_md_hdr_csum(block)) {
		*why = "bad checksum";
		return -EINVAL;
	}
	version = le32_to_cpu(h->version);
	if (version != 1 && version != RL_PLOG_MD_VERSION) {
		*why = "unsupported version";
		return -EINVAL;
	}
	faults = version == 1 ? 1 : le32_to_cpu(h->faults);
	if (faults != lo->f) {
		*why = version == 1 ?
		       "a version 1 log (faults 1) under a faults 2 table" :
		       "the table changed the number of faults under an existing log";
		return -ESTALE;
	}
	if (le32_to_cpu(h->n) != lo->n || le32_to_cpu(h->l) != lo->l ||
	    le32_to_cpu(h->chunk_shift) != lo->chunk_shift ||
	    le32_to_cpu(h->regions) != lo->nr_regions ||
	    le32_to_cpu(h->slice) != lo->slice ||
	    le32_to_cpu(h->sublog) != lo->sublog ||
	    le32_to_cpu(h->seg_sectors) != lo->seg_sectors ||
	    le32_to_cpu(h->hdr_sectors) != lo->hdr_sectors ||
	    le32_to_cpu(h->nr_bufs) != nr_bufs ||
	    le64_to_cpu(h->blocks) != rl_plog_md_blocks(lo, nr_bufs)) {
		*why = "the table changed under an existing log";
		return -ESTALE;
	}
	*why = NULL;
	return 0;
}

static u32 rl_plog_md_ent_csum(u32 region, const struct rl_plog_md_ent *ent)
{
	__le32 r = cpu_to_le32(region);
	u32 crc = crc32c(~0U, &r, sizeof(r));

	crc = crc32c(crc, ent, offsetof(struct rl_plog_md_ent, csum));
	return crc ^ RL_PLOG_ENT_CSUM_XOR;
}

/**
 * rl_plog_md_ent_encode() - a region table slot
 * @region: the region (in the checksum: a slot never validates elsewhere)
 * @gen: its log's generation, at least 1
 * @segs: its segments on disk in that generation
 * @ent: filled in
 */
void rl_plog_md_ent_encode(u32 region, u64 gen, u32 segs,
			   struct rl_plog_md_ent *ent)
{
	ent->gen = cpu_to_le64(gen);
	ent->segs = cpu_to_le32(segs);
	ent->csum = cpu_to_le32(rl_plog_md_ent_csum(region, ent));
}

/**
 * rl_plog_md_ent_decode() - read a region table slot
 * @ent: the slot
 * @region: the region it must belong to
 * @gen: set to its generation
 * @segs: set to its segments on disk
 *
 * Return: true if the slot is valid (checksum, generation not 0).
 */
bool rl_plog_md_ent_decode(const struct rl_plog_md_ent *ent, u32 region,
			   u64 *gen, u32 *segs)
{
	if (!ent->gen ||
	    le32_to_cpu(ent->csum) != rl_plog_md_ent_csum(region, ent))
		return false;
	*gen = le64_to_cpu(ent->gen);
	*segs = le32_to_cpu(ent->segs);
	return true;
}

/**
 * rl_plog_md_ent_pick() - a region's current value from its two slots
 * @pair: the two slots
 * @region: the region
 * @gen: set to the current generation
 * @segs: set to the current segments on disk
 *
 * (gen, segs) only grows, so the valid slot with the larger pair wins.
 *
 * Return: the slot (0 or 1), or -EINVAL if neither is valid.
 */
int rl_plog_md_ent_pick(const struct rl_plog_md_ent *pair, u32 region,
			u64 *gen, u32 *segs)
{
	u64 g[2];
	u32 s[2];
	bool ok0 = rl_plog_md_ent_decode(&pair[0], region, &g[0], &s[0]);
	bool ok1 = rl_plog_md_ent_decode(&pair[1], region, &g[1], &s[1]);
	int i;

	if (!ok0 && !ok1)
		return -EINVAL;
	if (ok0 && ok1)
		i = (g[1] > g[0] || (g[1] == g[0] && s[1] > s[0])) ? 1 : 0;
	else
		i = ok1 ? 1 : 0;
	*gen = g[i];
	*segs = s[i];
	return i;
}

/* ------------------------------------------------------------------------
 * Data slots: the encodings and the recovery decision (pure).
 */

static u32 rl_plog_row_sectors(const struct rl_plog_layout *lo)
{
	return lo->cols << lo->chunk_shift;
}

/**
 * rl_plog_slot_blocks() - a data slot's size
 * @lo: the layout
 *
 * Return: metadata blocks: the slot's header, then a row of data.
 */
u32 rl_plog_slot_blocks(const struct rl_plog_layout *lo)
{
	return 1 + DIV_ROUND_UP(rl_plog_row_sectors(lo), RL_MD_BLOCK_SECTORS);
}

/**
 * rl_plog_slots_blocks() - the data-slot area's size
 * @lo: the layout
 * @nr_slots: slots, one per foreground context
 *
 * Return: metadata blocks: the header block and the slots.
 */
u64 rl_plog_slots_blocks(const struct rl_plog_layout *lo,
			 unsigned int nr_slots)
{
	return 1 + (u64)nr_slots * rl_plog_slot_blocks(lo);
}

static u32 rl_plog_slots_hdr_csum(const void *block)
{
	return rl_md_csum(block, RL_MD_BLOCK, RL_PLOG_SLOTS_CSUM_XOR);
}

/**
 * rl_plog_slots_hdr_encode() - the data-slot area's header block
 * @lo: the layout
 * @nr_slots: slots
 * @block: a zeroed 4 KiB block, filled in
 */
void rl_plog_slots_hdr_encode(const struct rl_plog_layout *lo,
			      unsigned int nr_slots, void *block)
{
	struct rl_plog_slots_hdr_disk *h = block;

	h->magic = cpu_to_le32(RL_PLOG_SLOTS_MAGIC);
	h->version = cpu_to_le32(RL_PLOG_SLOTS_VERSION);
	h->nr_slots = cpu_to_le32(nr_slots);
	h->slot_blocks = cpu_to_le32(rl_plog_slot_blocks(lo));
	h->row_sectors = cpu_to_le32(rl_plog_row_sectors(lo));
	h->blocks = cpu_to_le64(rl_plog_slots_blocks(lo, nr_slots));
	h->csum = cpu_to_le32(rl_plog_slots_hdr_csum(block));
}

/**
 * rl_plog_slots_hdr_check() - validate the data-slot area's header block
 * @block: the 4 KiB block
 * @lo: the layout the table line describes
 * @nr_slots: the slots it needs
 * @why: set to the reason on failure
 *
 * Return: 0; -ENODATA for a block of zeroes; -EINVAL for a bad magic,
 * checksum or version; -ESTALE for another slot count or size.
 */
int rl_plog_slots_hdr_check(const void *block, const struct rl_plog_layout *lo,
			    unsigned int nr_slots, const char **why)
{
	const struct rl_plog_slots_hdr_disk *h = block;

	if (!memchr_inv(block, 0, RL_MD_BLOCK)) {
		*why = "empty";
		return -ENODATA;
	}
	if (le32_to_cpu(h->magic) != RL_PLOG_SLOTS_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(h->csum) != rl_plog_slots_hdr_csum(block)) {
		*why = "bad checksum";
		return -EINVAL;
	}
	if (le32_to_cpu(h->version) != RL_PLOG_SLOTS_VERSION) {
		*why = "unsupported version";
		return -EINVAL;
	}
	if (le32_to_cpu(h->nr_slots) != nr_slots ||
	    le32_to_cpu(h->slot_blocks) != rl_plog_slot_blocks(lo) ||
	    le32_to_cpu(h->row_sectors) != rl_plog_row_sectors(lo) ||
	    le64_to_cpu(h->blocks) != rl_plog_slots_blocks(lo, nr_slots)) {
		*why = "another slot count or size";
		return -ESTALE;
	}
	*why = NULL;
	return 0;
}

static u32 rl_plog_slot_csum(const struct rl_plog_slot_disk *s)
{
	return crc32c(~0U, (const u8 *)s + sizeof(__le32),
		      sizeof(*s) - sizeof(__le32)) ^ RL_PLOG_SLOT_CSUM_XOR;
}

/**
 * rl_plog_slot_encode() - a data slot's header
 * @id: the write's first record, record count and row span
 * @data_csum: crc32c (seed ~0) of the slot's data
 * @s: filled in
 */
void rl_plog_slot_encode(const struct rl_plog_slot_id *id, u32 data_csum,
			 struct rl_plog_slot_disk *s)
{
	memset(s, 0, sizeof(*s));
	s->magic = cpu_to_le32(RL_PLOG_SLOT_MAGIC);
	s->region = cpu_to_le32(id->region);
	s->seg = cpu_to_le32(id->seg);
	s->gen = cpu_to_le64(id->gen);
	s->rec = cpu_to_le16(id->rec);
	s->nrec = cpu_to_le16(id->nrec);
	s->row = cpu_to_le32(id->row);
	s->off = cpu_to_le32(id->off);
	s->len = cpu_to_le32(id->len);
	s->data_csum = cpu_to_le32(data_csum);
	s->csum = cpu_to_le32(rl_plog_slot_csum(s));
}

/**
 * rl_plog_slot_check() - validate a data slot
 * @s: its header
 * @data: its data (len sectors), or NULL to check the header only
 * @lo: the layout
 * @id: filled in when valid
 * @why: set to the reason on failure
 *
 * Return: 0; -ENODATA for a header of zeroes (never written); -EINVAL
 * for a bad magic, checksum, extent or data checksum (a torn slot).
 */
int rl_plog_slot_check(const struct rl_plog_slot_disk *s, const void *data,
		       const struct rl_plog_layout *lo,
		       struct rl_plog_slot_id *id, const char **why)
{
	u32 region = le32_to_cpu(s->region), row = le32_to_cpu(s->row);
	u32 off = le32_to_cpu(s->off), len = le32_to_cpu(s->len);
	u32 nrec = le16_to_cpu(s->nrec);

	if (!memchr_inv(s, 0, sizeof(*s))) {
		*why = "empty";
		return -ENODATA;
	}
	if (le32_to_cpu(s->magic) != RL_PLOG_SLOT_MAGIC) {
		*why = "bad magic";
		return -EINVAL;
	}
	if (le32_to_cpu(s->csum) != rl_plog_slot_csum(s)) {
		*why = "bad checksum";
		return -EINVAL;
	}
	if (region >= lo->nr_regions || row >= lo->slice || !len ||
	    (u64)off + len > rl_plog_row_sectors(lo) || !nrec ||
	    nrec > lo->cols || !le64_to_cpu(s->gen)) {
		*why = "bad extent";
		return -EINVAL;
	}
	if (data && crc32c(~0U, data, (size_t)len << SECTOR_SHIFT) !=
		    le32_to_cpu(s->data_csum)) {
		*why = "bad data checksum";
		return -EINVAL;
	}
	id->region = region;
	id->gen = le64_to_cpu(s->gen);
	id->seg = le32_to_cpu(s->seg);
	id->rec = le16_to_cpu(s->rec);
	id->nrec = nrec;
	id->row = row;
	id->off = off;
	id->len = len;
	*why = NULL;
	return 0;
}

/**
 * rl_plog_slot_resolves() - may a slot's data resolve its row?
 * @id: the slot (checked)
 * @segs: the twin images of region @id->region that checked out
 * @nr: their number
 *
 * A row has one write in flight at most (its lock), so every PENDING
 * record of the row is that write's. The slot resolves the row if the
 * record it names is there, PENDING and of the row, and the row's PENDING
 * records are as many as the write appended: a record in a torn twin, or
 * in one not written yet, leaves the row to the caller's old ways.
 *
 * Return: true if the row's PENDING records may be applied, the slot's
 * data written again.
 */
bool rl_plog_slot_resolves(const struct rl_plog_slot_id *id,
			   const void *const *segs, unsigned int nr)
{
	unsigned int i, j, pending = 0;
	bool named = false;

	for (i = 0; i < nr; i++) {
		const struct rl_plog_seg_disk *h = segs[i];

		if (le64_to_cpu(h->region) != id->region)
			continue;
		for (j = 0; j < le16_to_cpu(h->nr); j++) {
			const struct rl_plog_rec_disk *r = &h->recs[j];

			if (r->state != RL_PLOG_PENDING ||
			    le32_to_cpu(r->row) != id->row)
				continue;
			pending++;
			if (le64_to_cpu(h->gen) == id->gen &&
			    le32_to_cpu(h->seg) == id->seg && j == id->rec)
				named = true;
		}
	}
	return named && pending == id->nrec;
}

/* ------------------------------------------------------------------------
 * Durable state: the service (DAX).
 */

#define RL_PLOG_ERR_CHANGED \
	"plog: the table changed under an existing parity log (layout or buffers differ)"

struct rl_plog_md_reg {
	u64 gen;
	u32 segs;
	u32 slot;			/* the slot holding gen, segs */
	bool rewrite;			/* RL_PLOG_ENT_REWRITE in that slot */
};

struct rl_plog_md {
	struct rl_md *md;
	struct rl_md_area area;
	void **blk;			/* DAX address of every area block */
	u32 nr_regions;
	unsigned int nr_bufs;
	u32 seg_bytes;
	u64 twin_start;			/* area block of twin 0 */
	u32 twin_blocks;
	spinlock_t lock;		/* reg[] and the table slots */
	struct rl_plog_md_reg *reg;
	void **img;			/* copies of the twins found in use */
	bool formatted;			/* the area was new: generations restart */
	/* data slots (RL_PLOG_SLOT_AREA_ID); nr_slots 0: none */
	void **sblk;			/* DAX address of every slot-area block */
	unsigned int nr_slots;
	u32 slot_blocks;
	struct rl_plog_slot_id *sid;	/* the slots that checked out at open */
	void **sdata;			/* and their data, or NULL */
};

/* everything written so far is durable (no-op over RAM blocks, for KUnit) */
static int rl_plog_md_persist(struct rl_plog_md *pm)
{
	return pm->md ? rl_md_persist(pm->md) : 0;
}

/*
 * Copy @len bytes to byte @off of the area, block by block (the DAX
 * mapping may be split: consecutive blocks need not be contiguous).
 * Durable after rl_plog_md_persist().
 */
static void rl_plog_blk_put(void *const *blk, u64 off, const void *src,
			    size_t len)
{
	while (len) {
		u64 b = off / RL_MD_BLOCK;
		size_t boff = off % RL_MD_BLOCK;
		size_t n = min_t(size_t, len, RL_MD_BLOCK - boff);

		memcpy_flushcache(blk[b] + boff, src, n);
		src += n;
		off += n;
		len -= n;
	}
}

static void rl_plog_md_put(struct rl_plog_md *pm, u64 off, const void *src,
			   size_t len)
{
	rl_plog_blk_put(pm->blk, off, src, len);
}

/* Read @len bytes at byte @off of an area: 0 or -EIO (media error). */
static int rl_plog_blk_get(void *const *blk, u64 off, void *dst, size_t len)
{
	while (len) {
		u64 b = off / RL_MD_BLOCK;
		size_t boff = off % RL_MD_BLOCK;
		size_t n = min_t(size_t, len, RL_MD_BLOCK - boff);

		if (copy_mc_to_kernel(dst, blk[b] + boff, n))
			return -EIO;
		dst += n;
		off += n;
		len -= n;
	}
	return 0;
}

static int rl_plog_md_get(struct rl_plog_md *pm, u64 off, void *dst,
			  size_t len)
{
	return rl_plog_blk_get(pm->blk, off, dst, len);
}

static u64 rl_plog_md_twin_off(const struct rl_plog_md *pm, unsigned int idx)
{
	return (pm->twin_start + (u64)idx * pm->twin_blocks) * RL_MD_BLOCK;
}

static u64 rl_plog_md_ent_off(u32 region, unsigned int slot)
{
	return (1 + region / RL_PLOG_ENTS_PER_BLOCK) * (u64)RL_MD_BLOCK +
	       (region % RL_PLOG_ENTS_PER_BLOCK) * 2 *
	       sizeof(struct rl_plog_md_ent) +
	       slot * sizeof(struct rl_plog_md_ent);
}

/**
 * rl_plog_md_close() - free the durable state's in-core part
 * @pm: from rl_plog_md_open(), or NULL
 */
void rl_plog_md_close(struct rl_plog_md *pm)
{
	unsigned int i;

	if (!pm)
		return;
	rl_plog_md_slots_done(pm);
	kvfree(pm->sblk);
	if (pm->img)
		for (i = 0; i < pm->nr_bufs; i++)
			vfree(pm->img[i]);
	kvfree(pm->img);
	kvfree(pm->reg);
	kvfree(pm->blk);
	kfree(pm);
}

/* A new area: every region gen 1 segs 0, every twin free, then the header. */
static int rl_plog_md_format(struct rl_plog_md *pm,
			     const struct rl_plog_layout *lo, void *buf)
{
	struct rl_plog_md_ent *ents = buf;
	u8 zero[RL_PLOG_HDR_FIXED] = { };
	u32 r, b;
	int ret;

	for (b = 0; b < rl_plog_table_blocks(lo); b++) {
		memset(buf, 0, RL_MD_BLOCK);
		for (r = 0; r < RL_PLOG_ENTS_PER_BLOCK; r++) {
			u32 region = b * RL_PLOG_ENTS_PER_BLOCK + r;

			if (region < lo->nr_regions)
				rl_plog_md_ent_encode(region, 1, 0, &ents[2 * r]);
		}
		rl_plog_md_put(pm, (1 + (u64)b) * RL_MD_BLOCK, buf, RL_MD_BLOCK);
	}
	for (b = 0; b < pm->nr_bufs; b++)
		rl_plog_md_put(pm, rl_plog_md_twin_off(pm, b), zero,
			       sizeof(zero));
	ret = rl_plog_md_persist(pm);
	if (ret)
		return ret;
	memset(buf, 0, RL_MD_BLOCK);
	rl_plog_md_hdr_encode(lo, pm->nr_bufs, buf);
	rl_plog_md_put(pm, 0, buf, RL_MD_BLOCK);
	return rl_plog_md_persist(pm);
}

/* An existing area: the region table and the twins in use. */
static int rl_plog_md_load(struct rl_plog_md *pm, char **error)
{
	struct rl_plog_md_ent pair[2];
	__le32 magic;
	u32 r;
	unsigned int i;

	for (r = 0; r < pm->nr_regions; r++) {
		int slot;

		if (rl_plog_md_get(pm, rl_plog_md_ent_off(r, 0), pair,
				   sizeof(pair)))
			goto eio;
		slot = rl_plog_md_ent_pick(pair, r, &pm->reg[r].gen,
					   &pm->reg[r].segs);
		if (slot < 0) {
			*error = "plog: the parity-log region table is corrupt";
			return -EINVAL;
		}
		pm->reg[r].slot = slot;
		pm->reg[r].rewrite = pm->reg[r].segs & RL_PLOG_ENT_REWRITE;
		pm->reg[r].segs &= ~RL_PLOG_ENT_REWRITE;
	}
	for (i = 0; i < pm->nr_bufs; i++) {
		u64 off = rl_plog_md_twin_off(pm, i);

		if (rl_plog_md_get(pm, off + offsetof(struct rl_plog_seg_disk,
						      magic),
				   &magic, sizeof(magic)))
			goto eio;
		if (le32_to_cpu(magic) != RL_PLOG_SEG_MAGIC)
			continue;
		pm->img[i] = vmalloc(pm->seg_bytes);
		if (!pm->img[i]) {
			*error = "plog: cannot allocate the parity-log recovery buffers";
			return -ENOMEM;
		}
		if (rl_plog_md_get(pm, off, pm->img[i], pm->seg_bytes))
			goto eio;
	}
	return 0;
eio:
	*error = "plog: cannot read the parity-log area (media error)";
	return -EIO;
}

static bool rl_plog_md_have(struct rl_md *md, u32 id)
{
	const struct rl_md_state *st = rl_md_state(md);
	bool have = false;
	unsigned int i;

	rl_md_lock(md);
	for (i = 0; i < st->nr_areas; i++)
		if (st->areas[i].id == id)
			have = true;
	rl_md_unlock(md);
	return have;
}

static struct rl_plog_md *
rl_plog_md_alloc(const struct rl_plog_layout *lo, unsigned int nr_bufs,
		 u64 blocks)
{
	struct rl_plog_md *pm = kzalloc(sizeof(*pm), GFP_KERNEL);

	if (!pm)
		return NULL;
	pm->nr_regions = lo->nr_regions;
	pm->nr_bufs = nr_bufs;
	pm->seg_bytes = lo->seg_sectors << SECTOR_SHIFT;
	pm->twin_start = 1 + rl_plog_table_blocks(lo);
	pm->twin_blocks = rl_plog_twin_blocks(lo);
	spin_lock_init(&pm->lock);
	pm->blk = kvcalloc(blocks, sizeof(*pm->blk), GFP_KERNEL);
	pm->reg = kvcalloc(pm->nr_regions, sizeof(*pm->reg), GFP_KERNEL);
	pm->img = kvcalloc(nr_bufs, sizeof(*pm->img), GFP_KERNEL);
	if (!pm->blk || !pm->reg || !pm->img) {
		rl_plog_md_close(pm);
		return NULL;
	}
	return pm;
}

/* Blocks mapped: format a new area (or one whose format did not finish), or load it. */
static int rl_plog_md_setup(struct rl_plog_md *pm,
			    const struct rl_plog_layout *lo, bool have,
			    char **error)
{
	const char *why;
	void *buf;
	u32 i;
	int r;

	buf = kzalloc(RL_MD_BLOCK, GFP_KERNEL);
	if (!buf) {
		*error = "plog: cannot allocate the parity log's durable state";
		return -ENOMEM;
	}
	r = have ? rl_plog_md_get(pm, 0, buf, RL_MD_BLOCK) : 0;
	if (r) {
		*error = "plog: cannot read the parity-log area (media error)";
		goto out;
	}
	r = have ? rl_plog_md_hdr_check(buf, lo, pm->nr_bufs, &why) : -ENODATA;
	if (r == -ENODATA) {
		r = rl_plog_md_format(pm, lo, buf);
		if (r) {
			*error = "plog: cannot write the parity-log area";
			goto out;
		}
		for (i = 0; i < pm->nr_regions; i++)
			pm->reg[i].gen = 1;
		pm->formatted = true;
	} else if (r == -ESTALE) {
		*error = RL_PLOG_ERR_CHANGED;
	} else if (r) {
		*error = "plog: the parity-log area's header is corrupt";
	} else {
		r = rl_plog_md_load(pm, error);
	}
out:
	kfree(buf);
	return r;
}

/**
 * rl_plog_md_open() - open (or make) the parity log's durable state
 * @md: the array's metadata service
 * @lo: the layout
 * @nr_bufs: pool buffers, one twin each
 * @pmp: set to the state
 * @error: set to a static message on failure (for ti->error)
 *
 * A new area is formatted (every region generation 1 with no segment,
 * every twin free). An existing one must describe the same layout and
 * buffer count; its region table is loaded and the twins in use are
 * copied for rl_plog_md_twin(). The DAX mapping may come in pieces, so
 * every block's address is kept and copies go block by block. Process
 * context.
 *
 * Return: 0; -EOPNOTSUPP without DAX (dm-bufio metadata); -ESTALE when
 * the table changed under an existing log; -ENOSPC, -ENOMEM, -EINVAL or
 * -EIO.
 */
int rl_plog_md_open(struct rl_md *md, const struct rl_plog_layout *lo,
		    unsigned int nr_bufs, struct rl_plog_md **pmp,
		    char **error)
{
	struct rl_plog_md *pm;
	struct rl_md_area area;
	bool have;
	u64 b;
	int r;

	*pmp = NULL;
	if (strcmp(rl_md_backend(md), "dax")) {
		*error = "plog: a durable parity log needs a DAX metadata device";
		return -EOPNOTSUPP;
	}
	if (!nr_bufs) {
		*error = "plog: the parity log needs at least one buffer";
		return -EINVAL;
	}
	have = rl_plog_md_have(md, RL_PLOG_AREA_ID);
	r = rl_md_area_find(md, RL_PLOG_AREA_ID, rl_plog_md_blocks(lo, nr_bufs),
			    &area);
	if (r == -EINVAL) {
		*error = RL_PLOG_ERR_CHANGED;	/* the area has another size */
		return -ESTALE;
	} else if (r == -ENOSPC) {
		*error = "plog: no room for the parity log on the metadata device";
		return r;
	} else if (r) {
		*error = "plog: cannot make the parity-log area";
		return r;
	}
	pm = rl_plog_md_alloc(lo, nr_bufs, area.blocks);
	if (!pm) {
		*error = "plog: cannot allocate the parity log's durable state";
		return -ENOMEM;
	}
	pm->md = md;
	pm->area = area;
	for (b = 0; b < area.blocks; b++) {
		struct dm_buffer *bp;

		pm->blk[b] = rl_md_area_map(md, &area, b, false, &bp);
		if (!pm->blk[b]) {
			*error = "plog: cannot map the parity-log area";
			r = -EIO;
			goto bad;
		}
	}
	r = rl_plog_md_setup(pm, lo, have, error);
	if (r)
		goto bad;
	*pmp = pm;
	return 0;
bad:
	rl_plog_md_close(pm);
	return r;
}

/**
 * rl_plog_md_open_blocks() - the durable state over caller's RAM blocks
 * @blk: @nr_blocks addresses of 4 KiB blocks (need not be contiguous)
 * @nr_blocks: must be rl_plog_md_blocks(@lo, @nr_bufs)
 * @lo: the layout
 * @nr_bufs: pool buffers
 * @pmp: set to the state
 * @error: set on failure
 *
 * For KUnit: rl_plog_md_open() without a metadata device; blocks of
 * zeroes are formatted, durability points do nothing.
 *
 * Return: as rl_plog_md_open().
 */
int rl_plog_md_open_blocks(void *const *blk, u64 nr_blocks,
			   const struct rl_plog_layout *lo,
			   unsigned int nr_bufs, struct rl_plog_md **pmp,
			   char **error)
{
	struct rl_plog_md *pm;
	int r;

	*pmp = NULL;
	if (!nr_bufs || nr_blocks != rl_plog_md_blocks(lo, nr_bufs)) {
		*error = RL_PLOG_ERR_CHANGED;
		return -ESTALE;
	}
	pm = rl_plog_md_alloc(lo, nr_bufs, nr_blocks);
	if (!pm) {
		*error = "plog: cannot allocate the parity log's durable state";
		return -ENOMEM;
	}
	memcpy(pm->blk, blk, nr_blocks * sizeof(*blk));
	r = rl_plog_md_setup(pm, lo, true, error);
	if (r) {
		rl_plog_md_close(pm);
		return r;
	}
	*pmp = pm;
	return 0;
}

/**
 * rl_plog_md_region() - a region's log state
 * @pm: the state
 * @region: the region
 * @gen: set to its log's generation
 * @segs: set to its segments on disk in that generation
 *
 * Any context.
 */
void rl_plog_md_region(struct rl_plog_md *pm, u32 region, u64 *gen,
		       u32 *segs)
{
	unsigned long flags;

	spin_lock_irqsave(&pm->lock, flags);
	*gen = pm->reg[region].gen;
	*segs = pm->reg[region].segs;
	spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * rl_plog_md_set_region() - change a region's log state, durably
 * @pm: the state
 * @region: the region
 * @gen: its log's generation; (gen, segs) must not go backwards
 * @segs: its segments on disk in that generation
 *
 * Writes the slot that does not hold the current value, so a torn write
 * leaves the previous value. Durable on return; any context.
 */
void rl_plog_md_set_region(struct rl_plog_md *pm, u32 region, u64 gen,
			   u32 segs)
{
	struct rl_plog_md_reg *reg = &pm->reg[region];
	struct rl_plog_md_ent ent;
	unsigned long flags;
	unsigned int slot;

	spin_lock_irqsave(&pm->lock, flags);
	rl_plog_md_ent_encode(region, gen,
			      segs | (reg->rewrite ? RL_PLOG_ENT_REWRITE : 0),
			      &ent);
	slot = !reg->slot;
	rl_plog_md_put(pm, rl_plog_md_ent_off(region, slot), &ent, sizeof(ent));
	rl_plog_md_persist(pm);
	reg->gen = gen;
	reg->segs = segs;
	reg->slot = slot;
	spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * rl_plog_md_set_rewrite() - mark a region's parity rewrite, durably
 * @pm: the state
 * @region: the region
 * @on: a rewrite of its check information starts (true) or has ended,
 *	the check information written and durable (false)
 *
 * The mark is RL_PLOG_ENT_REWRITE in the region table slot. Set: the
 * slot not holding the current value gets it with the mark, which makes
 * it the larger pair (a torn write leaves the value unmarked: nothing was
 * rewritten yet). Cleared: both slots get the value without it, the one
 * not current first, so that a torn write leaves either the marked value
 * or the unmarked one. rl_plog_md_set_region() keeps the mark as it is.
 * Durable on return; any context.
 */
void rl_plog_md_set_rewrite(struct rl_plog_md *pm, u32 region, bool on)
{
	struct rl_plog_md_reg *reg = &pm->reg[region];
	struct rl_plog_md_ent ent;
	unsigned long flags;

	spin_lock_irqsave(&pm->lock, flags);
	reg->rewrite = on;
	rl_plog_md_ent_encode(region, reg->gen,
			      reg->segs | (on ? RL_PLOG_ENT_REWRITE : 0), &ent);
	reg->slot = !reg->slot;
	rl_plog_md_put(pm, rl_plog_md_ent_off(region, reg->slot), &ent,
		       sizeof(ent));
	rl_plog_md_persist(pm);
	if (!on) {
		rl_plog_md_put(pm, rl_plog_md_ent_off(region, !reg->slot), &ent,
			       sizeof(ent));
		rl_plog_md_persist(pm);
	}
	spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * rl_plog_md_rewrite() - was a parity rewrite of a region marked?
 * @pm: the state
 * @region: the region
 *
 * At construction, before anything clears it: true if a crash tore a
 * rewrite of the region's check information (rl_plog_md_set_rewrite()).
 */
bool rl_plog_md_rewrite(struct rl_plog_md *pm, u32 region)
{
	return READ_ONCE(pm->reg[region].rewrite);
}

/**
 * rl_plog_md_sync() - copy part of a buffer's image to its twin, durably
 * @pm: the state
 * @b: the buffer
 * @lo: first byte of the image to copy
 * @hi: end of the bytes to copy
 *
 * Ordered so that a crash leaves a twin rl_plog_seg_check() accepts with
 * what it had before or after: the bytes past the segment's fixed header
 * (descriptors, payload) first, then the fixed header's payload_sectors
 * (persistent memory is atomic per 8 bytes only, and the record count is
 * in another word: the count never gets ahead of the payload), then the
 * rest of the fixed header but its magic, then the magic (which turns a
 * free twin into a used one). A range that
 * touches the fixed header is widened to every descriptor the record
 * count counts. The caller serializes a buffer's appends, state changes
 * and syncs (as it must for the image itself) and syncs a record's
 * payload before the header bytes that count it: a record in the twin
 * then always has its payload. Durable on return; any context.
 */
void rl_plog_md_sync(struct rl_plog_md *pm, const struct rl_plog_buf *b,
		     unsigned int lo, unsigned int hi)
{
	const size_t fixed = RL_PLOG_HDR_FIXED;
	const size_t m_lo = offsetof(struct rl_plog_seg_disk, magic);
	const size_t m_hi = m_lo + sizeof(__le32);
	const size_t p_lo = offsetof(struct rl_plog_seg_disk, payload_sectors);
	u64 base = rl_plog_md_twin_off(pm, b->idx);
	size_t s, e;

	/* the record count goes with every descriptor it counts */
	if (lo < fixed)
		hi = max_t(unsigned int, hi, fixed +
			   le16_to_cpu(((const struct rl_plog_seg_disk *)b->seg)->nr) *
			   sizeof(struct rl_plog_rec_disk));
	hi = min(hi, pm->seg_bytes);
	if (lo >= hi)
		return;
	if (hi > fixed) {
		s = max_t(size_t, lo, fixed);
		rl_plog_md_put(pm, base + s, b->seg + s, hi - s);
		rl_plog_md_persist(pm);
	}
	if (lo >= fixed)
		return;
	e = min_t(size_t, hi, fixed);
	if (e > p_lo) {
		s = max_t(size_t, lo, p_lo);
		rl_plog_md_put(pm, base + s, b->seg + s, e - s);
		rl_plog_md_persist(pm);
		if (lo >= p_lo)
			return;
		e = p_lo;
	}
	if (lo < m_lo)
		rl_plog_md_put(pm, base + lo, b->seg + lo,
			       min_t(size_t, e, m_lo) - lo);
	if (e > m_hi) {
		s = max_t(size_t, lo, m_hi);
		rl_plog_md_put(pm, base + s, b->seg + s, e - s);
	}
	rl_plog_md_persist(pm);
	if (lo < m_hi && e > m_lo) {
		s = max_t(size_t, lo, m_lo);
		rl_plog_md_put(pm, base + s, b->seg + s,
			       min_t(size_t, e, m_hi) - s);
		rl_plog_md_persist(pm);
	}
}

/**
 * rl_plog_md_release() - the twin of @b is free again
 * @pm: the state
 * @b: the buffer (its records are on disk or applied)
 *
 * Zeroes the twin's segment magic. Durable on return; any context.
 */
void rl_plog_md_release(struct rl_plog_md *pm, const struct rl_plog_buf *b)
{
	static const __le32 zero;

	rl_plog_md_put(pm, rl_plog_md_twin_off(pm, b->idx) +
		       offsetof(struct rl_plog_seg_disk, magic),
		       &zero, sizeof(zero));
	rl_plog_md_persist(pm);
}

/**
 * rl_plog_md_twin() - a twin that held records when the array stopped
 * @pm: the state
 * @idx: the twin (pool buffer index)
 *
 * The copy made at rl_plog_md_open() (kept until rl_plog_md_close()); the
 * caller validates it with rl_plog_seg_check(..., sealed = false) and the
 * region table (see plog.h).
 *
 * Return: the twin's image, or NULL if it was free.
 */
const void *rl_plog_md_twin(struct rl_plog_md *pm, unsigned int idx)
{
	return idx < pm->nr_bufs ? pm->img[idx] : NULL;
}

/* ------------------------------------------------------------------------
 * Data slots on the DAX metadata device (see DATA SLOTS in plog.h).
 */

static u64 rl_plog_slot_off(const struct rl_plog_md *pm, unsigned int slot)
{
	return (1 + (u64)slot * pm->slot_blocks) * RL_MD_BLOCK;
}

/* A new area (or one whose header does not check out): empty slots, then the header. */
static int rl_plog_slots_format(struct rl_plog_md *pm,
				const struct rl_plog_layout *lo, void *buf)
{
	const struct rl_plog_slot_disk zero = { };
	unsigned int i;
	int r;

	for (i = 0; i < pm->nr_slots; i++)
		rl_plog_blk_put(pm->sblk, rl_plog_slot_off(pm, i), &zero,
				sizeof(zero));
	r = rl_plog_md_persist(pm);
	if (r)
		return r;
	memset(buf, 0, RL_MD_BLOCK);
	rl_plog_slots_hdr_encode(lo, pm->nr_slots, buf);
	rl_plog_blk_put(pm->sblk, 0, buf, RL_MD_BLOCK);
	return rl_plog_md_persist(pm);
}

/* Slot @i checks out (header and data): keep a copy for the recovery. */
static int rl_plog_slot_load(struct rl_plog_md *pm,
			     const struct rl_plog_layout *lo, unsigned int i)
{
	struct rl_plog_slot_disk hdr;
	struct rl_plog_slot_id id;
	u64 off = rl_plog_slot_off(pm, i);
	const char *why;
	void *data;

	if (rl_plog_blk_get(pm->sblk, off, &hdr, sizeof(hdr)) ||
	    rl_plog_slot_check(&hdr, NULL, lo, &id, &why))
		return 0;
	data = vmalloc((size_t)id.len << SECTOR_SHIFT);
	if (!data)
		return -ENOMEM;
	if (rl_plog_blk_get(pm->sblk, off + RL_MD_BLOCK, data,
			    (size_t)id.len << SECTOR_SHIFT) ||
	    rl_plog_slot_check(&hdr, data, lo, &id, &why)) {
		vfree(data);
		return 0;
	}
	pm->sid[i] = id;
	pm->sdata[i] = data;
	return 0;
}

/* Blocks mapped: load the slots, or format the area. */
static int rl_plog_slots_setup(struct rl_plog_md *pm,
			       const struct rl_plog_layout *lo, bool have,
			       const char **why)
{
	void *buf;
	unsigned int i;
	int r;

	pm->sid = kvcalloc(pm->nr_slots, sizeof(*pm->sid), GFP_KERNEL);
	pm->sdata = kvcalloc(pm->nr_slots, sizeof(*pm->sdata), GFP_KERNEL);
	buf = kzalloc(RL_MD_BLOCK, GFP_KERNEL);
	r = -ENOMEM;
	*why = "cannot allocate them";
	if (!pm->sid || !pm->sdata || !buf)
		goto out;
	/*
	 * A PLOG area formatted anew restarts every generation at 1: a slot
	 * left from before could name a record position used again.
	 */
	have = have && !pm->formatted;
	r = have ? rl_plog_blk_get(pm->sblk, 0, buf, RL_MD_BLOCK) : 0;
	if (!r && have)
		r = rl_plog_slots_hdr_check(buf, lo, pm->nr_slots, why);
	else if (!r)
		r = -ENODATA;
	if (!r) {
		for (i = 0; !r && i < pm->nr_slots; i++)
			r = rl_plog_slot_load(pm, lo, i);
		goto out;
	}
	/* nothing to trust in it: slots matter only for records PENDING */
	r = rl_plog_slots_format(pm, lo, buf);
	*why = "cannot write them";
out:
	kfree(buf);
	return r;
}

static int rl_plog_slots_init(struct rl_plog_md *pm, void *const *blk,
			      u64 nr_blocks, const struct rl_plog_layout *lo,
			      unsigned int nr_slots, bool have,
			      const char **why)
{
	int r;

	pm->nr_slots = nr_slots;
	pm->slot_blocks = rl_plog_slot_blocks(lo);
	if (!pm->sblk)
		pm->sblk = kvcalloc(nr_blocks, sizeof(*pm->sblk), GFP_KERNEL);
	r = -ENOMEM;
	*why = "cannot allocate them";
	if (pm->sblk) {
		if (blk)
			memcpy(pm->sblk, blk, nr_blocks * sizeof(*blk));
		r = rl_plog_slots_setup(pm, lo, have, why);
	}
	if (r) {
		rl_plog_md_slots_done(pm);
		kvfree(pm->sblk);
		pm->sblk = NULL;
		pm->nr_slots = 0;
	}
	return r;
}

/**
 * rl_plog_md_slots_open() - open (or make) the data slots
 * @pm: the durable state, from rl_plog_md_open()
 * @md: the metadata service
 * @lo: the layout
 * @nr_slots: slots, one per foreground context
 * @why: set to a static reason on failure
 *
 * A separate record area, so that a PLOG area made before it keeps its
 * size: an existing array gets it if the metadata device has room. An
 * area whose header does not check out is formatted again (its slots
 * could only resolve records a crash left PENDING). The slots that check
 * out are copied for rl_plog_md_slot(). Process context.
 *
 * Return: 0; otherwise the slots are off (the caller says so): -ENOSPC,
 * -ESTALE (an area of another size), -ENOMEM or -EIO.
 */
int rl_plog_md_slots_open(struct rl_plog_md *pm, struct rl_md *md,
			  const struct rl_plog_layout *lo,
			  unsigned int nr_slots, const char **why)
{
	struct rl_md_area area;
	struct dm_buffer *bp;
	bool have = rl_plog_md_have(md, RL_PLOG_SLOT_AREA_ID);
	u64 b;
	int r;

	r = rl_md_area_find(md, RL_PLOG_SLOT_AREA_ID,
			    rl_plog_slots_blocks(lo, nr_slots), &area);
	if (r == -EINVAL) {
		*why = "an area of another size is there";
		return -ESTALE;
	} else if (r == -ENOSPC) {
		*why = "no room on the metadata device";
		return r;
	} else if (r) {
		*why = "cannot make their area";
		return r;
	}
	pm->sblk = kvcalloc(area.blocks, sizeof(*pm->sblk), GFP_KERNEL);
	if (!pm->sblk) {
		*why = "cannot allocate them";
		return -ENOMEM;
	}
	for (b = 0; b < area.blocks; b++) {
		pm->sblk[b] = rl_md_area_map(md, &area, b, false, &bp);
		if (!pm->sblk[b]) {
			kvfree(pm->sblk);
			pm->sblk = NULL;
			*why = "cannot map their area";
			return -EIO;
		}
	}
	return rl_plog_slots_init(pm, NULL, area.blocks, lo, nr_slots, have,
				  why);
}

/**
 * rl_plog_md_slots_open_blocks() - the data slots over caller's RAM blocks
 * @pm: the durable state, from rl_plog_md_open_blocks()
 * @blk: @nr_blocks addresses of 4 KiB blocks
 * @nr_blocks: must be rl_plog_slots_blocks(@lo, @nr_slots)
 * @lo: the layout
 * @nr_slots: slots
 *
 * For KUnit: blocks of zeroes are formatted.
 *
 * Return: as rl_plog_md_slots_open().
 */
int rl_plog_md_slots_open_blocks(struct rl_plog_md *pm, void *const *blk,
				 u64 nr_blocks,
				 const struct rl_plog_layout *lo,
				 unsigned int nr_slots)
{
	const char *why;

	if (nr_blocks != rl_plog_slots_blocks(lo, nr_slots))
		return -ESTALE;
	return rl_plog_slots_init(pm, blk, nr_blocks, lo, nr_slots, true,
				  &why);
}

/**
 * rl_plog_md_slots_on() - are the data slots in use?
 * @pm: the durable state
 *
 * Return: true if rl_plog_md_slots_open() succeeded.
 */
bool rl_plog_md_slots_on(const struct rl_plog_md *pm)
{
	return pm && pm->nr_slots;
}

/**
 * rl_plog_md_slot_put() - copy part of a write's data to its slot
 * @pm: the durable state (slots on)
 * @slot: the slot (the context's)
 * @off: byte offset in the slot's data
 * @src: the bytes
 * @len: their number; @off + @len at most a row
 *
 * memcpy_flushcache(), without a fence: rl_plog_md_slot_seal() makes the
 * data durable with the header. Any context.
 */
void rl_plog_md_slot_put(struct rl_plog_md *pm, unsigned int slot, u32 off,
			 const void *src, size_t len)
{
	rl_plog_blk_put(pm->sblk, rl_plog_slot_off(pm, slot) + RL_MD_BLOCK +
			off, src, len);
}

/**
 * rl_plog_md_slot_seal() - name the record a slot's data belongs to
 * @pm: the durable state (slots on)
 * @slot: the slot
 * @id: the write's first record, its record count and the row span
 * @data_csum: crc32c (seed ~0) of the data put in the slot
 *
 * Writes the header and fences: data and header are durable on return,
 * before the caller lets the named record reach its twin. Any context.
 */
void rl_plog_md_slot_seal(struct rl_plog_md *pm, unsigned int slot,
			  const struct rl_plog_slot_id *id, u32 data_csum)
{
	struct rl_plog_slot_disk s;

	rl_plog_slot_encode(id, data_csum, &s);
	rl_plog_blk_put(pm->sblk, rl_plog_slot_off(pm, slot), &s, sizeof(s));
	rl_plog_md_persist(pm);
}

/**
 * rl_plog_md_slot() - a slot that checked out at open
 * @pm: the durable state
 * @slot: the slot
 * @data: set to its data (id->len sectors)
 *
 * Return: the slot's identity, or NULL if it did not check out (or the
 * slots are off, or rl_plog_md_slots_done() was called).
 */
const struct rl_plog_slot_id *rl_plog_md_slot(struct rl_plog_md *pm,
					      unsigned int slot,
					      const void **data)
{
	if (!pm->sdata || slot >= pm->nr_slots || !pm->sdata[slot])
		return NULL;
	*data = pm->sdata[slot];
	return &pm->sid[slot];
}

/**
 * rl_plog_md_nr_slots() - the number of data slots
 * @pm: the durable state
 *
 * Return: slots, 0 if they are off.
 */
unsigned int rl_plog_md_nr_slots(const struct rl_plog_md *pm)
{
	return pm->nr_slots;
}

/**
 * rl_plog_md_slots_done() - free the copies made at open
 * @pm: the durable state
 *
 * After the recovery: the slots stay in use, their copies are not needed.
 */
void rl_plog_md_slots_done(struct rl_plog_md *pm)
{
	unsigned int i;

	if (pm->sdata)
		for (i = 0; i < pm->nr_slots; i++)
			vfree(pm->sdata[i]);
	kvfree(pm->sdata);
	kvfree(pm->sid);
	pm->sdata = NULL;
	pm->sid = NULL;
}
