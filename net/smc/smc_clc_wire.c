// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: CLC message encoding and parsing.
 *
 * Fields are read and written at the offsets of the layout structs in
 * smc_clc_wire.h (see smc_wire.h): from the start of the message, or of
 * the area or extension named.  Every read is bounds checked against the
 * bytes actually received.
 */

#include "smc_clc_wire.h"

/* Byte offset of field @f of a layout struct */
#define HDR_OFF(f)	offsetof(struct smc_clc_hdr_wire, f)
#define PROP_OFF(f)	offsetof(struct smc_clc_prop_wire, f)
#define PFX_OFF(f)	offsetof(struct smc_clc_prop_pfx_wire, f)
#define V6_OFF(f)	offsetof(struct smc_clc_prop_v6_wire, f)
#define V2_OFF(f)	offsetof(struct smc_clc_prop_v2_wire, f)
#define D2_OFF(f)	offsetof(struct smc_clc_prop_d2_wire, f)
#define GIDCHID_OFF(f)	offsetof(struct smc_clc_prop_gidchid_wire, f)
#define ACC_R_OFF(f)	offsetof(struct smc_clc_accept_r_wire, f)
#define ACC_R2_OFF(f)	offsetof(struct smc_clc_accept_r_v2_wire, f)
#define ACC_D_OFF(f)	offsetof(struct smc_clc_accept_d_wire, f)
#define ACC_D2_OFF(f)	offsetof(struct smc_clc_accept_d_v2_wire, f)
#define FCE_OFF(f)	offsetof(struct smc_clc_fce_wire, f)
#define GLE_OFF(f)	offsetof(struct smc_clc_gle_wire, f)
#define DECL_OFF(f)	offsetof(struct smc_clc_decline_wire, f)
#define DECL2_OFF(f)	offsetof(struct smc_clc_decline_v2_wire, f)

/* Proposal areas: A and B, C and a D entry, E, G and a G entry */
#define PROP_AREA_A	PROP_OFF(smcd)
#define PROP_AREA_B	sizeof(struct smc_clc_prop_smcd_wire)
#define PROP_PFX_HDR	sizeof(struct smc_clc_prop_pfx_wire)
#define PROP_PFX_ENTRY	sizeof(struct smc_clc_prop_v6_wire)
#define PROP_V2_EXT	sizeof(struct smc_clc_prop_v2_wire)
#define PROP_D2_EXT	sizeof(struct smc_clc_prop_d2_wire)
#define PROP_GID_ENTRY	sizeof(struct smc_clc_prop_gidchid_wire)

/* Receive limits of the three Proposal offsets */
#define PROP_IPOFF_MAX		40
#define PROP_V2OFF_MAX		172
#define PROP_D2OFF_MAX		288

/* Base positions the offsets count from: the end of their own field */
#define PROP_V2OFF_BASE	(PROP_OFF(smcd.v2_ext_off) + sizeof(__be16))
#define PROP_D2OFF_BASE	(V2_OFF(smcd_v2_ext_off) + sizeof(__be16))

/* Accept/Confirm: first-contact extension, GID list of a Confirm */
#define ACC_D_FCE	sizeof(struct smc_clc_accept_d_v2_wire)
#define ACC_R_FCE	sizeof(struct smc_clc_accept_r_v2_wire)
#define ACC_R_GLE	(ACC_R_FCE + SMCR_CLC_FCE_LEN)
#define ACC_R_GLE_HDR	sizeof(struct smc_clc_gle_wire)

static bool smc_clc_eyecatcher_ok(const u8 *p)
{
	u32 eye = smc_get_be32(p);

	return eye == SMC_CLC_EYECATCHER_R || eye == SMC_CLC_EYECATCHER_D;
}

static void smc_clc_put_hdr(u8 *buf, u32 eye, u8 type, u16 len, u8 byte7)
{
	smc_put_be32(buf + HDR_OFF(eyecatcher), eye);
	buf[HDR_OFF(type)] = type;
	smc_put_be16(buf + HDR_OFF(length), len);
	buf[HDR_OFF(version_path)] = byte7;
	smc_put_be32(buf + len - SMC_CLC_TRL_LEN, eye);
}

int smc_clc_parse_hdr(const u8 *buf, size_t len, struct smc_clc_hdr *h)
{
	u8 vp;

	if (len < SMC_CLC_HDR_LEN ||
	    !smc_clc_eyecatcher_ok(buf + HDR_OFF(eyecatcher)))
		return -EPROTO;
	vp = buf[HDR_OFF(version_path)];
	h->eyecatcher = smc_get_be32(buf + HDR_OFF(eyecatcher));
	h->type = buf[HDR_OFF(type)];
	h->length = smc_get_be16(buf + HDR_OFF(length));
	h->version = vp >> SMC_CLC_VERSION_SHIFT;
	h->typev2 = (vp >> SMC_CLC_TYPEV2_SHIFT) & SMC_CLC_TYPE_MASK;
	h->typev1 = vp & SMC_CLC_TYPE_MASK;
	if (h->type < SMC_CLC_PROPOSAL || h->type > SMC_CLC_DECLINE)
		return -EPROTO;
	if (!h->version)
		return -EPROTO;
	if (h->length < SMC_CLC_HDR_LEN + SMC_CLC_TRL_LEN)
		return -EPROTO;
	return 0;
}

/* ---- framing ---- */

void smc_clc_frame_init(struct smc_clc_frame *f, u8 expected, u8 *buf,
			u32 buflen)
{
	memset(f, 0, sizeof(*f));
	f->buf = buf;
	f->buflen = buflen;
	f->expected = expected;
}

/* Bytes the message still needs: 0 once it is complete or refused */
u32 smc_clc_frame_need(const struct smc_clc_frame *f)
{
	if (f->err)
		return 0;
	if (f->got < SMC_CLC_HDR_LEN)
		return SMC_CLC_HDR_LEN - f->got;
	return f->hdr.length - f->got;
}

/* Of @n bytes about to be consumed, how many go to buf + got */
u32 smc_clc_frame_room(const struct smc_clc_frame *f, u32 n)
{
	if (f->got >= f->buflen)
		return 0;
	return n < f->buflen - f->got ? n : f->buflen - f->got;
}

/* @n bytes (at most what smc_clc_frame_need() asked for) were consumed */
void smc_clc_frame_advance(struct smc_clc_frame *f, u32 n)
{
	bool hdr_in = f->got < SMC_CLC_HDR_LEN;

	f->got += n;
	if (!hdr_in || f->got < SMC_CLC_HDR_LEN)
		return;
	if (smc_clc_parse_hdr(f->buf, SMC_CLC_HDR_LEN, &f->hdr) ||
	    (f->hdr.type != f->expected && f->hdr.type != SMC_CLC_DECLINE))
		f->err = -EPROTO;
}

/* ---- Proposal ---- */

static bool smc_clc_prop_has_v2(const struct smc_clc_proposal *p)
{
	return p->version >= SMC_V2 && p->typev2 != SMC_TYPE_N;
}

static bool smc_clc_prop_has_d2(const struct smc_clc_proposal *p)
{
	return p->version >= SMC_V2 && smc_path_has_d(p->typev2);
}

int smc_clc_proposal_len(const struct smc_clc_proposal *p)
{
	int len = PROP_AREA_A + PROP_AREA_B + SMC_CLC_TRL_LEN;

	if (!p->version || p->version > 15 || p->typev1 > SMC_TYPE_B ||
	    p->typev2 > SMC_TYPE_B || p->release > 15)
		return -EINVAL;
	if (p->version == SMC_V1 && p->typev1 == SMC_TYPE_N)
		return -EINVAL;
	/*
	 * Without a v1 path the IP-area offset is 0 and a receiver takes the
	 * last byte of the native ISM GID as IPv6 prefix count.
	 */
	if (p->typev1 == SMC_TYPE_N &&
	    (p->ism_gid & 0xff) > SMC_CLC_MAX_V6_PREFIX)
		return -EINVAL;
	if (p->typev1 != SMC_TYPE_N) {
		if (p->ipv6_cnt > SMC_CLC_MAX_V6_PREFIX)
			return -EINVAL;
		len += PROP_PFX_HDR + PROP_PFX_ENTRY * p->ipv6_cnt;
	}
	if (smc_clc_prop_has_v2(p)) {
		if (p->eid_cnt > SMC_CLC_MAX_EID)
			return -EINVAL;
		len += PROP_V2_EXT + SMC_CLC_EID_LEN * p->eid_cnt;
	}
	if (smc_clc_prop_has_d2(p)) {
		if (p->gid_cnt > SMC_CLC_MAX_GID_ENTRIES)
			return -EINVAL;
		len += PROP_D2_EXT + PROP_GID_ENTRY * p->gid_cnt;
	}
	return len;
}

int smc_clc_build_proposal(u8 *buf, size_t buflen,
			   const struct smc_clc_proposal *p)
{
	bool v1 = p->typev1 != SMC_TYPE_N;
	int len = smc_clc_proposal_len(p);
	unsigned int pos, i;

	if (len < 0)
		return len;
	if (buflen < (size_t)len)
		return -ENOSPC;
	memset(buf, 0, len);
	smc_clc_put_hdr(buf, SMC_CLC_EYECATCHER_R, SMC_CLC_PROPOSAL, len,
			p->version << SMC_CLC_VERSION_SHIFT |
			p->typev2 << SMC_CLC_TYPEV2_SHIFT | p->typev1);

	/* area A */
	memcpy(buf + PROP_OFF(peer_id), p->peer_id, SMC_CLC_PEER_ID_LEN);
	memcpy(buf + PROP_OFF(roce_gid), p->roce_gid, SMC_CLC_GID_LEN);
	memcpy(buf + PROP_OFF(roce_mac), p->roce_mac, SMC_CLC_MAC_LEN);
	smc_put_be16(buf + PROP_OFF(ip_area_off), v1 ? PROP_AREA_B : 0);

	/* area B */
	smc_put_be64(buf + PROP_OFF(smcd.ism_gid), p->ism_gid);
	smc_put_be16(buf + PROP_OFF(smcd.ism_chid), p->ism_chid);
	pos = PROP_AREA_A + PROP_AREA_B;

	/* areas C and D */
	if (v1) {
		smc_put_be32(buf + pos + PFX_OFF(v4_subnet), p->ipv4_subnet);
		buf[pos + PFX_OFF(v4_prefix_len)] = p->ipv4_prefix_len;
		buf[pos + PFX_OFF(v6_cnt)] = p->ipv6_cnt;
		pos += PROP_PFX_HDR;
		for (i = 0; i < p->ipv6_cnt; i++) {
			memcpy(buf + pos + V6_OFF(prefix), p->ipv6[i].prefix,
			       sizeof(p->ipv6[i].prefix));
			buf[pos + V6_OFF(prefix_len)] = p->ipv6[i].prefix_len;
			pos += PROP_PFX_ENTRY;
		}
	}

	/* areas E and F */
	if (smc_clc_prop_has_v2(p)) {
		u8 *e = buf + pos;

		smc_put_be16(buf + PROP_OFF(smcd.v2_ext_off),
			     pos - PROP_V2OFF_BASE);
		e[V2_OFF(eid_cnt)] = p->eid_cnt;
		e[V2_OFF(gid_cnt)] = smc_clc_prop_has_d2(p) ? p->gid_cnt : 0;
		e[V2_OFF(flags)] = p->release << SMC_CLC_V2_RELEASE_SHIFT |
				   (p->seid_flag ? SMC_CLC_V2_SEID : 0);
		if (smc_clc_prop_has_d2(p))
			smc_put_be16(e + V2_OFF(smcd_v2_ext_off),
				     PROP_V2_EXT - PROP_D2OFF_BASE +
				     SMC_CLC_EID_LEN * p->eid_cnt);
		memcpy(e + V2_OFF(roce_v2_gid), p->roce_v2_gid,
		       SMC_CLC_GID_LEN);
		e[V2_OFF(max_conns)] = p->max_conns;
		e[V2_OFF(max_links)] = p->max_links;
		smc_put_be16(e + V2_OFF(feature_mask), p->feature_mask);
		pos += PROP_V2_EXT;
		for (i = 0; i < p->eid_cnt; i++) {
			memcpy(buf + pos, p->eids[i], SMC_CLC_EID_LEN);
			pos += SMC_CLC_EID_LEN;
		}
	}

	/* area G */
	if (smc_clc_prop_has_d2(p)) {
		memcpy(buf + pos + D2_OFF(seid), p->seid, SMC_CLC_EID_LEN);
		pos += PROP_D2_EXT;
		for (i = 0; i < p->gid_cnt; i++) {
			smc_put_be64(buf + pos + GIDCHID_OFF(gid),
				     p->gidchid[i].gid);
			smc_put_be16(buf + pos + GIDCHID_OFF(chid),
				     p->gidchid[i].chid);
			pos += PROP_GID_ENTRY;
		}
	}
	return len;
}

static void smc_clc_read_prefixes(const u8 *buf, unsigned int pos,
				  struct smc_clc_proposal *p)
{
	unsigned int i;

	p->ipv4_subnet = smc_get_be32(buf + pos + PFX_OFF(v4_subnet));
	p->ipv4_prefix_len = buf[pos + PFX_OFF(v4_prefix_len)];
	pos += PROP_PFX_HDR;
	for (i = 0; i < p->ipv6_cnt; i++) {
		memcpy(p->ipv6[i].prefix, buf + pos + V6_OFF(prefix),
		       sizeof(p->ipv6[i].prefix));
		p->ipv6[i].prefix_len = buf[pos + V6_OFF(prefix_len)];
		pos += PROP_PFX_ENTRY;
	}
}

/* Version 1 Proposal: no SMC-D area unless the IP area sits behind it. */
static int smc_clc_parse_prop_v1(const u8 *buf, unsigned int mlen,
				 unsigned int ipoff, struct smc_clc_proposal *p)
{
	unsigned int pfx = PROP_AREA_A + ipoff;

	if (p->typev1 == SMC_TYPE_N)
		return -EPROTO;
	if (mlen != pfx + PROP_PFX_HDR + PROP_PFX_ENTRY * p->ipv6_cnt +
		    SMC_CLC_TRL_LEN)
		return -EPROTO;
	if (ipoff == PROP_AREA_B) {
		p->smcd_area = true;
		p->ism_gid = smc_get_be64(buf + PROP_OFF(smcd.ism_gid));
		p->ism_chid = smc_get_be16(buf + PROP_OFF(smcd.ism_chid));
	}
	smc_clc_read_prefixes(buf, pfx, p);
	return 0;
}

static int smc_clc_parse_prop_v2(const u8 *buf, unsigned int mlen,
				 unsigned int ipoff, struct smc_clc_proposal *p)
{
	unsigned int pfx = PROP_AREA_A + ipoff;
	unsigned int e = 0, g, v2off, d2off, need, i;
	bool v1 = p->typev1 != SMC_TYPE_N;

	if (mlen < PROP_AREA_A + PROP_AREA_B + SMC_CLC_TRL_LEN)
		return -EPROTO;
	/* with D offered for v1 the SMC-D area must directly follow A */
	p->smcd_area = !(smc_path_has_d(p->typev1) && ipoff != PROP_AREA_B);

	if (p->typev2 != SMC_TYPE_N) {
		if (!p->smcd_area)
			return -EPROTO;	/* no way to find the v2 extension */
		v2off = smc_get_be16(buf + PROP_OFF(smcd.v2_ext_off));
		if (!v2off || v2off > PROP_V2OFF_MAX)
			return -EPROTO;
		e = PROP_V2OFF_BASE + v2off;
		if (e + PROP_V2_EXT > mlen)
			return -EPROTO;
		p->v2_ext = true;
		p->eid_cnt = buf[e + V2_OFF(eid_cnt)];
		if (p->eid_cnt > SMC_CLC_MAX_EID)
			return -EPROTO;
		if (smc_path_has_d(p->typev2)) {
			p->gid_cnt = buf[e + V2_OFF(gid_cnt)];
			if (p->gid_cnt > SMC_CLC_MAX_GID_ENTRIES)
				return -EPROTO;
		}
	}

	need = PROP_AREA_A + PROP_AREA_B + SMC_CLC_TRL_LEN;
	if (v1)
		need += PROP_PFX_HDR + PROP_PFX_ENTRY * p->ipv6_cnt;
	if (p->typev2 != SMC_TYPE_N)
		need += PROP_V2_EXT + SMC_CLC_EID_LEN * p->eid_cnt;
	if (smc_path_has_d(p->typev2))
		need += PROP_D2_EXT + PROP_GID_ENTRY * p->gid_cnt;
	if (mlen != need)
		return -EPROTO;

	if (p->smcd_area) {
		p->ism_gid = smc_get_be64(buf + PROP_OFF(smcd.ism_gid));
		p->ism_chid = smc_get_be16(buf + PROP_OFF(smcd.ism_chid));
	}
	if (v1) {
		if (pfx + PROP_PFX_HDR + PROP_PFX_ENTRY * p->ipv6_cnt > mlen)
			return -EPROTO;
		smc_clc_read_prefixes(buf, pfx, p);
	} else {
		p->ipv6_cnt = 0;
	}
	if (p->typev2 == SMC_TYPE_N)
		return 0;

	if (e + PROP_V2_EXT + SMC_CLC_EID_LEN * p->eid_cnt > mlen)
		return -EPROTO;
	p->release = buf[e + V2_OFF(flags)] >> SMC_CLC_V2_RELEASE_SHIFT;
	p->seid_flag = buf[e + V2_OFF(flags)] & SMC_CLC_V2_SEID;
	memcpy(p->roce_v2_gid, buf + e + V2_OFF(roce_v2_gid), SMC_CLC_GID_LEN);
	p->max_conns = buf[e + V2_OFF(max_conns)];
	p->max_links = buf[e + V2_OFF(max_links)];
	p->feature_mask = smc_get_be16(buf + e + V2_OFF(feature_mask));
	for (i = 0; i < p->eid_cnt; i++)
		memcpy(p->eids[i], buf + e + PROP_V2_EXT + SMC_CLC_EID_LEN * i,
		       SMC_CLC_EID_LEN);
	if (!smc_path_has_d(p->typev2))
		return 0;

	/* a missing SMC-Dv2 extension is not malformed: D-v2 just fails */
	d2off = smc_get_be16(buf + e + V2_OFF(smcd_v2_ext_off));
	if (!d2off || d2off > PROP_D2OFF_MAX)
		return 0;
	g = e + PROP_D2OFF_BASE + d2off;
	if (g + PROP_D2_EXT + PROP_GID_ENTRY * p->gid_cnt > mlen)
		return -EPROTO;
	p->smcd_v2_ext = true;
	memcpy(p->seid, buf + g + D2_OFF(seid), SMC_CLC_EID_LEN);
	for (i = 0; i < p->gid_cnt; i++) {
		const u8 *ent = buf + g + PROP_D2_EXT + PROP_GID_ENTRY * i;

		p->gidchid[i].gid = smc_get_be64(ent + GIDCHID_OFF(gid));
		p->gidchid[i].chid = smc_get_be16(ent + GIDCHID_OFF(chid));
	}
	return 0;
}

int smc_clc_parse_proposal(const u8 *buf, size_t len,
			   struct smc_clc_proposal *p)
{
	unsigned int mlen, ipoff, pfx;
	struct smc_clc_hdr h;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = smc_clc_parse_hdr(buf, len, &h);
	if (rc)
		return rc;
	mlen = h.length;
	if (h.type != SMC_CLC_PROPOSAL || mlen > len ||
	    mlen < PROP_AREA_A + SMC_CLC_TRL_LEN)
		return -EPROTO;
	if (!smc_clc_eyecatcher_ok(buf + mlen - SMC_CLC_TRL_LEN))
		return -EPROTO;
	p->version = h.version;
	p->typev1 = h.typev1;
	p->typev2 = h.typev2;
	memcpy(p->peer_id, buf + PROP_OFF(peer_id), SMC_CLC_PEER_ID_LEN);
	memcpy(p->roce_gid, buf + PROP_OFF(roce_gid), SMC_CLC_GID_LEN);
	memcpy(p->roce_mac, buf + PROP_OFF(roce_mac), SMC_CLC_MAC_LEN);

	ipoff = smc_get_be16(buf + PROP_OFF(ip_area_off));
	if (ipoff > PROP_IPOFF_MAX)
		return -EPROTO;
	/*
	 * The IPv6 count is checked even when no v1 path is offered and the
	 * IP area overlaps the SMC-D area.  Bytes past the message read as
	 * zero, as in the zeroed receive buffer of a Linux server.
	 */
	pfx = PROP_AREA_A + ipoff;
	if (pfx + PROP_PFX_HDR > mlen && p->typev1 != SMC_TYPE_N)
		return -EPROTO;
	p->ipv6_cnt = pfx + PFX_OFF(v6_cnt) < mlen ?
		      buf[pfx + PFX_OFF(v6_cnt)] : 0;
	if (p->ipv6_cnt > SMC_CLC_MAX_V6_PREFIX)
		return -EPROTO;

	if (p->version == SMC_V1)
		rc = smc_clc_parse_prop_v1(buf, mlen, ipoff, p);
	else
		rc = smc_clc_parse_prop_v2(buf, mlen, ipoff, p);
	if (rc)
		memset(p, 0, sizeof(*p));
	return rc;
}

bool smc_clc_prop_next_ism(const struct smc_clc_proposal *p,
			   unsigned int *pos, struct smc_clc_ism_dev *dev)
{
	const struct smc_clc_gid_chid *ent;
	unsigned int i;

	memset(dev, 0, sizeof(*dev));
	if (*pos == 0) {
		*pos = 1;
		if (p->smcd_area && p->ism_chid) {
			dev->gid = p->ism_gid;
			dev->chid = p->ism_chid;
			dev->native = true;
			return true;
		}
	}
	if (!p->smcd_v2_ext)
		return false;
	for (i = *pos - 1; i < p->gid_cnt && i < SMC_CLC_MAX_GID_ENTRIES;) {
		ent = &p->gidchid[i];
		if (!smc_ism_chid_emulated(ent->chid)) {
			dev->gid = ent->gid;
			dev->chid = ent->chid;
			*pos = i + 2;
			return true;
		}
		if (i + 1 < p->gid_cnt && ent[1].chid == ent->chid) {
			dev->gid = ent->gid;
			dev->gid_ext = ent[1].gid;
			dev->chid = ent->chid;
			*pos = i + 3;
			return true;
		}
		i++;	/* lone half of an emulated GID */
	}
	*pos = i + 1;
	return false;
}

int smc_clc_prop_add_ism(struct smc_clc_proposal *p, u64 gid, u64 gid_ext,
			 u16 chid)
{
	unsigned int need = smc_ism_chid_emulated(chid) ? 2 : 1;

	if (p->gid_cnt + need > SMC_CLC_MAX_GID_ENTRIES)
		return -ENOSPC;
	p->gidchid[p->gid_cnt].gid = gid;
	p->gidchid[p->gid_cnt].chid = chid;
	p->gid_cnt++;
	if (need == 2) {
		p->gidchid[p->gid_cnt].gid = gid_ext;
		p->gidchid[p->gid_cnt].chid = chid;
		p->gid_cnt++;
	}
	return 0;
}

/* ---- Accept / Confirm ---- */

static unsigned int smc_clc_fce_len(const struct smc_clc_accept *a)
{
	if (a->version < SMC_V2 || !a->first_contact)
		return 0;
	if (a->path == SMC_TYPE_D && a->fce.release == SMC_CLC_RELEASE_0)
		return SMCD_CLC_FCE_LEN_REL0;
	return a->path == SMC_TYPE_D ? SMCD_CLC_FCE_LEN : SMCR_CLC_FCE_LEN;
}

static bool smc_clc_has_gle(const struct smc_clc_accept *a)
{
	return a->type == SMC_CLC_CONFIRM && a->path == SMC_TYPE_R &&
	       a->version >= SMC_V2 && a->first_contact && a->fc_gid_cnt;
}

int smc_clc_accept_len(const struct smc_clc_accept *a)
{
	int len;

	if ((a->type != SMC_CLC_ACCEPT && a->type != SMC_CLC_CONFIRM) ||
	    !a->version || a->version > 15 || a->path > SMC_TYPE_D ||
	    a->fce.release > 15 || a->fce.os_type > 15 ||
	    a->d.dmbe_size > 15 || a->r.rmbe_size > 15 || a->r.qp_mtu > 15 ||
	    a->r.qpn > 0xffffff || a->r.psn > 0xffffff)
		return -EINVAL;
	if (a->path == SMC_TYPE_D)
		len = a->version == SMC_V1 ? SMCD_CLC_ACCEPT_CONFIRM_LEN :
					     SMCD_CLC_ACCEPT_CONFIRM_LEN_V2;
	else
		len = a->version == SMC_V1 ? SMCR_CLC_ACCEPT_CONFIRM_LEN :
					     SMCR_CLC_ACCEPT_CONFIRM_LEN_V2;
	len += smc_clc_fce_len(a);
	if (smc_clc_has_gle(a))
		len += ACC_R_GLE_HDR + SMC_CLC_GID_LEN *
		       min_t(unsigned int, a->fc_gid_cnt, SMC_CLC_MAX_FC_GIDS);
	return len;
}

static void smc_clc_put_fce(u8 *f, const struct smc_clc_accept *a,
			    unsigned int flen)
{
	f[FCE_OFF(flags)] = a->fce.v2_direct ? SMC_CLC_FCE_V2_DIRECT : 0;
	f[FCE_OFF(os_release)] = a->fce.os_type << SMC_CLC_OS_SHIFT |
				 a->fce.release;
	memcpy(f + FCE_OFF(hostname), a->fce.hostname, SMC_CLC_HOSTNAME_LEN);
	if (flen < SMCD_CLC_FCE_LEN)
		return;
	f[FCE_OFF(max_conns)] = a->fce.max_conns;
	f[FCE_OFF(max_links)] = a->fce.max_links;
	smc_put_be16(f + FCE_OFF(feature_mask), a->fce.feature_mask);
}

int smc_clc_build_accept(u8 *buf, size_t buflen,
			 const struct smc_clc_accept *a)
{
	unsigned int flen = smc_clc_fce_len(a), i, n;
	int len = smc_clc_accept_len(a);
	u32 eye;

	if (len < 0)
		return len;
	if (buflen < (size_t)len)
		return -ENOSPC;
	memset(buf, 0, len);
	eye = a->path == SMC_TYPE_D ? SMC_CLC_EYECATCHER_D :
				      SMC_CLC_EYECATCHER_R;
	smc_clc_put_hdr(buf, eye, a->type, len,
			a->version << SMC_CLC_VERSION_SHIFT |
			(a->first_contact ? SMC_CLC_FIRST_CONTACT : 0) |
			a->path);
	if (a->path == SMC_TYPE_D) {
		smc_put_be64(buf + ACC_D_OFF(gid), a->d.gid);
		smc_put_be64(buf + ACC_D_OFF(token), a->d.token);
		buf[ACC_D_OFF(dmbe_idx)] = a->d.dmbe_idx;
		buf[ACC_D_OFF(dmbe_size)] = a->d.dmbe_size <<
					    SMC_CLC_BUF_SIZE_SHIFT;
		memcpy(buf + ACC_D_OFF(lgr_id), a->d.lgr_id,
		       sizeof(a->d.lgr_id));
		if (a->version == SMC_V1)
			return len;
		smc_put_be16(buf + ACC_D2_OFF(chid), a->d.chid);
		memcpy(buf + ACC_D2_OFF(eid), a->eid, SMC_CLC_EID_LEN);
		smc_put_be64(buf + ACC_D2_OFF(gid_ext), a->d.gid_ext);
		if (flen)
			smc_clc_put_fce(buf + ACC_D_FCE, a, flen);
		return len;
	}

	memcpy(buf + ACC_R_OFF(peer_id), a->r.peer_id, SMC_CLC_PEER_ID_LEN);
	memcpy(buf + ACC_R_OFF(gid), a->r.gid, SMC_CLC_GID_LEN);
	memcpy(buf + ACC_R_OFF(mac), a->r.mac, SMC_CLC_MAC_LEN);
	smc_put_be24(buf + ACC_R_OFF(qpn), a->r.qpn);
	smc_put_be32(buf + ACC_R_OFF(rkey), a->r.rkey);
	buf[ACC_R_OFF(rmbe_idx)] = a->r.rmbe_idx;
	smc_put_be32(buf + ACC_R_OFF(alert_token), a->r.alert_token);
	buf[ACC_R_OFF(rmbe_size_mtu)] = a->r.rmbe_size <<
					SMC_CLC_BUF_SIZE_SHIFT | a->r.qp_mtu;
	smc_put_be64(buf + ACC_R_OFF(rmb_dma_addr), a->r.rmb_dma_addr);
	smc_put_be24(buf + ACC_R_OFF(psn), a->r.psn);
	if (a->version == SMC_V1)
		return len;
	memcpy(buf + ACC_R2_OFF(eid), a->eid, SMC_CLC_EID_LEN);
	if (flen)
		smc_clc_put_fce(buf + ACC_R_FCE, a, flen);
	if (smc_clc_has_gle(a)) {
		buf[ACC_R_GLE + GLE_OFF(gid_cnt)] = a->fc_gid_cnt;
		n = min_t(unsigned int, a->fc_gid_cnt, SMC_CLC_MAX_FC_GIDS);
		for (i = 0; i < n; i++)
			memcpy(buf + ACC_R_GLE + GLE_OFF(gid[i]),
			       a->fc_gids[i], SMC_CLC_GID_LEN);
	}
	return len;
}

static int smc_clc_parse_fce(const u8 *buf, unsigned int pos,
			     unsigned int end, struct smc_clc_accept *a)
{
	const u8 *f = buf + pos;
	unsigned int flen;

	if (pos + SMCD_CLC_FCE_LEN_REL0 > end)
		return -EPROTO;
	a->fce.v2_direct = f[FCE_OFF(flags)] & SMC_CLC_FCE_V2_DIRECT;
	a->fce.os_type = f[FCE_OFF(os_release)] >> SMC_CLC_OS_SHIFT;
	a->fce.release = f[FCE_OFF(os_release)] & SMC_CLC_FCE_RELEASE_MASK;
	memcpy(a->fce.hostname, f + FCE_OFF(hostname), SMC_CLC_HOSTNAME_LEN);
	flen = smc_clc_fce_len(a);
	if (flen < SMCD_CLC_FCE_LEN)
		return 0;
	if (pos + flen > end)
		return -EPROTO;
	a->fce.max_conns = f[FCE_OFF(max_conns)];
	a->fce.max_links = f[FCE_OFF(max_links)];
	a->fce.feature_mask = smc_get_be16(f + FCE_OFF(feature_mask));
	return 0;
}

static int smc_clc_parse_acc_d(const u8 *buf, unsigned int end,
			       struct smc_clc_accept *a)
{
	a->d.gid = smc_get_be64(buf + ACC_D_OFF(gid));
	a->d.token = smc_get_be64(buf + ACC_D_OFF(token));
	a->d.dmbe_idx = buf[ACC_D_OFF(dmbe_idx)];
	a->d.dmbe_size = buf[ACC_D_OFF(dmbe_size)] >> SMC_CLC_BUF_SIZE_SHIFT;
	memcpy(a->d.lgr_id, buf + ACC_D_OFF(lgr_id), sizeof(a->d.lgr_id));
	if (a->version == SMC_V1)
		return 0;
	a->d.chid = smc_get_be16(buf + ACC_D2_OFF(chid));
	memcpy(a->eid, buf + ACC_D2_OFF(eid), SMC_CLC_EID_LEN);
	a->d.gid_ext = smc_get_be64(buf + ACC_D2_OFF(gid_ext));
	if (!a->first_contact)
		return 0;
	return smc_clc_parse_fce(buf, ACC_D_FCE, end, a);
}

static int smc_clc_parse_acc_r(const u8 *buf, unsigned int end,
			       struct smc_clc_accept *a)
{
	unsigned int i, n, pos;
	int rc;

	memcpy(a->r.peer_id, buf + ACC_R_OFF(peer_id), SMC_CLC_PEER_ID_LEN);
	memcpy(a->r.gid, buf + ACC_R_OFF(gid), SMC_CLC_GID_LEN);
	memcpy(a->r.mac, buf + ACC_R_OFF(mac), SMC_CLC_MAC_LEN);
	a->r.qpn = smc_get_be24(buf + ACC_R_OFF(qpn));
	a->r.rkey = smc_get_be32(buf + ACC_R_OFF(rkey));
	a->r.rmbe_idx = buf[ACC_R_OFF(rmbe_idx)];
	a->r.alert_token = smc_get_be32(buf + ACC_R_OFF(alert_token));
	a->r.rmbe_size = buf[ACC_R_OFF(rmbe_size_mtu)] >>
			 SMC_CLC_BUF_SIZE_SHIFT;
	a->r.qp_mtu = buf[ACC_R_OFF(rmbe_size_mtu)] & SMC_CLC_QP_MTU_MASK;
	a->r.rmb_dma_addr = smc_get_be64(buf + ACC_R_OFF(rmb_dma_addr));
	a->r.psn = smc_get_be24(buf + ACC_R_OFF(psn));
	if (a->version == SMC_V1)
		return 0;
	memcpy(a->eid, buf + ACC_R2_OFF(eid), SMC_CLC_EID_LEN);
	if (!a->first_contact)
		return 0;
	rc = smc_clc_parse_fce(buf, ACC_R_FCE, end, a);
	if (rc || a->type != SMC_CLC_CONFIRM ||
	    ACC_R_GLE + ACC_R_GLE_HDR > end)
		return rc;
	/* GID list of a first-contact Confirm: informational only */
	a->fc_gid_cnt = buf[ACC_R_GLE + GLE_OFF(gid_cnt)];
	n = min_t(unsigned int, a->fc_gid_cnt, SMC_CLC_MAX_FC_GIDS);
	for (i = 0; i < n; i++) {
		pos = ACC_R_GLE + GLE_OFF(gid[i]);
		if (pos + SMC_CLC_GID_LEN > end)
			break;
		memcpy(a->fc_gids[i], buf + pos, SMC_CLC_GID_LEN);
	}
	return 0;
}

int smc_clc_parse_accept(const u8 *buf, size_t len, struct smc_clc_accept *a)
{
	unsigned int mlen, end;
	struct smc_clc_hdr h;
	bool whole;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = smc_clc_parse_hdr(buf, len, &h);
	if (rc)
		return rc;
	if (h.type != SMC_CLC_ACCEPT && h.type != SMC_CLC_CONFIRM)
		return -EPROTO;
	if (h.typev1 != SMC_TYPE_R && h.typev1 != SMC_TYPE_D)
		return -EPROTO;
	mlen = h.length;
	whole = mlen <= len;
	if (!whole && len < SMC_CLC_ACCEPT_RCV_LEN)
		return -EPROTO;
	if (h.version == SMC_V1) {
		if (mlen != (h.typev1 == SMC_TYPE_D ?
			     SMCD_CLC_ACCEPT_CONFIRM_LEN :
			     SMCR_CLC_ACCEPT_CONFIRM_LEN))
			return -EPROTO;
	} else {
		if (mlen < (h.typev1 == SMC_TYPE_D ?
			    SMCD_CLC_ACCEPT_CONFIRM_LEN_V2 :
			    SMCR_CLC_ACCEPT_CONFIRM_LEN_V2))
			return -EPROTO;
	}
	if (whole) {
		end = mlen - SMC_CLC_TRL_LEN;
		if (!smc_clc_eyecatcher_ok(buf + end))
			return -EPROTO;
	} else {
		end = len;
	}
	a->type = h.type;
	a->version = h.version;
	a->path = h.typev1;
	a->first_contact = buf[HDR_OFF(version_path)] & SMC_CLC_FIRST_CONTACT;
	if (a->path == SMC_TYPE_D)
		rc = smc_clc_parse_acc_d(buf, end, a);
	else
		rc = smc_clc_parse_acc_r(buf, end, a);
	if (rc)
		memset(a, 0, sizeof(*a));
	return rc;
}

/* ---- Decline ---- */

int smc_clc_build_decline(u8 *buf, size_t buflen,
			  const struct smc_clc_decline *d)
{
	bool sync = d->peer_diagnosis == SMC_CLC_DECL_SYNCERR;
	unsigned int i;
	int len;

	if (!d->version || d->version > 15)
		return -EINVAL;
	len = d->version == SMC_V1 ? SMC_CLC_DECLINE_LEN :
				     SMC_CLC_DECLINE_LEN_V2;
	if (buflen < (size_t)len)
		return -ENOSPC;
	memset(buf, 0, len);
	smc_clc_put_hdr(buf, SMC_CLC_EYECATCHER_R, SMC_CLC_DECLINE, len,
			d->version << SMC_CLC_VERSION_SHIFT |
			(sync ? SMC_CLC_OUT_OF_SYNC : 0));
	memcpy(buf + DECL_OFF(peer_id), d->peer_id, SMC_CLC_PEER_ID_LEN);
	smc_put_be32(buf + DECL_OFF(peer_diagnosis), d->peer_diagnosis);
	if (d->version == SMC_V1)
		return len;
	buf[DECL_OFF(os_type)] = SMC_CLC_OS_LINUX << SMC_CLC_OS_SHIFT;
	for (i = 0; i < ARRAY_SIZE(d->diag2); i++)
		smc_put_be32(buf + DECL2_OFF(diag2[i]), d->diag2[i]);
	return len;
}

int smc_clc_parse_decline(const u8 *buf, size_t len,
			  struct smc_clc_decline *d)
{
	struct smc_clc_hdr h;
	unsigned int i;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = smc_clc_parse_hdr(buf, len, &h);
	if (rc)
		return rc;
	if (h.type != SMC_CLC_DECLINE || h.length > len)
		return -EPROTO;
	if (h.version == SMC_V1 && h.length != SMC_CLC_DECLINE_LEN)
		return -EPROTO;
	if (h.version == SMC_V2 && h.length != SMC_CLC_DECLINE_LEN_V2)
		return -EPROTO;
	/* later versions: no fixed length, but the v1 fields must be there */
	if (h.length < SMC_CLC_DECLINE_LEN)
		return -EPROTO;
	d->version = h.version;
	d->out_of_sync = buf[HDR_OFF(version_path)] & SMC_CLC_OUT_OF_SYNC;
	memcpy(d->peer_id, buf + DECL_OFF(peer_id), SMC_CLC_PEER_ID_LEN);
	d->peer_diagnosis = smc_get_be32(buf + DECL_OFF(peer_diagnosis));
	d->os_type = buf[DECL_OFF(os_type)] >> SMC_CLC_OS_SHIFT;
	if (h.length < SMC_CLC_DECLINE_LEN_V2)
		return 0;
	for (i = 0; i < ARRAY_SIZE(d->diag2); i++)
		d->diag2[i] = smc_get_be32(buf + DECL2_OFF(diag2[i]));
	return 0;
}
