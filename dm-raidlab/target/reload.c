// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab: a table loaded over a live array with a metadata device
 * (dmsetup reload), as dm-thin's pool and dm-cache's metadata are shared
 * by a device's successive tables.
 *
 * The live array's state (its metadata, the scheme's durable tables and
 * in-memory state, the jobs, the held regions) is not built a second
 * time: the new table takes the array over. Its constructor makes a
 * successor, an array context that only holds the new line's devices
 * (dm gives it the same struct dm_dev as the live table for the same
 * path) and checks the line against the live array under the metadata
 * device's claim (rl_md_with_claimant()): it opens nothing twice, writes
 * nothing, starts nothing. What may change: the spares (added, removed),
 * sched, homehost, and the disks of failed roles (a failed disk left out,
 * "-"; a disk given to a missing role, which it is rebuilt into).
 * Everything else must be the live array's as `dmsetup table` shows it
 * (the roles' disks as they are now, a spare that took a role in its
 * member slot).
 *
 * dm then suspends the live table (postsuspend: the jobs stopped, the
 * metadata clean), swaps the tables, and calls the new table's
 * preresume: rl_reload_adopt() checks again, claims the new spares, and
 * exchanges the two tables' contexts. The live array now belongs to the
 * new target (ti->private, a->ti), with the new line's spares; the
 * successor, with the old line's devices, to the old target, whose
 * destructor only puts them. If the adoption fails, the old table is
 * destroyed all the same (dm destroys it after the swap): its array
 * shuts down as at a removal, clean, and the device stays suspended
 * with the successor until a table is loaded again, which then opens
 * the array afresh. A successor never resumed (dmsetup clear, another
 * load) is destroyed with its devices only.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "../raidlab.h"
#include "../svc/metadata.h"
#include "reload.h"

/* A live table line's room: its words are at most 2 + 41 + 1 + 32. */
#define RL_RELOAD_LINE		4096
#define RL_RELOAD_WORDS		80

/* What a successor keeps besides its devices. */
struct rl_reload {
	char *line;			/* its table line, for status TABLE */
	dev_t md_bdev;			/* the metadata device: the claim */
	struct mapped_device *dmd;	/* the device it reloads */
};

char *rl_reload_mismatch(const struct rl_array *live, const struct rl_array *s,
			 u32 region_shift, const struct rl_args *lopts)
{
	unsigned int i, j;

	if (s->ops != live->ops || s->geom.nr_members != live->geom.nr_members ||
	    s->geom.chunk_shift != live->geom.chunk_shift ||
	    s->ti->len != live->ti->len)
		return "A live array keeps its scheme, members, chunk_size and length";
	if ((s->region_shift && s->region_shift != region_shift) ||
	    s->journal != live->journal || s->queue_depth != live->queue_depth ||
	    (s->opt_stripes_set && s->stripe_cache != live->stripe_cache))
		return "A live array keeps its region_size, journal, queue_depth and stripe_cache";
	/* those the line gives, against what the live array's line says */
	for (i = 0; i < RL_MAX_SCHEME_OPTS; i++)
		if ((s->sopt_given & BIT(i)) &&
		    (s->sopt[i] != lopts->sopt[i] ||
		     !s->sopt_word[i] != !lopts->sopt_word[i] ||
		     (s->sopt_word[i] && strcmp(s->sopt_word[i], lopts->sopt_word[i]))))
			return "A live array keeps its scheme's options";
	for (i = 0; i < s->geom.nr_members; i++)
		if (s->members[i].dev != live->members[i].dev &&
		    (!test_bit(i, &live->failed) ||
		     (s->members[i].dev && live->members[i].dev)))
			return "Name each role's disk as the live array has it (dmsetup table)";
	if (live->spares_held)
		return "A spare is held by the scheme's recovery: reload once it ends";
	for (i = 0; i < live->geom.nr_members; i++) {
		for (j = 0; j < s->nr_spares; j++)
			if (live->members[i].dev && s->spares[j] == live->members[i].dev)
				return "A spare is a member of the live array";
		for (j = 0; j < s->geom.nr_members; j++)
			if (j != i && live->members[i].dev &&
			    s->members[j].dev == live->members[i].dev)
				return "A disk is named in another role than the live array's";
	}
	return NULL;
}

/*
 * What the constructor learns of the live array, under its claim; and
 * the superblocks of the line's disks, read before (no I/O under it):
 * the members' at [i], the spares' at [nr_members + j].
 */
struct rl_reload_look {
	struct rl_array *s;
	char *error;
	struct dm_target old;		/* the live target's dm fields */
	sector_t member_span;
	int *read;			/* rl_msb_read_bdev()'s result */
	struct rl_msb_state *msb;
	char *line;			/* the live table line (RL_RELOAD_LINE) */
	char **argv;			/* its words (RL_RELOAD_WORDS) */
	struct rl_args lopts;		/* and what they say */
};

/* The line's disk at slot @k of rl_reload_look (members, then spares). */
static struct dm_dev *rl_reload_disk(struct rl_array *s, unsigned int k)
{
	if (k < s->geom.nr_members)
		return s->members[k].dev;
	return s->spares[k - s->geom.nr_members];
}

/*
 * The disks the line gives the live array (a spare it has not, a disk
 * for a missing role): big enough for its layout, and a blank disk or
 * one of the array's, by the superblocks read at load.
 */
static char *rl_reload_new_disks(struct rl_array *live, struct rl_reload_look *l)
{
	struct rl_array *s = l->s;
	sector_t need = live->geom.data_offset + rl_member_span(live);
	unsigned int k, i, n = s->geom.nr_members + s->nr_spares;
	struct dm_dev *d;
	char *why;
	int role;

	for (k = 0; k < n; k++) {
		d = rl_reload_disk(s, k);
		if (!d)
			continue;
		if (k < s->geom.nr_members) {
			if (live->members[k].dev)
				continue;	/* the role's disk, as it is */
			role = k;
		} else {
			for (i = 0; i < live->nr_spares; i++)
				if (live->spares[i] == d)
					break;
			if (i < live->nr_spares)
				continue;	/* a spare it has */
			role = -1;
		}
		if (bdev_nr_sectors(d->bdev) < need)
			return "A new disk is smaller than the live array's members";
		why = rl_md_disk_mismatch(live->md, role, l->read[k], &l->msb[k]);
		if (why)
			return why;
	}
	return NULL;
}

/*
 * Whether @live may be taken over by @ti's table: the same device, open
 * (its constructor done), resumed once (the live table, not one loaded
 * and never resumed), and not already taken over by this very table (its
 * line naming the metadata device twice).
 */
static char *rl_reload_whose(struct rl_array *live, struct dm_target *ti)
{
	if (dm_table_get_md(live->ti->table) != dm_table_get_md(ti->table))
		return "Metadata device in use by another array";
	if (!live->md)		/* its constructor is still opening it */
		return "Metadata device in use by a table being loaded";
	if (live->ti->table == ti->table)
		return "The metadata device is named twice in the table";
	if (!live->resumed_once)
		return "Metadata device in use by a table not yet resumed: clear it first";
	return NULL;
}

/*
 * The live array's options as its table line says them, with the values
 * its scheme settled on (plog's log geometry, say): its status TABLE
 * (through dm's method: the line core.c writes), parsed into @args,
 * whose words point into l->line.
 */
static char *rl_reload_live_opts(struct rl_array *live, struct rl_reload_look *l,
				 struct rl_args *args)
{
	unsigned int argc = 0;
	char *p = l->line, *w, *error;

	live->ti->type->status(live->ti, STATUSTYPE_TABLE, 0, l->line,
			       RL_RELOAD_LINE);
	while ((w = strsep(&p, " ")) && argc < RL_RELOAD_WORDS)
		if (*w)
			l->argv[argc++] = w;
	if (rl_parse_args(argc, l->argv, args, &error))
		return "Cannot read the live array's table line";
	return NULL;
}

/* Whether the successor may take @live over: the checks, in order. */
static char *rl_reload_check(struct rl_array *live, struct rl_reload_look *l)
{
	struct rl_args *lopts = &l->lopts;
	char *why;

	if (dm_table_get_mode(l->s->ti->table) != dm_table_get_mode(live->ti->table))
		return "A live array keeps its mode (read-write or read-only)";
	why = rl_reload_live_opts(live, l, lopts);
	if (!why)
		why = rl_reload_mismatch(live, l->s,
					 rl_md_state(live->md)->region_shift, lopts);
	return why ?: rl_reload_new_disks(live, l);
}

static int rl_reload_look(struct rl_array *live, void *ctx)
{
	struct rl_reload_look *l = ctx;

	l->error = rl_reload_whose(live, l->s->ti);
	if (l->error)
		return -EBUSY;
	l->error = rl_reload_check(live, l);
	if (l->error)
		return -EINVAL;
	l->old = *live->ti;
	l->member_span = live->member_span;
	return 0;
}

/* The table line as the constructor got it. */
static char *rl_reload_line(unsigned int argc, char **argv)
{
	size_t len = 1;
	unsigned int i;
	char *line;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	line = kzalloc(len, GFP_KERNEL);
	for (i = 0; line && i < argc; i++) {
		if (i)
			strcat(line, " ");
		strcat(line, argv[i]);
	}
	return line;
}

/* Read the superblocks of the line's disks into @l (nothing locked). */
static int rl_reload_read(struct rl_array *s, struct rl_reload_look *l)
{
	unsigned int k, n = s->geom.nr_members + s->nr_spares;
	struct dm_dev *d;
	char *why;

	l->read = kcalloc(n, sizeof(*l->read), GFP_KERNEL);
	l->msb = kcalloc(n, sizeof(*l->msb), GFP_KERNEL);
	l->line = kzalloc(RL_RELOAD_LINE, GFP_KERNEL);
	l->argv = kcalloc(RL_RELOAD_WORDS, sizeof(*l->argv), GFP_KERNEL);
	if (!l->read || !l->msb || !l->line || !l->argv)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		d = rl_reload_disk(s, k);
		if (d)
			l->read[k] = rl_msb_read_bdev(d->bdev, &l->msb[k], &why);
	}
	return 0;
}

/* Whether @s is loaded over a live array, and may take it over (@l). */
static int rl_reload_find(struct rl_array *s, struct rl_reload_look *l)
{
	int ret;

	ret = rl_md_with_claimant(s->md_dev->bdev->bd_dev, rl_reload_look, l);
	if (ret == -ENOENT)
		return 0;		/* no array has it: a first load */
	if (ret) {
		s->ti->error = l->error ?: "Metadata device in use by a table being loaded";
		return ret;
	}
	return 1;
}

static int rl_reload_any(struct rl_array *live, void *ctx)
{
	return 0;
}

int rl_reload_ctr(struct rl_array *s, unsigned int argc, char **argv)
{
	struct dm_target *ti = s->ti;
	struct rl_reload_look l = { .s = s };
	struct rl_reload *r;
	int ret;

	/* a first load (no array has the metadata) reads nothing more */
	if (!s->md_dev || rl_md_with_claimant(s->md_dev->bdev->bd_dev,
					      rl_reload_any, NULL) == -ENOENT)
		return 0;
	ret = rl_reload_read(s, &l);
	if (!ret)
		ret = rl_reload_find(s, &l);
	else
		ti->error = "Cannot allocate the reload";
	kfree(l.read);
	kfree(l.msb);
	kfree(l.line);
	kfree(l.argv);
	if (ret <= 0)
		return ret;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r)
		r->line = rl_reload_line(argc, argv);
	if (!r || !r->line) {
		kfree(r);
		ti->error = "Cannot allocate the reload";
		return -ENOMEM;
	}
	r->md_bdev = s->md_dev->bdev->bd_dev;
	r->dmd = dm_table_get_md(ti->table);
	s->reload = r;
	s->member_span = l.member_span;
	/* as the scheme's constructor set them on the live target */
	ti->max_io_len = l.old.max_io_len;
	ti->num_flush_bios = l.old.num_flush_bios;
	ti->num_discard_bios = l.old.num_discard_bios;
	ti->num_secure_erase_bios = l.old.num_secure_erase_bios;
	ti->num_write_zeroes_bios = l.old.num_write_zeroes_bios;
	ti->per_io_data_size = l.old.per_io_data_size;
	ti->discards_supported = l.old.discards_supported;
	ti->flush_supported = l.old.flush_supported;
	ti->private = s;
	return 1;
}

/* What the adoption needs under the claim. */
struct rl_reload_take {
	struct dm_target *ti;		/* the new target, with the successor */
	const char *error;
	struct rl_reload_look l;	/* for the live line (no disks read) */
};

/* The disk uuid of each new spare: a spare kept keeps its own. */
static int rl_reload_spares(struct rl_array *live, struct rl_array *s,
			    u8 uuid[][16], char **error)
{
	unsigned int i, j;
	int r;

	for (j = 0; j < s->nr_spares; j++) {
		for (i = 0; i < live->nr_spares; i++)
			if (live->spares[i] && live->spares[i] == s->spares[j])
				break;
		if (i < live->nr_spares) {
			rl_md_spare_uuid(live->md, i, uuid[j]);
			continue;
		}
		r = rl_md_take_spare(live->md, s->spares[j], uuid[j], error);
		if (r)
			return r;
	}
	return 0;
}

/*
 * The failed roles the line names another way (rl_reload_mismatch()
 * allowed them): a disk for a missing one is claimed as its replacement,
 * rebuilt by the lifecycle; a failed disk left out is dropped (the swap
 * gives it to the old target). Returns the replaced roles, or an error.
 */
static int rl_reload_roles(struct rl_array *live, struct rl_array *s,
			   unsigned long *replaced, char **error)
{
	unsigned int i;
	int r;

	*replaced = 0;
	for (i = 0; i < s->geom.nr_members; i++) {
		if (!s->members[i].dev || live->members[i].dev)
			continue;
		r = rl_md_take_role(live->md, i, s->members[i].dev, error);
		if (r)
			return r;
		__set_bit(i, replaced);
	}
	return 0;
}

/*
 * Exchange the contexts: the live array goes to the new target with the
 * new line's spares and roles' disks; the successor to the old target with
 * the old line's spares, retired and dropped disks (all its references),
 * for its destructor.
 */
static void rl_reload_swap(struct rl_array *live, struct rl_array *s,
			   u8 uuid[][16], unsigned long replaced)
{
	struct dm_target *old = live->ti, *ti = s->ti;
	struct dm_dev *spares[RL_MAX_SPARES];
	unsigned int i, j, nr = live->nr_spares;

	for (i = 0; i < s->geom.nr_members; i++) {
		swap(live->members[i].dev, s->members[i].dev);
		if (!live->members[i].dev)	/* no disk: nothing to rebuild */
			clear_bit(i, &live->replacements);
	}
	live->replacements |= replaced;
	/* as the line says them (they matter at a first load only) */
	live->assume_clean = s->assume_clean;
	live->start_dirty_degraded = s->start_dirty_degraded;

	memcpy(spares, live->spares, sizeof(spares));
	memcpy(live->spares, s->spares, sizeof(spares));
	memcpy(s->spares, spares, sizeof(spares));
	memcpy(s->retired, live->retired, sizeof(s->retired));
	memset(live->retired, 0, sizeof(live->retired));
	live->nr_spares = s->nr_spares;
	s->nr_spares = nr;
	for (j = 0; j < live->nr_spares; j++)
		rl_md_set_spare_uuid(live->md, j, uuid[j]);
	if (s->policy != READ_ONCE(live->policy))
		rl_queue_set_policy(live, s->policy);
	live->ti = ti;
	s->ti = old;
	ti->private = live;
	old->private = s;
}

static int rl_reload_take(struct rl_array *live, void *ctx)
{
	struct rl_reload_take *t = ctx;
	struct rl_array *s = t->ti->private;
	u8 uuid[RL_MAX_SPARES][16];
	unsigned long replaced;
	char *error = NULL;
	int r;

	t->error = rl_reload_whose(live, t->ti);
	if (t->error)
		return -EBUSY;
	if (!live->postsuspended) {
		t->error = "the live array was not suspended";
		return -EBUSY;
	}
	t->error = rl_reload_live_opts(live, &t->l, &t->l.lopts);
	if (!t->error)
		t->error = rl_reload_mismatch(live, s,
					      rl_md_state(live->md)->region_shift,
					      &t->l.lopts);
	if (t->error)
		return -EINVAL;
	r = rl_reload_spares(live, s, uuid, &error);
	if (!r)
		r = rl_reload_roles(live, s, &replaced, &error);
	if (r) {
		t->error = error;
		return r;
	}
	if (s->homehost[0] && strcmp(s->homehost, live->homehost)) {
		r = rl_md_set_homehost(live->md, s->homehost);
		if (r) {
			t->error = "Cannot write the metadata device";
			return r;
		}
		strscpy(live->homehost, s->homehost, sizeof(live->homehost));
	}
	flush_work(&live->event_work);	/* an event on the old table */
	rl_reload_swap(live, s, uuid, replaced);
	return 0;
}

/* Say how the adoption went. */
static void rl_reload_adopted(struct dm_target *ti, struct rl_array *s, int r,
			      const char *error)
{
	struct rl_array *a = ti->private;

	if (r == -ENOENT)
		error = "the live array is gone: load the table again";
	if (r) {
		DMERR("%s: reload refused: %s", dm_device_name(s->reload->dmd),
		      error ?: "the metadata device is being opened");
		return;
	}
	DMINFO("%s: reloaded: %u spare(s), sched %s",
	       dm_table_device_name(ti->table), a->nr_spares,
	       READ_ONCE(a->policy)->name);
}

int rl_reload_adopt(struct dm_target *ti)
{
	struct rl_array *s = ti->private;
	struct rl_reload_take *t = kzalloc(sizeof(*t), GFP_KERNEL);
	int r = -ENOMEM;

	if (t) {
		t->ti = ti;
		t->l.line = kzalloc(RL_RELOAD_LINE, GFP_KERNEL);
		t->l.argv = kcalloc(RL_RELOAD_WORDS, sizeof(char *), GFP_KERNEL);
	}
	if (t && t->l.line && t->l.argv)
		r = rl_md_with_claimant(s->reload->md_bdev, rl_reload_take, t);
	else if (t)
		t->error = "out of memory";
	rl_reload_adopted(ti, s, r, t ? t->error : "out of memory");
	if (t) {
		kfree(t->l.line);
		kfree(t->l.argv);
	}
	kfree(t);
	return r;
}

void rl_reload_status(struct rl_array *s, status_type_t type, char *result,
		      unsigned int maxlen)
{
	unsigned int sz = 0, i;

	if (type == STATUSTYPE_TABLE) {
		DMEMIT("%s", s->reload->line);
		return;
	}
	if (type != STATUSTYPE_INFO)
		return;
	/* dm-raid's first fields: not in sync, nothing done, frozen */
	DMEMIT("%s %u ", s->ops->name, s->geom.nr_members);
	for (i = 0; i < s->geom.nr_members; i++)
		DMEMIT("a");
	DMEMIT(" 0/%llu frozen 0 %llu -", (unsigned long long)s->ti->len,
	       (unsigned long long)s->geom.data_offset);
}

struct rl_reload_hint {
	struct rl_array *s;
	struct queue_limits *limits;
};

static int rl_reload_hints(struct rl_array *live, void *ctx)
{
	struct rl_reload_hint *h = ctx;

	if (dm_table_get_md(live->ti->table) == h->s->reload->dmd &&
	    live->ops->io_hints)
		live->ops->io_hints(live, h->limits);
	return 0;
}

void rl_reload_io_hints(struct rl_array *s, struct queue_limits *limits)
{
	struct rl_reload_hint h = { .s = s, .limits = limits };

	rl_md_with_claimant(s->reload->md_bdev, rl_reload_hints, &h);
}

void rl_reload_free(struct rl_array *s)
{
	kfree(s->reload->line);
	kfree(s->reload);
	s->reload = NULL;
}
