# SPDX-License-Identifier: GPL-2.0
# kernels.sh: the one path from a line's tree to booted, parsed kernels,
# shared by boot-test.sh and bench.sh. Sourced.
#
# A kernel is FLAVOUR/VARIANT of a line: FLAVOUR names
# configs/flavours/FLAVOUR.config, VARIANT is base (the pristine tree),
# patched (the line's series) or a mutant (tests/mutants/NAME.patch on top
# of the series). The variants of a flavour share one build directory:
# base is built first, the others are incremental rebuilds of what the
# series or the mutant changes. Built images are also kept in
# $CACHE/kernels by their id, a hash of everything they are built from, so
# that another clone or a rerun after make clean boots them unbuilt.
# shellcheck shell=bash
# shellcheck source=tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"

ARCH_NAME=${ARCH_NAME:-x86_64}
# shellcheck source=/dev/null
. "$TOP/configs/arch/$ARCH_NAME.conf"

image_dir() {
	echo "$LOUT/kernels/$1/$2"
}

# What an image is built from; an unchanged id means nothing to rebuild.
image_id() {
	local flavour=$1 variant=$2
	{
		cat "$LOUT/tree.id" "$LOUT/build/$flavour/.config"
		"${CROSS_COMPILE:-}gcc" --version | head -1
		"${CROSS_COMPILE:-}ld" --version | head -1
		# How the harness builds: make's command line.
		declare -f kmake
		[ "$variant" = base ] || series_digest "$SERIES"
		case $variant in
		base | patched) ;;
		*) cat "$(mutant_patch "$variant")" ;;
		esac
	} | sha256sum | cut -c1-16
}

# image_ok FLAVOUR VARIANT: the image is there and up to date, or is in
# the cache and is copied from it.
image_ok() {
	local d id
	d=$(image_dir "$1" "$2")
	id=$(image_id "$1" "$2")
	[ "$(cat "$d/id" 2>/dev/null)" != "$id" ] || [ ! -f "$d/bzImage" ] || return 0
	[ -f "$CACHE/kernels/$id/bzImage" ] || return 1
	rm -rf "$d"
	mkdir -p "$d"
	cp "$CACHE/kernels/$id/bzImage" "$d/bzImage"
	echo "$id" >"$d/id"
	note "$LINE $1 $2: from the cache ($id)"
}

configure() {
	"$S/config.sh" "$TREE" "$LOUT/build/$1" "$ARCH_NAME" "$1" "$TOP/configs/clients.config"
}

build_image() {
	local flavour=$1 variant=$2 build=$LOUT/build/$1 dest id
	local log=$LOGS/$LINE/build-$flavour-$variant.log
	dest=$(image_dir "$flavour" "$variant")
	if ! kmake "$TREE" "$build" "$ARCH_NAME" "$(basename "$KERNEL_IMAGE")" >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -20 >&2 || tail -20 "$log" >&2
		die "$LINE $flavour $variant kernel build failed, see $log"
	fi
	note "$LINE $flavour $variant: $(grep -cE '^  (CC|AS|LD|AR)' "$log") objects rebuilt"
	id=$(image_id "$flavour" "$variant")
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$build/$KERNEL_IMAGE" "$dest/bzImage"
	echo "$id" >"$dest/id"
	cache_put "$dest" kernels "$id"
}

# build_kernels LINE FLAVOUR/VARIANT...: build what is missing, base
# first, then the series, then each mutant, each in its own stage.
build_kernels() {
	local want=("${@:2}") flavours=() k f v variant
	line_env "$1"
	stage "$LINE: tree" tree_prepare
	for k in "${want[@]}"; do
		f=${k%/*}
		[[ " ${flavours[*]} " == *" $f "* ]] || flavours+=("$f")
	done
	for f in "${flavours[@]}"; do
		stage "$LINE: config $f" configure "$f"
	done
	for variant in base patched $(printf '%s\n' "${want[@]#*/}" | grep -vxE 'base|patched' | sort -u); do
		for k in "${want[@]}"; do
			f=${k%/*} v=${k#*/}
			[ "$v" = "$variant" ] || continue
			! image_ok "$f" "$v" || continue
			stage "$LINE: tree at $v" tree_at "$v"
			stage "$LINE: build $f $v kernel" build_image "$f" "$v"
		done
	done
	stage "$LINE: tree at patched" tree_patched
}

# boot_kernel LINE NAME FLAVOUR/VARIANT CPUS CMDLINE...: boot the kernel
# with the test initramfs; the serial log goes to $LOGS/LINE/boot-NAME.log,
# the parsed results to $OUT/LINE/results/NAME.json.
boot_kernel() {
	local name=$2 kernel=$3 cpus=$4 rc=0 log json timed_out=()
	line_env "$1"
	shift 4
	log=$LOGS/$LINE/boot-$name.log
	json=$LOUT/results/$name.json
	mkdir -p "$LOUT/results"
	INITRD=$LOUT/initramfs.cpio.gz "$S/boot.sh" "$(image_dir "${kernel%/*}" "${kernel#*/}")/bzImage" "$log" "$cpus" "$@" || rc=$?
	case $rc in
	0) ;;
	124 | 137) timed_out=(--timed-out) ;; # timeout(1): the boot hung
	*) die "qemu failed (exit $rc), see $log" ;;
	esac
	"$S/results.py" parse "$log" "${timed_out[@]}" >"$json"
}
