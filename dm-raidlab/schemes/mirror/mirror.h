/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab N-way mirror: the pure helpers of mirror.c (read balancing,
 * the choice of the resync source, the sync window and the write split,
 * copy comparison), tested by KUnit (mirror_test.c).
 */
#ifndef DM_RAIDLAB_MIRROR_H
#define DM_RAIDLAB_MIRROR_H

#include "../../raidlab.h"

/*
 * Member space (sectors after data_offset) is cut into aligned slots of
 * 1 MiB. A sync window lies inside one slot, and a write is split so that
 * it does too. In-flight writes are counted per bucket: slots hashed by
 * their index modulo RL_MIRROR_BUCKETS.
 */
#define RL_MIRROR_SLOT_SHIFT	11
#define RL_MIRROR_SLOT_SECTORS	BIT(RL_MIRROR_SLOT_SHIFT)
/* a rebuild window no member can read is narrowed down to pieces of this */
#define RL_MIRROR_LOST_SECTORS	8
#define RL_MIRROR_BUCKETS	64

/* What read balancing looks at for one member. */
struct rl_mirror_view {
	sector_t head;			/* sector after its last I/O */
	unsigned int inflight;		/* I/Os queued or in flight */
	u64 predicted_ns;		/* tracker's access time, 0 for none */
	bool failed;			/* or not readable at this sector */
};

/* The sync window: member sectors [start, start + len); len 0 for none. */
struct rl_mirror_window {
	sector_t start;
	sector_t len;
};

unsigned int rl_mirror_read_balance(const struct rl_mirror_view *v,
				    unsigned int nr, sector_t sector);
unsigned int rl_mirror_read_choose(struct rl_mirror_view *v, unsigned int nr,
				   sector_t sector, unsigned long unreadable,
				   bool suspect);
unsigned int rl_mirror_source(unsigned long unreadable, unsigned int nr);

/* The bucket that counts writes to member sector @msector. */
static inline unsigned int rl_mirror_bucket(sector_t msector)
{
	return (msector >> RL_MIRROR_SLOT_SHIFT) & (RL_MIRROR_BUCKETS - 1);
}

bool rl_mirror_overlap(sector_t s1, sector_t len1, sector_t s2, sector_t len2);
bool rl_mirror_blocks(const struct rl_mirror_window *w, sector_t msector,
		      sector_t sectors);
sector_t rl_mirror_split_len(sector_t msector, sector_t sectors,
			     unsigned int shift);
sector_t rl_mirror_window_len(sector_t msector, sector_t want, sector_t max);
unsigned int rl_mirror_diff(const u8 *src, const u8 *buf,
			    unsigned int sectors, unsigned long *map,
			    unsigned int *first, unsigned int *last);

#endif /* DM_RAIDLAB_MIRROR_H */
