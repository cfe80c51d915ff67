/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab parity service: XOR parity over chunk buffers made of order-0
 * lowmem pages, computed with the kernel's xor_blocks(). Offsets and
 * lengths are in bytes within the chunk and must be multiples of 512.
 */
#ifndef DM_RAIDLAB_PARITY_H
#define DM_RAIDLAB_PARITY_H

#include <linux/mm_types.h>

/* dst ^= src[0] ^ ... ^ src[nr - 1] over [off, off + len) */
void rl_parity_xor(struct page **dst, struct page **const *src,
		   unsigned int nr, unsigned int off, unsigned int len);

/* dst = src[0] ^ ... ^ src[nr - 1] over [off, off + len); zero if nr == 0 */
void rl_parity_gen(struct page **dst, struct page **const *src,
		   unsigned int nr, unsigned int off, unsigned int len);

/* dst = src over [off, off + len) */
void rl_buf_copy(struct page **dst, struct page **src, unsigned int off,
		 unsigned int len);

struct page **rl_buf_alloc(unsigned int bytes, gfp_t gfp);
void rl_buf_free(struct page **buf, unsigned int bytes);

#endif /* DM_RAIDLAB_PARITY_H */
