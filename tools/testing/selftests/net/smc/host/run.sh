#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the SMC wire-format unit tests, then run each fuzzer for
# a bounded time, seeded with the valid messages the unit tests build,
# as many at once as there are cores.
# Prints one KTAP stream: the unit tests, then one line per fuzzer.
# Environment: OUT (build dir), FUZZ_TIME (seconds per fuzzer, default
# 15), FUZZ_CC (default clang).
set -u
cd "$(dirname "$0")" || exit 1
OUT=${OUT:-$PWD/out}
FUZZ_TIME=${FUZZ_TIME:-15}
targets=(proposal accept decline cdc llc fold)
nf=${#targets[@]}

if ! make -s -j"$(nproc)" OUT="$OUT" all >"$OUT.build.log" 2>&1; then
	echo "TAP version 13"
	echo "1..1"
	sed 's/^/# /' "$OUT.build.log"
	echo "not ok 1 build_unit_tests"
	exit 1
fi
rm -f "$OUT.build.log"

fuzz_skip=""
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	fuzz_skip="clang not installed"
elif ! make -s -j"$(nproc)" OUT="$OUT" fuzz >"$OUT/fuzz-build.log" 2>&1; then
	fuzz_skip="libFuzzer build failed (see $OUT/fuzz-build.log)"
fi

rc=0
n=$("$OUT/smc_wire_test" --count)
rm -rf "$OUT/seeds"
"$OUT/smc_wire_test" --extra "$nf" --corpus "$OUT/seeds" || rc=1

# One fuzzer a core at a time: the same time each, the batch sooner
fuzz() { # TARGET: run it, its status in $OUT/fuzz_TARGET.rc
	local t=$1

	mkdir -p "$OUT/corpus/$t" "$OUT/seeds/$t"
	"$OUT/fuzz_$t" -max_total_time="$FUZZ_TIME" -print_final_stats=1 \
		-artifact_prefix="$OUT/crash-$t-" \
		"$OUT/corpus/$t" "$OUT/seeds/$t" >"$OUT/fuzz_$t.log" 2>&1
	echo $? > "$OUT/fuzz_$t.rc"
}
if [ -z "$fuzz_skip" ]; then
	cores=$(nproc)
	rm -f "$OUT"/fuzz_*.rc
	for t in "${targets[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do
			wait -n
		done
		fuzz "$t" &
	done
	wait
fi

i=$n
for t in "${targets[@]}"; do
	i=$((i + 1))
	if [ -n "$fuzz_skip" ]; then
		echo "ok $i fuzz_$t # SKIP $fuzz_skip"
		continue
	fi
	log=$OUT/fuzz_$t.log
	r=$(cat "$OUT/fuzz_$t.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	echo "# fuzz_$t: ${execs:-?} executions in ${FUZZ_TIME}s"
	if [ "$r" -eq 0 ]; then
		echo "ok $i fuzz_$t"
	else
		grep -E 'ERROR|assertion|SUMMARY|crash-' "$log" | head -n 20 |
			sed 's/^/# /'
		echo "not ok $i fuzz_$t"
		rc=1
	fi
done
exit $rc
