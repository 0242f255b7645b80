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

/* Entries in the page array in use */
static u32 smc_ring_slots(const struct smc_ring_pages *pg)
{
	return pg->pages == pg->first ?
	       min_t(u32, pg->npages, SMC_RING_FIRST) : pg->npages;
}

/*
 * Make page @i of ring @pg: with the rest of its chunk if none of that
 * is there, else alone.  Only the connection's one sender writes, under
 * its socket lock, so nobody else stores into the array.  The pages are
 * charged to the sender's memory cgroup: it is the writer that makes
 * the ring cost memory.  They reach the reader with the data, by the
 * barrier before the cursor that announces it.
 */
static int smc_ring_make(struct smc_ring_pages *pg, u32 i)
{
	/* pages past the fold hold nothing (yet) */
	u32 end = min_t(u32, pg->npages, DIV_ROUND_UP(pg->fold, PAGE_SIZE));
	u32 first = round_down(i, SMC_RING_CHUNK);
	u32 n = min_t(u32, SMC_RING_CHUNK, end - first), j;
	unsigned int order = get_order(n << PAGE_SHIFT);
	struct page **pages = pg->pages, *p = NULL;

	for (j = 0; j < n; j++)
		if (pages[first + j])
			break;
	if (n > 1 && j == n)
		p = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
				__GFP_NORETRY, order);
	if (p) {
		split_page(p, order);
		for (j = n; j < 1U << order; j++)
			__free_page(p + j);
		for (j = 0; j < n; j++)
			WRITE_ONCE(pages[first + j], p + j);
		atomic_long_add(n << PAGE_SHIFT, &smc_ring_bytes);
		return 0;
	}
	p = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!p)
		return -ENOMEM;
	atomic_long_add(PAGE_SIZE, &smc_ring_bytes);
	WRITE_ONCE(pages[i], p);
	return 0;
}

/*
 * Of the @n bytes at storage offset @off (all in pages that exist),
 * those from @off on in pages adjacent in memory: one copy for all of
 * them.  GFP_KERNEL pages are always mapped, so no kmap; and they are
 * pages, not a heap object, so the copy skips the usercopy object
 * check, as copy_page_{from,to}_iter() do (its bounds are the ring's).
 */
static __always_inline u32 smc_ring_run(struct page **pages, u32 off,
					u32 n, void **at)
{
	u32 i = off >> PAGE_SHIFT, k = PAGE_SIZE - offset_in_page(off), j;
	struct page *p = READ_ONCE(pages[i]), *q;
	unsigned long pfn = page_to_pfn(p);

	*at = page_address(p) + offset_in_page(off);
	for (j = 1; k < n; j++, k += PAGE_SIZE) {
		q = READ_ONCE(pages[i + j]);
		if (page_to_pfn(q) != pfn + j)
			break;
	}
	return min(k, n);
}

/*
 * Copy @run bytes between @it and storage offset @at_off; @in: into it.
 * Inlined into both directions: it runs on every send and receive.
 */
static __always_inline int smc_ring_copy_run(struct page **pages,
					     u32 at_off, u32 run,
					     struct iov_iter *it, bool in)
{
	u32 k;
	void *at;

	while (run) {
		k = smc_ring_run(pages, at_off, run, &at);
		if ((in ? _copy_from_iter(at, k, it) :
			  _copy_to_iter(at, k, it)) != k)
			return -EFAULT;
		at_off += k;
		run -= k;
	}
	return 0;
}

/*
 * Copy @n bytes from @from to ring offset @off; no wrap inside.  Only
 * the sender writes, and only it changes the fold and the array.
 */
int smc_ring_copy_in(const struct smc_ring *r, u32 off, struct iov_iter *from,
		     u32 n)
{
	struct smc_ring_pages *pg = r->pg;
	u32 fold, i, at_off, run;
	int rc;

	if (r->flat)
		return copy_from_iter(r->flat + off, n, from) == n ? 0 : -EFAULT;
	fold = pg->fold;
	while (n) {
		/* a stretch side by side in storage */
		at_off = off & (fold - 1);
		run = min(n, fold - at_off);
		for (i = at_off >> PAGE_SHIFT;
		     i <= (at_off + run - 1) >> PAGE_SHIFT; i++)
			if (!pg->pages[i] && smc_ring_make(pg, i))
				return -ENOMEM;
		rc = smc_ring_copy_run(pg->pages, at_off, run, from, true);
		if (rc)
			return rc;
		off += run;
		n -= run;
	}
	return 0;
}

/*
 * Copy @n produced bytes at ring offset @off to @to; no wrap inside.
 * Fold and array are read after the cursor that announced the bytes;
 * older ones are as good for older bytes (smc_ring_fold.h, and struct
 * smc_ring_pages).
 */
int smc_ring_copy_out(const struct smc_ring *r, u32 off, struct iov_iter *to,
		      u32 n)
{
	struct page **pages;
	u32 fold, at_off, run;
	int rc;

	if (r->flat)
		return copy_to_iter(r->flat + off, n, to) == n ? 0 : -EFAULT;
	fold = READ_ONCE(r->pg->fold);
	pages = READ_ONCE(r->pg->pages);
	while (n) {
		at_off = off & (fold - 1);
		run = min(n, fold - at_off);
		rc = smc_ring_copy_run(pages, at_off, run, to, false);
		if (rc)
			return rc;
		off += run;
		n -= run;
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

/* The stretches of storage that unread bytes take: few, see below */
#define SMC_RING_STRETCHES	4

/*
 * Free the pages of ring @r (@len bytes) that hold none of the @n unread
 * bytes at offset @off.  The sender calls it under its socket lock, so
 * nothing writes meanwhile; the reader only reads unread bytes, and
 * those only shrink.  Returns the pages left.
 */
unsigned int smc_ring_trim(const struct smc_ring *r, u32 len, u32 off, u32 n)
{
	u32 at[SMC_RING_STRETCHES], cnt[SMC_RING_STRETCHES];
	struct smc_ring_pages *pg = r->pg;
	u32 fold, i, j, k, s = 0, start, slots;
	unsigned int left = 0;
	bool keep;

	if (!pg)
		return 0;
	fold = pg->fold;
	slots = smc_ring_slots(pg);
	/* a window's worth is at most two runs: a fold's end, a wrap */
	if (n > smc_fold_window(len, fold) || off >= len)
		return slots;
	while (n) {
		k = smc_fold_run(len, fold, off, n);
		at[s] = off & (fold - 1);
		cnt[s++] = k;
		off += k;
		n -= k;
		if (off == len)
			off = 0;
		if (n && s == SMC_RING_STRETCHES)
			return slots;
	}
	for (i = 0; i < slots; i++) {
		if (!pg->pages[i])
			continue;
		start = i * PAGE_SIZE;
		keep = false;
		for (j = 0; j < s; j++)
			keep |= at[j] < start + PAGE_SIZE &&
				start < at[j] + cnt[j];
		if (keep)
			left++;
		else
			smc_ring_page_free(&pg->pages[i]);
	}
	return left;
}

/*
 * Double the window of ring @r (@len bytes) if the @n bytes in flight
 * at @off sit where the new fold puts them too, and an array reaches
 * it.  The sender calls it under its socket lock.  The new fold (and
 * array) reach the reader before any byte written after, by the
 * barrier before the cursor.
 */
bool smc_ring_widen(const struct smc_ring *r, u32 len, u32 off, u32 n)
{
	struct smc_ring_pages *pg = r->pg;
	u32 fold = pg->fold;

	if (fold >= smc_ring_fold_max(len) ||
	    !smc_fold_widen_ok(len, fold, off, n) ||
	    smc_ring_pages_reach(pg, 2 * fold))
		return false;
	WRITE_ONCE(pg->fold, 2 * fold);
	return true;
}

void smc_ring_pages_init(struct smc_ring_pages *pg, u32 len)
{
	memset(pg, 0, sizeof(*pg));
	pg->pages = pg->first;
	pg->npages = DIV_ROUND_UP(len, PAGE_SIZE);
	pg->fold = min_t(u32, smc_ring_fold_max(len),
			 SMC_RING_FIRST * PAGE_SIZE);
}

/*
 * The first array reaches the first SMC_RING_FIRST pages; a larger
 * fold gets an array for the whole ring, charged to the caller's
 * memory cgroup, which stays until the DMB is pooled or freed.
 */
int smc_ring_pages_reach(struct smc_ring_pages *pg, u32 fold)
{
	struct page **pages;

	if (pg->pages != pg->first ||
	    DIV_ROUND_UP(fold, PAGE_SIZE) <= SMC_RING_FIRST)
		return 0;
	pages = kcalloc(pg->npages, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return -ENOMEM;
	memcpy(pages, pg->first, SMC_RING_FIRST * sizeof(*pages));
	WRITE_ONCE(pg->pages, pages);
	return 0;
}

/*
 * A DMB that goes back to its pool keeps the pages a connection's first
 * writes use, and the first array: the pool stays as small as it was
 * when rings were no larger than their window.  Nobody uses it now.
 */
void smc_ring_pages_shrink(struct smc_ring_pages *pg)
{
	u32 i;

	if (pg->pages == pg->first)
		return;
	/* @first may name pages the large array let go since */
	memcpy(pg->first, pg->pages, SMC_RING_FIRST * sizeof(*pg->first));
	for (i = SMC_RING_FIRST; i < pg->npages; i++)
		smc_ring_page_free(&pg->pages[i]);
	kfree(pg->pages);
	pg->pages = pg->first;
	pg->fold = min_t(u32, pg->fold, SMC_RING_FIRST * PAGE_SIZE);
}

void smc_ring_pages_free(struct smc_ring_pages *pg)
{
	u32 i, n;

	smc_ring_pages_shrink(pg);
	n = smc_ring_slots(pg);
	for (i = 0; i < n; i++)
		smc_ring_page_free(&pg->pages[i]);
}

long smc_ring_pages_bytes(void)
{
	return atomic_long_read(&smc_ring_bytes);
}
