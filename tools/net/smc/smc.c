// SPDX-License-Identifier: GPL-2.0
/*
 * smc: show and manage Shared Memory Communications, in the manner of
 * iproute2.  It speaks the generic netlink family SMC_GEN_NETLINK.
 *
 *   smc [-j] info          the SMC versions, the host name
 *   smc [-j] dev           RDMA devices: ports, and the load of each
 *                          completion vector (bound QPs, completions)
 *   smc [-j] lgr           SMC-R link groups with their links, and
 *                          SMC-D link groups
 *   smc [-j] hs [on|off]   the handshake limitation of this netns
 *
 * -j prints one JSON document.  Exit status: 0, 1 on a usage error, 2
 * when the kernel refused or is not there.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>

#define NEST_MAX	32	/* attribute types we parse per level */

static bool json;
static struct mnl_socket *nl;
static uint16_t family;
static unsigned int seq;

/* ---- output: text lines or one JSON document ---- */

static int depth;		/* open JSON containers */
static bool first[16];		/* next member is the first of its object */

static void j_sep(void)
{
	if (!first[depth])
		putchar(',');
	first[depth] = false;
}

static void j_key(const char *key)
{
	j_sep();
	if (key)
		printf("\"%s\":", key);
}

static void j_open(const char *key, char c)
{
	j_key(key);
	putchar(c);
	first[++depth] = true;
}

static void j_close(char c)
{
	putchar(c);
	depth--;
}

static void j_str(const char *key, const char *v)
{
	const char *p;

	j_key(key);
	putchar('"');
	for (p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void j_u64(const char *key, uint64_t v)
{
	j_key(key);
	printf("%" PRIu64, v);
}

/* ---- netlink ---- */

static void die(const char *what)
{
	fprintf(stderr, "smc: %s: %s\n", what, strerror(errno));
	exit(2);
}

static uint64_t attr_uint(const struct nlattr *a)
{
	if (mnl_attr_get_payload_len(a) == 8)
		return mnl_attr_get_u64(a);
	if (mnl_attr_get_payload_len(a) == 4)
		return mnl_attr_get_u32(a);
	if (mnl_attr_get_payload_len(a) == 2)
		return mnl_attr_get_u16(a);
	return mnl_attr_get_u8(a);
}

static const char *attr_str(const struct nlattr *a)
{
	if (!a || !mnl_attr_get_payload_len(a))
		return "";
	/* the kernel terminates its strings; do not trust it blindly */
	if (((const char *)mnl_attr_get_payload(a))
	    [mnl_attr_get_payload_len(a) - 1])
		return "?";
	return mnl_attr_get_str(a);
}

static int parse_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(a);

	if (type < NEST_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static void parse_nest(const struct nlattr *nest, const struct nlattr **tb)
{
	memset(tb, 0, NEST_MAX * sizeof(*tb));
	if (nest)
		mnl_attr_parse_nested(nest, parse_cb, tb);
}

static uint64_t get(const struct nlattr **tb, int type)
{
	return tb[type] ? attr_uint(tb[type]) : 0;
}

/* Every attribute of a message, past the genl header */
static void parse_msg(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	memset(tb, 0, NEST_MAX * sizeof(*tb));
	mnl_attr_parse(nlh, GENL_HDRLEN, parse_cb, tb);
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NEST_MAX];

	(void)data;
	parse_msg(nlh, tb);
	if (tb[CTRL_ATTR_FAMILY_ID])
		family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	return MNL_CB_OK;
}

/* Send a request and run @cb on every answer until the end */
static int talk(uint16_t type, uint8_t cmd, uint16_t flags,
		const char *str_attr, mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct genlmsghdr *g;
	struct nlmsghdr *nlh;
	unsigned int portid;
	int n, rc;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	if (str_attr)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, str_attr);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		die("send");
	portid = mnl_socket_get_portid(nl);
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return -1;
		rc = mnl_cb_run(buf, n, seq, portid, cb, data);
	} while (rc > 0);
	return rc;
}

static void open_family(void)
{
	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink");
	if (talk(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, SMC_GENL_FAMILY_NAME,
		 ctrl_cb, NULL) < 0 || !family) {
		fprintf(stderr, "smc: family %s: %s (is smc loaded?)\n",
			SMC_GENL_FAMILY_NAME, strerror(errno));
		exit(2);
	}
}

static void dump(uint8_t cmd, mnl_cb_t cb)
{
	if (talk(family, cmd, NLM_F_DUMP, NULL, cb, NULL) < 0)
		die("dump");
}

/* ---- info ---- */

static int info_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *top[NEST_MAX], *tb[NEST_MAX];

	(void)data;
	parse_msg(nlh, top);
	parse_nest(top[SMC_GEN_SYS_INFO], tb);
	if (json) {
		j_u64("version", get(tb, SMC_NLA_SYS_VER));
		j_u64("release", get(tb, SMC_NLA_SYS_REL));
		j_u64("ism_v2", get(tb, SMC_NLA_SYS_IS_ISM_V2));
		j_u64("smcr_v2", get(tb, SMC_NLA_SYS_IS_SMCR_V2));
		j_str("host", attr_str(tb[SMC_NLA_SYS_LOCAL_HOST]));
		return MNL_CB_OK;
	}
	printf("version %" PRIu64 ".%" PRIu64 " ism_v2 %" PRIu64
	       " smcr_v2 %" PRIu64 " host \"%s\"\n",
	       get(tb, SMC_NLA_SYS_VER), get(tb, SMC_NLA_SYS_REL),
	       get(tb, SMC_NLA_SYS_IS_ISM_V2), get(tb, SMC_NLA_SYS_IS_SMCR_V2),
	       attr_str(tb[SMC_NLA_SYS_LOCAL_HOST]));
	return MNL_CB_OK;
}

/* ---- dev ---- */

static void dev_port(const struct nlattr *nest, unsigned int port)
{
	const struct nlattr *tb[NEST_MAX];

	if (!nest)
		return;
	parse_nest(nest, tb);
	if (json) {
		j_open(NULL, '{');
		j_u64("port", port);
		j_u64("active", get(tb, SMC_NLA_DEV_PORT_STATE));
		j_u64("netdev", get(tb, SMC_NLA_DEV_PORT_NETDEV));
		j_str("pnetid", attr_str(tb[SMC_NLA_DEV_PORT_PNETID]));
		j_u64("links", get(tb, SMC_NLA_DEV_PORT_LNK_CNT));
		j_close('}');
		return;
	}
	printf("    port %u %s netdev %" PRIu64 " pnetid \"%s\" links %" PRIu64
	       "\n", port, get(tb, SMC_NLA_DEV_PORT_STATE) ? "active" : "down",
	       get(tb, SMC_NLA_DEV_PORT_NETDEV),
	       attr_str(tb[SMC_NLA_DEV_PORT_PNETID]),
	       get(tb, SMC_NLA_DEV_PORT_LNK_CNT));
}

static int dev_cq_cb(const struct nlattr *a, void *data)
{
	const struct nlattr *tb[NEST_MAX];

	(void)data;
	if (mnl_attr_get_type(a) != SMC_NLA_DEV_CQ)
		return MNL_CB_OK;
	parse_nest(a, tb);
	if (json) {
		j_open(NULL, '{');
		j_u64("vector", get(tb, SMC_NLA_CQ_VECTOR));
		j_u64("qps", get(tb, SMC_NLA_CQ_QPS));
		j_u64("completions", get(tb, SMC_NLA_CQ_COMPLETIONS));
		j_close('}');
		return MNL_CB_OK;
	}
	printf("    cq vector %" PRIu64 " qps %" PRIu64 " completions %" PRIu64
	       "\n", get(tb, SMC_NLA_CQ_VECTOR), get(tb, SMC_NLA_CQ_QPS),
	       get(tb, SMC_NLA_CQ_COMPLETIONS));
	return MNL_CB_OK;
}

static int dev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *top[NEST_MAX], *tb[NEST_MAX];
	const struct nlattr *dev;

	(void)data;
	parse_msg(nlh, top);
	dev = top[SMC_GEN_DEV_SMCR];
	if (!dev)
		return MNL_CB_OK;
	parse_nest(dev, tb);
	if (json) {
		j_open(NULL, '{');
		j_str("name", attr_str(tb[SMC_NLA_DEV_IB_NAME]));
		j_u64("critical", get(tb, SMC_NLA_DEV_IS_CRIT));
		j_str("pci", attr_str(tb[SMC_NLA_DEV_PCI_ID]));
		j_open("ports", '[');
		dev_port(tb[SMC_NLA_DEV_PORT], 1);
		dev_port(tb[SMC_NLA_DEV_PORT2], 2);
		j_close(']');
		j_open("cqs", '[');
		mnl_attr_parse_nested(dev, dev_cq_cb, NULL);
		j_close(']');
		j_close('}');
		return MNL_CB_OK;
	}
	printf("%s critical %s%s%s\n", attr_str(tb[SMC_NLA_DEV_IB_NAME]),
	       get(tb, SMC_NLA_DEV_IS_CRIT) ? "yes" : "no",
	       tb[SMC_NLA_DEV_PCI_ID] ? " pci " : "",
	       attr_str(tb[SMC_NLA_DEV_PCI_ID]));
	dev_port(tb[SMC_NLA_DEV_PORT], 1);
	dev_port(tb[SMC_NLA_DEV_PORT2], 2);
	mnl_attr_parse_nested(dev, dev_cq_cb, NULL);
	return MNL_CB_OK;
}

/* ---- lgr ---- */

static const char *const link_state[] = {
	"unused", "inactive", "activating", "active",
};

static const char *link_state_name(uint64_t s)
{
	return s < 4 ? link_state[s] : "?";
}

static bool in_lgr;		/* a JSON link group is open */

static void lgr_close(void)
{
	if (json && in_lgr) {
		j_close(']');
		j_close('}');
	}
	in_lgr = false;
}

static void lgr_r(const struct nlattr *nest)
{
	const struct nlattr *tb[NEST_MAX], *v2[NEST_MAX], *c[NEST_MAX];

	parse_nest(nest, tb);
	parse_nest(tb[SMC_NLA_LGR_R_V2], v2);
	/* V2_COMMON numbers from 0: parse_nest keeps it */
	parse_nest(tb[SMC_NLA_LGR_R_V2_COMMON], c);
	lgr_close();
	if (json) {
		j_open(NULL, '{');
		j_str("type", "smcr");
		j_u64("id", get(tb, SMC_NLA_LGR_R_ID));
		j_str("role", get(tb, SMC_NLA_LGR_R_ROLE) ? "server" :
							    "client");
		j_u64("conns", get(tb, SMC_NLA_LGR_R_CONNS_NUM));
		j_u64("links_type", get(tb, SMC_NLA_LGR_R_TYPE));
		j_str("pnetid", attr_str(tb[SMC_NLA_LGR_R_PNETID]));
		j_u64("release", get(c, SMC_NLA_LGR_V2_REL));
		j_u64("peer_os", get(c, SMC_NLA_LGR_V2_OS));
		j_str("peer_host", attr_str(c[SMC_NLA_LGR_V2_PEER_HOST]));
		j_str("eid", attr_str(c[SMC_NLA_LGR_V2_NEG_EID]));
		j_u64("max_conns", get(v2, SMC_NLA_LGR_R_V2_MAX_CONNS));
		j_u64("max_links", get(v2, SMC_NLA_LGR_R_V2_MAX_LINKS));
		j_u64("sndbuf_alloc", get(tb, SMC_NLA_LGR_R_SNDBUF_ALLOC));
		j_u64("rmb_alloc", get(tb, SMC_NLA_LGR_R_RMB_ALLOC));
		j_open("links", '[');
		in_lgr = true;
		return;
	}
	printf("smcr lgr %" PRIx64 " %s conns %" PRIu64 " pnetid \"%s\" max_conns %"
	       PRIu64 " max_links %" PRIu64 " peer \"%s\"\n",
	       get(tb, SMC_NLA_LGR_R_ID),
	       get(tb, SMC_NLA_LGR_R_ROLE) ? "server" : "client",
	       get(tb, SMC_NLA_LGR_R_CONNS_NUM),
	       attr_str(tb[SMC_NLA_LGR_R_PNETID]),
	       get(v2, SMC_NLA_LGR_R_V2_MAX_CONNS),
	       get(v2, SMC_NLA_LGR_R_V2_MAX_LINKS),
	       attr_str(c[SMC_NLA_LGR_V2_PEER_HOST]));
}

static void link_r(const struct nlattr *nest)
{
	const struct nlattr *tb[NEST_MAX];

	parse_nest(nest, tb);
	if (json) {
		if (!in_lgr)
			return;
		j_open(NULL, '{');
		j_u64("id", get(tb, SMC_NLA_LINK_ID));
		j_str("state", link_state_name(get(tb, SMC_NLA_LINK_STATE)));
		j_str("dev", attr_str(tb[SMC_NLA_LINK_IB_DEV]));
		j_u64("port", get(tb, SMC_NLA_LINK_IB_PORT));
		j_u64("netdev", get(tb, SMC_NLA_LINK_NET_DEV));
		j_u64("conns", get(tb, SMC_NLA_LINK_CONN_CNT));
		j_str("gid", attr_str(tb[SMC_NLA_LINK_GID]));
		j_str("peer_gid", attr_str(tb[SMC_NLA_LINK_PEER_GID]));
		j_u64("cq_vector", get(tb, SMC_NLA_LINK_CQ_VECTOR));
		j_close('}');
		return;
	}
	printf("    link %" PRIu64 " %s dev %s port %" PRIu64 " conns %" PRIu64
	       " cq vector %" PRIu64 "\n      gid %s peer %s\n",
	       get(tb, SMC_NLA_LINK_ID),
	       link_state_name(get(tb, SMC_NLA_LINK_STATE)),
	       attr_str(tb[SMC_NLA_LINK_IB_DEV]),
	       get(tb, SMC_NLA_LINK_IB_PORT), get(tb, SMC_NLA_LINK_CONN_CNT),
	       get(tb, SMC_NLA_LINK_CQ_VECTOR),
	       attr_str(tb[SMC_NLA_LINK_GID]),
	       attr_str(tb[SMC_NLA_LINK_PEER_GID]));
}

static void lgr_d(const struct nlattr *nest)
{
	const struct nlattr *tb[NEST_MAX];

	parse_nest(nest, tb);
	if (json) {
		j_open(NULL, '{');
		j_str("type", "smcd");
		j_u64("id", get(tb, SMC_NLA_LGR_D_ID));
		j_u64("conns", get(tb, SMC_NLA_LGR_D_CONNS_NUM));
		j_u64("chid", get(tb, SMC_NLA_LGR_D_CHID));
		j_u64("gid", get(tb, SMC_NLA_LGR_D_GID));
		j_u64("peer_gid", get(tb, SMC_NLA_LGR_D_PEER_GID));
		j_str("pnetid", attr_str(tb[SMC_NLA_LGR_D_PNETID]));
		j_close('}');
		return;
	}
	printf("smcd lgr %" PRIx64 " conns %" PRIu64 " chid %04" PRIx64
	       " gid %016" PRIx64 " peer %016" PRIx64 "\n",
	       get(tb, SMC_NLA_LGR_D_ID), get(tb, SMC_NLA_LGR_D_CONNS_NUM),
	       get(tb, SMC_NLA_LGR_D_CHID), get(tb, SMC_NLA_LGR_D_GID),
	       get(tb, SMC_NLA_LGR_D_PEER_GID));
}

static int lgr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *top[NEST_MAX];

	(void)data;
	parse_msg(nlh, top);
	if (top[SMC_GEN_LGR_SMCR])
		lgr_r(top[SMC_GEN_LGR_SMCR]);
	else if (top[SMC_GEN_LINK_SMCR])
		link_r(top[SMC_GEN_LINK_SMCR]);
	else if (top[SMC_GEN_LGR_SMCD])
		lgr_d(top[SMC_GEN_LGR_SMCD]);
	return MNL_CB_OK;
}

/* ---- hs ---- */

static int hs_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NEST_MAX];

	(void)data;
	parse_msg(nlh, tb);
	if (json)
		j_u64("limit", get(tb, SMC_NLA_HS_LIMITATION_ENABLED));
	else
		printf("handshake limitation %s\n",
		       get(tb, SMC_NLA_HS_LIMITATION_ENABLED) ? "on" : "off");
	return MNL_CB_OK;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: smc [-j] { info | dev | lgr | hs [on|off] }\n");
	return 1;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc > 1 && !strcmp(argv[1], "-j")) {
		json = true;
		argv++;
		argc--;
	}
	if (argc < 2)
		return usage();
	cmd = argv[1];
	first[0] = true;
	open_family();
	if (json)
		j_open(NULL, '{');
	if (!strcmp(cmd, "info") && argc == 2) {
		dump(SMC_NETLINK_GET_SYS_INFO, info_cb);
	} else if (!strcmp(cmd, "dev") && argc == 2) {
		if (json)
			j_open("devices", '[');
		dump(SMC_NETLINK_GET_DEV_SMCR, dev_cb);
		if (json)
			j_close(']');
	} else if (!strcmp(cmd, "lgr") && argc == 2) {
		if (json)
			j_open("lgrs", '[');
		dump(SMC_NETLINK_GET_LINK_SMCR, lgr_cb);
		lgr_close();
		dump(SMC_NETLINK_GET_LGR_SMCD, lgr_cb);
		if (json)
			j_close(']');
	} else if (!strcmp(cmd, "hs") && argc <= 3) {
		if (argc == 3) {
			if (strcmp(argv[2], "on") && strcmp(argv[2], "off"))
				return usage();
			if (talk(family, strcmp(argv[2], "on") ?
				 SMC_NETLINK_DISABLE_HS_LIMITATION :
				 SMC_NETLINK_ENABLE_HS_LIMITATION, 0, NULL,
				 NULL, NULL) < 0)
				die("hs");
		}
		dump(SMC_NETLINK_DUMP_HS_LIMITATION, hs_cb);
	} else {
		mnl_socket_close(nl);
		return usage();
	}
	if (json) {
		j_close('}');
		putchar('\n');
	}
	mnl_socket_close(nl);
	return 0;
}
