// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the bad-block list encoding (suite dm_raidlab_badblocks):
 * a list round-trips through its block and through the kernel's
 * struct badblocks; a blank block is an empty list; a bad checksum is a
 * torn copy, and the other copy is taken; a block of another place, a
 * count past the block's capacity, and entries out of order, overlapping,
 * unacknowledged or past the end are refused.
 */
#include <kunit/test.h>
#include <linux/badblocks.h>
#include <linux/slab.h>

#include "bbl.h"

#define RL_BBLT_LIMIT	BIT_ULL(30)

static void *rl_bblt_block(struct kunit *test)
{
	void *b = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

static struct rl_bbl_list *rl_bblt_list(struct kunit *test, u64 seq,
					unsigned int count)
{
	struct rl_bbl_list *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->seq = seq;
	l->count = count;
	for (i = 0; i < count; i++)
		l->entries[i] = BB_MAKE(1000ULL * i, 1 + i % BB_MAX_LEN, 1);
	return l;
}

/* Rewrite a block's checksum after changing a field. */
static void rl_bblt_reseal(void *block)
{
	struct rl_bbl_disk *d = block;

	d->csum = cpu_to_le32(rl_bbl_csum(block));
}

static void rl_bbl_test_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct rl_bbl_disk), (size_t)RL_MD_BLOCK);
	KUNIT_EXPECT_EQ(test, offsetof(struct rl_bbl_disk, entries),
			(size_t)RL_BBL_HDR_BYTES);
	KUNIT_EXPECT_LE(test, RL_BBL_MAX_ENTRIES, (unsigned int)MAX_BADBLOCKS);
}

static void rl_bbl_test_roundtrip(struct kunit *test)
{
	struct rl_bbl_list *in = rl_bblt_list(test, 7, 3);
	struct rl_bbl_list *out = rl_bblt_list(test, 0, 0);
	void *b = rl_bblt_block(test);
	char *error = NULL;

	rl_bbl_encode(40, in, b);
	KUNIT_ASSERT_EQ(test, rl_bbl_decode(b, 40, RL_BBLT_LIMIT, out, &error), 0);
	KUNIT_EXPECT_EQ(test, out->seq, 7ULL);
	KUNIT_ASSERT_EQ(test, out->count, 3U);
	KUNIT_EXPECT_EQ(test, memcmp(out->entries, in->entries, 3 * sizeof(u64)), 0);

	/* full: every entry the block holds */
	in = rl_bblt_list(test, 8, RL_BBL_MAX_ENTRIES);
	rl_bbl_encode(41, in, b);
	KUNIT_ASSERT_EQ(test, rl_bbl_decode(b, 41, RL_BBLT_LIMIT, out, &error), 0);
	KUNIT_EXPECT_EQ(test, out->count, RL_BBL_MAX_ENTRIES);

	memset(b, 0, RL_MD_BLOCK);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(b, 40, RL_BBLT_LIMIT, out, &error), -ENODATA);
}

static void rl_bbl_test_refused(struct kunit *test)
{
	struct rl_bbl_list *in = rl_bblt_list(test, 3, 4);
	struct rl_bbl_list *out = rl_bblt_list(test, 0, 0);
	struct rl_bbl_disk *d = rl_bblt_block(test);
	char *error = NULL;

	/* a torn copy: any byte changed */
	rl_bbl_encode(40, in, d);
	d->entries[2] ^= cpu_to_le64(1ULL << 20);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, RL_BBLT_LIMIT, out, &error), -EBADMSG);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: bad checksum");

	/* another block's copy */
	rl_bbl_encode(40, in, d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 41, RL_BBLT_LIMIT, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: misplaced");

	/* a count past the block's capacity */
	d->count = cpu_to_le32(RL_BBL_MAX_ENTRIES + 1);
	rl_bblt_reseal(d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: too many entries");
	d->count = cpu_to_le32(U32_MAX);
	rl_bblt_reseal(d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);

	/* entries out of order, overlapping, unacknowledged, past the end */
	rl_bbl_encode(40, in, d);
	swap(d->entries[0], d->entries[1]);
	rl_bblt_reseal(d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);
	rl_bbl_encode(40, in, d);
	d->entries[1] = cpu_to_le64(BB_MAKE(500ULL, 1, 1));	/* [0, 1) then 500 */
	d->entries[0] = cpu_to_le64(BB_MAKE(0ULL, 501, 1));
	rl_bblt_reseal(d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "Metadata bad-block list: entries out of order or overlapping");
	rl_bbl_encode(40, in, d);
	d->entries[3] = cpu_to_le64(BB_MAKE(3000ULL, 4, 0));
	rl_bblt_reseal(d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: unacknowledged entry");
	rl_bbl_encode(40, in, d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, 3003, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: entry past the end");
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, 3004, out, &error), 0);

	/* bytes after the last entry */
	rl_bbl_encode(40, in, d);
	d->entries[4] = cpu_to_le64(BB_MAKE(9000ULL, 1, 1));
	rl_bblt_reseal(d);
	KUNIT_EXPECT_EQ(test, rl_bbl_decode(d, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: garbage after the entries");
}

static void rl_bbl_test_pick(struct kunit *test)
{
	struct rl_bbl_list *old = rl_bblt_list(test, 4, 2);
	struct rl_bbl_list *new = rl_bblt_list(test, 5, 3);
	struct rl_bbl_list *out = rl_bblt_list(test, 0, 0);
	u8 *b0 = rl_bblt_block(test), *b1 = rl_bblt_block(test);
	char *error = NULL;

	/* both blank: an empty list */
	KUNIT_EXPECT_EQ(test, rl_bbl_pick(b0, b1, 40, RL_BBLT_LIMIT, out, &error), -ENODATA);
	KUNIT_EXPECT_EQ(test, out->count, 0U);
	KUNIT_EXPECT_EQ(test, out->seq, 0ULL);

	/* the larger seq wins, whichever copy holds it */
	rl_bbl_encode(40, old, b0);
	rl_bbl_encode(41, new, b1);
	KUNIT_EXPECT_EQ(test, rl_bbl_pick(b0, b1, 40, RL_BBLT_LIMIT, out, &error), 1);
	KUNIT_EXPECT_EQ(test, out->count, 3U);
	KUNIT_EXPECT_EQ(test, out->seq, 5ULL);
	rl_bbl_encode(40, new, b0);
	rl_bbl_encode(41, old, b1);
	KUNIT_EXPECT_EQ(test, rl_bbl_pick(b0, b1, 40, RL_BBLT_LIMIT, out, &error), 0);
	KUNIT_EXPECT_EQ(test, out->count, 3U);

	/* the newer copy torn (its first sector new, the rest old): the previous list */
	rl_bbl_encode(41, old, b1);
	rl_bbl_encode(40, new, b0);
	memset(b0 + 512, 0x5a, RL_MD_BLOCK - 512);
	KUNIT_EXPECT_EQ(test, rl_bbl_pick(b0, b1, 40, RL_BBLT_LIMIT, out, &error), 1);
	KUNIT_EXPECT_EQ(test, out->seq, 4ULL);
	KUNIT_EXPECT_EQ(test, out->count, 2U);

	/* the first write torn, the other copy never written: empty */
	memset(b1, 0, RL_MD_BLOCK);
	KUNIT_EXPECT_EQ(test, rl_bbl_pick(b0, b1, 40, RL_BBLT_LIMIT, out, &error), -ENODATA);
	KUNIT_EXPECT_EQ(test, out->count, 0U);

	/* both torn: no single torn write leaves that */
	memset(b1, 0x5a, RL_MD_BLOCK);
	KUNIT_EXPECT_EQ(test, rl_bbl_pick(b0, b1, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: both copies damaged");

	/* a valid copy of another place: refused */
	rl_bbl_encode(40, old, b0);
	rl_bbl_encode(40, new, b1);
	KUNIT_EXPECT_EQ(test, rl_bbl_pick(b0, b1, 40, RL_BBLT_LIMIT, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bad-block list: misplaced");
}

/* The kernel's list, through a block, into another struct badblocks. */
static void rl_bbl_test_library(struct kunit *test)
{
	struct rl_bbl_list *l = rl_bblt_list(test, 1, 0);
	void *b = rl_bblt_block(test);
	struct badblocks *in, *out;
	sector_t first;
	char *error = NULL;
	unsigned int i;
	int n;

	in = kunit_kzalloc(test, sizeof(*in), GFP_KERNEL);
	out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, badblocks_init(in, 1), 0);
	KUNIT_ASSERT_EQ(test, badblocks_init(out, 1), 0);
	/*
	 * a 1024-sector chunk takes two entries of BB_MAX_LEN, set a piece
	 * at a time as rl_bbl_record() does (6.1's badblocks_set() inserts
	 * the pieces of a longer range in reverse order: the decoder refuses
	 * such a list)
	 */
	KUNIT_EXPECT_EQ(test, badblocks_set(in, 4096, 512, 1), 0);
	KUNIT_EXPECT_EQ(test, badblocks_set(in, 4608, 512, 1), 0);
	KUNIT_EXPECT_EQ(test, badblocks_set(in, 100, 8, 1), 0);
	KUNIT_ASSERT_EQ(test, in->count, 3);
	l->count = in->count;
	memcpy(l->entries, in->page, l->count * sizeof(u64));
	rl_bbl_encode(9, l, b);
	KUNIT_ASSERT_EQ(test, rl_bbl_decode(b, 9, 8192, l, &error), 0);
	for (i = 0; i < l->count; i++)
		KUNIT_EXPECT_EQ(test, badblocks_set(out, BB_OFFSET(l->entries[i]),
						    BB_LEN(l->entries[i]), 1), 0);
	KUNIT_EXPECT_EQ(test, badblocks_check(out, 5000, 8, &first, &n), 1);
	KUNIT_EXPECT_EQ(test, badblocks_check(out, 96, 4, &first, &n), 0);
	KUNIT_EXPECT_EQ(test, badblocks_check(out, 96, 8, &first, &n), 1);
	KUNIT_EXPECT_EQ(test, (u64)first, 100ULL);
	/* a full write of the range clears it */
	KUNIT_EXPECT_EQ(test, badblocks_clear(out, 4096, 1024), 0);
	KUNIT_EXPECT_EQ(test, badblocks_check(out, 4096, 1024, &first, &n), 0);
	KUNIT_EXPECT_EQ(test, out->count, 1);
	badblocks_exit(in);
	badblocks_exit(out);
}

/* A range is covered by entries, across the pieces of a long one. */
static void rl_bbl_test_cover(struct kunit *test)
{
	struct badblocks *bb = kunit_kzalloc(test, sizeof(*bb), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bb);
	KUNIT_ASSERT_EQ(test, badblocks_init(bb, 1), 0);
	KUNIT_EXPECT_FALSE(test, rl_badblocks_cover(bb, 100, 8));
	KUNIT_EXPECT_EQ(test, badblocks_set(bb, 4096, 512, 1), 0);
	KUNIT_EXPECT_EQ(test, badblocks_set(bb, 4608, 512, 1), 0);
	KUNIT_EXPECT_EQ(test, badblocks_set(bb, 100, 8, 1), 0);
	KUNIT_EXPECT_EQ(test, badblocks_set(bb, 116, 8, 1), 0);
	KUNIT_EXPECT_TRUE(test, rl_badblocks_cover(bb, 100, 8));
	KUNIT_EXPECT_TRUE(test, rl_badblocks_cover(bb, 102, 4));
	KUNIT_EXPECT_FALSE(test, rl_badblocks_cover(bb, 96, 8));
	KUNIT_EXPECT_FALSE(test, rl_badblocks_cover(bb, 104, 8));
	/* a hole between two entries */
	KUNIT_EXPECT_FALSE(test, rl_badblocks_cover(bb, 100, 24));
	KUNIT_EXPECT_FALSE(test, rl_badblocks_cover(bb, 108, 8));
	/* one range in two entries of BB_MAX_LEN */
	KUNIT_EXPECT_TRUE(test, rl_badblocks_cover(bb, 4096, 1024));
	KUNIT_EXPECT_TRUE(test, rl_badblocks_cover(bb, 4600, 16));
	KUNIT_EXPECT_FALSE(test, rl_badblocks_cover(bb, 4096, 1025));
	KUNIT_EXPECT_FALSE(test, rl_badblocks_cover(bb, 4095, 8));
	badblocks_exit(bb);
}

static struct kunit_case rl_bbl_test_cases[] = {
	KUNIT_CASE(rl_bbl_test_layout),
	KUNIT_CASE(rl_bbl_test_roundtrip),
	KUNIT_CASE(rl_bbl_test_refused),
	KUNIT_CASE(rl_bbl_test_pick),
	KUNIT_CASE(rl_bbl_test_library),
	KUNIT_CASE(rl_bbl_test_cover),
	{}
};

static struct kunit_suite rl_bbl_test_suite = {
	.name = "dm_raidlab_badblocks",
	.test_cases = rl_bbl_test_cases,
};

kunit_test_suite(rl_bbl_test_suite);
