/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: how often a server may try to add a
 * link to a group.  Each try creates a QP, maps every buffer of the
 * group for it and registers MRs, so the tries of a group are bounded
 * by a budget per time window that nothing the peer sends can refill.
 * Pure, so that the host unit tests build it unchanged.
 */
#ifndef __SMCR_ADD_BUDGET_H
#define __SMCR_ADD_BUDGET_H

struct smcr_add_budget {
	unsigned long	start;		/* of the current window, in ticks */
	unsigned int	used;		/* tries in it */
};

/*
 * May a try start at @now (ticks)?  At most @max in a window of
 * @window ticks; a window starts with the first try after the last
 * one ended.  A yes counts the try.
 */
static inline bool smcr_add_budget_take(struct smcr_add_budget *b,
					unsigned long now,
					unsigned long window,
					unsigned int max)
{
	if (!b->used || (long)(now - b->start) >= (long)window) {
		b->start = now;
		b->used = 0;
	}
	if (b->used >= max)
		return false;
	b->used++;
	return true;
}

#endif /* __SMCR_ADD_BUDGET_H */
