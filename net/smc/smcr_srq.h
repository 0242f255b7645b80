/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the shared receive queue of a
 * completion vector (smcr_srq.c).
 */
#ifndef __SMCR_SRQ_H
#define __SMCR_SRQ_H

struct ib_device;
struct ib_pd;
struct ib_srq;
struct smcr_srq;

struct smcr_srq *smcr_srq_create(struct ib_device *ibdev, struct ib_pd *pd);
struct ib_srq *smcr_srq_ib(struct smcr_srq *s);
void smcr_srq_destroy(struct smcr_srq *s);

#endif /* __SMCR_SRQ_H */
