// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: per network namespace settings.
 *
 * Kept in a private pernet area rather than in struct net, whose SMC
 * member differs between kernel versions.
 */

#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "smc.h"

static unsigned int smc_net_id __read_mostly;

struct smc_net *smc_net(const struct net *net)
{
	return net_generic(net, smc_net_id);
}

static int __net_init smc_net_init(struct net *net)
{
	struct smc_net *sn = smc_net(net);

	sn->wmem = SMC_DEFAULT_BUFSIZE;
	sn->rmem = SMC_DEFAULT_BUFSIZE;
	sn->limit_smc_hs = false;
	smc_pnet_net_init(sn);
	return 0;
}

static void __net_exit smc_net_exit(struct net *net)
{
	smc_pnet_net_exit(smc_net(net));
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
