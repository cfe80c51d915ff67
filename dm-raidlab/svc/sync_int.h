/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab sync service internals shared by sync.c and spare.c.
 */
#ifndef DM_RAIDLAB_SYNC_INT_H
#define DM_RAIDLAB_SYNC_INT_H

#include "../raidlab.h"
#include "metadata.h"

/* Run the sync worker unless it runs already or the array is suspended. */
void rl_sync_kick(struct rl_array *a);
/* Every member's state and cursor into @st. Under rl_md_lock(). */
void rl_sync_state_members(struct rl_array *a, struct rl_md_state *st);

#endif /* DM_RAIDLAB_SYNC_INT_H */
