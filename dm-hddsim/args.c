// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-hddsim table-line parsing and presets. Pure: nothing here opens a
 * device, so the grammar is tested on its own (args_test.c).
 *
 * <dev_path> <offset> <preset> [<#opt_args> <opt_args>...]
 *
 *   <dev_path>    the underlying block device
 *   <offset>      first sector used on it
 *   <preset>      lightning | eagle | st39133 | modern7200 | custom
 *   <#opt_args>   number of words that follow, 0 .. 32
 *   <opt_args>    key/value pairs overriding the preset, each key at most
 *                 once (a _us and a _ns form of a key are the same key):
 *                   cylinders <n>          1 .. 2^24
 *                   heads <n>              1 .. 256
 *                   sectors <n>            per track, 1 .. 65535 (one zone)
 *                   zones <c>:<spt>[/<c>:<spt>...]
 *                                          zones by first cylinder, the
 *                                          first at 0 (excludes sectors)
 *                   period_us <n> | period_ns <n>   rotation, 100 us .. 1 s
 *                   track_skew <n>         sectors per head switch
 *                   cyl_skew <n>           sectors per cylinder switch
 *                   head_switch_us <n> | head_switch_ns <n>
 *                   seek_a_us <n> | seek_a_ns <n>   seek constant (d >= 1)
 *                   seek_b_ns <n>          seek time per cylinder
 *                   seek_c_us <n> | seek_c_ns <n>   seek time per sqrt(d)
 *                   time_scale <n>[/<m>]   emulated time runs n/m times as
 *                                          fast as wall time, 1 .. 1000 each
 *                 custom needs cylinders, heads, sectors or zones, and a
 *                 period; its other parameters default to 0.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "hddsim.h"

#define MS(x)	((x) * 1000000ULL)
#define US(x)	((x) * 1000ULL)

static const struct hs_preset hs_presets[] = {
	{
		/*
		 * Paper 000, Figure 12: IBM Lightning. 48 sectors of 0.29 ms;
		 * head switch 1.16 ms (the paper's section 7 figure), so a
		 * track skew of 5 sectors (1.45 ms); single-cylinder seek
		 * 2.47 ms on the curve, so a cylinder skew of 9 (2.61 ms).
		 */
		.name = "lightning",
		.geom = {
			.cylinders = 949, .heads = 14, .nr_zones = 1,
			.zones = { { .first_cyl = 0, .spt = 48 } },
			.period_ns = US(13900),
			.track_skew = 5, .cyl_skew = 9,
			.head_switch_ns = US(1160),
			.seek_a_ns = MS(2), .seek_b_ns = 10000,
			.seek_c_ns = US(460),
		},
	},
	{
		/*
		 * Paper 003, Table 1: Fujitsu Eagle. 8 blocks of 4 KiB per
		 * track, 16.6 ms. The seek curve fits the table's single-track
		 * (5.47 ms), average (18 ms, over uniformly random start and
		 * end cylinders) and end-to-end (35 ms) seeks. Head switch
		 * (not in the table): 1 ms, track skew 4 (1.04 ms), cylinder
		 * skew 22 (5.71 ms).
		 */
		.name = "eagle",
		.geom = {
			.cylinders = 840, .heads = 20, .nr_zones = 1,
			.zones = { { .first_cyl = 0, .spt = 64 } },
			.period_ns = US(16600),
			.track_skew = 4, .cyl_skew = 22,
			.head_switch_ns = MS(1),
			.seek_a_ns = 4927000, .seek_b_ns = 17720,
			.seek_c_ns = 525000,
		},
	},
	{
		/*
		 * A 10 000 rpm 9.1 GB drive like paper 002's Seagate
		 * ST39133LWV: 6 heads, 10 000 cylinders in 4 zones of 334 ..
		 * 238 sectors (8.8 GB), seek 0.6 ms single track, 5.2 ms
		 * average (paper 002 Table 1), 11 ms full stroke; head
		 * switch 0.6 ms; skews of 34 sectors (0.61 ms in the outer
		 * zone).
		 */
		.name = "st39133",
		.geom = {
			.cylinders = 10000, .heads = 6, .nr_zones = 4,
			.zones = {
				{ .first_cyl = 0, .spt = 334 },
				{ .first_cyl = 2500, .spt = 302 },
				{ .first_cyl = 5000, .spt = 270 },
				{ .first_cyl = 7500, .spt = 238 },
			},
			.period_ns = MS(6),
			.track_skew = 34, .cyl_skew = 34,
			.head_switch_ns = US(600),
			.seek_a_ns = 541000, .seek_b_ns = 459,
			.seek_c_ns = 58740,
		},
	},
	{
		/*
		 * A modern 7200 rpm drive (640 GB): 4 heads, 200 000
		 * cylinders in 8 zones of 2000 .. 1125 sectors, seek 0.83 ms
		 * single track, about 8.5 ms average, 16 ms full stroke; head
		 * switch 0.8 ms; skews of 193 and 200 sectors (outer zone).
		 */
		.name = "modern7200",
		.geom = {
			.cylinders = 200000, .heads = 4, .nr_zones = 8,
			.zones = {
				{ .first_cyl = 0, .spt = 2000 },
				{ .first_cyl = 25000, .spt = 1875 },
				{ .first_cyl = 50000, .spt = 1750 },
				{ .first_cyl = 75000, .spt = 1625 },
				{ .first_cyl = 100000, .spt = 1500 },
				{ .first_cyl = 125000, .spt = 1375 },
				{ .first_cyl = 150000, .spt = 1250 },
				{ .first_cyl = 175000, .spt = 1125 },
			},
			.period_ns = 8333333,
			.track_skew = 193, .cyl_skew = 200,
			.head_switch_ns = US(800),
			.seek_a_ns = US(800), .seek_b_ns = 20,
			.seek_c_ns = US(25),
		},
	},
	{
		/* everything from the optional arguments */
		.name = "custom",
	},
};

const struct hs_preset *hs_preset_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hs_presets); i++)
		if (!strcasecmp(hs_presets[i].name, name))
			return &hs_presets[i];
	return NULL;
}

/* the keys; a _us and a _ns key of the same field share an index */
enum hs_key {
	HS_CYLINDERS, HS_HEADS, HS_SECTORS, HS_ZONES, HS_PERIOD, HS_TRACK_SKEW,
	HS_CYL_SKEW, HS_HEAD_SWITCH, HS_SEEK_A, HS_SEEK_B, HS_SEEK_C,
	HS_TIME_SCALE, HS_NR_KEYS
};

struct hs_opt {
	const char *name;
	enum hs_key key;
	u32 unit_ns;		/* time keys: ns per unit; 0: not a time */
};

static const struct hs_opt hs_opts[] = {
	{ "cylinders", HS_CYLINDERS, 0 },
	{ "heads", HS_HEADS, 0 },
	{ "sectors", HS_SECTORS, 0 },
	{ "zones", HS_ZONES, 0 },
	{ "period_us", HS_PERIOD, 1000 },
	{ "period_ns", HS_PERIOD, 1 },
	{ "track_skew", HS_TRACK_SKEW, 0 },
	{ "cyl_skew", HS_CYL_SKEW, 0 },
	{ "head_switch_us", HS_HEAD_SWITCH, 1000 },
	{ "head_switch_ns", HS_HEAD_SWITCH, 1 },
	{ "seek_a_us", HS_SEEK_A, 1000 },
	{ "seek_a_ns", HS_SEEK_A, 1 },
	{ "seek_b_ns", HS_SEEK_B, 1 },
	{ "seek_c_us", HS_SEEK_C, 1000 },
	{ "seek_c_ns", HS_SEEK_C, 1 },
	{ "time_scale", HS_TIME_SCALE, 0 },
};

/* "<c>:<spt>[/<c>:<spt>...]" */
static int hs_parse_zones(const char *spec, struct hs_geom *g, char **error)
{
	unsigned int c, spt, n = 0;
	int len;

	for (;;) {
		if (n == HS_MAX_ZONES) {
			*error = "Too many zones";
			return -EINVAL;
		}
		if (sscanf(spec, "%u:%u%n", &c, &spt, &len) != 2 ||
		    !isdigit(*spec)) {
			*error = "Invalid zones";
			return -EINVAL;
		}
		if (n && c <= g->zones[n - 1].first_cyl) {
			*error = "Invalid zone start cylinder";
			return -EINVAL;
		}
		g->zones[n].first_cyl = c;
		g->zones[n].spt = spt;
		n++;
		spec += len;
		if (!*spec)
			break;
		if (*spec++ != '/' || !isdigit(*spec)) {
			*error = "Invalid zones";
			return -EINVAL;
		}
	}
	g->nr_zones = n;
	return 0;
}

/* "<n>" or "<n>/<m>" */
static int hs_parse_scale(const char *s, struct hs_scale *sc, char **error)
{
	const char *slash = strchr(s, '/');
	unsigned int n, m = 1;
	char buf[24];

	if (strscpy(buf, s, sizeof(buf)) < 0)
		goto bad;
	if (slash) {
		buf[slash - s] = '\0';
		if (!isdigit(slash[1]) || kstrtouint(slash + 1, 10, &m))
			goto bad;
	}
	if (!isdigit(buf[0]) || kstrtouint(buf, 10, &n))
		goto bad;
	if (!n || !m || n > HS_MAX_SCALE || m > HS_MAX_SCALE)
		goto bad;
	sc->num = n;
	sc->den = m;
	return 0;
bad:
	*error = "Invalid time_scale";
	return -EINVAL;
}

static int hs_parse_u64(const char *s, u64 max, u64 *v, char **error)
{
	if (kstrtou64(s, 10, v) || *v > max) {
		*error = "Invalid optional argument value";
		return -EINVAL;
	}
	return 0;
}

static int hs_parse_opt(const struct hs_opt *o, const char *val,
			struct hs_args *args, char **error)
{
	struct hs_geom *g = &args->geom;
	u64 v = 0;

	if (o->key == HS_ZONES)
		return hs_parse_zones(val, g, error);
	if (o->key == HS_TIME_SCALE)
		return hs_parse_scale(val, &args->scale, error);
	if (hs_parse_u64(val, o->unit_ns ? HS_MAX_TIME_NS / o->unit_ns : U32_MAX,
			 &v, error))
		return -EINVAL;
	if (o->unit_ns)
		v *= o->unit_ns;

	switch (o->key) {
	case HS_CYLINDERS:
		g->cylinders = v;
		break;
	case HS_HEADS:
		g->heads = v;
		break;
	case HS_SECTORS:
		g->nr_zones = 1;
		g->zones[0].first_cyl = 0;
		g->zones[0].spt = v;
		break;
	case HS_PERIOD:
		g->period_ns = v;
		break;
	case HS_TRACK_SKEW:
		g->track_skew = v;
		break;
	case HS_CYL_SKEW:
		g->cyl_skew = v;
		break;
	case HS_HEAD_SWITCH:
		g->head_switch_ns = v;
		break;
	case HS_SEEK_A:
		g->seek_a_ns = v;
		break;
	case HS_SEEK_B:
		g->seek_b_ns = v;
		break;
	case HS_SEEK_C:
		g->seek_c_ns = v;
		break;
	default:
		break;
	}
	return 0;
}

/**
 * hs_parse_args() - parse a hddsim table line (without start and length)
 * @argc: number of words
 * @argv: the words; @args points into them afterwards
 * @args: result, with a finished geometry (hs_geom_finish())
 * @error: set to a message for ti->error on failure
 *
 * Return: 0 or -EINVAL.
 */
int hs_parse_args(unsigned int argc, char **argv, struct hs_args *args,
		  char **error)
{
	static const struct dm_arg opt_args = {
		0, HS_MAX_OPT_ARGS, "Invalid number of optional arguments"
	};
	struct dm_arg_set as = { .argc = argc, .argv = argv };
	unsigned long seen = 0;
	unsigned int nr_opt = 0, i, k;
	const char *key, *val;
	char dummy;

	memset(args, 0, sizeof(*args));
	args->scale.num = 1;
	args->scale.den = 1;

	if (argc < 3) {
		*error = "Not enough arguments";
		return -EINVAL;
	}
	args->dev_path = dm_shift_arg(&as);
	if (sscanf(dm_shift_arg(&as), "%llu%c", &args->offset, &dummy) != 1 ||
	    args->offset != (sector_t)args->offset) {
		*error = "Invalid device offset";
		return -EINVAL;
	}
	args->preset = hs_preset_find(dm_shift_arg(&as));
	if (!args->preset) {
		*error = "Unknown preset";
		return -EINVAL;
	}
	args->geom = args->preset->geom;

	if (as.argc && dm_read_arg_group(&opt_args, &as, &nr_opt, error))
		return -EINVAL;
	if (as.argc != nr_opt) {
		*error = "Too many arguments";
		return -EINVAL;
	}
	if (nr_opt % 2) {
		*error = "Optional argument lacks a value";
		return -EINVAL;
	}
	args->nr_opt = nr_opt;
	args->opt = as.argv;

	for (i = 0; i < nr_opt; i += 2) {
		key = as.argv[i];
		val = as.argv[i + 1];
		for (k = 0; k < ARRAY_SIZE(hs_opts); k++)
			if (!strcasecmp(hs_opts[k].name, key))
				break;
		if (k == ARRAY_SIZE(hs_opts)) {
			*error = "Unknown optional argument";
			return -EINVAL;
		}
		if (seen & BIT(hs_opts[k].key)) {
			*error = "Duplicate optional argument";
			return -EINVAL;
		}
		seen |= BIT(hs_opts[k].key);
		if (hs_parse_opt(&hs_opts[k], val, args, error))
			return -EINVAL;
	}

	if ((seen & BIT(HS_SECTORS)) && (seen & BIT(HS_ZONES))) {
		*error = "sectors and zones are exclusive";
		return -EINVAL;
	}
	if (!strcmp(args->preset->name, "custom") &&
	    (!(seen & BIT(HS_CYLINDERS)) || !(seen & BIT(HS_HEADS)) ||
	     !(seen & (BIT(HS_SECTORS) | BIT(HS_ZONES))) ||
	     !(seen & BIT(HS_PERIOD)))) {
		*error = "custom needs cylinders, heads, sectors or zones, and a period";
		return -EINVAL;
	}
	return hs_geom_finish(&args->geom, error);
}

/**
 * hs_check_length() - check the target length against disk and device
 * @g: finished geometry
 * @target_len: ti->len
 * @offset: first sector used on the underlying device
 * @dev_sectors: size of the underlying device
 * @error: set to a message for ti->error on failure
 *
 * Return: 0 or -EINVAL.
 */
int hs_check_length(const struct hs_geom *g, sector_t target_len,
		    u64 offset, sector_t dev_sectors, char **error)
{
	if (!target_len) {
		*error = "Zero target length";
		return -EINVAL;
	}
	if (target_len > g->capacity) {
		*error = "Target length exceeds the emulated disk's capacity";
		return -EINVAL;
	}
	if (offset > dev_sectors || target_len > dev_sectors - offset) {
		*error = "Target length exceeds the underlying device";
		return -EINVAL;
	}
	return 0;
}
