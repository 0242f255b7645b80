// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SMC sock_diag helpers for the selftests.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/types.h>

#include "smc_diag_util.h"

/* Layouts from the AF_SMC sock_diag interface. */
struct t_sockid {
	uint16_t sport;
	uint16_t dport;
	uint32_t src[4];
	uint32_t dst[4];
	uint32_t ifindex;
	uint32_t cookie[2];
};

struct t_smc_diag_req {
	uint8_t family;
	uint8_t pad[2];
	uint8_t ext;
	struct t_sockid id;
};

struct t_smc_diag_msg {
	uint8_t family;
	uint8_t state;
	uint8_t mode;
	uint8_t shutdown;
	struct t_sockid id;
	uint32_t uid;
	__aligned_u64 inode;
};

#define T_DIAG_CONNINFO		1
#define T_DIAG_LGRINFO		2
#define T_DIAG_SHUTDOWN		3
#define T_DIAG_DMBINFO		4
#define T_DIAG_FALLBACK		5

/* Payload of SMC_DIAG_CONNINFO: 76 bytes, cursors of 8 */
#define T_CONNINFO_LEN		76
#define T_CI_RX_PROD		16
#define T_CI_RX_CONS		24
#define T_CI_TX_PROD		32
#define T_CI_TX_CONS		40
#define T_CI_FLAGS		48
#define T_CI_TX_PREP		52
#define T_CI_TX_SENT		60
#define T_CI_TX_FIN		68

/* Payload of SMC_DIAG_DMBINFO: u32 linkid, then u64s from offset 8 */
#define T_DI_PEER_GID		8
#define T_DI_MY_GID		16
#define T_DI_TOKEN		24
#define T_DI_PEER_TOKEN		32
#define T_DI_PEER_GID_EXT	40
#define T_DI_MY_GID_EXT		48

/* Payload of SMC_DIAG_LGRINFO: one linkinfo of 146 bytes, then role */
#define T_LI_IBNAME		1
#define T_LI_IBPORT		65
#define T_LI_GID		66
#define T_LI_PEER_GID		106
#define T_LI_ROLE		146

__thread int smc_diag_last_datagrams;

static_assert(sizeof(struct t_smc_diag_req) == 52, "smc_diag_req size");
static_assert(sizeof(struct t_smc_diag_msg) == 64, "smc_diag_msg size");

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* u16 reserved, u16 wrap, u32 count */
static void get_curs(const uint8_t *p, struct smc_test_cursor *c)
{
	c->wrap = get16(p + 2);
	c->count = get32(p + 4);
}

static void parse_conninfo(const uint8_t *p, int len,
			   struct smc_sock_info *si)
{
	struct smc_test_conninfo *ci = &si->conn;

	si->conninfo_len = len;
	if (len < T_CONNINFO_LEN)
		return;
	ci->token = get32(p);
	ci->sndbuf_size = get32(p + 4);
	ci->rmbe_size = get32(p + 8);
	ci->peer_rmbe_size = get32(p + 12);
	get_curs(p + T_CI_RX_PROD, &ci->rx_prod);
	get_curs(p + T_CI_RX_CONS, &ci->rx_cons);
	get_curs(p + T_CI_TX_PROD, &ci->tx_prod);
	get_curs(p + T_CI_TX_CONS, &ci->tx_cons);
	ci->rx_prod_flags = p[T_CI_FLAGS];
	ci->rx_conn_state_flags = p[T_CI_FLAGS + 1];
	ci->tx_prod_flags = p[T_CI_FLAGS + 2];
	ci->tx_conn_state_flags = p[T_CI_FLAGS + 3];
	get_curs(p + T_CI_TX_PREP, &ci->tx_prep);
	get_curs(p + T_CI_TX_SENT, &ci->tx_sent);
	get_curs(p + T_CI_TX_FIN, &ci->tx_fin);
}

static void parse_dmbinfo(const uint8_t *p, int len, struct smc_sock_info *si)
{
	struct smc_test_dmbinfo *di = &si->dmb;

	si->dmbinfo_len = len;
	if (len < SMC_TEST_DMBINFO_V1_LEN)
		return;
	di->linkid = get32(p);
	di->peer_gid = get64(p + T_DI_PEER_GID);
	di->my_gid = get64(p + T_DI_MY_GID);
	di->token = get64(p + T_DI_TOKEN);
	di->peer_token = get64(p + T_DI_PEER_TOKEN);
	if (len < SMC_TEST_DMBINFO_LEN)
		return;
	di->peer_gid_ext = get64(p + T_DI_PEER_GID_EXT);
	di->my_gid_ext = get64(p + T_DI_MY_GID_EXT);
}

static void parse_lgrinfo(const uint8_t *p, int len, struct smc_sock_info *si)
{
	struct smc_test_lgrinfo *li = &si->lgr;

	si->lgrinfo_len = len;
	if (len != SMC_TEST_LGRINFO_LEN)
		return;
	li->link_id = p[0];
	memcpy(li->ibname, p + T_LI_IBNAME, 64);
	li->ibport = p[T_LI_IBPORT];
	memcpy(li->gid, p + T_LI_GID, 40);
	memcpy(li->peer_gid, p + T_LI_PEER_GID, 40);
	li->role = p[T_LI_ROLE];
}

static void parse_msg(const struct nlmsghdr *nh, struct smc_sock_info *si)
{
	const struct t_smc_diag_msg *m = NLMSG_DATA(nh);
	const struct rtattr *rta;
	int len;

	memset(si, 0, sizeof(*si));
	si->inode = m->inode;
	si->family = m->family;
	si->state = m->state;
	si->mode = m->mode;
	si->uid = m->uid;
	si->sport = ntohs(m->id.sport);
	si->dport = ntohs(m->id.dport);
	memcpy(si->src, m->id.src, 16);
	memcpy(si->dst, m->id.dst, 16);
	si->shutdown = -1;

	len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	rta = (const struct rtattr *)((const char *)m +
				      NLMSG_ALIGN(sizeof(*m)));
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		const uint8_t *p = RTA_DATA(rta);

		switch (rta->rta_type) {
		case T_DIAG_CONNINFO:
			parse_conninfo(p, RTA_PAYLOAD(rta), si);
			break;
		case T_DIAG_DMBINFO:
			parse_dmbinfo(p, RTA_PAYLOAD(rta), si);
			break;
		case T_DIAG_LGRINFO:
			parse_lgrinfo(p, RTA_PAYLOAD(rta), si);
			break;
		case T_DIAG_SHUTDOWN:
			if (RTA_PAYLOAD(rta) >= 1)
				si->shutdown = p[0];
			break;
		case T_DIAG_FALLBACK:
			if (RTA_PAYLOAD(rta) >= 8) {
				si->has_fallback = 1;
				memcpy(&si->reason, p, 4);
				memcpy(&si->peer_diag, p + 4, 4);
			}
			break;
		}
	}
}

int smc_diag_dump(struct smc_sock_info **out)
{
	return smc_diag_dump_ext(0, out);
}

int smc_diag_dump_ext(unsigned int ext, struct smc_sock_info **out)
{
	struct {
		struct nlmsghdr nh;
		struct t_smc_diag_req req;
	} rq;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct smc_sock_info *arr = NULL;
	size_t n = 0, cap = 0;
	char *buf;
	int fd, err = 0, done = 0;
	const int bufsz = 65536;

	*out = NULL;
	smc_diag_last_datagrams = 0;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	buf = malloc(bufsz);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}

	memset(&rq, 0, sizeof(rq));
	rq.nh.nlmsg_len = sizeof(rq);
	rq.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	rq.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	rq.nh.nlmsg_seq = 4242;
	rq.req.family = AF_SMC;
	rq.req.ext = ext;
	if (sendto(fd, &rq, sizeof(rq), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		err = -errno;
		goto out;
	}

	while (!done) {
		struct nlmsghdr *nh;
		ssize_t len = recv(fd, buf, bufsz, 0);

		if (len < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (len == 0) {
			err = -EPROTO;
			goto out;
		}
		smc_diag_last_datagrams++;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				err = e->error ? e->error : -EPROTO;
				goto out;
			}
			if (nh->nlmsg_type != SOCK_DIAG_BY_FAMILY)
				continue;
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct t_smc_diag_msg)))
				continue;
			if (n == cap) {
				struct smc_sock_info *na;

				cap = cap ? cap * 2 : 64;
				na = realloc(arr, cap * sizeof(*arr));
				if (!na) {
					err = -ENOMEM;
					goto out;
				}
				arr = na;
			}
			parse_msg(nh, &arr[n++]);
		}
	}
out:
	free(buf);
	close(fd);
	if (err) {
		free(arr);
		return err;
	}
	*out = arr;
	return (int)n;
}

int smc_diag_lookup_inode(uint64_t inode, struct smc_sock_info *info)
{
	return smc_diag_lookup_inode_ext(inode, 0, info);
}

int smc_diag_lookup_inode_ext(uint64_t inode, unsigned int ext,
			      struct smc_sock_info *info)
{
	struct smc_sock_info *arr;
	int n, i, rc = -ENOENT;

	n = smc_diag_dump_ext(ext, &arr);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (arr[i].inode == inode) {
			*info = arr[i];
			rc = 0;
			break;
		}
	}
	free(arr);
	return rc;
}

int smc_diag_lookup(int fd, struct smc_sock_info *info)
{
	return smc_diag_lookup_ext(fd, 0, info);
}

int smc_diag_lookup_ext(int fd, unsigned int ext, struct smc_sock_info *info)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return smc_diag_lookup_inode_ext(st.st_ino, ext, info);
}

const char *smc_state_name(int state)
{
	switch (state) {
	case 1: return "ACTIVE";
	case 2: return "INIT";
	case 7: return "CLOSED";
	case 10: return "LISTEN";
	case 20: return "PEERCLOSEWAIT1";
	case 21: return "PEERCLOSEWAIT2";
	case 22: return "APPCLOSEWAIT1";
	case 23: return "APPCLOSEWAIT2";
	case 24: return "APPFINCLOSEWAIT";
	case 25: return "PEERFINCLOSEWAIT";
	case 26: return "PEERABORTWAIT";
	case 27: return "PROCESSABORT";
	}
	return "UNKNOWN";
}

const char *smc_mode_name(int mode)
{
	switch (mode) {
	case SMC_TEST_MODE_SMCR: return "smcr";
	case SMC_TEST_MODE_FALLBACK: return "fallback";
	case SMC_TEST_MODE_SMCD: return "smcd";
	}
	return "unknown";
}

/* Without SMC_EXPECT_PATH: SMC-D if the module negotiates it */
static const char *smc_default_path(void)
{
	FILE *f = fopen("/sys/module/smc/parameters/smcd", "r");
	int c = EOF;

	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c == 'Y' ? "smcd" : "fallback";
}

int smc_expect(int *mode, uint32_t *reason)
{
	const char *p = getenv("SMC_EXPECT_PATH");
	const char *r = getenv("SMC_EXPECT_REASON");
	char *end;

	*reason = SMC_TEST_DEFAULT_REASON;
	if (!p || !*p)
		p = smc_default_path();
	if (!strcasecmp(p, "fallback")) {
		*mode = SMC_TEST_MODE_FALLBACK;
	} else if (!strcasecmp(p, "smcd")) {
		*mode = SMC_TEST_MODE_SMCD;
	} else if (!strcasecmp(p, "smcr")) {
		*mode = SMC_TEST_MODE_SMCR;
	} else if (!strcasecmp(p, "any")) {
		*mode = SMC_TEST_MODE_ANY;
	} else {
		fprintf(stderr, "invalid SMC_EXPECT_PATH '%s'\n", p);
		return -1;
	}
	if (r && *r) {
		errno = 0;
		*reason = strtoul(r, &end, 0);
		if (errno || *end) {
			fprintf(stderr, "invalid SMC_EXPECT_REASON '%s'\n", r);
			return -1;
		}
	}
	return 0;
}

int smc_expect_smcr(void)
{
	const char *p = getenv("SMC_EXPECT_PATH");

	return p && !strcasecmp(p, "smcr");
}

int smc_test_addr4(struct in_addr *addr)
{
	const char *a = getenv("SMC_TEST_ADDR4");

	addr->s_addr = htonl(INADDR_LOOPBACK);
	if (!a || !*a)
		return 0;
	if (inet_pton(AF_INET, a, addr) != 1) {
		fprintf(stderr,
			"invalid SMC_TEST_ADDR4 '%s': not an IPv4 address\n", a);
		addr->s_addr = htonl(INADDR_LOOPBACK);
		return -1;
	}
	return 0;
}

int smc_path_match(const struct smc_sock_info *si, char *why, size_t whylen)
{
	uint32_t reason;
	int mode;

	if (smc_expect(&mode, &reason)) {
		snprintf(why, whylen, "bad SMC_EXPECT_PATH/REASON");
		return -1;
	}
	if (mode == SMC_TEST_MODE_ANY)
		return 0;
	if (si->mode != mode) {
		snprintf(why, whylen,
			 "inode %llu: mode %s (%d), expected %s (reason 0x%08x peer 0x%08x)",
			 (unsigned long long)si->inode,
			 smc_mode_name(si->mode), si->mode,
			 smc_mode_name(mode), si->reason, si->peer_diag);
		return -1;
	}
	if (mode == SMC_TEST_MODE_FALLBACK) {
		if (!si->has_fallback) {
			snprintf(why, whylen,
				 "inode %llu: no SMC_DIAG_FALLBACK attribute",
				 (unsigned long long)si->inode);
			return -1;
		}
		if (si->reason != reason) {
			snprintf(why, whylen,
				 "inode %llu: fallback reason 0x%08x, expected 0x%08x",
				 (unsigned long long)si->inode, si->reason,
				 reason);
			return -1;
		}
	}
	return 0;
}

int smc_check_fd_path(int fd, int timeout_ms, char *why, size_t whylen)
{
	struct smc_sock_info si;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int waited = 0, rc;

	for (;;) {
		rc = smc_diag_lookup(fd, &si);
		if (rc) {
			snprintf(why, whylen, "fd %d not in smc_diag dump: %s",
				 fd, strerror(-rc));
		} else {
			rc = smc_path_match(&si, why, whylen);
			if (!rc)
				return 0;
		}
		if (waited >= timeout_ms)
			return -1;
		nanosleep(&ts, NULL);
		waited += 20;
	}
}

long long smc_file_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int smc_file_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	int fd, err;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	err = n < 0 ? errno : (size_t)n == len ? 0 : EIO;
	close(fd);
	errno = err;
	return -err;
}
