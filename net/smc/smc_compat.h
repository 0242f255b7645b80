/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels this code builds against.  The code
 * is written for the current kernel; when built as an external module
 * for an older one, the Makefile probes the kernel's headers and
 * defines SMC_COMPAT_* for each difference found.  Every such test of
 * the module lives in this file.
 */
#ifndef __SMC_COMPAT_H
#define __SMC_COMPAT_H

#include <linux/net.h>
#include <net/net_namespace.h>

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

#endif /* __SMC_COMPAT_H */
