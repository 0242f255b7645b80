# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the VM/build harness.  Sourced, not executed.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$VM_DIR/../../.." && pwd)
# SMC_CACHE lets several clones share the (large) kernel/chroot caches.
CACHE=${SMC_CACHE:-$REPO/.cache}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
KERNEL=${KERNEL:-deb13}

log() { printf '[%s] %s\n' "${LOG_TAG:-vm}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# KTAP results of the harness's own host programs; exit with ktap_failed
ktap_n=0 ktap_failed=0
ktap_result() { # STATUS DESCRIPTION: ok when STATUS is 0
	ktap_n=$((ktap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $ktap_n $2"
	else
		echo "not ok $ktap_n $2"
		ktap_failed=1
	fi
}

# Map our short kernel names to Debian suites.
suite_of() {
	case "$1" in
	deb13) echo trixie ;;
	deb12) echo bookworm ;;
	# built from trixie's linux-source (build-debug-kernel)
	debug) echo trixie ;;
	# the newest kernels: Debian 13's backports, and unstable
	bpo) echo trixie-backports ;;
	sid) echo sid ;;
	*) die "unknown KERNEL '$1' (want deb13, deb12, debug, bpo or sid)" ;;
	esac
}

# The Debian archive and security URIs of the host's own apt sources
# (/etc/apt/sources.list and sources.list.d, either format), so that a
# user behind a mirror or a proxy gets theirs: apt lists them for us.
# For SUITE, an entry of that suite wins, else one of the host's own
# release; the archive we reach for another suite is the same mirror.
# Sets ARCHIVE_URI and SECURITY_URI (empty: no security source).
host_archive() {
	local suite=$1 host rel uri main="" sec="" main2="" sec2=""
	host=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	while read -r rel uri; do
		case $rel in
		"$suite") main=${main:-$uri} ;;
		"$suite-security") sec=${sec:-$uri} ;;
		"$host") main2=${main2:-$uri} ;;
		"$host-security") sec2=${sec2:-$uri} ;;
		esac
	# --no-release-info: also before the host's first apt update
	done < <(apt-get indextargets --no-release-info \
			--format '$(RELEASE) $(REPO_URI)' 'Created-By: Packages' \
			2>/dev/null)
	ARCHIVE_URI=${main:-$main2}
	SECURITY_URI=${sec:-$sec2}
	[ -n "$ARCHIVE_URI" ] ||
		die "no Debian archive for '$suite' or '$host' in the host's apt sources:" \
		    "add your Debian mirror to /etc/apt/sources.list.d/debian.sources" \
		    "(Types: deb, URIs: <mirror>/debian, Suites: ${host:-$suite}," \
		    "Components: main)"
	if [ -z "$SECURITY_URI" ] && [ -z "${SMC_WARNED_SECURITY:-}" ]; then
		log "no Debian security source in the host's apt sources:" \
		    "kernels come from the main archive, maybe older"
		export SMC_WARNED_SECURITY=1
	fi
}

# debootstrap fetches with wget, which knows no apt proxy setting:
# export apt's as http_proxy and https_proxy, unless they are set
export_apt_proxy() {
	local s v p
	for s in http https; do
		v=${s}_proxy
		[ -z "${!v:-}" ] || continue
		p=$(apt-config shell p "Acquire::$s::Proxy" |
			sed -n "s/^p='\(.*\)'$/\1/p")
		case $p in ""|DIRECT) ;; *) export "$v=$p" ;; esac
	done
}

# lock_until_exit FILE: wait for FILE's lock and hold it until the
# calling script exits
lock_until_exit() {
	local fd
	exec {fd}> "$1"
	flock "$fd"
}

# Private apt state so we never touch the host's sources or dpkg status.
# The calling script holds the suite's lock until it exits: two runs at
# once on one cache (two vm-runs by hand, say) would otherwise rewrite
# the same sources and index, and fetch into the same cache, together.
# apt_setup SUITE [src]: with "src", the suite's source packages (for
# apt-get source), in a state of their own.
apt_setup() {
	local suite=$1 type=deb d=$CACHE/apt/$1
	[ "${2:-}" != src ] || type=deb-src d=$CACHE/apt/$1-src
	host_ready fetch
	host_archive "$suite"
	mkdir -p "$d/etc" "$d/state/lists/partial" "$d/cache/archives/partial"
	lock_until_exit "$d/lock"
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "$type [signed-by=$key] $ARCHIVE_URI $suite main"
		# backports and unstable have no updates or security suite
		case $suite in *-backports|sid) ;; *)
		echo "$type [signed-by=$key] $ARCHIVE_URI $suite-updates main"
		[ -z "$SECURITY_URI" ] ||
			echo "$type [signed-by=$key] $SECURITY_URI $suite-security main"
		esac
	} > "$d/etc/sources.list.new"
	# A changed mirror is a changed index: update at once.
	cmp -s "$d/etc/sources.list.new" "$d/etc/sources.list" ||
		rm -f "$d/state/updated"
	mv "$d/etc/sources.list.new" "$d/etc/sources.list"
	APT_O=(-o "Dir::Etc::sourcelist=$d/etc/sources.list"
	       -o Dir::Etc::sourceparts=- -o "Dir::State=$d/state"
	       -o "Dir::Cache=$d/cache" -o Dir::State::status=/dev/null
	       -o APT::Architecture=amd64 -o APT::Sandbox::User=root)
	# Refresh the index at most once an hour: security updates bump the ABI.
	local stamp=$d/state/updated
	if [ -z "$(find "$stamp" -mmin -60 2>/dev/null)" ]; then
		log "apt update ($suite from $ARCHIVE_URI, private state)"
		apt-get -q "${APT_O[@]}" update >"$d/update.log" 2>&1 ||
			{ cat "$d/update.log" >&2; die "apt update failed"; }
		touch "$stamp"
	fi
}

# Load the description written by fetch-kernel (KVER, KDIR, VMLINUZ, ...).
kernel_env() {
	local f=$CACHE/kernels/$KERNEL/kernel.env
	if [ "$KERNEL" = debug ]; then
		# built here, not fetched; rebuilt when its config changed
		"$VM_DIR/build-debug-kernel" >&2
	else
		[ -f "$f" ] || "$VM_DIR/fetch-kernel" "$KERNEL" >&2
	fi
	# shellcheck disable=SC1090
	. "$f"
}

# The Debian packages of the host tiers named (sections of packages.txt;
# [vm] adds the selftests' list, bench is make bench's list).
tier_packages() {
	local t
	for t in "$@"; do
		case $t in
		bench) cat "$REPO/tools/testing/bench/packages.txt" ;;
		*) sed -n "/^\[$t\]/,/^\[/{/^\[/d;p}" "$VM_DIR/packages.txt" ;;
		esac
		[ "$t" != vm ] ||
			cat "$REPO/tools/testing/selftests/net/smc/packages.txt"
	done | sed 's/#.*//' | tr -s ' \t' '\n' | grep . | sort -u
}

# Make the host ready for the tiers named: install what is missing of
# their packages (as root; otherwise fail naming the command that would),
# and for [vm] the virtme-ng venv.  Every entry point calls it for what
# it uses; a tier checked once is not checked again by child scripts.
host_ready() {
	local t todo=() pkgs=() missing=() alog=$CACHE/host-apt.log
	for t in "$@"; do
		case " ${SMC_HOST_READY:-} " in
		*" $t "*) ;;
		*) todo+=("$t") ;;
		esac
	done
	[ ${#todo[@]} -gt 0 ] || return 0
	if command -v dpkg-query >/dev/null; then
		mapfile -t pkgs < <(tier_packages "${todo[@]}")
		mapfile -t missing < <(comm -23 <(printf '%s\n' "${pkgs[@]}") \
			<(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
				"${pkgs[@]}" 2>/dev/null |
			  awk '$1 == "ii" { print $2 }' | sort -u))
	else
		log "not a Debian host: cannot check for packages ${todo[*]}"
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		[ "$(id -u)" = 0 ] ||
			die "missing host packages; as root run:" \
			    "apt-get install --no-install-recommends ${missing[*]}"
		log "installing ${missing[*]}"
		{
			DEBIAN_FRONTEND=noninteractive apt-get -q update &&
			DEBIAN_FRONTEND=noninteractive apt-get -q -y install \
				--no-install-recommends "${missing[@]}"
		} >"$alog" 2>&1 ||
			{ tail -n 20 "$alog" >&2; die "apt-get failed (see $alog)"; }
	fi
	case " ${todo[*]} " in *" vm "*) ensure_vng ;; esac
	export SMC_HOST_READY="${SMC_HOST_READY:-} ${todo[*]}"
}

# tcg_cpu QEMU_VERSION: the -cpu a TCG guest gets, or nothing for vng's
# own ("max").  Before 8.0, TCG computes CMPXCHG16B's flags from the
# condition-code state saved at the start of the translation block:
# after an iret that is the whole flags word, and an add in the block
# leaves its source operand in its place, so RFLAGS takes the operand.
# The slab allocator's fast path adds an object's address and then runs
# cmpxchg16b: TF, VM, IOPL and bits 22-31 end up in RFLAGS, then a #DB
# the kernel never asked for and a double fault (smc.rst, "Testing").
# Without CX16 the kernel emulates the instruction with interrupts off
# (this_cpu_cmpxchg16b_emu) and user space does not use it.
tcg_cpu() {
	local major=${1%%.*}
	[[ $major =~ ^[0-9]+$ ]] || return 0
	[ "$major" -ge 8 ] || echo "max,-cx16"
}

# virtme-ng lives in a venv in the cache; vng calls virtme-run via PATH.
# A venv whose interpreter is gone (made on another host) is made again.
ensure_vng() {
	local venv=$CACHE/venv
	if ! "$venv/bin/python3" -c 'import virtme_ng' 2>/dev/null; then
		log "creating virtme-ng venv in $venv"
		rm -rf "$venv"
		python3 -m venv "$venv"
		"$venv/bin/pip" install -q virtme-ng ||
			die "pip install virtme-ng failed"
	fi
	export PATH=$venv/bin:$PATH
}
