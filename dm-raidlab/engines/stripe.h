/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab parity stripe engine, shared by raid4 and raid5 (one parity
 * member per row, P) and raid6 (two, P and Q).
 *
 * A parity layout is a small table entry (struct rl_parity_layout): where
 * the parity of a row lives (P, and Q for a double-parity layout) and
 * which member holds each data column. Every
 * access that touches parity, or a failed member, is served by a stripe
 * context under a per-row lock and follows an explicit plan (struct
 * rl_plan): which member ranges to read, how the new parity is formed, and
 * which ranges to write. The plan is a pure function of the geometry, the
 * access and the failed members, so it is tested on its own. The one commit
 * point of a write is the write phase: nothing reaches a member before every
 * read of the plan has landed and the new parity is in memory.
 */
#ifndef DM_RAIDLAB_STRIPE_H
#define DM_RAIDLAB_STRIPE_H

#include "../raidlab.h"

struct rl_parity_layout {
	/* member holding the parity of @row */
	unsigned int (*parity_member)(const struct rl_geom *g, u64 row);
	/* member holding data column @col of @row */
	unsigned int (*data_member)(const struct rl_geom *g, u64 row,
				    unsigned int col);
	/* data column that @member holds in @row, RL_NONE for P or Q */
	unsigned int (*member_col)(const struct rl_geom *g, u64 row,
				   unsigned int member);
	/*
	 * Double parity only (NULL for single parity): member holding the Q
	 * syndrome of @row. Data column k is the syndrome's k-th term: its
	 * coefficient in Q is g^k (lib/raid6).
	 */
	unsigned int (*q_member)(const struct rl_geom *g, u64 row);
};

extern const struct rl_parity_layout rl_raid4_layout;
extern const struct rl_parity_layout rl_raid5_layout;
extern const struct rl_parity_layout rl_raid6_layout;

enum rl_plan_mode {
	RL_PLAN_READ,		/* read live data columns */
	RL_PLAN_RECON_READ,	/* rebuild failed members for a read */
	RL_PLAN_RMW,		/* read-modify-write: P ^= old ^ new (Q too) */
	RL_PLAN_RCW,		/* reconstruct-write: P (and Q) from the row */
	RL_PLAN_RECON_WRITE,	/* rebuild failed members, then as RCW */
	RL_PLAN_NO_PARITY,	/* parity member(s) failed: data only */
	RL_PLAN_REBUILD,	/* write one failed member from the rest */
	RL_PLAN_CHECK,		/* read the whole row: parity against data */
};

/* A sector range within a chunk; empty when lo == hi. */
struct rl_span {
	u32 lo;
	u32 hi;
};

struct rl_plan {
	enum rl_plan_mode mode;
	u64 row;
	unsigned int pmember;		/* parity member of the row */
	unsigned int qmember;		/* Q member, or RL_NONE: single parity */
	unsigned int missing;		/* member rebuilt in memory, or RL_NONE */
	unsigned int missing2;		/* a second one (double parity), or RL_NONE */
	struct rl_span prange;		/* parity range: hull of the access */
	struct rl_span bio[RL_MAX_MEMBERS];	/* where the access lands */
	struct rl_span read[RL_MAX_MEMBERS];
	struct rl_span write[RL_MAX_MEMBERS];
	unsigned int nr_reads;
	unsigned int nr_writes;
};

static inline bool rl_span_empty(struct rl_span s)
{
	return s.lo >= s.hi;
}

/* rl_plan_access() flags */
#define RL_PLAN_WRITE		BIT(0)	/* a write (else a read) */
#define RL_PLAN_FULL_ROW	BIT(1)	/* row not known consistent: recompute all of its parity */
#define RL_PLAN_RESYNC		BIT(2)	/* no access: make the row's parity consistent */
#define RL_PLAN_DO_REBUILD	BIT(3)	/* no access: rebuild the failed member's chunk */
#define RL_PLAN_DO_CHECK	BIT(4)	/* no access: read the row to compare parity */

int rl_plan_access(const struct rl_geom *g, u64 row, u32 off, u32 len,
		   unsigned int flags, unsigned long failed, struct rl_plan *p);
int rl_plan_rebuild(const struct rl_geom *g, u64 row, unsigned int target,
		    unsigned long failed, struct rl_plan *p);

void rl_plan_compute(const struct rl_plan *p, const struct rl_geom *g,
		     struct page **const *buf, struct bio *bio, u32 off);
u32 rl_plan_check(struct rl_plan *p, const struct rl_geom *g,
		  struct page **const *buf, bool repair);

static inline bool rl_plan_writes(const struct rl_plan *p)
{
	return p->nr_writes != 0;
}

u64 rl_row_of(const struct rl_geom *g, sector_t lsector, unsigned int *col);
void rl_stripe_map_sector(const struct rl_geom *g, sector_t lsector,
			  struct rl_loc *loc);
int rl_stripe_capacity(struct rl_array *a, sector_t len, char **error);
void rl_stripe_locate(struct rl_array *a, sector_t lsector,
		      struct rl_locset *ls);
enum rl_part rl_stripe_owner(struct rl_array *a, unsigned int member,
			     sector_t msector, sector_t *lsector);

/*
 * What every scheme of the engine shares of its struct rl_scheme_ops: the
 * engine's hooks.
 */
#define RL_STRIPE_ENGINE_OPS					\
	.parity = true,						\
	.capacity = rl_stripe_capacity,				\
	.locate = rl_stripe_locate,				\
	.owner = rl_stripe_owner,				\
	.ctr = rl_stripe_ctr,					\
	.dtr = rl_stripe_dtr,					\
	.map = rl_stripe_map,					\
	.end_io = rl_stripe_end_io,				\
	.io_hints = rl_stripe_io_hints,				\
	.sync_range = rl_stripe_sync_range,			\
	.readd = true,						\
	.replace = true

/*
 * What raid4 and raid5 share of their struct rl_scheme_ops: all but the
 * name and the layout, which are what tell them apart.
 */
#define RL_STRIPE_SCHEME_OPS					\
	.min_members = 3,					\
	.redundancy = 1,					\
	RL_STRIPE_ENGINE_OPS

int rl_stripe_ctr(struct rl_array *a);
void rl_stripe_dtr(struct rl_array *a);
int rl_stripe_map(struct rl_array *a, struct bio *bio);
int rl_stripe_end_io(struct rl_array *a, struct bio *bio, blk_status_t *error);
void rl_stripe_io_hints(struct rl_array *a, struct queue_limits *limits);
int rl_stripe_sync_range(struct rl_array *a, struct rl_sync_req *req);

#endif /* DM_RAIDLAB_STRIPE_H */
