/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared Memory Communications: byte helpers for the wire-format layer.
 *
 * The wire code (smc_clc_wire.c, smc_cdc_wire.c, smc_llc_wire.c) is
 * pure: no allocation, no locking, only fixed-size buffers.  It builds
 * both in the kernel and in user space (host unit tests and fuzzers),
 * where kshim.h supplies the few kernel definitions it needs.
 *
 * Each message's layout is described once, in the header of its protocol,
 * by a packed struct of byte fields (struct ..._wire) whose field offsets
 * and size are checked at build time against the numbers of the protocol
 * description.  These structs are never instantiated nor laid over a
 * buffer: the codec only takes offsetof() and sizeof() of them, and reads
 * and writes each field with the accessors below at that offset of a u8
 * buffer, so the code stays independent of alignment and CPU byte order.
 * A field's type tells its encoding: __be16/__be32/__be64 network order,
 * u16/u32 the sender's host order, u8 arrays 24-bit numbers and opaque
 * bytes; a byte of nibbles or bits is a u8 with named masks.
 */
#ifndef _SMC_WIRE_H
#define _SMC_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/build_bug.h>
#include <asm/byteorder.h>
#else
#include "kshim.h"
#endif

/* Build-time checks of a layout struct against the protocol's numbers */
#define SMC_WIRE_AT(s, f, off)						\
	static_assert(offsetof(struct s, f) == (off),			\
		      #s "." #f " is at byte " #off)
#define SMC_WIRE_SIZE(s, len)						\
	static_assert(sizeof(struct s) == (len), #s " is " #len " bytes")

/* Big-endian (network order) accessors at an arbitrary byte position. */
static inline u16 smc_get_be16(const u8 *p)
{
	return (u16)p[0] << 8 | p[1];
}

static inline u32 smc_get_be24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static inline u32 smc_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 smc_get_be64(const u8 *p)
{
	return (u64)smc_get_be32(p) << 32 | smc_get_be32(p + 4);
}

static inline void smc_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void smc_put_be24(u8 *p, u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void smc_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void smc_put_be64(u8 *p, u64 v)
{
	smc_put_be32(p, v >> 32);
	smc_put_be32(p + 4, (u32)v);
}

/* Native (sender host order) accessors, used by the SMC-D CDC header. */
static inline u16 smc_get_host16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 smc_get_host32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void smc_put_host16(u8 *p, u16 v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void smc_put_host32(u8 *p, u32 v)
{
	memcpy(p, &v, sizeof(v));
}

#endif /* _SMC_WIRE_H */
