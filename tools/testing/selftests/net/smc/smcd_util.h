/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMC-D helpers for the selftests: the smc module's "smcd" switch and the
 * loopback-ism counters in debugfs.
 *
 * The switch is global.  A test that needs SMC-D turns it on with
 * smcd_param_set(1); the previous value is put back by
 * smcd_param_restore(), which is registered with atexit() and is also
 * safe to call from a signal handler.
 */
#ifndef SMC_SELFTEST_SMCD_UTIL_H
#define SMC_SELFTEST_SMCD_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/vfs.h>

#define SMCD_PARAM_PATH		"/sys/module/smc/parameters/smcd"
#define SMC_DEBUGFS		"/sys/kernel/debug"
#define SMC_LO_ISM_STATS	SMC_DEBUGFS "/smc/loopback-ism"
#define SMC_DEBUGFS_MAGIC	0x64626720

/* What the switch was before the first smcd_param_set(): '0', '1' */
static char smcd_param_saved;

/* 1 or 0, or -errno when the module has no such parameter */
static inline int smcd_param_get(void)
{
	char c = 0;
	int fd, n;

	fd = open(SMCD_PARAM_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, &c, 1);
	close(fd);
	if (n != 1)
		return -EIO;
	return c == 'Y' || c == 'y' || c == '1';
}

static inline int smcd_param_write(char c)
{
	int fd, n;

	fd = open(SMCD_PARAM_PATH, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, &c, 1);
	close(fd);
	return n == 1 ? 0 : -EIO;
}

/* Async-signal-safe: only open(), write() and close() */
static inline void smcd_param_restore(void)
{
	if (smcd_param_saved)
		smcd_param_write(smcd_param_saved);
}

/* Turn SMC-D negotiation on or off; 0 or -errno */
static inline int smcd_param_set(int on)
{
	int cur = smcd_param_get();

	if (cur < 0)
		return cur;
	if (!smcd_param_saved) {
		smcd_param_saved = cur ? '1' : '0';
		atexit(smcd_param_restore);
	}
	return smcd_param_write(on ? '1' : '0');
}

/*
 * Counters of loopback-ism; -1 where the file lacks the key.
 *   dmbs_registered  DMBs owned by connections
 *   dmbs_attached    attachments of peers to DMBs
 *   dmbs_pooled      idle DMBs kept for reuse
 *   dmb_bytes        the DMB rings' pages, pooled DMBs' included (a
 *                    page exists once written)
 */
struct lo_ism_stats {
	long long dmbs_registered;
	long long dmbs_attached;
	long long dmbs_pooled;
	long long dmb_bytes;
};

/* Mount debugfs if nothing is mounted there; 0 or -errno */
static inline int smc_debugfs_mount(void)
{
	struct statfs sf;

	if (!statfs(SMC_DEBUGFS, &sf) && sf.f_type == SMC_DEBUGFS_MAGIC)
		return 0;
	if (mount("debugfs", SMC_DEBUGFS, "debugfs", 0, NULL))
		return -errno;
	return 0;
}

/*
 * Read the counters: 0 when all four were found, -ENOENT when the file
 * (or a key) is missing, other -errno on failure.
 */
static inline int lo_ism_read(struct lo_ism_stats *st)
{
	char line[128], key[64];
	long long v;
	FILE *f;

	st->dmbs_registered = -1;
	st->dmbs_attached = -1;
	st->dmbs_pooled = -1;
	st->dmb_bytes = -1;
	smc_debugfs_mount();
	f = fopen(SMC_LO_ISM_STATS, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld", key, &v) != 2)
			continue;
		if (!strcmp(key, "dmbs_registered"))
			st->dmbs_registered = v;
		else if (!strcmp(key, "dmbs_attached"))
			st->dmbs_attached = v;
		else if (!strcmp(key, "dmbs_pooled"))
			st->dmbs_pooled = v;
		else if (!strcmp(key, "dmb_bytes"))
			st->dmb_bytes = v;
	}
	fclose(f);
	if (st->dmbs_registered < 0 || st->dmbs_attached < 0 ||
	    st->dmbs_pooled < 0 || st->dmb_bytes < 0)
		return -ENOENT;
	return 0;
}

/* DMB size classes: 16 KiB << class, class 0..6 */
#define SMCD_TEST_DMB_MIN	(16 * 1024)
#define SMCD_TEST_DMB_CLASSES	7

static inline long smcd_class_len(int c)
{
	return (long)SMCD_TEST_DMB_MIN << c;
}

/*
 * The class a DMB gets for a socket whose sk_rcvbuf (what SO_RCVBUF
 * reads back) is @rcvbuf: half of it is the buffer the user asked
 * for; the smallest class that holds it, at most the largest class.
 */
static inline int smcd_class_for_rcvbuf(long rcvbuf)
{
	int c = 0;

	while (c < SMCD_TEST_DMB_CLASSES - 1 && smcd_class_len(c) < rcvbuf / 2)
		c++;
	return c;
}

#endif /* SMC_SELFTEST_SMCD_UTIL_H */
