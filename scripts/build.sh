#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh FLAVOUR...: the patched kernel of each flavour and, for those
# also named in BASE, first the base kernel in the same build directory, so
# that the patched build recompiles only what the series touches (and what
# includes it). The default flavour also gets the test-only kernels named
# in EXTRA, each the patched kernel plus an overlay: "mutant" (the helper
# reduced to plain ktime_get_ns(), to show that the KUnit cases can fail),
# "bench" (the microbenchmark tests/bench/ordered_ns_bench.c built in) and
# "slow" (the helper ~6,000 instructions slower, to show that the bench
# can see it).
# Images go to $OUT/kernels/FLAVOUR/VARIANT/.
. "$(dirname "$0")/tree.sh"

MUTANT=$TOP/tests/mutants/plain-ktime-get-ns.patch
BENCH_PATCH=$OUT/bench-module.patch

overlay_patch() {
	case $1 in
	mutant) echo "$MUTANT" ;;
	bench) echo "$BENCH_PATCH" ;;
	slow) echo "$TOP/tests/bench/slow-helper.patch" ;;
	*) die "unknown test kernel '$1' in EXTRA" ;;
	esac
}

# The bench module as an overlay: kernel/time/ordered_ns_bench.c, built in.
make_bench_patch() {
	local mk=kernel/time/Makefile src=kernel/time/ordered_ns_bench.c
	{
		diff -u --label "a/$mk" --label "b/$mk" "$TREE/$mk" \
			<(cat "$TREE/$mk"; echo "obj-y += ordered_ns_bench.o") || [ $? -eq 1 ]
		diff -u --label /dev/null --label "b/$src" /dev/null \
			"$TOP/tests/bench/ordered_ns_bench.c" || [ $? -eq 1 ]
	} >"$BENCH_PATCH" || die "could not make $BENCH_PATCH"
}

# What an image depends on; an unchanged id means nothing to rebuild.
image_id() {
	local flavour=$1 variant=$2
	{
		cat "$OUT/tree.id" "$OUT/build/$flavour/.config"
		[ "$variant" = base ] || series_digest "$TOP/patches"
		case $variant in base | patched) ;; *) cat "$(overlay_patch "$variant")" ;; esac
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
	local flavour variant rebuilt need_base=()

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
	[[ " ${EXTRA:-} " != *" bench "* ]] || make_bench_patch
	for flavour in "$@"; do
		stage "build $flavour patched kernel" build_image "$flavour" patched
		[ "$flavour" = default ] || continue
		# Right after the patched build, so that only the overlay's
		# files change, and before the other flavours: they rebuild
		# those files in this run, not in the next one.
		rebuilt=
		for variant in ${EXTRA:-}; do
			up_to_date default "$variant" && continue
			overlay_apply "$(overlay_patch "$variant")"
			stage "build default $variant kernel" build_image default "$variant"
			overlay_remove
			rebuilt=1
		done
		[ -z "$rebuilt" ] || stage "rebuild default patched kernel" build_image default patched
	done
}

main "$@"
