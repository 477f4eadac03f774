#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot-test.sh: for each selected line (KERNEL, default the newest; or the
# line of KSRC), build the kernels its runs in configs/runs need (CONFIGS
# selects runs, ARCH their architecture), boot each with the selftest (and
# the real clients, where the run asks) in QEMU, print base vs patched.
# Exit 0 only if every boot ended as its row expects.
# shellcheck source=kernels.sh
. "$(dirname "$0")/kernels.sh"

SELFTEST_ARGS=${SELFTEST_ARGS:-}

# runs_of LINE: the rows of configs/runs for LINE that CONFIGS and ARCH
# select (all by default), as "LINE RUN ARCH FLAVOUR KERNEL CPUS EXPECT
# CMDLINE...". Dies on a row that tests/init, configs/arch/, the flavours or
# mutants do not know (a misspelt cnproc_run would boot and test nothing),
# or whose atomics are not its arch's, or if the options select none.
runs_of() {
	local line=$1 run arch flavour kernel cpus cmdline expect params why allowed a out=
	while read -r _ run flavour kernel cpus cmdline; do
		expect=${cmdline##* }
		read -r cmdline <<<"${cmdline% *}"
		[ "$cmdline" != - ] || cmdline=
		arch=x86_64
		[[ $flavour != *:* ]] || arch=${flavour%%:*} flavour=${flavour#*:}
		allowed=$(arch_env "$arch" && [ -n "$QEMU" ] && echo "$ATOMICS") ||
			die "configs/runs: $line $run: no architecture $arch that boots in configs/arch/"
		[ -f "$TOP/configs/flavours/$flavour.config" ] ||
			die "configs/runs: $line $run: no flavour $flavour in configs/flavours/"
		case $kernel in base | patched) ;; *) mutant_patch "$kernel" >/dev/null ;; esac
		[[ $cpus =~ ^[1-9][0-9]*(:[a-z0-9.=,-]+)?$ ]] || die "configs/runs: $line $run: cpus '$cpus' is not N or N:MODEL"
		[[ " $cmdline " =~ \ cnproc_atomics=([^ ]*) ]] && a=${BASH_REMATCH[1]} || a=-
		[[ " ${allowed:--} " == *" $a "* ]] ||
			die "configs/runs: $line $run: cnproc_atomics=${a#-}: $arch rows name ${allowed:-none}"
		[[ $expect =~ ^(pass|fail:[a-z0-9_:?,]+)$ ]] ||
			die "configs/runs: $line $run: expect '$expect' is not pass or fail:CHECK,..."
		mapfile -t params < <(tr ' ' '\n' <<<"$cmdline" | grep '^cnproc_')
		why=$(env -i PATH="$PATH" "${params[@]}" sh "$TOP/tests/init" --check) ||
			die "configs/runs: $line $run: $why"
		[[ " ${CONFIGS:-$run} " != *" $run "* || $arch != "${BOOT_ARCH:-$arch}" ]] ||
			out+="$line $run $arch $flavour $kernel $cpus $expect $cmdline"$'\n'
	done < <(awk -v l="$line" '!/^#/ && NF && $1 == l' "$TOP/configs/runs")
	[ -n "$out" ] || die "${BOOT_ARCH:+ARCH=$BOOT_ARCH }CONFIGS=\"${CONFIGS:-}\" selects no run of Linux $line; its runs: $(
		awk -v l="$line" '!/^#/ && $1 == l { print $2 }' "$TOP/configs/runs" | uniq | xargs)"
	printf %s "$out"
}

# check_options: every option boot-test takes, before anything is built.
check_options() {
	local r line all=
	select_lines
	[[ $SELFTEST_ARGS != *[\"\\]* ]] || die "SELFTEST_ARGS=$SELFTEST_ARGS: no quotes or backslashes"
	for line in "${LINES[@]}"; do
		all+=" $(runs_of "$line" | awk '{ print $2 }' | xargs) "
	done
	for r in ${CONFIGS:-}; do
		[[ $all == *" $r "* ]] || die "CONFIGS: no run '$r' of Linux ${LINES[*]}${BOOT_ARCH:+ on $BOOT_ARCH} in configs/runs"
	done
}

# test_line LINE: build, boot and judge one line; the table goes to
# $OUT/LINE/results/table.md.
test_line() {
	local line=$1 kernels=() rows r run flavour kernel cpus expect cmdline manifest
	local results=$OUT/$line/results
	r=$(runs_of "$line")
	mapfile -t rows <<<"$r"
	mapfile -t kernels < <(awk '{ print $4 "/" $5 }' <<<"$r" | sort -u)
	build_kernels "$line" "${kernels[@]}"
	stage "$line: initramfs" "$S/initramfs.sh" "$line"
	# Chosen once a run, with the first kernel built.
	[ -f "$OUT/accel" ] ||
		stage "accelerator" choose_accel "$(image_dir "${kernels[0]}")/${KERNEL_IMAGE##*/}"
	ACCEL=$(cat "$OUT/accel") && export ACCEL
	note "accelerator: $ACCEL"
	rm -rf "$results"
	mkdir -p "$results"
	manifest=$results/manifest
	for r in "${rows[@]}"; do
		read -r _ run _ flavour kernel cpus expect cmdline <<<"$r"
		# shellcheck disable=SC2086
		stage "$line: boot $run $kernel (-smp $cpus${cmdline:+, $cmdline})" \
			boot_kernel "$line" "$run.$kernel" "$flavour/$kernel" "$cpus" \
			"cnproc_args=\"$SELFTEST_ARGS\"" $cmdline
		echo "$run $kernel $results/$run.$kernel.json $expect" >>"$manifest"
	done
	echo
	"$S/results.py" report "Linux $line ($(cat "$OUT/$line/tree.id")) on $GUEST_ARCH" "$manifest" |
		tee "$results/table.md"
}

main() {
	local a arches rc=0
	case ${1:-} in
	# Each architecture of the line's runs in a process of its own, in $OUT/ARCH (x86_64: $OUT).
	--line)
		arches=$(runs_of "$2" | awk '!seen[$3]++ { print $3 }')
		for a in $arches; do
			BOOT_ARCH=$a OUT=$OUT/${a#x86_64} bash "$0" --arch "$2" || rc=1
		done
		return $rc ;;
	--arch) test_line "$2"; return ;;
	esac
	check_options
	[ "${1:-}" != --check-options ] || return 0
	rm -f "$OUT/accel" "$OUT"/*/accel
	# For RESULTS: the commit these boots come from.
	git -C "$TOP" describe --always --dirty >"$OUT/commit" 2>/dev/null || echo unknown >"$OUT/commit"
	echo "logs: $LOGS; results: $OUT/LINE/results/ (another architecture's: $OUT/ARCH/LINE/results/)"
	each_line "boot test"
}

main "$@"
