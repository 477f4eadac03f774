#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# setup.sh: install the Debian packages the harness needs (as root), or
# print the exact apt-get line that would. gcc-12-multilib, not
# gcc-multilib, which conflicts with the ARM cross-compilers. The kernel
# sources and guests' busybox are fetched into the cache, not installed.
# git-email with the Perl modules it recommends: make mails' git
# send-email --dry-run needs Mail::Address, sending SASL and TLS.
# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"

packages=(make gcc gcc-12-multilib gcc-arm-linux-gnueabi flex bison bc libelf-dev
	  libssl-dev cpio xz-utils python3 quilt diffstat git sparse shellcheck
	  qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	  debian-archive-keyring rsync mypy codespell gcc-powerpc-linux-gnu
	  gcc-mips-linux-gnu gcc-hppa-linux-gnu gcc-m68k-linux-gnu gcc-sh4-linux-gnu
	  gcc-arc-linux-gnu
	  git-email libmailtools-perl libemail-valid-perl libauthen-sasl-perl
	  libio-socket-ssl-perl)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "missing packages; as root run:" >&2
	echo "  apt-get update && $line" >&2
	exit 1
fi
note "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
{ apt-get update && $line; } >"$LOGS/setup.log" 2>&1 ||
	die "apt-get failed, see $LOGS/setup.log"
