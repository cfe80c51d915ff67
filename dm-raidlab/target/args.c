// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab table-line parsing. Pure: nothing here opens a device, so the
 * grammar can be tested on its own.
 *
 * <scheme> <#opt_args> [<opt_args>...] <#devs> <dev_path>...
 *
 *   <scheme>        raid0 | mirror | raid10 | chained | sr | altmirror |
 *                   raid4 | raid5 | raid6 | plog
 *   <#opt_args>     number of words that follow as optional arguments, 0 .. 41
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
 *                     homehost <name>         the host the array belongs
 *                                             to, recorded in the metadata
 *                                             (needs it; 1 .. 63 of
 *                                             A-Za-z0-9._-)
 *                   and the scheme's own (->opts), each refused for
 *                   the other schemes: raid10's in raid10.c, plog's in
 *                   plog.c, altmirror's in altmirror/altmirror.c (a
 *                   scheme option may be a flag, with no value)
 *   <#devs>         number of member devices
 *   <dev_path>      member device, or "-" for a missing one: it starts
 *                   failed (not raid0, and no more of them than the scheme
 *                   survives: one for raid4/raid5, chained and plog,
 *                   two for raid6 and plog with faults 2, copies - 1
 *                   for raid10; chained and raid10 survive more where
 *                   no chunk loses every copy)
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "../raidlab.h"
#include "../svc/metadata.h"

static const struct rl_scheme_ops *const rl_schemes[] = {
	&rl_raid0_ops,
	&rl_mirror_ops,
	&rl_raid10_ops,
	&rl_chained_ops,
	&rl_sr_ops,
	&rl_altmirror_ops,
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

/* ------------------------------------------------------------------------
 * The generic options: a table, each with its parser (dm-flakey's idiom)
 */

struct rl_gopt {
	const char *name;
	const char *dup;		/* "Duplicate <name>" */
	bool flag;			/* no value follows */
	bool repeats;			/* may be given more than once */
	int (*parse)(struct dm_arg_set *as, struct rl_args *args,
		     char **error);
};

static int rl_opt_assume_clean(struct dm_arg_set *as, struct rl_args *args,
			       char **error)
{
	args->assume_clean = true;
	return 0;
}

static int rl_opt_dirty_degraded(struct dm_arg_set *as, struct rl_args *args,
				 char **error)
{
	args->start_dirty_degraded = true;
	return 0;
}

/* A power of two in @arg's range. */
static int rl_read_pow2(const struct dm_arg *arg, struct dm_arg_set *as,
			unsigned int *val, const char *not_pow2, char **error)
{
	if (dm_read_arg(arg, as, val, error))
		return -EINVAL;
	if (!is_power_of_2(*val)) {
		*error = (char *)not_pow2;
		return -EINVAL;
	}
	return 0;
}

static int rl_opt_chunk(struct dm_arg_set *as, struct rl_args *args,
			char **error)
{
	static const struct dm_arg arg = {
		RL_MIN_CHUNK, RL_MAX_CHUNK, "Invalid chunk_size"
	};

	args->chunk_set = true;
	return rl_read_pow2(&arg, as, &args->chunk_sectors,
			    "chunk_size is not a power of two", error);
}

static int rl_opt_region(struct dm_arg_set *as, struct rl_args *args,
			 char **error)
{
	static const struct dm_arg arg = {
		RL_MIN_CHUNK, 1U << 31, "Invalid region_size"
	};

	return rl_read_pow2(&arg, as, &args->region_sectors,
			    "region_size is not a power of two", error);
}

static int rl_opt_stripes(struct dm_arg_set *as, struct rl_args *args,
			  char **error)
{
	static const struct dm_arg arg = {
		4, RL_MAX_STRIPES, "Invalid stripe_cache"
	};

	args->stripes_set = true;
	return dm_read_arg(&arg, as, &args->stripe_cache, error) ? -EINVAL : 0;
}

static int rl_opt_depth(struct dm_arg_set *as, struct rl_args *args,
			char **error)
{
	static const struct dm_arg arg = {
		1, RL_MAX_QUEUE_DEPTH, "Invalid queue_depth"
	};

	args->depth_set = true;
	return dm_read_arg(&arg, as, &args->queue_depth, error) ? -EINVAL : 0;
}

static int rl_opt_sched(struct dm_arg_set *as, struct rl_args *args,
			char **error)
{
	args->policy = rl_sched_find(dm_shift_arg(as));
	if (!args->policy) {
		*error = "Unknown sched policy";
		return -EINVAL;
	}
	return 0;
}

static int rl_opt_journal(struct dm_arg_set *as, struct rl_args *args,
			  char **error)
{
	const char *word = dm_shift_arg(as);

	if (!strcasecmp(word, "on")) {
		args->journal = RL_JNL_ON;
	} else if (!strcasecmp(word, "off")) {
		args->journal = RL_JNL_OFF;
	} else {
		*error = "Invalid journal";
		return -EINVAL;
	}
	return 0;
}

static int rl_opt_metadata(struct dm_arg_set *as, struct rl_args *args,
			   char **error)
{
	args->md_dev = dm_shift_arg(as);
	return 0;
}

static int rl_opt_homehost(struct dm_arg_set *as, struct rl_args *args,
			   char **error)
{
	args->homehost = dm_shift_arg(as);
	if (!rl_md_homehost_ok(args->homehost)) {
		*error = "Invalid homehost (1 to 63 of A-Z a-z 0-9 . _ -)";
		return -EINVAL;
	}
	return 0;
}

static int rl_opt_spare(struct dm_arg_set *as, struct rl_args *args,
			char **error)
{
	if (args->nr_spares == RL_MAX_SPARES) {
		*error = "Too many spares";
		return -EINVAL;
	}
	args->spares[args->nr_spares++] = dm_shift_arg(as);
	return 0;
}

#define RL_GOPT(n, fn, ...) \
	{ .name = #n, .dup = "Duplicate " #n, .parse = fn, __VA_ARGS__ }

static const struct rl_gopt rl_gopts[] = {
	RL_GOPT(assume_clean, rl_opt_assume_clean, .flag = true),
	RL_GOPT(start_dirty_degraded, rl_opt_dirty_degraded, .flag = true),
	RL_GOPT(chunk_size, rl_opt_chunk),
	RL_GOPT(sched, rl_opt_sched),
	RL_GOPT(queue_depth, rl_opt_depth),
	RL_GOPT(journal, rl_opt_journal),
	RL_GOPT(stripe_cache, rl_opt_stripes),
	RL_GOPT(metadata, rl_opt_metadata),
	RL_GOPT(spare, rl_opt_spare, .repeats = true),
	RL_GOPT(region_size, rl_opt_region),
	RL_GOPT(homehost, rl_opt_homehost),
};

/* Words the optional arguments may take (the grammar above: 41). */
#define RL_MAX_OPT_WORDS	(17 + 2 * RL_MAX_SCHEME_OPTS + 2 * RL_MAX_SPARES)

/* The index of @key in @ops' own options, or -1. */
static int rl_sopt_index(const struct rl_scheme_ops *ops, const char *key)
{
	unsigned int i;

	for (i = 0; i < ops->nr_opts; i++)
		if (!strcasecmp(key, ops->opts[i].name))
			return i;
	return -1;
}

/*
 * Whether @key is a scheme option with no value (a flag): any scheme's,
 * so that another scheme's line is refused by name, not for a value.
 */
static bool rl_sopt_flag(const char *key)
{
	unsigned int s;
	int i;

	for (s = 0; s < ARRAY_SIZE(rl_schemes); s++) {
		i = rl_sopt_index(rl_schemes[s], key);
		if (i >= 0 && rl_schemes[s]->opts[i].flag)
			return true;
	}
	return false;
}

/* One of the scheme's own options, or another scheme's (refused). */
static int rl_parse_sopt(const char *key, struct dm_arg_set *as,
			 struct rl_args *args, char **error)
{
	const struct rl_opt *o;
	const char *word;
	unsigned int s;
	int i = rl_sopt_index(args->ops, key);

	if (i < 0) {
		*error = "Unknown optional argument";
		for (s = 0; s < ARRAY_SIZE(rl_schemes); s++) {
			i = rl_sopt_index(rl_schemes[s], key);
			if (i >= 0)
				*error = (char *)rl_schemes[s]->opts[i].refused;
		}
		return -EINVAL;
	}
	o = &args->ops->opts[i];
	if (args->sopt_given & BIT(i)) {
		*error = (char *)o->dup;
		return -EINVAL;
	}
	args->sopt_given |= BIT(i);
	if (o->flag) {
		args->sopt[i] = 1;
		return 0;
	}
	if (!o->parse)
		return dm_read_arg(&o->range, as, &args->sopt[i], error) ?
		       -EINVAL : 0;
	word = dm_shift_arg(as);
	if (o->parse(word, &args->sopt[i])) {
		*error = (char *)o->invalid;
		return -EINVAL;
	}
	if (o->word)
		args->sopt_word[i] = word;
	return 0;
}

static int rl_parse_opt(struct dm_arg_set *as, struct rl_args *args,
			unsigned long *given, char **error)
{
	const char *key = dm_shift_arg(as);
	const struct rl_gopt *o = NULL;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rl_gopts) && !o; i++)
		if (!strcasecmp(key, rl_gopts[i].name))
			o = &rl_gopts[i];
	if (!(o ? o->flag : rl_sopt_flag(key)) && !as->argc) {
		*error = "Optional argument lacks a value";
		return -EINVAL;
	}
	if (!o)
		return rl_parse_sopt(key, as, args, error);
	i = o - rl_gopts;
	if ((*given & BIT(i)) && !o->repeats) {
		*error = (char *)o->dup;
		return -EINVAL;
	}
	*given |= BIT(i);
	return o->parse(as, args, error);
}

/**
 * rl_args_redundancy() - member failures the array survives
 * @args: a parsed line
 *
 * The scheme's ->redundancy, or what its options make it
 * (->redundancy_of), capped at members - 1.
 *
 * Return: the count.
 */
unsigned int rl_args_redundancy(const struct rl_args *args)
{
	unsigned int red = args->ops->redundancy_of ?
			   args->ops->redundancy_of(args) :
			   args->ops->redundancy;

	return min(red, args->nr_devs - 1);
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
	if (!args->md_dev && args->homehost) {
		*error = "homehost needs a metadata device";
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
	/* a scheme that may survive more says so once built (core.c) */
	red = args->ops->survives ? args->nr_devs - 1 : rl_args_redundancy(args);
	if (args->nr_missing > red) {
		*error = "More members missing than the scheme survives";
		return -EINVAL;
	}
	return 0;
}

/* The options against the scheme and each other, once all are parsed. */
static int rl_check_opts(struct rl_args *args, char **error)
{
	const struct rl_scheme_ops *ops = args->ops;

	if (ops->parity && args->chunk_sectors > RL_MAX_PARITY_CHUNK) {
		*error = "chunk_size too large for a parity scheme";
		return -EINVAL;
	}
	/* stripe buffers are whole pages */
	if (ops->parity &&
	    ((size_t)args->chunk_sectors << SECTOR_SHIFT) < PAGE_SIZE) {
		*error = "chunk_size smaller than a page for a parity scheme";
		return -EINVAL;
	}
	if (ops->check_args && ops->check_args(args, error))
		return -EINVAL;
	if (!ops->parity && args->stripes_set) {
		*error = "stripe_cache needs a parity scheme";
		return -EINVAL;
	}
	if (!ops->redundancy && args->assume_clean) {
		*error = "assume_clean needs a redundant scheme";
		return -EINVAL;
	}
	if (!ops->parity && args->journal != RL_JNL_AUTO) {
		*error = "journal needs a parity scheme";
		return -EINVAL;
	}
	if (!args->md_dev && args->journal != RL_JNL_AUTO) {
		*error = "journal needs a metadata device";
		return -EINVAL;
	}
	return 0;
}

/* The <#opt_args> group: the generic options and the scheme's. */
static int rl_parse_opts(struct dm_arg_set *as, struct rl_args *args,
			 char **error)
{
	static const struct dm_arg opt_args = {
		0, RL_MAX_OPT_WORDS, "Invalid number of optional arguments"
	};
	struct dm_arg_set opts;
	unsigned long given = 0;
	unsigned int i, nr_opt;
	int r;

	for (i = 0; i < args->ops->nr_opts; i++)
		args->sopt[i] = args->ops->opts[i].def;
	if (dm_read_arg_group(&opt_args, as, &nr_opt, error))
		return -EINVAL;
	opts.argc = nr_opt;
	opts.argv = as->argv;
	while (opts.argc) {
		r = rl_parse_opt(&opts, args, &given, error);
		if (r)
			return r;
	}
	dm_consume_args(as, nr_opt);
	if (!args->policy)
		args->policy = &rl_sched_fifo;
	return rl_check_opts(args, error);
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
	static const struct dm_arg devs_arg = {
		1, RL_MAX_MEMBERS, "Invalid number of devices"
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	int r;

	memset(args, 0, sizeof(*args));
	args->chunk_sectors = RL_DEFAULT_CHUNK;
	args->queue_depth = RL_DEFAULT_QUEUE_DEPTH;

	if (argc < 3) {
		*error = "Not enough arguments";
		return -EINVAL;
	}
	args->ops = rl_scheme_find(dm_shift_arg(&as));
	if (!args->ops) {
		*error = "Unknown scheme";
		return -EINVAL;
	}
	r = rl_parse_opts(&as, args, error);
	if (r)
		return r;

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
