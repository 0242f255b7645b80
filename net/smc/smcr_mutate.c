// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: an SMC-R end that mutates what it sends,
 * for the fuzzing lane.
 *
 * debugfs smcr-mutate (root only) makes the links of one RDMA device in
 * one role (client or server groups) a hostile peer: each CDC or LLC
 * message they post is, with a given chance, changed before it goes out:
 * bits flipped, a byte or a 32-bit field set to a value parsers trip
 * over, the message cut short, or a message sent earlier by the same end
 * (another connection's, another group's) replayed in its place.  The
 * other end, this same module on the other device, must drop or abort
 * whatever arrives, and nothing else: the lane checks that with traffic
 * of its own.  Every choice comes from one seeded generator, so a run
 * replays from its seed as far as the order of sends allows.
 *
 *   echo "SEED PERMILLE IBDEV client|server|any" > smcr-mutate
 *   echo off > smcr-mutate
 *   cat smcr-mutate      the settings, the counts, the last mutations
 *
 * Off, the hook in the send path is a static branch that is never taken.
 */
#include <linux/debugfs.h>
#include <linux/jump_label.h>
#include <linux/prandom.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "smc_cdc_wire.h"
#include "smcr_dev.h"
#include "smcr.h"

DEFINE_STATIC_KEY_FALSE(smcr_mutate_key);

enum smcr_mutate_kind {
	SMCR_MUT_FLIP,		/* 1 to 4 bits */
	SMCR_MUT_BYTE,		/* one byte: a random or edge value */
	SMCR_MUT_WORD,		/* an aligned __be32: an edge value */
	SMCR_MUT_TRUNC,		/* the message cut to 1..len - 1 bytes */
	SMCR_MUT_REPLAY,	/* an earlier message of this end instead */
	SMCR_MUT_NR
};

static const char * const smcr_mutate_names[SMCR_MUT_NR] = {
	[SMCR_MUT_FLIP]		= "flip",
	[SMCR_MUT_BYTE]		= "byte",
	[SMCR_MUT_WORD]		= "word",
	[SMCR_MUT_TRUNC]	= "trunc",
	[SMCR_MUT_REPLAY]	= "replay",
};

#define SMCR_MUT_SAVED	8	/* messages kept for a replay */
#define SMCR_MUT_LOG	32	/* mutations shown by a read */
#define SMCR_MUT_ROLE_ANY	0xff

struct smcr_mutate_rec {
	u64	n;		/* the message's number among those chosen */
	u8	kind;
	u8	type;		/* its first byte, before the change */
	u16	off;
	u16	len;		/* its length after the change */
	u32	val;
};

static struct {
	spinlock_t		lock;		/* all below */
	struct rnd_state	rnd;
	u64			seed;
	u32			permille;
	u8			role;
	char			dev[IB_DEVICE_NAME_MAX];
	u64			seen;
	u64			mutated;
	u8			saved[SMCR_MUT_SAVED][SMCR_CDC_MSG_LEN];
	unsigned int		nsaved;
	struct smcr_mutate_rec	log[SMCR_MUT_LOG];
} smcr_mut = {
	.lock = __SPIN_LOCK_UNLOCKED(smcr_mut.lock),
};

static DEFINE_MUTEX(smcr_mutate_cfg);	/* serialises the writers */
static struct dentry *smcr_mutate_debugfs;

/* Values length and offset fields meet at their edges */
static u32 smcr_mutate_edge(struct rnd_state *rnd, u32 len)
{
	static const u32 edge[] = {
		0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
		0x7fffffff, 0x80000000, 0xffffffff,
	};
	u32 r = prandom_u32_state(rnd);

	switch (r % 4) {
	case 0:
		return len + (r >> 8) % 9 - 4;
	case 1:
		return prandom_u32_state(rnd);
	default:
		return edge[(r >> 8) % ARRAY_SIZE(edge)];
	}
}

static bool smcr_mutate_match(const struct smcr_link *link)
{
	if (smcr_mut.role != SMCR_MUT_ROLE_ANY &&
	    link->lgr->role != smcr_mut.role)
		return false;
	return !strcmp(dev_name(&link->dev->ibdev->dev), smcr_mut.dev);
}

/* One change of @msg (@len bytes, @cap writable): its new length */
static u32 smcr_mutate_one(u8 *msg, u32 len, u32 cap,
			   struct smcr_mutate_rec *rec)
{
	struct rnd_state *rnd = &smcr_mut.rnd;
	u32 r = prandom_u32_state(rnd), off, val, i, n;
	__be32 word;

	rec->kind = r % SMCR_MUT_NR;
	off = prandom_u32_state(rnd) % len;
	val = 0;
	switch (rec->kind) {
	case SMCR_MUT_FLIP:
		n = 1 + (r >> 8) % 4;
		for (i = 0; i < n; i++) {
			off = prandom_u32_state(rnd) % (len * 8);
			msg[off / 8] ^= BIT(off % 8);
			val |= BIT(i * 8 + off % 8);
		}
		off /= 8;
		break;
	case SMCR_MUT_BYTE:
		val = r & 0x100 ? smcr_mutate_edge(rnd, len) : r >> 16;
		val &= 0xff;
		msg[off] = val;
		break;
	case SMCR_MUT_WORD:
		off &= ~3U;
		if (off + 4 > len)
			off = len >= 4 ? len - 4 : 0;
		val = smcr_mutate_edge(rnd, len);
		word = cpu_to_be32(val);
		memcpy(msg + off, &word, min_t(u32, len, sizeof(word)));
		break;
	case SMCR_MUT_TRUNC:
		if (len > 1)
			len = 1 + off % (len - 1);
		val = len;
		break;
	case SMCR_MUT_REPLAY:
		if (!smcr_mut.nsaved || cap < SMCR_CDC_MSG_LEN) {
			rec->kind = SMCR_MUT_FLIP;
			msg[off] ^= 1;
			break;
		}
		val = (r >> 8) % min_t(u32, smcr_mut.nsaved, SMCR_MUT_SAVED);
		memcpy(msg, smcr_mut.saved[val], SMCR_CDC_MSG_LEN);
		len = SMCR_CDC_MSG_LEN;
		off = 0;
		break;
	}
	rec->off = off;
	rec->val = val;
	return len;
}

/*
 * The hook of __smcr_slot_post(): @msg, @len bytes of a CDC or LLC
 * message in a buffer of @cap, about to go out on @link.  Returns the
 * length to send.  Any context: the state is under a spinlock.
 */
u32 __smcr_mutate(struct smcr_link *link, u8 *msg, u32 len, u32 cap)
{
	struct smcr_mutate_rec rec = {};
	unsigned long flags;
	u8 orig[SMCR_CDC_MSG_LEN];
	u32 keep = min_t(u32, len, SMCR_CDC_MSG_LEN);

	spin_lock_irqsave(&smcr_mut.lock, flags);
	if (!smcr_mut.permille || !len || !smcr_mutate_match(link))
		goto out;
	memcpy(orig, msg, keep);
	rec.n = smcr_mut.seen++;
	rec.type = msg[0];
	if (prandom_u32_state(&smcr_mut.rnd) % 1000 < smcr_mut.permille) {
		len = smcr_mutate_one(msg, len, cap, &rec);
		rec.len = len;
		smcr_mut.log[smcr_mut.mutated++ % SMCR_MUT_LOG] = rec;
	}
	/* what this end really meant to send, for a later replay */
	if (keep == SMCR_CDC_MSG_LEN)
		memcpy(smcr_mut.saved[smcr_mut.nsaved++ % SMCR_MUT_SAVED],
		       orig, keep);
out:
	spin_unlock_irqrestore(&smcr_mut.lock, flags);
	return len;
}

static int smcr_mutate_parse(char *buf, u64 *seed, u32 *permille,
			     char *dev, u8 *role)
{
	char *p = strim(buf), *tok[4];
	int i;

	for (i = 0; i < 4; i++) {
		tok[i] = strsep(&p, " \t");
		if (!tok[i] || !*tok[i])
			return -EINVAL;
	}
	if (p || kstrtou64(tok[0], 0, seed) || kstrtou32(tok[1], 0, permille) ||
	    *permille > 1000 || strlen(tok[2]) >= IB_DEVICE_NAME_MAX)
		return -EINVAL;
	strscpy(dev, tok[2], IB_DEVICE_NAME_MAX);
	if (!strcmp(tok[3], "client"))
		*role = SMCR_LGR_CLIENT;
	else if (!strcmp(tok[3], "server"))
		*role = SMCR_LGR_SERVER;
	else if (!strcmp(tok[3], "any"))
		*role = SMCR_MUT_ROLE_ANY;
	else
		return -EINVAL;
	return 0;
}

static ssize_t smcr_mutate_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char buf[128], dev[IB_DEVICE_NAME_MAX];
	u32 permille = 0;
	u8 role = 0;
	u64 seed = 0;
	bool on;
	int rc;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	on = strcmp(strim(buf), "off");
	if (on) {
		rc = smcr_mutate_parse(buf, &seed, &permille, dev, &role);
		if (rc)
			return rc;
	}
	mutex_lock(&smcr_mutate_cfg);
	spin_lock_irq(&smcr_mut.lock);
	smcr_mut.permille = on ? permille : 0;
	if (on) {
		prandom_seed_state(&smcr_mut.rnd, seed);
		smcr_mut.seed = seed;
		smcr_mut.role = role;
		strscpy(smcr_mut.dev, dev, sizeof(smcr_mut.dev));
		smcr_mut.seen = 0;
		smcr_mut.mutated = 0;
		smcr_mut.nsaved = 0;
	}
	spin_unlock_irq(&smcr_mut.lock);
	if (on && permille)
		static_branch_enable(&smcr_mutate_key);
	else
		static_branch_disable(&smcr_mutate_key);
	mutex_unlock(&smcr_mutate_cfg);
	return len;
}

static int smcr_mutate_show(struct seq_file *m, void *v)
{
	struct smcr_mutate_rec *log;
	u64 seen, mutated, i, first;
	unsigned long flags;

	log = kmalloc_array(SMCR_MUT_LOG, sizeof(*log), GFP_KERNEL);
	if (!log)
		return -ENOMEM;
	spin_lock_irqsave(&smcr_mut.lock, flags);
	seq_printf(m, "seed %llu permille %u dev %s role %s\n",
		   smcr_mut.seed, smcr_mut.permille,
		   smcr_mut.dev[0] ? smcr_mut.dev : "-",
		   smcr_mut.role == SMCR_MUT_ROLE_ANY ? "any" :
		   smcr_mut.role == SMCR_LGR_SERVER ? "server" : "client");
	seen = smcr_mut.seen;
	mutated = smcr_mut.mutated;
	memcpy(log, smcr_mut.log, SMCR_MUT_LOG * sizeof(*log));
	spin_unlock_irqrestore(&smcr_mut.lock, flags);
	seq_printf(m, "seen %llu mutated %llu\n", seen, mutated);
	first = mutated > SMCR_MUT_LOG ? mutated - SMCR_MUT_LOG : 0;
	for (i = first; i < mutated; i++) {
		struct smcr_mutate_rec *r = &log[i % SMCR_MUT_LOG];

		seq_printf(m, "msg %llu type %u %s off %u val 0x%x len %u\n",
			   r->n, r->type, smcr_mutate_names[r->kind], r->off,
			   r->val, r->len);
	}
	kfree(log);
	return 0;
}

static int smcr_mutate_open(struct inode *inode, struct file *file)
{
	return single_open(file, smcr_mutate_show, NULL);
}

static const struct file_operations smcr_mutate_fops = {
	.owner		= THIS_MODULE,
	.open		= smcr_mutate_open,
	.read		= seq_read,
	.write		= smcr_mutate_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

void smcr_mutate_init(struct dentry *debugfs)
{
	smcr_mutate_debugfs = debugfs_create_file("smcr-mutate", 0600,
						  debugfs, NULL,
						  &smcr_mutate_fops);
}

/* Module unload: no send is left, the hook goes off for good */
void smcr_mutate_exit(void)
{
	debugfs_remove(smcr_mutate_debugfs);
	smcr_mutate_debugfs = NULL;
	static_branch_disable(&smcr_mutate_key);
}
