#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A send buffer serves the next connection only once the RDMA writes
# that read it are done.  send() returns when the data is in the send
# buffer, not when the device has read it; a connection whose peer is
# done may be torn down at close() with its last writes still queued on
# the link, and a new connection clears the buffer it takes from the
# group's pool.  If that is the buffer of those writes, the peer gets
# zeros, or the new connection's data, where the old stream ends.
#
# On the rxe test bed (smcr_topo.sh), LANES chains of ROUNDS clients on
# A each send BYTES to its own server on B, which sends nothing (it
# shuts its side at once, so a client's close tears the connection down
# at once), and the next client of the chain connects as soon as one
# exits.  netem delays what B sends by DELAY_MS: the acknowledgements
# that let rxe go on sending come late, so the writes of all the lanes
# queue up on the link's QP for about a second, while a new handshake
# takes two delays.  Every server checks the SHA-256 of its stream, and
# each end that its connection went over SMC-R.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

LANES=8
ROUNDS=3
BYTES=1048576
DELAY_MS=40
XFER=$HERE/smc_xfer

smcr_bed_require
require_tools tc
[ -x "$XFER" ] || ktap_skip_all "no smc_xfer (make)"
rmem_saved=$(sysctl -n net.smc.rmem)
smcr_test_restore()
{
	tc qdisc del dev "$SMCR_NETB" root 2>/dev/null
	sysctl -qw net.smc.rmem="$rmem_saved"
}
smcr_bed_begin 2

# RMBs of 512 KiB on B, the largest we make: a ring's worth of writes
# may be queued when a client closes
sysctl -qw net.smc.rmem=1048576
export SMC_EXPECT_PATH=smcr SMC_EXPECT_REASON=0

# sndbuf_reuses: SMC-R send buffers taken from a pool so far
sndbuf_reuses()
{
	"$SMC_TOOL" -j stats | python3 -c '
import json, sys
s = json.load(sys.stdin)["smcr"]
print(s["tx_rmb_stats"]["reuse_cnt"])'
}

# 1: every stream arrives whole while the buffers go round
rc=0
if ! tc qdisc add dev "$SMCR_NETB" root netem delay ${DELAY_MS}ms; then
	ktap_diag "no netem: the writes may not be queued at close"
	rc=1
fi
reuse0=$(sndbuf_reuses) || rc=1
srv=()
for i in $(seq 0 $((LANES * ROUNDS - 1))); do
	port[i]=$(free_port)
	"$XFER" -s "$SMCR_B" "${port[i]}" -n $BYTES -m 0 -S $((i + 1)) \
		-t 240 -r "$tmp_dir/r$i" > "$tmp_dir/s$i" 2>&1 &
	srv+=($!)
	track $!
done
for i in $(seq 0 $((LANES * ROUNDS - 1))); do
	wait_until 10 test -e "$tmp_dir/r$i" || rc=1
done
lanes=()
for l in $(seq 0 $((LANES - 1))); do
	(
		for r in $(seq 0 $((ROUNDS - 1))); do
			i=$((r * LANES + l))
			"$XFER" -c "$SMCR_B" "${port[i]}" -n $BYTES -m 0 \
				-S $((i + 1)) -t 240 > "$tmp_dir/c$i" 2>&1 ||
				echo "client $i failed" >> "$tmp_dir/c$i"
		done
	) &
	lanes+=($!)
	track $!
done
wait "${lanes[@]}"
bad=0
for i in $(seq 0 $((LANES * ROUNDS - 1))); do
	if ! wait "${srv[i]}" || grep -q failed "$tmp_dir/c$i"; then
		bad=$((bad + 1))
		[ $bad -le 4 ] && ktap_diag "$(cat "$tmp_dir/c$i" "$tmp_dir/s$i")"
	fi
done
tc qdisc del dev "$SMCR_NETB" root 2>/dev/null
reuse1=$(sndbuf_reuses) || rc=1
ktap_diag "$((LANES * ROUNDS)) connections, $bad failed"
[ $bad = 0 ] || rc=1
ktap_result "streams end whole while their send buffers go round" $rc

# 2: the buffers did go round: later clients took earlier ones' buffers
rc=0
ktap_diag "send buffers reused: $((reuse1 - reuse0))"
[ $((reuse1 - reuse0)) -gt 0 ] || rc=1
ktap_result "later connections reuse the send buffers of earlier ones" $rc

ktap_finish
