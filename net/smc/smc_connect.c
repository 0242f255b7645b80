// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the client side of a connection.
 *
 * connect() first establishes the internal TCP connection.  A blocking
 * connect finishes the SMC handshake in the caller's context.  When the
 * TCP connect goes on in the background (non-blocking socket, a send
 * timeout or a signal), the clcsock's state_change callback queues
 * connect_work once TCP is done, and the work item finishes the job;
 * meanwhile the socket reports neither readable nor writable.
 */

#include <linux/net.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_core.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_sock.h"

/*
 * The TCP connection is up: pick the transport.  smc sock lock held.
 * An error means the handshake failed and the connect with it.
 */
static int smc_connect_established(struct smc_sock *smc)
{
	struct sock *sk = &smc->sk;
	int rc = 0;

	smc_owned_by_me(smc);
	/* options set while TCP was connecting apply to the connection */
	smc_copy_sock_settings_to_clc(smc);

	/* without the SMC option in the SYN-ACK the peer cannot do SMC */
	if (SMC_TCP_OPTION && !smc_tcp_syn_smc(smc_clcsk(smc)))
		smc_switch_to_fallback(smc, SMC_CLC_DECL_PEERNOSMC);
	else
		rc = smc_connect_handshake(smc);
	/* on failure the FIN takes a held ACK along */
	if (!rc)
		smc_clc_release_acks(smc_clcsk(smc), smc->use_fallback);

	if (rc) {
		WRITE_ONCE(sk->sk_err, -rc);
		sk->sk_state = SMC_CLOSED;
		kernel_sock_shutdown(smc->clcsock, SHUT_RDWR);
		return rc;
	}
	/* SMC-D set its own state, which the peer may have moved on */
	if (sk->sk_state == SMC_INIT)
		sk->sk_state = SMC_ACTIVE;
	if (sk->sk_socket)
		sk->sk_socket->state = SS_CONNECTED;
	return 0;
}

static bool smc_tcp_connecting(const struct sock *clcsk)
{
	return (1 << READ_ONCE(clcsk->sk_state)) &
	       (TCPF_SYN_SENT | TCPF_SYN_RECV);
}

/*
 * The TCP connect was left running by connect() returning @rc; it may
 * even have ended already (a refused connect over loopback does), so
 * connect_work decides what became of it.
 */
static bool smc_tcp_connect_goes_on(int rc)
{
	return rc == -EINPROGRESS || rc == -EALREADY || rc == -EINTR ||
	       rc == -ERESTARTSYS;
}

int smc_connect(struct socket *sock, struct sockaddr_unsized *addr, int alen,
		int flags)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	struct socket *clcsock;
	int rc;

	if (alen < (int)offsetofend(struct sockaddr, sa_family))
		return -EINVAL;
	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EINVAL;

	lock_sock(sk);
	clcsock = smc->clcsock;
	if (smc->connect_inflight) {
		rc = -EALREADY;
		goto out;
	}
	if (smc->connect_pending) {
		/* like TCP: a blocking caller waits for the outcome */
		long timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);

		release_sock(sk);
		if (!timeo)
			return -EALREADY;
		rc = smc_wait_connected(smc, timeo);
		if (rc)
			return rc == -EAGAIN ? -EALREADY : rc;
		smc_clcsk_no_smc(clcsock->sk);
		return clcsock->ops->connect(clcsock, addr, alen, flags);
	}
	if (!clcsock) {
		rc = sock_error(sk) ? : -ECONNABORTED;
		goto out;
	}
	if (sk->sk_state != SMC_INIT || smc->use_fallback) {
		/* connected, listening or TCP only: TCP has the answer */
		if (sk->sk_state != SMC_LISTEN)
			smc_clcsk_no_smc(clcsock->sk);
		release_sock(sk);
		return clcsock->ops->connect(clcsock, addr, alen, flags);
	}

	smc_copy_sock_settings_to_clc(smc);
	smc_tcp_set_syn_smc(clcsock->sk, smc_syn_smc());
	if (smc_tcp_syn_smc(clcsock->sk) ||
	    smc_rendezvous_hold_ack(clcsock->sk, (struct sockaddr *)addr, alen))
		smc_clc_hold_acks(clcsock->sk);

	/* other callers see EALREADY while TCP connects without our lock */
	smc->connect_inflight = true;
	release_sock(sk);
	rc = clcsock->ops->connect(clcsock, addr, alen, flags);
	lock_sock(sk);
	smc->connect_inflight = false;

	if (!rc) {
		rc = smc_connect_established(smc);
	} else if (smc_tcp_connect_goes_on(rc)) {
		WRITE_ONCE(smc->connect_pending, true);
		smc->connect_bg = true;
		/* pairs with the barrier in smc_clcsk_check_connect() */
		smp_mb();
		if (!smc_tcp_connecting(clcsock->sk)) {
			sock_hold(sk);
			if (!queue_work(smc_hs_wq, &smc->connect_work))
				sock_put(sk);
		}
	} else {
		/* TCP is closed again; a retry offers SMC anew */
		smc_clcsk_no_smc(clcsock->sk);
	}
out:
	release_sock(sk);
	return rc;
}

void smc_connect_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock,
					    connect_work);
	struct sock *sk = &smc->sk;
	struct sock *clcsk;
	bool done = false;

	lock_sock(sk);
	if (!smc->connect_pending || !smc->clcsock)
		goto out;
	clcsk = smc->clcsock->sk;
	if (smc_tcp_connecting(clcsk))
		goto out;	/* early wake-up, TCP will call again */

	done = true;
	if (READ_ONCE(clcsk->sk_state) == TCP_CLOSE) {
		/*
		 * The TCP connect failed.  The socket stays a TCP socket,
		 * so SO_ERROR, poll and a retried connect() are answered
		 * by TCP exactly as for a TCP socket.
		 */
		smc_switch_to_fallback(smc, SMC_CLC_DECL_PEERNOSMC);
	} else {
		smc_connect_established(smc);
	}
	/* only now: poll must not report a connection still in handshake */
	WRITE_ONCE(smc->connect_pending, false);
out:
	release_sock(sk);
	if (done)
		sk->sk_state_change(sk);
	sock_put(sk);
}

/* Release: stop a background connect, its work item included */
void smc_connect_cancel(struct smc_sock *smc)
{
	struct sock *sk = &smc->sk;

	/* connect_work is queued only after connect_pending was set */
	if (!smc->connect_bg)
		return;
	lock_sock(sk);
	WRITE_ONCE(smc->connect_pending, false);
	release_sock(sk);
	if (cancel_work_sync(&smc->connect_work))
		sock_put(sk);
}

/*
 * smc_wait_connected() found a connect pending: wait for its end.
 * Returns 0, -EAGAIN or a signal error.
 */
int __smc_wait_connected(struct smc_sock *smc, long timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &smc->sk;
	int rc = 0;

	lock_sock(sk);
	add_wait_queue(sk_sleep(sk), &wait);
	while (smc->connect_pending) {
		rc = smc_may_sleep(timeo);
		if (rc)
			break;
		sk_wait_event(sk, &timeo, !READ_ONCE(smc->connect_pending),
			      &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	return rc;
}
