#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile SMC-R peer that changes the CDC and LLC messages it sends,
# made of our own end A by debugfs smcr-mutate (the fuzzing lane's
# hook, here for a fixed, seeded moment).  On the rxe test bed
# (smcr_topo.sh): A's client groups mutate one message in ten; what
# runs on them may break, but must end within its bounds, and a
# transfer the other way, on A's server group, which mutates nothing,
# must arrive intact.  Afterwards no AF_SMC socket is left, the hook
# counted what it did, and it refuses lines it cannot parse.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

MUTATE=/sys/kernel/debug/smc/smcr-mutate

smcr_bed_require
[ -w "$MUTATE" ] || ktap_skip_all "no $MUTATE"
smcr_test_restore()
{
	echo off > "$MUTATE" 2>/dev/null
}
smcr_bed_begin 5

# 1: malformed settings are refused, off is the default
rc=0
grep -q 'permille 0 dev - ' "$MUTATE" ||
	{ ktap_diag "not off: $(head -n 1 "$MUTATE")"; rc=1; }
for bad in "1 1001 $SMCR_RXEA client" "1 10 $SMCR_RXEA sideways" \
	   "x 10 $SMCR_RXEA client" "1 10" ""; do
	if echo "$bad" > "$MUTATE" 2>/dev/null; then
		ktap_diag "accepted: '$bad'"
		rc=1
	fi
done
ktap_result "malformed settings refused, off by default" $rc

# 2: under mutation, A's client connections end within their bounds
echo "2026 100 $SMCR_RXEA client" > "$MUTATE"
start=$SECONDS n=0
for i in 1 2 3 4 5 6; do
	xfer_pair "$tmp_dir" "hostile$i" "$SMCR_B" "$i" $((256 << 10)) 30 &&
		n=$((n + 1))
done
took=$((SECONDS - start))
ktap_diag "$n of 6 transfers under mutation intact, $took s"
[ $took -lt 400 ]
ktap_result "connections under mutation end within their bounds" $?

# 3: the other way, on A's server group, nothing is hurt
SMC_EXPECT_PATH=smcr xfer_pair "$tmp_dir" honest "$SMCR_A" 7 $((1 << 20)) 30
ktap_result "a transfer on a group that mutates nothing is intact, over SMC-R" $?

# 4: the hook counted what went out on A's client links, and mutated
stats=$(cat "$MUTATE")
echo off > "$MUTATE"
ktap_diag "$(head -n 3 <<< "$stats" | tr '\n' ' ')"
grep -qE '^seen [1-9][0-9]* mutated [1-9]' <<< "$stats"
ktap_result "messages seen and mutated on A's client links" $?

# 5: nothing is left behind
wait_until 60 smc_settled 0
ktap_result "no AF_SMC socket left" $?
ktap_finish
