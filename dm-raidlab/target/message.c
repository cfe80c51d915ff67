// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab: the target's messages (Documentation/dm-raidlab.rst,
 * "Messages"), dispatched to the services and the scheme.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "../svc/bbl.h"
#include "../svc/layout.h"
#include "../raidlab.h"
#include "../svc/tracker.h"
#include "message.h"

/*
 * Messages:
 *   fail <idx>         mark member <idx> failed
 *   reset_counters     zero the logical and member I/O counters
 *   sched <policy>     switch the member queues to another policy
 *   geom <idx> <line>  load member <idx>'s calibrated geometry (tracker.h)
 *                      and start tracking its head
 *   tracker <idx>      print member <idx>'s tracker status
 *   bad_blocks <idx>   print member <idx>'s bad-block list (bbl.h)
 *   check, repair, frozen, idle, resync, recover, sync_rate <KiB/s>,
 *   last_error   background jobs and refusals (sync_ctl.c)
 *   and the scheme's own (->message; plog: plog_regions, reintegrate)
 */
/* A message's member index @word, for @verb: 0, or -EINVAL (logged). */
static int rl_msg_member(struct rl_array *a, const char *verb,
			 const char *word, unsigned int *m)
{
	char dummy;

	if (sscanf(word, "%u%c", m, &dummy) != 1 || *m >= a->geom.nr_members) {
		rl_msg_refused(a, "%s: invalid member index '%s'", verb, word);
		return -EINVAL;
	}
	return 0;
}

/* geom <idx> <line> and tracker <idx>; -ENOTTY for other words. */
static int rl_msg_track(struct rl_array *a, unsigned int argc, char **argv,
			char *result, unsigned int maxlen)
{
	char *error = "geom: cannot load";
	unsigned int m;
	int r;

	if (argc == 2 && !strcasecmp(argv[0], "tracker")) {
		if (rl_msg_member(a, "tracker", argv[1], &m))
			return -EINVAL;
		rl_track_status(a, m, result, maxlen);
		return 1;
	}
	if (argc == 3 && !strcasecmp(argv[0], "geom")) {
		if (rl_msg_member(a, "geom", argv[1], &m))
			return -EINVAL;
		r = rl_track_set_geom(a, m, argv[2], &error);
		if (r)
			rl_msg_refused(a, "geom: member %u: %s", m, error);
		return r;
	}
	return -ENOTTY;
}

static void rl_reset_counters(struct rl_array *a)
{
	unsigned int i, k;

	for (i = 0; i < a->geom.nr_members; i++) {
		for (k = 0; k < RL_NR_KINDS; k++)
			atomic64_set(&a->members[i].io[k], 0);
		for (k = 0; k < RL_NR_CLASSES; k++)
			atomic64_set(&a->members[i].q.dispatched[k], 0);
	}
	atomic64_set(&a->logical[READ], 0);
	atomic64_set(&a->logical[WRITE], 0);
}

/*
 * "locate <sector>": every location of a logical sector (->locate);
 * "owner <member> <sector>": what a member sector holds (->owner). See
 * Documentation/dm-raidlab.rst.
 */
static int rl_msg_locate(struct rl_array *a, unsigned int argc, char **argv,
			 char *result, unsigned int maxlen)
{
	struct rl_locset ls;
	unsigned long long s;
	sector_t l = 0;
	enum rl_part part;
	unsigned int m;

	if (argc == 2 && !strcasecmp(argv[0], "locate")) {
		if (kstrtoull(argv[1], 10, &s) || rl_locate(a, s, &ls)) {
			rl_msg_refused(a, "locate: no sector '%s' in the array",
				       argv[1]);
			return -EINVAL;
		}
		return rl_locset_format(&ls, result, maxlen) ?: 1;
	}
	if (argc != 3 || strcasecmp(argv[0], "owner"))
		return -ENOTTY;
	if (rl_msg_member(a, "owner", argv[1], &m))
		return -EINVAL;
	if (kstrtoull(argv[2], 10, &s)) {
		rl_msg_refused(a, "owner: invalid sector '%s'", argv[2]);
		return -EINVAL;
	}
	part = rl_owner(a, m, s, &l);
	if (part == RL_PART_DATA || part == RL_PART_COPY)
		scnprintf(result, maxlen, "%s %llu", rl_part_name(part),
			  (unsigned long long)l);
	else
		scnprintf(result, maxlen, "%s", rl_part_name(part));
	return 1;
}

int rl_target_message(struct dm_target *ti, unsigned int argc, char **argv,
		      char *result, unsigned int maxlen)
{
	struct rl_array *a = ti->private;
	unsigned int m;
	int r;

	if (a->reload) {
		DMWARN("%s: a reload that did not take the array over: load the table again",
		       dm_table_device_name(ti->table));
		return -EINVAL;
	}
	if (!(argc == 1 && !strcasecmp(argv[0], "last_error")))
		rl_msg_clear(a);
	if (argc == 2 && !strcasecmp(argv[0], "fail")) {
		if (rl_msg_member(a, "fail", argv[1], &m))
			return -EINVAL;
		rl_member_fail(a, m, "failed by message");
		return 0;
	}
	if (argc == 2 && !strcasecmp(argv[0], "sched")) {
		const struct rl_sched_policy *p = rl_sched_find(argv[1]);

		if (!p) {
			rl_msg_refused(a, "sched: unknown policy '%s'", argv[1]);
			return -EINVAL;
		}
		rl_queue_set_policy(a, p);
		return 0;
	}
	r = rl_msg_locate(a, argc, argv, result, maxlen);
	if (r != -ENOTTY)
		return r;
	if (argc == 2 && !strcasecmp(argv[0], "bad_blocks")) {
		if (rl_msg_member(a, "bad_blocks", argv[1], &m))
			return -EINVAL;
		rl_bbl_show(a, m, result, maxlen);
		return 1;
	}
	r = rl_msg_track(a, argc, argv, result, maxlen);
	if (r != -ENOTTY)
		return r;

	r = rl_sync_message(a, argc, argv, result, maxlen);
	if (r != -ENOTTY)
		return r;

	if (argc == 1 && !strcasecmp(argv[0], "reset_counters")) {
		rl_reset_counters(a);
		return 0;
	}
	if (a->ops->message) {
		r = a->ops->message(a, argc, argv, result, maxlen);
		if (r != -ENOTTY)
			return r;
	}
	rl_msg_refused(a, "unrecognised message '%s' with %u argument(s)",
		       argc ? argv[0] : "", argc);
	return -EINVAL;
}
