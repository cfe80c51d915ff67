// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab queue policies (see sched.h): which waiting entry of a member
 * queue goes next, and which class. Pure functions of the entries and the
 * head state: no locks, no I/O.
 *
 * Ties go to the earliest arrival: every policy walks the list in arrival
 * order and replaces its choice only on a strictly better one.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "sched.h"
#include "tracker.h"

static unsigned int rl_nr_replicas(const struct rl_qent *qe, bool replicas)
{
	if (!replicas || !qe->alt || !qe->nr_alts)
		return 1;
	return min_t(unsigned int, qe->nr_alts, RL_SCHED_MAX_ALTS);
}

static sector_t rl_replica(const struct rl_qent *qe, unsigned int i)
{
	return qe->alt ? qe->alt[i] : qe->sector;
}

/* fifo: the oldest entry. */
static struct rl_qent *rl_fifo_pick(struct list_head *list,
				    struct rl_head_state *hs)
{
	struct rl_qent *qe = list_first_entry(list, struct rl_qent, node);

	qe->chosen = 0;
	return qe;
}

/*
 * The LOOK sweep. Distance from the head to @s in direction @dir, or false
 * if @s lies behind.
 */
static bool rl_ahead(sector_t head, int dir, sector_t s, sector_t *dist)
{
	if (dir >= 0 && s >= head) {
		*dist = s - head;
		return true;
	}
	if (dir < 0 && s <= head) {
		*dist = head - s;
		return true;
	}
	return false;
}

/*
 * The entry (and its replica, in *@chosen) nearest ahead of the head in
 * direction @dir, considering every replica if @replicas; NULL if none is
 * ahead.
 */
static struct rl_qent *rl_look_scan(struct list_head *list, sector_t head,
				    int dir, bool replicas, unsigned int *chosen)
{
	struct rl_qent *qe, *best = NULL;
	sector_t best_dist = 0;

	list_for_each_entry(qe, list, node) {
		unsigned int i, n = rl_nr_replicas(qe, replicas);

		for (i = 0; i < n; i++) {
			sector_t d;

			if (!rl_ahead(head, dir, rl_replica(qe, i), &d))
				continue;
			if (!best || d < best_dist) {
				best = qe;
				best_dist = d;
				*chosen = i;
			}
		}
	}
	return best;
}

/*
 * LOOK (CVSCAN with no bias): the entry nearest ahead of the head in the
 * sweep direction (hs->dir, 0 counts as up); when nothing is ahead, the
 * sweep turns. An entry at the head's sector is ahead either way.
 */
static struct rl_qent *rl_look_common(struct list_head *list,
				      struct rl_head_state *hs, bool replicas)
{
	unsigned int chosen = 0;
	struct rl_qent *qe;
	int dir = hs->dir < 0 ? -1 : 1;

	qe = rl_look_scan(list, hs->sector, dir, replicas, &chosen);
	if (!qe) {
		dir = -dir;
		qe = rl_look_scan(list, hs->sector, dir, replicas, &chosen);
	}
	hs->dir = dir;
	qe->chosen = chosen;
	return qe;
}

static struct rl_qent *rl_look_pick(struct list_head *list,
				    struct rl_head_state *hs)
{
	return rl_look_common(list, hs, false);
}

/*
 * Among @qe's replicas (all of them if @replicas, else replica 0), the one
 * with the shortest predicted access time from the head; its time in *@best.
 */
static unsigned int rl_fastest_replica(const struct rl_qent *qe,
				       const struct rl_head_state *hs,
				       bool replicas, u64 *best)
{
	unsigned int i, n = rl_nr_replicas(qe, replicas), chosen = 0;

	*best = U64_MAX;
	for (i = 0; i < n; i++) {
		u64 t = rl_tracker_predict(hs->trk, hs->sector, hs->now_ns,
					   rl_replica(qe, i), qe->sectors);

		if (i == 0 || t < *best) {
			*best = t;
			chosen = i;
		}
	}
	return chosen;
}

/*
 * RLOOK: LOOK in which an entry is as far as its nearest replica ahead.
 * The replica served is that one, or, once the tracker is calibrated, the
 * entry's replica with the shortest predicted access time: replicas of one
 * block sit on nearby cylinders at different angles (SR-Array), so this is
 * the rotationally closest one, and a replica on a far cylinder loses by
 * its seek.
 */
static struct rl_qent *rl_rlook_pick(struct list_head *list,
				     struct rl_head_state *hs)
{
	struct rl_qent *qe = rl_look_common(list, hs, true);
	u64 t;

	if (rl_tracker_ready(hs->trk))
		qe->chosen = rl_fastest_replica(qe, hs, true, &t);
	return qe;
}

/*
 * SATF: the entry with the shortest predicted access time (seek, rotation,
 * transfer) from where the head is at hs->now_ns; over every replica if
 * @replicas (RSATF). Until the tracker is calibrated: LOOK (RLOOK).
 */
static struct rl_qent *rl_satf_common(struct list_head *list,
				      struct rl_head_state *hs, bool replicas)
{
	struct rl_qent *qe, *best = NULL;
	unsigned int best_replica = 0;
	u64 best_t = U64_MAX;

	if (!rl_tracker_ready(hs->trk))
		return replicas ? rl_rlook_pick(list, hs) : rl_look_pick(list, hs);

	list_for_each_entry(qe, list, node) {
		u64 t;
		unsigned int r = rl_fastest_replica(qe, hs, replicas, &t);

		if (!best || t < best_t) {
			best = qe;
			best_t = t;
			best_replica = r;
		}
	}
	best->chosen = best_replica;
	return best;
}

static struct rl_qent *rl_satf_pick(struct list_head *list,
				    struct rl_head_state *hs)
{
	return rl_satf_common(list, hs, false);
}

static struct rl_qent *rl_rsatf_pick(struct list_head *list,
				     struct rl_head_state *hs)
{
	return rl_satf_common(list, hs, true);
}

const struct rl_sched_policy rl_sched_fifo = {
	.name = "fifo",
	.replicas = false,
	.in_order = true,
	.pick = rl_fifo_pick,
};

const struct rl_sched_policy rl_sched_look = {
	.name = "look",
	.replicas = false,
	.pick = rl_look_pick,
};

const struct rl_sched_policy rl_sched_rlook = {
	.name = "rlook",
	.replicas = true,
	.pick = rl_rlook_pick,
};

const struct rl_sched_policy rl_sched_satf = {
	.name = "satf",
	.replicas = false,
	.pick = rl_satf_pick,
};

const struct rl_sched_policy rl_sched_rsatf = {
	.name = "rsatf",
	.replicas = true,
	.pick = rl_rsatf_pick,
};

static const struct rl_sched_policy *const rl_sched_policies[] = {
	&rl_sched_fifo,
	&rl_sched_look,
	&rl_sched_rlook,
	&rl_sched_satf,
	&rl_sched_rsatf,
};

const struct rl_sched_policy *rl_sched_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rl_sched_policies); i++)
		if (!strcasecmp(rl_sched_policies[i]->name, name))
			return rl_sched_policies[i];
	return NULL;
}

/*
 * Foreground first; but when RL_BG_FLOOR foreground entries went in a row
 * while background entries waited, one background entry goes. The run only
 * counts while background work waits, so under continuous load of both
 * classes background gets one dispatch in RL_BG_FLOOR + 1.
 */
enum rl_class rl_sched_class(const unsigned int queued[RL_NR_CLASSES],
			     unsigned int *fg_run)
{
	if (!queued[RL_BG]) {
		*fg_run = 0;
		return queued[RL_FG] ? RL_FG : RL_NR_CLASSES;
	}
	if (queued[RL_FG] && *fg_run < RL_BG_FLOOR) {
		(*fg_run)++;
		return RL_FG;
	}
	*fg_run = 0;
	return RL_BG;
}
