#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A peer's QP reaches the RMBs of its own link group only.  On the rxe
# test bed (smcr_topo.sh) a connection from A to B and one from B to A
# make two link groups on end A's device: a client group (peer B's
# server group, the attacker) and a server group (the victim).  The
# attacker's end writes over its own QP, as a hostile peer's kernel or
# a verbs program could, through /sys/kernel/debug/smc/smcr-rdma-write:
# first to its own peer RMB with the key it was given, which must work,
# then to the victim group's RMB with that RMB's key and address (read
# from smcr-rkeys, as a peer that guessed them), which A's device must
# refuse: an RDMA access is checked against the protection domain of
# the QP it comes in on, and each group has its own.  The victim's
# connection then carries its data, verified, and A's device holds one
# protection domain for each of its link groups (rdma resource).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"
. "$(dirname "$0")/smcr_xfer.sh"

LGRS=/sys/kernel/debug/smc/smcr-linkgroups
RKEYS=/sys/kernel/debug/smc/smcr-rkeys
POKE=/sys/kernel/debug/smc/smcr-rdma-write
XFER=$HERE/smc_xfer

smcr_bed_require
[ -w "$POKE" ] || ktap_skip_all "no $POKE"
[ -x "$XFER" ] || ktap_skip_all "smc_xfer not built"
smcr_bed_begin 5
export SMC_EXPECT_PATH=smcr
export SMC_EXPECT_REASON=0

# lgr_id ROLE DEV: the id of the link group of ROLE with a link on DEV
lgr_id()
{
	smcr_lgr_val "$1" "$2" id
}

# rkey_of ID KIND: "RKEY ADDR" of the first KIND (rmb: ours; rtok: the
# peer's) line of group ID in smcr-rkeys
rkey_of()
{
	awk -v id="$1" -v k="$2" '
		$1 == "lgr" { in_g = ($2 == id) }
		in_g && $1 == k { print $3, $4; exit }' "$RKEYS"
}

# smc_pds DEV: the protection domains of the smc module on DEV
smc_pds()
{
	rdma resource show pd dev "$1" 2>/dev/null | grep -c '\[smc\]'
}

# no_lgr ROLE DEV: no link group of ROLE has a link on DEV now
no_lgr()
{
	[ -z "$(lgr_id "$1" "$2")" ]
}

# pds_are DEV N: the smc module has N protection domains on DEV now
pds_are()
{
	[ "$(smc_pds "$1")" = "$2" ]
}

# 1: A to B (A's client group) and B to A (A's server group), held
rc=0
HOLD_TO=$SMCR_B hold_many ab 1 1048576 || rc=1
ab=("${many[@]}")
HOLD_TO=$SMCR_A hold_many ba 1 1048576 || rc=1
ba=("${many[@]}")
a_cli=$(lgr_id client "$SMCR_RXEA")
a_srv=$(lgr_id server "$SMCR_RXEA")
b_srv=$(lgr_id server "$SMCR_RXEB")
[ -n "$a_cli" ] && [ -n "$a_srv" ] && [ -n "$b_srv" ] || rc=1
ktap_diag "$(cat "$LGRS" "$RKEYS")"
pds=$(smc_pds "$SMCR_RXEA")
ktap_diag "A's groups: client $a_cli, server $a_srv; B's server $b_srv;" \
	"smc protection domains on A's device: $pds"
[ "$pds" = 2 ] || rc=1
ktap_result "two link groups on A's device, a protection domain each" $rc

# 2: the attacker's QP works: its own peer RMB, with the key it was given
rc=0
own=$(rkey_of "$b_srv" rtok)
victim=$(rkey_of "$a_srv" rmb)
[ -n "$own" ] && [ -n "$victim" ] || rc=1
ktap_diag "attacker's own peer RMB: $own; the victim's RMB: $victim"
echo "$b_srv 1 $own" > "$POKE" || rc=1
ktap_result "a peer writes its own group's RMB with its key" $rc

# 3: the victim's RMB is out of the attacker's reach, key or not
rc=0
if out=$(echo "$b_srv 1 $victim" 2>&1 > "$POKE"); then
	rc=1
	ktap_diag "the write to another group's RMB was taken"
else
	ktap_diag "the write to another group's RMB: $out"
	case "$out" in
	*"Permission denied"*) ;;
	*) rc=1 ;;
	esac
fi
ktap_result "a peer's write to another group's RMB is refused" $rc

# 4: the victim's connection carries its data, verified
rc=0
go_many ba
go_many ab
many=("${ba[@]}")
end_many ba || rc=1
grep -q "^id $a_srv .* state active " "$LGRS" || rc=1
ktap_diag "$(cat "$LGRS")"
for p in "${ab[@]}"; do
	wait "$p" 2>/dev/null
done
ktap_result "the victim group's connection goes on, verified" $rc

# 5: a group's protection domain goes with it (A's end of the
# attacker's group learns of the broken link when it sends)
rc=0
wait_until 40 no_lgr client "$SMCR_RXEA" || rc=1
wait_until 10 pds_are "$SMCR_RXEA" 1 || rc=1
ktap_diag "smc protection domains on A's device: $(smc_pds "$SMCR_RXEA")"
ktap_result "the attacker's group ended, its protection domain with it" $rc

ktap_finish
