/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SMC sock_diag helpers for the selftests.  The wire structures are
 * defined here on purpose so that the tests do not depend on the headers
 * of the implementation under test.
 */
#ifndef SMC_SELFTEST_DIAG_UTIL_H
#define SMC_SELFTEST_DIAG_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifndef AF_SMC
#define AF_SMC			43
#endif
#define SMCPROTO_SMC		0
#define SMCPROTO_SMC6		1
#ifndef SOL_SMC
#define SOL_SMC			286
#endif
#define SMC_LIMIT_HS		1

/* diag_mode values */
#define SMC_TEST_MODE_SMCR	0
#define SMC_TEST_MODE_FALLBACK	1
#define SMC_TEST_MODE_SMCD	2

/* socket states as reported by smc_diag */
#define SMC_TEST_ACTIVE		1
#define SMC_TEST_INIT		2
#define SMC_TEST_CLOSED		7
#define SMC_TEST_LISTEN		10

#define SMC_TEST_DEFAULT_REASON	0x03010000u

struct smc_sock_info {
	uint64_t inode;
	int family;
	int state;
	int mode;
	int shutdown;		/* -1 if the attribute was missing */
	int has_fallback;	/* SMC_DIAG_FALLBACK attribute present */
	uint32_t reason;
	uint32_t peer_diag;
	uint16_t sport;		/* host byte order */
	uint16_t dport;
	uint8_t src[16];
	uint8_t dst[16];
	uint32_t uid;
};

/*
 * Dump all AF_SMC sockets of the current netns.  On success returns the
 * number of entries and stores a malloc()ed array in *out (caller frees).
 * Returns -errno on failure.
 */
int smc_diag_dump(struct smc_sock_info **out);

/* Find the socket with the given inode: 0 found, -ENOENT, or -errno. */
int smc_diag_lookup_inode(uint64_t inode, struct smc_sock_info *info);

/* Same for the socket behind a file descriptor of this process. */
int smc_diag_lookup(int fd, struct smc_sock_info *info);

const char *smc_state_name(int state);
const char *smc_mode_name(int mode);

/*
 * Expected path from SMC_EXPECT_PATH (fallback, smcd, smcr; default
 * fallback) and SMC_EXPECT_REASON (default 0x03010000).  Returns -1 and
 * prints a message if the environment is invalid.
 */
int smc_expect(int *mode, uint32_t *reason);

/*
 * Check a diag entry against the expected path.  Returns 0 if it
 * matches, otherwise -1 with a description in why.
 */
int smc_path_match(const struct smc_sock_info *info, char *why,
		   size_t whylen);

/*
 * Look up fd and check the path, retrying for up to timeout_ms while the
 * socket is still being set up.  Returns 0 on match, -1 with why filled.
 */
int smc_check_fd_path(int fd, int timeout_ms, char *why, size_t whylen);

#endif /* SMC_SELFTEST_DIAG_UTIL_H */
