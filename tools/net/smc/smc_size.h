/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A buffer size as smc_run's users write it: digits with an optional
 * k/K (KiB) or m/M (MiB) suffix.  Shared by the preload library and
 * smc_run_bpf.
 */
#ifndef SMC_SIZE_H
#define SMC_SIZE_H

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

/* 0 and the size in *@out, or -1 for anything else */
static inline int smc_parse_size(const char *s, int *out)
{
	long v, mult = 1;
	char *end;

	/* strtol() would take leading blanks and a sign */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'k' || *end == 'K') {
		mult = 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		mult = 1024 * 1024;
		end++;
	}
	/* check before multiplying: the product may overflow a long */
	if (*end || v > INT_MAX / mult)
		return -1;
	*out = (int)(v * mult);
	return 0;
}

#endif /* SMC_SIZE_H */
