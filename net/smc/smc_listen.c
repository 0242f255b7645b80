// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the server side of a connection.
 *
 * listen() puts the internal TCP socket into LISTEN.  Its data_ready
 * callback queues tcp_accept_work, which takes the new TCP connections
 * and gives each a child smc sock whose handshake runs in its own work
 * item; a child whose client has sent nothing yet is parked without a
 * worker until it does, or until a client of this host takes the
 * handshake over (smc_rendezvous.c).  Children that finished their
 * handshake wait in the accept queue for accept().  The number of
 * children in handshake or queued is bounded by the backlog, and the
 * number in handshake by SMC_LISTEN_HS_MAX: a handshake may sleep for
 * seconds in CLC receive (a message that stops half way), and a flood
 * of such clients must not take every worker of the handshake queue.
 * Beyond either bound, new connections wait in TCP's accept queue,
 * which applies TCP's own backlog limit.
 */

#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_conn.h"
#include "smc_core.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smc_stats.h"

/*
 * Who does the handshake of a child (child->hs_state).  Each change is
 * one atomic exchange, so exactly one party owns the handshake, and
 * with it the child's own reference, at any time:
 *
 *   NEW      being set up by the accept worker, under the listener lock;
 *   QUEUED   a run of handshake_work is due;
 *   RUNNING  handshake_work runs it;
 *   PARKED   no one: the client has sent nothing yet; its first byte,
 *            its going away or the CLC wait's end make it QUEUED;
 *   CLAIMED  a client of this host does it (smc_rendezvous.c);
 *   DONE     ended: on to accept(), or dropped.
 *
 * A claim never cancels the work item: cancel_work() on an idle item
 * takes its pending bit for a moment, and a queue_work() of that moment
 * would be lost, leaving the child with no one to finish it.  Each
 * queued run holds a reference of its own instead, and a run that finds
 * the child no longer QUEUED just drops it.
 */
enum smc_hs_state {
	SMC_HS_NEW,
	SMC_HS_QUEUED,
	SMC_HS_RUNNING,
	SMC_HS_PARKED,
	SMC_HS_CLAIMED,
	SMC_HS_DONE,
};

static bool smc_hs_move(struct smc_sock *child, int from, int to)
{
	return atomic_cmpxchg(&child->hs_state, from, to) == from;
}

/*
 * Hand the handshake of @child, owned by the caller, to a run of the
 * work.  The run's reference is taken first: once QUEUED, a claim or a
 * run already pending may take the child and end it.  The release pairs
 * with the claim's exchange: it sees the child's set-up.
 */
static void smc_hs_queue(struct smc_sock *child)
{
	sock_hold(&child->sk);
	atomic_set_release(&child->hs_state, SMC_HS_QUEUED);
	if (!queue_work(smc_hs_wq, &child->handshake_work))
		sock_put(&child->sk);	/* the pending run will do */
}

/* children of one listener in handshake at once, at most */
#define SMC_LISTEN_HS_MAX	64

/* Wake the accept worker of listener @lsmc; callable from softirq */
void smc_listen_kick(struct smc_sock *lsmc)
{
	struct smc_listen_info *li = READ_ONCE(lsmc->listen);

	if (!li || READ_ONCE(lsmc->sk.sk_state) != SMC_LISTEN)
		return;
	if (atomic_read(&li->kick_holds)) {
		atomic_set(&li->kick_held, 1);
		/* held before the look; pairs with smc_listen_release_kicks() */
		smp_mb__after_atomic();
		if (atomic_read(&li->kick_holds))
			return;
	}
	if (!refcount_inc_not_zero(&lsmc->sk.sk_refcnt))
		return;
	if (!queue_work(smc_wq, &li->tcp_accept_work))
		sock_put(&lsmc->sk);
}

/* A child that will never be accepted: close it like TCP would, by RST */
static void smc_child_abort(struct smc_sock *child)
{
	struct smc_sock *lsmc = child->listen_smc;
	struct sock *sk = &child->sk;
	struct sock *clcsk;

	/* nested: a client of this host may hold its own (smc_rendezvous.c) */
	lock_sock_nested(sk, SINGLE_DEPTH_NESTING);
	/* an SMC-D connection aborts too, and gives back its buffers */
	sock_set_flag(sk, SOCK_LINGER);
	sk->sk_lingertime = 0;
	smc_conn_close(child);
	sk->sk_state = SMC_CLOSED;
	clcsk = smc_clcsk(child);
	if (clcsk) {
		sock_set_flag(clcsk, SOCK_LINGER);
		clcsk->sk_lingertime = 0;
	}
	release_sock(sk);

	smc_sock_destroy_clcsock(child);
	smc_table_del(child);
	child->listen_smc = NULL;
	sock_put(&lsmc->sk);
	sock_put(sk);
}

/* Backlog check, li->lock held: TCP admits backlog + 1 connections */
static bool smc_listen_full(struct smc_listen_info *li)
{
	lockdep_assert_held(&li->lock);
	return li->accept_q_len + li->in_handshake >
	       READ_ONCE(li->smc->sk.sk_max_ack_backlog);
}

/* May the accept worker start one more handshake?  li->lock held */
static bool smc_listen_busy(struct smc_listen_info *li)
{
	lockdep_assert_held(&li->lock);
	return li->in_handshake >= SMC_LISTEN_HS_MAX || smc_listen_full(li);
}

/*
 * TCP asks it for every SYN of our listening clcsock: with handshake
 * limitation on, a listener that has as many children waiting for or
 * in handshake, or waiting for accept(), as its backlog takes new
 * connections as plain TCP (its SYN-ACK goes without the SMC option),
 * rather than keeping them waiting for a handshake slot.  Softirq, RCU
 * read side.
 */
static bool smc_listen_congested(const struct sock *clcsk)
{
	struct smc_listen_info *li;
	struct smc_sock *lsmc;
	bool busy = false;

	rcu_read_lock();
	lsmc = smc_clcsk_owner(clcsk);
	li = lsmc ? READ_ONCE(lsmc->listen) : NULL;
	if (li && READ_ONCE(lsmc->limit_hs))
		busy = READ_ONCE(li->accept_q_len) +
		       READ_ONCE(li->in_handshake) +
		       READ_ONCE(clcsk->sk_ack_backlog) >=
		       READ_ONCE(lsmc->sk.sk_max_ack_backlog);
	rcu_read_unlock();
	return busy;
}

/* The end of a parked child's CLC wait */
static void smc_hs_timer_fn(struct timer_list *t)
{
	smc_listen_unpark(container_of(t, struct smc_sock, hs_timer));
}

static struct smc_sock *smc_listen_new_child(struct smc_sock *lsmc,
					     struct socket *newclc)
{
	struct sock *lsk = &lsmc->sk;
	struct smc_sock *child;
	struct sock *nsk;

	nsk = smc_child_alloc(lsk);
	if (!nsk)
		return NULL;
	/* its listener's owner's, as a TCP child's */
	nsk->sk_uid = lsk->sk_uid;
	child = smc_sk(nsk);
	child->clcsock = newclc;
	if (smc_clcsk_attach(child)) {
		smc_table_clear_clcsock(child);
		smc_table_del(child);
		sock_put(nsk);
		return NULL;
	}
	smc_copy_sock_settings_from_clc(child);
	sock_hold(lsk);
	child->listen_smc = lsmc;
	child->hs_deadline = jiffies + SMC_CLC_WAIT_TIME;
	timer_setup(&child->hs_timer, smc_hs_timer_fn, 0);
	return child;
}

static bool smc_tcp_accept_q_empty(struct smc_sock *lsmc)
{
	struct inet_connection_sock *icsk = inet_csk(lsmc->clcsock->sk);

	return reqsk_queue_empty(&icsk->icsk_accept_queue);
}

static bool smc_clcsk_has_input(const struct sock *clcsk);

/*
 * Park new @child for the claim of its client, which comes next.  The
 * timer is armed before the state says PARKED, so that whoever takes
 * the child after that finds it armed and stops it, as after
 * smc_hs_park(), which parks under the child's lock.  False if the
 * client sent something: the caller queues the handshake.
 */
static bool smc_hs_park_new(struct smc_sock *child)
{
	struct sock *clcsk = smc_clcsk(child);
	bool parked;

	/*
	 * Once parked, the child is no longer ours: an event on its
	 * clcsock may run the handshake, which may end the child and
	 * release the clcsock before we look.  Hold both for the look.
	 */
	sock_hold(&child->sk);
	sock_hold(clcsk);
	mod_timer(&child->hs_timer, child->hs_deadline);
	atomic_xchg(&child->hs_state, SMC_HS_PARKED);
	parked = !(smc_clcsk_has_input(clcsk) &&
		   smc_hs_move(child, SMC_HS_PARKED, SMC_HS_RUNNING));
	sock_put(clcsk);
	sock_put(&child->sk);
	return parked;
}

/*
 * Take the connections in TCP's accept queue that a handshake slot is
 * free for, each as a child with its handshake queued; but the child on
 * TCP socket @claim, which a client of this host is about to claim
 * (smc_rendezvous.c), parked: no worker would find anything left to do.
 * Its CLC wait's timer stands in, should the claim not come.  Listener
 * lock held.
 */
static void smc_listen_accept_pending(struct smc_sock *lsmc,
				      const struct sock *claim)
{
	struct smc_listen_info *li = lsmc->listen;
	struct sock *lsk = &lsmc->sk;
	struct socket *newclc;
	struct smc_sock *child;

	smc_owned_by_me(lsmc);
	while (lsk->sk_state == SMC_LISTEN) {
		spin_lock(&li->lock);
		WRITE_ONCE(li->stalled, smc_listen_busy(li));
		spin_unlock(&li->lock);
		if (li->stalled)
			break;

		/*
		 * kernel_accept() on an empty queue costs a socket made
		 * and freed; a child queued after this look kicks us again.
		 */
		if (smc_tcp_accept_q_empty(lsmc))
			break;
		if (kernel_accept(lsmc->clcsock, &newclc, O_NONBLOCK))
			break;	/* -EAGAIN: TCP's queue is empty */

		child = smc_listen_new_child(lsmc, newclc);
		if (!child) {
			sock_release(newclc);
			continue;
		}
		spin_lock(&li->lock);
		li->in_handshake++;
		spin_unlock(&li->lock);
		/* claimable from here on */
		if (newclc->sk != claim || !smc_hs_park_new(child))
			smc_hs_queue(child);
	}
}

static void smc_tcp_accept_work(struct work_struct *work)
{
	struct smc_listen_info *li = container_of(work, struct smc_listen_info,
						  tcp_accept_work);
	struct smc_sock *lsmc = li->smc;

	smc_rendezvous_work_ran(SMC_HS_WORK_ACCEPT);
	lock_sock(&lsmc->sk);
	smc_listen_accept_pending(lsmc, NULL);
	release_sock(&lsmc->sk);
	sock_put(&lsmc->sk);
}

/*
 * For a client of this host (smc_rendezvous.c), which holds the lock
 * of its own smc sock and a reference on @lsmc, and claims the child on
 * TCP socket @claim next (if any): take what waits in TCP's accept
 * queue now, rather than in the accept worker.
 */
void smc_listen_accept_now(struct smc_sock *lsmc, const struct sock *claim)
{
	lock_sock_nested(&lsmc->sk, SINGLE_DEPTH_NESTING);
	if (lsmc->listen)
		smc_listen_accept_pending(lsmc, claim);
	release_sock(&lsmc->sk);
}

/*
 * A client of this host about to rendezvous with a child of @lsmc (a
 * reference held) takes TCP's accept queue itself.  Its own last ACK
 * queues the child there and would wake the accept worker, which then
 * finds the queue taken: a worker's wake-up per connection for nothing.
 * So while such clients run, kicks of the worker only leave a mark,
 * and the last client to let go takes what is left in the queue.
 */
bool smc_listen_hold_kicks(struct smc_sock *lsmc)
{
	struct smc_listen_info *li = READ_ONCE(lsmc->listen);

	if (!li)
		return false;
	atomic_inc(&li->kick_holds);
	return true;
}

/*
 * Does listener @lsmc (held by smc_listen_hold_kicks()) take new
 * connections now: still listening, its queue not full?  A look
 * without its lock, for a client waiting for its child.
 */
bool smc_listen_takes_more(struct smc_sock *lsmc)
{
	return READ_ONCE(lsmc->sk.sk_state) == SMC_LISTEN &&
	       !READ_ONCE(lsmc->listen->stalled);
}

/* After smc_listen_hold_kicks() returned true: let go */
void smc_listen_release_kicks(struct smc_sock *lsmc)
{
	/* set once before it could be held, freed with the sock */
	struct smc_listen_info *li = lsmc->listen;

	/* both fully ordered: a kick that missed the count left its mark */
	if (atomic_dec_and_test(&li->kick_holds) &&
	    atomic_xchg(&li->kick_held, 0))
		smc_listen_accept_now(lsmc, NULL);
}

/*
 * The child on TCP socket @clcsk, if its handshake has not begun: taken
 * over, with the child's own reference, by a caller that does the
 * handshake itself and then, with the child locked, ends the claim
 * (smc_listen_claim_end()).  NULL if no child owns @clcsk yet, or one
 * still being set up (the accept worker's listener lock ends that),
 * ERR_PTR(-EBUSY) if one does that cannot be claimed.
 */
struct smc_sock *smc_listen_claim(struct sock *clcsk)
{
	struct smc_sock *child;

	rcu_read_lock();
	child = smc_tcp_sk_owner(clcsk);
	if (child && !READ_ONCE(child->listen_smc))
		child = ERR_PTR(-EBUSY);
	else if (child && atomic_read(&child->hs_state) == SMC_HS_NEW)
		child = NULL;
	else if (child &&
		 !smc_hs_move(child, SMC_HS_PARKED, SMC_HS_CLAIMED) &&
		 !smc_hs_move(child, SMC_HS_QUEUED, SMC_HS_CLAIMED))
		child = ERR_PTR(-EBUSY);
	rcu_read_unlock();
	return child;
}

/* Hand a child whose handshake is done to accept(), or drop it */
static void smc_accept_enqueue(struct smc_sock *child, bool ok)
{
	struct smc_sock *lsmc = child->listen_smc;
	struct smc_listen_info *li = lsmc->listen;
	bool queued = false, kick;

	/*
	 * Once queued, the child can be accepted and put its reference on
	 * the listener, and the listener be closed, before we wake it: our
	 * own keeps the listener until then.
	 */
	sock_hold(&lsmc->sk);
	spin_lock(&li->lock);
	li->in_handshake--;
	if (ok && !li->closed) {
		list_add_tail(&child->accept_node, &li->accept_q);
		li->accept_q_len++;
		queued = true;
	}
	/* a handshake slot is free: the worker may take the next child */
	kick = li->stalled && !smc_listen_busy(li);
	spin_unlock(&li->lock);

	if (kick)
		smc_listen_kick(lsmc);
	if (queued)
		lsmc->sk.sk_data_ready(&lsmc->sk);
	else
		smc_child_abort(child);
	sock_put(&lsmc->sk);
}

/*
 * A child whose client has sent nothing yet waits without a worker: its
 * clcsock's callbacks or the end of the CLC wait queue the work again,
 * and a client of this host may claim it meanwhile (smc_rendezvous.c).
 */
static bool smc_clcsk_has_input(const struct sock *clcsk)
{
	return !skb_queue_empty_lockless(&clcsk->sk_receive_queue) ||
	       READ_ONCE(clcsk->sk_err) ||
	       (READ_ONCE(clcsk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(clcsk->sk_state) != TCP_ESTABLISHED;
}

static bool smc_hs_has_input(struct smc_sock *child)
{
	return smc_clcsk_has_input(smc_clcsk(child));
}

/*
 * An event on the clcsock of @smc, softirq too: a parked child's work
 * goes back on the queue.  The exchange orders the event's cause (an
 * skb queued, a state changed) before the look at the state, against
 * smc_hs_park(), which parks before it looks for input.  The reference
 * is taken first: once QUEUED, a claim may take the child away.
 */
void smc_listen_unpark(struct smc_sock *smc)
{
	if (!READ_ONCE(smc->listen_smc) ||
	    atomic_read(&smc->hs_state) != SMC_HS_PARKED ||
	    !refcount_inc_not_zero(&smc->sk.sk_refcnt))
		return;
	if (!smc_hs_move(smc, SMC_HS_PARKED, SMC_HS_QUEUED) ||
	    !queue_work(smc_hs_wq, &smc->handshake_work))
		sock_put(&smc->sk);
}

/* Park @child, whose work runs, if its client sent nothing yet */
static bool smc_hs_park(struct smc_sock *child)
{
	if (smc_hs_has_input(child) ||
	    time_after_eq(jiffies, child->hs_deadline))
		return false;
	/* a full barrier: the state before the look, as in unpark */
	atomic_xchg(&child->hs_state, SMC_HS_PARKED);
	/* the first byte may have come in between: then not parked */
	if (smc_hs_has_input(child) &&
	    smc_hs_move(child, SMC_HS_PARKED, SMC_HS_RUNNING))
		return false;
	mod_timer(&child->hs_timer, child->hs_deadline);
	return true;
}

/* A child's handshake ended with @rc: on to accept(), or dropped */
static void smc_handshake_end(struct smc_sock *child, int rc)
{
	struct sock *sk = &child->sk;

	atomic_set(&child->hs_state, SMC_HS_DONE);
	if (rc)
		sk->sk_state = SMC_CLOSED;
	else if (sk->sk_state == SMC_INIT)
		sk->sk_state = SMC_ACTIVE;	/* SMC-D set its own */
	if (!rc)
		smc_clc_release_acks(smc_clcsk(child), child->use_fallback);
	release_sock(sk);

	/* a failed handshake (timeout, protocol error) drops the child */
	smc_accept_enqueue(child, !rc);
}

/*
 * May the client of @child do SMC: the SMC option in its SYN, or,
 * where TCP has none, a socket of ours at the other end on this host.
 */
static bool smc_listen_client_smc(struct smc_sock *child)
{
	struct sock *clcsk = smc_clcsk(child);

	if (SMC_TCP_OPTION)
		return smc_tcp_syn_smc(clcsk);
	return smc_rendezvous_client(clcsk);
}

void smc_handshake_work(struct work_struct *work)
{
	struct smc_sock *child = container_of(work, struct smc_sock,
					      handshake_work);
	bool syn_smc;
	int rc = 0;

	smc_rendezvous_work_ran(SMC_HS_WORK_HANDSHAKE);
	/* claimed, or a run that was pending already took it */
	if (!smc_hs_move(child, SMC_HS_QUEUED, SMC_HS_RUNNING))
		goto out;
	lock_sock(&child->sk);
	timer_delete_sync(&child->hs_timer);
	syn_smc = smc_listen_client_smc(child);
	if (syn_smc && smc_hs_park(child)) {
		release_sock(&child->sk);
		goto out;
	}
	/*
	 * A client without the SMC option in its SYN cannot do SMC; without
	 * TCP's option, only a claim by the client (smc_rendezvous.c) sets
	 * SMC up, and what comes instead is TCP.
	 */
	if (!syn_smc || !SMC_TCP_OPTION)
		smc_switch_to_fallback(child, SMC_CLC_DECL_PEERNOSMC);
	else if (!smc_hs_has_input(child))
		rc = -ETIMEDOUT;	/* the CLC wait is over */
	else
		rc = smc_listen_handshake(child);
	smc_handshake_end(child, rc);
out:
	sock_put(&child->sk);	/* this run's own reference */
}

/*
 * A claimed child whose client did its handshake: on to accept() when
 * @done, else back to the handshake queue, for the CLC exchange.  The
 * child is locked; the reference goes with it.
 */
void smc_listen_claim_end(struct smc_sock *child, bool done)
{
	/*
	 * Only now that we hold the child's lock: a handshake work that
	 * was parking it when we claimed it arms the timer after the
	 * state we took, and has released the lock since.
	 */
	timer_delete_sync(&child->hs_timer);
	if (done) {
		smc_stats_hs_done(child, true, SMC_V2);
		smc_handshake_end(child, 0);
		return;
	}
	release_sock(&child->sk);
	smc_hs_queue(child);
}

/*
 * Without TCP's SMC option, a claim whose set-up failed: no CLC exchange
 * can follow, so the child goes on over TCP, as its client does.  The
 * child is locked; the reference goes with it.
 */
void smc_listen_claim_fallback(struct smc_sock *child, u32 reason)
{
	timer_delete_sync(&child->hs_timer);
	smc_switch_to_fallback(child, reason);
	smc_handshake_end(child, 0);
}

int smc_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	struct smc_listen_info *li;
	int rc;

	lock_sock(sk);
	rc = -EINVAL;
	if ((sk->sk_state != SMC_INIT && sk->sk_state != SMC_LISTEN) ||
	    smc->connect_pending || smc->connect_inflight || !smc->clcsock)
		goto out;

	if (sk->sk_state == SMC_LISTEN) {
		/* a second listen() only changes the backlog */
		rc = kernel_listen(smc->clcsock, backlog);
		if (!rc) {
			WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
			/* a larger backlog may unblock a paused worker */
			smc_listen_kick(smc);
		}
		goto out;
	}

	if (smc->use_fallback) {
		/* TCP only (e.g. TCP_FASTOPEN was set): a plain listener */
		release_sock(sk);
		return kernel_listen(smc->clcsock, backlog);
	}

	rc = -ENOMEM;
	li = kzalloc(sizeof(*li), GFP_KERNEL);
	if (!li)
		goto out;
	li->smc = smc;
	spin_lock_init(&li->lock);
	INIT_LIST_HEAD(&li->accept_q);
	INIT_WORK(&li->tcp_accept_work, smc_tcp_accept_work);

	smc_copy_sock_settings_to_clc(smc);
	smc_tcp_set_syn_smc(smc->clcsock->sk, smc_syn_smc());
	smc_tcp_set_congested(smc->clcsock->sk, smc_listen_congested);
	rc = kernel_listen(smc->clcsock, backlog);
	if (rc) {
		kfree(li);
		goto out;
	}
	/* after listen, which resets TCP's ACK state */
	if (smc_tcp_syn_smc(smc->clcsock->sk))
		smc_clc_hold_acks(smc->clcsock->sk);
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	WRITE_ONCE(smc->listen, li);
	WRITE_ONCE(sk->sk_state, SMC_LISTEN);
	/*
	 * Connections that completed before the state was set: taken here,
	 * where the lock is ours already, rather than by a worker woken
	 * for a queue that is nearly always empty.  The barrier orders the
	 * state before the look at the queue, as queue_work() did.
	 */
	smp_mb();
	smc_listen_accept_pending(smc, NULL);
out:
	release_sock(sk);
	return rc;
}

static struct smc_sock *smc_accept_dequeue(struct smc_listen_info *li)
{
	struct smc_sock *child = NULL;
	bool kick;

	spin_lock(&li->lock);
	if (!list_empty(&li->accept_q)) {
		child = list_first_entry(&li->accept_q, struct smc_sock,
					 accept_node);
		list_del_init(&child->accept_node);
		li->accept_q_len--;
	}
	kick = child && li->stalled;
	spin_unlock(&li->lock);

	if (kick)
		smc_listen_kick(li->smc);
	return child;
}

static int smc_accept_wait(struct sock *lsk, long *timeo)
{
	struct smc_listen_info *li = smc_sk(lsk)->listen;
	DEFINE_WAIT(wait);
	int rc = 0;

	for (;;) {
		prepare_to_wait_exclusive(sk_sleep(lsk), &wait,
					  TASK_INTERRUPTIBLE);
		if (!READ_ONCE(li->accept_q_len) &&
		    lsk->sk_state == SMC_LISTEN) {
			release_sock(lsk);
			*timeo = schedule_timeout(*timeo);
			lock_sock(lsk);
		}
		if (READ_ONCE(li->accept_q_len))
			break;
		rc = -EINVAL;
		if (lsk->sk_state != SMC_LISTEN)
			break;
		rc = sock_intr_errno(*timeo);
		if (signal_pending(current))
			break;
		rc = -EAGAIN;
		if (!*timeo)
			break;
		rc = 0;
	}
	finish_wait(sk_sleep(lsk), &wait);
	return rc;
}

int smc_accept_common(struct socket *sock, struct socket *newsock,
		      int flags)
{
	struct sock *lsk = sock->sk;
	struct smc_sock *lsmc = smc_sk(lsk);
	struct smc_sock *child;
	struct sock *nsk;
	long timeo;
	int rc = 0;

	lock_sock(lsk);
	if (lsk->sk_state != SMC_LISTEN) {
		rc = -EINVAL;
		goto out;
	}
	timeo = sock_rcvtimeo(lsk, flags & O_NONBLOCK);
	while (!(child = smc_accept_dequeue(lsmc->listen))) {
		if (!timeo) {
			rc = -EAGAIN;
			goto out;
		}
		rc = smc_accept_wait(lsk, &timeo);
		if (rc)
			goto out;
	}
	release_sock(lsk);

	nsk = &child->sk;
	lock_sock(nsk);
	sock_graft(nsk, newsock);
	newsock->state = SS_CONNECTED;
	child->listen_smc = NULL;
	/* a TCP-only child's file goes straight to TCP from now on */
	smc_fallback_redirect(child);
	release_sock(nsk);
	sock_put(lsk);	/* the child's reference on its listener */
	return 0;
out:
	release_sock(lsk);
	return rc;
}

/* Release of a listener: no new children, queued ones are reset */
void smc_listen_stop(struct smc_sock *lsmc)
{
	struct smc_listen_info *li = lsmc->listen;
	struct sock *lsk = &lsmc->sk;
	struct smc_sock *child, *tmp;
	LIST_HEAD(drop);

	lock_sock(lsk);
	lsk->sk_state = SMC_CLOSED;
	spin_lock(&li->lock);
	li->closed = true;
	list_splice_init(&li->accept_q, &drop);
	li->accept_q_len = 0;
	spin_unlock(&li->lock);
	release_sock(lsk);

	if (cancel_work_sync(&li->tcp_accept_work))
		sock_put(lsk);
	/* children still in handshake see li->closed and abort themselves */
	list_for_each_entry_safe(child, tmp, &drop, accept_node) {
		list_del_init(&child->accept_node);
		smc_child_abort(child);
	}
}
