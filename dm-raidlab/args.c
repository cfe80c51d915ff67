// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab table-line parsing. Pure: nothing here opens a device, so the
 * grammar can be tested on its own.
 *
 * <scheme> <#opt_args> [<opt_args>...] <#devs> <dev_path>...
 *
 *   <scheme>        raid0 | mirror | raid4 | raid5 | raid6 | plog
 *   <#opt_args>     number of words that follow as optional arguments, 0 .. 39
 *   <opt_args>      any of, each at most once (spare: up to 4 times):
 *                     chunk_size <sectors>    power of two, 8 .. 2^21
 *                                             (parity schemes: .. 2048)
 *                     assume_clean            redundancy is consistent
 *                                             already: no resync (not
 *                                             raid0)
 *                     start_dirty_degraded    start a parity array that is
 *                                             both dirty and degraded
 *                                             without a journal (refused
 *                                             otherwise: its dirty rows
 *                                             cannot be trusted)
 *                     stripe_cache <nr>       stripe contexts, 4 .. 4096
 *                                             (parity schemes only; the
 *                                             default fits 16 MiB of
 *                                             buffers, 4 .. 32)
 *                     sched <policy>          member queue policy: fifo
 *                                             (default), look, rlook, satf,
 *                                             rsatf (sched.h)
 *                     queue_depth <nr>        member I/Os issued at once
 *                                             per member, 1 .. 1024
 *                                             (default 32)
 *                     journal on|off          write-hole journal in the
 *                                             metadata (journal.h; parity
 *                                             schemes with a metadata
 *                                             device; default: on when
 *                                             the metadata is DAX)
 *                     metadata <dev>          metadata device (metadata.h):
 *                                             members keep a superblock and
 *                                             their data starts at 1 MiB
 *                     spare <dev>             a hot spare (needs metadata)
 *                     region_size <sectors>   write-intent region, power of
 *                                             two, >= chunk_size (needs
 *                                             metadata; default: at most
 *                                             65536 regions)
 *                   plog only (plog.h; each refused for other schemes):
 *                     log_disks <L>           log members per region,
 *                                             1 .. members - 2 (default:
 *                                             the paper's balance rule)
 *                     log_ratio <A>           log to parity size, a
 *                                             decimal with up to three
 *                                             places, 0.001 .. 64
 *                                             (default 1)
 *                     log_tracks <K>          tracks per log write, 1 .. 64
 *                     track_sectors <n>       sectors a track, 8 .. 8192
 *                                             (K * n <= 8192)
 *                     regions <B>             parity-log regions, 1 .. 65536
 *                                             (default: sqrt(tracks / K))
 *                     log_buffers <n>         log buffers in the pool,
 *                                             2 .. 1024 (default: one per
 *                                             region, 16 .. 128)
 *                     data_cache <blocks>     4 KiB blocks of recently
 *                                             written data, 0 .. 65536
 *                                             (default 256; 0: none)
 *                     faults <f>              failures tolerated, 1
 *                                             (parity, default) or 2 (P+Q
 *                                             check information, the log
 *                                             replicated twice)
 *                   the memory they ask for together (log buffers, data
 *                   cache, the workspaces the region size scales) is
 *                   checked against a 512 MiB budget at load (plog.c,
 *                   plog_mem_check())
 *   <#devs>         number of member devices
 *   <dev_path>      member device, or "-" for a missing one: it starts
 *                   failed (not raid0, and no more of them than the scheme
 *                   survives: one for raid4/raid5 and plog, two for
 *                   raid6 and plog with faults 2)
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "plog.h"
#include "raidlab.h"

static const struct rl_scheme_ops *const rl_schemes[] = {
	&rl_raid0_ops,
	&rl_mirror_ops,
	&rl_raid4_ops,
	&rl_raid5_ops,
	&rl_raid6_ops,
	&rl_plog_ops,
};

const struct rl_scheme_ops *rl_scheme_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rl_schemes); i++)
		if (!strcmp(rl_schemes[i]->name, name))
			return rl_schemes[i];
	return NULL;
}

/**
 * rl_parse_log_ratio() - parse a decimal with up to three places
 * @s: the word, e.g. "1", "0.5", "2.25"
 * @milli: result, in thousandths
 *
 * Return: 0, or -EINVAL for anything else (signs, exponents, more than
 * three places, no digits, zero, more than RL_PLOG_MAX_RATIO).
 */
int rl_parse_log_ratio(const char *s, unsigned int *milli)
{
	unsigned int whole = 0, frac = 0, places = 0, digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		whole = whole * 10 + (*s - '0');
		if (whole > RL_PLOG_MAX_RATIO / 1000)
			return -EINVAL;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, places++) {
			if (places == 3)
				return -EINVAL;
			frac = frac * 10 + (*s - '0');
		}
		if (!places)
			return -EINVAL;
	}
	if (*s || !digits)
		return -EINVAL;
	while (places++ < 3)
		frac *= 10;
	*milli = whole * 1000 + frac;
	if (!*milli || *milli > RL_PLOG_MAX_RATIO)
		return -EINVAL;
	return 0;
}

/* The plog scheme's options: a table, each with its own refusal. */
struct rl_plog_opt {
	const char *name;
	struct dm_arg range;
	size_t offset;			/* in struct rl_plog_opts */
	const char *dup;
	const char *refused;		/* for other schemes */
};

#define RL_PLOG_OPT(n, lo, hi)						\
	{ #n, { lo, hi, "Invalid " #n }, offsetof(struct rl_plog_opts, n), \
	  "Duplicate " #n, #n " needs the plog scheme" }

static const struct rl_plog_opt rl_plog_opt_table[] = {
	RL_PLOG_OPT(log_disks, 1, RL_MAX_MEMBERS - 2),
	RL_PLOG_OPT(log_ratio, 1, RL_PLOG_MAX_RATIO),
	RL_PLOG_OPT(log_tracks, 1, RL_PLOG_MAX_K),
	RL_PLOG_OPT(track_sectors, 8, RL_PLOG_MAX_SEG),
	RL_PLOG_OPT(regions, 1, RL_PLOG_MAX_REGIONS),
	RL_PLOG_OPT(log_buffers, 2, RL_PLOG_MAX_BUFFERS),
	RL_PLOG_OPT(data_cache, 0, RL_PLOG_MAX_CACHE),
	RL_PLOG_OPT(faults, 1, 2),
};

/* Returns 1 if @key is not a plog option. */
static int rl_parse_plog_opt(const char *key, struct dm_arg_set *as,
			     struct rl_args *args, char **error)
{
	const struct rl_plog_opt *o;
	unsigned int i, *val;

	for (i = 0; i < ARRAY_SIZE(rl_plog_opt_table); i++)
		if (!strcasecmp(key, rl_plog_opt_table[i].name))
			break;
	if (i == ARRAY_SIZE(rl_plog_opt_table))
		return 1;
	o = &rl_plog_opt_table[i];
	if (args->ops != &rl_plog_ops) {
		*error = (char *)o->refused;
		return -EINVAL;
	}
	if (args->plog.given & BIT(i)) {
		*error = (char *)o->dup;
		return -EINVAL;
	}
	args->plog.given |= BIT(i);
	val = (void *)&args->plog + o->offset;
	if (val == &args->plog.log_ratio) {
		if (rl_parse_log_ratio(dm_shift_arg(as), val)) {
			*error = "Invalid log_ratio: a decimal such as 1, 0.5 or 2.25, at most 64";
			return -EINVAL;
		}
		return 0;
	}
	return dm_read_arg(&o->range, as, val, error) ? -EINVAL : 0;
}

static int rl_parse_opt(struct dm_arg_set *as, struct rl_args *args,
			char **error)
{
	static const struct dm_arg chunk_arg = {
		RL_MIN_CHUNK, RL_MAX_CHUNK, "Invalid chunk_size"
	};
	static const struct dm_arg stripes_arg = {
		4, RL_MAX_STRIPES, "Invalid stripe_cache"
	};
	static const struct dm_arg depth_arg = {
		1, RL_MAX_QUEUE_DEPTH, "Invalid queue_depth"
	};
	static const struct dm_arg region_arg = {
		RL_MIN_CHUNK, 1U << 31, "Invalid region_size"
	};
	const char *key = dm_shift_arg(as);
	int r;

	if (!strcasecmp(key, "assume_clean")) {
		if (args->assume_clean) {
			*error = "Duplicate assume_clean";
			return -EINVAL;
		}
		args->assume_clean = true;
		return 0;
	}
	if (!strcasecmp(key, "start_dirty_degraded")) {
		if (args->start_dirty_degraded) {
			*error = "Duplicate start_dirty_degraded";
			return -EINVAL;
		}
		args->start_dirty_degraded = true;
		return 0;
	}

	if (!as->argc) {
		*error = "Optional argument lacks a value";
		return -EINVAL;
	}

	r = rl_parse_plog_opt(key, as, args, error);
	if (r <= 0)
		return r;

	if (!strcasecmp(key, "chunk_size")) {
		if (args->chunk_set) {
			*error = "Duplicate chunk_size";
			return -EINVAL;
		}
		if (dm_read_arg(&chunk_arg, as, &args->chunk_sectors, error))
			return -EINVAL;
		if (!is_power_of_2(args->chunk_sectors)) {
			*error = "chunk_size is not a power of two";
			return -EINVAL;
		}
		args->chunk_set = true;
		return 0;
	}

	if (!strcasecmp(key, "sched")) {
		if (args->policy) {
			*error = "Duplicate sched";
			return -EINVAL;
		}
		args->policy = rl_sched_find(dm_shift_arg(as));
		if (!args->policy) {
			*error = "Unknown sched policy";
			return -EINVAL;
		}
		return 0;
	}

	if (!strcasecmp(key, "queue_depth")) {
		if (args->depth_set) {
			*error = "Duplicate queue_depth";
			return -EINVAL;
		}
		if (dm_read_arg(&depth_arg, as, &args->queue_depth, error))
			return -EINVAL;
		args->depth_set = true;
		return 0;
	}

	if (!strcasecmp(key, "journal")) {
		if (args->journal != RL_JNL_AUTO) {
			*error = "Duplicate journal";
			return -EINVAL;
		}
		key = dm_shift_arg(as);
		if (!strcasecmp(key, "on")) {
			args->journal = RL_JNL_ON;
		} else if (!strcasecmp(key, "off")) {
			args->journal = RL_JNL_OFF;
		} else {
			*error = "Invalid journal";
			return -EINVAL;
		}
		return 0;
	}

	if (!strcasecmp(key, "stripe_cache")) {
		if (args->stripes_set) {
			*error = "Duplicate stripe_cache";
			return -EINVAL;
		}
		if (dm_read_arg(&stripes_arg, as, &args->stripe_cache, error))
			return -EINVAL;
		args->stripes_set = true;
		return 0;
	}

	if (!strcasecmp(key, "metadata")) {
		if (args->md_dev) {
			*error = "Duplicate metadata";
			return -EINVAL;
		}
		args->md_dev = dm_shift_arg(as);
		return 0;
	}

	if (!strcasecmp(key, "spare")) {
		if (args->nr_spares == RL_MAX_SPARES) {
			*error = "Too many spares";
			return -EINVAL;
		}
		args->spares[args->nr_spares++] = dm_shift_arg(as);
		return 0;
	}

	if (!strcasecmp(key, "region_size")) {
		if (args->region_sectors) {
			*error = "Duplicate region_size";
			return -EINVAL;
		}
		if (dm_read_arg(&region_arg, as, &args->region_sectors, error))
			return -EINVAL;
		if (!is_power_of_2(args->region_sectors)) {
			*error = "region_size is not a power of two";
			return -EINVAL;
		}
		return 0;
	}

	*error = "Unknown optional argument";
	return -EINVAL;
}

/* The members and metadata options together. */
static int rl_check_devs(struct rl_args *args, char **error)
{
	unsigned int i, red;

	if (!args->md_dev && args->nr_spares) {
		*error = "spare needs a metadata device";
		return -EINVAL;
	}
	if (!args->md_dev && args->region_sectors) {
		*error = "region_size needs a metadata device";
		return -EINVAL;
	}
	if (args->region_sectors && args->region_sectors < args->chunk_sectors) {
		*error = "region_size smaller than chunk_size";
		return -EINVAL;
	}
	if ((args->md_dev && !strcmp(args->md_dev, "-"))) {
		*error = "The metadata device cannot be missing";
		return -EINVAL;
	}
	for (i = 0; i < args->nr_spares; i++) {
		if (!strcmp(args->spares[i], "-")) {
			*error = "A spare cannot be missing";
			return -EINVAL;
		}
	}
	for (i = 0; i < args->nr_devs; i++)
		if (!strcmp(args->devs[i], "-"))
			args->nr_missing++;
	if (!args->nr_missing)
		return 0;
	if (!args->ops->redundancy) {
		*error = "A missing member needs a redundant scheme";
		return -EINVAL;
	}
	/* plog survives as many failures as its faults option says */
	red = args->ops == &rl_plog_ops ? max(args->plog.faults, 1U) :
	      args->ops->redundancy;
	if (args->nr_missing > min(red, args->nr_devs - 1)) {
		*error = "More members missing than the scheme survives";
		return -EINVAL;
	}
	return 0;
}

/**
 * rl_parse_args() - parse a raidlab table line (without start and length)
 * @argc: number of words
 * @argv: the words; @args->devs points into it afterwards
 * @args: result
 * @error: set to a message for ti->error on failure
 *
 * Return: 0 or -EINVAL.
 */
int rl_parse_args(unsigned int argc, char **argv, struct rl_args *args,
		  char **error)
{
	static const struct dm_arg opt_args = {
		0, 15 + 2 * ARRAY_SIZE(rl_plog_opt_table) + 2 * RL_MAX_SPARES,
		"Invalid number of optional arguments"
	};
	static const struct dm_arg devs_arg = {
		1, RL_MAX_MEMBERS, "Invalid number of devices"
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	struct dm_arg_set opts;
	unsigned int nr_opt;
	const char *name;
	int r;

	memset(args, 0, sizeof(*args));
	args->chunk_sectors = RL_DEFAULT_CHUNK;
	args->queue_depth = RL_DEFAULT_QUEUE_DEPTH;
	args->plog.data_cache = RL_PLOG_DEF_CACHE;

	if (argc < 3) {
		*error = "Not enough arguments";
		return -EINVAL;
	}

	name = dm_shift_arg(&as);
	args->ops = rl_scheme_find(name);
	if (!args->ops) {
		*error = "Unknown scheme";
		return -EINVAL;
	}

	if (dm_read_arg_group(&opt_args, &as, &nr_opt, error))
		return -EINVAL;
	opts.argc = nr_opt;
	opts.argv = as.argv;
	while (opts.argc) {
		r = rl_parse_opt(&opts, args, error);
		if (r)
			return r;
	}
	dm_consume_args(&as, nr_opt);

	if (args->ops->parity && args->chunk_sectors > RL_MAX_PARITY_CHUNK) {
		*error = "chunk_size too large for a parity scheme";
		return -EINVAL;
	}
	/* stripe buffers are whole pages */
	if (args->ops->parity &&
	    ((size_t)args->chunk_sectors << SECTOR_SHIFT) < PAGE_SIZE) {
		*error = "chunk_size smaller than a page for a parity scheme";
		return -EINVAL;
	}
	if (args->ops == &rl_plog_ops && args->stripes_set) {
		*error = "stripe_cache is not a plog option";
		return -EINVAL;
	}
	if ((u64)args->plog.log_tracks * (args->plog.track_sectors ?: RL_PLOG_DEF_TRACK) >
	    RL_PLOG_MAX_SEG) {
		*error = "log_tracks * track_sectors exceeds a log write (8192 sectors)";
		return -EINVAL;
	}
	if (!args->ops->parity && args->stripes_set) {
		*error = "stripe_cache needs a parity scheme";
		return -EINVAL;
	}
	if (!args->ops->redundancy && args->assume_clean) {
		*error = "assume_clean needs a redundant scheme";
		return -EINVAL;
	}

	if (!args->ops->parity && args->journal != RL_JNL_AUTO) {
		*error = "journal needs a parity scheme";
		return -EINVAL;
	}
	if (!args->md_dev && args->journal != RL_JNL_AUTO) {
		*error = "journal needs a metadata device";
		return -EINVAL;
	}

	if (!args->policy)
		args->policy = &rl_sched_fifo;

	if (dm_read_arg_group(&devs_arg, &as, &args->nr_devs, error))
		return -EINVAL;
	if (as.argc != args->nr_devs) {
		*error = "Device count does not match the devices given";
		return -EINVAL;
	}
	if (args->nr_devs < args->ops->min_members) {
		*error = "Too few devices for the scheme";
		return -EINVAL;
	}
	args->devs = as.argv;
	return rl_check_devs(args, error);
}

/**
 * rl_check_length() - check the target length against the members
 * @ops: scheme
 * @g: geometry (nr_members and chunk_shift are used)
 * @target_len: ti->len
 * @member_sectors: usable sectors of the smallest member
 * @error: set to a message for ti->error on failure
 *
 * The length must fit on the members and, for striped schemes, be a whole
 * number of rows.
 *
 * Return: 0 or -EINVAL.
 */
int rl_check_length(const struct rl_scheme_ops *ops, const struct rl_geom *g,
		    sector_t target_len, sector_t member_sectors, char **error)
{
	u64 row = (u64)ops->data_columns(g->nr_members) << g->chunk_shift;
	u64 rows = member_sectors >> g->chunk_shift;
	u64 capacity;

	if (ops->data_columns(g->nr_members) == 1) {
		/* mirror: any length that fits */
		capacity = member_sectors;
		row = 1;
	} else {
		capacity = rows * row;
	}

	if (!target_len) {
		*error = "Zero target length";
		return -EINVAL;
	}
	if (target_len > capacity) {
		*error = "Target length exceeds the members' capacity";
		return -EINVAL;
	}
	if (do_div(target_len, row)) {
		*error = "Target length is not a multiple of the stripe width";
		return -EINVAL;
	}
	return 0;
}
