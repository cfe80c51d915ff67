// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the head-position tracker (suite dm_raidlab_tracker):
 * the geometry line, sector to cylinder/head/angle on an IBM Lightning-like
 * disk, seek times, predicted access times on hand-computed cases, the
 * period and phase from jittered reference reads, the error statistics and
 * demerit, and the slack feedback loop.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "tracker.h"

/* Paper 000's IBM Lightning: 949 x 14 x 48, 13.9 ms, 2.0 + 0.01d + 0.46 sqrt(d) ms */
#define LIGHTNING "period_ns=13900000,cylinders=949,heads=14,spt=48," \
		  "track_skew=4,cyl_skew=8,head_switch_ns=1000000," \
		  "seek_a_ns=2000000,seek_b_ns=10000,seek_c_ns=460000,ref=0"
#define P_NS	13900000ULL
#define SLOT_NS	(P_NS / 48)	/* 289583.33 ns, truncated */

static struct rl_tracker *rl_test_tracker(struct kunit *test)
{
	struct rl_tracker *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct rl_disk_geom g;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ_MSG(test, rl_disk_geom_parse(LIGHTNING, &g, &error), 0,
			    "%s", error);
	rl_tracker_set_geom(t, &g);
	return t;
}

/* Parser: good lines */

struct rl_geom_good {
	const char *line;
	u64 capacity;
	unsigned int nr_zones;
};

static const struct rl_geom_good rl_geom_good_cases[] = {
	{ LIGHTNING, 637728, 1 },
	{
		"zones=0:64/100:56/200:48,period_ns=6000000,cylinders=300,heads=4,track_skew=2,cyl_skew=5,head_switch_ns=800000,seek_a_ns=1000000,seek_b_ns=1000,seek_c_ns=100000,ref=67199",
		67200, 3
	},
	{
		"ref=9,seek_c_ns=0,seek_b_ns=0,seek_a_ns=0,head_switch_ns=0,cyl_skew=0,track_skew=0,spt=1,heads=1,cylinders=10,period_ns=100000",
		10, 1
	},
	{
		"period_ns=1000000000,cylinders=1,heads=255,spt=8192,track_skew=8191,cyl_skew=8191,head_switch_ns=1000000000,seek_a_ns=1000000000,seek_b_ns=1000000000,seek_c_ns=1000000000,ref=0",
		255 * 8192, 1
	},
};

static void rl_geom_good_desc(const struct rl_geom_good *c, char *desc)
{
	strscpy(desc, c->line, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_geom_good, rl_geom_good_cases, rl_geom_good_desc);

static void rl_tracker_geom_parse_good(struct kunit *test)
{
	const struct rl_geom_good *c = test->param_value;
	struct rl_disk_geom *g = kunit_kzalloc(test, 2 * sizeof(*g), GFP_KERNEL);
	char *error = NULL, *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	int n;

	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ_MSG(test, rl_disk_geom_parse(c->line, &g[0], &error), 0,
			    "%s", error);
	KUNIT_EXPECT_EQ(test, g[0].capacity, c->capacity);
	KUNIT_EXPECT_EQ(test, g[0].nr_zones, c->nr_zones);

	/* the formatter writes what the parser reads back */
	n = rl_disk_geom_format(&g[0], buf, 512);
	KUNIT_ASSERT_LT(test, n, 512);
	KUNIT_ASSERT_EQ_MSG(test, rl_disk_geom_parse(buf, &g[1], &error), 0,
			    "%s: %s", buf, error);
	KUNIT_EXPECT_EQ(test, memcmp(&g[0], &g[1], sizeof(*g)), 0);
}

static void rl_tracker_geom_parse_fields(struct kunit *test)
{
	const struct rl_geom_good *c = &rl_geom_good_cases[1];
	struct rl_disk_geom g;
	char *error = NULL, buf[16];

	KUNIT_ASSERT_EQ(test, rl_disk_geom_parse(c->line, &g, &error), 0);
	KUNIT_EXPECT_EQ(test, g.period_ns, 6000000);
	KUNIT_EXPECT_EQ(test, g.cylinders, 300);
	KUNIT_EXPECT_EQ(test, g.heads, 4);
	KUNIT_EXPECT_EQ(test, g.zone[1].first_cyl, 100);
	KUNIT_EXPECT_EQ(test, g.zone[1].spt, 56);
	KUNIT_EXPECT_EQ(test, g.zone[1].first_lba, 25600);
	KUNIT_EXPECT_EQ(test, g.zone[2].first_lba, 48000);
	KUNIT_EXPECT_EQ(test, g.track_skew, 2);
	KUNIT_EXPECT_EQ(test, g.cyl_skew, 5);
	KUNIT_EXPECT_EQ(test, g.head_switch_ns, 800000);
	KUNIT_EXPECT_EQ(test, g.seek_a_ns, 1000000);
	KUNIT_EXPECT_EQ(test, g.seek_b_ns, 1000);
	KUNIT_EXPECT_EQ(test, g.seek_c_ns, 100000);
	KUNIT_EXPECT_EQ(test, g.ref, 67199);

	/* a short buffer: cut, and the full length returned */
	KUNIT_EXPECT_GT(test, rl_disk_geom_format(&g, buf, sizeof(buf)), 100);
	KUNIT_EXPECT_EQ(test, strlen(buf), sizeof(buf) - 1);
}

/* Parser: bad lines */

struct rl_geom_bad {
	const char *line;
	const char *error;
};

#define G_HEAD "period_ns=13900000,cylinders=949,heads=14,"
#define G_SKEW "track_skew=4,cyl_skew=8,"
#define G_SEEK "seek_a_ns=2000000,seek_b_ns=10000,seek_c_ns=460000"
#define G_TIMES "head_switch_ns=1000000," G_SEEK
#define G_TAIL G_SKEW G_TIMES ",ref=0"
#define G_SEEK0 "head_switch_ns=0,seek_b_ns=0,"
#define G_ZONES17 "zones=0:9/1:9/2:9/3:9/4:9/5:9/6:9/7:9/8:9/9:9/10:9/11:9/12:9/13:9/14:9/15:9/16:9,"
#define G_BAD_ZONES "geom: bad zones (first_cyl:spt/first_cyl:spt...)"
#define G_ZONE_ORDER "geom: zones must start at cylinder 0 and increase"
#define G_PERIOD "geom: period_ns out of range (100000 to 1000000000)"
#define G_SPT "geom: sectors per track out of range (1 to 8192)"
#define G_SKEWS "geom: skews must be below the sectors per track"
#define G_TIME "geom: head switch and seek terms must be at most 1000000000 ns"

static const struct rl_geom_bad rl_geom_bad_cases[] = {
	{ "", "geom: empty geometry" },
	{ G_HEAD "spt=48," G_SKEW G_TIMES, "geom: missing ref" },
	{ "cylinders=949,heads=14,spt=48," G_TAIL, "geom: missing period_ns" },
	{ G_HEAD G_TAIL, "geom: missing spt or zones" },
	{ G_HEAD "spt=48,zones=0:48," G_TAIL, "geom: give spt or zones, not both" },
	{ G_HEAD "spt=48,foo=1," G_TAIL, "geom: unknown key" },
	{ G_HEAD "spt=48,heads=14," G_TAIL, "geom: key given twice" },
	{ G_HEAD "spt," G_TAIL, "geom: expected key=value" },
	{ G_HEAD "spt=48," G_TAIL ",", "geom: expected key=value" },
	{ G_HEAD "spt=48,," G_TAIL, "geom: expected key=value" },
	{ G_HEAD "spt=x48," G_TAIL, "geom: bad number" },
	{ G_HEAD "spt=-48," G_TAIL, "geom: bad number" },
	{ G_HEAD "spt=," G_TAIL, "geom: bad number" },
	{ G_HEAD "spt= 48," G_TAIL, "geom: bad number" },
	{ G_HEAD "spt=99999999999999999999999," G_TAIL, "geom: bad number" },
	{ G_HEAD "zones=0-48," G_TAIL, G_BAD_ZONES },
	{ G_HEAD "zones=0:48/," G_TAIL, G_BAD_ZONES },
	{ G_HEAD "zones=," G_TAIL, G_BAD_ZONES },
	{ G_HEAD "zones=5:48," G_TAIL, G_ZONE_ORDER },
	{ G_HEAD "zones=0:48/100:40/100:30," G_TAIL, G_ZONE_ORDER },
	{ G_HEAD "zones=0:48/949:40," G_TAIL, "geom: a zone starts beyond the last cylinder" },
	{ G_HEAD G_ZONES17 G_TAIL, "geom: too many zones (at most 16)" },
	{ "period_ns=99999,cylinders=949,heads=14,spt=48," G_TAIL, G_PERIOD },
	{ "period_ns=1000000001,cylinders=949,heads=14,spt=48," G_TAIL, G_PERIOD },
	{
		"period_ns=13900000,cylinders=0,heads=14,spt=48," G_TAIL,
		"geom: cylinders out of range (1 to 4194304)"
	},
	{
		"period_ns=13900000,cylinders=949,heads=256,spt=48," G_TAIL,
		"geom: heads out of range (1 to 255)"
	},
	{
		"period_ns=13900000,cylinders=949,heads=0,spt=48," G_TAIL,
		"geom: heads out of range (1 to 255)"
	},
	{ G_HEAD "spt=0," G_TAIL, G_SPT },
	{ G_HEAD "spt=8193," G_TAIL, G_SPT },
	{ G_HEAD "spt=4," G_TAIL, G_SKEWS },
	{ G_HEAD "zones=0:48/500:8," G_TAIL, G_SKEWS },
	{ G_HEAD "spt=48," G_SKEW G_SEEK ",head_switch_ns=1000000001,ref=0", G_TIME },
	{ G_HEAD "spt=48," G_SKEW G_SEEK0 "seek_a_ns=1000000001,seek_c_ns=0,ref=0", G_TIME },
	{ G_HEAD "spt=48," G_SKEW G_SEEK0 "seek_a_ns=0,seek_c_ns=1000000001,ref=0", G_TIME },
	{ G_HEAD "spt=48," G_SKEW G_TIMES ",ref=637728", "geom: ref beyond the disk" },
};

static void rl_geom_bad_desc(const struct rl_geom_bad *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s: %s", c->error,
		 c->line + min_t(size_t, strlen(c->line), sizeof(G_HEAD) - 1));
}

KUNIT_ARRAY_PARAM(rl_geom_bad, rl_geom_bad_cases, rl_geom_bad_desc);

static void rl_tracker_geom_parse_bad(struct kunit *test)
{
	const struct rl_geom_bad *c = test->param_value;
	struct rl_disk_geom g;
	char *error = NULL;

	KUNIT_EXPECT_EQ(test, rl_disk_geom_parse(c->line, &g, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error ? error : "(none)", c->error);
}

/* Sector to cylinder, head, sector and angle (slot), hand computed */

struct rl_chs_case {
	u64 lba;
	u32 cyl, head, sector, slot;
};

/*
 * Lightning with track_skew 4, cyl_skew 8: a cylinder shifts sector 0 by
 * 13 * 4 + 8 = 60 = 12 (mod 48) slots, a head by 4.
 */
static const struct rl_chs_case rl_chs_cases[] = {
	{ 0, 0, 0, 0, 0 },
	{ 47, 0, 0, 47, 47 },
	{ 48, 0, 1, 0, 4 },			/* head switch: track skew */
	{ 671, 0, 13, 47, 3 },			/* 13 * 4 + 47 = 99 = 3 */
	{ 672, 1, 0, 0, 12 },			/* cylinder switch */
	{ 100000, 148, 11, 16, 12 },		/* 148 * 12 + 44 + 16 = 1836 = 12 */
	{ 637727, 948, 13, 47, 3 },		/* 36 * 12 + 52 + 47 = 531 = 3 */
	{ 637728, 949, 0, 0, 12 },		/* past the end: imagined cylinder */
};

static void rl_tracker_chs(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rl_chs_cases); i++) {
		const struct rl_chs_case *c = &rl_chs_cases[i];
		struct rl_chs r;

		rl_disk_geom_chs(&t->geom, c->lba, &r);
		KUNIT_EXPECT_EQ_MSG(test, r.cyl, c->cyl, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, r.head, c->head, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, r.sector, c->sector, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, r.slot, c->slot, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, r.spt, 48, "lba %llu", c->lba);
		KUNIT_EXPECT_EQ_MSG(test, r.track_lba, c->lba - c->sector,
				    "lba %llu", c->lba);
	}
}

static void rl_tracker_chs_zones(struct kunit *test)
{
	struct rl_disk_geom g;
	char *error = NULL;
	struct rl_chs r;

	KUNIT_ASSERT_EQ(test, rl_disk_geom_parse(rl_geom_good_cases[1].line, &g,
						 &error), 0);
	/* zone 1 (cylinders 100-199, 56 spt) starts at 25600 */
	rl_disk_geom_chs(&g, 25599, &r);
	KUNIT_EXPECT_EQ(test, r.cyl, 99);
	KUNIT_EXPECT_EQ(test, r.head, 3);
	KUNIT_EXPECT_EQ(test, r.sector, 63);
	KUNIT_EXPECT_EQ(test, r.spt, 64);
	rl_disk_geom_chs(&g, 25600, &r);
	KUNIT_EXPECT_EQ(test, r.cyl, 100);
	KUNIT_EXPECT_EQ(test, r.head, 0);
	KUNIT_EXPECT_EQ(test, r.sector, 0);
	KUNIT_EXPECT_EQ(test, r.spt, 56);
	KUNIT_EXPECT_EQ(test, r.slot, 0);	/* skews count from the zone */
	/* 25600 + 56 * 4 + 56 + 3: cylinder 101, head 1, sector 3 */
	rl_disk_geom_chs(&g, 25600 + 224 + 56 + 3, &r);
	KUNIT_EXPECT_EQ(test, r.cyl, 101);
	KUNIT_EXPECT_EQ(test, r.head, 1);
	KUNIT_EXPECT_EQ(test, r.sector, 3);
	KUNIT_EXPECT_EQ(test, r.slot, (3 * 2 + 5) + 2 + 3);
}

static void rl_tracker_seek(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	const struct rl_disk_geom *g = &t->geom;

	KUNIT_EXPECT_EQ(test, rl_disk_seek_ns(g, 5, 5), 0);
	/* 2.0 + 0.01 + 0.46 ms */
	KUNIT_EXPECT_EQ(test, rl_disk_seek_ns(g, 0, 1), 2470000);
	KUNIT_EXPECT_EQ(test, rl_disk_seek_ns(g, 1, 0), 2470000);
	/* 2.0 + 1.0 + 0.46 * 10 ms */
	KUNIT_EXPECT_EQ(test, rl_disk_seek_ns(g, 300, 200), 7600000);
	/* 2.0 + 0.02 + 0.46 * 1.41421 ms = 2670538; sqrt in 16-bit fixed point */
	KUNIT_EXPECT_LE(test, abs((s64)rl_disk_seek_ns(g, 0, 2) - 2670538), 10);
	/* full stroke: 2.0 + 9.48 + 0.46 * 30.7896 ms = 25643221 */
	KUNIT_EXPECT_LE(test, abs((s64)rl_disk_seek_ns(g, 948, 0) - 25643221), 10);
}

/* Predicted access times on hand-built cases (phase at 0 unless said) */

struct rl_pred_case {
	const char *what;
	u64 phase_ns;
	u32 slack;
	sector_t head;
	u64 start_ns;
	sector_t sector;
	unsigned int sectors;
	u64 expect_ns;		/* +- 3 ns of rounding */
};

static const struct rl_pred_case rl_pred_cases[] = {
	/* arm on LBA 0 (slot 0) at angle 0: wait 10 slots, read 1 */
	{ "same track", 0, 0, 1, 0, 10, 1, 3185417 },
	{ "same track, phase later", 5000000, 0, 1, 5000000, 10, 1, 3185417 },
	{ "start before the phase", 20000000, 0, 1, 20000000 - P_NS, 10, 1, 3185417 },
	{ "length 0 reads 1", 0, 0, 1, 0, 10, 0, 3185417 },
	/* the target passed just now: wait 47 slots, read 1 */
	{ "wrap-around", 0, 0, 1, 3185417, 10, 1, 13899999 },
	/* the head arrives 1 slot early: on time with slack 0 or 1 */
	{ "1 slot early, slack 0", 0, 0, 1, 2606250, 10, 1, 579167 },
	{ "1 slot early, slack 1", 0, 1, 1, 2606250, 10, 1, 579167 },
	/* ... but slack 2 assumes the next rotation */
	{ "1 slot early, slack 2", 0, 2, 1, 2606250, 10, 1, 14479167 },
	/* seek 100 cylinders (7.6 ms) to slot 0: wait to 13.9 ms, read 1 */
	{ "seek 100", 0, 2, 1, 0, 67200, 1, 14189583 },
	/* slots 46-47, head switch 1 ms (3.45 slots), skewed slots 4-5 */
	{ "track switch", 0, 0, 1, 0, 46, 4, 15637500 },
	/* arm on head 1 of cylinder 0: head switch back, then slot 10 */
	{ "head switch", 0, 0, 49, 0, 10, 1, 3185417 },
	/* arm on head 1, target slot 2 at 0.58 ms: the 1 ms switch misses it */
	{ "head switch misses", 0, 0, 49, 0, 2, 1, 14768750 },
};

static void rl_pred_desc(const struct rl_pred_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_pred, rl_pred_cases, rl_pred_desc);

static void rl_tracker_predict_cases(struct kunit *test)
{
	const struct rl_pred_case *c = test->param_value;
	struct rl_tracker *t = rl_test_tracker(test);
	u64 p;

	t->phase_ns = c->phase_ns;
	t->slack = c->slack;
	p = rl_tracker_predict(t, c->head, c->start_ns, c->sector, c->sectors);
	KUNIT_EXPECT_LE_MSG(test, abs((s64)(p - c->expect_ns)), 3,
			    "predicted %llu, expected %llu", p, c->expect_ns);
}

static void rl_tracker_predict_no_geom(struct kunit *test)
{
	struct rl_tracker *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_EXPECT_EQ(test, rl_tracker_predict(t, 0, 0, 10, 1), U64_MAX);
	KUNIT_EXPECT_FALSE(test, rl_tracker_ready(t));
	KUNIT_EXPECT_FALSE(test, rl_tracker_ready(NULL));
}

/* Period and phase from reference reads with jittered overhead */

static u32 rl_test_rand(u32 *state)
{
	*state = *state * 1664525 + 1013904223;
	return *state >> 8;
}

struct rl_period_case {
	const char *what;
	u64 p_true;		/* the disk's; the geometry says 13.9 ms */
	u32 jitter;		/* completion overhead 100 us +- this */
};

static const struct rl_period_case rl_period_cases[] = {
	{ "0.07 % slower, 40 us jitter", 13910000, 40000 },
	{ "0.5 % faster, 40 us jitter", 13830500, 40000 },
	{ "3 % slower, 40 us jitter", 14317000, 40000 },
	{ "exact, no jitter", 13900000, 0 },
	{ "0.07 % slower, 400 us jitter", 13910000, 400000 },
};

static void rl_period_desc(const struct rl_period_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_period, rl_period_cases, rl_period_desc);

static void rl_tracker_period_phase(struct kunit *test)
{
	const struct rl_period_case *c = test->param_value;
	struct rl_tracker *t = rl_test_tracker(test);
	const u64 p_true = c->p_true, t0 = 1000000000, overhead = 100000;
	u64 issue = t0 - 3000000, k, done, diff;
	u32 seed = 12345;
	s64 d;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, rl_tracker_next_ref_ns(t), 0);
	for (i = 0; i < 16; i++) {
		s64 jitter = (s64)(rl_test_rand(&seed) % (2 * c->jitter + 1)) - c->jitter;

		/* ref is LBA 0: its slot ends 1/48 rotation after the index */
		k = div64_u64(issue + 1000000 - t0 + p_true - 1, p_true);
		done = t0 + k * p_true + div_u64(p_true, 48) + overhead + jitter;
		rl_tracker_ref_sample(t, issue, done);
		KUNIT_EXPECT_EQ(test, t->calibrated, i + 1 >= RL_TRK_MIN_REFS);
		issue = max(rl_tracker_next_ref_ns(t), done + 1);
		KUNIT_EXPECT_GT(test, issue, done);
	}
	KUNIT_EXPECT_EQ(test, t->refs, 16);
	KUNIT_EXPECT_EQ(test, t->refs_rejected, 0);
	KUNIT_EXPECT_EQ(test, t->restarts, 0);
	KUNIT_EXPECT_EQ(test, t->last_cal_ns, done);
	/* intervals grew to the two-minute cap */
	KUNIT_EXPECT_EQ(test, rl_tracker_next_ref_ns(t) - done, 120ULL * NSEC_PER_SEC);

	/* the period within 0.1 % (it is within a few ns) */
	d = (s64)(t->period_fp >> RL_TRK_FRAC) - (s64)p_true;
	KUNIT_EXPECT_LT(test, abs(d) * 1000, p_true);
	KUNIT_EXPECT_LT(test, abs(d), 100);

	/* the phase, with the mean overhead in it, within 1 % of a rotation */
	div64_u64_rem(t->phase_ns - (t0 + overhead), p_true, &diff);
	if (diff > p_true / 2)
		diff = p_true - diff;
	kunit_info(test, "period %llu ns (true %llu), phase error %llu ns",
		   t->period_fp >> RL_TRK_FRAC, p_true, diff);
	KUNIT_EXPECT_LT(test, diff * 100, p_true);
}

/* A geometry 10 % off counts the first interval wrong and never calibrates. */
static void rl_tracker_period_too_far(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	const u64 p_true = 15290000, t0 = 1000000000;
	u64 issue = t0 - 3000000, k, done;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		k = div64_u64(issue + 1000000 - t0 + p_true - 1, p_true);
		done = t0 + k * p_true + div_u64(p_true, 48) + 100000;
		rl_tracker_ref_sample(t, issue, done);
		issue = max(rl_tracker_next_ref_ns(t), done + 1);
	}
	kunit_info(test, "period %llu ns (true %llu), refs %llu, restarts %llu",
		   t->period_fp >> RL_TRK_FRAC, p_true, t->refs, t->restarts);
	KUNIT_EXPECT_FALSE(test, t->calibrated);
	KUNIT_EXPECT_LT(test, t->refs, RL_TRK_MIN_REFS);
	KUNIT_EXPECT_GE(test, t->restarts, 1);
}

/*
 * A reference read seen 2/5 of a rotation late (a stalled CPU) must not
 * leave the tracker calibrated on a wrong period: the fit that would take
 * it is refused (too far from the geometry's period), the tracker starts
 * over from the geometry's period, and ends right.
 */
static void rl_tracker_period_late_sample(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	const u64 p_true = P_NS, t0 = 1000000000;
	u64 issue = t0 - 3000000, k, done;
	s64 d;
	unsigned int i;

	for (i = 0; i < 16; i++) {
		k = div64_u64(issue + 1000000 - t0 + p_true - 1, p_true);
		done = t0 + k * p_true + div_u64(p_true, 48) + 100000;
		if (i == 1)
			done += p_true * 2 / 5;	/* the late one */
		rl_tracker_ref_sample(t, issue, done);
		/* the estimate never strays past 4 % of the geometry's */
		d = (s64)(t->period_fp >> RL_TRK_FRAC) - (s64)P_NS;
		KUNIT_EXPECT_LE(test, abs(d) * 25, P_NS);
		issue = max(rl_tracker_next_ref_ns(t), done + 1);
	}
	d = (s64)(t->period_fp >> RL_TRK_FRAC) - (s64)p_true;
	kunit_info(test, "period %llu ns (true %llu), restarts %llu",
		   t->period_fp >> RL_TRK_FRAC, p_true, t->restarts);
	KUNIT_EXPECT_TRUE(test, t->calibrated);
	KUNIT_EXPECT_GE(test, t->restarts + t->refs_rejected, 1);
	KUNIT_EXPECT_LT(test, abs(d) * 1000, p_true);
}

/* A sample in the same rotation as the last one, or before it, is refused. */
static void rl_tracker_ref_reject(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);

	rl_tracker_ref_sample(t, 900, 1000000);
	rl_tracker_ref_sample(t, 1000000, 1000100);	/* same rotation */
	rl_tracker_ref_sample(t, 2000000, 1000);	/* done before issue */
	rl_tracker_ref_sample(t, 1000, 500000);		/* before the first */
	KUNIT_EXPECT_EQ(test, t->refs, 1);
	KUNIT_EXPECT_EQ(test, t->refs_rejected, 3);
	KUNIT_EXPECT_FALSE(test, t->calibrated);
	/* a later one counts its rotations */
	rl_tracker_ref_sample(t, 1000, 1000000 + 3 * P_NS + 5);
	KUNIT_EXPECT_EQ(test, t->refs, 2);
	KUNIT_EXPECT_EQ(test, t->ref[1].rot - t->ref[0].rot, 3);
}

/* Ordinary completions pull the phase towards what they show. */
static void rl_tracker_observe_phase(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	u64 phase0, done;
	unsigned int i;

	t->calibrated = true;
	t->phase_ns = 0;
	/* completions of LBA 9 (slot 9, ends at slot 10) 20 us later than the model */
	for (i = 0; i < 64; i++) {
		done = (i + 10) * P_NS + 10 * P_NS / 48 + 20000;
		rl_tracker_observe(t, 9, 1, done - 5000000, done, U64_MAX);
	}
	KUNIT_EXPECT_GT(test, t->phase_ns, 19000);
	KUNIT_EXPECT_LE(test, t->phase_ns, 20000);
	KUNIT_EXPECT_EQ(test, t->total, 0);	/* no prediction: no statistics */

	/* far off (a quarter of a rotation): ignored */
	phase0 = t->phase_ns;
	done = 100 * P_NS + 10 * P_NS / 48 + P_NS / 4;
	rl_tracker_observe(t, 9, 1, done - 5000000, done, U64_MAX);
	KUNIT_EXPECT_EQ(test, t->phase_ns, phase0);
}

/* Statistics and demerit on synthetic samples */
static void rl_tracker_stats_demerit(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	struct rl_trk_stats s;
	char buf[256];
	unsigned int i, sz = 0;

	for (i = 0; i < 199; i++) {
		u64 meas = i % 2 ? 5010000 : 4990000;

		rl_tracker_observe(t, 1000, 8, 1000000, 1000000 + meas, 5000000);
	}
	/* one miss: a rotation late */
	rl_tracker_observe(t, 1000, 8, 1000000, 1000000 + 5000000 + P_NS, 5000000);
	rl_tracker_stats(t, &s);
	KUNIT_EXPECT_EQ(test, s.n, 200);
	KUNIT_EXPECT_EQ(test, t->misses, 1);
	KUNIT_EXPECT_EQ(test, t->on_target, 199);
	/* (99 - 100) * 10 us / 199 */
	KUNIT_EXPECT_EQ(test, s.mean_ns, -50);
	KUNIT_EXPECT_GE(test, s.std_ns, 9990);
	KUNIT_EXPECT_LE(test, s.std_ns, 10000);
	KUNIT_EXPECT_EQ(test, s.miss_ppm, 5000);
	/* sqrt((199 * (10 us)^2 + 13.9 ms^2) / 200) */
	KUNIT_EXPECT_EQ(test, s.demerit_ns, 982929);
	KUNIT_EXPECT_EQ(test, s.mean_access_ns, 5069450);

	rl_tracker_status(t, 0, buf, sizeof(buf), &sz);
	KUNIT_EXPECT_EQ(test, sz, strlen(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "period_ns=13900000.000 cal=0 refs=0 restarts=0 cal_age_ms=- n=200 err_mean_ns=-50 err_std_ns=9999 miss_pct=0.5000 demerit_ns=982929 access_ns=5069450 slack=2");
}

/* The demerit is a distance between distributions, not between pairs. */
static void rl_tracker_demerit_distributions(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	struct rl_disk_geom g = t->geom;
	struct rl_trk_stats s;
	unsigned int i;

	/* predicted 1, 2, 3 ... ms; measured the same set in reverse order */
	for (i = 0; i < 100; i++)
		rl_tracker_observe(t, 0, 1, 0, (100 - i) * 1000000ULL,
				   (i + 1) * 1000000ULL);
	rl_tracker_stats(t, &s);
	KUNIT_EXPECT_EQ(test, s.demerit_ns, 0);
	/* ... each off by a fixed 7 us: the demerit is 7 us */
	rl_tracker_set_geom(t, &g);
	for (i = 0; i < 600; i++)
		rl_tracker_observe(t, 0, 1, 0, (i % 50) * 100000ULL + 1007000,
				   (i % 50) * 100000ULL + 1000000);
	rl_tracker_stats(t, &s);
	KUNIT_EXPECT_EQ(test, s.demerit_ns, 7000);
	KUNIT_EXPECT_EQ(test, s.mean_ns, 7000);
	KUNIT_EXPECT_EQ(test, s.std_ns, 0);
	KUNIT_EXPECT_EQ(test, t->win_len, RL_TRK_WINDOW);
}

static void rl_tracker_status_none(struct kunit *test)
{
	struct rl_tracker *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	char buf[32] = "x ";
	unsigned int sz = 2;

	KUNIT_ASSERT_NOT_NULL(test, t);
	rl_tracker_status(t, 0, buf, sizeof(buf), &sz);
	KUNIT_EXPECT_STREQ(test, buf, "x geom=none");
	KUNIT_EXPECT_EQ(test, sz, 11);
}

/* Feed one slack window of RL_TRK_SLACK_WINDOW requests with @misses misses. */
static void rl_slack_window(struct rl_tracker *t, unsigned int misses)
{
	unsigned int i;

	for (i = 0; i < RL_TRK_SLACK_WINDOW; i++)
		rl_tracker_observe(t, 0, 1, 0, i < misses ? 3000000 + P_NS : 3000000,
				   3000000);
}

static void rl_tracker_slack_feedback(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	unsigned int i;

	KUNIT_EXPECT_EQ(test, t->slack, RL_TRK_SLACK_INIT);
	/* 3 misses in 256 (1.2 %): one more sector of slack */
	rl_slack_window(t, 3);
	KUNIT_EXPECT_EQ(test, t->slack, RL_TRK_SLACK_INIT + 1);
	rl_slack_window(t, 5);
	KUNIT_EXPECT_EQ(test, t->slack, RL_TRK_SLACK_INIT + 2);
	/* 2 in 256 (0.8 %): on goal, unchanged */
	rl_slack_window(t, 2);
	KUNIT_EXPECT_EQ(test, t->slack, RL_TRK_SLACK_INIT + 2);
	/* well under (none) for RL_TRK_SLACK_CLEAN windows: one less */
	for (i = 0; i < RL_TRK_SLACK_CLEAN - 1; i++)
		rl_slack_window(t, 0);
	KUNIT_EXPECT_EQ(test, t->slack, RL_TRK_SLACK_INIT + 2);
	rl_slack_window(t, 0);
	KUNIT_EXPECT_EQ(test, t->slack, RL_TRK_SLACK_INIT + 1);
	/* a window with a miss restarts the count of clean ones */
	for (i = 0; i < RL_TRK_SLACK_CLEAN - 1; i++)
		rl_slack_window(t, 0);
	rl_slack_window(t, 1);
	rl_slack_window(t, 0);
	KUNIT_EXPECT_EQ(test, t->slack, RL_TRK_SLACK_INIT + 1);
	/* down to 0 and no further */
	for (i = 0; i < 4 * RL_TRK_SLACK_CLEAN * (RL_TRK_SLACK_INIT + 2); i++)
		rl_slack_window(t, 0);
	KUNIT_EXPECT_EQ(test, t->slack, 0);
	/* and up to half a track at most */
	for (i = 0; i < 100; i++)
		rl_slack_window(t, 10);
	KUNIT_EXPECT_EQ(test, t->slack, 24);
}

/*
 * The whole loop on a simulated disk: the disk is a second tracker with the
 * true period (0.07 % off the geometry's), a phase of its own, and a seek
 * curve 50 us slower than the calibrated one; each completion is seen 50 us
 * +- 25 us after the media finished. The tracker under test reads the
 * reference sector when rl_tracker_next_ref_ns() says, predicts and
 * observes random 4 KiB requests, and must keep at least 99 % of them on
 * target once warmed up, with errors well within 1 % of a rotation.
 */
static void rl_tracker_sim_loop(struct kunit *test)
{
	struct rl_tracker *t = rl_test_tracker(test);
	struct rl_tracker *disk = rl_test_tracker(test);
	const u64 p_true = 13910000;
	const u32 overhead = 50000, jitter = 25000;
	unsigned int i, n2 = 0, miss2 = 0;
	u64 now = 3000000, done, pred, cap = t->geom.capacity;
	struct rl_trk_stats st;
	sector_t head = 0;
	u32 seed = 4242;

	disk->period_fp = p_true << RL_TRK_FRAC;
	disk->phase_ns = 777777;
	disk->slack = 0;
	disk->geom.seek_a_ns += 50000;

	for (i = 0; i < 20000; i++) {
		sector_t s = 0;
		unsigned int len = 1;

		if (now >= rl_tracker_next_ref_ns(t)) {
			pred = U64_MAX;
		} else {
			s = rl_test_rand(&seed) % (u32)(cap - 8);
			len = 8;
			pred = rl_tracker_ready(t) ?
			       rl_tracker_predict(t, head, now, s, len) : U64_MAX;
		}
		done = now + rl_tracker_predict(disk, head, now, s, len) + overhead +
		       rl_test_rand(&seed) % (2 * jitter + 1) - jitter;
		if (len == 1) {
			rl_tracker_ref_sample(t, now, done);
		} else {
			rl_tracker_observe(t, s, len, now, done, pred);
			if (i >= 10000 && pred != U64_MAX) {
				n2++;
				miss2 += done - now > pred + p_true / 2;
			}
		}
		head = s + len;
		now = done + rl_test_rand(&seed) % 3000000;
	}
	rl_tracker_stats(t, &st);
	kunit_info(test, "%llu refs, period %llu ns (true %llu); second half %u requests, %u missed; n %llu mean %lld ns std %llu ns misses %u ppm demerit %llu ns access %llu ns slack %u",
		   t->refs, t->period_fp >> RL_TRK_FRAC, p_true, n2, miss2, st.n,
		   st.mean_ns, st.std_ns, st.miss_ppm, st.demerit_ns,
		   st.mean_access_ns, t->slack);
	KUNIT_EXPECT_TRUE(test, t->calibrated);
	KUNIT_EXPECT_GE(test, t->refs, 8);
	KUNIT_EXPECT_LT(test, abs((s64)(t->period_fp >> RL_TRK_FRAC) - (s64)p_true), 10);
	KUNIT_EXPECT_GT(test, n2, 9000);
	KUNIT_EXPECT_LT(test, miss2 * 100, n2);
	KUNIT_EXPECT_LT(test, abs(st.mean_ns) * 100, p_true);
	KUNIT_EXPECT_LT(test, st.std_ns * 100, p_true);
	KUNIT_EXPECT_LT(test, st.miss_ppm, 10000);
}

static struct kunit_case rl_tracker_test_cases[] = {
	KUNIT_CASE_PARAM(rl_tracker_geom_parse_good, rl_geom_good_gen_params),
	KUNIT_CASE(rl_tracker_geom_parse_fields),
	KUNIT_CASE_PARAM(rl_tracker_geom_parse_bad, rl_geom_bad_gen_params),
	KUNIT_CASE(rl_tracker_chs),
	KUNIT_CASE(rl_tracker_chs_zones),
	KUNIT_CASE(rl_tracker_seek),
	KUNIT_CASE_PARAM(rl_tracker_predict_cases, rl_pred_gen_params),
	KUNIT_CASE(rl_tracker_predict_no_geom),
	KUNIT_CASE_PARAM(rl_tracker_period_phase, rl_period_gen_params),
	KUNIT_CASE(rl_tracker_period_too_far),
	KUNIT_CASE(rl_tracker_period_late_sample),
	KUNIT_CASE(rl_tracker_ref_reject),
	KUNIT_CASE(rl_tracker_observe_phase),
	KUNIT_CASE(rl_tracker_stats_demerit),
	KUNIT_CASE(rl_tracker_demerit_distributions),
	KUNIT_CASE(rl_tracker_status_none),
	KUNIT_CASE(rl_tracker_slack_feedback),
	KUNIT_CASE(rl_tracker_sim_loop),
	{}
};

static struct kunit_suite rl_tracker_test_suite = {
	.name = "dm_raidlab_tracker",
	.test_cases = rl_tracker_test_cases,
};

kunit_test_suite(rl_tracker_test_suite);
