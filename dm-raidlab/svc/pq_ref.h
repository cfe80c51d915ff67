/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The KUnit suites' own P+Q reference, kept apart from lib/raid6 on
 * purpose: plain GF(2^8) arithmetic over the polynomial x^8 + x^4 + x^3 +
 * x^2 + 1 (0x11d) with generator g = 2, one byte at a time. P is the xor
 * of the data bytes, Q = sum of g^k * D[k].
 */
#ifndef DM_RAIDLAB_PQ_REF_H
#define DM_RAIDLAB_PQ_REF_H

#include <linux/types.h>

/* a * b in GF(2^8), shift and add */
static inline u8 rl_gf_mul(u8 a, u8 b)
{
	u8 r = 0;

	while (b) {
		if (b & 1)
			r ^= a;
		a = (a << 1) ^ ((a & 0x80) ? 0x1d : 0);
		b >>= 1;
	}
	return r;
}

/* P and Q of one byte position: @d[k] is data column k's byte */
static inline void rl_pq_ref(const u8 *d, unsigned int nr, u8 *p, u8 *q)
{
	u8 gk = 1, x = 0, y = 0;
	unsigned int k;

	for (k = 0; k < nr; k++) {
		x ^= d[k];
		y ^= rl_gf_mul(gk, d[k]);
		gk = rl_gf_mul(gk, 2);
	}
	*p = x;
	*q = y;
}

#endif /* DM_RAIDLAB_PQ_REF_H */
