// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab cells (cell.h): the row lock of the context engines. One
 * spinlock guards the incoming list, the free list, the key hash and each
 * busy cell's waiting list; it is taken with interrupts saved, as bios are
 * queued from map() and cells released from work items.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "cell.h"

static void rl_cells_dispatch(struct work_struct *ws);

int rl_cells_init(struct rl_cells *c, unsigned int nr,
		  struct workqueue_struct *wq, const struct rl_cells_ops *ops)
{
	unsigned int i;

	/* INIT_WORK before the hash: rl_cells_exit() cancels once it is set */
	spin_lock_init(&c->lock);
	bio_list_init(&c->incoming);
	INIT_LIST_HEAD(&c->free);
	init_waitqueue_head(&c->idle);
	INIT_WORK(&c->dispatch, rl_cells_dispatch);
	c->wq = wq;
	c->ops = ops;
	c->reserve = 0;
	c->nr_free = 0;
	/* at least two buckets: hash_64() takes 1..64 bits */
	c->hash_bits = ilog2(roundup_pow_of_two(max(nr, 2U)));
	c->hash = kcalloc(1U << c->hash_bits, sizeof(*c->hash), GFP_KERNEL);
	if (!c->hash)
		return -ENOMEM;
	for (i = 0; i < (1U << c->hash_bits); i++)
		INIT_HLIST_HEAD(&c->hash[i]);
	return 0;
}

void rl_cells_exit(struct rl_cells *c)
{
	if (c->hash)
		cancel_work_sync(&c->dispatch);
	kfree(c->hash);
	c->hash = NULL;
}

void rl_cell_add(struct rl_cells *c, struct rl_cell *cell)
{
	INIT_HLIST_NODE(&cell->hnode);
	bio_list_init(&cell->waiting);
	cell->bio = NULL;
	list_add_tail(&cell->lnode, &c->free);
	c->nr_free++;
}

static struct hlist_head *rl_cells_bucket(struct rl_cells *c, u64 key)
{
	return &c->hash[hash_64(key, c->hash_bits)];
}

static struct rl_cell *rl_cells_lookup(struct rl_cells *c, u64 key)
{
	struct rl_cell *cell;

	hlist_for_each_entry(cell, rl_cells_bucket(c, key), hnode)
		if (cell->key == key)
			return cell;
	return NULL;
}

/* A free cell now holds @key (lock held). */
static struct rl_cell *rl_cells_take(struct rl_cells *c, u64 key)
{
	struct rl_cell *cell = list_first_entry(&c->free, struct rl_cell, lnode);

	list_del_init(&cell->lnode);
	c->nr_free--;
	cell->key = key;
	hlist_add_head(&cell->hnode, rl_cells_bucket(c, key));
	return cell;
}

void rl_cells_queue(struct rl_cells *c, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	bio_list_add(&c->incoming, bio);
	spin_unlock_irqrestore(&c->lock, flags);
	queue_work(c->wq, &c->dispatch);
}

/* Give each incoming bio to its key's cell, or a free one. */
static void rl_cells_dispatch(struct work_struct *ws)
{
	struct rl_cells *c = container_of(ws, struct rl_cells, dispatch);
	struct rl_cell *cell;
	unsigned long flags;
	struct bio *bio;
	u64 key;

	spin_lock_irqsave(&c->lock, flags);
	while ((bio = bio_list_peek(&c->incoming))) {
		key = c->ops->key_of(c, bio);
		cell = rl_cells_lookup(c, key);
		if (cell) {
			bio_list_pop(&c->incoming);
			bio_list_add(&cell->waiting, bio);
			continue;
		}
		if (c->nr_free <= c->reserve)
			break;	/* a cell that goes free kicks us again */
		bio_list_pop(&c->incoming);
		cell = rl_cells_take(c, key);
		cell->bio = bio;
		c->ops->start(c, cell);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

bool rl_cell_next(struct rl_cells *c, struct rl_cell *cell)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	cell->bio = bio_list_pop(&cell->waiting);
	if (cell->bio) {
		spin_unlock_irqrestore(&c->lock, flags);
		return true;
	}
	hlist_del_init(&cell->hnode);
	list_add(&cell->lnode, &c->free);
	c->nr_free++;
	if (!bio_list_empty(&c->incoming))
		queue_work(c->wq, &c->dispatch);
	if (c->reserve)
		wake_up_all(&c->idle);
	spin_unlock_irqrestore(&c->lock, flags);
	return false;	/* @cell may be reused from here on */
}

struct rl_cell *rl_cells_grab(struct rl_cells *c, u64 key)
{
	struct rl_cell *cell = NULL;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (!rl_cells_lookup(c, key) && !list_empty(&c->free)) {
		cell = rl_cells_take(c, key);
		cell->bio = NULL;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return cell;
}

void rl_cells_reserve(struct rl_cells *c, unsigned int nr)
{
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	c->reserve = nr;
	if (!nr && !bio_list_empty(&c->incoming))
		queue_work(c->wq, &c->dispatch);
	spin_unlock_irqrestore(&c->lock, flags);
}
