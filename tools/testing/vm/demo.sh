#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Demo run inside the guest (via 'make demo'), our modules already loaded:
# an HTTP server and a curl client, both forced onto AF_SMC by smc_run,
# then the SMC sockets as seen through smc_diag.  Extended as the module
# grows.
set -euo pipefail
cd "$(dirname "$0")/../../.."
SMC_RUN=tools/net/smc/smc_run
[ -x "$SMC_RUN" ] || { echo "demo: $SMC_RUN not built"; exit 1; }

ip link set lo up
www=$(mktemp -d)
echo "hello over AF_SMC" > "$www/hello.txt"
"$SMC_RUN" python3 -m http.server -b 127.0.0.1 -d "$www" 8080 \
	>/tmp/demo-httpd.log 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	(exec 3<>/dev/tcp/127.0.0.1/8080) 2>/dev/null && break
	sleep 0.2
done
echo "demo: fetching http://127.0.0.1:8080/hello.txt with curl under smc_run"
"$SMC_RUN" curl -sS --max-time 20 http://127.0.0.1:8080/hello.txt

PATHTOOL=tools/testing/selftests/net/smc/smc_path

# iperf3, unmodified: once over TCP, once through smc_run, where both
# of its connections (control and data) take SMC-D over loopback-ism.
# smc_diag is asked for the path while the transfer runs.
iperf() {
	local label=$1 wrap=$2 out=/tmp/demo-iperf-$1
	$wrap iperf3 -s -1 -B 127.0.0.1 -p 5201 >/dev/null 2>&1 &
	local s=$!
	# not a probe connection: the one-off server would take it as its test
	for _ in $(seq 50); do
		ss -Hltn 'sport = :5201' | grep -q . && break
		sleep 0.2
	done
	$wrap iperf3 -c 127.0.0.1 -p 5201 -t 5 -l 128K -f m >"$out" 2>&1 &
	local c=$!
	if [ "$label" = smc ]; then
		# as soon as one is connected: a busy host starts iperf3 late
		echo "demo: AF_SMC sockets of iperf3 while it runs (smc_diag):"
		"$PATHTOOL" -w 5000 | grep -v 'state=LISTEN' || true
	fi
	wait $c || true
	wait $s 2>/dev/null || true
	echo "demo: iperf3 over $label: $(awk '/receiver/ {print $7, $8}' "$out")"
}
if command -v iperf3 >/dev/null; then
	iperf tcp ""
	iperf smc "$SMC_RUN"
fi
