// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab layout helpers, shared by the schemes' layout methods
 * (raidlab.h): sizing a layout of rows, building a location set, and its
 * text form for the "locate" message; and rl_locate() and rl_owner(),
 * through which every caller reaches the methods, with the range checks
 * made once here. Pure: KUnit suites dm_raidlab_layout_svc and
 * dm_raidlab_layout.
 */
#include <linux/kernel.h>
#include <linux/math64.h>

#include "layout.h"

/**
 * rl_size_rows() - size a layout of rows of @nr_data data chunks
 * @a: the array (geom.nr_members and chunk_shift set; member_sectors the
 *	smallest member's usable sectors)
 * @nr_data: data chunks in one row; 1 for a layout without rows (a
 *	mirror), which takes any length that fits
 * @len: the target length
 * @error: set to a message for ti->error on failure
 *
 * The length must fit on the members and be a whole number of rows. On
 * success sets a->geom.nr_data and a->member_sectors to the span used on
 * each member.
 *
 * Return: 0 or -EINVAL.
 */
int rl_size_rows(struct rl_array *a, unsigned int nr_data, sector_t len,
		 char **error)
{
	unsigned int shift = a->geom.chunk_shift;
	u64 row = nr_data > 1 ? (u64)nr_data << shift : 1;
	u64 capacity = nr_data > 1 ?
		       (a->member_sectors >> shift) * row : a->member_sectors;
	u64 rem = 0;

	if (!len) {
		*error = "Zero target length";
		return -EINVAL;
	}
	if (len > capacity) {
		*error = "Target length exceeds the members' capacity";
		return -EINVAL;
	}
	if (nr_data > 1)
		div64_u64_rem(len, row, &rem);
	if (rem) {
		*error = "Target length is not a multiple of the stripe width";
		return -EINVAL;
	}
	a->geom.nr_data = nr_data;
	a->member_sectors = nr_data > 1 ? div_u64(len, nr_data) : len;
	return 0;
}

/* Start @ls: @len sectors share the placement, in @row at column @col. */
void rl_locset_init(struct rl_locset *ls, sector_t len, u64 row,
		    unsigned int col)
{
	ls->len = len;
	ls->row = row;
	ls->col = col;
	ls->nr = 0;
}

/* Append a location; the caller stays within RL_MAX_LOCS. */
void rl_locset_add(struct rl_locset *ls, unsigned int member,
		   sector_t sector, enum rl_part part)
{
	if (WARN_ON_ONCE(ls->nr >= RL_MAX_LOCS))
		return;
	ls->loc[ls->nr].member = member;
	ls->loc[ls->nr].sector = sector;
	ls->loc[ls->nr].part = part;
	ls->nr++;
}

/**
 * rl_locate() - every location of a logical sector (->locate)
 * @a: the array, constructed
 * @lsector: the logical sector
 * @ls: filled in
 *
 * Return: 0, or -ERANGE past the end of the array.
 */
int rl_locate(struct rl_array *a, sector_t lsector, struct rl_locset *ls)
{
	if (lsector >= a->ti->len)
		return -ERANGE;
	a->ops->locate(a, lsector, ls);
	return 0;
}

/**
 * rl_owner() - what a member sector holds (->owner)
 * @a: the array, constructed
 * @member: the member
 * @msector: the member sector (data_offset included)
 * @lsector: set to the logical sector for data and copies
 *
 * Return: the part; RL_PART_NONE for a member that does not exist, the
 * metadata area, and past the span the layout uses.
 */
enum rl_part rl_owner(struct rl_array *a, unsigned int member,
		      sector_t msector, sector_t *lsector)
{
	const struct rl_geom *g = &a->geom;

	if (member >= g->nr_members || msector < g->data_offset ||
	    msector - g->data_offset >= rl_member_span(a))
		return RL_PART_NONE;
	return a->ops->owner(a, member, msector, lsector);
}

static const char *const rl_part_names[RL_NR_PARTS] = {
	[RL_PART_NONE] = "none",
	[RL_PART_DATA] = "data",
	[RL_PART_COPY] = "copy",
	[RL_PART_P] = "p",
	[RL_PART_Q] = "q",
	[RL_PART_LOG] = "log",
};

/* The word for @part in the messages' answers. */
const char *rl_part_name(enum rl_part part)
{
	return part < RL_NR_PARTS ? rl_part_names[part] : "?";
}

/**
 * rl_locset_format() - the "locate" message's answer
 * @ls: the location set
 * @buf: the message result buffer
 * @size: its size
 *
 * "<len> <row> <col> <part>:<member>:<sector>...", each location in the
 * order of @ls.
 *
 * Return: 0, or -ENOSPC if @buf is too small.
 */
int rl_locset_format(const struct rl_locset *ls, char *buf, size_t size)
{
	size_t n;
	unsigned int i;

	n = snprintf(buf, size, "%llu %llu %u", (unsigned long long)ls->len,
		     (unsigned long long)ls->row, ls->col);
	for (i = 0; i < ls->nr && n < size; i++)
		n += snprintf(buf + n, size - n, " %s:%u:%llu",
			      rl_part_name(ls->loc[i].part), ls->loc[i].member,
			      (unsigned long long)ls->loc[i].sector);
	return n < size ? 0 : -ENOSPC;
}
