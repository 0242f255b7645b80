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

# A connection that stays open while smc_diag is asked which path each
# end took: for now every AF_SMC connection falls back to TCP with reason
# 0x03010000 (the peer did not signal SMC in the TCP handshake).
PATHTOOL=tools/testing/selftests/net/smc/smc_path
"$SMC_RUN" socat -u TCP-LISTEN:8081,reuseaddr,bind=127.0.0.1 - \
	>/tmp/demo-recv 2>/dev/null &
rcv=$!
trap 'kill $srv $rcv 2>/dev/null || true' EXIT
sleep 0.5
(echo "held-open connection"; sleep 3) |
	"$SMC_RUN" socat -u - TCP:127.0.0.1:8081 2>/dev/null &
snd=$!
sleep 1.5
echo "demo: AF_SMC sockets and the path each one took (smc_diag):"
"$PATHTOOL" | grep -v 'state=LISTEN' || true
wait $snd || true
echo "demo: socat received: $(cat /tmp/demo-recv)"
