// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the durable records of delayed propagations
 * (copyset_prec.c, suite dm_raidlab_copyset_prec): a record round-trips;
 * a free slot, a torn one and one another layout wrote are told apart;
 * replay takes the valid records in the order they were written (seq),
 * whatever slots they sit in; a load takes back, in seq order, the
 * entries each of whose copies has a record of one write, and no other.
 */
#include <kunit/test.h>

#include "copyset_prec.h"

static const struct rl_cs_prec_bounds bounds = {
	.copies = 2, .dr = 3, .sectors = 1 << 20, .chunk_shift = 7,
};

static void rl_cs_prec_round_trip(struct kunit *test)
{
	struct rl_cs_prec r = {
		.seq = 0x123456789aULL, .lsector = 4096 + 8, .len = 24,
		.copy = 1, .rep = 2,
	}, back;
	struct rl_cs_prec_disk d;

	rl_cs_prec_encode(&r, &d);
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), 0);
	KUNIT_EXPECT_EQ(test, back.seq, r.seq);
	KUNIT_EXPECT_EQ(test, back.lsector, r.lsector);
	KUNIT_EXPECT_EQ(test, back.len, r.len);
	KUNIT_EXPECT_EQ(test, back.copy, r.copy);
	KUNIT_EXPECT_EQ(test, back.rep, r.rep);
	/* little endian on the medium */
	KUNIT_EXPECT_EQ(test, ((u8 *)&d)[8], 0x9a);
}

/* Free, torn, and valid but not this array's. */
static void rl_cs_prec_bad_slots(struct kunit *test)
{
	struct rl_cs_prec r = { .seq = 7, .lsector = 256, .len = 8 }, back;
	struct rl_cs_prec_disk d;

	memset(&d, 0, sizeof(d));
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -ENODATA);
	rl_cs_prec_encode(&r, &d);
	/* a free slot is its magic zeroed: the rest may stay */
	d.magic = 0;
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -ENODATA);
	rl_cs_prec_encode(&r, &d);
	((u8 *)&d)[20] ^= 1;		/* a store that did not land */
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -EBADMSG);
	rl_cs_prec_encode(&r, &d);
	d.magic = cpu_to_le32(RL_CS_PREC_MAGIC + 1);
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -EBADMSG);
	/* valid, but no copy, replica, sector or chunk of this array */
	r.copy = 2;
	rl_cs_prec_encode(&r, &d);
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -ERANGE);
	r.copy = 0;
	r.rep = 3;
	rl_cs_prec_encode(&r, &d);
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -ERANGE);
	r.rep = 0;
	r.lsector = (1 << 20) - 4;
	rl_cs_prec_encode(&r, &d);
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -ERANGE);
	r.lsector = 128 - 4;		/* across a chunk */
	rl_cs_prec_encode(&r, &d);
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -ERANGE);
	r.lsector = 128;
	r.len = 0;
	rl_cs_prec_encode(&r, &d);
	KUNIT_EXPECT_EQ(test, rl_cs_prec_decode(&d, &bounds, &back), -ERANGE);
}

/*
 * Replay order: by seq, not by slot (a slot is reused by any entry), the
 * free, torn and foreign slots left out, the foreign ones counted.
 */
static void rl_cs_prec_replay_order(struct kunit *test)
{
	static const u64 seqs[] = { 40, 0, 3, 17, 0, 41, 2 };
	struct rl_cs_prec_disk slots[ARRAY_SIZE(seqs) + 2];
	struct rl_cs_prec out[ARRAY_SIZE(slots)];
	struct rl_cs_prec r = { .len = 8 };
	unsigned int i, n, bad;

	memset(slots, 0, sizeof(slots));
	for (i = 0; i < ARRAY_SIZE(seqs); i++) {
		if (!seqs[i])
			continue;
		r.seq = seqs[i];
		r.lsector = 128 * i;
		r.rep = i % 3;
		rl_cs_prec_encode(&r, &slots[i]);
	}
	r.seq = 1;			/* torn */
	rl_cs_prec_encode(&r, &slots[7]);
	slots[7].csum ^= cpu_to_le32(1);
	r.seq = 5;			/* another layout's */
	r.copy = 5;
	rl_cs_prec_encode(&r, &slots[8]);
	n = rl_cs_prec_collect(slots, ARRAY_SIZE(slots), &bounds, out, &bad);
	KUNIT_ASSERT_EQ(test, n, 5U);
	KUNIT_EXPECT_EQ(test, bad, 1U);
	KUNIT_EXPECT_EQ(test, out[0].seq, 2ULL);
	KUNIT_EXPECT_EQ(test, out[0].lsector, 128ULL * 6);
	KUNIT_EXPECT_EQ(test, out[1].seq, 3ULL);
	KUNIT_EXPECT_EQ(test, out[2].seq, 17ULL);
	KUNIT_EXPECT_EQ(test, out[3].seq, 40ULL);
	KUNIT_EXPECT_EQ(test, out[4].seq, 41ULL);
	KUNIT_EXPECT_EQ(test, out[4].rep, 2);
}

/* Record @seq of @lsector's write on @copy, replica @rep, in its slot. */
static void rl_prec_put(struct rl_cs_prec_disk *slots, unsigned int idx,
			u64 seq, u64 lsector, u8 copy, u8 rep)
{
	struct rl_cs_prec r = {
		.seq = seq, .lsector = lsector, .len = 8, .copy = copy,
		.rep = rep,
	};

	rl_cs_prec_encode(&r, &slots[idx * bounds.copies + copy]);
}

/*
 * Taken back: entries 1 and 3 (both copies, one write), by seq; not 0
 * (a copy unrecorded), 2 (free), 4 (two writes), 5 (a record in the
 * other copy's slot), nor 6 (past the table's entries).
 */
static void rl_cs_prec_taken_back(struct kunit *test)
{
	struct rl_cs_prec_disk slots[7 * 2];
	struct rl_cs_prec_ent out[7];
	unsigned int n;

	memset(slots, 0, sizeof(slots));
	rl_prec_put(slots, 0, 9, 0, 0, 1);
	rl_prec_put(slots, 1, 12, 256, 0, 2);
	rl_prec_put(slots, 1, 11, 256, 1, 1);
	rl_prec_put(slots, 3, 4, 512, 1, 0);
	rl_prec_put(slots, 3, 5, 512, 0, 2);
	rl_prec_put(slots, 4, 6, 640, 0, 1);
	rl_prec_put(slots, 4, 7, 648, 1, 1);
	rl_prec_put(slots, 5, 8, 768, 1, 1);
	slots[5 * 2] = slots[5 * 2 + 1];
	rl_prec_put(slots, 6, 1, 896, 0, 1);
	rl_prec_put(slots, 6, 2, 896, 1, 1);
	n = rl_cs_prec_group(slots, ARRAY_SIZE(slots), 6, &bounds, out);
	KUNIT_ASSERT_EQ(test, n, 2U);
	KUNIT_EXPECT_EQ(test, out[0].idx, 3U);
	KUNIT_EXPECT_EQ(test, out[0].seq, 4ULL);
	KUNIT_EXPECT_EQ(test, out[0].last, 5ULL);
	KUNIT_EXPECT_EQ(test, out[0].lsector, 512ULL);
	KUNIT_EXPECT_EQ(test, out[0].rep[0], 2);
	KUNIT_EXPECT_EQ(test, out[0].rep[1], 0);
	KUNIT_EXPECT_EQ(test, out[1].idx, 1U);
	KUNIT_EXPECT_EQ(test, out[1].seq, 11ULL);
	KUNIT_EXPECT_EQ(test, out[1].last, 12ULL);
	KUNIT_EXPECT_EQ(test, out[1].len, 8U);
	KUNIT_EXPECT_EQ(test, out[1].rep[0], 2);
	KUNIT_EXPECT_EQ(test, out[1].rep[1], 1);
	/* the whole area, a bigger table: entry 6 too */
	n = rl_cs_prec_group(slots, ARRAY_SIZE(slots), 100, &bounds, out);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, out[0].idx, 6U);
}

static struct kunit_case rl_cs_prec_cases[] = {
	KUNIT_CASE(rl_cs_prec_round_trip),
	KUNIT_CASE(rl_cs_prec_bad_slots),
	KUNIT_CASE(rl_cs_prec_replay_order),
	KUNIT_CASE(rl_cs_prec_taken_back),
	{}
};

static struct kunit_suite rl_cs_prec_test_suite = {
	.name = "dm_raidlab_copyset_prec",
	.test_cases = rl_cs_prec_cases,
};

kunit_test_suite(rl_cs_prec_test_suite);
