#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark machinery of "make bench", run in its quick mode: the
# guest driver over TCP, Unix sockets, our SMC-D, TCP with BPF sockmap
# redirection and, when it was built for this kernel, upstream's
# SMC-lo; then the report.  A benchmark never fails on its figures, so
# this checks what the figures rest on: every run completed, every SMC
# run was path-checked and took SMC-D, every sockmap run had all its
# messages redirected, the hashed stream matched on every path, the
# module swap put our
# module back, and a forced fallback is caught instead of measured.

. "$(dirname "$0")/lib.sh"

BENCH_DIR=$REPO/tools/testing/bench
SMCBENCH=$BENCH_DIR/smcbench
PARAM=/sys/module/smc/parameters/smcd
UP_DIR=$REPO/.cache/bench/upstream-smc/$(uname -r)

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 ss
require_smc
[ -x "$SMCBENCH" ] || ktap_skip_all "smcbench not built (run make tools)"
[ -w "$PARAM" ] || ktap_skip_all "no writable $PARAM"
setup_common

old_smcd=$(cat "$PARAM")
echo 1 > "$PARAM"
restore_param() { echo "$old_smcd" > "$PARAM" 2>/dev/null; cleanup; }
trap restore_param EXIT

ktap_header 10

# jsonl_check FILE CHECK: one python check over the driver's records;
# prints what is wrong, exit 1 then, 4 when there is nothing to check
jsonl_check()
{
	python3 - "$1" "$2" <<'PY'
import json, sys

recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
check = sys.argv[2]
bad = []
MICRO = [('stream', 1024, False), ('stream', 8192, False),
         ('stream', 65536, False), ('stream', 65536, True),
         ('pingpong', 14, False), ('pingpong', 1024, False),
         ('crr', None, False), ('mem', None, False)]

def micro(path):
    return [r for r in recs if r.get('path') == path and 'mode' in r]

def find(path, mode, size, verify):
    for r in micro(path):
        if r['mode'] != mode or bool(r.get('verify')) != verify:
            continue
        if size is None or r.get('size') == size:
            return r
    return None

if check == 'no-failed':
    bad = [r.get('path', '?') + ' ' + r.get('args', '')
           for r in recs if r.get('failed')]
    if not recs:
        bad = ['no records']
elif check == 'complete':
    for p in ('tcp', 'uds', 'smcd'):
        for mode, size, verify in MICRO:
            r = find(p, mode, size, verify)
            if r is None:
                bad.append('%s %s %s: missing' % (p, mode, size or ''))
            elif r.get('ok') is not True:
                bad.append('%s %s %s: %s' % (p, mode, size or '',
                                             r.get('error')))
elif check == 'smcd-path':
    rs = micro('smcd')
    for r in rs:
        if r['mode'] == 'crr' and not r.get('path_checked'):
            bad.append('crr: not path-checked')
        elif r.get('path_ok') is not True or r.get('path_expect') != 'smcd':
            bad.append('%s %s: %s %s' % (r['mode'], r.get('size'),
                                         r.get('path_mode'),
                                         r.get('path_reason')))
    if not rs:
        bad.append('no SMC-D records')
elif check == 'verified':
    for p in ('tcp', 'uds', 'smcd'):
        r = find(p, 'stream', 65536, True)
        if not r or r.get('verified') is not True or \
           r.get('sha256_tx') != r.get('sha256_rx') or \
           r.get('bytes') != r.get('bytes_sent'):
            bad.append('%s: stream not verified' % p)
elif check == 'apps':
    apps = [r for r in recs if 'app' in r]
    if not apps:
        sys.exit(4)
    for name in ('redis-get', 'redis-set', 'nginx-wrk'):
        for p in ('tcp', 'smcd'):
            r = [a for a in apps if a['app'] == name and a['path'] == p]
            if not r:
                bad.append('%s %s: missing' % (p, name))
                continue
            modes = r[0].get('server_modes', '')
            if not r[0].get('rps'):
                bad.append('%s %s: no rate' % (p, name))
            if p == 'smcd' and ('smcd' not in modes or 'fallback' in modes):
                bad.append('%s %s: server sockets "%s"' % (p, name, modes))
elif check == 'sockmap':
    rs = [r for r in recs if r.get('path') == 'sockmap' and
          ('mode' in r or 'app' in r)]
    if len(micro('sockmap')) != len(MICRO):
        bad.append('%d sockmap micro runs, not %d' % (len(micro('sockmap')),
                                                      len(MICRO)))
    for r in rs:
        what = r.get('app') or '%s %s' % (r['mode'], r.get('size') or '')
        if r.get('path_ok') is not True:
            bad.append('%s: %s' % (what, r.get('path_reason')))
        elif r.get('mode') == 'stream' and r.get('verify') and \
                r.get('verified') is not True:
            bad.append('%s: not verified' % what)
elif check == 'upstream':
    rs = micro('upstream-lo')
    if not rs:
        bad.append('no upstream SMC-lo records')
    for r in rs:
        if r.get('ok') is not True:
            bad.append('%s %s: %s' % (r['mode'], r.get('size'),
                                      r.get('error')))
        elif r['mode'] != 'crr' and r.get('path_ok') is not True:
            bad.append('%s %s: path %s' % (r['mode'], r.get('size'),
                                           r.get('path_mode')))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}

# check_result NAME FILE CHECK: one KTAP line from jsonl_check
check_result()
{
	local out rc

	out=$(jsonl_check "$2" "$3")
	rc=$?
	[ -n "$out" ] && ktap_diag "$(head -n 8 <<< "$out")"
	if [ $rc -eq 4 ]; then
		ktap_skip "$1" "redis-server, nginx or wrk not installed"
	else
		ktap_result "$1" $rc
	fi
}

run_dir=$tmp_dir/results
mkdir -p "$run_dir/deterministic"
jsonl=$run_dir/deterministic/bench.jsonl
upstream=""
[ -f "$UP_DIR/smc.ko" ] && upstream=$UP_DIR

# 1: the driver itself, as make bench runs it, on small amounts
SMC_RESULTS=$run_dir/deterministic SMC_BENCH_QUICK=1 SMC_BENCH_SMCR=0 \
	SMC_BENCH_UPSTREAM=$upstream timeout 1200 \
	bash "$BENCH_DIR/guest.sh" > "$tmp_dir/guest.log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$jsonl" ]; then
	ktap_diag "guest.sh: rc $rc"
	ktap_diag "$(tail -n 8 "$tmp_dir/guest.log")"
	rc=1
fi
ktap_result "driver completes and records its runs" $rc

check_result "no run failed" "$jsonl" no-failed
check_result "tcp, uds, smcd: every micro benchmark ran" "$jsonl" complete
check_result "every SMC run was path-checked and took SMC-D" "$jsonl" smcd-path
check_result "hashed stream matches on every path" "$jsonl" verified
check_result "redis and nginx through smc_run over SMC-D" "$jsonl" apps
check_result "sockmap: every run's messages redirected, none over TCP" \
	"$jsonl" sockmap

# 7: upstream's module was swapped in, ran over SMC-D, and ours is back
if [ -z "$upstream" ]; then
	ktap_skip "upstream SMC-lo over SMC-D, our module back" \
		"no upstream SMC-lo build for $(uname -r)"
else
	out=$(jsonl_check "$jsonl" upstream)
	rc=$?
	[ -n "$out" ] && ktap_diag "$(head -n 8 <<< "$out")"
	if [ ! -w "$PARAM" ] ||
	   ! python3 -c 'import socket; socket.socket(43, 1, 0)' 2>/dev/null; then
		ktap_diag "our smc module is not loaded again after the swap"
		rc=1
	fi
	ktap_result "upstream SMC-lo over SMC-D, our module back" $rc
fi
# the swap may have reloaded our module with its default
echo 1 > "$PARAM"

# 8: the report has a row for every metric and leaves nothing out
rc=0
# no chart: this checks the table, and a guest's read-only home makes
# matplotlib (when the host has it) build its font cache on every run,
# for minutes under TCG
if ! SMC_BENCH_NO_CHART=1 python3 "$BENCH_DIR/report.py" "$run_dir" \
	"$(uname -r)" > "$tmp_dir/report.log" 2>&1; then
	ktap_diag "$(tail -n 5 "$tmp_dir/report.log")"
	rc=1
fi
for row in 'stream, 1 KiB writes' 'stream, 64 KiB writes' \
	   'ping-pong 14 B, round trip' 'connect/request/response/close' \
	   'memory per idle connection' 'iperf3, 5 s'; do
	line=$(grep -F "| $row |" "$run_dir/table.md" 2>/dev/null)
	# TCP's ratio to itself, and ours, must be there
	if ! grep -q '| 1.00x |' <<< "$line" ||
	   [ "$(grep -o '[0-9.]*x |' <<< "$line" | wc -l)" -lt 3 ]; then
		ktap_diag "table row '$row': ${line:-missing}"
		rc=1
	fi
done
if grep -q 'Runs left out' "$run_dir/table.md" 2>/dev/null; then
	ktap_diag "$(grep -A 5 'Runs left out' "$run_dir/table.md")"
	rc=1
fi
ktap_result "report: every metric with ratios, nothing left out" $rc

# 9: with SMC-D off the connections fall back; the path check must say
# so, and the report must leave the run out instead of measuring TCP
rc=0
neg=$tmp_dir/neg
mkdir -p "$neg/deterministic"
echo 0 > "$PARAM"
line=$("$SMCBENCH" -t smc -m stream -s 8k -n 1m --expect smcd 2>/dev/null)
brc=$?
echo 1 > "$PARAM"
if [ $brc -eq 0 ] || ! grep -q '"path_ok":false' <<< "$line" ||
   ! grep -q '"path_mode":"fallback"' <<< "$line"; then
	ktap_diag "smcbench accepted a fallback (rc $brc): ${line:0:300}"
	rc=1
fi
printf '{"path":"smcd",%s\n' "${line#\{}" > "$neg/deterministic/bench.jsonl"
python3 "$BENCH_DIR/report.py" "$neg" "$(uname -r)" > /dev/null 2>&1
if ! grep -A 3 'Runs left out' "$neg/table.md" 2>/dev/null |
     grep -q 'our SMC-D stream-8192: '; then
	ktap_diag "report did not leave the fallback run out"
	rc=1
fi
ktap_result "a silent fallback is caught, not measured" $rc

ktap_finish
