/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab cells: the row lock of the engines that serve an access in a
 * context of their own (the parity engine's stripe contexts, plog's
 * foreground contexts). Bios queue on an incoming list; a dispatch work
 * item gives each to the cell that holds its key (its row), where it waits
 * its turn, or to a free cell, which then holds the key until it has no
 * bio left: the bios of one key are served one at a time, in arrival
 * order, and bios of different keys in parallel. dm-bio-prison's cells
 * (dm-thin, dm-cache) do the same with a tree and a mempool; here the
 * cells are the user's own preallocated contexts, so nothing is allocated
 * per I/O.
 *
 * A user embeds a struct rl_cell in each context, puts them on the free
 * list with rl_cell_add(), and gives two methods:
 *
 *   key_of  the key of a bio. Pure; called under the lock.
 *   start   a cell took a bio (cell->bio): queue the context's work.
 *           Called under the lock, interrupts off: it must not sleep.
 *
 * The context serves cell->bio, then calls rl_cell_next(): true with the
 * next bio of its key in cell->bio, false once the cell is free again (it
 * may be reused from then on). Background work takes a free cell for a key
 * with rl_cells_grab() (cell->bio NULL); rl_cells_reserve() keeps cells
 * back from bios meanwhile, so that background work cannot starve, and
 * c->idle is woken whenever a cell goes free while some are reserved.
 */
#ifndef DM_RAIDLAB_CELL_H
#define DM_RAIDLAB_CELL_H

#include <linux/bio.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct rl_cell {
	struct hlist_node hnode;	/* in the hash while it holds its key */
	struct list_head lnode;		/* on the free list while idle */
	u64 key;
	struct bio *bio;		/* the bio being served, NULL: background */
	struct bio_list waiting;	/* later bios of its key, in order */
};

struct rl_cells;

struct rl_cells_ops {
	u64 (*key_of)(struct rl_cells *c, struct bio *bio);
	void (*start)(struct rl_cells *c, struct rl_cell *cell);
};

struct rl_cells {
	spinlock_t lock;		/* everything below */
	struct bio_list incoming;
	struct list_head free;
	struct hlist_head *hash;
	unsigned int hash_bits;
	unsigned int nr_free;		/* cells on the free list */
	unsigned int reserve;		/* free cells bios may not take */
	wait_queue_head_t idle;		/* a cell went free (reserve > 0) */
	struct work_struct dispatch;
	struct workqueue_struct *wq;	/* runs dispatch */
	const struct rl_cells_ops *ops;
};

/* For up to @nr cells; dispatch runs on @wq. May sleep. */
int rl_cells_init(struct rl_cells *c, unsigned int nr,
		  struct workqueue_struct *wq, const struct rl_cells_ops *ops);
/* After the last bio has ended: the cells are the user's to free. */
void rl_cells_exit(struct rl_cells *c);
/* A new cell, onto the free list (at construction). */
void rl_cell_add(struct rl_cells *c, struct rl_cell *cell);
/* Queue @bio for its key's cell. Any context. */
void rl_cells_queue(struct rl_cells *c, struct bio *bio);
/* The cell's next bio (true), or the cell goes free (false). */
bool rl_cell_next(struct rl_cells *c, struct rl_cell *cell);
/* A free cell for @key with no bio, or NULL if the key is busy or none is free. */
struct rl_cell *rl_cells_grab(struct rl_cells *c, u64 key);
/* Keep @nr free cells from bios (0: none; bios waiting are dispatched). */
void rl_cells_reserve(struct rl_cells *c, unsigned int nr);

#endif /* DM_RAIDLAB_CELL_H */
