// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab member I/O bookkeeping: per-member counters, in-flight counts
 * and head positions (read balancing uses them), remapping, and member
 * failure.
 */
#include <linux/bitops.h>

#include "raidlab.h"

unsigned int rl_nr_failed(const struct rl_array *a)
{
	return hweight_long(READ_ONCE(a->failed));
}

/*
 * Mark member @m failed. Safe from any context; the table event that tells
 * userspace is raised from a work item because dm_table_event() sleeps.
 */
void rl_member_fail(struct rl_array *a, unsigned int m, const char *why)
{
	if (test_and_set_bit(m, &a->failed))
		return;
	DMERR("%s: member %u (%s) failed: %s", dm_table_device_name(a->ti->table),
	      m, a->members[m].dev->name, why);
	schedule_work(&a->event_work);
}

/*
 * Whether a member read or write that ended with @status makes the member
 * failed: any error does. A copy or a parity update that did not land,
 * whatever the reason, leaves the member out of step with the rest, and
 * reading it again would return stale data. (Discards and read-ahead are
 * judged by their callers: they never fail a member.)
 */
bool rl_status_fails_member(blk_status_t status)
{
	return status != BLK_STS_OK;
}

/*
 * A member I/O of @kind is being issued to member @m: count it, and count it
 * in flight until rl_member_done(). RL_NR_KINDS: in flight, not counted
 * (discards).
 */
void rl_member_start(struct rl_array *a, unsigned int m, enum rl_io_kind kind)
{
	if (kind < RL_NR_KINDS)
		atomic64_inc(&a->members[m].io[kind]);
	atomic_inc(&a->members[m].inflight);
}

/* A member I/O ended at member sector @end: the head is there now. */
void rl_member_done(struct rl_array *a, unsigned int m, sector_t end)
{
	WRITE_ONCE(a->members[m].head, end);
	atomic_dec(&a->members[m].inflight);
}

/* Let dm send what lies past the end of @bio's chunk as another bio. */
void rl_trim_to_chunk(struct rl_array *a, struct bio *bio)
{
	sector_t chunk = rl_chunk_sectors(&a->geom);
	sector_t left = chunk - (rl_pb(bio)->lsector & (chunk - 1));

	if (bio_sectors(bio) > left)
		dm_accept_partial_bio(bio, left);
}

/*
 * Point a data bio at member @m, sector @msector, and count it. The bio is
 * recorded first so that a failed read can be served again (rl_restore()).
 */
void rl_remap(struct rl_array *a, struct bio *bio, unsigned int m,
	      sector_t msector)
{
	struct rl_bio *pb = rl_pb(bio);

	rl_bio_record(bio, &pb->rec);
	pb->member = m;
	pb->mend = msector + bio_sectors(bio);
	bio_set_dev(bio, a->members[m].dev->bdev);
	bio->bi_iter.bi_sector = msector;
	rl_member_start(a, m, bio_op(bio) == REQ_OP_READ ? RL_DATA_READ :
			      bio_op(bio) == REQ_OP_WRITE ? RL_DATA_WRITE :
			      RL_NR_KINDS);
}

void rl_bio_record(struct bio *bio, struct rl_bio_record *rec)
{
	rec->iter = bio->bi_iter;
	rec->bdev = bio->bi_bdev;
	rec->flags = bio->bi_flags;
}

/*
 * Put a bio that ended back as rl_bio_record() found it, to be served
 * again: its iterator, device and flags, and its remaining count, which a
 * lower device that split and chained it has used up (what
 * dm_bio_restore() does for dm-raid1). Without that, a retry that is split
 * again would end the bio when all but one of its pieces had.
 */
void rl_bio_restore(struct bio *bio, const struct rl_bio_record *rec)
{
	bio->bi_iter = rec->iter;
	bio->bi_bdev = rec->bdev;
	bio->bi_flags = rec->flags;
	atomic_set(&bio->__bi_remaining, 1);
	bio->bi_status = BLK_STS_OK;
}

/* A remapped bio that failed, as rl_remap() found it, to be served again. */
void rl_restore(struct bio *bio)
{
	struct rl_bio *pb = rl_pb(bio);

	rl_bio_restore(bio, &pb->rec);
	pb->member = RL_NONE;
}

/*
 * A bio that dm sent once per member (ti->num_flush_bios, and a mirror's
 * num_discard_bios): bio number i goes to member i, at the same offset. A
 * failed member has nothing left to flush or discard.
 */
int rl_map_duplicate(struct rl_array *a, struct bio *bio)
{
	unsigned int m = dm_bio_get_target_bio_nr(bio);

	rl_pb(bio)->member = RL_NONE;
	if (m >= a->geom.nr_members || rl_member_failed(a, m)) {
		bio_endio(bio);
		return DM_MAPIO_SUBMITTED;
	}
	bio_set_dev(bio, a->members[m].dev->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = a->geom.data_offset + rl_pb(bio)->lsector;
	return DM_MAPIO_REMAPPED;
}

/*
 * The end of a bio remapped to a member: account it, and if it is a read
 * that failed while the data survives elsewhere, fail the member and put
 * the bio back as it arrived. Returns true if the caller must serve the bio
 * again (and return DM_ENDIO_INCOMPLETE).
 */
bool rl_end_remapped(struct rl_array *a, struct bio *bio, blk_status_t error)
{
	struct rl_bio *pb = rl_pb(bio);

	if (pb->member == RL_NONE)
		return false;
	rl_member_done(a, pb->member, pb->mend);
	if (!rl_status_fails_member(error) || bio_op(bio) == REQ_OP_DISCARD ||
	    bio->bi_opf & REQ_RAHEAD)
		return false;

	rl_member_fail(a, pb->member,
		       op_is_write(bio_op(bio)) ? "write error" : "read error");
	if (bio_op(bio) != REQ_OP_READ || rl_nr_failed(a) > a->redundancy)
		return false;
	rl_restore(bio);
	return true;
}
