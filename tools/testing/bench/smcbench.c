// SPDX-License-Identifier: GPL-2.0
/*
 * smcbench: client and server of one benchmark run in one process, over
 * TCP, AF_UNIX or AF_SMC on the local host.  Prints one JSON object on
 * stdout; exits 0 on success, 1 on any error (path mismatch, failed
 * verification, timeout), 2 on a usage error.
 *
 * Times come from CLOCK_MONOTONIC only: the runs may happen in a guest
 * whose clock is instruction-counted, so neither the TSC nor sleeps are
 * used to measure anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/utsname.h>

#include "insnmark.h"
#include "smc_diag_util.h"
#include "sha256.h"

#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC	0x64626720
#endif
#define DEBUGFS_DIR	"/sys/kernel/debug"
#define LO_ISM_FILE	DEBUGFS_DIR "/smc/loopback-ism"
/* Period of the test pattern: not a power of two, so that a reordering
 * by a power-of-two distance shows up in --verify
 */
#define PAT_PERIOD	((1u << 20) + 4099)
#define CRR_MSG		64
#define CLOCKSOURCE \
	"/sys/devices/system/clocksource/clocksource0/current_clocksource"

enum { T_TCP, T_UDS, T_SMC };
enum { M_STREAM, M_PINGPONG, M_CRR, M_MEM };

static const char * const tnames[] = { "tcp", "uds", "smc" };
static const char * const mnames[] = { "stream", "pingpong", "crr", "mem" };

static struct {
	int transport;
	int mode;
	size_t size;
	int size_set;
	double duration;
	uint64_t count;
	int count_set;
	int parallel;
	size_t rbuf;
	int timeout;
	int verify;
	int expect;
	const char *uds_path;
	int port;
	int sockbuf;
	uint64_t warmup;
	int sample;
	int backlog;
	const char *tag;
	int mark;
} o = {
	.transport = -1,
	.mode = -1,
	.parallel = 1,
	.rbuf = 1 << 20,
	.expect = SMC_TEST_MODE_SMCD,
	.sample = 100,
	.backlog = 1024,
};

static struct sockaddr_storage srv_addr;
static socklen_t srv_len;
static uint8_t *pat;		/* PAT_PERIOD + slack bytes of pattern */
static atomic_int stop;		/* abort everything */
static atomic_int done;		/* servers: no more connections */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;
static char errmsg[512];

/* ---- small helpers ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --mark: the measured part is one phase of the instruction profile;
 * an end without its begin (a run that failed early) marks nothing
 */
static atomic_int marking;

static void mark_begin(void)
{
	if (o.mark && !atomic_exchange(&marking, 1))
		insnmark_begin();
}

static void mark_end(void)
{
	if (atomic_exchange(&marking, 0))
		insnmark_end();
}

/* Record the first error and make every thread stop */
static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&err_lock);
	if (!errmsg[0]) {
		va_start(ap, fmt);
		vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&err_lock);
	atomic_store(&stop, 1);
}

static int readn(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = read(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return done ? -EPIPE : 0;
		done += n;
	}
	return 1;
}

static int writen(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += n;
	}
	return 0;
}

/* Wait for EOF from the peer, discarding anything else */
static int wait_eof(int fd)
{
	char b[256];
	ssize_t n;

	for (;;) {
		n = read(fd, b, sizeof(b));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array */
static double pctl(const double *v, size_t n, double p)
{
	size_t i = (size_t)ceil(p * n);

	if (!n)
		return 0;
	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return v[i - 1];
}

/* ---- JSON output ---- */

static char jbuf[16384];
static size_t jlen;

static void jraw(const char *key, const char *fmt, ...)
{
	va_list ap;

	if (jlen >= sizeof(jbuf) - 2)
		return;
	jlen += snprintf(jbuf + jlen, sizeof(jbuf) - jlen, "%s\"%s\":",
			 jlen > 1 ? "," : "", key);
	if (jlen >= sizeof(jbuf) - 2)
		return;
	va_start(ap, fmt);
	jlen += vsnprintf(jbuf + jlen, sizeof(jbuf) - jlen, fmt, ap);
	va_end(ap);
	if (jlen > sizeof(jbuf) - 2)
		jlen = sizeof(jbuf) - 2;
}

static void jstr(const char *key, const char *s)
{
	char esc[1024];
	size_t i, j = 0;

	if (!s) {
		jraw(key, "null");
		return;
	}
	for (i = 0; s[i] && j < sizeof(esc) - 8; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			esc[j++] = '\\';
			esc[j++] = c;
		} else if (c < 0x20) {
			j += snprintf(esc + j, sizeof(esc) - j, "\\u%04x", c);
		} else {
			esc[j++] = c;
		}
	}
	esc[j] = 0;
	jraw(key, "\"%s\"", esc);
}

static void jint(const char *key, long long v)
{
	jraw(key, "%lld", v);
}

static void jdbl(const char *key, double v)
{
	if (isfinite(v))
		jraw(key, "%.6g", v);
	else
		jraw(key, "null");
}

static void jbool(const char *key, int v)
{
	jraw(key, v ? "true" : "false");
}

/* ---- timeout ---- */

static char tmo_json[512];
static size_t tmo_len;

static void on_alarm(int sig)
{
	ssize_t r;

	(void)sig;
	r = write(STDOUT_FILENO, tmo_json, tmo_len);
	(void)r;
	_exit(1);
}

static void arm_timeout(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	tmo_len = snprintf(tmo_json, sizeof(tmo_json),
			   "{\"tool\":\"smcbench\",\"transport\":\"%s\","
			   "\"mode\":\"%s\",\"size\":%zu,\"ok\":false,"
			   "\"path_ok\":null,\"error\":\"timeout after %d s\"}\n",
			   tnames[o.transport], mnames[o.mode], o.size,
			   o.timeout);
	sigaction(SIGALRM, &sa, NULL);
	alarm(o.timeout);
}

/* ---- sockets ---- */

static int mk_socket(void)
{
	int fd = -1;

	switch (o.transport) {
	case T_TCP:
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		break;
	case T_UDS:
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		break;
	case T_SMC:
		fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
		break;
	}
	if (fd < 0) {
		fail("socket(%s): %s", tnames[o.transport], strerror(errno));
		return -1;
	}
	if (o.sockbuf) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &o.sockbuf,
			   sizeof(o.sockbuf));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &o.sockbuf,
			   sizeof(o.sockbuf));
	}
	return fd;
}

/* Small messages must not wait for Nagle; errors do not matter */
static void set_nodelay(int fd)
{
	int one = 1;

	if (o.transport != T_UDS)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int mk_listener(int backlog)
{
	int fd = mk_socket(), one = 1;

	if (fd < 0)
		return -1;
	memset(&srv_addr, 0, sizeof(srv_addr));
	if (o.transport == T_UDS) {
		struct sockaddr_un *un = (struct sockaddr_un *)&srv_addr;

		un->sun_family = AF_UNIX;
		if (o.uds_path) {
			if (strlen(o.uds_path) >= sizeof(un->sun_path)) {
				fail("--uds-path too long");
				goto err;
			}
			unlink(o.uds_path);
			memcpy(un->sun_path, o.uds_path,
			       strlen(o.uds_path) + 1);
			srv_len = sizeof(*un);
		} else {
			/* abstract: a leading NUL, not terminated */
			int n = snprintf(un->sun_path + 1,
					 sizeof(un->sun_path) - 1,
					 "smcbench.%d.%ld", (int)getpid(),
					 (long)(now() * 1e6) % 1000000);

			srv_len = offsetof(struct sockaddr_un, sun_path) +
				  1 + n;
		}
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&srv_addr;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		in->sin_family = AF_INET;
		in->sin_port = htons(o.port);
		/* 127.0.0.1, or SMC_TEST_ADDR4 (another end's address) */
		if (smc_test_addr4(&in->sin_addr)) {
			fail("bad SMC_TEST_ADDR4");
			goto err;
		}
		srv_len = sizeof(*in);
	}
	if (bind(fd, (struct sockaddr *)&srv_addr, srv_len)) {
		fail("bind: %s", strerror(errno));
		goto err;
	}
	if (listen(fd, backlog)) {
		fail("listen: %s", strerror(errno));
		goto err;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (o.transport != T_UDS) {
		socklen_t l = sizeof(srv_addr);

		if (getsockname(fd, (struct sockaddr *)&srv_addr, &l)) {
			fail("getsockname: %s", strerror(errno));
			goto err;
		}
		srv_len = l;
	}
	return fd;
err:
	close(fd);
	return -1;
}

static int do_connect(void)
{
	int fd = mk_socket();

	if (fd < 0)
		return -1;
	while (connect(fd, (struct sockaddr *)&srv_addr, srv_len)) {
		if (errno == EINTR)
			continue;
		fail("connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	set_nodelay(fd);
	return fd;
}

/* accept() on a listener that may be non-blocking; the new fd blocks */
static int do_accept(int lfd)
{
	int fd, fl;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	set_nodelay(fd);
	return fd;
}

/*
 * Accept one connection on the non-blocking listener @lfd; gives up when
 * the run is stopped.  Returns the fd or -1.
 */
static int accept_wait(int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	int fd;

	while (!atomic_load(&stop) && !atomic_load(&done)) {
		/* the timeout only lets the thread notice a stop */
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		fd = do_accept(lfd);
		if (fd >= 0)
			return fd;
		if (fd == -EAGAIN || fd == -EWOULDBLOCK || fd == -EINTR ||
		    fd == -ECONNABORTED)
			continue;
		fail("accept: %s", strerror(-fd));
	}
	return -1;
}

/* ---- path check via sock_diag ---- */

static struct {
	pthread_mutex_t lock;
	int checked;		/* number of sockets checked */
	int bad;		/* number that did not match */
	int mode;		/* first seen (or first bad) mode */
	uint32_t reason;
	uint32_t peer_diag;
	char why[256];
} path = { .lock = PTHREAD_MUTEX_INITIALIZER, .mode = -1 };

static void path_record(const struct smc_sock_info *si, int ok,
			const char *why)
{
	pthread_mutex_lock(&path.lock);
	path.checked++;
	if ((path.mode < 0 || (!ok && !path.bad)) && si) {
		path.mode = si->mode;
		path.reason = si->reason;
		path.peer_diag = si->peer_diag;
	}
	if (!ok) {
		if (!path.bad)
			snprintf(path.why, sizeof(path.why), "%s", why);
		path.bad++;
	}
	pthread_mutex_unlock(&path.lock);
}

static int cmp_ino(const void *a, const void *b)
{
	const struct smc_sock_info *x = a, *y = b;

	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

static void path_mismatch(const struct smc_sock_info *si, int fd,
			  uint64_t ino)
{
	char why[256];

	if (!si)
		snprintf(why, sizeof(why),
			 "fd %d (inode %llu) not in smc_diag dump",
			 fd, (unsigned long long)ino);
	else
		snprintf(why, sizeof(why),
			 "fd %d: mode %s, expected %s (reason 0x%08x peer 0x%08x)",
			 fd, smc_mode_name(si->mode), smc_mode_name(o.expect),
			 si->reason, si->peer_diag);
	path_record(si, 0, why);
}

/*
 * Check the path of @n sockets with one sock_diag dump per attempt.
 * A socket that is missing or in the wrong mode is looked at again for
 * up to one second before it counts as a mismatch.  Returns 0 if all
 * match.
 */
static int path_check(const int *fds, int n)
{
	struct smc_sock_info *all = NULL, *si;
	uint64_t *ino;
	char *done;
	double until = now() + 1.0;
	struct smc_sock_info key;
	int i, cnt, left = n, rc = 0;

	if (o.transport != T_SMC || n <= 0)
		return 0;
	ino = calloc(n, sizeof(*ino));
	done = calloc(n, 1);
	if (!ino || !done) {
		fail("out of memory");
		rc = -1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (fstat(fds[i], &st)) {
			fail("fstat: %s", strerror(errno));
			rc = -1;
			goto out;
		}
		ino[i] = st.st_ino;
	}
	for (;;) {
		int last = now() >= until;

		cnt = smc_diag_dump(&all);
		if (cnt < 0) {
			fail("smc_diag dump: %s", strerror(-cnt));
			rc = -1;
			goto out;
		}
		qsort(all, cnt, sizeof(*all), cmp_ino);
		for (i = 0; i < n; i++) {
			if (done[i])
				continue;
			key.inode = ino[i];
			si = bsearch(&key, all, cnt, sizeof(*all), cmp_ino);
			if (si && si->mode == o.expect) {
				path_record(si, 1, NULL);
			} else if (last) {
				path_mismatch(si, fds[i], ino[i]);
				rc = -1;
			} else {
				continue;
			}
			done[i] = 1;
			left--;
		}
		free(all);
		all = NULL;
		if (!left)
			break;
		/* not a measurement: a pause while the handshake settles */
		usleep(20000);
	}
out:
	free(ino);
	free(done);
	if (rc && !errmsg[0])
		fail("path check failed: %s", path.why);
	return rc;
}

/* ---- memory figures ---- */

struct meminfo {
	long long avail_kb, slab_kb, sunreclaim_kb, free_kb;
};

/*
 * Free pages parked on the per-CPU lists count as used in MemFree and
 * MemAvailable, and how many sit there varies by megabytes from run to
 * run; /proc/zoneinfo has their number ("count:" of each pageset).
 */
static long long pcp_free_kb(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	long long sum = 0, v;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %lld", &v) == 1)
			sum += v;
	fclose(f);
	return sum * (sysconf(_SC_PAGESIZE) / 1024);
}

static int read_meminfo(struct meminfo *m)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long long pcp = pcp_free_kb();
	char line[256];
	long long v;

	memset(m, 0, sizeof(*m));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemAvailable: %lld", &v) == 1)
			m->avail_kb = v;
		else if (sscanf(line, "Slab: %lld", &v) == 1)
			m->slab_kb = v;
		else if (sscanf(line, "SUnreclaim: %lld", &v) == 1)
			m->sunreclaim_kb = v;
		else if (sscanf(line, "MemFree: %lld", &v) == 1)
			m->free_kb = v;
	}
	fclose(f);
	m->avail_kb += pcp;
	m->free_kb += pcp;
	return 0;
}

struct lo_ism {
	int valid;
	long long registered, attached, pooled, bytes;
};

/* Mount debugfs if the loopback-ism file is not visible (root only) */
static void ensure_debugfs(void)
{
	struct statfs sf;

	if (!access(LO_ISM_FILE, R_OK) || access("/sys/module/smc", F_OK))
		return;
	if (statfs(DEBUGFS_DIR, &sf) || sf.f_type != DEBUGFS_MAGIC)
		mount("debugfs", DEBUGFS_DIR, "debugfs", 0, NULL);
}

static void read_lo_ism(struct lo_ism *l)
{
	FILE *f = fopen(LO_ISM_FILE, "r");
	char line[128];
	long long v;

	memset(l, 0, sizeof(*l));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "dmbs_registered %lld", &v) == 1)
			l->registered = v;
		else if (sscanf(line, "dmbs_attached %lld", &v) == 1)
			l->attached = v;
		else if (sscanf(line, "dmbs_pooled %lld", &v) == 1)
			l->pooled = v;
		else if (sscanf(line, "dmb_bytes %lld", &v) == 1)
			l->bytes = v;
		else
			continue;
		l->valid = 1;
	}
	fclose(f);
}

/* ---- stream and pingpong: one connection ---- */

static struct {
	int lfd, sfd;
	pthread_barrier_t bar;
	double t0;		/* client: before the first write */
	double t_end;		/* server: EOF seen */
	uint64_t rx_bytes;
	int64_t first_bad;	/* stream offset of the first wrong byte */
	uint8_t rx_digest[32];
} one = { .sfd = -1, .first_bad = -1 };

static void *one_server(void *arg)
{
	uint8_t *buf = NULL;
	struct sha256 sh;
	int fd;

	(void)arg;
	fd = accept_wait(one.lfd);
	one.sfd = fd;
	pthread_barrier_wait(&one.bar);	/* both ends connected */
	pthread_barrier_wait(&one.bar);	/* path checked */
	if (atomic_load(&stop) || fd < 0)
		return NULL;

	if (o.mode == M_PINGPONG) {
		buf = malloc(o.size);
		if (!buf) {
			fail("out of memory");
			return NULL;
		}
		for (;;) {
			int rc = readn(fd, buf, o.size);

			if (rc == 0)
				break;
			if (rc < 0) {
				fail("server read: %s", strerror(-rc));
				break;
			}
			rc = writen(fd, buf, o.size);
			if (rc < 0) {
				fail("server write: %s", strerror(-rc));
				break;
			}
		}
		free(buf);
		return NULL;
	}

	buf = malloc(o.rbuf);
	if (!buf) {
		fail("out of memory");
		return NULL;
	}
	sha256_init(&sh);
	for (;;) {
		ssize_t n = read(fd, buf, o.rbuf);

		if (n == 0) {
			one.t_end = now();
			mark_end();
			break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("server read: %s", strerror(errno));
			break;
		}
		if (o.verify) {
			size_t off = one.rx_bytes % PAT_PERIOD;

			if (one.first_bad < 0 && memcmp(buf, pat + off, n)) {
				ssize_t k = 0;

				while (k < n && buf[k] == pat[off + k])
					k++;
				one.first_bad = one.rx_bytes + k;
			}
			sha256_update(&sh, buf, n);
		}
		one.rx_bytes += n;
	}
	sha256_final(&sh, one.rx_digest);
	free(buf);
	return NULL;
}

static pthread_t one_th;
static int one_started;

/*
 * Set up listener, server thread and client, check the path of both
 * ends; returns the client fd or -1 (one_teardown() is needed anyway).
 */
static int one_setup(void)
{
	int fds[2], cfd;

	one.lfd = mk_listener(o.backlog);
	if (one.lfd < 0)
		return -1;
	pthread_barrier_init(&one.bar, NULL, 2);
	if (pthread_create(&one_th, NULL, one_server, NULL)) {
		fail("pthread_create");
		return -1;
	}
	one_started = 1;
	/* on failure, stop is set and the server leaves accept_wait() */
	cfd = do_connect();
	pthread_barrier_wait(&one.bar);
	if (!atomic_load(&stop)) {
		fds[0] = cfd;
		fds[1] = one.sfd;
		path_check(fds, 2);
	}
	pthread_barrier_wait(&one.bar);
	if (atomic_load(&stop) && cfd >= 0) {
		close(cfd);
		cfd = -1;
	}
	return cfd;
}

static void one_teardown(int cfd)
{
	if (cfd >= 0)
		shutdown(cfd, SHUT_WR);
	if (one_started)
		pthread_join(one_th, NULL);
	if (cfd >= 0)
		close(cfd);
	if (one.sfd >= 0)
		close(one.sfd);
	if (one.lfd >= 0)
		close(one.lfd);
}

static void run_stream(void)
{
	uint64_t sent = 0, writes = 0;
	uint8_t tx_digest[32];
	struct sha256 sh;
	double t_stop = 0, t_send_end, secs;
	char hex[65];
	int cfd;

	cfd = one_setup();
	if (cfd < 0) {
		one_teardown(-1);
		return;
	}
	sha256_init(&sh);
	mark_begin();
	one.t0 = now();
	if (!o.count_set)
		t_stop = one.t0 + o.duration;
	while (!atomic_load(&stop)) {
		size_t len = o.size, off = sent % PAT_PERIOD;
		ssize_t n;

		if (o.count_set) {
			if (sent >= o.count)
				break;
			if (o.count - sent < len)
				len = o.count - sent;
		}
		n = write(cfd, pat + off, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail("client write: %s", strerror(errno));
			break;
		}
		if (o.verify)
			sha256_update(&sh, pat + off, n);
		sent += n;
		writes++;
		if (!o.count_set && now() >= t_stop)
			break;
	}
	t_send_end = now();
	sha256_final(&sh, tx_digest);
	one_teardown(cfd);
	if (atomic_load(&stop))
		return;

	secs = one.t_end - one.t0;

	jint("bytes", one.rx_bytes);
	jint("bytes_sent", sent);
	jint("writes", writes);
	jdbl("seconds", secs);
	jdbl("send_seconds", t_send_end - one.t0);
	jdbl("gbit_s", secs > 0 ? one.rx_bytes * 8 / secs / 1e9 : NAN);
	jdbl("mbyte_s", secs > 0 ? one.rx_bytes / secs / 1e6 : NAN);
	jint("read_buffer", o.rbuf);
	jbool("verify", o.verify);
	if (o.verify) {
		int ok = one.rx_bytes == sent && one.first_bad < 0 &&
			 !memcmp(tx_digest, one.rx_digest, 32);

		jbool("verified", ok);
		sha256_hex(tx_digest, hex);
		jstr("sha256_tx", hex);
		sha256_hex(one.rx_digest, hex);
		jstr("sha256_rx", hex);
		jint("first_bad_offset", one.first_bad);
		if (!ok)
			fail("verify: sent %llu, received %llu, first bad byte %lld",
			     (unsigned long long)sent,
			     (unsigned long long)one.rx_bytes,
			     (long long)one.first_bad);
	}
	if (sent != one.rx_bytes && !o.verify)
		fail("sent %llu bytes, received %llu",
		     (unsigned long long)sent,
		     (unsigned long long)one.rx_bytes);
}

static void run_pingpong(void)
{
	uint64_t total = o.warmup + o.count, i;
	double *lat, sum = 0, t_start = 0, secs;
	uint8_t *buf;
	int cfd, rc;

	lat = calloc(o.count ? o.count : 1, sizeof(*lat));
	buf = malloc(o.size);
	if (!lat || !buf) {
		fail("out of memory");
		goto out;
	}
	memcpy(buf, pat, o.size);
	cfd = one_setup();
	if (cfd < 0) {
		one_teardown(-1);
		goto out;
	}
	for (i = 0; i < total && !atomic_load(&stop); i++) {
		double t = now();

		if (i == o.warmup) {
			mark_begin();
			t_start = t;
		}
		rc = writen(cfd, buf, o.size);
		if (rc < 0) {
			fail("client write: %s", strerror(-rc));
			break;
		}
		rc = readn(cfd, buf, o.size);
		if (rc <= 0) {
			fail("client read: %s", rc ? strerror(-rc) : "EOF");
			break;
		}
		if (i >= o.warmup)
			lat[i - o.warmup] = (now() - t) * 1e6;
	}
	secs = now() - t_start;
	mark_end();
	one_teardown(cfd);
	if (atomic_load(&stop))
		goto out;
	for (i = 0; i < o.count; i++)
		sum += lat[i];
	qsort(lat, o.count, sizeof(*lat), cmp_dbl);
	jint("rounds", o.count);
	jint("warmup", o.warmup);
	jdbl("seconds", secs);
	jdbl("rounds_per_s", secs > 0 ? o.count / secs : NAN);
	jdbl("rtt_mean_us", sum / o.count);
	jdbl("rtt_min_us", lat[0]);
	jdbl("rtt_p50_us", pctl(lat, o.count, 0.50));
	jdbl("rtt_p90_us", pctl(lat, o.count, 0.90));
	jdbl("rtt_p99_us", pctl(lat, o.count, 0.99));
	jdbl("rtt_max_us", lat[o.count - 1]);
out:
	free(lat);
	free(buf);
}

/* ---- crr: connect, request, response, close ---- */

static struct {
	int lfd;
	atomic_ullong next;	/* next ticket of a client */
	atomic_ullong served;	/* connections the server finished */
	double *lat;		/* per ticket, microseconds */
} crr;

static void *crr_server(void *arg)
{
	size_t len = o.size_set ? o.size : CRR_MSG;
	char buf[65536];
	int fd, rc;

	(void)arg;
	for (;;) {
		fd = accept_wait(crr.lfd);
		if (fd < 0)
			break;
		rc = readn(fd, buf, len);
		if (rc > 0)
			rc = writen(fd, buf, len);
		if (rc == 0)
			rc = wait_eof(fd);
		else if (rc > 0)
			rc = -EPIPE;
		if (rc < 0) {
			fail("server connection: %s", strerror(-rc));
			close(fd);
			break;
		}
		close(fd);
		atomic_fetch_add(&crr.served, 1);
	}
	return NULL;
}

static void *crr_client(void *arg)
{
	size_t len = o.size_set ? o.size : CRR_MSG;
	uint8_t *buf = malloc(len);
	unsigned long long t;
	int fd, rc;

	(void)arg;
	if (!buf) {
		fail("out of memory");
		return NULL;
	}
	memcpy(buf, pat, len);
	while (!atomic_load(&stop)) {
		double t0;

		t = atomic_fetch_add(&crr.next, 1);
		if (t >= o.count)
			break;
		t0 = now();
		fd = do_connect();
		if (fd < 0)
			break;
		rc = writen(fd, buf, len);
		if (!rc) {
			rc = readn(fd, buf, len);
			rc = rc > 0 ? 0 : rc ? rc : -EPIPE;
		}
		if (rc) {
			fail("client connection %llu: %s", t, strerror(-rc));
			close(fd);
			break;
		}
		if (o.sample && t % o.sample == 0)
			path_check(&fd, 1);
		close(fd);
		crr.lat[t] = (now() - t0) * 1e6;
	}
	free(buf);
	return NULL;
}

static void run_crr(void)
{
	pthread_t *srv, *cli;
	int i, ns = 0, nc = 0;
	double t0, secs;

	srv = calloc(o.parallel, sizeof(*srv));
	cli = calloc(o.parallel, sizeof(*cli));
	crr.lat = calloc(o.count, sizeof(*crr.lat));
	if (!srv || !cli || !crr.lat) {
		fail("out of memory");
		goto out;
	}
	crr.lfd = mk_listener(o.backlog);
	if (crr.lfd < 0)
		goto out;
	for (ns = 0; ns < o.parallel; ns++)
		if (pthread_create(&srv[ns], NULL, crr_server, NULL)) {
			fail("pthread_create");
			break;
		}
	mark_begin();
	t0 = now();
	for (nc = 0; nc < o.parallel && !atomic_load(&stop); nc++)
		if (pthread_create(&cli[nc], NULL, crr_client, NULL)) {
			fail("pthread_create");
			break;
		}
	for (i = 0; i < nc; i++)
		pthread_join(cli[i], NULL);
	secs = now() - t0;
	mark_end();
	/* bounded by the alarm; not a measurement */
	while (atomic_load(&crr.served) < o.count && !atomic_load(&stop))
		usleep(1000);
	atomic_store(&done, 1);
	for (i = 0; i < ns; i++)
		pthread_join(srv[i], NULL);
	close(crr.lfd);
	if (atomic_load(&stop))
		goto out;
	if (atomic_load(&crr.served) != o.count)
		fail("server finished %llu of %llu connections",
		     (unsigned long long)atomic_load(&crr.served),
		     (unsigned long long)o.count);
	qsort(crr.lat, o.count, sizeof(*crr.lat), cmp_dbl);
	jint("connections", o.count);
	jint("parallel", o.parallel);
	jint("backlog", o.backlog);
	jint("request_bytes", o.size_set ? o.size : CRR_MSG);
	jdbl("seconds", secs);
	jdbl("conn_per_s", secs > 0 ? o.count / secs : NAN);
	jdbl("conn_p50_us", pctl(crr.lat, o.count, 0.50));
	jdbl("conn_p99_us", pctl(crr.lat, o.count, 0.99));
	jdbl("conn_max_us", crr.lat[o.count - 1]);
	jint("path_sample_every", o.sample);
out:
	free(srv);
	free(cli);
	free(crr.lat);
}

/* ---- mem: many idle connections ---- */

static struct {
	int lfd;
	int *sfds;
	int accepted;
} mem;

static void *mem_server(void *arg)
{
	(void)arg;
	while (mem.accepted < (int)o.count) {
		int fd = accept_wait(mem.lfd);

		if (fd < 0)
			break;
		mem.sfds[mem.accepted++] = fd;
	}
	return NULL;
}

static void raise_nofile(rlim_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return;
	if (rl.rlim_max < need) {
		/* root may raise the hard limit */
		struct rlimit r2 = { need, need };

		if (!setrlimit(RLIMIT_NOFILE, &r2))
			return;
	}
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void run_mem(void)
{
	struct meminfo mb, ma;
	struct lo_ism lb, la = { 0 }, lc;
	int *cfds, *all = NULL, i, nc = 0, backlog;
	double t0, t_open, until;
	pthread_t th;

	raise_nofile(2 * o.count + 64);
	cfds = calloc(o.count, sizeof(int));
	mem.sfds = calloc(o.count, sizeof(int));
	if (!cfds || !mem.sfds) {
		fail("out of memory");
		goto out;
	}
	ensure_debugfs();
	backlog = o.count > (uint64_t)o.backlog ? (int)o.count : o.backlog;
	mem.lfd = mk_listener(backlog);
	if (mem.lfd < 0)
		goto out;
	read_lo_ism(&lb);
	read_meminfo(&mb);
	if (pthread_create(&th, NULL, mem_server, NULL)) {
		fail("pthread_create");
		goto out_l;
	}
	mark_begin();
	t0 = now();
	for (nc = 0; nc < (int)o.count && !atomic_load(&stop); nc++) {
		cfds[nc] = do_connect();
		if (cfds[nc] < 0)
			break;
	}
	/* on failure, stop is set and the server leaves accept_wait() */
	pthread_join(th, NULL);
	t_open = now() - t0;
	mark_end();
	if (atomic_load(&stop))
		goto out_c;
	read_meminfo(&ma);
	read_lo_ism(&la);

	all = calloc(2 * o.count, sizeof(int));
	if (all) {
		memcpy(all, cfds, o.count * sizeof(int));
		memcpy(all + o.count, mem.sfds, o.count * sizeof(int));
		path_check(all, 2 * o.count);
	}

	jint("connections", o.count);
	jdbl("open_seconds", t_open);
	jint("memavail_delta_kb", mb.avail_kb - ma.avail_kb);
	jint("memfree_delta_kb", mb.free_kb - ma.free_kb);
	jint("slab_delta_kb", ma.slab_kb - mb.slab_kb);
	jint("sunreclaim_delta_kb", ma.sunreclaim_kb - mb.sunreclaim_kb);
	jdbl("memavail_bytes_per_conn",
	     (mb.avail_kb - ma.avail_kb) * 1024.0 / o.count);
	jdbl("slab_bytes_per_conn",
	     (ma.slab_kb - mb.slab_kb) * 1024.0 / o.count);
	jbool("loopback_ism", la.valid);
	if (la.valid) {
		jint("dmb_bytes_before", lb.bytes);
		jint("dmb_bytes", la.bytes);
		jint("dmbs_registered", la.registered);
		jint("dmbs_attached", la.attached);
		jint("dmbs_pooled", la.pooled);
		jdbl("dmb_bytes_per_conn",
		     (la.bytes - lb.bytes) / (double)o.count);
	}

out_c:
	for (i = 0; i < nc; i++)
		close(cfds[i]);
	for (i = 0; i < mem.accepted; i++)
		close(mem.sfds[i]);
	if (la.valid && !atomic_load(&stop)) {
		/* bounded wait for the DMBs to go (not a measurement) */
		until = now() + 3.0;
		do {
			read_lo_ism(&lc);
			if (lc.registered <= lb.registered)
				break;
			usleep(20000);
		} while (now() < until);
		jint("dmbs_registered_after_close", lc.registered);
		jint("dmb_bytes_after_close", lc.bytes);
	}
out_l:
	close(mem.lfd);
out:
	free(all);
	free(cfds);
	free(mem.sfds);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: smcbench -t tcp|uds|smc -m MODE [options]\n"
"modes:\n"
"  stream   -s SIZE (-d SECONDS | -n BYTES) [--verify] [-r READBUF]\n"
"  pingpong -s SIZE -n ROUNDS [--warmup N]\n"
"  crr      -n COUNT [-p PARALLEL] [--backlog N] [--sample N]\n"
"  mem      -n COUNT\n"
"options:\n"
"  -t, --transport T   tcp (127.0.0.1 or SMC_TEST_ADDR4), uds (AF_UNIX),\n"
"                      smc (AF_SMC)\n"
"  -m, --mode M        stream, pingpong, crr, mem\n"
"  -s, --size N        write / message size (k, m, g suffixes)\n"
"  -d, --duration S    stream: seconds to send (default 2)\n"
"  -n, --count N       bytes (stream), rounds, connections\n"
"  -p, --parallel N    crr: client and server threads (default 1)\n"
"  -r, --read-size N   stream: server read buffer (default 1m)\n"
"  -T, --timeout S     abort the run after S seconds (default 120 + -d)\n"
"      --verify        stream: SHA-256 of both ends must match\n"
"      --expect P      smc: smcd (default), smcr or fallback, via\n"
"                      sock_diag\n"
"      --sample N      crr: check the path of 1 in N connections (100,\n"
"                      0: none)\n"
"      --backlog N     listen backlog (default 1024, at least 128)\n"
"      --sockbuf N     SO_SNDBUF and SO_RCVBUF of every socket\n"
"      --warmup N      pingpong: rounds not measured (default 0)\n"
"      --uds-path P    uds: filesystem path instead of abstract name\n"
"      --port N        tcp/smc: listen port (default: any)\n"
"      --tag S         copied into the JSON output\n"
"      --mark          begin and end the measured part with the markers of\n"
"                      the instruction profile (insnmark.h)\n"
"One JSON object is printed on stdout.  Exit: 0 ok, 1 error, 2 usage.\n");
}

static int parse_size(const char *s, uint64_t *v)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || d < 0)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		d *= 1024;
		end++;
		break;
	case 'm': case 'M':
		d *= 1024 * 1024;
		end++;
		break;
	case 'g': case 'G':
		d *= 1024.0 * 1024 * 1024;
		end++;
		break;
	}
	if (*end || d > 1e18)
		return -1;
	*v = (uint64_t)d;
	return 0;
}

static int lookup(const char *s, const char * const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

enum {
	OPT_VERIFY = 256, OPT_EXPECT, OPT_SAMPLE, OPT_BACKLOG, OPT_SOCKBUF,
	OPT_WARMUP, OPT_UDS, OPT_PORT, OPT_TAG, OPT_MARK,
};

static const struct option lopts[] = {
	{ "transport", required_argument, NULL, 't' },
	{ "mode", required_argument, NULL, 'm' },
	{ "size", required_argument, NULL, 's' },
	{ "duration", required_argument, NULL, 'd' },
	{ "count", required_argument, NULL, 'n' },
	{ "parallel", required_argument, NULL, 'p' },
	{ "read-size", required_argument, NULL, 'r' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "expect", required_argument, NULL, OPT_EXPECT },
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "backlog", required_argument, NULL, OPT_BACKLOG },
	{ "sockbuf", required_argument, NULL, OPT_SOCKBUF },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "uds-path", required_argument, NULL, OPT_UDS },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ "mark", no_argument, NULL, OPT_MARK },
	{ "help", no_argument, NULL, 'h' },
	{ }
};

#define BAD(...) do {					\
	fprintf(stderr, "smcbench: " __VA_ARGS__);	\
	fputc('\n', stderr);				\
	return 2;					\
} while (0)

static int parse_args(int argc, char **argv)
{
	int c, dur_set = 0;
	uint64_t v;
	char *end;

	while ((c = getopt_long(argc, argv, "t:m:s:d:n:p:r:T:h", lopts,
				NULL)) != -1) {
		switch (c) {
		case 't':
			o.transport = lookup(optarg, tnames, 3);
			if (o.transport < 0)
				BAD("unknown transport '%s'", optarg);
			break;
		case 'm':
			o.mode = lookup(optarg, mnames, 4);
			if (o.mode < 0)
				BAD("unknown mode '%s'", optarg);
			break;
		case 's':
			if (parse_size(optarg, &v) || !v || v > (1u << 30))
				BAD("bad size '%s'", optarg);
			o.size = v;
			o.size_set = 1;
			break;
		case 'd':
			o.duration = strtod(optarg, &end);
			if (*end || !(o.duration > 0) || o.duration > 86400)
				BAD("bad duration '%s'", optarg);
			dur_set = 1;
			break;
		case 'n':
			if (parse_size(optarg, &v) || !v)
				BAD("bad count '%s'", optarg);
			o.count = v;
			o.count_set = 1;
			break;
		case 'p':
			o.parallel = strtol(optarg, &end, 0);
			if (*end || o.parallel < 1 || o.parallel > 256)
				BAD("bad parallel '%s'", optarg);
			break;
		case 'r':
			if (parse_size(optarg, &v) || !v || v > (64u << 20))
				BAD("bad read size '%s'", optarg);
			o.rbuf = v;
			break;
		case 'T':
			o.timeout = strtol(optarg, &end, 0);
			if (*end || o.timeout < 1)
				BAD("bad timeout '%s'", optarg);
			break;
		case OPT_VERIFY:
			o.verify = 1;
			break;
		case OPT_MARK:
			o.mark = 1;
			break;
		case OPT_EXPECT:
			if (!strcmp(optarg, "smcd"))
				o.expect = SMC_TEST_MODE_SMCD;
			else if (!strcmp(optarg, "smcr"))
				o.expect = SMC_TEST_MODE_SMCR;
			else if (!strcmp(optarg, "fallback"))
				o.expect = SMC_TEST_MODE_FALLBACK;
			else
				BAD("--expect takes smcd, smcr or fallback");
			break;
		case OPT_SAMPLE:
			o.sample = strtol(optarg, &end, 0);
			if (*end || o.sample < 0)
				BAD("bad sample '%s'", optarg);
			break;
		case OPT_BACKLOG:
			o.backlog = strtol(optarg, &end, 0);
			if (*end || o.backlog < 128)
				BAD("backlog must be at least 128");
			break;
		case OPT_SOCKBUF:
			if (parse_size(optarg, &v) || !v || v > INT32_MAX)
				BAD("bad sockbuf '%s'", optarg);
			o.sockbuf = v;
			break;
		case OPT_WARMUP:
			if (parse_size(optarg, &v))
				BAD("bad warmup '%s'", optarg);
			o.warmup = v;
			break;
		case OPT_UDS:
			o.uds_path = optarg;
			break;
		case OPT_PORT:
			o.port = strtol(optarg, &end, 0);
			if (*end || o.port < 0 || o.port > 65535)
				BAD("bad port '%s'", optarg);
			break;
		case OPT_TAG:
			o.tag = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		BAD("unexpected argument '%s'", argv[optind]);
	if (o.transport < 0 || o.mode < 0) {
		usage(stderr);
		return 2;
	}
	if (dur_set && o.count_set)
		BAD("-d and -n exclude each other");
	if (dur_set && o.mode != M_STREAM)
		BAD("-d is for stream only");
	if (o.verify && o.mode != M_STREAM)
		BAD("--verify is for stream only");
	if (!o.size_set)
		o.size = o.mode == M_STREAM ? 65536 : CRR_MSG;
	if (o.mode == M_CRR && o.size > 65536)
		BAD("crr: size at most 64k");
	if (o.mode == M_STREAM && !o.count_set && !dur_set)
		o.duration = 2;
	if (!o.count_set) {
		if (o.mode == M_PINGPONG || o.mode == M_CRR)
			o.count = 1000;
		else if (o.mode == M_MEM)
			o.count = 100;
	}
	if (o.mode == M_MEM && o.count > 100000)
		BAD("mem: at most 100000 connections");
	if (o.mode == M_CRR && o.count > 10000000)
		BAD("crr: at most 10000000 connections");
	if (!o.timeout)
		o.timeout = 120 + (int)ceil(o.duration);
	return 0;
}

static void json_header(void)
{
	struct timespec res;
	struct utsname u;
	char cs[64] = "";
	FILE *f;

	jlen = snprintf(jbuf, sizeof(jbuf), "{");
	jstr("tool", "smcbench");
	jint("version", 1);
	if (o.tag)
		jstr("tag", o.tag);
	jstr("transport", tnames[o.transport]);
	jstr("mode", mnames[o.mode]);
	jint("size", o.size);
	if (o.mode == M_STREAM && !o.count_set)
		jdbl("duration_target", o.duration);
	jstr("clock", "CLOCK_MONOTONIC");
	clock_getres(CLOCK_MONOTONIC, &res);
	jint("clock_res_ns", res.tv_sec * 1000000000LL + res.tv_nsec);
	f = fopen(CLOCKSOURCE, "r");
	if (f) {
		if (fgets(cs, sizeof(cs), f))
			cs[strcspn(cs, "\n")] = 0;
		fclose(f);
	}
	jstr("clocksource", cs[0] ? cs : NULL);
	if (!uname(&u))
		jstr("kernel", u.release);
}

int main(int argc, char **argv)
{
	struct rusage r0, r1;
	double cpu_u, cpu_s;
	size_t slack;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t i;
	int rc;

	rc = parse_args(argc, argv);
	if (rc)
		return rc;
	signal(SIGPIPE, SIG_IGN);
	arm_timeout();

	/* deterministic pseudo-random pattern (xorshift64*) */
	slack = o.size > o.rbuf ? o.size : o.rbuf;
	pat = malloc(PAT_PERIOD + slack);
	if (!pat) {
		fprintf(stderr, "smcbench: out of memory\n");
		return 1;
	}
	for (i = 0; i < PAT_PERIOD; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		pat[i] = (x * 0x2545f4914f6cdd1dull) >> 56;
	}
	for (i = 0; i < slack; i++)
		pat[PAT_PERIOD + i] = pat[i % PAT_PERIOD];

	json_header();
	getrusage(RUSAGE_SELF, &r0);
	switch (o.mode) {
	case M_STREAM:
		run_stream();
		break;
	case M_PINGPONG:
		run_pingpong();
		break;
	case M_CRR:
		run_crr();
		break;
	case M_MEM:
		run_mem();
		break;
	}
	getrusage(RUSAGE_SELF, &r1);
	alarm(0);
	cpu_u = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
		(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) * 1e-6;
	cpu_s = (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
		(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) * 1e-6;
	jdbl("cpu_user_s", cpu_u);
	jdbl("cpu_sys_s", cpu_s);

	if (o.transport == T_SMC && o.mode == M_CRR && !o.sample) {
		jbool("path_checked", 0);
		jraw("path_ok", "null");
	} else if (o.transport == T_SMC) {
		jbool("path_checked", 1);
		jstr("path_expect", smc_mode_name(o.expect));
		jraw("path_ok", path.checked && !path.bad ? "true" : "false");
		jint("path_conns_checked", path.checked);
		jint("path_mismatches", path.bad);
		jstr("path_mode", path.mode >= 0 ?
		     smc_mode_name(path.mode) : NULL);
		jraw("path_reason", "\"0x%08x\"", path.reason);
		jraw("path_peer_reason", "\"0x%08x\"", path.peer_diag);
		if (path.bad)
			jstr("path_detail", path.why);
		if (!path.checked && !errmsg[0])
			fail("no connection was path-checked");
	} else {
		jbool("path_checked", 0);
		jraw("path_ok", "null");
	}
	jbool("ok", !errmsg[0]);
	jstr("error", errmsg[0] ? errmsg : NULL);
	printf("%s}\n", jbuf);
	fflush(stdout);
	if (o.uds_path && o.transport == T_UDS)
		unlink(o.uds_path);
	return errmsg[0] ? 1 : 0;
}
