/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the state of a network namespace.
 *
 * Its net.smc sysctls (Documentation/networking/smc-sysctl.rst),
 * statistics (smc_stats.h) and SMC-D DMB count, behind accessors:
 * struct smc_net is smc_netns.c's own.  The PNET ID table (smc_pnet.c)
 * keeps a pernet area of its own.
 */
#ifndef _SMC_NETNS_H
#define _SMC_NETNS_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "smc_stats.h"

struct net;

#define SMC_DEFAULT_BUFSIZE	(64 * 1024)	/* net.smc.wmem/rmem */
#define SMC_MIN_BUFSIZE		(16 * 1024)
#define SMC_AUTOCORK_DEFAULT	(64 * 1024)	/* net.smc.autocorking_size */
#define SMC_TESTLINK_DEFAULT	(30 * HZ)	/* net.smc.smcr_testlink_time */
/* net.smc.smcr_max_send_wr and smcr_max_recv_wr, as upstream */
#define SMC_SEND_WR_DEFAULT	16
#define SMC_RECV_WR_DEFAULT	48
#define SMC_WR_MIN		2
#define SMC_WR_MAX		2048

/* net.smc.smcr_buf_type: the memory of new SMC-R buffers */
enum {
	SMCR_BUF_PHYS,		/* physically contiguous pages */
	SMCR_BUF_VIRT,		/* virtually contiguous (vmalloc) */
	SMCR_BUF_MIXED,		/* contiguous pages if cheap, else vmalloc */
};

/* What a new SMC-R link group takes from the net.smc sysctls */
struct smc_net_smcr {
	int		testlink_time;	/* jiffies, 0: off */
	unsigned int	buf_type;	/* SMCR_BUF_* */
	unsigned int	send_wr;	/* send slots a link */
	unsigned int	recv_wr;	/* receives a link */
	int		max_links;	/* per link group */
	int		max_conns;	/* per link group */
};

/*
 * smc_netns.c: the state of a namespace is private to it; these read
 * and change it.  A sysctl is read when something starts (a socket, a
 * link group), so a change applies to what starts later.
 */
int smc_net_wmem(const struct net *net);
int smc_net_rmem(const struct net *net);
bool smc_net_limit_hs(const struct net *net);
void smc_net_set_limit_hs(struct net *net, bool on);
unsigned int smc_net_autocork_size(const struct net *net);
void smc_net_smcr(const struct net *net, struct smc_net_smcr *p);
struct smc_stats __percpu *smc_net_stats(const struct net *net);
struct smc_fback_stats *smc_net_fback(const struct net *net);
atomic_t *smc_net_smcd_dmbs(const struct net *net);
int smc_netns_init(void);
void smc_netns_exit(void);

/* smc_pnet.c: the PNET ID table of each netns, in its own pernet area */
void smc_pnet_lookup_dev(const char *name, const char *parent, u8 port,
			 char *pnetid);
void smc_pnet_lookup_netdev(struct net *net, const char *ifname,
			    char *pnetid);
int smc_pnet_init(void);
void smc_pnet_exit(void);
void smc_pnet_tables_exit(void);

#endif /* _SMC_NETNS_H */
