// SPDX-License-Identifier: GPL-2.0
/*
 * smc_fuzz: a seeded fuzzer of system-call sequences on SMC sockets.
 *
 * Worker threads share a table of 64 fd slots holding SMC sockets in every
 * state (fresh, bound, listening, connecting, connected, accepted) and race
 * random socket calls against each other on them: connect, accept, the
 * send and receive families, splice and sendfile, socket options, ioctls,
 * poll and epoll, shutdown, close, dup and, with -f, fork.  Every 200 ops
 * a thread checks that at least 4 connected pairs exist and otherwise makes
 * "seed pairs" (listener, blocking connect, accept), so that the random
 * calls meet real, established SMC connections: SMC-D over loopback-ism
 * between local addresses, SMC-R to the -a addresses of an SMC-R bed.
 *
 * The program detects nothing in the kernel itself: KASAN, lockdep and
 * hung-task splats are caught by the harness around it.  It drives load,
 * stays bounded, logs what it did and reports its own hangs:
 *  - every socket it makes or accepts gets SO_RCVTIMEO and SO_SNDTIMEO of
 *    200 ms (which the random setsockopts may change, 0 included);
 *  - a watchdog thread sends SIGUSR1 (handler without SA_RESTART) to a
 *    worker that has been in one op for more than 1 s, every 500 ms, and
 *    when one op lasts longer than 60 s (SMC_FUZZ_HANG_S) it prints
 *    "HANG: <op line>" for it, and exits 1 at once;
 *  - forked children are SIGKILLed 10 s after the fork.
 *
 * Usage:
 *   smc_fuzz [-s SEED] [-t SECONDS] [-j THREADS] [-l LOGFILE] [-a ADDR]...
 *            [-p PORTBASE] [-P smc|ipproto|both] [-f] [-v]
 *
 * The ops a thread attempts depend on the seed and the thread index only:
 * op kinds, slot indexes and arguments come from the thread's PRNG and
 * never from results, so "-j 1 -s SEED" attempts the same sequence again.
 * With -l every op is logged before the call ("t<thread> #<seq> <op>
 * <args>") and its result after it ("t<thread> #<seq> = <ret|-ERRNO>",
 * then "fd=N" if it used a slot), one write(2) per line, so the last
 * lines survive a kernel crash; "-l -" logs to stdout.  Children forked
 * by thread t log as "t<t>.c<n>".
 *
 * Exit status: 0 done, 1 hang, 2 usage error, 4 (skip) no SMC socket.
 *
 * Environment, for testing the program itself:
 *   SMC_FUZZ_TCP=1              plain TCP sockets (a kernel without SMC)
 *   SMC_FUZZ_HANG_S=N           the hang threshold, default 60 s
 *   SMC_FUZZ_SELFTEST_HANG=1    thread 0 blocks SIGUSR1 and sleeps in its
 *                               second op: the watchdog must report HANG
 *   SMC_FUZZ_SELFTEST_HANG=intr thread 0's second op is a recv() without
 *                               timeout on a seeded connection: the
 *                               watchdog's SIGUSR1 must end it (EINTR)
 *
 * This file is the engine: the log, the fd slots, the workers and the
 * forked children, the watchdog, setup and the command line.  The ops
 * and the pickers of their arguments are in smc_fuzz_ops.c; what both
 * share is in smc_fuzz.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz_rng.h"
#include "smc_fuzz.h"
#include "timeutil.h"

const char *const kind_names[NR_KINDS] = { "smc", "ipproto", "tcp" };

struct fuzz_cfg cfg = {
	.seconds = 60,
	.nthreads = 4,
	.port_base = 40000,
	.hang_ms = DEFAULT_HANG_S * 1000L,
};

static int log_fd = -1;
static int log_is_stderr;	/* -l - with 2>&1: report() once */
static atomic_int log_muted;	/* hang_exit: its report ends the log */

struct fuzz_addr addrs[NR_FIXED_ADDRS + MAX_EXTRA_ADDRS];
int nr_addrs;

/* What all threads share: the fd slots and the helper fds */
atomic_int slots[NR_SLOTS];
int pipes[NR_PIPES][2];
int data_fd = -1;
int epoll_fds[MAX_THREADS];

atomic_int stopping;		/* workers: no new op */
static atomic_int reap_all;		/* watchdog: SIGKILL all children */
static atomic_int watchdog_stop;
atomic_ulong pairs_seeded;
static atomic_ulong children_forked;
static atomic_ulong children_killed;
static atomic_ulong kicks_sent;

static struct worker workers[MAX_THREADS];

/* "EAGAIN", or "E11" where the C library has no names */
static int format_errno(char *buf, size_t len, int err)
{
	const char *name = NULL;

#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 32)
	name = strerrorname_np(err);
#endif
	if (name)
		return snprintf(buf, len, "%s", name);
	return snprintf(buf, len, "E%d", err);
}

static int result_index(long ret)
{
	if (ret >= 0)
		return 0;
	return -ret < NR_ERRNO ? -ret : RESULT_OTHER;
}

static void write_line(int fd, const char *buf, size_t len)
{
	ssize_t written;

	if (fd < 0)
		return;
	written = write(fd, buf, len);
	(void)written;		/* a full disk must not stop the run */
}

static void log_write(const char *buf, size_t len)
{
	if (!atomic_load_explicit(&log_muted, memory_order_relaxed))
		write_line(log_fd, buf, len);
}

/* One line to stderr and to the log */
static void __attribute__((format(printf, 1, 2))) report(const char *fmt, ...)
{
	char buf[LINE_LEN + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs(buf, stderr);
	if (!log_is_stderr)
		write_line(log_fd, buf, strlen(buf));
}

/* The op is still making progress: restart the watchdog's clock */
void op_progress(struct fuzz_ctx *ctx)
{
	long now = now_ms();

	atomic_store(&ctx->w->op_start_ms, now > 0 ? now : 1);
}

/*
 * Called by each op once its arguments are drawn and before its first
 * system call: the op line goes to the log and to the watchdog.
 */
void __attribute__((format(printf, 2, 3)))
op_begin(struct fuzz_ctx *ctx, const char *fmt, ...)
{
	char *line = ctx->w->line;
	va_list ap;
	int n;

	n = snprintf(line, LINE_LEN, "%s #%lu %s ", ctx->label, ctx->seq,
		     op_table[ctx->op].name);
	va_start(ap, fmt);
	n += vsnprintf(line + n, LINE_LEN - n - 1, fmt, ap);
	va_end(ap);
	if (n > LINE_LEN - 2)
		n = LINE_LEN - 2;
	line[n++] = '\n';
	line[n] = '\0';
	log_write(line, n);
	atomic_store(&ctx->w->op_seq, ctx->seq);
	op_progress(ctx);
}

static void op_end(struct fuzz_ctx *ctx, long ret)
{
	char buf[128];
	int n;

	atomic_store(&ctx->w->op_start_ms, 0);
	ctx->w->op_count[ctx->op]++;
	ctx->w->op_result[ctx->op][result_index(ret)]++;
	if (log_fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%s #%lu = ", ctx->label, ctx->seq);
	if (ret >= 0) {
		n += snprintf(buf + n, sizeof(buf) - n, "%ld", ret);
	} else {
		buf[n++] = '-';
		n += format_errno(buf + n, sizeof(buf) - n, -ret);
	}
	if (ctx->fd != NO_FD)
		n += snprintf(buf + n, sizeof(buf) - n, " fd=%d", ctx->fd);
	buf[n++] = '\n';
	log_write(buf, n);
}

/*
 * Slots.  Whoever takes an fd out of a slot (by exchange) closes it, so
 * no fd is closed twice; another thread may still be using the number,
 * or use it after it was reused for a new socket: that race is intended.
 */
int slot_get(struct fuzz_ctx *ctx, int slot)
{
	ctx->fd = atomic_load_explicit(&slots[slot], memory_order_relaxed);
	return ctx->fd;
}

void slot_put(int slot, int fd)
{
	int old = atomic_exchange(&slots[slot], fd);

	if (old >= 0)
		close(old);
}

int slot_take(int slot)
{
	return atomic_exchange(&slots[slot], -1);
}

/* ------------------------------------------------------------------ */
/* Picking and running ops: the workers                               */

static unsigned int op_weight(const struct fuzz_ctx *ctx, int op)
{
	if (op == OP_FORK && (!cfg.want_fork || ctx->in_child))
		return 0;
	return op_table[op].weight;
}

static enum op_kind pick_op(struct fuzz_ctx *ctx)
{
	unsigned int total = 0, r;
	int op;

	for (op = 0; op < NR_OPS; op++)
		total += op_weight(ctx, op);
	r = rng_below(&ctx->rng, total);
	for (op = 0; op < NR_OPS; op++) {
		if (r < op_weight(ctx, op))
			break;
		r -= op_weight(ctx, op);
	}
	return op;
}

static void run_op(struct fuzz_ctx *ctx, enum op_kind op)
{
	long ret;

	ctx->seq++;
	ctx->op = op;
	ctx->fd = NO_FD;
	ret = op_table[op].run(ctx);
	op_end(ctx, ret);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct fuzz_ctx ctx;

	w->self = pthread_self();	/* before the first op_start_ms */
	memset(&ctx, 0, sizeof(ctx));
	ctx.w = w;
	rng_seed(&ctx.rng, cfg.seed, w->index);
	snprintf(ctx.label, sizeof(ctx.label), "t%d", w->index);
	while (!atomic_load(&stopping)) {
		if (ctx.seq % RESEED_EVERY == 0)
			run_op(&ctx, OP_RESEED);
		else if (cfg.selftest && w->index == 0 && ctx.seq == 1)
			run_op(&ctx, OP_SELFTEST);
		else
			run_op(&ctx, pick_op(&ctx));
	}
	atomic_store(&w->done, 1);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* fork: a child runs a few ops on the inherited fds                  */

struct child {
	pid_t pid;		/* 0 free, -1 reserved by a forking thread */
	int thread;
	unsigned long serial;
	long forked_ms;
	long killed_ms;		/* 0 until SIGKILLed */
};

static struct child children[MAX_CHILDREN];
static pthread_mutex_t children_lock = PTHREAD_MUTEX_INITIALIZER;

static int child_reserve(void)
{
	int i;

	pthread_mutex_lock(&children_lock);
	for (i = 0; i < MAX_CHILDREN; i++) {
		if (!children[i].pid) {
			children[i].pid = -1;
			break;
		}
	}
	pthread_mutex_unlock(&children_lock);
	return i < MAX_CHILDREN ? i : -1;
}

static void child_register(int idx, pid_t pid, int thread,
			   unsigned long serial)
{
	pthread_mutex_lock(&children_lock);
	children[idx].pid = pid > 0 ? pid : 0;
	children[idx].thread = thread;
	children[idx].serial = serial;
	children[idx].forked_ms = now_ms();
	children[idx].killed_ms = 0;
	pthread_mutex_unlock(&children_lock);
}

/*
 * In the child only the forking thread exists: no locks, no malloc, no
 * stdio; the log is written with write(2) as everywhere else.
 */
static void __attribute__((noreturn))
child_main(struct fuzz_ctx *parent, unsigned long serial, pid_t ppid)
{
	struct fuzz_ctx ctx = *parent;
	int nops;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != ppid)
		_exit(0);
	rng_seed(&ctx.rng, cfg.seed, STREAM_CHILD(parent->w->index, serial));
	snprintf(ctx.label, sizeof(ctx.label), "t%d.c%lu", parent->w->index,
		 serial);
	ctx.seq = 0;
	ctx.in_child = 1;
	nops = 1 + rng_below(&ctx.rng, CHILD_MAX_OPS);
	while (nops--)
		run_op(&ctx, pick_op(&ctx));
	_exit(0);
}

long op_fork(struct fuzz_ctx *ctx)
{
	unsigned long serial = ctx->forks++;
	pid_t ppid = getpid();
	int idx, err;
	pid_t pid;

	op_begin(ctx, "c%lu", serial);
	idx = child_reserve();
	if (idx < 0)
		return -EAGAIN;		/* MAX_CHILDREN alive */
	pid = fork();
	if (pid == 0)
		child_main(ctx, serial, ppid);
	err = pid < 0 ? -errno : 0;
	child_register(idx, pid, ctx->w->index, serial);
	if (pid < 0)
		return err;
	atomic_fetch_add(&children_forked, 1);
	return pid;
}

/* ------------------------------------------------------------------ */
/* Summary and the watchdog                                           */

static unsigned long total_ops(void)
{
	unsigned long ops = 0;
	int i;

	for (i = 0; i < cfg.nthreads; i++)
		ops += atomic_load(&workers[i].op_seq);
	return ops;
}

static void print_summary(int hangs)
{
	printf("smc_fuzz: %lu ops, %lu connections seeded, %lu children, %d hangs\n",
	       total_ops(), atomic_load(&pairs_seeded),
	       atomic_load(&children_forked), hangs);
	fflush(stdout);
}

static void print_result_share(int idx, unsigned long n, unsigned long count)
{
	char name[24];

	if (idx == 0)
		snprintf(name, sizeof(name), "ok");
	else if (idx == RESULT_OTHER)
		snprintf(name, sizeof(name), "other");
	else
		format_errno(name, sizeof(name), idx);
	printf("  %s %.1f%%", name, 100.0 * n / count);
}

/* -v: per op kind the count and the three most frequent results */
static void print_op_table(void)
{
	unsigned long res[NR_RESULTS];
	int op, i, k, best;

	printf("smc_fuzz: op           count  results (top 3)\n");
	for (op = 0; op < NR_OPS; op++) {
		unsigned long count = 0;

		memset(res, 0, sizeof(res));
		for (i = 0; i < cfg.nthreads; i++) {
			count += workers[i].op_count[op];
			for (k = 0; k < NR_RESULTS; k++)
				res[k] += workers[i].op_result[op][k];
		}
		if (!count)
			continue;
		printf("smc_fuzz: %-12s %8lu", op_table[op].name, count);
		for (i = 0; i < 3; i++) {
			best = 0;
			for (k = 1; k < NR_RESULTS; k++)
				if (res[k] > res[best])
					best = k;
			if (!res[best])
				break;
			print_result_share(best, res[best], count);
			res[best] = 0;
		}
		printf("\n");
	}
	printf("smc_fuzz: watchdog: %lu signals, %lu children SIGKILLed\n",
	       atomic_load(&kicks_sent), atomic_load(&children_killed));
}

/* The op line of a worker without its newline */
static void copy_op_line(const struct worker *w, char *buf)
{
	size_t len;

	memcpy(buf, w->line, LINE_LEN);
	buf[LINE_LEN - 1] = '\0';
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
}

static int report_stuck_children(long now)
{
	int i, hangs = 0;

	pthread_mutex_lock(&children_lock);
	for (i = 0; i < MAX_CHILDREN; i++) {
		struct child *c = &children[i];

		if (c->pid <= 0)
			continue;
		if (c->killed_ms && now - c->killed_ms >= cfg.hang_ms) {
			report("HANG: child %d (t%d.c%lu) %ld ms after SIGKILL\n",
			       c->pid, c->thread, c->serial,
			       now - c->killed_ms);
			hangs++;
		}
		kill(c->pid, SIGKILL);
	}
	pthread_mutex_unlock(&children_lock);
	return hangs;
}

/*
 * The workers in one op for long (1 s) first, then those past the hang
 * limit, each once; returns how many were past it.
 */
static int report_stuck_workers(long now)
{
	char line[LINE_LEN];
	int i, pass, hung, hangs = 0;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < cfg.nthreads; i++) {
			long age = now - atomic_load(&workers[i].op_start_ms);

			if (!atomic_load(&workers[i].op_start_ms) ||
			    age < KICK_AFTER_MS)
				continue;
			hung = age >= cfg.hang_ms;
			if (hung != pass)
				continue;
			copy_op_line(&workers[i], line);
			if (hung)
				report("HANG: %s\n", line);
			else
				report("smc_fuzz: in op for %ld ms: %s\n",
				       age, line);
			hangs += hung;
		}
	}
	return hangs;
}

/* A hang: report it, SIGKILL the children and exit 1 at once */
static void __attribute__((noreturn)) hang_exit(long now)
{
	int hangs;

	/* the other workers go on until _exit: keep the report last */
	atomic_store(&log_muted, 1);
	hangs = report_stuck_workers(now);
	hangs += report_stuck_children(now);
	print_summary(hangs);
	_exit(EXIT_HANG);
}

/*
 * SIGUSR1 to a worker in one op for more than KICK_AFTER_MS, every
 * KICK_EVERY_MS (sooner once stopping); 1 if one is past the hang limit.
 */
static int watch_workers(long now)
{
	int stop = atomic_load(&stopping);
	long after = stop ? STOP_KICK_MS : KICK_AFTER_MS;
	long every = stop ? STOP_KICK_MS : KICK_EVERY_MS;
	int i, hung = 0;

	for (i = 0; i < cfg.nthreads; i++) {
		struct worker *w = &workers[i];
		long start = atomic_load(&w->op_start_ms);
		unsigned long seq = atomic_load(&w->op_seq);

		if (!start || atomic_load(&w->done))
			continue;
		if (seq != w->kicked_seq) {
			w->kicked_seq = seq;
			w->kicked_ms = 0;
		}
		if (now - start >= cfg.hang_ms)
			hung = 1;
		if (now - start >= after && now - w->kicked_ms >= every) {
			pthread_kill(w->self, SIGUSR1);
			w->kicked_ms = now;
			atomic_fetch_add(&kicks_sent, 1);
		}
	}
	return hung;
}

/*
 * Reap exited children, SIGKILL those past CHILD_LIFE_MS (all of them
 * once reap_all is set); 1 if one outlives its SIGKILL by the hang limit.
 */
static int watch_children(long now)
{
	int all = atomic_load(&reap_all);
	int i, status, hung = 0;

	pthread_mutex_lock(&children_lock);
	for (i = 0; i < MAX_CHILDREN; i++) {
		struct child *c = &children[i];

		if (c->pid <= 0)
			continue;
		if (waitpid(c->pid, &status, WNOHANG) != 0) {
			c->pid = 0;	/* reaped, or not ours any more */
			continue;
		}
		if (!c->killed_ms &&
		    (all || now - c->forked_ms >= CHILD_LIFE_MS)) {
			kill(c->pid, SIGKILL);
			c->killed_ms = now;
			atomic_fetch_add(&children_killed, 1);
		} else if (c->killed_ms && now - c->killed_ms >= cfg.hang_ms) {
			hung = 1;
		}
	}
	pthread_mutex_unlock(&children_lock);
	return hung;
}

static int children_alive(void)
{
	int i, n = 0;

	pthread_mutex_lock(&children_lock);
	for (i = 0; i < MAX_CHILDREN; i++)
		n += children[i].pid != 0;
	pthread_mutex_unlock(&children_lock);
	return n;
}

static void *watchdog_main(void *arg)
{
	long now;

	(void)arg;
	while (!atomic_load(&watchdog_stop)) {
		now = now_ms();
		if (watch_workers(now) | watch_children(now))
			hang_exit(now);
		msleep(WATCH_TICK_MS);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Setup and teardown                                                 */

static void on_sigusr1(int sig)
{
	(void)sig;	/* only there to interrupt a blocked system call */
}

static void setup_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;	/* no SA_RESTART: calls get EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int parse_addr(const char *text, struct fuzz_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, text, &a->v4) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, text, &a->v6) == 1)
		a->family = AF_INET6;
	else
		return -1;
	snprintf(a->text, sizeof(a->text), "%s", text);
	return 0;
}

static void setup_fixed_addrs(void)
{
	static const char *const fixed[NR_FIXED_ADDRS] = {
		"127.0.0.1", "::1", "0.0.0.0", "::"
	};
	int i;

	for (i = 0; i < NR_FIXED_ADDRS; i++)
		parse_addr(fixed[i], &addrs[i]);
	nr_addrs = NR_FIXED_ADDRS;
}

/* 1 << kind for each kind that makes sockets; *skip if none is known */
static unsigned int probe_kinds(unsigned int wanted, int *skip)
{
	unsigned int usable = 0;
	int kind, fd;

	*skip = 1;
	for (kind = 0; kind < NR_KINDS; kind++) {
		if (!(wanted & (1u << kind)))
			continue;
		fd = open_socket(kind, 0, 0);
		if (fd >= 0) {
			usable |= 1u << kind;
			close(fd);
			continue;
		}
		if (errno != EAFNOSUPPORT && errno != EPROTONOSUPPORT)
			*skip = 0;
		fprintf(stderr, "smc_fuzz: no %s sockets: %s\n",
			kind_names[kind], strerror(errno));
	}
	return usable;
}

/* sendfile's source: 256 KiB, unlinked at once with its private dir */
static int make_data_file(struct rng *rng)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], path[300];
	uint64_t chunk[512];
	size_t done, i;
	int fd;

	snprintf(dir, sizeof(dir), "%s/smc_fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	for (done = 0; fd >= 0 && done < FILE_LEN; done += sizeof(chunk)) {
		for (i = 0; i < ARRAY_SIZE(chunk); i++)
			chunk[i] = rng_next(rng);
		if (write(fd, chunk, sizeof(chunk)) != sizeof(chunk)) {
			close(fd);
			fd = -1;
		}
	}
	unlink(path);
	rmdir(dir);
	return fd;
}

static int setup_workers(struct rng *rng)
{
	size_t i;
	int t;

	for (t = 0; t < cfg.nthreads; t++) {
		struct worker *w = &workers[t];

		w->index = t;
		w->txbuf = malloc(BUF_LEN);
		w->rxbuf = malloc(BUF_LEN);
		epoll_fds[t] = epoll_create1(0);
		if (!w->txbuf || !w->rxbuf || epoll_fds[t] < 0)
			return -1;
		for (i = 0; i < BUF_LEN; i++)
			w->txbuf[i] = rng_next(rng);
	}
	return 0;
}

static int setup_shared(void)
{
	struct rng rng;
	int i;

	for (i = 0; i < NR_SLOTS; i++)
		atomic_init(&slots[i], -1);
	for (i = 0; i < NR_PIPES; i++)
		if (pipe(pipes[i]))
			return -1;
	rng_seed(&rng, cfg.seed, STREAM_MAIN);
	data_fd = make_data_file(&rng);
	if (data_fd < 0)
		return -1;
	return setup_workers(&rng);
}

/* Wait for the workers' current ops; the watchdog interrupts them */
static void stop_workers(void)
{
	long start = now_ms();
	char line[LINE_LEN];
	int i, busy, noted = 0;

	atomic_store(&stopping, 1);
	do {
		busy = 0;
		for (i = 0; i < cfg.nthreads; i++)
			busy += !atomic_load(&workers[i].done);
		if (busy && !noted && now_ms() - start > STOP_GRACE_MS) {
			for (i = 0; i < cfg.nthreads; i++) {
				if (atomic_load(&workers[i].done))
					continue;
				copy_op_line(&workers[i], line);
				report("smc_fuzz: still in op after stop: %s\n",
				       line);
			}
			noted = 1;
		}
		if (busy)
			msleep(10);
	} while (busy);
}

static void close_everything(void)
{
	struct linger no_linger = { 0, 0 };
	int i, fd;

	for (i = 0; i < NR_SLOTS; i++) {
		fd = slot_take(i);
		if (fd < 0)
			continue;
		/* a fuzzed SO_LINGER must not hold up the exit */
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &no_linger,
			   sizeof(no_linger));
		close(fd);
	}
	for (i = 0; i < cfg.nthreads; i++) {
		close(epoll_fds[i]);
		free(workers[i].txbuf);
		free(workers[i].rxbuf);
	}
	for (i = 0; i < NR_PIPES; i++) {
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	close(data_fd);
}

/* ------------------------------------------------------------------ */
/* Command line                                                       */

static void __attribute__((noreturn)) usage(const char *why)
{
	if (why)
		fprintf(stderr, "smc_fuzz: %s\n", why);
	fprintf(stderr,
		"usage: smc_fuzz [-s SEED] [-t SECONDS] [-j THREADS]\n"
		"\t[-l LOGFILE] [-a ADDR]... [-p PORTBASE]\n"
		"\t[-P smc|ipproto|both] [-f] [-v]\n");
	exit(EXIT_USAGE);
}

/* "-" is stdout (which a caller may have opened where we cannot) */
static int open_log(const char *path)
{
	struct stat out, err;
	int fd, flags;

	if (!strcmp(path, "-")) {
		fd = STDOUT_FILENO;
		flags = fcntl(fd, F_GETFL);
		if (flags >= 0)
			fcntl(fd, F_SETFL, flags | O_APPEND);
		log_is_stderr = !fstat(fd, &out) && !fstat(2, &err) &&
				out.st_dev == err.st_dev &&
				out.st_ino == err.st_ino;
		return fd;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
		exit(EXIT_USAGE);
	}
	return fd;
}

static long parse_num(const char *arg, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "smc_fuzz: bad %s '%s' (%ld..%ld)\n", what,
			arg, min, max);
		exit(EXIT_USAGE);
	}
	return v;
}

static unsigned int parse_kinds(const char *arg)
{
	if (!strcmp(arg, "smc"))
		return 1u << KIND_SMC;
	if (!strcmp(arg, "ipproto"))
		return 1u << KIND_IPPROTO;
	if (!strcmp(arg, "both"))
		return (1u << KIND_SMC) | (1u << KIND_IPPROTO);
	usage("-P takes smc, ipproto or both");
}

static void parse_args(int argc, char **argv, unsigned int *wanted)
{
	int have_seed = 0, opt;
	char *end;

	while ((opt = getopt(argc, argv, "s:t:j:l:a:p:P:fv")) != -1) {
		switch (opt) {
		case 's':
			errno = 0;
			cfg.seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end)
				usage("bad seed");
			have_seed = 1;
			break;
		case 't':
			cfg.seconds = parse_num(optarg, 0, 604800, "seconds");
			break;
		case 'j':
			cfg.nthreads = parse_num(optarg, 1, MAX_THREADS,
						 "threads");
			break;
		case 'l':
			log_fd = open_log(optarg);
			break;
		case 'a':
			if (nr_addrs == NR_FIXED_ADDRS + MAX_EXTRA_ADDRS)
				usage("too many -a addresses");
			if (parse_addr(optarg, &addrs[nr_addrs]))
				usage("-a takes an IPv4 or IPv6 address");
			nr_addrs++;
			break;
		case 'p':
			cfg.port_base = parse_num(optarg, 1, 65536 - NR_PORTS,
						  "port base");
			break;
		case 'P':
			*wanted = parse_kinds(optarg);
			break;
		case 'f':
			cfg.want_fork = 1;
			break;
		case 'v':
			cfg.verbose = 1;
			break;
		default:
			usage(NULL);
		}
	}
	if (optind != argc)
		usage("unexpected arguments");
	if (!have_seed && getrandom(&cfg.seed, sizeof(cfg.seed), 0) !=
	    sizeof(cfg.seed))
		cfg.seed = (uint64_t)now_ms() ^ ((uint64_t)getpid() << 32);
}

static void parse_env(unsigned int *wanted)
{
	const char *tcp = getenv("SMC_FUZZ_TCP");
	const char *hang = getenv("SMC_FUZZ_HANG_S");
	const char *selftest = getenv("SMC_FUZZ_SELFTEST_HANG");

	if (tcp && !strcmp(tcp, "1"))
		*wanted = 1u << KIND_TCP;
	if (hang && *hang)
		cfg.hang_ms = parse_num(hang, 1, 86400, "SMC_FUZZ_HANG_S") *
			      1000L;
	if (selftest && !strcmp(selftest, "1"))
		cfg.selftest = SELFTEST_HANG;
	else if (selftest && !strcmp(selftest, "intr"))
		cfg.selftest = SELFTEST_INTR;
}

static void print_start(void)
{
	char kinds[32] = "";
	int kind;

	for (kind = 0; kind < NR_KINDS; kind++) {
		if (!(cfg.kinds & (1u << kind)))
			continue;
		if (*kinds)
			strcat(kinds, ",");
		strcat(kinds, kind_names[kind]);
	}
	printf("smc_fuzz: seed 0x%016llx threads %d seconds %d kinds %s\n",
	       (unsigned long long)cfg.seed, cfg.nthreads, cfg.seconds, kinds);
	fflush(stdout);
}

static int start_threads(pthread_t *watchdog)
{
	int t;

	if (pthread_create(watchdog, NULL, watchdog_main, NULL))
		return -1;
	for (t = 0; t < cfg.nthreads; t++)
		if (pthread_create(&workers[t].thread, NULL, worker_main,
				   &workers[t]))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int wanted = (1u << KIND_SMC) | (1u << KIND_IPPROTO);
	pthread_t watchdog;
	long deadline;
	int skip, t;

	setup_fixed_addrs();
	parse_args(argc, argv, &wanted);
	parse_env(&wanted);
	setup_signals();

	cfg.kinds = probe_kinds(wanted, &skip);
	if (!cfg.kinds) {
		fprintf(stderr, "smc_fuzz: %s\n", skip ?
			"SKIP: this kernel has no SMC sockets" :
			"cannot create any socket");
		return skip ? EXIT_SKIP : 1;
	}
	print_start();
	if (setup_shared()) {
		perror("smc_fuzz: setup");
		return 1;
	}
	if (start_threads(&watchdog)) {
		fprintf(stderr, "smc_fuzz: cannot start threads\n");
		_exit(1);
	}

	deadline = now_ms() + cfg.seconds * 1000L;
	while (now_ms() < deadline)
		msleep(100);
	stop_workers();

	/* children: SIGKILL all, the watchdog reaps them (or reports) */
	atomic_store(&reap_all, 1);
	while (children_alive())
		msleep(10);
	atomic_store(&watchdog_stop, 1);
	pthread_join(watchdog, NULL);
	for (t = 0; t < cfg.nthreads; t++)
		pthread_join(workers[t].thread, NULL);

	close_everything();
	print_summary(0);
	if (cfg.verbose)
		print_op_table();
	return 0;
}
