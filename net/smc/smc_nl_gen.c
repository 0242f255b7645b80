// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/smc.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "smc_nl_gen.h"

#include <uapi/linux/smc.h>
#include <linux/smc.h>
#include <linux/smc.h>
#include <linux/smc.h>
#include <linux/smc.h>

/* SMC_NETLINK_ADD_UEID - do */
static const struct nla_policy smc_gen_netlink_add_ueid_nl_policy[SMC_NLA_EID_TABLE_ENTRY + 1] = {
	[SMC_NLA_EID_TABLE_ENTRY] = { .type = NLA_NUL_STRING, .len = SMC_MAX_EID_LEN, },
};

/* SMC_NETLINK_REMOVE_UEID - do */
static const struct nla_policy smc_gen_netlink_remove_ueid_nl_policy[SMC_NLA_EID_TABLE_ENTRY + 1] = {
	[SMC_NLA_EID_TABLE_ENTRY] = { .type = NLA_NUL_STRING, .len = SMC_MAX_EID_LEN, },
};

/* Ops table for SMC_GEN_NETLINK */
const struct genl_split_ops smc_gen_netlink_nl_ops[18] = {
	{
		.cmd	= SMC_NETLINK_GET_SYS_INFO,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_sys_info_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_GET_LGR_SMCR,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_lgr_smcr_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_GET_LINK_SMCR,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_link_smcr_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_GET_LGR_SMCD,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_lgr_smcd_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_GET_DEV_SMCD,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_dev_smcd_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_GET_DEV_SMCR,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_dev_smcr_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_GET_STATS,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_stats_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_GET_FBACK_STATS,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_get_fback_stats_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd	= SMC_NETLINK_DUMP_UEID,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_dump_ueid_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= SMC_NETLINK_ADD_UEID,
		.doit		= smc_gen_netlink_nl_add_ueid_doit,
		.policy		= smc_gen_netlink_add_ueid_nl_policy,
		.maxattr	= SMC_NLA_EID_TABLE_ENTRY,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= SMC_NETLINK_REMOVE_UEID,
		.doit		= smc_gen_netlink_nl_remove_ueid_doit,
		.policy		= smc_gen_netlink_remove_ueid_nl_policy,
		.maxattr	= SMC_NLA_EID_TABLE_ENTRY,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= SMC_NETLINK_FLUSH_UEID,
		.pre_doit	= smc_nl_no_attrs_pre_doit,
		.doit		= smc_gen_netlink_nl_flush_ueid_doit,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= SMC_NETLINK_DUMP_SEID,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_dump_seid_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= SMC_NETLINK_ENABLE_SEID,
		.pre_doit	= smc_nl_no_attrs_pre_doit,
		.doit		= smc_gen_netlink_nl_enable_seid_doit,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= SMC_NETLINK_DISABLE_SEID,
		.pre_doit	= smc_nl_no_attrs_pre_doit,
		.doit		= smc_gen_netlink_nl_disable_seid_doit,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= SMC_NETLINK_DUMP_HS_LIMITATION,
		.start	= smc_nl_no_attrs_start,
		.dumpit	= smc_gen_netlink_nl_dump_hs_limitation_dumpit,
		.flags	= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= SMC_NETLINK_ENABLE_HS_LIMITATION,
		.pre_doit	= smc_nl_no_attrs_pre_doit,
		.doit		= smc_gen_netlink_nl_enable_hs_limitation_doit,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= SMC_NETLINK_DISABLE_HS_LIMITATION,
		.pre_doit	= smc_nl_no_attrs_pre_doit,
		.doit		= smc_gen_netlink_nl_disable_hs_limitation_doit,
		.flags		= GENL_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
};
