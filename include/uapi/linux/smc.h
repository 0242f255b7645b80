/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Shared Memory Communications: generic netlink interface and socket
 * options.
 *
 * Names and values are those of the upstream kernel, so that existing
 * tools (smc_pnet, smcr, smcd) work unchanged.
 */
#ifndef _UAPI_LINUX_SMC_H_
#define _UAPI_LINUX_SMC_H_

/* Family of the PNET ID table, used by smc_pnet */
#define SMCR_GENL_FAMILY_NAME		"SMC_PNETID"
#define SMCR_GENL_FAMILY_VERSION	1

/* Attributes of SMC_PNETID */
enum {
	SMC_PNETID_UNSPEC,
	SMC_PNETID_NAME,		/* string: the PNET ID */
	SMC_PNETID_ETHNAME,		/* string: a network interface */
	SMC_PNETID_IBNAME,		/* string: an RDMA or ISM device */
	SMC_PNETID_IBPORT,		/* u8: its port, 1 or 2 */
	__SMC_PNETID_MAX,
	SMC_PNETID_MAX = __SMC_PNETID_MAX - 1
};

/* Commands of SMC_PNETID */
enum {
	SMC_PNETID_GET = 1,
	SMC_PNETID_ADD,
	SMC_PNETID_DEL,
	SMC_PNETID_FLUSH
};

/* Family of everything else: link groups, devices, statistics, EIDs */
#define SMC_GENL_FAMILY_NAME		"SMC_GEN_NETLINK"
#define SMC_GENL_FAMILY_VERSION		1

#define SMC_PCI_ID_STR_LEN		16	/* "dddd:bb:dd.f" + NUL */
#define SMC_MAX_HOSTNAME_LEN		32
#define SMC_MAX_UEID			4	/* user EIDs at most */
#define SMC_MAX_EID_LEN			32

/* SOL_SMC socket options */
#define SMC_LIMIT_HS			1	/* int: limit handshakes */

/* Commands of SMC_GEN_NETLINK */
enum {
	SMC_NETLINK_GET_SYS_INFO = 1,
	SMC_NETLINK_GET_LGR_SMCR,
	SMC_NETLINK_GET_LINK_SMCR,
	SMC_NETLINK_GET_LGR_SMCD,
	SMC_NETLINK_GET_DEV_SMCD,
	SMC_NETLINK_GET_DEV_SMCR,
	SMC_NETLINK_GET_STATS,
	SMC_NETLINK_GET_FBACK_STATS,
	SMC_NETLINK_DUMP_UEID,
	SMC_NETLINK_ADD_UEID,
	SMC_NETLINK_REMOVE_UEID,
	SMC_NETLINK_FLUSH_UEID,
	SMC_NETLINK_DUMP_SEID,
	SMC_NETLINK_ENABLE_SEID,
	SMC_NETLINK_DISABLE_SEID,
	SMC_NETLINK_DUMP_HS_LIMITATION,
	SMC_NETLINK_ENABLE_HS_LIMITATION,
	SMC_NETLINK_DISABLE_HS_LIMITATION,
};

/* Top-level attributes: one nest per reply message */
enum {
	SMC_GEN_UNSPEC,
	SMC_GEN_SYS_INFO,		/* nest: SMC_NLA_SYS_* */
	SMC_GEN_LGR_SMCR,		/* nest: SMC_NLA_LGR_R_* */
	SMC_GEN_LINK_SMCR,		/* nest: SMC_NLA_LINK_* */
	SMC_GEN_LGR_SMCD,		/* nest: SMC_NLA_LGR_D_* */
	SMC_GEN_DEV_SMCD,		/* nest: SMC_NLA_DEV_* */
	SMC_GEN_DEV_SMCR,		/* nest: SMC_NLA_DEV_* */
	SMC_GEN_STATS,			/* nest: SMC_NLA_STATS_* */
	SMC_GEN_FBACK_STATS,		/* nest: SMC_NLA_FBACK_STATS_* */
	__SMC_GEN_MAX,
	SMC_GEN_MAX = __SMC_GEN_MAX - 1
};

/* SMC_GEN_SYS_INFO */
enum {
	SMC_NLA_SYS_UNSPEC,
	SMC_NLA_SYS_VER,		/* u8: highest SMC version */
	SMC_NLA_SYS_REL,		/* u8: release */
	SMC_NLA_SYS_IS_ISM_V2,		/* u8: an ISMv2 device was seen */
	SMC_NLA_SYS_LOCAL_HOST,		/* string: host name, 32 chars */
	SMC_NLA_SYS_SEID,		/* string: system EID */
	SMC_NLA_SYS_IS_SMCR_V2,		/* u8: SMC-Rv2 supported */
	__SMC_NLA_SYS_MAX,
	SMC_NLA_SYS_MAX = __SMC_NLA_SYS_MAX - 1
};

/* SMC_NLA_LGR_R_V2_COMMON, SMC_NLA_LGR_D_V2_COMMON (no UNSPEC) */
enum {
	SMC_NLA_LGR_V2_VER,		/* u8: negotiated version */
	SMC_NLA_LGR_V2_REL,		/* u8: the peer's release */
	SMC_NLA_LGR_V2_OS,		/* u8: the peer's OS */
	SMC_NLA_LGR_V2_NEG_EID,		/* string: negotiated EID */
	SMC_NLA_LGR_V2_PEER_HOST,	/* string: the peer's host name */
	__SMC_NLA_LGR_V2_MAX,
	SMC_NLA_LGR_V2_MAX = __SMC_NLA_LGR_V2_MAX - 1
};

/* SMC_NLA_LGR_R_V2 */
enum {
	SMC_NLA_LGR_R_V2_UNSPEC,
	SMC_NLA_LGR_R_V2_DIRECT,	/* u8: peer reached without gateway */
	SMC_NLA_LGR_R_V2_MAX_CONNS,	/* u8 */
	SMC_NLA_LGR_R_V2_MAX_LINKS,	/* u8 */
	__SMC_NLA_LGR_R_V2_MAX,
	SMC_NLA_LGR_R_V2_MAX = __SMC_NLA_LGR_R_V2_MAX - 1
};

/* SMC_GEN_LGR_SMCR */
enum {
	SMC_NLA_LGR_R_UNSPEC,
	SMC_NLA_LGR_R_ID,		/* u32 */
	SMC_NLA_LGR_R_ROLE,		/* u8: 0 client, 1 server */
	SMC_NLA_LGR_R_TYPE,		/* u8: SMC_LGR_TYPE_* of the kernel */
	SMC_NLA_LGR_R_PNETID,		/* string */
	SMC_NLA_LGR_R_VLAN_ID,		/* u8 */
	SMC_NLA_LGR_R_CONNS_NUM,	/* u32 */
	SMC_NLA_LGR_R_V2_COMMON,	/* nest */
	SMC_NLA_LGR_R_V2,		/* nest */
	SMC_NLA_LGR_R_NET_COOKIE,	/* u64 */
	SMC_NLA_LGR_R_PAD,		/* pad */
	SMC_NLA_LGR_R_BUF_TYPE,		/* u8 */
	SMC_NLA_LGR_R_SNDBUF_ALLOC,	/* uint: send buffer bytes */
	SMC_NLA_LGR_R_RMB_ALLOC,	/* uint: RMB bytes */
	__SMC_NLA_LGR_R_MAX,
	SMC_NLA_LGR_R_MAX = __SMC_NLA_LGR_R_MAX - 1
};

/* SMC_GEN_LINK_SMCR */
enum {
	SMC_NLA_LINK_UNSPEC,
	SMC_NLA_LINK_ID,		/* u8 */
	SMC_NLA_LINK_IB_DEV,		/* string */
	SMC_NLA_LINK_IB_PORT,		/* u8 */
	SMC_NLA_LINK_GID,		/* string */
	SMC_NLA_LINK_PEER_GID,		/* string */
	SMC_NLA_LINK_CONN_CNT,		/* u32 */
	SMC_NLA_LINK_NET_DEV,		/* u32: ifindex */
	SMC_NLA_LINK_UID,		/* u32 */
	SMC_NLA_LINK_PEER_UID,		/* u32 */
	SMC_NLA_LINK_STATE,		/* u32 */
	/* our additions */
	SMC_NLA_LINK_CQ_VECTOR,		/* u32: vector of the link's CQ */
	SMC_NLA_LINK_SEND_WR,		/* u32: send slots of the link */
	SMC_NLA_LINK_RECV_WR,		/* u32: receives added to its SRQ */
	__SMC_NLA_LINK_MAX,
	SMC_NLA_LINK_MAX = __SMC_NLA_LINK_MAX - 1
};

/* SMC_GEN_LGR_SMCD */
enum {
	SMC_NLA_LGR_D_UNSPEC,
	SMC_NLA_LGR_D_ID,		/* u32 */
	SMC_NLA_LGR_D_GID,		/* u64 */
	SMC_NLA_LGR_D_PEER_GID,		/* u64 */
	SMC_NLA_LGR_D_VLAN_ID,		/* u8 */
	SMC_NLA_LGR_D_CONNS_NUM,	/* u32 */
	SMC_NLA_LGR_D_PNETID,		/* string */
	SMC_NLA_LGR_D_CHID,		/* u32 on the wire */
	SMC_NLA_LGR_D_PAD,		/* pad */
	SMC_NLA_LGR_D_V2_COMMON,	/* nest */
	SMC_NLA_LGR_D_EXT_GID,		/* u64 */
	SMC_NLA_LGR_D_PEER_EXT_GID,	/* u64 */
	SMC_NLA_LGR_D_SNDBUF_ALLOC,	/* uint */
	SMC_NLA_LGR_D_DMB_ALLOC,	/* uint */
	__SMC_NLA_LGR_D_MAX,
	SMC_NLA_LGR_D_MAX = __SMC_NLA_LGR_D_MAX - 1
};

/* SMC_NLA_DEV_PORT, SMC_NLA_DEV_PORT2 */
enum {
	SMC_NLA_DEV_PORT_UNSPEC,
	SMC_NLA_DEV_PORT_PNET_USR,	/* u8: PNET ID set by the user */
	SMC_NLA_DEV_PORT_PNETID,	/* string */
	SMC_NLA_DEV_PORT_NETDEV,	/* u32: ifindex */
	SMC_NLA_DEV_PORT_STATE,		/* u8: 1 active */
	SMC_NLA_DEV_PORT_VALID,		/* u8 */
	SMC_NLA_DEV_PORT_LNK_CNT,	/* u32: links on the port */
	__SMC_NLA_DEV_PORT_MAX,
	SMC_NLA_DEV_PORT_MAX = __SMC_NLA_DEV_PORT_MAX - 1
};

/* SMC_GEN_DEV_SMCD, SMC_GEN_DEV_SMCR */
enum {
	SMC_NLA_DEV_UNSPEC,
	SMC_NLA_DEV_USE_CNT,		/* u32 */
	SMC_NLA_DEV_IS_CRIT,		/* u8 */
	SMC_NLA_DEV_PCI_FID,		/* u32 */
	SMC_NLA_DEV_PCI_CHID,		/* u16 */
	SMC_NLA_DEV_PCI_VENDOR,		/* u16 */
	SMC_NLA_DEV_PCI_DEVICE,		/* u16 */
	SMC_NLA_DEV_PCI_ID,		/* string */
	SMC_NLA_DEV_PORT,		/* nest */
	SMC_NLA_DEV_PORT2,		/* nest */
	SMC_NLA_DEV_IB_NAME,		/* string */
	/* our additions */
	SMC_NLA_DEV_CQ,			/* nest, one per vector: SMC_NLA_CQ_* */
	__SMC_NLA_DEV_MAX,
	SMC_NLA_DEV_MAX = __SMC_NLA_DEV_MAX - 1
};

/* SMC_NLA_DEV_CQ (our addition): a completion vector of an RDMA device */
enum {
	SMC_NLA_CQ_UNSPEC,
	SMC_NLA_CQ_VECTOR,		/* u32 */
	SMC_NLA_CQ_QPS,			/* u32: QPs of links bound to it */
	SMC_NLA_CQ_COMPLETIONS,		/* u64: work completions handled */
	SMC_NLA_CQ_PAD,			/* pad */
	SMC_NLA_CQ_RECV_BUFS,		/* u32: receive buffers in use */
	__SMC_NLA_CQ_MAX,
	SMC_NLA_CQ_MAX = __SMC_NLA_CQ_MAX - 1
};

/* Buckets of payload and buffer sizes (all u64) */
enum {
	SMC_NLA_STATS_PLOAD_PAD,
	SMC_NLA_STATS_PLOAD_8K,
	SMC_NLA_STATS_PLOAD_16K,
	SMC_NLA_STATS_PLOAD_32K,
	SMC_NLA_STATS_PLOAD_64K,
	SMC_NLA_STATS_PLOAD_128K,
	SMC_NLA_STATS_PLOAD_256K,
	SMC_NLA_STATS_PLOAD_512K,
	SMC_NLA_STATS_PLOAD_1024K,
	SMC_NLA_STATS_PLOAD_G_1024K,
	__SMC_NLA_STATS_PLOAD_MAX,
	SMC_NLA_STATS_PLOAD_MAX = __SMC_NLA_STATS_PLOAD_MAX - 1
};

/* Buffer counters (all u64) */
enum {
	SMC_NLA_STATS_RMB_PAD,
	SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT,
	SMC_NLA_STATS_RMB_SIZE_SM_CNT,
	SMC_NLA_STATS_RMB_FULL_PEER_CNT,
	SMC_NLA_STATS_RMB_FULL_CNT,
	SMC_NLA_STATS_RMB_REUSE_CNT,
	SMC_NLA_STATS_RMB_ALLOC_CNT,
	SMC_NLA_STATS_RMB_DGRADE_CNT,
	__SMC_NLA_STATS_RMB_MAX,
	SMC_NLA_STATS_RMB_MAX = __SMC_NLA_STATS_RMB_MAX - 1
};

/* SMC_NLA_STATS_SMCD_TECH, SMC_NLA_STATS_SMCR_TECH */
enum {
	SMC_NLA_STATS_T_PAD,
	SMC_NLA_STATS_T_TX_RMB_SIZE,	/* nest: buckets */
	SMC_NLA_STATS_T_RX_RMB_SIZE,	/* nest: buckets */
	SMC_NLA_STATS_T_TXPLOAD_SIZE,	/* nest: buckets */
	SMC_NLA_STATS_T_RXPLOAD_SIZE,	/* nest: buckets */
	SMC_NLA_STATS_T_TX_RMB_STATS,	/* nest: buffer counters */
	SMC_NLA_STATS_T_RX_RMB_STATS,	/* nest: buffer counters */
	SMC_NLA_STATS_T_CLNT_V1_SUCC,	/* u64 */
	SMC_NLA_STATS_T_CLNT_V2_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SRV_V1_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SRV_V2_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SENDPAGE_CNT,	/* u64 */
	SMC_NLA_STATS_T_SPLICE_CNT,	/* u64 */
	SMC_NLA_STATS_T_CORK_CNT,	/* u64 */
	SMC_NLA_STATS_T_NDLY_CNT,	/* u64 */
	SMC_NLA_STATS_T_URG_DATA_CNT,	/* u64 */
	SMC_NLA_STATS_T_RX_BYTES,	/* u64 */
	SMC_NLA_STATS_T_TX_BYTES,	/* u64 */
	SMC_NLA_STATS_T_RX_CNT,		/* u64 */
	SMC_NLA_STATS_T_TX_CNT,		/* u64 */
	SMC_NLA_STATS_T_RX_RMB_USAGE,	/* uint */
	SMC_NLA_STATS_T_TX_RMB_USAGE,	/* uint */
	__SMC_NLA_STATS_T_MAX,
	SMC_NLA_STATS_T_MAX = __SMC_NLA_STATS_T_MAX - 1
};

/* SMC_GEN_STATS */
enum {
	SMC_NLA_STATS_PAD,
	SMC_NLA_STATS_SMCD_TECH,	/* nest */
	SMC_NLA_STATS_SMCR_TECH,	/* nest */
	SMC_NLA_STATS_CLNT_HS_ERR_CNT,	/* u64 */
	SMC_NLA_STATS_SRV_HS_ERR_CNT,	/* u64 */
	__SMC_NLA_STATS_MAX,
	SMC_NLA_STATS_MAX = __SMC_NLA_STATS_MAX - 1
};

/* SMC_GEN_FBACK_STATS */
enum {
	SMC_NLA_FBACK_STATS_PAD,
	SMC_NLA_FBACK_STATS_TYPE,	/* u8: 1 server, 0 client */
	SMC_NLA_FBACK_STATS_SRV_CNT,	/* u64 */
	SMC_NLA_FBACK_STATS_CLNT_CNT,	/* u64 */
	SMC_NLA_FBACK_STATS_RSN_CODE,	/* u32 */
	SMC_NLA_FBACK_STATS_RSN_CNT,	/* u16 */
	__SMC_NLA_FBACK_STATS_MAX,
	SMC_NLA_FBACK_STATS_MAX = __SMC_NLA_FBACK_STATS_MAX - 1
};

/* SMC_NETLINK_*_UEID: top level */
enum {
	SMC_NLA_EID_TABLE_UNSPEC,
	SMC_NLA_EID_TABLE_ENTRY,	/* string: 32 chars + NUL */
	__SMC_NLA_EID_TABLE_MAX,
	SMC_NLA_EID_TABLE_MAX = __SMC_NLA_EID_TABLE_MAX - 1
};

/* SMC_NETLINK_DUMP_SEID: top level */
enum {
	SMC_NLA_SEID_UNSPEC,
	SMC_NLA_SEID_ENTRY,		/* string */
	SMC_NLA_SEID_ENABLED,		/* u8 */
	__SMC_NLA_SEID_TABLE_MAX,
	SMC_NLA_SEID_TABLE_MAX = __SMC_NLA_SEID_TABLE_MAX - 1
};

/* SMC_NETLINK_DUMP_HS_LIMITATION: top level */
enum {
	SMC_NLA_HS_LIMITATION_UNSPEC,
	SMC_NLA_HS_LIMITATION_ENABLED,	/* u8 */
	__SMC_NLA_HS_LIMITATION_MAX,
	SMC_NLA_HS_LIMITATION_MAX = __SMC_NLA_HS_LIMITATION_MAX - 1
};

#endif /* _UAPI_LINUX_SMC_H_ */
