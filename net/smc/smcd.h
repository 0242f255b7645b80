/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: SMC-D connections and link groups,
 * after the handshake (smc_hs.h) and below the data path (smc_conn.h).
 * The device layer, loopback-ism included, is smc_ism.h.
 */
#ifndef _SMCD_H
#define _SMCD_H

#include <linux/types.h>

#include "smc_clc_wire.h"
#include "smc_pnetid.h"

struct net;
struct smc_conn_ops;
struct smc_sock;
struct smcd_gid;

/* Negotiate SMC-D at all (module parameter smcd) */
extern bool smc_smcd_enabled;

/* smcd_conn.c: an SMC-D connection after its handshake */
extern const struct smc_conn_ops smcd_conn_ops;
void smcd_conn_teardown(struct smc_sock *smc);
u32 smcd_decline_reason(int err);

/* smcd_lgr.c: SMC-D link groups */
#define SMCD_LGR_CLIENT		0	/* values of smc_diag_lgrinfo.role */
#define SMCD_LGR_SERVER		1

int smcd_lgr_join(struct smc_sock *smc, const struct smcd_gid *peer,
		  u8 role, bool create, bool *first);
void smcd_lgr_leave(struct smc_sock *smc);
void smcd_lgr_stale(struct smc_sock *smc);
void smcd_lgr_note_peer(struct smc_sock *smc, const struct smc_clc_accept *a);

/* What netlink shows of an SMC-D link group: a snapshot */
struct smcd_lgr_info {
	u32		id;
	u8		role;
	u16		chid;
	u32		conns;
	u64		gid, gid_ext;
	u64		peer_gid, peer_gid_ext;
	u64		dmb_alloc;
	u8		release;
	u8		peer_os;
	u8		peer_host[SMC_CLC_HOSTNAME_LEN];
	u8		eid[SMC_CLC_EID_LEN];
	char		pnetid[SMC_PNETID_LEN + 1];
};

int smcd_lgr_info_next(const struct net *net, u32 after,
		       struct smcd_lgr_info *info);

void smcd_lgr_exit(void);

#endif /* _SMCD_H */
