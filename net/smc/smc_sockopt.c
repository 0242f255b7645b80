// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: socket options.
 *
 * SOL_SOCKET options are kept by the socket core in the smc sock and
 * copied to the internal TCP socket when it connects or listens (and
 * back to an accepted child).  Options of every other level except
 * SOL_SMC belong to the TCP connection and are passed to the clcsock.
 */

#include <linux/net.h>
#include <linux/tcp.h>
#include <linux/uaccess.h>
#include <net/sock.h>

#include "smc_clc_wire.h"
#include "smc_conn.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smc_stats.h"

/* SOL_SMC option SMC_LIMIT_HS of include/uapi/linux/smc.h */
#define SMC_OPT_LIMIT_HS	1

#define SMC_FLAGS_TO_CLC						\
	(BIT(SOCK_URGINLINE) | BIT(SOCK_KEEPOPEN) | BIT(SOCK_LINGER) |	\
	 BIT(SOCK_BROADCAST) | BIT(SOCK_DBG) | BIT(SOCK_LOCALROUTE) |	\
	 BIT(SOCK_RXQ_OVFL) | BIT(SOCK_WIFI_STATUS) | BIT(SOCK_NOFCS) |	\
	 BIT(SOCK_FILTER_LOCKED))

#define SMC_FLAGS_FROM_CLC						\
	(BIT(SOCK_URGINLINE) | BIT(SOCK_KEEPOPEN) | BIT(SOCK_LINGER) |	\
	 BIT(SOCK_DBG))

#define SMC_BUF_LOCKS	(SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK)

static void smc_copy_settings(struct sock *to, const struct sock *from,
			      unsigned long flags)
{
	WRITE_ONCE(to->sk_sndtimeo, READ_ONCE(from->sk_sndtimeo));
	WRITE_ONCE(to->sk_rcvtimeo, READ_ONCE(from->sk_rcvtimeo));
	WRITE_ONCE(to->sk_mark, READ_ONCE(from->sk_mark));
	WRITE_ONCE(to->sk_priority, READ_ONCE(from->sk_priority));
	WRITE_ONCE(to->sk_rcvlowat, READ_ONCE(from->sk_rcvlowat));
	WRITE_ONCE(to->sk_bound_dev_if, READ_ONCE(from->sk_bound_dev_if));
	WRITE_ONCE(to->sk_lingertime, READ_ONCE(from->sk_lingertime));

	/* buffer sizes only where the user chose them */
	to->sk_userlocks = (to->sk_userlocks & ~SMC_BUF_LOCKS) |
			   (from->sk_userlocks & SMC_BUF_LOCKS);
	if (from->sk_userlocks & SOCK_SNDBUF_LOCK)
		WRITE_ONCE(to->sk_sndbuf, READ_ONCE(from->sk_sndbuf));
	if (from->sk_userlocks & SOCK_RCVBUF_LOCK)
		WRITE_ONCE(to->sk_rcvbuf, READ_ONCE(from->sk_rcvbuf));

	to->sk_flags = (to->sk_flags & ~flags) | (from->sk_flags & flags);
}

void smc_copy_sock_settings_to_clc(struct smc_sock *smc)
{
	smc_copy_settings(smc_clcsk(smc), &smc->sk, SMC_FLAGS_TO_CLC);
}

void smc_copy_sock_settings_from_clc(struct smc_sock *smc)
{
	smc_copy_settings(&smc->sk, smc_clcsk(smc), SMC_FLAGS_FROM_CLC);
}

static int smc_setsockopt_smc(struct smc_sock *smc, int optname,
			      sockptr_t optval, unsigned int optlen)
{
	int val;

	if (optname != SMC_OPT_LIMIT_HS)
		return -EOPNOTSUPP;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(int)))
		return -EFAULT;

	lock_sock(&smc->sk);
	smc->limit_hs = !!val;
	release_sock(&smc->sk);
	return 0;
}

/* After TCP accepted an option, what SMC itself makes of it */
static int smc_setsockopt_tcp(struct smc_sock *smc, int optname,
			      sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = &smc->sk;
	int val, rc = 0;

	if (optlen < sizeof(int))
		return 0;
	if (copy_from_sockptr(&val, optval, sizeof(int)))
		return -EFAULT;

	lock_sock(sk);
	switch (optname) {
	case TCP_FASTOPEN:
	case TCP_FASTOPEN_CONNECT:
	case TCP_FASTOPEN_KEY:
	case TCP_FASTOPEN_NO_COOKIE:
		/* data in the SYN leaves no room for the SMC handshake */
		if (sk->sk_state == SMC_INIT && !smc->connect_pending &&
		    !smc->connect_inflight)
			smc_switch_to_fallback(smc, SMC_CLC_DECL_OPTUNSUPP);
		else if (sk->sk_state != SMC_LISTEN)
			rc = -EINVAL;
		/* a listener keeps TCP's answer: its children take it */
		break;
	case TCP_CORK:
	case TCP_NODELAY:
		/* uncorking sends what MSG_MORE or TCP_CORK held back */
		if (smc_on_smc(smc)) {
			smc_stats_sockopt(smc, optname, val);
			smc_tx_flush(smc);
		}
		break;
	case TCP_DEFER_ACCEPT:
		/* TCP applies it to the listener; kept for the record */
		smc->defer_accept = val;
		break;
	}
	release_sock(sk);
	return rc;
}

int smc_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock;
	int rc;

	if (level == SOL_TCP && optname == TCP_ULP)
		return -EOPNOTSUPP;
	if (level == SOL_SMC)
		return smc_setsockopt_smc(smc, optname, optval, optlen);

	clcsock = smc->clcsock;
	if (!clcsock)
		return -EBADF;
	if (!clcsock->ops->setsockopt)
		return -EOPNOTSUPP;
	rc = clcsock->ops->setsockopt(clcsock, level, optname, optval,
				      optlen);
	if (rc || level != SOL_TCP || smc->use_fallback)
		return rc;
	return smc_setsockopt_tcp(smc, optname, optval, optlen);
}

int smc_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	struct socket *clcsock;
	int val, len;

	if (level == SOL_SMC) {
		if (optname != SMC_OPT_LIMIT_HS)
			return -EOPNOTSUPP;
		if (get_user(len, optlen))
			return -EFAULT;
		if (len < 0)
			return -EINVAL;
		len = min_t(int, len, sizeof(int));
		val = READ_ONCE(smc->limit_hs);
		if (put_user(len, optlen) || copy_to_user(optval, &val, len))
			return -EFAULT;
		return 0;
	}

	clcsock = smc->clcsock;
	if (!clcsock)
		return -EBADF;
	if (!clcsock->ops->getsockopt)
		return -EOPNOTSUPP;
	return clcsock->ops->getsockopt(clcsock, level, optname, optval,
					optlen);
}
