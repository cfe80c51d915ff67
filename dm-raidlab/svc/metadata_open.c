// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab metadata: open and close. A zeroed device is formatted
 * from the table; otherwise the newest valid superblock is loaded and
 * checked against the table, and every member superblock against it
 * (metadata.h, rl_md_open()).
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

#include "metadata_int.h"

/* The state a new array gets from the table. */
static void rl_md_format_state(struct rl_md *md)
{
	struct rl_array *a = md->a;
	struct rl_md_state *st = &md->st;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	get_random_bytes(st->uuid, sizeof(st->uuid));
	strscpy_pad(st->scheme, a->ops->name, sizeof(st->scheme));
	st->nr_members = a->geom.nr_members;
	st->chunk_sectors = rl_chunk_sectors(&a->geom);
	st->data_offset = a->geom.data_offset;
	st->member_sectors = a->member_sectors;
	st->array_sectors = a->ti->len;
	st->resync_cursor = a->assume_clean ? a->member_sectors : 0;
	st->region_shift = a->region_shift ? a->region_shift :
		rl_md_default_region_shift(a->member_sectors,
					   max_t(u32, rl_chunk_sectors(&a->geom),
						 RL_MD_DEFAULT_REGION));
	st->nr_regions = rl_md_nr_regions(a->member_sectors, st->region_shift);
	st->bitmap_start = 2;
	st->bitmap_blocks = rl_md_bitmap_blocks(st->nr_regions);
	for (i = 0; i < st->nr_members; i++) {
		st->members[i].state = a->members[i].dev ? RL_MS_IN_SYNC :
							   RL_MS_FAILED;
		get_random_bytes(st->members[i].dev_uuid, 16);
	}
	for (i = 0; i < a->nr_spares; i++)
		get_random_bytes(md->spare_uuid[i], 16);
	strscpy_pad(st->homehost, a->homehost, sizeof(st->homehost));
}

/*
 * A table's homehost is recorded at load, over the metadata's: who
 * assembles an array of another host decides that (raidlab assemble
 * refuses it without --force, as mdadm does), not the kernel.
 */
static void rl_md_load_homehost(struct rl_md *md)
{
	const char *was = md->st.homehost[0] ? md->st.homehost : "none";

	if (!md->a->homehost[0] || !strcmp(md->st.homehost, md->a->homehost))
		return;
	DMINFO("%s: homehost %s, was %s", rl_md_name(md), md->a->homehost, was);
	strscpy_pad(md->st.homehost, md->a->homehost, sizeof(md->st.homehost));
}

/* New array: every disk must be blank (no valid superblock of any array). */
static int rl_md_check_blank(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	struct rl_msb_state msb;
	char *why;
	unsigned int i;
	int r;

	for (i = 0; i < a->geom.nr_members + a->nr_spares; i++) {
		bool spare = i >= a->geom.nr_members;
		struct dm_dev *dev = spare ? a->spares[i - a->geom.nr_members] :
					     a->members[i].dev;

		if (!dev)
			continue;
		r = rl_md_msb_read(md, dev->bdev, &msb, &why);
		if (r == -EIO) {
			*error = why;
			return r;
		}
		if (!r) {
			DMERR("%s: %s %s already belongs to an array (role %u)",
			      rl_md_name(md), spare ? "spare" : "member",
			      dev->name, msb.role);
			*error = spare ? "Spare already belongs to an array" :
					 "Member already belongs to an array";
			return -EINVAL;
		}
	}
	return 0;
}

static int rl_md_format(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	u64 i;
	int r;

	r = rl_md_check_blank(md, error);
	if (r)
		return r;

	for (i = 0; i < md->st.bitmap_blocks; i++) {
		rl_md_bitmap_encode(md->st.bitmap_start + i, 0, md->bits,
				    rl_md_block_bits(md, i), md->bmblk);
		r = rl_md_write(md, md->st.bitmap_start + i, md->bmblk);
		if (r)
			goto io;
	}
	r = rl_md_commit(md, true);
	if (r)
		goto io;
	md->new = true;
	DMINFO("%s: new array on metadata device %s (%s, %u members, regions of %llu sectors)",
	       rl_md_name(md), md->dev->name, rl_md_backend(md),
	       a->geom.nr_members, 1ULL << md->st.region_shift);
	return 0;
io:
	*error = "Cannot write the metadata device";
	return -EIO;
}

/* The loaded state must describe the array the table describes. */
static int rl_md_check_table(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	struct rl_md_state *st = &md->st;

	if (strncmp(st->scheme, a->ops->name, RL_MD_SCHEME_LEN)) {
		*error = "Metadata describes another scheme";
		return -EINVAL;
	}
	if (st->nr_members != a->geom.nr_members) {
		*error = "Metadata describes another number of members";
		return -EINVAL;
	}
	if (st->chunk_sectors != rl_chunk_sectors(&a->geom)) {
		*error = "Metadata describes another chunk_size";
		return -EINVAL;
	}
	if (st->data_offset != a->geom.data_offset ||
	    st->member_sectors != a->member_sectors ||
	    st->array_sectors != a->ti->len) {
		*error = "Metadata describes another length";
		return -EINVAL;
	}
	if (a->region_shift && st->region_shift != a->region_shift) {
		*error = "region_size differs from the metadata";
		return -EINVAL;
	}
	/* the slot was checked without the device: now with it */
	return rl_md_sb_check(st, md->dev_blocks, error);
}

/* Load the newest valid slot: 0, -ENODATA (both blank), or an error. */
static int rl_md_load_sb(struct rl_md *md, char **error)
{
	struct rl_md_state *st2;
	char *err[2];
	int r[2], ret = 0;
	unsigned int s;

	st2 = kmalloc(sizeof(*st2), GFP_KERNEL);
	if (!st2)
		return -ENOMEM;
	for (s = 0; s < 2; s++) {
		if (rl_md_read(md, s, md->blk)) {
			*error = "Cannot read the metadata device";
			ret = -EIO;
			goto out;
		}
		r[s] = rl_md_sb_decode(md->blk, s ? st2 : &md->st, &err[s]);
	}
	if (r[0] == -ENODATA && r[1] == -ENODATA) {
		ret = -ENODATA;
	} else if (r[0] && r[1]) {
		DMERR("%s: metadata device %s: slot 0: %s; slot 1: %s",
		      rl_md_name(md), md->dev->name, err[0], err[1]);
		*error = r[0] == -ENODATA ? err[1] : err[0];
		ret = -EINVAL;
	} else if (r[0] || (!r[1] && st2->seq > md->st.seq)) {
		if (r[0])
			DMWARN("%s: metadata slot 0 ignored: %s",
			       rl_md_name(md), err[0]);
		md->st = *st2;
		md->slot = 1;
	} else {
		if (r[1])
			DMWARN("%s: metadata slot 1 ignored: %s",
			       rl_md_name(md), err[1]);
		md->slot = 0;
	}
out:
	kfree(st2);
	return ret;
}

/*
 * Read the bitmap after an unclean shutdown: those regions are dirty. A
 * torn block (rl_md_bitmap_load()) makes all of its regions dirty; it
 * stays as it is on the device until its bits are next written (the clear
 * pass once they are resynced), and a crash before that finds it torn
 * again.
 */
static int rl_md_load_bitmap(struct rl_md *md, char **error)
{
	u64 nr = md->st.nr_regions, i, blk;
	char *why;
	int r;

	if (md->st.flags & RL_MD_CLEAN)
		return 0;
	for (i = 0; i < md->st.bitmap_blocks; i++) {
		blk = md->st.bitmap_start + i;
		if (rl_md_read(md, blk, md->bmblk)) {
			*error = "Cannot read the metadata device";
			return -EIO;
		}
		r = rl_md_bitmap_load(md->bmblk, blk,
				      md->bits + i * RL_MD_WORDS_PER_BLOCK,
				      rl_md_block_bits(md, i), &why);
		if (r < 0) {
			DMERR("%s: metadata device %s: bitmap block %llu refused: %s",
			      rl_md_name(md), md->dev->name, blk, why);
			*error = why;
			return -EINVAL;
		}
		if (r == RL_MD_BITMAP_TORN)
			DMWARN("%s: bitmap block %llu: %s (torn write): its %u regions dirty",
			       rl_md_name(md), blk, why, rl_md_block_bits(md, i));
	}
	if (bitmap_empty(md->bits, nr))
		return 0;
	md->dirty_at_load = bitmap_zalloc(nr, GFP_KERNEL);
	if (!md->dirty_at_load)
		return -ENOMEM;
	bitmap_copy(md->dirty_at_load, md->bits, nr);
	bitmap_copy(md->pinned, md->bits, nr);
	DMWARN("%s: unclean shutdown: %u regions dirty", rl_md_name(md),
	       bitmap_weight(md->bits, nr));
	return 0;
}

/* A new array's bitmap must fit in memory and on the device. */
static int rl_md_check_size(struct rl_md *md, char **error)
{
	if (md->st.nr_regions > RL_MD_MAX_REGIONS) {
		*error = "region_size too small: too many regions";
		return -EINVAL;
	}
	if (md->st.bitmap_start + md->st.bitmap_blocks > md->dev_blocks) {
		*error = "Metadata device too small";
		return -ENOSPC;
	}
	return 0;
}

/* Check member @i of an existing array against the metadata. */
/*
 * Whether a disk whose superblock read gave @read (into @msb; not -EIO)
 * replaces failed role @i: a blank disk, or a spare of this array. If so,
 * it is the role's disk from now on (its uuid). Under md->lock.
 */
static bool rl_md_replaces(struct rl_md *md, unsigned int i, int read,
			   const struct rl_msb_state *msb)
{
	struct rl_md_member *mm = &md->st.members[i];

	if (read)
		get_random_bytes(mm->dev_uuid, 16);
	else if (rl_md_taking_role(&md->st, i, msb))
		memcpy(mm->dev_uuid, msb->dev_uuid, 16);
	else
		return false;
	return true;
}

static int rl_md_check_member(struct rl_md *md, unsigned int i, char **error)
{
	struct rl_array *a = md->a;
	struct rl_md_member *mm = &md->st.members[i];
	struct dm_dev *dev = a->members[i].dev;
	struct rl_msb_state msb;
	char *why;
	int r;

	if (!dev)
		return 0;
	r = rl_md_msb_read(md, dev->bdev, &msb, &why);
	if (r == -EIO) {
		*error = why;
		return r;
	}
	if (mm->state == RL_MS_FAILED) {
		if (rl_md_replaces(md, i, r, &msb))
			set_bit(i, &a->replacements);
		return 0;
	}
	if (r) {
		DMERR("%s: member %u (%s): %s", rl_md_name(md), i, dev->name, why);
		*error = r == -ENODATA ? "Member superblock is blank" : why;
		return -EINVAL;
	}
	*error = rl_md_member_mismatch(&md->st, i, &msb);
	if (!*error)
		return 0;
	DMERR("%s: member %u (%s) refused: %s (events %llu, metadata %llu, role %u)",
	      rl_md_name(md), i, dev->name, *error, msb.events, md->st.events,
	      msb.role);
	return -EINVAL;
}

/*
 * Spare @dev of the array: its disk uuid into @uuid. A blank disk is
 * claimed (a spare superblock with a new uuid, so no other array takes
 * it); a spare of the array is taken as it is; a former member whose role
 * moved on becomes a spare. Anything else is refused. Under md->lock.
 */
static int rl_md_take_spare_locked(struct rl_md *md, struct dm_dev *dev,
				   u8 uuid[16], char **error)
{
	struct rl_msb_state msb;
	char *why;
	int r;

	r = rl_md_msb_read(md, dev->bdev, &msb, &why);
	if (r == -EIO) {
		*error = why;
		return r;
	}
	if (r) {
		get_random_bytes(uuid, 16);
		goto claim;
	}
	if (!rl_md_spare_ok(&md->st, &msb)) {
		DMERR("%s: spare %s refused (role %u)", rl_md_name(md),
		      dev->name, msb.role);
		*error = "Spare belongs to another array or role";
		return -EINVAL;
	}
	memcpy(uuid, msb.dev_uuid, 16);
	if (msb.role == RL_ROLE_SPARE)
		return 0;
	DMINFO("%s: %s, once member %u, is a spare", rl_md_name(md),
	       dev->name, msb.role);
claim:
	if (rl_md_msb_write(md, dev->bdev, RL_ROLE_SPARE, uuid)) {
		*error = "Cannot write a spare's superblock";
		return -EIO;
	}
	return 0;
}

static int rl_md_check_members(struct rl_md *md, char **error)
{
	struct rl_array *a = md->a;
	unsigned int i;
	int r;

	for (i = 0; i < a->geom.nr_members; i++) {
		r = rl_md_check_member(md, i, error);
		if (r)
			return r;
	}
	for (i = 0; i < a->nr_spares; i++) {
		r = rl_md_take_spare_locked(md, a->spares[i], md->spare_uuid[i],
					    error);
		if (r)
			return r;
	}
	return 0;
}

int rl_md_take_role(struct rl_md *md, unsigned int i, struct dm_dev *dev,
		    char **error)
{
	struct rl_md_member *mm;
	struct rl_msb_state msb;
	char *why;
	int r;

	rl_md_lock(md);
	mm = &md->st.members[min_t(unsigned int, i, RL_MD_MAX_MEMBERS - 1)];
	if (i >= md->st.nr_members || mm->state != RL_MS_FAILED) {
		*error = "The role is not failed in the metadata";
		r = -EINVAL;
		goto out;
	}
	r = rl_md_msb_read(md, dev->bdev, &msb, &why);
	if (r == -EIO) {
		*error = why;
	} else if (rl_md_replaces(md, i, r, &msb)) {
		r = 0;
	} else {
		*error = "The disk for a failed role belongs to another array or role";
		r = -EINVAL;
	}
out:
	rl_md_unlock(md);
	return r;
}

int rl_md_take_spare(struct rl_md *md, struct dm_dev *dev, u8 uuid[16],
		     char **error)
{
	int r;

	rl_md_lock(md);
	r = rl_md_take_spare_locked(md, dev, uuid, error);
	rl_md_unlock(md);
	return r;
}

static int rl_md_alloc(struct rl_md *md)
{
	u64 words = md->st.bitmap_blocks * RL_MD_WORDS_PER_BLOCK;

	md->bits = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->pending = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->used = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->pinned = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->held = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->cand = kvcalloc(words, sizeof(long), GFP_KERNEL);
	md->inflight = kvcalloc(md->st.nr_regions, sizeof(u32), GFP_KERNEL);
	if (!md->bits || !md->pending || !md->used || !md->pinned ||
	    !md->held || !md->cand || !md->inflight)
		return -ENOMEM;
	return 0;
}

/*
 * Metadata devices in use. A table loaded over a live array (dmsetup
 * reload) never opens the device a second time, so that two never commit
 * to it: it takes the live array over at its resume (target/reload.c).
 */
static LIST_HEAD(rl_md_open_list);
static DEFINE_MUTEX(rl_md_open_mutex);

static bool rl_md_claim(struct rl_md *md)
{
	struct rl_md *o;

	mutex_lock(&rl_md_open_mutex);
	list_for_each_entry(o, &rl_md_open_list, open_node) {
		if (o->dev->bdev->bd_dev == md->dev->bdev->bd_dev) {
			mutex_unlock(&rl_md_open_mutex);
			return false;
		}
	}
	list_add(&md->open_node, &rl_md_open_list);
	mutex_unlock(&rl_md_open_mutex);
	return true;
}

static void rl_md_unclaim(struct rl_md *md)
{
	mutex_lock(&rl_md_open_mutex);
	list_del(&md->open_node);
	mutex_unlock(&rl_md_open_mutex);
}

int rl_md_with_claimant(dev_t dev, int (*fn)(struct rl_array *a, void *ctx),
			void *ctx)
{
	struct rl_md *o;
	int r = -ENOENT;

	mutex_lock(&rl_md_open_mutex);
	list_for_each_entry(o, &rl_md_open_list, open_node) {
		if (o->dev->bdev->bd_dev == dev) {
			r = o->a ? fn(o->a, ctx) : -EBUSY;
			break;
		}
	}
	mutex_unlock(&rl_md_open_mutex);
	return r;
}

static void rl_md_free(struct rl_md *md)
{
	rl_md_unclaim(md);
	kvfree(md->bits);
	kvfree(md->pending);
	kvfree(md->used);
	kvfree(md->pinned);
	kvfree(md->held);
	kvfree(md->cand);
	kvfree(md->inflight);
	bitmap_free(md->dirty_at_load);
	if (md->bufio)
		dm_bufio_client_destroy(md->bufio);
	kfree(md->segs);
	if (md->io)
		dm_io_client_destroy(md->io);
	if (md->msb_page)
		__free_page(md->msb_page);
	kfree(md->blk);
	kfree(md->bmblk);
	kfree(md);
}

/* Backend, buffers and dm-io client. */
static int rl_md_setup(struct rl_md *md, char **error)
{
	md->dev_blocks = bdev_nr_sectors(md->dev->bdev) >> (ilog2(RL_MD_BLOCK) -
							    SECTOR_SHIFT);
	if (md->dev_blocks < 3) {
		*error = "Metadata device too small";
		return -EINVAL;
	}
	md->blk = kmalloc(RL_MD_BLOCK, GFP_KERNEL);
	md->bmblk = kmalloc(RL_MD_BLOCK, GFP_KERNEL);
	md->msb_page = alloc_page(GFP_KERNEL);
	if (!md->blk || !md->bmblk || !md->msb_page) {
		*error = "Cannot allocate metadata buffers";
		return -ENOMEM;
	}
	md->io = dm_io_client_create();
	if (IS_ERR(md->io)) {
		md->io = NULL;
		*error = "Cannot create a dm-io client";
		return -ENOMEM;
	}
	if (!rl_md_dax_claim(md))
		return 0;
	md->bufio = dm_bufio_client_create(md->dev->bdev, RL_MD_BLOCK, 1, 0,
					   NULL, NULL, 0);
	if (IS_ERR(md->bufio)) {
		int r = PTR_ERR(md->bufio);

		md->bufio = NULL;
		*error = "Cannot create a dm-bufio client";
		return r;
	}
	return 0;
}

/* What the core needs from the state: failed and rebuilding members. */
static void rl_md_apply(struct rl_md *md)
{
	struct rl_array *a = md->a;
	unsigned int i;

	for (i = 0; i < a->geom.nr_members; i++) {
		if (md->st.members[i].state == RL_MS_FAILED) {
			set_bit(i, &a->failed);
		} else if (md->st.members[i].state == RL_MS_REBUILDING) {
			set_bit(i, &a->rebuilding);
			a->rebuild_cursor[i] = md->st.members[i].cursor;
		}
	}
}

int rl_md_open(struct rl_array *a, struct dm_dev *dev,
	       void (*member_error)(struct rl_array *a, unsigned int m,
				    const char *why),
	       struct rl_md **mdp, char **error)
{
	struct rl_md *md;
	int r;

	md = kzalloc(sizeof(*md), GFP_KERNEL);
	if (!md) {
		*error = "Cannot allocate metadata context";
		return -ENOMEM;
	}
	md->dev = dev;
	if (!rl_md_claim(md)) {
		kfree(md);
		*error = "Metadata device in use by a live table: remove the array first";
		return -EBUSY;
	}
	md->a = a;
	md->dev = dev;
	md->member_error = member_error;
	md->slot = 1;		/* the first commit goes to slot 0 */
	mutex_init(&md->lock);
	mutex_init(&md->io_mutex);
	spin_lock_init(&md->ilock);
	atomic64_set(&md->intent_writes, 0);
	INIT_DELAYED_WORK(&md->clear_work, rl_md_clear_work);

	r = rl_md_setup(md, error);
	if (r)
		goto bad;

	rl_md_lock(md);
	r = rl_md_load_sb(md, error);
	if (r == -ENODATA) {
		rl_md_format_state(md);
		r = rl_md_check_size(md, error);
		if (!r)
			r = rl_md_alloc(md);
		if (!r)
			r = rl_md_format(md, error);
	} else if (!r) {
		r = rl_md_check_table(md, error);
		if (!r)
			r = rl_md_alloc(md);
		if (!r)
			r = rl_md_load_bitmap(md, error);
		if (!r)
			r = rl_md_check_members(md, error);
		if (!r) {
			rl_md_load_homehost(md);
			/* live from now on: not clean until shut down */
			md->st.flags &= ~RL_MD_CLEAN;
			r = rl_md_commit(md, false);
			if (r)
				*error = "Cannot write the metadata device";
		}
	}
	rl_md_unlock(md);
	if (r == -ENOMEM)
		*error = "Cannot allocate the write-intent bitmap";
	if (r)
		goto bad;

	rl_md_apply(md);
	if (!bitmap_subset(md->bits, md->pinned, md->st.nr_regions))
		queue_delayed_work(system_long_wq, &md->clear_work,
				   RL_MD_CLEAR_PERIOD);
	*mdp = md;
	return 0;
bad:
	rl_md_free(md);
	return r;
}

void rl_md_close(struct rl_md *md)
{
	if (!md)
		return;
	cancel_delayed_work_sync(&md->clear_work);
	rl_md_free(md);
}
