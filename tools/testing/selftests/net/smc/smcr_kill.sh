#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SIGKILL ends a close() that waits for a send slot of an SMC-R link
# whose peer completes none of our sends.  On the rxe test bed
# (smcr_topo.sh) the test mode 0x8 of /sys/kernel/debug/smc/smcr-llc-test
# posts no receive again on either end, so a peer's sends meet RNR
# NAKs, retried for ever (rnr_retry 7), as against a verbs peer that
# posts no receives.  A filler connection sends one byte at a time
# (net.smc.autocorking_size 0: one CDC each) until its sendmsg waits for
# a slot, and is then killed while a second process keeps its socket
# open: all slots of the link stay taken and no one times out.  A
# victim on the same link then closes its connection, which needs a
# slot for its close flags; it gets SIGKILL after 1 s of that wait and
# must be gone within 2 s, not after SMCR_SLOT_WAIT (10 s).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

KNOB=/sys/kernel/debug/smc/smcr-llc-test
STARVE=8
GONE_MAX=2

smcr_bed_require
[ -w "$KNOB" ] || ktap_skip_all "no $KNOB"
cork_saved=$(sysctl -n net.smc.autocorking_size)
smcr_test_restore()
{
	echo 0 > "$KNOB"
	sysctl -qw net.smc.autocorking_size="$cork_saved"
}
smcr_bed_begin 3
sysctl -qw net.smc.autocorking_size=0

cat > "$tmp_dir/srv.py" <<'PY'
import socket, sys, time
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind((sys.argv[1], int(sys.argv[2])))
ls.listen(8)
conns = [ls.accept()[0] for i in range(2)]
print("accepted", flush=True)
time.sleep(600)		# reads nothing
PY

# filler: connect, fork a holder of the socket, send on "go"
cat > "$tmp_dir/fill.py" <<'PY'
import os, socket, sys, time
s = socket.socket()
s.connect((sys.argv[1], int(sys.argv[2])))
if os.fork() == 0:
    time.sleep(600)
    os._exit(0)
print("connected", flush=True)
sys.stdin.readline()
n = 0
while True:
    s.send(b"x")
    n += 1
    if n % 100 == 0:
        with open(sys.argv[3], "w") as f:
            f.write("%d\n" % n)
PY

# victim: connect, close once the file $3 exists
cat > "$tmp_dir/victim.py" <<'PY'
import os, socket, sys, time
s = socket.socket()
s.connect((sys.argv[1], int(sys.argv[2])))
print("connected", flush=True)
while not os.path.exists(sys.argv[3]):
    time.sleep(0.01)
s.close()
print("closed", flush=True)
PY

# timer: tell victim PID to close (file GO), SIGKILL it after 1 s in D
# state, report when it is gone (exited: a zombie or no process)
cat > "$tmp_dir/timer.py" <<'PY'
import os, signal, sys, time
pid, go = int(sys.argv[1]), sys.argv[2]

def state():
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"

def wchan():
    try:
        return open("/proc/%d/wchan" % pid).read()
    except OSError:
        return "?"

# in the slot wait, not in any other D state (a fault, a mutex on a
# slow kernel) on the way to it
def waits():
    return state() == "D" and wchan() == "smcr_slot_get"

t0 = time.monotonic()
open(go, "w").close()
while not waits():
    if time.monotonic() - t0 > 5 or state() in ("Z", "gone"):
        print("no wait: state %s, wchan %s" % (state(), wchan()))
        sys.exit(1)
    time.sleep(0.01)
tw = time.monotonic()
time.sleep(1)
if not waits():
    print("left the wait by itself after %.2f s: state %s, wchan %s"
          % (time.monotonic() - tw, state(), wchan()))
    sys.exit(1)
where = wchan()
tk = time.monotonic()
os.kill(pid, signal.SIGKILL)
while state() not in ("Z", "gone"):
    if time.monotonic() - tk > 30:
        break
    time.sleep(0.01)
te = time.monotonic()
print("in D after %.2f s (wchan %s), SIGKILL %.2f s into the wait, "
      "gone %.2f s after it, %.2f s after close() began"
      % (tw - t0, where, tk - tw, te - tk, te - t0))
print("%.2f %.2f" % (tk - tw, te - tk))
PY

# in_slot_wait PID: PID sleeps in D state waiting for a send slot (not
# in another D state on the way to it)
in_slot_wait()
{
	[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = D ] &&
		[ "$(cat "/proc/$1/wchan" 2>/dev/null)" = smcr_slot_get ]
}

port=$(free_port)
"${SMC[@]}" python3 "$tmp_dir/srv.py" "$SMCR_B" "$port" > "$tmp_dir/srv.out" 2>&1 &
track $!
wait_until 10 port_listening "$port" ||
	ktap_diag "the server did not listen"

coproc VIC { exec "${SMC[@]}" python3 "$tmp_dir/victim.py" "$SMCR_B" "$port" "$tmp_dir/close"; }
vpid=$VIC_PID
track "$vpid"
read -r -t 30 line <&"${VIC[0]}"
coproc FIL { exec "${SMC[@]}" python3 "$tmp_dir/fill.py" "$SMCR_B" "$port" "$tmp_dir/count"; }
fpid=$FIL_PID
track "$fpid"
read -r -t 30 line2 <&"${FIL[0]}"
hpid=$(pgrep -P "$fpid" python3)
[ -n "$hpid" ] && track "$hpid"

# 1: both connections took SMC-R
rc=0
[ "$line" = connected ] && [ "$line2" = connected ] || rc=1
SMC_EXPECT_PATH=smcr SMC_EXPECT_REASON=0 \
	check_path_while_up victim "$vpid" 20 || rc=1
SMC_EXPECT_PATH=smcr SMC_EXPECT_REASON=0 \
	check_path_while_up filler "$fpid" 20 || rc=1
ktap_result "victim and filler connections take SMC-R" $rc
if [ $rc -ne 0 ]; then
	ktap_skip "filler's sends stall" "no SMC-R"
	ktap_skip "SIGKILL ends the victim's close" "no SMC-R"
	ktap_finish
fi

# 2: the peers post no receives; the filler stalls in a slot wait
echo $STARVE > "$KNOB"
echo go >&"${FIL[1]}"
rc=0
if wait_until 60 in_slot_wait "$fpid"; then
	sleep 0.5
	in_slot_wait "$fpid" || rc=1
else
	rc=1
fi
ktap_diag "filler sent $(cat "$tmp_dir/count" 2>/dev/null || echo '<100') CDCs," \
	"stat $(awk '{print $3}' /proc/$fpid/stat 2>/dev/null)," \
	"wchan $(cat /proc/$fpid/wchan 2>/dev/null)"
kill -9 "$fpid"
wait_until 5 pid_gone "$fpid" || rc=1
ktap_result "the filler's sends stall and it dies of SIGKILL" $rc

# 3: the victim's close waits for a slot; SIGKILL must end it at once.
# The SIGKILL must come well before the slot wait would time out (5 s
# of 10), or the run says nothing.
rc=0
out=$(python3 "$tmp_dir/timer.py" "$vpid" "$tmp_dir/close" 2>&1) || rc=1
ktap_diag "$(head -n 1 <<< "$out")"
if [ $rc -eq 0 ]; then
	read -r into took <<< "$(tail -n 1 <<< "$out")"
	python3 -c "import sys; sys.exit(0 if $into < 5 else 1)" ||
		{ ktap_diag "SIGKILL came too late to tell"; rc=1; }
	python3 -c "import sys; sys.exit(0 if $took <= $GONE_MAX else 1)" ||
		rc=1
fi
ktap_result "SIGKILL ends a close() waiting for a slot within $GONE_MAX s" $rc

echo 0 > "$KNOB"
[ -n "$hpid" ] && kill -9 "$hpid" 2>/dev/null
ktap_finish
