/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels this code builds against (6.1 and
 * 6.12 as shipped by Debian, and mainline).  Every version test of the
 * module lives in this file.
 */
#ifndef __SMC_COMPAT_H
#define __SMC_COMPAT_H

#include <linux/net.h>
#include <linux/version.h>

/*
 * proto_ops.accept: the flags moved into struct proto_accept_arg in 6.10.
 * SMC_DEFINE_ACCEPT(name, fn) defines the op "name" calling
 * int fn(struct socket *sock, struct socket *newsock, int flags).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define SMC_DEFINE_ACCEPT(name, fn)					\
static int name(struct socket *sock, struct socket *newsock,		\
		struct proto_accept_arg *arg)				\
{									\
	return fn(sock, newsock, arg->flags);				\
}
#else
#define SMC_DEFINE_ACCEPT(name, fn)					\
static int name(struct socket *sock, struct socket *newsock,		\
		int flags, bool kern)					\
{									\
	return fn(sock, newsock, flags);				\
}
#endif

#endif /* __SMC_COMPAT_H */
