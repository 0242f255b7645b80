// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the life of an SMC-R connection after
 * its handshake (smcr_hs.c).
 *
 * Its teardown and release, the orphan a close leaves until the peer is
 * done, its loss when it cannot survive a failover, and sock_diag's
 * view of its link.  The send path and the move to another link are in
 * smcr_tx.c.
 */

#include <linux/smc_diag.h>
#include <net/sock.h>

#include "smc_conn.h"
#include "smc_core.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smc_stats.h"
#include "smcr.h"

/*
 * sock_diag: the link an SMC-R connection uses now; false when it has
 * none.  Our writes reach the peer with the next CDC, from a send
 * buffer the size of the peer's RMB.  Atomic context.  Until the
 * connection is torn down (both under tx_lock) it holds its group, and
 * the group its links.
 */
static bool smcr_conn_diag(struct smc_sock *smc, struct smc_conn_diag *d,
			   bool tokens)
{
	struct smc_diag_lgrinfo *li = &d->lgr;
	struct smc_diag_linkinfo *l = &li->lnk[0];
	struct smc_conn *c = &smc->conn;
	struct smcr_link *link;
	bool ok = false;

	d->peer_len = c->peer_len;

	spin_lock_bh(&c->tx_lock);
	link = c->smcr.link;
	if (c->smcr.rlgr && link && !c->smcr.torn) {
		l->link_id = link->id;
		strscpy((char *)l->ibname, link->ibname, sizeof(l->ibname));
		l->ibport = link->port;
		smc_gid_str((char *)l->gid, link->gid);
		smc_gid_str((char *)l->peer_gid, link->peer_gid);
		li->role = c->smcr.rlgr->role;
		ok = true;
	}
	spin_unlock_bh(&c->tx_lock);
	d->has_lgr = ok;
	return ok;
}

void smcr_conn_teardown(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->smcr.rlgr;
	struct smcr_slot *slot;

	if (!lgr)
		return;
	/* a move of the connection finds it gone and leaves it alone */
	spin_lock_bh(&c->tx_lock);
	c->smcr.torn = true;
	slot = c->smcr.tx_slot;
	c->smcr.tx_slot = NULL;
	spin_unlock_bh(&c->tx_lock);
	if (slot)
		smcr_slot_put(slot);
	/*
	 * Out of the token table first.  A CDC handler that found us just
	 * before may still read the ring: it stays valid, the buffer
	 * belongs to the group's pool until the group is freed (a retired
	 * one waits for such handlers).
	 */
	smcr_lgr_del_conn(smc);
	if (c->smcr.orphan)
		atomic_dec(&lgr->orphans);
	smcr_rtok_put(lgr, c->smcr.rtok);
	c->smcr.rtok = -1;
	smc_ring_clear(&c->tx);
	if (c->smcr.rmb_buf)
		smc_stats_buf_put(smc->stats, SMC_STATS_R, true,
				  c->smcr.rmb_buf->len);
	if (c->smcr.snd_buf)
		smc_stats_buf_put(smc->stats, SMC_STATS_R, false,
				  c->smcr.snd_buf->len);
	/* the peer may still hold rkeys of a kept RMB */
	if (c->smcr.rmb_kept)
		smcr_buf_retire(lgr, c->smcr.rmb_buf);
	else
		smcr_buf_put(lgr, c->smcr.rmb_buf);
	smcr_buf_put(lgr, c->smcr.snd_buf);
	c->smcr.rmb_buf = NULL;
	c->smcr.snd_buf = NULL;
	c->smcr.rlgr = NULL;
	c->smcr.link = NULL;
	smcr_lgr_put(lgr);
}

/*
 * Has the peer stopped writing into our RMB?  rx_lock held.  Only its
 * own word counts, or the end of the group (no QP is left): not a
 * failed link (the peer goes on over the other one), nor an abort of
 * ours it has not heard of.
 */
static bool smcr_peer_stopped(const struct smc_conn *c)
{
	lockdep_assert_held(&c->rx_lock);
	return c->smcr.peer_stopped;
}

void smcr_conn_release_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock,
					    conn.smcr.release_work);

	smcr_conn_teardown(smc);
	sock_put(&smc->sk);
}

/*
 * The application released the socket.  The RMB goes back to the
 * link group's pool only once the peer writes no more into it (its
 * RDMA writes would land in the next connection's data): until the
 * peer says it is done, or the link group ends, the connection stays
 * as an orphan holding the socket.  As TCP's orphans in FIN_WAIT2, for
 * tcp_fin_timeout of the netns at most, and SMCR_ORPHANS_MAX a group:
 * then smcr_conn_reap().  smc sock lock held.
 */
void smcr_conn_release(struct smc_sock *smc)
{
	struct net *net = sock_net(&smc->sk);
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->smcr.rlgr;
	unsigned long end = jiffies;
	bool now;

	smc_owned_by_me(smc);
	/* its set-up failed: torn down already */
	if (!lgr)
		return;
	smc_rx_write_lock(c);
	now = smcr_peer_stopped(c);
	if (!now) {
		sock_hold(&smc->sk);
		c->smcr.orphan = true;
		if (atomic_inc_return(&lgr->orphans) <= SMCR_ORPHANS_MAX)
			end += max(READ_ONCE(net->ipv4.sysctl_tcp_fin_timeout),
				   0);
		c->smcr.orphan_end = end;
		/* the group outlives the timer's arming */
		refcount_inc(&lgr->refs);
	}
	smc_rx_write_unlock(c);
	if (now) {
		smcr_conn_teardown(smc);
		return;
	}
	smcr_lgr_orphan_at(lgr, end);
	smcr_lgr_put(lgr);
}

/*
 * For the orphan work of the group (smcr_lgrs_lock held): is @smc an
 * orphan whose time is up?  Then it is the caller's to reap.  Else, if
 * it is an orphan, *later is set and *next moved to its end if that
 * comes first.
 */
bool smcr_conn_orphan_due(struct smc_sock *smc, unsigned long *next,
			  bool *later)
{
	struct smc_conn *c = &smc->conn;
	bool due = false;

	lockdep_assert_held(&smcr_lgrs_lock);
	smc_rx_write_lock(c);
	if (c->smcr.orphan && !c->smcr.release_queued) {
		if (time_after_eq(jiffies, c->smcr.orphan_end)) {
			c->smcr.release_queued = true;
			due = true;
		} else if (!*later || time_before(c->smcr.orphan_end, *next)) {
			*next = c->smcr.orphan_end;
			*later = true;
		}
	}
	smc_rx_write_unlock(c);
	return due;
}

/*
 * An orphan whose peer never said it was done, for too long, or one
 * too many: the peer is told that the connection is aborted (if a send
 * slot comes), and the RMB is freed only once its memory regions are
 * gone on every link (smcr_buf_retire()): a later write of the peer
 * with its old rkey fails.  Process context; the caller claimed the
 * orphan (smcr_conn_orphan_due()), so nothing else tears it down.
 */
void smcr_conn_reap(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;

	lock_sock(&smc->sk);
	smc_send_conn_flags(smc, SMC_CDC_CS_ABORT);
	WRITE_ONCE(c->smcr.tx_dead, true);
	c->smcr.rmb_kept = true;
	release_sock(&smc->sk);
	smcr_conn_teardown(smc);
	sock_put(&smc->sk);	/* the orphan's */
}

/* The peer's flags changed or the link went down: an orphan may go */
void smcr_conn_peer_done(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	bool queue;

	smc_rx_write_lock(c);
	queue = c->smcr.orphan && !c->smcr.release_queued &&
		smcr_peer_stopped(c);
	if (queue)
		c->smcr.release_queued = true;
	smc_rx_write_unlock(c);
	if (queue)
		queue_work(smc_wq, &c->smcr.release_work);
}

/*
 * The connection is broken for us (the peer's failover validation says
 * it lost messages of ours, or it could not move): readers and writers
 * see the abort.  Our close then tells the peer.
 */
void smcr_conn_lost(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smc_cdc_view v = {};

	smc_rx_write_lock(c);
	v.prod = c->peer_prod;
	v.cons = c->peer_cons;
	v.prod_flags = c->peer_prod_flags;
	smc_rx_write_unlock(c);
	v.conn_state_flags = SMC_CDC_CS_ABORT;
	smc_conn_rx_cdc(smc, &v);
}

const struct smc_conn_ops smcr_conn_ops = {
	.tx_prepare	= smcr_tx_prepare,
	.tx_write	= smcr_tx_write,
	.release	= smcr_conn_release,
	.diag		= smcr_conn_diag,
	.stats_tech	= SMC_STATS_R,
	.autocork	= true,
};
