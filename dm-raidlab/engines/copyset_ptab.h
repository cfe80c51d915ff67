/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab copy-set engine: the table of delayed propagations (sr's
 * "propagate bg", paper 002 section 3.4). Pure: the caller holds its lock
 * and does the I/O (copyset_prop.c); KUnit suite dm_raidlab_copyset_ptab.
 *
 * An entry is a write of [lsector, lsector + len) within one chunk whose
 * replica 0 went (or goes) to every copy in the foreground while the
 * other replicas wait. It lives through these states:
 *
 *   WRITING  its write is in flight (taken at map, rl_cs_ptab_get())
 *   READY    the write ended: it waits, in the order the writes ended,
 *            to be copied
 *   COPYING  its replicas are being written (rl_cs_ptab_start())
 *   STUCK    it could not be copied: kept, so that reads of it keep to
 *            replica 0, until a covering write drops it or
 *            rl_cs_ptab_retry() makes it READY again
 *
 * Every entry not free is in the chunk hash, so that a read asks whether
 * any replica but 0 may be stale (rl_cs_ptab_pending()). A new write that
 * covers a READY or STUCK entry's range drops it (rl_cs_ptab_cover()):
 * its own entry copies the newer data over the same replicas. An entry
 * being copied is never dropped (its copy is in flight; the window lock
 * keeps the new write apart from it, copyset_prop.c), nor one still
 * WRITING.
 *
 * Each entry also says, for each copy, which replica holds its data
 * (rep[]; RL_CS_REP_ANY until the write of that copy is issued and the
 * queue policy has picked the nearest): reads of its range are offered
 * that replica only (rl_cs_ptab_fresh()). A new write to a chunk that
 * has entries goes to the replicas they name (rl_cs_ptab_pin()), so
 * that the entries of a chunk never disagree: a propagation copies the
 * newest data, and a covered entry can be dropped without a crash
 * bringing back its older replica.
 */
#ifndef DM_RAIDLAB_COPYSET_PTAB_H
#define DM_RAIDLAB_COPYSET_PTAB_H

#include <linux/list.h>
#include <linux/types.h>

enum rl_cs_pstate {
	RL_PENT_FREE,
	RL_PENT_WRITING,
	RL_PENT_READY,
	RL_PENT_COPYING,
	RL_PENT_STUCK,
};

/* A copy's replica not chosen yet (or any: no entry names one). */
#define RL_CS_REP_ANY	0xff

struct rl_cs_pent {
	struct list_head node;		/* free list, or the ready list */
	struct hlist_node hash;		/* its chunk's bucket, unless free */
	sector_t lsector;
	u32 len;
	enum rl_cs_pstate state;
	u8 *rep;			/* copies: the replica with its data */
};

struct rl_cs_ptab {
	struct rl_cs_pent *ent;
	unsigned int nr;		/* entries (table_entries) */
	unsigned int used;		/* not free */
	unsigned int hash_bits;
	unsigned int chunk_shift;
	unsigned int copies;		/* rep[] of each entry */
	u8 *reps;			/* nr * copies */
	struct list_head free;
	struct list_head ready;		/* READY, in the order they ended */
	struct hlist_head *hash;
};

int rl_cs_ptab_init(struct rl_cs_ptab *t, unsigned int nr,
		    unsigned int chunk_shift, unsigned int copies);
void rl_cs_ptab_exit(struct rl_cs_ptab *t);
int rl_cs_ptab_pin(const struct rl_cs_ptab *t, sector_t lsector, u8 *pin);
struct rl_cs_pent *rl_cs_ptab_get(struct rl_cs_ptab *t, sector_t lsector,
				  u32 len, const u8 *pin);
int rl_cs_ptab_adopt(struct rl_cs_ptab *t, unsigned int idx,
		     sector_t lsector, u32 len, const u8 *rep);
unsigned int rl_cs_ptab_cover(struct rl_cs_ptab *t,
			      const struct rl_cs_pent *e,
			      struct list_head *dropped);
void rl_cs_ptab_ready(struct rl_cs_ptab *t, struct rl_cs_pent *e);
struct rl_cs_pent *rl_cs_ptab_next(struct rl_cs_ptab *t);
void rl_cs_ptab_start(struct rl_cs_ptab *t, struct rl_cs_pent *e);
void rl_cs_ptab_stuck(struct rl_cs_ptab *t, struct rl_cs_pent *e);
void rl_cs_ptab_retry(struct rl_cs_ptab *t);
void rl_cs_ptab_put(struct rl_cs_ptab *t, struct rl_cs_pent *e);
bool rl_cs_ptab_pending(const struct rl_cs_ptab *t, sector_t lsector,
			sector_t len);
unsigned long rl_cs_ptab_fresh(const struct rl_cs_ptab *t, sector_t lsector,
			       sector_t len, unsigned int copy);
unsigned int rl_cs_ptab_named(const struct rl_cs_ptab *t, sector_t lsector,
			      unsigned int copy);

/* Whether every entry is taken: a new write propagates in the foreground. */
static inline bool rl_cs_ptab_full(const struct rl_cs_ptab *t)
{
	return t->used == t->nr;
}

#endif /* DM_RAIDLAB_COPYSET_PTAB_H */
