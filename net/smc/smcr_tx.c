// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the SMC-R send path.
 *
 * A connection's messages: the data between the last published
 * producer cursor and the new one goes as RDMA writes from our send
 * buffer to the same offsets of the peer's RMB, chained with the CDC
 * message that announces it.
 *
 * Our send buffer is as large as the peer's RMB, so that the write
 * offsets are the ring offsets and the room in the peer's ring is all
 * that limits a writer: the bytes between the peer's consumer cursor
 * and ours are both in flight and not yet overwritable.  That is also
 * what lets a connection move off a failed link: what the peer may have
 * missed is still there, to be written again over another link.
 */

#include <rdma/ib_verbs.h>

#include "smc_conn.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smcr_dev.h"
#include "smcr.h"

/* The connection left @link for another one, or can go nowhere */
static bool smcr_tx_moved(struct smc_conn *c, struct smcr_link *link)
{
	return (READ_ONCE(c->smcr.link) != link &&
		!READ_ONCE(c->smcr.tx_moving)) || READ_ONCE(c->smcr.tx_dead);
}

/*
 * A slot for the next CDC of the connection: may wait up to
 * SMCR_SLOT_WAIT when the link's send queue is full.  While the
 * connection moves off a failed link, the wait goes on until it is on
 * the other one, up to SMCR_FAILOVER_WAIT.  smc sock lock held: one
 * reservation per connection.
 *
 * Both waits end at a fatal signal (-EINTR), also for the messages
 * that should reach the peer (@killable false: the close flags, the
 * consumer cursor of recvmsg): a peer that completes none of our sends
 * must not hold a dying task in D state.  Nothing claims the message
 * went out then: the flags stay set in tx_conn_flags and the cursors
 * sent are not advanced, so the next CDC of the connection (the
 * failover resend included) carries all of it; a closed connection
 * stays an orphan until the peer is done or its link goes down.
 * Without a fatal signal the waits are what they were.
 */
int smcr_tx_prepare(struct smc_sock *smc, bool killable)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->smcr.rlgr;
	struct smcr_link *link;
	struct smcr_slot *slot;
	bool taken;
	long left;

	smc_owned_by_me(smc);
	if (c->smcr.tx_slot)
		return 0;
	for (;;) {
		if (READ_ONCE(c->smcr.tx_dead))
			return -EPIPE;
		link = READ_ONCE(c->smcr.link);
		if (!READ_ONCE(c->smcr.tx_moving)) {
			slot = smcr_slot_get(link, true);
			if (!IS_ERR(slot)) {
				spin_lock_bh(&c->tx_lock);
				taken = c->smcr.link == link &&
					!c->smcr.tx_moving;
				if (taken)
					c->smcr.tx_slot = slot;
				spin_unlock_bh(&c->tx_lock);
				if (taken)
					return 0;
				smcr_slot_put(slot);	/* moving meanwhile */
				continue;
			}
			if (PTR_ERR(slot) == -EINTR)
				return -EINTR;
		}
		left = wait_event_killable_timeout(lgr->moved_wq,
						   smcr_tx_moved(c, link),
						   SMCR_FAILOVER_WAIT);
		if (left < 0)
			return -EINTR;
		if (!left)
			return -EPIPE;
	}
}

/*
 * Post the data produced since the last message as RDMA writes (two
 * when it wraps around the ring), then the CDC in @slot with our
 * cursors and flags (and @pflags), in one chain.  tx_lock held.
 */
static void __smcr_tx_write(struct smc_sock *smc, struct smcr_slot *slot)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_link *link = c->smcr.link;
	struct ib_device *ibdev = link->dev->ibdev;
	struct ib_rdma_wr wr[2] = {};
	struct smcr_buf_map *mp = NULL;
	struct smcr_cdc_msg m = {};
	struct ib_sge sge[2];
	unsigned int n = 0;
	u32 len, off, chunk;

	lockdep_assert_held(&c->tx_lock);
	len = smc_curs_diff(c->tx_ring, &c->tx_prod_sent, &c->tx_prod);
	off = c->tx_prod_sent.count;
	if (len) {
		mp = &c->smcr.snd_buf->map[link->idx];
		/* vmalloc'ed: gathered through its memory region */
		if (c->smcr.snd_buf->virt)
			smcr_buf_sync_pages(ibdev, mp);
	}
	while (len && n < 2) {
		chunk = min(len, c->tx_ring - off);
		sge[n].length = chunk;
		if (c->smcr.snd_buf->virt) {
			sge[n].addr = mp->iova + off;
			sge[n].lkey = mp->mr->lkey;
		} else {
			sge[n].addr = mp->dma + off;
			sge[n].lkey = link->pd->pd->local_dma_lkey;
			ib_dma_sync_single_for_device(ibdev, sge[n].addr,
						      chunk, DMA_TO_DEVICE);
		}
		wr[n].wr.opcode = IB_WR_RDMA_WRITE;
		wr[n].wr.sg_list = &sge[n];
		wr[n].wr.num_sge = 1;
		wr[n].remote_addr = c->smcr.peer_rmb_addr + off;
		wr[n].rkey = c->smcr.peer_rkey;
		n++;
		len -= chunk;
		off = 0;
	}

	m.seqno = ++c->cdc_tx_seq;
	m.token = c->smcr.peer_alert;
	m.prod = c->tx_prod;
	/* recvmsg moves it under rx_lock, not ours: whole, never torn */
	m.cons = smc_rx_curs(c, &c->rx_cons);
	m.prod_flags = c->tx_prod_flags;
	m.conn_state_flags = c->tx_conn_flags;
	/* test mode: the flags in a CDC the peer must drop as stale */
	if (m.conn_state_flags &&
	    (READ_ONCE(smcr_llc_test) & SMCR_LLC_TEST_STALE))
		m.seqno -= 2;
	smcr_cdc_build(slot->buf, SMCR_SLOT_LEN, &m);
	slot->cdc = true;
	slot->seq = c->cdc_tx_seq;
	slot->token = c->alert_token;
	/* a failed post takes the link down; the connection moves */
	smcr_slot_post_writes(slot, wr, n, c->smcr.snd_buf);
	c->rx_cons_sent = m.cons;
	c->tx_prod_sent = m.prod;
}

/*
 * Send what smc_tx_prepare() reserved a slot for.  tx_lock held.  A
 * connection on the move sends nothing: the move sends it all over the
 * new link, and owes the sender a slot there.
 */
void smcr_tx_write(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_slot *slot;

	lockdep_assert_held(&c->tx_lock);
	slot = c->smcr.tx_slot;
	if (!slot)
		return;
	c->smcr.tx_slot = NULL;
	if (c->smcr.tx_moving || slot->link != c->smcr.link) {
		smcr_slot_put(slot);
		c->smcr.tx_owed = true;
		return;
	}
	__smcr_tx_write(smc, slot);
}

/*
 * First step of a move off the failed link @from: the connection sends
 * no more (a reservation it holds there is given back, and owed), so
 * that @from can be stopped before anything is written again.
 */
void smcr_conn_hold(struct smc_sock *smc, struct smcr_link *from)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_slot *slot = NULL;

	spin_lock_bh(&c->tx_lock);
	if (!c->smcr.torn && c->smcr.link == from) {
		c->smcr.tx_moving = true;
		slot = c->smcr.tx_slot;
		c->smcr.tx_slot = NULL;
		c->smcr.tx_owed |= !!slot;
	}
	spin_unlock_bh(&c->tx_lock);
	if (slot)
		smcr_slot_put(slot);
}

/*
 * Move the connection of @smc, held by smcr_conn_hold(), from @from
 * (stopped: nothing of it lands any more) to @to.  Whatever went over
 * @from after the peer's last consumer cursor we know of is written
 * again: those bytes are still in our send buffer (we never overwrite
 * what the peer has not consumed), at the same offsets as in the
 * peer's RMB.  A validation CDC first (the peer checks it lost nothing
 * it should have), then one with the cursors and flags, which repeats
 * whatever the lost messages said.  If it cannot move (no rkey of the
 * peer's RMB on @to, no slot there), it is aborted, and the peer told
 * if a slot allows; so it is when a slot wait ends at a fatal signal.
 * 0 when moved.  Process context.
 */
int smcr_conn_failover(struct smc_sock *smc, struct smcr_lgr *lgr,
		       struct smcr_link *from, struct smcr_link *to)
{
	struct smcr_slot *slot[3] = {};
	struct smc_conn *c = &smc->conn;
	struct smcr_cdc_msg m = {};
	struct smc_cursor cons;
	bool known = true;
	int i, rc = 0;
	u64 addr = 0;
	u32 rkey = 0;

	for (i = 0; i < ARRAY_SIZE(slot); i++) {
		slot[i] = smcr_slot_get(to, true);
		if (IS_ERR(slot[i])) {
			slot[i] = NULL;
			break;
		}
	}
	cons = smc_rx_curs(c, &c->peer_cons);
	spin_lock_bh(&c->tx_lock);
	if (c->smcr.torn || c->smcr.link != from) {
		spin_unlock_bh(&c->tx_lock);
		goto out;
	}
	if (c->smcr.rtok >= 0)
		known = smcr_rtok_get_link(lgr, c->smcr.rtok, to->idx, &rkey,
					   &addr);
	WRITE_ONCE(c->smcr.link, to);
	if (!known || !slot[2]) {
		/* a CDC with the abort and no data, if we can */
		WRITE_ONCE(c->smcr.tx_dead, true);
		c->tx_conn_flags |= SMC_CDC_CS_ABORT;
		if (smc_ring_set(&c->tx) && slot[0]) {
			c->tx_prod_sent = c->tx_prod;
			__smcr_tx_write(smc, slot[0]);
			slot[0] = NULL;
		}
		rc = -ENOLINK;
	} else {
		if (c->smcr.rtok >= 0) {
			c->smcr.peer_rkey = rkey;
			c->smcr.peer_rmb_addr = addr;
		}
		if (smc_ring_set(&c->tx)) {
			c->tx_prod_sent = cons;
			m.seqno = READ_ONCE(c->cdc_tx_done);
			m.token = c->smcr.peer_alert;
			m.prod_flags = SMC_CDC_PF_FAILOVER;
			smcr_cdc_build(slot[0]->buf, SMCR_SLOT_LEN, &m);
			smcr_slot_post(slot[0]);
			__smcr_tx_write(smc, slot[1]);
			slot[0] = NULL;
			slot[1] = NULL;
		}
		if (c->smcr.tx_owed && !c->smcr.tx_slot) {
			c->smcr.tx_slot = slot[2];
			slot[2] = NULL;
		}
	}
	c->smcr.tx_owed = false;
	c->smcr.tx_moving = false;
	spin_unlock_bh(&c->tx_lock);
	if (rc)
		smcr_conn_lost(smc);
out:
	for (i = 0; i < ARRAY_SIZE(slot); i++)
		if (slot[i])
			smcr_slot_put(slot[i]);
	wake_up_all(&lgr->moved_wq);
	return rc;
}
