#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kselftest_tools.sh DEST: stage into DEST, a fragment of the test guest's
# root file system, what run_kselftest.sh needs beyond busybox, from
# Debian bookworm's packages of the guest's architecture (DEBS_ARCH):
#
#   bin/bash          runner.sh's "ip netns exec NAME bash" (-n)
#   sbin/ip           iproute2's ip, for "ip netns add" (-n); busybox's has
#                     no netns
#   usr/bin/timeout   coreutils', which takes --foreground (busybox's does
#                     not); runner.sh uses it whenever it is there
#   usr/lib/TRIPLET/SONAME, the loader   every shared library they load
#
# Nothing is installed or run here: debs.sh downloads the packages, dpkg-deb
# -x unpacks them. The libraries are the closure of the ELF NEEDED entries,
# a soname no unpacked package has looked for in what the package needing it
# depends on (stage_libs.sh). DEST is replaced whole once all is staged; a
# rerun with the same inputs keeps it (DEST.stamp).
# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"

[ $# -eq 1 ] || die "usage: kselftest_tools.sh DEST"
dest=$(realpath -m "$1")
suite=bookworm
arch=${DEBS_ARCH:-amd64}
case $arch in
amd64) triplet=x86_64-linux-gnu ;;
arm64) triplet=aarch64-linux-gnu ;;
*) die "DEBS_ARCH=$arch: not amd64 or arm64" ;;
esac
# package:path in it:path in the guest
tools=(bash:bin/bash:bin/bash iproute2:bin/ip:sbin/ip coreutils:usr/bin/timeout:usr/bin/timeout)

mkdir -p "$(dirname "$dest")"
exec 9>"$dest.lock"
flock 9
stamp=$(cat "$S/kselftest_tools.sh" "$S/stage_libs.sh" "$S/debs.sh" <(echo "$suite $arch") | sha256sum | cut -c1-16)
if [ "$(cat "$dest.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$dest/sbin/ip" ]; then
	echo "$dest is up to date"
	exit 0
fi
rm -rf "$dest.stamp" "$dest".work.*
work=$(mktemp -d "$dest.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/stage

# shellcheck source=stage_libs.sh
. "$S/stage_libs.sh"

pkgs=()
for t in "${tools[@]}"; do
	pkgs+=("${t%%:*}")
done
fetch "${pkgs[@]}"

for t in "${tools[@]}"; do
	IFS=: read -r pkg bin to <<<"$t"
	stage_program "$pkg" "$bin" "$to"
done

rm -rf "$dest"
mv "$stage" "$dest"
echo "$stamp" >"$dest.stamp"
echo "staged in $dest: $(du -sh "$dest" | cut -f1), $(find "$dest" -type f | wc -l) files"
