// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab disk geometry (tracker.h): the one-line format that
 * tools/calib/hddcalib prints and the geom message loads (parse, check,
 * format), the mapping of a sector to its cylinder, head and slot, and
 * the seek curve. Pure, no locks, no I/O; KUnit suite
 * dm_raidlab_tracker.
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
