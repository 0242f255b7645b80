/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/smc.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_SMC_GEN_NETLINK_GEN_H
#define _LINUX_SMC_GEN_NETLINK_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/smc.h>
#include <linux/smc.h>
#include <linux/smc.h>
#include <linux/smc.h>
#include <linux/smc.h>

/* Ops table for SMC_GEN_NETLINK */
extern const struct genl_split_ops smc_gen_netlink_nl_ops[18];

int smc_nl_no_attrs_pre_doit(const struct genl_split_ops *ops,
			     struct sk_buff *skb, struct genl_info *info);
int smc_nl_no_attrs_start(struct netlink_callback *cb);

int smc_gen_netlink_nl_get_sys_info_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb);
int smc_gen_netlink_nl_get_lgr_smcr_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb);
int smc_gen_netlink_nl_get_link_smcr_dumpit(struct sk_buff *skb,
					    struct netlink_callback *cb);
int smc_gen_netlink_nl_get_lgr_smcd_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb);
int smc_gen_netlink_nl_get_dev_smcd_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb);
int smc_gen_netlink_nl_get_dev_smcr_dumpit(struct sk_buff *skb,
					   struct netlink_callback *cb);
int smc_gen_netlink_nl_get_stats_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb);
int smc_gen_netlink_nl_get_fback_stats_dumpit(struct sk_buff *skb,
					      struct netlink_callback *cb);
int smc_gen_netlink_nl_dump_ueid_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb);
int smc_gen_netlink_nl_add_ueid_doit(struct sk_buff *skb,
				     struct genl_info *info);
int smc_gen_netlink_nl_remove_ueid_doit(struct sk_buff *skb,
					struct genl_info *info);
int smc_gen_netlink_nl_flush_ueid_doit(struct sk_buff *skb,
				       struct genl_info *info);
int smc_gen_netlink_nl_dump_seid_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb);
int smc_gen_netlink_nl_enable_seid_doit(struct sk_buff *skb,
					struct genl_info *info);
int smc_gen_netlink_nl_disable_seid_doit(struct sk_buff *skb,
					 struct genl_info *info);
int smc_gen_netlink_nl_dump_hs_limitation_dumpit(struct sk_buff *skb,
						 struct netlink_callback *cb);
int smc_gen_netlink_nl_enable_hs_limitation_doit(struct sk_buff *skb,
						 struct genl_info *info);
int smc_gen_netlink_nl_disable_hs_limitation_doit(struct sk_buff *skb,
						  struct genl_info *info);

#endif /* _LINUX_SMC_GEN_NETLINK_GEN_H */
