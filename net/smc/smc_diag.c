// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: sock_diag for AF_SMC.
 *
 * Answers SOCK_DIAG_BY_FAMILY dump requests for family AF_SMC with one
 * message per socket of the requester's namespace: addresses from the
 * internal TCP socket, the SMC state, the transport in use and, always,
 * the shutdown state and the fallback reasons, and on request the
 * connection details, the link (SMC-R) or the DMBs (SMC-D).  The
 * tokens among them are shown to the socket's owner and to
 * CAP_NET_ADMIN only.
 */

#include <linux/inet_diag.h>
#include <linux/module.h>
#include <linux/sock_diag.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <net/genetlink.h>
#include <net/inet_sock.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "smc_conn.h"
#include "smc_ism.h"
#include "smc_sock.h"

struct smc_diag_walk {
	struct sk_buff			*skb;
	struct netlink_callback		*cb;
	const struct smc_diag_req	*req;
	/* the requester: who owns its netlink socket, and is it admin */
	kuid_t				uid;
	bool				net_admin;
};

/*
 * The tokens of a connection (its DMB's, the peer's, its alert token)
 * name its buffers to the peer: a peer that knows another connection's
 * tokens can write into it.  Only the socket's owner and CAP_NET_ADMIN
 * of the netns see them; others get zeros.
 */
static bool smc_diag_tokens_shown(const struct smc_diag_walk *w,
				  struct sock *sk)
{
	return w->net_admin || uid_eq(smc_sk_uid(sk), w->uid);
}

static u8 smc_diag_mode(const struct smc_sock *smc)
{
	if (smc->use_fallback)
		return SMC_DIAG_MODE_FALLBACK_TCP;
	if (smc->path == SMC_PATH_SMCD)
		return SMC_DIAG_MODE_SMCD;
	return SMC_DIAG_MODE_SMCR;
}

static void smc_diag_addrs(struct smc_diag_msg *r, const struct sock *sk,
			   const struct sock *clcsk)
{
	const struct inet_sock *inet = inet_sk(clcsk);

	r->id.idiag_sport = inet->inet_sport;
	r->id.idiag_dport = inet->inet_dport;
	r->id.idiag_if = clcsk->sk_bound_dev_if;
#if IS_ENABLED(CONFIG_IPV6)
	if (smc_sk_v6(sk)) {
		memcpy(r->id.idiag_src, &clcsk->sk_v6_rcv_saddr,
		       sizeof(clcsk->sk_v6_rcv_saddr));
		memcpy(r->id.idiag_dst, &clcsk->sk_v6_daddr,
		       sizeof(clcsk->sk_v6_daddr));
		return;
	}
#endif
	r->id.idiag_src[0] = inet->inet_rcv_saddr;
	r->id.idiag_dst[0] = inet->inet_daddr;
}

static void smc_diag_curs(struct smc_diag_cursor *d,
			  const struct smc_cursor *c)
{
	d->wrap = c->wrap;
	d->count = c->count;
}

/*
 * CONNINFO of an SMC-D or SMC-R connection, whose transport told @d.
 * Only copies kept in the connection are read (no buffer is touched),
 * so a connection closing meanwhile does no harm.  SMC-D sends into the
 * peer's DMB (no send buffer of its own), SMC-R from a send buffer the
 * size of the peer's RMB; either way peer_len is both.
 */
static int smc_diag_conninfo(struct sk_buff *skb, struct smc_sock *smc,
			     const struct smc_conn_diag *d, bool tokens)
{
	struct smc_conn *c = &smc->conn;
	struct smc_diag_conninfo ci = {};
	const struct smc_cursor *sent;

	sent = d->sent_now ? &c->tx_prod : &c->tx_prod_sent;
	if (tokens)
		ci.token = c->alert_token;
	ci.sndbuf_size = d->peer_len - d->hdr;
	ci.peer_rmbe_size = d->peer_len - d->hdr;
	spin_lock_bh(&c->rx_lock);
	/* the DMB goes under rx_lock */
	ci.rmbe_size = c->rx.pg ? READ_ONCE(c->rx.pg->fold) : c->rmb_len;
	smc_diag_curs(&ci.rx_prod, &c->peer_prod);
	smc_diag_curs(&ci.rx_cons, &c->peer_cons);
	ci.rx_prod_flags = c->peer_prod_flags;
	ci.rx_conn_state_flags = c->peer_conn_flags;
	spin_unlock_bh(&c->rx_lock);
	spin_lock_bh(&c->tx_lock);
	smc_diag_curs(&ci.tx_prod, sent);
	smc_diag_curs(&ci.tx_cons, &c->rx_cons_sent);
	ci.tx_prod_flags = c->tx_prod_flags;
	ci.tx_conn_state_flags = c->tx_conn_flags;
	smc_diag_curs(&ci.tx_prep, &c->tx_prod);
	smc_diag_curs(&ci.tx_sent, sent);
	smc_diag_curs(&ci.tx_fin, sent);
	spin_unlock_bh(&c->tx_lock);
	return nla_put(skb, SMC_DIAG_CONNINFO, sizeof(ci), &ci);
}

/* The extensions asked for in @ext that the socket's path has */
static int smc_diag_ext(struct sk_buff *skb, struct smc_sock *smc, u8 ext,
			bool tokens)
{
	const struct smc_conn_ops *ops = READ_ONCE(smc->conn.ops);
	struct smc_conn_diag d = {};

	if (smc->use_fallback || !smc_on_smc(smc) || !ops ||
	    !ops->diag(smc, &d, tokens))
		return 0;
	if ((ext & (1 << (SMC_DIAG_CONNINFO - 1))) &&
	    smc_diag_conninfo(skb, smc, &d, tokens))
		return -EMSGSIZE;
	if ((ext & (1 << (SMC_DIAG_LGRINFO - 1))) && d.has_lgr &&
	    nla_put(skb, SMC_DIAG_LGRINFO, sizeof(d.lgr), &d.lgr))
		return -EMSGSIZE;
	if ((ext & (1 << (SMC_DIAG_DMBINFO - 1))) && d.has_dmb &&
	    nla_put(skb, SMC_DIAG_DMBINFO, sizeof(d.dmb), &d.dmb))
		return -EMSGSIZE;
	return 0;
}

/* Runs under the socket table's read lock: must not sleep */
static int smc_diag_fill(struct smc_sock *smc, void *arg)
{
	struct smc_diag_walk *w = arg;
	struct netlink_callback *cb = w->cb;
	struct smc_diag_fallback fb;
	struct sock *sk = &smc->sk;
	struct sk_buff *skb = w->skb;
	struct smc_diag_msg *r;
	struct nlmsghdr *nlh;
	struct sock *clcsk;
	u8 shutdown;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			cb->nlh->nlmsg_type, sizeof(*r), NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;

	r = nlmsg_data(nlh);
	memset(r, 0, sizeof(*r));
	r->diag_family = sk->sk_family;
	r->diag_state = READ_ONCE(sk->sk_state);
	r->diag_mode = smc_diag_mode(smc);
	sock_diag_save_cookie(sk, r->id.idiag_cookie);

	clcsk = smc_clcsk(smc);
	if (clcsk)
		smc_diag_addrs(r, sk, clcsk);
	r->diag_uid = from_kuid_munged(sk_user_ns(NETLINK_CB(cb->skb).sk),
				       smc_sk_uid(sk));
	r->diag_inode = sock_i_ino(sk);

	/* a fallen-back socket is shut down on its TCP socket */
	shutdown = READ_ONCE(sk->sk_shutdown);
	if (smc->use_fallback && clcsk)
		shutdown = READ_ONCE(clcsk->sk_shutdown);
	if (nla_put_u8(skb, SMC_DIAG_SHUTDOWN, shutdown))
		goto cancel;

	fb.reason = smc->fallback_rsn;
	fb.peer_diagnosis = smc->peer_diagnosis;
	if (nla_put(skb, SMC_DIAG_FALLBACK, sizeof(fb), &fb))
		goto cancel;
	if (smc_diag_ext(skb, smc, w->req->diag_ext,
			 smc_diag_tokens_shown(w, sk)))
		goto cancel;

	nlmsg_end(skb, nlh);
	return 0;

cancel:
	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}

/*
 * cb->args[0] and [1]: last id reported from the IPv4 and IPv6 tables;
 * cb->args[2]: the IPv4 table is done.
 */
static int smc_diag_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_diag_walk w = {
		.skb	= skb,
		.cb	= cb,
		.req	= nlmsg_data(cb->nlh),
	};
	struct sock *nlsk = NETLINK_CB(cb->skb).sk;
	struct net *net = sock_net(skb->sk);
	u64 last;

	/* the requester's, once per part of the dump: not under locks */
	w.uid = smc_sk_uid(nlsk);
	w.net_admin = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	if (!cb->args[2]) {
		last = cb->args[SMCPROTO_SMC];
		if (smc_table_walk(net, SMCPROTO_SMC, &last, smc_diag_fill, &w)) {
			cb->args[SMCPROTO_SMC] = last;
			return skb->len;
		}
		cb->args[2] = 1;
	}
	last = cb->args[SMCPROTO_SMC6];
	smc_table_walk(net, SMCPROTO_SMC6, &last, smc_diag_fill, &w);
	cb->args[SMCPROTO_SMC6] = last;
	return skb->len;
}

static int smc_diag_handler_dump(struct sk_buff *skb, struct nlmsghdr *h)
{
	struct net *net = sock_net(skb->sk);
	struct netlink_dump_control c = {
		.dump		= smc_diag_dump,
		.min_dump_alloc	= SKB_WITH_OVERHEAD(32768),
	};

	/* smcss sets NLM_F_ROOT only: any dump bit starts a dump */
	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    !(h->nlmsg_flags & NLM_F_DUMP))
		return 0;
	if (nlmsg_len(h) < (int)sizeof(struct smc_diag_req))
		return -EINVAL;
	return netlink_dump_start(net->diag_nlsk, skb, h, &c);
}

static const struct sock_diag_handler smc_diag_handler = {
	.owner	= THIS_MODULE,
	.family	= AF_SMC,
	.dump	= smc_diag_handler_dump,
};

static int __init smc_diag_init(void)
{
	return sock_diag_register(&smc_diag_handler);
}

static void __exit smc_diag_exit(void)
{
	sock_diag_unregister(&smc_diag_handler);
}

module_init(smc_diag_init);
module_exit(smc_diag_exit);
MODULE_DESCRIPTION("sock_diag for AF_SMC sockets");
MODULE_LICENSE("GPL");
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_NETLINK, NETLINK_SOCK_DIAG, 43 /* AF_SMC */);
/* where upstream has it: loading smc_diag loads smc, which serves it */
MODULE_ALIAS_GENL_FAMILY(SMCR_GENL_FAMILY_NAME);
