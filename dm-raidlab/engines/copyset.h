/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab copy-set engine: its layouts (copyset_layout.c). A copy-set
 * layout says where the copies of each logical chunk lie over an extent:
 * a set of members (numbered 0..nr-1 within the extent) and the member
 * sectors [base, base + used) on each. The copies of a chunk are at the
 * same offsets within it, so a map holds to the end of the chunk.
 *
 *   mirror   every member holds every sector at the same offset: any
 *            length, in no whole chunks (copies = nr)
 *   near     md raid10's near layout: chunk k's copies are slots
 *            k * copies .. k * copies + copies - 1 of a grid of rows of
 *            nr members, at one member offset when they share a row
 *   far      md raid10's far layout: the members striped as raid0 once
 *            per copy, copy j in the j-th far part of each member,
 *            shifted j members on.
 *   offset   md raid10's offset layout: copy j one chunk row below copy
 *            j - 1, shifted one member on.
 *   chained  chained declustering (Hsiao and DeWitt): chunk k is in
 *            partition k mod nr; its primary copy is in the first half of
 *            that member, its backup in the second half of the next one.
 *
 * near, far and offset place and size exactly as md raid10 does with the
 * layout numbers n<copies>, f<copies> and o<copies> (far sets of all
 * members, md's original layout), so an md user finds the same placement
 * and capacity. Pure: KUnit suite dm_raidlab_copyset, which checks them
 * against md's own formulas.
 */
#ifndef DM_RAIDLAB_COPYSET_H
#define DM_RAIDLAB_COPYSET_H

#include <linux/bits.h>
#include <linux/types.h>

#include "../raidlab.h"
#include "../svc/rrep.h"

enum rl_cs_kind {
	RL_CS_MIRROR,
	RL_CS_NEAR,
	RL_CS_FAR,
	RL_CS_OFFSET,
	RL_CS_CHAINED,
	RL_CS_NR_KINDS,
};

/* A copy-set layout over an extent (rl_cs_init()). */
struct rl_cs_layout {
	enum rl_cs_kind kind;
	unsigned int nr;		/* members in the extent */
	unsigned int copies;		/* of each chunk, on distinct members */
	unsigned int chunk_shift;
	sector_t base;			/* the extent's first member sector */
	sector_t used;			/* member sectors used from base */
	sector_t stride;		/* far: copy to copy; chained: the half */
	sector_t chunks;		/* logical chunks (whole ones) */
	sector_t capacity;		/* logical sectors */
	/*
	 * how each member places its column sectors: 0 at the sector
	 * itself, else the digest of its rotational replicas
	 * (rl_rrep_digest(), the sr scheme); recorded and compared
	 */
	u32 place;
};

/* One copy of a logical sector. */
struct rl_cs_copy {
	unsigned int member;		/* within the extent */
	sector_t sector;		/* member sector, base included */
};

int rl_cs_init(struct rl_cs_layout *l, enum rl_cs_kind kind, unsigned int nr,
	       unsigned int copies, unsigned int chunk_shift, sector_t base,
	       sector_t member_len, char **error);
sector_t rl_cs_map(const struct rl_cs_layout *l, sector_t lsector,
		   struct rl_cs_copy *c);
sector_t rl_cs_copy(const struct rl_cs_layout *l, sector_t lsector,
		    unsigned int j, struct rl_cs_copy *c);
sector_t rl_cs_left(const struct rl_cs_layout *l, sector_t lsector);
int rl_cs_unmap(const struct rl_cs_layout *l, unsigned int member,
		sector_t msector, sector_t *lsector);
const char *rl_cs_kind_name(enum rl_cs_kind kind);

/*
 * The layout a copy-set array was made with (not a mirror's: it has none
 * to choose), in a record area of the metadata, one block: written at the
 * first load, checked at every other, so that a table line with another
 * layout, copy count or size is refused rather than read through another
 * map. Little endian; csum as every metadata record (rl_md_csum()).
 *
 * @words holds the scheme's own table words when the fields do not say
 * them all (sr: "dr 2 dm 1 geom <line>"), NUL-terminated, so that the
 * tools can build the table line from the metadata alone; empty
 * otherwise. They are not compared (kind, copies, used and place are): a
 * load whose words differ rewrites the record with its own, and a record
 * written before 1.14.0 (zeroes there) is given them at its next load.
 */
#define RL_CS_AREA_ID		0x4c534352U	/* "RCSL" */
#define RL_CS_MD_MAGIC		0x4c534352U
#define RL_CS_MD_VERSION	1U
#define RL_CS_MD_CSUM_XOR	0x6c73636cU
#define RL_CS_WORDS_MAX		2048	/* with the NUL */

struct rl_cs_layout_disk {
	__le32 csum;
	__le32 magic;
	__le32 version;
	__le32 kind;			/* enum rl_cs_kind */
	__le32 nr;
	__le32 copies;
	__le32 chunk_shift;
	__le32 place;			/* 0, or the replicas' digest (sr) */
	__le64 used;			/* member sectors */
	char words[RL_CS_WORDS_MAX];	/* the scheme's own table words */
} __packed;

void rl_cs_layout_encode(const struct rl_cs_layout *l, const char *words,
			 void *block);
bool rl_cs_layout_words_same(const void *block, const char *words);
int rl_cs_layout_decode(const void *block, struct rl_cs_layout *l);
bool rl_cs_layout_same(const struct rl_cs_layout *a,
		       const struct rl_cs_layout *b);

/*
 * One piece of an access: a logical range [lsector, lsector + len) within
 * one chunk, so that each copy is one run of member sectors. sector[] is
 * indexed by member, for the members in @members only.
 */
struct rl_cs_piece {
	sector_t lsector;
	sector_t len;
	unsigned long members;		/* a bit a member holding a copy */
	bool same;			/* every copy at the same sector */
	sector_t sector[RL_MAX_MEMBERS];
};

sector_t rl_cs_piece(const struct rl_cs_layout *l, sector_t lsector,
		     sector_t max, struct rl_cs_piece *p);
sector_t rl_cs_member_piece(const struct rl_cs_layout *l, unsigned int member,
			    sector_t msector, sector_t max,
			    struct rl_cs_piece *p);
void rl_cs_piece_sub(const struct rl_cs_piece *p, sector_t off, sector_t len,
		     struct rl_cs_piece *sub);
bool rl_cs_piece_owner(const struct rl_cs_piece *p, unsigned int member);

unsigned int rl_cs_sets(const struct rl_cs_layout *l, unsigned long *sets);
bool rl_cs_survives(const unsigned long *sets, unsigned int nr_sets,
		    unsigned long failed);

/* chained declustering after failures: which copy serves a read */
int rl_cs_chained_share(unsigned int nr, unsigned long failed,
			unsigned int part, unsigned int *num,
			unsigned int *den);
int rl_cs_chained_load(unsigned int nr, unsigned long out, unsigned int m,
		       unsigned int *num, unsigned int *den);
/* reads a member may run ahead of its neighbour, over their loads */
#define RL_CS_SHIFT_SLACK	16
/* the engine's read counts are rebased before the products can overflow */
#define RL_CS_SHIFT_MAX		BIT_ULL(32)
unsigned int rl_cs_chained_prefer(unsigned int nr, unsigned long out,
				  unsigned int choice, unsigned int other,
				  u64 done_choice, u64 done_other);

/*
 * How a read whose copies are all readable and alike is served: the
 * "reads" option of raid10, chained and sr (RL_CS_OPT_READS()).
 *   balance  one copy, chosen by rl_cs_read_balance() (the default)
 *   dup      duplicate-then-cancel (paper 002, section 3.3): to the
 *            balance's choice alone if a member holding a copy is idle,
 *            else queued on every member holding one (at most
 *            RL_DUP_MAX), the first queue to pick it issues it and the
 *            other entries are cancelled (svc/dup.h)
 */
enum rl_cs_reads {
	RL_CS_READS_BALANCE,
	RL_CS_READS_DUP,
};

int rl_cs_parse_reads(const char *word, unsigned int *val);
const char *rl_cs_reads_name(enum rl_cs_reads reads);

/* The option, for a copy-set scheme's option table, with its default. */
#define RL_CS_OPT_READS_DEF(d)						\
	RL_OPT("raid10, chained or sr", reads, RL_CS_READS_BALANCE,	\
	       RL_CS_READS_DUP, .def = (d),				\
	       .parse = rl_cs_parse_reads,				\
	       .invalid = "Invalid reads: balance or dup")
#define RL_CS_OPT_READS	RL_CS_OPT_READS_DEF(RL_CS_READS_BALANCE)

/*
 * The copy-set I/O engine (copyset.c and the files it lists): a scheme
 * that keeps whole copies of each chunk hands it a layout at construction
 * and its map, end_io and sync_range calls; the engine's instance is the
 * array's scheme state (a->scheme). A write's per-bio data of the
 * engine's own, beside struct rl_bio: the scheme's ->per_bio_size.
 */
struct rl_cs_pent;

struct rl_cs_bio {
	atomic_t pending;		/* copies not ended, + 1 while cloning */
	atomic_t ok;			/* copies that landed */
	unsigned long bb_landed;	/* copies that landed over bad blocks */
	sector_t alt[RL_RREP_MAX_DR];	/* a read's replicas (copyset_rep.c) */
	u8 rep[RL_RREP_MAX_DR];		/* which replica each alt[] is */
	struct rl_cs_pent *prop;	/* a write's delayed propagation */
	bool unrecorded;		/* a copy's record failed: the write fails */
};

struct rl_locset;
int rl_copyset_capacity(struct rl_array *a, enum rl_cs_kind kind,
			unsigned int copies, sector_t len, char **error);
void rl_copyset_layout(const struct rl_array *a, enum rl_cs_kind kind,
		       unsigned int copies, struct rl_cs_layout *l);
void rl_copyset_locate(struct rl_array *a, const struct rl_cs_layout *l,
		       sector_t lsector, struct rl_locset *ls);
enum rl_part rl_copyset_owner(struct rl_array *a, const struct rl_cs_layout *l,
			      unsigned int member, sector_t msector,
			      sector_t *lsector);
int rl_copyset_create(struct rl_array *a, const struct rl_cs_layout *l,
		      enum rl_cs_reads reads, const struct rl_rrep *rr,
		      const char *words);
void rl_copyset_destroy(struct rl_array *a);
int rl_copyset_preresume(struct rl_array *a);
int rl_copyset_propagation(struct rl_array *a, unsigned int entries);
bool rl_copyset_get_work(struct rl_array *a, struct rl_work *w);
void rl_copyset_do_work(struct rl_array *a, const struct rl_work *w);
void rl_copyset_postsuspend(struct rl_array *a);
void rl_copyset_resume(struct rl_array *a);
void rl_copyset_status_prop(struct rl_array *a, char *result,
			    unsigned int maxlen, unsigned int *psz);
void rl_copyset_status_table(struct rl_array *a, char *result,
			     unsigned int maxlen, unsigned int *psz);
void rl_copyset_status_replicas(struct rl_array *a, char *result,
				unsigned int maxlen, unsigned int *psz);
const struct rl_rrep *rl_copyset_rrep(struct rl_array *a);
int rl_copyset_map(struct rl_array *a, struct bio *bio);
int rl_copyset_end_io(struct rl_array *a, struct bio *bio,
		      blk_status_t *error);
int rl_copyset_sync_range(struct rl_array *a, struct rl_sync_req *req);
bool rl_copyset_survives(struct rl_array *a, unsigned long failed);

/*
 * Member space (sectors after data_offset) is cut into aligned slots of
 * 1 MiB. A sync window lies inside one slot, and a write is split so that
 * it does too. In-flight writes are counted per bucket: slots hashed by
 * their index modulo RL_CS_BUCKETS.
 */
#define RL_CS_SLOT_SHIFT	11
#define RL_CS_SLOT_SECTORS	BIT(RL_CS_SLOT_SHIFT)
/* a rebuild window no member can read is narrowed down to pieces of this */
#define RL_CS_LOST_SECTORS	8
#define RL_CS_BUCKETS	64

/* What read balancing looks at for one member. */
struct rl_cs_view {
	sector_t head;			/* sector after its last I/O */
	u64 predicted_ns;		/* tracker's access time, 0 for none */
	sector_t sector;		/* where its copy of the read starts */
	unsigned int inflight;		/* I/Os queued or in flight */
	bool failed;			/* or not readable at this sector */
};

/* The sync window: member sectors [start, start + len); len 0 for none. */
struct rl_cs_window {
	sector_t start;
	sector_t len;
};

unsigned int rl_cs_read_balance(const struct rl_cs_view *v, unsigned int nr);
unsigned int rl_cs_read_choose(struct rl_cs_view *v, unsigned int nr,
			       unsigned long unreadable, bool suspect);
unsigned int rl_cs_source(unsigned long unreadable, unsigned int nr);

/* The bucket that counts writes to member sector @msector. */
static inline unsigned int rl_cs_bucket(sector_t msector)
{
	return (msector >> RL_CS_SLOT_SHIFT) & (RL_CS_BUCKETS - 1);
}

bool rl_cs_overlap(sector_t s1, sector_t len1, sector_t s2, sector_t len2);
bool rl_cs_blocks(const struct rl_cs_window *w, sector_t msector,
		  sector_t sectors);
sector_t rl_cs_split_len(sector_t msector, sector_t sectors,
			 unsigned int shift);
sector_t rl_cs_window_len(sector_t msector, sector_t want, sector_t max);
unsigned int rl_cs_diff(const u8 *src, const u8 *buf, unsigned int sectors,
			unsigned long *map, unsigned int *first,
			unsigned int *last);

#endif /* DM_RAIDLAB_COPYSET_H */
