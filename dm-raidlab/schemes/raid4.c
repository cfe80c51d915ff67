// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab raid4: block-interleaved data with a dedicated parity member,
 * the last one:
 *
 *   row 0:  D0 D1 D2 P
 *   row 1:  D3 D4 D5 P
 *
 * The stripe engine (stripe.c) does the work; this file is the layout.
 */
#include "../engines/stripe.h"

static unsigned int raid4_parity_member(const struct rl_geom *g, u64 row)
{
	return g->nr_members - 1;
}

static unsigned int raid4_data_member(const struct rl_geom *g, u64 row,
				      unsigned int col)
{
	return col;
}

static unsigned int raid4_member_col(const struct rl_geom *g, u64 row,
				     unsigned int member)
{
	return member == g->nr_members - 1 ? RL_NONE : member;
}

const struct rl_parity_layout rl_raid4_layout = {
	.parity_member = raid4_parity_member,
	.data_member = raid4_data_member,
	.member_col = raid4_member_col,
};

const struct rl_scheme_ops rl_raid4_ops = {
	.name = "raid4",
	.layout = &rl_raid4_layout,
	RL_STRIPE_SCHEME_OPS,
};
