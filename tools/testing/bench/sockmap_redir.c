// SPDX-License-Identifier: GPL-2.0
/*
 * sockmap_redir: the same-host shortcut that BPF sockmap deployments
 * (Envoy's sockmap socket interface, Merbridge, Cilium's former sockops
 * acceleration) put between local TCP sockets, for make bench.
 *
 *   sockmap_redir up CGROUP DIR      attach to cgroup v2 dir CGROUP,
 *                                    maps pinned in bpffs dir DIR
 *   sockmap_redir stats DIR [reset]  "redirected N passed M sockets S"
 *   sockmap_redir down CGROUP DIR    detach, remove DIR
 *
 * A sock_ops program puts every established IPv4 TCP socket of the
 * cgroup into a SOCKHASH, keyed by its 4-tuple; an sk_msg program on
 * that map looks up the peer of each sendmsg() by the reversed tuple
 * and redirects the message into the peer's receive queue, so the data
 * never goes through TCP.  The programs are written as BPF instructions
 * here, so the tool needs no compiler for BPF and no libbpf.  It counts
 * the sockets put into the map, the messages redirected and those that
 * went on over TCP (peer not in the map) in an array map pinned at
 * DIR/stats: that is the path check.  The SOCKHASH is pinned too
 * (DIR/hash): a map's programs are detached when the last file or pin
 * of it goes, and the sock_ops program's hold on it does not count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bpf_insn.h"

#define MAP_ENTRIES	65536
#define STAT_REDIRECTED	0	/* messages into the peer's queue */
#define STAT_PASSED	1	/* messages on over TCP */
#define STAT_SOCKETS	2	/* sockets put into the map */
#define STATS		3

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R6 BPF_REG_6
#define FP BPF_REG_10

static int map_create(int type, int key, int value, int entries)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = entries;
	return bpf_sys(BPF_MAP_CREATE, &a);
}

static char verifier_log[65536];

static int prog_load(int type, int attach, const struct bpf_insn *insns,
		     int n)
{
	int fd = bpf_prog_load_insns(type, attach, insns, n, verifier_log,
				     sizeof(verifier_log));

	if (fd < 0)
		fprintf(stderr, "sockmap_redir: program load: %s\n%s\n",
			strerror(errno), verifier_log);
	return fd;
}

/*
 * A port of the context in host order, for the key.  remote_port is in
 * network order; kernels have placed its 16 bits in either half of the
 * word, so both halves are folded together (a port is never 0).
 */
static int emit_remote_port(struct bpf_insn *p, int reg, int off)
{
	struct bpf_insn *s = p;

	*p++ = INSN_LDX_W(reg, R6, off);
	*p++ = INSN_ALU32_REG(BPF_MOV, R0, reg);
	*p++ = INSN_ALU32_IMM(BPF_RSH, R0, 16);
	*p++ = INSN_ALU32_IMM(BPF_AND, reg, 0xffff);
	*p++ = INSN_ALU32_REG(BPF_OR, reg, R0);
	*p++ = INSN_BE16(reg);
	return p - s;
}

/*
 * Key of a socket as {local ip, remote ip, local port, remote port},
 * on the stack at FP-16.  @self: the socket's own key; otherwise its
 * peer's (the same tuple reversed).
 */
static int emit_key(struct bpf_insn *p, bool self, int lip, int rip,
		    int lport, int rport)
{
	struct bpf_insn *s = p;

	*p++ = INSN_LDX_W(R2, R6, lip);
	*p++ = INSN_STX_W(FP, R2, self ? -16 : -12);
	*p++ = INSN_LDX_W(R2, R6, rip);
	*p++ = INSN_STX_W(FP, R2, self ? -12 : -16);
	*p++ = INSN_LDX_W(R2, R6, lport);
	*p++ = INSN_STX_W(FP, R2, self ? -8 : -4);
	p += emit_remote_port(p, R2, rport);
	*p++ = INSN_STX_W(FP, R2, self ? -4 : -8);
	return p - s;
}

/* @helper(the context, @hash, the key at FP-16, @flags); result in R0 */
static int emit_hash_call(struct bpf_insn *p, int hash, int flags,
			  int helper)
{
	struct bpf_insn *s = p;

	*p++ = INSN_MOV64_REG(R1, R6);
	p += insn_ld_map_fd(p, R2, hash);
	*p++ = INSN_MOV64_REG(R3, FP);
	*p++ = INSN_ALU64_IMM(BPF_ADD, R3, -16);
	*p++ = INSN_ALU64_IMM(BPF_MOV, R4, flags);
	*p++ = INSN_CALL(helper);
	return p - s;
}

/* count stats[@idx] up by one; clobbers R1-R4, R0 */
static int emit_count(struct bpf_insn *p, int stats, int idx)
{
	struct bpf_insn *s = p;

	*p++ = INSN_ST_W(FP, -20, idx);
	p += insn_ld_map_fd(p, R1, stats);
	*p++ = INSN_MOV64_REG(R2, FP);
	*p++ = INSN_ALU64_IMM(BPF_ADD, R2, -20);
	*p++ = INSN_CALL(BPF_FUNC_map_lookup_elem);
	*p++ = INSN_JMP_IMM(BPF_JEQ, R0, 0, 2);
	*p++ = INSN_ALU64_IMM(BPF_MOV, R1, 1);
	*p++ = INSN_ADD_DW(R0, R1, 0);
	return p - s;
}

/* sock_ops: established sockets into the hash */
static int load_sockops(int hash, int stats)
{
	struct bpf_insn prog[96], *p = prog, *skip, *failed;

	*p++ = INSN_MOV64_REG(R6, R1);
	*p++ = INSN_LDX_W(R2, R6, offsetof(struct bpf_sock_ops, op));
	*p++ = INSN_JMP_IMM(BPF_JEQ, R2, BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB,
			     1);
	skip = p;
	*p++ = INSN_JMP_IMM(BPF_JNE, R2, BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB, 0);
	*p++ = INSN_LDX_W(R2, R6, offsetof(struct bpf_sock_ops, family));
	*p++ = INSN_JMP_IMM(BPF_JNE, R2, 2 /* AF_INET */, 0);
	p += emit_key(p, true, offsetof(struct bpf_sock_ops, local_ip4),
		      offsetof(struct bpf_sock_ops, remote_ip4),
		      offsetof(struct bpf_sock_ops, local_port),
		      offsetof(struct bpf_sock_ops, remote_port));
	p += emit_hash_call(p, hash, BPF_ANY, BPF_FUNC_sock_hash_update);
	failed = p;
	*p++ = INSN_JMP_IMM(BPF_JNE, R0, 0, 0);
	p += emit_count(p, stats, STAT_SOCKETS);
	/* the three jumps to "out" */
	skip[0].off = p - skip - 1;
	skip[2].off = p - skip - 3;
	failed->off = p - failed - 1;
	*p++ = INSN_ALU64_IMM(BPF_MOV, R0, 1);
	*p++ = INSN_EXIT();
	return prog_load(BPF_PROG_TYPE_SOCK_OPS, 0, prog, p - prog);
}

/* sk_msg: each message to the peer's receive queue, or on over TCP */
static int load_skmsg(int hash, int stats)
{
	struct bpf_insn prog[96], *p = prog, *notv4, *miss;

	*p++ = INSN_MOV64_REG(R6, R1);
	*p++ = INSN_LDX_W(R2, R6, offsetof(struct sk_msg_md, family));
	notv4 = p;
	*p++ = INSN_JMP_IMM(BPF_JNE, R2, 2 /* AF_INET */, 0);
	p += emit_key(p, false, offsetof(struct sk_msg_md, local_ip4),
		      offsetof(struct sk_msg_md, remote_ip4),
		      offsetof(struct sk_msg_md, local_port),
		      offsetof(struct sk_msg_md, remote_port));
	p += emit_hash_call(p, hash, BPF_F_INGRESS, BPF_FUNC_msg_redirect_hash);
	miss = p;
	*p++ = INSN_JMP_IMM(BPF_JNE, R0, SK_PASS, 0);
	p += emit_count(p, stats, STAT_REDIRECTED);
	*p++ = INSN_ALU64_IMM(BPF_MOV, R0, SK_PASS);
	*p++ = INSN_EXIT();
	notv4->off = p - notv4 - 1;
	miss->off = p - miss - 1;
	p += emit_count(p, stats, STAT_PASSED);
	*p++ = INSN_ALU64_IMM(BPF_MOV, R0, SK_PASS);
	*p++ = INSN_EXIT();
	return prog_load(BPF_PROG_TYPE_SK_MSG, BPF_SK_MSG_VERDICT, prog,
			 p - prog);
}

static int obj_pin(int fd, const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.bpf_fd = fd;
	a.pathname = (uintptr_t)path;
	return bpf_sys(BPF_OBJ_PIN, &a);
}

static int obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uintptr_t)path;
	return bpf_sys(BPF_OBJ_GET, &a);
}

static int die(const char *what)
{
	fprintf(stderr, "sockmap_redir: %s: %s\n", what, strerror(errno));
	return 1;
}

static void pin_path(char *buf, size_t len, const char *dir,
		     const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int up(const char *cgroup, const char *dir)
{
	int hash, stats, sockops, skmsg, cg;
	char pin[512];

	cg = open(cgroup, O_RDONLY | O_DIRECTORY);
	if (cg < 0)
		return die(cgroup);
	hash = map_create(BPF_MAP_TYPE_SOCKHASH, 16, 4, MAP_ENTRIES);
	if (hash < 0)
		return die("SOCKHASH");
	stats = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, STATS);
	if (stats < 0)
		return die("stats map");
	skmsg = load_skmsg(hash, stats);
	sockops = load_sockops(hash, stats);
	if (skmsg < 0 || sockops < 0)
		return 1;
	/* the verdict first: sockets get it as they enter the map */
	if (bpf_prog_attach_fd(hash, skmsg, BPF_SK_MSG_VERDICT))
		return die("sk_msg attach");
	if (bpf_prog_attach_fd(cg, sockops, BPF_CGROUP_SOCK_OPS))
		return die("sock_ops attach");
	if (mkdir(dir, 0700) && errno != EEXIST)
		return die(dir);
	pin_path(pin, sizeof(pin), dir, "hash");
	if (obj_pin(hash, pin))
		return die(pin);
	pin_path(pin, sizeof(pin), dir, "stats");
	if (obj_pin(stats, pin))
		return die(pin);
	return 0;
}

static int stats(const char *dir, bool reset)
{
	uint64_t v[STATS] = {}, zero = 0;
	union bpf_attr a;
	char pin[512];
	uint32_t k;
	int fd;

	pin_path(pin, sizeof(pin), dir, "stats");
	fd = obj_get(pin);
	if (fd < 0)
		return die(pin);
	for (k = 0; k < STATS; k++) {
		memset(&a, 0, sizeof(a));
		a.map_fd = fd;
		a.key = (uintptr_t)&k;
		a.value = (uintptr_t)&v[k];
		if (bpf_sys(BPF_MAP_LOOKUP_ELEM, &a))
			return die("stats lookup");
		if (!reset)
			continue;
		a.value = (uintptr_t)&zero;
		if (bpf_sys(BPF_MAP_UPDATE_ELEM, &a))
			return die("stats reset");
	}
	printf("redirected %llu passed %llu sockets %llu\n",
	       (unsigned long long)v[STAT_REDIRECTED],
	       (unsigned long long)v[STAT_PASSED],
	       (unsigned long long)v[STAT_SOCKETS]);
	return 0;
}

static int down(const char *cgroup, const char *dir)
{
	static const char * const names[] = { "hash", "stats" };
	union bpf_attr a;
	int cg, rc = 0;
	char pin[512];
	size_t i;

	cg = open(cgroup, O_RDONLY | O_DIRECTORY);
	if (cg >= 0) {
		memset(&a, 0, sizeof(a));
		a.target_fd = cg;
		a.attach_type = BPF_CGROUP_SOCK_OPS;
		if (bpf_sys(BPF_PROG_DETACH, &a))
			rc = die("sock_ops detach");
		close(cg);
	}
	/* the maps and the verdict go with the last socket in the map */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		pin_path(pin, sizeof(pin), dir, names[i]);
		if (unlink(pin) && errno != ENOENT)
			rc = die(pin);
	}
	if (rmdir(dir) && errno != ENOENT)
		rc = die(dir);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "up"))
		return up(argv[2], argv[3]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "stats"))
		return stats(argv[2], argc == 4 && !strcmp(argv[3], "reset"));
	if (argc == 4 && !strcmp(argv[1], "down"))
		return down(argv[2], argv[3]);
	fprintf(stderr,
		"usage: sockmap_redir up CGROUP DIR | stats DIR [reset] | down CGROUP DIR\n");
	return 2;
}
