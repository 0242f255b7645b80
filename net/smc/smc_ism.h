/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: SMC-D devices.
 *
 * An SMC-D device lets a peer write straight into a buffer of ours, a
 * DMB (direct memory buffer), identified by a 64-bit token.  The first
 * 32 bytes of a DMB hold the CDC header the peer writes; the rest is
 * the data ring.  The only device on x86 is loopback-ism, which
 * connects sockets of one kernel and lets a sender map the peer's DMB
 * as its own send buffer ("no copy").
 */
#ifndef __SMC_ISM_H
#define __SMC_ISM_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/types.h>

#include "smc_pnetid.h"
#include "smc_ring.h"

#define SMCD_DMB_HDR_LEN	32	/* CDC header at the start of a DMB */
#define SMCD_DMB_MIN_LEN	(16 * 1024)
#define SMCD_DMB_MAX_CLASS	6	/* 16 KiB << 6 = 1 MiB */

#define SMC_LO_CHID		0xFFFF	/* loopback-ism's virtual CHID */
#define SMC_LO_MAX_DMBS		5000

/* A 128-bit GID; native ISM devices use only the upper half */
struct smcd_gid {
	u64	gid;
	u64	gid_ext;
};

static inline bool smcd_gid_equal(const struct smcd_gid *a,
				  const struct smcd_gid *b)
{
	return a->gid == b->gid && a->gid_ext == b->gid_ext;
}

/*
 * One end of a connection, as a device tells who may attach a DMB:
 * register_dmb() names the end a DMB is for (the owner's peer),
 * attach_dmb() the end that asks for it (self).
 *   @gid	the end's device
 *   @conn	the connection, as its two ends and no other know it.  On
 *		loopback-ism all ends share one GID and this is what keeps
 *		connections apart (see smcd_conn_id() in smcd_conn.c).
 *   @token	the end's own DMB; 0 while it has none (the server
 *		registers its DMB before the client has one)
 */
struct smcd_end {
	struct smcd_gid	gid;
	u64		conn;
	u64		token;
};

struct dentry;
struct smcd_dev;
struct smcd_dmb;

/*
 * Called when the peer has written a new CDC header into @dmb; @priv
 * is the owner's, see struct smcd_dmb.
 */
typedef void (*smcd_dmb_notify_t)(struct smcd_dmb *dmb, void *priv);

struct smcd_dmb {
	/* the CDC header the peer writes, apart from the ring's pages:
	 * cleared at registration; then the attached peer writes whole
	 * words under its tx_lock (WRITE_ONCE), the owner's handler reads
	 * them with READ_ONCE
	 */
	u8			hdr[SMCD_DMB_HDR_LEN] __aligned(8);
	/* set at registration, before the token is hashed (device lock) */
	u64			token;
	/* the data ring, len - SMCD_DMB_HDR_LEN bytes (smc_ring.h): the
	 * owner sets its window before the peer attaches, then only the
	 * peer, its sender, changes it
	 */
	struct smc_ring_pages	ring;
	/* set when the DMB is made (a pooled one keeps them) */
	u32			len;		/* whole DMB */
	u32			sba_idx;	/* set at registration */
	u8			size_class;	/* len == 16 KiB << size_class */
	struct smcd_dev		*dev;
	refcount_t		refs;		/* owner and attachers */
	/* in the device's token table and pool: the device's lock */
	struct hlist_node	token_node;
	struct list_head	pool_node;
	/* who may attach it: set at registration, read under the
	 * device's lock; attached (by @peer, once for good) under it
	 */
	struct smcd_end		peer;
	bool			attached;
	/*
	 * The owner's receive handler and its argument, set before the
	 * token is given out; the owner clears @priv before it goes away.
	 * It does not wait for the RCU readers (doorbells) that found it:
	 * its sock is freed after a grace period, and its ring is cleared
	 * under its rx_lock, which they take.
	 */
	smcd_dmb_notify_t	notify;
	void __rcu		*priv;
};

struct smcd_dev_ops {
	/* new DMB of @len bytes that only @peer may write; header zeroed */
	struct smcd_dmb *(*register_dmb)(struct smcd_dev *dev, u32 len,
					 const struct smcd_end *peer);
	/* the owner is done with @dmb */
	void (*unregister_dmb)(struct smcd_dev *dev, struct smcd_dmb *dmb);
	/*
	 * Map the peer's DMB @token as @self's send buffer (no-copy
	 * devices): only if @self is the end it was registered for, is
	 * not its owner and is the first to ask.  Every refusal is
	 * -ENOENT, the answer for an unknown token.
	 */
	struct smcd_dmb *(*attach_dmb)(struct smcd_dev *dev, u64 token,
				       const struct smcd_end *self);
	void (*detach_dmb)(struct smcd_dev *dev, struct smcd_dmb *dmb);
	/* can this device reach the device with GID @gid? */
	bool (*gid_reachable)(struct smcd_dev *dev,
			      const struct smcd_gid *gid);
};

struct smcd_dev {
	/* set before it is registered, read-only after */
	const struct smcd_dev_ops	*ops;
	const char			*name;
	struct smcd_gid			gid;
	u16				chid;
	bool				nocopy;	/* attach_dmb works */
	/* in smcd_devices, under smcd_devices_lock */
	struct list_head		list;
	refcount_t			refs;
	/* from the PNET ID table, under smcd_devices_lock */
	char				pnetid[SMC_PNETID_LEN + 1];
};

/* CHIDs 0xFF00..0xFFFF are emulated devices with 128-bit GIDs */
static inline bool smcd_chid_is_emulated(u16 chid)
{
	return chid >= 0xFF00;
}

static inline u32 smcd_dmb_class_len(u8 size_class)
{
	return SMCD_DMB_MIN_LEN << size_class;
}

/* Write the peer's DMB header and ring its doorbell */
void smcd_dmb_signal(struct smcd_dmb *dmb);

/* smc_ism.c: the registry of SMC-D devices */
int smcd_dev_register(struct smcd_dev *dev);
void smcd_dev_unregister(struct smcd_dev *dev);
struct smcd_dev *smcd_dev_find_by_chid(u16 chid);
struct smcd_dev *smcd_dev_get_loopback(void);
void smcd_dev_put(struct smcd_dev *dev);

/* One more reference, for a caller that holds one */
static inline struct smcd_dev *smcd_dev_hold(struct smcd_dev *dev)
{
	refcount_inc(&dev->refs);
	return dev;
}

int smcd_dev_pnet_set(const char *name, const char *pnetid);
void smcd_dev_pnet_clear(const char *name, const char *pnetid);
void smcd_dev_pnetid(struct smcd_dev *dev, char *pnetid);

/* smc_loopback.c */
int smc_loopback_init(struct dentry *debugfs);
void smc_loopback_exit(void);

#endif /* __SMC_ISM_H */
