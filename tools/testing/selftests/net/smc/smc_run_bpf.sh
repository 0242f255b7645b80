#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smc_run's BPF way (tools/net/smc/smc_run_bpf): a program on
# update_socket_protocol() makes the TCP sockets of one cgroup IPPROTO_SMC
# sockets, and so reaches what the preload library cannot:
#  static_bpf         a statically linked server and client (static_peer)
#                     under smc_run -b: each socket SMC-D, the data's
#                     SHA-256 verified;
#  static_preload     the same client under smc_run -p stays TCP:
#                     LD_PRELOAD never reaches a static binary;
#  buffers            -r and -t under BPF: the protocol of each kind of
#                     socket, and SO_RCVBUF/SO_SNDBUF of the converted
#                     ones (needs the BPF LSM, skipped without it);
#  cgroup_tree        smc_run -c CGROUP: a shell in the cgroup starts a
#                     server and clients (IPPROTO_TCP and 0), every socket
#                     SMC-D; a client and server outside it at the same
#                     time stay TCP; the attachment ends with the command;
#  detach_exit        once the commands of static_bpf ended: their cgroups,
#                     programs, links and keepers are gone;
#  detach_kill_cmd    the same after kill -9 of the command;
#  detach_kill_keeper kill -9 of the keeper that holds the links: detached
#                     at once, TCP again in the cgroup; the cgroup it left
#                     is removed by the next run;
#  pin                smc_run_bpf -c CGROUP -p DIR: the attachment outlives
#                     the loader; -u DIR ends it;
#  unpin_foreign      -u DIR where DIR holds a pin of the same name that
#                     is not our attachment (a map): refused, left as it
#                     is;
#  sizes_need_lsm     where the active LSMs lack bpf (a private mount of
#                     a list without it), -c with -r, and -p with -t,
#                     fail saying so and attach nothing: the sizes would
#                     silently not apply; -c without sizes still runs.
# Skips where the kernel cannot (smc_run_bpf -P: no fmod_ret on
# update_socket_protocol, as on 6.1, or no IPPROTO_SMC).  SMC-D is enabled
# (module parameter smcd=1) for the run.

. "$(dirname "$0")/lib.sh"

# bpftool is in /usr/sbin, which a test's PATH may lack
PATH=$PATH:/usr/sbin:/sbin
PARAM=/sys/module/smc/parameters/smcd
STATIC_PEER=$HERE/static_peer
IPPROTO_TCP=6
IPPROTO_SMC=256

[ "$SMC_TEST_INET" = 1 ] && ktap_skip_all "needs the AF_SMC module"
[ "$(id -u)" = 0 ] || ktap_skip_all "must be root"
require_tools bpftool python3 ldd
require_smc
[ -x "$SMC_RUN_BPF" ] ||
	ktap_skip_all "smc_run_bpf not built (needs clang, bpftool, libbpf-dev)"
[ -x "$STATIC_PEER" ] || ktap_skip_all "static_peer not built (run make)"
# what the kernel must have: the hook, and IPPROTO_SMC sockets (6.11 on);
# with both, a probe that cannot load or attach is our failure
grep -qa update_socket_protocol /sys/kernel/btf/vmlinux 2>/dev/null ||
	ktap_skip_all "no update_socket_protocol in the kernel's BTF"
python3 -c "import socket; socket.socket(2, 1, $IPPROTO_SMC)" 2>/dev/null ||
	ktap_skip_all "no IPPROTO_SMC sockets: a kernel before 6.11"
probe=$("$SMC_RUN_BPF" -P 2>&1) || ktap_fail_all "smc_run_bpf -P: $probe"
[ -w "$PARAM" ] || ktap_skip_all "no writable $PARAM"
setup_common

old_smcd=$(cat "$PARAM")
cg_mounted=0
bpffs_mounted=0
pin_dir=""
test_cgs=()

# The cgroup v2 tree: mounted in tmp_dir where it is not (the loader finds
# that mount too); the test's own cgroup holds those it makes
cg_mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$cg_mnt" ]; then
	cg_mnt=$tmp_dir/cgroup
	mkdir -p "$cg_mnt"
	mount -t cgroup2 none "$cg_mnt" || ktap_skip_all "cannot mount cgroup2"
	cg_mounted=1
fi
self=$(sed -n 's/^0:://p' /proc/self/cgroup)
cg_self=$cg_mnt${self%/}

restore()
{
	local cg

	# processes first: a cgroup with one in it cannot go
	stop_bg
	[ -z "$pin_dir" ] || "$SMC_RUN_BPF" -u "$pin_dir" 2>/dev/null
	for cg in "${test_cgs[@]}"; do
		# what a failed case left running in it (cgroup.kill: 5.14)
		echo 1 > "$cg/cgroup.kill" 2>/dev/null
		wait_until 10 rmdir "$cg" || ktap_diag "cannot remove $cg"
	done
	# detached before cleanup's rm -rf, which must never walk them
	[ "$bpffs_mounted" = 0 ] || umount -l "$tmp_dir/bpffs"
	[ "$cg_mounted" = 0 ] || umount -l "$cg_mnt"
	echo "$old_smcd" > "$PARAM"
	cleanup
}
trap restore EXIT

# new_cg NAME: NEW_CG, a cgroup below the test's own, removed at the end
new_cg()
{
	NEW_CG=$cg_self/$1.$$
	mkdir "$NEW_CG" || return 1
	test_cgs+=("$NEW_CG")
}

# bpf_info FILE: CG, PROG, LINK and KEEPER from the line smc_run_bpf -d
# wrote into FILE (no fork: cheap on a slow kernel)
bpf_info()
{
	local line="" l

	while IFS= read -r l; do
		[[ $l == *" bpf: cgroup="* ]] && { line=$l; break; }
	done < "$1"
	[ -n "$line" ] || return 1
	[[ $line =~ cgroup=([^ ]+) ]] && CG=${BASH_REMATCH[1]}
	[[ $line =~ \ prog_id=([0-9]+) ]] && PROG=${BASH_REMATCH[1]}
	[[ $line =~ \ link_id=([0-9]+) ]] && LINK=${BASH_REMATCH[1]}
	KEEPER=""
	[[ $line =~ keeper=([0-9]+) ]] && KEEPER=${BASH_REMATCH[1]}
	[ -n "$PROG" ] && [ -n "$LINK" ]
}

# wait_info FILE: bpf_info once the loader has written its line
wait_info()
{
	wait_until 30 grep -q " bpf: cgroup=" "$1" && bpf_info "$1"
}

prog_exists()
{
	bpftool prog show id "$1" >/dev/null 2>&1
}

link_exists()
{
	bpftool link show id "$1" >/dev/null 2>&1
}

# gone CG PROG LINK KEEPER: nothing of one run is left ("" CG: a cgroup
# that is not the loader's to remove)
gone()
{
	{ [ -z "$1" ] || [ ! -d "$1" ]; } && ! prog_exists "$2" &&
		! link_exists "$3" && { [ -z "$4" ] || pid_gone "$4"; }
}

# check_gone NAME CG PROG LINK KEEPER
check_gone()
{
	local name=$1

	shift
	wait_until 10 gone "$@" && return 0
	ktap_diag "$name: left: cgroup $([ -d "$1" ] && echo "$1")" \
		"prog $(prog_exists "$2" && echo "$2")" \
		"link $(link_exists "$3" && echo "$3")" \
		"keeper $([ -n "$4" ] && ! pid_gone "$4" && echo "$4")"
	return 1
}

# expect_line NAME FILE LINE: FILE's last line is LINE
expect_line()
{
	local last

	last=$(tail -n 1 "$2" 2>/dev/null)
	[ "$last" = "$3" ] && return 0
	ktap_diag "$1: expected '$3', got: $(head -c 400 "$2" 2>/dev/null)"
	return 1
}

# in_cg CG CMD...: become CMD in cgroup CG (a shell joins it, then execs
# CMD); only in the background or in $(): "$!" is then CMD's pid
in_cg()
{
	local cg=$1

	shift
	exec bash -c 'echo $BASHPID > "$1/cgroup.procs" && shift && exec "$@"' \
		_ "$cg" "$@"
}

# static_server DIR: a static_peer server under smc_run -b on a free
# port; sets PORT and SPID, and says why when it did not start
static_server()
{
	PORT=$(free_port)
	"$SMC_RUN" -b -d "$STATIC_PEER" -s 127.0.0.1 "$PORT" -r "$1/ready" \
		> "$1/srv.out" 2> "$1/srv.err" &
	SPID=$!
	track $SPID
	wait_until 30 test -e "$1/ready" && return 0
	ktap_diag "server did not start: $(cat "$1/srv.out" "$1/srv.err")"
	return 1
}

# static_client DIR CMD...: the client command CMD (one that makes DIR/hold
# once connected); sets CPID, and says why when it did not connect
static_client()
{
	local d=$1

	shift
	"$@" > "$d/cli.out" 2> "$d/cli.err" &
	CPID=$!
	track $CPID
	wait_until 30 test -e "$d/hold" && return 0
	ktap_diag "no connection: $(cat "$d/cli.out" "$d/cli.err")"
	return 1
}

# static_end DIR: let the pair of DIR finish
static_end()
{
	local rc=0

	rm -f "$1/hold"
	wait_gone 60 $CPID || rc=1
	wait_gone 60 $SPID || rc=1
	return $rc
}

test_static_bpf()
{
	local d=$tmp_dir/static rc=0 n=4194304

	mkdir -p "$d"
	# the premise: no dynamic loader, so no LD_PRELOAD
	if ldd "$STATIC_PEER" >/dev/null 2>&1; then
		ktap_diag "static_peer is dynamically linked"
		return 1
	fi
	static_server "$d" || return 1
	if static_client "$d" "$SMC_RUN" -b -d "$STATIC_PEER" -c 127.0.0.1 \
			 "$PORT" -n $n -S 7 -H "$d/hold"; then
		check_path_while_up client $CPID 20 || rc=1
		check_path_while_up server $SPID 20 || rc=1
	else
		rc=1
	fi
	static_end "$d" || rc=1
	expect_line client "$d/cli.out" "client proto=$IPPROTO_SMC ok" || rc=1
	expect_line server "$d/srv.out" \
		"server proto=$IPPROTO_SMC conns=1 bytes=$n" || rc=1
	return $rc
}

test_static_preload()
{
	local d=$tmp_dir/preload rc=0

	mkdir -p "$d"
	static_server "$d" || return 1
	if static_client "$d" "$SMC_RUN" -p -d "$STATIC_PEER" -c 127.0.0.1 \
			 "$PORT" -H "$d/hold"; then
		if [ "$(smc_sockets_of $CPID)" != 0 ]; then
			ktap_diag "the preloaded static client has SMC sockets"
			rc=1
		fi
	else
		rc=1
	fi
	static_end "$d" || rc=1
	expect_line client "$d/cli.out" "client proto=$IPPROTO_TCP ok" || rc=1
	return $rc
}

# bpf_lsm_active: "bpf" among the active LSMs (securityfs mounted if not)
bpf_lsm_active()
{
	local f=/sys/kernel/security/lsm

	[ -r $f ] || mount -t securityfs \
		securityfs /sys/kernel/security 2>/dev/null
	grep -qw bpf $f 2>/dev/null
}

test_buffers()
{
	local out want

	want="tcp4 2/256 tcp6 10/256 tcp 2/256 udp 2/17 unix 1/0"
	want+=" rcvbuf 98304 sndbuf 196608"
	out=$("$SMC_RUN" -b -r 48k -t 96k python3 "$HERE/sock_probe.py" 2>&1)
	ktap_diag "buffers: $out"
	[ "$out" = "$want" ] && return 0
	ktap_diag "buffers: expected $want"
	return 1
}

# cg_tree_up D K: the tree's server accepted K and every client holds
cg_tree_up()
{
	local i

	[ -e "$1/accepted" ] || return 1
	for ((i = 1; i <= $2; i++)); do
		[ -e "$1/hold.$i" ] || return 1
	done
}

test_cgroup_tree()
{
	local d=$tmp_dir/tree cg addr=127.0.0.1 port port2 k=4 i pid rc=0
	local tpid spid ospid opid want

	mkdir -p "$d"
	new_cg smc_selftest_tree || return 1
	cg=$NEW_CG
	[ -e /proc/net/if_inet6 ] && addr=::1
	port=$(free_port)
	port2=$(free_port)
	# the shell joins the cgroup, then starts a server and K clients
	# there: odd ones ask socket() for 0, even ones for IPPROTO_TCP
	cat > "$d/tree.sh" <<'SH'
cg=$1 peer=$2 addr=$3 port=$4 k=$5 d=$6
echo $$ > "$cg/cgroup.procs" || exit 1
"$peer" -s "$addr" "$port" -k "$k" -r "$d/ready" -A "$d/accepted" \
	> "$d/srv.out" 2>&1 &
echo $! > "$d/srv.pid"
for ((n = 0; n < 600; n++)); do
	[ -e "$d/ready" ] && break
	sleep 0.1
done
for ((i = 1; i <= k; i++)); do
	x=()
	[ $((i % 2)) = 0 ] && x=(-x)
	"$peer" -c "$addr" "$port" -n $((i * 262144)) -S "$i" \
		-H "$d/hold.$i" "${x[@]}" > "$d/cli.$i.out" 2>&1 &
	echo $! > "$d/cli.$i.pid"
done
wait
SH
	"$SMC_RUN" -b -d -c "$cg" bash "$d/tree.sh" "$cg" "$STATIC_PEER" \
		"$addr" "$port" $k "$d" > "$d/tree.out" 2> "$d/tree.err" &
	tpid=$!
	track $tpid
	# outside the cgroup, at the same time: a plain server and client
	"$STATIC_PEER" -s "$addr" "$port2" -r "$d/oready" > "$d/osrv.out" 2>&1 &
	ospid=$!
	track $ospid
	wait_until 30 test -e "$d/oready" ||
		{ ktap_diag "outside server did not start"; rc=1; }
	if ! wait_until 60 cg_tree_up "$d" $k; then
		ktap_diag "tree not up:" \
			"$(cat "$d/tree.err" "$d"/*.out 2>&1 | head -n 10)"
		return 1
	fi
	"$STATIC_PEER" -c "$addr" "$port2" -H "$d/ohold" > "$d/ocli.out" 2>&1 &
	opid=$!
	track $opid
	wait_until 30 test -e "$d/ohold" ||
		{ ktap_diag "outside client did not connect"; rc=1; }

	spid=$(cat "$d/srv.pid")
	track "$spid"
	check_path_while_up "tree server" "$spid" 20 || rc=1
	if [ "$(smc_sockets_of "$spid")" != $k ]; then
		ktap_diag "tree server: $(smc_sockets_of "$spid")" \
			"SMC sockets, not $k"
		rc=1
	fi
	for ((i = 1; i <= k; i++)); do
		pid=$(cat "$d/cli.$i.pid")
		track "$pid"
		check_path_while_up "tree client $i" "$pid" 20 || rc=1
	done
	for pid in $opid $ospid; do
		if [ "$(smc_sockets_of "$pid")" != 0 ]; then
			ktap_diag "a process outside the cgroup has SMC sockets"
			rc=1
		fi
	done

	rm -f "$d"/hold.* "$d/ohold"
	wait_gone 60 $tpid || { ktap_diag "tree failed"; rc=1; }
	wait_gone 30 $opid || rc=1
	wait_gone 30 $ospid || rc=1
	for ((i = 1; i <= k; i++)); do
		expect_line "tree client $i" "$d/cli.$i.out" \
			"client proto=$IPPROTO_SMC ok" || rc=1
	done
	# client i sent i * 256 KiB
	want="server proto=$IPPROTO_SMC conns=$k"
	want+=" bytes=$((k * (k + 1) * 262144 / 2))"
	expect_line "tree server" "$d/srv.out" "$want" || rc=1
	expect_line "outside client" "$d/ocli.out" \
		"client proto=$IPPROTO_TCP ok" || rc=1
	# -c: attached while the command ran, the cgroup left alone
	if bpf_info "$d/tree.err"; then
		check_gone "cgroup_tree" "" "$PROG" "$LINK" "$KEEPER" || rc=1
	else
		ktap_diag "no bpf line from smc_run -d: $(cat "$d/tree.err")"
		rc=1
	fi
	[ -d "$cg" ] || { ktap_diag "$cg was removed"; rc=1; }
	return $rc
}

# the commands of static_bpf ended: nothing of theirs is left
test_detach_exit()
{
	local f rc=0

	for f in "$tmp_dir/static/srv.err" "$tmp_dir/static/cli.err"; do
		if ! bpf_info "$f"; then
			ktap_diag "no bpf line in $f: $(cat "$f")"
			rc=1
			continue
		fi
		check_gone "${f##*/}" "$CG" "$PROG" "$LINK" "$KEEPER" || rc=1
	done
	return $rc
}

test_detach_kill_cmd()
{
	local d=$tmp_dir/kill_cmd pid

	mkdir -p "$d"
	"$SMC_RUN" -b -d sleep 600 2> "$d/err" &
	pid=$!
	track $pid
	if ! wait_info "$d/err"; then
		ktap_diag "no bpf line: $(cat "$d/err")"
		return 1
	fi
	if [ ! -d "$CG" ] || ! prog_exists "$PROG" ||
	   ! link_exists "$LINK"; then
		ktap_diag "not attached: $(cat "$d/err")"
		return 1
	fi
	kill -9 $pid
	wait $pid 2>/dev/null
	check_gone kill_cmd "$CG" "$PROG" "$LINK" "$KEEPER"
}

test_detach_kill_keeper()
{
	local d=$tmp_dir/kill_keeper pid proto rc=0

	mkdir -p "$d"
	"$SMC_RUN" -b -d sleep 600 2> "$d/err" &
	pid=$!
	track $pid
	if ! wait_info "$d/err" || [ -z "$KEEPER" ]; then
		ktap_diag "no bpf line: $(cat "$d/err")"
		return 1
	fi
	kill -9 "$KEEPER"
	# the kernel closes the dead keeper's fds: nothing holds the links
	check_gone kill_keeper "" "$PROG" "$LINK" "$KEEPER" || rc=1
	proto=$(in_cg "$CG" python3 -c 'import socket
print(socket.socket().getsockopt(socket.SOL_SOCKET, 38))' 2>&1)
	if [ "$proto" != $IPPROTO_TCP ]; then
		ktap_diag "a TCP socket in $CG after the keeper died: $proto"
		rc=1
	fi
	kill -9 $pid
	wait $pid 2>/dev/null
	# the keeper could not remove the cgroup: the next run does
	"$SMC_RUN" -b true || rc=1
	if ! wait_until 10 test ! -d "$CG"; then
		ktap_diag "$CG left after the next run"
		rc=1
	fi
	return $rc
}

# bpffs_dir: a directory on a bpffs, mounted in tmp_dir where
# /sys/fs/bpf is not one or not writable
bpffs_dir()
{
	if [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ] &&
	   [ -w /sys/fs/bpf ]; then
		echo /sys/fs/bpf
		return 0
	fi
	mkdir -p "$tmp_dir/bpffs"
	# mounted once, by the first case that asks
	[ "$(stat -f -c %T "$tmp_dir/bpffs")" = bpf_fs ] ||
		mount -t bpf \
			bpf "$tmp_dir/bpffs" || return 1
	echo "$tmp_dir/bpffs"
}

# pin_client NAME CG PROTO: a static client in CG, its server under
# smc_run -b; the client's socket gets PROTO, its path is checked
pin_client()
{
	local d=$tmp_dir/pin/$1 rc=0

	mkdir -p "$d"
	static_server "$d" || return 1
	if static_client "$d" in_cg "$2" "$STATIC_PEER" -c 127.0.0.1 \
			 "$PORT" -H "$d/hold"; then
		if [ "$3" = $IPPROTO_SMC ]; then
			check_path_while_up "$1" $CPID 20 || rc=1
		fi
	else
		rc=1
	fi
	static_end "$d" || rc=1
	expect_line "$1" "$d/cli.out" "client proto=$3 ok" || rc=1
	return $rc
}

test_pin()
{
	local d=$tmp_dir/pin cg base rc=0

	mkdir -p "$d"
	new_cg smc_selftest_pin || return 1
	cg=$NEW_CG
	base=$(bpffs_dir) || { ktap_diag "no bpffs"; return 1; }
	[ "$base" = "$tmp_dir/bpffs" ] && bpffs_mounted=1
	# no dot: bpffs keeps names with one for itself
	pin_dir=$base/smc_selftest_$$
	if ! "$SMC_RUN_BPF" -d -c "$cg" -p "$pin_dir" 2> "$d/pin.err" ||
	   ! bpf_info "$d/pin.err"; then
		ktap_diag "pin failed: $(cat "$d/pin.err")"
		pin_dir=""
		return 1
	fi
	# the loader is gone; the pinned attachment still converts
	pin_client pinned "$cg" $IPPROTO_SMC || rc=1

	if ! "$SMC_RUN_BPF" -u "$pin_dir"; then
		ktap_diag "unpin failed"
		rc=1
	fi
	[ -e "$pin_dir" ] && { ktap_diag "$pin_dir still there"; rc=1; }
	pin_dir=""
	check_gone unpin "" "$PROG" "$LINK" "" || rc=1
	pin_client unpinned "$cg" $IPPROTO_TCP || rc=1
	return $rc
}

test_unpin_foreign()
{
	local base dir out rc=0

	base=$(bpffs_dir) || { ktap_diag "no bpffs"; return 1; }
	[ "$base" = "$tmp_dir/bpffs" ] && bpffs_mounted=1
	dir=$base/smc_selftest_foreign_$$
	mkdir "$dir" || return 1
	if ! bpftool map create "$dir/proto" type array key 4 value 4 \
			entries 1 name smc_foreign; then
		ktap_diag "cannot pin a map"
		rmdir "$dir"
		return 1
	fi
	out=$("$SMC_RUN_BPF" -u "$dir" 2>&1)
	if [ $? = 0 ] || [ "${out#*not an attachment of ours}" = "$out" ]; then
		ktap_diag "-u on a foreign pin: $out"
		rc=1
	fi
	[ -e "$dir/proto" ] || { ktap_diag "the foreign pin is gone"; rc=1; }
	rm -f "$dir/proto"
	rmdir "$dir"
	return $rc
}

# sizes_need_lsm: -r and -t of -c and -p fail where the BPF LSM is not
# active, as the kernel's LSM list says, here one without it mounted
# over the real list in a mount namespace of their own
test_sizes_need_lsm()
{
	local d=$tmp_dir/lsm cg out progs rc=0

	mkdir -p "$d"
	bpf_lsm_active || true	# mounts securityfs where it is not
	[ -r /sys/kernel/security/lsm ] ||
		{ ktap_diag "no LSM list to hide bpf in"; return 1; }
	echo "lockdown,capability,landlock" > "$d/lsm"
	new_cg smc_selftest_lsm || return 1
	cg=$NEW_CG
	smc_progs() { bpftool prog show | grep -c 'name smc_run_' || true; }
	progs=$(smc_progs)
	no_lsm() {
		unshare -m sh -c 'mount --bind "$1" /sys/kernel/security/lsm &&
			shift && exec "$@"' _ "$d/lsm" "$@"
	}
	out=$(no_lsm "$SMC_RUN_BPF" -c "$cg" -r 48k true 2>&1)
	if [ $? = 0 ] || [ "${out#*need the BPF LSM}" = "$out" ]; then
		ktap_diag "-c -r without the BPF LSM: $out"
		rc=1
	fi
	out=$(no_lsm "$SMC_RUN_BPF" -c "$cg" -t 96k -p "$d/pin" 2>&1)
	if [ $? = 0 ] || [ "${out#*need the BPF LSM}" = "$out" ] ||
	   [ -e "$d/pin" ]; then
		ktap_diag "-p -t without the BPF LSM: $out"
		rc=1
	fi
	# the check comes before anything is loaded
	if [ "$(smc_progs)" != "$progs" ]; then
		ktap_diag "smc_run programs: $progs before, $(smc_progs) after"
		rc=1
	fi
	out=$(no_lsm "$SMC_RUN_BPF" -c "$cg" true 2>&1) ||
		{ ktap_diag "-c without sizes: $out"; rc=1; }
	return $rc
}

ktap_header 10
echo 1 > "$PARAM" || ktap_skip_all "cannot enable SMC-D"
ktap_diag "$probe"

test_static_bpf
ktap_result static_bpf $?
test_static_preload
ktap_result static_preload $?
if bpf_lsm_active; then
	test_buffers
	ktap_result buffers $?
else
	ktap_skip buffers "the BPF LSM is not active"
fi
test_cgroup_tree
ktap_result cgroup_tree $?
test_detach_exit
ktap_result detach_exit $?
test_detach_kill_cmd
ktap_result detach_kill_cmd $?
test_detach_kill_keeper
ktap_result detach_kill_keeper $?
test_pin
ktap_result pin $?
test_unpin_foreign
ktap_result unpin_foreign $?
test_sizes_need_lsm
ktap_result sizes_need_lsm $?
ktap_finish
