// SPDX-License-Identifier: GPL-2.0
/*
 * smc: show and manage Shared Memory Communications, in the manner of
 * iproute2.  Most objects come from the generic netlink family
 * SMC_GEN_NETLINK, the PNET ID table from the family SMC_PNETID and the
 * sockets from sock_diag.  "smc help" describes every command.
 *
 * -j prints one JSON document.  Exit status: 0, or 1 on a usage error
 * and when the kernel refused or is not there.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>

#ifndef AF_SMC
#define AF_SMC		43
#endif

#define NEST_MAX	32	/* attribute types we parse per level */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char synopsis[] =
"Usage: smc [-j] OBJECT [COMMAND [ARGUMENTS]]\n"
"\n"
"  smc [-j] info\n"
"  smc [-j] dev\n"
"  smc [-j] lgr\n"
"  smc [-j] hs [ on | off ]\n"
"  smc [-j] stats [ show | fallback ]\n"
"  smc [-j] sock\n"
"  smc [-j] pnet [ show [ NAME ] ]\n"
"  smc pnet add NAME { dev IFNAME | ib IBDEV [ port N ] }\n"
"  smc pnet del NAME\n"
"  smc pnet flush\n"
"  smc [-j] ueid [ show ]\n"
"  smc ueid { add | del } EID\n"
"  smc ueid flush\n"
"  smc [-j] seid [ show ]\n"
"  smc seid { enable | disable }\n"
"  smc help\n";

static const char description[] =
"\n"
"OPTIONS\n"
"  -j, --json   print one JSON document instead of text\n"
"\n"
"OBJECTS\n"
"  info    SMC version and release, SMC-Rv2 and ISMv2 support, host name\n"
"  dev     RDMA devices: ports, links per port, load of each completion\n"
"          vector (bound QPs, completions, receive buffers)\n"
"  lgr     SMC-R link groups with their links, and SMC-D link groups\n"
"  hs      the handshake limitation of this network namespace; on and\n"
"          off change it (CAP_NET_ADMIN)\n"
"  stats   the counters of this network namespace, per technology\n"
"          (smcr, smcd), the handshake errors and the fallbacks to TCP\n"
"          by reason code; \"fallback\" shows the fallbacks only\n"
"  sock    AF_SMC sockets of this network namespace: state, addresses,\n"
"          owner, inode, path (SMC-R, SMC-D, TCP fallback with its\n"
"          reason and the peer's diagnosis), buffers and cursors\n"
"  pnet    the PNET ID table: NAME ETHNAME IBNAME IBPORT per entry;\n"
"          add binds a network interface or an RDMA/ISM device port\n"
"          to a PNET ID, del removes the entries of a PNET ID, flush\n"
"          all of them (changes need CAP_NET_ADMIN)\n"
"  ueid    the user-defined EIDs (at most 4); an EID has up to 32\n"
"          characters A-Z, 0-9, '.' and '-'; it is sent as typed\n"
"          (add, del and flush need CAP_NET_ADMIN)\n"
"  seid    the system EID and whether it is offered; enable and\n"
"          disable change that (s390 only, CAP_NET_ADMIN)\n"
"\n"
"EXIT STATUS\n"
"  0 on success, 1 on a usage error or when the kernel refuses; the\n"
"  error and the kernel's message, if any, go to standard error.\n";

static bool json;
static struct mnl_socket *nl;
static uint16_t family;
static unsigned int seq;

static int usage(void)
{
	fputs(synopsis, stderr);
	return 1;
}

static int help(void)
{
	fputs(synopsis, stdout);
	fputs(description, stdout);
	return 0;
}

/* ---- output: text lines or one JSON document ---- */

static int depth;		/* open JSON containers */
static bool first[16];		/* next member is the first of its object */
static char doc;		/* the document bracket, until first output */

static void j_open(const char *key, char c);

static void j_sep(void)
{
	if (!first[depth])
		putchar(',');
	first[depth] = false;
}

/* Nothing reaches stdout before there is something to show */
static void doc_open(void)
{
	char c = doc;

	if (!c)
		return;
	doc = 0;
	j_open(NULL, c);
}

static void j_key(const char *key)
{
	doc_open();
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

static void j_hex32(const char *key, uint32_t v)
{
	j_key(key);
	printf("\"0x%08" PRIx32 "\"", v);
}

/* A JSON document opens with its first member and closes here */
static void doc_begin(char c)
{
	if (json)
		doc = c;
}

static void doc_end(char c)
{
	if (!json)
		return;
	doc_open();		/* an empty document, still a document */
	j_close(c);
	putchar('\n');
}

/* ---- attributes ---- */

static uint64_t attr_uint(const struct nlattr *a)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 8:
		return mnl_attr_get_u64(a);
	case 4:
		return mnl_attr_get_u32(a);
	case 2:
		return mnl_attr_get_u16(a);
	case 1:
		return mnl_attr_get_u8(a);
	}
	return 0;
}

/* The string of @a, NULL unless it is terminated within its payload */
static const char *attr_strz(const struct nlattr *a)
{
	uint16_t len;

	if (!a)
		return NULL;
	len = mnl_attr_get_payload_len(a);
	if (!len || ((const char *)mnl_attr_get_payload(a))[len - 1])
		return NULL;
	return mnl_attr_get_str(a);
}

static const char *attr_str(const struct nlattr *a)
{
	const char *s = attr_strz(a);

	if (!a || !mnl_attr_get_payload_len(a))
		return "";
	/* the kernel terminates its strings; do not trust it blindly */
	return s ? s : "?";
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

/* ---- netlink ---- */

static char ext_msg[256];	/* the kernel's text for the last error */
static char txbuf[8192];		/* requests are small */
static char rxbuf[1 << 16];	/* sock_diag fills skbs of 32 KiB */

static void fail(const char *what)
{
	int err = errno;

	if (ext_msg[0])
		fprintf(stderr, "smc: %s: %s: %s\n", what, strerror(err),
			ext_msg);
	else
		fprintf(stderr, "smc: %s: %s\n", what, strerror(err));
	exit(1);
}

static int ext_attr_cb(const struct nlattr *a, void *data)
{
	const char *s = attr_strz(a);

	(void)data;
	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG && s)
		snprintf(ext_msg, sizeof(ext_msg), "%s", s);
	return MNL_CB_OK;
}

/* The extended ACK attributes, @off bytes into the payload */
static void ext_parse(const struct nlmsghdr *nlh, size_t off)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    off > mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_parse(nlh, off, ext_attr_cb, NULL);
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	/* without NLM_F_CAPPED our whole request is echoed first */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off = sizeof(e->error) + e->msg.nlmsg_len;
	ext_parse(nlh, off);
	errno = e->error < 0 ? -e->error : e->error;
	return MNL_CB_ERROR;
}

/* A dump ends with DONE, which carries the error of a failed dump */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	int err = 0;

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	ext_parse(nlh, sizeof(err));
	errno = -err;
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= error_cb,
	[NLMSG_DONE]	= done_cb,
};

static void nl_open(int proto)
{
	int one = 1;

	nl = mnl_socket_open(proto);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		fail("netlink");
	/* error texts, where the kernel has them */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
}

/* Send @nlh and run @cb on every answer until the end */
static int nl_run(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	unsigned int portid = mnl_socket_get_portid(nl);
	unsigned int rseq = nlh->nlmsg_seq;
	int n, rc;

	ext_msg[0] = '\0';
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(nl, rxbuf, sizeof(rxbuf));
		if (n < 0)
			return -1;
		rc = mnl_cb_run2(rxbuf, n, rseq, portid, cb, data, ctl_cb,
				 ARRAY_SIZE(ctl_cb));
	} while (rc > 0);
	return rc;
}

static struct nlmsghdr *nl_req(uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(txbuf, 0, sizeof(txbuf));
	nlh = mnl_nlmsg_put_header(txbuf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++seq;
	return nlh;
}

static struct nlmsghdr *genl_req(uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = nl_req(type, flags);
	struct genlmsghdr *g;

	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;		/* of both SMC families and of the ctrl */
	return nlh;
}

/* A command of the family; the kernel acknowledges it */
static struct nlmsghdr *genl_cmd(uint8_t cmd)
{
	return genl_req(family, cmd, NLM_F_ACK);
}

static void genl_send(struct nlmsghdr *nlh, const char *what)
{
	if (nl_run(nlh, NULL, NULL) < 0)
		fail(what);
}

static void genl_dump(uint8_t cmd, mnl_cb_t cb, void *data, const char *what)
{
	if (nl_run(genl_req(family, cmd, NLM_F_DUMP), cb, data) < 0)
		fail(what);
}

static void put_str(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
	if (!mnl_attr_put_strz_check(nlh, sizeof(txbuf), type, s)) {
		fprintf(stderr, "smc: argument too long: %.32s...\n", s);
		exit(1);
	}
}

static int ctrl_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NEST_MAX];
	uint16_t *id = data;

	parse_msg(nlh, tb);
	if (tb[CTRL_ATTR_FAMILY_ID])
		*id = get(tb, CTRL_ATTR_FAMILY_ID);
	return MNL_CB_OK;
}

/* Look the generic netlink family @name up; it stays in use */
static void open_genl(const char *name)
{
	struct nlmsghdr *nlh;

	nl_open(NETLINK_GENERIC);
	nlh = genl_req(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	put_str(nlh, CTRL_ATTR_FAMILY_NAME, name);
	if (nl_run(nlh, ctrl_cb, &family) < 0 && errno != ENOENT)
		fail(name);
	if (!family) {
		fprintf(stderr, "smc: no netlink family %s: %s\n", name,
			"is the smc module loaded?");
		exit(1);
	}
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

static int do_info(int argc, char **argv)
{
	(void)argv;
	if (argc)
		return usage();
	open_genl(SMC_GENL_FAMILY_NAME);
	doc_begin('{');
	genl_dump(SMC_NETLINK_GET_SYS_INFO, info_cb, NULL, "info");
	doc_end('}');
	return 0;
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
		j_u64("recv_bufs", get(tb, SMC_NLA_CQ_RECV_BUFS));
		j_close('}');
		return MNL_CB_OK;
	}
	printf("    cq vector %" PRIu64 " qps %" PRIu64 " completions %" PRIu64
	       " recv bufs %" PRIu64 "\n", get(tb, SMC_NLA_CQ_VECTOR),
	       get(tb, SMC_NLA_CQ_QPS), get(tb, SMC_NLA_CQ_COMPLETIONS),
	       get(tb, SMC_NLA_CQ_RECV_BUFS));
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

/* A listing of SMC_GEN_NETLINK: in JSON, an object holding one array */
static void list_begin(const char *key)
{
	open_genl(SMC_GENL_FAMILY_NAME);
	doc_begin('{');
	if (json)
		j_open(key, '[');
}

static void list_end(void)
{
	if (json)
		j_close(']');
	doc_end('}');
}

static int do_dev(int argc, char **argv)
{
	(void)argv;
	if (argc)
		return usage();
	list_begin("devices");
	genl_dump(SMC_NETLINK_GET_DEV_SMCR, dev_cb, NULL, "dev");
	list_end();
	return 0;
}

/* ---- lgr ---- */

static const char *const link_state[] = {
	"unused", "inactive", "activating", "active",
};

static const char *link_state_name(uint64_t s)
{
	return s < ARRAY_SIZE(link_state) ? link_state[s] : "?";
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

/* SMC_NLA_LGR_R_TYPE: what the links of an SMC-R group are */
static const char *lgr_r_type(uint64_t type)
{
	static const char *const names[] = {
		"none", "single", "symmetric", "asym-peer", "asym-local",
	};

	return type < ARRAY_SIZE(names) ? names[type] : "?";
}

/* An EID is padded with blanks to its 32 bytes: not shown in text */
static int eid_len(const char *eid)
{
	int n = strlen(eid);

	while (n && eid[n - 1] == ' ')
		n--;
	return n;
}

static void lgr_r(const struct nlattr *nest)
{
	const struct nlattr *tb[NEST_MAX], *v2[NEST_MAX], *c[NEST_MAX];
	const char *eid;

	parse_nest(nest, tb);
	parse_nest(tb[SMC_NLA_LGR_R_V2], v2);
	/* V2_COMMON numbers from 0: parse_nest keeps it */
	parse_nest(tb[SMC_NLA_LGR_R_V2_COMMON], c);
	eid = attr_str(c[SMC_NLA_LGR_V2_NEG_EID]);
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
		j_str("eid", eid);
		j_u64("max_conns", get(v2, SMC_NLA_LGR_R_V2_MAX_CONNS));
		j_u64("max_links", get(v2, SMC_NLA_LGR_R_V2_MAX_LINKS));
		j_u64("buf_type", get(tb, SMC_NLA_LGR_R_BUF_TYPE));
		j_u64("sndbuf_alloc", get(tb, SMC_NLA_LGR_R_SNDBUF_ALLOC));
		j_u64("rmb_alloc", get(tb, SMC_NLA_LGR_R_RMB_ALLOC));
		j_open("links", '[');
		in_lgr = true;
		return;
	}
	printf("smcr lgr %" PRIx64 " %s %s conns %" PRIu64 " pnetid \"%s\" max_conns %"
	       PRIu64 " max_links %" PRIu64 " peer \"%s\" eid \"%.*s\"\n",
	       get(tb, SMC_NLA_LGR_R_ID),
	       get(tb, SMC_NLA_LGR_R_ROLE) ? "server" : "client",
	       lgr_r_type(get(tb, SMC_NLA_LGR_R_TYPE)),
	       get(tb, SMC_NLA_LGR_R_CONNS_NUM),
	       attr_str(tb[SMC_NLA_LGR_R_PNETID]),
	       get(v2, SMC_NLA_LGR_R_V2_MAX_CONNS),
	       get(v2, SMC_NLA_LGR_R_V2_MAX_LINKS),
	       attr_str(c[SMC_NLA_LGR_V2_PEER_HOST]), eid_len(eid), eid);
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
		j_u64("send_wr", get(tb, SMC_NLA_LINK_SEND_WR));
		j_u64("recv_wr", get(tb, SMC_NLA_LINK_RECV_WR));
		j_close('}');
		return;
	}
	printf("    link %" PRIu64 " %s dev %s port %" PRIu64 " conns %" PRIu64
	       " cq vector %" PRIu64 " send wr %" PRIu64 " recv wr %" PRIu64
	       "\n      gid %s peer %s\n",
	       get(tb, SMC_NLA_LINK_ID),
	       link_state_name(get(tb, SMC_NLA_LINK_STATE)),
	       attr_str(tb[SMC_NLA_LINK_IB_DEV]),
	       get(tb, SMC_NLA_LINK_IB_PORT), get(tb, SMC_NLA_LINK_CONN_CNT),
	       get(tb, SMC_NLA_LINK_CQ_VECTOR), get(tb, SMC_NLA_LINK_SEND_WR),
	       get(tb, SMC_NLA_LINK_RECV_WR),
	       attr_str(tb[SMC_NLA_LINK_GID]),
	       attr_str(tb[SMC_NLA_LINK_PEER_GID]));
}

static void lgr_d(const struct nlattr *nest)
{
	const struct nlattr *tb[NEST_MAX], *c[NEST_MAX];

	parse_nest(nest, tb);
	parse_nest(tb[SMC_NLA_LGR_D_V2_COMMON], c);
	if (json) {
		j_open(NULL, '{');
		j_str("type", "smcd");
		j_u64("id", get(tb, SMC_NLA_LGR_D_ID));
		j_u64("conns", get(tb, SMC_NLA_LGR_D_CONNS_NUM));
		j_u64("chid", get(tb, SMC_NLA_LGR_D_CHID));
		j_u64("gid", get(tb, SMC_NLA_LGR_D_GID));
		j_u64("peer_gid", get(tb, SMC_NLA_LGR_D_PEER_GID));
		j_u64("gid_ext", get(tb, SMC_NLA_LGR_D_EXT_GID));
		j_u64("peer_gid_ext", get(tb, SMC_NLA_LGR_D_PEER_EXT_GID));
		j_str("pnetid", attr_str(tb[SMC_NLA_LGR_D_PNETID]));
		j_u64("version", get(c, SMC_NLA_LGR_V2_VER));
		j_u64("release", get(c, SMC_NLA_LGR_V2_REL));
		j_u64("peer_os", get(c, SMC_NLA_LGR_V2_OS));
		j_str("peer_host", attr_str(c[SMC_NLA_LGR_V2_PEER_HOST]));
		j_str("eid", attr_str(c[SMC_NLA_LGR_V2_NEG_EID]));
		j_u64("sndbuf_alloc", get(tb, SMC_NLA_LGR_D_SNDBUF_ALLOC));
		j_u64("dmb_alloc", get(tb, SMC_NLA_LGR_D_DMB_ALLOC));
		j_close('}');
		return;
	}
	printf("smcd lgr %" PRIx64 " conns %" PRIu64 " chid %04" PRIx64
	       " gid %016" PRIx64 " peer %016" PRIx64 " dmbs %" PRIu64
	       " peer \"%s\"\n",
	       get(tb, SMC_NLA_LGR_D_ID), get(tb, SMC_NLA_LGR_D_CONNS_NUM),
	       get(tb, SMC_NLA_LGR_D_CHID), get(tb, SMC_NLA_LGR_D_GID),
	       get(tb, SMC_NLA_LGR_D_PEER_GID),
	       get(tb, SMC_NLA_LGR_D_DMB_ALLOC),
	       attr_str(c[SMC_NLA_LGR_V2_PEER_HOST]));
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

static int do_lgr(int argc, char **argv)
{
	(void)argv;
	if (argc)
		return usage();
	list_begin("lgrs");
	genl_dump(SMC_NETLINK_GET_LINK_SMCR, lgr_cb, NULL, "lgr");
	lgr_close();
	genl_dump(SMC_NETLINK_GET_LGR_SMCD, lgr_cb, NULL, "lgr");
	list_end();
	return 0;
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

static int do_hs(int argc, char **argv)
{
	bool on;

	if (argc > 1)
		return usage();
	if (argc && strcmp(argv[0], "on") && strcmp(argv[0], "off"))
		return usage();
	open_genl(SMC_GENL_FAMILY_NAME);
	if (argc) {
		on = !strcmp(argv[0], "on");
		genl_send(genl_cmd(on ? SMC_NETLINK_ENABLE_HS_LIMITATION :
					SMC_NETLINK_DISABLE_HS_LIMITATION),
			  "hs");
	}
	doc_begin('{');
	genl_dump(SMC_NETLINK_DUMP_HS_LIMITATION, hs_cb, NULL, "hs");
	doc_end('}');
	return 0;
}

/* ---- stats ---- */

/* Output names: the uAPI attribute names without prefix, lowercase */
struct stat_name {
	int type;
	const char *name;
};

static const struct stat_name techs[] = {
	{ SMC_NLA_STATS_SMCR_TECH,	"smcr" },
	{ SMC_NLA_STATS_SMCD_TECH,	"smcd" },
};

static const struct stat_name tech_counters[] = {
	{ SMC_NLA_STATS_T_CLNT_V1_SUCC,	"clnt_v1_succ" },
	{ SMC_NLA_STATS_T_CLNT_V2_SUCC,	"clnt_v2_succ" },
	{ SMC_NLA_STATS_T_SRV_V1_SUCC,	"srv_v1_succ" },
	{ SMC_NLA_STATS_T_SRV_V2_SUCC,	"srv_v2_succ" },
	{ SMC_NLA_STATS_T_RX_BYTES,	"rx_bytes" },
	{ SMC_NLA_STATS_T_TX_BYTES,	"tx_bytes" },
	{ SMC_NLA_STATS_T_RX_CNT,	"rx_cnt" },
	{ SMC_NLA_STATS_T_TX_CNT,	"tx_cnt" },
	{ SMC_NLA_STATS_T_RX_RMB_USAGE,	"rx_rmb_usage" },
	{ SMC_NLA_STATS_T_TX_RMB_USAGE,	"tx_rmb_usage" },
	{ SMC_NLA_STATS_T_SENDPAGE_CNT,	"sendpage_cnt" },
	{ SMC_NLA_STATS_T_SPLICE_CNT,	"splice_cnt" },
	{ SMC_NLA_STATS_T_CORK_CNT,	"cork_cnt" },
	{ SMC_NLA_STATS_T_NDLY_CNT,	"ndly_cnt" },
	{ SMC_NLA_STATS_T_URG_DATA_CNT,	"urg_data_cnt" },
};

static const struct stat_name buckets[] = {
	{ SMC_NLA_STATS_PLOAD_8K,	"8k" },
	{ SMC_NLA_STATS_PLOAD_16K,	"16k" },
	{ SMC_NLA_STATS_PLOAD_32K,	"32k" },
	{ SMC_NLA_STATS_PLOAD_64K,	"64k" },
	{ SMC_NLA_STATS_PLOAD_128K,	"128k" },
	{ SMC_NLA_STATS_PLOAD_256K,	"256k" },
	{ SMC_NLA_STATS_PLOAD_512K,	"512k" },
	{ SMC_NLA_STATS_PLOAD_1024K,	"1024k" },
	{ SMC_NLA_STATS_PLOAD_G_1024K,	"g_1024k" },
};

static const struct stat_name rmb_counters[] = {
	{ SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT,	"size_sm_peer_cnt" },
	{ SMC_NLA_STATS_RMB_SIZE_SM_CNT,	"size_sm_cnt" },
	{ SMC_NLA_STATS_RMB_FULL_PEER_CNT,	"full_peer_cnt" },
	{ SMC_NLA_STATS_RMB_FULL_CNT,		"full_cnt" },
	{ SMC_NLA_STATS_RMB_REUSE_CNT,		"reuse_cnt" },
	{ SMC_NLA_STATS_RMB_ALLOC_CNT,		"alloc_cnt" },
	{ SMC_NLA_STATS_RMB_DGRADE_CNT,		"dgrade_cnt" },
};

/* The nests of a technology and the names of their members */
struct stat_group {
	int type;
	const char *name;
	const struct stat_name *members;
	unsigned int n;
};

static const struct stat_group tech_groups[] = {
	{ SMC_NLA_STATS_T_TX_RMB_SIZE, "tx_rmb_size",
	  buckets, ARRAY_SIZE(buckets) },
	{ SMC_NLA_STATS_T_RX_RMB_SIZE, "rx_rmb_size",
	  buckets, ARRAY_SIZE(buckets) },
	{ SMC_NLA_STATS_T_TXPLOAD_SIZE, "txpload_size",
	  buckets, ARRAY_SIZE(buckets) },
	{ SMC_NLA_STATS_T_RXPLOAD_SIZE, "rxpload_size",
	  buckets, ARRAY_SIZE(buckets) },
	{ SMC_NLA_STATS_T_TX_RMB_STATS, "tx_rmb_stats",
	  rmb_counters, ARRAY_SIZE(rmb_counters) },
	{ SMC_NLA_STATS_T_RX_RMB_STATS, "rx_rmb_stats",
	  rmb_counters, ARRAY_SIZE(rmb_counters) },
};

/* Values by attribute type; what the kernel left out reads 0 */
struct tech_stats {
	uint64_t cnt[NEST_MAX];
	uint64_t sub[NEST_MAX][NEST_MAX];
};

struct fback_ent {
	uint32_t reason;
	uint64_t count;
};

struct fback_dir {
	struct fback_ent *ent;
	size_t n;
};

struct stats {
	struct tech_stats tech[SMC_NLA_STATS_MAX + 1];	/* by *_TECH */
	uint64_t clnt_hs_err_cnt;
	uint64_t srv_hs_err_cnt;
	uint64_t srv_cnt;			/* fallbacks */
	uint64_t clnt_cnt;
	struct fback_dir dir[2];		/* 0 client, 1 server */
};

static void tech_parse(const struct nlattr *nest, struct tech_stats *t)
{
	const struct nlattr *tb[NEST_MAX], *sub[NEST_MAX];
	unsigned int i, k;
	int type;

	parse_nest(nest, tb);
	for (i = 0; i < ARRAY_SIZE(tech_counters); i++) {
		type = tech_counters[i].type;
		t->cnt[type] = get(tb, type);
	}
	for (i = 0; i < ARRAY_SIZE(tech_groups); i++) {
		type = tech_groups[i].type;
		parse_nest(tb[type], sub);
		for (k = 1; k < NEST_MAX; k++)
			t->sub[type][k] = get(sub, k);
	}
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *top[NEST_MAX], *tb[NEST_MAX];
	struct stats *st = data;
	unsigned int i;

	parse_msg(nlh, top);
	if (!top[SMC_GEN_STATS])
		return MNL_CB_OK;
	parse_nest(top[SMC_GEN_STATS], tb);
	for (i = 0; i < ARRAY_SIZE(techs); i++)
		tech_parse(tb[techs[i].type], &st->tech[techs[i].type]);
	st->clnt_hs_err_cnt = get(tb, SMC_NLA_STATS_CLNT_HS_ERR_CNT);
	st->srv_hs_err_cnt = get(tb, SMC_NLA_STATS_SRV_HS_ERR_CNT);
	return MNL_CB_OK;
}

static void fback_add(struct fback_dir *d, uint32_t reason, uint64_t count)
{
	struct fback_ent *e;

	e = realloc(d->ent, (d->n + 1) * sizeof(*e));
	if (!e)
		fail("stats");
	d->ent = e;
	d->ent[d->n].reason = reason;
	d->ent[d->n].count = count;
	d->n++;
}

/* One message per used slot; the totals come with the first one */
static int fback_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *top[NEST_MAX], *tb[NEST_MAX];
	struct stats *st = data;

	parse_msg(nlh, top);
	if (!top[SMC_GEN_FBACK_STATS])
		return MNL_CB_OK;
	parse_nest(top[SMC_GEN_FBACK_STATS], tb);
	if (tb[SMC_NLA_FBACK_STATS_SRV_CNT])
		st->srv_cnt = get(tb, SMC_NLA_FBACK_STATS_SRV_CNT);
	if (tb[SMC_NLA_FBACK_STATS_CLNT_CNT])
		st->clnt_cnt = get(tb, SMC_NLA_FBACK_STATS_CLNT_CNT);
	if (tb[SMC_NLA_FBACK_STATS_RSN_CODE])
		fback_add(&st->dir[!!get(tb, SMC_NLA_FBACK_STATS_TYPE)],
			  get(tb, SMC_NLA_FBACK_STATS_RSN_CODE),
			  get(tb, SMC_NLA_FBACK_STATS_RSN_CNT));
	return MNL_CB_OK;
}

static void group_show(const struct stat_group *g, const uint64_t *v)
{
	unsigned int i;

	if (json) {
		j_open(g->name, '{');
		for (i = 0; i < g->n; i++)
			j_u64(g->members[i].name, v[g->members[i].type]);
		j_close('}');
		return;
	}
	printf("  %s", g->name);
	for (i = 0; i < g->n; i++)
		printf(" %s %" PRIu64, g->members[i].name,
		       v[g->members[i].type]);
	putchar('\n');
}

static void tech_show(const char *name, const struct tech_stats *t)
{
	const struct stat_name *c;
	unsigned int i;

	if (json)
		j_open(name, '{');
	else
		printf("%s:\n", name);
	for (i = 0; i < ARRAY_SIZE(tech_counters); i++) {
		c = &tech_counters[i];
		if (json)
			j_u64(c->name, t->cnt[c->type]);
		else
			printf("  %s %" PRIu64 "\n", c->name, t->cnt[c->type]);
	}
	for (i = 0; i < ARRAY_SIZE(tech_groups); i++)
		group_show(&tech_groups[i], t->sub[tech_groups[i].type]);
	if (json)
		j_close('}');
}

static void fback_dir_show(const char *name, const struct fback_dir *d)
{
	size_t i;

	if (json)
		j_open(name, '[');
	for (i = 0; i < d->n; i++) {
		if (!json) {
			printf("  %s 0x%08" PRIx32 " %" PRIu64 "\n", name,
			       d->ent[i].reason, d->ent[i].count);
			continue;
		}
		j_open(NULL, '{');
		j_hex32("reason", d->ent[i].reason);
		j_u64("count", d->ent[i].count);
		j_close('}');
	}
	if (json)
		j_close(']');
}

static void fback_show(const struct stats *st)
{
	if (json) {
		j_open("fallback", '{');
		j_u64("srv_cnt", st->srv_cnt);
		j_u64("clnt_cnt", st->clnt_cnt);
	} else {
		printf("fallback srv_cnt %" PRIu64 " clnt_cnt %" PRIu64 "\n",
		       st->srv_cnt, st->clnt_cnt);
	}
	fback_dir_show("server", &st->dir[1]);
	fback_dir_show("client", &st->dir[0]);
	if (json)
		j_close('}');
}

static void stats_show(const struct stats *st)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(techs); i++)
		tech_show(techs[i].name, &st->tech[techs[i].type]);
	if (json) {
		j_u64("clnt_hs_err_cnt", st->clnt_hs_err_cnt);
		j_u64("srv_hs_err_cnt", st->srv_hs_err_cnt);
		return;
	}
	printf("clnt_hs_err_cnt %" PRIu64 "\nsrv_hs_err_cnt %" PRIu64 "\n",
	       st->clnt_hs_err_cnt, st->srv_hs_err_cnt);
}

static int do_stats(int argc, char **argv)
{
	static struct stats st;
	bool all = true;

	if (argc > 1)
		return usage();
	if (argc && !strcmp(argv[0], "fallback"))
		all = false;
	else if (argc && strcmp(argv[0], "show"))
		return usage();
	open_genl(SMC_GENL_FAMILY_NAME);
	if (all)
		genl_dump(SMC_NETLINK_GET_STATS, stats_cb, &st, "stats");
	genl_dump(SMC_NETLINK_GET_FBACK_STATS, fback_cb, &st, "stats");
	doc_begin('{');
	if (all)
		stats_show(&st);
	fback_show(&st);
	doc_end('}');
	free(st.dir[0].ent);
	free(st.dir[1].ent);
	return 0;
}

/* ---- sock ---- */

#define EXT_BIT(t)	(1 << ((t) - 1))
#define SOCK_EXT_ALL	(EXT_BIT(SMC_DIAG_CONNINFO) |			\
			 EXT_BIT(SMC_DIAG_LGRINFO) |			\
			 EXT_BIT(SMC_DIAG_SHUTDOWN) |			\
			 EXT_BIT(SMC_DIAG_DMBINFO) |			\
			 EXT_BIT(SMC_DIAG_FALLBACK))

/* The 6.1 layout ends before the extended GIDs */
#define DMBINFO_MIN	offsetof(struct smcd_diag_dmbinfo, peer_gid_ext)

/* SMC socket states, as sock_diag reports them */
#define SK_INIT		2
#define SK_LISTEN	10

static const char *const sk_states[] = {
	[1]	= "ACTIVE",
	[2]	= "INIT",
	[7]	= "CLOSED",
	[10]	= "LISTEN",
	[20]	= "PEERCLOSEWAIT1",
	[21]	= "PEERCLOSEWAIT2",
	[22]	= "APPCLOSEWAIT1",
	[23]	= "APPCLOSEWAIT2",
	[24]	= "APPFINCLOSEWAIT",
	[25]	= "PEERFINCLOSEWAIT",
	[26]	= "PEERABORTWAIT",
	[27]	= "PROCESSABORT",
};

struct sock_info {
	struct smc_diag_msg msg;
	struct smc_diag_conninfo conn;
	struct smc_diag_lgrinfo lgr;
	struct smcd_diag_dmbinfo dmb;
	struct smc_diag_fallback fb;
	uint8_t shutdown;
	bool has_conn, has_lgr, has_dmb, has_dmb_ext, has_fb, has_shut;
	char state[20];
	char laddr[INET6_ADDRSTRLEN], raddr[INET6_ADDRSTRLEN];
	bool v6;
};

/* Copy @a into @dst if it has at least @min bytes; a longer one is cut */
static bool ext_copy(const struct nlattr *a, void *dst, size_t size,
		     size_t min)
{
	size_t len;

	if (!a)
		return false;
	len = mnl_attr_get_payload_len(a);
	if (len < min)
		return false;
	memcpy(dst, mnl_attr_get_payload(a), len < size ? len : size);
	return true;
}

static void sock_exts(const struct nlattr **tb, struct sock_info *s)
{
	const struct nlattr *dmb = tb[SMC_DIAG_DMBINFO];

	s->has_conn = ext_copy(tb[SMC_DIAG_CONNINFO], &s->conn,
			       sizeof(s->conn), sizeof(s->conn));
	s->has_lgr = ext_copy(tb[SMC_DIAG_LGRINFO], &s->lgr,
			      sizeof(s->lgr), sizeof(s->lgr));
	s->has_dmb = ext_copy(dmb, &s->dmb, sizeof(s->dmb), DMBINFO_MIN);
	s->has_dmb_ext = s->has_dmb &&
			 mnl_attr_get_payload_len(dmb) >= sizeof(s->dmb);
	s->has_fb = ext_copy(tb[SMC_DIAG_FALLBACK], &s->fb, sizeof(s->fb),
			     sizeof(s->fb));
	s->has_shut = ext_copy(tb[SMC_DIAG_SHUTDOWN], &s->shutdown,
			       sizeof(s->shutdown), sizeof(s->shutdown));
	/* the link's strings are fixed arrays: keep them terminated */
	s->lgr.lnk[0].ibname[sizeof(s->lgr.lnk[0].ibname) - 1] = 0;
	s->lgr.lnk[0].gid[sizeof(s->lgr.lnk[0].gid) - 1] = 0;
	s->lgr.lnk[0].peer_gid[sizeof(s->lgr.lnk[0].peer_gid) - 1] = 0;
}

/* The family of the addresses: IPv4 ones leave words 1 to 3 zero */
static bool sock_is_v6(const struct smc_diag_msg *m)
{
	const __be32 *s = m->id.idiag_src, *d = m->id.idiag_dst;

	if (m->diag_family == AF_INET || m->diag_family == AF_INET6)
		return m->diag_family == AF_INET6;
	return s[1] || s[2] || s[3] || d[1] || d[2] || d[3];
}

static void sock_names(struct sock_info *s)
{
	const struct smc_diag_msg *m = &s->msg;
	int af;

	if (m->diag_state < ARRAY_SIZE(sk_states) && sk_states[m->diag_state])
		snprintf(s->state, sizeof(s->state), "%s",
			 sk_states[m->diag_state]);
	else
		snprintf(s->state, sizeof(s->state), "%u", m->diag_state);
	s->v6 = sock_is_v6(m);
	af = s->v6 ? AF_INET6 : AF_INET;
	if (!inet_ntop(af, m->id.idiag_src, s->laddr, sizeof(s->laddr)))
		snprintf(s->laddr, sizeof(s->laddr), "?");
	if (!inet_ntop(af, m->id.idiag_dst, s->raddr, sizeof(s->raddr)))
		snprintf(s->raddr, sizeof(s->raddr), "?");
}

/* smcr, smcd, fallback, or none for a socket not connected yet */
static const char *sock_path(const struct sock_info *s)
{
	if (s->msg.diag_mode == SMC_DIAG_MODE_FALLBACK_TCP)
		return "fallback";
	if (s->msg.diag_mode == SMC_DIAG_MODE_SMCD || s->has_dmb)
		return "smcd";
	if (s->msg.diag_state == SK_INIT || s->msg.diag_state == SK_LISTEN)
		return "none";
	return "smcr";
}

static const char *path_text(const char *path)
{
	if (!strcmp(path, "fallback"))
		return "TCP";
	if (!strcmp(path, "smcd"))
		return "SMC-D";
	if (!strcmp(path, "smcr"))
		return "SMC-R";
	return "-";
}

static void cursor_json(const char *key, const struct smc_diag_cursor *c)
{
	j_open(key, '{');
	j_u64("wrap", c->wrap);
	j_u64("count", c->count);
	j_close('}');
}

static void conn_json(const struct smc_diag_conninfo *c)
{
	j_open("conn", '{');
	j_u64("token", c->token);
	j_u64("sndbuf_size", c->sndbuf_size);
	j_u64("rmbe_size", c->rmbe_size);
	j_u64("peer_rmbe_size", c->peer_rmbe_size);
	cursor_json("rx_prod", &c->rx_prod);
	cursor_json("rx_cons", &c->rx_cons);
	cursor_json("tx_prod", &c->tx_prod);
	cursor_json("tx_cons", &c->tx_cons);
	j_u64("rx_prod_flags", c->rx_prod_flags);
	j_u64("rx_conn_state_flags", c->rx_conn_state_flags);
	j_u64("tx_prod_flags", c->tx_prod_flags);
	j_u64("tx_conn_state_flags", c->tx_conn_state_flags);
	cursor_json("tx_prep", &c->tx_prep);
	cursor_json("tx_sent", &c->tx_sent);
	cursor_json("tx_fin", &c->tx_fin);
	j_close('}');
}

static void lgr_json(const struct smc_diag_lgrinfo *l)
{
	j_open("lgr", '{');
	j_str("role", l->role ? "server" : "client");
	j_u64("link_id", l->lnk[0].link_id);
	j_str("ibname", (const char *)l->lnk[0].ibname);
	j_u64("ibport", l->lnk[0].ibport);
	j_str("gid", (const char *)l->lnk[0].gid);
	j_str("peer_gid", (const char *)l->lnk[0].peer_gid);
	j_close('}');
}

static void dmb_json(const struct sock_info *s)
{
	const struct smcd_diag_dmbinfo *d = &s->dmb;

	j_open("dmb", '{');
	j_u64("linkid", d->linkid);
	j_u64("my_gid", d->my_gid);
	j_u64("peer_gid", d->peer_gid);
	j_u64("token", d->token);
	j_u64("peer_token", d->peer_token);
	if (s->has_dmb_ext) {
		j_u64("my_gid_ext", d->my_gid_ext);
		j_u64("peer_gid_ext", d->peer_gid_ext);
	}
	j_close('}');
}

static void sock_json(const struct sock_info *s)
{
	const struct smc_diag_msg *m = &s->msg;

	j_open(NULL, '{');
	j_str("state", s->state);
	j_str("local_addr", s->laddr);
	j_u64("local_port", ntohs(m->id.idiag_sport));
	j_str("peer_addr", s->raddr);
	j_u64("peer_port", ntohs(m->id.idiag_dport));
	j_u64("ifindex", m->id.idiag_if);
	j_u64("uid", m->diag_uid);
	j_u64("inode", m->diag_inode);
	j_str("path", sock_path(s));
	j_u64("diag_mode", m->diag_mode);
	if (s->has_shut)
		j_u64("shutdown", s->shutdown);
	if (s->has_fb) {
		j_hex32("fallback_reason", s->fb.reason);
		j_hex32("peer_diagnosis", s->fb.peer_diagnosis);
	}
	if (s->has_conn)
		conn_json(&s->conn);
	if (s->has_lgr)
		lgr_json(&s->lgr);
	if (s->has_dmb)
		dmb_json(s);
	j_close('}');
}

static void cursor_text(const char *name, const struct smc_diag_cursor *c)
{
	printf(" %s %u:%u", name, c->wrap, c->count);
}

static void conn_text(const struct smc_diag_conninfo *c)
{
	printf("    token 0x%08x sndbuf %u rmbe %u peer_rmbe %u\n   ",
	       c->token, c->sndbuf_size, c->rmbe_size, c->peer_rmbe_size);
	cursor_text("rx_prod", &c->rx_prod);
	cursor_text("rx_cons", &c->rx_cons);
	cursor_text("tx_prod", &c->tx_prod);
	cursor_text("tx_cons", &c->tx_cons);
	printf("\n   ");
	cursor_text("tx_prep", &c->tx_prep);
	cursor_text("tx_sent", &c->tx_sent);
	cursor_text("tx_fin", &c->tx_fin);
	printf(" flags rx %02x:%02x tx %02x:%02x\n", c->rx_prod_flags,
	       c->rx_conn_state_flags, c->tx_prod_flags,
	       c->tx_conn_state_flags);
}

static void lgr_text(const struct smc_diag_lgrinfo *l)
{
	printf("    %s link %u dev %s port %u gid %s peer %s\n",
	       l->role ? "server" : "client", l->lnk[0].link_id,
	       (const char *)l->lnk[0].ibname, l->lnk[0].ibport,
	       (const char *)l->lnk[0].gid, (const char *)l->lnk[0].peer_gid);
}

static void dmb_text(const struct smcd_diag_dmbinfo *d)
{
	printf("    lgr %x gid %016" PRIx64 " peer %016" PRIx64
	       " token %016" PRIx64 " peer_token %016" PRIx64 "\n",
	       d->linkid, (uint64_t)d->my_gid, (uint64_t)d->peer_gid,
	       (uint64_t)d->token, (uint64_t)d->peer_token);
}

/* ADDR:PORT, [ADDR]:PORT for IPv6 */
static void addr_port(char *buf, size_t size, bool v6, const char *addr,
		      __be16 port)
{
	if (v6)
		snprintf(buf, size, "[%s]:%u", addr, ntohs(port));
	else
		snprintf(buf, size, "%s:%u", addr, ntohs(port));
}

static void sock_text(const struct sock_info *s)
{
	char l[INET6_ADDRSTRLEN + 8], r[INET6_ADDRSTRLEN + 8];
	const struct smc_diag_msg *m = &s->msg;
	const char *path = sock_path(s);

	addr_port(l, sizeof(l), s->v6, s->laddr, m->id.idiag_sport);
	addr_port(r, sizeof(r), s->v6, s->raddr, m->id.idiag_dport);
	printf("%-16s %-21s %-21s uid %u inode %" PRIu64 " %s", s->state,
	       l, r, m->diag_uid, (uint64_t)m->diag_inode, path_text(path));
	if (s->has_fb && !strcmp(path, "fallback"))
		printf(" reason 0x%08x peer 0x%08x", s->fb.reason,
		       s->fb.peer_diagnosis);
	if (s->has_shut && (s->shutdown & 3))
		printf(" shutdown %s%s", s->shutdown & 1 ? "r" : "",
		       s->shutdown & 2 ? "w" : "");
	putchar('\n');
	if (s->has_conn)
		conn_text(&s->conn);
	if (s->has_lgr)
		lgr_text(&s->lgr);
	if (s->has_dmb)
		dmb_text(&s->dmb);
}

static int sock_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NEST_MAX];
	struct sock_info s;

	(void)data;
	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(s.msg))
		return MNL_CB_OK;
	memset(&s, 0, sizeof(s));
	memcpy(&s.msg, mnl_nlmsg_get_payload(nlh), sizeof(s.msg));
	memset(tb, 0, sizeof(tb));
	mnl_attr_parse(nlh, sizeof(s.msg), parse_cb, tb);
	sock_exts(tb, &s);
	sock_names(&s);
	if (json)
		sock_json(&s);
	else
		sock_text(&s);
	return MNL_CB_OK;
}

static int do_sock(int argc, char **argv)
{
	struct smc_diag_req *req;
	struct nlmsghdr *nlh;

	(void)argv;
	if (argc)
		return usage();
	nl_open(NETLINK_SOCK_DIAG);
	nlh = nl_req(SOCK_DIAG_BY_FAMILY, NLM_F_DUMP);
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->diag_family = AF_SMC;
	req->diag_ext = SOCK_EXT_ALL;
	doc_begin('[');
	if (nl_run(nlh, sock_cb, NULL) < 0) {
		if (errno != ENOENT)
			fail("sock");
		fprintf(stderr, "smc: sock: no sock_diag for AF_SMC: %s\n",
			"is the smc module loaded?");
		exit(1);
	}
	doc_end(']');
	return 0;
}

/* ---- pnet ---- */

static int pnet_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NEST_MAX];
	const char *want = data;
	const char *name;

	parse_msg(nlh, tb);
	if (!tb[SMC_PNETID_NAME])
		return MNL_CB_OK;
	name = attr_str(tb[SMC_PNETID_NAME]);
	if (want && strcasecmp(name, want))
		return MNL_CB_OK;
	if (json) {
		j_open(NULL, '{');
		j_str("name", name);
		j_str("ethname", attr_str(tb[SMC_PNETID_ETHNAME]));
		j_str("ibname", attr_str(tb[SMC_PNETID_IBNAME]));
		j_u64("ibport", get(tb, SMC_PNETID_IBPORT));
		j_close('}');
		return MNL_CB_OK;
	}
	printf("%-16s %-15s %-15s %" PRIu64 "\n", name,
	       attr_str(tb[SMC_PNETID_ETHNAME]),
	       attr_str(tb[SMC_PNETID_IBNAME]), get(tb, SMC_PNETID_IBPORT));
	return MNL_CB_OK;
}

static int pnet_show(const char *name)
{
	doc_begin('[');
	genl_dump(SMC_PNETID_GET, pnet_cb, (void *)name, "pnet show");
	doc_end(']');
	return 0;
}

static bool parse_u8(const char *s, uint8_t *v)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (errno || end == s || *end || n > 255 || *s == '-')
		return false;
	*v = n;
	return true;
}

/* add NAME { dev IFNAME | ib IBDEV [ port N ] } */
static int pnet_add(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	uint8_t port = 0;
	bool dev;

	if (argc != 3 && argc != 5)
		return usage();
	dev = argc == 3 && !strcmp(argv[1], "dev");
	if (!dev && strcmp(argv[1], "ib"))
		return usage();
	if (argc == 5 &&
	    (strcmp(argv[3], "port") || !parse_u8(argv[4], &port)))
		return usage();
	open_genl(SMCR_GENL_FAMILY_NAME);
	nlh = genl_cmd(SMC_PNETID_ADD);
	put_str(nlh, SMC_PNETID_NAME, argv[0]);
	if (dev) {
		put_str(nlh, SMC_PNETID_ETHNAME, argv[2]);
	} else {
		put_str(nlh, SMC_PNETID_IBNAME, argv[2]);
		if (argc == 5)
			mnl_attr_put_u8(nlh, SMC_PNETID_IBPORT, port);
	}
	genl_send(nlh, "pnet add");
	return 0;
}

static int do_pnet(int argc, char **argv)
{
	const char *cmd = argc ? argv[0] : "show";
	struct nlmsghdr *nlh;

	if (!strcmp(cmd, "add"))
		return pnet_add(argc - 1, argv + 1);
	if (!strcmp(cmd, "show") && argc <= 2) {
		open_genl(SMCR_GENL_FAMILY_NAME);
		return pnet_show(argc == 2 ? argv[1] : NULL);
	}
	if (!strcmp(cmd, "del") && argc == 2) {
		open_genl(SMCR_GENL_FAMILY_NAME);
		nlh = genl_cmd(SMC_PNETID_DEL);
		put_str(nlh, SMC_PNETID_NAME, argv[1]);
		genl_send(nlh, "pnet del");
		return 0;
	}
	if (!strcmp(cmd, "flush") && argc == 1) {
		open_genl(SMCR_GENL_FAMILY_NAME);
		/* older kernels answer ENOENT for an empty table */
		if (nl_run(genl_cmd(SMC_PNETID_FLUSH), NULL, NULL) < 0 &&
		    errno != ENOENT)
			fail("pnet flush");
		return 0;
	}
	return usage();
}

/* ---- ueid, seid ---- */

static int ueid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NEST_MAX];
	char eid[SMC_MAX_EID_LEN + 1];
	size_t len;

	(void)data;
	parse_msg(nlh, tb);
	if (!tb[SMC_NLA_EID_TABLE_ENTRY])
		return MNL_CB_OK;
	snprintf(eid, sizeof(eid), "%s", attr_str(tb[SMC_NLA_EID_TABLE_ENTRY]));
	/* entries are blank padded to 32 characters */
	len = strlen(eid);
	while (len && eid[len - 1] == ' ')
		eid[--len] = '\0';
	if (json)
		j_str(NULL, eid);
	else
		printf("%s\n", eid);
	return MNL_CB_OK;
}

/* ADD or REMOVE: the EID as typed, blank padded to 32 chars, a NUL */
static struct nlmsghdr *ueid_req(uint8_t cmd, const char *eid)
{
	char entry[SMC_MAX_EID_LEN + 1];
	size_t len = strlen(eid);
	struct nlmsghdr *nlh;

	if (len > SMC_MAX_EID_LEN) {
		fprintf(stderr, "smc: ueid: \"%s\" is longer than %d chars\n",
			eid, SMC_MAX_EID_LEN);
		exit(1);
	}
	memset(entry, ' ', SMC_MAX_EID_LEN);
	memcpy(entry, eid, len);
	entry[SMC_MAX_EID_LEN] = '\0';
	open_genl(SMC_GENL_FAMILY_NAME);
	nlh = genl_cmd(cmd);
	mnl_attr_put(nlh, SMC_NLA_EID_TABLE_ENTRY, sizeof(entry), entry);
	return nlh;
}

static int ueid_del(const char *eid)
{
	if (nl_run(ueid_req(SMC_NETLINK_REMOVE_UEID, eid), NULL, NULL) >= 0)
		return 0;
	/* s390: removed, and the system EID is in use again */
	if (errno != EAGAIN)
		fail("ueid del");
	fprintf(stderr, "smc: ueid del: %s\n",
		"the last user EID is gone, the system EID is in use again");
	return 0;
}

static int do_ueid(int argc, char **argv)
{
	const char *cmd = argc ? argv[0] : "show";

	if (!strcmp(cmd, "show") && argc <= 1) {
		open_genl(SMC_GENL_FAMILY_NAME);
		doc_begin('[');
		genl_dump(SMC_NETLINK_DUMP_UEID, ueid_cb, NULL, "ueid show");
		doc_end(']');
		return 0;
	}
	if (!strcmp(cmd, "add") && argc == 2) {
		genl_send(ueid_req(SMC_NETLINK_ADD_UEID, argv[1]), "ueid add");
		return 0;
	}
	if (!strcmp(cmd, "del") && argc == 2)
		return ueid_del(argv[1]);
	if (!strcmp(cmd, "flush") && argc == 1) {
		open_genl(SMC_GENL_FAMILY_NAME);
		genl_send(genl_cmd(SMC_NETLINK_FLUSH_UEID), "ueid flush");
		return 0;
	}
	return usage();
}

/* Both attributes are left out without an ISMv2-capable device */
static int seid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NEST_MAX];
	const char *seid;
	uint64_t on;

	(void)data;
	parse_msg(nlh, tb);
	seid = attr_str(tb[SMC_NLA_SEID_ENTRY]);
	on = get(tb, SMC_NLA_SEID_ENABLED);
	if (!tb[SMC_NLA_SEID_ENTRY] || !tb[SMC_NLA_SEID_ENABLED]) {
		if (json)
			j_u64("available", 0);
		else
			printf("seid n/a\n");
		return MNL_CB_OK;
	}
	if (json) {
		j_u64("available", 1);
		j_str("seid", seid);
		j_u64("enabled", on);
		return MNL_CB_OK;
	}
	printf("seid \"%s\" %s\n", seid, on ? "enabled" : "disabled");
	return MNL_CB_OK;
}

static int do_seid(int argc, char **argv)
{
	const char *cmd = argc ? argv[0] : "show";

	if (argc > 1)
		return usage();
	if (!strcmp(cmd, "show")) {
		open_genl(SMC_GENL_FAMILY_NAME);
		doc_begin('{');
		genl_dump(SMC_NETLINK_DUMP_SEID, seid_cb, NULL, "seid show");
		doc_end('}');
		return 0;
	}
	if (!strcmp(cmd, "enable")) {
		open_genl(SMC_GENL_FAMILY_NAME);
		genl_send(genl_cmd(SMC_NETLINK_ENABLE_SEID), "seid enable");
		return 0;
	}
	if (!strcmp(cmd, "disable")) {
		open_genl(SMC_GENL_FAMILY_NAME);
		genl_send(genl_cmd(SMC_NETLINK_DISABLE_SEID), "seid disable");
		return 0;
	}
	return usage();
}

/* ---- main ---- */

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);	/* the arguments after it */
} objects[] = {
	{ "info",	do_info },
	{ "dev",	do_dev },
	{ "lgr",	do_lgr },
	{ "hs",		do_hs },
	{ "stats",	do_stats },
	{ "sock",	do_sock },
	{ "pnet",	do_pnet },
	{ "ueid",	do_ueid },
	{ "seid",	do_seid },
};

int main(int argc, char **argv)
{
	unsigned int i;
	int a, rc;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-j") || !strcmp(argv[a], "--json"))
			json = true;
		else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
			return help();
		else
			return usage();
	}
	if (a == argc)
		return usage();
	if (!strcmp(argv[a], "help"))
		return help();
	first[0] = true;
	for (i = 0; i < ARRAY_SIZE(objects); i++) {
		if (strcmp(argv[a], objects[i].name))
			continue;
		rc = objects[i].run(argc - a - 1, argv + a + 1);
		if (nl)
			mnl_socket_close(nl);
		return rc;
	}
	fprintf(stderr, "smc: unknown object \"%s\"\n", argv[a]);
	return usage();
}
