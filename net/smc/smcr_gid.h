/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: a RoCEv2 GID of ours, as the SMC-R
 * handshake chooses it (smcr_dev.c) and a link then uses it.  Apart
 * from smcr_dev.h so that the handshake's state (smc_hs.h) carries it
 * without the device structures.
 */
#ifndef _SMCR_GID_H
#define _SMCR_GID_H

#include <linux/types.h>

struct smcr_dev;

struct smcr_gid_info {
	struct smcr_dev		*dev;		/* holds a reference */
	u8			port;
	int			sgid_index;
	u8			gid[16];
	u8			mac[6];
	u8			mtu;	/* the port's active one: enum ib_mtu */
	u16			vlan;		/* SMC-Rv1: of the interface */
};

#endif /* _SMCR_GID_H */
