/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: the completion vector a new link's QP
 * is bound to.  Pure, so that the host unit tests build it unchanged.
 */
#ifndef __SMCR_CQ_PICK_H
#define __SMCR_CQ_PICK_H

/*
 * The least-used of @n vectors (n >= 1): fewest QPs bound, the lowest
 * vector among equals, so that links spread over all vectors first.
 */
static inline unsigned int smcr_cq_pick(const unsigned int *bound,
					unsigned int n)
{
	unsigned int best = 0, v;

	for (v = 1; v < n; v++)
		if (bound[v] < bound[best])
			best = v;
	return best;
}

#endif /* __SMCR_CQ_PICK_H */
