#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two soft-RoCE (rdma_rxe) devices in one kernel that reach each other
# over a wire, for the SMC-R tests.  Sourced; needs root.
#
# rxe in 6.1 binds its UDP socket in init_net only, so network
# namespaces cannot separate the two ends.  Instead both live in
# init_net on the two ends of a veth pair, and policy routing makes
# traffic between their addresses cross the pair:
#
#   pref 10   from all iif lo to B   -> table 10: B dev veth A
#   pref 11   from all iif lo to A   -> table 11: A dev veth B
#   pref 100  lookup local            (moved from pref 0)
#
# "iif lo" matches locally sent packets only: a packet for B goes out of
# end A and comes in on end B, where the lookup skips rules 10 and 11
# and finds the local table.  accept_local lets an end take packets
# whose source is a local address; rp_filter would drop them as well.
# rxe hands an incoming packet to the device of the netdev it came in
# on, so A's rxe talks to B's rxe over the pair.
#
# Addresses from TEST-NET-2 (RFC 5737).

SMCR_A=198.51.100.1
SMCR_B=198.51.100.2
SMCR_NETA=smcra$$
SMCR_NETB=smcrb$$
SMCR_RXEA=rxea$$
SMCR_RXEB=rxeb$$
SMCR_TABLE_A=10
SMCR_TABLE_B=11
SMCR_LOCAL_PREF=100
smcr_topo_state=""
smcr_rp_filter_all=""

# smcr_topo_setup: for a test on the bed, after lib.sh: skip without
# rdma_rxe, else the temporary directory and a teardown at exit
smcr_topo_setup()
{
	modinfo rdma_rxe >/dev/null 2>&1 || ktap_skip_all "no rdma_rxe module"
	setup_common
	trap smcr_topo_cleanup EXIT
}

# smcr_bed_require: a test of this module on the bed skips unless it
# runs as root with the module loaded and debugfs mounted (after lib.sh;
# a test checks what it needs beyond, then calls smcr_bed_begin)
smcr_bed_require()
{
	[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
	[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
	require_tools rdma ip sysctl python3
	require_smc
	mount_debugfs
}

# smcr_lgr_val ROLE DEV KEY: the value of KEY ("id", "conns", ...) on
# the first line of /sys/kernel/debug/smc/smcr-linkgroups (KEY VALUE
# pairs) of a link group in ROLE with a link on DEV
smcr_lgr_val()
{
	awk -v r="$1" -v d="$2" -v k="$3" '
		$4 == r && $14 == d {
			for (i = 1; i < NF; i += 2)
				if ($i == k) { print $(i + 1); exit }
		}' /sys/kernel/debug/smc/smcr-linkgroups
}

# smcr_down_logged DEV LINK GROUP: the first kernel message since the
# last result that says why link LINK of group GROUP (hex, as smc lgr
# shows it) on device DEV went: a failure's cause, or the peer's DELETE
# LINK when the peer saw the failure first; each an extended regex
smcr_down_logged()
{
	local why="down: [a-zA-Z]|deleted by the peer, reason 0x[0-9a-f]{8}"

	klog_since | grep -m 1 -E \
		"$1 port [0-9]+: link $2 \(QP [0-9]+\) of group $3 ($why)"
}

SMCR_SMCD_PARAM=/sys/module/smc/parameters/smcd
smcr_smcd_saved=""

# smcr_bed_begin NCASES: the KTAP header, the bed up (or a skip) and
# SMC-D negotiation off.  At exit, smcr_bed_end runs the test's own
# smcr_test_restore (if it defines one), puts SMC-D back and takes the
# bed down.
smcr_bed_begin()
{
	smcr_topo_setup
	smcr_smcd_saved=$(cat "$SMCR_SMCD_PARAM")
	trap smcr_bed_end EXIT
	ktap_header "$1"
	if ! smcr_topo_up; then
		ktap_diag "$(rdma link show 2>&1)"
		ktap_skip_all "the rxe test bed does not come up"
	fi
	echo N > "$SMCR_SMCD_PARAM"
}

smcr_bed_end()
{
	declare -F smcr_test_restore >/dev/null && smcr_test_restore
	cleanup
	[ -z "$smcr_smcd_saved" ] ||
		echo "$smcr_smcd_saved" > "$SMCR_SMCD_PARAM"
	smcr_topo_cleanup
}

smcr_topo_cleanup()
{
	smcr_br_down
	smcr_topo_down2
	smcr_topo_down
	cleanup
}

smcr_sysctl()
{
	sysctl -qw "$1=$2" >/dev/null
}

# smcr_veth_up NETA NETB A B PLEN [OPT...]: a veth pair, A/PLEN on NETA
# and B/PLEN on NETB (with address options OPT), taking packets from
# local sources, both up
smcr_veth_up()
{
	local neta=$1 netb=$2 a=$3 b=$4 plen=$5 dev

	shift 5
	ip link add "$neta" type veth peer name "$netb" || return 1
	ip addr add "$a/$plen" dev "$neta" "$@" || return 1
	ip addr add "$b/$plen" dev "$netb" "$@" || return 1
	for dev in "$neta" "$netb"; do
		smcr_sysctl "net.ipv4.conf.$dev.accept_local" 1
		smcr_sysctl "net.ipv4.conf.$dev.rp_filter" 0
		ip link set "$dev" up || return 1
	done
}

# smcr_cross NETA NETB A B TABLE_A TABLE_B PREF: locally sent packets
# for B leave by NETA, those for A by NETB (rules PREF and PREF + 1)
smcr_cross()
{
	ip route add "$4/32" dev "$1" table "$5" || return 1
	ip route add "$3/32" dev "$2" table "$6" || return 1
	ip rule add pref "$7" iif lo to "$4" lookup "$5" || return 1
	ip rule add pref $(($7 + 1)) iif lo to "$3" lookup "$6"
}

# smcr_rxe_ready RXEA A RXEB B: both ports ACTIVE, with the RoCE v2 GID
# of their address
smcr_rxe_ready()
{
	smcr_wait_active "$1" && smcr_wait_active "$3" &&
		smcr_gid_index "$1" "$2" >/dev/null &&
		smcr_gid_index "$3" "$4" >/dev/null
}

# smcr_topo_up: builds the pair and both rxe devices; 0 when both ports
# are ACTIVE with a RoCE v2 GID for their address.  A and B are /32s,
# or with SMCR_TOPO_PLEN=N share a /N (noprefixroute: the policy routes
# alone decide), as SMC v1 wants of two ends on one LAN.
smcr_topo_up()
{
	local plen=${SMCR_TOPO_PLEN:-32}

	modprobe rdma_rxe 2>/dev/null || return 1
	smcr_topo_state=veth
	smcr_veth_up "$SMCR_NETA" "$SMCR_NETB" "$SMCR_A" "$SMCR_B" "$plen" \
		${SMCR_TOPO_PLEN:+noprefixroute} || return 1
	# rp_filter takes the higher of "all" and the device's value
	smcr_rp_filter_all=$(sysctl -n net.ipv4.conf.all.rp_filter)
	smcr_sysctl net.ipv4.conf.all.rp_filter 0
	smcr_topo_state=rules
	smcr_cross "$SMCR_NETA" "$SMCR_NETB" "$SMCR_A" "$SMCR_B" \
		$SMCR_TABLE_A $SMCR_TABLE_B 10 || return 1
	ip rule add pref $SMCR_LOCAL_PREF lookup local || return 1
	ip rule del pref 0 lookup local || return 1
	smcr_topo_state=local
	rdma link add "$SMCR_RXEA" type rxe netdev "$SMCR_NETA" || return 1
	smcr_topo_state=rxea
	rdma link add "$SMCR_RXEB" type rxe netdev "$SMCR_NETB" || return 1
	smcr_topo_state=rxeb
	smcr_rxe_ready "$SMCR_RXEA" "$SMCR_A" "$SMCR_RXEB" "$SMCR_B"
}

# smcr_local_back: the local table's rule in front again
smcr_local_back()
{
	ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref $SMCR_LOCAL_PREF lookup local 2>/dev/null
}

# smcr_rules_del PREF...: those rules gone, tables A and B empty
smcr_rules_del()
{
	local pref

	for pref in "$@"; do
		ip rule del pref "$pref" 2>/dev/null
	done
	ip route flush table $SMCR_TABLE_A 2>/dev/null
	ip route flush table $SMCR_TABLE_B 2>/dev/null
}

# IPv6 over the first pair, rule by rule as for IPv4: addresses are
# added with smcr_addr6 (nodad: usable at once), and the IPv6 local
# rule moves behind the policy rules as the IPv4 one does.
smcr_topo6=""

smcr_topo6_up()
{
	smcr_topo6=up
	ip -6 rule add pref $SMCR_LOCAL_PREF lookup local &&
		ip -6 rule del pref 0 lookup local
}

# smcr_addr6 A PLEN_A B PLEN_B PREF: A on end A, B on end B, crossing
# the pair (rules PREF and PREF + 1, in the tables of A and B).  The
# routes name their source: IPv6 would take B itself to reach B.
smcr_addr6()
{
	ip -6 addr add "$1/$2" dev "$SMCR_NETA" nodad noprefixroute &&
		ip -6 addr add "$3/$4" dev "$SMCR_NETB" nodad noprefixroute &&
		ip -6 route add "$3/128" dev "$SMCR_NETA" src "$1" \
			table $SMCR_TABLE_A &&
		ip -6 route add "$1/128" dev "$SMCR_NETB" src "$3" \
			table $SMCR_TABLE_B &&
		ip -6 rule add pref "$5" iif lo to "$3" lookup $SMCR_TABLE_A &&
		ip -6 rule add pref $(($5 + 1)) iif lo to "$1" \
			lookup $SMCR_TABLE_B
}

# smcr_topo6_down: the IPv6 rules gone, the local rule in front again
smcr_topo6_down()
{
	local pref

	[ -n "$smcr_topo6" ] || return 0
	for pref in $(ip -6 rule | sed -n 's/^\([0-9]*\):.* iif lo .*/\1/p'); do
		ip -6 rule del pref "$pref" 2>/dev/null
	done
	ip -6 route flush table $SMCR_TABLE_A 2>/dev/null
	ip -6 route flush table $SMCR_TABLE_B 2>/dev/null
	ip -6 rule add pref 0 lookup local 2>/dev/null
	ip -6 rule del pref $SMCR_LOCAL_PREF lookup local 2>/dev/null
	smcr_topo6=""
}

# smcr_topo_down: undoes whatever smcr_topo_up got to
smcr_topo_down()
{
	smcr_topo6_down
	case "$smcr_topo_state" in
	rxeb) rdma link delete "$SMCR_RXEB" 2>/dev/null ;&
	rxea) rdma link delete "$SMCR_RXEA" 2>/dev/null ;&
	local) smcr_local_back ;&
	rules) smcr_rules_del 10 11 ;&
	veth) ip link del "$SMCR_NETA" 2>/dev/null ;;
	esac
	[ -z "$smcr_rp_filter_all" ] ||
		smcr_sysctl net.ipv4.conf.all.rp_filter "$smcr_rp_filter_all"
	smcr_rp_filter_all=""
	smcr_topo_state=""
}

# A second pair for the second link of a group: A2 on A's side, B2 on
# B's, crossing the pair as A and B do.  Their /24 holds A and B (with
# no route of its own: noprefixroute), so each is in its side's first
# address's subnet, where a group looks for its second device.
SMCR_A2=198.51.100.3
SMCR_B2=198.51.100.4
SMCR_NETA2=smcra2$$
SMCR_NETB2=smcrb2$$
SMCR_RXEA2=rxea2$$
SMCR_RXEB2=rxeb2$$
SMCR_TABLE_A2=12
SMCR_TABLE_B2=13
smcr_topo2_state=""

# smcr_topo_up2: after smcr_topo_up, the second pair and its two rxe
# devices; 0 when both ports are ACTIVE with their RoCE v2 GIDs
smcr_topo_up2()
{
	smcr_topo2_state=veth
	smcr_veth_up "$SMCR_NETA2" "$SMCR_NETB2" "$SMCR_A2" "$SMCR_B2" 24 \
		noprefixroute || return 1
	smcr_topo2_state=rules
	smcr_cross "$SMCR_NETA2" "$SMCR_NETB2" "$SMCR_A2" "$SMCR_B2" \
		$SMCR_TABLE_A2 $SMCR_TABLE_B2 12 || return 1
	rdma link add "$SMCR_RXEA2" type rxe netdev "$SMCR_NETA2" || return 1
	smcr_topo2_state=rxea
	rdma link add "$SMCR_RXEB2" type rxe netdev "$SMCR_NETB2" || return 1
	smcr_topo2_state=rxeb
	smcr_rxe_ready "$SMCR_RXEA2" "$SMCR_A2" "$SMCR_RXEB2" "$SMCR_B2"
}

# smcr_topo_sides: each side's two rxe devices on a PNET ID of its own
# (SIDEA, SIDEB), so that a group's second link takes the second pair;
# the test flushes the table when it ends
smcr_topo_sides()
{
	"$SMC_TOOL" pnet add SIDEA ib "$SMCR_RXEA" port 1 &&
		"$SMC_TOOL" pnet add SIDEA ib "$SMCR_RXEA2" port 1 &&
		"$SMC_TOOL" pnet add SIDEB ib "$SMCR_RXEB" port 1 &&
		"$SMC_TOOL" pnet add SIDEB ib "$SMCR_RXEB2" port 1
}

# smcr_topo_down2: undoes whatever smcr_topo_up2 got to
smcr_topo_down2()
{
	case "$smcr_topo2_state" in
	rxeb) rdma link delete "$SMCR_RXEB2" 2>/dev/null ;&
	rxea) rdma link delete "$SMCR_RXEA2" 2>/dev/null ;&
	rules)
		ip rule del pref 12 2>/dev/null
		ip rule del pref 13 2>/dev/null
		ip route flush table $SMCR_TABLE_A2 2>/dev/null
		ip route flush table $SMCR_TABLE_B2 2>/dev/null ;&
	veth) ip link del "$SMCR_NETA2" 2>/dev/null ;;
	esac
	smcr_topo2_state=""
}

# smcr_wait_active RXE: port 1 of RXE reaches ACTIVE within 10 s
smcr_wait_active()
{
	local i

	for ((i = 0; i < 100; i++)); do
		grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" \
			2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# smcr_gid_index RXE ADDR: prints the index of ADDR's RoCE v2 GID
smcr_gid_index()
{
	local port=/sys/class/infiniband/$1/ports/1 want f i type a b c d

	IFS=. read -r a b c d <<< "$2"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		"$a" "$b" "$c" "$d")
	for f in "$port"/gids/*; do
		i=${f##*/}
		[ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
		type=$(cat "$port/gid_attrs/types/$i" 2>/dev/null)
		[ "$type" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# The bed for asymmetric links: end A has two rxe devices (A on one
# pair, A2 on another), end B one, on a bridge that both pairs join.
# rxe routes a packet out of its own netdev, so each of A's devices
# needs a route to B of its own: table 10 holds one per pair, and a
# lookup bound to a device takes the route that leaves by it.  B's
# device reaches both of A's addresses through the bridge.  Its ARP
# requests reach both of A's netdevs: each answers only for its own
# address (arp_ignore 1), or B might send A's packets to A2's netdev,
# whose rxe drops them.
#
#   rxea  - smcra  ==== smcrp  \
#                                 smcbr (B) - rxeb
#   rxea2 - smcra2 ==== smcrp2 /      |
#                                    smcrp3 ==== smcrb2 (B2) - rxeb2
#
# (the last pair only with smcr_br_b2_up)
SMCR_BR=smcbr$$
SMCR_PORTB=smcrp$$
SMCR_PORTB2=smcrp2$$
SMCR_PORTB3=smcrp3$$
smcr_br_state=""

# smcr_br_up: builds it (instead of smcr_topo_up); 0 when the three
# ports are ACTIVE with their RoCE v2 GIDs
smcr_br_up()
{
	local dev

	modprobe rdma_rxe 2>/dev/null && modprobe bridge 2>/dev/null ||
		return 1
	smcr_br_state=links
	ip link add "$SMCR_BR" type bridge || return 1
	ip link add "$SMCR_NETA" type veth peer name "$SMCR_PORTB" &&
		ip link add "$SMCR_NETA2" type veth peer name "$SMCR_PORTB2" ||
		return 1
	ip addr add "$SMCR_A/32" dev "$SMCR_NETA" &&
		ip addr add "$SMCR_A2/24" dev "$SMCR_NETA2" noprefixroute &&
		ip addr add "$SMCR_B/32" dev "$SMCR_BR" || return 1
	for dev in "$SMCR_PORTB" "$SMCR_PORTB2"; do
		ip link set "$dev" master "$SMCR_BR" && ip link set "$dev" up ||
			return 1
	done
	for dev in "$SMCR_NETA" "$SMCR_NETA2" "$SMCR_BR"; do
		smcr_sysctl "net.ipv4.conf.$dev.accept_local" 1
		smcr_sysctl "net.ipv4.conf.$dev.rp_filter" 0
		smcr_sysctl "net.ipv4.conf.$dev.arp_ignore" 1
		smcr_sysctl "net.ipv4.conf.$dev.arp_announce" 2
		ip link set "$dev" up || return 1
	done
	smcr_rp_filter_all=$(sysctl -n net.ipv4.conf.all.rp_filter)
	smcr_sysctl net.ipv4.conf.all.rp_filter 0
	smcr_br_state=rules
	ip route add "$SMCR_B/32" dev "$SMCR_NETA" table $SMCR_TABLE_A &&
		ip route add "$SMCR_B/32" dev "$SMCR_NETA2" metric 2 \
			table $SMCR_TABLE_A &&
		ip route add "$SMCR_A/32" dev "$SMCR_BR" table $SMCR_TABLE_B &&
		ip route add "$SMCR_A2/32" dev "$SMCR_BR" table $SMCR_TABLE_B ||
		return 1
	ip rule add pref 10 iif lo to "$SMCR_B" lookup $SMCR_TABLE_A &&
		ip rule add pref 11 iif lo to "$SMCR_A" lookup $SMCR_TABLE_B &&
		ip rule add pref 12 iif lo to "$SMCR_A2" lookup $SMCR_TABLE_B ||
		return 1
	ip rule add pref $SMCR_LOCAL_PREF lookup local || return 1
	ip rule del pref 0 lookup local || return 1
	smcr_br_state=local
	rdma link add "$SMCR_RXEA" type rxe netdev "$SMCR_NETA" &&
		rdma link add "$SMCR_RXEA2" type rxe netdev "$SMCR_NETA2" &&
		rdma link add "$SMCR_RXEB" type rxe netdev "$SMCR_BR" || return 1
	smcr_br_state=rxe
	smcr_rxe_ready "$SMCR_RXEA" "$SMCR_A" "$SMCR_RXEB" "$SMCR_B" &&
		smcr_wait_active "$SMCR_RXEA2" &&
		smcr_gid_index "$SMCR_RXEA2" "$SMCR_A2" >/dev/null
}

# smcr_br_b2_up: B's second device, rxeb2 on B2 (in B's subnet, as A2
# is in A's), on a pair whose other end joins the bridge; B2 reaches A
# and A2 out of its own netdev, and A's devices reach B2 as they reach B
smcr_br_b2_up()
{
	local dev=$SMCR_NETB2

	ip link add "$dev" type veth peer name "$SMCR_PORTB3" &&
		ip addr add "$SMCR_B2/24" dev "$dev" noprefixroute &&
		ip link set "$SMCR_PORTB3" master "$SMCR_BR" &&
		ip link set "$SMCR_PORTB3" up || return 1
	smcr_sysctl "net.ipv4.conf.$dev.accept_local" 1
	smcr_sysctl "net.ipv4.conf.$dev.rp_filter" 0
	smcr_sysctl "net.ipv4.conf.$dev.arp_ignore" 1
	smcr_sysctl "net.ipv4.conf.$dev.arp_announce" 2
	ip link set "$dev" up &&
		ip route add "$SMCR_A/32" dev "$dev" metric 2 \
			table $SMCR_TABLE_B &&
		ip route add "$SMCR_A2/32" dev "$dev" metric 2 \
			table $SMCR_TABLE_B &&
		ip route add "$SMCR_B2/32" dev "$SMCR_NETA" table $SMCR_TABLE_A &&
		ip route add "$SMCR_B2/32" dev "$SMCR_NETA2" metric 2 \
			table $SMCR_TABLE_A &&
		ip rule add pref 13 iif lo to "$SMCR_B2" lookup $SMCR_TABLE_A &&
		rdma link add "$SMCR_RXEB2" type rxe netdev "$dev" &&
		smcr_wait_active "$SMCR_RXEB2" &&
		smcr_gid_index "$SMCR_RXEB2" "$SMCR_B2" >/dev/null
}

# smcr_br_down: undoes whatever smcr_br_up and smcr_br_b2_up got to
smcr_br_down()
{
	local rxe

	case "$smcr_br_state" in
	rxe)
		for rxe in "$SMCR_RXEA" "$SMCR_RXEA2" "$SMCR_RXEB" \
			   "$SMCR_RXEB2"; do
			rdma link delete "$rxe" 2>/dev/null
		done ;&
	local) smcr_local_back ;&
	rules) smcr_rules_del 10 11 12 13 ;&
	links)
		ip link del "$SMCR_NETA" 2>/dev/null
		ip link del "$SMCR_NETA2" 2>/dev/null
		ip link del "$SMCR_NETB2" 2>/dev/null
		ip link del "$SMCR_BR" 2>/dev/null ;;
	esac
	[ -z "$smcr_rp_filter_all" ] ||
		smcr_sysctl net.ipv4.conf.all.rp_filter "$smcr_rp_filter_all"
	smcr_rp_filter_all=""
	smcr_br_state=""
}
