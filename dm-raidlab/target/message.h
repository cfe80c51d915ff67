/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab: the target's message method (message.c), for core.c's
 * target_type.
 */
#ifndef DM_RAIDLAB_MESSAGE_H
#define DM_RAIDLAB_MESSAGE_H

#include <linux/device-mapper.h>

/* target_type.message: see the list at its head in message.c */
int rl_target_message(struct dm_target *ti, unsigned int argc, char **argv,
		      char *result, unsigned int maxlen);

#endif /* DM_RAIDLAB_MESSAGE_H */
