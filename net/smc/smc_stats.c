// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: statistics per network namespace, and
 * their two netlink dumps (smcd stats / smcr stats of smc-tools).
 */

#include <linux/slab.h>
#include <linux/smc.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_clc_wire.h"
#include "smc_conn.h"
#include "smc_ism.h"
#include "smc_netlink.h"
#include "smc_netns.h"
#include "smc_nl_gen.h"
#include "smc_sock.h"
#include "smc_stats.h"

struct smc_stats __percpu *smc_stats_alloc(struct smc_fback_stats *fb)
{
	mutex_init(&fb->lock);
	return alloc_percpu(struct smc_stats);
}

void smc_stats_free(struct smc_stats __percpu *stats)
{
	free_percpu(stats);
}

/* The transport the connection has, or had; SMC-D before it has one */
static int smc_stats_tech_of(const struct smc_sock *smc)
{
	const struct smc_conn_ops *ops = smc->conn.ops;

	return ops ? ops->stats_tech : SMC_STATS_D;
}

/* A switch to TCP, with its reason; a child of a listener is a server */
void smc_stats_fback(struct smc_sock *smc, u32 reason)
{
	struct smc_fback_stats *fb = smc_net_fback(sock_net(&smc->sk));
	bool server = !!smc->listen_smc;
	struct smc_fback_slot *slot;
	unsigned int i;

	slot = server ? fb->srv : fb->clnt;
	mutex_lock(&fb->lock);
	if (server)
		fb->srv_cnt++;
	else
		fb->clnt_cnt++;
	for (i = 0; i < SMC_FBACK_SLOTS; i++) {
		/* first come, first served; a full table only counts */
		if (!slot[i].code)
			slot[i].code = reason;
		if (slot[i].code == reason) {
			slot[i].count++;
			break;
		}
	}
	mutex_unlock(&fb->lock);
}

/* A buffer given to a connection: its size, and where it came from */
void smc_stats_buf_get(struct smc_stats __percpu *stats, int t, bool rmb,
		       u32 len, bool reused, bool dgraded)
{
	unsigned int b = smc_stats_bucket(len);

	if (rmb) {
		SMC_STAT_INC(stats, t, rx_bufsize[b]);
		SMC_STAT_ADD(stats, t, rx_bufuse, len);
		if (reused)
			SMC_STAT_INC(stats, t, rx_buf.reuse_cnt);
		else
			SMC_STAT_INC(stats, t, rx_buf.alloc_cnt);
		if (dgraded)
			SMC_STAT_INC(stats, t, rx_buf.dgrade_cnt);
	} else {
		SMC_STAT_INC(stats, t, tx_bufsize[b]);
		SMC_STAT_ADD(stats, t, tx_bufuse, len);
		if (reused)
			SMC_STAT_INC(stats, t, tx_buf.reuse_cnt);
		else
			SMC_STAT_INC(stats, t, tx_buf.alloc_cnt);
		if (dgraded)
			SMC_STAT_INC(stats, t, tx_buf.dgrade_cnt);
	}
}

/* ... and given back */
void smc_stats_buf_put(struct smc_stats __percpu *stats, int t, bool rmb,
		       u32 len)
{
	if (rmb)
		SMC_STAT_SUB(stats, t, rx_bufuse, len);
	else
		SMC_STAT_SUB(stats, t, tx_bufuse, len);
}

/* A handshake that ended in SMC, of @version, on @smc's path */
void smc_stats_hs_done(struct smc_sock *smc, bool server, u8 version)
{
	int t = smc_stats_tech_of(smc);

	if (server && version >= SMC_V2)
		SMC_STAT_INC(smc->stats, t, srv_v2_succ_cnt);
	else if (server)
		SMC_STAT_INC(smc->stats, t, srv_v1_succ_cnt);
	else if (version >= SMC_V2)
		SMC_STAT_INC(smc->stats, t, clnt_v2_succ_cnt);
	else
		SMC_STAT_INC(smc->stats, t, clnt_v1_succ_cnt);
}

/* A handshake that failed without a way back to TCP */
void smc_stats_hs_err(struct smc_sock *smc, bool server)
{
	if (server)
		this_cpu_inc(smc->stats->srv_hs_err_cnt);
	else
		this_cpu_inc(smc->stats->clnt_hs_err_cnt);
}

/* sendmsg of @len bytes on an SMC connection returned @rc */
void smc_stats_tx(struct smc_sock *smc, size_t len, int rc, bool oob)
{
	struct smc_conn *c = &smc->conn;
	int t = smc_stats_tech_of(smc);

	SMC_STAT_INC(smc->stats, t, tx_cnt);
	if (oob)
		SMC_STAT_INC(smc->stats, t, urg_data_cnt);
	if (rc <= 0 || !len)
		return;
	SMC_STAT_ADD(smc->stats, t, tx_bytes, rc);
	SMC_STAT_INC(smc->stats, t, tx_pload[smc_stats_bucket(len)]);
	/* the peer's ring (its window) is what a write can fill at most */
	if (len > (READ_ONCE(c->tx_fold) ?: READ_ONCE(c->peer_len)))
		SMC_STAT_INC(smc->stats, t, tx_buf.size_small_peer_cnt);
	if (len > smc_conn_tx_window(c))
		SMC_STAT_INC(smc->stats, t, tx_buf.size_small_cnt);
}

/* recvmsg of @len bytes returned @rc; @readable were there at its first look */
void smc_stats_rx(struct smc_sock *smc, size_t len, int rc, bool oob,
		  u32 readable)
{
	struct smc_conn *c = &smc->conn;
	int t = smc_stats_tech_of(smc);

	SMC_STAT_INC(smc->stats, t, rx_cnt);
	if (oob)
		SMC_STAT_INC(smc->stats, t, urg_data_cnt);
	if (readable && readable >= smc_conn_rx_window(c))
		SMC_STAT_INC(smc->stats, t, rx_buf.full_cnt);
	if (len < readable)
		SMC_STAT_INC(smc->stats, t, rx_buf.size_small_cnt);
	if (rc <= 0)
		return;
	SMC_STAT_ADD(smc->stats, t, rx_bytes, rc);
	SMC_STAT_INC(smc->stats, t, rx_pload[smc_stats_bucket(rc)]);
}

void smc_stats_splice(struct smc_sock *smc)
{
	SMC_STAT_INC(smc->stats, smc_stats_tech_of(smc), splice_cnt);
}

/* TCP_CORK taken off, or TCP_NODELAY set, on an SMC connection */
void smc_stats_sockopt(struct smc_sock *smc, int optname, int val)
{
	int t = smc_stats_tech_of(smc);

	if (optname == TCP_CORK && !val)
		SMC_STAT_INC(smc->stats, t, cork_cnt);
	else if (optname == TCP_NODELAY && val)
		SMC_STAT_INC(smc->stats, t, ndly_cnt);
}

/* A writer found the peer's ring full (@peer), or got room back */
void smc_stats_tx_full(struct smc_sock *smc, bool peer)
{
	int t = smc_stats_tech_of(smc);

	if (peer)
		SMC_STAT_INC(smc->stats, t, tx_buf.full_peer_cnt);
	else
		SMC_STAT_INC(smc->stats, t, tx_buf.full_cnt);
}

/* The counters summed over the CPUs; u64 members only, so as arrays */
static void smc_stats_sum(struct smc_stats __percpu *stats,
			  struct smc_stats *sum)
{
	const size_t n = sizeof(*sum) / sizeof(u64);
	u64 *to = (u64 *)sum;
	const u64 *from;
	unsigned int cpu;
	size_t i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		from = (const u64 *)per_cpu_ptr(stats, cpu);
		for (i = 0; i < n; i++)
			to[i] += READ_ONCE(from[i]);
	}
}

struct smc_nl_u64 {
	int	attr;
	u64	v;
};

/* The u64 attributes @a, padded with @pad */
static int smc_nl_put_u64_list(struct sk_buff *skb,
			       const struct smc_nl_u64 *a, unsigned int n,
			       int pad)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (nla_put_u64_64bit(skb, a[i].attr, a[i].v, pad))
			return -EMSGSIZE;
	return 0;
}

/* ... in a nest of their own */
static int smc_nl_put_u64s(struct sk_buff *skb, int type,
			   const struct smc_nl_u64 *a, unsigned int n,
			   int pad)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (smc_nl_put_u64_list(skb, a, n, pad)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int smc_nl_put_buckets(struct sk_buff *skb, int type, const u64 *v)
{
	struct smc_nl_u64 a[SMC_STATS_BUCKETS];
	unsigned int i;

	for (i = 0; i < SMC_STATS_BUCKETS; i++) {
		a[i].attr = SMC_NLA_STATS_PLOAD_8K + i;
		a[i].v = v[i];
	}
	return smc_nl_put_u64s(skb, type, a, SMC_STATS_BUCKETS,
			       SMC_NLA_STATS_PLOAD_PAD);
}

static int smc_nl_put_buf(struct sk_buff *skb, int type,
			  const struct smc_stats_buf *b)
{
	const struct smc_nl_u64 a[] = {
		{ SMC_NLA_STATS_RMB_REUSE_CNT, b->reuse_cnt },
		{ SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT, b->size_small_peer_cnt },
		{ SMC_NLA_STATS_RMB_SIZE_SM_CNT, b->size_small_cnt },
		{ SMC_NLA_STATS_RMB_FULL_PEER_CNT, b->full_peer_cnt },
		{ SMC_NLA_STATS_RMB_FULL_CNT, b->full_cnt },
		{ SMC_NLA_STATS_RMB_ALLOC_CNT, b->alloc_cnt },
		{ SMC_NLA_STATS_RMB_DGRADE_CNT, b->dgrade_cnt },
	};

	return smc_nl_put_u64s(skb, type, a, ARRAY_SIZE(a),
			       SMC_NLA_STATS_RMB_PAD);
}

/* One technology, in upstream's order of attributes */
static int smc_nl_put_tech(struct sk_buff *skb, int type,
			   const struct smc_stats_tech *s)
{
	const struct smc_nl_u64 a[] = {
		{ SMC_NLA_STATS_T_CLNT_V1_SUCC, s->clnt_v1_succ_cnt },
		{ SMC_NLA_STATS_T_CLNT_V2_SUCC, s->clnt_v2_succ_cnt },
		{ SMC_NLA_STATS_T_SRV_V1_SUCC, s->srv_v1_succ_cnt },
		{ SMC_NLA_STATS_T_SRV_V2_SUCC, s->srv_v2_succ_cnt },
		{ SMC_NLA_STATS_T_RX_BYTES, s->rx_bytes },
		{ SMC_NLA_STATS_T_TX_BYTES, s->tx_bytes },
	};
	const struct smc_nl_u64 b[] = {
		{ SMC_NLA_STATS_T_RX_CNT, s->rx_cnt },
		{ SMC_NLA_STATS_T_TX_CNT, s->tx_cnt },
		{ SMC_NLA_STATS_T_SENDPAGE_CNT, s->sendpage_cnt },
		{ SMC_NLA_STATS_T_CORK_CNT, s->cork_cnt },
		{ SMC_NLA_STATS_T_NDLY_CNT, s->ndly_cnt },
		{ SMC_NLA_STATS_T_SPLICE_CNT, s->splice_cnt },
		{ SMC_NLA_STATS_T_URG_DATA_CNT, s->urg_data_cnt },
	};
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (smc_nl_put_buf(skb, SMC_NLA_STATS_T_TX_RMB_STATS, &s->tx_buf) ||
	    smc_nl_put_buf(skb, SMC_NLA_STATS_T_RX_RMB_STATS, &s->rx_buf) ||
	    smc_nl_put_buckets(skb, SMC_NLA_STATS_T_TXPLOAD_SIZE,
			       s->tx_pload) ||
	    smc_nl_put_buckets(skb, SMC_NLA_STATS_T_RXPLOAD_SIZE,
			       s->rx_pload) ||
	    smc_nl_put_buckets(skb, SMC_NLA_STATS_T_TX_RMB_SIZE,
			       s->tx_bufsize) ||
	    smc_nl_put_buckets(skb, SMC_NLA_STATS_T_RX_RMB_SIZE,
			       s->rx_bufsize))
		goto cancel;
	if (smc_nl_put_u64_list(skb, a, ARRAY_SIZE(a), SMC_NLA_STATS_T_PAD))
		goto cancel;
	/* gauges: a release may be counted on another CPU than its take */
	if (smc_nl_put_uint(skb, SMC_NLA_STATS_T_RX_RMB_USAGE,
			    (s64)s->rx_bufuse > 0 ? s->rx_bufuse : 0) ||
	    smc_nl_put_uint(skb, SMC_NLA_STATS_T_TX_RMB_USAGE,
			    (s64)s->tx_bufuse > 0 ? s->tx_bufuse : 0))
		goto cancel;
	if (smc_nl_put_u64_list(skb, b, ARRAY_SIZE(b), SMC_NLA_STATS_T_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int smc_gen_netlink_nl_get_stats_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb)
{
	struct smc_stats __percpu *stats = smc_net_stats(sock_net(skb->sk));
	struct smc_stats *sum;
	struct nlattr *nest;
	int rc = -EMSGSIZE;
	void *hdr;

	if (cb->args[1])
		return 0;
	sum = kmalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	smc_stats_sum(stats, sum);
	hdr = smc_nl_start(skb, cb, SMC_NETLINK_GET_STATS);
	if (!hdr)
		goto out;
	nest = nla_nest_start(skb, SMC_GEN_STATS);
	if (!nest)
		goto cancel;
	if (smc_nl_put_tech(skb, SMC_NLA_STATS_SMCD_TECH,
			    &sum->tech[SMC_STATS_D]) ||
	    smc_nl_put_tech(skb, SMC_NLA_STATS_SMCR_TECH,
			    &sum->tech[SMC_STATS_R]) ||
	    nla_put_u64_64bit(skb, SMC_NLA_STATS_CLNT_HS_ERR_CNT,
			      sum->clnt_hs_err_cnt, SMC_NLA_STATS_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_STATS_SRV_HS_ERR_CNT,
			      sum->srv_hs_err_cnt, SMC_NLA_STATS_PAD))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	cb->args[1] = 1;
	rc = skb->len;
	goto out;
cancel:
	genlmsg_cancel(skb, hdr);
out:
	kfree(sum);
	return rc;
}

/* One slot of the fallback table; the first message has the totals */
static int smc_nl_put_fback(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct smc_fback_slot *slot, bool server,
			    const struct smc_fback_stats *fb)
{
	struct nlattr *nest;
	void *hdr;

	hdr = smc_nl_start(skb, cb, SMC_NETLINK_GET_FBACK_STATS);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_FBACK_STATS);
	if (!nest)
		goto cancel;
	if (nla_put_u8(skb, SMC_NLA_FBACK_STATS_TYPE, server))
		goto cancel;
	if (!cb->args[2] &&
	    (nla_put_u64_64bit(skb, SMC_NLA_FBACK_STATS_SRV_CNT, fb->srv_cnt,
			       SMC_NLA_FBACK_STATS_PAD) ||
	     nla_put_u64_64bit(skb, SMC_NLA_FBACK_STATS_CLNT_CNT,
			       fb->clnt_cnt, SMC_NLA_FBACK_STATS_PAD)))
		goto cancel;
	if (nla_put_u32(skb, SMC_NLA_FBACK_STATS_RSN_CODE, slot->code) ||
	    nla_put_u16(skb, SMC_NLA_FBACK_STATS_RSN_CNT, slot->count))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	cb->args[2] = 1;
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Server slot k, then client slot k, for k = 0, 1, ... until both are
 * unused.  cb->args[0]: k; [1]: the server slot of k went out; [2]: a
 * message went out (the totals with it).  The table is copied under
 * its lock, so a slot filled meanwhile may show in a later message.
 */
int smc_gen_netlink_nl_get_fback_stats_dumpit(struct sk_buff *skb,
					      struct netlink_callback *cb)
{
	struct smc_fback_stats *fb = smc_net_fback(sock_net(skb->sk));
	struct smc_fback_stats *copy;
	unsigned long k;
	int rc = 0;

	copy = kmalloc(sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	mutex_lock(&fb->lock);
	memcpy(copy->srv, fb->srv, sizeof(fb->srv));
	memcpy(copy->clnt, fb->clnt, sizeof(fb->clnt));
	copy->srv_cnt = fb->srv_cnt;
	copy->clnt_cnt = fb->clnt_cnt;
	mutex_unlock(&fb->lock);

	for (k = cb->args[0]; k < SMC_FBACK_SLOTS; k++) {
		if (!copy->srv[k].code && !copy->clnt[k].code)
			break;
		if (copy->srv[k].code && !cb->args[1]) {
			rc = smc_nl_put_fback(skb, cb, &copy->srv[k], true,
					      copy);
			if (rc)
				break;
		}
		cb->args[1] = 1;
		if (copy->clnt[k].code) {
			rc = smc_nl_put_fback(skb, cb, &copy->clnt[k], false,
					      copy);
			if (rc)
				break;
		}
		cb->args[0] = k + 1;
		cb->args[1] = 0;
	}
	kfree(copy);
	/* a full message ends this round; the next one goes on */
	return rc && !skb->len ? rc : skb->len;
}
