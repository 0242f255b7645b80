// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: LLC messages to and from their host
 * view.  Pure (see smc_wire.h); the offsets are those of the protocol.
 */

#include "smc_llc_wire.h"

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
	h->type = buf[0] & 0x0f;
	h->flags = buf[3];
	switch (buf[0] & 0xf0) {
	case 0:
		if (buf[1] != SMC_LLC_MSG_LEN)
			return -EPROTO;
		h->version = 1;
		h->length = SMC_LLC_MSG_LEN;
		h->rej_rsn = buf[2] & 0x0f;
		break;
	case SMC_LLC_V2:
		h->version = 2;
		h->length = smc_get_host16(buf + 1);
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
		out[0] = SMC_LLC_V2 | h->type;
		smc_put_host16(out + 1, length);
	} else {
		out[0] = h->type;
		out[1] = SMC_LLC_MSG_LEN;
		out[2] = h->rej_rsn & 0x0f;
	}
	out[3] = h->flags;
}

static void smc_llc_get_rkey(const u8 *p, struct smc_llc_rkey *rk)
{
	rk->rkey = smc_get_be32(p);
	rk->rkey_new = smc_get_be32(p + 4);
	rk->addr_new = smc_get_be64(p + 8);
}

static void smc_llc_put_rkey(u8 *p, const struct smc_llc_rkey *rk)
{
	smc_put_be32(p, rk->rkey);
	smc_put_be32(p + 4, rk->rkey_new);
	smc_put_be64(p + 8, rk->addr_new);
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

	memcpy(m->add_link.mac, buf + 4, 6);
	memcpy(m->add_link.gid, buf + 12, SMC_LLC_GID_LEN);
	m->add_link.qpn = smc_get_be24(buf + 28);
	m->add_link.link_id = buf[31];
	m->add_link.mtu = buf[32] & 0x0f;
	m->add_link.psn = smc_get_be24(buf + 33);
	if (m->hdr.version != 2 || avail < SMC_LLC_ADD_LINK_V2_HDR)
		return;
	m->add_link.v2_ext = true;
	m->add_link.direct = buf[44] & 0x80;
	memcpy(m->add_link.target_gid, buf + 46, SMC_LLC_GID_LEN);
	/* the count is the sender's guess: trust only what is there */
	present = (avail - SMC_LLC_ADD_LINK_V2_HDR) / 16;
	m->add_link.rkey_cnt = min_t(u32, smc_get_host16(buf + 70) & 0xff,
				     present);
}

static void smc_llc_parse_rkey_link(const u8 *p, struct smc_llc_rkey_link *l)
{
	l->link_id = p[0];
	l->rkey = smc_get_be32(p + 1);
	l->addr = smc_get_be64(p + 5);
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
		memcpy(m->confirm_link.mac, buf + 4, 6);
		memcpy(m->confirm_link.gid, buf + 10, SMC_LLC_GID_LEN);
		m->confirm_link.qpn = smc_get_be24(buf + 26);
		m->confirm_link.link_id = buf[29];
		memcpy(m->confirm_link.link_uid, buf + 30, 4);
		m->confirm_link.max_links = buf[34];
		m->confirm_link.max_conns = buf[35];
		break;
	case SMC_LLC_ADD_LINK:
		smc_llc_parse_add_link(buf, avail, m);
		break;
	case SMC_LLC_ADD_LINK_CONT:
		m->add_link_cont.link_id = buf[4];
		m->add_link_cont.num_rkeys = buf[5];
		smc_llc_get_rkey(buf + 8, &m->add_link_cont.rk[0]);
		smc_llc_get_rkey(buf + 24, &m->add_link_cont.rk[1]);
		break;
	case SMC_LLC_DELETE_LINK:
		m->delete_link.link_id = buf[4];
		m->delete_link.reason = smc_get_be32(buf + 5);
		break;
	case SMC_LLC_REQ_ADD_LINK:
		n = buf[24];
		if (n > 2 || (n == 2 && avail < 28 + 2 * SMC_LLC_GID_LEN))
			return -EPROTO;
		m->req_add_link.gid_cnt = n;
		/* one GID fits in the 44-byte message */
		for (i = 0; i < n; i++)
			memcpy(m->req_add_link.gid[i],
			       buf + 28 + i * SMC_LLC_GID_LEN, SMC_LLC_GID_LEN);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		m->confirm_rkey.num_other = buf[4];
		m->confirm_rkey.rkey = smc_get_be32(buf + 5);
		m->confirm_rkey.addr = smc_get_be64(buf + 9);
		smc_llc_parse_rkey_link(buf + 17, &m->confirm_rkey.other[0]);
		smc_llc_parse_rkey_link(buf + 30, &m->confirm_rkey.other[1]);
		break;
	case SMC_LLC_DELETE_RKEY:
		m->delete_rkey.count = buf[4];
		m->delete_rkey.err_mask = buf[5];
		n = min_t(u32, buf[4], SMC_LLC_DEL_RKEY_MAX);
		for (i = 0; i < n; i++)
			m->delete_rkey.rkey[i] = smc_get_be32(buf + 8 + 4 * i);
		break;
	case SMC_LLC_TEST_LINK:
		memcpy(m->test_link.user_data, buf + 4, 16);
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
	u32 off = SMC_LLC_ADD_LINK_V2_HDR + 16 * i;

	if (m->hdr.type != SMC_LLC_ADD_LINK || !m->add_link.v2_ext ||
	    i >= m->add_link.rkey_cnt || off + 16 > len)
		return -EINVAL;
	smc_llc_get_rkey(buf + off, rk);
	return 0;
}

static void smc_llc_put_rkey_link(u8 *p, const struct smc_llc_rkey_link *l)
{
	p[0] = l->link_id;
	smc_put_be32(p + 1, l->rkey);
	smc_put_be64(p + 5, l->addr);
}

/* Length of the message @m will be sent as */
static u32 smc_llc_msg_len(const struct smc_llc_msg *m)
{
	u32 n;

	if (m->hdr.version != 2)
		return SMC_LLC_MSG_LEN;
	if (m->hdr.type == SMC_LLC_ADD_LINK && m->add_link.v2_ext)
		return SMC_LLC_ADD_LINK_V2_HDR + 16 * m->add_link.rkey_cnt;
	if (m->hdr.type == SMC_LLC_REQ_ADD_LINK) {
		n = 28 + SMC_LLC_GID_LEN * m->req_add_link.gid_cnt;
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
		memcpy(out + 4, m->confirm_link.mac, 6);
		memcpy(out + 10, m->confirm_link.gid, SMC_LLC_GID_LEN);
		smc_put_be24(out + 26, m->confirm_link.qpn);
		out[29] = m->confirm_link.link_id;
		memcpy(out + 30, m->confirm_link.link_uid, 4);
		out[34] = m->confirm_link.max_links;
		out[35] = m->confirm_link.max_conns;
		break;
	case SMC_LLC_ADD_LINK:
		memcpy(out + 4, m->add_link.mac, 6);
		memcpy(out + 12, m->add_link.gid, SMC_LLC_GID_LEN);
		smc_put_be24(out + 28, m->add_link.qpn);
		out[31] = m->add_link.link_id;
		out[32] = m->add_link.mtu & 0x0f;
		smc_put_be24(out + 33, m->add_link.psn);
		if (m->hdr.version != 2 || !m->add_link.v2_ext)
			break;
		if (m->add_link.rkey_cnt && !rkeys)
			return -EINVAL;
		out[44] = m->add_link.direct ? 0x80 : 0;
		memcpy(out + 46, m->add_link.target_gid, SMC_LLC_GID_LEN);
		smc_put_host16(out + 70, m->add_link.rkey_cnt);
		for (i = 0; i < m->add_link.rkey_cnt; i++)
			smc_llc_put_rkey(out + SMC_LLC_ADD_LINK_V2_HDR + 16 * i,
					 &rkeys[i]);
		break;
	case SMC_LLC_ADD_LINK_CONT:
		out[4] = m->add_link_cont.link_id;
		out[5] = m->add_link_cont.num_rkeys;
		smc_llc_put_rkey(out + 8, &m->add_link_cont.rk[0]);
		smc_llc_put_rkey(out + 24, &m->add_link_cont.rk[1]);
		break;
	case SMC_LLC_DELETE_LINK:
		out[4] = m->delete_link.link_id;
		smc_put_be32(out + 5, m->delete_link.reason);
		break;
	case SMC_LLC_REQ_ADD_LINK:
		n = m->req_add_link.gid_cnt;
		if (n > 2)
			return -EINVAL;
		out[24] = n;
		for (i = 0; i < n; i++)
			memcpy(out + 28 + i * SMC_LLC_GID_LEN,
			       m->req_add_link.gid[i], SMC_LLC_GID_LEN);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		out[4] = m->confirm_rkey.num_other;
		smc_put_be32(out + 5, m->confirm_rkey.rkey);
		smc_put_be64(out + 9, m->confirm_rkey.addr);
		smc_llc_put_rkey_link(out + 17, &m->confirm_rkey.other[0]);
		smc_llc_put_rkey_link(out + 30, &m->confirm_rkey.other[1]);
		break;
	case SMC_LLC_DELETE_RKEY:
		out[4] = m->delete_rkey.count;
		out[5] = m->delete_rkey.err_mask;
		n = min_t(u32, m->delete_rkey.count, SMC_LLC_DEL_RKEY_MAX);
		for (i = 0; i < n; i++)
			smc_put_be32(out + 8 + 4 * i, m->delete_rkey.rkey[i]);
		break;
	case SMC_LLC_TEST_LINK:
		memcpy(out + 4, m->test_link.user_data, 16);
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
