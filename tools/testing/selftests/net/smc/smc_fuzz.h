/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two files of smc_fuzz share: smc_fuzz.c, the engine (log,
 * fd slots, workers and children, watchdog, setup), and smc_fuzz_ops.c,
 * the ops and the pickers of their arguments.  The limits and timings,
 * the types of the configuration, an address, a worker, a stream of ops
 * and an op, the state both files use and the functions each calls in
 * the other.
 */
#ifndef SMC_SELFTEST_SMC_FUZZ_H
#define SMC_SELFTEST_SMC_FUZZ_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fuzz_rng.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define NR_SLOTS		64
#define NR_PORTS		8
#define NR_PIPES		2
#define NR_FIXED_ADDRS		4	/* 127.0.0.1 ::1 0.0.0.0 :: */
#define MAX_EXTRA_ADDRS		8
#define MAX_THREADS		32
#define MAX_CHILDREN		8
#define MAX_IOV			8
#define MAX_POLL		8
#define MAX_EVENTS		16
#define BUF_LEN			(256 * 1024)	/* each thread's tx and rx */
#define FILE_LEN		(256 * 1024)	/* sendfile's source */
#define SPLICE_MAX		(64 * 1024)
#define SCRATCH_LEN		256		/* option and ioctl values */
#define LINE_LEN		256
#define NO_FD			(-2)		/* the op used no slot */

#define IO_TIMEOUT_MS		200
#define SEED_TIMEOUT_MS		2000	/* a seed pair's connect, accept */
#define SEED_PAIRS		4	/* connected pairs to keep */
#define SEED_DATA_LEN		(64 * 1024)
#define RESEED_EVERY		200	/* ops between the checks */
#define KICK_AFTER_MS		1000
#define KICK_EVERY_MS		500
#define STOP_KICK_MS		200	/* after -t: interrupt sooner */
#define STOP_GRACE_MS		5000
#define CHILD_LIFE_MS		10000
#define CHILD_MAX_OPS		20
#define DEFAULT_HANG_S		60
#define WATCH_TICK_MS		50

#define EXIT_HANG		1
#define EXIT_USAGE		2
#define EXIT_SKIP		4

/* random numbers: fuzz_rng.h, one stream per thread and child */

/* Streams: thread t is t, the main thread's and the children's above */
#define STREAM_MAIN		(1ULL << 48)
#define STREAM_CHILD(t, n)	((1ULL << 32) | ((uint64_t)(t) << 24) | (n))

enum sock_kind { KIND_SMC, KIND_IPPROTO, KIND_TCP, NR_KINDS };

enum selftest { SELFTEST_NONE, SELFTEST_HANG, SELFTEST_INTR };

/* The command line and the environment, set before the threads start */
struct fuzz_cfg {
	uint64_t seed;
	int seconds;
	int nthreads;
	int port_base;
	int want_fork;
	int verbose;
	unsigned int kinds;	/* bits of the usable sock_kinds */
	long hang_ms;
	enum selftest selftest;
};

/* The addresses to bind and connect to; the -a ones follow the fixed 4 */
struct fuzz_addr {
	int family;
	struct in_addr v4;
	struct in6_addr v6;
	char text[INET6_ADDRSTRLEN];
};

enum op_kind {
	OP_RESEED, OP_SEEDPAIR, OP_SOCKET, OP_BIND, OP_LISTEN, OP_CONNECT,
	OP_ACCEPT, OP_SEND, OP_SENDTO, OP_SENDMSG, OP_RECV, OP_RECVFROM,
	OP_RECVMSG, OP_READ, OP_WRITE, OP_READV, OP_WRITEV, OP_SPLICE_IN,
	OP_SPLICE_OUT, OP_SENDFILE, OP_SETSOCKOPT, OP_GETSOCKOPT, OP_IOCTL,
	OP_POLL, OP_EPOLL_CTL, OP_EPOLL_WAIT, OP_SHUTDOWN, OP_CLOSE, OP_DUP,
	OP_GETNAME, OP_FCNTL, OP_FORK, OP_SELFTEST, NR_OPS
};

/* Results counted per op kind: index 0 success, then errno, then others */
#define NR_ERRNO		134
#define RESULT_OTHER		NR_ERRNO
#define NR_RESULTS		(NR_ERRNO + 1)

/* A worker thread as the watchdog and the summary see it */
struct worker {
	pthread_t thread;		/* main's, for pthread_join */
	pthread_t self;			/* the worker's, for pthread_kill */
	int index;
	atomic_long op_start_ms;	/* 0 between ops */
	atomic_ulong op_seq;		/* the op begun last */
	atomic_int done;
	unsigned long kicked_seq;	/* the watchdog's own */
	long kicked_ms;
	char line[LINE_LEN];		/* the op in progress, for HANG */
	char *txbuf;
	char *rxbuf;
	unsigned long op_count[NR_OPS];
	unsigned long op_result[NR_OPS][NR_RESULTS];
};

/* The state of one stream of ops: a worker thread or a forked child */
struct fuzz_ctx {
	struct rng rng;
	struct worker *w;	/* a child keeps its copy of the parent's */
	char label[40];		/* "t3", in a child "t3.c7" */
	unsigned long seq;
	unsigned long forks;	/* fork ops attempted: child serials */
	enum op_kind op;	/* the op in progress */
	int in_child;
	int fd;			/* the fd the op used, for the log */
	unsigned char scratch[SCRATCH_LEN] __attribute__((aligned(8)));
};

struct op_desc {
	const char *name;
	unsigned int weight;
	long (*run)(struct fuzz_ctx *ctx);
};

/* smc_fuzz.c: the configuration and the state the ops share */
extern const char *const kind_names[NR_KINDS];
extern struct fuzz_cfg cfg;
extern struct fuzz_addr addrs[NR_FIXED_ADDRS + MAX_EXTRA_ADDRS];
extern int nr_addrs;
extern atomic_int slots[NR_SLOTS];
extern int pipes[NR_PIPES][2];
extern int data_fd;
extern int epoll_fds[MAX_THREADS];
extern atomic_int stopping;
extern atomic_ulong pairs_seeded;

/* smc_fuzz.c: the log and the slots as the ops use them */
void __attribute__((format(printf, 2, 3)))
op_begin(struct fuzz_ctx *ctx, const char *fmt, ...);
void op_progress(struct fuzz_ctx *ctx);
int slot_get(struct fuzz_ctx *ctx, int slot);
void slot_put(int slot, int fd);
int slot_take(int slot);

/* smc_fuzz.c: the op that forks a child running ops of its own */
long op_fork(struct fuzz_ctx *ctx);

/* smc_fuzz_ops.c: the ops by kind, and a socket of a kind */
extern const struct op_desc op_table[NR_OPS];
int open_socket(enum sock_kind kind, int v6, int flags);

#endif /* SMC_SELFTEST_SMC_FUZZ_H */
