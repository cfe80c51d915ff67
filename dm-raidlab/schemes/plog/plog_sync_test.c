// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the pure helpers of the plog region operations (suite
 * dm_raidlab_plog_sync):
 *
 *   slot map   every row of a region has each of its chunks (data columns,
 *              P, for f = 2 Q) in exactly one slot of its data members'
 *              slices, at the place rl_plog_row_loc() says, check chunks
 *              in the check slots (P slots, then Q slots), every slot used;
 *              plog_fill_slot_rows() agrees
 *   log members  each region's f * L log members, none of its data
 *              members, the ones its segments are on
 *   nr ws      how many reintegrations run at once
 *   pq solve   a row with one or two chunks lost (data, P or Q in any
 *              combination) solved from the check chunks the present ones
 *              were accumulated into, against the suite's own GF(2^8)
 *              reference (pq_ref.h), not lib/raid6
 *   want fixups  a member failure asks the fix-up of the used regions
 *              with records, and of no other
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../svc/parity.h"
#include "plog_int.h"
#include "../../svc/pq_ref.h"

struct rl_plog_sync_lcase {
	const char *name;
	unsigned int n, l, f, chunk;
	u64 member_sectors;
};

static const struct rl_plog_sync_lcase rl_plog_sync_lcases[] = {
	{ "n5_f1", 5, 0, 1, 64, 1 << 19 },
	{ "n6_l2_f1", 6, 2, 1, 16, 1 << 18 },
	{ "n3_l1_f1", 3, 1, 1, 8, 1 << 16 },
	{ "n9_l4_f1", 9, 4, 1, 8, 1 << 18 },
	{ "n8_l1_f2", 8, 1, 2, 64, 1 << 19 },
	{ "n6_l1_f2", 6, 1, 2, 16, 1 << 18 },
	{ "n9_l2_f2", 9, 2, 2, 8, 1 << 18 },
	{ "n7_l1_f2", 7, 1, 2, 8, 1 << 17 },
};

static void rl_plog_sync_lcase_desc(const struct rl_plog_sync_lcase *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_plog_sync_layouts, rl_plog_sync_lcases,
		  rl_plog_sync_lcase_desc);

static void rl_plog_sync_slot_map(struct kunit *test)
{
	const struct rl_plog_sync_lcase *c = test->param_value;
	struct rl_plog_params p = {
		.nr_members = c->n, .chunk_sectors = c->chunk,
		.log_disks = c->l, .faults = c->f,
	};
	struct rl_plog_layout lo;
	struct rl_plog_loc loc;
	char *error = NULL;
	u32 *slot_row, *rows2, s, row, first, per, regions[3];
	unsigned int t, m, i, pos, npos;
	u64 start, *seen;
	u8 *slot_pos;

	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &p, c->member_sectors,
						      &error), 0, "%s", error);
	KUNIT_ASSERT_EQ(test, lo.f, c->f);
	KUNIT_ASSERT_EQ(test, lo.cols, lo.g - lo.f);
	npos = lo.cols + lo.f;
	KUNIT_ASSERT_LE(test, npos, 64U);
	slot_row = kunit_kcalloc(test, lo.slice, sizeof(*slot_row), GFP_KERNEL);
	rows2 = kunit_kcalloc(test, lo.slice, sizeof(*rows2), GFP_KERNEL);
	slot_pos = kunit_kzalloc(test, lo.slice, GFP_KERNEL);
	seen = kunit_kcalloc(test, lo.slice, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slot_row);
	KUNIT_ASSERT_NOT_NULL(test, rows2);
	KUNIT_ASSERT_NOT_NULL(test, slot_pos);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	per = lo.slice / lo.g;
	first = lo.slice - lo.f * per;
	regions[0] = 0;
	regions[1] = lo.nr_regions / 2;
	regions[2] = lo.nr_regions - 1;

	for (i = 0; i < ARRAY_SIZE(regions); i++) {
		memset(seen, 0, lo.slice * sizeof(*seen));
		for (t = 0; t < lo.g; t++) {
			m = rl_plog_data_member(&lo, regions[i], t);
			start = rl_plog_region_start(&lo, m, regions[i]);
			plog_fill_slot_map(&lo, regions[i], m, slot_row, slot_pos);
			plog_fill_slot_rows(&lo, regions[i], m, rows2);
			KUNIT_EXPECT_EQ(test, memcmp(slot_row, rows2,
						     lo.slice * sizeof(*rows2)), 0);
			for (s = 0; s < lo.slice; s++) {
				row = slot_row[s];
				pos = slot_pos[s];
				KUNIT_ASSERT_LT_MSG(test, row, lo.slice,
						    "region %u member %u slot %u unused",
						    regions[i], m, s);
				KUNIT_ASSERT_LT(test, pos, npos);
				KUNIT_EXPECT_FALSE_MSG(test, seen[row] & BIT_ULL(pos),
						       "row %u position %u twice",
						       row, pos);
				seen[row] |= BIT_ULL(pos);
				/* data slots, then P slots, then Q slots */
				if (s < first)
					KUNIT_EXPECT_LT(test, pos, lo.cols);
				else if (s < first + per)
					KUNIT_EXPECT_EQ(test, pos, lo.cols);
				else
					KUNIT_EXPECT_EQ(test, pos, lo.cols + 1);
				rl_plog_row_loc(&lo, regions[i], row,
						pos < lo.cols ? pos : 0, &loc);
				if (pos < lo.cols) {
					KUNIT_EXPECT_EQ(test, loc.member, m);
					KUNIT_EXPECT_EQ(test, loc.mchunk, start + s);
				} else if (pos == lo.cols) {
					KUNIT_EXPECT_EQ(test, loc.pmember, m);
					KUNIT_EXPECT_EQ(test, loc.pchunk, start + s);
				} else {
					KUNIT_EXPECT_EQ(test, loc.qmember, m);
					KUNIT_EXPECT_EQ(test, loc.qchunk, start + s);
				}
			}
		}
		/* each row: its cols data chunks and f check chunks */
		for (row = 0; row < lo.slice; row++)
			KUNIT_EXPECT_EQ_MSG(test, seen[row], BIT_ULL(npos) - 1,
					    "region %u row %u", regions[i], row);
	}
}

#define RL_SOLVE_BYTES	8192	/* two pages: the _va helpers split them */

/* @x ^= @d, and (@y not NULL) @y ^= g^k * @d: the reference's arithmetic */
static void rl_solve_acc(u8 *x, u8 *y, const u8 *d, unsigned int k)
{
	u8 gk = 1;
	unsigned int i;

	for (i = 0; i < k; i++)
		gk = rl_gf_mul(gk, 2);
	for (i = 0; i < RL_SOLVE_BYTES; i++) {
		x[i] ^= d[i];
		if (y)
			y[i] ^= rl_gf_mul(gk, d[i]);
	}
}

static void rl_plog_sync_pq_solve(struct kunit *test)
{
	static const unsigned int ncols[] = { 2, 4, 6 };
	void *ptrs[RL_PQ_MAX_DISKS], *out[2];
	u8 *row[RL_PQ_MAX_DISKS], *x, *y, *zero, d[RL_PQ_MAX_DISKS];
	unsigned int ci, cols, k, a, b, i;

	if (!rl_pq_available())
		kunit_skip(test, "lib/raid6 lacks what the P+Q helpers need");
	x = kunit_kmalloc(test, RL_SOLVE_BYTES, GFP_KERNEL);
	y = kunit_kmalloc(test, RL_SOLVE_BYTES, GFP_KERNEL);
	zero = kunit_kzalloc(test, RL_SOLVE_BYTES, GFP_KERNEL);
	out[0] = kunit_kmalloc(test, RL_SOLVE_BYTES, GFP_KERNEL);
	out[1] = kunit_kmalloc(test, RL_SOLVE_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_ASSERT_NOT_NULL(test, y);
	KUNIT_ASSERT_NOT_NULL(test, zero);
	KUNIT_ASSERT_NOT_NULL(test, out[0]);
	KUNIT_ASSERT_NOT_NULL(test, out[1]);
	for (k = 0; k < 8; k++) {
		row[k] = kunit_kmalloc(test, RL_SOLVE_BYTES, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, row[k]);
	}

	for (ci = 0; ci < ARRAY_SIZE(ncols); ci++) {
		cols = ncols[ci];
		/* a row: random data, its P and Q from the reference */
		for (k = 0; k < cols; k++)
			get_random_bytes(row[k], RL_SOLVE_BYTES);
		for (i = 0; i < RL_SOLVE_BYTES; i++) {
			for (k = 0; k < cols; k++)
				d[k] = row[k][i];
			rl_pq_ref(d, cols, &row[cols][i], &row[cols + 1][i]);
		}
		/* every single loss (b == RL_NONE) and every pair */
		for (a = 0; a < cols + 2; a++) {
			for (b = a + 1; b <= cols + 2; b++) {
				unsigned int fb = b == cols + 2 ? RL_NONE : b;

				memset(x, 0, RL_SOLVE_BYTES);
				memset(y, 0, RL_SOLVE_BYTES);
				for (k = 0; k < cols + 2; k++) {
					if (k == a || k == fb)
						continue;
					if (k < cols)
						rl_solve_acc(x, y, row[k], k);
					else if (k == cols)
						rl_solve_acc(x, NULL, row[k], 0);
					else
						rl_solve_acc(y, NULL, row[k], 0);
				}
				memset(out[0], 0x5a, RL_SOLVE_BYTES);
				memset(out[1], 0xa5, RL_SOLVE_BYTES);
				/* the lost positions in either order */
				if ((a + b) & 1 && fb != RL_NONE)
					swap(a, fb);
				plog_pq_solve(ptrs, cols, x, y, zero, a, fb, out,
					      RL_SOLVE_BYTES);
				KUNIT_EXPECT_EQ_MSG(test, memcmp(out[0], row[a],
								 RL_SOLVE_BYTES),
						    0, "cols %u lost %u and %d: %u",
						    cols, a, (int)fb, a);
				if (fb != RL_NONE)
					KUNIT_EXPECT_EQ_MSG(test,
							    memcmp(out[1], row[fb],
								   RL_SOLVE_BYTES),
							    0, "cols %u lost %u and %u: %u",
							    cols, a, fb, fb);
				if (a > fb)
					swap(a, fb);
				KUNIT_EXPECT_PTR_EQ(test, memchr_inv(zero, 0,
								     RL_SOLVE_BYTES),
						    NULL);
			}
		}
	}
}

/*
 * Each region's log members: f * L of them, none a data member of the
 * region, each the member rl_plog_seg_loc() puts some segment's copy on;
 * the sets move from region to region (so that reintegrations of
 * neighbouring regions can read different disks).
 */
static void rl_plog_sync_log_members(struct kunit *test)
{
	const struct rl_plog_sync_lcase *c = test->param_value;
	struct rl_plog_params p = {
		.nr_members = c->n, .chunk_sectors = c->chunk,
		.log_disks = c->l, .faults = c->f,
	};
	unsigned long mask, data, all = 0;
	struct rl_plog_layout lo;
	unsigned int t, cp, m;
	char *error = NULL;
	u64 msector;
	u32 r, s;

	KUNIT_ASSERT_EQ_MSG(test, rl_plog_layout_init(&lo, &p, c->member_sectors,
						      &error), 0, "%s", error);
	for (r = 0; r < lo.nr_regions; r++) {
		mask = plog_log_members(&lo, r);
		KUNIT_EXPECT_EQ_MSG(test, hweight_long(mask), lo.f * lo.l,
				    "region %u", r);
		data = 0;
		for (t = 0; t < lo.g; t++)
			__set_bit(rl_plog_data_member(&lo, r, t), &data);
		KUNIT_EXPECT_EQ_MSG(test, mask & data, 0UL, "region %u", r);
		KUNIT_EXPECT_EQ(test, mask | data, GENMASK(lo.n - 1, 0));
		for (s = 0; s < lo.segs; s += max(lo.segs / 7, 1U))
			for (cp = 0; cp < lo.f; cp++) {
				rl_plog_seg_loc(&lo, r, s, cp, &m, &msector);
				KUNIT_EXPECT_TRUE_MSG(test, test_bit(m, &mask),
						      "region %u segment %u copy %u",
						      r, s, cp);
			}
		all |= mask;
	}
	if (lo.nr_regions >= lo.n)
		KUNIT_EXPECT_EQ(test, all, GENMASK(lo.n - 1, 0));
}

struct rl_plog_sync_ws_case {
	unsigned int n, log_members;
	size_t bytes;
	unsigned int want;
};

static const struct rl_plog_sync_ws_case rl_plog_sync_ws_cases[] = {
	{ 5, 1, 6U << 20, 4 },		/* the benchmark's: memory allows 10 */
	{ 3, 1, 1U << 20, 3 },		/* three disjoint logs */
	{ 6, 2, 1U << 20, 3 },		/* f = 2, L = 1 */
	{ 9, 4, 1U << 20, 2 },
	{ 4, 2, 1U << 20, 2 },
	{ 8, 8, 1U << 20, 1 },
	{ 5, 1, 20U << 20, 3 },		/* the budget: 64 / 20 */
	{ 5, 1, 40U << 20, 1 },
	{ 5, 1, 200U << 20, 1 },	/* one at least, whatever its size */
	{ 64, 1, 0, PLOG_MAX_WS },
};

static void rl_plog_sync_nr_ws(struct kunit *test)
{
	const struct rl_plog_sync_ws_case *c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rl_plog_sync_ws_cases); i++) {
		c = &rl_plog_sync_ws_cases[i];
		KUNIT_EXPECT_EQ_MSG(test, plog_nr_ws(c->n, c->log_members,
						     c->bytes), c->want,
				    "case %u", i);
	}
}

/*
 * plog_want_fixups(): a member failure asks the fix-up of every used
 * region with records (in a buffer, on the seal queue, on disk, or a
 * reintegration on), of no other region, at the idle level, and lowers
 * no request already made. The plog is stopping, so no work is queued.
 */
static void rl_plog_sync_want_fixups(struct kunit *test)
{
	struct plog *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	struct plog_region *rg;
	u32 r;

	KUNIT_ASSERT_NOT_NULL(test, p);
	rg = kunit_kcalloc(test, 8, sizeof(*rg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rg);
	mutex_init(&p->lock);
	p->reg = rg;
	p->lo.nr_regions = 8;
	p->used_regions = 6;
	p->stopping = true;

	rg[0].cur = (void *)1;				/* records in a buffer */
	rg[1].queued = 1;				/* on the seal queue */
	rg[2].disk_segs = 3;				/* on disk */
	rg[3].rs = PLOG_RS_RUNNING;			/* being reintegrated */
	/* rg[4]: no log */
	rg[5].disk_segs = 1;
	rg[5].repair = PLOG_REPAIR_FIX;			/* asked already */
	rg[6].disk_segs = 1;				/* past the length */

	KUNIT_EXPECT_EQ(test, plog_want_fixups(p), 5U);
	for (r = 0; r < 8; r++)
		KUNIT_EXPECT_EQ_MSG(test, rg[r].repair,
				    r == 4 || r >= 6 ? PLOG_REPAIR_NONE :
				    r == 5 ? PLOG_REPAIR_FIX :
				    PLOG_REPAIR_FIX_IDLE, "region %u", r);

	/* a recomputation asked before stays: it is served first */
	rg[4].disk_segs = 2;
	rg[4].repair = PLOG_REPAIR_RECOMP;
	KUNIT_EXPECT_EQ(test, plog_want_fixups(p), 6U);
	KUNIT_EXPECT_EQ(test, rg[4].repair, PLOG_REPAIR_RECOMP);
	/* an access raises an idle fix-up */
	plog_want_repair(p, 0, PLOG_REPAIR_FIX);
	KUNIT_EXPECT_EQ(test, rg[0].repair, PLOG_REPAIR_FIX);
	mutex_destroy(&p->lock);
}

static struct kunit_case rl_plog_sync_test_cases[] = {
	KUNIT_CASE_PARAM(rl_plog_sync_slot_map, rl_plog_sync_layouts_gen_params),
	KUNIT_CASE_PARAM(rl_plog_sync_log_members,
			 rl_plog_sync_layouts_gen_params),
	KUNIT_CASE(rl_plog_sync_nr_ws),
	KUNIT_CASE(rl_plog_sync_pq_solve),
	KUNIT_CASE(rl_plog_sync_want_fixups),
	{}
};

static struct kunit_suite rl_plog_sync_test_suite = {
	.name = "dm_raidlab_plog_sync",
	.test_cases = rl_plog_sync_test_cases,
};

kunit_test_suite(rl_plog_sync_test_suite);
