/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-raidlab parity service: XOR parity over chunk buffers made of order-0
 * lowmem pages, computed with the kernel's xor_blocks(), and the P+Q
 * syndrome of double parity, computed and inverted with the kernel's
 * lib/raid6. Offsets and lengths are in bytes within the chunk and must be
 * multiples of 512.
 *
 * The P+Q helpers take the row's buffers in syndrome order, as lib/raid6
 * does: @ptrs[0 .. disks - 3] the data columns (column k weighs g^k in Q),
 * @ptrs[disks - 2] P, @ptrs[disks - 1] Q; 4 <= disks <= RL_PQ_MAX_DISKS.
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

#define RL_PQ_MAX_DISKS		32

/* P = xor of the data, Q = their syndrome, over [off, off + len) */
void rl_pq_gen(struct page **const *ptrs, unsigned int disks,
	       unsigned int off, unsigned int len);

/*
 * P ^= D[start] ^ ... ^ D[stop], Q ^= their part of the syndrome, over
 * [off, off + len): called with the old data and again with the new, it
 * turns P and Q of the old row into those of the new one. The columns
 * outside start .. stop are not touched.
 */
void rl_pq_xor(struct page **const *ptrs, unsigned int disks,
	       unsigned int start, unsigned int stop, unsigned int off,
	       unsigned int len);

/*
 * Rebuild the buffers of syndrome positions @faila and @failb (RL_NONE for
 * only one; either may be P or Q) from the others, over [off, off + len).
 */
void rl_pq_recover(struct page **const *ptrs, unsigned int disks,
		   unsigned int faila, unsigned int failb, unsigned int off,
		   unsigned int len);

/*
 * The same three over virtually contiguous buffers (vmalloc or kmalloc;
 * the caller applies its offsets to @ptrs): lib/raid6 is fed page-sized
 * pieces, as its recovery borrows a zero page. @bytes a multiple of 512.
 */
void rl_pq_gen_va(void **ptrs, unsigned int disks, size_t bytes);
void rl_pq_xor_va(void **ptrs, unsigned int disks, unsigned int start,
		  unsigned int stop, size_t bytes);
void rl_pq_recover_va(void **ptrs, unsigned int disks, unsigned int faila,
		      unsigned int failb, size_t bytes);

/* True if the kernel's lib/raid6 has what the P+Q helpers need. */
bool rl_pq_available(void);

struct page **rl_buf_alloc(unsigned int bytes, gfp_t gfp);
void rl_buf_free(struct page **buf, unsigned int bytes);

#endif /* DM_RAIDLAB_PARITY_H */
