// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the registry of SMC-D devices.
 *
 * Devices register here; the handshake looks them up by CHID and holds
 * a reference while a link group uses one.  The list is ordered so
 * that loopback-ism comes first, as it is offered first.
 */

#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/wait_bit.h>

#include "smc_ism.h"

static LIST_HEAD(smcd_devices);
static DEFINE_MUTEX(smcd_devices_lock);	/* protects smcd_devices */

int smcd_dev_register(struct smcd_dev *dev)
{
	refcount_set(&dev->refs, 1);
	mutex_lock(&smcd_devices_lock);
	if (dev->chid == SMC_LO_CHID)
		list_add(&dev->list, &smcd_devices);
	else
		list_add_tail(&dev->list, &smcd_devices);
	mutex_unlock(&smcd_devices_lock);
	return 0;
}

/* Remove @dev from the registry and wait until nobody uses it */
void smcd_dev_unregister(struct smcd_dev *dev)
{
	mutex_lock(&smcd_devices_lock);
	list_del_init(&dev->list);
	mutex_unlock(&smcd_devices_lock);
	smcd_dev_put(dev);
	wait_var_event(&dev->refs, !refcount_read(&dev->refs));
}

struct smcd_dev *smcd_dev_find_by_chid(u16 chid)
{
	struct smcd_dev *dev, *found = NULL;

	mutex_lock(&smcd_devices_lock);
	list_for_each_entry(dev, &smcd_devices, list) {
		if (dev->chid == chid && refcount_inc_not_zero(&dev->refs)) {
			found = dev;
			break;
		}
	}
	mutex_unlock(&smcd_devices_lock);
	return found;
}

struct smcd_dev *smcd_dev_get_loopback(void)
{
	return smcd_dev_find_by_chid(SMC_LO_CHID);
}

void smcd_dev_put(struct smcd_dev *dev)
{
	if (refcount_dec_and_test(&dev->refs))
		wake_up_var(&dev->refs);
}

/* Same contract as smcr_dev_pnet_set(), for SMC-D devices by name */
int smcd_dev_pnet_set(const char *name, const char *pnetid)
{
	struct smcd_dev *dev;
	int rc = 0, n = 0;

	mutex_lock(&smcd_devices_lock);
	list_for_each_entry(dev, &smcd_devices, list) {
		if (strcmp(dev->name, name))
			continue;
		if (smc_pnetid_set(dev->pnetid, pnetid))
			rc = -EEXIST;
		else
			n++;
	}
	mutex_unlock(&smcd_devices_lock);
	return rc ?: n;
}

void smcd_dev_pnet_clear(const char *name, const char *pnetid)
{
	struct smcd_dev *dev;

	mutex_lock(&smcd_devices_lock);
	list_for_each_entry(dev, &smcd_devices, list) {
		if (name && strcmp(dev->name, name))
			continue;
		smc_pnetid_clear(dev->pnetid, pnetid);
	}
	mutex_unlock(&smcd_devices_lock);
}

/* A copy of the PNET ID of @dev, SMC_PNETID_LEN + 1 bytes */
void smcd_dev_pnetid(struct smcd_dev *dev, char *pnetid)
{
	mutex_lock(&smcd_devices_lock);
	strscpy(pnetid, dev->pnetid, SMC_PNETID_LEN + 1);
	mutex_unlock(&smcd_devices_lock);
}

/* Ring the doorbell of @dmb: its owner learns of a new CDC header */
void smcd_dmb_signal(struct smcd_dmb *dmb)
{
	void *priv;

	rcu_read_lock();
	priv = rcu_dereference(dmb->priv);
	if (priv)
		dmb->notify(dmb, priv);
	rcu_read_unlock();
}
