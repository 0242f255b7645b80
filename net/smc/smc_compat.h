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
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/genetlink.h>
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
 * Registering a generic netlink family with the operation table that
 * ynl-gen-c.py made of its spec: split operations, one per do and per
 * dump with a policy of its own, which came in 6.2.  For 6.1 the struct
 * is declared here with the members the generator fills in, and the
 * family gets genl_ops made of the table.  There an operation without a
 * policy takes the family's; pre_doit has no place in genl_ops and is
 * left out: the only one the specs name refuses attributes, as the
 * family's policy does on 6.1.
 */
#ifdef SMC_COMPAT_NO_SPLIT_OPS
struct genl_split_ops {
	int (*pre_doit)(const struct genl_split_ops *ops, struct sk_buff *skb,
			struct genl_info *info);
	int (*doit)(struct sk_buff *skb, struct genl_info *info);
	int (*start)(struct netlink_callback *cb);
	int (*dumpit)(struct sk_buff *skb, struct netlink_callback *cb);
	int (*done)(struct netlink_callback *cb);
	const struct nla_policy *policy;
	unsigned int maxattr;
	u8 cmd;
	u8 flags;
	u8 validate;
};

/*
 * A do and a dump of one command are next to each other in @table and
 * become one genl_ops; with a policy each, the do's would be the one.
 */
static inline int smc_genl_register(struct genl_family *family,
				    const struct genl_split_ops *table,
				    unsigned int n)
{
	struct genl_ops *ops, *op = NULL;
	unsigned int i;
	int rc;

	ops = kcalloc(n, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct genl_split_ops *s = &table[i];

		if (!op || op->cmd != s->cmd)
			op = &ops[family->n_ops++];
		op->cmd = s->cmd;
		op->flags |= s->flags & ~(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP);
		op->validate |= s->validate;
		if (s->policy && !op->policy) {
			op->policy = s->policy;
			op->maxattr = s->maxattr;
		}
		if (s->flags & GENL_CMD_CAP_DO) {
			op->doit = s->doit;
		} else {
			op->start = s->start;
			op->dumpit = s->dumpit;
			op->done = s->done;
		}
	}
	family->ops = ops;
	rc = genl_register_family(family);
	if (rc) {
		family->ops = NULL;
		family->n_ops = 0;
		kfree(ops);
	}
	return rc;
}

static inline void smc_genl_unregister(struct genl_family *family)
{
	genl_unregister_family(family);
	kfree(family->ops);
}
#else
static inline int smc_genl_register(struct genl_family *family,
				    const struct genl_split_ops *table,
				    unsigned int n)
{
	family->split_ops = table;
	family->n_split_ops = n;
	return genl_register_family(family);
}

static inline void smc_genl_unregister(struct genl_family *family)
{
	genl_unregister_family(family);
}
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
