#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module reference counting: while an AF_SMC socket is open "rmmod smc"
# must fail and the socket must keep working; once every socket is closed
# smc_diag and smc unload cleanly; reinserting them from $SMC_MODULE_DIR
# gives working AF_SMC sockets again.  Must run last: it reloads the
# modules.

. "$(dirname "$0")/lib.sh"

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ -n "$SMC_MODULE_DIR" ] || ktap_skip_all "SMC_MODULE_DIR not set"
[ -f "$SMC_MODULE_DIR/smc.ko" ] ||
	ktap_skip_all "no smc.ko in $SMC_MODULE_DIR"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 rmmod insmod
[ -d /sys/module/smc ] || ktap_skip_all "smc module not loaded"
require_smc
setup_common

cat > "$tmp_dir/holder.py" <<'PY'
import socket, sys
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.bind(("127.0.0.1", 0))
ls.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
cli.connect(ls.getsockname())
srv, _ = ls.accept()
ls.close()
print("ready", flush=True)
for line in sys.stdin:
    msg = line.strip().encode() * 100
    cli.sendall(msg)
    got = b""
    while len(got) < len(msg):
        got += srv.recv(65536)
    srv.sendall(got)
    back = b""
    while len(back) < len(msg):
        back += cli.recv(65536)
    print("pong" if back == msg else "corrupt", flush=True)
cli.close()
srv.close()
print("closed", flush=True)
PY

# start_holder: coproc with a connected AF_SMC pair
start_holder()
{
	local line

	coproc HOLDER { exec "${SMC[@]}" python3 "$tmp_dir/holder.py" 2>&1; }
	track $HOLDER_PID
	hpid=$HOLDER_PID
	if ! read -r -t 60 line <&"${HOLDER[0]}" || [ "$line" != ready ]; then
		ktap_diag "holder did not start: $line"
		return 1
	fi
	return 0
}

ping_holder()
{
	local line

	echo "ping-$RANDOM" >&"${HOLDER[1]}" || return 1
	read -r -t 60 line <&"${HOLDER[0]}" || return 1
	[ "$line" = pong ]
}

stop_holder()
{
	local line wfd=${HOLDER[1]}

	exec {wfd}>&-
	read -r -t 60 line <&"${HOLDER[0]}"
	wait "$hpid" 2>/dev/null
	[ "$line" = closed ]
}

refcnt()
{
	cat /sys/module/smc/refcnt 2>/dev/null || echo gone
}

ktap_header 5

# 1: busy module cannot be removed
rc=0
if start_holder; then
	check_path_while_up holder "$hpid" 20 || rc=1
	ktap_diag "smc refcnt with the socket open: $(refcnt)"
	if [ -d /sys/module/smc_diag ]; then
		rmmod smc_diag 2> "$tmp_dir/rmmod.err" ||
			{ ktap_diag "rmmod smc_diag: $(cat "$tmp_dir/rmmod.err")"; rc=1; }
	fi
	if rmmod smc 2> "$tmp_dir/rmmod.err"; then
		ktap_diag "rmmod smc succeeded while an AF_SMC socket was open"
		rc=1
	else
		ktap_diag "rmmod smc refused: $(cat "$tmp_dir/rmmod.err")"
	fi
	[ -d /sys/module/smc ] || { ktap_diag "/sys/module/smc vanished"; rc=1; }
else
	rc=1
fi
ktap_result rmmod_refused_while_socket_open $rc

# 2: the open socket keeps working
if [ -n "$hpid" ] && ping_holder && ping_holder; then
	ktap_ok socket_works_after_failed_rmmod
else
	ktap_not_ok socket_works_after_failed_rmmod
fi

# 3: unload once everything is closed
rc=0
stop_holder || { ktap_diag "holder did not close cleanly"; rc=1; }
unloaded=0
end=$((SECONDS + 30))
while [ $SECONDS -lt $end ]; do
	if [ -d /sys/module/smc_diag ]; then
		rmmod smc_diag 2>/dev/null
	fi
	if rmmod smc 2> "$tmp_dir/rmmod.err"; then
		unloaded=1
		break
	fi
	sleep 0.5
done
if [ $unloaded = 1 ] && [ ! -d /sys/module/smc ]; then
	:
else
	ktap_diag "rmmod smc failed after closing all sockets:" \
		"$(cat "$tmp_dir/rmmod.err"), refcnt $(refcnt)"
	rc=1
fi
ktap_result rmmod_after_close $rc

# 4: reinsert
rc=0
if [ ! -d /sys/module/smc ]; then
	insmod "$SMC_MODULE_DIR/smc.ko" 2> "$tmp_dir/insmod.err" ||
		{ ktap_diag "insmod smc.ko: $(cat "$tmp_dir/insmod.err")"; rc=1; }
fi
if [ -f "$SMC_MODULE_DIR/smc_diag.ko" ] && [ ! -d /sys/module/smc_diag ]; then
	insmod "$SMC_MODULE_DIR/smc_diag.ko" 2> "$tmp_dir/insmod.err" ||
		{ ktap_diag "insmod smc_diag.ko: $(cat "$tmp_dir/insmod.err")"; rc=1; }
fi
python3 -c 'import socket; socket.socket(43, socket.SOCK_STREAM, 0)' ||
	{ ktap_diag "socket(AF_SMC) fails after reinsert"; rc=1; }
ktap_result reinsert_modules $rc

# 5: a connection over the reloaded module works and takes the path
rc=0
if start_holder; then
	check_path_while_up holder "$hpid" 20 || rc=1
	ping_holder || { ktap_diag "ping after reload failed"; rc=1; }
	stop_holder || rc=1
else
	rc=1
fi
ktap_result connection_after_reload $rc
ktap_finish
