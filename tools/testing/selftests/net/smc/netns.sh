#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_SMC across and inside network namespaces, over SMC-D (the smcd module
# parameter is turned on for the test and restored at exit):
#  - server in netns A, client in netns B, joined by a veth pair, over
#    IPv4 and IPv6: both ends are in one kernel, so the connection must
#    take SMC-D over loopback-ism;
#  - server and client in one more netns over its own loopback;
#  - clients of two namespaces taking turns with one server: on
#    loopback-ism all of them have one GID, and each gets SMC-D;
#  - each end checks its own path through sock_diag of its netns and the
#    script checks it again from that netns while the connection is up;
#    the socket must not be visible from the other namespaces;
#  - full-duplex transfers verified by SHA-256 (smc_xfer);
#  - a namespace deleted while a connection in it is up, whose two ends
#    are then killed: the namespace and the connection go away;
#  - afterwards no AF_SMC socket is left in any namespace, the namespaces
#    go away, and the loopback-ism counters in debugfs (when the kernel
#    has them) are back to where they were.

. "$(dirname "$0")/lib.sh"

XFER=$HERE/smc_xfer
SMCD_PARAM=/sys/module/smc/parameters/smcd
NS_A=smc-a-$$
NS_B=smc-b-$$
NS_C=smc-c-$$
NS_D=smc-d-$$
NS_E=smc-e-$$
VETH_A=smcva$$
VETH_B=smcvb$$
VETH_AE=smcvae$$
VETH_EA=smcvea$$
# documentation prefixes (RFC 5737, RFC 3849): never routed anywhere
ADDR4_A=192.0.2.1
ADDR4_B=192.0.2.2
ADDR6_A=2001:db8::1
ADDR6_B=2001:db8::2
ADDR4_AE=198.51.100.1
ADDR4_EA=198.51.100.2
smcd_saved=""

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs AF_SMC (SMC_TEST_INET=1)"
[ "$(id -u)" = 0 ] || ktap_skip_all "must run as root"
require_tools ip
require_smc
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built (run make)"
[ -w "$SMCD_PARAM" ] || ktap_skip_all "no writable smcd module parameter"

netns_cleanup()
{
	local ns

	cleanup
	for ns in $NS_A $NS_B $NS_C $NS_D $NS_E; do
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "$smcd_saved" ] && echo "$smcd_saved" > "$SMCD_PARAM"
}

setup_common
trap netns_cleanup EXIT

smcd_saved=$(cat "$SMCD_PARAM")
echo 1 > "$SMCD_PARAM" || ktap_skip_all "cannot turn on the smcd parameter"
export SMC_EXPECT_PATH=smcd
unset SMC_EXPECT_REASON

setup_netns()
{
	local ns

	for ns in $NS_A $NS_B $NS_C; do
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up || return 1
	done
	veth_join "$NS_A" "$VETH_A" "$ADDR4_A/24" \
		  "$NS_B" "$VETH_B" "$ADDR4_B/24" || return 1
	ip -n "$NS_A" addr add "$ADDR6_A/64" dev "$VETH_A" nodad || return 1
	ip -n "$NS_B" addr add "$ADDR6_B/64" dev "$VETH_B" nodad
}

# visible NS PID: number of AF_SMC sockets of PID seen from NS
visible()
{
	in_ns "$1" "$SMC_PATH" -p "$2" -c 2>/dev/null || echo "?"
}

# invisible WHAT PID OWN_NS NS...: no AF_SMC socket of PID shows in any
# NS but its own ("" is the initial namespace)
invisible()
{
	local what=$1 pid=$2 own=$3 ns n rc=0

	shift 3
	for ns in "$@"; do
		[ "$ns" = "$own" ] && continue
		n=$(visible "$ns" "$pid")
		[ "$n" = 0 ] && continue
		ktap_diag "$what: ${ns:-init netns} sees $n of its sockets"
		rc=1
	done
	return $rc
}

# xfer NAME SRV_NS CLI_NS ADDR C2S S2C [OTHER_NS...]: one connection
# from CLI_NS to ADDR in SRV_NS; its sockets must not show in OTHER_NS
# (and never in the initial namespace)
xfer()
{
	local name=$1 sns=$2 cns=$3 addr=$4 c2s=$5 s2c=$6 rc

	shift 6
	xfer_up "$name" "$sns" "$cns" "$addr" "$addr" -n "$c2s" -m "$s2c"
	rc=$?
	[ $rc = 2 ] && return 1
	if [ "$XFER_UP" = 1 ]; then
		ktap_diag "$name: server $(head -n 1 "$XFER_DIR/path-s")"
		# and invisible from everywhere else
		invisible "$name: server" $XFER_SPID "$sns" "" "$cns" "$@" || rc=1
		invisible "$name: client" $XFER_CPID "$cns" "" "$sns" "$@" || rc=1
	fi
	xfer_done || rc=1
	ktap_diag "$(sed 's/^# //' "$XFER_DIR/srv.out" "$XFER_DIR/cli.out")"
	return $rc
}

# A new netns NS_E, joined to NS_A by a second veth pair
setup_netns_e()
{
	ip netns add "$NS_E" || return 1
	ip -n "$NS_E" link set lo up || return 1
	veth_join "$NS_A" "$VETH_AE" "$ADDR4_AE/24" \
		  "$NS_E" "$VETH_EA" "$ADDR4_EA/24"
}

# Clients in NS_B and in a new NS_E take turns with servers in NS_A.
# The server's link group, made for NS_B's client, is offered to every
# client, since on loopback-ism all have one GID; NS_E's client, whose
# netns has no link group at all, must still take SMC-D, every time.
test_clients_of_two_netns()
{
	local i rc=0

	setup_netns_e || { ktap_diag "cannot set up $NS_E"; return 1; }
	for i in 1 2 3; do
		xfer turn_b$i $NS_A $NS_B $ADDR4_A 65536 65536 || rc=1
		xfer turn_e$i $NS_A $NS_E $ADDR4_AE 65536 65536 || rc=1
	done
	return $rc
}

# A namespace deleted under a live connection, whose ends are then killed
test_del_under_connection()
{
	local d=$tmp_dir/del spid cpid rc=0

	mkdir -p "$d"
	ip netns add "$NS_D" && ip -n "$NS_D" link set lo up || return 1
	ip netns exec "$NS_D" "$XFER" -s 127.0.0.1 4242 -r "$d/ready" \
		-H "$d/hold-s" > "$d/srv.out" 2>&1 &
	spid=$!
	track $spid
	wait_until 30 test -e "$d/ready" || { ktap_diag "no server"; return 1; }
	ip netns exec "$NS_D" "$XFER" -c 127.0.0.1 4242 -H "$d/hold-c" \
		> "$d/cli.out" 2>&1 &
	cpid=$!
	track $cpid
	if ! wait_until 30 test -e "$d/hold-s" -a -e "$d/hold-c"; then
		ktap_diag "no connection: $(cat "$d/srv.out" "$d/cli.out")"
		rc=1
	fi
	# the processes keep the namespace alive until they die
	ip netns del "$NS_D" || rc=1
	kill -9 $spid $cpid
	wait $spid $cpid 2>/dev/null
	ip netns list | grep -q "^$NS_D\b" &&
		{ ktap_diag "$NS_D still listed"; rc=1; }
	if ! wait_until 30 smc_settled "$base"; then
		ktap_diag "init netns: AF_SMC sockets $(smc_count), before $base"
		rc=1
	fi
	return $rc
}

# no AF_SMC socket left in NS
ns_empty()
{
	[ "$(in_ns "$1" "$SMC_PATH" -c 2>/dev/null)" = 0 ]
}

test_no_leftovers()
{
	local rc=0 ns

	for ns in $NS_A $NS_B $NS_C $NS_E; do
		if ! wait_until 30 ns_empty "$ns"; then
			ktap_diag "$ns: AF_SMC sockets left:" \
				"$(in_ns "$ns" "$SMC_PATH" 2>&1 | head -n 5)"
			rc=1
		fi
		ip netns del "$ns" || rc=1
	done
	if ! wait_until 30 smc_settled "$base"; then
		ktap_diag "init netns: AF_SMC sockets $(smc_count), before $base"
		rc=1
	fi
	ip link show "$VETH_A" >/dev/null 2>&1 &&
		{ ktap_diag "$VETH_A still exists"; rc=1; }
	return $rc
}

test_dmbs_released()
{
	if wait_until 30 lo_ism_settled; then
		ktap_diag "loopback-ism DMBs registered, attached: $lo_base"
		return 0
	fi
	ktap_diag "loopback-ism DMBs registered, attached: $(lo_ism), before $lo_base"
	return 1
}

base=$(smc_count)
mount_debugfs
lo_base=$(lo_ism)
setup_netns || ktap_skip_all "cannot set up the namespaces and the veth pair"
ktap_header 8
xfer veth_v4 $NS_A $NS_B $ADDR4_A 4194304 1048573 $NS_C
ktap_result veth_v4_smcd $?
xfer veth_v6 $NS_A $NS_B $ADDR6_A 1 3145728 $NS_C
ktap_result veth_v6_smcd $?
xfer veth_v4_reverse $NS_B $NS_A $ADDR4_B 65536 65535 $NS_C
ktap_result veth_v4_reverse_smcd $?
xfer lo_one_netns $NS_C $NS_C 127.0.0.1 2097152 2097152 $NS_A $NS_B
ktap_result single_netns_loopback_smcd $?
test_clients_of_two_netns
ktap_result clients_of_two_netns_take_turns_smcd $?
test_del_under_connection
ktap_result netns_deleted_under_connection $?
test_no_leftovers
ktap_result netns_no_leftovers $?
if [ -n "$lo_base" ]; then
	test_dmbs_released
	ktap_result netns_dmbs_released $?
else
	ktap_skip netns_dmbs_released "no loopback-ism counters in debugfs"
fi
ktap_finish
