#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R link groups with two links, and failover between them, on the
# rxe test bed (smcr_topo.sh) with its second pair: end A has rxe
# devices on 198.51.100.1 and .3, end B on .2 and .4.  PNET IDs keep
# each end's two devices on one network, as the second link needs.
#
# The first connection A to B makes a link group on each end over .1-.2;
# the server (B) then adds a second link over .3-.4.  Transfers run
# while one pair goes down or one device is deleted: every one must
# complete with its data verified, over the link that is left, and the
# link groups must show the connections moved ("moved N" in
# /sys/kernel/debug/smc/smcr-linkgroups, one line a link).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"
. "$(dirname "$0")/smcr_xfer.sh"

DEVS=/sys/kernel/debug/smc/rdma-devices
LGRS=/sys/kernel/debug/smc/smcr-linkgroups
XFER=$HERE/smc_xfer
NCASES=11

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools rdma ip sysctl
mount_debugfs
[ -r "$LGRS" ] || ktap_skip_all "no $LGRS"
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built"
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
smcr_topo_setup

smcd_param=/sys/module/smc/parameters/smcd
smcd_saved=$(cat $smcd_param)
restore()
{
	"$SMC_TOOL" pnet flush >/dev/null 2>&1
	echo "$smcd_saved" > $smcd_param
	smcr_topo_cleanup
}
trap restore EXIT

ktap_header $NCASES

if ! smcr_topo_up || ! smcr_topo_up2; then
	ktap_diag "$(rdma link show 2>&1)"
	ktap_skip_all "the rxe test bed with two pairs does not come up"
fi
echo N > $smcd_param

smcr_topo_sides ||
	ktap_skip_all "PNET IDs cannot be set"

export SMC_EXPECT_PATH=smcr
export SMC_EXPECT_REASON=0

# links ROLE: "dev state" of each link of the groups in ROLE, sorted
links()
{
	sed -n "s/.* role $1 .* state \([a-z]*\) dev \([^ ]*\) .*/\2 \1/p" \
		"$LGRS" | sort
}

# two_links: both groups have an active link on each of their devices
two_links()
{
	[ "$(links client)" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEA" "$SMCR_RXEA2" | sort)" ] &&
	[ "$(links server)" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEB" "$SMCR_RXEB2" | sort)" ]
}

# one_link RXEA RXEB: both groups have their one link left on these
one_link()
{
	[ "$(links client)" = "$1 active" ] &&
	[ "$(links server)" = "$2 active" ]
}

# moved ROLE: connections the group in ROLE moved to another link
moved()
{
	sed -n "s/.* role $1 .* moved \([0-9]*\)$/\1/p" "$LGRS" | head -1
}

# conns_on DEV: connections (either end's) whose link is on DEV
conns_on()
{
	"$SMC_PATH" -v 2>/dev/null | grep -c "^  link .* dev=$1 "
}

# start_on TAG DEV OTHER: 4 transfers of 40 MB each way (less on a
# slower kernel: SMC_TEST_SLOWDOWN), connected and held (hold_many),
# some of them on DEV, whose link goes next; then let go (go_many).
# Says how many each device carries.
start_on()
{
	local on rc=0

	hold_many "$1" 4 $((40000000 / SMC_TEST_SLOWDOWN)) || rc=1
	on=$(conns_on "$2")
	ktap_diag "connections on $2: $on, on $3: $(conns_on "$3")"
	[ "$on" -gt 0 ] || rc=1
	go_many "$1"
	return $rc
}

# pair_up 1|2: a pair up again, with the routes its down took away
pair_up()
{
	if [ "$1" = 1 ]; then
		ip link set "$SMCR_NETA" up && ip link set "$SMCR_NETB" up &&
		ip route replace "$SMCR_B/32" dev "$SMCR_NETA" \
			table $SMCR_TABLE_A &&
		ip route replace "$SMCR_A/32" dev "$SMCR_NETB" \
			table $SMCR_TABLE_B
	else
		ip link set "$SMCR_NETA2" up && ip link set "$SMCR_NETB2" up &&
		ip route replace "$SMCR_B2/32" dev "$SMCR_NETA2" \
			table $SMCR_TABLE_A2 &&
		ip route replace "$SMCR_A2/32" dev "$SMCR_NETB2" \
			table $SMCR_TABLE_B2
	fi
}

# 1: the first connection; the server then adds the second link
xfer "A to B takes SMC-R, 1 MiB each way verified" "$SMCR_B" 1048576 1048576
rc=0
wait_until 20 two_links || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "the server adds a second link over the other devices" $rc

# 2: later connections alternate over the two links: with traffic on
# both, each device carries one QP
rc=0
for dev in "$SMCR_RXEA2" "$SMCR_RXEB2"; do
	grep -q "^$dev .* qps .*1" "$DEVS" || rc=1
done
start_many spread 8 $((4000000 / SMC_TEST_SLOWDOWN))
end_many spread || rc=1
ktap_result "8 transfers over a group of two links, verified" $rc

# 3: the first pair goes down during 8 transfers: the connections on
# its link move to the other one and complete
base_c=$(moved client)
base_s=$(moved server)
rc=0
start_on down1 "$SMCR_RXEA" "$SMCR_RXEA2" || rc=1
ip link set "$SMCR_NETA" down
end_many down1 || rc=1
wait_until 20 one_link "$SMCR_RXEA2" "$SMCR_RXEB2" || rc=1
[ "$(moved client)" -gt "$base_c" ] && [ "$(moved server)" -gt "$base_s" ] ||
	rc=1
ktap_diag "$(cat "$LGRS")"
# the kernel says why the link went (rxe flushes the QPs of a port
# that goes down: "WR flushed" may come before "port down")
smcr_down_logged "$SMCR_RXEA" "[0-9]+" "[0-9a-f]+" > /dev/null || rc=1
ktap_result "first pair down under traffic: connections move, data verified" $rc

# 4: new connections (from A2 to B2: A and B are cut off) go over the
# link that is left, in the same group
xfer "a new connection over the link that is left" "$SMCR_B2" 500000 500000
rc=0
one_link "$SMCR_RXEA2" "$SMCR_RXEB2" || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "it reused the group" $rc

# 5: the pair comes back: the server adds the link again
rc=0
pair_up 1 || rc=1
wait_until 30 two_links || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "first pair up again: the second link comes back" $rc

# 6: now the second pair goes down: the connections move back
base_c=$(moved client)
rc=0
start_on down2 "$SMCR_RXEB2" "$SMCR_RXEB" || rc=1
ip link set "$SMCR_NETB2" down
end_many down2 || rc=1
wait_until 20 one_link "$SMCR_RXEA" "$SMCR_RXEB" || rc=1
[ "$(moved client)" -gt "$base_c" ] || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "second pair down under traffic: connections move back" $rc

# 7: up again, then B's second device is deleted under traffic: the
# group keeps its connections on the first link
rc=0
pair_up 2 || rc=1
wait_until 30 two_links || rc=1
start_many gone 4 $((40000000 / SMC_TEST_SLOWDOWN))
rdma link delete "$SMCR_RXEB2" || rc=1
smcr_topo2_state=rxea
end_many gone || rc=1
wait_until 20 one_link "$SMCR_RXEA" "$SMCR_RXEB" || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "B's second rxe deleted under traffic: connections stay" $rc

# 8: nothing is left behind
rc=0
wait_until 20 sh -c "[ \"\$($SMC_PATH -c 2>/dev/null)\" = 0 ]" || rc=1
wait_until 20 sh -c "! grep -qv ' conns 0 ' $LGRS" || rc=1
ktap_result "no socket and no connection left" $rc

# 9: and SMC-R still works
xfer "SMC-R after all of it" "$SMCR_B" 100000 100000

ktap_finish
