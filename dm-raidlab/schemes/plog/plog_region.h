/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab parity logging: what the region manager's files share
 * (plog_layout.c lists them): the durable state's in-core form and the
 * helpers one file gives another. Private to the region manager; its
 * interface is plog.h.
 */
#ifndef DM_RAIDLAB_PLOG_REGION_H
#define DM_RAIDLAB_PLOG_REGION_H

#include <linux/spinlock.h>

#include "../../svc/metadata.h"
#include "plog.h"

/* A segment header without its record descriptors. */
#define RL_PLOG_HDR_FIXED	sizeof(struct rl_plog_seg_disk)

struct rl_plog_md_reg {
	u64 gen;
	u32 segs;
	u32 slot;			/* the slot holding gen, segs */
	bool rewrite;			/* RL_PLOG_ENT_REWRITE in that slot */
};

struct rl_plog_md {
	struct rl_md *md;
	struct rl_md_area area;
	void **blk;			/* DAX address of every area block */
	u32 nr_regions;
	unsigned int nr_bufs;
	u32 seg_bytes;
	u64 twin_start;			/* area block of twin 0 */
	u32 twin_blocks;
	spinlock_t lock;		/* reg[] and the table slots */
	struct rl_plog_md_reg *reg;
	void **img;			/* copies of the twins found in use */
	bool formatted;			/* the area was new: generations restart */
	/* data slots (RL_PLOG_SLOT_AREA_ID); nr_slots 0: none */
	void **sblk;			/* DAX address of every slot-area block */
	unsigned int nr_slots;
	u32 slot_blocks;
	struct rl_plog_slot_id *sid;	/* the slots that checked out at open */
	void **sdata;			/* and their data, or NULL */
};

/* plog_md_fmt.c */
u32 rl_plog_table_blocks(const struct rl_plog_layout *lo);
u32 rl_plog_twin_blocks(const struct rl_plog_layout *lo);

/* plog_md.c */
bool rl_plog_md_have(struct rl_md *md, u32 id);
void rl_plog_blk_put(void *const *blk, u64 off, const void *src,
		     size_t len);
int rl_plog_md_persist(struct rl_plog_md *pm);
int rl_plog_blk_get(void *const *blk, u64 off, void *dst, size_t len);

#endif /* DM_RAIDLAB_PLOG_REGION_H */
