#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# file-diffs.sh [--check]: write, for each file the series touches, the
# whole series' change to it as FILE.diff at that file's path in the repo,
# generated from patches/ against linux-source-6.12. With --check, write
# nothing and fail if any of them is stale, missing or left over.
. "$(dirname "$0")/tree.sh"

check=0
[ "${1:-}" = --check ] && check=1

unpack_package
src=$OUT/src/$SRC_PKG
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t files < <(series_files)
for f in "${files[@]}"; do
	mkdir -p "$tmp/a/$(dirname "$f")" "$tmp/b/$(dirname "$f")"
	[ -f "$src/$f" ] && cp "$src/$f" "$tmp/a/$f" && cp "$src/$f" "$tmp/b/$f"
done
while read -r p _; do
	case "$p" in '' | \#*) continue ;; esac
	patch -d "$tmp/b" -p1 -s --fuzz=0 --no-backup-if-mismatch <"$TOP/patches/$p" >/dev/null ||
		die "patches/$p does not apply with --fuzz=0 to $SRC_PKG"
done <"$TOP/patches/series"

mkdir -p "$tmp/out"
for f in "${files[@]}"; do
	old=$tmp/a/$f new=$tmp/b/$f
	[ -f "$old" ] || old=/dev/null
	[ -f "$new" ] || new=/dev/null
	mkdir -p "$tmp/out/$(dirname "$f")"
	diff -up --label "a/$f" --label "b/$f" "$old" "$new" >"$tmp/out/$f.diff" || true
done

# The per-file diffs in the repo: every FILE.diff outside the harness' own dirs.
existing=$(cd "$TOP" && find . -name '*.diff' -not -path './out/*' -not -path './patches/*' \
	-not -path './tests/*' -not -path './.git/*' | sed 's|^\./||' | sort)
if [ $check -eq 0 ]; then
	for f in $existing; do rm -f "$TOP/$f"; done
	(cd "$tmp/out" && find . -name '*.diff' | sed 's|^\./||') | while read -r d; do
		mkdir -p "$TOP/$(dirname "$d")"
		cp "$tmp/out/$d" "$TOP/$d"
	done
	note "wrote ${#files[@]} per-file diffs"
	exit 0
fi

stale=0
for f in "${files[@]}"; do
	if ! cmp -s "$tmp/out/$f.diff" "$TOP/$f.diff"; then
		echo "stale or missing: $f.diff (run: make file-diffs)" >&2
		stale=1
	fi
done
for d in $existing; do
	[ -f "$tmp/out/$d" ] || { echo "left over: $d (run: make file-diffs)" >&2; stale=1; }
done
[ $stale -eq 0 ] || exit 1
note "${#files[@]} per-file diffs match patches/"
