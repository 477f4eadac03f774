#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh FLAVOUR...: the patched kernel of each flavour and, for those
# also named in BASE, first the base kernel in the same build directory, so
# that the patched build recompiles only what the series touches (and what
# includes it). The default flavour also gets a mutant kernel (the helper
# reduced to plain ktime_get_ns()) to show that the KUnit cases can fail.
# Images go to $OUT/kernels/FLAVOUR/{base,patched,mutant}/.
. "$(dirname "$0")/tree.sh"

MUTANT=$TOP/tests/mutants/plain-ktime-get-ns.patch

# What an image depends on; an unchanged id means nothing to rebuild.
image_id() {
	local flavour=$1 variant=$2
	{
		cat "$OUT/tree.id" "$OUT/build/$flavour/.config"
		[ "$variant" = base ] || series_digest "$TOP/patches"
		[ "$variant" != mutant ] || cat "$MUTANT"
	} | sha256sum | cut -c1-16
}

up_to_date() {
	[ -f "$OUT/kernels/$1/$2/bzImage" ] &&
		[ "$(cat "$OUT/kernels/$1/$2/id" 2>/dev/null)" = "$(image_id "$1" "$2")" ]
}

build_image() {
	local flavour=$1 variant=$2 build=$OUT/build/$1 dest=$OUT/kernels/$1/$2
	local log=$LOGS/build-$flavour-$variant.log
	if ! kmake "$build" "$(basename "$KERNEL_IMAGE")" >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -20 >&2 || tail -20 "$log" >&2
		die "$flavour $variant kernel build failed, see $log"
	fi
	note "$flavour $variant: $(grep -cE '^  (CC|AS|LD|AR)' "$log") objects rebuilt"
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$build/$KERNEL_IMAGE" "$dest/bzImage" || die "could not copy $build/$KERNEL_IMAGE"
	image_id "$flavour" "$variant" >"$dest/id"
}

main() {
	local flavour need_base=()

	for flavour in ${BASE:-}; do
		up_to_date "$flavour" base || need_base+=("$flavour")
	done
	if [ ${#need_base[@]} -gt 0 ]; then
		tree_base
		for flavour in "${need_base[@]}"; do
			stage "build $flavour base kernel" build_image "$flavour" base
		done
	fi

	tree_patched
	for flavour in "$@"; do
		stage "build $flavour patched kernel" build_image "$flavour" patched
		# Right after the patched build, so that only time.o changes,
		# and before the other flavours: they rebuild their time.o in
		# this run, not in the next one.
		if [ "$flavour" = default ] && ! up_to_date default mutant; then
			mutant_apply "$MUTANT"
			stage "build default mutant kernel" build_image default mutant
			mutant_remove
			stage "rebuild default patched kernel" build_image default patched
		fi
	done
}

main "$@"
