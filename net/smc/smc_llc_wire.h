/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: link layer control (LLC) messages of
 * SMC-R, sent as 44-byte IB SENDs between the links of a link group.
 *
 * Two encodings share the types: v1 (byte 0 is the type, byte 1 the
 * length 44) and v2 (byte 0 is 0x20 | type, bytes 1-2 the length in
 * the sender's byte order, up to 8192 for the two large messages).
 * A message is converted to and from a host view, struct smc_llc_msg;
 * receivers act on the type whatever the encoding.  The layouts of the
 * messages are the structs ..._wire below (see smc_wire.h).
 */
#ifndef _SMC_LLC_WIRE_H
#define _SMC_LLC_WIRE_H

#include "smc_wire.h"

#define SMC_LLC_MSG_LEN		44
#define SMC_LLC_MAX_LEN		8192	/* v2 ADD LINK, REQUEST ADD LINK */
#define SMC_LLC_V2		0x20	/* high nibble of byte 0 in v2 */

enum smc_llc_type {
	SMC_LLC_CONFIRM_LINK		= 0x01,
	SMC_LLC_ADD_LINK		= 0x02,
	SMC_LLC_ADD_LINK_CONT		= 0x03,	/* v1 only */
	SMC_LLC_DELETE_LINK		= 0x04,
	SMC_LLC_REQ_ADD_LINK		= 0x05,	/* v2 only */
	SMC_LLC_CONFIRM_RKEY		= 0x06,
	SMC_LLC_TEST_LINK		= 0x07,
	SMC_LLC_CONFIRM_RKEY_CONT	= 0x08,	/* v1 only, ignored */
	SMC_LLC_DELETE_RKEY		= 0x09,
};

/* Flags, byte 3; the meaning of 0x40 and 0x20 depends on the type */
#define SMC_LLC_FLAG_RESP		0x80
#define SMC_LLC_FLAG_ADD_LINK_REJ	0x40
#define SMC_LLC_FLAG_DEL_LINK_ALL	0x40
#define SMC_LLC_FLAG_DEL_LINK_ORDERLY	0x20
#define SMC_LLC_FLAG_RKEY_NEG		0x20
#define SMC_LLC_FLAG_RKEY_RETRY		0x10
#define SMC_LLC_FLAG_NO_RMBE_EYEC	0x03	/* CONFIRM LINK */

/* ADD LINK reject reason (v1 byte 2, low nibble) */
#define SMC_LLC_REJ_NO_ALT_PATH		1

/* DELETE LINK reasons */
#define SMC_LLC_DEL_LOST_PATH		0x00010000
#define SMC_LLC_DEL_OP_INIT_TERM	0x00020000
#define SMC_LLC_DEL_PROG_INIT_TERM	0x00030000
#define SMC_LLC_DEL_PROT_VIOL		0x00040000
#define SMC_LLC_DEL_NO_ASYM_NEEDED	0x00050000
#define SMC_LLC_DEL_NOLNK		0x00100000
#define SMC_LLC_DEL_NOLGR		0x00200000

#define SMC_LLC_GID_LEN			16
#define SMC_LLC_ADD_LINK_V2_HDR		72	/* base + extension, no rkeys */
#define SMC_LLC_DEL_RKEY_MAX		8	/* in a 44-byte message */
#define SMC_LLC_RKEY_OTHER_MAX		3	/* CONFIRM RKEY's count, at most */

/* Byte 0: the type, and in v2 SMC_LLC_V2 in the high nibble */
#define SMC_LLC_TYPE_MASK		0x0f
#define SMC_LLC_VERSION_MASK		0xf0
/* v1 byte 2: the ADD LINK reject reason */
#define SMC_LLC_REJ_RSN_MASK		0x0f
/* ADD LINK: the QP MTU nibble, and the flag of the v2 extension */
#define SMC_LLC_QP_MTU_MASK		0x0f
#define SMC_LLC_ADD_LINK_DIRECT		0x80

/*
 * ---- Wire layouts (see smc_wire.h), offsets as in wire-smcr.md 4 ----
 *
 * All messages are SMC_LLC_MSG_LEN bytes but the v2 ADD LINK with its
 * extension and the v2 REQUEST ADD LINK, whose entries follow the
 * structs below.
 */

struct smc_llc_hdr_wire {
	u8 type;		/* SMC_LLC_TYPE_MASK, SMC_LLC_VERSION_MASK */
	union {
		struct {
			u8 length;	/* SMC_LLC_MSG_LEN */
			u8 rej_rsn;	/* SMC_LLC_REJ_RSN_MASK */
		} __packed v1;
		struct {
			u16 length;	/* host order */
		} __packed v2;
	};
	u8 flags;		/* SMC_LLC_FLAG_* */
} __packed;
SMC_WIRE_AT(smc_llc_hdr_wire, type, 0);
SMC_WIRE_AT(smc_llc_hdr_wire, v1.length, 1);
SMC_WIRE_AT(smc_llc_hdr_wire, v1.rej_rsn, 2);
SMC_WIRE_AT(smc_llc_hdr_wire, v2.length, 1);
SMC_WIRE_AT(smc_llc_hdr_wire, flags, 3);
SMC_WIRE_SIZE(smc_llc_hdr_wire, 4);

struct smc_llc_confirm_link_wire {
	struct smc_llc_hdr_wire hdr;
	u8 mac[6];
	u8 gid[SMC_LLC_GID_LEN];
	u8 qpn[3];
	u8 link_id;
	u8 link_uid[4];
	u8 max_links;
	u8 max_conns;
	u8 reserved[8];
} __packed;
SMC_WIRE_AT(smc_llc_confirm_link_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_confirm_link_wire, mac, 4);
SMC_WIRE_AT(smc_llc_confirm_link_wire, gid, 10);
SMC_WIRE_AT(smc_llc_confirm_link_wire, qpn, 26);
SMC_WIRE_AT(smc_llc_confirm_link_wire, link_id, 29);
SMC_WIRE_AT(smc_llc_confirm_link_wire, link_uid, 30);
SMC_WIRE_AT(smc_llc_confirm_link_wire, max_links, 34);
SMC_WIRE_AT(smc_llc_confirm_link_wire, max_conns, 35);
SMC_WIRE_AT(smc_llc_confirm_link_wire, reserved, 36);
SMC_WIRE_SIZE(smc_llc_confirm_link_wire, 44);

/* An RMB's rkey triple: ADD LINK CONTINUATION, v2 ADD LINK extension */
struct smc_llc_rkey_wire {
	__be32 rkey;		/* on the link that carries the message */
	__be32 rkey_new;	/* on the new link */
	__be64 addr_new;
} __packed;
SMC_WIRE_AT(smc_llc_rkey_wire, rkey, 0);
SMC_WIRE_AT(smc_llc_rkey_wire, rkey_new, 4);
SMC_WIRE_AT(smc_llc_rkey_wire, addr_new, 8);
SMC_WIRE_SIZE(smc_llc_rkey_wire, 16);

struct smc_llc_add_link_wire {
	struct smc_llc_hdr_wire hdr;
	u8 mac[6];
	u8 reserved[2];
	u8 gid[SMC_LLC_GID_LEN];
	u8 qpn[3];
	u8 link_id;
	u8 mtu;			/* SMC_LLC_QP_MTU_MASK */
	u8 psn[3];
	u8 reserved2[8];
} __packed;
SMC_WIRE_AT(smc_llc_add_link_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_add_link_wire, mac, 4);
SMC_WIRE_AT(smc_llc_add_link_wire, reserved, 10);
SMC_WIRE_AT(smc_llc_add_link_wire, gid, 12);
SMC_WIRE_AT(smc_llc_add_link_wire, qpn, 28);
SMC_WIRE_AT(smc_llc_add_link_wire, link_id, 31);
SMC_WIRE_AT(smc_llc_add_link_wire, mtu, 32);
SMC_WIRE_AT(smc_llc_add_link_wire, psn, 33);
SMC_WIRE_AT(smc_llc_add_link_wire, reserved2, 36);
SMC_WIRE_SIZE(smc_llc_add_link_wire, 44);

/* v2 ADD LINK with its extension: rkey_cnt triples follow */
struct smc_llc_add_link_v2_wire {
	struct smc_llc_add_link_wire base;
	u8 flags;		/* SMC_LLC_ADD_LINK_DIRECT */
	u8 reserved;
	u8 target_gid[SMC_LLC_GID_LEN];
	u8 reserved2[8];
	u16 rkey_cnt;		/* host order; the low 8 bits count */
	struct smc_llc_rkey_wire rkeys[];
} __packed;
SMC_WIRE_AT(smc_llc_add_link_v2_wire, base, 0);
SMC_WIRE_AT(smc_llc_add_link_v2_wire, flags, 44);
SMC_WIRE_AT(smc_llc_add_link_v2_wire, reserved, 45);
SMC_WIRE_AT(smc_llc_add_link_v2_wire, target_gid, 46);
SMC_WIRE_AT(smc_llc_add_link_v2_wire, reserved2, 62);
SMC_WIRE_AT(smc_llc_add_link_v2_wire, rkey_cnt, 70);
SMC_WIRE_AT(smc_llc_add_link_v2_wire, rkeys, 72);
SMC_WIRE_SIZE(smc_llc_add_link_v2_wire, 72);
SMC_WIRE_SIZE(smc_llc_add_link_v2_wire, SMC_LLC_ADD_LINK_V2_HDR);

struct smc_llc_add_link_cont_wire {
	struct smc_llc_hdr_wire hdr;
	u8 link_id;
	u8 num_rkeys;		/* still to come, these included */
	u8 reserved[2];
	struct smc_llc_rkey_wire rk[2];
	u8 reserved2[4];
} __packed;
SMC_WIRE_AT(smc_llc_add_link_cont_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_add_link_cont_wire, link_id, 4);
SMC_WIRE_AT(smc_llc_add_link_cont_wire, num_rkeys, 5);
SMC_WIRE_AT(smc_llc_add_link_cont_wire, reserved, 6);
SMC_WIRE_AT(smc_llc_add_link_cont_wire, rk[0], 8);
SMC_WIRE_AT(smc_llc_add_link_cont_wire, rk[1], 24);
SMC_WIRE_AT(smc_llc_add_link_cont_wire, reserved2, 40);
SMC_WIRE_SIZE(smc_llc_add_link_cont_wire, 44);

struct smc_llc_delete_link_wire {
	struct smc_llc_hdr_wire hdr;
	u8 link_id;
	__be32 reason;		/* SMC_LLC_DEL_* */
	u8 reserved[35];
} __packed;
SMC_WIRE_AT(smc_llc_delete_link_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_delete_link_wire, link_id, 4);
SMC_WIRE_AT(smc_llc_delete_link_wire, reason, 5);
SMC_WIRE_AT(smc_llc_delete_link_wire, reserved, 9);
SMC_WIRE_SIZE(smc_llc_delete_link_wire, 44);

/* v2 only: gid_cnt GIDs follow, the message is at least 44 bytes */
struct smc_llc_req_add_link_wire {
	struct smc_llc_hdr_wire hdr;
	u8 reserved[20];
	u8 gid_cnt;
	u8 reserved2[3];
	u8 gid[][SMC_LLC_GID_LEN];
} __packed;
SMC_WIRE_AT(smc_llc_req_add_link_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_req_add_link_wire, reserved, 4);
SMC_WIRE_AT(smc_llc_req_add_link_wire, gid_cnt, 24);
SMC_WIRE_AT(smc_llc_req_add_link_wire, reserved2, 25);
SMC_WIRE_AT(smc_llc_req_add_link_wire, gid, 28);
SMC_WIRE_SIZE(smc_llc_req_add_link_wire, 28);

/* An RMB on one link: CONFIRM RKEY (+ CONTINUATION) entries */
struct smc_llc_rkey_link_wire {
	u8 link_id;
	__be32 rkey;
	__be64 addr;
} __packed;
SMC_WIRE_AT(smc_llc_rkey_link_wire, link_id, 0);
SMC_WIRE_AT(smc_llc_rkey_link_wire, rkey, 1);
SMC_WIRE_AT(smc_llc_rkey_link_wire, addr, 5);
SMC_WIRE_SIZE(smc_llc_rkey_link_wire, 13);

struct smc_llc_confirm_rkey_wire {
	struct smc_llc_hdr_wire hdr;
	u8 num_other;		/* entries after the first */
	__be32 rkey;		/* on the link that carries the message */
	__be64 addr;
	struct smc_llc_rkey_link_wire other[2];
	u8 reserved;
} __packed;
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, num_other, 4);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, rkey, 5);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, addr, 9);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, other[0].link_id, 17);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, other[0].rkey, 18);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, other[0].addr, 22);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, other[1].link_id, 30);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, other[1].rkey, 31);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, other[1].addr, 35);
SMC_WIRE_AT(smc_llc_confirm_rkey_wire, reserved, 43);
SMC_WIRE_SIZE(smc_llc_confirm_rkey_wire, 44);

/* v1 only, never sent; received and ignored past the header */
struct smc_llc_confirm_rkey_cont_wire {
	struct smc_llc_hdr_wire hdr;
	u8 num_entries;
	struct smc_llc_rkey_link_wire entry[3];
} __packed;
SMC_WIRE_AT(smc_llc_confirm_rkey_cont_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_confirm_rkey_cont_wire, num_entries, 4);
SMC_WIRE_AT(smc_llc_confirm_rkey_cont_wire, entry[0], 5);
SMC_WIRE_AT(smc_llc_confirm_rkey_cont_wire, entry[1], 18);
SMC_WIRE_AT(smc_llc_confirm_rkey_cont_wire, entry[2], 31);
SMC_WIRE_SIZE(smc_llc_confirm_rkey_cont_wire, 44);

struct smc_llc_delete_rkey_wire {
	struct smc_llc_hdr_wire hdr;
	u8 count;
	u8 err_mask;
	u8 reserved[2];
	__be32 rkey[SMC_LLC_DEL_RKEY_MAX];
	u8 reserved2[4];
} __packed;
SMC_WIRE_AT(smc_llc_delete_rkey_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_delete_rkey_wire, count, 4);
SMC_WIRE_AT(smc_llc_delete_rkey_wire, err_mask, 5);
SMC_WIRE_AT(smc_llc_delete_rkey_wire, reserved, 6);
SMC_WIRE_AT(smc_llc_delete_rkey_wire, rkey, 8);
SMC_WIRE_AT(smc_llc_delete_rkey_wire, reserved2, 40);
SMC_WIRE_SIZE(smc_llc_delete_rkey_wire, 44);

struct smc_llc_test_link_wire {
	struct smc_llc_hdr_wire hdr;
	u8 user_data[16];
	u8 reserved[24];
} __packed;
SMC_WIRE_AT(smc_llc_test_link_wire, hdr, 0);
SMC_WIRE_AT(smc_llc_test_link_wire, user_data, 4);
SMC_WIRE_AT(smc_llc_test_link_wire, reserved, 20);
SMC_WIRE_SIZE(smc_llc_test_link_wire, 44);

struct smc_llc_hdr {
	u8	type;		/* enum smc_llc_type */
	u8	version;	/* encoding: 1 or 2 */
	u16	length;
	u8	flags;
	u8	rej_rsn;	/* v1 ADD LINK reject reason */
};

/* An RMB as the peer addresses it on two links (ADD LINK) */
struct smc_llc_rkey {
	u32	rkey;		/* on the link that carries the message */
	u32	rkey_new;	/* on the new link */
	u64	addr_new;
};

struct smc_llc_rkey_link {
	u8	link_id;
	u32	rkey;
	u64	addr;
};

struct smc_llc_msg {
	struct smc_llc_hdr hdr;
	union {
		struct {
			u8	mac[6];
			u8	gid[SMC_LLC_GID_LEN];
			u32	qpn;
			u8	link_id;
			u8	link_uid[4];
			u8	max_links;
			u8	max_conns;
		} confirm_link;
		struct {
			u8	mac[6];
			u8	gid[SMC_LLC_GID_LEN];
			u32	qpn;
			u8	link_id;
			u8	mtu;
			u32	psn;
			/* v2: extension with the rkeys of the link group */
			bool	v2_ext;
			bool	direct;
			u8	target_gid[SMC_LLC_GID_LEN];
			u8	rkey_cnt;	/* triples present */
		} add_link;
		struct {
			u8	link_id;
			u8	num_rkeys;	/* still to come, these included */
			struct smc_llc_rkey rk[2];
		} add_link_cont;
		struct {
			u8	link_id;
			u32	reason;
		} delete_link;
		struct {
			u8	gid_cnt;
			u8	gid[2][SMC_LLC_GID_LEN];
		} req_add_link;
		struct {
			u8	num_other;	/* entries after the first */
			u32	rkey;
			u64	addr;
			struct smc_llc_rkey_link other[2];
		} confirm_rkey;
		struct {
			u8	count;
			u8	err_mask;
			u32	rkey[SMC_LLC_DEL_RKEY_MAX];
		} delete_rkey;
		struct {
			u8	user_data[16];
		} test_link;
	};
};

int smc_llc_parse_hdr(const u8 *buf, u32 len, struct smc_llc_hdr *h);
int smc_llc_parse(const u8 *buf, u32 len, struct smc_llc_msg *m);
int smc_llc_build(u8 *out, u32 outlen, const struct smc_llc_msg *m,
		  const struct smc_llc_rkey *rkeys);
int smc_llc_add_link_rkey(const u8 *buf, u32 len,
			  const struct smc_llc_msg *m, unsigned int i,
			  struct smc_llc_rkey *rk);
void smc_llc_cont_fill(struct smc_llc_msg *m, u8 link_id, bool resp,
		       const struct smc_llc_rkey *rk, unsigned int n,
		       unsigned int *sent);
unsigned int smc_llc_cont_count(const struct smc_llc_msg *m);
unsigned int smc_llc_cont_left(const struct smc_llc_msg *m);

#endif /* _SMC_LLC_WIRE_H */
