#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Asymmetric SMC-R links, on the bridge bed of smcr_topo.sh: end A has
# rxe devices on 198.51.100.1 and .3, end B one on .2, on a bridge that
# both of A's pairs reach.  PNET IDs keep each end's devices on one
# network.
#
# A to B: B, the server, has one device, so it makes the second link
# there, and A its own over its other device: B's group is asym-local,
# A's asym-peer ("smc lgr").  New connections keep to the first link;
# when A's first pair goes down under traffic, they move to the second
# and complete, verified.  When the pair comes back, A asks for a link
# (REQUEST ADD LINK) and gets one.  Then the QP of the link in use goes
# to the error state under traffic, at A and then at B (the module's
# smcr-link-error in debugfs): the connections move, complete, verified,
# and the server makes a second link again.  When B gets a second
# device, the server gives up the asymmetric link for a symmetric one,
# and makes it asymmetric again when the device goes.  B to A: now A,
# the server, has two devices, and B, the client, makes the second link
# on its one.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"
. "$(dirname "$0")/smcr_xfer.sh"

LGRS=/sys/kernel/debug/smc/smcr-linkgroups
LINK_ERROR=/sys/kernel/debug/smc/smcr-link-error
XFER=$HERE/smc_xfer
NCASES=11

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools rdma ip sysctl
mount_debugfs
[ -r "$LGRS" ] && [ -w "$LINK_ERROR" ] || ktap_skip_all "no $LGRS"
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

if ! smcr_br_up; then
	ktap_diag "$(rdma link show 2>&1; ip -br addr 2>&1)"
	ktap_skip_all "the rxe bed with a bridge does not come up"
fi
echo N > $smcd_param


"$SMC_TOOL" pnet add SIDEA ib "$SMCR_RXEA" port 1 &&
	"$SMC_TOOL" pnet add SIDEA ib "$SMCR_RXEA2" port 1 &&
	"$SMC_TOOL" pnet add SIDEB ib "$SMCR_RXEB" port 1 ||
	ktap_skip_all "PNET IDs cannot be set"

export SMC_EXPECT_PATH=smcr
export SMC_EXPECT_REASON=0

# links ROLE END: "dev state" of each link of the group in ROLE at END
# (a or b: its devices are rxeaN and rxea2N, or rxebN), sorted
links()
{
	sed -n "s/.* role $1 .* state \([a-z]*\) dev \(rxe$2[^ ]*\) .*/\2 \1/p" \
		"$LGRS" | sort
}

# lgr_type ROLE END: what smc lgr calls the group in ROLE at END
lgr_type()
{
	local side

	side=$(echo "$2" | tr a-z A-Z)
	"$SMC_TOOL" lgr 2>/dev/null | sed -n \
		"s/^smcr lgr [0-9a-f]* $1 \([a-z-]*\) .* pnetid \"SIDE$side\" .*/\1/p"
}

# asym A_ROLE B_ROLE: A's group (in A_ROLE) has a link on each of its
# devices, B's (in B_ROLE) both on its one device; the types agree
asym()
{
	[ "$(links "$1" a)" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEA" "$SMCR_RXEA2" | sort)" ] &&
	[ "$(links "$2" b)" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEB" "$SMCR_RXEB")" ] &&
	[ "$(lgr_type "$1" a)" = asym-peer ] &&
	[ "$(lgr_type "$2" b)" = asym-local ]
}

# sym: A's group (client) and B's (server) have a link on each of
# their devices, of type symmetric
sym()
{
	[ "$(links client a)" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEA" "$SMCR_RXEA2" | sort)" ] &&
	[ "$(links server b)" = "$(printf '%s active\n%s active' \
		"$SMCR_RXEB" "$SMCR_RXEB2" | sort)" ] &&
	[ "$(lgr_type client a)" = symmetric ] &&
	[ "$(lgr_type server b)" = symmetric ]
}

# one_link ROLE END RXE: the group in ROLE at END has one link, on RXE
one_link()
{
	[ "$(links "$1" "$2")" = "$3 active" ] &&
		[ "$(lgr_type "$1" "$2")" = single ]
}

# link_conns ROLE RXE: connections on the link of the group in ROLE
# that runs on RXE (several: one line each)
link_conns()
{
	"$SMC_TOOL" lgr 2>/dev/null | awk -v role="$1" -v dev="$2" '
		/^smcr lgr / { in_grp = ($4 == role) }
		in_grp && $1 == "link" && $5 == dev { print $9 }'
}

# moved ROLE: connections the group in ROLE moved to another link
moved()
{
	sed -n "s/.* role $1 .* moved \([0-9]*\)$/\1/p" "$LGRS" | head -1
}

# 1, 2: A to B; B has one device: the second link is asymmetric
xfer "A to B takes SMC-R, 1 MiB each way verified" "$SMCR_B" 1048576 1048576
rc=0
wait_until 20 asym client server || rc=1
ktap_diag "$(cat "$LGRS"; "$SMC_TOOL" lgr)"
ktap_result "B with one device: asym-local there, asym-peer at A" $rc

# 3: new connections keep to the first link: the second shares B's
# device and adds no bandwidth
start_many first 4 $((24000000 / SMC_TEST_SLOWDOWN))
rc=0
n=$(link_conns client "$SMCR_RXEA")
[ "$(link_conns client "$SMCR_RXEA2")" = 0 ] || rc=1
[ "${n:-0}" -ge 1 ] || rc=1
ktap_diag "$(cat "$LGRS"; "$SMC_TOOL" lgr)"
end_many first || rc=1
ktap_result "4 transfers while asymmetric: on the first link, verified" $rc

# 4: A's first pair goes down under traffic: the connections move to
# the asymmetric link and complete
base_c=$(moved client)
base_s=$(moved server)
start_many down 4 $((40000000 / SMC_TEST_SLOWDOWN))
rc=0
ip link set "$SMCR_NETA" down
end_many down || rc=1
wait_until 20 one_link client a "$SMCR_RXEA2" || rc=1
wait_until 20 one_link server b "$SMCR_RXEB" || rc=1
[ "$(moved client)" -gt "$base_c" ] && [ "$(moved server)" -gt "$base_s" ] ||
	rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "A's first pair down under traffic: moved to the asymmetric link" $rc

# 5: the pair comes back: A, the client, asks for a link, and B makes
# it asymmetric again
rc=0
ip link set "$SMCR_NETA" up &&
	ip route replace "$SMCR_B/32" dev "$SMCR_NETA" table $SMCR_TABLE_A ||
	rc=1
wait_until 30 asym client server || rc=1
ktap_diag "$(cat "$LGRS"; "$SMC_TOOL" lgr)"
ktap_result "A's pair up again: an asymmetric link again" $rc

# qp_error ROLE: the QP of the link that carries connections in the
# group in ROLE goes to the error state, as after a failed work request;
# qp_id and qp_link: the group (hex, as smc lgr shows it) and the link
qp_error()
{
	qp_id="" qp_link=""
	read -r qp_id qp_link < <("$SMC_TOOL" lgr 2>/dev/null |
		awk -v role="$1" '
		/^smcr lgr / { in_grp = ($4 == role); id = $3 }
		in_grp && $1 == "link" && $9 > 0 { print id, $2; exit }')
	[ -n "$qp_link" ] && echo "$((16#$qp_id)) $qp_link" > "$LINK_ERROR"
}

# 6, 7: a QP fails under traffic, A's and then B's: the connections
# move to the link that is left and complete; a link comes back
for role in client server; do
	base=$(moved "$role")
	start_many "qp$role" 4 $((30000000 / SMC_TEST_SLOWDOWN))
	rc=0
	qp_error "$role" || rc=1
	end_many "qp$role" || rc=1
	[ "$(moved "$role")" -gt "$base" ] || rc=1
	wait_until 30 asym client server || rc=1
	ktap_diag "$(cat "$LGRS")"
	# the kernel says why qp_error's link went
	down=$(smcr_down_logged "[a-z0-9]+" "$qp_link" "$qp_id") || rc=1
	ktap_diag "logged: ${down#*] }"
	ktap_result "a QP of the $role fails under traffic: moved, verified" $rc
done

# server_links: how many links B's group (the server) has now
server_links()
{
	grep -c ' role server .* dev rxeb' "$LGRS"
}

# 8: B gets a second device: the server makes a symmetric link over it
# beside the two (a third link slot), then deletes the asymmetric one
# (DELETE LINK, reason 0x00050000): make before break, the group never
# down to one link; a transfer over the group afterwards
rc=0
fewest=$tmp_dir/fewest
( f=2; while [ ! -e "$tmp_dir/sym.done" ]; do
	n=$(server_links); [ "$n" -lt "$f" ] && f=$n; echo "$f" > "$fewest"
	nap; done ) &
track $!
"$SMC_TOOL" pnet add SIDEB ib "$SMCR_RXEB2" port 1 && smcr_br_b2_up || rc=1
wait_until 30 sym || rc=1
touch "$tmp_dir/sym.done"
if [ "$(cat "$fewest")" != 2 ]; then
	ktap_diag "B's group was down to $(cat "$fewest") link(s)"
	rc=1
fi
ktap_diag "$(cat "$LGRS"; "$SMC_TOOL" lgr)"
start_many sym 2 $((10000000 / SMC_TEST_SLOWDOWN))
end_many sym || rc=1
sym || rc=1
rdma link delete "$SMCR_RXEB2" || rc=1
wait_until 30 asym client server || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "B's second device: symmetric, then asymmetric again when it goes" $rc

# 9, 10: B to A: A, the server, has two devices; B makes the second
# link on its one
xfer "B to A takes SMC-R" "$SMCR_A" 500000 500000
[ "$xfer_rc" = 0 ] || ktap_diag "$(ip neigh show; ip route show table all |
	grep -v -e ^local -e ^broadcast -e ^multicast -e fe80 -e ff00
	bridge fdb show br "$SMCR_BR" | grep -v permanent)"
rc=0
wait_until 20 asym server client || rc=1
ktap_diag "$(cat "$LGRS"; "$SMC_TOOL" lgr)"
ktap_result "B with one device as the client: asym-local there" $rc

# 11: nothing is left behind
rc=0
wait_until 20 sh -c "[ \"\$($SMC_PATH -c 2>/dev/null)\" = 0 ]" || rc=1
wait_until 20 sh -c "! grep -qv ' conns 0 ' $LGRS" || rc=1
ktap_result "no socket and no connection left" $rc

ktap_finish
