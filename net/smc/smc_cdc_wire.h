/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: connection data control (CDC) messages
 * and ring-buffer cursor arithmetic.
 *
 * SMC-R sends a 44-byte CDC message (big-endian fields); SMC-D writes a
 * 32-byte CDC header at the start of the peer's DMB (cursors in host
 * order).  Both are converted to and from host views here; their layouts
 * are the structs ..._wire below (see smc_wire.h).
 */
#ifndef _SMC_CDC_WIRE_H
#define _SMC_CDC_WIRE_H

#include "smc_wire.h"

#define SMC_CDC_MSG_TYPE	0xFE
#define SMCR_CDC_MSG_LEN	44
#define SMCR_CDC_MSG_MIN_RCV	26	/* shorter completions are dropped */
#define SMCD_CDC_HDR_LEN	32
#define SMCD_CDC_PROD_OFF	8	/* producer half, one aligned u64 */
#define SMCD_CDC_CONS_OFF	16	/* consumer half, one aligned u64 */

/* Producer flags (SMC-R byte 24, SMC-D byte 22) */
#define SMC_CDC_PF_WRITE_BLOCKED	0x80
#define SMC_CDC_PF_URG_PENDING		0x40
#define SMC_CDC_PF_URG_PRESENT		0x20
#define SMC_CDC_PF_CONS_UPD_REQ		0x10
#define SMC_CDC_PF_FAILOVER		0x08

/* Connection-state flags (SMC-R byte 25, SMC-D byte 23) */
#define SMC_CDC_CS_DONE_WRITING		0x80
#define SMC_CDC_CS_CLOSED		0x40
#define SMC_CDC_CS_ABORT		0x20

/* Minimal consumer-update threshold: half of the minimal send buffer */
#define SMC_CDC_UPD_LIMIT_MIN		2304

/* ---- Wire layouts (see smc_wire.h), offsets as in wire-cdc.md 3.1 ---- */

/* SMC-R CDC message, one IB SEND */
struct smcr_cdc_wire {
	u8 type;		/* SMC_CDC_MSG_TYPE */
	u8 len;			/* SMCR_CDC_MSG_LEN */
	__be16 seqno;
	__be32 token;		/* the receiver's alert token */
	u8 reserved[2];
	__be16 prod_wrap;
	__be32 prod_count;
	u8 reserved2[2];
	__be16 cons_wrap;
	__be32 cons_count;
	u8 prod_flags;		/* SMC_CDC_PF_* */
	u8 conn_state_flags;	/* SMC_CDC_CS_* */
	u8 reserved3[18];
} __packed;
SMC_WIRE_AT(smcr_cdc_wire, type, 0);
SMC_WIRE_AT(smcr_cdc_wire, len, 1);
SMC_WIRE_AT(smcr_cdc_wire, seqno, 2);
SMC_WIRE_AT(smcr_cdc_wire, token, 4);
SMC_WIRE_AT(smcr_cdc_wire, reserved, 8);
SMC_WIRE_AT(smcr_cdc_wire, prod_wrap, 10);
SMC_WIRE_AT(smcr_cdc_wire, prod_count, 12);
SMC_WIRE_AT(smcr_cdc_wire, reserved2, 16);
SMC_WIRE_AT(smcr_cdc_wire, cons_wrap, 18);
SMC_WIRE_AT(smcr_cdc_wire, cons_count, 20);
SMC_WIRE_AT(smcr_cdc_wire, prod_flags, 24);
SMC_WIRE_AT(smcr_cdc_wire, conn_state_flags, 25);
SMC_WIRE_AT(smcr_cdc_wire, reserved3, 26);
SMC_WIRE_SIZE(smcr_cdc_wire, 44);
SMC_WIRE_SIZE(smcr_cdc_wire, SMCR_CDC_MSG_LEN);
/* a receiver needs the message up to the flags */
SMC_WIRE_AT(smcr_cdc_wire, reserved3, SMCR_CDC_MSG_MIN_RCV);

/*
 * SMC-D CDC header at the start of the peer's DMB (wire-smcd.md 3): two
 * halves of 8 bytes, each read and written as one native u64.  Flags are
 * carried in the consumer half only; the producer half has zero there.
 */
struct smcd_cdc_half_wire {
	u16 wrap;		/* host order */
	u32 count;		/* host order */
	u8 prod_flags;		/* SMC_CDC_PF_* */
	u8 conn_state_flags;	/* SMC_CDC_CS_* */
} __packed;
SMC_WIRE_AT(smcd_cdc_half_wire, wrap, 0);
SMC_WIRE_AT(smcd_cdc_half_wire, count, 2);
SMC_WIRE_AT(smcd_cdc_half_wire, prod_flags, 6);
SMC_WIRE_AT(smcd_cdc_half_wire, conn_state_flags, 7);
SMC_WIRE_SIZE(smcd_cdc_half_wire, 8);
SMC_WIRE_SIZE(smcd_cdc_half_wire, sizeof(u64));

struct smcd_cdc_wire {
	u8 type;		/* SMC_CDC_MSG_TYPE */
	u8 reserved[7];
	struct smcd_cdc_half_wire prod;
	struct smcd_cdc_half_wire cons;
	u8 reserved2[8];
} __packed;
SMC_WIRE_AT(smcd_cdc_wire, type, 0);
SMC_WIRE_AT(smcd_cdc_wire, reserved, 1);
SMC_WIRE_AT(smcd_cdc_wire, prod, 8);
SMC_WIRE_AT(smcd_cdc_wire, prod.wrap, 8);
SMC_WIRE_AT(smcd_cdc_wire, prod.count, 10);
SMC_WIRE_AT(smcd_cdc_wire, prod.prod_flags, 14);
SMC_WIRE_AT(smcd_cdc_wire, prod.conn_state_flags, 15);
SMC_WIRE_AT(smcd_cdc_wire, cons, 16);
SMC_WIRE_AT(smcd_cdc_wire, cons.wrap, 16);
SMC_WIRE_AT(smcd_cdc_wire, cons.count, 18);
SMC_WIRE_AT(smcd_cdc_wire, cons.prod_flags, 22);
SMC_WIRE_AT(smcd_cdc_wire, cons.conn_state_flags, 23);
SMC_WIRE_AT(smcd_cdc_wire, reserved2, 24);
SMC_WIRE_SIZE(smcd_cdc_wire, 32);
SMC_WIRE_SIZE(smcd_cdc_wire, SMCD_CDC_HDR_LEN);
SMC_WIRE_AT(smcd_cdc_wire, prod, SMCD_CDC_PROD_OFF);
SMC_WIRE_AT(smcd_cdc_wire, cons, SMCD_CDC_CONS_OFF);

#define SMCD_CDC_HALF_OFF(f)	offsetof(struct smcd_cdc_half_wire, f)

/* Position in a ring: count is 0..size-1, wrap counts passes of the end */
struct smc_cursor {
	u16 wrap;
	u32 count;
};

/* Advance @c by @n bytes (n <= size) in a ring of @size bytes. */
static inline void smc_curs_add(u32 size, struct smc_cursor *c, u32 n)
{
	u64 pos = (u64)c->count + n;

	if (size && pos >= size) {
		pos -= size;
		c->wrap++;
	}
	c->count = pos;
}

/*
 * Bytes from @old to @new, where @new is known not to be behind @old;
 * clamped at 0 for inconsistent input.
 */
static inline u32 smc_curs_diff(u32 size, const struct smc_cursor *old,
				const struct smc_cursor *new)
{
	s64 d;

	if (old->wrap != new->wrap)
		d = (s64)size - old->count + new->count;
	else
		d = (s64)new->count - old->count;
	return d > 0 ? (u32)d : 0;
}

static inline bool smc_curs_equal(const struct smc_cursor *a,
				  const struct smc_cursor *b)
{
	return a->wrap == b->wrap && a->count == b->count;
}

/* Step @c back by one byte in a ring of @size bytes (size > 0). */
static inline void smc_curs_prev(u32 size, struct smc_cursor *c)
{
	if (c->count) {
		c->count--;
		return;
	}
	c->count = size - 1;
	c->wrap--;
}

/*
 * Signed distance from @old to @new: negative when @new lies behind @old
 * (comparing wrap first, then count).
 */
static inline s64 smc_curs_comp(u32 size, const struct smc_cursor *old,
				const struct smc_cursor *new)
{
	if (old->wrap > new->wrap ||
	    (old->wrap == new->wrap && old->count > new->count))
		return -(s64)smc_curs_diff(size, new, old);
	return smc_curs_diff(size, old, new);
}

/*
 * Receive: true if cursor @new is behind the stored @old and must be
 * ignored (an earlier wrap, or the same wrap and a smaller count).  A
 * cursor moves at most one ring ahead, so the 16-bit wrap counters
 * compare by their signed distance, which its own wrap-around keeps
 * (upstream's test of a smaller non-zero wrap takes a cursor that went
 * back from wrap 1 to wrap 0).
 */
static inline bool smc_curs_stale(const struct smc_cursor *old,
				  const struct smc_cursor *new)
{
	s16 d = (s16)(new->wrap - old->wrap);

	return d < 0 || (!d && old->count > new->count);
}

/* Bytes readable: from our consumer cursor to the peer's producer cursor. */
static inline u32 smc_curs_readable(u32 size, const struct smc_cursor *cons,
				    const struct smc_cursor *prod)
{
	return smc_curs_diff(size, cons, prod);
}

/*
 * Free space in the peer ring: ring size minus the bytes from the peer's
 * last known consumer cursor to our producer cursor.
 */
static inline u32 smc_curs_free(u32 size, const struct smc_cursor *peer_cons,
				const struct smc_cursor *prod)
{
	u32 used = smc_curs_diff(size, peer_cons, prod);

	return used < size ? size - used : 0;
}

/* True if CDC sequence number @seq is older than the last accepted @last. */
static inline bool smc_cdc_seq_older(u16 last, u16 seq)
{
	return (s16)(seq - last) < 0;
}

/* SMC-R CDC message, host view */
struct smcr_cdc_msg {
	u8 type;
	u8 len;
	u16 seqno;
	u32 token;
	struct smc_cursor prod;
	struct smc_cursor cons;
	u8 prod_flags;
	u8 conn_state_flags;
};

/*
 * Encode an SMC-R CDC message (type 0xFE, length 44).  Returns 44 or
 * -ENOSPC.
 */
int smcr_cdc_build(u8 *buf, size_t buflen, const struct smcr_cdc_msg *m);

/*
 * Parse a received SMC-R CDC message: at least 26 bytes, type 0xFE and
 * length byte 44.  Returns 0 or -EPROTO.
 */
int smcr_cdc_parse(const u8 *buf, size_t len, struct smcr_cdc_msg *m);

/* SMC-D CDC header, host view */
struct smcd_cdc_hdr {
	u8 type;
	struct smc_cursor prod;
	struct smc_cursor cons;
	u8 prod_flags;
	u8 conn_state_flags;
};

/*
 * The two 8-byte halves of the SMC-D header as native u64 values, for one
 * READ_ONCE()/WRITE_ONCE() each at DMB offsets 8 and 16.  The producer
 * half carries no flags; the consumer half carries both flag bytes.
 */
static inline u64 smcd_cdc_pack_half(const struct smc_cursor *c, u8 pflags,
				     u8 cflags)
{
	u8 b[sizeof(struct smcd_cdc_half_wire)];
	u64 v;

	smc_put_host16(b + SMCD_CDC_HALF_OFF(wrap), c->wrap);
	smc_put_host32(b + SMCD_CDC_HALF_OFF(count), c->count);
	b[SMCD_CDC_HALF_OFF(prod_flags)] = pflags;
	b[SMCD_CDC_HALF_OFF(conn_state_flags)] = cflags;
	memcpy(&v, b, sizeof(v));
	return v;
}

static inline void smcd_cdc_unpack_half(u64 v, struct smc_cursor *c,
					u8 *pflags, u8 *cflags)
{
	u8 b[sizeof(struct smcd_cdc_half_wire)];

	memcpy(b, &v, sizeof(v));
	c->wrap = smc_get_host16(b + SMCD_CDC_HALF_OFF(wrap));
	c->count = smc_get_host32(b + SMCD_CDC_HALF_OFF(count));
	if (pflags)
		*pflags = b[SMCD_CDC_HALF_OFF(prod_flags)];
	if (cflags)
		*cflags = b[SMCD_CDC_HALF_OFF(conn_state_flags)];
}

static inline u64 smcd_cdc_pack_prod(const struct smcd_cdc_hdr *h)
{
	return smcd_cdc_pack_half(&h->prod, 0, 0);
}

static inline u64 smcd_cdc_pack_cons(const struct smcd_cdc_hdr *h)
{
	return smcd_cdc_pack_half(&h->cons, h->prod_flags,
				  h->conn_state_flags);
}

static inline void smcd_cdc_unpack_prod(u64 v, struct smcd_cdc_hdr *h)
{
	smcd_cdc_unpack_half(v, &h->prod, NULL, NULL);
}

static inline void smcd_cdc_unpack_cons(u64 v, struct smcd_cdc_hdr *h)
{
	smcd_cdc_unpack_half(v, &h->cons, &h->prod_flags,
			     &h->conn_state_flags);
}

/*
 * Encode the 32-byte SMC-D CDC header (type 0xFE, reserved bytes zero).
 * Returns 32 or -ENOSPC.
 */
int smcd_cdc_build(u8 *buf, size_t buflen, const struct smcd_cdc_hdr *h);

/*
 * Parse an SMC-D CDC header.  Like Linux, the type byte is reported but
 * not checked and flags are taken from bytes 22/23 only.  Returns 0, or
 * -EPROTO if fewer than 32 bytes are given.
 */
int smcd_cdc_parse(const u8 *buf, size_t len, struct smcd_cdc_hdr *h);

/*
 * Receiver's consumer-update rule: should a CDC carrying the consumer
 * cursor be sent now?  @ring: ring size; @consumed: bytes consumed since
 * the consumer cursor last went to the peer; @outstanding: bytes the peer
 * still considers unconsumed; @peer_blocked: the peer's last CDC had
 * write-blocked; @forced: the peer requested an update or urgent data
 * handling forces one; @paged: the peer gives back the pages of our ring
 * that it knows are read (our paged loopback DMB).  Then, past the least
 * limit, an update also goes out when the reader caught up with all the
 * peer sent (@consumed equals @outstanding).  Elsewhere it would cost a
 * message per burst (an RDMA send on SMC-R) and free nothing.
 */
bool smc_cdc_cons_update_needed(u32 ring, u32 consumed, u32 outstanding,
				bool peer_blocked, bool forced, bool paged);

#endif /* _SMC_CDC_WIRE_H */
