// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: what an SMC-R link group knows of the
 * peer's RMBs.
 *
 * The CLC message of a connection gives its RMB on the connection's
 * link; CONFIRM RKEY and ADD LINK give it on the others.  An entry is
 * found by the rkey it has on a link.
 */

#include "smc_ism.h"
#include "smc_sock.h"
#include "smcr.h"

/* The entry with @rkey on link slot @idx, or -1.  rtok_lock held */
static int smcr_rtok_find(struct smcr_lgr *lgr, unsigned int idx, u32 rkey)
{
	struct smcr_rtok *t;
	unsigned int i;

	lockdep_assert_held(&lgr->rtok_lock);
	for (i = 0; i < SMCR_RTOKS; i++) {
		t = &lgr->rtoks[i];
		if (t->used && !t->deleted && (t->valid & BIT(idx)) &&
		    t->rkey[idx] == rkey)
			return i;
	}
	return -1;
}

/*
 * The entry with @rkey on @idx, made if new: in a free place, else in
 * place of one no connection uses (what the peer told of an RMB it
 * keeps in its pool; it tells again when a connection takes it).  -1
 * when every entry is in use.
 */
static int smcr_rtok_lookup(struct smcr_lgr *lgr, unsigned int idx, u32 rkey)
{
	int found, spare = -1;
	struct smcr_rtok *t;
	unsigned int i;

	found = smcr_rtok_find(lgr, idx, rkey);
	if (found >= 0)
		return found;
	for (i = 0; i < SMCR_RTOKS && found < 0; i++) {
		t = &lgr->rtoks[i];
		if (!t->used)
			found = i;
		else if (!t->users && spare < 0)
			spare = i;
	}
	if (found < 0)
		found = spare;
	if (found < 0)
		return -1;
	t = &lgr->rtoks[found];
	memset(t, 0, sizeof(*t));
	t->used = true;
	t->valid = BIT(idx);
	t->rkey[idx] = rkey;
	return found;
}

static void smcr_rtok_set(struct smcr_rtok *t, unsigned int idx, u32 rkey,
			  u64 addr)
{
	t->rkey[idx] = rkey;
	t->addr[idx] = addr;
	t->valid |= BIT(idx);
}

/*
 * A connection's peer RMB, from its CLC message: @rkey and @addr on
 * link slot @idx.  Returns the entry the connection holds, or -ENOSPC.
 */
int smcr_rtok_add(struct smcr_lgr *lgr, unsigned int idx, u32 rkey, u64 addr)
{
	int i;

	spin_lock_bh(&lgr->rtok_lock);
	i = smcr_rtok_lookup(lgr, idx, rkey);
	if (i >= 0) {
		smcr_rtok_set(&lgr->rtoks[i], idx, rkey, addr);
		lgr->rtoks[i].users++;
	}
	spin_unlock_bh(&lgr->rtok_lock);
	return i < 0 ? -ENOSPC : i;
}

void smcr_rtok_put(struct smcr_lgr *lgr, int rtok)
{
	struct smcr_rtok *t;

	if (rtok < 0)
		return;
	t = &lgr->rtoks[rtok];
	spin_lock_bh(&lgr->rtok_lock);
	if (!--t->users && (t->deleted || !t->valid))
		t->used = false;
	spin_unlock_bh(&lgr->rtok_lock);
}

/* The RMB of entry @rtok on link slot @idx; false if unknown there */
bool smcr_rtok_get_link(struct smcr_lgr *lgr, int rtok, unsigned int idx,
			u32 *rkey, u64 *addr)
{
	struct smcr_rtok *t;
	bool known;

	if (rtok < 0)
		return false;
	t = &lgr->rtoks[rtok];
	spin_lock_bh(&lgr->rtok_lock);
	known = t->valid & BIT(idx);
	*rkey = t->rkey[idx];
	*addr = t->addr[idx];
	spin_unlock_bh(&lgr->rtok_lock);
	return known;
}

/* Link slot @idx is gone: what the peer told for it is void */
void smcr_rtoks_drop_link(struct smcr_lgr *lgr, unsigned int idx)
{
	struct smcr_rtok *t;
	unsigned int i;

	spin_lock_bh(&lgr->rtok_lock);
	for (i = 0; i < SMCR_RTOKS; i++) {
		t = &lgr->rtoks[i];
		t->valid &= ~BIT(idx);
		if (t->used && !t->valid && !t->users)
			t->used = false;
	}
	spin_unlock_bh(&lgr->rtok_lock);
}

/* The peer's RMB known by @rkey on @idx is (@rkey2, @addr2) on @idx2 */
bool smcr_rtok_learn(struct smcr_lgr *lgr, unsigned int idx, u32 rkey,
		     unsigned int idx2, u32 rkey2, u64 addr2)
{
	int i;

	spin_lock_bh(&lgr->rtok_lock);
	i = smcr_rtok_lookup(lgr, idx, rkey);
	if (i >= 0)
		smcr_rtok_set(&lgr->rtoks[i], idx2, rkey2, addr2);
	spin_unlock_bh(&lgr->rtok_lock);
	return i >= 0;
}

/* The peer deleted its RMB known by @rkey on @idx; false if unknown */
bool smcr_rtok_delete(struct smcr_lgr *lgr, unsigned int idx, u32 rkey)
{
	struct smcr_rtok *t;
	int i;

	spin_lock_bh(&lgr->rtok_lock);
	i = smcr_rtok_find(lgr, idx, rkey);
	if (i >= 0) {
		t = &lgr->rtoks[i];
		t->deleted = true;
		if (!t->users)
			t->used = false;
	}
	spin_unlock_bh(&lgr->rtok_lock);
	return i >= 0;
}
