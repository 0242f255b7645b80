// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SMC connection stress.
 *
 *  1. STRESS_CONNS (1000) connections open at the same time: every client
 *     sends a tagged message, the server side echoes it, the client
 *     verifies it; the path is checked on a sample; one smc_diag dump
 *     with every extension must span several netlink messages and list
 *     each socket exactly once, with the link group (SMC-R) or DMB
 *     (SMC-D) attributes of both ends agreeing; then everything is
 *     closed.
 *  2. STRESS_LOOPS (2000) short connections (connect, send, echo, close)
 *     against a server thread.
 *  After each part the number of AF_SMC sockets in smc_diag and the
 *  TCP "inuse" count of /proc/net/sockstat{,6} must settle back to the
 *  values from before the part (no leaked sockets).
 *  3. STRESS_LEAK_CONNS (10000) short connections over SMC-D (the smcd
 *     module parameter is turned on for the part and restored after),
 *     STRESS_LEAK_THREADS (4) at a time, half over IPv4 and half over
 *     IPv6, with either end closing first.  The path is checked on a
 *     sample.  Afterwards nothing may be left: no AF_SMC sockets but
 *     the listeners (which are closed too), /proc/net/sockstat{,6} and
 *     the active objects of our slab caches back to where they
 *     were, and the loopback-ism counters in debugfs back to their
 *     baseline with the DMB memory bounded by the reuse pool.
 *  4. The same with STRESS_LEAK_FALLBACK (2000) connections and SMC-D
 *     turned off: every connection falls back to TCP.
 *
 * STRESS_FAMILY=inet runs parts 1 and 2 over TCP (debugging, no diag
 * checks).  On a slower kernel (SMC_TEST_SLOWDOWN, the debug kernel's 8)
 * the default counts of parts 2 to 4 are divided by that factor; part 1
 * keeps its 1000, which is what takes SMC-R past one link group's 255.
 *
 * The IPv4 connections go to 127.0.0.1, or to SMC_TEST_ADDR4 (a local
 * IPv4 address, dotted-decimal) which the listeners then bind to; the
 * IPv6 ones of parts 3 and 4 to ::1.  With SMC_EXPECT_PATH=smcr parts 3
 * and 4 are skipped: part 3 is about SMC-D (and half IPv6, which SMC-Rv2
 * does not take), and with SMC-R on, the IPv4 connections of part 4
 * would not fall back.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "ktap.h"
#include "timeutil.h"
#include "smc_diag_util.h"
#include "smc_sock.h"
#include "smcd_util.h"
#include "sockio.h"

static int use_inet;
static int expect_smcr;		/* SMC_EXPECT_PATH=smcr */
static struct in_addr addr4;	/* 127.0.0.1 or SMC_TEST_ADDR4 */
static struct sockaddr_in laddr;
static const char *volatile phase = "start";
static volatile int progress;

static int xsocket(void)
{
	if (use_inet)
		return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return smc_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC);
}

static int make_listener(int backlog)
{
	socklen_t l = sizeof(laddr);
	int fd = xsocket();

	if (fd < 0)
		return -1;
	memset(&laddr, 0, sizeof(laddr));
	laddr.sin_family = AF_INET;
	laddr.sin_addr = addr4;
	if (bind(fd, (struct sockaddr *)&laddr, sizeof(laddr)) ||
	    listen(fd, backlog) ||
	    getsockname(fd, (struct sockaddr *)&laddr, &l)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void set_timeouts(int fd, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Number of AF_SMC sockets (or -1), and TCP inuse (v4 + v6). */
static int smc_count(void)
{
	struct smc_sock_info *arr;
	int n;

	if (use_inet)
		return 0;
	n = smc_diag_dump(&arr);
	if (n >= 0)
		free(arr);
	return n;
}

static int tcp_inuse(void)
{
	static const char * const files[] = { "/proc/net/sockstat",
				       "/proc/net/sockstat6" };
	char line[256];
	int total = 0, v, i;
	FILE *f;

	for (i = 0; i < 2; i++) {
		f = fopen(files[i], "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "TCP: inuse %d", &v) == 1 ||
			    sscanf(line, "TCP6: inuse %d", &v) == 1)
				total += v;
		}
		fclose(f);
	}
	return total;
}

/* Wait up to timeout_ms for the counters to return to the baseline. */
static int settle(int smc0, int tcp0, int timeout_ms, const char *what)
{
	long end = now_ms() + timeout_ms;
	int s, t;

	for (;;) {
		s = smc_count();
		t = tcp_inuse();
		if (s <= smc0 && t <= tcp0)
			return 1;
		if (now_ms() > end)
			break;
		msleep(100);
	}
	ktap_diag("%s: AF_SMC sockets %d (before %d), TCP inuse %d (before %d)",
		  what, s, smc0, t, tcp0);
	return 0;
}

struct acceptor {
	int lfd, want, got, *fds, err;
	volatile int stop;
};

static void *accept_many(void *p)
{
	struct acceptor *a = p;

	while (a->got < a->want && !a->stop) {
		struct pollfd pfd = { .fd = a->lfd, .events = POLLIN };
		int fd;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		fd = accept(a->lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			a->err = errno;
			break;
		}
		a->fds[a->got++] = fd;
	}
	return NULL;
}

#define MSG_LEN 32

/* A message of exactly MSG_LEN bytes that identifies connection i. */
static void make_msg(char *msg, int i)
{
	char tmp[64];

	snprintf(tmp, sizeof(tmp), "conn-%08d-%08x-padpadpadpadpadpad", i,
		 (unsigned int)i * 2654435761u);
	memcpy(msg, tmp, MSG_LEN);
	msg[MSG_LEN] = 0;
}

static int cmp_inode(const void *a, const void *b)
{
	const struct smc_sock_info *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

static struct smc_sock_info *find_fd(struct smc_sock_info *arr, int cnt,
				     int fd)
{
	struct smc_sock_info key;
	struct stat st;

	if (fstat(fd, &st))
		return NULL;
	key.inode = st.st_ino;
	return bsearch(&key, arr, cnt, sizeof(*arr), cmp_inode);
}

/* The two ends of one connection, as smc_diag shows them, agree. */
static int pair_agrees(const struct smc_sock_info *c,
		       const struct smc_sock_info *s, int mode, char *why,
		       size_t wl)
{
	uint32_t hdr;

	if (c->mode != mode || s->mode != mode) {
		snprintf(why, wl, "modes %d/%d", c->mode, s->mode);
		return 0;
	}
	/* an SMC-D peer's ring is its DMB less the 32-byte header */
	hdr = mode == SMC_TEST_MODE_SMCD ? 32 : 0;
	if (!smc_has_conninfo(c) || !smc_has_conninfo(s) ||
	    c->conn.peer_rmbe_size + hdr != s->conn.rmbe_size ||
	    s->conn.peer_rmbe_size + hdr != c->conn.rmbe_size ||
	    !c->conn.rmbe_size || !s->conn.rmbe_size) {
		snprintf(why, wl, "CONNINFO %d/%d, RMBs %u/%u, peers %u/%u",
			 c->conninfo_len, s->conninfo_len, c->conn.rmbe_size,
			 s->conn.rmbe_size, c->conn.peer_rmbe_size,
			 s->conn.peer_rmbe_size);
		return 0;
	}
	if (mode == SMC_TEST_MODE_SMCR) {
		if (!smc_has_lgrinfo(c) || !smc_has_lgrinfo(s) ||
		    c->lgr.role != 0 || s->lgr.role != 1 ||
		    strlen(c->lgr.gid) != 39 || !c->lgr.ibname[0] ||
		    !s->lgr.ibname[0] || !c->lgr.ibport ||
		    strcmp(c->lgr.gid, s->lgr.peer_gid) ||
		    strcmp(s->lgr.gid, c->lgr.peer_gid)) {
			snprintf(why, wl,
				 "LGRINFO %d/%d roles %u/%u %s:%u %s<->%s, %s:%u %s<->%s",
				 c->lgrinfo_len, s->lgrinfo_len, c->lgr.role,
				 s->lgr.role, c->lgr.ibname, c->lgr.ibport,
				 c->lgr.gid, c->lgr.peer_gid, s->lgr.ibname,
				 s->lgr.ibport, s->lgr.gid, s->lgr.peer_gid);
			return 0;
		}
		if (c->dmbinfo_len || s->dmbinfo_len) {
			snprintf(why, wl, "DMBINFO on SMC-R");
			return 0;
		}
	}
	if (mode == SMC_TEST_MODE_SMCD) {
		if (!smc_has_dmbinfo(c) || !smc_has_dmbinfo(s) ||
		    c->dmb.token != s->dmb.peer_token ||
		    s->dmb.token != c->dmb.peer_token ||
		    c->dmb.my_gid != s->dmb.peer_gid) {
			snprintf(why, wl, "DMBINFO %d/%d tokens %llx/%llx",
				 c->dmbinfo_len, s->dmbinfo_len,
				 (unsigned long long)c->dmb.token,
				 (unsigned long long)s->dmb.peer_token);
			return 0;
		}
		if (c->lgrinfo_len || s->lgrinfo_len) {
			snprintf(why, wl, "LGRINFO on SMC-D");
			return 0;
		}
	}
	return 1;
}

/*
 * One dump with every extension, while all connections are up: it must
 * take several datagrams, list no socket twice, list every one of ours,
 * and the attributes of the two ends of each connection must agree.
 */
static int check_dump(const int *cli, int n, const int *srv, int nsrv)
{
	const unsigned int ext = SMC_TEST_EXT_CONNINFO |
				 SMC_TEST_EXT_LGRINFO | SMC_TEST_EXT_DMBINFO;
	struct smc_sock_info *arr, **by_port = NULL;
	int cnt, i, ok = 1, dups = 0, missing = 0, bad = 0, mode;
	uint32_t reason;
	char why[512];

	if (smc_expect(&mode, &reason))
		return 0;
	cnt = smc_diag_dump_ext(ext, &arr);
	if (cnt < 0) {
		ktap_diag("dump: %s", strerror(-cnt));
		return 0;
	}
	ktap_diag("dump: %d sockets in %d datagrams", cnt,
		  smc_diag_last_datagrams);
	if (smc_diag_last_datagrams < 2) {
		ktap_diag("the dump fit one datagram: resumption not tested");
		ok = 0;
	}
	qsort(arr, cnt, sizeof(*arr), cmp_inode);
	for (i = 1; i < cnt; i++)
		dups += arr[i].inode == arr[i - 1].inode;
	by_port = calloc(65536, sizeof(*by_port));
	for (i = 0; by_port && i < nsrv; i++) {
		struct smc_sock_info *s = find_fd(arr, cnt, srv[i]);

		if (!s)
			missing++;
		else
			by_port[s->dport] = s;
	}
	for (i = 0; by_port && i < n; i++) {
		struct smc_sock_info *c = find_fd(arr, cnt, cli[i]), *s;

		if (!c) {
			missing++;
			continue;
		}
		if (mode == SMC_TEST_MODE_FALLBACK)
			continue;
		s = by_port[c->sport];
		if (!s) {
			if (bad++ < 3)
				ktap_diag("client %d: no server end", i);
		} else if (!pair_agrees(c, s, mode, why, sizeof(why)) &&
			   bad++ < 3) {
			ktap_diag("connection %d: %s", i, why);
		}
	}
	if (dups || missing || bad || !by_port) {
		ktap_diag("dump: %d listed twice, %d missing, %d disagree",
			  dups, missing, bad);
		ok = 0;
	}
	free(by_port);
	free(arr);
	return ok;
}

static int part_concurrent(int nconn)
{
	int *cli = calloc(nconn, sizeof(int));
	int *srv = calloc(nconn, sizeof(int));
	int smc0 = smc_count(), tcp0 = tcp_inuse(), ok = 1, i, lfd, n;
	int bad_echo = 0, bad_path = 0, checked = 0;
	struct acceptor acc = { .want = nconn, .fds = srv };
	char msg[MSG_LEN + 1], buf[MSG_LEN + 1];
	pthread_t t;
	long t0 = now_ms();

	for (i = 0; i < nconn; i++) {
		srv[i] = -1;
		cli[i] = -1;
	}
	lfd = make_listener(1024);
	if (lfd < 0) {
		ktap_diag("listener: %s", strerror(errno));
		return 0;
	}
	acc.lfd = lfd;
	pthread_create(&t, NULL, accept_many, &acc);
	phase = "concurrent: connect";
	for (i = 0; i < nconn; i++) {
		progress = i;
		cli[i] = xsocket();
		if (cli[i] < 0 || connect(cli[i], (struct sockaddr *)&laddr,
					  sizeof(laddr))) {
			ktap_diag("client %d: %s", i, strerror(errno));
			ok = 0;
			break;
		}
		set_timeouts(cli[i], 30000);
	}
	n = i;
	if (n < nconn) {
		/* give the acceptor time for what did connect, then stop it */
		msleep(2000);
		acc.stop = 1;
	}
	phase = "concurrent: accept";
	pthread_join(t, NULL);
	if (acc.got != n) {
		ktap_diag("accepted %d of %d (%s)", acc.got, n,
			  strerror(acc.err));
		ok = 0;
	}
	ktap_diag("%d connections established in %ld ms", n, now_ms() - t0);

	if (!use_inet) {
		int cnt = smc_count();

		if (cnt < 2 * n + 1) {
			ktap_diag("smc_diag lists %d sockets, expected >= %d",
				  cnt, 2 * n + 1);
			ok = 0;
		}
	}

	phase = "concurrent: exchange";
	for (i = 0; i < n; i++) {
		make_msg(msg, i);
		if (send(cli[i], msg, MSG_LEN, MSG_NOSIGNAL) != MSG_LEN)
			bad_echo++;
	}
	for (i = 0; i < acc.got; i++) {
		set_timeouts(srv[i], 30000);
		if (recv_exact(srv[i], buf, MSG_LEN) ||
		    send(srv[i], buf, MSG_LEN, MSG_NOSIGNAL) != MSG_LEN)
			bad_echo++;
	}
	for (i = 0; i < n; i++) {
		make_msg(msg, i);
		if (recv_exact(cli[i], buf, MSG_LEN) ||
		    memcmp(buf, msg, MSG_LEN))
			bad_echo++;
	}
	if (bad_echo) {
		ktap_diag("%d message exchanges failed", bad_echo);
		ok = 0;
	}

	for (i = 0; !use_inet && i < n; i += 97) {
		char why[256];

		checked += 2;
		if (smc_check_fd_path(cli[i], 5000, why, sizeof(why))) {
			ktap_diag("client %d: %s", i, why);
			bad_path++;
		}
		if (i < acc.got &&
		    smc_check_fd_path(srv[i], 5000, why, sizeof(why))) {
			ktap_diag("server %d: %s", i, why);
			bad_path++;
		}
	}
	if (bad_path)
		ok = 0;
	ktap_diag("path checked on %d sockets, %d wrong", checked, bad_path);
	if (!use_inet && !check_dump(cli, n, srv, acc.got))
		ok = 0;

	phase = "concurrent: close";
	for (i = 0; i < n; i++)
		close(cli[i]);
	for (i = 0; i < acc.got; i++)
		close(srv[i]);
	close(lfd);
	phase = "concurrent: settle";
	ok &= settle(smc0, tcp0, 60000, "after closing all connections");
	ktap_diag("part 1 took %ld ms", now_ms() - t0);
	free(cli);
	free(srv);
	return ok;
}

struct echo_srv {
	int lfd, served, errors;
	volatile int stop;
};

static void *echo_server(void *p)
{
	struct echo_srv *e = p;
	char buf[64];

	while (!e->stop) {
		struct pollfd pfd = { .fd = e->lfd, .events = POLLIN };
		ssize_t n;
		int fd;

		/* poll with a timeout so that stop is noticed */
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		fd = accept(e->lfd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED ||
			    errno == EAGAIN)
				continue;
			e->errors++;
			break;
		}
		set_timeouts(fd, 30000);
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0 || send(fd, buf, n, MSG_NOSIGNAL) != n)
			e->errors++;
		e->served++;
		close(fd);
	}
	return NULL;
}

static int part_loop(int loops)
{
	int smc0 = smc_count(), tcp0 = tcp_inuse(), ok = 1, i, fails = 0;
	int path_bad = 0;
	struct echo_srv e = { 0 };
	char msg[32], buf[32];
	pthread_t t;
	long t0 = now_ms();

	e.lfd = make_listener(128);
	if (e.lfd < 0) {
		ktap_diag("listener: %s", strerror(errno));
		return 0;
	}
	pthread_create(&t, NULL, echo_server, &e);
	for (i = 0; i < loops; i++) {
		int fd = xsocket(), n;

		progress = i;
		phase = "loop: connect";
		if (i && i % 500 == 0)
			ktap_diag("%d connections done (%ld ms)", i,
				  now_ms() - t0);

		if (fd < 0) {
			ktap_diag("socket %d: %s", i, strerror(errno));
			fails++;
			break;
		}
		set_timeouts(fd, 30000);
		if (connect(fd, (struct sockaddr *)&laddr, sizeof(laddr))) {
			ktap_diag("connect %d: %s", i, strerror(errno));
			fails++;
			close(fd);
			if (fails > 5)
				break;
			continue;
		}
		if (!use_inet && i % 250 == 0) {
			char why[256];

			if (smc_check_fd_path(fd, 5000, why, sizeof(why))) {
				ktap_diag("connection %d: %s", i, why);
				path_bad++;
			}
		}
		phase = "loop: exchange";
		errno = 0;
		n = snprintf(msg, sizeof(msg), "loop-%d", i);
		if (send(fd, msg, n, MSG_NOSIGNAL) != n) {
			ktap_diag("send %d: %s", i, strerror(errno));
			fails++;
		} else if (recv_exact(fd, buf, n)) {
			ktap_diag("recv %d: %s", i,
				  errno ? strerror(errno) : "end of stream");
			fails++;
		} else if (memcmp(msg, buf, n)) {
			ktap_diag("exchange %d: wrong data", i);
			fails++;
		}
		phase = "loop: close";
		close(fd);
	}
	phase = "loop: stop server";
	e.stop = 1;
	pthread_join(t, NULL);
	close(e.lfd);
	ktap_diag("%d short connections in %ld ms, %d failed, server served %d (%d errors)",
		  i, now_ms() - t0, fails, e.served, e.errors);
	if (fails || e.errors || path_bad)
		ok = 0;
	phase = "loop: settle";
	ok &= settle(smc0, tcp0, 60000, "after the connection loop");
	return ok;
}

/* ---- parts 3 and 4: leaks after many short connections ---- */

/* What must come back to its value from before the part */
struct leak_snap {
	int smc;		/* AF_SMC sockets in smc_diag, -1 unknown */
	int sockets_used;	/* "sockets: used" of sockstat */
	int tcp_inuse;		/* TCP + TCP6 inuse */
	int tcp_orphan;
	int tcp_alloc;
	long slab;		/* active objects of our slabs, -1 unknown */
	int lo_ok;		/* the loopback-ism counters were read */
	struct lo_ism_stats lo;
};

/* Where the slab numbers come from, for the diagnostics */
static char slab_source[160];

static void read_sockstat(struct leak_snap *s)
{
	static const char * const files[] = { "/proc/net/sockstat",
					      "/proc/net/sockstat6" };
	int a, b, c, d, i;
	char line[256];
	FILE *f;

	s->sockets_used = 0;
	s->tcp_inuse = 0;
	s->tcp_orphan = 0;
	s->tcp_alloc = 0;
	for (i = 0; i < 2; i++) {
		f = fopen(files[i], "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "sockets: used %d", &a) == 1) {
				s->sockets_used = a;
			} else if (sscanf(line,
					  "TCP: inuse %d orphan %d tw %d alloc %d",
					  &a, &b, &c, &d) == 4) {
				s->tcp_inuse += a;
				s->tcp_orphan = b;
				s->tcp_alloc = d;
			} else if (sscanf(line, "TCP6: inuse %d", &a) == 1) {
				s->tcp_inuse += a;
			}
		}
		fclose(f);
	}
}

/* The slab caches of our socks: AF_SMC's and IPPROTO_SMC's */
static const char * const slab_names[] = {
	"SMC", "SMC6", "INET_SMC", "INET6_SMC"
};

#define NR_SLAB_NAMES	((int)(sizeof(slab_names) / sizeof(slab_names[0])))

/* Active objects of our caches in /proc/slabinfo */
static long slabinfo_objects(void)
{
	char line[512], name[64];
	long total = -1, active;
	FILE *f;
	int i;

	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &active) != 2)
			continue;
		for (i = 0; i < NR_SLAB_NAMES; i++)
			if (!strcmp(name, slab_names[i]))
				break;
		if (i == NR_SLAB_NAMES)
			continue;
		total = (total < 0 ? 0 : total) + active;
	}
	fclose(f);
	return total;
}

/*
 * With slab merging (the default) our caches have no line of their own
 * in /proc/slabinfo; /sys/kernel/slab/NAME then links to the merged
 * cache, whose count includes other objects of the same size (each
 * merged cache counted once).  Free objects held in per-cpu slabs count
 * as active until the cache is shrunk, so shrink it before counting.
 */
static long slab_objects(void)
{
	char path[256], real[NR_SLAB_NAMES][PATH_MAX];
	long total = -1, v;
	int i, j;

	for (i = 0; i < NR_SLAB_NAMES; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 slab_names[i]);
		/* best effort: an aid to precision only */
		smc_file_write(path, "1");
	}
	v = slabinfo_objects();
	if (v >= 0) {
		snprintf(slab_source, sizeof(slab_source),
			 "/proc/slabinfo SMC+SMC6+INET_SMC+INET6_SMC");
		return v;
	}
	for (i = 0; i < NR_SLAB_NAMES; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s",
			 slab_names[i]);
		if (!realpath(path, real[i])) {
			real[i][0] = 0;
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(real[i], real[j]))
				break;
		if (j < i)
			continue;	/* one merged cache, counted */
		snprintf(path, sizeof(path), "%.200s/objects", real[i]);
		v = smc_file_ll(path);
		if (v >= 0)
			total = (total < 0 ? 0 : total) + v;
	}
	if (total >= 0)
		snprintf(slab_source, sizeof(slab_source),
			 "/sys/kernel/slab/SMC -> %.60s (merged cache)",
			 strrchr(real[0], '/') ? strrchr(real[0], '/') + 1 :
						  real[0]);
	return total;
}

static void leak_snapshot(struct leak_snap *s)
{
	s->smc = smc_count();
	read_sockstat(s);
	s->slab = slab_objects();
	s->lo_ok = !lo_ism_read(&s->lo);
}

/* Allowance for unrelated objects of a merged slab cache */
static long slab_tolerance(void)
{
	const char *t = getenv("STRESS_SLAB_TOL");

	return t ? atol(t) : 64;
}

/* Largest DMB memory the reuse pool may keep, for the bound check */
static long long dmb_pool_max(void)
{
	const char *t = getenv("STRESS_DMB_POOL_MAX");

	return t ? atoll(t) : 32LL << 20;
}

/* The socket side is back to the baseline; why not in @why */
static int sockets_settled(const struct leak_snap *b,
			   const struct leak_snap *n, char *why, size_t len)
{
	if (n->smc < 0 || n->smc > b->smc)
		snprintf(why, len, "AF_SMC sockets %d (before %d)",
			 n->smc, b->smc);
	else if (n->tcp_inuse > b->tcp_inuse)
		snprintf(why, len, "TCP inuse %d (before %d)",
			 n->tcp_inuse, b->tcp_inuse);
	else if (n->tcp_orphan > b->tcp_orphan)
		snprintf(why, len, "TCP orphan %d (before %d)",
			 n->tcp_orphan, b->tcp_orphan);
	else if (n->tcp_alloc > b->tcp_alloc)
		snprintf(why, len, "TCP alloc %d (before %d)",
			 n->tcp_alloc, b->tcp_alloc);
	else if (n->sockets_used > b->sockets_used)
		snprintf(why, len, "sockets used %d (before %d)",
			 n->sockets_used, b->sockets_used);
	else if (b->slab >= 0 &&
		 (n->slab < 0 || n->slab > b->slab + slab_tolerance()))
		snprintf(why, len, "%ld active SMC slab objects (before %ld, tolerance %ld)",
			 n->slab, b->slab, slab_tolerance());
	else
		return 1;
	return 0;
}

static int dmbs_settled(const struct leak_snap *b, const struct leak_snap *n,
			char *why, size_t len)
{
	long long big = smcd_class_len(SMCD_TEST_DMB_CLASSES - 1);
	long long bound, dmbs;

	if (!n->lo_ok) {
		snprintf(why, len, "%s unreadable", SMC_LO_ISM_STATS);
		return 0;
	}
	bound = dmb_pool_max() + n->lo.dmbs_registered * big;
	/*
	 * Ring pages exist only in DMBs, owned or pooled, and only as far
	 * as written: at most the largest class's worth each
	 */
	dmbs = n->lo.dmbs_registered + n->lo.dmbs_pooled;
	if (n->lo.dmbs_registered != b->lo.dmbs_registered)
		snprintf(why, len, "dmbs_registered %lld (before %lld)",
			 n->lo.dmbs_registered, b->lo.dmbs_registered);
	else if (n->lo.dmbs_attached != b->lo.dmbs_attached)
		snprintf(why, len, "dmbs_attached %lld (before %lld)",
			 n->lo.dmbs_attached, b->lo.dmbs_attached);
	else if (n->lo.dmb_bytes > bound)
		snprintf(why, len, "dmb_bytes %lld with %lld DMBs pooled, more than %lld",
			 n->lo.dmb_bytes, n->lo.dmbs_pooled, bound);
	else if (n->lo.dmb_bytes > dmbs * big)
		snprintf(why, len,
			 "dmb_bytes %lld does not fit %lld DMBs (%lld registered, %lld pooled)",
			 n->lo.dmb_bytes, dmbs, n->lo.dmbs_registered,
			 n->lo.dmbs_pooled);
	else
		return 1;
	return 0;
}

static void snap_diag(const char *what, const struct leak_snap *s)
{
	ktap_diag("%s: AF_SMC %d, sockets used %d, TCP inuse %d orphan %d alloc %d, slab %ld",
		  what, s->smc, s->sockets_used, s->tcp_inuse, s->tcp_orphan,
		  s->tcp_alloc, s->slab);
	if (s->lo_ok)
		ktap_diag("%s: loopback-ism registered %lld attached %lld pooled %lld bytes %lld",
			  what, s->lo.dmbs_registered, s->lo.dmbs_attached,
			  s->lo.dmbs_pooled, s->lo.dmb_bytes);
}

struct leak_run {
	struct sockaddr_in a4;
	struct sockaddr_in6 a6;
	int l4, l6;
	int total;		/* connections to make */
	int next;		/* next connection number to take */
	int done, fails, path_bad, served, srv_errors, srv_path_bad;
	int srv_checked, cli_checked;
	volatile int stop;
	pthread_mutex_t lock;
};

/* The listeners of a run: non-blocking, so that idle servers can stop */
static int leak_listen(struct leak_run *r)
{
	socklen_t l;

	r->l4 = smc_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK);
	r->l6 = smc_socket(AF_INET6,
			   SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (r->l4 < 0 || r->l6 < 0)
		return -1;
	memset(&r->a4, 0, sizeof(r->a4));
	r->a4.sin_family = AF_INET;
	r->a4.sin_addr = addr4;
	memset(&r->a6, 0, sizeof(r->a6));
	r->a6.sin6_family = AF_INET6;
	r->a6.sin6_addr = in6addr_loopback;
	l = sizeof(r->a4);
	if (bind(r->l4, (struct sockaddr *)&r->a4, l) ||
	    listen(r->l4, 128) ||
	    getsockname(r->l4, (struct sockaddr *)&r->a4, &l))
		return -1;
	l = sizeof(r->a6);
	if (bind(r->l6, (struct sockaddr *)&r->a6, l) ||
	    listen(r->l6, 128) ||
	    getsockname(r->l6, (struct sockaddr *)&r->a6, &l))
		return -1;
	return 0;
}

static void leak_count(struct leak_run *r, int *what)
{
	pthread_mutex_lock(&r->lock);
	(*what)++;
	pthread_mutex_unlock(&r->lock);
}

/*
 * A request is a 4-byte header (payload length, and in the top bit
 * "the server closes first") and a payload the server sends back with
 * every byte inverted.
 */
#define LEAK_SRV_CLOSES	0x80000000u
#define LEAK_MAX_PAYLOAD	512

static void leak_payload(char *p, int len, int i)
{
	int k;

	for (k = 0; k < len; k++)
		p[k] = (char)(i * 31 + k * 7);
}

/* Serve one accepted connection; 0 or -1 */
static int leak_serve(struct leak_run *r, int fd)
{
	char buf[LEAK_MAX_PAYLOAD];
	uint32_t hdr, len;
	int k, check;

	pthread_mutex_lock(&r->lock);
	check = r->served++ % 500 == 0;
	pthread_mutex_unlock(&r->lock);
	set_timeouts(fd, 30000);
	if (check) {
		char why[256];

		leak_count(r, &r->srv_checked);
		if (smc_check_fd_path(fd, 5000, why, sizeof(why))) {
			ktap_diag("server side: %s", why);
			leak_count(r, &r->srv_path_bad);
		}
	}
	if (recv_exact(fd, (char *)&hdr, 4))
		return -1;
	len = hdr & ~LEAK_SRV_CLOSES;
	if (len > sizeof(buf) || recv_exact(fd, buf, len))
		return -1;
	for (k = 0; k < (int)len; k++)
		buf[k] = ~buf[k];
	if (send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
		return -1;
	if (hdr & LEAK_SRV_CLOSES)
		return 0;
	/* the client closes first: wait for its EOF */
	return recv(fd, buf, 1, 0) == 0 ? 0 : -1;
}

static void *leak_server(void *p)
{
	struct leak_run *r = p;

	while (!r->stop) {
		struct pollfd pfd[2] = {
			{ .fd = r->l4, .events = POLLIN },
			{ .fd = r->l6, .events = POLLIN },
		};
		int i, fd;

		if (poll(pfd, 2, 200) <= 0)
			continue;
		for (i = 0; i < 2; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			fd = accept4(pfd[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (fd < 0 && (errno == EAGAIN || errno == EINTR ||
				       errno == ECONNABORTED))
				continue;
			if (fd < 0) {
				ktap_diag("accept: %s", strerror(errno));
				leak_count(r, &r->srv_errors);
				continue;
			}
			if (leak_serve(r, fd))
				leak_count(r, &r->srv_errors);
			close(fd);
		}
	}
	return NULL;
}

/* One short connection, number @i; 0 or -1 */
static int leak_one(struct leak_run *r, int i)
{
	char msg[LEAK_MAX_PAYLOAD], buf[LEAK_MAX_PAYLOAD];
	int v6 = i & 1, srv_closes = i % 3 == 0, fd, len, k;
	const char *step = "socket";
	uint32_t hdr;

	fd = smc_socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC);
	if (fd < 0)
		goto err;
	set_timeouts(fd, 30000);
	step = "connect";
	if (v6 ? connect(fd, (struct sockaddr *)&r->a6, sizeof(r->a6)) :
		 connect(fd, (struct sockaddr *)&r->a4, sizeof(r->a4)))
		goto err;
	if (i % 500 == 0) {
		char why[256];

		leak_count(r, &r->cli_checked);
		if (smc_check_fd_path(fd, 5000, why, sizeof(why))) {
			ktap_diag("connection %d: %s", i, why);
			leak_count(r, &r->path_bad);
		}
	}
	len = 1 + i % (LEAK_MAX_PAYLOAD - 1);
	leak_payload(msg, len, i);
	hdr = len | (srv_closes ? LEAK_SRV_CLOSES : 0);
	step = "send";
	if (send(fd, &hdr, 4, MSG_NOSIGNAL) != 4 ||
	    send(fd, msg, len, MSG_NOSIGNAL) != len)
		goto err;
	step = "receive";
	if (recv_exact(fd, buf, len))
		goto err;
	step = "compare";
	for (k = 0; k < len; k++)
		if (buf[k] != (char)~msg[k])
			goto err;
	step = "eof";
	if (srv_closes && recv(fd, buf, 1, 0) != 0)
		goto err;
	close(fd);
	return 0;
err:
	ktap_diag("connection %d (%s, %s closes first): %s: %s", i,
		  v6 ? "v6" : "v4", srv_closes ? "server" : "client", step,
		  errno ? strerror(errno) : "bad data");
	if (fd >= 0)
		close(fd);
	return -1;
}

static void *leak_client(void *p)
{
	struct leak_run *r = p;
	int i;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		i = r->next++;
		pthread_mutex_unlock(&r->lock);
		if (i >= r->total || r->stop)
			break;
		errno = 0;
		if (leak_one(r, i)) {
			leak_count(r, &r->fails);
			if (r->fails > 10)
				r->stop = 1;
		} else {
			leak_count(r, &r->done);
		}
		if (i && i % 2000 == 0)
			ktap_diag("%d connections started", i);
	}
	return NULL;
}

/*
 * Run @total short connections over the path @path ("smcd" or
 * "fallback") and report three results: the connections themselves,
 * the socket side of the leak check and the DMB side (SMC-D only).
 */
static void part_leak(const char *name, const char *path, int total,
		      int nthreads)
{
	int smcd = !strcmp(path, "smcd"), conns_ok, sock_ok = 0, dmb_ok = 0;
	struct leak_run r = { .total = total, .l4 = -1, .l6 = -1 };
	pthread_t srv[2], cli[16];
	struct leak_snap b, n;
	char res[64], why[256] = "";
	long t0, end;
	int i;

	if (smcd_param_set(smcd)) {
		snprintf(res, sizeof(res), "%s_connections", name);
		ktap_skip(res, "no smcd module parameter");
		snprintf(res, sizeof(res), "%s_no_leaks", name);
		ktap_skip(res, "no smcd module parameter");
		if (smcd)
			ktap_skip("smcd_dmbs_released",
				  "no smcd module parameter");
		return;
	}
	setenv("SMC_EXPECT_PATH", path, 1);
	if (!smcd)
		setenv("SMC_EXPECT_REASON", "0x03010000", 1);
	if (nthreads > 16)
		nthreads = 16;
	if (nthreads < 1)
		nthreads = 1;
	phase = name;
	pthread_mutex_init(&r.lock, NULL);

	leak_snapshot(&b);
	snap_diag("before", &b);
	if (b.slab >= 0)
		ktap_diag("slab objects from %s", slab_source);
	t0 = now_ms();
	if (leak_listen(&r)) {
		ktap_diag("listeners: %s", strerror(errno));
		r.fails++;
		goto stop;
	}
	for (i = 0; i < 2; i++)
		pthread_create(&srv[i], NULL, leak_server, &r);
	for (i = 0; i < nthreads; i++)
		pthread_create(&cli[i], NULL, leak_client, &r);
	for (i = 0; i < nthreads; i++)
		pthread_join(cli[i], NULL);
	r.stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(srv[i], NULL);
stop:
	if (r.l4 >= 0)
		close(r.l4);
	if (r.l6 >= 0)
		close(r.l6);
	ktap_diag("%s: %d of %d connections done in %ld ms, %d failed",
		  name, r.done, total, now_ms() - t0, r.fails);
	ktap_diag("%s: server served %d, %d errors; "
		  "path checked on %d client and %d server sockets, %d wrong",
		  name, r.served, r.srv_errors, r.cli_checked, r.srv_checked,
		  r.path_bad + r.srv_path_bad);
	conns_ok = r.done == total && !r.fails && !r.srv_errors &&
		   !r.path_bad && !r.srv_path_bad && r.cli_checked > 0 &&
		   r.srv_checked > 0;
	snprintf(res, sizeof(res), "%s_connections", name);
	ktap_result(conns_ok, res);

	/* sockets are freed after an RCU grace period and close work */
	phase = "leak: settle";
	end = now_ms() + 60000;
	for (;;) {
		leak_snapshot(&n);
		sock_ok = sockets_settled(&b, &n, why, sizeof(why));
		if (smcd && b.lo_ok)
			dmb_ok = dmbs_settled(&b, &n, why + strlen(why),
					      sizeof(why) - strlen(why));
		if ((sock_ok && (!smcd || !b.lo_ok || dmb_ok)) ||
		    now_ms() > end)
			break;
		why[0] = 0;
		msleep(200);
	}
	snap_diag("after", &n);
	if (!sock_ok || (smcd && b.lo_ok && !dmb_ok))
		ktap_diag("not settled after 60 s: %s", why);
	snprintf(res, sizeof(res), "%s_no_leaks", name);
	ktap_result(sock_ok, res);
	if (smcd) {
		if (b.lo_ok)
			ktap_result(dmb_ok, "smcd_dmbs_released");
		else
			ktap_skip("smcd_dmbs_released",
				  "no loopback-ism counters in debugfs");
	}
	pthread_mutex_destroy(&r.lock);
	smcd_param_restore();
}

static void on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	smcd_param_restore();
	/* snprintf is not async-signal-safe, but we are about to exit */
	n = snprintf(msg, sizeof(msg),
		     "# stress: global timeout in phase '%s' (step %d)\nnot ok - timeout\n",
		     phase, progress);
	if (write(1, msg, n) < 0)
		_exit(KSFT_FAIL);
	_exit(KSFT_FAIL);
}

static void on_term(int sig)
{
	(void)sig;
	smcd_param_restore();
	_exit(KSFT_FAIL);
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

/* Part 4 needs every connection to fall back, but SMC-R stays on */
#define SKIP_FALLBACK_SMCR \
	"SMC-R is on, IPv4 would not fall back (SMC_EXPECT_PATH=smcr)"

int main(void)
{
	const char *f = getenv("STRESS_FAMILY");
	const char *c = getenv("STRESS_CONNS");
	const char *l = getenv("STRESS_LOOPS");
	int slow = env_int("SMC_TEST_SLOWDOWN", 1), nconn, loops;
	char ip[INET_ADDRSTRLEN];
	struct rlimit rl;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (slow < 1)
		slow = 1;
	nconn = c ? atoi(c) : 1000;
	loops = l ? atoi(l) : 2000 / slow;
	use_inet = f && !strcmp(f, "inet");
	if (smc_test_addr4(&addr4))
		ktap_fail_all("invalid SMC_TEST_ADDR4");
	expect_smcr = smc_expect_smcr();
	if (!use_inet)
		smc_socket_require();
	rl.rlim_max = 2 * nconn + 256;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < (rlim_t)(2 * nconn + 64)) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	signal(SIGALRM, on_alarm);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	alarm(getenv("STRESS_TIMEOUT") ? atoi(getenv("STRESS_TIMEOUT")) : 400);

	ktap_header(7);
	if (use_inet)
		ktap_diag("STRESS_FAMILY=inet: TCP sockets, no diag checks");
	ktap_diag("IPv4 address: %s",
		  inet_ntop(AF_INET, &addr4, ip, sizeof(ip)));
	ktap_result(part_concurrent(nconn), "concurrent_connections");
	ktap_result(part_loop(loops), "short_connection_loop");
	if (use_inet) {
		ktap_skip("smcd_connections", "STRESS_FAMILY=inet");
		ktap_skip("smcd_no_leaks", "STRESS_FAMILY=inet");
		ktap_skip("smcd_dmbs_released", "STRESS_FAMILY=inet");
		ktap_skip("fallback_connections", "STRESS_FAMILY=inet");
		ktap_skip("fallback_no_leaks", "STRESS_FAMILY=inet");
		ktap_finish();
	}
	if (expect_smcr) {
		ktap_skip("smcd_connections", SMC_TEST_SKIP_SMCD);
		ktap_skip("smcd_no_leaks", SMC_TEST_SKIP_SMCD);
		ktap_skip("smcd_dmbs_released", SMC_TEST_SKIP_SMCD);
		ktap_skip("fallback_connections", SKIP_FALLBACK_SMCR);
		ktap_skip("fallback_no_leaks", SKIP_FALLBACK_SMCR);
		ktap_finish();
	}
	part_leak("smcd", "smcd", env_int("STRESS_LEAK_CONNS", 10000 / slow),
		  env_int("STRESS_LEAK_THREADS", 4));
	part_leak("fallback", "fallback",
		  env_int("STRESS_LEAK_FALLBACK", 2000 / slow),
		  env_int("STRESS_LEAK_THREADS", 4));
	ktap_finish();
}
