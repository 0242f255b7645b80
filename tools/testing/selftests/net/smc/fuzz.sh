#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of make fuzz (tools/testing/vm/fuzz): random system
# calls, a mutating peer and dumps, racing each other on the module for
# FUZZ_MINUTES, in segments of FUZZ_SEGMENT minutes that take turns:
#
#   smcd  SMC-D (loopback-ism) and its rendezvous; SMC-D negotiation on
#     calls    smc_fuzz as root of a user and network namespace of its
#              own, which uid 65534 made (what any user can do)
#     trinity  Debian's trinity on AF_SMC sockets, the same way
#     clc      hostile_peer mutate: CLC messages changed in flight, as
#              client and as server, against AF_SMC listeners and clients
#     churn    SMC connections whose data is checked (SHA-256)
#   smcr  SMC-R over the two rxe devices of smcr_topo.sh, SMC-D off
#     calls    smc_fuzz as uid 65534 (rxe lives in init_net), on the
#              bed's addresses too
#     trinity  the same as uid 65534
#     mutate   debugfs smcr-mutate: A's groups of one role (client,
#              then server) send CDC and LLC messages changed in flight;
#              connections on them run under it, connections the other
#              way (A's groups of the other role) must stay intact
#   both  dumps: smc -j of every object, sock_diag, debugfs, while
#         module parameters and sysctls flip and the user EIDs, the
#         system EID and PNET IDs of the loopback device change
#
# A segment's finding: a kernel report in dmesg, a taint, an engine that
# says HANG or cannot be killed, data that arrived wrong, sockets or
# DMBs that are not given back.  At the end, smc and smc_diag must unload
# and kmemleak must find nothing.  The first finding stops the run.
#
# Env: FUZZ_SEED (default: random), FUZZ_MINUTES (30), FUZZ_SEGMENT (5),
# FUZZ_FIRST (the first segment to run: replays one), FUZZ_KINDS
# ("smcd smcr"), FUZZ_ENGINES (all: calls trinity clc churn mutate dumps).
# Every engine of segment K takes its seed from FUZZ_SEED and K, which
# each line of the KTAP output names.  Logs: $SMC_RESULTS/fuzz/.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

FUZZ_SEED=${FUZZ_SEED:-$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')}
FUZZ_MINUTES=${FUZZ_MINUTES:-30}
FUZZ_SEGMENT=${FUZZ_SEGMENT:-5}
FUZZ_FIRST=${FUZZ_FIRST:-0}
FUZZ_KINDS=${FUZZ_KINDS:-smcd smcr}
FUZZ_ENGINES=${FUZZ_ENGINES:-calls trinity clc churn mutate dumps}
OUT=${SMC_RESULTS:-/tmp}/fuzz
MUTATE=/sys/kernel/debug/smc/smcr-mutate
KMEMLEAK=/sys/kernel/debug/kmemleak
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
# trinity: the socket calls only, on AF_SMC sockets
TRINITY_CALLS="socket bind listen connect accept accept4 sendto sendmsg
	sendmmsg recvfrom recvmsg recvmmsg read write readv writev splice
	sendfile setsockopt getsockopt ioctl poll ppoll select epoll_create1
	epoll_ctl epoll_wait shutdown close dup fcntl getsockname getpeername"
KLOG_PAT='WARNING:|BUG:|Oops|KASAN|UBSAN:|refcount_t:|general protection|kernel BUG|ODEBUG:'
KLOG_PAT+='|possible circular locking|inconsistent lock state|suspicious RCU usage'
KLOG_PAT+='|blocked for more than|hung_task|RCU stall|self-detected stall'
KLOG_PAT+='|DEBUG_LOCKS_WARN_ON|list_add corruption|list_del corruption'

engine_on() { [[ " $FUZZ_ENGINES " == *" $1 "* ]]; }

# seg_seed K: the seed of segment K, from FUZZ_SEED
seg_seed()
{
	local h

	h=$(printf '%s:%s' "$FUZZ_SEED" "$1" | sha256sum)
	echo $((16#${h:0:12}))
}

# ns_root CMD...: CMD as root of a new user and network namespace made
# by uid 65534, loopback up
ns_root()
{
	"${NOBODY[@]}" unshare -Urn -- sh -c 'ip link set lo up && exec "$@"' \
		fuzz-ns "$@"
}

# The engines: each runs in the background until its deadline, logs to
# $seg_dir/NAME.log and leaves its exit status in $seg_dir/NAME.rc.
run_engine() # NAME CMD...
{
	local name=$1

	shift
	(
		"$@" > "$seg_dir/$name.log" 2>&1
		echo $? > "$seg_dir/$name.rc"
	) &
	engine_pids+=("$!")
	engine_names+=("$name")
}

eng_calls() # SEED SECS
{
	# -l -: the log on stdout, which root opened (uid 65534 may not)
	local args=(-s "$1" -t "$2" -j 4 -f -l -)

	# a call that neither ends nor gives way to signals for this long
	export SMC_FUZZ_HANG_S=$((30 * SMC_TEST_SLOWDOWN))

	if [ "$kind" = smcd ]; then
		ns_root "$HERE/smc_fuzz" "${args[@]}"
	else
		"${NOBODY[@]}" "$HERE/smc_fuzz" "${args[@]}" -P smc \
			-a "$SMCR_A" -a "$SMCR_B"
	fi
}

eng_trinity() # SEED SECS
{
	local c calls=()

	for c in $TRINITY_CALLS; do
		calls+=(-c "$c")
	done
	# trinity writes its per-child logs to the current directory
	mkdir -p "$tmp_dir/trinity$seg" && chmod 0777 "$tmp_dir/trinity$seg"
	cd "$tmp_dir/trinity$seg" || return 1
	# in its namespace trinity is root: --dangerous lets it run so
	if [ "$kind" = smcd ]; then
		timeout -s KILL "$2" "${NOBODY[@]}" unshare -Urn -- sh -c \
			'ip link set lo up && exec "$@"' fuzz-ns \
			trinity --dangerous -q -P SMC -s "$1" -C 4 \
			--disable-fds=pipes,perf,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm \
			"${calls[@]}"
	else
		timeout -s KILL "$2" "${NOBODY[@]}" trinity -q -P SMC -s "$1" \
			-C 4 \
			--disable-fds=pipes,perf,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm \
			"${calls[@]}"
	fi
	# killed at its deadline, as planned
	[ $? = 137 ] && return 0
	return 1
}

eng_clc() # SEED SECS
{
	# the other engines' sockets and DMBs come and go meanwhile: the
	# segment checks both once every engine has ended (check_settled)
	HOSTILE_MUTATE_SHARED=1 "$HERE/hostile_peer" mutate "$1" "$2"
}

# xfer_once NAME SRV_ADDR CLI_SEED BYTES: one smc_xfer pair, data
# checked, any path; 0 when both ends verified what they read
xfer_once()
{
	local d=$seg_dir/xfer

	xfer_pair "$d" "$@" 60 && return 0
	cat "$d/$1.srv" "$d/$1.cli"
	return 1
}

eng_churn() # SEED SECS
{
	local end=$((SECONDS + $2)) n=0 bytes

	while [ $SECONDS -lt $end ]; do
		bytes=$(( (RANDOM * 32768 + RANDOM) % (4 << 20) + 1 ))
		xfer_once "churn$n" 127.0.0.1 "$(( $1 + n ))" "$bytes" ||
			{ echo "churn $n: data or connection wrong"; return 1; }
		n=$((n + 1))
	done
	echo "churn: $n connections, data intact"
}

# A's groups of one role (client, then server in the next SMC-R
# segment) mutate what they send: transfers on them run under it (any
# outcome: both ends have their own bounds), transfers the other way,
# on A's groups of the other role, must stay intact
eng_mutate() # SEED SECS
{
	local end=$((SECONDS + $2)) n=0 rc=0 bytes stats role=client
	local hostile=$SMCR_B honest=$SMCR_A

	if [ $(( seg / 2 % 2 )) = 1 ]; then
		role=server hostile=$SMCR_A honest=$SMCR_B
	fi
	# from 1 in 100 messages, which lets connections live a while, to 1 in 12
	echo "$1 $((10 + $1 % 71)) $SMCR_RXEA $role" > "$MUTATE" || return 1
	while [ $SECONDS -lt $end ]; do
		bytes=$(( (RANDOM * 32768 + RANDOM) % (1 << 20) + 1 ))
		xfer_once "hostile$n" "$hostile" "$(( $1 + n ))" "$bytes" \
			> /dev/null 2>&1
		if ! xfer_once "honest$n" "$honest" "$(( $1 + n ))" "$bytes"; then
			echo "honest $n: to $honest, not under A's $role groups, was hurt"
			rc=1
			break
		fi
		n=$((n + 1))
	done
	stats=$(cat "$MUTATE")
	echo off > "$MUTATE"
	echo "$stats"
	if ! grep -q '^seen [1-9]' <<< "$stats"; then
		echo "mutate: no message went out on A's client links"
		rc=1
	fi
	echo "mutate: $n pairs"
	return $rc
}

# table_write: one random change to the netns's EID and PNET tables
# through the smc tool's netlink, racing the handshakes that read them.
# Only entries of our own names: the SMC-R bed's PNET IDs (SIDEA,
# SIDEB) stay; an EID both ends share keeps every path open.
table_write()
{
	local eid=FUZZ-EID-$((RANDOM % 6)) pnet=FUZZ$((RANDOM % 3))

	case $((RANDOM % 7)) in
	0|1) "$SMC_TOOL" ueid add "$eid" ;;
	2) "$SMC_TOOL" ueid del "$eid" ;;
	3) "$SMC_TOOL" seid disable ;;
	4) "$SMC_TOOL" seid enable ;;
	5) "$SMC_TOOL" pnet add "$pnet" dev lo ;;
	6) "$SMC_TOOL" pnet del "$pnet" ;;
	esac > /dev/null 2>&1
}

# table_restore: what table_write may have left
table_restore()
{
	local i

	for i in 0 1 2 3 4 5; do
		"$SMC_TOOL" ueid del "FUZZ-EID-$i"
	done > /dev/null 2>&1
	for i in 0 1 2; do
		"$SMC_TOOL" pnet del "FUZZ$i"
	done > /dev/null 2>&1
	"$SMC_TOOL" seid enable > /dev/null 2>&1
}

# dumps, with parameters, sysctls and tables changing under them
eng_dumps() # SEED SECS
{
	local end=$((SECONDS + $2)) n=0 o p v
	local params=(smcd_rendezvous) knob
	local sysctls=("autocorking_size 0 65536 1048576"
		"smcr_buf_type 0 1 2" "wmem 16384 65536 262144"
		"rmem 16384 65536 262144" "limit_smc_hs 0 1"
		"smcr_testlink_time 1 30 0" "smcr_max_conns_per_lgr 16 255")

	RANDOM=$(( $1 % 32768 ))
	[ "$kind" = smcd ] && params+=(smcd)
	while [ $SECONDS -lt $end ]; do
		for o in info dev lgr stats sock pnet ueid seid; do
			"$SMC_TOOL" -j "$o" > /dev/null 2>&1
		done
		"$SMC_PATH" -c > /dev/null 2>&1
		ss -tani > /dev/null 2>&1
		cat /sys/kernel/debug/smc/* > /dev/null 2>&1
		p=${params[RANDOM % ${#params[@]}]}
		echo $((RANDOM % 2)) > "/sys/module/smc/parameters/$p" 2>/dev/null
		read -r -a knob <<< "${sysctls[RANDOM % ${#sysctls[@]}]}"
		v=${knob[1 + RANDOM % (${#knob[@]} - 1)]}
		sysctl -qw "net.smc.${knob[0]}=$v" 2>/dev/null
		table_write
		n=$((n + 1))
	done
	echo "dumps: $n rounds"
}

# restore what the dumps flipped
restore_knobs()
{
	echo "$saved_rdv" > /sys/module/smc/parameters/smcd_rendezvous
	echo "$saved_smcd" > /sys/module/smc/parameters/smcd
	sysctl -q -p "$tmp_dir/sysctl.saved" > /dev/null 2>&1
	table_restore
	[ ! -w "$MUTATE" ] || echo off > "$MUTATE"
}

# klog_new: kernel reports since the segment began
klog_new()
{
	dmesg | awk -v t="$seg_t0" 'match($0, /^\[ *[0-9]+\.[0-9]+\]/) {
		if (substr($0, 2, RLENGTH - 2) + 0 > t + 0) print }' |
		grep -E "$KLOG_PAT"
}

# finding WHAT: record it for the segment
finding()
{
	echo "# FINDING: $*"
	findings+=("$*")
}

# stop_engines: each engine past its deadline is killed; one that stays
# is stuck in the kernel
stop_engines()
{
	local i pid end=$((SECONDS + 60 * SMC_TEST_SLOWDOWN))

	for i in "${!engine_pids[@]}"; do
		pid=${engine_pids[$i]}
		while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do
			sleep 1
		done
		kill -0 "$pid" 2>/dev/null || continue
		pkill -KILL -P "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
	done
	sleep 5
	for i in "${!engine_pids[@]}"; do
		pid=${engine_pids[$i]}
		if kill -0 "$pid" 2>/dev/null; then
			finding "${engine_names[$i]}: not gone 5 s after SIGKILL"
			echo w > /proc/sysrq-trigger 2>/dev/null
		fi
		wait "$pid" 2>/dev/null
	done
	# children the engines left (trinity's, smc_fuzz's forks)
	pkill -KILL -u 65534 2>/dev/null
	pkill -KILL -x trinity 2>/dev/null
}

check_engines()
{
	local i name rc

	for i in "${!engine_names[@]}"; do
		name=${engine_names[$i]}
		rc=$(cat "$seg_dir/$name.rc" 2>/dev/null || echo killed)
		case "$rc" in
		0|4) ;;
		*) finding "$name: exit $rc: $(tail -n 5 "$seg_dir/$name.log" | tr '\n' ' ')" ;;
		esac
	done
}

# settle: the segment's sockets and DMBs go back
check_settled()
{
	local bound=$((90 * SMC_TEST_SLOWDOWN))

	if ! wait_until "$bound" smc_settled "$smc_base"; then
		finding "$(smc_count) AF_SMC sockets $bound s after the segment, $smc_base before"
		"$SMC_TOOL" sock 2>&1 | head -n 40 | sed 's/^/# /'
	fi
	if [ -n "$lo_base" ] && ! wait_until 30 lo_ism_settled; then
		finding "loopback-ism DMBs: $(lo_ism), $lo_base before"
	fi
}

check_taint()
{
	local t

	t=$(cat /proc/sys/kernel/tainted)
	# 4096 (O, out of tree) and 8192 (E, unsigned) are ours by design
	if [ $(( t & ~(4096 | 8192) )) != $(( taint0 & ~(4096 | 8192) )) ]; then
		finding "kernel tainted: $taint0 -> $t"
	fi
}

save_segment()
{
	local f

	for f in "$tmp_dir/trinity$seg"/*; do
		[ -f "$f" ] || continue
		tail -n 400 "$f" > "$seg_dir/trinity-$(basename "$f").tail"
	done
	[ ! -r "$MUTATE" ] || cat "$MUTATE" > "$seg_dir/smcr-mutate" 2>/dev/null
	dmesg > "$seg_dir/dmesg.txt"
	{
		echo "FUZZ_SEED=$FUZZ_SEED"
		echo "segment $seg kind $kind seed $sseed"
		printf '%s\n' "${findings[@]}"
	} > "$seg_dir/FINDING"
}

run_segment() # SECS
{
	local secs=$1 e i=0 klog until

	seg_dir=$OUT/seg$seg-$kind
	rm -rf "$seg_dir" && mkdir -p "$seg_dir"
	engine_pids=() engine_names=() findings=()
	seg_t0=$(cut -d' ' -f1 /proc/uptime)
	smc_base=$(smc_count)
	lo_base=$(lo_ism)
	for e in calls trinity clc churn mutate dumps; do
		i=$((i + 1))
		engine_on "$e" || continue
		case "$kind:$e" in
		smcr:clc|smcr:churn|smcd:mutate) continue ;;
		esac
		[ "$e" != trinity ] || [ "$have_trinity" = 1 ] || continue
		run_engine "$e" "eng_$e" "$((sseed + i))" "$secs"
	done
	ktap_diag "segment $seg ($kind, seed $sseed): ${engine_names[*]}, $secs s"
	# each engine ends at its deadline, or finishes the transfer it is
	# in; one that does not within the bound is stopped (and said so)
	until=$((SECONDS + secs + 120 * SMC_TEST_SLOWDOWN))
	while [ $SECONDS -lt $until ]; do
		for e in "${engine_pids[@]}"; do
			kill -0 "$e" 2>/dev/null && break
		done
		kill -0 "$e" 2>/dev/null || break
		sleep 2
	done
	stop_engines
	restore_knobs
	check_engines
	klog=$(klog_new)
	[ -z "$klog" ] || finding "kernel log: $(head -n 3 <<< "$klog")"
	check_taint
	check_settled
	klog=$(klog_new)
	[ -z "$klog" ] || [[ "${findings[*]}" == *"kernel log"* ]] ||
		finding "kernel log: $(head -n 3 <<< "$klog")"
	for e in "${engine_names[@]}"; do
		grep -hE '^(smc_fuzz|mutate|churn|dumps|mutate):' \
			"$seg_dir/$e.log" 2>/dev/null | tail -n 2 | sed 's/^/# /'
	done
	[ ${#findings[@]} = 0 ]
}

# trinity_probe: trinity runs 2000 socket calls on AF_SMC sockets, in
# the namespaces of its engine.  Debian's 1.9 (2023) ends in SIGSEGV in
# its own code before it makes any: its table of protocols by family
# (net_protocols) holds an entry that is not a pointer, which its pick of
# a random protocol reads.  It runs only where it survives its start.
trinity_probe()
{
	local d=$tmp_dir/trinity-probe rc

	trinity_why="not installed"
	command -v trinity > /dev/null || return 1
	mkdir -p "$d" && chmod 0777 "$d"
	(cd "$d" && timeout -s KILL $((60 * SMC_TEST_SLOWDOWN)) \
		"${NOBODY[@]}" unshare -Urn -- sh -c \
		'ip link set lo up && exec "$@"' fuzz-ns \
		trinity --dangerous -q -P SMC -s 1 -C 1 -N 2000 \
		-c socket -c setsockopt > out 2>&1)
	rc=$?
	[ $rc = 0 ] && return 0
	trinity_why="its probe ended with status $rc ($( [ $rc = 139 ] &&
		echo "SIGSEGV in trinity itself" || tail -n 1 "$d/out"))"
	return 1
}

# --- setup
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools setpriv unshare ip ss sysctl sha256sum
require_smc
mount_debugfs
setup_common
# uid 65534's engines reach their directories below it
chmod 0711 "$tmp_dir"
mkdir -p "$OUT"
have_trinity=0 trinity_why="not among FUZZ_ENGINES"
! engine_on trinity || ! trinity_probe || have_trinity=1
[ -x "$HERE/smc_fuzz" ] || ktap_skip_all "smc_fuzz not built"
nseg=$(( (FUZZ_MINUTES + FUZZ_SEGMENT - 1) / FUZZ_SEGMENT ))
# the segments, then the unload and kmemleak
ktap_header $((nseg - FUZZ_FIRST + 2))
ktap_diag "FUZZ_SEED=$FUZZ_SEED FUZZ_MINUTES=$FUZZ_MINUTES FUZZ_SEGMENT=$FUZZ_SEGMENT" \
	"engines: $FUZZ_ENGINES"
[ "$have_trinity" = 1 ] || ! engine_on trinity ||
	ktap_diag "trinity: its engine is left out: $trinity_why"
saved_rdv=$(cat /sys/module/smc/parameters/smcd_rendezvous)
saved_smcd=$(cat /sys/module/smc/parameters/smcd)
sysctl -a 2>/dev/null | grep '^net\.smc\.' | sed 's/ = /=/' > "$tmp_dir/sysctl.saved"
# hangs: the detector on (the debug kernel builds it in, off)
[ ! -w /proc/sys/kernel/hung_task_timeout_secs ] ||
	echo $((60 * SMC_TEST_SLOWDOWN)) > /proc/sys/kernel/hung_task_timeout_secs
sysctl -qw net.ipv4.tcp_fin_timeout=10
# the user namespaces of uid 65534
sysctl -qw kernel.unprivileged_userns_clone=1 2>/dev/null
sysctl -qw user.max_user_namespaces=10000 2>/dev/null
taint0=$(cat /proc/sys/kernel/tainted)
# leaks of the run only: what boot left is known already
if [ -w "$KMEMLEAK" ]; then
	echo scan > "$KMEMLEAK"
	echo clear > "$KMEMLEAK"
fi
bed=0
failed=0

for ((seg = FUZZ_FIRST; seg < nseg; seg++)); do
	set -- $FUZZ_KINDS
	shift $((seg % $#))
	kind=$1
	sseed=$(seg_seed "$seg")
	left=$(( FUZZ_MINUTES * 60 - (seg - FUZZ_FIRST) * FUZZ_SEGMENT * 60 ))
	secs=$(( left < FUZZ_SEGMENT * 60 ? left : FUZZ_SEGMENT * 60 ))
	if [ "$kind" = smcr ]; then
		if [ $bed = 0 ]; then
			trap smcr_topo_cleanup EXIT
			if modinfo rdma_rxe > /dev/null 2>&1 && smcr_topo_up; then
				bed=1
			else
				bed=2
			fi
		fi
		if [ $bed != 1 ]; then
			ktap_skip "segment $seg (smcr, seed $sseed)" "the rxe bed does not come up"
			continue
		fi
		echo N > /sys/module/smc/parameters/smcd
	else
		echo Y > /sys/module/smc/parameters/smcd
	fi
	if run_segment "$secs"; then
		ktap_ok "segment $seg ($kind, seed $sseed): no finding"
	else
		save_segment
		seg_what="segment $seg ($kind, seed $sseed): ${#findings[@]} finding(s)"
		ktap_not_ok "$seg_what; replay: FUZZ_SEED=$FUZZ_SEED FUZZ_FIRST=$seg"
		failed=1
		break
	fi
done
# after a finding, the rest is not run: the kernel may be hurt
for ((seg++; seg < nseg; seg++)); do
	ktap_skip "segment $seg" "stopped at the first finding"
done
echo "$saved_smcd" > /sys/module/smc/parameters/smcd
[ $bed = 0 ] || smcr_topo_cleanup

# The module still unloads, and nothing leaked
findings=()
seg_t0=$(cut -d' ' -f1 /proc/uptime)
if [ $failed = 1 ]; then
	ktap_skip "unload after fuzzing" "stopped at the first finding"
	ktap_skip "kmemleak after fuzzing" "stopped at the first finding"
else
	rc=0
	reload_smc "" > "$OUT/reload.log" 2>&1 || rc=1
	[ -z "$(klog_new)" ] || rc=1
	ktap_result "smc and smc_diag unload and load again after fuzzing" $rc
	if [ -w "$KMEMLEAK" ]; then
		echo scan > "$KMEMLEAK"; sleep 6; echo scan > "$KMEMLEAK"
		cat "$KMEMLEAK" > "$OUT/kmemleak.txt"
		n=$(grep -c '^unreferenced object' "$OUT/kmemleak.txt")
		[ "$n" = 0 ] || head -n 40 "$OUT/kmemleak.txt" | sed 's/^/# /'
		ktap_result "kmemleak: $n unreferenced object(s)" "$n"
	else
		ktap_skip "kmemleak" "not in this kernel"
	fi
fi
ktap_finish
