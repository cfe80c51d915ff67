// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the layout mapping of every scheme: forward and inverse
 * maps agree over many sectors, chunk sizes and member counts, and the
 * parity layouts put exactly one parity chunk on each row (two for raid6:
 * P and Q).
 */
#include <kunit/test.h>
#include <linux/log2.h>

#include "../raidlab.h"
#include "../engines/stripe.h"

struct rl_layout_case {
	const char *scheme;
	unsigned int nr_members;
	unsigned int chunk;
	sector_t data_offset;
};

static const struct rl_layout_case rl_layout_cases[] = {
	{ "raid0", 2, 8, 0 },		{ "raid0", 4, 128, 0 },
	{ "raid0", 5, 16, 2048 },	{ "raid0", 8, 1024, 8 },
	{ "mirror", 2, 128, 0 },	{ "mirror", 3, 8, 2048 },
	{ "raid4", 3, 8, 0 },		{ "raid4", 4, 128, 0 },
	{ "raid4", 6, 64, 2048 },	{ "raid5", 3, 8, 0 },
	{ "raid5", 4, 128, 0 },		{ "raid5", 5, 16, 2048 },
	{ "raid5", 6, 2048, 0 },	{ "raid5", 8, 32, 8 },
	{ "raid5", 32, 8, 0 },
	{ "raid6", 4, 8, 0 },		{ "raid6", 5, 16, 2048 },
	{ "raid6", 6, 128, 0 },		{ "raid6", 7, 64, 8 },
	{ "raid6", 8, 2048, 0 },	{ "raid6", 13, 8, 2048 },
	{ "raid6", 32, 8, 0 },
};

static void rl_layout_desc(const struct rl_layout_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s n=%u chunk=%u off=%llu",
		 c->scheme, c->nr_members, c->chunk,
		 (unsigned long long)c->data_offset);
}

KUNIT_ARRAY_PARAM(rl_layout, rl_layout_cases, rl_layout_desc);

static void rl_layout_geom(struct kunit *test, const struct rl_layout_case *c,
			   const struct rl_scheme_ops **ops, struct rl_geom *g)
{
	*ops = rl_scheme_find(c->scheme);
	KUNIT_ASSERT_NOT_NULL(test, *ops);
	g->layout = (*ops)->layout;
	g->nr_members = c->nr_members;
	g->nr_data = (*ops)->data_columns(c->nr_members);
	g->chunk_shift = ilog2(c->chunk);
	g->data_offset = c->data_offset;
}

/* A deterministic sequence of sectors: edges of chunks and rows, and LCG. */
static sector_t rl_test_sector(unsigned int i, sector_t span, u64 *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	if (i < 64)
		return i;
	return (*seed >> 16) % span;
}

static void rl_layout_forward_inverse(struct kunit *test)
{
	const struct rl_layout_case *c = test->param_value;
	const struct rl_scheme_ops *ops;
	struct rl_geom g;
	sector_t span;
	u64 seed = 42;
	unsigned int i;

	rl_layout_geom(test, c, &ops, &g);
	span = (sector_t)g.nr_data * c->chunk * 97;

	for (i = 0; i < 4000; i++) {
		sector_t l = rl_test_sector(i, span, &seed), back = ~0ULL;
		struct rl_loc loc;
		bool ok;

		ops->map_sector(&g, l, &loc);
		KUNIT_ASSERT_LT(test, loc.member, g.nr_members);
		KUNIT_ASSERT_GE(test, loc.sector, g.data_offset);
		ok = ops->unmap_sector(&g, loc.member, loc.sector, &back);
		KUNIT_ASSERT_TRUE(test, ok);
		KUNIT_ASSERT_EQ(test, back, l);
		/* the offset within the chunk is kept */
		KUNIT_ASSERT_EQ(test, (loc.sector - g.data_offset) & (c->chunk - 1),
				l & (c->chunk - 1));
	}
}

/*
 * Inverse then forward, over whole rows of every member: each member sector
 * is either data that maps back to it, or parity, and each row holds
 * nr_data data chunks and (for parity schemes) exactly one parity chunk.
 */
static void rl_layout_inverse_forward(struct kunit *test)
{
	const struct rl_layout_case *c = test->param_value;
	const struct rl_scheme_ops *ops;
	unsigned int rows = 3 * c->nr_members + 1, row, m;
	struct rl_geom g;

	rl_layout_geom(test, c, &ops, &g);
	/* below the data area there is no data */
	if (g.data_offset) {
		sector_t l;
		bool d = ops->unmap_sector(&g, 0, g.data_offset - 1, &l);

		KUNIT_EXPECT_FALSE(test, d);
	}

	for (row = 0; row < rows; row++) {
		unsigned int data = 0, parity = 0;

		for (m = 0; m < g.nr_members; m++) {
			sector_t base = g.data_offset + ((sector_t)row << g.chunk_shift);
			sector_t probe[] = { base, base + c->chunk / 2,
					     base + c->chunk - 1 };
			bool is_data = false;
			unsigned int j;

			for (j = 0; j < ARRAY_SIZE(probe); j++) {
				struct rl_loc loc;
				sector_t l;
				bool d = ops->unmap_sector(&g, m, probe[j], &l);

				if (j)
					KUNIT_ASSERT_EQ(test, d, is_data);
				is_data = d;
				if (!d)
					continue;
				ops->map_sector(&g, l, &loc);
				KUNIT_ASSERT_EQ(test, loc.sector, probe[j]);
				if (strcmp(c->scheme, "mirror"))
					KUNIT_ASSERT_EQ(test, loc.member, m);
			}
			if (is_data)
				data++;
			else
				parity++;
		}
		if (!strcmp(c->scheme, "mirror")) {
			KUNIT_EXPECT_EQ(test, data, g.nr_members);
		} else {
			KUNIT_EXPECT_EQ(test, data, g.nr_data);
			KUNIT_EXPECT_EQ(test, parity, g.nr_members - g.nr_data);
		}
	}
}

/* raid5 is md's left-symmetric layout; raid4 keeps parity on the last. */
static void rl_layout_known_positions(struct kunit *test)
{
	const struct rl_scheme_ops *r5 = rl_scheme_find("raid5");
	const struct rl_scheme_ops *r4 = rl_scheme_find("raid4");
	struct rl_geom g = { .nr_members = 4, .nr_data = 3, .chunk_shift = 3 };
	/* logical chunk -> member, for rows 0..3 of a 4-member raid5 */
	static const unsigned int r5_member[] = {
		0, 1, 2,	/* row 0: D0 D1 D2 P */
		3, 0, 1,	/* row 1: D4 D5 P D3 */
		2, 3, 0,	/* row 2: D8 P D6 D7 */
		1, 2, 3,	/* row 3: P D9 D10 D11 */
	};
	struct rl_loc loc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r5_member); i++) {
		g.layout = r5->layout;
		r5->map_sector(&g, (sector_t)i * 8 + 3, &loc);
		KUNIT_EXPECT_EQ(test, loc.member, r5_member[i]);
		KUNIT_EXPECT_EQ(test, loc.sector, (sector_t)(i / 3) * 8 + 3);
		g.layout = r4->layout;
		r4->map_sector(&g, (sector_t)i * 8, &loc);
		KUNIT_EXPECT_EQ(test, loc.member, i % 3);
	}
	/* parity chunks are not data */
	g.layout = r5->layout;
	KUNIT_EXPECT_FALSE(test, r5->unmap_sector(&g, 3, 0, &(sector_t){0}));
	KUNIT_EXPECT_FALSE(test, r5->unmap_sector(&g, 2, 8, &(sector_t){0}));
	g.layout = r4->layout;
	KUNIT_EXPECT_FALSE(test, r4->unmap_sector(&g, 3, 8, &(sector_t){0}));
}

/*
 * raid6 is md's left-symmetric raid6 (ALGORITHM_LEFT_SYMMETRIC): P on
 * (n - 1) - (row mod n), Q after it, data after Q.
 */
static void rl_layout_raid6_positions(struct kunit *test)
{
	const struct rl_scheme_ops *r6 = rl_scheme_find("raid6");
	const struct rl_parity_layout *l;
	struct rl_geom g = { .nr_members = 5, .nr_data = 3, .chunk_shift = 3 };
	/* logical chunk -> member, for rows 0..4 of a 5-member raid6 */
	static const unsigned int r6_member[] = {
		1, 2, 3,	/* row 0: Q  D0 D1 D2 P */
		0, 1, 2,	/* row 1: D3 D4 D5 P  Q */
		4, 0, 1,	/* row 2: D7 D8 P  Q  D6 */
		3, 4, 0,	/* row 3: D11 P Q  D9 D10 */
		2, 3, 4,	/* row 4: P  Q  D12 D13 D14 */
	};
	struct rl_loc loc;
	unsigned int i, n;
	u64 row;

	KUNIT_ASSERT_NOT_NULL(test, r6);
	l = r6->layout;
	KUNIT_ASSERT_NOT_NULL(test, l->q_member);
	KUNIT_EXPECT_EQ(test, r6->min_members, 4);
	KUNIT_EXPECT_EQ(test, r6->redundancy, 2);
	KUNIT_EXPECT_EQ(test, r6->data_columns(5), 3);
	g.layout = l;
	for (i = 0; i < ARRAY_SIZE(r6_member); i++) {
		r6->map_sector(&g, (sector_t)i * 8 + 5, &loc);
		KUNIT_EXPECT_EQ(test, loc.member, r6_member[i]);
		KUNIT_EXPECT_EQ(test, loc.sector, (sector_t)(i / 3) * 8 + 5);
		KUNIT_EXPECT_EQ(test, loc.col, i % 3);
	}
	/* P and Q, for many member counts: never data, Q right after P */
	for (n = 4; n <= RL_MAX_MEMBERS; n++) {
		g.nr_members = n;
		g.nr_data = n - 2;
		for (row = 0; row < 2 * n + 1; row++) {
			unsigned int p = l->parity_member(&g, row);
			unsigned int q = l->q_member(&g, row);

			KUNIT_EXPECT_EQ(test, p, n - 1 - (unsigned int)(row % n));
			KUNIT_EXPECT_EQ(test, q, (p + 1) % n);
			KUNIT_EXPECT_EQ(test, l->member_col(&g, row, p), RL_NONE);
			KUNIT_EXPECT_EQ(test, l->member_col(&g, row, q), RL_NONE);
			KUNIT_EXPECT_EQ(test, l->data_member(&g, row, 0), (p + 2) % n);
			for (i = 0; i < n - 2; i++) {
				unsigned int m = l->data_member(&g, row, i);

				KUNIT_EXPECT_EQ(test, l->member_col(&g, row, m), i);
			}
		}
	}
	/* single-parity layouts have no Q */
	KUNIT_EXPECT_NULL(test, rl_raid5_layout.q_member);
	KUNIT_EXPECT_NULL(test, rl_raid4_layout.q_member);
}

static struct kunit_case rl_layout_test_cases[] = {
	KUNIT_CASE_PARAM(rl_layout_forward_inverse, rl_layout_gen_params),
	KUNIT_CASE_PARAM(rl_layout_inverse_forward, rl_layout_gen_params),
	KUNIT_CASE(rl_layout_known_positions),
	KUNIT_CASE(rl_layout_raid6_positions),
	{}
};

static struct kunit_suite rl_layout_test_suite = {
	.name = "dm_raidlab_layout",
	.test_cases = rl_layout_test_cases,
};

kunit_test_suite(rl_layout_test_suite);
