/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: SMC-R link groups, links and buffers.
 *
 * A link group holds the connections between this host and one peer
 * in one role; its link is an RC queue pair on one RoCE port, with
 * send slots for CDC and LLC messages.  Receives come from the shared
 * receive queue of the completion vector the QP is bound to; the CQ
 * comes from the RDMA core's pool on that vector.
 *
 * Buffers (RMBs and send buffers) are registered on the link when
 * they are made and stay so while the link group lives: a connection
 * that ends gives them back to the group's pool, so a late RDMA write
 * of the peer lands in memory we own, and the next connection needs
 * no registration.
 *
 * Lock order: smcr_lgrs_lock (mutex) -> smcr_lgr.lock (spinlock),
 * smcr_link.slot_lock (spinlock) and smc_conn.tx_lock are leaves.
 * Completion handlers run in softirq and take only spinlocks.
 */
#ifndef __SMCR_LINK_H
#define __SMCR_LINK_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "smc_clc_wire.h"
#include "smc_llc_wire.h"

struct dentry;
struct smc_sock;
struct smcr_dev;

#define SMCR_SLOTS		64	/* CDC and LLC messages in flight */
#define SMCR_SLOT_LEN		48	/* 44 used, 48 as Linux lays it out */
/* a CDC and the up to two RDMA writes before it, per slot; then the
 * memory registrations and the drain marker
 */
#define SMCR_SQ_WR		(3 * SMCR_SLOTS + 4)
#define SMCR_SRQ_WR		256	/* receive buffers of a vector */
#define SMCR_SRQ_BATCH		32	/* reposted together */
#define SMCR_RX_LEN		64	/* one receive buffer */
#define SMCR_RX_SPILL		(SMC_LLC_MAX_LEN - SMCR_RX_LEN)
#define SMCR_CQE		(SMCR_SQ_WR + SMCR_SRQ_WR + 1)

#define SMCR_SLOT_WAIT		(10 * HZ)	/* then the link is down */
#define SMCR_REG_WAIT		(5 * HZ)	/* memory registration */
#define SMCR_LLC_WAIT		(2 * HZ)	/* an LLC response */
#define SMCR_CONFIRM_WAIT	(4 * HZ)	/* client: first CONFIRM LINK */
#define SMCR_DRAIN_WAIT		(5 * HZ)
#define SMCR_TESTLINK_IDLE	(30 * HZ)	/* quiet link: TEST LINK */

#define SMCR_LGR_CLIENT		0	/* as smc_diag_lgrinfo.role */
#define SMCR_LGR_SERVER		1

enum smcr_link_state {
	SMCR_LINK_ACTIVATING,	/* QP made, CONFIRM LINK not done */
	SMCR_LINK_ACTIVE,
	SMCR_LINK_DOWN,		/* failed or going away */
};

/* A send slot: the buffer of one CDC or LLC message */
struct smcr_slot {
	struct ib_cqe		cqe;
	struct smcr_link	*link;
	unsigned int		idx;
	u8			*buf;		/* SMCR_SLOT_LEN bytes */
};

struct smcr_link {
	struct smcr_lgr		*lgr;
	struct smcr_dev		*dev;		/* holds a reference */
	struct ib_qp		*qp;
	u32			qp_num;		/* kept when qp is gone */
	struct ib_cq		*cq;		/* from the pool */
	unsigned int		vec;		/* completion vector */
	u8			port;
	u8			id;		/* link number */
	u8			state;		/* enum smcr_link_state */
	bool			inline_cdc;	/* CDCs go inline */
	enum ib_mtu		mtu;		/* path MTU in use */
	enum ib_mtu		port_mtu;	/* our port's active MTU */
	int			sgid_index;
	u8			gid[SMC_CLC_GID_LEN];
	u8			mac[SMC_CLC_MAC_LEN];
	u32			psn;		/* our initial send PSN */
	u8			peer_gid[SMC_CLC_GID_LEN];
	u8			peer_mac[SMC_CLC_MAC_LEN];
	u32			peer_qpn;
	u32			peer_psn;

	/* send slots; waiters queue up in order (exclusive waits) */
	spinlock_t		slot_lock;
	unsigned long		slot_free[BITS_TO_LONGS(SMCR_SLOTS)];
	wait_queue_head_t	slot_wq;
	struct smcr_slot	slots[SMCR_SLOTS];
	u8			*slot_bufs;
	u64			slot_dma;

	/* memory registrations: one at a time */
	struct mutex		reg_lock;
	struct ib_cqe		reg_cqe;
	struct completion	reg_done;
	int			reg_status;

	/* an LLC flow waiting for a message from the peer */
	spinlock_t		llc_lock;
	u8			llc_want;	/* type waited for, 0: none */
	bool			llc_resp;	/* a response, or a request */
	bool			llc_got;	/* llc_msg holds it */
	struct smc_llc_msg	llc_msg;
	struct completion	llc_done;

	struct ib_cqe		drain_cqe;
	struct completion	drained;

	/* liveness: a TEST LINK when nothing came for a while */
	unsigned long		last_rx;	/* jiffies */
	struct delayed_work	keepalive;
};

/* A buffer of the link group: RMB (remote writes) or send buffer */
struct smcr_buf {
	struct list_head	node;		/* in the lgr's pool */
	void			*cpu;
	u32			len;
	u8			comp;		/* len == 16 KiB << comp */
	bool			rmb;
	bool			used;
	bool			registered;	/* REG_MR done on the link */
	u32			rkey;		/* of mr, for the peer */
	u64			iova;		/* of mr, for the peer */
	u64			dma;
	struct ib_mr		*mr;		/* RMBs: remote write */
};

struct smcr_lgr {
	struct list_head	list;		/* in smcr_lgrs */
	u8			role;		/* SMCR_LGR_CLIENT/SERVER */
	u32			id;
	u8			peer_id[SMC_CLC_PEER_ID_LEN];
	u8			max_conns;
	u8			max_links;
	u8			release;
	u8			llc_version;	/* LLC encoding */
	refcount_t		refs;
	struct smcr_link	*link;		/* the only one, for now */
	unsigned int		conns;		/* under smcr_lgrs_lock */
	bool			ready;		/* first link up: findable */
	bool			gone;		/* no new connections */
	bool			hw_gone;	/* under buf_lock: no new buffers */
	u32			term_reason;
	unsigned long		idle_since;
	struct delayed_work	linger_work;
	struct work_struct	term_work;	/* abort all, then free */
	/* alert token -> smc_sock; readers in softirq under RCU */
	struct xarray		conns_by_token;
	u32			next_token;	/* tokens are given cyclically */
	struct mutex		buf_lock;	/* bufs, and their registration */
	struct list_head	bufs;
};

struct smcr_gid_info;

/* smcr_link.c */
struct smcr_link *smcr_link_create(struct smcr_lgr *lgr, struct smcr_dev *dev,
				   u8 port, int sgid_index, const u8 *gid,
				   const u8 *mac);
int smcr_link_ready(struct smcr_link *link, bool rts);
void smcr_link_free(struct smcr_link *link);
void smcr_link_down(struct smcr_link *link);
void smcr_link_quiesce(struct smcr_link *link, unsigned long timeout);
void smcr_link_destroy(struct smcr_link *link);
struct smcr_slot *__smcr_slot_get(struct smcr_link *link, bool wait,
				  bool killable);
struct smcr_slot *smcr_slot_get(struct smcr_link *link, bool wait);
void smcr_slot_put(struct smcr_slot *slot);
int smcr_slot_post(struct smcr_slot *slot, struct ib_rdma_wr *writes,
		   unsigned int nwrites);
int smcr_link_reg_buf(struct smcr_link *link, struct smcr_buf *buf);
void smcr_llc_arm(struct smcr_link *link, u8 type, bool resp);
int smcr_llc_wait(struct smcr_link *link, unsigned long timeout,
		  struct smc_llc_msg *m);
int smcr_llc_send(struct smcr_link *link, struct smc_llc_msg *m);
void smcr_link_rx(struct smcr_link *link, const u8 *buf, u32 len);
int smcr_link_activate(struct smcr_link *link);

/* smcr_lgr.c */
int smcr_lgr_init(struct dentry *debugfs);
void smcr_lgr_exit(void);
struct smcr_lgr *smcr_lgr_create(u8 role, const struct smcr_gid_info *gi);
void smcr_lgr_publish(struct smcr_lgr *lgr);
void smcr_lgr_discard(struct smcr_lgr *lgr);
void smcr_lgr_put(struct smcr_lgr *lgr);
struct smcr_lgr *smcr_lgr_find_server(const u8 *peer_gid,
				      const struct smcr_gid_info *gi);
struct smcr_lgr *smcr_lgr_find_client(const u8 *gid, u32 qpn);
int smcr_lgr_add_conn(struct smcr_lgr *lgr, struct smc_sock *smc);
void smcr_lgr_del_conn(struct smc_sock *smc);
int smcr_lgr_reg_bufs(struct smcr_lgr *lgr);
void smcr_lgr_rx_cdc(struct smcr_lgr *lgr, const u8 *buf, u32 len);
void smcr_lgr_rx_llc(struct smcr_link *link, const struct smc_llc_msg *m);
void smcr_lgr_link_down(struct smcr_lgr *lgr);
void smcr_lgrs_dev_gone(struct smcr_dev *dev);
void smcr_lgrs_port_down(struct smcr_dev *dev, u8 port);
struct smcr_buf *smcr_buf_get(struct smcr_lgr *lgr, u8 comp, bool rmb);
void smcr_buf_put(struct smcr_lgr *lgr, struct smcr_buf *buf);

#endif /* __SMCR_LINK_H */
