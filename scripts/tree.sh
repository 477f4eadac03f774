#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tree.sh: the private kernel tree the harness builds in, $OUT/tree.
# A copy of KSRC (never touched itself) or of the unpacked linux-source-6.12
# package. Sourced by the stages that need tree_base / tree_patched.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# A test-only change on top of the series (mutant, bench module), if any.
OVERLAY_MARK=$TREE/.cn-proc-overlay

# What the tree was copied from; a change means every build is stale.
source_id() {
	local src
	src=$(source_tree)
	if [ -n "${KSRC:-}" ]; then
		echo "ksrc $src $(find "$src" -name .git -prune -o -type f -printf '%T@ %p\n' |
			sha256sum | cut -c1-16)"
	else
		echo "pkg $(dpkg-query -W -f '${Version}' "$SRC_PKG" 2>/dev/null)"
	fi
}

# The package unpacked into $OUT/src, again when the package was updated.
unpack_package() {
	local tarball=/usr/src/$SRC_PKG.tar.xz dest=$OUT/src version
	version=$(dpkg-query -W -f '${Version}' "$SRC_PKG" 2>/dev/null) ||
		die "$SRC_PKG is not installed: run 'make setup'"
	[ -d "$dest/$SRC_PKG" ] && [ "$(cat "$dest/version" 2>/dev/null)" = "$version" ] &&
		return 0
	[ -f "$tarball" ] || die "$tarball is missing: run 'make setup'"
	rm -rf "$dest"
	mkdir -p "$dest.tmp"
	tar -C "$dest.tmp" -xf "$tarball" || die "could not unpack $tarball"
	mv "$dest.tmp" "$dest" || die "could not move $dest.tmp to $dest"
	echo "$version" >"$dest/version"
}

# Make $TREE a fresh private copy when it is missing or its source changed.
tree_prepare() {
	local src id
	[ -n "${KSRC:-}" ] || unpack_package
	src=$(source_tree)
	[ -f "$src/Makefile" ] && [ -d "$src/kernel" ] || die "$src is not a kernel tree"
	id=$(source_id)
	if [ -d "$TREE" ] && [ "$(cat "$OUT/tree.id" 2>/dev/null)" = "$id" ]; then
		return 0
	fi
	note "copying $src to $TREE"
	rm -rf "$TREE" "$TREE.tmp" "$OUT/build" "$OUT/kernels" "$OUT/tree.id"
	mkdir -p "$TREE.tmp"
	tar -C "$src" --exclude=.git --exclude=.pc -cf - . | tar -C "$TREE.tmp" -xf - ||
		die "could not copy $src to $TREE.tmp"
	if [ -f "$TREE.tmp/.config" ] || [ -f "$TREE.tmp/include/config/auto.conf" ]; then
		make -C "$TREE.tmp" -s mrproper || die "make mrproper failed in the copy of $src"
	fi
	rm -rf "$TREE.tmp/patches"
	mv "$TREE.tmp" "$TREE" || die "could not move $TREE.tmp to $TREE"
	echo "$id" >"$OUT/tree.id"
}

tquilt() {
	(cd "$TREE" && QUILT_PATCHES=patches QUILT_PC=.pc quilt "$@")
}

# Kbuild decides by mtime; files quilt or patch restored keep old ones.
touch_patched_files() {
	local patch_dir=$1 p
	[ -f "$patch_dir/series" ] || return 0
	while read -r p _; do
		case "$p" in '' | \#*) continue ;; esac
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patch_dir/$p"
	done <"$patch_dir/series" | sort -u | while read -r f; do
		[ -e "$TREE/$f" ] && touch "$TREE/$f"
	done
	return 0
}

overlay_remove() {
	[ -f "$OVERLAY_MARK" ] || return 0
	patch -d "$TREE" -p1 -R -s --batch --no-backup-if-mismatch <"$OVERLAY_MARK" ||
		die "could not remove the test overlay from $TREE; delete $TREE and rerun"
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$OVERLAY_MARK" |
		while read -r f; do [ ! -e "$TREE/$f" ] || touch "$TREE/$f"; done
	rm -f "$OVERLAY_MARK"
}

# overlay_apply PATCH: a test-only change on top of the series, such as a
# deliberately broken helper (tests/mutants/) or the bench module.
overlay_apply() {
	overlay_remove
	patch -d "$TREE" -p1 -s --batch --fuzz=0 --dry-run <"$1" >/dev/null ||
		die "$(basename "$1") does not apply on top of the series"
	cp "$1" "$OVERLAY_MARK"
	patch -d "$TREE" -p1 -s --batch --fuzz=0 --no-backup-if-mismatch <"$1" ||
		die "$(basename "$1") did not apply; delete $TREE and rerun"
}

tree_base() {
	overlay_remove
	if [ -n "$(tquilt applied 2>/dev/null)" ]; then
		tquilt pop -a -q >/dev/null || die "quilt pop -a failed in $TREE; delete it and rerun"
		touch_patched_files "$TREE/patches"
	fi
}

# series_digest DIR: what the series in DIR changes, commit messages aside.
series_digest() {
	local p
	[ -f "$1/series" ] || return 0
	while read -r p _; do
		case "$p" in '' | \#*) continue ;; esac
		echo "$p"
		sed -n '/^--- /,$p' "$1/$p"
	done <"$1/series" | sha256sum | cut -c1-16
}

# tree_patched: the repo's series applied, exactly; a failure leaves the
# tree at base, with one line that names the patch and file.
tree_patched() {
	local out failed file
	overlay_remove
	if [ -d "$TREE/patches" ] && [ -z "$(tquilt unapplied 2>/dev/null)" ] &&
	   [ "$(series_digest "$TREE/patches")" = "$(series_digest "$TOP/patches")" ]; then
		# Applied already; take the new commit messages, if any.
		rm -rf "$TREE/patches"
		cp -r "$TOP/patches" "$TREE/patches"
		return 0
	fi
	tree_base
	rm -rf "$TREE/patches"
	cp -r "$TOP/patches" "$TREE/patches"
	if ! out=$(tquilt push -a --fuzz=0 2>&1); then
		failed=$(echo "$out" | sed -n 's/^Applying patch \(.*\)$/\1/p' | tail -1)
		file=$(echo "$out" | sed -n 's/.*FAILED -- rejects in file \(.*\)$/\1/p' | head -1)
		[ -n "$file" ] || file=$(echo "$out" | grep -m1 -E 'FAILED|can.t find file|No such' || true)
		tquilt pop -a -f -q >/dev/null 2>&1 || true
		touch_patched_files "$TREE/patches"
		echo "$out" >"$LOGS/quilt-push.log"
		die "patch ${failed#patches/} does not apply with --fuzz=0 to $(source_tree): ${file:-see $LOGS/quilt-push.log}"
	fi
}
