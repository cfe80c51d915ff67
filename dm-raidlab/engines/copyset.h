/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab copy-set engine: its layouts (copyset_layout.c). A copy-set
 * layout says where the copies of each logical chunk lie over an extent:
 * a set of members (numbered 0..nr-1 within the extent) and the member
 * sectors [base, base + used) on each. The copies of a chunk are at the
 * same offsets within it, so a map holds to the end of the chunk.
 *
 *   mirror   every member holds every sector at the same offset: any
 *            length, in no whole chunks (copies = nr)
 *   near     md raid10's near layout: chunk k's copies are slots
 *            k * copies .. k * copies + copies - 1 of a grid of rows of
 *            nr members, at one member offset when they share a row
 *   far      md raid10's far layout: the members striped as raid0 once
 *            per copy, copy j in the j-th far part of each member,
 *            shifted j members on.
 *   offset   md raid10's offset layout: copy j one chunk row below copy
 *            j - 1, shifted one member on.
 *   chained  chained declustering (Hsiao and DeWitt): chunk k is in
 *            partition k mod nr; its primary copy is in the first half of
 *            that member, its backup in the second half of the next one.
 *
 * near, far and offset place and size exactly as md raid10 does with the
 * layout numbers n<copies>, f<copies> and o<copies> (far sets of all
 * members, md's original layout), so an md user finds the same placement
 * and capacity. Pure: KUnit suite dm_raidlab_copyset, which checks them
 * against md's own formulas.
 */
#ifndef DM_RAIDLAB_COPYSET_H
#define DM_RAIDLAB_COPYSET_H

#include <linux/types.h>

enum rl_cs_kind {
	RL_CS_MIRROR,
	RL_CS_NEAR,
	RL_CS_FAR,
	RL_CS_OFFSET,
	RL_CS_CHAINED,
	RL_CS_NR_KINDS,
};

/* A copy-set layout over an extent (rl_cs_init()). */
struct rl_cs_layout {
	enum rl_cs_kind kind;
	unsigned int nr;		/* members in the extent */
	unsigned int copies;		/* of each chunk, on distinct members */
	unsigned int chunk_shift;
	sector_t base;			/* the extent's first member sector */
	sector_t used;			/* member sectors used from base */
	sector_t stride;		/* far: copy to copy; chained: the half */
	sector_t chunks;		/* logical chunks (whole ones) */
	sector_t capacity;		/* logical sectors */
};

/* One copy of a logical sector. */
struct rl_cs_copy {
	unsigned int member;		/* within the extent */
	sector_t sector;		/* member sector, base included */
};

int rl_cs_init(struct rl_cs_layout *l, enum rl_cs_kind kind, unsigned int nr,
	       unsigned int copies, unsigned int chunk_shift, sector_t base,
	       sector_t member_len, char **error);
sector_t rl_cs_map(const struct rl_cs_layout *l, sector_t lsector,
		   struct rl_cs_copy *c);
int rl_cs_unmap(const struct rl_cs_layout *l, unsigned int member,
		sector_t msector, sector_t *lsector);
const char *rl_cs_kind_name(enum rl_cs_kind kind);

/* chained declustering after failures: which copy serves a read */
int rl_cs_chained_share(unsigned int nr, unsigned long failed,
			unsigned int part, unsigned int *num,
			unsigned int *den);
bool rl_cs_chained_primary(unsigned int num, unsigned int den, u64 row);

#endif /* DM_RAIDLAB_COPYSET_H */
