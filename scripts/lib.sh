# SPDX-License-Identifier: GPL-2.0
# lib.sh: a library, sourced by every stage, not run: paths, the boot
# architecture, kernel lines and the options that select them, the series,
# the cache, stage timing, errors.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m "${OUT:-$TOP/out}")
# Downloads, unpacked sources and built kernels outlive a clone.
export CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cn-proc-timestamps
LOGS=$OUT/logs
JOBS=${JOBS:-$(nproc)}
export S=$TOP/scripts
# arch_env ARCH: the "# harness: NAME=VALUE..." lines of the architecture's
# one file, configs/arch/ARCH.config (KARCH, QEMU, ...); status 1 if none.
arch_env() {
	[ -f "$TOP/configs/arch/$1.config" ] || return 1
	export -n CROSS_COMPILE && CROSS_COMPILE='' QEMU='' # make is given it, never inherits it
	eval "$(sed -n 's/^# harness: //p' "$TOP/configs/arch/$1.config")"
}

die() {
	echo "error: $*" >&2
	exit 1
}

# The guests' architecture, one a process: BOOT_ARCH (make's ARCH), x86_64.
GUEST_ARCH=${BOOT_ARCH:-x86_64}
{ arch_env "$GUEST_ARCH" && [ -n "$QEMU" ]; } || die "ARCH=$GUEST_ARCH: not an architecture the boot test boots: $(
	grep -l '^# harness: .*QEMU=' "$TOP"/configs/arch/*.config | sed 's|.*/||; s|\.config$||' | xargs)"

note() {
	echo "  $*"
}

# stage NAME CMD...: run one stage, printing its name and elapsed time.
# Never call it in a condition (if, &&, ||): bash would then ignore errexit
# inside the stage. A failing stage ends the script, which prints so.
stage() {
	local name=$1 start=$SECONDS
	shift
	echo "[$(date +%H:%M:%S)] $name ..."
	STAGE=$name STAGE_START=$start
	"$@"
	STAGE=
	echo "[$(date +%H:%M:%S)] $name: done in $((SECONDS - start))s"
}

stage_failed() {
	local rc=$?
	[ $rc -eq 0 ] || [ -z "${STAGE:-}" ] ||
		echo "[$(date +%H:%M:%S)] $STAGE: FAILED in $((SECONDS - STAGE_START))s" >&2
}
trap stage_failed EXIT

# Columns of configs/lines: line package suite series-dir.
line_field() {
	local line=$1 col=$2
	awk -v l="$line" -v c="$col" '!/^#/ && $1 == l { print $c; found = 1 }
		END { exit !found }' "$TOP/configs/lines"
}

all_lines() {
	awk '!/^#/ && NF { print $1 }' "$TOP/configs/lines"
}

# The newest line, where the series is posted: the first of configs/lines.
NEWEST=$(all_lines | head -1)

# select_lines: LINES, the lines a command works on: KERNEL (a list, or
# "all"; the newest line by default), or the line whose base matches
# KSRC's version. Dies here, in the calling shell, on anything else.
select_lines() {
	local want=${KERNEL:-} l
	if [ -n "${KSRC:-}" ]; then
		[[ -f $KSRC/Makefile && -d $KSRC/kernel ]] ||
			die "KSRC=$KSRC is not a kernel tree (give the top directory of a Linux source tree)"
		l=$(awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 } END { print v "." p }' "$KSRC/Makefile")
		[ -z "$want" ] || [ "$want" = "$l" ] ||
			die "KSRC=$KSRC is Linux $l, not KERNEL=$want: give one of them, or KERNEL=$l"
		want=$l
	fi
	case $want in '') want=$NEWEST ;; all) want=$(all_lines | xargs) ;; esac
	read -ra LINES <<<"$want"
	[ ${#LINES[@]} -gt 0 ] || die "KERNEL=\"$want\" names no line; lines: $(all_lines | xargs) or all"
	for l in "${LINES[@]}"; do
		line_field "$l" 1 >/dev/null ||
			die "no series for Linux $l (${KSRC:+KSRC=$KSRC, }KERNEL=${KERNEL:-}); lines: $(all_lines | xargs) or all"
		[ -f "$(series_dir "$l")/series" ] ||
			die "configs/lines: Linux $l has no series in $(line_field "$l" 4)/"
	done
}

# each_line WHAT: run this script again for each line of LINES, as
# "SCRIPT --line LINE", each in a process of its own, so that one line's
# failure does not keep the others from running.
each_line() {
	local what=$1 line failed=()
	for line in "${LINES[@]}"; do
		bash "$0" --line "$line" || failed+=("$line")
	done
	[ ${#failed[@]} -eq 0 ] || die "$what failed for: ${failed[*]}"
	echo "$what: passed for ${LINES[*]}"
}

series_dir() {
	echo "$TOP/$(line_field "$1" 4)"
}

# series_patches DIR: the patches of the quilt series in DIR, in order.
series_patches() {
	local p
	while read -r p _; do
		case "$p" in '' | \#*) continue ;; esac
		echo "$1/$p"
	done <"$1/series"
}

# series_files DIR: the files the series in DIR creates or changes.
series_files() {
	series_patches "$1" | xargs sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' | sort -u
}

# series_digest DIR: what the series changes, commit messages aside.
series_digest() {
	local p
	series_patches "$1" | while read -r p; do
		basename "$p"
		sed -n '/^--- /,$p' "$p"
	done | cache_key
}

# trailers_ok PATCH: every tag of PATCH's commit message (Signed-off-by:,
# Fixes:, Cc:, Link:, ...) is in its one trailer block, as git, b4 and the
# stable scripts read it (git interpret-trailers --parse); prints the tags
# outside it.
trailers_ok() {
	local msg parsed t rc=0
	# From the blank line after the Subject: header to the --- line.
	msg=$(sed -n '/^Subject:/,/^---$/p' "$1" | sed '1,/^$/d;$d')
	parsed=$(git interpret-trailers --parse <<<"$msg")
	while read -r t; do
		grep -qxF "$t" <<<"$parsed" ||
			{ echo "${1#"$TOP"/}: '$t' is outside the trailer block"; rc=1; }
	done < <(grep -E '^(Fixes|Cc|Link|Closes|[A-Z][A-Za-z-]*-by): ' <<<"$msg" || true)
	return $rc
}

# The cache, $CACHE/KIND/KEY: kernel images, static-check results. A KEY
# is the cache_key of everything the entry is made from.
cache_key() {
	sha256sum | cut -c1-16
}

# cache_put DIR KIND KEY: DIR's files into the cache with their checksums,
# whole or not at all; an entry without checksums (older) is replaced.
cache_put() {
	local dest=$CACHE/$2/$3 tmp sums
	[ ! -f "$dest/SHA256SUMS" ] || return 0
	mkdir -p "$CACHE/$2"
	tmp=$(mktemp -d "$dest.tmp.XXXXXX") && chmod 755 "$tmp"
	cp -r "$1/." "$tmp/"
	sums=$(cd "$tmp" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -r sha256sum)
	echo "$sums" >"$tmp/SHA256SUMS"
	# Entries are replaced or dropped under the lock, one run at a time.
	(
		flock 9
		[ -f "$dest/SHA256SUMS" ] || { rm -rf "$dest" && mv -T "$tmp" "$dest"; }
	) 9>"$CACHE/$2/.lock"
	rm -rf "$tmp"
}

# cache_get KIND KEY DIR: the entry's files into DIR, replaced whole, only
# when the copy matches the entry's checksums; status 1, DIR untouched,
# otherwise, and a damaged entry is dropped for the next cache_put. Callers
# test it in conditions, where errexit is off: every step is checked.
cache_get() {
	local src=$CACHE/$1/$2 tmp
	[ -f "$src/SHA256SUMS" ] || return 1
	mkdir -p "$(dirname "$3")" || return 1
	tmp=$(mktemp -d "$3.get.XXXXXX") && chmod 755 "$tmp" || return 1
	if ! cp -r "$src/." "$tmp/" || ! (cd "$tmp" && sha256sum --quiet --strict -c SHA256SUMS) >/dev/null 2>&1; then
		rm -rf "$tmp"
		note "cache entry $1/$2 is damaged: not used"
		(flock 9 && rm -rf "$src") 9>"$CACHE/$1/.lock"
		return 1
	fi
	rm -f "$tmp/SHA256SUMS" && rm -rf "$3" && mv -T "$tmp" "$3" || return 1
}

# config_fragments ARCH FLAVOUR [FRAGMENT...]: what config.sh merges onto
# tinyconfig, in order; the last to name an option wins.
config_fragments() {
	printf '%s\n' "$TOP/configs/common.config" "$TOP/configs/arch/$1.config" \
		"$TOP/tools/testing/selftests/cn_proc/config" "${@:3}" "$TOP/configs/flavours/$2.config"
}

# kmake TREE BUILD_DIR ARCH MAKE-ARGS...: make in an out-of-tree build
# directory for ARCH, in a subshell: its settings do not leak.
kmake() (
	tree=$1 build=$2
	arch_env "$3"
	shift 3
	make -C "$tree" O="$build" ARCH="$KARCH" CROSS_COMPILE="${CROSS_COMPILE:-}" \
		-j"$JOBS" "$@"
)

mkdir -p "$LOGS"
