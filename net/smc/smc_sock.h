/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the socket layer.
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
 *     -> another smc sock's lock, nested: a client of this host takes
 *        the server's listener or child (smc_rendezvous.c)
 *     -> smc_listen_info.lock (accept queue spinlock)
 *     -> clcsock sock lock (taken inside kernel TCP calls)
 *     -> smc_sock_table.lock (a listener's new child)
 *   smc_sock_table.lock (rwlock) -> rx_lock, then tx_lock (sock_diag);
 *   the fallback statistics mutex (smc_net.fback.lock) is a leaf.
 *   The whole tree: Documentation/networking/smc.rst, "Locking".
 * Callbacks installed on the clcsock run under the clcsock lock or in
 * softirq context; they never take the smc sock lock, they only wake
 * waiters or queue work.
 */
#ifndef _SMC_SOCK_H
#define _SMC_SOCK_H

#include <linux/sched/signal.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "smc_close_fsm.h"
#include "smc_compat.h"
#include "smc_conn.h"

struct smc_stats;

/* socket(AF_SMC, SOCK_STREAM, proto): the family of the internal socket */
#define SMCPROTO_SMC		0	/* internal socket is AF_INET */
#define SMCPROTO_SMC6		1	/* internal socket is AF_INET6 */

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

/* State a listening socket keeps for connections on their way to accept() */
struct smc_listen_info {
	/* set before smc_sock.listen publishes it, read-only after */
	struct smc_sock		*smc;		/* the listener */
	struct work_struct	tcp_accept_work; /* takes new TCP children */
	spinlock_t		lock;		/* protects the fields below */
	struct list_head	accept_q;	/* handshake done, not accepted */
	/* read unlocked by smc_listen_congested() (both) and the accept
	 * wait and poll (accept_q_len): a stale count admits or refuses
	 * one SYN, or wakes once more
	 */
	unsigned int		accept_q_len;
	unsigned int		in_handshake;	/* children in handshake */
	/* queue full, work paused; written only by the accept worker
	 * (listener's sock lock), which reads it back unlocked, as does
	 * smc_listen_takes_more()
	 */
	bool			stalled;
	bool			closed;		/* listener is going away */
	/* clients of this host taking TCP's accept queue themselves, and
	 * whether a kick of the worker waited for them (atomics, no lock:
	 * smc_listen_hold_kicks())
	 */
	atomic_t		kick_holds;
	atomic_t		kick_held;
};

struct smc_sock {
	/* first: an IPPROTO_SMC socket is an inet one to the core, which
	 * writes the inet_sock part when it creates it (smc_inet.c)
	 */
	union {
		struct sock		sk;
		struct inet_sock	inet;
	};
	/* internal TCP socket: set before the sock is published, cleared
	 * under the table's write lock once no call can run (release, or
	 * a child's abort); calls read it unlocked, sock_diag under the
	 * table's read lock
	 */
	struct socket		*clcsock;
	/* under the table's lock: in smc_sock_table, order in the table */
	struct list_head	table_node;
	u64			table_id;

	/* smc sock lock; smc_on_smc() reads it unlocked (poll, the TCP
	 * callbacks), as does sock_diag: the path changes once, before
	 * the connection is used
	 */
	enum smc_path		path;
	/* set once under the smc sock lock (the first reason wins);
	 * sock_diag, setsockopt and a rendezvous read it unlocked
	 */
	bool			use_fallback;	/* TCP for good */
	u32			fallback_rsn;	/* local reason (decline code) */
	/* set by the handshake (smc sock lock); sock_diag reads it unlocked */
	u32			peer_diagnosis;	/* code from the peer's decline */
	bool			peer_sync_err;	/* ... sent with the out-of-sync
						 * bit: our link group is stale
						 */
	/* under the smc sock lock */
	bool			file_redirected; /* file points at clcsock */

	/* client side */
	/* connect() blocks in TCP: under the sock lock */
	bool			connect_inflight;
	/* TCP connect runs on, then connect_work finishes it; written
	 * under the sock lock, read unlocked by poll, the waiters and the
	 * clcsock callbacks; the waiters look again under the lock
	 */
	bool			connect_pending;
	struct work_struct	connect_work;
	/* connect_pending was set: under the sock lock; release reads it
	 * unlocked, when no other call runs
	 */
	bool			connect_bg;

	/* server side */
	/* set once (WRITE_ONCE) under the sock lock before sk_state says
	 * SMC_LISTEN, freed with the sock; read unlocked by the clcsock
	 * callbacks, poll and release
	 */
	struct smc_listen_info	*listen;
	/* parent of a child: set by the accept worker before the child's
	 * handshake is queued, cleared by accept() (child's lock) or an
	 * abort; a claim and the clcsock callbacks read it with READ_ONCE
	 */
	struct smc_sock		*listen_smc;
	/* in parent's accept_q, under its smc_listen_info.lock */
	struct list_head	accept_node;
	struct work_struct	handshake_work;	/* child's handshake */
	/* who does the handshake of a child: enum smc_hs_state, atomic;
	 * the handshake passes from owner to owner by an exchange
	 * (smc_listen.c)
	 */
	atomic_t		hs_state;
	/* set before the handshake is queued, read-only after */
	unsigned long		hs_deadline;	/* jiffies: CLC wait ends */
	struct timer_list	hs_timer;	/* unparks at hs_deadline */

	struct smc_conn		conn;		/* paths SMCD and SMCR */

	/* of its netns: set before the sock is published */
	struct smc_stats __percpu *stats;

	/* options stored for later use */
	/* SOL_SMC SMC_LIMIT_HS; written under the sock lock, read unlocked
	 * for each SYN: a change applies from some SYN on
	 */
	bool			limit_hs;
	/* TCP_DEFER_ACCEPT seconds, under the sock lock */
	int			defer_accept;
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
	rwlock_t		lock;		/* (bh) */
	struct list_head	head;		/* under lock */
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
int __smc_wait_connected(struct smc_sock *smc, long timeo);

/*
 * Wait until a background connect has finished, for calls that need
 * to know the transport.  Inline: every send and receive asks, and
 * hardly any has to wait.
 */
static inline int smc_wait_connected(struct smc_sock *smc, long timeo)
{
	if (likely(!READ_ONCE(smc->connect_pending)))
		return 0;
	return __smc_wait_connected(smc, timeo);
}

/* smc_listen.c */
int smc_listen(struct socket *sock, int backlog);
void smc_listen_kick(struct smc_sock *lsmc);
void smc_listen_stop(struct smc_sock *lsmc);
void smc_handshake_work(struct work_struct *work);
void smc_listen_accept_now(struct smc_sock *lsmc, const struct sock *claim);
bool smc_listen_hold_kicks(struct smc_sock *lsmc);
bool smc_listen_takes_more(struct smc_sock *lsmc);
void smc_listen_release_kicks(struct smc_sock *lsmc);
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

/* af_smc.c: where the module parameters live */
bool smc_syn_smc(void);

/*
 * What the TCP socket @clcsk sends from now on is the user's (connect()
 * went to TCP as it is, or failed; a fallback; a listener shut down):
 * its SYN or SYN-ACK must not offer SMC, or the user would speak CLC.
 */
static inline void smc_clcsk_no_smc(struct sock *clcsk)
{
	smc_tcp_set_syn_smc(clcsk, false);
}

#endif /* _SMC_SOCK_H */
