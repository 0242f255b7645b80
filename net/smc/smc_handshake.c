// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: the CLC handshake, both sides.
 *
 * The client offers what it has (SMC-Dv2 over loopback-ism, SMC-Rv2
 * over a RoCE GID of its IPv4 address, SMC-Rv1 over a RoCE v1 GID of
 * its interface) in one Proposal; the server takes SMC-D when it can,
 * else SMC-Rv2, else SMC-Rv1, else declines.  The chosen transport's
 * code does the rest: smcd_conn.c and smcr_conn.c.
 * Either side's failure to set up the connection turns into a Decline
 * and TCP fallback; only a broken peer fails the connection.
 */

#include <linux/slab.h>
#include <linux/utsname.h>
#include <net/sock.h>

#include "smc_eid.h"
#include "smc_hs.h"
#include "smc_ism.h"
#include "smc_netns.h"
#include "smc_sock.h"
#include "smc_stats.h"
#include "smcd.h"
#include "smcr_dev.h"

/* Our host name for the first-contact extension, blank padded */
void smc_hs_hostname(u8 *name)
{
	const char *node = init_utsname()->nodename;
	size_t n = strnlen(node, SMC_CLC_HOSTNAME_LEN);

	memset(name, ' ', SMC_CLC_HOSTNAME_LEN);
	memcpy(name, node, n);
}

/* Decline with @reason and go on over TCP */
void smc_hs_decline(struct smc_sock *smc, u32 reason, u8 version)
{
	smc_clc_send_decline(smc, reason, version);
	smc_switch_to_fallback(smc, reason);
}

/*
 * A failure after our last CLC message: the peer may have failed too
 * and declined.  Its Decline, if one comes within a second, is taken
 * off the stream (it must not reach the application as data);
 * otherwise we decline.
 */
void smc_hs_late_decline(struct smc_sock *smc, u32 reason, u8 version)
{
	u8 buf[SMC_CLC_DECLINE_LEN_V2];
	struct smc_clc_hdr hdr;
	int len;

	len = smc_clc_recv_timeout(smc, SMC_CLC_DECLINE, buf, sizeof(buf),
				   &hdr, HZ);
	if (len > 0 &&
	    !smc_hs_peer_declined(smc, buf, min_t(int, len, sizeof(buf))))
		return;
	smc_hs_decline(smc, reason, version);
}

/* The peer declined: record its reason and go on over TCP */
int smc_hs_peer_declined(struct smc_sock *smc, const u8 *buf, int len)
{
	struct smc_clc_decline d;

	if (smc_clc_parse_decline(buf, len, &d))
		return -EPROTO;
	smc->peer_diagnosis = d.peer_diagnosis;
	smc->peer_sync_err = d.out_of_sync;
	smc_switch_to_fallback(smc, SMC_CLC_DECL_PEERDECL);
	return 0;
}

/*
 * Receive the next CLC message, of type @type, into hs->buf (at most
 * @buflen bytes kept).  Returns its length; 0 when the peer declined
 * instead (recorded, the socket falls back); or a negative error.
 */
int smc_hs_recv(struct smc_sock *smc, struct smc_hs *hs, u8 type, int buflen)
{
	struct smc_clc_hdr hdr;
	int len;

	len = smc_clc_recv(smc, type, hs->buf, buflen, &hdr);
	if (len < 0)
		return len;
	len = min(len, buflen);
	if (hdr.type != SMC_CLC_DECLINE)
		return len;
	return smc_hs_peer_declined(smc, hs->buf, len);
}

/* The end of a handshake: the devices no connection took over */
static void smc_hs_free(struct smc_hs *hs)
{
	if (hs->smcd)
		smcd_dev_put(hs->smcd);
	if (hs->gi.dev)
		smcr_dev_put(hs->gi.dev);
	if (hs->gi1.dev)
		smcr_dev_put(hs->gi1.dev);
	kfree(hs);
}

/*
 * Client: offer SMC-D and SMC-R as far as we can, then let the
 * transport the server chose finish.  Returns 0 on SMC or fallback, or
 * a negative error that fails the connect.  smc sock lock held.
 */
int smc_connect_handshake(struct smc_sock *smc)
{
	struct smc_clc_proposal *p;
	struct smc_clc_accept *a;
	struct smc_net_smcr sp;
	struct smc_hs *hs;
	int rc, len;

	smc_owned_by_me(smc);
	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return -ENOMEM;
	p = &hs->p;
	a = &hs->a;

	/* every user EID we have: the server takes one it knows */
	p->eid_cnt = smc_ueid_copy(&p->eids[0][0]);
	if (READ_ONCE(smc_smcd_enabled))
		hs->smcd = smcd_dev_get_loopback();
	/* a server of this host: SMC-D without a CLC message */
	rc = smc_rendezvous(smc, hs);
	if (!rc) {
		a->version = SMC_V2;
		goto out;
	}
	if (!SMC_TCP_OPTION) {
		/* no peer elsewhere can be asked: TCP it is */
		smc_switch_to_fallback(smc, rc == -EAGAIN ?
				       SMC_CLC_DECL_PEERNOSMC :
				       smcd_decline_reason(rc));
		rc = 0;
		goto out;
	}
	if (READ_ONCE(smc_smcr_enabled)) {
		hs->smcr = !smcr_connect_offer(smc, hs);
		hs->smcr1 = !smcr_connect_offer_v1(smc, hs);
	}
	if (!hs->smcd && !hs->smcr && !hs->smcr1) {
		/* nothing to offer: a v1 Decline instead of a Proposal */
		smc_hs_decline(smc, SMC_CLC_DECL_NOSMCDEV, SMC_V1);
		rc = 0;
		goto out;
	}

	p->version = SMC_V2;
	p->typev1 = hs->smcr1 ? SMC_TYPE_R : SMC_TYPE_N;
	p->typev2 = hs->smcd && hs->smcr ? SMC_TYPE_B :
		    hs->smcd ? SMC_TYPE_D :
		    hs->smcr ? SMC_TYPE_R : SMC_TYPE_N;
	p->release = SMC_CLC_RELEASE_MAX;
	p->feature_mask = SMC_CLC_FEAT_MASK;
	if (hs->smcd)
		smc_clc_prop_add_ism(p, hs->smcd->gid.gid, hs->smcd->gid.gid_ext,
				     hs->smcd->chid);
	if (hs->smcr) {
		memcpy(p->roce_v2_gid, hs->gi.gid, SMC_CLC_GID_LEN);
		smc_net_smcr(sock_net(&smc->sk), &sp);
		p->max_conns = sp.max_conns;
		p->max_links = sp.max_links;
	}
	len = smc_clc_build_proposal(hs->buf, sizeof(hs->buf), p);
	/* the SYN-ACK ended TCP's hold; the Accept's ACK rides on Confirm */
	smc_clc_hold_acks(smc_clcsk(smc));
	rc = len < 0 ? len : smc_clc_send(smc, hs->buf, len);
	if (rc)
		goto out;

	len = smc_hs_recv(smc, hs, SMC_CLC_ACCEPT, SMC_CLC_ACCEPT_RCV_LEN);
	rc = min(len, 0);
	if (len <= 0)
		goto out;
	rc = -EPROTO;
	if (smc_clc_parse_accept(hs->buf, len, a))
		goto out;
	rc = 0;
	/* a path of the version we offered it for */
	if (!(a->version >= SMC_V2 && a->path == SMC_TYPE_D && hs->smcd) &&
	    !(a->version >= SMC_V2 && a->path == SMC_TYPE_R && hs->smcr) &&
	    !(a->version == SMC_V1 && a->path == SMC_TYPE_R && hs->smcr1)) {
		smc_hs_decline(smc, SMC_CLC_DECL_MODEUNSUPP, a->version);
		goto out;
	}
	if (a->path == SMC_TYPE_D)
		rc = smcd_connect_accept(smc, hs);
	else
		rc = smcr_connect_accept(smc, hs);
out:
	if (!rc && smc_on_smc(smc))
		smc_stats_hs_done(smc, false, a->version);
	else if (rc)
		smc_stats_hs_err(smc, false);
	smc_hs_free(hs);
	return rc;
}

/* Keep the first reason: later failures do not replace it */
static void smc_hs_keep(u32 *first, u32 reason)
{
	if (!*first && reason != SMC_HS_SILENT)
		*first = reason;
}

/*
 * Server: choose the path for the client's Proposal: SMC-Dv2, SMC-Rv2,
 * SMC-Rv1, in this order.  0 with hs->smcd (SMC-D) or hs->version (SMC-R)
 * set, else the reason to decline.
 *
 * The reason is the one upstream's server gives, so that a client sees
 * the same code whichever module it talks to.  A v2 path the Proposal
 * cannot have (no extension, no EID) is dropped first; its reason counts
 * only when no path is left at all.  Of the device search after that,
 * the first failure with a reason counts; an EID mismatch has none.  An
 * IPv4/IPv6 prefix mismatch rules out SMC-Rv1 and wins over everything.
 */
static u32 smc_listen_pick(struct smc_sock *child, struct smc_hs *hs)
{
	const struct smc_clc_proposal *p = &hs->p;
	u32 vrc, first = 0, prfx = 0, reason;
	bool d1, d2, r1, r2;

	d1 = smc_path_has_d(p->typev1);
	r1 = smc_path_has_r(p->typev1);
	d2 = p->version >= SMC_V2 && smc_path_has_d(p->typev2);
	r2 = p->version >= SMC_V2 && smc_path_has_r(p->typev2);

	vrc = SMC_CLC_DECL_PEERNOSMC;
	if ((d2 || r2) && !p->v2_ext) {
		d2 = false;
		r2 = false;
		vrc = SMC_CLC_DECL_NOV2EXT;
	}
	reason = d2 ? smcd_listen_v2_check(p) : 0;
	if (reason) {
		d2 = false;
		vrc = reason;
	}
	reason = r2 ? smcr_listen_v2_check(p) : 0;
	if (reason) {
		r2 = false;
		vrc = reason;
	}
	if (!d1 && !r1 && !d2 && !r2)
		return vrc;

	hs->version = SMC_V2;
	if (d2) {
		reason = smcd_listen_check(p, &hs->smcd);
		if (!reason)
			return 0;
		smc_hs_keep(&first, reason);
	}
	if (p->typev1 != SMC_TYPE_N &&
	    !smc_prefix_match(smc_clcsk(child), p))
		prfx = SMC_CLC_DECL_DIFFPREFIX;
	smc_hs_keep(&first, prfx);
	/* no native ISM device here for SMC-Dv1 */
	if (d1 && !prfx)
		smc_hs_keep(&first, SMC_CLC_DECL_NOSMCDDEV);
	if (!r1 && !smc_path_has_r(p->typev2))
		return first ?: SMC_CLC_DECL_NOSMCDDEV;
	if (r2) {
		reason = smcr_listen_check(child, hs);
		if (!reason)
			return 0;
		smc_hs_keep(&first, reason);
	}
	if (prfx)
		return prfx;
	reason = r1 ? smcr_listen_check_v1(child, hs) : SMC_CLC_DECL_NOSMCDEV;
	if (!reason) {
		hs->version = SMC_V1;
		return 0;
	}
	smc_hs_keep(&first, reason);
	return first;
}

/*
 * Server side of the handshake of a child.  Returns 0 on SMC or
 * fallback, a negative error when the connection must be dropped.
 */
int smc_listen_handshake(struct smc_sock *child)
{
	struct smc_clc_proposal *p;
	struct smc_hs *hs;
	u32 reason;
	int rc, len;

	hs = kzalloc(sizeof(*hs), GFP_KERNEL);
	if (!hs)
		return -ENOMEM;
	p = &hs->p;

	len = smc_hs_recv(child, hs, SMC_CLC_PROPOSAL,
			  SMC_CLC_PROPOSAL_MAX_LEN);
	rc = min(len, 0);
	if (len <= 0)
		goto out;
	rc = -EPROTO;
	if (smc_clc_parse_proposal(hs->buf, len, p))
		goto out;

	rc = 0;
	reason = smc_listen_pick(child, hs);
	if (reason)
		smc_hs_decline(child, reason, p->version);
	else if (hs->smcd)
		rc = smcd_listen_accept(child, hs);
	else
		rc = smcr_listen_accept(child, hs, hs->version);
out:
	if (!rc && smc_on_smc(child))
		smc_stats_hs_done(child, true, hs->version);
	else if (rc)
		smc_stats_hs_err(child, true);
	smc_hs_free(hs);
	return rc;
}
