// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a table loaded over a live array (suite
 * dm_raidlab_reload): rl_reload_mismatch() lets the spares, sched,
 * homehost and the disks of failed roles change, and nothing else; every
 * other role must be named by the disk the live array has in it; a spare
 * may not be a member, nor a member name another role; no reload while
 * the scheme holds a spare. The VM test 95-reload covers the
 * take-over itself.
 */
#include <kunit/test.h>
#include <linux/device-mapper.h>

#include "../raidlab.h"
#include "reload.h"

#define RL_RT_MEMBERS	4

struct rl_reload_fix {
	struct rl_array *live, *s;
	struct rl_args lopts;		/* the live line's scheme options */
	struct dm_dev disks[RL_RT_MEMBERS + 3];	/* members, then others */
	struct dm_target live_ti, s_ti;
};

static struct rl_array *rl_rt_array(struct kunit *test, struct dm_target *ti,
				    struct dm_dev *disks)
{
	struct rl_array *a;
	unsigned int i;

	a = kunit_kzalloc(test, struct_size(a, members, RL_RT_MEMBERS),
			  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->ti = ti;
	a->ops = &rl_raid5_ops;
	a->geom.nr_members = RL_RT_MEMBERS;
	a->geom.chunk_shift = 7;
	a->queue_depth = RL_DEFAULT_QUEUE_DEPTH;
	a->policy = &rl_sched_fifo;
	for (i = 0; i < RL_RT_MEMBERS; i++)
		a->members[i].dev = &disks[i];
	return a;
}

static struct rl_reload_fix *rl_rt_new(struct kunit *test)
{
	struct rl_reload_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->live_ti.len = 3 * 1024;
	f->s_ti.len = 3 * 1024;
	f->live = rl_rt_array(test, &f->live_ti, f->disks);
	f->s = rl_rt_array(test, &f->s_ti, f->disks);
	return f;
}

static void rl_reload_same_line(struct kunit *test)
{
	struct rl_reload_fix *f = rl_rt_new(test);

	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	/* region_size not given: the live array's */
	f->s->region_shift = 11;
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
}

static void rl_reload_what_may_change(struct kunit *test)
{
	struct rl_reload_fix *f = rl_rt_new(test);

	/* spares added, one kept, one dropped */
	f->live->nr_spares = 2;
	f->live->spares[0] = &f->disks[4];
	f->live->spares[1] = &f->disks[5];
	f->s->nr_spares = 2;
	f->s->spares[0] = &f->disks[5];
	f->s->spares[1] = &f->disks[6];
	f->s->policy = &rl_sched_look;
	strscpy(f->s->homehost, "node-b", sizeof(f->s->homehost));
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	/* a missing role stays missing */
	f->live->members[2].dev = NULL;
	f->s->members[2].dev = NULL;
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
}

static void rl_reload_what_may_not(struct kunit *test)
{
	static const char *const keeps =
		"A live array keeps its scheme, members, chunk_size and length";
	static const char *const opts =
		"A live array keeps its region_size, journal, queue_depth and stripe_cache";
	struct rl_reload_fix *f;

	f = rl_rt_new(test);
	f->s->ops = &rl_raid4_ops;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts), keeps);
	f = rl_rt_new(test);
	f->s->geom.chunk_shift = 8;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts), keeps);
	f = rl_rt_new(test);
	f->s_ti.len += 1024;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts), keeps);
	f = rl_rt_new(test);
	f->s->region_shift = 12;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts), opts);
	f = rl_rt_new(test);
	f->s->journal = RL_JNL_OFF;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts), opts);
	f = rl_rt_new(test);
	f->s->queue_depth = 8;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts), opts);
	f = rl_rt_new(test);
	f->live->stripe_cache = 32;
	f->s->opt_stripes_set = 1;
	f->s->stripe_cache = 64;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts), opts);
	f->s->stripe_cache = 32;
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	/* scheme options: those the line gives, as the live line says them */
	f = rl_rt_new(test);
	f->lopts.sopt[0] = 5;		/* settled by the scheme (plog) */
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	f->s->sopt_given = BIT(0);
	f->s->sopt[0] = 5;
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	f->s->sopt[0] = 1;
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts),
			   "A live array keeps its scheme's options");
	f = rl_rt_new(test);
	f->s->sopt_given = BIT(1);
	f->s->sopt_word[1] = "geom";
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts),
			   "A live array keeps its scheme's options");
	f->lopts.sopt_word[1] = "geom";
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
}

static void rl_reload_roles_and_spares(struct kunit *test)
{
	struct rl_reload_fix *f;

	/* a spare took role 1: the line must name it there */
	f = rl_rt_new(test);
	f->live->members[1].dev = &f->disks[4];
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts),
			   "Name each role's disk as the live array has it (dmsetup table)");
	f->s->members[1].dev = &f->disks[4];
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	/* the disk it replaced may come back as a spare, a member may not */
	f->s->nr_spares = 1;
	f->s->spares[0] = &f->disks[1];
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	f->s->spares[0] = &f->disks[4];
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts),
			   "A spare is a member of the live array");
	/* a disk for a missing role, a role's disk left out: if it failed */
	f = rl_rt_new(test);
	f->live->members[3].dev = NULL;
	KUNIT_EXPECT_NOT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	__set_bit(3, &f->live->failed);
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	f = rl_rt_new(test);
	f->s->members[0].dev = NULL;
	KUNIT_EXPECT_NOT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	__set_bit(0, &f->live->failed);
	KUNIT_EXPECT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	/* but a failed role's disk is not changed for another */
	f->s->members[0].dev = &f->disks[6];
	KUNIT_EXPECT_NOT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	/* nor a member's disk named in another role */
	f = rl_rt_new(test);
	f->live->members[3].dev = NULL;
	__set_bit(3, &f->live->failed);
	f->s->members[3].dev = &f->disks[2];
	f->s->members[2].dev = NULL;
	KUNIT_EXPECT_NOT_NULL(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts));
	/* altmirror's recovery holds a spare */
	f = rl_rt_new(test);
	f->live->spares_held = BIT(0);
	KUNIT_EXPECT_STREQ(test, rl_reload_mismatch(f->live, f->s, 11, &f->lopts),
			   "A spare is held by the scheme's recovery: reload once it ends");
}

static struct kunit_case rl_reload_test_cases[] = {
	KUNIT_CASE(rl_reload_same_line),
	KUNIT_CASE(rl_reload_what_may_change),
	KUNIT_CASE(rl_reload_what_may_not),
	KUNIT_CASE(rl_reload_roles_and_spares),
	{}
};

static struct kunit_suite rl_reload_test_suite = {
	.name = "dm_raidlab_reload",
	.test_cases = rl_reload_test_cases,
};

kunit_test_suite(rl_reload_test_suite);
