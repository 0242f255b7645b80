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
 */
#ifndef __SMC_RING_H
#define __SMC_RING_H

#include <linux/mm.h>
#include <linux/types.h>

struct iov_iter;

struct smc_ring {
	u8		*flat;		/* SMC-R: the whole ring */
	struct page	**pages;	/* SMC-D: PAGE_SIZE each, or NULL */
	u32		npages;		/* in @pages */
};

/* Is there a ring at all (none before set-up and after tear-down) */
static inline bool smc_ring_set(const struct smc_ring *r)
{
	return r->flat || r->pages;
}

static inline void smc_ring_clear(struct smc_ring *r)
{
	r->flat = NULL;
	r->pages = NULL;
	r->npages = 0;
}

/* A ring of @len bytes in the page array @pages */
static inline void smc_ring_set_pages(struct smc_ring *r, struct page **pages,
				      u32 len)
{
	r->pages = pages;
	r->npages = DIV_ROUND_UP(len, PAGE_SIZE);
}

/* The byte at @off, which the peer has produced */
static inline u8 smc_ring_byte(const struct smc_ring *r, u32 off)
{
	struct page *p;

	if (r->flat)
		return READ_ONCE(r->flat[off]);
	p = READ_ONCE(r->pages[off >> PAGE_SHIFT]);
	return READ_ONCE(((u8 *)page_address(p))[offset_in_page(off)]);
}

int smc_ring_copy_in(const struct smc_ring *r, u32 off, struct iov_iter *from,
		     u32 n);
int smc_ring_copy_out(const struct smc_ring *r, u32 off, struct iov_iter *to,
		      u32 n);

/* Give back the pages of an idle stretch; the sender's socket lock held */
unsigned int smc_ring_trim(const struct smc_ring *r, u32 len, u32 off, u32 n);

/* The page array of a ring of @len bytes, with no page yet */
struct page **smc_ring_pages_alloc(u32 len, gfp_t gfp);
/* Free the array and the pages in it */
void smc_ring_pages_free(struct page **pages, u32 len);
/* Bytes in the pages of all rings, for debugfs */
long smc_ring_pages_bytes(void);

#endif /* __SMC_RING_H */
