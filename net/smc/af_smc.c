// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the AF_SMC address family.
 *
 * Socket creation and release, bind, the proto_ops table and module
 * set-up.  Connection establishment is in smc_connect.c and
 * smc_listen.c, the calls that move data in smc_sockops.c.
 */

#define KMSG_COMPONENT "smc"
#define pr_fmt(fmt) KMSG_COMPONENT ": " fmt

#include <linux/debugfs.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/smc.h>
#include <linux/socket.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_conn.h"
#include "smc_core.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_netlink.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smcd.h"
#include "smcr_dev.h"
#include "smcr.h"

/* /sys/kernel/debug/smc: device state for debugging and the tests */
static struct dentry *smc_debugfs;

static bool smcd_loopback = true;
module_param(smcd_loopback, bool, 0444);
MODULE_PARM_DESC(smcd_loopback,
		 "register the loopback-ism SMC-D device (default: yes)");

module_param_named(smcd, smc_smcd_enabled, bool, 0644);
MODULE_PARM_DESC(smcd,
		 "negotiate SMC-D over loopback-ism (default: yes)");
module_param_named(smcd_rendezvous, smc_smcd_rendezvous, bool, 0644);
MODULE_PARM_DESC(smcd_rendezvous,
		 "SMC-D to a server of this host without CLC messages (default: yes)");
module_param_named(smcr, smc_smcr_enabled, bool, 0644);
MODULE_PARM_DESC(smcr,
		 "negotiate SMC-R over RoCE devices (default: yes)");
/* what the kernel built us for: read only, for users and the tests */
static bool smc_tcp_option = SMC_TCP_OPTION;
module_param_named(tcp_option, smc_tcp_option, bool, 0444);
MODULE_PARM_DESC(tcp_option,
		 "TCP's handshake offers SMC (no: the kernel has no CONFIG_SMC, and only servers of this host are reached)");

/*
 * Do we announce SMC in the TCP handshake?  Only with something to
 * offer or accept: loopback-ism, or an RDMA device for SMC-R.
 */
bool smc_syn_smc(void)
{
	return READ_ONCE(smc_smcd_enabled) ||
	       (READ_ONCE(smc_smcr_enabled) && smcr_devs_present());
}

void smc_set_keepalive(struct sock *sk, int val)
{
	struct sock *clcsk = smc_clcsk(smc_sk(sk));

	/* SO_KEEPALIVE on the SMC socket is meant for the TCP connection */
	if (!clcsk || !clcsk->sk_prot->keepalive)
		return;
	lock_sock(clcsk);
	clcsk->sk_prot->keepalive(clcsk, val);
	release_sock(clcsk);
}

struct proto smc_proto = {
	.name		= "SMC",
	.owner		= THIS_MODULE,
	.keepalive	= smc_set_keepalive,
	.obj_size	= sizeof(struct smc_sock),
};

struct proto smc_proto6 = {
	.name		= "SMC6",
	.owner		= THIS_MODULE,
	.keepalive	= smc_set_keepalive,
	.obj_size	= sizeof(struct smc_sock),
};

static void smc_destruct(struct sock *sk)
{
	struct smc_sock *smc = smc_sk(sk);

	WARN_ON_ONCE(smc->clcsock);
	kfree(smc->listen);
	smc->listen = NULL;
	if (sk->sk_family != PF_SMC)
		smc_inet_destruct(sk);
}

/*
 * What every smc sock starts with, once sk_alloc() and sock_init_data()
 * made it and its protocol is set.
 */
void smc_sock_setup(struct sock *sk)
{
	struct smc_sock *smc = smc_sk(sk);
	struct net *net = sock_net(sk);

	/* a child has no socket yet to take the type from */
	sk->sk_type = SOCK_STREAM;
	sk->sk_state = SMC_INIT;
	sk->sk_destruct = smc_destruct;
	/* clcsock callbacks may still look at us until a grace period ends */
	sock_set_flag(sk, SOCK_RCU_FREE);

	WRITE_ONCE(sk->sk_sndbuf, 2 * smc_net_wmem(net));
	WRITE_ONCE(sk->sk_rcvbuf, 2 * smc_net_rmem(net));

	smc->path = SMC_PATH_TCP;
	smc->limit_hs = smc_net_limit_hs(net);
	smc->stats = smc_net_stats(net);
	INIT_WORK(&smc->connect_work, smc_connect_work);
	INIT_WORK(&smc->handshake_work, smc_handshake_work);
	INIT_LIST_HEAD(&smc->accept_node);
	INIT_LIST_HEAD(&smc->table_node);
	smc_table_add(smc);
}

/* An AF_SMC sock for @sock, created by the user */
struct sock *smc_sock_alloc(struct net *net, struct socket *sock,
			    int protocol, gfp_t gfp)
{
	struct proto *prot;
	struct sock *sk;

	prot = protocol == SMCPROTO_SMC6 ? &smc_proto6 : &smc_proto;
	sk = sk_alloc(net, PF_SMC, gfp, prot, 0);
	if (!sk)
		return NULL;
	sock_init_data(sock, sk);
	sk->sk_protocol = protocol;
	smc_sock_setup(sk);
	return sk;
}

/*
 * A child of listener @lsk, of its family, proto and protocol (as a TCP
 * child is): it gets its struct socket only at accept() time.
 */
struct sock *smc_child_alloc(const struct sock *lsk)
{
	struct sock *sk;

	sk = sk_alloc(sock_net(lsk), lsk->sk_family, GFP_KERNEL, lsk->sk_prot,
		      0);
	if (!sk)
		return NULL;
	sock_init_data(NULL, sk);
	sk->sk_protocol = lsk->sk_protocol;
	if (lsk->sk_family != PF_SMC)
		smc_inet_child_init(sk, lsk);
	smc_sock_setup(sk);
	return sk;
}

/* The internal TCP socket of a socket created by the user */
int smc_create_clcsock(struct smc_sock *smc)
{
	int family = smc_sk_v6(&smc->sk) ? PF_INET6 : PF_INET;
	struct sock *sk = &smc->sk;
	struct socket *clcsock;
	int rc;

	/*
	 * Created as a user socket (kern == 0): it carries the user's
	 * connection, so it holds a reference on the namespace and is
	 * subject to the same security checks as a TCP socket would be.
	 */
	rc = __sock_create(sock_net(sk), family, SOCK_STREAM, IPPROTO_TCP,
			   &clcsock, 0);
	if (rc)
		return rc;
	smc->clcsock = clcsock;
	rc = smc_clcsk_attach(smc);
	if (rc) {
		smc_table_clear_clcsock(smc);
		sock_release(clcsock);
	}
	return rc;
}

void smc_sock_destroy_clcsock(struct smc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;

	if (!clcsock)
		return;
	smc_clcsk_detach(smc);
	smc_table_clear_clcsock(smc);
	/* a redirected file pointer was taken back already */
	clcsock->file = NULL;
	smc_clcsk_release(clcsock);
}

static int smc_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct sock *sk;
	int rc;

	if (sock->type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != SMCPROTO_SMC && protocol != SMCPROTO_SMC6)
		return -EPROTONOSUPPORT;

	sock->state = SS_UNCONNECTED;
	sock->ops = &smc_sock_ops;
	sk = smc_sock_alloc(net, sock, protocol, GFP_KERNEL);
	if (!sk)
		return -ENOBUFS;

	rc = smc_create_clcsock(smc_sk(sk));
	if (rc) {
		smc_table_del(smc_sk(sk));
		sk->sk_state = SMC_CLOSED;
		sock_orphan(sk);
		sock->sk = NULL;
		sock_put(sk);
	}
	return rc;
}

static int smc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc;

	if (!sk)
		return 0;
	smc = smc_sk(sk);

	sock_hold(sk);
	smc_connect_cancel(smc);
	if (smc->listen)
		smc_listen_stop(smc);

	lock_sock(sk);
	smc_fallback_undo_redirect(smc);
	smc_conn_close(smc);
	sk->sk_state = SMC_CLOSED;
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	sock_orphan(sk);
	sock->sk = NULL;
	release_sock(sk);

	/* closing TCP may wait for SO_LINGER: not under the smc lock */
	smc_sock_destroy_clcsock(smc);
	smc_table_del(smc);

	sock_put(sk);	/* the hold above */
	sock_put(sk);	/* the socket's own reference */
	return 0;
}

static int smc_bind(struct socket *sock, struct sockaddr_unsized *uaddr,
		    int addr_len)
{
	struct sockaddr_in *addr = (struct sockaddr_in *)uaddr;
	struct sock *sk = sock->sk;
	struct smc_sock *smc = smc_sk(sk);
	struct sock *clcsk;
	int rc;

	if (addr_len < (int)sizeof(struct sockaddr_in))
		return -EINVAL;
	if (addr->sin_family != AF_INET && addr->sin_family != AF_INET6 &&
	    addr->sin_family != AF_UNSPEC)
		return -EAFNOSUPPORT;
	if (addr->sin_family == AF_UNSPEC &&
	    addr->sin_addr.s_addr != htonl(INADDR_ANY))
		return -EAFNOSUPPORT;

	lock_sock(sk);
	rc = -EINVAL;
	if (sk->sk_state != SMC_INIT || smc->connect_pending ||
	    !smc->clcsock)
		goto out;

	clcsk = smc->clcsock->sk;
	clcsk->sk_reuse = sk->sk_reuse;
	clcsk->sk_reuseport = sk->sk_reuseport;
	rc = kernel_bind(smc->clcsock, uaddr, addr_len);
out:
	release_sock(sk);
	return rc;
}

/* one table per family: IPPROTO_SMC's differ only in it (smc_inet.c) */
#define SMC_PROTO_OPS(fam) {			\
	.family		= fam,			\
	.owner		= THIS_MODULE,		\
	.release	= smc_release,		\
	.bind		= smc_bind,		\
	.connect	= smc_connect,		\
	.socketpair	= sock_no_socketpair,	\
	.accept		= smc_compat_accept,	\
	.getname	= smc_getname,		\
	.poll		= smc_poll,		\
	.ioctl		= smc_ioctl,		\
	.listen		= smc_listen,		\
	.shutdown	= smc_shutdown,		\
	.setsockopt	= smc_setsockopt,	\
	.getsockopt	= smc_getsockopt,	\
	.sendmsg	= smc_sendmsg,		\
	.recvmsg	= smc_recvmsg,		\
	.mmap		= sock_no_mmap,		\
	.splice_read	= smc_splice_read,	\
}

const struct proto_ops smc_sock_ops = SMC_PROTO_OPS(PF_SMC);
const struct proto_ops smc_inet_ops = SMC_PROTO_OPS(PF_INET);
const struct proto_ops smc_inet6_ops = SMC_PROTO_OPS(PF_INET6);

static const struct net_proto_family smc_family_ops = {
	.family	= PF_SMC,
	.owner	= THIS_MODULE,
	.create	= smc_create,
};

static int __init smc_init(void)
{
	int rc;

	rc = smc_fallback_init();
	if (rc)
		return rc;

	rc = smc_netns_init();
	if (rc)
		return rc;
	rc = smc_pnet_init();
	if (rc)
		goto out_netns;

	/* debugfs is optional: its calls take an error pointer */
	smc_debugfs = debugfs_create_dir("smc", NULL);
	smc_rendezvous_debugfs(smc_debugfs);
	if (smcd_loopback) {
		rc = smc_loopback_init(smc_debugfs);
		if (rc)
			goto out_pnet;
	}

	rc = smcr_lgr_init(smc_debugfs);
	if (rc)
		goto out_lo;
	rc = smcr_dev_init(smc_debugfs);
	if (rc)
		goto out_lgr;

	rc = smc_core_init();
	if (rc)
		goto out_smcr;

	rc = proto_register(&smc_proto, 1);
	if (rc)
		goto out_core;
	rc = proto_register(&smc_proto6, 1);
	if (rc)
		goto out_proto;

	rc = smc_nl_init();
	if (rc)
		goto out_proto6;
	rc = sock_register(&smc_family_ops);
	if (rc) {
		pr_err("cannot register address family %d: %d\n", PF_SMC, rc);
		goto out_nl;
	}
	/* socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC) */
	rc = smc_inet_init();
	if (rc)
		goto out_sock;
	smc_tcp_option_enable(true);
	return 0;

out_sock:
	sock_unregister(PF_SMC);
out_nl:
	smc_nl_exit();
out_proto6:
	proto_unregister(&smc_proto6);
out_proto:
	proto_unregister(&smc_proto);
out_core:
	smc_core_exit();
out_smcr:
	smcr_dev_exit();
out_lgr:
	smcr_lgr_exit();
out_lo:
	smc_loopback_exit();
out_pnet:
	debugfs_remove(smc_debugfs);
	smc_pnet_exit();
	smc_pnet_tables_exit();
out_netns:
	smc_netns_exit();
	return rc;
}

static void __exit smc_exit(void)
{
	/*
	 * Every smc sock holds a module reference, so none is left here;
	 * the workqueues are empty too, their items hold socket references.
	 */
	smc_tcp_option_enable(false);
	smc_inet_exit();
	sock_unregister(PF_SMC);
	smc_nl_exit();
	/* no table change reaches the devices once they are gone */
	smc_pnet_exit();
	smc_core_exit();
	proto_unregister(&smc_proto6);
	proto_unregister(&smc_proto);
	/* lingering link groups hold the device */
	smcd_lgr_exit();
	smcr_lgr_exit();
	smcr_dev_exit();
	smc_loopback_exit();
	debugfs_remove(smc_debugfs);
	smc_pnet_tables_exit();
	smc_netns_exit();
}

module_init(smc_init);
module_exit(smc_exit);

MODULE_DESCRIPTION("Shared Memory Communications (AF_SMC) sockets");
MODULE_LICENSE("GPL");
MODULE_ALIAS_NETPROTO(PF_SMC);
MODULE_ALIAS_GENL_FAMILY(SMC_GENL_FAMILY_NAME);
