#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The generic netlink family SMC_GEN_NETLINK through the smc tool
# (tools/net/smc/smc), on loopback-ism: system information, the SMC-D
# link groups of a live connection, the handshake limitation and its
# permission check, and malformed requests (smc_nl_raw.py).  The SMC-R
# listings are checked against debugfs in smcr.sh.

. "$(dirname "$0")/lib.sh"

RAW=$HERE/smc_nl_raw.py

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 setpriv ip
require_smc
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
setup_common

ktap_header 14

# jq-less JSON access: smc_json EXPR ARGS... evaluates EXPR on "j"
smc_json()
{
	local expr=$1

	shift
	"$SMC_TOOL" -j "$@" | python3 -c "import json, sys
j = json.load(sys.stdin)
print($expr)"
}

# 1: system information
rc=0
host=$(uname -n | cut -c1-32)
want=$(printf '%-32s' "$host")
got=$(smc_json 'j["version"], j["release"], j["smcr_v2"], j["ism_v2"]' info)
[ "$got" = "2 1 1 1" ] || rc=1
[ "$(smc_json 'j["host"]' info)" = "$want" ] || rc=1
ktap_diag "$("$SMC_TOOL" info 2>&1)"
ktap_result "info: version 2.1, SMC-Rv2, ISMv2 (loopback), host name" $rc

# 2: an SMC-D connection shows in both of its link groups
rc=0
conns()
{
	smc_json 'sum(g["conns"] for g in j["lgrs"] if g["type"] == "smcd")' lgr
}
dmbs()
{
	smc_json 'sum(g["dmb_alloc"] for g in j["lgrs"] if g["type"] == "smcd")' lgr
}
base=$(conns)
dmb0=$(dmbs)
port=$(free_port)
# TCP sockets of python become AF_SMC ones through the preload library
"$SMC_RUN" python3 -c '
import socket, sys, time
port = int(sys.argv[1])
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", port))
srv.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
cli.connect(("127.0.0.1", port))
acc, _ = srv.accept()
cli.sendall(b"x")
assert acc.recv(1) == b"x"
print("up", flush=True)
time.sleep(30)
' "$port" > "$tmp_dir/pair" 2>&1 &
pair=$!
track $pair
# bounds for a hang: a python3 start under smc_run and two handshakes
# take seconds on the debug kernel
wait_until 10 grep -q up "$tmp_dir/pair" || rc=1
path_ok $pair || rc=1
during=$(conns)
dmb1=$(dmbs)
# V2_COMMON of the groups in use: SMC-Dv2.1 with ourselves (Linux),
# no send buffer of their own (mapped onto the peer's DMB)
v2=$(WANT=$want smc_json 'sorted(set((g["version"], g["release"],
	g["peer_os"], g["peer_host"] == __import__("os").environ["WANT"],
	g["sndbuf_alloc"], g["dmb_alloc"] > 0)
	for g in j["lgrs"] if g["type"] == "smcd" and g["conns"]))' lgr)
kill $pair 2>/dev/null
wait $pair 2>/dev/null
wait_until 10 test "$(conns)" = "$base" || rc=1
ktap_diag "SMC-D connections in link groups: $base, with the pair $during"
ktap_diag "DMB bytes: $dmb0, with the pair $dmb1, then $(dmbs); $v2"
[ "$during" = $((base + 2)) ] || rc=1
[ "$v2" = "[(2, 1, 2, True, 0, True)]" ] || rc=1
[ "$dmb1" -gt "$dmb0" ] && [ "$(dmbs)" = "$dmb0" ] || rc=1
ktap_diag "$("$SMC_TOOL" lgr 2>&1 | grep smcd)"
ktap_result "lgr: an SMC-D connection in its client and server group, V2 info, DMBs" $rc

# 3: no SMC-D device is listed (loopback-ism never is)
rc=0
out=$(python3 "$RAW" 5 dump) || rc=1
[ "$out" = "OK 0" ] || rc=1
ktap_diag "GET_DEV_SMCD: $out"
ktap_result "dev smcd: loopback-ism is not listed" $rc

# 4: the handshake limitation, and new sockets take it
rc=0
limit_of_new_socket()
{
	python3 -c 'import socket
s = socket.socket(43, socket.SOCK_STREAM, 0)
print(s.getsockopt(286, 1))'
}
"$SMC_TOOL" hs on > /dev/null || rc=1
[ "$(smc_json 'j["limit"]' hs)" = 1 ] || rc=1
[ "$(limit_of_new_socket)" = 1 ] || rc=1
"$SMC_TOOL" hs off > /dev/null || rc=1
[ "$(smc_json 'j["limit"]' hs)" = 0 ] || rc=1
[ "$(limit_of_new_socket)" = 0 ] || rc=1
ktap_result "hs: on and off, new sockets take the netns value" $rc

# 5: only an admin changes it; anyone reads
rc=0
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${nobody[@]}" "$SMC_TOOL" hs on > "$tmp_dir/hs" 2>&1 && rc=1
ktap_diag "unprivileged: $(cat "$tmp_dir/hs")"
grep -q "not permitted" "$tmp_dir/hs" || rc=1
[ "$(smc_json 'j["limit"]' hs)" = 0 ] || rc=1
"${nobody[@]}" "$SMC_TOOL" -j hs > /dev/null || rc=1
"${nobody[@]}" "$SMC_TOOL" -j lgr > /dev/null || rc=1
ktap_result "hs: unprivileged callers read but cannot change" $rc

# 6: malformed requests get clean errors
rc=0
# check_raw "WANT CMD FLAGS [ATTR...]"...: each request's answer is the
# errno name WANT (smc_nl_raw.py, one run for all of them)
check_raw()
{
	local req want words args=() wants=() i=0 got

	for req in "$@"; do
		read -r want words <<< "$req"
		wants+=("$want")
		# shellcheck disable=SC2206 # the words of the request
		args+=($words +)
	done
	while read -r got; do
		req=${1:-}
		shift
		ktap_diag "${req:0:40} -> $got"
		[ "${got%% *}" = "${wants[i]}" ] || rc=1
		i=$((i + 1))
	done < <(python3 "$RAW" "${args[@]}" 2>&1)
	[ $i = ${#wants[@]} ] || rc=1
}
raw=(
	"EINVAL 1 dump 1:41414141"	# attribute on a listing
	"EINVAL 17 do 1:00"		# attribute on a command
	"EINVAL 2 dump 7:"		# unknown attribute type
	"EOPNOTSUPP 99 dump"		# unknown command
	"EOPNOTSUPP 1 do"		# listing without NLM_F_DUMP
	"EOPNOTSUPP 17 dump"		# command as a dump
	"EINVAL 3 dump 1:$(printf '41%.0s' {1..4000})"	# oversized
	"OK 1 dump"
)
check_raw "${raw[@]}"
ktap_result "malformed requests: EINVAL or EOPNOTSUPP, no crash" $rc

# 7: the module is fine afterwards
rc=0
out=$(python3 "$RAW" 2 dump) || rc=1
[ "${out%% *}" = OK ] || rc=1
"$SMC_TOOL" dev > /dev/null || rc=1
ktap_result "listings work after the malformed requests" $rc

# 8-9: statistics, in a netns of their own (they are kept per netns)
NS=smcnl$$
ip netns add "$NS" && ip -n "$NS" link set lo up || rc=1
trap 'ip netns del "$NS" 2>/dev/null; cleanup' EXIT
stats_json()
{
	ip netns exec "$NS" "$SMC_TOOL" -j stats > "$tmp_dir/st.json" &&
		python3 -c "import json, sys
j = json.load(open(sys.argv[1]))
print($1)" "$tmp_dir/st.json"
}
rc=0
[ "$(stats_json 'j["smcd"]["tx_bytes"], j["smcr"]["tx_cnt"],
	j["fallback"]["clnt_cnt"]')" = "0 0 0" ] || rc=1
# one SMC-D connection: 60000 bytes up in one write (the DMB takes
# them without a reader), 5000 down; the
# counters are read while it is up (the buffers in use), then after
out=$(# the preload way (-p): the client it starts leaves it with LD_PRELOAD,
# where the BPF way would convert the whole cgroup, client included
ip netns exec "$NS" "$SMC_RUN" -p python3 -c '
import socket, subprocess, sys
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
cli.connect(srv.getsockname())
acc, _ = srv.accept()
cli.sendall(b"u" * 60000)
got = 0
while got < 60000:
    got += len(acc.recv(60000 - got))
acc.sendall(b"d" * 5000)
# a read shorter than what is readable: counted as such
got = len(cli.recv(1000))
while got < 5000:
    got += len(cli.recv(5000 - got))
sys.stdout.flush()
subprocess.run([sys.argv[1], "-j", "stats"], check=True)
subprocess.run([sys.argv[2], "-p", str(__import__("os").getpid()),
                "-f", str(cli.fileno())], check=True, stdout=sys.stderr)
' "$SMC_TOOL" "$SMC_PATH" 2> "$tmp_dir/st.path")
ktap_diag "$(cat "$tmp_dir/st.path")"
grep -q 'mode=smcd' "$tmp_dir/st.path" || rc=1
got=$(echo "$out" | python3 -c 'import json, sys
d = json.load(sys.stdin)["smcd"]
print(d["clnt_v2_succ"], d["srv_v2_succ"], d["tx_bytes"], d["rx_bytes"],
      d["rx_rmb_size"]["64k"], d["tx_rmb_size"]["64k"],
      d["rx_rmb_stats"]["alloc_cnt"], d["rx_rmb_usage"],
      d["tx_rmb_usage"], d["txpload_size"]["64k"],
      d["txpload_size"]["8k"], d["rx_rmb_stats"]["size_sm_cnt"])' 2>&1)
ktap_diag "smcd while up: $got"
[ "$got" = "1 1 65000 65000 2 2 2 131072 131072 1 1 1" ] || rc=1
sleep 1
got=$(stats_json 'j["smcd"]["rx_rmb_usage"], j["smcd"]["tx_rmb_usage"],
	j["smcd"]["tx_cnt"] >= 2, j["smcd"]["rx_cnt"] >= 2, j["smcr"]["tx_bytes"],
	j["clnt_hs_err_cnt"]')
ktap_diag "smcd after close: $got"
[ "$got" = "0 0 True \
True 0 0" ] || rc=1
ktap_result "stats: handshakes, bytes, buffers, payload sizes and short reads of SMC-D" $rc

# fallbacks by reason: an SMC client to a TCP server, and a TCP client
# to an SMC server, both PEERNOSMC (client and server side)
rc=0
ip netns exec "$NS" python3 -c '
import socket, subprocess, sys
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.bind(("127.0.0.1", 0))
tcp.listen(1)
subprocess.run([sys.argv[1], "python3", "-c", """
import socket, sys
c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
c.connect(("127.0.0.1", int(sys.argv[1])))
c.sendall(b"x")
""", str(tcp.getsockname()[1])], check=True)
assert tcp.accept()[0].recv(1) == b"x"
' "$SMC_RUN" || rc=1
# the preload way (-p): the client it starts leaves it with LD_PRELOAD,
# where the BPF way would convert the whole cgroup, client included
ip netns exec "$NS" "$SMC_RUN" -p python3 -c '
import socket, subprocess, sys
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
subprocess.run(["python3", "-c", """
import socket, sys
c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
c.connect(("127.0.0.1", int(sys.argv[1])))
c.sendall(b"y")
""", str(srv.getsockname()[1])], check=True, env={"PATH": "/usr/bin:/bin"})
assert srv.accept()[0].recv(1) == b"y"
' || rc=1
got=$(stats_json 'j["fallback"]["srv_cnt"], j["fallback"]["clnt_cnt"],
	j["fallback"]["server"], j["fallback"]["client"]')
ktap_diag "fallbacks: $got"
fb="[{'reason': '0x03010000', 'count': 1}]"
[ "$got" = "1 1 $fb $fb" ] || rc=1
ktap_diag "$(ip netns exec "$NS" "$SMC_TOOL" stats fallback 2>&1)"
ktap_result "stats: fallbacks counted per side and reason" $rc

# 10: user EIDs: the rules of the table, and who may change it
rc=0
ueid()
{
	"$SMC_TOOL" ueid "$@" 2>&1
}
"$SMC_TOOL" ueid flush || rc=1
ueid add SMC-TEST.EID1 > /dev/null || rc=1
ueid add SMC-TEST.EID1 | grep -q 'File exists' || rc=1
ueid add smc-lower | grep -q 'Invalid argument' || rc=1
ueid add .DOT-FIRST | grep -q 'Invalid argument' || rc=1
ueid add 'A B' | grep -q 'Invalid argument' || rc=1
for e in E2 E3 E4; do
	ueid add "$e" > /dev/null || rc=1
done
ueid add E5 | grep -q 'Numerical result out of range' || rc=1
"${nobody[@]}" "$SMC_TOOL" ueid add E6 2>&1 | grep -q 'not permitted' ||
	rc=1
got=$("$SMC_TOOL" -j ueid)
ktap_diag "ueids: $got"
[ "$got" = '["SMC-TEST.EID1","E2","E3","E4"]' ] ||
	[ "$(echo "$got" | python3 -c 'import json,sys; print(json.load(sys.stdin))')" = \
		"['SMC-TEST.EID1', 'E2', 'E3', 'E4']" ] || rc=1
ueid del E3 > /dev/null || rc=1
ueid del E3 | grep -q 'No such file' || rc=1
# a payload that is not 32 chars and a NUL, or an unknown attribute
check_raw "EINVAL 10 do 1:414243" "EINVAL 10 do" "EINVAL 10 do 2:00"
"$SMC_TOOL" ueid flush || rc=1
[ "$("$SMC_TOOL" -j ueid | tr -d ' \n')" = "[]" ] || rc=1
ktap_result "ueid: add, del, flush, the table's rules, admin only" $rc

# 11: no system EID outside s390: listed empty, not offered, fixed
rc=0
got=$("$SMC_TOOL" -j seid | python3 -c 'import json, sys
j = json.load(sys.stdin)
print(j["available"], repr(j.get("seid")), j.get("enabled"))')
ktap_diag "seid: $got"
[ "$got" = "1 '' 0" ] || rc=1
"$SMC_TOOL" seid enable 2>&1 | grep -q 'not supported' || rc=1
"$SMC_TOOL" seid disable 2>&1 | grep -q 'not supported' || rc=1
ktap_result "seid: empty and off; enable and disable not supported" $rc

# 12: sockets through sock_diag in the smc tool, and pnet entries
rc=0
out=$(# the preload way (-p): the client it starts leaves it with LD_PRELOAD,
# where the BPF way would convert the whole cgroup, client included
ip netns exec "$NS" "$SMC_RUN" -p python3 -c '
import socket, subprocess, sys
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
cli = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
cli.connect(srv.getsockname())
acc, _ = srv.accept()
print(cli.getsockname()[1], srv.getsockname()[1])
sys.stdout.flush()
subprocess.run([sys.argv[1], "-j", "sock"], check=True)
' "$SMC_TOOL")
ports=$(echo "$out" | head -1)
got=$(echo "$out" | tail -n +2 | python3 -c 'import json, sys
cport, sport = map(int, sys.argv[1].split())
socks = json.load(sys.stdin)
for s in sorted(socks, key=lambda s: (s["local_port"], s["peer_port"])):
    print(s["state"], s["path"], s["local_port"] in (cport, sport),
          "conn" in s, "dmb" in s)' "$ports" 2>&1)
ktap_diag "$got"
[ "$(echo "$got" | grep -c "^ACTIVE smcd True \
True True\$")" = 2 ] || rc=1
[ "$(echo "$got" | grep -c '^LISTEN')" = 1 ] || rc=1
ip netns exec "$NS" ip link add smcnl0 type dummy || rc=1
ip netns exec "$NS" "$SMC_TOOL" pnet add NETA dev smcnl0 || rc=1
got=$(ip netns exec "$NS" "$SMC_TOOL" -j pnet)
ktap_diag "pnet: $got"
echo "$got" | grep -q '"name": *"NETA"' || rc=1
echo "$got" | grep -q '"ethname": *"smcnl0"' || rc=1
ip netns exec "$NS" "$SMC_TOOL" pnet del NETA || rc=1
[ "$(ip netns exec "$NS" "$SMC_TOOL" -j pnet | tr -d ' \n')" = "[]" ] || rc=1
ktap_result "sock and pnet through the smc tool" $rc

# 13: every command and attribute the kernel sends is in the YNL specs
# (Documentation/netlink/specs), with the type they give it
rc=0
python3 "$HERE/smc_nl_spec.py" --live > "$tmp_dir/spec" 2>&1 || rc=1
ktap_diag "$(tail -n 5 "$tmp_dir/spec")"
ktap_result "netlink replies as Documentation/netlink/specs describe" $rc

# 14: the same replies through the kernel's own spec-driven client
# (tools/net/ynl), which decodes them by the specs
rc=0
python3 "$HERE/smc_nl_ynl.py" > "$tmp_dir/ynl" 2>&1 || rc=$?
ktap_diag "$(grep -v '^ok' "$tmp_dir/ynl" | tail -n 5)"
if [ $rc = 4 ]; then
	ktap_skip "netlink replies through ynl" "$(tail -n 1 "$tmp_dir/ynl")"
else
	ktap_result "netlink replies through ynl" $rc
fi

ktap_finish
