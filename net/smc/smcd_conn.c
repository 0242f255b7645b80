// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-D connections over loopback-ism.
 *
 * The CLC handshake for SMC-Dv2 on both sides, the set-up of the two
 * DMBs of a connection (ours registered, the peer's attached as send
 * buffer), the doorbell handler and the tear-down.  Link groups are
 * in smcd_lgr.c.
 */

#include <linux/slab.h>
#include <linux/utsname.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_ism.h"

/* Negotiate SMC-D at all (module parameter smcd) */
bool smc_smcd_enabled = true;

/*
 * A header with urgent-present and new data announces the byte before
 * its producer cursor; repeats of the same announcement are ignored.
 * rx_lock held.
 */
static bool smcd_conn_urgent(struct smc_sock *smc, struct smcd_dmb *dmb,
			     const struct smcd_cdc_hdr *h)
{
	struct smcd_conn *c = &smc->smcd;

	if (!(h->prod_flags & SMC_CDC_PF_URG_PRESENT) ||
	    smc_curs_equal(&h->prod, &c->urg_prod))
		return false;
	/*
	 * A reader that stopped at the old mark never gets the old urgent
	 * byte as normal data (TCP steps over it here too); elsewhere in
	 * the stream it becomes normal data.
	 */
	if (c->urg_state != SMCD_URG_NONE &&
	    !sock_flag(&smc->sk, SOCK_URGINLINE) &&
	    smc_curs_equal(&c->rx_cons, &c->urg_pos)) {
		c->urg_hole = c->urg_pos;
		c->urg_hole_set = true;
	}
	c->urg_prod = h->prod;
	c->urg_pos = h->prod;
	smc_curs_prev(c->rmb_ring, &c->urg_pos);
	/* the byte was written before the header that announces it */
	smp_rmb();
	c->urg_byte = READ_ONCE(*(u8 *)(dmb->cpu_addr + SMCD_DMB_HDR_LEN +
					c->urg_pos.count));
	c->urg_state = SMCD_URG_VALID;
	return true;
}

/*
 * Cursors that point outside the rings: the peer is broken.  (Readers
 * never take more than a ring's worth, whatever the distance.)
 */
static bool smcd_conn_hdr_bad(const struct smcd_conn *c,
			      const struct smcd_cdc_hdr *h)
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
static void smcd_wake_writers(struct smc_sock *smc)
{
	if (test_and_clear_bit(SMCD_TX_NOSPACE, &smc->smcd.tx_flags))
		smc->sk.sk_write_space(&smc->sk);
}

/* The peer wrote a new header into our DMB: take the cursors in */
static void smcd_conn_notify(struct smcd_dmb *dmb, void *priv)
{
	struct smc_sock *smc = priv;
	struct smcd_conn *c = &smc->smcd;
	bool urgent = false, abort = false, data = false, space = false;
	struct sock *sk = &smc->sk;
	struct smcd_cdc_hdr h;
	u64 prod, cons;
	u8 news;

	prod = READ_ONCE(*(u64 *)(dmb->cpu_addr + SMCD_CDC_PROD_OFF));
	cons = READ_ONCE(*(u64 *)(dmb->cpu_addr + SMCD_CDC_CONS_OFF));
	smcd_cdc_unpack_prod(prod, &h);
	smcd_cdc_unpack_cons(cons, &h);

	smcd_rx_write_lock(c);
	if (smcd_conn_hdr_bad(c, &h)) {
		/* take nothing from it, treat it as an abort */
		h.conn_state_flags = SMC_CDC_CS_ABORT;
	} else {
		data = !smc_curs_equal(&h.prod, &c->peer_prod);
		urgent = data && smcd_conn_urgent(smc, dmb, &h);
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
	smcd_rx_write_unlock(c);

	if (abort)
		sk_error_report(sk);
	if (urgent)
		sk_send_sigurg(sk);
	/*
	 * Wake only who can make progress: readers for new data, writers
	 * that found no room for freed space (both as sync wake-ups, the
	 * waker goes on running), everyone for a change of the
	 * connection's state.
	 */
	if (news)
		sk->sk_state_change(sk);
	else if (data || urgent)
		sk->sk_data_ready(sk);
	if (space && !news)
		smcd_wake_writers(smc);
}

static void smcd_hostname(u8 *name)
{
	const char *node = init_utsname()->nodename;
	size_t n = strnlen(node, SMC_CLC_HOSTNAME_LEN);

	memset(name, ' ', SMC_CLC_HOSTNAME_LEN);
	memcpy(name, node, n);
}

/* Register our DMB, sized after the receive buffer; smaller on failure */
static int smcd_conn_register(struct smc_sock *smc, struct smcd_dev *dev)
{
	struct smcd_conn *c = &smc->smcd;
	struct smcd_dmb *dmb;
	int comp;

	comp = smc_buf_compress(READ_ONCE(smc->sk.sk_rcvbuf) / 2,
				SMCD_DMB_MAX_CLASS);
	for (; comp >= 0; comp--) {
		dmb = dev->ops->register_dmb(dev, smcd_dmb_class_len(comp),
					     &dev->gid);
		if (!IS_ERR(dmb))
			break;
		if (PTR_ERR(dmb) == -ENOSPC)
			return -ENOSPC;
	}
	if (comp < 0)
		return -ENOMEM;

	spin_lock_init(&c->tx_lock);
	spin_lock_init(&c->rx_lock);
	seqcount_spinlock_init(&c->rx_seq, &c->rx_lock);
	c->fsm.state = SMC_FSM_INIT;
	c->dev = dev;
	c->rmb = dmb;
	c->rmb_len = dmb->len;
	c->rmb_token = dmb->token;
	c->rmb_ring = dmb->len - SMCD_DMB_HDR_LEN;
	dmb->notify = smcd_conn_notify;
	rcu_assign_pointer(dmb->priv, smc);
	/* what the application may keep buffered, unless it chose */
	if (!(smc->sk.sk_userlocks & SOCK_RCVBUF_LOCK))
		WRITE_ONCE(smc->sk.sk_rcvbuf, 2 * dmb->len);
	return 0;
}

static int smcd_conn_attach(struct smc_sock *smc, u64 token)
{
	struct smcd_conn *c = &smc->smcd;
	struct smcd_dmb *peer;

	peer = c->dev->ops->attach_dmb(c->dev, token);
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	c->peer = peer;
	c->peer_len = peer->len;
	c->peer_token = token;
	c->tx_ring = peer->len - SMCD_DMB_HDR_LEN;
	*(u8 *)peer->cpu_addr = SMC_CDC_MSG_TYPE;
	if (!(smc->sk.sk_userlocks & SOCK_SNDBUF_LOCK))
		WRITE_ONCE(smc->sk.sk_sndbuf, 2 * peer->len);
	return 0;
}

static void smcd_conn_teardown(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	struct smcd_dev *dev = c->dev;

	if (!dev)
		return;
	if (c->rmb) {
		/* a doorbell in flight may still see us: sock is RCU freed */
		RCU_INIT_POINTER(c->rmb->priv, NULL);
		dev->ops->unregister_dmb(dev, c->rmb);
		c->rmb = NULL;
	}
	if (c->peer) {
		dev->ops->detach_dmb(dev, c->peer);
		c->peer = NULL;
	}
	smcd_lgr_leave(smc);
	c->dev = NULL;
	smcd_dev_put(dev);
}

/* The handshake succeeded: data goes over SMC-D from now on */
static void smcd_conn_start(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;

	/* the peer may have closed already, right after its Confirm */
	smcd_rx_write_lock(c);
	if (c->fsm.state == SMC_FSM_INIT)
		c->fsm.state = SMC_FSM_ACTIVE;
	WRITE_ONCE(smc->sk.sk_state, c->fsm.state);
	smcd_rx_write_unlock(c);
	WRITE_ONCE(smc->path, SMC_PATH_SMCD);
}

/* The Decline code for a failed connection set-up */
static u32 smcd_decline_reason(int err)
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

static void smcd_decline_fallback(struct smc_sock *smc, u32 reason,
				  u8 version)
{
	smc_clc_send_decline(smc, reason, version);
	smc_switch_to_fallback(smc, reason);
}

/* The peer declined: record its reason and go on over TCP */
static int smcd_peer_declined(struct smc_sock *smc, const u8 *buf, int len)
{
	struct smc_clc_decline d;

	if (smc_clc_parse_decline(buf, len, &d))
		return -EPROTO;
	smc->peer_diagnosis = d.peer_diagnosis;
	smc_switch_to_fallback(smc, SMC_CLC_DECL_PEERDECL);
	return 0;
}

static void smcd_fill_d(struct smc_clc_accept *a, u8 type, bool first,
			const struct smc_sock *smc)
{
	const struct smcd_conn *c = &smc->smcd;

	a->type = type;
	a->version = SMC_V2;
	a->path = SMC_TYPE_D;
	a->first_contact = first;
	a->d.gid = c->dev->gid.gid;
	a->d.gid_ext = c->dev->gid.gid_ext;
	a->d.token = c->rmb->token;
	a->d.dmbe_size = c->rmb->size_class;
	a->d.chid = c->dev->chid;
	/* an opaque id: the host-order counter, as Linux sends it */
	memcpy(a->d.lgr_id, &c->lgr_id, sizeof(a->d.lgr_id));
	a->fce.os_type = SMC_CLC_OS_LINUX;
	smcd_hostname(a->fce.hostname);
}

/* The messages of one handshake; too large for the stack */
struct smcd_hs {
	struct smc_clc_proposal	p;
	struct smc_clc_accept	a;
	u8			buf[SMC_CLC_PROPOSAL_MAX_LEN];
};

/*
 * Client: offer SMC-Dv2 over loopback-ism, take the server's DMB, and
 * confirm.  Returns 0 on SMC-D or fallback, or a negative error that
 * fails the connect.  smc sock lock held.
 */
int smcd_connect_handshake(struct smc_sock *smc)
{
	struct smc_clc_proposal *p;
	struct smc_clc_accept *a;
	struct smc_clc_hdr hdr;
	struct smcd_gid peer;
	struct smcd_dev *dev;
	struct smcd_hs *hs;
	int rc, len;
	bool first = true;
	u8 *buf;

	dev = smcd_dev_get_loopback();
	if (!dev) {
		/* nothing to offer: a v1 Decline instead of a Proposal */
		smcd_decline_fallback(smc, SMC_CLC_DECL_NOSMCDEV, SMC_V1);
		return 0;
	}
	rc = -ENOMEM;
	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		goto out_put;
	p = &hs->p;
	a = &hs->a;
	buf = hs->buf;

	p->version = SMC_V2;
	p->typev1 = SMC_TYPE_N;
	p->typev2 = SMC_TYPE_D;
	p->release = SMC_CLC_RELEASE_MAX;
	p->feature_mask = SMC_CLC_FEAT_MASK;
	smc_clc_prop_add_ism(p, dev->gid.gid, dev->gid.gid_ext, dev->chid);
	len = smc_clc_build_proposal(buf, SMC_CLC_PROPOSAL_MAX_LEN, p);
	/* the SYN-ACK ended TCP's hold; the Accept's ACK rides on Confirm */
	smc_clc_hold_acks(smc_clcsk(smc));
	rc = len < 0 ? len : smc_clc_send(smc, buf, len);
	if (rc)
		goto out_put;

	len = smc_clc_recv(smc, SMC_CLC_ACCEPT, buf, SMC_CLC_ACCEPT_RCV_LEN,
			   &hdr);
	rc = len;
	if (len < 0)
		goto out_put;
	if (hdr.type == SMC_CLC_DECLINE) {
		rc = smcd_peer_declined(smc, buf, min(len, SMC_CLC_ACCEPT_RCV_LEN));
		goto out_put;
	}
	rc = -EPROTO;
	if (smc_clc_parse_accept(buf, min(len, SMC_CLC_ACCEPT_RCV_LEN), a))
		goto out_put;
	if (a->path != SMC_TYPE_D || a->version < SMC_V2) {
		smcd_decline_fallback(smc, SMC_CLC_DECL_MODEUNSUPP, a->version);
		rc = 0;
		goto out_put;
	}
	/* a device we did not offer: the peer is broken, no fallback */
	if (a->d.chid != dev->chid)
		goto out_put;

	rc = smcd_conn_register(smc, dev);
	if (rc) {
		smcd_decline_fallback(smc, smcd_decline_reason(rc),
				      a->version);
		rc = 0;
		goto out_put;
	}
	dev = NULL;	/* the connection holds the reference now */

	peer.gid = a->d.gid;
	peer.gid_ext = a->d.gid_ext;
	rc = smcd_conn_attach(smc, a->d.token);
	/* the server decides whether this is a first contact */
	if (!rc)
		rc = smcd_lgr_join(smc, &peer, SMCD_LGR_CLIENT,
				   a->first_contact, &first);
	if (rc) {
		smcd_conn_teardown(smc);
		smcd_decline_fallback(smc, smcd_decline_reason(rc),
				      a->version);
		rc = 0;
		goto out;
	}

	memcpy(p->eids[0], a->eid, SMC_CLC_EID_LEN);
	memset(a, 0, sizeof(*a));
	smcd_fill_d(a, SMC_CLC_CONFIRM, first, smc);
	memcpy(a->eid, p->eids[0], SMC_CLC_EID_LEN);
	a->fce.release = min_t(u8, p->release, SMC_CLC_RELEASE_MAX);
	len = smc_clc_build_accept(buf, SMC_CLC_PROPOSAL_MAX_LEN, a);
	rc = len < 0 ? len : smc_clc_send(smc, buf, len);
	if (rc) {
		smcd_conn_teardown(smc);
		goto out;
	}
	smcd_conn_start(smc);
	goto out;

out_put:
	smcd_dev_put(dev);
out:
	kfree(hs);
	return rc;
}

/* Is our loopback device among those the client offers? */
static bool smcd_offered(const struct smc_clc_proposal *p,
			 const struct smcd_dev *dev)
{
	struct smc_clc_ism_dev ism;
	unsigned int pos = 0;

	while (smc_clc_prop_next_ism(p, &pos, &ism))
		if (ism.chid == dev->chid && ism.gid == dev->gid.gid &&
		    ism.gid_ext == dev->gid.gid_ext)
			return true;
	return false;
}

/*
 * Server side of the handshake of a child.  Returns 0 on SMC-D or
 * fallback, a negative error when the connection must be dropped.
 */
int smcd_listen_handshake(struct smc_sock *child)
{
	struct smc_clc_proposal *p;
	struct smc_clc_accept *a;
	struct smc_clc_hdr hdr;
	struct smcd_dev *dev;
	struct smcd_hs *hs;
	int rc, len;
	bool first;
	u8 *buf;

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return -ENOMEM;
	p = &hs->p;
	a = &hs->a;
	buf = hs->buf;

	len = smc_clc_recv(child, SMC_CLC_PROPOSAL, buf,
			   SMC_CLC_PROPOSAL_MAX_LEN, &hdr);
	rc = len;
	if (len < 0)
		goto out;
	len = min(len, SMC_CLC_PROPOSAL_MAX_LEN);
	if (hdr.type == SMC_CLC_DECLINE) {
		rc = smcd_peer_declined(child, buf, len);
		goto out;
	}
	rc = -EPROTO;
	if (smc_clc_parse_proposal(buf, len, p))
		goto out;

	rc = 0;
	if (p->version < SMC_V2 || !smc_path_has_d(p->typev2)) {
		smcd_decline_fallback(child, SMC_CLC_DECL_PEERNOSMC,
				      p->version);
		goto out;
	}
	if (!p->v2_ext || !p->smcd_v2_ext) {
		smcd_decline_fallback(child, p->v2_ext ? SMC_CLC_DECL_NOV2DEXT :
						      SMC_CLC_DECL_NOV2EXT,
				      p->version);
		goto out;
	}
	/*
	 * Zero configuration: our own loopback GID in the Proposal proves
	 * the client is this kernel, so no EID needs to match.
	 */
	dev = smcd_dev_get_loopback();
	if (!dev || !smcd_offered(p, dev)) {
		if (dev)
			smcd_dev_put(dev);
		smcd_decline_fallback(child, SMC_CLC_DECL_NOSMCD2DEV,
				      p->version);
		goto out;
	}

	rc = smcd_conn_register(child, dev);
	if (rc) {
		smcd_dev_put(dev);
		smcd_decline_fallback(child, smcd_decline_reason(rc),
				      p->version);
		rc = 0;
		goto out;
	}
	/* the client's GID: on loopback-ism, our own */
	rc = smcd_lgr_join(child, &dev->gid, SMCD_LGR_SERVER, false, &first);
	if (rc) {
		smcd_conn_teardown(child);
		smcd_decline_fallback(child, smcd_decline_reason(rc),
				      p->version);
		rc = 0;
		goto out;
	}

	smcd_fill_d(a, SMC_CLC_ACCEPT, first, child);
	if (p->eid_cnt)
		memcpy(a->eid, p->eids[0], SMC_CLC_EID_LEN);
	a->fce.release = min_t(u8, p->release, SMC_CLC_RELEASE_MAX);
	len = smc_clc_build_accept(buf, SMC_CLC_PROPOSAL_MAX_LEN, a);
	rc = len < 0 ? len : smc_clc_send(child, buf, len);
	if (rc)
		goto out_teardown;

	len = smc_clc_recv(child, SMC_CLC_CONFIRM, buf,
			   SMC_CLC_PROPOSAL_MAX_LEN, &hdr);
	rc = len;
	if (len < 0)
		goto out_teardown;
	len = min(len, SMC_CLC_PROPOSAL_MAX_LEN);
	if (hdr.type == SMC_CLC_DECLINE) {
		smcd_conn_teardown(child);
		rc = smcd_peer_declined(child, buf, len);
		goto out;
	}
	rc = -EPROTO;
	if (smc_clc_parse_accept(buf, len, a) || a->path != SMC_TYPE_D ||
	    a->d.chid != dev->chid)
		goto out_teardown;
	rc = smcd_conn_attach(child, a->d.token);
	if (rc)
		goto out_teardown;
	smcd_conn_start(child);
	goto out;

out_teardown:
	smcd_conn_teardown(child);
out:
	kfree(hs);
	return rc;
}

/*
 * Release of an SMC-D socket: tell the peer, then let go of both DMBs.
 * As TCP sends a reset, we abort when we leave data unread or the
 * application asked for it with SO_LINGER {1, 0}.
 */
void smcd_conn_close(struct smc_sock *smc)
{
	struct smcd_conn *c = &smc->smcd;
	struct smcd_dmb *peer = c->peer;
	struct sock *sk = &smc->sk;
	bool abort;
	u8 send;

	if (!c->dev)
		return;
	if (peer) {
		abort = sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime;
		smcd_rx_write_lock(c);
		if (smc_curs_diff(c->rmb_ring, &c->rx_cons, &c->peer_prod))
			abort = true;
		send = smc_fsm_close(&c->fsm, abort);
		smcd_rx_write_unlock(c);
		smcd_send_conn_flags(smc, send);
	}
	smcd_conn_teardown(smc);
}
