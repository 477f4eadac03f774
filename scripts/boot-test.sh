#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot-test.sh: for each selected line (KERNEL, default the newest; or the
# line of KSRC), build the kernels its runs in configs/runs need (CONFIGS
# selects runs), boot each with the selftest (and the real clients, where
# the run asks for them) in QEMU, and print base vs patched side by side.
# Exit 0 only if every boot ended as its row expects.
# shellcheck source=kernels.sh
. "$(dirname "$0")/kernels.sh"

SELFTEST_ARGS=${SELFTEST_ARGS:-}

# runs_of LINE: the rows of configs/runs for LINE that CONFIGS selects (all
# by default), as "LINE RUN FLAVOUR KERNEL CPUS EXPECT CMDLINE...". Dies on
# a row that tests/init, the flavours or the mutants do not know (a misspelt
# cnproc_run would boot and test nothing), or if CONFIGS selects none.
runs_of() {
	local line=$1 run flavour kernel cpus cmdline expect t params why out=
	while read -r _ run flavour kernel cpus cmdline; do
		expect=${cmdline##* }
		read -r cmdline <<<"${cmdline% *}"
		[ "$cmdline" != - ] || cmdline=
		[ -f "$TOP/configs/flavours/$flavour.config" ] ||
			die "configs/runs: $line $run: no flavour $flavour in configs/flavours/"
		case $kernel in base | patched) ;; *) mutant_patch "$kernel" >/dev/null ;; esac
		[[ $cpus =~ ^[1-9][0-9]*$ ]] || die "configs/runs: $line $run: cpus '$cpus' is not a number"
		[[ $expect =~ ^(pass|fail:[a-z0-9_:?,]+)$ ]] ||
			die "configs/runs: $line $run: expect '$expect' is not pass or fail:CHECK,..."
		params=()
		for t in $cmdline; do
			[[ $t != cnproc_* ]] || params+=("$t")
		done
		why=$(env -i PATH="$PATH" "${params[@]}" sh "$TOP/tests/init" --check) ||
			die "configs/runs: $line $run: $why"
		[[ " ${CONFIGS:-$run} " != *" $run "* ]] || out+="$line $run $flavour $kernel $cpus $expect $cmdline"$'\n'
	done < <(awk -v l="$line" '!/^#/ && NF && $1 == l' "$TOP/configs/runs")
	[ -n "$out" ] || die "CONFIGS=\"${CONFIGS:-}\" selects no run of Linux $line; its runs: $(
		awk -v l="$line" '!/^#/ && $1 == l { print $2 }' "$TOP/configs/runs" | uniq | xargs)"
	printf %s "$out"
}

# check_options: every option boot-test takes, before anything is built.
check_options() {
	local r line rows all=
	select_lines
	[[ $SELFTEST_ARGS != *[\"\\]* ]] || die "SELFTEST_ARGS=$SELFTEST_ARGS: no quotes or backslashes"
	for line in "${LINES[@]}"; do
		rows=$(runs_of "$line")
		all+=" $(awk '{ print $2 }' <<<"$rows" | xargs) "
	done
	for r in ${CONFIGS:-}; do
		[[ $all == *" $r "* ]] || die "CONFIGS: no run '$r' of Linux ${LINES[*]} in configs/runs"
	done
}

# test_line LINE: build, boot and judge one line; the table goes to
# $OUT/LINE/results/table.md.
test_line() {
	local line=$1 kernels=() rows r run flavour kernel cpus expect cmdline manifest
	local results=$OUT/$line/results
	r=$(runs_of "$line")
	mapfile -t rows <<<"$r"
	mapfile -t kernels < <(awk '{ print $3 "/" $4 }' <<<"$r" | sort -u)
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
		read -r _ run flavour kernel cpus expect cmdline <<<"$r"
		# shellcheck disable=SC2086
		stage "$line: boot $run $kernel (-smp $cpus${cmdline:+, $cmdline})" \
			boot_kernel "$line" "$run.$kernel" "$flavour/$kernel" "$cpus" \
			"cnproc_args=\"$SELFTEST_ARGS\"" $cmdline
		echo "$run $kernel $results/$run.$kernel.json $expect" >>"$manifest"
	done
	echo
	"$S/results.py" report "Linux $line ($(cat "$OUT/$line/tree.id"))" "$manifest" |
		tee "$results/table.md"
}

main() {
	if [ "${1:-}" = --line ]; then
		test_line "$2"
		return
	fi
	check_options
	[ "${1:-}" != --check-options ] || return 0
	rm -f "$OUT/accel"
	# For RESULTS: the commit these boots come from.
	git -C "$TOP" describe --always --dirty >"$OUT/commit" 2>/dev/null || echo unknown >"$OUT/commit"
	echo "logs: $LOGS; results: $OUT/LINE/results/"
	each_line "boot test"
}

main "$@"
