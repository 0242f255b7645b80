/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: SMC-R, the header its files share:
 * link groups, links, buffers, LLC and connections.
 *
 * A link group holds the connections between this host and one peer
 * in one role.  It has up to two links, each an RC queue pair on one
 * RoCE port, with send slots for CDC and LLC messages; a connection
 * uses one of them, and moves to the other when its link fails.
 * The CQ comes from the RDMA core's pool on the completion vector the
 * QP is bound to, and the receives from that CQ's shared receive queue.
 *
 * Buffers (RMBs and send buffers) are mapped on every link of the
 * group, and RMBs registered, and stay so while the link lives: a
 * connection that ends gives them back to the group's pool, so a late
 * RDMA write of the peer lands in memory we own, and the next
 * connection needs no registration.
 *
 * Lock order: smcr_lgr.llc_flow (mutex) -> smcr_lgrs_lock (mutex) ->
 * smcr_lgr.buf_lock (mutex) -> smcr_link.reg_lock (mutex);
 * smc_conn.tx_lock (under llc_flow too: a failover) -> slot_lock,
 * llc_lock, rtok_lock; reg_lock -> slot_lock; slot_lock, llc_lock,
 * rtok_lock and ev_lock are leaves.  Completion handlers run in
 * softirq and take only spinlocks.  The whole tree: smc.rst, "Locking".
 */
#ifndef _SMCR_H
#define _SMCR_H

#include <linux/completion.h>
#include <linux/in6.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "smc_clc_wire.h"
#include "smc_pnetid.h"
#include "smc_llc_wire.h"
#include "smcr_add_budget.h"

struct dentry;
struct smc_sock;
struct smcr_dev;
struct smcr_srq;

#define SMCR_SLOT_LEN		48	/* 44 used, 48 as Linux lays it out */
/* a CDC and the up to two RDMA writes before it, per slot; then the
 * memory registrations and the drain marker
 */
#define SMCR_SQ_WR(slots)	(3 * (slots) + 4)
/* work completions a link may have in its CQ: sends, its receives */
#define SMCR_CQE(slots, rx)	(SMCR_SQ_WR(slots) + (rx) + 1)
#define SMCR_SRQ_MAX		2048	/* receive buffers of an SRQ */
#define SMCR_SRQ_BATCH		32	/* reposted together, at most */
#define SMCR_RX_LEN		64	/* one receive buffer */
/*
 * and its tail, for the rest of the two large LLC messages of SMC-Rv2:
 * an ADD LINK with 255 rkey triples is 72 + 255 * 16 = 4152 bytes
 */
#define SMCR_RX_TAIL		4096

/*
 * Link slots of a group: its two links, and a third for a symmetric
 * link while it replaces an asymmetric one (make before break)
 */
#define SMCR_LINKS		3
#define SMCR_RTOKS		255	/* peer RMBs a group keeps */

#define SMCR_SLOT_WAIT		(10 * HZ)	/* then the link is down */
#define SMCR_REG_WAIT		(5 * HZ)	/* memory registration */
#define SMCR_QUIET_WAIT		(2 * HZ)	/* the send queue empties */
#define SMCR_LLC_WAIT		(2 * HZ)	/* an LLC response */
#define SMCR_CONFIRM_WAIT	(4 * HZ)	/* client: first CONFIRM LINK */
#define SMCR_ADD_WAIT		(5 * HZ)	/* CONFIRM LINK of an added link */
#define SMCR_FAILOVER_WAIT	(30 * HZ)	/* a sender waits for the move */
#define SMCR_MOVE_WAIT		(25 * HZ)	/* device removal waits for it */
#define SMCR_ADD_TRIES		3	/* failed adds before we wait for a port */
#define SMCR_ADD_AGAIN		(10 * HZ)	/* a failed add: then again */
/* links a server tries to add to a group in a window, whatever comes */
#define SMCR_ADD_BUDGET		8
#define SMCR_ADD_WINDOW		(60 * HZ)
#define SMCR_EVENTS_MAX		64	/* queued LLC requests of a group */
/* orphans a group keeps at most (their peer may still write): one more
 * is aborted at once, as are those older than tcp_fin_timeout
 */
#define SMCR_ORPHANS_MAX	64
#define SMCR_DRAIN_WAIT		(5 * HZ)
/* a device not yet seen to signal Last WQE Reached gets this long */
#define SMCR_LAST_WQE_PROBE	(2 * HZ)
#define SMCR_LAST_WQE_UNKNOWN	0
#define SMCR_LAST_WQE_YES	1
#define SMCR_LAST_WQE_NO	2

#define SMCR_LGR_CLIENT		0	/* as smc_diag_lgrinfo.role */
#define SMCR_LGR_SERVER		1

/* What the links of a group are (netlink's SMC_NLA_LGR_R_TYPE) */
#define SMCR_LGR_NONE		0	/* no link up */
#define SMCR_LGR_SINGLE		1
#define SMCR_LGR_SYMMETRIC	2	/* two devices on each side */
#define SMCR_LGR_ASYM_PEER	3	/* the peer uses one for both */
#define SMCR_LGR_ASYM_LOCAL	4	/* we use one for both */

enum smcr_link_state {
	SMCR_LINK_ACTIVATING,	/* QP made, CONFIRM LINK not done */
	SMCR_LINK_ACTIVE,
	SMCR_LINK_DOWN,		/* failed or going away */
};

/*
 * A send slot: the buffer of one CDC or LLC message.  Taken and given
 * back under its link's slot_lock; while taken it is its holder's, and
 * then its completion's.
 */
struct smcr_slot {
	/* set with the link's slots, read-only after */
	struct ib_cqe		cqe;
	struct smcr_link	*link;
	unsigned int		idx;
	u8			*buf;		/* SMCR_SLOT_LEN bytes */
	/* a CDC: our token and its sequence number, done at completion;
	 * written by the holder (tx_lock) before the post
	 */
	bool			cdc;
	u16			seq;
	u32			token;
	/* the send buffer the writes chained before it read, or NULL;
	 * set at the post, cleared by the completion (or a failed post)
	 */
	struct smcr_buf		*wbuf;
};

struct smcr_link {
	/* set when the link is made, read-only after */
	struct smcr_lgr		*lgr;
	struct smcr_dev		*dev;		/* holds a reference */
	/*
	 * pd, qp, cq, cqes, srq: made with the link, released by
	 * smcr_link_release() once it is stopped, under llc_flow or with
	 * the group's last reference; netlink and debugfs look at qp
	 * under smcr_lgrs_lock.  qp_num, rx_bufs, vec and port are set
	 * when the link is made, read-only after.
	 */
	struct smcr_pd		*pd;		/* its group's on dev */
	struct ib_qp		*qp;
	u32			qp_num;		/* kept when qp is gone */
	struct ib_cq		*cq;		/* from the pool */
	unsigned int		cqes;		/* taken in the pool CQ */
	struct smcr_srq		*srq;		/* of the PD on the CQ */
	unsigned int		rx_bufs;	/* added to the SRQ */
	unsigned int		vec;		/* completion vector */
	/* handled: WRITE_ONCE by the CQ's poller only, READ_ONCE readers */
	u64			completions;
	u8			port;
	/* set before the link enters lgr->links[], read-only after; a
	 * client's first link gets its id from the handshake before the
	 * group is ready
	 */
	u8			idx;		/* in lgr->links[] */
	u8			id;		/* link number */
	/* new RMBs are registered here: under the group's buf_lock */
	bool			regs;
	/* enum smcr_link_state; written under slot_lock, read with
	 * READ_ONCE anywhere: a stale state is caught by the slot
	 * reservation, which looks again under slot_lock
	 */
	u8			state;
	/* shares a device with the other link, here or at the peer: it
	 * takes new connections only when it is the one link up
	 */
	bool			asym;	/* llc_flow; READ_ONCE by the pick */
	/*
	 * Ours set when the link is made; the path MTU and the peer's
	 * side by the handshake or the ADD LINK procedure (llc_flow)
	 * before the QP goes to RTR, peer_uid before the link is active.
	 * Read-only after.
	 */
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
	u8			peer_uid[4];	/* from its CONFIRM LINK */
	/* the device's name, for sock_diag: the device may go first */
	char			ibname[IB_DEVICE_NAME_MAX];

	/*
	 * send slots; waiters queue up in order (exclusive waits).  Under
	 * slot_lock: slot_free, slots_held (and state).  nslots, slots,
	 * slot_bufs and slot_dma are made with the link and freed by
	 * smcr_link_release() once every slot is back.
	 */
	spinlock_t		slot_lock;
	unsigned int		nslots;		/* from smcr_max_send_wr */
	unsigned long		*slot_free;
	wait_queue_head_t	slot_wq;
	bool			slots_held;	/* for a REG_MR alone */
	struct smcr_slot	*slots;
	u8			*slot_bufs;
	u64			slot_dma;
	/* the large v2 LLC messages we send (ADD LINK), one at a time:
	 * under llc_flow
	 */
	u8			*big_buf;
	u64			big_dma;

	/* memory registrations: one at a time */
	struct mutex		reg_lock;
	struct ib_cqe		reg_cqe;
	struct completion	reg_done;
	/* reg_lock; the completion sets it before it completes reg_done */
	int			reg_status;

	/* an LLC flow waiting for a message from the peer: under llc_lock */
	spinlock_t		llc_lock;
	u8			llc_want;	/* type waited for, 0: none */
	bool			llc_resp;	/* a response, or a request */
	bool			llc_got;	/* llc_msg holds it */
	struct smc_llc_msg	llc_msg;
	u8			*llc_raw;	/* a large one, as received */
	u32			llc_raw_len;
	struct completion	llc_done;

	/* smcr_link_stop()'s marker through the send queue: its own */
	struct ib_cqe		drain_cqe;
	struct completion	drained;
	struct completion	last_wqe;	/* the SRQ is done with the QP */
	/* stopped: QP may go; written by smcr_link_stop(), under llc_flow
	 * or with the group's last reference
	 */
	bool			drained_ok;
	/*
	 * left behind with a QP that did not flush (smcr_link_stop()):
	 * its completions touch nothing of the group, which may go before
	 * them.  The group's free waits out the handlers that looked
	 * before it was set (smcr_lgr_free()).
	 */
	bool			orphan;

	/*
	 * liveness: a TEST LINK when nothing came for a while.  last_rx:
	 * jiffies, from any context (WRITE_ONCE, READ_ONCE); testlinks:
	 * WRITE_ONCE by the keepalive only, READ_ONCE by debugfs.  The
	 * keepalive is armed by the activation and by itself, and
	 * cancelled by the stop.
	 */
	unsigned long		last_rx;
	unsigned int		testlinks;
	struct delayed_work	keepalive;
	/* removed, in lgr->dead_links: under llc_flow */
	struct list_head	dead;
};

/*
 * A buffer as one link's device sees it: mapped, registered and
 * unmapped under the group's buf_lock.  The buffer's users read the
 * entry of their link without it (the sender under tx_lock): it stays
 * while the buffer is in use, and a link's stop waits for the slots
 * its senders hold.
 */
struct smcr_buf_map {
	u64			dma;		/* 0: not mapped */
	struct sg_table		sgt;		/* vmalloc'ed: its pages */
	struct ib_mr		*mr;		/* RMBs, vmalloc'ed buffers */
	u32			rkey;		/* of mr, for the peer */
	u64			iova;		/* of mr, for the peer */
	bool			registered;	/* REG_MR done on the link */
};

/* A buffer of the link group: RMB (remote writes) or send buffer */
struct smcr_buf {
	/* in the lgr's pool; node and used under buf_lock, the rest set
	 * before the buffer enters the pool and read-only after
	 */
	struct list_head	node;
	void			*cpu;
	u32			len;
	u8			comp;		/* len == 16 KiB << comp */
	bool			rmb;
	bool			used;
	bool			virt;		/* vmalloc'ed, mapped by pages */
	/*
	 * Send buffer: chains of RDMA writes from it that are posted and
	 * not complete.  The device reads it until then: not reused.
	 * The completion's release pairs with the pool's acquire.
	 */
	atomic_t		writing;
	struct smcr_buf_map	map[SMCR_LINKS];	/* by link slot */
};

/*
 * An RMB of the peer, as it told us on each link: from its CLC message
 * for the connection's link, from CONFIRM RKEY and ADD LINK for the
 * others.  Entries stay while a connection uses them.  Every field is
 * under the group's rtok_lock (softirq too).
 */
struct smcr_rtok {
	u32			rkey[SMCR_LINKS];
	u64			addr[SMCR_LINKS];
	u8			valid;		/* bit per link slot */
	bool			used;
	bool			deleted;	/* by the peer, users remain */
	u16			users;
};

struct smcr_lgr {
	/* in smcr_lgrs, under smcr_lgrs_lock */
	struct list_head	list;
	/*
	 * role, id, version, llc_version, vlan, buf_type, testlink_time,
	 * send_wr, recv_wr, net_cookie and pd_owner are set when the group
	 * is made (the first contact's handshake writes net_cookie again,
	 * the same).  The first contact's handshake writes peer_id,
	 * max_conns, max_links, release, peer_os, direct, peer_host, eid
	 * and peer_addr before the group is ready (findable).  Read-only
	 * after; netlink may show a group not ready yet half written.
	 */
	u8			role;		/* SMCR_LGR_CLIENT/SERVER */
	u32			id;
	u8			peer_id[SMC_CLC_PEER_ID_LEN];
	u8			max_conns;
	u8			max_links;
	u8			release;
	u8			version;	/* SMC-R v1 or v2 */
	u8			llc_version;	/* LLC encoding: the same */
	u16			vlan;		/* v1: the LAN's VLAN, or 0 */
	u8			buf_type;	/* SMCR_BUF_* */
	int			testlink_time;	/* jiffies, 0: no TEST LINK */
	unsigned int		send_wr;	/* slots a link asks for */
	unsigned int		recv_wr;	/* receives a link adds */
	/* from the first contact, for netlink */
	u8			peer_os;
	bool			direct;		/* peer reached without gateway */
	u8			peer_host[SMC_CLC_HOSTNAME_LEN];
	u8			eid[SMC_CLC_EID_LEN];
	u64			net_cookie;
	u64			pd_owner;	/* its PDs' key, smcr_pd_owner() */
	struct in6_addr		peer_addr;	/* TCP peer: IPv4-mapped */
	refcount_t		refs;
	/*
	 * Written under llc_flow, smcr_lgrs_lock and buf_lock, so any one
	 * of them serves a reader.  READ_ONCE readers with none (the LLC
	 * receive path, device removal) only look: a link's memory stays
	 * until the group is freed (dead_links).
	 */
	struct smcr_link	*links[SMCR_LINKS];
	/* freed with the group; dead_links and last_link_id: llc_flow */
	struct list_head	dead_links;
	u8			last_link_id;
	/* our first link's GID: second links are sought in its subnet;
	 * set when the group is made
	 */
	u8			home_gid[SMC_CLC_GID_LEN];
	/* connections failed over: llc_flow; debugfs reads it without */
	unsigned int		moved;
	unsigned int		conns;		/* under smcr_lgrs_lock */
	/* first link up: findable; set once under smcr_lgrs_lock, its
	 * own handshake and the LLC work read it without
	 */
	bool			ready;
	/* no new connections; smcr_lgrs_lock, READ_ONCE in
	 * smcr_lgr_ended(), whose callers only stop early
	 */
	bool			gone;
	bool			hw_gone;	/* under buf_lock: no new buffers */
	/* written by whoever queues term_work (any context), read by
	 * the work: of two terminations, one reason wins
	 */
	u32			term_reason;
	/* smcr_lgrs_lock; the delayed works below are queued under it,
	 * each with a reference of its own
	 */
	unsigned long		idle_since;
	struct delayed_work	linger_work;
	/* orphans: how many (atomic), and the work that reaps them when
	 * due
	 */
	atomic_t		orphans;
	struct delayed_work	orphan_work;
	/* abort all, then free; holds a reference while queued */
	struct work_struct	term_work;
	/* alert token -> smc_sock; changed under smcr_lgrs_lock, readers
	 * in softirq under RCU; tokens are given cyclically (next_token,
	 * smcr_lgrs_lock)
	 */
	struct xarray		conns_by_token;
	u32			next_token;
	struct mutex		buf_lock;	/* bufs, and their registration */
	struct list_head	bufs;

	/* one LLC procedure at a time: link changes, rkey exchanges */
	struct mutex		llc_flow;
	/* LLC requests and link failures, handled in process context;
	 * events, want_add, add_fresh and add_req under ev_lock
	 */
	spinlock_t		ev_lock;
	struct list_head	events;
	bool			want_add;	/* seek (client: ask for) a link */
	bool			add_fresh;	/* a port came up: try again */
	bool			add_req;	/* server: the client asked */
	u8			add_fails;	/* in a row, under llc_flow */
	u8			lost_adds;	/* searches after lost paths, same */
	u8			asks;		/* client: REQUEST ADD LINKs, same */
	/* a second link is sought again later: the server tries again
	 * after a failed add, the client asks again after a REQUEST ADD
	 * LINK that brought no link (queued under smcr_lgrs_lock)
	 */
	struct delayed_work	again_work;
	/* server, under llc_flow: the client refused a link on our one
	 * device (it has one too), until it asks for a link
	 */
	bool			peer_one_dev;
	/* server, under llc_flow: the peer cannot reset it */
	struct smcr_add_budget	add_budget;
	/* server: links tried, ever; llc_flow (WRITE_ONCE), debugfs
	 * reads it with READ_ONCE
	 */
	u32			adds;
	unsigned int		nevents;	/* under ev_lock */
	/* the LLC work (llc_flow); holds a reference while queued */
	struct work_struct	ev_work;
	wait_queue_head_t	moved_wq;	/* a connection changed link */

	spinlock_t		rtok_lock;	/* rtoks, from softirq too */
	struct smcr_rtok	rtoks[SMCR_RTOKS];
};

struct smcr_gid_info;

/* What netlink shows of a link and of a link group: a snapshot */
struct smcr_link_info {
	u8			id;
	u8			state;		/* enum smcr_link_state */
	u8			port;
	u32			conns;
	u32			ifindex;	/* of the port's netdev, or 0 */
	u32			vec;		/* of its CQ */
	u32			send_wr;	/* send slots */
	u32			recv_wr;	/* receives added to the SRQ */
	u8			uid[4];
	u8			peer_uid[4];
	u8			gid[SMC_CLC_GID_LEN];
	u8			peer_gid[SMC_CLC_GID_LEN];
	char			ibname[IB_DEVICE_NAME_MAX];
};

struct smcr_lgr_info {
	u32			id;
	u8			role;
	u8			version;
	u16			vlan;
	u8			release;
	u8			max_conns;
	u8			max_links;
	u8			buf_type;
	u8			peer_os;
	u8			type;		/* SMCR_LGR_NONE... */
	bool			direct;
	u32			conns;
	u64			net_cookie;
	u64			sndbuf_alloc;	/* bytes */
	u64			rmb_alloc;
	u8			peer_host[SMC_CLC_HOSTNAME_LEN];
	u8			eid[SMC_CLC_EID_LEN];
	char			pnetid[SMC_PNETID_LEN + 1];
	unsigned int		nlinks;
	struct smcr_link_info	links[SMCR_LINKS];
};

int smcr_lgr_info_next(const struct net *net, u32 after,
		       struct smcr_lgr_info *info);
void smcr_lgr_dev_usage(const struct net *net, const struct smcr_dev *dev,
			u32 *port_links, u64 *vec_done, bool *crit);

/* The peer's link UID, from its CONFIRM LINK @m (for netlink) */
static inline void smcr_link_peer_uid(struct smcr_link *link,
				      const struct smc_llc_msg *m)
{
	memcpy(link->peer_uid, m->confirm_link.link_uid,
	       sizeof(link->peer_uid));
}

/* A work completion of @link: only its CQ's poller writes the count */
static inline void smcr_link_count_wc(struct smcr_link *link)
{
	WRITE_ONCE(link->completions, link->completions + 1);
}

/* smcr_link.c */
struct smcr_link *smcr_link_create(struct smcr_lgr *lgr, struct smcr_dev *dev,
				   u8 port, int sgid_index, const u8 *gid,
				   const u8 *mac);
int smcr_link_ready(struct smcr_link *link, bool rts);
void smcr_link_free(struct smcr_link *link);
__printf(2, 3)
void smcr_link_down(struct smcr_link *link, const char *fmt, ...);
void smcr_link_quiesce(struct smcr_link *link, unsigned long timeout);
void smcr_link_destroy(struct smcr_link *link);
struct smcr_slot *smcr_slot_get(struct smcr_link *link, bool wait);
void smcr_slot_put(struct smcr_slot *slot);
int smcr_slot_post(struct smcr_slot *slot);
int smcr_slot_post_writes(struct smcr_slot *slot, struct ib_rdma_wr *writes,
			  unsigned int nwrites, struct smcr_buf *from);
int smcr_slot_post_big(struct smcr_slot *slot, u32 len);
u8 *smcr_link_big_buf(struct smcr_link *link);
int smcr_link_reg_buf(struct smcr_link *link, struct smcr_buf *buf);
int smcr_link_test_write(struct smcr_link *link, u32 rkey, u64 addr);
void smcr_link_rx(struct smcr_link *link, const u8 *buf, const u8 *tail,
		  u32 len);
int smcr_link_activate(struct smcr_link *link);
bool smcr_link_set_down(struct smcr_link *link);
bool smcr_link_stop(struct smcr_link *link);
void smcr_link_release(struct smcr_link *link);

/* smcr_lgr.c */
extern struct list_head smcr_lgrs;	/* every SMC-R link group */
extern struct mutex smcr_lgrs_lock;	/* smcr_lgrs, conns of each lgr */
int smcr_lgr_init(struct dentry *debugfs);
void smcr_lgr_exit(void);
struct smcr_lgr *smcr_lgr_create(u8 role, const struct smcr_gid_info *gi,
				 struct net *net, u8 version);
void smcr_lgr_publish(struct smcr_lgr *lgr);
void smcr_lgr_discard(struct smcr_lgr *lgr);
void smcr_lgr_put(struct smcr_lgr *lgr);
struct smc_clc_proposal;
struct smc_clc_accept;
struct smcr_lgr *smcr_lgr_find_server(const struct net *net,
				      const struct smc_clc_proposal *p,
				      u8 version,
				      const struct in6_addr *tcp_peer);
struct smcr_lgr *smcr_lgr_find_client(const struct net *net,
				      const struct smc_clc_accept *a,
				      struct smcr_link **link,
				      const struct in6_addr *tcp_peer);
int smcr_lgr_add_conn(struct smcr_lgr *lgr, struct smc_sock *smc,
		      struct smcr_link *link);
struct smcr_link *smcr_lgr_peer_link(struct smcr_lgr *lgr, const u8 *gid,
				     u32 qpn);
bool smcr_lgr_peer_token_used(struct smcr_lgr *lgr, u32 token,
			      const struct smc_sock *self);
unsigned int smcr_lgr_link_conns(struct smcr_lgr *lgr, struct smcr_link *link,
				 struct smc_sock **out, unsigned int max);
void smcr_lgr_del_conn(struct smc_sock *smc);
void smcr_lgr_orphan_at(struct smcr_lgr *lgr, unsigned long end);
int smcr_lgr_reg_bufs(struct smcr_lgr *lgr);
void smcr_lgr_rx_cdc(struct smcr_lgr *lgr, const u8 *buf, u32 len);
void smcr_lgr_link_down(struct smcr_lgr *lgr);
void smcr_lgrs_dev_gone(struct smcr_dev *dev);
void smcr_lgrs_port_down(struct smcr_dev *dev, u8 port);
void smcr_lgrs_port_up(struct smcr_dev *dev);
void smcr_lgr_terminate(struct smcr_lgr *lgr, u32 reason);
struct smcr_link *smcr_lgr_active_link(struct smcr_lgr *lgr,
				       const struct smcr_link *not);
int smcr_lgr_link_slot(struct smcr_lgr *lgr, bool sym, bool *third);
void smcr_lgr_link_set(struct smcr_lgr *lgr, unsigned int idx,
		       struct smcr_link *link);
void smcr_lgr_kick(struct smcr_lgr *lgr);
void smcr_lgr_want_add(struct smcr_lgr *lgr, bool fresh);
void smcr_lgr_add_later(struct smcr_lgr *lgr);
bool smcr_lgr_ended(struct smcr_lgr *lgr);

/* smcr_conn.c: orphans whose peer never said it was done */
bool smcr_conn_orphan_due(struct smc_sock *smc, unsigned long *next,
			  bool *later);
void smcr_conn_reap(struct smc_sock *smc);

/* smcr_buf.c */
struct smcr_buf *smcr_buf_get(struct smcr_lgr *lgr, u8 comp, bool rmb,
			      bool *reused);
void smcr_buf_sync_pages(struct ib_device *ibdev, struct smcr_buf_map *mp);
void smcr_buf_put(struct smcr_lgr *lgr, struct smcr_buf *buf);
void smcr_buf_retire(struct smcr_lgr *lgr, struct smcr_buf *buf);
void smcr_buf_free(struct smcr_lgr *lgr, struct smcr_buf *buf);
int smcr_bufs_map_link(struct smcr_lgr *lgr, struct smcr_link *link);
int smcr_bufs_reg_link(struct smcr_lgr *lgr, struct smcr_link *link);
void smcr_bufs_unmap_link(struct smcr_lgr *lgr, struct smcr_link *link);
unsigned int smcr_bufs_rkeys(struct smcr_lgr *lgr, struct smcr_link *from,
			     struct smcr_link *to, struct smc_llc_rkey *rk,
			     unsigned int max);

/* smcr_llc.c: LLC messages and procedures */
int smcr_llc_send(struct smcr_link *link, struct smc_llc_msg *m);
int smcr_llc_send_big(struct smcr_link *link, struct smc_llc_msg *m,
		      const struct smc_llc_rkey *rkeys);
void smcr_llc_arm(struct smcr_link *link, u8 type, bool resp);
int smcr_llc_wait(struct smcr_link *link, unsigned long timeout,
		  struct smc_llc_msg *m);
u8 *smcr_llc_take_raw(struct smcr_link *link, u32 *len);
bool smcr_llc_deliver(struct smcr_link *link, const struct smc_llc_msg *m,
		      const u8 *buf, u32 len);
void smcr_llc_rx(struct smcr_link *link, const struct smc_llc_msg *m,
		 const u8 *buf, u32 len);
void smcr_llc_work(struct work_struct *work);
void smcr_llc_drain(struct smcr_lgr *lgr);
struct smcr_link *smcr_llc_link_by_id(struct smcr_lgr *lgr, u8 id);
void smcr_confirm_link_fill(struct smc_llc_msg *m,
			    const struct smcr_link *link, bool resp);
int smcr_llc_confirm_rkey(struct smcr_lgr *lgr, struct smcr_link *link,
			  struct smcr_buf *rmb);

/* smcr_rtok.c: the peer's RMBs */
int smcr_rtok_add(struct smcr_lgr *lgr, unsigned int idx, u32 rkey,
		  u64 addr);
void smcr_rtok_put(struct smcr_lgr *lgr, int rtok);
bool smcr_rtok_get_link(struct smcr_lgr *lgr, int rtok, unsigned int idx,
			u32 *rkey, u64 *addr);
void smcr_rtoks_drop_link(struct smcr_lgr *lgr, unsigned int idx);
bool smcr_rtok_learn(struct smcr_lgr *lgr, unsigned int idx, u32 rkey,
		     unsigned int idx2, u32 rkey2, u64 addr2);
bool smcr_rtok_delete(struct smcr_lgr *lgr, unsigned int idx, u32 rkey);

/*
 * debugfs smcr-llc-test (root only), bits: an end that misbehaves as a
 * hostile peer may, for the tests of the receive path and of the add
 * throttle between two groups of this host
 */
#define SMCR_LLC_TEST_REFUSE	0x01	/* client: refuse every ADD LINK,
					 * then ask for one (REQ ADD LINK)
					 */
#define SMCR_LLC_TEST_DECOY	0x02	/* a v2 ADD LINK is followed by a
					 * response of its size, other rkeys
					 */
#define SMCR_LLC_TEST_HOLD	0x04	/* a received ADD LINK is read only
					 * when the next receive completes
					 */
#define SMCR_LLC_TEST_STARVE	0x08	/* no receive is posted again: the
					 * peer's sends meet RNR NAKs, retried
					 * for ever (rnr_retry 7)
					 */
#define SMCR_LLC_TEST_STALE	0x10	/* a CDC with connection state flags
					 * carries an old sequence number
					 */
extern u8 smcr_llc_test;

/* smcr_conn.c: an SMC-R connection's life after its handshake */
extern const struct smc_conn_ops smcr_conn_ops;
void smcr_conn_release_work(struct work_struct *work);
void smcr_conn_teardown(struct smc_sock *smc);
void smcr_conn_release(struct smc_sock *smc);
void smcr_conn_peer_done(struct smc_sock *smc);
void smcr_conn_lost(struct smc_sock *smc);

/* smcr_tx.c: the SMC-R send path, and its move to another link */
int smcr_tx_prepare(struct smc_sock *smc, bool killable);
void smcr_tx_write(struct smc_sock *smc);
void smcr_conn_hold(struct smc_sock *smc, struct smcr_link *from);
int smcr_conn_failover(struct smc_sock *smc, struct smcr_lgr *lgr,
		       struct smcr_link *from, struct smcr_link *to);

/* A RoCE GID as text: eight groups of four hex digits */
#define SMC_GID_STR_LEN		40

static inline void smc_gid_str(char *buf, const u8 *gid)
{
	int i, n = 0;

	for (i = 0; i < 16; i += 2)
		n += scnprintf(buf + n, SMC_GID_STR_LEN - n, "%s%02x%02x",
			       i ? ":" : "", gid[i], gid[i + 1]);
}

/* smcr_debugfs.c */
void smcr_debugfs_init(struct dentry *debugfs);
void smcr_debugfs_exit(void);

/* debugfs smcr-mutate (smcr_mutate.c): an end that mutates its sends */
DECLARE_STATIC_KEY_FALSE(smcr_mutate_key);
u32 __smcr_mutate(struct smcr_link *link, u8 *msg, u32 len, u32 cap);
void smcr_mutate_init(struct dentry *debugfs);
void smcr_mutate_exit(void);

/* The length of @msg to send on @link, once the test hook has had it */
static inline u32 smcr_mutate(struct smcr_link *link, u8 *msg, u32 len,
			      u32 cap)
{
	if (static_branch_unlikely(&smcr_mutate_key))
		return __smcr_mutate(link, msg, len, cap);
	return len;
}

#endif /* _SMCR_H */
