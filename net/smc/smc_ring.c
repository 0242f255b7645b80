// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: copies into and out of a data ring, and
 * the pages of rings that are made as they are first written.
 */

#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "smc_ring.h"

static atomic_long_t smc_ring_bytes = ATOMIC_LONG_INIT(0);

/*
 * Pages are made a chunk of SMC_RING_CHUNK at a time where memory
 * allows: fewer allocations, and runs of pages adjacent in memory that
 * one copy covers (a copy per page cost a 64 KiB stream 2.4% of its
 * rate).  A chunk is split into pages, so that a trim frees each page
 * on its own.
 */
#define SMC_RING_CHUNK_ORDER	4
#define SMC_RING_CHUNK		BIT(SMC_RING_CHUNK_ORDER)

/*
 * Make page @i of ring @r: with the rest of its chunk if none of that
 * is there, else alone.  Only the connection's one sender writes, under
 * its socket lock, so nobody else stores into the array.  The pages are
 * charged to the sender's memory cgroup: it is the writer that makes
 * the ring cost memory.  They reach the reader with the data, by the
 * barrier before the cursor that announces it.
 */
static int smc_ring_make(const struct smc_ring *r, u32 i)
{
	u32 first = round_down(i, SMC_RING_CHUNK);
	u32 n = min_t(u32, SMC_RING_CHUNK, r->npages - first), j;
	unsigned int order = get_order(n << PAGE_SHIFT);
	struct page *p = NULL;

	for (j = 0; j < n; j++)
		if (r->pages[first + j])
			break;
	if (n > 1 && j == n)
		p = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
				__GFP_NORETRY, order);
	if (p) {
		split_page(p, order);
		for (j = n; j < 1U << order; j++)
			__free_page(nth_page(p, j));
		for (j = 0; j < n; j++)
			WRITE_ONCE(r->pages[first + j], nth_page(p, j));
		atomic_long_add(n << PAGE_SHIFT, &smc_ring_bytes);
		return 0;
	}
	p = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!p)
		return -ENOMEM;
	atomic_long_add(PAGE_SIZE, &smc_ring_bytes);
	WRITE_ONCE(r->pages[i], p);
	return 0;
}

/*
 * Of the @n bytes at ring offset @off (all in pages that exist), those
 * from @off on in pages adjacent in memory: one copy for all of them.
 * GFP_KERNEL pages are always mapped, so no kmap; and they are pages,
 * not a heap object, so the copy skips the usercopy object check, as
 * copy_page_{from,to}_iter() do (its bounds are the ring's).
 */
static u32 smc_ring_run(const struct smc_ring *r, u32 off, u32 n, void **at)
{
	u32 i = off >> PAGE_SHIFT, k = PAGE_SIZE - offset_in_page(off), j;
	struct page *p = READ_ONCE(r->pages[i]), *q;
	unsigned long pfn = page_to_pfn(p);

	*at = page_address(p) + offset_in_page(off);
	for (j = 1; k < n; j++, k += PAGE_SIZE) {
		q = READ_ONCE(r->pages[i + j]);
		if (page_to_pfn(q) != pfn + j)
			break;
	}
	return min(k, n);
}

/* Copy @n bytes from @from to ring offset @off; no wrap inside */
int smc_ring_copy_in(const struct smc_ring *r, u32 off, struct iov_iter *from,
		     u32 n)
{
	u32 i, k;
	void *at;

	if (r->flat)
		return copy_from_iter(r->flat + off, n, from) == n ? 0 : -EFAULT;
	if (!n)
		return 0;
	for (i = off >> PAGE_SHIFT; i <= (off + n - 1) >> PAGE_SHIFT; i++)
		if (!r->pages[i] && smc_ring_make(r, i))
			return -ENOMEM;
	while (n) {
		k = smc_ring_run(r, off, n, &at);
		if (_copy_from_iter(at, k, from) != k)
			return -EFAULT;
		off += k;
		n -= k;
	}
	return 0;
}

/* Copy @n produced bytes at ring offset @off to @to; no wrap inside */
int smc_ring_copy_out(const struct smc_ring *r, u32 off, struct iov_iter *to,
		      u32 n)
{
	u32 k;
	void *at;

	if (r->flat)
		return copy_to_iter(r->flat + off, n, to) == n ? 0 : -EFAULT;
	while (n) {
		k = smc_ring_run(r, off, n, &at);
		if (_copy_to_iter(at, k, to) != k)
			return -EFAULT;
		off += k;
		n -= k;
	}
	return 0;
}

/* Free the ring page in @slot, if there is one */
static void smc_ring_page_free(struct page **slot)
{
	struct page *p = *slot;

	if (!p)
		return;
	WRITE_ONCE(*slot, NULL);
	__free_page(p);
	atomic_long_sub(PAGE_SIZE, &smc_ring_bytes);
}

/* Does [@a, @a + @an) meet [@b, @b + @bn)? */
static bool smc_ring_meets(u32 a, u32 an, u32 b, u32 bn)
{
	return an && bn && a < b + bn && b < a + an;
}

/*
 * Free the pages of ring @r (@len bytes) that hold none of the @n unread
 * bytes at offset @off.  The sender calls it under its socket lock, so
 * nothing writes meanwhile; the reader only reads unread bytes, and
 * those only shrink.  Returns the pages left.
 */
unsigned int smc_ring_trim(const struct smc_ring *r, u32 len, u32 off, u32 n)
{
	u32 i, start, plen, first = min(n, len - off);
	unsigned int left = 0;

	if (!r->pages)
		return 0;
	for (i = 0; i < DIV_ROUND_UP(len, PAGE_SIZE); i++) {
		if (!r->pages[i])
			continue;
		start = i * PAGE_SIZE;
		plen = min_t(u32, PAGE_SIZE, len - start);
		if (smc_ring_meets(start, plen, off, first) ||
		    smc_ring_meets(start, plen, 0, n - first))
			left++;
		else
			smc_ring_page_free(&r->pages[i]);
	}
	return left;
}

struct page **smc_ring_pages_alloc(u32 len, gfp_t gfp)
{
	return kcalloc(DIV_ROUND_UP(len, PAGE_SIZE), sizeof(struct page *),
		       gfp);
}

void smc_ring_pages_free(struct page **pages, u32 len)
{
	u32 i, n = DIV_ROUND_UP(len, PAGE_SIZE);

	if (!pages)
		return;
	for (i = 0; i < n; i++)
		smc_ring_page_free(&pages[i]);
	kfree(pages);
}

long smc_ring_pages_bytes(void)
{
	return atomic_long_read(&smc_ring_bytes);
}
