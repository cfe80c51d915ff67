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

struct rl_cs_pent {
	struct list_head node;		/* free list, or the ready list */
	struct hlist_node hash;		/* its chunk's bucket, unless free */
	sector_t lsector;
	u32 len;
	enum rl_cs_pstate state;
};

struct rl_cs_ptab {
	struct rl_cs_pent *ent;
	unsigned int nr;		/* entries (table_entries) */
	unsigned int used;		/* not free */
	unsigned int hash_bits;
	unsigned int chunk_shift;
	struct list_head free;
	struct list_head ready;		/* READY, in the order they ended */
	struct hlist_head *hash;
};

int rl_cs_ptab_init(struct rl_cs_ptab *t, unsigned int nr,
		    unsigned int chunk_shift);
void rl_cs_ptab_exit(struct rl_cs_ptab *t);
struct rl_cs_pent *rl_cs_ptab_get(struct rl_cs_ptab *t, sector_t lsector,
				  u32 len);
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

/* Whether every entry is taken: a new write propagates in the foreground. */
static inline bool rl_cs_ptab_full(const struct rl_cs_ptab *t)
{
	return t->used == t->nr;
}

#endif /* DM_RAIDLAB_COPYSET_PTAB_H */
