# SPDX-License-Identifier: GPL-2.0
# kernels.sh: a library, sourced by boot-test.sh and bench.sh, not run: the
# one path from a line's tree to booted, parsed kernels.
#
# A kernel is FLAVOUR/VARIANT of a line: configs/flavours/FLAVOUR.config,
# as base (the pristine tree), patched (the series) or a mutant
# (tests/mutants/NAME.patch on the series). A flavour's variants share a
# build directory: base first, the others incremental rebuilds. Images are
# cached by their id, the key of all they are built from, so that another
# clone or a rerun after make clean boots them unbuilt.
# shellcheck shell=bash
# shellcheck source=tree.sh
. "$(dirname "${BASH_SOURCE[0]}")/tree.sh"

# image_dir FLAVOUR/VARIANT: where the image and its id are.
image_dir() {
	echo "$LOUT/kernels/$1"
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
		[[ $variant =~ ^(base|patched)$ ]] || cat "$(mutant_patch "$variant")"
	} | cache_key
}

# image_ok FLAVOUR VARIANT: the image is there and up to date, or is
# copied whole from the cache. Called in a condition: see cache_get.
image_ok() {
	local d id
	d=$(image_dir "$1/$2")
	id=$(image_id "$1" "$2") || die "$LINE $1 $2: no image id"
	[ "$(cat "$d/id" 2>/dev/null)" != "$id" ] || [ ! -f "$d/${KERNEL_IMAGE##*/}" ] || return 0
	cache_get kernels "$id" "$d" || return 1
	note "$LINE $1 $2: from the cache ($id)"
}

build_image() {
	local flavour=$1 variant=$2 build=$LOUT/build/$1 dest id
	local log=$LOGS/$LINE/build-$flavour-$variant.log
	dest=$(image_dir "$flavour/$variant")
	if ! kmake "$TREE" "$build" "$GUEST_ARCH" "${KERNEL_IMAGE##*/}" >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -20 >&2 || tail -20 "$log" >&2
		die "$LINE $flavour $variant kernel build failed, see $log"
	fi
	note "$LINE $flavour $variant: $(grep -cE '^  (CC|AS|LD|AR)' "$log") objects rebuilt"
	id=$(image_id "$flavour" "$variant")
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$build/$KERNEL_IMAGE" "$dest/"
	echo "$id" >"$dest/id"
	cache_put "$dest" kernels "$id"
}

# build_kernels LINE FLAVOUR/VARIANT...: build what is missing, base
# first, then the series, then each mutant, each in its own stage.
build_kernels() {
	local want=("${@:2}") k f v variant frags=()
	line_env "$1"
	stage "$LINE: tree" tree_prepare
	[ "$CLIENTS" = 0 ] || frags=("$TOP/configs/clients.config") # the guest runs them
	for f in $(printf '%s\n' "${want[@]%/*}" | sort -u); do
		stage "$LINE: config $f" "$S/config.sh" "$TREE" "$LOUT/build/$f" "$GUEST_ARCH" "$f" "${frags[@]}"
	done
	for variant in base patched $(printf '%s\n' "${want[@]#*/}" | grep -vxE 'base|patched' | sort -u); do
		for k in "${want[@]}"; do
			f=${k%/*} v=${k#*/}
			[ "$v" = "$variant" ] || continue
			! image_ok "$f" "$v" || continue
			stage "$LINE: tree at $v" tree_at "$v"
			stage "$LINE: build $f $v kernel ($GUEST_ARCH)" build_image "$f" "$v"
		done
	done
	stage "$LINE: tree at patched" tree_patched
}

# choose_accel KERNEL: QEMU's accelerator, into $OUT/accel: KVM where
# /dev/kvm exists and KERNEL boots on it (a nested /dev/kvm can exist and
# hang) to the panic of a missing init, software emulation otherwise.
choose_accel() {
	local log=$LOGS/kvm-probe.log accel="tcg,thread=multi"
	rm -f "$log"
	if [ -w /dev/kvm ]; then
		ACCEL="kvm -cpu host" BOOT_TIMEOUT=20 INITRD=$LOUT/initramfs.cpio.gz \
			"$S/boot.sh" "$1" "$log" 1 rdinit=/none >/dev/null 2>&1 || true
		! grep -q 'Kernel panic' "$log" 2>/dev/null || accel="kvm -cpu host"
	fi
	echo "$accel" >"$OUT/accel"
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
	INITRD=$LOUT/initramfs.cpio.gz "$S/boot.sh" "$(image_dir "$kernel")/${KERNEL_IMAGE##*/}" "$log" "$cpus" "$@" || rc=$?
	case $rc in
	0) ;;
	124 | 137) timed_out=(--timed-out) ;; # timeout(1): the boot hung
	*) die "qemu failed (exit $rc), see $log" ;;
	esac
	"$S/results.py" parse "$log" "${timed_out[@]}" >"$json"
}
