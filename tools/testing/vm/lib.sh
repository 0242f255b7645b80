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

# Map our short kernel names to Debian suites.
suite_of() {
	case "$1" in
	deb13) echo trixie ;;
	deb12) echo bookworm ;;
	*) die "unknown KERNEL '$1' (want deb13 or deb12)" ;;
	esac
}

# Private apt state so we never touch the host's sources or dpkg status.
apt_setup() {
	local suite=$1 d=$CACHE/apt/$1
	mkdir -p "$d/etc" "$d/state/lists/partial" "$d/cache/archives/partial"
	local key=/usr/share/keyrings/debian-archive-keyring.gpg
	cat > "$d/etc/sources.list" <<EOS
deb [signed-by=$key] http://deb.debian.org/debian $suite main
deb [signed-by=$key] http://deb.debian.org/debian $suite-updates main
deb [signed-by=$key] http://deb.debian.org/debian-security $suite-security main
EOS
	APT_O=(-o "Dir::Etc::sourcelist=$d/etc/sources.list"
	       -o Dir::Etc::sourceparts=- -o "Dir::State=$d/state"
	       -o "Dir::Cache=$d/cache" -o Dir::State::status=/dev/null
	       -o APT::Architecture=amd64 -o APT::Sandbox::User=root)
	# Refresh the index at most once an hour: security updates bump the ABI.
	local stamp=$d/state/updated
	if [ -z "$(find "$stamp" -mmin -60 2>/dev/null)" ]; then
		log "apt update ($suite, private state)"
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
