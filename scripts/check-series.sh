#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: the static checks of each selected line's series
# (KERNEL, default the newest; "all" for every line; or KSRC's), on the
# line's private tree:
#  - quilt push -a --fuzz=0 applies it, quilt pop -a restores every file
#    byte-identical; git am applies it onto a repository of those files;
#  - checkpatch.pl --strict is clean; each patch's tags are one trailer
#    block (git interpret-trailers --parse);
#  - sparse (C=2), W=1 (each configuration of configs/checks) and
#    kernel-doc -none -Wall on what it touches: no new warning.
# shellcheck source=tree.sh
. "$(dirname "$0")/tree.sh"

# The touched files must equal the pristine ones, and new files be absent.
pristine_files() {
	local f src
	src=$(pristine)
	for f in $FILES; do
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
	for f in $FILES; do
		[ ! -e "$src/$f" ] || (cd "$src" && cp --parents "$f" "$repo/")
	done
	git -C "$repo" init -q
	git -C "$repo" add -f .
	git -C "$repo" -c user.name=base -c user.email=base@localhost commit -q -m base
	xargs git -C "$repo" am -q <<<"$PATCHES" ||
		die "git am does not apply ${SERIES#"$TOP"/}"
	note "git am: $(git -C "$repo" log --oneline | wc -l) commits, the last: $(git -C "$repo" log -1 --format=%s)"
}

run_checkpatch() {
	local p out rc=0
	while read -r p; do
		# The tree has no git history to look Fixes: and commit ids up in.
		out=$(cd "$TREE" && perl scripts/checkpatch.pl --strict --ignore UNKNOWN_COMMIT_ID "$p" 2>&1) || true
		# A backport ends in its backporter's Signed-off-by, after the
		# note (backporting.rst), which checkpatch takes for a duplicate.
		[ "$LINE" = "$NEWEST" ] || [ "$(grep '^WARNING:' <<<"$out")" != "WARNING: Duplicate signature" ] ||
			out=${out/total: 0 errors, 1 warnings,/total: 0 errors, 0 warnings (1 for the backporter\'s Signed-off-by),}
		if echo "$out" | grep -q '^total: 0 errors, 0 warnings.* 0 checks'; then
			note "checkpatch --strict: $(basename "$p"): $(echo "$out" | grep '^total:')"
		else
			echo "$out" | grep -E '^(ERROR|WARNING|CHECK|total):' -A3 >&2
			echo "error: checkpatch --strict: ${p#"$TOP"/} is not clean" >&2
			rc=1
		fi
	done <<<"$PATCHES"
	[ $rc -eq 0 ] || die "checkpatch --strict: ${SERIES#"$TOP"/} is not clean"
}

run_trailers() {
	local p rc=0
	for p in $PATCHES; do
		trailers_ok "$p" >&2 || rc=1
	done
	[ $rc -eq 0 ] || die "${SERIES#"$TOP"/}: tags outside the trailer block, see above"
	note "tags: one trailer block in every patch (git interpret-trailers --parse)"
}

# kerneldoc VARIANT: kernel-doc's warnings on the touched files, line
# numbers dropped, into $LOGS/LINE/kernel-doc-VARIANT.txt.
kerneldoc() {
	local f wall=-Wall
	# 6.1's kernel-doc warns without being asked and knows no -Wall.
	(cd "$TREE" && scripts/kernel-doc -h 2>&1 | grep -q -- -Wall) || wall=
	for f in $FILES; do
		[[ $f == *.[ch] && -f $TREE/$f ]] || continue
		# It exits non-zero when it warns; the warnings are the result.
		(cd "$TREE" && scripts/kernel-doc -none $wall "$f" 2>&1) || true
	done | sed -E 's|\.([ch]):[0-9]+:?|.\1:|' | sort -u >"$LOGS/$LINE/kernel-doc-$1.txt"
}

# What a check build's result depends on; an unchanged id means the
# cached log and warnings (paths relative to the tree) are the result.
check_id() {
	local arch=$1 flavour=$2 variant=$3
	{
		# What config.sh makes the .config from.
		config_fragments "$arch" "$flavour" | xargs cat "$LOUT/tree.id" "$S/config.sh"
		(arch_env "$arch" && "${CROSS_COMPILE:-}gcc" --version | head -1)
		sparse --version 2>/dev/null || true
		declare -f kmake check_build
		[ "$variant" = base ] || series_digest "$SERIES"
	} | cache_key
}

# check_build ARCH FLAVOUR VARIANT: sparse and W=1 on the touched objects
# that the configuration builds, the build's log and its warnings (line
# numbers dropped, so that base and patched compare) into
# $LOGS/LINE/check-ARCH-FLAVOUR-VARIANT/. x86_64 uses the boot test's build
# directory of the flavour, the others their own. The results are cached
# by their id, so that an unchanged check is not rebuilt.
check_build() {
	local arch=$1 flavour=$2 variant=$3 build objs=() o id what
	local out=$LOGS/$LINE/check-$arch-$flavour-$variant
	build=$LOUT/build/$flavour
	[ "$arch" = x86_64 ] || build=$LOUT/check/$arch-$flavour
	for o in $FILES; do
		[[ $o == *.c ]] || continue
		o=${o%.c}.o
		# cn_proc.o is built only with CONFIG_PROC_EVENTS and so on.
		! grep -q "$(basename "$o")" "$TREE/$(dirname "$o")/Makefile" || objs+=("$o")
	done
	what="$arch $flavour $variant: ${objs[*]##*/}"
	id=$(check_id "$arch" "$flavour" "$variant")
	if cache_get checks "$id" "$out"; then
		check_notes "$what" "$out" "(from the cache, $id)"
		return
	fi
	"$S/config.sh" "$TREE" "$build" "$arch" "$flavour" >/dev/null
	for o in "${objs[@]}"; do
		rm -f "$build/$o"
	done
	rm -rf "$out"
	mkdir -p "$out"
	kmake "$TREE" "$build" "$arch" C=2 W=1 "${objs[@]}" >"$out/log" 2>&1 || {
		grep -E 'error' "$out/log" | head -10 >&2
		die "$arch $flavour $variant: ${objs[*]} did not build, see $out/log"
	}
	{ grep -E 'warning:|error:' "$out/log" || true; } |
		sed -E "s|$TREE/||; s|:[0-9]+:[0-9]+:|:|; s|:[0-9]+:|:|" | sort -u >"$out/warnings"
	check_notes "$what" "$out" ""
	cache_put "$out" checks "$id"
}

# check_notes WHAT DIR SUFFIX: what a check build found.
check_notes() {
	note "$1: $(wc -l <"$2/warnings") warnings${3:+ $3}"
	# Kbuild says so and goes on without sparse when it is too old.
	! grep -q 'C=2 specified, but' "$2/log" ||
		note "NOTE: $(sparse --version 2>/dev/null || echo sparse) cannot check this tree: W=1 only"
}

# no_new WHAT BASE PATCHED: no warning in the file PATCHED not in BASE.
no_new() {
	local new
	new=$(comm -13 "$2" "$3")
	[ -z "$new" ] || { echo "$new" >&2; die "$1: the series adds the warnings above"; }
	note "$1: no new warning ($(wc -l <"$2") in the base)"
}

check_line() {
	local c configs
	line_env "$1"
	# The line's configurations of configs/checks: ARCH:FLAVOUR ...
	configs=$(awk -v l="$LINE" '!/^#/ && $1 == l { $1 = ""; print }' "$TOP/configs/checks")
	stage "$LINE: tags" run_trailers
	stage "$LINE: tree" tree_prepare
	stage "$LINE: quilt round trip" quilt_round_trip
	stage "$LINE: git am" git_am
	stage "$LINE: checkpatch --strict" run_checkpatch
	stage "$LINE: tree at base" tree_base
	stage "$LINE: kernel-doc base" kerneldoc base
	for c in $configs; do
		stage "$LINE: base ${c/:/ }: sparse, W=1" check_build "${c%:*}" "${c#*:}" base
	done
	stage "$LINE: tree at patched" tree_patched
	stage "$LINE: kernel-doc patched" kerneldoc patched
	stage "$LINE: kernel-doc: new warnings" no_new "kernel-doc -none" \
		"$LOGS/$LINE/kernel-doc-base.txt" "$LOGS/$LINE/kernel-doc-patched.txt"
	for c in $configs; do
		stage "$LINE: patched ${c/:/ }: sparse, W=1" check_build "${c%:*}" "${c#*:}" patched
		stage "$LINE: ${c/:/ }: new warnings" no_new "${c/:/ }" \
			"$LOGS/$LINE/check-${c/:/-}-base/warnings" "$LOGS/$LINE/check-${c/:/-}-patched/warnings"
	done
	echo "$LINE: static checks clean"
}

main() {
	[ "${1:-}" != --line ] || { check_line "$2"; return; }
	[ -z "${BOOT_ARCH:-}" ] || die "ARCH=$BOOT_ARCH: the static checks are every configuration of configs/checks; ARCH selects boot-test's runs"
	select_lines
	each_line "static checks"
}

main "$@"
