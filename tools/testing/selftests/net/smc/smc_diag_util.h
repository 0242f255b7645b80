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
#include <netinet/in.h>

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
/* SMC_EXPECT_PATH=any: whichever path, the caller reports it */
#define SMC_TEST_MODE_ANY	(-1)

/* socket states as reported by smc_diag */
#define SMC_TEST_ACTIVE		1
#define SMC_TEST_INIT		2
#define SMC_TEST_CLOSED		7
#define SMC_TEST_LISTEN		10

#define SMC_TEST_DEFAULT_REASON	0x03010000u

/* Bits of the request's diag_ext: the attributes asked for */
#define SMC_TEST_EXT_CONNINFO	(1u << 0)
#define SMC_TEST_EXT_LGRINFO	(1u << 1)
#define SMC_TEST_EXT_DMBINFO	(1u << 3)

/* Length of the SMC-D DMBINFO payload without / with the _ext GIDs */
#define SMC_TEST_DMBINFO_V1_LEN	40
#define SMC_TEST_DMBINFO_LEN	56

/* A cursor of SMC_DIAG_CONNINFO */
struct smc_test_cursor {
	uint16_t wrap;
	uint32_t count;
};

/* SMC_DIAG_CONNINFO: buffer sizes, cursors and flags of a connection */
struct smc_test_conninfo {
	uint32_t token;			/* local alert token */
	uint32_t sndbuf_size;
	uint32_t rmbe_size;		/* own RMB / DMB length */
	uint32_t peer_rmbe_size;
	struct smc_test_cursor rx_prod;
	struct smc_test_cursor rx_cons;
	struct smc_test_cursor tx_prod;
	struct smc_test_cursor tx_cons;
	uint8_t rx_prod_flags;
	uint8_t rx_conn_state_flags;
	uint8_t tx_prod_flags;
	uint8_t tx_conn_state_flags;
	struct smc_test_cursor tx_prep;
	struct smc_test_cursor tx_sent;
	struct smc_test_cursor tx_fin;
};

/* SMC_DIAG_LGRINFO of an SMC-R connection: its current link */
struct smc_test_lgrinfo {
	uint8_t link_id;
	char ibname[65];		/* NUL-terminated here */
	uint8_t ibport;
	char gid[41];			/* GIDs as text, 39 characters */
	char peer_gid[41];
	uint8_t role;			/* 0 client, 1 server */
};

/* SMC_DIAG_DMBINFO of an SMC-D connection */
struct smc_test_dmbinfo {
	uint32_t linkid;		/* link-group id */
	uint64_t peer_gid;
	uint64_t my_gid;
	uint64_t token;			/* own DMB token */
	uint64_t peer_token;		/* the peer's DMB token */
	uint64_t peer_gid_ext;		/* 0 in a 40-byte payload */
	uint64_t my_gid_ext;
};

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
	/*
	 * Payload lengths of the optional attributes as received, 0 when
	 * absent; the structures are filled only when they are complete
	 * (CONNINFO 76 bytes, DMBINFO at least 40).
	 */
	int conninfo_len;
	int dmbinfo_len;
	int lgrinfo_len;		/* LGRINFO: filled when 147 */
	struct smc_test_conninfo conn;
	struct smc_test_lgrinfo lgr;
	struct smc_test_dmbinfo dmb;
};

/*
 * Dump all AF_SMC sockets of the current netns.  On success returns the
 * number of entries and stores a malloc()ed array in *out (caller frees).
 * Returns -errno on failure.
 */
int smc_diag_dump(struct smc_sock_info **out);

/* The same, asking for the attributes in @ext (SMC_TEST_EXT_*) */
int smc_diag_dump_ext(unsigned int ext, struct smc_sock_info **out);

/* Find the socket with the given inode: 0 found, -ENOENT, or -errno. */
int smc_diag_lookup_inode(uint64_t inode, struct smc_sock_info *info);

/* Same for the socket behind a file descriptor of this process. */
int smc_diag_lookup(int fd, struct smc_sock_info *info);

/* Both, with the attributes in @ext (SMC_TEST_EXT_*) */
int smc_diag_lookup_inode_ext(uint64_t inode, unsigned int ext,
			      struct smc_sock_info *info);
int smc_diag_lookup_ext(int fd, unsigned int ext,
			struct smc_sock_info *info);

/*
 * Datagrams the last dump of this thread took to arrive (a dump that
 * does not fit one message resumes in the next).
 */
extern __thread int smc_diag_last_datagrams;

/* The CONNINFO / DMBINFO / LGRINFO attribute is there and complete */
static inline int smc_has_conninfo(const struct smc_sock_info *si)
{
	return si->conninfo_len >= 76;
}

static inline int smc_has_dmbinfo(const struct smc_sock_info *si)
{
	return si->dmbinfo_len >= SMC_TEST_DMBINFO_V1_LEN;
}

#define SMC_TEST_LGRINFO_LEN	147

static inline int smc_has_lgrinfo(const struct smc_sock_info *si)
{
	return si->lgrinfo_len == SMC_TEST_LGRINFO_LEN;
}

const char *smc_state_name(int state);
const char *smc_mode_name(int mode);

/*
 * Expected path from SMC_EXPECT_PATH (fallback, smcd, smcr; default
 * fallback) and SMC_EXPECT_REASON (default 0x03010000).  Returns -1 and
 * prints a message if the environment is invalid.
 */
int smc_expect(int *mode, uint32_t *reason);

/*
 * SMC_EXPECT_PATH is smcr (case-insensitive): SMC-Rv2 takes IPv4 only,
 * so the IPv6 and the SMC-D cases of a test are skipped.  Reads the
 * environment only; unset, empty or anything else is 0.
 */
int smc_expect_smcr(void);

/* Why the cases smc_expect_smcr() leaves out are skipped */
#define SMC_TEST_SKIP_V6	"SMC-R is IPv4 only (SMC_EXPECT_PATH=smcr)"
#define SMC_TEST_SKIP_SMCD	"SMC-D only (SMC_EXPECT_PATH=smcr)"

/*
 * The IPv4 address the tests bind their listeners to and connect to:
 * SMC_TEST_ADDR4 in dotted-decimal notation, 127.0.0.1 when unset or
 * empty.  Returns 0, or -1 and prints a message if the value is not an
 * IPv4 address.
 */
int smc_test_addr4(struct in_addr *addr);

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

/* The integer a /proc, /sys or cgroup file starts with, or -1 */
long long smc_file_ll(const char *path);

/* @val written to @path at once: 0, or -errno (errno set too) */
int smc_file_write(const char *path, const char *val);

#endif /* SMC_SELFTEST_DIAG_UTIL_H */
