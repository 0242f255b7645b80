/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the CLC handshake.
 *
 * Its messages over the TCP socket (smc_clc.c), both sides' flow and
 * decline rules (smc_handshake.c), the rendezvous that sets up SMC-D to
 * a server of this host without CLC messages (smc_rendezvous.c), the
 * transports' halves (smcd_conn.c, smcr_hs.c) and SMC v1's IP prefixes
 * (smc_prefix.c).
 */
#ifndef _SMC_HS_H
#define _SMC_HS_H

#include <linux/types.h>

#include "smc_clc_wire.h"
#include "smcr_gid.h"

struct dentry;
struct in6_addr;
struct net_device;
struct smc_sock;
struct smcd_dev;
struct sock;

/* smc_clc.c: CLC messages over the clcsock */
#define SMC_CLC_WAIT_TIME	(6 * HZ)	/* for Proposal/Accept/Confirm */

void smc_clc_hold_acks(struct sock *clcsk);
void smc_clc_release_acks(struct sock *clcsk, bool flush);
int smc_clc_send(struct smc_sock *smc, const u8 *buf, int len);
int smc_clc_recv(struct smc_sock *smc, u8 expected, u8 *buf, int buflen,
		 struct smc_clc_hdr *hdr);
int smc_clc_recv_timeout(struct smc_sock *smc, u8 expected, u8 *buf,
			 int buflen, struct smc_clc_hdr *hdr, long timeo);
int smc_clc_send_decline(struct smc_sock *smc, u32 reason, u8 version);

/* The state of one CLC handshake; too large for the stack */
struct smc_hs {
	struct smc_clc_proposal	p;
	struct smc_clc_accept	a;
	u8			buf[SMC_CLC_PROPOSAL_MAX_LEN];
	struct smcd_dev		*smcd;		/* SMC-D offered / chosen */
	bool			smcr;		/* SMC-Rv2 offered */
	struct smcr_gid_info	gi;		/* our GID for SMC-Rv2 */
	bool			smcr1;		/* SMC-Rv1 offered */
	struct smcr_gid_info	gi1;		/* our GID for SMC-Rv1 */
	u8			version;	/* of the Accept we sent */
	u8			eid[SMC_CLC_EID_LEN];	/* negotiated */
};

/* smc_handshake.c */
void smc_hs_hostname(u8 *name);
void smc_hs_decline(struct smc_sock *smc, u32 reason, u8 version);
void smc_hs_late_decline(struct smc_sock *smc, u32 reason, u8 version);
int smc_hs_peer_declined(struct smc_sock *smc, const u8 *buf, int len);
int smc_hs_recv(struct smc_sock *smc, struct smc_hs *hs, u8 type, int buflen);
int smc_connect_handshake(struct smc_sock *smc);
int smc_listen_handshake(struct smc_sock *child);

/* smc_rendezvous.c */
extern bool smc_smcd_rendezvous;
int smc_rendezvous(struct smc_sock *smc, struct smc_hs *hs);
bool smc_rendezvous_client(struct sock *clcsk);
bool smc_rendezvous_hold_ack(struct sock *clcsk, const struct sockaddr *addr,
			     int alen);
void smc_rendezvous_debugfs(struct dentry *dir);

/*
 * The work a connection set up over CLC wakes on the server, and one
 * its client set up does without: counted for debugfs ("rendezvous")
 */
enum smc_hs_work {
	SMC_HS_WORK_ACCEPT,	/* the listener's accept worker ran */
	SMC_HS_WORK_HANDSHAKE,	/* a child's handshake work ran */
	SMC_HS_WORK_MAX
};

void smc_rendezvous_work_ran(enum smc_hs_work w);

/*
 * A server's device check failed without a reason of its own (an EID
 * mismatch): the decline gives the reason of another path, as upstream.
 */
#define SMC_HS_SILENT	U32_MAX

/* smcd_conn.c: the SMC-D part of the CLC handshake */
int smcd_connect_accept(struct smc_sock *smc, struct smc_hs *hs);
u32 smcd_listen_v2_check(const struct smc_clc_proposal *p);
u32 smcd_listen_check(const struct smc_clc_proposal *p,
		      struct smcd_dev **devp);
int smcd_listen_accept(struct smc_sock *child, struct smc_hs *hs);
int smcd_rendezvous_setup(struct smc_sock *smc, struct smc_sock *child,
			  struct smc_hs *hs);

/* smcr_hs.c: the SMC-R part of the CLC handshake */
extern bool smc_smcr_enabled;
int smcr_connect_offer(struct smc_sock *smc, struct smc_hs *hs);
int smcr_connect_offer_v1(struct smc_sock *smc, struct smc_hs *hs);
int smcr_connect_accept(struct smc_sock *smc, struct smc_hs *hs);
u32 smcr_listen_v2_check(const struct smc_clc_proposal *p);
u32 smcr_listen_check(struct smc_sock *child, struct smc_hs *hs);
u32 smcr_listen_check_v1(struct smc_sock *child, struct smc_hs *hs);
int smcr_listen_accept(struct smc_sock *child, struct smc_hs *hs, u8 version);

/* smc_prefix.c: the IP prefixes of SMC v1 */
void smc_prefix_gid(const struct sock *sk, struct in6_addr *gid);
struct net_device *smc_prefix_dev(struct sock *sk);
int smc_prefix_fill(struct sock *sk, struct smc_clc_proposal *p);
bool smc_prefix_match(struct sock *sk, const struct smc_clc_proposal *p);

#endif /* _SMC_HS_H */
