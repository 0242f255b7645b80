#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A CDC that is dropped as stale says nothing, its close flags
# included.  An SMC-R connection whose application closed first stays
# an orphan, holding its RMB, until the peer says it writes no more:
# its close flags in a CDC newer than any taken.  On the rxe test bed
# (smcr_topo.sh), client A closes first; then, with bit 0x10 of
# /sys/kernel/debug/smc/smcr-llc-test (an end sends the connection
# state flags of a CDC with a sequence number two behind, as a hostile
# peer may), server B closes.  A must drop that CDC and keep its
# orphan: the peer may still write into the RMB, which must not serve
# another connection yet.  Without a valid close the orphan goes after
# net.ipv4.tcp_fin_timeout (set to 12 s here).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

LGRS=/sys/kernel/debug/smc/smcr-linkgroups
KNOB=/sys/kernel/debug/smc/smcr-llc-test
STALE=16
FIN=12

smcr_bed_require
[ -w "$KNOB" ] || ktap_skip_all "no $KNOB"
fin_saved=$(sysctl -n net.ipv4.tcp_fin_timeout)
smcr_test_restore()
{
	echo 0 > "$KNOB"
	sysctl -qw net.ipv4.tcp_fin_timeout="$fin_saved"
}
smcr_bed_begin 3
sysctl -qw net.ipv4.tcp_fin_timeout=$FIN

# plain TCP programs, run through smc_run
cat > "$tmp_dir/srv.py" <<'PY'
import socket, sys
ls = socket.socket()
ls.bind((sys.argv[1], 0))
ls.listen(1)
print(ls.getsockname()[1], flush=True)
c, _ = ls.accept()
buf = b""
while len(buf) < 1000:
    buf += c.recv(1000 - len(buf))
c.sendall(buf)			# CDCs both ways: each end has a sequence
while c.recv(1000):		# the client closes first
    pass
print("eof", flush=True)
sys.stdin.readline()		# then we close, when told
c.close()
PY
cat > "$tmp_dir/cli.py" <<'PY'
import socket, sys
s = socket.socket()
s.connect((sys.argv[1], int(sys.argv[2])))
s.sendall(b"x" * 1000)
n = 0
while n < 1000:
    n += len(s.recv(1000 - n))
s.close()
print("closed", flush=True)
PY

# a_conns: connections (orphans included) of A's client group
a_conns()
{
	smcr_lgr_val client "$SMCR_RXEA" conns
}

# a_conns_is N: A's client group has N connections now
a_conns_is()
{
	[ "$(a_conns)" = "$1" ]
}

# 1: A closes first and is an orphan until B's close flags come
rc=0
mkfifo "$tmp_dir/go"
"${SMC[@]}" python3 "$tmp_dir/srv.py" "$SMCR_B" < "$tmp_dir/go" > "$tmp_dir/srv.out" 2>&1 &
srv=$!
track $srv
exec 7> "$tmp_dir/go"
wait_until 10 test -s "$tmp_dir/srv.out" || rc=1
port=$(head -n 1 "$tmp_dir/srv.out")
[ -n "$port" ] || { ktap_diag "the server printed no port"; rc=1; }
"${SMC[@]}" python3 "$tmp_dir/cli.py" "$SMCR_B" "$port" > "$tmp_dir/cli.out" 2>&1 || rc=1
wait_until 10 grep -q '^eof' "$tmp_dir/srv.out" || rc=1
[ "$(a_conns)" = 1 ] || rc=1
ktap_diag "$(cat "$tmp_dir/cli.out" "$tmp_dir/srv.out" "$LGRS")"
ktap_result "the client's socket is an orphan until the server closes" $rc

# 2: B's close flags come in a stale CDC: A drops it, keeps its orphan
rc=0
echo $STALE > "$KNOB"
echo go >&7
exec 7>&-
wait_gone 10 $srv || rc=1
sleep 3
echo 0 > "$KNOB"
[ "$(a_conns)" = 1 ] || rc=1
ktap_diag "3 s after the stale close: A's client group conns $(a_conns)"
ktap_result "close flags in a stale CDC leave the orphan in place" $rc

# 3: with no valid close, the orphan goes after tcp_fin_timeout (the
# timeout itself is not scaled, only the slack for a slow kernel)
rc=0
wait_exactly $((FIN + 30 * SMC_TEST_SLOWDOWN)) a_conns_is 0 || rc=1
ktap_diag "$(cat "$LGRS")"
ktap_result "the orphan goes after tcp_fin_timeout ($FIN s)" $rc

ktap_finish
