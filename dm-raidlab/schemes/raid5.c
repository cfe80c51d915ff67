// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab raid5: block-interleaved distributed parity, left-symmetric
 * (md's default). The parity of row r is on member (n - 1) - (r mod n); the
 * data columns follow it, wrapping around:
 *
 *   row 0:  D0 D1 D2 P
 *   row 1:  D4 D5 P  D3
 *   row 2:  D8 P  D6 D7
 *   row 3:  P  D9 D10 D11
 *
 * The stripe engine (stripe.c) does the work; this file is the layout.
 */
#include "../engines/stripe.h"

static unsigned int raid5_parity_member(const struct rl_geom *g, u64 row)
{
	u32 rem;

	div_u64_rem(row, g->nr_members, &rem);
	return g->nr_members - 1 - rem;
}

static unsigned int raid5_data_member(const struct rl_geom *g, u64 row,
				      unsigned int col)
{
	return (raid5_parity_member(g, row) + 1 + col) % g->nr_members;
}

static unsigned int raid5_member_col(const struct rl_geom *g, u64 row,
				     unsigned int member)
{
	unsigned int p = raid5_parity_member(g, row);

	if (member == p)
		return RL_NONE;
	return (member + g->nr_members - p - 1) % g->nr_members;
}

const struct rl_parity_layout rl_raid5_layout = {
	.parity_member = raid5_parity_member,
	.data_member = raid5_data_member,
	.member_col = raid5_member_col,
};

const struct rl_scheme_ops rl_raid5_ops = {
	.name = "raid5",
	.layout = &rl_raid5_layout,
	RL_STRIPE_SCHEME_OPS,
};
