// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab head-position tracker: access-time prediction on a disk
 * geometry (geom.c), the rotation phase from reference reads, prediction
 * error statistics and the slack feedback loop. Pure maths, no locks, no
 * I/O (see tracker.h).
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "tracker.h"

/* Ordinary completions move the phase by 1/RL_TRK_PHASE_GAIN of their error. */
#define RL_TRK_PHASE_GAIN	16
/* ... when that error is within 1/RL_TRK_PHASE_GATE of a rotation. */
#define RL_TRK_PHASE_GATE	8
/* Rotations a reference fit may span (bounds the sums). */
#define RL_TRK_MAX_SPAN		BIT_ULL(21)
/* The first reference read after the geometry, in rotations; then doubling. */
#define RL_TRK_REF_FIRST	8
#define RL_TRK_REF_MAX_NS	(120ULL * NSEC_PER_SEC)
/* A fitted period stays within 1/RL_TRK_GEOM_TOL of the geometry's. */
#define RL_TRK_GEOM_TOL		25
/* A seek to an imagined cylinder far past the disk counts at most this. */
#define RL_TRK_MAX_MOVE_NS	(1000ULL * NSEC_PER_SEC)
/* The demerit's differences saturate here (ns). */
#define RL_TRK_DEMERIT_MAX	67108864LL	/* 2^26 */

/**
 * rl_tracker_set_geom() - (re)start a tracker on a geometry
 * @t: the tracker; everything it learnt is forgotten
 * @g: a checked geometry
 *
 * The period starts at the geometry's; the tracker is not calibrated until
 * RL_TRK_MIN_REFS reference samples have been fitted.
 */
void rl_tracker_set_geom(struct rl_tracker *t, const struct rl_disk_geom *g)
{
	memset(t, 0, sizeof(*t));
	t->geom = *g;
	t->has_geom = true;
	t->period_fp = g->period_ns << RL_TRK_FRAC;
	t->slack = min_t(u32, RL_TRK_SLACK_INIT, g->zone[0].spt / 2);
}

/* The angle (fixed-point ns into the rotation) at @time_ns. */
static u64 rl_trk_angle_fp(const struct rl_tracker *t, u64 time_ns)
{
	s64 rel = (s64)(time_ns - t->phase_ns);
	u64 mag = rel < 0 ? -(u64)rel : (u64)rel;
	u64 rem;

	mag = min_t(u64, mag, U64_MAX >> (RL_TRK_FRAC + 1));
	div64_u64_rem(mag << RL_TRK_FRAC, t->period_fp, &rem);
	if (rel < 0 && rem)
		rem = t->period_fp - rem;
	return rem;
}

/* Where slot @slot of a track of @spt slots passes, fixed point. */
static u64 rl_trk_slot_fp(const struct rl_tracker *t, u32 slot, u32 spt)
{
	return div_u64(t->period_fp * slot, spt);
}

/* How long from angle @from to angle @to, forwards (fixed point). */
static u64 rl_trk_wait_fp(const struct rl_tracker *t, u64 from, u64 to)
{
	return to >= from ? to - from : t->period_fp - from + to;
}

/* The end of sector @lba's slot, as an angle. */
static u64 rl_trk_end_angle_fp(const struct rl_tracker *t, u64 lba)
{
	struct rl_chs c;
	u64 a;

	rl_disk_geom_chs(&t->geom, lba, &c);
	a = rl_trk_slot_fp(t, c.slot + 1, c.spt);
	return a >= t->period_fp ? a - t->period_fp : a;
}

/**
 * rl_tracker_predict() - predicted access time of a request
 * @t: the tracker (with a geometry)
 * @head: the sector after the last I/O issued: the arm is on the track of
 *        @head - 1
 * @start_ns: when the request can start (the disk is idle from then)
 * @sector: first sector of the request
 * @sectors: its length (0 counts as 1)
 *
 * Seek (or head switch) to the target track; rotational wait until the
 * target's slot passes, a whole rotation more if the head would arrive less
 * than the slack (t->slack sectors) before it; then transfer at the track's
 * media rate, with a head switch or a one-cylinder seek and the rotational
 * wait to the next track's first sector at each track boundary (the skews
 * normally make that wait short). The time is measured to the completion
 * the host sees: the phase already holds the completion overhead.
 *
 * The cost is one step per track the request spans.
 *
 * Return: ns from @start_ns to the completion, or U64_MAX without a
 * geometry.
 */
u64 rl_tracker_predict(const struct rl_tracker *t, sector_t head,
		       u64 start_ns, sector_t sector, unsigned int sectors)
{
	const struct rl_disk_geom *g = &t->geom;
	struct rl_chs from, c;
	u64 a0, x, move, lba;

	if (!t->has_geom)
		return U64_MAX;
	sectors = max(sectors, 1U);
	rl_disk_geom_chs(g, head ? head - 1 : 0, &from);
	rl_disk_geom_chs(g, sector, &c);
	if (c.cyl != from.cyl)
		move = max(rl_disk_seek_ns(g, from.cyl, c.cyl), g->head_switch_ns);
	else if (c.head != from.head)
		move = g->head_switch_ns;
	else
		move = 0;

	a0 = rl_trk_angle_fp(t, start_ns);
	x = min(move, RL_TRK_MAX_MOVE_NS) << RL_TRK_FRAC;
	for (lba = sector;;) {
		u64 arrive, wait;
		u32 seg;

		div64_u64_rem(a0 + x, t->period_fp, &arrive);
		wait = rl_trk_wait_fp(t, arrive, rl_trk_slot_fp(t, c.slot, c.spt));
		/* the slack applies to the positioning, not to the skews */
		if (lba == sector &&
		    wait < rl_trk_slot_fp(t, t->slack, c.spt))
			wait += t->period_fp;
		x += wait;

		seg = min_t(u32, sectors, c.spt - c.sector);
		x += rl_trk_slot_fp(t, seg, c.spt);
		sectors -= seg;
		if (!sectors)
			break;
		lba += seg;
		rl_disk_geom_chs(g, lba, &from);
		swap(from, c);	/* from: the track just read, c: the next */
		if (c.cyl != from.cyl)
			move = max(rl_disk_seek_ns(g, from.cyl, c.cyl),
				   g->head_switch_ns);
		else
			move = g->head_switch_ns;
		x += min(move, RL_TRK_MAX_MOVE_NS) << RL_TRK_FRAC;
	}
	return x >> RL_TRK_FRAC;
}

/*
 * Fit the reference samples: t_i = A + rot_i * P by least squares on the
 * residuals from the current period (which keeps the sums small), then set
 * the period, the phase (at the newest sample's rotation) and rebase so the
 * oldest sample is rotation 0 at the anchor.
 *
 * Returns false, changing nothing, if three or more samples do not fit: the
 * period moves by more than 2 %, or a sample lies more than 1/8 rotation
 * off the fitted line (a miscounted rotation; honest overhead jitter is far
 * smaller). Any fit, two samples' too, is refused if its period is more
 * than 1/RL_TRK_GEOM_TOL (4 %) from the loaded geometry's: a reference
 * read seen late (a stalled CPU) would otherwise set a wrong period that
 * the following intervals count with and then confirm. The geometry's
 * period may be a few per cent off; the first interval (RL_TRK_REF_FIRST
 * rotations) counts right while it is within 1 / (2 * 8) = 6 %.
 */
static bool rl_trk_fit(struct rl_tracker *t)
{
	s64 n = t->nr_ref, sn = 0, snn = 0, sr = 0, snr = 0, sxx, sxy;
	s64 b = 0, a_sum = 0, p;
	s64 g_fp = (s64)(t->geom.period_ns << RL_TRK_FRAC);
	u64 base = t->ref[0].rot, shift_ns;
	unsigned int i;

	for (i = 0; i < t->nr_ref; i++) {
		s64 ni = t->ref[i].rot - base;
		s64 ri = (t->ref[i].t_fp - (s64)(t->ref[i].rot * t->period_fp)) >>
			 RL_TRK_FRAC;

		sn += ni;
		snn += ni * ni;
		sr += ri;
		snr += ni * ri;
	}
	sxx = n * snn - sn * sn;
	sxy = n * snr - sn * sr;
	if (sxx > 0) {
		if (abs(sxy) > (1LL << 54))
			return false;
		b = div64_s64(sxy * (1 << RL_TRK_FRAC), sxx);
		if (n > 2 && abs(b) * 50 > (s64)t->period_fp)
			return false;
	}
	p = t->period_fp + b;
	if (abs(p - g_fp) * RL_TRK_GEOM_TOL > g_fp)
		return false;
	for (i = 0; i < t->nr_ref; i++)
		a_sum += t->ref[i].t_fp - (s64)(t->ref[i].rot * p);
	a_sum = div64_s64(a_sum, n);	/* the index time at rotation 0 */
	for (i = 0; n > 2 && i < t->nr_ref; i++) {
		s64 r = t->ref[i].t_fp - (s64)(t->ref[i].rot * p) - a_sum;

		if (abs(r) > p / RL_TRK_PHASE_GATE)
			return false;
	}
	t->period_fp = p;

	/* the phase at the newest sample's rotation (kept near now) */
	t->phase_ns = t->anchor_ns +
		((a_sum + (s64)(t->ref[t->nr_ref - 1].rot * p)) >> RL_TRK_FRAC);

	/* rebase: rotation numbers and times from the oldest sample */
	shift_ns = (base * p) >> RL_TRK_FRAC;
	t->anchor_ns += shift_ns;
	for (i = 0; i < t->nr_ref; i++) {
		t->ref[i].rot -= base;
		t->ref[i].t_fp -= (s64)(shift_ns << RL_TRK_FRAC);
	}
	return true;
}

/**
 * rl_tracker_ref_sample() - a read of the reference sector completed
 * @t: the tracker
 * @issue_ns: when it was issued
 * @done_ns: when its completion was seen
 *
 * The index passed the head end-angle(ref) before @done_ns (plus the
 * completion overhead, which stays in the phase). The sample's rotation
 * number is counted from the anchor with the current period, then the
 * period and phase are refitted over the last RL_TRK_REFS samples. Call it
 * for reads issued to an idle member, so that nothing else delayed them.
 */
void rl_tracker_ref_sample(struct rl_tracker *t, u64 issue_ns, u64 done_ns)
{
	struct rl_trk_ref r;
	s64 x;

	if (!t->has_geom || done_ns < issue_ns) {
		t->refs_rejected++;
		return;
	}
	if (!t->nr_ref)
		t->anchor_ns = done_ns;
	r.t_fp = (s64)((done_ns - t->anchor_ns) << RL_TRK_FRAC) -
		 (s64)rl_trk_end_angle_fp(t, t->geom.ref);
	if (!t->nr_ref) {
		r.rot = 0;
	} else {
		/* rotations since the fit's rotation 0 */
		s64 a = t->ref[0].t_fp;

		if (t->nr_ref > 1)
			a = (s64)((t->phase_ns - t->anchor_ns) << RL_TRK_FRAC) -
			    (s64)(t->ref[t->nr_ref - 1].rot * t->period_fp);
		x = r.t_fp - a;
		if (x < 0 || (u64)x > RL_TRK_MAX_SPAN * t->period_fp) {
			t->refs_rejected++;
			return;
		}
		r.rot = div64_u64((u64)x + t->period_fp / 2, t->period_fp);
		if (r.rot <= t->ref[t->nr_ref - 1].rot) {
			/* same rotation as the last sample: too close to count */
			t->refs_rejected++;
			return;
		}
	}
	while (t->nr_ref &&
	       (t->nr_ref == RL_TRK_REFS ||
		r.rot - t->ref[0].rot > RL_TRK_MAX_SPAN)) {
		memmove(&t->ref[0], &t->ref[1], --t->nr_ref * sizeof(t->ref[0]));
	}
	t->ref[t->nr_ref++] = r;
	if (!rl_trk_fit(t)) {
		/*
		 * Start over from this sample, with the geometry's period: the
		 * one we had may be what went wrong.
		 */
		t->ref[0] = t->ref[t->nr_ref - 1];
		t->nr_ref = 1;
		t->period_fp = t->geom.period_ns << RL_TRK_FRAC;
		t->calibrated = false;
		t->refs = 0;
		t->restarts++;
		rl_trk_fit(t);
	}
	t->refs++;
	t->last_cal_ns = done_ns;
	if (t->refs >= RL_TRK_MIN_REFS)
		t->calibrated = true;
}

/**
 * rl_tracker_next_ref_ns() - when to read the reference sector next
 * @t: the tracker
 *
 * The intervals grow: RL_TRK_REF_FIRST rotations after the first sample,
 * doubling with every sample, at most two minutes (the paper's interval).
 *
 * Return: a time on the tracker's clock; 0 (now) before the first sample.
 */
u64 rl_tracker_next_ref_ns(const struct rl_tracker *t)
{
	u64 iv;

	if (!t->has_geom || !t->refs)
		return 0;
	iv = (t->period_fp >> RL_TRK_FRAC) * RL_TRK_REF_FIRST;
	iv <<= min_t(u64, t->refs - 1, 30);
	return t->last_cal_ns + min(iv, RL_TRK_REF_MAX_NS);
}

/* The slack feedback loop, once per observed request. */
static void rl_trk_slack(struct rl_tracker *t, bool miss)
{
	t->win_n++;
	t->win_miss += miss;
	if (t->win_n < RL_TRK_SLACK_WINDOW)
		return;
	if (t->win_miss * 100 > t->win_n) {
		/* more than 1 % missed: more slack */
		if (t->slack < t->geom.zone[0].spt / 2)
			t->slack++;
		t->clean_windows = 0;
	} else if (!t->win_miss) {
		/* none missed for a while: try less */
		if (++t->clean_windows >= RL_TRK_SLACK_CLEAN) {
			if (t->slack)
				t->slack--;
			t->clean_windows = 0;
		}
	} else {
		t->clean_windows = 0;
	}
	t->win_n = 0;
	t->win_miss = 0;
}

/**
 * rl_tracker_observe() - an ordinary request completed
 * @t: the tracker
 * @sector: its first sector
 * @sectors: its length
 * @issue_ns: when it was issued (the @start_ns of its prediction)
 * @done_ns: when its completion was seen
 * @predicted_ns: rl_tracker_predict() at dispatch, or U64_MAX if none
 *
 * Once calibrated, the completion angle moves the phase: the request ended
 * when its last sector's slot ended, whatever the seek took, so the
 * difference (modulo a rotation) is phase error; within 1/8 rotation it is
 * taken in with gain 1/16. With a prediction, the error (measured -
 * predicted access time) goes into the statistics: a miss if it is more
 * than half a rotation late, early if half a rotation early, else on target
 * (mean and deviation are over those); and into the slack loop.
 */
void rl_tracker_observe(struct rl_tracker *t, sector_t sector,
			unsigned int sectors, u64 issue_ns, u64 done_ns,
			u64 predicted_ns)
{
	s64 err, half;
	u64 meas;
	bool miss;

	if (!t->has_geom || done_ns < issue_ns)
		return;
	if (t->calibrated) {
		u64 end = rl_trk_end_angle_fp(t, sector + max(sectors, 1U) - 1);
		s64 r = rl_trk_angle_fp(t, done_ns) - end;

		if (r > (s64)(t->period_fp / 2))
			r -= t->period_fp;
		else if (r <= -(s64)(t->period_fp / 2))
			r += t->period_fp;
		if (abs(r) <= (s64)(t->period_fp / RL_TRK_PHASE_GATE))
			t->phase_ns += (r >> RL_TRK_FRAC) / RL_TRK_PHASE_GAIN;
	}
	if (predicted_ns == U64_MAX)
		return;

	meas = done_ns - issue_ns;
	err = (s64)(meas - predicted_ns);
	half = t->period_fp >> (RL_TRK_FRAC + 1);
	miss = err > half;
	t->n++;
	t->total++;
	if (miss) {
		t->misses++;
		t->total_misses++;
	} else if (err < -half) {
		t->early++;
	} else {
		t->on_target++;
		t->err_sum += err;
		t->err_sq_sum += (u64)(err * err) >> RL_TRK_SQ_SHIFT;
	}
	t->win_pred[t->win_next] = min_t(u64, predicted_ns, U32_MAX);
	t->win_meas[t->win_next] = min_t(u64, meas, U32_MAX);
	t->win_next = (t->win_next + 1) % RL_TRK_WINDOW;
	t->win_len = min(t->win_len + 1, RL_TRK_WINDOW);
	rl_trk_slack(t, miss);

	if (t->n >= RL_TRK_STATS_HALVE) {
		t->n /= 2;
		t->misses /= 2;
		t->early /= 2;
		t->on_target /= 2;
		t->err_sum /= 2;
		t->err_sq_sum /= 2;
	}
}

static int rl_trk_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/**
 * rl_tracker_stats() - the prediction error statistics
 * @t: the tracker (its scratch space is used)
 * @s: the result
 *
 * Mean and standard deviation of the error over on-target requests, misses
 * per million requests (over the forgetting window, see rl_tracker.n), and
 * the demerit of Ruemmler and Wilkes: the root mean square horizontal
 * distance between the distributions of predicted and measured access
 * times. It is computed exactly on the last RL_TRK_WINDOW requests: with
 * equal sample counts the distance at each quantile is the difference
 * between the i-th smallest predicted and i-th smallest measured time
 * (each difference saturating at 2^26 ns).
 */
void rl_tracker_stats(struct rl_tracker *t, struct rl_trk_stats *s)
{
	u64 sq = 0, sum = 0;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->n = t->total;
	if (t->n)
		s->miss_ppm = div64_u64(t->misses * 1000000, t->n);
	if (t->on_target) {
		s64 mean = div64_s64(t->err_sum, t->on_target);
		u64 ex2 = div64_u64(t->err_sq_sum, t->on_target) << RL_TRK_SQ_SHIFT;
		u64 m2 = (u64)(mean * mean);

		s->mean_ns = mean;
		s->std_ns = ex2 > m2 ? int_sqrt64(ex2 - m2) : 0;
	}
	if (!t->win_len)
		return;
	memcpy(t->scratch[0], t->win_pred, t->win_len * sizeof(u32));
	memcpy(t->scratch[1], t->win_meas, t->win_len * sizeof(u32));
	sort(t->scratch[0], t->win_len, sizeof(u32), rl_trk_cmp_u32, NULL);
	sort(t->scratch[1], t->win_len, sizeof(u32), rl_trk_cmp_u32, NULL);
	for (i = 0; i < t->win_len; i++) {
		s64 d = (s64)t->scratch[1][i] - t->scratch[0][i];

		d = clamp_t(s64, d, -RL_TRK_DEMERIT_MAX, RL_TRK_DEMERIT_MAX);
		sq += (u64)(d * d);
		sum += t->scratch[1][i];
	}
	s->demerit_ns = int_sqrt64(div_u64(sq, t->win_len));
	s->mean_access_ns = div_u64(sum, t->win_len);
}

/**
 * rl_tracker_status() - the tracker's status words, DMEMIT-style
 * @t: the tracker
 * @now_ns: now, on the tracker's clock (for the calibration age)
 * @result: status buffer
 * @maxlen: its size
 * @sz: bytes used so far, updated
 *
 * "period_ns=<ns.mmm> cal=<0|1> refs=<n> restarts=<n> cal_age_ms=<ms|->
 * n=<requests>
 * err_mean_ns=<ns> err_std_ns=<ns> miss_pct=<p.pppp> demerit_ns=<ns>
 * access_ns=<ns> slack=<sectors>", or "geom=none" without a geometry.
 */
void rl_tracker_status(struct rl_tracker *t, u64 now_ns, char *result,
		       unsigned int maxlen, unsigned int *sz)
{
	struct rl_trk_stats s;
	u64 p_ns = t->period_fp >> RL_TRK_FRAC;
	u32 p_milli = ((t->period_fp & ((1 << RL_TRK_FRAC) - 1)) * 1000) >>
		      RL_TRK_FRAC;
	unsigned int n = *sz;

	if (n >= maxlen)
		return;
	if (!t->has_geom) {
		n += scnprintf(result + n, maxlen - n, "geom=none");
		*sz = n;
		return;
	}
	rl_tracker_stats(t, &s);
	n += scnprintf(result + n, maxlen - n,
		       "period_ns=%llu.%03u cal=%u refs=%llu restarts=%llu ",
		       p_ns, p_milli, t->calibrated, t->refs, t->restarts);
	if (t->refs && now_ns >= t->last_cal_ns)
		n += scnprintf(result + n, maxlen - n, "cal_age_ms=%llu",
			       div_u64(now_ns - t->last_cal_ns, NSEC_PER_MSEC));
	else
		n += scnprintf(result + n, maxlen - n, "cal_age_ms=-");
	n += scnprintf(result + n, maxlen - n,
		       " n=%llu err_mean_ns=%lld err_std_ns=%llu miss_pct=%u.%04u demerit_ns=%llu access_ns=%llu slack=%u",
		       s.n, s.mean_ns, s.std_ns, s.miss_ppm / 10000,
		       s.miss_ppm % 10000, s.demerit_ns, s.mean_access_ns,
		       t->slack);
	*sz = n;
}
