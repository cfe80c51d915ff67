// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-hddsim timing model (see model.h for the geometry and the conventions).
 */
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "model.h"

/**
 * hs_geom_finish() - validate a geometry and fill in the derived fields
 * @g: geometry; zones[].first_lba and capacity are set
 * @error: set to a message for ti->error on failure
 *
 * Return: 0 or -EINVAL.
 */
int hs_geom_finish(struct hs_geom *g, char **error)
{
	u64 lba = 0;
	u32 i, end;

	if (!g->cylinders || g->cylinders > HS_MAX_CYLINDERS) {
		*error = "Invalid number of cylinders";
		return -EINVAL;
	}
	if (!g->heads || g->heads > HS_MAX_HEADS) {
		*error = "Invalid number of heads";
		return -EINVAL;
	}
	if (!g->nr_zones || g->nr_zones > HS_MAX_ZONES) {
		*error = "Invalid number of zones";
		return -EINVAL;
	}
	if (g->zones[0].first_cyl) {
		*error = "The first zone must start at cylinder 0";
		return -EINVAL;
	}
	if (g->period_ns < HS_MIN_PERIOD_NS || g->period_ns > HS_MAX_PERIOD_NS) {
		*error = "Invalid rotation period";
		return -EINVAL;
	}
	if (g->track_skew > HS_MAX_SPT || g->cyl_skew > HS_MAX_SPT) {
		*error = "Invalid skew";
		return -EINVAL;
	}
	if (g->head_switch_ns > HS_MAX_TIME_NS || g->seek_a_ns > HS_MAX_TIME_NS ||
	    g->seek_b_ns > HS_MAX_TIME_NS || g->seek_c_ns > HS_MAX_TIME_NS) {
		*error = "Seek or head switch time too large";
		return -EINVAL;
	}
	for (i = 0; i < g->nr_zones; i++) {
		struct hs_zone *z = &g->zones[i];

		end = i + 1 < g->nr_zones ? g->zones[i + 1].first_cyl : g->cylinders;
		if (!z->spt || z->spt > HS_MAX_SPT) {
			*error = "Invalid sectors per track";
			return -EINVAL;
		}
		if (end <= z->first_cyl || end > g->cylinders) {
			*error = "Invalid zone start cylinder";
			return -EINVAL;
		}
		z->first_lba = lba;
		lba += (u64)(end - z->first_cyl) * g->heads * z->spt;
	}
	g->capacity = lba;
	return 0;
}

static u32 hs_zone_of_lba(const struct hs_geom *g, u64 lba)
{
	u32 z = 0;

	while (z + 1 < g->nr_zones && g->zones[z + 1].first_lba <= lba)
		z++;
	return z;
}

/**
 * hs_lba_to_chs() - locate a logical block
 * @g: finished geometry
 * @lba: logical block, below @g->capacity
 * @p: result: cylinder, head, sector in the track, its zone, spt and slot
 */
void hs_lba_to_chs(const struct hs_geom *g, u64 lba, struct hs_chs *p)
{
	u32 zi = hs_zone_of_lba(g, lba);
	const struct hs_zone *z = &g->zones[zi];
	u64 track, zcyl, skew;
	u32 sector, head, slot;

	track = div_u64_rem(lba - z->first_lba, z->spt, &sector);
	zcyl = div_u64_rem(track, g->heads, &head);
	skew = zcyl * ((u64)(g->heads - 1) * g->track_skew + g->cyl_skew) +
	       (u64)head * g->track_skew;

	p->zone = zi;
	p->spt = z->spt;
	p->cyl = z->first_cyl + (u32)zcyl;
	p->head = head;
	p->sector = sector;
	div_u64_rem(sector + skew, z->spt, &slot);
	p->slot = slot;
}

/**
 * hs_seek_ns() - seek time over @d cylinders: 0 for d = 0, else
 *                a + b*d + c*sqrt(d)
 * @g: geometry
 * @d: distance in cylinders
 *
 * sqrt(d) is computed to 1/1024 of a cylinder^0.5 (int_sqrt64 of d * 2^20).
 *
 * Return: nanoseconds.
 */
u64 hs_seek_ns(const struct hs_geom *g, u32 d)
{
	u64 sqrt_d_1024;

	if (!d)
		return 0;
	sqrt_d_1024 = int_sqrt64((u64)d << 20);
	return g->seek_a_ns + g->seek_b_ns * d +
	       ((g->seek_c_ns * sqrt_d_1024) >> 10);
}

/**
 * hs_slot_ns() - time from the index mark to the start of a slot
 * @g: geometry
 * @spt: sectors per track of the track
 * @slot: slot number; values of spt and more count further rotations
 *
 * Return: nanoseconds, slot * period / spt rounded down. Differences of two
 * values are exact transfer times: they add up without drift.
 */
u64 hs_slot_ns(const struct hs_geom *g, u32 spt, u64 slot)
{
	return div_u64(slot * g->period_ns, spt);
}

/**
 * hs_rot_wait_ns() - rotational wait for a slot to come under the head
 * @g: geometry
 * @t: emulated time (ns since the index mark at time 0)
 * @spt: sectors per track of the track
 * @slot: the slot to wait for
 *
 * Return: ns until the start of @slot, in [0, period).
 */
u64 hs_rot_wait_ns(const struct hs_geom *g, u64 t, u32 spt, u32 slot)
{
	u64 phase, start = hs_slot_ns(g, spt, slot);

	div64_u64_rem(t, g->period_ns, &phase);
	if (start >= phase)
		return start - phase;
	return start + g->period_ns - phase;
}

/**
 * hs_service() - service time of one request
 * @g: finished geometry
 * @arm: arm position when the request starts
 * @t: emulated time at which the request starts (the arm is free)
 * @lba: first logical block
 * @nr_sectors: length, at least 1; @lba + @nr_sectors <= @g->capacity
 * @s: result
 */
void hs_service(const struct hs_geom *g, const struct hs_arm *arm, u64 t,
		u64 lba, u32 nr_sectors, struct hs_service *s)
{
	struct hs_chs p, next;
	u64 start = t, w, x;
	u32 d, m;

	memset(s, 0, sizeof(*s));
	hs_lba_to_chs(g, lba, &p);

	d = p.cyl > arm->cyl ? p.cyl - arm->cyl : arm->cyl - p.cyl;
	if (d)
		s->seek_ns = hs_seek_ns(g, d);
	else if (p.head != arm->head)
		s->seek_ns = g->head_switch_ns;
	s->seek_cyls = d;
	t += s->seek_ns;

	for (;;) {
		w = hs_rot_wait_ns(g, t, p.spt, p.slot);
		m = min(nr_sectors, p.spt - p.sector);
		x = hs_slot_ns(g, p.spt, (u64)p.slot + m) -
		    hs_slot_ns(g, p.spt, p.slot);
		s->rot_ns += w;
		s->xfer_ns += x;
		t += w + x;
		nr_sectors -= m;
		if (!nr_sectors)
			break;

		lba += m;
		hs_lba_to_chs(g, lba, &next);
		if (next.cyl != p.cyl) {
			d = next.cyl - p.cyl;
			s->seek_cyls += d;
			s->switch_ns += hs_seek_ns(g, d);
			t += hs_seek_ns(g, d);
		} else {
			s->switch_ns += g->head_switch_ns;
			t += g->head_switch_ns;
		}
		p = next;
	}

	s->total_ns = t - start;
	s->end.cyl = p.cyl;
	s->end.head = p.head;
}

/**
 * hs_wall_to_emul() - emulated time of a wall-clock interval
 * @sc: time scale
 * @wall_ns: ns of wall time since the target's creation
 *
 * Return: wall_ns * num / den, rounded down.
 */
u64 hs_wall_to_emul(const struct hs_scale *sc, u64 wall_ns)
{
	return mul_u64_u32_div(wall_ns, sc->num, sc->den);
}

/**
 * hs_emul_to_wall() - wall-clock time of an emulated instant
 * @sc: time scale
 * @emul_ns: emulated ns since the target's creation
 *
 * Return: the first wall ns whose emulated time is at least @emul_ns, so a
 * completion is never released before its modelled instant.
 */
u64 hs_emul_to_wall(const struct hs_scale *sc, u64 emul_ns)
{
	u64 w = mul_u64_u32_div(emul_ns, sc->den, sc->num);

	while (hs_wall_to_emul(sc, w) < emul_ns)
		w++;
	return w;
}
