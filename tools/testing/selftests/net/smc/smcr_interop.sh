#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMC-R between our module and upstream's, in two VMs (tools/testing/vm/
# vm-pair): this guest runs ours, the peer guest runs Debian's own smc.ko
# and smc_diag.ko.  Two point-to-point links join the guests; each end
# has an rxe device on each.  Link 2 stays down until the cases that
# make link groups with two links and fail one of them.
#
#   smcr_interop.sh --peer    the upstream guest: link 1 up, then serve
#   smcr_interop.sh           this guest (ours): the test
#
# The peer serves shell commands on link 1 (interop_peer.py); the test
# runs the peer's half of every case through it, over bash's /dev/tcp.
# Both guests see the host's file system, so both use the smc_xfer and
# smc tool built here.
# Without the links (a normal test run) the test skips.
#
# Upstream on a machine without a system EID offers and takes SMC-Rv2
# only with a user EID, so the cases run without UEIDs, with different
# ones, and with one common UEID; the decline codes must be the same
# whichever end runs which module.
#
# Upstream's SMC-R over 6.1's rxe hangs (its completion handling needs
# what that rxe lacks), so make check runs the pair on 6.12 only.

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AGENT_PORT=7341
EID=SMC-INTEROP.EID
EID_OURS=SMC-INTEROP.OURS
EID_PEER=SMC-INTEROP.PEER
PNETID=SMCINTEROP

# Each end: MAC, address and rxe device of link 1, then of link 2.  Both
# links share one /24: upstream's SMC-Rv2 adds a link only on a device
# with an address in the subnet of the group's first one.  Host routes
# keep each peer address on its own link.
declare -A MAC1=([peer]=52:54:00:5c:00:01 [ours]=52:54:00:5c:00:02)
declare -A MAC2=([peer]=52:54:00:5c:00:03 [ours]=52:54:00:5c:00:04)
declare -A ADDR1=([peer]=10.98.0.1 [ours]=10.98.0.2)
declare -A ADDR2=([peer]=10.98.0.11 [ours]=10.98.0.12)
PEER_ADDR=${ADDR1[peer]}
OURS_ADDR=${ADDR1[ours]}

# nic_of MAC: the name of the interface with that MAC
nic_of()
{
	ip -o link |
		awk -v mac="$1" '$0 ~ "link/ether " mac { sub(":$", "", $2); print $2; exit }' |
		grep .
}

other() { [ "$1" = peer ] && echo ours || echo peer; }

# link1_up SIDE: link 1 up with its rxe device; link 2 prepared but down
link1_up()
{
	local me=$1 you dev1 dev2

	you=$(other "$me")
	dev1=$(nic_of "${MAC1[$me]}") && dev2=$(nic_of "${MAC2[$me]}") ||
		return 1
	ip addr add "${ADDR1[$me]}/24" dev "$dev1" noprefixroute &&
		ip addr add "${ADDR2[$me]}/24" dev "$dev2" noprefixroute &&
		ip link set "$dev1" up &&
		ip route add "${ADDR1[$you]}/32" dev "$dev1" src "${ADDR1[$me]}" &&
		rdma link add "rxe_${me}1" type rxe netdev "$dev1" &&
		rdma link add "rxe_${me}2" type rxe netdev "$dev2"
}

# link2 SIDE up|down
link2()
{
	local me=$1 you dev

	you=$(other "$me")
	dev=$(nic_of "${MAC2[$me]}") || return 1
	ip link set "$dev" "$2" || return 1
	[ "$2" = up ] || return 0
	ip route replace "${ADDR2[$you]}/32" dev "$dev" src "${ADDR2[$me]}"
}

case "${1:-}" in
--peer)
	# The upstream guest: bring up its end and serve until told to stop.
	link1_up peer || {
		echo "interop peer: no links (${MAC1[peer]}, ${MAC2[peer]})"
		ip -o link
		exit 1
	}
	ulimit -n 4096
	# a slower kernel (the debug kernel): every bound below grows
	slow=${SMC_TEST_SLOWDOWN:-1}
	# what the peer looked like, for a driver that lost it (vm-run's
	# results directory keeps it)
	if [ -n "${SMC_RESULTS:-}" ]; then
		while sleep $((3 * slow)); do
			echo "== $(cut -d' ' -f1 /proc/uptime)" \
				"load $(cut -d' ' -f1-3 /proc/loadavg)"
			ip neigh
			ip -s -br link
			top -bn1 | sed -n '7,12p'
		done > "$SMC_RESULTS/peer-monitor.log" 2>&1 &
	fi
	# idle: the test may wait a minute and more on its own end only;
	# first: our guest may boot minutes after this one
	exec python3 "$HERE/interop_peer.py" "$PEER_ADDR" $AGENT_PORT \
		--idle $((180 * slow)) --first $((240 * slow))
	;;
--link2)
	link2 "$2" "$3"
	exit
	;;
esac

. "$HERE/lib.sh"

XFER=$HERE/smc_xfer
NCASES=31
# SMC_INTEROP_REPEAT=N: after the set-up, the 16 MiB case of ours to
# upstream N times and nothing else (vm-pair --env; a crash hunt)
REPEAT=${SMC_INTEROP_REPEAT:-0}
[ "$REPEAT" -gt 0 ] 2>/dev/null || REPEAT=0
[ "$REPEAT" = 0 ] || NCASES=$((REPEAT + 1))

[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
nic_of "${MAC1[ours]}" >/dev/null ||
	ktap_skip_all "no interop link: runs in the guest pair of vm-pair"
require_tools rdma ip python3
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built"
[ -x "$SMC_TOOL" ] || ktap_skip_all "tools/net/smc/smc not built"
setup_common

# peer CMD [TIMEOUT]: run CMD on the peer guest; its output and status.
# TIMEOUT (90 s) is a bound for a hang: SMC_TEST_SLOWDOWN times longer
# on a slower kernel.  PEER_WAIT: seconds to wait for the peer to
# answer at all (grown the same way).  A peer that could not be reached
# once (its guest died) is not asked again: the cases left then fail in
# seconds, not in the program's timeout.  Bash speaks the agent's
# framing (interop_peer.py) itself: a python per call would cost
# seconds each on the debug kernel, and a run makes hundreds.
peer()
{
	local LC_ALL=C cmd=$1 tmo=$((${2:-90} * SMC_TEST_SLOWDOWN)) fd rc line
	local end=$((SECONDS + ${PEER_WAIT:-0} * SMC_TEST_SLOWDOWN))

	if [ -n "$tmp_dir" ] && [ -e "$tmp_dir/peer-gone" ]; then
		echo "the peer guest no longer answers" >&2
		return 254
	fi
	until exec {fd}<>"/dev/tcp/$PEER_ADDR/$AGENT_PORT"; do
		if [ $SECONDS -ge $end ]; then
			echo "interop peer: cannot reach $PEER_ADDR:$AGENT_PORT" >&2
			[ -z "$tmp_dir" ] || touch "$tmp_dir/peer-gone"
			return 254
		fi
		read -r -t 1 -u "$nap_fd"
	done 2>/dev/null
	# LC_ALL=C: the length in bytes
	printf '%d %d\n%s' "$tmo" "${#cmd}" "$cmd" >&"$fd"
	if ! read -r -t $((tmo + 30)) -u "$fd" rc || [[ ! $rc =~ ^[0-9]+$ ]]; then
		echo "interop peer: no answer" >&2
		exec {fd}>&-
		return 255
	fi
	while IFS= read -r -t 30 -u "$fd" line; do
		printf '%s\n' "$line"
	done
	printf '%s' "$line"
	exec {fd}>&-
	return "$rc"
}

finish()
{
	peer exit >/dev/null 2>&1
	cleanup
}
trap finish EXIT

# ueids OURS PEER: set the UEID table of each end (one EID or none)
ueids()
{
	"$SMC_TOOL" ueid flush && peer "$SMC_TOOL ueid flush" &&
	{ [ -z "$1" ] || "$SMC_TOOL" ueid add "$1"; } &&
	{ [ -z "$2" ] || peer "$SMC_TOOL ueid add $2"; }
}

# One port per connection: nothing waits for TIME_WAIT to end.  Below
# the ephemeral range, where a client's own port could take it first.
port_next=20000
next_port()
{
	port_next=$((port_next + 1))
	port=$port_next
}

# xfer_cmd ROLE ADDR PORT N M PATH REASON [SEED]: an smc_xfer command line.
# Each end closes with a linger time: upstream's close otherwise waits 2 s
# for its send buffer to drain, then closes with the rest unsent (as
# smc_close_active() does), which the many connections at once of a
# one-vCPU debug guest outlast: our end then reads an early EOF.
xfer_cmd()
{
	local ready=""

	[ "$1" = -s ] && ready="-r /tmp/smc-interop.r$3"
	# XFER_HOLD: connect, then wait until this file is gone
	[ -n "${XFER_HOLD:-}" ] && ready+=" -H $XFER_HOLD$1$3"
	echo "SMC_EXPECT_PATH=$6 SMC_EXPECT_REASON=$7 $XFER $1 $2 $3" \
	     "-n $4 -m $5 -S ${8:-1} -t 90 -L 90 $ready"
}

# on SIDE CMD [TIMEOUT]: run the command line CMD here (ours) or on the
# peer guest (peer)
on()
{
	if [ "$1" = peer ]; then
		peer "$2" "${3:-90}"
	else
		bash -c "$2"
	fi
}

# WAIT_FNS: lib.sh's wait_until for a command line run at the peer,
# so that it polls without a fork per try as this end does
WAIT_FNS="exec {nap_fd}<> <(:)
SMC_TEST_SLOWDOWN=$SMC_TEST_SLOWDOWN
$(declare -f nap wait_exactly wait_until)"

# listening SIDE PORT [SEC]: the smc_xfer server on PORT at SIDE
# listens within SEC seconds (10; wait_until() scales it)
listening()
{
	local f=/tmp/smc-interop.r$2 sec=${3:-10}

	if [ "$1" = ours ]; then
		wait_until "$sec" test -e "$f"
	else
		peer "$WAIT_FNS
		      wait_until $sec test -e $f" > /dev/null
	fi
}

# ends DIR: "SERVER_SIDE CLIENT_SIDE SERVER_ADDR" of a direction: o2u
# has our client connect to the peer's server, u2o the peer's to ours
ends()
{
	if [ "$1" = o2u ]; then
		echo "peer ours $PEER_ADDR"
	else
		echo "ours peer $OURS_ADDR"
	fi
}

# ix NAME DIR N M PATH CLIENT_REASON SERVER_REASON: one verified
# connection in direction DIR (see ends).  One KTAP result.
ix()
{
	local name=$1 n=$3 m=$4 path=$5 cr=$6 sr=$7 rc=0 spid port srv cli addr

	read -r srv cli addr <<< "$(ends "$2")"
	next_port
	on "$srv" "$(xfer_cmd -s "$addr" $port "$n" "$m" "$path" "$sr")" \
		> "$tmp_dir/srv.out" 2>&1 &
	spid=$!
	track $spid
	listening "$srv" $port || rc=1
	on "$cli" "$(xfer_cmd -c "$addr" $port "$n" "$m" "$path" "$cr")" \
		> "$tmp_dir/cli.out" 2>&1 || rc=1
	wait $spid || rc=1
	ktap_diag "client: $(cat "$tmp_dir/cli.out")"
	ktap_diag "server: $(cat "$tmp_dir/srv.out")"
	ktap_result "$name" $rc
}

# many_start DIR K BYTES TAG: K verified SMC-R connections at once,
# running when this returns (BYTES divided by SMC_TEST_SLOWDOWN: they
# are about many connections at once, not their bytes); many_end TAG: 0
# when all of them passed
declare -A many_pids
many_start()
{
	local k=$2 b=$(($3 / SMC_TEST_SLOWDOWN)) tag=$4 i p0 srv="" cli="" rc=0
	local sside cside addr tmo

	read -r sside cside addr <<< "$(ends "$1")"
	p0=$((port_next + 1))
	port_next=$((port_next + k))
	for i in $(seq 0 $((k - 1))); do
		srv+="($(xfer_cmd -s "$addr" $((p0 + i)) "$b" "$b" smcr 0 $i)"
		srv+=" > /tmp/smc-interop.$tag.s$i 2>&1 ||"
		srv+=" { echo server $i failed; cat /tmp/smc-interop.$tag.s$i; }) & "
		cli+="($(xfer_cmd -c "$addr" $((p0 + i)) "$b" "$b" smcr 0 $i)"
		cli+=" > /tmp/smc-interop.$tag.c$i 2>&1 ||"
		cli+=" { echo client $i failed; cat /tmp/smc-interop.$tag.c$i; }) & "
	done
	on "$sside" "${srv}wait" 180 > "$tmp_dir/$tag.srv" 2>&1 &
	many_pids[$tag]=$!
	# 10 s at the peer, 20 s here
	tmo=20
	[ "$sside" = peer ] && tmo=10
	listening "$sside" $((p0 + k - 1)) $tmo || rc=1
	sleep 1
	on "$cside" "${cli}wait" 180 > "$tmp_dir/$tag.cli" 2>&1 &
	many_pids[$tag]+=" $!"
	track "${many_pids[$tag]% *}"
	track $!
	return $rc
}

many_end()
{
	local tag=$1 p rc=0

	for p in ${many_pids[$tag]}; do
		wait "$p" || rc=1
	done
	# every failed end printed a line
	[ -s "$tmp_dir/$tag.srv" ] || [ -s "$tmp_dir/$tag.cli" ] && rc=1
	ktap_diag "$(cat "$tmp_dir/$tag.srv" "$tmp_dir/$tag.cli" | tail -n 30)"
	return $rc
}

# held N: N connections of this end wait in smc_xfer -H (no fork: it
# runs at the peer too)
held()
{
	local f=(/tmp/smc-interop.hold-*)

	[ ${#f[@]} = "$1" ] && [ -e "${f[0]}" ]
}

# all_held N: N connections wait at each end
all_held()
{
	wait_until 30 held "$1" &&
	peer "$WAIT_FNS
	      $(declare -f held)
	      wait_until 30 held $1" > /dev/null
}

# release_held: let the waiting connections of both ends go
release_held()
{
	rm -f /tmp/smc-interop.hold-*
	peer "rm -f /tmp/smc-interop.hold-*"
}

# many_together DIR K BYTES: many_start and many_end, with no
# connection sending before all K are up.  A new RMB's registration
# (REG_MR) on a link that carries data is what upstream's stack cannot
# take on rxe (smc.rst, "Testing"): the handshakes run first, the
# transfers then all at once.
many_together()
{
	local rc=0

	export XFER_HOLD=/tmp/smc-interop.hold
	many_start "$1" "$2" "$3" many || rc=1
	unset XFER_HOLD
	all_held "$2" || rc=1
	release_held || rc=1
	many_end many || rc=1
	return $rc
}

# lgrs_show summary|types|links: what `smc lgr` shows of the SMC-R link
# groups here, as one sorted line.  summary: "role:eid:links" of each
# group, "none" for no group, so that a listing that failed (no output)
# is never taken for an empty one; types: "role:links type" of each
# group (symmetric: two links on distinct devices at both ends); links:
# "dev>peer GID tail" of each link.  A summary counts active links; a
# link on its way up or down adds "+N" (N such links), so that a group
# with one link and an attempt at a second never reads as two links.
# The peer runs it as declare -f prints it: it uses nothing else of
# this script, and no python.
lgrs_show()
{
	local out

	out=$("$SMC_TOOL" lgr) || return 1
	awk -v what="$1" '
	function group_end() {
		if (role == "")
			return
		grp[ng++] = what == "types" ? role ":" type : \
			    role ":" eid ":" nl (nb ? "+" nb : "")
		role = ""
	}
	/^smcr lgr / {
		group_end()
		role = $4; type = $5; nl = 0; nb = 0; eid = ""
		if (match($0, / eid "[^"]*"/)) {
			eid = substr($0, RSTART + 6, RLENGTH - 7)
			sub(/ +$/, "", eid)
		}
		next
	}
	/^smc[a-z] lgr / { group_end() }
	role != "" && $1 == "link" {
		if ($3 == "active")
			nl++
		else
			nb++
		dev = $5
	}
	role != "" && $1 == "gid" { lnk[nk++] = dev ">" substr($4, length($4) - 8) }
	END {
		group_end()
		if (what == "links")
			for (k = 0; k < nk; k++) v[k] = lnk[k]
		else
			for (k = 0; k < ng; k++) v[k] = grp[k]
		for (i = 1; i < k; i++)
			for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		line = ""
		for (i = 0; i < k; i++)
			line = line (i ? " " : "") v[i]
		if (line == "" && what == "summary")
			line = "none"
		print line
	}' <<< "$out"
}

# lgrs_peer summary|types|links: lgrs_show at the peer
lgrs_peer()
{
	peer "SMC_TOOL=$SMC_TOOL; $(declare -f lgrs_show); lgrs_show $1"
}

# lgr_summary [peer]: lgrs_show summary here or at the peer
lgr_summary()
{
	if [ "${1:-}" = peer ]; then
		lgrs_peer summary
	else
		lgrs_show summary
	fi
}

# lgrs_are WANT: both ends show the link groups WANT (lgr_summary)
lgrs_are()
{
	[ "$(lgr_summary)" = "$1" ] && [ "$(lgr_summary peer)" = "$1" ]
}

# lgrs_wait NAME WANT SEC: one KTAP result, WANT reached within SEC
lgrs_wait()
{
	local rc=0

	wait_until "$3" lgrs_are "$2" || rc=1
	ktap_diag "ours: $(lgr_summary)"
	ktap_diag "upstream: $(lgr_summary peer)"
	[ $rc = 0 ] || link_state
	ktap_result "$1" $rc
}

# ktap_fail_hook: a failed case also shows both ends' rxe counters
# (packets, retries, NAKs, drops) and upstream's last kernel messages,
# and last, in two lines, the groups of both ends as they are now
ktap_fail_hook()
{
	ktap_diag "ours: $(rdma statistic show 2>&1)"
	ktap_diag "upstream: $(peer "rdma statistic show; dmesg | tail -n 25" 2>&1)"
	ktap_diag "ours now: $(lgr_summary); $(lgrs_show types);" \
		  "$(lgrs_show links)"
	ktap_diag "upstream now: $(lgr_summary peer); $(lgrs_peer types);" \
		  "$(lgrs_peer links)"
}

# link_state: both ends' links, routes and neighbours (the failed
# result shows their kernel messages: ktap_klog and ktap_fail_hook)
link_state()
{
	local what='rdma link show; ip -br addr; ip route; ip neigh;
		    $SMC_TOOL lgr'

	ktap_diag "ours: $(eval "$what" 2>&1)"
	ktap_diag "upstream: $(peer "SMC_TOOL=$SMC_TOOL; $what" 2>&1)"
}

# killed DIR: the server end of a long transfer is killed; the client
# must end with an error soon, not hang.  0 when it did.
killed()
{
	local cpid rc=0 port t0 big=4294967296 srv cli addr

	read -r srv cli addr <<< "$(ends "$1")"
	next_port
	on "$srv" "$(xfer_cmd -s "$addr" $port $big $big smcr 0)" \
		> "$tmp_dir/k.srv" 2>&1 &
	track $!
	listening "$srv" $port || rc=1
	on "$cli" "$(xfer_cmd -c "$addr" $port $big $big smcr 0)" \
		> "$tmp_dir/k.cli" 2>&1 &
	cpid=$!
	sleep 3
	t0=$SECONDS
	on "$srv" "pkill -9 -x smc_xfer" || rc=1
	track $cpid
	if wait $cpid; then
		ktap_diag "the client's transfer succeeded"
		rc=1
	fi
	# smc_xfer gives up by itself after 90 s: that would be a hang (both
	# times SMC_TEST_SLOWDOWN)
	if [ $((SECONDS - t0)) -gt $((30 * SMC_TEST_SLOWDOWN)) ]; then
		ktap_diag "the client took $((SECONDS - t0)) s to end"
		rc=1
	fi
	ktap_diag "client: $(tail -n 3 "$tmp_dir/k.cli")"
	return $rc
}

# gone: no link left on rxe_ours2 here, nor on its GID (10.98.0.12) at
# the peer
gone()
{
	ours=$(lgrs_show links) && theirs=$(lgrs_peer links) &&
		! grep -q rxe_ours2 <<< "$ours" && ! grep -q '0a62:000c' <<< "$theirs"
}

ktap_header $NCASES

# 1: the pair is up, and the peer runs Debian's modules
rc=0
if ! link1_up ours; then
	ktap_diag "cannot bring up our end: $(ip -o link)"
	rc=1
fi
info=$(PEER_WAIT=240 peer "grep -q O /sys/module/smc/taint && echo tainted
	     rdma link show; modinfo -n smc" 2>&1) || rc=1
ktap_diag "peer: $info"
grep -q tainted <<< "$info" && rc=1
grep -q 'kernel/net/smc/smc.ko' <<< "$info" || rc=1
grep -q 'rxe_peer1.*state ACTIVE' <<< "$info" || rc=1
wait_until 20 sh -c "rdma link show | grep -q 'rxe_ours1.*ACTIVE'" || rc=1
# both rxe devices of an end on one PNET ID: upstream adds links only so
for side in ours peer; do
	cmd="$SMC_TOOL pnet add $PNETID ib rxe_${side}1 port 1 &&
	     $SMC_TOOL pnet add $PNETID ib rxe_${side}2 port 1"
	if [ $side = ours ]; then
		bash -c "$cmd" || rc=1
	else
		peer "$cmd" || rc=1
	fi
done
ktap_result "peer guest runs upstream smc over rxe" $rc
[ $rc = 0 ] || ktap_finish

if [ "$REPEAT" != 0 ]; then
	ueids $EID $EID || ktap_diag "cannot set the common UEID"
	for i in $(seq "$REPEAT"); do
		ix "ours to upstream over SMC-R, 16 MiB each way, run $i" o2u \
			16777216 16777216 smcr 0 0
	done
	ktap_finish
fi

# 2-5: the UEID cases decline with codes that depend on upstream's
# build.  Debian's smc has no loopback-ism; the debug kernel's has
# (SMC_LO), and then both ends offer SMC-Dv2 and the server declines
# for the EID: 0x03030008 (no UEID) or 0x03030007 (no SMC-Dv2 device
# of a common EID).  Ours declines as upstream does in either build.
peer_ism_v2=$(peer "$SMC_TOOL info" | sed -n 's/.* ism_v2 \([0-9]*\) .*/\1/p')
ktap_diag "upstream's SMC-Dv2 (loopback-ism): ${peer_ism_v2:-unknown}"

# 2-3: no UEID on either end.  Neither client offers SMC-Rv2 without
# one.  Ours still offers its loopback-ism, which upstream without one
# cannot take (0x03030003); upstream without one offers nothing.
ueids "" "" || ktap_diag "cannot clear the UEID tables"
if [ "$peer_ism_v2" = 1 ]; then
	ix "no UEIDs: ours to upstream, declined with 0x03030008" o2u \
		1000 1000 fallback 0x05000000 0x03030008
	ix "no UEIDs: upstream to ours, declined with 0x03030008" u2o \
		1000 1000 fallback 0x05000000 0x03030008
else
	ix "no UEIDs: ours to upstream, declined with 0x03030003" o2u \
		1000 1000 fallback 0x05000000 0x03030003
	ix "no UEIDs: upstream to ours, nothing offered: 0x03030000" u2o \
		1000 1000 fallback 0x03030000 0x05000000
fi

# 4-5: different UEIDs: an EID mismatch has no code of its own; the
# server declines with that of the SMC-Rv1 it was not offered either,
# or with both ends' loopback-ism with that of SMC-Dv2
ueids $EID_OURS $EID_PEER || ktap_diag "cannot set the UEIDs"
diff_code=0x03030000
[ "$peer_ism_v2" != 1 ] || diff_code=0x03030007
ix "different UEIDs: upstream server declines with $diff_code" o2u \
	1000 1000 fallback 0x05000000 $diff_code
ix "different UEIDs: our server declines with $diff_code" u2o 1000 1000 \
	fallback 0x05000000 $diff_code

# 6-11: one UEID: SMC-R both ways, verified
ueids $EID $EID || ktap_diag "cannot set the common UEID"
ix "ours to upstream over SMC-R, 1 B each way" o2u 1 1 smcr 0 0
ix "ours to upstream over SMC-R, 65537 B up, 3 B down" o2u 65537 3 smcr 0 0
ix "ours to upstream over SMC-R, 16 MiB each way" o2u 16777216 16777216 \
	smcr 0 0
ix "upstream to ours over SMC-R, 1 B each way" u2o 1 1 smcr 0 0
ix "upstream to ours over SMC-R, 3 B up, 65537 B down" u2o 3 65537 smcr 0 0
ix "upstream to ours over SMC-R, 16 MiB each way" u2o 16777216 16777216 \
	smcr 0 0

# what rxe had to repeat on link 1 (retries, sequence errors): a crash
# of either guest under load can then be read against it
rxe_counters='rdma statistic show link rxe_$SIDE1/1 2>&1 | tr -s " " |
	grep -oE "[a-z_]*(retry|rnr|seq|dup)[a-z_]* [0-9]+" | tr "\n" " "'
ktap_diag "ours rxe: $(SIDE1=ours1 bash -c "$rxe_counters")"
ktap_diag "upstream rxe: $(peer "SIDE1=peer1; $rxe_counters" 2>&1)"

# 12: one link group each way, reused by the later connections, with
# the negotiated EID on both ends and one link each
lgrs_wait "one link group each way, with the common EID" \
	"client:$EID:1 server:$EID:1" 5

# 13-14: many at once, each end's new RMBs registered before any data
many_together o2u 16 1048576
ktap_result "16 connections at once, ours to upstream, over SMC-R" $?
many_together u2o 16 1048576
ktap_result "16 connections at once, upstream to ours, over SMC-R" $?

# 15-16: a killed server end: the client ends with an error
killed o2u
ktap_result "upstream server killed: our client ends with an error" $?
killed u2o
ktap_result "our server killed: the upstream client ends with an error" $?

# upstream_none: upstream lists no SMC-R link group
upstream_none()
{
	[ "$(lgr_summary peer)" = none ]
}

# unload_ours SEC: our module out, once its sockets are gone; 0 when
# upstream then has no link group left either, within SEC
unload_ours()
{
	wait_until 30 smc_settled 0 || { ktap_diag "our sockets remain"; return 1; }
	rmmod smc_diag && rmmod smc || return 1
	wait_until "$1" upstream_none && return 0
	ktap_diag "upstream keeps: $(lgr_summary peer)"
	return 1
}

# load_ours: our module in again, with the common UEID and both of our
# rxe devices on the PNET ID
load_ours()
{
	insmod "$SMC_MODULE_DIR/smc.ko" &&
		insmod "$SMC_MODULE_DIR/smc_diag.ko" &&
		"$SMC_TOOL" ueid add $EID &&
		"$SMC_TOOL" pnet add $PNETID ib rxe_ours1 port 1 &&
		"$SMC_TOOL" pnet add $PNETID ib rxe_ours2 port 1 ||
		{ ktap_diag "cannot load our module again"; return 1; }
}

# 17: our module goes away with its link groups up: upstream's end
unload_ours 30
ktap_result "our module unloaded: upstream ends its link groups" $?

# 18-19: loaded again, with link 2 up at both ends: new groups
link2 ours up && peer "bash $HERE/smcr_interop.sh --link2 peer up" ||
	ktap_diag "cannot bring up link 2"
load_ours
wait_until 20 sh -c "rdma link show | grep -q 'rxe_ours2.*ACTIVE'" ||
	ktap_diag "rxe_ours2 is not active"
ix "our module loaded again: ours to upstream over SMC-R" o2u 1048576 1048576 \
	smcr 0 0
ix "our module loaded again: upstream to ours over SMC-R" u2o 1048576 1048576 \
	smcr 0 0

# 20: each group's server adds a second link on link 2, upstream for
# the group it serves, ours for the other (ADD LINK, CONFIRM LINK)
lgrs_wait "both groups add a second link on link 2" \
	"client:$EID:2 server:$EID:2" 60

# 21: the groups' new RMBs are confirmed on both links (CONFIRM RKEY)
# and the connections spread over both links.  Held until all are up,
# as in 13-14: upstream's registrations and CONFIRM RKEYs behind data
# took its Accept past our 6 s CLC wait here.
many_together o2u 8 4194304 && many_together u2o 8 4194304
ktap_result "16 more connections over two links, both ways" $?

# 22-23: our rxe device of link 2 goes away with 8 connections up, some
# of them on link 2: we tell upstream with DELETE LINK, both ends move
# those connections to link 1, and then all 8 transfer, verified.  The
# connections wait (smc_xfer -H) while the device goes: rxe resending
# upstream's megabytes (go-back-N) to a QP that is gone keeps a one-vCPU
# guest busy for minutes.  (Failing link 2 at both ends, as a cut cable,
# makes upstream hang on 6.12's rxe: a soft lockup in rxe's work queue,
# and its DELETE LINK worker waits for sends rxe never completes.)
ok=1
export XFER_HOLD=/tmp/smc-interop.hold
many_start o2u 4 8388608 fo1 && many_start u2o 4 8388608 fo2 || ok=0
unset XFER_HOLD
all_held 8 || ok=0
ktap_diag "ours before: $(lgrs_show links)"
# our links on it are gone when this returns; upstream may still work
# on its DELETE LINK while the transfers start
rdma link delete rxe_ours2 || ok=0
release_held || ok=0
rc=0
wait_until 30 gone || rc=1
ktap_diag "ours after: $ours"
ktap_diag "upstream after: $theirs"
ktap_result "rxe_ours2 removed: no link uses it at either end" $rc
many_end fo1 || ok=0
many_end fo2 || ok=0
[ $ok = 1 ]
ktap_result "8 connections moved off it transfer, verified" $?

# symmetric: each group has two links on distinct devices, at both ends
symmetric()
{
	local want="client:symmetric server:symmetric"

	[ "$(lgrs_show types)" = "$want" ] && [ "$(lgrs_peer types)" = "$want" ]
}

# sym_pair: both groups have two active links, symmetric, at both ends
sym_pair()
{
	lgrs_are "client:$EID:2 server:$EID:2" && symmetric
}

# port_up FIRST: link 2 comes up at FIRST, and 5 s later at the other
# end: each end sees its port come up while the groups exist, FIRST's
# module while the other end cannot reach link 2 yet.  Both groups must
# end with two active links on distinct devices at both ends
# (symmetric), one condition within one bound.  The way there has
# failed tries: the server's asymmetric link over the path that is not
# up yet times out (5 s), and upstream drops an LLC request that comes
# while it runs a procedure of its own, which then waits for the next
# try (10 s): in runs here a group got there 5 to 16 s after the port.
port_up()
{
	local second rc=0

	second=$(other "$1")
	on "$1" "bash $HERE/smcr_interop.sh --link2 $1 up" || rc=1
	sleep 5
	on "$second" "bash $HERE/smcr_interop.sh --link2 $second up" || rc=1
	wait_until 60 sym_pair || rc=1
	ktap_diag "ours: $(lgrs_show links)"
	ktap_diag "upstream: $(lgrs_peer links)"
	[ $rc = 0 ] || link_state
	return $rc
}

# 24-26: port events.  Link 2 down at both ends, rxe_ours2 back, and
# our module loaded again: the new groups have one link each.  Upstream
# may keep a group of ours for a while here: in one run its client group
# went only 40 s after our module did, when its link was found dead
# (after the rxe_ours2 case our server still looks for a second link)
rc=0
unload_ours 90 || rc=1
link2 ours down && peer "bash $HERE/smcr_interop.sh --link2 peer down" ||
	rc=1
rdma link add rxe_ours2 type rxe netdev "$(nic_of "${MAC2[ours]}")" || rc=1
load_ours || rc=1
[ $rc = 0 ] || ktap_diag "cannot set up the port event cases"
ix "link 2 down: ours to upstream over SMC-R" o2u 65536 65536 smcr 0 0
ix "link 2 down: upstream to ours over SMC-R" u2o 65536 65536 smcr 0 0
lgrs_wait "link 2 down: one link each" "client:$EID:1 server:$EID:1" 10

# 27-28: link 2 up at upstream's end, then at ours: both servers'
# groups get a symmetric second link; a transfer over each group
port_up peer
ktap_result "link 2 up at upstream, then here: symmetric groups" $?
many_together o2u 4 4194304 && many_together u2o 4 4194304
ktap_result "8 connections over the groups, verified" $?

# 29: link 2 down here: our port goes down, its links go, and we tell
# upstream (DELETE LINK); then down at upstream's end too.  Our server
# may be trying an asymmetric link to upstream's port 2 meanwhile (its
# lost path makes it look for one): when that port goes, the try fails
# and the groups are back to one link each.
rc=0
link2 ours down || rc=1
wait_until 30 lgrs_are "client:$EID:1 server:$EID:1" || rc=1
peer "bash $HERE/smcr_interop.sh --link2 peer down" || rc=1
wait_until 30 lgrs_are "client:$EID:1 server:$EID:1" || rc=1
ktap_diag "ours: $(lgr_summary)"
ktap_diag "upstream: $(lgr_summary peer)"
ktap_result "link 2 down here, then at upstream: one link each" $rc

# 30-31: and up, ours first this time
port_up ours
ktap_result "link 2 up here, then at upstream: symmetric groups" $?
many_together o2u 4 4194304 && many_together u2o 4 4194304
ktap_result "8 more connections over the groups, verified" $?

ktap_finish
