// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab altmirror: alternating deferred-update mirrors (Polyzois,
 * Bhide and Dias, "Disk Mirroring with Alternating Deferred Updates",
 * paper 003). Two members hold every block at the same offset. A write
 * is acknowledged once it is durable in the pool, on the DAX metadata
 * device (am.h); each disk installs the blocks pending for it in sorted
 * batches, the two disks taking turns half a cycle apart, and a read
 * goes to the pool when its block's newest version is there, else to a
 * disk that is not writing (am_cycle.c). So a read never waits behind a
 * write, and the writes are installed in physical order.
 *
 * Table options, after the generic ones:
 *
 *   mem_fraction <percent>   the pool, as a share of a member: 0.01 to
 *                            100, two decimals (default 1, the paper's);
 *                            a batch is half of it
 *   volatile                 the pool in memory, for benchmarks: a
 *                            flush (and a FUA write) waits until every
 *                            write before it is on both disks, and the
 *                            write-intent bitmap covers a block from its
 *                            first install to its last; without it the
 *                            metadata device must be DAX
 *   overlap never|allow      may a disk start its batch while the other
 *                            writes (default never)
 *   overlap_reads serve|defer  a read while both write: served by the
 *                            disk whose head is nearest, or held until
 *                            one ends its batch (default serve)
 *   cycle_min <ms>           the cycle T's bounds: T is the time the
 *   cycle_max <ms>           write rate takes to fill a batch (defaults
 *                            100 and 30000)
 *   single through|batch     with one disk left: install at once (the
 *                            default), or in batches every T (paper
 *                            003 section 5's single-disk baseline)
 *
 * Blocks are 4 KiB: the logical block size, and every bio is one block
 * (max_io_len). Discards are refused. With a DAX pool the device has no
 * volatile cache (flushes never reach it).
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "../../svc/layout.h"
#include "am_int.h"

/* "1", "0.5", "12.25": hundredths of a percent. */
static int am_parse_fraction(const char *word, unsigned int *val)
{
	unsigned int whole = 0, frac = 0, digits = 0;
	const char *p = word;

	if (!*p)
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (*p - '0');
		if (whole > 100)
			return -EINVAL;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (digits == 2)
				return -EINVAL;
			frac = frac * 10 + (*p - '0');
		}
		if (!digits)
			return -EINVAL;
		if (digits == 1)
			frac *= 10;
	}
	if (*p || p == word)
		return -EINVAL;
	*val = whole * 100 + frac;
	return *val && *val <= 10000 ? 0 : -EINVAL;
}

/* A value of two words: @w0 is 0, @w1 is 1. */
static int am_parse_two(const char *word, const char *w0, const char *w1,
			unsigned int *val)
{
	if (!strcasecmp(word, w0))
		*val = 0;
	else if (!strcasecmp(word, w1))
		*val = 1;
	else
		return -EINVAL;
	return 0;
}

static int am_parse_overlap(const char *word, unsigned int *val)
{
	return am_parse_two(word, "never", "allow", val);
}

static int am_parse_overlap_reads(const char *word, unsigned int *val)
{
	return am_parse_two(word, "serve", "defer", val);
}

static int am_parse_single(const char *word, unsigned int *val)
{
	return am_parse_two(word, "through", "batch", val);
}

/* In enum am_opt's order. */
static const struct rl_opt am_opts[AM_NR_OPTS] = {
	[AM_OPT_MEM_FRACTION] = RL_OPT("altmirror", mem_fraction, 0, 0,
		.def = AM_MEM_FRACTION_DEF, .parse = am_parse_fraction,
		.invalid = "Invalid mem_fraction: a percentage, 0.01 to 100"),
	/* spelled out: RL_OPT() would take the C keyword as its name */
	[AM_OPT_VOLATILE] = { .name = "volatile",
		.range = { 0, 1, "Invalid volatile" },
		.dup = "Duplicate volatile",
		.refused = "volatile needs the altmirror scheme",
		.flag = true },
	[AM_OPT_OVERLAP] = RL_OPT("altmirror", overlap, 0, 0, .def = 0,
		.parse = am_parse_overlap,
		.invalid = "Invalid overlap: never or allow"),
	[AM_OPT_OVERLAP_READS] = RL_OPT("altmirror", overlap_reads, 0, 0,
		.def = 0, .parse = am_parse_overlap_reads,
		.invalid = "Invalid overlap_reads: serve or defer"),
	[AM_OPT_CYCLE_MIN] = RL_OPT("altmirror", cycle_min, 1, 3600000,
		.def = AM_CYCLE_MIN_DEF),
	[AM_OPT_CYCLE_MAX] = RL_OPT("altmirror", cycle_max, 1, 3600000,
		.def = AM_CYCLE_MAX_DEF),
	[AM_OPT_SINGLE] = RL_OPT("altmirror", single, 0, 0, .def = 0,
		.parse = am_parse_single,
		.invalid = "Invalid single: through or batch"),
};

static int am_check_args(const struct rl_args *args, char **error)
{
	if (!args->md_dev) {
		*error = "altmirror needs a metadata device (its pool or bitmap)";
		return -EINVAL;
	}
	if (args->sopt[AM_OPT_CYCLE_MIN] > args->sopt[AM_OPT_CYCLE_MAX]) {
		*error = "altmirror: cycle_min is above cycle_max";
		return -EINVAL;
	}
	return 0;
}

/* Two members; whole 4 KiB blocks that fit on both. */
static int am_capacity(struct rl_array *a, sector_t len, char **error)
{
	if (a->geom.nr_members != RL_AM_DISKS) {
		*error = "altmirror needs two members";
		return -EINVAL;
	}
	if (len & ((1 << RL_AM_BLOCK_SHIFT) - 1)) {
		*error = "altmirror: the length is not a multiple of 4 KiB";
		return -EINVAL;
	}
	return rl_size_rows(a, 1, len, error);
}

static void am_locate(struct rl_array *a, sector_t lsector,
		      struct rl_locset *ls)
{
	sector_t msector = a->geom.data_offset + lsector;

	rl_locset_init(ls, a->ti->len - lsector, 0, 0);
	rl_locset_add(ls, 0, msector, RL_PART_DATA);
	rl_locset_add(ls, 1, msector, RL_PART_COPY);
}

static enum rl_part am_owner(struct rl_array *a, unsigned int member,
			     sector_t msector, sector_t *lsector)
{
	*lsector = msector - a->geom.data_offset;
	return member ? RL_PART_COPY : RL_PART_DATA;
}

static int am_ctr(struct rl_array *a)
{
	struct am *am = kzalloc(sizeof(*am), GFP_KERNEL);
	char **error = &a->ti->error;
	u64 nr;
	int r;

	if (!am) {
		*error = "altmirror: cannot allocate its state";
		return -ENOMEM;
	}
	a->scheme = am;
	am->a = a;
	am->vol = a->sopt[AM_OPT_VOLATILE];
	am->defer_reads = a->sopt[AM_OPT_OVERLAP_READS];
	am->nr_blocks = a->ti->len >> RL_AM_BLOCK_SHIFT;
	nr = div_u64(am->nr_blocks * a->sopt[AM_OPT_MEM_FRACTION], 10000);
	am->nr = clamp_t(u64, nr, AM_MIN_SLOTS, U32_MAX / 2);
	r = -EINVAL;
	if (!am->vol && strcmp(rl_md_backend(a->md), "dax")) {
		*error = "altmirror needs a DAX metadata device (or volatile)";
		goto bad;
	}
	r = am_pool_init(am, error) ?: am_cycle_init(am, error) ?:
	    am_rec_init(am, error);
	if (r)
		goto bad;
	r = dm_set_target_max_io_len(a->ti, 1 << RL_AM_BLOCK_SHIFT);
	if (r)
		goto bad;
	a->ti->num_flush_bios = am->vol ? 1 : 0;
	a->ti->num_discard_bios = 0;
	return 0;
bad:
	am_rec_free(am);
	am_cycle_free(am);
	am_pool_free(am);
	kfree(am);
	a->scheme = NULL;
	return r;
}

static void am_dtr(struct rl_array *a)
{
	struct am *am = am_of(a);

	am->rec.stuck = true;		/* no catch-up starts */
	rl_sync_flush_work(a);
	am_cycle_stop(am);
	am_rec_free(am);
	am_cycle_free(am);
	am_pool_free(am);
	kfree(am);
}

static int am_map(struct rl_array *a, struct bio *bio)
{
	struct am *am = am_of(a);
	sector_t lsector = rl_pb(bio)->lsector;

	if (bio_op(bio) != REQ_OP_READ && bio_op(bio) != REQ_OP_WRITE)
		return DM_MAPIO_KILL;
	if (bio_sectors(bio) != 1 << RL_AM_BLOCK_SHIFT ||
	    lsector & ((1 << RL_AM_BLOCK_SHIFT) - 1)) {
		DMERR_LIMIT("altmirror: an I/O that is not one 4 KiB block");
		return DM_MAPIO_KILL;
	}
	if (bio_op(bio) == REQ_OP_READ)
		return am_map_read(am, bio);
	if (!rl_array_alive(a))
		return DM_MAPIO_KILL;
	return am_write(am, bio);
}

/* Volatile only: a flush waits for every write before it on both disks. */
static int am_flush(struct rl_array *a, struct bio *bio)
{
	struct am *am = am_of(a);
	struct am_pb *pb = rl_pb_scheme(bio, sizeof(*pb));
	unsigned long flags;

	spin_lock_irqsave(&am->lock, flags);
	pb->seq = am->seq;
	bio_list_add(&am->flushes, bio);
	spin_unlock_irqrestore(&am->lock, flags);
	am_kick(am);
	am_kick_cycle(am);
	return DM_MAPIO_SUBMITTED;
}

/*
 * A read that failed on its member is rewritten from the other disk (a bad
 * sector is no reason to drop a disk), or, past the member's read errors,
 * the member fails and the read goes to the other disk.
 */
static int am_end_io(struct rl_array *a, struct bio *bio, blk_status_t *error)
{
	struct am *am = am_of(a);
	struct rl_bio *pb = rl_pb(bio);
	struct bio_list *l = &am->retry;
	unsigned long flags;

	if (*error && bio_op(bio) == REQ_OP_READ &&
	    am_read_fixable(am, bio, *error)) {
		/* pb->dev stays: it names the disk that could not read */
		rl_member_done(a, pb->member, &pb->qe);
		rl_restore(bio);
		l = &am->fix;
	} else if (!rl_end_remapped(a, bio, *error)) {
		if (!*error && bio_op(bio) == REQ_OP_READ)
			am_rec_read_done(am, bio);
		return DM_ENDIO_DONE;
	}
	spin_lock_irqsave(&am->lock, flags);
	bio_list_add(l, bio);
	spin_unlock_irqrestore(&am->lock, flags);
	if (l == &am->fix)
		queue_work(a->wq, &am->fix_work);
	else
		am_kick(am);
	return DM_ENDIO_INCOMPLETE;
}

static int am_preresume(struct rl_array *a)
{
	struct am *am = am_of(a);
	int r = 0;

	if (!am->loaded && !am->vol)
		r = am_pool_load(am) ?: am_rec_load(am);
	am->loaded = !r;
	if (r)
		DMERR("altmirror: %s", a->ti->error);
	return r;
}

static void am_resume(struct rl_array *a)
{
	am_cycle_start(am_of(a));
}

static void am_postsuspend(struct rl_array *a)
{
	rl_sync_flush_work(a);		/* a catch-up (am_rec.c) */
	am_cycle_stop(am_of(a));
}

static void am_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	limits->logical_block_size = RL_AM_BLOCK;
	limits->physical_block_size = RL_AM_BLOCK;
	rl_limits_io(limits, RL_AM_BLOCK, limits->io_opt);
	limits->max_discard_sectors = 0;
	limits->discard_granularity = 0;
}

static char am_mode(struct am *am, unsigned int d)
{
	if (rl_member_failed(am->a, d))
		return 'D';
	return test_bit(d, &am->writing) ? 'W' : 'R';
}

/* A mean in tenths: "12.3". */
static void am_emit_mean(char *result, unsigned int maxlen, unsigned int *psz,
			 u64 sum, u64 n, u64 unit)
{
	unsigned int sz = *psz;
	u64 t = n ? div64_u64(sum * 10, n * unit) : 0;

	DMEMIT(" %llu.%llu", t / 10, t % 10);
	*psz = sz;
}

static void am_status_info(struct am *am, char *result, unsigned int maxlen,
			   unsigned int *psz)
{
	u64 batches = atomic64_read(&am->batches);
	unsigned int sz = *psz;
	u32 used, min_free;

	spin_lock_irq(&am->lock);
	used = am->nr - am->nr_free;
	min_free = am->min_free;
	spin_unlock_irq(&am->lock);
	DMEMIT(" %c%c %u/%u %u %llu %llu", am_mode(am, 0), am_mode(am, 1),
	       used, am->nr, min_free, atomic64_read(&am->waits), batches);
	am_emit_mean(result, maxlen, &sz, atomic64_read(&am->batch_blocks),
		     batches, 1);
	am_emit_mean(result, maxlen, &sz, atomic64_read(&am->install_ns),
		     batches, NSEC_PER_MSEC);
	DMEMIT(" %llu %llu %llu %s", READ_ONCE(am->cyc.overlaps),
	       atomic64_read(&am->hits),
	       div_u64(READ_ONCE(am->cyc.period), NSEC_PER_MSEC),
	       am->vol ? "volatile" : "pmem");
	am_rec_status(am, result, maxlen, &sz);
	*psz = sz;
}

static void am_status(struct rl_array *a, status_type_t type, char *result,
		      unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz, f = a->sopt[AM_OPT_MEM_FRACTION];

	if (type == STATUSTYPE_INFO) {
		am_status_info(am_of(a), result, maxlen, psz);
		return;
	}
	if (type != STATUSTYPE_TABLE)
		return;
	if (f != AM_MEM_FRACTION_DEF)
		DMEMIT(" mem_fraction %u.%02u", f / 100, f % 100);
	if (a->sopt[AM_OPT_VOLATILE])
		DMEMIT(" volatile");
	if (a->sopt[AM_OPT_OVERLAP])
		DMEMIT(" overlap allow");
	if (a->sopt[AM_OPT_OVERLAP_READS])
		DMEMIT(" overlap_reads defer");
	if (a->sopt[AM_OPT_CYCLE_MIN] != AM_CYCLE_MIN_DEF)
		DMEMIT(" cycle_min %u", a->sopt[AM_OPT_CYCLE_MIN]);
	if (a->sopt[AM_OPT_CYCLE_MAX] != AM_CYCLE_MAX_DEF)
		DMEMIT(" cycle_max %u", a->sopt[AM_OPT_CYCLE_MAX]);
	if (a->sopt[AM_OPT_SINGLE])
		DMEMIT(" single batch");
	*psz = sz;
}

const struct rl_scheme_ops rl_altmirror_ops = {
	.name = "altmirror",
	.per_bio_size = sizeof(struct am_pb),
	.min_members = RL_AM_DISKS,
	.redundancy = 1,
	.parity = false,
	.opts = am_opts,
	.nr_opts = AM_NR_OPTS,
	.check_args = am_check_args,
	.capacity = am_capacity,
	.locate = am_locate,
	.owner = am_owner,
	.ctr = am_ctr,
	.dtr = am_dtr,
	.map = am_map,
	.flush = am_flush,
	.end_io = am_end_io,
	.preresume = am_preresume,
	.resume = am_resume,
	.postsuspend = am_postsuspend,
	.io_hints = am_io_hints,
	.status = am_status,
	.sync_range = am_sync_range,
	.member_failed = am_member_failed,
	.get_work = am_rec_get_work,
	.do_work = am_rec_do_work,
};
