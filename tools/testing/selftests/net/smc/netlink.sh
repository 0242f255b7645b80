#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The generic netlink family SMC_GEN_NETLINK through the smc tool
# (tools/net/smc/smc), on loopback-ism: system information, the SMC-D
# link groups of a live connection, the handshake limitation and its
# permission check, and malformed requests (smc_nl_raw.py).  The SMC-R
# listings are checked against debugfs in smcr.sh.

. "$(dirname "$0")/lib.sh"

SMC_TOOL=$REPO/tools/net/smc/smc
RAW=$HERE/smc_nl_raw.py

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 setpriv
require_smc
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
setup_common

ktap_header 7

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
base=$(conns)
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
wait_until 10 grep -q up "$tmp_dir/pair" || rc=1
path_ok $pair || rc=1
during=$(conns)
kill $pair 2>/dev/null
wait $pair 2>/dev/null
wait_until 10 test "$(conns)" = "$base" || rc=1
ktap_diag "SMC-D connections in link groups: $base, with the pair $during"
[ "$during" = $((base + 2)) ] || rc=1
ktap_diag "$("$SMC_TOOL" lgr 2>&1 | grep smcd)"
ktap_result "lgr: an SMC-D connection counts in its client and server group" $rc

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
check_raw()
{
	local want=$1 got

	shift
	got=$(python3 "$RAW" "$@" 2>&1)
	ktap_diag "$(echo "$*" | cut -c1-40) -> $got"
	[ "${got%% *}" = "$want" ] || rc=1
}
check_raw EINVAL 1 dump 1:41414141		# attribute on a listing
check_raw EINVAL 17 do 1:00			# attribute on a command
check_raw EINVAL 2 dump 7:			# unknown attribute type
check_raw EOPNOTSUPP 99 dump			# unknown command
check_raw EOPNOTSUPP 1 do			# listing without NLM_F_DUMP
check_raw EOPNOTSUPP 17 dump			# command as a dump
check_raw EINVAL 3 dump 1:$(printf '41%.0s' $(seq 4000))	# oversized
check_raw OK 1 dump
ktap_result "malformed requests: EINVAL or EOPNOTSUPP, no crash" $rc

# 7: the module is fine afterwards
rc=0
out=$(python3 "$RAW" 2 dump) || rc=1
[ "${out%% *}" = OK ] || rc=1
"$SMC_TOOL" dev > /dev/null || rc=1
ktap_result "listings work after the malformed requests" $rc

ktap_finish
