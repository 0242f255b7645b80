#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The net.smc sysctls on loopback-ism: names, defaults and ranges, one
# table per network namespace, and the effect of wmem/rmem on the
# buffers of new connections and of limit_smc_hs on a busy listener.
# The SMC-R ones (smcr_buf_type, smcr_testlink_time, the limits per
# link group, autocorking_size) are checked on the rxe bed in smcr.sh.
# Everything that changes a value runs in a namespace of its own.

. "$(dirname "$0")/lib.sh"

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 ip
require_smc
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
setup_common

NS=smcsys$$
ip netns add "$NS" || ktap_skip_all "cannot make a netns"
ip -n "$NS" link set lo up
cleanup_ns()
{
	ip netns del "$NS" 2>/dev/null
	cleanup
}
trap cleanup_ns EXIT

ktap_header 7

# in NS: run "$@" there
in_ns()
{
	ip netns exec "$NS" "$@"
}

# name default min max (min/max: "-" when unbounded)
TABLE="autocorking_size 65536 - -
smcr_buf_type 0 0 2
smcr_testlink_time 30 - -
wmem 65536 16384 1073741823
rmem 65536 16384 1073741823
smcr_max_links_per_lgr 2 1 2
smcr_max_conns_per_lgr 255 16 255
smcr_max_send_wr 16 2 2048
smcr_max_recv_wr 48 2 2048
limit_smc_hs 0 0 1"

# The checks of cases 1 and 2 read and write /proc with builtins, and
# run in NS as one bash (in_ns_fn): a fork and exec per value would cost
# a minute on a debug kernel.

# in_ns_fn FN...: the functions FN... with TABLE in one bash in NS,
# which calls the first
in_ns_fn()
{
	in_ns bash -c "$(declare -p TABLE); $(declare -f "$@"); $1"
}

# defaults [WHERE]: each sysctl of TABLE has its default
defaults()
{
	local name def min max got rc=0

	while read -r name def min max; do
		got=""
		read -r got < "/proc/sys/net/smc/$name"
		if [ "$got" != "$def" ]; then
			echo "# ${1:-netns}: $name is '$got', want $def"
			rc=1
		fi
	done <<< "$TABLE"
	return $rc
}

# bound FILE PAST AT: PAST is refused, AT taken and read back
bound()
{
	local got

	if echo "$2" 2>/dev/null > "$1"; then
		echo "# $1 took $2"
		return 1
	fi
	echo "$3" > "$1" && read -r got < "$1" && [ "$got" = "$3" ]
}

# bounds: one past each bound of each sysctl of TABLE, each bound, and
# the default back
bounds()
{
	local name def min max f rc=0

	while read -r name def min max; do
		f=/proc/sys/net/smc/$name
		[ "$min" = - ] || bound "$f" $((min - 1)) "$min" || rc=1
		[ "$max" = - ] || bound "$f" $((max + 1)) "$max" || rc=1
		echo "$def" > "$f" || rc=1
	done <<< "$TABLE"
	return $rc
}

# 1: every sysctl, with its default, in init_net and in a new netns
rc=0
defaults init_net || rc=1
in_ns_fn defaults || rc=1
ktap_result "all ten net.smc sysctls, with their defaults, in every netns" $rc

# 2: the bounds: one past each is refused, each bound itself taken
rc=0
in_ns_fn bounds bound || rc=1
ktap_result "values out of range are refused, the bounds are taken" $rc

# 3: a change in one netns leaves the others alone
rc=0
in_ns sh -c 'echo 131072 > /proc/sys/net/smc/wmem' || rc=1
[ "$(cat /proc/sys/net/smc/wmem)" = 65536 ] || rc=1
[ "$(in_ns cat /proc/sys/net/smc/wmem)" = 131072 ] || rc=1
in_ns sh -c 'echo 65536 > /proc/sys/net/smc/wmem'
ktap_result "each netns has its own values" $rc

# one SMC-D connection in NS; prints smc_path -v of the client socket
# and the SO_SNDBUF/SO_RCVBUF the socket started with
conn_info()
{
	in_ns "$SMC_RUN" python3 -c '
import socket, subprocess, sys
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
print("sk", cli.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
      cli.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
cli.connect(srv.getsockname())
acc, _ = srv.accept()
cli.sendall(b"x" * 1000)
assert acc.recv(1000)
sys.stdout.flush()
subprocess.run([sys.argv[1], "-p", str(__import__("os").getpid()),
                "-f", str(cli.fileno()), "-v"], check=True)
' "$SMC_PATH"
}

# 4: wmem and rmem size the buffers of new connections
rc=0
in_ns sh -c 'echo 262144 > /proc/sys/net/smc/wmem; echo 524288 > /proc/sys/net/smc/rmem' || rc=1
out=$(conn_info 2>&1)
ktap_diag "$out"
echo "$out" | grep -q '^sk 524288 1048576$' || rc=1
echo "$out" | grep -q 'mode=smcd' || rc=1
# the RMB (DMB) after rmem; the send buffer is the peer's DMB, whose
# ring leaves out the 32-byte CDC area
echo "$out" | grep -q ' rmbe=524288 peer_rmbe=524256 sndbuf=524256 ' ||
	rc=1
in_ns sh -c 'echo 16384 > /proc/sys/net/smc/rmem' || rc=1
out=$(conn_info 2>&1)
ktap_diag "$out"
echo "$out" | grep -q '^sk 524288 32768$' || rc=1
echo "$out" | grep -q ' rmbe=16384 ' || rc=1
in_ns sh -c 'echo 65536 > /proc/sys/net/smc/wmem; echo 65536 > /proc/sys/net/smc/rmem'
ktap_result "wmem and rmem: socket buffers and the DMB of new connections" $rc

# 5: limit_smc_hs and the netlink handshake limitation are one setting,
# copied into each new socket
rc=0
in_ns sh -c 'echo 1 > /proc/sys/net/smc/limit_smc_hs' || rc=1
hs_limit()
{
	"$@" "$SMC_TOOL" -j hs | python3 -c 'import json, sys
print(json.load(sys.stdin)["limit"])'
}
[ "$(hs_limit in_ns)" = 1 ] || rc=1
in_ns "$SMC_TOOL" hs off > /dev/null || rc=1
[ "$(in_ns cat /proc/sys/net/smc/limit_smc_hs)" = 0 ] || rc=1
in_ns "$SMC_TOOL" hs on > /dev/null || rc=1
[ "$(in_ns cat /proc/sys/net/smc/limit_smc_hs)" = 1 ] || rc=1
# SOL_SMC (286), SMC_LIMIT_HS (1) of a new socket
got=$(in_ns python3 -c '
import socket
s = socket.socket(43, socket.SOCK_STREAM, 0)
print(int.from_bytes(s.getsockopt(286, 1, 4), "little"))')
[ "$got" = 1 ] || { ktap_diag "SMC_LIMIT_HS of a new socket: $got"; rc=1; }
# init_net's stays off
[ "$(hs_limit)" = 0 ] || rc=1
ktap_result "limit_smc_hs: the netlink setting, each new socket's default" $rc

# 6: with the limitation, a listener whose backlog is taken by
# connections nobody accepts takes the next ones as TCP at once (its
# SYN-ACK goes without the SMC option: the client falls back with
# PEERNOSMC); the first ones got SMC-D
rc=0
out=$(in_ns "$SMC_RUN" python3 -c '
import os, socket, subprocess, sys
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(2)
clis = []
for i in range(5):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(20)
    c.connect(srv.getsockname())
    clis.append(c)
for c in clis:
    sys.stdout.flush()
    subprocess.run([sys.argv[1], "-p", str(os.getpid()),
                    "-f", str(c.fileno())], check=True)
' "$SMC_PATH" 2>&1) || rc=1
ktap_diag "$out"
smcd=$(echo "$out" | grep -c 'mode=smcd')
fb=$(echo "$out" | grep -c 'mode=fallback reason=0x03010000')
[ "$smcd" -ge 1 ] && [ "$fb" -ge 1 ] && [ $((smcd + fb)) = 5 ] || rc=1
ktap_result "limit_smc_hs: a busy listener's next connections go TCP at once" $rc

# 7: without it, the same connections all wait for SMC-D
rc=0
in_ns sh -c 'echo 0 > /proc/sys/net/smc/limit_smc_hs' || rc=1
out=$(in_ns "$SMC_RUN" python3 -c '
import os, socket, subprocess, sys, threading
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(2)
clis = []
for i in range(5):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.settimeout(20)
    clis.append(c)
ts = [threading.Thread(target=c.connect, args=(srv.getsockname(),))
      for c in clis]
for t in ts:
    t.start()
acc = [srv.accept()[0] for c in clis]
for t in ts:
    t.join()
for c in clis:
    sys.stdout.flush()
    subprocess.run([sys.argv[1], "-p", str(os.getpid()),
                    "-f", str(c.fileno())], check=True)
' "$SMC_PATH" 2>&1) || rc=1
ktap_diag "$out"
[ "$(echo "$out" | grep -c 'mode=smcd')" = 5 ] || rc=1
ktap_result "no limitation: connections beyond the backlog still get SMC-D" $rc

ktap_finish
