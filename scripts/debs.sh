#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# debs.sh SUITE PKG...: download the named packages (NAME or NAME=VERSION)
# of Debian suite SUITE (bookworm, trixie-backports, ...) into the cache and
# print the paths of the .deb files there, one a line; each is stored once.
#
# From this machine's apt mirror (or DEBS_MIRROR), amd64 or DEBS_ARCH, with
# apt state of its own in $CACHE/apt/SUITE[.ARCH]/ (the machine's apt is left
# alone), verified with the Debian archive keyring; a .deb there that
# matches the index's SHA256 is not fetched again. The lists are refreshed
# daily, or when a package is not in them or not downloadable as they say;
# older ones serve offline. Failure: one line on stderr, exit status 1.
# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"

[ $# -ge 2 ] || die "usage: debs.sh SUITE PKG..."
suite=$1
shift
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

cache=$CACHE/apt/$suite
[ "$arch" = amd64 ] || cache=$cache.$arch
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

# cached PKG: PKG's .deb in the cache, if it is there and intact (hashed
# once a run: the sources are large).
declare -A intact=()
cached() {
	local file sha deb
	read -r _ _ file sha <<<"$(entry "$1")"
	deb=$cache/debs/$(basename "$file")
	if [ -z "${intact[$deb]:-}" ]; then
		[ -f "$deb" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" = "$sha" ] || return 1
		intact[$deb]=1
	fi
	echo "$deb"
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

# have_all PKG...: every package in the lists and in the cache, downloaded
# if need be; status 1 and the reason in $why otherwise. In a condition:
# every step is checked.
have_all() {
	local pkg
	idx=$(index "$@")
	for pkg; do
		[ -n "$(entry "$pkg")" ] || { why="no package '$pkg' ($arch) in Debian $suite at $url"; return 1; }
		cached "$pkg" >/dev/null || download "$pkg" || return 1
		cached "$pkg" >/dev/null || { why="$pkg: the download does not match the index; see $log"; return 1; }
	done
}
# Not in the lists or not downloadable as they say (a point release): once
# more with fresh lists.
have_all "$@" || { [ $updated = 0 ] && update && have_all "$@"; } || die "$why"
for pkg; do
	cached "$pkg"
done
