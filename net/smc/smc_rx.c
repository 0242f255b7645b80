// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: receiving over an SMC connection.
 *
 * The transport's receive handler feeds the peer's cursors and flags
 * in through smc_conn_rx_cdc().  recvmsg and splice copy from our own
 * buffer and, when the protocol's consumer-update rule says so,
 * publish our consumer cursor the way a send publishes its producer
 * cursor.  Urgent data behaves as TCP's does.
 */

#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/pipe_fs_i.h>
#include <linux/splice.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_conn.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smc_stats.h"

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
	if (urgent) {
		/*
		 * The file and its owner go once the socket is orphaned,
		 * which happens under this lock: not while we signal.
		 */
		read_lock_bh(&sk->sk_callback_lock);
		sk_send_sigurg(sk);
		read_unlock_bh(&sk->sk_callback_lock);
	}
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

/* Bytes the peer produced that are not read yet, from @cons on */
static u32 smc_rx_avail(struct smc_conn *c, const struct smc_cursor *cons)
{
	struct smc_cursor prod = smc_rx_curs(c, &c->peer_prod);

	return min(smc_curs_diff(c->rmb_ring, cons, &prod), c->rmb_ring);
}

/*
 * Normal data ahead of @v's reader: an urgent byte read apart is none,
 * and a replaced one at the reader's place (the next read steps over
 * it) is gone, as TCP drops it when the new urgent pointer comes.
 */
u32 smc_rx_normal(struct sock *sk, const struct smc_rx_view *v)
{
	u32 skip = smc_rx_skipped(v), n = v->avail - skip;

	if (v->to_mark - skip < n && !sock_flag(sk, SOCK_URGINLINE))
		return n - 1;
	return n;
}

/*
 * SO_RCVLOWAT or MSG_WAITALL as TCP applies them.  A reader that
 * consumes as it waits (@consumes) makes room for the peer to produce
 * more: it waits for all it asked.  A peek or poll never waits for more
 * than the window, which is all the peer can produce before we read.
 */
int smc_rcv_target(struct sock *sk, struct smc_conn *c, bool waitall,
		   size_t len, bool consumes)
{
	int target = sock_rcvlowat(sk, waitall, len);

	if (consumes)
		return target;
	return min_t(int, target, smc_ring_window(&c->rx, c->rmb_ring));
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
				       past_mark || past_hole, c->rx.pg))
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

/*
 * recvmsg on an SMC connection; *@seen (if @seen) gets the bytes there
 * were at the first look, for the statistics.
 */
int smc_conn_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		     int flags, u32 *seen)
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
		if (seen) {
			*seen = v.avail;
			seen = NULL;
		}
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
		/*
		 * A quarter of the window at a time: the writer, told of
		 * the room after each, fills it while we copy the rest,
		 * instead of waiting for a whole window to be read.
		 */
		n = min(n, smc_ring_window(&c->rx, c->rmb_ring) / 4);
		rc = smc_copy_out(c, msg, &cons, n);
		if (rc)
			break;
		smc_curs_add(c->rmb_ring, &cons, n);
		copied += n;
		if (v.to_mark < n)
			past_mark = true;
		if (!peek)
			smc_rx_consumed(smc, &cons, v.to_mark < n, false);
		/*
		 * A full buffer ends the read without another look: a hole
		 * it stopped at is stepped over by the next read, which
		 * starts there (a hole is only ever made at rx_cons).
		 */
		if (copied >= len)
			break;
	}
	if (waiting)
		remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	return copied ? copied : rc;
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
	rc = smc_conn_recvmsg(smc, &msg, len, nonblock ? MSG_DONTWAIT : 0,
			      NULL);

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
