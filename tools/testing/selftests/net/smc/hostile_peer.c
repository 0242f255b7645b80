// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_peer - a plain TCP peer that claims SMC capability.
 *
 * A cgroup-v2 sock_ops BPF program (assembled by hand below, no clang
 * or libbpf needed) writes the SMC experimental TCP option into the SYN
 * and SYN-ACK of every TCP socket created inside a private cgroup.  The
 * AF_SMC sockets under test are created outside that cgroup, so the
 * kernel treats our plain TCP sockets as SMC peers and runs the CLC
 * handshake with them, whatever bytes we send.
 *
 *   hostile_peer suite
 *	KTAP suite: malformed CLC messages against an AF_SMC listener
 *	(client cases), malformed or declining answers to an AF_SMC
 *	client (server cases), then a normal SMC-D connection and leak
 *	checks.  Needs root and the smc and smc_diag modules with the
 *	module parameter smcd=1 (hostile.sh sets it).
 *
 *   hostile_peer decline-server PORT CODE
 *	Listen on 127.0.0.1:PORT, answer the Proposal of one client with
 *	a Decline carrying CODE, then echo the byte stream until EOF.
 *	Prints "ready" once listening and "proposal ok ..." / "decline
 *	sent" on stdout.  Exit 0 on success, 1 on error, 4 if BPF or
 *	cgroup v2 is unavailable.
 *
 *   hostile_peer smcr-accept-server ADDR PORT CASE
 *	Listen on the IPv4 ADDR:PORT, check that the Proposal of one
 *	client offers SMC-Rv2, answer it with the SMC-Rv2 Accept of CASE
 *	(bigrmb, noconfirm, reuse or maxconn, see ra_cases[]), report the
 *	Confirm and Decline the client sends within 10 s each, then echo
 *	the byte stream of the fallen back connection until EOF.  Prints
 *	"ready PORT", "proposal ok: ...", "accept sent: ...", then one
 *	line per CLC message ("confirm len N first-contact X", "decline
 *	0xCODE") and "done".  Exit codes as for decline-server.
 *
 *   hostile_peer smcr-reuse-client ADDR PORT GID [TOKEN]
 *	Connect to the AF_SMC listener on ADDR:PORT, propose SMC-Rv2 with
 *	the RoCE GID of a host that has a link group with the server
 *	already (GID as an IPv6 address, e.g. ::ffff:198.51.100.1), and
 *	answer the server's Accept, which must reuse that group, with a
 *	Confirm naming a QP the group does not have.  The server cannot
 *	take the connection after the Confirm: it must not Decline (the
 *	client would run SMC-R already) but drop the connection.  The
 *	Confirm's alert token is TOKEN (default 0x7777).  Prints
 *	"accept first-contact X ...", then "decline 0xCODE" or "closed";
 *	exit 0 when the server closed without a Decline.  With
 *	SMC_HOSTILE_SRC set, the connection comes from that IPv4 address
 *	instead of the host's own choice.
 *
 *   hostile_peer smcr-hold-server ADDR PORT N
 *	Listen with AF_SMC on the IPv4 ADDR:PORT, print "ready PORT", take
 *	N connections, check that each runs SMC-R and close it at once, as
 *	an application that is done with its peer.  Prints "closed N";
 *	exit 0 when all N ran SMC-R.
 *
 *   hostile_peer smcr-hold-client ADDR PORT N FILE
 *	The peer that never says it is done: make N AF_SMC connections to
 *	ADDR:PORT, each over SMC-R, read each until the server's close,
 *	then create FILE and keep every socket open (its end never sends
 *	a close flag; its link still answers TEST LINK) until FILE is
 *	removed, at most 600 s.  Prints "held N"; exit 0 when all N ran
 *	SMC-R and saw the server's close.
 *
 *   hostile_peer mutate SEED SECONDS [PORTBASE]
 *	Valid CLC messages, mutated, against AF_SMC over SMC-D for
 *	SECONDS: see hostile_mutate.c.
 *
 * The pieces the modes share are in hostile_clc.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "hostile_clc.h"
#include "ktap.h"
#include "smc_diag_util.h"
#include "timeutil.h"

/* ------------------------------------------------------------------ */
/* the AF_SMC side */

static int smc_listen_fd;
static uint16_t smc_port;

/* Take a connection off the AF_SMC listener if one arrives within ms */
static int app_accept(int ms)
{
	struct pollfd pfd = { .fd = smc_listen_fd, .events = POLLIN };
	int fd;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	fd = accept4(smc_listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		set_timeouts(fd, QUICK_MS);
	return fd;
}

/* sock_diag view of fd, waiting up to 1 s for the handshake to settle */
static int diag_fd_ext(int fd, unsigned int ext, struct smc_sock_info *si)
{
	int i, rc = -1;

	for (i = 0; i < 50; i++) {
		rc = smc_diag_lookup_ext(fd, ext, si);
		if (!rc && si->state != SMC_TEST_INIT)
			return 0;
		msleep(20);
	}
	return rc;
}

static int diag_fd(int fd, struct smc_sock_info *si)
{
	return diag_fd_ext(fd, 0, si);
}

static int expect_fallback(int fd, const char *who, uint32_t reason,
			   uint32_t peer)
{
	struct smc_sock_info si;

	if (diag_fd(fd, &si)) {
		ktap_diag("%s: not found in the smc_diag dump", who);
		return -1;
	}
	ktap_diag("%s: mode %s reason 0x%08x peer 0x%08x", who,
		  smc_mode_name(si.mode), si.reason, si.peer_diag);
	if (si.mode != SMC_TEST_MODE_FALLBACK || !si.has_fallback ||
	    si.reason != reason || si.peer_diag != peer) {
		ktap_diag("%s: expected fallback reason 0x%08x peer 0x%08x",
			  who, reason, peer);
		return -1;
	}
	return 0;
}

/* a -> b and back, compared */
static int exchange(int a, int b, const char *tag)
{
	char msg[96], got[96];
	int len, end, err, n;

	len = snprintf(msg, sizeof(msg), "data after the handshake: %s", tag);
	if (send_all(a, msg, len)) {
		ktap_diag("%s: send: %s", tag, strerror(errno));
		return -1;
	}
	n = recv_upto(b, (uint8_t *)got, len, QUICK_MS, &end, &err);
	if (n != len || memcmp(got, msg, len)) {
		ktap_diag("%s: forward: %d of %d bytes (%s)", tag, n, len,
			  end_name(end, err));
		return -1;
	}
	if (send_all(b, got, len)) {
		ktap_diag("%s: echo send: %s", tag, strerror(errno));
		return -1;
	}
	n = recv_upto(a, (uint8_t *)got, len, QUICK_MS, &end, &err);
	if (n != len || memcmp(got, msg, len)) {
		ktap_diag("%s: echo: %d of %d bytes (%s)", tag, n, len,
			  end_name(end, err));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the DMB counters at the start of the suite */

static struct dmbs dmb_base;
static int have_lo;

/* DMB counters back at the baseline within 3 s */
static int dmbs_settled(const char *tag)
{
	struct dmbs d = { -1, -1 };
	int i;

	if (!have_lo)
		return 0;
	for (i = 0; i < 150; i++) {
		if (!lo_read(&d) && d.reg == dmb_base.reg &&
		    d.att == dmb_base.att)
			return 0;
		msleep(20);
	}
	ktap_diag("%s: DMBs registered %ld attached %ld, baseline %ld/%ld",
		  tag, d.reg, d.att, dmb_base.reg, dmb_base.att);
	return -1;
}

/* ------------------------------------------------------------------ */
/* client cases: hostile client against the AF_SMC listener */

enum expect {
	X_DROP,		/* no CLC answer, closed, nothing to accept() */
	X_DECLINE,	/* Decline, then a fallback child works as TCP */
	X_SILENT_FB,	/* nothing sent back, fallback child works */
};

struct ccase {
	const char *name;
	/* fills buf; returns its length */
	int (*build)(uint8_t *buf, int max);
	enum expect expect;
	uint32_t codes[3];	/* allowed Decline codes */
	int decl_version;	/* 0: any */
	int shut_wr;		/* half-close after sending */
	int slow;		/* the kernel must time out */
	int delay_ms;		/* sent this long after the connect */
	uint32_t fb_reason, fb_peer;	/* X_SILENT_FB */
};

static int b_proposal(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	return prop_build(b, max, &p);
}

static int b_hdr_only(uint8_t *b, int max)
{
	(void)max;
	put32(b, EYE_R);
	return 4;
}

static int b_truncated(uint8_t *b, int max)
{
	return b_proposal(b, max) / 2;
}

/* a client that connects and says nothing */
static int b_nothing(uint8_t *b, int max)
{
	(void)b;
	(void)max;
	return 0;
}

static int b_huge_len(uint8_t *b, int max)
{
	(void)max;
	clc_hdr(b, EYE_R, CLC_PROPOSAL, 0xffff, 0x26);
	return 8;
}

static int b_len_too_small(uint8_t *b, int max)
{
	(void)max;
	clc_hdr(b, EYE_R, CLC_PROPOSAL, 8, 0x26);
	return 8;
}

static int b_len_minus4(uint8_t *b, int max)
{
	struct prop p;
	int len;

	prop_init(&p);
	len = prop_build(b, max, &p);
	put16(b + 5, len - 4);
	put32(b + len - 8, EYE_R);
	return len - 4;
}

static int b_oversized(uint8_t *b, int max)
{
	struct prop p;
	int len;

	prop_init(&p);
	len = prop_build(b, max, &p);
	/* 700 bytes: more than the server's 652-byte buffer */
	memset(b + len, 0, 700 - len);
	put16(b + 5, 700);
	put32(b + 696, EYE_R);
	return 700;
}

static int b_bad_eye_head(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.eye = 0xE2D4C3E7;	/* "SMCX" */
	return prop_build(b, max, &p);
}

static int b_ascii_eye(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.eye = 0x534d4352;	/* ASCII "SMCR" */
	p.trl_eye = p.eye;
	return prop_build(b, max, &p);
}

static int b_bad_eye_trl(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.trl_eye = 0;
	return prop_build(b, max, &p);
}

static int b_version0(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.version = 0;
	return prop_build(b, max, &p);
}

static int b_version3(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.version = 3;
	return prop_build(b, max, &p);
}

static int b_type_accept(uint8_t *b, int max)
{
	struct acc a = { .type = CLC_ACCEPT, .version = 2, .chid = 0xffff,
			 .gid = 1, .token = 2 };

	(void)max;
	return acc_build(b, &a);
}

static int b_type_confirm(uint8_t *b, int max)
{
	struct acc a = { .type = CLC_CONFIRM, .version = 2, .chid = 0xffff,
			 .gid = 1, .token = 2 };

	(void)max;
	return acc_build(b, &a);
}

static int b_type_9(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.type = 9;
	return prop_build(b, max, &p);
}

static int b_random(uint8_t *b, int max)
{
	unsigned int seed = 4242;
	int i;

	(void)max;
	for (i = 0; i < 200; i++)
		b[i] = rand_r(&seed);
	b[0] = 0x47;	/* no eyecatcher */
	b[4] = 0x7f;	/* and no known type */
	return 200;
}

static int b_text(uint8_t *b, int max)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: smc\r\n\r\n";

	(void)max;
	memcpy(b, req, sizeof(req) - 1);
	return sizeof(req) - 1;
}

static int b_ipoff_out(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.set_ipoff = 1;
	p.ipoff = 0xff00;
	return prop_build(b, max, &p);
}

static int b_v2off_out(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.set_v2off = 1;
	p.v2off = 0x7ff0;
	return prop_build(b, max, &p);
}

static int b_v2off_past_end(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.set_v2off = 1;
	p.v2off = 172;	/* allowed value, but beyond this message */
	return prop_build(b, max, &p);
}

static int b_d2off_out(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.set_d2off = 1;
	p.d2off = 0xfff0;
	return prop_build(b, max, &p);
}

static int b_d2off_zero(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.set_d2off = 1;
	p.d2off = 0;
	return prop_build(b, max, &p);
}

static int b_ipv6_9_overlap(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.byte47 = 9;	/* v1 = none: the count overlaps the SMC-D area */
	return prop_build(b, max, &p);
}

static int b_ipv6_9(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.typev1 = TYPE_D;
	p.ipv6_cnt = 9;
	return prop_build(b, max, &p);
}

static int b_eid_9(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.eids = 9;
	return prop_build(b, max, &p);
}

static int b_gid_9(uint8_t *b, int max)
{
	struct prop p;
	int i;

	prop_init(&p);
	p.ngid = 9;
	for (i = 0; i < 9; i++)
		p.gid[i] = (struct ism_entry){ 0x1000 + i, 0x100 + i };
	return prop_build(b, max, &p);
}

static int b_v2_none(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.typev2 = TYPE_N;
	return prop_build(b, max, &p);
}

static int b_v1_d(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.version = 1;
	p.typev1 = TYPE_D;
	return prop_build(b, max, &p);
}

static int b_no_eid(uint8_t *b, int max)
{
	struct prop p;

	prop_init(&p);
	p.eids = 0;
	return prop_build(b, max, &p);
}

static int b_decline_v2(uint8_t *b, int max)
{
	(void)max;
	return decline_build(b, 2, R_NOSMCDEV);
}

static int b_decline_v1(uint8_t *b, int max)
{
	(void)max;
	return decline_build(b, 1, R_MAX_DMB);
}

static int b_decline_badlen(uint8_t *b, int max)
{
	int len;

	(void)max;
	len = decline_build(b, 2, R_NOSMCDEV);
	put16(b + 5, 36);
	return len - 8;	/* a consistent 36-byte message */
}

#define DROP(n, fn, ...) \
	{ .name = n, .build = fn, .expect = X_DROP, __VA_ARGS__ }
#define DECL(n, fn, ver, ...) \
	{ .name = n, .build = fn, .expect = X_DECLINE, .decl_version = ver, \
	  .codes = { __VA_ARGS__ } }
#define SILENT(n, fn, peer) \
	{ .name = n, .build = fn, .expect = X_SILENT_FB, \
	  .fb_reason = R_PEERDECL, .fb_peer = peer }

static const struct ccase ccases[] = {
	DROP("srv_eyecatcher_then_eof", b_hdr_only, .shut_wr = 1),
	DROP("srv_truncated_proposal_then_eof", b_truncated, .shut_wr = 1),
	DROP("srv_length_below_header", b_len_too_small),
	DROP("srv_length_4_short", b_len_minus4),
	DROP("srv_length_beyond_buffer", b_oversized),
	DROP("srv_bad_head_eyecatcher", b_bad_eye_head),
	DROP("srv_ascii_eyecatcher", b_ascii_eye),
	DROP("srv_bad_trailer", b_bad_eye_trl),
	DROP("srv_version_0", b_version0),
	DROP("srv_accept_first", b_type_accept),
	DROP("srv_confirm_first", b_type_confirm),
	DROP("srv_type_9", b_type_9),
	DROP("srv_random_bytes", b_random),
	DROP("srv_http_request", b_text),
	DROP("srv_ip_offset_outside", b_ipoff_out),
	DROP("srv_v2_offset_outside", b_v2off_out),
	DROP("srv_v2_offset_past_end", b_v2off_past_end),
	DROP("srv_ipv6_count_9_overlap", b_ipv6_9_overlap),
	DROP("srv_ipv6_count_9", b_ipv6_9),
	DROP("srv_eid_count_9", b_eid_9),
	DROP("srv_gid_count_9", b_gid_9),
	DECL("srv_smcd_ext_offset_outside", b_d2off_out, 2, R_NOV2DEXT),
	DECL("srv_smcd_ext_missing", b_d2off_zero, 2, R_NOV2DEXT),
	DECL("srv_foreign_gid", b_proposal, 2, R_NOSMCD2DEV),
	DECL("srv_version_3_foreign_gid", b_version3, 2, R_NOSMCD2DEV),
	/* Linux checks for an EID first: NOUEID */
	DECL("srv_no_eid_foreign_gid", b_no_eid, 2, R_NOUEID, R_NOSMCD2DEV),
	DECL("srv_v2_offers_nothing", b_v2_none, 2, R_PEERNOSMC),
	/* Linux: no native ISM device for v1, a v1 Proposal gets v1 */
	DECL("srv_v1_smcd_only", b_v1_d, 1, R_NOSMCDDEV, R_PEERNOSMC),
	SILENT("srv_decline_v2_first", b_decline_v2, R_NOSMCDEV),
	SILENT("srv_decline_v1_first", b_decline_v1, R_MAX_DMB),
	DROP("srv_decline_bad_length", b_decline_badlen),
	DROP("srv_huge_length_then_silence", b_huge_len, .slow = 1),
	/* the server's child waits for its first byte without a worker */
	DROP("srv_nothing_sent", b_nothing, .slow = 1),
	{ .name = "srv_proposal_after_2s", .build = b_proposal,
	  .expect = X_DECLINE, .decl_version = 2,
	  .codes = { R_NOSMCD2DEV }, .delay_ms = 2000 },
};

static int code_allowed(const struct ccase *c, uint32_t code)
{
	int i;

	for (i = 0; i < 3; i++)
		if (c->codes[i] && c->codes[i] == code)
			return 1;
	return 0;
}

/* Leftovers of an earlier failed case must not confuse the next one */
static void drain_children(void)
{
	int fd;

	while ((fd = app_accept(0)) >= 0)
		close(fd);
}

/* After a dropped handshake nothing may show up in accept() */
static int expect_no_child(const char *name)
{
	int fd = app_accept(300);

	if (fd < 0)
		return 0;
	ktap_diag("%s: accept() returned a connection", name);
	expect_fallback(fd, name, 0, 0);
	close(fd);
	return -1;
}

/* A fallback child: reason/peer as given, data both ways */
static int expect_child(int hfd, const char *name, uint32_t reason,
			uint32_t peer)
{
	int fd, rc = 0;

	fd = app_accept(QUICK_MS);
	if (fd < 0) {
		ktap_diag("%s: no connection to accept()", name);
		return -1;
	}
	if (expect_fallback(fd, name, reason, peer))
		rc = -1;
	if (exchange(hfd, fd, name))
		rc = -1;
	close(fd);
	return rc;
}

static void run_ccase(const struct ccase *c)
{
	static uint8_t buf[1024], rsp[128];
	int fd, len, got, end, err, rc = 0;
	uint32_t code = 0;
	char why[160];
	long t0, dt;

	drain_children();
	fd = hostile_connect(smc_port);
	if (fd < 0) {
		ktap_diag("%s: connect: %s", c->name, strerror(errno));
		ktap_result(0, c->name);
		return;
	}
	len = c->build(buf, sizeof(buf));
	if (c->delay_ms)
		usleep(c->delay_ms * 1000);
	t0 = now_ms();
	if (len && send_all(fd, buf, len))
		ktap_diag("%s: send: %s", c->name, strerror(errno));
	if (c->shut_wr)
		shutdown(fd, SHUT_WR);

	if (c->expect == X_SILENT_FB) {
		got = recv_upto(fd, rsp, 1, 500, &end, &err);
		if (got || end != 'T') {
			ktap_diag("%s: server answered a Decline: %d bytes, %s",
				  c->name, got, end_name(end, err));
			rc = -1;
		}
		if (expect_child(fd, c->name, c->fb_reason, c->fb_peer))
			rc = -1;
		goto out;
	}

	got = recv_clc(fd, rsp, sizeof(rsp), c->slow ? SLOW_MS : QUICK_MS,
		       &end, &err);
	dt = now_ms() - t0;
	if (got == 0) {
		ktap_diag("%s: no answer, %s after %ld ms", c->name,
			  end_name(end, err), dt);
		if (c->expect == X_DECLINE)
			rc = -1;
		if (end == 'T') {
			ktap_diag("%s: connection not closed in time", c->name);
			rc = -1;
		}
		if (c->slow && dt < CLC_TIMEOUT_MS - 500) {
			ktap_diag("%s: closed before the CLC timeout", c->name);
			rc = -1;
		}
		if (expect_no_child(c->name))
			rc = -1;
		goto out;
	}

	if (check_decline(rsp, got, c->decl_version, &code, why,
			  sizeof(why))) {
		ktap_diag("%s: %s (%s)", c->name, why, end_name(end, err));
		rc = -1;
		goto out;
	}
	ktap_diag("%s: Decline v%d code 0x%08x after %ld ms", c->name,
		  rsp[7] >> 4, code, dt);
	if (c->expect == X_DROP) {
		ktap_diag("%s: expected the connection to be dropped",
			  c->name);
		rc = -1;
	} else if (!code_allowed(c, code)) {
		ktap_diag("%s: unexpected code 0x%08x", c->name, code);
		rc = -1;
	}
	if (code != c->codes[0])
		ktap_diag("%s: Linux would send 0x%08x", c->name, c->codes[0]);
	/* the server falls back with the code it sent */
	if (expect_child(fd, c->name, code, 0))
		rc = -1;
out:
	close(fd);
	ktap_result(!rc, c->name);
}

/* ------------------------------------------------------------------ */
/* cases past the Accept: need our own GID, learned in server mode */

enum after_accept {
	AA_GARBAGE, AA_BAD_TOKEN, AA_OWN_TOKEN, AA_DECLINE, AA_CLOSE,
};

static const struct {
	const char *name;
	enum after_accept what;
} acases[] = {
	{ "srv_garbage_instead_of_confirm", AA_GARBAGE },
	{ "srv_confirm_unknown_token", AA_BAD_TOKEN },
	{ "srv_confirm_servers_own_token", AA_OWN_TOKEN },
	{ "srv_decline_instead_of_confirm", AA_DECLINE },
	{ "srv_close_after_accept", AA_CLOSE },
};

/* Propose SMC-D with our own GIDs on @fd; the Accept lands in @rsp */
static int propose_own(int fd, const char *tag, uint8_t *rsp, int max)
{
	static uint8_t buf[1024];
	int len, got, end, err;
	struct prop p;
	char why[160];

	prop_init(&p);
	prop_own_gids(&p);
	len = prop_build(buf, sizeof(buf), &p);
	send_all(fd, buf, len);
	got = recv_clc(fd, rsp, max, QUICK_MS, &end, &err);
	if (check_accept(rsp, got, why, sizeof(why))) {
		ktap_diag("%s: %s (%s)", tag, why, end_name(end, err));
		return -1;
	}
	return 0;
}

static void run_acase(int i)
{
	const char *name = acases[i].name;
	static uint8_t buf[1024], rsp[256];
	int fd, len, got, end, err, rc = 0;
	struct acc c;

	if (!own_ism_cnt) {
		ktap_skip(name, "own GID unknown (client cases failed)");
		return;
	}
	drain_children();
	fd = hostile_connect(smc_port);
	if (fd < 0) {
		ktap_diag("%s: connect: %s", name, strerror(errno));
		ktap_result(0, name);
		return;
	}
	if (propose_own(fd, name, rsp, sizeof(rsp))) {
		close(fd);
		ktap_result(0, name);
		return;
	}

	switch (acases[i].what) {
	case AA_GARBAGE:
		len = b_random(buf, sizeof(buf));
		send_all(fd, buf, len);
		break;
	case AA_BAD_TOKEN:
	case AA_OWN_TOKEN:
		c = (struct acc){ .type = CLC_CONFIRM, .version = 2,
				  .chid = own_ism[0].chid,
				  .gid = 0x0102030405060708ull,
				  .gid_ext = 0x1112131415161718ull,
				  .token = 0x5a5a5a5a5a5a5a5aull,
				  .eid = rsp + 34 };
		/* the server's DMB as ours: it would write to itself */
		if (acases[i].what == AA_OWN_TOKEN)
			c.token = get64(rsp + 16);
		len = acc_build(buf, &c);
		send_all(fd, buf, len);
		break;
	case AA_DECLINE:
		len = decline_build(buf, 2, R_MEM);
		send_all(fd, buf, len);
		break;
	case AA_CLOSE:
		close(fd);
		fd = -1;
		break;
	}

	if (acases[i].what == AA_DECLINE) {
		got = recv_upto(fd, rsp, 1, 500, &end, &err);
		if (got || end != 'T') {
			ktap_diag("%s: unexpected answer: %d bytes, %s", name,
				  got, end_name(end, err));
			rc = -1;
		}
		if (expect_child(fd, name, R_PEERDECL, R_MEM))
			rc = -1;
	} else {
		/*
		 * Garbage, a close, an unknown token and the server's own
		 * DMB (a self-attach) alike: the child is dropped.
		 */
		if (fd >= 0) {
			got = recv_upto(fd, rsp, 1, QUICK_MS, &end, &err);
			ktap_diag("%s: %d bytes, then %s", name, got,
				  end_name(end, err));
			if (got || end == 'T')
				rc = -1;
		}
		if (expect_no_child(name))
			rc = -1;
	}
	if (fd >= 0)
		close(fd);
	if (dmbs_settled(name))
		rc = -1;
	ktap_result(!rc, name);
}

/*
 * An out-of-sync Decline to an Accept that reused a link group makes
 * that group stale: the next Proposal gets a first contact even while
 * the stale group still has a connection (A, left in its handshake).
 */
static int sync_accept(int fd, const char *tag, int *fc)
{
	static uint8_t rsp[256];

	if (propose_own(fd, tag, rsp, sizeof(rsp)))
		return -1;
	*fc = !!(rsp[7] & 0x08);
	return 0;
}

static void run_sync_case(void)
{
	const char *name = "srv_out_of_sync_decline_ends_reuse";
	int fa = -1, fb = -1, fcn = -1, fc, rc = -1;
	uint8_t buf[64];
	int len;

	if (!own_ism_cnt) {
		ktap_skip(name, "own GID unknown (client cases failed)");
		return;
	}
	drain_children();
	fa = hostile_connect(smc_port);
	fb = hostile_connect(smc_port);
	fcn = hostile_connect(smc_port);
	if (fa < 0 || fb < 0 || fcn < 0) {
		ktap_diag("%s: connect: %s", name, strerror(errno));
		goto out;
	}
	if (sync_accept(fa, "A", &fc) || sync_accept(fb, "B", &fc))
		goto out;
	if (fc) {
		ktap_diag("%s: B got a first contact beside A", name);
		goto out;
	}
	len = decline_build(buf, 2, R_SYNCERR);
	buf[7] |= 0x08;			/* out of sync */
	send_all(fb, buf, len);
	if (expect_child(fb, name, R_PEERDECL, R_SYNCERR))
		goto out;
	if (sync_accept(fcn, "C", &fc))
		goto out;
	if (!fc) {
		ktap_diag("%s: C reused the stale link group", name);
		goto out;
	}
	rc = 0;
out:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	if (fcn >= 0)
		close(fcn);
	if (expect_no_child(name))
		rc = -1;
	if (dmbs_settled(name))
		rc = -1;
	ktap_result(!rc, name);
}

/* ------------------------------------------------------------------ */
/* server cases: hostile server answering our AF_SMC client */

enum srv_action {
	SA_DECLINE_V2, SA_DECLINE_V1, SA_DECLINE_BADLEN, SA_GARBAGE,
	SA_CLOSE, SA_ACCEPT_V1, SA_ACCEPT_FOREIGN_CHID, SA_ACCEPT_CHID0,
	SA_ACCEPT_BAD_TOKEN, SA_SILENT,
};

struct scase {
	const char *name;
	enum srv_action act;
	int conn_err;		/* expected SO_ERROR of connect, 0: works */
	uint32_t reason, peer;	/* fallback path when conn_err == 0 */
	uint32_t client_decl;	/* Decline the client must send, or 0 */
	int decl_version;	/* its version: that of the Accept */
	int slow;
};

#define S_FAIL(n, a, e, ...) \
	{ .name = n, .act = a, .conn_err = e, __VA_ARGS__ }
#define S_FB(n, a, r, p, ...) \
	{ .name = n, .act = a, .reason = r, .peer = p, __VA_ARGS__ }

static const struct scase scases[] = {
	S_FB("cli_decline_v2", SA_DECLINE_V2, R_PEERDECL, R_NOSMCD2DEV),
	S_FB("cli_decline_v1", SA_DECLINE_V1, R_PEERDECL, R_MAX_DMB),
	S_FAIL("cli_decline_bad_length", SA_DECLINE_BADLEN, EPROTO),
	S_FAIL("cli_garbage_instead_of_accept", SA_GARBAGE, EPROTO),
	S_FAIL("cli_close_after_proposal", SA_CLOSE, ECONNRESET),
	S_FB("cli_accept_v1_not_offered", SA_ACCEPT_V1, R_MODEUNSUPP, 0,
	     .client_decl = R_MODEUNSUPP, .decl_version = 1),
	S_FAIL("cli_accept_foreign_chid", SA_ACCEPT_FOREIGN_CHID, EPROTO),
	S_FAIL("cli_accept_chid_0", SA_ACCEPT_CHID0, EPROTO),
	S_FB("cli_accept_unknown_token", SA_ACCEPT_BAD_TOKEN, R_MEM, 0,
	     .client_decl = R_MEM, .decl_version = 2),
	S_FAIL("cli_silent_server", SA_SILENT, ETIMEDOUT, .slow = 1),
};

static int hostile_listen_fd;
static uint16_t hostile_port;

/*
 * A blocking AF_SMC connect() runs in a thread while the main thread
 * plays the server; connect()'s own return value is what we check.
 */
struct conn_job {
	pthread_t thread;
	int fd;
	uint16_t port;
	int err;
	long t0, ms;
};

static void *connect_thread(void *arg)
{
	struct conn_job *j = arg;
	struct sockaddr_in a = lo_addr(j->port);

	j->err = connect(j->fd, (struct sockaddr *)&a, sizeof(a)) ? errno : 0;
	j->ms = now_ms() - j->t0;
	return NULL;
}

static int conn_start(struct conn_job *j, uint16_t port)
{
	memset(j, 0, sizeof(*j));
	j->fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (j->fd < 0)
		return -1;
	j->port = port;
	j->t0 = now_ms();
	errno = pthread_create(&j->thread, NULL, connect_thread, j);
	if (errno) {
		close(j->fd);
		return -1;
	}
	return 0;
}

/* connect()'s errno, or -1 if it still blocks after ms (then unblocked) */
static int conn_wait(struct conn_job *j, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (!pthread_timedjoin_np(j->thread, NULL, &ts))
		return j->err;
	shutdown(j->fd, SHUT_RDWR);
	pthread_join(j->thread, NULL);
	return -1;
}

/* Non-blocking AF_SMC connect */
static int smc_client_start(uint16_t port)
{
	struct sockaddr_in a = lo_addr(port);
	int fd;

	fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    SMCPROTO_SMC);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Writable within ms?  Returns SO_ERROR then, -1 if not writable */
static int smc_client_result(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t l = sizeof(int);
	int err = 0;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l))
		return errno;
	return err;
}

static int accept_hostile(int ms)
{
	struct pollfd pfd = { .fd = hostile_listen_fd, .events = POLLIN };
	int fd;

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	fd = accept4(hostile_listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		set_timeouts(fd, QUICK_MS);
	return fd;
}

static int srv_answer(int hfd, const struct scase *s)
{
	static const char garbage[] = "HTTP/1.0 400 Bad Request\r\n\r\n";
	uint8_t buf[256];
	struct acc a;
	int len = 0;

	memset(&a, 0, sizeof(a));
	a.type = CLC_ACCEPT;
	a.version = 2;
	a.chid = own_ism[0].chid;
	a.gid = 0x0102030405060708ull;
	a.gid_ext = 0x1112131415161718ull;
	a.token = 0x7a7a7a7a7a7a7a7aull;
	a.eid = NULL;

	switch (s->act) {
	case SA_DECLINE_V2:
		len = decline_build(buf, 2, s->peer);
		break;
	case SA_DECLINE_V1:
		len = decline_build(buf, 1, s->peer);
		break;
	case SA_DECLINE_BADLEN:
		len = decline_build(buf, 2, R_NOSMCDEV) - 8;
		put16(buf + 5, len);
		break;
	case SA_GARBAGE:
		len = sizeof(garbage) - 1;
		memcpy(buf, garbage, len);
		break;
	case SA_CLOSE:
		return 1;
	case SA_SILENT:
		return 0;
	case SA_ACCEPT_V1:
		a.version = 1;
		len = acc_build(buf, &a);
		break;
	case SA_ACCEPT_FOREIGN_CHID:
		a.chid = 0x1234;
		len = acc_build(buf, &a);
		break;
	case SA_ACCEPT_CHID0:
		a.chid = 0;
		len = acc_build(buf, &a);
		break;
	case SA_ACCEPT_BAD_TOKEN:
		len = acc_build(buf, &a);
		break;
	}
	return send_all(hfd, buf, len) ? -1 : 0;
}

static void run_scase(const struct scase *s)
{
	static uint8_t prop[CLC_MAX + 16], rsp[128];
	int cfd, hfd = -1, got, end, err, rc = 0;
	struct conn_job job;
	uint32_t code;
	char why[200];

	if (conn_start(&job, hostile_port)) {
		ktap_diag("%s: AF_SMC socket: %s", s->name, strerror(errno));
		ktap_result(0, s->name);
		return;
	}
	cfd = job.fd;
	hfd = accept_hostile(QUICK_MS);
	if (hfd < 0) {
		ktap_diag("%s: no TCP connection from the client", s->name);
		rc = -1;
	} else {
		got = recv_clc(hfd, prop, CLC_MAX, QUICK_MS, &end, &err);
		if (check_proposal(prop, got, why, sizeof(why))) {
			ktap_diag("%s: %s (%s)", s->name, why,
				  end_name(end, err));
			rc = -1;
		} else {
			if (s == &scases[0])
				ktap_diag("%s: %s", s->name, why);
			if (srv_answer(hfd, s) == 1) {
				close(hfd);
				hfd = -1;
			}
		}
	}
	err = conn_wait(&job, s->slow ? SLOW_MS : QUICK_MS);
	if (rc)
		goto out;
	ktap_diag("%s: connect %s after %ld ms", s->name,
		  err < 0 ? "still blocked" : err ? strerror(err) : "ok",
		  err < 0 ? (long)(s->slow ? SLOW_MS : QUICK_MS) : job.ms);
	if (err != s->conn_err) {
		ktap_diag("%s: expected connect %s", s->name,
			  s->conn_err ? strerror(s->conn_err) : "to succeed");
		rc = -1;
		goto out;
	}
	if (s->slow && job.ms < CLC_TIMEOUT_MS - 500) {
		ktap_diag("%s: gave up before the CLC timeout", s->name);
		rc = -1;
	}
	if (s->conn_err)
		goto out;

	if (s->client_decl) {
		got = recv_clc(hfd, rsp, sizeof(rsp), QUICK_MS, &end, &err);
		if (check_decline(rsp, got, s->decl_version, &code, why,
				  sizeof(why))) {
			ktap_diag("%s: client's answer: %s", s->name, why);
			rc = -1;
			goto out;
		}
		ktap_diag("%s: client declined with 0x%08x", s->name, code);
		if (code != s->client_decl) {
			ktap_diag("%s: expected 0x%08x", s->name,
				  s->client_decl);
			rc = -1;
		}
	}
	set_timeouts(cfd, QUICK_MS);
	if (expect_fallback(cfd, s->name, s->reason, s->peer))
		rc = -1;
	if (exchange(cfd, hfd, s->name))
		rc = -1;
out:
	if (hfd >= 0)
		close(hfd);
	close(cfd);
	if (dmbs_settled(s->name))
		rc = -1;
	ktap_result(!rc, s->name);
}

/*
 * A non-blocking connect must not look complete (writable) while the
 * CLC handshake still waits for the server's answer.
 */
static void poll_during_handshake(void)
{
	static const char name[] = "cli_nonblocking_connect_waits_for_clc";
	static uint8_t prop[CLC_MAX + 16];
	int cfd, hfd = -1, got, end, err, rc = 0;
	uint8_t decl[DECL_LEN_V2];
	char why[200];

	cfd = smc_client_start(hostile_port);
	if (cfd < 0) {
		ktap_diag("%s: AF_SMC connect: %s", name, strerror(errno));
		ktap_result(0, name);
		return;
	}
	hfd = accept_hostile(QUICK_MS);
	got = hfd < 0 ? 0 : recv_clc(hfd, prop, CLC_MAX, QUICK_MS, &end,
				     &err);
	if (hfd < 0 || check_proposal(prop, got, why, sizeof(why))) {
		ktap_diag("%s: no Proposal", name);
		rc = -1;
		goto out;
	}
	err = smc_client_result(cfd, 1000);
	if (err >= 0) {
		ktap_diag("%s: writable with SO_ERROR %d before any answer",
			  name, err);
		rc = -1;
	}
	send_all(hfd, decl, decline_build(decl, 2, R_NOSMCD2DEV));
	err = smc_client_result(cfd, QUICK_MS);
	if (err) {
		ktap_diag("%s: after the Decline: %s", name,
			  err < 0 ? "not writable" : strerror(err));
		rc = -1;
		goto out;
	}
	set_nonblock(cfd, 0);
	set_timeouts(cfd, QUICK_MS);
	if (expect_fallback(cfd, name, R_PEERDECL, R_NOSMCD2DEV) ||
	    exchange(cfd, hfd, name))
		rc = -1;
out:
	if (hfd >= 0)
		close(hfd);
	close(cfd);
	ktap_result(!rc, name);
}

/* ------------------------------------------------------------------ */
/*
 * Third-party tokens: the hostile peer names, in its Confirm or its
 * Accept, a DMB of another live connection.  The victim is an AF_SMC
 * pair of this test whose tokens we read through smc_diag DMBINFO, as
 * any local user can.  Its DMBs must stay attached by its own ends
 * only, its byte streams must stay intact and it must not see an
 * abort; the hostile connection must not get SMC-D.
 */

#define VICTIM_CHUNK	4096
#define VICTIM_ROUNDS	8

struct victim {
	int lfd, cfd, sfd;
	uint64_t ctoken, stoken;	/* DMBs of the client / server end */
	uint64_t sent[2], rcvd[2];	/* 0: client to server, 1: back */
};

static const char injected[] = "INJECTED BY THE HOSTILE PEER";

static const char *const vdir[] = { "client->server", "server->client" };

/* Byte @off of the victim's stream in direction @dir */
static uint8_t vpattern(uint64_t off, int dir)
{
	return (uint8_t)(off * 131 + (off >> 9) + dir * 0x5d + 1);
}

static int vsend(const struct victim *v, int dir, uint64_t *off, int n,
		 const char *tag)
{
	uint8_t buf[VICTIM_CHUNK];
	int i;

	for (i = 0; i < n; i++)
		buf[i] = vpattern(*off + i, dir);
	if (send_all(dir ? v->sfd : v->cfd, buf, n)) {
		ktap_diag("%s: victim %s send: %s", tag, vdir[dir],
			  strerror(errno));
		return -1;
	}
	*off += n;
	return 0;
}

/* Read @n bytes of direction @dir, each must be the pattern's */
static int vrecv(const struct victim *v, int dir, uint64_t *off, int n,
		 const char *tag)
{
	uint8_t buf[VICTIM_CHUNK];
	int got, end, err, i;

	got = recv_upto(dir ? v->cfd : v->sfd, buf, n, QUICK_MS, &end, &err);
	for (i = 0; i < got; i++) {
		if (buf[i] == vpattern(*off + i, dir))
			continue;
		ktap_diag("%s: victim %s byte %llu is 0x%02x, expected 0x%02x",
			  tag, vdir[dir], (unsigned long long)(*off + i),
			  buf[i], vpattern(*off + i, dir));
		return -1;
	}
	*off += got;
	if (got < n) {
		ktap_diag("%s: victim %s: %d of %d bytes, then %s", tag,
			  vdir[dir], got, n, end_name(end, err));
		return -1;
	}
	return 0;
}

static void victim_close(struct victim *v)
{
	if (v->cfd >= 0)
		close(v->cfd);
	if (v->sfd >= 0)
		close(v->sfd);
	if (v->lfd >= 0)
		close(v->lfd);
	v->lfd = -1;
	v->cfd = -1;
	v->sfd = -1;
}

/* Both ends over SMC-D, each the attacher of the other's DMB */
static int victim_tokens(struct victim *v, int *sync, const char *tag)
{
	struct smc_sock_info c, s;

	if (diag_fd_ext(v->cfd, SMC_TEST_EXT_DMBINFO, &c) ||
	    diag_fd_ext(v->sfd, SMC_TEST_EXT_DMBINFO, &s)) {
		ktap_diag("%s: victim not in the smc_diag dump", tag);
		return -1;
	}
	if (c.mode != SMC_TEST_MODE_SMCD || s.mode != SMC_TEST_MODE_SMCD) {
		ktap_diag("%s: victim client mode %s reason 0x%08x, server mode %s",
			  tag, smc_mode_name(c.mode), c.reason,
			  smc_mode_name(s.mode));
		*sync = c.reason == R_SYNCERR;
		return -1;
	}
	if (!smc_has_dmbinfo(&c) || !smc_has_dmbinfo(&s) ||
	    c.dmb.peer_token != s.dmb.token ||
	    s.dmb.peer_token != c.dmb.token) {
		ktap_diag("%s: victim DMBINFO missing or not crosswise", tag);
		return -1;
	}
	v->ctoken = c.dmb.token;
	v->stoken = s.dmb.token;
	return 0;
}

static int victim_open_once(struct victim *v, int *sync, const char *tag)
{
	struct sockaddr_in a;
	uint16_t port;

	memset(v, 0, sizeof(*v));
	v->cfd = -1;
	v->sfd = -1;
	v->lfd = listen_on(AF_SMC, SMCPROTO_SMC, 0, &port);
	if (v->lfd < 0) {
		ktap_diag("%s: victim listener: %s", tag, strerror(errno));
		return -1;
	}
	set_timeouts(v->lfd, QUICK_MS);
	a = lo_addr(port);
	v->cfd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (v->cfd >= 0)
		set_timeouts(v->cfd, SLOW_MS);
	if (v->cfd < 0 || connect(v->cfd, (struct sockaddr *)&a, sizeof(a))) {
		ktap_diag("%s: victim connect: %s", tag, strerror(errno));
		return -1;
	}
	set_timeouts(v->cfd, QUICK_MS);
	v->sfd = accept4(v->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (v->sfd < 0) {
		ktap_diag("%s: victim accept: %s", tag, strerror(errno));
		return -1;
	}
	set_timeouts(v->sfd, QUICK_MS);
	if (victim_tokens(v, sync, tag))
		return -1;
	/* unread data in both DMBs: what an intruder would overwrite */
	if (vsend(v, 0, &v->sent[0], VICTIM_CHUNK, tag) ||
	    vsend(v, 1, &v->sent[1], VICTIM_CHUNK, tag))
		return -1;
	ktap_diag("%s: victim over SMC-D, DMB tokens client 0x%016llx server 0x%016llx",
		  tag, (unsigned long long)v->ctoken,
		  (unsigned long long)v->stoken);
	return 0;
}

/*
 * A live victim pair.  Out of sync once (a server link group of earlier
 * cases without our client's counterpart), the second try gets SMC-D.
 */
static int victim_open(struct victim *v, const char *tag)
{
	int sync = 0;

	if (!victim_open_once(v, &sync, tag))
		return 0;
	victim_close(v);
	if (!sync)
		return -1;
	ktap_diag("%s: victim out of sync once, again", tag);
	sync = 0;
	return victim_open_once(v, &sync, tag);
}

/* Nothing of the attacker's in the victim: pattern intact, no EOF */
static int victim_check(struct victim *v, const char *tag)
{
	uint8_t extra[64];
	int dir, i, err;
	socklen_t l;
	ssize_t n;

	for (dir = 0; dir < 2; dir++)
		if (vrecv(v, dir, &v->rcvd[dir], v->sent[dir] - v->rcvd[dir],
			  tag))
			return -1;
	for (i = 0; i < VICTIM_ROUNDS; i++)
		for (dir = 0; dir < 2; dir++)
			if (vsend(v, dir, &v->sent[dir], VICTIM_CHUNK, tag) ||
			    vrecv(v, dir, &v->rcvd[dir], VICTIM_CHUNK, tag))
				return -1;
	for (dir = 0; dir < 2; dir++) {
		int fd = dir ? v->cfd : v->sfd;

		n = recv(fd, extra, sizeof(extra), MSG_DONTWAIT);
		if (n >= 0 || errno != EAGAIN) {
			ktap_diag("%s: victim %s: %zd more bytes (%s)", tag,
				  vdir[dir], n, n < 0 ? strerror(errno) : "");
			return -1;
		}
		err = 0;
		l = sizeof(err);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) || err) {
			ktap_diag("%s: victim %s: SO_ERROR %s", tag, vdir[dir],
				  strerror(err));
			return -1;
		}
	}
	ktap_diag("%s: victim intact: %llu bytes each way", tag,
		  (unsigned long long)v->sent[0]);
	return 0;
}

/* SMC-D sockets of this netns that have the DMB @token attached */
static int attachers(uint64_t token)
{
	struct smc_sock_info *arr;
	int n, i, k = 0;

	n = smc_diag_dump_ext(SMC_TEST_EXT_DMBINFO, &arr);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		if (arr[i].mode == SMC_TEST_MODE_SMCD &&
		    smc_has_dmbinfo(&arr[i]) && arr[i].dmb.peer_token == token)
			k++;
	free(arr);
	return k;
}

/* The victim's end of @whose is the one attacher of that DMB */
static int attached_once(uint64_t token, const char *whose, const char *tag)
{
	int n = attachers(token);

	if (n == 1)
		return 0;
	ktap_diag("%s: the victim's DMB (%s end) has %d attachers: it was attached",
		  tag, whose, n);
	return -1;
}

/* A hostile client confirms with @token; the listener must drop it */
static int confirm_foreign(uint64_t token, const char *whose,
			   const char *tag)
{
	static uint8_t buf[1024], rsp[256];
	int fd, cfd, got, end, err, rc = 0;
	struct smc_sock_info si;
	struct acc c;

	fd = hostile_connect(smc_port);
	if (fd < 0) {
		ktap_diag("%s: connect: %s", tag, strerror(errno));
		return -1;
	}
	if (propose_own(fd, tag, rsp, sizeof(rsp))) {
		close(fd);
		return -1;
	}
	c = (struct acc){ .type = CLC_CONFIRM, .version = 2,
			  .chid = own_ism[0].chid, .gid = own_ism[0].gid,
			  .gid_ext = own_gid_ext(), .token = token,
			  .eid = rsp + 34 };
	send_all(fd, buf, acc_build(buf, &c));
	got = recv_upto(fd, rsp, 1, QUICK_MS, &end, &err);
	ktap_diag("%s: Confirm naming the victim's %s DMB: %d bytes, then %s",
		  tag, whose, got, end_name(end, err));
	if (got || end == 'T')
		rc = -1;
	if (attached_once(token, whose, tag))
		rc = -1;
	cfd = app_accept(300);
	if (cfd >= 0) {
		rc = -1;
		if (diag_fd_ext(cfd, SMC_TEST_EXT_DMBINFO, &si)) {
			memset(&si, 0, sizeof(si));
			si.mode = -1;
		}
		ktap_diag("%s: accept() returned a connection in mode %s, peer DMB 0x%016llx",
			  tag, smc_mode_name(si.mode),
			  (unsigned long long)si.dmb.peer_token);
		/* what the attacker does with it */
		send_all(cfd, injected, sizeof(injected) - 1);
		close(cfd);
	}
	close(fd);
	return rc;
}

static void run_srv_third_party(void)
{
	static const char name[] = "srv_confirm_third_party_token";
	struct victim v;
	int rc = 0;

	if (!own_ism_cnt) {
		ktap_skip(name, "own GID unknown (client cases failed)");
		return;
	}
	drain_children();
	if (victim_open(&v, name)) {
		victim_close(&v);
		ktap_result(0, name);
		return;
	}
	if (confirm_foreign(v.stoken, "server", name))
		rc = -1;
	if (confirm_foreign(v.ctoken, "client", name))
		rc = -1;
	if (victim_check(&v, name))
		rc = -1;
	victim_close(&v);
	if (expect_no_child(name) || dmbs_settled(name))
		rc = -1;
	ktap_result(!rc, name);
}

/* The AF_SMC client's answer to an Accept naming a foreign DMB */
static int client_declines(int hfd, const char *tag)
{
	static uint8_t rsp[256];
	int got, end, err;
	uint32_t code;
	char why[200];

	got = recv_clc(hfd, rsp, sizeof(rsp), QUICK_MS, &end, &err);
	if (got >= 8 && get32(rsp) == EYE_D && rsp[4] == CLC_CONFIRM) {
		ktap_diag("%s: the client answered with a Confirm", tag);
		return -1;
	}
	if (check_decline(rsp, got, 2, &code, why, sizeof(why))) {
		ktap_diag("%s: client's answer: %s (%s)", tag, why,
			  end_name(end, err));
		return -1;
	}
	ktap_diag("%s: client declined with 0x%08x", tag, code);
	/* as for an unknown token: nothing tells the two apart */
	if (code != R_MEM) {
		ktap_diag("%s: expected 0x%08x", tag, R_MEM);
		return -1;
	}
	return 0;
}

static void run_cli_third_party(void)
{
	static const char name[] = "cli_accept_third_party_token";
	static uint8_t prop[CLC_MAX + 16], buf[256];
	int hfd = -1, got, end, err, rc = 0;
	struct smc_sock_info si;
	struct conn_job job;
	struct victim v;
	char why[200];
	struct acc a;

	if (!own_ism_cnt) {
		ktap_skip(name, "own GID unknown (server cases failed)");
		return;
	}
	if (victim_open(&v, name)) {
		victim_close(&v);
		ktap_result(0, name);
		return;
	}
	if (conn_start(&job, hostile_port)) {
		ktap_diag("%s: AF_SMC socket: %s", name, strerror(errno));
		victim_close(&v);
		ktap_result(0, name);
		return;
	}
	hfd = accept_hostile(QUICK_MS);
	got = hfd < 0 ? 0 : recv_clc(hfd, prop, CLC_MAX, QUICK_MS, &end,
				     &err);
	if (hfd < 0 || check_proposal(prop, got, why, sizeof(why))) {
		ktap_diag("%s: no Proposal", name);
		conn_wait(&job, QUICK_MS);
		rc = -1;
		goto out;
	}
	a = (struct acc){ .type = CLC_ACCEPT, .version = 2,
			  .chid = own_ism[0].chid, .gid = own_ism[0].gid,
			  .gid_ext = own_gid_ext(), .token = v.stoken };
	send_all(hfd, buf, acc_build(buf, &a));
	err = conn_wait(&job, QUICK_MS);
	ktap_diag("%s: Accept naming the victim's server DMB; connect %s after %ld ms",
		  name, err < 0 ? "still blocked" : err ? strerror(err) : "ok",
		  err < 0 ? (long)QUICK_MS : job.ms);
	if (err) {
		rc = -1;
		goto out;
	}
	if (client_declines(hfd, name))
		rc = -1;
	if (attached_once(v.stoken, "server", name))
		rc = -1;
	set_timeouts(job.fd, QUICK_MS);
	if (!diag_fd(job.fd, &si) && si.mode == SMC_TEST_MODE_SMCD) {
		ktap_diag("%s: the client runs SMC-D", name);
		/* its writes go to the victim */
		send_all(job.fd, injected, sizeof(injected) - 1);
		rc = -1;
	} else if (expect_fallback(job.fd, name, R_MEM, 0) ||
		   exchange(job.fd, hfd, name)) {
		rc = -1;
	}
out:
	if (hfd >= 0)
		close(hfd);
	close(job.fd);
	if (victim_check(&v, name))
		rc = -1;
	victim_close(&v);
	if (dmbs_settled(name))
		rc = -1;
	ktap_result(!rc, name);
}

/* ------------------------------------------------------------------ */
/* final checks */

static int normal_connection_once(int *sync)
{
	struct sockaddr_in a = lo_addr(smc_port);
	struct smc_sock_info si;
	int cfd, sfd = -1, rc = 0;

	cfd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (cfd < 0) {
		ktap_diag("normal: socket: %s", strerror(errno));
		return -1;
	}
	set_timeouts(cfd, SLOW_MS);
	if (connect(cfd, (struct sockaddr *)&a, sizeof(a))) {
		ktap_diag("normal: connect: %s", strerror(errno));
		rc = -1;
		goto out;
	}
	set_timeouts(cfd, QUICK_MS);
	sfd = app_accept(QUICK_MS);
	if (sfd < 0) {
		ktap_diag("normal: nothing to accept()");
		rc = -1;
		goto out;
	}
	if (diag_fd(cfd, &si) || si.mode != SMC_TEST_MODE_SMCD) {
		ktap_diag("normal: client mode %s reason 0x%08x",
			  smc_mode_name(si.mode), si.reason);
		rc = -1;
		*sync = si.reason == R_SYNCERR;
	}
	if (diag_fd(sfd, &si) || si.mode != SMC_TEST_MODE_SMCD) {
		ktap_diag("normal: server mode %s reason 0x%08x",
			  smc_mode_name(si.mode), si.reason);
		rc = -1;
	}
	if (exchange(cfd, sfd, "normal"))
		rc = -1;
out:
	if (sfd >= 0)
		close(sfd);
	close(cfd);
	return rc;
}

/*
 * A normal SMC-D connection.  The attacks may leave the server a link
 * group our client has no counterpart of (in a boot where this test
 * runs first): the first try then falls back out of sync, which must
 * make the group stale, so the second takes SMC-D.
 */
static int normal_connection(void)
{
	int sync = 0;

	if (!normal_connection_once(&sync))
		return 0;
	if (!sync)
		return -1;
	ktap_diag("normal: out of sync once, again");
	sync = 0;
	return normal_connection_once(&sync);
}

static int no_leaks(int base)
{
	int n = -1, i;

	for (i = 0; i < 250; i++) {
		n = smc_socket_count();
		if (n == base)
			break;
		msleep(20);
	}
	if (n != base) {
		ktap_diag("AF_SMC sockets: %d, expected %d (the listener)", n,
			  base);
		return -1;
	}
	return dmbs_settled("end");
}

/* ------------------------------------------------------------------ */
/*
 * A flood of silent clients on one listener.  Each child of a listener
 * waits up to the CLC timeout (6 s) for a Proposal; a flood of TCP
 * connections that carry the SMC option but never send one must hold
 * up that listener only.  The flood comes from uid 65534; it and the
 * victim run on CPU 0, where the listener's work is queued.
 */

#define FLOOD_CONNS	600
#define FLOOD_BACKLOG	1024
#define FLOOD_FAST_MS	2000

/* In a child: FLOOD_CONNS silent connections, kept until @go closes */
static void flood_child(uint16_t port, int ready, int go)
{
	struct rlimit rl = { FLOOD_CONNS + 64, FLOOD_CONNS + 64 };
	struct sockaddr_in a = lo_addr(port);
	int i, fd, n = 0;
	char c;

	cg_enter_peer();
	setrlimit(RLIMIT_NOFILE, &rl);
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(1);
	for (i = 0; i < FLOOD_CONNS; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			break;
		set_timeouts(fd, QUICK_MS);
		if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
			close(fd);
			break;
		}
		n++;
	}
	if (write(ready, &n, sizeof(n)) != sizeof(n))
		_exit(1);
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* The victim: a blocking connect to the suite's AF_SMC listener */
static int flood_victim(void)
{
	struct smc_sock_info si;
	struct conn_job j;
	int sfd, err, rc = 0;

	if (conn_start(&j, smc_port)) {
		ktap_diag("flood: socket: %s", strerror(errno));
		return -1;
	}
	err = conn_wait(&j, SLOW_MS);
	if (err) {
		ktap_diag("flood: victim connect: %s after %ld ms",
			  err < 0 ? "timed out" : strerror(err),
			  now_ms() - j.t0);
		close(j.fd);
		return -1;
	}
	ktap_diag("flood: victim connected in %ld ms", j.ms);
	if (j.ms >= FLOOD_FAST_MS)
		rc = -1;
	set_timeouts(j.fd, QUICK_MS);
	sfd = app_accept(QUICK_MS);
	if (diag_fd(j.fd, &si) || si.mode != SMC_TEST_MODE_SMCD) {
		ktap_diag("flood: victim mode %s reason 0x%08x",
			  smc_mode_name(si.mode), si.reason);
		rc = -1;
	}
	if (sfd < 0 || exchange(j.fd, sfd, "flood victim"))
		rc = -1;
	if (sfd >= 0)
		close(sfd);
	close(j.fd);
	return rc;
}

static void run_silent_flood(void)
{
	const char *name = "silent_flood_spares_other_listeners";
	int ready[2], go[2], lfd, base, n = 0, rc = -1;
	cpu_set_t cpu0, old;
	uint16_t port;
	pid_t pid;

	base = smc_socket_count();
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_getaffinity(0, sizeof(old), &old) ||
	    sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		ktap_diag("%s: affinity: %s", name, strerror(errno));
		ktap_result(0, name);
		return;
	}
	lfd = listen_on(AF_SMC, SMCPROTO_SMC, 0, &port);
	if (lfd < 0 || listen(lfd, FLOOD_BACKLOG) || pipe(ready) ||
	    pipe(go)) {
		ktap_diag("%s: set-up: %s", name, strerror(errno));
		goto out_cpu;
	}
	pid = fork();
	if (!pid) {
		close(ready[0]);
		close(go[1]);
		flood_child(port, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	if (pid < 0 || read(ready[0], &n, sizeof(n)) != sizeof(n) ||
	    n != FLOOD_CONNS) {
		ktap_diag("%s: %d of %d silent connections", name, n,
			  FLOOD_CONNS);
	} else {
		/* the flood's children are in handshake or waiting for it */
		msleep(500);
		rc = flood_victim();
	}
	close(go[1]);
	close(ready[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
out_cpu:
	if (lfd >= 0)
		close(lfd);
	sched_setaffinity(0, sizeof(old), &old);
	/* the flood's children go as their clients close */
	for (n = 0; n < 750 && smc_socket_count() != base; n++)
		msleep(20);
	if (smc_socket_count() != base)
		ktap_diag("%s: AF_SMC sockets %d, before %d", name,
			  smc_socket_count(), base);
	ktap_result(!rc, name);
}

static int suite(void)
{
	int i, n, base;

	common_setup();
	if (!smcd_param())
		ktap_skip_all("module parameter smcd is not 1 (run hostile.sh)");
	n = smc_socket_count();
	if (n < 0) {
		if (access("/sys/module/smc_diag", F_OK) == 0)
			ktap_fail_all("smc_diag dump fails");
		ktap_skip_all("smc_diag not available");
	}
	have_lo = lo_available() && !lo_read(&dmb_base);

	smc_listen_fd = listen_on(AF_SMC, SMCPROTO_SMC, 0, &smc_port);
	cg_enter_peer();
	hostile_listen_fd = listen_on(AF_INET, 0, 0, &hostile_port);
	cg_enter_app();
	if (smc_listen_fd < 0 || hostile_listen_fd < 0)
		ktap_fail_all("cannot set up the listeners");
	set_nonblock(smc_listen_fd, 1);
	base = smc_socket_count();

	ktap_header(ARRAY_SIZE(scases) + ARRAY_SIZE(ccases) +
		    ARRAY_SIZE(acases) + 7);
	ktap_diag("AF_SMC listener on port %u, hostile listener on %u",
		  smc_port, hostile_port);
	if (!have_lo)
		ktap_diag("no %s: DMB counts not checked", LO_DEBUGFS);
	else
		ktap_diag("DMBs at start: registered %ld attached %ld",
			  dmb_base.reg, dmb_base.att);

	for (i = 0; i < (int)ARRAY_SIZE(scases); i++)
		run_scase(&scases[i]);
	poll_during_handshake();
	for (i = 0; i < (int)ARRAY_SIZE(ccases); i++)
		run_ccase(&ccases[i]);
	for (i = 0; i < (int)ARRAY_SIZE(acases); i++)
		run_acase(i);
	run_srv_third_party();
	run_cli_third_party();

	run_sync_case();
	ktap_result(!normal_connection(), "smcd_connection_after_attacks");
	/* after a connection that put the link groups back in sync */
	run_silent_flood();
	close(hostile_listen_fd);
	ktap_result(!no_leaks(base), "no_leaked_sockets_or_dmbs");
	close(smc_listen_fd);
	ktap_finish();
}

/* ------------------------------------------------------------------ */
/* decline-server mode for fallback.sh */

static int decline_server(uint16_t port, uint32_t code)
{
	static uint8_t prop[CLC_MAX + 16], buf[65536];
	int lfd, fd, got, end, err;
	uint16_t bound;
	char why[200];
	ssize_t n;

	common_setup();
	cg_enter_peer();
	lfd = listen_on(AF_INET, 0, port, &bound);
	cg_enter_app();
	if (lfd < 0) {
		fprintf(stderr, "listen on %u: %s\n", port, strerror(errno));
		return 1;
	}
	printf("ready %u\n", bound);
	fflush(stdout);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	close(lfd);
	if (fd < 0)
		return 1;
	got = recv_clc(fd, prop, CLC_MAX, 10000, &end, &err);
	if (check_proposal(prop, got, why, sizeof(why))) {
		printf("bad proposal: %s (%s)\n", why, end_name(end, err));
		return 1;
	}
	printf("%s\n", why);
	got = decline_build(buf, 2, code);
	if (send_all(fd, buf, got))
		return 1;
	printf("decline sent 0x%08x\n", code);
	fflush(stdout);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		if (send_all(fd, buf, n))
			return 1;
	close(fd);
	printf("done\n");
	return n < 0;
}

/* ------------------------------------------------------------------ */
/* smcr-accept-server mode for smcr.sh */

#define ACC_R_LEN_V2	108	/* SMC-R v2 Accept: 104 bytes + trailer */
#define ACC_R_FCE	104	/* first-contact extension */
#define ACC_R_FCE_LEN	52
/* GID list of a first-contact Confirm */
#define ACC_R_GLE	(ACC_R_FCE + ACC_R_FCE_LEN)
#define SMCR_MTU_1024	3
#define SMCR_WAIT_MS	10000

/*
 * What an SMC-Rv2 client (our module) must do with each Accept, after
 * wire-clc.md 4.6 and 8.4:
 *   bigrmb	its send buffer mirrors our 512 MiB RMB: cannot, so Decline
 *		0x01010000 (after 1 s waiting for ours), no Confirm
 *   noconfirm	Confirm with first contact, 4 s for a CONFIRM LINK we
 *		cannot send (no QP), 1 s for our Decline, Decline 0x02010000
 *   reuse	no first contact, and no link group to our QPN: Decline
 *		0x04000000 with the out-of-sync bit
 *   maxconn	release 1 with max_conns 10 < 16: Decline 0x0303000a
 */
static const struct {
	const char *name;
	int first;
	uint8_t rmb_size, max_conns;
} ra_cases[] = {
	{ "bigrmb", 1, 15, 255 },	/* 16 KiB << 15 = 512 MiB */
	{ "noconfirm", 1, 1, 255 },
	{ "reuse", 0, 1, 255 },
	{ "maxconn", 1, 1, 10 },
};

/* What the Proposal of an SMC-Rv2 client told us */
struct prop_r {
	uint8_t gid[16];
	uint8_t eid[32];	/* first EID, zero if none */
	int eids;
};

static void fill_random(void *p, size_t n)
{
	static unsigned int seed;
	uint8_t *b = p;
	size_t i;

	if (getrandom(p, n, 0) == (ssize_t)n)
		return;
	if (!seed)
		seed = now_ms() ^ getpid();
	for (i = 0; i < n; i++)
		b[i] = rand_r(&seed);
}

static const char *gid_str(const uint8_t *gid)
{
	static char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, gid, s, sizeof(s)))
		snprintf(s, sizeof(s), "?");
	return s;
}

static const char *path_name(int t)
{
	static const char *const n[] = { "R", "D", "none", "R+D" };

	return n[t & 3];
}

/*
 * Validate a Proposal offering SMC-R for v2 (type v2 R or B): framing,
 * version 2, v2 extension inside the message, length consistent with
 * the areas (wire-clc.md 3.9) and a non-zero RoCEv2 GID.
 */
static int check_proposal_r(const uint8_t *b, int got, struct prop_r *pr,
			    char *why, size_t wl)
{
	int len, e, eids, gids, v1, d2, typev1, typev2, pfx, want;
	static const uint8_t zero[16];

	memset(pr, 0, sizeof(*pr));
	len = check_proposal_frame(b, got, why, wl);
	if (len < 0)
		return -1;
	typev1 = b[7] & 3;
	typev2 = (b[7] >> 2) & 3;
	if (b[7] >> 4 != 2 || (typev2 != TYPE_R && typev2 != TYPE_B)) {
		snprintf(why, wl, "Proposal byte 7 0x%02x: want v2 with R",
			 b[7]);
		return -1;
	}
	v1 = typev1 != TYPE_N;
	d2 = typev2 == TYPE_B;
	if (v1 && get16(b + 38) > 40) {
		snprintf(why, wl, "IP-area offset %u", get16(b + 38));
		return -1;
	}
	e = proposal_v2_ext(b, len, why, wl);
	if (e < 0)
		return -1;
	eids = b[e];
	gids = d2 ? b[e + 1] : 0;
	pfx = v1 ? 8 + 17 * b[40 + get16(b + 38) + 7] : 0;
	want = 80 + pfx + 40 + 32 * eids + (d2 ? 48 + 10 * gids : 0) + 4;
	if (eids > 8 || gids > 8 || e != 80 + pfx || want != len) {
		snprintf(why, wl,
			 "v2 extension at %d: %d EIDs, %d GIDs, length %d",
			 e, eids, gids, len);
		return -1;
	}
	if (!memcmp(b + e + 8, zero, sizeof(zero))) {
		snprintf(why, wl, "no RoCEv2 GID");
		return -1;
	}
	memcpy(pr->gid, b + e + 8, sizeof(pr->gid));
	pr->eids = eids;
	if (eids)
		memcpy(pr->eid, b + e + 40, sizeof(pr->eid));
	snprintf(why, wl,
		 "proposal ok: length %d, typev2 %d (%s), typev1 %d (%s), release %d, max_conns %u, max_links %u, %d EIDs, gid %s",
		 len, typev2, path_name(typev2), typev1, path_name(typev1),
		 b[e + 3] >> 4, b[e + 24], b[e + 25], eids, gid_str(pr->gid));
	return 0;
}

/* SMC-R Accept or Confirm, v2 */
struct acc_r {
	int first;
	uint8_t peer_id[8], gid[16], mac[6];
	uint32_t qpn, rkey, token, psn;
	uint8_t rmb_size, mtu;
	uint64_t rmb_addr;
	uint8_t release, max_conns, max_links;
	uint16_t features;
	uint8_t eid[32];
};

/* An SMC-R v2 Accept, laid out as in wire-clc.md 4.2, 4.3 and 4.5 */
static int acc_r_build(uint8_t *b, const struct acc_r *a)
{
	int len = ACC_R_LEN_V2 + (a->first ? ACC_R_FCE_LEN : 0);
	uint8_t *f = b + ACC_R_FCE;

	memset(b, 0, len);
	clc_hdr(b, EYE_R, CLC_ACCEPT, len,
		2 << 4 | (a->first ? 0x08 : 0) | TYPE_R);
	put32(b + len - 4, EYE_R);
	memcpy(b + 8, a->peer_id, 8);
	memcpy(b + 16, a->gid, 16);
	memcpy(b + 32, a->mac, 6);
	put24(b + 38, a->qpn);
	put32(b + 41, a->rkey);
	b[45] = 1;			/* RMBE index */
	put32(b + 46, a->token);
	b[50] = a->rmb_size << 4 | a->mtu;
	put64(b + 52, a->rmb_addr);
	put24(b + 61, a->psn);
	memcpy(b + 64, a->eid, 32);
	if (!a->first)
		return len;
	f[0] = 0x80;			/* v2 direct */
	f[1] = 2 << 4 | a->release;	/* Linux */
	memset(f + 4, ' ', 32);
	memcpy(f + 4, "hostile", 7);
	f[36] = a->max_conns;
	f[37] = a->max_links;
	put16(f + 38, a->features);
	return len;
}

/* The Accept of case @k from the server address @addr */
static void acc_r_init(struct acc_r *a, int k, struct in_addr addr,
		       const struct prop_r *pr)
{
	uint8_t rnd[16];

	fill_random(rnd, sizeof(rnd));
	memset(a, 0, sizeof(*a));
	a->first = ra_cases[k].first;
	/* locally administered unicast MAC; peer ID = 2 random bytes + MAC */
	a->mac[0] = 0x02;
	memcpy(a->mac + 1, "SMCR", 4);
	a->mac[5] = 0x01;
	a->peer_id[0] = rnd[0];
	a->peer_id[1] = rnd[1];
	memcpy(a->peer_id + 2, a->mac, 6);
	/* ::ffff:ADDR */
	a->gid[10] = 0xff;
	a->gid[11] = 0xff;
	memcpy(a->gid + 12, &addr.s_addr, 4);
	a->qpn = get24(rnd + 2) ?: 1;
	a->rkey = get32(rnd + 5);
	a->psn = get24(rnd + 9);
	a->rmb_addr = (uint64_t)get32(rnd + 12) << 12 | 0x100000000000ull;
	a->token = 1;
	a->rmb_size = ra_cases[k].rmb_size;
	a->mtu = SMCR_MTU_1024;
	a->release = 1;
	a->max_conns = ra_cases[k].max_conns;
	a->max_links = 1;
	a->features = 0x0001;
	memcpy(a->eid, pr->eid, sizeof(a->eid));
}

/*
 * The client's Confirm to our Accept @acc: framing, version 2 on the
 * SMC-R path, the first-contact bit of the Accept, and for a first
 * contact the limits of the Accept and a GID list with the Proposal's
 * GID first (wire-clc.md 4.3, 4.7).
 */
static int check_confirm_r(const uint8_t *b, int len, const struct acc_r *acc,
			   const struct prop_r *pr, char *why, size_t wl)
{
	const uint8_t *f = b + ACC_R_FCE;
	int fc = !!(b[7] & 0x08), g;

	if (len < ACC_R_LEN_V2 || get32(b) != EYE_R ||
	    get32(b + len - 4) != EYE_R) {
		snprintf(why, wl, "eyecatchers %08x/%08x, length %d",
			 get32(b), len >= 4 ? get32(b + len - 4) : 0, len);
		return -1;
	}
	if ((b[7] & ~0x08) != (2 << 4 | TYPE_R) || fc != acc->first) {
		snprintf(why, wl, "byte 7 0x%02x after an Accept with 0x%02x",
			 b[7], 2 << 4 | (acc->first ? 0x08 : 0) | TYPE_R);
		return -1;
	}
	if (memcmp(b + 16, pr->gid, 16) || !get24(b + 38)) {
		snprintf(why, wl, "gid %s qpn 0x%06x", gid_str(b + 16),
			 get24(b + 38));
		return -1;
	}
	if (!fc) {
		if (len != ACC_R_LEN_V2) {
			snprintf(why, wl, "length %d without first contact",
				 len);
			return -1;
		}
		return 0;
	}
	g = len >= ACC_R_GLE + 4 ? b[ACC_R_GLE] : -1;
	if (g < 1 || g > 2 || len != ACC_R_GLE + 4 + 16 * g + 4) {
		snprintf(why, wl, "length %d with %d GIDs", len, g);
		return -1;
	}
	if (memcmp(b + ACC_R_GLE + 4, pr->gid, 16)) {
		snprintf(why, wl, "first listed GID %s",
			 gid_str(b + ACC_R_GLE + 4));
		return -1;
	}
	if (f[1] >> 4 != 2 || (f[1] & 0x0f) != acc->release ||
	    f[36] != acc->max_conns || f[37] != acc->max_links) {
		snprintf(why, wl,
			 "OS type %u release %u max_conns %u max_links %u, Accept had release %u max_conns %u max_links %u",
			 f[1] >> 4, f[1] & 0x0f, f[36], f[37], acc->release,
			 acc->max_conns, acc->max_links);
		return -1;
	}
	return 0;
}

/*
 * Report the CLC messages the client sends after our Accept, waiting
 * up to SMCR_WAIT_MS for each, until its Decline.  0: declined, and
 * the connection is plain TCP now; 1: declined, but a Confirm was
 * malformed; -1: no Decline or something that is no CLC message.
 */
static int smcr_after_accept(int fd, uint8_t *b, const struct acc_r *acc,
			     const struct prop_r *pr)
{
	int got, end, err, rc = 0;
	char why[200];
	uint32_t code;

	for (;;) {
		got = recv_clc(fd, b, CLC_MAX, SMCR_WAIT_MS, &end, &err);
		if (!got) {
			printf("no decline: %s\n", end_name(end, err));
			return -1;
		}
		if (got < 8 || got != get16(b + 5)) {
			printf("bad message: %d bytes (%s)\n", got,
			       end_name(end, err));
			return -1;
		}
		switch (b[4]) {
		case CLC_CONFIRM:
			printf("confirm len %d first-contact %d\n", got,
			       !!(b[7] & 0x08));
			if (check_confirm_r(b, got, acc, pr, why,
					    sizeof(why))) {
				printf("bad confirm: %s\n", why);
				rc = 1;
			}
			break;
		case CLC_DECLINE:
			if (check_decline(b, got, 2, &code, why,
					  sizeof(why))) {
				printf("bad decline: %s\n", why);
				return -1;
			}
			printf("decline 0x%08x\n", code);
			return rc;
		default:
			printf("bad message: type %u, %d bytes\n", b[4], got);
			return -1;
		}
	}
}

static int smcr_accept_server(struct in_addr addr, uint16_t port, int k)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	static uint8_t buf[65536];
	int lfd, fd, got, end, err, rc;
	struct prop_r pr;
	struct acc_r acc;
	uint16_t bound;
	char why[300];
	ssize_t n;

	common_setup();
	sa.sin_addr = addr;
	sa.sin_port = htons(port);
	cg_enter_peer();
	lfd = listen_at(AF_INET, 0, sa, &bound);
	cg_enter_app();
	if (lfd < 0) {
		fprintf(stderr, "listen on %s:%u: %s\n", inet_ntoa(addr),
			port, strerror(errno));
		return 1;
	}
	printf("ready %u\n", bound);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	close(lfd);
	if (fd < 0)
		return 1;
	got = recv_clc(fd, buf, CLC_MAX, SMCR_WAIT_MS, &end, &err);
	if (check_proposal_r(buf, got, &pr, why, sizeof(why))) {
		printf("bad proposal: %s (%s)\n", why, end_name(end, err));
		return 1;
	}
	printf("%s\n", why);

	acc_r_init(&acc, k, addr, &pr);
	got = acc_r_build(buf, &acc);
	if (send_all(fd, buf, got))
		return 1;
	printf("accept sent: %s, length %d, first-contact %d, ",
	       ra_cases[k].name, got, acc.first);
	printf("rmb size %u, mtu %u, qpn 0x%06x, max_conns %u, gid %s\n",
	       acc.rmb_size, acc.mtu, acc.qpn, acc.max_conns,
	       gid_str(acc.gid));

	rc = smcr_after_accept(fd, buf, &acc, &pr);
	if (rc < 0)
		return 1;
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		if (send_all(fd, buf, n))
			return 1;
	close(fd);
	printf("done\n");
	return rc || n < 0;
}

/* smcr-reuse-client mode for smcr.sh */

static int smcr_reuse_client(struct sockaddr_in sa, const uint8_t *gid,
			     uint32_t token)
{
	struct sockaddr_in from = { .sin_family = AF_INET };
	static uint8_t buf[CLC_MAX + 64];
	const char *src;
	int fd, len, got, end, err, e;
	struct acc_r conf;
	struct prop p;
	uint32_t code;
	char why[200];

	common_setup();
	cg_enter_peer();
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cg_enter_app();
	/* SMC_HOSTILE_SRC: connect from this address, not the GID's */
	src = getenv("SMC_HOSTILE_SRC");
	if (fd >= 0 && src) {
		if (inet_pton(AF_INET, src, &from.sin_addr) != 1 ||
		    bind(fd, (struct sockaddr *)&from, sizeof(from))) {
			printf("bind %s: %s\n", src, strerror(errno));
			return 1;
		}
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("connect: %s\n", strerror(errno));
		return 1;
	}
	set_timeouts(fd, SLOW_MS);

	/* SMC-Rv2 only: no v1 areas, no SMC-D GIDs */
	prop_init(&p);
	p.typev2 = TYPE_R;
	p.ngid = 0;
	len = prop_build(buf, sizeof(buf), &p);
	e = 80;
	memcpy(buf + e + 8, gid, 16);
	buf[e + 24] = 255;		/* max_conns */
	buf[e + 25] = 2;		/* max_links */
	if (len < 0 || send_all(fd, buf, len))
		return 1;

	got = recv_clc(fd, buf, CLC_MAX, SMCR_WAIT_MS, &end, &err);
	if (got < ACC_R_LEN_V2 || get32(buf) != EYE_R ||
	    buf[4] != CLC_ACCEPT || got != get16(buf + 5)) {
		printf("no SMC-R Accept: %d bytes (%s)\n", got,
		       end_name(end, err));
		return 1;
	}
	printf("accept first-contact %d length %d qpn 0x%06x token %u\n",
	       !!(buf[7] & 0x08), got, get24(buf + 38), get32(buf + 46));
	if (buf[7] & 0x08)
		return 1;

	/* our "QP" is none of the group's; the RMB we claim is 512 MiB */
	memset(&conf, 0, sizeof(conf));
	memcpy(conf.gid, gid, 16);
	fill_random(conf.peer_id, sizeof(conf.peer_id));
	conf.mac[0] = 0x02;
	conf.qpn = 0xfedcba;
	conf.rkey = 0x1234;
	conf.token = token;
	conf.rmb_size = 15;
	conf.mtu = SMCR_MTU_1024;
	conf.rmb_addr = 0x100000000000ull;
	len = acc_r_build(buf, &conf);
	buf[4] = CLC_CONFIRM;
	if (send_all(fd, buf, len))
		return 1;
	printf("confirm sent: qpn 0x%06x, rmb size %u, token 0x%x\n",
	       conf.qpn, conf.rmb_size, conf.token);

	got = recv_clc(fd, buf, CLC_MAX, SLOW_MS, &end, &err);
	close(fd);
	if (got >= 8 && buf[4] == CLC_DECLINE) {
		if (check_decline(buf, got, 2, &code, why, sizeof(why)))
			printf("bad decline: %s\n", why);
		else
			printf("decline 0x%08x\n", code);
		return 1;
	}
	if (got) {
		printf("unexpected: %d bytes, type %u\n", got,
		       got >= 5 ? buf[4] : 0);
		return 1;
	}
	printf("closed (%s)\n", end_name(end, err));
	return 0;
}

static int smcr_reuse_main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned long port, token = 0x7777;
	uint8_t gid[16];
	char *end;

	errno = 0;
	port = strtoul(argv[3], &end, 10);
	if (inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1 ||
	    inet_pton(AF_INET6, argv[4], gid) != 1 || errno ||
	    end == argv[3] || *end || !port || port > 65535) {
		fprintf(stderr, "bad address, port or GID\n");
		return 1;
	}
	if (argc == 6) {
		token = strtoul(argv[5], &end, 0);
		if (errno || end == argv[5] || *end || token > UINT32_MAX) {
			fprintf(stderr, "bad token\n");
			return 1;
		}
	}
	sa.sin_port = htons(port);
	return smcr_reuse_client(sa, gid, token);
}

/* smcr-hold-server and smcr-hold-client modes for smcr.sh */

#define HOLD_MAX	256

static int hold_args(char **argv, struct sockaddr_in *sa, int *n)
{
	unsigned long port, cnt;
	char *end, *end2;

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	errno = 0;
	port = strtoul(argv[3], &end, 10);
	cnt = strtoul(argv[4], &end2, 10);
	if (inet_pton(AF_INET, argv[2], &sa->sin_addr) != 1 || errno ||
	    end == argv[3] || *end || !port || port > 65535 ||
	    end2 == argv[4] || *end2 || !cnt || cnt > HOLD_MAX) {
		fprintf(stderr, "bad address, port or count\n");
		return -1;
	}
	sa->sin_port = htons(port);
	*n = cnt;
	return 0;
}

/* Does fd run SMC-R, as sock_diag shows it? */
static int hold_is_smcr(int fd, const char *who, int i)
{
	struct smc_sock_info si;

	if (diag_fd(fd, &si) || si.mode != SMC_TEST_MODE_SMCR) {
		printf("%s %d: not SMC-R (mode %d, reason 0x%08x)\n", who, i,
		       si.mode, si.reason);
		return 0;
	}
	return 1;
}

static int smcr_hold_server(char **argv)
{
	int i, n, fd, lfd, smcr = 0;
	struct sockaddr_in sa;
	uint16_t bound;

	if (hold_args(argv, &sa, &n))
		return 1;
	lfd = listen_at(AF_SMC, SMCPROTO_SMC, sa, &bound);
	if (lfd < 0) {
		printf("listen: %s\n", strerror(errno));
		return 1;
	}
	printf("ready %u\n", bound);
	for (i = 0; i < n; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			printf("accept: %s\n", strerror(errno));
			break;
		}
		smcr += hold_is_smcr(fd, "server", i);
		close(fd);
	}
	close(lfd);
	printf("closed %d, %d over SMC-R\n", i, smcr);
	return smcr != n;
}

static int smcr_hold_client(char **argv)
{
	int i, n, got, smcr = 0, eofs = 0, fds[HOLD_MAX];
	struct sockaddr_in sa;
	long t0 = now_ms();
	char c;

	if (hold_args(argv, &sa, &n))
		return 1;
	for (i = 0; i < n; i++) {
		fds[i] = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC,
				SMCPROTO_SMC);
		if (fds[i] < 0 ||
		    connect(fds[i], (struct sockaddr *)&sa, sizeof(sa))) {
			printf("connect %d: %s\n", i, strerror(errno));
			return 1;
		}
		set_timeouts(fds[i], SLOW_MS);
		smcr += hold_is_smcr(fds[i], "client", i);
	}
	/* the server closed each: its close flags came, ours never go */
	for (i = 0; i < n; i++) {
		got = recv(fds[i], &c, 1, 0);
		if (got == 0)
			eofs++;
		else
			printf("client %d: recv %d (%s)\n", i, got,
			       got < 0 ? strerror(errno) : "data");
	}
	printf("held %d, %d over SMC-R, %d saw the close\n", n, smcr, eofs);
	if (close(open(argv[5], O_CREAT | O_WRONLY | O_CLOEXEC, 0644))) {
		printf("%s: %s\n", argv[5], strerror(errno));
		return 1;
	}
	while (!access(argv[5], F_OK) && now_ms() - t0 < 600000)
		msleep(100);
	for (i = 0; i < n; i++)
		close(fds[i]);
	return smcr != n || eofs != n;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s suite | decline-server PORT CODE |\n"
		"       smcr-accept-server ADDR PORT CASE |\n"
		"       smcr-reuse-client ADDR PORT GID [TOKEN] |\n"
		"       smcr-hold-server ADDR PORT N |\n"
		"       smcr-hold-client ADDR PORT N FILE |\n"
		"       mutate SEED SECONDS [PORTBASE]\n"
		"CASE: bigrmb, noconfirm, reuse or maxconn\n", prog);
}

static int smcr_accept_main(char **argv)
{
	struct in_addr addr;
	unsigned long port;
	char *end;
	int k;

	if (inet_pton(AF_INET, argv[2], &addr) != 1) {
		fprintf(stderr, "not an IPv4 address: %s\n", argv[2]);
		return 1;
	}
	errno = 0;
	port = strtoul(argv[3], &end, 10);
	if (errno || end == argv[3] || *end || port > 65535) {
		fprintf(stderr, "not a port: %s\n", argv[3]);
		return 1;
	}
	for (k = 0; k < (int)ARRAY_SIZE(ra_cases); k++)
		if (!strcmp(argv[4], ra_cases[k].name))
			return smcr_accept_server(addr, port, k);
	fprintf(stderr, "unknown case: %s\n", argv[4]);
	return 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "suite"))
		return suite();
	if (argc == 4 && !strcmp(argv[1], "decline-server"))
		return decline_server(atoi(argv[2]),
				      strtoul(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "smcr-accept-server"))
		return smcr_accept_main(argv);
	if ((argc == 5 || argc == 6) &&
	    !strcmp(argv[1], "smcr-reuse-client"))
		return smcr_reuse_main(argc, argv);
	if (argc == 5 && !strcmp(argv[1], "smcr-hold-server"))
		return smcr_hold_server(argv);
	if (argc == 6 && !strcmp(argv[1], "smcr-hold-client"))
		return smcr_hold_client(argv);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "mutate"))
		return mutate_main(argc, argv);
	usage(argv[0]);
	return 1;
}
