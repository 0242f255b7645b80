// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the PNET ID table, generic netlink
 * family SMC_PNETID (the interface of smc_pnet).
 *
 * A PNET ID names a physical network.  SMC uses an RDMA or ISM device
 * for a connection only when the device is on the physical network of
 * the interface that carries the connection's TCP traffic, and the
 * table is where an administrator says which that is.  Each network
 * namespace has its own table of interface entries.  Entries for
 * device ports exist in the initial namespace only: their PNET ID is
 * copied onto the device port, at once or when a device of that name
 * is registered later, and cleared again with the entry.
 *
 * Lock order: smc_pnet_table.lock -> smcr_devs_lock -> smcr_dev.lock;
 * smc_pnet_table.lock -> smcd_devices_lock.
 */

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/smc.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <rdma/ib_verbs.h>

#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_pnet_gen.h"
#include "smc_pnetid.h"
#include "smc_sock.h"
#include "smcr_dev.h"

/* IBPORT of an interface entry, and the device ports entries may name */
#define SMC_PNET_NETDEV_PORT	255
#define SMC_PNET_MAX_PORT	2

/* Filled before it is listed; under the table's lock after */
struct smc_pnet_entry {
	struct list_head	node;		/* in smc_pnet_table.list */
	char			pnetid[SMC_PNETID_LEN + 1];
	char			ethname[IFNAMSIZ];	/* interface entry */
	char			ibname[IB_DEVICE_NAME_MAX]; /* device entry */
	u8			ibport;
};

/* The table of a network namespace, in a pernet area of its own */
struct smc_pnet_table {
	struct mutex		lock;		/* list, and its entries */
	struct list_head	list;		/* of struct smc_pnet_entry */
};

static struct genl_family smc_pnet_family;
static unsigned int smc_pnet_net_id __read_mostly;

static struct smc_pnet_table *smc_net_pnet(const struct net *net)
{
	return net_generic(net, smc_pnet_net_id);
}

static int __net_init smc_pnet_net_init(struct net *net)
{
	struct smc_pnet_table *pt = smc_net_pnet(net);

	mutex_init(&pt->lock);
	INIT_LIST_HEAD(&pt->list);
	return 0;
}

/* Drop the entries of @pt that match @pnetid (all for NULL) */
static int smc_pnet_remove(struct smc_pnet_table *pt, const char *pnetid)
{
	struct smc_pnet_entry *e, *tmp;
	int n = 0;

	list_for_each_entry_safe(e, tmp, &pt->list, node) {
		if (pnetid && !smc_pnetid_match(e->pnetid, pnetid))
			continue;
		list_del(&e->node);
		kfree(e);
		n++;
	}
	return n;
}

static void __net_exit smc_pnet_net_exit(struct net *net)
{
	struct smc_pnet_table *pt = smc_net_pnet(net);

	mutex_lock(&pt->lock);
	smc_pnet_remove(pt, NULL);
	mutex_unlock(&pt->lock);
}

/*
 * The PNET ID of port @port of a device called @name (or whose parent
 * device is called @parent), for a device being registered.  Copies
 * it into @pnetid, or an empty string.
 */
void smc_pnet_lookup_dev(const char *name, const char *parent, u8 port,
			 char *pnetid)
{
	struct smc_pnet_table *pt = smc_net_pnet(&init_net);
	struct smc_pnet_entry *e;

	pnetid[0] = 0;
	mutex_lock(&pt->lock);
	list_for_each_entry(e, &pt->list, node) {
		if (!e->ibname[0] || e->ibport != port)
			continue;
		if (smc_pnetid_dev_named(e->ibname, name, parent)) {
			strscpy(pnetid, e->pnetid, SMC_PNETID_LEN + 1);
			break;
		}
	}
	mutex_unlock(&pt->lock);
}

/*
 * The PNET ID the table of @net gives the interface called @ifname:
 * copied into @pnetid, or an empty string.
 */
void smc_pnet_lookup_netdev(struct net *net, const char *ifname,
			    char *pnetid)
{
	struct smc_pnet_table *pt = smc_net_pnet(net);
	struct smc_pnet_entry *e;

	pnetid[0] = 0;
	mutex_lock(&pt->lock);
	list_for_each_entry(e, &pt->list, node) {
		if (e->ethname[0] && !strcmp(e->ethname, ifname)) {
			strscpy(pnetid, e->pnetid, SMC_PNETID_LEN + 1);
			break;
		}
	}
	mutex_unlock(&pt->lock);
}

/* Clear @pnetid (any for NULL) on the RDMA and SMC-D devices @name (all) */
static void smc_pnet_clear_devs(const char *name, const char *pnetid)
{
	smcr_dev_pnet_clear(name, pnetid);
	smcd_dev_pnet_clear(name, pnetid);
}

static struct smc_pnet_entry *smc_pnet_new(const char *pnetid)
{
	struct smc_pnet_entry *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (e)
		strscpy(e->pnetid, pnetid, sizeof(e->pnetid));
	return e;
}

/* An interface entry; the interface need not exist yet */
static int smc_pnet_add_netdev(struct smc_pnet_table *pt, const char *pnetid,
			       const char *ethname)
{
	struct smc_pnet_entry *e;

	list_for_each_entry(e, &pt->list, node)
		if (e->ethname[0] && !strcmp(e->ethname, ethname))
			return -EEXIST;
	e = smc_pnet_new(pnetid);
	if (!e)
		return -ENOMEM;
	strscpy(e->ethname, ethname, sizeof(e->ethname));
	e->ibport = SMC_PNET_NETDEV_PORT;
	list_add_tail(&e->node, &pt->list);
	return 0;
}

/* A device port entry, applied to the devices of that name now */
static int smc_pnet_add_dev(struct smc_pnet_table *pt, const char *pnetid,
			    const char *ibname, u8 port)
{
	struct smc_pnet_entry *e;
	int rc;

	list_for_each_entry(e, &pt->list, node)
		if (e->ibname[0] && !strcmp(e->ibname, ibname))
			return -EEXIST;
	/* a port that has another PNET ID already keeps it */
	rc = smcr_dev_pnet_set(ibname, port, pnetid);
	if (rc < 0)
		return rc;
	rc = smcd_dev_pnet_set(ibname, pnetid);
	if (rc < 0) {
		smcr_dev_pnet_clear(ibname, pnetid);
		return rc;
	}
	e = smc_pnet_new(pnetid);
	if (!e) {
		smc_pnet_clear_devs(ibname, pnetid);
		return -ENOMEM;
	}
	strscpy(e->ibname, ibname, sizeof(e->ibname));
	e->ibport = port;
	list_add_tail(&e->node, &pt->list);
	return 0;
}

int smc_pnetid_nl_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	char pnetid[SMC_PNETID_LEN + 1];
	struct smc_pnet_table *pt = smc_net_pnet(net);
	struct nlattr **a = info->attrs;
	char ibname[IB_DEVICE_NAME_MAX];
	bool dev = false, added = false;
	u8 port = 1;
	int rc = 0;

	if (!a[SMC_PNETID_NAME] ||
	    smc_pnetid_normalize(nla_data(a[SMC_PNETID_NAME]), pnetid))
		return -EINVAL;
	if (a[SMC_PNETID_ETHNAME] && !*(char *)nla_data(a[SMC_PNETID_ETHNAME]))
		return -EINVAL;
	/* device ports belong to the initial namespace */
	if (a[SMC_PNETID_IBNAME] && net_eq(net, &init_net)) {
		char *name;

		nla_strscpy(ibname, a[SMC_PNETID_IBNAME], sizeof(ibname));
		name = strim(ibname);
		memmove(ibname, name, strlen(name) + 1);
		if (a[SMC_PNETID_IBPORT])
			port = nla_get_u8(a[SMC_PNETID_IBPORT]);
		if (!ibname[0] || port < 1 || port > SMC_PNET_MAX_PORT)
			return -EINVAL;
		dev = true;
	}

	mutex_lock(&pt->lock);
	if (a[SMC_PNETID_ETHNAME]) {
		rc = smc_pnet_add_netdev(pt, pnetid,
					 nla_data(a[SMC_PNETID_ETHNAME]));
		added = !rc;
	}
	if (dev && (!rc || rc == -EEXIST)) {
		rc = smc_pnet_add_dev(pt, pnetid, ibname, port);
		added |= !rc;
	}
	mutex_unlock(&pt->lock);
	if (rc && rc != -EEXIST)
		return rc;
	return added ? 0 : -EEXIST;
}

int smc_pnetid_nl_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct smc_pnet_table *pt = smc_net_pnet(net);
	const char *pnetid;
	int n;

	if (!info->attrs[SMC_PNETID_NAME])
		return -EINVAL;
	/* the bytes as given: a lower-case name matches nothing */
	pnetid = nla_data(info->attrs[SMC_PNETID_NAME]);
	mutex_lock(&pt->lock);
	n = smc_pnet_remove(pt, pnetid);
	if (net_eq(net, &init_net))
		smc_pnet_clear_devs(NULL, pnetid);
	mutex_unlock(&pt->lock);
	return n ? 0 : -ENOENT;
}

int smc_pnetid_nl_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct smc_pnet_table *pt = smc_net_pnet(net);

	mutex_lock(&pt->lock);
	smc_pnet_remove(pt, NULL);
	if (net_eq(net, &init_net))
		smc_pnet_clear_devs(NULL, NULL);
	mutex_unlock(&pt->lock);
	return 0;
}

/* One GET message; every attribute is always there for smc_pnet */
static int smc_pnet_fill(struct sk_buff *skb, const struct smc_pnet_entry *e,
			 u32 portid, u32 seq)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &smc_pnet_family, NLM_F_MULTI,
			  SMC_PNETID_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, SMC_PNETID_NAME, e->pnetid) ||
	    nla_put_string(skb, SMC_PNETID_ETHNAME,
			   e->ethname[0] ? e->ethname : "n/a") ||
	    nla_put_string(skb, SMC_PNETID_IBNAME,
			   e->ibname[0] ? e->ibname : "n/a") ||
	    nla_put_u8(skb, SMC_PNETID_IBPORT, e->ibport)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int smc_pnetid_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_pnet_table *pt = smc_net_pnet(sock_net(skb->sk));
	struct smc_pnet_entry *e;
	long i = 0;

	mutex_lock(&pt->lock);
	list_for_each_entry(e, &pt->list, node) {
		if (i < cb->args[0]) {
			i++;
			continue;
		}
		if (smc_pnet_fill(skb, e, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq))
			break;
		i++;
	}
	mutex_unlock(&pt->lock);
	cb->args[0] = i;
	return skb->len;
}

/* GET of one name: its entries as a multipart reply, then DONE */
int smc_pnetid_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_pnet_table *pt = smc_net_pnet(genl_info_net(info));
	u32 portid = info->snd_portid, seq = info->snd_seq;
	struct smc_pnet_entry *e;
	struct sk_buff *msg;
	const char *pnetid;
	int rc = 0;

	if (!info->attrs[SMC_PNETID_NAME])
		return -EINVAL;
	pnetid = nla_data(info->attrs[SMC_PNETID_NAME]);
	msg = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&pt->lock);
	list_for_each_entry(e, &pt->list, node) {
		if (!smc_pnetid_match(e->pnetid, pnetid))
			continue;
		if (!smc_pnet_fill(msg, e, portid, seq))
			continue;
		/* full: send what we have, go on in a new message */
		rc = genlmsg_reply(msg, info);
		msg = rc ? NULL : nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
		if (!msg || smc_pnet_fill(msg, e, portid, seq)) {
			rc = rc ?: -ENOMEM;
			break;
		}
	}
	mutex_unlock(&pt->lock);
	if (rc) {
		nlmsg_free(msg);
		return rc;
	}
	if (!nlmsg_put(msg, portid, seq, NLMSG_DONE, 0, NLM_F_MULTI)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Operations and policy: smc_pnet_gen.c, from the spec.  Unknown
 * attributes are ignored (its dont-validate), as smc_pnet has always had
 * it.
 */
static struct genl_family smc_pnet_family __ro_after_init = {
	.name		= SMCR_GENL_FAMILY_NAME,
	.version	= SMCR_GENL_FAMILY_VERSION,
	.maxattr	= ARRAY_SIZE(smc_pnetid_pnetid_nl_policy) - 1,
	.policy		= smc_pnetid_pnetid_nl_policy,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.small_ops	= smc_pnetid_nl_ops,
	.n_small_ops	= ARRAY_SIZE(smc_pnetid_nl_ops),
	.resv_start_op	= SMC_PNETID_FLUSH + 1,
};

static struct pernet_operations smc_pnet_net_ops = {
	.init	= smc_pnet_net_init,
	.exit	= smc_pnet_net_exit,
	.id	= &smc_pnet_net_id,
	.size	= sizeof(struct smc_pnet_table),
};

int smc_pnet_init(void)
{
	int rc;

	rc = register_pernet_subsys(&smc_pnet_net_ops);
	if (rc)
		return rc;
	rc = genl_register_family(&smc_pnet_family);
	if (rc)
		unregister_pernet_subsys(&smc_pnet_net_ops);
	return rc;
}

/* No table change reaches the devices after this */
void smc_pnet_exit(void)
{
	genl_unregister_family(&smc_pnet_family);
}

/* The tables go once no device looks them up any more */
void smc_pnet_tables_exit(void)
{
	unregister_pernet_subsys(&smc_pnet_net_ops);
}
