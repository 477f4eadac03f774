#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# source.sh LINE: the pristine source of a kernel line, unpacked from its
# Debian linux-source package (configs/lines) into the cache, fetched
# without touching the machine's apt configuration (debs.sh). Prints the
# tree's path. A tree is complete or absent, never half unpacked.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

line=$1
pkg=$(line_field "$line" 2)
suite=$(line_field "$line" 3)

deb=$("$S/debs.sh" "$suite" "$CACHE/debs" "$pkg" | tail -1) ||
	die "could not fetch $pkg from $suite"
version=$(dpkg-deb -f "$deb" Version) || die "$deb is not a Debian package"
dest=$CACHE/src/${pkg}_$version
if [ ! -f "$dest/.unpacked" ]; then
	rm -rf "$dest" "$dest.tmp"
	mkdir -p "$dest.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" |
		tar -xJ -C "$dest.tmp" || die "could not unpack $pkg.tar.xz from $deb"
	[ -f "$dest.tmp/$pkg/Makefile" ] || die "$deb holds no kernel tree"
	mv "$dest.tmp/$pkg" "$dest"
	rmdir "$dest.tmp"
	echo "$pkg $version" >"$dest/.unpacked"
fi
echo "$dest"
