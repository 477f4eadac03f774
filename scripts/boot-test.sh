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

# runs_of LINE: the selected rows of configs/runs for LINE.
runs_of() {
	local line=$1
	awk -v l="$line" -v sel=" ${CONFIGS:-} " '!/^#/ && NF && $1 == l &&
		(sel ~ /^ *$/ || index(sel, " " $2 " "))' "$TOP/configs/runs"
}

check_configs() {
	local r
	for r in ${CONFIGS:-}; do
		awk -v r="$r" '!/^#/ && $2 == r { found = 1 } END { exit !found }' \
			"$TOP/configs/runs" ||
			die "no run '$r' in configs/runs (runs: $(awk '!/^#/ && NF { print $2 }' "$TOP/configs/runs" | sort -u | xargs))"
	done
}

# test_line LINE: build, boot and judge one line; the table goes to
# $OUT/LINE/results/table.md.
test_line() {
	local line=$1 kernels=() r run flavour kernel cpus expect cmdline manifest
	local results=$OUT/$line/results
	mapfile -t rows < <(runs_of "$line")
	[ ${#rows[@]} -gt 0 ] || { note "$line: no run selected"; return 0; }
	for r in "${rows[@]}"; do
		read -r _ run flavour kernel _ <<<"$r"
		kernels+=("$flavour/$kernel")
	done
	mapfile -t kernels < <(printf '%s\n' "${kernels[@]}" | sort -u)
	build_kernels "$line" "${kernels[@]}"
	# Chosen once a run, with the first kernel built.
	[ -f "$OUT/accel" ] ||
		stage "accelerator" "$S/accel.sh" "$(image_dir "${kernels[0]%/*}" "${kernels[0]#*/}")/bzImage"
	ACCEL=$(cat "$OUT/accel")
	export ACCEL
	note "accelerator: $ACCEL"
	stage "$line: initramfs" "$S/initramfs.sh" "$line"
	rm -rf "$results"
	mkdir -p "$results"
	manifest=$results/manifest
	for r in "${rows[@]}"; do
		read -r _ run flavour kernel cpus cmdline <<<"$r"
		expect=${cmdline##* } cmdline=${cmdline% *}
		cmdline=${cmdline%"${cmdline##*[! ]}"}
		[ "$cmdline" != - ] || cmdline=
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
	check_configs
	rm -f "$OUT/accel"
	# For RESULTS: the commit these boots come from.
	git -C "$TOP" describe --always --dirty >"$OUT/commit" 2>/dev/null || echo unknown >"$OUT/commit"
	echo "logs: $LOGS; results: $OUT/LINE/results/"
	each_line "boot test"
}

main "$@"
