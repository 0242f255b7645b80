#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the benchmark VM (tools/testing/bench/run): every
# benchmark over TCP, Unix sockets, our SMC-D, TCP with BPF sockmap
# redirection (sockmap_redir.c) and, where it was built, upstream's
# SMC-lo, swapping the smc module between the last two; then,
# where rdma_rxe is there, our SMC-R between two soft-RoCE devices on a
# veth pair (smcr_topo.sh) against TCP over the same pair.
# Writes one JSON object a line to $SMC_RESULTS/bench.jsonl; a run that
# fails or takes the wrong path is recorded as such, never dropped.
#
# Env: SMC_RESULTS (set by guest-run.sh), SMC_BENCH_QUICK=1 (small
# runs), SMC_BENCH_UPSTREAM (upstream's build), SMC_BENCH_SMCR=0 (no
# SMC-R part), SMC_BENCH_ONLY="PART..." (only these parts, of tcp, uds,
# smcd, sockmap, upstream-lo, smcr and upstream-smcr; default all),
# SMC_BENCH_SYSCTL="net.smc.X=V ..." (sysctls set before the SMC-R
# parts, e.g. net.smc.smcr_max_send_wr=64), SMC_BENCH_MODE (normal: the
# rows it judges, 64 KiB stream, ping-pong 14 B and iperf3, 5 times
# each for a median),
# SMC_BENCH_PROFILE=perf|insn (each run profiled, see prof_begin).
set -uo pipefail
export LC_ALL=C	# a dot in $EPOCHREALTIME

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=${SMC_RESULTS:?}/bench.jsonl
BENCH=$HERE/smcbench
SMC_RUN=$REPO/tools/net/smc/smc_run
# TCP's applications run one cgroup down too, as smc_run puts SMC's
CG_RUN=$HERE/cg_run
SMC_PATH=$REPO/tools/testing/selftests/net/smc/smc_path
SMCR_TOPO=$REPO/tools/testing/selftests/net/smc/smcr_topo.sh
SMCD_PARAM=/sys/module/smc/parameters/smcd
SOCKMAP=$HERE/sockmap_redir
SOCKMAP_CG=/sys/fs/cgroup/bench-sockmap
SOCKMAP_PIN=/sys/fs/bpf/bench_sockmap
REDIRECT=	# set in the sockmap part: every run's redirects are checked
UPSTREAM_DIR=${SMC_BENCH_UPSTREAM:-}
QUICK=${SMC_BENCH_QUICK:-0}
SMCR=${SMC_BENCH_SMCR:-1}
ONLY=${SMC_BENCH_ONLY:-}
SYSCTLS=${SMC_BENCH_SYSCTL:-}
MODE=${SMC_BENCH_MODE:-deterministic}
PROFILE=${SMC_BENCH_PROFILE:-0}
PROF_MARK=
[ "$PROFILE" != insn ] || PROF_MARK=1

say() { echo "[bench] $*"; }

# part NAME: NAME is to run (SMC_BENCH_ONLY empty or naming it)
part() {
	[ -z "$ONLY" ] || [[ " ${ONLY//,/ } " == *" $1 "* ]]
}

# failed PATHNAME WHAT: a part that could not run at all, recorded
failed() {
	printf '{"path":"%s","failed":true,"rc":-1,"args":"%s"}\n' \
		"$1" "$2" >> "$OUT"
}

# Sizes of the runs: fixed amounts of work, not durations, so that the
# deterministic mode repeats them exactly.  The normal mode, where a
# sender and a receiver run at once, is judged on the median of 5 runs
# (BULK_RUNS) of the bulk rows and of ping-pong 14 B, whose single runs
# there moved by a third between two boots; iperf3 runs IPERF_SECONDS
# each.
BULK_RUNS=1 IPERF_SECONDS=5
if [ "$QUICK" = 1 ]; then
	STREAM_BYTES=$((16 << 20)) PP_ROUNDS=500 CRR_COUNT=200 MEM_COUNT=100
	REDIS_N=1000 WRK_N=1000 IPERF_SECONDS=1
else
	STREAM_BYTES=$((256 << 20)) PP_ROUNDS=5000 CRR_COUNT=2000
	MEM_COUNT=1000 REDIS_N=20000 WRK_N=20000
	[ "$MODE" = normal ] && BULK_RUNS=5
fi

# In the normal mode TCP's and our SMC-D's further runs of those rows
# take turns (bulk_turns) instead of coming path after path: the host's
# load drifts, and TCP's median moved by a fifth between two boots of
# the same kernel, SMC-D's ratio with it.
TURNS=0
[ "$BULK_RUNS" -gt 1 ] && part tcp && part smcd && TURNS=1

# redir_begin: in the sockmap part, the redirect counters back to 0
redir_begin() {
	[ -z "$REDIRECT" ] || "$SOCKMAP" stats "$SOCKMAP_PIN" reset >/dev/null
}

# prof_begin NAME [OPS [inner]]: with SMC_BENCH_PROFILE=perf, samples
# of the whole system (perf record -a -g, cpu-clock: TCG has no hardware
# counters) while the run NAME goes; prof_end writes where the time
# went, by symbol and by object, to prof-NAME.txt.  A sampled run's rate
# carries perf's own cost: it shows where time goes, it is not a table
# figure.  With SMC_BENCH_PROFILE=insn (the deterministic mode under
# the insnprof plugin) the run is one phase of the plugin's exact
# instruction counts, which cost the guest nothing: the markers around
# it (with "inner", the run marks its measured part itself: smcbench
# --mark, or prof_mark) and, in insnprof-phases.txt, its number, OPS
# (the operations it ran, for the per-operation figures) and the
# kernel's symbols then.
PROF_PID= PROF_NAME= PROF_RAW= PROF_OPS= PROF_INNER= PROF_BY=
INSNMARK=$HERE/insnmark
prof_begin() {
	PROF_NAME=$(tr -c 'a-zA-Z0-9\n' _ <<< "$1" | tr -s _)
	PROF_RAW=$1 PROF_OPS=${2:-0} PROF_INNER=${3:-} PROF_BY=shell
	[ -z "$PROF_INNER" ] || PROF_BY=run
	case $PROFILE in
	insn)
		[ -n "$PROF_INNER" ] || "$INSNMARK" begin ;;
	perf|1)
		perf record -q -a -g -o "$SMC_RESULTS/prof-$PROF_NAME.data" \
			>/dev/null 2>"$SMC_RESULTS/prof-$PROF_NAME.err" &
		PROF_PID=$!
		# perf has its buffers mapped before its first sample
		sleep 1 ;;
	esac
}

# prof_mark begin|end: in an "inner" run, a marker from the shell
prof_mark() {
	[ "$PROFILE" != insn ] || "$INSNMARK" "$1"
	PROF_BY=shell
}

# prof_insn_end: the phase's line in insnprof-phases.txt, "N OPS SYMS BY
# NAME", SYMS naming the kallsyms-*.txt of the modules loaded then, BY
# who marked it: "shell" (insnmark, whose cost the report takes off, as
# measured by the baseline phase) or "run" (smcbench itself).  The
# plugin numbers the phases it saw end: a run that never reached its
# end marker has no insnprof.N, and takes no number.  The next number is
# the count of lines written: a part in a subshell (sockmap's) counts
# for the parts after it.
prof_insn_end() {
	local syms phase

	[ -n "$PROF_INNER" ] || "$INSNMARK" end
	phase=$(cat "$SMC_RESULTS/insnprof-phases.txt" 2>/dev/null | wc -l)
	if [ ! -f "$SMC_RESULTS/insnprof.$phase" ]; then
		say "no instruction profile of: $PROF_RAW"
		return
	fi
	# names and addresses only: use counts change with every socket
	syms=kallsyms-$(awk '{ print $1, $6 }' /proc/modules | md5sum |
		cut -c1-12).txt
	[ -f "$SMC_RESULTS/$syms" ] ||
		grep -E '^[0-9a-f]+ [tTwW] ' /proc/kallsyms > "$SMC_RESULTS/$syms"
	echo "$phase $PROF_OPS $syms $PROF_BY $PROF_RAW" \
		>> "$SMC_RESULTS/insnprof-phases.txt"
}

prof_end() {
	local data

	[ "$PROFILE" != insn ] || { prof_insn_end; return 0; }
	[ -n "$PROF_PID" ] || return 0
	kill -INT "$PROF_PID" 2>/dev/null
	wait "$PROF_PID"
	PROF_PID=
	data=$SMC_RESULTS/prof-$PROF_NAME.data
	{
		echo "# $PROF_NAME: by object"
		perf report -i "$data" --no-children --sort dso --stdio \
			-g none 2>/dev/null | grep -v '^#' | grep .
		echo "# $PROF_NAME: by symbol, 0.3% and more"
		perf report -i "$data" --no-children --sort dso,sym --stdio \
			-g none --percent-limit 0.3 2>/dev/null |
			grep -v '^#' | grep .
	} > "$SMC_RESULTS/prof-$PROF_NAME.txt"
	rm -f "$data"
	say "profile: prof-$PROF_NAME.txt"
}

# redir_fields MSGS: in the sockmap part, the path check of the run just
# ended as JSON fields (each after a comma): no message may have gone
# over TCP, sockets must have been put into the map and, with MSGS=1,
# messages redirected
redir_fields() {
	local r p n ok=true
	[ -n "$REDIRECT" ] || return 0
	read -r _ r _ p _ n < <("$SOCKMAP" stats "$SOCKMAP_PIN")
	if [ "${p:-1}" != 0 ] || [ "${n:-0}" = 0 ] ||
	   { [ "$1" = 1 ] && [ "${r:-0}" = 0 ]; }; then
		ok=false
	fi
	printf ',"redirected":%d,"over_tcp":%d,"mapped":%d,"path_ok":%s,"path_mode":"sockmap","path_reason":"%d messages redirected, %d over TCP, %d sockets mapped"' \
		"${r:-0}" "${p:-0}" "${n:-0}" "$ok" "${r:-0}" "${p:-0}" "${n:-0}"
}

# ops_of SMCBENCH_ARGS...: the operations the run does: messages of a
# stream, round trips, connections
ops_of() {
	local m="" s=1 n=0
	while [ $# -gt 1 ]; do
		case $1 in -m) m=$2 ;; -s) s=$2 ;; -n) n=$2 ;; esac
		shift
	done
	[ "$m" = stream ] && n=$((n / s))
	echo "$n"
}

# record PATHNAME ARGS...: one smcbench run, its JSON tagged with the path
record() {
	local path=$1 line rc msgs=1
	shift
	[[ " $* " == *" -m mem "* ]] && msgs=0
	redir_begin
	prof_begin "$path $*" "$(ops_of "$@")" inner
	line=$(timeout 600 "$BENCH" "$@" ${PROF_MARK:+--mark} \
		2>"$SMC_RESULTS/bench-last.err")
	rc=$?
	prof_end
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		say "FAILED ($rc): $path $*: $(tail -n 3 "$SMC_RESULTS/bench-last.err")"
		printf '{"path":"%s","args":"%s","failed":true,"rc":%d}\n' \
			"$path" "$*" "$rc" >> "$OUT"
		return
	fi
	# smcbench's own path fields (null over TCP) come first: ours win
	line=${line#\{}
	printf '{"path":"%s",%s%s}\n' "$path" "${line%\}}" \
		"$(redir_fields $msgs)" >> "$OUT"
	say "$path $*: ok"
}

# micro PATHNAME TRANSPORT [EXPECT]: the smcbench runs; over smc each
# run must take path EXPECT (default smcd)
micro() {
	local path=$1 t=$2 want=${3:-smcd} expect=() s r runs=$BULK_RUNS
	[ "$t" = smc ] && expect=(--expect "$want")
	for s in 1024 8192 65536; do
		record "$path" -t "$t" -m stream -s "$s" -n "$STREAM_BYTES" \
			"${expect[@]}"
	done
	[ "$TURNS" = 1 ] && { [ "$path" = tcp ] || [ "$path" = smcd ]; } && runs=1
	for ((r = 2; r <= runs; r++)); do
		judged_run "$r" "$path" -t "$t" "${expect[@]}"
	done
	record "$path" -t "$t" -m stream -s 65536 -n "$STREAM_BYTES" --verify \
		"${expect[@]}"
	for s in 14 1024; do
		record "$path" -t "$t" -m pingpong -s "$s" -n "$PP_ROUNDS" \
			"${expect[@]}"
	done
	record "$path" -t "$t" -m crr -n "$CRR_COUNT" "${expect[@]}"
	record "$path" -t "$t" -m mem -n "$MEM_COUNT" "${expect[@]}"
}

# judged_run R PATHNAME ARGS...: run R of the rows the normal mode
# judges on medians, 64 KiB stream and ping-pong 14 B
judged_run() {
	local r=$1 path=$2

	shift 2
	record "$path" "$@" -m stream -s 65536 -n "$STREAM_BYTES" --tag "run$r"
	record "$path" "$@" -m pingpong -s 14 -n "$PP_ROUNDS" --tag "run$r"
}

# watch_start SERVER WRAP FILE: in the background, wait for the server's
# first connected AF_SMC sockets and keep their lines in FILE.  One
# process that polls sock_diag every 20 ms and stops at the first find,
# so that it takes next to nothing from the run it watches; nothing to
# look up without smc_run.
WATCH_PID=
watch_start() {
	: > "$3"
	[ "$2" = "$SMC_RUN" ] || return 0
	"$SMC_PATH" -p "$1" -w 30000 > "$3" 2>/dev/null &
	WATCH_PID=$!
}

# watch_modes FILE VAR: after the run, the modes the watcher saw ("16
# smcd") into VAR.  Not to be called in $(...): the watcher is a child
# of this shell, not of a subshell, and only this shell can wait for it.
watch_modes() {
	if [ -n "$WATCH_PID" ]; then
		wait "$WATCH_PID"
		WATCH_PID=
	fi
	printf -v "$2" '%s' "$(grep -v 'state=LISTEN' "$1" |
		sed -n 's/.*mode=\([a-z]*\).*/\1/p' | sort | uniq -c |
		tr -s ' \n' ' ')"
}

# redis_start WRAP ADDR: redis-server on ADDR port 6399, in REDIS_SRV
# (protected mode off: it refuses clients from other than loopback)
REDIS_SRV=
redis_start() {
	$1 redis-server --port 6399 --bind "$2" --protected-mode no \
		--save '' --appendonly no --daemonize no >/dev/null 2>&1 &
	REDIS_SRV=$!
	for _ in $(seq 100); do
		ss -Hltn 'sport = :6399' | grep -q . && break
		sleep 0.1
	done
}

redis_stop() {
	kill $REDIS_SRV 2>/dev/null
	wait $REDIS_SRV 2>/dev/null
	REDIS_SRV=
}

# redis_op PATHNAME WRAP ADDR OP CLIENTS APP: one redis-benchmark run of
# REDIS_N requests against the running server, recorded as APP
redis_op() {
	local path=$1 wrap=$2 addr=$3 op=$4 c=$5 app=$6 out modes rps
	out=$SMC_RESULTS/${app/redis/redis-$path}.txt
	watch_start $REDIS_SRV "$wrap" "$out.path"
	# redis-benchmark's start-up and connections are not requests: a
	# tenth of the run, profiled first, is taken off it (report)
	if [ "$PROFILE" = insn ]; then
		prof_begin "$app $path short" $((REDIS_N / 10))
		timeout 600 $wrap redis-benchmark -h "$addr" -p 6399 \
			-n $((REDIS_N / 10)) -c "$c" -t "$op" -q >/dev/null 2>&1
		prof_end
	fi
	redir_begin
	prof_begin "$app $path" "$REDIS_N"
	# redis-benchmark keeps waiting when the server answers with errors
	timeout 600 $wrap redis-benchmark -h "$addr" -p 6399 -n "$REDIS_N" \
		-c "$c" -t "$op" -q >"$out" 2>&1
	prof_end
	watch_modes "$out.path" modes
	rps=$(sed -n 's/.*: *\([0-9.]*\) requests per second.*/\1/p' \
		"$out" | tail -n 1)
	printf '{"path":"%s","app":"%s","requests":%d,"clients":%d,"rps":%s,"server_modes":"%s"%s}\n' \
		"$path" "$app" "$REDIS_N" "$c" "${rps:-0}" "$modes" \
		"$(redir_fields 1)" >> "$OUT"
	say "$path $app: ${rps:-?} req/s ($modes)"
}

# app_redis PATHNAME WRAP: redis-benchmark GET/SET against redis-server
app_redis() {
	local op
	command -v redis-server >/dev/null || return 0
	redis_start "$2" 127.0.0.1
	for op in get set; do
		redis_op "$1" "$2" 127.0.0.1 $op 16 redis-$op
	done
	redis_stop
}

# app_redis_sweep PATHNAME WRAP ADDR: GET and SET with 1 to 512 clients
# against redis-server on ADDR, recorded as redis-get-c1, ...
app_redis_sweep() {
	local c op
	command -v redis-server >/dev/null || return 0
	redis_start "$2" "$3"
	for c in 1 16 64 512; do
		for op in get set; do
			redis_op "$1" "$2" "$3" $op $c redis-$op-c$c
		done
	done
	redis_stop
}

# app_iperf PATHNAME WRAP: iperf3 for IPERF_SECONDS, BULK_RUNS times,
# both ends through WRAP
app_iperf() {
	local path=$1 wrap=$2 out srv modes gbps i
	command -v iperf3 >/dev/null || return 0
	for ((i = 1; i <= BULK_RUNS; i++)); do
		out=$SMC_RESULTS/iperf3-$path-$i
		$wrap iperf3 -s -1 -B 127.0.0.1 -p 5399 >/dev/null 2>&1 &
		srv=$!
		for _ in $(seq 100); do
			ss -Hltn 'sport = :5399' | grep -q . && break
			sleep 0.1
		done
		watch_start $srv "$wrap" "$out.path"
		redir_begin
		timeout 120 $wrap iperf3 -c 127.0.0.1 -p 5399 \
			-t "$IPERF_SECONDS" -J > "$out.json" 2>&1
		wait $srv 2>/dev/null
		watch_modes "$out.path" modes
		gbps=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["end"]["sum_received"]["bits_per_second"] / 1e9)' \
			"$out.json" 2>/dev/null || echo 0)
		printf '{"path":"%s","app":"iperf3","run":%d,"seconds":%d,"gbit_s":%s,"server_modes":"%s"%s}\n' \
			"$path" "$i" "$IPERF_SECONDS" "$gbps" "$modes" \
			"$(redir_fields 1)" >> "$OUT"
		say "$path iperf3 run $i: $gbps Gbit/s ($modes)"
	done
}

# app_nginx PATHNAME WRAP: wrk against nginx, a fixed number of requests
app_nginx() {
	local path=$1 wrap=$2 dir srv out pid modes rps t0 t1 n line
	command -v nginx >/dev/null && command -v wrk >/dev/null || return 0
	dir=$(mktemp -d)
	mkdir -p "$dir/www" "$dir/tmp"
	head -c 1024 /dev/zero > "$dir/www/1k"
	cat > "$dir/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
error_log $dir/error.log;
pid $dir/nginx.pid;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $dir/tmp;
	proxy_temp_path $dir/tmp;
	fastcgi_temp_path $dir/tmp;
	uwsgi_temp_path $dir/tmp;
	scgi_temp_path $dir/tmp;
	server {
		listen 127.0.0.1:8099;
		root $dir/www;
	}
}
EOF
	# wrk counts time, not requests: the script says "start" into a FIFO
	# at the first response and "done" WRK_N responses later, and wrk is
	# then interrupted (it reports on SIGINT; thread:stop() alone would
	# still wait for the whole -d time).  The clock runs between the two
	# words, so wrk's start-up (a cold binary for the first path) is not
	# counted; the shell waits in read(), not in a polling loop that
	# would take CPU from the run.
	cat > "$dir/stop.lua" <<EOF
local n = 0
local want = $WRK_N
local function say(word)
	local f = io.open("$dir/done", "w")
	f:write(word .. "\\n")
	f:close()
end
function response(status, headers, body)
	n = n + 1
	if n == 1 then
		say("start")
	elseif n == want + 1 then
		say("done")
	end
end
EOF
	mkfifo "$dir/done"
	exec 3<>"$dir/done"
	$wrap nginx -c "$dir/nginx.conf" >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		ss -Hltn 'sport = :8099' | grep -q . && break
		sleep 0.1
	done
	out=$SMC_RESULTS/nginx-$path.txt
	# wrk divides by its -d time even when the script stops it early:
	# the rate comes from our own clock and its request count
	watch_start $srv "$wrap" "$out.path"
	redir_begin
	prof_begin "nginx $path" "$WRK_N" inner
	$wrap wrk -t 1 -c 16 -d 600s -s "$dir/stop.lua" \
		http://127.0.0.1:8099/1k >"$out" 2>&1 &
	pid=$!
	n=0 t0=0 t1=0
	if read -r -t 600 -u 3 line && [ "$line" = start ]; then
		prof_mark begin
		t0=$EPOCHREALTIME
		read -r -t 600 -u 3 line && [ "$line" = done ] && n=$WRK_N
		t1=$EPOCHREALTIME
		prof_mark end
	fi
	exec 3<&-
	kill -INT $pid 2>/dev/null
	wait $pid
	prof_end
	watch_modes "$out.path" modes
	rps=$(awk -v n="$n" -v a="$t0" -v b="$t1" \
		'BEGIN { if (b > a) printf "%.1f", n / (b - a); else print 0 }')
	printf '{"path":"%s","app":"nginx-wrk","requests":%d,"rps":%s,"server_modes":"%s"%s}\n' \
		"$path" "$WRK_N" "${rps:-0}" "$modes" "$(redir_fields 1)" >> "$OUT"
	say "$path nginx: ${rps:-?} req/s ($modes)"
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	rm -rf "$dir"
}

: > "$OUT"
ip link set lo up
say "kernel $(uname -r), $(nproc) CPU(s)"
# phase 0: the markers' own cost (bash forking insnmark), which the
# report takes off every other phase
if [ "$PROFILE" = insn ]; then
	prof_begin baseline
	prof_end
fi

if part tcp; then
	micro tcp tcp
	app_redis tcp "$CG_RUN"
	app_nginx tcp "$CG_RUN"
	app_iperf tcp "$CG_RUN"
fi
part uds && micro uds uds

if part smcd; then
	micro smcd smc
	app_redis smcd "$SMC_RUN"
	app_nginx smcd "$SMC_RUN"
	app_iperf smcd "$SMC_RUN"
fi

# bulk_turns: the further judged runs of TCP and our SMC-D, by turns
bulk_turns() {
	local r

	for ((r = 2; r <= BULK_RUNS; r++)); do
		judged_run "$r" tcp -t tcp
		judged_run "$r" smcd -t smc --expect smcd
	done
}

[ "$TURNS" = 1 ] && bulk_turns

# TCP between sockets that BPF sockmap redirection joins, as Envoy,
# Merbridge and Cilium's sockops acceleration deploy it: the part runs
# in a cgroup of its own, where sockmap_redir's sock_ops program maps
# each established socket; each run checks the redirect counters
sockmap_part() {
	if [ ! -x "$SOCKMAP" ]; then
		failed sockmap "no $SOCKMAP"
		return
	fi
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	"$SOCKMAP" down "$SOCKMAP_CG" "$SOCKMAP_PIN" 2>/dev/null
	mkdir -p "$SOCKMAP_CG"
	if "$SOCKMAP" up "$SOCKMAP_CG" "$SOCKMAP_PIN"; then
		(
			echo "$BASHPID" > "$SOCKMAP_CG/cgroup.procs" || exit 1
			REDIRECT=1
			micro sockmap tcp
			app_redis sockmap ""
			app_nginx sockmap ""
			app_iperf sockmap ""
		) || failed sockmap "into $SOCKMAP_CG"
	else
		failed sockmap "sockmap_redir up"
	fi
	"$SOCKMAP" down "$SOCKMAP_CG" "$SOCKMAP_PIN"
	rmdir "$SOCKMAP_CG"
}

part sockmap && sockmap_part

if part upstream-lo; then
	if [ -n "$UPSTREAM_DIR" ] && [ -f "$UPSTREAM_DIR/smc.ko" ]; then
		if SMC_UPSTREAM_DIR=$UPSTREAM_DIR \
			bash "$HERE/upstream-lo.sh" load
		then
			micro upstream-lo smc
			app_redis upstream-lo "$SMC_RUN"
			app_nginx upstream-lo "$SMC_RUN"
			app_iperf upstream-lo "$SMC_RUN"
			bash "$HERE/upstream-lo.sh" unload
		else
			say "upstream SMC-lo did not load"
			failed upstream-lo load
		fi
	else
		say "no upstream SMC-lo build for $(uname -r): skipped"
	fi
fi

# SMC-R: our module between the two rxe devices of smcr_topo.sh, with
# SMC-D negotiation off, against TCP over the same veth pair.  The
# client's end is $SMCR_A (the route to $SMCR_B leaves through A's
# device), the server's $SMCR_B.
# bench_sysctls: SMC_BENCH_SYSCTL, for the module now loaded
bench_sysctls() {
	[ -n "$SYSCTLS" ] || return 0
	# shellcheck disable=SC2086 # one assignment a word
	sysctl -w $SYSCTLS 2>&1 | sed 's/^/[bench] /'
}

smcr_part() {
	local smcd_saved

	if [ ! -f "$SMCR_TOPO" ]; then
		say "SMC-R: no $SMCR_TOPO: skipped"
		failed smcr "no smcr_topo.sh"
		return
	fi
	# shellcheck source=SCRIPTDIR/../selftests/net/smc/smcr_topo.sh
	. "$SMCR_TOPO"
	bench_sysctls
	if [ ! -w "$SMCD_PARAM" ]; then
		say "SMC-R: our module's smcd parameter is missing: skipped"
		failed smcr "no $SMCD_PARAM"
		return
	fi
	if ! smcr_topo_up; then
		say "SMC-R: the rxe test bed did not come up"
		rdma link show 2>&1 | sed 's/^/[bench]   /'
		failed smcr "rxe test bed"
		smcr_topo_down
		return
	fi
	say "SMC-R: $SMCR_RXEA ($SMCR_A) to $SMCR_RXEB ($SMCR_B)"
	smcd_saved=$(cat "$SMCD_PARAM")
	echo N > "$SMCD_PARAM"
	# 512 redis clients, each one socket at either end
	ulimit -n 4096 2>/dev/null || say "SMC-R: ulimit -n stays $(ulimit -n)"
	export SMC_TEST_ADDR4=$SMCR_B
	micro tcp-rxe tcp
	micro smcr smc smcr
	app_redis_sweep tcp-rxe "$CG_RUN" "$SMCR_B"
	app_redis_sweep smcr "$SMC_RUN" "$SMCR_B"
	unset SMC_TEST_ADDR4
	echo "$smcd_saved" > "$SMCD_PARAM"
	smcr_topo_down
	say "SMC-R: test bed down, smcd $(cat "$SMCD_PARAM") again"
}

if part smcr && [ "$SMCR" != 0 ]; then
	if modinfo rdma_rxe >/dev/null 2>&1; then
		smcr_part
	else
		say "no rdma_rxe module for $(uname -r): SMC-R skipped"
	fi
fi

# Upstream's SMC-R on the same bed: Debian's own smc.ko, which has no
# loopback-ism, so SMC-R is all it can take between the two ends.  Its
# SMC-Rv2 needs an EID on a machine without a system EID: the benchmark
# UEID.  Stream, ping-pong and the redis sweep, as for ours.
upstream_smcr_part() {
	local dir=/tmp/stock-smc m f

	mkdir -p "$dir"
	for m in smc smc_diag; do
		f=$(modinfo -n "$m" 2>/dev/null)
		case "$f" in
		*/kernel/net/smc/*.ko.xz) xz -dc "$f" > "$dir/$m.ko" ;;
		*/kernel/net/smc/*.ko) cp "$f" "$dir/$m.ko" ;;
		*) say "no stock $m.ko ($f): upstream SMC-R skipped"
		   failed upstream-smcr "no stock $m.ko"
		   return ;;
		esac
	done
	if ! SMC_UPSTREAM_DIR=$dir bash "$HERE/upstream-lo.sh" load --no-lo
	then
		failed upstream-smcr load
		return
	fi
	# shellcheck source=SCRIPTDIR/../selftests/net/smc/smcr_topo.sh
	. "$SMCR_TOPO"
	bench_sysctls
	if smcr_topo_up; then
		say "upstream SMC-R: $SMCR_RXEA ($SMCR_A) to $SMCR_RXEB ($SMCR_B)"
		ulimit -n 4096 2>/dev/null
		export SMC_TEST_ADDR4=$SMCR_B
		micro upstream-smcr smc smcr
		app_redis_sweep upstream-smcr "$SMC_RUN" "$SMCR_B"
		unset SMC_TEST_ADDR4
	else
		failed upstream-smcr "rxe test bed"
	fi
	smcr_topo_down
	SMC_UPSTREAM_DIR=$dir bash "$HERE/upstream-lo.sh" unload ||
		say "our smc could not be loaded again"
}

if part upstream-smcr && [ "$SMCR" != 0 ] &&
	modinfo rdma_rxe >/dev/null 2>&1; then
	upstream_smcr_part
fi
say "done"
