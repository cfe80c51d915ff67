// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab sr: SR-Array and SR-Mirror (Yu et al., "Trading Capacity for
 * Performance in a Disk Array", paper 002). D = Ds x Dr x Dm members: the
 * data is striped over Ds x Dr columns in chunks (64 KiB by default),
 * each column is kept on Dm members (mirrors, side by side as raid10's
 * near layout), and on each member every sector has Dr rotational
 * replicas, evenly spaced in angle on the tracks of one cylinder
 * (svc/rrep.h), so that a read waits about R / (2 Dr) for the platter
 * instead of R / 2; each member uses only the outer cylinders it needs.
 * sr Ds x 1 x 2 is RAID-10, D x 1 x 1 striping, 1 x 1 x D a D-way mirror.
 *
 * The I/O is the copy-set engine's with replicas (engines/copyset.c,
 * engines/copyset_rep.c): a read goes to one member and is offered
 * every replica of its run that stays on its track, and the member's
 * queue policy picks one (rlook or rsatf; the sched option); a write
 * goes to every replica of every mirror before it completes
 * (foreground propagation, the paper's Fig. 5 and 13); resync copies
 * replica 0 over the others, check compares every replica of every
 * copy, rebuild writes every replica of the new member. Each member's
 * tracker is loaded with the table's geometry (the geom message
 * recalibrates it).
 *
 * Table options, after the generic ones:
 *
 *   dr <1..6>          rotational replicas on a member (default 1)
 *   dm <1..32>         members holding each column (default 1)
 *   geom <line>        the members' geometry, in the tracker's format
 *                      (raidlab-sched.rst), required; Dr at most its
 *                      heads
 *   propagate fg|bg    fg: a write goes to every replica before it
 *                      completes; bg: to replica 0 of each copy, the
 *                      others written when the members are idle
 *                      (engines/copyset_prop.c); bg needs a metadata
 *                      device (default: bg with one, fg without)
 *   table_entries <n>  writes whose replicas may wait, 1 to 100000
 *                      (default 10000, the paper's); past them a write
 *                      propagates in the foreground
 *   reads balance|dup  with dm > 1: one copy, or (the default) the
 *                      paper's section 3.3, an idle member holding a
 *                      copy takes the read, else it waits on every one
 *                      (engines/copyset_read.c)
 *
 * Ds is the members over Dr x Dm. The layout (Ds, Dr, Dm, the chunk and
 * where the geometry puts the replicas) is recorded in the copy layout
 * record of the metadata, so another line is refused; the record keeps
 * these options' words too (sr_words()), for "raidlab assemble".
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "../engines/copyset.h"
#include "../svc/layout.h"
#include "../svc/rrep.h"
#include "../svc/tracker.h"

enum sr_opt {
	SR_OPT_DR,
	SR_OPT_DM,
	SR_OPT_GEOM,
	SR_OPT_PROPAGATE,
	SR_OPT_TABLE_ENTRIES,
	SR_OPT_READS,
	SR_NR_OPTS,
};

/* reads not given: dup with dm > 1 (paper 002 section 3.3), else balance */
#define SR_READS_AUTO	(RL_CS_READS_DUP + 1)

/* propagate's values; auto (not given) is bg with a metadata device */
enum sr_propagate {
	SR_PROP_AUTO,
	SR_PROP_FG,
	SR_PROP_BG,
};

#define SR_TABLE_ENTRIES	10000	/* paper 002 section 3.4 */

/* Any geometry line the tracker takes (rl_disk_geom_parse()). */
static int sr_parse_geom(const char *word, unsigned int *val)
{
	struct rl_disk_geom g;
	char *error;

	if (rl_disk_geom_parse(word, &g, &error))
		return -EINVAL;
	*val = 1;
	return 0;
}

static int sr_parse_propagate(const char *word, unsigned int *val)
{
	if (!strcasecmp(word, "fg"))
		*val = SR_PROP_FG;
	else if (!strcasecmp(word, "bg"))
		*val = SR_PROP_BG;
	else
		return -EINVAL;
	return 0;
}

/* In enum sr_opt's order. */
static const struct rl_opt sr_opts[SR_NR_OPTS] = {
	[SR_OPT_DR] = RL_OPT("sr", dr, 1, RL_RREP_MAX_DR, .def = 1),
	[SR_OPT_DM] = RL_OPT("sr", dm, 1, RL_MAX_MEMBERS, .def = 1),
	[SR_OPT_GEOM] = RL_OPT("sr", geom, 0, 1, .def = 0,
		.parse = sr_parse_geom, .word = true,
		.invalid = "Invalid geom: a geometry line (raidlab-sched.rst)"),
	[SR_OPT_PROPAGATE] = RL_OPT("sr", propagate, 0, 0, .def = SR_PROP_AUTO,
		.parse = sr_parse_propagate,
		.invalid = "Invalid propagate: fg or bg"),
	[SR_OPT_TABLE_ENTRIES] = RL_OPT("sr", table_entries, 1, 100000,
		.def = SR_TABLE_ENTRIES),
	[SR_OPT_READS] = RL_CS_OPT_READS_DEF(SR_READS_AUTO),
};

/* The layout's options as the line and the layout record give them. */
#define SR_WORDS	"dr %u dm %u geom %s"

/*
 * The longest geom line: the layout record keeps "dr N dm N geom <line>"
 * (RL_CS_WORDS_MAX with its NUL), for the tools to assemble the array.
 */
#define SR_GEOM_MAX	(RL_CS_WORDS_MAX - 32)

/* Before the members are read: their count is checked by ->capacity. */
static int sr_check_args(const struct rl_args *args, char **error)
{
	if (!args->sopt[SR_OPT_GEOM]) {
		*error = "sr needs geom (the members' geometry)";
		return -EINVAL;
	}
	if (strlen(args->sopt_word[SR_OPT_GEOM]) > SR_GEOM_MAX) {
		*error = "sr: geom is too long (at most 2016 characters)";
		return -EINVAL;
	}
	return 0;
}

/* Any dm - 1 members may fail. */
static unsigned int sr_redundancy_of(const struct rl_args *args)
{
	return args->sopt[SR_OPT_DM] - 1;
}

static unsigned int sr_dm(const struct rl_array *a)
{
	return a->sopt[SR_OPT_DM];
}

/*
 * The replica layout of a member from the table's geometry, over member
 * sectors [data_offset, @end). Allocates *@rr (kfree() it). Sets *@error.
 */
static int sr_rrep(struct rl_array *a, u64 end, struct rl_rrep **rr,
		   char **error)
{
	struct rl_disk_geom *g = kmalloc(sizeof(*g), GFP_KERNEL);
	int r = -ENOMEM;

	*rr = kmalloc(sizeof(**rr), GFP_KERNEL);
	if (!g || !*rr) {
		*error = "Cannot allocate the replica layout";
		goto out;
	}
	r = rl_disk_geom_parse(a->sopt_word[SR_OPT_GEOM], g, error) ?:
	    rl_rrep_init(*rr, g, a->sopt[SR_OPT_DR], a->geom.data_offset,
			 end ?: g->capacity, error);
out:
	kfree(g);
	if (r) {
		kfree(*rr);
		*rr = NULL;
	}
	return r;
}

/*
 * Ds x Dr x Dm members. Each holds what the geometry's whole cylinders
 * hold between the data offset and its end; the columns are sized from
 * @len as raid10 near's with dm copies, and the replicas reach to the end
 * of the cylinder that holds a column's last sector (member_span: what
 * the members and spares must hold, and what "owner" answers for).
 */
static int sr_capacity(struct rl_array *a, sector_t len, char **error)
{
	struct rl_rrep *rr;
	int r;

	if (a->geom.nr_members % (a->sopt[SR_OPT_DR] * sr_dm(a))) {
		*error = "sr: the members must be a multiple of dr times dm";
		return -EINVAL;
	}
	r = sr_rrep(a, a->geom.data_offset + a->member_sectors, &rr, error);
	if (r)
		return r;
	a->member_sectors = rr->capacity;
	r = rl_copyset_capacity(a, RL_CS_NEAR, sr_dm(a), len, error);
	if (!r)
		a->member_span = rl_rrep_end(rr, a->member_sectors) -
				 a->geom.data_offset;
	kfree(rr);
	return r;
}

/* Every replica of every copy: replica 0 of the first copy the data. */
static void sr_locate(struct rl_array *a, sector_t lsector,
		      struct rl_locset *ls)
{
	const struct rl_rrep *rr = rl_copyset_rrep(a);
	struct rl_cs_copy c[RL_MAX_LOCS];
	struct rl_rrep_loc l;
	struct rl_cs_layout cl;
	sector_t len;
	unsigned int j, r;

	rl_copyset_layout(a, RL_CS_NEAR, sr_dm(a), &cl);
	len = rl_cs_map(&cl, lsector, c);
	/* as far as every replica of every copy is one run */
	for (j = 0; j < cl.copies; j++) {
		rl_rrep_map(rr, c[j].sector, &l);
		len = rl_rrep_unwrapped(rr, &l, min_t(sector_t, len, U32_MAX));
	}
	rl_locset_init(ls, len, 0, 0);
	for (j = 0; j < cl.copies; j++) {
		rl_rrep_map(rr, c[j].sector, &l);
		for (r = 0; r < rr->dr; r++)
			rl_locset_add(ls, c[j].member, rl_rrep_sector(rr, &l, r),
				      j || r ? RL_PART_COPY : RL_PART_DATA);
	}
}

static enum rl_part sr_owner(struct rl_array *a, unsigned int member,
			     sector_t msector, sector_t *lsector)
{
	const struct rl_rrep *rr = rl_copyset_rrep(a);
	struct rl_cs_layout cl;
	unsigned int r;
	u64 y;
	int j;

	if (rl_rrep_unmap(rr, msector, &y, &r))
		return RL_PART_NONE;
	rl_copyset_layout(a, RL_CS_NEAR, sr_dm(a), &cl);
	j = rl_cs_unmap(&cl, member, y, lsector);
	if (j < 0)
		return RL_PART_NONE;
	return j || r ? RL_PART_COPY : RL_PART_DATA;
}

/* The table's geometry in every member's tracker (rlook, rsatf). */
static int sr_load_trackers(struct rl_array *a)
{
	unsigned int m;
	int r;

	for (m = 0; m < a->geom.nr_members; m++) {
		if (!a->members[m].dev)
			continue;
		r = rl_track_set_geom(a, m, a->sopt_word[SR_OPT_GEOM],
				      &a->ti->error);
		if (r)
			return r;
	}
	return 0;
}

/*
 * The scheme's words of the layout record: what "raidlab assemble" puts
 * on the line (as sr_status()'s TABLE). kfree() them.
 */
static char *sr_words(const struct rl_array *a)
{
	return kasprintf(GFP_KERNEL, SR_WORDS, a->sopt[SR_OPT_DR], sr_dm(a),
			 a->sopt_word[SR_OPT_GEOM]);
}

/*
 * Delayed propagation, as the propagate option and the metadata device
 * say (records on a DAX one, else the write-intent bitmap, cover the
 * replicas that wait; the records a crash left are replayed at
 * ->preresume); the option is set to what it resolves to. Sets ti->error
 * on failure.
 */
static int sr_propagation(struct rl_array *a)
{
	unsigned int *mode = &a->sopt[SR_OPT_PROPAGATE];

	if (*mode == SR_PROP_BG && !a->md) {
		a->ti->error = "propagate bg needs a metadata device (its write-intent bitmap)";
		return -EINVAL;
	}
	/* with one replica there is nothing to delay */
	if (*mode == SR_PROP_AUTO || a->sopt[SR_OPT_DR] < 2)
		*mode = a->md && a->sopt[SR_OPT_DR] > 1 ? SR_PROP_BG :
							  SR_PROP_FG;
	if (*mode == SR_PROP_FG)
		return 0;
	return rl_copyset_propagation(a, a->sopt[SR_OPT_TABLE_ENTRIES]);
}

static int sr_ctr(struct rl_array *a)
{
	struct rl_cs_layout l;
	struct rl_rrep *rr;
	char *words;
	int r;

	/* the whole geometry: the same zones at every load */
	r = sr_rrep(a, 0, &rr, &a->ti->error);
	if (r)
		return r;
	words = sr_words(a);
	if (!words) {
		kfree(rr);
		a->ti->error = "Cannot allocate the layout record's words";
		return -ENOMEM;
	}
	rl_copyset_layout(a, RL_CS_NEAR, sr_dm(a), &l);
	a->ti->num_discard_bios = 1;
	if (a->sopt[SR_OPT_READS] == SR_READS_AUTO)
		a->sopt[SR_OPT_READS] = sr_dm(a) > 1 ? RL_CS_READS_DUP :
						       RL_CS_READS_BALANCE;
	r = rl_copyset_create(a, &l, a->sopt[SR_OPT_READS], rr, words);
	kfree(words);
	kfree(rr);
	if (r)
		return r;
	/* the core frees the trackers if the constructor fails later */
	r = sr_propagation(a) ?: sr_load_trackers(a);
	if (r)
		rl_copyset_destroy(a);
	return r;
}

/* A chunk the smallest I/O worth it; a row of chunks over the columns. */
static void sr_io_hints(struct rl_array *a, struct queue_limits *limits)
{
	unsigned int chunk_bytes = rl_chunk_sectors(&a->geom) << SECTOR_SHIFT;
	unsigned int cols = max(a->geom.nr_members / sr_dm(a), 1U);

	rl_limits_io(limits, chunk_bytes, chunk_bytes * cols);
}

static void sr_status(struct rl_array *a, status_type_t type, char *result,
		      unsigned int maxlen, unsigned int *psz)
{
	unsigned int dr = a->sopt[SR_OPT_DR], dm = sr_dm(a);
	unsigned int sz = *psz;

	if (type == STATUSTYPE_INFO) {
		DMEMIT(" %u %u %u", a->geom.nr_members / (dr * dm), dr, dm);
	} else if (type == STATUSTYPE_TABLE) {
		DMEMIT(" " SR_WORDS " propagate %s", dr, dm,
		       a->sopt_word[SR_OPT_GEOM],
		       a->sopt[SR_OPT_PROPAGATE] == SR_PROP_BG ? "bg" : "fg");
		if (a->sopt[SR_OPT_TABLE_ENTRIES] != SR_TABLE_ENTRIES)
			DMEMIT(" table_entries %u",
			       a->sopt[SR_OPT_TABLE_ENTRIES]);
		/* reads when not what it resolves to unless given */
		if (a->sopt[SR_OPT_READS] !=
		    (dm > 1 ? RL_CS_READS_DUP : RL_CS_READS_BALANCE))
			DMEMIT(" reads %s",
			       rl_cs_reads_name(a->sopt[SR_OPT_READS]));
	}
	*psz = sz;
	if (type == STATUSTYPE_INFO) {
		rl_copyset_status_replicas(a, result, maxlen, psz);
		rl_copyset_status_prop(a, result, maxlen, psz);
	}
}

const struct rl_scheme_ops rl_sr_ops = {
	.name = "sr",
	.per_bio_size = sizeof(struct rl_cs_bio),
	.min_members = 1,
	.redundancy = 1,
	.parity = false,
	.opts = sr_opts,
	.nr_opts = SR_NR_OPTS,
	.check_args = sr_check_args,
	.redundancy_of = sr_redundancy_of,
	.capacity = sr_capacity,
	.locate = sr_locate,
	.owner = sr_owner,
	.ctr = sr_ctr,
	.dtr = rl_copyset_destroy,
	.map = rl_copyset_map,
	.end_io = rl_copyset_end_io,
	.io_hints = sr_io_hints,
	.status = sr_status,
	.sync_range = rl_copyset_sync_range,
	.readd = true,
	.replace = true,
	.survives = rl_copyset_survives,
	.postsuspend = rl_copyset_postsuspend,
	.preresume = rl_copyset_preresume,
	.resume = rl_copyset_resume,
	.get_work = rl_copyset_get_work,
	.do_work = rl_copyset_do_work,
};
