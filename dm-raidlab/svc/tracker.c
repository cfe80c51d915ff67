// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab head-position tracker: disk geometry, access-time prediction,
 * the rotation phase from reference reads, prediction error statistics and
 * the slack feedback loop. Pure maths, no locks, no I/O (see tracker.h).
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

/* The one-line geometry format: key=value,key=value,... */

enum rl_geom_key {
	RL_GK_PERIOD,
	RL_GK_CYLINDERS,
	RL_GK_HEADS,
	RL_GK_SPT,
	RL_GK_ZONES,
	RL_GK_TRACK_SKEW,
	RL_GK_CYL_SKEW,
	RL_GK_HEAD_SWITCH,
	RL_GK_SEEK_A,
	RL_GK_SEEK_B,
	RL_GK_SEEK_C,
	RL_GK_REF,
	RL_NR_GEOM_KEYS,
};

static const struct {
	const char *name;
	char *missing;
} rl_geom_keys[RL_NR_GEOM_KEYS] = {
	[RL_GK_PERIOD] = { "period_ns", "geom: missing period_ns" },
	[RL_GK_CYLINDERS] = { "cylinders", "geom: missing cylinders" },
	[RL_GK_HEADS] = { "heads", "geom: missing heads" },
	[RL_GK_SPT] = { "spt", "geom: missing spt or zones" },
	[RL_GK_ZONES] = { "zones", "geom: missing spt or zones" },
	[RL_GK_TRACK_SKEW] = { "track_skew", "geom: missing track_skew" },
	[RL_GK_CYL_SKEW] = { "cyl_skew", "geom: missing cyl_skew" },
	[RL_GK_HEAD_SWITCH] = { "head_switch_ns", "geom: missing head_switch_ns" },
	[RL_GK_SEEK_A] = { "seek_a_ns", "geom: missing seek_a_ns" },
	[RL_GK_SEEK_B] = { "seek_b_ns", "geom: missing seek_b_ns" },
	[RL_GK_SEEK_C] = { "seek_c_ns", "geom: missing seek_c_ns" },
	[RL_GK_REF] = { "ref", "geom: missing ref" },
};

/* Parse the decimal number in [@s, @s + @len) into @v. */
static int rl_geom_number(const char *s, size_t len, u64 *v)
{
	char buf[24];

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[0] < '0' || buf[0] > '9')	/* no sign, no blank */
		return -EINVAL;
	return kstrtou64(buf, 10, v);
}

/* zones=<first_cyl>:<spt>/<first_cyl>:<spt>... in [@s, @s + @len). */
static int rl_geom_zones(const char *s, size_t len, struct rl_disk_geom *g,
			 char **error)
{
	const char *end = s + len;

	g->nr_zones = 0;
	while (s < end) {
		const char *slash = memchr(s, '/', end - s);
		const char *zend = slash ? slash : end;
		const char *colon = memchr(s, ':', zend - s);
		u64 cyl, spt;

		if (g->nr_zones == RL_GEOM_MAX_ZONES) {
			*error = "geom: too many zones (at most 16)";
			return -EINVAL;
		}
		if (!colon || rl_geom_number(s, colon - s, &cyl) ||
		    rl_geom_number(colon + 1, zend - colon - 1, &spt) ||
		    cyl > U32_MAX || spt > U32_MAX) {
			*error = "geom: bad zones (first_cyl:spt/first_cyl:spt...)";
			return -EINVAL;
		}
		g->zone[g->nr_zones].first_cyl = cyl;
		g->zone[g->nr_zones].spt = spt;
		g->nr_zones++;
		if (!slash)
			break;
		s = slash + 1;
		if (s == end) {
			*error = "geom: bad zones (first_cyl:spt/first_cyl:spt...)";
			return -EINVAL;
		}
	}
	if (!g->nr_zones) {
		*error = "geom: bad zones (first_cyl:spt/first_cyl:spt...)";
		return -EINVAL;
	}
	return 0;
}

/**
 * rl_disk_geom_check() - validate a geometry and fill its derived fields
 * @g: the geometry (zone[].first_lba and capacity are set)
 * @error: set to a static message on failure
 *
 * Return: 0, or -EINVAL with *@error set.
 */
int rl_disk_geom_check(struct rl_disk_geom *g, char **error)
{
	u32 min_spt = U32_MAX;
	u64 lba = 0;
	unsigned int i;

	if (g->period_ns < RL_GEOM_MIN_PERIOD_NS ||
	    g->period_ns > RL_GEOM_MAX_PERIOD_NS) {
		*error = "geom: period_ns out of range (100000 to 1000000000)";
		return -EINVAL;
	}
	if (!g->cylinders || g->cylinders > RL_GEOM_MAX_CYLINDERS) {
		*error = "geom: cylinders out of range (1 to 4194304)";
		return -EINVAL;
	}
	if (!g->heads || g->heads > RL_GEOM_MAX_HEADS) {
		*error = "geom: heads out of range (1 to 255)";
		return -EINVAL;
	}
	if (!g->nr_zones || g->nr_zones > RL_GEOM_MAX_ZONES) {
		*error = "geom: missing spt or zones";
		return -EINVAL;
	}
	for (i = 0; i < g->nr_zones; i++) {
		struct rl_geom_zone *z = &g->zone[i];

		if (!z->spt || z->spt > RL_GEOM_MAX_SPT) {
			*error = "geom: sectors per track out of range (1 to 8192)";
			return -EINVAL;
		}
		if (i ? z->first_cyl <= g->zone[i - 1].first_cyl : z->first_cyl) {
			*error = "geom: zones must start at cylinder 0 and increase";
			return -EINVAL;
		}
		if (z->first_cyl >= g->cylinders) {
			*error = "geom: a zone starts beyond the last cylinder";
			return -EINVAL;
		}
		min_spt = min(min_spt, z->spt);
	}
	for (i = 0; i < g->nr_zones; i++) {
		u32 next = i + 1 < g->nr_zones ? g->zone[i + 1].first_cyl : g->cylinders;

		g->zone[i].first_lba = lba;
		lba += (u64)(next - g->zone[i].first_cyl) * g->heads * g->zone[i].spt;
	}
	g->capacity = lba;
	if (g->track_skew >= min_spt || g->cyl_skew >= min_spt) {
		*error = "geom: skews must be below the sectors per track";
		return -EINVAL;
	}
	if (g->head_switch_ns > RL_GEOM_MAX_TIME_NS ||
	    g->seek_a_ns > RL_GEOM_MAX_TIME_NS ||
	    g->seek_b_ns > RL_GEOM_MAX_TIME_NS ||
	    g->seek_c_ns > RL_GEOM_MAX_TIME_NS) {
		*error = "geom: head switch and seek terms must be at most 1000000000 ns";
		return -EINVAL;
	}
	if (g->ref >= g->capacity) {
		*error = "geom: ref beyond the disk";
		return -EINVAL;
	}
	return 0;
}

/* Key @k of a geom line takes the number @val. */
static void rl_geom_set(struct rl_disk_geom *g, unsigned int k, u64 val)
{
	switch (k) {
	case RL_GK_PERIOD:
		g->period_ns = val;
		break;
	case RL_GK_CYLINDERS:
		g->cylinders = min_t(u64, val, U32_MAX);
		break;
	case RL_GK_HEADS:
		g->heads = min_t(u64, val, U32_MAX);
		break;
	case RL_GK_SPT:
		g->zone[0].first_cyl = 0;
		g->zone[0].spt = min_t(u64, val, U32_MAX);
		g->nr_zones = 1;
		break;
	case RL_GK_TRACK_SKEW:
		g->track_skew = min_t(u64, val, U32_MAX);
		break;
	case RL_GK_CYL_SKEW:
		g->cyl_skew = min_t(u64, val, U32_MAX);
		break;
	case RL_GK_HEAD_SWITCH:
		g->head_switch_ns = val;
		break;
	case RL_GK_SEEK_A:
		g->seek_a_ns = val;
		break;
	case RL_GK_SEEK_B:
		g->seek_b_ns = val;
		break;
	case RL_GK_SEEK_C:
		g->seek_c_ns = val;
		break;
	case RL_GK_REF:
		g->ref = val;
		break;
	default:
		break;
	}
}

/* The index of the key s[0, len) in rl_geom_keys[], or RL_NR_GEOM_KEYS. */
static unsigned int rl_geom_key(const char *s, size_t len)
{
	unsigned int k;

	for (k = 0; k < RL_NR_GEOM_KEYS; k++)
		if (strlen(rl_geom_keys[k].name) == len &&
		    !memcmp(rl_geom_keys[k].name, s, len))
			break;
	return k;
}

/* Every key a geometry needs was given, and spt or zones (one of them). */
static int rl_geom_complete(const bool *seen, char **error)
{
	unsigned int k;

	if (seen[RL_GK_SPT] && seen[RL_GK_ZONES]) {
		*error = "geom: give spt or zones, not both";
		return -EINVAL;
	}
	for (k = 0; k < RL_NR_GEOM_KEYS; k++) {
		if (k == RL_GK_SPT || k == RL_GK_ZONES)
			continue;
		if (!seen[k]) {
			*error = rl_geom_keys[k].missing;
			return -EINVAL;
		}
	}
	if (!seen[RL_GK_SPT] && !seen[RL_GK_ZONES]) {
		*error = "geom: missing spt or zones";
		return -EINVAL;
	}
	return 0;
}

/**
 * rl_disk_geom_parse() - parse a one-line geometry
 * @s: "period_ns=..,cylinders=..,heads=..,spt=..|zones=..,track_skew=..,
 *     cyl_skew=..,head_switch_ns=..,seek_a_ns=..,seek_b_ns=..,seek_c_ns=..,
 *     ref=.." in any order, each key once; zones= is
 *     <first_cyl>:<spt>/<first_cyl>:<spt>..., the first at cylinder 0
 * @g: filled on success (derived fields too)
 * @error: set to a static message on failure
 *
 * Pure: no allocation. Return: 0, or -EINVAL with *@error set.
 */
int rl_disk_geom_parse(const char *s, struct rl_disk_geom *g, char **error)
{
	bool seen[RL_NR_GEOM_KEYS] = { };
	unsigned int k;

	memset(g, 0, sizeof(*g));
	if (!*s) {
		*error = "geom: empty geometry";
		return -EINVAL;
	}
	while (*s) {
		const char *comma = strchrnul(s, ',');
		const char *eq = memchr(s, '=', comma - s);
		const char *v;
		size_t vlen;
		u64 val = 0;

		if (!eq) {
			*error = "geom: expected key=value";
			return -EINVAL;
		}
		k = rl_geom_key(s, eq - s);
		if (k == RL_NR_GEOM_KEYS) {
			*error = "geom: unknown key";
			return -EINVAL;
		}
		if (seen[k]) {
			*error = "geom: key given twice";
			return -EINVAL;
		}
		seen[k] = true;
		v = eq + 1;
		vlen = comma - v;
		if (k == RL_GK_ZONES) {
			if (rl_geom_zones(v, vlen, g, error))
				return -EINVAL;
			g->zoned = true;
		} else if (rl_geom_number(v, vlen, &val)) {
			*error = "geom: bad number";
			return -EINVAL;
		}
		rl_geom_set(g, k, val);
		if (!*comma)
			break;
		s = comma + 1;
		if (!*s) {
			*error = "geom: expected key=value";
			return -EINVAL;
		}
	}
	if (rl_geom_complete(seen, error))
		return -EINVAL;
	return rl_disk_geom_check(g, error);
}

/**
 * rl_disk_geom_format() - the geometry as rl_disk_geom_parse() reads it
 * @g: a checked geometry
 * @buf: output
 * @len: size of @buf
 *
 * Return: the length of the whole line, as snprintf(); the line was cut if
 * that is @len or more.
 */
int rl_disk_geom_format(const struct rl_disk_geom *g, char *buf, size_t len)
{
	unsigned int i;
	int n;

	n = snprintf(buf, len, "period_ns=%llu,cylinders=%u,heads=%u,",
		     g->period_ns, g->cylinders, g->heads);
	if (g->zoned) {
		n += snprintf(buf + min_t(size_t, n, len), len - min_t(size_t, n, len),
			      "zones=");
		for (i = 0; i < g->nr_zones; i++)
			n += snprintf(buf + min_t(size_t, n, len),
				      len - min_t(size_t, n, len), "%s%u:%u",
				      i ? "/" : "", g->zone[i].first_cyl,
				      g->zone[i].spt);
	} else {
		n += snprintf(buf + min_t(size_t, n, len), len - min_t(size_t, n, len),
			      "spt=%u", g->zone[0].spt);
	}
	n += snprintf(buf + min_t(size_t, n, len), len - min_t(size_t, n, len),
		      ",track_skew=%u,cyl_skew=%u,head_switch_ns=%llu,seek_a_ns=%llu,seek_b_ns=%llu,seek_c_ns=%llu,ref=%llu",
		      g->track_skew, g->cyl_skew, g->head_switch_ns,
		      g->seek_a_ns, g->seek_b_ns, g->seek_c_ns, g->ref);
	return n;
}

/**
 * rl_disk_geom_chs() - where a sector is on the disk
 * @g: a checked geometry
 * @lba: the sector; past the capacity, the last zone goes on over imagined
 *       cylinders
 * @c: the result
 *
 * Tracks are filled cylinder by cylinder, head 0 first. Logical sector 0 of
 * a track starts track_skew slots after that of the track before it on its
 * cylinder, and cyl_skew slots after the last track of the cylinder before,
 * counting from the zone's first track; the sector's slot is its angle.
 */
void rl_disk_geom_chs(const struct rl_disk_geom *g, u64 lba, struct rl_chs *c)
{
	const struct rl_geom_zone *z = &g->zone[0];
	u64 track, zcyl, skew;
	u32 rem, per_cyl;
	unsigned int i;

	for (i = g->nr_zones; i-- > 1;) {
		if (lba >= g->zone[i].first_lba) {
			z = &g->zone[i];
			break;
		}
	}
	track = div_u64_rem(lba - z->first_lba, z->spt, &rem);
	c->sector = rem;
	c->spt = z->spt;
	c->track_lba = lba - rem;
	zcyl = div_u64_rem(track, g->heads, &rem);
	c->head = rem;
	c->cyl = z->first_cyl + min_t(u64, zcyl, U32_MAX - z->first_cyl);
	/*
	 * (zcyl * per-cylinder skew + head * track_skew + sector) mod spt; the
	 * parser's bounds keep every product within u64.
	 */
	per_cyl = ((g->heads - 1) * g->track_skew + g->cyl_skew) % z->spt;
	div_u64_rem(zcyl, z->spt, &rem);
	skew = (u64)rem * per_cyl + (u64)c->head * g->track_skew + c->sector;
	div_u64_rem(skew, z->spt, &rem);
	c->slot = rem;
}

/**
 * rl_disk_seek_ns() - seek time between two cylinders
 * @g: the geometry
 * @from_cyl: where the arm is
 * @to_cyl: where it goes
 *
 * Return: 0 for no move, else seek_a + seek_b * d + seek_c * sqrt(d) ns,
 * sqrt(d) in 16-bit fixed point.
 */
u64 rl_disk_seek_ns(const struct rl_disk_geom *g, u32 from_cyl, u32 to_cyl)
{
	u32 d = from_cyl > to_cyl ? from_cyl - to_cyl : to_cyl - from_cyl;
	u32 sqrt_fp;

	if (!d)
		return 0;
	sqrt_fp = int_sqrt64((u64)d << 32);	/* sqrt(d) << 16 */
	return g->seek_a_ns + g->seek_b_ns * d +
	       mul_u64_u32_shr(g->seek_c_ns, sqrt_fp, 16);
}

/* The tracker */

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
