/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: what the dumps of SMC_GEN_NETLINK build
 * their messages with.  A leaf: each dump lives with what it shows (the
 * statistics in smc_stats.c), the family and its operations in
 * smc_netlink.c.
 */
#ifndef _SMC_NETLINK_H
#define _SMC_NETLINK_H

#include <net/genetlink.h>

#include "smc_compat.h"

/* The header of the next message of the dump @cb, in its family */
static inline void *smc_nl_start(struct sk_buff *skb,
				 struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, smc_nl_dump_family(cb),
			   NLM_F_MULTI, cmd);
}

/* A u64 as NLA_UINT does it: 4 bytes when the value fits */
static inline int smc_nl_put_uint(struct sk_buff *skb, int type, u64 v)
{
	u32 v32 = v;

	if (v == v32)
		return nla_put_u32(skb, type, v32);
	return nla_put(skb, type, sizeof(v), &v);
}

int smc_nl_init(void);
void smc_nl_exit(void);

#endif /* _SMC_NETLINK_H */
