// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: background jobs (->sync_range, called by
 * sync.c's worker): resync, rebuild, check and repair, a window at a
 * time, and the bad-block records of what no member could read.
 *
 * A job's window is a range of member sectors, the same on every member
 * (sync.c's cursors and the intent bitmap are in member sectors). The
 * window lock holds off every write one of whose copies lies in the
 * window's bucket, so the job may touch every copy of every piece it
 * meets. A rebuild walks its target's copies in the window, in the
 * target's order (md's raid10 recovery), each copied from another copy
 * of its piece. Resync, check and repair walk every member's copies in
 * the window and do each piece at its lowest copy only
 * (rl_cs_piece_owner()), so that a pass does it once: its other copies
 * may lie in other windows (far, offset and chained layouts), and are
 * read or written from here.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../svc/bbl.h"
#include "../svc/metadata.h"
#include "copyset_int.h"

/*
 * Member @m could not read its copy of piece @p in a background job, and
 * another member can: the caller rewrites @m's copy from it. Returns true
 * if it may (the error is counted), false once @m has had more than
 * RL_MAX_READ_ERRORS: then @m has failed, unless no other member holding
 * a copy of @p is in sync.
 */
bool cs_bg_read_error(struct rl_array *a, unsigned int m,
		      const struct rl_cs_piece *p, const char *job)
{
	struct dm_dev *dev = READ_ONCE(a->members[m].dev);
	char why[32];

	if (rl_member_read_error(a, m, dev, p->sector[m]))
		return true;
	/* md keeps its last working device: the sectors are lost instead */
	if (!(p->members & ~BIT(m) & ~READ_ONCE(a->failed) &
	      ~READ_ONCE(a->rebuilding)))
		return false;
	snprintf(why, sizeof(why), "%s read error", job);
	rl_member_fail_io(a, m, dev, why);
	return false;
}

/* A piece no member could read: the job stops there (sync.c logs where). */
int cs_bg_no_source(struct rl_array *a, unsigned long bad,
		    const struct rl_cs_piece *p, const char *job)
{
	DMERR_LIMIT("%s: %s: no member can read member sector %llu (%*pbl tried)",
		    dm_table_device_name(a->ti->table), job,
		    (unsigned long long)p->sector[__ffs(p->members)],
		    a->geom.nr_members, &bad);
	return -EIO;
}

/*
 * Copy piece @p from member @src's copy over those of the members in
 * @dests, as dm-kcopyd overlaps its sub-jobs: the piece in two parts or
 * more, each in a check buffer of its own (the members' buffers hold a
 * window: nr * check_sectors >= RL_CS_SLOT_SECTORS, rl_copyset_create()),
 * every read queued on @src at once, back to back, and each part's
 * writes queued as soon as it is read. Fails the members whose disks
 * could not write (a disk replaced meanwhile is the new one's rebuild's
 * business); returns 0 or -EIO. @src may be in @dests where members hold
 * replicas: its replicas other than the one read are written then.
 * @read_err: set (to BIT(@src)) if @src could not read it. Sleeps.
 */
static int cs_copy(struct rl_array *a, unsigned int src, unsigned long dests,
		   const struct rl_cs_piece *p, unsigned int srep,
		   const char *job, unsigned long *read_err)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int nr = a->geom.nr_members, i, k, m;
	sector_t len = p->len, part = min_t(sector_t, cs->check_sectors,
					    round_up(DIV_ROUND_UP(len, 2), 8));
	struct rl_mio_group *wg = &cs->copy_wg;
	bool bad = false;
	char why[32];
	sector_t n;
	u8 *buf;

	k = DIV_ROUND_UP(len, part);
	for (i = 0; i < k; i++) {
		rl_mio_init(&cs->copy_rg[i], a, &cs->mio_bs);
		cs_rep_mio(&cs->copy_rg[i], src, REQ_OP_READ, BIT(srep),
			   p->sector[src] + i * part,
			   cs->buf[(src + i) % nr].data,
			   min(part, len - i * part), RL_BG, RL_DATA_READ);
	}
	rl_mio_init(wg, a, &cs->mio_bs);
	for (i = 0; i < k; i++) {
		buf = cs->buf[(src + i) % nr].data;
		n = min(part, len - i * part);
		/* wait for every read, even after one failed: they use buf */
		if (rl_mio_wait(&cs->copy_rg[i]))
			bad = true;
		if (bad)
			continue;
		rl_mio_read_done(buf, n);
		/* @src itself in @dests: its other replicas */
		for_each_set_bit(m, &dests, nr)
			cs_rep_mio(wg, m, REQ_OP_WRITE,
				   m == src ? ~BIT(srep) : CS_REP_ALL,
				   p->sector[m] + i * part, buf, n, RL_BG,
				   RL_DATA_WRITE);
	}
	rl_mio_wait(wg);
	*read_err = bad ? BIT(src) : 0;
	if (!(wg->failed & dests))
		return 0;
	snprintf(why, sizeof(why), "%s write error", job);
	for_each_set_bit(m, &wg->failed, nr)
		rl_member_fail_io(a, m, wg->fdev[m], why);
	return -EIO;
}

/*
 * Copied over @dests: their bad-block entries in piece @p go (durable at
 * the end of the window, cs_sync_range()). Process context.
 */
static void cs_copied(struct rl_array *a, unsigned long dests,
		      const struct rl_cs_piece *p)
{
	unsigned long bb = cs_bb_members(a, p) & dests;
	unsigned int m;

	for_each_set_bit(m, &bb, a->geom.nr_members)
		rl_bbl_clear(a, m, p->sector[m], p->len);
}

/*
 * A copy job's piece: copy it over @dests from the first readable member.
 * A source that cannot read it is rewritten, with @dests, from the next
 * one, as md's raid1 does with a sync read error: a bad sector costs no
 * disk (past RL_MAX_READ_ERRORS it does). With no member left to read it
 * returns -ENODATA (a resync then stops; a rebuild loses the sectors,
 * cs_rebuild_lost()). @srep: the replica each member is read from (NULL:
 * replica 0). Sleeps; the window is open.
 */
int cs_copy_window(struct rl_array *a, unsigned long unreadable,
		   unsigned long dests, const struct rl_cs_piece *p,
		   const u8 *srep, const char *job)
{
	unsigned long fix = 0, read_err;
	unsigned int src;
	int r;

	for (;;) {
		src = rl_cs_source(unreadable | fix, a->geom.nr_members);
		if (src == RL_NONE) {
			cs_bg_no_source(a, fix, p, job);
			return -ENODATA;
		}
		dests = (dests | fix) & ~READ_ONCE(a->failed);
		/* with replicas the source's others are copied over too */
		if (cs_rep_count(rl_copyset(a)) == 1)
			dests &= ~BIT(src);
		if (!dests)
			return 0;
		r = cs_copy(a, src, dests, p, srep ? srep[src] : 0, job,
			    &read_err);
		if (!r && !read_err)
			cs_copied(a, dests, p);
		if (r || !read_err)
			return r;
		if (cs_bg_read_error(a, src, p, job))
			__set_bit(src, &fix);
		else
			__set_bit(src, &unreadable);
	}
}

/*
 * Check or repair read piece @p from every member not in @unreadable;
 * those in @rerr could not. Rewrite their copies from the first member
 * that could (a check too, as md's raid1 does: a bad sector is fixed
 * where it is found). Returns that member (the check's source from now
 * on), or RL_NONE if none could read it. Sleeps; the window is open.
 */
static unsigned int cs_check_fix(struct rl_array *a, unsigned long unreadable,
				 unsigned long rerr,
				 const struct rl_cs_piece *p, const char *job)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int src = rl_cs_source(unreadable | rerr, a->geom.nr_members);
	unsigned int m;

	if (src == RL_NONE)
		return RL_NONE;
	for_each_set_bit(m, &rerr, a->geom.nr_members) {
		if (!cs_bg_read_error(a, m, p, job))
			continue;
		if (cs_io(a, m, REQ_OP_WRITE, cs->buf[src].data, p->sector[m],
			  p->len, RL_BG))
			rl_member_fail(a, m, "read error, rewrite failed");
	}
	return src;
}

/*
 * With replicas, a check of piece @p also compares replicas 1.. of each
 * member in @members with the source's replica 0 (in its buffer), into
 * cs->diff; a repair rewrites a replica that differs. A replica that
 * cannot be read is rewritten from the source (it is a bad sector, not a
 * disk: cs_bg_read_error() counts it). Returns 0 or -EIO (a member whose
 * rewrite failed has failed). Sleeps; the window is open.
 */
static int cs_check_replicas(struct rl_array *a, unsigned int src,
			     unsigned long members,
			     const struct rl_cs_piece *p, bool repair)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int nr = a->geom.nr_members, m, rep, first, last;
	const u8 *good = cs->buf[src].data;
	u8 *buf = cs->buf[nr].data;	/* the replicas' own */
	const char *job = repair ? "repair" : "check";
	int r = 0;

	for (rep = 1; rep < cs->dr; rep++) {
		for_each_set_bit(m, &members, nr) {
			sector_t s = p->sector[m];

			if (cs_io_rep(a, m, REQ_OP_READ, BIT(rep), buf, s,
				      p->len, RL_BG)) {
				first = 0;
				last = p->len - 1;
				if (!cs_bg_read_error(a, m, p, job))
					continue;
			} else if (!rl_cs_diff(good, buf, p->len, cs->diff,
					       &first, &last) || !repair) {
				continue;
			}
			if (cs_io_rep(a, m, REQ_OP_WRITE, BIT(rep),
				      (void *)good + ((size_t)first << SECTOR_SHIFT),
				      s + first, last - first + 1, RL_BG)) {
				rl_member_fail(a, m, "replica rewrite failed");
				r = -EIO;
			}
		}
	}
	return r;
}

/*
 * Check (and with @repair, repair) piece @p: read it from every member
 * not in @unreadable, compare each copy with @src's, count the sectors
 * where any differs in req->mismatches, and for repair write @src's copy
 * over each differing member, from its first to its last differing
 * sector. Sleeps.
 */
static int cs_check(struct rl_array *a, unsigned int src,
		    unsigned long unreadable, const struct rl_cs_piece *p,
		    struct rl_sync_req *req, bool repair)
{
	struct rl_copyset *cs = rl_copyset(a);
	const char *job = repair ? "repair" : "check";
	unsigned int m, nr = a->geom.nr_members, len = p->len;
	unsigned int first[RL_MAX_MEMBERS], last[RL_MAX_MEMBERS];
	unsigned long differ = 0, rerr;
	u8 srep[RL_MAX_MEMBERS];
	int r = 0;

	/* each copy from the replica that holds its data */
	rerr = cs_read_all(a, GENMASK(nr - 1, 0) & ~unreadable, p,
			   cs_prop_srep(a, p, srep));
	if (rerr) {
		src = cs_check_fix(a, unreadable, rerr, p, job);
		if (src == RL_NONE)
			return cs_bg_no_source(a, rerr, p, job);
		unreadable |= rerr;	/* rewritten: equal to src's */
	}

	bitmap_zero(cs->diff, len);
	for (m = 0; m < nr; m++) {
		if (m == src || test_bit(m, &unreadable))
			continue;
		if (rl_cs_diff(cs->buf[src].data, cs->buf[m].data, len,
			       cs->diff, &first[m], &last[m]))
			__set_bit(m, &differ);
	}
	/* replicas a write's propagation has still to write differ: not yet */
	if (cs->dr > 1 && !cs_prop_pending(a, p->lsector, p->len))
		r = cs_check_replicas(a, src, GENMASK(nr - 1, 0) & ~unreadable,
				      p, repair);
	req->mismatches += bitmap_weight(cs->diff, len);
	if (!repair)
		return r;

	for_each_set_bit(m, &differ, nr) {
		sector_t off = first[m];

		if (cs_io(a, m, REQ_OP_WRITE,
			  cs->buf[src].data + (off << SECTOR_SHIFT),
			  p->sector[m] + off, last[m] - off + 1, RL_BG)) {
			rl_member_fail(a, m, "repair write error");
			r = -EIO;
		}
	}
	return r;
}

/* Record [s, s + n) of rebuild target @t lost. Sleeps. */
static int cs_record_lost(struct rl_array *a, unsigned int t, sector_t s,
			  sector_t n)
{
	if (rl_bbl_record(a, t, s, n)) {
		rl_member_fail(a, t, "bad-block list full");
		return -EIO;
	}
	DMERR_LIMIT("%s: member %u: member sectors %llu+%llu lost in rebuild: recorded bad",
		    dm_table_device_name(a->ti->table), t,
		    (unsigned long long)s, (unsigned long long)n);
	return 0;
}

/*
 * A rebuild piece that no member can read: as md's raid1 does, narrow it
 * down (RL_CS_LOST_SECTORS at a time) and record on the target only the
 * parts no member can read, durably before the cursor moves past them
 * (cs_sync_range()); the rebuild goes on, the array stays up, and reads
 * of those sectors fail (EIO) until a write covers them. Without
 * bad-block lists, or with the target's list full, the job stops.
 * Sleeps; the window is open.
 */
static int cs_rebuild_lost(struct rl_array *a, unsigned int t,
			   const struct rl_cs_piece *p)
{
	u8 srep[RL_MAX_MEMBERS];
	struct rl_cs_piece sub;
	sector_t off, n;
	int r;

	if (!a->bbl)
		return -EIO;
	for (off = 0; off < p->len; off += n) {
		n = min_t(sector_t, p->len - off, RL_CS_LOST_SECTORS);
		rl_cs_piece_sub(p, off, n, &sub);
		/* a member with entries elsewhere in the piece may serve */
		r = cs_copy_window(a, cs_unreadable(a, &sub) | BIT(t), BIT(t),
				   &sub, cs_prop_srep(a, &sub, srep),
				   "rebuild");
		if (r == -ENODATA)
			r = cs_record_lost(a, t, sub.sector[t], n);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Extra limit of a window at @s of @len: it must not straddle the cursor
 * of a member being rebuilt, so that every sector of the window has the
 * same readable members (and the same source as the reads there).
 */
static sector_t cs_clip_cursors(struct rl_array *a, sector_t s, sector_t len)
{
	unsigned long rebuilding = READ_ONCE(a->rebuilding);
	unsigned int m;

	for_each_set_bit(m, &rebuilding, a->geom.nr_members) {
		sector_t c = READ_ONCE(a->rebuild_cursor[m]);

		if (c > s && c < s + len)
			len = c - s;
	}
	return len;
}

/*
 * Extra limit of piece @p: no copy of it may straddle the cursor of its
 * member being rebuilt (a copy at another offset than the window's).
 * Returns the new length.
 */
static sector_t cs_clip_piece(struct rl_array *a, struct rl_cs_piece *p)
{
	unsigned long reb = READ_ONCE(a->rebuilding) & p->members;
	unsigned int m;

	for_each_set_bit(m, &reb, a->geom.nr_members) {
		sector_t c = READ_ONCE(a->rebuild_cursor[m]);

		if (c > p->sector[m] && c < p->sector[m] + p->len)
			p->len = c - p->sector[m];
	}
	return p->len;
}

/* One piece of a job's window. Sleeps; the window is open. */
static int cs_sync_piece(struct rl_array *a, struct rl_sync_req *req,
			 const struct rl_cs_piece *p)
{
	unsigned long unreadable = cs_unreadable(a, p), dests;
	u8 srep[RL_MAX_MEMBERS];
	const u8 *sr;
	unsigned int src;
	int r;

	if (req->job == RL_SYNC_REBUILD)
		__set_bit(req->target, &unreadable);
	src = rl_cs_source(unreadable, a->geom.nr_members);
	if (src == RL_NONE) {
		/*
		 * A rebuild that only bad-block entries keep from every
		 * source narrows the piece down: the parts some member holds
		 * are copied, the rest recorded lost on the target.
		 */
		if (req->job == RL_SYNC_REBUILD &&
		    !rl_member_failed(a, req->target) &&
		    rl_cs_source(cs_unavailable(a, p) | BIT(req->target),
				 a->geom.nr_members) != RL_NONE)
			return cs_rebuild_lost(a, req->target, p);
		return -EIO;
	}

	/* from the replica that holds the data where propagations wait */
	sr = cs_prop_srep(a, p, srep);
	switch (req->job) {
	case RL_SYNC_RESYNC:
		/* every copy that has not failed, rebuilt ones included */
		dests = p->members & ~READ_ONCE(a->failed);
		return cs_copy_window(a, unreadable, dests, p, sr, "resync");
	case RL_SYNC_REBUILD:
		if (rl_member_failed(a, req->target))
			return -EIO;
		r = cs_copy_window(a, unreadable, BIT(req->target), p, sr,
				   "rebuild");
		if (r == -ENODATA)
			r = cs_rebuild_lost(a, req->target, p);
		return r;
	case RL_SYNC_CHECK:
	case RL_SYNC_REPAIR:
		return cs_check(a, src, unreadable, p, req,
				req->job == RL_SYNC_REPAIR);
	default:
		return -EINVAL;
	}
}

/*
 * Walk the window [s, s + len): the copies on the members in @members,
 * each piece once (see the top of this file). Sleeps; the window is open.
 */
static int cs_sync_walk(struct rl_array *a, struct rl_sync_req *req,
			unsigned long members, sector_t s, sector_t len)
{
	const struct rl_cs_layout *l = &rl_copyset(a)->layout;
	struct rl_cs_piece p;
	sector_t x, n;
	unsigned int m;
	int r;

	for_each_set_bit(m, &members, a->geom.nr_members) {
		for (x = s; x < s + len; x += n) {
			n = rl_cs_member_piece(l, m, x, s + len - x, &p);
			if (!p.len || (req->job != RL_SYNC_REBUILD &&
				       !rl_cs_piece_owner(&p, m)))
				continue;
			n = cs_clip_piece(a, &p);
			/* a re-added member's piece no write touched */
			if (rl_sync_skip_clean(a, req, p.sector[m], p.len))
				continue;
			r = cs_sync_piece(a, req, &p);
			if (r)
				return r;
		}
	}
	return 0;
}

/*
 * Background work on one window from req->msector (see the contract in
 * struct rl_scheme_ops and the top of this file). Sleeps.
 */
int cs_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_copyset *cs = rl_copyset(a);
	unsigned int nr = a->geom.nr_members;
	sector_t s = req->msector, len, max;
	unsigned long members;
	int r;

	if (s >= a->member_sectors || !req->len)
		return -EINVAL;
	if (req->job == RL_SYNC_REBUILD && req->target >= nr)
		return -EINVAL;
	if (req->job > RL_SYNC_REPAIR)
		return -EINVAL;
	max = req->job == RL_SYNC_CHECK || req->job == RL_SYNC_REPAIR ?
		cs->check_sectors : RL_CS_SLOT_SECTORS;
	len = rl_cs_window_len(s, min(req->len, a->member_sectors - s), max);
	len = cs_clip_cursors(a, s, len);
	req->len = len;

	members = req->job == RL_SYNC_REBUILD ? BIT(req->target) :
						GENMASK(nr - 1, 0);
	cs_window_open(cs, s, len);
	r = cs_sync_walk(a, req, members, s, len);
	cs_window_close(cs);
	/* entries recorded or cleared: durable before the cursor moves */
	if (r == -ENODATA || rl_bbl_persist(a))
		r = -EIO;
	return r;
}

/*
 * Propagate a delayed write (copyset_prop.c): copy the replica @rep names
 * (a copy each; RL_CS_REP_ANY: not that copy's) of logical [lsector,
 * lsector + len) over every other replica of every copy, as a resync of
 * those pieces does, each under its window (the copies of a near
 * layout's chunk share their member sector). Returns 0; -ENODATA if no
 * member could read a piece (it stops there); -EIO if a member failed
 * writing (the others have it: the pieces after go on). Sleeps.
 */
int cs_propagate(struct rl_array *a, sector_t lsector, sector_t len,
		 const u8 *rep)
{
	struct rl_copyset *cs = rl_copyset(a);
	u8 srep[RL_MAX_MEMBERS];
	struct rl_cs_piece p;
	unsigned long none;
	sector_t off, n;
	int r = 0, rp;

	for (off = 0; off < len; off += n) {
		cs_piece(a, lsector + off, len - off, &p);
		cs_window_open(cs, p.sector[__ffs(p.members)], p.len);
		n = cs_clip_piece(a, &p);
		none = cs_srep_fill(a, p.lsector, rep, srep);
		/* every copy that has not failed, rebuilt ones included */
		rp = cs_copy_window(a, cs_unreadable(a, &p) | none,
				    p.members & ~READ_ONCE(a->failed), &p,
				    srep, "propagate");
		cs_window_close(cs);
		if (rl_bbl_persist(a) && !rp)
			rp = -EIO;
		if (rp == -ENODATA)
			return rp;
		r = r ?: rp;
	}
	return r;
}
