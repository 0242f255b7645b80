// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-D link groups.
 *
 * An SMC-D link group stands for the connections between one local
 * device and one peer GID in one role (client or server).  It owns no
 * buffers (DMBs are pooled by the device) and has no links; it gives
 * its connections their alert tokens and an id, and tells the CLC
 * handshake whether a connection is a first contact.  The server
 * reuses a link group for every connection from a known peer GID; the
 * client follows the server's choice.
 *
 * A link group belongs to the network namespace of the connection that
 * made it: no connection of another netns joins it.  On loopback-ism
 * every peer has the same GID, so a server whose group was made for a
 * client in one netns offers it to a client in another one too.  A
 * server with our own GID is this kernel, and the two ends' groups
 * share nothing but the GID: such a client makes a group of its own
 * where it has none, instead of declining out of sync.
 *
 * A link group without connections lingers (600 s on the server,
 * 610 s on the client, so that the server's goes first) and is reused
 * if a connection comes along meanwhile.
 *
 * Lock order: smcd_lgrs_lock is a leaf, taken without other SMC locks
 * held but smc sock locks: its connection's (handshake, release), both
 * ends' in a rendezvous (smc_rendezvous.c).
 */

#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "smc_conn.h"
#include "smc_core.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smcd.h"

#define SMCD_LGR_LINGER_SERV	(600 * HZ)
#define SMCD_LGR_LINGER_CLNT	(610 * HZ)

/*
 * Every field is under smcd_lgrs_lock, but those set when the group is
 * made (dev to id), read-only after.
 */
struct smcd_lgr {
	struct list_head	list;		/* in smcd_lgrs */
	struct smcd_dev		*dev;		/* holds a reference */
	struct smcd_gid		peer_gid;
	u64			net_cookie;	/* its netns, never reused */
	u8			role;		/* SMCD_LGR_CLIENT/SERVER */
	u32			id;
	unsigned int		conns;		/* under smcd_lgrs_lock */
	u64			dmb_alloc;	/* bytes, of its conns' DMBs */
	/* what the first contact's Accept or Confirm told of the peer */
	u8			release;
	u8			peer_os;
	u8			peer_host[SMC_CLC_HOSTNAME_LEN];
	u8			eid[SMC_CLC_EID_LEN];
	bool			stale;		/* peer lost it: no reuse */
	unsigned long		idle_since;	/* jiffies, when conns is 0 */
	struct ida		tokens;		/* alert tokens */
	/* armed under smcd_lgrs_lock when the group becomes idle */
	struct delayed_work	linger_work;
};

static LIST_HEAD(smcd_lgrs);
static DEFINE_MUTEX(smcd_lgrs_lock);	/* smcd_lgrs, conns of each lgr */

static bool smcd_lgr_match(const struct smcd_lgr *lgr,
			   const struct smcd_dev *dev,
			   const struct smcd_gid *peer, u8 role, u64 net_cookie)
{
	return !lgr->stale && lgr->dev == dev && lgr->role == role &&
	       lgr->net_cookie == net_cookie &&
	       smcd_gid_equal(&lgr->peer_gid, peer);
}

static void smcd_lgr_free(struct smcd_lgr *lgr)
{
	ida_destroy(&lgr->tokens);
	smcd_dev_put(lgr->dev);
	kfree(lgr);
}

static unsigned long smcd_lgr_linger(const struct smcd_lgr *lgr)
{
	if (lgr->stale)
		return 0;
	return lgr->role == SMCD_LGR_SERVER ? SMCD_LGR_LINGER_SERV :
					      SMCD_LGR_LINGER_CLNT;
}

/*
 * The linger timer is armed when a link group becomes idle and no timer
 * is pending; joins and leaves in between leave it alone, which spares
 * short connections two timer operations each.  At expiry it looks at
 * how long the group has really been idle and comes back if too early.
 */
static void smcd_lgr_linger_work(struct work_struct *work)
{
	struct smcd_lgr *lgr = container_of(to_delayed_work(work),
					    struct smcd_lgr, linger_work);
	unsigned long end;

	mutex_lock(&smcd_lgrs_lock);
	/* in use again (the next leave re-arms), or module unload owns it */
	if (lgr->conns || list_empty(&lgr->list)) {
		mutex_unlock(&smcd_lgrs_lock);
		return;
	}
	end = lgr->idle_since + smcd_lgr_linger(lgr);
	if (time_before(jiffies, end)) {
		queue_delayed_work(system_wq, &lgr->linger_work, end - jiffies);
		mutex_unlock(&smcd_lgrs_lock);
		return;
	}
	list_del_init(&lgr->list);
	mutex_unlock(&smcd_lgrs_lock);
	smcd_lgr_free(lgr);
}

static struct smcd_lgr *smcd_lgr_create(struct smcd_dev *dev,
					const struct smcd_gid *peer, u8 role,
					u64 net_cookie)
{
	struct smcd_lgr *lgr;

	lgr = kzalloc(sizeof(*lgr), GFP_KERNEL);
	if (!lgr)
		return NULL;
	if (!refcount_inc_not_zero(&dev->refs)) {
		kfree(lgr);
		return NULL;
	}
	lgr->dev = dev;
	lgr->peer_gid = *peer;
	lgr->net_cookie = net_cookie;
	lgr->role = role;
	ida_init(&lgr->tokens);
	INIT_DELAYED_WORK(&lgr->linger_work, smcd_lgr_linger_work);
	lgr->id = smc_lgr_new_id();
	list_add(&lgr->list, &smcd_lgrs);
	return lgr;
}

/*
 * Put @smc's connection into a link group with @peer.  @create: a new
 * one (first contact); else an existing one is reused, or, for a
 * server or a client of a server in this kernel, created.  Returns 0
 * and sets *@first, or -ENOLINK when a client of another kernel's
 * server finds no link group to reuse, or -ENOMEM.
 */
int smcd_lgr_join(struct smc_sock *smc, const struct smcd_gid *peer,
		  u8 role, bool create, bool *first)
{
	u64 net_cookie = sock_net(&smc->sk)->net_cookie;
	struct smc_conn *c = &smc->conn;
	struct smcd_lgr *lgr = NULL, *l;
	int token;

	mutex_lock(&smcd_lgrs_lock);
	if (!create) {
		list_for_each_entry(l, &smcd_lgrs, list) {
			if (smcd_lgr_match(l, c->smcd.dev, peer, role,
					   net_cookie)) {
				lgr = l;
				break;
			}
		}
	}
	*first = !lgr;
	if (!lgr) {
		if (!create && role == SMCD_LGR_CLIENT &&
		    !smcd_gid_equal(peer, &c->smcd.dev->gid)) {
			mutex_unlock(&smcd_lgrs_lock);
			return -ENOLINK;
		}
		lgr = smcd_lgr_create(c->smcd.dev, peer, role, net_cookie);
		if (!lgr) {
			mutex_unlock(&smcd_lgrs_lock);
			return -ENOMEM;
		}
	}
	token = ida_alloc_min(&lgr->tokens, 1, GFP_KERNEL);
	if (token < 0) {
		/* a group made for this connection goes with it */
		if (*first) {
			list_del(&lgr->list);
			smcd_lgr_free(lgr);
		}
		mutex_unlock(&smcd_lgrs_lock);
		return token;
	}
	lgr->conns++;
	lgr->dmb_alloc += c->rmb_len;
	c->smcd.lgr = lgr;
	c->alert_token = token;
	c->lgr_id = lgr->id;
	c->smcd.peer_gid = *peer;
	mutex_unlock(&smcd_lgrs_lock);
	return 0;
}

/* The connection is gone: the last one lets its link group linger */
void smcd_lgr_leave(struct smc_sock *smc)
{
	struct smc_conn *c = &smc->conn;
	struct smcd_lgr *lgr = c->smcd.lgr;

	if (!lgr)
		return;
	mutex_lock(&smcd_lgrs_lock);
	ida_free(&lgr->tokens, c->alert_token);
	lgr->dmb_alloc -= c->rmb_len;
	if (!--lgr->conns) {
		lgr->idle_since = jiffies;
		if (lgr->stale)
			mod_delayed_work(system_wq, &lgr->linger_work, 0);
		else if (!delayed_work_pending(&lgr->linger_work))
			queue_delayed_work(system_wq, &lgr->linger_work,
					   smcd_lgr_linger(lgr));
	}
	mutex_unlock(&smcd_lgrs_lock);
	c->smcd.lgr = NULL;
}

/* First contact: what the peer's Accept or Confirm @a tells of it */
void smcd_lgr_note_peer(struct smc_sock *smc, const struct smc_clc_accept *a)
{
	struct smcd_lgr *lgr = smc->conn.smcd.lgr;

	if (!lgr)
		return;
	mutex_lock(&smcd_lgrs_lock);
	lgr->release = a->fce.release;
	lgr->peer_os = a->fce.os_type;
	memcpy(lgr->peer_host, a->fce.hostname, sizeof(lgr->peer_host));
	memcpy(lgr->eid, a->eid, sizeof(lgr->eid));
	mutex_unlock(&smcd_lgrs_lock);
}

/*
 * The peer declined out of sync: it has no link group matching @smc's.
 * Ours is stale, so no connection joins it any more, and it goes with
 * its last connection.  Its connections work on (the devices are the
 * same), unlike a stale SMC-R group's.
 */
void smcd_lgr_stale(struct smc_sock *smc)
{
	struct smcd_lgr *lgr = smc->conn.smcd.lgr;

	if (!lgr)
		return;
	mutex_lock(&smcd_lgrs_lock);
	lgr->stale = true;
	mutex_unlock(&smcd_lgrs_lock);
}

/*
 * The link group of netns @net with the lowest id above @after, as
 * netlink shows it: 0, or -ENOENT when there is none.
 */
int smcd_lgr_info_next(const struct net *net, u32 after,
		       struct smcd_lgr_info *info)
{
	struct smcd_lgr *lgr, *best = NULL;
	struct smcd_dev *dev = NULL;

	memset(info, 0, sizeof(*info));
	mutex_lock(&smcd_lgrs_lock);
	list_for_each_entry(lgr, &smcd_lgrs, list)
		if (lgr->net_cookie == net->net_cookie && lgr->id > after &&
		    (!best || lgr->id < best->id))
			best = lgr;
	if (best) {
		info->id = best->id;
		info->role = best->role;
		info->conns = best->conns;
		info->chid = best->dev->chid;
		info->gid = best->dev->gid.gid;
		info->gid_ext = best->dev->gid.gid_ext;
		info->peer_gid = best->peer_gid.gid;
		info->peer_gid_ext = best->peer_gid.gid_ext;
		info->dmb_alloc = best->dmb_alloc;
		info->release = best->release;
		info->peer_os = best->peer_os;
		memcpy(info->peer_host, best->peer_host,
		       sizeof(info->peer_host));
		memcpy(info->eid, best->eid, sizeof(info->eid));
		/* the group's reference keeps it above zero */
		dev = best->dev;
		refcount_inc(&dev->refs);
	}
	mutex_unlock(&smcd_lgrs_lock);
	if (!dev)
		return -ENOENT;
	smcd_dev_pnetid(dev, info->pnetid);
	smcd_dev_put(dev);
	return 0;
}

/* Module unload: no connection is left, lingering groups go now */
void smcd_lgr_exit(void)
{
	struct smcd_lgr *lgr;

	for (;;) {
		mutex_lock(&smcd_lgrs_lock);
		lgr = list_first_entry_or_null(&smcd_lgrs, struct smcd_lgr,
					       list);
		if (lgr)
			list_del_init(&lgr->list);
		mutex_unlock(&smcd_lgrs_lock);
		if (!lgr)
			break;
		/* a running timer sees the group off the list and leaves */
		cancel_delayed_work_sync(&lgr->linger_work);
		WARN_ON(lgr->conns);
		smcd_lgr_free(lgr);
	}
}
