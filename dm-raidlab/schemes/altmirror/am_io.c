// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab altmirror: the scheme's own member I/O outside the batches
 * (svc/mio.h, the background class), waited for: the sync jobs' windows,
 * read fixes (am_cycle.c), the recovery's scan and catch-up (am_rec.c).
 */
#include "../../svc/mio.h"
#include "am_int.h"

/*
 * Read @len sectors at @msector of @src into @buf. 0 or -EIO; with @why,
 * a member that cannot read fails for it; with @busy_ns, the read's time
 * from its dispatch to its end is added there.
 */
int am_sync_read_why(struct am *am, unsigned int src, sector_t msector,
		     sector_t len, void *buf, const char *why,
		     atomic64_t *busy_ns)
{
	struct rl_mio_group g;

	rl_mio_init(&g, am->a, &am->bs);
	rl_mio(&g, src, REQ_OP_READ, msector, buf, len, RL_BG, RL_DATA_READ);
	if (rl_mio_wait(&g)) {
		if (why)
			rl_mio_fail(&g, why);
		return -EIO;
	}
	rl_mio_read_done(buf, len);
	if (busy_ns)
		atomic64_add(atomic64_read(&g.busy_ns), busy_ns);
	return 0;
}

int am_sync_read_quiet(struct am *am, unsigned int src, sector_t msector,
		       sector_t len, void *buf)
{
	return am_sync_read_why(am, src, msector, len, buf, NULL, NULL);
}

int am_sync_read(struct am *am, unsigned int src, sector_t msector,
		 sector_t len, void *buf)
{
	return am_sync_read_why(am, src, msector, len, buf, "sync read failed",
				NULL);
}

int am_sync_write(struct am *am, unsigned long dst, sector_t msector,
		  sector_t len, void *buf)
{
	struct rl_mio_group g;
	unsigned int d;

	rl_mio_init(&g, am->a, &am->bs);
	for_each_set_bit(d, &dst, RL_AM_DISKS)
		rl_mio(&g, d, REQ_OP_WRITE, msector, buf, len, RL_BG,
		       RL_DATA_WRITE);
	if (rl_mio_wait(&g)) {
		rl_mio_fail(&g, "sync write failed");
		return -EIO;
	}
	return 0;
}
