/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The marker instructions that start and end a phase of the instruction
 * profile (insnprof/insnprof.c, make bench --profile in the deterministic
 * mode): "nopl 0x534d4301(%rax,%rax,1)" and "nopl 0x534d4302(...)", 8-byte
 * no-ops no compiler emits with these displacements.  Without the plugin
 * they cost one instruction each.
 */
#ifndef INSNMARK_H
#define INSNMARK_H

static inline void insnmark_begin(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x01, 0x43, 0x4d, 0x53");
}

static inline void insnmark_end(void)
{
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x02, 0x43, 0x4d, 0x53");
}

#endif
