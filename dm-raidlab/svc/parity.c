// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity service. A chunk buffer is an array of order-0 pages
 * so that large chunks never need a high-order allocation; the helpers walk
 * a byte range page by page and hand each piece to xor_blocks(), at most
 * MAX_XOR_BLOCKS sources at a time, or for P+Q to lib/raid6 (raid6_call,
 * raid6_2data_recov(), raid6_datap_recov()) with one pointer per disk.
 * The _va variants do the same over virtually contiguous buffers (vmalloc
 * included), in pieces of at most a page: raid6_2data_recov() and
 * raid6_datap_recov() stand raid6_empty_zero_page, one page, in for the
 * lost columns.
 */
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/raid/pq.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "parity.h"
#include "../raidlab.h"

static inline void *rl_buf_addr(struct page **buf, unsigned int pos)
{
	return page_address(buf[pos >> PAGE_SHIFT]) + offset_in_page(pos);
}

void rl_parity_xor(struct page **dst, struct page **const *src,
		   unsigned int nr, unsigned int off, unsigned int len)
{
	unsigned int pos, end = off + len;

	for (pos = off; pos < end; ) {
		unsigned int n = min_t(unsigned int, end - pos,
				       PAGE_SIZE - offset_in_page(pos));
		void *ptrs[MAX_XOR_BLOCKS];
		unsigned int i, cnt = 0;

		for (i = 0; i < nr; i++) {
			ptrs[cnt++] = rl_buf_addr(src[i], pos);
			if (cnt == MAX_XOR_BLOCKS || i == nr - 1) {
				xor_blocks(cnt, n, rl_buf_addr(dst, pos), ptrs);
				cnt = 0;
			}
		}
		pos += n;
	}
}

void rl_parity_gen(struct page **dst, struct page **const *src,
		   unsigned int nr, unsigned int off, unsigned int len)
{
	unsigned int pos, end = off + len;

	if (!nr) {
		for (pos = off; pos < end; ) {
			unsigned int n = min_t(unsigned int, end - pos,
					       PAGE_SIZE - offset_in_page(pos));

			memset(rl_buf_addr(dst, pos), 0, n);
			pos += n;
		}
		return;
	}
	rl_buf_copy(dst, src[0], off, len);
	rl_parity_xor(dst, src + 1, nr - 1, off, len);
}

void rl_buf_copy(struct page **dst, struct page **src, unsigned int off,
		 unsigned int len)
{
	unsigned int pos, end = off + len;

	if (dst == src)
		return;
	for (pos = off; pos < end; ) {
		unsigned int n = min_t(unsigned int, end - pos,
				       PAGE_SIZE - offset_in_page(pos));

		memcpy(rl_buf_addr(dst, pos), rl_buf_addr(src, pos), n);
		pos += n;
	}
}

/* The piece of [pos, end) that lies in pos's page. */
static inline unsigned int rl_piece(unsigned int pos, unsigned int end)
{
	return min_t(unsigned int, end - pos, PAGE_SIZE - offset_in_page(pos));
}

/* The address of byte @pos in each of the @disks buffers. */
static void rl_pq_addrs(void **addr, struct page **const *ptrs,
			unsigned int disks, unsigned int pos)
{
	unsigned int i;

	for (i = 0; i < disks; i++)
		addr[i] = rl_buf_addr(ptrs[i], pos);
}

void rl_pq_gen(struct page **const *ptrs, unsigned int disks,
	       unsigned int off, unsigned int len)
{
	unsigned int pos, n, end = off + len;
	void *addr[RL_PQ_MAX_DISKS];

	for (pos = off; pos < end; pos += n) {
		n = rl_piece(pos, end);
		rl_pq_addrs(addr, ptrs, disks, pos);
		raid6_call.gen_syndrome(disks, n, addr);
	}
}

void rl_pq_xor(struct page **const *ptrs, unsigned int disks,
	       unsigned int start, unsigned int stop, unsigned int off,
	       unsigned int len)
{
	unsigned int pos, n, end = off + len;
	void *addr[RL_PQ_MAX_DISKS];

	for (pos = off; pos < end; pos += n) {
		n = rl_piece(pos, end);
		rl_pq_addrs(addr, ptrs, disks, pos);
		raid6_call.xor_syndrome(disks, start, stop, n, addr);
	}
}

void rl_pq_recover(struct page **const *ptrs, unsigned int disks,
		   unsigned int faila, unsigned int failb, unsigned int off,
		   unsigned int len)
{
	unsigned int p = disks - 2, q = disks - 1, pos, n, end = off + len;
	void *addr[RL_PQ_MAX_DISKS];

	if (failb != RL_NONE && failb < faila)
		swap(faila, failb);
	/* now faila < failb, or failb is RL_NONE */
	if (faila >= p) {
		/* only P and/or Q lost: the syndrome again */
		rl_pq_gen(ptrs, disks, off, len);
		return;
	}
	if (failb == RL_NONE || failb == q) {
		/* a data column from P and the others, then Q if lost */
		struct page **src[RL_PQ_MAX_DISKS];
		unsigned int i, nr = 0;

		for (i = 0; i <= p; i++)
			if (i != faila)
				src[nr++] = ptrs[i];
		rl_parity_gen(ptrs[faila], src, nr, off, len);
		if (failb == q)
			rl_pq_gen(ptrs, disks, off, len);
		return;
	}
	for (pos = off; pos < end; pos += n) {
		n = rl_piece(pos, end);
		rl_pq_addrs(addr, ptrs, disks, pos);
		if (failb == p)
			raid6_datap_recov(disks, n, faila, addr);
		else
			raid6_2data_recov(disks, n, faila, failb, addr);
	}
}

/* The address of byte @pos in each of the @disks virtual buffers. */
static void rl_pq_addrs_va(void **addr, void **ptrs, unsigned int disks,
			   size_t pos)
{
	unsigned int i;

	for (i = 0; i < disks; i++)
		addr[i] = ptrs[i] + pos;
}

/* A piece of at most a page: lib/raid6's recovery borrows one zero page. */
static inline size_t rl_piece_va(size_t pos, size_t end)
{
	return min_t(size_t, end - pos, PAGE_SIZE);
}

void rl_pq_gen_va(void **ptrs, unsigned int disks, size_t bytes)
{
	void *addr[RL_PQ_MAX_DISKS];
	size_t pos, n;

	for (pos = 0; pos < bytes; pos += n) {
		n = rl_piece_va(pos, bytes);
		rl_pq_addrs_va(addr, ptrs, disks, pos);
		raid6_call.gen_syndrome(disks, n, addr);
	}
}

void rl_pq_xor_va(void **ptrs, unsigned int disks, unsigned int start,
		  unsigned int stop, size_t bytes)
{
	void *addr[RL_PQ_MAX_DISKS];
	size_t pos, n;

	for (pos = 0; pos < bytes; pos += n) {
		n = rl_piece_va(pos, bytes);
		rl_pq_addrs_va(addr, ptrs, disks, pos);
		raid6_call.xor_syndrome(disks, start, stop, n, addr);
	}
}

/* ptrs[dst] = xor of the other data columns and P, piece by piece */
static void rl_pq_datap_va(void **ptrs, unsigned int disks, unsigned int dst,
			   size_t bytes)
{
	unsigned int p = disks - 2, i, cnt;
	void *src[MAX_XOR_BLOCKS];
	size_t pos, n;

	for (pos = 0; pos < bytes; pos += n) {
		n = rl_piece_va(pos, bytes);
		cnt = 0;
		memset(ptrs[dst] + pos, 0, n);
		for (i = 0; i <= p; i++) {
			if (i == dst)
				continue;
			src[cnt++] = ptrs[i] + pos;
			if (cnt == MAX_XOR_BLOCKS) {
				xor_blocks(cnt, n, ptrs[dst] + pos, src);
				cnt = 0;
			}
		}
		if (cnt)
			xor_blocks(cnt, n, ptrs[dst] + pos, src);
	}
}

void rl_pq_recover_va(void **ptrs, unsigned int disks, unsigned int faila,
		      unsigned int failb, size_t bytes)
{
	unsigned int p = disks - 2, q = disks - 1;
	void *addr[RL_PQ_MAX_DISKS];
	size_t pos, n;

	if (failb != RL_NONE && failb < faila)
		swap(faila, failb);
	/* now faila < failb, or failb is RL_NONE */
	if (faila >= p) {
		/* only P and/or Q lost: the syndrome again */
		rl_pq_gen_va(ptrs, disks, bytes);
		return;
	}
	if (failb == RL_NONE || failb == q) {
		/* a data column from P and the others, then Q if lost */
		rl_pq_datap_va(ptrs, disks, faila, bytes);
		if (failb == q)
			rl_pq_gen_va(ptrs, disks, bytes);
		return;
	}
	for (pos = 0; pos < bytes; pos += n) {
		n = rl_piece_va(pos, bytes);
		rl_pq_addrs_va(addr, ptrs, disks, pos);
		if (failb == p)
			raid6_datap_recov(disks, n, faila, addr);
		else
			raid6_2data_recov(disks, n, faila, failb, addr);
	}
}

bool rl_pq_available(void)
{
	return raid6_call.gen_syndrome && raid6_call.xor_syndrome;
}

/* A buffer of @bytes (a multiple of PAGE_SIZE) in order-0 lowmem pages. */
struct page **rl_buf_alloc(unsigned int bytes, gfp_t gfp)
{
	unsigned int i, nr = bytes >> PAGE_SHIFT;
	struct page **buf;

	buf = kcalloc(nr, sizeof(*buf), gfp);
	if (!buf)
		return NULL;
	for (i = 0; i < nr; i++) {
		buf[i] = alloc_page(gfp);
		if (!buf[i]) {
			rl_buf_free(buf, bytes);
			return NULL;
		}
	}
	return buf;
}

void rl_buf_free(struct page **buf, unsigned int bytes)
{
	unsigned int i, nr = bytes >> PAGE_SHIFT;

	if (!buf)
		return;
	for (i = 0; i < nr; i++)
		if (buf[i])
			__free_page(buf[i]);
	kfree(buf);
}
