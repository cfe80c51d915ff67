/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab: the kernel API differences between the kernels it builds for
 * (Documentation/raidlab-ops.rst, "Kernels"): Debian 12's 6.1 and its
 * linux-source-6.1, Debian's newest headers (6.12), and a 6.1 as released.
 * Only this file and the Makefile's feature tests (which read the kernel's
 * headers, not its version) know of them; the rest of the module calls
 * these.
 */
#ifndef DM_RAIDLAB_COMPAT_H
#define DM_RAIDLAB_COMPAT_H

#include <linux/blkdev.h>
#include <linux/dm-io.h>
#include <linux/ioprio.h>

/*
 * dm_io() took an I/O priority in 6.9; Debian 12's 6.1 (6.1.90 on) has
 * the change backported. The Makefile sets RL_DM_IO_NO_IOPRIO when the
 * kernel's <linux/dm-io.h> does not have it.
 */
static inline int rl_dm_io(struct dm_io_request *req, unsigned int nr,
			   struct dm_io_region *where, unsigned long *error_bits)
{
#ifdef RL_DM_IO_NO_IOPRIO
	return dm_io(req, nr, where, error_bits);
#else
	return dm_io(req, nr, where, error_bits, IOPRIO_DEFAULT);
#endif
}

/*
 * The preferred I/O sizes of a target's ->io_hints: blk_limits_io_min()
 * and blk_limits_io_opt() are gone in 6.11 (the Makefile sets
 * RL_NO_BLK_LIMITS_IO), where the limits are set directly and checked
 * when the table's limits are stacked.
 */
static inline void rl_limits_io(struct queue_limits *limits, unsigned int min,
				unsigned int opt)
{
#ifdef RL_NO_BLK_LIMITS_IO
	limits->io_min = min;
	limits->io_opt = opt;
#else
	blk_limits_io_min(limits, min);
	blk_limits_io_opt(limits, opt);
#endif
}

#endif /* DM_RAIDLAB_COMPAT_H */
