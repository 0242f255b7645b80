// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the list of all smc socks.
 *
 * sock_diag walks it to report every AF_SMC socket of a namespace.
 * One table per internal socket family, so that a dump lists the IPv4
 * based sockets first, then the IPv6 based ones.
 */

#include <linux/module.h>
#include <net/net_namespace.h>

#include "smc.h"

static struct smc_sock_table smc_tables[2] = {
	{ .lock = __RW_LOCK_UNLOCKED(smc_tables[0].lock) },
	{ .lock = __RW_LOCK_UNLOCKED(smc_tables[1].lock) },
};

static struct smc_sock_table *smc_table_of(int protocol)
{
	return &smc_tables[protocol == SMCPROTO_SMC6];
}

void smc_table_add(struct smc_sock *smc)
{
	struct smc_sock_table *t = smc_table_of(smc->sk.sk_protocol);

	write_lock_bh(&t->lock);
	hlist_add_head(&smc->table_node, &t->head);
	write_unlock_bh(&t->lock);
}

void smc_table_del(struct smc_sock *smc)
{
	struct smc_sock_table *t = smc_table_of(smc->sk.sk_protocol);

	write_lock_bh(&t->lock);
	if (!hlist_unhashed(&smc->table_node))
		hlist_del_init(&smc->table_node);
	write_unlock_bh(&t->lock);
}

/*
 * Forget the clcsock of @smc before it is released: a walker holding
 * the table lock sees either a live clcsock or none.
 */
void smc_table_clear_clcsock(struct smc_sock *smc)
{
	struct smc_sock_table *t = smc_table_of(smc->sk.sk_protocol);

	write_lock_bh(&t->lock);
	smc->clcsock = NULL;
	write_unlock_bh(&t->lock);
}

/*
 * Call @fn for the sockets of @net in the table of @protocol, skipping
 * the first *@pos of them.  Stops when @fn returns non-zero and leaves
 * in *@pos the index of the socket @fn failed on, so that the next call
 * resumes there.  @fn runs under the table's read lock.
 */
int smc_table_walk(struct net *net, int protocol, unsigned int *pos,
		   int (*fn)(struct smc_sock *smc, void *arg), void *arg)
{
	struct smc_sock_table *t = smc_table_of(protocol);
	unsigned int idx = 0;
	struct smc_sock *smc;
	int rc = 0;

	read_lock_bh(&t->lock);
	hlist_for_each_entry(smc, &t->head, table_node) {
		if (!net_eq(sock_net(&smc->sk), net))
			continue;
		if (idx++ < *pos)
			continue;
		rc = fn(smc, arg);
		if (rc) {
			idx--;
			break;
		}
	}
	*pos = idx;
	read_unlock_bh(&t->lock);
	return rc;
}
EXPORT_SYMBOL_GPL(smc_table_walk);
