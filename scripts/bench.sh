#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: what ordered stamping costs, base vs patched, measured side by
# side in one run (make bench), on the default kernels of one line (KERNEL
# or KSRC's, the newest by default). In order:
#   1. three boots of the microbenchmark kernel (the series plus
#      tests/bench/ordered_ns_bench.c): ns per call of ktime_get_ordered_ns()
#      and ktime_get_ns(), one cpu and every cpu calling; tsc=reliable, or
#      the watchdog, distrusting an emulated TSC, moves to hpet mid-run;
#   2. BENCH_PAIRS pairs of boots of base and patched (or BENCH_CANDIDATE),
#      the order swapped every pair, each running the same fork/exec/exit
#      storm with one listener (tests/bench/cn_proc_storm.c), in each mode
#      of storm_modes: on KVM in real time; in software emulation both with
#      -icount (one host thread runs every vCPU, guest time counts
#      instructions: rounds agree well under 1%, but two vCPUs never run
#      at once, so never contend for a cacheline) and multi-threaded TCG (a
#      host thread per vCPU, guest atomics are host atomics, so a line both
#      vCPUs write moves between host cores; rounds vary by tens of %).
# The last lines are, per mode, the median of the pairs' ratios
# patched/base events/s.
# It fails when something did not run or a kernel reported a problem, never
# on the figures.
# shellcheck source=kernels.sh
. "$(dirname "$0")/kernels.sh"

CANDIDATE=${BENCH_CANDIDATE:-patched}
PAIRS=${BENCH_PAIRS:-8}
CPUS=${BENCH_CPUS:-2}
STORM_ARGS=${STORM_ARGS:--w 4 -t 5 -r 5}
MICRO_BOOTS=3
BENCH=$OUT/bench
[ "$CANDIDATE" = patched ] || BENCH=$OUT/bench-$CANDIDATE

# The microbenchmark as a mutant: kernel/time/ordered_ns_bench.c, built in.
bench_mutant() {
	local mk=kernel/time/Makefile src=kernel/time/ordered_ns_bench.c
	mkdir -p "$OUT/mutants"
	{
		diff -u --label "a/$mk" --label "b/$mk" "$TREE/$mk" \
			<(cat "$TREE/$mk"; echo "obj-y += ordered_ns_bench.o") || [ $? -eq 1 ]
		diff -u --label /dev/null --label "b/$src" /dev/null \
			"$TOP/tests/bench/ordered_ns_bench.c" || [ $? -eq 1 ]
	} >"$OUT/mutants/ordered-ns-bench.patch"
}

# bench_boot NAME KERNEL CMDLINE...: a boot whose serial log lands in
# $BENCH/NAME.log for bench_report.py, which fails on a kernel report.
bench_boot() {
	local name=$1 kernel=$2
	shift 2
	boot_kernel "$LINE" "bench-$name" "default/$kernel" "$CPUS" "$@"
	cp "$LOGS/$LINE/boot-bench-$name.log" "$BENCH/$name.log"
}

# storm_modes: NAME|ACCEL|QEMU_EXTRA for each mode the storm runs in.
storm_modes() {
	case $ACCEL in
	kvm*) echo "kvm|$ACCEL|" ;;
	*) printf '%s\n' "icount|tcg,thread=single|-icount shift=3,sleep=off" "mttcg|tcg,thread=multi|" ;;
	esac
}

main() {
	local pair first second i v mode modes=() name accel extra
	[[ $PAIRS =~ ^[1-9][0-9]*$ ]] || die "BENCH_PAIRS=$PAIRS: a number, at least 1"
	[[ $CPUS =~ ^[1-9][0-9]*$ ]] || die "BENCH_CPUS=$CPUS: a number, at least 1"
	[[ $CANDIDATE =~ ^(patched|slow-helper)$ ]] || die "BENCH_CANDIDATE=$CANDIDATE: patched or slow-helper"
	[[ $STORM_ARGS != *[\"\\]* ]] || die "STORM_ARGS=$STORM_ARGS: no quotes or backslashes"
	[ -z "${CONFIGS:-}" ] || die "CONFIGS=$CONFIGS: make bench boots runs of its own, it takes no CONFIGS"
	[ "$GUEST_ARCH" = x86_64 ] || die "ARCH=$GUEST_ARCH: make bench boots x86_64 (its TSC), it takes no ARCH"
	select_lines
	[ ${#LINES[@]} -eq 1 ] || die "KERNEL=${KERNEL:-}: make bench measures one line, not ${LINES[*]}"
	line_env "${LINES[0]}"
	stage "$LINE: tree" tree_prepare
	bench_mutant
	build_kernels "$LINE" default/base default/patched default/ordered-ns-bench \
		"default/$CANDIDATE"
	stage "$LINE: initramfs" "$S/initramfs.sh" "$LINE"
	stage "accelerator" choose_accel "$(image_dir default/patched)/${KERNEL_IMAGE##*/}"
	ACCEL=$(cat "$OUT/accel") && export ACCEL
	mapfile -t modes <<<"$(storm_modes)"
	rm -rf "$BENCH"
	mkdir -p "$BENCH"
	for i in $(seq "$MICRO_BOOTS"); do
		stage "microbenchmark boot $i/$MICRO_BOOTS (-smp $CPUS)" \
			bench_boot "micro-$i" ordered-ns-bench cnproc_run=kunit tsc=reliable
	done
	for mode in "${modes[@]}"; do
		IFS='|' read -r name accel extra <<<"$mode"
		for pair in $(seq "$PAIRS"); do
			first=base second=$CANDIDATE
			[ $((pair % 2)) -eq 1 ] || first=$CANDIDATE second=base
			for v in "$first" "$second"; do
				ACCEL=$accel QEMU_EXTRA=$extra stage "storm $name $pair/$PAIRS: $v" \
					bench_boot "storm-$name-$pair-$v" "$v" cnproc_run=storm \
					"cnproc_args=\"$STORM_ARGS\""
			done
		done
	done
	echo
	"$S/bench_report.py" "$BENCH" "$PAIRS" "$CPUS" "$STORM_ARGS" "$ACCEL" "$CANDIDATE" \
		"${modes[@]}" | tee "$BENCH/report.md"
}

main
