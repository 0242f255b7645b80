/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the state of a network namespace.
 *
 * Its net.smc sysctls (smc_sysctl.c, Documentation/networking/
 * smc-sysctl.rst), statistics (smc_stats.h) and PNET ID table
 * (smc_pnet.c).
 */
#ifndef _SMC_NETNS_H
#define _SMC_NETNS_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "smc_stats.h"

struct ctl_table_header;
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

/* smc_netns.c */
struct smc_net {
	/* net.smc sysctls, see Documentation/networking/smc-sysctl.rst */
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
	struct ctl_table_header	*sysctl;
	struct smc_stats __percpu *stats;
	struct smc_fback_stats	fback;
	struct mutex		pnet_lock;	/* pnet_list */
	struct list_head	pnet_list;	/* the PNET ID table */
	/* DMBs our SMC-D connections own here; not counted in init_net */
	atomic_t		smcd_dmbs;
};

struct smc_net *smc_net(const struct net *net);
int smc_netns_init(void);
void smc_netns_exit(void);

/* smc_sysctl.c */
int smc_sysctl_net_init(struct net *net, struct smc_net *sn);
void smc_sysctl_net_exit(struct smc_net *sn);

/* smc_pnet.c */
void smc_pnet_net_init(struct smc_net *sn);
void smc_pnet_net_exit(struct smc_net *sn);
void smc_pnet_lookup_dev(const char *name, const char *parent, u8 port,
			 char *pnetid);
void smc_pnet_lookup_netdev(struct net *net, const char *ifname,
			    char *pnetid);
int smc_pnet_init(void);

void smc_pnet_exit(void);

#endif /* _SMC_NETNS_H */
