// SPDX-License-Identifier: GPL-2.0
/*
 * smc_ueid - manage the SMC user-defined EID table through the generic
 * netlink family "SMC_GEN_NETLINK", with plain libc and raw netlink.
 *
 *   smc_ueid add UEID     add a user EID (needs CAP_NET_ADMIN)
 *   smc_ueid del UEID     remove one (needs CAP_NET_ADMIN)
 *   smc_ueid flush        remove all (needs CAP_NET_ADMIN)
 *   smc_ueid [show]       print the table, one EID a line
 *
 * SMC-D v2 (which loopback-ism is) needs both peers to share an EID; off
 * s390 there is no system EID, so without a user EID the server declines
 * with 0x03030008 and the connection falls back to TCP.
 *
 * The kernel takes a UEID of at most 32 characters, first one A-Z or 0-9,
 * the others A-Z, 0-9, '.' or '-', right-padded with blanks to exactly
 * 32 bytes plus a NUL.  Lowercase letters are uppercased here; anything
 * else invalid is refused before asking the kernel.
 *
 * Exit status: 0 ok, 1 error (message on stderr), 2 usage.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* uAPI of SMC_GEN_NETLINK (include/uapi/linux/smc.h) */
#define SMC_GENL_FAMILY_NAME		"SMC_GEN_NETLINK"
#define SMC_GENL_FAMILY_VERSION		1
#define SMC_NETLINK_DUMP_UEID		9
#define SMC_NETLINK_ADD_UEID		10
#define SMC_NETLINK_REMOVE_UEID		11
#define SMC_NETLINK_FLUSH_UEID		12
#define SMC_NLA_EID_TABLE_ENTRY		1
#define SMC_MAX_EID_LEN			32

#define BUF_SIZE			16384

struct nl_req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[256];
};

static int nl_fd = -1;
static uint32_t nl_seq;

static void put_attr(struct nl_req *req, uint16_t type, const void *data,
		     uint16_t len)
{
	struct nlattr *nla = (struct nlattr *)((char *)req +
					       NLMSG_ALIGN(req->nlh.nlmsg_len));

	nla->nla_type = type;
	nla->nla_len = NLA_HDRLEN + len;
	memcpy((char *)nla + NLA_HDRLEN, data, len);
	req->nlh.nlmsg_len = NLMSG_ALIGN(req->nlh.nlmsg_len) +
			     NLA_ALIGN(nla->nla_len);
}

static void init_req(struct nl_req *req, uint16_t family, uint8_t cmd,
		     uint16_t flags)
{
	memset(req, 0, sizeof(*req));
	req->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req->nlh.nlmsg_type = family;
	req->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	req->nlh.nlmsg_seq = ++nl_seq;
	req->genl.cmd = cmd;
	req->genl.version = family == GENL_ID_CTRL ? 1 :
			    SMC_GENL_FAMILY_VERSION;
}

static int nl_send(struct nl_req *req)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(nl_fd, req, req->nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		perror("smc_ueid: sendto");
		return -1;
	}
	return 0;
}

/*
 * Receive the replies to the last request until its ack or NLMSG_DONE.
 * Every data message goes to cb.  Returns 0 or a negative errno.
 */
static int nl_recv(int (*cb)(struct nlmsghdr *nlh, void *arg), void *arg)
{
	static char buf[BUF_SIZE];
	struct nlmsghdr *nlh;
	ssize_t n;
	int rc;

	for (;;) {
		n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, (size_t)n);
		     nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != nl_seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *err = NLMSG_DATA(nlh);

				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*err)))
					return -EPROTO;
				return err->error;
			}
			if (cb) {
				rc = cb(nlh, arg);
				if (rc)
					return rc;
			}
		}
	}
}

static int family_cb(struct nlmsghdr *nlh, void *arg)
{
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	struct nlattr *nla = (struct nlattr *)((char *)NLMSG_DATA(nlh) +
					       GENL_HDRLEN);

	while (len >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= len) {
		if ((nla->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
		    nla->nla_len >= NLA_HDRLEN + sizeof(uint16_t))
			memcpy(arg, (char *)nla + NLA_HDRLEN, sizeof(uint16_t));
		len -= NLA_ALIGN(nla->nla_len);
		nla = (struct nlattr *)((char *)nla + NLA_ALIGN(nla->nla_len));
	}
	return 0;
}

static int resolve_family(uint16_t *id)
{
	struct nl_req req;
	int rc;

	init_req(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	put_attr(&req, CTRL_ATTR_FAMILY_NAME, SMC_GENL_FAMILY_NAME,
		 sizeof(SMC_GENL_FAMILY_NAME));
	*id = 0;
	if (nl_send(&req))
		return -1;
	rc = nl_recv(family_cb, id);
	if (rc == -ENOENT) {
		fprintf(stderr,
			"smc_ueid: no generic netlink family %s (smc module not loaded?)\n",
			SMC_GENL_FAMILY_NAME);
		return -1;
	}
	if (rc || !*id) {
		fprintf(stderr, "smc_ueid: cannot resolve %s: %s\n",
			SMC_GENL_FAMILY_NAME, rc ? strerror(-rc) : "no id");
		return -1;
	}
	return 0;
}

/* Turn the user's string into the 32 blank-padded bytes plus NUL. */
static int format_ueid(const char *in, char out[SMC_MAX_EID_LEN + 1])
{
	size_t len = strlen(in), i;

	while (len && in[len - 1] == ' ')
		len--;
	if (!len || len > SMC_MAX_EID_LEN) {
		fprintf(stderr, "smc_ueid: a UEID has 1 to %d characters\n",
			SMC_MAX_EID_LEN);
		return -1;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = toupper((unsigned char)in[i]);

		if (!(isdigit(c) || (c >= 'A' && c <= 'Z')) &&
		    (i == 0 || (c != '.' && c != '-'))) {
			fprintf(stderr,
				"smc_ueid: invalid character '%c' at %zu: the first must be A-Z or 0-9, the others A-Z, 0-9, '.' or '-'\n",
				in[i], i + 1);
			return -1;
		}
		out[i] = c;
	}
	memset(out + len, ' ', SMC_MAX_EID_LEN - len);
	out[SMC_MAX_EID_LEN] = '\0';
	return 0;
}

static int dump_cb(struct nlmsghdr *nlh, void *arg)
{
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	struct nlattr *nla = (struct nlattr *)((char *)NLMSG_DATA(nlh) +
					       GENL_HDRLEN);
	int *count = arg;

	while (len >= NLA_HDRLEN && nla->nla_len >= NLA_HDRLEN &&
	       nla->nla_len <= len) {
		if ((nla->nla_type & NLA_TYPE_MASK) ==
		    SMC_NLA_EID_TABLE_ENTRY) {
			const char *s = (char *)nla + NLA_HDRLEN;
			int n = strnlen(s, nla->nla_len - NLA_HDRLEN);

			while (n && s[n - 1] == ' ')
				n--;
			printf("%.*s\n", n, s);
			(*count)++;
		}
		len -= NLA_ALIGN(nla->nla_len);
		nla = (struct nlattr *)((char *)nla + NLA_ALIGN(nla->nla_len));
	}
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s add UEID | del UEID | flush | [show]\n"
		"  UEID: up to 32 of A-Z 0-9 . - (not first); lowercase is uppercased\n",
		prog);
}

int main(int argc, char **argv)
{
	char ueid[SMC_MAX_EID_LEN + 1];
	const char *op = argc > 1 ? argv[1] : "show";
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nl_req req;
	uint16_t family;
	int rc, count = 0;
	uint8_t cmd;

	if (!strcmp(op, "add") || !strcmp(op, "del")) {
		if (argc != 3) {
			usage(argv[0]);
			return 2;
		}
		if (format_ueid(argv[2], ueid))
			return 1;
		cmd = op[0] == 'a' ? SMC_NETLINK_ADD_UEID :
				     SMC_NETLINK_REMOVE_UEID;
	} else if (!strcmp(op, "flush") && argc == 2) {
		cmd = SMC_NETLINK_FLUSH_UEID;
	} else if (!strcmp(op, "show") && argc <= 2) {
		cmd = SMC_NETLINK_DUMP_UEID;
	} else {
		usage(argv[0]);
		return 2;
	}

	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl_fd < 0 || bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("smc_ueid: netlink socket");
		return 1;
	}
	if (resolve_family(&family))
		return 1;

	if (cmd == SMC_NETLINK_DUMP_UEID) {
		init_req(&req, family, cmd, NLM_F_DUMP);
		if (nl_send(&req))
			return 1;
		rc = nl_recv(dump_cb, &count);
		if (rc) {
			fprintf(stderr, "smc_ueid: dump: %s\n", strerror(-rc));
			return 1;
		}
		return 0;
	}

	init_req(&req, family, cmd, NLM_F_ACK);
	if (cmd != SMC_NETLINK_FLUSH_UEID)
		put_attr(&req, SMC_NLA_EID_TABLE_ENTRY, ueid, sizeof(ueid));
	if (nl_send(&req))
		return 1;
	rc = nl_recv(NULL, NULL);
	/* s390: the last UEID went and the system EID is back: success */
	if (rc == -EAGAIN && cmd == SMC_NETLINK_REMOVE_UEID)
		rc = 0;
	if (rc) {
		const char *why = strerror(-rc);

		if (rc == -EEXIST)
			why = "already in the table";
		else if (rc == -ERANGE)
			why = "table full (4 entries)";
		else if (rc == -ENOENT && cmd == SMC_NETLINK_REMOVE_UEID)
			why = "not in the table";
		else if (rc == -EPERM)
			why = "needs CAP_NET_ADMIN";
		fprintf(stderr, "smc_ueid: %s: %s\n", op, why);
		return 1;
	}
	return 0;
}
