// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab re-add: a failed member's own disk comes back (a cable, a
 * path, a storage host that returned) and is rebuilt only where it
 * missed writes, as md's re-add with a write-intent bitmap.
 *
 * What it missed: while a member is failed, the metadata's clear pass
 * keeps the regions it clears, held (metadata.h); so every region written
 * since the failure is set, durable, pending or held. The message re_add
 * asks, the lifecycle makes the change (rl_sync_readd()): the role leaves
 * a->failed for a->rebuilding with its cursor at 0, and a->readd marks
 * it. Its rebuild then walks every unit as any rebuild does, under the
 * engine's lock that orders it against foreground writes, and copies the
 * units rl_sync_skip_clean() does not let it skip. Why that is enough:
 *
 *   - a write that left the member out (failed, or rebuilding above its
 *     cursor) set its region's bit before it let go of the unit's lock;
 *     the rebuild takes the lock after it, finds the bit and copies;
 *   - a write after the rebuild's unit finds the cursor past it and
 *     writes the member too;
 *   - held regions stay until no member is out: none is cleared under a
 *     re-add.
 *
 * What the held regions do not cover (s->untracked) is re-added only whole
 * ("re_add <m> full"): a role failed when the table was loaded (the held
 * set is in memory), a disk that failed while it was rebuilt whole (good
 * only below its cursor), and a mirror member that missed a discard (a
 * discard takes no intent). A crash or a new table during a re-add's rebuild
 * resumes it from the checkpointed cursor as a whole rebuild: below the
 * cursor the disk is good either way. The message is in sync_ctl.c.
 */
#include <linux/kernel.h>

#include "metadata.h"
#include "sync_int.h"

bool rl_sync_skip_clean(struct rl_array *a, const struct rl_sync_req *req,
			sector_t msector, sector_t len)
{
	const struct rl_md_state *st;

	if (!req->readd || req->job != RL_SYNC_REBUILD || !a->md || !len)
		return false;
	st = rl_md_state(a->md);
	if (rl_md_intent_touched(a->md, rl_md_region(st, msector),
				 rl_md_region(st, msector + len - 1)))
		return false;
	atomic64_add(len, &rl_sync(a)->readd_skipped[req->target]);
	return true;
}

/*
 * Why re-add of role @m (@full: whole) onto @dev, checked when it was
 * asked, cannot be made now: the role is not failed any more, or another
 * disk has it (a spare took it, and failed), or its disk was being
 * rebuilt when it failed (a->readd aside), and the held regions do not
 * say what it lacks. NULL if it can.
 */
static const char *rl_sync_readd_refused(struct rl_array *a, unsigned int m,
					 bool full, struct dm_dev *dev,
					 unsigned long failed)
{
	if (!test_bit(m, &failed))
		return "the role is no longer failed";
	if (READ_ONCE(a->members[m].dev) != dev)
		return "another disk has the role now";
	if (!full && test_bit(m, &rl_sync(a)->untracked))
		return "the disk was being rebuilt when it failed: re_add <m> full";
	return NULL;
}

/*
 * The re-adds asked for (rl_msg_readd()): each role still failed goes
 * back to its own disk, rebuilding from cursor 0; from the held regions
 * only, unless asked whole. Roles a spare took meanwhile are left. From
 * the lifecycle, once the failures are recorded (@failed). Returns true
 * if a role changed.
 */
bool rl_sync_readd(struct rl_array *a, unsigned long failed)
{
	struct rl_sync *s = rl_sync(a);
	const char *name = dm_table_device_name(a->ti->table);
	struct dm_dev *dev[RL_MAX_MEMBERS];
	unsigned long want, full;
	bool changed = false;
	unsigned int m;
	const char *why;

	spin_lock_irq(&s->lock);
	want = s->readd_want;
	full = s->readd_full;
	s->readd_want = 0;
	s->readd_full = 0;
	memcpy(dev, s->readd_dev, sizeof(dev));
	spin_unlock_irq(&s->lock);

	for_each_set_bit(m, &want, a->geom.nr_members) {
		why = rl_sync_readd_refused(a, m, test_bit(m, &full), dev[m], failed);
		if (why) {
			DMWARN("%s: member %u: re-add dropped: %s", name, m, why);
			continue;
		}
		if (!test_bit(m, &full)) {
			atomic64_set(&s->readd_skipped[m], 0);
			set_bit(m, &a->readd);
			/* in a->readd before out of a->failed: rl_md_holding() */
			smp_mb__after_atomic();
		}
		atomic_set(&a->members[m].read_errors, 0);
		clear_bit(m, &s->untracked);
		rl_member_set_dev(a, m, NULL);
		DMINFO("%s: member %u (%s) re-added: %s", name, m,
		       a->members[m].dev->name,
		       test_bit(m, &full) ? "rebuilt whole" :
		       "rebuilt where written since it failed");
		changed = true;
	}
	return changed;
}

/*
 * Failed member @m missed a write the held regions do not record (a
 * mirror's discard, sent to each member as it is): it can be re-added
 * only whole. Any context.
 */
void rl_sync_readd_forget(struct rl_array *a, unsigned int m)
{
	/* pairs with rl_sync_init()'s release: from map, maybe before it */
	struct rl_sync *s = smp_load_acquire(&a->sync);

	if (s && m < a->geom.nr_members)
		set_bit(m, &s->untracked);
}

/* Sectors a re-add's rebuild of req->target skipped so far; 0 if not one. */
u64 rl_sync_readd_skipped(struct rl_array *a, const struct rl_sync_req *req)
{
	return req->readd ?
	       atomic64_read(&rl_sync(a)->readd_skipped[req->target]) : 0;
}

/* The rebuild of re-added member @m ended: say what it copied. */
void rl_sync_readd_done(struct rl_array *a, unsigned int m)
{
	struct rl_sync *s = rl_sync(a);
	u64 skipped = atomic64_read(&s->readd_skipped[m]);
	u64 total = rl_sync_total(a);

	clear_bit(m, &a->readd);
	DMINFO("%s: member %u re-added: copied %llu of %llu sectors",
	       dm_table_device_name(a->ti->table), m,
	       total - min(skipped, total), total);
}
