// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for table-line parsing (suite dm_raidlab_args): good lines
 * parse to what they say, bad lines are refused with the right message.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../engines/copyset.h"
#include "../schemes/plog/plog.h"
#include "../raidlab.h"

#define RL_ARGS_MAX 64
/* the most optional words: 8 for spares, 9 here, 4 more (21) */
#define RL_T_SPARES "spare s1 spare s2 spare s3 spare s4"
#define RL_T_OPTS "chunk_size 8 region_size 8 assume_clean sched look"
/* plog options: all seven, twice */
#define RL_T_PLOG1 "log_disks 2 log_ratio 0.5 log_tracks 2 track_sectors 128"
#define RL_T_PLOG2 "regions 90 log_buffers 32 data_cache 0"
#define RL_T_PLOG3 "log_disks 1 log_ratio 2.25 log_tracks 1 track_sectors 256"
#define RL_T_PLOG4 "regions 4 log_buffers 2 data_cache 65536"

/* Split a line into words in a kunit-managed copy. */
static unsigned int rl_split(struct kunit *test, const char *line, char **argv)
{
	char *copy = kunit_kzalloc(test, strlen(line) + 1, GFP_KERNEL);
	unsigned int argc = 0;
	char *w;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	strcpy(copy, line);
	while ((w = strsep(&copy, " ")) && argc < RL_ARGS_MAX)
		if (*w)
			argv[argc++] = w;
	return argc;
}

struct rl_args_good {
	const char *line;
	const char *scheme;
	unsigned int chunk;
	unsigned int stripes;
	unsigned int nr_devs;
	const char *sched;		/* NULL: the default, fifo */
	unsigned int depth;		/* 0: the default */
	const char *md;			/* metadata device */
	unsigned int nr_spares;
	unsigned int region;		/* region_size */
	unsigned int nr_missing;
};

static const struct rl_args_good rl_args_good_cases[] = {
	{ "raid0 0 2 /dev/a /dev/b", "raid0", RL_DEFAULT_CHUNK, 0, 2 },
	{ "raid0 2 chunk_size 8 3 /dev/a /dev/b /dev/c", "raid0", 8, 0, 3 },
	{ "mirror 0 3 a b c", "mirror", RL_DEFAULT_CHUNK, 0, 3 },
	{ "raid4 2 chunk_size 2048 3 a b c", "raid4", 2048, 0, 3 },
	{ "raid5 4 stripe_cache 64 CHUNK_SIZE 256 4 a b c d", "raid5", 256, 64, 4 },
	{ "raid0 2 chunk_size 2097152 2 a b", "raid0", 2097152, 0, 2 },
	{ "raid5 5 assume_clean chunk_size 8 stripe_cache 4 3 a b c", "raid5", 8, 4, 3 },
	{ "mirror 2 sched look 2 a b", "mirror", RL_DEFAULT_CHUNK, 0, 2, "look" },
	{ "raid0 2 queue_depth 1 2 a b", "raid0", RL_DEFAULT_CHUNK, 0, 2, NULL, 1 },
	{ "raid5 9 sched rsatf queue_depth 1024 chunk_size 8 stripe_cache 4 assume_clean 3 a b c",
	  "raid5", 8, 4, 3, "rsatf", 1024 },
	{ "raid0 4 SCHED satf queue_depth 7 2 a b", "raid0", RL_DEFAULT_CHUNK, 0, 2, "satf", 7 },
	{ "mirror 2 sched rlook 2 a b", "mirror", RL_DEFAULT_CHUNK, 0, 2, "rlook" },
	{ "mirror 2 sched fifo 2 a b", "mirror", RL_DEFAULT_CHUNK, 0, 2, "fifo" },
	{ "raid5 2 metadata /dev/pmem0 3 a b c", "raid5", RL_DEFAULT_CHUNK, 0, 3,
	  NULL, 0, "/dev/pmem0" },
	{ "mirror 6 spare s1 METADATA md spare s2 2 a b", "mirror", RL_DEFAULT_CHUNK,
	  0, 2, NULL, 0, "md", 2 },
	{ "raid5 4 metadata md region_size 128 3 a b c", "raid5", RL_DEFAULT_CHUNK,
	  0, 3, NULL, 0, "md", 0, 128 },
	{ "raid0 4 metadata md region_size 2147483648 2 a b", "raid0",
	  RL_DEFAULT_CHUNK, 0, 2, NULL, 0, "md", 0, 1U << 31 },
	{ "raid5 0 3 a - c", "raid5", RL_DEFAULT_CHUNK, 0, 3, NULL, 0, NULL, 0, 0, 1 },
	{ "mirror 2 metadata md 3 - b -", "mirror", RL_DEFAULT_CHUNK, 0, 3, NULL, 0,
	  "md", 0, 0, 2 },
	{ "raid5 21 metadata md " RL_T_SPARES " " RL_T_OPTS " stripe_cache 4 queue_depth 1 3 a b c",
	  "raid5", 8, 4, 3, "look", 1, "md", 4, 8 },
	{ "raid6 2 chunk_size 2048 4 a b c d", "raid6", 2048, 0, 4 },
	{ "raid10 0 4 a b c d", "raid10", RL_DEFAULT_CHUNK, 0, 4 },
	{ "raid10 4 LAYOUT Far copies 3 3 a b c", "raid10", RL_DEFAULT_CHUNK, 0, 3 },
	{ "chained 0 3 a b c", "chained", RL_DEFAULT_CHUNK, 0, 3 },
	/* past the guaranteed count: the layout decides, once built */
	{ "chained 0 5 a - c - e", "chained", RL_DEFAULT_CHUNK, 0, 5, NULL, 0,
	  NULL, 0, 0, 2 },
	{ "raid10 2 layout offset 4 - b - d", "raid10", RL_DEFAULT_CHUNK, 0, 4,
	  NULL, 0, NULL, 0, 0, 2 },
	{ "raid6 2 metadata md 5 a - c - e", "raid6", RL_DEFAULT_CHUNK, 0, 5, NULL, 0,
	  "md", 0, 0, 2 },
};

static void rl_args_good_desc(const struct rl_args_good *c, char *desc)
{
	strscpy(desc, c->line, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_args_good, rl_args_good_cases, rl_args_good_desc);

static void rl_args_parse_good(struct kunit *test)
{
	const struct rl_args_good *c = test->param_value;
	char *argv[RL_ARGS_MAX], *error = NULL;
	unsigned int argc = rl_split(test, c->line, argv);
	struct rl_args args;
	unsigned int i;

	KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error), 0,
			    "%s", error ? error : "");
	KUNIT_EXPECT_STREQ(test, args.ops->name, c->scheme);
	KUNIT_EXPECT_EQ(test, args.chunk_sectors, c->chunk);
	KUNIT_EXPECT_EQ(test, args.stripe_cache, c->stripes);
	KUNIT_EXPECT_EQ(test, args.stripes_set, c->stripes != 0);
	KUNIT_EXPECT_EQ(test, args.nr_devs, c->nr_devs);
	KUNIT_EXPECT_EQ(test, args.assume_clean, !!strstr(c->line, "assume_clean"));
	KUNIT_EXPECT_PTR_EQ(test, args.devs, &argv[argc - c->nr_devs]);
	KUNIT_ASSERT_NOT_NULL(test, args.policy);
	KUNIT_EXPECT_STREQ(test, args.policy->name, c->sched ? c->sched : "fifo");
	KUNIT_EXPECT_EQ(test, args.queue_depth,
			c->depth ? c->depth : RL_DEFAULT_QUEUE_DEPTH);
	KUNIT_EXPECT_EQ(test, args.depth_set, c->depth != 0);
	if (c->md)
		KUNIT_EXPECT_STREQ(test, args.md_dev, c->md);
	else
		KUNIT_EXPECT_NULL(test, args.md_dev);
	KUNIT_EXPECT_EQ(test, args.nr_spares, c->nr_spares);
	for (i = 0; i < args.nr_spares; i++) {
		char name[8];

		snprintf(name, sizeof(name), "s%u", i + 1);
		KUNIT_EXPECT_STREQ(test, args.spares[i], name);
	}
	KUNIT_EXPECT_EQ(test, args.region_sectors, c->region);
	KUNIT_EXPECT_EQ(test, args.nr_missing, c->nr_missing);
}

struct rl_args_bad {
	const char *line;
	const char *error;
};

static const struct rl_args_bad rl_args_bad_cases[] = {
	{ "", "Not enough arguments" },
	{ "raid5 0", "Not enough arguments" },
	{ "raid7 0 3 a b c", "Unknown scheme" },
	{ "raid5 x 3 a b c", "Invalid number of optional arguments" },
	{ "raid5 10 chunk_size 8 3 a b c", "Invalid number of optional arguments" },
	{ "raid5 6 chunk_size 8 3 a b c", "Unknown optional argument" },
	{ "raid0 2 sched elevator 2 a b", "Unknown sched policy" },
	{ "raid0 4 sched look sched fifo 2 a b", "Duplicate sched" },
	{ "raid0 1 sched 2 a b", "Optional argument lacks a value" },
	{ "raid0 2 queue_depth 0 2 a b", "Invalid queue_depth" },
	{ "raid0 2 queue_depth 1025 2 a b", "Invalid queue_depth" },
	{ "raid0 4 queue_depth 4 queue_depth 4 2 a b", "Duplicate queue_depth" },
	{ "raid5 5 chunk_size 8 3 a b c d", "Unknown optional argument" },
	{ "raid5 2 assume_clean assume_clean 3 a b c", "Duplicate assume_clean" },
	{ "raid0 1 assume_clean 2 a b", "assume_clean needs a redundant scheme" },
	{ "raid5 3 chunk_size 8 3 a b c", "Optional argument lacks a value" },
	{ "raid5 1 chunk_size 3 a b c", "Optional argument lacks a value" },
	{ "raid5 2 chunk_size 24 3 a b c", "chunk_size is not a power of two" },
	{ "raid5 2 chunk_size 4 3 a b c", "Invalid chunk_size" },
	{ "raid5 2 chunk_size 4096 3 a b c", "chunk_size too large for a parity scheme" },
	{ "raid0 2 chunk_size 4194304 2 a b", "Invalid chunk_size" },
	{ "raid5 2 chunk_size -8 3 a b c", "Invalid chunk_size" },
	{ "raid5 4 chunk_size 8 chunk_size 16 3 a b c", "Duplicate chunk_size" },
	{ "raid5 2 stripe_cache 2 3 a b c", "Invalid stripe_cache" },
	{ "raid5 4 stripe_cache 8 stripe_cache 8 3 a b c", "Duplicate stripe_cache" },
	{ "raid0 2 stripe_cache 8 2 a b", "stripe_cache needs a parity scheme" },
	{ "raid5 2 speed 9 3 a b c", "Unknown optional argument" },
	{ "raid5 0 4 a b c", "Invalid number of devices" },
	{ "raid5 0 2 a b c", "Device count does not match the devices given" },
	{ "raid5 0 0", "Invalid number of devices" },
	{ "raid5 0 2 a b", "Too few devices for the scheme" },
	{ "raid4 0 2 a b", "Too few devices for the scheme" },
	{ "raid0 0 1 a", "Too few devices for the scheme" },
	{ "mirror 0 1 a", "Too few devices for the scheme" },
	{ "raid0 0 33 a b c d e f g h i j k l m n", "Invalid number of devices" },
	{ "raid5 2 spare s 3 a b c", "spare needs a metadata device" },
	{ "mirror 2 region_size 1024 2 a b", "region_size needs a metadata device" },
	{ "raid5 4 metadata md region_size 1000 3 a b c", "region_size is not a power of two" },
	{ "raid5 4 metadata md region_size 4 3 a b c", "Invalid region_size" },
	{ "raid5 6 metadata md chunk_size 256 region_size 128 3 a b c",
	  "region_size smaller than chunk_size" },
	{ "raid5 6 metadata md region_size 1024 region_size 1024 3 a b c",
	  "Duplicate region_size" },
	{ "raid5 4 metadata md metadata md2 3 a b c", "Duplicate metadata" },
	{ "raid5 1 metadata 3 a b c", "Optional argument lacks a value" },
	{ "raid5 12 metadata md spare s1 spare s2 spare s3 spare s4 spare s5 3 a b c",
	  "Too many spares" },
	{ "raid5 2 metadata - 3 a b c", "The metadata device cannot be missing" },
	{ "raid5 4 metadata md spare - 3 a b c", "A spare cannot be missing" },
	{ "raid0 0 2 a -", "A missing member needs a redundant scheme" },
	{ "raid5 0 3 - b -", "More members missing than the scheme survives" },
	{ "raid4 2 metadata md 3 a - -", "More members missing than the scheme survives" },
	{ "mirror 0 2 - -", "More members missing than the scheme survives" },
	{ "raid6 0 5 - b - d -", "More members missing than the scheme survives" },
	{ "raid6 0 3 a b c", "Too few devices for the scheme" },
	{ "raid6 2 chunk_size 4096 4 a b c d", "chunk_size too large for a parity scheme" },
	{ "raid5 22 metadata md " RL_T_SPARES " " RL_T_OPTS " 3 a b c",
	  "Invalid number of optional arguments" },
	{ "raid5 2 journal on 3 a b c", "journal needs a metadata device" },
	{ "raid5 2 journal off 3 a b c", "journal needs a metadata device" },
	{ "mirror 4 metadata md journal on 2 a b", "journal needs a parity scheme" },
	{ "raid5 4 metadata md journal maybe 3 a b c", "Invalid journal" },
	{ "raid5 6 metadata md journal on journal off 3 a b c", "Duplicate journal" },
	{ "raid5 3 metadata md journal 3 a b c", "Optional argument lacks a value" },
	{ "raid5 42 metadata md " RL_T_SPARES " " RL_T_OPTS
	  " journal on stripe_cache 4 queue_depth 1 homehost h x 3 a b c",
	  "Invalid number of optional arguments" },
	{ "raid5 2 homehost h 3 a b c", "homehost needs a metadata device" },
	{ "raid5 4 metadata md homehost a:b 3 a b c",
	  "Invalid homehost (1 to 63 of A-Z a-z 0-9 . _ -)" },
	{ "raid5 6 metadata md homehost a homehost b 3 a b c", "Duplicate homehost" },
	{ "raid5 2 log_disks 1 3 a b c", "log_disks needs the plog scheme" },
	{ "raid4 2 log_ratio 0.5 3 a b c", "log_ratio needs the plog scheme" },
	{ "raid5 2 log_tracks 1 3 a b c", "log_tracks needs the plog scheme" },
	{ "raid5 2 track_sectors 256 3 a b c", "track_sectors needs the plog scheme" },
	{ "raid5 2 regions 4 3 a b c", "regions needs the plog scheme" },
	{ "raid0 2 log_buffers 8 2 a b", "log_buffers needs the plog scheme" },
	{ "mirror 2 data_cache 0 2 a b", "data_cache needs the plog scheme" },
	{ "plog 4 log_disks 1 log_disks 2 4 a b c d", "Duplicate log_disks" },
	{ "plog 4 log_ratio 1 LOG_RATIO 2 4 a b c d", "Duplicate log_ratio" },
	{ "plog 2 log_disks 0 4 a b c d", "Invalid log_disks" },
	{ "plog 2 log_disks x 4 a b c d", "Invalid log_disks" },
	{ "plog 2 log_tracks 65 4 a b c d", "Invalid log_tracks" },
	{ "plog 2 track_sectors 4 4 a b c d", "Invalid track_sectors" },
	{ "plog 2 regions 0 4 a b c d", "Invalid regions" },
	{ "plog 2 regions 65537 4 a b c d", "Invalid regions" },
	{ "plog 2 log_buffers 1 4 a b c d", "Invalid log_buffers" },
	{ "plog 2 data_cache 65537 4 a b c d", "Invalid data_cache" },
	{ "plog 2 stripe_cache 8 4 a b c d", "stripe_cache is not a plog option" },
	{ "raid6 2 faults 2 4 a b c d", "faults needs the plog scheme" },
	{ "plog 2 faults 0 4 a b c d", "Invalid faults" },
	{ "plog 2 faults 3 4 a b c d", "Invalid faults" },
	{ "plog 4 faults 2 faults 2 6 a b c d e f", "Duplicate faults" },
	{ "plog 0 4 a - - d", "More members missing than the scheme survives" },
	{ "plog 2 faults 1 4 a - - d", "More members missing than the scheme survives" },
	{ "plog 2 faults 2 6 a - - d - f", "More members missing than the scheme survives" },
	{ "plog 4 log_tracks 64 track_sectors 256 4 a b c d",
	  "log_tracks * track_sectors exceeds a log write (8192 sectors)" },
	{ "plog 1 log_ratio 4 a b c d", "Optional argument lacks a value" },
	{ "plog 0 2 a b", "Too few devices for the scheme" },
	{ "raid10 2 layout middle 4 a b c d", "Invalid layout: near, far or offset" },
	{ "raid10 2 copies 1 4 a b c d", "Invalid copies" },
	{ "raid10 4 layout near layout far 4 a b c d", "Duplicate layout" },
	{ "mirror 2 layout near 2 a b", "layout needs the raid10 scheme" },
	{ "chained 2 copies 2 3 a b c", "copies needs the raid10 scheme" },
	{ "raid10 2 reads fast 4 a b c d", "Invalid reads: balance or dup" },
	{ "chained 4 reads dup reads dup 3 a b c", "Duplicate reads" },
	{ "mirror 2 reads dup 2 a b", "reads needs the raid10, chained or sr scheme" },
	{ "chained 0 2 a b", "Too few devices for the scheme" },
	{ "chained 0 3 - - -", "More members missing than the scheme survives" },
	{ "raid10 0 2 - -", "More members missing than the scheme survives" },
};

/*
 * raid10's options and what they make it survive; chained's one failure;
 * the reads option of both.
 */
static void rl_args_raid10(struct kunit *test)
{
	static const struct {
		const char *line;
		unsigned int layout, copies, redundancy, reads;
	} cases[] = {
		{ "raid10 0 4 a b c d", 1, 2, 1, 0 },
		{ "raid10 2 copies 3 4 a b c d", 1, 3, 2, 0 },
		{ "raid10 4 layout offset copies 4 4 a b c d", 3, 4, 3, 0 },
		{ "raid10 2 layout far 2 a b", 2, 2, 1, 0 },
		{ "raid10 4 reads DUP copies 2 4 a b c d", 1, 2, 1, 1 },
		{ "raid10 2 reads balance 4 a b c d", 1, 2, 1, 0 },
	};
	char *argv[RL_ARGS_MAX], *error = NULL;
	struct rl_args args;
	unsigned int argc, i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		argc = rl_split(test, cases[i].line, argv);
		KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error),
				    0, "%s", error);
		KUNIT_ASSERT_STREQ(test, args.ops->opts[0].name, "layout");
		KUNIT_EXPECT_EQ(test, args.sopt[0], cases[i].layout);
		KUNIT_EXPECT_EQ(test, args.sopt[1], cases[i].copies);
		KUNIT_EXPECT_EQ(test, args.sopt[2], cases[i].reads);
		KUNIT_EXPECT_EQ(test, rl_args_redundancy(&args),
				cases[i].redundancy);
	}
	argc = rl_split(test, "chained 0 6 a b c d e f", argv);
	KUNIT_ASSERT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	KUNIT_EXPECT_EQ(test, rl_args_redundancy(&args), 1U);
	KUNIT_EXPECT_EQ(test, args.sopt[0], RL_CS_READS_BALANCE);
	argc = rl_split(test, "chained 2 reads dup 3 a b c", argv);
	KUNIT_ASSERT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	KUNIT_EXPECT_EQ(test, args.sopt[0], RL_CS_READS_DUP);
}

/* homehost: kept as given (args.homehost points into the line) */
static void rl_args_homehost(struct kunit *test)
{
	char *argv[RL_ARGS_MAX], *error = NULL;
	struct rl_args args;
	unsigned int argc;

	argc = rl_split(test, "raid5 4 metadata md homehost node-1.lab 3 a b c", argv);
	KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_STREQ(test, args.homehost, "node-1.lab");
	argc = rl_split(test, "raid5 2 metadata md 3 a b c", argv);
	KUNIT_ASSERT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	KUNIT_EXPECT_NULL(test, args.homehost);
}

#define RL_SR_GEOM "period_ns=6000000,cylinders=100,heads=6,spt=300," \
		   "track_skew=3,cyl_skew=5,head_switch_ns=0,seek_a_ns=0," \
		   "seek_b_ns=0,seek_c_ns=0,ref=0"

/*
 * sr: dr, dm and the geometry line, a word option kept as given (it is
 * checked here, used by the scheme); its redundancy is dm - 1.
 */
static void rl_args_sr(struct kunit *test)
{
	static const char geom[] = RL_SR_GEOM;
	char line[512], *argv[RL_ARGS_MAX], *error = NULL;
	struct rl_args args;
	unsigned int argc;

	snprintf(line, sizeof(line), "sr 6 dr 3 dm 2 geom %s 6 a b c d e f", geom);
	argc = rl_split(test, line, argv);
	KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_EQ(test, args.sopt[0], 3);
	KUNIT_EXPECT_EQ(test, args.sopt[1], 2);
	KUNIT_EXPECT_STREQ(test, args.sopt_word[2], geom);
	KUNIT_EXPECT_NULL(test, args.sopt_word[0]);
	KUNIT_EXPECT_EQ(test, rl_args_redundancy(&args), 1U);

	snprintf(line, sizeof(line), "sr 2 geom %s 2 a b", geom);
	argc = rl_split(test, line, argv);
	KUNIT_ASSERT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	KUNIT_EXPECT_EQ(test, args.sopt[0], 1);
	KUNIT_EXPECT_EQ(test, rl_args_redundancy(&args), 0U);

	argc = rl_split(test, "sr 2 geom heads=6 2 a b", argv);
	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "Invalid geom: a geometry line (raidlab-sched.rst)");
	argc = rl_split(test, "sr 2 dr 2 2 a b", argv);
	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "sr needs geom (the members' geometry)");
	argc = rl_split(test, "raid10 2 geom x 2 a b", argv);
	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "geom needs the sr scheme");
}

/*
 * altmirror: mem_fraction in hundredths of a percent, and volatile, a
 * scheme option with no value (a flag), refused by name elsewhere.
 */
static void rl_args_altmirror(struct kunit *test)
{
	char *argv[RL_ARGS_MAX], *error = NULL;
	struct rl_args args;
	unsigned int argc;

	argc = rl_split(test, "altmirror 5 metadata m mem_fraction 0.5 volatile 2 a b",
			argv);
	KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_EQ(test, args.sopt[0], 50);
	KUNIT_EXPECT_EQ(test, args.sopt[1], 1);
	argc = rl_split(test, "altmirror 5 volatile metadata m mem_fraction 12.25 2 a b",
			argv);
	KUNIT_ASSERT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	KUNIT_EXPECT_EQ(test, args.sopt[0], 1225);
	KUNIT_EXPECT_EQ(test, args.sopt[1], 1);
	argc = rl_split(test, "altmirror 2 metadata m 2 a b", argv);
	KUNIT_ASSERT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	KUNIT_EXPECT_EQ(test, args.sopt[0], 100);
	KUNIT_EXPECT_EQ(test, args.sopt[1], 0);
	argc = rl_split(test, "altmirror 4 metadata m mem_fraction 101 2 a b",
			argv);
	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "Invalid mem_fraction: a percentage, 0.01 to 100");
	argc = rl_split(test, "altmirror 3 metadata m volatile 3 a b c", argv);
	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	argc = rl_split(test, "altmirror 0 2 a b", argv);
	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error,
			   "altmirror needs a metadata device (its pool or bitmap)");
	argc = rl_split(test, "mirror 3 metadata m volatile 2 a b", argv);
	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), -EINVAL);
	KUNIT_EXPECT_STREQ(test, error, "volatile needs the altmirror scheme");
}

/* log_ratio: decimals with up to three places, in thousandths. */
static void rl_args_log_ratio(struct kunit *test)
{
	static const struct {
		const char *s;
		unsigned int milli;	/* 0: refused */
	} cases[] = {
		{ "1", 1000 }, { "0.5", 500 }, { "2.25", 2250 }, { "0.001", 1 },
		{ "64", 64000 }, { "010.10", 10100 }, { "3.125", 3125 },
		{ "64.000", 64000 }, { "0", 0 }, { "0.000", 0 }, { "64.001", 0 },
		{ "1.2345", 0 }, { "", 0 }, { ".5", 0 }, { "1.", 0 }, { "-1", 0 },
		{ "+1", 0 }, { "1e3", 0 }, { "1,5", 0 }, { " 1", 0 }, { "1 ", 0 },
		{ "0x10", 0 }, { "abc", 0 }, { "1.5.2", 0 },
		{ "99999999999999999999", 0 },
	};
	unsigned int i, milli;
	int r, want;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		milli = 12345;
		want = -EINVAL;
		if (cases[i].milli)
			want = 0;
		r = rl_parse_log_ratio(cases[i].s, &milli);
		KUNIT_EXPECT_EQ_MSG(test, r, want, "'%s'", cases[i].s);
		if (cases[i].milli)
			KUNIT_EXPECT_EQ_MSG(test, milli, cases[i].milli, "'%s'",
					    cases[i].s);
	}
}

/* The plog options land in args->sopt[]; the defaults are zero but data_cache. */
static void rl_args_plog(struct kunit *test)
{
	char *argv[RL_ARGS_MAX], *error = NULL;
	struct rl_args args;
	unsigned int argc;

	argc = rl_split(test, "plog 0 3 a b c", argv);
	KUNIT_ASSERT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	KUNIT_EXPECT_PTR_EQ(test, args.ops, &rl_plog_ops);
	KUNIT_EXPECT_EQ(test, args.sopt_given, 0UL);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_LOG_RATIO], 0U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_DATA_CACHE], (unsigned int)RL_PLOG_DEF_CACHE);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_FAULTS], 0U);

	/* faults 2: two members may be missing */
	argc = rl_split(test, "plog 2 faults 2 6 a - c - e f", argv);
	KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_FAULTS], 2U);
	KUNIT_EXPECT_EQ(test, args.nr_missing, 2U);

	argc = rl_split(test, "plog 20 " RL_T_PLOG1 " " RL_T_PLOG2
			" metadata md journal off chunk_size 64 7 a b c d e f g", argv);
	KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_LOG_DISKS], 2U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_LOG_RATIO], 500U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_LOG_TRACKS], 2U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_TRACK_SECTORS], 128U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_REGIONS], 90U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_LOG_BUFFERS], 32U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_DATA_CACHE], 0U);
	KUNIT_EXPECT_EQ(test, hweight_long(args.sopt_given), 7);
	KUNIT_EXPECT_EQ(test, args.journal, RL_JNL_OFF);
	KUNIT_EXPECT_EQ(test, args.chunk_sectors, 64U);
	KUNIT_EXPECT_EQ(test, args.nr_devs, 7U);

	/* 35 words: 14 plog, 10 metadata and spares, 11 more (no stripe_cache) */
	argc = rl_split(test, "plog 35 " RL_T_PLOG3 " " RL_T_PLOG4 " metadata md "
			RL_T_SPARES " " RL_T_OPTS " journal on queue_depth 8 3 a b c", argv);
	KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error), 0,
			    "%s", error);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_LOG_RATIO], 2250U);
	KUNIT_EXPECT_EQ(test, args.sopt[RL_PLOG_OPT_DATA_CACHE], 65536U);
	KUNIT_EXPECT_EQ(test, args.nr_spares, 4U);
}

static void rl_args_bad_desc(const struct rl_args_bad *c, char *desc)
{
	strscpy(desc, c->error, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rl_args_bad, rl_args_bad_cases, rl_args_bad_desc);

static void rl_args_parse_bad(struct kunit *test)
{
	const struct rl_args_bad *c = test->param_value;
	char *argv[RL_ARGS_MAX], *error = NULL;
	unsigned int argc = rl_split(test, c->line, argv);
	struct rl_args args;

	KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), -EINVAL);
	KUNIT_ASSERT_NOT_NULL(test, error);
	KUNIT_EXPECT_STREQ(test, error, c->error);
}

/* Parity stripe buffers are whole pages: a smaller chunk is refused. */
/* journal on|off, and the default (auto: on when the metadata is DAX) */
static void rl_args_journal(struct kunit *test)
{
	static const struct {
		const char *line;
		enum rl_jnl_mode mode;
	} cases[] = {
		{ "raid5 2 metadata md 3 a b c", RL_JNL_AUTO },
		{ "raid5 4 metadata md journal off 3 a b c", RL_JNL_OFF },
		{ "raid4 4 JOURNAL ON metadata md 3 a b c", RL_JNL_ON },
		{ "raid5 23 metadata md " RL_T_SPARES " " RL_T_OPTS
		  " journal on stripe_cache 4 queue_depth 1 3 a b c", RL_JNL_ON },
		{ "raid5 0 3 a b c", RL_JNL_AUTO },
	};
	char *argv[RL_ARGS_MAX], *error = NULL;
	struct rl_args args;
	unsigned int i, argc;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		argc = rl_split(test, cases[i].line, argv);
		error = NULL;
		KUNIT_ASSERT_EQ_MSG(test, rl_parse_args(argc, argv, &args, &error),
				    0, "%s", error);
		KUNIT_EXPECT_EQ_MSG(test, args.journal, cases[i].mode, "%s",
				    cases[i].line);
		KUNIT_EXPECT_EQ(test, args.nr_devs, 3U);
	}
}

static void rl_args_chunk_vs_page(struct kunit *test)
{
	char line[64], *argv[RL_ARGS_MAX], *error = NULL;
	struct rl_args args;
	unsigned int argc, chunk;

	for (chunk = 8; chunk <= 128; chunk <<= 1) {
		bool fits = ((size_t)chunk << SECTOR_SHIFT) >= PAGE_SIZE;

		snprintf(line, sizeof(line), "raid5 2 chunk_size %u 3 a b c", chunk);
		argc = rl_split(test, line, argv);
		KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error),
				fits ? 0 : -EINVAL);
		if (!fits)
			KUNIT_EXPECT_STREQ(test, error,
					   "chunk_size smaller than a page for a parity scheme");
		/* raid0 takes any chunk of at least 8 sectors */
		snprintf(line, sizeof(line), "raid0 2 chunk_size %u 2 a b", chunk);
		argc = rl_split(test, line, argv);
		KUNIT_EXPECT_EQ(test, rl_parse_args(argc, argv, &args, &error), 0);
	}
}

static struct kunit_case rl_args_test_cases[] = {
	KUNIT_CASE_PARAM(rl_args_parse_good, rl_args_good_gen_params),
	KUNIT_CASE_PARAM(rl_args_parse_bad, rl_args_bad_gen_params),
	KUNIT_CASE(rl_args_journal),
	KUNIT_CASE(rl_args_log_ratio),
	KUNIT_CASE(rl_args_raid10),
	KUNIT_CASE(rl_args_sr),
	KUNIT_CASE(rl_args_altmirror),
	KUNIT_CASE(rl_args_plog),
	KUNIT_CASE(rl_args_chunk_vs_page),
	KUNIT_CASE(rl_args_homehost),
	{}
};

static struct kunit_suite rl_args_test_suite = {
	.name = "dm_raidlab_args",
	.test_cases = rl_args_test_cases,
};

kunit_test_suite(rl_args_test_suite);
