// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab raid10: striped mirrors in md raid10's layouts, the RAID-10
 * baseline of papers 002 and 004. Each chunk has @copies copies on
 * distinct members:
 *
 *   near     the copies of a chunk side by side in one row of chunks
 *            (md's n<copies>, the default)
 *   far      the members striped whole @copies times, one band of each
 *            member a copy, each band's copy one member further on (f<k>)
 *   offset   each row of chunks repeated @copies times, shifted by one
 *            member a repeat (o<k>)
 *
 * placed and sized as md places and sizes them (far sets of all the
 * members), so an md user finds the same placement; the layout is sized
 * from the target length alone (rl_copyset_capacity()). The I/O is the
 * copy-set engine's (engines/copyset.c, whose head comment describes the
 * read balancing, the write fan-out, read-error rewrites and the
 * background jobs): reads go to one copy, writes and discards to every
 * copy. The data survives while every chunk keeps a copy: any
 * @copies - 1 failed members, and more where they hold no chunk's every
 * copy (->survives).
 *
 * Table options, after the generic ones:
 *
 *   layout near|far|offset     where the copies lie (default near)
 *   copies <2..#members>       copies of each chunk (default 2)
 *   reads balance|dup          one copy chosen by tracker, queue and head
 *                              (default), or duplicate-then-cancel
 *                              (engines/copyset_read.c)
 */
#include <linux/string.h>

#include "../engines/copyset.h"

enum raid10_opt {
	RAID10_OPT_LAYOUT,
	RAID10_OPT_COPIES,
	RAID10_OPT_READS,
	RAID10_NR_OPTS,
};

static const enum rl_cs_kind raid10_kinds[] = {
	RL_CS_NEAR, RL_CS_FAR, RL_CS_OFFSET,
};

static int raid10_parse_layout(const char *word, unsigned int *val)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(raid10_kinds); i++) {
		if (!strcasecmp(word, rl_cs_kind_name(raid10_kinds[i]))) {
			*val = raid10_kinds[i];
			return 0;
		}
	}
	return -EINVAL;
}

/* In enum raid10_opt's order. */
static const struct rl_opt raid10_opts[RAID10_NR_OPTS] = {
	[RAID10_OPT_LAYOUT] = RL_OPT("raid10", layout, RL_CS_NEAR, RL_CS_OFFSET,
		.def = RL_CS_NEAR, .parse = raid10_parse_layout,
		.invalid = "Invalid layout: near, far or offset"),
	[RAID10_OPT_COPIES] = RL_OPT("raid10", copies, 2, RL_MAX_MEMBERS,
		.def = 2),
	[RAID10_OPT_READS] = RL_CS_OPT_READS,
};

/* Any copies - 1 members may fail. */
static unsigned int raid10_redundancy_of(const struct rl_args *args)
{
	return args->sopt[RAID10_OPT_COPIES] - 1;
}

static enum rl_cs_kind raid10_kind(const struct rl_array *a)
{
	return a->sopt[RAID10_OPT_LAYOUT];
}

static unsigned int raid10_copies(const struct rl_array *a)
{
	return a->sopt[RAID10_OPT_COPIES];
}

static int raid10_capacity(struct rl_array *a, sector_t len, char **error)
{
	return rl_copyset_capacity(a, raid10_kind(a), raid10_copies(a), len,
				   error);
}

static void raid10_locate(struct rl_array *a, sector_t lsector,
			  struct rl_locset *ls)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, raid10_kind(a), raid10_copies(a), &l);
	rl_copyset_locate(a, &l, lsector, ls);
}

static enum rl_part raid10_owner(struct rl_array *a, unsigned int member,
				 sector_t msector, sector_t *lsector)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, raid10_kind(a), raid10_copies(a), &l);
	return rl_copyset_owner(a, &l, member, msector, lsector);
}

static int raid10_ctr(struct rl_array *a)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, raid10_kind(a), raid10_copies(a), &l);
	a->ti->num_discard_bios = 1;
	return rl_copyset_create(a, &l, a->sopt[RAID10_OPT_READS], NULL,
				 NULL);
}

/* A chunk the smallest I/O worth it; a row of chunks over the copies. */
static void raid10_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	unsigned int chunk_bytes = rl_chunk_sectors(&a->geom) << SECTOR_SHIFT;
	unsigned int cols = max(a->geom.nr_members / raid10_copies(a), 1U);

	rl_limits_io(limits, chunk_bytes, chunk_bytes * cols);
}

static void raid10_status(struct rl_array *a, status_type_t type, char *result,
			  unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz;

	if (type == STATUSTYPE_INFO)
		DMEMIT(" %s %u", rl_cs_kind_name(raid10_kind(a)),
		       raid10_copies(a));
	else if (type == STATUSTYPE_TABLE)
		DMEMIT(" layout %s copies %u", rl_cs_kind_name(raid10_kind(a)),
		       raid10_copies(a));
	*psz = sz;
	if (type == STATUSTYPE_TABLE)
		rl_copyset_status_table(a, result, maxlen, psz);
}

const struct rl_scheme_ops rl_raid10_ops = {
	.name = "raid10",
	.per_bio_size = sizeof(struct rl_cs_bio),
	.min_members = 2,
	.redundancy = 1,
	.parity = false,
	.opts = raid10_opts,
	.nr_opts = RAID10_NR_OPTS,
	.redundancy_of = raid10_redundancy_of,
	.capacity = raid10_capacity,
	.locate = raid10_locate,
	.owner = raid10_owner,
	.ctr = raid10_ctr,
	.dtr = rl_copyset_destroy,
	.map = rl_copyset_map,
	.end_io = rl_copyset_end_io,
	.io_hints = raid10_io_hints,
	.status = raid10_status,
	.sync_range = rl_copyset_sync_range,
	.readd = true,
	.replace = true,
	.survives = rl_copyset_survives,
};
