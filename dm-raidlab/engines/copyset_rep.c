// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: rotational replicas on each member (the sr
 * scheme, paper 002). The engine works in member sectors after
 * data_offset, "column sectors"; with replicas (rl_copyset_create() given
 * a struct rl_rrep) each column sector has Dr places on its member, at
 * sectors of the disk's geometry (svc/rrep.h). This file is the one
 * translation between the two:
 *
 *   - every access is cut at a logical track's end (cs_rep_left()), so
 *     that each replica of a run is one run of member sectors or wraps
 *     its track;
 *   - a read is offered the replicas that do not wrap, and the member's
 *     queue policy picks one (rlook, rsatf; the others take replica 0);
 *   - a foreground write goes to every replica (its clones,
 *     copyset_io.c); a background write too (cs_rep_mio()), and a
 *     background read takes replica 0.
 *
 * Without replicas every helper is the identity (data_offset + sector).
 * The write-intent regions, the window lock's buckets, the rebuild
 * cursors and the bad-block lists stay in column sectors: a bad-block
 * entry stands for the column sector on every replica of its member.
 */
#include <linux/minmax.h>

#include "copyset_int.h"

/*
 * Sectors from column sector @y, at most @max, that one access may take:
 * to its logical track's end for a read (@write false), and where no
 * replica wraps its track for a write (it goes to every replica).
 */
sector_t cs_rep_left(const struct rl_copyset *cs, sector_t y, sector_t max,
		     bool write)
{
	struct rl_rrep_loc l;
	u32 n = min_t(sector_t, max, U32_MAX);

	if (!cs->dr)
		return max;
	rl_rrep_map(&cs->rr, y, &l);
	return write ? rl_rrep_unwrapped(&cs->rr, &l, n) : min(n, l.left);
}

/* Member sector, data_offset included, of replica @r of column sector @y. */
sector_t cs_rep_sector(struct rl_array *a, sector_t y, unsigned int r)
{
	const struct rl_copyset *cs = rl_copyset(a);
	struct rl_rrep_loc l;

	if (!cs->dr)
		return a->geom.data_offset + y;
	rl_rrep_map(&cs->rr, y, &l);
	return rl_rrep_sector(&cs->rr, &l, r);
}

/* Replicas a write to a member goes to: 1 without replicas. */
unsigned int cs_rep_count(const struct rl_copyset *cs)
{
	return cs->dr ?: 1;
}

/*
 * The places a read of @len sectors at column sector @y (within one
 * logical track) may be served from: replica 0, then every other replica
 * that does not wrap its track, as member sectors (data_offset included)
 * in @alt and their replica numbers in @rep (RL_RREP_MAX_DR of each; @rep
 * may be NULL). Returns how many (1 without replicas).
 */
unsigned int cs_rep_alts(struct rl_array *a, sector_t y, sector_t len,
			 sector_t *alt, u8 *rep)
{
	const struct rl_copyset *cs = rl_copyset(a);
	struct rl_rrep_loc l;
	unsigned int r, n = 1;

	if (rep)
		rep[0] = 0;
	if (!cs->dr) {
		alt[0] = a->geom.data_offset + y;
		return 1;
	}
	rl_rrep_map(&cs->rr, y, &l);
	alt[0] = rl_rrep_sector(&cs->rr, &l, 0);
	for (r = 1; r < cs->dr; r++) {
		if (!rl_rrep_fits(&cs->rr, &l, r, len))
			continue;
		if (rep)
			rep[n] = r;
		alt[n++] = rl_rrep_sector(&cs->rr, &l, r);
	}
	return n;
}

/* A read served by a member: count the replica that served it. */
void cs_rep_read_done(struct rl_array *a, struct bio *bio)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_bio *pb = rl_pb(bio);

	if (cs->dr && pb->qe.chosen < RL_RREP_MAX_DR)
		atomic64_inc(&cs->rep_reads[cs_pb(bio)->rep[pb->qe.chosen]]);
}

/**
 * rl_copyset_rrep() - the replica layout of an array's members
 * @a: an array whose scheme's ->ctr made the engine with replicas
 *
 * Return: the layout (svc/rrep.h).
 */
const struct rl_rrep *rl_copyset_rrep(struct rl_array *a)
{
	return &rl_copyset(a)->rr;
}

/**
 * rl_copyset_status_replicas() - the reads each replica served
 * @a: the array
 * @result: the status line
 * @maxlen: its size
 * @psz: where the line ends, moved on
 *
 * One word, the counts of replicas 0, 1, ... joined by ':' (sr's last
 * INFO field).
 */
void rl_copyset_status_replicas(struct rl_array *a, char *result,
				unsigned int maxlen, unsigned int *psz)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int sz = *psz, r;

	for (r = 0; r < cs_rep_count(cs); r++)
		DMEMIT("%s%llu", r ? ":" : " ",
		       (unsigned long long)atomic64_read(&cs->rep_reads[r]));
	*psz = sz;
}

/*
 * Background I/O of column sectors [y, y + len) of member @m, in group
 * @g, as rl_mio() takes it: a read reads the first replica in @reps, a
 * write writes every replica in @reps (CS_REP_ALL: all of them), cut
 * where a replica would wrap its track. Without replicas, replica 0 is
 * the one place (@reps must name it). Sleeps (for the bioset).
 */
void cs_rep_mio(struct rl_mio_group *g, unsigned int m, blk_opf_t opf,
		unsigned long reps, sector_t y, void *buf, sector_t len,
		enum rl_class class, enum rl_io_kind kind)
{
	struct rl_array *a = g->a;
	const struct rl_copyset *cs = rl_copyset(a);
	bool write = op_is_write(opf);
	unsigned int r, nr = cs_rep_count(cs);
	struct rl_rrep_loc l;
	sector_t n;

	reps &= GENMASK(nr - 1, 0);
	if (!write && reps)
		reps = BIT(__ffs(reps));
	if (!cs->dr) {
		if (reps)
			rl_mio(g, m, opf, y, buf, len, class, kind);
		return;
	}
	for (; len; y += n, len -= n, buf += n << SECTOR_SHIFT) {
		rl_rrep_map(&cs->rr, y, &l);
		n = rl_rrep_unwrapped(&cs->rr, &l, min_t(sector_t, len, U32_MAX));
		for_each_set_bit(r, &reps, nr)
			rl_mio(g, m, opf, rl_rrep_sector(&cs->rr, &l, r) -
			       a->geom.data_offset, buf, n, class, kind);
	}
}
