// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab write-hole journal (journal.h).
 *
 * The first part is pure (record encoding and validation, ring space,
 * replay selection), tested by the KUnit suite dm_raidlab_journal. The
 * rest is the service:
 *
 *   log       rl_jnl_log(), from a stripe context's work item between the
 *             plan's compute step and its write issue: reserve ring space
 *             (or queue the context until a record is released), copy the
 *             payload and the header into the ring (DAX: memcpy_flushcache;
 *             bufio: dirty buffers) and make them durable together
 *             (rl_md_persist()). A torn record fails its checksum.
 *   done      rl_jnl_done(), once the writes (REQ_FUA) have landed: zero the
 *             record's magic, make it durable, release its space and wake
 *             the contexts waiting for some. The row is still locked, so no
 *             later write to it can be undone by replaying a stale record.
 *   recover   rl_jnl_recover(), at construction: scan the ring for valid
 *             records, replay them in seq order onto the members
 *             present (through the member queues, svc/mio.h, waiting
 *             for each write), flush those, invalidate the
 *             records.
 *
 * Locks: j->lock (a spinlock) protects the ring accounting and the waiter
 * list; the ring blocks of a reserved record belong to its context alone.
 */
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/dm-bufio.h>
#include <linux/highmem.h>
#include <linux/libnvdimm.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "journal.h"
#include "../svc/metadata.h"
#include "../svc/mio.h"
#include "stripe.h"

#define RL_JNL_BLOCK_SECTORS	(RL_MD_BLOCK >> SECTOR_SHIFT)
#define RL_JNL_MAX_FOUND	4096	/* records in flight at a crash, at most */

static_assert(sizeof(struct rl_jnl_hdr) <= RL_MD_BLOCK);
static_assert(RL_MAX_STRIPES <= RL_JNL_MAX_FOUND);

/* ------------------------------------------------------------------------
 * Pure helpers.
 */

u32 rl_jnl_rec_blocks(u32 payload)
{
	return 1 + DIV_ROUND_UP(payload, RL_JNL_BLOCK_SECTORS);
}

u32 rl_jnl_rec_from_plan(struct rl_jnl_rec *rec, const struct rl_plan *p,
			 unsigned int nr_members)
{
	unsigned int m;
	u32 payload = 0;

	rec->row = p->row;
	rec->nr = 0;
	for (m = 0; m < nr_members; m++) {
		if (rl_span_empty(p->write[m]))
			continue;
		rec->ent[rec->nr].member = m;
		rec->ent[rec->nr].lo = p->write[m].lo;
		rec->ent[rec->nr].hi = p->write[m].hi;
		payload += p->write[m].hi - p->write[m].lo;
		rec->nr++;
	}
	rec->payload = payload;
	rec->blocks = rl_jnl_rec_blocks(payload);
	return payload;
}

u32 rl_jnl_csum_add(u32 csum, const void *data, size_t len)
{
	return crc32c(csum, data, len);
}

u32 rl_jnl_hdr_encode(const struct rl_jnl_rec *rec, const u8 uuid[16],
		      struct rl_jnl_hdr *hdr)
{
	unsigned int i;

	memset(hdr, 0, sizeof(*hdr));
	hdr->nr = cpu_to_le32(rec->nr);
	hdr->magic = cpu_to_le64(RL_JNL_MAGIC);
	hdr->seq = cpu_to_le64(rec->seq);
	hdr->row = cpu_to_le64(rec->row);
	hdr->pos = cpu_to_le64(rec->pos);
	hdr->blocks = cpu_to_le32(rec->blocks);
	hdr->payload = cpu_to_le32(rec->payload);
	memcpy(hdr->uuid, uuid, sizeof(hdr->uuid));
	for (i = 0; i < rec->nr; i++) {
		hdr->ent[i].member = cpu_to_le32(rec->ent[i].member);
		hdr->ent[i].lo = cpu_to_le32(rec->ent[i].lo);
		hdr->ent[i].hi = cpu_to_le32(rec->ent[i].hi);
	}
	return crc32c(~0U, (const u8 *)hdr + sizeof(hdr->csum),
		      sizeof(*hdr) - sizeof(hdr->csum));
}

void rl_jnl_seal(struct rl_jnl_hdr *hdr, u32 csum)
{
	hdr->csum = cpu_to_le32(csum ^ RL_JNL_CSUM_XOR);
}

bool rl_jnl_csum_ok(const struct rl_jnl_hdr *hdr, u32 csum)
{
	return le32_to_cpu(hdr->csum) == (csum ^ RL_JNL_CSUM_XOR);
}

int rl_jnl_hdr_decode(const struct rl_jnl_hdr *hdr, u64 pos, u64 ring_blocks,
		      const u8 uuid[16], unsigned int nr_members, u32 chunk,
		      struct rl_jnl_rec *rec, u32 *csum)
{
	unsigned int i;
	u32 payload = 0;

	if (le64_to_cpu(hdr->magic) != RL_JNL_MAGIC)
		return -ENODATA;
	if (memcmp(hdr->uuid, uuid, sizeof(hdr->uuid)) ||
	    le64_to_cpu(hdr->pos) != pos)
		return -EINVAL;
	rec->seq = le64_to_cpu(hdr->seq);
	rec->row = le64_to_cpu(hdr->row);
	rec->pos = pos;
	rec->nr = le32_to_cpu(hdr->nr);
	rec->blocks = le32_to_cpu(hdr->blocks);
	rec->payload = le32_to_cpu(hdr->payload);
	if (!rec->nr || rec->nr > nr_members)
		return -EINVAL;
	for (i = 0; i < rec->nr; i++) {
		rec->ent[i].member = le32_to_cpu(hdr->ent[i].member);
		rec->ent[i].lo = le32_to_cpu(hdr->ent[i].lo);
		rec->ent[i].hi = le32_to_cpu(hdr->ent[i].hi);
		if (rec->ent[i].member >= nr_members ||
		    (i && rec->ent[i].member <= rec->ent[i - 1].member) ||
		    rec->ent[i].lo >= rec->ent[i].hi || rec->ent[i].hi > chunk)
			return -EINVAL;
		payload += rec->ent[i].hi - rec->ent[i].lo;
	}
	if (payload != rec->payload ||
	    rec->blocks != rl_jnl_rec_blocks(payload) ||
	    pos + rec->blocks > ring_blocks)
		return -EINVAL;
	*csum = crc32c(~0U, (const u8 *)hdr + sizeof(hdr->csum),
		       sizeof(*hdr) - sizeof(hdr->csum));
	return 0;
}

void rl_jnl_ring_init(struct rl_jnl_ring *r, u64 size, u64 seq,
		      struct rl_jnl_slot *slots, unsigned int nr_slots)
{
	r->size = size;
	r->head = 0;
	r->tail = 0;
	r->next_seq = seq;
	r->tail_seq = seq;
	r->nr_slots = nr_slots;
	r->slots = slots;
	memset(slots, 0, nr_slots * sizeof(*slots));
}

u64 rl_jnl_ring_used(const struct rl_jnl_ring *r)
{
	return r->head - r->tail;
}

bool rl_jnl_ring_reserve(struct rl_jnl_ring *r, u32 blocks, u64 *seq,
			 u64 *pos)
{
	u64 start = r->head, off = r->head % r->size;
	struct rl_jnl_slot *slot;

	if (!blocks || blocks > r->size ||
	    r->next_seq - r->tail_seq >= r->nr_slots)
		return false;
	if (off + blocks > r->size) {
		/* records do not wrap: start again at block 0 */
		start += r->size - off;
		if (r->head == r->tail)
			r->tail = start;	/* empty: nothing to skip over */
	}
	if (start + blocks - r->tail > r->size)
		return false;
	slot = &r->slots[r->next_seq & (r->nr_slots - 1)];
	slot->start = start;
	slot->end = start + blocks;
	slot->busy = true;
	*seq = r->next_seq++;
	*pos = start % r->size;
	r->head = start + blocks;
	return true;
}

bool rl_jnl_ring_release(struct rl_jnl_ring *r, u64 seq)
{
	bool moved = false;

	if (seq < r->tail_seq || seq >= r->next_seq)
		return false;
	r->slots[seq & (r->nr_slots - 1)].busy = false;
	while (r->tail_seq < r->next_seq &&
	       !r->slots[r->tail_seq & (r->nr_slots - 1)].busy) {
		r->tail = r->slots[r->tail_seq & (r->nr_slots - 1)].end;
		r->tail_seq++;
		moved = true;
	}
	return moved;
}

static int rl_jnl_cmp_seq(const void *x, const void *y)
{
	const struct rl_jnl_rec *a = x, *b = y;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

unsigned int rl_jnl_select(struct rl_jnl_rec *recs, unsigned int n)
{
	unsigned int i, k = 0;

	sort(recs, n, sizeof(*recs), rl_jnl_cmp_seq, NULL);
	for (i = 0; i < n; i++) {
		bool dup = (i && recs[i - 1].seq == recs[i].seq) ||
			   (i + 1 < n && recs[i + 1].seq == recs[i].seq);

		if (!dup)
			recs[k++] = recs[i];
	}
	return k;
}

/* ------------------------------------------------------------------------
 * The service.
 */

struct rl_jnl {
	struct rl_array *a;
	struct rl_md *md;
	struct rl_md_area area;
	bool dax;
	u8 uuid[16];

	spinlock_t lock;		/* ring, waiters */
	struct rl_jnl_ring ring;
	struct list_head waiters;

	atomic64_t records;
	atomic64_t bytes;
	atomic64_t waits;
};

/* Ring blocks: enough for every stripe context's largest record, twice. */
static u64 rl_jnl_area_blocks(const struct rl_array *a)
{
	u64 rec = rl_jnl_rec_blocks(a->geom.nr_members *
				    (u32)rl_chunk_sectors(&a->geom));

	return clamp_t(u64, rec * 64, RL_JNL_MIN_BLOCKS, RL_JNL_MAX_BLOCKS);
}

/*
 * Copy @len bytes from @src into the ring at byte @off of the record that
 * starts at ring block @pos (the header block is byte 0).
 */
static void rl_jnl_put(struct rl_jnl *j, u64 pos, size_t off, const void *src,
		       size_t len)
{
	rl_md_area_write(j->md, &j->area, pos * RL_MD_BLOCK + off, src, len);
}

/* Read back what rl_jnl_put() wrote. Returns 0 or -EIO. */
static int rl_jnl_get(struct rl_jnl *j, u64 pos, size_t off, void *dst,
		      size_t len)
{
	return rl_md_area_read(j->md, &j->area, pos * RL_MD_BLOCK + off, dst,
			       len);
}

/* Make record @pos invalid (its magic zero). Durable after rl_md_persist(). */
static void rl_jnl_invalidate(struct rl_jnl *j, u64 pos)
{
	__le64 zero = 0;

	rl_jnl_put(j, pos, offsetof(struct rl_jnl_hdr, magic), &zero,
		   sizeof(zero));
}

int rl_jnl_log(struct rl_jnl *j, const struct rl_plan *p,
	       struct page **const *bufs, struct rl_jnl_waiter *w, u64 *seq)
{
	struct rl_jnl_hdr hdr;
	struct rl_jnl_rec rec;
	size_t off = RL_MD_BLOCK;
	unsigned int i;
	bool ok;
	u32 csum;

	rl_jnl_rec_from_plan(&rec, p, j->a->geom.nr_members);
	spin_lock_irq(&j->lock);
	ok = list_empty(&j->waiters) &&
	     rl_jnl_ring_reserve(&j->ring, rec.blocks, &rec.seq, &rec.pos);
	if (!ok) {
		if (list_empty(&w->node))
			list_add_tail(&w->node, &j->waiters);
		atomic64_inc(&j->waits);
	}
	spin_unlock_irq(&j->lock);
	if (!ok)
		return -EAGAIN;

	csum = rl_jnl_hdr_encode(&rec, j->uuid, &hdr);
	for (i = 0; i < rec.nr; i++) {
		struct page **buf = bufs[rec.ent[i].member];
		unsigned int pos = rec.ent[i].lo << SECTOR_SHIFT;
		unsigned int end = rec.ent[i].hi << SECTOR_SHIFT;

		while (pos < end) {
			unsigned int n = min_t(unsigned int, end - pos,
					       PAGE_SIZE - offset_in_page(pos));
			const void *src = page_address(buf[pos >> PAGE_SHIFT]) +
					  offset_in_page(pos);

			csum = rl_jnl_csum_add(csum, src, n);
			rl_jnl_put(j, rec.pos, off, src, n);
			off += n;
			pos += n;
		}
	}
	rl_jnl_seal(&hdr, csum);
	rl_jnl_put(j, rec.pos, 0, &hdr, sizeof(hdr));
	if (rl_md_persist(j->md)) {
		rl_jnl_done(j, rec.seq);
		return -EIO;
	}
	atomic64_inc(&j->records);
	atomic64_add(sizeof(hdr) + ((u64)rec.payload << SECTOR_SHIFT), &j->bytes);
	*seq = rec.seq;
	return 0;
}

/*
 * A waiter retrying after rl_jnl_log() returned -EAGAIN is still on the
 * list: take it off first, so that it may reserve.
 */
static void rl_jnl_wake(struct rl_jnl *j)
{
	struct rl_jnl_waiter *w, *tmp;
	LIST_HEAD(list);

	spin_lock_irq(&j->lock);
	list_splice_init(&j->waiters, &list);
	spin_unlock_irq(&j->lock);
	list_for_each_entry_safe(w, tmp, &list, node) {
		list_del_init(&w->node);
		queue_work(j->a->wq, w->work);
	}
}

void rl_jnl_done(struct rl_jnl *j, u64 seq)
{
	struct rl_jnl_slot *slot;
	u64 pos;
	bool moved;

	spin_lock_irq(&j->lock);
	slot = &j->ring.slots[seq & (j->ring.nr_slots - 1)];
	pos = slot->start % j->ring.size;
	spin_unlock_irq(&j->lock);
	rl_jnl_invalidate(j, pos);
	rl_md_persist(j->md);

	spin_lock_irq(&j->lock);
	moved = rl_jnl_ring_release(&j->ring, seq);
	spin_unlock_irq(&j->lock);
	if (moved)
		rl_jnl_wake(j);
}

void rl_jnl_counts(struct rl_jnl *j, u64 *records, u64 *bytes, u64 *waits)
{
	*records = atomic64_read(&j->records);
	*bytes = atomic64_read(&j->bytes);
	*waits = atomic64_read(&j->waits);
}

const char *rl_jnl_backend(struct rl_jnl *j)
{
	return j->dax ? "dax" : "bufio";
}

/* ------------------------------------------------------------------------
 * Set-up and recovery.
 */

/*
 * Plans whose writes are journaled: foreground writes that write parity
 * (P, or with raid6 Q when P has failed), unless they rewrite every member
 * of the row whole; every member write of the plan, Q's included, goes
 * into the record. A full-row write on a whole row holds no acknowledged
 * data of the row, and the dirty-region resync makes a torn one
 * consistent. With a member of the row failed it does not write that
 * member: a torn one leaves the failed member's chunk, rebuilt from the
 * rest, neither old nor new, and no resync can run. Without a parity write
 * (the parity members have failed) a torn write can only leave its own
 * data in doubt.
 */
bool rl_jnl_wanted(const struct rl_plan *p, const struct rl_geom *g)
{
	u32 chunk = rl_chunk_sectors(g);
	unsigned int m;
	bool parity = !rl_span_empty(p->write[p->pmember]) ||
		      (p->qmember != RL_NONE &&
		       !rl_span_empty(p->write[p->qmember]));

	if (!p->nr_writes || !parity || p->mode == RL_PLAN_REBUILD)
		return false;
	for (m = 0; m < g->nr_members; m++)
		if (p->write[m].lo || p->write[m].hi != chunk)
			return true;
	return false;
}

/* The journal's area, if the metadata has one. */
static bool rl_jnl_area_lookup(struct rl_md *md, struct rl_md_area *area)
{
	const struct rl_md_state *st = rl_md_state(md);
	unsigned int i;

	for (i = 0; i < st->nr_areas; i++) {
		if (st->areas[i].id == RL_JNL_AREA_ID) {
			*area = st->areas[i];
			return true;
		}
	}
	return false;
}

/*
 * Write @rec's payload onto the members present, through the member queues
 * (rl_mio(), bios from @bs), a member at a time, and wait for each.
 */
static int rl_jnl_replay(struct rl_jnl *j, const struct rl_jnl_rec *rec,
			 struct bio_set *bs, void *bounce)
{
	struct rl_array *a = j->a;
	size_t off = RL_MD_BLOCK;
	struct rl_mio_group g;
	unsigned int i;
	int r;

	for (i = 0; i < rec->nr; i++) {
		unsigned int m = rec->ent[i].member;
		unsigned int n = rec->ent[i].hi - rec->ent[i].lo;

		r = rl_jnl_get(j, rec->pos, off, bounce,
			       (size_t)n << SECTOR_SHIFT);
		off += (size_t)n << SECTOR_SHIFT;
		if (r)
			return r;
		if (!a->members[m].dev || rl_member_failed(a, m))
			continue;
		rl_mio_init(&g, a, bs);
		rl_mio(&g, m, REQ_OP_WRITE | REQ_SYNC,
		       (rec->row << a->geom.chunk_shift) + rec->ent[i].lo,
		       bounce, n, RL_BG, RL_DATA_WRITE);
		if (rl_mio_wait(&g)) {
			DMERR("%s: journal replay: write to member %u (%s) failed",
			      dm_table_device_name(a->ti->table), m,
			      a->members[m].dev->name);
			return -EIO;
		}
	}
	return 0;
}

/* The payload checksum of a record whose header decoded. */
static int rl_jnl_check_payload(struct rl_jnl *j, const struct rl_jnl_hdr *hdr,
				const struct rl_jnl_rec *rec, u32 csum,
				void *bounce)
{
	size_t off = RL_MD_BLOCK, len = (size_t)rec->payload << SECTOR_SHIFT;
	size_t max = (size_t)rl_chunk_sectors(&j->a->geom) << SECTOR_SHIFT;
	int r;

	while (len) {
		size_t n = min(len, max);

		r = rl_jnl_get(j, rec->pos, off, bounce, n);
		if (r)
			return r;
		csum = rl_jnl_csum_add(csum, bounce, n);
		off += n;
		len -= n;
	}
	return rl_jnl_csum_ok(hdr, csum) ? 0 : -EINVAL;
}

/* Find the valid records: *nr of them in @recs, the largest seq in *max_seq. */
static int rl_jnl_scan(struct rl_jnl *j, struct rl_jnl_rec *recs,
		       unsigned int *nr, unsigned int *torn, u64 *max_seq,
		       struct rl_jnl_hdr *hdr, void *bounce)
{
	struct rl_array *a = j->a;
	u64 rows = a->member_sectors >> a->geom.chunk_shift;
	u64 b;
	u32 csum;
	int r;

	*nr = 0;
	*torn = 0;
	*max_seq = 0;
	for (b = 0; b < j->area.blocks; b++) {
		struct rl_jnl_rec *rec = &recs[*nr];

		r = rl_jnl_get(j, b, 0, hdr, sizeof(*hdr));
		if (r)
			return r;
		r = rl_jnl_hdr_decode(hdr, b, j->area.blocks, j->uuid,
				      a->geom.nr_members,
				      rl_chunk_sectors(&a->geom), rec, &csum);
		if (r == -ENODATA)
			continue;
		if (!r && rec->row >= rows)
			r = -EINVAL;
		if (!r)
			r = rl_jnl_check_payload(j, hdr, rec, csum, bounce);
		if (r == -EINVAL) {
			(*torn)++;	/* never durable: its writes never started */
			continue;
		}
		if (r)
			return r;
		if (*nr == RL_JNL_MAX_FOUND) {
			DMWARN("%s: journal: more than %u records, the rest ignored",
			       dm_table_device_name(a->ti->table), RL_JNL_MAX_FOUND);
			break;
		}
		*max_seq = max(*max_seq, rec->seq);
		(*nr)++;
		b += rec->blocks - 1;
	}
	return 0;
}

/* Flush every member present. */
static int rl_jnl_flush_members(struct rl_array *a)
{
	unsigned int m;
	int r;

	for (m = 0; m < a->geom.nr_members; m++) {
		if (!a->members[m].dev || rl_member_failed(a, m))
			continue;
		r = blkdev_issue_flush(a->members[m].dev->bdev);
		if (r)
			return r;
	}
	return 0;
}

/* Empty the ring: no block keeps a record's magic. */
static int rl_jnl_reset(struct rl_jnl *j)
{
	__le64 magic;
	u64 b;
	int r;

	for (b = 0; b < j->area.blocks; b++) {
		r = rl_jnl_get(j, b, offsetof(struct rl_jnl_hdr, magic), &magic,
			       sizeof(magic));
		if (r)
			return r;
		if (le64_to_cpu(magic) == RL_JNL_MAGIC)
			rl_jnl_invalidate(j, b);
	}
	return rl_md_persist(j->md);
}

int rl_jnl_recover(struct rl_jnl *j)
{
	struct rl_array *a = j->a;
	unsigned int i, nr, torn, found;
	struct bio_set bs = {};
	struct rl_jnl_rec *recs;
	struct rl_jnl_hdr *hdr;
	void *bounce;
	u64 max_seq;
	int r;

	recs = kvcalloc(RL_JNL_MAX_FOUND + 1, sizeof(*recs), GFP_KERNEL);
	hdr = kmalloc(sizeof(*hdr), GFP_KERNEL);
	bounce = vmalloc(rl_chunk_sectors(&a->geom) << SECTOR_SHIFT);
	if (!recs || !hdr || !bounce) {
		r = -ENOMEM;
		goto out;
	}
	r = rl_jnl_scan(j, recs, &found, &torn, &max_seq, hdr, bounce);
	if (r)
		goto out;
	nr = rl_jnl_select(recs, found);
	if (nr) {
		r = rl_mio_bioset_init(&bs, 1);
		if (r)
			goto out;
	}
	for (i = 0; i < nr; i++) {
		r = rl_jnl_replay(j, &recs[i], &bs, bounce);
		if (r)
			goto out;
	}
	if (nr) {
		r = rl_jnl_flush_members(a);
		if (r)
			goto out;
	}
	if (found || torn) {
		r = rl_jnl_reset(j);
		if (r)
			goto out;
		DMINFO("%s: journal: %u records replayed, %u damaged or torn dropped",
		       dm_table_device_name(a->ti->table), nr,
		       torn + found - nr);
	}
	rl_jnl_ring_init(&j->ring, j->area.blocks, max_seq + 1, j->ring.slots,
			 j->ring.nr_slots);
	r = nr;
out:
	bioset_exit(&bs);
	vfree(bounce);
	kfree(hdr);
	kvfree(recs);
	return r;
}

static void rl_jnl_destroy(struct rl_jnl *j)
{
	if (!j)
		return;
	kfree(j->ring.slots);
	kfree(j);
}

int rl_jnl_init(struct rl_array *a, char **error)
{
	struct rl_md *md = a->md;
	struct rl_md_area area;
	bool have, want;
	struct rl_jnl *j;
	int r;

	a->jnl = NULL;
	if (!md || !a->ops->parity)
		return 0;
	have = rl_jnl_area_lookup(md, &area);
	want = a->journal == RL_JNL_ON ||
	       (a->journal == RL_JNL_AUTO && !strcmp(rl_md_backend(md), "dax"));
	if (!have && !want)
		return 0;

	j = kzalloc(sizeof(*j), GFP_KERNEL);
	if (!j)
		goto nomem;
	j->a = a;
	j->md = md;
	j->dax = !strcmp(rl_md_backend(md), "dax");
	spin_lock_init(&j->lock);
	INIT_LIST_HEAD(&j->waiters);
	atomic64_set(&j->records, 0);
	atomic64_set(&j->bytes, 0);
	atomic64_set(&j->waits, 0);
	memcpy(j->uuid, rl_md_state(md)->uuid, sizeof(j->uuid));
	if (!have) {
		r = rl_md_area_find(md, RL_JNL_AREA_ID, rl_jnl_area_blocks(a),
				    &area);
		if (r) {
			*error = r == -ENOSPC ? "No room for the journal on the metadata device" :
				 "Cannot make the journal area";
			goto bad;
		}
	}
	j->area = area;
	j->ring.nr_slots = roundup_pow_of_two(max(a->stripe_cache, 1U));
	j->ring.slots = kcalloc(j->ring.nr_slots, sizeof(*j->ring.slots),
				GFP_KERNEL);
	if (!j->ring.slots)
		goto nomem_j;
	r = rl_jnl_recover(j);
	if (r < 0) {
		*error = "Journal replay failed (load the array with the failing member missing)";
		goto bad;
	}
	if (!want) {
		rl_jnl_destroy(j);	/* replayed; not used by this table */
		return 0;
	}
	a->jnl = j;
	return 0;

nomem_j:
	r = -ENOMEM;
	*error = "Cannot allocate the journal";
bad:
	rl_jnl_destroy(j);
	return r;
nomem:
	*error = "Cannot allocate the journal";
	return -ENOMEM;
}

void rl_jnl_free(struct rl_array *a)
{
	rl_jnl_destroy(a->jnl);
	a->jnl = NULL;
}
