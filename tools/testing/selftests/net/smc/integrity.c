// SPDX-License-Identifier: GPL-2.0
/*
 * Full-duplex data integrity over AF_SMC.
 *
 * Each iteration connects a pair over loopback and sends a random amount
 * of pseudo-random data (log-uniform, up to 16 MiB) in both directions at
 * once.  Writers use random chunk sizes, readers read random chunk sizes;
 * both sides hash what they wrote / read with SHA-256 and the digests and
 * lengths must match.  0-byte and 1-byte transfers and one maximum-size
 * transfer are always included.  Every connection must take the path
 * given by SMC_EXPECT_PATH / SMC_EXPECT_REASON.
 *
 * Environment: INTEGRITY_SEED, INTEGRITY_ITERS (20), INTEGRITY_MAX
 * (16777216), INTEGRITY_FAMILY=inet (use TCP, no path checks: debugging).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "ktap.h"
#include "sha256.h"
#include "smc_diag_util.h"

#define CHUNK_MAX	(256 * 1024)

static int use_inet;

struct stream {
	int fd;
	uint64_t seed;		/* data and chunk size generator */
	uint64_t len;		/* writer: bytes to send */
	uint64_t done;		/* bytes written / read */
	int err;		/* errno on failure */
	uint8_t digest[32];
};

static uint64_t xs64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static void *writer(void *arg)
{
	struct stream *st = arg;
	uint64_t ds = st->seed | 1, cs = (st->seed ^ 0x9e3779b97f4a7c15ULL) | 1;
	uint8_t *buf = malloc(CHUNK_MAX);
	struct sha256 h;

	sha256_init(&h);
	while (st->done < st->len) {
		size_t n = 1 + xs64(&cs) % CHUNK_MAX, i, off = 0;

		if (n > st->len - st->done)
			n = st->len - st->done;
		for (i = 0; i + 8 <= n; i += 8) {
			uint64_t v = xs64(&ds);

			memcpy(buf + i, &v, 8);
		}
		for (; i < n; i++)
			buf[i] = xs64(&ds);
		sha256_update(&h, buf, n);
		while (off < n) {
			ssize_t r = send(st->fd, buf + off, n - off,
					 MSG_NOSIGNAL);

			if (r < 0) {
				if (errno == EINTR)
					continue;
				st->err = errno;
				goto out;
			}
			off += r;
		}
		st->done += n;
	}
	if (shutdown(st->fd, SHUT_WR))
		st->err = errno;
out:
	sha256_final(&h, st->digest);
	free(buf);
	return NULL;
}

static void *reader(void *arg)
{
	struct stream *st = arg;
	uint64_t cs = st->seed | 1;
	uint8_t *buf = malloc(CHUNK_MAX);
	struct sha256 h;

	sha256_init(&h);
	for (;;) {
		size_t n = 1 + xs64(&cs) % CHUNK_MAX;
		ssize_t r = recv(st->fd, buf, n, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			st->err = errno;
			break;
		}
		if (r == 0)
			break;
		sha256_update(&h, buf, r);
		st->done += r;
	}
	sha256_final(&h, st->digest);
	free(buf);
	return NULL;
}

static int make_pair(int fam, int *cli, int *srv)
{
	struct sockaddr_storage ss;
	socklen_t l;
	int dom = use_inet ? fam : AF_SMC;
	int proto = use_inet ? 0 : (fam == AF_INET6);
	int lfd;

	*cli = *srv = -1;
	memset(&ss, 0, sizeof(ss));
	if (fam == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		l = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		l = sizeof(*a);
	}
	lfd = socket(dom, SOCK_STREAM | SOCK_CLOEXEC, proto);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, l) ||
	    listen(lfd, 4) || getsockname(lfd, (struct sockaddr *)&ss, &l))
		goto err;
	*cli = socket(dom, SOCK_STREAM | SOCK_CLOEXEC, proto);
	if (*cli < 0 || connect(*cli, (struct sockaddr *)&ss, l))
		goto err;
	*srv = accept(lfd, NULL, NULL);
	if (*srv < 0)
		goto err;
	close(lfd);
	return 0;
err:
	ktap_diag("connection setup failed: %s", strerror(errno));
	if (lfd >= 0)
		close(lfd);
	if (*cli >= 0)
		close(*cli);
	return -1;
}

static int check_paths(int cli, int srv)
{
	char why[256];
	int ok = 1;

	if (use_inet)
		return 1;
	if (smc_check_fd_path(cli, 5000, why, sizeof(why))) {
		ktap_diag("client path: %s", why);
		ok = 0;
	}
	if (smc_check_fd_path(srv, 5000, why, sizeof(why))) {
		ktap_diag("server path: %s", why);
		ok = 0;
	}
	return ok;
}

/* Transfer len_ab from a to b and len_ba from b to a at the same time. */
static int transfer(int fam, uint64_t len_ab, uint64_t len_ba, uint64_t seed)
{
	struct stream wa, wb, ra, rb;
	pthread_t t[4];
	int cli, srv, ok = 1;
	char h1[65], h2[65];
	struct timespec t0, t1;

	if (make_pair(fam, &cli, &srv))
		return 0;
	ok &= check_paths(cli, srv);

	memset(&wa, 0, sizeof(wa));
	memset(&wb, 0, sizeof(wb));
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	wa = (struct stream){ .fd = cli, .seed = seed * 2 + 1, .len = len_ab };
	wb = (struct stream){ .fd = srv, .seed = seed * 2 + 2, .len = len_ba };
	rb = (struct stream){ .fd = srv, .seed = seed * 3 + 7 };
	ra = (struct stream){ .fd = cli, .seed = seed * 5 + 11 };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&t[0], NULL, writer, &wa);
	pthread_create(&t[1], NULL, writer, &wb);
	pthread_create(&t[2], NULL, reader, &rb);
	pthread_create(&t[3], NULL, reader, &ra);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	pthread_join(t[3], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	if (wa.err || wb.err || ra.err || rb.err) {
		ktap_diag("I/O error: write a->b %s, write b->a %s, read at b %s, read at a %s",
			  strerror(wa.err), strerror(wb.err),
			  strerror(rb.err), strerror(ra.err));
		ok = 0;
	}
	if (wa.done != len_ab || rb.done != len_ab ||
	    memcmp(wa.digest, rb.digest, 32)) {
		sha256_hex(wa.digest, h1);
		sha256_hex(rb.digest, h2);
		ktap_diag("a->b mismatch: sent %llu %s, received %llu %s",
			  (unsigned long long)wa.done, h1,
			  (unsigned long long)rb.done, h2);
		ok = 0;
	}
	if (wb.done != len_ba || ra.done != len_ba ||
	    memcmp(wb.digest, ra.digest, 32)) {
		sha256_hex(wb.digest, h1);
		sha256_hex(ra.digest, h2);
		ktap_diag("b->a mismatch: sent %llu %s, received %llu %s",
			  (unsigned long long)wb.done, h1,
			  (unsigned long long)ra.done, h2);
		ok = 0;
	}
	sha256_hex(rb.digest, h1);
	ktap_diag("%s a->b %llu b->a %llu bytes in %.2f s, sha256(a->b) %.16s...",
		  fam == AF_INET6 ? "v6" : "v4", (unsigned long long)len_ab,
		  (unsigned long long)len_ba,
		  (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		  h1);
	close(cli);
	close(srv);
	return ok;
}

/* Log-uniform size in [0, max]. */
static uint64_t rand_size(uint64_t *s, uint64_t max)
{
	int bits = 0;
	uint64_t m = max, lim;

	while (m) {
		bits++;
		m >>= 1;
	}
	lim = 1ULL << (xs64(s) % (bits + 1));
	if (lim > max + 1)
		lim = max + 1;
	return xs64(s) % lim;
}

static void on_alarm(int sig)
{
	static const char msg[] = "# integrity: global timeout, giving up\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(KSFT_FAIL);
	_exit(KSFT_FAIL);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

int main(void)
{
	uint64_t seed, iters, max, s, a, b;
	char name[64];
	const char *f = getenv("INTEGRITY_FAMILY");
	unsigned int i;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	use_inet = f && !strcmp(f, "inet");
	seed = env_u64("INTEGRITY_SEED", (uint64_t)time(NULL) ^ getpid());
	iters = env_u64("INTEGRITY_ITERS", 20);
	max = env_u64("INTEGRITY_MAX", 16 << 20);
	if (!use_inet) {
		fd = socket(AF_SMC, SOCK_STREAM, 0);
		if (fd < 0)
			ktap_no_smc(errno);
		close(fd);
	}
	signal(SIGALRM, on_alarm);
	alarm(env_u64("INTEGRITY_TIMEOUT", 360));

	ktap_header(iters + 4);
	ktap_diag("seed %llu (rerun with INTEGRITY_SEED=%llu), %llu iterations, max %llu bytes%s",
		  (unsigned long long)seed, (unsigned long long)seed,
		  (unsigned long long)iters, (unsigned long long)max,
		  use_inet ? ", TCP sockets (INTEGRITY_FAMILY=inet)" : "");

	ktap_result(transfer(AF_INET, 0, 0, seed), "zero_bytes");
	ktap_result(transfer(AF_INET, 1, 1, seed + 1), "one_byte");
	ktap_result(transfer(AF_INET6, 1, 0, seed + 2), "one_byte_one_way_v6");
	ktap_result(transfer(AF_INET, max, max, seed + 3), "max_size_duplex");
	s = seed | 1;
	for (i = 0; i < iters; i++) {
		int fam = (i & 1) ? AF_INET6 : AF_INET;

		a = rand_size(&s, max);
		b = rand_size(&s, max);
		snprintf(name, sizeof(name), "iteration_%02u_%s", i + 1,
			 fam == AF_INET6 ? "v6" : "v4");
		ktap_result(transfer(fam, a, b, seed + 100 + i), name);
	}
	ktap_finish();
}
