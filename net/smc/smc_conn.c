// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the life of a connection over SMC-D or
 * SMC-R.
 *
 * Its start once the handshake succeeded, shutdown and close through
 * the close state machine (smc_close_fsm.h), and the calls that look at
 * both directions: poll and ioctl.  Sending is in smc_tx.c, receiving
 * in smc_rx.c, each transport's own part in smcd_conn.c and smcr_*.c.
 */

#include <linux/net.h>
#include <linux/poll.h>
#include <linux/sockios.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <asm/ioctls.h>

#include "smc_conn.h"
#include "smc_ism.h"
#include "smc_sock.h"

/* The transport-neutral state of a new connection */
void smc_conn_init(struct smc_conn *c)
{
	smc_tx_init(c);
	spin_lock_init(&c->tx_lock);
	spin_lock_init(&c->rx_lock);
	seqcount_spinlock_init(&c->rx_seq, &c->rx_lock);
	c->fsm.state = SMC_FSM_INIT;
}

/* The handshake succeeded: data goes over @path from now on */
void smc_conn_start(struct smc_sock *smc, enum smc_path path)
{
	struct smc_conn *c = &smc->conn;

	/* the peer may have closed already, right after its Confirm */
	smc_rx_write_lock(c);
	if (c->fsm.state == SMC_FSM_INIT)
		c->fsm.state = SMC_FSM_ACTIVE;
	WRITE_ONCE(smc->sk.sk_state, c->fsm.state);
	smc_rx_write_unlock(c);
	WRITE_ONCE(smc->path, path);
}

/*
 * Release of a socket that had an SMC connection: tell the peer, then
 * let the transport free the buffers.  As TCP sends a reset, we abort
 * when we leave data unread or the application asked for it with
 * SO_LINGER {1, 0}.
 */
void smc_conn_close(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct sock *sk = &smc->sk;
	bool abort;
	u8 send;

	if (!c->ops)
		return;
	if (smc_ring_set(&c->tx)) {
		abort = sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime;
		smc_rx_write_lock(c);
		if (smc_curs_diff(c->rmb_ring, &c->rx_cons, &c->peer_prod))
			abort = true;
		send = smc_fsm_close(&c->fsm, abort);
		smc_rx_write_unlock(c);
		smc_send_conn_flags(smc, send);
	}
	c->ops->release(smc);
}

__poll_t smc_conn_poll(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct sock *sk = &smc->sk;
	u8 shut = READ_ONCE(sk->sk_shutdown);
	struct smc_rx_view v = {};
	__poll_t mask = 0;
	u32 readable;

	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (smc_ring_set(&c->rx)) {
		smc_rx_look(c, &c->rx_cons, &v);
		readable = smc_rx_normal(sk, &v);
		if (readable && readable >= smc_rcv_target(sk, c, false,
							   INT_MAX, false))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (v.urg_state == SMC_URG_VALID)
			mask |= EPOLLPRI;
	}
	if (smc_peer_done(c) || (shut & RCV_SHUTDOWN))
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (shut & SEND_SHUTDOWN || smc_peer_gone(c))
		mask |= EPOLLOUT | EPOLLWRNORM;
	else if (smc_ring_set(&c->tx) && smc_tx_writable(c))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (shut == SHUTDOWN_MASK ||
	    (smc_peer_done(c) && (shut & SEND_SHUTDOWN)) ||
	    smc_peer_gone(c))
		mask |= EPOLLHUP;
	return mask;
}

int smc_conn_shutdown(struct smc_sock *smc, int how)
{
	struct smc_conn *c = &smc->conn;
	struct sock *sk = &smc->sk;
	int flags = how + 1;	/* SHUT_RD 0 -> RCV_SHUTDOWN 1, ... */
	u8 send;

	lock_sock(sk);
	if ((flags & SEND_SHUTDOWN) && !(sk->sk_shutdown & SEND_SHUTDOWN)) {
		/*
		 * SHUT_RDWR too sends done-writing, not closed: as over
		 * TCP, the peer may go on writing to a socket that is
		 * shut down but not closed.
		 */
		smc_rx_write_lock(c);
		send = smc_fsm_shut_wr(&c->fsm);
		WRITE_ONCE(sk->sk_state, c->fsm.state);
		smc_rx_write_unlock(c);
		smc_send_conn_flags(smc, send);
	}
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | flags);
	release_sock(sk);
	sk->sk_state_change(sk);
	return kernel_sock_shutdown(smc->clcsock, how);
}

int smc_conn_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg)
{
	struct smc_conn *c = &smc->conn;
	struct smc_rx_view v;
	int answ;

	switch (cmd) {
	case SIOCINQ:
		answ = 0;
		if (smc_ring_set(&c->rx)) {
			lock_sock(&smc->sk);
			smc_rx_look(c, &c->rx_cons, &v);
			release_sock(&smc->sk);
			answ = smc_rx_normal(&smc->sk, &v);
		}
		break;
	case SIOCOUTQ:
	case SIOCOUTQNSD:
		/* no copy: what we sent is in the peer's buffer already */
		answ = 0;
		break;
	case SIOCATMARK:
		answ = 0;
		if (smc_ring_set(&c->rx)) {
			lock_sock(&smc->sk);
			smc_rx_look(c, &c->rx_cons, &v);
			release_sock(&smc->sk);
			/* past a replaced urgent byte, as TCP has it */
			answ = v.urg_state != SMC_URG_NONE &&
			       v.to_mark == smc_rx_skipped(&v);
		}
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return put_user(answ, (int __user *)arg);
}
