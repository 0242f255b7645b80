// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: calls on a socket past connect/accept.
 *
 * While a connection runs over TCP (handshake not started, TCP only
 * for good, or an in-kernel user whose file could not be redirected),
 * every call is answered by the internal TCP socket.  A call that
 * needs to know the transport waits for a background connect first.
 */

#include <linux/net.h>
#include <linux/poll.h>
#include <linux/splice.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_clc_wire.h"
#include "smc_conn.h"
#include "smc_sock.h"
#include "smc_stats.h"

int smc_getname(struct socket *sock, struct sockaddr *addr, int peer)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock = smc->clcsock;

	if (!clcsock)
		return -ENOTCONN;
	return clcsock->ops->getname(clcsock, addr, peer);
}

static __poll_t smc_listen_poll(struct smc_sock *lsmc)
{
	return READ_ONCE(lsmc->listen->accept_q_len) ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

__poll_t smc_poll(struct file *file, struct socket *sock, poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc;
	struct socket *clcsock;
	__poll_t mask;

	if (!sk)
		return EPOLLNVAL;
	smc = smc_sk(sk);

	/* TCP events reach this queue through the clcsock callbacks */
	sock_poll_wait(file, sock, wait);

	if (READ_ONCE(sk->sk_state) == SMC_LISTEN)
		return smc_listen_poll(smc);
	/* neither readable nor writable before the transport is known */
	if (READ_ONCE(smc->connect_pending))
		return 0;
	if (smc_on_smc(smc))
		return smc_conn_poll(smc);

	clcsock = smc->clcsock;
	if (!clcsock)
		return EPOLLHUP | EPOLLERR;
	mask = clcsock->ops->poll(file, clcsock, NULL);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	return mask;
}

int smc_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock = smc->clcsock;

	if (!clcsock)
		return -EBADF;
	if (smc_on_smc(smc))
		return smc_conn_ioctl(smc, cmd, arg);
	return clcsock->ops->ioctl(clcsock, cmd, arg);
}

int smc_shutdown(struct socket *sock, int how)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock = smc->clcsock;

	/* the user API numbers: SHUT_RD 0, SHUT_WR 1, SHUT_RDWR 2 */
	if (how < 0 || how > 2)
		return -EINVAL;
	if (!clcsock)
		return -ENOTCONN;
	if (READ_ONCE(smc->sk.sk_state) == SMC_LISTEN) {
		/*
		 * As in TCP, shutting down the receive side of a listener
		 * stops it: blocked accept() calls return EINVAL, which is
		 * how threaded servers stop their accept loop.
		 */
		if (how == 1)	/* SHUT_WR */
			return 0;
		smc_listen_stop(smc);
		/* connect() may reuse the TCP socket: no SMC in its SYN */
		smc_clcsk_no_smc(clcsock->sk);
		smc->sk.sk_state_change(&smc->sk);
		return clcsock->ops->shutdown(clcsock, how);
	}
	/*
	 * During a background connect TCP aborts the connect at once;
	 * connect_work then sees TCP closed and the socket stays TCP.
	 */
	if (smc_on_smc(smc))
		return smc_conn_shutdown(smc, how);
	return clcsock->ops->shutdown(clcsock, how);
}

int smc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct sock *sk = &smc->sk;
	struct socket *clcsock;
	bool oob;
	int rc;

	if (msg->msg_flags & MSG_FASTOPEN) {
		lock_sock(sk);
		if (sk->sk_state == SMC_INIT && !smc->connect_pending &&
		    !smc->connect_inflight)
			smc_switch_to_fallback(smc, SMC_CLC_DECL_OPTUNSUPP);
		rc = smc->use_fallback ? 0 : -EINVAL;
		release_sock(sk);
		if (rc)
			return rc;
	}

	rc = smc_wait_connected(smc, sock_sndtimeo(sk, msg->msg_flags &
						   MSG_DONTWAIT));
	if (rc)
		return rc;
	if (smc_on_smc(smc)) {
		oob = msg->msg_flags & MSG_OOB;
		rc = smc_conn_sendmsg(smc, msg, len);
		smc_stats_tx(smc, len, rc, oob);
		return rc;
	}
	clcsock = smc->clcsock;
	if (!clcsock)
		return -EPIPE;
	return clcsock->ops->sendmsg(clcsock, msg, len);
}

int smc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		int flags)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock;
	u32 readable = 0;
	int rc;

	rc = smc_wait_connected(smc, sock_rcvtimeo(&smc->sk,
						   flags & MSG_DONTWAIT));
	if (rc)
		return rc;
	if (smc_on_smc(smc)) {
		rc = smc_conn_recvmsg(smc, msg, len, flags, &readable);
		smc_stats_rx(smc, len, rc, flags & MSG_OOB, readable);
		return rc;
	}
	clcsock = smc->clcsock;
	if (!clcsock)
		return -ENOTCONN;
	return clcsock->ops->recvmsg(clcsock, msg, len, flags);
}

ssize_t smc_splice_read(struct socket *sock, loff_t *ppos,
			struct pipe_inode_info *pipe, size_t len,
			unsigned int flags)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock;
	int rc;

	bool nonblock = flags & SPLICE_F_NONBLOCK;

	if (sock->file && (sock->file->f_flags & O_NONBLOCK))
		nonblock = true;
	rc = smc_wait_connected(smc, sock_rcvtimeo(&smc->sk, nonblock));
	if (rc)
		return rc;
	if (smc_on_smc(smc)) {
		smc_stats_splice(smc);
		return smc_conn_splice_read(smc, pipe, len, nonblock);
	}
	clcsock = smc->clcsock;
	if (!clcsock || !sock->file)
		return -ENOTCONN;
	if (!clcsock->ops->splice_read)
		return -EOPNOTSUPP;
	/* TCP reads the blocking mode from its file: lend it ours */
	if (!clcsock->file)
		clcsock->file = sock->file;
	return clcsock->ops->splice_read(clcsock, ppos, pipe, len, flags);
}
