// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab member-I/O groups (mio.h): a scheme's own member I/O through
 * the member queues (rl_queue_add()), a bio from the scheme's bioset with
 * its queue entry in front, in a group the caller waits for, failures
 * collected per member.
 */
#include <linux/highmem.h>
#include <linux/vmalloc.h>

#include "mio.h"

static void rl_mio_endio(struct bio *bio)
{
	struct rl_mio *io = container_of(bio, struct rl_mio, bio);
	struct rl_mio_group *g = io->g;

	/*
	 * An error from a disk that has been replaced meanwhile (a spare took
	 * the role) fails the operation, not the member's new disk.
	 */
	if (bio->bi_status) {
		if (io->dev == READ_ONCE(g->a->members[io->member].dev)) {
			g->fdev[io->member] = io->dev;
			set_bit(io->member, &g->failed);
		} else {
			set_bit(io->member, &g->stale);
		}
	}
	if (io->qe.issue_ns != U64_MAX)
		atomic64_add(ktime_get_ns() - io->qe.issue_ns, &g->busy_ns);
	rl_member_done(g->a, io->member, &io->qe);
	bio_put(bio);
	if (atomic_dec_and_test(&g->pending))
		complete(&g->done);
}

static void rl_mio_submit(struct rl_qent *qe)
{
	struct rl_mio *io = container_of(qe, struct rl_mio, qe);

	rl_member_submit(io->g->a, io->member, &io->bio);
}

/* A bioset for the member I/Os of rl_mio(): @pool bios in reserve. */
int rl_mio_bioset_init(struct bio_set *bs, unsigned int pool)
{
	return bioset_init(bs, pool, offsetof(struct rl_mio, bio),
			   BIOSET_NEED_BVECS);
}

/* Start group @g of member I/Os of array @a, bios from @bs. */
void rl_mio_init(struct rl_mio_group *g, struct rl_array *a,
		 struct bio_set *bs)
{
	g->a = a;
	g->bs = bs;
	atomic_set(&g->pending, 1);
	init_completion(&g->done);
	g->failed = 0;
	g->stale = 0;
	atomic64_set(&g->busy_ns, 0);
}

static struct page *rl_mio_page(void *addr)
{
	return is_vmalloc_addr(addr) ? vmalloc_to_page(addr) : virt_to_page(addr);
}

/*
 * Queue member I/O of @sectors at member sector @msector (relative to
 * data_offset) from or into @buf (vmalloc or lowmem, sector aligned), in
 * bios of BIO_MAX_VECS pages at most, as part of group @g. A member that
 * is gone counts as failed at once.
 */
void rl_mio(struct rl_mio_group *g, unsigned int m, blk_opf_t opf,
	    sector_t msector, void *buf, unsigned int sectors,
	    enum rl_class class, enum rl_io_kind kind)
{
	struct rl_array *a = g->a;
	struct dm_dev *dev = READ_ONCE(a->members[m].dev);
	size_t left = (size_t)sectors << SECTOR_SHIFT;
	sector_t sector = a->geom.data_offset + msector;
	bool write = op_is_write(opf);

	if (!dev || rl_member_failed(a, m)) {
		g->fdev[m] = dev;
		set_bit(m, &g->failed);
		return;
	}
	if (write && is_vmalloc_addr(buf))
		flush_kernel_vmap_range(buf, left);
	while (left) {
		unsigned int nr = min_t(size_t, BIO_MAX_VECS,
					DIV_ROUND_UP(offset_in_page(buf) + left,
						     PAGE_SIZE));
		struct rl_mio *io;
		struct bio *bio;
		unsigned int done = 0;

		bio = bio_alloc_bioset(dev->bdev, nr, opf, GFP_NOIO, g->bs);
		io = container_of(bio, struct rl_mio, bio);
		io->dev = dev;
		io->g = g;
		io->member = m;
		bio->bi_iter.bi_sector = sector;
		bio->bi_end_io = rl_mio_endio;
		while (left && bio->bi_vcnt < nr) {
			unsigned int n = min_t(size_t, left,
					       PAGE_SIZE - offset_in_page(buf));

			__bio_add_page(bio, rl_mio_page(buf), n,
				       offset_in_page(buf));
			buf += n;
			left -= n;
			done += n;
		}
		sector += done >> SECTOR_SHIFT;
		rl_qent_init(&io->qe, bio->bi_iter.bi_sector, done >> SECTOR_SHIFT,
			     write, class, rl_mio_submit);
		rl_member_start(a, m, kind);
		atomic_inc(&g->pending);
		rl_queue_add(a, m, &io->qe);
	}
}

/* Wait for the group; returns the members whose I/O failed. */
unsigned long rl_mio_wait(struct rl_mio_group *g)
{
	if (!atomic_dec_and_test(&g->pending))
		wait_for_completion_io(&g->done);
	return g->failed | g->stale;
}

/* Read buffers that vmalloc addresses may alias (no-op on x86). */
void rl_mio_read_done(void *buf, unsigned int sectors)
{
	if (is_vmalloc_addr(buf))
		invalidate_kernel_vmap_range(buf, sectors << SECTOR_SHIFT);
}

/*
 * Fail the members whose disks failed I/O of group @g, and wait until the
 * failures are durable: what the caller does next (reintegrate, retire a
 * log record, end an intent) must not run ahead of the record, or a crash
 * could reassemble the failed disk as in sync. Process context.
 */
void rl_mio_fail(const struct rl_mio_group *g, const char *why)
{
	struct rl_array *a = g->a;
	unsigned int m;

	if (!g->failed)
		return;
	for_each_set_bit(m, &g->failed, a->geom.nr_members)
		rl_member_fail_io(a, m, g->fdev[m], why);
	if (rl_failrec_sync(a))
		DMERR_LIMIT("%s: %s not recorded: the metadata is read-only",
			    dm_table_device_name(a->ti->table), why);
}
