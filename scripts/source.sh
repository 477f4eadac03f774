#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# source.sh DEB DEST: unpack the kernel tree of a Debian linux-source
# package (DEB, from debs.sh) into DEST, an empty directory, and record
# "PACKAGE VERSION" in DEST/.unpacked. The harness makes DEST a cache entry
# (harness_kernel.fetch_source()).
# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"

[ $# -eq 2 ] || die "usage: source.sh DEB DEST"
deb=$1 dest=$2

pkg=$(dpkg-deb -f "$deb" Package) || die "$deb is not a Debian package"
version=$(dpkg-deb -f "$deb" Version) || die "$deb is not a Debian package"
if [ ! -d "$dest" ] || [ -n "$(ls -A "$dest")" ]; then
	die "$dest is not an empty directory"
fi
note "unpacking $pkg $version"
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" |
	tar -xJ -C "$dest" --strip-components=1 "$pkg" || die "could not unpack $pkg.tar.xz from $deb"
[ -f "$dest/Makefile" ] || die "$deb holds no kernel tree"
echo "$pkg $version" >"$dest/.unpacked"
