// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of hostile_peer that its modes share: those of
 * hostile_peer.c and the mutate mode of hostile_mutate.c.
 *
 * Byte order helpers, the cgroup v2 and the sock_ops BPF program that
 * make plain TCP sockets claim SMC capability, socket helpers, the
 * builders and checks of CLC messages, and the counters a run is
 * checked against at its end (AF_SMC sockets in the smc_diag dump,
 * loopback-ism DMBs in debugfs).  See hostile_clc.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "bpf_insn.h"
#include "hostile_clc.h"
#include "ktap.h"
#include "smc_diag_util.h"
#include "timeutil.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

/* ------------------------------------------------------------------ */
/* byte helpers */

void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

void put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	put16(p + 1, v);
}

void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | get16(p + 1);
}

uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void clc_hdr(uint8_t *b, uint32_t eye, uint8_t type, uint16_t len,
	     uint8_t byte7)
{
	put32(b, eye);
	b[4] = type;
	put16(b + 5, len);
	b[7] = byte7;
}

/* ------------------------------------------------------------------ */
/* cgroup v2 */

static char cg_mnt[256], cg_orig[1024], cg_peer[512], cg_app[512];
static int cg_mounted;

static int cg_write_pid(const char *dir)
{
	char path[1100], pid[32];
	int fd, n, rc = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (write(fd, pid, n) != n)
		rc = -errno;
	close(fd);
	return rc;
}

/* Sockets belong to the cgroup their creator was in at socket() time */
void cg_enter_peer(void)
{
	if (cg_write_pid(cg_peer))
		ktap_diag("cannot join %s: %s", cg_peer, strerror(errno));
}

void cg_enter_app(void)
{
	if (cg_write_pid(cg_app))
		ktap_diag("cannot join %s: %s", cg_app, strerror(errno));
}

static int cg_find_mount(void)
{
	char line[1024], dev[256], dir[256], type[64];
	struct statfs sfs;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%255s %255s %63s", dev, dir,
				   type) != 3)
				continue;
			if (!strcmp(type, "cgroup2")) {
				snprintf(cg_mnt, sizeof(cg_mnt), "%s", dir);
				fclose(f);
				return 0;
			}
		}
		fclose(f);
	}
	snprintf(cg_mnt, sizeof(cg_mnt), "/tmp/smc-hostile-cg.XXXXXX");
	if (!mkdtemp(cg_mnt))
		return -errno;
	if (mount("none", cg_mnt, "cgroup2", 0, NULL)) {
		int err = -errno;

		rmdir(cg_mnt);
		return err;
	}
	if (statfs(cg_mnt, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		umount(cg_mnt);
		rmdir(cg_mnt);
		return -ENODEV;
	}
	cg_mounted = 1;
	return 0;
}

static void cg_cleanup(void)
{
	if (!cg_peer[0])
		return;
	if (cg_write_pid(cg_orig))
		cg_write_pid(cg_mnt);
	rmdir(cg_peer);
	rmdir(cg_app);
	cg_peer[0] = 0;
	if (cg_mounted) {
		umount(cg_mnt);
		rmdir(cg_mnt);
	}
}

static int cg_setup(char *why, size_t len)
{
	char line[600], *rel = NULL;
	FILE *f;
	int rc;

	rc = cg_find_mount();
	if (rc) {
		snprintf(why, len, "no cgroup v2: %s", strerror(-rc));
		return rc;
	}
	f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			rel = line + 3;
			break;
		}
	}
	if (f)
		fclose(f);
	snprintf(cg_orig, sizeof(cg_orig), "%s%s", cg_mnt,
		 rel && strcmp(rel, "/") ? rel : "");
	snprintf(cg_peer, sizeof(cg_peer), "%s/smc_hostile_peer.%d", cg_mnt,
		 getpid());
	snprintf(cg_app, sizeof(cg_app), "%s/smc_hostile_app.%d", cg_mnt,
		 getpid());
	if (mkdir(cg_peer, 0755) || mkdir(cg_app, 0755)) {
		snprintf(why, len, "mkdir in %.200s: %s", cg_mnt, strerror(errno));
		rmdir(cg_peer);
		cg_peer[0] = 0;
		return -1;
	}
	atexit(cg_cleanup);
	if (cg_write_pid(cg_app)) {
		snprintf(why, len, "cannot move into %.200s: %s", cg_app,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the sock_ops program, assembled by hand */

/* conditional jumps name a label in off; prog_link() makes it relative */
enum { LBL_SET = 1, LBL_LEN, LBL_WRITE, LBL_OUT, LBL_NR };

#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R6 BPF_REG_6
#define R10 BPF_REG_10
#define OFF_OP		offsetof(struct bpf_sock_ops, op)
#define OFF_FLAGS	offsetof(struct bpf_sock_ops, skb_tcp_flags)
#define TCP_FLAG_SYN	0x02

static const uint8_t smc_opt[6] = { 254, 6, 0xE2, 0xD4, 0xC3, 0xD9 };

/*
 * TCP_CONNECT_CB / TCP_LISTEN_CB: ask for the header option callbacks.
 * HDR_OPT_LEN_CB on SYN or SYN-ACK: reserve 6 bytes.
 * WRITE_HDR_OPT_CB on SYN or SYN-ACK: store kind 254, len 6, magic.
 */
static int prog_build(struct bpf_insn *p, int *labels)
{
	int n = 0, i;

	p[n++] = INSN_MOV64_REG(R6, R1);
	p[n++] = INSN_LDX_W(R2, R6, OFF_OP);
	p[n++] = INSN_JMP_IMM(BPF_JEQ, R2, BPF_SOCK_OPS_TCP_CONNECT_CB,
			      LBL_SET);
	p[n++] = INSN_JMP_IMM(BPF_JEQ, R2, BPF_SOCK_OPS_TCP_LISTEN_CB,
			      LBL_SET);
	p[n++] = INSN_JMP_IMM(BPF_JEQ, R2, BPF_SOCK_OPS_HDR_OPT_LEN_CB,
			      LBL_LEN);
	p[n++] = INSN_JMP_IMM(BPF_JEQ, R2, BPF_SOCK_OPS_WRITE_HDR_OPT_CB,
			      LBL_WRITE);
	p[n++] = INSN_JA(LBL_OUT);

	labels[LBL_SET] = n;
	p[n++] = INSN_MOV64_REG(R1, R6);
	p[n++] = INSN_ALU64_IMM(BPF_MOV, R2, BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
	p[n++] = INSN_CALL(BPF_FUNC_sock_ops_cb_flags_set);
	p[n++] = INSN_JA(LBL_OUT);

	labels[LBL_LEN] = n;
	p[n++] = INSN_LDX_W(R2, R6, OFF_FLAGS);
	p[n++] = INSN_ALU64_IMM(BPF_AND, R2, TCP_FLAG_SYN);
	p[n++] = INSN_JMP_IMM(BPF_JEQ, R2, 0, LBL_OUT);
	p[n++] = INSN_MOV64_REG(R1, R6);
	p[n++] = INSN_ALU64_IMM(BPF_MOV, R2, sizeof(smc_opt));
	p[n++] = INSN_ALU64_IMM(BPF_MOV, R3, 0);
	p[n++] = INSN_CALL(BPF_FUNC_reserve_hdr_opt);
	p[n++] = INSN_JA(LBL_OUT);

	labels[LBL_WRITE] = n;
	p[n++] = INSN_LDX_W(R2, R6, OFF_FLAGS);
	p[n++] = INSN_ALU64_IMM(BPF_AND, R2, TCP_FLAG_SYN);
	p[n++] = INSN_JMP_IMM(BPF_JEQ, R2, 0, LBL_OUT);
	for (i = 0; i < (int)sizeof(smc_opt); i++)
		p[n++] = INSN_ST_B(R10, -8 + i, smc_opt[i]);
	p[n++] = INSN_MOV64_REG(R1, R6);
	p[n++] = INSN_MOV64_REG(R2, R10);
	p[n++] = INSN_ALU64_IMM(BPF_ADD, R2, -8);
	p[n++] = INSN_ALU64_IMM(BPF_MOV, R3, sizeof(smc_opt));
	p[n++] = INSN_ALU64_IMM(BPF_MOV, R4, 0);
	p[n++] = INSN_CALL(BPF_FUNC_store_hdr_opt);

	labels[LBL_OUT] = n;
	p[n++] = INSN_ALU64_IMM(BPF_MOV, BPF_REG_0, 1);
	p[n++] = INSN_EXIT();
	return n;
}

static void prog_link(struct bpf_insn *p, int n, const int *labels)
{
	int i;

	for (i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(p[i].code), op = BPF_OP(p[i].code);

		if (cls != BPF_JMP || op == BPF_CALL || op == BPF_EXIT)
			continue;
		p[i].off = labels[p[i].off] - (i + 1);
	}
}

static int bpf_setup(char *why, size_t len)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	static char log[8192];
	struct bpf_insn insns[64];
	int labels[LBL_NR] = { 0 };
	int n, prog, cg;

	setrlimit(RLIMIT_MEMLOCK, &rl);	/* for kernels before 5.11 */
	n = prog_build(insns, labels);
	prog_link(insns, n, labels);

	prog = bpf_prog_load_insns(BPF_PROG_TYPE_SOCK_OPS, 0, insns, n, log,
				   sizeof(log));
	if (prog < 0) {
		int err = errno;

		if (log[0])
			fprintf(stderr, "verifier log:\n%s\n", log);
		snprintf(why, len, "BPF_PROG_LOAD sock_ops: %s",
			 strerror(err));
		return -1;
	}

	cg = open(cg_peer, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0) {
		snprintf(why, len, "open %.200s: %s", cg_peer, strerror(errno));
		close(prog);
		return -1;
	}
	if (bpf_prog_attach_fd(cg, prog, BPF_CGROUP_SOCK_OPS)) {
		snprintf(why, len, "BPF_PROG_ATTACH sock_ops: %s",
			 strerror(errno));
		close(cg);
		close(prog);
		return -1;
	}
	/* the attachment dies with the cgroup directory */
	close(cg);
	close(prog);
	return 0;
}

/* ------------------------------------------------------------------ */
/* sockets */

void set_timeouts(int fd, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

void set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

struct sockaddr_in lo_addr(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(port);
	return a;
}

int listen_at(int family, int proto, struct sockaddr_in a,
	      uint16_t *bound)
{
	socklen_t alen = sizeof(a);
	int fd, one = 1;

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen)) {
		close(fd);
		return -1;
	}
	*bound = ntohs(a.sin_port);
	return fd;
}

int listen_on(int family, int proto, uint16_t port, uint16_t *bound)
{
	return listen_at(family, proto, lo_addr(port), bound);
}

/* Plain TCP connect from inside the peer cgroup: SYN carries the option */
int hostile_connect(uint16_t port)
{
	struct sockaddr_in a = lo_addr(port);
	int fd;

	cg_enter_peer();
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	cg_enter_app();
	if (fd < 0)
		return -1;
	set_timeouts(fd, QUICK_MS);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

int send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Read until @want bytes, EOF, an error or @ms elapsed.  Returns the
 * number of bytes read; *end is 0 (complete), 'E' (EOF), 'R' (error,
 * errno in *err) or 'T' (timeout).
 */
int recv_upto(int fd, uint8_t *buf, int want, int ms, int *end,
	      int *err)
{
	long deadline = now_ms() + ms;
	int got = 0;

	*end = 0;
	*err = 0;
	while (got < want) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0) {
			*end = 'T';
			break;
		}
		if (poll(&pfd, 1, left) <= 0)
			continue;
		n = recv(fd, buf + got, want - got, MSG_DONTWAIT);
		if (n == 0) {
			*end = 'E';
			break;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			*end = 'R';
			*err = errno;
			break;
		}
		got += n;
	}
	return got;
}

/* Read one CLC message: header, then the rest as the length says */
int recv_clc(int fd, uint8_t *buf, int max, int ms, int *end,
	     int *err)
{
	int got, len;

	got = recv_upto(fd, buf, 8, ms, end, err);
	if (got < 8)
		return got;
	len = get16(buf + 5);
	if (len <= 8 || len > max)
		return got;
	return got + recv_upto(fd, buf + 8, len - 8, ms, end, err);
}

/* How recv_upto() ended, in words, in @buf of @len if need be */
const char *end_words(int end, int err, char *buf, size_t len)
{
	switch (end) {
	case 0:
		return "complete";
	case 'E':
		return "EOF";
	case 'T':
		return "timeout";
	}
	snprintf(buf, len, "error %s", strerror(err));
	return buf;
}

/* The same in a buffer of its own: one thread only */
const char *end_name(int end, int err)
{
	static char s[64];

	return end_words(end, err, s, sizeof(s));
}

/* ------------------------------------------------------------------ */
/* what we learn from our own client's Proposal */

struct ism_entry own_ism[8];
int own_ism_cnt;

/* ------------------------------------------------------------------ */
/* Proposal, Decline, Accept/Confirm builders */

void prop_init(struct prop *p)
{
	memset(p, 0, sizeof(*p));
	p->version = 2;
	p->typev1 = TYPE_N;
	p->typev2 = TYPE_D;
	p->type = CLC_PROPOSAL;
	p->release = 1;
	p->eye = EYE_R;
	p->trl_eye = EYE_R;
	p->eids = 1;
	p->ngid = 1;
	p->gid[0].gid = 0x1122334455667788ull;	/* nobody's GID */
	p->gid[0].chid = 0x0abc;
	p->byte47 = -1;
	p->eid_cnt_field = -1;
	p->gid_cnt_field = -1;
}

void prop_own_gids(struct prop *p)
{
	int i;

	p->ngid = own_ism_cnt;
	for (i = 0; i < own_ism_cnt; i++)
		p->gid[i] = own_ism[i];
}

static const char test_eid[] = "SMC-SELFTEST-HOSTILE-PEER";

int prop_build(uint8_t *b, int max, const struct prop *p)
{
	int v2 = p->version != 1 && p->typev2 != TYPE_N;
	int d2 = v2 && (p->typev2 == TYPE_D || p->typev2 == 3);
	int v1 = p->typev1 != TYPE_N;
	int len = 80, pfx, e = 0, g, i;
	uint8_t byte7;

	memset(b, 0, max);
	if (v1) {
		pfx = len;
		len += 8 + 17 * p->ipv6_cnt;
		/* IPv4 127.0.0.0/8 */
		b[pfx] = 127;
		b[pfx + 4] = 8;
		b[pfx + 7] = p->ipv6_cnt;
		for (i = 0; i < p->ipv6_cnt; i++) {
			uint8_t *ent = b + pfx + 8 + 17 * i;

			ent[0] = 0xfd;
			ent[1] = i;
			ent[16] = 64;
		}
	}
	if (v2) {
		e = len;
		len += 40 + 32 * p->eids;
		b[e] = p->eid_cnt_field >= 0 ? p->eid_cnt_field : p->eids;
		b[e + 1] = p->gid_cnt_field >= 0 ? p->gid_cnt_field : p->ngid;
		b[e + 3] = p->release << 4;
		put16(b + e + 26, 0x0001);
		for (i = 0; i < p->eids; i++) {
			uint8_t *eid = b + e + 40 + 32 * i;

			memset(eid, ' ', 32);
			memcpy(eid, test_eid, sizeof(test_eid) - 1);
			eid[sizeof(test_eid) - 1] = '0' + i;
		}
		put16(b + 50, p->set_v2off ? p->v2off : e - 52);
		put16(b + e + 6, p->set_d2off ? p->d2off :
			d2 ? 32 + 32 * p->eids : 0);
	}
	if (d2) {
		g = len;
		len += 48 + 10 * p->ngid;
		for (i = 0; i < p->ngid; i++) {
			put64(b + g + 48 + 10 * i, p->gid[i].gid);
			put16(b + g + 56 + 10 * i, p->gid[i].chid);
		}
	}
	len += 4;
	if (len > max)
		return -1;
	put16(b + 38, p->set_ipoff ? p->ipoff : v1 ? 40 : 0);
	if (p->byte47 >= 0)
		b[47] = p->byte47;
	/* a v1 Proposal has no v2 type bits */
	byte7 = p->version << 4 | p->typev1;
	if (p->version != 1)
		byte7 |= p->typev2 << 2;
	clc_hdr(b, p->eye, p->type, len, byte7);
	put32(b + len - 4, p->trl_eye);
	return len;
}

int decline_build(uint8_t *b, int version, uint32_t code)
{
	int len = version == 1 ? DECL_LEN_V1 : DECL_LEN_V2;

	memset(b, 0, len);
	clc_hdr(b, EYE_R, CLC_DECLINE, len, version << 4);
	put32(b + len - 4, EYE_R);
	put32(b + 16, code);
	if (version > 1)
		b[20] = 2 << 4;	/* Linux */
	return len;
}

int acc_build(uint8_t *b, const struct acc *a)
{
	int len = a->version == 1 ? 48 : 130;

	memset(b, 0, len);
	clc_hdr(b, EYE_D, a->type, len, a->version << 4 | 0x08 | TYPE_D);
	put32(b + len - 4, EYE_D);
	put64(b + 8, a->gid);
	put64(b + 16, a->token);
	b[25] = 0 << 4;			/* 16 KiB DMB */
	put32(b + 28, 0x00ab0000);	/* link-group id, opaque */
	if (a->version == 1)
		return len;
	put16(b + 32, a->chid);
	if (a->eid)
		memcpy(b + 34, a->eid, 32);
	else
		memset(b + 34, ' ', 32);
	put64(b + 66, a->gid_ext);
	b[75] = 2 << 4 | 1;		/* Linux, release 1 */
	memset(b + 78, ' ', 32);
	memcpy(b + 78, "hostile", 7);
	return len;
}

/* ------------------------------------------------------------------ */
/* checks of what the kernel sent */

/* A Decline as Linux sends it; fills *code, returns 0 if well formed */
int check_decline(const uint8_t *b, int got, int want_version,
		  uint32_t *code, char *why, size_t wl)
{
	int len, ver;
	uint32_t c;

	if (got < 8) {
		snprintf(why, wl, "%d bytes instead of a Decline", got);
		return -1;
	}
	len = get16(b + 5);
	ver = b[7] >> 4;
	if (get32(b) != EYE_R || b[4] != CLC_DECLINE) {
		snprintf(why, wl, "not a Decline: %08x type %u", get32(b),
			 b[4]);
		return -1;
	}
	if (got < len || (len != DECL_LEN_V1 && len != DECL_LEN_V2)) {
		snprintf(why, wl, "Decline length %d, got %d bytes", len, got);
		return -1;
	}
	if ((ver == 1 && len != DECL_LEN_V1) ||
	    (ver == 2 && len != DECL_LEN_V2) || ver < 1 || ver > 2) {
		snprintf(why, wl, "Decline version %d with length %d", ver,
			 len);
		return -1;
	}
	if (want_version && ver != want_version) {
		snprintf(why, wl, "Decline version %d, expected %d", ver,
			 want_version);
		return -1;
	}
	if (get32(b + len - 4) != EYE_R) {
		snprintf(why, wl, "Decline trailer %08x", get32(b + len - 4));
		return -1;
	}
	if (ver == 2 && b[20] >> 4 != 2) {
		snprintf(why, wl, "Decline OS type %u, expected 2 (Linux)",
			 b[20] >> 4);
		return -1;
	}
	c = get32(b + 16);
	/* the out-of-sync bit comes with SYNCERR, and only with it */
	if ((b[7] & 0x0f) != (c == R_SYNCERR ? 0x08 : 0)) {
		snprintf(why, wl, "Decline byte 7 is 0x%02x with code 0x%08x",
			 b[7], c);
		return -1;
	}
	*code = c;
	return 0;
}

/* Header, length and trailer of a Proposal: its length, or -1 */
int check_proposal_frame(const uint8_t *b, int got, char *why,
			 size_t wl)
{
	int len;

	if (got < 8 || get32(b) != EYE_R || b[4] != CLC_PROPOSAL) {
		snprintf(why, wl, "no Proposal header (%d bytes)", got);
		return -1;
	}
	len = get16(b + 5);
	if (len != got || len < 84 || len > CLC_MAX) {
		snprintf(why, wl, "Proposal length %d, read %d", len, got);
		return -1;
	}
	if (get32(b + len - 4) != EYE_R) {
		snprintf(why, wl, "Proposal trailer %08x", get32(b + len - 4));
		return -1;
	}
	return len;
}

/* Where the v2 extension of a Proposal of @len bytes starts, or -1 */
int proposal_v2_ext(const uint8_t *b, int len, char *why, size_t wl)
{
	uint16_t v2off = get16(b + 50);

	if (!v2off || v2off > 172 || 52 + v2off + 40 > len) {
		snprintf(why, wl, "v2 extension offset %u", v2off);
		return -1;
	}
	return 52 + v2off;
}

/*
 * Validate the Proposal of our AF_SMC client: eyecatchers, type 1,
 * version 2, D offered for v2, consistent length, v2 and SMC-Dv2
 * extensions present.  Records the offered GID/CHID entries.
 */
int check_proposal(const uint8_t *b, int got, char *why, size_t wl)
{
	int len, e, g, eids, gids, v1, want, i;
	uint16_t d2off;

	len = check_proposal_frame(b, got, why, wl);
	if (len < 0)
		return -1;
	if (b[7] >> 4 != 2 || ((b[7] >> 2) & 3) != TYPE_D) {
		snprintf(why, wl, "Proposal byte 7 0x%02x: want v2 with D",
			 b[7]);
		return -1;
	}
	v1 = (b[7] & 3) != TYPE_N;
	e = proposal_v2_ext(b, len, why, wl);
	if (e < 0)
		return -1;
	eids = b[e];
	gids = b[e + 1];
	d2off = get16(b + e + 6);
	if (eids > 8 || gids < 1 || gids > 8 || !d2off || d2off > 288) {
		snprintf(why, wl, "v2 extension: %d EIDs, %d GIDs, D2 off %u",
			 eids, gids, d2off);
		return -1;
	}
	g = e + 8 + d2off;
	want = 80 + (v1 ? 8 + 17 * b[80 + get16(b + 38) - 40 + 7] : 0) +
	       40 + 32 * eids + 48 + 10 * gids + 4;
	if (g + 48 + 10 * gids + 4 != len || want != len) {
		snprintf(why, wl, "SMC-Dv2 extension at %d, %d GIDs, length %d",
			 g, gids, len);
		return -1;
	}
	own_ism_cnt = gids;
	for (i = 0; i < gids; i++) {
		own_ism[i].gid = get64(b + g + 48 + 10 * i);
		own_ism[i].chid = get16(b + g + 56 + 10 * i);
	}
	snprintf(why, wl,
		 "proposal ok: length %d, release %d, %d EIDs, %d GID entries, chid 0x%04x",
		 len, b[e + 3] >> 4, eids, gids, own_ism[0].chid);
	return 0;
}

/* The Accept our listener sends to a Proposal with its own GID */
int check_accept(const uint8_t *b, int got, char *why, size_t wl)
{
	int len, fc;

	if (got < 8 || get32(b) != EYE_D || b[4] != CLC_ACCEPT) {
		snprintf(why, wl, "no SMC-D Accept (%d bytes, %08x type %u)",
			 got, got >= 5 ? get32(b) : 0, got >= 5 ? b[4] : 0);
		return -1;
	}
	/*
	 * A first contact carries the first-contact extension (114 or 130
	 * bytes); a link group the server reuses (earlier cases came from
	 * the same GID) gives the 78-byte form without the 0x08 bit.
	 */
	len = get16(b + 5);
	fc = b[7] & 0x08;
	if (len != got || (fc && len != 130 && len != 114) ||
	    (!fc && len != 78)) {
		snprintf(why, wl, "Accept length %d, read %d, byte 7 0x%02x",
			 len, got, b[7]);
		return -1;
	}
	if (get32(b + len - 4) != EYE_D) {
		snprintf(why, wl, "Accept trailer %08x", get32(b + len - 4));
		return -1;
	}
	if ((b[7] & ~0x08) != (2 << 4 | TYPE_D)) {
		snprintf(why, wl, "Accept byte 7 0x%02x", b[7]);
		return -1;
	}
	if (get16(b + 32) != own_ism[0].chid) {
		snprintf(why, wl, "Accept CHID 0x%04x, offered 0x%04x",
			 get16(b + 32), own_ism[0].chid);
		return -1;
	}
	return 0;
}

/* Our loopback GID's second half, the entry after the first */
uint64_t own_gid_ext(void)
{
	if (own_ism_cnt > 1 && own_ism[1].chid == own_ism[0].chid)
		return own_ism[1].gid;
	return 0;
}

/* ------------------------------------------------------------------ */
/* loopback-ism DMB counters (debugfs, optional) */

static int debugfs_mounted_by_us;

static int lo_counter(const char *key, long *val)
{
	char line[128], k[64];
	long v;
	FILE *f;
	int rc = -1;

	f = fopen(LO_DEBUGFS, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", k, &v) == 2 && !strcmp(k, key)) {
			*val = v;
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

static void debugfs_cleanup(void)
{
	if (debugfs_mounted_by_us)
		umount("/sys/kernel/debug");
}

int lo_available(void)
{
	long v;

	if (access("/sys/kernel/debug/smc", F_OK) &&
	    !mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL)) {
		debugfs_mounted_by_us = 1;
		atexit(debugfs_cleanup);
	}
	return !lo_counter("dmbs_registered", &v);
}

int lo_read(struct dmbs *d)
{
	d->att = 0;
	if (lo_counter("dmbs_registered", &d->reg))
		return -1;
	lo_counter("dmbs_attached", &d->att);
	return 0;
}

/* ------------------------------------------------------------------ */
/* set-up, and the counts a run ends with */

int smc_socket_count(void)
{
	struct smc_sock_info *arr;
	int n = smc_diag_dump(&arr);

	if (n >= 0)
		free(arr);
	return n;
}

int smcd_param(void)
{
	char c = '?';
	int fd = open("/sys/module/smc/parameters/smcd", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '?';
		close(fd);
	}
	return c == '1' || c == 'Y' || c == 'y';
}

void common_setup(void)
{
	char why[256];
	int fd;

	if (geteuid())
		ktap_skip_all("must be root");
	fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	if (fd < 0)
		ktap_no_smc(errno);
	close(fd);
	if (cg_setup(why, sizeof(why)) || bpf_setup(why, sizeof(why)))
		ktap_skip_all(why);
}
