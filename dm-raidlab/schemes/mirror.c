// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab mirror: N-way mirroring. Every member holds every sector, at
 * the same offset: the copy-set engine (engines/copyset.c) over the
 * "mirror" layout of all the members, whose head comment describes the
 * I/O path, the read-error fixes and the background jobs. The scheme
 * adds its sizing, the locate message's answers and discard (sent to
 * every member at once).
 */
#include "../engines/copyset.h"
#include "../svc/layout.h"

/* No rows: any length that fits on every member. */
static int mirror_capacity(struct rl_array *a, sector_t len, char **error)
{
	return rl_size_rows(a, 1, len, error);
}

/*
 * The copy-set layout over all members (engines/copyset.h): every member
 * holds every sector at the same offset, member 0's copy the "data".
 */
static void mirror_layout(struct rl_array *a, struct rl_cs_layout *l)
{
	unsigned int n = a->geom.nr_members;
	char *error;

	WARN_ON_ONCE(rl_cs_init(l, RL_CS_MIRROR, n, n, a->geom.chunk_shift,
				a->geom.data_offset, a->member_sectors,
				&error));
}

static void mirror_locate(struct rl_array *a, sector_t lsector,
			  struct rl_locset *ls)
{
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_cs_layout l;
	unsigned int j;

	mirror_layout(a, &l);
	rl_locset_init(ls, rl_cs_map(&l, lsector, c), 0, 0);
	for (j = 0; j < l.copies; j++)
		rl_locset_add(ls, c[j].member, c[j].sector,
			      j ? RL_PART_COPY : RL_PART_DATA);
}

static enum rl_part mirror_owner(struct rl_array *a, unsigned int member,
				 sector_t msector, sector_t *lsector)
{
	struct rl_cs_layout l;
	int j;

	mirror_layout(a, &l);
	j = rl_cs_unmap(&l, member, msector, lsector);
	if (j < 0)
		return RL_PART_NONE;
	return j ? RL_PART_COPY : RL_PART_DATA;
}

static int mirror_map(struct rl_array *a, struct bio *bio)
{
	if (bio_op(bio) == REQ_OP_DISCARD)
		return rl_map_duplicate(a, bio);
	return rl_copyset_map(a, bio);
}

static int mirror_ctr(struct rl_array *a)
{
	unsigned int n = a->geom.nr_members;
	struct rl_cs_layout l;
	int r;

	r = rl_cs_init(&l, RL_CS_MIRROR, n, n, a->geom.chunk_shift, 0,
		       a->member_sectors, &a->ti->error);
	if (r)
		return r;
	r = rl_copyset_create(a, &l);
	if (r)
		return r;
	a->ti->num_discard_bios = n;
	return 0;
}

const struct rl_scheme_ops rl_mirror_ops = {
	.name = "mirror",
	.per_bio_size = sizeof(struct rl_cs_bio),
	.min_members = 2,
	.redundancy = RL_MAX_MEMBERS,	/* any one member holds the data */
	.parity = false,
	.capacity = mirror_capacity,
	.locate = mirror_locate,
	.owner = mirror_owner,
	.ctr = mirror_ctr,
	.dtr = rl_copyset_destroy,
	.map = mirror_map,
	.end_io = rl_copyset_end_io,
	.sync_range = rl_copyset_sync_range,
	.survives = rl_copyset_survives,
};
