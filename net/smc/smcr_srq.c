// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the shared receive queue of a pool CQ.
 *
 * Every link of a group whose QP completes on a CQ takes its receives
 * from the SRQ of the group's protection domain on that CQ (a device
 * checks an SRQ's buffers against the PD of the QP that takes them),
 * and adds its share (net.smc.smcr_max_recv_wr, sampled when its group
 * was made) to the buffers the SRQ keeps posted, up to the SRQ's size.
 * So receive buffers follow the links, and an idle link does not hold
 * its own.  A buffer is SMCR_RX_LEN bytes, enough for any CDC or LLC
 * message, followed by a tail of its own (a page, its second SGE) that
 * takes the rest of the two large LLC messages of SMC-Rv2.  The device
 * may complete any number of receives, from any QP of the SRQ, before
 * we read the first: a tail shared by the buffers would then hold a
 * later message's bytes, perhaps another link's.  The heads of a
 * chunk's buffers are together, for the CDC messages of the data path;
 * the tails are separate pages.  The last link to leave frees the SRQ.
 *
 * The completion handler hands a buffer's message to its link and puts
 * the buffer on a lock-free list; when a batch is there (the queue is
 * down to its low watermark), they are posted again in one chain, with
 * one doorbell.  When links have gone and more buffers are in use than
 * the remaining ones want, a completed buffer is retired instead, and
 * the CQ entry kept for it is given back.
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "smcr.h"
#include "smcr_srq.h"

/* buffers allocated together: a link's default share (48) is three */
#define SMCR_SRQ_CHUNK		16

struct smcr_rxbuf {
	struct ib_cqe		cqe;
	struct llist_node	free;
	struct smcr_srq		*srq;
	u8			*buf;
	u64			dma;
	struct page		*tail;
	u64			tail_dma;
	/* its work request, chained with the others of a batch */
	struct ib_recv_wr	wr;
	struct ib_sge		sge[2];
};

struct smcr_rxchunk {
	u8			*mem;
	u64			dma;
	struct smcr_rxbuf	bufs[SMCR_SRQ_CHUNK];
};

static void smcr_srq_rx_done(struct ib_cq *cq, struct ib_wc *wc);

/* Post the buffers on @list (linked by free) in one chain */
static int smcr_srq_post(struct smcr_srq *s, struct llist_node *list)
{
	struct ib_recv_wr *first = NULL, *prev = NULL;
	const struct ib_recv_wr *bad;
	struct smcr_rxbuf *b;

	llist_for_each_entry(b, list, free) {
		b->sge[0].addr = b->dma;
		b->sge[0].length = SMCR_RX_LEN;
		b->sge[0].lkey = s->pd->local_dma_lkey;
		b->sge[1].addr = b->tail_dma;
		b->sge[1].length = SMCR_RX_TAIL;
		b->sge[1].lkey = s->pd->local_dma_lkey;
		b->wr.wr_cqe = &b->cqe;
		b->wr.sg_list = b->sge;
		b->wr.num_sge = s->nsge;
		b->wr.next = NULL;
		if (prev)
			prev->next = &b->wr;
		else
			first = &b->wr;
		prev = &b->wr;
	}
	if (!first || !ib_post_srq_recv(s->srq, first, &bad))
		return 0;
	/* what was not posted goes back to the list for the next batch */
	for (; bad; bad = bad->next) {
		b = container_of(bad, struct smcr_rxbuf, wr);
		llist_add(&b->free, &s->free);
		atomic_inc(&s->nfree);
	}
	return -EIO;
}

/* Softirq: fewer buffers are wanted than are in use, @b rests */
static bool smcr_srq_retire(struct smcr_srq *s, struct smcr_rxbuf *b)
{
	bool put = false;

	spin_lock(&s->lock);
	if (s->posted <= s->target) {
		spin_unlock(&s->lock);
		return false;
	}
	WRITE_ONCE(s->posted, s->posted - 1);
	if (s->held && s->posted < s->want + s->held) {
		s->held--;
		put = true;
	}
	spin_unlock(&s->lock);
	llist_add(&b->free, &s->spare);
	if (put)
		ib_cq_pool_put(s->cq, 1);
	return true;
}

/* A buffer is done with: post the free ones at the watermark */
static void smcr_srq_recycle(struct smcr_srq *s, struct smcr_rxbuf *b)
{
	struct llist_node *list;
	int rc;

	/* test mode: kept off the SRQ, as by a peer that posts none */
	if (READ_ONCE(smcr_llc_test) & SMCR_LLC_TEST_STARVE) {
		llist_add(&b->free, &s->free);
		return;
	}
	if (READ_ONCE(s->posted) > READ_ONCE(s->target) &&
	    smcr_srq_retire(s, b))
		return;
	llist_add(&b->free, &s->free);
	if (atomic_inc_return(&s->nfree) < READ_ONCE(s->batch))
		return;
	list = llist_del_all(&s->free);
	if (!list)
		return;
	/* the count may run behind the list; it only paces the batches */
	atomic_set(&s->nfree, 0);
	rc = smcr_srq_post(s, list);
	if (rc)
		pr_err_ratelimited("smc: %s: receive queue refill failed: %d\n",
				   dev_name(&s->ibdev->dev), rc);
}

/* Hand the message in @b, @len bytes, to @link */
static void smcr_srq_rx_msg(struct smcr_srq *s, struct smcr_rxbuf *b,
			    struct smcr_link *link, u32 len)
{
	u32 rest = 0;

	/* the device writes no more than the buffer and its tail */
	len = min_t(u32, len, SMCR_RX_LEN + (b->tail ? SMCR_RX_TAIL : 0));
	if (len > SMCR_RX_LEN)
		rest = len - SMCR_RX_LEN;
	ib_dma_sync_single_for_cpu(s->ibdev, b->dma, SMCR_RX_LEN,
				   DMA_FROM_DEVICE);
	if (rest)
		ib_dma_sync_single_for_cpu(s->ibdev, b->tail_dma, rest,
					   DMA_FROM_DEVICE);
	/* the tail holds the rest of a large LLC message */
	smcr_link_rx(link, b->buf, b->tail ? page_address(b->tail) : NULL,
		     len);
	/* the device's again, before it is posted */
	ib_dma_sync_single_for_device(s->ibdev, b->dma, SMCR_RX_LEN,
				      DMA_FROM_DEVICE);
	if (rest)
		ib_dma_sync_single_for_device(s->ibdev, b->tail_dma, rest,
					      DMA_FROM_DEVICE);
}

/*
 * Test mode (SMCR_LLC_TEST_HOLD): a large ADD LINK is read only when
 * the next receive of the CQ completes, as when the CPU is slower than
 * the device.  Completions of one CQ are handled one at a time.
 */
static bool smcr_srq_test_hold(struct smcr_srq *s, struct smcr_rxbuf *b,
			       struct smcr_link *link, u32 len)
{
	if (!(READ_ONCE(smcr_llc_test) & SMCR_LLC_TEST_HOLD) ||
	    len <= SMCR_RX_LEN || s->test_held)
		return false;
	ib_dma_sync_single_for_cpu(s->ibdev, b->dma, SMCR_RX_LEN,
				   DMA_FROM_DEVICE);
	if ((b->buf[0] & 0x0f) != SMC_LLC_ADD_LINK)
		return false;
	s->test_held = b;
	s->test_link = link;
	s->test_len = len;
	return true;
}

static void smcr_srq_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_rxbuf *b = container_of(wc->wr_cqe, struct smcr_rxbuf,
					    cqe);
	struct smcr_link *link = wc->qp ? wc->qp->qp_context : NULL;
	struct smcr_srq *s = b->srq;
	struct smcr_rxbuf *held = s->test_held;

	if (held) {
		s->test_held = NULL;
		smcr_srq_rx_msg(s, held, s->test_link, s->test_len);
		smcr_srq_recycle(s, held);
	}
	if (link)
		smcr_link_count_wc(link);
	if (wc->status == IB_WC_SUCCESS && link) {
		if (!held && smcr_srq_test_hold(s, b, link, wc->byte_len))
			return;
		smcr_srq_rx_msg(s, b, link, wc->byte_len);
	} else if (wc->status != IB_WC_WR_FLUSH_ERR && link) {
		smcr_link_down(link, "receive completion: %s (%d)",
			       ib_wc_status_msg(wc->status), wc->status);
	}
	smcr_srq_recycle(s, b);
}

/* The tails of @c's buffers, as far as they were made */
static void smcr_srq_tails_free(struct smcr_srq *s, struct smcr_rxchunk *c)
{
	struct smcr_rxbuf *b;
	unsigned int i;

	for (i = 0; i < SMCR_SRQ_CHUNK; i++) {
		b = &c->bufs[i];
		if (!b->tail)
			continue;
		ib_dma_unmap_page(s->ibdev, b->tail_dma, SMCR_RX_TAIL,
				  DMA_FROM_DEVICE);
		__free_page(b->tail);
		b->tail = NULL;
	}
}

/* A page for the tail of each buffer of @c; 0 or -ENOMEM */
static int smcr_srq_tails_make(struct smcr_srq *s, struct smcr_rxchunk *c)
{
	struct smcr_rxbuf *b;
	unsigned int i;

	BUILD_BUG_ON(SMCR_RX_TAIL > PAGE_SIZE);
	BUILD_BUG_ON(SMCR_RX_LEN + SMCR_RX_TAIL <
		     SMC_LLC_ADD_LINK_V2_HDR + 16 * 255);
	for (i = 0; i < SMCR_SRQ_CHUNK; i++) {
		b = &c->bufs[i];
		b->tail = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->tail)
			return -ENOMEM;
		b->tail_dma = ib_dma_map_page(s->ibdev, b->tail, 0,
					      SMCR_RX_TAIL, DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(s->ibdev, b->tail_dma)) {
			__free_page(b->tail);
			b->tail = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* SMCR_SRQ_CHUNK more buffers, onto the spare list */
static int smcr_srq_chunk_add(struct smcr_srq *s)
{
	struct smcr_rxchunk *c;
	struct smcr_rxbuf *b;
	unsigned int i;

	if (s->nchunks == s->maxchunks)
		return -ENOSPC;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->mem = kzalloc(SMCR_SRQ_CHUNK * SMCR_RX_LEN, GFP_KERNEL);
	if (!c->mem)
		goto out_free;
	c->dma = ib_dma_map_single(s->ibdev, c->mem,
				   SMCR_SRQ_CHUNK * SMCR_RX_LEN,
				   DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(s->ibdev, c->dma))
		goto out_free;
	if (s->nsge > 1 && smcr_srq_tails_make(s, c))
		goto out_unmap;
	for (i = 0; i < SMCR_SRQ_CHUNK; i++) {
		b = &c->bufs[i];
		b->cqe.done = smcr_srq_rx_done;
		b->srq = s;
		b->buf = c->mem + i * SMCR_RX_LEN;
		b->dma = c->dma + i * SMCR_RX_LEN;
		llist_add(&b->free, &s->spare);
	}
	s->chunks[s->nchunks++] = c;
	return 0;

out_unmap:
	smcr_srq_tails_free(s, c);
	ib_dma_unmap_single(s->ibdev, c->dma, SMCR_SRQ_CHUNK * SMCR_RX_LEN,
			    DMA_FROM_DEVICE);
out_free:
	kfree(c->mem);
	kfree(c);
	return -ENOMEM;
}

static void smcr_srq_set_target(struct smcr_srq *s)
{
	WRITE_ONCE(s->target, min(s->want, s->cap));
	/* the low watermark: a quarter of the buffers out */
	WRITE_ONCE(s->batch, clamp_t(unsigned int, s->target / 4, 1,
				     SMCR_SRQ_BATCH));
}

/*
 * A link joins with @n receive buffers (its CQ entries for them are
 * taken): post up to the new target.  Process context, under the
 * device's setup_lock.  Fails only when no buffer is in use at all.
 */
int smcr_srq_grow(struct smcr_srq *s, unsigned int n)
{
	struct llist_node *first = NULL, *node;
	unsigned int need, got = 0, put = 0;

	spin_lock_bh(&s->lock);
	s->want += n;
	smcr_srq_set_target(s);
	need = s->target > s->posted ? s->target - s->posted : 0;
	/* counted before they are posted: none is retired meanwhile */
	WRITE_ONCE(s->posted, s->posted + need);
	spin_unlock_bh(&s->lock);

	while (got < need) {
		/* we are the only taker; completions only add */
		node = llist_del_first(&s->spare);
		if (!node) {
			if (smcr_srq_chunk_add(s))
				break;
			continue;
		}
		node->next = first;
		first = node;
		got++;
	}

	spin_lock_bh(&s->lock);
	WRITE_ONCE(s->posted, s->posted - (need - got));
	if (!s->posted) {
		/* nothing to receive with: the link is refused */
		s->want -= n;
		smcr_srq_set_target(s);
		spin_unlock_bh(&s->lock);
		return -ENOMEM;
	}
	/* the new link's entries may stand for buffers kept for others */
	if (s->held) {
		put = min(s->held, s->want + s->held - s->posted);
		s->held -= put;
	}
	spin_unlock_bh(&s->lock);
	if (put)
		ib_cq_pool_put(s->cq, put);
	if (smcr_srq_post(s, first))
		pr_err_ratelimited("smc: %s: receive queue fill failed\n",
				   dev_name(&s->ibdev->dev));
	return 0;
}

/*
 * A link with @n receive buffers has gone (its QP destroyed).  Returns
 * how many of its CQ entries the SRQ keeps, for buffers still posted
 * beyond what the other links want; completions give them back.
 */
unsigned int smcr_srq_shrink(struct smcr_srq *s, unsigned int n)
{
	unsigned int keep = 0;

	spin_lock_bh(&s->lock);
	s->want -= min(s->want, n);
	smcr_srq_set_target(s);
	if (s->posted > s->want + s->held)
		keep = min(n, s->posted - s->want - s->held);
	s->held += keep;
	spin_unlock_bh(&s->lock);
	return keep;
}

/*
 * An SRQ on @cq for QPs of @pd, with room for @most buffers (or the
 * device's most, or SMCR_SRQ_MAX, if fewer).  A device makes room for
 * all of them at once: rxe, for one, allocates and clears the ring.
 */
struct smcr_srq *smcr_srq_create(struct ib_device *ibdev, struct ib_pd *pd,
				 struct ib_cq *cq, unsigned int most)
{
	struct ib_srq_init_attr attr = {};
	unsigned int cap, nchunks;
	struct smcr_srq *s;
	int rc;

	cap = min_t(unsigned int, ibdev->attrs.max_srq_wr,
		    min_t(unsigned int, most, SMCR_SRQ_MAX));
	if (!cap)
		return ERR_PTR(-EOPNOTSUPP);
	nchunks = DIV_ROUND_UP(cap, SMCR_SRQ_CHUNK);
	s = kzalloc(struct_size(s, chunks, nchunks), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->ibdev = ibdev;
	s->pd = pd;
	s->cq = cq;
	s->cap = cap;
	s->maxchunks = nchunks;
	s->nsge = ibdev->attrs.max_srq_sge >= 2 ? 2 : 1;
	spin_lock_init(&s->lock);
	init_llist_head(&s->free);
	init_llist_head(&s->spare);
	smcr_srq_set_target(s);

	attr.attr.max_wr = cap;
	attr.attr.max_sge = s->nsge;
	attr.srq_type = IB_SRQT_BASIC;
	s->srq = ib_create_srq(pd, &attr);
	if (IS_ERR(s->srq)) {
		rc = PTR_ERR(s->srq);
		kfree(s);
		return ERR_PTR(rc);
	}
	return s;
}

/*
 * No QP uses @s any more: its posted buffers go with it (they complete
 * no more: only a QP takes them).  False when the device refused.
 */
bool smcr_srq_destroy(struct smcr_srq *s)
{
	struct smcr_rxchunk *c;
	unsigned int i;

	/* a QP still on it: its buffers must stay, leave it all */
	if (ib_destroy_srq_user(s->srq, NULL)) {
		pr_err("smc: %s: receive queue busy, left in place\n",
		       dev_name(&s->ibdev->dev));
		return false;
	}
	for (i = 0; i < s->nchunks; i++) {
		c = s->chunks[i];
		smcr_srq_tails_free(s, c);
		ib_dma_unmap_single(s->ibdev, c->dma,
				    SMCR_SRQ_CHUNK * SMCR_RX_LEN,
				    DMA_FROM_DEVICE);
		kfree(c->mem);
		kfree(c);
	}
	/* the pool CQ is freed after us, and must have nothing taken */
	if (s->held)
		ib_cq_pool_put(s->cq, s->held);
	kfree(s);
	return true;
}
