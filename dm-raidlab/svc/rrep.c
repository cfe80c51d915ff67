// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab rotational replicas on one disk (rrep.h): the layout of a
 * member's Dr replicas from its geometry, and its inverse. Pure; KUnit
 * suite dm_raidlab_rrep.
 */
#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "rrep.h"

/* Replica r's angle after replica 0's, in slots: round(r * spt / dr). */
static u32 rl_rrep_angle(u32 spt, unsigned int r, unsigned int dr)
{
	return (2 * r * spt + dr) / (2 * dr);
}

/*
 * The offset nearest @a (round the track of @spt slots, at least 8) at
 * which a replica wraps on a 4 KiB boundary of its logical track: one of
 * b, b + 8, .., spt - 8 with b = spt mod 8, so that spt - off is a
 * multiple of 8.
 */
static u32 rl_rrep_aligned(u32 a, u32 spt)
{
	u32 b = spt % RL_RREP_ALIGN, q = spt / RL_RREP_ALIGN;
	u32 i = a + 4 >= b ? (a + 4 - b) / RL_RREP_ALIGN : 0;

	/* past spt - 8: the nearer of it and b, across slot 0 */
	if (i >= q)
		i = a - (spt - RL_RREP_ALIGN) <= spt - a + b ? q - 1 : 0;
	return b + i * RL_RREP_ALIGN;
}

/*
 * The used cylinders of geometry zone @i: whole cylinders at or after
 * @start that end at or before @end. Returns how many, with the first
 * (counted in the zone) in *@c0.
 */
static u32 rl_rrep_zone_cyls(const struct rl_disk_geom *g, unsigned int i,
			     u64 start, u64 end, u32 *c0)
{
	const struct rl_geom_zone *z = &g->zone[i];
	u32 ncyl = (i + 1 < g->nr_zones ? g->zone[i + 1].first_cyl :
		    g->cylinders) - z->first_cyl;
	u64 cyl = (u64)g->heads * z->spt;
	u64 first = 0, last = 0;

	if (start > z->first_lba)
		first = div64_u64(start - z->first_lba + cyl - 1, cyl);
	if (end > z->first_lba)
		last = div64_u64(end - z->first_lba, cyl);
	first = min_t(u64, first, ncyl);
	last = min_t(u64, last, ncyl);
	*c0 = first;
	return last > first ? last - first : 0;
}

static void rl_rrep_add_zone(struct rl_rrep *rr, const struct rl_disk_geom *g,
			     unsigned int i, u32 c0, u32 cyls)
{
	const struct rl_geom_zone *gz = &g->zone[i];
	struct rl_rrep_zone *z = &rr->zone[rr->nr_zones++];
	unsigned int r;

	z->first_y = rr->capacity;
	z->first_cyl = gz->first_cyl + c0;
	z->cyls = cyls;
	z->spt = gz->spt;
	z->first_lba = gz->first_lba + (u64)c0 * g->heads * gz->spt;
	z->len = round_down(gz->spt, RL_RREP_ALIGN);
	z->sectors = (u64)cyls * rr->k * z->len;
	for (r = 1; r < rr->dr; r++) {
		u32 skew = (u32)(((u64)r * rr->k * g->track_skew) % gz->spt);

		z->off[r] = rl_rrep_aligned((rl_rrep_angle(gz->spt, r, rr->dr) +
					     gz->spt - skew) % gz->spt, gz->spt);
	}
	rr->capacity += z->sectors;
}

/**
 * rl_rrep_init() - a member's replica layout
 * @rr: the result
 * @g: the member's geometry, checked (rl_disk_geom_check()); its LBA 0 is
 *     the member's sector 0
 * @dr: replicas per sector, 1 to RL_RREP_MAX_DR and at most the heads
 * @start: the first member sector the layout may use (data_offset)
 * @end: the member's size in sectors; past the geometry's capacity only
 *       the geometry's cylinders are used
 * @error: set to a static message on failure
 *
 * Return: 0 with rr->capacity the logical sectors the member holds, or
 * -EINVAL (no whole cylinder between @start and @end, a track of fewer
 * than 8 sectors, or a bad @dr).
 */
int rl_rrep_init(struct rl_rrep *rr, const struct rl_disk_geom *g,
		 unsigned int dr, u64 start, u64 end, char **error)
{
	unsigned int i;

	memset(rr, 0, sizeof(*rr));
	if (!dr || dr > RL_RREP_MAX_DR) {
		*error = "Invalid dr (1 to 6 replicas)";
		return -EINVAL;
	}
	if (dr > g->heads) {
		*error = "dr is above the geometry's heads (replicas share a cylinder)";
		return -EINVAL;
	}
	for (i = 0; i < g->nr_zones; i++) {
		if (g->zone[i].spt < RL_RREP_ALIGN) {
			*error = "A track of fewer than 8 sectors (4 KiB) in the geometry";
			return -EINVAL;
		}
	}
	rr->dr = dr;
	rr->heads = g->heads;
	rr->k = g->heads / dr;
	end = min(end, g->capacity);
	for (i = 0; i < g->nr_zones; i++) {
		u32 c0, cyls = rl_rrep_zone_cyls(g, i, start, end, &c0);

		if (cyls)
			rl_rrep_add_zone(rr, g, i, c0, cyls);
	}
	if (!rr->capacity) {
		*error = "No whole cylinder of the geometry past the data offset";
		return -EINVAL;
	}
	return 0;
}

/**
 * rl_rrep_map() - where a logical sector is
 * @rr: the layout
 * @y: the logical sector, below rr->capacity
 * @l: the result: zone, cylinder, logical track, sector, and the sectors
 *     to the logical track's end (a run of the caller's may not go past)
 */
void rl_rrep_map(const struct rl_rrep *rr, u64 y, struct rl_rrep_loc *l)
{
	const struct rl_rrep_zone *z;
	unsigned int i = rr->nr_zones - 1;
	u64 track;
	u32 rem;

	while (i && y < rr->zone[i].first_y)
		i--;
	z = &rr->zone[i];
	track = div_u64_rem(y - z->first_y, z->len, &rem);
	l->zone = i;
	l->sector = rem;
	l->left = z->len - rem;
	l->cyl = div_u64_rem(track, rr->k, &l->track);
}

/* Replica @r's sector in its track. */
static u32 rl_rrep_slot(const struct rl_rrep_zone *z,
			const struct rl_rrep_loc *l, unsigned int r)
{
	u32 s = l->sector + z->off[r];

	return s >= z->spt ? s - z->spt : s;
}

/**
 * rl_rrep_sector() - the member sector of replica @r of a logical sector
 * @rr: the layout
 * @l: the logical sector (rl_rrep_map())
 * @r: the replica, below rr->dr
 *
 * Return: the member sector (the geometry's LBA).
 */
u64 rl_rrep_sector(const struct rl_rrep *rr, const struct rl_rrep_loc *l,
		   unsigned int r)
{
	const struct rl_rrep_zone *z = &rr->zone[l->zone];
	u64 track = (u64)l->cyl * rr->heads + l->track + r * rr->k;

	return z->first_lba + track * z->spt + rl_rrep_slot(z, l, r);
}

/**
 * rl_rrep_fits() - whether replica @r of a run stays on its track
 * @rr: the layout
 * @l: the run's first sector (rl_rrep_map())
 * @r: the replica
 * @n: the run's sectors, at most l->left
 *
 * Return: true when the run's replica @r is @n consecutive member sectors
 * of one track; always for replica 0.
 */
bool rl_rrep_fits(const struct rl_rrep *rr, const struct rl_rrep_loc *l,
		  unsigned int r, u32 n)
{
	const struct rl_rrep_zone *z = &rr->zone[l->zone];

	return rl_rrep_slot(z, l, r) + n <= z->spt;
}

/* One number into a digest, little endian: the same on every machine. */
static u32 rl_rrep_crc(u32 crc, u64 x)
{
	__le64 v = cpu_to_le64(x);

	return crc32c(crc, &v, sizeof(v));
}

/**
 * rl_rrep_digest() - a digest of where a layout puts every replica
 * @rr: the layout (rl_rrep_init() with the same @end at every load)
 *
 * Return: a CRC32C over the replicas, the heads and every used zone's
 * place, size, logical track and angles; never 0 (0 stands for no
 * replicas).
 */
u32 rl_rrep_digest(const struct rl_rrep *rr)
{
	u32 crc = rl_rrep_crc(~0U, rr->dr);
	unsigned int i, r;

	crc = rl_rrep_crc(crc, rr->heads);
	for (i = 0; i < rr->nr_zones; i++) {
		const struct rl_rrep_zone *z = &rr->zone[i];

		crc = rl_rrep_crc(crc, z->first_lba);
		crc = rl_rrep_crc(crc, z->sectors);
		crc = rl_rrep_crc(crc, z->spt);
		crc = rl_rrep_crc(crc, z->len);
		for (r = 0; r < rr->dr; r++)
			crc = rl_rrep_crc(crc, z->off[r]);
	}
	return crc ?: 1;
}

/**
 * rl_rrep_end() - where the replicas of the first @n logical sectors end
 * @rr: the layout
 * @n: logical sectors, 1 to rr->capacity
 *
 * Return: the member sector after the cylinder that holds logical sector
 * @n - 1: every replica of the first @n lies below it.
 */
u64 rl_rrep_end(const struct rl_rrep *rr, u64 n)
{
	struct rl_rrep_loc l;
	const struct rl_rrep_zone *z;

	rl_rrep_map(rr, n - 1, &l);
	z = &rr->zone[l.zone];
	return z->first_lba + (u64)(l.cyl + 1) * rr->heads * z->spt;
}

/**
 * rl_rrep_unwrapped() - the longest run no replica wraps
 * @rr: the layout
 * @l: the run's first sector (rl_rrep_map())
 * @n: sectors wanted
 *
 * Return: the sectors from @l, at most @n and l->left (1 at least), whose
 * every replica is one run of member sectors: where a write to all of
 * them is cut.
 */
u32 rl_rrep_unwrapped(const struct rl_rrep *rr, const struct rl_rrep_loc *l,
		      u32 n)
{
	const struct rl_rrep_zone *z = &rr->zone[l->zone];
	unsigned int r;

	n = min(n, l->left);
	for (r = 1; r < rr->dr; r++)
		n = min(n, z->spt - rl_rrep_slot(z, l, r));
	return n;
}

/**
 * rl_rrep_unmap() - the logical sector a member sector holds
 * @rr: the layout
 * @lba: the member sector
 * @y: the logical sector
 * @r: which of its replicas @lba is
 *
 * Return: 0, or -ENOENT for a sector outside the used cylinders, on an
 * unused head or in a track's unused slots.
 */
int rl_rrep_unmap(const struct rl_rrep *rr, u64 lba, u64 *y, unsigned int *r)
{
	const struct rl_rrep_zone *z = NULL;
	unsigned int i;
	u32 sec, head, j;
	u64 track, cyl;

	for (i = 0; i < rr->nr_zones; i++) {
		const struct rl_rrep_zone *c = &rr->zone[i];

		if (lba >= c->first_lba &&
		    lba - c->first_lba < (u64)c->cyls * rr->heads * c->spt) {
			z = c;
			break;
		}
	}
	if (!z)
		return -ENOENT;
	track = div_u64_rem(lba - z->first_lba, z->spt, &sec);
	cyl = div_u64_rem(track, rr->heads, &head);
	if (head >= rr->dr * rr->k)
		return -ENOENT;
	*r = head / rr->k;
	j = head % rr->k;
	sec = (sec + z->spt - z->off[*r]) % z->spt;
	if (sec >= z->len)
		return -ENOENT;
	*y = z->first_y + (cyl * rr->k + j) * z->len + sec;
	return 0;
}
