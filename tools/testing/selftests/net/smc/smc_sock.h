/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SMC sockets a selftest makes.  By default AF_SMC's: socket(AF_SMC,
 * type, SMCPROTO_SMC or SMCPROTO_SMC6).  Run as NAME@ipproto
 * (SMC_TEST_VARIANT=ipproto), IPPROTO_SMC's: socket(AF_INET or
 * AF_INET6, type, IPPROTO_SMC), the same sockets under the inet family
 * (Linux 6.11 and later).
 */
#ifndef SMC_SELFTEST_SOCK_H
#define SMC_SELFTEST_SOCK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ktap.h"
#include "smc_diag_util.h"

/* Debian 12's headers predate it */
#ifndef IPPROTO_SMC
#define IPPROTO_SMC	256
#endif

/* The running kernel has IPPROTO_SMC: Linux 6.11 or later */
static inline int smc_kernel_has_ipproto(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 11);
}

/* SMC_TEST_VARIANT=ipproto: the program's SMC sockets are IPPROTO_SMC */
static inline int smc_test_ipproto(void)
{
	const char *v = getenv("SMC_TEST_VARIANT");

	return v && !strcmp(v, "ipproto");
}

/* An SMC socket over @fam (AF_INET or AF_INET6) of @type (flags too) */
static inline int smc_socket(int fam, int type)
{
	if (smc_test_ipproto())
		return socket(fam, type, IPPROTO_SMC);
	return socket(AF_SMC, type,
		      fam == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
}

/* The family SO_DOMAIN reports of an SMC socket over @fam */
static inline int smc_socket_domain(int fam)
{
	return smc_test_ipproto() ? fam : AF_SMC;
}

/* The protocol SO_PROTOCOL reports of an SMC socket over @fam */
static inline int smc_socket_protocol(int fam)
{
	if (smc_test_ipproto())
		return IPPROTO_SMC;
	return fam == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC;
}

/*
 * At the start of a program: the SMC socket it makes can be made, else
 * the whole program fails (the module is loaded) or skips (it is not,
 * or, for IPPROTO_SMC, the kernel predates it).
 */
static inline void smc_socket_require(void)
{
	char why[160];
	int fd, err;

	fd = smc_socket(AF_INET, SOCK_STREAM);
	if (fd >= 0) {
		close(fd);
		return;
	}
	err = errno;
	if (!smc_test_ipproto())
		ktap_no_smc(err);
	snprintf(why, sizeof(why), "socket(AF_INET, SOCK_STREAM, IPPROTO_SMC): %s",
		 strerror(err));
	/* a kernel before 6.11 has no such protocol: nothing to test */
	if (!smc_kernel_has_ipproto())
		ktap_skip_all(why);
	if (access("/sys/module/smc", F_OK) == 0)
		ktap_fail_all(why);
	ktap_skip_all(why);
}

#endif /* SMC_SELFTEST_SOCK_H */
