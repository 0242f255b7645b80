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

#endif /* __SMC_COMPAT_H */
