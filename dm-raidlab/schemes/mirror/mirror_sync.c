// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab mirror: background jobs (->sync_range, called by sync.c's
 * worker): resync, rebuild, check and repair, a window at a time, and the
 * bad-block records of what no member could read.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../../svc/bbl.h"
#include "../../svc/metadata.h"
#include "mirror_int.h"

/*
 * Check or repair read [s, s + len) of every member not in @unreadable;
 * those in @rerr could not. Rewrite their copies from the first member
 * that could (a check too, as md's raid1 does: a bad sector is fixed
 * where it is found). Returns that member (the check's source from now
 * on), or RL_NONE if none could read it. Sleeps; the window is open.
 */
static unsigned int mirror_check_fix(struct rl_array *a,
				     unsigned long unreadable,
				     unsigned long rerr, sector_t s,
				     sector_t len, const char *job)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned int src = rl_mirror_source(unreadable | rerr,
					    a->geom.nr_members);
	unsigned int m;

	if (src == RL_NONE)
		return RL_NONE;
	for_each_set_bit(m, &rerr, a->geom.nr_members) {
		if (!mirror_bg_read_error(a, m, s, job))
			continue;
		if (mirror_io(a, m, REQ_OP_WRITE, mi->buf[src].data, s, len,
			      RL_BG))
			rl_member_fail(a, m, "read error, rewrite failed");
	}
	return src;
}

/*
 * Check (and with @repair, repair) [s, s + len): read it from every member
 * not in @unreadable, compare each copy with @src's, count the sectors
 * where any differs in req->mismatches, and for repair write @src's copy
 * over each differing member, from its first to its last differing
 * sector. Sleeps.
 */
static int mirror_check(struct rl_array *a, unsigned int src,
			unsigned long unreadable, sector_t s, sector_t len,
			struct rl_sync_req *req, bool repair)
{
	struct rl_mirror *mi = rl_mirror(a);
	const char *job = repair ? "repair" : "check";
	unsigned int m, nr = a->geom.nr_members;
	unsigned int first[RL_MAX_MEMBERS], last[RL_MAX_MEMBERS];
	unsigned long differ = 0, rerr;
	int r = 0;

	rerr = mirror_read_all(a, GENMASK(nr - 1, 0) & ~unreadable, s, len);
	if (rerr) {
		src = mirror_check_fix(a, unreadable, rerr, s, len, job);
		if (src == RL_NONE)
			return mirror_bg_no_source(a, rerr, s, job);
		unreadable |= rerr;	/* rewritten: equal to src's */
	}

	bitmap_zero(mi->diff, len);
	for (m = 0; m < nr; m++) {
		if (m == src || test_bit(m, &unreadable))
			continue;
		if (rl_mirror_diff(mi->buf[src].data, mi->buf[m].data, len,
				   mi->diff, &first[m], &last[m]))
			__set_bit(m, &differ);
	}
	req->mismatches += bitmap_weight(mi->diff, len);
	if (!repair)
		return 0;

	for_each_set_bit(m, &differ, nr) {
		sector_t off = first[m];

		if (mirror_io(a, m, REQ_OP_WRITE,
			      mi->buf[src].data + (off << SECTOR_SHIFT),
			      s + off, last[m] - off + 1, RL_BG)) {
			rl_member_fail(a, m, "repair write error");
			r = -EIO;
		}
	}
	return r;
}

/* Record [s, s + n) of rebuild target @t lost. Sleeps. */
static int mirror_record_lost(struct rl_array *a, unsigned int t, sector_t s,
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
 * A rebuild window that no member can read: as md's raid1 does, narrow it
 * down (RL_MIRROR_LOST_SECTORS at a time) and record on the target only
 * the pieces no member can read, durably before the cursor moves past
 * them (mirror_sync_range()); the rebuild goes on, the array stays up, and
 * reads of those sectors fail (EIO) until a write covers them. Without
 * bad-block lists, or with the target's list full, the job stops. Sleeps;
 * the window is open.
 */
static int mirror_rebuild_lost(struct rl_array *a, unsigned int t, sector_t s,
			       sector_t len)
{
	sector_t off, n;
	int r;

	if (!a->bbl)
		return -EIO;
	for (off = 0; off < len; off += n) {
		n = min_t(sector_t, len - off, RL_MIRROR_LOST_SECTORS);
		/* a member with entries elsewhere in the window may serve */
		r = mirror_copy_window(a, mirror_unreadable(a, s + off, n) |
				       BIT(t), BIT(t), s + off, n, "rebuild");
		if (r == -ENODATA)
			r = mirror_record_lost(a, t, s + off, n);
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
static sector_t mirror_clip_cursors(struct rl_array *a, sector_t s,
				    sector_t len)
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
 * Background work on one window from req->msector (see the contract in
 * struct rl_scheme_ops and the top of this file). Sleeps.
 */
int mirror_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	struct rl_mirror *mi = rl_mirror(a);
	unsigned int nr = a->geom.nr_members, src;
	sector_t s = req->msector, len, max;
	unsigned long unreadable, dests;
	int r;

	if (s >= a->member_sectors || !req->len)
		return -EINVAL;
	if (req->job == RL_SYNC_REBUILD && req->target >= nr)
		return -EINVAL;
	max = req->job == RL_SYNC_CHECK || req->job == RL_SYNC_REPAIR ?
		mi->check_sectors : RL_MIRROR_SLOT_SECTORS;
	len = rl_mirror_window_len(s, min(req->len, a->member_sectors - s),
				   max);
	len = mirror_clip_cursors(a, s, len);
	req->len = len;

	unreadable = mirror_unreadable(a, s, len);
	if (req->job == RL_SYNC_REBUILD)
		__set_bit(req->target, &unreadable);
	src = rl_mirror_source(unreadable, nr);
	if (src == RL_NONE)
		return -EIO;

	mirror_window_open(mi, s, len);
	switch (req->job) {
	case RL_SYNC_RESYNC:
		/* every member that has not failed, rebuilt ones included */
		dests = ~READ_ONCE(a->failed) & GENMASK(nr - 1, 0);
		r = mirror_copy_window(a, unreadable, dests, s, len, "resync");
		break;
	case RL_SYNC_REBUILD:
		r = rl_member_failed(a, req->target) ? -EIO :
			mirror_copy_window(a, unreadable, BIT(req->target), s,
					   len, "rebuild");
		if (r == -ENODATA)
			r = mirror_rebuild_lost(a, req->target, s, len);
		break;
	case RL_SYNC_CHECK:
	case RL_SYNC_REPAIR:
		r = mirror_check(a, src, unreadable, s, len, req,
				 req->job == RL_SYNC_REPAIR);
		break;
	default:
		r = -EINVAL;
		break;
	}
	mirror_window_close(mi);
	/* entries recorded or cleared: durable before the cursor moves */
	if (r == -ENODATA || rl_bbl_persist(a))
		r = -EIO;
	return r;
}
