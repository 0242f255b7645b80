// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: per network namespace settings.
 *
 * Kept in a private pernet area rather than in struct net, whose SMC
 * member differs between kernel versions.
 */

#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "smc_clc_wire.h"
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

static unsigned int smc_net_id __read_mostly;

struct smc_net *smc_net(const struct net *net)
{
	return net_generic(net, smc_net_id);
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
	smc_pnet_net_init(sn);
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
	smc_pnet_net_exit(sn);
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
