// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the P+Q helpers of the parity service (suite
 * dm_raidlab_pq): the syndrome lib/raid6 computes through rl_pq_gen() is
 * the one of a plain GF(2^8) reference written here (pq_ref.h), over
 * ranges that cross pages and leave the rest of the buffers alone; every
 * loss of one or two of the disks (data, data and data, data and P, data
 * and Q, P and Q) is rebuilt to the bytes that were lost; and
 * read-modify-write through rl_pq_xor() gives the syndrome of the new data.
 * The _va variants are tested the same way over one multi-page vmalloc
 * area, the disks at 512-byte offsets that differ within the page, for
 * lengths of odd numbers of sectors up to three pages, and the xor of one
 * column (a parity-log record) against the reference.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/raid/pq.h>
#include <linux/vmalloc.h>

#include "parity.h"
#include "pq_ref.h"
#include "../raidlab.h"

#define RL_PQ_BYTES	(2 * PAGE_SIZE)
/* the range under test: from inside the first page into the second */
#define RL_PQ_OFF	1024U
#define RL_PQ_LEN	(RL_PQ_BYTES - 1536U)

struct rl_pq_ctx {
	unsigned int disks;
	struct page **buf[RL_PQ_MAX_DISKS];	/* data..., P, Q */
	struct page **save[RL_PQ_MAX_DISKS];
	u64 seed;
};

static u8 *rl_pq_at(struct page **b, unsigned int pos)
{
	return (u8 *)page_address(b[pos >> PAGE_SHIFT]) + offset_in_page(pos);
}

static u8 rl_pq_rand(struct rl_pq_ctx *c)
{
	c->seed = c->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return c->seed >> 33;
}

static void rl_pq_fill(struct rl_pq_ctx *c, struct page **b)
{
	unsigned int pos;

	for (pos = 0; pos < RL_PQ_BYTES; pos++)
		*rl_pq_at(b, pos) = rl_pq_rand(c);
}

static void rl_pq_ctx_init(struct kunit *test, struct rl_pq_ctx *c,
			   unsigned int disks)
{
	unsigned int i;

	c->disks = disks;
	c->seed = disks;
	for (i = 0; i < disks; i++) {
		c->buf[i] = rl_buf_alloc(RL_PQ_BYTES, GFP_KERNEL);
		c->save[i] = rl_buf_alloc(RL_PQ_BYTES, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, c->buf[i]);
		KUNIT_ASSERT_NOT_NULL(test, c->save[i]);
		rl_pq_fill(c, c->buf[i]);
	}
}

static void rl_pq_ctx_free(struct rl_pq_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->disks; i++) {
		rl_buf_free(c->buf[i], RL_PQ_BYTES);
		rl_buf_free(c->save[i], RL_PQ_BYTES);
	}
}

/* The first byte of the range where P or Q is not the reference's, or -1. */
static int rl_pq_first_mismatch(struct rl_pq_ctx *c)
{
	unsigned int nd = c->disks - 2, pos, k;
	u8 d[RL_PQ_MAX_DISKS], p, q;

	for (pos = RL_PQ_OFF; pos < RL_PQ_OFF + RL_PQ_LEN; pos++) {
		for (k = 0; k < nd; k++)
			d[k] = *rl_pq_at(c->buf[k], pos);
		rl_pq_ref(d, nd, &p, &q);
		if (p != *rl_pq_at(c->buf[nd], pos) ||
		    q != *rl_pq_at(c->buf[nd + 1], pos))
			return pos;
	}
	return -1;
}

static bool rl_pq_matches_ref(struct kunit *test, struct rl_pq_ctx *c)
{
	int pos = rl_pq_first_mismatch(c);

	if (pos < 0)
		return true;
	KUNIT_FAIL(test, "disks=%u: P or Q wrong at byte %d", c->disks, pos);
	return false;
}

static void rl_pq_save(struct rl_pq_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->disks; i++)
		rl_buf_copy(c->save[i], c->buf[i], 0, RL_PQ_BYTES);
}

/* Every buffer is as saved, the whole of it. */
static bool rl_pq_as_saved(struct kunit *test, struct rl_pq_ctx *c,
			   const char *what, unsigned int a, unsigned int b)
{
	unsigned int i;

	for (i = 0; i < c->disks; i++) {
		if (!memcmp(page_address(c->buf[i][0]), page_address(c->save[i][0]),
			    PAGE_SIZE) &&
		    !memcmp(page_address(c->buf[i][1]), page_address(c->save[i][1]),
			    PAGE_SIZE))
			continue;
		KUNIT_FAIL(test, "disks=%u %s lost %u,%d: disk %u differs",
			   c->disks, what, a, (int)b, i);
		return false;
	}
	return true;
}

static const unsigned int rl_pq_disks[] = { 4, 5, 6, 7, 8, 11, 16, 32 };

static void rl_pq_desc(const unsigned int *d, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "disks=%u", *d);
}

KUNIT_ARRAY_PARAM(rl_pq, rl_pq_disks, rl_pq_desc);

/*
 * rl_pq_gen() against the reference, and only over its range: the bytes
 * of P and Q outside it stay as they were.
 */
static void rl_pq_gen_matches_ref(struct kunit *test)
{
	struct rl_pq_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int disks = *(const unsigned int *)test->param_value;
	unsigned int pos, i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	rl_pq_ctx_init(test, c, disks);
	kunit_info(test, "lib/raid6 gen: %s", raid6_call.name);
	rl_pq_save(c);
	rl_pq_gen(c->buf, disks, RL_PQ_OFF, RL_PQ_LEN);
	rl_pq_matches_ref(test, c);
	for (i = disks - 2; i < disks; i++) {
		for (pos = 0; pos < RL_PQ_BYTES; pos++) {
			if (pos == RL_PQ_OFF)
				pos += RL_PQ_LEN;
			if (pos < RL_PQ_BYTES &&
			    *rl_pq_at(c->buf[i], pos) != *rl_pq_at(c->save[i], pos)) {
				KUNIT_FAIL(test, "disk %u byte %u outside the range changed",
					   i, pos);
				break;
			}
		}
	}
	rl_pq_ctx_free(c);
}

/*
 * Every loss of one disk and of two: the lost buffers are overwritten with
 * garbage and rebuilt over the whole buffer, then all disks must be as
 * before. Pairs are given in both orders.
 */
static void rl_pq_recover_every_loss(struct kunit *test)
{
	struct rl_pq_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int disks = *(const unsigned int *)test->param_value;
	unsigned int a, b, pairs = 0;

	KUNIT_ASSERT_NOT_NULL(test, c);
	rl_pq_ctx_init(test, c, disks);
	rl_pq_gen(c->buf, disks, 0, RL_PQ_BYTES);
	rl_pq_save(c);

	for (a = 0; a < disks; a++) {
		rl_pq_fill(c, c->buf[a]);
		rl_pq_recover(c->buf, disks, a, RL_NONE, 0, RL_PQ_BYTES);
		if (!rl_pq_as_saved(test, c, "one", a, RL_NONE))
			goto out;
	}
	for (a = 0; a < disks; a++) {
		for (b = a + 1; b < disks; b++) {
			rl_pq_fill(c, c->buf[a]);
			rl_pq_fill(c, c->buf[b]);
			if (pairs++ & 1)
				rl_pq_recover(c->buf, disks, b, a, 0, RL_PQ_BYTES);
			else
				rl_pq_recover(c->buf, disks, a, b, 0, RL_PQ_BYTES);
			if (!rl_pq_as_saved(test, c, "two", a, b))
				goto out;
		}
	}
	KUNIT_EXPECT_EQ(test, pairs, disks * (disks - 1) / 2);
out:
	rl_pq_ctx_free(c);
}

/*
 * Read-modify-write: the old data of columns start..stop folded out of P
 * and Q, the new folded in, gives the reference syndrome of the new row.
 */
static void rl_pq_xor_rmw(struct kunit *test)
{
	struct rl_pq_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int disks = *(const unsigned int *)test->param_value;
	unsigned int nd = disks - 2, start, stop, k;

	KUNIT_ASSERT_NOT_NULL(test, c);
	rl_pq_ctx_init(test, c, disks);
	rl_pq_gen(c->buf, disks, 0, RL_PQ_BYTES);
	for (start = 0; start < nd; start += 1 + start / 2) {
		for (stop = start; stop < nd; stop += 1 + (stop - start) * 2) {
			rl_pq_xor(c->buf, disks, start, stop, RL_PQ_OFF, RL_PQ_LEN);
			/* new data in the range, some columns unchanged */
			for (k = start; k <= stop; k++)
				if ((k + stop) % 3)
					rl_pq_fill(c, c->buf[k]);
			rl_pq_xor(c->buf, disks, start, stop, RL_PQ_OFF, RL_PQ_LEN);
			if (!rl_pq_matches_ref(test, c))
				goto out;
		}
	}
out:
	rl_pq_ctx_free(c);
}

/*
 * The negative control: the reference's spot values, and a flipped bit of
 * a data column is seen where it is.
 */
static void rl_pq_ref_sees_a_flip(struct kunit *test)
{
	struct rl_pq_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u8 d[3] = { 0x80, 0x01, 0x53 }, p, q;

	/* g * 0x01 = 0x02, g^2 * 0x53 = 0x51, g * 0x80 = 0x1d over 0x11d */
	rl_pq_ref(d, 3, &p, &q);
	KUNIT_EXPECT_EQ(test, p, 0x80 ^ 0x01 ^ 0x53);
	KUNIT_EXPECT_EQ(test, q, 0x80 ^ 0x02 ^ 0x51);
	KUNIT_EXPECT_EQ(test, rl_gf_mul(0x80, 2), 0x1d);

	KUNIT_ASSERT_NOT_NULL(test, c);
	rl_pq_ctx_init(test, c, 6);
	rl_pq_gen(c->buf, 6, 0, RL_PQ_BYTES);
	KUNIT_EXPECT_EQ(test, rl_pq_first_mismatch(c), -1);
	*rl_pq_at(c->buf[2], RL_PQ_OFF + 700) ^= 0x04;
	KUNIT_EXPECT_EQ(test, rl_pq_first_mismatch(c), RL_PQ_OFF + 700);
	rl_pq_ctx_free(c);
}

/* ------------------------------------------------------------------------
 * The virtual-buffer helpers: every disk in one vmalloc area.
 */

/* a disk's span in the area: not a page multiple, so offsets vary */
#define RL_PQV_STRIDE	(3 * PAGE_SIZE + 2560)

struct rl_pqv_case {
	unsigned int disks;
	size_t bytes;
};

static const struct rl_pqv_case rl_pqv_cases[] = {
	{ 4, 512 },
	{ 5, 1536 },
	{ 7, PAGE_SIZE + 512 },
	{ 6, 2 * PAGE_SIZE + 1536 },
	{ 11, 3 * PAGE_SIZE - 512 },
	{ 32, 3 * PAGE_SIZE - 512 },
};

static void rl_pqv_desc(const struct rl_pqv_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "disks=%u bytes=%zu", c->disks,
		 c->bytes);
}

KUNIT_ARRAY_PARAM(rl_pqv, rl_pqv_cases, rl_pqv_desc);

struct rl_pqv_ctx {
	unsigned int disks;
	size_t bytes;
	u8 *area, *save;		/* disks * RL_PQV_STRIDE each */
	void *ptrs[RL_PQ_MAX_DISKS];	/* data..., P, Q */
	u64 seed;
};

static u8 rl_pqv_rand(struct rl_pqv_ctx *c)
{
	c->seed = c->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return c->seed >> 33;
}

static void rl_pqv_fill(struct rl_pqv_ctx *c, u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = rl_pqv_rand(c);
}

/* disk i at 512 * (i * 3 mod 5) into its span, the area random */
static bool rl_pqv_init(struct kunit *test, struct rl_pqv_ctx *c)
{
	const struct rl_pqv_case *pc = test->param_value;
	size_t size = (size_t)pc->disks * RL_PQV_STRIDE;
	unsigned int i;

	c->disks = pc->disks;
	c->bytes = pc->bytes;
	c->seed = pc->disks * 131 + pc->bytes;
	c->area = vmalloc(size);
	c->save = vmalloc(size);
	if (!c->area || !c->save) {
		vfree(c->area);
		vfree(c->save);
		KUNIT_FAIL(test, "no memory");
		return false;
	}
	rl_pqv_fill(c, c->area, size);
	for (i = 0; i < c->disks; i++)
		c->ptrs[i] = c->area + i * RL_PQV_STRIDE + 512 * ((i * 3) % 5);
	return true;
}

static void rl_pqv_free(struct rl_pqv_ctx *c)
{
	vfree(c->area);
	vfree(c->save);
}

static void rl_pqv_save(struct rl_pqv_ctx *c)
{
	memcpy(c->save, c->area, (size_t)c->disks * RL_PQV_STRIDE);
}

/* the first byte of the area not as saved, or -1 */
static long rl_pqv_changed(struct rl_pqv_ctx *c)
{
	size_t i, size = (size_t)c->disks * RL_PQV_STRIDE;

	for (i = 0; i < size; i++)
		if (c->area[i] != c->save[i])
			return i;
	return -1;
}

/* the first byte of the range where P or Q is not the reference's, or -1 */
static long rl_pqv_mismatch(struct rl_pqv_ctx *c)
{
	unsigned int nd = c->disks - 2, k;
	u8 d[RL_PQ_MAX_DISKS], p, q;
	size_t pos;

	for (pos = 0; pos < c->bytes; pos++) {
		for (k = 0; k < nd; k++)
			d[k] = ((u8 *)c->ptrs[k])[pos];
		rl_pq_ref(d, nd, &p, &q);
		if (p != ((u8 *)c->ptrs[nd])[pos] ||
		    q != ((u8 *)c->ptrs[nd + 1])[pos])
			return pos;
	}
	return -1;
}

/* rl_pq_gen_va() against the reference; nothing outside the range changes */
static void rl_pqv_gen_matches_ref(struct kunit *test)
{
	struct rl_pqv_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int i;
	long at;

	KUNIT_ASSERT_NOT_NULL(test, c);
	if (!rl_pqv_init(test, c))
		return;
	rl_pqv_save(c);
	rl_pq_gen_va(c->ptrs, c->disks, c->bytes);
	KUNIT_EXPECT_EQ(test, rl_pqv_mismatch(c), -1L);
	/* put P and Q back: then the whole area is as it was */
	for (i = c->disks - 2; i < c->disks; i++)
		memcpy(c->ptrs[i], c->save + ((u8 *)c->ptrs[i] - c->area), c->bytes);
	at = rl_pqv_changed(c);
	KUNIT_EXPECT_EQ_MSG(test, at, -1L, "byte %ld outside P and Q's range changed",
			    at);
	rl_pqv_free(c);
}

/*
 * The xor of one column, as a parity-log record applies it: with the
 * column's update image d at position k, P ^= d and Q ^= g^k d. Folding
 * d into the data column too gives the reference syndrome again, and the
 * image itself is only read.
 */
static void rl_pqv_xor_one_column(struct kunit *test)
{
	struct rl_pqv_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int nd, k;
	u8 *delta, *keep;
	size_t pos;

	KUNIT_ASSERT_NOT_NULL(test, c);
	delta = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	keep = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, delta && keep);
	if (!rl_pqv_init(test, c))
		return;
	nd = c->disks - 2;
	rl_pq_gen_va(c->ptrs, c->disks, c->bytes);
	for (k = 0; k < nd; k++) {
		void *col = c->ptrs[k];
		/* the image at an odd sector of its buffer */
		u8 *d = delta + 512 * (1 + k % 3);

		rl_pqv_fill(c, d, c->bytes);
		memcpy(keep, d, c->bytes);
		c->ptrs[k] = d;
		rl_pq_xor_va(c->ptrs, c->disks, k, k, c->bytes);
		c->ptrs[k] = col;
		KUNIT_EXPECT_EQ(test, memcmp(keep, d, c->bytes), 0);
		for (pos = 0; pos < c->bytes; pos++)
			((u8 *)col)[pos] ^= d[pos];
		if (rl_pqv_mismatch(c) != -1) {
			KUNIT_FAIL(test, "column %u: P or Q wrong at byte %ld", k,
				   rl_pqv_mismatch(c));
			break;
		}
	}
	/* and a wrong column weight is seen */
	rl_pqv_fill(c, delta, c->bytes);
	c->ptrs[0] = delta;
	rl_pq_xor_va(c->ptrs, c->disks, 0, 0, c->bytes);
	c->ptrs[0] = c->area;
	for (pos = 0; pos < c->bytes; pos++)
		((u8 *)c->ptrs[1])[pos] ^= delta[pos];
	KUNIT_EXPECT_NE(test, rl_pqv_mismatch(c), -1L);
	rl_pqv_free(c);
}

/* the lost disks' ranges garbled, rebuilt: the whole area as before */
static bool rl_pqv_lose(struct kunit *test, struct rl_pqv_ctx *c,
			unsigned int a, unsigned int b, bool swapped)
{
	long at;

	rl_pqv_fill(c, c->ptrs[a], c->bytes);
	if (b != RL_NONE)
		rl_pqv_fill(c, c->ptrs[b], c->bytes);
	if (swapped)
		rl_pq_recover_va(c->ptrs, c->disks, b, a, c->bytes);
	else
		rl_pq_recover_va(c->ptrs, c->disks, a, b, c->bytes);
	at = rl_pqv_changed(c);
	if (at < 0)
		return true;
	KUNIT_FAIL(test, "lost %u,%d: area byte %ld (disk %ld) differs", a, (int)b,
		   at, at / (long)RL_PQV_STRIDE);
	return false;
}

static void rl_pqv_recover_every_loss(struct kunit *test)
{
	struct rl_pqv_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	unsigned int a, b, pairs = 0;

	KUNIT_ASSERT_NOT_NULL(test, c);
	if (!rl_pqv_init(test, c))
		return;
	rl_pq_gen_va(c->ptrs, c->disks, c->bytes);
	rl_pqv_save(c);
	for (a = 0; a < c->disks; a++)
		if (!rl_pqv_lose(test, c, a, RL_NONE, false))
			goto out;
	for (a = 0; a < c->disks; a++)
		for (b = a + 1; b < c->disks; b++)
			if (!rl_pqv_lose(test, c, a, b, pairs++ & 1))
				goto out;
	KUNIT_EXPECT_EQ(test, pairs, c->disks * (c->disks - 1) / 2);
out:
	rl_pqv_free(c);
}

static struct kunit_case rl_pq_test_cases[] = {
	KUNIT_CASE_PARAM(rl_pq_gen_matches_ref, rl_pq_gen_params),
	KUNIT_CASE_PARAM(rl_pq_recover_every_loss, rl_pq_gen_params),
	KUNIT_CASE_PARAM(rl_pq_xor_rmw, rl_pq_gen_params),
	KUNIT_CASE(rl_pq_ref_sees_a_flip),
	KUNIT_CASE_PARAM(rl_pqv_gen_matches_ref, rl_pqv_gen_params),
	KUNIT_CASE_PARAM(rl_pqv_xor_one_column, rl_pqv_gen_params),
	KUNIT_CASE_PARAM(rl_pqv_recover_every_loss, rl_pqv_gen_params),
	{}
};

static struct kunit_suite rl_pq_test_suite = {
	.name = "dm_raidlab_pq",
	.test_cases = rl_pq_test_cases,
};

kunit_test_suite(rl_pq_test_suite);
