#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the allocation call sites of a module, for smc_faults.sh.

smc_fault_sites.py MODULE.ko [/sys/module/NAME/sections]

A site is a call, in a text section of the module, of a kernel
function that allocates (the slab and page allocators and what wraps
them: skbs, sockets, IDs, workqueues, RDMA objects), or of a function
of the module that ends in a tail call of one, or of a function of the
module that makes such a call itself and is called from more than one
place.  What only module init runs is left out.  Each output line is

    SECTION OFFSET FUNCTION+OFFSET CALLEE

where OFFSET (decimal) is that of the call's return address in its
section: in the loaded module, the one address a stack trace through
that call holds, so that a fault-injection stack filter of [ADDRESS,
ADDRESS + 1) fails the allocations made under this call and no other.
Given the loaded module's sections, those gone after loading (init)
are left out.
"""
import os
import re
import subprocess
import sys

ALLOC = re.compile(r'^(__kmalloc\w*|kmalloc\w*|__kvmalloc\w*|kvmalloc\w*|'
                   r'kmem_cache_alloc\w*|__alloc_pages\w*|alloc_pages\w*|'
                   r'__get_free_pages\w*|get_zeroed_page\w*|vmalloc\w*|'
                   r'vzalloc\w*|__vmalloc\w*|kmemdup\w*|kstrdup\w*|'
                   r'krealloc\w*|__alloc_skb|alloc_skb\w*|sk_alloc|'
                   r'sock_create_kern|sock_kmalloc|__alloc_percpu\w*|'
                   r'alloc_workqueue\w*|ida_alloc\w*|idr_alloc\w*|'
                   r'__xa_alloc\w*|xa_alloc\w*|__ib_alloc_pd|'
                   r'ib_create_qp\w*|ib_alloc_mr\w*|ib_create_srq\w*|'
                   r'ib_cq_pool_get|__ib_alloc_cq\w*|ib_get_dma_mr|'
                   r'sg_alloc_table\w*|bitmap_zalloc|bitmap_alloc|'
                   r'rhashtable_\w*insert\w*|mempool_alloc\w*)$')
NOT_ALLOC = {'vmalloc_to_page', 'vmalloc_to_pfn'}
FUNC = re.compile(r'^([0-9a-f]+) <([^>]+)>:$')
SECTION = re.compile(r'^Disassembly of section (\S+):$')
INSN = re.compile(r'^\s*([0-9a-f]+):\s+(call|jmp)\w*\s+(\S+)(?:\s+<([^>+]+)'
                  r'(?:\+0x[0-9a-f]+)?>)?')
RELOC = re.compile(r'^\s*([0-9a-f]+): R_X86_64_(?:PLT32|PC32)\s+([^+-]+)')


def allocates(callee, allocs):
    if callee in NOT_ALLOC:
        return False
    return bool(ALLOC.match(callee)) or callee in allocs


def main():
    ko = sys.argv[1]
    secdir = sys.argv[2] if len(sys.argv) > 2 else None
    dis = subprocess.run(['objdump', '-dr', '--no-show-raw-insn', ko],
                         capture_output=True, text=True, check=True).stdout
    # (section, insn offset, kind, func, func offset, callee)
    insns = []
    sec = func = None
    fstart = 0
    last = None
    for line in dis.splitlines():
        m = SECTION.match(line)
        if m:
            sec, func, last = m.group(1), None, None
            continue
        m = FUNC.match(line)
        if m:
            fstart, func, last = int(m.group(1), 16), m.group(2), None
            continue
        m = INSN.match(line)
        if m and func:
            # a call with a rel32 is 5 bytes long
            off = int(m.group(1), 16)
            last = [sec, off, m.group(2), func, off - fstart, m.group(4)]
            insns.append(last)
            continue
        m = RELOC.match(line)
        if m and last is not None and int(m.group(1), 16) == last[1] + 1:
            last[5] = m.group(2)   # the callee a relocation names
    # Functions of the module that tail-call an allocator allocate too
    allocs = set()
    changed = True
    while changed:
        changed = False
        for s, off, kind, f, foff, callee in insns:
            if kind == 'jmp' and callee and f not in allocs and \
               allocates(callee, allocs):
                allocs.add(f)
                changed = True
    # Functions of the module that allocate themselves; a call of one
    # from another function is a site too when there are several: the
    # same allocation failing on another path (a group's second link,
    # not its first).  One call only is the same as the sites inside.
    direct = set(f for s, off, kind, f, foff, callee in insns
                 if kind == 'call' and callee and allocates(callee, allocs))
    calls = {}
    for s, off, kind, f, foff, callee in insns:
        if kind == 'call' and callee and callee != f:
            calls.setdefault(callee, []).append(f)
    # What only module init runs is never reached by a test
    init_only = set(['init_module'])
    changed = True
    while changed:
        changed = False
        for g, callers in calls.items():
            if g not in init_only and set(callers) <= init_only:
                init_only.add(g)
                changed = True
    for s, off, kind, f, foff, callee in insns:
        if kind != 'call' or not callee or f in init_only:
            continue
        if not allocates(callee, allocs) and \
           (callee not in direct or len(calls.get(callee, [])) < 2):
            continue
        if secdir and not os.path.exists(os.path.join(secdir, s)):
            continue   # init text, freed after loading
        print('%s %d %s+0x%x %s' % (s, off + 5, f, foff + 5, callee))


if __name__ == '__main__':
    main()
