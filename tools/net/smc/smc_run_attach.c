// SPDX-License-Identifier: GPL-2.0
/*
 * smc_run_bpf: loading, attaching and pinning the programs of smc_run.bpf.c
 *
 * Each attachment is a BPF link: it lasts while an fd or a pin in bpffs
 * refers to it, and is detached by the kernel when the last one goes,
 * however the process that held it ended.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "smc_run_bpf.h"
#include "smc_run.skel.h"

/* the pins of an attachment, in a directory of bpffs */
#define SMC_PIN_PROTO	"proto"
#define SMC_PIN_BUFS	"bufs"
/* our programs' names start with it */
#define SMC_PROG_PREFIX	"smc_run_"

/* libbpf's own messages (a verifier log, say) only with -d */
static int smc_bpf_print(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	if (!smc_debug || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Load the programs; without -r and -t, only the one on socket() */
int smc_bpf_load(struct smc_bpf *b, int rcvbuf, int sndbuf)
{
	memset(b, 0, sizeof(*b));
	libbpf_set_print(smc_bpf_print);
	b->skel = smc_run__open();
	if (!b->skel)
		return -errno;
	b->skel->rodata->rcvbuf = rcvbuf;
	b->skel->rodata->sndbuf = sndbuf;
	/* the LSM program is what needs the BPF LSM: leave it out */
	if (!rcvbuf && !sndbuf)
		bpf_program__set_autoload(b->skel->progs.smc_run_bufs, false);
	return smc_run__load(b->skel);
}

/*
 * Attach for the cgroup (-1: for none, the probe's case).  The buffer
 * sizes go first, so that no socket becomes SMC without them.
 */
int smc_bpf_attach(struct smc_bpf *b, int cg_fd)
{
	struct bpf_program *bufs = b->skel->progs.smc_run_bufs;
	__u32 key = 0;
	int err;

	if (cg_fd >= 0) {
		err = bpf_map_update_elem(bpf_map__fd(b->skel->maps.scope),
					  &key, &cg_fd, BPF_ANY);
		if (err)
			return err;
	}
	if (cg_fd >= 0 && bpf_program__autoload(bufs)) {
		b->bufs = bpf_program__attach_cgroup(bufs, cg_fd);
		if (!b->bufs)
			return -errno;
	}
	b->proto = bpf_program__attach_trace(b->skel->progs.smc_run_proto);
	if (!b->proto)
		return -errno;
	return 0;
}

int smc_bpf_link_fds(const struct smc_bpf *b, int *fds, int max)
{
	int n = 0;

	if (b->proto && n < max)
		fds[n++] = bpf_link__fd(b->proto);
	if (b->bufs && n < max)
		fds[n++] = bpf_link__fd(b->bufs);
	return n;
}

static void smc_bpf_ids(struct bpf_link *link, __u32 *link_id,
			__u32 *prog_id)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	*link_id = 0;
	*prog_id = 0;
	if (!link || bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return;
	*link_id = info.id;
	*prog_id = info.prog_id;
}

/* "prog_id=N link_id=N [bufs_prog_id=N bufs_link_id=N]" */
void smc_bpf_describe(const struct smc_bpf *b, char *buf, size_t len)
{
	__u32 link, prog, blink, bprog;
	int n;

	smc_bpf_ids(b->proto, &link, &prog);
	n = snprintf(buf, len, "prog_id=%u link_id=%u", prog, link);
	if (!b->bufs || n < 0 || (size_t)n >= len)
		return;
	smc_bpf_ids(b->bufs, &blink, &bprog);
	snprintf(buf + n, len - n, " bufs_prog_id=%u bufs_link_id=%u",
		 bprog, blink);
}

static int smc_bpf_on_bpffs(const char *dir)
{
	struct statfs st;

	if (statfs(dir, &st))
		return -errno;
	return st.f_type == BPF_FS_MAGIC ? 0 : -ENOTDIR;
}

/* Pin the links as DIR/proto and DIR/bufs; DIR is made, on bpffs */
int smc_bpf_pin(struct smc_bpf *b, const char *dir)
{
	char proto[PATH_MAX], bufs[PATH_MAX];
	int err;

	snprintf(proto, sizeof(proto), "%s/" SMC_PIN_PROTO, dir);
	snprintf(bufs, sizeof(bufs), "%s/" SMC_PIN_BUFS, dir);
	if (mkdir(dir, 0700))
		return -errno;
	err = smc_bpf_on_bpffs(dir);
	if (err)
		goto out_dir;
	if (b->bufs) {
		err = bpf_link__pin(b->bufs, bufs);
		if (err)
			goto out_dir;
	}
	err = bpf_link__pin(b->proto, proto);
	if (!err)
		return 0;
	if (b->bufs)
		unlink(bufs);
out_dir:
	rmdir(dir);
	return err;
}

/* A link whose program is one of ours, judged from its fdinfo */
static bool smc_bpf_is_ours(int fd)
{
	char path[64], line[128], name[BPF_OBJ_NAME_LEN + 1] = "";
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	unsigned int prog_id = 0;
	bool link = false;
	FILE *f;
	int pfd;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "link_type:", 10))
			link = true;
		else if (sscanf(line, "prog_id: %u", &prog_id) == 1)
			continue;
	}
	fclose(f);
	if (!link || !prog_id)
		return false;
	pfd = bpf_prog_get_fd_by_id(prog_id);
	if (pfd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(pfd, &info, &len))
		snprintf(name, sizeof(name), "%s", info.name);
	close(pfd);
	return !strncmp(name, SMC_PROG_PREFIX, strlen(SMC_PROG_PREFIX));
}

/*
 * Remove the pins made by smc_bpf_pin() and DIR: the attachment is
 * detached once no process holds its links either.
 */
int smc_bpf_unpin(const char *dir)
{
	static const char * const names[] = { SMC_PIN_PROTO, SMC_PIN_BUFS };
	char path[PATH_MAX];
	unsigned int i;
	int fd, err;

	err = smc_bpf_on_bpffs(dir);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fd = bpf_obj_get(path);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		if (!smc_bpf_is_ours(fd)) {
			close(fd);
			return -EINVAL;
		}
		close(fd);
		if (unlink(path))
			return -errno;
	}
	return rmdir(dir) ? -errno : 0;
}

void smc_bpf_close(struct smc_bpf *b)
{
	bpf_link__destroy(b->proto);
	bpf_link__destroy(b->bufs);
	smc_run__destroy(b->skel);
	memset(b, 0, sizeof(*b));
}
