// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the net.smc sysctls.
 *
 * One table per network namespace.  The template below points at the
 * fields of a model smc_net; a namespace gets a copy whose data
 * pointers are moved by the distance to its own smc_net.  Readers take
 * the values with READ_ONCE() when they start something (a socket, a
 * link group, a link), so a change applies to what starts later.
 */

#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "smc_clc_wire.h"
#include "smc_compat.h"
#include "smc_conn.h"
#include "smc_core.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smc_stats.h"
#include "smcd.h"
#include "smcr_dev.h"
#include "smcr_link.h"

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

int smc_sysctl_net_init(struct net *net, struct smc_net *sn)
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

void smc_sysctl_net_exit(struct smc_net *sn)
{
	const struct ctl_table *table = sn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(sn->sysctl);
	kfree(table);
}
