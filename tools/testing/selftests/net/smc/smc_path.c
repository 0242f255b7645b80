// SPDX-License-Identifier: GPL-2.0
/*
 * smc_path - show the AF_SMC sockets of the current netns as reported by
 * smc_diag, optionally restricted to one process or file descriptor, and
 * check them against SMC_EXPECT_PATH / SMC_EXPECT_REASON.
 *
 * Output, one line per socket:
 *   inode=N state=NAME(N) mode=NAME reason=0x... peer=0x...
 *   local=ADDR:PORT remote=ADDR:PORT
 *
 * With -v, SMC_DIAG_CONNINFO, SMC_DIAG_DMBINFO and SMC_DIAG_LGRINFO are
 * asked for too and shown, where the kernel sends them, on indented lines:
 *   conn token=0x... rmbe=N peer_rmbe=N sndbuf=N
 *        rx_prod=W:C rx_cons=W:C tx_prod=W:C tx_cons=W:C
 *        rx_flags=0x.. rx_state=0x.. tx_flags=0x.. tx_state=0x..
 *   dmb lgr=0x... token=0x... peer_token=0x... gid=0x...[/0x...]
 *        peer_gid=0x...[/0x...]
 *   link id=N dev=IBDEV port=N
 * (each record on one line; the GID extension only in a 56-byte payload)
 *
 * With -w MS the lookup is repeated every 20 ms until a connected
 * socket matches or MS ms have passed; the last lookup is shown.
 *
 * With -a it only tries socket(AF_SMC): the tests' check that the
 * family is there, without a python start (seconds on a debug kernel).
 *
 * Exit status: 0 ok, 1 path mismatch (with -e) or error,
 * 2 no matching socket found (not used with -c alone).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "smc_diag_util.h"

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [-p PID [-f FD]] [-s STATE] [-c] [-e] [-v] [-w MS]\n"
		"       %s -a\n"
		"  -a        exit 0 when socket(AF_SMC) works, 1 when not\n"
		"  -p PID    only sockets held open by PID\n"
		"  -f FD     only the socket behind file descriptor FD of PID\n"
		"  -s STATE  only sockets in this state (number)\n"
		"  -c        print the number of matching sockets only\n"
		"  -e        check every connected socket against\n"
		"            SMC_EXPECT_PATH/SMC_EXPECT_REASON; exit 2 if no\n"
		"            connected socket matched the filters\n"
		"  -v        also the connection details, the DMB (SMC-D)\n"
		"            and the link (SMC-R)\n"
		"  -w MS     look again every 20 ms, for up to MS ms, until a\n"
		"            connected socket matches (one cheap process for\n"
		"            watching a benchmark)\n",
		prog, prog);
}

static int smc_socket_works(void)
{
	int fd = socket(AF_SMC, SOCK_STREAM, 0);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int parse_fd_link(const char *path, unsigned long long *ino)
{
	char buf[64];
	ssize_t n;

	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "socket:[%llu]", ino) == 1 ? 0 : -1;
}

/* Collect the socket inodes held by pid (optionally one fd only). */
static int pid_inodes(int pid, int fd, unsigned long long **out)
{
	unsigned long long *arr = NULL, ino;
	size_t n = 0, cap = 0;
	char path[320];
	struct dirent *de;
	DIR *d;

	if (fd >= 0) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
		if (parse_fd_link(path, &ino))
			return -1;
		*out = malloc(sizeof(**out));
		if (!*out)
			return -1;
		(*out)[0] = ino;
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid,
			 de->d_name);
		if (parse_fd_link(path, &ino))
			continue;
		if (n == cap) {
			unsigned long long *na;

			cap = cap ? cap * 2 : 32;
			na = realloc(arr, cap * sizeof(*arr));
			if (!na) {
				free(arr);
				closedir(d);
				return -1;
			}
			arr = na;
		}
		arr[n++] = ino;
	}
	closedir(d);
	*out = arr;
	return (int)n;
}

static void fmt_addr(const struct smc_sock_info *si, const uint8_t *a,
		     uint16_t port, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	static const uint8_t zero[12];

	if (!memcmp(a + 4, zero, 12))
		inet_ntop(AF_INET, a, ip, sizeof(ip));
	else
		inet_ntop(AF_INET6, a, ip, sizeof(ip));
	(void)si;
	snprintf(buf, len, "%s:%u", ip, port);
}

static void print_curs(const char *name, const struct smc_test_cursor *c)
{
	printf(" %s=%u:%u", name, c->wrap, c->count);
}

static void print_details(const struct smc_sock_info *si)
{
	const struct smc_test_conninfo *ci = &si->conn;
	const struct smc_test_dmbinfo *di = &si->dmb;

	if (smc_has_conninfo(si)) {
		printf("  conn token=0x%08x rmbe=%u peer_rmbe=%u sndbuf=%u",
		       ci->token, ci->rmbe_size, ci->peer_rmbe_size,
		       ci->sndbuf_size);
		print_curs("rx_prod", &ci->rx_prod);
		print_curs("rx_cons", &ci->rx_cons);
		print_curs("tx_prod", &ci->tx_prod);
		print_curs("tx_cons", &ci->tx_cons);
		printf(" rx_flags=0x%02x rx_state=0x%02x tx_flags=0x%02x tx_state=0x%02x\n",
		       ci->rx_prod_flags, ci->rx_conn_state_flags,
		       ci->tx_prod_flags, ci->tx_conn_state_flags);
	} else if (si->conninfo_len) {
		printf("  conn: short attribute (%d bytes)\n", si->conninfo_len);
	}
	if (smc_has_dmbinfo(si)) {
		printf("  dmb lgr=0x%08x token=0x%016llx peer_token=0x%016llx gid=0x%016llx",
		       di->linkid, (unsigned long long)di->token,
		       (unsigned long long)di->peer_token,
		       (unsigned long long)di->my_gid);
		if (si->dmbinfo_len >= SMC_TEST_DMBINFO_LEN)
			printf("/0x%016llx", (unsigned long long)di->my_gid_ext);
		printf(" peer_gid=0x%016llx", (unsigned long long)di->peer_gid);
		if (si->dmbinfo_len >= SMC_TEST_DMBINFO_LEN)
			printf("/0x%016llx",
			       (unsigned long long)di->peer_gid_ext);
		printf("\n");
	} else if (si->dmbinfo_len) {
		printf("  dmb: short attribute (%d bytes)\n", si->dmbinfo_len);
	}
	if (smc_has_lgrinfo(si))
		printf("  link id=%u dev=%s port=%u\n", si->lgr.link_id,
		       si->lgr.ibname, si->lgr.ibport);
	else if (si->lgrinfo_len)
		printf("  link: short attribute (%d bytes)\n", si->lgrinfo_len);
}

static int connected_state(int state)
{
	return state != SMC_TEST_INIT && state != SMC_TEST_LISTEN &&
	       state != SMC_TEST_CLOSED;
}

/* Does @si pass the -p/-f/-s filters? */
static int wanted(const struct smc_sock_info *si, int state,
		  const unsigned long long *inodes, int ninodes, int by_pid)
{
	int j;

	if (state >= 0 && si->state != state)
		return 0;
	if (!by_pid)
		return 1;
	for (j = 0; j < ninodes; j++)
		if (inodes[j] == si->inode)
			return 1;
	return 0;
}

static int any_connected(const struct smc_sock_info *arr, int n, int state,
			 const unsigned long long *inodes, int ninodes,
			 int by_pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (connected_state(arr[i].state) &&
		    wanted(&arr[i], state, inodes, ninodes, by_pid))
			return 1;
	return 0;
}

#define SOCK_FMT "inode=%llu state=%s(%d) mode=%s reason=0x%08x peer=0x%08x local=%s remote=%s\n"

int main(int argc, char **argv)
{
	unsigned long long *inodes = NULL;
	struct smc_sock_info *arr;
	int pid = -1, fd = -1, state = -1, count_only = 0, check = 0;
	unsigned int ext = 0;
	int n, ninodes = 0, i, matched = 0, checked = 0, bad = 0;
	int opt, wait_ms = 0;

	while ((opt = getopt(argc, argv, "ap:f:s:cevw:h")) != -1) {
		switch (opt) {
		case 'a':
			return smc_socket_works() ? 0 : 1;
		case 'p':
			pid = atoi(optarg);
			break;
		case 'f':
			fd = atoi(optarg);
			break;
		case 's':
			state = atoi(optarg);
			break;
		case 'c':
			count_only = 1;
			break;
		case 'e':
			check = 1;
			break;
		case 'v':
			ext = SMC_TEST_EXT_CONNINFO | SMC_TEST_EXT_DMBINFO |
			      SMC_TEST_EXT_LGRINFO;
			break;
		case 'w':
			wait_ms = atoi(optarg);
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			usage(argv[0]);
			return 1;
		}
	}
	if (fd >= 0 && pid < 0) {
		usage(argv[0]);
		return 1;
	}
	for (;;) {
		if (pid >= 0) {
			ninodes = pid_inodes(pid, fd, &inodes);
			if (ninodes < 0) {
				fprintf(stderr, "cannot read fds of pid %d: %s\n",
					pid, strerror(errno));
				return 1;
			}
		}
		n = smc_diag_dump_ext(ext, &arr);
		if (n < 0) {
			fprintf(stderr, "smc_diag dump failed: %s\n",
				strerror(-n));
			return 1;
		}
		if (wait_ms <= 0 ||
		    any_connected(arr, n, state, inodes, ninodes, pid >= 0))
			break;
		free(arr);
		free(inodes);
		inodes = NULL;
		usleep(20000);
		wait_ms -= 20;
	}

	for (i = 0; i < n; i++) {
		struct smc_sock_info *si = &arr[i];
		char why[256], la[80], ra[80];

		if (!wanted(si, state, inodes, ninodes, pid >= 0))
			continue;
		matched++;
		if (!count_only) {
			fmt_addr(si, si->src, si->sport, la, sizeof(la));
			fmt_addr(si, si->dst, si->dport, ra, sizeof(ra));
			printf(SOCK_FMT,
			       (unsigned long long)si->inode,
			       smc_state_name(si->state), si->state,
			       smc_mode_name(si->mode), si->reason,
			       si->peer_diag, la, ra);
			if (ext)
				print_details(si);
		}
		if (check && connected_state(si->state)) {
			checked++;
			if (smc_path_match(si, why, sizeof(why))) {
				fprintf(stderr, "path mismatch: %s\n", why);
				bad++;
			}
		}
	}
	if (count_only)
		printf("%d\n", matched);
	free(arr);
	free(inodes);

	if (bad)
		return 1;
	if (count_only && !check)
		return 0;
	if (check)
		return checked ? 0 : 2;
	return matched ? 0 : 2;
}
