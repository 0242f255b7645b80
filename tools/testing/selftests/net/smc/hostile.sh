#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile peers: hostile_peer speaks CLC from plain TCP sockets that
# carry the SMC TCP option (written by a cgroup sock_ops BPF program) and
# sends malformed, truncated, out-of-order and declining CLC messages to
# an AF_SMC listener and client.  Enables SMC-D (module parameter smcd)
# for the run and restores the old value.

. "$(dirname "$0")/lib.sh"

PARAM=/sys/module/smc/parameters/smcd

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
[ -x "$HERE/hostile_peer" ] || ktap_skip_all "hostile_peer not built (run make)"
require_smc
[ -w "$PARAM" ] || ktap_skip_all "no writable $PARAM"

old=$(cat "$PARAM")
restore()
{
	echo "$old" > "$PARAM"
}
trap restore EXIT
echo 1 > "$PARAM" || ktap_skip_all "cannot enable SMC-D"

"$HERE/hostile_peer" suite
