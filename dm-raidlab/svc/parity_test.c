// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the parity service: parity formed by read-modify-write
 * and by reconstruct-write through the xor_blocks() helpers equals a plain
 * byte-by-byte XOR of the stripe, over ranges that cross pages.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/random.h>

#include "parity.h"
#include "../raidlab.h"

#define RL_PT_BYTES	(4 * PAGE_SIZE)
#define RL_PT_MAX	9

struct rl_parity_ctx {
	struct page **col[RL_PT_MAX];
	struct page **par;
	struct page **ref;
};

static u8 *rl_pt_byte(struct page **buf, unsigned int pos)
{
	return (u8 *)page_address(buf[pos >> PAGE_SHIFT]) + offset_in_page(pos);
}

static void rl_pt_fill(struct page **buf, u64 *seed)
{
	unsigned int pos;

	for (pos = 0; pos < RL_PT_BYTES; pos++) {
		*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
		*rl_pt_byte(buf, pos) = *seed >> 33;
	}
}

/* The reference: a plain XOR, one byte at a time. */
static void rl_pt_ref(struct rl_parity_ctx *c, unsigned int nr)
{
	unsigned int pos, i;

	for (pos = 0; pos < RL_PT_BYTES; pos++) {
		u8 x = 0;

		for (i = 0; i < nr; i++)
			x ^= *rl_pt_byte(c->col[i], pos);
		*rl_pt_byte(c->ref, pos) = x;
	}
}

static bool rl_pt_equal(struct page **a, struct page **b, unsigned int off,
			unsigned int len)
{
	unsigned int pos;

	for (pos = off; pos < off + len; pos++)
		if (*rl_pt_byte(a, pos) != *rl_pt_byte(b, pos))
			return false;
	return true;
}

static int rl_parity_test_init(struct kunit *test)
{
	struct rl_parity_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < RL_PT_MAX; i++) {
		c->col[i] = rl_buf_alloc(RL_PT_BYTES, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, c->col[i]);
	}
	c->par = rl_buf_alloc(RL_PT_BYTES, GFP_KERNEL);
	c->ref = rl_buf_alloc(RL_PT_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->par);
	KUNIT_ASSERT_NOT_NULL(test, c->ref);
	test->priv = c;
	return 0;
}

static void rl_parity_test_exit(struct kunit *test)
{
	struct rl_parity_ctx *c = test->priv;
	unsigned int i;

	for (i = 0; i < RL_PT_MAX; i++)
		rl_buf_free(c->col[i], RL_PT_BYTES);
	rl_buf_free(c->par, RL_PT_BYTES);
	rl_buf_free(c->ref, RL_PT_BYTES);
}

/* Ranges (bytes) that start, end and cross page boundaries. */
static const struct { unsigned int off, len; } rl_pt_ranges[] = {
	{ 0, RL_PT_BYTES }, { 0, 512 }, { 512, 1024 },
	{ PAGE_SIZE - 512, 1024 }, { 3 * 512, 2 * PAGE_SIZE + 512 },
	{ RL_PT_BYTES - 512, 512 },
};

/* Reconstruct-write: gen over all columns equals the plain XOR. */
static void rl_parity_gen_matches_xor(struct kunit *test)
{
	struct rl_parity_ctx *c = test->priv;
	unsigned int nr, r;
	u64 seed = 1;

	for (nr = 1; nr <= RL_PT_MAX; nr++) {
		for (r = 0; r < nr; r++)
			rl_pt_fill(c->col[r], &seed);
		rl_pt_ref(c, nr);
		for (r = 0; r < ARRAY_SIZE(rl_pt_ranges); r++) {
			rl_pt_fill(c->par, &seed);
			rl_parity_gen(c->par, c->col, nr, rl_pt_ranges[r].off,
				      rl_pt_ranges[r].len);
			KUNIT_EXPECT_TRUE_MSG(test,
					      rl_pt_equal(c->par, c->ref,
							  rl_pt_ranges[r].off,
							  rl_pt_ranges[r].len),
					      "nr=%u range=%u", nr, r);
		}
	}
}

/* Read-modify-write of one column gives the parity of the new stripe. */
static void rl_parity_rmw_matches_rcw(struct kunit *test)
{
	struct rl_parity_ctx *c = test->priv;
	struct page **newcol = c->col[RL_PT_MAX - 1];
	unsigned int nr = 5, victim, r;
	u64 seed = 7;

	for (victim = 0; victim < nr; victim++) {
		for (r = 0; r < ARRAY_SIZE(rl_pt_ranges); r++) {
			unsigned int off = rl_pt_ranges[r].off;
			unsigned int len = rl_pt_ranges[r].len;
			unsigned int i;

			for (i = 0; i < nr; i++)
				rl_pt_fill(c->col[i], &seed);
			rl_parity_gen(c->par, c->col, nr, 0, RL_PT_BYTES);

			/* P ^= old; old = new; P ^= new, over the range */
			rl_pt_fill(newcol, &seed);
			rl_parity_xor(c->par, &c->col[victim], 1, off, len);
			rl_buf_copy(c->col[victim], newcol, off, len);
			rl_parity_xor(c->par, &c->col[victim], 1, off, len);

			rl_pt_ref(c, nr);
			KUNIT_EXPECT_TRUE_MSG(test,
					      rl_pt_equal(c->par, c->ref, 0, RL_PT_BYTES),
					      "victim=%u range=%u", victim, r);
		}
	}
}

/* A lost column is the XOR of the parity and the surviving columns. */
static void rl_parity_reconstruct(struct kunit *test)
{
	struct rl_parity_ctx *c = test->priv;
	struct page **src[RL_PT_MAX];
	unsigned int nr = 6, lost, i, k;
	u64 seed = 99;

	for (i = 0; i < nr; i++)
		rl_pt_fill(c->col[i], &seed);
	rl_parity_gen(c->par, c->col, nr, 0, RL_PT_BYTES);

	for (lost = 0; lost < nr; lost++) {
		for (i = 0, k = 0; i < nr; i++)
			if (i != lost)
				src[k++] = c->col[i];
		src[k++] = c->par;
		rl_parity_gen(c->ref, src, k, 0, RL_PT_BYTES);
		KUNIT_EXPECT_TRUE_MSG(test, rl_pt_equal(c->ref, c->col[lost], 0,
							RL_PT_BYTES), "lost=%u", lost);
	}
}

/* With no sources, gen clears the range and nothing outside it. */
static void rl_parity_gen_empty(struct kunit *test)
{
	struct rl_parity_ctx *c = test->priv;
	u64 seed = 3;

	rl_pt_fill(c->par, &seed);
	rl_buf_copy(c->ref, c->par, 0, RL_PT_BYTES);
	rl_parity_gen(c->par, NULL, 0, 1024, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, *rl_pt_byte(c->par, 1024), 0);
	KUNIT_EXPECT_EQ(test, *rl_pt_byte(c->par, 1024 + PAGE_SIZE - 1), 0);
	KUNIT_EXPECT_TRUE(test, rl_pt_equal(c->par, c->ref, 0, 1024));
	KUNIT_EXPECT_TRUE(test, rl_pt_equal(c->par, c->ref, 1024 + PAGE_SIZE,
					    RL_PT_BYTES - 1024 - PAGE_SIZE));
}

static struct kunit_case rl_parity_test_cases[] = {
	KUNIT_CASE(rl_parity_gen_matches_xor),
	KUNIT_CASE(rl_parity_rmw_matches_rcw),
	KUNIT_CASE(rl_parity_reconstruct),
	KUNIT_CASE(rl_parity_gen_empty),
	{}
};

static struct kunit_suite rl_parity_test_suite = {
	.name = "dm_raidlab_parity",
	.init = rl_parity_test_init,
	.exit = rl_parity_test_exit,
	.test_cases = rl_parity_test_cases,
};

kunit_test_suite(rl_parity_test_suite);
