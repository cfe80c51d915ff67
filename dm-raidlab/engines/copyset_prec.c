// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: the durable records of delayed
 * propagations (copyset_prec.h): their encoding and replay order (pure),
 * then their slots in the metadata device's record area (the replay is
 * copyset_prop.c's).
 */
#include <linux/sort.h>

#include "../svc/metadata.h"
#include "copyset_int.h"
#include "copyset_prec.h"

static_assert(sizeof(struct rl_cs_prec_disk) == RL_CS_PREC_SIZE);

void rl_cs_prec_encode(const struct rl_cs_prec *r, struct rl_cs_prec_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->magic = cpu_to_le32(RL_CS_PREC_MAGIC);
	d->seq = cpu_to_le64(r->seq);
	d->lsector = cpu_to_le64(r->lsector);
	d->len = cpu_to_le32(r->len);
	d->copy = r->copy;
	d->rep = r->rep;
	d->csum = cpu_to_le32(rl_md_csum(d, sizeof(*d), RL_CS_PREC_CSUM_XOR));
}

/**
 * rl_cs_prec_decode() - a slot's record
 * @d: the slot
 * @b: what a record of this array may describe
 * @r: filled with the record
 *
 * Return: 0; -ENODATA for a free slot (magic 0); -EBADMSG for a torn one
 * (bad checksum or magic), whose write was never submitted; -ERANGE for
 * one that validates but does not fit the array (another layout's).
 */
int rl_cs_prec_decode(const struct rl_cs_prec_disk *d,
		      const struct rl_cs_prec_bounds *b, struct rl_cs_prec *r)
{
	u64 last;
	u32 csum;

	if (!d->magic)
		return -ENODATA;
	csum = rl_md_csum(d, sizeof(*d), RL_CS_PREC_CSUM_XOR);
	if (le32_to_cpu(d->magic) != RL_CS_PREC_MAGIC ||
	    le32_to_cpu(d->csum) != csum)
		return -EBADMSG;
	r->seq = le64_to_cpu(d->seq);
	r->lsector = le64_to_cpu(d->lsector);
	r->len = le32_to_cpu(d->len);
	r->copy = d->copy;
	r->rep = d->rep;
	last = r->lsector + r->len - 1;
	if (!r->len || r->copy >= b->copies || r->rep >= b->dr ||
	    last < r->lsector || last >= b->sectors ||
	    r->lsector >> b->chunk_shift != last >> b->chunk_shift)
		return -ERANGE;
	return 0;
}

static int rl_cs_prec_cmp(const void *x, const void *y)
{
	const struct rl_cs_prec *a = x, *b = y;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

/**
 * rl_cs_prec_collect() - the records to replay, in order
 * @slots: the area's @n slots
 * @n: how many
 * @b: what a record of this array may describe
 * @out: filled with the valid records, in seq order (room for @n)
 * @bad: set to the slots that validated but did not fit the array
 *
 * Free and torn slots are skipped: a torn record's write was never
 * submitted.
 *
 * Return: how many records @out holds.
 */
unsigned int rl_cs_prec_collect(const struct rl_cs_prec_disk *slots,
				unsigned int n,
				const struct rl_cs_prec_bounds *b,
				struct rl_cs_prec *out, unsigned int *bad)
{
	unsigned int i, k = 0;
	int r;

	*bad = 0;
	for (i = 0; i < n; i++) {
		r = rl_cs_prec_decode(&slots[i], b, &out[k]);
		if (!r)
			k++;
		else if (r == -ERANGE)
			(*bad)++;
	}
	sort(out, k, sizeof(*out), rl_cs_prec_cmp, NULL);
	return k;
}

static int rl_cs_prec_ent_cmp(const void *x, const void *y)
{
	const struct rl_cs_prec_ent *a = x, *b = y;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

/*
 * Entry @idx's records (slots idx * copies + copy): 1 if every copy has
 * one and they describe the same write (@e filled), 0 if no copy has one,
 * -EINVAL otherwise.
 */
static int rl_cs_prec_entry(const struct rl_cs_prec_disk *slots,
			    unsigned int idx,
			    const struct rl_cs_prec_bounds *b,
			    struct rl_cs_prec_ent *e)
{
	unsigned int j, found = 0;
	struct rl_cs_prec r;

	for (j = 0; j < b->copies; j++) {
		if (rl_cs_prec_decode(&slots[idx * b->copies + j], b, &r))
			continue;
		if (r.copy != j || (found && (r.lsector != e->lsector ||
					      r.len != e->len)))
			return -EINVAL;
		if (!found++) {
			e->seq = r.seq;
			e->last = r.seq;
			e->lsector = r.lsector;
			e->len = r.len;
		}
		e->seq = min(e->seq, r.seq);
		e->last = max(e->last, r.seq);
		e->rep[j] = r.rep;
	}
	e->idx = idx;
	if (!found)
		return 0;
	return found == b->copies ? 1 : -EINVAL;
}

/**
 * rl_cs_prec_group() - the entries a load takes back, in order
 * @slots: the area's @n slots
 * @n: how many
 * @nr: the entries of the table that takes them back
 * @b: what a record of this array may describe
 * @out: filled with the entries of index below @nr each of whose copies
 *	has a valid record, all of the same write, in seq order (room for
 *	@nr)
 *
 * Return: how many @out holds (0 if the array has more copies than an
 * entry taken back may have).
 */
unsigned int rl_cs_prec_group(const struct rl_cs_prec_disk *slots,
			      unsigned int n, unsigned int nr,
			      const struct rl_cs_prec_bounds *b,
			      struct rl_cs_prec_ent *out)
{
	unsigned int i, k = 0;

	if (!b->copies || b->copies > RL_CS_PREC_MAX_COPIES)
		return 0;
	nr = min(nr, n / b->copies);
	for (i = 0; i < nr; i++)
		if (rl_cs_prec_entry(slots, i, b, &out[k]) == 1)
			k++;
	sort(out, k, sizeof(*out), rl_cs_prec_ent_cmp, NULL);
	return k;
}

/* ------------------------------------------------------------------------
 * The slots, in the metadata device's record area.
 */

/* The slots @n records need, whole blocks. */
static u64 cs_prec_blocks(unsigned int n)
{
	return DIV_ROUND_UP((u64)n * RL_CS_PREC_SIZE, RL_MD_BLOCK);
}

/* The area, if the metadata has one: its slots, else 0. Sleeps. */
unsigned int cs_prec_lookup(struct rl_md *md, struct rl_md_area *area)
{
	struct rl_md_state *st = rl_md_state(md);
	unsigned int i, n = 0;

	rl_md_lock(md);
	for (i = 0; i < st->nr_areas; i++) {
		if (st->areas[i].id != RL_CS_PREC_AREA_ID)
			continue;
		*area = st->areas[i];
		n = min_t(u64, area->blocks * (RL_MD_BLOCK / RL_CS_PREC_SIZE),
			  UINT_MAX);
	}
	rl_md_unlock(md);
	return n;
}

/**
 * cs_prec_open() - the record slots of a propagation table
 * @a: the array, with a DAX metadata device
 * @slots: the slots the table needs (entries times copies)
 * @pr: filled in
 *
 * Makes the area at its first use; an area made for fewer slots is
 * refused (it keeps the size it was made with). Sets a->ti->error on
 * failure. Sleeps.
 *
 * Return: 0, -ENOSPC or -EINVAL.
 */
int cs_prec_open(struct rl_array *a, unsigned int slots, struct rl_cs_precs *pr)
{
	unsigned int have = cs_prec_lookup(a->md, &pr->area);

	if (!have) {
		if (rl_md_area_find(a->md, RL_CS_PREC_AREA_ID,
				    cs_prec_blocks(slots), &pr->area)) {
			a->ti->error = "No room on the metadata device for the propagation records";
			return -ENOSPC;
		}
		have = slots;
	}
	if (have < slots) {
		a->ti->error = "table_entries exceeds the metadata's propagation records";
		return -EINVAL;
	}
	pr->md = a->md;
	pr->slots = slots;
	return 0;
}

/*
 * Write record @r to slot @slot and make it durable. Any context (DAX:
 * flushed stores and a fence). Returns 0, or -EIO if the metadata failed.
 */
int cs_prec_write(struct rl_cs_precs *pr, unsigned int slot,
		  const struct rl_cs_prec *r)
{
	struct rl_cs_prec_disk d;

	rl_cs_prec_encode(r, &d);
	if (rl_md_area_write(pr->md, &pr->area, (u64)slot * sizeof(d), &d,
			     sizeof(d)))
		return -EIO;
	return rl_md_persist(pr->md);
}

/* Free slot @slot: its magic zeroed, durable after rl_md_persist(). Any context. */
void cs_prec_clear(struct rl_cs_precs *pr, unsigned int slot)
{
	static const __le32 zero;

	rl_md_area_write(pr->md, &pr->area,
			 (u64)slot * RL_CS_PREC_SIZE +
			 offsetof(struct rl_cs_prec_disk, magic),
			 &zero, sizeof(zero));
}
