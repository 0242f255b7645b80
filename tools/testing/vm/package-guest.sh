#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest half of package-test: run as root in a Debian guest booted
# from the root where apt installed smc-dkms and smc-tools (vng --root).
# Checks that modprobe loads the modules dkms built, not the kernel's
# own, and that the installed smc and smc_run work with them: an
# application run by smc_run connects over SMC-D on loopback-ism.
# Prints KTAP; exits 0 when every case passed, 1 otherwise.
set -euo pipefail

n=0 failed=0
result() { # STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failed=1
	fi
}
diag() { sed 's/^/# /'; }

echo "TAP version 13"
echo "1..6"
kver=$(uname -r)

# modprobe resolves smc to the file dkms installed (updates/ wins)
path=$(modinfo -n smc 2>&1 || true)
echo "# modinfo -n smc: $path"
case $path in
*/modules/"$kver"/updates/dkms/smc.ko*) r=0 ;;
*) r=1 ;;
esac
result $r "modinfo -n smc is dkms's file in updates/dkms"

r=0
modprobe smc || r=1
modprobe smc_diag || r=1
result $r "modprobe smc and smc_diag"

# Debian's smc.ko has no parameters; ours has smcd_rendezvous, and an
# external module taints the kernel with O
r=0
[ -e /sys/module/smc/parameters/smcd_rendezvous ] || r=1
for m in smc smc_diag; do
	t=$(cat "/sys/module/$m/taint" 2>/dev/null || true)
	echo "# $m taint: '$t'"
	case $t in *O*) ;; *) r=1 ;; esac
done
result $r "the loaded smc and smc_diag are ours (smcd_rendezvous, taint O)"

out=$(smc info 2>&1) && case $out in version*) r=0 ;; *) r=1 ;; esac || r=1
echo "$out" | diag
result $r "smc info answers"

# A client and a server under smc_run, the server by the BPF way (the
# package's smc_run_bpf and the libbpf it depends on), the client by the
# preload: their connection takes SMC-D (loopback-ism), which smc sock
# shows, and its data arrives.
ip link set lo up 2>/dev/null || true
rm -f /tmp/rx /tmp/srv.err
smc_run -b -d socat -u TCP-LISTEN:7711,bind=127.0.0.1,reuseaddr \
	OPEN:/tmp/rx,creat,trunc 2>/tmp/srv.err &
srv=$!
sleep 1
# the client keeps its connection open a while for smc sock to see it
(echo "hello over smc"; sleep 3) | smc_run -p socat -u - TCP:127.0.0.1:7711 &
cli=$!
seen=1
for _ in $(seq 20); do
	if smc sock 2>/dev/null | grep -q 'SMC-D'; then
		seen=0
		break
	fi
	sleep 0.5
done
smc sock 2>&1 | diag
wait "$cli" || seen=1
wait "$srv" || seen=1
[ "$(cat /tmp/rx 2>/dev/null)" = "hello over smc" ] || seen=1
diag < /tmp/srv.err
grep -q '^smc_run_bpf: bpf: cgroup=' /tmp/srv.err || seen=1
result $seen "smc_run by BPF and by preload: a connection over SMC-D, seen by smc sock, data intact"

r=0
modprobe -r smc_diag smc || r=1
result $r "smc_diag and smc unload"

# the kernel log, for the host's scan of it (package-test)
dmesg 2>&1 | sed 's/^/dmesg: /' || true

exit $failed
