// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab persistent tables (ptable.h): atomic multi-entry commits
 * through one redo-log block, over a metadata record area or, for KUnit,
 * any store.
 */
#include <linux/device-mapper.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ptable.h"

#define DM_MSG_PREFIX "raidlab"

#define RL_PT_REC_HDR		sizeof(struct rl_pt_rec)

static u64 rl_pt_per_block(u32 size)
{
	return RL_MD_BLOCK / size;
}

u64 rl_ptable_blocks(u32 size, u64 nr)
{
	return RL_PT_TABLE_START + DIV_ROUND_UP_ULL(nr, rl_pt_per_block(size));
}

unsigned int rl_ptable_txn_max(u32 size)
{
	return (RL_MD_BLOCK - RL_PT_REC_HDR) / (sizeof(__le64) + size);
}

/* The byte where entry @idx lives in the area. */
static u64 rl_pt_entry_pos(const struct rl_ptable *pt, u64 idx)
{
	u64 per = rl_pt_per_block(pt->entry_size);

	return (RL_PT_TABLE_START + div64_u64(idx, per)) * RL_MD_BLOCK +
	       (idx - div64_u64(idx, per) * per) * pt->entry_size;
}

/* The record's i-th entry: its __le64 index, then its bytes. */
static void *rl_pt_rec_ent(void *rec, u32 size, unsigned int i)
{
	return rec + RL_PT_REC_HDR + i * (sizeof(__le64) + size);
}

static u64 rl_pt_slot_pos(u64 seq)
{
	return (1 + (seq & 1)) * RL_MD_BLOCK;
}

/* ---- the metadata store ------------------------------------------------ */

static struct rl_pt_md_store *rl_pt_md(struct rl_pt_store *st)
{
	return container_of(st, struct rl_pt_md_store, st);
}

static int rl_pt_md_read(struct rl_pt_store *st, u64 pos, void *dst,
			 size_t len)
{
	return rl_md_area_read(rl_pt_md(st)->md, &rl_pt_md(st)->area, pos, dst,
			       len);
}

static int rl_pt_md_write(struct rl_pt_store *st, u64 pos, const void *src,
			  size_t len)
{
	return rl_md_area_write(rl_pt_md(st)->md, &rl_pt_md(st)->area, pos,
				src, len);
}

static int rl_pt_md_persist(struct rl_pt_store *st)
{
	return rl_md_persist(rl_pt_md(st)->md);
}

/* ---- load -------------------------------------------------------------- */

/*
 * Validate the record in pt->buf. 1: valid, *seq set; 0: blank or torn
 * (a crash); -EINVAL: it validates but cannot be this table's (damage).
 */
static int rl_pt_rec_check(struct rl_ptable *pt, u64 *seq, char **error)
{
	const struct rl_pt_rec *rec = pt->buf;
	unsigned int i, nr = le32_to_cpu(rec->nr);

	if (le32_to_cpu(rec->csum) !=
	    rl_md_csum(pt->buf, RL_MD_BLOCK, RL_PT_REC_CSUM_XOR) ||
	    le64_to_cpu(rec->magic) != RL_PT_REC_MAGIC)
		return 0;
	if (le32_to_cpu(rec->entry_size) != pt->entry_size ||
	    nr > rl_ptable_txn_max(pt->entry_size)) {
		*error = "Persistent table: a log record of another shape";
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		__le64 *idx = rl_pt_rec_ent(pt->buf, pt->entry_size, i);

		if (le64_to_cpu(*idx) >= pt->nr_entries) {
			*error = "Persistent table: a log record past the table";
			return -EINVAL;
		}
	}
	*seq = le64_to_cpu(rec->seq);
	return 1;
}

/* Write the entries of the record in @rec into the table. */
static int rl_pt_apply(struct rl_ptable *pt, void *rec)
{
	unsigned int i, nr = le32_to_cpu(((struct rl_pt_rec *)rec)->nr);
	int r;

	for (i = 0; i < nr; i++) {
		__le64 *idx = rl_pt_rec_ent(rec, pt->entry_size, i);

		r = pt->st->write(pt->st, rl_pt_entry_pos(pt, le64_to_cpu(*idx)),
				  idx + 1, pt->entry_size);
		if (r)
			return r;
	}
	return 0;
}

/* Read slot @slot (0 or 1) into pt->buf and check it, as rl_pt_rec_check(). */
static int rl_pt_read_slot(struct rl_ptable *pt, unsigned int slot, u64 *seq,
			   char **error)
{
	int r = pt->st->read(pt->st, (1 + slot) * RL_MD_BLOCK, pt->buf,
			     RL_MD_BLOCK);

	if (r) {
		*error = "Persistent table: cannot read the log";
		return r;
	}
	return rl_pt_rec_check(pt, seq, error);
}

/*
 * Replay the valid records of both slots, the older first, and persist.
 * Returns how many there were (0..2) or a negative errno.
 */
static int rl_pt_replay(struct rl_ptable *pt, char **error)
{
	u64 seq[2] = { 0, 0 };
	int valid[2], r;
	unsigned int k, first;

	for (k = 0; k < 2; k++) {
		valid[k] = rl_pt_read_slot(pt, k, &seq[k], error);
		if (valid[k] < 0)
			return valid[k];
	}
	first = valid[0] && valid[1] && seq[1] < seq[0];
	for (k = 0; k < 2; k++) {
		unsigned int s = first ^ k;

		if (!valid[s])
			continue;
		r = rl_pt_read_slot(pt, s, &seq[s], error);
		if (r >= 0)
			r = rl_pt_apply(pt, pt->buf);
		if (r < 0) {
			*error = "Persistent table: cannot replay the log";
			return r;
		}
		pt->seq = max(pt->seq, seq[s]);
	}
	if (pt->st->persist(pt->st)) {
		*error = "Persistent table: cannot persist the replay";
		return -EIO;
	}
	return valid[0] + valid[1];
}

/* Zero the slots and the table, write the header, persist. */
static int rl_pt_format(struct rl_ptable *pt)
{
	u64 b, blocks = rl_ptable_blocks(pt->entry_size, pt->nr_entries);
	struct rl_pt_hdr *h = pt->buf;
	int r;

	memset(pt->buf, 0, RL_MD_BLOCK);
	for (b = 1; b < blocks; b++) {
		r = pt->st->write(pt->st, b * RL_MD_BLOCK, pt->buf, RL_MD_BLOCK);
		if (r)
			return r;
	}
	h->version = cpu_to_le32(RL_PT_VERSION);
	h->magic = cpu_to_le64(RL_PT_MAGIC);
	h->entry_size = cpu_to_le32(pt->entry_size);
	h->nr_entries = cpu_to_le64(pt->nr_entries);
	h->csum = cpu_to_le32(rl_md_csum(h, RL_MD_BLOCK, RL_PT_HDR_CSUM_XOR));
	r = pt->st->write(pt->st, 0, h, RL_MD_BLOCK);
	return r ?: pt->st->persist(pt->st);
}

/*
 * The header in pt->buf: 1 if it is this table's, 0 if it does not
 * validate (blank or torn), -EINVAL for another table's.
 */
static int rl_pt_hdr_check(struct rl_ptable *pt, char **error)
{
	const struct rl_pt_hdr *h = pt->buf;

	if (le32_to_cpu(h->csum) !=
	    rl_md_csum(pt->buf, RL_MD_BLOCK, RL_PT_HDR_CSUM_XOR) ||
	    le64_to_cpu(h->magic) != RL_PT_MAGIC)
		return 0;
	if (le32_to_cpu(h->version) != RL_PT_VERSION ||
	    le32_to_cpu(h->entry_size) != pt->entry_size ||
	    le64_to_cpu(h->nr_entries) != pt->nr_entries) {
		*error = "Persistent table: the area holds another table";
		return -EINVAL;
	}
	return 1;
}

/* Load the table, or format it (see the head of ptable.h). */
static int rl_pt_load(struct rl_ptable *pt, bool fresh, char **error)
{
	u64 seq;
	int r, k;

	if (!fresh) {
		r = pt->st->read(pt->st, 0, pt->buf, RL_MD_BLOCK);
		if (r) {
			*error = "Persistent table: cannot read the header";
			return r;
		}
		r = rl_pt_hdr_check(pt, error);
		if (r > 0) {
			r = rl_pt_replay(pt, error);
			return r < 0 ? r : 0;
		}
		if (r < 0)
			return r;
		for (k = 0; k < 2; k++) {
			r = rl_pt_read_slot(pt, k, &seq, error);
			if (r < 0)
				return r;
			if (r) {
				*error = "Persistent table: bad header over a live log";
				return -EINVAL;
			}
		}
	}
	r = rl_pt_format(pt);
	if (r)
		*error = "Persistent table: cannot format";
	return r;
}

static struct rl_ptable *rl_pt_alloc(u32 size, u64 nr, char **error)
{
	struct rl_ptable *pt;

	if (!size || size > RL_PT_MAX_ENTRY || !nr) {
		*error = "Persistent table: bad entry size or count";
		return ERR_PTR(-EINVAL);
	}
	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (pt)
		pt->buf = kmalloc(RL_MD_BLOCK, GFP_KERNEL);
	if (!pt || !pt->buf) {
		kfree(pt);
		*error = "Cannot allocate a persistent table";
		return ERR_PTR(-ENOMEM);
	}
	pt->entry_size = size;
	pt->nr_entries = nr;
	mutex_init(&pt->lock);
	return pt;
}

static int rl_pt_open(struct rl_ptable *pt, bool fresh,
		      struct rl_ptable **ptp, char **error)
{
	int r = rl_pt_load(pt, fresh, error);

	if (r) {
		rl_ptable_close(pt);
		return r;
	}
	*ptp = pt;
	return 0;
}

int rl_ptable_open_store(struct rl_pt_store *st, u32 size, u64 nr,
			 bool fresh, struct rl_ptable **ptp, char **error)
{
	struct rl_ptable *pt = rl_pt_alloc(size, nr, error);

	if (IS_ERR(pt))
		return PTR_ERR(pt);
	pt->st = st;
	return rl_pt_open(pt, fresh, ptp, error);
}

int rl_ptable_open(struct rl_md *md, u32 id, u32 size, u64 nr,
		   struct rl_ptable **ptp, char **error)
{
	struct rl_ptable *pt = rl_pt_alloc(size, nr, error);
	int r;

	if (IS_ERR(pt))
		return PTR_ERR(pt);
	r = rl_md_area_find(md, id, rl_ptable_blocks(size, nr), &pt->md.area);
	if (r) {
		*error = r == -ENOSPC ?
			"No room for a persistent table on the metadata device" :
			"Persistent table: its area has another size";
		rl_ptable_close(pt);
		return r;
	}
	pt->md.md = md;
	pt->md.st.read = rl_pt_md_read;
	pt->md.st.write = rl_pt_md_write;
	pt->md.st.persist = rl_pt_md_persist;
	pt->st = &pt->md.st;
	return rl_pt_open(pt, false, ptp, error);
}

void rl_ptable_close(struct rl_ptable *pt)
{
	if (!pt)
		return;
	kfree(pt->buf);
	kfree(pt);
}

/* ---- use --------------------------------------------------------------- */

int rl_ptable_get(struct rl_ptable *pt, u64 idx, void *entry)
{
	int r;

	if (idx >= pt->nr_entries)
		return -ERANGE;
	mutex_lock(&pt->lock);
	r = pt->st->read(pt->st, rl_pt_entry_pos(pt, idx), entry,
			 pt->entry_size);
	mutex_unlock(&pt->lock);
	return r;
}

int rl_ptable_commit(struct rl_ptable *pt, struct rl_pt_txn *t)
{
	struct rl_pt_rec *rec = t->rec;
	u64 seq;
	int r;

	if (!t->nr)
		return 0;
	mutex_lock(&pt->lock);
	r = -EIO;
	if (pt->failed)
		goto out;
	seq = pt->seq + 1;
	rec->nr = cpu_to_le32(t->nr);
	rec->magic = cpu_to_le64(RL_PT_REC_MAGIC);
	rec->seq = cpu_to_le64(seq);
	rec->entry_size = cpu_to_le32(pt->entry_size);
	rec->csum = cpu_to_le32(rl_md_csum(rec, RL_MD_BLOCK,
					   RL_PT_REC_CSUM_XOR));
	/* the record, and commit seq - 1's table writes, durable */
	if (pt->st->write(pt->st, rl_pt_slot_pos(seq), rec, RL_MD_BLOCK) ||
	    pt->st->persist(pt->st))
		goto fail;
	pt->seq = seq;
	pt->commits++;
	/* durable at the next commit's persist: the record covers them */
	if (rl_pt_apply(pt, rec))
		goto fail;
	r = 0;
	rl_pt_txn_reset(t);
	goto out;
fail:
	pt->failed = true;
	DMERR("persistent table: commit %llu failed: read-only",
	      (unsigned long long)pt->seq + 1);
out:
	mutex_unlock(&pt->lock);
	return r;
}

int rl_ptable_sync(struct rl_ptable *pt)
{
	int r;

	mutex_lock(&pt->lock);
	r = pt->failed ? -EIO : pt->st->persist(pt->st);
	mutex_unlock(&pt->lock);
	return r;
}

int rl_pt_txn_init(struct rl_pt_txn *t, struct rl_ptable *pt)
{
	t->pt = pt;
	t->rec = kmalloc(RL_MD_BLOCK, GFP_KERNEL);
	if (!t->rec)
		return -ENOMEM;
	rl_pt_txn_reset(t);
	return 0;
}

void rl_pt_txn_exit(struct rl_pt_txn *t)
{
	kfree(t->rec);
	t->rec = NULL;
}

void rl_pt_txn_reset(struct rl_pt_txn *t)
{
	t->nr = 0;
	memset(t->rec, 0, RL_MD_BLOCK);
}

int rl_pt_txn_set(struct rl_pt_txn *t, u64 idx, const void *entry)
{
	u32 size = t->pt->entry_size;
	__le64 *ent;

	if (idx >= t->pt->nr_entries)
		return -ERANGE;
	if (t->nr >= rl_ptable_txn_max(size))
		return -ENOSPC;
	ent = rl_pt_rec_ent(t->rec, size, t->nr++);
	*ent = cpu_to_le64(idx);
	memcpy(ent + 1, entry, size);
	return 0;
}
