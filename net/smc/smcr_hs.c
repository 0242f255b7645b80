// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the SMC-R part of the CLC handshake.
 *
 * Both sides, v2, and v1 for peers on the same LAN that offer no v2:
 * our RoCE device and GID for the peer, the link group (one found or a
 * new one), the buffers of the connection and the peer's RMB, and for a
 * new group its first link (QP states and CONFIRM LINK).
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/inetdevice.h>
#include <linux/random.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/sock.h>

#include "smc_conn.h"
#include "smc_eid.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smc_stats.h"
#include "smcr_dev.h"
#include "smcr.h"

/* Negotiate SMC-R at all (module parameter smcr) */
bool smc_smcr_enabled = true;

#define SMCR_RMB_MAX_COMP	5	/* our RMBs: up to 512 KiB */
#define SMCR_SNDBUF_MAX_COMP	6	/* the peer's RMB we mirror: 1 MiB */

/* Our system identifier, fixed by its first use */
static u8 smcr_sysid_val[SMC_CLC_PEER_ID_LEN];
static bool smcr_sysid_set;
static DEFINE_SPINLOCK(smcr_sysid_lock);

/*
 * Our system identifier: two random bytes, then the MAC of the first
 * port we used (@mac now, if none was).  One for the host: a v1 server
 * finds the client's link group by it, whichever device it comes from.
 */
static void smcr_sysid(const u8 *mac, u8 *id)
{
	spin_lock(&smcr_sysid_lock);
	if (!smcr_sysid_set) {
		get_random_bytes(smcr_sysid_val, 2);
		memcpy(smcr_sysid_val + 2, mac, SMC_CLC_MAC_LEN);
		smcr_sysid_set = true;
	}
	memcpy(id, smcr_sysid_val, SMC_CLC_PEER_ID_LEN);
	spin_unlock(&smcr_sysid_lock);
}

static __be32 smcr_gid_v4(const u8 *gid)
{
	struct in6_addr a;

	memcpy(&a, gid, sizeof(a));
	return ipv6_addr_v4mapped(&a) ? a.s6_addr32[3] : 0;
}

/* The PNET ID of the interface @clcsk sends on, or an empty string */
static void smcr_clcsk_pnetid(struct sock *clcsk, char *pnetid)
{
	struct net_device *ndev = smc_prefix_dev(clcsk);

	pnetid[0] = 0;
	if (!ndev)
		return;
	smc_pnet_lookup_netdev(sock_net(clcsk), ndev->name, pnetid);
	dev_put(ndev);
}

/* Our SMC-Rv2 GID for a connection over @clcsk: its IPv4 address's */
static int smcr_find_gid(struct sock *clcsk, struct smcr_gid_info *gi)
{
	char pnetid[SMC_PNETID_LEN + 1];

	if (clcsk->sk_family != AF_INET)
		return -EAFNOSUPPORT;
	smcr_clcsk_pnetid(clcsk, pnetid);
	return smcr_dev_find_v4(inet_sk(clcsk)->inet_saddr, pnetid, gi);
}

/* Our SMC-Rv1 GID for a connection over @clcsk, of the port of its LAN */
static int smcr_find_gid_v1(struct sock *clcsk, struct smcr_gid_info *gi)
{
	char pnetid[SMC_PNETID_LEN + 1] = "";
	struct net_device *ndev;
	struct in6_addr saddr;
	int rc;

	ndev = smc_prefix_dev(clcsk);
	if (!ndev)
		return -ENOTCONN;
	smc_pnet_lookup_netdev(sock_net(clcsk), ndev->name, pnetid);
	smc_prefix_gid(clcsk, &saddr);
	rc = smcr_dev_find_v1(ndev, saddr.s6_addr, pnetid, gi);
	if (!rc)
		gi->vlan = smcr_ndev_vlan(ndev);
	dev_put(ndev);
	return rc;
}

/*
 * Client: can we offer SMC-Rv2?  0 and hs->gi set, or an error.
 * hs->p.eid_cnt is set.
 */
int smcr_connect_offer(struct smc_sock *smc, struct smc_hs *hs)
{
	struct sock *clcsk = smc_clcsk(smc);

	if (READ_ONCE(smcr_v1_test) & SMCR_V1_TEST_ONLY)
		return -EOPNOTSUPP;
	if (clcsk->sk_family != AF_INET)
		return -EAFNOSUPPORT;
	/*
	 * As upstream, no SMC-Rv2 without a user EID; but a server on this
	 * host takes us without one (zero configuration), so offer it there.
	 */
	if (!hs->p.eid_cnt && !smcr_dev_v4_local(inet_sk(clcsk)->inet_daddr))
		return -ENOENT;
	return smcr_find_gid(clcsk, &hs->gi);
}

/*
 * Client: can we offer SMC-Rv1?  0 with hs->gi1 and the Proposal's v1
 * fields set (our system ID, GID, MAC and prefixes), or an error.
 */
int smcr_connect_offer_v1(struct smc_sock *smc, struct smc_hs *hs)
{
	struct smc_clc_proposal *p = &hs->p;
	struct sock *clcsk = smc_clcsk(smc);
	int rc;

	rc = smcr_find_gid_v1(clcsk, &hs->gi1);
	if (rc)
		return rc;
	rc = smc_prefix_fill(clcsk, p);
	if (rc) {
		smcr_dev_put(hs->gi1.dev);
		hs->gi1.dev = NULL;
		return rc;
	}
	smcr_sysid(hs->gi1.mac, p->peer_id);
	memcpy(p->roce_gid, hs->gi1.gid, SMC_CLC_GID_LEN);
	memcpy(p->roce_mac, hs->gi1.mac, SMC_CLC_MAC_LEN);
	return 0;
}

/* Does the peer at @gid's IPv4 address need a gateway from @clcsk? */
static int smcr_route_direct(struct sock *clcsk, const u8 *gid, bool *direct)
{
	struct flowi4 fl4 = {};
	struct rtable *rt;

	fl4.daddr = smcr_gid_v4(gid);
	fl4.saddr = inet_sk(clcsk)->inet_saddr;
	if (!fl4.daddr)
		return -EINVAL;
	rt = ip_route_output_key(sock_net(clcsk), &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	*direct = !rt->rt_uses_gateway;
	ip_rt_put(rt);
	return 0;
}

/* Our RMB and a send buffer as large as the peer's RMB (@peer_comp) */
static int smcr_conn_bufs(struct smc_sock *smc, bool rmb, u8 peer_comp)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->smcr.rlgr;
	bool reused = false;
	struct smcr_buf *buf;
	u8 comp;

	if (rmb) {
		comp = smc_buf_compress(READ_ONCE(smc->sk.sk_rcvbuf) / 2,
					SMCR_RMB_MAX_COMP);
		buf = smcr_buf_get(lgr, comp, true, &reused);
		if (!buf)
			return -ENOMEM;
		smc_stats_buf_get(smc->stats, SMC_STATS_R, true, buf->len,
				  reused, buf->comp < comp);
		c->smcr.rmb_buf = buf;
		c->rx.flat = buf->cpu;
		c->rmb_len = buf->len;
		c->rmb_ring = buf->len;
		if (!(smc->sk.sk_userlocks & SOCK_RCVBUF_LOCK))
			WRITE_ONCE(smc->sk.sk_rcvbuf, 2 * buf->len);
		return 0;
	}
	if (peer_comp > SMCR_SNDBUF_MAX_COMP)
		return -ENOMEM;
	buf = smcr_buf_get(lgr, peer_comp, false, &reused);
	/* a smaller one would not mirror the peer's ring */
	if (buf && buf->comp != peer_comp) {
		smcr_buf_put(lgr, buf);
		buf = NULL;
	}
	if (!buf)
		return -ENOMEM;
	smc_stats_buf_get(smc->stats, SMC_STATS_R, false, buf->len, reused,
			  false);
	c->smcr.snd_buf = buf;
	c->peer_len = buf->len;
	c->tx_ring = buf->len;
	c->tx.flat = buf->cpu;
	if (!(smc->sk.sk_userlocks & SOCK_SNDBUF_LOCK))
		WRITE_ONCE(smc->sk.sk_sndbuf, 2 * buf->len);
	return 0;
}

/*
 * Our RMB for a new connection.  On a group with two links, the peer
 * learns it on the other link too (CONFIRM RKEY), before our CLC
 * message names it; no link comes or goes meanwhile.
 */
static int smcr_conn_rmb(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->smcr.rlgr;
	int rc;

	if (mutex_lock_killable(&lgr->llc_flow))
		return -EINTR;
	rc = smcr_conn_bufs(smc, true, 0);
	if (!rc && lgr->ready)
		rc = smcr_llc_confirm_rkey(lgr, c->smcr.link, c->smcr.rmb_buf);
	mutex_unlock(&lgr->llc_flow);
	return rc;
}

/*
 * The peer's RMB for our RDMA writes, from its Accept or Confirm, for
 * our link @link that reaches the peer's QP the message names: kept in
 * the group's table, where the other links' rkeys of it are too.  If
 * the connection moved off @link meanwhile, the rkey on its link now
 * comes from there.  -ENOSPC when the table is full.
 */
static int smcr_conn_peer(struct smc_conn *c, struct smcr_link *link,
			  const struct smc_clc_accept *a)
{
	bool known = true;
	int rtok;

	if (!link)
		return -ENOLINK;
	rtok = smcr_rtok_add(c->smcr.rlgr, link->idx, a->r.rkey,
			     a->r.rmb_dma_addr);
	if (rtok < 0)
		return rtok;
	/* under tx_lock as a failover's writes, which may come meanwhile */
	spin_lock_bh(&c->tx_lock);
	c->smcr.rtok = rtok;
	c->smcr.peer_alert = a->r.alert_token;
	c->smcr.peer_rmb_addr = a->r.rmb_dma_addr;
	c->smcr.peer_rkey = a->r.rkey;
	if (c->smcr.link != link)
		known = smcr_rtok_get_link(c->smcr.rlgr, rtok,
					   c->smcr.link->idx,
					   &c->smcr.peer_rkey,
					   &c->smcr.peer_rmb_addr);
	spin_unlock_bh(&c->tx_lock);
	return known ? 0 : -ENOLINK;
}

/* The Decline code for a failed connection set-up */
static u32 smcr_decline_reason(int err)
{
	switch (err) {
	case -ENOMEM:
		return SMC_CLC_DECL_MEM;
	case -ENOLINK:		/* the link failed while coming up */
	case -ETIMEDOUT:
		return SMC_CLC_DECL_TIMEOUT_CL;
	case -EBADMSG:
		return SMC_CLC_DECL_RMBE_EC;
	case -EBUSY:
		return SMC_CLC_DECL_MAXCONNERR;
	case -ENOSPC:		/* the peer's RMBs: table full */
		return SMC_CLC_DECL_ERR_RTOK;
	case -EREMOTEIO:	/* CONFIRM RKEY refused */
		return SMC_CLC_DECL_ERR_REGBUF;
	default:
		return SMC_CLC_DECL_INTERR;
	}
}

/* Fill the SMC-R part of an Accept or Confirm for @smc's connection */
static void smcr_fill_r(struct smc_clc_accept *a, u8 type, bool first,
			const struct smc_sock *smc)
{
	const struct smc_conn *c = &smc->conn;
	const struct smcr_link *link = c->smcr.link;
	const struct smcr_lgr *lgr = c->smcr.rlgr;

	a->type = type;
	a->version = lgr->version;
	a->path = SMC_TYPE_R;
	a->first_contact = first;
	smcr_sysid(link->mac, a->r.peer_id);
	memcpy(a->r.gid, link->gid, SMC_CLC_GID_LEN);
	memcpy(a->r.mac, link->mac, SMC_CLC_MAC_LEN);
	a->r.qpn = link->qp_num;
	a->r.rkey = c->smcr.rmb_buf->map[link->idx].rkey;
	a->r.rmbe_idx = 1;
	a->r.alert_token = c->alert_token;
	a->r.rmbe_size = c->smcr.rmb_buf->comp;
	/* a first Accept offers our port's MTU; later ones the path's */
	a->r.qp_mtu = type == SMC_CLC_ACCEPT && first ? link->port_mtu :
		      link->mtu;
	a->r.rmb_dma_addr = c->smcr.rmb_buf->map[link->idx].iova;
	a->r.psn = link->psn;
	if (!first || lgr->version == SMC_V1)
		return;
	a->fce.v2_direct = true;
	a->fce.os_type = SMC_CLC_OS_LINUX;
	a->fce.release = lgr->release;
	smc_hs_hostname(a->fce.hostname);
	if (lgr->release >= SMC_CLC_RELEASE_1) {
		a->fce.max_conns = lgr->max_conns;
		a->fce.max_links = lgr->max_links;
		a->fce.feature_mask = SMC_CLC_FEAT_MASK;
	}
}

/* The peer's side of the new link, from its Accept or Confirm */
static void smcr_hs_link_peer(struct smcr_link *link,
			      const struct smc_clc_accept *a)
{
	memcpy(link->peer_gid, a->r.gid, SMC_CLC_GID_LEN);
	memcpy(link->peer_mac, a->r.mac, SMC_CLC_MAC_LEN);
	link->peer_qpn = a->r.qpn;
	link->peer_psn = a->r.psn;
	link->mtu = min_t(enum ib_mtu, link->port_mtu,
			  a->r.qp_mtu ?: IB_MTU_256);
}

/*
 * The TCP peer's address of @smc's handshake, IPv4 as IPv4-mapped: the
 * address a claim to join a link group is bound to
 */
static void smcr_tcp_peer(struct smc_sock *smc, struct in6_addr *addr)
{
	struct sock *clcsk = smc_clcsk(smc);

#if IS_ENABLED(CONFIG_IPV6)
	if (clcsk->sk_family == AF_INET6) {
		*addr = clcsk->sk_v6_daddr;
		return;
	}
#endif
	ipv6_addr_set_v4mapped(inet_sk(clcsk)->inet_daddr, addr);
}

/* First contact: what the peer's Accept or Confirm @a tells of it */
static void smcr_hs_note_peer(struct smcr_lgr *lgr,
			      const struct smc_clc_accept *a,
			      struct smc_sock *smc)
{
	smcr_tcp_peer(smc, &lgr->peer_addr);
	memcpy(lgr->peer_id, a->r.peer_id, SMC_CLC_PEER_ID_LEN);
	lgr->peer_os = a->fce.os_type;
	lgr->direct = a->fce.v2_direct;
	memcpy(lgr->peer_host, a->fce.hostname, SMC_CLC_HOSTNAME_LEN);
	memcpy(lgr->eid, a->eid, SMC_CLC_EID_LEN);
	lgr->net_cookie = sock_net(smc_clcsk(smc))->net_cookie;
}

/*
 * Server, first contact: the client's QP is known from its Confirm.
 * Our QP to RTS, the RMBs registered, CONFIRM LINK and its response.
 * Returns 0 or the reason to decline.
 */
static u32 smcr_server_first_link(struct smcr_lgr *lgr)
{
	struct smcr_link *link = lgr->links[0];
	struct smc_llc_msg m;
	int rc;

	rc = smcr_link_ready(link, false);
	if (!rc)
		rc = smcr_link_ready(link, true);
	if (rc)
		return SMC_CLC_DECL_ERR_RDYLNK;
	if (smcr_bufs_reg_link(lgr, link))
		return SMC_CLC_DECL_ERR_REGBUF;
	smcr_confirm_link_fill(&m, link, false);
	smcr_llc_arm(link, SMC_LLC_CONFIRM_LINK, true);
	rc = smcr_llc_send(link, &m);
	if (!rc)
		rc = smcr_llc_wait(link, SMCR_LLC_WAIT, &m);
	if (!rc && !(m.hdr.flags & SMC_LLC_FLAG_NO_RMBE_EYEC))
		rc = -EBADMSG;
	if (!rc) {
		smcr_link_peer_uid(link, &m);
		rc = smcr_link_activate(link);
	}
	if (rc)
		return smcr_decline_reason(rc);
	smcr_lgr_publish(lgr);
	/* a second link: over another device, else over this one (the
	 * client may have two)
	 */
	if (lgr->max_links >= SMC_CLC_LINKS_PER_LGR_MAX)
		smcr_lgr_want_add(lgr, false);
	return 0;
}

/*
 * Client, first contact: the server's CONFIRM LINK on our QP (RTR
 * since the Accept, the wait armed before our Confirm went out) brings
 * the link number; then our QP to RTS, our RMB registered, and the
 * response.  Returns 0 or the reason to decline.
 */
static u32 smcr_client_first_link(struct smcr_lgr *lgr)
{
	struct smcr_link *link = lgr->links[0];
	struct smc_llc_msg m;
	int rc;

	rc = smcr_llc_wait(link, SMCR_CONFIRM_WAIT, &m);
	if (!rc && !(m.hdr.flags & SMC_LLC_FLAG_NO_RMBE_EYEC))
		rc = -EBADMSG;
	if (rc)
		return smcr_decline_reason(rc);
	link->id = m.confirm_link.link_id;
	smcr_link_peer_uid(link, &m);
	if (smcr_link_ready(link, true))
		return SMC_CLC_DECL_ERR_RDYLNK;
	if (smcr_bufs_reg_link(lgr, link))
		return SMC_CLC_DECL_ERR_REGBUF;
	smcr_confirm_link_fill(&m, link, true);
	rc = smcr_llc_send(link, &m);
	if (!rc)
		rc = smcr_link_activate(link);
	if (rc)
		return smcr_decline_reason(rc);
	smcr_lgr_publish(lgr);
	return 0;
}

/*
 * Server: the link-group limits of a first contact from the client's
 * Proposal, after the rules of the CLC: 0 or the reason to decline.
 */
static u32 smcr_limits(struct smcr_lgr *lgr, struct net *net, u8 release,
		       u8 max_conns, u8 max_links)
{
	struct smc_net_smcr sp;

	lgr->release = min_t(u8, release, SMC_CLC_RELEASE_MAX);
	if (lgr->release < SMC_CLC_RELEASE_1) {
		lgr->max_conns = SMC_CLC_CONNS_PER_LGR_MAX;
		lgr->max_links = SMC_CLC_LINKS_PER_LGR_MAX;
		return 0;
	}
	if (max_conns < SMC_CLC_CONNS_PER_LGR_MIN)
		return SMC_CLC_DECL_MAXCONNERR;
	if (max_links < SMC_CLC_LINKS_PER_LGR_MIN)
		return SMC_CLC_DECL_MAXLINKERR;
	/* the smaller of the client's wish and ours */
	smc_net_smcr(net, &sp);
	lgr->max_conns = min_t(int, max_conns, sp.max_conns);
	lgr->max_links = min_t(int, max_links, sp.max_links);
	return 0;
}

/*
 * Client, first contact: the GIDs of the Confirm, the first link's and
 * one for a second link if we have another device (as upstream sends;
 * servers read none of it)
 */
static void smcr_fill_fc_gids(struct smc_clc_accept *a,
			      const struct smcr_link *link)
{
	struct smcr_gid_info gi;

	a->fc_gid_cnt = 1;
	memcpy(a->fc_gids[0], link->gid, SMC_CLC_GID_LEN);
	if (smcr_dev_find_alt(link->gid, link->dev, link->port, &gi))
		return;
	memcpy(a->fc_gids[a->fc_gid_cnt++], gi.gid, SMC_CLC_GID_LEN);
	smcr_dev_put(gi.dev);
}

/*
 * The Decline for a link group that could not be made: memory this
 * host lacks is the peer's to know as such, anything else means the
 * device cannot serve the group.
 */
static u32 smcr_lgr_decline(const struct smcr_lgr *lgr)
{
	return PTR_ERR(lgr) == -ENOMEM ? SMC_CLC_DECL_MEM :
					 SMC_CLC_DECL_NOSMCRDEV;
}

/*
 * Undo a connection's set-up on @lgr, and @first: the group made for it.
 * A peer's DELETE LINK may have ended the group meanwhile, its own
 * reference gone with it: then the connection's was the last, and ours
 * keeps the group for the discard.
 */
static void smcr_hs_undo(struct smc_sock *smc, struct smcr_lgr *lgr,
			 bool first)
{
	if (first)
		refcount_inc(&lgr->refs);
	smcr_conn_teardown(smc);
	if (first) {
		smcr_lgr_discard(lgr);
		smcr_lgr_put(lgr);
	}
}

/*
 * Client: the server took our SMC-Rv2 or SMC-Rv1 offer.  Make or find
 * the link group, our buffers, confirm, and bring up a new link.
 * Returns 0 on SMC-R or fallback, or a negative error that fails the
 * connect.
 */
int smcr_connect_accept(struct smc_sock *smc, struct smc_hs *hs)
{
	struct smc_clc_accept *a = &hs->a;
	struct smcr_link *link = NULL;
	bool first = a->first_contact;
	u8 version = a->version;
	u8 eid[SMC_CLC_EID_LEN];
	struct smcr_lgr *lgr;
	struct in6_addr peer;
	u32 reason;
	int rc, len;

	if (first) {
		if (version >= SMC_V2 && a->fce.release >= SMC_CLC_RELEASE_1 &&
		    (a->fce.max_conns < SMC_CLC_CONNS_PER_LGR_MIN ||
		     a->fce.max_links < SMC_CLC_LINKS_PER_LGR_MIN ||
		     a->fce.max_links > SMC_CLC_LINKS_PER_LGR_MAX)) {
			smc_hs_decline(smc, a->fce.max_conns <
					    SMC_CLC_CONNS_PER_LGR_MIN ?
					    SMC_CLC_DECL_MAXCONNERR :
					    SMC_CLC_DECL_MAXLINKERR,
				       a->version);
			return 0;
		}
		lgr = smcr_lgr_create(SMCR_LGR_CLIENT,
				      version == SMC_V1 ? &hs->gi1 : &hs->gi,
				      sock_net(&smc->sk), version);
		if (IS_ERR(lgr)) {
			smc_hs_decline(smc, smcr_lgr_decline(lgr),
				       a->version);
			return 0;
		}
		/* the server's values, checked above; v1 has release 0 */
		lgr->release = version == SMC_V1 ? SMC_CLC_RELEASE_0 :
			       min_t(u8, a->fce.release, SMC_CLC_RELEASE_MAX);
		lgr->max_conns = SMC_CLC_CONNS_PER_LGR_MAX;
		lgr->max_links = SMC_CLC_LINKS_PER_LGR_MAX;
		if (lgr->release >= SMC_CLC_RELEASE_1) {
			lgr->max_conns = a->fce.max_conns;
			lgr->max_links = a->fce.max_links;
		}
		smcr_hs_note_peer(lgr, a, smc);
		link = lgr->links[0];
		smcr_hs_link_peer(link, a);
		rc = smcr_link_ready(link, false);
		if (rc) {
			smcr_lgr_discard(lgr);
			smcr_lgr_put(lgr);
			smc_hs_decline(smc, SMC_CLC_DECL_ERR_RDYLNK,
				       a->version);
			return 0;
		}
	} else {
		smcr_tcp_peer(smc, &peer);
		lgr = smcr_lgr_find_client(sock_net(&smc->sk), a, &link,
					   &peer);
		if (!lgr) {
			smc_hs_decline(smc, SMC_CLC_DECL_SYNCERR, a->version);
			return 0;
		}
	}
	smc_conn_init(&smc->conn);
	INIT_WORK(&smc->conn.smcr.release_work, smcr_conn_release_work);
	rc = smcr_lgr_add_conn(lgr, smc, link);
	if (rc) {
		if (first)
			smcr_lgr_discard(lgr);
		smcr_lgr_put(lgr);
		smc_hs_decline(smc, smcr_decline_reason(rc), a->version);
		return 0;
	}
	rc = smcr_conn_rmb(smc);
	if (!rc)
		rc = smcr_conn_bufs(smc, false, a->r.rmbe_size);
	if (!rc)
		rc = smcr_conn_peer(&smc->conn, first ? lgr->links[0] : link,
				    a);
	if (rc)
		goto out_decline;

	memcpy(eid, a->eid, SMC_CLC_EID_LEN);
	memset(a, 0, sizeof(*a));
	smcr_fill_r(a, SMC_CLC_CONFIRM, first, smc);
	memcpy(a->eid, eid, SMC_CLC_EID_LEN);
	if (first && version >= SMC_V2)
		smcr_fill_fc_gids(a, link);
	len = smc_clc_build_accept(hs->buf, sizeof(hs->buf), a);
	/* the server's CONFIRM LINK may come before we are back */
	if (first)
		smcr_llc_arm(link, SMC_LLC_CONFIRM_LINK, false);
	rc = len < 0 ? len : smc_clc_send(smc, hs->buf, len);
	if (rc) {
		smcr_hs_undo(smc, lgr, first);
		return rc;
	}
	reason = first ? smcr_client_first_link(lgr) : 0;
	if (reason)
		goto out_decline_reason;
	smc_conn_start(smc, SMC_PATH_SMCR);
	return 0;

out_decline:
	reason = smcr_decline_reason(rc);
out_decline_reason:
	smcr_hs_undo(smc, lgr, first);
	smc_hs_late_decline(smc, reason, version);
	return 0;
}

/*
 * Server, reused group: the client's Confirm came, but we cannot take
 * the connection.  The client runs SMC-R since it sent the Confirm and
 * may be writing into our RMB: a Decline on TCP would go unread, and
 * the RMB must not serve another connection while the client may
 * hold an rkey of it, so it is retired: freed once its memory regions
 * are gone on every link.  Tell the client over the link that the
 * connection is aborted, by the alert token of its Confirm, unless a
 * connection of the group already has that token: the client chose
 * it, and one that claims another host's GID must not abort that
 * host's connections.
 */
static void smcr_listen_abort(struct smc_sock *child, u32 token)
{
	struct smc_conn *c = &child->conn;
	int rc;

	c->smcr.rmb_kept = true;
	if (smcr_lgr_peer_token_used(c->smcr.rlgr, token, child))
		return;
	rc = smcr_tx_prepare(child, false);
	spin_lock_bh(&c->tx_lock);
	c->smcr.peer_alert = token;
	c->tx_conn_flags |= SMC_CDC_CS_ABORT;
	if (!rc)
		smcr_tx_write(child);
	spin_unlock_bh(&c->tx_lock);
	if (rc)
		pr_warn_ratelimited("smc: no send slot to abort a connection: %d\n",
				    rc);
}

/*
 * Server, before any device search: can the client's SMC-Rv2 offer be
 * taken at all?  Upstream drops it when it names no EID.  We take it
 * from a client whose GID is one of ours (this host) all the same: the
 * zero-configuration rule of loopback-ism.
 */
u32 smcr_listen_v2_check(const struct smc_clc_proposal *p)
{
	if (p->eid_cnt || smcr_dev_gid_local(p->roce_v2_gid))
		return 0;
	return SMC_CLC_DECL_NOUEID;
}

/*
 * Server: is there a device for the client's SMC-Rv2 offer?  0 with
 * hs->gi and hs->eid set, else the reason to decline.  A client not on
 * this host must offer a user EID we have.
 */
u32 smcr_listen_check(struct smc_sock *child, struct smc_hs *hs)
{
	const struct smc_clc_proposal *p = &hs->p;
	bool direct;

	if (!READ_ONCE(smc_smcr_enabled))
		return SMC_CLC_DECL_NOSMCRDEV;
	if (!smcr_gid_v4(p->roce_v2_gid))
		return SMC_CLC_DECL_NOSMCRDEV;
	if (!smc_ueid_match(&p->eids[0][0], p->eid_cnt, hs->eid)) {
		if (!smcr_dev_gid_local(p->roce_v2_gid))
			return SMC_HS_SILENT;
		if (p->eid_cnt)
			memcpy(hs->eid, p->eids[0], SMC_CLC_EID_LEN);
	}
	/* upstream finds no device when there is no route: no own code */
	if (smcr_route_direct(smc_clcsk(child), p->roce_v2_gid, &direct))
		return SMC_CLC_DECL_NOSMCRDEV;
	if (smcr_find_gid(smc_clcsk(child), &hs->gi))
		return SMC_CLC_DECL_NOSMCRDEV;
	return 0;
}

/*
 * Server: can we take the client's SMC-Rv1 offer?  0 with hs->gi1 set,
 * else the reason to decline.  The caller checked that the client is on
 * our LAN (a prefix of its interface is ours); we need a RoCE port on it.
 */
u32 smcr_listen_check_v1(struct smc_sock *child, struct smc_hs *hs)
{
	if (!READ_ONCE(smc_smcr_enabled))
		return SMC_CLC_DECL_NOSMCDEV;
	if (smcr_find_gid_v1(smc_clcsk(child), &hs->gi1))
		return SMC_CLC_DECL_NOSMCDEV;
	return 0;
}

/*
 * Server: SMC-R @version over the GID smcr_listen_check() or
 * smcr_listen_check_v1() found.  Returns 0 on SMC-R or fallback, a
 * negative error when the connection must be dropped.
 */
int smcr_listen_accept(struct smc_sock *child, struct smc_hs *hs, u8 version)
{
	const struct smcr_gid_info *gi = version == SMC_V1 ? &hs->gi1 :
							     &hs->gi;
	struct smc_clc_proposal *p = &hs->p;
	struct smc_clc_accept *a = &hs->a;
	struct in6_addr peer;
	struct smcr_lgr *lgr;
	bool first = false;
	u32 reason;
	int rc, len;

	smcr_tcp_peer(child, &peer);
	lgr = smcr_lgr_find_server(sock_net(&child->sk), p, version, &peer);
	if (!lgr) {
		first = true;
		lgr = smcr_lgr_create(SMCR_LGR_SERVER, gi,
				      sock_net(&child->sk), version);
		if (IS_ERR(lgr)) {
			smc_hs_decline(child, smcr_lgr_decline(lgr),
				       p->version);
			return 0;
		}
		/* v1 knows no release, nor limits to agree on */
		reason = smcr_limits(lgr, sock_net(&child->sk),
				     version == SMC_V1 ? SMC_CLC_RELEASE_0 :
				     p->release, p->max_conns, p->max_links);
		if (reason) {
			smcr_lgr_discard(lgr);
			smcr_lgr_put(lgr);
			smc_hs_decline(child, reason, p->version);
			return 0;
		}
		memcpy(lgr->links[0]->peer_gid, version == SMC_V1 ?
		       p->roce_gid : p->roce_v2_gid, SMC_CLC_GID_LEN);
	}
	smc_conn_init(&child->conn);
	INIT_WORK(&child->conn.smcr.release_work, smcr_conn_release_work);
	rc = smcr_lgr_add_conn(lgr, child, NULL);
	if (rc) {
		if (first)
			smcr_lgr_discard(lgr);
		smcr_lgr_put(lgr);
		smc_hs_decline(child, smcr_decline_reason(rc), p->version);
		return 0;
	}
	rc = smcr_conn_rmb(child);
	if (rc)
		goto out_decline;

	smcr_fill_r(a, SMC_CLC_ACCEPT, first, child);
	memcpy(a->eid, hs->eid, SMC_CLC_EID_LEN);
	len = smc_clc_build_accept(hs->buf, sizeof(hs->buf), a);
	rc = len < 0 ? len : smc_clc_send(child, hs->buf, len);
	if (rc)
		goto out_teardown;

	len = smc_hs_recv(child, hs, SMC_CLC_CONFIRM, SMC_CLC_PROPOSAL_MAX_LEN);
	rc = min(len, 0);
	if (len <= 0)
		goto out_teardown;
	rc = -EPROTO;
	if (smc_clc_parse_accept(hs->buf, len, a) || a->path != SMC_TYPE_R ||
	    a->first_contact != first || a->version != version)
		goto out_teardown;
	if (first && version >= SMC_V2 && a->fce.release != lgr->release) {
		rc = 0;
		reason = SMC_CLC_DECL_RELEASEERR;
		goto out_decline_reason;
	}
	/* the client takes our limits as they are, or not at all */
	if (first && lgr->release >= SMC_CLC_RELEASE_1 &&
	    (a->fce.max_conns != lgr->max_conns ||
	     a->fce.max_links != lgr->max_links)) {
		rc = 0;
		reason = a->fce.max_conns != lgr->max_conns ?
			 SMC_CLC_DECL_MAXCONNERR : SMC_CLC_DECL_MAXLINKERR;
		goto out_decline_reason;
	}
	rc = smcr_conn_peer(&child->conn,
			    first ? lgr->links[0] :
			    smcr_lgr_peer_link(lgr, a->r.gid, a->r.qpn), a);
	if (!rc)
		rc = smcr_conn_bufs(child, false, a->r.rmbe_size);
	if (rc && !first) {
		smcr_listen_abort(child, a->r.alert_token);
		goto out_teardown;
	}
	if (rc)
		goto out_decline;
	if (first) {
		smcr_hs_note_peer(lgr, a, child);
		smcr_hs_link_peer(lgr->links[0], a);
		reason = smcr_server_first_link(lgr);
		if (reason)
			goto out_decline_reason;
	}
	smc_conn_start(child, SMC_PATH_SMCR);
	return 0;

out_decline:
	reason = smcr_decline_reason(rc);
out_decline_reason:
	smcr_hs_undo(child, lgr, first);
	smc_hs_late_decline(child, reason, version);
	return 0;

out_teardown:
	/* the client has no group to match ours: end it (spec: SYNCERR) */
	if (child->peer_sync_err && !first) {
		refcount_inc(&lgr->refs);
		smcr_conn_teardown(child);
		smcr_lgr_terminate(lgr, SMC_CLC_DECL_SYNCERR);
		smcr_lgr_put(lgr);
		return rc;
	}
	smcr_hs_undo(child, lgr, first);
	return rc;
}
