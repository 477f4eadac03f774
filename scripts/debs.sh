#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debs.sh SUITE DEST PKG...: download the named packages (NAME or
# NAME=VERSION) of Debian suite SUITE (bookworm, trixie-backports, ...) into
# directory DEST and print the paths of the .deb files, one a line.
#
# The mirror is the one this machine's apt already uses (DEBS_MIRROR
# overrides it); the architecture is DEBS_ARCH (amd64, what the test guests
# run). The machine's apt configuration is left alone: the suite gets its
# own sources list, package lists and cache under
#   ${XDG_CACHE_HOME:-$HOME/.cache}/cn-proc-timestamps/apt/SUITE/
# verified with the Debian archive keyring. The .debs are kept there too,
# so a package already downloaded (checked against the index's SHA256) is
# not fetched again, by this clone or another. The lists are refreshed when
# older than a day, or when a package is not in them or cannot be
# downloaded as they say; older lists serve when the mirror cannot be
# reached, so that what is cached needs no network.
#
# An unreachable mirror (when something must be fetched) or a missing
# package ends the script with one line on stderr and exit status 1,
# before anything is written to DEST.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || die "usage: debs.sh SUITE DEST PKG..."
suite=$1 dest=$2
shift 2
case $suite in
'' | */* | .*) die "bad suite name '$suite'" ;;
esac

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring is missing (apt-get install debian-archive-keyring)"
arch=${DEBS_ARCH:-amd64}

# The machine's Debian mirror: the first URI ending in /debian in its apt
# sources (deb822 .sources files, then one-line sources.list files).
mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++;
			if ($i ~ /^\[/ || $i ~ /\]$/) i++; print $i }' "$f"
	done
}
# Security updates live in their own archive, debian-security.
archive=debian
case $suite in *-security) archive=debian-security ;; esac
url=${DEBS_MIRROR:-$(mirror | sed 's,/*$,,' | grep -m1 -E "^https?://.*/$archive\$" || true)}
[ -n "$url" ] || die "no Debian mirror in /etc/apt/sources.list{,.d/*}; set DEBS_MIRROR"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/cn-proc-timestamps/apt/$suite
mkdir -p "$cache/lists/partial" "$cache/cache/archives/partial" "$cache/debs" "$cache/state"
exec 9>"$cache/lock"
flock 9

src="deb [arch=$arch signed-by=$keyring] $url $suite main"
[ "$(cat "$cache/sources.list" 2>/dev/null)" = "$src" ] || {
	echo "$src" >"$cache/sources.list"
	# A new mirror or arch invalidates the lists.
	rm -f "$cache/lists/"*_Packages* "$cache/lists/"*Release* "$cache/updated"
}
: >>"$cache/status"
apt_opts=(
	-o "Dir::Etc::SourceList=$cache/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::Etc::Preferences=/dev/null"
	-o "Dir::Etc::PreferencesParts=/dev/null"
	-o "Dir::State=$cache/state"
	-o "Dir::State::Lists=$cache/lists"
	-o "Dir::State::status=$cache/status"
	-o "Dir::Cache=$cache/cache"
	-o "Dir::Cache::pkgcache=pkgcache.bin"
	-o "Dir::Cache::srcpkgcache=srcpkgcache.bin"
	-o "APT::Architecture=$arch"
	-o "APT::Architectures::=$arch"
	-o "APT::Get::List-Cleanup=1"
	-o "APT::Sandbox::User=root"
)
log=$cache/apt.log

# update: refresh the lists. On failure: status 1, the reason in $why.
why=
updated=0
update() {
	updated=1
	if ! apt-get "${apt_opts[@]}" -o APT::Update::Error-Mode=any -q update >"$log" 2>&1; then
		why="cannot fetch the $suite package lists from $url ($(grep -m1 -E '^(E|W|Err):' "$log" | cut -c1-200)); see $log"
		return 1
	fi
	have_lists || {
		why="no $suite $arch package list on $url; see $log"
		return 1
	}
	# apt keeps the server's dates on the lists: the time of the last
	# refresh is this file's.
	touch "$cache/updated"
}

have_lists() {
	[ -n "$(find "$cache/lists" -maxdepth 1 -name '*_Packages*')" ]
}

# index PKG...: "NAME VERSION FILENAME SHA256" of each package's candidate
# (or the version asked for) in the suite.
index() {
	{ apt-cache "${apt_opts[@]}" show --no-all-versions "$@" 2>/dev/null || true; } |
		awk '$1 == "Package:" { p = $2 } $1 == "Version:" { v = $2 }
			$1 == "Filename:" { f = $2 } $1 == "SHA256:" { s = $2 }
			/^$/ { if (p != "") print p, v, f, s; p = "" }
			END { if (p != "") print p, v, f, s }'
}

# entry PKG: PKG's line of the index.
entry() {
	local name=${1%%=*} version=
	[ "$name" = "$1" ] || version=${1#*=}
	awk -v n="$name" -v v="$version" '$1 == n && (v == "" || $2 == v) { print; exit }' <<<"$idx"
}

# cached PKG: PKG's .deb in the cache, if it is there and intact.
cached() {
	local file sha deb
	read -r _ _ file sha <<<"$(entry "$1")"
	deb=$cache/debs/$(basename "$file")
	[ -f "$deb" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" = "$sha" ] && echo "$deb"
}

# download PKG: into the cache (apt-get download checks it against the
# signed index). On failure: status 1, the reason in $why.
download() {
	local file tmp got
	read -r _ _ file _ <<<"$(entry "$1")"
	tmp=$(mktemp -d "$cache/debs/.tmp.XXXXXX")
	if ! (cd "$tmp" && apt-get "${apt_opts[@]}" -q download "$1") >"$log" 2>&1; then
		rm -rf "$tmp"
		why="cannot download $1 from $url ($(grep -m1 -E '^(E|W|Err):' "$log" | cut -c1-200)); see $log"
		return 1
	fi
	got=("$tmp"/*.deb)
	# apt names the file NAME_VERSION_ARCH.deb with the epoch's colon
	# escaped; keep the pool's name.
	mv "${got[0]}" "$cache/debs/$(basename "$file")"
	rm -rf "$tmp"
}

# The lists: refreshed once a day, or when a package is not in them or
# cannot be downloaded as they describe it (a point release). Old lists
# serve when the mirror cannot be reached: all may be in the cache.
if [ -z "$(find "$cache" -maxdepth 1 -name updated -mmin -1440)" ] || ! have_lists; then
	update || have_lists || die "$why"
fi

idx=$(index "$@")
for pkg in "$@"; do
	if [ -z "$(entry "$pkg")" ] && [ $updated = 0 ]; then
		update || die "$why"
		idx=$(index "$@")
	fi
	[ -n "$(entry "$pkg")" ] ||
		die "no package '$pkg' ($arch) in Debian $suite at $url${why:+ (lists not refreshed: $why)}"
done

debs=()
for pkg in "$@"; do
	deb=$(cached "$pkg") || {
		if ! download "$pkg"; then
			[ $updated = 0 ] || die "$why"
			update || die "$why"
			idx=$(index "$@")
			[ -n "$(entry "$pkg")" ] || die "no package '$pkg' ($arch) in Debian $suite at $url"
			download "$pkg" || die "$why"
		fi
		deb=$(cached "$pkg") || die "$pkg: the download does not match the index; see $log"
	}
	debs+=("$deb")
done

# Everything is here: only now is DEST written, each file atomically.
mkdir -p "$dest"
for deb in "${debs[@]}"; do
	out=$dest/$(basename "$deb")
	if ! cmp -s "$deb" "$out"; then
		cp "$deb" "$out.tmp.$$"
		mv "$out.tmp.$$" "$out"
	fi
	echo "$out"
done
