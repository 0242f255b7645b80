// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: SMC-D between two sockets of this host,
 * set up without the CLC messages.
 *
 * When the server end of a client's TCP connection is a socket of this
 * host, in the client's own namespace, both ends are our code and share
 * one loopback-ism device: the Proposal, Accept and Confirm would only
 * carry between them what the client can read and do itself.  So the
 * client finds the server's child socket in TCP's connection table,
 * takes its handshake off the handshake queue before it has begun, sets
 * up both ends and hands the child to accept().  No CLC byte is sent,
 * no work item runs, and neither end sleeps for the other.
 *
 * Whatever does not fit (a child whose handshake already began, one not
 * found because its listener's accept queue belongs to another socket,
 * a failed set-up) leaves both ends as they were, and the CLC exchange
 * goes on as with any other peer.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/seq_file.h>
#include <net/addrconf.h>
#include <net/inet_hashtables.h>
#include <net/inet6_hashtables.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_sock.h"
#include "smcd.h"

/* Set up SMC-D to a server of this host without CLC (module parameter) */
bool smc_smcd_rendezvous = true;

/* How tries ended, for debugfs: what the tests check the path by */
enum {
	SMC_RDV_DONE,		/* both ends set up */
	SMC_RDV_NO_PEER,	/* no SMC server end of ours on this host */
	SMC_RDV_BUSY,		/* its handshake had begun already */
	SMC_RDV_FAILED,		/* the set-up failed: CLC will tell why */
	SMC_RDV_MAX
};

static atomic_long_t smc_rdv_count[SMC_RDV_MAX];
static atomic_long_t smc_hs_work_runs[SMC_HS_WORK_MAX];

/* The server's handshake work ran: never for a connection set up here */
void smc_rendezvous_work_ran(enum smc_hs_work w)
{
	atomic_long_inc(&smc_hs_work_runs[w]);
}

static int smc_rdv_show(struct seq_file *m, void *v)
{
	static const char * const names[SMC_RDV_MAX] = {
		"done", "no_peer", "busy", "failed",
	};
	static const char * const work_names[SMC_HS_WORK_MAX] = {
		"accept_work", "handshake_work",
	};
	int i;

	for (i = 0; i < SMC_RDV_MAX; i++)
		seq_printf(m, "%s %ld\n", names[i],
			   atomic_long_read(&smc_rdv_count[i]));
	for (i = 0; i < SMC_HS_WORK_MAX; i++)
		seq_printf(m, "%s %ld\n", work_names[i],
			   atomic_long_read(&smc_hs_work_runs[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_rdv);

void smc_rendezvous_debugfs(struct dentry *dir)
{
	debugfs_create_file("rendezvous", 0444, dir, NULL, &smc_rdv_fops);
}

/*
 * Do @clcsk and @peer hold the two ends of one TCP connection?  Each
 * expects next what the other sends next, from both initial sequence
 * numbers, which no one else knows: a socket that only has the right
 * addresses (NAT, a socket of another user bound to them) is not the
 * peer.  Nothing moved on the connection yet, so the figures stand
 * still without the sockets' locks.
 */
static bool smc_rdv_same_conn(struct sock *clcsk, struct sock *peer)
{
	const struct tcp_sock *c = tcp_sk(clcsk), *s = tcp_sk(peer);

	return READ_ONCE(s->rcv_nxt) == READ_ONCE(c->snd_nxt) &&
	       READ_ONCE(c->rcv_nxt) == READ_ONCE(s->snd_nxt);
}

/* the interface the server's segments came in by: the way back to it */
static int smc_rdv_dif(const struct sock *clcsk)
{
	return READ_ONCE(clcsk->sk_rx_dst_ifindex) ?: clcsk->sk_bound_dev_if;
}

/*
 * The socket of this host that @clcsk's connection reaches: the server's
 * end of it, referenced; or, for @listener, the listening socket its SYN
 * went to (RCU read side, no reference).  NULL if there is none.
 */
static struct sock *smc_rdv_lookup(struct sock *clcsk, bool listener)
{
	const struct inet_sock *inet = inet_sk(clcsk);
	u16 hnum = ntohs(inet->inet_dport);
	__be16 sport = inet->inet_sport;
	int dif = smc_rdv_dif(clcsk);
	struct sock *sk;

#if IS_ENABLED(CONFIG_IPV6)
	if (clcsk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&clcsk->sk_v6_daddr)) {
		const struct in6_addr *sa = &clcsk->sk_v6_rcv_saddr;
		const struct in6_addr *da = &clcsk->sk_v6_daddr;

		if (!listener)
			return smc_lookup6_established(clcsk, sa, sport, da,
						       hnum, dif);
		sk = smc_lookup6_listener(clcsk, sa, sport, da, hnum, dif);
		return IS_ERR(sk) ? NULL : sk;
	}
#endif
	if (!listener)
		return smc_lookup_established(clcsk, inet->inet_saddr, sport,
					      inet->inet_daddr, hnum, dif);
	sk = smc_lookup_listener(clcsk, inet->inet_saddr, sport,
				 inet->inet_daddr, hnum, dif);
	return IS_ERR(sk) ? NULL : sk;
}

/*
 * The SMC listener that the connection of @clcsk went to, referenced;
 * NULL if there is none.
 */
static struct smc_sock *smc_rdv_listener(struct sock *clcsk)
{
	struct smc_sock *lsmc = NULL;
	struct sock *tcp_lsk;

	rcu_read_lock();
	tcp_lsk = smc_rdv_lookup(clcsk, true);
	if (tcp_lsk)
		lsmc = smc_tcp_sk_owner(tcp_lsk);
	if (lsmc && !refcount_inc_not_zero(&lsmc->sk.sk_refcnt))
		lsmc = NULL;
	rcu_read_unlock();
	return lsmc;
}

/*
 * Is @req the server's request for @clcsk's connection, which our last
 * ACK of the TCP handshake turns into the child?  The same sequence
 * numbers as in smc_rdv_same_conn(), from the SYN-ACK.
 */
static bool smc_rdv_same_req(struct sock *clcsk, struct request_sock *req)
{
	const struct tcp_sock *c = tcp_sk(clcsk);

	return tcp_rsk(req)->rcv_nxt == READ_ONCE(c->snd_nxt) &&
	       tcp_rsk(req)->snt_isn + 1 == READ_ONCE(c->rcv_nxt);
}

/*
 * The other end of @clcsk's connection, referenced, if it is a TCP
 * socket of this host on which nothing moved yet; ERR_PTR(-EINPROGRESS)
 * if our last ACK is still making it: the server's request, or its new
 * child not yet established; else NULL.  From either end: the lookup
 * swaps the addresses.
 */
static struct sock *smc_rdv_peer(struct sock *clcsk)
{
	struct sock *peer = smc_rdv_lookup(clcsk, false);
	bool same;
	int state;

	if (!peer)
		return NULL;
	/* read once: a new child turns ESTABLISHED meanwhile */
	state = READ_ONCE(peer->sk_state);
	if (state == TCP_NEW_SYN_RECV)
		same = smc_rdv_same_req(clcsk, inet_reqsk(peer));
	else
		/* a connection to itself finds itself */
		same = peer != clcsk && sk_fullsock(peer) &&
		       smc_rdv_same_conn(clcsk, peer);
	if (same && state == TCP_ESTABLISHED)
		return peer;
	same = same && (state == TCP_NEW_SYN_RECV || state == TCP_SYN_RECV);
	sock_gen_put(peer);
	return same ? ERR_PTR(-EINPROGRESS) : NULL;
}

/*
 * Could a rendezvous take place at all: SMC-D and the rendezvous on,
 * and a loopback-ism device to put the DMBs on.
 */
static bool smc_rdv_possible(void)
{
	struct smcd_dev *dev;

	if (!READ_ONCE(smc_smcd_enabled) || !READ_ONCE(smc_smcd_rendezvous))
		return false;
	dev = smcd_dev_get_loopback();
	if (!dev)
		return false;
	smcd_dev_put(dev);
	return true;
}

/*
 * Without TCP's SMC option, the server's view: is the client end of
 * child @clcsk a socket of ours on this host that still means to set up
 * SMC?  Only such a client ever claims the child.
 */
bool smc_rendezvous_client(struct sock *clcsk)
{
	struct smc_sock *client;
	struct sock *peer;
	bool ours;

	/* what the client needs to claim at all (smc_connect_handshake) */
	if (!smc_rdv_possible())
		return false;
	peer = smc_rdv_peer(clcsk);
	if (IS_ERR_OR_NULL(peer))
		return false;
	rcu_read_lock();
	client = smc_tcp_sk_owner(peer);
	ours = client && !READ_ONCE(client->use_fallback) &&
	       !READ_ONCE(client->listen_smc);
	rcu_read_unlock();
	sock_gen_put(peer);
	return ours;
}

/*
 * How long a client looks again for the child (the other end of the
 * connection having been found): while its handshake work runs, which
 * only looks and parks it, where without TCP's SMC option no CLC
 * exchange would follow; and while TCP still makes it.
 */
#define SMC_RDV_WAIT		(HZ / 10)

/* Let the accept worker of *@lsmc (held, or NULL) go, and the listener */
static void smc_rdv_let_go(struct smc_sock **lsmc)
{
	if (!*lsmc)
		return;
	smc_listen_release_kicks(*lsmc);
	sock_put(&(*lsmc)->sk);
	*lsmc = NULL;
}

/*
 * One look for the child of this host's SMC listener at the other end
 * of @clcsk, and its claim: the child; ERR_PTR(-EBUSY) if its handshake
 * has begun, ERR_PTR(-ENOENT) if there is none to claim; or NULL if
 * there is none yet, but TCP is making it for listener @lsmc (held, or
 * NULL), which takes more.  So it is when our last ACK went out on
 * another CPU just before we sent it (the delayed-ACK timer), is
 * handled there (RPS), or was not held at all (smc_rendezvous_hold_ack()
 * said no): the server's request, or its child not yet established or
 * in TCP's accept queue.
 */
static struct smc_sock *smc_rdv_claim(struct sock *clcsk,
				      struct smc_sock *lsmc)
{
	struct smc_sock *child;
	struct sock *peer;

	peer = smc_rdv_peer(clcsk);
	if (IS_ERR(peer) && lsmc && smc_listen_takes_more(lsmc))
		return NULL;
	if (IS_ERR_OR_NULL(peer))
		return ERR_PTR(-ENOENT);

	child = ERR_PTR(-ENOENT);
	if (SMC_TCP_OPTION && !smc_tcp_syn_smc(peer))
		goto out;
	child = smc_listen_claim(peer);
	/* in TCP's accept queue, or being set up: take it now */
	if (!child && lsmc) {
		smc_listen_accept_now(lsmc, peer);
		child = smc_listen_claim(peer);
	}
	if (!child && !(lsmc && smc_listen_takes_more(lsmc)))
		child = ERR_PTR(-ENOENT);
out:
	sock_gen_put(peer);
	return child;
}

/*
 * Send the last ACK of the TCP handshake, held for the Proposal, and
 * claim the child of this host's SMC listener it makes at the other end
 * of @clcsk; NULL when there is none to claim, and *@why says so.  The
 * ACK makes the child over loopback before it returns, as a rule; the
 * listener's accept worker is not woken for it, we take the child
 * ourselves.
 */
static struct smc_sock *smc_rdv_child(struct sock *clcsk, int *why)
{
	unsigned long end = jiffies + SMC_RDV_WAIT;
	struct smc_sock *child, *lsmc;

	lsmc = smc_rdv_listener(clcsk);
	if (lsmc && !smc_listen_hold_kicks(lsmc)) {
		sock_put(&lsmc->sk);	/* not listening yet */
		lsmc = NULL;
	}
	tcp_sock_set_quickack(clcsk, 1);
	for (;;) {
		child = smc_rdv_claim(clcsk, lsmc);
		if (PTR_ERR(child) == -EBUSY)
			smc_rdv_let_go(&lsmc);	/* a worker has it */
		if ((child && (SMC_TCP_OPTION || PTR_ERR(child) != -EBUSY)) ||
		    !time_before(jiffies, end))
			break;
		usleep_range(50, 100);
	}
	smc_rdv_let_go(&lsmc);
	*why = PTR_ERR(child) == -EBUSY ? SMC_RDV_BUSY : SMC_RDV_NO_PEER;
	return IS_ERR_OR_NULL(child) ? NULL : child;
}

/*
 * connect() holds the last ACK of the TCP handshake where TCP's SMC
 * option is in the SYN-ACK; without the option, where the rendezvous
 * may take place: SMC-D and the rendezvous on, and the server at an
 * address of this host in @clcsk's namespace.  The client's own ACK
 * then makes the server's child when it looks for it, and no worker is
 * woken, as with the option; a server elsewhere gets its ACK at once.
 */
bool smc_rendezvous_hold_ack(struct sock *clcsk, const struct sockaddr *addr,
			     int alen)
{
	struct net *net = sock_net(clcsk);
	bool local = false;

	if (SMC_TCP_OPTION)
		return false;
	if (addr->sa_family == AF_INET &&
	    alen >= (int)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = (const void *)addr;

		local = inet_addr_type(net, sin->sin_addr.s_addr) == RTN_LOCAL;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (addr->sa_family == AF_INET6 && alen >= SIN6_LEN_RFC2133) {
		const struct sockaddr_in6 *sin6 = (const void *)addr;
		const struct in6_addr *a = &sin6->sin6_addr;

		if (ipv6_addr_v4mapped(a))
			local = inet_addr_type(net, a->s6_addr32[3]) == RTN_LOCAL;
		else
			local = ipv6_chk_addr(net, a, NULL, 0);
	}
#endif
	return local && smc_rdv_possible();
}

/*
 * Client, smc sock locked, with SMC-D in its offer @hs: set up both
 * ends if the server is a socket of this host.  0 when the connection
 * is on SMC-D; -EAGAIN if the server is no child to claim, and another
 * error if the set-up failed.  Otherwise nothing changed, and the CLC
 * exchange follows; without TCP's SMC option, where none can, the
 * child of a failed set-up goes on over TCP.
 */
int smc_rendezvous(struct smc_sock *smc, struct smc_hs *hs)
{
	struct sock *clcsk = smc_clcsk(smc);
	struct smc_sock *child;
	int rc, why;

	smc_owned_by_me(smc);
	if (!hs->smcd || !READ_ONCE(smc_smcd_rendezvous))
		return -EAGAIN;
	child = smc_rdv_child(clcsk, &why);
	if (!child) {
		atomic_long_inc(&smc_rdv_count[why]);
		return -EAGAIN;
	}
	lock_sock_nested(&child->sk, SINGLE_DEPTH_NESTING);
	rc = smcd_rendezvous_setup(smc, child, hs);
	if (rc && !SMC_TCP_OPTION)
		smc_listen_claim_fallback(child, smcd_decline_reason(rc));
	else
		smc_listen_claim_end(child, !rc);
	atomic_long_inc(&smc_rdv_count[rc ? SMC_RDV_FAILED : SMC_RDV_DONE]);
	return rc;
}
