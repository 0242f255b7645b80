// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/smc-pnetid.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "smc_pnet_gen.h"

#include <uapi/linux/smc.h>

/* Global operation policy for SMC_PNETID */
const struct nla_policy smc_pnetid_pnetid_nl_policy[SMC_PNETID_IBPORT + 1] = {
	[SMC_PNETID_NAME] = { .type = NLA_NUL_STRING, .len = 16, },
	[SMC_PNETID_ETHNAME] = { .type = NLA_NUL_STRING, .len = 15, },
	[SMC_PNETID_IBNAME] = { .type = NLA_NUL_STRING, .len = 63, },
	[SMC_PNETID_IBPORT] = { .type = NLA_U8, },
};

/* Ops table for SMC_PNETID */
const struct genl_small_ops smc_pnetid_nl_ops[4] = {
	{
		.cmd		= SMC_PNETID_GET,
		.validate	= GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.doit		= smc_pnetid_nl_get_doit,
		.dumpit		= smc_pnetid_nl_get_dumpit,
	},
	{
		.cmd		= SMC_PNETID_ADD,
		.validate	= GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.doit		= smc_pnetid_nl_add_doit,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= SMC_PNETID_DEL,
		.validate	= GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.doit		= smc_pnetid_nl_del_doit,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= SMC_PNETID_FLUSH,
		.validate	= GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.doit		= smc_pnetid_nl_flush_doit,
		.flags		= GENL_ADMIN_PERM,
	},
};
