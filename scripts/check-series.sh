#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: the static checks of each selected line's series
# (KERNEL, default the newest; "all" for every line), on the line's
# private tree:
#  - quilt push -a --fuzz=0 applies it, and quilt pop -a restores every
#    file it touches byte-identical to the pristine source;
#  - git am applies the patches, as maintainers take them, onto a git
#    repository of the pristine files the series touches;
#  - checkpatch.pl --strict: no error, warning or check;
#  - sparse (C=2) and W=1 on the objects the series touches, base and
#    patched, in each configuration of configs/checks: no new warning;
#  - kernel-doc -none -Wall on the touched files: no new warning.
# shellcheck source=tree.sh
. "$(dirname "$0")/tree.sh"

# The touched files must equal the pristine ones, and new files be absent.
pristine_files() {
	local f src
	src=$(pristine)
	for f in $(series_files "$SERIES"); do
		if [ -e "$src/$f" ]; then
			cmp -s "$src/$f" "$TREE/$f" || die "quilt pop -a left $f different from $src"
		else
			[ ! -e "$TREE/$f" ] || die "quilt pop -a left $f, which the series creates"
		fi
	done
}

quilt_round_trip() {
	tree_base
	pristine_files
	tree_patched
	tree_base
	pristine_files
	note "quilt push -a --fuzz=0, pop -a: every touched file byte-identical to the pristine tree"
}

git_am() {
	local repo=$LOUT/git-am src f
	src=$(pristine)
	rm -rf "$repo"
	mkdir -p "$repo"
	for f in $(series_files "$SERIES"); do
		[ ! -e "$src/$f" ] || (cd "$src" && cp --parents "$f" "$repo/")
	done
	git -C "$repo" init -q
	git -C "$repo" add -f .
	git -C "$repo" -c user.name=base -c user.email=base@localhost commit -q -m base
	series_patches "$SERIES" | xargs git -C "$repo" am -q ||
		die "git am does not apply ${SERIES#"$TOP"/}"
	note "git am: $(git -C "$repo" log --oneline | wc -l) commits, the last: $(git -C "$repo" log -1 --format=%s)"
}

run_checkpatch() {
	local p out rc=0
	while read -r p; do
		# The tree has no git history to look Fixes: and commit ids up in.
		out=$(cd "$TREE" && perl scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID "$p" 2>&1) || true
		if echo "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
			note "checkpatch --strict: $(basename "$p"): $(echo "$out" | grep '^total:')"
		else
			echo "$out" | grep -E '^(ERROR|WARNING|CHECK|total):' -A3 >&2
			echo "error: checkpatch --strict: ${p#"$TOP"/} is not clean" >&2
			rc=1
		fi
	done < <(series_patches "$SERIES")
	[ $rc -eq 0 ] || die "checkpatch --strict: ${SERIES#"$TOP"/} is not clean"
}

# kerneldoc VARIANT: kernel-doc's warnings on the touched files, line
# numbers dropped, into $LOGS/LINE/kernel-doc-VARIANT.txt.
kerneldoc() {
	local f wall=-Wall
	# 6.1's kernel-doc warns without being asked and knows no -Wall.
	(cd "$TREE" && scripts/kernel-doc -h 2>&1 | grep -q -- -Wall) || wall=
	for f in $(series_files "$SERIES" | grep -E '\.[ch]$'); do
		[ -f "$TREE/$f" ] || continue
		# It exits non-zero when it warns; the warnings are the result.
		(cd "$TREE" && scripts/kernel-doc -none $wall "$f" 2>&1) || true
	done | sed -E 's|\.([ch]):[0-9]+:?|.\1:|' | sort -u >"$LOGS/$LINE/kernel-doc-$1.txt"
}

new_kerneldoc_warnings() {
	local new
	new=$(comm -13 "$LOGS/$LINE/kernel-doc-base.txt" "$LOGS/$LINE/kernel-doc-patched.txt")
	[ -z "$new" ] || { echo "$new" >&2; die "kernel-doc: the series adds the warnings above"; }
	note "kernel-doc -none: no new warning ($(wc -l <"$LOGS/$LINE/kernel-doc-patched.txt") in the base)"
}

# Warnings of one build, line and column numbers dropped, so that base and
# patched compare.
warnings_of() {
	grep -E 'warning:|error:' "$1" | sed -E "s|$TREE/||; s|:[0-9]+:[0-9]+:|:|; s|:[0-9]+:|:|" |
		sort -u || true
}

# What a check build's result depends on; an unchanged id means the
# cached log and warnings (paths relative to the tree) are the result.
check_id() {
	local arch=$1 flavour=$2 variant=$3
	{
		# What config.sh makes the .config from.
		cat "$LOUT/tree.id" "$S/config.sh" "$TOP/configs/common.config" \
			"$TOP/configs/arch/$arch.config" "$TOP/configs/flavours/$flavour.config" \
			"$TOP/tools/testing/selftests/cn_proc/config"
		# shellcheck source=/dev/null
		(. "$TOP/configs/arch/$arch.conf" && "${CROSS_COMPILE:-}gcc" --version | head -1)
		sparse --version 2>/dev/null || true
		declare -f kmake check_build
		[ "$variant" = base ] || series_digest "$SERIES"
	} | sha256sum | cut -c1-16
}

# check_build ARCH FLAVOUR VARIANT: sparse and W=1 on the touched objects
# that the configuration builds. x86_64 uses the boot test's build
# directory of the flavour, the others their own. Logs are kept in
# $CACHE/checks by their id, so that an unchanged check is not rebuilt.
check_build() {
	local arch=$1 flavour=$2 variant=$3 build objs=() o id what
	local log=$LOGS/$LINE/check-$arch-$flavour-$variant.log
	build=$LOUT/build/$flavour
	[ "$arch" = x86_64 ] || build=$LOUT/check/$arch-$flavour
	for o in $(series_files "$SERIES" | sed -n 's/\.c$/.o/p'); do
		# cn_proc.o is built only with CONFIG_PROC_EVENTS and so on.
		! grep -q "$(basename "$o")" "$TREE/$(dirname "$o")/Makefile" || objs+=("$o")
	done
	what="$arch $flavour $variant: ${objs[*]##*/}"
	id=$(check_id "$arch" "$flavour" "$variant")
	if [ -f "$CACHE/checks/$id/log" ]; then
		cp "$CACHE/checks/$id/log" "$log"
		cp "$CACHE/checks/$id/warnings" "$log.warnings"
		check_notes "$what" "$log" "(from the cache, $id)"
		return
	fi
	"$S/config.sh" "$TREE" "$build" "$arch" "$flavour" >/dev/null
	for o in "${objs[@]}"; do
		rm -f "$build/$o"
	done
	kmake "$TREE" "$build" "$arch" C=2 W=1 "${objs[@]}" >"$log" 2>&1 || {
		grep -E 'error' "$log" | head -10 >&2
		die "$arch $flavour $variant: ${objs[*]} did not build, see $log"
	}
	warnings_of "$log" >"$log.warnings"
	check_notes "$what" "$log" ""
	rm -rf "$log.cache"
	mkdir -p "$log.cache"
	cp "$log" "$log.cache/log"
	cp "$log.warnings" "$log.cache/warnings"
	cache_put "$log.cache" checks "$id"
}

# check_notes WHAT LOG SUFFIX: what a check build found.
check_notes() {
	local log=$2
	note "$1: $(wc -l <"$log.warnings") warnings${3:+ $3}"
	# Kbuild says so and goes on without sparse when it is too old.
	! grep -q 'C=2 specified, but' "$log" ||
		note "NOTE: $(sparse --version 2>/dev/null || echo sparse) cannot check this tree: W=1 only"
}

new_warnings() {
	local arch=$1 flavour=$2 new
	new=$(comm -13 "$LOGS/$LINE/check-$arch-$flavour-base.log.warnings" \
		"$LOGS/$LINE/check-$arch-$flavour-patched.log.warnings")
	[ -z "$new" ] && return 0
	echo "$new" >&2
	die "$arch $flavour: the series adds the warnings above"
}

# The configurations of configs/checks for this line: ARCH:FLAVOUR ...
check_configs() {
	awk -v l="$LINE" '!/^#/ && $1 == l { $1 = ""; print }' "$TOP/configs/checks"
}

check_line() {
	local c
	line_env "$1"
	stage "$LINE: tree" tree_prepare
	stage "$LINE: quilt round trip" quilt_round_trip
	stage "$LINE: git am" git_am
	stage "$LINE: checkpatch --strict" run_checkpatch
	stage "$LINE: tree at base" tree_base
	stage "$LINE: kernel-doc base" kerneldoc base
	for c in $(check_configs); do
		stage "$LINE: base ${c/:/ }: sparse, W=1" check_build "${c%:*}" "${c#*:}" base
	done
	stage "$LINE: tree at patched" tree_patched
	stage "$LINE: kernel-doc patched" kerneldoc patched
	stage "$LINE: kernel-doc: new warnings" new_kerneldoc_warnings
	for c in $(check_configs); do
		stage "$LINE: patched ${c/:/ }: sparse, W=1" check_build "${c%:*}" "${c#*:}" patched
		stage "$LINE: ${c/:/ }: new warnings" new_warnings "${c%:*}" "${c#*:}"
	done
	echo "$LINE: static checks clean"
}

main() {
	if [ "${1:-}" = --line ]; then
		check_line "$2"
	else
		each_line "static checks"
	fi
}

main "$@"
