/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: socket layer definitions.
 *
 * An AF_SMC socket starts life as a wrapper around an internal kernel
 * TCP socket (the "clcsock").  The TCP handshake and, later, the CLC
 * handshake run over that socket.  Afterwards the connection either
 * moves its data over SMC (shared memory or RDMA) or stays on TCP for
 * good ("fallback").  Until one of the two has happened every call is
 * answered by the internal TCP socket, so the socket behaves exactly
 * like TCP.
 *
 * Lock order:
 *   smc sock lock (lock_sock)
 *     -> smc_listen_info.lock (accept queue spinlock)
 *     -> clcsock sock lock (taken inside kernel TCP calls)
 *   smc_sock_table.lock (rwlock) -> rx_lock, tx_lock (sock_diag);
 *   the fallback statistics mutex (smc_net.fback.lock) is a leaf.
 *   The whole tree: Documentation/networking/smc.rst, "Locking".
 * Callbacks installed on the clcsock run under the clcsock lock or in
 * softirq context; they never take the smc sock lock, they only wake
 * waiters or queue work.
 */
#ifndef __SMC_H
#define __SMC_H

#include <linux/sched/signal.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_cdc_wire.h"
#include "smc_clc_wire.h"
#include "smc_close_fsm.h"
#include "smc_compat.h"
#include "smc_ism.h"
#include "smc_ring.h"
#include "smc_stats.h"
#include "smcr_dev.h"

/* socket(AF_SMC, SOCK_STREAM, proto): the family of the internal socket */
#define SMCPROTO_SMC		0	/* internal socket is AF_INET */
#define SMCPROTO_SMC6		1	/* internal socket is AF_INET6 */

#define SMC_DEFAULT_BUFSIZE	(64 * 1024)	/* net.smc.wmem/rmem */
#define SMC_MIN_BUFSIZE		(16 * 1024)
#define SMC_AUTOCORK_DEFAULT	(64 * 1024)	/* net.smc.autocorking_size */
#define SMC_TESTLINK_DEFAULT	(30 * HZ)	/* net.smc.smcr_testlink_time */
/* net.smc.smcr_max_send_wr and smcr_max_recv_wr, as upstream */
#define SMC_SEND_WR_DEFAULT	16
#define SMC_RECV_WR_DEFAULT	48
#define SMC_WR_MIN		2
#define SMC_WR_MAX		2048

/* net.smc.smcr_buf_type: the memory of new SMC-R buffers */
enum {
	SMCR_BUF_PHYS,		/* physically contiguous pages */
	SMCR_BUF_VIRT,		/* virtually contiguous (vmalloc) */
	SMCR_BUF_MIXED,		/* contiguous pages if cheap, else vmalloc */
};

/* sk_state values; these numbers are user API (sock_diag, smcss) */
enum smc_state {
	SMC_ACTIVE		= SMC_FSM_ACTIVE,
	SMC_INIT		= SMC_FSM_INIT,
	SMC_CLOSED		= SMC_FSM_CLOSED,
	SMC_LISTEN		= 10,
	SMC_PEERCLOSEWAIT1	= SMC_FSM_PEERCLOSEWAIT1,
	SMC_PEERCLOSEWAIT2	= SMC_FSM_PEERCLOSEWAIT2,
	SMC_APPCLOSEWAIT1	= SMC_FSM_APPCLOSEWAIT1,
	SMC_APPCLOSEWAIT2	= SMC_FSM_APPCLOSEWAIT2,
	SMC_APPFINCLOSEWAIT	= SMC_FSM_APPFINCLOSEWAIT,
	SMC_PEERFINCLOSEWAIT	= SMC_FSM_PEERFINCLOSEWAIT,
	SMC_PEERABORTWAIT	= SMC_FSM_PEERABORTWAIT,
	SMC_PROCESSABORT	= SMC_FSM_PROCESSABORT,
};

/*
 * Which transport carries the data of a socket.  SMC_PATH_TCP covers
 * both "not decided yet" (the handshake still runs on TCP) and
 * "fallback" (decided for good); use_fallback tells them apart.
 */
enum smc_path {
	SMC_PATH_TCP,
	SMC_PATH_SMCR,
	SMC_PATH_SMCD,
};

struct smc_sock;
struct smcd_dev;
struct smcd_dmb;
struct smcd_lgr;

struct smcr_buf;
struct smcr_lgr;
struct smcr_link;
struct smcr_slot;

/*
 * The data state of a connection over SMC-D or SMC-R.  The peer writes
 * into our receive ring (rx: the data part of our DMB, or our RMB); we
 * write into tx, the data part of the peer's DMB (SMC-D no-copy) or our
 * send buffer, from which RDMA writes copy each byte to the same offset
 * of the peer's RMB (SMC-R; the two have the same size).
 */
struct smc_conn {
	u32			alert_token;	/* ours, in lgr */
	/* copies for sock_diag, which must not touch the buffers */
	u32			lgr_id;
	u32			rmb_len;	/* SMC-D: the first window */
	u32			peer_len;	/* SMC-D: the first window */
	u32			tx_fold;	/* SMC-D: the peer's fold now */
	/* SMC-D: our window as our reader last saw it (smc sock lock) */
	u32			rx_window;
	struct smc_ring		rx;		/* our ring, rmb_ring bytes */
	struct smc_ring		tx;		/* send ring, tx_ring bytes */
	u32			rmb_ring;	/* data ring of rmb */
	u32			tx_ring;	/* data ring of peer */

	/* SMC-D */
	struct smcd_dev		*dev;
	struct smcd_lgr		*lgr;
	u64			rmb_token;
	u64			peer_token;
	struct smcd_gid		peer_gid;
	struct smcd_dmb		*rmb;		/* ours, written by the peer */
	struct smcd_dmb		*peer;		/* the peer's, attached */
	kuid_t			rmb_uid;	/* init_net: rmb counts here */

	/* SMC-R */
	struct smcr_lgr		*rlgr;		/* holds a reference */
	/* the lgr's, in use: written under tx_lock; lockless readers
	 * (slot reservation, sock_diag counts) recheck under it or only count
	 */
	struct smcr_link	*link;
	struct smcr_buf		*rmb_buf;	/* our RMB */
	struct smcr_buf		*snd_buf;	/* our send buffer */
	struct smcr_slot	*tx_slot;	/* reserved for the next CDC */
	int			rtok;		/* the peer's RMB, -1: none */
	/* the peer's RMB on our link, for the writes (tx_lock) */
	u64			peer_rmb_addr;
	u32			peer_rkey;
	/* peer's token, in our CDCs; written under tx_lock, read by the
	 * token check under smcr_lgrs_lock only: a stale one is the same
	 * answer a moment earlier
	 */
	u32			peer_alert;
	/* no link can carry the connection any more: senders give up;
	 * set once (WRITE_ONCE), read locklessly: a late look costs a wait
	 */
	bool			tx_dead;
	/* under tx_lock: moving to another link (no sends meanwhile), a
	 * reservation dropped for it, torn down (a move leaves it alone).
	 * smcr_tx_prepare() peeks at tx_moving unlocked and rechecks it
	 * under tx_lock before it keeps a slot.
	 */
	bool			tx_moving;
	bool			tx_owed;
	bool			torn;
	/* the peer may write into our RMB still: not back to the pool;
	 * its memory regions go on every link before it is freed
	 */
	bool			rmb_kept;
	/* the peer writes no more into our RMB (rx_lock) */
	bool			peer_stopped;
	/* released by the application before the peer was done writing */
	/* under rx_lock; teardown reads it unlocked once it owns the orphan */
	bool			orphan;
	bool			release_queued;	/* under rx_lock */
	unsigned long		orphan_end;	/* then reaped, rx_lock */
	struct work_struct	release_work;
	/* last CDC sequence sent (tx_lock), last one whose send completed
	 * (completion); autocorking reads both unlocked, its smp_mb() pair
	 * with smc_tx_cdc_done() orders them
	 */
	u16			cdc_tx_seq;
	u16			cdc_tx_done;
	/* data held back until the CDC in flight completes, and the work
	 * that then sends it (see smc_tx_autocork())
	 */
	bool			tx_autocorked;
	struct work_struct	tx_work;
	/* SMC-D: gives back the ring's idle pages (smc_tx_trim_work()) */
	struct delayed_work	tx_trim;
	unsigned long		tx_last;	/* jiffies of the last write */
	u8			tx_trim_backoff;	/* smc sock lock */
	/* SMC-D: a write found the window full; widen it when the bytes
	 * in flight allow (smc sock lock)
	 */
	bool			tx_widen;
	u16			cdc_rx_seq;	/* last CDC sequence taken */
	bool			cdc_rx_seq_valid;

	/* orders the messages to the peer */
	spinlock_t		tx_lock;
	struct smc_cursor	tx_prod;	/* next byte we produce */
	struct smc_cursor	tx_prod_sent;	/* last one the peer got */
	u8			tx_prod_flags;
	u8			tx_conn_flags;	/* sticky close flags */
	/* SMC_TX_NOSPACE: a writer found the peer's ring full */
	unsigned long		tx_flags;

	/* local reading position: smc sock lock, written under rx_lock
	 * and rx_seq; every send reads it under tx_lock alone, through
	 * rx_seq (an older value is a consumer update the peer gets again
	 * with the next one, a torn one would free room never read)
	 */
	struct smc_cursor	rx_cons;
	struct smc_cursor	rx_cons_sent;	/* last one the peer got */

	/*
	 * what the peer last told us (DMB header or CDC).  Writers take
	 * rx_lock and bump rx_seq (smc_rx_write_lock()); the hot readers
	 * (send, receive, poll) only retry on rx_seq.
	 */
	spinlock_t		rx_lock;
	seqcount_spinlock_t	rx_seq;
	struct smc_cursor	peer_prod;
	struct smc_cursor	peer_cons;
	u8			peer_prod_flags;
	u8			peer_conn_flags;

	/*
	 * Close state and urgent data, under rx_lock.  urg_pos is the urgent byte's place
	 * in our ring, urg_prod the producer cursor that announced it (a
	 * header repeating the announcement is not a new urgent byte).
	 */
	struct smc_close_fsm	fsm;		/* mirrored in sk_state */
	u8			urg_state;	/* enum smc_urg_state */
	u8			urg_byte;
	struct smc_cursor	urg_pos;
	struct smc_cursor	urg_prod;
	struct smc_cursor	urg_hole;	/* a replaced urgent byte */
	bool			urg_hole_set;
};

/* What a DMB header or a CDC message tells about the peer */
struct smc_cdc_view {
	struct smc_cursor	prod;
	struct smc_cursor	cons;
	u8			prod_flags;
	u8			conn_state_flags;
	/* SMC-R: the CDC's sequence number; an older one is dropped */
	bool			has_seq;
	u16			seq;
};

/* What TCP calls urg_data: none, valid (not read by MSG_OOB), read */
enum smc_urg_state {
	SMC_URG_NONE,
	SMC_URG_VALID,
	SMC_URG_READ,
};

/* Change the receive state of @c: rx_lock, and rx_seq for lockless readers */
static inline void smc_rx_write_lock(struct smc_conn *c)
{
	spin_lock_bh(&c->rx_lock);
	write_seqcount_begin(&c->rx_seq);
}

static inline void smc_rx_write_unlock(struct smc_conn *c)
{
	write_seqcount_end(&c->rx_seq);
	spin_unlock_bh(&c->rx_lock);
}

/* One cursor of the receive state (@src in @c), read without rx_lock */
static inline struct smc_cursor smc_rx_curs(struct smc_conn *c,
					    const struct smc_cursor *src)
{
	struct smc_cursor curs;
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&c->rx_seq);
		curs = *src;
	} while (read_seqcount_retry(&c->rx_seq, seq));
	return curs;
}

/* Bits of smcd_conn.tx_flags */
enum {
	SMC_TX_NOSPACE,	/* wake writers when the peer frees room */
};

/* State a listening socket keeps for connections on their way to accept() */
struct smc_listen_info {
	struct smc_sock		*smc;		/* the listener */
	struct work_struct	tcp_accept_work; /* takes new TCP children */
	spinlock_t		lock;		/* protects the fields below */
	struct list_head	accept_q;	/* handshake done, not accepted */
	/* read unlocked by smc_listen_congested() and the accept wait: a
	 * stale count admits or refuses one SYN, or wakes once more
	 */
	unsigned int		accept_q_len;
	unsigned int		in_handshake;	/* children in handshake */
	bool			stalled;	/* queue full, work paused */
	bool			closed;		/* listener is going away */
};

struct smc_sock {
	/* first: an IPPROTO_SMC socket is an inet one to the core, which
	 * writes the inet_sock part when it creates it (smc_inet.c)
	 */
	union {
		struct sock		sk;
		struct inet_sock	inet;
	};
	struct socket		*clcsock;	/* internal TCP socket */
	struct list_head	table_node;	/* in smc_sock_table */
	u64			table_id;	/* order in the table */

	/* smc sock lock; smc_on_smc() reads it unlocked (poll, the TCP
	 * callbacks): the path changes once, before the connection is used
	 */
	enum smc_path		path;
	bool			use_fallback;	/* TCP for good */
	u32			fallback_rsn;	/* local reason (decline code) */
	u32			peer_diagnosis;	/* code from the peer's decline */
	bool			peer_sync_err;	/* ... sent with the out-of-sync
						 * bit: our link group is stale
						 */
	bool			file_redirected; /* file points at clcsock */

	/* client side */
	bool			connect_inflight; /* connect() blocks in TCP */
	/* TCP connect runs on, then connect_work finishes it; written
	 * under the sock lock, read unlocked by poll and the waiters,
	 * which look again under the lock
	 */
	bool			connect_pending;
	struct work_struct	connect_work;
	bool			connect_bg;	/* connect_pending was set */

	/* server side */
	/* set once under the sock lock, freed with the sock; read unlocked
	 * by smc_listen_congested(), which only counts
	 */
	struct smc_listen_info	*listen;
	struct smc_sock		*listen_smc;	/* parent of a child */
	struct list_head	accept_node;	/* in parent's accept_q */
	struct work_struct	handshake_work;	/* child's handshake */
	/* who does the handshake of a child: enum smc_hs_state */
	atomic_t		hs_state;
	unsigned long		hs_deadline;	/* jiffies: CLC wait ends */
	struct timer_list	hs_timer;	/* unparks at hs_deadline */

	struct smc_conn		conn;		/* paths SMCD and SMCR */

	struct smc_stats __percpu *stats;	/* of its netns */

	/* options stored for later use */
	/* SOL_SMC SMC_LIMIT_HS; read unlocked for each SYN: a change
	 * applies from some SYN on
	 */
	bool			limit_hs;
	int			defer_accept;	/* TCP_DEFER_ACCEPT seconds */
};

/*
 * An IPPROTO_SMC socket over AF_INET6 (and its children): the core finds
 * its ipv6_pinfo through the proto's ipv6_pinfo_offset.
 */
struct smc_sock6 {
	struct smc_sock		smc;
	struct ipv6_pinfo	np;
};

/* The smc sock of an internal TCP socket; RCU read side */
static inline struct smc_sock *smc_clcsk_owner(const struct sock *clcsk)
{
	return __rcu_dereference_sk_user_data_with_flags(clcsk,
							 SK_USER_DATA_NOCOPY);
}

static inline struct smc_sock *smc_sk(const struct sock *sk)
{
	return (struct smc_sock *)sk;
}

/* Assert that the caller owns the smc sock lock (lock_sock()) */
static inline void smc_owned_by_me(const struct smc_sock *smc)
{
	sock_owned_by_me(&smc->sk);
}

/* true once the data goes over SMC-D or SMC-R */
static inline bool smc_on_smc(const struct smc_sock *smc)
{
	return READ_ONCE(smc->path) != SMC_PATH_TCP;
}

/* true while every call on the socket is served by the TCP socket */
static inline bool smc_on_tcp(const struct smc_sock *smc)
{
	return READ_ONCE(smc->path) == SMC_PATH_TCP;
}

/*
 * May a blocking socket call sleep now?  -EAGAIN when its timeout is
 * used up (or it does not block), the signal's error when one is
 * pending, else 0.
 */
static inline int smc_may_sleep(long timeo)
{
	if (!timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(timeo);
	return 0;
}

static inline struct sock *smc_clcsk(const struct smc_sock *smc)
{
	return smc->clcsock ? smc->clcsock->sk : NULL;
}

/*
 * Over IPv6: socket(AF_SMC, .., SMCPROTO_SMC6), or an AF_INET6
 * IPPROTO_SMC socket; the family of its internal TCP socket
 */
static inline bool smc_sk_v6(const struct sock *sk)
{
	if (sk->sk_family == PF_SMC)
		return sk->sk_protocol == SMCPROTO_SMC6;
	return sk->sk_family == PF_INET6;
}

extern struct proto smc_proto;
extern struct proto smc_proto6;
extern const struct proto_ops smc_sock_ops;
extern const struct proto_ops smc_inet_ops;
extern const struct proto_ops smc_inet6_ops;

/* smc_core.c: what the whole module shares */
extern struct workqueue_struct *smc_hs_wq;
extern struct workqueue_struct *smc_wq;
#define SMC_LGR_ID_STEP		256
u32 smc_lgr_new_id(void);
int smc_core_init(void);
void smc_core_exit(void);

/* af_smc.c */
struct sock *smc_sock_alloc(struct net *net, struct socket *sock,
			    int protocol, gfp_t gfp);
struct sock *smc_child_alloc(const struct sock *lsk);
void smc_set_keepalive(struct sock *sk, int val);
void smc_sock_setup(struct sock *sk);
int smc_create_clcsock(struct smc_sock *smc);
void smc_sock_destroy_clcsock(struct smc_sock *smc);

/* smc_table.c: every smc sock, for sock_diag */
struct smc_sock_table {
	rwlock_t		lock;
	struct list_head	head;
};

void smc_table_add(struct smc_sock *smc);
void smc_table_del(struct smc_sock *smc);
void smc_table_clear_clcsock(struct smc_sock *smc);
int smc_table_walk(struct net *net, int protocol, u64 *last_id,
		   int (*fn)(struct smc_sock *smc, void *arg), void *arg);

/* smc_fallback.c: the clcsock callbacks and the switch to TCP */
struct smc_sock *smc_tcp_sk_owner(const struct sock *sk);
int smc_clcsk_attach(struct smc_sock *smc);
void smc_clcsk_detach(struct smc_sock *smc);
void smc_clcsk_release(struct socket *clcsock);
void smc_switch_to_fallback(struct smc_sock *smc, u32 reason);
void smc_fallback_redirect(struct smc_sock *smc);
void smc_fallback_undo_redirect(struct smc_sock *smc);
int smc_fallback_init(void);

/* smc_sockopt.c */
void smc_copy_sock_settings_to_clc(struct smc_sock *smc);
void smc_copy_sock_settings_from_clc(struct smc_sock *smc);
int smc_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int smc_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);

/* smc_connect.c */
int smc_connect(struct socket *sock, struct sockaddr_unsized *addr, int alen,
		int flags);
void smc_connect_work(struct work_struct *work);
void smc_connect_cancel(struct smc_sock *smc);
int smc_wait_connected(struct smc_sock *smc, long timeo);

/* smc_listen.c */
int smc_listen(struct socket *sock, int backlog);
void smc_listen_kick(struct smc_sock *lsmc);
void smc_listen_stop(struct smc_sock *lsmc);
void smc_handshake_work(struct work_struct *work);
void smc_listen_accept_now(struct smc_sock *lsmc);
void smc_listen_unpark(struct smc_sock *child);
struct smc_sock *smc_listen_claim(struct sock *clcsk);
void smc_listen_claim_end(struct smc_sock *child, bool done);
void smc_listen_claim_fallback(struct smc_sock *child, u32 reason);

/* smc_sockops.c: data and control calls */
int smc_getname(struct socket *sock, struct sockaddr *addr, int peer);
__poll_t smc_poll(struct file *file, struct socket *sock,
		  poll_table *wait);
int smc_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg);
int smc_shutdown(struct socket *sock, int how);
int smc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len);
int smc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		int flags);
ssize_t smc_splice_read(struct socket *sock, loff_t *ppos,
			struct pipe_inode_info *pipe, size_t len,
			unsigned int flags);

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
void smc_rendezvous_debugfs(struct dentry *dir);

/*
 * A server's device check failed without a reason of its own (an EID
 * mismatch): the decline gives the reason of another path, as upstream.
 */
#define SMC_HS_SILENT	U32_MAX

/* smcd_conn.c: SMC-D handshake and connection life */
extern bool smc_smcd_enabled;

int smcd_connect_accept(struct smc_sock *smc, struct smc_hs *hs);
u32 smcd_listen_v2_check(const struct smc_clc_proposal *p);
u32 smcd_listen_check(const struct smc_clc_proposal *p,
		      struct smcd_dev **devp);
int smcd_listen_accept(struct smc_sock *child, struct smc_hs *hs);
int smcd_rendezvous_setup(struct smc_sock *smc, struct smc_sock *child,
			  struct smc_hs *hs);
void smcd_conn_teardown(struct smc_sock *smc);
u32 smcd_decline_reason(int err);
void smcd_tx_write(struct smc_conn *c);

/* smcr_hs.c: the SMC-R part of the CLC handshake */
extern bool smc_smcr_enabled;

/*
 * Do we announce SMC in the TCP handshake?  Only with something to
 * offer or accept: loopback-ism, or an RDMA device for SMC-R.
 */
static inline bool smc_syn_smc(void)
{
	return READ_ONCE(smc_smcd_enabled) ||
	       (READ_ONCE(smc_smcr_enabled) && smcr_devs_present());
}

/*
 * What the TCP socket @clcsk sends from now on is the user's (connect()
 * went to TCP as it is, or failed; a fallback; a listener shut down):
 * its SYN or SYN-ACK must not offer SMC, or the user would speak CLC.
 */
static inline void smc_clcsk_no_smc(struct sock *clcsk)
{
	smc_tcp_set_syn_smc(clcsk, false);
}

int smcr_connect_offer(struct smc_sock *smc, struct smc_hs *hs);
int smcr_connect_offer_v1(struct smc_sock *smc, struct smc_hs *hs);
int smcr_connect_accept(struct smc_sock *smc, struct smc_hs *hs);
u32 smcr_listen_v2_check(const struct smc_clc_proposal *p);
u32 smcr_listen_check(struct smc_sock *child, struct smc_hs *hs);
u32 smcr_listen_check_v1(struct smc_sock *child, struct smc_hs *hs);
int smcr_listen_accept(struct smc_sock *child, struct smc_hs *hs, u8 version);

/* smcr_conn.c: an SMC-R connection's life after its handshake */
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

/* smc_prefix.c: the IP prefixes of SMC v1 */
void smc_prefix_gid(const struct sock *sk, struct in6_addr *gid);
struct net_device *smc_prefix_dev(struct sock *sk);
int smc_prefix_fill(struct sock *sk, struct smc_clc_proposal *p);
bool smc_prefix_match(struct sock *sk, const struct smc_clc_proposal *p);

/* smcd_lgr.c: SMC-D link groups */
#define SMCD_LGR_CLIENT		0	/* values of smc_diag_lgrinfo.role */
#define SMCD_LGR_SERVER		1

int smcd_lgr_join(struct smc_sock *smc, const struct smcd_gid *peer,
		  u8 role, bool create, bool *first);
void smcd_lgr_leave(struct smc_sock *smc);
void smcd_lgr_stale(struct smc_sock *smc);
void smcd_lgr_note_peer(struct smc_sock *smc, const struct smc_clc_accept *a);

/* A RoCE GID as text: eight groups of four hex digits */
#define SMC_GID_STR_LEN		40

static inline void smc_gid_str(char *buf, const u8 *gid)
{
	int i, n = 0;

	for (i = 0; i < 16; i += 2)
		n += scnprintf(buf + n, SMC_GID_STR_LEN - n, "%s%02x%02x",
			       i ? ":" : "", gid[i], gid[i + 1]);
}

/* smcr_conn.c: sock_diag's view of an SMC-R connection's link */
struct smc_diag_lgrinfo;
bool smcr_conn_diag_lgr(struct smc_sock *smc, struct smc_diag_lgrinfo *li);

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

/* smc_conn.c: a connection over SMC-D or SMC-R, its life */
void smc_conn_init(struct smc_conn *c);
void smc_conn_start(struct smc_sock *smc, enum smc_path path);
void smc_conn_close(struct smc_sock *smc);
__poll_t smc_conn_poll(struct smc_sock *smc);
int smc_conn_shutdown(struct smc_sock *smc, int how);
int smc_conn_ioctl(struct smc_sock *smc, unsigned int cmd,
		   unsigned long arg);

static inline u8 smc_peer_flags(struct smc_conn *c)
{
	return READ_ONCE(c->peer_conn_flags);
}

/* The peer will write nothing more */
static inline bool smc_peer_done(struct smc_conn *c)
{
	return smc_peer_flags(c) & (SMC_CDC_CS_DONE_WRITING |
				     SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
}

/* The peer reads nothing more */
static inline bool smc_peer_gone(struct smc_conn *c)
{
	return smc_peer_flags(c) & (SMC_CDC_CS_CLOSED | SMC_CDC_CS_ABORT);
}

/* smc_rx.c: receiving */
bool smc_conn_rx_cdc(struct smc_sock *smc, const struct smc_cdc_view *in);
int smc_conn_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		     int flags);
ssize_t smc_conn_splice_read(struct smc_sock *smc,
			     struct pipe_inode_info *pipe, size_t len,
			     bool nonblock);
u32 smc_conn_readable(struct smc_sock *smc);

/* What a reader at @cons sees: bytes, and the distance to the mark */
struct smc_rx_view {
	u32	avail;
	u32	to_mark;	/* U32_MAX: no urgent byte ahead */
	u8	urg_state;
	u8	peer_flags;	/* taken with avail: EOF never hides data */
	bool	at_hole;	/* the reader is at a replaced urgent byte */
};

void smc_rx_look(struct smc_conn *c, const struct smc_cursor *cons,
		 struct smc_rx_view *v);
u32 smc_rx_normal(struct sock *sk, const struct smc_rx_view *v);
int smc_rcv_target(struct sock *sk, struct smc_conn *c, bool waitall,
		   size_t len, bool consumes);

/* smc_tx.c: sending */
void smc_tx_init(struct smc_conn *c);
int smc_conn_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len);
void smc_tx_publish(struct smc_sock *smc);
void smc_tx_trim_cancel(struct smc_sock *smc);
void smc_tx_cdc_done(struct smc_sock *smc, u16 seq);
bool smc_tx_writable(struct smc_conn *c);

/* The peer's window now, for the statistics (a glance) */
static inline u32 smc_conn_tx_window(const struct smc_conn *c)
{
	u32 fold = READ_ONCE(c->tx_fold), ring = READ_ONCE(c->tx_ring);

	return fold ? smc_fold_window(ring, fold) : ring;
}

/* Our window as our reader last saw it, for the statistics (a glance) */
static inline u32 smc_conn_rx_window(const struct smc_conn *c)
{
	return READ_ONCE(c->rx_window) ?: READ_ONCE(c->rmb_ring);
}

void smc_tx_flush(struct smc_sock *smc);
void smc_send_conn_flags(struct smc_sock *smc, u8 flags);

/*
 * The transport's part of publishing our cursors: reserve what the
 * message needs (may sleep), write it (tx_lock held), ring the
 * doorbell (after tx_lock).
 */
static inline int smc_tx_prepare(struct smc_sock *smc, bool killable)
{
	return smc->conn.link ? smcr_tx_prepare(smc, killable) : 0;
}

static inline void smc_tx_write(struct smc_sock *smc)
{
	if (smc->conn.link)
		smcr_tx_write(smc);
	else
		smcd_tx_write(&smc->conn);
}

static inline void smc_tx_done(struct smc_sock *smc)
{
	if (!smc->conn.link)
		smcd_dmb_signal(smc->conn.peer);
}

/* smc_netns.c */
struct smc_net {
	/* net.smc sysctls, see Documentation/networking/smc-sysctl.rst */
	int			wmem;
	int			rmem;
	int			limit_smc_hs;	/* 0 or 1 */
	unsigned int		autocorking_size;
	unsigned int		smcr_buf_type;	/* SMCR_BUF_* */
	int			smcr_testlink_time;	/* jiffies, 0: off */
	int			smcr_max_links_per_lgr;
	int			smcr_max_conns_per_lgr;
	unsigned int		smcr_max_send_wr;	/* send slots a link */
	unsigned int		smcr_max_recv_wr;	/* receives a link */
	struct ctl_table_header	*sysctl;
	struct smc_stats __percpu *stats;
	struct smc_fback_stats	fback;
	struct mutex		pnet_lock;	/* pnet_list */
	struct list_head	pnet_list;	/* the PNET ID table */
	/* DMBs our SMC-D connections own here; not counted in init_net */
	atomic_t		smcd_dmbs;
};

struct smc_net *smc_net(const struct net *net);
int smc_netns_init(void);
void smc_netns_exit(void);

/* smc_sysctl.c */
int smc_sysctl_net_init(struct net *net, struct smc_net *sn);
void smc_sysctl_net_exit(struct smc_net *sn);

/* smc_pnet.c */
void smc_pnet_net_init(struct smc_net *sn);
void smc_pnet_net_exit(struct smc_net *sn);
void smc_pnet_lookup_dev(const char *name, const char *parent, u8 port,
			 char *pnetid);
void smc_pnet_lookup_netdev(struct net *net, const char *ifname,
			    char *pnetid);
int smc_pnet_init(void);

void smc_pnet_exit(void);

#endif /* __SMC_H */
