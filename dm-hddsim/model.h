/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-hddsim timing model: the pure maths of an emulated mechanical disk.
 *
 * Nothing here touches a bio, a lock or a clock: every function maps numbers
 * to numbers, so the whole model is tested by KUnit (model_test.c).
 *
 * Geometry. Cylinders 0..cylinders-1, heads 0..heads-1, and zones of
 * consecutive cylinders with a fixed number of sectors per track (spt) each;
 * an unzoned disk is one zone starting at cylinder 0. Logical block
 * addresses fill a track, then the next head of the same cylinder, then the
 * next cylinder, zone after zone.
 *
 * Angles. The platter turns once per period_ns. Emulated time 0 (the
 * target's creation) is the index mark: at emulated time t the head is over
 * angular position (t mod period) / period. A track holds spt equal slots;
 * slot k starts at k * period / spt after the index. Logical sector s of a
 * track sits in slot (s + skew) mod spt, where the skew of the track in its
 * zone is (zone cylinder index) * ((heads - 1) * track_skew + cyl_skew) +
 * head * track_skew sectors: every head switch moves the first sector on by
 * track_skew, every cylinder switch by cyl_skew.
 *
 * Service of a request (hs_service): position (seek a + b*d + c*sqrt(d) when
 * the cylinder changes, otherwise a head switch when the head changes), then
 * for each track of the transfer a rotational wait to the first sector's
 * slot and the transfer at the track's media rate (period / spt per sector);
 * between tracks a head switch (same cylinder) or a seek (next cylinder).
 */
#ifndef DM_HDDSIM_MODEL_H
#define DM_HDDSIM_MODEL_H

#include <linux/bits.h>
#include <linux/types.h>

#define HS_MAX_ZONES		16
#define HS_MAX_CYLINDERS	BIT(24)
#define HS_MAX_HEADS		256
#define HS_MAX_SPT		65535
#define HS_MIN_PERIOD_NS	100000ULL		/* 100 us */
#define HS_MAX_PERIOD_NS	1000000000ULL		/* 1 s */
#define HS_MAX_TIME_NS		10000000000ULL		/* 10 s */
#define HS_MAX_SCALE		1000

/**
 * struct hs_zone - cylinders with one track size
 * @first_cyl: first cylinder of the zone (zone 0 starts at 0)
 * @spt: sectors (512 B) per track
 * @first_lba: first logical block of the zone (set by hs_geom_finish())
 */
struct hs_zone {
	u32 first_cyl;
	u32 spt;
	u64 first_lba;
};

/**
 * struct hs_geom - an emulated disk
 * @cylinders: number of cylinders
 * @heads: number of heads (tracks per cylinder)
 * @nr_zones: zones in @zones, 1 .. HS_MAX_ZONES
 * @zones: the zones, by increasing first cylinder
 * @period_ns: rotation period
 * @track_skew: first-sector offset added by each head switch (sectors)
 * @cyl_skew: first-sector offset added by each cylinder switch (sectors)
 * @head_switch_ns: time to switch heads within a cylinder
 * @seek_a_ns: seek curve constant term (d >= 1)
 * @seek_b_ns: seek curve linear term, per cylinder
 * @seek_c_ns: seek curve square-root term, times sqrt(d)
 * @capacity: sectors (set by hs_geom_finish())
 */
struct hs_geom {
	u32 cylinders;
	u32 heads;
	u32 nr_zones;
	struct hs_zone zones[HS_MAX_ZONES];
	u64 period_ns;
	u32 track_skew;
	u32 cyl_skew;
	u64 head_switch_ns;
	u64 seek_a_ns;
	u64 seek_b_ns;
	u64 seek_c_ns;
	u64 capacity;
};

/**
 * struct hs_chs - where a logical block lives
 * @cyl: cylinder
 * @head: head
 * @sector: logical sector within the track, 0 .. spt-1
 * @spt: sectors per track of its zone
 * @zone: zone index
 * @slot: angular slot of the sector, 0 .. spt-1 (skew applied)
 */
struct hs_chs {
	u32 cyl;
	u32 head;
	u32 sector;
	u32 spt;
	u32 zone;
	u32 slot;
};

/**
 * struct hs_arm - the head assembly between requests
 * @cyl: cylinder
 * @head: selected head
 */
struct hs_arm {
	u32 cyl;
	u32 head;
};

/**
 * struct hs_service - the parts of one request's service time (ns)
 * @seek_ns: initial positioning: seek, or head switch on the same cylinder
 * @switch_ns: head switches and seeks between tracks inside the transfer
 * @rot_ns: rotational waits (before the first sector and after switches)
 * @xfer_ns: media transfer
 * @total_ns: the sum of the four
 * @seek_cyls: cylinders travelled (initial seek and inside the transfer)
 * @end: arm position when the request is done
 */
struct hs_service {
	u64 seek_ns;
	u64 switch_ns;
	u64 rot_ns;
	u64 xfer_ns;
	u64 total_ns;
	u64 seek_cyls;
	struct hs_arm end;
};

/**
 * struct hs_scale - emulated time = wall time * num / den
 * @num: numerator, 1 .. HS_MAX_SCALE
 * @den: denominator, 1 .. HS_MAX_SCALE
 */
struct hs_scale {
	u32 num;
	u32 den;
};

int hs_geom_finish(struct hs_geom *g, char **error);
void hs_lba_to_chs(const struct hs_geom *g, u64 lba, struct hs_chs *p);
u64 hs_seek_ns(const struct hs_geom *g, u32 d);
u64 hs_slot_ns(const struct hs_geom *g, u32 spt, u64 slot);
u64 hs_rot_wait_ns(const struct hs_geom *g, u64 t, u32 spt, u32 slot);
void hs_service(const struct hs_geom *g, const struct hs_arm *arm, u64 t,
		u64 lba, u32 nr_sectors, struct hs_service *s);
u64 hs_wall_to_emul(const struct hs_scale *sc, u64 wall_ns);
u64 hs_emul_to_wall(const struct hs_scale *sc, u64 emul_ns);

#endif
