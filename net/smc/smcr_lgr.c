// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-R link groups.
 *
 * A link group stands for the connections with one peer in one role.
 * It has one link for now (we announce at most one link, so peers do
 * not try to add a second) and a pool of buffers registered on it.
 * The server reuses a group for a client whose RoCE GID it knows; the
 * client follows the server's choice, found by the server's QP.
 *
 * Life: a reference for being usable (dropped when the group ends) and
 * one for every connection and every pending link-down work.  Ending a
 * group (peer's DELETE LINK, link failure, device removal, lingering
 * without connections, module unload) aborts its connections, tells
 * the peer while the link works, and frees the hardware resources at
 * once; memory goes with the last reference.
 *
 * Lock order: smcr_lgrs_lock (mutex) -> smcr_lgr.buf_lock (mutex).
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/debugfs.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "smc.h"
#include "smcr_dev.h"
#include "smcr_link.h"

#define SMCR_LGR_LINGER_SERV	(600 * HZ)
#define SMCR_LGR_LINGER_CLNT	(610 * HZ)
#define SMCR_LGR_ID_STEP	256	/* as Linux numbers link groups */

static LIST_HEAD(smcr_lgrs);
static DEFINE_MUTEX(smcr_lgrs_lock);	/* smcr_lgrs, conns of each lgr */
static u32 smcr_lgr_next_id;
/* link-group ends and linger timers; drained at module unload */
static struct workqueue_struct *smcr_lgr_wq;
static struct dentry *smcr_lgr_debugfs;

static void smcr_buf_release_hw(struct smcr_lgr *lgr, struct smcr_buf *buf)
{
	struct ib_device *ibdev = lgr->link->dev->ibdev;

	if (buf->mr) {
		ib_dereg_mr(buf->mr);
		buf->mr = NULL;
	}
	if (buf->dma) {
		ib_dma_unmap_single(ibdev, buf->dma, buf->len,
				    DMA_BIDIRECTIONAL);
		buf->dma = 0;
	}
}

static void smcr_buf_free(struct smcr_lgr *lgr, struct smcr_buf *buf)
{
	smcr_buf_release_hw(lgr, buf);
	free_pages((unsigned long)buf->cpu, get_order(buf->len));
	kfree(buf);
}

static void smcr_lgr_free(struct smcr_lgr *lgr)
{
	struct smcr_buf *buf, *tmp;

	list_for_each_entry_safe(buf, tmp, &lgr->bufs, node)
		smcr_buf_free(lgr, buf);
	smcr_link_free(lgr->link);
	xa_destroy(&lgr->conns_by_token);
	kfree(lgr);
}

void smcr_lgr_put(struct smcr_lgr *lgr)
{
	if (refcount_dec_and_test(&lgr->refs))
		smcr_lgr_free(lgr);
}

static unsigned long smcr_lgr_linger(const struct smcr_lgr *lgr)
{
	return lgr->role == SMCR_LGR_SERVER ? SMCR_LGR_LINGER_SERV :
					      SMCR_LGR_LINGER_CLNT;
}

/* Every connection of @lgr learns that the link group is gone */
static void smcr_lgr_abort_conns(struct smcr_lgr *lgr)
{
	struct smc_cdc_view v = {};
	struct smc_sock *smc;
	unsigned long token;

	rcu_read_lock();
	xa_for_each(&lgr->conns_by_token, token, smc) {
		/* as if the peer had aborted: readers and writers wake */
		smc_rx_write_lock(&smc->conn);
		v.prod = smc->conn.peer_prod;
		v.cons = smc->conn.peer_cons;
		v.prod_flags = smc->conn.peer_prod_flags;
		smc_rx_write_unlock(&smc->conn);
		v.conn_state_flags = SMC_CDC_CS_ABORT;
		smc_conn_rx_cdc(smc, &v);
		smcr_conn_peer_done(smc);
	}
	rcu_read_unlock();
}

/*
 * The second half of ending @lgr, marked gone already: the connections
 * aborted, the peer told with a DELETE LINK when @reason is not 0 and
 * the link works, the QP and the buffers' registrations freed.
 * Process context.
 */
static void smcr_lgr_end_hw(struct smcr_lgr *lgr, u32 reason)
{
	struct smcr_link *link = lgr->link;
	struct smc_llc_msg m = {};
	struct smcr_buf *buf;

	smcr_lgr_abort_conns(lgr);
	if (reason && READ_ONCE(link->state) == SMCR_LINK_ACTIVE) {
		m.hdr.type = SMC_LLC_DELETE_LINK;
		m.hdr.version = lgr->llc_version;
		m.hdr.flags = SMC_LLC_FLAG_DEL_LINK_ALL |
			      SMC_LLC_FLAG_DEL_LINK_ORDERLY;
		m.delete_link.reason = reason;
		/* sent before the QP stops: wait for its completion */
		if (!smcr_llc_send(link, &m))
			smcr_link_quiesce(link, SMCR_LLC_WAIT);
	}
	smcr_link_destroy(link);
	mutex_lock(&lgr->buf_lock);
	lgr->hw_gone = true;
	list_for_each_entry(buf, &lgr->bufs, node)
		smcr_buf_release_hw(lgr, buf);
	mutex_unlock(&lgr->buf_lock);
	smcr_lgr_put(lgr);	/* the group's own reference */
}

/* End @lgr: no new connections, then smcr_lgr_end_hw().  Idempotent */
static void smcr_lgr_end(struct smcr_lgr *lgr, u32 reason)
{
	bool was_gone;

	mutex_lock(&smcr_lgrs_lock);
	was_gone = lgr->gone;
	lgr->gone = true;
	if (!list_empty(&lgr->list))
		list_del_init(&lgr->list);
	/* a pending linger timer holds a reference; the group never
	 * outlives it (not the sync cancel: the timer itself ends groups)
	 */
	if (cancel_delayed_work(&lgr->linger_work))
		smcr_lgr_put(lgr);
	mutex_unlock(&smcr_lgrs_lock);
	if (!was_gone)
		smcr_lgr_end_hw(lgr, reason);
}

static void smcr_lgr_term_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(work, struct smcr_lgr, term_work);

	smcr_lgr_end(lgr, lgr->term_reason);
	smcr_lgr_put(lgr);	/* the work's */
}

/* End @lgr from any context */
static void smcr_lgr_terminate(struct smcr_lgr *lgr, u32 reason)
{
	refcount_inc(&lgr->refs);
	lgr->term_reason = reason;
	if (!queue_work(smcr_lgr_wq, &lgr->term_work))
		smcr_lgr_put(lgr);
}

/* The link failed: without a second link, the group ends */
void smcr_lgr_link_down(struct smcr_lgr *lgr)
{
	smcr_lgr_terminate(lgr, 0);
}

static void smcr_lgr_linger_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(to_delayed_work(work),
					    struct smcr_lgr, linger_work);
	unsigned long end;

	mutex_lock(&smcr_lgrs_lock);
	/* in use again: the next connection to leave re-arms the timer */
	if (lgr->conns || lgr->gone) {
		mutex_unlock(&smcr_lgrs_lock);
		smcr_lgr_put(lgr);	/* the timer's */
		return;
	}
	end = lgr->idle_since + smcr_lgr_linger(lgr);
	if (time_before(jiffies, end)) {
		/* the timer keeps its reference */
		queue_delayed_work(smcr_lgr_wq, &lgr->linger_work,
				   end - jiffies);
		mutex_unlock(&smcr_lgrs_lock);
		return;
	}
	/* gone under the lock that adds connections: none joins now */
	lgr->gone = true;
	list_del_init(&lgr->list);
	mutex_unlock(&smcr_lgrs_lock);
	smcr_lgr_end_hw(lgr, SMC_LLC_DEL_PROG_INIT_TERM);
	smcr_lgr_put(lgr);	/* the timer's */
}

/*
 * A new link group in @role with its link on the device and port of
 * @gi.  The caller holds the returned reference; the group is not
 * findable until smcr_lgr_publish().
 */
struct smcr_lgr *smcr_lgr_create(u8 role, const struct smcr_gid_info *gi)
{
	struct smcr_link *link;
	struct smcr_lgr *lgr;

	lgr = kzalloc(sizeof(*lgr), GFP_KERNEL);
	if (!lgr)
		return ERR_PTR(-ENOMEM);
	lgr->role = role;
	INIT_LIST_HEAD(&lgr->list);
	INIT_LIST_HEAD(&lgr->bufs);
	mutex_init(&lgr->buf_lock);
	xa_init_flags(&lgr->conns_by_token, XA_FLAGS_ALLOC1);
	INIT_DELAYED_WORK(&lgr->linger_work, smcr_lgr_linger_work);
	INIT_WORK(&lgr->term_work, smcr_lgr_term_work);
	/* one for the group, one for the caller */
	refcount_set(&lgr->refs, 2);
	lgr->llc_version = SMC_V2;
	link = smcr_link_create(lgr, gi->dev, gi->port, gi->sgid_index,
				gi->gid, gi->mac);
	if (IS_ERR(link)) {
		xa_destroy(&lgr->conns_by_token);
		kfree(lgr);
		return ERR_CAST(link);
	}
	link->port_mtu = gi->mtu;
	lgr->link = link;
	link->id = 1;
	mutex_lock(&smcr_lgrs_lock);
	smcr_lgr_next_id += SMCR_LGR_ID_STEP;
	lgr->id = smcr_lgr_next_id;
	list_add(&lgr->list, &smcr_lgrs);
	mutex_unlock(&smcr_lgrs_lock);
	return lgr;
}

/* The first link of @lgr is up: later connections may find it */
void smcr_lgr_publish(struct smcr_lgr *lgr)
{
	mutex_lock(&smcr_lgrs_lock);
	lgr->ready = true;
	mutex_unlock(&smcr_lgrs_lock);
}

/* A new group that never carried a connection goes away */
void smcr_lgr_discard(struct smcr_lgr *lgr)
{
	smcr_lgr_end(lgr, 0);
}

/*
 * Server: a usable group for a client whose RoCE GID is @peer_gid,
 * on the device of @gi, with room for a connection.  Referenced.
 */
struct smcr_lgr *smcr_lgr_find_server(const u8 *peer_gid,
				      const struct smcr_gid_info *gi)
{
	struct smcr_lgr *lgr, *found = NULL;
	struct smcr_link *link;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		link = lgr->link;
		if (lgr->role != SMCR_LGR_SERVER || !lgr->ready ||
		    READ_ONCE(link->state) != SMCR_LINK_ACTIVE ||
		    link->dev != gi->dev || link->port != gi->port ||
		    memcmp(link->peer_gid, peer_gid, SMC_CLC_GID_LEN) ||
		    lgr->conns >= lgr->max_conns)
			continue;
		refcount_inc(&lgr->refs);
		found = lgr;
		break;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return found;
}

/* Client: our group whose link reaches the server's QP @qpn at @gid */
struct smcr_lgr *smcr_lgr_find_client(const u8 *gid, u32 qpn)
{
	struct smcr_lgr *lgr, *found = NULL;
	struct smcr_link *link;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		link = lgr->link;
		if (lgr->role != SMCR_LGR_CLIENT || !lgr->ready ||
		    READ_ONCE(link->state) != SMCR_LINK_ACTIVE ||
		    link->peer_qpn != qpn ||
		    memcmp(link->peer_gid, gid, SMC_CLC_GID_LEN))
			continue;
		refcount_inc(&lgr->refs);
		found = lgr;
		break;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return found;
}

/*
 * Give @smc's connection an alert token in @lgr, whose reference the
 * connection takes over.  -EBUSY when the group is ending or full.
 */
int smcr_lgr_add_conn(struct smcr_lgr *lgr, struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	u32 token;
	int rc;

	mutex_lock(&smcr_lgrs_lock);
	if (lgr->gone || lgr->conns >= lgr->max_conns) {
		mutex_unlock(&smcr_lgrs_lock);
		return -EBUSY;
	}
	/*
	 * Cyclic: a CDC the peer sent to an ended connection (a consumer
	 * update after its done-writing, say) finds no one, instead of
	 * the next connection that took the token.
	 */
	rc = xa_alloc_cyclic(&lgr->conns_by_token, &token, smc,
			     XA_LIMIT(1, INT_MAX), &lgr->next_token,
			     GFP_KERNEL);
	if (rc >= 0) {
		rc = 0;
		lgr->conns++;
		c->alert_token = token;
		c->lgr_id = lgr->id;
		c->rlgr = lgr;
		c->link = lgr->link;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return rc;
}

/*
 * The connection leaves @smc's group: its token is freed, and the last
 * one lets the group linger.  The connection's reference stays with
 * it (smcr_conn_teardown() drops it).
 */
void smcr_lgr_del_conn(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->rlgr;

	if (!lgr)
		return;
	mutex_lock(&smcr_lgrs_lock);
	xa_erase(&lgr->conns_by_token, c->alert_token);
	if (!--lgr->conns && !lgr->gone) {
		lgr->idle_since = jiffies;
		if (!delayed_work_pending(&lgr->linger_work)) {
			refcount_inc(&lgr->refs);
			queue_delayed_work(smcr_lgr_wq, &lgr->linger_work,
					   smcr_lgr_linger(lgr));
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
}

/* A CDC message arrived on a link of @lgr (softirq) */
void smcr_lgr_rx_cdc(struct smcr_lgr *lgr, const u8 *buf, u32 len)
{
	struct smcr_cdc_msg m;
	struct smc_cdc_view v;
	struct smc_sock *smc;
	struct smc_conn *c;

	if (smcr_cdc_parse(buf, len, &m))
		return;
	rcu_read_lock();
	smc = xa_load(&lgr->conns_by_token, m.token);
	if (!smc)
		goto out;
	c = &smc->conn;
	/* a link switch would need this; with one link, nothing is lost */
	if (m.prod_flags & SMC_CDC_PF_FAILOVER)
		goto out;
	/* CDCs of a connection arrive on one CQ, one at a time */
	if (c->cdc_rx_seq_valid && smc_cdc_seq_older(c->cdc_rx_seq, m.seqno))
		goto out;
	c->cdc_rx_seq = m.seqno;
	c->cdc_rx_seq_valid = true;
	v.prod = m.prod;
	v.cons = m.cons;
	v.prod_flags = m.prod_flags;
	v.conn_state_flags = m.conn_state_flags;
	smc_conn_rx_cdc(smc, &v);
	if (v.conn_state_flags)
		smcr_conn_peer_done(smc);
out:
	rcu_read_unlock();
}

/* Answer @m, a request, with @flags added (softirq: no waiting) */
static void smcr_llc_answer(struct smcr_link *link, struct smc_llc_msg *m,
			    u8 flags)
{
	struct smcr_slot *slot;

	m->hdr.flags |= SMC_LLC_FLAG_RESP | flags;
	slot = smcr_slot_get(link, false);
	if (IS_ERR(slot))
		return;
	if (smc_llc_build(slot->buf, SMC_LLC_MSG_LEN, m, NULL) < 0) {
		smcr_slot_put(slot);
		return;
	}
	smcr_slot_post(slot, NULL, 0);
}

/*
 * An LLC message no flow waited for (softirq).  Requests the one-link
 * group can serve are answered at once; a DELETE LINK ends the group.
 */
void smcr_lgr_rx_llc(struct smcr_link *link, const struct smc_llc_msg *in)
{
	struct smcr_lgr *lgr = link->lgr;
	struct smc_llc_msg m = *in;

	if (m.hdr.flags & SMC_LLC_FLAG_RESP)
		return;
	switch (m.hdr.type) {
	case SMC_LLC_TEST_LINK:
		smcr_llc_answer(link, &m, 0);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		/* one link: the rkey came with the CLC message already */
		smcr_llc_answer(link, &m, 0);
		break;
	case SMC_LLC_DELETE_RKEY:
		/* v2 groups answer with a count, nothing is unknown here */
		m.delete_rkey.err_mask = 0;
		if (m.hdr.version == SMC_V2)
			memset(m.delete_rkey.rkey, 0,
			       sizeof(m.delete_rkey.rkey));
		smcr_llc_answer(link, &m, 0);
		break;
	case SMC_LLC_ADD_LINK:
		/* we offer one link: a second one is refused */
		m.add_link.v2_ext = false;
		m.hdr.rej_rsn = SMC_LLC_REJ_NO_ALT_PATH;
		smcr_llc_answer(link, &m, SMC_LLC_FLAG_ADD_LINK_REJ);
		break;
	case SMC_LLC_REQ_ADD_LINK:
		memset(&m.req_add_link, 0, sizeof(m.req_add_link));
		smcr_llc_answer(link, &m, 0);
		break;
	case SMC_LLC_DELETE_LINK:
		if (lgr->role == SMCR_LGR_CLIENT &&
		    !(m.hdr.flags & SMC_LLC_FLAG_DEL_LINK_ALL)) {
			m.delete_link.reason = m.delete_link.link_id == link->id ?
					       0 : SMC_LLC_DEL_NOLNK;
			smcr_llc_answer(link, &m, 0);
		}
		/* the only link goes: the group with it, quietly */
		smcr_lgr_terminate(lgr, 0);
		break;
	default:
		break;
	}
}

/* Port @port of @dev went down: the links on it fail */
void smcr_lgrs_port_down(struct smcr_dev *dev, u8 port)
{
	struct smcr_lgr *lgr;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list)
		if (lgr->link->dev == dev && lgr->link->port == port)
			smcr_link_down(lgr->link);
	mutex_unlock(&smcr_lgrs_lock);
}

/* The device of @dev goes away: its groups end now */
void smcr_lgrs_dev_gone(struct smcr_dev *dev)
{
	struct smcr_lgr *lgr;

	for (;;) {
		mutex_lock(&smcr_lgrs_lock);
		lgr = NULL;
		list_for_each_entry(lgr, &smcr_lgrs, list)
			if (lgr->link->dev == dev)
				break;
		if (list_entry_is_head(lgr, &smcr_lgrs, list))
			lgr = NULL;
		if (lgr)
			refcount_inc(&lgr->refs);
		mutex_unlock(&smcr_lgrs_lock);
		if (!lgr)
			break;
		smcr_lgr_end(lgr, SMC_LLC_DEL_OP_INIT_TERM);
		smcr_lgr_put(lgr);
	}
}

static const char *const smcr_link_states[] = {
	[SMCR_LINK_ACTIVATING]	= "activating",
	[SMCR_LINK_ACTIVE]	= "active",
	[SMCR_LINK_DOWN]	= "down",
};

/* One line a link group: role, connections, its link and where it runs */
static int smcr_lgrs_show(struct seq_file *m, void *v)
{
	struct smcr_link *link;
	struct smcr_lgr *lgr;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		link = lgr->link;
		seq_printf(m, "id %u role %s conns %u link %u state %s dev %s port %u qp %u vector %u peer %pI6c\n",
			   lgr->id, lgr->role == SMCR_LGR_SERVER ? "server" :
			   "client", lgr->conns, link->id,
			   smcr_link_states[READ_ONCE(link->state)],
			   dev_name(&link->dev->ibdev->dev), link->port,
			   link->qp_num, link->vec,
			   link->peer_gid);
	}
	mutex_unlock(&smcr_lgrs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smcr_lgrs);

int smcr_lgr_init(struct dentry *debugfs)
{
	smcr_lgr_wq = alloc_workqueue("smcr_lgr_wq", 0, 0);
	if (!smcr_lgr_wq)
		return -ENOMEM;
	smcr_lgr_debugfs = debugfs_create_file("smcr-linkgroups", 0444,
					       debugfs, NULL,
					       &smcr_lgrs_fops);
	return 0;
}

/* Module unload: no connection is left, the groups end now */
void smcr_lgr_exit(void)
{
	struct smcr_lgr *lgr;

	debugfs_remove(smcr_lgr_debugfs);
	smcr_lgr_debugfs = NULL;
	for (;;) {
		mutex_lock(&smcr_lgrs_lock);
		lgr = list_first_entry_or_null(&smcr_lgrs, struct smcr_lgr,
					       list);
		if (lgr)
			refcount_inc(&lgr->refs);
		mutex_unlock(&smcr_lgrs_lock);
		if (!lgr)
			break;
		/* a pending timer holds a reference of its own */
		if (cancel_delayed_work_sync(&lgr->linger_work))
			smcr_lgr_put(lgr);
		smcr_lgr_end(lgr, SMC_LLC_DEL_PROG_INIT_TERM);
		smcr_lgr_put(lgr);
	}
	/* pending ends hold references and run to completion */
	destroy_workqueue(smcr_lgr_wq);
}

/* ---- buffers ---- */

static struct smcr_buf *smcr_buf_new(struct smcr_lgr *lgr, u8 comp,
				     bool rmb)
{
	struct smcr_link *link = lgr->link;
	struct ib_device *ibdev = link->dev->ibdev;
	u32 len = smc_buf_uncompress(comp);
	struct scatterlist sg;
	struct smcr_buf *buf;
	int n;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->len = len;
	buf->comp = comp;
	buf->rmb = rmb;
	buf->cpu = (void *)__get_free_pages(GFP_KERNEL | __GFP_NOWARN |
					    __GFP_NORETRY | __GFP_ZERO,
					    get_order(len));
	if (!buf->cpu)
		goto out_free;
	buf->dma = ib_dma_map_single(ibdev, buf->cpu, len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, buf->dma)) {
		buf->dma = 0;
		goto out_pages;
	}
	if (!rmb)
		return buf;
	buf->mr = ib_alloc_mr(link->dev->pd, IB_MR_TYPE_MEM_REG,
			      DIV_ROUND_UP(len, PAGE_SIZE));
	if (IS_ERR(buf->mr)) {
		buf->mr = NULL;
		goto out_unmap;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = buf->dma;
	sg_dma_len(&sg) = len;
	n = ib_map_mr_sg(buf->mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1)
		goto out_unmap;
	/* what the peer uses, kept for when the MR is gone */
	buf->rkey = buf->mr->rkey;
	buf->iova = buf->mr->iova;
	return buf;

out_unmap:
	smcr_buf_release_hw(lgr, buf);
out_pages:
	free_pages((unsigned long)buf->cpu, get_order(len));
out_free:
	kfree(buf);
	return NULL;
}

/*
 * A buffer of @lgr for a new connection, of at most 16 KiB << @comp
 * bytes (smaller ones when memory is short): a free one of the pool,
 * else a new one.  A new RMB is registered on the link when it is up;
 * the first link registers its RMBs when it comes up.
 */
struct smcr_buf *smcr_buf_get(struct smcr_lgr *lgr, u8 comp, bool rmb)
{
	struct smcr_buf *buf;
	int c;

	mutex_lock(&lgr->buf_lock);
	/* the group ended: its device may be gone */
	if (lgr->hw_gone) {
		mutex_unlock(&lgr->buf_lock);
		return NULL;
	}
	list_for_each_entry(buf, &lgr->bufs, node) {
		if (!buf->used && buf->rmb == rmb && buf->comp == comp &&
		    (!rmb || buf->registered)) {
			buf->used = true;
			mutex_unlock(&lgr->buf_lock);
			memset(buf->cpu, 0, buf->len);
			return buf;
		}
	}
	for (c = comp; c >= 0; c--) {
		buf = smcr_buf_new(lgr, c, rmb);
		if (buf)
			break;
	}
	if (buf) {
		buf->used = true;
		list_add(&buf->node, &lgr->bufs);
	}
	mutex_unlock(&lgr->buf_lock);
	if (buf && rmb && !buf->registered &&
	    READ_ONCE(lgr->link->state) == SMCR_LINK_ACTIVE) {
		if (smcr_link_reg_buf(lgr->link, buf)) {
			smcr_buf_put(lgr, buf);
			return NULL;
		}
		buf->registered = true;
	}
	return buf;
}

void smcr_buf_put(struct smcr_lgr *lgr, struct smcr_buf *buf)
{
	if (!buf)
		return;
	mutex_lock(&lgr->buf_lock);
	buf->used = false;
	mutex_unlock(&lgr->buf_lock);
}

/* The first link is up: register the RMBs made meanwhile */
int smcr_lgr_reg_bufs(struct smcr_lgr *lgr)
{
	struct smcr_buf *buf;
	int rc = 0;

	mutex_lock(&lgr->buf_lock);
	list_for_each_entry(buf, &lgr->bufs, node) {
		if (!buf->rmb || buf->registered)
			continue;
		rc = smcr_link_reg_buf(lgr->link, buf);
		if (rc)
			break;
		buf->registered = true;
	}
	mutex_unlock(&lgr->buf_lock);
	return rc;
}
