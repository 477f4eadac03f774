# SPDX-License-Identifier: GPL-2.0
# tree.sh: a library, sourced, not run: the private kernel tree of a line,
# $OUT/LINE/tree, a copy of the line's pristine source (source.sh) or of
# KSRC, which is never touched itself: at base, at the line's series (quilt),
# or at the series plus a test-only overlay (tests/mutants/).
# shellcheck shell=bash
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# line_env LINE: set the line's paths, PATCHES, its series' patches, and
# FILES, what they touch.
line_env() {
	LINE=$1
	LOUT=$OUT/$LINE
	TREE=$LOUT/tree
	SERIES=$(series_dir "$LINE")
	PATCHES=$(series_patches "$SERIES")
	# shellcheck disable=SC2034 # for the stages
	FILES=$(series_files "$SERIES")
	OVERLAY_MARK=$TREE/.cn-proc-overlay
	mkdir -p "$LOUT" "$LOGS/$LINE"
}

# The pristine source of the line, from KSRC or the package.
pristine() {
	[ -z "${KSRC:-}" ] || { (cd "$KSRC" && pwd); return; }
	cat "$LOUT/pristine"
}

# What the tree was copied from; a change makes every build stale.
source_id() {
	local src
	src=$(pristine)
	if [ -n "${KSRC:-}" ]; then
		echo "ksrc $src $(find "$src" -name .git -prune -o -type f -printf '%T@ %s %p\n' | cache_key)"
	else
		cat "$src/.unpacked"
	fi
}

# tree_prepare: fetch the line's source and make $TREE a fresh copy of
# it when missing or when its source changed.
tree_prepare() {
	local src id
	if [ -z "${KSRC:-}" ]; then
		"$S/source.sh" "$LINE" >"$LOUT/pristine.new"
		mv "$LOUT/pristine.new" "$LOUT/pristine"
	fi
	src=$(pristine)
	id=$(source_id)
	if [ -d "$TREE" ] && [ "$(cat "$LOUT/tree.id" 2>/dev/null)" = "$id" ]; then
		return 0
	fi
	note "copying $src to $TREE"
	rm -rf "$TREE" "$TREE.tmp" "$LOUT/build" "$LOUT/kernels" "$LOUT/tree.id"
	mkdir -p "$TREE.tmp"
	tar -C "$src" --exclude=.git --exclude=.pc --exclude=./patches -cf - . |
		tar -C "$TREE.tmp" -xf -
	if [ -f "$TREE.tmp/.config" ] || [ -f "$TREE.tmp/include/config/auto.conf" ]; then
		make -C "$TREE.tmp" -s mrproper
	fi
	mv "$TREE.tmp" "$TREE"
	echo "$id" >"$LOUT/tree.id"
}

tquilt() {
	(cd "$TREE" && QUILT_PATCHES=patches QUILT_PC=.pc quilt "$@")
}

# touch_files DIFF...: Kbuild decides by mtime, and files that quilt or
# patch restored keep their old one.
touch_files() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$@" | sort -u | while read -r f; do
		[ ! -e "$TREE/$f" ] || touch "$TREE/$f"
	done
}

overlay_remove() {
	[ -f "$OVERLAY_MARK" ] || return 0
	patch -d "$TREE" -p1 -R -s --batch --no-backup-if-mismatch <"$OVERLAY_MARK" ||
		die "could not remove the test overlay from $TREE; delete it and rerun"
	touch_files "$OVERLAY_MARK"
	rm -f "$OVERLAY_MARK"
}

tree_base() {
	overlay_remove
	[ -d "$TREE/.pc" ] || return 0
	tquilt pop -a -q >/dev/null || die "quilt pop -a failed in $TREE; delete it and rerun"
	touch_files "$TREE"/patches/*.patch
	rm -rf "$TREE/patches" "$TREE/.pc"
}

# tree_patched: the line's series applied with quilt, exactly (--fuzz=0).
# A patch that does not apply leaves the tree at base and fails with one
# line that names the patch and the file.
tree_patched() {
	local out failed file
	overlay_remove
	if [ -d "$TREE/.pc" ] && [ -z "$(tquilt unapplied 2>/dev/null)" ] &&
	   [ "$(series_digest "$TREE/patches")" = "$(series_digest "$SERIES")" ]; then
		return 0
	fi
	tree_base
	mkdir -p "$TREE/patches"
	cp "$SERIES/series" "$TREE/patches/"
	xargs cp -t "$TREE/patches/" <<<"$PATCHES"
	if ! out=$(tquilt push -a --fuzz=0 2>&1); then
		failed=$(echo "$out" | sed -n 's/^Applying patch \(.*\)$/\1/p' | tail -1)
		file=$(echo "$out" | sed -n 's/.*FAILED -- rejects in file \(.*\)$/\1/p' | head -1)
		echo "$out" >"$LOGS/$LINE/quilt-push.log"
		tree_base
		die "${SERIES#"$TOP"/}/${failed#patches/} does not apply with --fuzz=0 to $(pristine): ${file:-see $LOGS/$LINE/quilt-push.log}"
	fi
}

# tree_overlay PATCH: the series plus a test-only change.
tree_overlay() {
	tree_patched
	patch -d "$TREE" -p1 -s --batch --fuzz=0 --dry-run <"$1" >/dev/null ||
		die "$(basename "$1") does not apply on top of the ${LINE} series"
	cp "$1" "$OVERLAY_MARK"
	patch -d "$TREE" -p1 -s --batch --fuzz=0 --no-backup-if-mismatch <"$1" >/dev/null
}

# mutant_patch NAME: tests/mutants/NAME.patch, or one a driver generated
# into $OUT/mutants (make bench's module).
mutant_patch() {
	local p
	for p in "$TOP/tests/mutants/$1.patch" "$OUT/mutants/$1.patch"; do
		[ ! -f "$p" ] || { echo "$p"; return; }
	done
	die "no mutant $1: no tests/mutants/$1.patch"
}

# tree_at VARIANT: base, patched, or the name of a mutant.
tree_at() {
	case $1 in
	base) tree_base ;;
	patched) tree_patched ;;
	*) tree_overlay "$(mutant_patch "$1")" ;;
	esac
}
