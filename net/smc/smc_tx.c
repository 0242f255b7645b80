// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: sending over an SMC connection.
 *
 * Both transports look the same from here: sendmsg copies the
 * application's bytes into a send ring (the peer's DMB itself on SMC-D
 * no-copy, our send buffer on SMC-R, sized like the peer's RMB so that
 * offsets match), then publishes the new producer cursor: a header
 * written into the peer's DMB, or RDMA writes chained with a CDC
 * message (the connection's ops).
 * Messages are ordered by the connection's tx_lock; an SMC-D doorbell
 * is rung after it is dropped.  Corking and autocorking hold small
 * writes back; the window widens for a reader that keeps up; the pages
 * of an idle paged ring go back.
 */

#include <linux/net.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_conn.h"
#include "smc_core.h"
#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smc_stats.h"

/*
 * The transport's part of publishing our cursors: reserve what the
 * message needs (may sleep), write it (tx_lock held), ring the
 * doorbell (after tx_lock).
 */
static inline int smc_tx_prepare(struct smc_sock *smc, bool killable)
{
	const struct smc_conn_ops *ops = smc->conn.ops;

	return ops->tx_prepare ? ops->tx_prepare(smc, killable) : 0;
}

static inline void smc_tx_write(struct smc_sock *smc)
{
	smc->conn.ops->tx_write(smc);
}

static inline void smc_tx_done(struct smc_sock *smc)
{
	const struct smc_conn_ops *ops = smc->conn.ops;

	if (ops->tx_done)
		ops->tx_done(smc);
}

/*
 * Tell the peer our cursors and flags.  The transport may first have to
 * reserve a send slot (SMC-R), which may sleep; the message itself is
 * built and posted under tx_lock, so that messages go out in the order
 * of the cursors they carry.
 */
void smc_tx_publish(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;

	if (!smc_ring_set(&c->tx) || smc_tx_prepare(smc, false))
		return;
	spin_lock_bh(&c->tx_lock);
	smc_tx_write(smc);
	spin_unlock_bh(&c->tx_lock);
	smc_tx_done(smc);
}

/* Add connection-state flags @flags (sticky) and tell the peer */
void smc_send_conn_flags(struct smc_sock *smc, u8 flags)
{
	struct smc_conn *c = &smc->conn;

	if (!flags)
		return;
	spin_lock_bh(&c->tx_lock);
	c->tx_conn_flags |= flags;
	spin_unlock_bh(&c->tx_lock);
	smc_tx_publish(smc);
}

/* Bytes produced that the peer was not told of yet; sock lock held */
static u32 smc_tx_unsent(struct smc_conn *c)
{
	smc_owned_by_me(container_of(c, struct smc_sock, conn));
	return smc_curs_diff(c->tx_ring, &c->tx_prod_sent, &c->tx_prod);
}

/* Publish data held back by corking */
void smc_tx_flush(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	bool held;

	spin_lock_bh(&c->tx_lock);
	held = !smc_curs_equal(&c->tx_prod, &c->tx_prod_sent);
	spin_unlock_bh(&c->tx_lock);
	if (held)
		smc_tx_publish(smc);
}

/*
 * Autocorking (SMC-R): a small write while a CDC of ours is still in
 * flight waits for its completion and goes out with what follows it,
 * up to net.smc.autocorking_size bytes (at most half the ring).  Many
 * small sends so cost one RDMA write and one CDC per round trip of the
 * device, not one each.  SMC-D writes are synchronous: nothing to wait
 * for.
 */
static bool smc_tx_autocork(struct smc_sock *smc, const struct msghdr *msg,
			    u32 unsent, u32 room)
{
	struct smc_conn *c = &smc->conn;
	u32 limit;

	if (!c->ops->autocork || !room || (msg->msg_flags & MSG_OOB))
		return false;
	limit = smc_net_autocork_size(sock_net(&smc->sk));
	limit = min(limit, c->tx_ring / 2);
	return unsent < limit &&
	       READ_ONCE(c->cdc_tx_done) != READ_ONCE(c->cdc_tx_seq);
}

/*
 * Hold data back by autocorking.  Either the completion sees the flag
 * or we see the completion (the barriers pair): false when it came
 * meanwhile, and the data must go now.
 */
static bool smc_tx_autocork_hold(struct smc_conn *c)
{
	WRITE_ONCE(c->tx_autocorked, true);
	smp_mb();	/* flag before the look; pairs with smc_tx_cdc_done() */
	if (READ_ONCE(c->cdc_tx_done) != READ_ONCE(c->cdc_tx_seq))
		return true;
	WRITE_ONCE(c->tx_autocorked, false);
	return false;
}

/* Completion of our CDC @seq (SMC-R, any context) */
void smc_tx_cdc_done(struct smc_sock *smc, u16 seq)
{
	struct smc_conn *c = &smc->conn;

	WRITE_ONCE(c->cdc_tx_done, seq);
	smp_mb();	/* done before the flag; pairs with the hold */
	/* the held data waits for the last CDC in flight */
	if (!READ_ONCE(c->tx_autocorked) || seq != READ_ONCE(c->cdc_tx_seq))
		return;
	if (!refcount_inc_not_zero(&smc->sk.sk_refcnt))
		return;
	if (!queue_work(smc_wq, &c->tx_work))
		sock_put(&smc->sk);
}

/* Send what autocorking held back, unless the socket is gone */
static void smc_tx_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock,
					    conn.tx_work);
	struct sock *sk = &smc->sk;

	lock_sock(sk);
	if (READ_ONCE(smc->conn.tx_autocorked) &&
	    !sock_flag(sk, SOCK_DEAD)) {
		WRITE_ONCE(smc->conn.tx_autocorked, false);
		smc_tx_flush(smc);
	}
	release_sock(sk);
	sock_put(sk);
}

/*
 * An SMC-D ring's pages exist while data is in flight: once the sender
 * has not written for SMC_RING_IDLE, the pages that hold no unread byte
 * go back.  One timer per connection, armed by the first write after an
 * idle spell and pushed back by the work itself while writes go on, so
 * that a busy sender pays a store and a test per call.  Pages the peer
 * has not read yet are looked at again, each time twice as late (up to
 * 64 times SMC_RING_IDLE), so that a peer that stopped reading costs
 * next to nothing.
 */
#define SMC_RING_IDLE		HZ
#define SMC_RING_BACKOFF_MAX	6

/* After a write into a paged ring; smc sock lock held */
static void smc_tx_trim_arm(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;

	WRITE_ONCE(c->tx_last, jiffies);
	if (delayed_work_pending(&c->tx_trim))
		return;
	sock_hold(&smc->sk);
	if (!queue_delayed_work(smc_wq, &c->tx_trim, SMC_RING_IDLE))
		sock_put(&smc->sk);
}

/* Bytes we wrote that the peer had not read at its consumer cursor @cons */
static inline u32 smc_tx_used(const struct smc_conn *c,
			      const struct smc_cursor *cons)
{
	return smc_curs_diff(c->tx_ring, cons, &c->tx_prod);
}

static void smc_tx_trim_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(to_delayed_work(work),
					    struct smc_sock, conn.tx_trim);
	struct smc_conn *c = &smc->conn;
	struct sock *sk = &smc->sk;
	unsigned long now, delay;
	struct smc_cursor cons;

	lock_sock(sk);
	/* the ring is cleared under this lock when the connection goes */
	if (!c->tx.pg)
		goto out;
	now = jiffies;
	delay = READ_ONCE(c->tx_last) + SMC_RING_IDLE - now;
	if (delay && delay <= SMC_RING_IDLE) {
		/* written since: idle long enough only later */
		c->tx_trim_backoff = 0;
	} else {
		cons = smc_rx_curs(c, &c->peer_cons);
		if (!smc_ring_trim(&c->tx, c->tx_ring, cons.count,
				   smc_tx_used(c, &cons)))
			goto out;
		if (c->tx_trim_backoff < SMC_RING_BACKOFF_MAX)
			c->tx_trim_backoff++;
		delay = SMC_RING_IDLE << c->tx_trim_backoff;
	}
	/* our reference goes with the work queued again, unless a write
	 * queued it while we waited for the lock (with its own)
	 */
	if (queue_delayed_work(smc_wq, &c->tx_trim, delay)) {
		release_sock(sk);
		return;
	}
out:
	c->tx_trim_backoff = 0;
	release_sock(sk);
	sock_put(sk);
}

/* The connection goes: no trim after this; smc sock lock held */
void smc_tx_trim_cancel(struct smc_sock *smc)
{
	if (cancel_delayed_work(&smc->conn.tx_trim))
		sock_put(&smc->sk);
}

/* Of the peer's window, what @used bytes in flight leave */
static u32 smc_tx_room(struct smc_conn *c, u32 used)
{
	u32 win = smc_ring_window(&c->tx, c->tx_ring);

	return used < win ? win - used : 0;
}

/* Room past @cons, a consumer cursor of the peer's we looked at */
static inline u32 smc_tx_room_at(struct smc_conn *c,
				 const struct smc_cursor *cons)
{
	return smc_tx_room(c, smc_tx_used(c, cons));
}

/* Bytes we may still write into the peer's ring; every send asks */
static inline u32 smc_tx_space(struct smc_conn *c)
{
	struct smc_cursor cons = smc_rx_curs(c, &c->peer_cons);

	return smc_tx_room_at(c, &cons);
}

/*
 * An SMC-D ring's window grows the way TCP's receive buffer does: with
 * a sender that keeps finding it full.  The DMB is the largest there is
 * unless an application chose a size (smcd_conn_register()), and its
 * pages only hold the window.  A sender that wants to widen writes no
 * further than where old and new fold agree, and doubles the fold as
 * soon as all it has in flight sits there (smc_ring_fold.h): no byte
 * moves, and the reader notices nothing but a larger window.  Once at
 * the top, or for a sender whose application chose SO_SNDBUF, never.
 */
static void smc_tx_want_widen(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;

	if (!(smc->sk.sk_userlocks & SOCK_SNDBUF_LOCK) &&
	    smc_ring_may_widen(&c->tx, c->tx_ring))
		c->tx_widen = true;
}

/* Widen the window if the bytes in flight allow; room for one write */
static u32 smc_tx_widen(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smc_cursor cons = smc_rx_curs(c, &c->peer_cons);
	u32 used = smc_tx_used(c, &cons);
	u32 fold = c->tx.pg->fold;

	if (smc_ring_widen(&c->tx, c->tx_ring, cons.count, used)) {
		c->tx_widen = false;
		WRITE_ONCE(c->tx_fold, 2 * fold);
		if (!(smc->sk.sk_userlocks & SOCK_SNDBUF_LOCK))
			WRITE_ONCE(smc->sk.sk_sndbuf, 4 * fold);
		return smc_tx_room(c, used);
	}
	return min(smc_tx_room(c, used),
		   smc_fold_widen_room(fold, c->tx_prod.count));
}

/*
 * No room: ask the receive handler for a write-space wake-up.  The
 * caller looks at the room again after this (the barrier orders the
 * bit before that look), so room freed in between is never missed.
 */
static void smc_tx_want_space(struct smc_conn *c)
{
	set_bit(SMC_TX_NOSPACE, &c->tx_flags);
	/* pairs with the full barrier of the handler's test_and_clear */
	smp_mb__after_atomic();
}

/* poll: room, or a wake-up asked for when room comes */
bool smc_tx_writable(struct smc_conn *c)
{
	if (smc_tx_space(c))
		return true;
	smc_tx_want_space(c);
	return smc_tx_space(c);
}

static int smc_copy_in(struct smc_conn *c, struct msghdr *msg, u32 n)
{
	u32 off = c->tx_prod.count;
	u32 first = min(n, c->tx_ring - off);
	int rc;

	rc = smc_ring_copy_in(&c->tx, off, &msg->msg_iter, first);
	if (!rc && n > first)
		rc = smc_ring_copy_in(&c->tx, 0, &msg->msg_iter, n - first);
	return rc;
}

/*
 * Producer flags of a push.  With MSG_OOB the last byte of the call is
 * the urgent byte: urgent-pending until it is written, urgent-present
 * on the push that ends with it.  The flags stay in our header until
 * the next push; the receiver knows a repeat by its producer cursor.
 * tx_lock held.
 */
static void smc_tx_flags(struct smc_conn *c, bool more, bool oob)
{
	u8 f;

	lockdep_assert_held(&c->tx_lock);
	f = c->tx_prod_flags & ~(SMC_CDC_PF_WRITE_BLOCKED |
				 SMC_CDC_PF_URG_PENDING |
				 SMC_CDC_PF_URG_PRESENT);
	if (more)
		f |= SMC_CDC_PF_WRITE_BLOCKED;
	if (oob)
		f |= SMC_CDC_PF_URG_PENDING |
		     (more ? 0 : SMC_CDC_PF_URG_PRESENT);
	c->tx_prod_flags = f;
}

/*
 * MSG_MORE or TCP_CORK: the header that announces the data waits for
 * the next write, as long as the peer's ring has room for it (@room,
 * what is left after this push).
 */
static bool smc_tx_corked(struct smc_sock *smc, const struct msghdr *msg,
			  u32 room)
{
	struct sock *clcsk = smc_clcsk(smc);

	if (msg->msg_flags & MSG_OOB)
		return false;
	/* a racy look at TCP's cork bit: at worst one header early */
	if (!(msg->msg_flags & MSG_MORE) &&
	    !(clcsk && (tcp_sk(clcsk)->nonagle & TCP_NAGLE_CORK)))
		return false;
	return room > 0;
}

int smc_conn_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smc_conn *c = &smc->conn;
	bool waiting = false, more, publish;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	long timeo;
	int rc = 0;
	u32 space, n;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	while (copied < len) {
		if (sk->sk_err) {
			rc = sock_error(sk);
			break;
		}
		if ((sk->sk_shutdown & SEND_SHUTDOWN) || smc_peer_gone(c) ||
		    !smc_ring_set(&c->tx)) {
			rc = -EPIPE;
			break;
		}
		space = c->tx_widen ? smc_tx_widen(smc) : smc_tx_space(c);
		if (!space) {
			if (!waiting)
				smc_stats_tx_full(smc, true);
			smc_tx_want_widen(smc);
			/* the peer must see what was held back, or never read */
			smc_tx_flush(smc);
			c->tx_prod_flags |= SMC_CDC_PF_WRITE_BLOCKED;
			smc_tx_want_space(c);
			rc = smc_may_sleep(timeo);
			if (rc)
				break;
			/* on the queue only to sleep: most calls never do */
			if (!waiting) {
				add_wait_queue(sk_sleep(sk), &wait);
				waiting = true;
			}
			sk_wait_event(sk, &timeo, smc_tx_space(c) ||
				      READ_ONCE(sk->sk_err) ||
				      smc_peer_gone(c), &wait);
			continue;
		}
		n = min_t(size_t, space, len - copied);
		rc = smc_copy_in(c, msg, n);
		if (rc)
			break;
		more = n < len - copied;
		copied += n;
		/* the room seen before the copy: the peer only adds to it */
		publish = more || !smc_tx_corked(smc, msg, space - n);
		if (publish && !more &&
		    smc_tx_autocork(smc, msg, smc_tx_unsent(c) + n, space - n))
			publish = !smc_tx_autocork_hold(c);
		else if (publish)
			WRITE_ONCE(c->tx_autocorked, false);
		/* a transport that cannot send any more has failed us */
		rc = publish ? smc_tx_prepare(smc, true) : 0;
		if (rc) {
			copied -= n;
			break;
		}
		/* cursor, flags and message in one go, the doorbell after */
		spin_lock_bh(&c->tx_lock);
		smc_curs_add(c->tx_ring, &c->tx_prod, n);
		smc_tx_flags(c, more, msg->msg_flags & MSG_OOB);
		if (publish)
			smc_tx_write(smc);
		spin_unlock_bh(&c->tx_lock);
		if (publish)
			smc_tx_done(smc);
	}
	if (waiting)
		remove_wait_queue(sk_sleep(sk), &wait);
	if (copied && c->tx.pg)
		smc_tx_trim_arm(smc);
	release_sock(sk);

	if (copied)
		return copied;
	if (rc == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return rc;
}

/* The send side's work items of a new connection */
void smc_tx_init(struct smc_conn *c)
{
	INIT_WORK(&c->tx_work, smc_tx_work);
	INIT_DELAYED_WORK(&c->tx_trim, smc_tx_trim_work);
}
