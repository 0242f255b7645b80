// SPDX-License-Identifier: GPL-2.0
/*
 * smc_xfer - one AF_SMC connection with a verified full-duplex transfer,
 * for tests that place the two ends in different network namespaces.
 *
 *   smc_xfer -s ADDR PORT [options]   accept one connection
 *   smc_xfer -c ADDR PORT [options]   connect
 *
 *   -n BYTES  client to server (default 1 MiB)
 *   -m BYTES  server to client (default 1 MiB)
 *   -S SEED   data seed; both ends must use the same (default 1)
 *   -r FILE   server: create FILE once listening
 *   -H FILE   once connected and the path is checked: create FILE and
 *             wait until someone removes it before the transfer
 *   -t SEC    give up after SEC seconds (default 120), times
 *             SMC_TEST_SLOWDOWN on a slower kernel (the debug kernel)
 *   -L SEC    close with SO_LINGER of SEC seconds: the stack may take
 *             that long to send what is still in the send buffer
 *             (upstream's SMC gives up on it after 2 s without)
 *
 * ADDR is IPv4 or IPv6.  The connection's own path is checked through
 * sock_diag of the netns the program runs in against SMC_EXPECT_PATH
 * and SMC_EXPECT_REASON (SMC_EXPECT_PATH=any takes every path and only
 * reports it).  Both streams are pseudo-random data generated
 * from the seed; the receiver compares the SHA-256 of what it read with
 * that of the stream it expected.  Diagnostics are printed as "# " lines.
 * Exit status: 0 all checks passed, 1 otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "ktap.h"
#include "sha256.h"
#include "smc_diag_util.h"
#include "timeutil.h"

#define XFER_CHUNK	(64 * 1024)

static const char *role = "?";

struct xstream {
	int fd;
	uint64_t seed;
	uint64_t len;
	uint64_t done;
	int err;
	uint8_t digest[32];
	uint8_t want_digest[32];	/* reader: of the stream expected */
	/* reader: where what came differs from the stream expected */
	uint64_t bad, bad_first, bad_last;
	uint8_t bad_got, bad_want;
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

/* A byte stream that does not depend on how it is cut into pieces */
struct gen {
	uint64_t s;
	uint64_t word;		/* bytes not handed out yet, low first */
	int left;
};

static void gen_init(struct gen *g, uint64_t seed)
{
	g->s = seed | 1;
	g->left = 0;
}

/* Fill @buf with the next @n bytes of the stream */
static void gen(struct gen *g, uint8_t *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!g->left) {
			g->word = xs64(&g->s);
			g->left = 8;
		}
		buf[i] = g->word;
		g->word >>= 8;
		g->left--;
	}
}

static void *writer(void *arg)
{
	uint8_t *buf = malloc(XFER_CHUNK);
	struct xstream *st = arg;
	uint64_t cs = st->seed * 7 + 3;
	struct gen s;

	gen_init(&s, st->seed);
	while (st->done < st->len) {
		size_t n = 1 + xs64(&cs) % XFER_CHUNK, off = 0;

		if (n > st->len - st->done)
			n = st->len - st->done;
		gen(&s, buf, n);
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
	free(buf);
	return NULL;
}

/*
 * Count the bytes of @buf that differ from the stream's next @n, which
 * go into @hw, the digest of the stream expected
 */
static void check(struct xstream *st, struct gen *g, struct sha256 *hw,
		  uint8_t *want, const uint8_t *buf, size_t n)
{
	size_t i;

	gen(g, want, n);
	sha256_update(hw, want, n);
	for (i = 0; i < n; i++) {
		if (buf[i] == want[i])
			continue;
		if (!st->bad++) {
			st->bad_first = st->done + i;
			st->bad_got = buf[i];
			st->bad_want = want[i];
		}
		st->bad_last = st->done + i;
	}
}

static void reader(struct xstream *st)
{
	uint8_t *want = malloc(XFER_CHUNK);
	uint8_t *buf = malloc(XFER_CHUNK);
	uint64_t cs = st->seed * 5 + 1;
	struct sha256 h, hw;
	struct gen g;

	gen_init(&g, st->seed);
	sha256_init(&h);
	sha256_init(&hw);
	for (;;) {
		ssize_t r = recv(st->fd, buf, 1 + xs64(&cs) % XFER_CHUNK, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			st->err = errno;
			break;
		}
		if (!r)
			break;
		sha256_update(&h, buf, r);
		check(st, &g, &hw, want, buf, r);
		st->done += r;
	}
	sha256_final(&h, st->digest);
	sha256_final(&hw, st->want_digest);
	free(want);
	free(buf);
}

static int parse_addr(const char *a, const char *p,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, a, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(atoi(p));
		*len = sizeof(*s4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, a, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(atoi(p));
		*len = sizeof(*s6);
		return AF_INET6;
	}
	return -1;
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Create @path and wait until it is gone (at most @tmo s); 0 or -1 */
static int hold(const char *path, unsigned int tmo)
{
	long end = now_ms() + tmo * 1000L;
	struct stat st;

	if (touch(path)) {
		ktap_diag("%s: cannot create %s: %s", role, path,
			  strerror(errno));
		return -1;
	}
	while (!stat(path, &st)) {
		if (now_ms() > end) {
			ktap_diag("%s: %s was not removed in time", role, path);
			return -1;
		}
		msleep(20);
	}
	return 0;
}

static int check_path(int fd)
{
	struct smc_sock_info si;
	char why[256];

	if (smc_check_fd_path(fd, 5000, why, sizeof(why))) {
		ktap_diag("%s: %s", role, why);
		return -1;
	}
	if (!smc_diag_lookup(fd, &si))
		ktap_diag("%s: path %s, reason 0x%08x, state %s, ports %u -> %u",
			  role, smc_mode_name(si.mode), si.reason,
			  smc_state_name(si.state), si.sport, si.dport);
	return 0;
}

static void on_alarm(int sig)
{
	static const char msg[] = "# smc_xfer: timeout\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(KSFT_FAIL);
	_exit(KSFT_FAIL);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: smc_xfer -s|-c ADDR PORT [-n BYTES] [-m BYTES] [-S SEED] [-r FILE] [-H FILE] [-t SEC] [-L SEC]\n");
	exit(2);
}

#define BAD_FMT "%s: %llu bytes differ, from byte %llu (0x%02x, expected 0x%02x) to byte %llu"

int main(int argc, char **argv)
{
	uint64_t c2s = 1 << 20, s2c = 1 << 20, seed = 1;
	const char *ready = NULL, *holdf = NULL, *slow;
	struct xstream w = { 0 }, r = { 0 };
	int server = -1, fam, fd, lfd, ok = 1;
	struct sockaddr_storage ss;
	uint8_t want[32];
	char h1[65], h2[65];
	unsigned int tmo = 120, linger = 0;
	pthread_t t;
	socklen_t l;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "scn:m:S:r:H:t:L:")) != -1) {
		switch (opt) {
		case 's':
			server = 1;
			break;
		case 'c':
			server = 0;
			break;
		case 'n':
			c2s = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			s2c = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'H':
			holdf = optarg;
			break;
		case 't':
			tmo = atoi(optarg);
			break;
		case 'L':
			linger = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (server < 0 || argc - optind != 2)
		usage();
	/* a bound for a hang, not a speed test: longer on a slower kernel */
	slow = getenv("SMC_TEST_SLOWDOWN");
	if (slow && atoi(slow) > 1)
		tmo *= atoi(slow);
	role = server ? "server" : "client";
	fam = parse_addr(argv[optind], argv[optind + 1], &ss, &l);
	if (fam < 0)
		usage();
	signal(SIGALRM, on_alarm);
	alarm(tmo);

	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC,
		    fam == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	if (fd < 0) {
		ktap_diag("%s: socket(AF_SMC): %s", role, strerror(errno));
		return KSFT_FAIL;
	}
	if (server) {
		lfd = fd;
		opt = 1;
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &opt, sizeof(opt));
		if (bind(lfd, (struct sockaddr *)&ss, l) || listen(lfd, 1)) {
			ktap_diag("server: bind/listen %s: %s", argv[optind],
				  strerror(errno));
			return KSFT_FAIL;
		}
		if (ready && touch(ready))
			return KSFT_FAIL;
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			ktap_diag("server: accept: %s", strerror(errno));
			return KSFT_FAIL;
		}
		close(lfd);
	} else if (connect(fd, (struct sockaddr *)&ss, l)) {
		ktap_diag("client: connect %s: %s", argv[optind],
			  strerror(errno));
		return KSFT_FAIL;
	}

	if (check_path(fd))
		ok = 0;
	if (holdf && hold(holdf, tmo))
		ok = 0;

	w.fd = fd;
	w.seed = server ? seed * 2 + 2 : seed * 2 + 1;
	w.len = server ? s2c : c2s;
	r.fd = fd;
	r.seed = server ? seed * 2 + 1 : seed * 2 + 2;
	pthread_create(&t, NULL, writer, &w);
	reader(&r);
	pthread_join(t, NULL);

	/* of a stream cut short, the whole one's digest is not known */
	if (r.done == (server ? c2s : s2c))
		memcpy(want, r.want_digest, sizeof(want));
	else
		memset(want, 0, sizeof(want));
	if (w.err || r.err) {
		ktap_diag("%s: I/O error: write %s, read %s", role,
			  strerror(w.err), strerror(r.err));
		ok = 0;
	}
	sha256_hex(r.digest, h1);
	sha256_hex(want, h2);
	if (r.done != (server ? c2s : s2c) || memcmp(r.digest, want, 32)) {
		ktap_diag("%s: received %llu bytes sha256 %s, expected %llu bytes sha256 %s",
			  role, (unsigned long long)r.done, h1,
			  (unsigned long long)(server ? c2s : s2c), h2);
		if (r.bad)
			ktap_diag(BAD_FMT,
				  role, (unsigned long long)r.bad,
				  (unsigned long long)r.bad_first, r.bad_got,
				  r.bad_want,
				  (unsigned long long)r.bad_last);
		ok = 0;
	} else {
		ktap_diag("%s: sent %llu, received %llu bytes, sha256 %.16s... ok",
			  role, (unsigned long long)w.done,
			  (unsigned long long)r.done, h1);
	}
	if (linger) {
		struct linger lg = { .l_onoff = 1, .l_linger = linger };

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	close(fd);
	return ok ? KSFT_PASS : KSFT_FAIL;
}
