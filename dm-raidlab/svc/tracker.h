/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab head-position tracker (Yu et al., SR-Array, section 3.2).
 *
 * A member disk's geometry (struct rl_disk_geom) comes from calibration by
 * timed reads (a tool outside the kernel) and is loaded with the message
 * `geom <member> <line>`. From it and a rotation phase, the tracker predicts
 * the access time of a request: seek, rotational wait to the target's
 * angle, transfer with its track switches.
 *
 * The phase comes from periodic reads of a reference sector: the time
 * between two such completions is an integral number of rotations plus
 * overhead, so the period is refined over growing intervals by a least
 * squares fit of the completion times against their rotation numbers.
 * Completions of ordinary requests nudge the phase between reference reads.
 *
 * Units: times are nanoseconds of one monotonic clock chosen by the caller
 * (ktime_get_ns()); rotations are kept in fixed point, RL_TRK_FRAC bits
 * below the nanosecond; lengths and skews are in 512-byte sectors; angles
 * are sector slots of the track (slot s starts s/spt of a rotation after
 * the index). No floating point, 64-bit maths through div64/mul helpers so
 * it builds on 32-bit. No locking inside: the caller serializes every call
 * on one tracker (the member's queue lock), status included (it sorts in
 * the tracker's scratch space).
 *
 * Use, per member (struct rl_tracker is about 9 KiB: allocate it):
 *  - `geom <member> <line>`: rl_disk_geom_parse() (pure, outside the lock),
 *    then rl_tracker_set_geom() under the lock;
 *  - reference reads: when rl_tracker_next_ref_ns() has passed and nothing
 *    is in flight on the member, read one sector at geom.ref; stamp the
 *    issue just before submitting and the completion in its end_io, and
 *    pass both to rl_tracker_ref_sample();
 *  - dispatch: the head state's now_ns is the issue time; if
 *    rl_tracker_ready(), keep rl_tracker_predict(trk, head, now_ns, sector,
 *    sectors) with the I/O (else U64_MAX). The prediction assumes the disk
 *    starts the I/O at once: make it only for I/Os issued to an idle member
 *    (depth 1), else pass U64_MAX;
 *  - completion: rl_tracker_observe() with the same sector, length, issue
 *    time, prediction and the completion time stamp (end_io context: the
 *    lock must be irq-safe).
 */
#ifndef DM_RAIDLAB_TRACKER_H
#define DM_RAIDLAB_TRACKER_H

#include <linux/bits.h>
#include <linux/types.h>

#define RL_GEOM_MAX_ZONES	16

/* Bounds the parser enforces (and the maths relies on). */
#define RL_GEOM_MIN_PERIOD_NS	100000ULL		/* 600 000 rpm */
#define RL_GEOM_MAX_PERIOD_NS	1000000000ULL		/* 60 rpm: slowed emulated disks */
#define RL_GEOM_MAX_CYLINDERS	BIT(22)
#define RL_GEOM_MAX_HEADS	255U
#define RL_GEOM_MAX_SPT		8192U
#define RL_GEOM_MAX_TIME_NS	1000000000ULL	/* any seek term, head switch */

/* One recording zone: cylinders from @first_cyl to the next zone's. */
struct rl_geom_zone {
	u32 first_cyl;
	u32 spt;			/* sectors per track */
	u64 first_lba;			/* derived: first sector of the zone */
};

/*
 * A disk's geometry, as calibration measures it. Tracks are numbered
 * cylinder by cylinder, heads within a cylinder; logical sector 0 of a track
 * sits track_skew slots after that of the previous track of its cylinder,
 * cyl_skew slots after it across a cylinder boundary (counted from the
 * zone's first track). Seek time over d > 0 cylinders is
 * seek_a_ns + seek_b_ns * d + seek_c_ns * sqrt(d); a head switch on one
 * cylinder costs head_switch_ns. @ref is the reference sector the tracker
 * reads.
 */
struct rl_disk_geom {
	u64 period_ns;
	u32 cylinders;
	u32 heads;
	u32 nr_zones;			/* 1 when given as spt= */
	bool zoned;			/* given as zones= (for the formatter) */
	struct rl_geom_zone zone[RL_GEOM_MAX_ZONES];
	u32 track_skew;
	u32 cyl_skew;
	u64 head_switch_ns;
	u64 seek_a_ns;
	u64 seek_b_ns;
	u64 seek_c_ns;
	u64 ref;
	u64 capacity;			/* derived: sectors */
};

/* Where a sector is. */
struct rl_chs {
	u32 cyl;
	u32 head;
	u32 sector;			/* logical sector in its track */
	u32 spt;			/* sectors per track of its zone */
	u32 slot;			/* angle: slot the sector starts at */
	u64 track_lba;			/* first sector of its track */
};

int rl_disk_geom_parse(const char *s, struct rl_disk_geom *g, char **error);
int rl_disk_geom_check(struct rl_disk_geom *g, char **error);
int rl_disk_geom_format(const struct rl_disk_geom *g, char *buf, size_t len);
void rl_disk_geom_chs(const struct rl_disk_geom *g, u64 lba, struct rl_chs *c);
u64 rl_disk_seek_ns(const struct rl_disk_geom *g, u32 from_cyl, u32 to_cyl);

/* Fraction bits of the fixed-point rotation period (ns << RL_TRK_FRAC). */
#define RL_TRK_FRAC		8
/* Reference samples kept for the period fit. */
#define RL_TRK_REFS		8
/* Reference samples before the tracker calls itself calibrated. */
#define RL_TRK_MIN_REFS		3
/* Requests kept for the demerit (predicted and measured access times). */
#define RL_TRK_WINDOW		512
/* Requests per slack feedback window. */
#define RL_TRK_SLACK_WINDOW	256
/* Clean windows (no miss) before the slack shrinks by one sector. */
#define RL_TRK_SLACK_CLEAN	4
/* Slack a freshly loaded geometry starts with (sectors). */
#define RL_TRK_SLACK_INIT	2
/* The error moments are halved every so many requests (forgetting). */
#define RL_TRK_STATS_HALVE	65536

/* One reference sample: the index passed at anchor + t_fp, rotation @rot. */
struct rl_trk_ref {
	u64 rot;			/* rotation number (the fit's x) */
	s64 t_fp;			/* ns << RL_TRK_FRAC after the anchor */
};

/*
 * One member's tracker. Zero it, then rl_tracker_set_geom(). Every field
 * is read by the status formatter; the caller holds the member's lock.
 */
struct rl_tracker {
	struct rl_disk_geom geom;
	bool has_geom;
	bool calibrated;		/* RL_TRK_MIN_REFS fitted samples */

	/* rotation model */
	u64 period_fp;			/* ns << RL_TRK_FRAC */
	u64 phase_ns;			/* index (slot 0) seen passing at this time */

	/* reference samples: t = anchor + rot * period, least squares */
	u64 anchor_ns;
	struct rl_trk_ref ref[RL_TRK_REFS];
	unsigned int nr_ref;		/* in ref[], oldest first */
	u64 refs;			/* accepted since the geometry was set */
	u64 refs_rejected;
	u64 restarts;			/* fits that failed: started over */
	u64 last_cal_ns;		/* time of the last reference sample */

	/* slack and its feedback loop */
	u32 slack;			/* sectors */
	u32 win_n, win_miss;		/* current feedback window */
	u32 clean_windows;

	/* prediction error, over requests that were on target */
	u64 n;				/* requests observed (halved) */
	u64 misses;			/* took about a rotation longer (halved) */
	u64 early;			/* took about a rotation less (halved) */
	u64 on_target;			/* (halved) */
	s64 err_sum;			/* ns */
	u64 err_sq_sum;			/* ns^2 >> RL_TRK_SQ_SHIFT */
	u64 total;			/* requests observed, never halved */
	u64 total_misses;

	/* the last RL_TRK_WINDOW access times, for the demerit */
	u32 win_pred[RL_TRK_WINDOW];	/* ns */
	u32 win_meas[RL_TRK_WINDOW];	/* ns */
	unsigned int win_next, win_len;
	u32 scratch[2][RL_TRK_WINDOW];	/* sorted copies, for the demerit */
};

#define RL_TRK_SQ_SHIFT		10

/* Summary statistics, as the status line reports them. */
struct rl_trk_stats {
	u64 n;
	s64 mean_ns;
	u64 std_ns;
	u32 miss_ppm;			/* misses per million requests */
	u64 demerit_ns;
	u64 mean_access_ns;		/* of the demerit window */
};

void rl_tracker_set_geom(struct rl_tracker *t, const struct rl_disk_geom *g);
void rl_tracker_ref_sample(struct rl_tracker *t, u64 issue_ns, u64 done_ns);
u64 rl_tracker_next_ref_ns(const struct rl_tracker *t);
u64 rl_tracker_predict(const struct rl_tracker *t, sector_t head,
		       u64 start_ns, sector_t sector, unsigned int sectors);
void rl_tracker_observe(struct rl_tracker *t, sector_t sector,
			unsigned int sectors, u64 issue_ns, u64 done_ns,
			u64 predicted_ns);
void rl_tracker_stats(struct rl_tracker *t, struct rl_trk_stats *s);
void rl_tracker_status(struct rl_tracker *t, u64 now_ns, char *result,
		       unsigned int maxlen, unsigned int *sz);

static inline bool rl_tracker_ready(const struct rl_tracker *t)
{
	return t && t->has_geom && t->calibrated;
}

#endif /* DM_RAIDLAB_TRACKER_H */
