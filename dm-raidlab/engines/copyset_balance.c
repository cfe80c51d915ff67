// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: its pure part (copyset.h, KUnit suite
 * dm_raidlab_copyset_io): read balancing and the reads option's words,
 * the window lock's arithmetic (buckets, overlap, splits, window length)
 * and the compare of a check.
 */
#include <linux/bitmap.h>
#include <linux/string.h>

#include "copyset.h"

/**
 * rl_cs_read_balance() - choose the copy to read
 * @v: one view per member, each with the sector its copy starts at
 * @nr: number of members
 *
 * Once head tracking predicts for every member that can read it (a
 * nonzero predicted_ns: the time until the read would complete, behind
 * the I/Os the member has issued and, in order, those waiting), the
 * member predicted to complete it first wins. If one of them has no
 * prediction (no geometry, not calibrated yet, a reference read due, or
 * entries waiting that its policy reorders), none is compared: a busy
 * member's prediction must not beat an idle member that has none. Then,
 * a member whose head sits exactly at its copy continues a sequential stream
 * and is taken at once; otherwise the member with the fewest I/Os queued or
 * in flight wins, and among those the one whose head is nearest, as md
 * raid1 does for rotating disks. Ties go to the lowest index.
 *
 * Return: the member, or RL_NONE if every member has failed.
 */
unsigned int rl_cs_read_balance(const struct rl_cs_view *v, unsigned int nr)
{
	unsigned int m, best = RL_NONE;
	sector_t best_dist = 0;

	for (m = 0; m < nr; m++) {
		if (v[m].failed)
			continue;
		if (!v[m].predicted_ns) {
			best = RL_NONE;
			break;
		}
		if (best == RL_NONE || v[m].predicted_ns < v[best].predicted_ns)
			best = m;
	}
	if (best != RL_NONE)
		return best;

	for (m = 0; m < nr; m++) {
		sector_t dist;

		if (v[m].failed)
			continue;
		dist = v[m].head > v[m].sector ? v[m].head - v[m].sector :
						 v[m].sector - v[m].head;
		if (!dist)
			return m;
		if (best == RL_NONE || v[m].inflight < v[best].inflight ||
		    (v[m].inflight == v[best].inflight && dist < best_dist)) {
			best = m;
			best_dist = dist;
		}
	}
	return best;
}

/**
 * rl_cs_source() - the member copies are taken from
 * @unreadable: members that must not be read (rl_unreadable_at())
 * @nr: number of members
 *
 * The lowest-index member that can be read: the resync and rebuild copy
 * from it, check compares against it, and reads of sectors whose copies
 * may still differ are served by it, so they return what the resync will
 * leave everywhere.
 *
 * Return: the member, or RL_NONE if none can be read.
 */
unsigned int rl_cs_source(unsigned long unreadable, unsigned int nr)
{
	unsigned int m = find_first_zero_bit(&unreadable, nr);

	return m < nr ? m : RL_NONE;
}

/**
 * rl_cs_read_choose() - the member a read goes to
 * @v: one view per member; members in @unreadable are marked failed in it
 * @nr: number of members
 * @unreadable: members that must not be read there (failed, or rebuilt
 *	at or above their cursor)
 * @suspect: the copies may differ (not resynced yet)
 *
 * A suspect read goes to rl_cs_source(); any other is balanced by
 * rl_cs_read_balance() over the readable members.
 *
 * Return: the member, or RL_NONE if none can be read.
 */
unsigned int rl_cs_read_choose(struct rl_cs_view *v, unsigned int nr,
			       unsigned long unreadable, bool suspect)
{
	unsigned int m;

	for (m = 0; m < nr; m++)
		if (v[m].failed)
			__set_bit(m, &unreadable);
		else if (test_bit(m, &unreadable))
			v[m].failed = true;
	if (suspect)
		return rl_cs_source(unreadable, nr);
	return rl_cs_read_balance(v, nr);
}

static const char *const rl_cs_reads_names[] = {
	[RL_CS_READS_BALANCE] = "balance",
	[RL_CS_READS_DUP] = "dup",
};

/* The "reads" option's word for @reads. */
const char *rl_cs_reads_name(enum rl_cs_reads reads)
{
	return reads < ARRAY_SIZE(rl_cs_reads_names) ?
	       rl_cs_reads_names[reads] : "?";
}

/* Parse the "reads" option's word, balance or dup, as raid10's layout. */
int rl_cs_parse_reads(const char *word, unsigned int *val)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rl_cs_reads_names); i++) {
		if (!strcasecmp(word, rl_cs_reads_names[i])) {
			*val = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* True if [s1, s1 + len1) and [s2, s2 + len2) share a sector. */
bool rl_cs_overlap(sector_t s1, sector_t len1, sector_t s2, sector_t len2)
{
	return len1 && len2 && s1 < s2 + len2 && s2 < s1 + len1;
}

/**
 * rl_cs_blocks() - whether the sync window holds off a write
 * @w: the window (len 0: none open)
 * @msector: first member sector of the write (after data_offset)
 * @sectors: its length
 *
 * A write waits while it overlaps the window, and also while it falls in
 * the window's bucket: the window waits for the writes of its bucket in
 * flight to end, and new ones of that bucket must not keep it waiting.
 *
 * Return: true if the write must wait for the window to close.
 */
bool rl_cs_blocks(const struct rl_cs_window *w, sector_t msector,
		  sector_t sectors)
{
	if (!w->len)
		return false;
	return rl_cs_overlap(w->start, w->len, msector, sectors) ||
	       rl_cs_bucket(msector) == rl_cs_bucket(w->start);
}

/**
 * rl_cs_split_len() - the part of a range that stays in one block
 * @msector: first sector of the range
 * @sectors: its length
 * @shift: blocks of 1 << @shift sectors, aligned
 *
 * A write is split with it at slot and intent region boundaries (the
 * smaller of the two), so that it is counted in one bucket and holds one
 * region's intent; a read walks the regions it spans with it.
 *
 * Return: the sectors of the range up to the end of @msector's block.
 */
sector_t rl_cs_split_len(sector_t msector, sector_t sectors,
			 unsigned int shift)
{
	sector_t block = (sector_t)1 << shift;
	sector_t left = block - (msector & (block - 1));

	return min(sectors, left);
}

/**
 * rl_cs_window_len() - the length of a sync window at @msector
 * @msector: first member sector (after data_offset)
 * @want: sectors the caller asked for (to the end of the members at most)
 * @max: the job's largest window (at most RL_CS_SLOT_SECTORS)
 *
 * Return: @want, cut to @max and to the end of @msector's slot.
 */
sector_t rl_cs_window_len(sector_t msector, sector_t want, sector_t max)
{
	return rl_cs_split_len(msector, min(want, max),
				   RL_CS_SLOT_SHIFT);
}

/**
 * rl_cs_diff() - find the sectors where two copies differ
 * @src: the source's copy
 * @buf: another member's copy
 * @sectors: length of both
 * @map: bit i is set for each differing sector i (others are left alone,
 *	so the map collects the union over members)
 * @first: set to the first differing sector, if any
 * @last: set to the last differing sector, if any
 *
 * Return: the number of differing sectors.
 */
unsigned int rl_cs_diff(const u8 *src, const u8 *buf, unsigned int sectors,
			unsigned long *map, unsigned int *first,
			unsigned int *last)
{
	unsigned int i, n = 0;

	if (!memcmp(src, buf, (size_t)sectors << SECTOR_SHIFT))
		return 0;
	for (i = 0; i < sectors; i++) {
		size_t off = (size_t)i << SECTOR_SHIFT;

		if (!memcmp(src + off, buf + off, SECTOR_SIZE))
			continue;
		__set_bit(i, map);
		if (!n)
			*first = i;
		*last = i;
		n++;
	}
	return n;
}
