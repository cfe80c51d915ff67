// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab spares a scheme holds (raidlab.h, rl_sync_hold_spare()):
 * altmirror's second replacement during its recovery. A held spare keeps
 * its slot in a->spares, so the table line still names it, but the
 * lifecycle (sync.c) gives it no role. rl_sync_swap_spare() trades an
 * in-sync member's disk with a held spare's in one metadata commit.
 */
#include "bbl.h"
#include "metadata.h"
#include "sync_int.h"
#include "../raidlab.h"

int rl_sync_find_spare(struct rl_array *a, const u8 uuid[16])
{
	unsigned int j;
	u8 id[16];

	for (j = 0; a->md && j < a->nr_spares; j++) {
		if (!a->spares[j])
			continue;
		rl_md_spare_uuid(a->md, j, id);
		if (!memcmp(id, uuid, 16))
			return j;
	}
	return -ENOENT;
}

void rl_sync_hold_spare(struct rl_array *a, unsigned int j)
{
	set_bit(j, &a->spares_held);
}

/*
 * Role @m's disk is @mdev (uuid @muuid) and spare @j's @sdev (@suuid), in
 * the metadata's state and in core. Under rl_md_lock().
 */
static void rl_spare_place(struct rl_array *a, unsigned int m, unsigned int j,
			   struct dm_dev *mdev, const u8 muuid[16],
			   struct dm_dev *sdev, const u8 suuid[16])
{
	unsigned long flags;

	memcpy(rl_md_state(a->md)->members[m].dev_uuid, muuid, 16);
	rl_md_set_spare_uuid(a->md, j, suuid);
	spin_lock_irqsave(&a->fail_lock, flags);
	WRITE_ONCE(a->members[m].dev, mdev);
	a->spares[j] = sdev;
	spin_unlock_irqrestore(&a->fail_lock, flags);
}

/*
 * Role @m (in sync) and held spare @j trade disks. The superblocks and the
 * metadata are written by one commit: a crash before its superblock slot
 * is written leaves the metadata naming the old disk, whose superblock
 * may say spare already (rl_md_member_mismatch() takes it back); after
 * it, the old disk is spare @j. On a failed commit nothing changes.
 */
int rl_sync_swap_spare(struct rl_array *a, unsigned int m, unsigned int j)
{
	struct dm_dev *old = a->members[m].dev, *dev = a->spares[j];
	u8 role_uuid[16], spare_uuid[16];
	int r;

	if (!a->md || !dev || !old || rl_member_failed(a, m))
		return -EINVAL;
	rl_md_lock(a->md);
	memcpy(role_uuid, rl_md_state(a->md)->members[m].dev_uuid, 16);
	rl_md_spare_uuid(a->md, j, spare_uuid);
	rl_spare_place(a, m, j, dev, spare_uuid, old, role_uuid);
	rl_sync_state_members(a, rl_md_state(a->md));
	r = rl_md_commit(a->md, true);
	if (r)
		rl_spare_place(a, m, j, old, role_uuid, dev, spare_uuid);
	rl_md_unlock(a->md);
	if (r)
		return r;
	clear_bit(j, &a->spares_held);
	/* the old disk's bad blocks are not the new one's */
	rl_bbl_reset(a, m);
	DMINFO("%s: member %u is %s now; %s is a spare",
	       dm_table_device_name(a->ti->table), m, dev->name, old->name);
	schedule_work(&a->event_work);
	return 0;
}
