// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: moving data over an SMC connection.
 *
 * The socket calls of a connection that runs over SMC-D or SMC-R.
 * Both transports look the same from here: sendmsg copies the
 * application's bytes into a send ring (the peer's DMB itself on SMC-D
 * no-copy, our send buffer on SMC-R, sized like the peer's RMB so
 * that offsets match), then publishes the new producer cursor: a
 * header written into the peer's DMB, or RDMA writes chained with a
 * CDC message.  recvmsg copies from our own buffer and, when the
 * protocol's consumer-update rule says so, publishes its consumer
 * cursor the same way.  Messages are ordered by the connection's
 * tx_lock; an SMC-D doorbell is rung after it is dropped.  The
 * transport's receive handler feeds the peer's cursors in through
 * smc_conn_rx_cdc().
 */

#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/pipe_fs_i.h>
#include <linux/poll.h>
#include <linux/sockios.h>
#include <linux/splice.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <asm/ioctls.h>

#include "smc.h"
#include "smc_ism.h"

/*
 * A CDC with urgent-present and new data announces the byte before its
 * producer cursor; repeats of the same announcement are ignored.  No
 * ring (an SMC-D doorbell that raced the tear-down): no byte to take.
 * rx_lock held.
 */
static bool smc_rx_urgent(struct smc_sock *smc, const struct smc_cdc_view *h)
{
	struct smc_conn *c = &smc->conn;

	lockdep_assert_held(&c->rx_lock);
	if (!smc_ring_set(&c->rx) || !(h->prod_flags & SMC_CDC_PF_URG_PRESENT) ||
	    smc_curs_equal(&h->prod, &c->urg_prod))
		return false;
	/*
	 * A reader that stopped at the old mark never gets the old urgent
	 * byte as normal data (TCP steps over it here too); elsewhere in
	 * the stream it becomes normal data.
	 */
	if (c->urg_state != SMC_URG_NONE &&
	    !sock_flag(&smc->sk, SOCK_URGINLINE) &&
	    smc_curs_equal(&c->rx_cons, &c->urg_pos)) {
		c->urg_hole = c->urg_pos;
		c->urg_hole_set = true;
	}
	c->urg_prod = h->prod;
	c->urg_pos = h->prod;
	smc_curs_prev(c->rmb_ring, &c->urg_pos);
	/* the byte was written before the message that announces it */
	smp_rmb();
	c->urg_byte = smc_ring_byte(&c->rx, c->urg_pos.count);
	c->urg_state = SMC_URG_VALID;
	return true;
}

/*
 * Cursors that point outside the rings: the peer is broken.  (Readers
 * never take more than a ring's worth, whatever the distance.)
 */
static bool smc_rx_cdc_bad(const struct smc_conn *c,
			   const struct smc_cdc_view *h)
{
	return h->prod.count >= c->rmb_ring ||
	       (c->tx_ring && h->cons.count >= c->tx_ring);
}

/*
 * The peer freed room in its ring.  Only a writer that found it full
 * (sendmsg, or poll without EPOLLOUT) waits for that: everyone else is
 * spared a wake-up per message, as TCP spares them with SOCK_NOSPACE.
 * The bit is set before the writer looks at the room again, and the
 * room is published under rx_lock before we test it.
 */
static void smc_wake_writers(struct smc_sock *smc)
{
	if (test_and_clear_bit(SMC_TX_NOSPACE, &smc->conn.tx_flags)) {
		smc_stats_tx_full(smc, false);
		smc->sk.sk_write_space(&smc->sk);
	}
}

/*
 * The peer's cursors and flags arrived (SMC-D doorbell or SMC-R CDC):
 * take them in and wake who can make progress.  False when the CDC was
 * older than one taken already and so dropped: nothing it says holds.
 * Softirq or process context.
 */
bool smc_conn_rx_cdc(struct smc_sock *smc, const struct smc_cdc_view *in)
{
	bool urgent = false, abort = false, data = false, space = false;
	struct smc_conn *c = &smc->conn;
	struct sock *sk = &smc->sk;
	struct smc_cdc_view h = *in;
	u8 news;

	smc_rx_write_lock(c);
	if (h.has_seq) {
		/* a connection's CDCs may come over two links at once */
		if (c->cdc_rx_seq_valid &&
		    smc_cdc_seq_older(c->cdc_rx_seq, h.seq)) {
			smc_rx_write_unlock(c);
			return false;
		}
		c->cdc_rx_seq = h.seq;
		c->cdc_rx_seq_valid = true;
	}
	if (smc_rx_cdc_bad(c, &h)) {
		/* take nothing from it, treat it as an abort */
		h.conn_state_flags = SMC_CDC_CS_ABORT;
	} else {
		/*
		 * An SMC-R cursor never goes back.  After a failover
		 * upstream's end sends its producer cursor as its last
		 * completed CDC had it, behind what came over the failed
		 * link, until it has written those bytes again: taken, it
		 * would have us read a ring's worth of what is not there.
		 * (SMC-D's header holds the peer's cursors as they are.)
		 */
		if (h.has_seq && smc_curs_stale(&c->peer_prod, &h.prod))
			h.prod = c->peer_prod;
		if (h.has_seq && smc_curs_stale(&c->peer_cons, &h.cons))
			h.cons = c->peer_cons;
		data = !smc_curs_equal(&h.prod, &c->peer_prod);
		urgent = data && smc_rx_urgent(smc, &h);
		space = !smc_curs_equal(&h.cons, &c->peer_cons);
		c->peer_prod = h.prod;
		c->peer_cons = h.cons;
		c->peer_prod_flags = h.prod_flags;
	}
	/* the flags are sticky: only new ones move the close state */
	news = h.conn_state_flags & ~c->peer_conn_flags;
	if (news) {
		smc_fsm_peer(&c->fsm, news, false);
		WRITE_ONCE(sk->sk_state, c->fsm.state);
		/*
		 * The error before the flag is visible, so that a reader
		 * finding the abort finds the error too; reported once:
		 * a reader that consumed it sees end of stream next.
		 */
		if (news & SMC_CDC_CS_ABORT) {
			WRITE_ONCE(sk->sk_err, ECONNRESET);
			abort = true;
		}
		c->peer_conn_flags |= news;
	}
	smc_rx_write_unlock(c);

	if (abort)
		sk_error_report(sk);
	if (urgent)
		sk_send_sigurg(sk);
	/*
	 * Wake only who can make progress: readers for new data, writers
	 * that found no room for freed space, everyone for a change of
	 * the connection's state.
	 */
	if (news)
		sk->sk_state_change(sk);
	else if (data || urgent)
		sk->sk_data_ready(sk);
	if (space && !news)
		smc_wake_writers(smc);
	return true;
}

/* The transport-neutral state of a new connection */
static void smc_tx_work(struct work_struct *work);
static void smc_tx_trim_work(struct work_struct *work);

void smc_conn_init(struct smc_conn *c)
{
	INIT_WORK(&c->tx_work, smc_tx_work);
	INIT_DELAYED_WORK(&c->tx_trim, smc_tx_trim_work);
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

	if (!c->dev && !c->rlgr)
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
	if (c->rlgr)
		smcr_conn_release(smc);
	else
		smcd_conn_teardown(smc);
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

	if (!c->link || !room || (msg->msg_flags & MSG_OOB))
		return false;
	limit = READ_ONCE(smc_net(sock_net(&smc->sk))->autocorking_size);
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
				   smc_curs_diff(c->tx_ring, &cons,
						 &c->tx_prod)))
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

/* Bytes we may still write into the peer's ring */
static u32 smc_tx_space(struct smc_conn *c)
{
	struct smc_cursor cons = smc_rx_curs(c, &c->peer_cons);

	return smc_tx_room(c, smc_curs_diff(c->tx_ring, &cons, &c->tx_prod));
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
	u32 used = smc_curs_diff(c->tx_ring, &cons, &c->tx_prod);
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
static bool smc_tx_writable(struct smc_conn *c)
{
	if (smc_tx_space(c))
		return true;
	smc_tx_want_space(c);
	return smc_tx_space(c);
}

/* Bytes the peer produced that are not read yet, from @cons on */
static u32 smc_rx_avail(struct smc_conn *c, const struct smc_cursor *cons)
{
	struct smc_cursor prod = smc_rx_curs(c, &c->peer_prod);

	return min(smc_curs_diff(c->rmb_ring, cons, &prod), c->rmb_ring);
}

/* Bytes readable now, for the statistics (no lock: a glance) */
u32 smc_conn_readable(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;

	return smc_ring_set(&c->rx) ? smc_rx_avail(c, &c->rx_cons) : 0;
}

/* What a reader at @cons sees: bytes, and the distance to the mark */
struct smc_rx_view {
	u32	avail;
	u32	to_mark;	/* U32_MAX: no urgent byte ahead */
	u8	urg_state;
	u8	peer_flags;	/* taken with avail: EOF never hides data */
	bool	at_hole;	/* the reader is at a replaced urgent byte */
};

static void smc_rx_look(struct smc_conn *c, const struct smc_cursor *cons,
			struct smc_rx_view *v)
{
	struct smc_cursor prod;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&c->rx_seq);
		prod = c->peer_prod;
		v->peer_flags = c->peer_conn_flags;
		v->at_hole = c->urg_hole_set &&
			     smc_curs_equal(cons, &c->urg_hole);
		v->urg_state = c->urg_state;
		/* while urgent state exists, rx_cons is not past the mark */
		v->to_mark = c->urg_state == SMC_URG_NONE ? U32_MAX :
			     smc_curs_diff(c->rmb_ring, cons, &c->urg_pos);
	} while (read_seqcount_retry(&c->rx_seq, seq));
	v->avail = min(smc_curs_diff(c->rmb_ring, cons, &prod), c->rmb_ring);
}

/* Normal data ahead of @v's reader: an urgent byte read apart is none */
static u32 smc_rx_normal(struct sock *sk, const struct smc_rx_view *v)
{
	if (v->to_mark < v->avail && !sock_flag(sk, SOCK_URGINLINE))
		return v->avail - 1;
	return v->avail;
}

/*
 * SO_RCVLOWAT or MSG_WAITALL as TCP applies them.  A reader that
 * consumes as it waits (@consumes) makes room for the peer to produce
 * more: it waits for all it asked.  A peek or poll never waits for more
 * than the window, which is all the peer can produce before we read.
 */
static int smc_rcv_target(struct sock *sk, struct smc_conn *c,
			  bool waitall, size_t len, bool consumes)
{
	int target = sock_rcvlowat(sk, waitall, len);

	if (consumes)
		return target;
	return min_t(int, target, smc_ring_window(&c->rx, c->rmb_ring));
}

static u8 smc_peer_flags(struct smc_conn *c)
{
	return READ_ONCE(c->peer_conn_flags);
}

/* The peer will write nothing more */
static bool smc_peer_done(struct smc_conn *c)
{
	return smc_peer_flags(c) & (SMC_CDC_CS_DONE_WRITING |
				     SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
}

/* The peer reads nothing more */
static bool smc_peer_gone(struct smc_conn *c)
{
	return smc_peer_flags(c) & (SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
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

static int smc_copy_out(struct smc_conn *c, struct msghdr *msg,
			const struct smc_cursor *cons, u32 n)
{
	u32 off = cons->count;
	u32 first = min(n, c->rmb_ring - off);
	int rc;

	rc = smc_ring_copy_out(&c->rx, off, &msg->msg_iter, first);
	if (!rc && n > first)
		rc = smc_ring_copy_out(&c->rx, 0, &msg->msg_iter, n - first);
	return rc;
}

/*
 * The reader consumed up to @cons.  Past the urgent byte, TCP forgets
 * its urgent data; past the hole of a replaced urgent byte, the hole
 * is gone.  rx_cons is written under rx_lock for the receive handler;
 * the same look at the peer's cursors decides whether to tell the peer
 * about the room (the protocol's consumer-update rule; an urgent byte
 * or a hole passed forces it).
 */
static void smc_rx_consumed(struct smc_sock *smc,
			    const struct smc_cursor *cons, bool past_mark,
			    bool past_hole)
{
	struct smc_conn *c = &smc->conn;
	u32 consumed, outstanding, win;
	struct smc_cursor prod;
	bool blocked;

	smc_rx_write_lock(c);
	c->rx_cons = *cons;
	if (past_mark)
		c->urg_state = SMC_URG_NONE;
	if (past_hole)
		c->urg_hole_set = false;
	prod = c->peer_prod;
	blocked = c->peer_prod_flags & SMC_CDC_PF_WRITE_BLOCKED;
	smc_rx_write_unlock(c);

	consumed = smc_curs_diff(c->rmb_ring, &c->rx_cons_sent, &c->rx_cons);
	/* up to the rule's least limit, only a forced update goes out */
	if (consumed <= SMC_CDC_UPD_LIMIT_MIN && !past_mark && !past_hole)
		return;
	outstanding = smc_curs_diff(c->rmb_ring, &c->rx_cons_sent, &prod);
	/* the room the peer may use is the window, not the whole ring */
	win = smc_ring_window(&c->rx, c->rmb_ring);
	if (c->rx.pg && win != c->rx_window)
		WRITE_ONCE(c->rx_window, win);
	if (smc_cdc_cons_update_needed(win, consumed, outstanding, blocked,
				       past_mark || past_hole))
		smc_tx_publish(smc);
}

/*
 * Step the reader at @cons over one byte that is not stream data: the
 * urgent byte at the mark (@mark), or a replaced one (the hole).
 */
static void smc_rx_skip(struct smc_sock *smc, struct smc_cursor *cons,
			bool peek, bool mark)
{
	smc_curs_add(smc->conn.rmb_ring, cons, 1);
	if (peek)
		return;
	smc_rx_consumed(smc, cons, mark, !mark);
}

/* recv(MSG_OOB): the urgent byte, once, unless it is read inline */
static int smc_recv_urg(struct smc_sock *smc, struct msghdr *msg,
			size_t len, int flags)
{
	struct smc_conn *c = &smc->conn;
	u8 state, byte;

	if (sock_flag(&smc->sk, SOCK_URGINLINE))
		return -EINVAL;
	smc_rx_write_lock(c);
	state = c->urg_state;
	byte = c->urg_byte;
	if (state == SMC_URG_VALID && !(flags & MSG_PEEK))
		c->urg_state = SMC_URG_READ;
	smc_rx_write_unlock(c);
	if (state != SMC_URG_VALID)
		return -EINVAL;

	msg->msg_flags |= MSG_OOB;
	if (!len) {
		msg->msg_flags |= MSG_TRUNC;
		return 0;
	}
	if (!(flags & MSG_TRUNC) && memcpy_to_msg(msg, &byte, 1))
		return -EFAULT;
	return 1;
}

/*
 * Nothing to read in view @v: 1 to stop with what we have, 0 to wait,
 * or an error.  The peer's flags come from the same snapshot as the
 * empty ring, so data that came with its close is never missed.
 */
static int smc_recv_idle(struct smc_sock *smc, const struct smc_rx_view *v,
			 size_t copied, int target)
{
	struct sock *sk = &smc->sk;

	if (copied >= target)
		return 1;
	/* as TCP: end of stream before an error that came after it */
	if (v->peer_flags & (SMC_CDC_CS_DONE_WRITING | SMC_CDC_CS_CLOSED))
		return 1;
	if (sk->sk_err)
		return copied ? 1 : sock_error(sk);
	if ((v->peer_flags & SMC_CDC_CS_ABORT) ||
	    (sk->sk_shutdown & RCV_SHUTDOWN))
		return 1;
	return 0;
}

int smc_conn_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		     int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smc_conn *c = &smc->conn;
	bool past_mark = false, past_hole = false;
	bool peek = flags & MSG_PEEK;
	struct sock *sk = &smc->sk;
	bool waiting = false;
	struct smc_rx_view v;
	struct smc_cursor cons;
	size_t copied = 0;
	int rc = 0, target;
	long timeo;
	u32 n;

	if (flags & MSG_OOB)
		return smc_recv_urg(smc, msg, len, flags);
	if (!smc_ring_set(&c->rx))
		return -ENOTCONN;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = smc_rcv_target(sk, c, flags & MSG_WAITALL, len, !peek);
	cons = c->rx_cons;
	for (;;) {
		smc_rx_look(c, &cons, &v);
		if (past_mark)
			v.to_mark = U32_MAX;
		if (v.avail && v.at_hole && !past_hole) {
			/* a replaced urgent byte: never normal data */
			smc_rx_skip(smc, &cons, peek, false);
			past_hole = true;
			continue;
		}
		if (v.avail && !v.to_mark) {
			/* reads stop at the urgent mark */
			if (copied)
				break;
			if (!sock_flag(sk, SOCK_URGINLINE)) {
				/* not part of the stream: step over it */
				smc_rx_skip(smc, &cons, peek, true);
				past_mark = true;
				continue;
			}
		}
		if (!v.avail) {
			rc = smc_recv_idle(smc, &v, copied, target);
			if (rc) {
				rc = rc > 0 ? 0 : rc;
				break;
			}
			rc = smc_may_sleep(timeo);
			if (rc)
				break;
			if (!waiting) {
				add_wait_queue(sk_sleep(sk), &wait);
				waiting = true;
			}
			sk_wait_event(sk, &timeo, smc_rx_avail(c, &cons) ||
				      smc_peer_done(c) ||
				      READ_ONCE(sk->sk_err), &wait);
			continue;
		}
		if (copied >= len)
			break;
		/* the cursor was read before the data it covers */
		smp_rmb();
		n = min_t(size_t, v.avail, len - copied);
		if (v.to_mark)
			n = min(n, v.to_mark);
		rc = smc_copy_out(c, msg, &cons, n);
		if (rc)
			break;
		smc_curs_add(c->rmb_ring, &cons, n);
		copied += n;
		if (v.to_mark < n)
			past_mark = true;
		if (peek)
			continue;
		smc_rx_consumed(smc, &cons, v.to_mark < n, false);
	}
	if (waiting)
		remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	return copied ? copied : rc;
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
			answ = v.urg_state != SMC_URG_NONE && !v.to_mark;
		}
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return put_user(answ, (int __user *)arg);
}

#define SMC_SPLICE_PAGES	16

static void smc_spd_release(struct splice_pipe_desc *spd, unsigned int i)
{
	put_page(spd->pages[i]);
}

/*
 * splice() out of the socket: read into fresh pages and hand them to
 * the pipe.  The pipe is locked by the caller, so the room we see is
 * the room we get.
 */
ssize_t smc_conn_splice_read(struct smc_sock *smc, struct pipe_inode_info *pipe,
			     size_t len, bool nonblock)
{
	struct partial_page partial[SMC_SPLICE_PAGES];
	struct bio_vec bvec[SMC_SPLICE_PAGES];
	struct page *pages[SMC_SPLICE_PAGES];
	struct splice_pipe_desc spd = {
		.pages		= pages,
		.partial	= partial,
		.nr_pages_max	= SMC_SPLICE_PAGES,
		.ops		= &nosteal_pipe_buf_ops,
		.spd_release	= smc_spd_release,
	};
	struct msghdr msg = {};
	unsigned int room, i, n;
	ssize_t rc;

	room = pipe->max_usage - pipe_occupancy(pipe->head, pipe->tail);
	n = min_t(size_t, min_t(unsigned int, room, SMC_SPLICE_PAGES),
		  DIV_ROUND_UP(len, PAGE_SIZE));
	if (!n)
		return len ? -EAGAIN : 0;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i])
			break;
		bvec[i].bv_page = pages[i];
		bvec[i].bv_offset = 0;
		bvec[i].bv_len = PAGE_SIZE;
	}
	n = i;
	if (!n)
		return -ENOMEM;
	len = min_t(size_t, len, n * PAGE_SIZE);
	iov_iter_bvec(&msg.msg_iter, ITER_DEST, bvec, n, len);
	rc = smc_conn_recvmsg(smc, &msg, len, nonblock ? MSG_DONTWAIT : 0);

	for (i = 0; i < n; i++) {
		if (rc > 0 && i * PAGE_SIZE < rc) {
			partial[i].offset = 0;
			partial[i].len = min_t(size_t, PAGE_SIZE,
					       rc - i * PAGE_SIZE);
			spd.nr_pages++;
		} else {
			put_page(pages[i]);
		}
	}
	if (rc <= 0)
		return rc;
	return splice_to_pipe(pipe, &spd);
}
