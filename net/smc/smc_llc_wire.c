// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: LLC messages to and from their host
 * view.  Pure (see smc_wire.h); fields are read and written at the
 * offsets of the layout structs in smc_llc_wire.h.
 */

#include "smc_llc_wire.h"

/* Byte offset of field @f of a layout struct */
#define HDR_OFF(f)		offsetof(struct smc_llc_hdr_wire, f)
#define RKEY_OFF(f)		offsetof(struct smc_llc_rkey_wire, f)
#define RKEY_LINK_OFF(f)	offsetof(struct smc_llc_rkey_link_wire, f)
#define CONF_LINK_OFF(f)	offsetof(struct smc_llc_confirm_link_wire, f)
#define ADD_LINK_OFF(f)		offsetof(struct smc_llc_add_link_wire, f)
#define ADD_LINK2_OFF(f)	offsetof(struct smc_llc_add_link_v2_wire, f)
#define ADD_CONT_OFF(f)		offsetof(struct smc_llc_add_link_cont_wire, f)
#define DEL_LINK_OFF(f)		offsetof(struct smc_llc_delete_link_wire, f)
#define REQ_ADD_OFF(f)		offsetof(struct smc_llc_req_add_link_wire, f)
#define CONF_RKEY_OFF(f)	offsetof(struct smc_llc_confirm_rkey_wire, f)
#define DEL_RKEY_OFF(f)		offsetof(struct smc_llc_delete_rkey_wire, f)
#define TEST_LINK_OFF(f)	offsetof(struct smc_llc_test_link_wire, f)

/* Sizes of an rkey triple, and of REQUEST ADD LINK before its GIDs */
#define RKEY_LEN		sizeof(struct smc_llc_rkey_wire)
#define REQ_ADD_HDR		sizeof(struct smc_llc_req_add_link_wire)

/* Is @type a message of this encoding?  Others are dropped unread. */
static bool smc_llc_known(u8 type, u8 version)
{
	switch (type) {
	case SMC_LLC_CONFIRM_LINK:
	case SMC_LLC_ADD_LINK:
	case SMC_LLC_DELETE_LINK:
	case SMC_LLC_CONFIRM_RKEY:
	case SMC_LLC_TEST_LINK:
	case SMC_LLC_DELETE_RKEY:
		return true;
	case SMC_LLC_ADD_LINK_CONT:
	case SMC_LLC_CONFIRM_RKEY_CONT:
		return version == 1;
	case SMC_LLC_REQ_ADD_LINK:
		return version == 2;
	default:
		return false;
	}
}

/*
 * The header of a received message of @len bytes.  -EPROTO when it is
 * too short or its length field is wrong, -EOPNOTSUPP for a type that
 * is not LLC (or not of its encoding): the caller drops it.
 */
int smc_llc_parse_hdr(const u8 *buf, u32 len, struct smc_llc_hdr *h)
{
	if (len < SMC_LLC_MSG_LEN)
		return -EPROTO;
	memset(h, 0, sizeof(*h));
	h->type = buf[HDR_OFF(type)] & SMC_LLC_TYPE_MASK;
	h->flags = buf[HDR_OFF(flags)];
	switch (buf[HDR_OFF(type)] & SMC_LLC_VERSION_MASK) {
	case 0:
		if (buf[HDR_OFF(v1.length)] != SMC_LLC_MSG_LEN)
			return -EPROTO;
		h->version = 1;
		h->length = SMC_LLC_MSG_LEN;
		h->rej_rsn = buf[HDR_OFF(v1.rej_rsn)] & SMC_LLC_REJ_RSN_MASK;
		break;
	case SMC_LLC_V2:
		h->version = 2;
		h->length = smc_get_host16(buf + HDR_OFF(v2.length));
		if (h->length < SMC_LLC_MSG_LEN)
			return -EPROTO;
		break;
	default:
		return -EOPNOTSUPP;
	}
	return smc_llc_known(h->type, h->version) ? 0 : -EOPNOTSUPP;
}

static void smc_llc_put_hdr(u8 *out, const struct smc_llc_hdr *h, u16 length)
{
	if (h->version == 2) {
		out[HDR_OFF(type)] = SMC_LLC_V2 | h->type;
		smc_put_host16(out + HDR_OFF(v2.length), length);
	} else {
		out[HDR_OFF(type)] = h->type;
		out[HDR_OFF(v1.length)] = SMC_LLC_MSG_LEN;
		out[HDR_OFF(v1.rej_rsn)] = h->rej_rsn & SMC_LLC_REJ_RSN_MASK;
	}
	out[HDR_OFF(flags)] = h->flags;
}

static void smc_llc_get_rkey(const u8 *p, struct smc_llc_rkey *rk)
{
	rk->rkey = smc_get_be32(p + RKEY_OFF(rkey));
	rk->rkey_new = smc_get_be32(p + RKEY_OFF(rkey_new));
	rk->addr_new = smc_get_be64(p + RKEY_OFF(addr_new));
}

static void smc_llc_put_rkey(u8 *p, const struct smc_llc_rkey *rk)
{
	smc_put_be32(p + RKEY_OFF(rkey), rk->rkey);
	smc_put_be32(p + RKEY_OFF(rkey_new), rk->rkey_new);
	smc_put_be64(p + RKEY_OFF(addr_new), rk->addr_new);
}

/* Bytes of the message we may read: its length, within the buffer */
static u32 smc_llc_avail(const struct smc_llc_hdr *h, u32 len)
{
	return min_t(u32, h->length, len);
}

static void smc_llc_parse_add_link(const u8 *buf, u32 avail,
				   struct smc_llc_msg *m)
{
	u32 present;

	memcpy(m->add_link.mac, buf + ADD_LINK_OFF(mac),
	       sizeof(m->add_link.mac));
	memcpy(m->add_link.gid, buf + ADD_LINK_OFF(gid), SMC_LLC_GID_LEN);
	m->add_link.qpn = smc_get_be24(buf + ADD_LINK_OFF(qpn));
	m->add_link.link_id = buf[ADD_LINK_OFF(link_id)];
	m->add_link.mtu = buf[ADD_LINK_OFF(mtu)] & SMC_LLC_QP_MTU_MASK;
	m->add_link.psn = smc_get_be24(buf + ADD_LINK_OFF(psn));
	if (m->hdr.version != 2 || avail < SMC_LLC_ADD_LINK_V2_HDR)
		return;
	m->add_link.v2_ext = true;
	m->add_link.direct = buf[ADD_LINK2_OFF(flags)] &
			     SMC_LLC_ADD_LINK_DIRECT;
	memcpy(m->add_link.target_gid, buf + ADD_LINK2_OFF(target_gid),
	       SMC_LLC_GID_LEN);
	/* the count is the sender's guess: trust only what is there */
	present = (avail - SMC_LLC_ADD_LINK_V2_HDR) / RKEY_LEN;
	m->add_link.rkey_cnt =
		min_t(u32, smc_get_host16(buf + ADD_LINK2_OFF(rkey_cnt)) & 0xff,
		      present);
}

static void smc_llc_parse_rkey_link(const u8 *p, struct smc_llc_rkey_link *l)
{
	l->link_id = p[RKEY_LINK_OFF(link_id)];
	l->rkey = smc_get_be32(p + RKEY_LINK_OFF(rkey));
	l->addr = smc_get_be64(p + RKEY_LINK_OFF(addr));
}

/* A received message into @m; errors as smc_llc_parse_hdr() */
int smc_llc_parse(const u8 *buf, u32 len, struct smc_llc_msg *m)
{
	u32 avail, i, n;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = smc_llc_parse_hdr(buf, len, &m->hdr);
	if (rc)
		return rc;
	avail = smc_llc_avail(&m->hdr, len);

	switch (m->hdr.type) {
	case SMC_LLC_CONFIRM_LINK:
		memcpy(m->confirm_link.mac, buf + CONF_LINK_OFF(mac),
		       sizeof(m->confirm_link.mac));
		memcpy(m->confirm_link.gid, buf + CONF_LINK_OFF(gid),
		       SMC_LLC_GID_LEN);
		m->confirm_link.qpn = smc_get_be24(buf + CONF_LINK_OFF(qpn));
		m->confirm_link.link_id = buf[CONF_LINK_OFF(link_id)];
		memcpy(m->confirm_link.link_uid, buf + CONF_LINK_OFF(link_uid),
		       sizeof(m->confirm_link.link_uid));
		m->confirm_link.max_links = buf[CONF_LINK_OFF(max_links)];
		m->confirm_link.max_conns = buf[CONF_LINK_OFF(max_conns)];
		break;
	case SMC_LLC_ADD_LINK:
		smc_llc_parse_add_link(buf, avail, m);
		break;
	case SMC_LLC_ADD_LINK_CONT:
		m->add_link_cont.link_id = buf[ADD_CONT_OFF(link_id)];
		m->add_link_cont.num_rkeys = buf[ADD_CONT_OFF(num_rkeys)];
		smc_llc_get_rkey(buf + ADD_CONT_OFF(rk[0]),
				 &m->add_link_cont.rk[0]);
		smc_llc_get_rkey(buf + ADD_CONT_OFF(rk[1]),
				 &m->add_link_cont.rk[1]);
		break;
	case SMC_LLC_DELETE_LINK:
		m->delete_link.link_id = buf[DEL_LINK_OFF(link_id)];
		m->delete_link.reason =
			smc_get_be32(buf + DEL_LINK_OFF(reason));
		break;
	case SMC_LLC_REQ_ADD_LINK:
		n = buf[REQ_ADD_OFF(gid_cnt)];
		if (n > 2 ||
		    (n == 2 && avail < REQ_ADD_HDR + n * SMC_LLC_GID_LEN))
			return -EPROTO;
		m->req_add_link.gid_cnt = n;
		/* one GID fits in the 44-byte message */
		for (i = 0; i < n; i++)
			memcpy(m->req_add_link.gid[i],
			       buf + REQ_ADD_OFF(gid[i]), SMC_LLC_GID_LEN);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		m->confirm_rkey.num_other = buf[CONF_RKEY_OFF(num_other)];
		m->confirm_rkey.rkey = smc_get_be32(buf + CONF_RKEY_OFF(rkey));
		m->confirm_rkey.addr = smc_get_be64(buf + CONF_RKEY_OFF(addr));
		smc_llc_parse_rkey_link(buf + CONF_RKEY_OFF(other[0]),
					&m->confirm_rkey.other[0]);
		smc_llc_parse_rkey_link(buf + CONF_RKEY_OFF(other[1]),
					&m->confirm_rkey.other[1]);
		break;
	case SMC_LLC_DELETE_RKEY:
		m->delete_rkey.count = buf[DEL_RKEY_OFF(count)];
		m->delete_rkey.err_mask = buf[DEL_RKEY_OFF(err_mask)];
		n = min_t(u32, buf[DEL_RKEY_OFF(count)], SMC_LLC_DEL_RKEY_MAX);
		for (i = 0; i < n; i++)
			m->delete_rkey.rkey[i] =
				smc_get_be32(buf + DEL_RKEY_OFF(rkey[i]));
		break;
	case SMC_LLC_TEST_LINK:
		memcpy(m->test_link.user_data, buf + TEST_LINK_OFF(user_data),
		       sizeof(m->test_link.user_data));
		break;
	default:	/* CONFIRM RKEY CONTINUATION: nothing we use */
		break;
	}
	return 0;
}

/*
 * Triple @i (< m->add_link.rkey_cnt) of a parsed ADD LINK with the v2
 * extension, from the received @buf of @len bytes.
 */
int smc_llc_add_link_rkey(const u8 *buf, u32 len,
			  const struct smc_llc_msg *m, unsigned int i,
			  struct smc_llc_rkey *rk)
{
	u32 off = ADD_LINK2_OFF(rkeys[i]);

	if (m->hdr.type != SMC_LLC_ADD_LINK || !m->add_link.v2_ext ||
	    i >= m->add_link.rkey_cnt || off + RKEY_LEN > len)
		return -EINVAL;
	smc_llc_get_rkey(buf + off, rk);
	return 0;
}

static void smc_llc_put_rkey_link(u8 *p, const struct smc_llc_rkey_link *l)
{
	p[RKEY_LINK_OFF(link_id)] = l->link_id;
	smc_put_be32(p + RKEY_LINK_OFF(rkey), l->rkey);
	smc_put_be64(p + RKEY_LINK_OFF(addr), l->addr);
}

/* Length of the message @m will be sent as */
static u32 smc_llc_msg_len(const struct smc_llc_msg *m)
{
	u32 n;

	if (m->hdr.version != 2)
		return SMC_LLC_MSG_LEN;
	if (m->hdr.type == SMC_LLC_ADD_LINK && m->add_link.v2_ext)
		return SMC_LLC_ADD_LINK_V2_HDR +
		       RKEY_LEN * m->add_link.rkey_cnt;
	if (m->hdr.type == SMC_LLC_REQ_ADD_LINK) {
		n = REQ_ADD_HDR + SMC_LLC_GID_LEN * m->req_add_link.gid_cnt;
		return max_t(u32, n, SMC_LLC_MSG_LEN);
	}
	return SMC_LLC_MSG_LEN;
}

/*
 * Message @m into @out; @rkeys holds the triples of a v2 ADD LINK.
 * Returns the length, or -EINVAL when @m cannot be sent as it is.
 */
int smc_llc_build(u8 *out, u32 outlen, const struct smc_llc_msg *m,
		  const struct smc_llc_rkey *rkeys)
{
	u32 len = smc_llc_msg_len(m), i, n;

	if (len > outlen || len > SMC_LLC_MAX_LEN ||
	    (m->hdr.version != 1 && m->hdr.version != 2) ||
	    !smc_llc_known(m->hdr.type, m->hdr.version))
		return -EINVAL;
	memset(out, 0, len);
	smc_llc_put_hdr(out, &m->hdr, len);

	switch (m->hdr.type) {
	case SMC_LLC_CONFIRM_LINK:
		memcpy(out + CONF_LINK_OFF(mac), m->confirm_link.mac,
		       sizeof(m->confirm_link.mac));
		memcpy(out + CONF_LINK_OFF(gid), m->confirm_link.gid,
		       SMC_LLC_GID_LEN);
		smc_put_be24(out + CONF_LINK_OFF(qpn), m->confirm_link.qpn);
		out[CONF_LINK_OFF(link_id)] = m->confirm_link.link_id;
		memcpy(out + CONF_LINK_OFF(link_uid), m->confirm_link.link_uid,
		       sizeof(m->confirm_link.link_uid));
		out[CONF_LINK_OFF(max_links)] = m->confirm_link.max_links;
		out[CONF_LINK_OFF(max_conns)] = m->confirm_link.max_conns;
		break;
	case SMC_LLC_ADD_LINK:
		memcpy(out + ADD_LINK_OFF(mac), m->add_link.mac,
		       sizeof(m->add_link.mac));
		memcpy(out + ADD_LINK_OFF(gid), m->add_link.gid,
		       SMC_LLC_GID_LEN);
		smc_put_be24(out + ADD_LINK_OFF(qpn), m->add_link.qpn);
		out[ADD_LINK_OFF(link_id)] = m->add_link.link_id;
		out[ADD_LINK_OFF(mtu)] = m->add_link.mtu & SMC_LLC_QP_MTU_MASK;
		smc_put_be24(out + ADD_LINK_OFF(psn), m->add_link.psn);
		if (m->hdr.version != 2 || !m->add_link.v2_ext)
			break;
		if (m->add_link.rkey_cnt && !rkeys)
			return -EINVAL;
		out[ADD_LINK2_OFF(flags)] = m->add_link.direct ?
					    SMC_LLC_ADD_LINK_DIRECT : 0;
		memcpy(out + ADD_LINK2_OFF(target_gid), m->add_link.target_gid,
		       SMC_LLC_GID_LEN);
		smc_put_host16(out + ADD_LINK2_OFF(rkey_cnt),
			       m->add_link.rkey_cnt);
		for (i = 0; i < m->add_link.rkey_cnt; i++)
			smc_llc_put_rkey(out + ADD_LINK2_OFF(rkeys[i]),
					 &rkeys[i]);
		break;
	case SMC_LLC_ADD_LINK_CONT:
		out[ADD_CONT_OFF(link_id)] = m->add_link_cont.link_id;
		out[ADD_CONT_OFF(num_rkeys)] = m->add_link_cont.num_rkeys;
		smc_llc_put_rkey(out + ADD_CONT_OFF(rk[0]),
				 &m->add_link_cont.rk[0]);
		smc_llc_put_rkey(out + ADD_CONT_OFF(rk[1]),
				 &m->add_link_cont.rk[1]);
		break;
	case SMC_LLC_DELETE_LINK:
		out[DEL_LINK_OFF(link_id)] = m->delete_link.link_id;
		smc_put_be32(out + DEL_LINK_OFF(reason), m->delete_link.reason);
		break;
	case SMC_LLC_REQ_ADD_LINK:
		n = m->req_add_link.gid_cnt;
		if (n > 2)
			return -EINVAL;
		out[REQ_ADD_OFF(gid_cnt)] = n;
		for (i = 0; i < n; i++)
			memcpy(out + REQ_ADD_OFF(gid[i]),
			       m->req_add_link.gid[i], SMC_LLC_GID_LEN);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		out[CONF_RKEY_OFF(num_other)] = m->confirm_rkey.num_other;
		smc_put_be32(out + CONF_RKEY_OFF(rkey), m->confirm_rkey.rkey);
		smc_put_be64(out + CONF_RKEY_OFF(addr), m->confirm_rkey.addr);
		smc_llc_put_rkey_link(out + CONF_RKEY_OFF(other[0]),
				      &m->confirm_rkey.other[0]);
		smc_llc_put_rkey_link(out + CONF_RKEY_OFF(other[1]),
				      &m->confirm_rkey.other[1]);
		break;
	case SMC_LLC_DELETE_RKEY:
		out[DEL_RKEY_OFF(count)] = m->delete_rkey.count;
		out[DEL_RKEY_OFF(err_mask)] = m->delete_rkey.err_mask;
		n = min_t(u32, m->delete_rkey.count, SMC_LLC_DEL_RKEY_MAX);
		for (i = 0; i < n; i++)
			smc_put_be32(out + DEL_RKEY_OFF(rkey[i]),
				     m->delete_rkey.rkey[i]);
		break;
	case SMC_LLC_TEST_LINK:
		memcpy(out + TEST_LINK_OFF(user_data), m->test_link.user_data,
		       sizeof(m->test_link.user_data));
		break;
	default:
		break;
	}
	return len;
}

/*
 * ADD LINK CONTINUATION @m for the new link @link_id with the next (up
 * to) two of the @n triples @rk, of which *@sent went before (advanced
 * here).  It tells how many the sender has left, these included.
 * @resp: the client's, which answer the server's.
 */
void smc_llc_cont_fill(struct smc_llc_msg *m, u8 link_id, bool resp,
		       const struct smc_llc_rkey *rk, unsigned int n,
		       unsigned int *sent)
{
	unsigned int i, k = 0;

	memset(m, 0, sizeof(*m));
	m->hdr.type = SMC_LLC_ADD_LINK_CONT;
	m->hdr.version = 1;
	m->hdr.flags = resp ? SMC_LLC_FLAG_RESP : 0;
	m->add_link_cont.link_id = link_id;
	if (*sent < n) {
		k = n - *sent < 2 ? n - *sent : 2;
		m->add_link_cont.num_rkeys = n - *sent > 255 ? 255 :
					     n - *sent;
	}
	for (i = 0; i < k; i++)
		m->add_link_cont.rk[i] = rk[*sent + i];
	*sent += k;
}

/* The triples ADD LINK CONTINUATION @m carries */
unsigned int smc_llc_cont_count(const struct smc_llc_msg *m)
{
	return m->add_link_cont.num_rkeys < 2 ? m->add_link_cont.num_rkeys : 2;
}

/* The triples its sender has left after ADD LINK CONTINUATION @m */
unsigned int smc_llc_cont_left(const struct smc_llc_msg *m)
{
	return m->add_link_cont.num_rkeys - smc_llc_cont_count(m);
}
