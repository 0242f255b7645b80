/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: what the whole module shares (smc_core.c).
 */
#ifndef _SMC_CORE_H
#define _SMC_CORE_H

#include <linux/types.h>

struct workqueue_struct;

extern struct workqueue_struct *smc_hs_wq;
extern struct workqueue_struct *smc_wq;
#define SMC_LGR_ID_STEP		256
u32 smc_lgr_new_id(void);
int smc_core_init(void);
void smc_core_exit(void);

#endif /* _SMC_CORE_H */
