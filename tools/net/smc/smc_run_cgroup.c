// SPDX-License-Identifier: GPL-2.0
/*
 * smc_run_bpf: the cgroup v2 a command runs in
 *
 * A command gets a cgroup of its own, "smc_run.PID" (PID: the loader's,
 * which becomes the command's), below the cgroup the loader was started
 * in, so that it stays under the limits its caller had; where that
 * directory cannot be made the BPF way fails (smc_run then takes the
 * preload): never the root, which would escape those limits.  All
 * later accesses go through directory fds, so that a private mount of
 * cgroup2, made where none is mounted (ip netns exec hides the one under
 * /sys), can be detached at once.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "smc_run_bpf.h"

#define SMC_CG_PREFIX	"smc_run."

void smc_cg_init(struct smc_cg *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->fd = -1;
	cg->parent_fd = -1;
	cg->orig_fd = -1;
}

void smc_cg_close(struct smc_cg *cg)
{
	if (cg->fd >= 0)
		close(cg->fd);
	if (cg->parent_fd >= 0)
		close(cg->parent_fd);
	if (cg->orig_fd >= 0)
		close(cg->orig_fd);
	smc_cg_init(cg);
}

static int smc_cg_is_v2(int fd)
{
	struct statfs st;

	if (fstatfs(fd, &st))
		return -errno;
	return st.f_type == CGROUP2_SUPER_MAGIC ? 0 : -ENOTDIR;
}

/* The root of a cgroup2 mount that shows the whole hierarchy */
static int smc_cg_mounted_root(char *dir, size_t len)
{
	char line[4096], root[PATH_MAX], mnt[PATH_MAX];
	char *sep;
	FILE *f;
	int rc = -ENOENT;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - TYPE SRC OPTS */
		sep = strstr(line, " - cgroup2 ");
		if (!sep)
			continue;
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
			continue;
		if (strcmp(root, "/") || strchr(mnt, '\\'))
			continue;
		snprintf(dir, len, "%s", mnt);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/* A private cgroup2 mount, detached at once: the fd keeps it usable */
static int smc_cg_private_root(void)
{
	char dir[] = "/tmp/smc_run.XXXXXX";
	int fd, err;

	if (!mkdtemp(dir))
		return -errno;
	if (mount("cgroup2", dir, "cgroup2", 0, NULL)) {
		err = -errno;
		rmdir(dir);
		return err;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = fd < 0 ? -errno : 0;
	umount2(dir, MNT_DETACH);
	rmdir(dir);
	return fd < 0 ? err : fd;
}

static int smc_cg_root(char *path, size_t len)
{
	int fd;

	if (!smc_cg_mounted_root(path, len)) {
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	snprintf(path, len, "(cgroup2)");
	return smc_cg_private_root();
}

/* The loader's own cgroup, relative to the root of the hierarchy */
static int smc_cg_self(char *rel, size_t len)
{
	char line[PATH_MAX + 8];
	FILE *f;
	int rc = -ENOENT;

	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::/", 4))
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* "/" is the root: "." below it */
		if (snprintf(rel, len, "%s", line[4] ? line + 4 : ".") <
		    (int)len)
			rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/*
 * Remove the cgroups of earlier runs whose keeper was killed: a
 * "smc_run.PID" whose PID is gone, or is ours (its keeper died and the
 * PID came round to us), and that holds no process (rmdir of a populated
 * cgroup fails, so a cgroup in use is never touched).
 */
static void smc_cg_sweep(int parent_fd)
{
	struct dirent *de;
	char *end;
	long pid;
	DIR *d;
	int fd;

	fd = openat(parent_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, SMC_CG_PREFIX, strlen(SMC_CG_PREFIX)))
			continue;
		pid = strtol(de->d_name + strlen(SMC_CG_PREFIX), &end, 10);
		if (*end || pid <= 0)
			continue;
		if (pid != getpid() && (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		if (!unlinkat(parent_fd, de->d_name, AT_REMOVEDIR))
			smc_dbg("removed %s, left by a killed run",
				de->d_name);
	}
	closedir(d);
}

/* For messages: the cgroup's path, or its name where that is too long */
static void smc_cg_set_path(struct smc_cg *cg, const char *root,
			    const char *parent)
{
	int n;

	if (strcmp(parent, "."))
		n = snprintf(cg->path, sizeof(cg->path), "%s/%s/%s", root,
			     parent, cg->name);
	else
		n = snprintf(cg->path, sizeof(cg->path), "%s/%s", root,
			     cg->name);
	if (n < 0 || (size_t)n >= sizeof(cg->path))
		snprintf(cg->path, sizeof(cg->path), "%s", cg->name);
}

/* A new cgroup for a command, below the loader's own; cg->path names it */
int smc_cg_make(struct smc_cg *cg)
{
	char root[PATH_MAX], self[PATH_MAX];
	int root_fd, err;

	root_fd = smc_cg_root(root, sizeof(root));
	if (root_fd < 0)
		return root_fd;
	err = smc_cg_self(self, sizeof(self));
	if (err)
		goto out;
	cg->orig_fd = openat(root_fd, self,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->orig_fd < 0) {
		err = -errno;
		goto out;
	}
	snprintf(cg->name, sizeof(cg->name), SMC_CG_PREFIX "%d", getpid());

	smc_cg_set_path(cg, root, self);

	smc_cg_sweep(cg->orig_fd);
	/*
	 * No fallback to the root on failure (EAGAIN from
	 * cgroup.max.descendants, say): it would take the command out of
	 * the caller's limits.
	 */
	if (mkdirat(cg->orig_fd, cg->name, 0755)) {
		err = -errno;
		goto out;
	}
	cg->fd = openat(cg->orig_fd, cg->name,
			O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cg->parent_fd = fcntl(cg->orig_fd, F_DUPFD_CLOEXEC, 0);
	if (cg->fd < 0 || cg->parent_fd < 0) {
		err = -errno;
		unlinkat(cg->orig_fd, cg->name, AT_REMOVEDIR);
	}
out:
	close(root_fd);
	return err;
}

/* An existing cgroup, given by its path */
int smc_cg_open(struct smc_cg *cg, const char *path)
{
	int err;

	cg->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0)
		return -errno;
	err = smc_cg_is_v2(cg->fd);
	if (err)
		return err;
	snprintf(cg->path, sizeof(cg->path), "%s", path);
	return 0;
}

/* Move the calling process into the cgroup */
int smc_cg_enter(int cg_fd)
{
	char pid[16];
	int fd, n, err = 0;

	fd = openat(cg_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (write(fd, pid, n) != n)
		err = -errno;
	close(fd);
	return err;
}

/* 1 while a process is in the cgroup or below it, 0 once none is */
static int smc_cg_populated(int fd)
{
	char buf[256], *p;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	p = strstr(buf, "populated ");
	if (!p)
		return -EINVAL;
	return p[strlen("populated ")] == '1';
}

/*
 * Wait until the cgroup is empty.  cgroup.events signals POLLPRI on a
 * change after the last read; the timeout only guards against a missed
 * one.
 */
int smc_cg_wait_empty(int cg_fd)
{
	struct pollfd pfd = { .events = POLLPRI };
	int rc;

	pfd.fd = openat(cg_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (pfd.fd < 0)
		return -errno;
	while ((rc = smc_cg_populated(pfd.fd)) == 1) {
		if (poll(&pfd, 1, 10000) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
	}
	close(pfd.fd);
	return rc;
}

/*
 * Remove a cgroup of ours: a dying last task may keep it busy briefly.
 * With its fd @fd, only while @name still is that directory: once removed
 * (by a sweep of a later run) the name may be another run's.
 */
int smc_cg_remove(int parent_fd, const char *name, int fd)
{
	struct stat a, b;
	int i;

	if (fd >= 0) {
		if (fstat(fd, &a))
			return -errno;
		if (fstatat(parent_fd, name, &b, AT_SYMLINK_NOFOLLOW))
			return errno == ENOENT ? 0 : -errno;
		if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
			return 0;
	}

	for (i = 0; i < 100; i++) {
		if (!unlinkat(parent_fd, name, AT_REMOVEDIR) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(20000);
	}
	return -errno;
}
