// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the queue policies (suite dm_raidlab_sched): each
 * policy's choice on hand-built queues, the replica choice of RLOOK and
 * RSATF, SATF's fallback to LOOK while the tracker is not calibrated, the
 * background floor, and a small simulated disk on which SATF serves a
 * random queue in less predicted time than LOOK and FIFO.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/math64.h>

#include "sched.h"
#include "tracker.h"

#define RL_TEST_MAX_QE	64

struct rl_test_queue {
	struct list_head list;
	struct rl_qent qe[RL_TEST_MAX_QE];
	sector_t alts[RL_TEST_MAX_QE][RL_SCHED_MAX_ALTS];
	unsigned int nr;
};

static struct rl_test_queue *rl_test_queue(struct kunit *test)
{
	struct rl_test_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, q);
	INIT_LIST_HEAD(&q->list);
	return q;
}

/* Queue an entry at @sector (replica 0) with @nr_alts - 1 more replicas. */
static struct rl_qent *rl_test_add(struct rl_test_queue *q, sector_t sector,
				   unsigned int nr_alts, const sector_t *more)
{
	struct rl_qent *qe = &q->qe[q->nr];
	unsigned int i;

	qe->seq = q->nr;
	qe->sector = sector;
	qe->sectors = 1;
	qe->chosen = RL_SCHED_MAX_ALTS;	/* the policy must set it */
	if (nr_alts) {
		q->alts[q->nr][0] = sector;
		for (i = 1; i < nr_alts; i++)
			q->alts[q->nr][i] = more[i - 1];
		qe->alt = q->alts[q->nr];
		qe->nr_alts = nr_alts;
	}
	list_add_tail(&qe->node, &q->list);
	q->nr++;
	return qe;
}

/*
 * A calibrated tracker on a disk with 250 us slots (12 ms, 48 spt), no
 * skew, 0.1 ms head switch and the Lightning seek curve: phase 0 (slot 0
 * under the head at time 0), no slack.
 */
#define RL_TEST_GEOM "period_ns=12000000,cylinders=949,heads=14,spt=48," \
		     "track_skew=0,cyl_skew=0,head_switch_ns=100000," \
		     "seek_a_ns=2000000,seek_b_ns=10000,seek_c_ns=460000,ref=0"

static struct rl_tracker *rl_test_trk(struct kunit *test, const char *line)
{
	struct rl_tracker *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	struct rl_disk_geom g;
	char *error = NULL;

	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ_MSG(test, rl_disk_geom_parse(line, &g, &error), 0,
			    "%s", error);
	rl_tracker_set_geom(t, &g);
	t->calibrated = true;
	t->slack = 0;
	return t;
}

static void rl_sched_find_names(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_find("fifo"), &rl_sched_fifo);
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_find("look"), &rl_sched_look);
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_find("rlook"), &rl_sched_rlook);
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_find("SATF"), &rl_sched_satf);
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_find("rsatf"), &rl_sched_rsatf);
	KUNIT_EXPECT_NULL(test, rl_sched_find("cscan"));
	KUNIT_EXPECT_NULL(test, rl_sched_find(""));
	KUNIT_EXPECT_FALSE(test, rl_sched_satf.replicas);
	KUNIT_EXPECT_TRUE(test, rl_sched_rsatf.replicas);
	KUNIT_EXPECT_TRUE(test, rl_sched_rlook.replicas);
}

static void rl_sched_fifo_order(struct kunit *test)
{
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 500, .dir = 1 };
	static const sector_t more[] = { 501 };
	struct rl_qent *qe;

	rl_test_add(q, 9000, 2, more);
	rl_test_add(q, 500, 0, NULL);
	qe = rl_sched_fifo.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 0);
	KUNIT_EXPECT_EQ(test, rl_qent_sector(qe), 9000);
	KUNIT_EXPECT_EQ(test, hs.dir, 1);
}

static void rl_sched_look_sweep(struct kunit *test)
{
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 500, .dir = 1 };
	struct rl_qent *qe;

	rl_test_add(q, 100, 0, NULL);
	rl_test_add(q, 900, 0, NULL);
	rl_test_add(q, 450, 0, NULL);
	rl_test_add(q, 600, 0, NULL);
	/* up: 600 is nearest ahead (450 is nearer, but behind) */
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_EQ(test, qe->sector, 600);
	KUNIT_EXPECT_EQ(test, qe->chosen, 0);
	KUNIT_EXPECT_EQ(test, hs.dir, 1);
	list_del(&qe->node);
	hs.sector = 601;
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_EQ(test, qe->sector, 900);
	list_del(&qe->node);
	/* the end of the sweep: nothing above 901, turn down to 450 */
	hs.sector = 901;
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_EQ(test, qe->sector, 450);
	KUNIT_EXPECT_EQ(test, hs.dir, -1);
	list_del(&qe->node);
	/* down again: a new entry above waits for the next turn */
	hs.sector = 451;
	rl_test_add(q, 460, 0, NULL);
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_EQ(test, qe->sector, 100);
	KUNIT_EXPECT_EQ(test, hs.dir, -1);
	list_del(&qe->node);
	hs.sector = 101;
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_EQ(test, qe->sector, 460);
	KUNIT_EXPECT_EQ(test, hs.dir, 1);
}

static void rl_sched_look_ties(struct kunit *test)
{
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 500, .dir = 0 };
	struct rl_qent *qe;

	/* equal distance: the earlier arrival; dir 0 sweeps up */
	rl_test_add(q, 700, 0, NULL);
	rl_test_add(q, 520, 0, NULL);
	rl_test_add(q, 520, 0, NULL);
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[1]);
	KUNIT_EXPECT_EQ(test, hs.dir, 1);
	/* an entry at the head is ahead in either direction */
	rl_test_add(q, 500, 0, NULL);
	hs.dir = -1;
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[3]);
	KUNIT_EXPECT_EQ(test, hs.dir, -1);
	hs.dir = 1;
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[3]);
	/* a single entry behind: turn to it */
	q = rl_test_queue(test);
	rl_test_add(q, 10, 0, NULL);
	hs.dir = 1;
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, hs.dir, -1);
}

/* LOOK looks at replica 0 only; RLOOK at every replica. */
static void rl_sched_rlook_replicas(struct kunit *test)
{
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 100, .dir = 1 };
	static const sector_t p_more[] = { 150, 110 };
	struct rl_qent *qe;

	rl_test_add(q, 90, 3, p_more);	/* replicas 90, 150, 110 */
	rl_test_add(q, 120, 0, NULL);
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[1]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 0);

	hs.dir = 1;
	qe = rl_sched_rlook.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 2);
	KUNIT_EXPECT_EQ(test, rl_qent_sector(qe), 110);
	KUNIT_EXPECT_EQ(test, hs.dir, 1);

	/* sweeping down, replica 90 is the nearest ahead */
	hs.dir = -1;
	qe = rl_sched_rlook.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 0);
	KUNIT_EXPECT_EQ(test, hs.dir, -1);
}

/*
 * With a calibrated tracker RLOOK serves the rotationally closest replica:
 * at 6 ms (slot 24 under the head) replica 20 has just passed (44 slots to
 * wait) while replica 40 comes in 16.
 */
static void rl_sched_rlook_rotational(struct kunit *test)
{
	struct rl_tracker *t = rl_test_trk(test, RL_TEST_GEOM);
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 1, .dir = 1, .now_ns = 6000000 };
	static const sector_t more[] = { 20 };
	struct rl_qent *qe;

	rl_test_add(q, 40, 2, more);
	rl_test_add(q, 300, 0, NULL);
	/* not calibrated: the nearest ahead */
	t->calibrated = false;
	hs.trk = t;
	qe = rl_sched_rlook.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 1);
	t->calibrated = true;
	qe = rl_sched_rlook.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 0);
	KUNIT_EXPECT_EQ(test, rl_qent_sector(qe), 40);
}

/*
 * SATF: from slot 0 at time 0, sector 30 (same track) is 30 slots away
 * (7.75 ms with the transfer), sector 682 (next cylinder, slot 10) is a
 * 2.47 ms seek and 0.03 ms wait (2.75 ms): SATF takes the farther sector,
 * LOOK the nearer.
 */
static void rl_sched_satf_not_nearest(struct kunit *test)
{
	struct rl_tracker *t = rl_test_trk(test, RL_TEST_GEOM);
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 1, .dir = 1, .trk = t };
	struct rl_qent *qe;

	rl_test_add(q, 30, 0, NULL);
	rl_test_add(q, 682, 0, NULL);
	KUNIT_EXPECT_EQ(test, rl_tracker_predict(t, 1, 0, 30, 1), 7750000);
	KUNIT_EXPECT_EQ(test, rl_tracker_predict(t, 1, 0, 682, 1), 2750000);

	qe = rl_sched_satf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[1]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 0);
	qe = rl_sched_look.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);

	/* a little later slot 30 is closer than the seek */
	hs.now_ns = 6000000;
	qe = rl_sched_satf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
}

/* Uncalibrated or absent tracker: SATF is LOOK, RSATF is RLOOK. */
static void rl_sched_satf_fallback(struct kunit *test)
{
	struct rl_tracker *t = rl_test_trk(test, RL_TEST_GEOM);
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 1, .dir = -1 };
	static const sector_t more[] = { 8 };
	struct rl_qent *qe;

	rl_test_add(q, 30, 0, NULL);
	rl_test_add(q, 682, 0, NULL);
	rl_test_add(q, 40, 2, more);
	/* no tracker: LOOK, turning up at the bottom */
	qe = rl_sched_satf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, hs.dir, 1);
	hs.dir = 1;
	qe = rl_sched_rsatf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[2]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 1);
	/* a tracker without calibration: the same */
	t->calibrated = false;
	hs.trk = t;
	qe = rl_sched_satf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	qe = rl_sched_rsatf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[2]);
	/* a tracker without a geometry: the same */
	t->has_geom = false;
	qe = rl_sched_satf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	/* calibrated: the shortest access time */
	t->has_geom = true;
	t->calibrated = true;
	qe = rl_sched_satf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[1]);
}

/*
 * RSATF: replica 8 of the entry at 40 is 9 slots away (2.25 ms), better
 * than 682 (2.75 ms); SATF sees only replica 0 (40: 10.25 ms).
 */
static void rl_sched_rsatf_replicas(struct kunit *test)
{
	struct rl_tracker *t = rl_test_trk(test, RL_TEST_GEOM);
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 1, .dir = 1, .trk = t };
	static const sector_t more[] = { 8 };
	struct rl_qent *qe;

	rl_test_add(q, 40, 2, more);
	rl_test_add(q, 682, 0, NULL);
	qe = rl_sched_rsatf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[0]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 1);
	KUNIT_EXPECT_EQ(test, rl_qent_sector(qe), 8);
	qe = rl_sched_satf.pick(&q->list, &hs);
	KUNIT_EXPECT_PTR_EQ(test, qe, &q->qe[1]);
	KUNIT_EXPECT_EQ(test, qe->chosen, 0);
}

/* Equal predicted times: the earlier arrival. */
static void rl_sched_satf_ties(struct kunit *test)
{
	struct rl_tracker *t = rl_test_trk(test, RL_TEST_GEOM);
	struct rl_test_queue *q = rl_test_queue(test);
	struct rl_head_state hs = { .sector = 1, .dir = 1, .trk = t };
	static const sector_t more[] = { 20, 20 + 48 * 14 * 900 };

	/* the same slot of the same track, then a replica of it */
	rl_test_add(q, 20 + 48 * 14 * 900, 0, NULL);
	rl_test_add(q, 20, 0, NULL);
	rl_test_add(q, 20, 0, NULL);
	rl_test_add(q, 5000, 3, more);
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_satf.pick(&q->list, &hs), &q->qe[1]);
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_rsatf.pick(&q->list, &hs), &q->qe[1]);
	list_del(&q->qe[1].node);
	list_del(&q->qe[2].node);
	KUNIT_EXPECT_PTR_EQ(test, rl_sched_rsatf.pick(&q->list, &hs), &q->qe[3]);
	KUNIT_EXPECT_EQ(test, q->qe[3].chosen, 1);
}

/* The classes */

static void rl_sched_class_floor(struct kunit *test)
{
	unsigned int queued[RL_NR_CLASSES] = { 100, 100 };
	unsigned int fg_run = 0, bg = 0, i, last_bg = 0;

	/* continuous load of both: background 1 in RL_BG_FLOOR + 1 */
	for (i = 1; i <= 10 * (RL_BG_FLOOR + 1); i++) {
		enum rl_class c = rl_sched_class(queued, &fg_run);

		if (c == RL_BG) {
			bg++;
			KUNIT_EXPECT_EQ(test, i - last_bg, RL_BG_FLOOR + 1);
			last_bg = i;
		}
		KUNIT_EXPECT_LE(test, fg_run, RL_BG_FLOOR);
	}
	KUNIT_EXPECT_EQ(test, bg, 10);
}

static void rl_sched_class_single(struct kunit *test)
{
	unsigned int fg_only[RL_NR_CLASSES] = { 5, 0 };
	unsigned int bg_only[RL_NR_CLASSES] = { 0, 5 };
	unsigned int none[RL_NR_CLASSES] = { 0, 0 };
	unsigned int both[RL_NR_CLASSES] = { 5, 5 };
	unsigned int fg_run = 0, i;

	for (i = 0; i < 3 * RL_BG_FLOOR; i++)
		KUNIT_EXPECT_EQ(test, rl_sched_class(fg_only, &fg_run), RL_FG);
	/* foreground alone does not use up the floor */
	KUNIT_EXPECT_EQ(test, fg_run, 0);
	KUNIT_EXPECT_EQ(test, rl_sched_class(both, &fg_run), RL_FG);
	for (i = 0; i < 3 * RL_BG_FLOOR; i++)
		KUNIT_EXPECT_EQ(test, rl_sched_class(bg_only, &fg_run), RL_BG);
	KUNIT_EXPECT_EQ(test, rl_sched_class(none, &fg_run), RL_NR_CLASSES);
	/* background arriving during a foreground run: the run counts from then */
	fg_run = 0;
	for (i = 0; i < RL_BG_FLOOR; i++)
		KUNIT_EXPECT_EQ(test, rl_sched_class(both, &fg_run), RL_FG);
	KUNIT_EXPECT_EQ(test, rl_sched_class(both, &fg_run), RL_BG);
	KUNIT_EXPECT_EQ(test, rl_sched_class(both, &fg_run), RL_FG);
}

/*
 * A simulated disk: serve a queue with a policy, one request at a time,
 * each starting when the last ends (as predicted), and return the total
 * predicted time. The tracker is the disk.
 */
static u64 rl_sim_serve(struct rl_test_queue *q, const struct rl_sched_policy *p,
			struct rl_tracker *t)
{
	struct rl_head_state hs = { .sector = 0, .dir = 1, .trk = t };

	while (!list_empty(&q->list)) {
		struct rl_qent *qe = p->pick(&q->list, &hs);
		sector_t s = rl_qent_sector(qe);

		list_del(&qe->node);
		hs.now_ns += rl_tracker_predict(t, hs.sector, hs.now_ns, s,
						qe->sectors);
		hs.sector = s + qe->sectors;
	}
	return hs.now_ns;
}

static u32 rl_test_rand(u32 *state)
{
	*state = *state * 1664525 + 1013904223;
	return *state >> 8;
}

/* 32 random 4 KiB reads, each with a replica half a rotation away */
static void rl_sim_fill(struct rl_test_queue *q, u64 capacity)
{
	u32 seed = 2718, tracks = div_u64(capacity, 48);
	unsigned int i;

	INIT_LIST_HEAD(&q->list);
	q->nr = 0;
	for (i = 0; i < 32; i++) {
		sector_t s = (sector_t)(rl_test_rand(&seed) % tracks) * 48 + 8;
		sector_t more = s + 24;
		struct rl_qent *qe = rl_test_add(q, s, 2, &more);

		qe->sectors = 8;
	}
}

/* Paper 000's IBM Lightning, with skews */
#define RL_TEST_LIGHTNING "period_ns=13900000,cylinders=949,heads=14,spt=48,track_skew=4,cyl_skew=8,head_switch_ns=1000000,seek_a_ns=2000000,seek_b_ns=10000,seek_c_ns=460000,ref=0"

static void rl_sched_sim_satf_beats_fifo(struct kunit *test)
{
	struct rl_tracker *t = rl_test_trk(test, RL_TEST_LIGHTNING);
	struct rl_test_queue *q = rl_test_queue(test);
	u64 fifo, look, satf, rsatf;

	rl_sim_fill(q, t->geom.capacity);
	fifo = rl_sim_serve(q, &rl_sched_fifo, t);
	rl_sim_fill(q, t->geom.capacity);
	look = rl_sim_serve(q, &rl_sched_look, t);
	rl_sim_fill(q, t->geom.capacity);
	satf = rl_sim_serve(q, &rl_sched_satf, t);
	rl_sim_fill(q, t->geom.capacity);
	rsatf = rl_sim_serve(q, &rl_sched_rsatf, t);
	kunit_info(test, "32 requests: fifo %llu us, look %llu us, satf %llu us, rsatf %llu us",
		   div_u64(fifo, 1000), div_u64(look, 1000), div_u64(satf, 1000),
		   div_u64(rsatf, 1000));
	KUNIT_EXPECT_LT(test, look, fifo);
	KUNIT_EXPECT_LT(test, satf, look);
	KUNIT_EXPECT_LT(test, rsatf, satf);
}

static struct kunit_case rl_sched_test_cases[] = {
	KUNIT_CASE(rl_sched_find_names),
	KUNIT_CASE(rl_sched_fifo_order),
	KUNIT_CASE(rl_sched_look_sweep),
	KUNIT_CASE(rl_sched_look_ties),
	KUNIT_CASE(rl_sched_rlook_replicas),
	KUNIT_CASE(rl_sched_rlook_rotational),
	KUNIT_CASE(rl_sched_satf_not_nearest),
	KUNIT_CASE(rl_sched_satf_fallback),
	KUNIT_CASE(rl_sched_rsatf_replicas),
	KUNIT_CASE(rl_sched_satf_ties),
	KUNIT_CASE(rl_sched_class_floor),
	KUNIT_CASE(rl_sched_class_single),
	KUNIT_CASE(rl_sched_sim_satf_beats_fifo),
	{}
};

static struct kunit_suite rl_sched_test_suite = {
	.name = "dm_raidlab_sched",
	.test_cases = rl_sched_test_cases,
};

kunit_test_suite(rl_sched_test_suite);
