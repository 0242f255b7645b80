/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels this code builds against.  The code
 * is written for the current kernel; built for another one, in its
 * tree or as an external module, the Makefile probes the kernel's
 * headers and defines SMC_COMPAT_* for each difference found.  Every
 * such test of the module lives in this file.
 */
#ifndef __SMC_COMPAT_H
#define __SMC_COMPAT_H

#include <linux/net.h>
#include <linux/tcp.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

int smc_accept_common(struct socket *sock, struct socket *newsock,
		      int flags);

/* proto_ops.accept: before 6.10 the flags came as plain arguments */
#ifdef SMC_COMPAT_ACCEPT_FLAGS
static inline int smc_compat_accept(struct socket *sock,
				    struct socket *newsock, int flags,
				    bool kern)
{
	return smc_accept_common(sock, newsock, flags);
}
#else
static inline int smc_compat_accept(struct socket *sock,
				    struct socket *newsock,
				    struct proto_accept_arg *arg)
{
	return smc_accept_common(sock, newsock, arg->flags);
}
#endif

/* sysctl tables: before 6.6 sized by an empty last entry only */
#ifdef SMC_COMPAT_SYSCTL_SENTINEL
static inline struct ctl_table_header *
smc_register_net_sysctl(struct net *net, const char *path,
			struct ctl_table *table, size_t n)
{
	return register_net_sysctl(net, path, table);
}
#else
static inline struct ctl_table_header *
smc_register_net_sysctl(struct net *net, const char *path,
			struct ctl_table *table, size_t n)
{
	return register_net_sysctl_sz(net, path, table, n);
}
#endif

/* The family of the netlink dump @cb: 6.7 moved it into a genl_info */
#ifdef SMC_COMPAT_DUMPIT_FAMILY
#define smc_nl_dump_family(cb)	(genl_dumpit_info(cb)->family)
#else
#define smc_nl_dump_family(cb)	(genl_info_dump(cb)->family)
#endif

/*
 * IPPROTO_SMC came in 6.11: before, the protocol number stays unknown
 * (socket() fails as it does with the kernel's own module), and no
 * socket has the inet family.
 */
struct sock;
#ifdef SMC_COMPAT_NO_IPPROTO_SMC
static inline int smc_inet_init(void)
{
	return 0;
}

static inline void smc_inet_exit(void)
{
}

static inline void smc_inet_child_init(struct sock *sk,
				       const struct sock *lsk)
{
}

static inline void smc_inet_destruct(struct sock *sk)
{
}
#else
int smc_inet_init(void);
void smc_inet_exit(void);
void smc_inet_child_init(struct sock *sk, const struct sock *lsk);
void smc_inet_destruct(struct sock *sk);
#endif

/*
 * A workqueue bound to its CPUs says so with WQ_PERCPU (7.x warns at a
 * workqueue with neither it nor WQ_UNBOUND); 6.1 has no such flag, and
 * bound is its default.
 */
#ifdef SMC_COMPAT_NO_WQ_PERCPU
#define WQ_PERCPU	0
#endif

/* bind and connect took a struct sockaddr before 6.19 */
#ifdef SMC_COMPAT_SOCKADDR
#define sockaddr_unsized sockaddr
#endif

/* the owner of a socket: its inode's before 6.19 (none: root) */
#ifdef SMC_COMPAT_SOCK_I_UID
static inline kuid_t smc_sk_uid(struct sock *sk)
{
	return sock_i_uid(sk);
}
#else
static inline kuid_t smc_sk_uid(struct sock *sk)
{
	return sk_uid(sk);
}
#endif

/*
 * The TCP tables, looked up from socket @sk's side: through its hash
 * table before 6.19, the netns's own since.  No skb, no sdif.
 */
static inline struct sock *
smc_lookup_established(struct sock *sk, __be32 saddr, __be16 sport,
		       __be32 daddr, u16 hnum, int dif)
{
#ifdef SMC_COMPAT_LOOKUP_HASHINFO
	return __inet_lookup_established(sock_net(sk),
					 tcp_or_dccp_get_hashinfo(sk), saddr,
					 sport, daddr, hnum, dif, 0);
#else
	return __inet_lookup_established(sock_net(sk), saddr, sport, daddr,
					 hnum, dif, 0);
#endif
}

static inline struct sock *
smc_lookup_listener(struct sock *sk, __be32 saddr, __be16 sport,
		    __be32 daddr, u16 hnum, int dif)
{
#ifdef SMC_COMPAT_LOOKUP_HASHINFO
	return __inet_lookup_listener(sock_net(sk),
				      tcp_or_dccp_get_hashinfo(sk), NULL, 0,
				      saddr, sport, daddr, hnum, dif, 0);
#else
	return __inet_lookup_listener(sock_net(sk), NULL, 0, saddr, sport,
				      daddr, hnum, dif, 0);
#endif
}

#if IS_ENABLED(CONFIG_IPV6)
static inline struct sock *
smc_lookup6_established(struct sock *sk, const struct in6_addr *saddr,
			__be16 sport, const struct in6_addr *daddr, u16 hnum,
			int dif)
{
#ifdef SMC_COMPAT_LOOKUP_HASHINFO
	return __inet6_lookup_established(sock_net(sk),
					  tcp_or_dccp_get_hashinfo(sk), saddr,
					  sport, daddr, hnum, dif, 0);
#else
	return __inet6_lookup_established(sock_net(sk), saddr, sport, daddr,
					  hnum, dif, 0);
#endif
}

static inline struct sock *
smc_lookup6_listener(struct sock *sk, const struct in6_addr *saddr,
		     __be16 sport, const struct in6_addr *daddr, u16 hnum,
		     int dif)
{
#ifdef SMC_COMPAT_LOOKUP_HASHINFO
	return inet6_lookup_listener(sock_net(sk),
				     tcp_or_dccp_get_hashinfo(sk), NULL, 0,
				     saddr, sport, daddr, hnum, dif, 0);
#else
	return inet6_lookup_listener(sock_net(sk), NULL, 0, saddr, sport,
				     daddr, hnum, dif, 0);
#endif
}
#endif

/*
 * TCP's SMC option: a kernel built without CONFIG_SMC (Debian's 7.x)
 * has neither the option nor its fields in struct tcp_sock.  There,
 * only a peer of this host can be known to be ours: its TCP socket is
 * in our tables (smc_rendezvous.c).
 */
#ifdef SMC_COMPAT_NO_TCP_SMC
#define SMC_TCP_OPTION	false

static inline bool smc_tcp_syn_smc(const struct sock *clcsk)
{
	return false;
}

static inline void smc_tcp_set_syn_smc(struct sock *clcsk, bool on)
{
}

static inline void smc_tcp_set_congested(struct sock *clcsk,
					 bool (*fn)(const struct sock *sk))
{
}

static inline void smc_tcp_option_enable(bool on)
{
}
#else
#define SMC_TCP_OPTION	true

static inline bool smc_tcp_syn_smc(const struct sock *clcsk)
{
	return READ_ONCE(tcp_sk(clcsk)->syn_smc);
}

static inline void smc_tcp_set_syn_smc(struct sock *clcsk, bool on)
{
	WRITE_ONCE(tcp_sk(clcsk)->syn_smc, on);
}

static inline void smc_tcp_set_congested(struct sock *clcsk,
					 bool (*fn)(const struct sock *sk))
{
	tcp_sk(clcsk)->smc_hs_congested = fn;
}

/* TCP handles the SMC option only while this is on */
static inline void smc_tcp_option_enable(bool on)
{
	if (on)
		static_branch_enable(&tcp_have_smc);
	else
		static_branch_disable(&tcp_have_smc);
}
#endif

#endif /* __SMC_COMPAT_H */
