// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab altmirror: the pure parts (am.h): the pool's slot format and
 * the load's choice, the batch builder, and the cycle.
 */
#include <linux/bitops.h>
#include <linux/crc32c.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "am.h"

static_assert(sizeof(struct rl_am_slot_disk) == RL_AM_SLOT_SIZE);
static_assert(sizeof(struct rl_am_rec_disk) == RL_AM_REC_SIZE);

u64 rl_am_area_blocks(u32 nr)
{
	return DIV_ROUND_UP((u64)nr, RL_AM_SLOTS_PER_BLOCK) + nr;
}

u64 rl_am_hdr_pos(u32 slot)
{
	return (u64)slot * RL_AM_SLOT_SIZE;
}

u64 rl_am_data_block(u32 nr, u32 slot)
{
	return DIV_ROUND_UP((u64)nr, RL_AM_SLOTS_PER_BLOCK) + slot;
}

/* The installed word: the bits count only beside their own seq. */
u64 rl_am_installed_word(u64 seq, u8 installed)
{
	return seq << 2 | (installed & RL_AM_ALL);
}

/*
 * The data's crc32c, in pieces: start with ~0U and chain (a write copies
 * its bio's segments into the slot and sums them as it goes).
 */
u32 rl_am_data_crc(u32 crc, const void *data, size_t len)
{
	return crc32c(crc, data, len);
}

static u32 rl_am_csum(const struct rl_am_slot_disk *d, u32 data_crc)
{
	return crc32c(data_crc, &d->magic,
		      offsetof(struct rl_am_slot_disk, installed) -
		      offsetof(struct rl_am_slot_disk, magic)) ^ RL_AM_CSUM_XOR;
}

/**
 * rl_am_slot_encode() - a slot's header for a block's data
 * @s: the header in core
 * @data_crc: rl_am_data_crc() of the block's RL_AM_BLOCK bytes
 * @d: filled with the header
 */
void rl_am_slot_encode(const struct rl_am_slot *s, u32 data_crc,
		       struct rl_am_slot_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->magic = cpu_to_le32(RL_AM_MAGIC);
	d->seq = cpu_to_le64(s->seq);
	d->lblock = cpu_to_le64(s->lblock);
	d->installed = cpu_to_le64(rl_am_installed_word(s->seq, s->installed));
	d->csum = cpu_to_le32(rl_am_csum(d, data_crc));
}

/**
 * rl_am_slot_decode() - a slot's header, checked against its data
 * @d: the header
 * @data: the slot's data block
 * @nr_blocks: the array's blocks
 * @s: filled with the header
 *
 * Return: 0; -ENODATA for a free slot; -EBADMSG for a torn one (header or
 * data), never acknowledged; -ERANGE for one that validates but lies past
 * the array's end (another array's).
 */
int rl_am_slot_decode(const struct rl_am_slot_disk *d, const void *data,
		      u64 nr_blocks, struct rl_am_slot *s)
{
	u64 word;

	if (!d->magic)
		return -ENODATA;
	if (le32_to_cpu(d->magic) != RL_AM_MAGIC ||
	    le32_to_cpu(d->csum) !=
	    rl_am_csum(d, rl_am_data_crc(~0U, data, RL_AM_BLOCK)))
		return -EBADMSG;
	s->seq = le64_to_cpu(d->seq);
	s->lblock = le64_to_cpu(d->lblock);
	word = le64_to_cpu(d->installed);
	s->installed = word >> 2 == (s->seq & (U64_MAX >> 2)) ?
		       word & RL_AM_ALL : 0;
	if (s->lblock >= nr_blocks)
		return -ERANGE;
	return 0;
}

static int rl_am_found_cmp(const void *x, const void *y)
{
	const struct rl_am_found *a = x, *b = y;

	if (a->lblock != b->lblock)
		return a->lblock < b->lblock ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq > b->seq ? -1 : 1;
	if (a->slot != b->slot)
		return a->slot < b->slot ? -1 : 1;
	return 0;
}

/**
 * rl_am_choose() - the version of each block a load keeps
 * @f: the valid slots, in any order; sorted by block on return
 * @n: how many
 *
 * Marks ->keep on the newest version of each block: the highest seq, and
 * of two with one seq (a duplicate a crash cannot make, kept for a damaged
 * pool) the lower slot. The others are older versions to free.
 *
 * Return: the versions kept.
 */
u32 rl_am_choose(struct rl_am_found *f, u32 n)
{
	u32 i, kept = 0;

	sort(f, n, sizeof(*f), rl_am_found_cmp, NULL);
	for (i = 0; i < n; i++) {
		f[i].keep = !i || f[i].lblock != f[i - 1].lblock;
		kept += f[i].keep;
	}
	return kept;
}

static int rl_am_bent_cmp(const void *x, const void *y)
{
	const struct rl_am_bent *a = x, *b = y;

	if (a->lblock != b->lblock)
		return a->lblock < b->lblock ? -1 : 1;
	return 0;
}

/* A batch in physical order: the members hold block b at one offset. */
void rl_am_batch_sort(struct rl_am_bent *e, u32 n)
{
	sort(e, n, sizeof(*e), rl_am_bent_cmp, NULL);
}

/**
 * rl_am_batch_runs() - a sorted batch cut into runs of contiguous blocks
 * @e: the batch's blocks, sorted (one version of each block)
 * @n: how many
 * @max_run: the most blocks one run may hold
 * @runs: filled with the runs (room for @n)
 *
 * Return: the runs.
 */
u32 rl_am_batch_runs(const struct rl_am_bent *e, u32 n, u32 max_run,
		     struct rl_am_run *runs)
{
	u32 i, nr = 0;

	for (i = 0; i < n; i++) {
		struct rl_am_run *r = nr ? &runs[nr - 1] : NULL;

		if (r && r->nr < max_run && e[i].lblock == r->lblock + r->nr) {
			r->nr++;
			continue;
		}
		runs[nr].lblock = e[i].lblock;
		runs[nr].first = i;
		runs[nr].nr = 1;
		nr++;
	}
	return nr;
}

void rl_am_cycle_init(struct rl_am_cycle *c, u64 now, u64 tmin, u64 tmax,
		      bool overlap)
{
	memset(c, 0, sizeof(*c));
	c->tmin = tmin;
	c->tmax = tmax;
	c->period = tmax;
	c->overlap = overlap;
	c->last_start = now;
	c->next[0] = now + c->period;
	c->next[1] = now + c->period + c->period / 2;
}

/**
 * rl_am_period() - the cycle T for a write rate
 * @batch: blocks a batch should hold
 * @arrived: writes in the last period
 * @elapsed: its length, ns
 * @tmin: the shortest T, ns
 * @tmax: the longest, and T with no writes
 *
 * Return: the time the rate takes to fill a batch, within [@tmin, @tmax].
 */
u64 rl_am_period(u64 batch, u64 arrived, u64 elapsed, u64 tmin, u64 tmax)
{
	u64 t;

	if (!arrived || !elapsed)
		return tmax;
	t = mul_u64_u64_div_u64(batch, elapsed, arrived);
	return clamp(t, tmin, tmax);
}

/* Disk @d starts a batch now. */
static void rl_am_cycle_start(struct rl_am_cycle *c,
			      const struct rl_am_cycle_in *in, unsigned int d)
{
	unsigned int o = !d;

	if (c->writing[o])
		c->overlaps++;
	c->writing[d] = true;
	/* the period is measured from disk 0's starts, or the one disk's */
	if (!d || c->single_batch) {
		c->period = rl_am_period(in->batch, c->arrived,
					 in->now - c->last_start,
					 c->tmin, c->tmax);
		c->last_start = in->now;
		c->arrived = 0;
	}
	c->next[d] = in->now + c->period;
	c->next[o] = in->now + c->period / 2;
	c->turn = o;
}

/**
 * rl_am_cycle_next() - what the cycle does now
 * @c: the cycle
 * @in: the time, the pool and the disks
 * @disk: set to the disk to start (RL_AM_START)
 * @until: set to when to ask again (RL_AM_WAIT); U64_MAX: at a kick (a
 *	batch's end, a write under pressure)
 *
 * A disk whose turn comes with nothing pending lets it pass: its next
 * start is a period on, and the other disk's turn comes (ask again at
 * once if *@until is not in the future).
 *
 * Return: RL_AM_START (the disk is marked writing) or RL_AM_WAIT.
 */
enum rl_am_act rl_am_cycle_next(struct rl_am_cycle *c,
				const struct rl_am_cycle_in *in,
				unsigned int *disk, u64 *until)
{
	unsigned int d = c->turn, o = !d;

	*until = U64_MAX;
	if (!in->live)
		return RL_AM_WAIT;
	if (hweight32(in->live) == 1) {
		d = __ffs(in->live);
		if (c->writing[d] || !in->pending[d])
			return RL_AM_WAIT;
		if (c->single_batch && !in->pressure && in->now < c->next[d] &&
		    in->pending[d] < in->batch) {
			*until = c->next[d];
			return RL_AM_WAIT;
		}
		if (c->single_batch)
			rl_am_cycle_start(c, in, d);
		c->writing[d] = true;
		*disk = d;
		return RL_AM_START;
	}
	if (c->writing[d])
		return RL_AM_WAIT;
	/* a whole batch has accumulated: its time has come */
	if (!in->pressure && in->now < c->next[d] &&
	    in->pending[d] < in->batch) {
		*until = c->next[d];
		return RL_AM_WAIT;
	}
	if (!in->pending[d]) {
		c->next[d] = in->now + c->period;
		c->turn = o;
		*until = in->pressure ? in->now : c->next[o];
		if (!in->pending[o])
			*until = min(c->next[o], c->next[d]);
		return RL_AM_WAIT;
	}
	if (c->writing[o] && !c->overlap) {
		c->held++;
		return RL_AM_WAIT;
	}
	rl_am_cycle_start(c, in, d);
	*disk = d;
	return RL_AM_START;
}

/* Disk @disk's batch has ended. */
void rl_am_cycle_done(struct rl_am_cycle *c, unsigned int disk)
{
	c->writing[disk] = false;
}

/* The record area's blocks for an array of @nr_blocks: copies, bitmap. */
u64 rl_am_rec_blocks(u64 nr_blocks)
{
	return 1 + DIV_ROUND_UP_ULL(nr_blocks, RL_AM_REC_BITS);
}

static u32 rl_am_rec_csum(const struct rl_am_rec_disk *d)
{
	return crc32c(~0U, &d->magic, sizeof(*d) - sizeof(d->csum)) ^
	       RL_AM_REC_CSUM_XOR;
}

void rl_am_rec_encode(const struct rl_am_rec *r, struct rl_am_rec_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->magic = cpu_to_le32(RL_AM_REC_MAGIC);
	d->version = cpu_to_le32(1);
	d->state = cpu_to_le32(r->state);
	d->gen = cpu_to_le64(r->gen);
	memcpy(d->uuid, r->uuid, 16);
	memcpy(d->r2_uuid, r->r2_uuid, 16);
	d->survivor = cpu_to_le32(r->survivor);
	d->csum = cpu_to_le32(rl_am_rec_csum(d));
}

/**
 * rl_am_rec_decode() - one copy of the recovery record
 * @d: the copy
 * @uuid: the array's uuid
 * @r: filled in
 *
 * Return: 0; -ENODATA for a blank copy; -EBADMSG for a torn or foreign
 * one (another array's, an unknown version or state, a bad survivor).
 */
int rl_am_rec_decode(const struct rl_am_rec_disk *d, const u8 uuid[16],
		     struct rl_am_rec *r)
{
	if (!d->magic)
		return -ENODATA;
	if (le32_to_cpu(d->magic) != RL_AM_REC_MAGIC ||
	    le32_to_cpu(d->csum) != rl_am_rec_csum(d) ||
	    le32_to_cpu(d->version) != 1 || memcmp(d->uuid, uuid, 16))
		return -EBADMSG;
	r->state = le32_to_cpu(d->state);
	r->gen = le64_to_cpu(d->gen);
	memcpy(r->uuid, d->uuid, 16);
	memcpy(r->r2_uuid, d->r2_uuid, 16);
	r->survivor = le32_to_cpu(d->survivor);
	if (r->state > RL_AM_REC_CATCHUP_R2 || r->survivor >= RL_AM_DISKS)
		return -EBADMSG;
	return 0;
}

/**
 * rl_am_rec_choose() - the record that counts of its two copies
 * @d: the two copies
 * @uuid: the array's uuid
 * @r: filled in: the valid copy with the higher gen, or state none (gen 0)
 *
 * Return: the copy chosen (0 or 1), or -ENODATA with neither valid.
 */
int rl_am_rec_choose(const struct rl_am_rec_disk *d, const u8 uuid[16],
		     struct rl_am_rec *r)
{
	struct rl_am_rec c[2];
	bool ok0 = !rl_am_rec_decode(&d[0], uuid, &c[0]);
	bool ok1 = !rl_am_rec_decode(&d[1], uuid, &c[1]);
	int i;

	memset(r, 0, sizeof(*r));
	memcpy(r->uuid, uuid, 16);
	if (!ok0 && !ok1)
		return -ENODATA;
	i = ok0 && (!ok1 || c[0].gen >= c[1].gen) ? 0 : 1;
	*r = c[i];
	return i;
}
