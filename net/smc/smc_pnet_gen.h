/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/smc-pnetid.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_SMC_PNETID_GEN_H
#define _LINUX_SMC_PNETID_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/smc.h>

/* Global operation policy for SMC_PNETID */
extern const struct nla_policy smc_pnetid_pnetid_nl_policy[SMC_PNETID_IBPORT + 1];

/* Ops table for SMC_PNETID */
extern const struct genl_small_ops smc_pnetid_nl_ops[4];

int smc_pnetid_nl_get_doit(struct sk_buff *skb, struct genl_info *info);
int smc_pnetid_nl_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int smc_pnetid_nl_add_doit(struct sk_buff *skb, struct genl_info *info);
int smc_pnetid_nl_del_doit(struct sk_buff *skb, struct genl_info *info);
int smc_pnetid_nl_flush_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _LINUX_SMC_PNETID_GEN_H */
