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
	*) die "unknown KERNEL '$1' (want deb13 or deb12)" ;;
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

# Private apt state so we never touch the host's sources or dpkg status.
apt_setup() {
	local suite=$1 d=$CACHE/apt/$1
	host_archive "$suite"
	mkdir -p "$d/etc" "$d/state/lists/partial" "$d/cache/archives/partial"
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "deb [signed-by=$key] $ARCHIVE_URI $suite main"
		echo "deb [signed-by=$key] $ARCHIVE_URI $suite-updates main"
		[ -z "$SECURITY_URI" ] ||
			echo "deb [signed-by=$key] $SECURITY_URI $suite-security main"
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
	[ -f "$f" ] || "$VM_DIR/fetch-kernel" "$KERNEL" >&2
	# shellcheck disable=SC1090
	. "$f"
}

# virtme-ng lives in a venv in the cache; vng calls virtme-run via PATH.
ensure_vng() {
	local venv=$CACHE/venv
	if [ ! -x "$venv/bin/vng" ]; then
		log "creating virtme-ng venv in $venv"
		python3 -m venv "$venv"
		"$venv/bin/pip" install -q virtme-ng ||
			die "pip install virtme-ng failed"
	fi
	export PATH=$venv/bin:$PATH
}
