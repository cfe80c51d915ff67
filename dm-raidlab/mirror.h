/* SPDX-License-Identifier: GPL-2.0-only */
/* dm-raidlab N-way mirror: the read-balancing policy, a pure function. */
#ifndef DM_RAIDLAB_MIRROR_H
#define DM_RAIDLAB_MIRROR_H

#include "raidlab.h"

/* What read balancing looks at for one member. */
struct rl_mirror_view {
	sector_t head;			/* sector after its last I/O */
	unsigned int inflight;		/* I/Os queued or in flight */
	u64 predicted_ns;		/* tracker's access time, 0 for none */
	bool failed;
};

unsigned int rl_mirror_read_balance(const struct rl_mirror_view *v,
				    unsigned int nr, sector_t sector);

#endif /* DM_RAIDLAB_MIRROR_H */
