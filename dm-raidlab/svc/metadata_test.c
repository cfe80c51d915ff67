// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the metadata encoding (suite dm_raidlab_metadata): the
 * superblock, member superblock and bitmap blocks round-trip, every
 * corruption is refused with the right message, every extent is checked
 * against the others and the device's size, and a torn bitmap block makes
 * its regions dirty.
 */
#include <kunit/test.h>
#include <linux/crc32c.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "metadata.h"

/* A superblock with every field set to something recognisable. */
static void rl_mdt_state(struct rl_md_state *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	st->flags = RL_MD_CLEAN;
	st->seq = 0x0102030405060708ULL;
	st->events = 77;
	for (i = 0; i < 16; i++)
		st->uuid[i] = 0xa0 + i;
	strscpy(st->scheme, "raid5", sizeof(st->scheme));
	st->nr_members = 5;
	st->chunk_sectors = 128;
	st->data_offset = RL_MD_DATA_OFFSET;
	st->member_sectors = 1000000;
	st->array_sectors = 4000000;
	st->resync_cursor = 123456;
	st->mismatches = 9;
	st->region_shift = 7;
	st->nr_regions = rl_md_nr_regions(st->member_sectors, st->region_shift);
	st->bitmap_start = 2;
	st->bitmap_blocks = rl_md_bitmap_blocks(st->nr_regions);
	st->nr_areas = 2;
	st->areas[0].id = 0x50;
	st->areas[0].start = 2 + st->bitmap_blocks;
	st->areas[0].blocks = 16;
	st->areas[1].id = 0x51;
	st->areas[1].start = st->areas[0].start + 16;
	st->areas[1].blocks = 3;
	for (i = 0; i < st->nr_members; i++) {
		st->members[i].state = RL_MS_IN_SYNC;
		memset(st->members[i].dev_uuid, i + 1, 16);
	}
	st->members[2].state = RL_MS_FAILED;
	st->members[3].state = RL_MS_REBUILDING;
	st->members[3].cursor = 4096;
}

static void rl_mdt_msb_state(struct rl_msb_state *st)
{
	memset(st, 0, sizeof(*st));
	st->role = 3;
	memset(st->uuid, 0x5a, 16);
	memset(st->dev_uuid, 0xc3, 16);
	st->events = 12;
	st->nr_members = 4;
	st->chunk_sectors = 256;
	st->data_offset = RL_MD_DATA_OFFSET;
	st->member_sectors = 1 << 20;
	strscpy(st->scheme, "mirror", sizeof(st->scheme));
}

static void *rl_mdt_block(struct kunit *test)
{
	void *b = kunit_kzalloc(test, RL_MD_BLOCK, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

/* The checksum as the format defines it, computed independently. */
static void rl_mdt_resum(void *block, u32 xor)
{
	*(__le32 *)block = cpu_to_le32(crc32c(~0U, block + 4, RL_MD_BLOCK - 4) ^
				       xor);
}

static void rl_md_test_sb_roundtrip(struct kunit *test)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_md_state *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	void *b = rl_mdt_block(test);
	const struct rl_md_sb *sb = b;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_mdt_state(st);
	rl_md_sb_encode(st, b);
	/* little endian on disk, and the checksum is the format's */
	KUNIT_EXPECT_EQ(test, ((u8 *)b)[offsetof(struct rl_md_sb, seq)], 0x08);
	KUNIT_EXPECT_EQ(test, ((u8 *)b)[offsetof(struct rl_md_sb, seq) + 7], 0x01);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sb->csum),
			crc32c(~0U, b + 4, RL_MD_BLOCK - 4) ^ RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(sb->magic), RL_MD_MAGIC);
	KUNIT_EXPECT_EQ(test, memcmp(&sb->magic, "RLABMD01", 8), 0);
	KUNIT_ASSERT_EQ_MSG(test, rl_md_sb_decode(b, out, &error), 0, "%s",
			    error ? error : "");
	KUNIT_EXPECT_EQ(test, memcmp(st, out, sizeof(*st)), 0);
	KUNIT_EXPECT_EQ(test, out->members[3].cursor, 4096);
	KUNIT_EXPECT_STREQ(test, out->scheme, "raid5");
}

static void rl_md_test_msb_roundtrip(struct kunit *test)
{
	struct rl_msb_state st, out;
	void *b = rl_mdt_block(test);
	const struct rl_msb *msb = b;
	char *error = NULL;

	rl_mdt_msb_state(&st);
	rl_msb_encode(&st, b);
	KUNIT_EXPECT_EQ(test, memcmp(&msb->magic, "RLABMB01", 8), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(msb->csum),
			crc32c(~0U, b + 4, RL_MD_BLOCK - 4) ^ RL_MSB_CSUM_XOR);
	KUNIT_ASSERT_EQ(test, rl_msb_decode(b, &out, &error), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&st, &out, sizeof(st)), 0);

	st.role = RL_ROLE_SPARE;
	rl_msb_encode(&st, b);
	KUNIT_ASSERT_EQ(test, rl_msb_decode(b, &out, &error), 0);
	KUNIT_EXPECT_EQ(test, out.role, RL_ROLE_SPARE);
}

static void rl_md_test_zero(struct kunit *test)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_msb_state msb;
	void *b = rl_mdt_block(test);
	unsigned long bits[1] = { 0 };
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(b, st, &error), -ENODATA);
	KUNIT_EXPECT_EQ(test, rl_msb_decode(b, &msb, &error), -ENODATA);
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_decode(b, 2, bits, 10, &error),
			-ENODATA);
}

/* Bit flips: 16 bytes per case, every bit of them, over both structures. */
#define RL_MDT_FLIP_BYTES	16
#define RL_MDT_SB_CASES		DIV_ROUND_UP(sizeof(struct rl_md_sb), RL_MDT_FLIP_BYTES)
#define RL_MDT_MSB_CASES	DIV_ROUND_UP(sizeof(struct rl_msb), RL_MDT_FLIP_BYTES)

static const void *rl_md_flip_gen(const void *prev, char *desc)
{
	static const unsigned int last = RL_MDT_SB_CASES + RL_MDT_MSB_CASES;
	/* the parameter is a case number + 1 cast to a pointer */
	uintptr_t n = (uintptr_t)prev;

	if (n >= last)
		return NULL;
	if (n < RL_MDT_SB_CASES)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "sb bytes %zu..",
			 (size_t)n * RL_MDT_FLIP_BYTES);
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "msb bytes %zu..",
			 (size_t)(n - RL_MDT_SB_CASES) * RL_MDT_FLIP_BYTES);
	return (const void *)(n + 1);
}

static void rl_md_test_flip(struct kunit *test)
{
	uintptr_t n = (uintptr_t)test->param_value - 1;
	bool is_sb = n < RL_MDT_SB_CASES;
	size_t size = is_sb ? sizeof(struct rl_md_sb) : sizeof(struct rl_msb);
	size_t first = (is_sb ? n : n - RL_MDT_SB_CASES) * RL_MDT_FLIP_BYTES;
	size_t last = min(first + RL_MDT_FLIP_BYTES, size), i;
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_md_state *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	struct rl_msb_state mst, mout;
	u8 *good = rl_mdt_block(test), *b = rl_mdt_block(test);
	unsigned int bit;
	char *error;
	int r;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_mdt_state(st);
	rl_mdt_msb_state(&mst);
	if (is_sb)
		rl_md_sb_encode(st, good);
	else
		rl_msb_encode(&mst, good);

	for (i = first; i < last; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(b, good, RL_MD_BLOCK);
			b[i] ^= 1 << bit;
			error = NULL;
			if (is_sb) {
				r = rl_md_sb_decode(b, out, &error);
				/* never success with other content */
				if (!r)
					KUNIT_EXPECT_EQ(test, memcmp(st, out, sizeof(*st)), 0);
			} else {
				r = rl_msb_decode(b, &mout, &error);
				if (!r)
					KUNIT_EXPECT_EQ(test, memcmp(&mst, &mout, sizeof(mst)), 0);
			}
			KUNIT_EXPECT_EQ_MSG(test, r, -EINVAL, "byte %zu bit %u", i, bit);
			KUNIT_EXPECT_NOT_NULL(test, error);
		}
	}
}

/* Zeroed tails (a torn or truncated write) never validate. */
static void rl_md_test_tails(struct kunit *test)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_md_state *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	struct rl_msb_state mst, mout;
	u8 *sbb = rl_mdt_block(test), *msbb = rl_mdt_block(test);
	u8 *b = rl_mdt_block(test);
	char *error;
	size_t at;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_mdt_state(st);
	rl_mdt_msb_state(&mst);
	rl_md_sb_encode(st, sbb);
	rl_msb_encode(&mst, msbb);
	for (at = 0; at < RL_MD_BLOCK; at += 64) {
		memcpy(b, sbb, RL_MD_BLOCK);
		memset(b + at, 0, RL_MD_BLOCK - at);
		if (!memcmp(b, sbb, RL_MD_BLOCK))
			continue;	/* the tail was zero already */
		KUNIT_EXPECT_NE_MSG(test, rl_md_sb_decode(b, out, &error), 0,
				    "sb zeroed from %zu", at);
		memcpy(b, msbb, RL_MD_BLOCK);
		memset(b + at, 0, RL_MD_BLOCK - at);
		if (!memcmp(b, msbb, RL_MD_BLOCK))
			continue;
		KUNIT_EXPECT_NE_MSG(test, rl_msb_decode(b, &mout, &error), 0,
				    "msb zeroed from %zu", at);
	}
	/* a write torn inside the member table */
	memcpy(b, sbb, RL_MD_BLOCK);
	memset(b + offsetof(struct rl_md_sb, members[2]), 0,
	       RL_MD_BLOCK - offsetof(struct rl_md_sb, members[2]));
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(b, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata superblock: bad checksum");
}

struct rl_mdt_bad {
	const char *name;
	void (*corrupt)(struct rl_md_state *st, struct rl_md_sb *sb);
	const char *error;
};

static void rl_mdt_magic(struct rl_md_state *st, struct rl_md_sb *sb)
{
	sb->magic = cpu_to_le64(RL_MSB_MAGIC);
}

static void rl_mdt_version(struct rl_md_state *st, struct rl_md_sb *sb)
{
	sb->version = cpu_to_le32(RL_MD_VERSION + 1);
}

static void rl_mdt_incompat(struct rl_md_state *st, struct rl_md_sb *sb)
{
	sb->incompat = cpu_to_le32(BIT(5));
}

static void rl_mdt_ro_compat(struct rl_md_state *st, struct rl_md_sb *sb)
{
	sb->ro_compat = cpu_to_le32(BIT(1));
}

static void rl_mdt_members0(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->nr_members = 0;
}

static void rl_mdt_members33(struct rl_md_state *st, struct rl_md_sb *sb)
{
	sb->nr_members = cpu_to_le32(RL_MD_MAX_MEMBERS + 1);
}

static void rl_mdt_chunk(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->chunk_sectors = 24;
}

static void rl_mdt_chunk0(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->chunk_sectors = 0;
}

static void rl_mdt_areas(struct rl_md_state *st, struct rl_md_sb *sb)
{
	sb->nr_areas = cpu_to_le32(RL_MD_MAX_AREAS + 1);
}

static void rl_mdt_area_overlap(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->areas[0].start = 2;
}

static void rl_mdt_regions(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->nr_regions++;
}

static void rl_mdt_shift_low(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->region_shift = 2;
	st->nr_regions = rl_md_nr_regions(st->member_sectors, 2);
}

static void rl_mdt_shift_high(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->region_shift = RL_MD_MAX_REGION_SHIFT + 1;
	st->nr_regions = 1;
}

static void rl_mdt_bitmap(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->bitmap_blocks++;
}

static void rl_mdt_state0(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->members[4].state = 0;
}

static void rl_mdt_state4(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->members[0].state = RL_MS_REBUILDING + 1;
}

static void rl_mdt_scheme(struct rl_md_state *st, struct rl_md_sb *sb)
{
	memset(sb->scheme, 'x', sizeof(sb->scheme));
}

static void rl_mdt_garbage(struct rl_md_state *st, struct rl_md_sb *sb)
{
	((u8 *)sb)[RL_MD_BLOCK - 1] = 1;
}

static void rl_mdt_resync(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->resync_cursor = st->member_sectors + 1;
}

static void rl_mdt_rebuild(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->members[3].cursor = st->member_sectors + 1;
}

/* regions of 64 sectors, chunks of 128: one bitmap block still */
static void rl_mdt_region_chunk(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->region_shift = 6;
	st->nr_regions = rl_md_nr_regions(st->member_sectors, 6);
	st->bitmap_blocks = rl_md_bitmap_blocks(st->nr_regions);
}

/* no data: no region, no bitmap block, and everything else consistent */
static void rl_mdt_no_sectors(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->member_sectors = 0;
	st->nr_regions = 0;
	st->bitmap_blocks = 0;
	st->resync_cursor = 0;
	st->members[3].cursor = 0;
}

/* one bitmap block at the last block number: its end wraps to 0 */
static void rl_mdt_bitmap_wrap(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->bitmap_start = U64_MAX;
}

static void rl_mdt_area_slots(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->areas[1].start = 1;
	st->areas[1].blocks = 1;
}

/* area 1 starts on area 0's last block */
static void rl_mdt_areas_overlap(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->areas[1].start = st->areas[0].start + st->areas[0].blocks - 1;
}

/* area 1's end wraps to block 1 */
static void rl_mdt_area_wrap(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->areas[1].start = U64_MAX - 1;
	st->areas[1].blocks = 3;
}

static void rl_mdt_area_empty(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->areas[1].blocks = 0;
}

static void rl_mdt_area_dup(struct rl_md_state *st, struct rl_md_sb *sb)
{
	st->areas[1].id = st->areas[0].id;
}

static const struct rl_mdt_bad rl_mdt_bad_cases[] = {
	{ "magic", rl_mdt_magic, "Metadata superblock: bad magic" },
	{ "version", rl_mdt_version, "Metadata superblock: unsupported version" },
	{ "incompat", rl_mdt_incompat,
	  "Metadata superblock: unknown incompatible feature" },
	{ "ro_compat", rl_mdt_ro_compat,
	  "Metadata superblock: unknown read-only feature" },
	{ "0 members", rl_mdt_members0,
	  "Metadata superblock: invalid number of members" },
	{ "33 members", rl_mdt_members33,
	  "Metadata superblock: invalid number of members" },
	{ "chunk 24", rl_mdt_chunk,
	  "Metadata superblock: chunk size is not a power of two" },
	{ "chunk 0", rl_mdt_chunk0,
	  "Metadata superblock: chunk size is not a power of two" },
	{ "9 areas", rl_mdt_areas, "Metadata superblock: too many record areas" },
	{ "area over bitmap", rl_mdt_area_overlap,
	  "Metadata superblock: record area over the bitmap" },
	{ "area over slot 1", rl_mdt_area_slots,
	  "Metadata superblock: record area over the superblock slots" },
	{ "areas overlap", rl_mdt_areas_overlap,
	  "Metadata superblock: record areas overlap" },
	{ "area end wraps", rl_mdt_area_wrap,
	  "Metadata superblock: record area past the last block number" },
	{ "empty area", rl_mdt_area_empty, "Metadata superblock: empty record area" },
	{ "duplicate area id", rl_mdt_area_dup,
	  "Metadata superblock: duplicate record area" },
	{ "bitmap end wraps", rl_mdt_bitmap_wrap,
	  "Metadata superblock: bitmap past the last block number" },
	{ "region below chunk", rl_mdt_region_chunk,
	  "Metadata superblock: region smaller than a chunk" },
	{ "no member sectors", rl_mdt_no_sectors,
	  "Metadata superblock: no member sectors" },
	{ "nr_regions", rl_mdt_regions,
	  "Metadata superblock: region count does not match" },
	{ "shift 2", rl_mdt_shift_low,
	  "Metadata superblock: region shift out of range" },
	{ "shift 41", rl_mdt_shift_high,
	  "Metadata superblock: region shift out of range" },
	{ "bitmap blocks", rl_mdt_bitmap,
	  "Metadata superblock: bad bitmap placement" },
	{ "state 0", rl_mdt_state0,
	  "Metadata superblock: member state out of range" },
	{ "state 4", rl_mdt_state4,
	  "Metadata superblock: member state out of range" },
	{ "scheme", rl_mdt_scheme, "Metadata superblock: bad scheme name" },
	{ "garbage", rl_mdt_garbage,
	  "Metadata superblock: garbage after the structure" },
	{ "resync cursor", rl_mdt_resync,
	  "Metadata superblock: resync cursor past the end" },
	{ "rebuild cursor", rl_mdt_rebuild,
	  "Metadata superblock: rebuild cursor past the end" },
};

static void rl_mdt_bad_desc(const struct rl_mdt_bad *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_mdt_bad, rl_mdt_bad_cases, rl_mdt_bad_desc);

/* A corrupted but correctly checksummed superblock names what is wrong. */
static void rl_md_test_sb_bad(struct kunit *test)
{
	const struct rl_mdt_bad *c = test->param_value;
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_md_state *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	void *b = rl_mdt_block(test);
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_mdt_state(st);
	c->corrupt(st, b);		/* state fields */
	rl_md_sb_encode(st, b);
	c->corrupt(st, b);		/* raw fields */
	rl_mdt_resum(b, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(b, out, &error), -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, error);
	KUNIT_EXPECT_STREQ(test, error, c->error);
}

/* A block of one kind never validates as another. */
static void rl_md_test_foreign(struct kunit *test)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_msb_state mst;
	void *b = rl_mdt_block(test);
	unsigned long bits[1];
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, st);
	rl_mdt_state(st);
	rl_md_sb_encode(st, b);
	rl_mdt_resum(b, RL_MSB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(b, st, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata superblock: bad checksum");
	rl_mdt_resum(b, RL_MD_BITMAP_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(b, st, &error), -EINVAL);

	rl_mdt_msb_state(&mst);
	rl_msb_encode(&mst, b);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(b, st, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata superblock: bad magic");
	rl_mdt_resum(b, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_msb_decode(b, &mst, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Member superblock: bad checksum");
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_decode(b, 0, bits, 1, &error), -EBADMSG);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block: bad checksum");
}

static void rl_md_test_msb_bad(struct kunit *test)
{
	struct rl_msb_state st, out;
	struct rl_msb *msb;
	void *b = rl_mdt_block(test);
	char *error = NULL;

	msb = b;
	rl_mdt_msb_state(&st);
	st.role = 4;		/* 4 members: roles 0 .. 3 */
	rl_msb_encode(&st, b);
	KUNIT_EXPECT_EQ(test, rl_msb_decode(b, &out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Member superblock: role out of range");

	rl_mdt_msb_state(&st);
	st.nr_members = 0;
	rl_msb_encode(&st, b);
	KUNIT_EXPECT_EQ(test, rl_msb_decode(b, &out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Member superblock: invalid number of members");

	rl_mdt_msb_state(&st);
	st.chunk_sectors = 100;
	rl_msb_encode(&st, b);
	KUNIT_EXPECT_EQ(test, rl_msb_decode(b, &out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "Member superblock: chunk size is not a power of two");

	rl_mdt_msb_state(&st);
	rl_msb_encode(&st, b);
	msb->version = cpu_to_le32(2);
	rl_mdt_resum(b, RL_MSB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_msb_decode(b, &out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Member superblock: unsupported version");

	msb->magic = cpu_to_le64(RL_MD_MAGIC);
	rl_mdt_resum(b, RL_MSB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_msb_decode(b, &out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Member superblock: bad magic");
}

struct rl_mdt_shift {
	u64 member_sectors;
	u32 min_sectors;
	u32 shift;
};

static const struct rl_mdt_shift rl_mdt_shift_cases[] = {
	{ 1000, 8, 3 },			/* small: a page */
	{ 1000, 0, 3 },			/* no minimum: still a page */
	{ 1 << 20, 128, 7 },		/* the chunk bounds it below */
	{ 1 << 20, 8, 4 },		/* 65536 regions of 16 sectors */
	{ (1 << 20) + 1, 8, 5 },	/* one sector more: 32768 + 1 */
	{ 1ULL << 30, 8, 14 },		/* 512 GiB members */
	{ 1ULL << 30, 1 << 20, 20 },
	{ 3000, 100, 7 },		/* minimum rounded up to a power of two */
	{ U64_MAX >> 2, 8, RL_MD_MAX_REGION_SHIFT },
};

static void rl_mdt_shift_desc(const struct rl_mdt_shift *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%llu sectors, min %u",
		 c->member_sectors, c->min_sectors);
}

KUNIT_ARRAY_PARAM(rl_mdt_shift, rl_mdt_shift_cases, rl_mdt_shift_desc);

static void rl_md_test_default_shift(struct kunit *test)
{
	const struct rl_mdt_shift *c = test->param_value;
	u32 shift = rl_md_default_region_shift(c->member_sectors, c->min_sectors);

	KUNIT_EXPECT_EQ(test, shift, c->shift);
	if (shift < RL_MD_MAX_REGION_SHIFT)
		KUNIT_EXPECT_LE(test, rl_md_nr_regions(c->member_sectors, shift),
				RL_MD_DEFAULT_REGIONS);
}

static void rl_md_test_regions(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rl_md_nr_regions(0, 3), 0);
	KUNIT_EXPECT_EQ(test, rl_md_nr_regions(8, 3), 1);
	KUNIT_EXPECT_EQ(test, rl_md_nr_regions(9, 3), 2);
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_blocks(1), 1);
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_blocks(RL_MD_BITS_PER_BLOCK), 1);
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_blocks(RL_MD_BITS_PER_BLOCK + 1), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct rl_md_bitmap_disk, bits), 24);
}

static void rl_md_test_bitmap(struct kunit *test)
{
	unsigned int nbits = 1000, i;
	unsigned long *in = kunit_kcalloc(test, BITS_TO_LONGS(RL_MD_BITS_PER_BLOCK),
					  sizeof(long), GFP_KERNEL);
	unsigned long *out = kunit_kcalloc(test, BITS_TO_LONGS(RL_MD_BITS_PER_BLOCK),
					   sizeof(long), GFP_KERNEL);
	u8 *b = rl_mdt_block(test);
	const struct rl_md_bitmap_disk *bd = (void *)b;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < nbits; i += 7)
		__set_bit(i, in);
	__set_bit(nbits - 1, in);
	rl_md_bitmap_encode(5, 42, in, nbits, b);
	/* region k is bit k % 8 of byte k / 8 */
	KUNIT_EXPECT_EQ(test, bd->bits[0], 0x81);	/* regions 0, 7 */
	KUNIT_EXPECT_EQ(test, bd->bits[1], 0x40);	/* region 14 */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(bd->seq), 42);
	KUNIT_ASSERT_EQ(test, rl_md_bitmap_decode(b, 5, out, nbits, &error), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(in, out, nbits));

	KUNIT_EXPECT_EQ(test, rl_md_bitmap_decode(b, 6, out, nbits, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block: misplaced");
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_decode(b, 5, out, nbits - 1, &error),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block: bit past the last region");
	b[100] ^= 4;
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_decode(b, 5, out, nbits, &error), -EBADMSG);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block: bad checksum");

	/* a full block: the last region is the last bit */
	bitmap_zero(in, RL_MD_BITS_PER_BLOCK);
	bitmap_zero(out, RL_MD_BITS_PER_BLOCK);
	__set_bit(RL_MD_BITS_PER_BLOCK - 1, in);
	rl_md_bitmap_encode(2, 1, in, RL_MD_BITS_PER_BLOCK, b);
	KUNIT_EXPECT_EQ(test, b[RL_MD_BLOCK - 1], 0x80);
	KUNIT_ASSERT_EQ(test, rl_md_bitmap_decode(b, 2, out, RL_MD_BITS_PER_BLOCK,
						  &error), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(in, out, RL_MD_BITS_PER_BLOCK));
	/* encode ignores bits past nbits */
	rl_md_bitmap_encode(2, 1, in, 10, b);
	KUNIT_EXPECT_EQ(test, b[RL_MD_BLOCK - 1], 0);
}

/* The device's size bounds the bitmap and every record area, listed in any order. */
static void rl_md_test_sb_device(struct kunit *test)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_md_state *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	void *b = rl_mdt_block(test);
	struct rl_md_area a0;
	char *error = NULL;
	u64 end;

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_mdt_state(st);
	end = st->areas[1].start + st->areas[1].blocks;
	KUNIT_EXPECT_EQ(test, rl_md_used_blocks(st), end);
	KUNIT_EXPECT_EQ(test, rl_md_sb_check(st, end, &error), 0);
	KUNIT_EXPECT_EQ(test, rl_md_sb_check(st, RL_MD_ANY_SIZE, &error), 0);
	KUNIT_ASSERT_EQ(test, rl_md_sb_check(st, end - 1, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata device is smaller than its contents");

	/* the areas the other way round: the first one listed ends last */
	a0 = st->areas[0];
	st->areas[0].start = st->bitmap_start + st->bitmap_blocks + st->areas[1].blocks;
	st->areas[1].start = st->bitmap_start + st->bitmap_blocks;
	KUNIT_EXPECT_EQ(test, st->areas[0].start + a0.blocks, end);
	KUNIT_EXPECT_EQ(test, rl_md_used_blocks(st), end);
	KUNIT_EXPECT_EQ(test, rl_md_sb_check(st, end, &error), 0);
	KUNIT_ASSERT_EQ(test, rl_md_sb_check(st, end - 1, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata device is smaller than its contents");
	/* and such a superblock round-trips */
	rl_md_sb_encode(st, b);
	KUNIT_ASSERT_EQ_MSG(test, rl_md_sb_decode(b, out, &error), 0, "%s", error);
	KUNIT_EXPECT_EQ(test, memcmp(st, out, sizeof(*st)), 0);

	/* no area: the bitmap's end */
	st->nr_areas = 0;
	end = st->bitmap_start + st->bitmap_blocks;
	KUNIT_EXPECT_EQ(test, rl_md_used_blocks(st), end);
	KUNIT_EXPECT_EQ(test, rl_md_sb_check(st, end, &error), 0);
	KUNIT_ASSERT_EQ(test, rl_md_sb_check(st, end - 1, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata device is smaller than its contents");
	/* an area before the bitmap, clear of the slots */
	st->bitmap_start = 10;
	st->nr_areas = 1;
	st->areas[0].start = 2;
	st->areas[0].blocks = 8;
	KUNIT_EXPECT_EQ(test, rl_md_used_blocks(st), 10 + st->bitmap_blocks);
	KUNIT_EXPECT_EQ(test, rl_md_sb_check(st, 10 + st->bitmap_blocks, &error), 0);
	st->areas[0].blocks = 9;
	KUNIT_ASSERT_EQ(test, rl_md_sb_check(st, RL_MD_ANY_SIZE, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata superblock: record area over the bitmap");
}

/*
 * A bitmap block at load: valid, torn (a mix of two versions' sectors, or
 * blank: every region dirty), or not this block (refused, nothing set).
 */
static void rl_md_test_bitmap_load(struct kunit *test)
{
	const unsigned int nbits = RL_MD_BITS_PER_BLOCK, words = BITS_TO_LONGS(nbits);
	unsigned long *in = kunit_kcalloc(test, words, sizeof(long), GFP_KERNEL);
	unsigned long *out = kunit_kcalloc(test, words, sizeof(long), GFP_KERNEL);
	u8 *oldb = rl_mdt_block(test), *newb = rl_mdt_block(test);
	u8 *b = rl_mdt_block(test);
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	/* regions 3 and 20000 (in the block's second half), then 900 and 30000 too */
	__set_bit(3, in);
	__set_bit(20000, in);
	rl_md_bitmap_encode(5, 1, in, nbits, oldb);
	__set_bit(900, in);
	__set_bit(30000, in);
	rl_md_bitmap_encode(5, 2, in, nbits, newb);

	KUNIT_EXPECT_EQ(test, rl_md_bitmap_load(newb, 5, out, nbits, &error), 0);
	KUNIT_EXPECT_TRUE(test, bitmap_equal(in, out, nbits));

	/* the first four sectors written, the last four not */
	memcpy(b, newb, 2048);
	memcpy(b + 2048, oldb + 2048, 2048);
	bitmap_zero(out, nbits);
	KUNIT_ASSERT_EQ(test, rl_md_bitmap_load(b, 5, out, nbits, &error),
			RL_MD_BITMAP_TORN);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block: bad checksum");
	KUNIT_EXPECT_TRUE(test, bitmap_full(out, nbits));
	/* the other way round */
	memcpy(b, oldb, 2048);
	memcpy(b + 2048, newb + 2048, 2048);
	bitmap_zero(out, nbits);
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_load(b, 5, out, nbits, &error),
			RL_MD_BITMAP_TORN);
	KUNIT_EXPECT_TRUE(test, bitmap_full(out, nbits));

	/* blank, in the last block of 1000 regions: those, and no more */
	memset(b, 0, RL_MD_BLOCK);
	bitmap_zero(out, nbits);
	KUNIT_ASSERT_EQ(test, rl_md_bitmap_load(b, 5, out, 1000, &error),
			RL_MD_BITMAP_TORN);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block is blank");
	KUNIT_EXPECT_EQ(test, bitmap_weight(out, nbits), 1000);
	KUNIT_EXPECT_EQ(test, find_first_zero_bit(out, nbits), 1000);
	/* a torn block of no regions is no block of the bitmap */
	KUNIT_EXPECT_EQ(test, rl_md_bitmap_load(b, 5, out, 0, &error), -EINVAL);

	/* valid, but another block's: refused, nothing set */
	bitmap_zero(out, nbits);
	KUNIT_ASSERT_EQ(test, rl_md_bitmap_load(newb, 6, out, nbits, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block: misplaced");
	KUNIT_EXPECT_TRUE(test, bitmap_empty(out, nbits));
	/* valid, with a region past the last one */
	KUNIT_ASSERT_EQ(test, rl_md_bitmap_load(newb, 5, out, 25000, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata bitmap block: bit past the last region");
	KUNIT_EXPECT_TRUE(test, bitmap_empty(out, nbits));
}

/*
 * A member superblock at assembly: the disk the metadata knows in its
 * role, events equal or one ahead (a commit cut short); and what may take
 * a failed role: a spare of this array, or the spare whose superblock got
 * the role in a commit cut short (events one ahead), never the failed
 * disk (events behind) nor a disk of another array.
 */
static void rl_md_test_member_roles(struct kunit *test)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_msb_state msb;

	KUNIT_ASSERT_NOT_NULL(test, st);
	rl_mdt_state(st);
	memset(&msb, 0, sizeof(msb));
	memcpy(msb.uuid, st->uuid, 16);
	memcpy(msb.dev_uuid, st->members[1].dev_uuid, 16);
	msb.role = 1;
	msb.events = st->events;
	KUNIT_EXPECT_NULL(test, rl_md_member_mismatch(st, 1, &msb));
	msb.events = st->events + 1;
	KUNIT_EXPECT_NULL(test, rl_md_member_mismatch(st, 1, &msb));
	msb.events = st->events + 2;
	KUNIT_EXPECT_STREQ(test, rl_md_member_mismatch(st, 1, &msb),
			   "Member superblock is newer than the metadata");
	msb.events = st->events - 1;
	KUNIT_EXPECT_STREQ(test, rl_md_member_mismatch(st, 1, &msb),
			   "Member superblock is stale");
	msb.events = st->events;
	KUNIT_EXPECT_STREQ(test, rl_md_member_mismatch(st, 0, &msb),
			   "Member has another role in the array");
	msb.dev_uuid[0] ^= 1;
	KUNIT_EXPECT_STREQ(test, rl_md_member_mismatch(st, 1, &msb),
			   "Member is not the disk the metadata knows in its role");
	msb.uuid[0] ^= 1;
	KUNIT_EXPECT_STREQ(test, rl_md_member_mismatch(st, 1, &msb),
			   "Member belongs to another array");

	/* failed role 2 */
	memcpy(msb.uuid, st->uuid, 16);
	msb.role = RL_ROLE_SPARE;
	msb.events = 1;
	KUNIT_EXPECT_TRUE(test, rl_md_taking_role(st, 2, &msb));
	msb.role = 2;
	msb.events = st->events + 1;
	KUNIT_EXPECT_TRUE(test, rl_md_taking_role(st, 2, &msb));
	msb.events = st->events;
	KUNIT_EXPECT_FALSE(test, rl_md_taking_role(st, 2, &msb));
	msb.events = st->events - 1;
	KUNIT_EXPECT_FALSE(test, rl_md_taking_role(st, 2, &msb));
	msb.role = 1;
	msb.events = st->events + 1;
	KUNIT_EXPECT_FALSE(test, rl_md_taking_role(st, 2, &msb));
	msb.role = RL_ROLE_SPARE;
	msb.uuid[15] ^= 1;
	KUNIT_EXPECT_FALSE(test, rl_md_taking_role(st, 2, &msb));
}

/*
 * The test's state at @events, and in *@msb the superblock of role @role's
 * disk: this array's, that role's disk, as new as the state.
 */
static struct rl_md_state *rl_mdt_role_disk(struct kunit *test, u64 events,
					    unsigned int role,
					    struct rl_msb_state *msb)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	rl_mdt_state(st);
	st->events = events;
	memset(msb, 0, sizeof(*msb));
	memcpy(msb->uuid, st->uuid, 16);
	memcpy(msb->dev_uuid, st->members[role].dev_uuid, 16);
	msb->role = role;
	msb->events = events;
	return st;
}

/*
 * A swap of an in-sync member with a spare (rl_sync_swap_spare()): cut
 * short, the old disk (its superblock "spare" one event ahead) is still
 * the member; once done, it is a spare, and so is any disk that was a
 * member and whose role the metadata gives to another.
 */
static void rl_md_test_swap_roles(struct kunit *test)
{
	struct rl_msb_state msb;
	struct rl_md_state *st = rl_mdt_role_disk(test, 7, 1, &msb);

	msb.role = RL_ROLE_SPARE;
	msb.events = st->events + 1;
	KUNIT_EXPECT_NULL(test, rl_md_member_mismatch(st, 1, &msb));
	KUNIT_EXPECT_NOT_NULL(test, rl_md_member_mismatch(st, 0, &msb));
	msb.events = st->events;
	KUNIT_EXPECT_NOT_NULL(test, rl_md_member_mismatch(st, 1, &msb));

	/* spares: one, a member swapped out, but not a member in its role */
	KUNIT_EXPECT_TRUE(test, rl_md_spare_ok(st, &msb));
	msb.role = 1;
	KUNIT_EXPECT_FALSE(test, rl_md_spare_ok(st, &msb));
	msb.dev_uuid[0] ^= 0x5a;
	KUNIT_EXPECT_TRUE(test, rl_md_spare_ok(st, &msb));
	msb.role = st->nr_members;
	KUNIT_EXPECT_FALSE(test, rl_md_spare_ok(st, &msb));
	msb.role = RL_ROLE_SPARE;
	msb.uuid[3] ^= 1;
	KUNIT_EXPECT_FALSE(test, rl_md_spare_ok(st, &msb));
}

/*
 * Re-add: the failed role's own disk, behind the metadata's events, is
 * taken back; a disk of another array, role or identity, or one ahead of
 * the metadata, is not.
 */
static void rl_md_test_readd(struct kunit *test)
{
	struct rl_msb_state msb;
	struct rl_md_state *st = rl_mdt_role_disk(test, 9, 2, &msb);

	msb.events = 5;
	KUNIT_EXPECT_NULL(test, rl_md_readd_mismatch(st, 2, &msb));
	msb.events = st->events;
	KUNIT_EXPECT_NULL(test, rl_md_readd_mismatch(st, 2, &msb));
	msb.events = st->events + 1;
	KUNIT_EXPECT_STREQ(test, rl_md_readd_mismatch(st, 2, &msb),
			   "the disk's superblock is newer than the metadata");
	msb.events = 5;
	KUNIT_EXPECT_STREQ(test, rl_md_readd_mismatch(st, 1, &msb),
			   "the disk had another role");
	msb.role = RL_ROLE_SPARE;
	KUNIT_EXPECT_STREQ(test, rl_md_readd_mismatch(st, 2, &msb),
			   "the disk had another role");
	msb.role = 2;
	msb.dev_uuid[7] ^= 1;
	KUNIT_EXPECT_STREQ(test, rl_md_readd_mismatch(st, 2, &msb),
			   "the disk is not the one the role lost");
	msb.dev_uuid[7] ^= 1;
	msb.uuid[0] ^= 1;
	KUNIT_EXPECT_STREQ(test, rl_md_readd_mismatch(st, 2, &msb),
			   "the disk belongs to another array");
}

/*
 * The homehost (1.21): recorded with its ro_compat bit, read back; a
 * field without its bit, a bit without a valid name, a name with other
 * characters, garbage after its NUL, a feature bit not known: refused.
 */
static void rl_md_test_homehost(struct kunit *test)
{
	struct rl_md_state *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	struct rl_md_state *out = kunit_kzalloc(test, sizeof(*out), GFP_KERNEL);
	struct rl_md_sb *sb = rl_mdt_block(test);
	char *error = NULL, name[RL_MD_HOMEHOST_LEN + 1];

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, out);
	rl_mdt_state(st);
	rl_md_sb_encode(st, sb);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sb->ro_compat), 0U);
	strscpy(st->homehost, "node-a.lab_1", sizeof(st->homehost));
	rl_md_sb_encode(st, sb);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sb->ro_compat), RL_MD_RO_COMPAT_HOMEHOST);
	KUNIT_ASSERT_EQ(test, rl_md_sb_decode(sb, out, &error), 0);
	KUNIT_EXPECT_STREQ(test, out->homehost, "node-a.lab_1");
	KUNIT_EXPECT_EQ(test, memcmp(st, out, sizeof(*st)), 0);

	sb->homehost[4] = ' ';
	rl_mdt_resum(sb, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(sb, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata superblock: bad homehost");
	rl_md_sb_encode(st, sb);
	sb->homehost[RL_MD_HOMEHOST_LEN - 1] = 'x';	/* after the NUL */
	rl_mdt_resum(sb, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(sb, out, &error), -EINVAL);
	memset(sb->homehost, 'h', RL_MD_HOMEHOST_LEN);	/* no NUL */
	rl_mdt_resum(sb, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(sb, out, &error), -EINVAL);
	memset(sb->homehost, 0, RL_MD_HOMEHOST_LEN);	/* the bit, no name */
	rl_mdt_resum(sb, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(sb, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata superblock: bad homehost");
	rl_md_sb_encode(st, sb);
	sb->ro_compat = 0;				/* a name, no bit */
	rl_mdt_resum(sb, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(sb, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "Metadata superblock: a homehost without its feature bit");
	sb->ro_compat = cpu_to_le32(RL_MD_RO_COMPAT_HOMEHOST << 1);
	rl_mdt_resum(sb, RL_MD_SB_CSUM_XOR);
	KUNIT_EXPECT_EQ(test, rl_md_sb_decode(sb, out, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Metadata superblock: unknown read-only feature");

	KUNIT_EXPECT_TRUE(test, rl_md_homehost_ok("a"));
	KUNIT_EXPECT_TRUE(test, rl_md_homehost_ok("Z-9_x.y"));
	KUNIT_EXPECT_FALSE(test, rl_md_homehost_ok(""));
	KUNIT_EXPECT_FALSE(test, rl_md_homehost_ok("a b"));
	KUNIT_EXPECT_FALSE(test, rl_md_homehost_ok("a/b"));
	KUNIT_EXPECT_FALSE(test, rl_md_homehost_ok("a:b"));
	memset(name, 'n', sizeof(name));
	name[RL_MD_HOMEHOST_LEN - 1] = '\0';		/* 63: the longest */
	KUNIT_EXPECT_TRUE(test, rl_md_homehost_ok(name));
	name[RL_MD_HOMEHOST_LEN - 1] = 'n';
	name[RL_MD_HOMEHOST_LEN] = '\0';		/* 64 */
	KUNIT_EXPECT_FALSE(test, rl_md_homehost_ok(name));
}

static struct kunit_case rl_md_test_cases[] = {
	KUNIT_CASE(rl_md_test_sb_roundtrip),
	KUNIT_CASE(rl_md_test_msb_roundtrip),
	KUNIT_CASE(rl_md_test_zero),
	KUNIT_CASE_PARAM(rl_md_test_flip, rl_md_flip_gen),
	KUNIT_CASE(rl_md_test_tails),
	KUNIT_CASE_PARAM(rl_md_test_sb_bad, rl_mdt_bad_gen_params),
	KUNIT_CASE(rl_md_test_foreign),
	KUNIT_CASE(rl_md_test_msb_bad),
	KUNIT_CASE_PARAM(rl_md_test_default_shift, rl_mdt_shift_gen_params),
	KUNIT_CASE(rl_md_test_regions),
	KUNIT_CASE(rl_md_test_bitmap),
	KUNIT_CASE(rl_md_test_sb_device),
	KUNIT_CASE(rl_md_test_bitmap_load),
	KUNIT_CASE(rl_md_test_member_roles),
	KUNIT_CASE(rl_md_test_swap_roles),
	KUNIT_CASE(rl_md_test_readd),
	KUNIT_CASE(rl_md_test_homehost),
	{}
};

static struct kunit_suite rl_md_test_suite = {
	.name = "dm_raidlab_metadata",
	.test_cases = rl_md_test_cases,
};

kunit_test_suite(rl_md_test_suite);
