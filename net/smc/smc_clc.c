// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: CLC messages over the internal TCP
 * socket.  One message is read at a time: the 8-byte header is peeked
 * to learn the length, then exactly that many bytes are consumed, so
 * no byte of the peer's application data is ever taken.
 */

#include <linux/net.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_sock.h"

/*
 * Each CLC message answers the one before it, so the TCP ACK of one can
 * ride on the next instead of taking a segment of its own: in TCP's
 * interactive ("pingpong") mode ACKs wait for data.  A client holding
 * ACKs from before connect() also sends the last ACK of the TCP
 * handshake with its Proposal, so the server learns of the connection
 * only when the Proposal is there to read.  A listening clcsock passes
 * the mode on to its children.
 */
void smc_clc_hold_acks(struct sock *clcsk)
{
	tcp_sock_set_quickack(clcsk, 0);
}

/*
 * The handshake is over.  On TCP for good, the connection goes on as
 * TCP would: an ACK still held goes out now.  Over SMC the clcsock has
 * no more data to carry, and a held ACK goes with the FIN or TCP's
 * delayed-ACK timer.  Either way later segments are ACKed as by TCP.
 */
void smc_clc_release_acks(struct sock *clcsk, bool flush)
{
	if (flush) {
		tcp_sock_set_quickack(clcsk, 1);
		return;
	}
	lock_sock(clcsk);
	inet_csk_exit_pingpong_mode(clcsk);
	release_sock(clcsk);
}

int smc_clc_send(struct smc_sock *smc, const u8 *buf, int len)
{
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
	int rc;

	rc = kernel_sendmsg(smc->clcsock, &msg, &vec, 1, len);
	if (rc == len)
		return 0;
	return rc < 0 ? rc : -EPIPE;
}

/* read_sock() actor: take what the message needs, nothing beyond it */
static int smc_clc_recv_actor(read_descriptor_t *desc, struct sk_buff *skb,
			      unsigned int off, size_t len)
{
	struct smc_clc_frame *f = desc->arg.data;
	u32 n = min_t(size_t, len, smc_clc_frame_need(f));
	u32 room = smc_clc_frame_room(f, n);

	if (!n)
		return 0;	/* complete or refused: stop here */
	if (room && skb_copy_bits(skb, off, f->buf + f->got, room)) {
		f->err = -EFAULT;
		return 0;
	}
	smc_clc_frame_advance(f, n);
	return n;
}

/*
 * Receive one message of type @expected, or a Decline, into @buf.
 * A longer message is consumed in full, the bytes beyond @buflen
 * dropped.  Returns the message length or a negative error; waits at
 * most @timeo.  One pass under the socket lock takes the message
 * straight from TCP's receive queue.
 */
int smc_clc_recv_timeout(struct smc_sock *smc, u8 expected, u8 *buf,
			 int buflen, struct smc_clc_hdr *hdr, long timeo)
{
	struct socket *clcsock = smc->clcsock;
	struct sock *clcsk = clcsock->sk;
	struct smc_clc_frame f;
	read_descriptor_t desc;
	int rc;

	if (buflen < SMC_CLC_HDR_LEN)
		return -EINVAL;
	smc_clc_frame_init(&f, expected, buf, buflen);

	lock_sock(clcsk);
	for (;;) {
		desc = (read_descriptor_t){ .count = 1, .arg.data = &f };
		rc = clcsock->ops->read_sock(clcsk, &desc, smc_clc_recv_actor);
		if (f.err || smc_clc_frame_done(&f)) {
			rc = f.err ? : f.hdr.length;
			break;
		}
		if (rc < 0)
			break;
		rc = sock_error(clcsk);
		if (rc)
			break;
		rc = -ECONNRESET;	/* the peer closed */
		if (clcsk->sk_shutdown & RCV_SHUTDOWN)
			break;
		/* read_sock stops at urgent data: no peer sends that here */
		rc = -EPROTO;
		if (!skb_queue_empty(&clcsk->sk_receive_queue))
			break;
		rc = smc_may_sleep(timeo);
		if (rc) {
			if (rc == -EAGAIN)
				rc = -ETIMEDOUT;
			break;
		}
		sk_wait_data(clcsk, &timeo, NULL);
	}
	release_sock(clcsk);
	if (rc >= 0)
		*hdr = f.hdr;
	return rc;
}

int smc_clc_recv(struct smc_sock *smc, u8 expected, u8 *buf, int buflen,
		 struct smc_clc_hdr *hdr)
{
	return smc_clc_recv_timeout(smc, expected, buf, buflen, hdr,
				    SMC_CLC_WAIT_TIME);
}

/* @version: the peer's, as far as we know it (1 or 2) */
int smc_clc_send_decline(struct smc_sock *smc, u32 reason, u8 version)
{
	struct smc_clc_decline d = {
		.version	= version >= SMC_V2 ? SMC_V2 : SMC_V1,
		.peer_diagnosis	= reason,
		.os_type	= SMC_CLC_OS_LINUX,
	};
	u8 buf[64];
	int len;

	len = smc_clc_build_decline(buf, sizeof(buf), &d);
	if (len < 0)
		return len;
	return smc_clc_send(smc, buf, len);
}
