/* SPDX-License-Identifier: GPL-2.0 */
/* Monotonic milliseconds and a sleep that survives signals. */
#ifndef SMC_SELFTEST_TIMEUTIL_H
#define SMC_SELFTEST_TIMEUTIL_H

#include <errno.h>
#include <time.h>

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

#endif /* SMC_SELFTEST_TIMEUTIL_H */
