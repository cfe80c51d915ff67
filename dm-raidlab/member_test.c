// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for member I/O bookkeeping (suite dm_raidlab_member): a bio
 * that a lower device split, chained and ended with an error is restored
 * to exactly what it was when it was mapped, so that it can be sent again.
 */
#include <kunit/test.h>
#include <linux/bio.h>

#include "raidlab.h"

static void rl_member_restore_after_split(struct kunit *test)
{
	struct bio_vec bvec[4];
	struct rl_bio_record rec;
	struct page *page;
	struct bio bio;
	unsigned int i;

	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	bio_init(&bio, NULL, bvec, ARRAY_SIZE(bvec), REQ_OP_READ);
	for (i = 0; i < ARRAY_SIZE(bvec); i++)
		__bio_add_page(&bio, page, PAGE_SIZE, 0);
	bio.bi_iter.bi_sector = 1000;
	rl_bio_record(&bio, &rec);

	/* a lower device splits it in three and chains it, then fails it */
	bio_inc_remaining(&bio);
	bio_inc_remaining(&bio);
	bio_advance(&bio, 3 * PAGE_SIZE);
	atomic_set(&bio.__bi_remaining, 0);	/* every piece has ended */
	bio_clear_flag(&bio, BIO_CHAIN);
	bio_set_flag(&bio, BIO_REMAPPED);
	bio.bi_status = BLK_STS_IOERR;

	rl_bio_restore(&bio, &rec);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_sector, 1000);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_size, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_idx, 0);
	KUNIT_EXPECT_EQ(test, bio.bi_iter.bi_bvec_done, 0);
	KUNIT_EXPECT_TRUE(test, bio.bi_status == BLK_STS_OK);
	KUNIT_EXPECT_FALSE(test, bio_flagged(&bio, BIO_REMAPPED));

	/*
	 * Sent again and split in two: it must end once, with the last piece.
	 * bio_remaining_done() is what bio_endio() asks.
	 */
	bio_inc_remaining(&bio);
	KUNIT_EXPECT_EQ(test, atomic_read(&bio.__bi_remaining), 2);
	KUNIT_EXPECT_FALSE(test, atomic_dec_and_test(&bio.__bi_remaining));
	KUNIT_EXPECT_TRUE(test, atomic_dec_and_test(&bio.__bi_remaining));

	bio_uninit(&bio);
	__free_page(page);
}

static struct kunit_case rl_member_test_cases[] = {
	KUNIT_CASE(rl_member_restore_after_split),
	{}
};

static struct kunit_suite rl_member_test_suite = {
	.name = "dm_raidlab_member",
	.test_cases = rl_member_test_cases,
};

kunit_test_suite(rl_member_test_suite);
