// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SMC against an unprivileged local user.  Every attack runs in a
 * forked process as uid/gid 65534 without supplementary groups (and, in
 * its own user and network namespace where that is what such a user can
 * do); the victim's side runs as root in the parent.
 *
 *  - syn_after_a_refused_connect: a refused connect(), then TCP_FASTOPEN
 *    (which makes the socket TCP only) and a connect to root's AF_SMC
 *    listener.  The SYN must not carry the SMC option: the accepted
 *    child falls back at once, reason 0x03010000 (peer has no SMC).
 *  - syn_after_listen_and_shutdown: listen(), shutdown(SHUT_RD), then
 *    connect() to root's listener: the same.
 *  - synack_of_a_listener_made_after_refusal: a refused connect(),
 *    TCP_FASTOPEN and listen(); root's AF_SMC client connects to it.
 *    The SYN-ACK must not carry the SMC option: root's connect falls
 *    back at once with 0x03010000, instead of waiting for an Accept
 *    that never comes.
 *  - diag_tokens_for_the_owner_only: the DMB tokens and alert tokens of
 *    root's SMC-D pair read as zero in uid 65534's sock_diag dump,
 *    while root, and uid 65534 for a pair of its own, see them.
 *  - netns_sees_its_own_link_groups_only: uid 65534 in its own user
 *    and network namespace dumps the SMC-D link groups over
 *    SMC_GEN_NETLINK: root's groups in init_net must not show; an SMC-D
 *    connection made in that namespace must get groups of its own, and
 *    these must show.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "smc_diag_util.h"
#include "smcd_util.h"

#define NOBODY		65534
#define QUICK_MS	2000	/* a fallback is at once; this is plenty */
#define CHILD_MS	30000	/* the attacker's own steps, at most */

/* SMC_GEN_NETLINK, as in uapi/linux/smc.h */
#define SMC_GENL_NAME		"SMC_GEN_NETLINK"
#define SMC_NL_GET_LGR_SMCD	4
#define SMC_NL_GEN_LGR_SMCD	4
#define SMC_NL_LGR_D_ID		1

#define MAX_LGRS		64

/* What the attacker reports back: a word, and why it failed */
struct shared {
	char why[512];
	uint32_t lgr_ids[MAX_LGRS];
	int nlgr;
};

static struct shared *sh;

struct attacker {
	pid_t pid;
	int down;	/* parent -> child */
	int up;		/* child -> parent */
};

static void why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->why, sizeof(sh->why), fmt, ap);
	va_end(ap);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int lo_up(void)
{
	struct ifreq ifr = {};
	int fd, rc = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		rc = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (!rc && ioctl(fd, SIOCSIFFLAGS, &ifr))
		rc = -errno;
	close(fd);
	return rc;
}

/*
 * Become uid/gid 65534 with no groups and no capabilities; with
 * @own_ns, then make a user namespace (uid 0 in it is 65534 outside)
 * and a network namespace with its loopback up, as unshare -Urn does.
 * 0, 4 (the namespaces are not allowed here) or 1.
 */
static int become_nobody(int own_ns)
{
	char map[32];
	int rc;

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY)) {
		why("dropping to uid %d: %s", NOBODY, strerror(errno));
		return KSFT_FAIL;
	}
	/* our /proc/self files stay ours after the uid change */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (!own_ns)
		return 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		why("unshare(CLONE_NEWUSER | CLONE_NEWNET) as uid %d: %s",
		    NOBODY, strerror(errno));
		return KSFT_SKIP;
	}
	snprintf(map, sizeof(map), "0 %d 1", NOBODY);
	rc = smc_file_write("/proc/self/setgroups", "deny");
	if (!rc)
		rc = smc_file_write("/proc/self/uid_map", map);
	if (!rc)
		rc = smc_file_write("/proc/self/gid_map", map);
	if (!rc)
		rc = lo_up();
	if (rc) {
		why("setting up the namespaces: %s", strerror(-rc));
		return KSFT_FAIL;
	}
	return 0;
}

/* Start @fn as the attacker; it returns a kselftest code */
static int attacker_start(struct attacker *a, int own_ns,
			  int (*fn)(struct attacker *a))
{
	int down[2], up[2], rc;

	sh->why[0] = 0;
	sh->nlgr = 0;
	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC))
		return -1;
	a->pid = fork();
	if (a->pid < 0)
		return -1;
	if (!a->pid) {
		close(down[1]);
		close(up[0]);
		a->down = down[0];
		a->up = up[1];
		/* the parent's end of a test must never be left waiting */
		alarm(CHILD_MS / 1000 + 30);
		rc = become_nobody(own_ns);
		if (!rc)
			rc = fn(a);
		_exit(rc);
	}
	close(down[0]);
	close(up[1]);
	a->down = down[1];
	a->up = up[0];
	return 0;
}

/* A word from the other side within @ms: 0, or -1 */
static int hear(int fd, uint32_t *val, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	return read(fd, val, sizeof(*val)) == sizeof(*val) ? 0 : -1;
}

static void tell(int fd, uint32_t val)
{
	if (write(fd, &val, sizeof(val)) != sizeof(val))
		_exit(KSFT_FAIL);
}

/* Tell the attacker to end, and its verdict */
static int attacker_end(struct attacker *a)
{
	int status;

	close(a->down);
	close(a->up);
	if (waitpid(a->pid, &status, 0) != a->pid)
		return KSFT_FAIL;
	if (WIFSIGNALED(status)) {
		why("the attacker died of signal %d", WTERMSIG(status));
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

static struct sockaddr_in lo4(uint16_t port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return a;
}

static uint16_t port_of(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &len))
		return 0;
	return ntohs(a.sin_port);
}

static int smc_listener(uint16_t *port)
{
	struct sockaddr_in a = lo4(0);
	int fd;

	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16)) {
		close(fd);
		return -1;
	}
	*port = port_of(fd);
	return fd;
}

/* A TCP port that refuses: bound, not listening, kept */
static int refusing_port(uint16_t *port)
{
	struct sockaddr_in a = lo4(0);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	*port = port_of(fd);
	return fd;
}

static int accept_within(int lfd, int ms)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

/* sock_diag of @fd, once its handshake is over (up to 1 s) */
static int diag_settled(int fd, unsigned int ext, struct smc_sock_info *si)
{
	int i, rc = -1;

	for (i = 0; i < 50; i++) {
		rc = smc_diag_lookup_ext(fd, ext, si);
		if (!rc && si->state != SMC_TEST_INIT)
			return 0;
		msleep(20);
	}
	return rc;
}

/* @fd fell back, and because its peer offered no SMC */
static int fell_back_peernosmc(int fd, const char *who, char *buf,
			       size_t len)
{
	struct smc_sock_info si;

	if (diag_settled(fd, 0, &si)) {
		snprintf(buf, len, "%s: not in the smc_diag dump", who);
		return -1;
	}
	ktap_diag("%s: mode %s reason 0x%08x", who, smc_mode_name(si.mode),
		  si.reason);
	if (si.mode != SMC_TEST_MODE_FALLBACK ||
	    si.reason != SMC_TEST_DEFAULT_REASON) {
		snprintf(buf, len,
			 "%s: mode %s reason 0x%08x, expected fallback 0x%08x",
			 who, smc_mode_name(si.mode), si.reason,
			 SMC_TEST_DEFAULT_REASON);
		return -1;
	}
	return 0;
}

/* ---- the SYN of a socket the attacker drives as TCP ---- */

static uint16_t victim_port, refused_port;

/* connect to a port that refuses, then make the socket TCP only */
static int refused_then_tcp(void)
{
	struct sockaddr_in a = lo4(refused_port);
	int fd, one = 5;

	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (fd < 0) {
		why("socket(AF_SMC): %s", strerror(errno));
		return -1;
	}
	if (!connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    errno != ECONNREFUSED) {
		why("connect to the refusing port: %s, expected ECONNREFUSED",
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (setsockopt(fd, SOL_TCP, TCP_FASTOPEN, &one, sizeof(one))) {
		why("TCP_FASTOPEN: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Connect @fd to root's listener, hold it until the parent is done */
static int connect_and_hold(struct attacker *at, int fd)
{
	struct sockaddr_in a = lo4(victim_port);
	uint32_t v;

	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		why("connect to root's listener: %s", strerror(errno));
		return KSFT_FAIL;
	}
	tell(at->up, 1);
	hear(at->down, &v, CHILD_MS);
	close(fd);
	return 0;
}

static int atk_refused_connect(struct attacker *at)
{
	int fd = refused_then_tcp();

	return fd < 0 ? KSFT_FAIL : connect_and_hold(at, fd);
}

static int atk_listen_shutdown(struct attacker *at)
{
	struct sockaddr_in a = lo4(0);
	int fd;

	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (fd < 0) {
		why("socket(AF_SMC): %s", strerror(errno));
		return KSFT_FAIL;
	}
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1) ||
	    shutdown(fd, SHUT_RD)) {
		why("bind, listen, shutdown: %s", strerror(errno));
		return KSFT_FAIL;
	}
	return connect_and_hold(at, fd);
}

/*
 * Root's AF_SMC listener takes the attacker's connection: the child
 * must be there at once, fallen back because the SYN offered no SMC.
 */
static void syn_case(const char *name, int (*fn)(struct attacker *a))
{
	int lfd, rfd, cfd = -1, ok = 0, rc;
	struct attacker at;
	char buf[512] = "";
	uint32_t v;
	long t0;

	lfd = smc_listener(&victim_port);
	rfd = refusing_port(&refused_port);
	if (lfd < 0 || rfd < 0) {
		ktap_diag("%s: set-up: %s", name, strerror(errno));
		ktap_result(0, name);
		return;
	}
	if (attacker_start(&at, 0, fn)) {
		ktap_diag("%s: fork: %s", name, strerror(errno));
		ktap_result(0, name);
		return;
	}
	if (hear(at.up, &v, CHILD_MS)) {
		snprintf(buf, sizeof(buf), "the attacker did not connect");
		goto out;
	}
	t0 = now_ms();
	cfd = accept_within(lfd, QUICK_MS);
	if (cfd < 0) {
		snprintf(buf, sizeof(buf),
			 "no child within %d ms: the handshake waits for a Proposal",
			 QUICK_MS);
		goto out;
	}
	ktap_diag("%s: child accepted after %ld ms", name, now_ms() - t0);
	ok = !fell_back_peernosmc(cfd, "root's child", buf, sizeof(buf));
out:
	rc = attacker_end(&at);
	if (rc) {
		ktap_diag("%s: attacker: %s", name, sh->why);
		ok = 0;
	}
	if (buf[0])
		ktap_diag("%s: %s", name, buf);
	if (cfd >= 0)
		close(cfd);
	close(lfd);
	close(rfd);
	ktap_result(ok, name);
}

/* ---- the SYN-ACK of a listener the attacker made ---- */

static int atk_listener(struct attacker *at)
{
	int fd = refused_then_tcp();
	uint32_t v;

	if (fd < 0)
		return KSFT_FAIL;
	if (listen(fd, 4)) {
		why("listen: %s", strerror(errno));
		return KSFT_FAIL;
	}
	tell(at->up, port_of(fd));
	/* never accept, never answer: a Proposal gets no Accept */
	hear(at->down, &v, CHILD_MS);
	close(fd);
	return 0;
}

static void synack_case(const char *name)
{
	int cfd = -1, rfd, ok = 0, rc;
	struct sockaddr_in a;
	struct attacker at;
	char buf[512] = "";
	uint32_t port;
	long t0, took;

	rfd = refusing_port(&refused_port);
	if (rfd < 0 || attacker_start(&at, 0, atk_listener)) {
		ktap_diag("%s: set-up: %s", name, strerror(errno));
		ktap_result(0, name);
		return;
	}
	if (hear(at.up, &port, CHILD_MS) || !port) {
		snprintf(buf, sizeof(buf), "the attacker did not listen");
		goto out;
	}
	cfd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (cfd < 0) {
		snprintf(buf, sizeof(buf), "socket: %s", strerror(errno));
		goto out;
	}
	a = lo4(port);
	t0 = now_ms();
	rc = connect(cfd, (struct sockaddr *)&a, sizeof(a));
	took = now_ms() - t0;
	ktap_diag("%s: root's connect: %s after %ld ms", name,
		  rc ? strerror(errno) : "ok", took);
	if (rc) {
		snprintf(buf, sizeof(buf),
			 "root's connect failed (%s) after %ld ms: the SYN-ACK offered SMC",
			 strerror(errno), took);
		goto out;
	}
	if (took > QUICK_MS) {
		snprintf(buf, sizeof(buf), "root's connect took %ld ms", took);
		goto out;
	}
	ok = !fell_back_peernosmc(cfd, "root's client", buf, sizeof(buf));
out:
	rc = attacker_end(&at);
	if (rc) {
		ktap_diag("%s: attacker: %s", name, sh->why);
		ok = 0;
	}
	if (buf[0])
		ktap_diag("%s: %s", name, buf);
	if (cfd >= 0)
		close(cfd);
	close(rfd);
	ktap_result(ok, name);
}

/* ---- SMC-D pairs, tokens and link groups ---- */

struct pair {
	int cli, srv;
	struct smc_sock_info ci, si;	/* with CONNINFO and DMBINFO */
};

#define EXT_TOKENS	(SMC_TEST_EXT_CONNINFO | SMC_TEST_EXT_DMBINFO)

static void pair_close(struct pair *p)
{
	if (p->cli >= 0)
		close(p->cli);
	if (p->srv >= 0)
		close(p->srv);
	p->srv = -1;
	p->cli = -1;
}

/* An SMC-D pair over 127.0.0.1 of the current netns; 0, or -1 + why */
static int pair_open(struct pair *p)
{
	struct sockaddr_in a;
	uint16_t port;
	int lfd;

	p->srv = -1;
	p->cli = -1;
	lfd = smc_listener(&port);
	if (lfd < 0) {
		why("listener: %s", strerror(errno));
		return -1;
	}
	p->cli = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	a = lo4(port);
	if (p->cli < 0 || connect(p->cli, (struct sockaddr *)&a, sizeof(a))) {
		why("connect: %s", strerror(errno));
		goto fail;
	}
	p->srv = accept_within(lfd, CHILD_MS);
	if (p->srv < 0) {
		why("accept: %s", strerror(errno));
		goto fail;
	}
	close(lfd);
	lfd = -1;
	if (diag_settled(p->cli, EXT_TOKENS, &p->ci) ||
	    diag_settled(p->srv, EXT_TOKENS, &p->si)) {
		why("the pair is not in the smc_diag dump");
		goto fail;
	}
	if (p->ci.mode != SMC_TEST_MODE_SMCD ||
	    p->si.mode != SMC_TEST_MODE_SMCD) {
		why("the pair is %s/%s (reason 0x%08x), not SMC-D",
		    smc_mode_name(p->ci.mode), smc_mode_name(p->si.mode),
		    p->ci.reason);
		goto fail;
	}
	if (!smc_has_dmbinfo(&p->ci) || !smc_has_dmbinfo(&p->si)) {
		why("no DMBINFO for the pair");
		goto fail;
	}
	return 0;
fail:
	if (lfd >= 0)
		close(lfd);
	pair_close(p);
	return -1;
}

static int tokens_zero(const struct smc_sock_info *s)
{
	return !s->dmb.token && !s->dmb.peer_token &&
	       (!smc_has_conninfo(s) || !s->conn.token);
}

static int tokens_set(const struct smc_sock_info *s)
{
	return s->dmb.token && s->dmb.peer_token && smc_has_conninfo(s) &&
	       s->conn.token;
}

static void say_tokens(const char *who, const struct smc_sock_info *s)
{
	ktap_diag("%s: token %llx peer_token %llx alert token %x", who,
		  (unsigned long long)s->dmb.token,
		  (unsigned long long)s->dmb.peer_token,
		  smc_has_conninfo(s) ? s->conn.token : 0);
}

static struct pair victim;

/* uid 65534 looks at root's pair, then at a pair of its own */
static int atk_tokens(struct attacker *at)
{
	uint64_t ino[2] = { victim.ci.inode, victim.si.inode };
	struct smc_sock_info s;
	struct pair own;
	int i, rc;

	(void)at;
	for (i = 0; i < 2; i++) {
		rc = smc_diag_lookup_inode_ext(ino[i], EXT_TOKENS, &s);
		if (rc) {
			why("root's socket %llu is not in uid %d's dump: %s",
			    (unsigned long long)ino[i], NOBODY, strerror(-rc));
			return KSFT_FAIL;
		}
		say_tokens(i ? "root's server, seen by uid 65534" :
			       "root's client, seen by uid 65534", &s);
		if (!tokens_zero(&s)) {
			why("uid %d sees the tokens of root's %s", NOBODY,
			    i ? "server" : "client");
			return KSFT_FAIL;
		}
	}
	if (pair_open(&own))
		return KSFT_FAIL;
	say_tokens("uid 65534's own client", &own.ci);
	say_tokens("uid 65534's own server", &own.si);
	rc = tokens_set(&own.ci) && tokens_set(&own.si) ? 0 : KSFT_FAIL;
	if (rc)
		why("the owner (uid %d) does not see its own tokens", NOBODY);
	pair_close(&own);
	return rc;
}

static void tokens_case(const char *name)
{
	struct attacker at;
	int ok = 0, rc;

	if (pair_open(&victim)) {
		ktap_diag("%s: root's pair: %s", name, sh->why);
		ktap_result(0, name);
		return;
	}
	say_tokens("root's client, seen by root", &victim.ci);
	say_tokens("root's server, seen by root", &victim.si);
	if (!tokens_set(&victim.ci) || !tokens_set(&victim.si)) {
		ktap_diag("%s: root does not see the tokens of its own pair",
			  name);
		goto out;
	}
	if (attacker_start(&at, 0, atk_tokens)) {
		ktap_diag("%s: fork: %s", name, strerror(errno));
		goto out;
	}
	rc = attacker_end(&at);
	if (rc)
		ktap_diag("%s: %s", name, sh->why);
	ok = !rc;
out:
	pair_close(&victim);
	ktap_result(ok, name);
}

/* ---- SMC_GEN_NETLINK: the SMC-D link groups this netns sees ---- */

struct nl_req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char buf[64];
};

static int nl_family(int fd)
{
	struct nl_req req = {};
	struct nlattr *na;
	char rbuf[4096];
	struct nlmsghdr *nh;
	int len, rem;

	req.nh.nlmsg_type = GENL_ID_CTRL;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.gh.cmd = CTRL_CMD_GETFAMILY;
	req.gh.version = 1;
	na = (struct nlattr *)req.buf;
	na->nla_type = CTRL_ATTR_FAMILY_NAME;
	na->nla_len = NLA_HDRLEN + sizeof(SMC_GENL_NAME);
	memcpy((char *)na + NLA_HDRLEN, SMC_GENL_NAME, sizeof(SMC_GENL_NAME));
	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -1;
	len = recv(fd, rbuf, sizeof(rbuf), 0);
	nh = (struct nlmsghdr *)rbuf;
	if (len < (int)NLMSG_HDRLEN || !NLMSG_OK(nh, len) ||
	    nh->nlmsg_type == NLMSG_ERROR)
		return -1;
	na = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	rem = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	while (rem >= (int)NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= rem) {
		if (na->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)na + NLA_HDRLEN);
		rem -= NLA_ALIGN(na->nla_len);
		na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	}
	return -1;
}

/* The id of a SMC_GEN_LGR_SMCD message, or 0 */
static uint32_t lgr_d_id(struct nlmsghdr *nh)
{
	struct nlattr *na, *in;
	int rem, irem;

	na = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	rem = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	for (; rem >= (int)NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	     na->nla_len <= rem;
	     rem -= NLA_ALIGN(na->nla_len),
	     na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len))) {
		if ((na->nla_type & NLA_TYPE_MASK) != SMC_NL_GEN_LGR_SMCD)
			continue;
		in = (struct nlattr *)((char *)na + NLA_HDRLEN);
		irem = na->nla_len - NLA_HDRLEN;
		while (irem >= (int)NLA_HDRLEN && in->nla_len >= NLA_HDRLEN &&
		       in->nla_len <= irem) {
			if (in->nla_type == SMC_NL_LGR_D_ID)
				return *(uint32_t *)((char *)in + NLA_HDRLEN);
			irem -= NLA_ALIGN(in->nla_len);
			in = (struct nlattr *)((char *)in +
					       NLA_ALIGN(in->nla_len));
		}
	}
	return 0;
}

/* The ids of the SMC-D link groups the caller's netns sees, in sh */
static int lgr_d_dump(void)
{
	struct nl_req req = {};
	char rbuf[16384];
	struct nlmsghdr *nh;
	int fd, fam, len;
	uint32_t id;

	sh->nlgr = 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		why("netlink socket: %s", strerror(errno));
		return -1;
	}
	fam = nl_family(fd);
	if (fam < 0) {
		why("no %s family", SMC_GENL_NAME);
		close(fd);
		return -1;
	}
	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.nh.nlmsg_type = fam;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = 2;
	req.gh.cmd = SMC_NL_GET_LGR_SMCD;
	req.gh.version = 1;
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0) {
		why("netlink send: %s", strerror(errno));
		close(fd);
		return -1;
	}
	for (;;) {
		len = recv(fd, rbuf, sizeof(rbuf), 0);
		if (len <= 0) {
			why("netlink recv: %s", strerror(errno));
			close(fd);
			return -1;
		}
		for (nh = (struct nlmsghdr *)rbuf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				close(fd);
				return 0;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				why("the link group dump failed");
				close(fd);
				return -1;
			}
			id = lgr_d_id(nh);
			if (id && sh->nlgr < MAX_LGRS)
				sh->lgr_ids[sh->nlgr++] = id;
		}
	}
}

static int lgr_seen(uint32_t id)
{
	int i;

	for (i = 0; i < sh->nlgr; i++)
		if (sh->lgr_ids[i] == id)
			return 1;
	return 0;
}

static void say_lgrs(const char *who)
{
	char list[256] = "";
	int i, n = 0;

	for (i = 0; i < sh->nlgr && n < (int)sizeof(list) - 12; i++)
		n += snprintf(list + n, sizeof(list) - n, " %x",
			      sh->lgr_ids[i]);
	ktap_diag("%s sees %d SMC-D link group(s):%s", who, sh->nlgr, list);
}

static int atk_lgrs(struct attacker *at)
{
	uint32_t root_cli = victim.ci.dmb.linkid;
	uint32_t root_srv = victim.si.dmb.linkid;
	struct pair own;
	int rc = 0;

	(void)at;
	if (lgr_d_dump())
		return KSFT_FAIL;
	say_lgrs("uid 65534 in its own netns");
	if (lgr_seen(root_cli) || lgr_seen(root_srv)) {
		why("uid %d in its own netns sees root's link groups of init_net",
		    NOBODY);
		return KSFT_FAIL;
	}
	if (pair_open(&own))
		return KSFT_FAIL;
	ktap_diag("uid 65534's pair in its netns: link groups %x (client) %x (server)",
		  own.ci.dmb.linkid, own.si.dmb.linkid);
	if (own.ci.dmb.linkid == root_cli || own.si.dmb.linkid == root_srv) {
		why("a connection in uid %d's netns joined root's link group",
		    NOBODY);
		rc = KSFT_FAIL;
	} else if (lgr_d_dump()) {
		rc = KSFT_FAIL;
	} else if (say_lgrs("after its own pair, uid 65534"),
		   !lgr_seen(own.ci.dmb.linkid) ||
		   !lgr_seen(own.si.dmb.linkid)) {
		why("the netns does not see its own link groups");
		rc = KSFT_FAIL;
	} else if (lgr_seen(root_cli) || lgr_seen(root_srv)) {
		why("uid %d's netns sees root's link groups", NOBODY);
		rc = KSFT_FAIL;
	}
	pair_close(&own);
	return rc;
}

static void lgrs_case(const char *name)
{
	struct attacker at;
	int ok = 0, rc;

	if (pair_open(&victim)) {
		ktap_diag("%s: root's pair: %s", name, sh->why);
		ktap_result(0, name);
		return;
	}
	ktap_diag("root's pair in init_net: link groups %x (client) %x (server)",
		  victim.ci.dmb.linkid, victim.si.dmb.linkid);
	if (lgr_d_dump() || !lgr_seen(victim.ci.dmb.linkid) ||
	    !lgr_seen(victim.si.dmb.linkid)) {
		ktap_diag("%s: root does not see its own link groups %s", name,
			  sh->why);
		goto out;
	}
	if (attacker_start(&at, 1, atk_lgrs)) {
		ktap_diag("%s: fork: %s", name, strerror(errno));
		goto out;
	}
	rc = attacker_end(&at);
	if (rc == KSFT_SKIP) {
		pair_close(&victim);
		ktap_skip(name, sh->why);
		return;
	}
	if (rc)
		ktap_diag("%s: %s", name, sh->why);
	ok = !rc;
out:
	pair_close(&victim);
	ktap_result(ok, name);
}

int main(void)
{
	int fd;

	if (getuid() != 0)
		ktap_skip_all("must run as root");
	fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	if (fd < 0)
		ktap_no_smc(errno);
	close(fd);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		ktap_fail_all("mmap");
	signal(SIGPIPE, SIG_IGN);

	/* the SMC option is only offered with a path to offer */
	if (smcd_param_set(1))
		ktap_skip_all("no writable smcd module parameter");
	ktap_header(5);
	syn_case("syn_after_a_refused_connect", atk_refused_connect);
	syn_case("syn_after_listen_and_shutdown", atk_listen_shutdown);
	synack_case("synack_of_a_listener_made_after_refusal");
	tokens_case("diag_tokens_for_the_owner_only");
	lgrs_case("netns_sees_its_own_link_groups_only");
	smcd_param_restore();
	ktap_finish();
}
