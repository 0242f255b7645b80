/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: link layer control (LLC) messages of
 * SMC-R, sent as 44-byte IB SENDs between the links of a link group.
 *
 * Two encodings share the types: v1 (byte 0 is the type, byte 1 the
 * length 44) and v2 (byte 0 is 0x20 | type, bytes 1-2 the length in
 * the sender's byte order, up to 8192 for the two large messages).
 * A message is converted to and from a host view, struct smc_llc_msg;
 * receivers act on the type whatever the encoding.
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
