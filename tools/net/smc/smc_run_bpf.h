/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_run_bpf - run commands over SMC through BPF: shared declarations
 */
#ifndef SMC_RUN_BPF_H
#define SMC_RUN_BPF_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn	__attribute__((noreturn))
#endif
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* socket(2)'s protocol for SMC over an AF_INET or AF_INET6 socket (6.11) */
#define SMC_IPPROTO_SMC		256

/* smc_run_bpf.c: messages; smc_dbg() only with -d */
extern bool smc_debug;
__printf(1, 2) void smc_err(const char *fmt, ...);
__printf(1, 2) void smc_dbg(const char *fmt, ...);

/* smc_run_cgroup.c: cgroup v2, every access through directory fds */
struct smc_cg {
	int fd;			/* the cgroup's directory */
	int parent_fd;		/* where ours was made, or -1 */
	int orig_fd;		/* the loader's own cgroup, or -1 */
	char name[32];		/* ours: its name in parent_fd */
	char path[PATH_MAX];	/* for messages */
};

void smc_cg_init(struct smc_cg *cg);
int smc_cg_make(struct smc_cg *cg);
int smc_cg_open(struct smc_cg *cg, const char *path);
int smc_cg_enter(int cg_fd);
int smc_cg_wait_empty(int cg_fd);
int smc_cg_remove(int parent_fd, const char *name, int fd);
void smc_cg_close(struct smc_cg *cg);

/* smc_run_attach.c: the BPF programs, through their libbpf skeleton */
struct smc_run;
struct bpf_link;

struct smc_bpf {
	struct smc_run *skel;
	struct bpf_link *proto;	/* fmod_ret on update_socket_protocol */
	struct bpf_link *bufs;	/* lsm_cgroup on socket_post_create */
};

int smc_bpf_load(struct smc_bpf *b, int rcvbuf, int sndbuf);
int smc_bpf_attach(struct smc_bpf *b, int cg_fd);
int smc_bpf_link_fds(const struct smc_bpf *b, int *fds, int max);
void smc_bpf_describe(const struct smc_bpf *b, char *buf, size_t len);
int smc_bpf_pin(struct smc_bpf *b, const char *dir);
int smc_bpf_unpin(const char *dir);
void smc_bpf_close(struct smc_bpf *b);

/* smc_run_keep.c: the process that holds the links while they last */
struct smc_keep {
	int fds[4];		/* the links */
	int nfds;
	int cg_fd;		/* wait until this cgroup is empty, or -1 */
	int parent_fd;		/* ... then remove it from here */
	const char *name;
	int pidfd;		/* or wait until this process has exited */
};

pid_t smc_keep_start(const struct smc_keep *k);

#endif /* SMC_RUN_BPF_H */
