// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suite dm_raidlab_altmirror: the pool's slots (torn, duplicate and
 * overwritten ones, and what a load keeps), the batch builder, the
 * cycle's state machine (am.h), and when a block may leave the pool with
 * disks failed and spares in their roles (am_complete()).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "am_int.h"

#define MS	1000000ULL

static void *am_test_block(struct kunit *test, u8 fill)
{
	u8 *p = kunit_kmalloc(test, RL_AM_BLOCK, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, fill, RL_AM_BLOCK);
	return p;
}

static void am_test_encode(const struct rl_am_slot *s, const void *data,
			   struct rl_am_slot_disk *d)
{
	rl_am_slot_encode(s, rl_am_data_crc(~0U, data, RL_AM_BLOCK), d);
}

/* A slot decodes back to what was encoded, with its bits. */
static void rl_am_slot_roundtrip(struct kunit *test)
{
	struct rl_am_slot s = { .seq = 41, .lblock = 7, .installed = 2 }, o;
	struct rl_am_slot_disk d;
	void *data = am_test_block(test, 0x5a);

	am_test_encode(&s, data, &d);
	KUNIT_ASSERT_EQ(test, rl_am_slot_decode(&d, data, 100, &o), 0);
	KUNIT_EXPECT_EQ(test, o.seq, 41ULL);
	KUNIT_EXPECT_EQ(test, o.lblock, 7ULL);
	KUNIT_EXPECT_EQ(test, o.installed, 2);
	/* a free slot */
	d.magic = 0;
	KUNIT_EXPECT_EQ(test, rl_am_slot_decode(&d, data, 100, &o), -ENODATA);
}

/* A torn header or data block fails; the installed word is outside. */
static void rl_am_slot_torn(struct kunit *test)
{
	struct rl_am_slot s = { .seq = 9, .lblock = 3 }, o;
	struct rl_am_slot_disk d, t;
	u8 *data = am_test_block(test, 0x11);

	am_test_encode(&s, data, &d);
	t = d;
	t.lblock = cpu_to_le64(4);
	KUNIT_EXPECT_EQ(test, rl_am_slot_decode(&t, data, 100, &o), -EBADMSG);
	t = d;
	t.seq = cpu_to_le64(10);
	KUNIT_EXPECT_EQ(test, rl_am_slot_decode(&t, data, 100, &o), -EBADMSG);
	/* half the data block of a new write */
	data[RL_AM_BLOCK - 1] ^= 1;
	KUNIT_EXPECT_EQ(test, rl_am_slot_decode(&d, data, 100, &o), -EBADMSG);
	data[RL_AM_BLOCK - 1] ^= 1;
	/* the bits may change without the checksum */
	t = d;
	t.installed = cpu_to_le64(rl_am_installed_word(9, 3));
	KUNIT_ASSERT_EQ(test, rl_am_slot_decode(&t, data, 100, &o), 0);
	KUNIT_EXPECT_EQ(test, o.installed, 3);
	/* bits left by the slot's earlier occupant do not count */
	t.installed = cpu_to_le64(rl_am_installed_word(8, 3));
	KUNIT_ASSERT_EQ(test, rl_am_slot_decode(&t, data, 100, &o), 0);
	KUNIT_EXPECT_EQ(test, o.installed, 0);
	/* another array's block */
	KUNIT_EXPECT_EQ(test, rl_am_slot_decode(&d, data, 3, &o), -ERANGE);
}

/* A load keeps the newest version of each block, whatever the order. */
static void rl_am_choose_newest(struct kunit *test)
{
	struct rl_am_found f[] = {
		{ .seq = 5, .lblock = 10, .slot = 0 },
		{ .seq = 9, .lblock = 10, .slot = 1, .installed = 1 },
		{ .seq = 2, .lblock = 3, .slot = 2 },
		{ .seq = 7, .lblock = 10, .slot = 3 },
		{ .seq = 4, .lblock = 8, .slot = 4 },
		{ .seq = 4, .lblock = 8, .slot = 5 },	/* a duplicate */
	};
	unsigned int i, kept_slots = 0;

	KUNIT_EXPECT_EQ(test, rl_am_choose(f, ARRAY_SIZE(f)), 3U);
	for (i = 0; i < ARRAY_SIZE(f); i++)
		if (f[i].keep)
			kept_slots |= BIT(f[i].slot);
	/* block 10: seq 9 (slot 1); block 3: slot 2; block 8: slot 4 */
	KUNIT_EXPECT_EQ(test, kept_slots, BIT(1) | BIT(2) | BIT(4));
	for (i = 0; i < ARRAY_SIZE(f); i++)
		if (f[i].slot == 1)
			KUNIT_EXPECT_EQ(test, f[i].installed, 1);
}

/* Sorted in physical order, contiguous blocks merged, runs bounded. */
static void rl_am_batch_merged(struct kunit *test)
{
	struct rl_am_bent e[] = {
		{ 9, 0 }, { 3, 1 }, { 4, 2 }, { 20, 3 }, { 5, 4 }, { 10, 5 },
		{ 11, 6 }, { 12, 7 },
	};
	struct rl_am_run r[ARRAY_SIZE(e)];
	u32 n;

	rl_am_batch_sort(e, ARRAY_SIZE(e));
	KUNIT_EXPECT_EQ(test, e[0].lblock, 3ULL);
	KUNIT_EXPECT_EQ(test, e[7].lblock, 20ULL);
	n = rl_am_batch_runs(e, ARRAY_SIZE(e), 64, r);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, r[0].lblock, 3ULL);
	KUNIT_EXPECT_EQ(test, r[0].nr, 3U);
	KUNIT_EXPECT_EQ(test, r[1].lblock, 9ULL);
	KUNIT_EXPECT_EQ(test, r[1].nr, 4U);
	KUNIT_EXPECT_EQ(test, r[1].first, 3U);
	KUNIT_EXPECT_EQ(test, e[r[1].first].slot, 0U);
	KUNIT_EXPECT_EQ(test, r[2].lblock, 20ULL);
	/* at most 2 a run */
	n = rl_am_batch_runs(e, ARRAY_SIZE(e), 2, r);
	KUNIT_EXPECT_EQ(test, n, 5U);
	KUNIT_EXPECT_EQ(test, r[1].lblock, 5ULL);
	KUNIT_EXPECT_EQ(test, r[1].nr, 1U);
}

static struct rl_am_cycle_in am_in(u64 now, u32 p0, u32 p1, bool pressure)
{
	return (struct rl_am_cycle_in){ .now = now, .batch = 100,
		.pending = { p0, p1 }, .live = RL_AM_ALL,
		.pressure = pressure };
}

/* Disk 0 at its start, disk 1 half a period later, out of phase. */
static void rl_am_cycle_alternates(struct kunit *test)
{
	struct rl_am_cycle c;
	struct rl_am_cycle_in in;
	unsigned int d = 9;
	u64 until;

	rl_am_cycle_init(&c, 0, 100 * MS, 1000 * MS, false);
	in = am_in(10 * MS, 5, 5, false);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	KUNIT_EXPECT_EQ(test, until, 1000 * MS);
	/* 100 writes in the first second: T = 100 / 100 per s = 1 s */
	c.arrived = 100;
	in = am_in(1000 * MS, 5, 5, false);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 0U);
	KUNIT_EXPECT_EQ(test, c.period, 1000 * MS);
	KUNIT_EXPECT_EQ(test, c.next[1], 1500 * MS);
	/* disk 1's turn comes while disk 0 still writes: held */
	in = am_in(1500 * MS, 0, 5, false);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	KUNIT_EXPECT_EQ(test, c.held, 1ULL);
	rl_am_cycle_done(&c, 0);
	in = am_in(1510 * MS, 0, 5, false);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 1U);
	KUNIT_EXPECT_EQ(test, c.next[0], 1510 * MS + 500 * MS);
	KUNIT_EXPECT_EQ(test, c.overlaps, 0ULL);
	rl_am_cycle_done(&c, 1);
	/* 400 writes in the next 1.01 s: T is 0.2525 s */
	c.arrived = 400;
	in = am_in(2010 * MS, 5, 0, false);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 0U);
	KUNIT_EXPECT_EQ(test, c.period, 252500000ULL);
}

/* Allowed, a start over the other's batch is an overlap. */
static void rl_am_cycle_overlap(struct kunit *test)
{
	struct rl_am_cycle c;
	struct rl_am_cycle_in in;
	unsigned int d;
	u64 until;

	rl_am_cycle_init(&c, 0, 100 * MS, 1000 * MS, true);
	in = am_in(1000 * MS, 5, 5, false);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	in = am_in(1500 * MS, 5, 5, false);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 1U);
	KUNIT_EXPECT_EQ(test, c.overlaps, 1ULL);
	/* both write: nothing more until a batch ends */
	in = am_in(3000 * MS, 5, 5, true);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	KUNIT_EXPECT_EQ(test, until, U64_MAX);
}

/* Pressure brings a start forward; an empty turn passes. */
static void rl_am_cycle_pressure(struct kunit *test)
{
	struct rl_am_cycle c;
	struct rl_am_cycle_in in;
	unsigned int d;
	u64 until;

	rl_am_cycle_init(&c, 0, 100 * MS, 1000 * MS, false);
	in = am_in(1 * MS, 50, 50, true);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 0U);
	rl_am_cycle_done(&c, 0);
	in = am_in(2 * MS, 0, 50, true);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 1U);
	rl_am_cycle_done(&c, 1);
	/* nothing for disk 0 at its time: its turn passes to disk 1 */
	in = am_in(5000 * MS, 0, 0, false);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	KUNIT_EXPECT_EQ(test, c.turn, 1U);
	/* disk 1's time has passed too: ask again at once */
	KUNIT_EXPECT_LE(test, until, 5000 * MS);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	KUNIT_EXPECT_EQ(test, c.turn, 0U);
	KUNIT_EXPECT_EQ(test, until, 6000 * MS);
}

/* A whole batch pending starts before its time; less does not. */
static void rl_am_cycle_full_batch(struct kunit *test)
{
	struct rl_am_cycle c;
	struct rl_am_cycle_in in;
	unsigned int d;
	u64 until;

	rl_am_cycle_init(&c, 0, 100 * MS, 1000 * MS, false);
	in = am_in(10 * MS, 99, 99, false);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	in = am_in(20 * MS, 100, 100, false);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 0U);
}

/* One disk left: it installs whatever is pending, at once. */
static void rl_am_cycle_single(struct kunit *test)
{
	struct rl_am_cycle c;
	struct rl_am_cycle_in in;
	unsigned int d;
	u64 until;

	rl_am_cycle_init(&c, 0, 100 * MS, 1000 * MS, false);
	in = am_in(1 * MS, 0, 1, false);
	in.live = BIT(1);
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 1U);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	rl_am_cycle_done(&c, 1);
	in.pending[1] = 0;
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	KUNIT_EXPECT_EQ(test, until, U64_MAX);
}

/* single_batch: the one disk left batches every T, as the pair does. */
static void rl_am_cycle_single_batch(struct kunit *test)
{
	struct rl_am_cycle c;
	struct rl_am_cycle_in in;
	unsigned int d;
	u64 until;

	rl_am_cycle_init(&c, 0, 100 * MS, 1000 * MS, false);
	c.single_batch = true;
	in = am_in(1 * MS, 0, 1, false);
	in.live = BIT(1);
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	KUNIT_EXPECT_EQ(test, until, 1500 * MS);
	in.now = 1500 * MS;
	KUNIT_ASSERT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
	KUNIT_EXPECT_EQ(test, d, 1U);
	rl_am_cycle_done(&c, 1);
	KUNIT_EXPECT_EQ(test, c.next[1], 2500 * MS);
	in.now = 1600 * MS;
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_WAIT);
	/* pressure starts it at once */
	in.pressure = true;
	KUNIT_EXPECT_EQ(test, rl_am_cycle_next(&c, &in, &d, &until),
			RL_AM_START);
}

static void rl_am_period_bounds(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rl_am_period(100, 0, MS, 10, 1000), 1000ULL);
	KUNIT_EXPECT_EQ(test, rl_am_period(100, 100000000, MS, 10, 1000), 10ULL);
	KUNIT_EXPECT_EQ(test, rl_am_period(100, 200, 400, 10, 1000), 200ULL);
}

/*
 * When a block may leave the pool (am_complete()): every disk that holds
 * a role and is not dead has it, one at least, and no batch holds it. A
 * role is dead only while the disk whose failure was recorded holds it.
 */
static void rl_am_complete_roles(struct kunit *test)
{
	struct rl_array *a = kunit_kzalloc(test, struct_size(a, members, 2),
					   GFP_KERNEL);
	struct am *am = kunit_kzalloc(test, sizeof(*am), GFP_KERNEL);
	struct dm_dev *d0, *d1, *spare;
	struct am_ent e = { .installed = BIT(0) };

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, am);
	d0 = kunit_kzalloc(test, sizeof(*d0), GFP_KERNEL);
	d1 = kunit_kzalloc(test, sizeof(*d1), GFP_KERNEL);
	spare = kunit_kzalloc(test, sizeof(*spare), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, d0 && d1 && spare);
	am->a = a;
	a->members[0].dev = d0;
	a->members[1].dev = d1;
	/* both disks: both must have it */
	KUNIT_EXPECT_FALSE(test, am_complete(am, &e));
	e.installed = RL_AM_ALL;
	KUNIT_EXPECT_TRUE(test, am_complete(am, &e));
	e.inflight = BIT(1);
	KUNIT_EXPECT_FALSE(test, am_complete(am, &e));
	e.inflight = 0;
	/* disk 1 failed, not yet recorded: it still counts */
	e.installed = BIT(0);
	a->failed = BIT(1);
	KUNIT_EXPECT_FALSE(test, am_complete(am, &e));
	/* recorded: disk 0 alone holds the data */
	am->told = BIT(1);
	am->told_dev[1] = d1;
	KUNIT_EXPECT_EQ(test, am_dead(am), (unsigned int)BIT(1));
	KUNIT_EXPECT_TRUE(test, am_complete(am, &e));
	e.installed = 0;
	KUNIT_EXPECT_FALSE(test, am_complete(am, &e));
	/* a spare took role 1, then failed: not dead before it is told */
	e.installed = BIT(0);
	a->members[1].dev = spare;
	KUNIT_EXPECT_EQ(test, am_dead(am), 0U);
	KUNIT_EXPECT_FALSE(test, am_complete(am, &e));
	/* both dead: the pool keeps everything */
	a->members[1].dev = d1;
	a->failed = RL_AM_ALL;
	am->told = RL_AM_ALL;
	am->told_dev[0] = d0;
	KUNIT_EXPECT_EQ(test, am_dead(am), (unsigned int)RL_AM_ALL);
	KUNIT_EXPECT_FALSE(test, am_complete(am, &e));
}

/*
 * The recovery record: a copy round-trips; a torn copy (any byte), another
 * array's, or an unknown state does not count; of two copies, the valid
 * one with the higher gen does, so a torn write leaves the one before.
 */
static void rl_am_rec_copies(struct kunit *test)
{
	static const u8 uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct rl_am_rec r = { .state = RL_AM_REC_ACTIVE, .gen = 7,
			       .survivor = 1 }, out;
	struct rl_am_rec_disk d[2];
	unsigned int i;

	memcpy(r.uuid, uuid, 16);
	memset(r.r2_uuid, 0x5a, 16);
	memset(d, 0, sizeof(d));
	KUNIT_EXPECT_EQ(test, rl_am_rec_choose(d, uuid, &out), -ENODATA);
	KUNIT_EXPECT_EQ(test, out.state, (u32)RL_AM_REC_NONE);

	rl_am_rec_encode(&r, &d[0]);
	KUNIT_EXPECT_EQ(test, rl_am_rec_decode(&d[0], uuid, &out), 0);
	KUNIT_EXPECT_EQ(test, out.state, (u32)RL_AM_REC_ACTIVE);
	KUNIT_EXPECT_EQ(test, out.gen, 7ULL);
	KUNIT_EXPECT_EQ(test, out.survivor, 1U);
	KUNIT_EXPECT_EQ(test, memcmp(out.r2_uuid, r.r2_uuid, 16), 0);
	for (i = 0; i < sizeof(d[0]); i++) {
		d[1] = d[0];
		((u8 *)&d[1])[i] ^= 0x10;
		KUNIT_EXPECT_NE(test, rl_am_rec_decode(&d[1], uuid, &out), 0);
	}
	KUNIT_EXPECT_EQ(test, rl_am_rec_decode(&d[0], r.r2_uuid, &out),
			-EBADMSG);
	r.state = RL_AM_REC_CATCHUP_R2 + 1;
	rl_am_rec_encode(&r, &d[1]);
	KUNIT_EXPECT_EQ(test, rl_am_rec_decode(&d[1], uuid, &out), -EBADMSG);

	/* the next state over the other copy: it counts; torn, the first */
	r.state = RL_AM_REC_NONE;
	r.gen = 8;
	rl_am_rec_encode(&r, &d[1]);
	KUNIT_EXPECT_EQ(test, rl_am_rec_choose(d, uuid, &out), 1);
	KUNIT_EXPECT_EQ(test, out.state, (u32)RL_AM_REC_NONE);
	d[1].gen ^= cpu_to_le64(1);
	KUNIT_EXPECT_EQ(test, rl_am_rec_choose(d, uuid, &out), 0);
	KUNIT_EXPECT_EQ(test, out.state, (u32)RL_AM_REC_ACTIVE);
	KUNIT_EXPECT_EQ(test, rl_am_rec_blocks(1), 2ULL);
	KUNIT_EXPECT_EQ(test, rl_am_rec_blocks(RL_AM_REC_BITS), 2ULL);
	KUNIT_EXPECT_EQ(test, rl_am_rec_blocks(RL_AM_REC_BITS + 1), 3ULL);
}

static struct kunit_case rl_am_test_cases[] = {
	KUNIT_CASE(rl_am_slot_roundtrip),
	KUNIT_CASE(rl_am_slot_torn),
	KUNIT_CASE(rl_am_choose_newest),
	KUNIT_CASE(rl_am_batch_merged),
	KUNIT_CASE(rl_am_cycle_alternates),
	KUNIT_CASE(rl_am_cycle_overlap),
	KUNIT_CASE(rl_am_cycle_pressure),
	KUNIT_CASE(rl_am_cycle_full_batch),
	KUNIT_CASE(rl_am_cycle_single),
	KUNIT_CASE(rl_am_cycle_single_batch),
	KUNIT_CASE(rl_am_period_bounds),
	KUNIT_CASE(rl_am_complete_roles),
	KUNIT_CASE(rl_am_rec_copies),
	{}
};

static struct kunit_suite rl_am_test_suite = {
	.name = "dm_raidlab_altmirror",
	.test_cases = rl_am_test_cases,
};

kunit_test_suite(rl_am_test_suite);
