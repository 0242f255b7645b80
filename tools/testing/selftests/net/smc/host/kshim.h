/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-ins for the few kernel definitions the SMC wire-format
 * code uses, so that net/smc/smc_*_wire.c build unchanged on the host.
 */
#ifndef _SMC_HOST_KSHIM_H
#define _SMC_HOST_KSHIM_H

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;

#define cpu_to_be16(x)	htobe16(x)
#define cpu_to_be32(x)	htobe32(x)
#define cpu_to_be64(x)	htobe64(x)
#define be16_to_cpu(x)	be16toh(x)
#define be32_to_cpu(x)	be32toh(x)
#define be64_to_cpu(x)	be64toh(x)

#ifndef min
#define min(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); \
			   _a < _b ? _a : _b; })
#endif
#ifndef max
#define max(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); \
			   _a > _b ? _a : _b; })
#endif
#ifndef min_t
#define min_t(t, a, b)	({ t _ab[2] = { (a), (b) }; \
			   _ab[0] < _ab[1] ? _ab[0] : _ab[1]; })
#endif
#ifndef max_t
#define max_t(t, a, b)	({ t _ab[2] = { (a), (b) }; \
			   _ab[0] > _ab[1] ? _ab[0] : _ab[1]; })
#endif

#ifndef __packed
#define __packed		__attribute__((__packed__))
#endif

#define BUILD_BUG_ON(cond)	static_assert(!(cond), #cond)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#endif /* _SMC_HOST_KSHIM_H */
