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
 *   smc_sock_table.lock (rwlock) is a leaf.
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
#include <net/sock.h>

#include "smc_cdc_wire.h"
#include "smc_clc_wire.h"
#include "smc_close_fsm.h"
#include "smc_compat.h"
#include "smc_ism.h"

/* socket(AF_SMC, SOCK_STREAM, proto): the family of the internal socket */
#define SMCPROTO_SMC		0	/* internal socket is AF_INET */
#define SMCPROTO_SMC6		1	/* internal socket is AF_INET6 */

#define SMC_DEFAULT_BUFSIZE	(64 * 1024)	/* net.smc.wmem/rmem */
#define SMC_MIN_BUFSIZE		(16 * 1024)

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

/*
 * An SMC-D connection over a no-copy device: the peer writes into our
 * DMB (rmb); we write into the peer's DMB, attached as our send buffer.
 */
struct smcd_conn {
	struct smcd_dev		*dev;
	struct smcd_lgr		*lgr;
	u32			alert_token;	/* ours, in lgr */
	/* copies for sock_diag, which must not touch the DMBs */
	u32			lgr_id;
	u32			rmb_len;
	u32			peer_len;
	u64			rmb_token;
	u64			peer_token;
	struct smcd_gid		peer_gid;
	struct smcd_dmb		*rmb;		/* ours, written by the peer */
	struct smcd_dmb		*peer;		/* the peer's, attached */
	u32			rmb_ring;	/* data ring of rmb */
	u32			tx_ring;	/* data ring of peer */

	/* orders the header writes into the peer's DMB */
	spinlock_t		tx_lock;
	struct smc_cursor	tx_prod;	/* next byte we produce */
	struct smc_cursor	tx_prod_sent;	/* last one the peer got */
	u8			tx_prod_flags;
	u8			tx_conn_flags;	/* sticky close flags */
	/* SMCD_TX_NOSPACE: a writer found the peer's ring full */
	unsigned long		tx_flags;

	/* local reading position: smc sock lock, written under rx_lock */
	struct smc_cursor	rx_cons;
	struct smc_cursor	rx_cons_sent;	/* last one the peer got */

	/*
	 * what the peer last wrote into our DMB header (doorbell).  Writers
	 * take rx_lock and bump rx_seq (smcd_rx_write_lock()); the hot
	 * readers (send, receive, poll) only retry on rx_seq.
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
	u8			urg_state;	/* enum smcd_urg_state */
	u8			urg_byte;
	struct smc_cursor	urg_pos;
	struct smc_cursor	urg_prod;
	struct smc_cursor	urg_hole;	/* a replaced urgent byte */
	bool			urg_hole_set;
};

/* What TCP calls urg_data: none, valid (not read by MSG_OOB), read */
enum smcd_urg_state {
	SMCD_URG_NONE,
	SMCD_URG_VALID,
	SMCD_URG_READ,
};

/* Change the receive state of @c: rx_lock, and rx_seq for lockless readers */
static inline void smcd_rx_write_lock(struct smcd_conn *c)
{
	spin_lock_bh(&c->rx_lock);
	write_seqcount_begin(&c->rx_seq);
}

static inline void smcd_rx_write_unlock(struct smcd_conn *c)
{
	write_seqcount_end(&c->rx_seq);
	spin_unlock_bh(&c->rx_lock);
}

/* Bits of smcd_conn.tx_flags */
enum {
	SMCD_TX_NOSPACE,	/* wake writers when the peer frees room */
};

/* State a listening socket keeps for connections on their way to accept() */
struct smc_listen_info {
	struct smc_sock		*smc;		/* the listener */
	struct work_struct	tcp_accept_work; /* takes new TCP children */
	spinlock_t		lock;		/* protects the fields below */
	struct list_head	accept_q;	/* handshake done, not accepted */
	unsigned int		accept_q_len;
	unsigned int		in_handshake;	/* children in handshake */
	bool			stalled;	/* queue full, work paused */
	bool			closed;		/* listener is going away */
};

struct smc_sock {
	struct sock		sk;		/* must be first */
	struct socket		*clcsock;	/* internal TCP socket */
	struct list_head	table_node;	/* in smc_sock_table */
	u64			table_id;	/* order in the table */

	enum smc_path		path;
	bool			use_fallback;	/* TCP for good */
	u32			fallback_rsn;	/* local reason (decline code) */
	u32			peer_diagnosis;	/* code from the peer's decline */
	bool			file_redirected; /* file points at clcsock */

	/* client side */
	bool			connect_inflight; /* connect() blocks in TCP */
	bool			connect_pending;  /* TCP connect runs on, then
						   * connect_work finishes it
						   */
	struct work_struct	connect_work;
	bool			connect_bg;	/* connect_pending was set */

	/* server side */
	struct smc_listen_info	*listen;	/* only while listening */
	struct smc_sock		*listen_smc;	/* parent of a child */
	struct list_head	accept_node;	/* in parent's accept_q */
	struct work_struct	handshake_work;	/* child's handshake */

	struct smcd_conn	smcd;		/* path SMC_PATH_SMCD */

	/* options stored for later use */
	bool			limit_hs;	/* SOL_SMC SMC_LIMIT_HS */
	int			defer_accept;	/* TCP_DEFER_ACCEPT seconds */
};

static inline struct smc_sock *smc_sk(const struct sock *sk)
{
	return (struct smc_sock *)sk;
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

extern struct proto smc_proto;
extern struct proto smc_proto6;
extern const struct proto_ops smc_sock_ops;
extern struct workqueue_struct *smc_hs_wq;

/* af_smc.c */
struct sock *smc_sock_alloc(struct net *net, struct socket *sock,
			    int protocol, gfp_t gfp);
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
int smc_clcsk_attach(struct smc_sock *smc);
void smc_clcsk_detach(struct smc_sock *smc);
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
int smc_connect(struct socket *sock, struct sockaddr *addr, int alen,
		int flags);
void smc_connect_work(struct work_struct *work);
void smc_connect_cancel(struct smc_sock *smc);
int smc_wait_connected(struct smc_sock *smc, long timeo);

/* smc_listen.c */
int smc_listen(struct socket *sock, int backlog);
void smc_listen_kick(struct smc_sock *lsmc);
void smc_listen_stop(struct smc_sock *lsmc);
void smc_handshake_work(struct work_struct *work);

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
int smc_clc_send_decline(struct smc_sock *smc, u32 reason, u8 version);

/* smcd_conn.c: SMC-D handshake and connection life */
extern bool smc_smcd_enabled;

int smcd_connect_handshake(struct smc_sock *smc);
int smcd_listen_handshake(struct smc_sock *child);
void smcd_conn_close(struct smc_sock *smc);

/* smcd_lgr.c: SMC-D link groups */
#define SMCD_LGR_CLIENT		0	/* values of smc_diag_lgrinfo.role */
#define SMCD_LGR_SERVER		1

int smcd_lgr_join(struct smc_sock *smc, const struct smcd_gid *peer,
		  u8 role, bool create, bool *first);
void smcd_lgr_leave(struct smc_sock *smc);
void smcd_lgr_exit(void);

/* smcd_data.c */
int smcd_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len);
int smcd_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		 int flags);
__poll_t smcd_poll(struct smc_sock *smc);
int smcd_shutdown(struct smc_sock *smc, int how);
int smcd_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg);
ssize_t smcd_splice_read(struct smc_sock *smc, struct pipe_inode_info *pipe,
			 size_t len, bool nonblock);
void smcd_send_header(struct smc_sock *smc);
void smcd_tx_flush(struct smc_sock *smc);
void smcd_send_conn_flags(struct smc_sock *smc, u8 flags);

/* smc_netns.c */
struct smc_net {
	int			wmem;		/* net.smc.wmem */
	int			rmem;		/* net.smc.rmem */
	bool			limit_smc_hs;	/* net.smc.limit_smc_hs */
	struct mutex		pnet_lock;	/* pnet_list */
	struct list_head	pnet_list;	/* the PNET ID table */
};

struct smc_net *smc_net(const struct net *net);
int smc_netns_init(void);
void smc_netns_exit(void);

/* smc_pnet.c */
void smc_pnet_net_init(struct smc_net *sn);
void smc_pnet_net_exit(struct smc_net *sn);
void smc_pnet_lookup_dev(const char *name, const char *parent, u8 port,
			 char *pnetid);
int smc_pnet_init(void);
void smc_pnet_exit(void);

#endif /* __SMC_H */
