#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# file-diffs.sh [--check]: for each file the upstream series (patches/, the
# newest line) touches, write the whole series' change to it as FILE.diff
# at that file's path in the repo, against the line's pristine source.
# With --check, write nothing and fail if any is stale, missing or left over.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

check=0
[ "${1:-}" = --check ] && check=1
line=$(all_lines | head -1)
series=$(series_dir "$line")
src=$("$S/source.sh" "$line")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t files < <(series_files "$series")
for f in "${files[@]}"; do
	mkdir -p "$tmp/a/$(dirname "$f")" "$tmp/b/$(dirname "$f")"
	[ ! -f "$src/$f" ] || { cp "$src/$f" "$tmp/a/$f"; cp "$src/$f" "$tmp/b/$f"; }
done
series_patches "$series" | while read -r p; do
	patch -d "$tmp/b" -p1 -s --fuzz=0 --no-backup-if-mismatch <"$p" >/dev/null ||
		die "${p#"$TOP"/} does not apply with --fuzz=0 to $src"
done

mkdir -p "$tmp/out"
for f in "${files[@]}"; do
	old=$tmp/a/$f new=$tmp/b/$f
	[ -f "$old" ] || old=/dev/null
	mkdir -p "$tmp/out/$(dirname "$f")"
	diff -up --label "a/$f" --label "b/$f" "$old" "$new" >"$tmp/out/$f.diff" || [ $? -eq 1 ]
done

# The per-file diffs in the repo: every *.diff outside the harness' own dirs.
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
	cmp -s "$tmp/out/$f.diff" "$TOP/$f.diff" ||
		{ echo "stale or missing: $f.diff (run: make file-diffs)" >&2; stale=1; }
done
for d in $existing; do
	[ -f "$tmp/out/$d" ] || { echo "left over: $d (run: make file-diffs)" >&2; stale=1; }
done
[ $stale -eq 0 ] || die "the per-file diffs do not match patches/"
note "${#files[@]} per-file diffs match patches/"
