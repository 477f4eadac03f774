#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: the static checks of the series, on a fresh copy of the
# pristine linux-source-6.12 tree ($OUT/check/tree):
#  - quilt push -a --fuzz=0 applies it and quilt pop -a restores the tree
#    byte-identical;
#  - checkpatch.pl --strict: no error, warning or check;
#  - sparse (C=2) and W=1 on the touched objects, base and patched, in each
#    configuration of CHECK_CONFIGS: no warning the base does not have;
#  - kernel-doc -none -Wall on the touched C files: nothing new.
. "$(dirname "$0")/tree.sh"

CHECK=$OUT/check
CTREE=$CHECK/tree
# arch:flavour pairs; the patched touched objects must build in each.
CHECK_CONFIGS=${CHECK_CONFIGS:-x86_64:default x86_64:noevents x86_64:rt i386:default}
OBJS=(kernel/time/time.o kernel/time/time_test.o drivers/connector/cn_proc.o)
fail=0

cquilt() {
	(cd "$CTREE" && QUILT_PATCHES=patches QUILT_PC=.pc quilt "$@")
}

fresh_tree() {
	unpack_package
	rm -rf "$CTREE"
	mkdir -p "$CHECK"
	cp -a "$OUT/src/$SRC_PKG" "$CTREE"
	cp -r "$TOP/patches" "$CTREE/patches"
	# Objects from an earlier run were built from patched sources.
	series_files | while read -r f; do [ -e "$CTREE/$f" ] && touch "$CTREE/$f"; done
	return 0
}

push_series() {
	local out
	out=$(cquilt push -a --fuzz=0 2>&1) || {
		echo "$out" | tail -5 >&2
		die "the series does not apply to $SRC_PKG with quilt push -a --fuzz=0"
	}
}

# pop_series: the tree must then be byte-identical to the package.
pop_series() {
	cquilt pop -a -q >/dev/null || die "quilt pop -a failed"
	rm -rf "$CTREE/.pc" "$CTREE/patches"
	# Kbuild's output goes to O= directories; the tree has nothing else.
	if ! diff -r --no-dereference "$OUT/src/$SRC_PKG" "$CTREE" >"$LOGS/pristine.diff"; then
		head -20 "$LOGS/pristine.diff" >&2
		die "quilt pop -a did not restore the tree byte-identical, see $LOGS/pristine.diff"
	fi
	note "quilt pop -a: tree byte-identical to $SRC_PKG"
}

run_checkpatch() {
	local p out ignore=()
	# A tree unpacked from a package has no git history to look up Fixes: in.
	[ -d "$CTREE/.git" ] || ignore=(--ignore UNKNOWN_COMMIT_ID)
	while read -r p _; do
		case "$p" in '' | \#*) continue ;; esac
		out=$(cd "$CTREE" && perl scripts/checkpatch.pl --strict --no-tree "${ignore[@]}" \
			"$TOP/patches/$p" 2>&1) || true
		if echo "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
			note "checkpatch --strict: $p: $(echo "$out" | grep '^total:')"
		else
			echo "$out" | grep -E '^(ERROR|WARNING|CHECK|total):' -A3 >&2
			echo "error: checkpatch --strict: $p is not clean" >&2
			fail=1
		fi
	done <"$TOP/patches/series"
}

# Warnings of one build, with line and column numbers dropped so that base
# and patched compare.
warnings_of() {
	grep -E 'warning:|error:' "$1" | sed -E "s|$CTREE/||; s|:[0-9]+:[0-9]+:|:|; s|:[0-9]+:|:|" |
		sort -u
}

# build_objs ARCH FLAVOUR VARIANT: the touched objects that the config
# enables, with sparse and W=1.
build_objs() {
	local arch=$1 flavour=$2 variant=$3 build=$CHECK/build/$1-$2 objs=() o
	local log=$LOGS/check-$arch-$flavour-$variant.log
	[ -f "$build/.config" ] || return 1
	grep -q '^CONFIG_PROC_EVENTS=y' "$build/.config" && objs+=(drivers/connector/cn_proc.o)
	grep -q '^CONFIG_TIME_KUNIT_TEST=y' "$build/.config" && objs+=(kernel/time/time_test.o)
	objs+=(kernel/time/time.o)
	# Built from whichever sources the last run left; build them anew.
	for o in "${OBJS[@]}"; do rm -f "$build/$o"; done
	if ! (. "$TOP/configs/arch/$arch.conf"
	      make -C "$CTREE" O="$build" ARCH="$KARCH" -j"$JOBS" C=2 W=1 "${objs[@]}") >"$log" 2>&1; then
		grep -E 'error' "$log" | head -10 >&2
		echo "error: $arch $flavour $variant: ${objs[*]} did not build, see $log" >&2
		return 1
	fi
	warnings_of "$log" >"$log.warnings"
	note "$arch $flavour $variant: built ${objs[*]##*/}: $(wc -l <"$log.warnings") warnings"
}

configure() {
	local arch=$1 flavour=$2
	TREE=$CTREE ARCH_NAME=$arch "$TOP/scripts/config.sh" "$flavour" "$CHECK/build/$arch-$flavour" >/dev/null
}

kerneldoc() {
	local f
	for f in $(series_files | grep -E '\.[ch]$'); do
		if [ -f "$CTREE/$f" ]; then
			(cd "$CTREE" && scripts/kernel-doc -none -Wall "$f" 2>&1) |
				sed -E 's|:[0-9]+:|:|'
		fi
	done | sort -u
}

main() {
	local c arch flavour new
	stage "fresh pristine tree" fresh_tree
	stage "checkpatch" run_checkpatch
	kerneldoc >"$LOGS/kernel-doc-base.txt"
	for c in $CHECK_CONFIGS; do
		arch=${c%%:*} flavour=${c#*:}
		stage "config $arch $flavour" configure "$arch" "$flavour" &&
			stage "base $arch $flavour: sparse, W=1" build_objs "$arch" "$flavour" base ||
			fail=1
	done
	stage "quilt push -a --fuzz=0" push_series
	for c in $CHECK_CONFIGS; do
		arch=${c%%:*} flavour=${c#*:}
		stage "patched $arch $flavour: sparse, W=1" build_objs "$arch" "$flavour" patched || {
			fail=1
			continue
		}
		new=$(comm -13 "$LOGS/check-$arch-$flavour-base.log.warnings" \
			"$LOGS/check-$arch-$flavour-patched.log.warnings")
		if [ -n "$new" ]; then
			echo "$new" >&2
			echo "error: $arch $flavour: the series adds the warnings above" >&2
			fail=1
		fi
	done
	kerneldoc >"$LOGS/kernel-doc-patched.txt"
	new=$(comm -13 "$LOGS/kernel-doc-base.txt" "$LOGS/kernel-doc-patched.txt")
	if [ -n "$new" ]; then
		echo "$new" >&2
		echo "error: kernel-doc -Wall: the series adds the warnings above" >&2
		fail=1
	else
		note "kernel-doc -none -Wall: no new warning ($(wc -l <"$LOGS/kernel-doc-patched.txt") already in the base)"
	fi
	stage "quilt pop -a" pop_series
	return $fail
}

main
