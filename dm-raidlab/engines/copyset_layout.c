// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab copy-set layouts (copyset.h): sizing over an extent, the map
 * of a logical sector to its copies and back, chained declustering's
 * split of reads between a chunk's two copies after failures, and the
 * layout's metadata record. Pure: KUnit suite dm_raidlab_copyset.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "../raidlab.h"
#include "../svc/metadata.h"
#include "copyset.h"

static const char * const rl_cs_names[RL_CS_NR_KINDS] = {
	[RL_CS_MIRROR] = "mirror",
	[RL_CS_NEAR] = "near",
	[RL_CS_FAR] = "far",
	[RL_CS_OFFSET] = "offset",
	[RL_CS_CHAINED] = "chained",
};

const char *rl_cs_kind_name(enum rl_cs_kind kind)
{
	return kind < RL_CS_NR_KINDS ? rl_cs_names[kind] : "?";
}

static int rl_cs_check(enum rl_cs_kind kind, unsigned int nr,
		       unsigned int copies, char **error)
{
	/* near alone takes a single copy: sr's striping (dm 1) */
	unsigned int least = kind == RL_CS_NEAR ? 1 : 2;

	if (kind >= RL_CS_NR_KINDS) {
		*error = "Unknown copy layout";
		return -EINVAL;
	}
	if (nr < least || nr > RL_MAX_MEMBERS) {
		*error = "A copy layout needs 2 to 32 members";
		return -EINVAL;
	}
	if (copies < least || copies > nr) {
		*error = "Copies must be at least 2 and at most the members";
		return -EINVAL;
	}
	if (kind == RL_CS_MIRROR && copies != nr) {
		*error = "A mirror keeps a copy on every member";
		return -EINVAL;
	}
	if (kind == RL_CS_CHAINED && copies != 2) {
		*error = "Chained declustering keeps 2 copies";
		return -EINVAL;
	}
	return 0;
}

/*
 * Size the layout as md raid10 does (raid10_size(), calc_sectors()) with
 * far sets of all members: whole chunks of each member's far part (a
 * member's length over the far copies), times the members over the near
 * copies; each member uses the chunks its copies take, rounded up, and the
 * far stride is that over the far copies. Chained: half of each member for
 * primaries, half for backups.
 */
static void rl_cs_size(struct rl_cs_layout *l, sector_t member_len)
{
	unsigned int far = l->kind == RL_CS_NEAR ? 1 : l->copies;
	unsigned int near = l->kind == RL_CS_NEAR ? l->copies : 1;
	sector_t dev_chunks = member_len >> l->chunk_shift;
	sector_t used;

	if (l->kind == RL_CS_MIRROR) {
		l->chunks = dev_chunks;
		l->capacity = member_len;
		l->used = member_len;
		l->stride = 0;
		return;
	}
	if (l->kind == RL_CS_CHAINED) {
		l->chunks = (dev_chunks / 2) * l->nr;
		l->stride = (dev_chunks / 2) << l->chunk_shift;
		l->used = 2 * l->stride;
	} else {
		l->chunks = div_u64(div_u64(dev_chunks, far) * l->nr, near);
		used = DIV_ROUND_UP_ULL(l->chunks * l->copies, l->nr);
		l->used = used << l->chunk_shift;
		l->stride = 0;		/* near: copies share a row */
		if (l->kind == RL_CS_FAR)
			l->stride = div_u64(used, far) << l->chunk_shift;
		else if (l->kind == RL_CS_OFFSET)
			l->stride = (sector_t)1 << l->chunk_shift;
	}
	l->capacity = l->chunks << l->chunk_shift;
}

/**
 * rl_cs_init() - a copy-set layout over an extent
 * @l: the layout to fill
 * @kind: mirror, near, far, offset or chained
 * @nr: members in the extent (2 to RL_MAX_MEMBERS)
 * @copies: of each chunk (2 to @nr; @nr for mirror, 2 for chained)
 * @chunk_shift: chunk = 1 << @chunk_shift sectors
 * @base: the extent's first member sector
 * @member_len: member sectors the extent may use from @base
 * @error: set to a message for ti->error on failure
 *
 * Return: 0, or -EINVAL if the layout is impossible or holds nothing.
 */
int rl_cs_init(struct rl_cs_layout *l, enum rl_cs_kind kind, unsigned int nr,
	       unsigned int copies, unsigned int chunk_shift, sector_t base,
	       sector_t member_len, char **error)
{
	int r = rl_cs_check(kind, nr, copies, error);

	if (r)
		return r;
	l->kind = kind;
	l->nr = nr;
	l->copies = copies;
	l->chunk_shift = chunk_shift;
	l->base = base;
	l->place = 0;		/* the engine's, with replicas */
	rl_cs_size(l, member_len);
	if (!l->capacity) {
		*error = "Members too small for the copy layout";
		return -EINVAL;
	}
	return 0;
}

/**
 * rl_cs_copy() - one copy of a logical sector
 * @l: the layout
 * @lsector: below l->capacity
 * @j: the copy, below l->copies, in rl_cs_map()'s order
 * @c: filled with its member and sector
 *
 * Return: the sectors its placement holds for, as rl_cs_map().
 */
sector_t rl_cs_copy(const struct rl_cs_layout *l, sector_t lsector,
		    unsigned int j, struct rl_cs_copy *c)
{
	sector_t mask = ((sector_t)1 << l->chunk_shift) - 1;
	sector_t off = lsector & mask;
	u64 k = lsector >> l->chunk_shift, row;
	unsigned int dev;

	if (l->kind == RL_CS_MIRROR) {
		c->member = j;
		c->sector = l->base + lsector;
		return l->capacity - lsector;
	}
	if (l->kind == RL_CS_NEAR) {
		row = div_u64_rem(k * l->copies + j, l->nr, &dev);
		c->member = dev;
		c->sector = l->base + (row << l->chunk_shift) + off;
		return mask + 1 - off;
	}
	row = div_u64_rem(k, l->nr, &dev);
	c->member = (dev + j) % l->nr;
	if (l->kind == RL_CS_OFFSET)
		c->sector = (row * l->copies + j) << l->chunk_shift;
	else
		c->sector = j * l->stride + (row << l->chunk_shift);
	c->sector += l->base + off;
	return mask + 1 - off;
}

/* The sectors from @lsector to the end of its chunk (a mirror's: layout). */
sector_t rl_cs_left(const struct rl_cs_layout *l, sector_t lsector)
{
	sector_t mask = ((sector_t)1 << l->chunk_shift) - 1;

	if (l->kind == RL_CS_MIRROR)
		return l->capacity - lsector;
	return mask + 1 - (lsector & mask);
}

/**
 * rl_cs_map() - the copies of a logical sector
 * @l: the layout
 * @lsector: below l->capacity
 * @c: filled with l->copies copies, on distinct members; c[0] is the
 *	first copy (md's first, chained declustering's primary, a
 *	mirror's member 0)
 *
 * Return: the sectors from @lsector on that keep the same offsets from
 * each copy (to the end of the chunk; of a mirror, of the layout).
 */
sector_t rl_cs_map(const struct rl_cs_layout *l, sector_t lsector,
		   struct rl_cs_copy *c)
{
	sector_t left = 0;
	unsigned int j;

	for (j = 0; j < l->copies; j++)
		left = rl_cs_copy(l, lsector, j, &c[j]);
	return left;
}

/* The logical chunk that copy @j at chunk row @r of @member holds. */
static u64 rl_cs_chunk_of(const struct rl_cs_layout *l, unsigned int member,
			  u64 r, unsigned int j)
{
	unsigned int nr = l->nr;

	if (l->kind == RL_CS_NEAR)
		return div_u64(r * nr + member, l->copies);
	return r * nr + (member + nr - j) % nr;
}

/**
 * rl_cs_unmap() - what a member sector holds
 * @l: the layout
 * @member: within the extent
 * @msector: a member sector, base included
 * @lsector: set to the logical sector it is a copy of
 *
 * Return: the copy's index in rl_cs_map()'s list, or -ENOENT for a sector
 * outside the extent or that the layout leaves unused.
 */
int rl_cs_unmap(const struct rl_cs_layout *l, unsigned int member,
		sector_t msector, sector_t *lsector)
{
	sector_t mask = ((sector_t)1 << l->chunk_shift) - 1;
	sector_t rel = msector - l->base;
	unsigned int j = 0;
	u64 r, k;

	if (member >= l->nr || msector < l->base || rel >= l->used)
		return -ENOENT;
	if (l->kind == RL_CS_MIRROR) {
		*lsector = rel;
		return member;
	}
	if (l->kind == RL_CS_FAR || l->kind == RL_CS_CHAINED) {
		j = div64_u64(rel, l->stride);
		rel -= j * l->stride;
	}
	r = rel >> l->chunk_shift;
	if (l->kind == RL_CS_NEAR)
		div_u64_rem(r * l->nr + member, l->copies, &j);
	else if (l->kind == RL_CS_OFFSET)
		r = div_u64_rem(r, l->copies, &j);
	if (j >= l->copies)
		return -ENOENT;
	k = rl_cs_chunk_of(l, member, r, j);
	if (k >= l->chunks)
		return -ENOENT;
	*lsector = (k << l->chunk_shift) + (rel & mask);
	return j;
}

/**
 * rl_cs_sets() - the member sets that hold a chunk's copies
 * @l: the layout
 * @sets: filled with each distinct set (a bit a member), at most l->nr
 *
 * The copies of chunk k depend only on k modulo the members (md's layouts
 * and chained declustering place them by k * copies or k modulo nr), so
 * the first l->nr chunks give every set.
 *
 * Return: the number of sets.
 */
unsigned int rl_cs_sets(const struct rl_cs_layout *l, unsigned long *sets)
{
	unsigned int k, j, i, n = 0;
	struct rl_cs_copy c;
	unsigned long set;

	for (k = 0; k < l->nr && k < l->chunks; k++) {
		set = 0;
		for (j = 0; j < l->copies; j++) {
			rl_cs_copy(l, (sector_t)k << l->chunk_shift, j, &c);
			set |= BIT(c.member);
		}
		for (i = 0; i < n && sets[i] != set; i++)
			;
		if (i == n)
			sets[n++] = set;
	}
	return n;
}

/**
 * rl_cs_survives() - whether the data outlives a set of failed members
 * @sets: the copy sets (rl_cs_sets())
 * @nr_sets: how many
 * @failed: the failed members, a bit each
 *
 * Return: true while every copy set keeps a member.
 */
bool rl_cs_survives(const unsigned long *sets, unsigned int nr_sets,
		    unsigned long failed)
{
	unsigned int i;

	for (i = 0; i < nr_sets; i++)
		if (!(sets[i] & ~failed))
			return false;
	return true;
}

/**
 * rl_cs_chained_share() - how chained declustering splits a partition's
 *	reads after failures
 * @nr: members of the chain
 * @failed: bitmap of the failed members
 * @part: a partition: the chunks whose primary is on member @part, whose
 *	backup is on member @part + 1 (mod @nr)
 * @num: set to the share of the partition's reads its primary serves,
 * @den: over this
 *
 * A failure cuts the chain into runs of survivors. The run after failed
 * member f, of L survivors up to the next failure, serves L + 1
 * partitions: f's (from its backups on f + 1) and its own. Each survivor
 * then carries (L + 1) / L partitions of load, N / (N - 1) with one
 * failure, where mirroring would give one disk two: the survivor k steps
 * after f serves k / L of its own partition's reads and passes the rest
 * on to its backup. With no failure each copy serves half.
 *
 * Return: 0, or -ENODATA if the partition's two members have both failed.
 */
int rl_cs_chained_share(unsigned int nr, unsigned long failed,
			unsigned int part, unsigned int *num,
			unsigned int *den)
{
	unsigned int back, fwd;

	if (nr < BITS_PER_LONG)
		failed &= BIT(nr) - 1;
	if (!failed) {
		*num = 1;
		*den = 2;
		return 0;
	}
	if (failed & BIT(part)) {
		if (failed & BIT((part + 1) % nr))
			return -ENODATA;
		*num = 0;
		*den = 1;
		return 0;
	}
	for (back = 1; !(failed & BIT((part + nr - back) % nr)); back++)
		;
	for (fwd = 0; !(failed & BIT((part + fwd + 1) % nr)); fwd++)
		;
	*num = back;
	*den = back + fwd;
	return 0;
}

/**
 * rl_cs_chained_load() - a member's share of a chained array's reads
 * @nr: members of the chain
 * @out: members out of service (failed, or being rebuilt)
 * @m: the member
 * @num: set to its load in partitions (its share of its own partition
 *	and what the member before it passes on),
 * @den: over this
 *
 * (L + 1) / L for a survivor in a run of L (N / (N - 1) with one member
 * out), 0 for a member out, 1 for every member with none out.
 *
 * Return: 0, or -ENODATA if a partition next to @m has lost both copies.
 */
int rl_cs_chained_load(unsigned int nr, unsigned long out, unsigned int m,
		       unsigned int *num, unsigned int *den)
{
	unsigned int on, od, pn, pd;
	int r;

	r = rl_cs_chained_share(nr, out, m, &on, &od);
	if (!r)
		r = rl_cs_chained_share(nr, out, (m + nr - 1) % nr, &pn, &pd);
	if (r)
		return r;
	*num = on * pd + (pd - pn) * od;
	*den = od * pd;
	return 0;
}

/**
 * rl_cs_chained_prefer() - hold the balance's choice to the chain's loads
 * @nr: members of the chain
 * @out: members out of service (not 0)
 * @choice: the copy the balance chose (shortest queue, nearest head)
 * @other: the chunk's other copy, readable
 * @done_choice: reads @choice has served since @out last changed
 * @done_other: the same of @other
 *
 * Chained declustering shifts reads along the chain after a failure so
 * that every survivor carries its load (rl_cs_chained_load()). A fixed
 * split of each partition would do it, but takes away the choice of copy
 * that makes the healthy array fast (the copy whose head is nearer). So
 * the balance still chooses, and its choice stands while @choice has not
 * served more than RL_CS_SHIFT_SLACK reads beyond @other, each member's
 * count taken over its load; past that the read goes to @other. Every
 * pair of neighbours then stays within the slack, and the load flows
 * along the chain as far as the failure needs it to.
 *
 * Return: @choice or @other.
 */
unsigned int rl_cs_chained_prefer(unsigned int nr, unsigned long out,
				  unsigned int choice, unsigned int other,
				  u64 done_choice, u64 done_other)
{
	unsigned int cn, cd, on, od;

	if (rl_cs_chained_load(nr, out, choice, &cn, &cd) ||
	    rl_cs_chained_load(nr, out, other, &on, &od) || !cn || !on)
		return choice;
	/* done_choice / (cn / cd) - done_other / (on / od) > slack */
	if (done_choice * cd * on >
	    done_other * od * cn + (u64)RL_CS_SHIFT_SLACK * cn * on)
		return other;
	return choice;
}

/**
 * rl_cs_piece() - a piece of an access and where its copies lie
 * @l: the layout
 * @lsector: below l->capacity
 * @max: sectors wanted (at least 1)
 * @p: filled: [@lsector, + p->len) and each copy's member sector
 *
 * Return: p->len, at most @max, to the end of the chunk at most (of the
 * layout, for a mirror).
 */
sector_t rl_cs_piece(const struct rl_cs_layout *l, sector_t lsector,
		     sector_t max, struct rl_cs_piece *p)
{
	struct rl_cs_copy c;
	sector_t left = 0, first = 0;
	unsigned int j;

	p->lsector = lsector;
	p->same = true;
	if (l->kind == RL_CS_MIRROR) {	/* the read path's common case */
		p->members = GENMASK(l->nr - 1, 0);
		for (j = 0; j < l->nr; j++)
			p->sector[j] = l->base + lsector;
		p->len = min(l->capacity - lsector, max);
		return p->len;
	}
	p->members = 0;
	for (j = 0; j < l->copies; j++) {
		left = rl_cs_copy(l, lsector, j, &c);
		__set_bit(c.member, &p->members);
		p->sector[c.member] = c.sector;
		if (!j)
			first = c.sector;
		else if (c.sector != first)
			p->same = false;
	}
	p->len = min(left, max);
	return p->len;
}

/**
 * rl_cs_member_piece() - the piece a member sector holds
 * @l: the layout
 * @member: within the extent
 * @msector: a member sector, base included
 * @max: sectors wanted (at least 1)
 * @p: filled as by rl_cs_piece(), p->len 0 if the sector holds nothing
 *
 * Return: the sectors from @msector that the answer holds for: p->len if
 * it holds a piece, or up to the next chunk of the member (at most @max)
 * if not.
 */
sector_t rl_cs_member_piece(const struct rl_cs_layout *l, unsigned int member,
			    sector_t msector, sector_t max,
			    struct rl_cs_piece *p)
{
	sector_t mask = ((sector_t)1 << l->chunk_shift) - 1;
	sector_t lsector, n;

	n = l->kind == RL_CS_MIRROR ? max :
		min(max, mask + 1 - ((msector - l->base) & mask));
	if (rl_cs_unmap(l, member, msector, &lsector) < 0) {
		p->len = 0;
		return n;
	}
	return rl_cs_piece(l, lsector, n, p);
}

/* [@off, @off + @len) of piece @p, as a piece of its own. */
void rl_cs_piece_sub(const struct rl_cs_piece *p, sector_t off, sector_t len,
		     struct rl_cs_piece *sub)
{
	unsigned long members = p->members;
	unsigned int m;

	sub->lsector = p->lsector + off;
	sub->len = len;
	sub->members = members;
	sub->same = p->same;
	for_each_set_bit(m, &members, RL_MAX_MEMBERS)
		sub->sector[m] = p->sector[m] + off;
}

/**
 * rl_cs_piece_owner() - whether a walk over member sectors does @p at
 *	@member
 * @p: a piece
 * @member: a member holding a copy of it, where the walk found it
 *
 * A walk over every member's copies meets a piece once for each copy. It
 * does the piece at its lowest copy: the one at the lowest member
 * sector, and of those, on the lowest member. The copies of a piece keep
 * their order over its length, so a walk whose windows cover the member
 * sectors once does every logical sector once, whatever the windows (in
 * the window that holds its lowest copy, which a write's intent has
 * dirtied with the others).
 */
bool rl_cs_piece_owner(const struct rl_cs_piece *p, unsigned int member)
{
	unsigned long members = p->members;
	unsigned int m;

	for_each_set_bit(m, &members, RL_MAX_MEMBERS)
		if (p->sector[m] < p->sector[member] ||
		    (p->sector[m] == p->sector[member] && m < member))
			return false;
	return true;
}

/**
 * rl_cs_layout_encode() - the metadata record of a layout
 * @l: the layout (base 0)
 * @words: the scheme's own table words, or NULL (copyset.h); cut to
 *	RL_CS_WORDS_MAX - 1 bytes (the caller checks that they fit)
 * @block: a 4 KiB block, filled (zeroed first)
 */
void rl_cs_layout_encode(const struct rl_cs_layout *l, const char *words,
			 void *block)
{
	struct rl_cs_layout_disk *d = block;

	memset(block, 0, RL_MD_BLOCK);
	d->magic = cpu_to_le32(RL_CS_MD_MAGIC);
	d->version = cpu_to_le32(RL_CS_MD_VERSION);
	d->kind = cpu_to_le32(l->kind);
	d->nr = cpu_to_le32(l->nr);
	d->copies = cpu_to_le32(l->copies);
	d->chunk_shift = cpu_to_le32(l->chunk_shift);
	d->place = cpu_to_le32(l->place);
	d->used = cpu_to_le64(l->used);
	if (words)
		strscpy(d->words, words, sizeof(d->words));
	d->csum = cpu_to_le32(rl_md_csum(block, RL_MD_BLOCK, RL_CS_MD_CSUM_XOR));
}

/**
 * rl_cs_layout_decode() - read a layout's metadata record
 * @block: the 4 KiB block
 * @l: filled with what it records (kind, nr, copies, chunk_shift, used,
 *	place)
 *
 * Return: 0; -ENODATA for a block of zeroes (none recorded yet); -EINVAL
 * for a bad magic, checksum, version or kind, or words without their NUL.
 */
int rl_cs_layout_decode(const void *block, struct rl_cs_layout *l)
{
	const struct rl_cs_layout_disk *d = block;

	if (!memchr_inv(block, 0, RL_MD_BLOCK))
		return -ENODATA;
	if (le32_to_cpu(d->magic) != RL_CS_MD_MAGIC ||
	    le32_to_cpu(d->csum) != rl_md_csum(block, RL_MD_BLOCK,
					       RL_CS_MD_CSUM_XOR) ||
	    le32_to_cpu(d->version) != RL_CS_MD_VERSION ||
	    le32_to_cpu(d->kind) >= RL_CS_NR_KINDS ||
	    !memchr(d->words, 0, sizeof(d->words)))
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->kind = le32_to_cpu(d->kind);
	l->nr = le32_to_cpu(d->nr);
	l->copies = le32_to_cpu(d->copies);
	l->chunk_shift = le32_to_cpu(d->chunk_shift);
	l->place = le32_to_cpu(d->place);
	l->used = le64_to_cpu(d->used);
	return 0;
}

/**
 * rl_cs_layout_words_same() - whether a record holds these scheme words
 * @block: a record rl_cs_layout_decode() took
 * @words: the scheme's own table words, or NULL for none
 *
 * Return: true if the record's words are @words (or empty for NULL).
 */
bool rl_cs_layout_words_same(const void *block, const char *words)
{
	const struct rl_cs_layout_disk *d = block;

	return !strcmp(d->words, words ?: "");
}

/* Whether two layouts place every copy alike: what the record holds. */
bool rl_cs_layout_same(const struct rl_cs_layout *a,
		       const struct rl_cs_layout *b)
{
	return a->kind == b->kind && a->nr == b->nr && a->copies == b->copies &&
	       a->chunk_shift == b->chunk_shift && a->used == b->used &&
	       a->place == b->place;
}
