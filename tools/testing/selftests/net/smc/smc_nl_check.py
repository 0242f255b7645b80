#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Compare what the smc tool shows over netlink (smc -j dev, smc -j lgr)
# with the module's debugfs files, which the SMC-R tests trust:
#
#   smc_nl_check.py vectors SMC DEVS   per-vector QP counts of every
#                                      device; prints "DEV completions N"
#   smc_nl_check.py links SMC LGRS     every link of every SMC-R link
#                                      group: state, device, port, vector
#
# Exit 0 when both agree, 1 with the differences on stderr.

import json
import re
import subprocess
import sys


def smc_json(tool, what):
    out = subprocess.run([tool, "-j", what], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def vectors(tool, devs_file):
    nl = {}
    done = {}
    for d in smc_json(tool, "dev")["devices"]:
        cqs = sorted(d["cqs"], key=lambda c: c["vector"])
        if [c["vector"] for c in cqs] != list(range(len(cqs))):
            print(f"{d['name']}: vectors {cqs}", file=sys.stderr)
            return 1
        nl[d["name"]] = [c["qps"] for c in cqs]
        done[d["name"]] = sum(c["completions"] for c in cqs)
    dbg = {}
    with open(devs_file) as f:
        for line in f:
            m = re.match(r"(\S+) .* qps ([0-9 ]+?)(?: netdev| pnet|$)",
                         line.strip())
            if m:
                dbg[m.group(1)] = [int(n) for n in m.group(2).split()]
    if nl != dbg:
        print(f"netlink {nl}\ndebugfs {dbg}", file=sys.stderr)
        return 1
    for name in sorted(done):
        print(f"{name} completions {done[name]}")
    return 0


STATE = {"activating": "activating", "active": "active",
         "inactive": "down"}


def links(tool, lgrs_file):
    nl = set()
    conns = {}
    for g in smc_json(tool, "lgr")["lgrs"]:
        if g["type"] != "smcr":
            continue
        conns[g["id"]] = g["conns"]
        for ln in g["links"]:
            nl.add((g["id"], ln["id"], STATE.get(ln["state"], "?"),
                    ln["dev"], ln["port"], ln["cq_vector"]))
    dbg = set()
    dconns = {}
    pat = re.compile(r"id (\d+) role \S+ v \d+ conns (\d+) link (\d+) "
                     r"state (\S+) dev (\S+) port (\d+) qp \d+ vector (\d+)")
    with open(lgrs_file) as f:
        for line in f:
            m = pat.match(line)
            if not m:
                continue
            gid = int(m.group(1))
            dconns[gid] = int(m.group(2))
            dbg.add((gid, int(m.group(3)), m.group(4), m.group(5),
                     int(m.group(6)), int(m.group(7))))
    if nl != dbg or conns != dconns or not nl:
        print(f"netlink {sorted(nl)} {conns}\n"
              f"debugfs {sorted(dbg)} {dconns}", file=sys.stderr)
        return 1
    return 0


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("vectors", "links"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "vectors":
        return vectors(sys.argv[2], sys.argv[3])
    return links(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    sys.exit(main())
