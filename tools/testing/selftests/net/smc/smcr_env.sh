#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test bed of the SMC-R tests, checked on its own: two rdma_rxe
# devices on the ends of a veth pair in init_net (smcr_topo.sh says why
# and how), plain RDMA RC traffic between them that really crosses the
# pair, and a teardown that leaves nothing behind.  Works with the
# stock rxe of 6.1 and 6.12.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools rdma ibv_rc_pingpong ip sysctl
smcr_topo_setup

ktap_header 4

# link_stat DEV FIELD: a counter of DEV (tx_packets, rx_packets)
link_stat()
{
	cat "/sys/class/net/$1/statistics/$2"
}

rc=0
smcr_topo_up || rc=1
[ $rc -eq 0 ] || ktap_diag "$(rdma link show 2>&1; ip rule 2>&1)"
ktap_result "two rxe devices on a veth pair, ACTIVE, with RoCE v2 GIDs" $rc
if [ $rc -ne 0 ]; then
	ktap_skip "RC traffic between the two devices" "no test bed"
	ktap_skip "the traffic crossed the veth pair both ways" "no test bed"
else
	ga=$(smcr_gid_index "$SMCR_RXEA" "$SMCR_A")
	gb=$(smcr_gid_index "$SMCR_RXEB" "$SMCR_B")
	ktap_diag "$SMCR_RXEA GID $ga, $SMCR_RXEB GID $gb"
	declare -A tx0 rx0
	for dev in "$SMCR_NETA" "$SMCR_NETB"; do
		tx0[$dev]=$(link_stat "$dev" tx_packets)
		rx0[$dev]=$(link_stat "$dev" rx_packets)
	done
	port=$(free_port)
	iters=200
	timeout 60 ibv_rc_pingpong -d "$SMCR_RXEA" -g "$ga" -p "$port" \
		-n $iters -s 4096 > "$tmp_dir/srv.out" 2>&1 &
	srv=$!
	track $srv
	wait_until 10 port_listening "$port"
	timeout 60 ibv_rc_pingpong -d "$SMCR_RXEB" -g "$gb" -p "$port" \
		-n $iters -s 4096 "$SMCR_A" > "$tmp_dir/cli.out" 2>&1
	crc=$?
	wait $srv
	src=$?
	rc=0
	if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
		ktap_diag "client rc $crc: $(tail -n 3 "$tmp_dir/cli.out")"
		ktap_diag "server rc $src: $(tail -n 3 "$tmp_dir/srv.out")"
		rc=1
	fi
	ktap_diag "$(grep -h 'iters in' "$tmp_dir/cli.out")"
	ktap_result "RC traffic between the two devices" $rc

	# every message is at least one RoCE packet each way
	rc=0
	for dir in "$SMCR_NETA $SMCR_NETB" "$SMCR_NETB $SMCR_NETA"; do
		read -r from to <<< "$dir"
		tx=$(( $(link_stat "$from" tx_packets) - ${tx0[$from]} ))
		rx=$(( $(link_stat "$to" rx_packets) - ${rx0[$to]} ))
		ktap_diag "$from sent $tx packets, $to received $rx"
		[ "$tx" -ge $iters ] && [ "$rx" -ge $iters ] || rc=1
	done
	ktap_result "the traffic crossed the veth pair both ways" $rc
fi

smcr_topo_down
rc=0
rdma link show 2>/dev/null | grep -q "rxe[ab]$$" && rc=1
ip link show "$SMCR_NETA" >/dev/null 2>&1 && rc=1
ip rule | grep -q "^0:.*lookup local" || rc=1
ip rule | grep -qE "^(10|11|$SMCR_LOCAL_PREF):" && rc=1
[ $rc -eq 0 ] || ktap_diag "$(rdma link show 2>&1; ip rule 2>&1)"
ktap_result "teardown leaves no device, link or rule behind" $rc

ktap_finish
