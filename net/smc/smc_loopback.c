// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: loopback-ism.
 *
 * A software SMC-D device for connections inside one kernel.  A DMB is
 * plain kernel memory; "writing into the peer's DMB" is a memcpy, and
 * the doorbell is a direct call of the owner's receive handler.  A
 * sender may attach the peer's DMB and use it as its send buffer, so
 * data is copied once, from the sending application into the buffer
 * the receiving application reads from.  A DMB is registered for one
 * end of one connection (see struct smcd_end), and only that end may
 * attach it, once: a peer that names another connection's token, or
 * our own, gets the answer of an unknown token.
 *
 * A DMB's ring is made of pages that exist once the sender has written
 * into them (smc_ring.c): an idle connection costs its two DMB
 * structures, not their rings.  DMBs are pooled per size class with the
 * first pages they have: a short connection takes a DMB from the pool
 * and only the 32-byte header needs clearing, since a reader never
 * looks at ring bytes the peer has not produced.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/debugfs.h>
#include <linux/hashtable.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uuid.h>

#include "smc_ism.h"
#include "smc_ring.h"

#define SMC_LO_TOKEN_BITS	12
/*
 * Idle DMBs kept per size class.  A pooled DMB holds its page array and
 * at most its first few ring pages (smc_ring_pages_shrink()), whatever
 * its class.
 */
#define SMC_LO_POOL_MAX		64

struct smc_lo_dev {
	struct smcd_dev		smcd;
	/* (bh) tokens, pool and pool_len; and of each DMB its hash and
	 * pool nodes, peer and attached
	 */
	spinlock_t		lock;
	DECLARE_HASHTABLE(tokens, SMC_LO_TOKEN_BITS);
	struct ida		sba_ida;	/* locks itself */
	struct list_head	pool[SMCD_DMB_MAX_CLASS + 1];
	unsigned int		pool_len[SMCD_DMB_MAX_CLASS + 1];
	/* for debugfs and the leak tests: not on any fast path */
	atomic_t		registered;
	atomic_t		attached;
	struct dentry		*debugfs;	/* set at init */
};

static struct smc_lo_dev *smc_lo;

static struct smc_lo_dev *smc_lo_of(struct smcd_dev *dev)
{
	return container_of(dev, struct smc_lo_dev, smcd);
}

/* lo->lock held */
static struct smcd_dmb *smc_lo_find(struct smc_lo_dev *lo, u64 token)
{
	struct smcd_dmb *dmb;

	lockdep_assert_held(&lo->lock);
	hash_for_each_possible(lo->tokens, dmb, token_node, token)
		if (dmb->token == token)
			return dmb;
	return NULL;
}

static void smc_lo_dmb_free(struct smcd_dmb *dmb)
{
	smc_ring_pages_free(&dmb->ring);
	kfree(dmb);
}

/* The last reference is gone: back to the pool, or freed */
static void smc_lo_dmb_put(struct smc_lo_dev *lo, struct smcd_dmb *dmb)
{
	u8 c = dmb->size_class;

	if (!refcount_dec_and_test(&dmb->refs))
		return;
	ida_free(&lo->sba_ida, dmb->sba_idx);
	smc_ring_pages_shrink(&dmb->ring);
	spin_lock_bh(&lo->lock);
	if (lo->pool_len[c] < SMC_LO_POOL_MAX) {
		list_add(&dmb->pool_node, &lo->pool[c]);
		lo->pool_len[c]++;
		dmb = NULL;
	}
	spin_unlock_bh(&lo->lock);
	if (dmb)
		smc_lo_dmb_free(dmb);
}

static struct smcd_dmb *smc_lo_dmb_alloc(struct smc_lo_dev *lo, u8 c)
{
	struct smcd_dmb *dmb = NULL;

	spin_lock_bh(&lo->lock);
	if (lo->pool_len[c]) {
		dmb = list_first_entry(&lo->pool[c], struct smcd_dmb,
				       pool_node);
		list_del(&dmb->pool_node);
		lo->pool_len[c]--;
	}
	spin_unlock_bh(&lo->lock);
	if (dmb)
		return dmb;

	/* charged to the memory cgroup of the task that makes the DMB */
	dmb = kzalloc(sizeof(*dmb), GFP_KERNEL_ACCOUNT);
	if (!dmb)
		return NULL;
	dmb->len = smcd_dmb_class_len(c);
	dmb->size_class = c;
	dmb->dev = &lo->smcd;
	smc_ring_pages_init(&dmb->ring, dmb->len - SMCD_DMB_HDR_LEN);
	return dmb;
}

static struct smcd_dmb *smc_lo_register_dmb(struct smcd_dev *dev, u32 len,
					    const struct smcd_end *peer)
{
	struct smc_lo_dev *lo = smc_lo_of(dev);
	struct smcd_dmb *dmb;
	u8 c;
	int idx;

	for (c = 0; c <= SMCD_DMB_MAX_CLASS; c++)
		if (smcd_dmb_class_len(c) == len)
			break;
	if (c > SMCD_DMB_MAX_CLASS)
		return ERR_PTR(-EINVAL);

	idx = ida_alloc_max(&lo->sba_ida, SMC_LO_MAX_DMBS - 1, GFP_KERNEL);
	if (idx < 0)
		return ERR_PTR(idx == -ENOSPC ? -ENOSPC : -ENOMEM);
	dmb = smc_lo_dmb_alloc(lo, c);
	if (!dmb) {
		ida_free(&lo->sba_ida, idx);
		return ERR_PTR(-ENOMEM);
	}

	memset(dmb->hdr, 0, SMCD_DMB_HDR_LEN);
	dmb->sba_idx = idx;
	dmb->notify = NULL;
	RCU_INIT_POINTER(dmb->priv, NULL);
	refcount_set(&dmb->refs, 1);
	dmb->peer = *peer;
	dmb->attached = false;

	spin_lock_bh(&lo->lock);
	/* the batched generator: a chacha block per token costs too much */
	do {
		dmb->token = get_random_u64();
	} while (!dmb->token || smc_lo_find(lo, dmb->token));
	hash_add(lo->tokens, &dmb->token_node, dmb->token);
	spin_unlock_bh(&lo->lock);
	atomic_inc(&lo->registered);
	return dmb;
}

static void smc_lo_unregister_dmb(struct smcd_dev *dev, struct smcd_dmb *dmb)
{
	struct smc_lo_dev *lo = smc_lo_of(dev);

	/* no new attachers; present ones keep the memory alive */
	spin_lock_bh(&lo->lock);
	hash_del(&dmb->token_node);
	spin_unlock_bh(&lo->lock);
	atomic_dec(&lo->registered);
	smc_lo_dmb_put(lo, dmb);
}

/*
 * Is @self the end @dmb was registered for, other than its owner, and
 * the first to ask?  lo->lock held.
 */
static bool smc_lo_may_attach(const struct smcd_dmb *dmb,
			      const struct smcd_end *self)
{
	const struct smcd_end *p = &dmb->peer;

	lockdep_assert_held(&smc_lo_of(dmb->dev)->lock);
	if (dmb->attached || !self->token || self->token == dmb->token)
		return false;
	if (p->token && p->token != self->token)
		return false;
	return p->conn == self->conn && p->gid.gid == self->gid.gid &&
	       p->gid.gid_ext == self->gid.gid_ext;
}

static struct smcd_dmb *smc_lo_attach_dmb(struct smcd_dev *dev, u64 token,
					  const struct smcd_end *self)
{
	struct smc_lo_dev *lo = smc_lo_of(dev);
	struct smcd_dmb *dmb;

	spin_lock_bh(&lo->lock);
	dmb = smc_lo_find(lo, token);
	if (dmb && (!smc_lo_may_attach(dmb, self) ||
		    !refcount_inc_not_zero(&dmb->refs)))
		dmb = NULL;
	if (dmb)
		dmb->attached = true;
	spin_unlock_bh(&lo->lock);
	if (!dmb)
		return ERR_PTR(-ENOENT);
	atomic_inc(&lo->attached);
	return dmb;
}

static void smc_lo_detach_dmb(struct smcd_dev *dev, struct smcd_dmb *dmb)
{
	struct smc_lo_dev *lo = smc_lo_of(dev);

	atomic_dec(&lo->attached);
	smc_lo_dmb_put(lo, dmb);
}

static bool smc_lo_gid_reachable(struct smcd_dev *dev,
				 const struct smcd_gid *gid)
{
	return gid->gid == dev->gid.gid && gid->gid_ext == dev->gid.gid_ext;
}

static const struct smcd_dev_ops smc_lo_ops = {
	.register_dmb	= smc_lo_register_dmb,
	.unregister_dmb	= smc_lo_unregister_dmb,
	.attach_dmb	= smc_lo_attach_dmb,
	.detach_dmb	= smc_lo_detach_dmb,
	.gid_reachable	= smc_lo_gid_reachable,
};

static int smc_lo_debugfs_show(struct seq_file *m, void *v)
{
	char pnetid[SMC_PNETID_LEN + 1];
	struct smc_lo_dev *lo = m->private;
	unsigned int pooled = 0;
	u8 c;

	spin_lock_bh(&lo->lock);
	for (c = 0; c <= SMCD_DMB_MAX_CLASS; c++)
		pooled += lo->pool_len[c];
	spin_unlock_bh(&lo->lock);
	seq_printf(m, "dmbs_registered %d\n", atomic_read(&lo->registered));
	seq_printf(m, "dmbs_attached %d\n", atomic_read(&lo->attached));
	seq_printf(m, "dmbs_pooled %u\n", pooled);
	/* the rings' pages that exist, pooled DMBs' included */
	seq_printf(m, "dmb_bytes %ld\n", smc_ring_pages_bytes());
	smcd_dev_pnetid(&lo->smcd, pnetid);
	seq_printf(m, "pnetid %s\n", pnetid[0] ? pnetid : "-");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_lo_debugfs);

int smc_loopback_init(struct dentry *debugfs)
{
	struct smc_lo_dev *lo;
	__be64 half[2];
	uuid_t uuid;
	u8 c;

	lo = kzalloc(sizeof(*lo), GFP_KERNEL);
	if (!lo)
		return -ENOMEM;
	spin_lock_init(&lo->lock);
	hash_init(lo->tokens);
	ida_init(&lo->sba_ida);
	for (c = 0; c <= SMCD_DMB_MAX_CLASS; c++)
		INIT_LIST_HEAD(&lo->pool[c]);

	/* the GID is the bytes of a random UUID, read big-endian */
	uuid_gen(&uuid);
	memcpy(half, uuid.b, sizeof(half));
	lo->smcd.gid.gid = be64_to_cpu(half[0]);
	lo->smcd.gid.gid_ext = be64_to_cpu(half[1]);
	lo->smcd.ops = &smc_lo_ops;
	lo->smcd.name = "loopback-ism";
	lo->smcd.chid = SMC_LO_CHID;
	lo->smcd.nocopy = true;

	smc_lo = lo;
	/* debugfs is optional: failures are not errors */
	lo->debugfs = debugfs_create_file("loopback-ism", 0444, debugfs, lo,
					  &smc_lo_debugfs_fops);
	return smcd_dev_register(&lo->smcd);
}

void smc_loopback_exit(void)
{
	struct smc_lo_dev *lo = smc_lo;
	struct smcd_dmb *dmb, *tmp;
	u8 c;

	if (!lo)
		return;
	smcd_dev_unregister(&lo->smcd);
	debugfs_remove(lo->debugfs);
	WARN_ON(!hash_empty(lo->tokens));
	for (c = 0; c <= SMCD_DMB_MAX_CLASS; c++)
		list_for_each_entry_safe(dmb, tmp, &lo->pool[c], pool_node)
			smc_lo_dmb_free(dmb);
	ida_destroy(&lo->sba_ida);
	kfree(lo);
	smc_lo = NULL;
}
