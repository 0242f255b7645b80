// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the state of a network namespace.
 *
 * Kept in a private pernet area rather than in struct net, whose SMC
 * member differs between kernel versions, and private to this file:
 * the rest of the module reads it through the accessors of
 * smc_netns.h.
 *
 * The net.smc sysctls: one table per namespace.  The template below
 * points at the fields of a model smc_net; a namespace gets a copy
 * whose data pointers are moved by the distance to its own smc_net.
 * Readers take the values with READ_ONCE() when they start something
 * (a socket, a link group, a link), so a change applies to what starts
 * later.
 */

#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "smc_clc_wire.h"
#include "smc_compat.h"
#include "smc_netns.h"
#include "smc_stats.h"

struct smc_net {
	/* net.smc sysctls, see Documentation/networking/smc-sysctl.rst:
	 * written by their handlers (limit_smc_hs by netlink too, with
	 * WRITE_ONCE), read with READ_ONCE and no lock
	 */
	int			wmem;
	int			rmem;
	int			limit_smc_hs;	/* 0 or 1 */
	unsigned int		autocorking_size;
	unsigned int		smcr_buf_type;	/* SMCR_BUF_* */
	int			smcr_testlink_time;	/* jiffies, 0: off */
	int			smcr_max_links_per_lgr;
	int			smcr_max_conns_per_lgr;
	unsigned int		smcr_max_send_wr;	/* send slots a link */
	unsigned int		smcr_max_recv_wr;	/* receives a link */
	/* set up with the netns, read-only until it goes */
	struct ctl_table_header	*sysctl;
	struct smc_stats __percpu *stats;	/* per-CPU counters, no lock */
	struct smc_fback_stats	fback;		/* its own mutex */
	/* DMBs our SMC-D connections own here; not counted in init_net */
	atomic_t		smcd_dmbs;
};

static unsigned int smc_net_id __read_mostly;

static struct smc_net *smc_net(const struct net *net)
{
	return net_generic(net, smc_net_id);
}

int smc_net_wmem(const struct net *net)
{
	return READ_ONCE(smc_net(net)->wmem);
}

int smc_net_rmem(const struct net *net)
{
	return READ_ONCE(smc_net(net)->rmem);
}

bool smc_net_limit_hs(const struct net *net)
{
	return READ_ONCE(smc_net(net)->limit_smc_hs);
}

void smc_net_set_limit_hs(struct net *net, bool on)
{
	WRITE_ONCE(smc_net(net)->limit_smc_hs, on);
}

unsigned int smc_net_autocork_size(const struct net *net)
{
	return READ_ONCE(smc_net(net)->autocorking_size);
}

void smc_net_smcr(const struct net *net, struct smc_net_smcr *p)
{
	const struct smc_net *sn = smc_net(net);

	p->testlink_time = READ_ONCE(sn->smcr_testlink_time);
	p->buf_type = READ_ONCE(sn->smcr_buf_type);
	p->send_wr = READ_ONCE(sn->smcr_max_send_wr);
	p->recv_wr = READ_ONCE(sn->smcr_max_recv_wr);
	p->max_links = READ_ONCE(sn->smcr_max_links_per_lgr);
	p->max_conns = READ_ONCE(sn->smcr_max_conns_per_lgr);
}

struct smc_stats __percpu *smc_net_stats(const struct net *net)
{
	return smc_net(net)->stats;
}

struct smc_fback_stats *smc_net_fback(const struct net *net)
{
	return &smc_net(net)->fback;
}

atomic_t *smc_net_smcd_dmbs(const struct net *net)
{
	return &smc_net(net)->smcd_dmbs;
}

static int smc_buf_min = SMC_MIN_BUFSIZE;
static int smc_buf_max = INT_MAX / 2;
static unsigned int smc_buf_type_max = SMCR_BUF_MIXED;
static int smc_links_min = SMC_CLC_LINKS_PER_LGR_MIN;
static int smc_links_max = SMC_CLC_LINKS_PER_LGR_MAX;
static int smc_conns_min = SMC_CLC_CONNS_PER_LGR_MIN;
static int smc_conns_max = SMC_CLC_CONNS_PER_LGR_MAX;
static unsigned int smc_wr_min = SMC_WR_MIN;
static unsigned int smc_wr_max = SMC_WR_MAX;

#define SMC_SYSCTL(_name, _type, _handler, _min, _max)		\
	{							\
		.procname	= #_name,			\
		.data		= &smc_sysctl_init_net._name,	\
		.maxlen		= sizeof(_type),		\
		.mode		= 0644,				\
		.proc_handler	= _handler,			\
		.extra1		= _min,				\
		.extra2		= _max,				\
	}

/* only for its address: the template names the fields by it */
static struct smc_net smc_sysctl_init_net;

static struct ctl_table smc_sysctl_template[] = {
	SMC_SYSCTL(autocorking_size, unsigned int, proc_douintvec,
		   NULL, NULL),
	SMC_SYSCTL(smcr_buf_type, unsigned int, proc_douintvec_minmax,
		   SYSCTL_ZERO, &smc_buf_type_max),
	SMC_SYSCTL(smcr_testlink_time, int, proc_dointvec_jiffies,
		   NULL, NULL),
	SMC_SYSCTL(wmem, int, proc_dointvec_minmax,
		   &smc_buf_min, &smc_buf_max),
	SMC_SYSCTL(rmem, int, proc_dointvec_minmax,
		   &smc_buf_min, &smc_buf_max),
	SMC_SYSCTL(smcr_max_links_per_lgr, int, proc_dointvec_minmax,
		   &smc_links_min, &smc_links_max),
	SMC_SYSCTL(smcr_max_conns_per_lgr, int, proc_dointvec_minmax,
		   &smc_conns_min, &smc_conns_max),
	SMC_SYSCTL(limit_smc_hs, int, proc_dointvec_minmax,
		   SYSCTL_ZERO, SYSCTL_ONE),
	SMC_SYSCTL(smcr_max_send_wr, unsigned int, proc_douintvec_minmax,
		   &smc_wr_min, &smc_wr_max),
	SMC_SYSCTL(smcr_max_recv_wr, unsigned int, proc_douintvec_minmax,
		   &smc_wr_min, &smc_wr_max),
	{ }	/* older kernels find the end by it */
};

static int smc_sysctl_net_init(struct net *net, struct smc_net *sn)
{
	const size_t n = ARRAY_SIZE(smc_sysctl_template) - 1;
	ptrdiff_t shift = (char *)sn - (char *)&smc_sysctl_init_net;
	struct ctl_table *table;
	size_t i;

	table = kmemdup(smc_sysctl_template, sizeof(smc_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		table[i].data = (char *)table[i].data + shift;
	sn->sysctl = smc_register_net_sysctl(net, "net/smc", table, n);
	if (!sn->sysctl) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

static void smc_sysctl_net_exit(struct smc_net *sn)
{
	const struct ctl_table *table = sn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(sn->sysctl);
	kfree(table);
}

static int __net_init smc_net_init(struct net *net)
{
	struct smc_net *sn = smc_net(net);
	int rc;

	sn->wmem = SMC_DEFAULT_BUFSIZE;
	sn->rmem = SMC_DEFAULT_BUFSIZE;
	sn->limit_smc_hs = 0;
	sn->autocorking_size = SMC_AUTOCORK_DEFAULT;
	sn->smcr_buf_type = SMCR_BUF_PHYS;
	sn->smcr_testlink_time = SMC_TESTLINK_DEFAULT;
	sn->smcr_max_links_per_lgr = SMC_CLC_LINKS_PER_LGR_MAX;
	sn->smcr_max_conns_per_lgr = SMC_CLC_CONNS_PER_LGR_MAX;
	sn->smcr_max_send_wr = SMC_SEND_WR_DEFAULT;
	sn->smcr_max_recv_wr = SMC_RECV_WR_DEFAULT;
	atomic_set(&sn->smcd_dmbs, 0);
	sn->stats = smc_stats_alloc(&sn->fback);
	if (!sn->stats)
		return -ENOMEM;
	rc = smc_sysctl_net_init(net, sn);
	if (rc)
		smc_stats_free(sn->stats);
	return rc;
}

static void __net_exit smc_net_exit(struct net *net)
{
	struct smc_net *sn = smc_net(net);

	/* every socket held the netns: all its DMBs are gone */
	WARN_ON_ONCE(atomic_read(&sn->smcd_dmbs));
	smc_sysctl_net_exit(sn);
	smc_stats_free(sn->stats);
}

static struct pernet_operations smc_net_ops = {
	.init	= smc_net_init,
	.exit	= smc_net_exit,
	.id	= &smc_net_id,
	.size	= sizeof(struct smc_net),
};

int smc_netns_init(void)
{
	return register_pernet_subsys(&smc_net_ops);
}

void smc_netns_exit(void)
{
	unregister_pernet_subsys(&smc_net_ops);
}
