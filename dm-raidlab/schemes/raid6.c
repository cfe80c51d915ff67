// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab raid6: block-interleaved data with two distributed parity
 * chunks per row, P (the xor of the data) and Q (their Reed-Solomon
 * syndrome over GF(2^8), lib/raid6), so that the data survives any two
 * failed members. The layout is md's raid6 left-symmetric
 * (ALGORITHM_LEFT_SYMMETRIC): P of row r is on member (n - 1) - (r mod n),
 * Q on the member after it, and the data columns follow Q, wrapping
 * around:
 *
 *   row 0:  Q  D0 D1 D2 P
 *   row 1:  D0 D1 D2 P  Q
 *   row 2:  D1 D2 P  Q  D0
 *   row 3:  D2 P  Q  D0 D1
 *   row 4:  P  Q  D0 D1 D2
 *
 * Data column k is the k-th term of the syndrome (coefficient g^k in Q).
 * The stripe engine (stripe.c) does the work; this file is the layout.
 */
#include "../engines/stripe.h"

static unsigned int raid6_p_member(const struct rl_geom *g, u64 row)
{
	u32 rem;

	div_u64_rem(row, g->nr_members, &rem);
	return g->nr_members - 1 - rem;
}

static unsigned int raid6_q_member(const struct rl_geom *g, u64 row)
{
	return (raid6_p_member(g, row) + 1) % g->nr_members;
}

static unsigned int raid6_data_member(const struct rl_geom *g, u64 row,
				      unsigned int col)
{
	return (raid6_p_member(g, row) + 2 + col) % g->nr_members;
}

static unsigned int raid6_member_col(const struct rl_geom *g, u64 row,
				     unsigned int member)
{
	unsigned int p = raid6_p_member(g, row);
	unsigned int col = (member + 2 * g->nr_members - p - 2) % g->nr_members;

	/* P and Q are the last two places after the data */
	return col >= g->nr_members - 2 ? RL_NONE : col;
}

const struct rl_parity_layout rl_raid6_layout = {
	.parity_member = raid6_p_member,
	.q_member = raid6_q_member,
	.data_member = raid6_data_member,
	.member_col = raid6_member_col,
};

const struct rl_scheme_ops rl_raid6_ops = {
	.name = "raid6",
	.layout = &rl_raid6_layout,
	.min_members = 4,
	.redundancy = 2,
	RL_STRIPE_ENGINE_OPS,
};
