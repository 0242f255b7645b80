// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-R link groups.
 *
 * A link group stands for the connections with one peer in one role.
 * Its first link comes up with the first connection; the server then
 * adds a second one over another RoCE device of the same network when
 * both sides have one (smcr_llc.c).  The server reuses a group for a
 * client whose RoCE GID it knows; the client follows the server's
 * choice, found by the server's QP.
 *
 * Life: a reference for being usable (dropped when the group ends) and
 * one for every connection, pending work item and timer.  A failed
 * link moves its connections to the other link; without one, the
 * group ends: its connections are aborted, the peer is told while a
 * link works, and the hardware resources are freed at once; memory
 * goes with the last reference.
 *
 * Lock order: smcr_lgr.llc_flow -> smcr_lgrs_lock -> smcr_lgr.buf_lock
 * (mutexes).  lgr->links[] changes under all three, so that holding
 * any of them keeps it still.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/slab.h>
#include <net/ipv6.h>

#include "smc_conn.h"
#include "smc_core.h"
#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smcr_dev.h"
#include "smcr.h"

#define SMCR_LGR_LINGER_SERV	(600 * HZ)
#define SMCR_LGR_LINGER_CLNT	(610 * HZ)

LIST_HEAD(smcr_lgrs);
DEFINE_MUTEX(smcr_lgrs_lock);	/* smcr_lgrs, conns of each lgr */
/* link-group ends, LLC work and linger timers; drained at unload */
static struct workqueue_struct *smcr_lgr_wq;

static void smcr_lgr_free(struct smcr_lgr *lgr)
{
	struct smcr_link *link, *tmp;
	struct smcr_buf *buf, *btmp;
	bool orphans = false;
	unsigned int i;

	/*
	 * A link whose QP would not flush stays, an orphan; its handlers
	 * run in softirq: wait out any that looked before it was marked.
	 */
	for (i = 0; i < SMCR_LINKS; i++)
		if (lgr->links[i] && !smcr_link_stop(lgr->links[i]))
			orphans = true;
	list_for_each_entry(link, &lgr->dead_links, dead)
		if (!smcr_link_stop(link))
			orphans = true;
	if (orphans)
		synchronize_rcu();
	list_for_each_entry_safe(buf, btmp, &lgr->bufs, node)
		smcr_buf_free(lgr, buf);
	for (i = 0; i < SMCR_LINKS; i++)
		if (lgr->links[i])
			smcr_link_free(lgr->links[i]);
	list_for_each_entry_safe(link, tmp, &lgr->dead_links, dead)
		smcr_link_free(link);
	xa_destroy(&lgr->conns_by_token);
	kfree(lgr);
}

void smcr_lgr_put(struct smcr_lgr *lgr)
{
	if (refcount_dec_and_test(&lgr->refs))
		smcr_lgr_free(lgr);
}

static unsigned long smcr_lgr_linger(const struct smcr_lgr *lgr)
{
	return lgr->role == SMCR_LGR_SERVER ? SMCR_LGR_LINGER_SERV :
					      SMCR_LGR_LINGER_CLNT;
}

/* An active link of @lgr other than @not, or NULL */
struct smcr_link *smcr_lgr_active_link(struct smcr_lgr *lgr,
				       const struct smcr_link *not)
{
	struct smcr_link *link;
	unsigned int i;

	for (i = 0; i < SMCR_LINKS; i++) {
		link = READ_ONCE(lgr->links[i]);
		if (link && link != not &&
		    READ_ONCE(link->state) == SMCR_LINK_ACTIVE)
			return link;
	}
	return NULL;
}

/* Do @a and @b use distinct devices at both ends? */
static bool smcr_links_symmetric(const struct smcr_link *a,
				 const struct smcr_link *b)
{
	return a->dev != b->dev &&
	       memcmp(a->peer_gid, b->peer_gid, SMC_CLC_GID_LEN);
}

/*
 * A free place in lgr->links[] for a new link, or -ENOSPC: for two
 * links, and for a third only when it is symmetric (@sym) and the two
 * share a device at one end, so that it replaces one of them (then
 * *@third).  The pair is judged by its devices, not by the asym marks:
 * a link that failed during a replacement can leave an asymmetric pair
 * with neither marked.  llc_flow held.
 */
int smcr_lgr_link_slot(struct smcr_lgr *lgr, bool sym, bool *third)
{
	struct smcr_link *pair[SMC_CLC_LINKS_PER_LGR_MAX];
	unsigned int i, n = 0;
	int idx = -ENOSPC;

	lockdep_assert_held(&lgr->llc_flow);
	for (i = 0; i < SMCR_LINKS; i++) {
		if (lgr->links[i]) {
			if (n < SMC_CLC_LINKS_PER_LGR_MAX)
				pair[n] = lgr->links[i];
			n++;
		} else if (idx < 0) {
			idx = i;
		}
	}
	if (third)
		*third = n >= SMC_CLC_LINKS_PER_LGR_MAX;
	if (n < SMC_CLC_LINKS_PER_LGR_MAX ||
	    (sym && n == SMC_CLC_LINKS_PER_LGR_MAX &&
	     !smcr_links_symmetric(pair[0], pair[1])))
		return idx;
	return -ENOSPC;
}

/* Put @link (or NULL) at @idx; the caller holds llc_flow */
void smcr_lgr_link_set(struct smcr_lgr *lgr, unsigned int idx,
		       struct smcr_link *link)
{
	lockdep_assert_held(&lgr->llc_flow);
	mutex_lock(&smcr_lgrs_lock);
	mutex_lock(&lgr->buf_lock);
	WRITE_ONCE(lgr->links[idx], link);
	mutex_unlock(&lgr->buf_lock);
	mutex_unlock(&smcr_lgrs_lock);
}

/* Has @lgr ended, or begun to? */
bool smcr_lgr_ended(struct smcr_lgr *lgr)
{
	return READ_ONCE(lgr->gone);
}

/* Every connection of @lgr learns that the link group is gone */
static void smcr_lgr_abort_conns(struct smcr_lgr *lgr)
{
	struct smc_cdc_view v = {};
	struct smc_sock *smc;
	unsigned long token;

	rcu_read_lock();
	xa_for_each(&lgr->conns_by_token, token, smc) {
		WRITE_ONCE(smc->conn.smcr.tx_dead, true);
		/* as if the peer had aborted: readers and writers wake; its
		 * writes are over, with the QPs
		 */
		smc_rx_write_lock(&smc->conn);
		smc->conn.smcr.peer_stopped = true;
		v.prod = smc->conn.peer_prod;
		v.cons = smc->conn.peer_cons;
		v.prod_flags = smc->conn.peer_prod_flags;
		smc_rx_write_unlock(&smc->conn);
		v.conn_state_flags = SMC_CDC_CS_ABORT;
		smc_conn_rx_cdc(smc, &v);
		smcr_conn_peer_done(smc);
	}
	rcu_read_unlock();
	/* senders waiting for a move give up */
	wake_up_all(&lgr->moved_wq);
}

/* The links of @lgr now, each referenced by the group */
static unsigned int smcr_lgr_links(struct smcr_lgr *lgr,
				   struct smcr_link **links)
{
	unsigned int i, n = 0;

	mutex_lock(&smcr_lgrs_lock);
	for (i = 0; i < SMCR_LINKS; i++)
		if (lgr->links[i])
			links[n++] = lgr->links[i];
	mutex_unlock(&smcr_lgrs_lock);
	return n;
}

/*
 * The second half of ending @lgr, marked gone already: the connections
 * aborted, the peer told with a DELETE LINK when @reason is not 0 and
 * a link works, the links' QPs and the buffers' registrations freed.
 * Process context.
 */
static void smcr_lgr_end_hw(struct smcr_lgr *lgr, u32 reason)
{
	struct smcr_link *links[SMCR_LINKS];
	struct smc_llc_msg m = {};
	struct smcr_link *link;
	unsigned int i, n;

	smcr_lgr_abort_conns(lgr);
	link = smcr_lgr_active_link(lgr, NULL);
	if (reason && link) {
		m.hdr.type = SMC_LLC_DELETE_LINK;
		m.hdr.version = lgr->llc_version;
		m.hdr.flags = SMC_LLC_FLAG_DEL_LINK_ALL |
			      SMC_LLC_FLAG_DEL_LINK_ORDERLY;
		m.delete_link.reason = reason;
		/* sent before the QP stops: wait for its completion */
		if (!smcr_llc_send(link, &m))
			smcr_link_quiesce(link, SMCR_LLC_WAIT);
	}
	/* a procedure waiting on a link gives up, and lets go of llc_flow */
	n = smcr_lgr_links(lgr, links);
	for (i = 0; i < n; i++)
		smcr_link_set_down(links[i]);
	mutex_lock(&lgr->llc_flow);
	smcr_llc_drain(lgr);
	mutex_lock(&lgr->buf_lock);
	lgr->hw_gone = true;
	mutex_unlock(&lgr->buf_lock);
	n = smcr_lgr_links(lgr, links);
	for (i = 0; i < n; i++) {
		smcr_link_stop(links[i]);
		smcr_bufs_unmap_link(lgr, links[i]);
		smcr_link_release(links[i]);
	}
	mutex_unlock(&lgr->llc_flow);
	smcr_lgr_put(lgr);	/* the group's own reference */
}

/*
 * @lgr is gone: the pending works that hold a reference of their own
 * go, with it: the search for a second link and the reap of orphans
 * (none is queued after: smcr_lgr_add_later() and smcr_lgr_orphan_at()
 * look at gone).  smcr_lgrs_lock held.
 */
static void smcr_lgr_cancel_pending(struct smcr_lgr *lgr)
{
	lockdep_assert_held(&smcr_lgrs_lock);
	if (cancel_delayed_work(&lgr->again_work))
		smcr_lgr_put(lgr);
	if (cancel_delayed_work(&lgr->orphan_work))
		smcr_lgr_put(lgr);
}

/* End @lgr: no new connections, then smcr_lgr_end_hw().  Idempotent */
static void smcr_lgr_end(struct smcr_lgr *lgr, u32 reason)
{
	bool was_gone;

	mutex_lock(&smcr_lgrs_lock);
	was_gone = lgr->gone;
	WRITE_ONCE(lgr->gone, true);
	if (!list_empty(&lgr->list))
		list_del_init(&lgr->list);
	/* a pending linger timer holds a reference; the group never
	 * outlives it (not the sync cancel: the timer itself ends groups)
	 */
	if (cancel_delayed_work(&lgr->linger_work))
		smcr_lgr_put(lgr);
	smcr_lgr_cancel_pending(lgr);
	mutex_unlock(&smcr_lgrs_lock);
	if (!was_gone)
		smcr_lgr_end_hw(lgr, reason);
}

static void smcr_lgr_term_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(work, struct smcr_lgr, term_work);

	smcr_lgr_end(lgr, lgr->term_reason);
	smcr_lgr_put(lgr);	/* the work's */
}

/* End @lgr from any context */
void smcr_lgr_terminate(struct smcr_lgr *lgr, u32 reason)
{
	refcount_inc(&lgr->refs);
	lgr->term_reason = reason;
	if (!queue_work(smcr_lgr_wq, &lgr->term_work))
		smcr_lgr_put(lgr);
}

/* Run the LLC work of @lgr (smcr_llc_work()), from any context */
void smcr_lgr_kick(struct smcr_lgr *lgr)
{
	refcount_inc(&lgr->refs);
	if (!queue_work(smcr_lgr_wq, &lgr->ev_work))
		smcr_lgr_put(lgr);
}

/*
 * Server: let the LLC work look for a second link; with @fresh (a port
 * came up), even after failed tries
 */
void smcr_lgr_want_add(struct smcr_lgr *lgr, bool fresh)
{
	spin_lock_bh(&lgr->ev_lock);
	lgr->want_add = true;
	lgr->add_fresh |= fresh;
	spin_unlock_bh(&lgr->ev_lock);
	smcr_lgr_kick(lgr);
}

/*
 * A link of @lgr failed: the LLC work moves its connections to the
 * other link, or ends the group when there is none.
 */
void smcr_lgr_link_down(struct smcr_lgr *lgr)
{
	smcr_lgr_kick(lgr);
}

static void smcr_lgr_linger_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(to_delayed_work(work),
					    struct smcr_lgr, linger_work);
	unsigned long end;

	mutex_lock(&smcr_lgrs_lock);
	/* in use again: the next connection to leave re-arms the timer */
	if (lgr->conns || lgr->gone) {
		mutex_unlock(&smcr_lgrs_lock);
		smcr_lgr_put(lgr);	/* the timer's */
		return;
	}
	end = lgr->idle_since + smcr_lgr_linger(lgr);
	if (time_before(jiffies, end)) {
		/* the timer keeps its reference, unless a connection that
		 * left queued it meanwhile with one of its own
		 */
		if (!queue_delayed_work(smcr_lgr_wq, &lgr->linger_work,
					end - jiffies))
			smcr_lgr_put(lgr);
		mutex_unlock(&smcr_lgrs_lock);
		return;
	}
	/* gone under the lock that adds connections: none joins now */
	lgr->gone = true;
	list_del_init(&lgr->list);
	smcr_lgr_cancel_pending(lgr);
	mutex_unlock(&smcr_lgrs_lock);
	smcr_lgr_end_hw(lgr, SMC_LLC_DEL_PROG_INIT_TERM);
	smcr_lgr_put(lgr);	/* the timer's */
}

/* orphans reaped in one go; the work runs again at once for more */
#define SMCR_REAP_BATCH		16

/*
 * The orphans of @lgr whose time is up (smcr_conn_orphan_due()) are
 * reaped; the work comes back when the next one is due.  It holds a
 * reference on the group while queued.
 */
static void smcr_lgr_orphan_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(to_delayed_work(work),
					    struct smcr_lgr, orphan_work);
	struct smc_sock *due[SMCR_REAP_BATCH];
	bool later = false, full = false, put;
	unsigned long next = 0, token;
	unsigned int i, n = 0;
	struct smc_sock *smc;

	mutex_lock(&smcr_lgrs_lock);
	xa_for_each(&lgr->conns_by_token, token, smc) {
		if (n == SMCR_REAP_BATCH) {
			full = true;
			break;
		}
		if (smcr_conn_orphan_due(smc, &next, &later)) {
			sock_hold(&smc->sk);
			due[n++] = smc;
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
	for (i = 0; i < n; i++) {
		smcr_conn_reap(due[i]);
		sock_put(&due[i]->sk);
	}
	mutex_lock(&smcr_lgrs_lock);
	put = true;
	/* the work keeps its reference, unless one who armed it meanwhile
	 * queued it with a reference of its own
	 */
	if (!lgr->gone && (full || later))
		put = !queue_delayed_work(smcr_lgr_wq, &lgr->orphan_work,
					  full || time_after_eq(jiffies, next) ?
					  0 : next - jiffies);
	mutex_unlock(&smcr_lgrs_lock);
	if (put)
		smcr_lgr_put(lgr);
}

/*
 * An orphan of @lgr is due at @end: the reap runs then, or sooner if it
 * was to run sooner.  Process context; the caller holds a reference.
 */
void smcr_lgr_orphan_at(struct smcr_lgr *lgr, unsigned long end)
{
	struct delayed_work *w = &lgr->orphan_work;
	unsigned long delay;
	bool put = true;

	delay = time_after(end, jiffies) ? end - jiffies : 0;
	mutex_lock(&smcr_lgrs_lock);
	if (!lgr->gone) {
		/* the work's reference, unless it is pending with one */
		refcount_inc(&lgr->refs);
		if (delayed_work_pending(w) &&
		    time_before(end, READ_ONCE(w->timer.expires)))
			put = mod_delayed_work(smcr_lgr_wq, w, delay);
		else
			put = !queue_delayed_work(smcr_lgr_wq, w, delay);
	}
	mutex_unlock(&smcr_lgrs_lock);
	if (put)
		smcr_lgr_put(lgr);
}

static void smcr_lgr_again_work(struct work_struct *work);

/*
 * A new link group in @role with its link on the device and port of
 * @gi.  The caller holds the returned reference; the group is not
 * findable until smcr_lgr_publish().
 */
struct smcr_lgr *smcr_lgr_create(u8 role, const struct smcr_gid_info *gi,
				 struct net *net, u8 version)
{
	struct smc_net_smcr sp;
	struct smcr_link *link;
	struct smcr_lgr *lgr;

	lgr = kzalloc(sizeof(*lgr), GFP_KERNEL);
	if (!lgr)
		return ERR_PTR(-ENOMEM);
	lgr->role = role;
	INIT_LIST_HEAD(&lgr->list);
	INIT_LIST_HEAD(&lgr->bufs);
	INIT_LIST_HEAD(&lgr->dead_links);
	mutex_init(&lgr->buf_lock);
	mutex_init(&lgr->llc_flow);
	spin_lock_init(&lgr->ev_lock);
	INIT_LIST_HEAD(&lgr->events);
	INIT_WORK(&lgr->ev_work, smcr_llc_work);
	init_waitqueue_head(&lgr->moved_wq);
	spin_lock_init(&lgr->rtok_lock);
	xa_init_flags(&lgr->conns_by_token, XA_FLAGS_ALLOC1);
	INIT_DELAYED_WORK(&lgr->linger_work, smcr_lgr_linger_work);
	INIT_DELAYED_WORK(&lgr->orphan_work, smcr_lgr_orphan_work);
	INIT_DELAYED_WORK(&lgr->again_work, smcr_lgr_again_work);
	INIT_WORK(&lgr->term_work, smcr_lgr_term_work);
	/* one for the group, one for the caller */
	refcount_set(&lgr->refs, 2);
	lgr->version = version;
	lgr->llc_version = version;
	lgr->vlan = version == SMC_V1 ? gi->vlan : 0;
	/* the net.smc settings of the socket that made the group */
	smc_net_smcr(net, &sp);
	lgr->testlink_time = sp.testlink_time;
	lgr->buf_type = sp.buf_type;
	lgr->send_wr = sp.send_wr;
	lgr->recv_wr = sp.recv_wr;
	/* only connections of this netns join it, only it sees the group */
	lgr->net_cookie = net->net_cookie;
	/* its own protection domains: its peer reaches its RMBs only */
	lgr->pd_owner = smcr_pd_owner();
	link = smcr_link_create(lgr, gi->dev, gi->port, gi->sgid_index,
				gi->gid, gi->mac);
	if (IS_ERR(link)) {
		xa_destroy(&lgr->conns_by_token);
		kfree(lgr);
		return ERR_CAST(link);
	}
	link->port_mtu = gi->mtu;
	link->idx = 0;
	link->id = 1;
	lgr->last_link_id = 1;
	memcpy(lgr->home_gid, link->gid, sizeof(lgr->home_gid));
	lgr->links[0] = link;
	mutex_lock(&smcr_lgrs_lock);
	lgr->id = smc_lgr_new_id();
	list_add(&lgr->list, &smcr_lgrs);
	mutex_unlock(&smcr_lgrs_lock);
	return lgr;
}

/* The first link of @lgr is up: later connections may find it */
void smcr_lgr_publish(struct smcr_lgr *lgr)
{
	mutex_lock(&smcr_lgrs_lock);
	lgr->ready = true;
	mutex_unlock(&smcr_lgrs_lock);
	/* a link that failed meanwhile was left for now: see to it */
	if (smcr_lgr_active_link(lgr, NULL) != lgr->links[0])
		smcr_lgr_kick(lgr);
}

/* A new group that never carried a connection goes away */
void smcr_lgr_discard(struct smcr_lgr *lgr)
{
	smcr_lgr_end(lgr, 0);
}

/*
 * Does an active link of @lgr reach the peer's @gid (and @qpn, if not
 * 0; and @mac, if not NULL)?
 */
static struct smcr_link *smcr_lgr_link_to(struct smcr_lgr *lgr,
					  const u8 *gid, u32 qpn,
					  const u8 *mac)
{
	struct smcr_link *link;
	unsigned int i;

	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (link && READ_ONCE(link->state) == SMCR_LINK_ACTIVE &&
		    (!qpn || link->peer_qpn == qpn) &&
		    !memcmp(link->peer_gid, gid, SMC_CLC_GID_LEN) &&
		    (!mac || !memcmp(link->peer_mac, mac, SMC_CLC_MAC_LEN)))
			return link;
	}
	return NULL;
}

/*
 * Is @tcp_peer, the TCP peer of a handshake that names @lgr's peer by
 * its GID, that peer: the TCP peer of the group's first contact, or the
 * address of one of the peer's GIDs (a v2 GID is an IPv4-mapped
 * address; the peer answered at it to bring its link up)?  The GID in a
 * Proposal or Accept is only a claim, which anyone can make: made from
 * another address, it gets a group of its own.  smcr_lgrs_lock held.
 */
static bool smcr_lgr_peer_at(const struct smcr_lgr *lgr,
			     const struct in6_addr *tcp_peer)
{
	const struct smcr_link *link;
	unsigned int i;

	lockdep_assert_held(&smcr_lgrs_lock);
	if (ipv6_addr_equal(&lgr->peer_addr, tcp_peer))
		return true;
	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (link && !memcmp(link->peer_gid, tcp_peer, SMC_CLC_GID_LEN))
			return true;
	}
	return false;
}

/*
 * Server: a usable group of @version for the client of Proposal @p,
 * with room for a connection.  v1 groups go by the client's system ID,
 * RoCE GID and MAC, and the VLAN of its LAN; v2 groups by its v2 GID.
 * Only groups of @net, the listener's netns, whose peer is at
 * @tcp_peer, the client's address.  Referenced.
 */
struct smcr_lgr *smcr_lgr_find_server(const struct net *net,
				      const struct smc_clc_proposal *p,
				      u8 version,
				      const struct in6_addr *tcp_peer)
{
	bool v1 = version == SMC_V1;
	struct smcr_lgr *lgr, *found = NULL;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (lgr->role != SMCR_LGR_SERVER || !lgr->ready ||
		    lgr->net_cookie != net->net_cookie ||
		    lgr->version != version || lgr->conns >= lgr->max_conns ||
		    !smcr_lgr_peer_at(lgr, tcp_peer))
			continue;
		if (v1 && (memcmp(lgr->peer_id, p->peer_id,
				  SMC_CLC_PEER_ID_LEN) ||
			   !smcr_lgr_link_to(lgr, p->roce_gid, 0, p->roce_mac)))
			continue;
		if (!v1 && !smcr_lgr_link_to(lgr, p->roce_v2_gid, 0, NULL))
			continue;
		refcount_inc(&lgr->refs);
		found = lgr;
		break;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return found;
}

/*
 * Client: our group of the Accept's version with a link to the
 * server's QP at the GID (v1: and MAC) of Accept @a, and that link
 * (*@link); only groups of @net, the socket's netns, whose peer is at
 * @tcp_peer, the server's address.  Referenced.
 */
struct smcr_lgr *smcr_lgr_find_client(const struct net *net,
				      const struct smc_clc_accept *a,
				      struct smcr_link **link,
				      const struct in6_addr *tcp_peer)
{
	const u8 *mac = a->version == SMC_V1 ? a->r.mac : NULL;
	struct smcr_lgr *lgr, *found = NULL;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (lgr->role != SMCR_LGR_CLIENT || !lgr->ready ||
		    lgr->net_cookie != net->net_cookie ||
		    lgr->version != a->version ||
		    !smcr_lgr_peer_at(lgr, tcp_peer))
			continue;
		*link = smcr_lgr_link_to(lgr, a->r.gid, a->r.qpn, mac);
		if (!*link)
			continue;
		refcount_inc(&lgr->refs);
		found = lgr;
		break;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return found;
}

/* Server: our active link to the client's QP @qpn at @gid, or NULL */
struct smcr_link *smcr_lgr_peer_link(struct smcr_lgr *lgr, const u8 *gid,
				     u32 qpn)
{
	struct smcr_link *link;

	mutex_lock(&smcr_lgrs_lock);
	link = smcr_lgr_link_to(lgr, gid, qpn, NULL);
	mutex_unlock(&smcr_lgrs_lock);
	return link;
}

/*
 * The server's link for a new connection: with two links up, every
 * other connection takes the second one.  smcr_lgrs_lock held.
 */
static struct smcr_link *smcr_lgr_pick_link(struct smcr_lgr *lgr)
{
	struct smcr_link *up[SMCR_LINKS], *link, *asym = NULL;
	unsigned int i, n = 0;

	lockdep_assert_held(&smcr_lgrs_lock);
	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (!link || READ_ONCE(link->state) != SMCR_LINK_ACTIVE)
			continue;
		/* a link on a shared device adds no bandwidth */
		if (READ_ONCE(link->asym))
			asym = link;
		else
			up[n++] = link;
	}
	if (!n)
		/* else a first contact: the link still coming up */
		return asym ?: lgr->links[0];
	return up[lgr->conns % n];
}

/*
 * Give @smc's connection an alert token in @lgr, whose reference the
 * connection takes over, and a link: @link, or the server's pick.
 * -EBUSY when the group is ending or full.
 */
int smcr_lgr_add_conn(struct smcr_lgr *lgr, struct smc_sock *smc,
		      struct smcr_link *link)
{
	struct smc_conn *c = &smc->conn;
	u32 token;
	int rc;

	c->smcr.rtok = -1;
	mutex_lock(&smcr_lgrs_lock);
	if (!link)
		link = smcr_lgr_pick_link(lgr);
	/* a link on its way out takes no new connection */
	if (lgr->gone || lgr->conns >= lgr->max_conns || !link ||
	    (lgr->ready && READ_ONCE(link->state) != SMCR_LINK_ACTIVE)) {
		mutex_unlock(&smcr_lgrs_lock);
		return -EBUSY;
	}
	/*
	 * Cyclic: a CDC the peer sent to an ended connection (a consumer
	 * update after its done-writing, say) finds no one, instead of
	 * the next connection that took the token.
	 */
	rc = xa_alloc_cyclic(&lgr->conns_by_token, &token, smc,
			     XA_LIMIT(1, INT_MAX), &lgr->next_token,
			     GFP_KERNEL);
	if (rc >= 0) {
		rc = 0;
		lgr->conns++;
		c->alert_token = token;
		c->lgr_id = lgr->id;
		WRITE_ONCE(c->ops, &smcr_conn_ops);
		c->smcr.rlgr = lgr;
		c->smcr.link = link;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return rc;
}

/*
 * The connections of @lgr that use @link, each with a reference on its
 * socket, into @out (room for max_conns).  Returns how many.
 */
unsigned int smcr_lgr_link_conns(struct smcr_lgr *lgr, struct smcr_link *link,
				 struct smc_sock **out, unsigned int max)
{
	struct smc_sock *smc;
	unsigned long token;
	unsigned int n = 0;

	mutex_lock(&smcr_lgrs_lock);
	xa_for_each(&lgr->conns_by_token, token, smc) {
		if (n == max)
			break;
		if (READ_ONCE(smc->conn.smcr.link) != link)
			continue;
		sock_hold(&smc->sk);
		out[n++] = smc;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return n;
}

/*
 * Is @token the peer's alert token of a connection of @lgr other than
 * @self?  A client names that token in its Confirm, and CDCs to it
 * reach the connection of the peer that has it.
 */
bool smcr_lgr_peer_token_used(struct smcr_lgr *lgr, u32 token,
			      const struct smc_sock *self)
{
	struct smc_sock *smc;
	unsigned long t;
	bool used = false;

	mutex_lock(&smcr_lgrs_lock);
	xa_for_each(&lgr->conns_by_token, t, smc) {
		if (smc != self &&
		    READ_ONCE(smc->conn.smcr.peer_alert) == token) {
			used = true;
			break;
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
	return used;
}

/*
 * The connection leaves @smc's group: its token is freed, and the last
 * one lets the group linger.  The connection's reference stays with
 * it (smcr_conn_teardown() drops it).
 */
void smcr_lgr_del_conn(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcr_lgr *lgr = c->smcr.rlgr;

	if (!lgr)
		return;
	mutex_lock(&smcr_lgrs_lock);
	xa_erase(&lgr->conns_by_token, c->alert_token);
	if (!--lgr->conns && !lgr->gone) {
		lgr->idle_since = jiffies;
		if (!delayed_work_pending(&lgr->linger_work)) {
			refcount_inc(&lgr->refs);
			queue_delayed_work(smcr_lgr_wq, &lgr->linger_work,
					   smcr_lgr_linger(lgr));
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
}

/* A CDC message arrived on a link of @lgr (softirq) */
void smcr_lgr_rx_cdc(struct smcr_lgr *lgr, const u8 *buf, u32 len)
{
	struct smcr_cdc_msg m;
	struct smc_cdc_view v;
	struct smc_sock *smc;
	struct smc_conn *c;

	if (smcr_cdc_parse(buf, len, &m))
		return;
	rcu_read_lock();
	smc = xa_load(&lgr->conns_by_token, m.token);
	if (!smc)
		goto out;
	c = &smc->conn;
	/*
	 * The peer moved the connection to another link: if it completed
	 * a CDC we never took, what it said there is lost.
	 */
	if (m.prod_flags & SMC_CDC_PF_FAILOVER) {
		if (c->cdc_rx_seq_valid ?
		    smc_cdc_seq_older(m.seqno, c->cdc_rx_seq) : m.seqno)
			smcr_conn_lost(smc);
		goto out;
	}
	v.prod = m.prod;
	v.cons = m.cons;
	v.prod_flags = m.prod_flags;
	v.conn_state_flags = m.conn_state_flags;
	v.has_seq = true;
	v.seq = m.seqno;
	/* a stale CDC's close flags do not stop the peer's writes */
	if (smc_conn_rx_cdc(smc, &v) && v.conn_state_flags) {
		smc_rx_write_lock(c);
		c->smcr.peer_stopped = true;
		smc_rx_write_unlock(c);
		smcr_conn_peer_done(smc);
	}
out:
	rcu_read_unlock();
}

/* Port @port of @dev went down: the links on it fail */
void smcr_lgrs_port_down(struct smcr_dev *dev, u8 port)
{
	struct smcr_link *link;
	struct smcr_lgr *lgr;
	unsigned int i;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		for (i = 0; i < SMCR_LINKS; i++) {
			link = lgr->links[i];
			if (link && link->dev == dev && link->port == port)
				smcr_link_down(link, "port down");
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
}

/*
 * What the links of @lgr that are not down make it: SMCR_LGR_NONE...
 * smcr_lgrs_lock held.
 */
static u8 smcr_lgr_type(struct smcr_lgr *lgr)
{
	struct smcr_link *up[SMCR_LINKS], *link;
	unsigned int i, j, n = 0;

	lockdep_assert_held(&smcr_lgrs_lock);
	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (link && READ_ONCE(link->state) != SMCR_LINK_DOWN)
			up[n++] = link;
	}
	if (n < 2)
		return n ? SMCR_LGR_SINGLE : SMCR_LGR_NONE;
	/* three: a symmetric link is replacing an asymmetric one */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (smcr_links_symmetric(up[i], up[j]))
				return SMCR_LGR_SYMMETRIC;
	if (up[0]->dev == up[1]->dev)
		return SMCR_LGR_ASYM_LOCAL;
	if (!memcmp(up[0]->peer_gid, up[1]->peer_gid, SMC_CLC_GID_LEN))
		return SMCR_LGR_ASYM_PEER;
	return SMCR_LGR_SYMMETRIC;
}

/* Is every live link of @lgr on one device of ours?  smcr_lgrs_lock held */
static bool smcr_lgr_one_dev(struct smcr_lgr *lgr)
{
	u8 type;

	lockdep_assert_held(&smcr_lgrs_lock);
	type = smcr_lgr_type(lgr);
	return type == SMCR_LGR_SINGLE || type == SMCR_LGR_ASYM_LOCAL;
}

/*
 * A port of @dev came up: a group with one link, or with both on one
 * device of ours, may get a link over it.  The server adds it; the
 * client asks the server to (REQUEST ADD LINK).
 */
void smcr_lgrs_port_up(struct smcr_dev *dev)
{
	struct smcr_lgr *lgr;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (!lgr->ready || lgr->max_links < SMC_CLC_LINKS_PER_LGR_MAX ||
		    !smcr_lgr_one_dev(lgr))
			continue;
		smcr_lgr_want_add(lgr, true);
	}
	mutex_unlock(&smcr_lgrs_lock);
}

/*
 * A second link did not come of an attempt: a client's REQUEST ADD LINK
 * can go unanswered (Linux's server drops one that arrives while it
 * runs a procedure of its own), and a server's ADD LINK can fail while
 * the client's end of the new path is not up yet (Linux's client then
 * misses its own port event, as it is busy with ours).  A group that
 * still has no second device of ours tries again.
 */
static void smcr_lgr_again_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(to_delayed_work(work),
					    struct smcr_lgr, again_work);
	bool again = false;
	unsigned int i;

	mutex_lock(&smcr_lgrs_lock);
	for (i = 0; i < SMCR_LINKS && !lgr->gone; i++)
		if (lgr->links[i] &&
		    READ_ONCE(lgr->links[i]->state) == SMCR_LINK_ACTIVATING) {
			/* a link is being added: see how it ends, later;
			 * the timer keeps its reference, unless another
			 * queued it meanwhile with one of its own
			 */
			if (!queue_delayed_work(smcr_lgr_wq, &lgr->again_work,
						SMCR_ADD_AGAIN))
				smcr_lgr_put(lgr);
			mutex_unlock(&smcr_lgrs_lock);
			return;
		}
	again = !lgr->gone && smcr_lgr_one_dev(lgr);
	mutex_unlock(&smcr_lgrs_lock);
	if (again)
		smcr_lgr_want_add(lgr, false);
	smcr_lgr_put(lgr);	/* the timer's */
}

/* Look for a second link again in SMCR_ADD_AGAIN */
void smcr_lgr_add_later(struct smcr_lgr *lgr)
{
	mutex_lock(&smcr_lgrs_lock);
	/* an ended group cancelled its timer: none starts after that */
	if (!lgr->gone) {
		refcount_inc(&lgr->refs);
		if (!queue_delayed_work(smcr_lgr_wq, &lgr->again_work,
					SMCR_ADD_AGAIN))
			refcount_dec(&lgr->refs);	/* one is pending */
	}
	mutex_unlock(&smcr_lgrs_lock);
}

/* Does a link of @lgr use @dev?  With @other: a link on another device */
static struct smcr_link *smcr_lgr_dev_link(struct smcr_lgr *lgr,
					   struct smcr_dev *dev, bool other)
{
	struct smcr_link *link;
	unsigned int i;

	for (i = 0; i < SMCR_LINKS; i++) {
		link = READ_ONCE(lgr->links[i]);
		if (!link)
			continue;
		if (!other && link->dev == dev)
			return link;
		if (other && link->dev != dev &&
		    READ_ONCE(link->state) == SMCR_LINK_ACTIVE)
			return link;
	}
	return NULL;
}

/* Every link of @lgr on @dev fails (two may share it) */
static void smcr_lgr_dev_down(struct smcr_lgr *lgr, struct smcr_dev *dev)
{
	struct smcr_link *link;
	unsigned int i;

	mutex_lock(&smcr_lgrs_lock);
	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (link && link->dev == dev)
			smcr_link_down(link, "device going away");
	}
	mutex_unlock(&smcr_lgrs_lock);
}

/*
 * The device of @dev goes away: the links on it go now.  A group with a
 * link on another device keeps its connections there; the others end.
 */
void smcr_lgrs_dev_gone(struct smcr_dev *dev)
{
	struct smcr_link *link, *other;
	struct smcr_lgr *lgr;

	for (;;) {
		mutex_lock(&smcr_lgrs_lock);
		other = NULL;
		link = NULL;
		list_for_each_entry(lgr, &smcr_lgrs, list) {
			link = smcr_lgr_dev_link(lgr, dev, false);
			if (link)
				break;
		}
		if (!link) {
			mutex_unlock(&smcr_lgrs_lock);
			break;
		}
		refcount_inc(&lgr->refs);
		other = smcr_lgr_dev_link(lgr, dev, true);
		mutex_unlock(&smcr_lgrs_lock);
		if (other) {
			smcr_lgr_dev_down(lgr, dev);
			wait_event_timeout(lgr->moved_wq,
					   !smcr_lgr_dev_link(lgr, dev, false),
					   SMCR_MOVE_WAIT);
		}
		/* no other link, or the move did not finish in time */
		if (smcr_lgr_dev_link(lgr, dev, false))
			smcr_lgr_end(lgr, SMC_LLC_DEL_OP_INIT_TERM);
		smcr_lgr_put(lgr);
	}
}

/* A link of a group, as netlink shows it; smcr_lgrs_lock held */
static void smcr_lgr_link_info(struct smcr_lgr *lgr, struct smcr_link *link,
			       struct smcr_link_info *li)
{
	struct smcr_dev *dev = link->dev;
	struct smc_sock *smc;
	unsigned long token;

	lockdep_assert_held(&smcr_lgrs_lock);
	li->id = link->id;
	li->state = READ_ONCE(link->state);
	li->port = link->port;
	li->vec = link->vec;
	li->send_wr = link->nslots;
	li->recv_wr = link->rx_bufs;
	smc_put_be32(li->uid, lgr->id + link->id);
	memcpy(li->peer_uid, link->peer_uid, sizeof(li->peer_uid));
	memcpy(li->gid, link->gid, SMC_CLC_GID_LEN);
	memcpy(li->peer_gid, link->peer_gid, SMC_CLC_GID_LEN);
	strscpy(li->ibname, dev_name(&dev->ibdev->dev), sizeof(li->ibname));
	spin_lock_bh(&dev->lock);
	if (link->port && link->port <= SMCR_PNET_PORTS)
		li->ifindex = dev->ndev_ifindex[link->port - 1];
	spin_unlock_bh(&dev->lock);
	xa_for_each(&lgr->conns_by_token, token, smc)
		if (READ_ONCE(smc->conn.smcr.link) == link)
			li->conns++;
}

/*
 * The link group of netns @net with the lowest id above @after, as
 * netlink shows it.  Ids only grow, so a dump that goes on from the
 * last id it showed neither repeats nor skips a group that lives
 * throughout.  0, or -ENOENT when there is none.
 */
int smcr_lgr_info_next(const struct net *net, u32 after,
		       struct smcr_lgr_info *info)
{
	struct smcr_lgr *lgr, *best = NULL;
	struct smcr_link *link;
	struct smcr_buf *buf;
	unsigned int i;

	memset(info, 0, sizeof(*info));
	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list)
		if (lgr->net_cookie == net->net_cookie && lgr->id > after &&
		    (!best || lgr->id < best->id))
			best = lgr;
	if (!best) {
		mutex_unlock(&smcr_lgrs_lock);
		return -ENOENT;
	}
	lgr = best;
	info->id = lgr->id;
	info->role = lgr->role;
	info->version = lgr->version;
	info->vlan = lgr->vlan;
	info->release = lgr->release;
	info->max_conns = lgr->max_conns;
	info->max_links = lgr->max_links;
	info->buf_type = lgr->buf_type;
	info->peer_os = lgr->peer_os;
	info->type = smcr_lgr_type(lgr);
	info->direct = lgr->direct;
	info->conns = lgr->conns;
	info->net_cookie = lgr->net_cookie;
	memcpy(info->peer_host, lgr->peer_host, sizeof(info->peer_host));
	memcpy(info->eid, lgr->eid, sizeof(info->eid));
	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (!link)
			continue;
		if (!info->nlinks && link->port &&
		    link->port <= SMCR_PNET_PORTS) {
			spin_lock_bh(&link->dev->lock);
			strscpy(info->pnetid, link->dev->pnetid[link->port - 1],
				sizeof(info->pnetid));
			spin_unlock_bh(&link->dev->lock);
		}
		smcr_lgr_link_info(lgr, link, &info->links[info->nlinks++]);
	}
	mutex_lock(&lgr->buf_lock);
	list_for_each_entry(buf, &lgr->bufs, node) {
		if (buf->rmb)
			info->rmb_alloc += buf->len;
		else
			info->sndbuf_alloc += buf->len;
	}
	mutex_unlock(&lgr->buf_lock);
	mutex_unlock(&smcr_lgrs_lock);
	return 0;
}

/*
 * What the links of the groups of netns @net make of @dev: links per
 * port (1 and 2) and whether a group has all its links there (one, or
 * two sharing it); and, as the load of the device, completions per
 * vector of the links of every group whose QP lives (those of freed
 * QPs are in the device's count).
 */
void smcr_lgr_dev_usage(const struct net *net, const struct smcr_dev *dev,
			u32 *port_links, u64 *vec_done, bool *crit)
{
	struct smcr_link *link;
	struct smcr_lgr *lgr;
	bool one_dev, ours;
	unsigned int i;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		ours = lgr->net_cookie == net->net_cookie;
		one_dev = ours && smcr_lgr_one_dev(lgr);
		for (i = 0; i < SMCR_LINKS; i++) {
			link = lgr->links[i];
			if (!link || link->dev != dev)
				continue;
			if (link->qp && link->vec < dev->ncqv)
				vec_done[link->vec] +=
					READ_ONCE(link->completions);
			if (!ours)
				continue;
			if (link->port && link->port <= SMCR_PNET_PORTS &&
			    READ_ONCE(link->state) != SMCR_LINK_DOWN)
				port_links[link->port - 1]++;
			if (one_dev && READ_ONCE(link->state) != SMCR_LINK_DOWN)
				*crit = true;
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
}

int smcr_lgr_init(struct dentry *debugfs)
{
	smcr_lgr_wq = alloc_workqueue("smcr_lgr_wq", WQ_PERCPU, 0);
	if (!smcr_lgr_wq)
		return -ENOMEM;
	smcr_debugfs_init(debugfs);
	return 0;
}

/* Module unload: no connection is left, the groups end now */
void smcr_lgr_exit(void)
{
	struct smcr_lgr *lgr;

	smcr_debugfs_exit();
	for (;;) {
		mutex_lock(&smcr_lgrs_lock);
		lgr = list_first_entry_or_null(&smcr_lgrs, struct smcr_lgr,
					       list);
		if (lgr)
			refcount_inc(&lgr->refs);
		mutex_unlock(&smcr_lgrs_lock);
		if (!lgr)
			break;
		/* a pending timer holds a reference of its own */
		if (cancel_delayed_work_sync(&lgr->linger_work))
			smcr_lgr_put(lgr);
		if (cancel_delayed_work_sync(&lgr->orphan_work))
			smcr_lgr_put(lgr);
		smcr_lgr_end(lgr, SMC_LLC_DEL_PROG_INIT_TERM);
		smcr_lgr_put(lgr);
	}
	/* pending ends hold references and run to completion */
	destroy_workqueue(smcr_lgr_wq);
}
