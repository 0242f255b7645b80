// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: IPPROTO_SMC.
 *
 * socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC) makes the same
 * socket as AF_SMC does, with the inet family: the core's inet_create()
 * or inet6_create() allocates it from our proto and writes its inet
 * part, then smc_inet_init_sock() makes it an smc sock.  From there on
 * it is one: the same proto_ops but for the family, the same tables
 * for sock_diag (AF_INET with AF_SMC's IPv4 sockets, AF_INET6 with the
 * IPv6 ones).  Kernels without IPPROTO_SMC (before 6.11) build without
 * this file, and the protocol number stays unknown there.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/in.h>
#include <linux/module.h>
#include <linux/net.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>
#include <net/transp_v6.h>

#include "smc_ism.h"
#include "smc_sock.h"

/*
 * The lock of an inet smc sock has a class of its own.  The core gives
 * a socket's lock the class of its family, so ours would share TCP's,
 * and bind, listen and connect, which lock the internal TCP socket while
 * holding ours, would look to lockdep like one lock taken twice.  @sk
 * is new, its lock not held.
 */
static struct lock_class_key smc_inet_slock_key[2], smc_inet_sk_key[2];

static void smc_inet_lock_class(struct sock *sk)
{
	bool v6 = sk->sk_family == PF_INET6;

	sock_lock_init_class_and_name(sk,
				      v6 ? "slock-AF_INET6-SMC" :
					   "slock-AF_INET-SMC",
				      &smc_inet_slock_key[v6],
				      v6 ? "sk_lock-AF_INET6-SMC" :
					   "sk_lock-AF_INET-SMC",
				      &smc_inet_sk_key[v6]);
}

/*
 * The core created @sk (inet_create() or inet6_create()); on failure it
 * releases it through sk_common_release(), so through .destroy.
 */
static int smc_inet_init_sock(struct sock *sk)
{
	smc_inet_lock_class(sk);
	smc_sock_setup(sk);
	return smc_create_clcsock(smc_sk(sk));
}

/*
 * sk_common_release() of a socket whose creation failed after .init
 * (an error of .init itself, or a cgroup program that refused it): the
 * user never saw it, so it goes as AF_SMC's smc_create() drops one.
 * A socket the user had goes through smc_release() instead.
 */
static void smc_inet_destroy(struct sock *sk)
{
	struct smc_sock *smc = smc_sk(sk);

	smc_sock_destroy_clcsock(smc);
	smc_table_del(smc);
	sk->sk_state = SMC_CLOSED;
}

/* sk_common_release() calls it: we are in no hash of the core's */
static void smc_inet_unhash(struct sock *sk)
{
}

/*
 * The end of an inet smc sock (from smc_destruct()): the core's
 * destructor frees what the core may have hung on its inet part.  Its
 * checks are for TCP's states; with no reference left the socket is
 * closed and dead, whatever the way it took (a child never accepted
 * was never orphaned).
 */
void smc_inet_destruct(struct sock *sk)
{
	sk->sk_state = SMC_CLOSED;
	sock_set_flag(sk, SOCK_DEAD);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == PF_INET6) {
		inet6_sock_destruct(sk);
		return;
	}
#endif
	inet_sock_destruct(sk);
}

/*
 * A child of inet listener @lsk (smc_child_alloc()): what inet_create()
 * would have written, for a socket whose every option lives on its
 * internal TCP socket.  The IPv6 part must be found, as the core reads
 * it for any AF_INET6 socket.
 */
void smc_inet_child_init(struct sock *sk, const struct sock *lsk)
{
	struct inet_sock *inet = inet_sk(sk);

	smc_inet_lock_class(sk);
	inet->uc_ttl = -1;
	inet->mc_ttl = 1;
	inet->pmtudisc = inet_sk(lsk)->pmtudisc;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == PF_INET6) {
		struct ipv6_pinfo *np = &container_of(smc_sk(sk),
						      struct smc_sock6,
						      smc)->np;

		inet->pinet6 = np;
		np->hop_limit = -1;
		np->mcast_hops = IPV6_DEFAULT_MCASTHOPS;
		sk->sk_ipv6only = lsk->sk_ipv6only;
	}
#endif
}

static struct proto smc_inet_prot = {
	.name		= "INET_SMC",
	.owner		= THIS_MODULE,
	.init		= smc_inet_init_sock,
	.destroy	= smc_inet_destroy,
	.unhash		= smc_inet_unhash,
	.keepalive	= smc_set_keepalive,
	.obj_size	= sizeof(struct smc_sock),
};

static struct inet_protosw smc_inet_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_SMC,
	.prot		= &smc_inet_prot,
	.ops		= &smc_inet_ops,
};

#if IS_ENABLED(CONFIG_IPV6)
static struct proto smc_inet6_prot = {
	.name		= "INET6_SMC",
	.owner		= THIS_MODULE,
	.init		= smc_inet_init_sock,
	.destroy	= smc_inet_destroy,
	.unhash		= smc_inet_unhash,
	.keepalive	= smc_set_keepalive,
	.obj_size	= sizeof(struct smc_sock6),
	.ipv6_pinfo_offset = offsetof(struct smc_sock6, np),
};

static struct inet_protosw smc_inet6_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_SMC,
	.prot		= &smc_inet6_prot,
	.ops		= &smc_inet6_ops,
};

static int smc_inet6_init(void)
{
	int rc;

	rc = proto_register(&smc_inet6_prot, 1);
	if (rc)
		return rc;
	rc = inet6_register_protosw(&smc_inet6_protosw);
	if (rc)
		proto_unregister(&smc_inet6_prot);
	return rc;
}

static void smc_inet6_exit(void)
{
	inet6_unregister_protosw(&smc_inet6_protosw);
	proto_unregister(&smc_inet6_prot);
}
#else
static int smc_inet6_init(void)
{
	return 0;
}

static void smc_inet6_exit(void)
{
}
#endif

int __init smc_inet_init(void)
{
	int rc;

	rc = proto_register(&smc_inet_prot, 1);
	if (rc)
		return rc;
	/* void: a protocol number taken already is only logged there */
	inet_register_protosw(&smc_inet_protosw);
	rc = smc_inet6_init();
	if (rc) {
		inet_unregister_protosw(&smc_inet_protosw);
		proto_unregister(&smc_inet_prot);
	}
	return rc;
}

/* No socket of ours is left: each holds a module reference */
void smc_inet_exit(void)
{
	smc_inet6_exit();
	inet_unregister_protosw(&smc_inet_protosw);
	proto_unregister(&smc_inet_prot);
}

/* the core asks for numbers: both constants are enums here */
static_assert(IPPROTO_SMC == 256 && SOCK_STREAM == 1);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, 256, 1);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, 256, 1);
