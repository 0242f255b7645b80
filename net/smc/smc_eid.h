/* SPDX-License-Identifier: GPL-2.0 */
/* Shared Memory Communications: the user and system EIDs */
#ifndef __SMC_EID_H
#define __SMC_EID_H

#include <linux/types.h>

#include "smc_clc_wire.h"

bool smc_ueid_valid(const u8 *eid);
int smc_ueid_add(const u8 *eid);
int smc_ueid_remove(const u8 *eid);
void smc_ueid_flush(void);
unsigned int smc_ueid_copy(u8 *eids);
bool smc_ueid_match(const u8 *peer, unsigned int n, u8 *eid);
bool smc_seid_offered(void);
int smc_seid_set(bool on);

#endif /* __SMC_EID_H */
