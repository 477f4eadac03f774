#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# clients.sh DEST: stage the real process-connector clients for the test
# guest into DEST, laid out as a fragment of a root file system:
#
#   usr/sbin/keepalived, usr/bin/extrace    from Debian's packages (suite
#                                           CLIENTS_SUITE, bookworm)
#   usr/lib/x86_64-linux-gnu/SONAME         every shared library they load,
#                                           one file per soname
#   lib64/ld-linux-x86-64.so.2              -> the dynamic loader beside them
#   clients/run.sh, clients/keepalived.conf the guest side (tests/clients/)
#
# Nothing is installed or run here: debs.sh downloads the packages, dpkg-deb
# -x unpacks them. The libraries are the closure of the ELF NEEDED entries,
# a soname no unpacked package has looked for in what the package needing it
# depends on. DEST is replaced whole once all is staged; a rerun with the
# same inputs keeps it (DEST.stamp; remove it to restage).
# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"

[ $# -eq 1 ] || die "usage: clients.sh DEST"
dest=$(realpath -m "$1")
suite=${CLIENTS_SUITE:-bookworm}
triplet=x86_64-linux-gnu
# The clients: package and the program staged from it.
clients=(keepalived:usr/sbin/keepalived extrace:usr/bin/extrace)

mkdir -p "$(dirname "$dest")"
exec 9>"$dest.lock"
flock 9
# Staged already from the same inputs: nothing to do. (DEST.stamp, beside
# DEST so that it stays out of the guest.)
stamp=$(cat "$S/clients.sh" "$S/debs.sh" "$TOP/tests/clients/run.sh" \
	"$TOP/tests/clients/keepalived.conf" <(echo "$suite") | sha256sum | cut -c1-16)
if [ "$(cat "$dest.stamp" 2>/dev/null)" = "$stamp" ] &&
	[ -x "$dest/usr/sbin/keepalived" ] && [ -x "$dest/usr/bin/extrace" ]; then
	echo "$dest is up to date"
	exit 0
fi
rm -rf "$dest.stamp" "$dest".work.*
work=$(mktemp -d "$dest.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/stage

declare -A unpacked=() # package name -> its unpacked tree
declare -A deb_of=()   # package name -> its .deb in the cache
declare -A lib=()      # soname -> the file staged for it

# fetch PKG...: download the packages and unpack each into its own tree.
fetch() {
	local out deb name
	out=$("$S/debs.sh" "$suite" "$@") || exit 1
	while read -r deb; do
		name=$(dpkg-deb -f "$deb" Package)
		mkdir -p "$work/pkg/$name"
		dpkg-deb -x "$deb" "$work/pkg/$name"
		unpacked[$name]=$work/pkg/$name
		deb_of[$name]=$deb
	done <<<"$out"
}

# deps PKG ERE: the packages PKG depends on (the first of each
# alternative) whose names match ERE and that are not unpacked yet.
deps() {
	dpkg-deb -f "${deb_of[$1]}" Pre-Depends Depends |
		sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
		sed -E 's/\|.*//; s/\(.*\)//; s/:[a-z0-9]+//; s/[[:space:]]//g' |
		{ grep -E "$2" || true; } | while read -r p; do
			[ -n "${unpacked[$p]:-}" ] || echo "$p"
		done
}

# find_so SONAME: "package path" of the first unpacked library of that
# name in the multiarch and plain library directories.
find_so() {
	local p d f
	for p in "${!unpacked[@]}"; do
		for d in "lib/$triplet" "usr/lib/$triplet" lib usr/lib lib64; do
			f=${unpacked[$p]}/$d/$1
			if [ -e "$f" ]; then
				echo "$p $f"
				return
			fi
		done
	done
}

# resolve FILE PKG: stage the libraries FILE (from package PKG) needs,
# and theirs.
resolve() {
	local file=$1 pkg=$2 so hit owner path ere more
	for so in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		[ -z "${lib[$so]:-}" ] || continue
		hit=$(find_so "$so")
		# Not unpacked yet: look in what the package depends on, its lib*
		# packages first (zlib1g is one that is not named lib*).
		for ere in '^lib' '.'; do
			[ -z "$hit" ] || break
			more=$(deps "$pkg" "$ere")
			# shellcheck disable=SC2086 # package names, one a word
			[ -z "$more" ] || fetch $more
			hit=$(find_so "$so")
		done
		[ -n "$hit" ] ||
			die "$so, needed by ${file#"$work/pkg/"}, is in none of: ${!unpacked[*]}"
		owner=${hit%% *} path=${hit#* }
		lib[$so]=$path
		install -D -m 0755 "$(realpath "$path")" "$stage/usr/lib/$triplet/$so"
		echo "  $so  ($owner)"
		resolve "$path" "$owner"
	done
}

fetch "${clients[@]%%:*}"

for c in "${clients[@]}"; do
	pkg=${c%%:*} bin=${c#*:}
	file=${unpacked[$pkg]}/$bin
	[ -f "$file" ] || die "package $pkg has no /$bin"
	install -D -m 0755 "$file" "$stage/$bin"
	echo "/$bin ($pkg $(dpkg-deb -f "${deb_of[$pkg]}" Version))"
	resolve "$file" "$pkg"
	# The loader: the interpreter named in the program, staged with the
	# libraries (libc needs it) and linked from where the program looks.
	ld=$(readelf -l "$file" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')
	so=$(basename "$ld")
	[[ -n $ld && -n ${lib[$so]:-} ]] || die "/$bin: its loader '$ld' is not among its libraries"
	mkdir -p "$stage$(dirname "$ld")"
	ln -sfn "$(realpath -m --relative-to="$stage$(dirname "$ld")" "$stage/usr/lib/$triplet/$so")" "$stage$ld"
done

install -D -m 0755 "$TOP/tests/clients/run.sh" "$stage/clients/run.sh"
install -D -m 0644 "$TOP/tests/clients/keepalived.conf" "$stage/clients/keepalived.conf"

rm -rf "$dest"
mv "$stage" "$dest"
echo "$stamp" >"$dest.stamp"
echo "staged in $dest: $(du -sh "$dest" | cut -f1), $(find "$dest" -type f | wc -l) files"
