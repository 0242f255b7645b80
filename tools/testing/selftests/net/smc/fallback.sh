#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fallback to TCP with the reason code the protocol prescribes, and a
# correct byte stream over the resulting TCP connection:
#  a) AF_SMC client, plain TCP server: client reason 0x03010000;
#  b) plain TCP client, AF_SMC server: accepted socket 0x03010000;
#  c) the server declines (hostile_peer decline-server): client reason
#     0x05000000, the server's code as peer diagnosis;
#  d) no SMC-D device (module reloaded with smcd_loopback=0, only with
#     SMC_MODULE_DIR): the client declines with 0x03030000 instead of
#     proposing, the server records 0x05000000 with peer 0x03030000.
# SMC-D is enabled (module parameter smcd=1) for the run.

. "$(dirname "$0")/lib.sh"

PARAM=/sys/module/smc/parameters/smcd
SIZE=${FALLBACK_SIZE:-1048576}
DECLINE_CODE=0x0303000b

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 ss
require_smc
[ -w "$PARAM" ] || ktap_skip_all "no writable $PARAM"
setup_common

old_smcd=$(cat "$PARAM")
reloaded=0

cat > "$tmp_dir/server.py" <<'PY'
import os, socket, sys, time
port, release = int(sys.argv[1]), sys.argv[2]
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(1)
c, _ = ls.accept()
ls.close()
n = 0
while True:
    d = c.recv(65536)
    if not d:
        break
    c.sendall(d)
    n += len(d)
print("echoed", n, flush=True)
c.close()
PY

cat > "$tmp_dir/client.py" <<'PY'
import hashlib, os, socket, sys, threading, time
port, size, release = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
data = os.urandom(size)
s = socket.create_connection(("127.0.0.1", port), timeout=30)
t = threading.Thread(target=s.sendall, args=(data,))
t.start()
got = bytearray()
while len(got) < size:
    d = s.recv(65536)
    if not d:
        break
    got += d
t.join()
ok = hashlib.sha256(got).digest() == hashlib.sha256(data).digest()
print("ok" if ok else "mismatch", len(got), flush=True)
# keep the connection up until the path has been checked
end = time.time() + 60
while not os.path.exists(release) and time.time() < end:
    time.sleep(0.05)
s.close()
PY

restore()
{
	# our AF_SMC sockets must be gone before the module can go
	cleanup
	if [ "$reloaded" = 1 ]; then
		reload_smc "" || ktap_diag "could not restore the smc module"
	fi
	[ -w "$PARAM" ] && echo "$old_smcd" > "$PARAM"
}
trap restore EXIT

# check_fb NAME PID REASON PEER: PID's connected AF_SMC sockets fell back
# with REASON and peer diagnosis PEER
check_fb()
{
	local name=$1 pid=$2 out

	if ! SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=$3 \
		check_path_while_up "$name" "$pid" 20; then
		return 1
	fi
	out=$("$SMC_PATH" -p "$pid" 2>&1)
	if ! grep -q "peer=$(printf '0x%08x' "$4")" <<< "$out"; then
		ktap_diag "$name: expected peer diagnosis $4: $out"
		return 1
	fi
	return 0
}

# server_up PORT PID: listening, or dead already
server_up()
{
	port_listening "$1" || ! kill -0 "$2" 2>/dev/null
}

# run_pair NAME SERVER_PREFIX CLIENT_PREFIX SIDE REASON PEER
# SERVER_PREFIX / CLIENT_PREFIX: "smc" to run under smc_run, "tcp" plain,
# "hostile" for the declining hostile_peer (server only).  SIDE: which
# process's AF_SMC socket is checked.
run_pair()
{
	local name=$1 srv=$2 cli=$3 side=$4 reason=$5 peer=$6
	local port rel=$tmp_dir/release-$1 spid cpid rc=0 sp=() cp=() line

	port=$(free_port)
	[ "$srv" = smc ] && sp=("${SMC[@]}")
	[ "$cli" = smc ] && cp=("${SMC[@]}")
	if [ "$srv" = hostile ]; then
		"$HERE/hostile_peer" decline-server "$port" "$DECLINE_CODE" \
			> "$tmp_dir/$name.srv" 2>&1 &
	else
		"${sp[@]}" python3 "$tmp_dir/server.py" "$port" "$rel" \
			> "$tmp_dir/$name.srv" 2>&1 &
	fi
	spid=$!
	track $spid
	if ! wait_until 30 server_up "$port" $spid ||
	   ! kill -0 $spid 2>/dev/null; then
		wait $spid 2>/dev/null
		[ $? = 4 ] && return 4
		ktap_diag "$name: server did not start: $(cat "$tmp_dir/$name.srv")"
		return 1
	fi
	"${cp[@]}" python3 "$tmp_dir/client.py" "$port" "$SIZE" "$rel" \
		> "$tmp_dir/$name.cli" 2>&1 &
	cpid=$!
	track $cpid
	if ! wait_until 60 grep -q . "$tmp_dir/$name.cli"; then
		ktap_diag "$name: no result from the client"
		rc=1
	fi
	line=$(head -n 1 "$tmp_dir/$name.cli")
	if [ "$line" != "ok $SIZE" ]; then
		ktap_diag "$name: client: $(head -c 300 "$tmp_dir/$name.cli")"
		rc=1
	fi
	if [ $side = client ]; then
		check_fb "$name" $cpid "$reason" "$peer" || rc=1
	else
		check_fb "$name" $spid "$reason" "$peer" || rc=1
	fi
	touch "$rel"
	wait $cpid 2>/dev/null
	wait_until 10 grep -q "echoed $SIZE\|^done" "$tmp_dir/$name.srv" ||
		{ ktap_diag "$name: server: $(head -c 300 "$tmp_dir/$name.srv")"; rc=1; }
	[ "$srv" = hostile ] && ktap_diag "$name: $(grep -m1 proposal "$tmp_dir/$name.srv")"
	wait $spid 2>/dev/null
	return $rc
}

ktap_header 4
echo 1 > "$PARAM" || ktap_skip_all "cannot enable SMC-D"

run_pair server_not_smc tcp smc client 0x03010000 0
ktap_result server_not_smc $?

run_pair client_not_smc smc tcp server 0x03010000 0
ktap_result client_not_smc $?

run_pair server_declines hostile smc client 0x05000000 $DECLINE_CODE
rc=$?
if [ $rc = 4 ]; then
	ktap_skip server_declines "hostile_peer cannot run (BPF or cgroup v2)"
else
	ktap_result server_declines $rc
fi

if [ -z "$SMC_MODULE_DIR" ] || [ ! -f "$SMC_MODULE_DIR/smc.ko" ]; then
	ktap_skip no_smcd_device "SMC_MODULE_DIR not set"
elif [ "$(smc_count)" != 0 ]; then
	ktap_skip no_smcd_device "AF_SMC sockets of other tests are open"
else
	rc=0
	reloaded=1
	if ! reload_smc smcd_loopback=0; then
		rc=1
	elif [ "$(cat /sys/module/smc/parameters/smcd_loopback)" != N ]; then
		ktap_diag "smcd_loopback is $(cat /sys/module/smc/parameters/smcd_loopback)"
		rc=1
	else
		run_pair no_dev_client smc \
			smc client 0x03030000 0 || rc=1
		run_pair no_dev_server smc \
			smc server 0x05000000 0x03030000 || rc=1
	fi
	reload_smc "" || { ktap_diag "cannot restore the smc module"; rc=1; }
	reloaded=0
	ktap_result no_smcd_device $rc
fi
ktap_finish
