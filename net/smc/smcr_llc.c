// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the LLC messages and procedures of
 * SMC-R link groups.
 *
 * Requests that need nothing but an answer (TEST LINK, CONFIRM RKEY,
 * DELETE RKEY) are answered in the completion handler.  The rest (ADD
 * LINK, DELETE LINK), link failures and the server's wish for a second
 * link go to the group's LLC work, which runs one procedure at a time
 * under llc_flow: the links of a group change only there.
 *
 * Adding a link (server): a RoCE device other than the first link's,
 * with the same PNET ID and an address in the first link's subnet,
 * gets a QP; ADD LINK on the first link carries it and the rkeys of
 * our RMBs on it, the client's response carries the same of its side;
 * CONFIRM LINK on the new link proves it.  A side without such a
 * device makes the new link on the device of the first: the link is
 * asymmetric, and still survives a failure of the other side's device
 * or path.  Only when both sides would share, the client refuses.  A
 * link that fails moves its connections to the other link, and the
 * peer is told with DELETE LINK; with no other link, the group ends.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/slab.h>

#include "smc_ism.h"
#include "smc_sock.h"
#include "smcr_dev.h"
#include "smcr.h"

/* Queued for the LLC work: a request as received, on @link */
struct smcr_llc_ev {
	struct list_head	node;
	struct smcr_link	*link;	/* freed with the group only */
	bool			answer;	/* ours, to send on link */
	u32			len;
	u8			buf[];
};

/* ---- a link's LLC messages: sending, and waiting for one ---- */

/* Send the LLC message @m on @link in the link group's encoding */
int smcr_llc_send(struct smcr_link *link, struct smc_llc_msg *m)
{
	struct smcr_slot *slot;
	int rc;

	slot = smcr_slot_get(link, true);
	if (IS_ERR(slot))
		return PTR_ERR(slot);
	rc = smc_llc_build(slot->buf, SMC_LLC_MSG_LEN, m, NULL);
	if (rc < 0) {
		smcr_slot_put(slot);
		return rc;
	}
	return smcr_slot_post(slot);
}

/*
 * Send @m, which may be one of the large v2 messages, with the ADD
 * LINK triples @rkeys.  One at a time per link (under llc_flow).
 */
int smcr_llc_send_big(struct smcr_link *link, struct smc_llc_msg *m,
		      const struct smc_llc_rkey *rkeys)
{
	struct smcr_slot *slot;
	int len;
	u8 *buf;

	buf = smcr_link_big_buf(link);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	slot = smcr_slot_get(link, true);
	if (IS_ERR(slot))
		return PTR_ERR(slot);
	len = smc_llc_build(buf, SMC_LLC_MAX_LEN, m, rkeys);
	if (len < 0) {
		smcr_slot_put(slot);
		return len;
	}
	return smcr_slot_post_big(slot, len);
}

/*
 * Expect an LLC message of @type from the peer, a response (@resp) or
 * a request: armed before the message that provokes it is sent, so an
 * early answer is not missed.  One flow of a link waits at a time: the
 * first link's handshake, later the keepalive.
 */
void smcr_llc_arm(struct smcr_link *link, u8 type, bool resp)
{
	spin_lock_bh(&link->llc_lock);
	reinit_completion(&link->llc_done);
	link->llc_want = type;
	link->llc_resp = resp;
	link->llc_got = false;
	kfree(link->llc_raw);
	link->llc_raw = NULL;
	spin_unlock_bh(&link->llc_lock);
	/* a link that went down before this wakes no one: look now */
	if (READ_ONCE(link->state) == SMCR_LINK_DOWN)
		complete(&link->llc_done);
}

/* Wait up to @timeout (killable) for the message smcr_llc_arm() set */
int smcr_llc_wait(struct smcr_link *link, unsigned long timeout,
		  struct smc_llc_msg *m)
{
	bool got;
	long left;

	left = wait_for_completion_killable_timeout(&link->llc_done, timeout);

	spin_lock_bh(&link->llc_lock);
	link->llc_want = 0;
	got = link->llc_got;
	if (got)
		*m = link->llc_msg;
	spin_unlock_bh(&link->llc_lock);
	if (got)
		return 0;
	if (READ_ONCE(link->state) == SMCR_LINK_DOWN)
		return -ENOLINK;
	return left < 0 ? -EINTR : -ETIMEDOUT;
}

/*
 * The message that smcr_llc_wait() returned, as received, when it was
 * larger than 44 bytes (the caller frees it), else NULL.
 */
u8 *smcr_llc_take_raw(struct smcr_link *link, u32 *len)
{
	u8 *raw;

	spin_lock_bh(&link->llc_lock);
	raw = link->llc_raw;
	*len = link->llc_raw_len;
	link->llc_raw = NULL;
	spin_unlock_bh(&link->llc_lock);
	return raw;
}

/* A waiting LLC flow takes @m (received as @buf, @len); true if one did */
bool smcr_llc_deliver(struct smcr_link *link, const struct smc_llc_msg *m,
		      const u8 *buf, u32 len)
{
	bool resp = m->hdr.flags & SMC_LLC_FLAG_RESP;
	bool taken = false;

	spin_lock_bh(&link->llc_lock);
	if (link->llc_want == m->hdr.type && link->llc_resp == resp &&
	    !link->llc_got) {
		link->llc_msg = *m;
		link->llc_got = true;
		if (len > SMC_LLC_MSG_LEN) {
			/* without the copy, the flow sees no triples */
			link->llc_raw = kmemdup(buf, len, GFP_ATOMIC);
			link->llc_raw_len = len;
		}
		complete(&link->llc_done);
		taken = true;
	}
	spin_unlock_bh(&link->llc_lock);
	return taken;
}

/* ---- requests answered at once (softirq) ---- */

/*
 * Keep @buf (@len bytes, received on @link) for the LLC work; with
 * @answer, it is an answer of ours to send when a slot is free
 */
static void smcr_llc_queue(struct smcr_link *link, const u8 *buf, u32 len,
			   bool answer)
{
	struct smcr_lgr *lgr = link->lgr;
	struct smcr_llc_ev *ev;

	ev = kmalloc(struct_size(ev, buf, len), GFP_ATOMIC);
	if (!ev)
		return;
	ev->link = link;
	ev->answer = answer;
	ev->len = len;
	memcpy(ev->buf, buf, len);
	spin_lock_bh(&lgr->ev_lock);
	/* a peer flooding us with requests loses some */
	if (lgr->nevents >= SMCR_EVENTS_MAX) {
		spin_unlock_bh(&lgr->ev_lock);
		kfree(ev);
		return;
	}
	lgr->nevents++;
	list_add_tail(&ev->node, &lgr->events);
	spin_unlock_bh(&lgr->ev_lock);
	smcr_lgr_kick(lgr);
}

/*
 * Answer @m, a request, with @flags added (softirq: no waiting).  With
 * every send slot taken, the LLC work sends it, waiting for one.
 */
static void smcr_llc_answer(struct smcr_link *link, struct smc_llc_msg *m,
			    u8 flags)
{
	struct smcr_slot *slot;

	u8 buf[SMC_LLC_MSG_LEN];

	m->hdr.flags |= SMC_LLC_FLAG_RESP | flags;
	slot = smcr_slot_get(link, false);
	if (IS_ERR(slot)) {
		if (PTR_ERR(slot) == -EAGAIN &&
		    smc_llc_build(buf, sizeof(buf), m, NULL) > 0)
			smcr_llc_queue(link, buf, sizeof(buf), true);
		return;
	}
	if (smc_llc_build(slot->buf, SMC_LLC_MSG_LEN, m, NULL) < 0) {
		smcr_slot_put(slot);
		return;
	}
	smcr_slot_post(slot);
}

/* Our link of @lgr with link number @id, or NULL */
struct smcr_link *smcr_llc_link_by_id(struct smcr_lgr *lgr, u8 id)
{
	struct smcr_link *link;
	unsigned int i;

	for (i = 0; i < SMCR_LINKS; i++) {
		link = READ_ONCE(lgr->links[i]);
		if (link && link->id == id)
			return link;
	}
	return NULL;
}

/* The peer's new RMB, on the link it came on and on the others */
static void smcr_llc_rx_confirm_rkey(struct smcr_link *link,
				     struct smc_llc_msg *m)
{
	struct smcr_lgr *lgr = link->lgr;
	const struct smc_llc_rkey_link *o;
	struct smcr_link *other;
	unsigned int i, n;
	bool ok;

	n = m->confirm_rkey.num_other;
	ok = n <= SMC_LLC_RKEY_OTHER_MAX &&
	     smcr_rtok_learn(lgr, link->idx, m->confirm_rkey.rkey, link->idx,
			     m->confirm_rkey.rkey, m->confirm_rkey.addr);
	for (i = 0; ok && i < min_t(unsigned int, n, 2); i++) {
		o = &m->confirm_rkey.other[i];
		other = smcr_llc_link_by_id(lgr, o->link_id);
		if (other && other != link)
			smcr_rtok_learn(lgr, link->idx, m->confirm_rkey.rkey,
					other->idx, o->rkey, o->addr);
	}
	smcr_llc_answer(link, m, ok ? 0 : SMC_LLC_FLAG_RKEY_NEG |
					  SMC_LLC_FLAG_RKEY_RETRY);
}

static void smcr_llc_rx_delete_rkey(struct smcr_link *link,
				    struct smc_llc_msg *m)
{
	unsigned int i, n = min_t(u8, m->delete_rkey.count,
				  SMC_LLC_DEL_RKEY_MAX);
	u8 unknown = 0;

	for (i = 0; i < n; i++)
		if (!smcr_rtok_delete(link->lgr, link->idx,
				      m->delete_rkey.rkey[i]))
			unknown |= 0x80 >> i;
	/* v2 groups answer with a count, and no rkeys */
	if (m->hdr.version == SMC_V2) {
		m->delete_rkey.err_mask = hweight8(unknown);
		memset(m->delete_rkey.rkey, 0, sizeof(m->delete_rkey.rkey));
	} else {
		m->delete_rkey.err_mask = unknown;
	}
	smcr_llc_answer(link, m, unknown ? SMC_LLC_FLAG_RKEY_NEG : 0);
}

/*
 * The peer gave up the link @id that it and we are still adding: our
 * flow waiting on it ends now, not at its timeout, and is done before
 * the peer's next ADD LINK, which waits for our answer for only
 * SMCR_LLC_WAIT.  (A server that times out first starts again at once,
 * while the client may wait seconds more.)
 */
static void smcr_llc_drop_new(struct smcr_lgr *lgr, struct smcr_link *link,
			      u8 id)
{
	struct smcr_link *nl = id ? smcr_llc_link_by_id(lgr, id) : NULL;

	if (nl && nl != link && READ_ONCE(nl->state) == SMCR_LINK_ACTIVATING)
		smcr_link_set_down(nl);
}

/*
 * An LLC message no flow waited for (softirq), @m parsed from @buf.
 * Responses nobody waits for are late: dropped.
 */
void smcr_llc_rx(struct smcr_link *link, const struct smc_llc_msg *in,
		 const u8 *buf, u32 len)
{
	struct smcr_lgr *lgr = link->lgr;
	struct smc_llc_msg m = *in;

	if (m.hdr.flags & SMC_LLC_FLAG_RESP)
		return;
	switch (m.hdr.type) {
	case SMC_LLC_TEST_LINK:
		smcr_llc_answer(link, &m, 0);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		smcr_llc_rx_confirm_rkey(link, &m);
		break;
	case SMC_LLC_DELETE_RKEY:
		smcr_llc_rx_delete_rkey(link, &m);
		break;
	case SMC_LLC_ADD_LINK:
		/* the server adds a link; a client's is a v1 invitation */
		if (lgr->role == SMCR_LGR_CLIENT) {
			smcr_llc_queue(link, buf, len, false);
			break;
		}
		fallthrough;
	case SMC_LLC_REQ_ADD_LINK:
		if (lgr->role != SMCR_LGR_SERVER)
			break;
		spin_lock_bh(&lgr->ev_lock);
		lgr->add_req = true;
		spin_unlock_bh(&lgr->ev_lock);
		/* it has a device it did not have: worth trying again */
		smcr_lgr_want_add(lgr, true);
		break;
	case SMC_LLC_DELETE_LINK:
		smcr_llc_drop_new(lgr, link, m.delete_link.link_id);
		smcr_llc_queue(link, buf, min_t(u32, len, SMC_LLC_MSG_LEN),
			       false);
		break;
	default:
		break;
	}
}

/* ---- procedures (LLC work, llc_flow held) ---- */

/* Fill a CONFIRM LINK for @link, the request or (@resp) the response */
void smcr_confirm_link_fill(struct smc_llc_msg *m,
			    const struct smcr_link *link, bool resp)
{
	const struct smcr_lgr *lgr = link->lgr;
	u32 uid = lgr->id + link->id;

	memset(m, 0, sizeof(*m));
	m->hdr.type = SMC_LLC_CONFIRM_LINK;
	m->hdr.version = lgr->llc_version;
	m->hdr.flags = SMC_LLC_FLAG_NO_RMBE_EYEC |
		       (resp ? SMC_LLC_FLAG_RESP : 0);
	memcpy(m->confirm_link.mac, link->mac, SMC_CLC_MAC_LEN);
	memcpy(m->confirm_link.gid, link->gid, SMC_CLC_GID_LEN);
	m->confirm_link.qpn = link->qp_num;
	m->confirm_link.link_id = link->id;
	smc_put_be32(m->confirm_link.link_uid, uid);
	m->confirm_link.max_links = lgr->max_links;
	if (lgr->release >= SMC_CLC_RELEASE_1)
		m->confirm_link.max_conns = lgr->max_conns;
}

static void smcr_llc_delete_msg(struct smc_llc_msg *m, struct smcr_lgr *lgr,
				u8 link_id, u8 flags, u32 reason)
{
	memset(m, 0, sizeof(*m));
	m->hdr.type = SMC_LLC_DELETE_LINK;
	m->hdr.version = lgr->llc_version;
	m->hdr.flags = flags;
	m->delete_link.link_id = link_id;
	m->delete_link.reason = reason;
}

/*
 * @link leaves the group for good: stopped, its buffer mappings and
 * what the peer told for it gone, its memory kept until the group is
 * freed (a sender may still look at it).
 */
static void smcr_llc_unlink(struct smcr_lgr *lgr, struct smcr_link *link)
{
	struct smcr_link *l, *o;
	unsigned int i, j;
	bool shared;

	lockdep_assert_held(&lgr->llc_flow);
	smcr_link_set_down(link);
	smcr_link_stop(link);
	/* out of links[] first: no new buffer is mapped on it after */
	smcr_lgr_link_set(lgr, link->idx, NULL);
	/* a link that shares a device with no other link left (its pair
	 * gone, or what a replacement kept) is asymmetric no more
	 */
	for (i = 0; i < SMCR_LINKS; i++) {
		l = lgr->links[i];
		if (!l || !l->asym)
			continue;
		shared = false;
		for (j = 0; j < SMCR_LINKS; j++) {
			o = lgr->links[j];
			if (o && o != l && (o->dev == l->dev ||
					    !memcmp(o->peer_gid, l->peer_gid,
						    SMC_CLC_GID_LEN)))
				shared = true;
		}
		if (!shared)
			WRITE_ONCE(l->asym, false);
	}
	smcr_bufs_unmap_link(lgr, link);
	smcr_link_release(link);
	smcr_rtoks_drop_link(lgr, link->idx);
	list_add(&link->dead, &lgr->dead_links);
	wake_up_all(&lgr->moved_wq);
}

/* A new link of @lgr at slot @idx over @gi, its buffers mapped */
static struct smcr_link *smcr_llc_new_link(struct smcr_lgr *lgr, int idx,
					   const struct smcr_gid_info *gi,
					   u8 id)
{
	struct smcr_link *link;

	lockdep_assert_held(&lgr->llc_flow);
	link = smcr_link_create(lgr, gi->dev, gi->port, gi->sgid_index,
				gi->gid, gi->mac);
	if (IS_ERR(link))
		return link;
	link->port_mtu = gi->mtu;
	link->idx = idx;
	link->id = id;
	smcr_lgr_link_set(lgr, idx, link);
	if (smcr_bufs_map_link(lgr, link)) {
		smcr_llc_unlink(lgr, link);
		return ERR_PTR(-ENOMEM);
	}
	return link;
}

/* A link number not in use, never 0 (server) */
static u8 smcr_llc_next_id(struct smcr_lgr *lgr)
{
	u8 id;

	do {
		id = ++lgr->last_link_id;
	} while (!id || smcr_llc_link_by_id(lgr, id));
	return id;
}

/* Fill an ADD LINK for @nl with @n triples; the response with @resp */
static void smcr_llc_add_msg(struct smc_llc_msg *m, struct smcr_link *nl,
			     unsigned int n, bool resp)
{
	memset(m, 0, sizeof(*m));
	m->hdr.type = SMC_LLC_ADD_LINK;
	m->hdr.version = nl->lgr->llc_version;
	m->hdr.flags = resp ? SMC_LLC_FLAG_RESP : 0;
	memcpy(m->add_link.mac, nl->mac, SMC_CLC_MAC_LEN);
	memcpy(m->add_link.gid, nl->gid, SMC_CLC_GID_LEN);
	m->add_link.qpn = nl->qp_num;
	m->add_link.link_id = nl->id;
	m->add_link.mtu = resp ? nl->mtu : nl->port_mtu;
	m->add_link.psn = nl->psn;
	/* v1 sends the rkeys after it, in ADD LINK CONTINUATIONs */
	if (m->hdr.version == SMC_V1)
		return;
	m->add_link.v2_ext = true;
	m->add_link.direct = true;
	memcpy(m->add_link.target_gid, nl->gid, SMC_CLC_GID_LEN);
	m->add_link.rkey_cnt = n;
}

u8 smcr_llc_test;

/* Test mode: nothing is in @link's send queue (or it went down) */
static bool smcr_llc_test_sent(struct smcr_link *link)
{
	bool all;

	spin_lock_bh(&link->slot_lock);
	all = bitmap_full(link->slot_free, link->nslots);
	spin_unlock_bh(&link->slot_lock);
	return all || READ_ONCE(link->state) == SMCR_LINK_DOWN;
}

/*
 * Test mode: after a v2 ADD LINK @m with its @rk, a response of the
 * same size with other rkeys, which the receiver drops (it arrives
 * after the real one) but whose bytes land in a receive buffer
 */
static void smcr_llc_send_decoy(struct smcr_link *link,
				const struct smc_llc_msg *m,
				const struct smc_llc_rkey *rk)
{
	unsigned int i, n = m->add_link.rkey_cnt;
	struct smc_llc_rkey *bad;
	struct smc_llc_msg d = *m;

	/* the message goes from the link's one large buffer: out first */
	wait_event_timeout(link->slot_wq, smcr_llc_test_sent(link), HZ);
	bad = kcalloc(max(n, 1U), sizeof(*bad), GFP_KERNEL);
	if (!bad)
		return;
	for (i = 0; i < n; i++) {
		bad[i].rkey = rk[i].rkey;
		bad[i].rkey_new = rk[i].rkey_new ^ 0x5a5a5a5a;
		bad[i].addr_new = rk[i].addr_new ^ 0x5a5a5a5a5a5a5a5aULL;
	}
	d.hdr.flags |= SMC_LLC_FLAG_RESP;
	smcr_llc_send_big(link, &d, bad);
	kfree(bad);
}

/* Send ADD LINK @m, with the triples @rk of a v2 group */
static int smcr_llc_send_add(struct smcr_link *link, struct smc_llc_msg *m,
			     const struct smc_llc_rkey *rk)
{
	int rc;

	if (m->hdr.version == SMC_V1)
		return smcr_llc_send(link, m);
	rc = smcr_llc_send_big(link, m, rk);
	if (!rc && (READ_ONCE(smcr_llc_test) & SMCR_LLC_TEST_DECOY))
		smcr_llc_send_decoy(link, m, rk);
	return rc;
}

/* The peer's RMBs on @nl from its ADD LINK CONTINUATION @m */
static void smcr_llc_learn_cont(struct smcr_link *link, struct smcr_link *nl,
				const struct smc_llc_msg *m)
{
	const struct smc_llc_rkey *rk;
	unsigned int i;

	for (i = 0; i < smc_llc_cont_count(m); i++) {
		rk = &m->add_link_cont.rk[i];
		smcr_rtok_learn(link->lgr, link->idx, rk->rkey, nl->idx,
				rk->rkey_new, rk->addr_new);
	}
}

/*
 * SMC-Rv1: the RMBs of both sides on the new link @nl go over @link in
 * ADD LINK CONTINUATIONs, two each, turn by turn: the server sends
 * first, the client answers every message with one of its own (one
 * that says it has none left, if so), until neither side has any
 * left.  Ours are @rk[@n].  The client armed its first wait before it
 * sent its ADD LINK response.
 */
static int smcr_llc_rkey_exchange(struct smcr_link *link, struct smcr_link *nl,
				  const struct smc_llc_rkey *rk, unsigned int n)
{
	bool server = link->lgr->role == SMCR_LGR_SERVER;
	unsigned int sent = 0, turns = 0, peer_left = 0;
	struct smc_llc_msg m, out;
	bool more;
	int rc;

	do {
		/* a peer that always claims more would keep us here */
		if (++turns > SMCR_RTOKS / 2 + 2)
			return -EPROTO;
		if (!server) {
			rc = smcr_llc_wait(link, SMCR_LLC_WAIT, &m);
			if (rc)
				return rc;
			smcr_llc_learn_cont(link, nl, &m);
			peer_left = smc_llc_cont_left(&m);
		}
		smc_llc_cont_fill(&out, nl->id, !server, rk, n, &sent);
		/* the client knows now if the server sends again */
		more = sent < n || peer_left;
		if (server || more)
			smcr_llc_arm(link, SMC_LLC_ADD_LINK_CONT, server);
		rc = smcr_llc_send(link, &out);
		if (rc)
			return rc;
		if (server) {
			rc = smcr_llc_wait(link, SMCR_LLC_WAIT, &m);
			if (rc)
				return rc;
			smcr_llc_learn_cont(link, nl, &m);
			peer_left = smc_llc_cont_left(&m);
			more = sent < n || peer_left;
		}
	} while (more);
	return 0;
}

/* The peer's side of @nl from its ADD LINK, and its triples */
static void smcr_llc_add_peer(struct smcr_link *link, struct smcr_link *nl,
			      const struct smc_llc_msg *m, const u8 *raw,
			      u32 rawlen)
{
	struct smc_llc_rkey rk;
	unsigned int i;

	memcpy(nl->peer_gid, m->add_link.gid, SMC_CLC_GID_LEN);
	memcpy(nl->peer_mac, m->add_link.mac, SMC_CLC_MAC_LEN);
	nl->peer_qpn = m->add_link.qpn;
	nl->peer_psn = m->add_link.psn;
	nl->mtu = min_t(enum ib_mtu, nl->port_mtu,
			m->add_link.mtu ?: IB_MTU_256);
	for (i = 0; raw && i < m->add_link.rkey_cnt; i++)
		if (!smc_llc_add_link_rkey(raw, rawlen, m, i, &rk))
			smcr_rtok_learn(link->lgr, link->idx, rk.rkey,
					nl->idx, rk.rkey_new, rk.addr_new);
}

/* The triples of our RMBs for @nl, sent over @link, into a new array */
static struct smc_llc_rkey *smcr_llc_rkeys(struct smcr_lgr *lgr,
					   struct smcr_link *link,
					   struct smcr_link *nl,
					   unsigned int *n)
{
	struct smc_llc_rkey *rk;

	rk = kcalloc(SMCR_RTOKS, sizeof(*rk), GFP_KERNEL);
	if (rk)
		*n = smcr_bufs_rkeys(lgr, link, nl, rk, SMCR_RTOKS);
	return rk;
}

/* A device for a second link of @lgr beside @link's (referenced) */
static int smcr_llc_find_alt(struct smcr_lgr *lgr, struct smcr_link *link,
			     struct smcr_gid_info *gi)
{
	if (lgr->version == SMC_V1)
		return smcr_dev_find_alt_v1(lgr->home_gid, lgr->vlan,
					    link->dev, link->port, gi);
	return smcr_dev_find_alt(lgr->home_gid, link->dev, link->port, gi);
}

/* @link's own device, port and GID, for a link beside it (referenced) */
static void smcr_llc_same_dev(struct smcr_link *link, struct smcr_gid_info *gi)
{
	smcr_dev_hold(link->dev);
	gi->dev = link->dev;
	gi->port = link->port;
	gi->sgid_index = link->sgid_index;
	memcpy(gi->gid, link->gid, sizeof(gi->gid));
	memcpy(gi->mac, link->mac, sizeof(gi->mac));
	gi->mtu = link->port_mtu;
}

/* Is the peer's side of a new link (@gid, @mac) that of @link? */
static bool smcr_llc_peer_same(const struct smcr_link *link, const u8 *gid,
			       const u8 *mac)
{
	return !memcmp(link->peer_gid, gid, SMC_CLC_GID_LEN) &&
	       !memcmp(link->peer_mac, mac, SMC_CLC_MAC_LEN);
}

static bool smcr_llc_remove_link(struct smcr_lgr *lgr, struct smcr_link *link,
				 bool tell, u32 reason);

/*
 * A link of @lgr other than @not that a new link on our @dev to the
 * peer's @gid would pair with: distinct devices at both ends.
 */
static struct smcr_link *smcr_llc_partner(struct smcr_lgr *lgr,
					  const struct smcr_link *not,
					  const struct smcr_dev *dev,
					  const u8 *gid)
{
	struct smcr_link *l;
	unsigned int i;

	for (i = 0; i < SMCR_LINKS; i++) {
		l = lgr->links[i];
		if (l && l != not && l->dev != dev &&
		    READ_ONCE(l->state) == SMCR_LINK_ACTIVE &&
		    memcmp(l->peer_gid, gid, SMC_CLC_GID_LEN))
			return l;
	}
	return NULL;
}

/*
 * Server: @nl, a third link, is up beside the two of an asymmetric
 * group: the one of them that does not pair with @nl goes, and the
 * peer is told first.  One that failed meanwhile is left to the
 * handling of failed links.  False when the group ended.
 */
static bool smcr_llc_drop_asym(struct smcr_lgr *lgr, struct smcr_link *nl)
{
	struct smcr_link *keep, *drop = NULL, *l;
	unsigned int i;

	keep = smcr_llc_partner(lgr, nl, nl->dev, nl->peer_gid);
	for (i = 0; i < SMCR_LINKS; i++) {
		l = lgr->links[i];
		if (l && l != nl && l != keep)
			drop = l;
	}
	if (!keep || !drop || READ_ONCE(drop->state) != SMCR_LINK_ACTIVE)
		return true;
	WRITE_ONCE(keep->asym, false);
	return smcr_llc_remove_link(lgr, drop, true,
				    SMC_LLC_DEL_NO_ASYM_NEEDED);
}

/* Server: the client's REQUEST ADD LINK gets no ADD LINK; it learns so */
static void smcr_llc_req_refuse(struct smcr_link *link)
{
	struct smc_llc_msg m;

	/* a v1 invitation has no answer */
	if (link->lgr->version == SMC_V1)
		return;
	memset(&m, 0, sizeof(m));
	m.hdr.type = SMC_LLC_REQ_ADD_LINK;
	m.hdr.version = 2;
	m.hdr.flags = SMC_LLC_FLAG_RESP;
	smcr_llc_send(link, &m);
}

/*
 * Server: a second link, over another device if there is one, else
 * over the first link's (asymmetric).  In a group with an asymmetric
 * link, a symmetric one is made beside it, which then replaces it.
 * @req: the client asked for it, and hears back if no ADD LINK comes.
 */
static void smcr_llc_srv_add_link(struct smcr_lgr *lgr, bool req)
{
	bool local = false, third, peer;
	struct smc_llc_rkey *rk = NULL;
	struct smcr_link *link, *nl;
	struct smcr_gid_info gi;
	struct smc_llc_msg m;
	unsigned int n = 0;
	u8 *raw = NULL;
	u32 rawlen;
	int idx, rc;

	lockdep_assert_held(&lgr->llc_flow);
	link = smcr_lgr_active_link(lgr, NULL);
	if (lgr->max_links < SMC_CLC_LINKS_PER_LGR_MAX || !link ||
	    lgr->add_fails >= SMCR_ADD_TRIES)
		goto out_refuse;
	if (req)
		lgr->peer_one_dev = false;
	if (smcr_llc_find_alt(lgr, link, &gi)) {
		if (lgr->peer_one_dev)
			goto out_refuse;
		smcr_llc_same_dev(link, &gi);
		local = true;
	}
	idx = smcr_lgr_link_slot(lgr, !local, &third);
	if (idx < 0) {
		smcr_dev_put(gi.dev);
		goto out_refuse;
	}
	/*
	 * What the peer sends (a REQUEST ADD LINK, an ADD LINK, refusals)
	 * may bring a try forward, never beyond the budget: each costs a
	 * QP, a mapping of every buffer and MRs.  Over budget, the group
	 * looks again later.
	 */
	if (!smcr_add_budget_take(&lgr->add_budget, jiffies, SMCR_ADD_WINDOW,
				  SMCR_ADD_BUDGET)) {
		smcr_dev_put(gi.dev);
		smcr_lgr_add_later(lgr);
		goto out_refuse;
	}
	/* counted until it works: a client that refuses stops us */
	lgr->add_fails++;
	WRITE_ONCE(lgr->adds, lgr->adds + 1);
	nl = smcr_llc_new_link(lgr, idx, &gi, smcr_llc_next_id(lgr));
	smcr_dev_put(gi.dev);
	if (IS_ERR(nl))
		goto out_refuse;
	rk = smcr_llc_rkeys(lgr, link, nl, &n);
	if (!rk) {
		smcr_llc_unlink(lgr, nl);
		goto out_refuse;
	}
	smcr_llc_add_msg(&m, nl, n, false);
	smcr_llc_arm(link, SMC_LLC_ADD_LINK, true);
	rc = smcr_llc_send_add(link, &m, rk);
	/*
	 * The client may still be giving up a link we gave up a moment
	 * ago, which can take it seconds: longer than an LLC response
	 */
	if (!rc)
		rc = smcr_llc_wait(link, SMCR_ADD_WAIT, &m);
	raw = smcr_llc_take_raw(link, &rawlen);
	/* refused: the client has no other device */
	if (!rc && (m.hdr.flags & SMC_LLC_FLAG_ADD_LINK_REJ) && local)
		lgr->peer_one_dev = true;
	if (rc || (m.hdr.flags & SMC_LLC_FLAG_ADD_LINK_REJ) ||
	    (lgr->version >= SMC_V2 && !m.add_link.v2_ext) ||
	    m.add_link.link_id != nl->id)
		goto out_unlink;
	peer = smcr_llc_peer_same(link, m.add_link.gid, m.add_link.mac);
	/* one device on both sides: nothing gained; a third link must
	 * pair with one of the two
	 */
	if ((local && peer) ||
	    (third && !smcr_llc_partner(lgr, nl, nl->dev, m.add_link.gid)))
		goto out_delete;
	WRITE_ONCE(nl->asym, !third && (local || peer));
	smcr_llc_add_peer(link, nl, &m, raw, rawlen);
	rc = smcr_link_ready(nl, false);
	if (!rc)
		rc = smcr_link_ready(nl, true);
	if (!rc && lgr->version == SMC_V1)
		rc = smcr_llc_rkey_exchange(link, nl, rk, n);
	if (!rc)
		rc = smcr_bufs_reg_link(lgr, nl);
	if (rc)
		goto out_delete;
	smcr_confirm_link_fill(&m, nl, false);
	smcr_llc_arm(nl, SMC_LLC_CONFIRM_LINK, true);
	rc = smcr_llc_send(nl, &m);
	if (!rc)
		rc = smcr_llc_wait(nl, SMCR_ADD_WAIT, &m);
	if (rc || !(m.hdr.flags & SMC_LLC_FLAG_NO_RMBE_EYEC))
		goto out_delete;
	smcr_link_peer_uid(nl, &m);
	if (smcr_link_activate(nl))
		goto out_delete;
	lgr->add_fails = 0;
	kfree(raw);
	kfree(rk);
	if (third)
		smcr_llc_drop_asym(lgr, nl);
	return;

out_delete:
	/* the client has the link half made: it drops it */
	smcr_llc_delete_msg(&m, lgr, nl->id, 0, SMC_LLC_DEL_LOST_PATH);
	smcr_llc_send(link, &m);
out_unlink:
	kfree(raw);
	kfree(rk);
	smcr_llc_unlink(lgr, nl);
	/* again, SMCR_ADD_TRIES in a row, a while apart: the client may
	 * be giving up a link we gave up a moment ago, or its end of the
	 * path be on its way up
	 */
	smcr_lgr_add_later(lgr);
	return;

out_refuse:
	if (req && link)
		smcr_llc_req_refuse(link);
}

/*
 * Client: a port came up.  With a device for a second link now, a
 * group with one link, or with both on one device of ours, asks the
 * server for one (REQUEST ADD LINK, our two GIDs): SMCR_ADD_TRIES times
 * at most, SMCR_ADD_AGAIN apart, while no link comes of it.
 */
static void smcr_llc_cli_request(struct smcr_lgr *lgr)
{
	struct smcr_gid_info gi;
	struct smcr_link *link;
	struct smc_llc_msg m;

	lockdep_assert_held(&lgr->llc_flow);
	link = smcr_lgr_active_link(lgr, NULL);
	if (!link || lgr->max_links < SMC_CLC_LINKS_PER_LGR_MAX ||
	    lgr->asks >= SMCR_ADD_TRIES || smcr_llc_find_alt(lgr, link, &gi))
		return;
	/* no answer is an answer too: unless a link comes, ask again */
	if (++lgr->asks < SMCR_ADD_TRIES)
		smcr_lgr_add_later(lgr);
	memset(&m, 0, sizeof(m));
	if (lgr->version == SMC_V1) {
		/* v1 invites with an ADD LINK of our other device */
		m.hdr.type = SMC_LLC_ADD_LINK;
		m.hdr.version = SMC_V1;
		memcpy(m.add_link.mac, gi.mac, SMC_CLC_MAC_LEN);
		memcpy(m.add_link.gid, gi.gid, SMC_CLC_GID_LEN);
		smcr_dev_put(gi.dev);
		smcr_llc_send(link, &m);
		return;
	}
	m.hdr.type = SMC_LLC_REQ_ADD_LINK;
	m.hdr.version = 2;
	m.req_add_link.gid_cnt = 2;
	memcpy(m.req_add_link.gid[0], link->gid, SMC_LLC_GID_LEN);
	memcpy(m.req_add_link.gid[1], gi.gid, SMC_LLC_GID_LEN);
	smcr_dev_put(gi.dev);
	smcr_llc_send_big(link, &m, NULL);
}

/* Client: refuse the server's ADD LINK @m, received on @link */
static void smcr_llc_cli_reject(struct smcr_link *link, struct smc_llc_msg *m)
{
	m->add_link.v2_ext = false;
	m->hdr.rej_rsn = SMC_LLC_REJ_NO_ALT_PATH;
	m->hdr.flags = SMC_LLC_FLAG_RESP | SMC_LLC_FLAG_ADD_LINK_REJ;
	smcr_llc_send(link, m);
}

/*
 * Test mode: the client refuses the server's ADD LINK @m and then asks
 * for a link, as a hostile one may, again and again
 */
static void smcr_llc_test_refuse(struct smcr_link *link,
				 struct smc_llc_msg *m)
{
	smcr_llc_cli_reject(link, m);
	if (link->lgr->version == SMC_V1)
		return;
	memset(m, 0, sizeof(*m));
	m->hdr.type = SMC_LLC_REQ_ADD_LINK;
	m->hdr.version = 2;
	m->req_add_link.gid_cnt = 1;
	memcpy(m->req_add_link.gid[0], link->gid, SMC_LLC_GID_LEN);
	smcr_llc_send(link, m);
}

/* Client: the server adds a link with ADD LINK @m (@raw), on @link */
static void smcr_llc_cli_add_link(struct smcr_lgr *lgr, struct smcr_link *link,
				  struct smc_llc_msg *m, const u8 *raw,
				  u32 rawlen)
{
	struct smc_llc_rkey *rk = NULL;
	struct smcr_gid_info gi;
	bool asym, third;
	struct smcr_link *nl;
	unsigned int n = 0;
	int idx, rc;

	lockdep_assert_held(&lgr->llc_flow);
	if (READ_ONCE(smcr_llc_test) & SMCR_LLC_TEST_REFUSE) {
		smcr_llc_test_refuse(link, m);
		return;
	}
	if (lgr->max_links < SMC_CLC_LINKS_PER_LGR_MAX ||
	    (lgr->version >= SMC_V2 && !m->add_link.v2_ext) ||
	    !m->add_link.mtu || !m->add_link.link_id ||
	    smcr_llc_link_by_id(lgr, m->add_link.link_id) ||
	    READ_ONCE(link->state) != SMCR_LINK_ACTIVE) {
		smcr_llc_cli_reject(link, m);
		return;
	}
	asym = smcr_llc_peer_same(link, m->add_link.gid, m->add_link.mac);
	if (smcr_llc_find_alt(lgr, link, &gi)) {
		/* one device here: worth a link if the server has two */
		if (asym) {
			smcr_llc_cli_reject(link, m);
			return;
		}
		smcr_llc_same_dev(link, &gi);
		asym = true;
	}
	/* a third link: a symmetric one that replaces an asymmetric one
	 * (the server deletes that one when this is up)
	 */
	idx = smcr_lgr_link_slot(lgr, !asym, &third);
	if (third && !smcr_llc_partner(lgr, NULL, gi.dev, m->add_link.gid))
		idx = -ENOSPC;
	nl = idx < 0 ? ERR_PTR(idx) :
		       smcr_llc_new_link(lgr, idx, &gi, m->add_link.link_id);
	smcr_dev_put(gi.dev);
	if (IS_ERR(nl)) {
		smcr_llc_cli_reject(link, m);
		return;
	}
	WRITE_ONCE(nl->asym, asym);
	smcr_llc_add_peer(link, nl, m, raw, rawlen);
	rc = smcr_link_ready(nl, false);
	if (!rc) {
		rk = smcr_llc_rkeys(lgr, link, nl, &n);
		rc = rk ? 0 : -ENOMEM;
	}
	if (rc) {
		smcr_llc_cli_reject(link, m);
		goto out_unlink;
	}
	smcr_llc_add_msg(m, nl, n, true);
	/* the server's next message may come before we are back */
	smcr_llc_arm(nl, SMC_LLC_CONFIRM_LINK, false);
	if (lgr->version == SMC_V1)
		smcr_llc_arm(link, SMC_LLC_ADD_LINK_CONT, false);
	rc = smcr_llc_send_add(link, m, rk);
	if (rc)
		goto out_unlink;
	if (lgr->version == SMC_V1 &&
	    smcr_llc_rkey_exchange(link, nl, rk, n))
		goto out_delete;
	rc = smcr_llc_wait(nl, SMCR_ADD_WAIT, m);
	if (rc || !(m->hdr.flags & SMC_LLC_FLAG_NO_RMBE_EYEC))
		goto out_delete;
	smcr_link_peer_uid(nl, m);
	rc = smcr_link_ready(nl, true);
	if (!rc)
		rc = smcr_bufs_reg_link(lgr, nl);
	if (rc)
		goto out_delete;
	smcr_confirm_link_fill(m, nl, true);
	if (smcr_llc_send(nl, m) || smcr_link_activate(nl))
		goto out_delete;
	kfree(rk);
	return;

out_delete:
	smcr_llc_delete_msg(m, lgr, nl->id, 0, SMC_LLC_DEL_LOST_PATH);
	smcr_llc_send(link, m);
out_unlink:
	kfree(rk);
	smcr_llc_unlink(lgr, nl);
}

/*
 * @link goes: its connections move to an active link, then the link is
 * unlinked; with @tell, the peer learns it with DELETE LINK (the server
 * waits for the answer).  False when no link is left: the group ends.
 */
static bool smcr_llc_remove_link(struct smcr_lgr *lgr, struct smcr_link *link,
				 bool tell, u32 reason)
{
	struct smc_sock **socks;
	struct smcr_link *other;
	struct smc_llc_msg m;
	unsigned int i, n;

	lockdep_assert_held(&lgr->llc_flow);
	other = smcr_lgr_active_link(lgr, link);
	if (!other) {
		smcr_lgr_terminate(lgr, 0);
		return false;
	}
	smcr_link_set_down(link);
	socks = kcalloc(SMCR_RTOKS, sizeof(*socks), GFP_KERNEL);
	if (!socks) {
		smcr_lgr_terminate(lgr, 0);
		return false;
	}
	n = smcr_lgr_link_conns(lgr, link, socks, SMCR_RTOKS);
	/* nothing more goes out over the link, and nothing in flight
	 * lands after what is written again over the other
	 */
	for (i = 0; i < n; i++)
		smcr_conn_hold(socks[i], link);
	smcr_link_stop(link);
	for (i = 0; i < n; i++) {
		if (!smcr_conn_failover(socks[i], lgr, link, other))
			lgr->moved++;
		sock_put(&socks[i]->sk);
	}
	kfree(socks);
	smcr_llc_unlink(lgr, link);
	if (!tell)
		return true;
	smcr_llc_delete_msg(&m, lgr, link->id, SMC_LLC_FLAG_DEL_LINK_ORDERLY,
			    reason);
	if (lgr->role == SMCR_LGR_SERVER)
		smcr_llc_arm(other, SMC_LLC_DELETE_LINK, true);
	if (!smcr_llc_send(other, &m) && lgr->role == SMCR_LGR_SERVER)
		smcr_llc_wait(other, SMCR_LLC_WAIT, &m);
	/* a lost path: the server looks for a second link again, over
	 * whatever is left; a path that fails again and again (a link
	 * that comes up but breaks under traffic) gets SMCR_ADD_TRIES
	 * searches until a port comes up
	 */
	if (lgr->role == SMCR_LGR_SERVER && reason == SMC_LLC_DEL_LOST_PATH &&
	    lgr->lost_adds < SMCR_ADD_TRIES) {
		lgr->lost_adds++;
		smcr_lgr_want_add(lgr, false);
	}
	return true;
}

/* The peer's DELETE LINK @m, received on @link */
static void smcr_llc_rx_delete_link(struct smcr_lgr *lgr,
				    struct smcr_link *link,
				    struct smc_llc_msg *m)
{
	struct smcr_link *victim;

	if (m->hdr.flags & SMC_LLC_FLAG_DEL_LINK_ALL) {
		/* the whole group goes, quietly */
		smcr_lgr_terminate(lgr, 0);
		return;
	}
	victim = smcr_llc_link_by_id(lgr, m->delete_link.link_id);
	if (victim)
		pr_info_ratelimited("%s port %u: link %u (QP %u) of group %x deleted by the peer, reason 0x%08x\n",
				    dev_name(&victim->dev->ibdev->dev),
				    victim->port, victim->id, victim->qp_num,
				    lgr->id, m->delete_link.reason);
	if (lgr->role == SMCR_LGR_CLIENT) {
		m->delete_link.reason = victim ? 0 : SMC_LLC_DEL_NOLNK;
		m->hdr.flags |= SMC_LLC_FLAG_RESP;
		smcr_llc_send(victim == link ?
			      smcr_lgr_active_link(lgr, link) ?: link : link,
			      m);
	}
	if (!victim)
		return;
	/* the server answers with a request of its own, as for a failure */
	smcr_llc_remove_link(lgr, victim, lgr->role == SMCR_LGR_SERVER,
			     SMC_LLC_DEL_LOST_PATH);
}

/* Handle one queued message; false when the group ends */
static bool smcr_llc_handle(struct smcr_lgr *lgr, struct smcr_llc_ev *ev)
{
	struct smc_llc_msg m;

	if (smc_llc_parse(ev->buf, ev->len, &m))
		return true;
	if (ev->answer) {
		smcr_llc_send(ev->link, &m);
		return true;
	}
	switch (m.hdr.type) {
	case SMC_LLC_ADD_LINK:
		smcr_llc_cli_add_link(lgr, ev->link, &m, ev->buf, ev->len);
		break;
	case SMC_LLC_DELETE_LINK:
		smcr_llc_rx_delete_link(lgr, ev->link, &m);
		break;
	default:
		break;
	}
	return !smcr_lgr_ended(lgr);
}

/* A link of @lgr that went down, or NULL */
static struct smcr_link *smcr_llc_down_link(struct smcr_lgr *lgr)
{
	struct smcr_link *link;
	unsigned int i;

	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (link && READ_ONCE(link->state) == SMCR_LINK_DOWN)
			return link;
	}
	return NULL;
}

static struct smcr_llc_ev *smcr_llc_next_ev(struct smcr_lgr *lgr)
{
	struct smcr_llc_ev *ev;

	spin_lock_bh(&lgr->ev_lock);
	ev = list_first_entry_or_null(&lgr->events, struct smcr_llc_ev,
				      node);
	if (ev) {
		list_del(&ev->node);
		lgr->nevents--;
	}
	spin_unlock_bh(&lgr->ev_lock);
	return ev;
}

static bool smcr_llc_take_want_add(struct smcr_lgr *lgr, bool *req)
{
	bool want;

	spin_lock_bh(&lgr->ev_lock);
	want = lgr->want_add;
	lgr->want_add = false;
	*req = lgr->add_req;
	lgr->add_req = false;
	if (lgr->add_fresh) {
		lgr->add_fails = 0;
		lgr->lost_adds = 0;
		lgr->asks = 0;
	}
	lgr->add_fresh = false;
	spin_unlock_bh(&lgr->ev_lock);
	return want;
}

/* Queued messages of an ended group go unread.  llc_flow held */
void smcr_llc_drain(struct smcr_lgr *lgr)
{
	struct smcr_llc_ev *ev;

	lockdep_assert_held(&lgr->llc_flow);
	while ((ev = smcr_llc_next_ev(lgr)))
		kfree(ev);
}

/*
 * The LLC work of a group: failed links first (their connections wait
 * to move), then the queued requests, then a second link if wanted.
 */
void smcr_llc_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(work, struct smcr_lgr, ev_work);
	struct smcr_llc_ev *ev;
	struct smcr_link *link;
	bool on = true, req;

	mutex_lock(&lgr->llc_flow);
	while (on && !smcr_lgr_ended(lgr)) {
		link = smcr_llc_down_link(lgr);
		if (link) {
			/* during a first contact, the handshake sees it */
			if (lgr->ready)
				on = smcr_llc_remove_link(lgr, link, true,
							  SMC_LLC_DEL_LOST_PATH);
			else
				on = false;
			continue;
		}
		ev = smcr_llc_next_ev(lgr);
		if (ev) {
			on = smcr_llc_handle(lgr, ev);
			kfree(ev);
			continue;
		}
		if (smcr_llc_take_want_add(lgr, &req)) {
			if (lgr->role == SMCR_LGR_SERVER)
				smcr_llc_srv_add_link(lgr, req);
			else
				smcr_llc_cli_request(lgr);
			continue;
		}
		break;
	}
	if (smcr_lgr_ended(lgr))
		smcr_llc_drain(lgr);
	mutex_unlock(&lgr->llc_flow);
	smcr_lgr_put(lgr);	/* the work's */
}

/*
 * A new connection's RMB @rmb, on @link, is told the peer for the other
 * active links with CONFIRM RKEY.  llc_flow held (no link comes or goes
 * meanwhile).  0, or an error for a Decline.
 */
int smcr_llc_confirm_rkey(struct smcr_lgr *lgr, struct smcr_link *link,
			  struct smcr_buf *rmb)
{
	struct smc_llc_rkey_link *o;
	struct smcr_link *other;
	struct smc_llc_msg m = {};
	unsigned int i, n = 0;
	int rc;

	lockdep_assert_held(&lgr->llc_flow);
	for (i = 0; i < SMCR_LINKS; i++) {
		other = lgr->links[i];
		if (!other || other == link || !rmb->map[i].registered ||
		    READ_ONCE(other->state) != SMCR_LINK_ACTIVE)
			continue;
		o = &m.confirm_rkey.other[n++];
		o->link_id = other->id;
		o->rkey = rmb->map[i].rkey;
		o->addr = rmb->map[i].iova;
	}
	if (!n)
		return 0;
	m.hdr.type = SMC_LLC_CONFIRM_RKEY;
	m.hdr.version = lgr->llc_version;
	m.confirm_rkey.num_other = n;
	m.confirm_rkey.rkey = rmb->map[link->idx].rkey;
	m.confirm_rkey.addr = rmb->map[link->idx].iova;
	smcr_llc_arm(link, SMC_LLC_CONFIRM_RKEY, true);
	rc = smcr_llc_send(link, &m);
	if (!rc)
		rc = smcr_llc_wait(link, SMCR_LLC_WAIT, &m);
	if (!rc && (m.hdr.flags & SMC_LLC_FLAG_RKEY_NEG))
		rc = -EREMOTEIO;
	return rc;
}
