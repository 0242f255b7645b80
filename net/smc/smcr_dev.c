// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: RDMA devices for SMC-R.
 *
 * An ib_client: the RDMA core calls add() for every device that is
 * registered, now or later, and remove() before a device goes away, so
 * devices may come and go at any time.  Port states and the netdevs of
 * RoCE ports are read again on each port or GID event, from a work item because the event handler
 * may run in atomic context.  debugfs shows every device with its
 * active ports and the QPs bound to each completion vector.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smcr_cq_pick.h"
#include "smcr_dev.h"
#include "smcr.h"
#include "smcr_srq.h"

static struct ib_client smcr_ib_client;
static unsigned int smcr_dev_bound(struct smcr_dev *dev);

/* how long removal waits for links that are ending to let go */
#define SMCR_DEV_GONE_WAIT	(30 * HZ)
static LIST_HEAD(smcr_devs);
static DEFINE_MUTEX(smcr_devs_lock);	/* smcr_devs */
static atomic_t smcr_ndevs;		/* devices on smcr_devs */
static struct dentry *smcr_debugfs;

/*
 * The netdev a RoCE port's GIDs derive from, the first one found in its
 * GID table.  The RDMA core's port-to-netdev helper is not exported
 * in 6.1, and 6.1's rxe has no get_netdev; its GIDs carry the netdev
 * on every kernel.
 */
static int smcr_dev_port_ndev(struct ib_device *ibdev, u32 port, int tbl_len,
			      char *name)
{
	const struct ib_gid_attr *ga;
	struct net_device *ndev;
	int i, ifindex = 0;

	for (i = 0; i < tbl_len && !ifindex; i++) {
		ga = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(ga))
			continue;
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(ga);
		if (!IS_ERR_OR_NULL(ndev)) {
			ifindex = ndev->ifindex;
			strscpy(name, ndev->name, IFNAMSIZ);
		}
		rcu_read_unlock();
		rdma_put_gid_attr(ga);
	}
	return ifindex;
}

/*
 * Read the ports' states and netdevs.  With @listed (the device is in
 * smcr_devs, with its PNET IDs), the link groups hear of ports that
 * went down or came up.
 */
static void smcr_dev_read_ports(struct smcr_dev *dev, bool listed)
{
	char names[SMCR_PNET_PORTS][IFNAMSIZ] = {};
	int ifindex[SMCR_PNET_PORTS] = {};
	struct ib_device *ibdev = dev->ibdev;
	unsigned long active = 0, lost;
	struct ib_port_attr attr;
	u32 p;

	rdma_for_each_port(ibdev, p) {
		if (p > SMCR_MAX_PORTS)
			break;
		if (ib_query_port(ibdev, p, &attr))
			continue;
		if (attr.state == IB_PORT_ACTIVE)
			__set_bit(p - 1, &active);
		if (p <= SMCR_PNET_PORTS && rdma_protocol_roce(ibdev, p))
			ifindex[p - 1] = smcr_dev_port_ndev(ibdev, p,
							    attr.gid_tbl_len,
							    names[p - 1]);
	}
	spin_lock_bh(&dev->lock);
	lost = dev->ports_active & ~active;
	dev->ports_active = active;
	memcpy(dev->ndev_ifindex, ifindex, sizeof(ifindex));
	memcpy(dev->ndev_name, names, sizeof(names));
	spin_unlock_bh(&dev->lock);
	if (!listed)
		return;
	/* the links on a port that went down fail now, not at a timeout */
	for_each_set_bit(p, &lost, SMCR_MAX_PORTS)
		smcr_lgrs_port_down(dev, p + 1);
	/*
	 * A port that came up, or a GID that came back (after the port,
	 * on rxe), may carry a second link
	 */
	if (active)
		smcr_lgrs_port_up(dev);
}

static void smcr_dev_port_work(struct work_struct *work)
{
	struct smcr_dev *dev = container_of(work, struct smcr_dev, port_work);

	smcr_dev_read_ports(dev, true);
}

static void smcr_dev_event(struct ib_event_handler *handler,
			   struct ib_event *event)
{
	struct smcr_dev *dev = container_of(handler, struct smcr_dev, events);

	switch (event->event) {
	case IB_EVENT_DEVICE_FATAL:
		spin_lock_bh(&dev->lock);
		dev->fatal = true;
		dev->ports_active = 0;
		spin_unlock_bh(&dev->lock);
		break;
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_GID_CHANGE:
		schedule_work(&dev->port_work);
		break;
	default:
		break;
	}
}

/* The name of the parent device (e.g. the PCI function), or NULL */
static const char *smcr_dev_parent_name(const struct ib_device *ibdev)
{
	return ibdev->dev.parent ? dev_name(ibdev->dev.parent) : NULL;
}

static int smcr_dev_add(struct ib_device *ibdev)
{
	struct smcr_dev *dev;
	unsigned int n, p;

	/* RoCE and InfiniBand adapters; iWARP has no SMC-R */
	if (ibdev->node_type != RDMA_NODE_IB_CA)
		return -EOPNOTSUPP;

	n = clamp_t(unsigned int, ibdev->num_comp_vectors, 1,
		    min_t(unsigned int, num_online_cpus(), SMCR_MAX_VECS));
	dev = kzalloc(struct_size(dev, cqv, n), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	dev->ncqv = n;
	dev->reg_alone = ibdev->ops.driver_id == RDMA_DRIVER_RXE;
	INIT_LIST_HEAD(&dev->pds);
	refcount_set(&dev->refs, 1);
	mutex_init(&dev->setup_lock);
	init_waitqueue_head(&dev->unbind_wq);
	spin_lock_init(&dev->lock);
	INIT_WORK(&dev->port_work, smcr_dev_port_work);
	smcr_dev_read_ports(dev, false);
	/* entries made for this device before it came */
	for (p = 0; p < SMCR_PNET_PORTS; p++)
		smc_pnet_lookup_dev(dev_name(&ibdev->dev),
				    smcr_dev_parent_name(ibdev), p + 1,
				    dev->pnetid[p]);
	INIT_IB_EVENT_HANDLER(&dev->events, ibdev, smcr_dev_event);
	ib_register_event_handler(&dev->events);

	mutex_lock(&smcr_devs_lock);
	list_add_tail(&dev->node, &smcr_devs);
	atomic_inc(&smcr_ndevs);
	mutex_unlock(&smcr_devs_lock);
	ib_set_client_data(ibdev, &smcr_ib_client, dev);
	/* a group may take an active port for a second link, now that
	 * the device can be found
	 */
	schedule_work(&dev->port_work);
	return 0;
}

void smcr_dev_hold(struct smcr_dev *dev)
{
	refcount_inc(&dev->refs);
}

void smcr_dev_put(struct smcr_dev *dev)
{
	if (dev && refcount_dec_and_test(&dev->refs))
		kfree(dev);
}

/*
 * The device goes away: its link groups are ended, which destroys
 * every QP on it and gives their CQs back to the pool (the core frees
 * the pool right after us).  Connections may hold their links a while
 * longer; the links then hold the struct, not the device.
 */
static void smcr_dev_remove(struct ib_device *ibdev, void *client_data)
{
	struct smcr_dev *dev = client_data;

	mutex_lock(&smcr_devs_lock);
	list_del(&dev->node);
	atomic_dec(&smcr_ndevs);
	mutex_unlock(&smcr_devs_lock);
	/* no event after this, then no port work either */
	ib_unregister_event_handler(&dev->events);
	cancel_work_sync(&dev->port_work);

	mutex_lock(&dev->setup_lock);
	dev->gone = true;
	mutex_unlock(&dev->setup_lock);
	smcr_lgrs_dev_gone(dev);
	/*
	 * Groups that were ending already (off the list) may still be
	 * destroying their QPs: the last of a group's links on the device
	 * frees its SRQs and PD.  If one never lets go, they stay (a leak,
	 * not a crash).
	 */
	if (!wait_event_timeout(dev->unbind_wq, !smcr_dev_bound(dev),
				SMCR_DEV_GONE_WAIT))
		pr_err("%s: QPs still bound, device resources left\n",
		       dev_name(&ibdev->dev));
	smcr_dev_put(dev);
}

static atomic64_t smcr_pd_owners = ATOMIC64_INIT(0);

/* A key for a new link group's PDs: never used again */
u64 smcr_pd_owner(void)
{
	return atomic64_inc_return(&smcr_pd_owners);
}

/* The PD of @owner on @dev, made for its first link; setup_lock held */
static struct smcr_pd *smcr_pd_get(struct smcr_dev *dev, u64 owner)
{
	struct smcr_pd *pd;

	lockdep_assert_held(&dev->setup_lock);
	list_for_each_entry(pd, &dev->pds, node)
		if (pd->owner == owner)
			goto found;
	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->pd = ib_alloc_pd(dev->ibdev, 0);
	if (IS_ERR(pd->pd)) {
		int rc = PTR_ERR(pd->pd);

		kfree(pd);
		return ERR_PTR(rc);
	}
	pd->owner = owner;
	INIT_LIST_HEAD(&pd->srqs);
	list_add(&pd->node, &dev->pds);
found:
	pd->links++;
	return pd;
}

/*
 * A link of @pd is gone, its QP destroyed: the last one frees the PD.
 * An SRQ the device would not destroy keeps it (a leak, not a crash).
 */
static void smcr_pd_put(struct smcr_dev *dev, struct smcr_pd *pd)
{
	lockdep_assert_held(&dev->setup_lock);
	if (WARN_ON_ONCE(!pd->links) || --pd->links)
		return;
	if (!list_empty(&pd->srqs))
		return;
	list_del(&pd->node);
	ib_dealloc_pd(pd->pd);
	kfree(pd);
}

/*
 * A new link's QP goes to the least-used vector of @dev, in the PD of
 * its group (@owner) there, *@pd.
 */
int smcr_dev_bind(struct smcr_dev *dev, u64 owner, unsigned int *vec,
		  struct smcr_pd **pd)
{
	unsigned int bound[SMCR_MAX_VECS], i, v;
	int rc = 0;

	mutex_lock(&dev->setup_lock);
	if (dev->gone) {
		rc = -ENODEV;
		goto out;
	}
	*pd = smcr_pd_get(dev, owner);
	if (IS_ERR(*pd)) {
		rc = PTR_ERR(*pd);
		*pd = NULL;
		goto out;
	}
	spin_lock_bh(&dev->lock);
	for (i = 0; i < dev->ncqv; i++)
		bound[i] = dev->cqv[i].qps;
	v = smcr_cq_pick(bound, dev->ncqv);
	dev->cqv[v].qps++;
	spin_unlock_bh(&dev->lock);
	*vec = v;
out:
	mutex_unlock(&dev->setup_lock);
	return rc;
}

/*
 * A link of @pd whose QP completes on @cq (of vector @vec) adds @n
 * receive buffers to the SRQ of @pd on @cq, made for the first such
 * link.  One SRQ per CQ: the receives of its QPs complete on no other
 * CQ, so the CQ entries the links take cover every buffer posted.
 * The links of a PD are those of one group, whose shares are all @n:
 * the SRQ is made for SMCR_LINKS of them, not for the device's most.
 */
int smcr_dev_srq_join(struct smcr_dev *dev, struct smcr_pd *pd,
		      unsigned int vec, struct ib_cq *cq, unsigned int n,
		      struct smcr_srq **srq)
{
	struct smcr_srq *s;
	int rc;

	mutex_lock(&dev->setup_lock);
	list_for_each_entry(s, &pd->srqs, node)
		if (smcr_srq_cq(s) == cq)
			goto found;
	s = smcr_srq_create(dev->ibdev, pd->pd, cq, SMCR_LINKS * n);
	if (IS_ERR(s)) {
		rc = PTR_ERR(s);
		goto out;
	}
	s->vec = vec;
	list_add(&s->node, &pd->srqs);
found:
	rc = smcr_srq_grow(s, n);
	if (!rc) {
		s->links++;
		*srq = s;
	} else if (!s->links) {
		list_del(&s->node);
		smcr_srq_destroy(s);
	}
out:
	mutex_unlock(&dev->setup_lock);
	return rc;
}

/*
 * The link's QP is gone: the CQ entries the SRQ keeps of its share.
 * The last link frees the SRQ, which gives them back itself.
 */
unsigned int smcr_dev_srq_leave(struct smcr_dev *dev, struct smcr_pd *pd,
				struct smcr_srq *srq, unsigned int n)
{
	unsigned int keep;

	mutex_lock(&dev->setup_lock);
	keep = smcr_srq_shrink(srq, n);
	if (!WARN_ON_ONCE(!srq->links) && !--srq->links) {
		list_del(&srq->node);
		if (!smcr_srq_destroy(srq))
			list_add(&srq->node, &pd->srqs);
	}
	mutex_unlock(&dev->setup_lock);
	return keep;
}

void smcr_dev_unbind(struct smcr_dev *dev, struct smcr_pd *pd,
		     unsigned int vec, u64 done)
{
	mutex_lock(&dev->setup_lock);
	smcr_pd_put(dev, pd);
	mutex_unlock(&dev->setup_lock);
	spin_lock_bh(&dev->lock);
	dev->cqv[vec].done += done;
	if (!WARN_ON_ONCE(!dev->cqv[vec].qps))
		dev->cqv[vec].qps--;
	spin_unlock_bh(&dev->lock);
	wake_up(&dev->unbind_wq);
}

/* QPs bound to any vector of @dev */
static unsigned int smcr_dev_bound(struct smcr_dev *dev)
{
	unsigned int i, n = 0;

	spin_lock_bh(&dev->lock);
	for (i = 0; i < dev->ncqv; i++)
		n += dev->cqv[i].qps;
	spin_unlock_bh(&dev->lock);
	return n;
}

/* Is the port's PNET ID (if any) compatible with @pnetid (if any)? */
static bool smcr_dev_pnet_ok(struct smcr_dev *dev, u32 port,
			     const char *pnetid)
{
	if (!pnetid || !pnetid[0] || port > SMCR_PNET_PORTS ||
	    !dev->pnetid[port - 1][0])
		return true;
	return !strncmp(dev->pnetid[port - 1], pnetid, SMC_PNETID_LEN);
}

/* Is the IPv4 address of GID @ga in the subnet of @addr (RCU held)? */
static bool smcr_dev_gid_subnet(const struct ib_gid_attr *ga, __be32 addr)
{
	const struct in6_addr *a = (const struct in6_addr *)ga->gid.raw;
	struct net_device *ndev;
	struct in_device *idev;
	struct in_ifaddr *ifa;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "smc: GID subnet outside RCU");
	if (!ipv6_addr_v4mapped(a))
		return false;
	ndev = rdma_read_gid_attr_ndev_rcu(ga);
	if (IS_ERR_OR_NULL(ndev))
		return false;
	idev = __in_dev_get_rcu(ndev);
	if (!idev)
		return false;
	in_dev_for_each_ifa_rcu(ifa, idev)
		if (ifa->ifa_local == a->s6_addr32[3] &&
		    inet_ifa_match(addr, ifa))
			return true;
	return false;
}

/* What a GID scan of a device looks for */
struct smcr_gid_want {
	__be32		addr;
	bool		subnet;		/* a GID in addr's subnet, not addr's */
	const char	*pnetid;
	bool		same_pnet;	/* the port's PNET ID is pnetid */
	/* SMC-Rv1: a RoCE v1 GID on @vlan, of netdev @ifindex if not 0 */
	bool		v1;
	u16		vlan;
	int		ifindex;
	const u8	*saddr;		/* the test mode's GID, see below */
};

/*
 * SMC-Rv1 wants a RoCE v1 GID, which rdma_rxe does not have.  For tests
 * only, SMCR_V1_TEST_V2_GID lets v1 use the RoCE v2 GID of the
 * connection's own address instead (IPv4-mapped or IPv6): rxe then
 * reaches the peer by IP, and a v1 link behaves as on RoCE v1.
 */
u8 smcr_v1_test;

/* The VLAN a GID or a connection is on: 0 for none */
u16 smcr_ndev_vlan(const struct net_device *ndev)
{
	return is_vlan_dev(ndev) ? vlan_dev_vlan_id(ndev) : 0;
}

/* Is GID @ga one SMC-Rv1 may use as @w says? */
static bool smcr_dev_gid_v1(const struct ib_gid_attr *ga,
			    const struct smcr_gid_want *w)
{
	struct net_device *ndev;
	bool ok;

	if (READ_ONCE(smcr_v1_test) & SMCR_V1_TEST_V2_GID) {
		if (ga->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP || !w->saddr ||
		    memcmp(&ga->gid, w->saddr, sizeof(ga->gid)))
			return false;
	} else if (ga->gid_type != IB_GID_TYPE_ROCE) {
		return false;
	}
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(ga);
	ok = !IS_ERR_OR_NULL(ndev) && smcr_ndev_vlan(ndev) == w->vlan &&
	     (!w->ifindex || ndev->ifindex == w->ifindex);
	rcu_read_unlock();
	return ok;
}

static bool smcr_dev_port_wanted(struct smcr_dev *dev, u32 p,
				 const struct smcr_gid_want *w)
{
	if (!w->same_pnet)
		return smcr_dev_pnet_ok(dev, p, w->pnetid);
	return !strncmp(p <= SMCR_PNET_PORTS ? dev->pnetid[p - 1] : "",
			w->pnetid, SMC_PNETID_LEN);
}

static bool smcr_dev_gid_wanted(const struct ib_gid_attr *ga,
				const struct smcr_gid_want *w)
{
	struct in6_addr want;
	bool match;

	if (w->v1)
		return smcr_dev_gid_v1(ga, w);
	if (ga->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return false;
	if (!w->subnet) {
		ipv6_addr_set_v4mapped(w->addr, &want);
		return !memcmp(&ga->gid, &want, sizeof(want));
	}
	rcu_read_lock();
	match = smcr_dev_gid_subnet(ga, w->addr);
	rcu_read_unlock();
	return match;
}

/* A RoCEv2 GID of an active port of @dev as @w says, into @gi */
static int smcr_dev_find_gid(struct smcr_dev *dev,
			     const struct smcr_gid_want *w,
			     struct smcr_gid_info *gi)
{
	struct ib_device *ibdev = dev->ibdev;
	const struct ib_gid_attr *ga;
	struct ib_port_attr attr;
	u32 p;
	int i;

	rdma_for_each_port(ibdev, p) {
		if (p > SMCR_MAX_PORTS || !rdma_protocol_roce(ibdev, p) ||
		    !test_bit(p - 1, &dev->ports_active) ||
		    !smcr_dev_port_wanted(dev, p, w) ||
		    ib_query_port(ibdev, p, &attr) ||
		    attr.state != IB_PORT_ACTIVE)
			continue;
		for (i = 0; i < attr.gid_tbl_len; i++) {
			ga = rdma_get_gid_attr(ibdev, p, i);
			if (IS_ERR(ga))
				continue;
			if (!smcr_dev_gid_wanted(ga, w) ||
			    rdma_read_gid_l2_fields(ga, NULL, gi->mac)) {
				rdma_put_gid_attr(ga);
				continue;
			}
			gi->port = p;
			gi->sgid_index = ga->index;
			memcpy(gi->gid, &ga->gid, sizeof(gi->gid));
			gi->mtu = attr.active_mtu;
			rdma_put_gid_attr(ga);
			return 0;
		}
	}
	return -ENOENT;
}

/* A device (but @not) with a GID as @w says: 0 and gi->dev referenced */
static int smcr_dev_find(const struct smcr_gid_want *w,
			 const struct smcr_dev *not, struct smcr_gid_info *gi)
{
	struct smcr_dev *dev;
	int rc = -ENODEV;

	mutex_lock(&smcr_devs_lock);
	list_for_each_entry(dev, &smcr_devs, node) {
		if (dev == not || dev->fatal || dev->gone)
			continue;
		if (!smcr_dev_find_gid(dev, w, gi)) {
			refcount_inc(&dev->refs);
			gi->dev = dev;
			rc = 0;
			break;
		}
	}
	mutex_unlock(&smcr_devs_lock);
	return rc;
}

/*
 * The RDMA device, port and GID for a connection from the local IPv4
 * address @addr: a RoCEv2 GID of that address on an active port whose
 * PNET ID, if it has one, is the interface's (@pnetid, may be NULL).
 * On success gi->dev holds a reference.
 */
int smcr_dev_find_v4(__be32 addr, const char *pnetid,
		     struct smcr_gid_info *gi)
{
	struct smcr_gid_want w = { .addr = addr, .pnetid = pnetid };

	return smcr_dev_find(&w, NULL, gi);
}

/*
 * A GID for the second link of a group whose first link uses @gid on
 * port @not_port of @not_dev: on another device, on a port with the
 * same PNET ID (or none on both), with an address in the subnet of
 * @gid's.  On success gi->dev holds a reference.
 */
int smcr_dev_find_alt(const u8 *gid, struct smcr_dev *not_dev, u8 not_port,
		      struct smcr_gid_info *gi)
{
	char pnetid[SMC_PNETID_LEN + 1] = "";
	struct smcr_gid_want w = {
		.subnet = true, .pnetid = pnetid, .same_pnet = true,
	};
	struct in6_addr a;

	memcpy(&a, gid, sizeof(a));
	if (!ipv6_addr_v4mapped(&a))
		return -EINVAL;
	w.addr = a.s6_addr32[3];
	if (not_port <= SMCR_PNET_PORTS)
		strscpy(pnetid, not_dev->pnetid[not_port - 1], sizeof(pnetid));
	return smcr_dev_find(&w, not_dev, gi);
}

/*
 * The RDMA device, port and GID for an SMC-Rv1 connection that leaves
 * by @ndev from the address @saddr (a GID: IPv4-mapped or IPv6): a
 * RoCE v1 GID on @ndev's VLAN, of a port with the interface's PNET ID
 * @pnetid, or without one, of a port whose GIDs are @ndev's.  On
 * success gi->dev holds a reference.
 */
int smcr_dev_find_v1(const struct net_device *ndev, const u8 *saddr,
		     const char *pnetid, struct smcr_gid_info *gi)
{
	struct smcr_gid_want w = {
		.v1 = true, .vlan = smcr_ndev_vlan(ndev), .saddr = saddr,
		.pnetid = pnetid,
	};

	if (pnetid[0])
		w.same_pnet = true;
	else
		w.ifindex = ndev->ifindex;
	return smcr_dev_find(&w, NULL, gi);
}

/*
 * A GID for the second link of an SMC-Rv1 group whose first link uses
 * port @not_port of @not_dev on @vlan: a RoCE v1 GID on @vlan, on
 * another device, on a port with the same PNET ID (or none on both).
 * The test mode takes a RoCE v2 GID in the subnet of @gid instead.  On
 * success gi->dev holds a reference.
 */
int smcr_dev_find_alt_v1(const u8 *gid, u16 vlan, struct smcr_dev *not_dev,
			 u8 not_port, struct smcr_gid_info *gi)
{
	char pnetid[SMC_PNETID_LEN + 1] = "";
	struct smcr_gid_want w = {
		.v1 = true, .vlan = vlan, .pnetid = pnetid, .same_pnet = true,
	};

	if (READ_ONCE(smcr_v1_test) & SMCR_V1_TEST_V2_GID)
		return smcr_dev_find_alt(gid, not_dev, not_port, gi);
	if (not_port <= SMCR_PNET_PORTS)
		strscpy(pnetid, not_dev->pnetid[not_port - 1], sizeof(pnetid));
	return smcr_dev_find(&w, not_dev, gi);
}

/* Is @addr the address of one of this host's RoCEv2 GIDs? */
bool smcr_dev_v4_local(__be32 addr)
{
	struct smcr_gid_info gi;

	if (smcr_dev_find_v4(addr, NULL, &gi))
		return false;
	smcr_dev_put(gi.dev);
	return true;
}

/* Is @gid (an IPv4-mapped RoCEv2 GID) one of this host's? */
bool smcr_dev_gid_local(const u8 *gid)
{
	struct in6_addr a;

	memcpy(&a, gid, sizeof(a));
	return ipv6_addr_v4mapped(&a) && smcr_dev_v4_local(a.s6_addr32[3]);
}

/* Is there any RDMA device at all?  Lock-free, for every connect */
bool smcr_devs_present(void)
{
	return atomic_read(&smcr_ndevs) > 0;
}

/* Does the table entry for device @name mean @dev? */
static bool smcr_dev_named(const struct smcr_dev *dev, const char *name)
{
	return smc_pnetid_dev_named(name, dev_name(&dev->ibdev->dev),
				    smcr_dev_parent_name(dev->ibdev));
}

/*
 * Give port @port of the devices called @name the PNET ID @pnetid.
 * Returns how many took it, or -EEXIST when one has another already.
 */
int smcr_dev_pnet_set(const char *name, u8 port, const char *pnetid)
{
	struct smcr_dev *dev;
	int rc = 0, n = 0;

	mutex_lock(&smcr_devs_lock);
	list_for_each_entry(dev, &smcr_devs, node) {
		if (!smcr_dev_named(dev, name) ||
		    !rdma_is_port_valid(dev->ibdev, port))
			continue;
		spin_lock_bh(&dev->lock);
		if (smc_pnetid_set(dev->pnetid[port - 1], pnetid))
			rc = -EEXIST;
		else
			n++;
		spin_unlock_bh(&dev->lock);
	}
	mutex_unlock(&smcr_devs_lock);
	return rc ?: n;
}

/* Clear @pnetid (any for NULL) on the devices called @name (all: NULL) */
void smcr_dev_pnet_clear(const char *name, const char *pnetid)
{
	struct smcr_dev *dev;
	int p;

	mutex_lock(&smcr_devs_lock);
	list_for_each_entry(dev, &smcr_devs, node) {
		if (name && !smcr_dev_named(dev, name))
			continue;
		spin_lock_bh(&dev->lock);
		for (p = 0; p < SMCR_PNET_PORTS; p++)
			smc_pnetid_clear(dev->pnetid[p], pnetid);
		spin_unlock_bh(&dev->lock);
	}
	mutex_unlock(&smcr_devs_lock);
}

static struct ib_client smcr_ib_client = {
	.name	= "smc_ib",
	.add	= smcr_dev_add,
	.remove	= smcr_dev_remove,
};

/*
 * The device with the lowest index from @from on that netns @net may
 * use, as netlink shows it to @net: 0, or -ENOENT when there is none.
 */
int smcr_dev_info_next(const struct net *net, u32 from,
		       struct smcr_dev_info *info)
{
	u32 links[SMCR_PNET_PORTS] = {};
	struct smcr_dev *dev, *best = NULL;
	struct device *parent;
	struct smcr_srq *s;
	struct smcr_pd *pd;
	unsigned int i;

	memset(info, 0, sizeof(*info));
	mutex_lock(&smcr_devs_lock);
	list_for_each_entry(dev, &smcr_devs, node)
		if (dev->ibdev->index >= from &&
		    rdma_dev_access_netns(dev->ibdev, net) &&
		    (!best || dev->ibdev->index < best->ibdev->index))
			best = dev;
	if (!best || !refcount_inc_not_zero(&best->refs)) {
		mutex_unlock(&smcr_devs_lock);
		return -ENOENT;
	}
	mutex_unlock(&smcr_devs_lock);
	dev = best;
	info->index = dev->ibdev->index;
	strscpy(info->name, dev_name(&dev->ibdev->dev), sizeof(info->name));
	parent = dev->ibdev->dev.parent;
	if (parent && dev_is_pci(parent)) {
		info->pci = true;
		info->pci_vendor = to_pci_dev(parent)->vendor;
		info->pci_device = to_pci_dev(parent)->device;
		strscpy(info->pci_id, pci_name(to_pci_dev(parent)),
			sizeof(info->pci_id));
	}
	mutex_lock(&dev->setup_lock);
	list_for_each_entry(pd, &dev->pds, node)
		list_for_each_entry(s, &pd->srqs, node)
			info->vec_rx[s->vec] += smcr_srq_posted(s);
	mutex_unlock(&dev->setup_lock);
	spin_lock_bh(&dev->lock);
	for (i = 0; i < SMCR_PNET_PORTS; i++) {
		if (!rdma_is_port_valid(dev->ibdev, i + 1))
			continue;
		info->port[i].valid = true;
		info->port[i].active = test_bit(i, &dev->ports_active);
		info->port[i].ifindex = dev->ndev_ifindex[i];
		strscpy(info->port[i].pnetid, dev->pnetid[i],
			sizeof(info->port[i].pnetid));
	}
	info->ncqv = dev->ncqv;
	for (i = 0; i < dev->ncqv; i++) {
		info->vec_qps[i] = dev->cqv[i].qps;
		info->vec_done[i] = dev->cqv[i].done;
	}
	spin_unlock_bh(&dev->lock);
	smcr_lgr_dev_usage(net, dev, links, info->vec_done, &info->crit);
	for (i = 0; i < SMCR_PNET_PORTS; i++)
		info->port[i].links = links[i];
	smcr_dev_put(dev);
	return 0;
}

/* One line a device: name, active ports, QPs bound per vector */
static int smcr_devs_show(struct seq_file *m, void *v)
{
	struct smcr_dev *dev;
	unsigned int i;

	mutex_lock(&smcr_devs_lock);
	list_for_each_entry(dev, &smcr_devs, node) {
		spin_lock_bh(&dev->lock);
		seq_printf(m, "%s ports %u active", dev_name(&dev->ibdev->dev),
			   rdma_end_port(dev->ibdev));
		if (!dev->ports_active)
			seq_puts(m, " -");
		for_each_set_bit(i, &dev->ports_active, SMCR_MAX_PORTS)
			seq_printf(m, " %u", i + 1);
		if (dev->fatal)
			seq_puts(m, " fatal");
		seq_printf(m, " vectors %u qps", dev->ncqv);
		for (i = 0; i < dev->ncqv; i++)
			seq_printf(m, " %u", dev->cqv[i].qps);
		for (i = 0; i < SMCR_PNET_PORTS; i++)
			if (dev->ndev_ifindex[i])
				seq_printf(m, " netdev %u:%s", i + 1,
					   dev->ndev_name[i]);
		for (i = 0; i < SMCR_PNET_PORTS; i++)
			if (dev->pnetid[i][0])
				seq_printf(m, " pnet %u:%s", i + 1,
					   dev->pnetid[i]);
		spin_unlock_bh(&dev->lock);
		seq_putc(m, '\n');
	}
	mutex_unlock(&smcr_devs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smcr_devs);

int smcr_dev_init(struct dentry *debugfs)
{
	int rc;

	rc = ib_register_client(&smcr_ib_client);
	if (rc)
		return rc;
	smcr_debugfs = debugfs_create_file("rdma-devices", 0444, debugfs,
					   NULL, &smcr_devs_fops);
	debugfs_create_u8("smcr-v1-test", 0600, debugfs, &smcr_v1_test);
	return 0;
}

void smcr_dev_exit(void)
{
	debugfs_remove(smcr_debugfs);
	smcr_debugfs = NULL;
	/* remove() runs for every device we were added to */
	ib_unregister_client(&smcr_ib_client);
}
