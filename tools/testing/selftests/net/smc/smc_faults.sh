#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures, injected at each allocation site of smc.ko in
# turn (a kernel with FAILSLAB, FAIL_PAGE_ALLOC and the fault-injection
# stack filter: make check-debug).
#
# smc_fault_sites.py lists the sites: every call of an allocating
# kernel function (slab, pages, skbs, sockets, IDs, RDMA objects) in the
# module's text.  For each, failslab and fail_page_alloc are armed to
# fail once, and only an allocation whose stack holds that call's return
# address: the stack filter [ADDR, ADDR + 1).  This reaches the
# allocations of the handshake workers as well as of the syscalls, and
# nothing outside the call.  Then the scenario the site belongs to runs
# (and the others, until one reaches it):
#   netns  a network namespace made and gone (pernet set-up);
#   smcd   an SMC-D connection over loopback-ism, 256 KiB verified each
#          way (the rendezvous, DMBs, link groups);
#   clc    the same with the rendezvous off (both CLC handshakes);
#   diag   the same, held while sock_diag and every genetlink dump run;
#   smcr   SMC-R on the rxe bed with two pairs: a new link group (link,
#          QP, PD, SRQ, RMB and its MR), the second link the server
#          adds, then a second connection;
#   dev    an rxe device added and deleted (SMC-R's device list).
# Each site reached must leave:
#   - the connection on SMC, or fallen back to TCP with the Decline of
#     a lack of memory (0x01010000; the end that got it: 0x05000000),
#     its data verified; or an error the application sees as ENOMEM,
#     ENOBUFS (socket()) or a reset, never a hang or bad data;
#   - no splat in the kernel log;
#   - no AF_SMC socket, registered DMB or link group behind (the module
#     unloads, which it only does with nothing left);
# and kmemleak is scanned after the program (guest-run.sh).  A site no
# scenario reaches is a skip.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

XFER=$HERE/smc_xfer
FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
LO_ISM=/sys/kernel/debug/smc/loopback-ism
LGRS=/sys/kernel/debug/smc/smcr-linkgroups
SMCD_PARAM=/sys/module/smc/parameters/smcd
RDV_PARAM=/sys/module/smc/parameters/smcd_rendezvous
SIZE=262144
FLT_DEV=smcflt$$
FLT_RXE=rxeflt$$
# Declines a peer may send for memory it could not get
MEM_REASONS="0x01010000"
# the reason of the end that got the Decline
PEER_DECLINED=0x05000000
# what an application may see: ENOMEM, ENOBUFS (socket() whose sock
# could not be allocated, as TCP's), or the connection reset
CLEAN_ERRORS='Cannot allocate memory|No buffer space available|Connection reset by peer'
CLEAN_ERRORS+='|Broken pipe|Software caused connection abort'

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 objdump unshare
require_smc
mount_debugfs
[ -w "$FS/require-start" ] && [ -w "$FP/require-start" ] ||
	ktap_skip_all "no failslab/fail_page_alloc with a stack filter"
[ -n "${SMC_MODULE_DIR:-}" ] && [ -f "$SMC_MODULE_DIR/smc.ko" ] ||
	ktap_skip_all "SMC_MODULE_DIR has no smc.ko"
[ -x "$XFER" ] && [ -x "$SMC_TOOL" ] || ktap_skip_all "tools not built"

# sites: "SECTION OFFSET FUNCTION+OFF CALLEE", the return address of
# each call relative to its section: the module moves when reloaded
mapfile -t SITES < <(python3 "$HERE/smc_fault_sites.py" \
	"$SMC_MODULE_DIR/smc.ko" /sys/module/smc/sections)
[ ${#SITES[@]} -gt 0 ] || ktap_skip_all "no allocation sites found"

# the areas the walk must reach, each by one site at least
AREAS=(
	"client handshake:smc_connect_handshake"
	"server handshake:smc_listen_handshake"
	"DMB:smc_lo_register_dmb"
	"SMC-D link group:smcd_lgr_join"
	"SMC-R link group:smcr_lgr_create"
	"RMB:smcr_buf_get"
	"link and QP:smcr_link_create"
	"MR registration:smcr_buf_map"
	"second link:smcr_llc_new_link"
	"netlink dump:smc_nl_"
)

fi_both() # ATTR VALUE: on failslab and fail_page_alloc
{
	echo "$2" > "$FS/$1" && echo "$2" > "$FP/$1"
}

fi_disarm()
{
	fi_both probability 0
	fi_both times 1
}

# fi_setup: every allocation counts (of any task, order and flags), a
# failure is logged once
fi_setup()
{
	fi_disarm
	fi_both task-filter N
	fi_both interval 1
	fi_both space 0
	fi_both verbose 1
	fi_both stacktrace-depth 32
	fi_both ignore-gfp-wait N
	echo N > "$FP/ignore-gfp-highmem"
	echo 0 > "$FP/min-order"
}

# fi_arm ADDR: the next allocation under the call returning to ADDR
# fails, whichever task makes it
fi_arm()
{
	local a b

	printf -v a '0x%x' "$1"
	printf -v b '0x%x' $(($1 + 1))
	fi_both require-start "$a"
	fi_both require-end "$b"
	fi_both times 1
	fi_both probability 100
}

# fi_fired: the armed failure was injected (builtins only: a process
# costs a good part of a second on this kernel)
fi_fired()
{
	local a b

	read -r a < "$FS/times"
	read -r b < "$FP/times"
	[ "$a" = 0 ] || [ "$b" = 0 ]
}

fi_restore()
{
	local end

	printf -v end '0x%x' -1
	fi_disarm
	fi_both require-start 0
	fi_both require-end "$end"
	fi_both task-filter Y
	fi_both verbose 2
}

smcr_test_restore()
{
	fi_restore
	rdma link delete "$FLT_RXE" 2>/dev/null
	ip link del "$FLT_DEV" 2>/dev/null
	"$SMC_TOOL" pnet flush >/dev/null 2>&1
}

# site_addr SECTION OFFSET: the site's address in the loaded module,
# in addr
site_addr()
{
	local base

	read -r base 2>/dev/null < "/sys/module/smc/sections/$1" || return 1
	addr=$((base + $2))
}

# lo_dmbs: DMBs registered with loopback-ism now, in dmbs
lo_dmbs()
{
	local k v

	dmbs=""
	while read -r k v; do
		[ "$k" = dmbs_registered ] && dmbs=$v
	done < "$LO_ISM"
}

dmbs_back()
{
	lo_dmbs
	[ "$dmbs" = "$dmb_base" ]
}

# klog_new: 0 when a kernel message since the last call (from a reader
# of /dev/kmsg started once) is a splat; ktap_result shows the messages
SPLAT='WARNING:|BUG:|Oops|KASAN|UBSAN|ODEBUG|INFO: trying to register|circular locking'
SPLAT+='|lock state|refcount_t'
klog_new()
{
	local line hit=1

	while read -r -t 0.2 -u "$kmsg_fd" line; do
		[[ ${line#*;} =~ $SPLAT ]] && hit=0
	done
	return $hit
}

# judge_xfer: the client's and server's outputs in $out: 0 when the
# connection was on SMC or fell back for memory with its data verified,
# or failed with an error of memory or a reset; else why, on stdout
judge_xfer()
{
	local crc=$1 src=$2 r

	if [ "$crc" = 0 ] && [ "$src" = 0 ]; then
		# the end that declined gives the reason, the other one
		# says its peer declined
		local mem=0 peer=0
		for r in $(sed -n 's/.*path fallback, reason \(0x[0-9a-f]*\).*/\1/p' \
				"$tmp_dir/cli.out" "$tmp_dir/srv.out"); do
			case " $MEM_REASONS " in
			*" $r "*) mem=1 ;;
			*)
				[ "$r" = $PEER_DECLINED ] && peer=1 && continue
				echo "fell back with reason $r"
				return 1 ;;
			esac
		done
		if [ $peer = 1 ] && [ $mem = 0 ]; then
			echo "a peer declined, and not for memory"
			return 1
		fi
		return 0
	fi
	if grep -qE 'sha256 .* expected|timeout' "$tmp_dir/cli.out"; then
		echo "client: bad data or a hang"
		return 1
	fi
	if [ "$crc" = 0 ]; then
		# the client finished, so the server has no excuse
		echo "client ok, server exit $src"
		return 1
	fi
	if ! grep -qE "$CLEAN_ERRORS" "$tmp_dir/cli.out" "$tmp_dir/srv.out"; then
		echo "failed without ENOMEM or a reset"
		return 1
	fi
	return 0
}

# listens READY PID: the server made READY, or is gone
listens()
{
	[ -e "$1" ] || ! kill -0 "$2" 2>/dev/null
}

# xfer_any ADDR [HOLD]: one connection to ADDR, SIZE verified each way,
# whichever path; HOLD: hold it (smc_xfer -H) while running "$hold_cmd"
xfer_any()
{
	local addr=$1 port spid crc=0 src=0 ready=$tmp_dir/ready

	# a port of its own for each connection: no TIME_WAIT in the way
	port_next=$((port_next + 1))
	port=$port_next
	rm -f "$ready" "$tmp_dir"/hold*
	SMC_EXPECT_PATH=any "$XFER" -s "$addr" "$port" -n $SIZE -m $SIZE \
		-t 40 -r "$ready" ${2:+-H "$tmp_dir/holds"} \
		> "$tmp_dir/srv.out" 2>&1 &
	spid=$!
	if ! wait_until 10 listens "$ready" $spid || [ ! -e "$ready" ]; then
		if kill -0 $spid 2>/dev/null; then
			# where it is stuck, then end it
			echo "server stuck: $(tr '\n' ' ' < /proc/$spid/stack 2>/dev/null)"
			kill $spid
		fi
		wait $spid
		grep -qE "$CLEAN_ERRORS" "$tmp_dir/srv.out" && return 0
		echo "server did not listen: $(tail -n 2 "$tmp_dir/srv.out")"
		return 1
	fi
	if [ -n "${2:-}" ]; then
		SMC_EXPECT_PATH=any "$XFER" -c "$addr" "$port" -n $SIZE \
			-m $SIZE -t 40 -H "$tmp_dir/holdc" \
			> "$tmp_dir/cli.out" 2>&1 &
		local cpid=$!
		wait_until 20 test -e "$tmp_dir/holdc" -a -e "$tmp_dir/holds"
		$hold_cmd
		rm -f "$tmp_dir/holdc" "$tmp_dir/holds"
		wait $cpid || crc=$?
	else
		SMC_EXPECT_PATH=any "$XFER" -c "$addr" "$port" -n $SIZE \
			-m $SIZE -t 40 > "$tmp_dir/cli.out" 2>&1 || crc=$?
	fi
	# a connection the server dropped in its handshake never reaches
	# accept(): its client's error is the verdict
	if [ $crc != 0 ] && kill -0 $spid 2>/dev/null; then
		sleep 1
		kill $spid 2>/dev/null
	fi
	wait $spid || src=$?
	[ $crc != 0 ] && [ $src = 143 ] && src=1
	judge_xfer $crc $src
}

# outcome: what the last connection took, or the error it met
outcome()
{
	local o

	o=$(sed -n \
		-e 's/^# \(client\|server\): \(path [a-z]*\(, reason 0x[0-9a-f]*\)\?\).*/\1 \2/p' \
		-e 's/^# \(.*: [A-Z][a-z ]*\)$/\1/p' \
		"$tmp_dir/cli.out" "$tmp_dir/srv.out" 2>/dev/null | sort -u | tr '\n' ';')
	echo "${o:-no connection}"
}

sc_netns()
{
	local out

	out=$(unshare -n true 2>&1) && return 0
	echo "$out" | grep -q 'Cannot allocate memory' && return 0
	echo "unshare -n: $out"
	return 1
}

sc_smcd()
{
	echo Y > "$SMCD_PARAM"
	xfer_any 127.0.0.1
}

# SMC-D by the CLC messages, as with a client in another netns: the
# rendezvous of sc_smcd sets up both ends from the client, so neither
# the server's handshake nor either side's accept half runs there.  The
# next reload (fresh) brings the parameter back.
sc_clc()
{
	echo Y > "$SMCD_PARAM"
	echo N > "$RDV_PARAM"
	xfer_any 127.0.0.1
}

# the dumps of sock_diag and of every genetlink command that lists
dumps()
{
	local c

	timeout 20 "$SMC_PATH" -v > /dev/null 2>&1
	# a PNET table entry made and gone
	timeout 20 "$SMC_TOOL" pnet add SMCFAULTS dev "$FLT_DEV" > /dev/null 2>&1
	timeout 20 "$SMC_TOOL" pnet del SMCFAULTS > /dev/null 2>&1
	for c in info dev lgr "stats show" "stats fallback" sock pnet ueid seid; do
		# shellcheck disable=SC2086
		timeout 20 "$SMC_TOOL" -j $c > /dev/null 2>&1
		[ $? != 124 ] || echo "smc $c hangs" >> "$tmp_dir/dumps.bad"
	done
}

sc_diag()
{
	echo Y > "$SMCD_PARAM"
	rm -f "$tmp_dir/dumps.bad"
	hold_cmd=dumps xfer_any 127.0.0.1 hold || return 1
	[ ! -s "$tmp_dir/dumps.bad" ] || { cat "$tmp_dir/dumps.bad"; return 1; }
}

two_links()
{
	[ "$(grep -c ' role server .* state active ' "$LGRS")" -ge 2 ]
}

sc_smcr()
{
	[ "$bed" = 1 ] || return 0
	# the PNET table goes with the module: once after each reload
	if [ "$pnet_set" = 0 ]; then
		smcr_topo_sides || { echo "cannot set the PNET table"; return 1; }
		pnet_set=1
	fi
	echo N > "$SMCD_PARAM"
	xfer_any "$SMCR_B" || return 1
	fi_fired && return 0
	# the server adds the second link once the group is up
	wait_until 15 two_links
	xfer_any "$SMCR_B"
}

# a device the module learns of while loaded; it keeps working
# without it when its allocations fail
sc_dev()
{
	[ "$bed" = 1 ] || return 0
	rdma link add "$FLT_RXE" type rxe netdev "$FLT_DEV" ||
		{ echo "rdma link add $FLT_RXE failed"; return 1; }
	rdma link delete "$FLT_RXE" ||
		{ echo "rdma link delete $FLT_RXE failed"; return 1; }
}

# home SITE: the scenarios that may reach a function's site, the most
# likely first.  SMC-R's own functions run only with an RDMA device:
# the scenarios without one cannot reach them.
home()
{
	case $1 in
	*net_init*|*pernet*) echo "netns smcd diag smcr" ;;
	smc_nl_*|smc_pnet_cmd*|*diag*|*dump*) echo "diag smcd smcr netns" ;;
	smcr_dev_add*) echo "dev smcr" ;;
	smcr_*) echo "smcr" ;;
	*) echo "smcd clc smcr diag netns" ;;
	esac
}

# fresh: a module of its own for the next site: the one before may
# leave a link group lingering, and a new one must be made
fresh()
{
	wait_until 20 smc_settled 0 || return 1
	reload_smc "" || return 1
	pnet_set=0
}

# in_part FUNCTION: the site belongs to this run's part
# (smc_faults.sh@smcd: all but SMC-R's; @smcr: SMC-R's)
in_part()
{
	case "${SMC_TEST_VARIANT:-}" in
	smcd) [[ $1 != smcr_* ]] ;;
	smcr) [[ $1 == smcr_* ]] ;;
	*) true ;;
	esac
}

mine=()
for s in "${SITES[@]}"; do
	read -r sec off fn callee <<< "$s"
	in_part "$fn" && mine+=("$s")
done
SITES=("${mine[@]}")
mine=()
for a in "${AREAS[@]}"; do
	in_part "${a#*:}" && mine+=("$a")
done
AREAS=("${mine[@]}")
if [ "${SMC_TEST_SMOKE:-0}" = 1 ]; then
	SITES=("${SITES[@]:0:4}")
	AREAS=()
fi
NCASES=$((${#SITES[@]} + ${#AREAS[@]}))
bed=0 pnet_set=0
smcr_topo_setup
trap smcr_bed_end EXIT
smcr_smcd_saved=$(cat "$SMCD_PARAM")
ktap_header $NCASES
ip link add "$FLT_DEV" type dummy || ktap_diag "no dummy device for PNET"
if [ "${SMC_TEST_VARIANT:-}" = smcd ]; then
	ktap_diag "SMC-D's part: no rxe bed"
elif smcr_topo_up && smcr_topo_up2; then
	bed=1
else
	ktap_diag "no rxe bed: SMC-R sites are not reached"
fi
fresh || ktap_diag "the module does not reload"
fi_setup
lo_dmbs
dmb_base=$dmbs
reached=""
port_next=30000
# the kernel log from here on
exec {kmsg_fd}< <(exec cat /dev/kmsg 2>/dev/null)
track $!
klog_new

for s in "${SITES[@]}"; do
	read -r sec off fn callee <<< "$s"
	name="$fn ($callee)"
	if ! site_addr "$sec" "$off"; then
		ktap_skip "$name" "section $sec not loaded"
		continue
	fi
	printf 'smc_faults: arming %s at %x\n' "$name" "$addr" > /dev/kmsg
	fi_arm "$addr"
	why="" by="" rc=0
	for sc in $(home "$fn"); do
		"sc_$sc" > "$tmp_dir/why" 2>&1 || { rc=1; by=$sc; break; }
		fi_fired && { by=$sc; break; }
	done
	[ $rc = 0 ] || why=$(< "$tmp_dir/why")
	fired=0
	fi_fired && fired=1
	fi_disarm
	if [ $fired = 0 ] && [ $rc = 0 ]; then
		fresh || { ktap_diag "module left busy"; rc=1; }
		klog_new
		[ $rc = 0 ] && { ktap_skip "$name" "no scenario reaches it"; continue; }
	fi
	[ $fired = 1 ] && reached+=" $fn"
	[ $fired = 0 ] || ktap_diag "$name: $(outcome)"
	# nothing left behind: sockets, DMBs; the module unloads
	wait_until 20 smc_settled 0 ||
		{ why+=" AF_SMC sockets left: $(smc_count)"; rc=1; }
	wait_until 10 dmbs_back ||
		{ why+=" DMBs registered $dmbs, before $dmb_base"; rc=1; }
	fresh || { why+=" the module does not unload"; rc=1; }
	if klog_new; then
		why+=" splat"
		rc=1
	fi
	[ $rc = 0 ] || ktap_diag "$name: ${by:-?}: $why"
	ktap_result "$name${by:+, in $by}" $rc
done

for a in "${AREAS[@]}"; do
	label=${a%%:*}
	re=${a#*:}
	if [ "${SMC_TEST_SMOKE:-0}" = 1 ]; then
		ktap_skip "$label reached" "smoke run"
		continue
	fi
	echo "$reached" | tr ' ' '\n' | grep -qE "^($re)"
	ktap_result "$label: a failure was injected there" $?
done
ktap_finish
