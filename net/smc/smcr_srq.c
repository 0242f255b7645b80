// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the shared receive queue of a
 * completion vector.
 *
 * Every link whose QP is bound to a vector takes its receives from the
 * vector's SRQ, so receive buffers scale with vectors, not links.  A
 * buffer is SMCR_RX_LEN bytes, enough for any CDC or LLC message,
 * followed by a spill area shared by all buffers of the SRQ that
 * takes the rest of the two large LLC messages of SMC-Rv2, whose
 * heads are all we read.
 *
 * The completion handler hands a buffer's message to its link and puts
 * the buffer on a lock-free list; when SMCR_SRQ_BATCH buffers are
 * there (the queue is down to its low watermark), they are posted
 * again in one chain, with one doorbell.
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "smcr_dev.h"
#include "smcr_link.h"
#include "smcr_srq.h"

struct smcr_rxbuf {
	struct ib_cqe		cqe;
	struct llist_node	free;
	struct smcr_srq		*srq;
	unsigned int		idx;
	/* its work request, chained with the others of a batch */
	struct ib_recv_wr	wr;
	struct ib_sge		sge[2];
};

struct smcr_srq {
	struct ib_srq		*srq;
	struct ib_device	*ibdev;
	struct ib_pd		*pd;
	u8			*mem;		/* SMCR_SRQ_WR buffers */
	u64			dma;
	u8			*spill;
	u64			spill_dma;
	unsigned int		nsge;
	struct smcr_rxbuf	bufs[SMCR_SRQ_WR];
	struct llist_head	free;		/* to be posted again */
	atomic_t		nfree;
};

static void smcr_srq_rx_done(struct ib_cq *cq, struct ib_wc *wc);

/* Post the buffers on @list (linked by free) in one chain */
static int smcr_srq_post(struct smcr_srq *s, struct llist_node *list)
{
	struct ib_recv_wr *first = NULL, *prev = NULL;
	const struct ib_recv_wr *bad;
	struct smcr_rxbuf *b;

	llist_for_each_entry(b, list, free) {
		b->sge[0].addr = s->dma + b->idx * SMCR_RX_LEN;
		b->sge[0].length = SMCR_RX_LEN;
		b->sge[0].lkey = s->pd->local_dma_lkey;
		b->sge[1].addr = s->spill_dma;
		b->sge[1].length = SMCR_RX_SPILL;
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

/* A buffer is done with: post the free ones at the watermark */
static void smcr_srq_recycle(struct smcr_srq *s, struct smcr_rxbuf *b)
{
	struct llist_node *list;
	int rc;

	llist_add(&b->free, &s->free);
	if (atomic_inc_return(&s->nfree) < SMCR_SRQ_BATCH)
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

static void smcr_srq_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_rxbuf *b = container_of(wc->wr_cqe, struct smcr_rxbuf,
					    cqe);
	struct smcr_srq *s = b->srq;
	u64 dma = s->dma + b->idx * SMCR_RX_LEN;
	struct smcr_link *link = wc->qp ? wc->qp->qp_context : NULL;

	if (link)
		smcr_link_count_wc(link);
	if (wc->status == IB_WC_SUCCESS && link) {
		ib_dma_sync_single_for_cpu(s->ibdev, dma, SMCR_RX_LEN,
					   DMA_FROM_DEVICE);
		if (wc->byte_len > SMCR_RX_LEN && s->nsge > 1)
			ib_dma_sync_single_for_cpu(s->ibdev, s->spill_dma,
						   SMCR_RX_SPILL,
						   DMA_FROM_DEVICE);
		/* the spill holds the rest of a large LLC message */
		smcr_link_rx(link, s->mem + b->idx * SMCR_RX_LEN,
			     s->nsge > 1 ? s->spill : NULL,
			     min_t(u32, wc->byte_len, SMC_LLC_MAX_LEN));
		ib_dma_sync_single_for_device(s->ibdev, dma, SMCR_RX_LEN,
					      DMA_FROM_DEVICE);
	} else if (wc->status != IB_WC_WR_FLUSH_ERR && link) {
		smcr_link_down(link);
	}
	smcr_srq_recycle(s, b);
}

struct smcr_srq *smcr_srq_create(struct ib_device *ibdev, struct ib_pd *pd)
{
	struct ib_srq_init_attr attr = {};
	struct llist_node *list;
	struct smcr_srq *s;
	unsigned int i;
	int rc = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->ibdev = ibdev;
	s->pd = pd;
	s->nsge = ibdev->attrs.max_srq_sge >= 2 ? 2 : 1;
	init_llist_head(&s->free);
	s->mem = kzalloc(SMCR_SRQ_WR * SMCR_RX_LEN, GFP_KERNEL);
	s->spill = kzalloc(SMCR_RX_SPILL, GFP_KERNEL);
	if (!s->mem || !s->spill)
		goto out_free;
	s->dma = ib_dma_map_single(ibdev, s->mem, SMCR_SRQ_WR * SMCR_RX_LEN,
				   DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, s->dma))
		goto out_free;
	s->spill_dma = ib_dma_map_single(ibdev, s->spill, SMCR_RX_SPILL,
					 DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, s->spill_dma))
		goto out_unmap;

	attr.attr.max_wr = SMCR_SRQ_WR;
	attr.attr.max_sge = s->nsge;
	attr.srq_type = IB_SRQT_BASIC;
	s->srq = ib_create_srq(pd, &attr);
	if (IS_ERR(s->srq)) {
		rc = PTR_ERR(s->srq);
		goto out_unmap_spill;
	}
	for (i = 0; i < SMCR_SRQ_WR; i++) {
		s->bufs[i].cqe.done = smcr_srq_rx_done;
		s->bufs[i].srq = s;
		s->bufs[i].idx = i;
		llist_add(&s->bufs[i].free, &s->free);
	}
	list = llist_del_all(&s->free);
	rc = smcr_srq_post(s, list);
	if (rc)
		goto out_srq;
	return s;

out_srq:
	ib_destroy_srq(s->srq);
out_unmap_spill:
	ib_dma_unmap_single(ibdev, s->spill_dma, SMCR_RX_SPILL,
			    DMA_FROM_DEVICE);
out_unmap:
	ib_dma_unmap_single(ibdev, s->dma, SMCR_SRQ_WR * SMCR_RX_LEN,
			    DMA_FROM_DEVICE);
out_free:
	kfree(s->spill);
	kfree(s->mem);
	kfree(s);
	return ERR_PTR(rc);
}

struct ib_srq *smcr_srq_ib(struct smcr_srq *s)
{
	return s->srq;
}

/* No QP uses @s any more: its posted buffers go with it */
void smcr_srq_destroy(struct smcr_srq *s)
{
	if (!s)
		return;
	/* a QP still on it: its buffers must stay, leave it all */
	if (ib_destroy_srq_user(s->srq, NULL)) {
		pr_err("smc: %s: receive queue busy, left in place\n",
		       dev_name(&s->ibdev->dev));
		return;
	}
	ib_dma_unmap_single(s->ibdev, s->spill_dma, SMCR_RX_SPILL,
			    DMA_FROM_DEVICE);
	ib_dma_unmap_single(s->ibdev, s->dma, SMCR_SRQ_WR * SMCR_RX_LEN,
			    DMA_FROM_DEVICE);
	kfree(s->spill);
	kfree(s->mem);
	kfree(s);
}
