// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SMC connection stress.
 *
 *  1. STRESS_CONNS (1000) connections open at the same time: every client
 *     sends a tagged message, the server side echoes it, the client
 *     verifies it; the path is checked on a sample; smc_diag must list
 *     all of them; then everything is closed.
 *  2. STRESS_LOOPS (2000) short connections (connect, send, echo, close)
 *     against a server thread.
 *  After each part the number of AF_SMC sockets in smc_diag and the
 *  TCP "inuse" count of /proc/net/sockstat{,6} must settle back to the
 *  values from before the part (no leaked sockets).
 *
 * STRESS_FAMILY=inet runs the same over TCP (debugging, no diag checks).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "ktap.h"
#include "timeutil.h"
#include "smc_diag_util.h"

static int use_inet;
static struct sockaddr_in laddr;
static const char *volatile phase = "start";
static volatile int progress;

static int xsocket(void)
{
	if (use_inet)
		return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
}

static int make_listener(int backlog)
{
	socklen_t l = sizeof(laddr);
	int fd = xsocket();

	if (fd < 0)
		return -1;
	memset(&laddr, 0, sizeof(laddr));
	laddr.sin_family = AF_INET;
	laddr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
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

static int recv_exact(int fd, char *buf, int n)
{
	int have = 0, r;

	while (have < n) {
		r = recv(fd, buf + have, n - have, 0);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		have += r;
	}
	return 0;
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

	for (i = 0; i < nconn; i++)
		cli[i] = srv[i] = -1;
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
		n = snprintf(msg, sizeof(msg), "loop-%d", i);
		if (send(fd, msg, n, MSG_NOSIGNAL) != n ||
		    recv_exact(fd, buf, n) || memcmp(msg, buf, n))
			fails++;
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

static void on_alarm(int sig)
{
	char msg[160];
	int n;

	(void)sig;
	/* snprintf is not async-signal-safe, but we are about to exit */
	n = snprintf(msg, sizeof(msg),
		     "# stress: global timeout in phase '%s' (step %d)\nnot ok - timeout\n",
		     phase, progress);
	if (write(1, msg, n) < 0)
		_exit(KSFT_FAIL);
	_exit(KSFT_FAIL);
}

int main(void)
{
	const char *f = getenv("STRESS_FAMILY");
	const char *c = getenv("STRESS_CONNS");
	const char *l = getenv("STRESS_LOOPS");
	int nconn = c ? atoi(c) : 1000, loops = l ? atoi(l) : 2000, fd;
	struct rlimit rl;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	use_inet = f && !strcmp(f, "inet");
	if (!use_inet) {
		fd = socket(AF_SMC, SOCK_STREAM, 0);
		if (fd < 0)
			ktap_no_smc(errno);
		close(fd);
	}
	rl.rlim_cur = rl.rlim_max = 2 * nconn + 256;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		getrlimit(RLIMIT_NOFILE, &rl);
		if (rl.rlim_cur < (rlim_t)(2 * nconn + 64)) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	signal(SIGALRM, on_alarm);
	alarm(getenv("STRESS_TIMEOUT") ? atoi(getenv("STRESS_TIMEOUT")) : 400);

	ktap_header(2);
	if (use_inet)
		ktap_diag("STRESS_FAMILY=inet: TCP sockets, no diag checks");
	ktap_result(part_concurrent(nconn), "concurrent_connections");
	ktap_result(part_loop(loops), "short_connection_loop");
	ktap_finish();
}
