// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the list of all smc socks.
 *
 * sock_diag walks it to report every AF_SMC socket of a namespace.
 * One table per internal socket family, so that a dump lists the IPv4
 * based sockets first, then the IPv6 based ones.  Sockets are kept in
 * the order of increasing ids, so a dump spread over several messages
 * resumes after the last id it reported: sockets added or removed
 * between two parts neither repeat nor hide others.
 */

#include <linux/module.h>
#include <net/net_namespace.h>

#include "smc_ism.h"
#include "smc_sock.h"

static struct smc_sock_table smc_tables[2] = {
	{ .lock = __RW_LOCK_UNLOCKED(smc_tables[0].lock),
	  .head = LIST_HEAD_INIT(smc_tables[0].head) },
	{ .lock = __RW_LOCK_UNLOCKED(smc_tables[1].lock),
	  .head = LIST_HEAD_INIT(smc_tables[1].head) },
};

static atomic64_t smc_table_ids = ATOMIC64_INIT(0);

/* IPv4 and IPv6 sockets apart, as sock_diag lists them */
static struct smc_sock_table *smc_table_of(const struct smc_sock *smc)
{
	return &smc_tables[smc_sk_v6(&smc->sk)];
}

void smc_table_add(struct smc_sock *smc)
{
	struct smc_sock_table *t = smc_table_of(smc);

	write_lock_bh(&t->lock);
	smc->table_id = atomic64_inc_return(&smc_table_ids);
	list_add_tail(&smc->table_node, &t->head);
	write_unlock_bh(&t->lock);
}

void smc_table_del(struct smc_sock *smc)
{
	struct smc_sock_table *t = smc_table_of(smc);

	write_lock_bh(&t->lock);
	list_del_init(&smc->table_node);
	write_unlock_bh(&t->lock);
}

/*
 * Forget the clcsock of @smc before it is released: a walker holding
 * the table lock sees either a live clcsock or none.
 */
void smc_table_clear_clcsock(struct smc_sock *smc)
{
	struct smc_sock_table *t = smc_table_of(smc);

	write_lock_bh(&t->lock);
	smc->clcsock = NULL;
	write_unlock_bh(&t->lock);
}

/*
 * Call @fn for the sockets of @net in the table of @protocol whose id is
 * above *@last_id, in id order, and advance *@last_id past each one @fn
 * accepted.  Stops when @fn returns non-zero, which is returned.  @fn
 * runs under the table's read lock.
 */
int smc_table_walk(struct net *net, int protocol, u64 *last_id,
		   int (*fn)(struct smc_sock *smc, void *arg), void *arg)
{
	struct smc_sock_table *t = &smc_tables[protocol == SMCPROTO_SMC6];
	struct smc_sock *smc;
	int rc = 0;

	read_lock_bh(&t->lock);
	list_for_each_entry(smc, &t->head, table_node) {
		if (smc->table_id <= *last_id ||
		    !net_eq(sock_net(&smc->sk), net))
			continue;
		rc = fn(smc, arg);
		if (rc)
			break;
		*last_id = smc->table_id;
	}
	read_unlock_bh(&t->lock);
	return rc;
}
EXPORT_SYMBOL_GPL(smc_table_walk);
