#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: what ordered stamping costs, base vs patched, measured side by
# side in one run (make bench). In order:
#   1. the harness's own cost: a cold build of the default patched kernel
#      in a scratch directory, its rebuild after touching cn_proc.c, and
#      one boot of the patched kernel from start to selftest result;
#   2. three boots of the microbenchmark kernel (patched plus
#      tests/bench/ordered_ns_bench.c built in): ns per call of
#      ktime_get_ordered_ns() and ktime_get_ns(), with one cpu calling and
#      with every cpu calling at once; with tsc=reliable, or the clocksource
#      watchdog, which distrusts an emulated TSC, moves to hpet mid-run;
#   3. BENCH_PAIRS pairs of boots of the default base and patched kernels,
#      the order swapped every pair, each running the same fork/exec/exit
#      storm with one listener (tests/bench/cn_proc_storm.c). On KVM in
#      real time; in software emulation with -icount, where guest time
#      counts instructions: emulated wall-clock time varies by tens of
#      percent from one round to the next, instruction counts by well
#      under one.
# The last line printed is the median of the pairs' ratios patched/base
# events/s. BENCH_CANDIDATE=slow puts a kernel whose helper does thousands
# of instructions more in the patched kernel's place, to show what a
# visible cost looks like. Not part of make check: it fails only when
# something did not run or a kernel reported a problem, never on the
# figures.
. "$(dirname "$0")/tree.sh"

S=$TOP/scripts
CANDIDATE=${BENCH_CANDIDATE:-patched}
BENCH=$OUT/bench
[ "$CANDIDATE" = patched ] || BENCH=$OUT/bench-$CANDIDATE
PAIRS=${BENCH_PAIRS:-5}
CPUS=${BENCH_CPUS:-2}
STORM_ARGS=${STORM_ARGS:--w 4 -t 5 -r 3}
ICOUNT_ACCEL="tcg,thread=single -icount shift=3,sleep=off"
BENCH_COST=${BENCH_COST:-yes}
MICRO_BOOTS=3

kernel() {
	echo "$OUT/kernels/default/$1/bzImage"
}

# measure NAME LOG CMD...: run CMD, output to LOG; its wall time in ms
# goes to the costs file as NAME.
measure() {
	local name=$1 log=$2 start rc=0
	shift 2
	start=$(date +%s%N)
	"$@" >"$log" 2>&1 || rc=$?
	[ $rc -eq 0 ] || die "$name failed (exit $rc), see $log"
	echo "$name $((($(date +%s%N) - start) / 1000000))" >>"$BENCH/costs"
}

build_cost() {
	local build=$BENCH/build
	# stage runs this with set -e off: every step says when it failed.
	{ rm -rf "$build" && mkdir -p "$build" &&
		cp "$OUT/build/default/.config" "$build/.config"; } ||
		die "could not set up $build"
	tree_patched
	measure cold_build "$LOGS/bench-cold-build.log" kmake "$build" "$(basename "$KERNEL_IMAGE")"
	touch "$TREE/drivers/connector/cn_proc.c" || die "could not touch cn_proc.c"
	measure cn_proc_rebuild "$LOGS/bench-cn_proc-rebuild.log" \
		kmake "$build" "$(basename "$KERNEL_IMAGE")"
	rm -rf "$build"
}

boot_cost() {
	local log=$LOGS/bench-boot-selftest.log
	measure boot_to_result "$LOGS/bench-boot-selftest.qemu" \
		"$S/boot.sh" "$(kernel patched)" "$log" "$CPUS" cnproc_listener=64
	"$S/parse_log.py" "$log" | python3 -c 'import json, sys
r = json.load(sys.stdin)
sys.exit(r["selftest_exit"] != 0 or bool(r["problems"]))' ||
		die "the patched kernel's selftest did not pass, see $log"
}

storm_boot() {
	local pair=$1 variant=$2
	ACCEL=$STORM_ACCEL boot_bench_log "storm-$pair-$variant" "$(kernel "$variant")" \
		cnproc_run=storm "cnproc_args=\"$STORM_ARGS\""
}

# boot_bench_log NAME KERNEL CMDLINE...: a boot whose serial log,
# $BENCH/NAME.log, bench_report.py reads.
boot_bench_log() {
	local name=$1 kernel=$2 rc=0
	shift 2
	"$S/boot.sh" "$kernel" "$BENCH/$name.log" "$CPUS" "$@" || rc=$?
	[ $rc -eq 0 ] || die "boot $name failed (exit $rc), see $BENCH/$name.log"
}

main() {
	local pair first second extra i
	[ "$PAIRS" -ge 1 ] 2>/dev/null || die "BENCH_PAIRS must be a number, at least 1"
	case $CANDIDATE in
	patched) extra=bench ;;
	slow) extra="bench slow" ;;
	*) die "BENCH_CANDIDATE is patched or slow, not '$CANDIDATE'" ;;
	esac
	stage "setup" "$S/setup.sh"
	stage "tree" tree_prepare
	stage "config default" "$S/config.sh" default
	BASE=default EXTRA=$extra "$S/build.sh" default
	stage "initramfs" "$S/initramfs.sh"
	rm -rf "$BENCH"
	mkdir -p "$BENCH"
	stage "accelerator" pick_accel "$(kernel patched)"
	case $ACCEL in
	kvm*) STORM_ACCEL=$ACCEL ;;
	*) STORM_ACCEL=$ICOUNT_ACCEL ;;
	esac
	if [ "$BENCH_COST" != no ]; then
		stage "cold build and cn_proc.c rebuild (scratch directory)" build_cost
		stage "boot to result (patched, -smp $CPUS, KUnit and selftest)" boot_cost
	fi
	for i in $(seq "$MICRO_BOOTS"); do
		stage "microbenchmark boot $i/$MICRO_BOOTS (-smp $CPUS)" \
			boot_bench_log "micro-$i" "$(kernel bench)" cnproc_run=none \
			tsc=reliable
	done
	for pair in $(seq "$PAIRS"); do
		first=base second=$CANDIDATE
		[ $((pair % 2)) -eq 1 ] || first=$CANDIDATE second=base
		stage "storm $pair/$PAIRS: $first" storm_boot "$pair" "$first"
		stage "storm $pair/$PAIRS: $second" storm_boot "$pair" "$second"
	done
	echo
	"$S/bench_report.py" "$BENCH" "$PAIRS" "$CPUS" "$STORM_ARGS" "$ACCEL" "$STORM_ACCEL" "$CANDIDATE" "$JOBS" |
		tee "$BENCH/report.md"
	[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
}

main
