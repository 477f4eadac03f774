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
series=$(series_dir "$NEWEST")
src=$("$S/source.sh" "$NEWEST")
files=$(series_files "$series")
patches=$(series_patches "$series")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in $files; do
	mkdir -p "$tmp/a/$(dirname "$f")" "$tmp/b/$(dirname "$f")" "$tmp/out/$(dirname "$f")"
	[ ! -f "$src/$f" ] || { cp "$src/$f" "$tmp/a/$f"; cp "$src/$f" "$tmp/b/$f"; }
done
for p in $patches; do
	patch -d "$tmp/b" -p1 -s --fuzz=0 --no-backup-if-mismatch <"$p" >/dev/null ||
		die "${p#"$TOP"/} does not apply with --fuzz=0 to $src"
done
for f in $files; do
	old=$tmp/a/$f
	[ -f "$old" ] || old=/dev/null
	diff -up --label "a/$f" --label "b/$f" "$old" "$tmp/b/$f" >"$tmp/out/$f.diff" || [ $? -eq 1 ]
done

# The per-file diffs in the repo, every *.diff outside the harness' own
# dirs, into $tmp/repo.
mkdir -p "$tmp/repo"
(cd "$TOP" && find . -name '*.diff' -not -path './out/*' -not -path './patches/*' \
	-not -path './tests/*' -not -path './.git/*' -exec cp --parents {} "$tmp/repo/" \;)
if [ $check -eq 0 ]; then
	(cd "$tmp/repo" && find . -type f) | (cd "$TOP" && xargs -r rm -f)
	cp -r "$tmp/out/." "$TOP/"
	note "wrote $(wc -w <<<"$files") per-file diffs"
	exit 0
fi
diff -rq "$tmp/repo" "$tmp/out" | sed "s|$tmp/repo/|repo: |; s|$tmp/out/|from patches/: |" >&2 ||
	die "the per-file diffs do not match patches/ (run: make file-diffs)"
note "$(wc -w <<<"$files") per-file diffs match patches/"
