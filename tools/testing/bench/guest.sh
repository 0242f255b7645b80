#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the benchmark VM (tools/testing/bench/run): every
# benchmark over TCP, Unix sockets, our SMC-D and, where it was built,
# upstream's SMC-lo, swapping the smc module between the last two.
# Writes one JSON object a line to $SMC_RESULTS/bench.jsonl; a run that
# fails or takes the wrong path is recorded as such, never dropped.
set -uo pipefail
export LC_ALL=C	# a dot in $EPOCHREALTIME

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=${SMC_RESULTS:?}/bench.jsonl
BENCH=$HERE/smcbench
SMC_RUN=$REPO/tools/net/smc/smc_run
SMC_PATH=$REPO/tools/testing/selftests/net/smc/smc_path
UPSTREAM_DIR=${SMC_BENCH_UPSTREAM:-}
QUICK=${SMC_BENCH_QUICK:-0}

say() { echo "[bench] $*"; }

# Sizes of the runs: fixed amounts of work, not durations, so that the
# deterministic mode repeats them exactly.
if [ "$QUICK" = 1 ]; then
	STREAM_BYTES=$((16 << 20)) PP_ROUNDS=500 CRR_COUNT=200 MEM_COUNT=100
	REDIS_N=1000 WRK_N=1000
else
	STREAM_BYTES=$((256 << 20)) PP_ROUNDS=5000 CRR_COUNT=2000
	MEM_COUNT=1000 REDIS_N=20000 WRK_N=20000
fi

# record PATHNAME ARGS...: one smcbench run, its JSON tagged with the path
record() {
	local path=$1 line rc
	shift
	line=$(timeout 600 "$BENCH" "$@" 2>"$SMC_RESULTS/bench-last.err")
	rc=$?
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		say "FAILED ($rc): $path $*: $(tail -n 3 "$SMC_RESULTS/bench-last.err")"
		printf '{"path":"%s","args":"%s","failed":true,"rc":%d}\n' \
			"$path" "$*" "$rc" >> "$OUT"
		return
	fi
	printf '{"path":"%s",%s\n' "$path" "${line#\{}" >> "$OUT"
	say "$path $*: ok"
}

micro() {
	local path=$1 t=$2 expect=() s
	[ "$t" = smc ] && expect=(--expect smcd)
	for s in 1024 8192 65536; do
		record "$path" -t "$t" -m stream -s "$s" -n "$STREAM_BYTES" \
			"${expect[@]}"
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

# watch_start SERVER WRAP FILE: in the background, wait for the server's
# first connected AF_SMC sockets and keep their lines in FILE.  One
# process that polls sock_diag every 20 ms and stops at the first find,
# so that it takes next to nothing from the run it watches; nothing to
# look up without smc_run.
WATCH_PID=
watch_start() {
	: > "$3"
	[ -n "$2" ] || return 0
	"$SMC_PATH" -p "$1" -w 30000 > "$3" 2>/dev/null &
	WATCH_PID=$!
}

# watch_modes FILE: after the run, the modes the watcher saw ("16 smcd")
watch_modes() {
	if [ -n "$WATCH_PID" ]; then
		wait "$WATCH_PID"
		WATCH_PID=
	fi
	grep -v 'state=LISTEN' "$1" |
		sed -n 's/.*mode=\([a-z]*\).*/\1/p' | sort | uniq -c |
		tr -s ' \n' ' '
}

# app_redis PATHNAME WRAP: redis-benchmark GET/SET against redis-server
app_redis() {
	local path=$1 wrap=$2 srv pid out modes op rps
	command -v redis-server >/dev/null || return 0
	$wrap redis-server --port 6399 --bind 127.0.0.1 --save '' \
		--appendonly no --daemonize no >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 100); do
		ss -Hltn 'sport = :6399' | grep -q . && break
		sleep 0.1
	done
	for op in get set; do
		out=$SMC_RESULTS/redis-$path-$op.txt
		watch_start $srv "$wrap" "$out.path"
		$wrap redis-benchmark -p 6399 -n "$REDIS_N" -c 16 -t "$op" -q \
			>"$out" 2>&1
		modes=$(watch_modes "$out.path")
		rps=$(sed -n 's/.*: *\([0-9.]*\) requests per second.*/\1/p' \
			"$out" | tail -n 1)
		printf '{"path":"%s","app":"redis-%s","requests":%d,"rps":%s,"server_modes":"%s"}\n' \
			"$path" "$op" "$REDIS_N" "${rps:-0}" "$modes" >> "$OUT"
		say "$path redis $op: ${rps:-?} req/s ($modes)"
	done
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
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
	$wrap wrk -t 1 -c 16 -d 600s -s "$dir/stop.lua" \
		http://127.0.0.1:8099/1k >"$out" 2>&1 &
	pid=$!
	n=0 t0=0 t1=0
	if read -r -t 600 -u 3 line && [ "$line" = start ]; then
		t0=$EPOCHREALTIME
		read -r -t 600 -u 3 line && [ "$line" = done ] && n=$WRK_N
		t1=$EPOCHREALTIME
	fi
	exec 3<&-
	kill -INT $pid 2>/dev/null
	wait $pid
	modes=$(watch_modes "$out.path")
	rps=$(awk -v n="$n" -v a="$t0" -v b="$t1" \
		'BEGIN { if (b > a) printf "%.1f", n / (b - a); else print 0 }')
	printf '{"path":"%s","app":"nginx-wrk","requests":%d,"rps":%s,"server_modes":"%s"}\n' \
		"$path" "$WRK_N" "${rps:-0}" "$modes" >> "$OUT"
	say "$path nginx: ${rps:-?} req/s ($modes)"
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	rm -rf "$dir"
}

: > "$OUT"
ip link set lo up
say "kernel $(uname -r), $(nproc) CPU(s)"

micro tcp tcp
app_redis tcp ""
app_nginx tcp ""
micro uds uds

micro smcd smc
app_redis smcd "$SMC_RUN"
app_nginx smcd "$SMC_RUN"

if [ -n "$UPSTREAM_DIR" ] && [ -f "$UPSTREAM_DIR/smc.ko" ]; then
	if SMC_UPSTREAM_DIR=$UPSTREAM_DIR bash "$HERE/upstream-lo.sh" load
	then
		micro upstream-lo smc
		app_redis upstream-lo "$SMC_RUN"
		app_nginx upstream-lo "$SMC_RUN"
		bash "$HERE/upstream-lo.sh" unload
	else
		say "upstream SMC-lo did not load"
		echo '{"path":"upstream-lo","failed":true,"rc":-1,"args":"load"}' \
			>> "$OUT"
	fi
else
	say "no upstream SMC-lo build for $(uname -r): skipped"
fi
say "done"
