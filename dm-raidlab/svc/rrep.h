/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab rotational replicas on one disk (Yu et al., SR-Array,
 * paper 002 section 2.2): where the Dr copies of a member's logical sector
 * lie, from the disk's geometry (struct rl_disk_geom, tracker.h).
 *
 * The member's logical sectors (its "column", data_offset excluded) fill
 * logical tracks of len = spt rounded down to a multiple of 8 sectors
 * (whole 4 KiB blocks: the slots left over are unused). A cylinder holds
 * K = heads / Dr of them: logical track j of a cylinder is replica 0 on
 * head j, and replica r lies on head j + r * K of the same cylinder (a
 * head switch, no seek), the heads left over (heads mod Dr) unused.
 * Replica r of a sector starts off_r slots after replica 0's, evenly
 * spaced in angle (360/Dr degrees), the track skew of its head taken into
 * account, to the nearest slot that makes the replica wrap (reach the
 * track's slot spt) at a 4 KiB boundary of the logical track:
 *
 *	a_r   = (round(r * spt / Dr) - r * K * track_skew) mod spt
 *	off_r = the value nearest a_r round the track with off_r = spt
 *		(mod 8): 7 slots from it at most (off_0 = 0)
 *	s_r   = (s + off_r) mod spt
 *
 * Cylinders are used from the first whole one at or after @start, the
 * outer zone first, so a column smaller than the disk uses the disk's
 * fastest, shortest-seek band; a logical track lies in one zone.
 *
 * Replica 0 keeps the sectors of its track in the disk's order, so it
 * never wraps; replica r > 0 of a run of n sectors wraps its track (the
 * run would end on the next track) when s_r + n > spt, and
 * rl_rrep_fits() says so: the caller leaves it out of the choice for that
 * run (schemes-spec section 4.4(3)). A run never crosses a logical track:
 * rl_rrep_map() gives the sectors left to its end. A write goes to every
 * replica, so it is cut where one would wrap (rl_rrep_unwrapped()): at
 * most Dr - 1 more cuts a track. Every cut (a logical track's end, a
 * wrap) falls on a multiple of 8 column sectors, so a 4 KiB-aligned write
 * is never split and a crash cannot tear it.
 *
 * Pure: no locks, no allocation, no I/O; 64-bit maths through div64
 * helpers. KUnit suite dm_raidlab_rrep.
 */
#ifndef DM_RAIDLAB_RREP_H
#define DM_RAIDLAB_RREP_H

#include <linux/types.h>

#include "tracker.h"

/* Replicas per sector: paper 002's prototype went to 6 (section 4.1). */
#define RL_RREP_MAX_DR		6

/* Cuts fall on multiples of it: a 4 KiB block's sectors. */
#define RL_RREP_ALIGN		8

/* The used part of one recording zone. */
struct rl_rrep_zone {
	u64 first_y;			/* its first logical sector */
	u64 first_lba;			/* head 0 of its first used cylinder */
	u64 sectors;			/* logical sectors: cyls * K * len */
	u32 first_cyl;			/* its first used cylinder */
	u32 cyls;			/* used cylinders */
	u32 spt;
	u32 len;			/* a logical track's sectors */
	u32 off[RL_RREP_MAX_DR];	/* s_r - s, mod spt */
};

/* A disk's replica layout; rl_rrep_init() fills it. */
struct rl_rrep {
	u32 dr;				/* replicas per sector */
	u32 heads;
	u32 k;				/* logical tracks per cylinder */
	u32 nr_zones;			/* zones with a used cylinder */
	u64 capacity;			/* logical sectors */
	struct rl_rrep_zone zone[RL_GEOM_MAX_ZONES];
};

/* Where a logical sector is: its zone, cylinder, logical track and sector. */
struct rl_rrep_loc {
	u32 zone;			/* index in rl_rrep.zone[] */
	u32 cyl;			/* used cylinder, counted in its zone */
	u32 track;			/* logical track j, 0 .. K-1 */
	u32 sector;			/* sector s in the track, 0 .. len-1 */
	u32 left;			/* sectors to the logical track's end */
};

int rl_rrep_init(struct rl_rrep *rr, const struct rl_disk_geom *g,
		 unsigned int dr, u64 start, u64 end, char **error);
void rl_rrep_map(const struct rl_rrep *rr, u64 y, struct rl_rrep_loc *l);
u64 rl_rrep_sector(const struct rl_rrep *rr, const struct rl_rrep_loc *l,
		   unsigned int r);
bool rl_rrep_fits(const struct rl_rrep *rr, const struct rl_rrep_loc *l,
		  unsigned int r, u32 n);
u32 rl_rrep_unwrapped(const struct rl_rrep *rr, const struct rl_rrep_loc *l,
		      u32 n);
u32 rl_rrep_digest(const struct rl_rrep *rr);
u64 rl_rrep_end(const struct rl_rrep *rr, u64 n);
int rl_rrep_unmap(const struct rl_rrep *rr, u64 lba, u64 *y, unsigned int *r);

#endif
