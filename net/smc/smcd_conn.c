// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-D connections over loopback-ism.
 *
 * The SMC-Dv2 part of the CLC handshake on both sides, the set-up of
 * the two DMBs of a connection (ours registered, the peer's attached
 * as send buffer), the doorbell handler and the tear-down.  Link
 * groups are in smcd_lgr.c, the rest of the handshake in
 * smc_handshake.c.
 */

#include <linux/hashtable.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "smc_conn.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smc_stats.h"
#include "smcd.h"

/* Negotiate SMC-D at all (module parameter smcd) */
bool smc_smcd_enabled = true;

/* The peer wrote a new header into our DMB: take the cursors in */
static void smcd_conn_notify(struct smcd_dmb *dmb, void *priv)
{
	struct smcd_cdc_hdr h;
	struct smc_cdc_view v;
	u64 prod, cons;

	prod = READ_ONCE(*(u64 *)(dmb->hdr + SMCD_CDC_PROD_OFF));
	cons = READ_ONCE(*(u64 *)(dmb->hdr + SMCD_CDC_CONS_OFF));
	smcd_cdc_unpack_prod(prod, &h);
	smcd_cdc_unpack_cons(cons, &h);
	v.prod = h.prod;
	v.cons = h.cons;
	v.prod_flags = h.prod_flags;
	v.conn_state_flags = h.conn_state_flags;
	smc_conn_rx_cdc(priv, &v);
}

/* Write our cursors and flags into the peer's DMB header; tx_lock held */
static void smcd_tx_write(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcd_dmb *peer = c->smcd.peer;
	struct smcd_cdc_hdr h = {};

	lockdep_assert_held(&c->tx_lock);
	h.prod = c->tx_prod;
	/* recvmsg moves it under rx_lock, not ours: whole, never torn */
	h.cons = smc_rx_curs(c, &c->rx_cons);
	h.prod_flags = c->tx_prod_flags;
	h.conn_state_flags = c->tx_conn_flags;
	/* the data (and our reads) before the cursors that announce them */
	smp_wmb();
	WRITE_ONCE(*(u64 *)(peer->hdr + SMCD_CDC_PROD_OFF),
		   smcd_cdc_pack_prod(&h));
	WRITE_ONCE(*(u64 *)(peer->hdr + SMCD_CDC_CONS_OFF),
		   smcd_cdc_pack_cons(&h));
	c->rx_cons_sent = h.cons;
	c->tx_prod_sent = h.prod;
}

/* The peer's doorbell, once tx_lock is dropped */
static void smcd_tx_done(struct smc_sock *smc)
{
	smcd_dmb_signal(smc->conn.smcd.peer);
}

/*
 * loopback-ism has SMC_LO_MAX_DMBS for the whole host.  Any user may
 * make network namespaces, so each one but init_net gets an eighth of
 * them, and all of those together half: the host's own connections
 * always find DMBs.  In init_net, each user but root may own an eighth
 * too (a socket's user is its owner, a listener's child its
 * listener's), so that no one user takes them all.
 */
#define SMCD_NETNS_DMBS		(SMC_LO_MAX_DMBS / 8)
#define SMCD_USER_NETS_DMBS	(SMC_LO_MAX_DMBS / 2)

static atomic_t smcd_user_nets_dmbs = ATOMIC_INIT(0);

/* The DMBs of a user of init_net, while it owns any */
struct smcd_user_dmbs {
	struct hlist_node	node;
	kuid_t			uid;
	unsigned int		n;
};

static DEFINE_HASHTABLE(smcd_users, 6);
static DEFINE_SPINLOCK(smcd_users_lock);

static struct smcd_user_dmbs *smcd_user_find(kuid_t uid)
{
	struct smcd_user_dmbs *u;

	lockdep_assert_held(&smcd_users_lock);
	hash_for_each_possible(smcd_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/* May @uid own one more DMB in init_net?  Counts it if so */
static bool smcd_user_get(kuid_t uid)
{
	struct smcd_user_dmbs *u, *fresh = NULL;
	bool ok;

	if (uid_eq(uid, GLOBAL_ROOT_UID))
		return true;
again:
	spin_lock_bh(&smcd_users_lock);
	u = smcd_user_find(uid);
	if (!u && fresh) {
		u = fresh;
		fresh = NULL;
		u->uid = uid;
		hash_add(smcd_users, &u->node, __kuid_val(uid));
	}
	if (!u) {
		/* the user's first: made unlocked, then sought again */
		spin_unlock_bh(&smcd_users_lock);
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh)
			return false;
		goto again;
	}
	ok = u->n < SMCD_NETNS_DMBS;
	if (ok)
		u->n++;
	spin_unlock_bh(&smcd_users_lock);
	kfree(fresh);
	return ok;
}

static void smcd_user_put(kuid_t uid)
{
	struct smcd_user_dmbs *u;

	if (uid_eq(uid, GLOBAL_ROOT_UID))
		return;
	spin_lock_bh(&smcd_users_lock);
	u = smcd_user_find(uid);
	if (!WARN_ON_ONCE(!u || !u->n) && !--u->n)
		hash_del(&u->node);
	else
		u = NULL;
	spin_unlock_bh(&smcd_users_lock);
	kfree(u);
}

/*
 * May @smc own one more DMB in its netns?  Counts it if so, in init_net
 * for its owner now: accept() may give a child another owner.
 */
static bool smcd_budget_get(struct smc_sock *smc)
{
	struct net *net = sock_net(&smc->sk);
	atomic_t *dmbs;

	if (net_eq(net, &init_net)) {
		smc->conn.smcd.rmb_uid = sock_net_uid(net, &smc->sk);
		return smcd_user_get(smc->conn.smcd.rmb_uid);
	}
	dmbs = smc_net_smcd_dmbs(net);
	if (atomic_inc_return(dmbs) > SMCD_NETNS_DMBS)
		goto out_net;
	if (atomic_inc_return(&smcd_user_nets_dmbs) > SMCD_USER_NETS_DMBS)
		goto out_all;
	return true;

out_all:
	atomic_dec(&smcd_user_nets_dmbs);
out_net:
	atomic_dec(dmbs);
	return false;
}

static void smcd_budget_put(struct smc_sock *smc)
{
	struct net *net = sock_net(&smc->sk);

	if (net_eq(net, &init_net)) {
		smcd_user_put(smc->conn.smcd.rmb_uid);
		return;
	}
	atomic_dec(&smcd_user_nets_dmbs);
	atomic_dec(smc_net_smcd_dmbs(net));
}

/*
 * The connection as its two ends and no other know it, for struct
 * smcd_end: the first sequence number after the server's SYN on the
 * clcsock.  The server reads it from what it sent (snd_una less the
 * bytes acked), the client from what it received (rcv_nxt less the
 * bytes received); both stay put as data flows.  The initial sequence
 * number is secret to the two ends.  NAT leaves it alone; a middlebox
 * that rewrites sequence numbers makes the attach fail, and SMC-D falls
 * back.  Under the clcsock lock: the two counters of one moment.
 */
static u64 smcd_conn_id(const struct smc_sock *smc, bool server)
{
	struct sock *clcsk = smc_clcsk(smc);
	const struct tcp_sock *tp = tcp_sk(clcsk);
	u32 seq;

	lock_sock(clcsk);
	if (server)
		seq = tp->snd_una - (u32)tp->bytes_acked;
	else
		seq = tp->rcv_nxt - (u32)tp->bytes_received;
	release_sock(clcsk);
	return seq;
}

/*
 * Register our DMB for @peer, smaller on failure.  The receive buffer
 * sizes its window; unless the application chose that size, the DMB is
 * the largest there is, for the sender to widen the window into as the
 * connection gets busy (see smc_tx_widen()).  Its pages only ever hold
 * the window, so a large DMB costs nothing more than its page array.
 */
static int smcd_conn_register(struct smc_sock *smc, struct smcd_dev *dev,
			      const struct smcd_end *peer)
{
	struct smc_conn *c = &smc->conn;
	struct mem_cgroup *memcg, *old = NULL;
	struct smcd_dmb *dmb;
	int comp, want, top;
	u32 fold;

	/* the budget spent: Decline as a device out of DMBs */
	if (!smcd_budget_get(smc))
		return -ENOSPC;
	want = smc_buf_compress(READ_ONCE(smc->sk.sk_rcvbuf) / 2,
				SMCD_DMB_MAX_CLASS);
	top = smc->sk.sk_userlocks & SOCK_RCVBUF_LOCK ? want :
	      SMCD_DMB_MAX_CLASS;
	/* a child's DMB is its listener's memory, not the worker's */
	memcg = smc->listen_smc ? smc->listen_smc->sk.sk_memcg : NULL;
	if (memcg)
		old = set_active_memcg(memcg);
	for (comp = top; comp >= 0; comp--) {
		dmb = dev->ops->register_dmb(dev, smcd_dmb_class_len(comp),
					     peer);
		if (!IS_ERR(dmb))
			break;
		if (PTR_ERR(dmb) == -ENOSPC)
			break;
	}
	if (!IS_ERR(dmb)) {
		/* the window: the whole DMB if that is less than asked for,
		 * what the first page array reaches if no larger one comes
		 */
		fold = min(smcd_dmb_class_len(want), dmb->len);
		if (smc_ring_pages_reach(&dmb->ring, fold))
			fold = SMC_RING_FIRST * PAGE_SIZE;
		dmb->ring.fold = fold;
	}
	if (memcg)
		set_active_memcg(old);
	if (IS_ERR(dmb)) {
		smcd_budget_put(smc);
		return PTR_ERR(dmb) == -ENOSPC ? -ENOSPC : -ENOMEM;
	}
	smc_stats_buf_get(smc->stats, SMC_STATS_D, true, dmb->ring.fold,
			  false, comp < want);

	smc_conn_init(c);
	WRITE_ONCE(c->ops, &smcd_conn_ops);
	c->smcd.dev = dev;
	c->smcd.rmb = dmb;
	c->rmb_len = dmb->ring.fold;
	c->smcd.rmb_token = dmb->token;
	c->rmb_ring = dmb->len - SMCD_DMB_HDR_LEN;
	smc_ring_set_pages(&c->rx, &dmb->ring);
	c->rx_window = smc_fold_window(c->rmb_ring, dmb->ring.fold);
	dmb->notify = smcd_conn_notify;
	rcu_assign_pointer(dmb->priv, smc);
	/* what the application may keep buffered, unless it chose */
	if (!(smc->sk.sk_userlocks & SOCK_RCVBUF_LOCK))
		WRITE_ONCE(smc->sk.sk_rcvbuf, 2 * dmb->ring.fold);
	return 0;
}

/* Attach the peer's DMB @token, as our end of connection @conn */
static int smcd_conn_attach(struct smc_sock *smc, u64 token, u64 conn)
{
	struct smc_conn *c = &smc->conn;
	struct smcd_end self = {};
	struct smcd_dmb *peer;

	self.gid = c->smcd.dev->gid;
	self.conn = conn;
	self.token = c->smcd.rmb_token;
	peer = c->smcd.dev->ops->attach_dmb(c->smcd.dev, token, &self);
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	c->smcd.peer = peer;
	/* the window the peer set, before it told us the token */
	c->peer_len = peer->ring.fold;
	c->tx_fold = peer->ring.fold;
	c->smcd.peer_token = token;
	smc_stats_buf_get(smc->stats, SMC_STATS_D, false, c->peer_len, false,
			  false);
	c->tx_ring = peer->len - SMCD_DMB_HDR_LEN;
	smc_ring_set_pages(&c->tx, &peer->ring);
	peer->hdr[0] = SMC_CDC_MSG_TYPE;
	if (!(smc->sk.sk_userlocks & SOCK_SNDBUF_LOCK))
		WRITE_ONCE(smc->sk.sk_sndbuf, 2 * c->peer_len);
	return 0;
}

void smcd_conn_teardown(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcd_dev *dev = c->smcd.dev;

	if (!dev)
		return;
	if (c->smcd.rmb) {
		/*
		 * No doorbell finds us once priv is clear.  One that found
		 * us before (the sock is RCU freed) takes rx_lock to look
		 * at the ring: after this it sees none, without waiting
		 * for a grace period here.
		 */
		RCU_INIT_POINTER(c->smcd.rmb->priv, NULL);
		smc_rx_write_lock(c);
		smc_ring_clear(&c->rx);
		smc_rx_write_unlock(c);
		smc_stats_buf_put(smc->stats, SMC_STATS_D, true, c->rmb_len);
		dev->ops->unregister_dmb(dev, c->smcd.rmb);
		c->smcd.rmb = NULL;
		smcd_budget_put(smc);
	}
	if (c->smcd.peer) {
		smc_tx_trim_cancel(smc);
		smc_stats_buf_put(smc->stats, SMC_STATS_D, false,
				  c->peer_len);
		dev->ops->detach_dmb(dev, c->smcd.peer);
		c->smcd.peer = NULL;
		smc_ring_clear(&c->tx);
	}
	smcd_lgr_leave(smc);
	c->smcd.dev = NULL;
	smcd_dev_put(dev);
}

/*
 * sock_diag: SMC-D writes reach the peer at once, into the data part of
 * its DMB, whose window grows.  Atomic context; the device stays while
 * the socket table's lock keeps the sock.
 */
static bool smcd_conn_diag(struct smc_sock *smc, struct smc_conn_diag *d,
			   bool tokens)
{
	struct smc_conn *c = &smc->conn;
	struct smcd_dev *dev = READ_ONCE(c->smcd.dev);

	if (!dev || !c->alert_token)
		return false;
	d->hdr = SMCD_DMB_HDR_LEN;
	d->peer_len = READ_ONCE(c->tx_fold);
	d->sent_now = true;
	d->has_dmb = true;
	d->dmb.linkid = c->lgr_id;
	d->dmb.peer_gid = c->smcd.peer_gid.gid;
	d->dmb.peer_gid_ext = c->smcd.peer_gid.gid_ext;
	d->dmb.my_gid = dev->gid.gid;
	d->dmb.my_gid_ext = dev->gid.gid_ext;
	if (tokens) {
		d->dmb.token = c->smcd.rmb_token;
		d->dmb.peer_token = c->smcd.peer_token;
	}
	return true;
}

const struct smc_conn_ops smcd_conn_ops = {
	.tx_write	= smcd_tx_write,
	.tx_done	= smcd_tx_done,
	.release	= smcd_conn_teardown,
	.diag		= smcd_conn_diag,
	.stats_tech	= SMC_STATS_D,
};

/* The Decline code for a failed connection set-up */
u32 smcd_decline_reason(int err)
{
	switch (err) {
	case -ENOSPC:
		return SMC_CLC_DECL_MAX_DMB;
	case -ENOLINK:
		/* the server reuses a link group we do not have */
		return SMC_CLC_DECL_SYNCERR;
	default:
		return SMC_CLC_DECL_MEM;
	}
}

static void smcd_fill_d(struct smc_clc_accept *a, u8 type, bool first,
			const struct smc_sock *smc)
{
	const struct smc_conn *c = &smc->conn;

	a->type = type;
	a->version = SMC_V2;
	a->path = SMC_TYPE_D;
	a->first_contact = first;
	a->d.gid = c->smcd.dev->gid.gid;
	a->d.gid_ext = c->smcd.dev->gid.gid_ext;
	a->d.token = c->smcd.rmb->token;
	a->d.dmbe_size = c->smcd.rmb->size_class;
	a->d.chid = c->smcd.dev->chid;
	/* an opaque id: the host-order counter, as Linux sends it */
	memcpy(a->d.lgr_id, &c->lgr_id, sizeof(a->d.lgr_id));
	a->fce.os_type = SMC_CLC_OS_LINUX;
	smc_hs_hostname(a->fce.hostname);
}

/*
 * Client: the server took our SMC-Dv2 offer; take its DMB and confirm.
 * Returns 0 on SMC-D or fallback, or a negative error that fails the
 * connect.  smc sock lock held.
 */
int smcd_connect_accept(struct smc_sock *smc, struct smc_hs *hs)
{
	struct smc_clc_proposal *p = &hs->p;
	struct smc_clc_accept *a = &hs->a;
	struct smcd_dev *dev = hs->smcd;
	bool reuse = !a->first_contact;
	struct smcd_end peer = {};
	bool first = true;
	int rc, len;

	smc_owned_by_me(smc);
	/* a device we did not offer: the peer is broken, no fallback */
	if (a->d.chid != dev->chid)
		return -EPROTO;

	/* our DMB is for the server's end of this TCP connection only */
	peer.gid.gid = a->d.gid;
	peer.gid.gid_ext = a->d.gid_ext;
	peer.conn = smcd_conn_id(smc, false);
	peer.token = a->d.token;
	rc = smcd_conn_register(smc, dev, &peer);
	if (rc) {
		smc_hs_decline(smc, smcd_decline_reason(rc), a->version);
		return 0;
	}
	hs->smcd = NULL;	/* the connection holds the reference now */

	/* a DMB not registered for us: a Decline as for an unknown one */
	rc = smcd_conn_attach(smc, a->d.token, peer.conn);
	/* the server decides whether this is a first contact */
	if (!rc)
		rc = smcd_lgr_join(smc, &peer.gid, SMCD_LGR_CLIENT,
				   a->first_contact, &first);
	if (rc) {
		smcd_conn_teardown(smc);
		smc_hs_decline(smc, smcd_decline_reason(rc), a->version);
		return 0;
	}
	if (first)
		smcd_lgr_note_peer(smc, a);

	memcpy(p->eids[0], a->eid, SMC_CLC_EID_LEN);
	memset(a, 0, sizeof(*a));
	/* the server's choice, also when a group of ours was new to it */
	smcd_fill_d(a, SMC_CLC_CONFIRM, !reuse, smc);
	memcpy(a->eid, p->eids[0], SMC_CLC_EID_LEN);
	a->fce.release = min_t(u8, p->release, SMC_CLC_RELEASE_MAX);
	len = smc_clc_build_accept(hs->buf, sizeof(hs->buf), a);
	rc = len < 0 ? len : smc_clc_send(smc, hs->buf, len);
	if (rc) {
		smcd_conn_teardown(smc);
		return rc;
	}
	smc_conn_start(smc, SMC_PATH_SMCD);
	return 0;
}

/* Our loopback device, referenced, if the client offers it; else NULL */
static struct smcd_dev *smcd_offered(const struct smc_clc_proposal *p)
{
	struct smcd_dev *dev = smcd_dev_get_loopback();
	struct smc_clc_ism_dev ism;
	unsigned int pos = 0;

	if (!dev)
		return NULL;
	while (smc_clc_prop_next_ism(p, &pos, &ism))
		if (ism.chid == dev->chid && ism.gid == dev->gid.gid &&
		    ism.gid_ext == dev->gid.gid_ext)
			return dev;
	smcd_dev_put(dev);
	return NULL;
}

/*
 * Server, before any device search: can the client's SMC-Dv2 offer be
 * taken at all?  0, or the reason to drop it (upstream's order).  Our
 * own loopback GID in the Proposal proves the client is this kernel, so
 * that needs no EID: the zero-configuration rule.
 */
u32 smcd_listen_v2_check(const struct smc_clc_proposal *p)
{
	struct smcd_dev *dev;

	if (!READ_ONCE(smc_smcd_enabled))
		return SMC_CLC_DECL_NOISM2SUPP;
	if (!p->smcd_v2_ext)
		return SMC_CLC_DECL_NOV2DEXT;
	if (p->eid_cnt || p->seid_flag)
		return 0;
	dev = smcd_offered(p);
	if (!dev)
		return SMC_CLC_DECL_NOUEID;
	smcd_dev_put(dev);
	return 0;
}

/*
 * Server: is there a device for the client's SMC-Dv2 offer?  0 with
 * *@devp set (referenced), else the reason to decline.
 */
u32 smcd_listen_check(const struct smc_clc_proposal *p,
		      struct smcd_dev **devp)
{
	*devp = smcd_offered(p);
	return *devp ? 0 : SMC_CLC_DECL_NOSMCD2DEV;
}

/*
 * Server: SMC-D with the device smcd_listen_check() found.  Returns 0
 * on SMC-D or fallback, a negative error when the connection must be
 * dropped.
 */
int smcd_listen_accept(struct smc_sock *child, struct smc_hs *hs)
{
	struct smc_clc_proposal *p = &hs->p;
	struct smc_clc_accept *a = &hs->a;
	struct smcd_dev *dev = hs->smcd;
	struct smcd_end peer = {};
	bool first;
	int rc, len;

	/*
	 * Our DMB is for the client's end of this TCP connection only;
	 * its device is ours on loopback-ism.  The client has no DMB yet.
	 */
	peer.gid = dev->gid;
	peer.conn = smcd_conn_id(child, true);
	rc = smcd_conn_register(child, dev, &peer);
	if (rc) {
		smc_hs_decline(child, smcd_decline_reason(rc), p->version);
		return 0;
	}
	hs->smcd = NULL;	/* the connection holds the reference now */
	/* the client's GID: on loopback-ism, our own */
	rc = smcd_lgr_join(child, &dev->gid, SMCD_LGR_SERVER, false, &first);
	if (rc) {
		smcd_conn_teardown(child);
		smc_hs_decline(child, smcd_decline_reason(rc), p->version);
		return 0;
	}

	smcd_fill_d(a, SMC_CLC_ACCEPT, first, child);
	if (p->eid_cnt)
		memcpy(a->eid, p->eids[0], SMC_CLC_EID_LEN);
	a->fce.release = min_t(u8, p->release, SMC_CLC_RELEASE_MAX);
	len = smc_clc_build_accept(hs->buf, sizeof(hs->buf), a);
	rc = len < 0 ? len : smc_clc_send(child, hs->buf, len);
	if (rc)
		goto out_teardown;

	len = smc_hs_recv(child, hs, SMC_CLC_CONFIRM, SMC_CLC_PROPOSAL_MAX_LEN);
	rc = min(len, 0);
	if (len <= 0)
		goto out_teardown;
	rc = -EPROTO;
	if (smc_clc_parse_accept(hs->buf, len, a) || a->path != SMC_TYPE_D ||
	    a->d.chid != dev->chid)
		goto out_teardown;
	/* not the client's DMB for us: drop, as for an unknown token */
	rc = smcd_conn_attach(child, a->d.token, peer.conn);
	if (rc)
		goto out_teardown;
	if (first)
		smcd_lgr_note_peer(child, a);
	smc_conn_start(child, SMC_PATH_SMCD);
	return 0;

out_teardown:
	if (child->peer_sync_err && !first)
		smcd_lgr_stale(child);
	smcd_conn_teardown(child);
	return rc;
}

/* What an end notes of its peer on a first contact: its Accept or Confirm */
static void smcd_rendezvous_note(struct smc_sock *smc,
				 const struct smc_sock *from,
				 const struct smc_clc_proposal *p)
{
	struct smc_clc_accept a = {};

	smcd_fill_d(&a, SMC_CLC_CONFIRM, true, from);
	if (p->eid_cnt)
		memcpy(a.eid, p->eids[0], SMC_CLC_EID_LEN);
	a.fce.release = SMC_CLC_RELEASE_MAX;
	smcd_lgr_note_peer(smc, &a);
}

/*
 * Both ends of a connection on this host at once, for smc_rendezvous.c:
 * client @smc with the offer in @hs, server @child.  Each end gets what
 * the Accept and the Confirm would have told it, in the order the CLC
 * exchange keeps: the server's DMB, its link group, the client's DMB
 * and group, then each attaches the other's DMB.  Both socks locked.
 * 0, or an error with neither end changed.
 */
int smcd_rendezvous_setup(struct smc_sock *smc, struct smc_sock *child,
			  struct smc_hs *hs)
{
	struct smcd_end speer = {}, cpeer = {};
	struct smcd_dev *dev = hs->smcd;
	bool first, cfirst;
	int rc;

	smc_owned_by_me(smc);
	smc_owned_by_me(child);
	speer.gid = dev->gid;
	speer.conn = smcd_conn_id(child, true);
	cpeer.gid = dev->gid;
	cpeer.conn = smcd_conn_id(smc, false);
	/* the connection ids of the two ends agree unless data moved */
	if (speer.conn != cpeer.conn)
		return -EPROTO;

	rc = smcd_conn_register(child, smcd_dev_hold(dev), &speer);
	if (rc) {
		smcd_dev_put(dev);
		return rc;
	}
	rc = smcd_lgr_join(child, &dev->gid, SMCD_LGR_SERVER, false, &first);
	if (rc)
		goto out_child;

	cpeer.token = child->conn.smcd.rmb_token;
	rc = smcd_conn_register(smc, smcd_dev_hold(dev), &cpeer);
	if (rc) {
		smcd_dev_put(dev);
		goto out_child;
	}
	rc = smcd_conn_attach(smc, child->conn.smcd.rmb_token, cpeer.conn);
	if (!rc)
		rc = smcd_lgr_join(smc, &dev->gid, SMCD_LGR_CLIENT, first,
				   &cfirst);
	if (!rc)
		rc = smcd_conn_attach(child, smc->conn.smcd.rmb_token,
				      speer.conn);
	if (rc)
		goto out_both;

	if (first)
		smcd_rendezvous_note(child, smc, &hs->p);
	if (cfirst)
		smcd_rendezvous_note(smc, child, &hs->p);
	smc_conn_start(child, SMC_PATH_SMCD);
	smc_conn_start(smc, SMC_PATH_SMCD);
	return 0;

out_both:
	smcd_conn_teardown(smc);
out_child:
	smcd_conn_teardown(child);
	return rc;
}
