// SPDX-License-Identifier: GPL-2.0
/*
 * smc_run's BPF way: the TCP sockets of one cgroup become IPPROTO_SMC ones
 *
 * smc_run_proto changes what socket(2) asks for: a stream socket of
 * AF_INET or AF_INET6 with protocol 0 or IPPROTO_TCP, asked for by a task
 * in the cgroup of slot 0 of "scope" or below it, is created with
 * IPPROTO_SMC instead.  Every other call is left alone by returning 0, so
 * that update_socket_protocol() itself, and any other fmod_ret program on
 * it, still decides: a nonzero return ends the chain.
 *
 * smc_run_bufs, attached to the same cgroup only when smc_run was given
 * -r or -t, sets SO_RCVBUF and SO_SNDBUF on the IPPROTO_SMC sockets created
 * there, as the preload library does with setsockopt() after socket().
 * It needs the BPF LSM to be active.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* macros of the uAPI, which BTF does not carry */
#define AF_INET		2
#define AF_INET6	10
#define SOL_SOCKET	1
#define SO_SNDBUF	7
#define SO_RCVBUF	8
/* socket(2)'s type also carries SOCK_NONBLOCK and SOCK_CLOEXEC */
#define SMC_RUN_TYPE_MASK	0xf
/* IPPROTO_SMC (6.11); not in the BTF of every kernel vmlinux.h is from */
#define SMC_RUN_IPPROTO_SMC	256

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} scope SEC(".maps");

/*
 * Bytes for SO_RCVBUF and SO_SNDBUF, 0 for the kernel's default; set by
 * the loader before the load (volatile: the compiler must not fold them)
 */
const volatile int rcvbuf;
const volatile int sndbuf;

static bool smc_run_inet_stream(int family, int type)
{
	return (family == AF_INET || family == AF_INET6) &&
	       (type & SMC_RUN_TYPE_MASK) == SOCK_STREAM;
}

SEC("fmod_ret/update_socket_protocol")
int BPF_PROG(smc_run_proto, int family, int type, int protocol)
{
	if (!smc_run_inet_stream(family, type))
		return 0;
	if (protocol != 0 && protocol != IPPROTO_TCP)
		return 0;
	/* 1: under the cgroup; 0: not; < 0: the slot is empty */
	if (bpf_current_task_under_cgroup(&scope, 0) != 1)
		return 0;
	return SMC_RUN_IPPROTO_SMC;
}

SEC("lsm_cgroup/socket_post_create")
int BPF_PROG(smc_run_bufs, struct socket *sock, int family, int type,
	     int protocol, int kern)
{
	struct sock *sk;
	int val;

	/* 1 lets the socket be created: this program only tunes it */
	if (kern || protocol != SMC_RUN_IPPROTO_SMC ||
	    !smc_run_inet_stream(family, type))
		return 1;
	sk = sock->sk;
	if (!sk)
		return 1;
	if (sndbuf) {
		val = sndbuf;
		bpf_setsockopt(sk, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val));
	}
	if (rcvbuf) {
		val = rcvbuf;
		bpf_setsockopt(sk, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val));
	}
	return 1;
}
