// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab metadata service (metadata.h): the superblock slots, the
 * write-intent bitmap and the record areas on the metadata device, and the
 * member superblocks.
 *
 * The encodings are pure (encode, decode, validation; metadata_fmt.c),
 * tested by the KUnit suite dm_raidlab_metadata. The service:
 *
 *   backend   DAX (the device's pages mapped once at open, written with
 *             memcpy_flushcache() and ordered with pmem_wmb()) or dm-bufio
 *             (4 KiB buffers, dm_bufio_write_dirty_buffers() and a flush).
 *   commit    phase 1 makes everything written so far durable (bitmap,
 *             areas), phase 2 writes the other superblock slot with seq + 1
 *             and makes it durable.
 *   members   struct rl_msb at member sector 0, read and written with
 *             synchronous dm-io (REQ_FUA on writes) through one page.
 *   intent    one bit per region. Locks: md->io_mutex serializes bitmap
 *             writes and the clear pass, md->lock the state and commits
 *             (taken inside io_mutex, never the other way round),
 *             md->ilock (a spinlock) the in-memory bitmaps and counts.
 *             A bit in md->bits is durable; md->pending holds bits being
 *             made durable. A region's bit is cleared only by the clear
 *             pass, under ilock, when nothing is in flight there and
 *             nothing started there since the members were flushed.
 *
 * The files of the service, each calling only the ones below it:
 *
 *   metadata_open.c   open and close: load or format, check the members
 *   metadata_intent.c the write-intent bitmap
 *   metadata.c        the backend, commits, member superblocks, record areas
 *   metadata_fmt.c    the on-disk encodings and their checks (pure)
 */
#include <linux/bitmap.h>
#include <linux/blkdev.h>
#include <linux/crc32c.h>
#include <linux/dax.h>
#include <linux/device-mapper.h>
#include <linux/dm-bufio.h>
#include <linux/dm-io.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pfn_t.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../compat.h"
#include "metadata_int.h"

static_assert(sizeof(struct rl_md_sb) <= RL_MD_BLOCK);
static_assert(sizeof(struct rl_msb) <= 8 * SECTOR_SIZE);
static_assert(sizeof(struct rl_md_bitmap_disk) == RL_MD_BLOCK);
static_assert(RL_MD_BITS_PER_BLOCK % BITS_PER_LONG == 0);
static_assert(RL_MD_MAX_MEMBERS == RL_MAX_MEMBERS);
static_assert(RL_MD_HOMEHOST_LEN == RL_HOMEHOST_LEN);

bool rl_md_failed(struct rl_md *md)
{
	return test_bit(RL_MDF_FAILED, &md->flags);
}

const char *rl_md_backend(struct rl_md *md)
{
	return md->bufio ? "bufio" : "dax";
}

bool rl_md_new(struct rl_md *md)
{
	return md->new;
}

struct rl_md_state *rl_md_state(struct rl_md *md)
{
	return &md->st;
}

void rl_md_lock(struct rl_md *md)
{
	mutex_lock(&md->lock);
}

void rl_md_unlock(struct rl_md *md)
{
	mutex_unlock(&md->lock);
}

void rl_md_spare_uuid(struct rl_md *md, unsigned int j, u8 uuid[16])
{
	memcpy(uuid, md->spare_uuid[j], 16);
}

void rl_md_set_spare_uuid(struct rl_md *md, unsigned int j,
			  const u8 uuid[16])
{
	memcpy(md->spare_uuid[j], uuid, 16);
}

int rl_md_set_homehost(struct rl_md *md, const char *name)
{
	int r;

	rl_md_lock(md);
	strscpy_pad(md->st.homehost, name, sizeof(md->st.homehost));
	r = rl_md_commit(md, false);
	rl_md_unlock(md);
	return r;
}

const char *rl_md_name(struct rl_md *md)
{
	return dm_table_device_name(md->a->ti->table);
}

/* An I/O on the metadata failed: read-only from now on, said once. */
static int rl_md_io_error(struct rl_md *md, const char *what, int r)
{
	if (!test_and_set_bit(RL_MDF_FAILED, &md->flags))
		DMERR("%s: metadata device %s: %s failed (%d): writes are refused",
		      rl_md_name(md), md->dev->name, what, r);
	return -EIO;
}

static void *rl_md_dax_addr(struct rl_md *md, u64 block)
{
	unsigned int i;

	for (i = 0; i < md->nr_segs; i++)
		if (block >= md->segs[i].block &&
		    block < md->segs[i].block + md->segs[i].nr)
			return md->segs[i].kaddr +
			       (block - md->segs[i].block) * RL_MD_BLOCK;
	return NULL;
}

/*
 * Map the whole device (as dm-writecache does): direct_access may hand out
 * the range in pieces, kept as segments. Returns 0, or nonzero to fall
 * back to dm-bufio.
 */
int rl_md_dax_claim(struct rl_md *md)
{
#if IS_ENABLED(CONFIG_FS_DAX)
	sector_t start = get_start_sect(md->dev->bdev);
	u64 done = 0;
	long da;
	void *kaddr;
	pfn_t pfn;
	int id, r = 0;

	if (!md->dev->dax_dev || PAGE_SIZE != RL_MD_BLOCK ||
	    start & (RL_MD_BLOCK_SECTORS - 1))
		return -EOPNOTSUPP;
	md->segs = kcalloc(RL_MD_MAX_SEGS, sizeof(*md->segs), GFP_KERNEL);
	if (!md->segs)
		return -ENOMEM;
	id = dax_read_lock();
	while (done < md->dev_blocks) {
		if (md->nr_segs == RL_MD_MAX_SEGS) {
			r = -E2BIG;
			break;
		}
		da = dax_direct_access(md->dev->dax_dev,
				       (start >> (PAGE_SHIFT - SECTOR_SHIFT)) + done,
				       md->dev_blocks - done, DAX_ACCESS,
				       &kaddr, &pfn);
		if (da <= 0) {
			r = da ? da : -EIO;
			break;
		}
		da = min_t(u64, da, md->dev_blocks - done);
		md->segs[md->nr_segs].block = done;
		md->segs[md->nr_segs].nr = da;
		md->segs[md->nr_segs].kaddr = kaddr;
		md->nr_segs++;
		done += da;
	}
	dax_read_unlock(id);
	if (r) {
		DMWARN("%s: metadata device %s: no DAX mapping (%d), using dm-bufio",
		       rl_md_name(md), md->dev->name, r);
		kfree(md->segs);
		md->segs = NULL;
		md->nr_segs = 0;
	}
	return r;
#else
	return -EOPNOTSUPP;
#endif
}

int rl_md_read(struct rl_md *md, u64 block, void *buf)
{
	struct dm_buffer *b;
	void *p;

	if (!md->bufio) {
		p = rl_md_dax_addr(md, block);
		if (!p || copy_mc_to_kernel(buf, p, RL_MD_BLOCK))
			return rl_md_io_error(md, "read", -EIO);
		return 0;
	}
	p = dm_bufio_read(md->bufio, block, &b);
	if (IS_ERR(p))
		return rl_md_io_error(md, "read", PTR_ERR(p));
	memcpy(buf, p, RL_MD_BLOCK);
	dm_bufio_release(b);
	return 0;
}

/* Write a block; durable after rl_md_sync(). */
int rl_md_write(struct rl_md *md, u64 block, const void *buf)
{
	struct dm_buffer *b;
	void *p;

	if (!md->bufio) {
		p = rl_md_dax_addr(md, block);
		if (!p)
			return rl_md_io_error(md, "write", -EIO);
		memcpy_flushcache(p, buf, RL_MD_BLOCK);
		return 0;
	}
	p = dm_bufio_new(md->bufio, block, &b);
	if (IS_ERR(p))
		return rl_md_io_error(md, "write", PTR_ERR(p));
	memcpy(p, buf, RL_MD_BLOCK);
	dm_bufio_mark_buffer_dirty(b);
	dm_bufio_release(b);
	return 0;
}

/* Everything written so far is durable. */
int rl_md_sync(struct rl_md *md)
{
	int r;

	if (rl_md_failed(md))
		return -EIO;
	if (!md->bufio) {
		pmem_wmb();
		return 0;
	}
	r = dm_bufio_write_dirty_buffers(md->bufio);
	if (!r)
		r = dm_bufio_issue_flush(md->bufio);
	if (r)
		return rl_md_io_error(md, "write", r);
	return 0;
}

int rl_md_persist(struct rl_md *md)
{
	return rl_md_sync(md);
}

/* Member superblock I/O at sector 0 of @bdev, through md->msb_page. */
/* A member superblock's block of @bdev from or to @page, through @io. */
static int rl_msb_page_io(struct dm_io_client *io, struct block_device *bdev,
			  blk_opf_t opf, struct page *page)
{
	struct dm_io_region where = {
		.bdev = bdev, .sector = 0, .count = RL_MD_BLOCK_SECTORS,
	};
	struct dm_io_request req = {
		.bi_opf = opf,
		.mem.type = DM_IO_KMEM,
		.mem.ptr.addr = page_address(page),
		.client = io,
	};

	return rl_dm_io(&req, 1, &where, NULL);
}

static int rl_md_msb_io(struct rl_md *md, struct block_device *bdev,
			blk_opf_t opf)
{
	lockdep_assert_held(&md->lock);
	return rl_msb_page_io(md->io, bdev, opf, md->msb_page);
}

int rl_msb_read_bdev(struct block_device *bdev, struct rl_msb_state *msb,
		     char **why)
{
	struct dm_io_client *io = dm_io_client_create();
	struct page *page;
	int r = -ENOMEM;

	*why = "out of memory";
	if (IS_ERR(io))
		return r;
	page = alloc_page(GFP_KERNEL);
	if (page && rl_msb_page_io(io, bdev, REQ_OP_READ | REQ_SYNC, page)) {
		*why = "Cannot read a member superblock";
		r = -EIO;
	} else if (page) {
		r = rl_msb_decode(page_address(page), msb, why);
	}
	if (page)
		__free_page(page);
	dm_io_client_destroy(io);
	return r;
}

/* Read and decode @bdev's superblock: 0, -ENODATA, -EINVAL or -EIO. */
int rl_md_msb_read(struct rl_md *md, struct block_device *bdev,
		   struct rl_msb_state *msb, char **error)
{
	int r = rl_md_msb_io(md, bdev, REQ_OP_READ | REQ_SYNC);

	if (r) {
		*error = "Cannot read a member superblock";
		return -EIO;
	}
	return rl_msb_decode(page_address(md->msb_page), msb, error);
}

int rl_md_msb_write(struct rl_md *md, struct block_device *bdev,
		    u32 role, const u8 dev_uuid[16])
{
	struct rl_msb_state msb = {
		.role = role,
		.events = md->st.events,
		.nr_members = md->st.nr_members,
		.chunk_sectors = md->st.chunk_sectors,
		.data_offset = md->st.data_offset,
		.member_sectors = md->st.member_sectors,
	};

	memcpy(msb.uuid, md->st.uuid, 16);
	memcpy(msb.dev_uuid, dev_uuid, 16);
	memcpy(msb.scheme, md->st.scheme, sizeof(msb.scheme));
	rl_msb_encode(&msb, page_address(md->msb_page));
	return rl_md_msb_io(md, bdev, REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
}

/*
 * The disk is read without md->lock (rl_msb_read_bdev()): a disk that is
 * not quite back may hold the read for long (a path queueing I/O), and
 * commits must not wait behind it.
 */
int rl_md_readd_check(struct rl_md *md, unsigned int m,
		      struct block_device *bdev, char **why)
{
	struct rl_msb_state msb;
	int r = rl_msb_read_bdev(bdev, &msb, why);

	if (r == -ENODATA)
		*why = "the disk's superblock is blank";
	if (r)
		return r;
	rl_md_lock(md);
	*why = m < md->st.nr_members ? rl_md_readd_mismatch(&md->st, m, &msb) :
				       "no such member";
	rl_md_unlock(md);
	return *why ? -EINVAL : 0;
}

char *rl_md_disk_mismatch(struct rl_md *md, int role, int read,
			  const struct rl_msb_state *msb)
{
	char *why = NULL;

	if (read == -EIO)
		return "Cannot read the disk's superblock";
	if (read)
		return NULL;	/* blank, or no superblock of ours: claimed */
	rl_md_lock(md);
	if (role < 0 && !rl_md_spare_ok(&md->st, msb))
		why = "Spare belongs to another array or role";
	else if (role >= 0 && !rl_md_taking_role(&md->st, role, msb))
		why = "The disk for a failed role belongs to another array or role";
	rl_md_unlock(md);
	return why;
}

/*
 * Write the superblock of every live member (not failed in the metadata)
 * and of every spare. A member whose write fails is reported
 * (md->member_error); the metadata stays usable.
 */
static void rl_md_msb_write_all(struct rl_md *md)
{
	struct rl_array *a = md->a;
	unsigned int i;

	for (i = 0; i < a->geom.nr_members; i++) {
		struct dm_dev *dev = a->members[i].dev;

		if (!dev || md->st.members[i].state == RL_MS_FAILED ||
		    rl_member_failed(a, i))
			continue;
		if (rl_md_msb_write(md, dev->bdev, i,
				    md->st.members[i].dev_uuid))
			md->member_error(a, i, "superblock write failed");
	}
	for (i = 0; i < a->nr_spares; i++)
		if (a->spares[i] &&
		    rl_md_msb_write(md, a->spares[i]->bdev, RL_ROLE_SPARE,
				    md->spare_uuid[i]))
			DMWARN("%s: spare %s: superblock write failed",
			       rl_md_name(md), a->spares[i]->name);
}

int rl_md_commit(struct rl_md *md, bool members_changed)
{
	unsigned int slot = md->slot ^ 1;
	int r;

	lockdep_assert_held(&md->lock);
	/* phase 1: the bitmap and the areas the new state may point to */
	r = rl_md_sync(md);
	if (r)
		return r;
	if (members_changed) {
		md->st.events++;
		rl_md_msb_write_all(md);
	}
	/* phase 2: the other slot */
	md->st.seq++;
	rl_md_sb_encode(&md->st, md->blk);
	r = rl_md_write(md, slot, md->blk);
	if (!r)
		r = rl_md_sync(md);
	if (r)
		return -EIO;
	md->slot = slot;
	return 0;
}

/* ------------------------------------------------------------------------
 * Record areas.
 */

int rl_md_area_find(struct rl_md *md, u32 id, u64 blocks,
		    struct rl_md_area *area)
{
	struct rl_md_state *st = &md->st;
	unsigned int i;
	int r = 0;
	u64 end;

	if (!blocks)
		return -EINVAL;
	rl_md_lock(md);
	for (i = 0; i < st->nr_areas; i++) {
		if (st->areas[i].id == id) {
			if (st->areas[i].blocks != blocks)
				r = -EINVAL;
			else
				*area = st->areas[i];
			goto out;
		}
	}
	/* after everything placed (checked at load: end <= dev_blocks) */
	end = rl_md_used_blocks(st);
	if (st->nr_areas == RL_MD_MAX_AREAS || end > md->dev_blocks ||
	    blocks > md->dev_blocks - end) {
		r = -ENOSPC;
		goto out;
	}
	st->areas[i].id = id;
	st->areas[i].start = end;
	st->areas[i].blocks = blocks;
	st->nr_areas++;
	r = rl_md_commit(md, false);
	if (r)
		st->nr_areas--;
	else
		*area = st->areas[i];
out:
	rl_md_unlock(md);
	return r;
}

void *rl_md_area_map(struct rl_md *md, const struct rl_md_area *area,
		     u64 block, bool new, struct dm_buffer **bp)
{
	u64 blk = area->start + block;
	void *p;

	*bp = NULL;
	if (block >= area->blocks)
		return NULL;
	if (!md->bufio)
		return rl_md_dax_addr(md, blk);
	p = new ? dm_bufio_new(md->bufio, blk, bp) :
		  dm_bufio_read(md->bufio, blk, bp);
	if (IS_ERR(p)) {
		rl_md_io_error(md, "area read", PTR_ERR(p));
		*bp = NULL;
		return NULL;
	}
	return p;
}

/*
 * Copy @len bytes from @src into area @area at byte @pos, block by block:
 * DAX with memcpy_flushcache(), dm-bufio into dirty buffers (a whole
 * block is not read first). Durable after rl_md_persist(). Returns 0, or
 * -EIO if a block could not be read (bufio; the metadata has failed).
 */
int rl_md_area_write(struct rl_md *md, const struct rl_md_area *area,
		     u64 pos, const void *src, size_t len)
{
	struct dm_buffer *b;
	void *dst;

	while (len) {
		u64 blk = pos / RL_MD_BLOCK;
		size_t off = pos % RL_MD_BLOCK;
		size_t n = min_t(size_t, len, RL_MD_BLOCK - off);

		dst = rl_md_area_map(md, area, blk, !off && n == RL_MD_BLOCK, &b);
		if (!dst)
			return -EIO;
		if (b)
			memcpy(dst + off, src, n);
		else
			memcpy_flushcache(dst + off, src, n);
		rl_md_area_dirty(md, b);
		rl_md_area_unmap(md, b);
		src += n;
		pos += n;
		len -= n;
	}
	return 0;
}

/*
 * Read @len bytes of area @area at byte @pos into @dst, block by block (a
 * poisoned DAX line is an error, not a machine check). Returns 0 or -EIO.
 */
int rl_md_area_read(struct rl_md *md, const struct rl_md_area *area,
		    u64 pos, void *dst, size_t len)
{
	struct dm_buffer *b;
	void *src;
	int r = 0;

	while (len) {
		u64 blk = pos / RL_MD_BLOCK;
		size_t off = pos % RL_MD_BLOCK;
		size_t n = min_t(size_t, len, RL_MD_BLOCK - off);

		src = rl_md_area_map(md, area, blk, false, &b);
		if (!src)
			return -EIO;
		if (b)
			memcpy(dst, src + off, n);
		else if (copy_mc_to_kernel(dst, src + off, n))
			r = -EIO;
		rl_md_area_unmap(md, b);
		if (r)
			return r;
		dst += n;
		pos += n;
		len -= n;
	}
	return 0;
}

void rl_md_area_dirty(struct rl_md *md, struct dm_buffer *b)
{
	if (b)
		dm_bufio_mark_buffer_dirty(b);
}

void rl_md_area_unmap(struct rl_md *md, struct dm_buffer *b)
{
	if (b)
		dm_bufio_release(b);
}
