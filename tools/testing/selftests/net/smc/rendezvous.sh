#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-D to a server of this host without CLC messages (the module
# parameter smcd_rendezvous, on by default):
#  - over IPv4 and IPv6 loopback, and from an IPv4 client to a dual-stack
#    IPv6 listener: every connection takes SMC-D at both ends, and its
#    two internal TCP sockets carry no byte at all (no CLC message), as
#    ss shows while the connection is up; the rendezvous counters in
#    debugfs say each connection was set up by its client, or found its
#    server's handshake begun already and took the CLC way;
#  - with the parameter off, the same connection runs the CLC exchange:
#    SMC-D, and the server's TCP socket received the Proposal and the
#    Confirm, and the child's handshake work ran (and was counted);
#  - a client in another network namespace (a veth pair) finds no server
#    end in its own and runs the CLC exchange;
#  - a listener closed before accept() resets the connection its client
#    already has, exactly as after a CLC handshake (the same script run
#    with the parameter on and off must print the same);
#  - with SMC-D off (module parameter smcd=0), a server that speaks
#    first reaches its client within 3 s: no end waits for a rendezvous
#    or a CLC message that cannot come (the CLC wait is 6 s);
#  - with receive packet steering (RPS) sending lo's packets to another
#    CPU, where the server's TCP makes the child from the client's last
#    ACK while the client already looks for it, every connection is
#    still set up by its client or its server's CLC handshake;
#  - connections set up by their client wake neither the listener's
#    accept worker nor a child's handshake work (the module counts
#    their runs in debugfs, next to the rendezvous counters);
#  - full-duplex transfers verified by SHA-256 (smc_xfer), and no AF_SMC
#    socket or loopback-ism DMB is left afterwards.
# On a kernel whose TCP has no SMC option (no CONFIG_SMC), no CLC
# exchange can take place: with the parameter off, and from the other
# namespace, both ends go on over TCP with reason 0x03010000 (the peer
# has no SMC) and still no byte of CLC.

. "$(dirname "$0")/lib.sh"

XFER=$HERE/smc_xfer
SMCD_PARAM=/sys/module/smc/parameters/smcd
RDV_PARAM=/sys/module/smc/parameters/smcd_rendezvous
RDV=/sys/kernel/debug/smc/rendezvous
NS_A=smc-ra-$$
NS_B=smc-rb-$$
VETH_A=smcra$$
VETH_B=smcrb$$
ADDR4_A=192.0.2.1
ADDR4_B=192.0.2.2
N=8
RPS_LO=/sys/class/net/lo/queues/rx-0/rps_cpus
rps_saved=""
smcd_saved=""
rdv_saved=""

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs AF_SMC (SMC_TEST_INET=1)"
[ "$(id -u)" = 0 ] || ktap_skip_all "must run as root"
require_tools ip ss python3
require_smc
[ -x "$SMC_RUN" ] || ktap_skip_all "smc_run not built (run make)"
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built (run make)"
[ -w "$SMCD_PARAM" ] || ktap_skip_all "no writable smcd module parameter"
[ -w "$RDV_PARAM" ] || ktap_skip_all "no smcd_rendezvous module parameter"

rdv_cleanup()
{
	cleanup
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	[ -n "$rps_saved" ] && echo "$rps_saved" > "$RPS_LO"
	[ -n "$smcd_saved" ] && echo "$smcd_saved" > "$SMCD_PARAM"
	[ -n "$rdv_saved" ] && echo "$rdv_saved" > "$RDV_PARAM"
}

setup_common
trap rdv_cleanup EXIT
mount_debugfs
[ -r "$RDV" ] || ktap_skip_all "no $RDV"

smcd_saved=$(cat "$SMCD_PARAM")
rdv_saved=$(cat "$RDV_PARAM")
echo 1 > "$SMCD_PARAM" || ktap_skip_all "cannot turn on the smcd parameter"
echo 1 > "$RDV_PARAM" || ktap_skip_all "cannot turn on smcd_rendezvous"
export SMC_EXPECT_PATH=smcd
unset SMC_EXPECT_REASON

# rdv NAME: a rendezvous counter (done, no_peer, busy, failed)
rdv()
{
	awk -v n="$1" '$1 == n { print $2 }' "$RDV"
}

# rdv_all: the four counters of how tries ended on one line (not the
# work runs), for the log
rdv_all()
{
	awk '$1 !~ /_work$/ { printf "%s %s ", $1, $2 }' "$RDV"
}

# clc_bytes NS PORT: the bytes the TCP sockets of the connection on PORT
# received, as ss shows them (bytes_received is left out while 0)
clc_bytes()
{
	in_ns "$1" ss -Htin "( sport = :$2 or dport = :$2 )" |
		grep -o 'bytes_received:[0-9]*' |
		awk -F: '{ s += $2 } END { print s + 0 }'
}

# xfer NAME SRV_NS CLI_NS LISTEN_ADDR CONNECT_ADDR CLC: one connection,
# its path checked at both ends while it is up; CLC=0: no byte on its
# TCP sockets, CLC=1: the CLC messages are there.  Then both directions
# of the transfer are verified.
xfer()
{
	local name=$1 sns=$2 cns=$3 clc=$6 rc n

	xfer_up "$1" "$2" "$3" "$4" "$5" -n 300000 -m 200000
	rc=$?
	[ $rc = 2 ] && return 1
	if [ "$XFER_UP" = 1 ]; then
		n=$(clc_bytes "$sns" "$XFER_PORT")
		[ "$sns" != "$cns" ] &&
			n=$((n + $(clc_bytes "$cns" "$XFER_PORT")))
		if [ "$clc" = 0 ] && [ "$n" != 0 ]; then
			ktap_diag "$name: its TCP sockets received $n bytes"
			rc=1
		elif [ "$clc" = 1 ] && [ "$n" = 0 ]; then
			ktap_diag "$name: no CLC message on its TCP sockets"
			rc=1
		fi
	fi
	xfer_done || rc=1
	[ $rc = 0 ] ||
		ktap_diag "$(sed 's/^# //' "$XFER_DIR/srv.out" "$XFER_DIR/cli.out")"
	return $rc
}

# many NAME LISTEN_ADDR CONNECT_ADDR: N connections in the initial
# netns; each must be set up by its client (done) or have found its
# server's handshake begun (busy), most of them the former
many()
{
	local name=$1 laddr=$2 caddr=$3 i rc=0 d0 b0 p0 f0 dd db dp df

	d0=$(rdv done) b0=$(rdv busy) p0=$(rdv no_peer) f0=$(rdv failed)
	for i in $(seq $N); do
		xfer "$name-$i" "" "" "$laddr" "$caddr" 0 || rc=1
	done
	dd=$(($(rdv done) - d0))
	db=$(($(rdv busy) - b0))
	dp=$(($(rdv no_peer) - p0))
	df=$(($(rdv failed) - f0))
	ktap_diag "$name: $N connections, $dd set up by the client, $db by CLC"
	if [ $((dd + db)) != $N ] || [ $dd -lt $((N / 2)) ] ||
	   [ $dp != 0 ] || [ $df != 0 ]; then
		ktap_diag "$name: no server found $dp times, set-up failed $df times"
		rc=1
	fi
	return $rc
}

# The client's last ACK of the TCP handshake, steered by RPS to another
# CPU, makes the server's child there while the client, pinned to CPU 0,
# looks for it: the same as when the delayed-ACK timer sends that ACK
# on one CPU just as the client rendezvouses on another.  Each
# connection must still be set up by its client, or by CLC.
test_ack_on_other_cpu()
{
	local rc

	[ "$(nproc)" -ge 2 ] || return 4
	[ -w "$RPS_LO" ] || return 4
	rps_saved=$(cat "$RPS_LO")
	echo 2 > "$RPS_LO" || return 1
	(
		taskset -pc 0 $BASHPID > /dev/null || exit 1
		many rendezvous_rps 127.0.0.1 127.0.0.1
	)
	rc=$?
	echo "$rps_saved" > "$RPS_LO" || rc=1
	rps_saved=""
	return $rc
}

# no_clc NAME SRV_NS CLI_NS LISTEN_ADDR CONNECT_ADDR: what xfer with
# CLC=1 is where TCP has no SMC option: both ends on TCP, as a peer
# without SMC, and no CLC byte
no_clc()
{
	SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=0x03010000 \
		xfer "$@" 0
}

# clc_xfer NAME SRV_NS CLI_NS LISTEN_ADDR CONNECT_ADDR: a connection
# that takes the CLC way
clc_xfer()
{
	if smc_tcp_option; then
		xfer "$@" 1
	else
		no_clc "$@"
	fi
}

test_param_off()
{
	local d0 hs0 rc=0

	echo 0 > "$RDV_PARAM" || return 1
	d0=$(rdv_all) hs0=$(rdv handshake_work)
	clc_xfer clc_lo "" "" 127.0.0.1 127.0.0.1 || rc=1
	echo 1 > "$RDV_PARAM" || rc=1
	if [ "$(rdv_all)" != "$d0" ]; then
		ktap_diag "counters moved: $d0 -> $(rdv_all)"
		rc=1
	fi
	# what rendezvous_wakes_no_worker counts does count the CLC way
	if [ "$(rdv handshake_work)" = "$hs0" ]; then
		ktap_diag "the child's handshake work ran, but was not counted"
		rc=1
	fi
	return $rc
}

setup_netns()
{
	ip netns add "$NS_A" || return 1
	ip netns add "$NS_B" || return 1
	ip -n "$NS_A" link set lo up || return 1
	ip -n "$NS_B" link set lo up || return 1
	veth_join "$NS_A" "$VETH_A" "$ADDR4_A/24" \
		  "$NS_B" "$VETH_B" "$ADDR4_B/24"
}

test_other_netns()
{
	local p0 rc=0

	setup_netns || { ktap_diag "cannot set up the namespaces"; return 1; }
	p0=$(rdv no_peer)
	clc_xfer clc_veth "$NS_A" "$NS_B" "$ADDR4_A" "$ADDR4_A" || rc=1
	if [ "$(rdv no_peer)" != $((p0 + 1)) ]; then
		ktap_diag "no_peer $p0 -> $(rdv no_peer)"
		rc=1
	fi
	return $rc
}

# The client's connection exists before accept(): the listener's close
# must reset it, as after a CLC handshake (smc_run: python's sockets
# are AF_SMC ones)
closed_listener()
{
	"$SMC_RUN" python3 - <<'EOF'
import errno, socket
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
srv.bind(("127.0.0.1", 0))
srv.listen(8)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
cli.settimeout(20)
cli.connect(srv.getsockname())
srv.close()
try:
    data = cli.recv(10)
    print("recv", len(data))
except socket.timeout:
    print("recv timed out")
except OSError as e:
    print("recv", errno.errorcode.get(e.errno, e.errno))
try:
    cli.send(b"x")
    print("send ok")
except OSError as e:
    print("send", errno.errorcode.get(e.errno, e.errno))
cli.close()
EOF
}

test_closed_listener()
{
	local on off d0 rc=0

	d0=$(rdv done)
	on=$(closed_listener 2>&1)
	[ "$(rdv done)" = $((d0 + 1)) ] ||
		{ ktap_diag "not set up by the client: $(rdv_all)"; rc=1; }
	echo 0 > "$RDV_PARAM" || return 1
	off=$(closed_listener 2>&1)
	echo 1 > "$RDV_PARAM" || rc=1
	ktap_diag "rendezvous: $(echo $on); CLC: $(echo $off)"
	[ "$on" = "$off" ] || rc=1
	case "$on" in
	*"recv ECONNRESET"*) ;;
	*) ktap_diag "expected a reset"; rc=1 ;;
	esac
	return $rc
}

# A server that greets its client first, both ends AF_SMC (smc_run):
# prints what the client got, or "timeout" after 3 s
server_first()
{
	"$SMC_RUN" python3 - <<'EOF'
import socket, threading
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
srv.bind(("127.0.0.1", 0))
srv.listen(8)
def greet():
    c, _ = srv.accept()
    c.sendall(b"hello")
    c.close()
threading.Thread(target=greet, daemon=True).start()
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
cli.settimeout(3)
cli.connect(srv.getsockname())
try:
    print(cli.recv(10).decode())
except socket.timeout:
    print("timeout")
EOF
}

test_server_first_smcd_off()
{
	local out rc=0

	echo 0 > "$SMCD_PARAM" || return 1
	out=$(server_first 2>&1)
	echo 1 > "$SMCD_PARAM" || rc=1
	[ "$out" = hello ] && return $rc
	ktap_diag "the client got: $out"
	return 1
}

# The runs of the listener's accept worker and the children's handshake
# work, as the module counts them.  Not by tracing the work: turning a
# tracepoint on or off patches the kernel's text while the other CPU
# runs it, which QEMU 7.2's TCG gets wrong at times (a stale int3).
test_no_worker()
{
	local busy0 acc0 hs0 runs rc=0

	busy0=$(rdv busy) acc0=$(rdv accept_work) hs0=$(rdv handshake_work)
	if [ -z "$acc0" ] || [ -z "$hs0" ]; then
		ktap_diag "no work counts in $RDV: $(rdv_all)"
		return 1
	fi
	many rendezvous_quiet 127.0.0.1 127.0.0.1 || rc=1
	runs=$(($(rdv accept_work) - acc0 + $(rdv handshake_work) - hs0))
	# a connection that found its handshake begun (busy) had a worker
	if [ "$(rdv busy)" = "$busy0" ] && [ "$runs" != 0 ]; then
		ktap_diag "$N connections set up by their client: $runs work runs"
		rc=1
	fi
	ktap_diag "rendezvous_quiet: $runs runs of the accept and handshake work"
	return $rc
}

test_no_leftovers()
{
	local rc=0

	if ! wait_until 30 smc_settled "$base"; then
		ktap_diag "AF_SMC sockets $(smc_count), before $base"
		rc=1
	fi
	if [ -n "$lo_base" ] && ! wait_until 30 lo_ism_settled; then
		ktap_diag "loopback-ism DMBs $(lo_ism), before $lo_base"
		rc=1
	fi
	return $rc
}

base=$(smc_count)
lo_base=$(lo_ism)
ktap_header 10
many rendezvous_v4 127.0.0.1 127.0.0.1
ktap_result rendezvous_v4_loopback $?
test_no_worker
ktap_result rendezvous_wakes_no_worker $?
many rendezvous_v6 ::1 ::1
ktap_result rendezvous_v6_loopback $?
many rendezvous_dual :: 127.0.0.1
ktap_result rendezvous_v4_client_dual_stack_listener $?
test_ack_on_other_cpu
rc=$?
if [ $rc = 4 ]; then
	ktap_skip rendezvous_ack_on_other_cpu "needs 2 CPUs and RPS"
else
	ktap_result rendezvous_ack_on_other_cpu $rc
fi
test_param_off
ktap_result clc_with_rendezvous_off $?
test_other_netns
ktap_result clc_from_other_netns $?
test_closed_listener
ktap_result listener_closed_before_accept_resets $?
test_server_first_smcd_off
ktap_result server_first_with_smcd_off $?
test_no_leftovers
ktap_result rendezvous_no_leftovers $?
ktap_finish
