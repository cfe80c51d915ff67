// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab chained: chained declustering (Hsiao and DeWitt, as paper 004
 * uses it). Over N members, partition i (the chunks k with k mod N = i)
 * has its primary copies in the first half of member i and its backups in
 * the second half of member i + 1 (mod N). The data survives any set of
 * failed members no two of which are neighbours in the chain (->survives);
 * two neighbours lose the partition between them. A member is rebuilt
 * from both neighbours: its first half from the next member's backups,
 * its second half from the one before's primaries.
 *
 * The I/O is the copy-set engine's (engines/copyset.c) over the "chained"
 * layout (engines/copyset_layout.c): reads go to one copy (with members
 * out, held to the chain's loads: rl_cs_chained_prefer()), writes and
 * discards to both.
 *
 * Table options, after the generic ones:
 *
 *   reads balance|dup          as raid10's (engines/copyset.h)
 */
#include "../engines/copyset.h"

enum chained_opt {
	CHAINED_OPT_READS,
	CHAINED_NR_OPTS,
};

static const struct rl_opt chained_opts[CHAINED_NR_OPTS] = {
	[CHAINED_OPT_READS] = RL_CS_OPT_READS,
};

static int chained_capacity(struct rl_array *a, sector_t len, char **error)
{
	return rl_copyset_capacity(a, RL_CS_CHAINED, 2, len, error);
}

static void chained_locate(struct rl_array *a, sector_t lsector,
			   struct rl_locset *ls)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, RL_CS_CHAINED, 2, &l);
	rl_copyset_locate(a, &l, lsector, ls);
}

static enum rl_part chained_owner(struct rl_array *a, unsigned int member,
				  sector_t msector, sector_t *lsector)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, RL_CS_CHAINED, 2, &l);
	return rl_copyset_owner(a, &l, member, msector, lsector);
}

static int chained_ctr(struct rl_array *a)
{
	struct rl_cs_layout l;

	rl_copyset_layout(a, RL_CS_CHAINED, 2, &l);
	a->ti->num_discard_bios = 1;
	return rl_copyset_create(a, &l, a->sopt[CHAINED_OPT_READS], NULL,
				 NULL);
}

/* A chunk the smallest I/O worth it; a row of chunks, one a member. */
static void chained_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	unsigned int chunk_bytes = rl_chunk_sectors(&a->geom) << SECTOR_SHIFT;

	rl_limits_io(limits, chunk_bytes, chunk_bytes * a->geom.nr_members);
}

/* No INFO fields; the TABLE gives a reads policy other than the default. */
static void chained_status(struct rl_array *a, status_type_t type,
			   char *result, unsigned int maxlen, unsigned int *psz)
{
	if (type == STATUSTYPE_TABLE)
		rl_copyset_status_table(a, result, maxlen, psz);
}

const struct rl_scheme_ops rl_chained_ops = {
	.name = "chained",
	.per_bio_size = sizeof(struct rl_cs_bio),
	.min_members = 3,
	.redundancy = 1,
	.parity = false,
	.opts = chained_opts,
	.nr_opts = CHAINED_NR_OPTS,
	.capacity = chained_capacity,
	.locate = chained_locate,
	.owner = chained_owner,
	.ctr = chained_ctr,
	.dtr = rl_copyset_destroy,
	.map = rl_copyset_map,
	.end_io = rl_copyset_end_io,
	.io_hints = chained_io_hints,
	.status = chained_status,
	.sync_range = rl_copyset_sync_range,
	.readd = true,
	.replace = true,
	.survives = rl_copyset_survives,
};
