#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Swap OUR smc/smc_diag modules for upstream's, built with loopback-ism
# by build-upstream-smc, and back.  Runs as root inside the VM guest.
#
#   upstream-lo.sh load [--no-ueid] [--no-lo]
#                                     rmmod ours, insmod upstream's, add
#                                     the benchmark UEID, check that
#                                     loopback-ism registered (not with
#                                     --no-lo: Debian's own smc.ko)
#   upstream-lo.sh unload             rmmod upstream's, insmod ours again
#   upstream-lo.sh check [smcd|fallback [REASON]]
#                                     one socat pair over smc_run; both
#                                     ends must take that path (the
#                                     declined end may show 0x05000000
#                                     with REASON as peer diagnosis)
#
# Env: SMC_MODULE_DIR (our modules, set by guest-run.sh), SMC_REPO,
#      SMC_UPSTREAM_DIR (default $SMC_REPO/.cache/bench/upstream-smc/
#      $(uname -r)), SMC_BENCH_UEID (default SMC-BENCH-UEID),
#      SMC_UEID (the smc_ueid binary; built into /tmp when absent).
#
# Upstream's loopback-ism is an SMC-D v2 device: without a user EID on
# a non-s390 machine the server declines the proposal with 0x03030008
# (no UEID) and the connection falls back to TCP.
set -uo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SMC_REPO=${SMC_REPO:-$(cd "$BENCH/../../.." && pwd)}
UP_DIR=${SMC_UPSTREAM_DIR:-$SMC_REPO/.cache/bench/upstream-smc/$(uname -r)}
OUR_DIR=${SMC_MODULE_DIR:-$SMC_REPO/.cache/modules/$(uname -r)}
UEID=${SMC_BENCH_UEID:-SMC-BENCH-UEID}
PORT=${SMC_CHECK_PORT:-42999}

say() { echo "[upstream-lo] $*"; }
die() { echo "[upstream-lo] ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root"

# Build id of a .ko file and of a loaded module (hex, no separators).
file_id() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: //p'; }
loaded_id() {
	od -An -tx1 "/sys/module/$1/notes/.note.gnu.build-id" 2>/dev/null |
		tr -d ' \n'
}

# Is module $1 loaded from file $2?  The note holds a header before the
# id, so compare the tail.
loaded_from() {
	local want have

	want=$(file_id "$2")
	have=$(loaded_id "$1")
	[ -n "$want" ] && [ -n "$have" ] && [ "${have%"$want"}" != "$have" ]
}

smc_ueid() {
	local bin=${SMC_UEID:-}

	if [ -z "$bin" ]; then
		bin=$BENCH/smc_ueid
		if [ ! -x "$bin" ]; then
			bin=${TMPDIR:-/tmp}/smc_ueid
			[ -x "$bin" ] || cc -O2 -Wall -o "$bin" "$BENCH/smc_ueid.c" ||
				die "cannot build smc_ueid"
		fi
	fi
	"$bin" "$@"
}

unload_smc() {
	local what=$1 refs holders

	[ -d /sys/module/smc ] || return 0
	# Each dependent module (smc_diag) holds one reference; any other
	# is an open AF_SMC socket.  Check before unloading anything.
	refs=$(cat /sys/module/smc/refcnt 2>/dev/null || echo 0)
	holders=$(find /sys/module/smc/holders -mindepth 1 -maxdepth 1 \
		-printf '%f ' 2>/dev/null)
	if [ "$refs" -gt "$(wc -w <<< "$holders")" ]; then
		ss -a -f smc 2>/dev/null | sed 's/^/  /' >&2
		die "$what smc is in use (refcnt $refs, holders: ${holders:-none}):" \
		    "close the AF_SMC sockets first"
	fi
	if [ -d /sys/module/smc_diag ]; then
		rmmod smc_diag || die "cannot unload $what smc_diag"
	fi
	rmmod smc || die "rmmod $what smc failed"
}

insmod_dir() {
	local dir=$1 m d

	for m in smc smc_diag; do
		[ -f "$dir/$m.ko" ] || die "$dir/$m.ko missing"
	done
	# insmod resolves no dependencies (ib_core): modprobe them first.
	for d in $(modinfo -F depends "$dir/smc.ko" | tr ',' ' '); do
		modprobe "$d" || die "cannot load $d, needed by $dir/smc.ko"
	done
	for m in smc smc_diag; do
		insmod "$dir/$m.ko" || die "insmod $dir/$m.ko failed"
		loaded_from "$m" "$dir/$m.ko" ||
			die "loaded $m is not $dir/$m.ko"
	done
}

do_load() {
	local ueid=1 lo=1 before arg

	for arg in "$@"; do
		case "$arg" in
		--no-ueid) ueid=0 ;;
		--no-lo) lo=0 ;;
		*) die "unknown load option $arg" ;;
		esac
	done
	[ -f "$UP_DIR/smc.ko" ] ||
		die "no upstream build in $UP_DIR (run tools/testing/bench/build-upstream-smc on the host)"
	if [ -d /sys/module/smc ] && loaded_from smc "$UP_DIR/smc.ko"; then
		say "upstream smc already loaded"
	else
		unload_smc "our"
		before=$(dmesg | grep -c 'smc: adding smcd device loopback-ism')
		insmod_dir "$UP_DIR"
		say "loaded upstream smc, smc_diag from $UP_DIR"
		# loopback-ism is registered in smc's init, without a sysfs
		# node: its registration message is the sign it is there.
		if [ $lo = 1 ]; then
			[ "$(dmesg | grep -c 'smc: adding smcd device loopback-ism')" -gt "$before" ] ||
				die "upstream smc registered no loopback-ism device"
			say "loopback-ism registered"
		fi
	fi
	if [ $ueid = 1 ]; then
		smc_ueid flush || die "cannot flush the UEID table"
		smc_ueid add "$UEID" || die "cannot add UEID $UEID"
		say "UEID table: $(smc_ueid show | paste -sd " ")"
	else
		say "no UEID: SMC-D v2 over loopback-ism will fall back (0x03030008)"
	fi
}

do_unload() {
	if [ -d /sys/module/smc ] && ! loaded_from smc "$UP_DIR/smc.ko"; then
		die "the loaded smc is not upstream's from $UP_DIR"
	fi
	unload_smc "upstream"
	say "unloaded upstream smc"
	insmod_dir "$OUR_DIR"
	say "loaded our smc, smc_diag from $OUR_DIR again"
}

# Does one smc_path line show path $2 (reason $3)?  The end that got the
# decline reports SMC_CLC_DECL_PEERDECL (0x05000000) with the peer's
# reason as its peer diagnosis; the declining end the reason itself.
line_ok() {
	local line=$1 want=$2 reason=$3 mode r p

	mode=$(sed -n 's/.* mode=\([^ ]*\).*/\1/p' <<< "$line")
	[ "$mode" = "$want" ] || return 1
	[ "$want" = fallback ] && [ -n "$reason" ] || return 0
	r=$(sed -n 's/.* reason=\([^ ]*\).*/\1/p' <<< "$line")
	p=$(sed -n 's/.* peer=\([^ ]*\).*/\1/p' <<< "$line")
	reason=$(printf '0x%08x' "$reason")
	[ "$r" = "$reason" ] || { [ "$r" = 0x05000000 ] && [ "$p" = "$reason" ]; }
}

# One socat pair over AF_SMC, kept open while smc_diag is asked which
# path both ends took.
do_check() {
	local want=${1:-smcd} reason=${2:-} srv cli i n=0 rc=0 out line
	local path=$SMC_REPO/tools/testing/selftests/net/smc/smc_path
	local run=$SMC_REPO/tools/net/smc/smc_run

	[ -x "$path" ] || die "$path not built"
	[ -x "$run" ] || die "$run missing"
	"$run" socat -u "TCP-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" \
		OPEN:/dev/null &
	srv=$!
	for ((i = 0; i < 50; i++)); do
		ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.1
	done
	sleep 5 | "$run" socat -u STDIN "TCP:127.0.0.1:$PORT" &
	cli=$!
	# wait for both ends to be established (SMC state ACTIVE, 1)
	for ((i = 0; i < 50; i++)); do
		out=$("$path" -s 1 2>&1)
		n=$(grep -c ' mode=' <<< "$out")
		[ "$n" -ge 2 ] && break
		sleep 0.1
	done
	kill "$cli" "$srv" 2>/dev/null
	wait "$cli" "$srv" 2>/dev/null
	echo "$out"
	[ "$n" -ge 2 ] || { say "only $n established AF_SMC socket(s)"; rc=1; }
	while IFS= read -r line; do
		case "$line" in *" mode="*) ;; *) continue ;; esac
		line_ok "$line" "$want" "$reason" || rc=1
	done <<< "$out"
	if [ $rc = 0 ]; then
		say "check: both ends took $want${reason:+ ($reason)}"
	else
		say "check FAILED: expected $want${reason:+ ($reason)}"
	fi
	return $rc
}

case "${1:-}" in
load) shift; do_load "$@" ;;
unload) do_unload ;;
check) shift; do_check "$@" ;;
*) sed -n '3,18p' "$0" >&2; exit 2 ;;
esac
