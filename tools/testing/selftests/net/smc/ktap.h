/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP output helpers shared by the AF_SMC selftests.
 */
#ifndef SMC_SELFTEST_KTAP_H
#define SMC_SELFTEST_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

static int ktap_nr, ktap_npass, ktap_nfail, ktap_nskip;

static inline void ktap_header(int plan)
{
	printf("TAP version 13\n");
	printf("1..%d\n", plan);
	fflush(stdout);
}

static inline void __attribute__((format(printf, 1, 2)))
ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline void ktap_result(int ok, const char *name)
{
	ktap_nr++;
	if (ok)
		ktap_npass++;
	else
		ktap_nfail++;
	printf("%sok %d %s\n", ok ? "" : "not ", ktap_nr, name);
	fflush(stdout);
}

static inline void ktap_skip(const char *name, const char *why)
{
	ktap_nr++;
	ktap_nskip++;
	printf("ok %d %s # SKIP %s\n", ktap_nr, name, why);
	fflush(stdout);
}

/* Print the totals and exit with the kselftest exit code. */
static inline void __attribute__((noreturn)) ktap_finish(void)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       ktap_npass, ktap_nfail, ktap_nskip);
	fflush(stdout);
	if (ktap_nfail)
		exit(KSFT_FAIL);
	if (!ktap_npass && ktap_nskip)
		exit(KSFT_SKIP);
	exit(KSFT_PASS);
}

/* Skip the whole program before any test ran. */
static inline void __attribute__((noreturn)) ktap_skip_all(const char *why)
{
	printf("TAP version 13\n1..0 # SKIP %s\n", why);
	fflush(stdout);
	exit(KSFT_SKIP);
}

/* Fail the whole program before any test ran (broken setup). */
static inline void __attribute__((noreturn)) ktap_fail_all(const char *why)
{
	printf("TAP version 13\n1..1\n# %s\nnot ok 1 setup\n", why);
	fflush(stdout);
	exit(KSFT_FAIL);
}

/*
 * Called when socket(AF_SMC) failed: skip if no smc module is loaded at
 * all, but fail if it is loaded (our module is there but does not work).
 */
static inline void __attribute__((noreturn)) ktap_no_smc(int err)
{
	char why[160];

	snprintf(why, sizeof(why), "socket(AF_SMC) failed: %s",
		 strerror(err));
	if (access("/sys/module/smc", F_OK) == 0)
		ktap_fail_all(why);
	ktap_skip_all(why);
}

#endif /* SMC_SELFTEST_KTAP_H */
