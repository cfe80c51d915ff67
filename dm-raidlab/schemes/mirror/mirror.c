// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab mirror: N-way mirroring. Every member holds every sector.
 *
 * Writes are cloned to every member that has not failed (members being
 * rebuilt included, above and below their cursor) and end when all copies
 * have; they succeed if at least one copy landed (members whose copy failed
 * are marked failed). With a metadata device a write first makes its
 * intent region durable (metadata.h). Reads go to one readable member
 * chosen by rl_mirror_read_balance(), or to the resync source where the
 * copies may differ (rl_sync_suspect()). A read that fails is served by
 * fix_work, as md's fix_read_error does: read from another member and
 * written back over the one that failed (then read back and compared),
 * under the window lock; the member fails only past RL_MAX_READ_ERRORS, or
 * if the rewrite fails. With no other member to read, it fails.
 *
 * Background jobs (->sync_range, called by sync.c's worker) work on one
 * window of at most one slot (1 MiB, mirror.h) at a time:
 *
 *   resync   copies the source (the lowest readable member) over every
 *            other member that has not failed, in pieces whose reads
 *            and writes overlap (mirror_copy())
 *   rebuild  copies the source over the member being rebuilt
 *   check    reads the window from every readable member into
 *            buffers allocated at construction and compares each with the
 *            source's; repair then writes the source's data over the
 *            members that differ
 *
 * A member that cannot read a job's window is not failed for it: a copy
 * reads the window from the next member and writes it over that one too;
 * a check rewrites its copy from a member that could read it. Past
 * RL_MAX_READ_ERRORS it fails; a window no member can read stops the job.
 *
 * A window lock keeps the copy and foreground writes apart: while a window
 * is open, writes to its bucket (its slot and the slots that share the
 * bucket's counter) wait on a list and are queued again when it closes;
 * the window opens once the writes already in flight in its bucket have
 * ended. Writes are split at slot (and intent region) boundaries, so each
 * is counted in exactly one bucket. Background I/O goes through the
 * member queues in the background class (groups of member I/Os,
 * svc/mio.h), so the queue policy orders it and foreground I/O goes first
 * (the floor keeps it moving); a read fix serving a user's read is in the
 * foreground class. sync.c's rate limit paces the job on top.
 *
 * The files of schemes/mirror/, each calling only the ones below it:
 *
 *   mirror.c          the scheme: ctr/dtr, map, end_io, its ops
 *   mirror_sync.c     background jobs: resync, rebuild, check, repair
 *   mirror_fix.c      read-error fixes (fix_work)
 *   mirror_io.c       reads, the write fan-out, the window lock, and the
 *                     background copies and reads (svc/mio.h)
 *   mirror_balance.c  read balancing, windows, compare (pure, mirror.h)
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../../engines/copyset.h"
#include "../../svc/bbl.h"
#include "../../svc/layout.h"
#include "../../svc/metadata.h"
#include "mirror_int.h"

/* No rows: any length that fits on every member. */
static int mirror_capacity(struct rl_array *a, sector_t len, char **error)
{
	return rl_size_rows(a, 1, len, error);
}

/*
 * The copy-set layout over all members (engines/copyset.h): every member
 * holds every sector at the same offset, member 0's copy the "data".
 */
static void mirror_layout(struct rl_array *a, struct rl_cs_layout *l)
{
	unsigned int n = a->geom.nr_members;
	char *error;

	WARN_ON_ONCE(rl_cs_init(l, RL_CS_MIRROR, n, n, a->geom.chunk_shift,
				a->geom.data_offset, a->member_sectors,
				&error));
}

static void mirror_locate(struct rl_array *a, sector_t lsector,
			  struct rl_locset *ls)
{
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_cs_layout l;
	unsigned int j;

	mirror_layout(a, &l);
	rl_locset_init(ls, rl_cs_map(&l, lsector, c), 0, 0);
	for (j = 0; j < l.copies; j++)
		rl_locset_add(ls, c[j].member, c[j].sector,
			      j ? RL_PART_COPY : RL_PART_DATA);
}

static enum rl_part mirror_owner(struct rl_array *a, unsigned int member,
				 sector_t msector, sector_t *lsector)
{
	struct rl_cs_layout l;
	int j;

	mirror_layout(a, &l);
	j = rl_cs_unmap(&l, member, msector, lsector);
	if (j < 0)
		return RL_PART_NONE;
	return j ? RL_PART_COPY : RL_PART_DATA;
}

static int mirror_map(struct rl_array *a, struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return mirror_map_read(a, bio) ? DM_MAPIO_SUBMITTED : DM_MAPIO_KILL;
	case REQ_OP_WRITE:
		return mirror_map_write(a, bio);
	case REQ_OP_DISCARD:
		return rl_map_duplicate(a, bio);
	default:
		return DM_MAPIO_KILL;
	}
}

/* What to do with a read that failed on its member. */
enum rl_mirror_read_err {
	RL_MIRROR_RE_FAIL,	/* fail the member, read another (or fail) */
	RL_MIRROR_RE_FIX,	/* read another, rewrite it (fix_work) */
	RL_MIRROR_RE_LAST,	/* no other copy: the read fails, not the member */
};

/*
 * A read that failed on its member is fixed if another member can serve
 * it and the member is still the disk the read went to and under
 * RL_MAX_READ_ERRORS. The last readable copy is not failed for a read
 * error, as md keeps its last working device: the read fails. Any
 * context.
 */
static enum rl_mirror_read_err mirror_read_error(struct rl_array *a,
						 struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);
	/* the size as mapped: the completion may have consumed bi_iter */
	sector_t sectors = pb->rec.iter.bi_size >> SECTOR_SHIFT;
	unsigned long unreadable;
	unsigned int m = pb->member;

	if (bio_op(bio) != REQ_OP_READ || m == RL_NONE || !sectors ||
	    bio->bi_opf & REQ_RAHEAD)
		return RL_MIRROR_RE_FAIL;
	unreadable = mirror_unreadable(a, pb->lsector, sectors) | BIT(m);
	if (rl_mirror_source(unreadable, a->geom.nr_members) == RL_NONE) {
		if (pb->dev != READ_ONCE(a->members[m].dev))
			return RL_MIRROR_RE_FAIL;
		DMERR_LIMIT("%s: member %u (%s): read error at %llu: no other copy, the read fails",
			    dm_table_device_name(a->ti->table), m,
			    pb->dev->name, (unsigned long long)pb->lsector);
		return RL_MIRROR_RE_LAST;
	}
	return rl_member_read_error(a, m, pb->dev, pb->lsector) ?
	       RL_MIRROR_RE_FIX : RL_MIRROR_RE_FAIL;
}

static int mirror_end_io(struct rl_array *a, struct bio *bio,
			 blk_status_t *error)
{
	struct rl_mirror *mi = rl_mirror(a);
	struct rl_bio *pb = rl_pb(bio);
	enum rl_mirror_read_err re = *error ? mirror_read_error(a, bio) :
					      RL_MIRROR_RE_FAIL;
	unsigned long flags;

	if (re == RL_MIRROR_RE_LAST) {
		rl_member_done(a, pb->member, &pb->qe);
		pb->member = RL_NONE;
		return DM_ENDIO_DONE;
	}
	if (re == RL_MIRROR_RE_FIX) {
		/* pb->dev stays: it names the disk that could not read */
		rl_member_done(a, pb->member, &pb->qe);
		rl_restore(bio);
		spin_lock_irqsave(&mi->lock, flags);
		bio_list_add(&mi->fix, bio);
		spin_unlock_irqrestore(&mi->lock, flags);
		queue_work(mi->fix_wq, &mi->fix_work);
		return DM_ENDIO_INCOMPLETE;
	}
	if (!rl_end_remapped(a, bio, *error))
		return DM_ENDIO_DONE;

	/* send it to another member */
	mirror_defer(rl_mirror(a), &rl_mirror(a)->retry, bio);
	return DM_ENDIO_INCOMPLETE;
}

static void mirror_free(struct rl_array *a, struct rl_mirror *mi)
{
	unsigned int m;

	if (mi->fix_wq)
		destroy_workqueue(mi->fix_wq);
	for (m = 0; m < a->geom.nr_members; m++)
		vfree(mi->buf[m].data);
	kfree(mi->copy_rg);
	bioset_exit(&mi->mio_bs);
	bioset_exit(&mi->bs);
	kfree(mi);
}

static int mirror_ctr(struct rl_array *a)
{
	unsigned int nr = a->geom.nr_members, m;
	struct rl_mirror *mi;
	int r;

	mi = kzalloc(struct_size(mi, buf, nr), GFP_KERNEL);
	if (!mi) {
		a->ti->error = "Cannot allocate mirror state";
		return -ENOMEM;
	}
	r = bioset_init(&mi->bs, BIO_POOL_SIZE * nr,
			offsetof(struct rl_mirror_clone, clone),
			BIOSET_NEED_RESCUER);
	if (r) {
		kfree(mi);
		a->ti->error = "Cannot allocate mirror bioset";
		return r;
	}
	/* a window's reads from every member, or its writes to all but one */
	r = rl_mio_bioset_init(&mi->mio_bs, 2 * nr);
	mi->copy_rg = kcalloc(nr, sizeof(*mi->copy_rg), GFP_KERNEL);
	if (r || !mi->copy_rg) {
		r = r ?: -ENOMEM;
		a->ti->error = "Cannot allocate mirror background I/O";
		goto bad;
	}
	mi->fix_wq = alloc_ordered_workqueue("kraidlab_mirror_fix",
					     WQ_MEM_RECLAIM);
	if (!mi->fix_wq) {
		r = -ENOMEM;
		a->ti->error = "Cannot allocate mirror workqueue";
		goto bad;
	}
	/* check windows: the budget shared by the members, at most a slot */
	mi->check_sectors = clamp_t(unsigned int,
				    rounddown_pow_of_two(RL_MIRROR_CHECK_BUDGET /
							 nr >> SECTOR_SHIFT),
				    RL_MIRROR_CHECK_MIN, RL_MIRROR_SLOT_SECTORS);
	for (m = 0; m < nr; m++) {
		mi->buf[m].data = vmalloc((size_t)mi->check_sectors <<
					  SECTOR_SHIFT);
		if (!mi->buf[m].data) {
			r = -ENOMEM;
			a->ti->error = "Cannot allocate mirror check buffers";
			goto bad;
		}
	}
	init_completion(&mi->win_drained);
	spin_lock_init(&mi->lock);
	bio_list_init(&mi->retry);
	bio_list_init(&mi->writes);
	bio_list_init(&mi->ready);
	bio_list_init(&mi->win_waiting);
	bio_list_init(&mi->fix);
	bio_list_init(&mi->bb_cleared);
	mutex_init(&mi->win_mutex);
	INIT_WORK(&mi->retry_work, mirror_retry_work);
	INIT_WORK(&mi->fix_work, mirror_fix_work);
	mi->a = a;
	a->scheme = mi;
	a->ti->num_discard_bios = nr;
	return 0;
bad:
	mirror_free(a, mi);
	return r;
}

static void mirror_dtr(struct rl_array *a)
{
	mirror_free(a, rl_mirror(a));
}

const struct rl_scheme_ops rl_mirror_ops = {
	.name = "mirror",
	.per_bio_size = sizeof(struct rl_mirror_bio),
	.min_members = 2,
	.redundancy = RL_MAX_MEMBERS,	/* any one member holds the data */
	.parity = false,
	.capacity = mirror_capacity,
	.locate = mirror_locate,
	.owner = mirror_owner,
	.ctr = mirror_ctr,
	.dtr = mirror_dtr,
	.map = mirror_map,
	.end_io = mirror_end_io,
	.sync_range = mirror_sync_range,
};
