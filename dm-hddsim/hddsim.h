/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-hddsim: the table-line grammar (args.c) shared by the target (core.c)
 * and its tests.
 */
#ifndef DM_HDDSIM_H
#define DM_HDDSIM_H

#include <linux/device-mapper.h>
#include <linux/types.h>

#include "model.h"

#define HS_MAX_OPT_ARGS	32

/**
 * struct hs_preset - a named disk
 * @name: table-line name
 * @geom: its geometry (zones[].first_lba and capacity not yet derived)
 */
struct hs_preset {
	const char *name;
	struct hs_geom geom;
};

/**
 * struct hs_args - a parsed table line
 * @dev_path: underlying device (points into argv)
 * @offset: first sector used on it
 * @preset: the preset the geometry started from
 * @geom: finished geometry (preset plus overrides)
 * @scale: emulated time per wall time
 * @nr_opt: number of optional words
 * @opt: the optional words (point into argv), for the table line
 */
struct hs_args {
	const char *dev_path;
	u64 offset;
	const struct hs_preset *preset;
	struct hs_geom geom;
	struct hs_scale scale;
	unsigned int nr_opt;
	char **opt;
};

const struct hs_preset *hs_preset_find(const char *name);
int hs_parse_args(unsigned int argc, char **argv, struct hs_args *args,
		  char **error);
int hs_check_length(const struct hs_geom *g, sector_t target_len,
		    u64 offset, sector_t dev_sectors, char **error);

#endif
