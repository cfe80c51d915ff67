// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the copy-set layouts (copyset_layout.c): near, far and
 * offset size and place as md raid10 does, checked against md's own
 * formulas written out here as md writes them (raid10_size(),
 * calc_sectors(), __raid10_find_phys(), raid10_find_virt() in
 * drivers/md/raid10.c, far sets of all members); every layout's map and
 * unmap agree and use each member position at most once; chained
 * declustering keeps a chunk's backup on the next member's second half;
 * and its read split after every failure set loads the survivors evenly.
 */
#include <kunit/test.h>
#include <linux/log2.h>
#include <linux/math64.h>

#include "../raidlab.h"
#include "../svc/metadata.h"
#include "copyset.h"

/* md raid10's geometry, as setup_geo() and calc_sectors() leave it. */
struct rl_md10 {
	int raid_disks, near_copies, far_copies, far_offset, far_set_size;
	int chunk_shift;
	sector_t chunk_mask, stride, size;
};

static void rl_md10_setup(struct rl_md10 *g, int disks, enum rl_cs_kind kind,
			  int copies, unsigned int chunk, sector_t dev_len)
{
	sector_t size;

	g->raid_disks = disks;
	g->near_copies = kind == RL_CS_NEAR ? copies : 1;
	g->far_copies = kind == RL_CS_NEAR ? 1 : copies;
	g->far_offset = kind == RL_CS_OFFSET;
	g->far_set_size = disks;
	g->chunk_mask = chunk - 1;
	g->chunk_shift = ilog2(chunk);

	/* raid10_size() */
	size = dev_len >> g->chunk_shift;
	size = div_u64(size, g->far_copies);
	size = size * disks;
	size = div_u64(size, g->near_copies);
	g->size = size << g->chunk_shift;

	/* calc_sectors(): size is the array's chunks */
	size = size * copies;
	size = DIV_ROUND_UP_ULL(size, disks);
	if (g->far_offset) {
		g->stride = 1 << g->chunk_shift;
	} else {
		size = div_u64(size, g->far_copies);
		g->stride = size << g->chunk_shift;
	}
}

/* __raid10_find_phys(), far_set_size = raid_disks */
static void rl_md10_find_phys(const struct rl_md10 *g, sector_t vsector,
			      int *devs, sector_t *addrs)
{
	sector_t chunk, stripe, sector;
	int n, f, dev, slot = 0;

	chunk = vsector >> g->chunk_shift;
	sector = vsector & g->chunk_mask;
	chunk *= g->near_copies;
	stripe = chunk;
	dev = do_div(stripe, g->raid_disks);
	if (g->far_offset)
		stripe *= g->far_copies;
	sector += stripe << g->chunk_shift;
	for (n = 0; n < g->near_copies; n++) {
		int d = dev;
		sector_t s = sector;

		devs[slot] = d;
		addrs[slot] = s;
		slot++;
		for (f = 1; f < g->far_copies; f++) {
			d += g->near_copies;
			d %= g->far_set_size;
			s += g->stride;
			devs[slot] = d;
			addrs[slot] = s;
			slot++;
		}
		dev++;
		if (dev >= g->raid_disks) {
			dev = 0;
			sector += g->chunk_mask + 1;
		}
	}
}

/* raid10_find_virt(), far_set_size = raid_disks */
static sector_t rl_md10_find_virt(const struct rl_md10 *g, sector_t sector,
				  int dev)
{
	sector_t offset, chunk, vchunk;

	offset = sector & g->chunk_mask;
	if (g->far_offset) {
		int fc;

		chunk = sector >> g->chunk_shift;
		fc = do_div(chunk, g->far_copies);
		dev -= fc * g->near_copies;
		if (dev < 0)
			dev += g->far_set_size;
	} else {
		while (sector >= g->stride) {
			sector -= g->stride;
			if (dev < g->near_copies)
				dev += g->far_set_size - g->near_copies;
			else
				dev -= g->near_copies;
		}
		chunk = sector >> g->chunk_shift;
	}
	vchunk = chunk * g->raid_disks + dev;
	vchunk = div_u64(vchunk, g->near_copies);
	return (vchunk << g->chunk_shift) + offset;
}

static const unsigned int rl_cs_chunks[] = { 8, 128 };

/* a member length of whole and part chunks, so that sizing rounds */
static sector_t rl_cs_dev_len(unsigned int chunk)
{
	return 37 * chunk + chunk / 2 + 3;
}

/* One md raid10 layout: the capacity, stride, copies and their inverse. */
static void rl_cs_check_md(struct kunit *test, enum rl_cs_kind kind,
			   unsigned int nr, unsigned int copies,
			   unsigned int chunk)
{
	sector_t len = rl_cs_dev_len(chunk), s, virt;
	struct rl_cs_copy c[RL_MAX_LOCS];
	sector_t addrs[RL_MAX_LOCS];
	int devs[RL_MAX_LOCS];
	struct rl_cs_layout l;
	struct rl_md10 g;
	char *error;
	unsigned int j;

	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, kind, nr, copies, ilog2(chunk),
					 0, len, &error), 0);
	rl_md10_setup(&g, nr, kind, copies, chunk, len);
	KUNIT_EXPECT_EQ_MSG(test, l.capacity, g.size, "%s%u on %u",
			    rl_cs_kind_name(kind), copies, nr);
	if (kind != RL_CS_NEAR)
		KUNIT_EXPECT_EQ(test, l.stride, g.stride);
	for (s = 0; s < l.capacity; s += chunk / 2 + 1) {
		rl_cs_map(&l, s, c);
		rl_md10_find_phys(&g, s, devs, addrs);
		for (j = 0; j < copies; j++) {
			KUNIT_EXPECT_EQ_MSG(test, c[j].member, devs[j],
					    "%s%u on %u: sector %llu copy %u",
					    rl_cs_kind_name(kind), copies, nr,
					    (unsigned long long)s, j);
			KUNIT_EXPECT_EQ(test, c[j].sector, addrs[j]);
			virt = rl_md10_find_virt(&g, addrs[j], devs[j]);
			KUNIT_EXPECT_EQ(test, virt, s);
		}
	}
}

/* Sizes and maps as md raid10: n2, n3, f2, f3, o2, o3 on 2 to 9 members. */
static void rl_cs_matches_md_raid10(struct kunit *test)
{
	static const enum rl_cs_kind kinds[] = {
		RL_CS_NEAR, RL_CS_FAR, RL_CS_OFFSET,
	};
	unsigned int ki, ci, nr, copies;

	for (ki = 0; ki < ARRAY_SIZE(kinds); ki++) {
		for (ci = 0; ci < ARRAY_SIZE(rl_cs_chunks); ci++) {
			for (nr = 2; nr <= 9; nr++) {
				for (copies = 2; copies <= min(nr, 3U); copies++)
					rl_cs_check_md(test, kinds[ki], nr,
						       copies, rl_cs_chunks[ci]);
			}
		}
	}
}

struct rl_cs_case {
	enum rl_cs_kind kind;
	unsigned int nr, copies, chunk;
	sector_t base;
};

static const struct rl_cs_case rl_cs_cases[] = {
	{ RL_CS_MIRROR, 2, 2, 8, 0 },	{ RL_CS_MIRROR, 3, 3, 8, 2048 },
	{ RL_CS_NEAR, 2, 2, 8, 0 },	{ RL_CS_NEAR, 3, 3, 8, 2048 },
	{ RL_CS_NEAR, 3, 2, 8, 0 },	{ RL_CS_NEAR, 4, 2, 128, 2048 },
	{ RL_CS_NEAR, 5, 3, 16, 8 },	{ RL_CS_NEAR, 6, 2, 8, 0 },
	{ RL_CS_NEAR, 7, 4, 8, 0 },	{ RL_CS_NEAR, 32, 2, 8, 2048 },
	{ RL_CS_FAR, 2, 2, 8, 0 },	{ RL_CS_FAR, 3, 2, 16, 2048 },
	{ RL_CS_FAR, 5, 3, 8, 0 },	{ RL_CS_FAR, 6, 2, 128, 8 },
	{ RL_CS_FAR, 4, 4, 8, 0 },	{ RL_CS_OFFSET, 2, 2, 8, 0 },
	{ RL_CS_OFFSET, 3, 2, 8, 2048 },	{ RL_CS_OFFSET, 5, 3, 16, 0 },
	{ RL_CS_OFFSET, 6, 2, 128, 8 },	{ RL_CS_CHAINED, 2, 2, 8, 0 },
	{ RL_CS_CHAINED, 3, 2, 8, 2048 },	{ RL_CS_CHAINED, 4, 2, 16, 0 },
	{ RL_CS_CHAINED, 6, 2, 128, 8 },	{ RL_CS_CHAINED, 13, 2, 8, 0 },
};

static void rl_cs_desc(const struct rl_cs_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s%u on %u chunk=%u base=%llu",
		 rl_cs_kind_name(c->kind), c->copies, c->nr, c->chunk,
		 (unsigned long long)c->base);
}

KUNIT_ARRAY_PARAM(rl_cs, rl_cs_cases, rl_cs_desc);

static void rl_cs_case_init(struct kunit *test, struct rl_cs_layout *l)
{
	const struct rl_cs_case *p = test->param_value;
	char *error = NULL;

	KUNIT_ASSERT_EQ_MSG(test, rl_cs_init(l, p->kind, p->nr, p->copies,
					     ilog2(p->chunk), p->base,
					     rl_cs_dev_len(p->chunk), &error),
			    0, "%s", error);
	KUNIT_ASSERT_LE(test, l->used, rl_cs_dev_len(p->chunk));
}

/*
 * Every sector's copies are on distinct members, inside the extent, and
 * unmap back to the sector and the copy's index; the map holds to the
 * end of the chunk.
 */
static void rl_cs_map_unmap(struct kunit *test)
{
	struct rl_cs_copy c[RL_MAX_LOCS], e[RL_MAX_LOCS];
	struct rl_cs_layout l;
	sector_t s, left, back;
	unsigned int j, i;

	rl_cs_case_init(test, &l);
	for (s = 0; s < l.capacity; s += 3) {
		unsigned long seen = 0;

		left = rl_cs_map(&l, s, c);
		KUNIT_ASSERT_GE(test, left, 1);
		KUNIT_ASSERT_LE(test, s + left, l.capacity);
		for (j = 0; j < l.copies; j++) {
			KUNIT_ASSERT_LT(test, c[j].member, l.nr);
			KUNIT_EXPECT_FALSE(test, seen & BIT(c[j].member));
			seen |= BIT(c[j].member);
			KUNIT_EXPECT_GE(test, c[j].sector, l.base);
			KUNIT_EXPECT_LT(test, c[j].sector + left - 1,
					l.base + l.used);
			KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, c[j].member,
							  c[j].sector, &back),
					(int)j);
			KUNIT_EXPECT_EQ(test, back, s);
		}
		/* the last sector the map promises: same copies, shifted */
		rl_cs_map(&l, s + left - 1, e);
		for (i = 0; i < l.copies; i++) {
			KUNIT_EXPECT_EQ(test, e[i].member, c[i].member);
			KUNIT_EXPECT_EQ(test, e[i].sector,
					c[i].sector + left - 1);
		}
	}
}

/*
 * Every used member sector that unmaps is a copy of what it names, and
 * they number capacity x copies: no two copies share a member sector.
 */
static void rl_cs_unmap_map(struct kunit *test)
{
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_cs_layout l;
	sector_t ms, ls, step, held = 0;
	unsigned int m;
	int j;

	rl_cs_case_init(test, &l);
	step = (sector_t)1 << l.chunk_shift;
	for (m = 0; m < l.nr; m++) {
		for (ms = l.base; ms < l.base + l.used + step; ms += step) {
			j = rl_cs_unmap(&l, m, ms, &ls);
			if (j < 0)
				continue;
			held += min(step, l.capacity - ls);
			KUNIT_ASSERT_LT(test, j, (int)l.copies);
			KUNIT_ASSERT_LT(test, ls, l.capacity);
			rl_cs_map(&l, ls, c);
			KUNIT_EXPECT_EQ(test, c[j].member, m);
			KUNIT_EXPECT_EQ(test, c[j].sector, ms);
		}
		KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, m, l.base - 1, &ls),
				-ENOENT);
	}
	KUNIT_EXPECT_EQ(test, held, l.capacity * l.copies);
	KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, l.nr, l.base, &ls), -ENOENT);
}

/*
 * A piece names the copies rl_cs_map() gives, each member's sector, to the
 * end of the chunk or the length asked, and whether all copies share one
 * offset.
 */
static void rl_cs_piece_matches_map(struct kunit *test)
{
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_cs_layout l;
	struct rl_cs_piece p;
	sector_t s, left;
	unsigned int j;
	bool same;

	rl_cs_case_init(test, &l);
	for (s = 0; s < l.capacity; s += 5) {
		left = rl_cs_map(&l, s, c);
		KUNIT_ASSERT_EQ(test, rl_cs_piece(&l, s, 3, &p), min_t(sector_t, left, 3));
		KUNIT_EXPECT_EQ(test, rl_cs_piece(&l, s, U32_MAX, &p), left);
		KUNIT_EXPECT_EQ(test, p.lsector, s);
		KUNIT_EXPECT_EQ(test, hweight_long(p.members), (int)l.copies);
		same = true;
		for (j = 0; j < l.copies; j++) {
			KUNIT_ASSERT_TRUE(test, p.members & BIT(c[j].member));
			KUNIT_EXPECT_EQ(test, p.sector[c[j].member], c[j].sector);
			same &= c[j].sector == c[0].sector;
		}
		KUNIT_EXPECT_EQ(test, p.same, same);
	}
}

/*
 * A pass over the member sectors in windows, as the engine's background
 * jobs walk them (copyset_sync.c): every member's copies in each window,
 * each piece done at rl_cs_piece_owner()'s member only. Every logical
 * sector is done exactly once in the pass, in a window that holds one of
 * its copies, whatever the windows.
 */
static void rl_cs_walk_pass(struct kunit *test, const struct rl_cs_layout *l,
			    u8 *done, sector_t first, sector_t w)
{
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_cs_piece p;
	sector_t s, len, x, n, i, base = l->base;
	unsigned int m, j;

	memset(done, 0, l->capacity);
	for (s = 0; s < l->used; s += len) {
		len = min(s ? w : first, l->used - s);
		for (m = 0; m < l->nr; m++) {
			for (x = s; x < s + len; x += n) {
				n = rl_cs_member_piece(l, m, base + x,
						       s + len - x, &p);
				KUNIT_ASSERT_GE(test, n, 1);
				KUNIT_ASSERT_LE(test, x + n, s + len);
				if (!p.len || !rl_cs_piece_owner(&p, m))
					continue;
				KUNIT_ASSERT_EQ(test, p.len, n);
				KUNIT_ASSERT_EQ(test, p.sector[m], base + x);
				for (i = 0; i < p.len; i++)
					done[p.lsector + i]++;
				/* done at its lowest copy */
				rl_cs_map(l, p.lsector, c);
				for (j = 0; j < l->copies; j++)
					KUNIT_EXPECT_GE(test, c[j].sector,
							base + x);
			}
		}
	}
	for (i = 0; i < l->capacity; i++)
		KUNIT_EXPECT_EQ_MSG(test, done[i], 1,
				    "sector %llu, windows of %llu after %llu",
				    (unsigned long long)i,
				    (unsigned long long)w,
				    (unsigned long long)first);
}

static void rl_cs_walk_once(struct kunit *test)
{
	struct rl_cs_layout l;
	sector_t chunk, w;
	u8 *done;

	rl_cs_case_init(test, &l);
	done = kunit_kzalloc(test, l.capacity, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, done);
	chunk = (sector_t)1 << l.chunk_shift;
	/* within a chunk row, whole chunks, several */
	for (w = max_t(sector_t, chunk / 2, 1); w <= 4 * chunk; w *= 2)
		rl_cs_walk_pass(test, &l, done, w, w);
	/* windows at odd places */
	rl_cs_walk_pass(test, &l, done, 3, 2 * chunk + 5);
	rl_cs_walk_pass(test, &l, done, chunk + 1, chunk - 1);
}

/*
 * The copy sets give the failure sets the data survives: exactly those
 * where every chunk keeps a copy on a member still there (brute force
 * over every chunk), for every failure set of up to 8 members and 300
 * random ones past that.
 */
static void rl_cs_sets_survive(struct kunit *test)
{
	unsigned long sets[RL_MAX_MEMBERS], failed, have;
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_cs_layout l;
	unsigned int n, i, j, tries;
	u64 k, seed = 11;
	bool ok;

	rl_cs_case_init(test, &l);
	n = rl_cs_sets(&l, sets);
	KUNIT_ASSERT_GE(test, n, 1U);
	KUNIT_ASSERT_LE(test, n, l.nr);
	tries = l.nr <= 8 ? 1U << l.nr : 300;
	for (i = 0; i < tries; i++) {
		if (l.nr <= 8) {
			failed = i;
		} else {
			seed = seed * 6364136223846793005ULL + 1;
			failed = (seed >> 11) & (seed >> 29) & GENMASK(l.nr - 1, 0);
		}
		ok = true;
		for (k = 0; k < l.chunks && ok; k++) {
			rl_cs_map(&l, k << l.chunk_shift, c);
			have = 0;
			for (j = 0; j < l.copies; j++)
				have |= BIT(c[j].member);
			ok = have & ~failed;
		}
		KUNIT_EXPECT_EQ_MSG(test, rl_cs_survives(sets, n, failed), ok,
				    "failed %lx", failed);
	}
}

/* The sets of the two layouts the issue names, by hand. */
static void rl_cs_sets_by_hand(struct kunit *test)
{
	unsigned long sets[RL_MAX_MEMBERS];
	struct rl_cs_layout l;
	char *error = NULL;
	unsigned int n;

	/* near 2 over 4: members 0+1 and 2+3 */
	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_NEAR, 4, 2, 3, 0, 800,
					 &error), 0);
	n = rl_cs_sets(&l, sets);
	KUNIT_EXPECT_EQ(test, n, 2U);
	KUNIT_EXPECT_TRUE(test, rl_cs_survives(sets, n, BIT(0) | BIT(2)));
	KUNIT_EXPECT_FALSE(test, rl_cs_survives(sets, n, BIT(2) | BIT(3)));
	/* chained over 6: any failures but two neighbours */
	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_CHAINED, 6, 2, 3, 0, 800,
					 &error), 0);
	n = rl_cs_sets(&l, sets);
	KUNIT_EXPECT_EQ(test, n, 6U);
	KUNIT_EXPECT_TRUE(test, rl_cs_survives(sets, n, BIT(0) | BIT(2) | BIT(4)));
	KUNIT_EXPECT_FALSE(test, rl_cs_survives(sets, n, BIT(5) | BIT(0)));
	/* a mirror loses its data only with every member */
	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_MIRROR, 3, 3, 3, 0, 800,
					 &error), 0);
	n = rl_cs_sets(&l, sets);
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_TRUE(test, rl_cs_survives(sets, n, BIT(0) | BIT(1)));
	KUNIT_EXPECT_FALSE(test, rl_cs_survives(sets, n, GENMASK(2, 0)));
}

/* A piece of a piece: the same copies, each shifted by the offset. */
static void rl_cs_piece_sub_shifts(struct kunit *test)
{
	struct rl_cs_layout l;
	struct rl_cs_piece p, sub;
	char *error = NULL;

	/* near 2 over 3 members, chunk 8: chunk 1 is slots 2 and 3 */
	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_NEAR, 3, 2, 3, 100, 800,
					 &error), 0);
	KUNIT_ASSERT_EQ(test, rl_cs_piece(&l, 10, 100, &p), 6);
	KUNIT_EXPECT_EQ(test, p.members, BIT(2) | BIT(0));
	KUNIT_EXPECT_EQ(test, p.sector[2], 102);	/* row 0 */
	KUNIT_EXPECT_EQ(test, p.sector[0], 110);	/* row 1 */
	KUNIT_EXPECT_FALSE(test, p.same);
	rl_cs_piece_sub(&p, 3, 2, &sub);
	KUNIT_EXPECT_EQ(test, sub.lsector, 13);
	KUNIT_EXPECT_EQ(test, sub.len, 2);
	KUNIT_EXPECT_EQ(test, sub.members, p.members);
	KUNIT_EXPECT_EQ(test, sub.sector[2], 105);
	KUNIT_EXPECT_EQ(test, sub.sector[0], 113);
	/* chunk 0's copies share row 0: the same offset */
	rl_cs_piece(&l, 0, 8, &p);
	KUNIT_EXPECT_TRUE(test, p.same);
}

/* A mirror has a copy on every member: any length, at the same offset. */
static void rl_cs_mirror(struct kunit *test)
{
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_cs_layout l;
	sector_t ls;
	char *error;
	unsigned int j;

	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_MIRROR, 3, 3, 7, 2048, 1001,
					 &error), 0);
	KUNIT_EXPECT_EQ(test, l.capacity, 1001);
	KUNIT_EXPECT_EQ(test, rl_cs_map(&l, 1000, c), 1);
	KUNIT_EXPECT_EQ(test, rl_cs_map(&l, 5, c), 996);
	for (j = 0; j < 3; j++) {
		KUNIT_EXPECT_EQ(test, c[j].member, j);
		KUNIT_EXPECT_EQ(test, c[j].sector, 2048 + 5);
		KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, j, 2048 + 5, &ls), (int)j);
		KUNIT_EXPECT_EQ(test, ls, 5);
	}
	KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, 1, 2048 + 1001, &ls), -ENOENT);
}

/*
 * Chained: chunk k's primary is on member k mod N in the first half, its
 * backup on the next member in the second half; so a member's first half
 * is rebuilt from the next member and its second half from the one before.
 */
static void rl_cs_chained_places(struct kunit *test)
{
	struct rl_cs_copy c[2];
	struct rl_cs_layout l;
	sector_t k, ls;
	unsigned int m;
	char *error;

	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_CHAINED, 5, 2, 3, 0, 8 * 21,
					 &error), 0);
	KUNIT_EXPECT_EQ(test, l.stride, 8 * 10);
	KUNIT_EXPECT_EQ(test, l.capacity, 5 * 8 * 10);
	for (k = 0; k < l.chunks; k++) {
		rl_cs_map(&l, k * 8 + 1, c);
		KUNIT_EXPECT_EQ(test, c[0].member, k % 5);
		KUNIT_EXPECT_EQ(test, c[1].member, (k + 1) % 5);
		KUNIT_EXPECT_EQ(test, c[0].sector, k / 5 * 8 + 1);
		KUNIT_EXPECT_EQ(test, c[1].sector, 8 * 10 + k / 5 * 8 + 1);
	}
	for (m = 0; m < 5; m++) {
		KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, m, 8 * 10 - 1, &ls), 0);
		rl_cs_map(&l, ls, c);
		KUNIT_EXPECT_EQ(test, c[1].member, (m + 1) % 5);
		KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, m, 8 * 10, &ls), 1);
		rl_cs_map(&l, ls, c);
		KUNIT_EXPECT_EQ(test, c[0].member, (m + 4) % 5);
		/* the odd chunk past the halves is unused */
		KUNIT_EXPECT_EQ(test, rl_cs_unmap(&l, m, 8 * 20, &ls), -ENOENT);
	}
}

/* Impossible layouts fail with a message; so do members too small. */
static void rl_cs_init_errors(struct kunit *test)
{
	struct rl_cs_layout l;
	char *error = NULL;

	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_NEAR, 1, 2, 3, 0, 800,
					 &error), -EINVAL);
	KUNIT_EXPECT_NOT_NULL(test, error);
	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_FAR, 3, 4, 3, 0, 800,
					 &error), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_OFFSET, 3, 1, 3, 0, 800,
					 &error), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_CHAINED, 4, 3, 3, 0, 800,
					 &error), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_MIRROR, 4, 2, 3, 0, 800,
					 &error), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_NR_KINDS, 4, 2, 3, 0, 800,
					 &error), -EINVAL);
	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_CHAINED, 4, 2, 3, 0, 15,
					 &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Members too small for the copy layout");
	KUNIT_EXPECT_EQ(test, rl_cs_init(&l, RL_CS_FAR, 4, 2, 3, 0, 8,
					 &error), -EINVAL);
}

#define RL_CS_SCALE	840	/* divisible by every run length up to 8 */

/* The survivors in the run of member @m (which has not failed). */
static unsigned int rl_cs_run(unsigned int nr, unsigned long failed,
			      unsigned int m)
{
	unsigned int i, run = 1;

	for (i = 1; i < nr && !(failed & BIT((m + i) % nr)); i++)
		run++;
	for (i = 1; i < nr && !(failed & BIT((m + nr - i) % nr)); i++)
		run++;
	return run;
}

/* The load member @m carries, in partitions x RL_CS_SCALE. */
static unsigned int rl_cs_load(struct kunit *test, unsigned int nr,
			       unsigned long failed, unsigned int m)
{
	unsigned int prev = (m + nr - 1) % nr, num, den, load;

	KUNIT_ASSERT_EQ(test, rl_cs_chained_share(nr, failed, m, &num, &den), 0);
	KUNIT_ASSERT_LE(test, num, den);
	load = RL_CS_SCALE / den * num;
	KUNIT_ASSERT_EQ(test, rl_cs_chained_share(nr, failed, prev, &num, &den),
			0);
	return load + RL_CS_SCALE - RL_CS_SCALE / den * num;
}

/* The shares and loads after the failure set @failed of @nr members. */
static void rl_cs_check_failures(struct kunit *test, unsigned int nr,
				 unsigned long failed)
{
	bool lost = failed & (failed >> 1 | failed << (nr - 1));
	unsigned int m, num, den, run, load, total = 0;
	bool gone;
	int r;

	for (m = 0; m < nr; m++) {
		gone = (failed & BIT(m)) && (failed & BIT((m + 1) % nr));
		r = rl_cs_chained_share(nr, failed, m, &num, &den);
		KUNIT_EXPECT_EQ(test, r, gone ? -ENODATA : 0);
	}
	if (lost)
		return;
	for (m = 0; m < nr; m++) {
		if (failed & BIT(m))
			continue;
		run = rl_cs_run(nr, failed, m);
		load = rl_cs_load(test, nr, failed, m);
		KUNIT_EXPECT_EQ_MSG(test, load, RL_CS_SCALE / run * (run + 1),
				    "nr %u failed %lx member %u", nr, failed, m);
		KUNIT_ASSERT_EQ(test, rl_cs_chained_load(nr, failed, m, &num,
							 &den), 0);
		KUNIT_EXPECT_EQ(test, num * run, den * (run + 1));
		if (hweight_long(failed) == 1)
			KUNIT_EXPECT_EQ(test, load * (nr - 1), RL_CS_SCALE * nr);
		total += load;
	}
	KUNIT_EXPECT_EQ(test, total, RL_CS_SCALE * nr);
}

/*
 * After every failure set of 3 to 8 members: a partition is lost exactly
 * when its two members have failed; otherwise all partitions are served
 * whole, a failed member serves nothing, and every survivor carries
 * (L + 1) / L partitions, L its run of survivors: N / (N - 1) with one
 * failure. With none, each copy serves half.
 */
static void rl_cs_chained_shares(struct kunit *test)
{
	unsigned int nr, m, num, den;
	unsigned long failed;
	int r;

	for (nr = 3; nr <= 8; nr++) {
		for (m = 0; m < nr; m++) {
			r = rl_cs_chained_share(nr, 0, m, &num, &den);
			KUNIT_EXPECT_EQ(test, r, 0);
			KUNIT_EXPECT_EQ(test, num * 2, den);
		}
		for (failed = 1; failed < BIT(nr); failed++)
			rl_cs_check_failures(test, nr, failed);
	}
}

/* A small deterministic generator for the read simulation. */
static u32 rl_cs_rand(u32 *x)
{
	*x = *x * 1103515245 + 12345;
	return *x >> 8;
}

/*
 * @reads reads of random chunks of a chained array of @nr with @out out:
 * a chunk with one copy out goes to the other, else the balance picks
 * (@skew: always the primary, as a balance that never changes its mind;
 * else at random, as head positions do) and rl_cs_chained_prefer() holds
 * it to the loads. Fills @done with each member's reads.
 */
static void rl_cs_simulate(unsigned int nr, unsigned long out, bool skew,
			   unsigned int reads, u64 *done)
{
	unsigned int i, part, back, c, o;
	u32 x = 1;

	memset(done, 0, nr * sizeof(*done));
	for (i = 0; i < reads; i++) {
		part = rl_cs_rand(&x) % nr;
		back = (part + 1) % nr;
		if (out & BIT(part)) {
			done[back]++;
			continue;
		}
		if (out & BIT(back)) {
			done[part]++;
			continue;
		}
		c = skew || rl_cs_rand(&x) & 1 ? part : back;
		o = c == part ? back : part;
		done[rl_cs_chained_prefer(nr, out, c, o, done[c], done[o])]++;
	}
}

/*
 * The largest difference between two neighbours that both survive, each
 * member's reads taken over its load (rl_cs_chained_load()): the rule
 * holds neighbours within its slack, and a run of survivors within its
 * length times that (runs apart share no read, so they are not
 * compared). A member out must have read nothing.
 */
static u64 rl_cs_spread(struct kunit *test, unsigned int nr,
			unsigned long out, const u64 *done)
{
	u64 norm[8], gap = 0;
	unsigned int m, n, num, den;

	for (m = 0; m < nr; m++) {
		KUNIT_ASSERT_EQ(test, rl_cs_chained_load(nr, out, m, &num, &den),
				0);
		norm[m] = num ? div_u64(done[m] * den, num) : 0;
		if (out & BIT(m)) {
			KUNIT_EXPECT_EQ(test, done[m], 0ULL);
			KUNIT_EXPECT_EQ(test, num, 0U);
		}
	}
	for (m = 0; m < nr; m++) {
		n = (m + 1) % nr;
		if (!(out & (BIT(m) | BIT(n))))
			gap = max(gap, norm[m] > norm[n] ? norm[m] - norm[n] :
							   norm[n] - norm[m]);
	}
	return gap;
}

/*
 * Held to the chain's loads, reads shift along the chain: after every
 * failure set of 3 to 8 members that keeps the data, two neighbours that
 * survive end within the slack of each other, each one's reads over its
 * load ((L + 1) / L partitions in a run of L), whether the balance picks
 * at random or always the primary (reads forced onto a run's end member
 * may overshoot it by a few); a member out reads nothing. The rule
 * itself: with one of six out (loads 6/5), the choice stands up to 16
 * reads over the load beyond the other copy's, 19 reads, and not at 20.
 */
static void rl_cs_chained_prefers(struct kunit *test)
{
	unsigned int nr, skew;
	unsigned long out;
	u64 done[8];

	KUNIT_EXPECT_EQ(test, rl_cs_chained_prefer(6, BIT(2), 3, 4, 0, 0), 3U);
	KUNIT_EXPECT_EQ(test, rl_cs_chained_prefer(6, BIT(2), 4, 5, 19, 0), 4U);
	KUNIT_EXPECT_EQ(test, rl_cs_chained_prefer(6, BIT(2), 4, 5, 20, 0), 5U);
	KUNIT_EXPECT_EQ(test, rl_cs_chained_prefer(6, BIT(2), 4, 5, 119, 100),
			4U);
	for (nr = 3; nr <= 8; nr++) {
		for (out = 1; out < BIT(nr); out++) {
			if (out & (out >> 1 | out << (nr - 1)))
				continue;
			for (skew = 0; skew < 2; skew++) {
				rl_cs_simulate(nr, out, skew, 20000, done);
				KUNIT_EXPECT_LE_MSG(test,
						    rl_cs_spread(test, nr, out, done),
						    (u64)2 * (RL_CS_SHIFT_SLACK + 2),
						    "nr %u out %lx skew %u",
						    nr, out, skew);
			}
		}
	}
}

/* The layout's metadata record: round trip, empty, damaged, compared. */
static void rl_cs_layout_record(struct kunit *test)
{
	u8 *block = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);
	struct rl_cs_layout l, back, other;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, block);
	KUNIT_EXPECT_EQ(test, rl_cs_layout_decode(block, &back), -ENODATA);
	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_FAR, 5, 3, 7, 0, 128 * 60,
					 &error), 0);
	rl_cs_layout_encode(&l, NULL, block);
	KUNIT_ASSERT_EQ(test, rl_cs_layout_decode(block, &back), 0);
	KUNIT_EXPECT_TRUE(test, rl_cs_layout_same(&l, &back));
	KUNIT_EXPECT_EQ(test, back.kind, RL_CS_FAR);
	KUNIT_EXPECT_EQ(test, back.copies, 3U);
	KUNIT_EXPECT_EQ(test, back.used, l.used);
	/* another kind, copies or size is another layout */
	other = l;
	other.kind = RL_CS_OFFSET;
	KUNIT_EXPECT_FALSE(test, rl_cs_layout_same(&other, &back));
	other = l;
	other.copies = 2;
	KUNIT_EXPECT_FALSE(test, rl_cs_layout_same(&other, &back));
	other = l;
	other.used += 128;
	KUNIT_EXPECT_FALSE(test, rl_cs_layout_same(&other, &back));
	/* a flipped bit anywhere in the block is damage */
	block[100] ^= 1;
	KUNIT_EXPECT_EQ(test, rl_cs_layout_decode(block, &back), -EINVAL);
	block[100] ^= 1;
	block[offsetof(struct rl_cs_layout_disk, kind)] ^= 4;
	KUNIT_EXPECT_EQ(test, rl_cs_layout_decode(block, &back), -EINVAL);
}

/* The scheme's words in the record: kept, compared, and NUL-terminated. */
static void rl_cs_layout_record_words(struct kunit *test)
{
	struct rl_cs_layout_disk *d = kunit_kzalloc(test, RL_MD_BLOCK,
						    GFP_KERNEL);
	struct rl_cs_layout l, back;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_EQ(test, rl_cs_init(&l, RL_CS_NEAR, 4, 2, 7, 0, 128 * 60,
					 &error), 0);
	/* none: the words are empty, as a record of before 1.14.0 */
	rl_cs_layout_encode(&l, NULL, d);
	KUNIT_ASSERT_EQ(test, rl_cs_layout_decode(d, &back), 0);
	KUNIT_EXPECT_TRUE(test, rl_cs_layout_words_same(d, NULL));
	KUNIT_EXPECT_TRUE(test, rl_cs_layout_words_same(d, ""));
	KUNIT_EXPECT_FALSE(test, rl_cs_layout_words_same(d, "dr 2"));
	rl_cs_layout_encode(&l, "dr 2 dm 1 geom heads=6", d);
	KUNIT_ASSERT_EQ(test, rl_cs_layout_decode(d, &back), 0);
	KUNIT_EXPECT_TRUE(test, rl_cs_layout_same(&l, &back));
	KUNIT_EXPECT_STREQ(test, d->words, "dr 2 dm 1 geom heads=6");
	KUNIT_EXPECT_TRUE(test, rl_cs_layout_words_same(d, "dr 2 dm 1 geom heads=6"));
	KUNIT_EXPECT_FALSE(test, rl_cs_layout_words_same(d, "dr 3 dm 1 geom heads=6"));
	KUNIT_EXPECT_FALSE(test, rl_cs_layout_words_same(d, NULL));
	/* words filling the field without their NUL: a damaged record */
	memset(d->words, 'x', sizeof(d->words));
	d->csum = cpu_to_le32(rl_md_csum(d, RL_MD_BLOCK, RL_CS_MD_CSUM_XOR));
	KUNIT_EXPECT_EQ(test, rl_cs_layout_decode(d, &back), -EINVAL);
	/* the longest that fits is kept whole */
	d->words[sizeof(d->words) - 1] = 0;
	d->csum = cpu_to_le32(rl_md_csum(d, RL_MD_BLOCK, RL_CS_MD_CSUM_XOR));
	KUNIT_EXPECT_EQ(test, rl_cs_layout_decode(d, &back), 0);
	KUNIT_EXPECT_EQ(test, strlen(d->words), (size_t)RL_CS_WORDS_MAX - 1);
}

static struct kunit_case rl_cs_test_cases[] = {
	KUNIT_CASE(rl_cs_matches_md_raid10),
	KUNIT_CASE_PARAM(rl_cs_map_unmap, rl_cs_gen_params),
	KUNIT_CASE_PARAM(rl_cs_unmap_map, rl_cs_gen_params),
	KUNIT_CASE_PARAM(rl_cs_piece_matches_map, rl_cs_gen_params),
	KUNIT_CASE_PARAM(rl_cs_walk_once, rl_cs_gen_params),
	KUNIT_CASE(rl_cs_piece_sub_shifts),
	KUNIT_CASE_PARAM(rl_cs_sets_survive, rl_cs_gen_params),
	KUNIT_CASE(rl_cs_sets_by_hand),
	KUNIT_CASE(rl_cs_mirror),
	KUNIT_CASE(rl_cs_chained_places),
	KUNIT_CASE(rl_cs_init_errors),
	KUNIT_CASE(rl_cs_chained_shares),
	KUNIT_CASE(rl_cs_chained_prefers),
	KUNIT_CASE(rl_cs_layout_record),
	KUNIT_CASE(rl_cs_layout_record_words),
	{}
};

static struct kunit_suite rl_cs_test_suite = {
	.name = "dm_raidlab_copyset",
	.test_cases = rl_cs_test_cases,
};

kunit_test_suite(rl_cs_test_suite);
