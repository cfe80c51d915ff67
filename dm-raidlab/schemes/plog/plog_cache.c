// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab plog: the data cache.
 *
 * The data cache: recently written 4 KiB blocks, so that a small write
 * that follows need not preread. LRU, preallocated, under a spinlock.
 */
#include <linux/crc32c.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../../svc/metadata.h"
#include "../../svc/parity.h"
#include "plog_int.h"

struct plog_centry {
	struct hlist_node hnode;
	struct list_head lru;
	u64 key;			/* logical 4 KiB block */
	bool valid;
};

struct plog_cache {
	spinlock_t lock;		/* everything below */
	unsigned int nr, bits;
	void *mem;
	struct plog_centry *e;
	struct hlist_head *hash;
	struct list_head lru;		/* most recent first */
	u64 hits, misses;
};

struct plog_cache *plog_cache_alloc(unsigned int nr)
{
	struct plog_cache *c;
	unsigned int i;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	spin_lock_init(&c->lock);
	INIT_LIST_HEAD(&c->lru);
	c->nr = nr;
	if (!nr)
		return c;
	c->bits = max(1, ilog2(roundup_pow_of_two(nr)));	/* hash_64: bits > 0 */
	c->mem = vmalloc(array_size(nr, PAGE_SIZE));
	c->e = kvcalloc(nr, sizeof(*c->e), GFP_KERNEL);
	c->hash = kvcalloc(1U << c->bits, sizeof(*c->hash), GFP_KERNEL);
	if (!c->mem || !c->e || !c->hash) {
		vfree(c->mem);
		kvfree(c->e);
		kvfree(c->hash);
		kfree(c);
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		INIT_HLIST_NODE(&c->e[i].hnode);
		list_add_tail(&c->e[i].lru, &c->lru);
	}
	return c;
}

void plog_cache_free(struct plog_cache *c)
{
	if (!c)
		return;
	vfree(c->mem);
	kvfree(c->e);
	kvfree(c->hash);
	kfree(c);
}

static struct plog_centry *plog_cache_find(struct plog_cache *c, u64 key)
{
	struct plog_centry *e;

	hlist_for_each_entry(e, &c->hash[hash_64(key, c->bits)], hnode)
		if (e->key == key)
			return e;
	return NULL;
}

static void *plog_cache_data(struct plog_cache *c, struct plog_centry *e)
{
	return c->mem + ((size_t)(e - c->e) << PAGE_SHIFT);
}

/*
 * The cache's calls (pure but for the lock; KUnit suite dm_raidlab_plog):
 *   plog_cache_get()   copy blocks [key, key + nr) to @dst if every one is
 *                      cached (they become the most recent), else nothing
 *   plog_cache_put()   cache blocks [key, key + nr) from @src, evicting the
 *                      least recently used
 *   plog_cache_drop()  forget blocks [key, key + nr)
 * A cache of no blocks holds nothing.
 */
bool plog_cache_get(struct plog_cache *c, u64 key, unsigned int nr,
		    void *dst)
{
	struct plog_centry *e;
	unsigned int i;
	bool hit = true;

	if (!c->nr)
		return false;
	spin_lock(&c->lock);
	for (i = 0; i < nr && hit; i++)
		hit = plog_cache_find(c, key + i);
	if (hit) {
		for (i = 0; i < nr; i++) {
			e = plog_cache_find(c, key + i);
			memcpy(dst + ((size_t)i << PAGE_SHIFT),
			       plog_cache_data(c, e), PAGE_SIZE);
			list_move(&e->lru, &c->lru);
		}
		c->hits++;
	} else {
		c->misses++;
	}
	spin_unlock(&c->lock);
	return hit;
}

void plog_cache_put(struct plog_cache *c, u64 key, unsigned int nr,
		    const void *src)
{
	struct plog_centry *e;
	unsigned int i;

	if (!c->nr)
		return;
	spin_lock(&c->lock);
	for (i = 0; i < nr; i++) {
		e = plog_cache_find(c, key + i);
		if (!e) {
			e = list_last_entry(&c->lru, struct plog_centry, lru);
			if (e->valid)
				hlist_del(&e->hnode);
			e->key = key + i;
			e->valid = true;
			hlist_add_head(&e->hnode,
				       &c->hash[hash_64(e->key, c->bits)]);
		}
		memcpy(plog_cache_data(c, e), src + ((size_t)i << PAGE_SHIFT),
		       PAGE_SIZE);
		list_move(&e->lru, &c->lru);
	}
	spin_unlock(&c->lock);
}

void plog_cache_drop(struct plog_cache *c, u64 key, unsigned int nr)
{
	struct plog_centry *e;
	unsigned int i;

	if (!c->nr)
		return;
	spin_lock(&c->lock);
	for (i = 0; i < nr; i++) {
		e = plog_cache_find(c, key + i);
		if (!e)
			continue;
		hlist_del_init(&e->hnode);
		e->valid = false;
		list_move_tail(&e->lru, &c->lru);
	}
	spin_unlock(&c->lock);
}

void plog_cache_counts(struct plog_cache *c, u64 *hits, u64 *misses)
{
	spin_lock(&c->lock);
	*hits = c->hits;
	*misses = c->misses;
	spin_unlock(&c->lock);
}

/* The blocks the cache holds (its data_cache option). */
unsigned int plog_cache_blocks(const struct plog_cache *c)
{
	return c->nr;
}

/* Bytes a block costs: a page, an entry and at most two hash heads. */
size_t plog_cache_block_bytes(void)
{
	return PAGE_SIZE + sizeof(struct plog_centry) +
	       2 * sizeof(struct hlist_head);
}
