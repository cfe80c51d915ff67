// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab: the "raidlab" device-mapper target.
 *
 * Table line (see Documentation/dm-raidlab.rst and args.c):
 *
 *   <start> <len> raidlab <scheme> <#opt_args> [<opt_args>...]
 *                         <#devs> <dev_path>...
 *
 * With "metadata <dev>" the array keeps its state on <dev> (metadata.c):
 * member superblocks, member states, the write-intent bitmap.
 *
 * This file is the target itself: construction, the map and end_io hooks
 * that hand bios to the scheme, status, messages and device iteration.
 * Each scheme lives in a file of its own behind struct rl_scheme_ops.
 */
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../svc/bbl.h"
#include "../engines/journal.h"
#include "../svc/layout.h"
#include "../svc/metadata.h"
#include "../svc/replace.h"
#include "../raidlab.h"
#include "../svc/tracker.h"
#include "message.h"
#include "reload.h"

static void rl_event_work(struct work_struct *ws)
{
	struct rl_array *a = container_of(ws, struct rl_array, event_work);

	dm_table_event(a->ti->table);
}

/*
 * Every device of the table in one list: the members (NULL if missing),
 * then the metadata device, then the spares.
 */
static struct dm_dev **rl_dev_slot(struct rl_array *a, unsigned int i)
{
	if (i < a->geom.nr_members)
		return &a->members[i].dev;
	if (i == a->geom.nr_members)
		return &a->md_dev;
	return &a->spares[i - a->geom.nr_members - 1];
}

static void rl_put_members(struct rl_array *a, unsigned int nr)
{
	struct dm_dev **d;

	while (nr--) {
		d = rl_dev_slot(a, nr);
		if (*d)
			dm_put_device(a->ti, *d);
		*d = NULL;
	}
}

/*
 * Open the members ("-": missing, failed from the start), the metadata
 * device and the spares, refuse duplicates, and find the usable member
 * size.
 */
static int rl_get_members(struct rl_array *a, const struct rl_args *args)
{
	struct dm_target *ti = a->ti;
	unsigned int nr = args->nr_devs + 1 + args->nr_spares;
	sector_t smallest = ~(sector_t)0;
	struct dm_dev **d, **e;
	const char *path;
	unsigned int i, j;
	int r;

	a->nr_spares = args->nr_spares;
	for (i = 0; i < nr; i++) {
		d = rl_dev_slot(a, i);
		if (i < args->nr_devs)
			path = args->devs[i];
		else if (i == args->nr_devs)
			path = args->md_dev;
		else
			path = args->spares[i - args->nr_devs - 1];
		if (!path || !strcmp(path, "-")) {
			if (i < args->nr_devs)
				set_bit(i, &a->failed);
			continue;
		}
		r = dm_get_device(ti, path, dm_table_get_mode(ti->table), d);
		if (r) {
			ti->error = i < args->nr_devs ? "Member device lookup failed" :
				    i == args->nr_devs ? "Metadata device lookup failed" :
				    "Spare device lookup failed";
			goto bad;
		}
		for (j = 0; j < i; j++) {
			e = rl_dev_slot(a, j);
			if (*e && (*e)->bdev->bd_dev == (*d)->bdev->bd_dev) {
				ti->error = "Same device given twice";
				r = -EINVAL;
				i++;
				goto bad;
			}
		}
		if (i < args->nr_devs)
			smallest = min(smallest, bdev_nr_sectors((*d)->bdev));
	}

	if (smallest <= a->geom.data_offset) {
		ti->error = "Member device too small";
		r = -EINVAL;
		goto bad;
	}
	a->member_sectors = smallest - a->geom.data_offset;
	return 0;
bad:
	rl_put_members(a, i);
	return r;
}

/* Spares must hold a member's data. */
static int rl_check_spares(struct rl_array *a)
{
	unsigned int j;

	for (j = 0; j < a->nr_spares; j++) {
		if (bdev_nr_sectors(a->spares[j]->bdev) <
		    a->geom.data_offset + rl_member_span(a)) {
			a->ti->error = "Spare device too small";
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Construct a raidlab mapping; see the grammar at the top of this file.
 */
/* The array context from a parsed line: no device opened yet. */
static void rl_array_free(struct rl_array *a)
{
	unsigned int i;

	for (i = 0; i < RL_MAX_SCHEME_OPTS; i++)
		kfree(a->sopt_word[i]);
	kfree(a);
}

static struct rl_array *rl_array_alloc(struct dm_target *ti,
				       const struct rl_args *args)
{
	struct rl_array *a;
	unsigned int i, k;

	a = kzalloc(struct_size(a, members, args->nr_devs), GFP_KERNEL);
	if (!a)
		return NULL;
	a->ti = ti;
	a->ops = args->ops;
	a->geom.layout = args->ops->layout;
	a->geom.nr_members = args->nr_devs;
	a->geom.chunk_shift = ilog2(args->chunk_sectors);
	a->geom.data_offset = args->md_dev ? RL_MD_DATA_OFFSET : 0;
	if (args->region_sectors)
		a->region_shift = ilog2(args->region_sectors);
	if (args->homehost)
		strscpy(a->homehost, args->homehost, sizeof(a->homehost));
	a->redundancy = rl_args_redundancy(args);
	a->stripe_cache = args->stripe_cache;
	a->opt_stripes_set = args->stripes_set;
	a->assume_clean = args->assume_clean;
	a->start_dirty_degraded = args->start_dirty_degraded;
	a->policy = args->policy;
	a->opt_sched_set = args->policy != &rl_sched_fifo || args->depth_set;
	a->queue_depth = args->queue_depth;
	a->journal = args->journal;
	memcpy(a->sopt, args->sopt, sizeof(a->sopt));
	a->sopt_given = args->sopt_given;
	for (i = 0; i < RL_MAX_SCHEME_OPTS; i++) {
		if (!args->sopt_word[i])
			continue;
		a->sopt_word[i] = kstrdup(args->sopt_word[i], GFP_KERNEL);
		if (!a->sopt_word[i]) {
			rl_array_free(a);
			return NULL;
		}
	}
	a->track_stopped = true;	/* until the first resume */
	a->postsuspended = true;	/* as it were: never resumed yet */
	INIT_WORK(&a->event_work, rl_event_work);
	rl_failrec_init(a);
	for (i = 0; i < args->nr_devs; i++) {
		rl_queue_init(a, i);
		for (k = 0; k < RL_NR_KINDS; k++)
			atomic64_set(&a->members[i].io[k], 0);
		atomic_set(&a->members[i].inflight, 0);
	}
	atomic64_set(&a->logical[READ], 0);
	atomic64_set(&a->logical[WRITE], 0);
	return a;
}

/*
 * The scheme's ->ctr; then, with members missing past the count args.c
 * checks, whether its layout survives them (->survives).
 */
static int rl_scheme_ctr(struct rl_array *a, const struct rl_args *args)
{
	int r = a->ops->ctr(a);

	if (r || !args->nr_missing || rl_array_alive(a))
		return r;
	a->ops->dtr(a);
	a->ti->error = "More members missing than the scheme survives";
	return -EINVAL;
}

/*
 * Undo a failed construction's work after the trackers and the metadata
 * were set up (the scheme gone already): its trackers, which a scheme
 * may have loaded, the work items, the bad-block lists, the metadata.
 */
static void rl_ctr_unwind(struct rl_array *a)
{
	rl_track_quiesce(a);
	rl_track_free(a);
	flush_workqueue(a->wq);		/* a failure record uses the metadata */
	cancel_work_sync(&a->event_work);	/* and raises an event */
	rl_bbl_close(a);
	rl_md_close(a->md);
}

/*
 * Open the metadata, and record the members missing from the line: 0, or
 * an error with ti->error set (a->md set if the metadata is open).
 */
static int rl_ctr_metadata(struct rl_array *a)
{
	struct dm_target *ti = a->ti;
	int r;

	if (!a->md_dev)
		return 0;
	r = rl_md_open(a, a->md_dev, rl_member_fail, &a->md, &ti->error);
	if (r)
		return r;
	r = rl_failrec_load(a);
	if (r)
		ti->error = "Cannot record missing members in the metadata";
	return r;
}

static int raidlab_ctr(struct dm_target *ti, unsigned int argc, char **argv)
{
	struct rl_args args;
	struct rl_array *a;
	int r;

	r = rl_parse_args(argc, argv, &args, &ti->error);
	if (r)
		return r;
	a = rl_array_alloc(ti, &args);
	if (!a) {
		ti->error = "Cannot allocate array context";
		return -ENOMEM;
	}

	r = rl_get_members(a, &args);
	if (r)
		goto bad_free;

	r = a->ops->capacity(a, ti->len, &ti->error);
	if (r)
		goto bad_put;
	r = rl_check_spares(a);
	if (r)
		goto bad_put;
	/* over a live array: take it over at resume (reload.c) */
	r = rl_reload_ctr(a, argc, argv);
	if (r > 0)
		return 0;
	if (r)
		goto bad_put;

	a->wq = alloc_workqueue("kraidlabd", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!a->wq) {
		ti->error = "Cannot allocate workqueue";
		r = -ENOMEM;
		goto bad_put;
	}

	rl_track_init(a);
	ti->private = a;
	ti->per_io_data_size = sizeof(struct rl_bio) + a->ops->per_bio_size;
	ti->num_flush_bios = a->geom.nr_members;

	r = rl_ctr_metadata(a);
	if (r)
		goto bad_md;

	r = rl_scheme_ctr(a, &args);
	if (r)
		goto bad_md;
	/* after the scheme's areas: an older array may have no room left */
	r = rl_bbl_open(a, &ti->error);
	if (r)
		goto bad_scheme;
	r = rl_sync_init(a, &ti->error);
	if (r)
		goto bad_scheme;
	r = rl_sync_check_start(a, &ti->error);
	if (r)
		goto bad_scheme;
	return 0;

bad_scheme:
	a->ops->dtr(a);
	rl_sync_free(a);	/* after ->dtr, which drains its work items; if any */
bad_md:
	rl_ctr_unwind(a);
	destroy_workqueue(a->wq);
bad_put:
	rl_put_members(a, a->geom.nr_members + 1 + a->nr_spares);
bad_free:
	rl_array_free(a);
	return r;
}

/* The devices the array got from its target's table, put back. */
static void rl_put_all(struct rl_array *a)
{
	unsigned int i;

	rl_put_members(a, a->geom.nr_members + 1 + a->nr_spares);
	for (i = 0; i < RL_MAX_SPARES; i++)
		if (a->retired[i])
			dm_put_device(a->ti, a->retired[i]);
}

static void raidlab_dtr(struct dm_target *ti)
{
	struct rl_array *a = ti->private;

	if (a->reload) {	/* a successor: its devices, nothing else */
		rl_put_all(a);
		rl_reload_free(a);
		rl_array_free(a);
		return;
	}
	rl_track_quiesce(a);
	/*
	 * Drain a->wq before the scheme goes (its items may use the scheme's
	 * state) but keep it until after: a scheme draining its own workers
	 * may still record a failure (rl_failrec_sync()) on it. The sync
	 * service too outlives ->dtr, which drains the scheme's work items
	 * from it (->get_work); its range worker stopped at postsuspend, or
	 * never started.
	 */
	flush_workqueue(a->wq);
	a->ops->dtr(a);
	rl_sync_free(a);
	destroy_workqueue(a->wq);
	rl_bbl_close(a);
	rl_md_close(a->md);
	rl_track_free(a);
	cancel_work_sync(&a->event_work);
	rl_put_all(a);
	rl_array_free(a);
}

static int raidlab_map(struct dm_target *ti, struct bio *bio)
{
	struct rl_array *a = ti->private;
	struct rl_bio *pb = rl_pb(bio);

	if (unlikely(a->reload))	/* never resumed: cannot happen */
		return DM_MAPIO_KILL;
	pb->lsector = dm_target_offset(ti, bio->bi_iter.bi_sector);
	pb->member = RL_NONE;
	pb->dev = NULL;
	pb->held = false;

	if (bio->bi_opf & REQ_PREFLUSH)
		return a->ops->flush ? a->ops->flush(a, bio) :
				       rl_map_duplicate(a, bio);
	/* the metadata cannot record what a write changes: refuse writes */
	if (a->md && op_is_write(bio_op(bio)) && rl_md_failed(a->md))
		return DM_MAPIO_KILL;

	if (bio_op(bio) == REQ_OP_READ)
		atomic64_inc(&a->logical[READ]);
	else if (bio_op(bio) == REQ_OP_WRITE)
		atomic64_inc(&a->logical[WRITE]);

	return a->ops->map(a, bio);
}

/*
 * A write or flush that ends while a member failure is not yet durable is
 * held until it is (failrec.c); its second pass through here ends it.
 */
static int raidlab_end_io(struct dm_target *ti, struct bio *bio,
			  blk_status_t *error)
{
	struct rl_array *a = ti->private;
	int r = DM_ENDIO_DONE;

	if (rl_pb(bio)->held)
		return DM_ENDIO_DONE;
	if (bio->bi_opf & REQ_PREFLUSH) {
		unsigned int m = dm_bio_get_target_bio_nr(bio);

		if (rl_status_fails_member(*error)) {
			rl_member_fail_io(a, m, rl_pb(bio)->dev, "flush failed");
			/* the data is still safe on the other members */
			if (rl_array_alive(a))
				*error = BLK_STS_OK;
		}
	} else if (a->ops->end_io) {
		r = a->ops->end_io(a, bio, error);
	}
	if (r == DM_ENDIO_DONE && rl_failrec_hold(a, bio, *error))
		return DM_ENDIO_INCOMPLETE;
	return r;
}

static void raidlab_presuspend(struct dm_target *ti)
{
	struct rl_array *a = ti->private;

	if (a->reload)
		return;
	rl_track_stop(a);
	rl_sync_stop(a);
	if (a->ops->presuspend)
		a->ops->presuspend(a);
}

/* A suspend that was given up: carry on as after a resume. */
static void raidlab_presuspend_undo(struct dm_target *ti)
{
	struct rl_array *a = ti->private;

	if (a->reload)
		return;
	a->postsuspended = false;
	if (a->ops->resume)
		a->ops->resume(a);
	rl_sync_start(a);
	rl_track_start(a);
}

/*
 * Failed roles go to replacements and spares before the table is live;
 * then the scheme's own (a crash's records replayed).
 */
static int raidlab_preresume(struct dm_target *ti)
{
	struct rl_array *a = ti->private;
	int r;

	if (a->reload) {	/* a reload: the live array is ours now */
		r = rl_reload_adopt(ti);
		if (r)
			return r;
		a = ti->private;
	}
	rl_sync_preresume(a);
	return a->ops->preresume ? a->ops->preresume(a) : 0;
}

static void raidlab_resume(struct dm_target *ti)
{
	struct rl_array *a = ti->private;

	if (a->reload)		/* its preresume refused it */
		return;
	a->postsuspended = false;
	a->resumed_once = true;
	if (a->md)
		rl_md_resume(a->md);
	if (a->ops->resume)
		a->ops->resume(a);
	rl_sync_start(a);
	rl_track_start(a);
}

static void raidlab_postsuspend(struct dm_target *ti)
{
	struct rl_array *a = ti->private;

	if (a->reload)
		return;
	rl_sync_wait(a);
	if (a->ops->postsuspend)
		a->ops->postsuspend(a);
	rl_track_quiesce(a);
	flush_workqueue(a->wq);
	rl_replace_suspended(a);	/* no I/O: a replace's routing ends */
	if (a->md)
		rl_md_intent_flush(a->md, true);	/* clean shutdown */
	a->postsuspended = true;
}

static const char *rl_array_state(struct rl_array *a)
{
	unsigned long out = READ_ONCE(a->failed) | READ_ONCE(a->rebuilding);

	if (!out)
		return "optimal";
	return rl_survives(a, out) ? "degraded" : "failed";
}

/*
 * Status (see Documentation/dm-raidlab.rst). Its first eight fields are
 * dm-raid's (Documentation/admin-guide/device-mapper/dm-raid.rst), so
 * that its readers (libdevmapper's dm_get_status_raid()) read ours:
 *
 * INFO:  <scheme> <#devs> <health_chars> <synced_sectors>/<total_sectors>
 *        <sync_action> <mismatch_cnt> <data_offset> <journal_char>
 *        <array_state> <chunk_sectors>
 *        <logical_reads> <logical_writes>
 *        <data_reads> <data_writes> <parity_reads> <parity_writes>
 *        <dr>:<dw>:<pr>:<pw> for each member
 *        <sched_policy> <queue_depth> <fg_issued> <bg_issued>
 *        <md_backend> <md_state> <intent_dirty_regions> <spares>
 *        <journal> <jnl_records> <jnl_bytes> <jnl_waits>
 *        <bad_blocks>: entries per member, "n:n:...", or "-"
 *        <scheme> <#fields> <fields>...: the scheme's group (->status),
 *        counted here; "<scheme> 0" for a scheme without fields
 * TABLE: the table line, with every option spelled out.
 */

/*
 * A member's health character, dm-raid's: 'D' failed; 'a' alive but not
 * in sync (being rebuilt, or every member while the array resyncs); 'A'
 * alive and in sync.
 */
static char rl_health_char(struct rl_array *a, unsigned int m,
			   bool resyncing)
{
	if (rl_member_failed(a, m))
		return 'D';
	if (resyncing || test_bit(m, &a->rebuilding))
		return 'a';
	return 'A';
}

/* dm-raid's journal character: '-' none, 'A' active (write-through), 'D' dead */
static char rl_journal_char(struct rl_array *a)
{
	if (!a->jnl)
		return '-';
	return a->md && rl_md_failed(a->md) ? 'D' : 'A';
}

/* STATUSTYPE_INFO: the fields of Documentation/dm-raidlab.rst, in order. */
static void rl_status_info(struct rl_array *a, char *result,
			   unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz, i, k;
	u64 io[RL_NR_KINDS] = { 0 };
	u64 issued[RL_NR_CLASSES] = { 0 };
	struct rl_sync_progress p;

	rl_sync_status(a, &p);
	DMEMIT("%s %u ", a->ops->name, a->geom.nr_members);
	for (i = 0; i < a->geom.nr_members; i++)
		DMEMIT("%c", rl_health_char(a, i, p.resyncing));
	DMEMIT(" %llu/%llu %s %llu %llu %c", (unsigned long long)p.done,
	       (unsigned long long)p.total, p.action, p.mismatches,
	       (unsigned long long)a->geom.data_offset, rl_journal_char(a));
	for (i = 0; i < a->geom.nr_members; i++)
		for (k = 0; k < RL_NR_KINDS; k++)
			io[k] += atomic64_read(&a->members[i].io[k]);
	DMEMIT(" %s %llu %llu %llu %llu %llu %llu %llu", rl_array_state(a),
	       (unsigned long long)rl_chunk_sectors(&a->geom),
	       (unsigned long long)atomic64_read(&a->logical[READ]),
	       (unsigned long long)atomic64_read(&a->logical[WRITE]),
	       io[RL_DATA_READ], io[RL_DATA_WRITE],
	       io[RL_PARITY_READ], io[RL_PARITY_WRITE]);
	for (i = 0; i < a->geom.nr_members; i++) {
		struct rl_member *m = &a->members[i];

		DMEMIT(" %llu:%llu:%llu:%llu",
		       (u64)atomic64_read(&m->io[RL_DATA_READ]),
		       (u64)atomic64_read(&m->io[RL_DATA_WRITE]),
		       (u64)atomic64_read(&m->io[RL_PARITY_READ]),
		       (u64)atomic64_read(&m->io[RL_PARITY_WRITE]));
		for (k = 0; k < RL_NR_CLASSES; k++)
			issued[k] += atomic64_read(&m->q.dispatched[k]);
	}
	DMEMIT(" %s %u %llu %llu", READ_ONCE(a->policy)->name,
	       a->queue_depth, issued[RL_FG], issued[RL_BG]);
	*psz = sz;
}

/* STATUSTYPE_INFO after the queues: metadata, journal, bad blocks. */
static void rl_status_info_md(struct rl_array *a, char *result,
			      unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz, i, spares = 0;
	u64 jrec = 0, jbytes = 0, jwaits = 0, dirty = 0, writes;

	for (i = 0; i < a->nr_spares; i++)
		spares += a->spares[i] && !test_bit(i, &a->spares_held);
	if (a->md)
		rl_md_intent_counts(a->md, &dirty, &writes);
	DMEMIT(" %s %s %llu %u", a->md ? rl_md_backend(a->md) : "-",
	       !a->md ? "-" : rl_md_failed(a->md) ? "readonly" : "ok",
	       dirty, spares);
	if (a->jnl)
		rl_jnl_counts(a->jnl, &jrec, &jbytes, &jwaits);
	DMEMIT(" %s %llu %llu %llu", a->jnl ? rl_jnl_backend(a->jnl) : "off",
	       jrec, jbytes, jwaits);
	if (!a->bbl)
		DMEMIT(" -");
	for (i = 0; a->bbl && i < a->geom.nr_members; i++)
		DMEMIT("%c%u", i ? ':' : ' ', rl_bbl_count(a, i));
	*psz = sz;
}

/*
 * Put the count of the words emitted since @start (each after a space)
 * before them: " <count>" at @start. The count is never kept by hand.
 */
static void rl_status_count_words(char *result, unsigned int maxlen,
				  unsigned int start, unsigned int *psz)
{
	unsigned int sz = *psz, i, words = 0;
	char count[16];
	int n;

	if (sz >= maxlen)
		return;			/* truncated: dm asks again, larger */
	for (i = start; i < sz; i++)
		words += result[i] == ' ';
	n = scnprintf(count, sizeof(count), " %u", words);
	if (sz + n >= maxlen) {
		*psz = maxlen;
		return;
	}
	memmove(result + start + n, result + start, sz - start + 1);
	memcpy(result + start, count, n);
	*psz = sz + n;
}

/* STATUSTYPE_TABLE: the line, its options normalised and counted. */
/*
 * The scheme's group, last on the INFO line: "<scheme> <#fields>
 * <fields>...", counted here, so that a reader skips a scheme it does not
 * know (0 fields for a scheme without ->status).
 */
static void rl_status_info_scheme(struct rl_array *a, char *result,
				  unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz, start;

	DMEMIT(" %s", a->ops->name);
	start = sz;
	if (a->ops->status)
		a->ops->status(a, STATUSTYPE_INFO, result, maxlen, &sz);
	rl_status_count_words(result, maxlen, start, &sz);
	*psz = sz;
}

static void rl_status_table(struct rl_array *a, char *result,
			    unsigned int maxlen, unsigned int *psz)
{
	unsigned int sz = *psz, i, start;

	DMEMIT("%s", a->ops->name);
	start = sz;
	DMEMIT(" chunk_size %llu", (unsigned long long)rl_chunk_sectors(&a->geom));
	if (a->stripe_cache)	/* the stripe engine's */
		DMEMIT(" stripe_cache %u", a->stripe_cache);
	if (a->assume_clean)
		DMEMIT(" assume_clean");
	if (a->start_dirty_degraded)
		DMEMIT(" start_dirty_degraded");
	DMEMIT(" sched %s queue_depth %u", READ_ONCE(a->policy)->name,
	       a->queue_depth);
	if (a->ops->status)
		a->ops->status(a, STATUSTYPE_TABLE, result, maxlen, &sz);
	if (a->md) {
		DMEMIT(" metadata %s region_size %llu", a->md_dev->name,
		       1ULL << rl_md_state(a->md)->region_shift);
		if (a->homehost[0])
			DMEMIT(" homehost %s", a->homehost);
		for (i = 0; i < a->nr_spares; i++)
			if (a->spares[i])
				DMEMIT(" spare %s", a->spares[i]->name);
	}
	if (a->journal != RL_JNL_AUTO)
		DMEMIT(" journal %s", a->journal == RL_JNL_ON ? "on" : "off");
	rl_status_count_words(result, maxlen, start, &sz);
	DMEMIT(" %u", a->geom.nr_members);
	for (i = 0; i < a->geom.nr_members; i++)
		DMEMIT(" %s", a->members[i].dev ?
		       a->members[i].dev->name : "-");
	*psz = sz;
}

static void raidlab_status(struct dm_target *ti, status_type_t type,
			   unsigned int status_flags, char *result,
			   unsigned int maxlen)
{
	struct rl_array *a = ti->private;
	unsigned int sz = 0, i;

	if (a->reload) {
		rl_reload_status(a, type, result, maxlen);
		return;
	}
	switch (type) {
	case STATUSTYPE_INFO:
		rl_status_info(a, result, maxlen, &sz);
		rl_status_info_md(a, result, maxlen, &sz);
		rl_status_info_scheme(a, result, maxlen, &sz);
		break;

	case STATUSTYPE_TABLE:
		rl_status_table(a, result, maxlen, &sz);
		break;

	case STATUSTYPE_IMA:
		DMEMIT_TARGET_NAME_VERSION(ti->type);
		DMEMIT(",scheme=%s,nr_members=%u,chunk_sectors=%llu,health=",
		       a->ops->name, a->geom.nr_members,
		       (unsigned long long)rl_chunk_sectors(&a->geom));
		for (i = 0; i < a->geom.nr_members; i++)
			DMEMIT("%c", rl_member_failed(a, i) ? 'D' : 'A');
		DMEMIT(";");
		break;
	}
}

static int raidlab_iterate_devices(struct dm_target *ti,
				   iterate_devices_callout_fn fn, void *data)
{
	struct rl_array *a = ti->private;
	unsigned int i;
	int r = 0;

	for (i = 0; !r && i < a->geom.nr_members; i++)
		if (a->members[i].dev)
			r = fn(ti, a->members[i].dev, a->geom.data_offset,
			       rl_member_span(a), data);
	return r;
}

static void raidlab_io_hints(struct dm_target *ti, struct queue_limits *limits)
{
	struct rl_array *a = ti->private;

	if (a->reload)
		rl_reload_io_hints(a, limits);
	else if (a->ops->io_hints)
		a->ops->io_hints(a, limits);
}

static struct target_type raidlab_target = {
	.name = "raidlab",
	.version = {RL_VERSION_MAJOR, RL_VERSION_MINOR, RL_VERSION_PATCH},
	.module = THIS_MODULE,
	.ctr = raidlab_ctr,
	.dtr = raidlab_dtr,
	.map = raidlab_map,
	.end_io = raidlab_end_io,
	.presuspend = raidlab_presuspend,
	.presuspend_undo = raidlab_presuspend_undo,
	.postsuspend = raidlab_postsuspend,
	.preresume = raidlab_preresume,
	.resume = raidlab_resume,
	.status = raidlab_status,
	.message = rl_target_message,
	.iterate_devices = raidlab_iterate_devices,
	.io_hints = raidlab_io_hints,
};

static int __init dm_raidlab_init(void)
{
	return dm_register_target(&raidlab_target);
}

static void __exit dm_raidlab_exit(void)
{
	dm_unregister_target(&raidlab_target);
}

module_init(dm_raidlab_init);
module_exit(dm_raidlab_exit);

MODULE_DESCRIPTION(DM_NAME " target for classic disk-array redundancy schemes");
MODULE_AUTHOR("The dm-raidlab developers");
/* dkms.conf's PACKAGE_VERSION is the same (tests/tools/test_install.py) */
MODULE_VERSION(__stringify(RL_VERSION_MAJOR) "." __stringify(RL_VERSION_MINOR)
	       "." __stringify(RL_VERSION_PATCH));
MODULE_LICENSE("GPL");
