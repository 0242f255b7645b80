#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unmodified applications over AF_SMC through tools/net/smc/smc_run:
# python3 http.server + curl, socat echo, iperf3.  While each connection
# is up, smc_diag must show AF_SMC sockets with the expected path for
# both the server and the client process (catches a preload library that
# was silently not applied).

. "$(dirname "$0")/lib.sh"

require_tools python3 curl socat iperf3 ss sha256sum
require_smc
setup_common

ktap_header 4
[ "$SMC_TEST_INET" = 1 ] && ktap_diag "SMC_TEST_INET=1: plain TCP, no AF_SMC checks"

# preload_seen NAME PID: PID must hold AF_SMC sockets
preload_seen()
{
	local n

	[ "$SMC_TEST_INET" = 1 ] && return 0
	n=$(smc_sockets_of "$2")
	if [ "$n" -lt 1 ]; then
		ktap_diag "$1 (pid $2) holds no AF_SMC socket: preload not applied?"
		return 1
	fi
	return 0
}

test_smc_run()
{
	local rc=0 out

	[ "$SMC_TEST_INET" = 1 ] && return 4
	# the preload's conversion (-p): smc_run_bpf.sh checks the BPF way's
	out=$("$SMC_RUN" -p -d -r 48k -t 96k python3 "$HERE/sock_probe.py" \
		2> "$tmp_dir/probe.err")
	ktap_diag "smc_run probe: $out"
	case "$out" in
	"tcp4 43/0 tcp6 43/1 tcp 43/0 udp 2/17 unix 1/0 rcvbuf 98304 sndbuf 196608") ;;
	*) ktap_diag "unexpected socket conversion or buffer sizes"; rc=1 ;;
	esac
	grep -q "map sock to AF_SMC" "$tmp_dir/probe.err" ||
		{ ktap_diag "no debug output with -d"; rc=1; }
	"$SMC_RUN" -v | grep -q smc_run || { ktap_diag "-v failed"; rc=1; }
	"$SMC_RUN" -h | grep -q Usage || { ktap_diag "-h failed"; rc=1; }
	return $rc
}

test_http()
{
	local port dir=$tmp_dir/http srv cli dl rc=0 want got srv_pre cli_pre

	mkdir -p "$dir"
	head -c $((4 * 1024 * 1024)) /dev/urandom > "$dir/blob"
	want=$(sha256sum < "$dir/blob" | cut -d' ' -f1)
	port=$(free_port)
	# Small socket buffers (smc_run -t/-r): otherwise the whole file fits
	# into the loopback buffers and the server closes its socket at once.
	if [ "$SMC_TEST_INET" = 1 ]; then
		srv_pre=()
		cli_pre=()
	else
		srv_pre=("$SMC_RUN" -t 64k)
		cli_pre=("$SMC_RUN" -r 64k)
	fi
	"${srv_pre[@]}" python3 -m http.server "$port" --bind 127.0.0.1 \
		--directory "$dir" > "$tmp_dir/http.log" 2>&1 &
	srv=$!
	track $srv
	if ! wait_until 60 port_listening "$port"; then
		ktap_diag "http.server did not start"
		ktap_diag "$(cat "$tmp_dir/http.log")"
		return 1
	fi
	preload_seen http.server $srv || rc=1
	# http.server resolves its own name before serving: wait until it
	# really answers, so that the transfer below is accepted at once
	if ! wait_until 120 "${SMC[@]}" curl -s --fail --max-time 10 \
			-o /dev/null "http://127.0.0.1:$port/"; then
		ktap_diag "http.server does not answer"
		return 1
	fi

	# the byte-exact download
	if ! "${cli_pre[@]}" curl -sS --fail --max-time 120 \
			-o "$tmp_dir/blob.out" "http://127.0.0.1:$port/blob" \
			2> "$tmp_dir/curl.err"; then
		ktap_diag "download failed: $(cat "$tmp_dir/curl.err")"
		rc=1
	fi
	got=$(sha256sum < "$tmp_dir/blob.out" 2>/dev/null | cut -d' ' -f1)
	if [ "$want" != "$got" ]; then
		ktap_diag "sha256 mismatch: served $want, fetched $got"
		rc=1
	fi

	# a second download throttled to 2 kB/s stays open, however the
	# guest is scheduled, while both ends are checked; then it is ended
	"${cli_pre[@]}" curl -sS --max-time 120 --limit-rate 2K \
		-o /dev/null "http://127.0.0.1:$port/blob" \
		2> "$tmp_dir/curl-slow.err" &
	dl=$!	# smc_run execs curl: this is curl's pid
	track $dl
	check_path_while_up curl $dl 20 || rc=1
	check_path_while_up http.server $srv 20 || rc=1
	if ! kill $dl 2>/dev/null; then
		ktap_diag "throttled curl ended early: $(cat "$tmp_dir/curl-slow.err")"
		rc=1
	fi
	wait $dl 2>/dev/null
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	return $rc
}

test_socat()
{
	local port srv cli rc=0 in=$tmp_dir/socat.in out=$tmp_dir/socat.out

	head -c $((3 * 1024 * 1024 + 12345)) /dev/urandom > "$in"
	port=$(free_port)
	"${SMC[@]}" socat -T 60 TCP-LISTEN:"$port",bind=127.0.0.1,reuseaddr PIPE \
		2> "$tmp_dir/socat-srv.err" &
	srv=$!
	track $srv
	if ! wait_until 60 port_listening "$port"; then
		ktap_diag "socat server did not start"
		return 1
	fi
	preload_seen "socat server" $srv || rc=1
	# the input stops in the middle until the path checks are done, so
	# the connection is up however slowly the guest runs
	mkfifo "$tmp_dir/socat.go"
	{ head -c 1048576 "$in"; cat "$tmp_dir/socat.go" > /dev/null
	  tail -c +1048577 "$in"; } |
		"${SMC[@]}" socat -t 60 -T 60 - TCP:127.0.0.1:"$port" > "$out" \
			2> "$tmp_dir/socat-cli.err" &
	cli=$!	# smc_run execs socat: this is the client's pid
	track $cli
	check_path_while_up "socat client" $cli 30 || rc=1
	check_path_while_up "socat server" $srv 30 || rc=1
	echo go > "$tmp_dir/socat.go"
	if ! wait $cli; then
		ktap_diag "socat client failed: $(cat "$tmp_dir/socat-cli.err")"
		rc=1
	fi
	wait $srv 2>/dev/null
	if ! cmp -s "$in" "$out"; then
		ktap_diag "echoed data differs: sent $(stat -c %s "$in") bytes," \
			"got $(stat -c %s "$out")"
		rc=1
	fi
	return $rc
}

test_iperf3()
{
	local port srv cli rc=0 bps

	port=$(free_port)
	"${SMC[@]}" iperf3 -s -1 -B 127.0.0.1 -p "$port" > "$tmp_dir/iperf-srv.log" 2>&1 &
	srv=$!
	track $srv
	if ! wait_until 60 port_listening "$port"; then
		ktap_diag "iperf3 server did not start"
		return 1
	fi
	preload_seen "iperf3 server" $srv || rc=1
	"${SMC[@]}" iperf3 -c 127.0.0.1 -p "$port" -t 5 -J > "$tmp_dir/iperf.json" \
		2> "$tmp_dir/iperf-cli.err" &
	cli=$!
	track $cli
	check_path_while_up "iperf3 client" $cli 20 || rc=1
	check_path_while_up "iperf3 server" $srv 20 || rc=1
	if ! wait $cli; then
		ktap_diag "iperf3 client failed: $(cat "$tmp_dir/iperf-cli.err")"
		ktap_diag "$(tail -n 5 "$tmp_dir/iperf.json")"
		rc=1
	fi
	wait $srv 2>/dev/null
	bps=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(int(d["end"]["sum_received"]["bits_per_second"]))' \
		"$tmp_dir/iperf.json" 2>/dev/null || echo 0)
	ktap_diag "iperf3 received $((bps / 1000000)) Mbit/s"
	if [ "$bps" -le 0 ]; then
		ktap_diag "iperf3 reported no throughput"
		rc=1
	fi
	return $rc
}

test_smc_run
r=$?
if [ $r = 4 ]; then
	ktap_skip smc_run_preload "SMC_TEST_INET=1"
else
	ktap_result smc_run_preload $r
fi
test_http
ktap_result http_server_curl $?
test_socat
ktap_result socat_echo $?
test_iperf3
ktap_result iperf3 $?
ktap_finish
