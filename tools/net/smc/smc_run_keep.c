// SPDX-License-Identifier: GPL-2.0
/*
 * smc_run_bpf: the keeper, a process that holds the links while the
 * command runs, so that the loader itself can exec the command: "$!" and
 * a service manager's main PID stay the command's own.
 *
 * It is forked twice, so that the command never sees it as a child of its
 * own (one that waits for all its children would wait for it forever),
 * and starts a session of its own, so that no signal of the terminal or
 * the job reaches it.  It waits until the loader has exec'd the command
 * (the pipe's write end, close-on-exec, is gone), then until the
 * command's cgroup is empty (the loader's cgroup of its own), or until
 * the command has exited (-c, whose cgroup is someone else's); then it
 * closes the links, which detaches the programs, and removes the cgroup
 * of its own.  Killed, it detaches all the same: the kernel closes its
 * fds; only such a cgroup stays, until the next loader finds it empty.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "smc_run_bpf.h"

static int smc_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * Close every fd but 0-2 and the ones in keep[]: fds the loader inherited
 * (a pipe a test reads to its end, say) must not live on in the keeper.
 */
static void smc_keep_only(int *keep, int n)
{
	unsigned int lo = 3;
	int i;

	qsort(keep, n, sizeof(*keep), smc_int_cmp);
	for (i = 0; i < n; i++) {
		if (keep[i] < (int)lo)
			continue;
		if (keep[i] > (int)lo)
			close_range(lo, keep[i] - 1, 0);
		lo = keep[i] + 1;
	}
	close_range(lo, ~0U, 0);
}

/* stdin, stdout and, without -d, stderr: /dev/null */
static void smc_keep_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	if (!smc_debug)
		dup2(fd, STDERR_FILENO);
	close(fd);
}

static void __noreturn smc_keep_run(const struct smc_keep *k, int go)
{
	int keep[8], n = 0, i, rc = 0;
	struct pollfd pfd;
	char c;

	setsid();
	for (i = 0; i < k->nfds; i++)
		keep[n++] = k->fds[i];
	keep[n++] = go;
	if (k->cg_fd >= 0)
		keep[n++] = k->cg_fd;
	if (k->parent_fd >= 0)
		keep[n++] = k->parent_fd;
	if (k->pidfd >= 0)
		keep[n++] = k->pidfd;
	smc_keep_only(keep, n);
	smc_keep_stdio();

	/* EOF: the loader exec'd the command, or gave up */
	while (read(go, &c, 1) != 0 && errno == EINTR)
		;
	close(go);

	if (k->cg_fd >= 0) {
		rc = smc_cg_wait_empty(k->cg_fd);
	} else if (k->pidfd >= 0) {
		pfd.fd = k->pidfd;
		pfd.events = POLLIN;
		while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
			;
	}
	if (rc < 0)
		smc_err("keeper: cannot watch the cgroup: %s", strerror(-rc));

	for (i = 0; i < k->nfds; i++)
		close(k->fds[i]);
	if (k->parent_fd >= 0) {
		rc = smc_cg_remove(k->parent_fd, k->name, k->cg_fd);
		if (rc)
			smc_err("keeper: cannot remove cgroup %s: %s", k->name,
				strerror(-rc));
	}
	smc_dbg("keeper %d: detached%s%s", getpid(),
		k->parent_fd >= 0 ? ", removed cgroup " : "",
		k->parent_fd >= 0 ? k->name : "");
	_exit(0);
}

/*
 * Start the keeper; returns its pid.  The loader's end of the pipe that
 * holds the keeper back is close-on-exec and stays open on purpose.
 */
pid_t smc_keep_start(const struct smc_keep *k)
{
	int go[2], report[2], status;
	pid_t mid, keeper = -1;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(report, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	mid = fork();
	if (mid < 0) {
		keeper = -errno;
		goto out;
	}
	if (!mid) {
		close(go[1]);
		close(report[0]);
		keeper = fork();
		if (!keeper)
			smc_keep_run(k, go[0]);
		if (write(report[1], &keeper, sizeof(keeper)) < 0)
			_exit(1);
		_exit(0);
	}
	close(report[1]);
	report[1] = -1;
	if (read(report[0], &keeper, sizeof(keeper)) != sizeof(keeper))
		keeper = -EIO;
	else if (keeper < 0)
		keeper = -EAGAIN;
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
out:
	close(go[0]);
	if (keeper < 0)
		close(go[1]);
	close(report[0]);
	if (report[1] >= 0)
		close(report[1]);
	return keeper;
}
