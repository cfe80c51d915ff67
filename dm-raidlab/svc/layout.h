/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab layout helpers: what the schemes' layout methods
 * (->capacity, ->locate, ->owner in raidlab.h) share, and the calls to
 * the latter two with their range checks. Pure; KUnit suites
 * dm_raidlab_layout_svc and dm_raidlab_layout.
 */
#ifndef DM_RAIDLAB_LAYOUT_H
#define DM_RAIDLAB_LAYOUT_H

#include "../raidlab.h"

int rl_size_rows(struct rl_array *a, unsigned int nr_data, sector_t len,
		 char **error);
void rl_locset_init(struct rl_locset *ls, sector_t len, u64 row,
		    unsigned int col);
void rl_locset_add(struct rl_locset *ls, unsigned int member,
		   sector_t sector, enum rl_part part);
int rl_locate(struct rl_array *a, sector_t lsector, struct rl_locset *ls);
enum rl_part rl_owner(struct rl_array *a, unsigned int member,
		      sector_t msector, sector_t *lsector);
const char *rl_part_name(enum rl_part part);
int rl_locset_format(const struct rl_locset *ls, char *buf, size_t size);

#endif /* DM_RAIDLAB_LAYOUT_H */
