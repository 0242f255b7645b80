#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Abrupt process death during an AF_SMC transfer (both ends under
# smc_run):
#  - kill -9 the sender: the receiver sees EOF or ECONNRESET promptly;
#  - kill -9 the receiver: the sender gets EPIPE or ECONNRESET promptly;
#  - afterwards no AF_SMC sockets are left over and a new connection
#    still works.

. "$(dirname "$0")/lib.sh"

DEADLINE=${KILL9_DEADLINE:-30}

require_tools python3 ss
require_smc
setup_common

cat > "$tmp_dir/recv.py" <<'PY'
import errno, socket, sys
port = int(sys.argv[1])
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(1)
c, _ = ls.accept()
ls.close()
total = 0
try:
    while True:
        d = c.recv(65536)
        if not d:
            print("EOF", total, flush=True)
            break
        total += len(d)
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)), total, flush=True)
PY

cat > "$tmp_dir/send.py" <<'PY'
import errno, os, socket, sys
port, limit = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect(("127.0.0.1", port))
buf = os.urandom(65536)
total = 0
try:
    while limit < 0 or total < limit:
        n = len(buf) if limit < 0 else min(len(buf), limit - total)
        s.sendall(buf[:n])
        total += n
    s.close()
    print("DONE", total, flush=True)
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)), total, flush=True)
PY

# start_pair LIMIT: sets port, rpid, spid
start_pair()
{
	port=$(free_port)
	"${SMC[@]}" python3 "$tmp_dir/recv.py" "$port" > "$tmp_dir/recv.out" \
		2>&1 &
	rpid=$!
	track $rpid
	if ! wait_until 60 port_listening "$port"; then
		ktap_diag "receiver did not start: $(cat "$tmp_dir/recv.out")"
		return 1
	fi
	"${SMC[@]}" python3 "$tmp_dir/send.py" "$port" "$1" \
		> "$tmp_dir/send.out" 2>&1 &
	spid=$!
	track $spid
	return 0
}

# wait_exit PID SECONDS: wait for a background process to end
wait_exit()
{
	local end=$((SECONDS + $2))

	while kill -0 "$1" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			return 1
		fi
		sleep 0.1
	done
	wait "$1" 2>/dev/null
	return 0
}

# kill_peer VICTIM: kill -9 one end of a transfer ("sender" or
# "receiver"); the other end must end promptly with a clean error
kill_peer()
{
	local rc=0 t0 res victim survivor out ok

	start_pair -1 || return 1
	check_path_while_up receiver $rpid 20 || rc=1
	check_path_while_up sender $spid 20 || rc=1
	sleep 1
	if [ "$1" = sender ]; then
		victim=$spid survivor=$rpid out=recv.out ok="EOF ECONNRESET"
	else
		victim=$rpid survivor=$spid out=send.out ok="EPIPE ECONNRESET"
	fi
	kill -9 $victim
	wait $victim 2>/dev/null
	t0=$SECONDS
	if ! wait_exit $survivor "$DEADLINE"; then
		ktap_diag "survivor still running ${DEADLINE}s after kill -9 of the $1"
		return 1
	fi
	res=$(cat "$tmp_dir/$out")
	ktap_diag "survivor: $res after $((SECONDS - t0))s"
	case " $ok " in
	*" ${res%% *} "*) ;;
	*) ktap_diag "unexpected survivor result"; rc=1 ;;
	esac
	[ "${res#* }" -gt 0 ] 2>/dev/null ||
		{ ktap_diag "no data was transferred"; rc=1; }
	return $rc
}

test_no_leftovers()
{
	if wait_until 60 smc_settled "$base"; then
		return 0
	fi
	ktap_diag "AF_SMC sockets left: $(smc_count) (before: $base)"
	ktap_diag "$("$SMC_PATH" 2>&1 | head -n 10)"
	return 1
}

test_new_connection()
{
	local rc=0 res

	start_pair 1048576 || return 1
	if ! wait_exit $spid 60 || ! wait_exit $rpid 30; then
		ktap_diag "transfer did not finish"
		return 1
	fi
	res=$(cat "$tmp_dir/recv.out")
	[ "$res" = "EOF 1048576" ] ||
		{ ktap_diag "receiver: $res, sender: $(cat "$tmp_dir/send.out")"; rc=1; }
	return $rc
}

base=$(smc_count)
ktap_header 4
[ "$SMC_TEST_INET" = 1 ] && ktap_diag "SMC_TEST_INET=1: plain TCP, no AF_SMC checks"
kill_peer sender
ktap_result kill_sender $?
kill_peer receiver
ktap_result kill_receiver $?
test_no_leftovers
ktap_result no_leftover_sockets $?
test_new_connection
ktap_result new_connection_after_kills $?
ktap_finish
