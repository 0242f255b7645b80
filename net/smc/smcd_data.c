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

static void *smcd_ring(struct smcd_dmb *dmb)
{
	return dmb->cpu_addr + SMCD_DMB_HDR_LEN;
}

/* Write our cursors and flags into the peer's DMB header; tx_lock held */
static void smcd_write_header(struct smcd_conn *c, struct smcd_dmb *peer)
{
	struct smcd_cdc_hdr h = {};

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
	c->tx_prod_sent = h.prod;
}

/* Publish our cursors and flags in the peer's DMB, ring its doorbell */
void smcd_send_header(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	struct smcd_dmb *peer = c->peer;

	if (!peer)
		return;
	spin_lock_bh(&c->tx_lock);
	smcd_write_header(c, peer);
	spin_unlock_bh(&c->tx_lock);
	smcd_dmb_signal(peer);
}

/* Add connection-state flags @flags (sticky) and tell the peer */
void smcd_send_conn_flags(struct smc_sock *smc, u8 flags)
{
	struct smcd_conn *c = &smc->smcd;

	if (!flags)
		return;
	spin_lock_bh(&c->tx_lock);
	c->tx_conn_flags |= flags;
	spin_unlock_bh(&c->tx_lock);
	smcd_send_header(smc);
}

/* Publish data held back by corking */
void smcd_tx_flush(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	bool held;

	spin_lock_bh(&c->tx_lock);
	held = !smc_curs_equal(&c->tx_prod, &c->tx_prod_sent);
	spin_unlock_bh(&c->tx_lock);
	if (held)
		smcd_send_header(smc);
}

/* One cursor of the receive state (@src in @c), read without rx_lock */
static struct smc_cursor smcd_rx_curs(struct smcd_conn *c,
				      const struct smc_cursor *src)
{
	struct smc_cursor curs;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&c->rx_seq);
		curs = *src;
	} while (read_seqcount_retry(&c->rx_seq, seq));
	return curs;
}

/* Bytes we may still write into the peer's ring */
static u32 smcd_tx_space(struct smcd_conn *c)
{
	struct smc_cursor cons = smcd_rx_curs(c, &c->peer_cons);

	return smc_curs_free(c->tx_ring, &cons, &c->tx_prod);
}

/*
 * No room: ask the receive handler for a write-space wake-up.  The
 * caller looks at the room again after this (the barrier orders the
 * bit before that look), so room freed in between is never missed.
 */
static void smcd_tx_want_space(struct smcd_conn *c)
{
	set_bit(SMCD_TX_NOSPACE, &c->tx_flags);
	/* pairs with the full barrier of the handler's test_and_clear */
	smp_mb__after_atomic();
}

/* poll: room, or a wake-up asked for when room comes */
static bool smcd_tx_writable(struct smcd_conn *c)
{
	if (smcd_tx_space(c))
		return true;
	smcd_tx_want_space(c);
	return smcd_tx_space(c);
}

/* Bytes the peer produced that are not read yet, from @cons on */
static u32 smcd_rx_avail(struct smcd_conn *c, const struct smc_cursor *cons)
{
	struct smc_cursor prod = smcd_rx_curs(c, &c->peer_prod);

	return min(smc_curs_diff(c->rmb_ring, cons, &prod), c->rmb_ring);
}

/* What a reader at @cons sees: bytes, and the distance to the mark */
struct smcd_rx_view {
	u32	avail;
	u32	to_mark;	/* U32_MAX: no urgent byte ahead */
	u8	urg_state;
	u8	peer_flags;	/* taken with avail: EOF never hides data */
	bool	at_hole;	/* the reader is at a replaced urgent byte */
};

static void smcd_rx_look(struct smcd_conn *c, const struct smc_cursor *cons,
			 struct smcd_rx_view *v)
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
		v->to_mark = c->urg_state == SMCD_URG_NONE ? U32_MAX :
			     smc_curs_diff(c->rmb_ring, cons, &c->urg_pos);
	} while (read_seqcount_retry(&c->rx_seq, seq));
	v->avail = min(smc_curs_diff(c->rmb_ring, cons, &prod), c->rmb_ring);
}

/* Normal data ahead of @v's reader: an urgent byte read apart is none */
static u32 smcd_rx_normal(struct sock *sk, const struct smcd_rx_view *v)
{
	if (v->to_mark < v->avail && !sock_flag(sk, SOCK_URGINLINE))
		return v->avail - 1;
	return v->avail;
}

/*
 * SO_RCVLOWAT as TCP applies it, but never more than the ring holds:
 * the peer cannot produce more than that before we read.
 */
static int smcd_rcv_target(struct sock *sk, struct smcd_conn *c,
			   bool waitall, size_t len)
{
	return min_t(int, sock_rcvlowat(sk, waitall, len), c->rmb_ring);
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

/*
 * Producer flags of a push.  With MSG_OOB the last byte of the call is
 * the urgent byte: urgent-pending until it is written, urgent-present
 * on the push that ends with it.  The flags stay in our header until
 * the next push; the receiver knows a repeat by its producer cursor.
 * tx_lock held.
 */
static void smcd_tx_flags(struct smcd_conn *c, bool more, bool oob)
{
	u8 f = c->tx_prod_flags & ~(SMC_CDC_PF_WRITE_BLOCKED |
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
 * what is left after this push).  There is no autocorking: the
 * doorbell is synchronous, so no earlier header is ever "in flight"
 * to wait for.
 */
static bool smcd_tx_corked(struct smc_sock *smc, const struct msghdr *msg,
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

int smcd_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smcd_conn *c = &smc->smcd;
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
		if ((sk->sk_shutdown & SEND_SHUTDOWN) || smcd_peer_gone(c) ||
		    !c->peer) {
			rc = -EPIPE;
			break;
		}
		space = smcd_tx_space(c);
		if (!space) {
			/* the peer must see what was held back, or never read */
			smcd_tx_flush(smc);
			c->tx_prod_flags |= SMC_CDC_PF_WRITE_BLOCKED;
			smcd_tx_want_space(c);
			rc = smc_may_sleep(timeo);
			if (rc)
				break;
			/* on the queue only to sleep: most calls never do */
			if (!waiting) {
				add_wait_queue(sk_sleep(sk), &wait);
				waiting = true;
			}
			sk_wait_event(sk, &timeo, smcd_tx_space(c) ||
				      READ_ONCE(sk->sk_err) ||
				      smcd_peer_gone(c), &wait);
			continue;
		}
		n = min_t(size_t, space, len - copied);
		rc = smcd_copy_in(c, msg, n);
		if (rc)
			break;
		more = n < len - copied;
		copied += n;
		/* the room seen before the copy: the peer only adds to it */
		publish = more || !smcd_tx_corked(smc, msg, space - n);
		/* cursor, flags and header in one go, the doorbell after */
		spin_lock_bh(&c->tx_lock);
		smc_curs_add(c->tx_ring, &c->tx_prod, n);
		smcd_tx_flags(c, more, msg->msg_flags & MSG_OOB);
		if (publish)
			smcd_write_header(c, c->peer);
		spin_unlock_bh(&c->tx_lock);
		if (publish)
			smcd_dmb_signal(c->peer);
	}
	if (waiting)
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

/*
 * The reader consumed up to @cons.  Past the urgent byte, TCP forgets
 * its urgent data; past the hole of a replaced urgent byte, the hole
 * is gone.  rx_cons is written under rx_lock for the receive handler;
 * the same look at the peer's cursors decides whether to tell the peer
 * about the room (the protocol's consumer-update rule; an urgent byte
 * or a hole passed forces it).
 */
static void smcd_rx_consumed(struct smc_sock *smc,
			     const struct smc_cursor *cons, bool past_mark,
			     bool past_hole)
{
	struct smcd_conn *c = &smc->smcd;
	u32 consumed, outstanding;
	struct smc_cursor prod;
	bool blocked;

	smcd_rx_write_lock(c);
	c->rx_cons = *cons;
	if (past_mark)
		c->urg_state = SMCD_URG_NONE;
	if (past_hole)
		c->urg_hole_set = false;
	prod = c->peer_prod;
	blocked = c->peer_prod_flags & SMC_CDC_PF_WRITE_BLOCKED;
	smcd_rx_write_unlock(c);

	consumed = smc_curs_diff(c->rmb_ring, &c->rx_cons_sent, &c->rx_cons);
	outstanding = smc_curs_diff(c->rmb_ring, &c->rx_cons_sent, &prod);
	if (smc_cdc_cons_update_needed(c->rmb_ring, consumed, outstanding,
				       blocked, past_mark || past_hole))
		smcd_send_header(smc);
}

/*
 * Step the reader at @cons over one byte that is not stream data: the
 * urgent byte at the mark (@mark), or a replaced one (the hole).
 */
static void smcd_rx_skip(struct smc_sock *smc, struct smc_cursor *cons,
			 bool peek, bool mark)
{
	smc_curs_add(smc->smcd.rmb_ring, cons, 1);
	if (peek)
		return;
	smcd_rx_consumed(smc, cons, mark, !mark);
}

/* recv(MSG_OOB): the urgent byte, once, unless it is read inline */
static int smcd_recv_urg(struct smc_sock *smc, struct msghdr *msg,
			 size_t len, int flags)
{
	struct smcd_conn *c = &smc->smcd;
	u8 state, byte;

	if (sock_flag(&smc->sk, SOCK_URGINLINE))
		return -EINVAL;
	smcd_rx_write_lock(c);
	state = c->urg_state;
	byte = c->urg_byte;
	if (state == SMCD_URG_VALID && !(flags & MSG_PEEK))
		c->urg_state = SMCD_URG_READ;
	smcd_rx_write_unlock(c);
	if (state != SMCD_URG_VALID)
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
static int smcd_recv_idle(struct smc_sock *smc, const struct smcd_rx_view *v,
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

int smcd_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		 int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smcd_conn *c = &smc->smcd;
	bool past_mark = false, past_hole = false;
	bool peek = flags & MSG_PEEK;
	struct sock *sk = &smc->sk;
	bool waiting = false;
	struct smcd_rx_view v;
	struct smc_cursor cons;
	size_t copied = 0;
	int rc = 0, target;
	long timeo;
	u32 n;

	if (flags & MSG_OOB)
		return smcd_recv_urg(smc, msg, len, flags);
	if (!c->rmb)
		return -ENOTCONN;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = smcd_rcv_target(sk, c, flags & MSG_WAITALL, len);
	cons = c->rx_cons;
	for (;;) {
		smcd_rx_look(c, &cons, &v);
		if (past_mark)
			v.to_mark = U32_MAX;
		if (v.avail && v.at_hole && !past_hole) {
			/* a replaced urgent byte: never normal data */
			smcd_rx_skip(smc, &cons, peek, false);
			past_hole = true;
			continue;
		}
		if (v.avail && !v.to_mark) {
			/* reads stop at the urgent mark */
			if (copied)
				break;
			if (!sock_flag(sk, SOCK_URGINLINE)) {
				/* not part of the stream: step over it */
				smcd_rx_skip(smc, &cons, peek, true);
				past_mark = true;
				continue;
			}
		}
		if (!v.avail) {
			rc = smcd_recv_idle(smc, &v, copied, target);
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
			sk_wait_event(sk, &timeo, smcd_rx_avail(c, &cons) ||
				      smcd_peer_done(c) ||
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
		rc = smcd_copy_out(c, msg, &cons, n);
		if (rc)
			break;
		smc_curs_add(c->rmb_ring, &cons, n);
		copied += n;
		if (v.to_mark < n)
			past_mark = true;
		if (peek)
			continue;
		smcd_rx_consumed(smc, &cons, v.to_mark < n, false);
	}
	if (waiting)
		remove_wait_queue(sk_sleep(sk), &wait);
	release_sock(sk);
	return copied ? copied : rc;
}

__poll_t smcd_poll(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	struct sock *sk = &smc->sk;
	u8 shut = READ_ONCE(sk->sk_shutdown);
	struct smcd_rx_view v = {};
	__poll_t mask = 0;
	u32 readable;

	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (c->rmb) {
		smcd_rx_look(c, &c->rx_cons, &v);
		readable = smcd_rx_normal(sk, &v);
		if (readable && readable >= smcd_rcv_target(sk, c, false,
							    INT_MAX))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (v.urg_state == SMCD_URG_VALID)
			mask |= EPOLLPRI;
	}
	if (smcd_peer_done(c) || (shut & RCV_SHUTDOWN))
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (shut & SEND_SHUTDOWN || smcd_peer_gone(c))
		mask |= EPOLLOUT | EPOLLWRNORM;
	else if (c->peer && smcd_tx_writable(c))
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
	u8 send;

	lock_sock(sk);
	if ((flags & SEND_SHUTDOWN) && !(sk->sk_shutdown & SEND_SHUTDOWN)) {
		/*
		 * SHUT_RDWR too sends done-writing, not closed: as over
		 * TCP, the peer may go on writing to a socket that is
		 * shut down but not closed.
		 */
		smcd_rx_write_lock(c);
		send = smc_fsm_shut_wr(&c->fsm);
		WRITE_ONCE(sk->sk_state, c->fsm.state);
		smcd_rx_write_unlock(c);
		smcd_send_conn_flags(smc, send);
	}
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | flags);
	release_sock(sk);
	sk->sk_state_change(sk);
	return kernel_sock_shutdown(smc->clcsock, how);
}

int smcd_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg)
{
	struct smcd_conn *c = &smc->smcd;
	struct smcd_rx_view v;
	int answ;

	switch (cmd) {
	case SIOCINQ:
		answ = 0;
		if (c->rmb) {
			lock_sock(&smc->sk);
			smcd_rx_look(c, &c->rx_cons, &v);
			release_sock(&smc->sk);
			answ = smcd_rx_normal(&smc->sk, &v);
		}
		break;
	case SIOCOUTQ:
	case SIOCOUTQNSD:
		/* no copy: what we sent is in the peer's buffer already */
		answ = 0;
		break;
	case SIOCATMARK:
		answ = 0;
		if (c->rmb) {
			lock_sock(&smc->sk);
			smcd_rx_look(c, &c->rx_cons, &v);
			release_sock(&smc->sk);
			answ = v.urg_state != SMCD_URG_NONE && !v.to_mark;
		}
		break;
	default:
		return -ENOIOCTLCMD;
	}
	return put_user(answ, (int __user *)arg);
}

#define SMCD_SPLICE_PAGES	16

static void smcd_spd_release(struct splice_pipe_desc *spd, unsigned int i)
{
	put_page(spd->pages[i]);
}

/*
 * splice() out of the socket: read into fresh pages and hand them to
 * the pipe.  The pipe is locked by the caller, so the room we see is
 * the room we get.
 */
ssize_t smcd_splice_read(struct smc_sock *smc, struct pipe_inode_info *pipe,
			 size_t len, bool nonblock)
{
	struct partial_page partial[SMCD_SPLICE_PAGES];
	struct bio_vec bvec[SMCD_SPLICE_PAGES];
	struct page *pages[SMCD_SPLICE_PAGES];
	struct splice_pipe_desc spd = {
		.pages		= pages,
		.partial	= partial,
		.nr_pages_max	= SMCD_SPLICE_PAGES,
		.ops		= &nosteal_pipe_buf_ops,
		.spd_release	= smcd_spd_release,
	};
	struct msghdr msg = {};
	unsigned int room, i, n;
	ssize_t rc;

	room = pipe->max_usage - pipe_occupancy(pipe->head, pipe->tail);
	n = min_t(size_t, min_t(unsigned int, room, SMCD_SPLICE_PAGES),
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
	rc = smcd_recvmsg(smc, &msg, len, nonblock ? MSG_DONTWAIT : 0);

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
