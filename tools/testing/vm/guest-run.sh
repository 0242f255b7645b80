#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs as root inside the virtme-ng guest: guest-run.sh RESULTS_DIR
# Reads RESULTS_DIR/guest.env (written by vm-run), loads OUR modules (never
# the stock ones), then runs the requested action and saves dmesg.
set -uo pipefail

RES=${1:?results dir}
# shellcheck disable=SC1091
. "$RES/guest.env"
export SMC_MODULE_DIR SMC_REPO SMC_RESULTS=$RES
export PATH=$SMC_REPO/tools/net/smc:$PATH

say() { echo "[guest] $*"; }
fail() {
	say "FATAL: $*"
	echo "$*" > "$RES/prep-failed"
	dmesg > "$RES/dmesg.txt" 2>&1
	exit 1
}

# Our module must be the one under test: a preloaded stock smc would
# silently make every test meaningless.
say "kernel $(uname -r)"
# A CPU whose CMPXCHG16B corrupts RFLAGS crashes the kernel's slab fast
# path sooner or later (cx16-probe.c); vm-run hides CX16 from a guest of
# a QEMU known to have that bug (lib.sh: tcg_cpu).
say "CPU model: ${SMC_VM_CPU:-max, as vng gives it}"
"$RES/cx16-probe" || fail "the emulated CPU's CMPXCHG16B corrupts RFLAGS"
for m in smc smc_diag; do
	[ -d "/sys/module/$m" ] && fail "module $m already loaded before our insmod"
done

# Block autoloading of the stock modules (e.g. socket(AF_SMC) or the diag
# netlink family triggering request_module).  /etc is an overlay in vng;
# if it is not writable, shadow it with a tmpfs copy.
block_stock() {
	if ! touch /etc/.smc-rw-test 2>/dev/null; then
		mkdir -p /run/smc-etc && cp -a /etc/. /run/smc-etc/
		mount --bind /run/smc-etc /etc
	fi
	rm -f /etc/.smc-rw-test
	mkdir -p /etc/modprobe.d
	printf 'install smc /bin/false\ninstall smc_diag /bin/false\n' \
		> /etc/modprobe.d/smc-block.conf
}

# --stock: this guest is the upstream peer of an interop run (vm-pair)
stock_load() {
	local m

	for m in smc smc_diag; do
		modprobe "$m" || fail "cannot load Debian's $m"
		grep -q O "/sys/module/$m/taint" &&
			fail "$m: taint O: this is not Debian's module"
	done
	say "loaded Debian's smc and smc_diag ($(modinfo -n smc))"
}

load() {
	local ko=$SMC_MODULE_DIR/$1.ko deps
	[ -f "$ko" ] || fail "$ko not built"
	# insmod does not resolve dependencies (ib_core, ...): modprobe them.
	deps=$(modinfo -F depends "$ko" | tr ',' ' ')
	for d in $deps; do
		case "$d" in smc|smc_diag) continue ;; esac
		modprobe "$d" || fail "cannot load dependency $d of $1"
	done
	insmod "$ko" || fail "insmod $ko failed"
	local want have what=srcversion
	want=$(modinfo -F srcversion "$ko")
	have=$(cat "/sys/module/$1/srcversion" 2>/dev/null || true)
	if [ -z "$want" ]; then
		# No MODULE_VERSION: srcversion is absent; the GNU build id
		# identifies the exact file just as well.
		what=build-id
		want=$(readelf -n "$ko" | sed -n 's/^ *Build ID: //p')
		have=$(od -An -tx1 "/sys/module/$1/notes/.note.gnu.build-id" \
			2>/dev/null | tr -d ' \n' || true)
		case "$have" in *"$want") have=$want ;; esac
	fi
	[ -n "$want" ] && [ "$want" = "$have" ] ||
		fail "$1: loaded $what '$have' is not our '$want'"
	grep -q O "/sys/module/$1/taint" ||
		fail "$1: taint '$(cat "/sys/module/$1/taint")' lacks O (out-of-tree)"
	say "loaded $ko ($what $have)"
}

if [ "${SMC_STOCK:-0}" = 1 ]; then
	stock_load
else
	block_stock
fi
if [ "${SMC_NO_MODULES:-0}" != 1 ]; then
	if [ -f "$SMC_MODULE_DIR/smc.ko" ]; then
		load smc
		[ -f "$SMC_MODULE_DIR/smc_diag.ko" ] && load smc_diag
	else
		say "no smc.ko built: running without our modules"
	fi
fi
touch "$RES/prep-ok"

# kmemleak (debug kernel): a scan after each program.  An object is
# reported once a scan found it unreferenced, unchanged since the scan
# before and older than 5 s, so a leak of a program's last seconds may
# show after the next one (its backtrace names its allocation); a scan
# of the 4 GiB guest takes about 10 s under TCG.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_on() { [ -w "$KMEMLEAK" ]; }
kmemleak_take() { # FILE: the leaks found since the last call, cleared
	kmemleak_on || return 0
	echo scan > "$KMEMLEAK"
	cat "$KMEMLEAK" > "$1"
	echo clear > "$KMEMLEAK"
	[ -s "$1" ] || rm -f "$1"
}
# failslab and fail_page_alloc hit only tasks that ask (make-it-fail)
faults_task_filter() {
	local f
	for f in /sys/kernel/debug/failslab /sys/kernel/debug/fail_page_alloc; do
		[ -d "$f" ] && echo Y > "$f/task-filter"
	done
}

run_tests() {
	local dir=$SMC_REPO/tools/testing/selftests/net/smc
	mkdir -p "$RES/tests"
	faults_task_filter
	# what booting left behind is not any test's
	kmemleak_take "$RES/kmemleak-boot.txt"
	while read -r name tmo; do
		[ -n "$name" ] || continue
		say "=== $name (timeout ${tmo}s)"
		local start rc prog=${name%@*} variant="" smcd_param
		[ "$prog" = "$name" ] || variant=${name#*@}
		smcd_param=/sys/module/smc/parameters/smcd
		start=$(date +%s)
		# NAME@fallback: the same test with SMC-D negotiation off
		[ "$variant" = fallback ] && echo 0 > "$smcd_param"
		# tee in a plain pipe so the KTAP output is complete before the
		# exit line is printed.
		# NAME@smoke: the program's representative head only
		(cd "$dir" &&
		 case "$variant" in
		 fallback) export SMC_EXPECT_PATH=fallback ;;
		 smoke) export SMC_TEST_SMOKE=1 ;;
		 "") ;;
		 # NAME@VARIANT: a part of NAME, which it chooses
		 *) export SMC_TEST_VARIANT=$variant ;;
		 esac &&
		 timeout -k 5 "$tmo" "./$prog" </dev/null) \
			2> >(tee "$RES/tests/$name.err" >&2) |
			tee "$RES/tests/$name.out"
		rc=${PIPESTATUS[0]}
		if [ "$variant" = fallback ] && [ -e "$smcd_param" ]; then
			echo 1 > "$smcd_param"
		fi
		echo "$rc" > "$RES/tests/$name.rc"
		echo "$(($(date +%s) - start))" > "$RES/tests/$name.time"
		kmemleak_take "$RES/tests/$name.kmemleak"
		[ ! -f "$RES/tests/$name.kmemleak" ] ||
			say "=== $name: kmemleak reports $(grep -c '^unreferenced object' "$RES/tests/$name.kmemleak") object(s)"
		say "=== $name exit $rc ($(cat "$RES/tests/$name.time")s)"
		# A test may unload our module; put it back for the next one.
		if [ ! -d /sys/module/smc ] && [ -f "$SMC_MODULE_DIR/smc.ko" ]; then
			insmod "$SMC_MODULE_DIR/smc.ko" &&
			{ [ ! -f "$SMC_MODULE_DIR/smc_diag.ko" ] ||
			  insmod "$SMC_MODULE_DIR/smc_diag.ko"; }
		fi
	done < "$RES/tests.list"
	if kmemleak_on; then
		# the last program's objects, once old and seen twice
		sleep 5
		echo scan > "$KMEMLEAK"
		kmemleak_take "$RES/kmemleak-end.txt"
		touch "$RES/kmemleak-on"
	fi
}

rc=0
case "$SMC_ACTION" in
tests) run_tests ;;
demo)  (cd "$SMC_REPO" && bash tools/testing/vm/demo.sh); rc=$? ;;
exec)  (cd "$SMC_CWD" && bash -c "$SMC_EXEC"); rc=$? ;;
esac
echo "$rc" > "$RES/exec.rc"

# Line coverage (a module built with SMC_GCOV=1 on a gcov kernel): the
# counters, kept across the tests' unloads, for tools/testing/vm/coverage
gcov=$(find /sys/kernel/debug/gcov -type d -path '*/net/smc' 2>/dev/null |
	head -n 1)
if [ -n "$gcov" ]; then
	mkdir -p "$RES/gcov"
	for f in "$gcov"/*.gcda; do
		cat "$f" > "$RES/gcov/${f##*/}"
	done
	say "gcov counters of $(ls "$RES/gcov" | wc -l) objects saved"
fi

dmesg > "$RES/dmesg.txt" 2>&1
touch "$RES/guest-done"
exit "$rc"
