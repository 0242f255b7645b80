#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Verified transfers with smc_xfer for the SMC-R tests.  Sourced after
# lib.sh; XFER is the smc_xfer binary, tmp_dir the test's directory.

# xfer NAME SERVER_ADDR N M [SRV_REASON]: one verified connection,
# client to SERVER_ADDR, N bytes up and M down; the path from
# SMC_EXPECT_PATH, the fallback reason from SMC_EXPECT_REASON (on the
# server SRV_REASON when given: a Decline of the client's is its peer's).
# One KTAP result; also in xfer_rc.
xfer()
{
	local name=$1 addr=$2 n=$3 m=$4 port rc=0
	local ready=$tmp_dir/ready.$ktap_nr
	local sreason=${5:-$SMC_EXPECT_REASON}

	port=$(free_port)
	SMC_EXPECT_REASON=$sreason \
		"$XFER" -s "$addr" "$port" -n "$n" -m "$m" -t 60 -r "$ready" \
		> "$tmp_dir/srv.out" 2>&1 &
	local spid=$!
	track $spid
	wait_until 10 test -e "$ready" || rc=1
	"$XFER" -c "$addr" "$port" -n "$n" -m "$m" -t 60 \
		> "$tmp_dir/cli.out" 2>&1 || rc=1
	wait $spid || rc=1
	ktap_diag "$(cat "$tmp_dir/cli.out" "$tmp_dir/srv.out")"
	ktap_result "$name" $rc
	xfer_rc=$rc
}

# hold_many TAG N BYTES: N transfers to SMCR_B (or HOLD_TO) of BYTES
# each way, connected, with each end holding before its transfer
# (smc_xfer -H) until go_many TAG (pids in many).  Non-zero when the
# connections were not all made within 30 s.
hold_many()
{
	local i port rc=0 to=${HOLD_TO:-$SMCR_B}

	many=()
	for i in $(seq "$2"); do
		port=$(free_port)
		"$XFER" -s "$to" "$port" -n "$3" -m "$3" -S "$i" \
			-t 240 -r "$tmp_dir/$1.r$i" -H "$tmp_dir/$1.hs$i" \
			> "$tmp_dir/$1.s$i" 2>&1 &
		many+=($!)
		track $!
		wait_until 10 test -e "$tmp_dir/$1.r$i"
		"$XFER" -c "$to" "$port" -n "$3" -m "$3" -S "$i" \
			-t 240 -H "$tmp_dir/$1.hc$i" > "$tmp_dir/$1.c$i" 2>&1 &
		many+=($!)
		track $!
	done
	for i in $(seq "$2"); do
		wait_until 30 test -e "$tmp_dir/$1.hs$i" -a -e "$tmp_dir/$1.hc$i" ||
			rc=1
	done
	return $rc
}

# go_many TAG: the transfers of hold_many TAG start, all at once
go_many()
{
	rm -f "$tmp_dir/$1".h[cs]*
}

# start_many TAG N BYTES: hold_many, then go_many: once this returns,
# every connection is on its link and in the middle of its transfer,
# for what a test does next (a link down) to find it there
start_many()
{
	local rc=0

	hold_many "$@" || rc=1
	go_many "$1"
	return $rc
}

# end_many TAG: every transfer of start_many TAG succeeded
end_many()
{
	local p rc=0

	for p in "${many[@]}"; do
		wait "$p" || rc=1
	done
	[ $rc -eq 0 ] ||
		ktap_diag "$(cat "$tmp_dir/$1".[cs]* | grep -v ' ok$' | tail -20)"
	return $rc
}
