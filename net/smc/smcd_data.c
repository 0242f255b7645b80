// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: moving data over SMC-D (no copy).
 *
 * sendmsg copies the application's bytes straight into the peer's
 * ring (its DMB, attached as our send buffer), then publishes the new
 * producer cursor in the header of the peer's DMB and rings its
 * doorbell.  recvmsg copies from our own DMB and, when the protocol's
 * consumer-update rule says so, publishes its consumer cursor the same
 * way.  Header writes are ordered by the connection's tx_lock; the
 * doorbell is rung after it is dropped.
 */

#include <linux/net.h>
#include <linux/poll.h>
#include <linux/sockios.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <asm/ioctls.h>

#include "smc.h"
#include "smc_ism.h"

static void *smcd_ring(struct smcd_dmb *dmb)
{
	return dmb->cpu_addr + SMCD_DMB_HDR_LEN;
}

/* Publish our cursors and flags in the peer's DMB, ring its doorbell */
void smcd_send_header(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	struct smcd_dmb *peer = c->peer;
	struct smcd_cdc_hdr h = {};

	if (!peer)
		return;
	spin_lock_bh(&c->tx_lock);
	h.prod = c->tx_prod;
	h.cons = c->rx_cons;
	h.prod_flags = c->tx_prod_flags;
	h.conn_state_flags = c->tx_conn_flags;
	/* the data (and our reads) before the cursors that announce them */
	smp_wmb();
	WRITE_ONCE(*(u64 *)(peer->cpu_addr + SMCD_CDC_PROD_OFF),
		   smcd_cdc_pack_prod(&h));
	WRITE_ONCE(*(u64 *)(peer->cpu_addr + SMCD_CDC_CONS_OFF),
		   smcd_cdc_pack_cons(&h));
	c->rx_cons_sent = h.cons;
	spin_unlock_bh(&c->tx_lock);
	smcd_dmb_signal(peer);
}

/* Bytes we may still write into the peer's ring */
static u32 smcd_tx_space(struct smcd_conn *c)
{
	struct smc_cursor cons;

	spin_lock_bh(&c->rx_lock);
	cons = c->peer_cons;
	spin_unlock_bh(&c->rx_lock);
	return smc_curs_free(c->tx_ring, &cons, &c->tx_prod);
}

/* Bytes the peer produced that are not read yet, from @cons on */
static u32 smcd_rx_avail(struct smcd_conn *c, const struct smc_cursor *cons)
{
	struct smc_cursor prod;

	spin_lock_bh(&c->rx_lock);
	prod = c->peer_prod;
	spin_unlock_bh(&c->rx_lock);
	return smc_curs_diff(c->rmb_ring, cons, &prod);
}

static u8 smcd_peer_flags(struct smcd_conn *c)
{
	return READ_ONCE(c->peer_conn_flags);
}

/* The peer will write nothing more */
static bool smcd_peer_done(struct smcd_conn *c)
{
	return smcd_peer_flags(c) & (SMC_CDC_CS_DONE_WRITING |
				     SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
}

/* The peer reads nothing more */
static bool smcd_peer_gone(struct smcd_conn *c)
{
	return smcd_peer_flags(c) & (SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
}

static int smcd_copy_in(struct smcd_conn *c, struct msghdr *msg, u32 n)
{
	u32 off = c->tx_prod.count;
	u32 first = min(n, c->tx_ring - off);
	void *ring = smcd_ring(c->peer);

	if (copy_from_iter(ring + off, first, &msg->msg_iter) != first)
		return -EFAULT;
	if (n > first &&
	    copy_from_iter(ring, n - first, &msg->msg_iter) != n - first)
		return -EFAULT;
	return 0;
}

int smcd_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smcd_conn *c = &smc->smcd;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	long timeo;
	int rc = 0;
	u32 space, n;

	if (msg->msg_flags & MSG_OOB)
		return -EOPNOTSUPP;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	add_wait_queue(sk_sleep(sk), &wait);
	while (copied < len) {
		if (sk->sk_err) {
			rc = sock_error(sk);
			break;
		}
		if ((sk->sk_shutdown & SEND_SHUTDOWN) || smcd_peer_gone(c) ||
		    !c->peer) {
			rc = -EPIPE;
			break;
		}
		space = smcd_tx_space(c);
		if (!space) {
			c->tx_prod_flags |= SMC_CDC_PF_WRITE_BLOCKED;
			rc = smc_may_sleep(timeo);
			if (rc)
				break;
			sk_wait_event(sk, &timeo, smcd_tx_space(c) ||
				      READ_ONCE(sk->sk_err) ||
				      smcd_peer_gone(c), &wait);
			continue;
		}
		n = min_t(size_t, space, len - copied);
		rc = smcd_copy_in(c, msg, n);
		if (rc)
			break;
		spin_lock_bh(&c->tx_lock);
		smc_curs_add(c->tx_ring, &c->tx_prod, n);
		if (n < len - copied)
			c->tx_prod_flags |= SMC_CDC_PF_WRITE_BLOCKED;
		else
			c->tx_prod_flags &= ~SMC_CDC_PF_WRITE_BLOCKED;
		spin_unlock_bh(&c->tx_lock);
		smcd_send_header(smc);
		copied += n;
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);

	if (copied)
		return copied;
	if (rc == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return rc;
}

static int smcd_copy_out(struct smcd_conn *c, struct msghdr *msg,
			 const struct smc_cursor *cons, u32 n)
{
	u32 off = cons->count;
	u32 first = min(n, c->rmb_ring - off);
	void *ring = smcd_ring(c->rmb);

	if (copy_to_iter(ring + off, first, &msg->msg_iter) != first)
		return -EFAULT;
	if (n > first && copy_to_iter(ring, n - first, &msg->msg_iter) !=
			 n - first)
		return -EFAULT;
	return 0;
}

/* After a read: tell the peer about freed space when worth it */
static void smcd_cons_update(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	u32 consumed, outstanding;
	struct smc_cursor prod;
	bool blocked;

	spin_lock_bh(&c->rx_lock);
	prod = c->peer_prod;
	blocked = c->peer_prod_flags & SMC_CDC_PF_WRITE_BLOCKED;
	spin_unlock_bh(&c->rx_lock);

	consumed = smc_curs_diff(c->rmb_ring, &c->rx_cons_sent, &c->rx_cons);
	outstanding = smc_curs_diff(c->rmb_ring, &c->rx_cons_sent, &prod);
	if (smc_cdc_cons_update_needed(c->rmb_ring, consumed, outstanding,
				       blocked, false))
		smcd_send_header(smc);
}

int smcd_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		 int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smcd_conn *c = &smc->smcd;
	struct sock *sk = &smc->sk;
	struct smc_cursor cons;
	size_t copied = 0;
	int rc = 0, target;
	long timeo;
	u32 avail, n;

	if (flags & MSG_OOB)
		return -EINVAL;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	cons = c->rx_cons;
	add_wait_queue(sk_sleep(sk), &wait);
	while (copied < len) {
		avail = c->rmb ? smcd_rx_avail(c, &cons) : 0;
		if (!avail) {
			if (copied >= target || smcd_peer_done(c) ||
			    (sk->sk_shutdown & RCV_SHUTDOWN))
				break;
			if (sk->sk_err) {
				rc = sock_error(sk);
				break;
			}
			rc = smc_may_sleep(timeo);
			if (rc)
				break;
			sk_wait_event(sk, &timeo, smcd_rx_avail(c, &cons) ||
				      smcd_peer_done(c) ||
				      READ_ONCE(sk->sk_err), &wait);
			continue;
		}
		/* the cursor was read before the data it covers */
		smp_rmb();
		n = min_t(size_t, avail, len - copied);
		rc = smcd_copy_out(c, msg, &cons, n);
		if (rc)
			break;
		smc_curs_add(c->rmb_ring, &cons, n);
		copied += n;
		if (flags & MSG_PEEK)
			continue;
		c->rx_cons = cons;
		smcd_cons_update(smc);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	return copied ? copied : rc;
}

__poll_t smcd_poll(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	struct sock *sk = &smc->sk;
	u8 shut = READ_ONCE(sk->sk_shutdown);
	__poll_t mask = 0;

	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (c->rmb && smcd_rx_avail(c, &c->rx_cons))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (smcd_peer_done(c) || (shut & RCV_SHUTDOWN))
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (shut & SEND_SHUTDOWN || smcd_peer_gone(c))
		mask |= EPOLLOUT | EPOLLWRNORM;
	else if (c->peer && smcd_tx_space(c))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (shut == SHUTDOWN_MASK ||
	    (smcd_peer_done(c) && (shut & SEND_SHUTDOWN)) ||
	    smcd_peer_gone(c))
		mask |= EPOLLHUP;
	return mask;
}

int smcd_shutdown(struct smc_sock *smc, int how)
{
	struct smcd_conn *c = &smc->smcd;
	struct sock *sk = &smc->sk;
	int flags = how + 1;	/* SHUT_RD 0 -> RCV_SHUTDOWN 1, ... */

	lock_sock(sk);
	if ((flags & SEND_SHUTDOWN) && !(sk->sk_shutdown & SEND_SHUTDOWN)) {
		spin_lock_bh(&c->tx_lock);
		c->tx_conn_flags |= SMC_CDC_CS_DONE_WRITING;
		spin_unlock_bh(&c->tx_lock);
		smcd_send_header(smc);
	}
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | flags);
	release_sock(sk);
	sk->sk_state_change(sk);
	return kernel_sock_shutdown(smc->clcsock, how);
}

int smcd_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg)
{
	struct smcd_conn *c = &smc->smcd;
	int answ;

	switch (cmd) {
	case SIOCINQ:
		answ = c->rmb ? smcd_rx_avail(c, &c->rx_cons) : 0;
		break;
	case SIOCOUTQ:
	case SIOCOUTQNSD:
		answ = c->peer ? c->tx_ring - smcd_tx_space(c) : 0;
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return put_user(answ, (int __user *)arg);
}
