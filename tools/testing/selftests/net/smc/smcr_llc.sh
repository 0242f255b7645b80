#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R link layer control against a misbehaving peer, on the rxe test
# bed (smcr_topo.sh) with its second pair, so that the server adds a
# second link.  Both ends are groups of this host; the root-only test
# mode of /sys/kernel/debug/smc/smcr-llc-test makes an end behave as a
# hostile peer (bits in net/smc/smcr.h):
#  0x1 a client refuses every ADD LINK, then sends REQUEST ADD LINK
#  0x2 every v2 ADD LINK is followed by a decoy: a response of the same
#      size whose triples carry other rkeys and addresses
#  0x4 a received ADD LINK is read only when the next receive of its
#      CQ completes, as when the CPU is slower than the device
# /sys/kernel/debug/smc/smcr-rkeys shows, per group, the links the
# server tried to add ("adds N"), our RMBs ("rmb SLOT RKEY ADDR") and
# the peer's RMBs as the peer told us ("rtok SLOT RKEY ADDR").

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

LGRS=/sys/kernel/debug/smc/smcr-linkgroups
RKEYS=/sys/kernel/debug/smc/smcr-rkeys
KNOB=/sys/kernel/debug/smc/smcr-llc-test
XFER=$HERE/smc_xfer
NCASES=2
# net/smc/smcr.h: SMCR_ADD_BUDGET tries in SMCR_ADD_WINDOW (60 s)
ADD_BUDGET=8
FLOOD_TIME=20

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools rdma ip sysctl
mount_debugfs
[ -r "$RKEYS" ] || ktap_skip_all "no $RKEYS"
[ -w "$KNOB" ] || ktap_skip_all "no $KNOB"
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built"
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
smcr_topo_setup

smcd_param=/sys/module/smc/parameters/smcd
smcd_saved=$(cat $smcd_param)
restore()
{
	echo 0 > "$KNOB"
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

# held TAG SERVER_ADDR: a connection to SERVER_ADDR whose server holds
# it (before any data) until $tmp_dir/TAG.hold is removed; then 64 KiB
# each way, verified.  pids in held_pids
held()
{
	local port ready=$tmp_dir/$1.ready

	port=$(free_port)
	"$XFER" -s "$2" "$port" -n 65536 -m 65536 -t 120 -r "$ready" \
		-H "$tmp_dir/$1.hold" > "$tmp_dir/$1.srv" 2>&1 &
	held_pids=($!)
	track $!
	wait_until 10 test -e "$ready" || return 1
	"$XFER" -c "$2" "$port" -n 65536 -m 65536 -t 120 \
		> "$tmp_dir/$1.cli" 2>&1 &
	held_pids+=($!)
	track $!
	wait_until 10 test -e "$tmp_dir/$1.hold"
}

# release TAG: the held connection ends; 0 if both ends succeeded
release()
{
	local p rc=0

	rm -f "$tmp_dir/$1.hold"
	for p in "${held_pids[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc -eq 0 ] || ktap_diag "$(cat "$tmp_dir/$1.cli" "$tmp_dir/$1.srv")"
	return $rc
}

# links_active ROLE: active links of the groups in ROLE
links_active()
{
	grep -c " role $1 .* state active " "$LGRS"
}

# keys ROLE KIND: "RKEY ADDR" of every KIND (rmb, rtok) line of the
# groups in ROLE, sorted
keys()
{
	awk -v role="$1" -v kind="$2" '
		$1 == "lgr" { in_role = ($4 == role) }
		in_role && $1 == kind { print $3, $4 }' "$RKEYS" | sort -u
}

# slots ROLE KIND: the link slots KIND lines of the groups in ROLE have
slots()
{
	awk -v role="$1" -v kind="$2" '
		$1 == "lgr" { in_role = ($4 == role) }
		in_role && $1 == kind { print $2 }' "$RKEYS" | sort -u | wc -l
}

# 1: the ADD LINK of each end carries its RMB's rkey and address on the
# new link; a decoy of the same size completes before it is read.  What
# each end stored must be what the other end registered.
echo 6 > "$KNOB"
rc=0
held rkeys "$SMCR_B" || rc=1
wait_until 30 test "$(links_active server)" -ge 2 || rc=1
wait_until 10 test "$(links_active client)" -ge 2 || rc=1
echo 0 > "$KNOB"
for pair in "server client" "client server"; do
	read -r who peer <<< "$pair"
	stored=$(keys "$who" rtok)
	sent=$(keys "$peer" rmb)
	bad=$(comm -23 <(echo "$stored") <(echo "$sent"))
	if [ -n "$bad" ]; then
		ktap_diag "$who stored rkeys its peer never sent: $bad"
		rc=1
	fi
	if [ "$(slots "$who" rtok)" -lt 2 ]; then
		ktap_diag "$who learned no rkey for its second link"
		rc=1
	fi
done
release rkeys || rc=1
ktap_diag "$(cat "$LGRS" "$RKEYS")"
ktap_result "an ADD LINK read after a second large receive keeps its own rkeys" $rc

# 2: a client (B to A: a new group, its server on A) that refuses every
# ADD LINK and asks for one after each: the server's tries stay within
# its budget, whatever the client sends
old=$(awk '$1 == "lgr" && $4 == "server" { print $2 }' "$RKEYS")
echo 1 > "$KNOB"
rc=0
held flood "$SMCR_A" || rc=1
sleep $FLOOD_TIME
adds=$(awk -v old=" $(echo $old) " '
	$1 == "lgr" && $4 == "server" && index(old, " " $2 " ") == 0 {
		print $6 }' "$RKEYS" | head -1)
echo 0 > "$KNOB"
ktap_diag "the server tried $adds links in $FLOOD_TIME s (budget $ADD_BUDGET)"
if [ -z "$adds" ] || [ "$adds" -lt 1 ] || [ "$adds" -gt $ADD_BUDGET ]; then
	rc=1
fi
release flood || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "a client that refuses every link and asks again gets $ADD_BUDGET tries at most" $rc

ktap_finish
