/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: CLC handshake messages on the wire.
 *
 * Encoders and parsers for the Proposal, Accept, Confirm and Decline
 * messages exchanged over the TCP connection before SMC takes over.
 * Parsed messages are returned as host-order views; builders take the
 * same views.  All functions are pure and bounds-checked.  The layout of
 * each message is the struct ..._wire below (see smc_wire.h).
 */
#ifndef _SMC_CLC_WIRE_H
#define _SMC_CLC_WIRE_H

#include "smc_wire.h"

/* Message types (header byte 4) */
#define SMC_CLC_PROPOSAL	1
#define SMC_CLC_ACCEPT		2
#define SMC_CLC_CONFIRM		3
#define SMC_CLC_DECLINE		4

/* 2-bit path values of header byte 7 */
#define SMC_TYPE_R		0	/* SMC-R */
#define SMC_TYPE_D		1	/* SMC-D */
#define SMC_TYPE_N		2	/* none */
#define SMC_TYPE_B		3	/* both */

#define SMC_V1			1
#define SMC_V2			2

/* Eyecatchers, EBCDIC "SMCR" and "SMCD", as big-endian 32-bit values */
#define SMC_CLC_EYECATCHER_R	0xE2D4C3D9
#define SMC_CLC_EYECATCHER_D	0xE2D4C3C4

/* Header byte 7 */
#define SMC_CLC_VERSION_SHIFT	4
#define SMC_CLC_TYPEV2_SHIFT	2
#define SMC_CLC_TYPE_MASK	0x03
#define SMC_CLC_FIRST_CONTACT	0x08	/* Accept/Confirm */
#define SMC_CLC_OUT_OF_SYNC	0x08	/* Decline */

#define SMC_CLC_HDR_LEN		8
#define SMC_CLC_TRL_LEN		4

/* Limits */
#define SMC_CLC_MAX_EID		8	/* user EIDs in a Proposal */
#define SMC_CLC_MAX_GID_ENTRIES	8	/* SMC-Dv2 GID/CHID entries */
#define SMC_CLC_MAX_V6_PREFIX	8
#define SMC_CLC_EID_LEN		32
#define SMC_CLC_HOSTNAME_LEN	32
#define SMC_CLC_PEER_ID_LEN	8
#define SMC_CLC_GID_LEN		16	/* RoCE GID */
#define SMC_CLC_MAC_LEN		6
#define SMC_CLC_MAX_FC_GIDS	2	/* Confirm first-contact GID list */

/* Message lengths */
#define SMC_CLC_PROPOSAL_MAX_LEN	652
#define SMCR_CLC_ACCEPT_CONFIRM_LEN	68
#define SMCD_CLC_ACCEPT_CONFIRM_LEN	48
#define SMCR_CLC_ACCEPT_CONFIRM_LEN_V2	108
#define SMCD_CLC_ACCEPT_CONFIRM_LEN_V2	78
#define SMCR_CLC_FCE_LEN		52
#define SMCD_CLC_FCE_LEN_REL0		36
#define SMCD_CLC_FCE_LEN		52
#define SMC_CLC_ACCEPT_CONFIRM_MAX_LEN	196	/* SMC-R Confirm, 2 GIDs */
#define SMC_CLC_ACCEPT_RCV_LEN		160	/* client's Accept buffer */
#define SMC_CLC_DECLINE_LEN		28
#define SMC_CLC_DECLINE_LEN_V2		44
#define SMC_CLC_RCV_MAX_LEN		652	/* server's receive buffer */

/* Releases (v2 extension / first-contact extension) */
#define SMC_CLC_RELEASE_0	0	/* SMC v2.0 */
#define SMC_CLC_RELEASE_1	1	/* SMC v2.1 */
#define SMC_CLC_RELEASE_MAX	SMC_CLC_RELEASE_1

/* OS types (first-contact extension and Decline) */
#define SMC_CLC_OS_ZOS		1
#define SMC_CLC_OS_LINUX	2
#define SMC_CLC_OS_AIX		3
#define SMC_CLC_OS_UNKNOWN	15

/* v2.1 link-group limits */
#define SMC_CLC_CONNS_PER_LGR_MIN	16
#define SMC_CLC_CONNS_PER_LGR_MAX	255
#define SMC_CLC_LINKS_PER_LGR_MIN	1
#define SMC_CLC_LINKS_PER_LGR_MAX	2

/* Supplemental feature mask */
#define SMC_CLC_FEAT_EMULATED_ISM	0x0001
#define SMC_CLC_FEAT_MASK		SMC_CLC_FEAT_EMULATED_ISM

/* ISM channel IDs: 0xFF00..0xFFFF are emulated devices with 128-bit GIDs */
#define SMC_ISM_EMULATED_CHID_MIN	0xFF00
#define SMC_ISM_LOOPBACK_CHID		0xFFFF

/* Decline reason codes (peer diagnosis) */
#define SMC_CLC_DECL_MEM	0x01010000	/* insufficient memory */
#define SMC_CLC_DECL_TIMEOUT_CL	0x02010000	/* CONFIRM LINK timeout */
#define SMC_CLC_DECL_TIMEOUT_AL	0x02020000	/* ADD LINK timeout */
#define SMC_CLC_DECL_CNFERR	0x03000000	/* configuration error */
#define SMC_CLC_DECL_PEERNOSMC	0x03010000	/* peer did not indicate SMC */
#define SMC_CLC_DECL_IPSEC	0x03020000	/* IPsec usage */
#define SMC_CLC_DECL_NOSMCDEV	0x03030000	/* no SMC device */
#define SMC_CLC_DECL_NOSMCDDEV	0x03030001	/* no SMC-D device */
#define SMC_CLC_DECL_NOSMCRDEV	0x03030002	/* no SMC-R device */
#define SMC_CLC_DECL_NOISM2SUPP	0x03030003	/* no ISMv2 support */
#define SMC_CLC_DECL_NOV2EXT	0x03030004	/* no v2 extension */
#define SMC_CLC_DECL_NOV2DEXT	0x03030005	/* no SMC-Dv2 extension */
#define SMC_CLC_DECL_NOSEID	0x03030006	/* no SEID */
#define SMC_CLC_DECL_NOSMCD2DEV	0x03030007	/* no SMC-Dv2 device */
#define SMC_CLC_DECL_NOUEID	0x03030008	/* no UEID */
#define SMC_CLC_DECL_RELEASEERR	0x03030009	/* release mismatch */
#define SMC_CLC_DECL_MAXCONNERR	0x0303000a	/* max connections */
#define SMC_CLC_DECL_MAXLINKERR	0x0303000b	/* max links */
#define SMC_CLC_DECL_MODEUNSUPP	0x03040000	/* mode not offered */
#define SMC_CLC_DECL_RMBE_EC	0x03050000	/* RMBE eyecatcher flag */
#define SMC_CLC_DECL_OPTUNSUPP	0x03060000	/* Fast Open socket option */
#define SMC_CLC_DECL_DIFFPREFIX	0x03070000	/* IP prefix mismatch */
#define SMC_CLC_DECL_GETVLANERR	0x03080000	/* VLAN lookup failed */
#define SMC_CLC_DECL_ISMVLANERR	0x03090000	/* ISM VLAN registration */
#define SMC_CLC_DECL_NOACTLINK	0x030a0000	/* no active link */
#define SMC_CLC_DECL_NOSRVLINK	0x030b0000	/* server's link not found */
#define SMC_CLC_DECL_VERSMISMAT	0x030c0000	/* version mismatch */
#define SMC_CLC_DECL_MAX_DMB	0x030d0000	/* no more DMBs */
#define SMC_CLC_DECL_NOROUTE	0x030e0000	/* SMC-Rv2: no route */
#define SMC_CLC_DECL_NOINDIRECT	0x030f0000	/* SMC-Rv2: route is direct */
#define SMC_CLC_DECL_SYNCERR	0x04000000	/* link group out of sync */
#define SMC_CLC_DECL_PEERDECL	0x05000000	/* peer declined (local) */
#define SMC_CLC_DECL_INTERR	0x09990000	/* internal error */
#define SMC_CLC_DECL_ERR_RTOK	0x09990001	/* rkey handling */
#define SMC_CLC_DECL_ERR_RDYLNK	0x09990002	/* QP not ready */
#define SMC_CLC_DECL_ERR_REGBUF	0x09990003	/* buffer registration */

/* Compressed buffer sizes: size = 16384 << c */
#define SMC_BUF_MIN_SIZE	16384U
#define SMCR_BUF_MAX_COMP	15	/* 512 MiB */
#define SMCD_BUF_MAX_COMP	6	/* 1 MiB */

static inline bool smc_path_has_r(u8 type)
{
	return type == SMC_TYPE_R || type == SMC_TYPE_B;
}

static inline bool smc_path_has_d(u8 type)
{
	return type == SMC_TYPE_D || type == SMC_TYPE_B;
}

/* Emulated ISM devices use CHIDs 0xFF00..0xFFFF and 128-bit GIDs. */
static inline bool smc_ism_chid_emulated(u16 chid)
{
	return chid >= SMC_ISM_EMULATED_CHID_MIN;
}

/* Buffer size for compressed value @comp (0..15). */
static inline u32 smc_buf_uncompress(u8 comp)
{
	return SMC_BUF_MIN_SIZE << (comp & 0x0f);
}

/*
 * Smallest compressed value whose size holds @size bytes (rounded up to
 * the next power of two), capped at @max_comp.
 */
static inline u8 smc_buf_compress(u32 size, u8 max_comp)
{
	u8 comp = 0;

	while (comp < max_comp && smc_buf_uncompress(comp) < size)
		comp++;
	return comp;
}

/*
 * ---- Wire layouts (see smc_wire.h), offsets as in wire-clc.md ----
 *
 * Every message starts with the 8-byte header and ends with the 4-byte
 * trailer, an eyecatcher again at length - 4; the structs below stop
 * before the trailer.
 */

struct smc_clc_hdr_wire {
	__be32 eyecatcher;
	u8 type;
	__be16 length;		/* of the whole message */
	u8 version_path;	/* version, typev2, typev1 (see above) */
} __packed;
SMC_WIRE_AT(smc_clc_hdr_wire, eyecatcher, 0);
SMC_WIRE_AT(smc_clc_hdr_wire, type, 4);
SMC_WIRE_AT(smc_clc_hdr_wire, length, 5);
SMC_WIRE_AT(smc_clc_hdr_wire, version_path, 7);
SMC_WIRE_SIZE(smc_clc_hdr_wire, 8);
SMC_WIRE_SIZE(smc_clc_hdr_wire, SMC_CLC_HDR_LEN);

struct smc_clc_trl_wire {
	__be32 eyecatcher;
} __packed;
SMC_WIRE_SIZE(smc_clc_trl_wire, 4);
SMC_WIRE_SIZE(smc_clc_trl_wire, SMC_CLC_TRL_LEN);

/*
 * Proposal: areas A and B at fixed positions, then, each where the one
 * before ends (or where an offset field points): C (IP prefix header) and
 * D (IPv6 prefixes) if typev1 is not none, E (v2 extension) and F (user
 * EIDs) if typev2 is not none, G (SMC-Dv2 extension and its GID/CHID
 * entries) if typev2 includes D.
 */
struct smc_clc_prop_smcd_wire {		/* area B */
	__be64 ism_gid;
	__be16 ism_chid;
	__be16 v2_ext_off;	/* from its own end to area E; 0: none */
	u8 vendor_oui[3];
	u8 vendor_exp[5];
	u8 reserved[20];
} __packed;

struct smc_clc_prop_wire {
	struct smc_clc_hdr_wire hdr;	/* area A */
	u8 peer_id[SMC_CLC_PEER_ID_LEN];
	u8 roce_gid[SMC_CLC_GID_LEN];
	u8 roce_mac[SMC_CLC_MAC_LEN];
	__be16 ip_area_off;	/* from the end of area A to area C */
	struct smc_clc_prop_smcd_wire smcd;	/* area B */
} __packed;
SMC_WIRE_AT(smc_clc_prop_wire, hdr, 0);
SMC_WIRE_AT(smc_clc_prop_wire, peer_id, 8);
SMC_WIRE_AT(smc_clc_prop_wire, roce_gid, 16);
SMC_WIRE_AT(smc_clc_prop_wire, roce_mac, 32);
SMC_WIRE_AT(smc_clc_prop_wire, ip_area_off, 38);
SMC_WIRE_AT(smc_clc_prop_wire, smcd, 40);
SMC_WIRE_AT(smc_clc_prop_wire, smcd.ism_gid, 40);
SMC_WIRE_AT(smc_clc_prop_wire, smcd.ism_chid, 48);
SMC_WIRE_AT(smc_clc_prop_wire, smcd.v2_ext_off, 50);
SMC_WIRE_AT(smc_clc_prop_wire, smcd.vendor_oui, 52);
SMC_WIRE_AT(smc_clc_prop_wire, smcd.vendor_exp, 55);
SMC_WIRE_AT(smc_clc_prop_wire, smcd.reserved, 60);
SMC_WIRE_SIZE(smc_clc_prop_smcd_wire, 40);
SMC_WIRE_SIZE(smc_clc_prop_wire, 80);

struct smc_clc_prop_pfx_wire {		/* area C */
	__be32 v4_subnet;
	u8 v4_prefix_len;
	u8 reserved[2];
	u8 v6_cnt;		/* area-D entries */
} __packed;
SMC_WIRE_AT(smc_clc_prop_pfx_wire, v4_subnet, 0);
SMC_WIRE_AT(smc_clc_prop_pfx_wire, v4_prefix_len, 4);
SMC_WIRE_AT(smc_clc_prop_pfx_wire, reserved, 5);
SMC_WIRE_AT(smc_clc_prop_pfx_wire, v6_cnt, 7);
SMC_WIRE_SIZE(smc_clc_prop_pfx_wire, 8);

struct smc_clc_prop_v6_wire {		/* area D entry */
	u8 prefix[16];
	u8 prefix_len;
} __packed;
SMC_WIRE_AT(smc_clc_prop_v6_wire, prefix, 0);
SMC_WIRE_AT(smc_clc_prop_v6_wire, prefix_len, 16);
SMC_WIRE_SIZE(smc_clc_prop_v6_wire, 17);

/* Area E flag byte */
#define SMC_CLC_V2_RELEASE_SHIFT	4
#define SMC_CLC_V2_SEID			0x01

struct smc_clc_prop_v2_wire {		/* area E; area F follows */
	u8 eid_cnt;		/* area-F entries */
	u8 gid_cnt;		/* area-G entries */
	u8 reserved;
	u8 flags;		/* SMC_CLC_V2_RELEASE_SHIFT, SMC_CLC_V2_SEID */
	u8 reserved2[2];
	__be16 smcd_v2_ext_off;	/* from its own end to area G; 0: none */
	u8 roce_v2_gid[SMC_CLC_GID_LEN];
	u8 max_conns;
	u8 max_links;
	__be16 feature_mask;
	u8 reserved3[12];
} __packed;
SMC_WIRE_AT(smc_clc_prop_v2_wire, eid_cnt, 0);
SMC_WIRE_AT(smc_clc_prop_v2_wire, gid_cnt, 1);
SMC_WIRE_AT(smc_clc_prop_v2_wire, reserved, 2);
SMC_WIRE_AT(smc_clc_prop_v2_wire, flags, 3);
SMC_WIRE_AT(smc_clc_prop_v2_wire, reserved2, 4);
SMC_WIRE_AT(smc_clc_prop_v2_wire, smcd_v2_ext_off, 6);
SMC_WIRE_AT(smc_clc_prop_v2_wire, roce_v2_gid, 8);
SMC_WIRE_AT(smc_clc_prop_v2_wire, max_conns, 24);
SMC_WIRE_AT(smc_clc_prop_v2_wire, max_links, 25);
SMC_WIRE_AT(smc_clc_prop_v2_wire, feature_mask, 26);
SMC_WIRE_AT(smc_clc_prop_v2_wire, reserved3, 28);
SMC_WIRE_SIZE(smc_clc_prop_v2_wire, 40);

struct smc_clc_prop_d2_wire {		/* area G; GID/CHID entries follow */
	u8 seid[SMC_CLC_EID_LEN];
	u8 reserved[16];
} __packed;
SMC_WIRE_AT(smc_clc_prop_d2_wire, seid, 0);
SMC_WIRE_AT(smc_clc_prop_d2_wire, reserved, 32);
SMC_WIRE_SIZE(smc_clc_prop_d2_wire, 48);

struct smc_clc_prop_gidchid_wire {	/* area G entry */
	__be64 gid;
	__be16 chid;
} __packed;
SMC_WIRE_AT(smc_clc_prop_gidchid_wire, gid, 0);
SMC_WIRE_AT(smc_clc_prop_gidchid_wire, chid, 8);
SMC_WIRE_SIZE(smc_clc_prop_gidchid_wire, 10);

static_assert(SMC_CLC_PROPOSAL_MAX_LEN ==
	      sizeof(struct smc_clc_prop_wire) +
	      sizeof(struct smc_clc_prop_pfx_wire) +
	      SMC_CLC_MAX_V6_PREFIX * sizeof(struct smc_clc_prop_v6_wire) +
	      sizeof(struct smc_clc_prop_v2_wire) +
	      SMC_CLC_MAX_EID * SMC_CLC_EID_LEN +
	      sizeof(struct smc_clc_prop_d2_wire) +
	      SMC_CLC_MAX_GID_ENTRIES *
	      sizeof(struct smc_clc_prop_gidchid_wire) + SMC_CLC_TRL_LEN,
	      "largest Proposal");

/* Accept/Confirm: RMB or DMB size in the high nibble, QP MTU in the low */
#define SMC_CLC_BUF_SIZE_SHIFT		4
#define SMC_CLC_QP_MTU_MASK		0x0f

/* SMC-R Accept/Confirm, v1: the trailer follows */
struct smc_clc_accept_r_wire {
	struct smc_clc_hdr_wire hdr;
	u8 peer_id[SMC_CLC_PEER_ID_LEN];
	u8 gid[SMC_CLC_GID_LEN];
	u8 mac[SMC_CLC_MAC_LEN];
	u8 qpn[3];
	__be32 rkey;
	u8 rmbe_idx;
	__be32 alert_token;
	u8 rmbe_size_mtu;	/* RMB size and QP MTU nibbles */
	u8 reserved;
	__be64 rmb_dma_addr;
	u8 reserved2;
	u8 psn[3];
} __packed;
SMC_WIRE_AT(smc_clc_accept_r_wire, hdr, 0);
SMC_WIRE_AT(smc_clc_accept_r_wire, peer_id, 8);
SMC_WIRE_AT(smc_clc_accept_r_wire, gid, 16);
SMC_WIRE_AT(smc_clc_accept_r_wire, mac, 32);
SMC_WIRE_AT(smc_clc_accept_r_wire, qpn, 38);
SMC_WIRE_AT(smc_clc_accept_r_wire, rkey, 41);
SMC_WIRE_AT(smc_clc_accept_r_wire, rmbe_idx, 45);
SMC_WIRE_AT(smc_clc_accept_r_wire, alert_token, 46);
SMC_WIRE_AT(smc_clc_accept_r_wire, rmbe_size_mtu, 50);
SMC_WIRE_AT(smc_clc_accept_r_wire, reserved, 51);
SMC_WIRE_AT(smc_clc_accept_r_wire, rmb_dma_addr, 52);
SMC_WIRE_AT(smc_clc_accept_r_wire, reserved2, 60);
SMC_WIRE_AT(smc_clc_accept_r_wire, psn, 61);
SMC_WIRE_SIZE(smc_clc_accept_r_wire, 64);
SMC_WIRE_SIZE(smc_clc_accept_r_wire,
	      SMCR_CLC_ACCEPT_CONFIRM_LEN - SMC_CLC_TRL_LEN);

/*
 * SMC-R Accept/Confirm, v2: the first-contact extension follows if the
 * first-contact bit is set (in a Confirm then the GID list), else the
 * trailer.
 */
struct smc_clc_accept_r_v2_wire {
	struct smc_clc_accept_r_wire v1;
	u8 eid[SMC_CLC_EID_LEN];
	u8 reserved[8];
} __packed;
SMC_WIRE_AT(smc_clc_accept_r_v2_wire, v1, 0);
SMC_WIRE_AT(smc_clc_accept_r_v2_wire, eid, 64);
SMC_WIRE_AT(smc_clc_accept_r_v2_wire, reserved, 96);
SMC_WIRE_SIZE(smc_clc_accept_r_v2_wire, 104);
SMC_WIRE_SIZE(smc_clc_accept_r_v2_wire,
	      SMCR_CLC_ACCEPT_CONFIRM_LEN_V2 - SMC_CLC_TRL_LEN);

/* SMC-D Accept/Confirm, the part v1 and v2 share */
struct smc_clc_accept_d_wire {
	struct smc_clc_hdr_wire hdr;
	__be64 gid;
	__be64 token;
	u8 dmbe_idx;
	u8 dmbe_size;		/* SMC_CLC_BUF_SIZE_SHIFT */
	u8 reserved[2];
	u8 lgr_id[4];
} __packed;
SMC_WIRE_AT(smc_clc_accept_d_wire, hdr, 0);
SMC_WIRE_AT(smc_clc_accept_d_wire, gid, 8);
SMC_WIRE_AT(smc_clc_accept_d_wire, token, 16);
SMC_WIRE_AT(smc_clc_accept_d_wire, dmbe_idx, 24);
SMC_WIRE_AT(smc_clc_accept_d_wire, dmbe_size, 25);
SMC_WIRE_AT(smc_clc_accept_d_wire, reserved, 26);
SMC_WIRE_AT(smc_clc_accept_d_wire, lgr_id, 28);
SMC_WIRE_SIZE(smc_clc_accept_d_wire, 32);

/* SMC-D Accept/Confirm, v1: the trailer follows */
struct smc_clc_accept_d_v1_wire {
	struct smc_clc_accept_d_wire d;
	u8 reserved[12];
} __packed;
SMC_WIRE_AT(smc_clc_accept_d_v1_wire, d, 0);
SMC_WIRE_AT(smc_clc_accept_d_v1_wire, reserved, 32);
SMC_WIRE_SIZE(smc_clc_accept_d_v1_wire, 44);
SMC_WIRE_SIZE(smc_clc_accept_d_v1_wire,
	      SMCD_CLC_ACCEPT_CONFIRM_LEN - SMC_CLC_TRL_LEN);

/*
 * SMC-D Accept/Confirm, v2: the first-contact extension follows if the
 * first-contact bit is set, else the trailer.
 */
struct smc_clc_accept_d_v2_wire {
	struct smc_clc_accept_d_wire d;
	__be16 chid;
	u8 eid[SMC_CLC_EID_LEN];
	__be64 gid_ext;		/* emulated ISM: low 64 bits of the GID */
} __packed;
SMC_WIRE_AT(smc_clc_accept_d_v2_wire, d, 0);
SMC_WIRE_AT(smc_clc_accept_d_v2_wire, chid, 32);
SMC_WIRE_AT(smc_clc_accept_d_v2_wire, eid, 34);
SMC_WIRE_AT(smc_clc_accept_d_v2_wire, gid_ext, 66);
SMC_WIRE_SIZE(smc_clc_accept_d_v2_wire, 74);
SMC_WIRE_SIZE(smc_clc_accept_d_v2_wire,
	      SMCD_CLC_ACCEPT_CONFIRM_LEN_V2 - SMC_CLC_TRL_LEN);

/* First-contact extension byte 0, and the OS type nibble (also Decline) */
#define SMC_CLC_FCE_V2_DIRECT		0x80
#define SMC_CLC_OS_SHIFT		4
#define SMC_CLC_FCE_RELEASE_MASK	0x0f

/* First-contact extension; SMC-D release 0 ends before max_conns */
struct smc_clc_fce_wire {
	u8 flags;		/* SMC_CLC_FCE_V2_DIRECT */
	u8 os_release;		/* SMC_CLC_OS_SHIFT, SMC_CLC_FCE_RELEASE_MASK */
	u8 reserved[2];
	u8 hostname[SMC_CLC_HOSTNAME_LEN];
	u8 max_conns;
	u8 max_links;
	__be16 feature_mask;
	u8 vendor_exp[4];
	u8 reserved2[8];
} __packed;
SMC_WIRE_AT(smc_clc_fce_wire, flags, 0);
SMC_WIRE_AT(smc_clc_fce_wire, os_release, 1);
SMC_WIRE_AT(smc_clc_fce_wire, reserved, 2);
SMC_WIRE_AT(smc_clc_fce_wire, hostname, 4);
SMC_WIRE_AT(smc_clc_fce_wire, max_conns, 36);
SMC_WIRE_AT(smc_clc_fce_wire, max_links, 37);
SMC_WIRE_AT(smc_clc_fce_wire, feature_mask, 38);
SMC_WIRE_AT(smc_clc_fce_wire, vendor_exp, 40);
SMC_WIRE_AT(smc_clc_fce_wire, reserved2, 44);
SMC_WIRE_SIZE(smc_clc_fce_wire, 52);
SMC_WIRE_SIZE(smc_clc_fce_wire, SMCR_CLC_FCE_LEN);
SMC_WIRE_SIZE(smc_clc_fce_wire, SMCD_CLC_FCE_LEN);
SMC_WIRE_AT(smc_clc_fce_wire, max_conns, SMCD_CLC_FCE_LEN_REL0);

/* GID list after the extension of a first-contact SMC-R v2 Confirm */
struct smc_clc_gle_wire {
	u8 gid_cnt;
	u8 reserved[3];
	u8 gid[][SMC_CLC_GID_LEN];
} __packed;
SMC_WIRE_AT(smc_clc_gle_wire, gid_cnt, 0);
SMC_WIRE_AT(smc_clc_gle_wire, reserved, 1);
SMC_WIRE_AT(smc_clc_gle_wire, gid, 4);
SMC_WIRE_SIZE(smc_clc_gle_wire, 4);
static_assert(SMC_CLC_ACCEPT_CONFIRM_MAX_LEN ==
	      sizeof(struct smc_clc_accept_r_v2_wire) +
	      sizeof(struct smc_clc_fce_wire) +
	      sizeof(struct smc_clc_gle_wire) +
	      SMC_CLC_MAX_FC_GIDS * SMC_CLC_GID_LEN + SMC_CLC_TRL_LEN,
	      "largest Accept/Confirm");

/* Decline, v1: the trailer follows */
struct smc_clc_decline_wire {
	struct smc_clc_hdr_wire hdr;
	u8 peer_id[SMC_CLC_PEER_ID_LEN];
	__be32 peer_diagnosis;
	u8 os_type;		/* SMC_CLC_OS_SHIFT */
	u8 reserved[3];
} __packed;
SMC_WIRE_AT(smc_clc_decline_wire, hdr, 0);
SMC_WIRE_AT(smc_clc_decline_wire, peer_id, 8);
SMC_WIRE_AT(smc_clc_decline_wire, peer_diagnosis, 16);
SMC_WIRE_AT(smc_clc_decline_wire, os_type, 20);
SMC_WIRE_AT(smc_clc_decline_wire, reserved, 21);
SMC_WIRE_SIZE(smc_clc_decline_wire, 24);
SMC_WIRE_SIZE(smc_clc_decline_wire,
	      SMC_CLC_DECLINE_LEN - SMC_CLC_TRL_LEN);

/* Decline, v2: the trailer follows */
struct smc_clc_decline_v2_wire {
	struct smc_clc_decline_wire v1;
	__be32 diag2[4];
} __packed;
SMC_WIRE_AT(smc_clc_decline_v2_wire, v1, 0);
SMC_WIRE_AT(smc_clc_decline_v2_wire, diag2, 24);
SMC_WIRE_SIZE(smc_clc_decline_v2_wire, 40);
SMC_WIRE_SIZE(smc_clc_decline_v2_wire,
	      SMC_CLC_DECLINE_LEN_V2 - SMC_CLC_TRL_LEN);

/* Common CLC header, host view */
struct smc_clc_hdr {
	u32 eyecatcher;
	u8 type;
	u16 length;
	u8 version;
	u8 typev2;	/* bits 0x0C of byte 7 (flags in Accept/Decline) */
	u8 typev1;	/* bits 0x03 of byte 7 */
};

/*
 * Parse and check the 8-byte header: known eyecatcher, type 1..4,
 * version != 0, length at least header plus trailer.  0 or -EPROTO.
 */
int smc_clc_parse_hdr(const u8 *buf, size_t len, struct smc_clc_hdr *h);

/*
 * Framing of one message taken from a byte stream in pieces of any
 * size: the header first, which gives the length, then the rest.
 * Exactly the message's bytes are consumed, never the data after it;
 * those beyond buflen are consumed but not stored.
 */
struct smc_clc_frame {
	u8 *buf;
	u32 buflen;		/* at least SMC_CLC_HDR_LEN */
	u32 got;		/* bytes of the message consumed */
	u8 expected;		/* the type wanted; a Decline always goes */
	int err;		/* -EPROTO: not a message we take */
	struct smc_clc_hdr hdr;	/* valid once got >= SMC_CLC_HDR_LEN */
};

void smc_clc_frame_init(struct smc_clc_frame *f, u8 expected, u8 *buf,
			u32 buflen);
u32 smc_clc_frame_need(const struct smc_clc_frame *f);
u32 smc_clc_frame_room(const struct smc_clc_frame *f, u32 n);
void smc_clc_frame_advance(struct smc_clc_frame *f, u32 n);

static inline bool smc_clc_frame_done(const struct smc_clc_frame *f)
{
	return !f->err && f->got >= SMC_CLC_HDR_LEN &&
	       f->got == f->hdr.length;
}

/* ---- Proposal ---- */

struct smc_clc_ipv6_prefix {
	u8 prefix[16];
	u8 prefix_len;
};

struct smc_clc_gid_chid {
	u64 gid;
	u16 chid;
};

struct smc_clc_proposal {
	u8 version;
	u8 typev1;
	u8 typev2;
	/* area A */
	u8 peer_id[SMC_CLC_PEER_ID_LEN];
	u8 roce_gid[SMC_CLC_GID_LEN];	/* SMC-Rv1 */
	u8 roce_mac[SMC_CLC_MAC_LEN];
	/* area B: native (v1) ISM device */
	bool smcd_area;			/* parse: area B usable */
	u64 ism_gid;
	u16 ism_chid;
	/* areas C, D (only when typev1 != none) */
	u32 ipv4_subnet;		/* host order */
	u8 ipv4_prefix_len;
	u8 ipv6_cnt;
	struct smc_clc_ipv6_prefix ipv6[SMC_CLC_MAX_V6_PREFIX];
	/* areas E, F (only when typev2 != none) */
	bool v2_ext;			/* parse: v2 extension present */
	u8 eid_cnt;
	u8 gid_cnt;			/* area G entries (D in typev2) */
	u8 release;
	bool seid_flag;
	u8 roce_v2_gid[SMC_CLC_GID_LEN];
	u8 max_conns;
	u8 max_links;
	u16 feature_mask;
	u8 eids[SMC_CLC_MAX_EID][SMC_CLC_EID_LEN];
	/* area G (only when D in typev2) */
	bool smcd_v2_ext;		/* parse: SMC-Dv2 extension present */
	u8 seid[SMC_CLC_EID_LEN];
	struct smc_clc_gid_chid gidchid[SMC_CLC_MAX_GID_ENTRIES];
};

/*
 * Encode @p into @buf as a Linux sender lays it out.  The presence flags
 * (smcd_area, v2_ext, smcd_v2_ext) are ignored: areas follow typev1 and
 * typev2.  Returns the message length, -EINVAL for an impossible view
 * (including typev1 none with a native ISM GID whose last byte, which
 * receivers then read as IPv6 prefix count, exceeds 8), or -ENOSPC if
 * @buflen is too small.
 */
int smc_clc_build_proposal(u8 *buf, size_t buflen,
			   const struct smc_clc_proposal *p);

/* Length smc_clc_build_proposal() would produce, or -EINVAL. */
int smc_clc_proposal_len(const struct smc_clc_proposal *p);

/*
 * Parse a Proposal of which @len bytes are in @buf.  Applies every
 * receive check of a Linux server and never reads outside the buffer.
 * Returns 0 or -EPROTO.
 */
int smc_clc_parse_proposal(const u8 *buf, size_t len,
			   struct smc_clc_proposal *p);

/* One offered ISM device: native, or emulated (two entries, 128 bits) */
struct smc_clc_ism_dev {
	u64 gid;
	u64 gid_ext;
	u16 chid;
	bool native;	/* from area B */
};

/*
 * Iterate over the ISM devices a Proposal offers for SMC-Dv2: first the
 * native device of area B (if its CHID is not 0), then the area-G list,
 * where an emulated CHID takes two consecutive entries of that CHID and a
 * lone emulated entry is skipped.  Start with *@pos = 0; returns true and
 * fills @dev while devices remain.
 */
bool smc_clc_prop_next_ism(const struct smc_clc_proposal *p,
			   unsigned int *pos, struct smc_clc_ism_dev *dev);

/*
 * Append an SMC-Dv2 device to the area-G list of @p (two entries for an
 * emulated CHID).  Returns 0 or -ENOSPC when the entries do not fit.
 */
int smc_clc_prop_add_ism(struct smc_clc_proposal *p, u64 gid, u64 gid_ext,
			 u16 chid);

/* ---- Accept / Confirm ---- */

struct smc_clc_accept_d {
	u64 gid;
	u64 token;
	u8 dmbe_idx;
	u8 dmbe_size;		/* compressed, 4 bits */
	u8 lgr_id[4];
	u16 chid;		/* v2 */
	u64 gid_ext;		/* v2 */
};

struct smc_clc_accept_r {
	u8 peer_id[SMC_CLC_PEER_ID_LEN];
	u8 gid[SMC_CLC_GID_LEN];
	u8 mac[SMC_CLC_MAC_LEN];
	u32 qpn;		/* 24 bits */
	u32 rkey;
	u8 rmbe_idx;
	u32 alert_token;
	u8 rmbe_size;		/* compressed, 4 bits */
	u8 qp_mtu;		/* 4 bits */
	u64 rmb_dma_addr;
	u32 psn;		/* 24 bits */
};

/* First-contact extension (v2 with the first-contact bit) */
struct smc_clc_fce {
	bool v2_direct;
	u8 os_type;
	u8 release;
	u8 hostname[SMC_CLC_HOSTNAME_LEN];
	u8 max_conns;		/* SMC-R, release >= 1 */
	u8 max_links;		/* SMC-R, release >= 1 */
	u16 feature_mask;	/* release >= 1 */
};

struct smc_clc_accept {
	u8 type;		/* SMC_CLC_ACCEPT or SMC_CLC_CONFIRM */
	u8 version;
	u8 path;		/* SMC_TYPE_R or SMC_TYPE_D */
	bool first_contact;
	struct smc_clc_accept_d d;
	struct smc_clc_accept_r r;
	u8 eid[SMC_CLC_EID_LEN];	/* v2 */
	struct smc_clc_fce fce;		/* v2 and first contact */
	/* SMC-R v2 first-contact Confirm only */
	u8 fc_gid_cnt;
	u8 fc_gids[SMC_CLC_MAX_FC_GIDS][SMC_CLC_GID_LEN];
};

/*
 * Encode an Accept or Confirm.  Length: SMC-D v1 48, v2 78, plus the
 * first-contact extension (36 bytes for release 0, else 52); SMC-R v1 68,
 * v2 108, plus 52 with first contact, plus 4 + 16 * GIDs for a Confirm
 * with a GID list.  Returns the length, -EINVAL or -ENOSPC.
 */
int smc_clc_build_accept(u8 *buf, size_t buflen,
			 const struct smc_clc_accept *a);

/* Length smc_clc_build_accept() would produce, or -EINVAL. */
int smc_clc_accept_len(const struct smc_clc_accept *a);

/*
 * Parse an Accept or Confirm of which @len bytes are in @buf.  A message
 * longer than @len is accepted (trailer unchecked) only if at least
 * SMC_CLC_ACCEPT_RCV_LEN bytes arrived, as with a full receive buffer.
 * Returns 0 or -EPROTO.
 */
int smc_clc_parse_accept(const u8 *buf, size_t len, struct smc_clc_accept *a);

/* ---- Decline ---- */

struct smc_clc_decline {
	u8 version;
	bool out_of_sync;
	u8 peer_id[SMC_CLC_PEER_ID_LEN];
	u32 peer_diagnosis;
	u8 os_type;
	u32 diag2[4];		/* v2: additional codes */
};

/*
 * Encode a Decline: 28 bytes for version 1, 44 otherwise.  The
 * out-of-sync bit is set exactly for SMC_CLC_DECL_SYNCERR, whatever
 * @d->out_of_sync says.  Returns the length, -EINVAL or -ENOSPC.
 */
int smc_clc_build_decline(u8 *buf, size_t buflen,
			  const struct smc_clc_decline *d);

/*
 * Parse a Decline: length exactly 28 (version 1) or 44 (version 2),
 * trailer not checked.  Returns 0 or -EPROTO.
 */
int smc_clc_parse_decline(const u8 *buf, size_t len,
			  struct smc_clc_decline *d);

#endif /* _SMC_CLC_WIRE_H */
