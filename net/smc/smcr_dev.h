/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: RDMA devices for SMC-R.
 *
 * Every RDMA device with kernel verbs and an InfiniBand/RoCE node type
 * gets a struct smcr_dev while it is registered.  Its completion work
 * is spread over min(completion vectors, online CPUs) vectors; each
 * link's QP is bound to the least-used one (smcr_cq_pick.h) and takes
 * its CQ from the RDMA core's shared CQ pool on that vector.
 *
 * Each link group has a protection domain of its own on each device it
 * uses: a device checks a peer's RDMA access against the PD of the QP
 * it comes in on, so the QPs of one group reach the memory regions of
 * that group only.  The receives of a group's links on one pool CQ come
 * from one SRQ of that PD.
 *
 * Lock order: smcr_devs_lock (mutex) -> smcr_dev.lock (spinlock);
 * smcr_dev.setup_lock (mutex) -> smcr_dev.lock, the SRQ lock.
 */
#ifndef __SMCR_DEV_H
#define __SMCR_DEV_H

#include <linux/if.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "smc_pnetid.h"
#include "smcr_gid.h"

struct dentry;

/* Port numbers we track; RoCE adapters have one or two */
#define SMCR_MAX_PORTS		BITS_PER_LONG
/* Completion vectors we use at most */
#define SMCR_MAX_VECS		64
/* Ports that can have a PNET ID (as upstream: 1 and 2) */
#define SMCR_PNET_PORTS		2

struct smcr_srq;

/* A completion vector of a device: under the device's lock */
struct smcr_cq_vec {
	unsigned int		qps;		/* links' QPs bound here */
	u64			done;		/* completions of unbound links */
};

/*
 * The protection domain of a link group on a device: node, links and
 * srqs under setup_lock; pd and owner set when it is made, read-only
 * after (its links use pd unlocked)
 */
struct smcr_pd {
	struct list_head	node;		/* in the device's pds */
	struct ib_pd		*pd;
	u64			owner;		/* its group's smcr_pd_owner() */
	unsigned int		links;		/* bound to it */
	struct list_head	srqs;		/* one per pool CQ in use */
};

struct smcr_dev {
	struct ib_device	*ibdev;		/* set at add(), read-only */
	struct list_head	node;		/* in smcr_devs, its lock */
	refcount_t		refs;		/* the list and links */
	struct mutex		setup_lock;	/* pds, and their srqs */
	struct list_head	pds;		/* of the groups bound here */
	wait_queue_head_t	unbind_wq;	/* a QP was unbound */
	/* remove() runs; setup_lock, read by the device search under
	 * smcr_devs_lock only: it runs after the device left the list
	 */
	bool			gone;
	/* does the device signal Last WQE Reached? (SMCR_LAST_WQE_*)
	 * Lockless (WRITE_ONCE, READ_ONCE): a QP event or a link stop
	 * learns it; a stale value costs one wait
	 */
	u8			last_wqe;
	/*
	 * A REG_MR must run alone on its QP: rxe marks a local operation
	 * done when it runs it but retires it only in send queue order,
	 * and a retransmission of an earlier write rewinds over it and
	 * runs it again, which fails (the region is no longer free) and
	 * puts the QP in error.  Set at add(), read-only after.
	 */
	bool			reg_alone;
	struct ib_event_handler	events;
	struct work_struct	port_work;	/* reads the port states */
	spinlock_t		lock;		/* the fields below, but ncqv */
	/* the device search reads these two unlocked: a port that just
	 * went down yields a link that fails and is handled as any other
	 */
	unsigned long		ports_active;	/* bit p - 1: port p */
	bool			fatal;		/* DEVICE_FATAL seen */
	/* from the PNET ID table, empty when none; written under
	 * smcr_devs_lock too, so the device search reads it under that
	 * (but the search for a second link copies its first link's
	 * device's unlocked, smcr_dev_find_alt())
	 */
	char			pnetid[SMCR_PNET_PORTS][SMC_PNETID_LEN + 1];
	/* the netdev of a RoCE port: its GIDs derive from it; 0 if none */
	int			ndev_ifindex[SMCR_PNET_PORTS];
	char			ndev_name[SMCR_PNET_PORTS][IFNAMSIZ];
	unsigned int		ncqv;		/* set at add(), read-only */
	struct smcr_cq_vec	cqv[];
};

/* What netlink shows of a device: a snapshot */
struct smcr_dev_port_info {
	bool			valid;
	bool			active;
	u32			ifindex;
	u32			links;
	char			pnetid[SMC_PNETID_LEN + 1];
};

struct smcr_dev_info {
	u32			index;		/* of the ib_device */
	char			name[IB_DEVICE_NAME_MAX];
	bool			crit;		/* a group's only link is here */
	bool			pci;		/* the fields below are set */
	u16			pci_vendor;
	u16			pci_device;
	char			pci_id[16];
	struct smcr_dev_port_info port[SMCR_PNET_PORTS];
	unsigned int		ncqv;
	u32			vec_qps[SMCR_MAX_VECS];
	u64			vec_done[SMCR_MAX_VECS];
	u32			vec_rx[SMCR_MAX_VECS];	/* receives posted */
};

int smcr_dev_info_next(const struct net *net, u32 from,
		       struct smcr_dev_info *info);
int smcr_dev_init(struct dentry *debugfs);
int smcr_dev_find_v4(__be32 addr, const char *pnetid,
		     struct smcr_gid_info *gi);
bool smcr_dev_v4_local(__be32 addr);
bool smcr_dev_gid_local(const u8 *gid);
int smcr_dev_find_v1(const struct net_device *ndev, const u8 *saddr,
		     const char *pnetid, struct smcr_gid_info *gi);
int smcr_dev_find_alt_v1(const u8 *gid, u16 vlan, struct smcr_dev *not_dev,
			 u8 not_port, struct smcr_gid_info *gi);
u16 smcr_ndev_vlan(const struct net_device *ndev);

/* debugfs smcr-v1-test, bits: tests of SMC-Rv1 on rdma_rxe */
#define SMCR_V1_TEST_V2_GID	0x01	/* v1 over the address's v2 GID */
#define SMCR_V1_TEST_ONLY	0x02	/* the client offers no SMC-Rv2 */
extern u8 smcr_v1_test;
int smcr_dev_find_alt(const u8 *gid, struct smcr_dev *not_dev, u8 not_port,
		      struct smcr_gid_info *gi);
u64 smcr_pd_owner(void);
int smcr_dev_bind(struct smcr_dev *dev, u64 owner, unsigned int *vec,
		  struct smcr_pd **pd);
int smcr_dev_srq_join(struct smcr_dev *dev, struct smcr_pd *pd,
		      unsigned int vec, struct ib_cq *cq, unsigned int n,
		      struct smcr_srq **srq);
unsigned int smcr_dev_srq_leave(struct smcr_dev *dev, struct smcr_pd *pd,
				struct smcr_srq *srq, unsigned int n);
void smcr_dev_unbind(struct smcr_dev *dev, struct smcr_pd *pd,
		     unsigned int vec, u64 done);
void smcr_dev_hold(struct smcr_dev *dev);
void smcr_dev_put(struct smcr_dev *dev);
bool smcr_devs_present(void);
void smcr_dev_exit(void);
int smcr_dev_pnet_set(const char *name, u8 port, const char *pnetid);
void smcr_dev_pnet_clear(const char *name, const char *pnetid);

#endif /* __SMCR_DEV_H */
