// SPDX-License-Identifier: GPL-2.0
/*
 * Differential conformance suite for AF_SMC.
 *
 * Every scenario runs twice in a fresh child process: once with TCP
 * sockets (AF_INET / AF_INET6) and once with AF_SMC sockets (protocol
 * SMCPROTO_SMC / SMCPROTO_SMC6), or run as conformance@ipproto
 * (SMC_TEST_VARIANT=ipproto), with IPPROTO_SMC sockets.  Each run records a trace of the calls
 * made (return value, errno, poll/epoll masks, data received) and the two
 * traces must be identical.  Every AF_SMC socket that reaches a connected
 * state is checked against the expected path (SMC_EXPECT_PATH, default
 * "fallback", and SMC_EXPECT_REASON) through smc_diag.
 *
 * A second group of tests checks AF_SMC specific behaviour that has no
 * TCP counterpart.
 *
 * IPv4 connections go to 127.0.0.1 or SMC_TEST_ADDR4, IPv6 ones to ::1.
 *
 * Environment:
 *   SMC_EXPECT_PATH      fallback (default), smcd or smcr; with smcr the
 *                        IPv6 scenarios and tests are skipped (SMC-Rv2
 *                        is IPv4 only), as is smcd_cork
 *   SMC_EXPECT_REASON    expected fallback reason (default 0x03010000)
 *   SMC_TEST_ADDR4       local IPv4 address (dotted-decimal) that the
 *                        listeners bind to and the clients connect to,
 *                        instead of 127.0.0.1
 *   CONFORMANCE_SMC_FAMILY=inet  create the "SMC" side as TCP too and skip
 *                        all AF_SMC specific checks (debugging aid)
 *   CONFORMANCE_FILTER   substring: run only matching scenarios
 *   CONFORMANCE_VERBOSE=1 print both traces of every scenario
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "ktap.h"
#include "timeutil.h"
#include "smc_diag_util.h"
#include "smc_sock.h"

#ifndef TCP_ULP
#define TCP_ULP		31
#endif

#define TRACE_MAX	(64 * 1024)
#define NOTES_MAX	(8 * 1024)
#define WAIT_MS		15000	/* generous: TCG is slow */
#define SCEN_TIMEOUT_S	60

struct shm {
	size_t len;
	size_t nlen;
	int hard_fail;
	int path_checks;
	int path_fail;
	char trace[TRACE_MAX];
	char notes[NOTES_MAX];
};

struct ctx {
	int fam;		/* address family of the scenario */
	int smc;		/* sockets are AF_SMC */
	int check_path;
	struct shm *o;
	struct sockaddr_storage addr;	/* last listener address */
	socklen_t alen;
};

static volatile sig_atomic_t sigpipe_count;
static volatile sig_atomic_t sigalrm_count;
static int smc_override_inet;
static struct in_addr addr4;	/* 127.0.0.1 or SMC_TEST_ADDR4 */

/* ---------------------------------------------------------------- trace */

/* Append one formatted line to buf (length *len, capacity max). */
static void vappend(char *buf, size_t *len, size_t max, const char *fmt,
		    va_list ap)
{
	int n;

	if (*len >= max - 2)
		return;
	n = vsnprintf(buf + *len, max - 1 - *len, fmt, ap);
	if (n < 0)
		return;
	*len += (size_t)n;
	if (*len > max - 2)
		*len = max - 2;
	buf[(*len)++] = '\n';
	buf[*len] = 0;
}

static void __attribute__((format(printf, 2, 3)))
rec(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(c->o->trace, &c->o->len, TRACE_MAX, fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3)))
note(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vappend(c->o->notes, &c->o->nlen, NOTES_MAX, fmt, ap);
	va_end(ap);
}

/* A setup step that must work failed: the scenario fails on both sides. */
#define FAIL(c, ...) do {						\
	struct ctx *__c = (c);						\
	__c->o->hard_fail = 1;						\
	note(__c, __VA_ARGS__);						\
	rec(__c, "setup failure at line %d", __LINE__);			\
} while (0)

static const char *ename(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "E?";
}

static void rec_call(struct ctx *c, const char *label, long r, int e)
{
	if (r < 0)
		rec(c, "%s = %ld %s", label, r, ename(e));
	else
		rec(c, "%s = %ld", label, r);
}

/* Run expr, record its result and errno, evaluate to the result. */
#define CALL(c, label, expr) ({						\
	long __r;							\
	int __e;							\
	errno = 0;							\
	__r = (long)(expr);						\
	__e = errno;							\
	rec_call(c, label, __r, __e);					\
	errno = __e;							\
	__r;								\
})

static void mask_str(int m, char *buf, size_t len)
{
	static const struct { int bit; const char *name; } bits[] = {
		{ POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" },
		{ POLLERR, "ERR" }, { POLLHUP, "HUP" }, { POLLNVAL, "NVAL" },
		{ POLLRDNORM, "RDNORM" }, { POLLRDBAND, "RDBAND" },
		{ POLLWRNORM, "WRNORM" }, { POLLWRBAND, "WRBAND" },
		{ POLLRDHUP, "RDHUP" },
	};
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (!(m & bits[i].bit))
			continue;
		off += snprintf(buf + off, len - off, "%s%s", off ? "|" : "",
				bits[i].name);
		if (off >= len)
			break;
	}
	if (!off)
		snprintf(buf, len, "0");
}

static void rec_mask(struct ctx *c, const char *label, int m)
{
	char s[128];

	if (m < 0) {
		rec(c, "%s mask = error %s", label, ename(errno));
		return;
	}
	mask_str(m, s, sizeof(s));
	rec(c, "%s mask = %s", label, s);
}

/* FNV-1a of @n bytes at @p, going on from @h */
static uint64_t fnv1a_more(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t fnv1a(const void *p, size_t n)
{
	return fnv1a_more(0xcbf29ce484222325ULL, p, n);
}

static void rec_data(struct ctx *c, const char *label, const void *p, long n)
{
	const char *s = p;
	long i;
	int printable = n >= 0 && n <= 64;

	for (i = 0; printable && i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			printable = 0;
	if (n < 0)
		rec(c, "%s data: none", label);
	else if (printable)
		rec(c, "%s data[%ld] = \"%.*s\"", label, n, (int)n, s);
	else
		rec(c, "%s data[%ld] fnv=%016llx", label, n,
		    (unsigned long long)fnv1a(p, n));
}

static void fill(void *p, size_t n, uint32_t seed)
{
	uint8_t *b = p;
	uint32_t x = seed ? seed : 1;

	while (n--) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		*b++ = x;
	}
}

/* -------------------------------------------------------------- sockets */

static int sock_fam(struct ctx *c, int fam, int type)
{
	if (c->smc)
		return smc_socket(fam, type);
	return socket(fam, type, 0);
}

/* Create a socket of the scenario's kind; failure is a setup failure. */
static int xsock_fam(struct ctx *c, int fam, int type)
{
	int fd = sock_fam(c, fam, type);

	if (fd < 0)
		FAIL(c, "socket(%s, %#x): %s", c->smc ? "SMC" : "INET",
		     type, strerror(errno));
	return fd;
}

static int xsock(struct ctx *c, int type)
{
	return xsock_fam(c, c->fam, type);
}

/* The address of the tests: ::1, or 127.0.0.1 / SMC_TEST_ADDR4 */
static socklen_t loop_addr(int fam, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		a->sin6_port = htons(port);
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_addr = addr4;
	a->sin_port = htons(port);
	return sizeof(*a);
}

static socklen_t any_addr(int fam, int port, struct sockaddr_storage *ss)
{
	socklen_t l = loop_addr(fam, port, ss);

	if (fam == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_any;
	else
		((struct sockaddr_in *)ss)->sin_addr.s_addr = htonl(INADDR_ANY);
	return l;
}

static int addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static void addr_ip(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr,
			  buf, len);
	else if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  buf, len);
	else
		snprintf(buf, len, "family-%d", ss->ss_family);
}

/* Record a sockname/peername without the (random) port number. */
static void rec_name(struct ctx *c, const char *label, int fd, int peer,
		     struct sockaddr_storage *out)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);
	char ip[INET6_ADDRSTRLEN + 16];
	int r;

	memset(&ss, 0, sizeof(ss));
	errno = 0;
	r = peer ? getpeername(fd, (struct sockaddr *)&ss, &l) :
		   getsockname(fd, (struct sockaddr *)&ss, &l);
	if (r) {
		rec(c, "%s = -1 %s", label, ename(errno));
		return;
	}
	addr_ip(&ss, ip, sizeof(ip));
	rec(c, "%s = 0 family=%d len=%u ip=%s port=%s", label, ss.ss_family,
	    l, ip, addr_port(&ss) ? "set" : "0");
	if (out)
		*out = ss;
}

static int same_port(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	return addr_port(a) == addr_port(b);
}

/* Path check for an AF_SMC socket that reached a connected state. */
static void check_path(struct ctx *c, int fd, const char *who)
{
	char why[256];

	if (!c->smc || !c->check_path || fd < 0)
		return;
	c->o->path_checks++;
	if (smc_check_fd_path(fd, 5000, why, sizeof(why))) {
		c->o->path_fail++;
		note(c, "path check (%s): %s", who, why);
	}
}

static int getint(int fd, int level, int opt, int *val)
{
	socklen_t l = sizeof(*val);

	*val = -12345;
	return getsockopt(fd, level, opt, val, &l);
}

static int setint(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val));
}

static void rec_getint(struct ctx *c, const char *label, int fd, int level,
		       int opt)
{
	int v, r;

	errno = 0;
	r = getint(fd, level, opt, &v);
	if (r)
		rec(c, "get %s = -1 %s", label, ename(errno));
	else
		rec(c, "get %s = 0 val=%d", label, v);
}

/* SIOCATMARK's result, then its answer as "@label N" */
static void rec_atmark(struct ctx *c, const char *label, int fd)
{
	int mark = -1;

	CALL(c, "SIOCATMARK", ioctl(fd, SIOCATMARK, &mark));
	rec(c, "%s %d", label, mark);
}

/* Bind to the test address, port 0, and listen; remember it in c->addr. */
static int listener_fam(struct ctx *c, int fam, int backlog)
{
	struct sockaddr_storage ss;
	socklen_t l;
	int fd;

	fd = xsock_fam(c, fam, SOCK_STREAM);
	if (fd < 0)
		return -1;
	l = loop_addr(fam, 0, &ss);
	if (bind(fd, (struct sockaddr *)&ss, l) || listen(fd, backlog)) {
		FAIL(c, "listener bind/listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	c->alen = sizeof(c->addr);
	if (getsockname(fd, (struct sockaddr *)&c->addr, &c->alen)) {
		FAIL(c, "getsockname: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int listener(struct ctx *c, int backlog)
{
	return listener_fam(c, c->fam, backlog);
}

static int do_connect(int fd, struct ctx *c)
{
	return connect(fd, (struct sockaddr *)&c->addr, c->alen);
}

static int xaccept(struct ctx *c, int l)
{
	int fd = accept(l, NULL, NULL);

	if (fd < 0)
		FAIL(c, "accept: %s", strerror(errno));
	return fd;
}

/* A connected pair cli <-> srv (listener closed unless lp given). */
static int pair_l(struct ctx *c, int *cli, int *srv, int *lp)
{
	int l;

	*cli = *srv = -1;
	l = listener(c, 16);
	if (l < 0)
		return -1;
	*cli = xsock(c, SOCK_STREAM);
	if (*cli < 0)
		goto err;
	if (do_connect(*cli, c)) {
		FAIL(c, "connect: %s", strerror(errno));
		goto err;
	}
	*srv = xaccept(c, l);
	if (*srv < 0)
		goto err;
	check_path(c, *cli, "client");
	check_path(c, *srv, "server");
	if (lp)
		*lp = l;
	else
		close(l);
	return 0;
err:
	close(l);
	if (*cli >= 0)
		close(*cli);
	*cli = -1;
	return -1;
}

static int pair(struct ctx *c, int *cli, int *srv)
{
	return pair_l(c, cli, srv, NULL);
}

#define ALL_EV	(POLLIN | POLLPRI | POLLOUT | POLLRDHUP)

static int poll1(int fd, int events, int timeout)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	r = poll(&p, 1, timeout);
	if (r < 0)
		return -1;
	return r ? p.revents : 0;
}

/*
 * Wait until any of bits shows up on fd, then return the settled mask
 * (events ALL_EV).  A timeout is a setup failure.
 */
static int wait_ev(struct ctx *c, int fd, int bits)
{
	long end = now_ms() + WAIT_MS;
	int m;

	for (;;) {
		m = poll1(fd, ALL_EV, 50);
		if (m < 0 && errno != EINTR) {
			FAIL(c, "poll: %s", strerror(errno));
			return -1;
		}
		if (m > 0 && (m & bits))
			break;
		if (now_ms() > end) {
			FAIL(c, "timeout waiting for poll bits %#x (have %#x)",
			     bits, m);
			return m;
		}
	}
	msleep(20);
	return poll1(fd, ALL_EV, 0);
}

static int inq(int fd)
{
	int v = -1;

	if (ioctl(fd, SIOCINQ, &v))
		return -1;
	return v;
}

static int outq(int fd)
{
	int v = -1;

	if (ioctl(fd, SIOCOUTQ, &v))
		return -1;
	return v;
}

/* Look at @ok(@fd, @arg) every 5 ms until it holds or WAIT_MS pass */
static bool wait_until(bool (*ok)(int fd, int arg), int fd, int arg)
{
	long end = now_ms() + WAIT_MS;

	while (!ok(fd, arg)) {
		if (now_ms() > end)
			return ok(fd, arg);
		msleep(5);
	}
	return true;
}

static bool inq_is(int fd, int n)
{
	return inq(fd) == n;
}

static bool outq_is(int fd, int n)
{
	return outq(fd) == n;
}

/* Wait until fd has exactly n bytes readable. */
static void wait_inq(struct ctx *c, int fd, int n)
{
	if (!wait_until(inq_is, fd, n))
		FAIL(c, "timeout waiting for %d bytes (have %d)", n, inq(fd));
}

static void wait_outq_empty(struct ctx *c, int fd)
{
	if (!wait_until(outq_is, fd, 0))
		FAIL(c, "timeout waiting for empty send queue");
}

static long send_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = send(fd, p + done, n - done, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return done ? (long)done : -1;
		}
		done += r;
	}
	return done;
}

/* Read until n bytes or EOF/error; returns bytes read or -1. */
static long recv_all(int fd, void *buf, size_t n)
{
	char *p = buf;
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = recv(fd, p + done, n - done, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return done ? (long)done : -1;
		}
		if (r == 0)
			break;
		done += r;
	}
	return done;
}

static void set_rcvtimeo(int fd, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void arm_alarm(int ms)
{
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

#define CLOSE(...) do {							\
	int __fds[] = { __VA_ARGS__ };					\
	close_fds(__fds, sizeof(__fds) / sizeof(__fds[0]));		\
} while (0)

/* ------------------------------------------------------------ scenarios */

static void sc_socket_basic(struct ctx *c)
{
	int fd = xsock(c, SOCK_STREAM);

	if (fd < 0)
		return;
	rec_getint(c, "SO_TYPE", fd, SOL_SOCKET, SO_TYPE);
	rec_getint(c, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
	rec_getint(c, "SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN);
	rec(c, "F_GETFL nonblock=%d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	rec(c, "F_GETFD cloexec=%d", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	rec_name(c, "getsockname", fd, 0, NULL);
	rec_name(c, "getpeername", fd, 1, NULL);
	CLOSE(fd);
}

static void sc_socket_flags(struct ctx *c)
{
	int l, fd, m;

	l = listener(c, 4);
	if (l < 0)
		return;
	fd = xsock(c, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		goto out;
	rec(c, "F_GETFL nonblock=%d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	rec(c, "F_GETFD cloexec=%d", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	CALL(c, "connect", do_connect(fd, c));
	m = wait_ev(c, fd, POLLOUT);
	rec_mask(c, "connected", m);
	check_path(c, fd, "client");
	CLOSE(fd);
out:
	CLOSE(l);
}

static void sc_bind_twice(struct ctx *c)
{
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(c->fam, 0, &ss);
	int fd = xsock(c, SOCK_STREAM);

	if (fd < 0)
		return;
	CALL(c, "bind", bind(fd, (struct sockaddr *)&ss, l));
	CALL(c, "bind again", bind(fd, (struct sockaddr *)&ss, l));
	rec_name(c, "getsockname", fd, 0, NULL);
	CLOSE(fd);
}

static void sc_bind_bad_addrlen(struct ctx *c)
{
	struct sockaddr_storage ss;
	int fd = xsock(c, SOCK_STREAM);

	if (fd < 0)
		return;
	loop_addr(c->fam, 0, &ss);
	CALL(c, "bind len 8", bind(fd, (struct sockaddr *)&ss, 8));
	CALL(c, "bind len 0", bind(fd, (struct sockaddr *)&ss, 0));
	CLOSE(fd);
}

static void sc_bind_bad_family(struct ctx *c)
{
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(c->fam, 0, &ss);
	int fd = xsock(c, SOCK_STREAM);

	if (fd < 0)
		return;
	ss.ss_family = AF_UNIX;
	CALL(c, "bind AF_UNIX family", bind(fd, (struct sockaddr *)&ss, l));
	CLOSE(fd);
}

static void sc_bind_inuse(struct ctx *c)
{
	int l, fd;

	l = listener(c, 4);
	if (l < 0)
		return;
	fd = xsock(c, SOCK_STREAM);
	if (fd >= 0) {
		CALL(c, "bind to listening port",
		     bind(fd, (struct sockaddr *)&c->addr, c->alen));
		CLOSE(fd);
	}
	CLOSE(l);
}

static void sc_bind_reuseaddr(struct ctx *c)
{
	struct sockaddr_storage ss;
	socklen_t l;
	int a, b;

	a = xsock(c, SOCK_STREAM);
	b = xsock(c, SOCK_STREAM);
	if (a < 0 || b < 0)
		goto out;
	CALL(c, "a SO_REUSEADDR", setint(a, SOL_SOCKET, SO_REUSEADDR, 1));
	CALL(c, "b SO_REUSEADDR", setint(b, SOL_SOCKET, SO_REUSEADDR, 1));
	rec_getint(c, "a SO_REUSEADDR", a, SOL_SOCKET, SO_REUSEADDR);
	l = loop_addr(c->fam, 0, &ss);
	CALL(c, "a bind", bind(a, (struct sockaddr *)&ss, l));
	l = sizeof(ss);
	getsockname(a, (struct sockaddr *)&ss, &l);
	CALL(c, "b bind same port", bind(b, (struct sockaddr *)&ss, l));
	CALL(c, "a listen", listen(a, 4));
	CALL(c, "b listen", listen(b, 4));
out:
	CLOSE(a, b);
}

static void sc_listen_relisten(struct ctx *c)
{
	int l, cli, srv;

	l = listener(c, 1);
	if (l < 0)
		return;
	CALL(c, "listen again 16", listen(l, 16));
	CALL(c, "listen again 0", listen(l, 0));
	CALL(c, "listen again 8", listen(l, 8));
	rec_getint(c, "SO_ACCEPTCONN", l, SOL_SOCKET, SO_ACCEPTCONN);
	rec_name(c, "listener getpeername", l, 1, NULL);
	cli = xsock(c, SOCK_STREAM);
	if (cli >= 0) {
		CALL(c, "connect", do_connect(cli, c));
		srv = CALL(c, "accept >= 0", accept(l, NULL, NULL) >= 0 ? 0 : -1);
		(void)srv;
		check_path(c, cli, "client");
		CALL(c, "listen on connected", listen(cli, 4));
		CLOSE(cli);
	}
	CLOSE(l);
}

static void sc_listen_unbound(struct ctx *c)
{
	int l = xsock(c, SOCK_STREAM), cli, srv;
	struct sockaddr_storage ss;

	if (l < 0)
		return;
	CALL(c, "listen unbound", listen(l, 4));
	rec_name(c, "getsockname", l, 0, &ss);
	loop_addr(c->fam, addr_port(&ss), &c->addr);
	c->alen = c->fam == AF_INET6 ? sizeof(struct sockaddr_in6) :
				       sizeof(struct sockaddr_in);
	cli = xsock(c, SOCK_STREAM);
	if (cli >= 0) {
		CALL(c, "connect", do_connect(cli, c));
		srv = accept(l, NULL, NULL);
		rec(c, "accept ok=%d", srv >= 0);
		check_path(c, cli, "client");
		check_path(c, srv, "server");
		CLOSE(cli, srv);
	}
	CLOSE(l);
}

static void sc_accept_nonblock(struct ctx *c)
{
	int l, cli, srv;

	l = listener(c, 4);
	if (l < 0)
		return;
	fcntl(l, F_SETFL, fcntl(l, F_GETFL) | O_NONBLOCK);
	CALL(c, "accept empty", accept(l, NULL, NULL));
	rec_mask(c, "listener idle", poll1(l, ALL_EV, 0));
	cli = xsock(c, SOCK_STREAM);
	if (cli >= 0) {
		CALL(c, "connect", do_connect(cli, c));
		rec_mask(c, "listener pending", wait_ev(c, l, POLLIN));
		srv = accept(l, NULL, NULL);
		rec(c, "accept ok=%d", srv >= 0);
		rec(c, "accepted nonblock=%d",
		    !!(fcntl(srv, F_GETFL) & O_NONBLOCK));
		CALL(c, "accept empty again", accept(l, NULL, NULL));
		check_path(c, srv, "server");
		CLOSE(cli, srv);
	}
	CLOSE(l);
}

static void sc_accept4_flags(struct ctx *c)
{
	int l, cli[3], srv, i;
	static const int fl[3] = {
		0, SOCK_NONBLOCK, SOCK_NONBLOCK | SOCK_CLOEXEC
	};

	l = listener(c, 8);
	if (l < 0)
		return;
	for (i = 0; i < 3; i++) {
		cli[i] = xsock(c, SOCK_STREAM);
		if (cli[i] >= 0)
			CALL(c, "connect", do_connect(cli[i], c));
	}
	for (i = 0; i < 3; i++) {
		srv = accept4(l, NULL, NULL, fl[i]);
		rec(c, "accept4(%#x) ok=%d nonblock=%d cloexec=%d", fl[i],
		    srv >= 0, !!(fcntl(srv, F_GETFL) & O_NONBLOCK),
		    !!(fcntl(srv, F_GETFD) & FD_CLOEXEC));
		check_path(c, srv, "server");
		CLOSE(srv);
	}
	CALL(c, "accept4 bad flags", accept4(l, NULL, NULL, 0x1));
	for (i = 0; i < 3; i++)
		CLOSE(cli[i]);
	CLOSE(l);
}

static void sc_accept_rcvtimeo(struct ctx *c)
{
	int l;
	long t;

	l = listener(c, 4);
	if (l < 0)
		return;
	set_rcvtimeo(l, 300);
	t = now_ms();
	CALL(c, "accept with SO_RCVTIMEO", accept(l, NULL, NULL));
	t = now_ms() - t;
	rec(c, "waited >= 250ms: %d", t >= 250);
	CLOSE(l);
}

static void sc_accept_not_listening(struct ctx *c)
{
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(c->fam, 0, &ss);
	int fd = xsock(c, SOCK_STREAM);

	if (fd < 0)
		return;
	CALL(c, "accept unbound", accept(fd, NULL, NULL));
	CALL(c, "bind", bind(fd, (struct sockaddr *)&ss, l));
	CALL(c, "accept bound", accept(fd, NULL, NULL));
	CLOSE(fd);
}

static void sc_accept_eintr(struct ctx *c)
{
	int l;

	l = listener(c, 4);
	if (l < 0)
		return;
	sigalrm_count = 0;
	arm_alarm(200);
	CALL(c, "blocking accept", accept(l, NULL, NULL));
	rec(c, "SIGALRM seen %d", (int)sigalrm_count);
	CLOSE(l);
}

struct shut_arg {
	int fd, how, delay_ms, rc, err;
};

static void *delayed_shutdown(void *p)
{
	struct shut_arg *a = p;

	msleep(a->delay_ms);
	a->rc = shutdown(a->fd, a->how);
	a->err = a->rc < 0 ? errno : 0;
	return NULL;
}

/*
 * Threaded servers end a blocked accept() by shutting the listener
 * down: accept fails with EINVAL, the port stops accepting.
 */
static void sc_listen_shutdown(struct ctx *c)
{
	struct shut_arg a;
	pthread_t t;
	int l, cli;

	l = listener(c, 4);
	if (l < 0)
		return;
	CALL(c, "shutdown WR of listener", shutdown(l, SHUT_WR));
	a = (struct shut_arg){ l, SHUT_RDWR, 200, 0, 0 };
	pthread_create(&t, NULL, delayed_shutdown, &a);
	CALL(c, "accept blocked until shutdown", accept(l, NULL, NULL));
	pthread_join(t, NULL);
	rec(c, "shutdown RDWR of listener = %d %s", a.rc,
	    a.rc ? ename(a.err) : "");
	CALL(c, "accept after shutdown", accept(l, NULL, NULL));
	cli = xsock(c, SOCK_STREAM);
	if (cli >= 0) {
		CALL(c, "connect to shut listener", do_connect(cli, c));
		CLOSE(cli);
	}
	CLOSE(l);
}

static void sc_recv_eintr(struct ctx *c)
{
	int cli, srv;
	char b[16];

	if (pair(c, &cli, &srv))
		return;
	sigalrm_count = 0;
	arm_alarm(200);
	CALL(c, "blocking recv", recv(srv, b, sizeof(b), 0));
	rec(c, "SIGALRM seen %d", (int)sigalrm_count);
	CALL(c, "send after", send(cli, "z", 1, 0));
	CALL(c, "recv after", recv(srv, b, sizeof(b), 0));
	CLOSE(cli, srv);
}

static void sc_recv_rcvtimeo(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long t;

	if (pair(c, &cli, &srv))
		return;
	set_rcvtimeo(srv, 300);
	t = now_ms();
	CALL(c, "recv with SO_RCVTIMEO", recv(srv, b, sizeof(b), 0));
	rec(c, "waited >= 250ms: %d", now_ms() - t >= 250);
	CLOSE(cli, srv);
}

static void sc_connect_blocking(struct ctx *c)
{
	struct sockaddr_storage cs, cp, ss, sp;
	int l, cli, srv;

	l = listener(c, 4);
	if (l < 0)
		return;
	cli = xsock(c, SOCK_STREAM);
	if (cli < 0)
		goto out;
	CALL(c, "connect", do_connect(cli, c));
	check_path(c, cli, "client");
	srv = CALL(c, "accept ok", accept(l, NULL, NULL));
	if (srv < 0)
		goto out2;
	rec(c, "accept ok fd>=0 %d", srv >= 0);
	check_path(c, srv, "server");
	rec_name(c, "client sockname", cli, 0, &cs);
	rec_name(c, "client peername", cli, 1, &cp);
	rec_name(c, "server sockname", srv, 0, &ss);
	rec_name(c, "server peername", srv, 1, &sp);
	rec(c, "client peer port == listener port: %d", same_port(&cp, &c->addr));
	rec(c, "server local port == listener port: %d", same_port(&ss, &c->addr));
	rec(c, "server peer port == client port: %d", same_port(&sp, &cs));
	rec_getint(c, "SO_ERROR", cli, SOL_SOCKET, SO_ERROR);
	rec_getint(c, "SO_TYPE", srv, SOL_SOCKET, SO_TYPE);
	rec_getint(c, "SO_ACCEPTCONN", srv, SOL_SOCKET, SO_ACCEPTCONN);
	CALL(c, "send", send(cli, "ping", 4, 0));
	{
		char b[8];
		long n = CALL(c, "recv", recv(srv, b, sizeof(b), 0));

		rec_data(c, "server got", b, n);
	}
	CLOSE(srv);
out2:
	CLOSE(cli);
out:
	CLOSE(l);
}

/* A port with nothing listening: bound (reserved) but not listening. */
static int closed_port(struct ctx *c, int *holder)
{
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(c->fam, 0, &ss);

	*holder = xsock(c, SOCK_STREAM);
	if (*holder < 0)
		return -1;
	if (bind(*holder, (struct sockaddr *)&ss, l)) {
		FAIL(c, "bind: %s", strerror(errno));
		return -1;
	}
	c->alen = sizeof(c->addr);
	getsockname(*holder, (struct sockaddr *)&c->addr, &c->alen);
	return 0;
}

static void sc_connect_refused(struct ctx *c)
{
	int h, fd;

	if (closed_port(c, &h))
		goto out;
	fd = xsock(c, SOCK_STREAM);
	if (fd >= 0) {
		CALL(c, "connect to closed port", do_connect(fd, c));
		rec_getint(c, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
		rec_name(c, "getpeername", fd, 1, NULL);
		CLOSE(fd);
	}
out:
	CLOSE(h);
}

static void sc_connect_bad_addrlen(struct ctx *c)
{
	int l, fd;

	l = listener(c, 4);
	if (l < 0)
		return;
	fd = xsock(c, SOCK_STREAM);
	if (fd >= 0) {
		CALL(c, "connect len 8",
		     connect(fd, (struct sockaddr *)&c->addr, 8));
		CALL(c, "connect len 1",
		     connect(fd, (struct sockaddr *)&c->addr, 1));
		CLOSE(fd);
	}
	CLOSE(l);
}

static void sc_connect_nonblock(struct ctx *c)
{
	int l, fd, srv;

	l = listener(c, 4);
	if (l < 0)
		return;
	fd = xsock(c, SOCK_STREAM | SOCK_NONBLOCK);
	if (fd < 0)
		goto out;
	CALL(c, "connect", do_connect(fd, c));
	rec_mask(c, "after connect", wait_ev(c, fd, POLLOUT));
	rec_getint(c, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
	rec_name(c, "getpeername", fd, 1, NULL);
	check_path(c, fd, "client");
	srv = xaccept(c, l);
	check_path(c, srv, "server");
	CALL(c, "send", send(fd, "x", 1, 0));
	CLOSE(srv, fd);
out:
	CLOSE(l);
}

static void sc_connect_nonblock_refused(struct ctx *c)
{
	int h, fd, m;

	if (closed_port(c, &h))
		goto out;
	fd = xsock(c, SOCK_STREAM | SOCK_NONBLOCK);
	if (fd >= 0) {
		CALL(c, "connect", do_connect(fd, c));
		m = wait_ev(c, fd, POLLOUT | POLLERR | POLLHUP);
		rec(c, "POLLERR=%d", m > 0 && (m & POLLERR));
		rec_getint(c, "SO_ERROR", fd, SOL_SOCKET, SO_ERROR);
		rec_getint(c, "SO_ERROR again", fd, SOL_SOCKET, SO_ERROR);
		CLOSE(fd);
	}
out:
	CLOSE(h);
}

static void sc_connect_again(struct ctx *c)
{
	int l, fd, srv, r;

	l = listener(c, 4);
	if (l < 0)
		return;
	fd = xsock(c, SOCK_STREAM | SOCK_NONBLOCK);
	if (fd < 0)
		goto out;
	CALL(c, "connect", do_connect(fd, c));
	errno = 0;
	r = do_connect(fd, c);
	/* racy on loopback: still in progress or already established */
	rec(c, "connect immediately again: %s",
	    (r == 0 || errno == EALREADY || errno == EISCONN) ?
	    "0/EALREADY/EISCONN" : ename(errno));
	wait_ev(c, fd, POLLOUT);
	errno = 0;
	r = do_connect(fd, c);
	rec(c, "connect after POLLOUT: %s",
	    (r == 0 || errno == EISCONN) ? "0/EISCONN" : ename(errno));
	CALL(c, "connect once more", do_connect(fd, c));
	check_path(c, fd, "client");
	srv = xaccept(c, l);
	CLOSE(srv, fd);
out:
	CLOSE(l);
}

static void sc_poll_listener(struct ctx *c)
{
	int l, cli, srv;

	l = listener(c, 4);
	if (l < 0)
		return;
	rec_mask(c, "listener idle", poll1(l, ALL_EV, 0));
	cli = xsock(c, SOCK_STREAM);
	if (cli < 0)
		goto out;
	CALL(c, "connect", do_connect(cli, c));
	rec_mask(c, "listener pending", wait_ev(c, l, POLLIN));
	srv = xaccept(c, l);
	rec_mask(c, "listener drained", poll1(l, ALL_EV, 0));
	check_path(c, srv, "server");
	CLOSE(srv, cli);
out:
	CLOSE(l);
}

static void sc_poll_stages(struct ctx *c)
{
	int cli, srv;
	char b[16];

	if (pair(c, &cli, &srv))
		return;
	rec_mask(c, "client connected", wait_ev(c, cli, POLLOUT));
	rec_mask(c, "server connected", wait_ev(c, srv, POLLOUT));
	CALL(c, "send", send(cli, "data", 4, 0));
	rec_mask(c, "server data", wait_ev(c, srv, POLLIN));
	CALL(c, "recv", recv(srv, b, sizeof(b), 0));
	rec_mask(c, "server drained", poll1(srv, ALL_EV, 0));
	CALL(c, "client shutdown WR", shutdown(cli, SHUT_WR));
	rec_mask(c, "server peer shut WR", wait_ev(c, srv, POLLRDHUP));
	rec_mask(c, "client after own SHUT_WR", poll1(cli, ALL_EV, 0));
	CALL(c, "recv EOF", recv(srv, b, sizeof(b), 0));
	CALL(c, "server shutdown WR", shutdown(srv, SHUT_WR));
	rec_mask(c, "client both closed", wait_ev(c, cli, POLLHUP));
	rec_mask(c, "server both closed", wait_ev(c, srv, POLLHUP));
	CLOSE(cli, srv);
}

static void sc_poll_rst(struct ctx *c)
{
	struct linger lg = { 1, 0 };
	int cli, srv;
	char b[16];

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "SO_LINGER {1,0}",
	     setsockopt(cli, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	CLOSE(cli);
	rec_mask(c, "server after RST", wait_ev(c, srv, POLLERR));
	CALL(c, "recv", recv(srv, b, sizeof(b), 0));
	rec_mask(c, "server after error read", poll1(srv, ALL_EV, 0));
	CALL(c, "recv again", recv(srv, b, sizeof(b), 0));
	rec_getint(c, "SO_ERROR", srv, SOL_SOCKET, SO_ERROR);
	CLOSE(srv);
}

static void sc_epoll_level(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP }, out[4];
	int cli, srv, ep;
	char b[64];

	if (pair(c, &cli, &srv))
		return;
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = srv;
	CALL(c, "epoll_ctl add", epoll_ctl(ep, EPOLL_CTL_ADD, srv, &ev));
	CALL(c, "epoll_wait idle", epoll_wait(ep, out, 4, 0));
	CALL(c, "send", send(cli, "hello", 5, 0));
	wait_inq(c, srv, 5);
	CALL(c, "epoll_wait data", epoll_wait(ep, out, 4, WAIT_MS));
	rec(c, "events %#x", out[0].events);
	CALL(c, "epoll_wait level again", epoll_wait(ep, out, 4, 0));
	rec(c, "events %#x", out[0].events);
	CALL(c, "recv", recv(srv, b, sizeof(b), 0));
	CALL(c, "epoll_wait drained", epoll_wait(ep, out, 4, 0));
	CALL(c, "shutdown WR", shutdown(cli, SHUT_WR));
	CALL(c, "epoll_wait rdhup", epoll_wait(ep, out, 4, WAIT_MS));
	rec(c, "events %#x", out[0].events);
	CLOSE(ep, cli, srv);
}

static void sc_epoll_edge(struct ctx *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET }, out[4];
	int cli, srv, ep, total = 0, i;
	char b[64];
	ssize_t n;

	if (pair(c, &cli, &srv))
		return;
	fcntl(srv, F_SETFL, O_NONBLOCK);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = srv;
	CALL(c, "epoll_ctl add ET", epoll_ctl(ep, EPOLL_CTL_ADD, srv, &ev));
	for (i = 0; i < 3; i++) {
		CALL(c, "send", send(cli, "abc", 3, 0));
		wait_inq(c, srv, 3 * (i + 1));
		CALL(c, "epoll_wait new data", epoll_wait(ep, out, 4, WAIT_MS));
		rec(c, "events %#x", out[0].events);
		CALL(c, "epoll_wait no new event", epoll_wait(ep, out, 4, 0));
	}
	while ((n = recv(srv, b, 4, 0)) > 0)
		total += n;
	rec(c, "drained %d bytes, last %zd %s", total, n,
	    n < 0 ? ename(errno) : "");
	CALL(c, "epoll_wait after drain", epoll_wait(ep, out, 4, 0));
	CALL(c, "send", send(cli, "d", 1, 0));
	CALL(c, "epoll_wait re-armed", epoll_wait(ep, out, 4, WAIT_MS));
	CLOSE(ep, cli, srv);
}

static void sc_recv_peek(struct ctx *c)
{
	int cli, srv;
	char b[64];
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "send", send(cli, "hello world", 11, 0));
	wait_inq(c, srv, 11);
	n = CALL(c, "recv PEEK 5", recv(srv, b, 5, MSG_PEEK));
	rec_data(c, "peek", b, n);
	n = CALL(c, "recv PEEK all", recv(srv, b, sizeof(b), MSG_PEEK));
	rec_data(c, "peek", b, n);
	rec(c, "FIONREAD %d", inq(srv));
	n = CALL(c, "recv", recv(srv, b, sizeof(b), 0));
	rec_data(c, "read", b, n);
	CALL(c, "recv PEEK|DONTWAIT empty",
	     recv(srv, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT));
	CLOSE(cli, srv);
}

struct piece_arg {
	int fd, pieces, size, delay_ms;
};

static void *piece_sender(void *p)
{
	struct piece_arg *a = p;
	char *buf = malloc(a->size);
	int i;

	for (i = 0; i < a->pieces; i++) {
		fill(buf, a->size, i + 1);
		send_all(a->fd, buf, a->size);
		msleep(a->delay_ms);
	}
	free(buf);
	return NULL;
}

/*
 * @pieces of @size bytes, @delay_ms apart, read with one MSG_WAITALL
 * recv of them all; the pair stays open
 */
static void waitall_pieces(struct ctx *c, int cli, int srv, int pieces,
			   int size, int delay_ms)
{
	struct piece_arg a = { cli, pieces, size, delay_ms };
	long len = (long)pieces * size, n;
	char *b = malloc(len);
	char what[48];
	pthread_t t;

	pthread_create(&t, NULL, piece_sender, &a);
	snprintf(what, sizeof(what), "recv WAITALL %ld", len);
	n = CALL(c, what, recv(srv, b, len, MSG_WAITALL));
	rec_data(c, "waitall", b, n);
	pthread_join(t, NULL);
	free(b);
}

static void sc_recv_waitall(struct ctx *c)
{
	int cli, srv;
	char b[100];

	if (pair(c, &cli, &srv))
		return;
	waitall_pieces(c, cli, srv, 3, 1000, 60);
	CALL(c, "shutdown WR", shutdown(cli, SHUT_WR));
	CALL(c, "recv WAITALL at EOF", recv(srv, b, 100, MSG_WAITALL));
	CLOSE(cli, srv);
}

/*
 * MSG_WAITALL for more than the receive buffer holds: the reader makes
 * room as it reads, so TCP returns all of it in one call
 */
static void sc_recv_waitall_large(struct ctx *c)
{
	int cli, srv;

	if (pair(c, &cli, &srv))
		return;
	waitall_pieces(c, cli, srv, 5, 200000, 20);
	CLOSE(cli, srv);
}

static void sc_recv_dontwait(struct ctx *c)
{
	int cli, srv;
	char b[16];

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "recv DONTWAIT", recv(srv, b, sizeof(b), MSG_DONTWAIT));
	CALL(c, "send DONTWAIT", send(cli, "abc", 3, MSG_DONTWAIT));
	wait_inq(c, srv, 3);
	CALL(c, "recv DONTWAIT data", recv(srv, b, sizeof(b), MSG_DONTWAIT));
	CALL(c, "recv DONTWAIT again", recv(srv, b, sizeof(b), MSG_DONTWAIT));
	CLOSE(cli, srv);
}

static void sc_recv_unconnected(struct ctx *c)
{
	int fd = xsock(c, SOCK_STREAM), l;
	char b[8];

	if (fd < 0)
		return;
	CALL(c, "recv unconnected", recv(fd, b, sizeof(b), 0));
	CALL(c, "read unconnected", read(fd, b, sizeof(b)));
	CALL(c, "recv DONTWAIT unconnected",
	     recv(fd, b, sizeof(b), MSG_DONTWAIT));
	l = listener(c, 4);
	if (l >= 0) {
		CALL(c, "recv on listener", recv(l, b, sizeof(b), MSG_DONTWAIT));
		CLOSE(l);
	}
	CLOSE(fd);
}

static void sc_oob(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "send ab", send(cli, "ab", 2, 0));
	CALL(c, "send X OOB", send(cli, "X", 1, MSG_OOB));
	rec_mask(c, "server urgent", wait_ev(c, srv, POLLPRI));
	wait_inq(c, srv, 2);
	rec_atmark(c, "at mark", srv);
	n = CALL(c, "recv", recv(srv, b, sizeof(b), 0));
	rec_data(c, "normal", b, n);
	rec_atmark(c, "at mark after normal data", srv);
	n = CALL(c, "recv OOB", recv(srv, b, sizeof(b), MSG_OOB));
	rec_data(c, "oob", b, n);
	CALL(c, "recv OOB again", recv(srv, b, sizeof(b), MSG_OOB));
	CALL(c, "recv DONTWAIT rest", recv(srv, b, sizeof(b), MSG_DONTWAIT));
	CLOSE(cli, srv);
}

/*
 * Whether SIGURG, blocked, comes within @ms; takes it.  Blocked, it
 * interrupts no poll, so both transports see the same calls.
 */
static int sigurg_within(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGURG);
	return sigtimedwait(&set, NULL, &ts) == SIGURG;
}

/* The owner set by F_SETOWN is signalled for each new urgent byte */
static void sc_oob_sigurg(struct ctx *c)
{
	int cli, srv;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGURG);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pair(c, &cli, &srv))
		return;
	CALL(c, "F_SETOWN", fcntl(srv, F_SETOWN, getpid()));
	rec(c, "F_GETOWN is us %d", fcntl(srv, F_GETOWN) == getpid());
	CALL(c, "send a", send(cli, "a", 1, 0));
	wait_inq(c, srv, 1);
	rec(c, "SIGURG after normal data %d", sigurg_within(200));
	CALL(c, "send X OOB", send(cli, "X", 1, MSG_OOB));
	rec_mask(c, "server urgent", wait_ev(c, srv, POLLPRI));
	rec(c, "SIGURG after urgent byte %d", sigurg_within(WAIT_MS));
	CALL(c, "send Y OOB", send(cli, "Y", 1, MSG_OOB));
	rec(c, "SIGURG after a second urgent byte %d",
	    sigurg_within(WAIT_MS));
	CALL(c, "F_SETOWN 0", fcntl(srv, F_SETOWN, 0));
	CALL(c, "send Z OOB", send(cli, "Z", 1, MSG_OOB));
	rec(c, "SIGURG without an owner %d", sigurg_within(300));
	CLOSE(cli, srv);
}

/* MSG_OOB peeks the urgent byte @ch on @fd */
static bool oob_peeks(int fd, int ch)
{
	char b;

	return recv(fd, &b, 1, MSG_OOB | MSG_PEEK | MSG_DONTWAIT) == 1 &&
	       b == ch;
}

/*
 * "ab" and the urgent byte X from @cli; @srv reads up to @len bytes of
 * it, which stops at X's mark
 */
static void oob_read_to_mark(struct ctx *c, int cli, int srv, size_t len)
{
	char b[16];
	long n;

	CALL(c, "send ab", send(cli, "ab", 2, 0));
	CALL(c, "send X OOB", send(cli, "X", 1, MSG_OOB));
	rec_mask(c, "server urgent", wait_ev(c, srv, POLLPRI));
	wait_inq(c, srv, 2);
	n = CALL(c, "recv", recv(srv, b, len, 0));
	rec_data(c, "normal", b, n);
}

/* Read from @fd into @b until it holds @want bytes or a read fails */
static int recv_upto(int fd, char *b, int size, int want, int flags)
{
	int have = 0;
	long n;

	while (have < want) {
		n = recv(fd, b + have, size - have, flags);
		if (n <= 0)
			break;
		have += n;
	}
	return have;
}

/*
 * A second urgent byte while the reader waits at the first one's mark:
 * the first is stepped over, never read as data.  Every read here fills
 * its buffer exactly, so each ends right at a mark or a skipped byte.
 */
static void sc_oob_replaced(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	oob_read_to_mark(c, cli, srv, 2);
	rec_atmark(c, "at first mark", srv);
	CALL(c, "send cd", send(cli, "cd", 2, 0));
	CALL(c, "send Y OOB", send(cli, "Y", 1, MSG_OOB));
	wait_inq(c, srv, 2);
	n = CALL(c, "recv 1", recv(srv, b, 1, 0));
	rec_data(c, "after the skipped byte", b, n);
	n = CALL(c, "recv 1 more", recv(srv, b, 1, 0));
	rec_data(c, "up to the second mark", b, n);
	rec_atmark(c, "at second mark", srv);
	n = CALL(c, "recv OOB", recv(srv, b, sizeof(b), MSG_OOB));
	rec_data(c, "oob", b, n);
	CALL(c, "recv DONTWAIT rest", recv(srv, b, sizeof(b), MSG_DONTWAIT));
	CLOSE(cli, srv);
}

/*
 * The second urgent byte right behind the first, the reader at the
 * first one's mark: past the skipped byte it is at the new mark.
 */
static void sc_oob_replaced_at_mark(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	oob_read_to_mark(c, cli, srv, 2);
	CALL(c, "send Y OOB", send(cli, "Y", 1, MSG_OOB));
	/* the new urgent byte is there once MSG_OOB peeks it */
	if (!wait_until(oob_peeks, srv, 'Y'))
		FAIL(c, "timeout waiting for the second urgent byte");
	rec(c, "inq %d", inq(srv));
	rec_atmark(c, "at the new mark", srv);
	rec_mask(c, "poll", poll1(srv, ALL_EV, 0));
	CALL(c, "recv DONTWAIT", recv(srv, b, sizeof(b), MSG_DONTWAIT));
	n = CALL(c, "recv OOB", recv(srv, b, sizeof(b), MSG_OOB));
	rec_data(c, "oob", b, n);
	CLOSE(cli, srv);
}

/* A peek past a replaced urgent byte, then the read that takes it */
static void sc_oob_peek_past_hole(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	oob_read_to_mark(c, cli, srv, sizeof(b));
	CALL(c, "send cde", send(cli, "cde", 3, 0));
	CALL(c, "send Y OOB", send(cli, "Y", 1, MSG_OOB));
	wait_inq(c, srv, 3);
	n = CALL(c, "peek", recv(srv, b, sizeof(b), MSG_PEEK));
	rec_data(c, "peeked", b, n);
	n = CALL(c, "peek OOB", recv(srv, b, sizeof(b), MSG_OOB | MSG_PEEK));
	rec_data(c, "peeked oob", b, n);
	n = CALL(c, "recv", recv(srv, b, sizeof(b), 0));
	rec_data(c, "normal", b, n);
	n = CALL(c, "recv OOB", recv(srv, b, sizeof(b), MSG_OOB));
	rec_data(c, "oob", b, n);
	CALL(c, "recv OOB again", recv(srv, b, sizeof(b), MSG_OOB));
	CLOSE(cli, srv);
}

/*
 * A second urgent byte while the first is still far from the reader:
 * the first becomes normal data, read in the stream.
 */
static void sc_oob_unread_becomes_data(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "send ab", send(cli, "ab", 2, 0));
	CALL(c, "send X OOB", send(cli, "X", 1, MSG_OOB));
	CALL(c, "send cd", send(cli, "cd", 2, 0));
	CALL(c, "send Y OOB", send(cli, "Y", 1, MSG_OOB));
	wait_inq(c, srv, 5);
	n = recv_upto(srv, b, sizeof(b), 5, MSG_DONTWAIT);
	rec_data(c, "stream", b, n);
	n = CALL(c, "recv OOB", recv(srv, b, sizeof(b), MSG_OOB));
	rec_data(c, "oob", b, n);
	CLOSE(cli, srv);
}

static void sc_oob_inline(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "SO_OOBINLINE", setint(srv, SOL_SOCKET, SO_OOBINLINE, 1));
	rec_getint(c, "SO_OOBINLINE", srv, SOL_SOCKET, SO_OOBINLINE);
	CALL(c, "send ab", send(cli, "ab", 2, 0));
	CALL(c, "send X OOB", send(cli, "X", 1, MSG_OOB));
	CALL(c, "send cd", send(cli, "cd", 2, 0));
	wait_inq(c, srv, 5);
	n = recv_upto(srv, b, sizeof(b), 5, 0);
	rec_data(c, "inline stream", b, n);
	CALL(c, "recv OOB inline", recv(srv, b, sizeof(b), MSG_OOB));
	CLOSE(cli, srv);
}

static void sc_sigpipe_shutdown(struct ctx *c)
{
	int cli, srv;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "shutdown WR", shutdown(cli, SHUT_WR));
	sigpipe_count = 0;
	CALL(c, "send NOSIGNAL", send(cli, "a", 1, MSG_NOSIGNAL));
	rec(c, "SIGPIPE count %d", (int)sigpipe_count);
	CALL(c, "send", send(cli, "a", 1, 0));
	rec(c, "SIGPIPE count %d", (int)sigpipe_count);
	CALL(c, "write", write(cli, "a", 1));
	rec(c, "SIGPIPE count %d", (int)sigpipe_count);
	CLOSE(cli, srv);
}

static void sc_sigpipe_reset(struct ctx *c)
{
	struct linger lg = { 1, 0 };
	int cli, srv;

	if (pair(c, &cli, &srv))
		return;
	setsockopt(srv, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	CLOSE(srv);
	rec_mask(c, "client after RST", wait_ev(c, cli, POLLERR));
	sigpipe_count = 0;
	CALL(c, "send NOSIGNAL", send(cli, "a", 1, MSG_NOSIGNAL));
	CALL(c, "send NOSIGNAL", send(cli, "a", 1, MSG_NOSIGNAL));
	rec(c, "SIGPIPE count %d", (int)sigpipe_count);
	CALL(c, "send", send(cli, "a", 1, 0));
	rec(c, "SIGPIPE count %d", (int)sigpipe_count);
	CLOSE(cli);
}

static void sc_cork_more(struct ctx *c)
{
	int cli, srv;
	char b[32];
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "TCP_CORK 1", setint(cli, SOL_TCP, TCP_CORK, 1));
	rec_getint(c, "TCP_CORK", cli, SOL_TCP, TCP_CORK);
	CALL(c, "send MORE", send(cli, "aaa", 3, MSG_MORE));
	CALL(c, "send MORE", send(cli, "bbb", 3, MSG_MORE));
	CALL(c, "send", send(cli, "ccc", 3, 0));
	CALL(c, "TCP_CORK 0", setint(cli, SOL_TCP, TCP_CORK, 0));
	rec_getint(c, "TCP_CORK", cli, SOL_TCP, TCP_CORK);
	wait_inq(c, srv, 9);
	n = CALL(c, "recv", recv(srv, b, sizeof(b), 0));
	rec_data(c, "corked", b, n);
	CLOSE(cli, srv);
}

/*
 * The writers of the sendfile and splice scenarios run in a thread of
 * their own while the main thread reads: how much a connection buffers
 * is not part of the socket API, and SMC buffers less than TCP does.
 */
struct bulk_writer {
	int	sock;
	int	mfd;		/* sendfile source, or -1 to send buf */
	const char *buf;
	size_t	len;
	long	sent;
	off_t	off;
	int	shut_rc;
};

static void *bulk_write(void *arg)
{
	struct bulk_writer *w = arg;
	long r;

	while (w->sent < (long)w->len) {
		if (w->mfd >= 0)
			r = sendfile(w->sock, w->mfd, &w->off,
				     w->len - w->sent);
		else
			r = send(w->sock, w->buf + w->sent,
				 w->len - w->sent, 0);
		if (r <= 0)
			break;
		w->sent += r;
	}
	w->shut_rc = shutdown(w->sock, SHUT_WR);
	return NULL;
}

static void sc_sendfile(struct ctx *c)
{
	const size_t sz = 200000;
	char *src = malloc(sz), *dst = malloc(sz);
	struct bulk_writer w = { .len = sz };
	int cli, srv, mfd;
	pthread_t t;
	long got;

	if (pair(c, &cli, &srv))
		goto out;
	mfd = memfd_create("sendfile-src", MFD_CLOEXEC);
	fill(src, sz, 7);
	if (mfd < 0 || write(mfd, src, sz) != (ssize_t)sz) {
		FAIL(c, "memfd: %s", strerror(errno));
		goto out2;
	}
	w.sock = cli;
	w.mfd = mfd;
	pthread_create(&t, NULL, bulk_write, &w);
	got = recv_all(srv, dst, sz);
	pthread_join(t, NULL);
	rec(c, "sendfile total %ld offset %ld", w.sent, (long)w.off);
	rec(c, "shutdown WR = %d", w.shut_rc);
	rec_data(c, "received", dst, got);
	rec(c, "matches source %d", got == (long)sz && !memcmp(src, dst, sz));
	CLOSE(mfd);
out2:
	CLOSE(cli, srv);
out:
	free(src);
	free(dst);
}

/* splice() from sockets that are not connected: TCP's answers, no oops */
static void sc_splice_unconnected(struct ctx *c)
{
	int fd, l, p[2];

	if (pipe(p)) {
		FAIL(c, "pipe: %s", strerror(errno));
		return;
	}
	fd = xsock(c, SOCK_STREAM);
	if (fd >= 0) {
		CALL(c, "splice from fresh socket",
		     splice(fd, NULL, p[1], NULL, 4096, SPLICE_F_NONBLOCK));
		CLOSE(fd);
	}
	l = listener(c, 4);
	if (l >= 0) {
		CALL(c, "splice from listener",
		     splice(l, NULL, p[1], NULL, 4096, SPLICE_F_NONBLOCK));
		CLOSE(l);
	}
	close(p[0]);
	close(p[1]);
}

static void sc_splice(struct ctx *c)
{
	const size_t sz = 150000;
	char *src = malloc(sz), *dst = malloc(sz);
	struct bulk_writer bw = { .mfd = -1, .buf = src, .len = sz };
	int cli, srv, mfd, p[2];
	long moved = 0, r, w;
	loff_t off = 0;
	pthread_t t;

	if (pair(c, &cli, &srv))
		goto out;
	mfd = memfd_create("splice-dst", MFD_CLOEXEC);
	if (mfd < 0 || pipe(p)) {
		FAIL(c, "memfd/pipe: %s", strerror(errno));
		goto out2;
	}
	fill(src, sz, 9);
	bw.sock = cli;
	pthread_create(&t, NULL, bulk_write, &bw);
	for (;;) {
		r = splice(srv, NULL, p[1], NULL, 65536, SPLICE_F_MOVE);
		if (r <= 0) {
			rec(c, "splice sock->pipe end %ld %s", r,
			    r < 0 ? ename(errno) : "");
			break;
		}
		while (r > 0) {
			w = splice(p[0], NULL, mfd, &off, r, SPLICE_F_MOVE);
			if (w <= 0) {
				FAIL(c, "splice pipe->file: %s",
				     strerror(errno));
				shutdown(srv, SHUT_RDWR);
				pthread_join(t, NULL);
				goto out3;
			}
			r -= w;
			moved += w;
		}
	}
	pthread_join(t, NULL);
	rec(c, "send = %ld", bw.sent);
	rec(c, "shutdown WR = %d", bw.shut_rc);
	rec(c, "spliced %ld", moved);
	memset(dst, 0, sz);
	r = pread(mfd, dst, sz, 0);
	rec(c, "file size %ld matches %d", r,
	    r == (long)sz && !memcmp(src, dst, sz));
out3:
	CLOSE(mfd, p[0], p[1]);
out2:
	CLOSE(cli, srv);
out:
	free(src);
	free(dst);
}

static void sc_shutdown_rd(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "server shutdown RD", shutdown(srv, SHUT_RD));
	CALL(c, "recv after SHUT_RD", recv(srv, b, sizeof(b), MSG_DONTWAIT));
	rec_mask(c, "server after SHUT_RD", poll1(srv, ALL_EV, 0));
	CALL(c, "server send", send(srv, "back", 4, 0));
	n = CALL(c, "client recv", recv(cli, b, sizeof(b), 0));
	rec_data(c, "client got", b, n);
	CLOSE(cli, srv);
}

static void sc_shutdown_wr(struct ctx *c)
{
	int cli, srv;
	char b[16];
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "client send", send(cli, "last", 4, 0));
	CALL(c, "client shutdown WR", shutdown(cli, SHUT_WR));
	CALL(c, "client send after", send(cli, "x", 1, MSG_NOSIGNAL));
	CALL(c, "client shutdown WR again", shutdown(cli, SHUT_WR));
	n = CALL(c, "server recv", recv_all(srv, b, sizeof(b)));
	rec_data(c, "server got", b, n);
	CALL(c, "server recv EOF", recv(srv, b, sizeof(b), 0));
	CALL(c, "server send", send(srv, "reply", 5, 0));
	n = CALL(c, "client recv", recv(cli, b, sizeof(b), 0));
	rec_data(c, "client got", b, n);
	CLOSE(cli, srv);
}

static void sc_shutdown_rdwr(struct ctx *c)
{
	int cli, srv;
	char b[16];

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "client shutdown RDWR", shutdown(cli, SHUT_RDWR));
	CALL(c, "client recv", recv(cli, b, sizeof(b), 0));
	CALL(c, "client send", send(cli, "x", 1, MSG_NOSIGNAL));
	CALL(c, "server recv EOF", recv(srv, b, sizeof(b), 0));
	rec_mask(c, "client after SHUT_RDWR", wait_ev(c, cli, POLLHUP));
	CLOSE(cli, srv);
}

static void sc_shutdown_einval(struct ctx *c)
{
	int cli, srv;
	char b[4];

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "shutdown 3", shutdown(cli, 3));
	CALL(c, "shutdown -1", shutdown(cli, -1));
	CALL(c, "shutdown 100", shutdown(cli, 100));
	CALL(c, "still works send", send(cli, "k", 1, 0));
	CALL(c, "still works recv", recv(srv, b, sizeof(b), 0));
	CLOSE(cli, srv);
}

static void sc_shutdown_unconnected(struct ctx *c)
{
	int fd = xsock(c, SOCK_STREAM);

	if (fd < 0)
		return;
	CALL(c, "shutdown WR", shutdown(fd, SHUT_WR));
	CALL(c, "shutdown RD", shutdown(fd, SHUT_RD));
	CALL(c, "shutdown RDWR", shutdown(fd, SHUT_RDWR));
	CALL(c, "shutdown 3", shutdown(fd, 3));
	CLOSE(fd);
}

static void sc_linger_rst(struct ctx *c)
{
	struct linger lg = { 1, 0 }, got;
	socklen_t gl = sizeof(got);
	int cli, srv;
	char b[16];

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "SO_LINGER {1,0}",
	     setsockopt(cli, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	memset(&got, 0xff, sizeof(got));
	CALL(c, "get SO_LINGER", getsockopt(cli, SOL_SOCKET, SO_LINGER, &got, &gl));
	rec(c, "linger onoff=%d secs=%d", got.l_onoff, got.l_linger);
	CALL(c, "client send", send(cli, "abc", 3, 0));
	wait_inq(c, srv, 3);
	CALL(c, "close", close(cli));
	wait_ev(c, srv, POLLERR | POLLHUP);
	CALL(c, "server recv", recv(srv, b, sizeof(b), 0));
	CALL(c, "server recv again", recv(srv, b, sizeof(b), 0));
	CLOSE(srv);
}

static void sc_linger_normal(struct ctx *c)
{
	struct linger lg = { 1, 5 };
	char b[2000], r[2000];
	int cli, srv;
	long n, t;

	if (pair(c, &cli, &srv))
		return;
	fill(b, sizeof(b), 3);
	CALL(c, "SO_LINGER {1,5}",
	     setsockopt(cli, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	CALL(c, "send", send_all(cli, b, sizeof(b)));
	t = now_ms();
	CALL(c, "close", close(cli));
	rec(c, "close took < 4s: %d", now_ms() - t < 4000);
	n = CALL(c, "server recv_all", recv_all(srv, r, sizeof(r)));
	rec(c, "data intact %d", n == (long)sizeof(b) && !memcmp(b, r, n));
	CALL(c, "server recv EOF", recv(srv, r, sizeof(r), 0));
	CLOSE(srv);
}

static void sc_sockopt_socket(struct ctx *c)
{
	int fd = xsock(c, SOCK_STREAM), cli, srv;

	if (fd < 0)
		return;
	/* before connect: values set on the socket itself */
	CALL(c, "SO_RCVBUF 65536", setint(fd, SOL_SOCKET, SO_RCVBUF, 65536));
	rec_getint(c, "SO_RCVBUF", fd, SOL_SOCKET, SO_RCVBUF);
	CALL(c, "SO_SNDBUF 65536", setint(fd, SOL_SOCKET, SO_SNDBUF, 65536));
	rec_getint(c, "SO_SNDBUF", fd, SOL_SOCKET, SO_SNDBUF);
	CALL(c, "SO_KEEPALIVE 1", setint(fd, SOL_SOCKET, SO_KEEPALIVE, 1));
	rec_getint(c, "SO_KEEPALIVE", fd, SOL_SOCKET, SO_KEEPALIVE);
	CALL(c, "SO_RCVLOWAT 10", setint(fd, SOL_SOCKET, SO_RCVLOWAT, 10));
	rec_getint(c, "SO_RCVLOWAT", fd, SOL_SOCKET, SO_RCVLOWAT);
	CALL(c, "SO_REUSEADDR 1", setint(fd, SOL_SOCKET, SO_REUSEADDR, 1));
	rec_getint(c, "SO_REUSEADDR", fd, SOL_SOCKET, SO_REUSEADDR);
	CALL(c, "bad optlen", setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, "", 1));
	CLOSE(fd);

	/* after connect (settings that were copied along and new ones) */
	if (pair(c, &cli, &srv))
		return;
	CALL(c, "SO_RCVBUF 100000", setint(cli, SOL_SOCKET, SO_RCVBUF, 100000));
	rec_getint(c, "SO_RCVBUF", cli, SOL_SOCKET, SO_RCVBUF);
	CALL(c, "SO_SNDBUF 100000", setint(srv, SOL_SOCKET, SO_SNDBUF, 100000));
	rec_getint(c, "SO_SNDBUF", srv, SOL_SOCKET, SO_SNDBUF);
	CALL(c, "SO_KEEPALIVE 1", setint(cli, SOL_SOCKET, SO_KEEPALIVE, 1));
	rec_getint(c, "SO_KEEPALIVE", cli, SOL_SOCKET, SO_KEEPALIVE);
	rec_getint(c, "srv SO_KEEPALIVE", srv, SOL_SOCKET, SO_KEEPALIVE);
	CALL(c, "SO_RCVLOWAT 4", setint(srv, SOL_SOCKET, SO_RCVLOWAT, 4));
	CALL(c, "send 2", send(cli, "ab", 2, 0));
	wait_inq(c, srv, 2);
	rec_mask(c, "below lowat", poll1(srv, POLLIN, 0));
	CALL(c, "send 2 more", send(cli, "cd", 2, 0));
	rec_mask(c, "at lowat", wait_ev(c, srv, POLLIN));
	rec_getint(c, "SO_ERROR", cli, SOL_SOCKET, SO_ERROR);
	CLOSE(cli, srv);
}

static void rec_sol_socket_set(struct ctx *c, const char *who, int fd)
{
	struct linger lg;
	struct timeval tv;
	socklen_t l;

	rec_getint(c, "SO_RCVBUF", fd, SOL_SOCKET, SO_RCVBUF);
	rec_getint(c, "SO_SNDBUF", fd, SOL_SOCKET, SO_SNDBUF);
	rec_getint(c, "SO_KEEPALIVE", fd, SOL_SOCKET, SO_KEEPALIVE);
	rec_getint(c, "SO_OOBINLINE", fd, SOL_SOCKET, SO_OOBINLINE);
	rec_getint(c, "SO_RCVLOWAT", fd, SOL_SOCKET, SO_RCVLOWAT);
	rec_getint(c, "SO_PRIORITY", fd, SOL_SOCKET, SO_PRIORITY);
	rec_getint(c, "SO_MARK", fd, SOL_SOCKET, SO_MARK);
	l = sizeof(lg);
	memset(&lg, 0, sizeof(lg));
	getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &l);
	rec(c, "%s SO_LINGER %d/%d", who, lg.l_onoff, lg.l_linger);
	l = sizeof(tv);
	memset(&tv, 0, sizeof(tv));
	getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &l);
	rec(c, "%s SO_RCVTIMEO %ld.%06ld", who, (long)tv.tv_sec,
	    (long)tv.tv_usec);
	rec_getint(c, "TCP_NODELAY", fd, SOL_TCP, TCP_NODELAY);
	rec_getint(c, "TCP_KEEPIDLE", fd, SOL_TCP, TCP_KEEPIDLE);
}

static void set_many(struct ctx *c, int fd)
{
	struct linger lg = { 1, 7 };
	struct timeval tv = { 3, 500000 };

	CALL(c, "SO_RCVBUF", setint(fd, SOL_SOCKET, SO_RCVBUF, 50000));
	CALL(c, "SO_SNDBUF", setint(fd, SOL_SOCKET, SO_SNDBUF, 60000));
	CALL(c, "SO_KEEPALIVE", setint(fd, SOL_SOCKET, SO_KEEPALIVE, 1));
	CALL(c, "SO_OOBINLINE", setint(fd, SOL_SOCKET, SO_OOBINLINE, 1));
	CALL(c, "SO_RCVLOWAT", setint(fd, SOL_SOCKET, SO_RCVLOWAT, 3));
	CALL(c, "SO_PRIORITY", setint(fd, SOL_SOCKET, SO_PRIORITY, 4));
	CALL(c, "SO_MARK", setint(fd, SOL_SOCKET, SO_MARK, 0x77));
	CALL(c, "SO_LINGER",
	     setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	CALL(c, "SO_RCVTIMEO",
	     setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	CALL(c, "TCP_NODELAY", setint(fd, SOL_TCP, TCP_NODELAY, 1));
	CALL(c, "TCP_KEEPIDLE", setint(fd, SOL_TCP, TCP_KEEPIDLE, 99));
}

/* Options set before connect() must still be in force afterwards. */
static void sc_sockopt_before_connect(struct ctx *c)
{
	int l, fd, srv;

	l = listener(c, 4);
	if (l < 0)
		return;
	fd = xsock(c, SOCK_STREAM);
	if (fd < 0)
		goto out;
	set_many(c, fd);
	CALL(c, "connect", do_connect(fd, c));
	check_path(c, fd, "client");
	rec_sol_socket_set(c, "client", fd);
	srv = xaccept(c, l);
	check_path(c, srv, "server");
	CALL(c, "send 2", send(srv, "ab", 2, 0));
	wait_inq(c, fd, 2);
	rec_mask(c, "client below SO_RCVLOWAT", poll1(fd, POLLIN, 0));
	CALL(c, "send 1", send(srv, "c", 1, 0));
	rec_mask(c, "client at SO_RCVLOWAT", wait_ev(c, fd, POLLIN));
	CLOSE(fd, srv);
out:
	CLOSE(l);
}

/* Options of the listener that accepted sockets inherit. */
static void sc_sockopt_inherit(struct ctx *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = loop_addr(c->fam, 0, &ss);
	int l, cli, srv;

	l = xsock(c, SOCK_STREAM);
	if (l < 0)
		return;
	set_many(c, l);
	CALL(c, "bind", bind(l, (struct sockaddr *)&ss, sl));
	CALL(c, "listen", listen(l, 4));
	c->alen = sizeof(c->addr);
	getsockname(l, (struct sockaddr *)&c->addr, &c->alen);
	cli = xsock(c, SOCK_STREAM);
	if (cli < 0)
		goto out;
	CALL(c, "connect", do_connect(cli, c));
	srv = xaccept(c, l);
	check_path(c, srv, "server");
	rec_sol_socket_set(c, "accepted", srv);
	CLOSE(cli, srv);
out:
	CLOSE(l);
}

static void rec_tcp_state(struct ctx *c, const char *label, int fd)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	errno = 0;
	if (getsockopt(fd, SOL_TCP, TCP_INFO, &ti, &l))
		rec(c, "%s TCP_INFO = -1 %s", label, ename(errno));
	else
		rec(c, "%s TCP_INFO state=%u", label, ti.tcpi_state);
}

static void sc_sockopt_tcp(struct ctx *c)
{
	int fd = xsock(c, SOCK_STREAM), cli, srv, l;

	if (fd < 0)
		return;
	rec_getint(c, "TCP_NODELAY", fd, SOL_TCP, TCP_NODELAY);
	CALL(c, "TCP_NODELAY 1", setint(fd, SOL_TCP, TCP_NODELAY, 1));
	rec_getint(c, "TCP_NODELAY", fd, SOL_TCP, TCP_NODELAY);
	CALL(c, "TCP_KEEPIDLE 77", setint(fd, SOL_TCP, TCP_KEEPIDLE, 77));
	rec_getint(c, "TCP_KEEPIDLE", fd, SOL_TCP, TCP_KEEPIDLE);
	CALL(c, "TCP_KEEPINTVL 0", setint(fd, SOL_TCP, TCP_KEEPINTVL, 0));
	CALL(c, "TCP_MAXSEG 1000", setint(fd, SOL_TCP, TCP_MAXSEG, 1000));
	rec_tcp_state(c, "unconnected", fd);
	CLOSE(fd);

	l = listener(c, 4);
	if (l < 0)
		return;
	rec_tcp_state(c, "listener", l);
	CLOSE(l);

	if (pair(c, &cli, &srv))
		return;
	rec_tcp_state(c, "client", cli);
	rec_tcp_state(c, "server", srv);
	{
		/*
		 * The MSS follows the window the peer has shown, which
		 * depends on the traffic so far (the SMC handshake is some),
		 * so only its plausibility is compared.
		 */
		int mss = -1;
		socklen_t ml = sizeof(mss);

		CALL(c, "get client TCP_MAXSEG",
		     getsockopt(cli, SOL_TCP, TCP_MAXSEG, &mss, &ml));
		rec(c, "client TCP_MAXSEG in 536..65535: %d",
		    mss >= 536 && mss <= 65535);
	}
	CALL(c, "TCP_NODELAY 1", setint(cli, SOL_TCP, TCP_NODELAY, 1));
	rec_getint(c, "TCP_NODELAY", cli, SOL_TCP, TCP_NODELAY);
	CALL(c, "TCP_KEEPCNT 3", setint(srv, SOL_TCP, TCP_KEEPCNT, 3));
	rec_getint(c, "TCP_KEEPCNT", srv, SOL_TCP, TCP_KEEPCNT);
	CALL(c, "unknown TCP option", setint(cli, SOL_TCP, 9999, 1));
	CALL(c, "client shutdown WR", shutdown(cli, SHUT_WR));
	wait_ev(c, srv, POLLRDHUP);
	rec_tcp_state(c, "server after FIN", srv);
	CLOSE(cli, srv);
}

static void sc_sockopt_ip(struct ctx *c)
{
	int fd = xsock(c, SOCK_STREAM), cli, srv;
	int level = c->fam == AF_INET6 ? SOL_IPV6 : SOL_IP;
	int opt = c->fam == AF_INET6 ? IPV6_TCLASS : IP_TOS;

	if (fd < 0)
		return;
	rec_getint(c, "TOS/TCLASS", fd, level, opt);
	CALL(c, "TOS/TCLASS 0x10", setint(fd, level, opt, 0x10));
	rec_getint(c, "TOS/TCLASS", fd, level, opt);
	CLOSE(fd);
	if (pair(c, &cli, &srv))
		return;
	CALL(c, "TOS/TCLASS 0x20", setint(cli, level, opt, 0x20));
	rec_getint(c, "TOS/TCLASS", cli, level, opt);
	rec_getint(c, "server TOS/TCLASS", srv, level, opt);
	if (c->fam == AF_INET)
		rec_getint(c, "IP_TTL", cli, SOL_IP, IP_TTL);
	else
		rec_getint(c, "IPV6_UNICAST_HOPS", cli, SOL_IPV6,
			   IPV6_UNICAST_HOPS);
	CLOSE(cli, srv);
}

static void sc_ipv6_v6only(struct ctx *c)
{
	struct sockaddr_storage ss, pn;
	int l6, cli, srv;
	socklen_t l;
	int port;

	l6 = xsock_fam(c, AF_INET6, SOCK_STREAM);
	if (l6 < 0)
		return;
	rec_getint(c, "IPV6_V6ONLY default", l6, SOL_IPV6, IPV6_V6ONLY);
	CALL(c, "IPV6_V6ONLY 1", setint(l6, SOL_IPV6, IPV6_V6ONLY, 1));
	rec_getint(c, "IPV6_V6ONLY", l6, SOL_IPV6, IPV6_V6ONLY);
	l = any_addr(AF_INET6, 0, &ss);
	CALL(c, "bind [::]", bind(l6, (struct sockaddr *)&ss, l));
	CALL(c, "listen", listen(l6, 4));
	l = sizeof(ss);
	getsockname(l6, (struct sockaddr *)&ss, &l);
	port = addr_port(&ss);
	/* an IPv4 client must not reach a v6-only listener */
	c->alen = loop_addr(AF_INET, port, &c->addr);
	cli = xsock_fam(c, AF_INET, SOCK_STREAM);
	if (cli >= 0) {
		CALL(c, "v4 connect to v6only", do_connect(cli, c));
		CLOSE(cli);
	}
	CLOSE(l6);

	/* dual-stack listener accepts IPv4 clients as mapped addresses */
	l6 = xsock_fam(c, AF_INET6, SOCK_STREAM);
	if (l6 < 0)
		return;
	CALL(c, "IPV6_V6ONLY 0", setint(l6, SOL_IPV6, IPV6_V6ONLY, 0));
	l = any_addr(AF_INET6, 0, &ss);
	CALL(c, "bind [::]", bind(l6, (struct sockaddr *)&ss, l));
	CALL(c, "listen", listen(l6, 4));
	l = sizeof(ss);
	getsockname(l6, (struct sockaddr *)&ss, &l);
	c->alen = loop_addr(AF_INET, addr_port(&ss), &c->addr);
	cli = xsock_fam(c, AF_INET, SOCK_STREAM);
	if (cli >= 0) {
		CALL(c, "v4 connect to dual-stack", do_connect(cli, c));
		check_path(c, cli, "client");
		srv = xaccept(c, l6);
		check_path(c, srv, "server");
		rec_name(c, "server peername", srv, 1, &pn);
		rec_name(c, "server sockname", srv, 0, NULL);
		CALL(c, "send", send(cli, "v4", 2, 0));
		{
			char b[4];
			long n = CALL(c, "recv", recv(srv, b, sizeof(b), 0));

			rec_data(c, "got", b, n);
		}
		CLOSE(cli, srv);
	}
	CLOSE(l6);
}

static void sc_ioctl_queues(struct ctx *c)
{
	int cli, srv, l, fd, v;
	char *buf = malloc(5000);

	fd = xsock(c, SOCK_STREAM);
	if (fd >= 0) {
		v = -1;
		CALL(c, "FIONREAD unconnected", ioctl(fd, FIONREAD, &v));
		rec(c, "val %d", v);
		v = -1;
		CALL(c, "SIOCOUTQ unconnected", ioctl(fd, SIOCOUTQ, &v));
		rec(c, "val %d", v);
		CLOSE(fd);
	}
	l = listener(c, 4);
	if (l >= 0) {
		CALL(c, "FIONREAD listener", ioctl(l, FIONREAD, &v));
		CALL(c, "SIOCOUTQ listener", ioctl(l, SIOCOUTQ, &v));
		CLOSE(l);
	}
	if (pair(c, &cli, &srv))
		goto out;
	fill(buf, 5000, 5);
	CALL(c, "send", send_all(cli, buf, 5000));
	wait_inq(c, srv, 5000);
	wait_outq_empty(c, cli);
	rec(c, "FIONREAD %d SIOCOUTQ %d", inq(srv), outq(cli));
	CALL(c, "recv 1000", recv_all(srv, buf, 1000));
	rec(c, "FIONREAD %d", inq(srv));
	rec_atmark(c, "val", srv);
	CLOSE(cli, srv);
out:
	free(buf);
}

static void sc_half_close(struct ctx *c)
{
	const int n1 = 10000, n2 = 20000;
	char *a = malloc(n1), *b = malloc(n2), *r = malloc(n2);
	int cli, srv;
	long n;

	if (pair(c, &cli, &srv))
		goto out;
	fill(a, n1, 11);
	fill(b, n2, 12);
	CALL(c, "client send", send_all(cli, a, n1));
	CALL(c, "client shutdown WR", shutdown(cli, SHUT_WR));
	n = CALL(c, "server read to EOF", recv_all(srv, r, n2));
	rec(c, "server data ok %d", n == n1 && !memcmp(a, r, n1));
	CALL(c, "server EOF again", recv(srv, r, 10, 0));
	CALL(c, "server send reply", send_all(srv, b, n2));
	CALL(c, "server close", close(srv));
	n = CALL(c, "client read to EOF", recv_all(cli, r, n2));
	rec(c, "client data ok %d", n == n2 && !memcmp(b, r, n2));
	CALL(c, "client EOF", recv(cli, r, 10, 0));
	CLOSE(cli);
out:
	free(a);
	free(b);
	free(r);
}

static void sc_large_nonblock(struct ctx *c)
{
	const size_t sz = 2 << 20;
	char *out1 = malloc(sz), *out2 = malloc(sz);
	char *in1 = malloc(sz), *in2 = malloc(sz);
	size_t s1 = 0, s2 = 0, r1 = 0, r2 = 0;
	struct pollfd p[2];
	int cli, srv, stalls = 0;
	ssize_t n;

	if (pair(c, &cli, &srv))
		goto out;
	fcntl(cli, F_SETFL, O_NONBLOCK);
	fcntl(srv, F_SETFL, O_NONBLOCK);
	fill(out1, sz, 21);
	fill(out2, sz, 22);
	while (r1 < sz || r2 < sz) {
		p[0] = (struct pollfd){ .fd = cli, .events = POLLIN |
					(s1 < sz ? POLLOUT : 0) };
		p[1] = (struct pollfd){ .fd = srv, .events = POLLIN |
					(s2 < sz ? POLLOUT : 0) };
		if (poll(p, 2, 5000) <= 0) {
			if (++stalls > 6) {
				FAIL(c, "transfer stalled s1=%zu s2=%zu r1=%zu r2=%zu",
				     s1, s2, r1, r2);
				break;
			}
			continue;
		}
		if ((p[0].revents & POLLOUT) && s1 < sz) {
			n = send(cli, out1 + s1, sz - s1 > 65536 ? 65536 :
				 sz - s1, 0);
			if (n > 0)
				s1 += n;
		}
		if ((p[1].revents & POLLOUT) && s2 < sz) {
			n = send(srv, out2 + s2, sz - s2 > 100000 ? 100000 :
				 sz - s2, 0);
			if (n > 0)
				s2 += n;
		}
		if (p[1].revents & POLLIN) {
			n = recv(srv, in1 + r1, sz - r1, 0);
			if (n > 0)
				r1 += n;
		}
		if (p[0].revents & POLLIN) {
			n = recv(cli, in2 + r2, sz - r2, 0);
			if (n > 0)
				r2 += n;
		}
	}
	rec(c, "client->server %zu ok %d", r1, r1 == sz && !memcmp(out1, in1, sz));
	rec(c, "server->client %zu ok %d", r2, r2 == sz && !memcmp(out2, in2, sz));
	CALL(c, "recv nothing left", recv(srv, in1, 16, 0));
	CLOSE(cli, srv);
out:
	free(out1);
	free(out2);
	free(in1);
	free(in2);
}

static void sc_rw_vec(struct ctx *c)
{
	struct iovec iov[3] = {
		{ "one-", 4 }, { "two-", 4 }, { "three", 5 },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 3 };
	char a[5], b[5], d[8];
	struct iovec riov[3] = { { a, 5 }, { b, 5 }, { d, 8 } };
	struct msghdr rh = { .msg_iov = riov, .msg_iovlen = 3 };
	int cli, srv;
	long n;

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "writev", writev(cli, iov, 3));
	CALL(c, "sendmsg", sendmsg(cli, &mh, 0));
	CALL(c, "write", write(cli, "end", 3));
	wait_inq(c, srv, 29);
	n = CALL(c, "readv 18", readv(srv, riov, 3));
	rec_data(c, "a", a, 5);
	rec_data(c, "b", b, 5);
	rec_data(c, "d", d, n > 10 ? n - 10 : 0);
	n = CALL(c, "recvmsg", recvmsg(srv, &rh, 0));
	rec(c, "msg_flags %#x", rh.msg_flags);
	CALL(c, "recv DONTWAIT nothing left",
	     recv(srv, d, sizeof(d), MSG_DONTWAIT));
	CALL(c, "send", send(cli, "tail", 4, 0));
	n = CALL(c, "read", read(srv, d, sizeof(d)));
	rec_data(c, "tail", d, n);
	CLOSE(cli, srv);
}

static void sc_zero_length_io(struct ctx *c)
{
	int cli, srv;
	char b[8];

	if (pair(c, &cli, &srv))
		return;
	CALL(c, "send 0", send(cli, b, 0, 0));
	CALL(c, "write 0", write(cli, b, 0));
	CALL(c, "recv 0 DONTWAIT", recv(srv, b, 0, MSG_DONTWAIT));
	CALL(c, "send 1", send(cli, "q", 1, 0));
	wait_inq(c, srv, 1);
	CALL(c, "recv 0 with data", recv(srv, b, 0, 0));
	rec(c, "FIONREAD %d", inq(srv));
	CALL(c, "recv 1", recv(srv, b, 1, 0));
	CLOSE(cli, srv);
}

/* Fill a non-blocking sender until EAGAIN, then drain and recover. */
static void sc_nonblock_backpressure(struct ctx *c)
{
	const size_t chunk = 65536;
	char *buf = malloc(chunk), *rbuf = malloc(chunk);
	size_t sent = 0, got = 0;
	uint64_t hs = 0xcbf29ce484222325ULL, hr = hs;
	int cli, srv, eagain = 0, m, i;
	ssize_t r;

	if (pair(c, &cli, &srv))
		goto out;
	fcntl(cli, F_SETFL, O_NONBLOCK);
	for (i = 0; i < 4096 && !eagain; i++) {
		fill(buf, chunk, i + 1);
		r = send(cli, buf, chunk, 0);
		if (r < 0) {
			eagain = errno == EAGAIN;
			if (!eagain)
				rec(c, "send error %s", ename(errno));
			break;
		}
		/*
		 * A partial write may be followed by another one: TCP
		 * frees room as the peer's receive queue takes segments.
		 */
		hs = fnv1a_more(hs, buf, r);
		sent += r;
	}
	rec(c, "send buffer filled, EAGAIN %d", eagain);
	m = poll1(cli, POLLOUT, 0);
	rec(c, "POLLOUT while full %d", m > 0 && (m & POLLOUT));
	while (got < sent) {
		size_t want = sent - got < chunk ? sent - got : chunk;
		size_t part = 0;

		while (part < want) {
			r = recv(srv, rbuf + part, want - part, 0);
			if (r <= 0)
				break;
			part += r;
		}
		if (part < want) {
			FAIL(c, "short read at %zu of %zu", got, sent);
			break;
		}
		hr = fnv1a_more(hr, rbuf, part);
		got += part;
	}
	rec(c, "drained all %d intact %d", got == sent, hs == hr);
	rec_mask(c, "sender after drain", wait_ev(c, cli, POLLOUT));
	CALL(c, "send again", send(cli, "z", 1, 0));
	CLOSE(cli, srv);
out:
	free(buf);
	free(rbuf);
}

struct scenario {
	const char *name;
	void (*fn)(struct ctx *c);
	int fam;
};

static const struct scenario scenarios[] = {
	{ "socket_basic", sc_socket_basic, AF_INET },
	{ "socket_basic_v6", sc_socket_basic, AF_INET6 },
	{ "socket_flags", sc_socket_flags, AF_INET },
	{ "bind_twice", sc_bind_twice, AF_INET },
	{ "bind_twice_v6", sc_bind_twice, AF_INET6 },
	{ "bind_bad_addrlen", sc_bind_bad_addrlen, AF_INET },
	{ "bind_bad_addrlen_v6", sc_bind_bad_addrlen, AF_INET6 },
	{ "bind_bad_family", sc_bind_bad_family, AF_INET },
	{ "bind_bad_family_v6", sc_bind_bad_family, AF_INET6 },
	{ "bind_inuse", sc_bind_inuse, AF_INET },
	{ "bind_inuse_v6", sc_bind_inuse, AF_INET6 },
	{ "bind_reuseaddr", sc_bind_reuseaddr, AF_INET },
	{ "listen_relisten", sc_listen_relisten, AF_INET },
	{ "listen_unbound", sc_listen_unbound, AF_INET },
	{ "listen_unbound_v6", sc_listen_unbound, AF_INET6 },
	{ "accept_nonblock", sc_accept_nonblock, AF_INET },
	{ "accept4_flags", sc_accept4_flags, AF_INET },
	{ "accept_rcvtimeo", sc_accept_rcvtimeo, AF_INET },
	{ "accept_not_listening", sc_accept_not_listening, AF_INET },
	{ "accept_eintr", sc_accept_eintr, AF_INET },
	{ "listen_shutdown", sc_listen_shutdown, AF_INET },
	{ "listen_shutdown_v6", sc_listen_shutdown, AF_INET6 },
	{ "recv_eintr", sc_recv_eintr, AF_INET },
	{ "recv_rcvtimeo", sc_recv_rcvtimeo, AF_INET },
	{ "connect_blocking", sc_connect_blocking, AF_INET },
	{ "connect_blocking_v6", sc_connect_blocking, AF_INET6 },
	{ "connect_refused", sc_connect_refused, AF_INET },
	{ "connect_refused_v6", sc_connect_refused, AF_INET6 },
	{ "connect_bad_addrlen", sc_connect_bad_addrlen, AF_INET },
	{ "connect_nonblock", sc_connect_nonblock, AF_INET },
	{ "connect_nonblock_v6", sc_connect_nonblock, AF_INET6 },
	{ "connect_nonblock_refused", sc_connect_nonblock_refused, AF_INET },
	{ "connect_again", sc_connect_again, AF_INET },
	{ "poll_listener", sc_poll_listener, AF_INET },
	{ "poll_stages", sc_poll_stages, AF_INET },
	{ "poll_stages_v6", sc_poll_stages, AF_INET6 },
	{ "poll_rst", sc_poll_rst, AF_INET },
	{ "epoll_level", sc_epoll_level, AF_INET },
	{ "epoll_edge", sc_epoll_edge, AF_INET },
	{ "recv_peek", sc_recv_peek, AF_INET },
	{ "recv_peek_v6", sc_recv_peek, AF_INET6 },
	{ "recv_waitall", sc_recv_waitall, AF_INET },
	{ "recv_waitall_large", sc_recv_waitall_large, AF_INET },
	{ "recv_dontwait", sc_recv_dontwait, AF_INET },
	{ "recv_unconnected", sc_recv_unconnected, AF_INET },
	{ "oob", sc_oob, AF_INET },
	{ "oob_sigurg", sc_oob_sigurg, AF_INET },
	{ "oob_v6", sc_oob, AF_INET6 },
	{ "oob_inline", sc_oob_inline, AF_INET },
	{ "oob_replaced", sc_oob_replaced, AF_INET },
	{ "oob_replaced_at_mark", sc_oob_replaced_at_mark, AF_INET },
	{ "oob_peek_past_hole", sc_oob_peek_past_hole, AF_INET },
	{ "oob_unread_becomes_data", sc_oob_unread_becomes_data, AF_INET },
	{ "sigpipe_shutdown", sc_sigpipe_shutdown, AF_INET },
	{ "sigpipe_reset", sc_sigpipe_reset, AF_INET },
	{ "cork_more", sc_cork_more, AF_INET },
	{ "sendfile", sc_sendfile, AF_INET },
	{ "splice", sc_splice, AF_INET },
	{ "splice_unconnected", sc_splice_unconnected, AF_INET },
	{ "splice_unconnected_v6", sc_splice_unconnected, AF_INET6 },
	{ "shutdown_rd", sc_shutdown_rd, AF_INET },
	{ "shutdown_wr", sc_shutdown_wr, AF_INET },
	{ "shutdown_wr_v6", sc_shutdown_wr, AF_INET6 },
	{ "shutdown_rdwr", sc_shutdown_rdwr, AF_INET },
	{ "shutdown_einval", sc_shutdown_einval, AF_INET },
	{ "shutdown_unconnected", sc_shutdown_unconnected, AF_INET },
	{ "linger_rst", sc_linger_rst, AF_INET },
	{ "linger_rst_v6", sc_linger_rst, AF_INET6 },
	{ "linger_normal", sc_linger_normal, AF_INET },
	{ "sockopt_socket", sc_sockopt_socket, AF_INET },
	{ "sockopt_before_connect", sc_sockopt_before_connect, AF_INET },
	{ "sockopt_before_connect_v6", sc_sockopt_before_connect, AF_INET6 },
	{ "sockopt_inherit", sc_sockopt_inherit, AF_INET },
	{ "sockopt_tcp", sc_sockopt_tcp, AF_INET },
	{ "sockopt_tcp_v6", sc_sockopt_tcp, AF_INET6 },
	{ "sockopt_ip_tos", sc_sockopt_ip, AF_INET },
	{ "sockopt_ipv6_tclass", sc_sockopt_ip, AF_INET6 },
	{ "ipv6_v6only", sc_ipv6_v6only, AF_INET6 },
	{ "ioctl_queues", sc_ioctl_queues, AF_INET },
	{ "ioctl_queues_v6", sc_ioctl_queues, AF_INET6 },
	{ "half_close", sc_half_close, AF_INET },
	{ "half_close_v6", sc_half_close, AF_INET6 },
	{ "large_nonblock", sc_large_nonblock, AF_INET },
	{ "large_nonblock_v6", sc_large_nonblock, AF_INET6 },
	{ "rw_vec", sc_rw_vec, AF_INET },
	{ "zero_length_io", sc_zero_length_io, AF_INET },
	{ "nonblock_backpressure", sc_nonblock_backpressure, AF_INET },
	{ "nonblock_backpressure_v6", sc_nonblock_backpressure, AF_INET6 },
};

#define NR_SCENARIOS	((int)(sizeof(scenarios) / sizeof(scenarios[0])))

/* --------------------------------------------------------------- runner */

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipe_count++;
}

static void on_sigalrm(int sig)
{
	(void)sig;
	sigalrm_count++;
}

static void child_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: EINTR must be visible */
	sa.sa_handler = on_sigpipe;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_sigalrm;
	sigaction(SIGALRM, &sa, NULL);
}

/* Run fn in a child process; returns 0, or -1 on timeout/crash. */
static int run_child(void (*fn)(struct ctx *), int fam, int smc,
		     struct shm *o)
{
	struct ctx c;
	long end;
	pid_t pid;
	int st;

	memset(o, 0, sizeof(*o));
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		snprintf(o->notes, NOTES_MAX, "fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		child_signals();
		memset(&c, 0, sizeof(c));
		c.fam = fam;
		c.smc = smc && !smc_override_inet;
		c.check_path = !smc_override_inet;
		c.o = o;
		fn(&c);
		_exit(0);
	}
	end = now_ms() + SCEN_TIMEOUT_S * 1000L;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			o->hard_fail = 1;
			o->nlen = strlen(o->notes);
			snprintf(o->notes + o->nlen, NOTES_MAX - o->nlen,
				 "timeout after %d s\n", SCEN_TIMEOUT_S);
			return -1;
		}
		msleep(10);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		o->hard_fail = 1;
		o->nlen = strlen(o->notes);
		snprintf(o->notes + o->nlen, NOTES_MAX - o->nlen,
			 "child died: status %#x\n", st);
		return -1;
	}
	return 0;
}

static void print_lines(const char *prefix, const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		printf("# %s%.*s\n", prefix, (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

/* Show both traces side by side from the first differing line on. */
static void print_diff(const char *a, const char *b)
{
	const char *pa = a, *pb = b;
	int line = 1, shown = 0;

	while (*pa && *pb) {
		const char *ea = strchr(pa, '\n'), *eb = strchr(pb, '\n');

		if (!ea || !eb)
			break;
		if (ea - pa != eb - pb || memcmp(pa, pb, ea - pa))
			break;
		pa = ea + 1;
		pb = eb + 1;
		line++;
	}
	printf("# traces differ from line %d:\n", line);
	for (; (*pa || *pb) && shown < 12; shown++) {
		const char *ea = *pa ? strchr(pa, '\n') : pa;
		const char *eb = *pb ? strchr(pb, '\n') : pb;

		if (!ea)
			ea = pa + strlen(pa);
		if (!eb)
			eb = pb + strlen(pb);
		printf("#   tcp: %.*s\n", (int)(ea - pa), pa);
		printf("#   smc: %.*s\n", (int)(eb - pb), pb);
		pa = *ea ? ea + 1 : ea;
		pb = *eb ? eb + 1 : eb;
	}
}

static int run_scenario(const struct scenario *s, struct shm *a,
			struct shm *b, int verbose)
{
	int ok = 1;

	run_child(s->fn, s->fam, 0, a);
	run_child(s->fn, s->fam, 1, b);
	if (a->hard_fail) {
		ok = 0;
		printf("# TCP run of %s failed:\n", s->name);
		print_lines("  ", a->notes);
	}
	if (b->hard_fail) {
		ok = 0;
		printf("# SMC run of %s failed:\n", s->name);
		print_lines("  ", b->notes);
	}
	if (strcmp(a->trace, b->trace)) {
		ok = 0;
		print_diff(a->trace, b->trace);
	}
	if (b->path_fail) {
		ok = 0;
		printf("# %d of %d path checks failed:\n", b->path_fail,
		       b->path_checks);
		print_lines("  ", b->notes);
	}
	if (verbose || !ok) {
		if (verbose) {
			print_lines("tcp: ", a->trace);
			print_lines("smc: ", b->trace);
		}
		if (b->path_checks)
			printf("# path checks: %d\n", b->path_checks);
	}
	return ok;
}

/* ------------------------------------------------- AF_SMC specific tests */

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		ktap_diag(__VA_ARGS__);					\
		ok = 0;							\
	}								\
} while (0)

static int expect_errno(int r, int e, const char *what)
{
	if (r >= 0 || errno != e) {
		ktap_diag("%s: got %d (%s), expected %s", what, r,
			  r < 0 ? ename(errno) : "no error", ename(e));
		if (r >= 0)
			close(r);
		return 0;
	}
	return 1;
}

static int t_socket_bad_type(void)
{
	int ok = 1;

	if (smc_test_ipproto())
		return -3;

	ok &= expect_errno(socket(AF_SMC, SOCK_DGRAM, 0), ESOCKTNOSUPPORT,
			   "SOCK_DGRAM");
	ok &= expect_errno(socket(AF_SMC, SOCK_SEQPACKET, 0),
			   ESOCKTNOSUPPORT, "SOCK_SEQPACKET");
	ok &= expect_errno(socket(AF_SMC, SOCK_DGRAM | SOCK_NONBLOCK, 1),
			   ESOCKTNOSUPPORT, "SOCK_DGRAM|NONBLOCK proto 1");
	return ok;
}

static int t_socket_bad_protocol(void)
{
	int ok = 1;

	if (smc_test_ipproto())
		return -3;

	ok &= expect_errno(socket(AF_SMC, SOCK_STREAM, 2), EPROTONOSUPPORT,
			   "protocol 2");
	ok &= expect_errno(socket(AF_SMC, SOCK_STREAM, IPPROTO_TCP),
			   EPROTONOSUPPORT, "protocol 6");
	ok &= expect_errno(socket(AF_SMC, SOCK_STREAM, 256),
			   EPROTONOSUPPORT, "protocol 256");
	return ok;
}

static int t_socket_ids(void)
{
	int ok = 1, p, fd, v;

	if (smc_test_ipproto())
		return -3;

	for (p = 0; p <= 1; p++) {
		fd = socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    p);
		if (fd < 0) {
			ktap_diag("socket(AF_SMC, .., %d): %s", p,
				  strerror(errno));
			return 0;
		}
		CHECK(!getint(fd, SOL_SOCKET, SO_DOMAIN, &v) && v == AF_SMC,
		      "proto %d: SO_DOMAIN %d", p, v);
		CHECK(!getint(fd, SOL_SOCKET, SO_PROTOCOL, &v) && v == p,
		      "proto %d: SO_PROTOCOL %d", p, v);
		CHECK(!getint(fd, SOL_SOCKET, SO_TYPE, &v) && v == SOCK_STREAM,
		      "proto %d: SO_TYPE %d", p, v);
		CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK, "O_NONBLOCK not set");
		CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC, "FD_CLOEXEC not set");
		close(fd);
	}
	return ok;
}

static int t_limit_hs(void)
{
	int ok = 1, fd, v, r;
	socklen_t l;

	fd = smc_socket(AF_INET, SOCK_STREAM);
	if (fd < 0)
		return 0;
	CHECK(!getint(fd, SOL_SMC, SMC_LIMIT_HS, &v) && (v == 0 || v == 1),
	      "initial SMC_LIMIT_HS %d (%s)", v, strerror(errno));
	CHECK(!setint(fd, SOL_SMC, SMC_LIMIT_HS, 1), "set 1: %s",
	      strerror(errno));
	CHECK(!getint(fd, SOL_SMC, SMC_LIMIT_HS, &v) && v == 1,
	      "get after set 1: %d", v);
	CHECK(!setint(fd, SOL_SMC, SMC_LIMIT_HS, 0), "set 0: %s",
	      strerror(errno));
	CHECK(!getint(fd, SOL_SMC, SMC_LIMIT_HS, &v) && v == 0,
	      "get after set 0: %d", v);
	CHECK(!setint(fd, SOL_SMC, SMC_LIMIT_HS, 7), "set 7: %s",
	      strerror(errno));
	CHECK(!getint(fd, SOL_SMC, SMC_LIMIT_HS, &v) && v == 1,
	      "get after set 7: %d (expected 1)", v);
	errno = 0;
	r = setsockopt(fd, SOL_SMC, SMC_LIMIT_HS, &v, 2);
	CHECK(r < 0 && errno == EINVAL, "set optlen 2: %d %s", r,
	      ename(errno));
	errno = 0;
	r = setint(fd, SOL_SMC, 77, 1);
	CHECK(r < 0 && errno == EOPNOTSUPP, "set unknown optname: %d %s", r,
	      ename(errno));
	l = sizeof(v);
	errno = 0;
	r = getsockopt(fd, SOL_SMC, 77, &v, &l);
	CHECK(r < 0 && errno == EOPNOTSUPP, "get unknown optname: %d %s", r,
	      ename(errno));
	errno = 0;
	r = setint(fd, SOL_TCP, TCP_ULP, 0);
	CHECK(r < 0 && errno == EOPNOTSUPP, "TCP_ULP: %d %s", r, ename(errno));
	close(fd);
	return ok;
}

static int t_sndbuf_default(void)
{
	int ok = 1, fd, v, wmem = 0, rmem = 0;
	FILE *f;

	f = fopen("/proc/sys/net/smc/wmem", "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &wmem) != 1)
		wmem = 0;
	fclose(f);
	f = fopen("/proc/sys/net/smc/rmem", "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &rmem) != 1)
		rmem = 0;
	fclose(f);
	fd = smc_socket(AF_INET, SOCK_STREAM);
	if (fd < 0)
		return 0;
	CHECK(!getint(fd, SOL_SOCKET, SO_SNDBUF, &v) && v == 2 * wmem,
	      "SO_SNDBUF %d, expected 2 * wmem = %d", v, 2 * wmem);
	CHECK(!getint(fd, SOL_SOCKET, SO_RCVBUF, &v) && v == 2 * rmem,
	      "SO_RCVBUF %d, expected 2 * rmem = %d", v, 2 * rmem);
	close(fd);
	return ok;
}

/* Connected AF_SMC pair on the test address; listener fd or -1. */
static int smc_pair(int fam, int *cli, int *srv, int keep_listener)
{
	struct sockaddr_storage ss;
	socklen_t l;
	int lfd;

	*cli = *srv = -1;
	lfd = smc_socket(fam, SOCK_STREAM);
	if (lfd < 0)
		goto err;
	l = loop_addr(fam, 0, &ss);
	if (bind(lfd, (struct sockaddr *)&ss, l) || listen(lfd, 8))
		goto err;
	l = sizeof(ss);
	getsockname(lfd, (struct sockaddr *)&ss, &l);
	*cli = smc_socket(fam, SOCK_STREAM);
	if (*cli < 0 || connect(*cli, (struct sockaddr *)&ss, l))
		goto err;
	*srv = accept(lfd, NULL, NULL);
	if (*srv < 0)
		goto err;
	if (keep_listener)
		return lfd;
	close(lfd);
	return 0;
err:
	ktap_diag("SMC pair setup failed: %s", strerror(errno));
	if (lfd >= 0)
		close(lfd);
	if (*cli >= 0)
		close(*cli);
	*cli = -1;
	return -1;
}

/* errno of getsockopt(SOL_SMC) on fd, or on a new TCP socket if fd < 0 */
static int sol_smc_errno(int fd, int fam)
{
	int v, e, tmp = -1;
	socklen_t l = sizeof(v);

	if (fd < 0) {
		tmp = socket(fam, SOCK_STREAM, 0);
		fd = tmp;
	}
	errno = 0;
	e = getsockopt(fd, SOL_SMC, SMC_LIMIT_HS, &v, &l) ? errno : 0;
	if (tmp >= 0)
		close(tmp);
	return e;
}

static int t_fd_after_connect(int fam)
{
	int ok = 1, cli, srv, v, i, mode;
	uint32_t reason;
	char why[256];

	if (smc_expect(&mode, &reason))
		return 0;
	if (smc_pair(fam, &cli, &srv, 0) < 0)
		return 0;
	for (i = 0; i < 2; i++) {
		int fd = i ? srv : cli;
		const char *who = i ? "server" : "client";

		CHECK(!smc_check_fd_path(fd, 5000, why, sizeof(why)),
		      "%s: %s", who, why);
		getint(fd, SOL_SOCKET, SO_DOMAIN, &v);
		if (mode == SMC_TEST_MODE_FALLBACK) {
			/* the fd is now served by the internal TCP socket */
			CHECK(v == fam, "%s: SO_DOMAIN %d, expected %d", who,
			      v, fam);
			getint(fd, SOL_SOCKET, SO_PROTOCOL, &v);
			CHECK(v == IPPROTO_TCP, "%s: SO_PROTOCOL %d", who, v);
			/*
			 * SOL_SMC is unknown to TCP/IP now: the errors must
			 * be those of a plain TCP socket (getsockopt gives
			 * EOPNOTSUPP on IPv4 but ENOPROTOOPT on IPv6).
			 */
			CHECK(sol_smc_errno(fd, 0) == sol_smc_errno(-1, fam),
			      "%s: getsockopt(SOL_SMC) after fallback: %s, TCP gives %s",
			      who, ename(sol_smc_errno(fd, 0)),
			      ename(sol_smc_errno(-1, fam)));
			errno = 0;
			CHECK(setint(fd, SOL_SMC, SMC_LIMIT_HS, 1) < 0 &&
			      errno == ENOPROTOOPT,
			      "%s: setsockopt(SOL_SMC) after fallback: %s",
			      who, ename(errno));
		} else {
			/* an accepted socket is of its listener's kind */
			CHECK(v == smc_socket_domain(fam),
			      "%s: SO_DOMAIN %d, expected %d", who, v,
			      smc_socket_domain(fam));
			getint(fd, SOL_SOCKET, SO_PROTOCOL, &v);
			CHECK(v == smc_socket_protocol(fam),
			      "%s: SO_PROTOCOL %d, expected %d", who, v,
			      smc_socket_protocol(fam));
		}
	}
	close(cli);
	close(srv);
	return ok;
}

static int find_ino(struct smc_sock_info *arr, int n, uint64_t ino)
{
	int i;

	for (i = 0; i < n; i++)
		if (arr[i].inode == ino)
			return i;
	return -1;
}

static uint64_t fd_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* The address of @ss as smc_diag has it: 4 or 16 bytes, zero-padded */
static void diag_addr(const struct sockaddr_storage *ss, uint8_t *a)
{
	memset(a, 0, 16);
	if (ss->ss_family == AF_INET6)
		memcpy(a, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	else
		memcpy(a, &((const struct sockaddr_in *)ss)->sin_addr, 4);
}

static int t_diag_listing(int fam)
{
	int ok = 1, lfd, cli, srv, n, il, ic, is;
	char ip[4][INET6_ADDRSTRLEN], why[256];
	struct smc_sock_info *arr = NULL;
	struct sockaddr_storage cs, ss;
	uint8_t src[16], dst[16];
	socklen_t l;

	lfd = smc_pair(fam, &cli, &srv, 1);
	if (lfd < 0)
		return 0;
	l = sizeof(cs);
	getsockname(cli, (struct sockaddr *)&cs, &l);
	l = sizeof(ss);
	getsockname(lfd, (struct sockaddr *)&ss, &l);
	n = smc_diag_dump(&arr);
	if (n < 0) {
		ktap_diag("smc_diag dump: %s", strerror(-n));
		ok = 0;
		goto out;
	}
	il = find_ino(arr, n, fd_ino(lfd));
	ic = find_ino(arr, n, fd_ino(cli));
	is = find_ino(arr, n, fd_ino(srv));
	CHECK(il >= 0, "listener not in dump (%d entries)", n);
	CHECK(ic >= 0, "client not in dump");
	CHECK(is >= 0, "server not in dump");
	if (il >= 0) {
		CHECK(arr[il].state == SMC_TEST_LISTEN,
		      "listener state %d", arr[il].state);
		CHECK(arr[il].family == smc_socket_domain(fam),
		      "listener family %d", arr[il].family);
		CHECK(arr[il].sport == addr_port(&ss),
		      "listener sport %u != %u", arr[il].sport,
		      addr_port(&ss));
	}
	/* the client's own address and the one of the listener */
	diag_addr(&cs, src);
	diag_addr(&ss, dst);
	if (ic >= 0) {
		struct smc_sock_info *si = &arr[ic];

		CHECK(si->state == SMC_TEST_ACTIVE, "client state %d",
		      si->state);
		CHECK(si->family == smc_socket_domain(fam), "client family %d",
		      si->family);
		CHECK(si->sport == addr_port(&cs) &&
		      si->dport == addr_port(&ss),
		      "client ports %u->%u, expected %u->%u", si->sport,
		      si->dport, addr_port(&cs), addr_port(&ss));
		inet_ntop(fam, si->src, ip[0], sizeof(ip[0]));
		inet_ntop(fam, si->dst, ip[1], sizeof(ip[1]));
		inet_ntop(fam, src, ip[2], sizeof(ip[2]));
		inet_ntop(fam, dst, ip[3], sizeof(ip[3]));
		CHECK(!memcmp(si->src, src, 16) && !memcmp(si->dst, dst, 16),
		      "client addresses %s -> %s, expected %s -> %s", ip[0],
		      ip[1], ip[2], ip[3]);
		CHECK(!smc_path_match(si, why, sizeof(why)), "client: %s", why);
		CHECK(si->shutdown == 0, "client shutdown attr %d",
		      si->shutdown);
	}
	if (is >= 0) {
		struct smc_sock_info *si = &arr[is];

		CHECK(si->state == SMC_TEST_ACTIVE, "server state %d",
		      si->state);
		CHECK(si->family == smc_socket_domain(fam), "server family %d",
		      si->family);
		CHECK(si->sport == addr_port(&ss) &&
		      si->dport == addr_port(&cs),
		      "server ports %u->%u", si->sport, si->dport);
		CHECK(!smc_path_match(si, why, sizeof(why)), "server: %s", why);
	}
out:
	free(arr);
	close(cli);
	close(srv);
	close(lfd);
	return ok;
}

static int t_diag_gone_after_close(void)
{
	struct smc_sock_info si;
	uint64_t ic, is;
	int cli, srv, ok = 1, i, rc1 = 0, rc2 = 0;

	if (smc_pair(AF_INET, &cli, &srv, 0) < 0)
		return 0;
	ic = fd_ino(cli);
	is = fd_ino(srv);
	close(cli);
	close(srv);
	for (i = 0; i < 250; i++) {
		rc1 = smc_diag_lookup_inode(ic, &si);
		rc2 = smc_diag_lookup_inode(is, &si);
		if (rc1 == -ENOENT && rc2 == -ENOENT)
			break;
		msleep(20);
	}
	CHECK(rc1 == -ENOENT, "client still listed after close: state %s",
	      smc_state_name(si.state));
	CHECK(rc2 == -ENOENT, "server still listed after close");
	return ok;
}

/*
 * SMC-D: data sent with MSG_MORE or under TCP_CORK is not announced to
 * the peer until a plain send or uncorking (the doorbell is synchronous,
 * so "visible" is immediate otherwise).
 */
static int t_smcd_cork(void)
{
	int ok = 1, cli, srv, mode, one = 1, zero = 0;
	char b[8] = "", why[256];
	uint32_t reason;

	if (smc_expect(&mode, &reason) || mode != SMC_TEST_MODE_SMCD)
		return -2;
	if (smc_pair(AF_INET, &cli, &srv, 0) < 0)
		return 0;
	/* over TCP, corking would hold the data back too */
	CHECK(!smc_check_fd_path(cli, 5000, why, sizeof(why)), "client: %s",
	      why);
	CHECK(!smc_check_fd_path(srv, 5000, why, sizeof(why)), "server: %s",
	      why);
	CHECK(send(cli, "ab", 2, MSG_MORE) == 2, "send MSG_MORE failed");
	msleep(50);
	CHECK(inq(srv) == 0, "MSG_MORE: %d bytes visible", inq(srv));
	CHECK(send(cli, "c", 1, 0) == 1, "send failed");
	CHECK(inq(srv) == 3, "after a plain send: %d bytes", inq(srv));
	setsockopt(cli, SOL_TCP, TCP_CORK, &one, sizeof(one));
	CHECK(send(cli, "de", 2, 0) == 2, "send under TCP_CORK failed");
	msleep(50);
	CHECK(inq(srv) == 3, "TCP_CORK: %d bytes visible", inq(srv));
	setsockopt(cli, SOL_TCP, TCP_CORK, &zero, sizeof(zero));
	CHECK(inq(srv) == 5, "after uncorking: %d bytes", inq(srv));
	CHECK(recv(srv, b, sizeof(b), 0) == 5 && !memcmp(b, "abcde", 5),
	      "received '%.5s'", b);
	close(cli);
	close(srv);
	return ok;
}

/*
 * Our protos are listed while the module is loaded: AF_SMC's, and on a
 * kernel with IPPROTO_SMC the inet ones too
 */
static int t_proc_protocols(void)
{
	static const char * const names[] = {
		"SMC", "SMC6", "INET_SMC", "INET6_SMC"
	};
	int found[4] = {}, want, ok = 1, i;
	char line[256], name[64];
	FILE *f = fopen("/proc/net/protocols", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s", name) != 1)
			continue;
		for (i = 0; i < 4; i++)
			if (!strcmp(name, names[i]))
				found[i] = 1;
	}
	fclose(f);
	want = smc_kernel_has_ipproto() ? 4 : 2;
	for (i = 0; i < 4; i++)
		CHECK(found[i] == (i < want), "/proc/net/protocols: %s %s",
		      names[i], found[i] ? "listed" : "missing");
	return ok;
}

/*
 * socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC): an SMC socket
 * of the inet family on 6.11 and later; before, EPROTONOSUPPORT, as
 * with the kernel's own module
 */
static int t_ipproto_smc(void)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	int ok = 1, i, fd, v;

	for (i = 0; i < 2; i++) {
		fd = socket(fams[i], SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    IPPROTO_SMC);
		if (!smc_kernel_has_ipproto()) {
			ok &= expect_errno(fd, EPROTONOSUPPORT,
					   "IPPROTO_SMC before 6.11");
			continue;
		}
		if (fd < 0) {
			ktap_diag("socket(%d, SOCK_STREAM, IPPROTO_SMC): %s",
				  fams[i], strerror(errno));
			return 0;
		}
		CHECK(!getint(fd, SOL_SOCKET, SO_DOMAIN, &v) && v == fams[i],
		      "family %d: SO_DOMAIN %d", fams[i], v);
		CHECK(!getint(fd, SOL_SOCKET, SO_PROTOCOL, &v) &&
		      v == IPPROTO_SMC, "family %d: SO_PROTOCOL %d", fams[i], v);
		CHECK(!getint(fd, SOL_SOCKET, SO_TYPE, &v) && v == SOCK_STREAM,
		      "family %d: SO_TYPE %d", fams[i], v);
		CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK, "O_NONBLOCK not set");
		CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC, "FD_CLOEXEC not set");
		close(fd);
		ok &= expect_errno(socket(fams[i], SOCK_DGRAM, IPPROTO_SMC),
				   EPROTONOSUPPORT, "SOCK_DGRAM, IPPROTO_SMC");
	}
	return ok;
}

/*
 * TCP_ULP "smc", which turned a TCP socket into an SMC one in place, is
 * not offered (upstream removed it as unsafe in 2026): setting it fails
 * as for any ULP nobody registered, and the socket stays a working TCP
 * socket
 */
static int t_tcp_ulp_smc(void)
{
	int ok = 1, lfd, cli, srv, r, v;
	struct sockaddr_storage ss;
	socklen_t alen, l;
	char ulp[16], b = 0;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	cli = socket(AF_INET, SOCK_STREAM, 0);
	alen = loop_addr(AF_INET, 0, &ss);
	if (lfd < 0 || cli < 0 || bind(lfd, (struct sockaddr *)&ss, alen) ||
	    listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &alen)) {
		ktap_diag("TCP setup: %s", strerror(errno));
		return 0;
	}
	errno = 0;
	r = setsockopt(cli, SOL_TCP, TCP_ULP, "smc", 3);
	CHECK(r < 0 && errno == ENOENT, "TCP_ULP smc: %d %s", r, ename(errno));
	/* no ULP: nothing is copied out */
	l = sizeof(ulp);
	CHECK(!getsockopt(cli, SOL_TCP, TCP_ULP, ulp, &l) && !l,
	      "TCP_ULP after: length %u", l);
	CHECK(!getint(cli, SOL_SOCKET, SO_PROTOCOL, &v) && v == IPPROTO_TCP,
	      "SO_PROTOCOL %d", v);
	CHECK(!connect(cli, (struct sockaddr *)&ss, alen), "connect: %s",
	      strerror(errno));
	srv = accept(lfd, NULL, NULL);
	CHECK(srv >= 0 && send(cli, "u", 1, 0) == 1 &&
	      recv(srv, &b, 1, 0) == 1 && b == 'u', "no data over TCP");
	if (srv >= 0)
		close(srv);
	close(cli);
	close(lfd);
	return ok;
}

struct smc_test {
	const char *name;
	int (*fn)(void);
};

static int t_fd_after_connect4(void) { return t_fd_after_connect(AF_INET); }
static int t_fd_after_connect6(void) { return t_fd_after_connect(AF_INET6); }
static int t_diag_listing4(void) { return t_diag_listing(AF_INET); }
static int t_diag_listing6(void) { return t_diag_listing(AF_INET6); }

static const struct smc_test smc_tests[] = {
	{ "smc_socket_bad_type", t_socket_bad_type },
	{ "smc_socket_bad_protocol", t_socket_bad_protocol },
	{ "smc_socket_ids", t_socket_ids },
	{ "smc_sol_smc_options", t_limit_hs },
	{ "smc_default_buffers", t_sndbuf_default },
	{ "smc_proc_protocols", t_proc_protocols },
	{ "smc_ipproto_smc", t_ipproto_smc },
	{ "smc_tcp_ulp_smc", t_tcp_ulp_smc },
	{ "smc_fd_after_connect", t_fd_after_connect4 },
	{ "smc_fd_after_connect_v6", t_fd_after_connect6 },
	{ "smc_diag_listing", t_diag_listing4 },
	{ "smc_diag_listing_v6", t_diag_listing6 },
	{ "smc_diag_gone_after_close", t_diag_gone_after_close },
	{ "smcd_cork", t_smcd_cork },
};

#define NR_SMC_TESTS	((int)(sizeof(smc_tests) / sizeof(smc_tests[0])))

static int have_ipv6(void)
{
	struct sockaddr_storage ss;
	socklen_t l = loop_addr(AF_INET6, 0, &ss);
	int fd = socket(AF_INET6, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return 0;
	ok = !bind(fd, (struct sockaddr *)&ss, l);
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	const char *filter = getenv("CONFORMANCE_FILTER");
	const char *fam = getenv("CONFORMANCE_SMC_FAMILY");
	const char *vb = getenv("CONFORMANCE_VERBOSE");
	int verbose = vb && *vb && *vb != '0';
	char ip[INET_ADDRSTRLEN];
	struct shm *a, *b;
	uint32_t reason;
	int i, plan = 0, v6, mode, smcr;

	(void)argc;
	(void)argv;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (fam && !strcmp(fam, "inet"))
		smc_override_inet = 1;
	if (smc_expect(&mode, &reason))
		ktap_fail_all("invalid SMC_EXPECT_PATH / SMC_EXPECT_REASON");
	if (smc_test_addr4(&addr4))
		ktap_fail_all("invalid SMC_TEST_ADDR4");
	smcr = smc_expect_smcr();
	if (!smc_override_inet)
		smc_socket_require();
	v6 = have_ipv6();

	for (i = 0; i < NR_SCENARIOS; i++)
		if (!filter || strstr(scenarios[i].name, filter))
			plan++;
	for (i = 0; i < NR_SMC_TESTS; i++)
		if (!filter || strstr(smc_tests[i].name, filter))
			plan++;

	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED)
		ktap_skip_all("mmap failed");

	ktap_header(plan);
	ktap_diag("differential scenarios: %d, AF_SMC specific tests: %d",
		  NR_SCENARIOS, NR_SMC_TESTS);
	if (smc_override_inet)
		ktap_diag("CONFORMANCE_SMC_FAMILY=inet: SMC side uses TCP, path checks off");
	else
		ktap_diag("expected path: %s reason 0x%08x",
			  smc_mode_name(mode), reason);
	ktap_diag("IPv4 address: %s",
		  inet_ntop(AF_INET, &addr4, ip, sizeof(ip)));

	for (i = 0; i < NR_SCENARIOS; i++) {
		const struct scenario *s = &scenarios[i];

		if (filter && !strstr(s->name, filter))
			continue;
		if (s->fam == AF_INET6 && smcr) {
			ktap_skip(s->name, SMC_TEST_SKIP_V6);
			continue;
		}
		if (s->fam == AF_INET6 && !v6) {
			ktap_skip(s->name, "no IPv6 loopback");
			continue;
		}
		ktap_result(run_scenario(s, a, b, verbose), s->name);
	}

	for (i = 0; i < NR_SMC_TESTS; i++) {
		const struct smc_test *t = &smc_tests[i];
		int r;

		if (filter && !strstr(t->name, filter))
			continue;
		if (smc_override_inet) {
			ktap_skip(t->name, "CONFORMANCE_SMC_FAMILY=inet");
			continue;
		}
		if (strstr(t->name, "_v6") && smcr) {
			ktap_skip(t->name, SMC_TEST_SKIP_V6);
			continue;
		}
		if (strstr(t->name, "_v6") && !v6) {
			ktap_skip(t->name, "no IPv6 loopback");
			continue;
		}
		r = t->fn();
		if (r == -2 && smcr)
			ktap_skip(t->name, SMC_TEST_SKIP_SMCD);
		else if (r == -2)
			ktap_skip(t->name, "connections do not take SMC-D");
		else if (r == -3)
			ktap_skip(t->name, "AF_SMC's own: run by conformance");
		else if (r < 0)
			ktap_skip(t->name, "interface not present");
		else
			ktap_result(r, t->name);
	}
	ktap_finish();
}
