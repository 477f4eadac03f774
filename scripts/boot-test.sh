#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot-test.sh: build base and patched kernels, boot each with the selftest
# in QEMU for every run of configs/runs (or those named in CONFIGS), and
# print base vs patched side by side. Exit 0 only if every patched kernel
# passed everything and the KUnit cases failed on the mutant kernel.
. "$(dirname "$0")/tree.sh"

RESULTS=$OUT/results
SELFTEST_ARGS=${SELFTEST_ARGS:-}
S=$TOP/scripts

declare -A FLAVOUR KERNELS CPUS LISTENER CMDLINE
RUNS=()
while read -r run flavour kernels cpus listener cmdline; do
	case "$run" in '' | \#*) continue ;; esac
	FLAVOUR[$run]=$flavour KERNELS[$run]=${kernels//,/ } CPUS[$run]=$cpus
	LISTENER[$run]=$listener CMDLINE[$run]=${cmdline#-}
	RUNS+=("$run")
done <"$TOP/configs/runs"

# shellcheck disable=SC2206
selected=(${CONFIGS:-${RUNS[@]}})
flavours=() base=()
for run in "${selected[@]}"; do
	[ -n "${FLAVOUR[$run]:-}" ] || die "unknown run '$run' in CONFIGS (runs: ${RUNS[*]})"
	[[ " ${flavours[*]} " == *" ${FLAVOUR[$run]} "* ]] || flavours+=("${FLAVOUR[$run]}")
	[[ " ${KERNELS[$run]} " != *" base "* ]] || [[ " ${base[*]} " == *" ${FLAVOUR[$run]} "* ]] ||
		base+=("${FLAVOUR[$run]}")
done

# boot_one RUN VARIANT KERNEL [CMDLINE...]: boot, then parse the log to JSON.
boot_one() {
	local run=$1 variant=$2 kernel=$3 rc=0 log=$LOGS/boot-$1-$2.log
	shift 3
	"$S/boot.sh" "$kernel" "$log" "${CPUS[$run]}" "$@" || rc=$?
	# timeout(1) exits 124, or 137 when qemu had to be killed.
	case $rc in
	0) ;;
	124 | 137) rc=124 ;;
	*) die "qemu failed (exit $rc), see $log" ;;
	esac
	"$S/parse_log.py" "$log" $([ $rc -eq 124 ] && echo --timed-out) \
		>"$RESULTS/$run.$variant.json" || die "could not parse $log"
	python3 - "$RESULTS/$run.$variant.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [k for k, v in list(r['kunit'].items()) + list(r['selftest'].items()) if v == 'FAIL']
print(f"  kunit {sum(v == 'ok' for v in r['kunit'].values())}/{len(r['kunit'])} ok, "
      f"selftest {sum(v == 'ok' for v in r['selftest'].values())}/{len(r['selftest'])} ok"
      + (f", failed: {' '.join(bad)}" if bad else '')
      + (' TIMED OUT' if r['timed_out'] else ''))
for p in r['problems'][:1]:
    print('  kernel report: ' + p['what'])
    print('\n'.join('    | ' + l for l in p['excerpt']))
PY
}

# The KUnit cases must fail when the helper is plain ktime_get_ns().
mutant_check() {
	local res=$RESULTS/mutant.json failed
	CPUS[mutant]=2
	boot_one mutant kunit "$OUT/kernels/default/mutant/bzImage" \
		cnproc_listener=64 "cnproc_args=\"$SELFTEST_ARGS\"" clocksource=jiffies
	mv "$RESULTS/mutant.kunit.json" "$res"
	failed=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]));
print(" ".join(k.split(".")[-1] for k, v in r["kunit"].items()
      if k.startswith("time_test_ordered_ns.") and v == "FAIL"))' "$res")
	[ -n "$failed" ] || die "mutant kernel: no time_test_ordered_ns KUnit case failed"
	note "mutant kernel (plain ktime_get_ns(), clocksource=jiffies): failed as expected: $failed"
}

main() {
	local run variant rc=0
	stage "setup" "$S/setup.sh"
	stage "tree" tree_prepare
	for f in "${flavours[@]}"; do
		stage "config $f" "$S/config.sh" "$f"
	done
	BASE="${base[*]}" EXTRA=mutant "$S/build.sh" "${flavours[@]}"
	stage "initramfs" "$S/initramfs.sh"
	rm -rf "$RESULTS"
	mkdir -p "$RESULTS"
	stage "accelerator" pick_accel "$OUT/kernels/${flavours[0]}/patched/bzImage"
	for run in "${selected[@]}"; do
		for variant in ${KERNELS[$run]}; do
			# shellcheck disable=SC2086
			stage "boot $run $variant (-smp ${CPUS[$run]}${CMDLINE[$run]:+, ${CMDLINE[$run]}})" \
				boot_one "$run" "$variant" \
				"$OUT/kernels/${FLAVOUR[$run]}/$variant/bzImage" \
				"cnproc_listener=${LISTENER[$run]}" \
				"cnproc_args=\"$SELFTEST_ARGS\"" ${CMDLINE[$run]}
		done
	done
	if [[ " ${flavours[*]} " == *" default "* ]]; then
		stage "boot mutant (KUnit must fail)" mutant_check
	fi
	echo
	"$S/table.py" "$RESULTS" "${selected[@]}" | tee "$RESULTS/table.md" || rc=$?
	echo "logs: $LOGS, results: $RESULTS"
	return $rc
}

main
