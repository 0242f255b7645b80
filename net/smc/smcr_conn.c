// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-R connections.
 *
 * The SMC-R part of the CLC handshake on both sides (v2, and v1 for
 * peers on the same LAN that offer no v2), the first link
 * of a new link group (QP states and CONFIRM LINK), the buffers of a
 * connection, and its messages: the data between the last published
 * producer cursor and the new one goes as RDMA writes from our send
 * buffer to the same offsets of the peer's RMB, chained with the CDC
 * message that announces it.
 *
 * Our send buffer is as large as the peer's RMB, so that the write
 * offsets are the ring offsets and the room in the peer's ring is all
 * that limits a writer: the bytes between the peer's consumer cursor
 * and ours are both in flight and not yet overwritable.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/inetdevice.h>
#include <linux/random.h>
#include <linux/smc_diag.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_eid.h"
#include "smcr_dev.h"
#include "smcr_link.h"

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
	struct smcr_lgr *lgr = c->rlgr;
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
		c->rmb_buf = buf;
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
	c->snd_buf = buf;
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
	struct smcr_lgr *lgr = c->rlgr;
	int rc;

	if (mutex_lock_killable(&lgr->llc_flow))
		return -EINTR;
	rc = smcr_conn_bufs(smc, true, 0);
	if (!rc && lgr->ready)
		rc = smcr_llc_confirm_rkey(lgr, c->link, c->rmb_buf);
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
	rtok = smcr_rtok_add(c->rlgr, link->idx, a->r.rkey,
			     a->r.rmb_dma_addr);
	if (rtok < 0)
		return rtok;
	/* under tx_lock as a failover's writes, which may come meanwhile */
	spin_lock_bh(&c->tx_lock);
	c->rtok = rtok;
	c->peer_alert = a->r.alert_token;
	c->peer_rmb_addr = a->r.rmb_dma_addr;
	c->peer_rkey = a->r.rkey;
	if (c->link != link)
		known = smcr_rtok_get_link(c->rlgr, rtok, c->link->idx,
					   &c->peer_rkey, &c->peer_rmb_addr);
	spin_unlock_bh(&c->tx_lock);
	return known ? 0 : -ENOLINK;
}

/*
 * The link an SMC-R connection uses now, for sock_diag: false when it
 * has none.  Atomic context.  Until the connection is torn down (both
 * under tx_lock) it holds its group, and the group its links.
 */
bool smcr_conn_diag_lgr(struct smc_sock *smc, struct smc_diag_lgrinfo *li)
{
	struct smc_diag_linkinfo *l = &li->lnk[0];
	struct smc_conn *c = &smc->conn;
	struct smcr_link *link;
	bool ok = false;

	spin_lock_bh(&c->tx_lock);
	link = c->link;
	if (c->rlgr && link && !c->torn) {
		l->link_id = link->id;
		strscpy((char *)l->ibname, link->ibname, sizeof(l->ibname));
		l->ibport = link->port;
		smc_gid_str((char *)l->gid, link->gid);
		smc_gid_str((char *)l->peer_gid, link->peer_gid);
		li->role = c->rlgr->role;
		ok = true;
	}
	spin_unlock_bh(&c->tx_lock);
	return ok;
}
EXPORT_SYMBOL_GPL(smcr_conn_diag_lgr);

void smcr_conn_teardown(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->rlgr;
	struct smcr_slot *slot;

	if (!lgr)
		return;
	/* a move of the connection finds it gone and leaves it alone */
	spin_lock_bh(&c->tx_lock);
	c->torn = true;
	slot = c->tx_slot;
	c->tx_slot = NULL;
	spin_unlock_bh(&c->tx_lock);
	if (slot)
		smcr_slot_put(slot);
	/*
	 * Out of the token table first.  A CDC handler that found us just
	 * before may still read the ring: it stays valid, the buffer
	 * belongs to the group's pool until the group is freed (a retired
	 * one waits for such handlers).
	 */
	smcr_lgr_del_conn(smc);
	if (c->orphan)
		atomic_dec(&lgr->orphans);
	smcr_rtok_put(lgr, c->rtok);
	c->rtok = -1;
	smc_ring_clear(&c->tx);
	if (c->rmb_buf)
		smc_stats_buf_put(smc->stats, SMC_STATS_R, true,
				  c->rmb_buf->len);
	if (c->snd_buf)
		smc_stats_buf_put(smc->stats, SMC_STATS_R, false,
				  c->snd_buf->len);
	/* the peer may still hold rkeys of a kept RMB */
	if (c->rmb_kept)
		smcr_buf_retire(lgr, c->rmb_buf);
	else
		smcr_buf_put(lgr, c->rmb_buf);
	smcr_buf_put(lgr, c->snd_buf);
	c->rmb_buf = NULL;
	c->snd_buf = NULL;
	c->rlgr = NULL;
	c->link = NULL;
	smcr_lgr_put(lgr);
}

/*
 * Has the peer stopped writing into our RMB?  rx_lock held.  Only its
 * own word counts, or the end of the group (no QP is left): not a
 * failed link (the peer goes on over the other one), nor an abort of
 * ours it has not heard of.
 */
static bool smcr_peer_stopped(const struct smc_conn *c)
{
	lockdep_assert_held(&c->rx_lock);
	return c->peer_stopped;
}

static void smcr_conn_release_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock,
					    conn.release_work);

	smcr_conn_teardown(smc);
	sock_put(&smc->sk);
}

/*
 * The application released the socket.  The RMB goes back to the
 * link group's pool only once the peer writes no more into it (its
 * RDMA writes would land in the next connection's data): until the
 * peer says it is done, or the link group ends, the connection stays
 * as an orphan holding the socket.  As TCP's orphans in FIN_WAIT2, for
 * tcp_fin_timeout of the netns at most, and SMCR_ORPHANS_MAX a group:
 * then smcr_conn_reap().  smc sock lock held.
 */
void smcr_conn_release(struct smc_sock *smc)
{
	struct net *net = sock_net(&smc->sk);
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->rlgr;
	unsigned long end = jiffies;
	bool now;

	smc_owned_by_me(smc);
	smc_rx_write_lock(c);
	now = smcr_peer_stopped(c);
	if (!now) {
		sock_hold(&smc->sk);
		c->orphan = true;
		if (atomic_inc_return(&lgr->orphans) <= SMCR_ORPHANS_MAX)
			end += max(READ_ONCE(net->ipv4.sysctl_tcp_fin_timeout),
				   0);
		c->orphan_end = end;
		/* the group outlives the timer's arming */
		refcount_inc(&lgr->refs);
	}
	smc_rx_write_unlock(c);
	if (now) {
		smcr_conn_teardown(smc);
		return;
	}
	smcr_lgr_orphan_at(lgr, end);
	smcr_lgr_put(lgr);
}

/*
 * For the orphan work of the group (smcr_lgrs_lock held): is @smc an
 * orphan whose time is up?  Then it is the caller's to reap.  Else, if
 * it is an orphan, *later is set and *next moved to its end if that
 * comes first.
 */
bool smcr_conn_orphan_due(struct smc_sock *smc, unsigned long *next,
			  bool *later)
{
	struct smc_conn *c = &smc->conn;
	bool due = false;

	lockdep_assert_held(&smcr_lgrs_lock);
	smc_rx_write_lock(c);
	if (c->orphan && !c->release_queued) {
		if (time_after_eq(jiffies, c->orphan_end)) {
			c->release_queued = true;
			due = true;
		} else if (!*later || time_before(c->orphan_end, *next)) {
			*next = c->orphan_end;
			*later = true;
		}
	}
	smc_rx_write_unlock(c);
	return due;
}

/*
 * An orphan whose peer never said it was done, for too long, or one
 * too many: the peer is told that the connection is aborted (if a send
 * slot comes), and the RMB is freed only once its memory regions are
 * gone on every link (smcr_buf_retire()): a later write of the peer
 * with its old rkey fails.  Process context; the caller claimed the
 * orphan (smcr_conn_orphan_due()), so nothing else tears it down.
 */
void smcr_conn_reap(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;

	lock_sock(&smc->sk);
	smc_send_conn_flags(smc, SMC_CDC_CS_ABORT);
	WRITE_ONCE(c->tx_dead, true);
	c->rmb_kept = true;
	release_sock(&smc->sk);
	smcr_conn_teardown(smc);
	sock_put(&smc->sk);	/* the orphan's */
}

/* The peer's flags changed or the link went down: an orphan may go */
void smcr_conn_peer_done(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	bool queue;

	smc_rx_write_lock(c);
	queue = c->orphan && !c->release_queued && smcr_peer_stopped(c);
	if (queue)
		c->release_queued = true;
	smc_rx_write_unlock(c);
	if (queue)
		queue_work(smc_wq, &c->release_work);
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
	const struct smcr_link *link = c->link;
	const struct smcr_lgr *lgr = c->rlgr;

	a->type = type;
	a->version = lgr->version;
	a->path = SMC_TYPE_R;
	a->first_contact = first;
	smcr_sysid(link->mac, a->r.peer_id);
	memcpy(a->r.gid, link->gid, SMC_CLC_GID_LEN);
	memcpy(a->r.mac, link->mac, SMC_CLC_MAC_LEN);
	a->r.qpn = link->qp_num;
	a->r.rkey = c->rmb_buf->map[link->idx].rkey;
	a->r.rmbe_idx = 1;
	a->r.alert_token = c->alert_token;
	a->r.rmbe_size = c->rmb_buf->comp;
	/* a first Accept offers our port's MTU; later ones the path's */
	a->r.qp_mtu = type == SMC_CLC_ACCEPT && first ? link->port_mtu :
		      link->mtu;
	a->r.rmb_dma_addr = c->rmb_buf->map[link->idx].iova;
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
static void smcr_link_peer(struct smcr_link *link,
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
static void smcr_lgr_note_peer(struct smcr_lgr *lgr,
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
	struct smc_net *sn = smc_net(net);

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
	lgr->max_conns = min_t(int, max_conns,
			       READ_ONCE(sn->smcr_max_conns_per_lgr));
	lgr->max_links = min_t(int, max_links,
			       READ_ONCE(sn->smcr_max_links_per_lgr));
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
		smcr_lgr_note_peer(lgr, a, smc);
		link = lgr->links[0];
		smcr_link_peer(link, a);
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
	INIT_WORK(&smc->conn.release_work, smcr_conn_release_work);
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
		smcr_conn_teardown(smc);
		if (first)
			smcr_lgr_discard(lgr);
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
	smcr_conn_teardown(smc);
	if (first)
		smcr_lgr_discard(lgr);
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

	c->rmb_kept = true;
	if (smcr_lgr_peer_token_used(c->rlgr, token, child))
		return;
	rc = smcr_tx_prepare(child, false);
	spin_lock_bh(&c->tx_lock);
	c->peer_alert = token;
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
	INIT_WORK(&child->conn.release_work, smcr_conn_release_work);
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
		smcr_lgr_note_peer(lgr, a, child);
		smcr_link_peer(lgr->links[0], a);
		reason = smcr_server_first_link(lgr);
		if (reason)
			goto out_decline_reason;
	}
	smc_conn_start(child, SMC_PATH_SMCR);
	return 0;

out_decline:
	reason = smcr_decline_reason(rc);
out_decline_reason:
	smcr_conn_teardown(child);
	if (first)
		smcr_lgr_discard(lgr);
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
	smcr_conn_teardown(child);
	if (first)
		smcr_lgr_discard(lgr);
	return rc;
}

/*
 * A slot for the next CDC of the connection: may wait up to
 * SMCR_SLOT_WAIT when the link's send queue is full.  While the
 * connection moves off a failed link, the wait goes on until it is on
 * the other one, up to SMCR_FAILOVER_WAIT.  smc sock lock held: one
 * reservation per connection.
 *
 * Both waits end at a fatal signal (-EINTR), also for the messages
 * that should reach the peer (@killable false: the close flags, the
 * consumer cursor of recvmsg): a peer that completes none of our sends
 * must not hold a dying task in D state.  Nothing claims the message
 * went out then: the flags stay set in tx_conn_flags and the cursors
 * sent are not advanced, so the next CDC of the connection (the
 * failover resend included) carries all of it; a closed connection
 * stays an orphan until the peer is done or its link goes down.
 * Without a fatal signal the waits are what they were.
 */
int smcr_tx_prepare(struct smc_sock *smc, bool killable)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->rlgr;
	struct smcr_link *link;
	struct smcr_slot *slot;
	bool taken;
	long left;

	smc_owned_by_me(smc);
	if (c->tx_slot)
		return 0;
	for (;;) {
		if (READ_ONCE(c->tx_dead))
			return -EPIPE;
		link = READ_ONCE(c->link);
		if (!READ_ONCE(c->tx_moving)) {
			slot = smcr_slot_get(link, true);
			if (!IS_ERR(slot)) {
				spin_lock_bh(&c->tx_lock);
				taken = c->link == link && !c->tx_moving;
				if (taken)
					c->tx_slot = slot;
				spin_unlock_bh(&c->tx_lock);
				if (taken)
					return 0;
				smcr_slot_put(slot);	/* moving meanwhile */
				continue;
			}
			if (PTR_ERR(slot) == -EINTR)
				return -EINTR;
		}
		left = wait_event_killable_timeout(lgr->moved_wq,
						   (READ_ONCE(c->link) != link &&
						    !READ_ONCE(c->tx_moving)) ||
						   READ_ONCE(c->tx_dead),
						   SMCR_FAILOVER_WAIT);
		if (left < 0)
			return -EINTR;
		if (!left)
			return -EPIPE;
	}
}

/*
 * Post the data produced since the last message as RDMA writes (two
 * when it wraps around the ring), then the CDC in @slot with our
 * cursors and flags (and @pflags), in one chain.  tx_lock held.
 */
static void __smcr_tx_write(struct smc_sock *smc, struct smcr_slot *slot)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_link *link = c->link;
	struct ib_device *ibdev = link->dev->ibdev;
	struct ib_rdma_wr wr[2] = {};
	struct smcr_buf_map *mp = NULL;
	struct smcr_cdc_msg m = {};
	struct ib_sge sge[2];
	unsigned int n = 0;
	u32 len, off, chunk;

	lockdep_assert_held(&c->tx_lock);
	len = smc_curs_diff(c->tx_ring, &c->tx_prod_sent, &c->tx_prod);
	off = c->tx_prod_sent.count;
	if (len) {
		mp = &c->snd_buf->map[link->idx];
		/* vmalloc'ed: gathered through its memory region */
		if (c->snd_buf->virt)
			smcr_buf_sync_pages(ibdev, mp);
	}
	while (len && n < 2) {
		chunk = min(len, c->tx_ring - off);
		sge[n].length = chunk;
		if (c->snd_buf->virt) {
			sge[n].addr = mp->iova + off;
			sge[n].lkey = mp->mr->lkey;
		} else {
			sge[n].addr = mp->dma + off;
			sge[n].lkey = link->pd->pd->local_dma_lkey;
			ib_dma_sync_single_for_device(ibdev, sge[n].addr,
						      chunk, DMA_TO_DEVICE);
		}
		wr[n].wr.opcode = IB_WR_RDMA_WRITE;
		wr[n].wr.sg_list = &sge[n];
		wr[n].wr.num_sge = 1;
		wr[n].remote_addr = c->peer_rmb_addr + off;
		wr[n].rkey = c->peer_rkey;
		n++;
		len -= chunk;
		off = 0;
	}

	m.seqno = ++c->cdc_tx_seq;
	m.token = c->peer_alert;
	m.prod = c->tx_prod;
	/* recvmsg moves it under rx_lock, not ours: whole, never torn */
	m.cons = smc_rx_curs(c, &c->rx_cons);
	m.prod_flags = c->tx_prod_flags;
	m.conn_state_flags = c->tx_conn_flags;
	/* test mode: the flags in a CDC the peer must drop as stale */
	if (m.conn_state_flags &&
	    (READ_ONCE(smcr_llc_test) & SMCR_LLC_TEST_STALE))
		m.seqno -= 2;
	smcr_cdc_build(slot->buf, SMCR_SLOT_LEN, &m);
	slot->cdc = true;
	slot->seq = c->cdc_tx_seq;
	slot->token = c->alert_token;
	/* a failed post takes the link down; the connection moves */
	smcr_slot_post_writes(slot, wr, n, c->snd_buf);
	c->rx_cons_sent = m.cons;
	c->tx_prod_sent = m.prod;
}

/*
 * Send what smc_tx_prepare() reserved a slot for.  tx_lock held.  A
 * connection on the move sends nothing: the move sends it all over the
 * new link, and owes the sender a slot there.
 */
void smcr_tx_write(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_slot *slot;

	lockdep_assert_held(&c->tx_lock);
	slot = c->tx_slot;
	if (!slot)
		return;
	c->tx_slot = NULL;
	if (c->tx_moving || slot->link != c->link) {
		smcr_slot_put(slot);
		c->tx_owed = true;
		return;
	}
	__smcr_tx_write(smc, slot);
}

/*
 * The connection is broken for us (the peer's failover validation says
 * it lost messages of ours, or it could not move): readers and writers
 * see the abort.  Our close then tells the peer.
 */
void smcr_conn_lost(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smc_cdc_view v = {};

	smc_rx_write_lock(c);
	v.prod = c->peer_prod;
	v.cons = c->peer_cons;
	v.prod_flags = c->peer_prod_flags;
	smc_rx_write_unlock(c);
	v.conn_state_flags = SMC_CDC_CS_ABORT;
	smc_conn_rx_cdc(smc, &v);
}

/*
 * First step of a move off the failed link @from: the connection sends
 * no more (a reservation it holds there is given back, and owed), so
 * that @from can be stopped before anything is written again.
 */
void smcr_conn_hold(struct smc_sock *smc, struct smcr_link *from)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_slot *slot = NULL;

	spin_lock_bh(&c->tx_lock);
	if (!c->torn && c->link == from) {
		c->tx_moving = true;
		slot = c->tx_slot;
		c->tx_slot = NULL;
		c->tx_owed |= !!slot;
	}
	spin_unlock_bh(&c->tx_lock);
	if (slot)
		smcr_slot_put(slot);
}

/*
 * Move the connection of @smc, held by smcr_conn_hold(), from @from
 * (stopped: nothing of it lands any more) to @to.  Whatever went over
 * @from after the peer's last consumer cursor we know of is written
 * again: those bytes are still in our send buffer (we never overwrite
 * what the peer has not consumed), at the same offsets as in the
 * peer's RMB.  A validation CDC first (the peer checks it lost nothing
 * it should have), then one with the cursors and flags, which repeats
 * whatever the lost messages said.  If it cannot move (no rkey of the
 * peer's RMB on @to, no slot there), it is aborted, and the peer told
 * if a slot allows; so it is when a slot wait ends at a fatal signal.
 * 0 when moved.  Process context.
 */
int smcr_conn_failover(struct smc_sock *smc, struct smcr_lgr *lgr,
		       struct smcr_link *from, struct smcr_link *to)
{
	struct smcr_slot *slot[3] = {};
	struct smc_conn *c = &smc->conn;
	struct smcr_cdc_msg m = {};
	struct smc_cursor cons;
	bool known = true;
	int i, rc = 0;
	u64 addr = 0;
	u32 rkey = 0;

	for (i = 0; i < ARRAY_SIZE(slot); i++) {
		slot[i] = smcr_slot_get(to, true);
		if (IS_ERR(slot[i])) {
			slot[i] = NULL;
			break;
		}
	}
	cons = smc_rx_curs(c, &c->peer_cons);
	spin_lock_bh(&c->tx_lock);
	if (c->torn || c->link != from) {
		spin_unlock_bh(&c->tx_lock);
		goto out;
	}
	if (c->rtok >= 0)
		known = smcr_rtok_get_link(lgr, c->rtok, to->idx, &rkey,
					   &addr);
	WRITE_ONCE(c->link, to);
	if (!known || !slot[2]) {
		/* a CDC with the abort and no data, if we can */
		WRITE_ONCE(c->tx_dead, true);
		c->tx_conn_flags |= SMC_CDC_CS_ABORT;
		if (smc_ring_set(&c->tx) && slot[0]) {
			c->tx_prod_sent = c->tx_prod;
			__smcr_tx_write(smc, slot[0]);
			slot[0] = NULL;
		}
		rc = -ENOLINK;
	} else {
		if (c->rtok >= 0) {
			c->peer_rkey = rkey;
			c->peer_rmb_addr = addr;
		}
		if (smc_ring_set(&c->tx)) {
			c->tx_prod_sent = cons;
			m.seqno = READ_ONCE(c->cdc_tx_done);
			m.token = c->peer_alert;
			m.prod_flags = SMC_CDC_PF_FAILOVER;
			smcr_cdc_build(slot[0]->buf, SMCR_SLOT_LEN, &m);
			smcr_slot_post(slot[0]);
			__smcr_tx_write(smc, slot[1]);
			slot[0] = NULL;
			slot[1] = NULL;
		}
		if (c->tx_owed && !c->tx_slot) {
			c->tx_slot = slot[2];
			slot[2] = NULL;
		}
	}
	c->tx_owed = false;
	c->tx_moving = false;
	spin_unlock_bh(&c->tx_lock);
	if (rc)
		smcr_conn_lost(smc);
out:
	for (i = 0; i < ARRAY_SIZE(slot); i++)
		if (slot[i])
			smcr_slot_put(slot[i]);
	wake_up_all(&lgr->moved_wq);
	return rc;
}
