#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-Rv1 on the rxe test bed (smcr_topo.sh) with its second pair.
#
# SMC-Rv1 needs a RoCE v1 GID, which rxe does not have.  The test mode
# of /sys/kernel/debug/smc/smcr-v1-test (bit 1: v1 over the RoCE v2
# GID of the connection's own address; bit 2: the client offers no
# SMC-Rv2) runs the whole v1 protocol between two rxe devices: the v1
# Proposal with its IP prefixes, the 68-byte Accept and Confirm, the
# v1 LLC encoding, and the v1 way to add a link (the client's ADD LINK
# invitation, the rkeys in ADD LINK CONTINUATIONs).  v1 needs both ends
# on one LAN: A and B share a /24 here, and IPv6 pairs share a /64.
#
# The groups' versions are read from /sys/kernel/debug/smc/smcr-
# linkgroups ("v N") and from netlink (a v1 group has no v2 nest: the
# smc tool shows max_conns 0).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"
. "$(dirname "$0")/smcr_xfer.sh"

LGRS=/sys/kernel/debug/smc/smcr-linkgroups
V1TEST=/sys/kernel/debug/smc/smcr-v1-test
XFER=$HERE/smc_xfer
NCASES=16

SMCR_A6=2001:db8:5::1
SMCR_B6=2001:db8:5::2
# a pair whose prefixes differ: a /24 at A, a /25 at B (TEST-NET-3)
SMCR_C=203.0.113.1
SMCR_D=203.0.113.2

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools rdma ip sysctl python3
mount_debugfs
[ -r "$LGRS" ] || ktap_skip_all "no $LGRS"
[ -w "$V1TEST" ] || ktap_skip_all "no $V1TEST"
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built"
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
smcr_topo_setup

smcd_param=/sys/module/smc/parameters/smcd
smcd_saved=$(cat $smcd_param)
restore()
{
	echo 0 > "$V1TEST"
	ip rule del pref 24 2>/dev/null
	ip rule del pref 25 2>/dev/null
	"$SMC_TOOL" pnet flush >/dev/null 2>&1
	echo "$smcd_saved" > $smcd_param
	smcr_topo_cleanup
}
trap restore EXIT

ktap_header $NCASES

export SMCR_TOPO_PLEN=24
if ! smcr_topo_up || ! smcr_topo_up2 || ! smcr_topo6_up ||
   ! smcr_addr6 "$SMCR_A6" 64 "$SMCR_B6" 64 20 ||
   ! ip addr add "$SMCR_C/24" dev "$SMCR_NETA" noprefixroute ||
   ! ip addr add "$SMCR_D/25" dev "$SMCR_NETB" noprefixroute ||
   ! ip route add "$SMCR_D/32" dev "$SMCR_NETA" src "$SMCR_C" \
	table $SMCR_TABLE_A ||
   ! ip route add "$SMCR_C/32" dev "$SMCR_NETB" src "$SMCR_D" \
	table $SMCR_TABLE_B ||
   ! ip rule add pref 24 iif lo to "$SMCR_D" lookup $SMCR_TABLE_A ||
   ! ip rule add pref 25 iif lo to "$SMCR_C" lookup $SMCR_TABLE_B; then
	ktap_diag "$(rdma link show 2>&1; ip -6 rule 2>&1)"
	ktap_skip_all "the rxe test bed with two pairs does not come up"
fi
echo N > $smcd_param
smcr_topo_sides ||
	ktap_skip_all "PNET IDs cannot be set"
# the second pair waits: the groups start with one link
ip link set "$SMCR_NETA2" down
ip link set "$SMCR_NETB2" down

export SMC_EXPECT_PATH=smcr
export SMC_EXPECT_REASON=0

# gid6 ADDR: ADDR as a GID in the form the link group lines print it
gid6()
{
	python3 -c 'import ipaddress, sys
print(ipaddress.IPv6Address(sys.argv[1]).compressed)' "$1"
}

# group ROLE PEER: the id of the group in ROLE with a link to PEER (a
# GID as the link group lines print it)
group()
{
	sed -n "s/^id \([0-9]*\) role $1 .* peer $2 .*/\1/p" "$LGRS" | head -1
}

# version ID: the SMC-R version of group ID
version()
{
	sed -n "s/^id $1 role [a-z]* v \([0-9]\) .*/\1/p" "$LGRS" | head -1
}

# links ID: "dev state" of each link of group ID, sorted
links()
{
	sed -n "s/^id $1 .* state \([a-z]*\) dev \([^ ]*\) .*/\2 \1/p" \
		"$LGRS" | sort
}

# moved ID: the connections group ID moved to another link
moved()
{
	sed -n "s/^id $1 .* moved \([0-9]*\)$/\1/p" "$LGRS" | head -1
}

# nl_max_conns ID: what smc lgr (netlink) shows as max_conns of group ID
nl_max_conns()
{
	"$SMC_TOOL" lgr 2>/dev/null | awk -v id="$(printf %x "$1")" \
		'$1 == "smcr" && $2 == "lgr" && $3 == id {
			for (i = 4; i < NF; i++)
				if ($i == "max_conns") print $(i + 1) }'
}

# stat KEY: the SMC-R handshake counter KEY of smc stats
stat()
{
	"$SMC_TOOL" -j stats 2>/dev/null |
		python3 -c 'import json, sys
print(json.load(sys.stdin)["smcr"][sys.argv[1]])' "$1"
}

# 1: without the test mode's GID rule, rxe has no GID v1 can use and
# the client offers nothing (SMC-Rv2 is off too)
echo 2 > "$V1TEST"
SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=0x03030000 \
	xfer "no RoCE v1 GID: nothing to offer, reason NOSMCDEV" \
	"$SMCR_B" 10000 10000 0x05000000

# 2: the test mode: A to B over IPv4 takes SMC-Rv1
echo 3 > "$V1TEST"
c0=$(stat clnt_v1_succ)
s0=$(stat srv_v1_succ)
xfer "A to B over IPv4 takes SMC-Rv1, 2 MiB each way verified" \
	"$SMCR_B" 2097152 2097152

# 3: both ends made v1 groups, and counted v1 handshakes
cg=$(group client "::ffff:$SMCR_B")
sg=$(group server "::ffff:$SMCR_A")
rc=0
[ -n "$cg" ] && [ -n "$sg" ] || rc=1
[ "$(version "$cg")" = 1 ] && [ "$(version "$sg")" = 1 ] || rc=1
[ "$(stat clnt_v1_succ)" -gt "${c0:-0}" ] &&
	[ "$(stat srv_v1_succ)" -gt "${s0:-0}" ] || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "both groups are SMC-Rv1, both ends counted v1 handshakes" $rc

# 4: netlink shows v1 groups without their v2 part
rc=0
[ "$(nl_max_conns "$cg")" = 0 ] && [ "$(nl_max_conns "$sg")" = 0 ] || rc=1
ktap_diag "$("$SMC_TOOL" lgr 2>&1)"
ktap_result "netlink: the v1 groups have no v2 attributes" $rc

# 5-8: data of every size, both ways, in the same groups
for sz in "1 7340033" "16777259 3" "5000011 9000001"; do
	read -r n m <<< "$sz"
	xfer "v1: $n bytes up, $m down, verified" "$SMCR_B" "$n" "$m"
done
rc=0
[ "$(group client "::ffff:$SMCR_B")" = "$cg" ] || rc=1
[ "$(grep -c "role client v 1 .* peer ::ffff:$SMCR_B " "$LGRS")" = 1 ] ||
	rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "the connections reused the first group" $rc

# 9: an IPv6 socket to B's IPv4-mapped address: v1 with IPv4 prefixes,
# in the IPv4 group
xfer "IPv4-mapped IPv6 takes SMC-Rv1" "::ffff:$SMCR_B" 3000000 1000000

# 10: IPv6: the prefixes of A's interface match B's
xfer "IPv6 takes SMC-Rv1, 4 MB up and 6 MB down verified" \
	"$SMCR_B6" 4000000 6000000

# 11: a v1 group over IPv6 GIDs; still one IPv4 group
rc=0
g6=$(group client "$(gid6 "$SMCR_B6")")
[ -n "$g6" ] && [ "$(version "$g6")" = 1 ] || rc=1
[ "$(grep -c "role client v 1 .* peer ::ffff:$SMCR_B " "$LGRS")" = 1 ] ||
	rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "the IPv6 connection has a v1 group of IPv6 GIDs" $rc

# 12: D is in a /25 at B, C in a /24 at A: not one LAN, the server
# declines with DIFFPREFIX
SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=0x05000000 \
	xfer "different IPv4 prefixes: the server declines, DIFFPREFIX" \
	"$SMCR_D" 10000 10000 0x03070000

# 13: the second pair comes up under 4 transfers: the group of A and B
# gets a second link, the rkeys of the buffers going in ADD LINK
# CONTINUATIONs (two a message, many messages).  The two ends' ports
# turn active a moment apart: when the client's comes first, its
# invitation makes the server try its old device with the client's new
# one, which this bed does not carry; both give that link up and the
# next try takes the new devices.  Four more connections are made on
# the first pair and held there for 14, whatever the speed of the
# kernel: transfers that end before the link is added cannot move.
rc=0
hold_many held 4 $((60000000 / SMC_TEST_SLOWDOWN)) || rc=1
held=("${many[@]}")
start_many add 4 $((60000000 / SMC_TEST_SLOWDOWN)) || rc=1
ip link set "$SMCR_NETA2" up && ip link set "$SMCR_NETB2" up || rc=1
ip route replace "$SMCR_B2/32" dev "$SMCR_NETA2" table $SMCR_TABLE_A2 &&
	ip route replace "$SMCR_A2/32" dev "$SMCR_NETB2" table $SMCR_TABLE_B2 ||
	rc=1
two()
{
	[ "$(links "$cg")" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEA" "$SMCR_RXEA2" | sort)" ] &&
	[ "$(links "$sg")" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEB" "$SMCR_RXEB2" | sort)" ]
}
wait_until 30 two || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "v1: a second link is added while connections run" $rc
added=("${many[@]}")

# 14: the first pair goes down: the connections move to the new link,
# which writes to the peer's buffers with the rkeys it learned in the
# continuations or in CONFIRM RKEY; every transfer must complete with
# its data verified.  The held ones start once the pair is down.
base_c=$(moved "$cg")
base_s=$(moved "$sg")
ip link set "$SMCR_NETA" down
go_many held
rc=0
many=("${added[@]}")
end_many add || rc=1
many=("${held[@]}")
end_many held || rc=1
[ "$(moved "$cg")" -gt "${base_c:-0}" ] &&
	[ "$(moved "$sg")" -gt "${base_s:-0}" ] || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "v1: first pair down, the connections move, data verified" $rc

# 15-16: a new connection over the link that is left, in the same group
xfer "v1: a new connection from A2 to B2" "$SMCR_B2" 500000 500000
rc=0
[ "$(group client "::ffff:$SMCR_B2")" = "$cg" ] || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "it reused the v1 group" $rc

ktap_finish
