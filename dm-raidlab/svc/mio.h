/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab member-I/O groups: a scheme's own member I/O (a log write, a
 * reintegration's reads, a mirror's resync copy) as bios from the
 * scheme's bioset, each through the member's queue (sched.h) like every
 * other member I/O, in a group the caller waits for. A group collects the
 * members whose I/O failed; the caller decides what a failure means
 * (rl_mio_fail() fails them durably, a read error may be rewritten).
 */
#ifndef DM_RAIDLAB_MIO_H
#define DM_RAIDLAB_MIO_H

#include <linux/bio.h>
#include <linux/completion.h>

#include "../raidlab.h"

/* A group of member I/Os waited for together. */
struct rl_mio_group {
	struct rl_array *a;
	struct bio_set *bs;		/* from rl_mio_bioset_init() */
	atomic_t pending;
	struct completion done;
	unsigned long failed;		/* members whose I/O failed */
	unsigned long stale;		/* I/O that failed on a disk since replaced */
	struct dm_dev *fdev[RL_MAX_MEMBERS];	/* the disk each failed on */
	atomic64_t busy_ns;		/* the I/Os' time from dispatch to end */
};

/* A member I/O: the bio with its queue entry in front (bioset front_pad). */
struct rl_mio {
	struct rl_qent qe;
	struct rl_mio_group *g;
	struct dm_dev *dev;		/* the member's disk at submission */
	unsigned int member;
	struct bio bio;			/* must be last: bioset front_pad */
};

int rl_mio_bioset_init(struct bio_set *bs, unsigned int pool);
void rl_mio_init(struct rl_mio_group *g, struct rl_array *a,
		 struct bio_set *bs);
void rl_mio(struct rl_mio_group *g, unsigned int m, blk_opf_t opf,
	    sector_t msector, void *buf, unsigned int sectors,
	    enum rl_class class, enum rl_io_kind kind);
unsigned long rl_mio_wait(struct rl_mio_group *g);
void rl_mio_fail(const struct rl_mio_group *g, const char *why);
void rl_mio_read_done(void *buf, unsigned int sectors);

#endif /* DM_RAIDLAB_MIO_H */
