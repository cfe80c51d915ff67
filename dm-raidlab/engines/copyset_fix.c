// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: read-error fixes, as md's fix_read_error: a
 * read that failed is read from another copy and written back over the
 * one that failed, then read back and compared, under the window lock
 * (fix_work, on a workqueue of its own).
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../svc/bbl.h"
#include "../svc/metadata.h"
#include "copyset_int.h"

/* The member whose disk is @dev, or RL_NONE (a spare took the role since). */
static unsigned int cs_member_of(struct rl_array *a, const struct dm_dev *dev)
{
	unsigned int m;

	for (m = 0; m < a->geom.nr_members; m++)
		if (READ_ONCE(a->members[m].dev) == dev)
			return m;
	return RL_NONE;
}

/* Copy @bytes of @buf into @bio's data, @off sectors into it. */
static void cs_copy_to_bio(struct bio *bio, sector_t off, const u8 *buf,
			   size_t bytes)
{
	struct bvec_iter it = bio->bi_iter;
	struct bio_vec bv;

	bio_advance_iter(bio, &it, off << SECTOR_SHIFT);
	while (bytes && it.bi_size) {
		bv = bio_iter_iovec(bio, it);
		bv.bv_len = min_t(size_t, bytes, bv.bv_len);
		memcpy_to_bvec(&bv, buf);
		buf += bv.bv_len;
		bytes -= bv.bv_len;
		bio_advance_iter_single(bio, &it, bv.bv_len);
	}
}

/*
 * Read piece @p from a member other than @bad (that could not read it)
 * into that member's buffer; if one cannot read it either, the next is
 * tried (it is not failed for it: its own reads will rewrite it).
 * Returns the member read, or RL_NONE. The window is open. Sleeps.
 */
static unsigned int cs_fix_source(struct rl_array *a, unsigned int bad,
				  const struct rl_cs_piece *p)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned long tried = bad == RL_NONE ? 0 : BIT(bad);
	u8 srep[RL_MAX_MEMBERS];
	const u8 *sr = cs_prop_srep(a, p, srep);
	unsigned int src;

	for (;;) {
		src = rl_cs_source(cs_unreadable(a, p) | tried,
				   a->geom.nr_members);
		if (src == RL_NONE)
			return RL_NONE;
		/* the replica that holds the data, where a propagation waits */
		if (!cs_io_rep(a, src, REQ_OP_READ, BIT(sr ? sr[src] : 0),
			       cs->buf[src].data, p->sector[src], p->len,
			       RL_FG))
			return src;
		__set_bit(src, &tried);
		DMERR_LIMIT("%s: member %u: read error at %llu, serving a read member %u could not",
			    dm_table_device_name(a->ti->table), src,
			    (unsigned long long)p->sector[src], bad);
	}
}

/*
 * No other member can serve piece @p: with rotational replicas, read
 * another replica of member @bad's own copy, one that holds its data
 * (every replica, unless a write's propagation waits there), into the
 * spare buffer. Returns it, or NULL. The window is open. Sleeps.
 */
static const u8 *cs_fix_replica(struct rl_array *a, unsigned int bad,
				const struct rl_cs_piece *p)
{
	struct rl_copyset *cs = rl_copyset(a);
	u8 *buf = cs->buf[a->geom.nr_members].data;
	unsigned long fresh;
	unsigned int r;

	if (cs->dr < 2 || bad == RL_NONE || !test_bit(bad, &p->members) ||
	    rl_member_failed(a, bad))
		return NULL;
	fresh = cs_prop_fresh(a, p, bad, cs_piece_suspect(a, p));
	for (r = 0; r < cs->dr; r++)
		if (fresh & BIT(r) &&
		    !cs_io_rep(a, bad, REQ_OP_READ, BIT(r), buf,
			       p->sector[bad], p->len, RL_FG)) {
			DMERR_LIMIT("%s: member %u: read error at %llu, served from its replica %u",
				    dm_table_device_name(a->ti->table), bad,
				    (unsigned long long)p->sector[bad], r);
			return buf;
		}
	return NULL;
}

/*
 * Write @good over member @bad's copy at [s, s + len) (every replica of
 * it) and read each replica back to compare. Returns false if a write or
 * a read failed or read back wrong. Sleeps.
 */
static bool cs_fix_rewrite(struct rl_array *a, unsigned int bad,
			   const u8 *good, sector_t s, sector_t len)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int r;

	if (cs_io(a, bad, REQ_OP_WRITE, (void *)good, s, len, RL_FG))
		return false;
	for (r = 0; r < cs_rep_count(cs); r++)
		if (cs_io_rep(a, bad, REQ_OP_READ, BIT(r), cs->buf[bad].data, s,
			      len, RL_FG) ||
		    memcmp(cs->buf[bad].data, good, (size_t)len << SECTOR_SHIFT))
			return false;
	return true;
}

/*
 * Fix piece @p of a read that member @bad's disk @dev could not serve:
 * read it from another copy (or another replica of @bad's, with no other
 * copy) and write it back over @bad's, then read it
 * back from @bad and compare (md's fix_read_error). A rewrite that
 * fails, or reads back wrong, fails @bad. The window is open, so no
 * write to the piece runs meanwhile: the rewrite cannot put older data
 * over a newer write. (A crash in the middle of it leaves @bad's sectors
 * old or rewritten, both the data the others hold: no intent is needed.)
 * Returns the buffer with the data, or NULL if no member could read it.
 * Sleeps.
 */
static const u8 *cs_fix_piece(struct rl_array *a, unsigned int bad,
			      const struct dm_dev *dev,
			      const struct rl_cs_piece *p)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int src = cs_fix_source(a, bad, p);
	sector_t s, len = p->len;
	const u8 *good;

	good = src == RL_NONE ? cs_fix_replica(a, bad, p) : cs->buf[src].data;
	if (!good)
		return NULL;
	/* not if the role went to a spare meanwhile: its rebuild writes it */
	if (bad == RL_NONE || !test_bit(bad, &p->members) ||
	    rl_member_failed(a, bad) || READ_ONCE(a->members[bad].dev) != dev)
		return good;
	s = p->sector[bad];
	if (cs_fix_rewrite(a, bad, good, s, len))
		return good;
	/* the last copy is kept, as md keeps its last working device */
	if (src == RL_NONE)
		DMERR_LIMIT("%s: member %u: read error at %llu, rewrite from a replica failed",
			    dm_table_device_name(a->ti->table), bad,
			    (unsigned long long)s);
	else
		rl_member_fail_io(a, bad, dev, "read error, rewrite failed");
	return good;
}

/*
 * Serve a read that failed on its member (pb->dev), a piece at a time,
 * each under a window over its copy on that member.
 */
static void cs_fix_read(struct rl_array *a, struct bio *bio)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_bio *pb = rl_pb(bio);
	unsigned int bad = cs_member_of(a, pb->dev);
	sector_t s = pb->lsector, end = s + bio_sectors(bio), len;
	struct rl_cs_piece p;
	unsigned int w;
	const u8 *good;

	bio->bi_status = BLK_STS_OK;
	while (s < end) {
		len = rl_cs_split_len(s, min_t(sector_t, end - s,
					       cs->check_sectors),
				      cs_split_shift(a));
		len = cs_piece(a, s, len, &p);
		w = bad != RL_NONE && test_bit(bad, &p.members) ? bad :
			__ffs(p.members);
		cs_window_open(cs, p.sector[w], len);
		good = cs_fix_piece(a, bad, pb->dev, &p);
		if (good)
			cs_copy_to_bio(bio, s - pb->lsector, good,
				       (size_t)len << SECTOR_SHIFT);
		cs_window_close(cs);
		if (!good) {
			bio->bi_status = BLK_STS_IOERR;
			break;
		}
		s += len;
	}
	bio_endio(bio);
}

void cs_fix_work(struct work_struct *ws)
{
	struct rl_copyset *cs = container_of(ws, struct rl_copyset, fix_work);
	struct bio_list list;
	struct bio *bio;

	spin_lock_irq(&cs->lock);
	list = cs->fix;
	bio_list_init(&cs->fix);
	spin_unlock_irq(&cs->lock);
	while ((bio = bio_list_pop(&list)))
		cs_fix_read(cs->a, bio);
}
