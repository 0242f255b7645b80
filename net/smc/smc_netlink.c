// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the generic netlink family
 * SMC_GEN_NETLINK, which smcr, smcd and our smc tool read.
 *
 * Every listing is a dump.  A dump of link groups or devices goes on,
 * message after message, from the id (or device index) it showed
 * last: ids only grow, so nothing that lives throughout the dump is
 * shown twice or missed.  The state is read through snapshots taken
 * under the owners' locks; no lock is held while a message is built.
 * A netns sees its own link groups and links only, and the devices it
 * may use.
 *
 * Attribute numbers and formats are upstream's (uapi/linux/smc.h); the
 * completion-vector nests of a device and the vector of a link are our
 * additions, appended so that older readers skip them.
 */

#include <linux/slab.h>
#include <linux/smc.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "smc_eid.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_netlink.h"
#include "smc_netns.h"
#include "smc_nl_gen.h"
#include "smc_sock.h"
#include "smcd.h"
#include "smcr_dev.h"
#include "smcr.h"

#define SMC_NL_RELEASE		1	/* SMC v2.1 */
#define SMC_NL_OS_LINUX		2

/* upstream's link states: 0 unused, 1 inactive, 2 activating, 3 active */
static const u32 smc_nl_link_state[] = {
	[SMCR_LINK_ACTIVATING]	= 2,
	[SMCR_LINK_ACTIVE]	= 3,
	[SMCR_LINK_DOWN]	= 1,
};

/* cb->args[]: the id shown last, and whether a single reply went out */
#define SMC_NL_LAST(cb)		((cb)->args[0])
#define SMC_NL_DONE(cb)		((cb)->args[1])

/* A fixed-size field of the wire as a string: up to @len bytes + NUL */
static int smc_nl_put_field(struct sk_buff *skb, int type, const u8 *s,
			    size_t len)
{
	char buf[SMC_MAX_EID_LEN + 1];

	len = min(len, sizeof(buf) - 1);
	memcpy(buf, s, len);
	buf[len] = 0;
	return nla_put_string(skb, type, buf);
}

static int smc_nl_put_gid(struct sk_buff *skb, int type, const u8 *gid)
{
	char buf[SMC_GID_STR_LEN];

	smc_gid_str(buf, gid);
	return nla_put_string(skb, type, buf);
}

/* ---- system ---- */

/* Is there an ISMv2 device (on x86: loopback-ism, when it is loaded)? */
static bool smc_nl_ism_v2(void)
{
	struct smcd_dev *lo = smcd_dev_get_loopback();

	if (!lo)
		return false;
	smcd_dev_put(lo);
	return true;
}

int smc_gen_netlink_nl_get_sys_info_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb)
{
	u8 host[SMC_CLC_HOSTNAME_LEN];
	struct nlattr *nest;
	bool ism_v2;
	void *hdr;

	if (SMC_NL_DONE(cb))
		return 0;
	hdr = smc_nl_start(skb, cb, SMC_NETLINK_GET_SYS_INFO);
	if (!hdr)
		return -EMSGSIZE;
	ism_v2 = smc_nl_ism_v2();
	smc_hs_hostname(host);
	nest = nla_nest_start(skb, SMC_GEN_SYS_INFO);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_SYS_VER, SMC_V2) ||
	    nla_put_u8(skb, SMC_NLA_SYS_REL, SMC_NL_RELEASE) ||
	    nla_put_u8(skb, SMC_NLA_SYS_IS_ISM_V2, ism_v2) ||
	    nla_put_u8(skb, SMC_NLA_SYS_IS_SMCR_V2, 1) ||
	    smc_nl_put_field(skb, SMC_NLA_SYS_LOCAL_HOST, host, sizeof(host)) ||
	    /* no system EID outside s390 */
	    (ism_v2 && nla_put_string(skb, SMC_NLA_SYS_SEID, "")))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	SMC_NL_DONE(cb) = 1;
	return skb->len;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* ---- SMC-R link groups and links ---- */

/* The V2_COMMON nest of an SMC-R or SMC-D link group */
static int smc_nl_v2_common(struct sk_buff *skb, int attr, u8 release,
			    u8 peer_os, const u8 *peer_host, const u8 *eid)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, attr);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_VER, SMC_V2) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_REL, release) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_OS, peer_os) ||
	    smc_nl_put_field(skb, SMC_NLA_LGR_V2_PEER_HOST, peer_host,
			     SMC_CLC_HOSTNAME_LEN) ||
	    smc_nl_put_field(skb, SMC_NLA_LGR_V2_NEG_EID, eid,
			     SMC_CLC_EID_LEN))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int smc_nl_lgr_v2(struct sk_buff *skb, const struct smcr_lgr_info *g)
{
	struct nlattr *nest;

	if (smc_nl_v2_common(skb, SMC_NLA_LGR_R_V2_COMMON, g->release,
			     g->peer_os, g->peer_host, g->eid))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_NLA_LGR_R_V2);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_DIRECT, g->direct) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_MAX_CONNS, g->max_conns) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_MAX_LINKS, g->max_links))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int smc_nl_lgr_r(struct sk_buff *skb, struct netlink_callback *cb,
			const struct smcr_lgr_info *g)
{
	struct nlattr *nest;
	void *hdr;

	hdr = smc_nl_start(skb, cb, SMC_NETLINK_GET_LGR_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_LGR_SMCR);
	if (!nest ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_ID, g->id) ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_CONNS_NUM, g->conns) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_ROLE, g->role) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_TYPE, g->type) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_BUF_TYPE, g->buf_type) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_VLAN_ID, g->vlan) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_R_NET_COOKIE, g->net_cookie,
			      SMC_NLA_LGR_R_PAD) ||
	    nla_put_string(skb, SMC_NLA_LGR_R_PNETID, g->pnetid) ||
	    smc_nl_put_uint(skb, SMC_NLA_LGR_R_SNDBUF_ALLOC,
			    g->sndbuf_alloc) ||
	    smc_nl_put_uint(skb, SMC_NLA_LGR_R_RMB_ALLOC, g->rmb_alloc) ||
	    (g->version >= SMC_V2 && smc_nl_lgr_v2(skb, g)))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int smc_nl_link(struct sk_buff *skb, struct netlink_callback *cb,
		       const struct smcr_link_info *l)
{
	struct nlattr *nest;
	u32 uid, peer_uid;
	void *hdr;

	hdr = smc_nl_start(skb, cb, SMC_NETLINK_GET_LINK_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	/* the UID bytes as they are, read as a host u32 (as upstream) */
	memcpy(&uid, l->uid, sizeof(uid));
	memcpy(&peer_uid, l->peer_uid, sizeof(peer_uid));
	nest = nla_nest_start(skb, SMC_GEN_LINK_SMCR);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_LINK_ID, l->id) ||
	    nla_put_u32(skb, SMC_NLA_LINK_STATE,
			smc_nl_link_state[l->state]) ||
	    nla_put_u32(skb, SMC_NLA_LINK_CONN_CNT, l->conns) ||
	    nla_put_u8(skb, SMC_NLA_LINK_IB_PORT, l->port) ||
	    nla_put_u32(skb, SMC_NLA_LINK_NET_DEV, l->ifindex) ||
	    nla_put_string(skb, SMC_NLA_LINK_IB_DEV, l->ibname) ||
	    nla_put_u32(skb, SMC_NLA_LINK_UID, uid) ||
	    nla_put_u32(skb, SMC_NLA_LINK_PEER_UID, peer_uid) ||
	    smc_nl_put_gid(skb, SMC_NLA_LINK_GID, l->gid) ||
	    smc_nl_put_gid(skb, SMC_NLA_LINK_PEER_GID, l->peer_gid) ||
	    nla_put_u32(skb, SMC_NLA_LINK_CQ_VECTOR, l->vec) ||
	    nla_put_u32(skb, SMC_NLA_LINK_SEND_WR, l->send_wr) ||
	    nla_put_u32(skb, SMC_NLA_LINK_RECV_WR, l->recv_wr))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Link groups, and with @links each followed by its links.  A group and
 * its links go into one skb or, if it is full, all into the next.
 */
static int smc_nl_lgrs_r(struct sk_buff *skb, struct netlink_callback *cb,
			 bool links)
{
	struct smcr_lgr_info *g;
	unsigned char *mark;
	unsigned int i;
	int rc = 0;

	g = kmalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	while (!smcr_lgr_info_next(sock_net(skb->sk), SMC_NL_LAST(cb), g)) {
		mark = skb_tail_pointer(skb);
		rc = smc_nl_lgr_r(skb, cb, g);
		for (i = 0; !rc && links && i < g->nlinks; i++)
			rc = smc_nl_link(skb, cb, &g->links[i]);
		if (rc) {
			nlmsg_trim(skb, mark);
			break;
		}
		SMC_NL_LAST(cb) = g->id;
	}
	kfree(g);
	/* a group that fits no empty skb ends the dump with an error */
	if (rc && !skb->len)
		return rc;
	return skb->len;
}

int smc_gen_netlink_nl_get_lgr_smcr_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb)
{
	return smc_nl_lgrs_r(skb, cb, false);
}

int smc_gen_netlink_nl_get_link_smcr_dumpit(struct sk_buff *skb,
					    struct netlink_callback *cb)
{
	return smc_nl_lgrs_r(skb, cb, true);
}

/* ---- SMC-R devices ---- */

static int smc_nl_dev_port(struct sk_buff *skb, int type,
			   const struct smcr_dev_port_info *p)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_PNET_USR, !!p->pnetid[0]) ||
	    nla_put_string(skb, SMC_NLA_DEV_PORT_PNETID, p->pnetid) ||
	    nla_put_u32(skb, SMC_NLA_DEV_PORT_NETDEV, p->ifindex) ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_VALID, 1) ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_STATE, p->active) ||
	    nla_put_u32(skb, SMC_NLA_DEV_PORT_LNK_CNT, p->links))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Our addition: one nest a completion vector, with its load */
static int smc_nl_dev_cqs(struct sk_buff *skb, const struct smcr_dev_info *d)
{
	struct nlattr *nest;
	unsigned int v;

	for (v = 0; v < d->ncqv; v++) {
		nest = nla_nest_start(skb, SMC_NLA_DEV_CQ);
		if (!nest ||
		    nla_put_u32(skb, SMC_NLA_CQ_VECTOR, v) ||
		    nla_put_u32(skb, SMC_NLA_CQ_QPS, d->vec_qps[v]) ||
		    nla_put_u64_64bit(skb, SMC_NLA_CQ_COMPLETIONS,
				      d->vec_done[v], SMC_NLA_CQ_PAD) ||
		    nla_put_u32(skb, SMC_NLA_CQ_RECV_BUFS, d->vec_rx[v]))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int smc_nl_dev_r(struct sk_buff *skb, struct netlink_callback *cb,
			const struct smcr_dev_info *d)
{
	static const int port_attr[SMCR_PNET_PORTS] = {
		SMC_NLA_DEV_PORT, SMC_NLA_DEV_PORT2,
	};
	struct nlattr *nest;
	unsigned int i;
	void *hdr;

	hdr = smc_nl_start(skb, cb, SMC_NETLINK_GET_DEV_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_DEV_SMCR);
	if (!nest || nla_put_u8(skb, SMC_NLA_DEV_IS_CRIT, d->crit))
		goto cancel;
	if (d->pci &&
	    (nla_put_u32(skb, SMC_NLA_DEV_PCI_FID, 0) ||
	     nla_put_u16(skb, SMC_NLA_DEV_PCI_CHID, 0) ||
	     nla_put_u16(skb, SMC_NLA_DEV_PCI_VENDOR, d->pci_vendor) ||
	     nla_put_u16(skb, SMC_NLA_DEV_PCI_DEVICE, d->pci_device) ||
	     nla_put_string(skb, SMC_NLA_DEV_PCI_ID, d->pci_id)))
		goto cancel;
	if (nla_put_string(skb, SMC_NLA_DEV_IB_NAME, d->name))
		goto cancel;
	for (i = 0; i < SMCR_PNET_PORTS; i++)
		if (d->port[i].valid &&
		    smc_nl_dev_port(skb, port_attr[i], &d->port[i]))
			goto cancel;
	if (smc_nl_dev_cqs(skb, d))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int smc_gen_netlink_nl_get_dev_smcr_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb)
{
	struct smcr_dev_info *d;
	int rc = 0;

	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	while (!smcr_dev_info_next(sock_net(skb->sk), SMC_NL_LAST(cb), d)) {
		rc = smc_nl_dev_r(skb, cb, d);
		if (rc)
			break;
		/* device indexes start at 0: the next one to look for */
		SMC_NL_LAST(cb) = d->index + 1;
	}
	kfree(d);
	if (rc && !skb->len)
		return rc;
	return skb->len;
}

/* ---- SMC-D ---- */

static int smc_nl_lgr_d(struct sk_buff *skb, struct netlink_callback *cb,
			const struct smcd_lgr_info *g)
{
	struct nlattr *nest;
	void *hdr;

	hdr = smc_nl_start(skb, cb, SMC_NETLINK_GET_LGR_SMCD);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, SMC_GEN_LGR_SMCD);
	if (!nest ||
	    nla_put_u32(skb, SMC_NLA_LGR_D_ID, g->id) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_GID, g->gid,
			      SMC_NLA_LGR_D_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_EXT_GID, g->gid_ext,
			      SMC_NLA_LGR_D_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_PEER_GID, g->peer_gid,
			      SMC_NLA_LGR_D_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_PEER_EXT_GID,
			      g->peer_gid_ext, SMC_NLA_LGR_D_PAD) ||
	    nla_put_u8(skb, SMC_NLA_LGR_D_VLAN_ID, 0) ||
	    nla_put_u32(skb, SMC_NLA_LGR_D_CONNS_NUM, g->conns) ||
	    nla_put_u32(skb, SMC_NLA_LGR_D_CHID, g->chid) ||
	    /* send buffers are the peer's DMBs, mapped: none allocated */
	    smc_nl_put_uint(skb, SMC_NLA_LGR_D_SNDBUF_ALLOC, 0) ||
	    smc_nl_put_uint(skb, SMC_NLA_LGR_D_DMB_ALLOC, g->dmb_alloc) ||
	    nla_put_string(skb, SMC_NLA_LGR_D_PNETID, g->pnetid) ||
	    smc_nl_v2_common(skb, SMC_NLA_LGR_D_V2_COMMON, g->release,
			     g->peer_os, g->peer_host, g->eid))
		goto cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int smc_gen_netlink_nl_get_lgr_smcd_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb)
{
	struct smcd_lgr_info g;
	int rc = 0;

	while (!smcd_lgr_info_next(sock_net(skb->sk), SMC_NL_LAST(cb), &g)) {
		rc = smc_nl_lgr_d(skb, cb, &g);
		if (rc)
			break;
		SMC_NL_LAST(cb) = g.id;
	}
	if (rc && !skb->len)
		return rc;
	return skb->len;
}

/*
 * SMC-D devices: upstream lists ISM hardware here, never loopback-ism,
 * which is the only SMC-D device we have.  The dump is empty.
 */
int smc_gen_netlink_nl_get_dev_smcd_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb)
{
	return 0;
}

/* ---- handshake limitation, the netns default for new sockets ---- */

int smc_gen_netlink_nl_dump_hs_limitation_dumpit(struct sk_buff *skb,
						 struct netlink_callback *cb)
{
	void *hdr;

	if (SMC_NL_DONE(cb))
		return 0;
	hdr = smc_nl_start(skb, cb, SMC_NETLINK_DUMP_HS_LIMITATION);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u8(skb, SMC_NLA_HS_LIMITATION_ENABLED,
		       smc_net_limit_hs(sock_net(skb->sk)))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	SMC_NL_DONE(cb) = 1;
	return skb->len;
}

int smc_gen_netlink_nl_enable_hs_limitation_doit(struct sk_buff *skb,
						 struct genl_info *info)
{
	smc_net_set_limit_hs(genl_info_net(info), true);
	return 0;
}

int smc_gen_netlink_nl_disable_hs_limitation_doit(struct sk_buff *skb,
						  struct genl_info *info)
{
	smc_net_set_limit_hs(genl_info_net(info), false);
	return 0;
}

/* One message per user EID: the entry, top level, 32 chars + NUL */
int smc_gen_netlink_nl_dump_ueid_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb)
{
	u8 eids[SMC_MAX_UEID][SMC_CLC_EID_LEN];
	char entry[SMC_MAX_EID_LEN + 1];
	unsigned int n, i;
	void *hdr;

	n = smc_ueid_copy(&eids[0][0]);
	for (i = SMC_NL_LAST(cb); i < n; i++) {
		hdr = smc_nl_start(skb, cb, SMC_NETLINK_DUMP_UEID);
		if (!hdr)
			break;
		memcpy(entry, eids[i], SMC_MAX_EID_LEN);
		entry[SMC_MAX_EID_LEN] = 0;
		if (nla_put_string(skb, SMC_NLA_EID_TABLE_ENTRY, entry)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		SMC_NL_LAST(cb) = i + 1;
	}
	return skb->len;
}

/* The entry of an ADD or REMOVE: exactly 32 characters and a NUL */
static const u8 *smc_nl_ueid_arg(struct genl_info *info)
{
	struct nlattr *a = info->attrs[SMC_NLA_EID_TABLE_ENTRY];

	if (!a || nla_len(a) != SMC_MAX_EID_LEN + 1) {
		GENL_SET_ERR_MSG(info, "a user EID is 32 chars and a NUL");
		return NULL;
	}
	return nla_data(a);
}

int smc_gen_netlink_nl_add_ueid_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	const u8 *eid = smc_nl_ueid_arg(info);

	return eid ? smc_ueid_add(eid) : -EINVAL;
}

int smc_gen_netlink_nl_remove_ueid_doit(struct sk_buff *skb,
					struct genl_info *info)
{
	const u8 *eid = smc_nl_ueid_arg(info);

	return eid ? smc_ueid_remove(eid) : -EINVAL;
}

int smc_gen_netlink_nl_flush_ueid_doit(struct sk_buff *skb,
				       struct genl_info *info)
{
	smc_ueid_flush();
	return 0;
}

/* The system EID (none outside s390) and whether it is offered */
int smc_gen_netlink_nl_dump_seid_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb)
{
	void *hdr;

	if (SMC_NL_DONE(cb))
		return 0;
	hdr = smc_nl_start(skb, cb, SMC_NETLINK_DUMP_SEID);
	if (!hdr)
		return -EMSGSIZE;
	/* both only with an ISMv2 device, loopback-ism included */
	if (smc_nl_ism_v2()) {
		if (nla_put_string(skb, SMC_NLA_SEID_ENTRY, "") ||
		    nla_put_u8(skb, SMC_NLA_SEID_ENABLED,
			       smc_seid_offered())) {
			genlmsg_cancel(skb, hdr);
			return -EMSGSIZE;
		}
	}
	genlmsg_end(skb, hdr);
	SMC_NL_DONE(cb) = 1;
	return skb->len;
}

int smc_gen_netlink_nl_enable_seid_doit(struct sk_buff *skb,
					struct genl_info *info)
{
	return smc_seid_set(true);
}

int smc_gen_netlink_nl_disable_seid_doit(struct sk_buff *skb,
					 struct genl_info *info)
{
	return smc_seid_set(false);
}

/*
 * Requests of the commands other than ADD_UEID and REMOVE_UEID carry no
 * attributes.  Their split operations have no policy, and would take
 * any: the hooks the spec names check the request against this one,
 * which refuses every attribute with EINVAL.  On 6.1 it is the family's
 * policy, which genl_ops without one of their own take.
 */
static const struct nla_policy smc_nl_policy[SMC_NLA_EID_TABLE_MAX + 1] = {
	[SMC_NLA_EID_TABLE_ENTRY]	= { .type = NLA_REJECT },
};

/* As the generic netlink core parses a request (hdrsize 0) */
static int smc_nl_no_attrs(const struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[SMC_NLA_EID_TABLE_MAX + 1];

	return nlmsg_parse(nlh, GENL_HDRLEN, tb, SMC_NLA_EID_TABLE_MAX,
			   smc_nl_policy, extack);
}

int smc_nl_no_attrs_pre_doit(const struct genl_split_ops *ops,
			     struct sk_buff *skb, struct genl_info *info)
{
	return smc_nl_no_attrs(info->nlhdr, info->extack);
}

int smc_nl_no_attrs_start(struct netlink_callback *cb)
{
	return smc_nl_no_attrs(cb->nlh, cb->extack);
}

/* Its operations, from the spec (smc_nl_gen.c), come in smc_nl_init() */
static struct genl_family smc_nl_family __ro_after_init = {
	.name		= SMC_GENL_FAMILY_NAME,
	.version	= SMC_GENL_FAMILY_VERSION,
	.hdrsize	= 0,
	.maxattr	= SMC_NLA_EID_TABLE_MAX,
	.policy		= smc_nl_policy,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.resv_start_op	= SMC_NETLINK_DISABLE_HS_LIMITATION + 1,
};

int smc_nl_init(void)
{
	return smc_genl_register(&smc_nl_family, smc_gen_netlink_nl_ops,
				 ARRAY_SIZE(smc_gen_netlink_nl_ops));
}

void smc_nl_exit(void)
{
	smc_genl_unregister(&smc_nl_family);
}
