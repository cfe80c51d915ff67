// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab background jobs: what the status says of them, and the
 * messages that drive them, in dm-raid's words (Documentation/
 * admin-guide/device-mapper/dm-raid.rst: sync_action and its messages).
 *
 * A refused message returns an error to dmsetup, which carries no text:
 * the reason is logged and kept, and the message "last_error" answers it
 * (rl_msg_refused()).
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>

#include "metadata.h"
#include "replace.h"
#include "sync_int.h"

/*
 * Status: the job the worker is on or would be on, its progress in array
 * sectors, and the mismatches of the last scrub.
 *
 *   resync   parity or copies being made consistent
 *   recover  a member being rebuilt
 *   check    counting inconsistent sectors
 *   repair   counting and fixing them
 *   frozen   work is left but stopped (suspended, frozen by message, or a
 *            failure it needs a member for)
 *   idle     nothing left
 *
 * p->resyncing: the array's copies or parity are being made consistent (a
 * new array's resync, or dirty regions after an unclean shutdown, left,
 * and every member there to do it): the health characters say 'a' for
 * every member then, as dm-raid's do.
 */
void rl_sync_status(struct rl_array *a, struct rl_sync_progress *p)
{
	struct rl_sync *s = rl_sync(a);
	struct rl_sync_req req;
	unsigned long flags;
	bool work, dirty, resync_left;

	p->total = a->ti->len;
	spin_lock_irqsave(&s->lock, flags);
	p->mismatches = s->mismatches;
	resync_left = s->resync_cursor < rl_sync_total(a) || s->dirty_left;
	p->resyncing = a->ops->sync_range && !READ_ONCE(a->failed) &&
		       !READ_ONCE(a->rebuilding) && resync_left;
	work = rl_sync_next(a, &req, &dirty);
	if (!work) {
		p->done = p->total;
		p->action = (resync_left || READ_ONCE(a->rebuilding)) &&
			    rl_array_alive(a) ? "frozen" : "idle";
		if (s->resync_cursor < rl_sync_total(a))
			p->done = rl_sync_to_array(a, s->resync_cursor);
	} else {
		p->done = min_t(sector_t, rl_sync_to_array(a, req.msector),
				p->total);
		p->action = s->stopped || s->frozen ? "frozen" :
			    rl_sync_names[req.job];
	}
	spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * A message is refused: log @fmt and keep it for "last_error". Process
 * context.
 */
void rl_msg_refused(struct rl_array *a, const char *fmt, ...)
{
	struct rl_sync *s = rl_sync(a);
	char text[RL_MSG_ERROR_LEN];
	va_list args;

	va_start(args, fmt);
	vscnprintf(text, sizeof(text), fmt, args);
	va_end(args);
	DMWARN("%s: %s", dm_table_device_name(a->ti->table), text);
	rl_sync_set_reason(s, text);
}

/* A message other than last_error comes in: the last reason is old. */
void rl_msg_clear(struct rl_array *a)
{
	struct rl_sync *s = rl_sync(a);

	spin_lock_irq(&s->lock);
	s->refused[0] = '\0';
	spin_unlock_irq(&s->lock);
}

/* The answer of "last_error": the last refusal's reason, or "none". */
static void rl_msg_last_error(struct rl_array *a, char *result,
			      unsigned int maxlen)
{
	struct rl_sync *s = rl_sync(a);

	spin_lock_irq(&s->lock);
	scnprintf(result, maxlen, "%s", s->refused[0] ? s->refused : "none");
	spin_unlock_irq(&s->lock);
}

/* check or repair: from the start, unless a member is out of use. */
static int rl_msg_scrub(struct rl_array *a, const char *verb)
{
	struct rl_sync *s = rl_sync(a);

	if (!a->ops->sync_range) {
		rl_msg_refused(a, "%s refused: %s has no redundancy to check",
			       verb, a->ops->name);
		return -EINVAL;
	}
	if (READ_ONCE(a->failed) || READ_ONCE(a->rebuilding)) {
		rl_msg_refused(a, "%s refused: a member is failed or rebuilding",
			       verb);
		return -EBUSY;
	}
	spin_lock_irq(&s->lock);
	s->frozen = false;
	s->scrub_job = tolower(verb[0]) == 'c' ? RL_SYNC_CHECK : RL_SYNC_REPAIR;
	s->scrub_wanted = true;
	s->scrub_done = false;
	s->scrub_cursor = 0;
	s->mismatches = 0;
	spin_unlock_irq(&s->lock);
	rl_sync_kick(a);
	return 0;
}

/*
 * frozen, idle, resync, recover: dm-raid's words. frozen stops every job
 * where it is (its cursor is kept) until one of the others or the next
 * resume, as dm-raid's; idle ends a check or repair and lets the others
 * go on; resync and recover let them go on.
 */
static int rl_msg_action(struct rl_array *a, const char *verb)
{
	struct rl_sync *s = rl_sync(a);
	bool frozen = !strcasecmp(verb, "frozen");

	spin_lock_irq(&s->lock);
	s->frozen = frozen;
	if (!strcasecmp(verb, "idle"))
		s->scrub_wanted = false;
	spin_unlock_irq(&s->lock);
	wake_up_all(&s->wait);		/* a throttled range's sleep ends */
	if (!frozen)
		rl_sync_kick(a);
	schedule_work(&a->event_work);	/* sync_action changes */
	return 0;
}

/*
 * re_add <m> [full]: failed member @m's own disk is back; the table names
 * it still. Checked here, so that a refusal answers the message; done by
 * the lifecycle (sync_readd.c), which owns the roles.
 */
static int rl_msg_readd(struct rl_array *a, unsigned int argc, char **argv)
{
	struct rl_sync *s = rl_sync(a);
	bool full = argc == 3;
	struct dm_dev *dev;
	unsigned int m;
	char *why;
	int r;

	if (full && strcasecmp(argv[2], "full")) {
		rl_msg_refused(a, "re_add: unknown option '%s' (full)", argv[2]);
		return -EINVAL;
	}
	if (kstrtouint(argv[1], 10, &m) || m >= a->geom.nr_members) {
		rl_msg_refused(a, "re_add: invalid member '%s'", argv[1]);
		return -EINVAL;
	}
	if (!a->md) {
		rl_msg_refused(a, "re_add refused: %s",
			       "no metadata device records what the member missed");
		return -EINVAL;
	}
	if (!a->ops->readd) {
		rl_msg_refused(a, "re_add refused: %s has no re-add (add a spare)",
			       a->ops->name);
		return -EINVAL;
	}
	dev = READ_ONCE(a->members[m].dev);
	if (!rl_member_failed(a, m) || !dev) {
		rl_msg_refused(a, "re_add refused: member %u is %s", m,
			       dev ? "not failed" : "missing from the table");
		return -EINVAL;
	}
	if (!full && test_bit(m, &s->untracked)) {
		rl_msg_refused(a, "re_add refused: member %u: %s", m,
			       "nothing recorded what it missed; 're_add <m> full' rebuilds it whole");
		return -EINVAL;
	}
	r = rl_md_readd_check(a->md, m, dev->bdev, &why);
	if (r) {
		rl_msg_refused(a, "re_add refused: member %u (%s): %s", m,
			       dev->name, why);
		return r;
	}
	spin_lock_irq(&s->lock);
	s->readd_want |= BIT(m);
	if (full)
		s->readd_full |= BIT(m);
	s->readd_dev[m] = dev;
	spin_unlock_irq(&s->lock);
	rl_sync_kick(a);
	return 0;
}

/* The spare slot that holds the disk @name (a path or major:minor), or -1. */
static int rl_msg_spare(struct rl_array *a, const char *name)
{
	unsigned int j, maj, min;
	dev_t dev;
	char dummy;

	if (sscanf(name, "%u:%u%c", &maj, &min, &dummy) == 2)
		dev = MKDEV(maj, min);
	else if (lookup_bdev(name, &dev))
		return -1;
	for (j = 0; j < a->nr_spares; j++)
		if (a->spares[j] && a->spares[j]->bdev->bd_dev == dev)
			return j;
	return -1;
}

/*
 * replace <m> [<spare>]: copy member @m onto a spare (the one named, or the
 * first free one) while it serves, then swap them (sync_replace.c, which
 * the worker runs). Checked here, so that a refusal answers the message.
 */
static int rl_msg_replace(struct rl_array *a, unsigned int argc, char **argv)
{
	const char *why;
	unsigned int m;
	int j = -1;

	if (kstrtouint(argv[1], 10, &m) || m >= a->geom.nr_members) {
		rl_msg_refused(a, "replace: invalid member '%s'", argv[1]);
		return -EINVAL;
	}
	if (argc == 3) {
		j = rl_msg_spare(a, argv[2]);
		if (j < 0) {
			rl_msg_refused(a, "replace: '%s' is not a spare of the table",
				       argv[2]);
			return -EINVAL;
		}
	}
	why = rl_replace_refused(a, m, j);
	if (!why && rl_replace_ask(a, m, j))
		why = "a replace is asked for already";
	if (why) {
		rl_msg_refused(a, "replace refused: member %u: %s", m, why);
		return -EINVAL;
	}
	rl_sync_kick(a);
	return 0;
}

/*
 * Messages; -ENOTTY when @argv is none of them, 1 with an answer in
 * @result:
 *   check | repair    count inconsistent sectors (parity, or copies); fix them
 *   frozen            stop every background job where it is
 *   idle              end a check or repair; let the other jobs go on
 *   resync | recover  let the jobs go on (after frozen)
 *   sync_rate <KiB/s> limit background work per array (0: no limit)
 *   re_add <m> [full] failed member m's own disk is back (sync_readd.c)
 *   replace <m> [<spare>]  copy member m onto a spare, then swap them
 *   last_error        answer the reason of the last refused message
 */
int rl_sync_message(struct rl_array *a, unsigned int argc, char **argv,
		    char *result, unsigned int maxlen)
{
	static const char *const actions[] = {
		"frozen", "idle", "resync", "recover"
	};
	struct rl_sync *s = rl_sync(a);
	unsigned int rate, i;
	char dummy;

	if (argc == 1 && (!strcasecmp(argv[0], "check") ||
			  !strcasecmp(argv[0], "repair")))
		return rl_msg_scrub(a, argv[0]);
	for (i = 0; argc == 1 && i < ARRAY_SIZE(actions); i++)
		if (!strcasecmp(argv[0], actions[i]))
			return rl_msg_action(a, actions[i]);
	if (argc == 1 && !strcasecmp(argv[0], "last_error")) {
		rl_msg_last_error(a, result, maxlen);
		return 1;
	}
	if ((argc == 2 || argc == 3) && !strcasecmp(argv[0], "re_add"))
		return rl_msg_readd(a, argc, argv);
	if ((argc == 2 || argc == 3) && !strcasecmp(argv[0], "replace"))
		return rl_msg_replace(a, argc, argv);
	if (argc == 2 && !strcasecmp(argv[0], "sync_rate")) {
		if (sscanf(argv[1], "%u%c", &rate, &dummy) != 1) {
			rl_msg_refused(a, "sync_rate: invalid rate '%s'",
				       argv[1]);
			return -EINVAL;
		}
		WRITE_ONCE(s->rate_kbps, rate);
		wake_up_all(&s->wait);
		return 0;
	}
	return -ENOTTY;
}
