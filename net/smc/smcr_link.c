// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-R links.
 *
 * A link is one RC queue pair.  Its QP is bound to the least-used
 * completion vector of its device; the CQ comes from the RDMA core's
 * shared pool on that vector (one CQ for sends and receives) and the
 * receives from that CQ's SRQ.  Completions come through ib_cqe
 * callbacks in softirq.
 *
 * Send slots are tickets for the send queue: a CDC or LLC message
 * needs one, and its RDMA writes ride on the same post (writes first,
 * then the signaled CDC: one doorbell, one completion).  Waiters for a
 * slot queue up exclusively and are served in order; a newcomer does
 * not overtake them.  Taking a link down waits until every slot is
 * back, so no one posts on a QP being destroyed.
 *
 * Lock order: slot_lock and llc_lock are leaves; reg_lock (mutex)
 * is taken without spinlocks held.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "smc_conn.h"
#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smcr_dev.h"
#include "smcr.h"
#include "smcr_srq.h"

static void smcr_link_keepalive(struct work_struct *work);
static int smcr_link_modify(struct smcr_link *link, bool rts);

/*
 * The device is done with the writes chained before @slot's message:
 * they completed, or the QP flushed them and reads no more.  Their
 * send buffer may serve another connection now (smcr_buf_get()).
 */
static void smcr_slot_writes_done(struct smcr_slot *slot)
{
	if (!slot->wbuf)
		return;
	atomic_dec_return_release(&slot->wbuf->writing);
	slot->wbuf = NULL;
}

static void smcr_slot_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_slot *slot = container_of(wc->wr_cqe, struct smcr_slot,
					      cqe);
	struct smcr_link *link = slot->link;
	struct smc_sock *smc;

	/* its send buffers and group may be gone; the slot stays taken */
	if (READ_ONCE(link->orphan))
		return;
	smcr_link_count_wc(link);
	smcr_slot_writes_done(slot);
	if (wc->status != IB_WC_SUCCESS) {
		smcr_link_down(link, "send completion: %s (%d)",
			       ib_wc_status_msg(wc->status), wc->status);
	} else if (slot->cdc) {
		/* the peer has it: a link switch tells the peer so */
		rcu_read_lock();
		smc = xa_load(&link->lgr->conns_by_token, slot->token);
		if (smc)
			smc_tx_cdc_done(smc, slot->seq);
		rcu_read_unlock();
	}
	slot->cdc = false;
	smcr_slot_put(slot);
}

static void smcr_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_link *link = container_of(wc->wr_cqe, struct smcr_link,
					      reg_cqe);

	smcr_link_count_wc(link);
	if (wc->status == IB_WC_SUCCESS)
		link->reg_status = 0;
	else if (wc->status == IB_WC_REM_ACCESS_ERR)
		link->reg_status = -EACCES;
	else
		link->reg_status = -EIO;
	complete(&link->reg_done);
}

static void smcr_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_link *link = container_of(wc->wr_cqe, struct smcr_link,
					      drain_cqe);

	smcr_link_count_wc(link);
	complete(&link->drained);
}

/* An asynchronous error of the link's QP: the link fails (any context) */
static void smcr_qp_event(struct ib_event *ev, void *ctx)
{
	struct smcr_link *link = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		smcr_link_down(link, "QP event: %s", ib_event_msg(ev->event));
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		WRITE_ONCE(link->dev->last_wqe, SMCR_LAST_WQE_YES);
		complete(&link->last_wqe);
		break;
	default:
		break;
	}
}

/*
 * A QP in the error state that takes its receives from an SRQ: wait
 * for the Last WQE Reached event, after which no receive completion of
 * the QP is still to come but those in the CQ already (the marker
 * through the send queue then proves them handled).  A device that
 * never signals it is known after one timeout and not waited for.
 */
static void smcr_link_wait_last_wqe(struct smcr_link *link)
{
	struct smcr_dev *dev = link->dev;
	unsigned long wait;

	switch (READ_ONCE(dev->last_wqe)) {
	case SMCR_LAST_WQE_YES:
		wait = SMCR_DRAIN_WAIT;
		break;
	case SMCR_LAST_WQE_NO:
		return;
	default:
		wait = SMCR_LAST_WQE_PROBE;
		break;
	}
	if (!wait_for_completion_timeout(&link->last_wqe, wait) &&
	    READ_ONCE(dev->last_wqe) == SMCR_LAST_WQE_UNKNOWN)
		WRITE_ONCE(dev->last_wqe, SMCR_LAST_WQE_NO);
}

/* The slot arrays, not (or no longer) DMA-mapped */
static void smcr_link_slots_drop(struct smcr_link *link)
{
	kfree(link->slot_bufs);
	bitmap_free(link->slot_free);
	kfree(link->slots);
	link->slot_bufs = NULL;
	link->slot_free = NULL;
	link->slots = NULL;
}

static int smcr_link_slots_alloc(struct smcr_link *link, unsigned int n)
{
	struct ib_device *ibdev = link->dev->ibdev;
	unsigned int i;

	link->slots = kcalloc(n, sizeof(*link->slots), GFP_KERNEL);
	link->slot_free = bitmap_zalloc(n, GFP_KERNEL);
	/* one DMA mapping for all: physically contiguous */
	link->slot_bufs = kcalloc(n, SMCR_SLOT_LEN, GFP_KERNEL);
	if (!link->slots || !link->slot_free || !link->slot_bufs)
		goto out_free;
	link->slot_dma = ib_dma_map_single(ibdev, link->slot_bufs,
					   n * SMCR_SLOT_LEN, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, link->slot_dma))
		goto out_free;
	for (i = 0; i < n; i++) {
		link->slots[i].cqe.done = smcr_slot_done;
		link->slots[i].link = link;
		link->slots[i].idx = i;
		link->slots[i].buf = link->slot_bufs + i * SMCR_SLOT_LEN;
	}
	bitmap_fill(link->slot_free, n);
	link->nslots = n;
	return 0;

out_free:
	smcr_link_slots_drop(link);
	return -ENOMEM;
}

/*
 * The group's smcr_max_send_wr slots, as many as the device's queues
 * hold; short of memory, half as many, down to the old fixed count.
 */
static int smcr_link_slots_init(struct smcr_link *link, unsigned int rx)
{
	const struct ib_device_attr *da = &link->dev->ibdev->attrs;
	unsigned int want, least;
	int fit;

	/* signed: a device may hold less than the fixed part */
	fit = min(da->max_qp_wr - (int)SMCR_SQ_WR(0),
		  da->max_cqe - (int)SMCR_CQE(0, rx)) / 3;
	/* the pool would make CQs without end for a count none can hold */
	if (fit < SMC_WR_MIN)
		return -ENOSPC;
	/* the sysctl keeps send_wr within SMC_WR_MIN..SMC_WR_MAX */
	want = min_t(unsigned int, link->lgr->send_wr, fit);
	least = min_t(unsigned int, want, SMC_SEND_WR_DEFAULT);
	for (; want >= least; want /= 2) {
		if (!smcr_link_slots_alloc(link, want))
			return 0;
	}
	return -ENOMEM;
}

static void smcr_link_slots_free(struct smcr_link *link)
{
	struct ib_device *ibdev = link->dev->ibdev;

	if (link->big_buf) {
		ib_dma_unmap_single(ibdev, link->big_dma, SMC_LLC_MAX_LEN,
				    DMA_TO_DEVICE);
		kfree(link->big_buf);
		link->big_buf = NULL;
	}
	if (!link->slot_bufs)
		return;
	ib_dma_unmap_single(ibdev, link->slot_dma,
			    link->nslots * SMCR_SLOT_LEN, DMA_TO_DEVICE);
	smcr_link_slots_drop(link);
}

/*
 * The buffer for the large v2 LLC messages (SMC_LLC_MAX_LEN bytes),
 * made when first needed.  One flow uses it at a time (llc_flow).
 */
u8 *smcr_link_big_buf(struct smcr_link *link)
{
	struct ib_device *ibdev = link->dev->ibdev;

	lockdep_assert_held(&link->lgr->llc_flow);
	if (link->big_buf)
		return link->big_buf;
	link->big_buf = kzalloc(SMC_LLC_MAX_LEN, GFP_KERNEL);
	if (!link->big_buf)
		return ERR_PTR(-ENOMEM);
	link->big_dma = ib_dma_map_single(ibdev, link->big_buf,
					  SMC_LLC_MAX_LEN, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, link->big_dma)) {
		kfree(link->big_buf);
		link->big_buf = NULL;
		return ERR_PTR(-ENOMEM);
	}
	return link->big_buf;
}

/*
 * A new link of @lgr on port @port of @dev, using our GID @gid (at
 * @sgid_index) and MAC @mac: the QP is made and moved to INIT.
 */
struct smcr_link *smcr_link_create(struct smcr_lgr *lgr, struct smcr_dev *dev,
				   u8 port, int sgid_index, const u8 *gid,
				   const u8 *mac)
{
	struct ib_qp_init_attr qa = {};
	struct ib_qp_attr attr = {};
	struct smcr_link *link;
	struct ib_srq *srq;
	int rc;

	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return ERR_PTR(-ENOMEM);
	refcount_inc(&dev->refs);
	link->dev = dev;
	link->lgr = lgr;
	link->port = port;
	strscpy(link->ibname, dev_name(&dev->ibdev->dev), sizeof(link->ibname));
	link->sgid_index = sgid_index;
	memcpy(link->gid, gid, sizeof(link->gid));
	memcpy(link->mac, mac, sizeof(link->mac));
	link->psn = get_random_u32() & 0xffffff;
	link->state = SMCR_LINK_ACTIVATING;
	spin_lock_init(&link->slot_lock);
	init_waitqueue_head(&link->slot_wq);
	mutex_init(&link->reg_lock);
	link->reg_cqe.done = smcr_reg_done;
	init_completion(&link->reg_done);
	spin_lock_init(&link->llc_lock);
	init_completion(&link->llc_done);
	link->drain_cqe.done = smcr_drain_done;
	init_completion(&link->drained);
	init_completion(&link->last_wqe);
	INIT_DELAYED_WORK(&link->keepalive, smcr_link_keepalive);
	INIT_LIST_HEAD(&link->dead);

	/* first: a device being removed refuses, then ibdev may be used */
	rc = smcr_dev_bind(dev, lgr->pd_owner, &link->vec, &link->pd);
	if (rc)
		goto out_free;
	link->rx_bufs = min_t(unsigned int, lgr->recv_wr, SMCR_SRQ_MAX);
	rc = smcr_link_slots_init(link, link->rx_bufs);
	if (rc)
		goto out_unbind;
	link->cqes = SMCR_CQE(link->nslots, link->rx_bufs);
	link->cq = ib_cq_pool_get(dev->ibdev, link->cqes, link->vec,
				  IB_POLL_SOFTIRQ);
	if (IS_ERR(link->cq)) {
		rc = PTR_ERR(link->cq);
		link->cq = NULL;
		goto out_slots;
	}
	/* the CQ's SRQ, with our receives added */
	rc = smcr_dev_srq_join(dev, link->pd, link->vec, link->cq,
			       link->rx_bufs, &link->srq);
	if (rc)
		goto out_cq;
	srq = smcr_srq_ib(link->srq);

	qa.qp_context = link;
	qa.event_handler = smcr_qp_event;
	qa.send_cq = link->cq;
	qa.recv_cq = link->cq;
	qa.srq = srq;
	qa.qp_type = IB_QPT_RC;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.cap.max_send_wr = SMCR_SQ_WR(link->nslots);
	qa.cap.max_send_sge = 2;
	qa.cap.max_inline_data = SMCR_CDC_MSG_LEN;
	link->qp = ib_create_qp(link->pd->pd, &qa);
	if (IS_ERR(link->qp)) {
		/* no inline sends then: the slots are DMA-mapped anyway */
		qa.cap.max_inline_data = 0;
		link->qp = ib_create_qp(link->pd->pd, &qa);
	}
	if (IS_ERR(link->qp)) {
		rc = PTR_ERR(link->qp);
		link->qp = NULL;
		goto out_srq;
	}
	link->inline_cdc = qa.cap.max_inline_data >= SMCR_CDC_MSG_LEN;
	link->qp_num = link->qp->qp_num;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = port;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	rc = ib_modify_qp(link->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			  IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (rc)
		goto out_qp;
	return link;

out_qp:
	ib_destroy_qp(link->qp);
out_srq:
	/* the SRQ keeps the CQ entries of buffers posted for us */
	link->cqes -= smcr_dev_srq_leave(dev, link->pd, link->srq,
					 link->rx_bufs);
out_cq:
	ib_cq_pool_put(link->cq, link->cqes);
out_slots:
	smcr_link_slots_free(link);
out_unbind:
	smcr_dev_unbind(dev, link->pd, link->vec, 0);
out_free:
	smcr_dev_put(dev);
	kfree(link);
	return ERR_PTR(rc);
}

/*
 * The peer's QPN, PSN, GID and MAC are known (link->peer_*) and the
 * path MTU (link->mtu): move the QP to RTR, and to RTS with @rts.  The
 * state is ours to track: 6.1's rxe does not report it in a query.
 */
int smcr_link_ready(struct smcr_link *link, bool rts)
{
	struct smcr_slot *ticket;
	int rc;

	/* a slot held keeps the QP from being destroyed meanwhile */
	ticket = smcr_slot_get(link, true);
	if (IS_ERR(ticket))
		return PTR_ERR(ticket);
	rc = smcr_link_modify(link, rts);
	smcr_slot_put(ticket);
	return rc;
}

static int smcr_link_modify(struct smcr_link *link, bool rts)
{
	struct ib_qp_attr attr = {};
	union ib_gid dgid;
	int rc;

	if (!rts) {
		memcpy(dgid.raw, link->peer_gid, sizeof(dgid.raw));
		attr.qp_state = IB_QPS_RTR;
		attr.path_mtu = link->mtu;
		attr.dest_qp_num = link->peer_qpn;
		attr.rq_psn = link->peer_psn;
		attr.max_dest_rd_atomic = 1;
		attr.min_rnr_timer = 5;
		attr.ah_attr.type = rdma_ah_find_type(link->dev->ibdev,
						      link->port);
		rdma_ah_set_port_num(&attr.ah_attr, link->port);
		rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, link->sgid_index, 1,
				0);
		memcpy(attr.ah_attr.roce.dmac, link->peer_mac, ETH_ALEN);
		return ib_modify_qp(link->qp, &attr, IB_QP_STATE | IB_QP_AV |
				    IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				    IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				    IB_QP_MIN_RNR_TIMER);
	}
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 15;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = link->psn;
	attr.max_rd_atomic = 1;
	rc = ib_modify_qp(link->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			  IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			  IB_QP_MAX_QP_RD_ATOMIC);
	return rc;
}

static bool smcr_slot_try(struct smcr_link *link, bool queued,
			  struct smcr_slot **slot)
{
	unsigned int i;

	spin_lock_bh(&link->slot_lock);
	if (link->state == SMCR_LINK_DOWN) {
		spin_unlock_bh(&link->slot_lock);
		*slot = ERR_PTR(-ENOLINK);
		return true;
	}
	/* a REG_MR runs alone (smcr_slot_get_alone()) */
	if (link->slots_held) {
		spin_unlock_bh(&link->slot_lock);
		return false;
	}
	/* fairness: a newcomer waits behind those already queued */
	if (!queued && waitqueue_active(&link->slot_wq)) {
		spin_unlock_bh(&link->slot_lock);
		return false;
	}
	i = find_first_bit(link->slot_free, link->nslots);
	if (i < link->nslots) {
		__clear_bit(i, link->slot_free);
		*slot = &link->slots[i];
	}
	spin_unlock_bh(&link->slot_lock);
	return i < link->nslots;
}

/*
 * A send slot of @link.  With @wait, a wait of up to SMCR_SLOT_WAIT,
 * after which the link counts as broken.  The wait ends early when the
 * link goes down (smcr_slot_try() sees it) and when the task gets a
 * fatal signal: a peer that stops completing our sends must not hold a
 * dying task in D state.  Returns the slot or an error pointer.
 */
struct smcr_slot *smcr_slot_get(struct smcr_link *link, bool wait)
{
	struct smcr_slot *slot = NULL;
	long left;

	if (smcr_slot_try(link, false, &slot))
		return slot;
	if (!wait)
		return ERR_PTR(-EAGAIN);
	/* exclusive (one waiter per freed slot), timed */
	left = ___wait_event(link->slot_wq,
			     ___wait_cond_timeout(smcr_slot_try(link, true,
								&slot)),
			     TASK_KILLABLE, 1, SMCR_SLOT_WAIT,
			     __ret = schedule_timeout(__ret));
	if (slot)
		return slot;
	if (left == -ERESTARTSYS)
		return ERR_PTR(-EINTR);
	smcr_link_down(link, "no send slot for %u s", SMCR_SLOT_WAIT / HZ);
	return ERR_PTR(-ETIMEDOUT);
}

void smcr_slot_put(struct smcr_slot *slot)
{
	struct smcr_link *link = slot->link;

	spin_lock_bh(&link->slot_lock);
	__set_bit(slot->idx, link->slot_free);
	spin_unlock_bh(&link->slot_lock);
	/* one waiter per slot; teardown waits for all of them */
	wake_up(&link->slot_wq);
}

/*
 * Post the message in @slot (SMCR_CDC_MSG_LEN or SMC_LLC_MSG_LEN
 * bytes), after the @nwrites RDMA writes from send buffer @from in
 * @writes, in one chain.  The slot comes back with the message's
 * completion, or now on error; @from is not reused before either.
 */
static int __smcr_slot_post(struct smcr_slot *slot, struct ib_rdma_wr *writes,
			    unsigned int nwrites, struct smcr_buf *from,
			    u32 big_len)
{
	struct smcr_link *link = slot->link;
	struct ib_send_wr send = {};
	const struct ib_send_wr *bad;
	struct ib_sge sge;
	unsigned int i;
	int rc;

	/* the fuzzing lane's hostile end, when debugfs asks for one */
	if (big_len)
		big_len = smcr_mutate(link, link->big_buf, big_len,
				      SMC_LLC_MAX_LEN);
	else
		sge.length = smcr_mutate(link, slot->buf, SMCR_CDC_MSG_LEN,
					 SMCR_SLOT_LEN);
	sge.lkey = link->pd->pd->local_dma_lkey;
	send.wr_cqe = &slot->cqe;
	send.opcode = IB_WR_SEND;
	send.sg_list = &sge;
	send.num_sge = 1;
	send.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	if (big_len) {
		/* the slot is only the ticket: the message is in big_buf */
		sge.addr = link->big_dma;
		sge.length = big_len;
		ib_dma_sync_single_for_device(link->dev->ibdev, sge.addr,
					      big_len, DMA_TO_DEVICE);
	} else if (link->inline_cdc) {
		/* inline data is copied by the CPU: a kernel address */
		sge.addr = (uintptr_t)slot->buf;
		send.send_flags |= IB_SEND_INLINE;
	} else {
		sge.addr = link->slot_dma + slot->idx * SMCR_SLOT_LEN;
		ib_dma_sync_single_for_device(link->dev->ibdev, sge.addr,
					      SMCR_SLOT_LEN, DMA_TO_DEVICE);
	}
	for (i = 0; i < nwrites; i++)
		writes[i].wr.next = i + 1 < nwrites ? &writes[i + 1].wr : &send;
	if (nwrites) {
		slot->wbuf = from;
		atomic_inc(&from->writing);
	}
	rc = ib_post_send(link->qp, nwrites ? &writes[0].wr : &send, &bad);
	if (rc) {
		smcr_link_down(link, "send post: %pe", ERR_PTR(rc));
		/*
		 * Writes the device took before the failed one read the
		 * buffer with no completion to tell when they stop: it
		 * stays out of use until the group ends.
		 */
		if (nwrites && bad == &writes[0].wr)
			smcr_slot_writes_done(slot);
		slot->wbuf = NULL;
		slot->cdc = false;
		smcr_slot_put(slot);
	}
	return rc;
}

/* Post the message in @slot alone */
int smcr_slot_post(struct smcr_slot *slot)
{
	return __smcr_slot_post(slot, NULL, 0, NULL, 0);
}

/* Post the message in @slot after @nwrites RDMA writes from @from */
int smcr_slot_post_writes(struct smcr_slot *slot, struct ib_rdma_wr *writes,
			  unsigned int nwrites, struct smcr_buf *from)
{
	return __smcr_slot_post(slot, writes, nwrites, from, 0);
}

/* Post the @len bytes of smcr_link_big_buf(), @slot being the ticket */
int smcr_slot_post_big(struct smcr_slot *slot, u32 len)
{
	return __smcr_slot_post(slot, NULL, 0, NULL, len);
}

static bool smcr_link_slots_back(struct smcr_link *link)
{
	bool all;

	spin_lock_bh(&link->slot_lock);
	all = bitmap_full(link->slot_free, link->nslots);
	spin_unlock_bh(&link->slot_lock);
	return all;
}

/* The others may have slots again; those queued retry in their order */
static void smcr_slots_release(struct smcr_link *link)
{
	spin_lock_bh(&link->slot_lock);
	link->slots_held = false;
	spin_unlock_bh(&link->slot_lock);
	wake_up_all(&link->slot_wq);
}

static bool smcr_link_quiet(struct smcr_link *link)
{
	return smcr_link_slots_back(link) ||
	       READ_ONCE(link->state) == SMCR_LINK_DOWN;
}

/*
 * A slot of @link for a REG_MR that is to run alone (dev->reg_alone):
 * no slot is handed out from now until smcr_slots_release(), and the
 * ones out come back first (up to SMCR_QUIET_WAIT), so that the send
 * queue is empty.  When it does not empty in time (a slow peer), the
 * REG_MR goes anyway, as on any other device; nothing is posted behind
 * it until it completes.  With no slot free at all, it waits for one
 * like any sender (and the link fails if none comes).
 */
static struct smcr_slot *smcr_slot_get_alone(struct smcr_link *link)
{
	struct smcr_slot *slot = ERR_PTR(-ENOLINK);
	unsigned int i;
	bool held;

	spin_lock_bh(&link->slot_lock);
	held = link->state != SMCR_LINK_DOWN;
	if (held)
		link->slots_held = true;
	spin_unlock_bh(&link->slot_lock);
	if (!held)
		return slot;
	wait_event_timeout(link->slot_wq, smcr_link_quiet(link),
			   SMCR_QUIET_WAIT);
	spin_lock_bh(&link->slot_lock);
	i = find_first_bit(link->slot_free, link->nslots);
	if (link->state != SMCR_LINK_DOWN && i < link->nslots) {
		__clear_bit(i, link->slot_free);
		slot = &link->slots[i];
	}
	spin_unlock_bh(&link->slot_lock);
	if (IS_ERR(slot)) {
		smcr_slots_release(link);
		if (READ_ONCE(link->state) != SMCR_LINK_DOWN)
			slot = smcr_slot_get(link, true);
	}
	return slot;
}

/*
 * Post @wr as a signaled work request of @link, completing on reg_cqe,
 * and wait for it up to SMCR_REG_WAIT; with @alone, nothing else is in
 * the send queue meanwhile (smcr_slot_get_alone()).  A failure takes
 * the link down.
 */
static int smcr_link_post_wait(struct smcr_link *link, struct ib_send_wr *wr,
			       bool alone)
{
	const struct ib_send_wr *bad;
	struct smcr_slot *slot;
	long left;
	int rc;

	mutex_lock(&link->reg_lock);
	/* a slot is the ticket for the send queue */
	slot = alone ? smcr_slot_get_alone(link) : smcr_slot_get(link, true);
	if (IS_ERR(slot)) {
		mutex_unlock(&link->reg_lock);
		return PTR_ERR(slot);
	}
	reinit_completion(&link->reg_done);
	link->reg_status = -ETIMEDOUT;
	wr->wr_cqe = &link->reg_cqe;
	wr->send_flags |= IB_SEND_SIGNALED;
	rc = ib_post_send(link->qp, wr, &bad);
	if (!rc) {
		left = wait_for_completion_timeout(&link->reg_done,
						   SMCR_REG_WAIT);
		rc = left ? link->reg_status : -ETIMEDOUT;
	}
	smcr_slot_put(slot);
	if (alone)
		smcr_slots_release(link);
	mutex_unlock(&link->reg_lock);
	if (rc)
		smcr_link_down(link, "memory registration: %pe", ERR_PTR(rc));
	return rc;
}

/*
 * Make @buf usable for the peer's RDMA writes on @link: a fast
 * registration work request, waited for up to SMCR_REG_WAIT.
 */
int smcr_link_reg_buf(struct smcr_link *link, struct smcr_buf *buf)
{
	struct ib_reg_wr wr = {};

	wr.wr.opcode = IB_WR_REG_MR;
	wr.mr = buf->map[link->idx].mr;
	wr.key = wr.mr->rkey;
	/* a send buffer is only gathered from */
	wr.access = IB_ACCESS_LOCAL_WRITE |
		    (buf->rmb ? IB_ACCESS_REMOTE_WRITE : 0);
	return smcr_link_post_wait(link, &wr.wr, link->dev->reg_alone);
}

/*
 * Tests: write 8 bytes of 0x5a, inline, to @rkey at @addr of the peer,
 * as a hostile peer may with any key it knows.  0 when the peer's
 * device took them, -EACCES when it refused the key.  Caller holds the
 * group's llc_flow, so the QP stays.
 */
int smcr_link_test_write(struct smcr_link *link, u32 rkey, u64 addr)
{
	u8 data[8] __aligned(8);
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;

	lockdep_assert_held(&link->lgr->llc_flow);
	if (!link->inline_cdc)
		return -EOPNOTSUPP;
	memset(data, 0x5a, sizeof(data));
	sge.addr = (uintptr_t)data;
	sge.length = sizeof(data);
	sge.lkey = 0;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_INLINE;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = addr;
	wr.rkey = rkey;
	return smcr_link_post_wait(link, &wr.wr, false);
}

/*
 * A message arrived on @link (softirq): CDC or LLC, by its first byte.
 * @buf holds its first SMCR_RX_LEN bytes, @tail (if any) the rest of
 * a large one: both are the receive buffer's own, no other message
 * lands there until we return.
 */
void smcr_link_rx(struct smcr_link *link, const u8 *buf, const u8 *tail,
		  u32 len)
{
	struct smc_llc_msg m;
	u8 *whole = NULL;

	if (!len || READ_ONCE(link->orphan))
		return;
	WRITE_ONCE(link->last_rx, jiffies);
	if (buf[0] == SMC_CDC_MSG_TYPE) {
		smcr_lgr_rx_cdc(link->lgr, buf, min_t(u32, len, SMCR_RX_LEN));
		return;
	}
	if (len > SMCR_RX_LEN) {
		whole = tail ? kmalloc(len, GFP_ATOMIC) : NULL;
		if (!whole)
			return;
		memcpy(whole, buf, SMCR_RX_LEN);
		memcpy(whole + SMCR_RX_LEN, tail, len - SMCR_RX_LEN);
		buf = whole;
	}
	if (!smc_llc_parse(buf, len, &m) &&
	    !smcr_llc_deliver(link, &m, buf, len))
		smcr_llc_rx(link, &m, buf, len);
	kfree(whole);
}

/*
 * Nothing came over the link for the group's testlink_time: the peer
 * must answer a TEST LINK within SMCR_LLC_WAIT, or the link counts as
 * failed (a peer that vanished without a word is found this way).
 */
static void smcr_link_keepalive(struct work_struct *work)
{
	struct smcr_link *link = container_of(to_delayed_work(work),
					      struct smcr_link, keepalive);
	unsigned long idle = jiffies - READ_ONCE(link->last_rx);
	unsigned long every = link->lgr->testlink_time;
	struct smc_llc_msg m = {};
	int rc;

	if (READ_ONCE(link->state) != SMCR_LINK_ACTIVE)
		return;
	if (idle < every) {
		schedule_delayed_work(&link->keepalive, every - idle);
		return;
	}
	/* an LLC procedure runs: its own waits find a dead link */
	if (!mutex_trylock(&link->lgr->llc_flow)) {
		schedule_delayed_work(&link->keepalive, HZ);
		return;
	}
	m.hdr.type = SMC_LLC_TEST_LINK;
	m.hdr.version = link->lgr->llc_version;
	smcr_llc_arm(link, SMC_LLC_TEST_LINK, true);
	rc = smcr_llc_send(link, &m);
	if (!rc)
		rc = smcr_llc_wait(link, SMCR_LLC_WAIT, &m);
	mutex_unlock(&link->lgr->llc_flow);
	if (rc) {
		if (rc != -ENOLINK)
			smcr_link_down(link, "TEST LINK: %pe", ERR_PTR(rc));
		return;
	}
	WRITE_ONCE(link->testlinks, link->testlinks + 1);
	schedule_delayed_work(&link->keepalive, every);
}

/*
 * The link is confirmed: it carries connections, and is watched.
 * -ENOLINK when it went down meanwhile (it stays down).
 */
int smcr_link_activate(struct smcr_link *link)
{
	bool up;

	WRITE_ONCE(link->last_rx, jiffies);
	spin_lock_bh(&link->slot_lock);
	up = link->state == SMCR_LINK_ACTIVATING;
	if (up)
		link->state = SMCR_LINK_ACTIVE;
	spin_unlock_bh(&link->slot_lock);
	if (!up)
		return -ENOLINK;
	/* smcr_testlink_time 0: the peer is not watched */
	if (link->lgr->testlink_time > 0)
		schedule_delayed_work(&link->keepalive,
				      link->lgr->testlink_time);
	return 0;
}

/* No new slots, waiters give up; true for the first caller */
bool smcr_link_set_down(struct smcr_link *link)
{
	bool first;

	spin_lock_bh(&link->slot_lock);
	first = link->state != SMCR_LINK_DOWN;
	link->state = SMCR_LINK_DOWN;
	spin_unlock_bh(&link->slot_lock);
	if (!first)
		return false;
	wake_up_all(&link->slot_wq);
	spin_lock_bh(&link->llc_lock);
	if (link->llc_want)
		complete(&link->llc_done);
	spin_unlock_bh(&link->llc_lock);
	return true;
}

/*
 * The link failed (completion error, post failure, timeout, port or
 * device gone): it takes no more work, and its link group moves its
 * connections to another link or ends.  The first failure is logged,
 * ratelimited, with its cause in @fmt: a device's words for a
 * completion status or an event, or an errno.  Any context; idempotent.
 */
void smcr_link_down(struct smcr_link *link, const char *fmt, ...)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	struct va_format vaf;
	va_list args;

	if (!smcr_link_set_down(link))
		return;
	if (__ratelimit(&rs)) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_warn("%s port %u: link %u (QP %u) of group %x down: %pV\n",
			dev_name(&link->dev->ibdev->dev), link->port, link->id,
			link->qp_num, link->lgr->id, &vaf);
		va_end(args);
	}
	smcr_lgr_link_down(link->lgr);
}

/*
 * Stop the link: the QP goes to the error state, every slot comes back
 * (their work requests flushed), and a marker through the send queue
 * proves every completion of the QP handled.  Process context; the
 * link is down already or goes down now.  False when the device did
 * not flush within its time: then the QP must stay, and the link is an
 * orphan whose completions are dropped from now on (the group may go
 * before them).  Such a stop is not tried again: a second marker could
 * be taken for the first one's late completion.
 */
bool smcr_link_stop(struct smcr_link *link)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_rdma_wr wr = {};
	const struct ib_send_wr *bad;
	bool drained = false;

	if (!link->qp)
		return true;
	if (link->drained_ok)
		return true;
	if (link->orphan)
		return false;
	smcr_link_set_down(link);
	/* a TEST LINK waiting for its answer is woken by the above */
	cancel_delayed_work_sync(&link->keepalive);
	if (!ib_modify_qp(link->qp, &attr, IB_QP_STATE))
		smcr_link_wait_last_wqe(link);
	if (wait_event_timeout(link->slot_wq, smcr_link_slots_back(link),
			       SMCR_DRAIN_WAIT)) {
		/* a write of nothing, flushed: providers read it as such */
		wr.wr.wr_cqe = &link->drain_cqe;
		wr.wr.opcode = IB_WR_RDMA_WRITE;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		if (!ib_post_send(link->qp, &wr.wr, &bad))
			drained = wait_for_completion_timeout(&link->drained,
							      SMCR_DRAIN_WAIT);
	}
	if (!drained) {
		pr_err("%s: QP %u did not flush, left in place\n",
		       dev_name(&link->dev->ibdev->dev), link->qp_num);
		WRITE_ONCE(link->orphan, true);
		return false;
	}
	link->drained_ok = true;
	return true;
}

/*
 * Free the hardware resources of a stopped link: QP, CQ and slots.  A
 * QP that did not flush is left alone rather than freed under a
 * completion.
 */
void smcr_link_release(struct smcr_link *link)
{
	if (!link->qp || !link->drained_ok)
		return;
	ib_destroy_qp(link->qp);
	link->qp = NULL;
	/* the SRQ keeps the CQ entries of receives posted for us */
	link->cqes -= smcr_dev_srq_leave(link->dev, link->pd, link->srq,
					 link->rx_bufs);
	link->srq = NULL;
	ib_cq_pool_put(link->cq, link->cqes);
	link->cq = NULL;
	smcr_dev_unbind(link->dev, link->pd, link->vec,
			READ_ONCE(link->completions));
	link->pd = NULL;
	smcr_link_slots_free(link);
}

/* Wait up to @timeout for the messages posted on @link to complete */
void smcr_link_quiesce(struct smcr_link *link, unsigned long timeout)
{
	wait_event_timeout(link->slot_wq, smcr_link_slots_back(link),
			   timeout);
}

/* Stop and release: the link's hardware resources go */
void smcr_link_destroy(struct smcr_link *link)
{
	smcr_link_stop(link);
	smcr_link_release(link);
}

/* The link group is freed: its link with it (smcr_lgr_free()) */
void smcr_link_free(struct smcr_link *link)
{
	if (link->orphan)
		return;	/* leaked on purpose, see smcr_link_stop() */
	smcr_link_destroy(link);
	kfree(link->llc_raw);
	smcr_dev_put(link->dev);
	kfree(link);
}
