#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The PNET ID table through its generic netlink family SMC_PNETID, as
# smc_pnet uses it, on the rxe test bed (smcr_topo.sh): the checks are
# in smc_pnetid.py, which prints the KTAP.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/smcr_topo.sh"

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools python3 rdma ip
require_smc
mount_debugfs
[ -r /sys/kernel/debug/smc/rdma-devices ] ||
	ktap_skip_all "no /sys/kernel/debug/smc/rdma-devices"
smcr_topo_setup

smcr_topo_up || ktap_skip_all "the rxe test bed does not come up"
export SMCR_NETA SMCR_NETB SMCR_RXEA SMCR_RXEB
python3 "$HERE/smc_pnetid.py"
