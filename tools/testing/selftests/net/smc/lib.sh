#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the AF_SMC shell selftests: KTAP output, background
# process bookkeeping and smc_diag based path checks.
#
# SMC_TEST_INET=1 runs the applications without smc_run and skips all
# AF_SMC checks (for debugging the scripts on a host without the module).

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../../../../.." && pwd)
SMC_RUN=$REPO/tools/net/smc/smc_run
SMC_RUN_BPF=$REPO/tools/net/smc/smc_run_bpf
SMC_PATH=$HERE/smc_path
SMC_TOOL=$REPO/tools/net/smc/smc
SMC_TEST_INET=${SMC_TEST_INET:-0}

# SMC_TEST_SLOWDOWN: how many times slower than Debian's this kernel
# runs (vm-run sets it for the debug kernel).  Traffic that only has to
# last while something happens under it, a link going down, is sized in
# time rather than bytes: $((BYTES / SMC_TEST_SLOWDOWN)); the bounds of
# wait_until() are multiplied by it.
SMC_TEST_SLOWDOWN=${SMC_TEST_SLOWDOWN:-1}

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

ktap_nr=0
ktap_pass=0
ktap_fail=0
ktap_skipped=0
bg_pids=()
tmp_dir=""

ktap_header()
{
	echo "TAP version 13"
	echo "1..$1"
	ktap_mark
}

# SMC_TEST_SMOKE=1 (NAME@smoke, make check's second kernel): a long
# program runs only its representative head.  It plans with
# ktap_header_smoke HEAD ALL and calls ktap_smoke_end where the head
# ends.
SMC_TEST_SMOKE=${SMC_TEST_SMOKE:-0}

ktap_header_smoke()
{
	if [ "$SMC_TEST_SMOKE" = 1 ]; then
		ktap_header "$1"
	else
		ktap_header "$2"
	fi
}

ktap_smoke_end()
{
	[ "$SMC_TEST_SMOKE" = 1 ] || return 0
	ktap_diag "smoke run: the cases after the first $ktap_nr left out"
	ktap_finish
}

ktap_diag()
{
	local line

	while IFS= read -r line; do
		echo "# $line"
	done <<< "$*"
}

# Seconds since boot at the last result: a failure shows the kernel
# messages that came after it
ktap_since=0

ktap_mark()
{
	ktap_since=$(cut -d' ' -f1 /proc/uptime 2>/dev/null || echo 0)
}

# klog_since: the kernel messages since the last result
klog_since()
{
	dmesg 2>/dev/null | awk -v t="$ktap_since" '
		match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
			ts = substr($0, 2, RLENGTH - 2) + 0
			if (ts > t + 0)
				print
		}'
}

# ktap_klog: the kernel messages since the last result (the last 25),
# as diagnostics; nothing when the log cannot be read
ktap_klog()
{
	local lines

	lines=$(klog_since | tail -n 25)
	[ -z "$lines" ] || ktap_diag "kernel log since the last result:
$lines"
}

# ktap_took: how long the case took, when that was 5 s or more: the
# batch has to fit in CI's time, and this shows where it goes
ktap_took()
{
	local now

	now=$(cut -d' ' -f1 /proc/uptime 2>/dev/null) || return 0
	awk -v a="$ktap_since" -v b="$now" \
		'BEGIN { if (a > 0 && b - a >= 5) printf "# took %.0f s\n", b - a }'
}

ktap_ok()
{
	ktap_took
	ktap_nr=$((ktap_nr + 1))
	ktap_pass=$((ktap_pass + 1))
	echo "ok $ktap_nr $1"
	ktap_mark
}

# A test may define ktap_fail_hook: what else a failed case shows
ktap_not_ok()
{
	ktap_took
	ktap_klog
	declare -F ktap_fail_hook > /dev/null && ktap_fail_hook
	ktap_nr=$((ktap_nr + 1))
	ktap_fail=$((ktap_fail + 1))
	echo "not ok $ktap_nr $1"
	ktap_mark
}

# ktap_result NAME STATUS: ok when STATUS is 0
ktap_result()
{
	if [ "$2" -eq 0 ]; then
		ktap_ok "$1"
	else
		ktap_not_ok "$1"
	fi
}

ktap_skip()
{
	ktap_nr=$((ktap_nr + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_nr $1 # SKIP $2"
}

ktap_skip_all()
{
	echo "TAP version 13"
	echo "1..0 # SKIP $1"
	exit $KSFT_SKIP
}

# ktap_fail_all REASON: the program fails before its first case
ktap_fail_all()
{
	echo "TAP version 13"
	echo "1..1"
	echo "# $1"
	echo "not ok 1 setup"
	exit $KSFT_FAIL
}

ktap_finish()
{
	echo "# Totals: pass:$ktap_pass fail:$ktap_fail xfail:0 xpass:0 skip:$ktap_skipped error:0"
	if [ $ktap_fail -gt 0 ]; then
		exit $KSFT_FAIL
	fi
	if [ $ktap_pass -eq 0 ] && [ $ktap_skipped -gt 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# stop_bg: kill what track() recorded, and reap it
stop_bg()
{
	local p

	for p in "${bg_pids[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	for p in "${bg_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	bg_pids=()
}

cleanup()
{
	stop_bg
	[ -n "$tmp_dir" ] && rm -rf "$tmp_dir"
}

setup_common()
{
	trap cleanup EXIT
	trap 'exit 1' INT TERM
	tmp_dir=$(mktemp -d /tmp/smc-selftest.XXXXXX)
}

# Track a background process so that it is killed on exit.
track()
{
	bg_pids+=("$1")
}

# Prefix for commands that must run over AF_SMC: "${SMC[@]}" CMD ARGS.
# It is a plain command (smc_run execs CMD), so "$!" of a background
# "${SMC[@]}" CMD is the pid of CMD itself.  Empty with SMC_TEST_INET=1.
if [ "$SMC_TEST_INET" = 1 ]; then
	SMC=()
else
	SMC=("$SMC_RUN")
fi

require_tools()
{
	local t

	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || ktap_skip_all "$t not installed"
	done
}

# Check that the AF_SMC pieces the tests depend on are usable.
require_smc()
{
	[ "$SMC_TEST_INET" = 1 ] && return 0
	[ -x "$SMC_PATH" ] || ktap_skip_all "smc_path not built (run make)"
	[ -f "$REPO/tools/net/smc/libsmc-preload.so" ] ||
		ktap_skip_all "libsmc-preload.so not built (run make)"
	if ! "$SMC_PATH" -a 2>/dev/null; then
		# our module loaded but unusable is a failure, not a skip
		if [ -d /sys/module/smc ]; then
			echo "TAP version 13"
			echo "1..1"
			echo "# socket(AF_SMC) fails although smc is loaded"
			echo "not ok 1 setup"
			exit $KSFT_FAIL
		fi
		ktap_skip_all "AF_SMC sockets not available"
	fi
	if ! "$SMC_PATH" -c >/dev/null 2>&1; then
		if [ -d /sys/module/smc_diag ]; then
			echo "TAP version 13"
			echo "1..1"
			echo "# smc_diag dump fails although smc_diag is loaded"
			echo "not ok 1 setup"
			exit $KSFT_FAIL
		fi
		ktap_skip_all "smc_diag not available"
	fi
}

# port_used PORT: a TCP socket of this netns has PORT as its own
port_used()
{
	local f hex sl local_addr rest

	printf -v hex '%04X' "$1"
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		while read -r sl local_addr rest; do
			[ "${local_addr##*:}" = "$hex" ] && return 0
		done < "$f"
	done
	return 1
}

# A TCP port of the ephemeral range that no socket of this netns uses
# right now, never the same twice in one test (the last one handed out
# is kept in tmp_dir).  Builtins only: on the debug kernel one python3
# costs seconds, and tests take a port per connection.
free_port()
{
	local lo hi p="" last=${tmp_dir:+$tmp_dir/.last_port}

	read -r lo hi < /proc/sys/net/ipv4/ip_local_port_range
	[ -n "$last" ] && [ -r "$last" ] && read -r p < "$last"
	[ -n "$p" ] || p=$((lo + SRANDOM % (hi - lo)))
	while p=$((p >= hi ? lo : p + 1)); port_used "$p"; do :; done
	[ -z "$last" ] || echo "$p" > "$last"
	echo "$p"
}

# xfer_pair DIR NAME SRV_ADDR SEED BYTES SECS: one smc_xfer pair to
# SRV_ADDR, BYTES each way from SEED, on the path SMC_EXPECT_PATH names
# (default any), each end bounded by SECS; the ends' output in
# DIR/NAME.srv and DIR/NAME.cli.  0 when both verified what they read.
xfer_pair()
{
	local d=$1 name=$2 port spid rc=0

	mkdir -p "$d"
	port=$(free_port)
	SMC_EXPECT_PATH=${SMC_EXPECT_PATH:-any} "$HERE/smc_xfer" -s "$3" \
		"$port" -S "$4" -n "$5" -m "$5" -t "$6" -r "$d/$name.ready" \
		> "$d/$name.srv" 2>&1 &
	spid=$!
	wait_until 30 test -e "$d/$name.ready" || { kill "$spid"; return 1; }
	SMC_EXPECT_PATH=${SMC_EXPECT_PATH:-any} timeout $(($6 * 2)) \
		"$HERE/smc_xfer" -c "$3" \
		"$port" -S "$4" -n "$5" -m "$5" -t "$6" > "$d/$name.cli" 2>&1 ||
		rc=1
	wait "$spid" || rc=1
	rm -f "$d/$name.ready"
	return $rc
}

# nap: sleep 0.1 s without a process.  On the debug kernel a fork and
# exec cost a good part of a second, more than the nap itself; a read
# with a timeout on a pipe that no one writes costs neither.
exec {nap_fd}<> <(:)
nap()
{
	read -r -t 0.1 -u "$nap_fd"
	return 0
}

# wait_exactly TIMEOUT_S CMD...: poll CMD every 0.1 s for TIMEOUT_S,
# whatever the kernel's speed: for a bound that is part of what a test
# asserts (a timer's length plus its slack, the slack scaled by the
# caller).
wait_exactly()
{
	local end=$((SECONDS + $1))

	shift
	while ! "$@" >/dev/null 2>&1; do
		[ $SECONDS -ge $end ] && return 1
		nap
	done
	return 0
}

# wait_until TIMEOUT_S CMD...: as wait_exactly, but TIMEOUT_S bounds a
# hang, the time Debian's kernel may take: a slower one gets that many
# times more (SMC_TEST_SLOWDOWN).
wait_until()
{
	local tmo=$(($1 * SMC_TEST_SLOWDOWN))

	shift
	wait_exactly "$tmo" "$@"
}

# pid_gone PID: PID has exited (a zombie or no process)
pid_gone()
{
	local st

	st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)
	[ -z "$st" ] || [ "$st" = Z ]
}

# wait_gone TIMEOUT_S PID: reap PID with its status if it ends within
# wait_until's bound, else kill it and fail (a wait for a process that
# may hang must never be unbounded).
wait_gone()
{
	if ! wait_until "$1" pid_gone "$2"; then
		kill -9 "$2" 2>/dev/null
		wait "$2" 2>/dev/null
		return 1
	fi
	wait "$2"
}

port_listening()
{
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# Number of AF_SMC sockets held by PID (0 with SMC_TEST_INET=1).
smc_sockets_of()
{
	"$SMC_PATH" -p "$1" -c 2>/dev/null || echo 0
}

# path_ok PID: PID holds at least one connected AF_SMC socket and all of
# its connected AF_SMC sockets took the expected path.
path_ok()
{
	[ "$SMC_TEST_INET" = 1 ] && return 0
	"$SMC_PATH" -p "$1" -e >/dev/null 2>&1
}

# check_path_while_up NAME PID TIMEOUT: wait for PID's connections to be
# visible with the expected path; prints diagnostics on failure.
check_path_while_up()
{
	local name=$1 pid=$2 tmo=${3:-10}

	if wait_until "$tmo" path_ok "$pid"; then
		[ "$SMC_TEST_INET" = 1 ] ||
			ktap_diag "$name: $("$SMC_PATH" -p "$pid" | head -n 3)"
		return 0
	fi
	ktap_diag "$name (pid $pid): no connected AF_SMC socket with the expected path"
	ktap_diag "$("$SMC_PATH" -p "$pid" -e 2>&1 | head -n 5)"
	ktap_diag "process: $(ps -o pid=,stat=,args= -p "$pid" 2>&1 | cut -c1-120)"
	ktap_diag "all AF_SMC sockets: $("$SMC_PATH" 2>&1 | head -n 8)"
	return 1
}

# Wait until no AF_SMC sockets beyond BASE remain (settle after close).
smc_settled()
{
	local base=$1 n

	[ "$SMC_TEST_INET" = 1 ] && return 0
	n=$("$SMC_PATH" -c 2>/dev/null) || return 1
	[ "$n" -le "$base" ]
}

# smc_tcp_option: TCP's handshake carries the SMC option.  Not on a
# kernel without CONFIG_SMC (Debian's 7.x), where only servers of this
# host are reached, without CLC (module parameter tcp_option)
smc_tcp_option()
{
	[ "$(cat /sys/module/smc/parameters/tcp_option 2>/dev/null)" != N ]
}

smc_count()
{
	if [ "$SMC_TEST_INET" = 1 ]; then
		echo 0
	else
		"$SMC_PATH" -c 2>/dev/null || echo 0
	fi
}

# reload_smc ARGS: reinsert smc.ko (and smc_diag.ko) from SMC_MODULE_DIR
# with module ARGS, SMC-D negotiation on
reload_smc()
{
	local end=$((SECONDS + 20))

	while [ -d /sys/module/smc ]; do
		[ -d /sys/module/smc_diag ] && rmmod smc_diag 2>/dev/null
		rmmod smc 2>/dev/null && break
		[ $SECONDS -ge $end ] && { ktap_diag "rmmod smc failed"; return 1; }
		sleep 0.2
	done
	# shellcheck disable=SC2086
	insmod "$SMC_MODULE_DIR/smc.ko" $1 || return 1
	if [ -f "$SMC_MODULE_DIR/smc_diag.ko" ]; then
		insmod "$SMC_MODULE_DIR/smc_diag.ko" || return 1
	fi
	echo 1 > /sys/module/smc/parameters/smcd
}

# mount_debugfs: /sys/kernel/debug, where the module shows device state
mount_debugfs()
{
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs \
			debugfs /sys/kernel/debug
}

# in_ns NS CMD...: run CMD in network namespace NS ("" for this one)
in_ns()
{
	local ns=$1

	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# veth_join NS1 DEV1 ADDR1 NS2 DEV2 ADDR2: a veth pair DEV1/DEV2, one end
# in each namespace, with its address (ADDR/prefix length), up
veth_join()
{
	ip link add "$2" type veth peer name "$5" || return 1
	ip link set "$2" netns "$1" || return 1
	ip link set "$5" netns "$4" || return 1
	ip -n "$1" addr add "$3" dev "$2" || return 1
	ip -n "$4" addr add "$6" dev "$5" || return 1
	ip -n "$1" link set "$2" up || return 1
	ip -n "$4" link set "$5" up
}

LO_ISM=/sys/kernel/debug/smc/loopback-ism

# lo_ism: "registered attached" DMB counts of loopback-ism, or nothing
lo_ism()
{
	[ -r "$LO_ISM" ] || return 1
	awk '$1 == "dmbs_registered" { r = $2 } $1 == "dmbs_attached" { a = $2 }
	     END { if (r == "" || a == "") exit 1; print r, a }' "$LO_ISM"
}

# lo_ism_settled: the counts are back at $lo_base
lo_ism_settled()
{
	[ "$(lo_ism)" = "$lo_base" ]
}

# ns_cmd NS: NS_CMD, the prefix that runs a program in NS ("" for this
# one); "ip netns exec" execs it, so "$!" of a background run is its pid
ns_cmd()
{
	NS_CMD=()
	[ -n "$1" ] && NS_CMD=(ip netns exec "$1")
}

# xfer_up NAME SRV_NS CLI_NS LISTEN_ADDR CONNECT_ADDR ARGS...: an smc_xfer
# server (ARGS added) in SRV_NS and its client in CLI_NS ("" is this
# namespace), held once connected, each end's path checked from its own
# namespace.  Sets XFER_DIR, XFER_PORT, XFER_SPID, XFER_CPID, and
# XFER_UP=1 once both ends hold the connection.  Returns 0,
# 1 when a check failed, 2 when there is no connection to finish.
xfer_up()
{
	local name=$1 sns=$2 cns=$3 laddr=$4 caddr=$5 seed=$RANDOM rc=0
	local d=$tmp_dir/$1

	shift 5
	XFER_DIR=$d XFER_PORT=$(free_port) XFER_CPID= XFER_UP=
	mkdir -p "$d"
	ns_cmd "$sns"
	"${NS_CMD[@]}" "$HERE/smc_xfer" -s "$laddr" "$XFER_PORT" -S "$seed" \
		-r "$d/ready" -H "$d/hold-s" "$@" > "$d/srv.out" 2>&1 &
	XFER_SPID=$!
	track $XFER_SPID
	if ! wait_until 30 test -e "$d/ready"; then
		ktap_diag "$name: server did not start: $(cat "$d/srv.out")"
		return 2
	fi
	ns_cmd "$cns"
	"${NS_CMD[@]}" "$HERE/smc_xfer" -c "$caddr" "$XFER_PORT" -S "$seed" \
		-H "$d/hold-c" "$@" > "$d/cli.out" 2>&1 &
	XFER_CPID=$!
	track $XFER_CPID
	if ! wait_until 30 test -e "$d/hold-s" -a -e "$d/hold-c"; then
		ktap_diag "$name: no connection: $(cat "$d/srv.out" "$d/cli.out")"
		return 1
	fi
	XFER_UP=1
	if ! in_ns "$sns" "$SMC_PATH" -p $XFER_SPID -e > "$d/path-s" 2>&1; then
		ktap_diag "$name: server path from its netns: $(cat "$d/path-s")"
		rc=1
	fi
	if ! in_ns "$cns" "$SMC_PATH" -p $XFER_CPID -e > "$d/path-c" 2>&1; then
		ktap_diag "$name: client path from its netns: $(cat "$d/path-c")"
		rc=1
	fi
	return $rc
}

# xfer_done: let the pair xfer_up held do its transfer; 0 when both ends
# verified what they received
xfer_done()
{
	local rc=0

	rm -f "$XFER_DIR/hold-s" "$XFER_DIR/hold-c"
	if [ -n "$XFER_CPID" ]; then
		wait $XFER_CPID || rc=1
	fi
	wait $XFER_SPID || rc=1
	return $rc
}
