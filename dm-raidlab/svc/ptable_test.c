// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the persistent tables (suite dm_raidlab_ptable), over a
 * store in memory that can crash at a persist: every write since the last
 * persist lands, does not, or lands torn (an 8-byte aligned prefix), at
 * random. A commit must be all or nothing at every crash, a returned
 * commit must survive any crash after it, a torn format must format
 * again, damage must be refused, and a commit must cost one persist.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "ptable.h"

#define PT_ESZ		16
#define PT_NR		300		/* entries: 2 table blocks */
#define PT_BLOCKS	8
#define PT_BYTES	(PT_BLOCKS * RL_MD_BLOCK)
#define PT_MAX_W	256		/* writes between two persists */
#define PT_POOL		(8 * RL_MD_BLOCK)	/* their bytes */
#define PT_COMMITS	20

struct pt_fake {
	struct rl_pt_store st;
	u8 cur[PT_BYTES];		/* what reads see */
	u8 durable[PT_BYTES];		/* what a crash keeps, at least */
	struct {
		u64 pos;
		u32 len;
		u32 at;			/* its bytes in pool */
	} w[PT_MAX_W];			/* writes since the last persist */
	unsigned int nr_w;
	u32 used;
	u8 pool[PT_POOL];
	unsigned int persists, writes;
	unsigned int crash_at;		/* the persist that crashes; 0: none */
	bool crashed;
	struct rnd_state rnd;		/* what lands at the crash */
};

static struct pt_fake *pt_of(struct rl_pt_store *st)
{
	return container_of(st, struct pt_fake, st);
}

static int pt_read(struct rl_pt_store *st, u64 pos, void *dst, size_t len)
{
	struct pt_fake *f = pt_of(st);

	if (f->crashed || pos + len > PT_BYTES)
		return -EIO;
	memcpy(dst, f->cur + pos, len);
	return 0;
}

static int pt_write(struct rl_pt_store *st, u64 pos, const void *src,
		    size_t len)
{
	struct pt_fake *f = pt_of(st);

	if (f->crashed || pos + len > PT_BYTES || f->nr_w == PT_MAX_W ||
	    f->used + len > PT_POOL)
		return -EIO;
	memcpy(f->cur + pos, src, len);
	f->w[f->nr_w].pos = pos;
	f->w[f->nr_w].len = len;
	f->w[f->nr_w].at = f->used;
	memcpy(f->pool + f->used, src, len);
	f->used += len;
	f->nr_w++;
	f->writes++;
	return 0;
}

/* The crash: each pending write lands whole, not at all, or a prefix. */
static void pt_crash(struct pt_fake *f)
{
	unsigned int i, len;

	for (i = 0; i < f->nr_w; i++) {
		switch (prandom_u32_state(&f->rnd) % 3) {
		case 0:
			continue;
		case 1:
			len = f->w[i].len;
			break;
		default:
			len = round_down(prandom_u32_state(&f->rnd) %
					 f->w[i].len, 8);
			break;
		}
		memcpy(f->durable + f->w[i].pos, f->pool + f->w[i].at, len);
	}
	f->crashed = true;
}

static int pt_persist(struct rl_pt_store *st)
{
	struct pt_fake *f = pt_of(st);

	if (f->crashed)
		return -EIO;
	if (++f->persists == f->crash_at) {
		pt_crash(f);
		return -EIO;
	}
	memcpy(f->durable, f->cur, PT_BYTES);
	f->nr_w = 0;
	f->used = 0;
	return 0;
}

/* A store over @image (zeroes if NULL), crashing at persist @crash_at. */
static struct pt_fake *pt_fake(struct kunit *test, const u8 *image,
			       unsigned int crash_at, u32 seed)
{
	struct pt_fake *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->st.read = pt_read;
	f->st.write = pt_write;
	f->st.persist = pt_persist;
	if (image) {
		memcpy(f->cur, image, PT_BYTES);
		memcpy(f->durable, image, PT_BYTES);
	}
	f->crash_at = crash_at;
	prandom_seed_state(&f->rnd, seed);
	return f;
}

static struct rl_ptable *pt_open(struct kunit *test, struct pt_fake *f,
				 bool fresh)
{
	struct rl_ptable *pt;
	char *error = NULL;
	int r = rl_ptable_open_store(&f->st, PT_ESZ, PT_NR, fresh, &pt,
				     &error);

	KUNIT_ASSERT_EQ_MSG(test, r, 0, "open: %s", error ?: "");
	return pt;
}

/* Every entry of @pt equals @model. */
static bool pt_equals(struct kunit *test, struct rl_ptable *pt,
		      const u8 (*model)[PT_ESZ])
{
	u8 e[PT_ESZ];
	u64 i;

	for (i = 0; i < PT_NR; i++) {
		KUNIT_ASSERT_EQ(test, rl_ptable_get(pt, i, e), 0);
		if (memcmp(e, model[i], PT_ESZ))
			return false;
	}
	return true;
}

/*
 * Commit @n of the deterministic run seeded by @rnd: a few random entries
 * set to random bytes, in @t and in @model.
 */
static void pt_stage(struct kunit *test, struct rl_pt_txn *t,
		     struct rnd_state *rnd, u8 (*model)[PT_ESZ])
{
	unsigned int k, nr = 1 + prandom_u32_state(rnd) % 40;
	u8 e[PT_ESZ];
	u64 idx;

	for (k = 0; k < nr; k++) {
		idx = prandom_u32_state(rnd) % PT_NR;
		prandom_bytes_state(rnd, e, PT_ESZ);
		KUNIT_ASSERT_EQ(test, rl_pt_txn_set(t, idx, e), 0);
		memcpy(model[idx], e, PT_ESZ);
	}
}

static void rl_ptable_commit_survives(struct kunit *test)
{
	u8 (*model)[PT_ESZ] = kunit_kzalloc(test, PT_NR * PT_ESZ, GFP_KERNEL);
	struct pt_fake *f = pt_fake(test, NULL, 0, 0), *g;
	struct rl_ptable *pt = pt_open(test, f, true), *re;
	struct rnd_state rnd;
	struct rl_pt_txn t;
	unsigned int n;

	KUNIT_ASSERT_NOT_NULL(test, model);
	KUNIT_ASSERT_EQ(test, rl_pt_txn_init(&t, pt), 0);
	prandom_seed_state(&rnd, 1);
	for (n = 0; n < PT_COMMITS; n++) {
		pt_stage(test, &t, &rnd, model);
		KUNIT_ASSERT_EQ(test, rl_ptable_commit(pt, &t), 0);
		KUNIT_EXPECT_TRUE(test, pt_equals(test, pt, model));
		/* a crash now keeps it: only the table writes are pending */
		g = pt_fake(test, f->durable, 0, n);
		re = pt_open(test, g, false);
		KUNIT_EXPECT_TRUE(test, pt_equals(test, re, model));
		rl_ptable_close(re);
	}
	KUNIT_EXPECT_EQ(test, f->persists, PT_COMMITS + 1);	/* + format */
	KUNIT_EXPECT_EQ(test, rl_ptable_sync(pt), 0);
	KUNIT_EXPECT_EQ(test, f->nr_w, 0U);
	kunit_info(test, "%u commits: %u persists, %u store writes",
		   PT_COMMITS, f->persists, f->writes);
	rl_pt_txn_exit(&t);
	rl_ptable_close(pt);
}

/*
 * Crash at persist @crash_at of the deterministic run; returns 1 if the
 * reloaded table holds the crashing commit, 0 if the one before, -1 if
 * neither (or the reload failed).
 */
static int pt_crash_run(struct kunit *test, unsigned int crash_at, u32 seed,
			u8 (*before)[PT_ESZ], u8 (*after)[PT_ESZ])
{
	struct pt_fake *f = pt_fake(test, NULL, crash_at, seed);
	struct rl_ptable *pt, *re;
	struct rnd_state rnd;
	struct rl_pt_txn t;
	char *error = NULL;
	unsigned int n = 0;
	int r = 0;

	memset(after, 0, PT_NR * PT_ESZ);
	if (rl_ptable_open_store(&f->st, PT_ESZ, PT_NR, true, &pt, &error)) {
		memset(before, 0, PT_NR * PT_ESZ);	/* the format crashed */
	} else {
		KUNIT_ASSERT_EQ(test, rl_pt_txn_init(&t, pt), 0);
		prandom_seed_state(&rnd, 1);
		do {
			memcpy(before, after, PT_NR * PT_ESZ);
			pt_stage(test, &t, &rnd, after);
			r = rl_ptable_commit(pt, &t);
		} while (!r && ++n < 2 * PT_COMMITS);
		KUNIT_EXPECT_NE(test, r, 0);	/* it crashed */
		rl_pt_txn_exit(&t);
		rl_ptable_close(pt);
	}
	f = pt_fake(test, f->durable, 0, 0);
	if (rl_ptable_open_store(&f->st, PT_ESZ, PT_NR, false, &re, &error)) {
		kunit_err(test, "crash at persist %u: reload: %s", crash_at,
			  error);
		return -1;
	}
	r = pt_equals(test, re, after) ? 1 : pt_equals(test, re, before) ? 0 : -1;
	rl_ptable_close(re);
	return r;
}

static void rl_ptable_all_or_nothing(struct kunit *test)
{
	u8 (*before)[PT_ESZ] = kunit_kzalloc(test, PT_NR * PT_ESZ, GFP_KERNEL);
	u8 (*after)[PT_ESZ] = kunit_kzalloc(test, PT_NR * PT_ESZ, GFP_KERNEL);
	unsigned int crash_at, seed, got[2] = { 0, 0 };
	int r;

	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, after);
	for (crash_at = 1; crash_at <= PT_COMMITS + 1; crash_at++) {
		for (seed = 0; seed < 24; seed++) {
			r = pt_crash_run(test, crash_at, seed, before, after);
			KUNIT_EXPECT_GE_MSG(test, r, 0,
					    "crash at persist %u, seed %u: a mixture",
					    crash_at, seed);
			if (r >= 0)
				got[r]++;
		}
	}
	/* the crashes did tear both ways */
	KUNIT_EXPECT_GT(test, got[0], 0U);
	KUNIT_EXPECT_GT(test, got[1], 0U);
	kunit_info(test, "crashes: %u kept the commit, %u the one before",
		   got[1], got[0]);
}

static void rl_ptable_limits(struct kunit *test)
{
	struct pt_fake *f = pt_fake(test, NULL, 0, 0);
	struct rl_ptable *pt = pt_open(test, f, true);
	u8 e[PT_ESZ] = { 1 }, out[PT_ESZ];
	struct rl_pt_txn t;
	unsigned int k, max = rl_ptable_txn_max(PT_ESZ);

	KUNIT_EXPECT_EQ(test, rl_ptable_txn_max(8), 254U);
	KUNIT_EXPECT_EQ(test, max, 169U);
	KUNIT_EXPECT_EQ(test, rl_ptable_blocks(PT_ESZ, PT_NR), 5ULL);
	KUNIT_ASSERT_EQ(test, rl_pt_txn_init(&t, pt), 0);
	KUNIT_EXPECT_EQ(test, rl_pt_txn_set(&t, PT_NR, e), -ERANGE);
	KUNIT_EXPECT_EQ(test, rl_ptable_get(pt, PT_NR, out), -ERANGE);
	for (k = 0; k < max; k++) {
		e[1] = k;
		KUNIT_ASSERT_EQ(test, rl_pt_txn_set(&t, 7, e), 0);
	}
	KUNIT_EXPECT_EQ(test, rl_pt_txn_set(&t, 7, e), -ENOSPC);
	KUNIT_ASSERT_EQ(test, rl_ptable_commit(pt, &t), 0);
	KUNIT_ASSERT_EQ(test, rl_ptable_get(pt, 7, out), 0);
	KUNIT_EXPECT_EQ(test, out[1], (u8)(max - 1));	/* the last set wins */
	KUNIT_EXPECT_EQ(test, t.nr, 0U);		/* reset by the commit */
	KUNIT_EXPECT_EQ(test, rl_ptable_commit(pt, &t), 0);	/* empty: no-op */
	KUNIT_EXPECT_EQ(test, f->persists, 2U);
	rl_pt_txn_exit(&t);
	rl_ptable_close(pt);
}

/* Open over @image: 0, or the error (with *error set). */
static int pt_reopen(struct kunit *test, const u8 *image, u64 nr)
{
	struct pt_fake *f = pt_fake(test, image, 0, 0);
	struct rl_ptable *pt;
	char *error = NULL;
	int r = rl_ptable_open_store(&f->st, PT_ESZ, nr, false, &pt, &error);

	if (r)
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, error);
	else
		rl_ptable_close(pt);
	return r;
}

static void rl_ptable_damage_refused(struct kunit *test)
{
	struct pt_fake *f = pt_fake(test, NULL, 0, 0);
	struct pt_fake *g = pt_fake(test, NULL, 0, 0);
	struct rl_ptable *pt = pt_open(test, f, true);
	u8 e[PT_ESZ] = { 9 };
	struct rl_pt_rec *rec;
	struct rl_pt_txn t;

	KUNIT_ASSERT_EQ(test, rl_pt_txn_init(&t, pt), 0);
	KUNIT_ASSERT_EQ(test, rl_pt_txn_set(&t, 3, e), 0);
	KUNIT_ASSERT_EQ(test, rl_ptable_commit(pt, &t), 0);
	rl_pt_txn_exit(&t);
	rl_ptable_close(pt);
	KUNIT_EXPECT_EQ(test, pt_reopen(test, f->durable, PT_NR), 0);
	/* another table's shape */
	KUNIT_EXPECT_EQ(test, pt_reopen(test, f->durable, PT_NR + 1), -EINVAL);
	/* a bad header over a live log: damage */
	f->durable[40] ^= 1;
	KUNIT_EXPECT_EQ(test, pt_reopen(test, f->durable, PT_NR), -EINVAL);
	/* a bad header with no record: a torn format, formatted again */
	rl_ptable_close(pt_open(test, g, true));
	g->durable[40] ^= 1;
	KUNIT_EXPECT_EQ(test, pt_reopen(test, g->durable, PT_NR), 0);
	/* a record that validates, of another entry size: damage */
	memcpy(f->durable, g->cur, RL_MD_BLOCK);	/* a good header */
	KUNIT_EXPECT_EQ(test, pt_reopen(test, f->durable, PT_NR), 0);
	rec = (struct rl_pt_rec *)(f->durable + 2 * RL_MD_BLOCK); /* seq 1 */
	KUNIT_ASSERT_EQ(test, le64_to_cpu(rec->seq), 1ULL);
	rec->entry_size = cpu_to_le32(8);
	rec->csum = cpu_to_le32(rl_md_csum(rec, RL_MD_BLOCK,
					   RL_PT_REC_CSUM_XOR));
	KUNIT_EXPECT_EQ(test, pt_reopen(test, f->durable, PT_NR), -EINVAL);
	/* the same bytes torn (bad checksum): a crash, not damage */
	rec->csum = 0;
	KUNIT_EXPECT_EQ(test, pt_reopen(test, f->durable, PT_NR), 0);
}

static struct kunit_case rl_ptable_test_cases[] = {
	KUNIT_CASE(rl_ptable_commit_survives),
	KUNIT_CASE(rl_ptable_all_or_nothing),
	KUNIT_CASE(rl_ptable_limits),
	KUNIT_CASE(rl_ptable_damage_refused),
	{}
};

static struct kunit_suite rl_ptable_test_suite = {
	.name = "dm_raidlab_ptable",
	.test_cases = rl_ptable_test_cases,
};

kunit_test_suite(rl_ptable_test_suite);
