/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab per-member queues and their policies.
 *
 * Every member I/O of every scheme is an entry (struct rl_qent) in its
 * member's queue. A queue has two classes: foreground (what the array's
 * users asked for) and background (propagation, reintegration, rebuild,
 * resync). It keeps at most `depth` entries in flight on the member; when a
 * slot frees, the class is chosen by rl_sched_class() and the entry within
 * the class by the queue's policy:
 *
 *   fifo    arrival order
 *   look    CVSCAN/LOOK: sweep in one direction, nearest sector ahead of
 *           the head, turn at the last request
 *   rlook   LOOK that also picks, among an entry's rotational replicas on
 *           this member, the one nearest the head (SR-Array)
 *   satf    shortest predicted access time (seek + rotation + transfer)
 *           from the head-position tracker; LOOK until it is calibrated
 *   rsatf   SATF over every replica of every entry
 *
 * The policies are pure functions of the entries and the head state, so
 * they are tested on hand-built queues (sched_test.c); the queue plumbing
 * (locking, dispatch, completion) lives in member.c.
 */
#ifndef DM_RAIDLAB_SCHED_H
#define DM_RAIDLAB_SCHED_H

#include <linux/list.h>
#include <linux/types.h>

struct rl_tracker;

enum rl_class {
	RL_FG,			/* foreground: the array's own users */
	RL_BG,			/* background: rebuild, resync, reintegration */
	RL_NR_CLASSES,
};

/* Most rotational replicas one entry may offer (SR-Array's Dr). */
#define RL_SCHED_MAX_ALTS	8

/*
 * One member I/O waiting for, or holding, a slot on its member. The
 * submitter fills every field but node/seq/chosen and keeps the entry (and
 * @alt) alive until @submit has been called.
 */
struct rl_qent {
	struct list_head node;
	u64 seq;			/* arrival order, set by the queue */
	sector_t sector;		/* member sector (replica 0) */
	/*
	 * Rotational replicas on this member: NULL, or @nr_alts sectors with
	 * alt[0] == sector. Only the r* policies look past replica 0.
	 */
	const sector_t *alt;
	unsigned int nr_alts;
	unsigned int chosen;		/* replica the policy picked */
	unsigned int sectors;		/* length of the transfer */
	bool write;
	enum rl_class class;
	u64 issue_ns;			/* at dispatch; U64_MAX: none */
	u64 predicted_ns;		/* the tracker's access time, or U64_MAX */
	/* its predicted end in the queue's tail clock (member.c); U64_MAX: none */
	u64 end_ns;
	/*
	 * Issue the I/O at alt[chosen] (or sector). Called once, without the
	 * queue lock, in process or softirq-free work context.
	 */
	void (*submit)(struct rl_qent *qe);
};

/* Fill in @qe for a member I/O without rotational replicas. */
static inline void rl_qent_init(struct rl_qent *qe, sector_t sector,
				unsigned int sectors, bool write,
				enum rl_class class,
				void (*submit)(struct rl_qent *qe))
{
	qe->sector = sector;
	qe->alt = NULL;
	qe->nr_alts = 0;
	qe->sectors = sectors;
	qe->write = write;
	qe->class = class;
	qe->submit = submit;
}

static inline sector_t rl_qent_sector(const struct rl_qent *qe)
{
	return qe->alt ? qe->alt[qe->chosen] : qe->sector;
}

/*
 * What a policy knows about the member: where the head is, which way a
 * LOOK sweep goes, the time (ns, the tracker's clock) the next I/O can
 * start, and the tracker (NULL, or not calibrated: satf/rsatf fall back to
 * look/rlook).
 */
struct rl_head_state {
	sector_t sector;		/* sector after the last I/O issued */
	int dir;			/* LOOK sweep: +1 up, -1 down */
	u64 now_ns;
	const struct rl_tracker *trk;
};

/* One queue policy. */
struct rl_sched_policy {
	const char *name;
	/* the policy chooses among rotational replicas (rlook, rsatf) */
	bool replicas;
	/*
	 * ->pick takes the first entry and keeps no head state (fifo): an I/O
	 * that finds the queue empty may be issued without it (member.c).
	 */
	bool in_order;
	/*
	 * Choose the next entry of @list (not empty, in arrival order), set
	 * its ->chosen, and update @hs->dir if the policy sweeps. Pure: no
	 * locks, no I/O, no sleeping; the caller holds the queue lock and
	 * removes the entry.
	 */
	struct rl_qent *(*pick)(struct list_head *list,
				struct rl_head_state *hs);
};

extern const struct rl_sched_policy rl_sched_fifo;
extern const struct rl_sched_policy rl_sched_look;
extern const struct rl_sched_policy rl_sched_rlook;
extern const struct rl_sched_policy rl_sched_satf;
extern const struct rl_sched_policy rl_sched_rsatf;

/* The policy called @name, or NULL. */
const struct rl_sched_policy *rl_sched_find(const char *name);

/*
 * The background floor: after RL_BG_FLOOR foreground dispatches in a row
 * while background work waits, one background entry goes next.
 */
#define RL_BG_FLOOR		8

/*
 * Which class to dispatch from, given how many entries wait in each and
 * how many foreground entries went in a row (*fg_run, updated). Returns
 * RL_NR_CLASSES if nothing waits. Pure.
 */
enum rl_class rl_sched_class(const unsigned int queued[RL_NR_CLASSES],
			     unsigned int *fg_run);

#endif /* DM_RAIDLAB_SCHED_H */
