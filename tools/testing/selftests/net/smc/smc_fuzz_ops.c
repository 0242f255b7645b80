// SPDX-License-Identifier: GPL-2.0
/*
 * The ops of smc_fuzz; the program and its engine are in smc_fuzz.c.
 *
 * An op is one step of a stream: a system call, or a short sequence of
 * them, on the fd slots all threads share.  Here are socket, bind,
 * listen, connect, accept, the send and the receive families, splice,
 * sendfile, setsockopt and getsockopt, ioctl, poll, epoll, shutdown,
 * close, dup, getsockname/getpeername and fcntl; the seed pairs, the
 * connected sockets those ops should meet; and the op of
 * SMC_FUZZ_SELFTEST_HANG.  With them the pickers of their arguments
 * (slots, lengths, flags, iovecs, addresses, socket options and their
 * values) and the op table of names and weights.  Only fork, which runs
 * ops in a child, is the engine's.
 *
 * The rule every op keeps: all its random choices are drawn before its
 * first system call; then op_begin() logs them, then the calls follow.
 * What an op draws depends on earlier draws only, never on a result,
 * so the seed and thread index name the sequence of ops and arguments,
 * and the log shows an op in full even when its call never returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fuzz_rng.h"
#include "smc_fuzz.h"
#include "timeutil.h"

#ifndef AF_SMC
#define AF_SMC			43
#endif
#ifndef SOL_SMC
#define SOL_SMC			286
#endif
#ifndef IPPROTO_SMC
#define IPPROTO_SMC		256
#endif
#ifndef SOL_TCP
#define SOL_TCP			6
#endif
#ifndef TCP_ULP
#define TCP_ULP			31
#endif
#ifndef SIOCOUTQNSD
#define SIOCOUTQNSD		0x894B
#endif
#define SMCPROTO_SMC		0	/* AF_SMC over IPv4 */
#define SMCPROTO_SMC6		1	/* AF_SMC over IPv6 */
#define SMC_LIMIT_HS		1

/* ------------------------------------------------------------------ */
/* Helpers and the pickers of arguments                               */

/* A system call's result as the log shows it: the value or -errno */
static long sysret(long ret)
{
	return ret < 0 ? -errno : ret;
}

static int pick_slot(struct fuzz_ctx *ctx)
{
	return rng_below(&ctx->rng, NR_SLOTS);
}

static void set_timeout(int fd, int optname, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, optname, &tv, sizeof(tv));
}

/* Every socket we make or accept: no call blocks for long by default */
static void arm_timeouts(int fd)
{
	set_timeout(fd, SO_RCVTIMEO, IO_TIMEOUT_MS);
	set_timeout(fd, SO_SNDTIMEO, IO_TIMEOUT_MS);
}

int open_socket(enum sock_kind kind, int v6, int flags)
{
	int type = SOCK_STREAM | flags;

	switch (kind) {
	case KIND_SMC:
		return socket(AF_SMC, type, v6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	case KIND_IPPROTO:
		return socket(v6 ? AF_INET6 : AF_INET, type, IPPROTO_SMC);
	default:
		return socket(v6 ? AF_INET6 : AF_INET, type, 0);
	}
}

/* One draw whatever -P says, so the kinds do not shift the sequence */
static enum sock_kind pick_kind(struct fuzz_ctx *ctx)
{
	int coin = rng_below(&ctx->rng, 2);

	if (cfg.kinds & (1u << KIND_TCP))
		return KIND_TCP;
	if (cfg.kinds == ((1u << KIND_SMC) | (1u << KIND_IPPROTO)))
		return coin ? KIND_IPPROTO : KIND_SMC;
	return cfg.kinds & (1u << KIND_SMC) ? KIND_SMC : KIND_IPPROTO;
}

static int pick_port(struct fuzz_ctx *ctx)
{
	int i = rng_below(&ctx->rng, NR_PORTS + 1);

	return i == NR_PORTS ? 0 : cfg.port_base + i;
}

static socklen_t build_sockaddr(const struct fuzz_addr *a, int port,
				struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr = a->v4;
		return sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr = a->v6;
	return sizeof(*sin6);
}

/*
 * An address for bind, connect or sendto: mostly well formed, of either
 * family whatever the socket's, sometimes too short or of a wrong family.
 */
static socklen_t pick_sockaddr(struct fuzz_ctx *ctx,
			       struct sockaddr_storage *ss,
			       char *desc, size_t desclen)
{
	static const int odd_families[] = { AF_UNSPEC, AF_UNIX, AF_SMC, 4242 };
	const struct fuzz_addr *a = &addrs[rng_below(&ctx->rng, nr_addrs)];
	int port = pick_port(ctx);
	int mangle = rng_below(&ctx->rng, 12);
	int odd_family = odd_families[rng_below(&ctx->rng, 4)];
	socklen_t len = build_sockaddr(a, port, ss);
	socklen_t short_len = rng_below(&ctx->rng, len);
	int v6 = a->family == AF_INET6;

	if (mangle == 0)
		len = short_len;
	else if (mangle == 1)
		ss->ss_family = odd_family;
	snprintf(desc, desclen, "%s%s%s:%d fam=%d len=%u", v6 ? "[" : "",
		 a->text, v6 ? "]" : "", port, ss->ss_family, len);
	return len;
}

/* 0, 1, a few bytes, some KiB or anything up to max */
static size_t pick_len(struct fuzz_ctx *ctx, size_t max)
{
	uint32_t class = rng_below(&ctx->rng, 8);
	uint64_t r = rng_next(&ctx->rng);

	switch (class) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
	case 3:
		return 1 + r % 512;
	case 4:
	case 5:
		return 1 + r % 16384;
	default:
		return r % (max + 1);
	}
}

/* Flags and event masks: each bit set with its own chance */
struct bit_chance {
	unsigned int bit;
	int percent;
};

static unsigned int pick_bits(struct fuzz_ctx *ctx,
			      const struct bit_chance *bits, size_t n)
{
	unsigned int mask = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (rng_pct(&ctx->rng, bits[i].percent))
			mask |= bits[i].bit;
	return mask;
}

#define PICK_BITS(ctx, bits) ({						\
	__typeof__(bits) *__bits = &(bits);				\
	pick_bits(ctx, *__bits, ARRAY_SIZE(*__bits));			\
})

/*
 * Mostly non-blocking: a blocked call costs up to its 200 ms timeout.
 * MSG_NOSIGNAL always (SIGPIPE is ignored as well).
 */
static const struct bit_chance send_flags[] = {
	{ MSG_NOSIGNAL, 100 }, { MSG_DONTWAIT, 70 }, { MSG_OOB, 8 },
	{ MSG_MORE, 15 }, { MSG_EOR, 8 },
};

static const struct bit_chance recv_flags[] = {
	{ MSG_DONTWAIT, 85 }, { MSG_PEEK, 20 }, { MSG_OOB, 10 },
	{ MSG_WAITALL, 10 }, { MSG_TRUNC, 10 },
};

/* TCP's splice ignores SPLICE_F_NONBLOCK on the socket side, SMC's not */
static const struct bit_chance splice_flags[] = {
	{ SPLICE_F_NONBLOCK, 80 }, { SPLICE_F_MORE, 20 },
	{ SPLICE_F_MOVE, 20 },
};

static const struct bit_chance poll_events[] = {
	{ POLLIN, 40 }, { POLLPRI, 40 }, { POLLOUT, 40 }, { POLLRDHUP, 40 },
	{ POLLRDNORM, 40 }, { POLLRDBAND, 40 }, { POLLWRNORM, 40 },
	{ POLLWRBAND, 40 },
};

static const struct bit_chance epoll_events[] = {
	{ EPOLLIN, 50 }, { EPOLLOUT, 40 }, { EPOLLET, 25 },
	{ EPOLLONESHOT, 15 }, { EPOLLRDHUP, 20 }, { EPOLLPRI, 20 },
	{ EPOLLEXCLUSIVE, 10 },
};

/* len bytes of buf cut into 1..8 pieces (some may be empty) */
static int pick_iov(struct fuzz_ctx *ctx, char *buf, size_t len,
		    struct iovec *iov)
{
	int n = 1 + rng_below(&ctx->rng, MAX_IOV);
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		size_t part = len - off;

		if (i < n - 1)
			part = rng_below(&ctx->rng, part + 1);
		iov[i].iov_base = buf + off;
		iov[i].iov_len = part;
		off += part;
	}
	return n;
}

/*
 * Random bytes with the top bit of every 8-byte word set: whatever the
 * kernel takes for a pointer in them is not an address of this process.
 */
static void fill_random(struct fuzz_ctx *ctx, unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = rng_next(&ctx->rng) | (1ULL << 63);

		memcpy(buf + i, &v, sizeof(v));
	}
}

/* ------------------------------------------------------------------ */
/* Connection setup ops                                               */

static long op_socket(struct fuzz_ctx *ctx)
{
	static const int flag_sets[] = {
		0, 0, SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC
	};
	int slot = pick_slot(ctx);
	enum sock_kind kind = pick_kind(ctx);
	int v6 = rng_below(&ctx->rng, 2);
	int flags = flag_sets[rng_below(&ctx->rng, ARRAY_SIZE(flag_sets))];
	int fd;

	op_begin(ctx, "s%d %s%s flags=0x%x", slot,
		 kind_names[kind], v6 ? "6" : "4", flags);
	fd = open_socket(kind, v6, flags);
	if (fd < 0)
		return -errno;
	arm_timeouts(fd);
	slot_put(slot, fd);
	return fd;
}

static long op_bind(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	struct sockaddr_storage ss;
	char desc[96];
	socklen_t len = pick_sockaddr(ctx, &ss, desc, sizeof(desc));

	op_begin(ctx, "s%d %s", slot, desc);
	return sysret(bind(slot_get(ctx, slot), (struct sockaddr *)&ss, len));
}

static long op_listen(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	int backlog = (int)rng_below(&ctx->rng, 130) - 1;

	op_begin(ctx, "s%d backlog=%d", slot, backlog);
	return sysret(listen(slot_get(ctx, slot), backlog));
}

/* connect on a temporarily non-blocking socket, then a short poll */
static long connect_nonblocking(int fd, const struct sockaddr *sa,
				socklen_t len, int poll_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int flags = fcntl(fd, F_GETFL);
	long ret;

	if (flags < 0)
		return -errno;
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	ret = sysret(connect(fd, sa, len));
	if (ret == -EINPROGRESS)
		poll(&pfd, 1, poll_ms);
	/* another thread may have toggled the flags meanwhile: fine */
	fcntl(fd, F_SETFL, flags);
	return ret;
}

enum connect_mode { CONNECT_BLOCK, CONNECT_NONBLOCK, CONNECT_UNSPEC };

static long op_connect(struct fuzz_ctx *ctx)
{
	static const char *const names[] = { "block", "nonblock", "unspec" };
	int slot = pick_slot(ctx);
	int roll = rng_below(&ctx->rng, 9);
	enum connect_mode mode = roll < 4 ? CONNECT_BLOCK :
				 roll < 8 ? CONNECT_NONBLOCK : CONNECT_UNSPEC;
	int sndtimeo = 50 + rng_below(&ctx->rng, 951);
	int poll_ms = rng_below(&ctx->rng, 21);
	struct sockaddr_storage ss;
	struct sockaddr *sa = (struct sockaddr *)&ss;
	char desc[96];
	socklen_t len = pick_sockaddr(ctx, &ss, desc, sizeof(desc));
	int fd;

	if (mode == CONNECT_UNSPEC) {
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = AF_UNSPEC;
		len = sizeof(struct sockaddr);
		snprintf(desc, sizeof(desc), "AF_UNSPEC");
	}
	op_begin(ctx, "s%d %s %s sndtimeo=%d poll=%d", slot,
		 names[mode], desc, sndtimeo, poll_ms);
	fd = slot_get(ctx, slot);
	switch (mode) {
	case CONNECT_BLOCK:
		set_timeout(fd, SO_SNDTIMEO, sndtimeo);
		return sysret(connect(fd, sa, len));
	case CONNECT_NONBLOCK:
		return connect_nonblocking(fd, sa, len, poll_ms);
	default:
		return sysret(connect(fd, sa, len));
	}
}

static long op_accept(struct fuzz_ctx *ctx)
{
	static const int flag_sets[] = {
		0, SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC
	};
	static const socklen_t addr_lens[] = { 0, 16, 28, 128 };
	int slot = pick_slot(ctx);
	int to_slot = pick_slot(ctx);
	int flags = flag_sets[rng_below(&ctx->rng, ARRAY_SIZE(flag_sets))];
	int direct = rng_pct(&ctx->rng, 8);
	int wait = rng_pct(&ctx->rng, 25);
	int poll_ms = wait ? 1 + rng_below(&ctx->rng, 20) : 0;
	int want_addr = rng_below(&ctx->rng, 2);
	socklen_t addr_len = addr_lens[rng_below(&ctx->rng, 4)];
	struct sockaddr_storage ss;
	struct pollfd pfd;
	int fd, nfd;

	op_begin(ctx, "s%d -> s%d flags=0x%x direct=%d poll=%d addrlen=%d",
		 slot, to_slot, flags, direct, poll_ms,
		 want_addr ? (int)addr_len : -1);
	fd = slot_get(ctx, slot);
	/* poll 0..20 ms first, or (direct) up to the socket's timeout */
	if (!direct) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, poll_ms) == 0)
			return -EAGAIN;
	}
	nfd = accept4(fd, want_addr ? (struct sockaddr *)&ss : NULL,
		      want_addr ? &addr_len : NULL, flags);
	if (nfd < 0)
		return -errno;
	arm_timeouts(nfd);
	slot_put(to_slot, nfd);
	return nfd;
}

/* ------------------------------------------------------------------ */
/* Data ops                                                           */

/*
 * send, sendto, sendmsg, write and writev draw the same arguments (so the
 * log shows them all); each call takes what it has room for.
 */
static long op_send_family(struct fuzz_ctx *ctx)
{
	struct iovec iov[MAX_IOV];
	struct sockaddr_storage ss;
	char to[96];
	char *buf = ctx->w->txbuf;
	int slot = pick_slot(ctx);
	size_t len = pick_len(ctx, BUF_LEN);
	int flags = PICK_BITS(ctx, send_flags);
	int iovcnt = pick_iov(ctx, buf, len, iov);
	socklen_t alen = pick_sockaddr(ctx, &ss, to, sizeof(to));
	int with_addr = rng_pct(&ctx->rng, 20);
	struct msghdr msg = {
		.msg_name = with_addr ? &ss : NULL,
		.msg_namelen = with_addr ? alen : 0,
		.msg_iov = iov,
		.msg_iovlen = iovcnt,
	};
	int fd;

	op_begin(ctx, "s%d len=%zu flags=0x%x iov=%d to=%s", slot, len, flags,
		 iovcnt, with_addr ? to : "none");
	fd = slot_get(ctx, slot);
	switch (ctx->op) {
	case OP_SEND:
		return sysret(send(fd, buf, len, flags));
	case OP_SENDTO:
		return sysret(sendto(fd, buf, len, flags, msg.msg_name,
				     msg.msg_namelen));
	case OP_SENDMSG:
		return sysret(sendmsg(fd, &msg, flags));
	case OP_WRITE:
		return sysret(write(fd, buf, len));
	default:
		return sysret(writev(fd, iov, iovcnt));
	}
}

/* recv, recvfrom, recvmsg, read and readv, the same way */
static long op_recv_family(struct fuzz_ctx *ctx)
{
	static const socklen_t name_lens[] = { 0, 16, 28, 128 };
	static const socklen_t ctl_lens[] = { 16, 64, SCRATCH_LEN };
	struct iovec iov[MAX_IOV];
	struct sockaddr_storage ss;
	char *buf = ctx->w->rxbuf;
	int slot = pick_slot(ctx);
	size_t len = pick_len(ctx, BUF_LEN);
	int flags = PICK_BITS(ctx, recv_flags);
	int iovcnt = pick_iov(ctx, buf, len, iov);
	int with_name = rng_pct(&ctx->rng, 40);
	socklen_t name_len = name_lens[rng_below(&ctx->rng, 4)];
	int with_ctl = rng_pct(&ctx->rng, 30);
	socklen_t ctl_len = ctl_lens[rng_below(&ctx->rng, 3)];
	struct msghdr msg = {
		.msg_name = with_name ? &ss : NULL,
		.msg_namelen = name_len,
		.msg_iov = iov,
		.msg_iovlen = iovcnt,
		.msg_control = with_ctl ? ctx->scratch : NULL,
		.msg_controllen = with_ctl ? ctl_len : 0,
	};
	int fd;

	op_begin(ctx, "s%d len=%zu flags=0x%x iov=%d name=%d ctl=%d", slot,
		 len, flags, iovcnt, with_name ? (int)name_len : -1,
		 with_ctl ? (int)ctl_len : 0);
	fd = slot_get(ctx, slot);
	switch (ctx->op) {
	case OP_RECV:
		return sysret(recv(fd, buf, len, flags));
	case OP_RECVFROM:
		return sysret(recvfrom(fd, buf, len, flags, msg.msg_name,
				       with_name ? &name_len : NULL));
	case OP_RECVMSG:
		return sysret(recvmsg(fd, &msg, flags));
	case OP_READ:
		return sysret(read(fd, buf, len));
	default:
		return sysret(readv(fd, iov, iovcnt));
	}
}

static int pipe_level(int p)
{
	int level = 0;

	ioctl(pipes[p][0], FIONREAD, &level);
	return level;
}

/*
 * The pipes are shared and blocking.  Keep them from staying full or
 * empty, so that a blocking splice waits for the socket, not the pipe.
 * (Another thread may change the level in between; the watchdog ends
 * such a rare wait.)
 */
static void pipe_make_room(struct fuzz_ctx *ctx, int p)
{
	int level = pipe_level(p);
	ssize_t r;

	if (level > SPLICE_MAX / 2) {
		r = read(pipes[p][0], ctx->w->rxbuf, level);
		(void)r;
	}
}

static void pipe_make_data(struct fuzz_ctx *ctx, int p)
{
	ssize_t r;

	if (pipe_level(p) == 0) {
		r = write(pipes[p][1], ctx->w->txbuf, 4096);
		(void)r;
	}
}

/* OP_SPLICE_IN: socket to pipe; OP_SPLICE_OUT: pipe to socket */
static long op_splice(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	int p = rng_below(&ctx->rng, NR_PIPES);
	size_t len = rng_below(&ctx->rng, SPLICE_MAX + 1);
	unsigned int flags = PICK_BITS(ctx, splice_flags);
	int to_pipe = ctx->op == OP_SPLICE_IN;
	int fd;

	op_begin(ctx, "s%d %s pipe%d len=%zu flags=0x%x", slot,
		 to_pipe ? "->" : "<-", p, len, flags);
	fd = slot_get(ctx, slot);
	if (to_pipe) {
		pipe_make_room(ctx, p);
		return sysret(splice(fd, NULL, pipes[p][1], NULL, len, flags));
	}
	pipe_make_data(ctx, p);
	return sysret(splice(pipes[p][0], NULL, fd, NULL, len, flags));
}

static long op_sendfile(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	off_t offset = rng_below(&ctx->rng, FILE_LEN + 1);
	size_t count = pick_len(ctx, BUF_LEN);

	op_begin(ctx, "s%d off=%lld count=%zu", slot,
		 (long long)offset, count);
	return sysret(sendfile(slot_get(ctx, slot), data_fd, &offset, count));
}

/* ------------------------------------------------------------------ */
/* Socket options                                                     */

enum optval_kind {
	V_INT, V_LINGER, V_TIMEVAL, V_DEVICE, V_CONGESTION, V_ULP, V_INFO
};

struct sockopt_desc {
	int level;
	int name;		/* -1: 0..8 at random */
	const char *label;
	enum optval_kind kind;
};

#define SOCKOPT(level, name, kind)	{ level, name, #name, kind }

static const struct sockopt_desc sockopts[] = {
	SOCKOPT(SOL_SOCKET, SO_RCVBUF, V_INT),
	SOCKOPT(SOL_SOCKET, SO_SNDBUF, V_INT),
	SOCKOPT(SOL_SOCKET, SO_RCVBUFFORCE, V_INT),
	SOCKOPT(SOL_SOCKET, SO_SNDBUFFORCE, V_INT),
	SOCKOPT(SOL_SOCKET, SO_KEEPALIVE, V_INT),
	SOCKOPT(SOL_SOCKET, SO_LINGER, V_LINGER),
	SOCKOPT(SOL_SOCKET, SO_REUSEADDR, V_INT),
	SOCKOPT(SOL_SOCKET, SO_REUSEPORT, V_INT),
	SOCKOPT(SOL_SOCKET, SO_RCVLOWAT, V_INT),
	SOCKOPT(SOL_SOCKET, SO_RCVTIMEO, V_TIMEVAL),
	SOCKOPT(SOL_SOCKET, SO_SNDTIMEO, V_TIMEVAL),
	SOCKOPT(SOL_SOCKET, SO_PRIORITY, V_INT),
	SOCKOPT(SOL_SOCKET, SO_MARK, V_INT),
	SOCKOPT(SOL_SOCKET, SO_OOBINLINE, V_INT),
	SOCKOPT(SOL_SOCKET, SO_ZEROCOPY, V_INT),
	SOCKOPT(SOL_SOCKET, SO_BUSY_POLL, V_INT),
	SOCKOPT(SOL_SOCKET, SO_ERROR, V_INT),
	SOCKOPT(SOL_SOCKET, SO_TYPE, V_INT),
	SOCKOPT(SOL_SOCKET, SO_PROTOCOL, V_INT),
	SOCKOPT(SOL_SOCKET, SO_DOMAIN, V_INT),
	SOCKOPT(SOL_SOCKET, SO_ACCEPTCONN, V_INT),
	SOCKOPT(SOL_SOCKET, SO_PEEK_OFF, V_INT),
	SOCKOPT(SOL_SOCKET, SO_BINDTODEVICE, V_DEVICE),
	SOCKOPT(SOL_TCP, TCP_NODELAY, V_INT),
	SOCKOPT(SOL_TCP, TCP_CORK, V_INT),
	SOCKOPT(SOL_TCP, TCP_MAXSEG, V_INT),
	SOCKOPT(SOL_TCP, TCP_KEEPIDLE, V_INT),
	SOCKOPT(SOL_TCP, TCP_KEEPINTVL, V_INT),
	SOCKOPT(SOL_TCP, TCP_KEEPCNT, V_INT),
	SOCKOPT(SOL_TCP, TCP_DEFER_ACCEPT, V_INT),
	SOCKOPT(SOL_TCP, TCP_FASTOPEN, V_INT),
	SOCKOPT(SOL_TCP, TCP_FASTOPEN_CONNECT, V_INT),
	SOCKOPT(SOL_TCP, TCP_USER_TIMEOUT, V_INT),
	SOCKOPT(SOL_TCP, TCP_INFO, V_INFO),
	SOCKOPT(SOL_TCP, TCP_CONGESTION, V_CONGESTION),
	SOCKOPT(SOL_TCP, TCP_ULP, V_ULP),
	SOCKOPT(SOL_TCP, TCP_QUICKACK, V_INT),
	SOCKOPT(SOL_TCP, TCP_NOTSENT_LOWAT, V_INT),
	SOCKOPT(SOL_TCP, TCP_REPAIR, V_INT),
	SOCKOPT(SOL_SMC, SMC_LIMIT_HS, V_INT),
	{ SOL_SMC, -1, "SOL_SMC", V_INT },
	SOCKOPT(SOL_IP, IP_TOS, V_INT),
	SOCKOPT(SOL_IP, IP_TTL, V_INT),
	SOCKOPT(SOL_IPV6, IPV6_V6ONLY, V_INT),
};

static const struct sockopt_desc random_sockopt = { -1, -1, "random", V_INT };

/* An option from the table, or (10 %) any level and name */
static const struct sockopt_desc *pick_sockopt(struct fuzz_ctx *ctx,
					       int *level, int *name)
{
	static const int levels[] = {
		SOL_SOCKET, SOL_TCP, SOL_SMC, SOL_IP, SOL_IPV6
	};
	const struct sockopt_desc *d;
	int any = rng_pct(&ctx->rng, 10);
	int known_level = rng_pct(&ctx->rng, 50);
	int rnd_level = levels[rng_below(&ctx->rng, ARRAY_SIZE(levels))];
	int odd_level = rng_below(&ctx->rng, 300);
	int rnd_name = rng_below(&ctx->rng, 100);
	int smc_name = rng_below(&ctx->rng, 9);

	d = &sockopts[rng_below(&ctx->rng, ARRAY_SIZE(sockopts))];
	if (any) {
		*level = known_level ? rnd_level : odd_level;
		*name = rnd_name;
		return &random_sockopt;
	}
	*level = d->level;
	*name = d->name < 0 ? smc_name : d->name;
	return d;
}

/* 0, 1, -1, INT_MAX, small or large random */
static long long pick_int_value(struct fuzz_ctx *ctx)
{
	uint32_t class = rng_below(&ctx->rng, 6);
	uint64_t r = rng_next(&ctx->rng);

	switch (class) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return -1;
	case 3:
		return INT_MAX;
	case 4:
		return r % 256;
	default:
		return (int32_t)(uint32_t)r;
	}
}

/* Mostly short timeouts; sometimes none (0), negative or invalid */
static void pick_timeval(struct fuzz_ctx *ctx, struct timeval *tv)
{
	uint32_t class = rng_below(&ctx->rng, 8);
	uint64_t r = rng_next(&ctx->rng);

	tv->tv_sec = 0;
	tv->tv_usec = r % 300000;
	if (class == 5) {
		tv->tv_usec = 0;
	} else if (class == 6) {
		tv->tv_sec = -1;
	} else if (class == 7) {
		tv->tv_sec = (r & 1) ? INT_MAX : (long)((r >> 1) % 4);
		tv->tv_usec = (r >> 8) % 2000000;
	}
}

/* A short lower-case name that exists nowhere */
static void pick_garbage(struct fuzz_ctx *ctx, char *buf, size_t size)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = rng_below(&ctx->rng, size - 1);
	size_t i;

	for (i = 0; i < size - 1; i++)
		buf[i] = chars[rng_below(&ctx->rng, sizeof(chars) - 1)];
	buf[len] = '\0';
}

/* The string in buf (with its NUL): the natural length */
static socklen_t put_string(unsigned char *buf, const char *s, char *desc,
			    size_t desclen)
{
	size_t len = strlen(s);

	memcpy(buf, s, len + 1);
	snprintf(desc, desclen, "\"%s\"", s);
	return len + 1;
}

/*
 * The value for a setsockopt in ctx->scratch (random bytes after it),
 * described in desc; returns the length the option expects.
 */
static socklen_t fill_optval(struct fuzz_ctx *ctx,
			     const struct sockopt_desc *d,
			     char *desc, size_t desclen)
{
	static const char *const devices[] = { "lo", "" };
	static const char *const congestion[] = { "cubic", "reno" };
	static const char *const ulps[] = { "tls", "smc" };
	unsigned char *buf = ctx->scratch;
	long long value = pick_int_value(ctx);
	int named = rng_below(&ctx->rng, 3);	/* 2: the garbage name */
	struct linger lg = {
		.l_onoff = rng_below(&ctx->rng, 2),
		.l_linger = rng_below(&ctx->rng, 3),
	};
	struct timeval tv;
	char garbage[20];

	pick_timeval(ctx, &tv);
	pick_garbage(ctx, garbage, sizeof(garbage));
	fill_random(ctx, buf, SCRATCH_LEN);
	switch (d->kind) {
	case V_LINGER:
		memcpy(buf, &lg, sizeof(lg));
		snprintf(desc, desclen, "{%d,%d}", lg.l_onoff, lg.l_linger);
		return sizeof(lg);
	case V_TIMEVAL:
		memcpy(buf, &tv, sizeof(tv));
		snprintf(desc, desclen, "{%ld,%ld}", (long)tv.tv_sec,
			 (long)tv.tv_usec);
		return sizeof(tv);
	case V_DEVICE:
		return put_string(buf, named < 2 ? devices[named] : garbage,
				  desc, desclen);
	case V_CONGESTION:
		return put_string(buf, named < 2 ? congestion[named] : garbage,
				  desc, desclen);
	case V_ULP:
		return put_string(buf, named < 2 ? ulps[named] : garbage,
				  desc, desclen);
	default:
		memcpy(buf, &value, sizeof(value));
		snprintf(desc, desclen, "%lld", value);
		return sizeof(int);
	}
}

/* The length getsockopt would normally be given */
static socklen_t natural_get_len(const struct sockopt_desc *d)
{
	switch (d->kind) {
	case V_INT:
		return sizeof(int);
	case V_LINGER:
		return sizeof(struct linger);
	case V_TIMEVAL:
		return sizeof(struct timeval);
	case V_INFO:
		return sizeof(struct tcp_info);
	default:
		return 16; /* IFNAMSIZ, TCP_CA_NAME_MAX, TCP_ULP_NAME_MAX */
	}
}

/* Half the time the natural length, else 0, 1, 4, 8, 16, 64 or random */
static socklen_t pick_optlen(struct fuzz_ctx *ctx, socklen_t natural)
{
	static const socklen_t odd[] = { 0, 1, 4, 8, 16, 64 };
	uint32_t mode = rng_below(&ctx->rng, 10);
	socklen_t fixed = odd[rng_below(&ctx->rng, ARRAY_SIZE(odd))];
	socklen_t any = rng_below(&ctx->rng, SCRATCH_LEN + 1);

	if (mode < 5)
		return natural;
	return mode < 9 ? fixed : any;
}

static long op_setsockopt(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	int level, name;
	const struct sockopt_desc *d = pick_sockopt(ctx, &level, &name);
	char value[48];
	socklen_t natural = fill_optval(ctx, d, value, sizeof(value));
	socklen_t len = pick_optlen(ctx, natural);

	op_begin(ctx, "s%d %s(%d,%d) len=%u val=%s", slot,
		 d->label, level, name, len, value);
	return sysret(setsockopt(slot_get(ctx, slot), level, name,
				 ctx->scratch, len));
}

static long op_getsockopt(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	int level, name;
	const struct sockopt_desc *d = pick_sockopt(ctx, &level, &name);
	socklen_t len = pick_optlen(ctx, natural_get_len(d));

	/* some options read their buffer first */
	fill_random(ctx, ctx->scratch, SCRATCH_LEN);
	op_begin(ctx, "s%d %s(%d,%d) len=%u", slot, d->label,
		 level, name, len);
	if (getsockopt(slot_get(ctx, slot), level, name, ctx->scratch, &len))
		return -errno;
	return len;
}

/* ------------------------------------------------------------------ */
/* ioctl, poll, epoll                                                 */

static long op_ioctl(struct fuzz_ctx *ctx)
{
	static const unsigned long known[] = {
		SIOCINQ, SIOCOUTQ, SIOCOUTQNSD, SIOCATMARK, FIONBIO
	};
	int slot = pick_slot(ctx);
	uint32_t which = rng_below(&ctx->rng, ARRAY_SIZE(known) + 3);
	unsigned long any = 0x8900 + rng_below(&ctx->rng, 0x100);
	int nbio = rng_below(&ctx->rng, 2);
	unsigned long req = which < ARRAY_SIZE(known) ? known[which] : any;

	fill_random(ctx, ctx->scratch, SCRATCH_LEN);
	if (req == FIONBIO)
		memcpy(ctx->scratch, &nbio, sizeof(nbio));
	op_begin(ctx, "s%d req=0x%lx nbio=%d", slot, req, nbio);
	return sysret(ioctl(slot_get(ctx, slot), req, ctx->scratch));
}

static long op_poll(struct fuzz_ctx *ctx)
{
	struct pollfd pfd[MAX_POLL];
	int slot_of[MAX_POLL];
	int n = 1 + rng_below(&ctx->rng, MAX_POLL);
	int timeout = rng_below(&ctx->rng, 21);
	int use_ppoll = rng_below(&ctx->rng, 2);
	struct timespec ts = { 0, timeout * 1000000L };
	char list[MAX_POLL * 16];
	int i, off = 0;

	for (i = 0; i < n; i++) {
		slot_of[i] = pick_slot(ctx);
		pfd[i].events = PICK_BITS(ctx, poll_events);
		off += snprintf(list + off, sizeof(list) - off, "%ss%d:0x%x",
				i ? "," : "", slot_of[i], pfd[i].events);
	}
	op_begin(ctx, "%s t=%d %s", use_ppoll ? "ppoll" : "poll",
		 timeout, list);
	for (i = 0; i < n; i++)
		pfd[i].fd = slot_get(ctx, slot_of[i]);
	if (use_ppoll)
		return sysret(ppoll(pfd, n, &ts, NULL));
	return sysret(poll(pfd, n, timeout));
}

static long op_epoll_ctl(struct fuzz_ctx *ctx)
{
	static const int ops[] = {
		EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL
	};
	static const char *const names[] = { "add", "mod", "del" };
	int slot = pick_slot(ctx);
	int which = rng_below(&ctx->rng, 3);
	struct epoll_event ev = {
		.events = PICK_BITS(ctx, epoll_events),
		.data.u64 = slot,
	};

	op_begin(ctx, "%s s%d events=0x%x", names[which], slot,
		 ev.events);
	return sysret(epoll_ctl(epoll_fds[ctx->w->index], ops[which],
				slot_get(ctx, slot), &ev));
}

static long op_epoll_wait(struct fuzz_ctx *ctx)
{
	struct epoll_event events[MAX_EVENTS];
	int max = 1 + rng_below(&ctx->rng, MAX_EVENTS);
	int timeout = rng_below(&ctx->rng, 21);

	op_begin(ctx, "max=%d t=%d", max, timeout);
	return sysret(epoll_wait(epoll_fds[ctx->w->index], events, max,
				 timeout));
}

/* ------------------------------------------------------------------ */
/* fd ops                                                             */

static long op_shutdown(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	int how = rng_below(&ctx->rng, 3);	/* SHUT_RD, _WR, _RDWR */
	int invalid = rng_pct(&ctx->rng, 3);

	if (invalid)
		how = 3;
	op_begin(ctx, "s%d how=%d", slot, how);
	return sysret(shutdown(slot_get(ctx, slot), how));
}

static long op_close(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);

	op_begin(ctx, "s%d", slot);
	ctx->fd = slot_take(slot);
	if (ctx->fd < 0)
		return -EBADF;
	return sysret(close(ctx->fd));
}

static long op_dup(struct fuzz_ctx *ctx)
{
	int slot = pick_slot(ctx);
	int to_slot = pick_slot(ctx);
	int fd;

	op_begin(ctx, "s%d -> s%d", slot, to_slot);
	fd = dup(slot_get(ctx, slot));
	if (fd < 0)
		return -errno;
	slot_put(to_slot, fd);
	return fd;
}

static long op_getname(struct fuzz_ctx *ctx)
{
	static const socklen_t lens[] = { 0, 8, 16, 28, 128 };
	int slot = pick_slot(ctx);
	int peer = rng_below(&ctx->rng, 2);
	socklen_t len = lens[rng_below(&ctx->rng, ARRAY_SIZE(lens))];
	struct sockaddr_storage ss;
	int fd, ret;

	op_begin(ctx, "s%d %s len=%u", slot,
		 peer ? "peer" : "sock", len);
	fd = slot_get(ctx, slot);
	if (peer)
		ret = getpeername(fd, (struct sockaddr *)&ss, &len);
	else
		ret = getsockname(fd, (struct sockaddr *)&ss, &len);
	return ret ? -errno : (long)len;
}

static long op_fcntl(struct fuzz_ctx *ctx)
{
	static const char *const names[] = { "set", "clear", "toggle" };
	int slot = pick_slot(ctx);
	int mode = rng_below(&ctx->rng, 3);
	int fd, flags;

	op_begin(ctx, "s%d O_NONBLOCK %s", slot, names[mode]);
	fd = slot_get(ctx, slot);
	flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return -errno;
	if (mode == 0)
		flags |= O_NONBLOCK;
	else if (mode == 1)
		flags &= ~O_NONBLOCK;
	else
		flags ^= O_NONBLOCK;
	return sysret(fcntl(fd, F_SETFL, flags));
}

/* ------------------------------------------------------------------ */
/* Seed pairs: established connections for the random ops to hit      */

struct pair_plan {
	enum sock_kind kind;
	const struct fuzz_addr *addr;
	int port_idx;
	int slot_listen, slot_client, slot_server;
};

/* The same number of draws whatever is used, and three distinct slots */
static void plan_pair(struct fuzz_ctx *ctx, struct pair_plan *pp)
{
	int v6 = rng_below(&ctx->rng, 2);
	int use_extra = rng_pct(&ctx->rng, 50);
	int extra = rng_below(&ctx->rng, MAX_EXTRA_ADDRS);
	int base = pick_slot(ctx);
	int gap1 = 1 + rng_below(&ctx->rng, NR_SLOTS / 2 - 1);
	int gap2 = NR_SLOTS / 2 + rng_below(&ctx->rng, NR_SLOTS / 2);
	int nr_extra = nr_addrs - NR_FIXED_ADDRS;

	pp->kind = pick_kind(ctx);
	pp->port_idx = rng_below(&ctx->rng, NR_PORTS);
	pp->slot_client = base;
	pp->slot_server = (base + gap1) % NR_SLOTS;
	pp->slot_listen = (base + gap2) % NR_SLOTS;
	if (use_extra && nr_extra > 0)
		pp->addr = &addrs[NR_FIXED_ADDRS + extra % nr_extra];
	else
		pp->addr = &addrs[v6];	/* 127.0.0.1 or ::1 */
}

/* A listener on the planned port, else another of ours, else any */
static int listen_on(const struct pair_plan *pp, struct sockaddr_storage *ss,
		     socklen_t *len)
{
	int fd = open_socket(pp->kind, pp->addr->family == AF_INET6, 0);
	int one = 1, i, err;

	if (fd < 0)
		return -errno;
	arm_timeouts(fd);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	for (i = 0; i <= NR_PORTS; i++) {
		int port = i == NR_PORTS ? 0 :
			cfg.port_base + (pp->port_idx + i) % NR_PORTS;

		*len = build_sockaddr(pp->addr, port, ss);
		if (!bind(fd, (struct sockaddr *)ss, *len))
			break;
	}
	*len = sizeof(*ss);
	if (i > NR_PORTS || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)ss, len)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static long make_seed_pair(struct fuzz_ctx *ctx, const struct pair_plan *pp)
{
	struct sockaddr_storage ss;
	struct pollfd pfd;
	socklen_t len;
	int lfd, cfd, afd;
	long err;

	lfd = listen_on(pp, &ss, &len);
	if (lfd < 0)
		return lfd;
	cfd = open_socket(pp->kind, pp->addr->family == AF_INET6, 0);
	if (cfd < 0) {
		err = -errno;
		goto close_listener;
	}
	arm_timeouts(cfd);
	set_timeout(cfd, SO_SNDTIMEO, SEED_TIMEOUT_MS);
	if (connect(cfd, (struct sockaddr *)&ss, len)) {
		err = -errno;
		goto close_client;
	}
	set_timeout(cfd, SO_SNDTIMEO, IO_TIMEOUT_MS);
	op_progress(ctx);
	pfd.fd = lfd;
	pfd.events = POLLIN;
	err = poll(&pfd, 1, SEED_TIMEOUT_MS);
	if (err <= 0) {
		err = err ? -errno : -ETIMEDOUT;
		goto close_client;
	}
	afd = accept4(lfd, NULL, NULL, 0);
	if (afd < 0) {
		err = -errno;
		goto close_client;
	}
	arm_timeouts(afd);
	/* data in flight both ways: the first reads do not wait */
	send(cfd, ctx->w->txbuf, SEED_DATA_LEN, MSG_DONTWAIT | MSG_NOSIGNAL);
	send(afd, ctx->w->txbuf, SEED_DATA_LEN, MSG_DONTWAIT | MSG_NOSIGNAL);
	slot_put(pp->slot_listen, lfd);
	slot_put(pp->slot_client, cfd);
	slot_put(pp->slot_server, afd);
	atomic_fetch_add(&pairs_seeded, 1);
	return 0;

close_client:
	close(cfd);
close_listener:
	close(lfd);
	return err;
}

static long op_seedpair(struct fuzz_ctx *ctx)
{
	struct pair_plan pp;

	plan_pair(ctx, &pp);
	op_begin(ctx, "%s %s port=%d s%d s%d s%d",
		 kind_names[pp.kind], pp.addr->text,
		 cfg.port_base + pp.port_idx, pp.slot_listen, pp.slot_client,
		 pp.slot_server);
	return make_seed_pair(ctx, &pp);
}

/* Sockets with a peer, each end of a pair counted once (cheap) */
static int count_connected_pairs(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int i, n = 0;

	for (i = 0; i < NR_SLOTS; i++) {
		len = sizeof(ss);
		if (!getpeername(atomic_load(&slots[i]),
				 (struct sockaddr *)&ss, &len))
			n++;
	}
	return n / 2;
}

/*
 * Scheduled every RESEED_EVERY ops, not drawn.  The plans are drawn
 * whether they are needed or not, so the sequence stays the seed's.
 */
static long op_reseed(struct fuzz_ctx *ctx)
{
	struct pair_plan plans[SEED_PAIRS];
	long err = 0;
	int i, have, made = 0;

	for (i = 0; i < SEED_PAIRS; i++)
		plan_pair(ctx, &plans[i]);
	op_begin(ctx, "want=%d", SEED_PAIRS);
	have = count_connected_pairs();
	for (i = 0; i < SEED_PAIRS && have + made < SEED_PAIRS; i++) {
		if (atomic_load(&stopping))
			break;
		err = make_seed_pair(ctx, &plans[i]);
		if (!err)
			made++;
		op_progress(ctx);
	}
	return made || !err ? made : err;
}

/* ------------------------------------------------------------------ */
/* Test-only op of SMC_FUZZ_SELFTEST_HANG (see smc_fuzz.c)            */

static long op_selftest(struct fuzz_ctx *ctx)
{
	long start, ret;
	sigset_t usr1;
	int i, fd = -1;

	if (cfg.selftest == SELFTEST_HANG) {
		op_begin(ctx, "hang: SIGUSR1 blocked, sleeping");
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
		for (;;)
			pause();
	}
	op_begin(ctx, "intr: recv without timeout");
	for (i = 0; i < NR_SLOTS && fd < 0; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		fd = slot_get(ctx, i);
		if (getpeername(fd, (struct sockaddr *)&ss, &len))
			fd = -1;
	}
	if (fd < 0)
		return -ENOTCONN;
	/* the seed data first, then wait for more than there is */
	while (recv(fd, ctx->w->rxbuf, BUF_LEN, MSG_DONTWAIT) > 0)
		;
	set_timeout(fd, SO_RCVTIMEO, 0);
	start = now_ms();
	ret = sysret(recv(fd, ctx->w->rxbuf, 1, 0));
	fprintf(stderr, "smc_fuzz: selftest: recv returned %ld after %ld ms\n",
		ret, now_ms() - start);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The op table: names, weights and functions                         */

const struct op_desc op_table[NR_OPS] = {
	[OP_RESEED]	= { "reseed",	  0, op_reseed },
	[OP_SEEDPAIR]	= { "seedpair",	  1, op_seedpair },
	[OP_SOCKET]	= { "socket",	  5, op_socket },
	[OP_BIND]	= { "bind",	  4, op_bind },
	[OP_LISTEN]	= { "listen",	  3, op_listen },
	[OP_CONNECT]	= { "connect",	  5, op_connect },
	[OP_ACCEPT]	= { "accept",	  4, op_accept },
	[OP_SEND]	= { "send",	  4, op_send_family },
	[OP_SENDTO]	= { "sendto",	  2, op_send_family },
	[OP_SENDMSG]	= { "sendmsg",	  4, op_send_family },
	[OP_RECV]	= { "recv",	  4, op_recv_family },
	[OP_RECVFROM]	= { "recvfrom",	  2, op_recv_family },
	[OP_RECVMSG]	= { "recvmsg",	  4, op_recv_family },
	[OP_READ]	= { "read",	  1, op_recv_family },
	[OP_WRITE]	= { "write",	  2, op_send_family },
	[OP_READV]	= { "readv",	  1, op_recv_family },
	[OP_WRITEV]	= { "writev",	  2, op_send_family },
	[OP_SPLICE_IN]	= { "splice_in",  1, op_splice },
	[OP_SPLICE_OUT]	= { "splice_out", 1, op_splice },
	[OP_SENDFILE]	= { "sendfile",	  2, op_sendfile },
	[OP_SETSOCKOPT]	= { "setsockopt", 9, op_setsockopt },
	[OP_GETSOCKOPT]	= { "getsockopt", 6, op_getsockopt },
	[OP_IOCTL]	= { "ioctl",	  4, op_ioctl },
	[OP_POLL]	= { "poll",	  3, op_poll },
	[OP_EPOLL_CTL]	= { "epoll_ctl",  3, op_epoll_ctl },
	[OP_EPOLL_WAIT]	= { "epoll_wait", 2, op_epoll_wait },
	[OP_SHUTDOWN]	= { "shutdown",	  3, op_shutdown },
	[OP_CLOSE]	= { "close",	  3, op_close },
	[OP_DUP]	= { "dup",	  2, op_dup },
	[OP_GETNAME]	= { "getname",	  3, op_getname },
	[OP_FCNTL]	= { "fcntl",	  2, op_fcntl },
	[OP_FORK]	= { "fork",	  1, op_fork },
	[OP_SELFTEST]	= { "selftest",	  0, op_selftest },
};
