// SPDX-License-Identifier: GPL-2.0
/*
 * cx16-probe: does this CPU's CMPXCHG16B leave RFLAGS as an x86 CPU does?
 *
 * Run in a guest before any test (guest-run.sh).  QEMU's TCG before 8.0
 * computes the flags of CMPXCHG16B from the condition-code state saved
 * at the start of the translation block.  After popf (or an iret) that
 * is the whole flags word, and an "add %src,%dst" in the block leaves
 * %src in its place, so RFLAGS takes %src.  The kernel's slab fast path
 * does that with an object's address (TF, VM and reserved bits set, then
 * a #DB and a double fault), so such a guest must not see CX16 (lib.sh:
 * tcg_cpu).
 *
 * Exit 0: no CX16, or CMPXCHG16B sets the flags right.  Exit 1: it does
 * not (the flags are printed).
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

/* bits no flag-setting instruction may leave: reserved 22-31 and 15,
 * VIP, VIF, AC, VM, RF, NT, IOPL
 */
#define NOT_ARITH	0xfffff000u
#define ZF		0x40u

static __attribute__((aligned(16))) uint64_t word[2];

int main(void)
{
	/* reserved bits only: TF or VM in RFLAGS would stop this process */
	const uint64_t operand = 0xffc08000u;
	unsigned int a, b, c, d;
	uint64_t flags, lo = 0, hi = 0, sum = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_CMPXCHG16B)) {
		printf("cx16-probe: the CPU has no CMPXCHG16B\n");
		return 0;
	}
	/* popf ends a translation block with the flags saved; the add
	 * and the cmpxchg16b then share the next one
	 */
	asm volatile("pushq $0x202\n\t"
		     "popfq\n\t"
		     "add %[op], %[sum]\n\t"
		     "cmpxchg16b %[word]\n\t"
		     "pushfq\n\t"
		     "popq %[flags]"
		     : [flags] "=&r" (flags), "+a" (lo), "+d" (hi),
		       [sum] "+r" (sum), [word] "+m" (word)
		     : [op] "r" (operand), "b" (0UL), "c" (0UL)
		     : "cc", "memory");
	if ((flags & NOT_ARITH) || !(flags & ZF)) {
		printf("cx16-probe: RFLAGS %#llx after add, cmpxchg16b: wrong\n",
		       (unsigned long long)flags);
		return 1;
	}
	printf("cx16-probe: CMPXCHG16B sets RFLAGS right (%#llx)\n",
	       (unsigned long long)flags);
	return 0;
}
