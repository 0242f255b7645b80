// SPDX-License-Identifier: GPL-2.0
/*
 * Full-duplex data integrity over AF_SMC.
 *
 * Each iteration connects a pair, over IPv4 to 127.0.0.1 (or
 * SMC_TEST_ADDR4) or over IPv6 to ::1, and sends a random amount of
 * pseudo-random data (log-uniform, up to 16 MiB) in both directions at
 * once.  Writers use random chunk sizes, readers read random chunk sizes;
 * both sides hash what they wrote / read with SHA-256 and the digests and
 * lengths must match.  0-byte and 1-byte transfers and one maximum-size
 * transfer are always included.  Every connection must take the path
 * given by SMC_EXPECT_PATH / SMC_EXPECT_REASON.
 *
 * Then the DMB cases, over SMC-D whatever the environment says (the
 * smcd module parameter is turned on for them and restored after):
 * SO_RCVBUF and SO_SNDBUF are set on the client and on the listener
 * before connect() and listen(), from 1 byte to 64 MiB, with the FORCE
 * variants and once without (capped by rmem_max / wmem_max), so that
 * every DMB size class (16 KiB << 0..6, 1 MiB at most: the smallest
 * that holds half of what SO_RCVBUF reads back) is used by at least one
 * end.  After the handshake smc_diag (CONNINFO, DMBINFO) must show each
 * end's DMB of the expected class, the peer's DMB less its 32-byte
 * header as peer_rmbe_size and sndbuf_size, a non-zero alert token,
 * DMB tokens that cross (own token = the peer's peer_token) and the one
 * loopback-ism GID as own and peer GID.  SO_RCVBUF and SO_SNDBUF must
 * read back what a TCP socket reads back after the same setsockopt(),
 * or twice the own / the peer's DMB length when not set.  With the
 * loopback-ism counters in debugfs, the connection must own two more
 * DMBs and hold two more attachments while it is up, and give them
 * back after close().  The transfer lengths are random or multiples of
 * the receiving ring plus -1, 0 or 1, from 1 byte to one 64 MiB
 * full-duplex transfer.  With a net.smc.rmem sysctl, one more case
 * checks the default without SO_RCVBUF.  dmb_ring_pages: twice, 60000
 * bytes written and left unread keep their ring pages (debugfs
 * dmb_bytes; of the ring's 16, at most the 3 around the data may go)
 * past the sender's idle second, and at least 13 pages go
 * back within 8 s of the read, the data intact; the second write must
 * make its pages anew (the first may find them in a pooled DMB).  A
 * third round reads in 4 KiB pieces: the writer must hear that the
 * last of them was read too.
 * dmb_window_widens: 2.4 MB of 4 KiB ping-pong keeps both windows at
 * their first 64 KiB and makes no more than a window's pages in each
 * ring; then 16 MiB to a reader that pauses every 2 MiB widens the
 * receiver's window to the whole 1 MiB DMB, data intact, the sender's
 * SO_SNDBUF following.  dmb_window_so_rcvbuf: the same with SO_RCVBUF
 * set on the receiver keeps its window at what it asked for.
 *
 * Last the urgent-data cases, each over TCP and then over SMC-D, both
 * must pass and the readers of both must see the same: full-duplex
 * transfers of random chunks with single MSG_OOB bytes in between.  A
 * reader with SO_OOBINLINE must read the whole stream, urgent bytes
 * included (there some chunks are sent with MSG_OOB as a whole: their
 * last byte is urgent).  A reader without it must read the stream less
 * the urgent bytes, and each urgent byte with recv(MSG_OOB) on POLLPRI;
 * its writer sends the next urgent byte only when the reader has read
 * the previous one and a normal byte after it.  Then, in the same way
 * over both, a new urgent byte while the reader sits at the mark of the
 * previous one, read with MSG_OOB or not: as on TCP, the old byte must
 * not turn up in the stream.
 *
 * Environment: INTEGRITY_SEED, INTEGRITY_ITERS (20), INTEGRITY_MAX
 * (16777216), INTEGRITY_DMB=0 (leave the DMB cases out), INTEGRITY_OOB=0
 * (leave the urgent-data cases out), INTEGRITY_FAMILY=inet (use TCP,
 * no path checks, the urgent-data cases over TCP only: debugging),
 * SMC_TEST_ADDR4 (local IPv4 address, dotted-decimal, that the listeners
 * bind to and the clients connect to instead of 127.0.0.1).  With
 * SMC_EXPECT_PATH=smcr (also with INTEGRITY_FAMILY=inet) the smcd
 * parameter is not touched, the DMB cases are skipped, and so are the
 * IPv6 transfers and urgent-data cases, as SMC-Rv2 is IPv4 only; the
 * IPv4 urgent-data cases run over SMC-R.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ktap.h"
#include "sha256.h"
#include "smc_diag_util.h"
#include "smc_sock.h"
#include "smcd_util.h"
#include "sockio.h"
#include "timeutil.h"

#define CHUNK_MAX	(256 * 1024)

static int use_inet;
static int expect_smcr;		/* SMC_EXPECT_PATH=smcr */
static struct in_addr addr4;	/* 127.0.0.1 or SMC_TEST_ADDR4 */

/*
 * Socket buffer options of one connection: what the client and the
 * listener ask for (0: nothing, and with noforce without the FORCE
 * variants), the DMB size classes that follow from what they read back
 * before connect() and listen(), what a TCP socket reads back after
 * the same setsockopt() (-1: not set), and the classes seen in
 * smc_diag after the handshake (-1: none matched).
 */
struct bufopts {
	int c_rcv, c_snd, s_rcv, s_snd;
	int noforce;
	int c_class, s_class;
	int c_rcv_tcp, c_snd_tcp, s_rcv_tcp, s_snd_tcp;
	int c_seen, s_seen;
	int lo_ok;			/* lo: counters before the pair */
	struct lo_ism_stats lo;
};

/* DMB size classes some end of a DMB case was seen to use */
static unsigned int classes_seen;

/*
 * Ask for a buffer size.  The FORCE variant lifts the rmem/wmem_max cap;
 * it needs CAP_NET_ADMIN, without it the plain option is used.
 */
static void set_buf(int fd, int opt, int force, int val)
{
	if (!val)
		return;
	if (force && !setsockopt(fd, SOL_SOCKET, force, &val, sizeof(val)))
		return;
	if (setsockopt(fd, SOL_SOCKET, opt, &val, sizeof(val)))
		ktap_diag("setsockopt(%d, %d): %s", opt, val, strerror(errno));
}

static int get_buf(int fd, int opt)
{
	socklen_t l = sizeof(int);
	int val = -1;

	if (getsockopt(fd, SOL_SOCKET, opt, &val, &l))
		return -1;
	return val;
}

static void set_bufs(int fd, int rcv, int snd, int noforce)
{
	set_buf(fd, SO_RCVBUF, noforce ? 0 : SO_RCVBUFFORCE, rcv);
	set_buf(fd, SO_SNDBUF, noforce ? 0 : SO_SNDBUFFORCE, snd);
}

/* Set the options on a socket not yet connected; its DMB class */
static int apply_bufs(int fd, int rcv, int snd, int noforce)
{
	set_bufs(fd, rcv, snd, noforce);
	return smcd_class_for_rcvbuf(get_buf(fd, SO_RCVBUF));
}

/*
 * What SO_RCVBUF and SO_SNDBUF read back on a TCP socket after the
 * same setsockopt() calls (the value doubled, within the core's limits);
 * -1 for an option not set.
 */
static void tcp_bufs(int rcv, int snd, int noforce, int *rcv_tcp,
		     int *snd_tcp)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	*rcv_tcp = *snd_tcp = -1;
	if (fd < 0) {
		ktap_diag("TCP socket: %s", strerror(errno));
		return;
	}
	set_bufs(fd, rcv, snd, noforce);
	if (rcv)
		*rcv_tcp = get_buf(fd, SO_RCVBUF);
	if (snd)
		*snd_tcp = get_buf(fd, SO_SNDBUF);
	close(fd);
}

struct stream {
	int fd;
	uint64_t seed;		/* data and chunk size generator */
	uint64_t len;		/* writer: bytes to send */
	uint64_t done;		/* bytes written / read */
	uint64_t pause_every;	/* reader: pause 100 ms after each, 0: none */
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

/* n bytes of the data stream of generator @ds */
static void fill_rand(uint8_t *buf, size_t n, uint64_t *ds)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t v = xs64(ds);

		memcpy(buf + i, &v, 8);
	}
	for (; i < n; i++)
		buf[i] = xs64(ds);
}

static int send_all(int fd, const uint8_t *buf, size_t n, int flags)
{
	size_t off = 0;

	while (off < n) {
		ssize_t r = send(fd, buf + off, n - off, flags | MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		off += r;
	}
	return 0;
}

static void *writer(void *arg)
{
	struct stream *st = arg;
	uint64_t ds = st->seed | 1, cs = (st->seed ^ 0x9e3779b97f4a7c15ULL) | 1;
	uint8_t *buf = malloc(CHUNK_MAX);
	struct sha256 h;

	sha256_init(&h);
	while (st->done < st->len) {
		size_t n = 1 + xs64(&cs) % CHUNK_MAX;

		if (n > st->len - st->done)
			n = st->len - st->done;
		fill_rand(buf, n, &ds);
		sha256_update(&h, buf, n);
		st->err = send_all(st->fd, buf, n, 0);
		if (st->err)
			goto out;
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
	uint64_t cs = st->seed | 1, pause_at = st->pause_every;
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
		if (pause_at && st->done >= pause_at) {
			msleep(100);
			pause_at += st->pause_every;
		}
	}
	sha256_final(&h, st->digest);
	free(buf);
	return NULL;
}

/* A connected pair over TCP (@tcp) or SMC (smc_sock.h) */
static int make_pair_as(int tcp, int fam, int *cli, int *srv,
			struct bufopts *bo)
{
	struct sockaddr_storage ss;
	socklen_t l;
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
		a->sin_addr = addr4;
		l = sizeof(*a);
	}
	if (bo)
		bo->lo_ok = !lo_ism_read(&bo->lo);
	lfd = tcp ? socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0) :
		    smc_socket(fam, SOCK_STREAM | SOCK_CLOEXEC);
	if (lfd >= 0 && bo) {
		bo->s_class = apply_bufs(lfd, bo->s_rcv, bo->s_snd,
					 bo->noforce);
		tcp_bufs(bo->s_rcv, bo->s_snd, bo->noforce, &bo->s_rcv_tcp,
			 &bo->s_snd_tcp);
	}
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, l) ||
	    listen(lfd, 4) || getsockname(lfd, (struct sockaddr *)&ss, &l))
		goto err;
	*cli = tcp ? socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0) :
		     smc_socket(fam, SOCK_STREAM | SOCK_CLOEXEC);
	if (*cli >= 0 && bo) {
		bo->c_class = apply_bufs(*cli, bo->c_rcv, bo->c_snd,
					 bo->noforce);
		tcp_bufs(bo->c_rcv, bo->c_snd, bo->noforce, &bo->c_rcv_tcp,
			 &bo->c_snd_tcp);
	}
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

static int make_pair(int fam, int *cli, int *srv, struct bufopts *bo)
{
	return make_pair_as(use_inet, fam, cli, srv, bo);
}

static int check_paths_as(int tcp, int cli, int srv)
{
	char why[256];
	int ok = 1;

	if (tcp)
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

static int check_paths(int cli, int srv)
{
	return check_paths_as(use_inet, cli, srv);
}

/* The class of a DMB of @len bytes, or -1 */
static int class_of_len(long len)
{
	int c;

	for (c = 0; c < SMCD_TEST_DMB_CLASSES; c++)
		if (len == smcd_class_len(c))
			return c;
	return -1;
}

/* The DMB counters of loopback-ism are back to @before (5 s deadline) */
static int dmbs_back(const struct lo_ism_stats *before)
{
	struct lo_ism_stats now;
	int i;

	for (i = 0; i < 250; i++) {
		if (lo_ism_read(&now))
			break;
		if (now.dmbs_registered == before->dmbs_registered &&
		    now.dmbs_attached == before->dmbs_attached)
			return 1;
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	ktap_diag("after close: %lld DMBs registered, %lld attached; before %lld and %lld",
		  now.dmbs_registered, now.dmbs_attached,
		  before->dmbs_registered, before->dmbs_attached);
	return 0;
}

#define DMB_HDR_LEN	32	/* the CDC header in front of the ring */
#define SMCD_DIAG_EXT	(SMC_TEST_EXT_CONNINFO | SMC_TEST_EXT_DMBINFO)

/* One end with its SMC-D attributes, waiting up to 1 s for them */
static int lookup_smcd(int fd, const char *end, struct smc_sock_info *si)
{
	int i, rc = 0;

	for (i = 0; i < 50; i++) {
		rc = smc_diag_lookup_ext(fd, SMCD_DIAG_EXT, si);
		if (!rc && smc_has_conninfo(si) && smc_has_dmbinfo(si))
			return 1;
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	if (rc)
		ktap_diag("%s: not in smc_diag: %s", end, strerror(-rc));
	else
		ktap_diag("%s: CONNINFO of %d bytes, DMBINFO of %d bytes; expected 76 and %d",
			  end, si->conninfo_len, si->dmbinfo_len,
			  SMC_TEST_DMBINFO_LEN);
	return 0;
}

#define END_FMT "%s: DMB %u (class %d) token 0x%llx, alert token 0x%x, peer ring %u token 0x%llx, sndbuf %u, lgr 0x%x, gid 0x%llx; SO_RCVBUF %d SO_SNDBUF %d"

/*
 * What smc_diag says of one end of a connected SMC-D pair, against
 * the other end @p: its DMB is of @class, the peer's DMB less its
 * header is the ring it sends into, the DMB tokens cross, both GIDs
 * are the one of loopback-ism.  SO_RCVBUF and SO_SNDBUF read back what
 * TCP reads back for the same setsockopt() (@rcv_tcp, @snd_tcp), or
 * when not set, twice the own and twice the peer's DMB length.
 */
static int check_end(const char *end, int fd, const struct smc_sock_info *si,
		     const struct smc_sock_info *p, int class, int rcv_tcp,
		     int snd_tcp)
{
	const struct smc_test_conninfo *ci = &si->conn;
	const struct smc_test_dmbinfo *di = &si->dmb;
	long ring = (long)p->conn.rmbe_size - DMB_HDR_LEN;
	int rcv = get_buf(fd, SO_RCVBUF), snd = get_buf(fd, SO_SNDBUF);
	int rcv_exp = rcv_tcp >= 0 ? rcv_tcp : 2 * (int)ci->rmbe_size;
	int snd_exp = snd_tcp >= 0 ? snd_tcp : 2 * (int)p->conn.rmbe_size;
	int ok = 1;

	ktap_diag(END_FMT,
		  end, ci->rmbe_size, class_of_len(ci->rmbe_size),
		  (unsigned long long)di->token, ci->token,
		  ci->peer_rmbe_size, (unsigned long long)di->peer_token,
		  ci->sndbuf_size, di->linkid,
		  (unsigned long long)di->my_gid, rcv, snd);
	if (ci->rmbe_size != smcd_class_len(class)) {
		ktap_diag("%s: DMB of %u bytes, expected %ld (class %d)", end,
			  ci->rmbe_size, smcd_class_len(class), class);
		ok = 0;
	}
	if (!ci->token) {
		ktap_diag("%s: alert token 0", end);
		ok = 0;
	}
	if (ci->peer_rmbe_size != ring || ci->sndbuf_size != ring) {
		ktap_diag("%s: peer_rmbe_size %u, sndbuf_size %u; "
			  "the peer's DMB less its header is %ld",
			  end, ci->peer_rmbe_size, ci->sndbuf_size, ring);
		ok = 0;
	}
	if (!di->token || di->peer_token != p->dmb.token) {
		ktap_diag("%s: DMB token 0x%llx, peer token 0x%llx; "
			  "the peer's own DMB token is 0x%llx",
			  end, (unsigned long long)di->token,
			  (unsigned long long)di->peer_token,
			  (unsigned long long)p->dmb.token);
		ok = 0;
	}
	if (!di->my_gid || di->my_gid != di->peer_gid ||
	    di->my_gid_ext != di->peer_gid_ext) {
		ktap_diag("%s: gid 0x%llx/0x%llx, peer gid 0x%llx/0x%llx; "
			  "loopback-ism has one non-zero GID",
			  end, (unsigned long long)di->my_gid,
			  (unsigned long long)di->my_gid_ext,
			  (unsigned long long)di->peer_gid,
			  (unsigned long long)di->peer_gid_ext);
		ok = 0;
	}
	if (rcv != rcv_exp || snd != snd_exp) {
		ktap_diag("%s: SO_RCVBUF %d, SO_SNDBUF %d; expected %d (%s) and %d (%s)",
			  end, rcv, snd, rcv_exp,
			  rcv_tcp >= 0 ? "as TCP" : "twice the DMB", snd_exp,
			  snd_tcp >= 0 ? "as TCP" : "twice the peer's DMB");
		ok = 0;
	}
	return ok;
}

#define BOTH_ENDS_FMT "both ends: DMB tokens 0x%llx and 0x%llx must differ, GIDs 0x%llx and 0x%llx must not"

/*
 * After the SMC-D handshake: the DMB sizes, tokens and GIDs of both
 * ends from smc_diag, the buffer options as the user set them, and
 * with the debugfs counters two more DMBs registered and attached.
 */
static int check_bufs(int cli, int srv, struct bufopts *bo)
{
	struct smc_sock_info c, s;
	struct lo_ism_stats lo;
	int ok = 1;

	bo->c_seen = -1;
	bo->s_seen = -1;
	if (!lookup_smcd(cli, "client", &c) || !lookup_smcd(srv, "server", &s))
		return 0;
	bo->c_seen = class_of_len(c.conn.rmbe_size);
	bo->s_seen = class_of_len(s.conn.rmbe_size);
	if (bo->c_seen >= 0)
		classes_seen |= 1u << bo->c_seen;
	if (bo->s_seen >= 0)
		classes_seen |= 1u << bo->s_seen;
	ok &= check_end("client", cli, &c, &s, bo->c_class, bo->c_rcv_tcp,
			bo->c_snd_tcp);
	ok &= check_end("server", srv, &s, &c, bo->s_class, bo->s_rcv_tcp,
			bo->s_snd_tcp);
	if (c.dmb.token == s.dmb.token || c.dmb.my_gid != s.dmb.my_gid ||
	    c.dmb.my_gid_ext != s.dmb.my_gid_ext) {
		ktap_diag(BOTH_ENDS_FMT,
			  (unsigned long long)c.dmb.token,
			  (unsigned long long)s.dmb.token,
			  (unsigned long long)c.dmb.my_gid,
			  (unsigned long long)s.dmb.my_gid);
		ok = 0;
	}
	if (bo->lo_ok && !lo_ism_read(&lo) &&
	    (lo.dmbs_registered != bo->lo.dmbs_registered + 2 ||
	     lo.dmbs_attached != bo->lo.dmbs_attached + 2)) {
		ktap_diag("loopback-ism: %lld DMBs registered, %lld attached; "
			  "expected %lld and %lld",
			  lo.dmbs_registered, lo.dmbs_attached,
			  bo->lo.dmbs_registered + 2, bo->lo.dmbs_attached + 2);
		ok = 0;
	}
	return ok;
}

/*
 * Transfer len_ab from a to b and len_ba from b to a at the same time;
 * with @bo, set the buffer options first and check the DMB classes.
 */
static int transfer_bufs(int fam, uint64_t len_ab, uint64_t len_ba,
			 uint64_t seed, struct bufopts *bo)
{
	struct stream wa, wb, ra, rb;
	pthread_t t[4];
	int cli, srv, ok = 1;
	char h1[65], h2[65];
	struct timespec t0, t1;

	if (make_pair(fam, &cli, &srv, bo))
		return 0;
	ok &= check_paths(cli, srv);
	if (bo && !use_inet)
		ok &= check_bufs(cli, srv, bo);

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
	if (bo && bo->lo_ok && !use_inet)
		ok &= dmbs_back(&bo->lo);
	return ok;
}

static int transfer(int fam, uint64_t len_ab, uint64_t len_ba, uint64_t seed)
{
	return transfer_bufs(fam, len_ab, len_ba, seed, NULL);
}

/* A transfer and its result; over IPv6 skipped when SMC-R is expected */
static void transfer_result(int fam, uint64_t len_ab, uint64_t len_ba,
			    uint64_t seed, const char *name)
{
	if (fam == AF_INET6 && expect_smcr)
		ktap_skip(name, SMC_TEST_SKIP_V6);
	else
		ktap_result(transfer(fam, len_ab, len_ba, seed), name);
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

/* ---- DMB size classes over SMC-D ---- */

#define KIB		1024
#define MIB		(1024 * 1024)

enum dmb_sizes {
	SZ_ONE,		/* 1 byte each way */
	SZ_RING,	/* k * ring + {-1, 0, 1}, k = 1..3, each way */
	SZ_RAND,	/* log-uniform, 1 byte to 4 MiB, each way */
	SZ_64M,		/* 64 MiB each way: once per run */
};

struct dmb_case {
	const char *name;
	int c_rcv, c_snd, s_rcv, s_snd;
	enum dmb_sizes sizes;
	int noforce;	/* no SO_RCVBUFFORCE / SO_SNDBUFFORCE */
};

/*
 * Client and server classes in the names; 1 byte to 64 MiB asked for.
 * Last column: 1 to use the plain options, capped by net.core.rmem_max
 * and wmem_max.
 */
static const struct dmb_case dmb_cases[] = {
	{ "dmb_16k_16k_1_byte", 1, 1, 1, 1, SZ_ONE, 0 },
	{ "dmb_16k_32k_ring", 16 * KIB, 4 * KIB, 16 * KIB + 1, 64 * MIB,
	  SZ_RING, 0 },
	{ "dmb_32k_64k", 32 * KIB, 0, 48 * KIB, 0, SZ_RAND, 0 },
	{ "dmb_64k_128k_ring", 64 * KIB, 256 * KIB, 65 * KIB, 1, SZ_RING, 0 },
	{ "dmb_128k_256k", 128 * KIB, 0, 200 * KIB, 16 * KIB, SZ_RAND, 0 },
	{ "dmb_256k_512k_ring", 256 * KIB, MIB, 512 * KIB, 0, SZ_RING, 0 },
	{ "dmb_512k_1m", 300 * KIB, 0, MIB, MIB, SZ_RAND, 0 },
	{ "dmb_1m_16k_ring", 64 * MIB, 64 * MIB, 1, 0, SZ_RING, 0 },
	{ "dmb_default_bufs", 0, 0, 0, 0, SZ_RAND, 0 },
	{ "dmb_1m_1m_64mib_duplex", MIB, 64 * MIB, MIB, 64 * MIB, SZ_64M, 0 },
	{ "dmb_rmem_max_capped", 64 * MIB, 64 * MIB, 8 * MIB, 0, SZ_RAND, 1 },
};

#define NR_DMB_CASES	(sizeof(dmb_cases) / sizeof(dmb_cases[0]))

#define SMC_RMEM_SYSCTL	"/proc/sys/net/smc/rmem"

/* net.smc.rmem before the sysctl case changed it, for the restore */
static char rmem_saved[32];

static void rmem_restore(void)
{
	int fd;

	if (!rmem_saved[0])
		return;
	fd = open(SMC_RMEM_SYSCTL, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, rmem_saved, strlen(rmem_saved)) < 0)
		rmem_saved[0] = 0;
	close(fd);
}

static int rmem_set(const char *val)
{
	ssize_t n;
	int fd;

	fd = open(SMC_RMEM_SYSCTL, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, rmem_saved, sizeof(rmem_saved) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	rmem_saved[n] = 0;
	fd = open(SMC_RMEM_SYSCTL, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rmem_saved[0] = 0;
		return -1;
	}
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/* k * ring + {-1, 0, 1} with ring the data ring of a DMB of class c */
static uint64_t ring_len(uint64_t *s, int c)
{
	uint64_t ring = smcd_class_len(c) - DMB_HDR_LEN;

	return (1 + xs64(s) % 3) * ring + xs64(s) % 3 - 1;
}

static int dmb_case(const struct dmb_case *dc, int fam, uint64_t seed)
{
	struct bufopts bo = {
		.c_rcv = dc->c_rcv, .c_snd = dc->c_snd,
		.s_rcv = dc->s_rcv, .s_snd = dc->s_snd,
		.noforce = dc->noforce,
	};
	uint64_t s = seed | 1, ab, ba;
	int fd[2];

	switch (dc->sizes) {
	case SZ_ONE:
		ba = 1;
		ab = ba;
		break;
	case SZ_RING:
		/* the classes as make_pair() will compute them */
		fd[0] = smc_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC);
		fd[1] = smc_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC);
		if (fd[0] >= 0 && fd[1] >= 0) {
			bo.s_class = apply_bufs(fd[0], bo.s_rcv, bo.s_snd,
						bo.noforce);
			bo.c_class = apply_bufs(fd[1], bo.c_rcv, bo.c_snd,
						bo.noforce);
		}
		if (fd[0] >= 0)
			close(fd[0]);
		if (fd[1] >= 0)
			close(fd[1]);
		ab = ring_len(&s, bo.s_class);
		ba = ring_len(&s, bo.c_class);
		break;
	case SZ_64M:
		ba = 64 * MIB;
		ab = ba;
		break;
	default:
		ab = 1 + rand_size(&s, 4 * MIB - 1);
		ba = 1 + rand_size(&s, 4 * MIB - 1);
		break;
	}
	return transfer_bufs(fam, ab, ba, seed, &bo);
}

/* ---- ring pages ---- */

#define RING_FILL	60000	/* most of a 64 KiB DMB's ring */
#define RING_PAGES_MIN	(RING_FILL / 4096 - 1)	/* whole pages it covers */
#define RING_PAGES_MAX	16	/* of the ring of a 64 KiB DMB */
#define RING_TRIM_MS	8000	/* an idle second, a backoff, slack */

static long long ring_bytes(void)
{
	struct lo_ism_stats st;

	return lo_ism_read(&st) ? -1 : st.dmb_bytes;
}

#define RING_STILL_FMT "round %d: ring pages still %lld bytes (%lld with the data) %d ms after it was read"

/*
 * One round of dmb_ring_pages: RING_FILL bytes written and left unread
 * for a while, then read, @piece bytes a call.  The ring has its pages
 * with the write (made by it unless @pooled: a DMB from the pool has
 * the pages it had), keeps them while unread, and gives them back once
 * read.
 */
static int ring_pages_round(int cli, int srv, uint64_t *s, int round,
			    int pooled, size_t piece)
{
	static uint8_t out[RING_FILL], in[RING_FILL];
	long long before, held, now;
	size_t got, n;
	long t;

	fill_rand(out, sizeof(out), s);
	before = ring_bytes();
	if (send_all(cli, out, sizeof(out), 0)) {
		ktap_diag("round %d: send: %s", round, strerror(errno));
		return 0;
	}
	held = ring_bytes();
	if (!pooled && held - before < RING_PAGES_MIN * 4096LL) {
		ktap_diag("round %d: %lld bytes of ring pages for %d bytes written (before %lld)",
			  round, held - before, RING_FILL, before);
		return 0;
	}
	/*
	 * Past the first look of the trim: unread data keeps its pages,
	 * only those around it may go
	 */
	msleep(1500);
	now = ring_bytes();
	if (held - now > (RING_PAGES_MAX - RING_PAGES_MIN) * 4096LL) {
		ktap_diag("round %d: ring pages %lld -> %lld with the data unread",
			  round, held, now);
		return 0;
	}
	for (got = 0; got < sizeof(in); got += n) {
		n = sizeof(in) - got < piece ? sizeof(in) - got : piece;
		if (recv_exact(srv, in + got, n))
			break;
	}
	if (got < sizeof(in) || memcmp(in, out, sizeof(in))) {
		ktap_diag("round %d: the data read is not what was written",
			  round);
		return 0;
	}
	t = now_ms();
	while ((now = ring_bytes()) > held - RING_PAGES_MIN * 4096LL &&
	       now_ms() - t < RING_TRIM_MS)
		msleep(100);
	if (now > held - RING_PAGES_MIN * 4096LL) {
		ktap_diag(RING_STILL_FMT, round, now, held, RING_TRIM_MS);
		return 0;
	}
	ktap_diag("round %d: ring pages %lld -> %lld -> %lld bytes, back %ld ms after the read",
		  round, before, held, now, now_ms() - t);
	return 1;
}

/*
 * dmb_ring_pages: over SMC-D, a ring's pages exist while it holds data.
 * The first round's pages may come with a pooled DMB; the second
 * round's must be made again by its write.
 */
static int dmb_ring_pages_case(uint64_t seed)
{
	struct bufopts bo = { 0 };
	uint64_t s = seed | 1;
	int cli, srv, ok;

	if (ring_bytes() < 0) {
		ktap_diag("no loopback-ism counters in debugfs");
		return 0;
	}
	if (make_pair(AF_INET, &cli, &srv, &bo))
		return 0;
	ok = check_paths(cli, srv) &&
	     ring_pages_round(cli, srv, &s, 1, 1, RING_FILL) &&
	     ring_pages_round(cli, srv, &s, 2, 0, RING_FILL) &&
	     ring_pages_round(cli, srv, &s, 3, 0, 4096);
	close(cli);
	close(srv);
	return ok;
}

/* ---- the window ---- */

#define WINDOW_FIRST	(64 * KIB)	/* the default DMB's window */
#define WINDOW_TOP	MIB		/* the largest DMB */
#define PINGPONG_MSG	4096
#define PINGPONG_ROUNDS	600		/* 2.4 MB each way: past 2 rings */
#define WIDEN_BULK	(16 * MIB)
#define WIDEN_PAUSE	(2 * MIB)	/* the reader pauses after each */

/* What smc_diag says of @fd's window and its peer's */
static int windows_of(int fd, const char *end, unsigned int *own,
		      unsigned int *peer)
{
	struct smc_sock_info si;

	if (!lookup_smcd(fd, end, &si))
		return 0;
	*own = si.conn.rmbe_size;
	*peer = si.conn.peer_rmbe_size;
	return 1;
}

/* 4 KiB requests and replies: neither window ever fills */
static int window_pingpong(int cli, int srv, uint64_t *s)
{
	static uint8_t out[PINGPONG_MSG], in[PINGPONG_MSG];
	int i;

	for (i = 0; i < PINGPONG_ROUNDS; i++) {
		fill_rand(out, sizeof(out), s);
		if (send_all(cli, out, sizeof(out), 0) ||
		    recv_exact(srv, in, sizeof(in)) ||
		    memcmp(in, out, sizeof(in)) ||
		    send_all(srv, in, sizeof(in), 0) ||
		    recv_exact(cli, in, sizeof(in)) ||
		    memcmp(in, out, sizeof(in))) {
			ktap_diag("ping-pong round %d: %s", i,
				  errno ? strerror(errno) : "data differs");
			return 0;
		}
	}
	return 1;
}

/*
 * WIDEN_BULK from client to server through a reader that pauses after
 * every WIDEN_PAUSE bytes, so that the writer finds the window full
 * again and again; the data must arrive intact.
 */
static int window_bulk(int cli, int srv, uint64_t seed)
{
	struct stream w = { .fd = cli, .seed = seed, .len = WIDEN_BULK };
	struct stream r = { .fd = srv, .seed = seed + 1,
			    .pause_every = WIDEN_PAUSE };
	pthread_t t;

	if (pthread_create(&t, NULL, writer, &w))
		return 0;
	reader(&r);
	pthread_join(t, NULL);
	if (w.err || r.err || r.done != WIDEN_BULK ||
	    memcmp(r.digest, w.digest, 32)) {
		ktap_diag("bulk: %llu of %d bytes read, writer %s, reader %s, %s",
			  (unsigned long long)r.done, WIDEN_BULK,
			  w.err ? strerror(w.err) : "ok",
			  r.err ? strerror(r.err) : "ok",
			  memcmp(r.digest, w.digest, 32) ? "data differs" :
			  "data intact");
		return 0;
	}
	return 1;
}

/*
 * dmb_window: over SMC-D with default buffers, a connection starts with
 * the window net.smc.rmem gives, and keeps it while it never fills it:
 * 2.4 MB of ping-pong, through rings of 1 MiB, makes no more than a
 * window's pages in each (debugfs dmb_bytes).  A bulk writer that keeps
 * finding the window full widens it to the whole DMB, the data intact,
 * SO_SNDBUF following.  With SO_RCVBUF set on the receiver (@locked)
 * the window stays what the application asked for.
 */
static int dmb_window_case(uint64_t seed, int locked)
{
	struct bufopts bo = { .s_rcv = locked ? WINDOW_FIRST : 0 };
	unsigned int own, peer, cown, cpeer, top;
	long long before, after;
	uint64_t s = seed | 1;
	int cli, srv, ok = 0;

	if (make_pair(AF_INET, &cli, &srv, &bo))
		return 0;
	if (!check_paths(cli, srv))
		goto out;
	before = ring_bytes();
	if (!window_pingpong(cli, srv, &s))
		goto out;
	after = ring_bytes();
	if (!windows_of(srv, "server", &own, &peer))
		goto out;
	ktap_diag("ping-pong: windows %u and %u, ring pages %lld -> %lld bytes",
		  own, peer, before, after);
	if (own != WINDOW_FIRST || peer != WINDOW_FIRST - DMB_HDR_LEN) {
		ktap_diag("the windows grew without ever being full");
		goto out;
	}
	if (after - before > 2 * WINDOW_FIRST) {
		ktap_diag("%lld bytes of ring pages for two windows of %d",
			  after - before, WINDOW_FIRST);
		goto out;
	}
	if (!window_bulk(cli, srv, seed + 1) ||
	    !windows_of(srv, "server", &own, &peer) ||
	    !windows_of(cli, "client", &cown, &cpeer))
		goto out;
	top = locked ? WINDOW_FIRST : WINDOW_TOP;
	ktap_diag("after %d bytes: server window %u, client's view %u, SO_SNDBUF %d",
		  WIDEN_BULK, own, cpeer, get_buf(cli, SO_SNDBUF));
	if (own != top || cpeer != top - DMB_HDR_LEN) {
		ktap_diag("expected a window of %u", top);
		goto out;
	}
	if (!locked && get_buf(cli, SO_SNDBUF) != 2 * WINDOW_TOP) {
		ktap_diag("SO_SNDBUF did not follow the window");
		goto out;
	}
	ok = 1;
out:
	close(cli);
	close(srv);
	return ok;
}

/* The DMB cases; they count NR_DMB_CASES + 5 results */
static void dmb_cases_run(uint64_t seed)
{
	struct bufopts bo = { 0 };
	unsigned int i;

	for (i = 0; i < NR_DMB_CASES; i++)
		ktap_result(dmb_case(&dmb_cases[i],
				     (i & 1) ? AF_INET6 : AF_INET,
				     seed + 1000 + i),
			    dmb_cases[i].name);
	ktap_diag("DMB classes used: 0x%02x", classes_seen);
	ktap_result(classes_seen == (1u << SMCD_TEST_DMB_CLASSES) - 1,
		    "dmb_all_classes_used");

	/* net.smc.rmem: the DMB size without SO_RCVBUF */
	if (rmem_set("262144")) {
		ktap_skip("dmb_sysctl_rmem", "no writable net.smc.rmem");
	} else {
		ktap_result(transfer_bufs(AF_INET, 300 * KIB, 5 * MIB,
					  seed + 2000, &bo),
			    "dmb_sysctl_rmem");
		rmem_restore();
	}
	ktap_result(dmb_ring_pages_case(seed + 2500), "dmb_ring_pages");
	ktap_result(dmb_window_case(seed + 2600, 0), "dmb_window_widens");
	ktap_result(dmb_window_case(seed + 2700, 1), "dmb_window_so_rcvbuf");
}

/* ---- urgent data ---- */

#define OOB_CHUNK_MAX	(128 * 1024)
#define OOB_WAIT_MS	10000
#define OOB_IDLE_MAX	100000	/* polls in a row that read nothing */
#define OOB_URG_KEEP	4096	/* urgent bytes kept for a diagnosis */

/*
 * One direction of an urgent-data transfer.  The writer sends random
 * chunks of the data stream and after about a third of them one
 * random byte with MSG_OOB.  The reader polls for POLLIN and POLLPRI
 * and reads with MSG_DONTWAIT, so that it never sleeps in recv() in
 * front of an urgent mark.  With SO_OOBINLINE (@inl) every byte is in
 * the stream.  Without it the normal bytes are, and the urgent ones are
 * read with recv(MSG_OOB) on POLLPRI; as TCP keeps a single urgent
 * byte, the writer sends the next one only after the reader has read
 * the previous one and a normal byte after it (rx_urg, rx_normal).
 */
struct oob_dir {
	int wfd, rfd, inl;
	uint64_t seed, len;	/* len: normal bytes to write */
	/* writer: what the reader must see */
	uint64_t w_bytes;
	unsigned int w_urg;
	uint8_t w_stream[32], w_urgd[32];
	uint8_t w_urgv[OOB_URG_KEEP];
	int w_err;
	const char *w_why;
	/* reader: what it saw */
	uint64_t r_bytes;
	unsigned int r_urg;
	uint8_t r_stream[32], r_urgd[32];
	uint8_t r_urgv[OOB_URG_KEEP];
	int r_err;
	const char *r_why;
	/* the side channel of the reader to the writer */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t rx_normal;
	unsigned int rx_urg;
	int stop;
};

/* Reader: @normal more bytes of the stream and @urg more urgent bytes */
static void oob_report(struct oob_dir *d, uint64_t normal, unsigned int urg)
{
	pthread_mutex_lock(&d->lock);
	d->rx_normal += normal;
	d->rx_urg += urg;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/* A failed end stops everything: the other threads see an error/EOF */
static void oob_stop(struct oob_dir *d)
{
	pthread_mutex_lock(&d->lock);
	d->stop = 1;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
	shutdown(d->wfd, SHUT_RDWR);
	shutdown(d->rfd, SHUT_RDWR);
}

/*
 * Writer: wait until the reader has read @k urgent bytes and more
 * than @mark normal bytes; 0 or an errno.
 */
static int oob_wait(struct oob_dir *d, unsigned int k, uint64_t mark)
{
	struct timespec dl;
	int rc = 0, stop;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += OOB_WAIT_MS / 1000;
	pthread_mutex_lock(&d->lock);
	while (!d->stop && !rc && (d->rx_urg < k || d->rx_normal <= mark))
		rc = pthread_cond_timedwait(&d->cond, &d->lock, &dl);
	if (!d->stop && d->rx_urg >= k && d->rx_normal > mark)
		rc = 0;
	stop = d->stop;
	pthread_mutex_unlock(&d->lock);
	return stop ? ECANCELED : rc;
}

static void *oob_writer(void *arg)
{
	struct oob_dir *d = arg;
	uint64_t ds = d->seed | 1, cs = (d->seed ^ 0x9e3779b97f4a7c15ULL) | 1;
	uint8_t *buf = malloc(OOB_CHUNK_MAX);
	uint64_t sent = 0, mark = 0;
	struct sha256 hs, hu;
	unsigned int k = 0;
	size_t n;
	int tail;

	sha256_init(&hs);
	sha256_init(&hu);
	while (sent < d->len) {
		n = 1 + rand_size(&cs, OOB_CHUNK_MAX - 1);
		if (n > d->len - sent)
			n = d->len - sent;
		/*
		 * With OOBINLINE, some chunks end with their urgent byte.
		 * Not without: TCP marks the last byte of every push of
		 * a send() that waits for room as urgent.
		 */
		tail = d->inl && n > 1 && !(xs64(&cs) % 5);
		fill_rand(buf, n, &ds);
		sha256_update(&hs, buf, n);
		d->w_bytes += n;
		if (tail)
			sha256_update(&hu, buf + n - 1, 1);
		d->w_err = send_all(d->wfd, buf, n, tail ? MSG_OOB : 0);
		if (d->w_err) {
			d->w_why = tail ? "send(MSG_OOB) of a chunk" : "send";
			goto out;
		}
		sent += n;
		k += tail;
		if (tail || xs64(&cs) % 3)
			continue;
		/* one urgent byte alone; not counted in len */
		buf[0] = xs64(&ds);
		if (!d->inl && k) {
			d->w_err = oob_wait(d, k, mark);
			if (d->w_err) {
				d->w_why = "waiting for the reader";
				goto out;
			}
		}
		d->w_err = send_all(d->wfd, buf, 1, MSG_OOB);
		if (d->w_err) {
			d->w_why = "send(MSG_OOB)";
			goto out;
		}
		if (d->inl) {
			sha256_update(&hs, buf, 1);
			d->w_bytes++;
		}
		sha256_update(&hu, buf, 1);
		if (k < OOB_URG_KEEP)
			d->w_urgv[k] = buf[0];
		k++;
		mark = sent;
	}
	if (shutdown(d->wfd, SHUT_WR)) {
		d->w_err = errno;
		d->w_why = "shutdown";
	}
out:
	if (d->w_err)
		oob_stop(d);
	d->w_urg = k;
	sha256_final(&hs, d->w_stream);
	sha256_final(&hu, d->w_urgd);
	free(buf);
	return NULL;
}

static void *oob_reader(void *arg)
{
	struct oob_dir *d = arg;
	uint64_t cs = (d->seed * 3 + 7) | 1;
	uint8_t *buf = malloc(OOB_CHUNK_MAX);
	unsigned int idle = 0;
	struct sha256 hs, hu;
	ssize_t r;
	uint8_t b;

	sha256_init(&hs);
	sha256_init(&hu);
	for (;;) {
		struct pollfd p = { .fd = d->rfd, .events = POLLIN | POLLPRI };
		int n = poll(&p, 1, OOB_WAIT_MS), progress = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			d->r_err = n ? errno : ETIMEDOUT;
			d->r_why = "poll";
			break;
		}
		if (!d->inl && (p.revents & POLLPRI)) {
			r = recv(d->rfd, &b, 1, MSG_OOB | MSG_DONTWAIT);
			if (r == 1) {
				sha256_update(&hu, &b, 1);
				if (d->r_urg < OOB_URG_KEEP)
					d->r_urgv[d->r_urg] = b;
				d->r_urg++;
				oob_report(d, 0, 1);
				progress = 1;
			} else if (r < 0 && errno != EINVAL &&
				   errno != EAGAIN && errno != EINTR) {
				d->r_err = errno;
				d->r_why = "recv(MSG_OOB)";
				break;
			}
		}
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			n = 1 + rand_size(&cs, OOB_CHUNK_MAX - 1);
			r = recv(d->rfd, buf, n, MSG_DONTWAIT);
			if (r == 0)
				break;
			if (r > 0) {
				sha256_update(&hs, buf, r);
				d->r_bytes += r;
				oob_report(d, r, 0);
				progress = 1;
			} else if (errno != EAGAIN && errno != EINTR) {
				d->r_err = errno;
				d->r_why = "recv";
				break;
			}
		}
		idle = progress ? 0 : idle + 1;
		if (idle > OOB_IDLE_MAX) {
			d->r_err = EBUSY;
			d->r_why = "poll ready but nothing to read";
			break;
		}
	}
	if (d->r_err)
		oob_stop(d);
	sha256_final(&hs, d->r_stream);
	sha256_final(&hu, d->r_urgd);
	free(buf);
	return NULL;
}

/* What the readers of both directions saw */
struct oob_result {
	uint64_t bytes[2];
	unsigned int urg[2];
	uint8_t stream[2][32];
	uint8_t urgd[2][32];
};

/* The first urgent byte read that is not the one sent, and its neighbours */
static void oob_urg_diff(const char *dir, const struct oob_dir *d)
{
	unsigned int i, n = d->w_urg < d->r_urg ? d->w_urg : d->r_urg;

	if (n > OOB_URG_KEEP)
		n = OOB_URG_KEEP;
	for (i = 0; i < n && d->w_urgv[i] == d->r_urgv[i]; i++)
		;
	if (i == n)
		return;
	ktap_diag("%s: urgent byte %u: sent %02x, read %02x; "
		  "sent before %02x after %02x, read after %02x",
		  dir, i, d->w_urgv[i], d->r_urgv[i],
		  i ? d->w_urgv[i - 1] : 0, i + 1 < n ? d->w_urgv[i + 1] : 0,
		  i + 1 < n ? d->r_urgv[i + 1] : 0);
}

static int oob_dir_check(const struct oob_dir *d, const char *dir)
{
	char h1[65], h2[65];
	int ok = 1;

	if (d->w_err || d->r_err) {
		ktap_diag("%s: writer: %s (%s), reader: %s (%s)", dir,
			  strerror(d->w_err), d->w_why ? d->w_why : "-",
			  strerror(d->r_err), d->r_why ? d->r_why : "-");
		ok = 0;
	}
	if (d->w_bytes != d->r_bytes || memcmp(d->w_stream, d->r_stream, 32)) {
		sha256_hex(d->w_stream, h1);
		sha256_hex(d->r_stream, h2);
		ktap_diag("%s: stream sent %llu %s, received %llu %s", dir,
			  (unsigned long long)d->w_bytes, h1,
			  (unsigned long long)d->r_bytes, h2);
		ok = 0;
	}
	if (!d->inl && (d->w_urg != d->r_urg ||
			memcmp(d->w_urgd, d->r_urgd, 32))) {
		sha256_hex(d->w_urgd, h1);
		sha256_hex(d->r_urgd, h2);
		ktap_diag("%s: urgent bytes sent %u %s, read with MSG_OOB %u %s",
			  dir, d->w_urg, h1, d->r_urg, h2);
		oob_urg_diff(dir, d);
		ok = 0;
	}
	return ok;
}

/* Whether the server (a->b) and the client (b->a) read OOBINLINE */
struct oob_case {
	const char *name;
	int fam, inl_ab, inl_ba;
};

static const struct oob_case oob_cases[] = {
	{ "oob_inline_duplex_v4", AF_INET, 1, 1 },
	{ "oob_inline_duplex_v6", AF_INET6, 1, 1 },
	{ "oob_separate_duplex_v4", AF_INET, 0, 0 },
	{ "oob_separate_duplex_v6", AF_INET6, 0, 0 },
	{ "oob_inline_and_separate_v4", AF_INET, 1, 0 },
	{ "oob_separate_and_inline_v6", AF_INET6, 0, 1 },
};

#define NR_OOB_CASES	(sizeof(oob_cases) / sizeof(oob_cases[0]))

static int set_oobinline(int fd)
{
	int one = 1;

	if (!setsockopt(fd, SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one)))
		return 1;
	ktap_diag("SO_OOBINLINE: %s", strerror(errno));
	return 0;
}

/*
 * One full-duplex urgent-data transfer over TCP (@tcp) or AF_SMC of
 * len_ab and len_ba bytes of chunks, the server (@oc->inl_ab) and the
 * client (@oc->inl_ba) reading with or without SO_OOBINLINE; what the
 * readers saw in @res.
 */
static int oob_run(int tcp, const struct oob_case *oc, uint64_t len_ab,
		   uint64_t len_ba, uint64_t seed, struct oob_result *res)
{
	struct oob_dir d[2];
	struct timespec t0, t1;
	int cli, srv, ok = 1, i;
	pthread_t t[4];

	memset(res, 0, sizeof(*res));
	if (make_pair_as(tcp, oc->fam, &cli, &srv, NULL))
		return 0;
	ok &= check_paths_as(tcp, cli, srv);
	if (oc->inl_ab)
		ok &= set_oobinline(srv);
	if (oc->inl_ba)
		ok &= set_oobinline(cli);
	memset(d, 0, sizeof(d));
	for (i = 0; i < 2; i++) {
		d[i].wfd = i ? srv : cli;
		d[i].rfd = i ? cli : srv;
		d[i].inl = i ? oc->inl_ba : oc->inl_ab;
		d[i].seed = seed * 2 + 1 + i;
		d[i].len = i ? len_ba : len_ab;
		pthread_mutex_init(&d[i].lock, NULL);
		pthread_cond_init(&d[i].cond, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 2; i++) {
		pthread_create(&t[2 * i], NULL, oob_reader, &d[i]);
		pthread_create(&t[2 * i + 1], NULL, oob_writer, &d[i]);
	}
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	ok &= oob_dir_check(&d[0], "a->b");
	ok &= oob_dir_check(&d[1], "b->a");
	for (i = 0; i < 2; i++) {
		res->bytes[i] = d[i].r_bytes;
		res->urg[i] = d[i].r_urg;
		memcpy(res->stream[i], d[i].r_stream, 32);
		memcpy(res->urgd[i], d[i].r_urgd, 32);
		pthread_mutex_destroy(&d[i].lock);
		pthread_cond_destroy(&d[i].cond);
	}
	ktap_diag("%s %s: a->b %llu bytes, %u urgent%s; b->a %llu bytes, %u urgent%s; %.2f s",
		  tcp ? "TCP" : "SMC", oc->fam == AF_INET6 ? "v6" : "v4",
		  (unsigned long long)d[0].w_bytes, d[0].w_urg,
		  oc->inl_ab ? " inline" : "",
		  (unsigned long long)d[1].w_bytes, d[1].w_urg,
		  oc->inl_ba ? " inline" : "",
		  (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	close(cli);
	close(srv);
	return ok;
}

/*
 * An urgent-data case over TCP and, unless INTEGRITY_FAMILY=inet, over
 * AF_SMC (SMC-D): both must pass and the readers see the same.
 */
static int oob_case(const struct oob_case *oc, uint64_t seed)
{
	uint64_t s = seed | 1, ab, ba;
	struct oob_result rt, rs;
	int ok;

	ab = 3 * MIB + rand_size(&s, 5 * MIB);
	ba = 3 * MIB + rand_size(&s, 5 * MIB);
	ok = oob_run(1, oc, ab, ba, seed, &rt);
	if (use_inet)
		return ok;
	/*
	 * TCP, the reference, has been seen to hand a reader another
	 * urgent byte than the one sent, about once in a few hundred
	 * runs: a TCP failure gets one more run before it counts.
	 */
	if (!ok) {
		ktap_diag("the TCP reference run failed: once more");
		ok = oob_run(1, oc, ab, ba, seed, &rt);
	}
	ok &= oob_run(0, oc, ab, ba, seed, &rs);
	if (memcmp(&rt, &rs, sizeof(rt))) {
		ktap_diag("AF_SMC readers saw other data than the TCP readers");
		for (int i = 0; i < 2; i++)
			ktap_diag("dir %d: bytes %llu/%llu urg %u/%u stream %d urgd %d",
				  i, (unsigned long long)rt.bytes[i],
				  (unsigned long long)rs.bytes[i], rt.urg[i],
				  rs.urg[i],
				  !memcmp(rt.stream[i], rs.stream[i], 32),
				  !memcmp(rt.urgd[i], rs.urgd[i], 32));
		ok = 0;
	}
	return ok;
}

/* Append what one recv() returned to a transcript */
static void oob_note(char *out, size_t len, const char *what, int fd,
		     int flags)
{
	size_t l = strlen(out);
	char b[32];
	ssize_t r;

	r = recv(fd, b, sizeof(b) - 1, flags | MSG_DONTWAIT);
	if (r >= 0) {
		b[r] = 0;
		snprintf(out + l, len - l, " %s \"%s\"", what, b);
	} else {
		snprintf(out + l, len - l, " %s %s", what, strerror(errno));
	}
}

/* 0 when poll() saw one of @events in time */
static int oob_poll(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, 5000) == 1 && (p.revents & events) ? 0 : -1;
}

/*
 * A new urgent byte while the reader sits at the mark of the previous
 * one, its normal read having stopped in front of it.  TCP steps over
 * the old byte then (tcp_check_urg()), whether it was read with
 * MSG_OOB (@read_first) or not: it is never read as normal data.  What
 * the reader gets goes to the transcript @out.
 */
static int oob_at_mark(int tcp, int read_first, char *out, size_t len)
{
	int cli, srv, ok = 1, mark = -1;
	size_t l;

	snprintf(out, len, "%s", read_first ? "read first:" : "unread:");
	if (make_pair_as(tcp, AF_INET, &cli, &srv, NULL))
		return 0;
	ok &= check_paths_as(tcp, cli, srv);
	if (send(cli, "ab", 2, 0) != 2 || send(cli, "X", 1, MSG_OOB) != 1 ||
	    oob_poll(srv, POLLPRI)) {
		ktap_diag("first urgent byte: %s", strerror(errno));
		ok = 0;
		goto out;
	}
	if (read_first)
		oob_note(out, len, "oob", srv, MSG_OOB);
	oob_note(out, len, "normal", srv, 0);
	ioctl(srv, SIOCATMARK, &mark);
	l = strlen(out);
	snprintf(out + l, len - l, " atmark %d", mark);
	if (send(cli, "cd", 2, 0) != 2 || send(cli, "Y", 1, MSG_OOB) != 1 ||
	    send(cli, "ef", 2, 0) != 2 || shutdown(cli, SHUT_WR) ||
	    oob_poll(srv, POLLRDHUP)) {
		ktap_diag("second urgent byte: %s", strerror(errno));
		ok = 0;
		goto out;
	}
	while (strlen(out) < len - 64) {
		struct pollfd p = { .fd = srv, .events = POLLIN | POLLPRI };

		if (poll(&p, 1, 5000) != 1) {
			ktap_diag("poll: stalled");
			ok = 0;
			break;
		}
		if (p.revents & POLLPRI)
			oob_note(out, len, "oob", srv, MSG_OOB);
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		l = strlen(out);
		oob_note(out, len, "normal", srv, 0);
		if (strstr(out + l, "\"\""))
			break;
	}
out:
	close(cli);
	close(srv);
	return ok;
}

static int oob_at_mark_case(void)
{
	char t[2][256], s[2][256];
	int ok = 1, i;

	for (i = 0; i < 2; i++) {
		ok &= oob_at_mark(1, i, t[i], sizeof(t[i]));
		ktap_diag("TCP %s", t[i]);
		if (use_inet)
			continue;
		ok &= oob_at_mark(0, i, s[i], sizeof(s[i]));
		ktap_diag("SMC %s", s[i]);
		if (strcmp(t[i], s[i])) {
			ktap_diag("AF_SMC reads other data than TCP");
			ok = 0;
		}
	}
	return ok;
}

static void oob_cases_run(uint64_t seed)
{
	unsigned int i;

	for (i = 0; i < NR_OOB_CASES; i++) {
		if (oob_cases[i].fam == AF_INET6 && expect_smcr)
			ktap_skip(oob_cases[i].name, SMC_TEST_SKIP_V6);
		else
			ktap_result(oob_case(&oob_cases[i], seed + 3000 + i),
				    oob_cases[i].name);
	}
	ktap_result(oob_at_mark_case(), "oob_new_urgent_at_mark");
}

/* Skip the DMB cases (@dmb) and the urgent-data cases (@oob) */
static void smcd_cases_skip(int dmb, int oob, const char *why)
{
	unsigned int i;

	for (i = 0; dmb && i < NR_DMB_CASES; i++)
		ktap_skip(dmb_cases[i].name, why);
	if (dmb) {
		ktap_skip("dmb_all_classes_used", why);
		ktap_skip("dmb_sysctl_rmem", why);
		ktap_skip("dmb_ring_pages", why);
		ktap_skip("dmb_window_widens", why);
		ktap_skip("dmb_window_so_rcvbuf", why);
	}
	for (i = 0; oob && i < NR_OOB_CASES; i++)
		ktap_skip(oob_cases[i].name, why);
	if (oob)
		ktap_skip("oob_new_urgent_at_mark", why);
}

/*
 * The DMB and urgent-data cases over SMC-D: the smcd parameter on and
 * SMC_EXPECT_PATH=smcd while they run.  With INTEGRITY_FAMILY=inet only
 * the urgent-data cases run, over TCP.  With SMC_EXPECT_PATH=smcr the
 * smcd parameter is left alone: no DMB cases, and the urgent-data cases
 * over IPv4 run over SMC-R.
 */
static void smcd_cases_run(uint64_t seed, int dmb, int oob)
{
	char *old = getenv("SMC_EXPECT_PATH");

	if (expect_smcr) {
		smcd_cases_skip(dmb, 0, SMC_TEST_SKIP_SMCD);
		if (oob)
			oob_cases_run(seed);
		return;
	}
	if (use_inet) {
		if (oob)
			oob_cases_run(seed);
		return;
	}
	if (smcd_param_set(1)) {
		smcd_cases_skip(dmb, oob, "no smcd module parameter");
		return;
	}
	if (old)
		old = strdup(old);
	setenv("SMC_EXPECT_PATH", "smcd", 1);
	if (dmb)
		dmb_cases_run(seed);
	if (oob)
		oob_cases_run(seed);
	smcd_param_restore();
	if (old)
		setenv("SMC_EXPECT_PATH", old, 1);
	else
		unsetenv("SMC_EXPECT_PATH");
	free(old);
}

static void on_term(int sig)
{
	(void)sig;
	smcd_param_restore();
	rmem_restore();
	_exit(KSFT_FAIL);
}

static void on_alarm(int sig)
{
	static const char msg[] = "# integrity: global timeout, giving up\n";

	(void)sig;
	smcd_param_restore();
	rmem_restore();
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
	char name[64], ip[INET_ADDRSTRLEN];
	const char *f = getenv("INTEGRITY_FAMILY");
	unsigned int i;
	int dmb, oob;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	use_inet = f && !strcmp(f, "inet");
	if (smc_test_addr4(&addr4))
		ktap_fail_all("invalid SMC_TEST_ADDR4");
	expect_smcr = smc_expect_smcr();
	seed = env_u64("INTEGRITY_SEED", (uint64_t)time(NULL) ^ getpid());
	iters = env_u64("INTEGRITY_ITERS", 20);
	max = env_u64("INTEGRITY_MAX", 16 << 20);
	dmb = !use_inet && env_u64("INTEGRITY_DMB", 1);
	oob = env_u64("INTEGRITY_OOB", 1);
	if (!use_inet)
		smc_socket_require();
	signal(SIGALRM, on_alarm);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	alarm(env_u64("INTEGRITY_TIMEOUT", 360));

	ktap_header(iters + 4 + (dmb ? NR_DMB_CASES + 5 : 0) +
		    (oob ? NR_OOB_CASES + 1 : 0));
	ktap_diag("seed %llu (rerun with INTEGRITY_SEED=%llu), %llu iterations, max %llu bytes%s",
		  (unsigned long long)seed, (unsigned long long)seed,
		  (unsigned long long)iters, (unsigned long long)max,
		  use_inet ? ", TCP sockets (INTEGRITY_FAMILY=inet)" : "");
	ktap_diag("IPv4 address: %s%s",
		  inet_ntop(AF_INET, &addr4, ip, sizeof(ip)),
		  expect_smcr ? "; SMC-R: no IPv6, no DMB cases" : "");

	transfer_result(AF_INET, 0, 0, seed, "zero_bytes");
	transfer_result(AF_INET, 1, 1, seed + 1, "one_byte");
	transfer_result(AF_INET6, 1, 0, seed + 2, "one_byte_one_way_v6");
	transfer_result(AF_INET, max, max, seed + 3, "max_size_duplex");
	s = seed | 1;
	for (i = 0; i < iters; i++) {
		int fam = (i & 1) ? AF_INET6 : AF_INET;

		a = rand_size(&s, max);
		b = rand_size(&s, max);
		snprintf(name, sizeof(name), "iteration_%02u_%s", i + 1,
			 fam == AF_INET6 ? "v6" : "v4");
		transfer_result(fam, a, b, seed + 100 + i, name);
	}
	if (dmb || oob)
		smcd_cases_run(seed, dmb, oob);
	ktap_finish();
}
