# SPDX-License-Identifier: GPL-2.0
# stage_libs.sh: a library, sourced by clients.sh and kselftest_tools.sh
# after they set suite, triplet, work and stage, not run. It unpacks
# Debian packages (debs.sh, of DEBS_ARCH) into their own trees under
# $work/pkg and stages into $stage/usr/lib/TRIPLET the closure of the ELF
# NEEDED entries of a file, looking for a soname no unpacked package has in
# what the package needing it depends on.
# shellcheck shell=bash disable=SC2154 # suite, triplet, work, stage, S: the sourcing script's

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

# stage_program PKG BIN TO: stage /BIN of the unpacked package PKG as TO,
# with its libraries and its loader (the interpreter named in the program,
# staged with the libraries, libc needs it, and linked from where the
# program looks).
stage_program() {
	local pkg=$1 bin=$2 to=$3 file ld so
	file=${unpacked[$pkg]}/$bin
	[ -f "$file" ] || die "package $pkg has no /$bin"
	install -D -m 0755 "$file" "$stage/$to"
	echo "/$to ($pkg $(dpkg-deb -f "${deb_of[$pkg]}" Version), ${DEBS_ARCH:-amd64})"
	resolve "$file" "$pkg"
	ld=$(readelf -l "$file" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')
	so=$(basename "$ld")
	[[ -n $ld && -n ${lib[$so]:-} ]] || die "/$bin: its loader '$ld' is not among its libraries"
	mkdir -p "$stage$(dirname "$ld")"
	ln -sfn "$(realpath -m --relative-to="$stage$(dirname "$ld")" "$stage/usr/lib/$triplet/$so")" "$stage$ld"
}
