/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab: a table loaded over a live array with a metadata device
 * takes the array over at its resume (reload.c has the how and why).
 * Called by core.c only.
 */
#ifndef DM_RAIDLAB_RELOAD_H
#define DM_RAIDLAB_RELOAD_H

#include <linux/device-mapper.h>

struct rl_array;

/*
 * Constructor of @s, its devices got: 1 if the line is loaded over a live
 * array (@s is a successor, ti->private; nothing else is to be built), 0
 * if not (a first load), or an error with ti->error set.
 */
int rl_reload_ctr(struct rl_array *s, unsigned int argc, char **argv);
/*
 * Preresume of @ti, whose context is a successor: take the live array
 * over (ti->private becomes it). An error leaves the successor.
 */
int rl_reload_adopt(struct dm_target *ti);
/* A successor's status: its line (TABLE), dm-raid's first fields (INFO). */
void rl_reload_status(struct rl_array *s, status_type_t type, char *result,
		      unsigned int maxlen);
/* A successor's limits: the live array's. */
void rl_reload_io_hints(struct rl_array *s, struct queue_limits *limits);
/* Free what a successor keeps besides its devices. */
void rl_reload_free(struct rl_array *s);
struct rl_args;

/*
 * Why the line of successor @s cannot take @live over, or NULL: only the
 * spares, sched, homehost and failed roles' disks may change
 * (@region_shift: the live array's; @lopts: the options its table line
 * says, against which the scheme options @s gives are compared). Pure.
 */
char *rl_reload_mismatch(const struct rl_array *live, const struct rl_array *s,
			 u32 region_shift, const struct rl_args *lopts);

#endif /* DM_RAIDLAB_RELOAD_H */
