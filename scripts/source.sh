#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# source.sh PACKAGE SUITE: the pristine source of a kernel line, unpacked
# from its Debian linux-source package (configs/lines.toml) into the cache,
# fetched without touching the machine's apt configuration (debs.sh).
# Prints the tree's path. A tree is complete or absent, never half unpacked.
# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"

[ $# -eq 2 ] || die "usage: source.sh PACKAGE SUITE"
pkg=$1 suite=$2

deb=$("$S/debs.sh" "$suite" "$pkg") || die "could not fetch $pkg from $suite"
version=$(dpkg-deb -f "$deb" Version) || die "$deb is not a Debian package"
dest=$CACHE/src/${pkg}_$version
if [ ! -f "$dest/.unpacked" ]; then
	# In a directory of its own: another clone may be unpacking it too.
	mkdir -p "$CACHE/src"
	tmp=$(mktemp -d "$dest.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	note "unpacking $pkg $version"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" |
		tar -xJ -C "$tmp" || die "could not unpack $pkg.tar.xz from $deb"
	[ -f "$tmp/$pkg/Makefile" ] || die "$deb holds no kernel tree"
	echo "$pkg $version" >"$tmp/$pkg/.unpacked"
	[ -f "$dest/.unpacked" ] || rm -rf "$dest"
	mv -T "$tmp/$pkg" "$dest" 2>/dev/null || [ -f "$dest/.unpacked" ] || die "could not unpack into $dest"
fi
echo "$dest"
