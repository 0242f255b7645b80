// SPDX-License-Identifier: GPL-2.0
/*
 * static_peer - a plain TCP client and server, linked statically, for
 * smc_run_bpf.sh: LD_PRELOAD never reaches it; smc_run's BPF way does.
 *
 *   static_peer -s ADDR PORT [-k N] [-r FILE] [-A FILE]
 *	accept N connections (default 1), creating FILE once listening
 *	(-r) and once all N are accepted (-A); then, one connection after
 *	the other, read to EOF and send back the SHA-256 of what came
 *   static_peer -c ADDR PORT [-n BYTES] [-S SEED] [-H FILE] [-x]
 *	connect; with -H create FILE once connected and wait until it is
 *	removed; send BYTES (default 1 MiB) generated from SEED, shut the
 *	sending side down and compare the digest that comes back with
 *	that of what it sent
 *   -x      ask socket() for IPPROTO_TCP, not 0
 *   -t SEC  give up after SEC seconds (default 120), times
 *	     SMC_TEST_SLOWDOWN
 *
 * Sockets are made as any TCP program makes them, socket(AF_INET or
 * AF_INET6, SOCK_STREAM, 0).  The last line says which protocol the
 * socket got (SO_PROTOCOL: 6 for TCP, 256 for IPPROTO_SMC):
 *   server proto=P conns=N bytes=B
 *   client proto=P ok|mismatch
 * Exit status: 0 all went well, 1 otherwise.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "sha256.h"
#include "timeutil.h"

#define PEER_CHUNK	(64 * 1024)
#define PEER_MAX_CONNS	64

struct peer_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

static int peer_parse_addr(const char *host, const char *port,
			   struct peer_addr *a)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;
	int p = atoi(port);

	memset(a, 0, sizeof(*a));
	if (p <= 0 || p > 65535)
		return -1;
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(p);
		a->len = sizeof(*s6);
		return 0;
	}
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(p);
		a->len = sizeof(*s4);
		return 0;
	}
	return -1;
}

static int peer_proto(int fd)
{
	socklen_t len = sizeof(int);
	int proto = -1;

	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len);
	return proto;
}

/* The client's data: a byte stream from a xorshift generator */
static void peer_fill(uint64_t *state, uint8_t *buf, size_t len)
{
	uint64_t x = *state;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x >> 32;
	}
	*state = x;
}

static int peer_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int peer_touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		printf("# create %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int peer_server(const struct peer_addr *a, int conns,
		       const char *ready, const char *accepted)
{
	int ls, fd[PEER_MAX_CONNS], i, one = 1, proto, rc = 0;
	unsigned long long total = 0;
	uint8_t buf[PEER_CHUNK], digest[32];
	struct sha256 sha;
	ssize_t n;

	ls = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0) {
		printf("# socket: %s\n", strerror(errno));
		return 1;
	}
	proto = peer_proto(ls);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a->ss, a->len) ||
	    listen(ls, conns)) {
		printf("# bind/listen: %s\n", strerror(errno));
		return 1;
	}
	if (ready && peer_touch(ready))
		return 1;
	for (i = 0; i < conns; i++) {
		fd[i] = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
		if (fd[i] < 0) {
			printf("# accept: %s\n", strerror(errno));
			return 1;
		}
	}
	close(ls);
	if (accepted && peer_touch(accepted))
		return 1;
	for (i = 0; i < conns; i++) {
		sha256_init(&sha);
		while ((n = read(fd[i], buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				printf("# read: %s\n", strerror(errno));
				rc = 1;
				break;
			}
			sha256_update(&sha, buf, n);
			total += n;
		}
		sha256_final(&sha, digest);
		if (peer_write_all(fd[i], digest, sizeof(digest))) {
			printf("# write: %s\n", strerror(errno));
			rc = 1;
		}
		close(fd[i]);
	}
	printf("server proto=%d conns=%d bytes=%llu\n", proto, conns, total);
	return rc;
}

static int peer_hold(const char *path, int tmo_s)
{
	long end = now_ms() + tmo_s * 1000L;

	if (peer_touch(path))
		return -1;
	while (access(path, F_OK) == 0) {
		if (now_ms() > end) {
			printf("# %s was not removed\n", path);
			return -1;
		}
		msleep(20);
	}
	return 0;
}

static int peer_client(const struct peer_addr *a, int protocol,
		       unsigned long long bytes, uint64_t seed,
		       const char *hold, int tmo_s)
{
	uint8_t buf[PEER_CHUNK], want[32], got[32];
	unsigned long long left = bytes;
	uint64_t state = seed | 1;
	struct sha256 sha;
	size_t len, have = 0;
	int fd, proto;
	ssize_t n;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, protocol);
	if (fd < 0) {
		printf("# socket: %s\n", strerror(errno));
		return 1;
	}
	proto = peer_proto(fd);
	if (connect(fd, (struct sockaddr *)&a->ss, a->len)) {
		printf("# connect: %s\n", strerror(errno));
		return 1;
	}
	if (hold && peer_hold(hold, tmo_s))
		return 1;
	sha256_init(&sha);
	while (left) {
		len = left < sizeof(buf) ? left : sizeof(buf);
		peer_fill(&state, buf, len);
		sha256_update(&sha, buf, len);
		if (peer_write_all(fd, buf, len)) {
			printf("# write: %s\n", strerror(errno));
			return 1;
		}
		left -= len;
	}
	sha256_final(&sha, want);
	shutdown(fd, SHUT_WR);
	while (have < sizeof(got)) {
		n = read(fd, got + have, sizeof(got) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			printf("# read of the digest: %s\n",
			       n ? strerror(errno) : "EOF");
			return 1;
		}
		have += n;
	}
	close(fd);
	printf("client proto=%d %s\n", proto,
	       memcmp(want, got, sizeof(want)) ? "mismatch" : "ok");
	return memcmp(want, got, sizeof(want)) != 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s -s ADDR PORT [-k N] [-r FILE] [-A FILE] [-t SEC]\n"
		"       %s -c ADDR PORT [-n BYTES] [-S SEED] [-H FILE] [-x]\n"
		"            [-t SEC]\n",
		prog, prog);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *accepted = NULL, *hold = NULL, *slow;
	unsigned long long bytes = 1 << 20;
	int opt, conns = 1, protocol = 0, tmo_s = 120;
	char mode = 0;
	uint64_t seed = 1;
	struct peer_addr a;

	while ((opt = getopt(argc, argv, "scA:H:k:n:r:S:t:x")) != -1) {
		switch (opt) {
		case 's':
		case 'c':
			mode = opt;
			break;
		case 'A':
			accepted = optarg;
			break;
		case 'H':
			hold = optarg;
			break;
		case 'k':
			conns = atoi(optarg);
			break;
		case 'n':
			bytes = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			tmo_s = atoi(optarg);
			break;
		case 'x':
			protocol = IPPROTO_TCP;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!mode || argc - optind != 2 || conns < 1 ||
	    conns > PEER_MAX_CONNS || tmo_s < 1 ||
	    peer_parse_addr(argv[optind], argv[optind + 1], &a))
		usage(argv[0]);
	slow = getenv("SMC_TEST_SLOWDOWN");
	if (slow && atoi(slow) > 1)
		tmo_s *= atoi(slow);
	/* a peer that never comes must not hang the test */
	alarm(tmo_s);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mode == 's')
		return peer_server(&a, conns, ready, accepted);
	return peer_client(&a, protocol, bytes, seed, hold, tmo_s);
}
