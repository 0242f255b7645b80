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

#include "smc.h"

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

static int smc_clc_read(struct socket *clcsock, u8 *buf, int len,
			int flags)
{
	struct msghdr msg = {};
	struct kvec vec = { .iov_base = buf, .iov_len = len };
	int rc;

	rc = kernel_recvmsg(clcsock, &msg, &vec, 1, len, flags | MSG_WAITALL);
	if (rc == -EAGAIN)
		return -ETIMEDOUT;
	if (rc == 0)
		return -ECONNRESET;	/* the peer closed */
	if (rc > 0 && rc < len)
		return -ETIMEDOUT;	/* a partial message timed out */
	return rc;
}

/*
 * Receive one message of type @expected, or a Decline, into @buf.
 * A longer message is read in full, the bytes beyond @buflen dropped.
 * Returns the message length or a negative error; waits at most
 * SMC_CLC_WAIT_TIME.
 */
int smc_clc_recv(struct smc_sock *smc, u8 expected, u8 *buf, int buflen,
		 struct smc_clc_hdr *hdr)
{
	struct socket *clcsock = smc->clcsock;
	struct sock *clcsk = clcsock->sk;
	long saved = clcsk->sk_rcvtimeo;
	int rc, len, want;
	u8 scratch[64];

	if (buflen < SMC_CLC_HDR_LEN)
		return -EINVAL;
	WRITE_ONCE(clcsk->sk_rcvtimeo, SMC_CLC_WAIT_TIME);

	rc = smc_clc_read(clcsock, buf, SMC_CLC_HDR_LEN, MSG_PEEK);
	if (rc < 0)
		goto out;
	rc = -EPROTO;
	if (smc_clc_parse_hdr(buf, SMC_CLC_HDR_LEN, hdr))
		goto out;
	if (hdr->type != expected && hdr->type != SMC_CLC_DECLINE)
		goto out;
	len = hdr->length;
	if (len < SMC_CLC_HDR_LEN + SMC_CLC_TRL_LEN)
		goto out;

	rc = smc_clc_read(clcsock, buf, min(len, buflen), 0);
	if (rc < 0)
		goto out;
	for (want = len - min(len, buflen); want > 0; want -= rc) {
		rc = smc_clc_read(clcsock, scratch,
				  min_t(int, want, sizeof(scratch)), 0);
		if (rc < 0)
			goto out;
	}
	rc = len;
out:
	WRITE_ONCE(clcsk->sk_rcvtimeo, saved);
	return rc;
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
