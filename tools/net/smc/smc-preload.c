// SPDX-License-Identifier: GPL-2.0
/*
 * libsmc-preload.so - run unmodified TCP applications over AF_SMC
 *
 * Interposes socket() only.  Stream sockets of the IPv4 and IPv6 families
 * with protocol 0 or IPPROTO_TCP are created as AF_SMC sockets instead
 * (protocol 0 for IPv4, 1 for IPv6).  Everything else is passed through.
 *
 * Environment:
 *   SMC_DEBUG=1        report every decision on stderr
 *   SMC_SNDBUF=SIZE    SO_SNDBUF for every created socket (k/m suffix)
 *   SMC_RCVBUF=SIZE    SO_RCVBUF for every created socket (k/m suffix)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "smc_size.h"

#ifndef AF_SMC
#define AF_SMC		43
#endif
#define SMCPROTO_SMC	0
#define SMCPROTO_SMC6	1

typedef int (*socket_fn)(int, int, int);

static socket_fn real_socket;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static int debug;

static void resolve(void)
{
	const char *d = getenv("SMC_DEBUG");

	debug = d && d[0] && d[0] != '0';
	real_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (!real_socket && debug)
		fprintf(stderr, "smc-preload: cannot resolve socket(): %s\n",
			dlerror());
}

static void set_buf(int fd, const char *env, int optname, const char *name)
{
	const char *s = getenv(env);
	int size, rc, err;

	if (!s || !*s)
		return;
	if (smc_parse_size(s, &size)) {
		if (debug)
			fprintf(stderr, "smc-preload: bad %s value '%s'\n",
				env, s);
		return;
	}
	err = errno;
	rc = setsockopt(fd, SOL_SOCKET, optname, &size, sizeof(size));
	if (debug)
		fprintf(stderr, "smc-preload: fd %d %s=%d %s\n", fd, name,
			size, rc ? "failed" : "ok");
	errno = err;
}

static int want_smc(int domain, int type, int protocol)
{
	if (domain != AF_INET && domain != AF_INET6)
		return 0;
	if ((type & 0xf) != SOCK_STREAM)
		return 0;
	return protocol == 0 || protocol == IPPROTO_TCP;
}

int socket(int domain, int type, int protocol)
{
	int fd;

	pthread_once(&resolve_once, resolve);
	if (!real_socket) {
		errno = EINVAL;
		return -1;
	}

	if (want_smc(domain, type, protocol)) {
		int proto = domain == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC;

		if (debug)
			fprintf(stderr,
				"smc-preload: map sock to AF_SMC (domain %d type %#x proto %d)\n",
				domain, type, proto);
		fd = real_socket(AF_SMC, type, proto);
		if (fd < 0 && debug)
			perror("smc-preload: socket(AF_SMC)");
	} else {
		fd = real_socket(domain, type, protocol);
	}

	if (fd >= 0) {
		set_buf(fd, "SMC_SNDBUF", SO_SNDBUF, "SO_SNDBUF");
		set_buf(fd, "SMC_RCVBUF", SO_RCVBUF, "SO_RCVBUF");
	}
	return fd;
}
