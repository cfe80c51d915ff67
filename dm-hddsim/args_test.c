// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for dm-hddsim table-line parsing (suite dm_hddsim_args): the
 * presets, overrides, zones and time scale parse to what they say, bad lines
 * are refused with the right message, the length check.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "hddsim.h"

#define HS_ARGV_MAX 40

/* Split a line into words in a kunit-managed copy. */
static unsigned int hs_split(struct kunit *test, const char *line, char **argv)
{
	char *copy = kunit_kzalloc(test, strlen(line) + 1, GFP_KERNEL);
	unsigned int argc = 0;
	char *w;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	strcpy(copy, line);
	while ((w = strsep(&copy, " ")) && argc < HS_ARGV_MAX)
		if (*w)
			argv[argc++] = w;
	return argc;
}

static int hs_parse(struct kunit *test, const char *line, struct hs_args *a,
		    char **error)
{
	char **argv = kunit_kcalloc(test, HS_ARGV_MAX, sizeof(*argv), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, argv);
	*error = NULL;
	return hs_parse_args(hs_split(test, line, argv), argv, a, error);
}

/* join NULL-terminated parts of a long line with spaces */
static char *hs_join(struct kunit *test, const char *const *parts)
{
	size_t len = 1;
	unsigned int i;
	char *line;

	for (i = 0; parts[i]; i++)
		len += strlen(parts[i]) + 1;
	line = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	for (i = 0; parts[i]; i++) {
		if (i)
			strcat(line, " ");
		strcat(line, parts[i]);
	}
	return line;
}

static void hs_args_presets(struct kunit *test)
{
	struct hs_args a;
	char *error;

	KUNIT_ASSERT_EQ(test, hs_parse(test, "/dev/sda 2048 lightning", &a, &error), 0);
	KUNIT_EXPECT_STREQ(test, a.dev_path, "/dev/sda");
	KUNIT_EXPECT_EQ(test, a.offset, 2048ULL);
	KUNIT_EXPECT_STREQ(test, a.preset->name, "lightning");
	KUNIT_EXPECT_EQ(test, a.geom.cylinders, 949U);
	KUNIT_EXPECT_EQ(test, a.geom.heads, 14U);
	KUNIT_EXPECT_EQ(test, a.geom.zones[0].spt, 48U);
	KUNIT_EXPECT_EQ(test, a.geom.period_ns, 13900000ULL);
	KUNIT_EXPECT_EQ(test, a.geom.capacity, 637728ULL);
	KUNIT_EXPECT_EQ(test, a.scale.num, 1U);
	KUNIT_EXPECT_EQ(test, a.scale.den, 1U);
	KUNIT_EXPECT_EQ(test, a.nr_opt, 0U);

	/* Eagle: 840 * 20 * 8 blocks of 4 KiB */
	KUNIT_ASSERT_EQ(test, hs_parse(test, "d 0 eagle 0", &a, &error), 0);
	KUNIT_EXPECT_EQ(test, a.geom.capacity, 840ULL * 20 * 64);
	KUNIT_EXPECT_EQ(test, a.geom.period_ns, 16600000ULL);

	/* st39133: 2500 * 6 * (334 + 302 + 270 + 238) sectors */
	KUNIT_ASSERT_EQ(test, hs_parse(test, "d 0 st39133", &a, &error), 0);
	KUNIT_EXPECT_EQ(test, a.geom.capacity, 2500ULL * 6 * 1144);
	KUNIT_EXPECT_EQ(test, a.geom.zones[3].first_lba, 7500ULL * 6 * 302);
	KUNIT_EXPECT_EQ(test, a.geom.period_ns, 6000000ULL);

	/* modern7200: 25 000 * 4 * 12 500 */
	KUNIT_ASSERT_EQ(test, hs_parse(test, "d 0 MODERN7200", &a, &error), 0);
	KUNIT_EXPECT_EQ(test, a.geom.capacity, 1250000000ULL);
	KUNIT_EXPECT_EQ(test, a.geom.nr_zones, 8U);
}

/* every skew of a preset covers the switch it follows, in the outer zone */
static void hs_args_preset_skews(struct kunit *test)
{
	static const char *const names[] = { "lightning", "eagle", "st39133",
					     "modern7200" };
	struct hs_geom g;
	unsigned int i;
	char *error;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		g = hs_preset_find(names[i])->geom;
		KUNIT_ASSERT_EQ(test, hs_geom_finish(&g, &error), 0);
		KUNIT_EXPECT_GE_MSG(test, hs_slot_ns(&g, g.zones[0].spt, g.track_skew),
				    g.head_switch_ns, "%s", names[i]);
		KUNIT_EXPECT_GE_MSG(test, hs_slot_ns(&g, g.zones[0].spt, g.cyl_skew),
				    hs_seek_ns(&g, 1), "%s", names[i]);
	}
}

static void hs_args_overrides(struct kunit *test)
{
	struct hs_args a;
	char *error;

	static const char *const line1[] = {
		"d 8 lightning 12 cylinders 100 heads 2 sectors 32",
		"period_us 8000 seek_a_us 1000 time_scale 4", NULL
	};
	static const char *const line2[] = {
		"d 0 custom 22 cylinders 10 heads 2 zones 0:10/4:8",
		"period_ns 1000000 track_skew 1 cyl_skew 2 head_switch_ns 50000",
		"seek_a_ns 100000 seek_b_ns 3 seek_c_ns 7 time_scale 1/250", NULL
	};
	static const char *const line3 =
		"d 0 eagle 4 head_switch_us 2 seek_c_us 460";

	KUNIT_ASSERT_EQ(test, hs_parse(test, hs_join(test, line1), &a, &error), 0);
	KUNIT_EXPECT_EQ(test, a.geom.cylinders, 100U);
	KUNIT_EXPECT_EQ(test, a.geom.heads, 2U);
	KUNIT_EXPECT_EQ(test, a.geom.zones[0].spt, 32U);
	KUNIT_EXPECT_EQ(test, a.geom.period_ns, 8000000ULL);
	KUNIT_EXPECT_EQ(test, a.geom.seek_a_ns, 1000000ULL);
	KUNIT_EXPECT_EQ(test, a.geom.seek_b_ns, 10000ULL);	/* preset's */
	KUNIT_EXPECT_EQ(test, a.geom.capacity, 6400ULL);
	KUNIT_EXPECT_EQ(test, a.scale.num, 4U);
	KUNIT_EXPECT_EQ(test, a.scale.den, 1U);
	KUNIT_EXPECT_EQ(test, a.nr_opt, 12U);
	KUNIT_EXPECT_STREQ(test, a.opt[0], "cylinders");

	KUNIT_ASSERT_EQ(test, hs_parse(test, hs_join(test, line2), &a, &error), 0);
	KUNIT_EXPECT_EQ(test, a.geom.nr_zones, 2U);
	KUNIT_EXPECT_EQ(test, a.geom.zones[1].first_cyl, 4U);
	KUNIT_EXPECT_EQ(test, a.geom.zones[1].spt, 8U);
	KUNIT_EXPECT_EQ(test, a.geom.capacity, 176ULL);
	KUNIT_EXPECT_EQ(test, a.geom.track_skew, 1U);
	KUNIT_EXPECT_EQ(test, a.geom.cyl_skew, 2U);
	KUNIT_EXPECT_EQ(test, a.geom.head_switch_ns, 50000ULL);
	KUNIT_EXPECT_EQ(test, a.geom.seek_b_ns, 3ULL);
	KUNIT_EXPECT_EQ(test, a.geom.seek_c_ns, 7ULL);
	KUNIT_EXPECT_EQ(test, a.scale.num, 1U);
	KUNIT_EXPECT_EQ(test, a.scale.den, 250U);

	/* head_switch_us 2 is 2000 ns; seek_c_us 460 */
	KUNIT_ASSERT_EQ(test, hs_parse(test, line3, &a, &error), 0);
	KUNIT_EXPECT_EQ(test, a.geom.head_switch_ns, 2000ULL);
	KUNIT_EXPECT_EQ(test, a.geom.seek_c_ns, 460000ULL);
}

#define HS_CUSTOM_ERROR "custom needs cylinders, heads, sectors or zones, and a period"

struct hs_args_bad {
	const char *line;
	const char *error;
};

static const struct hs_args_bad hs_args_bad_cases[] = {
	{ "d 0", "Not enough arguments" },
	{ "d x lightning", "Invalid device offset" },
	{ "d 1k lightning", "Invalid device offset" },
	{ "d 0 floppy", "Unknown preset" },
	{ "d 0 lightning 2 heads", "Invalid number of optional arguments" },
	{ "d 0 lightning 34 heads", "Invalid number of optional arguments" },
	{ "d 0 lightning x", "Invalid number of optional arguments" },
	{ "d 0 lightning 1 heads", "Optional argument lacks a value" },
	{ "d 0 lightning 2 heads 2 extra", "Too many arguments" },
	{ "d 0 lightning 2 platters 2", "Unknown optional argument" },
	{ "d 0 lightning 4 heads 2 heads 3", "Duplicate optional argument" },
	{ "d 0 lightning 4 period_us 8000 period_ns 8000000", "Duplicate optional argument" },
	{ "d 0 lightning 2 heads x", "Invalid optional argument value" },
	{ "d 0 lightning 2 heads -1", "Invalid optional argument value" },
	{ "d 0 lightning 2 period_us 20000000", "Invalid optional argument value" },
	{ "d 0 lightning 2 heads 0", "Invalid number of heads" },
	{ "d 0 lightning 2 heads 257", "Invalid number of heads" },
	{ "d 0 lightning 2 cylinders 0", "Invalid number of cylinders" },
	{ "d 0 lightning 2 sectors 0", "Invalid sectors per track" },
	{ "d 0 lightning 2 period_us 99", "Invalid rotation period" },
	{ "d 0 lightning 2 track_skew 65536", "Invalid skew" },
	{ "d 0 lightning 4 sectors 8 zones 0:8", "sectors and zones are exclusive" },
	{ "d 0 lightning 2 zones 1:8", "The first zone must start at cylinder 0" },
	{ "d 0 lightning 2 zones 0:8/0:9", "Invalid zone start cylinder" },
	{ "d 0 lightning 2 zones 0:8/949:9", "Invalid zone start cylinder" },
	{ "d 0 lightning 2 zones 0:8/", "Invalid zones" },
	{ "d 0 lightning 2 zones 0-8", "Invalid zones" },
	{ "d 0 lightning 2 zones 0:8x", "Invalid zones" },
	{ "d 0 lightning 2 time_scale 0", "Invalid time_scale" },
	{ "d 0 lightning 2 time_scale 1001", "Invalid time_scale" },
	{ "d 0 lightning 2 time_scale 1/0", "Invalid time_scale" },
	{ "d 0 lightning 2 time_scale 1/", "Invalid time_scale" },
	{ "d 0 lightning 2 time_scale 2x", "Invalid time_scale" },
	{ "d 0 lightning 2 time_scale /4", "Invalid time_scale" },
	{ "d 0 custom 0", HS_CUSTOM_ERROR },
	{ "d 0 custom 6 cylinders 10 heads 2 sectors 8", HS_CUSTOM_ERROR },
};

static void hs_args_bad_desc(const struct hs_args_bad *c, char *desc)
{
	strscpy(desc, c->line, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hs_args_bad, hs_args_bad_cases, hs_args_bad_desc);

static void hs_args_parse_bad(struct kunit *test)
{
	const struct hs_args_bad *c = test->param_value;
	struct hs_args a;
	char *error;

	KUNIT_EXPECT_EQ(test, hs_parse(test, c->line, &a, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, c->error);
}

/* 16 zones parse, 17 do not */
static void hs_args_zone_count(struct kunit *test)
{
	static const char *const sixteen[] = {
		"d 0 lightning 2 zones 0:1/1:1/2:1/3:1/4:1/5:1/6:1/7:1/8:1/9:1",
		"/10:1/11:1/12:1/13:1/14:1/15:1", NULL
	};
	static const char *const seventeen[] = {
		"d 0 lightning 2 zones 0:1/1:1/2:1/3:1/4:1/5:1/6:1/7:1/8:1/9:1",
		"/10:1/11:1/12:1/13:1/14:1/15:1/16:1", NULL
	};
	char *line, *sp;
	struct hs_args a;
	char *error;

	/* the parts split the zone spec: glue it back */
	line = hs_join(test, sixteen);
	sp = strrchr(line, ' ');
	memmove(sp, sp + 1, strlen(sp));
	KUNIT_ASSERT_EQ(test, hs_parse(test, line, &a, &error), 0);
	KUNIT_EXPECT_EQ(test, a.geom.nr_zones, 16U);
	/* 15 * 14 * 1 + 934 * 14 * 1 */
	KUNIT_EXPECT_EQ(test, a.geom.capacity, 949ULL * 14);

	line = hs_join(test, seventeen);
	sp = strrchr(line, ' ');
	memmove(sp, sp + 1, strlen(sp));
	KUNIT_EXPECT_EQ(test, hs_parse(test, line, &a, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Too many zones");
}

static void hs_args_length(struct kunit *test)
{
	struct hs_geom g = hs_preset_find("lightning")->geom;
	char *error = NULL;

	KUNIT_ASSERT_EQ(test, hs_geom_finish(&g, &error), 0);
	KUNIT_EXPECT_EQ(test, hs_check_length(&g, 637728, 0, 1 << 22, &error), 0);
	KUNIT_EXPECT_EQ(test, hs_check_length(&g, 1000, 100, 1100, &error), 0);
	KUNIT_EXPECT_EQ(test, hs_check_length(&g, 0, 0, 1 << 22, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Zero target length");
	KUNIT_EXPECT_EQ(test, hs_check_length(&g, 637729, 0, 1 << 22, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Target length exceeds the emulated disk's capacity");
	KUNIT_EXPECT_EQ(test, hs_check_length(&g, 1000, 101, 1100, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Target length exceeds the underlying device");
	KUNIT_EXPECT_EQ(test, hs_check_length(&g, 1, 2000, 1100, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "Target length exceeds the underlying device");
}

static struct kunit_case hs_args_cases[] = {
	KUNIT_CASE(hs_args_presets),
	KUNIT_CASE(hs_args_preset_skews),
	KUNIT_CASE(hs_args_overrides),
	KUNIT_CASE_PARAM(hs_args_parse_bad, hs_args_bad_gen_params),
	KUNIT_CASE(hs_args_zone_count),
	KUNIT_CASE(hs_args_length),
	{}
};

static struct kunit_suite hs_args_suite = {
	.name = "dm_hddsim_args",
	.test_cases = hs_args_cases,
};

kunit_test_suite(hs_args_suite);
