/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: a connection's data ring as the data
 * path reads and writes it.
 *
 * SMC-R's rings are contiguous buffers (registered with the RDMA
 * device).  A loopback-ism DMB's ring is an array of pages, and a page
 * is made only when a sender first writes into it: an idle connection
 * holds none.  Readers only ever look at bytes the peer has produced,
 * so every page they reach exists.  The sender stores a new page before
 * the data, and the data before the cursor that announces it (see
 * smcd_tx_write()).  A second after its last write, the sender gives
 * back the pages that hold no unread byte (smc_tx_trim_work()).
 *
 * A DMB's pages hold only a fold's worth of its ring (smc_ring_fold.h),
 * which the sender doubles as a busy connection outgrows its window:
 * a connection that never fills its window never uses more pages than
 * the window, however large its DMB.
 */
#ifndef __SMC_RING_H
#define __SMC_RING_H

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/types.h>

#include "smc_ring_fold.h"

struct iov_iter;

/* The pages of a ring's first 64 KiB: all a window that never grows uses */
#define SMC_RING_FIRST		16

/*
 * The pages of a paged ring, in the DMB that both ends share.  The
 * array is @first until the window outgrows it; then the sender puts a
 * whole-ring array in its place (smc_ring_pages_reach()), for as long
 * as the DMB is in use.  @first stays: a reader that still holds it
 * reads only bytes written before, whose pages both arrays hold.
 */
struct smc_ring_pages {
	struct page	**pages;	/* @first, or npages of them */
	u32		npages;		/* the whole ring's */
	u32		fold;		/* see smc_ring_fold.h; sender's */
	struct page	*first[SMC_RING_FIRST];
};

struct smc_ring {
	u8			*flat;	/* SMC-R: the whole ring */
	struct smc_ring_pages	*pg;	/* SMC-D: in the DMB */
};

/* Is there a ring at all (none before set-up and after tear-down) */
static inline bool smc_ring_set(const struct smc_ring *r)
{
	return r->flat || r->pg;
}

static inline void smc_ring_clear(struct smc_ring *r)
{
	r->flat = NULL;
	r->pg = NULL;
}

static inline void smc_ring_set_pages(struct smc_ring *r,
				      struct smc_ring_pages *pg)
{
	r->pg = pg;
}

/* The largest fold of a ring of @len bytes: no folding at all */
static inline u32 smc_ring_fold_max(u32 len)
{
	return roundup_pow_of_two(len);
}

/*
 * The bytes a sender may have in the ring of @len bytes at a time.  A
 * reader looks after the cursor that announced what it reads.
 */
static inline u32 smc_ring_window(const struct smc_ring *r, u32 len)
{
	return r->pg ? smc_fold_window(len, READ_ONCE(r->pg->fold)) : len;
}

/* Could the window of a ring of @len bytes grow? */
static inline bool smc_ring_may_widen(const struct smc_ring *r, u32 len)
{
	return r->pg && READ_ONCE(r->pg->fold) < smc_ring_fold_max(len);
}

/* The byte at @off, which the peer has produced */
static inline u8 smc_ring_byte(const struct smc_ring *r, u32 off)
{
	struct page *p;

	if (r->flat)
		return READ_ONCE(r->flat[off]);
	off &= READ_ONCE(r->pg->fold) - 1;
	p = READ_ONCE(READ_ONCE(r->pg->pages)[off >> PAGE_SHIFT]);
	return READ_ONCE(((u8 *)page_address(p))[offset_in_page(off)]);
}

int smc_ring_copy_in(const struct smc_ring *r, u32 off, struct iov_iter *from,
		     u32 n);
int smc_ring_copy_out(const struct smc_ring *r, u32 off, struct iov_iter *to,
		      u32 n);

/* Give back the pages of an idle stretch; the sender's socket lock held */
unsigned int smc_ring_trim(const struct smc_ring *r, u32 len, u32 off, u32 n);
/* Double the window if the @n bytes in flight at @off allow; the same */
bool smc_ring_widen(const struct smc_ring *r, u32 len, u32 off, u32 n);

/* The pages of a ring of @len bytes, none made yet, no folding */
void smc_ring_pages_init(struct smc_ring_pages *pg, u32 len);
/* An array that reaches @fold, for the window to be; the sender's */
int smc_ring_pages_reach(struct smc_ring_pages *pg, u32 fold);
/* Back to the first array and its pages, for a DMB that is pooled */
void smc_ring_pages_shrink(struct smc_ring_pages *pg);
/* Free all pages, and the array if it is not the first */
void smc_ring_pages_free(struct smc_ring_pages *pg);
/* Bytes in the pages of all rings, for debugfs */
long smc_ring_pages_bytes(void);

#endif /* __SMC_RING_H */
