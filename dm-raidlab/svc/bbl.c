// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab per-member bad-block lists (bbl.h): the pure encoding of a
 * list's block, and the service that keeps each member's list in a
 * struct badblocks and on the metadata device.
 */
#include <linux/badblocks.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "bbl.h"
#include "../raidlab.h"

u32 rl_bbl_csum(const void *block)
{
	return rl_md_csum(block, RL_MD_BLOCK, RL_BBL_CSUM_XOR);
}

void rl_bbl_encode(u64 blocknr, const struct rl_bbl_list *l, void *block)
{
	struct rl_bbl_disk *d = block;
	unsigned int i, n = min_t(unsigned int, l->count, RL_BBL_MAX_ENTRIES);

	memset(block, 0, RL_MD_BLOCK);
	d->blocknr = cpu_to_le64(blocknr);
	d->seq = cpu_to_le64(l->seq);
	d->count = cpu_to_le32(n);
	for (i = 0; i < n; i++)
		d->entries[i] = cpu_to_le64(l->entries[i]);
	d->csum = cpu_to_le32(rl_bbl_csum(block));
}

/* The entries of @d: in order, apart, acknowledged, below @limit. */
static int rl_bbl_check_entries(const struct rl_bbl_disk *d, unsigned int n,
				u64 limit, char **error)
{
	u64 end = 0, e, off;
	unsigned int i;

	for (i = 0; i < n; i++) {
		e = le64_to_cpu(d->entries[i]);
		off = BB_OFFSET(e);
		if (!BB_ACK(e)) {
			*error = "Metadata bad-block list: unacknowledged entry";
			return -EINVAL;
		}
		if (i && off < end) {
			*error = "Metadata bad-block list: entries out of order or overlapping";
			return -EINVAL;
		}
		end = off + BB_LEN(e);
		if (end > limit) {
			*error = "Metadata bad-block list: entry past the end";
			return -EINVAL;
		}
	}
	if (memchr_inv(&d->entries[n], 0, (RL_BBL_MAX_ENTRIES - n) * 8)) {
		*error = "Metadata bad-block list: garbage after the entries";
		return -EINVAL;
	}
	return 0;
}

int rl_bbl_decode(const void *block, u64 blocknr, u64 limit,
		  struct rl_bbl_list *l, char **error)
{
	const struct rl_bbl_disk *d = block;
	unsigned int i, n;
	int r;

	if (!memchr_inv(block, 0, RL_MD_BLOCK)) {
		*error = "Metadata bad-block list is blank";
		return -ENODATA;
	}
	if (le32_to_cpu(d->csum) != rl_bbl_csum(block)) {
		*error = "Metadata bad-block list: bad checksum";
		return -EBADMSG;
	}
	if (le64_to_cpu(d->blocknr) != blocknr) {
		*error = "Metadata bad-block list: misplaced";
		return -EINVAL;
	}
	n = le32_to_cpu(d->count);
	if (n > RL_BBL_MAX_ENTRIES) {
		*error = "Metadata bad-block list: too many entries";
		return -EINVAL;
	}
	r = rl_bbl_check_entries(d, n, limit, error);
	if (r)
		return r;
	l->seq = le64_to_cpu(d->seq);
	l->count = n;
	for (i = 0; i < n; i++)
		l->entries[i] = le64_to_cpu(d->entries[i]);
	return 0;
}

int rl_bbl_pick(const void *b0, const void *b1, u64 blocknr, u64 limit,
		struct rl_bbl_list *l, char **error)
{
	const void *b[RL_BBL_COPIES] = { b0, b1 };
	int r[RL_BBL_COPIES], best = -ENODATA;
	u64 seq[RL_BBL_COPIES] = { 0, 0 };
	unsigned int c;

	for (c = 0; c < RL_BBL_COPIES; c++) {
		r[c] = rl_bbl_decode(b[c], blocknr + c, limit, l, error);
		if (r[c] == -EINVAL)
			return -EINVAL;
		if (!r[c]) {
			seq[c] = l->seq;
			if (best < 0 || seq[c] > seq[best])
				best = c;
		}
	}
	if (r[0] == -EBADMSG && r[1] == -EBADMSG) {
		*error = "Metadata bad-block list: both copies damaged";
		return -EINVAL;
	}
	l->seq = 0;
	l->count = 0;
	if (best < 0)
		return -ENODATA;
	/* decode again: the last decode may have been the other copy */
	return rl_bbl_decode(b[best], blocknr + best, limit, l, error) ?: best;
}

/* ------------------------------------------------------------------------
 * The service
 */

struct rl_bbl {
	struct rl_array *a;
	bool durable;			/* false: no area, lists in memory only */
	bool dax;
	struct rl_md_area area;
	struct mutex mutex;		/* writes of the lists */
	unsigned long dirty;		/* members whose list changed */
	/*
	 * Members whose list may hold entries: a lookup reads this one word
	 * and the lists it names, not every member's list (most arrays have
	 * none). Set before an entry goes in and again after; cleared only
	 * when the list is seen empty, then checked again (rl_bbl_unlist()),
	 * so that a member with entries always has its bit.
	 */
	unsigned long listed;
	unsigned int cur[RL_MAX_MEMBERS];	/* copy holding the newest list */
	u64 seq[RL_MAX_MEMBERS];
	struct rl_bbl_list *list;	/* scratch, under mutex */
	void *blk;			/* scratch block, under mutex */
	struct work_struct work;	/* rl_bbl_persist_async() */
	struct badblocks bb[];
};

static void rl_bbl_work(struct work_struct *ws)
{
	struct rl_bbl *b = container_of(ws, struct rl_bbl, work);

	rl_bbl_persist(b->a);
}

/* Write member @m's list to its other copy and make it durable. */
static int rl_bbl_write(struct rl_bbl *b, unsigned int m)
{
	struct rl_md *md = b->a->md;
	struct badblocks *bb = &b->bb[m];
	unsigned int c = b->cur[m] ^ 1, seq;
	struct dm_buffer *buf;
	void *p;
	int n;

	do {
		seq = read_seqbegin(&bb->lock);
		n = bb->count;
		if (n <= RL_BBL_MAX_ENTRIES)
			memcpy(b->list->entries, bb->page, n * sizeof(u64));
	} while (read_seqretry(&bb->lock, seq));
	if (n > RL_BBL_MAX_ENTRIES)
		return -ENOSPC;
	b->list->count = n;
	b->list->seq = b->seq[m] + 1;
	rl_bbl_encode(b->area.start + 2 * m + c, b->list, b->blk);
	p = rl_md_area_map(md, &b->area, 2 * m + c, true, &buf);
	if (!p)
		return -EIO;
	if (b->dax) {
		memcpy_flushcache(p, b->blk, RL_MD_BLOCK);
	} else {
		memcpy(p, b->blk, RL_MD_BLOCK);
		rl_md_area_dirty(md, buf);
	}
	rl_md_area_unmap(md, buf);
	if (rl_md_persist(md))
		return -EIO;
	b->cur[m] = c;
	b->seq[m]++;
	return 0;
}

int rl_bbl_persist(struct rl_array *a)
{
	struct rl_bbl *b = a->bbl;
	unsigned int m;
	int r = 0, e;

	if (!b)
		return 0;
	mutex_lock(&b->mutex);
	for (m = 0; m < a->geom.nr_members; m++) {
		if (!test_and_clear_bit(m, &b->dirty) || !b->durable)
			continue;
		e = rl_bbl_write(b, m);
		if (e == -ENOSPC) {
			rl_member_fail(a, m, "bad-block list full");
		} else if (e) {
			set_bit(m, &b->dirty);
			r = e;
		}
	}
	mutex_unlock(&b->mutex);
	return r;
}

void rl_bbl_persist_async(struct rl_array *a)
{
	if (a->bbl)
		schedule_work(&a->bbl->work);
}

unsigned long rl_bbl_members(struct rl_array *a, sector_t msector,
			     sector_t len)
{
	struct rl_bbl *b = a->bbl;
	unsigned long out = 0, listed;
	sector_t first;
	unsigned int m;
	int n;

	if (!b)
		return 0;
	listed = READ_ONCE(b->listed);
	for_each_set_bit(m, &listed, a->geom.nr_members)
		if (badblocks_check(&b->bb[m], msector, len, &first, &n))
			__set_bit(m, &out);
	return out;
}

bool rl_badblocks_cover(struct badblocks *bb, sector_t s, sector_t len)
{
	sector_t first, end = s + len;
	int n;

	/* badblocks_check() gives the lowest entry that overlaps */
	while (s < end) {
		if (!badblocks_check(bb, s, end - s, &first, &n) || first > s)
			return false;
		s = first + n;
	}
	return true;
}

/* Member @m's list may have lost its last entry: take its bit if so. */
static void rl_bbl_unlist(struct rl_bbl *b, unsigned int m)
{
	if (READ_ONCE(b->bb[m].count))
		return;
	clear_bit(m, &b->listed);
	smp_mb__after_atomic();	/* an entry added meanwhile is seen below */
	if (READ_ONCE(b->bb[m].count))
		set_bit(m, &b->listed);
}

int rl_bbl_record(struct rl_array *a, unsigned int m, sector_t msector,
		  sector_t len)
{
	struct rl_bbl *b = a->bbl;
	sector_t n;

	if (!b)
		return -ENOSPC;
	/* listed already: nothing changes, nothing to make durable */
	if (rl_badblocks_cover(&b->bb[m], msector, len))
		return 0;
	/*
	 * At most BB_MAX_LEN at a time, in ascending order: 6.1's
	 * badblocks_set() inserts the pieces of a longer range in reverse
	 * order, which leaves the list unsorted.
	 */
	set_bit(m, &b->listed);
	for (; len; msector += n, len -= n) {
		n = min_t(sector_t, len, BB_MAX_LEN);
		if (badblocks_set(&b->bb[m], msector, n, 1))
			return -ENOSPC;
		set_bit(m, &b->dirty);
	}
	set_bit(m, &b->listed);		/* over a concurrent rl_bbl_unlist() */
	if (READ_ONCE(b->bb[m].count) > RL_BBL_MAX_ENTRIES)
		return -ENOSPC;
	return 0;
}

int rl_bbl_clear(struct rl_array *a, unsigned int m, sector_t msector,
		 sector_t len)
{
	struct rl_bbl *b = a->bbl;
	int r;

	if (!b)
		return 0;
	r = badblocks_clear(&b->bb[m], msector, len);
	set_bit(m, &b->dirty);
	rl_bbl_unlist(b, m);
	return r;
}

void rl_bbl_reset(struct rl_array *a, unsigned int m)
{
	struct rl_bbl *b = a->bbl;
	struct badblocks *bb;
	unsigned int seq;
	u64 e;

	if (!b || !READ_ONCE(b->bb[m].count))
		return;
	/* entry by entry: badblocks_clear() takes an int of sectors */
	bb = &b->bb[m];
	while (READ_ONCE(bb->count)) {
		do {
			seq = read_seqbegin(&bb->lock);
			e = bb->count ? bb->page[0] : 0;
		} while (read_seqretry(&bb->lock, seq));
		if (!e || badblocks_clear(bb, BB_OFFSET(e), BB_LEN(e)))
			break;
	}
	set_bit(m, &b->dirty);
	rl_bbl_unlist(b, m);
	rl_bbl_persist(a);
}

unsigned int rl_bbl_count(struct rl_array *a, unsigned int m)
{
	return a->bbl ? READ_ONCE(a->bbl->bb[m].count) : 0;
}

unsigned int rl_bbl_show(struct rl_array *a, unsigned int m, char *result,
			 unsigned int maxlen)
{
	struct badblocks *bb;
	unsigned int seq, i, sz;
	u64 e;

	if (!a->bbl)
		return scnprintf(result, maxlen, "none\n");
	bb = &a->bbl->bb[m];
	do {
		seq = read_seqbegin(&bb->lock);
		sz = 0;
		if (maxlen)
			result[0] = '\0';
		for (i = 0; i < bb->count; i++) {
			e = bb->page[i];
			sz += scnprintf(result + sz, maxlen - sz, "%llu %llu\n",
					BB_OFFSET(e), BB_LEN(e));
		}
	} while (read_seqretry(&bb->lock, seq));
	return sz;
}

/* Put a decoded list into member @m's struct badblocks. */
static int rl_bbl_fill(struct rl_bbl *b, unsigned int m,
		       const struct rl_bbl_list *l)
{
	unsigned int i;

	if (l->count)
		set_bit(m, &b->listed);
	for (i = 0; i < l->count; i++)
		if (badblocks_set(&b->bb[m], BB_OFFSET(l->entries[i]),
				  BB_LEN(l->entries[i]), 1))
			return -ENOSPC;
	return 0;
}

/* Load member @m's list from its two copies. */
static int rl_bbl_load(struct rl_bbl *b, unsigned int m, char **error)
{
	struct rl_md *md = b->a->md;
	struct dm_buffer *b0, *b1;
	const void *p0, *p1;
	int r = -EIO;

	p0 = rl_md_area_map(md, &b->area, 2 * m, false, &b0);
	p1 = p0 ? rl_md_area_map(md, &b->area, 2 * m + 1, false, &b1) : NULL;
	if (!p1) {
		*error = "Cannot read the bad-block list";
		goto out;
	}
	r = rl_bbl_pick(p0, p1, b->area.start + 2 * m, b->a->member_sectors,
			b->list, error);
	rl_md_area_unmap(md, b1);
out:
	rl_md_area_unmap(md, b0);
	if (r < 0 && r != -ENODATA)
		return r;
	/* empty: the next write goes to copy 0 */
	b->cur[m] = r < 0 ? 1 : r;
	b->seq[m] = b->list->seq;
	if (b->list->count)
		DMWARN("%s: member %u: %u bad-block entries",
		       dm_table_device_name(b->a->ti->table), m, b->list->count);
	return rl_bbl_fill(b, m, b->list);
}

/* A new area may hold anything: zero every copy (blank: empty lists). */
static int rl_bbl_format(struct rl_bbl *b)
{
	struct rl_md *md = b->a->md;
	struct dm_buffer *buf;
	u64 i;
	void *p;

	memset(b->blk, 0, RL_MD_BLOCK);
	for (i = 0; i < b->area.blocks; i++) {
		p = rl_md_area_map(md, &b->area, i, true, &buf);
		if (!p)
			return -EIO;
		if (b->dax) {
			memcpy_flushcache(p, b->blk, RL_MD_BLOCK);
		} else {
			memset(p, 0, RL_MD_BLOCK);
			rl_md_area_dirty(md, buf);
		}
		rl_md_area_unmap(md, buf);
	}
	return rl_md_persist(md);
}

static bool rl_bbl_area_exists(struct rl_md *md)
{
	const struct rl_md_state *st = rl_md_state(md);
	unsigned int i;

	for (i = 0; i < st->nr_areas; i++)
		if (st->areas[i].id == RL_BBL_AREA_ID)
			return true;
	return false;
}

/* Find or make the area, and load the lists (b->durable set). */
static int rl_bbl_open_area(struct rl_bbl *b, char **error)
{
	struct rl_array *a = b->a;
	bool existed = rl_bbl_area_exists(a->md);
	unsigned int m;
	int r;

	r = rl_md_area_find(a->md, RL_BBL_AREA_ID,
			    RL_BBL_COPIES * a->geom.nr_members, &b->area);
	if (r == -ENOSPC) {
		DMWARN("%s: no room for bad-block lists in the metadata: kept in memory only",
		       dm_table_device_name(a->ti->table));
		return 0;
	}
	if (r) {
		*error = "Cannot make the bad-block list area";
		return r;
	}
	b->durable = true;
	if (!existed) {
		r = rl_bbl_format(b);
		if (r)
			*error = "Cannot write the bad-block list area";
		return r;
	}
	for (m = 0; m < a->geom.nr_members; m++) {
		r = rl_bbl_load(b, m, error);
		if (r == -ENOSPC)
			*error = "Metadata bad-block list: too many entries";
		if (r)
			return r;
	}
	return 0;
}

int rl_bbl_open(struct rl_array *a, char **error)
{
	unsigned int m, n = a->geom.nr_members;
	struct rl_bbl *b;
	int r = -ENOMEM;

	if (!a->md)
		return 0;
	b = kzalloc(struct_size(b, bb, n), GFP_KERNEL);
	if (!b)
		goto nomem;
	a->bbl = b;
	b->a = a;
	b->dax = !strcmp(rl_md_backend(a->md), "dax");
	mutex_init(&b->mutex);
	INIT_WORK(&b->work, rl_bbl_work);
	b->list = kzalloc(sizeof(*b->list), GFP_KERNEL);
	b->blk = kzalloc(RL_MD_BLOCK, GFP_KERNEL);
	if (!b->list || !b->blk)
		goto nomem;
	for (m = 0; m < n; m++) {
		if (badblocks_init(&b->bb[m], 1))
			goto nomem;
		b->bb[m].shift = 0;
	}
	r = rl_bbl_open_area(b, error);
	if (r)
		goto bad;
	return 0;
nomem:
	*error = "Cannot allocate bad-block lists";
bad:
	rl_bbl_close(a);
	return r;
}

void rl_bbl_close(struct rl_array *a)
{
	struct rl_bbl *b = a->bbl;
	unsigned int m;

	if (!b)
		return;
	cancel_work_sync(&b->work);
	for (m = 0; m < a->geom.nr_members; m++)
		if (b->bb[m].page)
			badblocks_exit(&b->bb[m]);
	kfree(b->list);
	kfree(b->blk);
	kfree(b);
	a->bbl = NULL;
}
