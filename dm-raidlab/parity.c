// SPDX-License-Identifier: GPL-2.0-only
/*
 * dm-raidlab parity service. A chunk buffer is an array of order-0 pages
 * so that large chunks never need a high-order allocation; the helpers walk
 * a byte range page by page and hand each piece to xor_blocks(), at most
 * MAX_XOR_BLOCKS sources at a time.
 */
#include <linux/highmem.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/raid/xor.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "parity.h"

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
