// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: what the whole module shares.
 *
 * Its two workqueues and the ids of new link groups.  A leaf: the
 * socket layer, the handshakes and both transports use it, and it uses
 * none of them.
 */

#include <linux/atomic.h>
#include <linux/workqueue.h>

#include "smc_core.h"
#include "smc_ism.h"
#include "smc_sock.h"

/*
 * Handshakes (connect_work and the children of listeners) sleep in CLC
 * receive for seconds; the data path's work (tcp_accept_work, tx_work,
 * release_work) goes to smc_wq, so that slow or silent peers in
 * handshake never hold it up.
 */
struct workqueue_struct *smc_hs_wq;
struct workqueue_struct *smc_wq;

/*
 * Link-group ids: one sequence for SMC-R and SMC-D, in steps of 256 (the
 * low byte of a link's UID is its link id), never 0.
 */
static atomic_t smc_lgr_last_id;

u32 smc_lgr_new_id(void)
{
	u32 id;

	do {
		id = atomic_add_return(SMC_LGR_ID_STEP, &smc_lgr_last_id);
	} while (!id);
	return id;
}

int __init smc_core_init(void)
{
	smc_hs_wq = alloc_workqueue("smc_hs_wq", WQ_PERCPU, WQ_MAX_ACTIVE);
	if (!smc_hs_wq)
		return -ENOMEM;
	smc_wq = alloc_workqueue("smc_wq", WQ_PERCPU, 0);
	if (!smc_wq) {
		destroy_workqueue(smc_hs_wq);
		return -ENOMEM;
	}
	return 0;
}

/* Every item on them holds a socket, and so the module: they are empty */
void smc_core_exit(void)
{
	destroy_workqueue(smc_hs_wq);
	destroy_workqueue(smc_wq);
}
