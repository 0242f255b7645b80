#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R over the rxe test bed (smcr_topo.sh): connections from end A
# (198.51.100.1) to end B (198.51.100.2) take SMC-Rv2 between the two
# rxe devices, with SMC-D negotiation off.  Every connection's path is
# checked through sock_diag.  The QPs of the link groups and their
# completion vectors are read from /sys/kernel/debug/smc/rdma-devices
# ("qps N0 N1 ...": the QPs bound to each vector), the link groups from
# /sys/kernel/debug/smc/smcr-linkgroups (one line each, with "conns N"),
# and compared with what the smc tool shows over netlink.
#
# SMC_TEST_SMOKE=1 runs the first NSMOKE cases only: SMC-R both ways,
# link group reuse, the CQ vectors, netlink and 16 connections at once.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"
. "$(dirname "$0")/smcr_xfer.sh"

DEVS=/sys/kernel/debug/smc/rdma-devices
LGRS=/sys/kernel/debug/smc/smcr-linkgroups
XFER=$HERE/smc_xfer
NLCHECK=$HERE/smc_nl_check.py
NCASES=47
NSMOKE=10

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools rdma ip sysctl
mount_debugfs
[ -r "$DEVS" ] || ktap_skip_all "no $DEVS"
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built"
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
smcr_topo_setup

smcd_param=/sys/module/smc/parameters/smcd
smcd_saved=$(cat $smcd_param)
restore_smcd()
{
	echo "$smcd_saved" > $smcd_param
	smcr_topo_cleanup
}
trap restore_smcd EXIT

ktap_header_smoke $NSMOKE $NCASES

if ! smcr_topo_up; then
	ktap_diag "$(rdma link show 2>&1)"
	ktap_skip_all "the rxe test bed does not come up"
fi
echo N > $smcd_param

# qps RXE: the per-vector QP counts of RXE ("1 0")
qps()
{
	sed -n "s/^$1 .* qps \([0-9 ]*\) netdev.*/\1/p" "$DEVS"
}

# qps_sum RXE: QPs bound on RXE
qps_sum()
{
	local n s=0

	for n in $(qps "$1"); do
		s=$((s + n))
	done
	echo $s
}

# lgrs_idle: no link group carries a connection (orphans included)
lgrs_idle()
{
	! grep -qv ' conns 0 ' "$LGRS"
}

# qps_none RXE: no QP bound on RXE
qps_none()
{
	[ "$(qps_sum "$1")" = 0 ]
}

# spread_ok RXE: the counts differ by one at most (least-used rule)
spread_ok()
{
	local n min=999999 max=0

	for n in $(qps "$1"); do
		[ "$n" -lt "$min" ] && min=$n
		[ "$n" -gt "$max" ] && max=$n
	done
	[ $((max - min)) -le 1 ]
}

export SMC_EXPECT_PATH=smcr
export SMC_EXPECT_REASON=0

# 1: the first connection makes a link group on each end
xfer "A to B takes SMC-R, 1 MiB up and 3 MiB down verified" \
	"$SMCR_B" 1048576 3145728
ktap_diag "$(cat "$DEVS" "$LGRS")"

# the largest transfer of the issue's range, both ways at once (on a
# slower kernel a share of it: SMC_TEST_SLOWDOWN)
big=$((64 / SMC_TEST_SLOWDOWN))
xfer "$big MiB both ways at once, verified" "$SMCR_B" $((big << 20)) \
	$((big << 20))

# 2: the next connections reuse them: still one QP a device
rc=0
for i in 1 2 3; do
	port=$(free_port)
	"$XFER" -s "$SMCR_B" "$port" -n 100000 -m 100000 -t 30 \
		-r "$tmp_dir/r$i" > "$tmp_dir/s$i" 2>&1 &
	track $!
	wait_until 10 test -e "$tmp_dir/r$i" || rc=1
	"$XFER" -c "$SMCR_B" "$port" -n 100000 -m 100000 -t 30 \
		> "$tmp_dir/c$i" 2>&1 || { rc=1; cat "$tmp_dir/c$i"; }
done
wait
for dev in "$SMCR_RXEA" "$SMCR_RXEB"; do
	[ "$(qps_sum "$dev")" = 1 ] || rc=1
done
[ $rc -eq 0 ] || ktap_diag "$(cat "$DEVS")"
ktap_result "three more connections reuse the link groups: one QP a device" $rc

# two_spread RXE: two QPs on RXE, on vectors as the least-used rule has
# them
two_spread()
{
	[ "$(qps_sum "$1")" = 2 ] && spread_ok "$1"
}

# 3: B to A: a client group on B and a server group on A, each bound
# to the least-used vector of its device.  (The server's try of a
# second link on its one device, which B refuses, may still hold a
# QP for a moment.)
xfer "B to A takes SMC-R as well" "$SMCR_A" 65536 65536
rc=0
for dev in "$SMCR_RXEA" "$SMCR_RXEB"; do
	wait_until 10 two_spread "$dev" || rc=1
done
ktap_diag "$(cat "$DEVS")"
ktap_result "second link group of each device on its least-used vector" $rc

# 3b: the same through netlink, as the smc tool shows it
rc=0
"$NLCHECK" vectors "$SMC_TOOL" "$DEVS" > "$tmp_dir/nl.1" 2>&1 || rc=1
ktap_diag "$(cat "$tmp_dir/nl.1"; "$SMC_TOOL" dev 2>&1)"
ktap_result "netlink: QPs of each completion vector as in debugfs" $rc
rc=0
"$NLCHECK" links "$SMC_TOOL" "$LGRS" 2>&1 || rc=1
ktap_diag "$("$SMC_TOOL" lgr 2>&1)"
ktap_result "netlink: every SMC-R link group and link, with its CQ vector" $rc

# 3c: completions are counted on the vectors and grow with traffic
done_sum()
{
	awk '{ s += $3 } END { print s + 0 }' "$1"
}
rc=0
port=$(free_port)
"$XFER" -s "$SMCR_B" "$port" -n 300000 -m 300000 -t 30 \
	-r "$tmp_dir/nl.ready" > "$tmp_dir/nl.srv" 2>&1 &
track $!
wait_until 10 test -e "$tmp_dir/nl.ready" || rc=1
"$XFER" -c "$SMCR_B" "$port" -n 300000 -m 300000 -t 30 \
	> "$tmp_dir/nl.cli" 2>&1 || rc=1
wait
"$NLCHECK" vectors "$SMC_TOOL" "$DEVS" > "$tmp_dir/nl.2" 2>&1 || rc=1
before=$(done_sum "$tmp_dir/nl.1")
after=$(done_sum "$tmp_dir/nl.2")
ktap_diag "completions before $before after $after"
[ "$before" -gt 0 ] && [ "$after" -gt "$before" ] || rc=1
ktap_result "netlink: completions counted per vector, growing with traffic" $rc

# 3d: the SMC-R listings against the YNL spec of the family
rc=0
python3 "$HERE/smc_nl_spec.py" --live > "$tmp_dir/spec" 2>&1 || rc=1
ktap_diag "$(tail -n 5 "$tmp_dir/spec")"
ktap_result "netlink: SMC-R replies as Documentation/netlink/specs describe" $rc

# 4: many connections at once over one link group: the send slots and
# the shared receive queue are shared by all (2 MB each, a share of it
# on a slower kernel)
rc=0
pids=()
each=$((2000000 / SMC_TEST_SLOWDOWN))
for i in $(seq 16); do
	port=$(free_port)
	"$XFER" -s "$SMCR_B" "$port" -n $each -m $each -S "$i" -t 90 \
		-r "$tmp_dir/m$i" > "$tmp_dir/ms$i" 2>&1 &
	pids+=($!)
	track $!
	wait_until 10 test -e "$tmp_dir/m$i" || rc=1
	"$XFER" -c "$SMCR_B" "$port" -n $each -m $each -S "$i" -t 90 \
		> "$tmp_dir/mc$i" 2>&1 &
	pids+=($!)
	track $!
done
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
[ $rc -eq 0 ] || ktap_diag "$(cat "$tmp_dir"/mc* "$tmp_dir"/ms* | grep -v ' ok$')"
ktap_result "16 concurrent connections, $each B each way each, verified" $rc
ktap_smoke_end

# 5: no GID for the source address (loopback): the client has nothing
# to offer and declines with NOSMCDEV before any Proposal
SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=0x03030000 \
	xfer "no RoCE GID on loopback: fallback, reason NOSMCDEV" \
	127.0.0.1 10000 10000 0x05000000

# PNET IDs: with each veth and its rxe port on one physical network,
# SMC-R as before; with A's port on another one, A has no device for
# its interface and offers nothing
rc=0
"$SMC_TOOL" pnet add NETA dev "$SMCR_NETA" &&
	"$SMC_TOOL" pnet add NETB dev "$SMCR_NETB" &&
	"$SMC_TOOL" pnet add NETA ib "$SMCR_RXEA" port 1 &&
	"$SMC_TOOL" pnet add NETB ib "$SMCR_RXEB" port 1 || rc=1
ktap_diag "$(cat "$DEVS")"
if [ $rc -eq 0 ]; then
	xfer "PNET IDs pair each veth with its rxe: SMC-R" "$SMCR_B" 100000 100000
else
	ktap_not_ok "PNET IDs pair each veth with its rxe: SMC-R"
fi
"$SMC_TOOL" pnet flush
rc=0
"$SMC_TOOL" pnet add NETA dev "$SMCR_NETA" &&
	"$SMC_TOOL" pnet add NETX ib "$SMCR_RXEA" port 1 || rc=1
if [ $rc -eq 0 ]; then
	SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=0x03030000 \
		xfer "A's rxe on another PNET: A offers nothing (0x03030000)" \
		"$SMCR_B" 10000 10000 0x05000000
else
	ktap_not_ok "A's rxe on another PNET: A offers nothing (0x03030000)"
fi
"$SMC_TOOL" pnet flush

# hostile CASE CODE NAME: hostile_peer answers the client's Proposal
# with a crafted SMC-R Accept (CASE); the client must decline with CODE
# and go on over TCP, and leave no link group half made
hostile()
{
	local case=$1 code=$2 name=$3 port hp rc=0
	local out=$tmp_dir/hp.$1

	port=$(free_port)
	"$HERE/hostile_peer" smcr-accept-server "$SMCR_B" "$port" "$case" \
		> "$out" 2>&1 &
	hp=$!
	track $hp
	if ! wait_until 10 grep -q '^ready' "$out"; then
		wait $hp
		[ $? -eq $KSFT_SKIP ] && { ktap_skip "$name" "no BPF or cgroup v2"; return; }
		rc=1
	fi
	SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=$code \
		"$XFER" -c "$SMCR_B" "$port" -n 0 -m 0 -t 30 \
		> "$tmp_dir/hc" 2>&1 || rc=1
	wait $hp || rc=1
	grep -q "^decline $code" "$out" || rc=1
	grep -q ' state activating ' "$LGRS" && rc=1
	ktap_diag "$(cat "$out" "$tmp_dir/hc")"
	ktap_result "$name" $rc
}

if [ -x "$HERE/hostile_peer" ]; then
	hostile bigrmb 0x01010000 \
		"server RMB of 512 MiB: the client declines 0x01010000"
	hostile maxconn 0x0303000a \
		"server limit of 10 connections: the client declines 0x0303000a"
	hostile reuse 0x04000000 \
		"reuse of an unknown link group: the client declines 0x04000000"
	hostile noconfirm 0x02010000 \
		"no CONFIRM LINK after the Confirm: the client declines 0x02010000"
else
	for i in 1 2 3 4; do
		ktap_skip "hostile SMC-R server case $i" "hostile_peer not built"
	done
fi

# suite PROG TIMEOUT NAME: one of the suites, IPv4 over SMC-R (they
# skip their IPv6 and SMC-D cases); its failures in the diagnostics.
# integrity's largest transfer, 16 MiB each way, is a share of that
# on a slower kernel (stress scales itself).
suite()
{
	local prog=$1 tmo=$2 name=$3 out rc

	if [ ! -x "$HERE/$prog" ]; then
		ktap_skip "$name" "$prog not built"
		return
	fi
	out=$(SMC_TEST_ADDR4=$SMCR_B \
	      INTEGRITY_MAX=$(((16 << 20) / SMC_TEST_SLOWDOWN)) \
	      timeout "$tmo" "$HERE/$prog" 2>&1)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$out" | grep -vE '^ok ' | tail -40 | sed 's/^/# /'
	else
		echo "$out" | tail -1 | sed 's/^/# /'
	fi
	ktap_result "$name" $rc
}

# 6-8: urgent data is in integrity (smc_xfer is plain), then the
# differential conformance suite and the connection stress test
suite integrity 600 "integrity suite over SMC-R (random sizes, urgent data)"
suite conformance 900 "conformance suite over SMC-R"
suite stress 900 "stress suite over SMC-R"

# start_big TAG: a long transfer A to B in the background (pids in
# big_c, big_s), running once this returns
start_big()
{
	local port

	port=$(free_port)
	"$XFER" -s "$SMCR_B" "$port" -n 4000000000 -m 4000000000 -t 120 \
		-r "$tmp_dir/$1" > "$tmp_dir/$1.s" 2>&1 &
	big_s=$!
	track $big_s
	wait_until 10 test -e "$tmp_dir/$1"
	"$XFER" -c "$SMCR_B" "$port" -n 4000000000 -m 4000000000 -t 120 \
		> "$tmp_dir/$1.c" 2>&1 &
	big_c=$!
	track $big_c
	sleep 3
}

# both_failed TAG: both ends of start_big TAG ended within 30 s, with
# an error
both_failed()
{
	local rc=0

	wait_until 30 sh -c "! kill -0 $big_c 2>/dev/null && ! kill -0 $big_s 2>/dev/null" ||
		{ rc=1; ktap_diag "still running after 30 s"; }
	wait $big_c && { rc=1; ktap_diag "client succeeded"; }
	wait $big_s && { rc=1; ktap_diag "server succeeded"; }
	ktap_diag "$(tail -n 2 "$tmp_dir/$1.c" "$tmp_dir/$1.s")"
	return $rc
}

# 9: kill -9 of both ends during a transfer: the sockets (orphans until
# the peer's abort arrives) all go, nothing hangs
start_big kill
rc=0
kill -9 $big_c $big_s
wait $big_c $big_s 2>/dev/null
wait_until 20 sh -c "[ \"\$($SMC_PATH -c 2>/dev/null)\" = 0 ]" || rc=1
wait_until 20 lgrs_idle || rc=1
[ $rc -eq 0 ] || ktap_diag "$($SMC_PATH 2>&1 | head -5)"
ktap_diag "$(cat "$LGRS")"
ktap_result "kill -9 of both ends under traffic: every socket goes" $rc

# 10: the wire of one end goes down during a transfer: its port goes
# down, the links fail, both ends see an error; up again, SMC-R works
start_big wire
rc=0
qps_a=$(qps_sum "$SMCR_RXEA")
ip link set "$SMCR_NETB" down
both_failed wire || rc=1
# B's port is down: its links are gone at once
wait_until 10 qps_none "$SMCR_RXEB" || rc=1
# A's link of the transfer failed; idle ones wait for their TEST LINK
[ "$(qps_sum "$SMCR_RXEA")" -lt "$qps_a" ] || rc=1
ktap_diag "$(cat "$DEVS")"
ip link set "$SMCR_NETB" up
smcr_wait_active "$SMCR_RXEB" || rc=1
ktap_result "veth down under traffic: both ends fail, B's QPs freed" $rc
xfer "veth up again: SMC-R again" "$SMCR_B" 100000 100000

# 12: the device of one end goes away during a transfer: both ends end
# with an error, nothing hangs, the other device's QPs are given back
start_big gone
rc=0
rdma link delete "$SMCR_RXEB" || rc=1
smcr_topo_state=rxea
# both ends see the connection fail well before their own timeout
both_failed gone || rc=1
# A's links to B end: by B's DELETE LINK, or (for links B lost with its
# wire in case 9) by a TEST LINK left unanswered after 30 s idle
wait_until 45 qps_none "$SMCR_RXEA" || rc=1
ktap_diag "$(cat "$DEVS")"
ktap_result "rxe device removed under traffic: both ends fail, QPs freed" $rc

# 13: with the device back, SMC-R works again
rc=0
rdma link add "$SMCR_RXEB" type rxe netdev "$SMCR_NETB" || rc=1
smcr_topo_state=rxeb
smcr_wait_active "$SMCR_RXEB" || rc=1
if [ $rc -eq 0 ]; then
	xfer "device added back: SMC-R again" "$SMCR_B" 100000 100000
else
	ktap_not_ok "device added back: SMC-R again"
fi

# 14: module unload with link groups lingering
rc=0
reload_smc "" || rc=1
echo N > $smcd_param
xfer_ok=0
[ $rc -eq 0 ] && grep -q "^$SMCR_RXEA " "$DEVS" && xfer_ok=1
[ $xfer_ok = 1 ] || rc=1
ktap_result "module reloaded with link groups lingering" $rc

# The net.smc sysctls of SMC-R, on the fresh module: each applies to the
# link groups made after it is set.

# lgr_json EXPR: EXPR over the SMC-R link groups "g" of smc -j lgr
lgr_json()
{
	"$SMC_TOOL" -j lgr | python3 -c "import json, sys
g = [x for x in json.load(sys.stdin)['lgrs'] if x['type'] == 'smcr']
print($1)"
}

# 15: vmalloc'ed buffers (smcr_buf_type 1), mapped page by page, and a
# TEST LINK after one idle second (smcr_testlink_time 1)
sysctl -q -w net.smc.smcr_buf_type=1 net.smc.smcr_testlink_time=1
xfer "smcr_buf_type 1: vmalloc'ed buffers, 4 MiB both ways verified" \
	"$SMCR_B" 4194304 4194304
rc=0
[ "$(lgr_json 'len(g), sorted(set(x["buf_type"] for x in g))')" = \
	"2 [1]" ] || rc=1
sleep 3
ktap_diag "$(cat "$LGRS")"
# TEST LINKs were sent and answered.  A TEST LINK received counts as
# traffic, so of the two ends of a link, whose timers run at the same
# interval, one may keep the other from ever being idle: at least one
# end of each link pair
tl=$(grep -c ' testlinks [1-9]' "$LGRS")
[ "$tl" -ge 1 ] && [ $((2 * tl)) -ge "$(grep -c . "$LGRS")" ] || rc=1
ktap_diag "$("$SMC_TOOL" lgr 2>&1)"
ktap_result "buffer type in netlink; TEST LINK after smcr_testlink_time idle" $rc
sysctl -q -w net.smc.smcr_testlink_time=30

# 16: limits per link group, negotiated to the smaller wish.  A fresh
# module, so that the connection makes its groups anew (smcr_buf_type
# 2: contiguous pages if cheap)
reload_smc "" || ktap_diag "module reload failed"
echo N > $smcd_param
sysctl -q -w net.smc.smcr_max_conns_per_lgr=16 \
	net.smc.smcr_max_links_per_lgr=1 net.smc.smcr_buf_type=2
xfer "smcr_buf_type 2, one link and 16 connections a group" \
	"$SMCR_B" 1048576 1048576
rc=0
got=$(lgr_json 'sorted((x["max_conns"], x["max_links"], x["buf_type"]) for x in g)')
ktap_diag "$got"
ktap_diag "$(cat "$LGRS"; "$SMC_TOOL" lgr 2>&1)"
[ "$got" = "[(16, 1, 2), (16, 1, 2)]" ] || rc=1
ktap_result "smcr_max_conns/links_per_lgr: the new groups carry the limits" $rc
sysctl -q -w net.smc.smcr_max_conns_per_lgr=255 \
	net.smc.smcr_max_links_per_lgr=2 net.smc.smcr_buf_type=0

# 17: autocorking.  NSMALL writes of 16 bytes: with autocorking_size 0
# each goes out in a CDC of its own (a completion each); by default the
# ones made while a CDC is in flight wait for it and share the next.
# Without a delay on the wire a CDC may complete before send() returns
# (6.1 rxe runs the whole exchange in the sender's softirq), so netem
# keeps each one in flight for 2 ms each way.  NSMALL: 20000, a share
# of it on a slower kernel (SMC_TEST_SLOWDOWN)
NSMALL=$((20000 / SMC_TEST_SLOWDOWN))
smallwrites()
{
	"$SMC_RUN" python3 -c '
import socket, sys, threading
addr, n = sys.argv[1], int(sys.argv[3])
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind((addr, 0))
srv.listen(1)
got = bytearray()
def serve():
    c, _ = srv.accept()
    while len(got) < 16 * n:
        b = c.recv(65536)
        if not b:
            break
        got.extend(b)
    c.sendall(b"k")
t = threading.Thread(target=serve)
t.start()
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
cli.connect(srv.getsockname())
import os, subprocess
subprocess.run([sys.argv[2], "-p", str(os.getpid()), "-f", str(cli.fileno()),
                "-e"], check=True)
for i in range(n):
    cli.send(b"%016d" % i)
assert cli.recv(1) == b"k"
t.join()
want = b"".join(b"%016d" % i for i in range(n))
sys.exit(0 if bytes(got) == want else 1)
' "$1" "$SMC_PATH" "$NSMALL"
}
completions()
{
	"$NLCHECK" vectors "$SMC_TOOL" "$DEVS" > "$tmp_dir/ac" 2>&1
	done_sum "$tmp_dir/ac"
}
rc=0
netem=1
for d in "$SMCR_NETA" "$SMCR_NETB"; do
	tc qdisc add dev "$d" root netem delay 2ms || netem=0
done
[ $netem = 1 ] || ktap_diag "no netem: the CDCs may not be in flight"
sysctl -q -w net.smc.autocorking_size=0
c0=$(completions)
smallwrites "$SMCR_B" || rc=1
c1=$(completions)
sysctl -q -w net.smc.autocorking_size=65536
smallwrites "$SMCR_B" || rc=1
c2=$(completions)
off=$((c1 - c0))
on=$((c2 - c1))
for d in "$SMCR_NETA" "$SMCR_NETB"; do
	tc qdisc del dev "$d" root 2>/dev/null
done
ktap_diag "completions for $NSMALL small writes: autocorking off $off, on $on"
[ "$off" -ge "$NSMALL" ] && [ $((on * 4)) -lt "$off" ] || rc=1
ktap_result "autocorking_size: small writes share CDCs, 0 turns it off" $rc

# 18: smc sock (sock_diag) shows each end of live SMC-R connections
# with the link it uses, as smc lgr (netlink) lists that link
"$SMC_RUN" python3 -c '
import socket, sys, time
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind((sys.argv[1], 0))
srv.listen(4)
pairs = []
for i in range(3):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.connect(srv.getsockname())
    a, _ = srv.accept()
    c.sendall(b"x" * 1000)
    assert len(a.recv(1000)) > 0
    pairs.append((c, a))
print("up", flush=True)
time.sleep(60)
' "$SMCR_B" > "$tmp_dir/held" 2>&1 &
held=$!
track $held
rc=0
wait_until 20 grep -q up "$tmp_dir/held" || rc=1
"$SMC_TOOL" -j sock > "$tmp_dir/socks.json" 2>&1 || rc=1
"$SMC_TOOL" -j lgr > "$tmp_dir/lgrs.json" 2>&1 || rc=1
kill $held 2>/dev/null
wait $held 2>/dev/null
python3 - "$tmp_dir/socks.json" "$tmp_dir/lgrs.json" <<'PYEOF' || rc=1
import json, sys
socks = [s for s in json.load(open(sys.argv[1]))
         if s["path"] == "smcr" and s["state"] == "ACTIVE"]
links = set()
for g in json.load(open(sys.argv[2]))["lgrs"]:
    for l in g.get("links", []):
        links.add((g["role"], l["id"], l["dev"], l["port"], l["gid"],
                   l["peer_gid"]))
ends = {}
bad = 0
for s in socks:
    l, c = s.get("lgr"), s.get("conn")
    if not l or not c:
        print("# no LGRINFO/CONNINFO:", s)
        bad += 1
        continue
    key = (l["role"], l["link_id"], l["ibname"], l["ibport"], l["gid"],
           l["peer_gid"])
    if key not in links:
        print("# link not in smc lgr:", key)
        bad += 1
    if c["rmbe_size"] == 0 or c["peer_rmbe_size"] != c["sndbuf_size"]:
        print("# buffer sizes:", c)
        bad += 1
    ends[(s["local_port"], s["peer_port"])] = (l, c)
pairs = 0
for (lp, pp), (l, c) in ends.items():
    if l["role"] != "client":
        continue
    peer = ends.get((pp, lp))
    if not peer:
        continue
    pl, pc = peer
    pairs += 1
    if (pl["role"], pl["gid"], pl["peer_gid"]) != \
       ("server", l["peer_gid"], l["gid"]) or \
       pc["rmbe_size"] != c["peer_rmbe_size"]:
        print("# ends disagree:", l, pl)
        bad += 1
print("# %d SMC-R sockets, %d connections with both ends" %
      (len(socks), pairs))
sys.exit(1 if bad or pairs < 3 else 0)
PYEOF
ktap_result "smc sock: SMC-R ends with their link, as smc lgr lists it" $rc

# 19: smc stats counts an SMC-R connection (both ends are in init_net):
# one handshake each side, the bytes each way, no SMC-D
"$SMC_TOOL" -j stats > "$tmp_dir/st0.json" || ktap_diag "smc stats failed"
xfer "1 MB up and 3 MB down, verified, for the statistics" "$SMCR_B" \
	1000000 3000000
"$SMC_TOOL" -j stats > "$tmp_dir/st1.json" || ktap_diag "smc stats failed"
rc=0
got=$(python3 - "$tmp_dir/st0.json" "$tmp_dir/st1.json" <<'PYEOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
d = lambda p, k: b[p][k] - a[p][k]
print(d("smcr", "clnt_v2_succ"), d("smcr", "srv_v2_succ"),
      d("smcr", "tx_bytes"), d("smcr", "rx_bytes"),
      d("smcd", "clnt_v2_succ") + d("smcd", "srv_v2_succ"))
PYEOF
) || rc=1
ktap_diag "handshakes, bytes and SMC-D handshakes added: $got"
[ "$got" = "1 1 4000000 4000000 0" ] || rc=1
ktap_result "smc stats: an SMC-R connection's handshakes and bytes" $rc

# 20: in a reused group the client runs SMC-R from its Confirm on, so
# a server that cannot take the connection then must not Decline (it
# would go unread) but drop the connection, keeping the RMB the client
# was given.  A hostile client with A's GID
# (whose group with B the last transfer left) confirms a QP the group
# does not have; a real connection reuses the group afterwards.
if [ -x "$HERE/hostile_peer" ]; then
	rc=0
	port=$(free_port)
	srv_conns()
	{
		lgr_json 'sum(x["conns"] for x in g if x["role"] == "server")'
	}
	c0=$(srv_conns)
	"$XFER" -s "$SMCR_B" "$port" -n 300000 -m 300000 -t 60 \
		-r "$tmp_dir/rready" > "$tmp_dir/rsrv" 2>&1 &
	rsrv=$!
	track $rsrv
	wait_until 10 test -e "$tmp_dir/rready" || rc=1
	"$HERE/hostile_peer" smcr-reuse-client "$SMCR_B" "$port" \
		"::ffff:$SMCR_A" > "$tmp_dir/hrc" 2>&1
	hrc=$?
	ktap_diag "$(cat "$tmp_dir/hrc")"
	if [ $hrc -eq $KSFT_SKIP ]; then
		kill $rsrv 2>/dev/null
		wait $rsrv 2>/dev/null
		ktap_skip "Confirm the server cannot take: dropped" \
			"no BPF or cgroup v2"
		ktap_skip "the group serves the next connection" "no BPF"
	else
		[ $hrc = 0 ] || rc=1
		grep -q '^accept first-contact 0' "$tmp_dir/hrc" || rc=1
		wait_until 10 test "$(srv_conns)" = "$c0" || rc=1
		ktap_diag "server connections before $c0, now $(srv_conns)"
		ktap_result "Confirm the server cannot take: dropped, no Decline" \
			$rc
		rc=0
		"$XFER" -c "$SMCR_B" "$port" -n 300000 -m 300000 -t 60 \
			> "$tmp_dir/rcli" 2>&1 || rc=1
		wait $rsrv || rc=1
		ktap_diag "$(cat "$tmp_dir/rcli" "$tmp_dir/rsrv")"
		ktap_result "the group serves the next connection, verified" $rc
	fi
else
	ktap_skip "Confirm the server cannot take: dropped" "no hostile_peer"
	ktap_skip "the group serves the next connection" "no hostile_peer"
fi

# 20b: the alert token of that failed Confirm is the client's choice:
# it may be the token of another connection of the group.  An idle
# connection from A to B is open; the hostile client's Confirm names
# A's alert token (from smc_diag).  The server must not abort over
# the link for it: A still carries data both ways afterwards.
if [ -x "$HERE/hostile_peer" ]; then
	rc=0
	port=$(free_port)
	port2=$(free_port)
	rm -f "$tmp_dir/ahold.s" "$tmp_dir/ahold.c"
	"$XFER" -s "$SMCR_B" "$port" -n 300000 -m 300000 -t 90 \
		-r "$tmp_dir/aready" -H "$tmp_dir/ahold.s" \
		> "$tmp_dir/asrv" 2>&1 &
	asrv=$!
	track $asrv
	# the hostile client's listener: it never gets a connection
	"$XFER" -s "$SMCR_B" "$port2" -t 90 -r "$tmp_dir/hready" \
		> /dev/null 2>&1 &
	hsrv=$!
	track $hsrv
	wait_until 10 test -e "$tmp_dir/aready" -a -e "$tmp_dir/hready" ||
		rc=1
	"$XFER" -c "$SMCR_B" "$port" -n 300000 -m 300000 -t 90 \
		-H "$tmp_dir/ahold.c" > "$tmp_dir/acli" 2>&1 &
	acli=$!
	track $acli
	wait_until 20 test -e "$tmp_dir/ahold.c" -a -e "$tmp_dir/ahold.s" ||
		rc=1
	token=$("$SMC_TOOL" -j sock | python3 -c "import json, sys
for s in json.load(sys.stdin):
    r = s.get('lgr', {}).get('role')
    if s['path'] == 'smcr' and s['peer_port'] == $port and r == 'client':
        print(s['conn']['token'])")
	ktap_diag "connection A (port $port): alert token ${token:-none}"
	[ -n "$token" ] || rc=1
	"$HERE/hostile_peer" smcr-reuse-client "$SMCR_B" "$port2" \
		"::ffff:$SMCR_A" "${token:-0}" > "$tmp_dir/hrc2" 2>&1
	hrc=$?
	[ $hrc = 0 ] || [ $hrc = "$KSFT_SKIP" ] || rc=1
	ktap_diag "$(cat "$tmp_dir/hrc2")"
	grep -q '^accept first-contact 0' "$tmp_dir/hrc2" || rc=1
	# give a CDC the server may have sent time to arrive
	sleep 1
	rm -f "$tmp_dir/ahold.s" "$tmp_dir/ahold.c"
	wait $acli || rc=1
	wait $asrv || rc=1
	kill $hsrv 2>/dev/null
	wait $hsrv 2>/dev/null
	ktap_diag "$(cat "$tmp_dir/acli" "$tmp_dir/asrv")"
	if [ $hrc = "$KSFT_SKIP" ]; then
		ktap_skip "a failed Confirm resets no other connection of the group" \
			"no BPF or cgroup v2"
	else
		ktap_result "a failed Confirm resets no other connection of the group" \
			$rc
	fi
else
	ktap_skip "a failed Confirm resets no other connection of the group" \
		"no hostile_peer"
fi

# 20c: a GID in a Proposal is only a claim.  The same hostile client,
# first from A's address (it joins A's group with B: the Accept says no
# first contact), then from another address of end A's that no link of
# the group has: there the claim of A's GID must not join the group;
# the Accept says first contact.
if [ -x "$HERE/hostile_peer" ]; then
	rc=0
	port=$(free_port)
	stranger=198.51.100.9
	# the hostile client's listener: it never gets a connection
	"$XFER" -s "$SMCR_B" "$port" -t 90 -r "$tmp_dir/sready" \
		> /dev/null 2>&1 &
	ssrv=$!
	track $ssrv
	ip addr add "$stranger/32" dev "$SMCR_NETA" || rc=1
	wait_until 10 test -e "$tmp_dir/sready" || rc=1
	"$HERE/hostile_peer" smcr-reuse-client "$SMCR_B" "$port" \
		"::ffff:$SMCR_A" > "$tmp_dir/hrc3" 2>&1
	hrc=$?
	SMC_HOSTILE_SRC=$stranger "$HERE/hostile_peer" smcr-reuse-client \
		"$SMCR_B" "$port" "::ffff:$SMCR_A" > "$tmp_dir/hrc4" 2>&1
	ip addr del "$stranger/32" dev "$SMCR_NETA"
	kill $ssrv 2>/dev/null
	wait $ssrv 2>/dev/null
	ktap_diag "from $SMCR_A: $(cat "$tmp_dir/hrc3")"
	ktap_diag "from $stranger: $(cat "$tmp_dir/hrc4")"
	if [ $hrc = "$KSFT_SKIP" ]; then
		ktap_skip "a GID claimed from another address joins no group" \
			"no BPF or cgroup v2"
	else
		grep -q '^accept first-contact 0' "$tmp_dir/hrc3" || rc=1
		grep -q '^accept first-contact 1' "$tmp_dir/hrc4" || rc=1
		ktap_result "a GID claimed from another address joins no group" \
			$rc
	fi
else
	ktap_skip "a GID claimed from another address joins no group" \
		"no hostile_peer"
fi

# 20d: races upstream had in 2026, over SMC-R, as uid 65534: options
# set on both ends while the handshake runs and the ends go, and CDCs
# arriving while their connection is freed (smcd_abuse's cases, here
# with the rxe pair's addresses)
rc=0
SMCD_ABUSE_ROUNDS=60 SMC_TEST_ADDR4=$SMCR_B SMC_EXPECT_PATH=smcr \
	SMC_EXPECT_REASON=0 "$HERE/smcd_abuse" > "$tmp_dir/races" 2>&1 ||
	rc=1
ktap_diag "$(grep -v '^TAP\|^1\.\.' "$tmp_dir/races")"
grep -q '^ok [0-9]* setsockopt_against_close$' "$tmp_dir/races" || rc=1
grep -q '^ok [0-9]* cdc_against_free$' "$tmp_dir/races" || rc=1
ktap_result "setsockopt and CDCs racing the end of a connection, uid 65534" $rc

# 21: smcr_max_send_wr and smcr_max_recv_wr at their least, on a fresh
# module: every link of the new groups has 2 send slots and adds 2
# receive buffers to the SRQ of its CQ.  Eight transfers at once share
# a group, so senders wait in line for the two slots.  One link a
# group: the server's try of a second link on its one device, which
# the client refuses, would leave receives in excess until they
# complete.
reload_smc "" || ktap_diag "module reload failed"
echo N > $smcd_param
sysctl -q -w net.smc.smcr_max_send_wr=2 net.smc.smcr_max_recv_wr=2 \
	net.smc.smcr_max_links_per_lgr=1
rc=0
pids=""
for i in 1 2 3 4 5 6 7 8; do
	port=$(free_port)
	"$XFER" -s "$SMCR_B" "$port" -n 2000000 -m 1000000 -t 120 \
		-r "$tmp_dir/wr.ready.$i" > "$tmp_dir/wr.srv.$i" 2>&1 &
	pids="$pids $!"
	track $!
	wait_until 10 test -e "$tmp_dir/wr.ready.$i" || rc=1
	"$XFER" -c "$SMCR_B" "$port" -n 2000000 -m 1000000 -t 120 \
		> "$tmp_dir/wr.cli.$i" 2>&1 &
	pids="$pids $!"
	track $!
done
for p in $pids; do
	wait "$p" || rc=1
done
[ $rc = 0 ] || ktap_diag "$(cat "$tmp_dir"/wr.cli.* "$tmp_dir"/wr.srv.*)"
ktap_result "two send slots and two receives a link: 8 transfers at once" $rc

# each link shows its share; on each device, the SRQs hold 2 buffers
# for each QP bound there (no link has gone, so none is in excess)
wr_state()
{
	lgr_json 'sorted(set((l["send_wr"], l["recv_wr"]) for x in g for l in x["links"]))'
	"$SMC_TOOL" -j dev | python3 -c "import json, sys
for d in json.load(sys.stdin)['devices']:
    c = d.get('cqs', [])
    print(d['name'], sum(x['qps'] for x in c),
          sum(x['recv_bufs'] for x in c))"
}
# wr_ok K: every link has K slots and K receives; each device's SRQs
# hold K a bound QP, up to 2048 a queue
wr_ok()
{
	local out
	out=$(wr_state) || return 1
	[ "$(echo "$out" | head -n1)" = "[($1, $1)]" ] || return 1
	echo "$out" | tail -n +2 | awk -v k="$1" '
		{ w = k * $2 }
		$2 < 1 || (w <= 2048 && $3 != w) ||
		(w > 2048 && ($3 < 2048 || $3 > w)) { bad = 1 }
		END { exit bad }'
}
rc=0
wait_until 10 wr_ok 2 || rc=1
ktap_diag "$(wr_state 2>&1)"
ktap_result "links carry smcr_max_send_wr/recv_wr; SRQs hold their shares" $rc

# at their most: 2048 slots need a CQ beyond the pool's 4096 entries
reload_smc "" || ktap_diag "module reload failed"
echo N > $smcd_param
sysctl -q -w net.smc.smcr_max_send_wr=2048 net.smc.smcr_max_recv_wr=2048 \
	net.smc.smcr_max_links_per_lgr=1
xfer "2048 send slots and receives a link, 4 MiB both ways verified" \
	"$SMCR_B" 4194304 4194304
rc=0
wait_until 10 wr_ok 2048 || rc=1
ktap_diag "$(wr_state 2>&1)"
ktap_result "links carry 2048 slots and receives; SRQs hold their shares" $rc
sysctl -q -w net.smc.smcr_max_send_wr=16 net.smc.smcr_max_recv_wr=48 \
	net.smc.smcr_max_links_per_lgr=2


# srv_lgr KEY: KEY ("conns", "rmb_alloc") summed over B's server groups
srv_lgr()
{
	lgr_json "sum(x['$1'] for x in g if x['role'] == 'server')"
}

# srv_lgr_is KEY OP N: srv_lgr KEY, now, compared with N by test's OP
srv_lgr_is()
{
	test "$(srv_lgr "$1")" "$2" "$3"
}

# hold_good TAG PORT: a well-behaved connection A to B on PORT, made
# and holding (smc_xfer -H) before its verified transfer (pids in
# good_c, good_s); non-zero when it did not connect within 20 s (times
# SMC_TEST_SLOWDOWN: it may make the group's first link)
hold_good()
{
	rm -f "$tmp_dir/$1.hs" "$tmp_dir/$1.hc"
	"$XFER" -s "$SMCR_B" "$2" -n 300000 -m 300000 -t 240 \
		-r "$tmp_dir/$1.r" -H "$tmp_dir/$1.hs" > "$tmp_dir/$1.s" 2>&1 &
	good_s=$!
	track $good_s
	if ! wait_until 10 test -e "$tmp_dir/$1.r"; then
		ktap_diag "$1: the server does not listen"
		return 1
	fi
	"$XFER" -c "$SMCR_B" "$2" -n 300000 -m 300000 -t 240 \
		-H "$tmp_dir/$1.hc" > "$tmp_dir/$1.c" 2>&1 &
	good_c=$!
	track $good_c
	wait_until 20 test -e "$tmp_dir/$1.hs" -a -e "$tmp_dir/$1.hc" &&
		return 0
	ktap_diag "$1: not connected and holding in $((20 * SMC_TEST_SLOWDOWN)) s"
	return 1
}

# make_orphans N WAIT: a client as nobody (hostile_peer
# smcr-hold-client, pid in hcli) makes N connections to a server that
# closes each at once, and keeps them open until "$hold_dir/held" is
# removed: N orphans at B, made within WAIT s
make_orphans()
{
	local port rc=0 hsrv

	port=$(free_port)
	"$HERE/hostile_peer" smcr-hold-server "$SMCR_B" "$port" "$1" \
		> "$tmp_dir/hold.s" 2>&1 &
	hsrv=$!
	track $hsrv
	wait_until 10 grep -q '^ready' "$tmp_dir/hold.s" ||
		{ ktap_diag "the holding server is not ready"; rc=1; }
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$HERE/hostile_peer" smcr-hold-client "$SMCR_B" "$port" "$1" \
		"$hold_dir/held" > "$tmp_dir/hold.c" 2>&1 &
	hcli=$!
	track $hcli
	wait_until "$2" test -e "$hold_dir/held" ||
		{ ktap_diag "the orphans were not made in $2 s"; rc=1; }
	wait $hsrv || { ktap_diag "the holding server failed"; rc=1; }
	ktap_diag "$(cat "$tmp_dir/hold.s" "$tmp_dir/hold.c")"
	return $rc
}

# good_done TAG: the held connection carries its data, verified
good_done()
{
	local rc=0

	rm -f "$tmp_dir/$1.hs" "$tmp_dir/$1.hc"
	wait $good_c || rc=1
	wait $good_s || rc=1
	ktap_diag "$(cat "$tmp_dir/$1.c" "$tmp_dir/$1.s")"
	return $rc
}

# 22-23: a client that never sends its close flags (its application
# keeps the sockets open; its links answer TEST LINK) leaves the
# server orphans: the sockets its application closed, each with its
# RMB, which the client may still write.  They last tcp_fin_timeout
# of the server's netns: then the connection is aborted, the RMB's
# memory regions go on every link, and the RMB is freed.  The client
# runs as nobody; a well-behaved connection of the group goes on.
# The timeout is 5 s times SMC_TEST_SLOWDOWN: the first orphan must
# still be there when the last is made.
fin_saved=$(sysctl -n net.ipv4.tcp_fin_timeout)
FIN=$((5 * SMC_TEST_SLOWDOWN))
sysctl -q -w net.ipv4.tcp_fin_timeout=$FIN
rc=0
NHOLD=24
# where nobody can create and remove its file
hold_dir=$(mktemp -d /tmp/smcr-orphans.XXXXXX)
chmod 1777 "$hold_dir"
hold_good orph "$(free_port)" || rc=1
conns0=$(srv_lgr conns)
rmb0=$(srv_lgr rmb_alloc)
ktap_diag "baseline: server group conns $conns0, rmb_alloc $rmb0"
make_orphans $NHOLD 60 || rc=1
t0=$(date +%s)
# one reading for the diagnostic and the check: they are reaped from
# tcp_fin_timeout after their close on
conns=$(srv_lgr conns)
ktap_diag "orphans made: server group conns $conns, rmb_alloc $(srv_lgr rmb_alloc)"
[ "$conns" -ge $((conns0 + NHOLD - 2)) ] 2>/dev/null ||
	{ ktap_diag "fewer than $((NHOLD - 2)) orphans"; rc=1; }
# reaped within the timeout and some slack for TCG (the timeout is
# already scaled, the slack is scaled here)
reap=$((FIN + 35 * SMC_TEST_SLOWDOWN))
wait_exactly $reap srv_lgr_is conns = "$conns0" ||
	{ ktap_diag "the orphans last beyond $reap s"; rc=1; }
# the RMBs are freed (freed ones of the pool the orphans took too)
wait_until 10 srv_lgr_is rmb_alloc -le "$rmb0" ||
	{ ktap_diag "their RMBs are not freed"; rc=1; }
ktap_diag "after $(($(date +%s) - t0)) s: server group conns" \
	"$(srv_lgr conns), rmb_alloc $(srv_lgr rmb_alloc)"
ktap_result "orphans of a client that never closes go after tcp_fin_timeout" $rc
rc=0
good_done orph || rc=1
rm -f "$hold_dir/held"
wait $hcli || rc=1
ktap_diag "$(cat "$tmp_dir/hold.c")"
ktap_result "the group's well-behaved connection goes on, verified" $rc

# 24: at most SMCR_ORPHANS_MAX (64) orphans a group, whatever the
# timeout: an orphan beyond them is aborted and its RMB freed at once
sysctl -q -w net.ipv4.tcp_fin_timeout=600
rc=0
NHOLD=80
conns0=$(srv_lgr conns)
make_orphans $NHOLD 120 || rc=1
wait_until 20 srv_lgr_is conns -le $((conns0 + 64)) || rc=1
ktap_diag "$NHOLD orphans made: server group conns $(srv_lgr conns) (before $conns0)"
rm -f "$hold_dir/held"
wait $hcli || rc=1
# the rest go quickly
sysctl -q -w net.ipv4.tcp_fin_timeout=5
wait_until 40 srv_lgr_is conns = "$conns0" || rc=1
ktap_result "a group keeps 64 orphans at most" $rc
sysctl -q -w net.ipv4.tcp_fin_timeout="$fin_saved"
rm -rf "$hold_dir"

# 25: the RMB of a Confirm the server cannot take in a reused group
# (smcr-reuse-client, as in 20) is freed, its memory regions gone on
# every link first, not kept until the group ends: after 200 tries (a
# share on a slower kernel: one RMB kept a try would still show) the
# server groups hold no more RMB memory than before, and a connection
# of the group carries its data, verified.
NCONFIRM=$((200 / SMC_TEST_SLOWDOWN))
if [ -x "$HERE/hostile_peer" ]; then
	rc=0
	hold_good reuse "$(free_port)" || rc=1
	rmb0=$(srv_lgr rmb_alloc)
	port2=$(free_port)
	"$XFER" -s "$SMCR_B" "$port2" -t 600 -r "$tmp_dir/r200" \
		> /dev/null 2>&1 &
	hsrv=$!
	track $hsrv
	wait_until 10 test -e "$tmp_dir/r200" || rc=1
	bad=0
	for ((i = 0; i < NCONFIRM; i++)); do
		"$HERE/hostile_peer" smcr-reuse-client "$SMCR_B" "$port2" \
			"::ffff:$SMCR_A" > "$tmp_dir/hrc200" 2>&1 ||
			bad=$((bad + 1))
	done
	kill $hsrv 2>/dev/null
	wait $hsrv 2>/dev/null
	[ $bad = 0 ] || { rc=1; ktap_diag "$(cat "$tmp_dir/hrc200")"; }
	# free RMBs of the pool the tries took are freed too: at most
	wait_until 10 srv_lgr_is rmb_alloc -le "$rmb0" || rc=1
	ktap_diag "$NCONFIRM failed Confirms ($bad not as expected):" \
		"rmb_alloc before $rmb0, now $(srv_lgr rmb_alloc)"
	good_done reuse || rc=1
	ktap_result "$NCONFIRM failed Confirms leave no RMB; the group's connection goes on" \
		$rc
else
	ktap_skip "$NCONFIRM failed Confirms leave no RMB; the group's connection goes on" \
		"no hostile_peer"
fi

ktap_finish
