// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: CDC message and header encoding, at the
 * offsets of the layout structs in smc_cdc_wire.h (see smc_wire.h).
 */

#include "smc_cdc_wire.h"

#define CDC_OFF(f)	offsetof(struct smcr_cdc_wire, f)
#define SMCD_OFF(f)	offsetof(struct smcd_cdc_wire, f)

int smcr_cdc_build(u8 *buf, size_t buflen, const struct smcr_cdc_msg *m)
{
	if (buflen < SMCR_CDC_MSG_LEN)
		return -ENOSPC;
	memset(buf, 0, SMCR_CDC_MSG_LEN);
	buf[CDC_OFF(type)] = SMC_CDC_MSG_TYPE;
	buf[CDC_OFF(len)] = SMCR_CDC_MSG_LEN;
	smc_put_be16(buf + CDC_OFF(seqno), m->seqno);
	smc_put_be32(buf + CDC_OFF(token), m->token);
	smc_put_be16(buf + CDC_OFF(prod_wrap), m->prod.wrap);
	smc_put_be32(buf + CDC_OFF(prod_count), m->prod.count);
	smc_put_be16(buf + CDC_OFF(cons_wrap), m->cons.wrap);
	smc_put_be32(buf + CDC_OFF(cons_count), m->cons.count);
	buf[CDC_OFF(prod_flags)] = m->prod_flags;
	buf[CDC_OFF(conn_state_flags)] = m->conn_state_flags;
	return SMCR_CDC_MSG_LEN;
}

int smcr_cdc_parse(const u8 *buf, size_t len, struct smcr_cdc_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (len < SMCR_CDC_MSG_MIN_RCV ||
	    buf[CDC_OFF(type)] != SMC_CDC_MSG_TYPE ||
	    buf[CDC_OFF(len)] != SMCR_CDC_MSG_LEN)
		return -EPROTO;
	m->type = buf[CDC_OFF(type)];
	m->len = buf[CDC_OFF(len)];
	m->seqno = smc_get_be16(buf + CDC_OFF(seqno));
	m->token = smc_get_be32(buf + CDC_OFF(token));
	m->prod.wrap = smc_get_be16(buf + CDC_OFF(prod_wrap));
	m->prod.count = smc_get_be32(buf + CDC_OFF(prod_count));
	m->cons.wrap = smc_get_be16(buf + CDC_OFF(cons_wrap));
	m->cons.count = smc_get_be32(buf + CDC_OFF(cons_count));
	m->prod_flags = buf[CDC_OFF(prod_flags)];
	m->conn_state_flags = buf[CDC_OFF(conn_state_flags)];
	return 0;
}

int smcd_cdc_build(u8 *buf, size_t buflen, const struct smcd_cdc_hdr *h)
{
	u64 half;

	if (buflen < SMCD_CDC_HDR_LEN)
		return -ENOSPC;
	memset(buf, 0, SMCD_CDC_HDR_LEN);
	buf[SMCD_OFF(type)] = SMC_CDC_MSG_TYPE;
	half = smcd_cdc_pack_prod(h);
	memcpy(buf + SMCD_CDC_PROD_OFF, &half, sizeof(half));
	half = smcd_cdc_pack_cons(h);
	memcpy(buf + SMCD_CDC_CONS_OFF, &half, sizeof(half));
	return SMCD_CDC_HDR_LEN;
}

int smcd_cdc_parse(const u8 *buf, size_t len, struct smcd_cdc_hdr *h)
{
	u64 half;

	memset(h, 0, sizeof(*h));
	if (len < SMCD_CDC_HDR_LEN)
		return -EPROTO;
	h->type = buf[SMCD_OFF(type)];
	memcpy(&half, buf + SMCD_CDC_PROD_OFF, sizeof(half));
	smcd_cdc_unpack_prod(half, h);
	memcpy(&half, buf + SMCD_CDC_CONS_OFF, sizeof(half));
	smcd_cdc_unpack_cons(half, h);
	return 0;
}

bool smc_cdc_cons_update_needed(u32 ring, u32 consumed, u32 outstanding,
				bool peer_blocked, bool forced, bool paged)
{
	u32 limit = max_t(u32, ring / 10, SMC_CDC_UPD_LIMIT_MIN);
	u32 peer_free = outstanding < ring ? ring - outstanding : 0;

	if (forced)
		return true;
	return consumed > limit &&
	       (peer_free <= ring / 2 || peer_blocked ||
		(paged && consumed == outstanding));
}
