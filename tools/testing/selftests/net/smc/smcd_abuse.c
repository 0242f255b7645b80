// SPDX-License-Identifier: GPL-2.0
/*
 * SMC-D abused by an unprivileged user.
 *
 * Each case forks the attacker, who drops to uid/gid 65534 without
 * supplementary groups; the program itself runs as root only to turn
 * SMC-D on, to read the loopback-ism counters in debugfs and the
 * kernel log, and to be the bystander the attacker must not hurt.
 *
 * urgent_data_against_close: an SMC-D pair on 127.0.0.1; one thread
 * sends single urgent bytes (MSG_OOB) as fast as it can while the
 * other thread closes the reading end and connects a new pair, at
 * least 1000 closes and 1e5 urgent bytes.  Every 100th pair must be
 * SMC-D at both ends (smc_diag), and no new splat may appear in the
 * kernel log: a doorbell still running when the reader's DMB goes
 * must find the connection gone, not a NULL ring.
 *
 * dmb_budget_of_a_user_netns: uid 65534 makes its own user and network
 * namespace, raises net.smc.rmem to the largest value (1 MiB DMBs) and
 * floods a listener that never accepts with AF_SMC connections, each
 * client writing 64 KiB into its server's ring.  The flood must end in
 * a fallback with the Decline "no more DMBs" (0x030d0000, on the
 * declining or, as peer diagnosis, the declined side) while it holds at
 * most a quarter of the host's 5000 DMBs, and the pages it wrote into
 * must be charged to its memory cgroup; a root connection in init_net
 * made meanwhile must take SMC-D; after the attacker is gone the DMB
 * counters are back at their baseline.
 *
 * dmb_budget_of_a_user_in_init_net: the same flood by uid 65534 in
 * init_net, with the default net.smc.rmem: it must end in the same
 * Decline while it holds at most an eighth of the host's DMBs (the
 * listener's children count as its owner's), and root's connection
 * made meanwhile must take SMC-D.
 *
 * setsockopt_against_close: uid 65534 runs 300 rounds of a pair whose
 * sockets two threads hammer with setsockopt()/getsockopt() (TCP and
 * socket options, every fourth round also TCP_FASTOPEN_CONNECT, which
 * turns a connect still in its handshake into a fallback) while the
 * handshake runs, while either end shuts down and while the peer
 * closes.  Every round must end within 5 s, every 50th pair must be on
 * the expected path at both ends, no AF_SMC socket of the user, nor a
 * child of its listener, may be left after it exits (the count of all
 * AF_SMC sockets is back at its baseline), and no splat may appear in
 * the kernel log.
 *
 * cdc_against_free: uid 65534 runs 300 rounds of a pair where one end
 * streams 64 KiB writes as fast as it can while the other reads a
 * little and closes with unread data (every other round with
 * SO_LINGER {1, 0}); the ends swap roles each round.  The writer must
 * learn of the end (EPIPE or ECONNRESET) within 5 s, every 50th pair
 * must be on the expected path, and no splat may appear: the peer's
 * CDCs (SMC-R) or doorbells (SMC-D) still arriving while the closing
 * end frees its connection must find it gone.
 *
 * The last two run over SMC-D on 127.0.0.1 by default; with
 * SMC_TEST_ADDR4 and SMC_EXPECT_PATH=smcr (smcr.sh) they run over
 * SMC-R, and SMC-D is left off.
 *
 * SMCD_ABUSE_CLOSES, SMCD_ABUSE_URG_BYTES, SMCD_ABUSE_FLOOD_PAIRS
 * (the most pairs the flood tries, 700) and SMCD_ABUSE_ROUNDS (of the
 * last two cases) change the sizes; SMCD_ABUSE_ONLY=NAME runs one case
 * and skips the others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ktap.h"
#include "smc_diag_util.h"
#include "smcd_util.h"
#include "timeutil.h"

#define NOBODY			65534
#define DECL_MAX_DMB		0x030d0000u
#define DECL_PEERDECL		0x05000000u
#define HOST_DMBS		5000	/* loopback-ism's host-wide cap */
#define RMEM_MAX		"1073741823"

/* ---- the kernel log ---- */

/* /dev/kmsg positioned at its end, or -1 (then no log check) */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

static const char *const splat_words[] = {
	"BUG:", "Oops", "WARNING:", "general protection", "Call Trace",
	"NULL pointer", "KASAN", "UBSAN", "lockdep", "INFO: task",
	"soft lockup", "hard LOCKUP", "rcu_sched self-detected",
	"RCU Stall", "refcount_t:", "list_add corruption",
	"list_del corruption", "kernel BUG",
};

/* The splat lines logged since kmsg_open(); -1 when unknown */
static int kmsg_splats(int fd)
{
	char rec[8192];
	int n = 0;
	ssize_t r;
	size_t i;

	if (fd < 0)
		return -1;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (r <= 0)
			break;
		rec[r] = 0;
		for (i = 0; i < sizeof(splat_words) / sizeof(*splat_words);
		     i++) {
			if (!strstr(rec, splat_words[i]))
				continue;
			if (n++ < 8)
				ktap_diag("kernel log: %.*s",
					  (int)strcspn(rec, "\n"), rec);
			break;
		}
	}
	return n;
}

/* Result @name: @ok, and no splat logged since kmsg_open() gave @kfd */
static void kmsg_result(int kfd, int ok, const char *name)
{
	int n = kmsg_splats(kfd);

	if (n > 0) {
		ktap_diag("%d splat line(s) in the kernel log", n);
		ok = 0;
	} else if (n < 0) {
		ktap_diag("no /dev/kmsg: the kernel log is left to the harness");
	}
	if (kfd >= 0)
		close(kfd);
	ktap_result(ok, name);
}

/* ---- the attacker ---- */

static int become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY)) {
		ktap_diag("cannot become uid %d: %s", NOBODY, strerror(errno));
		return -1;
	}
	/* as a login of that user would be: its /proc files are its own */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* 127.0.0.1, or SMC_TEST_ADDR4 */
static int lo_addr(struct sockaddr_in *a)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	return smc_test_addr4(&a->sin_addr);
}

/* An AF_SMC listener on lo_addr()'s address, its address in @a */
static int smc_listener(struct sockaddr_in *a, int backlog)
{
	socklen_t l = sizeof(*a);
	int fd;

	lo_addr(a);
	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)a, sizeof(*a)) ||
	    listen(fd, backlog) || getsockname(fd, (struct sockaddr *)a, &l)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int smc_connect(const struct sockaddr_in *a)
{
	int fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)a, sizeof(*a))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* 1 when @fd is an SMC-D socket in smc_diag; else says what it is */
static int is_smcd(int fd, const char *end)
{
	struct smc_sock_info si;
	int rc = smc_diag_lookup(fd, &si);

	if (rc) {
		ktap_diag("%s: not in smc_diag: %s", end, strerror(-rc));
		return 0;
	}
	if (si.mode == SMC_TEST_MODE_SMCD)
		return 1;
	ktap_diag("%s: mode %s, reason 0x%08x, peer 0x%08x; expected smcd",
		  end, smc_mode_name(si.mode), si.reason, si.peer_diag);
	return 0;
}

/* 1 when @fd is on the path SMC_EXPECT_PATH names, SMC-D if unset */
static int on_path(int fd, const char *end)
{
	const char *want = getenv("SMC_EXPECT_PATH");
	char why[256];

	if (!want || !*want)
		return is_smcd(fd, end);
	if (!smc_check_fd_path(fd, 2000, why, sizeof(why)))
		return 1;
	ktap_diag("%s: %s", end, why);
	return 0;
}

/* The attacker's start: uid 65534, then an AF_SMC listener (in @a) */
static int nobody_listener(struct sockaddr_in *a)
{
	int lfd;

	if (become_nobody())
		return -1;
	lfd = smc_listener(a, 16);
	if (lfd < 0)
		ktap_diag("listener: %s", strerror(errno));
	return lfd;
}

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

/* ---- urgent_data_against_close ---- */

struct urg {
	atomic_int	fd;		/* client to send on, -1: none */
	atomic_int	busy;		/* the sender may be using fd */
	atomic_int	stop;
	atomic_int	dead;		/* a send on fd failed */
	atomic_ulong	sent;		/* urgent bytes sent, all pairs */
	atomic_ulong	round;		/* the same, this pair */
};

static void *urg_sender(void *arg)
{
	struct urg *u = arg;
	int fd;

	while (!atomic_load(&u->stop)) {
		atomic_store(&u->busy, 1);
		fd = atomic_load(&u->fd);
		if (fd < 0 || atomic_load(&u->dead)) {
			atomic_store(&u->busy, 0);
			sched_yield();
			continue;
		}
		if (send(fd, "!", 1, MSG_OOB | MSG_DONTWAIT |
			 MSG_NOSIGNAL) == 1) {
			atomic_fetch_add(&u->sent, 1);
			atomic_fetch_add(&u->round, 1);
		} else if (errno != EAGAIN && errno != EINTR) {
			atomic_store(&u->dead, 1);
		}
		atomic_store(&u->busy, 0);
	}
	return NULL;
}

/* The attacker's side of urgent_data_against_close: exit status */
static int urg_attacker(void)
{
	unsigned long want_closes = env_ul("SMCD_ABUSE_CLOSES", 1000);
	unsigned long want_bytes = env_ul("SMCD_ABUSE_URG_BYTES", 100000);
	unsigned long closes = 0, checked = 0, refused = 0;
	unsigned long seed = getpid();
	struct urg u = { .fd = -1 };
	struct sockaddr_in a;
	int lfd, cli, srv, ok = 1;
	long start = now_ms(), t;
	pthread_t th;

	lfd = nobody_listener(&a);
	if (lfd < 0)
		return 1;
	if (pthread_create(&th, NULL, urg_sender, &u)) {
		ktap_diag("cannot start the sender");
		return 1;
	}
	while (ok && (closes < want_closes ||
		      atomic_load(&u.sent) < want_bytes)) {
		unsigned long target;

		cli = smc_connect(&a);
		srv = cli < 0 ? -1 : accept(lfd, NULL, NULL);
		if (srv < 0) {
			ktap_diag("pair %lu: %s", closes + 1, strerror(errno));
			ok = 0;
			if (cli >= 0)
				close(cli);
			break;
		}
		if (closes % 100 == 0) {
			ok = is_smcd(cli, "client") && is_smcd(srv, "server");
			checked++;
		}
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		target = 50 + (seed >> 33) % 250;
		atomic_store(&u.round, 0);
		atomic_store(&u.dead, 0);
		atomic_store(&u.fd, cli);
		t = now_ms();
		while (atomic_load(&u.round) < target &&
		       !atomic_load(&u.dead) && now_ms() - t < 5000)
			sched_yield();
		if (atomic_load(&u.round) < target) {
			ktap_diag("pair %lu: %lu of %lu urgent bytes sent, %s",
				  closes + 1, atomic_load(&u.round), target,
				  atomic_load(&u.dead) ? "then a send failed" :
				  "then the sender stalled for 5 s");
			ok = 0;
		}
		/* the reader goes while urgent bytes ring its doorbell */
		close(srv);
		closes++;
		t = now_ms();
		while (!atomic_load(&u.dead) && now_ms() - t < 20)
			sched_yield();
		refused += atomic_load(&u.dead);
		atomic_store(&u.fd, -1);
		while (atomic_load(&u.busy))
			;
		close(cli);
		if (now_ms() - start > 600 * 1000) {
			ktap_diag("10 minutes are up after %lu closes", closes);
			ok = 0;
		}
	}
	atomic_store(&u.stop, 1);
	pthread_join(th, NULL);
	close(lfd);
	ktap_diag("%lu closes, %lu urgent bytes sent, %lu pairs checked SMC-D at both ends, %ld ms",
		  closes, atomic_load(&u.sent), checked, now_ms() - start);
	ktap_diag("after %lu of the closes a send failed within 20 ms",
		  refused);
	if (ok && atomic_load(&u.sent) < want_bytes) {
		ktap_diag("fewer than %lu urgent bytes", want_bytes);
		ok = 0;
	}
	return !ok;
}

/* Run @fn in a child as the attacker; 1 when it exited 0 in time */
static int run_attacker(int (*fn)(void), int timeout_s)
{
	long t = now_ms();
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		alarm(timeout_s);
		_exit(fn());
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st)) {
		ktap_diag("the attacker died of signal %d after %ld ms",
			  WTERMSIG(st), now_ms() - t);
		return 0;
	}
	return WIFEXITED(st) && !WEXITSTATUS(st);
}

static void urgent_data_against_close(void)
{
	int kfd = kmsg_open(), ok;

	ok = run_attacker(urg_attacker, 900);
	kmsg_result(kfd, ok, "urgent_data_against_close");
}

/* ---- setsockopt_against_close ---- */

static const struct race_opt {
	int level, name, val;
} race_opts[] = {
	{ SOL_TCP, TCP_NODELAY, 1 },
	{ SOL_TCP, TCP_NODELAY, 0 },
	{ SOL_TCP, TCP_CORK, 1 },
	{ SOL_TCP, TCP_CORK, 0 },
	{ SOL_TCP, TCP_KEEPIDLE, 30 },
	{ SOL_TCP, TCP_QUICKACK, 1 },
	{ SOL_TCP, TCP_DEFER_ACCEPT, 1 },
	{ SOL_SOCKET, SO_KEEPALIVE, 1 },
	{ SOL_SOCKET, SO_RCVBUF, 65536 },
	{ SOL_SOCKET, SO_SNDBUF, 65536 },
	/* last: in some rounds only, it makes the connection fall back */
	{ SOL_TCP, TCP_FASTOPEN_CONNECT, 1 },
};

#define RACE_OPTS	(sizeof(race_opts) / sizeof(*race_opts))

struct opt_hammer {
	pthread_t	th;
	int		fd;
	int		nopts;		/* how many of race_opts to use */
	atomic_int	stop;
	unsigned long	calls;
};

static void *opt_hammer(void *arg)
{
	struct opt_hammer *h = arg;
	unsigned int seed = (unsigned int)(uintptr_t)h ^ getpid();
	const struct race_opt *o;
	socklen_t l;
	int v;

	while (!atomic_load(&h->stop)) {
		o = &race_opts[rand_r(&seed) % h->nopts];
		v = o->val;
		setsockopt(h->fd, o->level, o->name, &v, sizeof(v));
		l = sizeof(v);
		getsockopt(h->fd, o->level, o->name, &v, &l);
		h->calls++;
	}
	return NULL;
}

static int hammer_start(struct opt_hammer *h, int fd, int nopts)
{
	h->fd = fd;
	h->nopts = nopts;
	h->calls = 0;
	atomic_store(&h->stop, 0);
	return pthread_create(&h->th, NULL, opt_hammer, h);
}

static unsigned long hammer_stop(struct opt_hammer *h)
{
	atomic_store(&h->stop, 1);
	pthread_join(h->th, NULL);
	return h->calls;
}

/* accept() on @lfd within @ms, or -1 */
static int accept_within(int lfd, int ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

/* @fd's connect completed within @ms */
static int connected_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	socklen_t l = sizeof(int);
	int err = 0;

	if (poll(&p, 1, ms) != 1)
		return 0;
	return !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) && !err;
}

static int opt_attacker(void)
{
	unsigned long rounds = env_ul("SMCD_ABUSE_ROUNDS", 300);
	unsigned long i, calls = 0, checked = 0, seed = getpid();
	struct opt_hammer h[3];
	struct sockaddr_in a;
	int lfd, cli, srv, n, fb, ok = 1;
	long start = now_ms(), t;

	lfd = nobody_listener(&a);
	if (lfd < 0)
		return 1;
	for (i = 0; ok && i < rounds; i++) {
		t = now_ms();
		fb = i % 4 == 3;
		n = fb ? RACE_OPTS : RACE_OPTS - 1;
		cli = socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			     SMCPROTO_SMC);
		if (cli < 0 || hammer_start(&h[0], cli, n) ||
		    hammer_start(&h[1], cli, n)) {
			ktap_diag("round %lu: set-up failed", i);
			return 1;
		}
		if (connect(cli, (struct sockaddr *)&a, sizeof(a)) &&
		    errno != EINPROGRESS) {
			ktap_diag("round %lu: connect: %s", i, strerror(errno));
			ok = 0;
		}
		srv = accept_within(lfd, 5000);
		if (srv < 0) {
			ktap_diag("round %lu: no connection in 5 s", i);
			ok = 0;
		} else if (hammer_start(&h[2], srv, RACE_OPTS - 1)) {
			return 1;
		}
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		usleep((seed >> 33) % 2000);
		if (ok && !fb && i % 50 == 0) {
			ok = connected_within(cli, 5000) &&
			     on_path(cli, "client") && on_path(srv, "server");
			checked++;
		}
		/* an end goes while options are set on both */
		switch (i % 3) {
		case 0:
			shutdown(cli, SHUT_RDWR);
			break;
		case 1:
			if (srv >= 0)
				shutdown(srv, SHUT_RDWR);
			break;
		default:
			/* a pair fallen back or reset already: fine */
			(void)!write(cli, "x", 1);
			shutdown(cli, SHUT_WR);
			break;
		}
		usleep((seed >> 40) % 1000);
		calls += hammer_stop(&h[0]) + hammer_stop(&h[1]);
		if (srv >= 0) {
			calls += hammer_stop(&h[2]);
			close(srv);
		}
		close(cli);
		if (now_ms() - t > 5000) {
			ktap_diag("round %lu took %ld ms", i, now_ms() - t);
			ok = 0;
		}
	}
	close(lfd);
	ktap_diag("%lu rounds, %lu option calls, %lu pairs checked on the path, %ld ms",
		  i, calls, checked, now_ms() - start);
	return !ok;
}

/*
 * AF_SMC sockets in smc_diag: all, or those of uid 65534.  A child its
 * listener never handed to accept() has no file, so no owner in
 * smc_diag: it shows only in the total.
 */
static int smc_sockets(bool nobody_only)
{
	struct smc_sock_info *si;
	int i, n, mine = 0;

	n = smc_diag_dump(&si);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		mine += !nobody_only || si[i].uid == NOBODY;
	free(si);
	return nobody_only ? mine : n;
}

#define LEFT_FMT "%d AF_SMC socket(s) left 10 s after the attacker exited, %d before it ran"

/*
 * No socket of the attacker's is left within 10 s, nor one more than
 * @baseline in all: its listeners' children included.
 */
static int nobody_left(int baseline)
{
	long t = now_ms();
	int n, all;

	for (;;) {
		n = smc_sockets(true);
		all = smc_sockets(false);
		if ((!n && all <= baseline) || now_ms() - t >= 10000)
			break;
		msleep(50);
	}
	if (n)
		ktap_diag("%d AF_SMC socket(s) of uid %d left 10 s after it exited",
			  n, NOBODY);
	if (all > baseline)
		ktap_diag(LEFT_FMT, all, baseline);
	return !n && all <= baseline;
}

/* run_attacker(@fn), then the kernel log and the leftovers */
static void race_case(const char *name, int (*fn)(void))
{
	int kfd = kmsg_open(), ok, baseline = smc_sockets(false);

	ok = run_attacker(fn, 900);
	ok = nobody_left(baseline) && ok;
	kmsg_result(kfd, ok, name);
}

/* ---- cdc_against_free ---- */

struct streamer {
	pthread_t	th;
	int		fd;
	atomic_int	stop;
	int		err;		/* the errno that ended it, or 0 */
	unsigned long	bytes;
};

static void *streamer(void *arg)
{
	static char buf[65536];
	struct streamer *w = arg;
	struct pollfd p;
	ssize_t r;

	while (!atomic_load(&w->stop)) {
		r = send(w->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r > 0) {
			w->bytes += r;
			continue;
		}
		if (r < 0 && errno != EAGAIN && errno != EINTR) {
			w->err = errno;
			break;
		}
		p.fd = w->fd;
		p.events = POLLOUT;
		poll(&p, 1, 10);
	}
	return NULL;
}

static int free_attacker(void)
{
	unsigned long rounds = env_ul("SMCD_ABUSE_ROUNDS", 300);
	unsigned long i, checked = 0, bytes = 0, seed = getpid();
	int lfd, cli, srv, wfd, rfd, ok = 1;
	struct linger lg = { 1, 0 };
	static char buf[65536];
	struct sockaddr_in a;
	struct streamer w;
	long start = now_ms(), t, want, got;
	ssize_t r;

	lfd = nobody_listener(&a);
	if (lfd < 0)
		return 1;
	for (i = 0; ok && i < rounds; i++) {
		cli = smc_connect(&a);
		srv = cli < 0 ? -1 : accept_within(lfd, 5000);
		if (srv < 0) {
			ktap_diag("round %lu: %s", i, strerror(errno));
			if (cli >= 0)
				close(cli);
			ok = 0;
			break;
		}
		if (i % 50 == 0) {
			ok = on_path(cli, "client") && on_path(srv, "server");
			checked++;
		}
		/* the ends swap roles each round */
		wfd = i % 2 ? cli : srv;
		rfd = i % 2 ? srv : cli;
		memset(&w, 0, sizeof(w));
		w.fd = wfd;
		if (pthread_create(&w.th, NULL, streamer, &w))
			return 1;
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		want = (seed >> 33) % (256 * 1024);
		for (got = 0, t = now_ms(); got < want && now_ms() - t < 5000;
		     got += r) {
			r = recv(rfd, buf, sizeof(buf), MSG_DONTWAIT);
			if (r < 0 && errno == EAGAIN) {
				r = 0;
				sched_yield();
			} else if (r <= 0) {
				break;
			}
		}
		/* unread data left: the close resets, as TCP's would */
		if (i % 4 >= 2)
			setsockopt(rfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(rfd);
		t = now_ms();
		while (!w.err && now_ms() - t < 5000)
			msleep(5);
		atomic_store(&w.stop, 1);
		pthread_join(w.th, NULL);
		bytes += w.bytes;
		if (w.err != EPIPE && w.err != ECONNRESET) {
			ktap_diag("round %lu: the writer %s after its peer closed",
				  i, w.err ? strerror(w.err) :
				  "still wrote 5 s");
			ok = 0;
		}
		close(wfd);
	}
	close(lfd);
	ktap_diag("%lu rounds, %lu bytes streamed, %lu pairs checked on the path, %ld ms",
		  i, bytes, checked, now_ms() - start);
	return !ok;
}

/* ---- dmb_budget_of_a_user_netns ---- */

/* What the attacker tells the bystander once its flood is held */
struct flood_report {
	int		setup_ok;
	int		pairs;		/* connected clients */
	int		smcd;		/* of them over SMC-D */
	int		fell_back;	/* the first fallback client, or -1 */
	uint32_t	reason;
	uint32_t	peer_diag;
	int		memory_guard;	/* stopped: memory ran low */
};

/* A user and network namespace of our own, root in it, lo up */
static int own_namespaces(void)
{
	char map[64];
	struct ifreq ifr = {};
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		ktap_diag("unshare(user, net) as uid %d: %s", NOBODY,
			  strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "0 %d 1", NOBODY);
	if (smc_file_write("/proc/self/setgroups", "deny") ||
	    smc_file_write("/proc/self/uid_map", map) ||
	    smc_file_write("/proc/self/gid_map", map)) {
		ktap_diag("id maps: %s", strerror(errno));
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ktap_diag("lo: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr)) {
		ktap_diag("lo up: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if (smc_file_write("/proc/sys/net/smc/rmem", RMEM_MAX)) {
		ktap_diag("net.smc.rmem=%s in the user's netns: %s", RMEM_MAX,
			  strerror(errno));
		return -1;
	}
	if (smc_file_write("/proc/sys/net/core/somaxconn", "65535"))
		ktap_diag("net.core.somaxconn: %s (kept)", strerror(errno));
	return 0;
}

static long mem_available_mib(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

/*
 * The paths of clients [@from, @to): the first that fell back goes to
 * @r; clients smc_diag does not show yet count as unknown.  Returns the
 * number of SMC-D ones.
 */
static int flood_paths(const uint64_t *ino, int from, int to,
		       struct flood_report *r)
{
	struct smc_sock_info *si = NULL;
	int n, i, j, smcd = 0;

	n = smc_diag_dump(&si);
	if (n < 0) {
		ktap_diag("smc_diag dump: %s", strerror(-n));
		return -1;
	}
	for (i = from; i < to; i++)
		for (j = 0; j < n; j++) {
			if (si[j].inode != ino[i])
				continue;
			if (si[j].mode == SMC_TEST_MODE_SMCD) {
				smcd++;
			} else if (r->fell_back < 0) {
				r->fell_back = i;
				r->reason = si[j].reason;
				r->peer_diag = si[j].peer_diag;
			}
			break;
		}
	free(si);
	return smcd;
}

static int flood_c2p[2], flood_p2c[2];
static char flood_fill[64 * 1024];	/* what a client writes */
static int flood_own_ns;	/* in a user and network namespace of its own */
static char flood_cg[96];	/* its memory cgroup, if there is one */

/*
 * A memory cgroup (v2) of its own for the attacker, in flood_cg; empty
 * when cgroup v2 or its memory controller is not there
 */
static void flood_cg_make(void)
{
	char path[128];

	flood_cg[0] = '\0';
	if (access("/sys/fs/cgroup/cgroup.subtree_control", W_OK))
		return;
	smc_file_write("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	snprintf(flood_cg, sizeof(flood_cg), "/sys/fs/cgroup/smcd_abuse.%d",
		 getpid());
	snprintf(path, sizeof(path), "%s/memory.current", flood_cg);
	if (mkdir(flood_cg, 0755) || access(path, R_OK)) {
		rmdir(flood_cg);
		flood_cg[0] = '\0';
	}
}

/* memory.current of the attacker's cgroup, or -1 */
static long long flood_cg_bytes(void)
{
	char path[128];

	if (!flood_cg[0])
		return -1;
	snprintf(path, sizeof(path), "%s/memory.current", flood_cg);
	return smc_file_ll(path);
}

static int flood_attacker(void)
{
	int max = env_ul("SMCD_ABUSE_FLOOD_PAIRS", 700), lfd, fd, i, n;
	int checked = 0;
	struct flood_report r = { .fell_back = -1 };
	struct rlimit rl;
	struct sockaddr_in a;
	struct stat st;
	uint64_t *ino;
	char go;

	close(flood_c2p[0]);
	close(flood_p2c[1]);
	ino = calloc(max, sizeof(*ino));
	if (flood_cg[0]) {
		char path[128], pid[16];

		snprintf(path, sizeof(path), "%s/cgroup.procs", flood_cg);
		snprintf(pid, sizeof(pid), "%d", getpid());
		if (smc_file_write(path, pid))
			ktap_diag("into %s: %s", flood_cg, strerror(errno));
	}
	if (!ino || become_nobody() || (flood_own_ns && own_namespaces()))
		goto report;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	lfd = smc_listener(&a, 65535);
	if (lfd < 0) {
		ktap_diag("listener in the user's netns: %s", strerror(errno));
		goto report;
	}
	r.setup_ok = 1;
	/*
	 * A listener that never accepts: each pair keeps its two DMBs.
	 * A ring has pages only once written, so each client fills its
	 * server's ring (not accepted, it still takes data): the flood's
	 * memory is mostly those pages, which must be charged to it.
	 */
	for (i = 0; i < max && r.fell_back < 0; i++) {
		fd = smc_connect(&a);
		if (fd < 0 || fstat(fd, &st)) {
			ktap_diag("flood connect %d: %s", i + 1,
				  strerror(errno));
			break;
		}
		if (send(fd, flood_fill, sizeof(flood_fill),
			 MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && errno != EAGAIN)
			ktap_diag("flood write %d: %s", i + 1,
				  strerror(errno));
		ino[r.pairs++] = st.st_ino;
		if (r.pairs % 16 && r.pairs != max)
			continue;
		n = flood_paths(ino, checked, r.pairs, &r);
		if (n < 0)
			break;
		r.smcd += n;
		checked = r.pairs;
		if (r.fell_back < 0 && mem_available_mib() >= 0 &&
		    mem_available_mib() < 512) {
			r.memory_guard = 1;
			break;
		}
	}
	if (checked < r.pairs) {
		n = flood_paths(ino, checked, r.pairs, &r);
		r.smcd += n > 0 ? n : 0;
	}
report:
	if (write(flood_c2p[1], &r, sizeof(r)) != sizeof(r))
		return 1;
	/* hold the flood until the bystander is done */
	if (read(flood_p2c[0], &go, 1) < 0)
		return 1;
	return 0;
}

/* The DMB counters back at @base within @ms */
static int dmbs_at(const struct lo_ism_stats *base, int ms,
		   struct lo_ism_stats *now)
{
	long t = now_ms();

	do {
		if (!lo_ism_read(now) &&
		    now->dmbs_registered == base->dmbs_registered &&
		    now->dmbs_attached == base->dmbs_attached)
			return 1;
		msleep(50);
	} while (now_ms() - t < ms);
	return 0;
}

/*
 * Case @name: the flood of uid 65534, in namespaces of its own when
 * @own_ns, may hold @most DMBs at most
 */
static void dmb_flood_case(const char *name, int own_ns, int most)
{
	struct lo_ism_stats base, held, after;
	struct flood_report r = {};
	int kfd, ok = 1, cli, srv, lfd, st;
	long long cg, dmb;
	struct sockaddr_in a;
	struct pollfd pfd;
	long t;
	pid_t pid;

	if (lo_ism_read(&base)) {
		ktap_skip(name, "no loopback-ism counters in debugfs");
		return;
	}
	flood_own_ns = own_ns;
	flood_cg_make();
	kfd = kmsg_open();
	if (pipe2(flood_c2p, O_CLOEXEC) || pipe2(flood_p2c, O_CLOEXEC))
		ktap_fail_all("pipe");
	fflush(stdout);
	t = now_ms();
	pid = fork();
	if (pid < 0)
		ktap_fail_all("fork");
	if (!pid) {
		alarm(900);
		_exit(flood_attacker());
	}
	close(flood_c2p[1]);
	close(flood_p2c[0]);
	pfd.fd = flood_c2p[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 900 * 1000) != 1 ||
	    read(flood_c2p[0], &r, sizeof(r)) != sizeof(r)) {
		ktap_diag("no report from the attacker");
		ok = 0;
	}
	lo_ism_read(&held);
	cg = flood_cg_bytes();
	ktap_diag("flood: %d pairs in %ld ms, %d over SMC-D; "
		  "%lld DMBs held (%lld before), %lld MiB of DMBs",
		  r.pairs, now_ms() - t, r.smcd,
		  held.dmbs_registered - base.dmbs_registered,
		  base.dmbs_registered, held.dmb_bytes >> 20);
	if (ok && !r.setup_ok) {
		ktap_diag("the attacker could not set up its flood");
		ok = 0;
	}
	if (r.setup_ok && r.fell_back < 0) {
		ktap_diag("the flood made %d pairs and no Decline%s", r.pairs,
			  r.memory_guard ? "; stopped as memory ran low" : "");
		ok = 0;
	} else if (r.setup_ok) {
		ktap_diag("pair %d fell back: reason 0x%08x, peer 0x%08x",
			  r.fell_back + 1, r.reason, r.peer_diag);
		if (r.reason != DECL_MAX_DMB &&
		    (r.reason != DECL_PEERDECL ||
		     r.peer_diag != DECL_MAX_DMB)) {
			ktap_diag("expected the Decline 0x%08x", DECL_MAX_DMB);
			ok = 0;
		}
	}
	if (held.dmbs_registered - base.dmbs_registered > most) {
		ktap_diag("the flood held more than %d of the host's %d DMBs",
			  most, HOST_DMBS);
		ok = 0;
	}
	/* its DMBs, its children's included, are its cgroup's memory */
	dmb = held.dmb_bytes - base.dmb_bytes;
	if (cg < 0) {
		ktap_diag("no memory cgroup of its own: charges not checked");
	} else {
		ktap_diag("its cgroup's memory: %lld MiB for %lld MiB of DMBs",
			  cg >> 20, dmb >> 20);
		if (cg < dmb) {
			ktap_diag("the flood's DMBs were not all charged to it");
			ok = 0;
		}
	}

	/* the bystander: root in init_net, while the flood is held */
	lfd = smc_listener(&a, 4);
	cli = lfd < 0 ? -1 : smc_connect(&a);
	srv = cli < 0 ? -1 : accept(lfd, NULL, NULL);
	if (srv < 0) {
		ktap_diag("root's connection in init_net: %s", strerror(errno));
		ok = 0;
	} else if (!is_smcd(cli, "root's client in init_net") ||
		   !is_smcd(srv, "root's server in init_net")) {
		ok = 0;
	}
	if (srv >= 0)
		close(srv);
	if (cli >= 0)
		close(cli);
	if (lfd >= 0)
		close(lfd);

	close(flood_p2c[1]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	close(flood_c2p[0]);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		ktap_diag("the attacker ended with status 0x%x", st);
		ok = 0;
	}
	if (!dmbs_at(&base, 30000, &after)) {
		ktap_diag("30 s after the flood: %lld DMBs registered, %lld attached; "
			  "before %lld and %lld",
			  after.dmbs_registered, after.dmbs_attached,
			  base.dmbs_registered, base.dmbs_attached);
		ok = 0;
	}
	if (flood_cg[0] && rmdir(flood_cg))
		ktap_diag("rmdir %s: %s", flood_cg, strerror(errno));
	kmsg_result(kfd, ok, name);
}

/* The case runs, or is skipped for SMCD_ABUSE_ONLY */
static int wanted(const char *name)
{
	const char *only = getenv("SMCD_ABUSE_ONLY");

	if (!only || !*only || !strcmp(only, name))
		return 1;
	ktap_skip(name, "SMCD_ABUSE_ONLY");
	return 0;
}

static void on_term(int sig)
{
	(void)sig;
	smcd_param_restore();
	_exit(KSFT_FAIL);
}

int main(void)
{
	int fd, smcr;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (geteuid())
		ktap_skip_all("needs root to set up (the attacks run as uid 65534)");
	fd = socket(AF_SMC, SOCK_STREAM, 0);
	if (fd < 0)
		ktap_no_smc(errno);
	close(fd);
	smcr = smc_expect_smcr();
	if (!smcr && smcd_param_set(1))
		ktap_skip_all("no writable smcd module parameter");
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);

	ktap_header(5);
	if (smcr) {
		ktap_skip("urgent_data_against_close", SMC_TEST_SKIP_SMCD);
		ktap_skip("dmb_budget_of_a_user_netns", SMC_TEST_SKIP_SMCD);
		ktap_skip("dmb_budget_of_a_user_in_init_net",
			  SMC_TEST_SKIP_SMCD);
	} else {
		if (wanted("urgent_data_against_close"))
			urgent_data_against_close();
		/* a netns's own limit is an eighth, the attacker's children
		 * are counted in its netns: at most a quarter, with slack
		 */
		if (wanted("dmb_budget_of_a_user_netns"))
			dmb_flood_case("dmb_budget_of_a_user_netns", 1,
				       HOST_DMBS / 4);
		/* the listener's children count as the attacker's */
		if (wanted("dmb_budget_of_a_user_in_init_net"))
			dmb_flood_case("dmb_budget_of_a_user_in_init_net", 0,
				       HOST_DMBS / 8);
	}
	if (wanted("setsockopt_against_close"))
		race_case("setsockopt_against_close", opt_attacker);
	if (wanted("cdc_against_free"))
		race_case("cdc_against_free", free_attacker);
	if (!smcr)
		smcd_param_restore();
	ktap_finish();
}
