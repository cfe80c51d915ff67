// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-hddsim: a device-mapper target that makes any block device behave, in
 * time, like a mechanical disk. The data goes to the underlying device (the
 * bio is remapped, like dm-linear); the bio completes at the later of its
 * real completion and the instant the emulated disk would have finished it.
 *
 * Table line (grammar in args.c):
 *   <start> <len> hddsim <dev_path> <offset> <preset> [<#opt_args> <opt_args>...]
 *
 * The emulated disk has one arm and serves one request at a time in arrival
 * order (no cache, no internal scheduling): when a bio is mapped, its service
 * starts when the arm is free (or now, if idle) and lasts hs_service()'s
 * time from the arm's position (model.c). The platter angle is a pure
 * function of the emulated time since the target's creation, emulated time
 * being wall time times time_scale.
 *
 * Timed are reads and writes with data. Flushes, discards and write-zeroes
 * go to the device and complete no earlier than the requests mapped before
 * them (they queue behind the arm) but take no arm time: the drive has no
 * cache to flush, and discards are not modelled.
 *
 * Media errors (a lab instrument for the redundancy schemes' read-error
 * handling, like dm-dust): sectors listed with the message addbadblock
 * fail every read that touches them (DM_MAPIO_KILL: an I/O error at once,
 * without the drive's retries), and a write over a listed sector takes it
 * off the list, as a drive reallocates a pending sector when it is
 * written. The list is the kernel's badblocks library.
 *
 * Completion: when the underlying device completes a clone before its
 * modelled instant, end_io returns DM_ENDIO_INCOMPLETE and arms an hrtimer
 * in the bio's per-bio data; the timer (softirq) ends the clone again, and
 * end_io lets it through. No allocation per I/O.
 */
#include <linux/badblocks.h>
#include <linux/device-mapper.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "hddsim.h"

#define DM_MSG_PREFIX "hddsim"

/**
 * struct hs_stats - counters since creation or reset_counters
 * @requests: timed requests (reads and writes with data)
 * @reads: timed reads
 * @writes: timed writes
 * @others: flushes, discards, write-zeroes (not timed)
 * @seek_cyls: cylinders travelled by the arm
 * @seek_ns: emulated seek and head/track switch time
 * @rot_ns: emulated rotational wait
 * @xfer_ns: emulated media transfer
 * @busy_ns: emulated service time (the sum of the three above)
 */
struct hs_stats {
	u64 requests;
	u64 reads;
	u64 writes;
	u64 others;
	u64 seek_cyls;
	u64 seek_ns;
	u64 rot_ns;
	u64 xfer_ns;
	u64 busy_ns;
};

/**
 * struct hddsim_c - one emulated disk (ti->private)
 * @dev: the underlying device
 * @offset: first sector used on @dev
 * @preset: the preset the geometry came from
 * @geom: the geometry
 * @scale: emulated time per wall time
 * @nr_opt: number of optional words
 * @opt_line: the optional words as given, for the table line
 * @t0: ktime_get_ns() at creation: emulated time 0, the index mark
 * @lock: protects @arm, @arm_free and @stats
 * @arm: arm position once the queued requests are done
 * @arm_free: emulated time at which the arm is free
 * @stats: counters
 * @late: timed requests the underlying device completed after their
 *        modelled instant (the emulation was slower than the model)
 * @late_ns: wall ns by which they were late, summed
 * @bad: sectors whose reads fail until they are written (media errors)
 * @bad_reads: reads failed for touching one
 */
struct hddsim_c {
	struct dm_dev *dev;
	u64 offset;
	const struct hs_preset *preset;
	struct hs_geom geom;
	struct hs_scale scale;
	unsigned int nr_opt;
	char *opt_line;
	u64 t0;

	spinlock_t lock;	/* @arm, @arm_free, @stats */
	struct hs_arm arm;
	u64 arm_free;
	struct hs_stats stats;

	atomic64_t late;
	atomic64_t late_ns;

	struct badblocks bad;
	atomic64_t bad_reads;
};

/**
 * struct hs_io - per-bio data
 * @timer: holds the completion until @done_ns
 * @done_ns: modelled completion, ktime_get_ns() clock
 * @timed: a modelled read or write (counts in @late)
 * @held: end_io already deferred this bio once
 */
struct hs_io {
	struct hrtimer timer;
	u64 done_ns;
	bool timed;
	bool held;
};

static char *hs_join(unsigned int n, char **words)
{
	size_t len = 1;
	unsigned int i;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	s = kzalloc(len, GFP_KERNEL);
	if (!s)
		return NULL;
	for (i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, words[i]);
	}
	return s;
}

/*
 * Construct: parse the line, open the device, check the length.
 * Errors set ti->error and return -EINVAL (or -ENOMEM); nothing is left
 * allocated.
 */
static int hddsim_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct hs_args args;
	struct hddsim_c *hc;
	int r;

	r = hs_parse_args(argc, argv, &args, &ti->error);
	if (r)
		return r;

	hc = kzalloc(sizeof(*hc), GFP_KERNEL);
	if (!hc) {
		ti->error = "Cannot allocate context";
		return -ENOMEM;
	}
	hc->offset = args.offset;
	hc->preset = args.preset;
	hc->geom = args.geom;
	hc->scale = args.scale;
	hc->nr_opt = args.nr_opt;
	hc->opt_line = hs_join(args.nr_opt, args.opt);
	if (!hc->opt_line) {
		ti->error = "Cannot allocate context";
		r = -ENOMEM;
		goto bad;
	}
	spin_lock_init(&hc->lock);
	atomic64_set(&hc->late, 0);
	atomic64_set(&hc->late_ns, 0);
	atomic64_set(&hc->bad_reads, 0);
	if (badblocks_init(&hc->bad, 1)) {
		ti->error = "Cannot allocate the media error list";
		r = -ENOMEM;
		goto bad;
	}

	r = dm_get_device(ti, args.dev_path, dm_table_get_mode(ti->table),
			  &hc->dev);
	if (r) {
		ti->error = "Device lookup failed";
		goto bad_bb;
	}
	r = hs_check_length(&hc->geom, ti->len, hc->offset,
			    bdev_nr_sectors(hc->dev->bdev), &ti->error);
	if (r)
		goto bad_dev;

	ti->num_flush_bios = 1;
	ti->num_discard_bios = 1;
	ti->num_write_zeroes_bios = 1;
	ti->per_io_data_size = sizeof(struct hs_io);
	ti->private = hc;
	hc->t0 = ktime_get_ns();
	return 0;

bad_dev:
	dm_put_device(ti, hc->dev);
bad_bb:
	badblocks_exit(&hc->bad);
bad:
	kfree(hc->opt_line);
	kfree(hc);
	return r;
}

/* Destroy: no I/O is in flight any more (dm waited for it). */
static void hddsim_dtr(struct dm_target *ti)
{
	struct hddsim_c *hc = ti->private;

	dm_put_device(ti, hc->dev);
	badblocks_exit(&hc->bad);
	kfree(hc->opt_line);
	kfree(hc);
}

/*
 * The arm's timeline: a request starts when it arrives or when the arm is
 * free, whichever is later, and is done hs_service() later.
 * Return: the modelled completion, ktime_get_ns() clock.
 */
static u64 hddsim_schedule(struct hddsim_c *hc, struct bio *bio,
			   sector_t lba, bool timed)
{
	u64 now = hs_wall_to_emul(&hc->scale, ktime_get_ns() - hc->t0);
	struct hs_service s;
	u64 start, done;

	spin_lock(&hc->lock);
	start = max(now, hc->arm_free);
	if (timed) {
		hs_service(&hc->geom, &hc->arm, start, lba, bio_sectors(bio), &s);
		done = start + s.total_ns;
		hc->arm = s.end;
		hc->arm_free = done;
		hc->stats.requests++;
		if (bio_data_dir(bio) == WRITE)
			hc->stats.writes++;
		else
			hc->stats.reads++;
		hc->stats.seek_cyls += s.seek_cyls;
		hc->stats.seek_ns += s.seek_ns + s.switch_ns;
		hc->stats.rot_ns += s.rot_ns;
		hc->stats.xfer_ns += s.xfer_ns;
		hc->stats.busy_ns += s.total_ns;
	} else {
		done = start;
		hc->stats.others++;
	}
	spin_unlock(&hc->lock);

	return hc->t0 + hs_emul_to_wall(&hc->scale, done);
}

/*
 * Media errors: a read that touches a listed sector fails (true); a write
 * takes the sectors it covers off the list.
 */
static bool hddsim_media_error(struct hddsim_c *hc, struct bio *bio,
			       sector_t lba)
{
	sector_t first;
	int len;

	if (!bio_sectors(bio) || !READ_ONCE(hc->bad.count))
		return false;
	if (bio_op(bio) == REQ_OP_READ) {
		if (!badblocks_check(&hc->bad, lba, bio_sectors(bio), &first,
				     &len))
			return false;
		atomic64_inc(&hc->bad_reads);
		return true;
	}
	if (op_is_write(bio_op(bio)))
		badblocks_clear(&hc->bad, lba, bio_sectors(bio));
	return false;
}

/*
 * Map: give the bio its modelled completion and remap it to the device.
 * DM_MAPIO_REMAPPED, or DM_MAPIO_KILL for a read of a media error.
 */
static int hddsim_map(struct dm_target *ti, struct bio *bio)
{
	struct hddsim_c *hc = ti->private;
	struct hs_io *io = dm_per_bio_data(bio, sizeof(*io));
	sector_t lba = dm_target_offset(ti, bio->bi_iter.bi_sector);
	enum req_op op = bio_op(bio);

	if (hddsim_media_error(hc, bio, lba))
		return DM_MAPIO_KILL;

	io->timed = bio_sectors(bio) && (op == REQ_OP_READ || op == REQ_OP_WRITE);
	io->held = false;
	io->done_ns = hddsim_schedule(hc, bio, lba, io->timed);

	bio_set_dev(bio, hc->dev->bdev);
	if (bio_sectors(bio))
		bio->bi_iter.bi_sector = hc->offset + lba;
	return DM_MAPIO_REMAPPED;
}

/* Softirq: the modelled instant has come; end the clone for good. */
static enum hrtimer_restart hddsim_timer_fn(struct hrtimer *timer)
{
	struct hs_io *io = container_of(timer, struct hs_io, timer);

	/*
	 * This frees the clone and so the timer; hrtimer does not touch a
	 * timer after a callback that returns HRTIMER_NORESTART.
	 */
	bio_endio(dm_bio_from_per_bio_data(io, sizeof(*io)));
	return HRTIMER_NORESTART;
}

/*
 * End of a clone (any context). Before its modelled instant: hold it
 * (DM_ENDIO_INCOMPLETE) until an hrtimer ends it again; after: let it go,
 * counting it late if it is a timed request. The status (error) is the
 * device's and stays in bio->bi_status meanwhile.
 */
static int hddsim_end_io(struct dm_target *ti, struct bio *bio,
			 blk_status_t *error)
{
	struct hddsim_c *hc = ti->private;
	struct hs_io *io = dm_per_bio_data(bio, sizeof(*io));
	u64 now;

	if (io->held)
		return DM_ENDIO_DONE;
	now = ktime_get_ns();
	if (now < io->done_ns) {
		io->held = true;
		hrtimer_init(&io->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
		io->timer.function = hddsim_timer_fn;
		hrtimer_start(&io->timer, ns_to_ktime(io->done_ns),
			      HRTIMER_MODE_ABS_SOFT);
		return DM_ENDIO_INCOMPLETE;
	}
	if (io->timed && now > io->done_ns) {
		atomic64_inc(&hc->late);
		atomic64_add(now - io->done_ns, &hc->late_ns);
	}
	return DM_ENDIO_DONE;
}

/*
 * Status. INFO: <preset> <capacity> <requests> <reads> <writes> <others>
 * <seek_cyls> <seek_us> <rot_us> <xfer_us> <busy_us> <late> <late_us>
 * <cylinder>; TABLE: the table line; IMA: key=value.
 */
static void hddsim_status(struct dm_target *ti, status_type_t type,
			  unsigned int status_flags, char *result,
			  unsigned int maxlen)
{
	struct hddsim_c *hc = ti->private;
	struct hs_stats st;
	unsigned int sz = 0;
	u32 cyl;

	switch (type) {
	case STATUSTYPE_INFO:
		spin_lock(&hc->lock);
		st = hc->stats;
		cyl = hc->arm.cyl;
		spin_unlock(&hc->lock);
		DMEMIT("%s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %lld %lld %u",
		       hc->preset->name, hc->geom.capacity, st.requests,
		       st.reads, st.writes, st.others, st.seek_cyls,
		       div_u64(st.seek_ns, NSEC_PER_USEC),
		       div_u64(st.rot_ns, NSEC_PER_USEC),
		       div_u64(st.xfer_ns, NSEC_PER_USEC),
		       div_u64(st.busy_ns, NSEC_PER_USEC),
		       (s64)atomic64_read(&hc->late),
		       div_s64(atomic64_read(&hc->late_ns), NSEC_PER_USEC), cyl);
		break;
	case STATUSTYPE_TABLE:
		DMEMIT("%s %llu %s", hc->dev->name, hc->offset, hc->preset->name);
		if (hc->nr_opt)
			DMEMIT(" %u %s", hc->nr_opt, hc->opt_line);
		break;
	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",device_name=%s,offset=%llu,preset=%s;", hc->dev->name,
		       hc->offset, hc->preset->name);
		break;
	}
}

/* Bad sectors listed, summed over the list's ranges. */
static u64 hddsim_bad_sectors(struct badblocks *bb)
{
	unsigned int seq, i;
	u64 n;

	do {
		seq = read_seqbegin(&bb->lock);
		n = 0;
		for (i = 0; i < bb->count; i++)
			n += BB_LEN(bb->page[i]);
	} while (read_seqretry(&bb->lock, seq));
	return n;
}

/*
 * addbadblock <sector> [<count>], removebadblock <sector> [<count>]
 * (target sectors; count 1 by default), clearbadblocks, countbadblocks
 * (answers "<bad sectors> <failed reads>"). Returns 1 with an answer, 0,
 * or a negative errno.
 */
static int hddsim_media_message(struct hddsim_c *hc, struct dm_target *ti,
				unsigned int argc, char **argv, char *result,
				unsigned int maxlen)
{
	unsigned long long sector, count = 1;
	unsigned int sz = 0;

	if (argc == 1 && !strcasecmp(argv[0], "clearbadblocks")) {
		for (sector = 0; sector < ti->len; sector += count) {
			count = min_t(u64, ti->len - sector, SZ_1G);
			badblocks_clear(&hc->bad, sector, count);
		}
		return 0;
	}
	if (argc == 1 && !strcasecmp(argv[0], "countbadblocks")) {
		DMEMIT("%llu %lld", hddsim_bad_sectors(&hc->bad),
		       (s64)atomic64_read(&hc->bad_reads));
		return 1;
	}
	if (argc < 2 || argc > 3 || kstrtoull(argv[1], 10, &sector) ||
	    (argc == 3 && kstrtoull(argv[2], 10, &count)) || !count ||
	    sector >= ti->len || count > ti->len - sector ||
	    count > BB_MAX_LEN)
		return -EINVAL;
	if (!strcasecmp(argv[0], "addbadblock"))
		return badblocks_set(&hc->bad, sector, count, 1) ? -ENOSPC : 0;
	if (!strcasecmp(argv[0], "removebadblock")) {
		badblocks_clear(&hc->bad, sector, count);
		return 0;
	}
	return -EINVAL;
}

/*
 * Messages: "reset_counters" zeroes the status counters; the media error
 * messages of hddsim_media_message(). -EINVAL else.
 */
static int hddsim_message(struct dm_target *ti, unsigned int argc, char **argv,
			  char *result, unsigned int maxlen)
{
	struct hddsim_c *hc = ti->private;
	int r;

	if (argc == 1 && !strcasecmp(argv[0], "reset_counters")) {
		spin_lock(&hc->lock);
		memset(&hc->stats, 0, sizeof(hc->stats));
		spin_unlock(&hc->lock);
		atomic64_set(&hc->late, 0);
		atomic64_set(&hc->late_ns, 0);
		return 0;
	}
	r = hddsim_media_message(hc, ti, argc, argv, result, maxlen);
	if (r == -EINVAL)
		DMWARN("unrecognised message");
	return r;
}

/* The one underlying device, from @offset for the target's length. */
static int hddsim_iterate_devices(struct dm_target *ti,
				  iterate_devices_callout_fn fn, void *data)
{
	struct hddsim_c *hc = ti->private;

	return fn(ti, hc->dev, hc->offset, ti->len, data);
}

static struct target_type hddsim_target = {
	.name = "hddsim",
	.version = { 1, 1, 0 },
	.module = THIS_MODULE,
	.ctr = hddsim_ctr,
	.dtr = hddsim_dtr,
	.map = hddsim_map,
	.end_io = hddsim_end_io,
	.status = hddsim_status,
	.message = hddsim_message,
	.iterate_devices = hddsim_iterate_devices,
};

static int __init dm_hddsim_init(void)
{
	return dm_register_target(&hddsim_target);
}

static void __exit dm_hddsim_exit(void)
{
	dm_unregister_target(&hddsim_target);
}

module_init(dm_hddsim_init);
module_exit(dm_hddsim_exit);

MODULE_DESCRIPTION(DM_NAME " emulated mechanical disk (timing)");
MODULE_AUTHOR("dm-raidlab project");
MODULE_LICENSE("GPL");
