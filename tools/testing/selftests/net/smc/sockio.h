/* SPDX-License-Identifier: GPL-2.0 */
/* Socket reads the tests share. */
#ifndef SMC_SELFTEST_SOCKIO_H
#define SMC_SELFTEST_SOCKIO_H

#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>

/* Exactly @n bytes from @fd: 0, or -1 on an error or end of stream */
static inline int recv_exact(int fd, void *buf, size_t n)
{
	size_t have = 0;
	ssize_t r;

	while (have < n) {
		r = recv(fd, (char *)buf + have, n - have, 0);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		have += r;
	}
	return 0;
}

#endif /* SMC_SELFTEST_SOCKIO_H */
