/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the shared receive queue of a link
 * group's protection domain on a pool CQ (smcr_srq.c).
 */
#ifndef __SMCR_SRQ_H
#define __SMCR_SRQ_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct ib_cq;
struct ib_device;
struct ib_pd;
struct ib_srq;
struct smcr_link;
struct smcr_rxchunk;

struct smcr_srq {
	/* under the device's setup_lock */
	struct list_head	node;		/* in its PD's srqs */
	unsigned int		vec;		/* of its CQ */
	unsigned int		links;		/* taking receives from it */
	/* set when it is made, read-only after */
	struct ib_srq		*srq;
	struct ib_cq		*cq;		/* its QPs' receives land here */
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
	unsigned int		nsge;
	unsigned int		cap;		/* max_wr of the SRQ */
	/*
	 * Buffer counts, changed under lock; the completion path reads
	 * posted, target and batch without (READ_ONCE): a stale value
	 * only retires or reposts a buffer later, and smcr_srq_retire()
	 * looks again under the lock.  Invariant: want + held >= posted,
	 * so the CQ entries taken by the links and those kept here cover
	 * every buffer the device may complete.
	 */
	spinlock_t		lock;
	unsigned int		want;		/* the links' shares, summed */
	unsigned int		target;		/* min(want, cap) */
	unsigned int		posted;		/* given out, not retired */
	unsigned int		held;		/* CQ entries of links gone */
	unsigned int		batch;		/* reposted together */
	/* lock-free: completions (and a failed post) add, a completion
	 * takes them all at the watermark
	 */
	struct llist_head	free;		/* to be posted again */
	atomic_t		nfree;		/* paces the batches only */
	/* lock-free: completions and new chunks add, smcr_srq_grow()
	 * (setup_lock) is its one taker
	 */
	struct llist_head	spare;		/* made, not in use */
	/* test mode: a completion read with the next one, on the CQ;
	 * its poller's only (completions of one CQ run one at a time)
	 */
	struct smcr_rxbuf	*test_held;
	struct smcr_link	*test_link;
	u32			test_len;
	/* grown in process context, under the device's setup_lock */
	unsigned int		nchunks;
	unsigned int		maxchunks;
	struct smcr_rxchunk	*chunks[];
};

struct smcr_srq *smcr_srq_create(struct ib_device *ibdev, struct ib_pd *pd,
				 struct ib_cq *cq, unsigned int most);
int smcr_srq_grow(struct smcr_srq *s, unsigned int n);
unsigned int smcr_srq_shrink(struct smcr_srq *s, unsigned int n);
bool smcr_srq_destroy(struct smcr_srq *s);

static inline struct ib_srq *smcr_srq_ib(const struct smcr_srq *s)
{
	return s->srq;
}

static inline struct ib_cq *smcr_srq_cq(const struct smcr_srq *s)
{
	return s->cq;
}

/* Receive buffers in use: posted, or done and about to be again */
static inline unsigned int smcr_srq_posted(const struct smcr_srq *s)
{
	return READ_ONCE(s->posted);
}

#endif /* __SMCR_SRQ_H */
