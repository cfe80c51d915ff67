// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set engine: the I/O of the schemes that keep whole
 * copies of each chunk (the mirror; RAID-10 and chained declustering
 * next), over a copy-set layout (copyset.h, copyset_layout.c).
 *
 * Writes are cut into pieces, one chunk, one slot and one intent region
 * at most, and each piece is cloned to every copy whose member has not
 * failed (members being rebuilt included, above and below their cursor);
 * it ends when all copies have, and succeeds if at least one landed
 * (members whose copy failed are marked failed). With a metadata device a
 * write first makes the intent regions of its copies durable
 * (metadata.h). Reads go to one readable copy chosen by
 * rl_cs_read_balance(), or to the resync source where the copies may
 * differ (rl_sync_suspect()). A read that fails is served by fix_work, as
 * md's fix_read_error does: read from another copy and written back over
 * the one that failed (then read back and compared), under the window
 * lock; the member fails only past RL_MAX_READ_ERRORS, or if the rewrite
 * fails. With no other copy to read, it fails.
 *
 * Background jobs (->sync_range, called by sync.c's worker) work on one
 * window of member sectors of at most one slot (1 MiB) at a time:
 *
 *   resync   copies each piece's source (the lowest member with a
 *            readable copy) over its other copies, in parts whose reads
 *            and writes overlap (cs_copy())
 *   rebuild  copies the source over the member being rebuilt
 *   check    reads each piece from every readable copy into buffers
 *            allocated at construction and compares each with the
 *            source's; repair then writes the source's data over the
 *            copies that differ
 *
 * A member that cannot read a job's piece is not failed for it: a copy
 * reads the piece from the next member and writes it over that one too;
 * a check rewrites its copy from a member that could read it. Past
 * RL_MAX_READ_ERRORS it fails; a piece no member can read stops the job.
 *
 * A window lock keeps the copy and foreground writes apart: while a window
 * is open, writes with a copy in its bucket (its slot and the slots that
 * share the bucket's counter) wait on a list and are queued again when it
 * closes; the window opens once the writes already in flight in its
 * bucket have ended. Writes are split at slot (and intent region)
 * boundaries, so each copy is counted in exactly one bucket. Background
 * I/O goes through the member queues in the background class (groups of
 * member I/Os, svc/mio.h), so the queue policy orders it and foreground
 * I/O goes first (the floor keeps it moving); a read fix serving a user's
 * read is in the foreground class. sync.c's rate limit paces the job on
 * top.
 *
 * The engine's files, each calling only the ones below it:
 *
 *   copyset.c          the entry points: create, destroy, map, end_io
 *   copyset_prop.c     delayed propagation of rotational replicas (sr's
 *                      propagate bg), as the array's background items,
 *                      and the replay of its records at construction
 *   copyset_sync.c     background jobs: resync, rebuild, check, repair,
 *                      their copies (svc/mio.h), and a propagation's
 *   copyset_fix.c      read-error fixes (fix_work)
 *   copyset_io.c       reads, the write fan-out, the window lock, and
 *                      background I/O (svc/mio.h)
 *   copyset_pwait.c    the writes and reads' side of delayed propagation
 *   copyset_prec.c     its records on a DAX metadata device (encoding and
 *                      replay order pure)
 *   copyset_rep.c      rotational replicas' places (sr)
 *   copyset_read.c     the read choice, and reads dup
 *   copyset_balance.c  read balancing, windows, compare (pure)
 *   copyset_ptab.c     the propagation table (pure)
 *   copyset_layout.c   the layouts and their pieces (pure)
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "../svc/layout.h"
#include "../svc/metadata.h"
#include "copyset_int.h"

/* What to do with a read that failed on its member. */
enum rl_cs_read_err {
	RL_CS_RE_FAIL,	/* fail the member, read another (or fail) */
	RL_CS_RE_FIX,	/* read another, rewrite it (fix_work) */
	RL_CS_RE_LAST,	/* no other copy: the read fails, not the member */
};

/*
 * A read that failed on its member is fixed if another copy can serve
 * it (or, with rotational replicas, another replica of the same copy)
 * and the member is still the disk the read went to and under
 * RL_MAX_READ_ERRORS. The last readable copy is not failed for a read
 * error, as md keeps its last working device: the read fails. Any
 * context.
 */
static enum rl_cs_read_err cs_read_error(struct rl_array *a, struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);
	/* the size as mapped: the completion may have consumed bi_iter */
	sector_t sectors = pb->rec.iter.bi_size >> SECTOR_SHIFT;
	struct rl_cs_piece p;
	unsigned long unreadable;
	unsigned int m = pb->member;

	if (bio_op(bio) != REQ_OP_READ || m == RL_NONE || !sectors ||
	    bio->bi_opf & REQ_RAHEAD)
		return RL_CS_RE_FAIL;
	cs_piece(a, pb->lsector, sectors, &p);
	unreadable = cs_unreadable(a, &p) | BIT(m);
	if (rl_cs_source(unreadable, a->geom.nr_members) == RL_NONE) {
		if (pb->dev != READ_ONCE(a->members[m].dev))
			return RL_CS_RE_FAIL;
		/* another replica of its own copy may serve it (sr) */
		if (rl_copyset(a)->dr > 1 &&
		    rl_member_read_error(a, m, pb->dev, p.sector[m]))
			return RL_CS_RE_FIX;
		DMERR_LIMIT("%s: member %u (%s): read error at %llu: no other copy, the read fails",
			    dm_table_device_name(a->ti->table), m,
			    pb->dev->name, (unsigned long long)p.sector[m]);
		return RL_CS_RE_LAST;
	}
	return rl_member_read_error(a, m, pb->dev, p.sector[m]) ?
	       RL_CS_RE_FIX : RL_CS_RE_FAIL;
}

/**
 * rl_copyset_end_io() - a member's completion of a read the engine mapped
 * @a: the array
 * @bio: the read or write
 * @error: its status
 *
 * The scheme's ->end_io. A read that failed is fixed (fix_work) or sent
 * to another copy; see the top of this file.
 *
 * Return: a DM_ENDIO_* value.
 */
int rl_copyset_end_io(struct rl_array *a, struct bio *bio, blk_status_t *error)
{
	struct rl_copyset *cs = rl_copyset(a);
	struct rl_bio *pb = rl_pb(bio);
	enum rl_cs_read_err re = *error ? cs_read_error(a, bio) :
					  RL_CS_RE_FAIL;
	unsigned long flags;

	if (re == RL_CS_RE_LAST) {
		rl_member_done(a, pb->member, &pb->qe);
		pb->member = RL_NONE;
		return DM_ENDIO_DONE;
	}
	if (re == RL_CS_RE_FIX) {
		/* pb->dev stays: it names the disk that could not read */
		rl_member_done(a, pb->member, &pb->qe);
		rl_restore(bio);
		spin_lock_irqsave(&cs->lock, flags);
		bio_list_add(&cs->fix, bio);
		spin_unlock_irqrestore(&cs->lock, flags);
		queue_work(cs->fix_wq, &cs->fix_work);
		return DM_ENDIO_INCOMPLETE;
	}
	if (!*error && bio_op(bio) == REQ_OP_READ)
		cs_rep_read_done(a, bio);
	if (!rl_end_remapped(a, bio, *error))
		return DM_ENDIO_DONE;

	/* send it to another copy */
	cs_defer(cs, &cs->retry, bio);
	return DM_ENDIO_INCOMPLETE;
}

/*
 * Member sectors (after data_offset) a copy-set layout needs for @chunks
 * logical chunks over @nr members: whole chunks of each member, in the
 * layout's own sizing (rl_cs_init()), the smallest that hold them.
 */
static sector_t cs_member_chunks(enum rl_cs_kind kind, unsigned int nr,
				 unsigned int copies, u64 chunks)
{
	switch (kind) {
	case RL_CS_NEAR:
		return DIV_ROUND_UP_ULL(chunks * copies, nr);
	case RL_CS_CHAINED:
		return 2 * DIV_ROUND_UP_ULL(chunks, nr);
	default:	/* far and offset: a band of each member a copy */
		return copies * DIV_ROUND_UP_ULL(chunks, nr);
	}
}

/**
 * rl_copyset_capacity() - a copy-set scheme's ->capacity
 * @a: the array; a->member_sectors the smallest member's usable sectors
 * @kind: its layout (not mirror: a mirror sizes itself as rl_size_rows())
 * @copies: of each chunk
 * @len: the target length, whole chunks
 * @error: set to a message for ti->error on failure
 *
 * The layout is sized from @len alone, not from the members: each member
 * uses the fewest whole chunks that hold @len (rl_copyset_layout() builds
 * it again from a->member_sectors), so a larger spare or member never
 * moves a far copy.
 *
 * Return: 0 with a->member_sectors set to what the layout uses, or
 * -EINVAL.
 */
int rl_copyset_capacity(struct rl_array *a, enum rl_cs_kind kind,
			unsigned int copies, sector_t len, char **error)
{
	unsigned int shift = a->geom.chunk_shift;
	struct rl_cs_layout l;
	sector_t need;
	int r;

	if (!len) {
		*error = "Zero target length";
		return -EINVAL;
	}
	/* the members and copies first: a layout at all */
	r = rl_cs_init(&l, kind, a->geom.nr_members, copies, shift, 0,
		       a->member_sectors, error);
	if (r)
		return r;
	if (len & ((1ULL << shift) - 1)) {
		*error = "Target length is not a multiple of the chunk size";
		return -EINVAL;
	}
	need = cs_member_chunks(kind, a->geom.nr_members, copies,
				len >> shift) << shift;
	if (need > a->member_sectors) {
		*error = "Target length exceeds the members' capacity";
		return -EINVAL;
	}
	/* whole chunks the layout itself uses: rl_cs_init() over @need keeps it */
	a->geom.nr_data = 1;
	a->member_sectors = need;
	return 0;
}

/**
 * rl_copyset_layout() - the layout over an array's members
 * @a: the array, sized by its ->capacity
 * @kind: the layout
 * @copies: of each chunk
 * @l: filled, over member sectors after data_offset (base 0)
 */
void rl_copyset_layout(const struct rl_array *a, enum rl_cs_kind kind,
		       unsigned int copies, struct rl_cs_layout *l)
{
	char *error;

	WARN_ON_ONCE(rl_cs_init(l, kind, a->geom.nr_members, copies,
				a->geom.chunk_shift, 0, a->member_sectors,
				&error));
}

/**
 * rl_copyset_locate() - a copy-set scheme's ->locate
 * @a: the array
 * @l: its layout (rl_copyset_layout())
 * @lsector: the logical sector
 * @ls: filled: the first copy as the data, the others as copies
 */
void rl_copyset_locate(struct rl_array *a, const struct rl_cs_layout *l,
		       sector_t lsector, struct rl_locset *ls)
{
	struct rl_cs_copy c[RL_MAX_LOCS];
	unsigned int j;

	rl_locset_init(ls, rl_cs_map(l, lsector, c), 0, 0);
	for (j = 0; j < l->copies; j++)
		rl_locset_add(ls, c[j].member, a->geom.data_offset + c[j].sector,
			      j ? RL_PART_COPY : RL_PART_DATA);
}

/**
 * rl_copyset_owner() - a copy-set scheme's ->owner
 * @a: the array
 * @l: its layout (rl_copyset_layout())
 * @member: the member
 * @msector: its sector, data_offset included
 * @lsector: set to the logical sector it holds, if it holds one
 *
 * Return: RL_PART_DATA for a first copy, RL_PART_COPY for another, or
 * RL_PART_NONE where the layout puts nothing.
 */
enum rl_part rl_copyset_owner(struct rl_array *a, const struct rl_cs_layout *l,
			      unsigned int member, sector_t msector,
			      sector_t *lsector)
{
	int j = rl_cs_unmap(l, member, msector - a->geom.data_offset, lsector);

	if (j < 0)
		return RL_PART_NONE;
	return j ? RL_PART_COPY : RL_PART_DATA;
}

/**
 * rl_copyset_map() - map a read, a write or a discard
 * @a: the array
 * @bio: its rl_pb(bio)->lsector set
 *
 * A read is cut to one chunk and goes to one copy; a write is cut to one
 * piece (cs_map_write()) and goes to every copy, and so is a discard (it
 * clears no bad-block entry). Other operations are the scheme's. Process
 * context.
 *
 * Return: a DM_MAPIO_* value.
 */
int rl_copyset_map(struct rl_array *a, struct bio *bio)
{
	switch (bio_op(bio)) {
	case REQ_OP_READ:
		return cs_map_read(a, bio);
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
		return cs_map_write(a, bio);
	default:
		return DM_MAPIO_KILL;
	}
}

/**
 * rl_copyset_sync_range() - the scheme's ->sync_range
 * @a: the array
 * @req: the job and its window (member sectors)
 *
 * See struct rl_scheme_ops and copyset_sync.c. Sleeps.
 *
 * Return: 0 or a negative errno.
 */
int rl_copyset_sync_range(struct rl_array *a, struct rl_sync_req *req)
{
	return cs_sync_range(a, req);
}

/**
 * rl_copyset_survives() - the scheme's ->survives
 * @a: the array
 * @failed: failed members, a bit each
 *
 * Return: true while every chunk keeps a copy on a member not in @failed.
 */
bool rl_copyset_survives(struct rl_array *a, unsigned long failed)
{
	struct rl_copyset *cs = rl_copyset(a);

	return rl_cs_survives(cs->sets, cs->nr_sets, failed);
}

static void cs_free(struct rl_array *a, struct rl_copyset *cs)
{
	unsigned int m;

	cs_dup_exit(cs);
	if (cs->fix_wq)
		destroy_workqueue(cs->fix_wq);
	for (m = 0; m < a->geom.nr_members + !!cs->dr; m++)
		vfree(cs->buf[m].data);
	kfree(cs->copy_rg);
	bioset_exit(&cs->mio_bs);
	bioset_exit(&cs->bs);
	kfree(cs);
}

/*
 * The background buffers: a check window a member, a slot over all; with
 * replicas one more, for the replica a check compares or a read fix
 * reads from the same member.
 */
static int cs_alloc_bufs(struct rl_array *a, struct rl_copyset *cs)
{
	unsigned int nr = a->geom.nr_members + !!cs->dr, m;

	cs->check_sectors = clamp_t(unsigned int,
				    rounddown_pow_of_two(RL_CS_CHECK_BUDGET /
							 nr >> SECTOR_SHIFT),
				    RL_CS_CHECK_MIN, RL_CS_SLOT_SECTORS);
	for (m = 0; m < nr; m++) {
		cs->buf[m].data = vmalloc((size_t)cs->check_sectors <<
					  SECTOR_SHIFT);
		if (!cs->buf[m].data)
			return -ENOMEM;
	}
	return 0;
}

static void cs_init_state(struct rl_array *a, struct rl_copyset *cs,
			  const struct rl_cs_layout *l)
{
	init_completion(&cs->win_drained);
	spin_lock_init(&cs->lock);
	bio_list_init(&cs->retry);
	bio_list_init(&cs->writes);
	bio_list_init(&cs->ready);
	bio_list_init(&cs->win_waiting);
	bio_list_init(&cs->fix);
	bio_list_init(&cs->bb_cleared);
	mutex_init(&cs->win_mutex);
	INIT_WORK(&cs->retry_work, cs_retry_work);
	INIT_WORK(&cs->fix_work, cs_fix_work);
	cs->a = a;
	cs->layout = *l;
	cs->nr_sets = rl_cs_sets(l, cs->sets);
}

/* Write the layout record (with @words) into @area. May sleep. */
static int cs_layout_write(struct rl_array *a, const struct rl_md_area *area,
			   const struct rl_cs_layout *l, const char *words,
			   void *block)
{
	int r;

	rl_cs_layout_encode(l, words, block);
	r = rl_md_area_write(a->md, area, 0, block, RL_MD_BLOCK) ?:
	    rl_md_persist(a->md);
	if (r)
		a->ti->error = "Cannot write the copy layout record";
	return r;
}

/* The table's layout is not the recorded one: say both, and refuse it. */
static int cs_layout_other(struct rl_array *a, const struct rl_cs_layout *l,
			   const struct rl_cs_layout *found)
{
	/* the table's own values are on its line */
	DMERR("%s: the metadata holds layout %s, %u copies over %u members of %llu sectors",
	      dm_table_device_name(a->ti->table), rl_cs_kind_name(found->kind),
	      found->copies, found->nr, (unsigned long long)found->used);
	if (found->place != l->place)
		DMERR("%s: the metadata holds replica placement %x, the line gives %x",
		      dm_table_device_name(a->ti->table), found->place,
		      l->place);
	a->ti->error = "The metadata holds another copy layout";
	return -EINVAL;
}

/*
 * With a metadata device, the layout the array was made with (copyset.h):
 * recorded at the first load, compared at every other; the scheme's
 * @words (or NULL) are recorded with it, again when they differ. A mirror
 * records none. Sets a->ti->error on failure. May sleep.
 */
static int cs_layout_record(struct rl_array *a, const struct rl_cs_layout *l,
			    const char *words)
{
	struct rl_cs_layout found;
	struct rl_md_area area;
	void *block;
	int r;

	if (!a->md || l->kind == RL_CS_MIRROR)
		return 0;
	r = rl_md_area_find(a->md, RL_CS_AREA_ID, 1, &area);
	if (r) {
		a->ti->error = r == -ENOSPC ?
			"No room for the copy layout on the metadata device" :
			"Cannot make the copy layout record";
		return r;
	}
	block = kmalloc(RL_MD_BLOCK, GFP_KERNEL);
	if (!block) {
		a->ti->error = "Cannot allocate the copy layout record";
		return -ENOMEM;
	}
	r = rl_md_area_read(a->md, &area, 0, block, RL_MD_BLOCK);
	if (!r)
		r = rl_cs_layout_decode(block, &found);
	if (r == -ENODATA)
		r = cs_layout_write(a, &area, l, words, block);
	else if (r)
		a->ti->error = r == -EINVAL ? "Damaged copy layout record" :
					      "Cannot read the copy layout record";
	else if (!rl_cs_layout_same(l, &found))
		r = cs_layout_other(a, l, &found);
	else if (!rl_cs_layout_words_same(block, words))
		r = cs_layout_write(a, &area, l, words, block);
	kfree(block);
	return r;
}

/**
 * rl_copyset_create() - the engine over all of an array's members
 * @a: the array, its geometry and member_sectors set
 * @l: the layout, over member sectors after data_offset (base 0)
 * @reads: how reads whose copies are alike are served (the scheme's
 *	"reads" option; a mirror's are balanced)
 * @rr: the rotational replicas on each member (sr), or NULL for one
 *	copy a member at its column sector (copyset_rep.c); copied
 * @words: the scheme's own table words for the layout record (copyset.h),
 *	or NULL; at most RL_CS_WORDS_MAX - 1 bytes
 *
 * Sets a->scheme to the instance. Sets a->ti->error on failure.
 *
 * Return: 0 or a negative errno.
 */
int rl_copyset_create(struct rl_array *a, const struct rl_cs_layout *l,
		      enum rl_cs_reads reads, const struct rl_rrep *rr,
		      const char *words)
{
	unsigned int nr = a->geom.nr_members;
	struct rl_cs_layout lr = *l;
	struct rl_copyset *cs;
	int r;

	/* a write's copies must each lie in one slot and one region */
	if (WARN_ON_ONCE(l->base || l->nr != nr)) {
		a->ti->error = "Copy-set layout not over the array's members";
		return -EINVAL;
	}
	if (words && strlen(words) >= RL_CS_WORDS_MAX) {
		a->ti->error = "Scheme words too long for the copy layout record";
		return -EINVAL;
	}
	if (rr)
		lr.place = rl_rrep_digest(rr);
	l = &lr;
	r = cs_layout_record(a, l, words);
	if (r)
		return r;
	cs = kzalloc(struct_size(cs, buf, nr + !!rr), GFP_KERNEL);
	if (!cs) {
		a->ti->error = "Cannot allocate copy-set state";
		return -ENOMEM;
	}
	if (rr) {
		cs->rr = *rr;
		cs->dr = rr->dr;
	}
	r = bioset_init(&cs->bs, BIO_POOL_SIZE * nr,
			offsetof(struct rl_cs_clone, clone),
			BIOSET_NEED_RESCUER);
	if (r) {
		kfree(cs);
		a->ti->error = "Cannot allocate copy-set bioset";
		return r;
	}
	/* a window's reads from every member, or its writes to all but one */
	r = rl_mio_bioset_init(&cs->mio_bs, 2 * nr * cs_rep_count(cs));
	cs->copy_rg = kcalloc(nr, sizeof(*cs->copy_rg), GFP_KERNEL);
	if (r || !cs->copy_rg) {
		r = r ?: -ENOMEM;
		a->ti->error = "Cannot allocate copy-set background I/O";
		goto bad;
	}
	cs->fix_wq = alloc_ordered_workqueue("kraidlab_copy_fix",
					     WQ_MEM_RECLAIM);
	if (!cs->fix_wq) {
		r = -ENOMEM;
		a->ti->error = "Cannot allocate copy-set workqueue";
		goto bad;
	}
	r = cs_alloc_bufs(a, cs);
	if (r) {
		a->ti->error = "Cannot allocate copy-set check buffers";
		goto bad;
	}
	r = cs_dup_init(cs, reads);
	if (r) {
		a->ti->error = "Cannot allocate copy-set read groups";
		goto bad;
	}
	cs_init_state(a, cs, l);
	a->scheme = cs;
	return 0;
bad:
	cs_free(a, cs);
	return r;
}

/* Free the instance (the array is suspended: no I/O is in flight). */
void rl_copyset_destroy(struct rl_array *a)
{
	cs_prop_free(a);
	cs_free(a, rl_copyset(a));
}
