#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# setup.sh [-n] [TARGET...]: install the Debian packages that make TARGET
# needs (as root; every make target that needs one runs this first), saying
# which; as another user, print the apt-get line that would. No TARGET:
# every package the harness needs (make setup). -n: print the packages,
# install nothing. The kernel sources, herd7, sid's sparse and the guests'
# programs are fetched into the cache, not installed.
set -euo pipefail

# The groups of packages. gcc-12-multilib, not gcc-multilib, which
# conflicts with the ARM cross-compilers; git-email with the Perl modules
# it recommends: git send-email --dry-run needs Mail::Address, sending
# SASL and TLS.
declare -A group=(
	# scripts/debs.sh and source.sh: Debian's packages, verified, unpacked
	[fetch]="python3 debian-archive-keyring xz-utils"
	[kbuild]="make gcc flex bison bc libelf-dev libssl-dev quilt diffstat"
	# QEMU for x86_64: the boots and kunit.py
	[qemu]="qemu-system-x86"
	# the guests: arm64's QEMU, the initramfs, the selftest of each listener
	[guest]="cpio rsync qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		 gcc-12-multilib"
	[static]="git sparse codespell rsync gcc-12-multilib gcc-aarch64-linux-gnu
		  libc6-dev-arm64-cross gcc-arm-linux-gnueabi gcc-powerpc-linux-gnu
		  gcc-mips-linux-gnu gcc-hppa-linux-gnu gcc-m68k-linux-gnu gcc-sh4-linux-gnu
		  gcc-arc-linux-gnu"
	[mails]="git codespell git-email libmailtools-perl libemail-valid-perl
		 libauthen-sasl-perl libio-socket-ssl-perl"
	# the per-file diffs and the selftest's patch
	[diffs]="git patch"
	# tests/*_test.py run make, gcc, quilt, git and git send-email --dry-run
	[unit]="python3 make gcc quilt git git-email libmailtools-perl mypy shellcheck"
)
# What each target needs; results needs nothing, check everything.
declare -A needs=(
	[unit-tests]=unit [mutation]="fetch unit"
	[file-diffs]="fetch diffs" [check-file-diffs]="fetch diffs"
	[litmus]=fetch [mails]="fetch mails"
	[kunit]="fetch kbuild qemu" [boot-test]="fetch kbuild qemu guest"
	[bench]="fetch kbuild qemu guest" [kcsan]="fetch kbuild qemu guest"
	[static-checks]="fetch kbuild static"
	[check]="${!group[*]}" [results]=""
)

list=false
[ "${1:-}" = -n ] && list=true && shift
what="make $*"
[ $# -gt 0 ] || { what="make setup"; set -- check; }
groups=()
for t in "$@"; do
	# A target this does not know (yet) gets every package.
	read -ra g <<<"${needs[$t]-${needs[check]}}"
	groups+=("${g[@]}")
done
packages=()
for g in "${groups[@]}"; do
	read -d '' -ra p <<<"${group[$g]}" || true
	packages+=("${p[@]}")
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u | sed '/^$/d')
if $list; then
	echo "${packages[*]}"
	exit 0
fi
[ ${#packages[@]} -gt 0 ] || exit 0

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "$what: missing packages; as root run:" >&2
	echo "  apt-get update && $line" >&2
	exit 1
fi
note "$what needs ${missing[*]}: installing them ($LOGS/setup.log)"
export DEBIAN_FRONTEND=noninteractive
{ apt-get update && $line; } >"$LOGS/setup.log" 2>&1 ||
	die "apt-get failed, see $LOGS/setup.log"
