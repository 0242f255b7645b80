// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-R in debugfs (/sys/kernel/debug/smc).
 *
 * What the tests and a developer read: every link of every group
 * (smcr-linkgroups), and the rkeys of our RMBs and of the peer's
 * (smcr-rkeys).  What the tests write, root only: a link's QP into the
 * error state (smcr-link-error), an RDMA write of a hostile peer
 * (smcr-rdma-write), misbehaviour of our LLC end (smcr-llc-test) and
 * mutated sends (smcr-mutate, smcr_mutate.c).
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "smc_ism.h"
#include "smc_sock.h"
#include "smcr_dev.h"
#include "smcr.h"

static struct dentry *smcr_lgr_debugfs;
static struct dentry *smcr_link_error_debugfs;
static struct dentry *smcr_rkeys_debugfs;
static struct dentry *smcr_rdma_write_debugfs;

static const char *const smcr_link_states[] = {
	[SMCR_LINK_ACTIVATING]	= "activating",
	[SMCR_LINK_ACTIVE]	= "active",
	[SMCR_LINK_DOWN]	= "down",
};

/* One line a link: its group's role and connections, where it runs */
static int smcr_lgrs_show(struct seq_file *m, void *v)
{
	struct smcr_link *link;
	struct smcr_lgr *lgr;
	unsigned int i;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		for (i = 0; i < SMCR_LINKS; i++) {
			link = lgr->links[i];
			if (!link)
				continue;
			seq_printf(m, "id %u role %s v %u conns %u link %u state %s dev %s port %u qp %u vector %u peer %pI6c testlinks %u moved %u\n",
				   lgr->id, lgr->role == SMCR_LGR_SERVER ?
				   "server" : "client", lgr->version,
				   lgr->conns, link->id,
				   smcr_link_states[READ_ONCE(link->state)],
				   dev_name(&link->dev->ibdev->dev),
				   link->port, link->qp_num, link->vec,
				   link->peer_gid, READ_ONCE(link->testlinks),
				   lgr->moved);
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smcr_lgrs);

/*
 * Tests: per group, the links the server tried to add, the rkeys and
 * addresses of our RMBs on each link slot, and those of the peer's
 * RMBs as the peer told us (CLC, CONFIRM RKEY, ADD LINK)
 */
static int smcr_rkeys_show(struct seq_file *m, void *v)
{
	struct smcr_rtok *rt;
	struct smcr_lgr *lgr;
	struct smcr_buf *buf;
	unsigned int i, j;

	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		seq_printf(m, "lgr %u role %s adds %u\n", lgr->id,
			   lgr->role == SMCR_LGR_SERVER ? "server" : "client",
			   READ_ONCE(lgr->adds));
		mutex_lock(&lgr->buf_lock);
		list_for_each_entry(buf, &lgr->bufs, node) {
			if (!buf->rmb || !buf->used)
				continue;
			for (i = 0; i < SMCR_LINKS; i++)
				if (buf->map[i].mr)
					seq_printf(m, "rmb %u %#x %#llx\n", i,
						   buf->map[i].rkey,
						   buf->map[i].iova);
		}
		mutex_unlock(&lgr->buf_lock);
		spin_lock_bh(&lgr->rtok_lock);
		for (j = 0; j < SMCR_RTOKS; j++) {
			rt = &lgr->rtoks[j];
			if (!rt->used)
				continue;
			for (i = 0; i < SMCR_LINKS; i++)
				if (rt->valid & BIT(i))
					seq_printf(m, "rtok %u %#x %#llx\n", i,
						   rt->rkey[i], rt->addr[i]);
		}
		spin_unlock_bh(&lgr->rtok_lock);
	}
	mutex_unlock(&smcr_lgrs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smcr_rkeys);

/* A test's line of @len bytes from @ubuf, as a string in @buf */
static int smcr_debugfs_line(char *buf, size_t size, const char __user *ubuf,
			     size_t len)
{
	if (!len || len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

/*
 * Tests: "GROUP LINK" written to smcr-link-error puts that link's QP in
 * the error state, as a device does when a work request fails; the
 * completions flushed then take the link down as for a real failure.
 */
static ssize_t smcr_link_error_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct smcr_link *link;
	struct smcr_lgr *lgr;
	u32 lgr_id, link_id;
	char buf[32];
	int rc;

	rc = smcr_debugfs_line(buf, sizeof(buf), ubuf, len);
	if (rc)
		return rc;
	if (sscanf(buf, "%u %u", &lgr_id, &link_id) != 2)
		return -EINVAL;
	rc = -ENOENT;
	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (lgr->id != lgr_id)
			continue;
		link = link_id <= U8_MAX ? smcr_llc_link_by_id(lgr, link_id) :
					   NULL;
		if (link && link->qp &&
		    READ_ONCE(link->state) == SMCR_LINK_ACTIVE)
			rc = ib_modify_qp(link->qp, &attr, IB_QP_STATE);
		break;
	}
	mutex_unlock(&smcr_lgrs_lock);
	return rc ?: len;
}

static const struct file_operations smcr_link_error_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= smcr_link_error_write,
	.llseek	= noop_llseek,
};

/*
 * Tests: "GROUP LINK RKEY ADDR" written to smcr-rdma-write makes that
 * link write 8 bytes to RKEY at ADDR of its peer, as a hostile peer
 * would; the write() fails with -EACCES when the peer refused the key.
 */
static ssize_t smcr_rdma_write_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	struct smcr_lgr *lgr, *found = NULL;
	struct smcr_link *link;
	u32 lgr_id, link_id, rkey;
	char buf[64];
	u64 addr;
	int rc;

	rc = smcr_debugfs_line(buf, sizeof(buf), ubuf, len);
	if (rc)
		return rc;
	if (sscanf(buf, "%u %u %x %llx", &lgr_id, &link_id, &rkey,
		   &addr) != 4 || link_id > U8_MAX)
		return -EINVAL;
	rc = -ENOENT;
	mutex_lock(&smcr_lgrs_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (lgr->id == lgr_id && refcount_inc_not_zero(&lgr->refs)) {
			found = lgr;
			break;
		}
	}
	mutex_unlock(&smcr_lgrs_lock);
	if (!found)
		return rc;
	/* no link is released meanwhile */
	mutex_lock(&found->llc_flow);
	link = smcr_llc_link_by_id(found, link_id);
	if (link && link->qp && READ_ONCE(link->state) == SMCR_LINK_ACTIVE)
		rc = smcr_link_test_write(link, rkey, addr);
	mutex_unlock(&found->llc_flow);
	smcr_lgr_put(found);
	return rc ?: len;
}

static const struct file_operations smcr_rdma_write_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= smcr_rdma_write_write,
	.llseek	= noop_llseek,
};

void smcr_debugfs_init(struct dentry *debugfs)
{
	smcr_lgr_debugfs = debugfs_create_file("smcr-linkgroups", 0444,
					       debugfs, NULL,
					       &smcr_lgrs_fops);
	smcr_link_error_debugfs = debugfs_create_file("smcr-link-error",
						      0200, debugfs, NULL,
						      &smcr_link_error_fops);
	smcr_rkeys_debugfs = debugfs_create_file("smcr-rkeys", 0400, debugfs,
						 NULL, &smcr_rkeys_fops);
	smcr_rdma_write_debugfs = debugfs_create_file("smcr-rdma-write", 0200,
						      debugfs, NULL,
						      &smcr_rdma_write_fops);
	/* removed with the directory */
	debugfs_create_u8("smcr-llc-test", 0600, debugfs, &smcr_llc_test);
	smcr_mutate_init(debugfs);
}

void smcr_debugfs_exit(void)
{
	smcr_mutate_exit();
	debugfs_remove(smcr_rdma_write_debugfs);
	smcr_rdma_write_debugfs = NULL;
	debugfs_remove(smcr_rkeys_debugfs);
	smcr_rkeys_debugfs = NULL;
	debugfs_remove(smcr_link_error_debugfs);
	smcr_link_error_debugfs = NULL;
	debugfs_remove(smcr_lgr_debugfs);
	smcr_lgr_debugfs = NULL;
}
