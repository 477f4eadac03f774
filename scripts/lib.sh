# SPDX-License-Identifier: GPL-2.0
# Shared by the harness stages: paths, kernel lines, the series, stage
# timing, errors.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m "${OUT:-$TOP/out}")
# Downloads, unpacked sources and built kernels outlive a clone.
export CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cn-proc-timestamps
LOGS=$OUT/logs
JOBS=${JOBS:-$(nproc)}
export S=$TOP/scripts

die() {
	echo "error: $*" >&2
	exit 1
}

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

# The lines a command works on: KERNEL (a list, or "all"; the newest
# line by default), or the line whose base matches KSRC's version.
selected_lines() {
	local want=${KERNEL:-} version l
	if [ -n "${KSRC:-}" ]; then
		[ -f "$KSRC/Makefile" ] || die "KSRC=$KSRC is not a kernel tree"
		version=$(awk '/^VERSION =/ { v = $3 } /^PATCHLEVEL =/ { p = $3 }
			END { print v "." p }' "$KSRC/Makefile")
		line_field "$version" 1 >/dev/null ||
			die "KSRC is Linux $version; the series exists for: $(all_lines | xargs)"
		[ -z "$want" ] || [ "$want" = "$version" ] ||
			die "KSRC is Linux $version, not KERNEL=$want"
		echo "$version"
		return
	fi
	case $want in
	'') all_lines | head -1 ;;
	all) all_lines ;;
	*)
		for l in $want; do
			line_field "$l" 1 >/dev/null ||
				die "no series for KERNEL=$l; lines: $(all_lines | xargs)"
			echo "$l"
		done
		;;
	esac
}

# each_line WHAT: run this script again for each selected line, as
# "SCRIPT --line LINE", each in a process of its own, so that one line's
# failure does not keep the others from running.
each_line() {
	local what=$1 line lines failed=()
	mapfile -t lines < <(selected_lines)
	stage "setup" "$S/setup.sh"
	for line in "${lines[@]}"; do
		bash "$0" --line "$line" || failed+=("$line")
	done
	[ ${#failed[@]} -eq 0 ] || die "$what failed for: ${failed[*]}"
	echo "$what: passed for ${lines[*]}"
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
	done | sha256sum | cut -c1-16
}

# cache_put DIR KIND ID: DIR's files into $CACHE/KIND/ID, whole or not
# at all, so that concurrent runs and interrupted ones leave no half entry.
cache_put() {
	local dest=$CACHE/$2/$3
	[ ! -d "$dest" ] || return 0
	mkdir -p "$CACHE/$2"
	cp -r "$1" "$dest.$$"
	mv -T "$dest.$$" "$dest" 2>/dev/null || rm -rf "$dest.$$"
}

# kmake TREE BUILD_DIR ARCH_NAME MAKE-ARGS...: make in an out-of-tree
# build directory for one of configs/arch/. A subshell, so that one
# architecture's settings do not leak into the next.
kmake() (
	tree=$1 build=$2
	# shellcheck source=/dev/null
	. "$TOP/configs/arch/$3.conf"
	shift 3
	make -C "$tree" O="$build" ARCH="$KARCH" CROSS_COMPILE="${CROSS_COMPILE:-}" \
		-j"$JOBS" "$@"
)

mkdir -p "$LOGS"
