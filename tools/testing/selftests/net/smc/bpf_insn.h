/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF programs written as instructions, loaded with the bpf() system
 * call: for the tools that need a small program and neither a BPF
 * compiler nor libbpf (hostile_peer.c, tools/testing/bench's
 * sockmap_redir.c).  The kernel's own builders are not uapi.
 */
#ifndef SMC_SELFTEST_BPF_INSN_H
#define SMC_SELFTEST_BPF_INSN_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#define INSN_ALU64_IMM(op, d, i)	INSN(BPF_ALU64 | BPF_K | (op), d, 0, 0, i)
#define INSN_MOV64_REG(d, s)	INSN(BPF_ALU64 | BPF_X | BPF_MOV, d, s, 0, 0)
#define INSN_ALU32_IMM(op, d, i)	INSN(BPF_ALU | BPF_K | (op), d, 0, 0, i)
#define INSN_ALU32_REG(op, d, s)	INSN(BPF_ALU | BPF_X | (op), d, s, 0, 0)
/* the low 16 bits byte-swapped on a little-endian host, zero-extended */
#define INSN_BE16(d)		INSN(BPF_ALU | BPF_END | BPF_TO_BE, d, 0, 0, 16)
#define INSN_LDX_W(d, s, o)	INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define INSN_STX_W(d, s, o)	INSN(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define INSN_ST_B(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_B, d, 0, o, i)
#define INSN_ST_W(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
/* *(u64 *)(d + o) += s, atomically */
#define INSN_ADD_DW(d, s, o) \
	INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
/* if (d op i) goto pc + 1 + o */
#define INSN_JMP_IMM(op, d, i, o)	INSN(BPF_JMP | BPF_K | (op), d, 0, o, i)
#define INSN_JA(o)		INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define INSN_CALL(f)		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define INSN_EXIT()		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* a map's fd into @reg: two instructions, the loader resolves the fd */
static inline int insn_ld_map_fd(struct bpf_insn *p, int reg, int fd)
{
	p[0] = INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, fd);
	p[1] = INSN(0, 0, 0, 0, 0);
	return 2;
}

static inline int bpf_sys(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/*
 * Load @n instructions as a program of @type (@attach: its expected
 * attach type, or 0); the verifier's words go to @log.  The fd, or -1
 * with errno set.
 */
static inline int bpf_prog_load_insns(int type, int attach,
				      const struct bpf_insn *insns, int n,
				      char *log, size_t len)
{
	union bpf_attr a;
	int fd, err;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.expected_attach_type = attach;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = len;
	a.log_level = 1;
	log[0] = '\0';
	fd = bpf_sys(BPF_PROG_LOAD, &a);
	err = errno;
	log[len - 1] = '\0';
	errno = err;
	return fd;
}

/* Attach program @prog to @target (a cgroup's or a map's fd) as @type */
static inline int bpf_prog_attach_fd(int target, int prog, int type)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = target;
	a.attach_bpf_fd = prog;
	a.attach_type = type;
	return bpf_sys(BPF_PROG_ATTACH, &a);
}

#endif /* SMC_SELFTEST_BPF_INSN_H */
