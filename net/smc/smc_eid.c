// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: enterprise IDs.
 *
 * SMC-Rv2 (and SMC-Dv2 between systems) needs both ends to share an
 * EID: a user EID from the table below, which the administrator keeps
 * identical on the hosts that may talk SMC, or the system EID of s390
 * machines.  A client offers all its user EIDs; the server takes the
 * first of them it has too.  The table is global, like upstream's; it
 * is four entries, read by handshakes in process context, so a mutex
 * guards it.
 */

#include <linux/ctype.h>
#include <linux/mutex.h>
#include <linux/smc.h>
#include <linux/string.h>

#include "smc_eid.h"
#include "smc_ism.h"
#include "smc_sock.h"

static DEFINE_MUTEX(smc_eid_lock);
static u8 smc_ueids[SMC_MAX_UEID][SMC_CLC_EID_LEN];
static unsigned int smc_ueid_cnt;
/* the system EID is offered only on s390, where it exists */
static bool smc_seid_enabled = IS_ENABLED(CONFIG_S390);

/*
 * A user EID as the netlink request carries it: 32 characters padded
 * with blanks on the right; at least one that is not a blank; the
 * first a letter or a digit; then only A-Z, 0-9, '.' and '-'.
 */
bool smc_ueid_valid(const u8 *eid)
{
	unsigned int len = SMC_CLC_EID_LEN, i;

	while (len && eid[len - 1] == ' ')
		len--;
	if (!len || !isalnum(eid[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!isdigit(eid[i]) && !isupper(eid[i]) &&
		    eid[i] != '.' && eid[i] != '-')
			return false;
	return true;
}

static int smc_ueid_find(const u8 *eid)
{
	unsigned int i;

	for (i = 0; i < smc_ueid_cnt; i++)
		if (!memcmp(smc_ueids[i], eid, SMC_CLC_EID_LEN))
			return i;
	return -1;
}

int smc_ueid_add(const u8 *eid)
{
	int rc = 0;

	if (!smc_ueid_valid(eid))
		return -EINVAL;
	mutex_lock(&smc_eid_lock);
	if (smc_ueid_find(eid) >= 0)
		rc = -EEXIST;
	else if (smc_ueid_cnt == SMC_MAX_UEID)
		rc = -ERANGE;
	else
		memcpy(smc_ueids[smc_ueid_cnt++], eid, SMC_CLC_EID_LEN);
	mutex_unlock(&smc_eid_lock);
	return rc;
}

int smc_ueid_remove(const u8 *eid)
{
	int i, rc = 0;

	mutex_lock(&smc_eid_lock);
	i = smc_ueid_find(eid);
	if (i < 0) {
		rc = -ENOENT;
		goto out;
	}
	smc_ueid_cnt--;
	memmove(smc_ueids[i], smc_ueids[i + 1],
		(smc_ueid_cnt - i) * SMC_CLC_EID_LEN);
	/* s390: without user EIDs the system EID must be offered again */
	if (!smc_ueid_cnt && IS_ENABLED(CONFIG_S390) && !smc_seid_enabled) {
		smc_seid_enabled = true;
		rc = -EAGAIN;
	}
out:
	mutex_unlock(&smc_eid_lock);
	return rc;
}

void smc_ueid_flush(void)
{
	mutex_lock(&smc_eid_lock);
	smc_ueid_cnt = 0;
	if (IS_ENABLED(CONFIG_S390))
		smc_seid_enabled = true;
	mutex_unlock(&smc_eid_lock);
}

/* Our user EIDs into @eids (SMC_MAX_UEID of 32 bytes); how many */
unsigned int smc_ueid_copy(u8 *eids)
{
	unsigned int n;

	mutex_lock(&smc_eid_lock);
	n = smc_ueid_cnt;
	memcpy(eids, smc_ueids, n * SMC_CLC_EID_LEN);
	mutex_unlock(&smc_eid_lock);
	return n;
}

/*
 * Server: the first of the client's @n EIDs at @peer (32 bytes each)
 * that is one of ours, into @eid.  False when none is.
 */
bool smc_ueid_match(const u8 *peer, unsigned int n, u8 *eid)
{
	bool found = false;
	unsigned int i;

	mutex_lock(&smc_eid_lock);
	for (i = 0; i < n && !found; i++) {
		if (smc_ueid_find(peer + i * SMC_CLC_EID_LEN) >= 0) {
			memcpy(eid, peer + i * SMC_CLC_EID_LEN,
			       SMC_CLC_EID_LEN);
			found = true;
		}
	}
	mutex_unlock(&smc_eid_lock);
	return found;
}

bool smc_seid_offered(void)
{
	return READ_ONCE(smc_seid_enabled);
}

int smc_seid_set(bool on)
{
	int rc = 0;

	if (!IS_ENABLED(CONFIG_S390))
		return -EOPNOTSUPP;
	mutex_lock(&smc_eid_lock);
	if (!on && !smc_ueid_cnt)
		rc = -ENOENT;	/* some EID must be left to offer */
	else
		smc_seid_enabled = on;
	mutex_unlock(&smc_eid_lock);
	return rc;
}
