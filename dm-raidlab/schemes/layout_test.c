// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the layout methods of every scheme with a fixed layout
 * (->capacity, ->locate, ->owner) on an array instance: forward and
 * inverse maps agree over many sectors, chunk sizes and member counts,
 * every location of a sector is owned with its part, the parity layouts
 * put exactly one parity chunk on each row (two for raid6: P and Q), and
 * ->capacity sizes the array as the table line must be. plog's layout is
 * tested in dm_raidlab_plog_layout; its methods are the same walk over
 * rl_plog_map() and rl_plog_owner().
 */
#include <kunit/test.h>
#include <linux/device-mapper.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "../raidlab.h"
#include "../engines/copyset.h"
#include "../engines/stripe.h"
#include "../svc/layout.h"

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
	{ "altmirror", 2, 8, 2048 },	{ "altmirror", 2, 128, 0 },
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

/*
 * An array instance as the core builds it before ->ctr: members of
 * @member_sectors usable sectors each, sized by ->capacity for @len
 * (0: the whole capacity, from a first call that fails and says so).
 */
static struct rl_array *rl_layout_array(struct kunit *test, const char *scheme,
					unsigned int n, unsigned int chunk,
					sector_t data_offset,
					sector_t member_sectors, sector_t len)
{
	const struct rl_scheme_ops *ops = rl_scheme_find(scheme);
	struct rl_array *a;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	a = kunit_kzalloc(test, struct_size(a, members, n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->ti = kunit_kzalloc(test, sizeof(*a->ti), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a->ti);
	a->ops = ops;
	a->geom.layout = ops->layout;
	a->geom.nr_members = n;
	a->geom.chunk_shift = ilog2(chunk);
	a->geom.data_offset = data_offset;
	a->member_sectors = member_sectors;
	KUNIT_ASSERT_EQ_MSG(test, ops->capacity(a, len, &error), 0, "%s", error);
	a->ti->len = len;
	return a;
}

static struct rl_array *rl_layout_case_array(struct kunit *test,
					     const struct rl_layout_case *c)
{
	const struct rl_scheme_ops *ops = rl_scheme_find(c->scheme);
	unsigned int nr_data;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	/* 97 rows of data */
	nr_data = ops->layout ? c->nr_members - (ops->layout->q_member ? 2 : 1) :
		  ops->redundancy ? 1 : c->nr_members;
	return rl_layout_array(test, c->scheme, c->nr_members, c->chunk,
			       c->data_offset, (sector_t)c->chunk * 100,
			       (sector_t)nr_data * c->chunk * 97);
}

/* The parts ->locate lists, in order, for the case's scheme. */
static unsigned int rl_layout_parts(const struct rl_array *a,
				    enum rl_part *parts)
{
	const struct rl_parity_layout *l = a->geom.layout;
	unsigned int i, n = 0;

	parts[n++] = RL_PART_DATA;
	if (l) {
		parts[n++] = RL_PART_P;
		if (l->q_member)
			parts[n++] = RL_PART_Q;
	} else if (a->ops->redundancy) {
		for (i = 1; i < a->geom.nr_members; i++)
			parts[n++] = RL_PART_COPY;
	}
	return n;
}

/* A deterministic sequence of sectors: edges of chunks and rows, and LCG. */
static sector_t rl_test_sector(unsigned int i, sector_t span, u64 *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	if (i < 64)
		return i;
	return (*seed >> 16) % span;
}

/* Each location of @ls (for sector @l) on its own member, owned as named. */
static noinline_for_stack void
rl_layout_check_locs(struct kunit *test, struct rl_array *a, sector_t l,
		     const struct rl_locset *ls, const enum rl_part *parts)
{
	const struct rl_geom *g = &a->geom;
	unsigned long seen = 0;
	sector_t back;
	unsigned int k;

	for (k = 0; k < ls->nr; k++) {
		const struct rl_where *w = &ls->loc[k];

		KUNIT_ASSERT_EQ(test, w->part, parts[k]);
		KUNIT_ASSERT_LT(test, w->member, g->nr_members);
		KUNIT_ASSERT_FALSE(test, seen & BIT(w->member));
		seen |= BIT(w->member);
		KUNIT_ASSERT_GE(test, w->sector, g->data_offset);
		KUNIT_ASSERT_LT(test, w->sector + ls->len - 1,
				g->data_offset + a->member_sectors);
		back = ~0ULL;
		KUNIT_ASSERT_EQ(test, rl_owner(a, w->member, w->sector, &back),
				w->part);
		if (w->part == RL_PART_DATA || w->part == RL_PART_COPY)
			KUNIT_ASSERT_EQ(test, back, l);
	}
}

/* The last sector of the run of @ls: the same places, further on. */
static noinline_for_stack void
rl_layout_check_run_end(struct kunit *test, struct rl_array *a, sector_t l,
			const struct rl_locset *ls)
{
	struct rl_locset end;
	unsigned int k;

	KUNIT_ASSERT_EQ(test, rl_locate(a, l + ls->len - 1, &end), 0);
	KUNIT_ASSERT_EQ(test, end.len, 1ULL);
	for (k = 0; k < ls->nr; k++) {
		KUNIT_ASSERT_EQ(test, end.loc[k].member, ls->loc[k].member);
		KUNIT_ASSERT_EQ(test, end.loc[k].sector,
				ls->loc[k].sector + ls->len - 1);
	}
}

/*
 * Forward then inverse: every location of a sector is on its own member,
 * inside the members' span, owned with the part ->locate names, and the
 * placement holds for ls.len sectors and no further within the chunk.
 */
static void rl_layout_forward_inverse(struct kunit *test)
{
	const struct rl_layout_case *c = test->param_value;
	struct rl_array *a = rl_layout_case_array(test, c);
	enum rl_part parts[RL_MAX_LOCS];
	unsigned int nr = rl_layout_parts(a, parts);
	struct rl_locset ls;
	u64 seed = 42;
	unsigned int i;

	for (i = 0; i < 4000; i++) {
		sector_t l = rl_test_sector(i, a->ti->len, &seed);

		KUNIT_ASSERT_EQ(test, rl_locate(a, l, &ls), 0);
		KUNIT_ASSERT_EQ(test, ls.nr, nr);
		KUNIT_ASSERT_GE(test, ls.len, 1ULL);
		KUNIT_ASSERT_LE(test, l + ls.len, a->ti->len);
		rl_layout_check_locs(test, a, l, &ls, parts);
		/* the offset within the chunk is kept */
		if (a->geom.nr_data > 1)
			KUNIT_ASSERT_EQ(test, (ls.loc[0].sector - a->geom.data_offset) &
					(c->chunk - 1), l & (c->chunk - 1));
		rl_layout_check_run_end(test, a, l, &ls);
	}
	KUNIT_EXPECT_EQ(test, rl_locate(a, a->ti->len, &ls), -ERANGE);
}

/*
 * Inverse then forward, over whole rows of every member: each member sector
 * is data (or a copy) that ->locate puts there, or the row's P or Q, and
 * each row holds nr_data data chunks and one P (and one Q) chunk.
 */
static void rl_layout_inverse_forward(struct kunit *test)
{
	const struct rl_layout_case *c = test->param_value;
	struct rl_array *a = rl_layout_case_array(test, c);
	const struct rl_geom *g = &a->geom;
	unsigned int rows = 3 * c->nr_members + 1, row, m;
	unsigned int count[RL_NR_PARTS];
	enum rl_part parts[RL_MAX_LOCS];
	unsigned int nr = rl_layout_parts(a, parts), k;
	sector_t l;

	/* no data below the data area, nor past the members' span */
	if (g->data_offset)
		KUNIT_EXPECT_EQ(test, rl_owner(a, 0, g->data_offset - 1, &l),
				RL_PART_NONE);
	KUNIT_EXPECT_EQ(test, rl_owner(a, 0, g->data_offset + a->member_sectors,
				       &l), RL_PART_NONE);

	for (row = 0; row < rows; row++) {
		memset(count, 0, sizeof(count));
		for (m = 0; m < g->nr_members; m++) {
			sector_t base = g->data_offset + ((sector_t)row << g->chunk_shift);
			sector_t probe[] = { base, base + c->chunk / 2,
					     base + c->chunk - 1 };
			enum rl_part part = RL_PART_NONE;
			unsigned int j;

			for (j = 0; j < ARRAY_SIZE(probe); j++) {
				struct rl_locset ls;
				enum rl_part p = rl_owner(a, m, probe[j], &l);
				bool found = false;

				KUNIT_ASSERT_NE(test, p, RL_PART_NONE);
				if (j)
					KUNIT_ASSERT_EQ(test, p, part);
				part = p;
				if (p != RL_PART_DATA && p != RL_PART_COPY)
					continue;
				KUNIT_ASSERT_EQ(test, rl_locate(a, l, &ls), 0);
				for (k = 0; k < ls.nr; k++)
					found |= ls.loc[k].member == m &&
						 ls.loc[k].sector == probe[j] &&
						 ls.loc[k].part == p;
				KUNIT_ASSERT_TRUE(test, found);
			}
			count[part]++;
		}
		/* a row holds what ->locate lists, once per data column */
		for (k = 0; k < nr; k++)
			KUNIT_EXPECT_EQ(test, count[parts[k]],
					parts[k] == RL_PART_DATA ? g->nr_data :
					parts[k] == RL_PART_COPY ? nr - 1 : 1);
	}
}

/* ->capacity: whole rows that fit, any length for a mirror. */
static void rl_layout_capacity(struct kunit *test)
{
	static const struct {
		const char *scheme;
		sector_t len, member_sectors;
		const char *error;
	} cases[] = {
		/* raid5 over 4 x 1000 rows of 128 sectors: 3000 chunks */
		{ "raid5", 3000 * 128, 1000 * 128 + 5, NULL },
		{ "raid5", 3 * 128, 1000 * 128, NULL },
		{ "raid5", 3003 * 128, 1000 * 128,
		  "Target length exceeds the members' capacity" },
		{ "raid5", 4 * 128, 1000 * 128,
		  "Target length is not a multiple of the stripe width" },
		{ "raid6", 2000 * 128, 1000 * 128, NULL },
		{ "raid6", 3 * 128, 1000 * 128,
		  "Target length is not a multiple of the stripe width" },
		{ "raid0", 4000 * 128, 1000 * 128 + 127, NULL },
		{ "raid0", 4000 * 128 + 8, 1001 * 128,
		  "Target length is not a multiple of the stripe width" },
		{ "mirror", 12345, 12345, NULL },
		{ "mirror", 12346, 12345,
		  "Target length exceeds the members' capacity" },
		{ "mirror", 0, 12345, "Zero target length" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rl_scheme_ops *ops = rl_scheme_find(cases[i].scheme);
		struct rl_array *a;
		char *error = NULL;
		int r;

		KUNIT_ASSERT_NOT_NULL(test, ops);
		a = kunit_kzalloc(test, struct_size(a, members, 4), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, a);
		a->ops = ops;
		a->geom.layout = ops->layout;
		a->geom.nr_members = 4;
		a->geom.chunk_shift = 7;
		a->member_sectors = cases[i].member_sectors;
		r = ops->capacity(a, cases[i].len, &error);
		if (cases[i].error) {
			KUNIT_EXPECT_EQ_MSG(test, r, -EINVAL, "case %u", i);
			KUNIT_EXPECT_STREQ(test, error, cases[i].error);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, r, 0, "case %u", i);
		/* what each member carries: the length over the data columns */
		KUNIT_EXPECT_EQ(test, a->member_sectors * a->geom.nr_data,
				cases[i].len);
	}
}

/* raid5 is md's left-symmetric layout; raid4 keeps parity on the last. */
static void rl_layout_known_positions(struct kunit *test)
{
	struct rl_array *r5 = rl_layout_array(test, "raid5", 4, 8, 0, 8 * 8,
					      3 * 8 * 8);
	struct rl_array *r4 = rl_layout_array(test, "raid4", 4, 8, 0, 8 * 8,
					      3 * 8 * 8);
	/* logical chunk -> member, for rows 0..3 of a 4-member raid5 */
	static const unsigned int r5_member[] = {
		0, 1, 2,	/* row 0: D0 D1 D2 P */
		3, 0, 1,	/* row 1: D4 D5 P D3 */
		2, 3, 0,	/* row 2: D8 P D6 D7 */
		1, 2, 3,	/* row 3: P D9 D10 D11 */
	};
	static const unsigned int r5_parity[] = { 3, 2, 1, 0 };
	struct rl_locset ls;
	sector_t l;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r5_member); i++) {
		KUNIT_ASSERT_EQ(test, rl_locate(r5, (sector_t)i * 8 + 3, &ls), 0);
		KUNIT_EXPECT_EQ(test, ls.loc[0].member, r5_member[i]);
		KUNIT_EXPECT_EQ(test, ls.loc[0].sector, (sector_t)(i / 3) * 8 + 3);
		KUNIT_EXPECT_EQ(test, ls.loc[1].member, r5_parity[i / 3]);
		KUNIT_EXPECT_EQ(test, ls.loc[1].sector, (sector_t)(i / 3) * 8 + 3);
		KUNIT_EXPECT_EQ(test, ls.len, 5ULL);
		KUNIT_EXPECT_EQ(test, ls.row, (u64)(i / 3));
		KUNIT_EXPECT_EQ(test, ls.col, i % 3);
		KUNIT_ASSERT_EQ(test, rl_locate(r4, (sector_t)i * 8, &ls), 0);
		KUNIT_EXPECT_EQ(test, ls.loc[0].member, i % 3);
		KUNIT_EXPECT_EQ(test, ls.loc[1].member, 3);
	}
	/* parity chunks are P */
	KUNIT_EXPECT_EQ(test, rl_owner(r5, 3, 0, &l), RL_PART_P);
	KUNIT_EXPECT_EQ(test, rl_owner(r5, 2, 8, &l), RL_PART_P);
	KUNIT_EXPECT_EQ(test, rl_owner(r4, 3, 8, &l), RL_PART_P);
}

/*
 * raid6 is md's left-symmetric raid6 (ALGORITHM_LEFT_SYMMETRIC): P on
 * (n - 1) - (row mod n), Q after it, data after Q.
 */
static void rl_layout_raid6_positions(struct kunit *test)
{
	struct rl_array *a = rl_layout_array(test, "raid6", 5, 8, 0, 5 * 8,
					     5 * 3 * 8);
	const struct rl_scheme_ops *r6 = a->ops;
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
	struct rl_locset ls;
	unsigned int i, n;
	u64 row;

	l = r6->layout;
	KUNIT_ASSERT_NOT_NULL(test, l->q_member);
	KUNIT_EXPECT_EQ(test, r6->min_members, 4);
	KUNIT_EXPECT_EQ(test, r6->redundancy, 2);
	KUNIT_EXPECT_EQ(test, a->geom.nr_data, 3);
	for (i = 0; i < ARRAY_SIZE(r6_member); i++) {
		KUNIT_ASSERT_EQ(test, rl_locate(a, (sector_t)i * 8 + 5, &ls), 0);
		KUNIT_EXPECT_EQ(test, ls.loc[0].member, r6_member[i]);
		KUNIT_EXPECT_EQ(test, ls.loc[0].sector, (sector_t)(i / 3) * 8 + 5);
		KUNIT_EXPECT_EQ(test, ls.col, i % 3);
		KUNIT_EXPECT_EQ(test, ls.loc[1].member, 4 - i / 3);
		KUNIT_EXPECT_EQ(test, ls.loc[2].member, (5 - i / 3) % 5);
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

/* The copy-set schemes: raid10's layouts and copies, chained. */
struct rl_cs_scheme_case {
	const char *scheme;
	unsigned int nr_members;
	unsigned int chunk;
	sector_t data_offset;
	unsigned int kind;		/* raid10's layout */
	unsigned int copies;		/* raid10's copies */
};

static const struct rl_cs_scheme_case rl_cs_scheme_cases[] = {
	{ "raid10", 2, 8, 0, RL_CS_NEAR, 2 },
	{ "raid10", 4, 8, 0, RL_CS_NEAR, 2 },
	{ "raid10", 3, 16, 8, RL_CS_NEAR, 2 },
	{ "raid10", 5, 128, 2048, RL_CS_NEAR, 3 },
	{ "raid10", 4, 128, 2048, RL_CS_FAR, 2 },
	{ "raid10", 5, 8, 0, RL_CS_FAR, 3 },
	{ "raid10", 4, 16, 0, RL_CS_OFFSET, 2 },
	{ "raid10", 6, 8, 2048, RL_CS_OFFSET, 3 },
	{ "chained", 3, 8, 0 },
	{ "chained", 6, 128, 2048 },
	{ "chained", 7, 16, 8 },
};

static void rl_cs_scheme_desc(const struct rl_cs_scheme_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s n=%u copies=%u chunk=%u off=%llu",
		 c->scheme, c->copies ? rl_cs_kind_name(c->kind) : "",
		 c->nr_members, c->copies ?: 2, c->chunk,
		 (unsigned long long)c->data_offset);
}

KUNIT_ARRAY_PARAM(rl_cs_scheme, rl_cs_scheme_cases, rl_cs_scheme_desc);

/* An instance of @c's scheme, sized for @chunks logical chunks. */
static struct rl_array *rl_cs_scheme_array(struct kunit *test,
					   const struct rl_cs_scheme_case *c,
					   sector_t chunks)
{
	const struct rl_scheme_ops *ops = rl_scheme_find(c->scheme);
	struct rl_array *a;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	a = kunit_kzalloc(test, struct_size(a, members, c->nr_members),
			  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->ti = kunit_kzalloc(test, sizeof(*a->ti), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a->ti);
	a->ops = ops;
	a->geom.nr_members = c->nr_members;
	a->geom.chunk_shift = ilog2(c->chunk);
	a->geom.data_offset = c->data_offset;
	a->member_sectors = (sector_t)c->chunk * 1000;
	/* raid10's placement options, by name: layout, copies (then reads) */
	if (!strcmp(ops->name, "raid10")) {
		KUNIT_ASSERT_EQ(test, ops->nr_opts, 3U);
		KUNIT_ASSERT_STREQ(test, ops->opts[0].name, "layout");
		KUNIT_ASSERT_STREQ(test, ops->opts[1].name, "copies");
		a->sopt[0] = c->kind;
		a->sopt[1] = c->copies;
	}
	a->ti->len = chunks * c->chunk;
	KUNIT_ASSERT_EQ_MSG(test, ops->capacity(a, a->ti->len, &error), 0,
			    "%s", error);
	return a;
}

/*
 * Forward and inverse: each sector's copies (the data, then copies - 1
 * copies) are on distinct members inside the members' span and owned as
 * named; over every member's whole span, each chunk of the target has
 * exactly its copies, and nothing is owned twice.
 */
static void rl_layout_copysets(struct kunit *test)
{
	const struct rl_cs_scheme_case *c = test->param_value;
	unsigned int copies = c->copies ?: 2, chunks = 97, k, m;
	struct rl_array *a = rl_cs_scheme_array(test, c, chunks);
	enum rl_part parts[RL_MAX_LOCS];
	unsigned int *seen;
	struct rl_locset ls;
	u64 seed = 7;
	sector_t l, s;

	parts[0] = RL_PART_DATA;
	for (k = 1; k < copies; k++)
		parts[k] = RL_PART_COPY;
	for (k = 0; k < 2000; k++) {
		l = rl_test_sector(k, a->ti->len, &seed);
		KUNIT_ASSERT_EQ(test, rl_locate(a, l, &ls), 0);
		KUNIT_ASSERT_EQ(test, ls.nr, copies);
		KUNIT_ASSERT_LE(test, l + ls.len, a->ti->len);
		rl_layout_check_locs(test, a, l, &ls, parts);
		rl_layout_check_run_end(test, a, l, &ls);
	}
	KUNIT_EXPECT_EQ(test, rl_locate(a, a->ti->len, &ls), -ERANGE);

	seen = kunit_kcalloc(test, chunks, sizeof(*seen), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (m = 0; m < c->nr_members; m++) {
		for (s = 0; s < a->member_sectors; s += c->chunk) {
			enum rl_part p = rl_owner(a, m, c->data_offset + s, &l);

			if (p == RL_PART_NONE || l >= a->ti->len)
				continue;
			KUNIT_ASSERT_EQ(test, l & (c->chunk - 1), 0ULL);
			seen[l / c->chunk]++;
		}
	}
	for (k = 0; k < chunks; k++)
		KUNIT_EXPECT_EQ_MSG(test, seen[k], copies, "chunk %u", k);
}

/*
 * ->capacity of the copy-set schemes: each member uses the fewest whole
 * chunks that hold the length in the layout, whatever the members' size.
 */
static void rl_layout_copyset_capacity(struct kunit *test)
{
	static const struct {
		struct rl_cs_scheme_case c;
		sector_t chunks, member_chunks;
	} cases[] = {
		/* near 2 over 4: two chunks a row */
		{ { "raid10", 4, 128, 0, RL_CS_NEAR, 2 }, 10, 5 },
		{ { "raid10", 3, 128, 0, RL_CS_NEAR, 2 }, 10, 7 },
		/* far and offset: a band a copy of ceil(chunks / n) */
		{ { "raid10", 4, 128, 0, RL_CS_FAR, 2 }, 10, 6 },
		{ { "raid10", 4, 128, 0, RL_CS_OFFSET, 2 }, 10, 6 },
		{ { "raid10", 5, 128, 0, RL_CS_FAR, 3 }, 10, 6 },
		/* chained: a primary half and a backup half */
		{ { "chained", 3, 128, 0 }, 10, 8 },
		{ { "chained", 5, 128, 0 }, 10, 4 },
	};
	static const struct {
		sector_t len;
		const char *error;
	} bad[] = {
		{ 0, "Zero target length" },
		{ 128 * 10, "Copies must be at least 2 and at most the members" },
		{ 128 * 10 + 8, "Target length is not a multiple of the chunk size" },
		{ 128 * 4001, "Target length exceeds the members' capacity" },
	};
	const struct rl_cs_scheme_case near = { "raid10", 4, 128, 0, RL_CS_NEAR, 2 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rl_array *a = rl_cs_scheme_array(test, &cases[i].c,
							cases[i].chunks);

		KUNIT_EXPECT_EQ_MSG(test, a->member_sectors,
				    cases[i].member_chunks * 128, "case %u", i);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct rl_array *a = rl_cs_scheme_array(test, &near, 1);
		char *error = NULL;

		a->member_sectors = 128 * 2000;
		a->sopt[1] = bad[i].len == 128 * 10 ? 5 : 2;	/* copies */
		KUNIT_EXPECT_EQ(test, a->ops->capacity(a, bad[i].len, &error),
				-EINVAL);
		KUNIT_EXPECT_STREQ(test, error, bad[i].error);
	}
}

/* raid10 near 2 over 4 is md's n2: chunk 2k on members 0 and 1, row k. */
static void rl_layout_raid10_positions(struct kunit *test)
{
	const struct rl_cs_scheme_case n2 = { "raid10", 4, 8, 0, RL_CS_NEAR, 2 };
	const struct rl_cs_scheme_case f2 = { "raid10", 4, 8, 0, RL_CS_FAR, 2 };
	const struct rl_cs_scheme_case ch = { "chained", 4, 8, 0 };
	struct rl_array *a = rl_cs_scheme_array(test, &n2, 16);
	struct rl_locset ls;

	KUNIT_ASSERT_EQ(test, rl_locate(a, 5 * 8 + 1, &ls), 0);
	KUNIT_EXPECT_EQ(test, ls.loc[0].member, 2U);
	KUNIT_EXPECT_EQ(test, ls.loc[1].member, 3U);
	KUNIT_EXPECT_EQ(test, ls.loc[0].sector, 2 * 8 + 1ULL);
	KUNIT_EXPECT_EQ(test, ls.len, 7ULL);
	/* far 2 over 4, 16 chunks: the second band starts at 4 chunks */
	a = rl_cs_scheme_array(test, &f2, 16);
	KUNIT_ASSERT_EQ(test, rl_locate(a, 5 * 8, &ls), 0);
	KUNIT_EXPECT_EQ(test, ls.loc[0].member, 1U);
	KUNIT_EXPECT_EQ(test, ls.loc[0].sector, 8ULL);
	KUNIT_EXPECT_EQ(test, ls.loc[1].member, 2U);
	KUNIT_EXPECT_EQ(test, ls.loc[1].sector, 4 * 8 + 8ULL);
	/* chained over 4, 16 chunks: backups in the second half, one on */
	a = rl_cs_scheme_array(test, &ch, 16);
	KUNIT_ASSERT_EQ(test, rl_locate(a, 7 * 8, &ls), 0);
	KUNIT_EXPECT_EQ(test, ls.loc[0].member, 3U);
	KUNIT_EXPECT_EQ(test, ls.loc[0].sector, 8ULL);
	KUNIT_EXPECT_EQ(test, ls.loc[1].member, 0U);
	KUNIT_EXPECT_EQ(test, ls.loc[1].sector, 4 * 8 + 8ULL);
	KUNIT_EXPECT_EQ(test, a->ops->min_members, 3U);
}

static struct kunit_case rl_layout_test_cases[] = {
	KUNIT_CASE_PARAM(rl_layout_forward_inverse, rl_layout_gen_params),
	KUNIT_CASE_PARAM(rl_layout_inverse_forward, rl_layout_gen_params),
	KUNIT_CASE(rl_layout_capacity),
	KUNIT_CASE(rl_layout_known_positions),
	KUNIT_CASE(rl_layout_raid6_positions),
	KUNIT_CASE_PARAM(rl_layout_copysets, rl_cs_scheme_gen_params),
	KUNIT_CASE(rl_layout_copyset_capacity),
	KUNIT_CASE(rl_layout_raid10_positions),
	{}
};

static struct kunit_suite rl_layout_test_suite = {
	.name = "dm_raidlab_layout",
	.test_cases = rl_layout_test_cases,
};

kunit_test_suite(rl_layout_test_suite);
