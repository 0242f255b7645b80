#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Ask both netlink families of AF_SMC through the kernel's own
spec-driven client (tools/net/ynl), a second reader of the YNL specs
beside smc_nl_spec.py: it decodes each reply by the spec and fails on
an attribute the spec does not name or a scalar of the wrong size.

  smc_nl_ynl.py

Sends every dump of SMC_GEN_NETLINK and SMC_PNETID, and every do that
has a reply and no request attributes (these change nothing).  Finds
ynl's Python library in SMC_YNL (a tools/net/ynl directory) or, in a
kernel tree, in tools/net/ynl.  Prints a line per operation and a
summary; exit 1 if an operation failed, 4 without the library.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, '../../../../..'))
SPECS = os.path.join(TOP, 'Documentation/netlink/specs')


def ynl_dir():
    for d in (os.environ.get('SMC_YNL'), os.path.join(TOP, 'tools/net/ynl')):
        if d and os.path.exists(os.path.join(d, 'lib', 'ynl.py')):
            return d
    return None


def run(ynl, spec):
    """(passed, failed) of the operations of one family"""
    # the spec's schema check is make nl-gen's; here only the replies
    try:
        fam = ynl(os.path.join(SPECS, spec), schema='')
    except Exception as e:  # the family is not there
        print('FAIL %s: %s' % (spec, e))
        return 0, 1
    passed = failed = 0
    for op in fam.yaml['operations']['list']:
        name = op['name']
        calls = []
        if 'dump' in op:
            calls.append(('dump', lambda n=name: fam.dump(n, {})))
        do = op.get('do') or {}
        if 'reply' in do and not (do.get('request') or {}).get('attributes'):
            calls.append(('do', lambda n=name: fam.do(n, {})))
        for kind, call in calls:
            try:
                reply = call()
                n = len(reply) if isinstance(reply, list) else 1
                print('ok   %s %s %s: %d message(s)' % (spec, kind, name, n))
                passed += 1
            except Exception as e:  # any decode or netlink error
                print('FAIL %s %s %s: %s' % (spec, kind, name, e))
                failed += 1
    return passed, failed


def main():
    d = ynl_dir()
    if not d:
        print('smc_nl_ynl: no ynl library (SMC_YNL unset, no tools/net/ynl)')
        return 4
    sys.path.insert(0, d)
    from lib import YnlFamily

    passed = failed = 0
    for spec in ('smc.yaml', 'smc-pnetid.yaml'):
        p, f = run(YnlFamily, spec)
        passed += p
        failed += f
    print('smc_nl_ynl: %d passed, %d failed' % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == '__main__':
    sys.exit(main())
