#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R device discovery on the rxe test bed (smcr_topo.sh): our module
# lists every RDMA device with its active ports, the netdev of each
# RoCE port and one completion vector per online CPU, follows port state changes, sees devices
# removed and added at run time, and finds them all again when it is
# loaded after them (and lets go of them when it is unloaded).  Reads
# /sys/kernel/debug/smc/rdma-devices.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

DEVS=/sys/kernel/debug/smc/rdma-devices

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools rdma ip sysctl
mount_debugfs
[ -r "$DEVS" ] || ktap_skip_all "no $DEVS"
smcr_topo_setup

ktap_header 5

# dev_line RXE: our line for RXE, empty when it is not listed
dev_line()
{
	grep "^$1 " "$DEVS"
}

# dev_is RXE PATTERN: RXE is listed and its line matches PATTERN
dev_is()
{
	dev_line "$1" | grep -qE "$2"
}

# expect NAME TIMEOUT RXE PATTERN: one KTAP line
expect()
{
	local rc=0

	wait_until "$2" dev_is "$3" "$4" || rc=1
	[ $rc -eq 0 ] || ktap_diag "$3: '$(dev_line "$3")', wanted /$4/"
	ktap_result "$1" $rc
}

if ! smcr_topo_up; then
	ktap_diag "$(rdma link show 2>&1)"
	ktap_skip_all "the rxe test bed does not come up"
fi

# rxe offers a completion vector per possible CPU; we use the online ones
cpus=$(nproc)
qps=$(printf ' 0%.0s' $(seq "$cpus"))
rc=0
for pair in "$SMCR_RXEA $SMCR_NETA" "$SMCR_RXEB $SMCR_NETB"; do
	read -r dev net <<< "$pair"
	wait_until 10 dev_is "$dev" \
		"active 1 vectors $cpus qps$qps netdev 1:$net\$" || {
		ktap_diag "$dev: '$(dev_line "$dev")'"
		rc=1
	}
done
ktap_diag "$(cat "$DEVS")"
ktap_result "each rxe device: port 1 active on its veth, $cpus vectors, no QP bound" $rc

# rxe reports the port down with its netdev, and up again
ip link set "$SMCR_NETB" down
expect "port state follows the netdev down" 10 "$SMCR_RXEB" "active - "
ip link set "$SMCR_NETB" up
rc=0
wait_until 10 dev_is "$SMCR_RXEB" "active 1 " || rc=1
dev_is "$SMCR_RXEA" "active 1 " || rc=1
[ $rc -eq 0 ] || ktap_diag "$(cat "$DEVS")"
ktap_result "and up again, the other device untouched" $rc

# removed at run time, then added back
rc=0
rdma link delete "$SMCR_RXEB" || rc=1
wait_until 10 sh -c "! grep -q '^$SMCR_RXEB ' $DEVS" || rc=1
dev_is "$SMCR_RXEA" "active 1 " || rc=1
rdma link add "$SMCR_RXEB" type rxe netdev "$SMCR_NETB" || rc=1
wait_until 10 dev_is "$SMCR_RXEB" "active 1 .* netdev 1:$SMCR_NETB" || rc=1
[ $rc -eq 0 ] || ktap_diag "$(rdma link show 2>&1; cat "$DEVS")"
ktap_result "a device removed and added at run time" $rc

# loaded after the devices: all found; unloaded: all let go
if [ -z "$SMC_MODULE_DIR" ] || [ ! -f "$SMC_MODULE_DIR/smc.ko" ]; then
	ktap_skip "module reloaded with devices present" "SMC_MODULE_DIR not set"
else
	rc=0
	reload_smc "" || rc=1
	mount_debugfs
	for dev in "$SMCR_RXEA" "$SMCR_RXEB"; do
		wait_until 10 dev_is "$dev" "active 1 vectors $cpus " || rc=1
	done
	[ $rc -eq 0 ] || ktap_diag "$(cat "$DEVS" 2>&1)"
	ktap_result "module reloaded with devices present" $rc
fi

ktap_finish
