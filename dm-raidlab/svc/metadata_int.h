/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab metadata: what its files share (metadata.c lists them): the
 * service's state, struct rl_md, and each file's functions. Private to
 * the metadata service; its interface is metadata.h.
 */
#ifndef DM_RAIDLAB_METADATA_INT_H
#define DM_RAIDLAB_METADATA_INT_H

#include <linux/device-mapper.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "metadata.h"
#include "../raidlab.h"

#define RL_MD_CLEAR_PERIOD	(5 * HZ)
#define RL_MD_MAX_SEGS		64
#define RL_MD_WORDS_PER_BLOCK	(RL_MD_BITS_PER_BLOCK / BITS_PER_LONG)

struct rl_md_seg {
	u64 block;			/* first metadata block */
	u64 nr;				/* blocks */
	void *kaddr;
};

struct rl_md {
	struct rl_array *a;
	struct dm_dev *dev;
	struct list_head open_node;	/* in rl_md_open_list */
	u64 dev_blocks;
	struct dm_bufio_client *bufio;	/* NULL on DAX */
	struct rl_md_seg *segs;		/* DAX mapping */
	unsigned int nr_segs;
	struct dm_io_client *io;
	struct page *msb_page;		/* member superblock I/O (lock) */
	void *blk;			/* superblock image (lock) */
	void *bmblk;			/* bitmap block image (io_mutex) */

	struct mutex lock;		/* st, commits, msb_page */
	struct rl_md_state st;
	unsigned int slot;		/* slot of the last commit */
	bool new;
	unsigned long flags;		/* RL_MDF_* */
	u8 spare_uuid[RL_MAX_SPARES][16];

	struct mutex io_mutex;		/* bitmap writes, the clear pass */
	bool clean_durable;		/* RL_MD_CLEAN may be on the device (io_mutex) */
	spinlock_t ilock;		/* the bitmaps and counts below */
	unsigned long *bits;		/* durable */
	unsigned long *pending;		/* being made durable */
	unsigned long *used;		/* started since the last clear pass */
	unsigned long *pinned;		/* dirty at load, not resynced */
	unsigned long *held;		/* cleared while a member was out */
	unsigned long *cand;		/* clear pass candidates (io_mutex) */
	unsigned long snap[RL_MD_WORDS_PER_BLOCK];	/* io_mutex */
	unsigned long *dirty_at_load;	/* NULL if none */
	u32 *inflight;
	u64 bitmap_seq;			/* io_mutex */
	atomic64_t intent_writes;
	struct delayed_work clear_work;
	/* a member I/O of the metadata's own failed (rl_md_open()) */
	void (*member_error)(struct rl_array *a, unsigned int m,
			     const char *why);
};

enum {
	RL_MDF_FAILED,			/* an I/O failed: read-only */
};

/* metadata.c */
int rl_md_write(struct rl_md *md, u64 block, const void *buf);
int rl_md_sync(struct rl_md *md);
int rl_md_read(struct rl_md *md, u64 block, void *buf);
int rl_md_msb_write(struct rl_md *md, struct block_device *bdev,
		    u32 role, const u8 dev_uuid[16]);
int rl_md_dax_claim(struct rl_md *md);
int rl_md_msb_read(struct rl_md *md, struct block_device *bdev,
		   struct rl_msb_state *msb, char **error);
const char *rl_md_name(struct rl_md *md);

/* metadata_intent.c */
unsigned int rl_md_block_bits(struct rl_md *md, u64 index);
void rl_md_clear_work(struct work_struct *ws);

#endif /* DM_RAIDLAB_METADATA_INT_H */
