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

static void mirror_locate(struct rl_array *a, sector_t lsector,
			  struct rl_locset *ls)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, RL_CS_MIRROR, a->geom.nr_members, &l);
	rl_copyset_locate(a, &l, lsector, ls);
}

static enum rl_part mirror_owner(struct rl_array *a, unsigned int member,
				 sector_t msector, sector_t *lsector)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, RL_CS_MIRROR, a->geom.nr_members, &l);
	return rl_copyset_owner(a, &l, member, msector, lsector);
}

static int mirror_map(struct rl_array *a, struct bio *bio)
{
	unsigned int m;

	if (bio_op(bio) != REQ_OP_DISCARD)
		return rl_copyset_map(a, bio);
	/* a failed member misses it, and no intent region records that */
	m = dm_bio_get_target_bio_nr(bio);
	if (m < a->geom.nr_members && rl_member_failed(a, m))
		rl_sync_readd_forget(a, m);
	return rl_map_duplicate(a, bio);
}

static int mirror_ctr(struct rl_array *a)
{
	struct rl_cs_layout l;
	int r;

	rl_copyset_layout(a, RL_CS_MIRROR, a->geom.nr_members, &l);
	r = rl_copyset_create(a, &l, RL_CS_READS_BALANCE, NULL, NULL);
	if (r)
		return r;
	a->ti->num_discard_bios = a->geom.nr_members;
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
	.readd = true,
	.replace = true,
	.survives = rl_copyset_survives,
};
