// SPDX-License-Identifier: GPL-2.0
/*
 * Shared Memory Communications: CDC message and header encoding.
 */

#include "smc_cdc_wire.h"

int smcr_cdc_build(u8 *buf, size_t buflen, const struct smcr_cdc_msg *m)
{
	if (buflen < SMCR_CDC_MSG_LEN)
		return -ENOSPC;
	memset(buf, 0, SMCR_CDC_MSG_LEN);
	buf[0] = SMC_CDC_MSG_TYPE;
	buf[1] = SMCR_CDC_MSG_LEN;
	smc_put_be16(buf + 2, m->seqno);
	smc_put_be32(buf + 4, m->token);
	smc_put_be16(buf + 10, m->prod.wrap);
	smc_put_be32(buf + 12, m->prod.count);
	smc_put_be16(buf + 18, m->cons.wrap);
	smc_put_be32(buf + 20, m->cons.count);
	buf[24] = m->prod_flags;
	buf[25] = m->conn_state_flags;
	return SMCR_CDC_MSG_LEN;
}

int smcr_cdc_parse(const u8 *buf, size_t len, struct smcr_cdc_msg *m)
{
	memset(m, 0, sizeof(*m));
	if (len < SMCR_CDC_MSG_MIN_RCV || buf[0] != SMC_CDC_MSG_TYPE ||
	    buf[1] != SMCR_CDC_MSG_LEN)
		return -EPROTO;
	m->type = buf[0];
	m->len = buf[1];
	m->seqno = smc_get_be16(buf + 2);
	m->token = smc_get_be32(buf + 4);
	m->prod.wrap = smc_get_be16(buf + 10);
	m->prod.count = smc_get_be32(buf + 12);
	m->cons.wrap = smc_get_be16(buf + 18);
	m->cons.count = smc_get_be32(buf + 20);
	m->prod_flags = buf[24];
	m->conn_state_flags = buf[25];
	return 0;
}

int smcd_cdc_build(u8 *buf, size_t buflen, const struct smcd_cdc_hdr *h)
{
	u64 half;

	if (buflen < SMCD_CDC_HDR_LEN)
		return -ENOSPC;
	memset(buf, 0, SMCD_CDC_HDR_LEN);
	buf[0] = SMC_CDC_MSG_TYPE;
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
	h->type = buf[0];
	memcpy(&half, buf + SMCD_CDC_PROD_OFF, sizeof(half));
	smcd_cdc_unpack_prod(half, h);
	memcpy(&half, buf + SMCD_CDC_CONS_OFF, sizeof(half));
	smcd_cdc_unpack_cons(half, h);
	return 0;
}

bool smc_cdc_cons_update_needed(u32 ring, u32 consumed, u32 outstanding,
				bool peer_blocked, bool forced)
{
	u32 limit = max_t(u32, ring / 10, SMC_CDC_UPD_LIMIT_MIN);
	u32 peer_free = outstanding < ring ? ring - outstanding : 0;

	if (forced)
		return true;
	return consumed > limit && (peer_free <= ring / 2 || peer_blocked);
}
