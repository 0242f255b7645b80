#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kTLS on the fd of a fallen-back connection, then rmmod.  After the
# fallback the fd of an AF_SMC socket calls its TCP socket directly,
# where an unprivileged user (uid 65534) may set TCP_ULP "tls" with
# TLS_TX and TLS_RX.  kTLS saves the TCP socket's data_ready (ours, the
# module's text) and puts it back when the socket is closed, after the
# module reset its callbacks.  The orphaned TCP sockets (FIN_WAIT2: the
# TCP-only peer never closes; TCP_LINGER2 120 s keeps them full sockets)
# must hold no pointer to a callback of the module, before and after
# "rmmod smc"; then the peer writes to them and closes, and the module
# is loaded again.  (TCP calls no data_ready of a dead socket, so the
# dangling pointer is not known to be called: it is checked for.)
#
# The orphans' memory is read as root through /proc/kcore at the
# addresses /proc/net/tcp shows (kptr_restrict 1), and compared with the
# addresses of smc_clcsk_* in /proc/kallsyms.

. "$(dirname "$0")/lib.sh"

NSOCK=8
PARAM=/sys/module/smc/parameters/smcd

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
[ -f "$SMC_MODULE_DIR/smc.ko" ] ||
	ktap_skip_all "no smc.ko in SMC_MODULE_DIR"
require_tools python3 setpriv rmmod insmod modprobe
require_smc
modprobe tls 2>/dev/null || ktap_skip_all "no tls module"
[ -r /proc/kcore ] || ktap_skip_all "no /proc/kcore"
setup_common
chmod 755 "$tmp_dir"	# the scripts are read by uid 65534

old_kptr=$(cat /proc/sys/kernel/kptr_restrict)
old_smcd=$(cat "$PARAM")
reloaded=0
restore()
{
	cleanup
	echo "$old_kptr" > /proc/sys/kernel/kptr_restrict
	if [ ! -d /sys/module/smc ] || [ "$reloaded" = 1 ]; then
		[ -d /sys/module/smc ] || reload_smc "" ||
			ktap_diag "could not restore the smc module"
	fi
	[ -w "$PARAM" ] && echo "$old_smcd" > "$PARAM"
}
trap restore EXIT
echo 1 > /proc/sys/kernel/kptr_restrict

ktap_header 4

# the TCP-only peer: accepts, keeps every connection open, writes to
# each and closes them all when told to
cat > "$tmp_dir/peer.py" <<'PY'
import os, socket, sys, time
port, go = int(sys.argv[1]), sys.argv[2]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(64)
ls.settimeout(0.1)
conns = []
end = time.time() + 600
while not os.path.exists(go) and time.time() < end:
    try:
        conns.append(ls.accept()[0])
    except socket.timeout:
        pass
for c in conns:
    try:
        c.send(b"x" * 100)
    except OSError:
        pass
    c.close()
print("peer done", len(conns), flush=True)
PY

# the attacker, uid 65534, under smc_run (AF_INET becomes AF_SMC)
cat > "$tmp_dir/user.py" <<'PY'
import socket, struct, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
TCP_ULP, SOL_TLS, TLS_TX, TLS_RX = 31, 282, 1, 2
# tls12_crypto_info_aes_gcm_128: TLS 1.2, AES-GCM-128
info = struct.pack("=HH8s16s4s8s", 0x0303, 51, b"\1" * 8, b"\2" * 16,
                   b"\3" * 4, b"\0" * 8)
socks = []
for i in range(n):
    s = socket.socket()
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.SOL_TCP, TCP_ULP, b"tls")
    s.setsockopt(SOL_TLS, TLS_TX, info)
    s.setsockopt(SOL_TLS, TLS_RX, info)
    # orphaned in FIN_WAIT2 for 120 s: the full socket stays (no
    # timewait sock takes its place for the first 60 s)
    s.setsockopt(socket.SOL_TCP, socket.TCP_LINGER2, 120)
    socks.append(s)
print("ready", len(socks), ",".join(str(s.getsockname()[1]) for s in socks),
      flush=True)
sys.stdin.readline()
for s in socks:
    s.close()
print("closed", flush=True)
PY

# scan PORT SYMFILE LPORTS: for each TCP socket whose remote port is
# PORT, the first 2 KiB of its struct (struct sock lies within it, and
# no other object: a tcp_sock is larger) searched for the callback
# addresses in SYMFILE; prints "N orphans, M with ours", N counting the
# user's sockets (local ports LPORTS, comma-separated) and M all of
# them.  Another socket to PORT (a time-wait one of an earlier program
# whose server had the same port) is named, not counted.
cat > "$tmp_dir/scan.py" <<'PY'
import struct, sys
port, symfile = int(sys.argv[1]), sys.argv[2]
lports = {int(p) for p in sys.argv[3].split(",")}
syms = {}
for line in open(symfile):
    a, name = line.split()
    syms[int(a, 16)] = name
lo, hi = min(syms), max(syms) + 4096
socks = []
users = 0
for line in open("/proc/net/tcp").readlines()[1:]:
    f = line.split()
    if int(f[2].split(":")[1], 16) != port:
        continue
    lport, st = int(f[1].split(":")[1], 16), int(f[3], 16)
    if lport in lports:
        users += 1
    else:
        print("another socket to the port: local port %d state %d" %
              (lport, st))
        if st == 6:    # a time-wait sock holds no callbacks
            continue
    socks.append((int(f[11], 16), st))
kc = open("/proc/kcore", "rb")
eh = kc.read(64)
phoff, = struct.unpack_from("<Q", eh, 32)
phentsize, phnum = struct.unpack_from("<HH", eh, 54)
loads = []
kc.seek(phoff)
for i in range(phnum):
    ph = kc.read(phentsize)
    ptype, _, off, vaddr, _, fsz = struct.unpack_from("<IIQQQQ", ph)
    if ptype == 1:
        loads.append((vaddr, off, fsz))
bad = 0
for addr, st in socks:
    if addr == 0:
        print("no address for a socket (kptr_restrict?)")
        sys.exit(2)
    for vaddr, off, fsz in loads:
        if vaddr <= addr and addr + 2048 <= vaddr + fsz:
            kc.seek(off + addr - vaddr)
            mem = kc.read(2048)
            break
    else:
        print("0x%x not in /proc/kcore" % addr)
        sys.exit(2)
    words = [v for (v,) in struct.iter_unpack("<Q", mem)]
    hits = [syms[v] for v in words if v in syms]
    near = ["+%#x:%#x" % (i * 8, v) for i, v in enumerate(words)
            if lo <= v < hi and v not in syms]
    if near:
        print("sock 0x%x: other words into the module: %s" %
              (addr, " ".join(near[:4])))
    if hits:
        bad += 1
        print("sock 0x%x state %d holds %s" % (addr, st, ",".join(hits)))
print("%d orphans, %d with ours" % (users, bad))
sys.exit(1 if bad else 0)
PY

port=$(free_port)
python3 "$tmp_dir/peer.py" "$port" "$tmp_dir/go" > "$tmp_dir/peer.out" 2>&1 &
track $!
wait_until 10 port_listening "$port" ||
	ktap_diag "the peer did not listen"

# case 1: the user's connections fell back with the redirect, kTLS set
coproc USR { setpriv --reuid=65534 --regid=65534 --clear-groups \
	"${SMC[@]}" python3 "$tmp_dir/user.py" "$port" $NSOCK 2>&1; }
upid=$USR_PID
track "$upid"
rc=0
read -r -t 60 line <&"${USR[0]}"
ktap_diag "user: $line"
lports=${line##* }	# "ready N PORT,PORT,..."
line=${line% *}
if [ "$line" != "ready $NSOCK" ]; then
	rc=1
else
	SMC_EXPECT_PATH=fallback SMC_EXPECT_REASON=0x03010000 \
		check_path_while_up "uid 65534 client" \
			"$(pgrep -P "$upid" python3 || echo "$upid")" 20 || rc=1
	n=$("$SMC_PATH" -c -p "$(pgrep -P "$upid" python3 || echo "$upid")")
	[ "$n" = "$NSOCK" ] || { ktap_diag "$n AF_SMC sockets, not $NSOCK"; rc=1; }
fi
ktap_result "uid 65534: $NSOCK fallbacks (0x03010000) with kTLS TX+RX" $rc
if [ $rc -ne 0 ]; then
	for i in 2 3 4; do
		ktap_skip "case $i" "no kTLS on fallen-back sockets"
	done
	ktap_finish
fi

# the callbacks of the module, while it is loaded
grep -E ' smc_clcsk_[a-z_]+[[:space:]]+\[smc\]' /proc/kallsyms |
	awk '{print $1, $3}' > "$tmp_dir/syms"
ktap_diag "callbacks: $(awk '{print $2}' "$tmp_dir/syms" | tr '\n' ' ')"

# case 2: closed: the orphans hold no callback of ours
echo close >&"${USR[1]}"
read -r -t 60 line <&"${USR[0]}"
ktap_diag "user: $line"
sleep 1
out=$(python3 "$tmp_dir/scan.py" "$port" "$tmp_dir/syms" "$lports" 2>&1)
rc=$?
ktap_diag "$out"
grep -q "^$NSOCK orphans" <<< "$out" ||
	{ ktap_diag "expected $NSOCK orphaned TCP sockets"; rc=1; }
ktap_result "orphaned kTLS sockets hold no callback of the module" $rc

# case 3: rmmod while they are orphans; still nothing of the old module
rc=0
[ -d /sys/module/smc_diag ] && rmmod smc_diag
if rmmod smc 2> "$tmp_dir/rmmod.err"; then
	reloaded=1
	out=$(python3 "$tmp_dir/scan.py" "$port" "$tmp_dir/syms" "$lports" 2>&1) ||
		rc=1
	ktap_diag "after rmmod: $out"
else
	ktap_diag "rmmod smc: $(cat "$tmp_dir/rmmod.err")"
	rc=1
fi
ktap_result "rmmod smc with the orphans alive, no dangling callback" $rc

# case 4: the peer writes to the orphans and closes; the module again
rc=0
touch "$tmp_dir/go"
sleep 2
ktap_diag "$(cat "$tmp_dir/peer.out")"
grep -q "peer done $NSOCK" "$tmp_dir/peer.out" || rc=1
reload_smc "" || rc=1
python3 -c 'import socket; socket.socket(43, socket.SOCK_STREAM, 0)' || rc=1
ktap_result "events on the orphans after rmmod, module loads again" $rc
ktap_finish
