// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the buffers of an SMC-R link group.
 *
 * A buffer of the group's pool is mapped for the device of every link
 * (RDMA writes read send buffers, the peer's writes fill RMBs), and an
 * RMB has a memory region on every link, each with its own rkey.  A
 * link registers the RMBs once it can post (RTS); from then on a new
 * RMB is registered on it as it is made.  Connections take buffers
 * from the pool and give them back; they go with the group, but for an
 * RMB the peer may still write: its regions go first, then the RMB.
 *
 * Everything here runs under buf_lock, which orders the mappings with
 * the links coming and going (lgr->links[] changes under it too).
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/rcupdate.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smcr_dev.h"
#include "smcr.h"

static void smcr_buf_unmap(struct smcr_buf *buf, struct smcr_link *link)
{
	struct smcr_buf_map *mp = &buf->map[link->idx];
	struct ib_device *ibdev = link->dev->ibdev;

	lockdep_assert_held(&link->lgr->buf_lock);
	if (mp->mr) {
		ib_dereg_mr(mp->mr);
		mp->mr = NULL;
	}
	if (mp->dma) {
		ib_dma_unmap_single(ibdev, mp->dma, buf->len,
				    DMA_BIDIRECTIONAL);
		mp->dma = 0;
	}
	if (mp->sgt.nents) {
		ib_dma_unmap_sg(ibdev, mp->sgt.sgl, mp->sgt.orig_nents,
				DMA_BIDIRECTIONAL);
		mp->sgt.nents = 0;
	}
	if (mp->sgt.sgl)
		sg_free_table(&mp->sgt);
	mp->registered = false;
}

/* A vmalloc'ed @buf for @ibdev, page by page; 0 or -ENOMEM */
static int smcr_buf_map_pages(struct smcr_buf *buf, struct ib_device *ibdev,
			      struct smcr_buf_map *mp)
{
	unsigned int i, pages = buf->len >> PAGE_SHIFT;
	struct scatterlist *sg;
	int nents;

	if (sg_alloc_table(&mp->sgt, pages, GFP_KERNEL))
		return -ENOMEM;
	for_each_sg(mp->sgt.sgl, sg, pages, i)
		sg_set_page(sg, vmalloc_to_page(buf->cpu + i * PAGE_SIZE),
			    PAGE_SIZE, 0);
	nents = ib_dma_map_sg(ibdev, mp->sgt.sgl, pages, DMA_BIDIRECTIONAL);
	if (nents <= 0)
		return -ENOMEM;
	mp->sgt.nents = nents;
	return 0;
}

/*
 * @buf for @link's device.  An RMB gets its memory region there for
 * the peer's writes; so does a vmalloc'ed send buffer, whose pages our
 * writes can only gather through a region (its lkey and iova).
 */
static int smcr_buf_map(struct smcr_buf *buf, struct smcr_link *link)
{
	struct smcr_buf_map *mp = &buf->map[link->idx];
	struct ib_device *ibdev = link->dev->ibdev;
	struct scatterlist one, *sgl = &one;
	int nents = 1;
	u64 dma;

	lockdep_assert_held(&link->lgr->buf_lock);
	if (mp->dma || mp->sgt.nents)
		return 0;
	if (buf->virt) {
		if (smcr_buf_map_pages(buf, ibdev, mp))
			goto out;
		sgl = mp->sgt.sgl;
		nents = mp->sgt.nents;
	} else {
		dma = ib_dma_map_single(ibdev, buf->cpu, buf->len,
					DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(ibdev, dma))
			return -ENOMEM;
		mp->dma = dma;
		if (!buf->rmb)
			return 0;
		sg_init_table(&one, 1);
		sg_dma_address(&one) = dma;
		sg_dma_len(&one) = buf->len;
	}
	mp->mr = ib_alloc_mr(link->pd->pd, IB_MR_TYPE_MEM_REG,
			     DIV_ROUND_UP(buf->len, PAGE_SIZE));
	if (IS_ERR(mp->mr)) {
		mp->mr = NULL;
		goto out;
	}
	if (ib_map_mr_sg(mp->mr, sgl, nents, NULL, PAGE_SIZE) != nents)
		goto out;
	/* what the peer uses, kept for when the MR is gone */
	mp->rkey = mp->mr->rkey;
	mp->iova = mp->mr->iova;
	return 0;
out:
	smcr_buf_unmap(buf, link);
	return -ENOMEM;
}

/* A vmalloc'ed send buffer, written by the CPU, for the device */
void smcr_buf_sync_pages(struct ib_device *ibdev, struct smcr_buf_map *mp)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sg(mp->sgt.sgl, sg, mp->sgt.nents, i)
		ib_dma_sync_single_for_device(ibdev, sg_dma_address(sg),
					      sg_dma_len(sg), DMA_TO_DEVICE);
}

/* Does @buf need a REG_MR on every link? */
static bool smcr_buf_regd(const struct smcr_buf *buf)
{
	return buf->rmb || buf->virt;
}

/* The group is freed: its mappings went with its links already */
void smcr_buf_free(struct smcr_lgr *lgr, struct smcr_buf *buf)
{
	if (buf->virt)
		vfree(buf->cpu);
	else
		free_pages((unsigned long)buf->cpu, get_order(buf->len));
	kfree(buf);
}

/* The memory of a new buffer, after net.smc.smcr_buf_type */
static int smcr_buf_mem(struct smcr_buf *buf, u8 type)
{
	if (type != SMCR_BUF_VIRT) {
		buf->cpu = (void *)__get_free_pages(GFP_KERNEL |
						    __GFP_NOWARN |
						    __GFP_NORETRY |
						    __GFP_ZERO,
						    get_order(buf->len));
		if (buf->cpu || type == SMCR_BUF_PHYS)
			return buf->cpu ? 0 : -ENOMEM;
	}
	buf->cpu = vzalloc(buf->len);
	buf->virt = true;
	return buf->cpu ? 0 : -ENOMEM;
}

static struct smcr_buf *smcr_buf_new(struct smcr_lgr *lgr, u8 comp,
				     bool rmb)
{
	struct smcr_buf *buf;
	unsigned int i;

	lockdep_assert_held(&lgr->buf_lock);
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->len = smc_buf_uncompress(comp);
	buf->comp = comp;
	buf->rmb = rmb;
	if (smcr_buf_mem(buf, lgr->buf_type)) {
		kfree(buf);
		return NULL;
	}
	for (i = 0; i < SMCR_LINKS; i++)
		if (lgr->links[i] && smcr_buf_map(buf, lgr->links[i]))
			goto out_unmap;
	return buf;

out_unmap:
	for (i = 0; i < SMCR_LINKS; i++)
		if (lgr->links[i])
			smcr_buf_unmap(buf, lgr->links[i]);
	smcr_buf_free(lgr, buf);
	return NULL;
}

/*
 * Register @buf on the links that take registrations.  A link
 * failing at it goes down (and is replaced); only a failure on every
 * link fails the buffer.
 */
static int smcr_buf_reg(struct smcr_lgr *lgr, struct smcr_buf *buf)
{
	struct smcr_link *link;
	int rc = 0, ok = 0;
	unsigned int i;

	lockdep_assert_held(&lgr->buf_lock);
	for (i = 0; i < SMCR_LINKS; i++) {
		link = lgr->links[i];
		if (!link || !link->regs)
			continue;
		if (!buf->map[i].registered) {
			rc = smcr_link_reg_buf(link, buf);
			if (rc)
				continue;
			buf->map[i].registered = true;
		}
		ok++;
	}
	return ok ? 0 : rc;
}

/*
 * A buffer of @lgr for a new connection, of at most 16 KiB << @comp
 * bytes (smaller ones when memory is short): a free one of the pool,
 * else a new one, mapped on every link and, for an RMB, registered on
 * the links that are up.  A send buffer whose last connection's writes
 * are still queued is not free yet: the device reads it as it sends.
 */
struct smcr_buf *smcr_buf_get(struct smcr_lgr *lgr, u8 comp, bool rmb,
			      bool *reused)
{
	struct smcr_buf *buf, *found = NULL;
	int c;

	mutex_lock(&lgr->buf_lock);
	/* the group ended: its devices may be gone */
	if (lgr->hw_gone)
		goto out;
	list_for_each_entry(buf, &lgr->bufs, node) {
		if (!buf->used && buf->rmb == rmb && buf->comp == comp &&
		    !atomic_read_acquire(&buf->writing)) {
			found = buf;
			*reused = true;
			memset(buf->cpu, 0, buf->len);
			break;
		}
	}
	for (c = comp; !found && c >= 0; c--) {
		found = smcr_buf_new(lgr, c, rmb);
		if (found)
			list_add(&found->node, &lgr->bufs);
	}
	if (found && smcr_buf_regd(found) && smcr_buf_reg(lgr, found))
		found = NULL;	/* stays in the pool, unused */
	if (found)
		found->used = true;
out:
	mutex_unlock(&lgr->buf_lock);
	return found;
}

void smcr_buf_put(struct smcr_lgr *lgr, struct smcr_buf *buf)
{
	if (!buf)
		return;
	mutex_lock(&lgr->buf_lock);
	buf->used = false;
	mutex_unlock(&lgr->buf_lock);
}

/*
 * @buf, an RMB the peer may still hold rkeys of, leaves the group: its
 * memory regions go on every link before the memory is freed, so that
 * a late RDMA write of the peer fails instead of landing in what the
 * memory becomes.  Links come and go under llc_flow: taken.  Process
 * context; the connection left the token table already.
 */
void smcr_buf_retire(struct smcr_lgr *lgr, struct smcr_buf *buf)
{
	unsigned int i;

	if (!buf)
		return;
	mutex_lock(&lgr->llc_flow);
	mutex_lock(&lgr->buf_lock);
	/* an ended group's mappings went with its links */
	for (i = 0; i < SMCR_LINKS && !lgr->hw_gone; i++)
		if (lgr->links[i])
			smcr_buf_unmap(buf, lgr->links[i]);
	list_del(&buf->node);
	mutex_unlock(&lgr->buf_lock);
	mutex_unlock(&lgr->llc_flow);
	/* a CDC handler that found the connection may still look at it */
	synchronize_rcu();
	smcr_buf_free(lgr, buf);
}

/* A new link (in lgr->links[] already): every buffer mapped on it */
int smcr_bufs_map_link(struct smcr_lgr *lgr, struct smcr_link *link)
{
	struct smcr_buf *buf;
	int rc = 0;

	mutex_lock(&lgr->buf_lock);
	list_for_each_entry(buf, &lgr->bufs, node) {
		rc = smcr_buf_map(buf, link);
		if (rc)
			break;
	}
	mutex_unlock(&lgr->buf_lock);
	return rc;
}

/* @link can post: register every RMB (and vmalloc'ed buffer) on it */
int smcr_bufs_reg_link(struct smcr_lgr *lgr, struct smcr_link *link)
{
	struct smcr_buf_map *mp;
	struct smcr_buf *buf;
	int rc = 0;

	mutex_lock(&lgr->buf_lock);
	list_for_each_entry(buf, &lgr->bufs, node) {
		mp = &buf->map[link->idx];
		if (!smcr_buf_regd(buf) || mp->registered)
			continue;
		rc = mp->mr ? smcr_link_reg_buf(link, buf) : -ENOMEM;
		if (rc)
			break;
		mp->registered = true;
	}
	if (!rc)
		link->regs = true;
	mutex_unlock(&lgr->buf_lock);
	return rc;
}

/* @link is stopped: its memory regions and mappings go */
void smcr_bufs_unmap_link(struct smcr_lgr *lgr, struct smcr_link *link)
{
	struct smcr_buf *buf;

	mutex_lock(&lgr->buf_lock);
	link->regs = false;
	list_for_each_entry(buf, &lgr->bufs, node)
		smcr_buf_unmap(buf, link);
	mutex_unlock(&lgr->buf_lock);
}

/*
 * The ADD LINK triples of our RMBs in use: each as the peer knows it
 * on @from, and as it is on @to.  Returns how many, at most @max.
 */
unsigned int smcr_bufs_rkeys(struct smcr_lgr *lgr, struct smcr_link *from,
			     struct smcr_link *to, struct smc_llc_rkey *rk,
			     unsigned int max)
{
	const struct smcr_buf_map *f, *t;
	struct smcr_buf *buf;
	unsigned int n = 0;

	mutex_lock(&lgr->buf_lock);
	list_for_each_entry(buf, &lgr->bufs, node) {
		f = &buf->map[from->idx];
		t = &buf->map[to->idx];
		if (!buf->rmb || !buf->used || !f->mr || !t->mr || n == max)
			continue;
		rk[n].rkey = f->rkey;
		rk[n].rkey_new = t->rkey;
		rk[n].addr_new = t->iova;
		n++;
	}
	mutex_unlock(&lgr->buf_lock);
	return n;
}
