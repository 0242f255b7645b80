// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the internal TCP socket's callbacks and
 * the switch to TCP for good.
 *
 * The clcsock gets its own data_ready, write_space, state_change and
 * error_report callbacks.  Each first does what TCP's default would do,
 * then tells the smc sock: a listener learns of new connections, a
 * connecting socket of the end of its TCP handshake, and waiters that
 * registered on the smc socket while the connection ran over TCP get
 * their wake-ups.
 *
 * Once a connection stays on TCP for good, the file of the socket is
 * pointed at the clcsock: from then on the socket core calls TCP
 * directly, so a fallen-back socket costs nothing per call and behaves
 * exactly like TCP.  The file's inode still belongs to the smc socket,
 * whose release takes the pointer back.
 */

#include <linux/fs.h>
#include <linux/net.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_conn.h"
#include "smc_core.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smc_stats.h"

/* TCP's own callbacks, captured once from a kernel TCP socket */
static struct {
	void (*data_ready)(struct sock *sk);
	void (*write_space)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	void (*error_report)(struct sock *sk);
} smc_tcp_cb __read_mostly;

int smc_fallback_init(void)
{
	struct socket *sock;
	int rc;

	rc = sock_create_kern(&init_net, PF_INET, SOCK_STREAM, IPPROTO_TCP,
			      &sock);
	if (rc)
		return rc;
	smc_tcp_cb.data_ready = sock->sk->sk_data_ready;
	smc_tcp_cb.write_space = sock->sk->sk_write_space;
	smc_tcp_cb.state_change = sock->sk->sk_state_change;
	smc_tcp_cb.error_report = sock->sk->sk_error_report;
	sock_release(sock);
	return 0;
}

/*
 * A TCP socket with our callbacks but no smc sock: a child cloned from
 * a listening clcsock (TCP copies the callbacks into its children).  It
 * may end up with a user who never sees AF_SMC (a TCP-only listener, a
 * reuseport migration) and outlive this module, so it gets TCP's own
 * callbacks back at its first event, which at the latest is the
 * state change that completes its handshake.
 */
static void smc_clcsk_heal(struct sock *clcsk)
{
	write_lock_bh(&clcsk->sk_callback_lock);
	/* not if smc_clcsk_attach() adopted the socket meanwhile */
	if (!rcu_access_pointer(__sk_user_data(clcsk))) {
		clcsk->sk_data_ready = smc_tcp_cb.data_ready;
		clcsk->sk_write_space = smc_tcp_cb.write_space;
		clcsk->sk_state_change = smc_tcp_cb.state_change;
		clcsk->sk_error_report = smc_tcp_cb.error_report;
		smc_tcp_set_congested(clcsk, NULL);
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/* Queue @work for @smc unless the socket is already on its way out */
static void smc_queue_work(struct smc_sock *smc, struct work_struct *work)
{
	if (!refcount_inc_not_zero(&smc->sk.sk_refcnt))
		return;
	if (!queue_work(smc_hs_wq, work))
		sock_put(&smc->sk);
}

/* A waiter on the smc socket is interested in TCP events */
static bool smc_forward_events(const struct smc_sock *smc)
{
	return smc_on_tcp(smc) && !READ_ONCE(smc->listen);
}

static void smc_clcsk_data_ready(struct sock *clcsk)
{
	struct smc_sock *smc;

	smc_tcp_cb.data_ready(clcsk);
	rcu_read_lock();
	smc = smc_clcsk_owner(clcsk);
	if (!smc)
		smc_clcsk_heal(clcsk);
	else if (READ_ONCE(smc->listen))
		smc_listen_kick(smc);
	else if (smc_forward_events(smc))
		smc->sk.sk_data_ready(&smc->sk);
	if (smc)
		smc_listen_unpark(smc);	/* a child's first byte */
	rcu_read_unlock();
}

static void smc_clcsk_write_space(struct sock *clcsk)
{
	struct smc_sock *smc;

	smc_tcp_cb.write_space(clcsk);
	rcu_read_lock();
	smc = smc_clcsk_owner(clcsk);
	if (!smc)
		smc_clcsk_heal(clcsk);
	else if (smc_forward_events(smc) && sk_stream_is_writeable(clcsk))
		smc->sk.sk_write_space(&smc->sk);
	rcu_read_unlock();
}

/* The TCP connect of a connecting socket has ended, one way or another */
static void smc_clcsk_check_connect(struct smc_sock *smc,
				    const struct sock *clcsk)
{
	/* pairs with the barrier in smc_connect() */
	smp_mb();
	if (READ_ONCE(smc->connect_pending) &&
	    !((1 << READ_ONCE(clcsk->sk_state)) &
	      (TCPF_SYN_SENT | TCPF_SYN_RECV)))
		smc_queue_work(smc, &smc->connect_work);
}

/*
 * State change and error report: either may end a TCP connect, and both
 * are passed on as the same event to waiters on the smc socket.
 */
static void smc_clcsk_conn_event(struct sock *clcsk, bool error)
{
	struct smc_sock *smc;

	if (error)
		smc_tcp_cb.error_report(clcsk);
	else
		smc_tcp_cb.state_change(clcsk);
	rcu_read_lock();
	smc = smc_clcsk_owner(clcsk);
	if (!smc) {
		smc_clcsk_heal(clcsk);
	} else {
		smc_clcsk_check_connect(smc, clcsk);
		smc_listen_unpark(smc);	/* a child's client went away */
		if (smc_forward_events(smc) && error)
			smc->sk.sk_error_report(&smc->sk);
		else if (smc_forward_events(smc))
			smc->sk.sk_state_change(&smc->sk);
	}
	rcu_read_unlock();
}

static void smc_clcsk_state_change(struct sock *clcsk)
{
	smc_clcsk_conn_event(clcsk, false);
}

static void smc_clcsk_error_report(struct sock *clcsk)
{
	smc_clcsk_conn_event(clcsk, true);
}

/*
 * The smc sock of a TCP socket found in TCP's tables, if the socket is
 * one of ours: others may keep something else in sk_user_data.  RCU
 * read side.
 */
struct smc_sock *smc_tcp_sk_owner(const struct sock *sk)
{
	if (READ_ONCE(sk->sk_data_ready) != smc_clcsk_data_ready)
		return NULL;
	return smc_clcsk_owner(sk);
}

int smc_clcsk_attach(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	if (rcu_access_pointer(__sk_user_data(clcsk))) {
		write_unlock_bh(&clcsk->sk_callback_lock);
		return -EBUSY;
	}
	/* NOCOPY: children of a listening clcsock must not inherit us */
	__rcu_assign_sk_user_data_with_flags(clcsk, smc, SK_USER_DATA_NOCOPY);
	clcsk->sk_data_ready = smc_clcsk_data_ready;
	clcsk->sk_write_space = smc_clcsk_write_space;
	clcsk->sk_state_change = smc_clcsk_state_change;
	clcsk->sk_error_report = smc_clcsk_error_report;
	write_unlock_bh(&clcsk->sk_callback_lock);
	return 0;
}

void smc_clcsk_detach(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	rcu_assign_sk_user_data(clcsk, NULL);
	clcsk->sk_data_ready = smc_tcp_cb.data_ready;
	clcsk->sk_write_space = smc_tcp_cb.write_space;
	clcsk->sk_state_change = smc_tcp_cb.state_change;
	clcsk->sk_error_report = smc_tcp_cb.error_report;
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/*
 * Release the clcsock of a socket whose callbacks smc_clcsk_detach()
 * reset.  A ULP the user put on the redirected fd (kTLS: TCP_ULP "tls"
 * with TLS_RX) saved our data_ready when it was set up and restores it
 * in its close, which runs inside sock_release(): the orphaned TCP
 * socket would keep a pointer into this module, called after an
 * unload.  The sock is held across the release, and whatever of ours
 * came back is replaced by TCP's own callback.
 */
void smc_clcsk_release(struct socket *clcsock)
{
	struct sock *clcsk = clcsock->sk;

	sock_hold(clcsk);
	sock_release(clcsock);
	write_lock_bh(&clcsk->sk_callback_lock);
	if (clcsk->sk_data_ready == smc_clcsk_data_ready)
		clcsk->sk_data_ready = smc_tcp_cb.data_ready;
	if (clcsk->sk_write_space == smc_clcsk_write_space)
		clcsk->sk_write_space = smc_tcp_cb.write_space;
	if (clcsk->sk_state_change == smc_clcsk_state_change)
		clcsk->sk_state_change = smc_tcp_cb.state_change;
	if (clcsk->sk_error_report == smc_clcsk_error_report)
		clcsk->sk_error_report = smc_tcp_cb.error_report;
	write_unlock_bh(&clcsk->sk_callback_lock);
	sock_put(clcsk);
}

/* Let the file of @smc's socket, if it has one, call TCP directly */
void smc_fallback_redirect(struct smc_sock *smc)
{
	struct socket *sock = smc->sk.sk_socket;

	if (!smc->use_fallback || smc->file_redirected || !smc->clcsock ||
	    !sock || !sock->file)
		return;
	smc->clcsock->file = sock->file;
	smc->file_redirected = true;
	WRITE_ONCE(sock->file->private_data, smc->clcsock);
}

void smc_fallback_undo_redirect(struct smc_sock *smc)
{
	struct socket *sock = smc->sk.sk_socket;

	if (!smc->file_redirected)
		return;
	if (sock && sock->file) {
		/*
		 * O_ASYNC set before the switch left an entry here, which
		 * the close path removed from the clcsock's list instead.
		 */
		if (sock->wq.fasync_list)
			fasync_helper(-1, sock->file, 0, &sock->wq.fasync_list);
		WRITE_ONCE(sock->file->private_data, sock);
	}
	smc->clcsock->file = NULL;
	smc->file_redirected = false;
}

/*
 * The connection stays on TCP for good.  Called with the smc sock lock
 * held; the first reason recorded wins.
 */
void smc_switch_to_fallback(struct smc_sock *smc, u32 reason)
{
	smc_owned_by_me(smc);
	if (smc->use_fallback)
		return;
	smc->fallback_rsn = reason;
	WRITE_ONCE(smc->path, SMC_PATH_TCP);
	smc->use_fallback = true;
	/* connect after a refused connect or AF_UNSPEC, listen: the user's */
	if (smc->clcsock)
		smc_clcsk_no_smc(smc->clcsock->sk);
	smc_stats_fback(smc, reason);
	smc_fallback_redirect(smc);
}
