// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab raid0: block-interleaved striping, no redundancy.
 *
 *   row 0:  D0 D1 D2 D3
 *   row 1:  D4 D5 D6 D7
 *
 * Every bio is split at chunk boundaries (max_io_len, and discards in map)
 * and remapped straight to its member.
 */
#include "../raidlab.h"
#include "../svc/layout.h"

static void raid0_map_sector(const struct rl_geom *g, sector_t lsector,
			     struct rl_loc *loc)
{
	u32 col;

	loc->row = div_u64_rem(lsector >> g->chunk_shift, g->nr_members, &col);
	loc->col = col;
	loc->member = col;
	loc->sector = g->data_offset + (loc->row << g->chunk_shift) +
		      (lsector & (rl_chunk_sectors(g) - 1));
}

/* A row is a chunk on every member. */
static int raid0_capacity(struct rl_array *a, sector_t len, char **error)
{
	return rl_size_rows(a, a->geom.nr_members, len, error);
}

static void raid0_locate(struct rl_array *a, sector_t lsector,
			 struct rl_locset *ls)
{
	const struct rl_geom *g = &a->geom;
	struct rl_loc loc;

	raid0_map_sector(g, lsector, &loc);
	rl_locset_init(ls, rl_chunk_left(g, lsector), loc.row, loc.col);
	rl_locset_add(ls, loc.member, loc.sector, RL_PART_DATA);
}

static enum rl_part raid0_owner(struct rl_array *a, unsigned int member,
				sector_t msector, sector_t *lsector)
{
	const struct rl_geom *g = &a->geom;
	u64 row;

	msector -= g->data_offset;
	row = msector >> g->chunk_shift;
	*lsector = ((row * g->nr_members + member) << g->chunk_shift) +
		   (msector & (rl_chunk_sectors(g) - 1));
	return RL_PART_DATA;
}

static int raid0_ctr(struct rl_array *a)
{
	a->ti->num_discard_bios = 1;
	return dm_set_target_max_io_len(a->ti, rl_chunk_sectors(&a->geom));
}

static void raid0_dtr(struct rl_array *a)
{
}

static int raid0_map(struct rl_array *a, struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);
	struct rl_loc loc;

	if (bio_op(bio) == REQ_OP_DISCARD)
		rl_trim_to_chunk(a, bio, pb->lsector);	/* max_io_len does not split them */

	raid0_map_sector(&a->geom, pb->lsector, &loc);
	if (rl_member_failed(a, loc.member))
		return DM_MAPIO_KILL;
	rl_remap(a, bio, loc.member, loc.sector);
	return DM_MAPIO_SUBMITTED;
}

/* Nothing to retry without redundancy: rl_end_remapped() never asks to. */
static int raid0_end_io(struct rl_array *a, struct bio *bio,
			blk_status_t *error)
{
	rl_end_remapped(a, bio, *error);
	return DM_ENDIO_DONE;
}

static void raid0_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	unsigned int chunk_bytes = rl_chunk_sectors(&a->geom) << SECTOR_SHIFT;

	rl_limits_io(limits, chunk_bytes, chunk_bytes * a->geom.nr_members);
}

const struct rl_scheme_ops rl_raid0_ops = {
	.name = "raid0",
	.min_members = 2,
	.redundancy = 0,
	.parity = false,
	.capacity = raid0_capacity,
	.locate = raid0_locate,
	.owner = raid0_owner,
	.ctr = raid0_ctr,
	.dtr = raid0_dtr,
	.map = raid0_map,
	.end_io = raid0_end_io,
	.io_hints = raid0_io_hints,
};
