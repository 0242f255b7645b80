/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Shared Memory Communications: generic netlink interface.
 *
 * Names and values are those of the upstream kernel, so that existing
 * tools (smc_pnet, smcr, smcd) work unchanged.
 */
#ifndef _UAPI_LINUX_SMC_H_
#define _UAPI_LINUX_SMC_H_

/* Family of the PNET ID table, used by smc_pnet */
#define SMCR_GENL_FAMILY_NAME		"SMC_PNETID"
#define SMCR_GENL_FAMILY_VERSION	1

/* Attributes of SMC_PNETID */
enum {
	SMC_PNETID_UNSPEC,
	SMC_PNETID_NAME,		/* string: the PNET ID */
	SMC_PNETID_ETHNAME,		/* string: a network interface */
	SMC_PNETID_IBNAME,		/* string: an RDMA or ISM device */
	SMC_PNETID_IBPORT,		/* u8: its port, 1 or 2 */
	__SMC_PNETID_MAX,
	SMC_PNETID_MAX = __SMC_PNETID_MAX - 1
};

/* Commands of SMC_PNETID */
enum {
	SMC_PNETID_GET = 1,
	SMC_PNETID_ADD,
	SMC_PNETID_DEL,
	SMC_PNETID_FLUSH
};

#endif /* _UAPI_LINUX_SMC_H_ */
