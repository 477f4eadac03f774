#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh KERNEL LOG SMP [CMDLINE...]: boot KERNEL with the initramfs INITRD
# in QEMU on SMP cpus (N, or N:MODEL for -cpu MODEL), serial console to LOG,
# accelerator ACCEL (kernels.sh's choose_accel), further QEMU options
# QEMU_EXTRA. Exits 124 (or 137) when it did not end within BOOT_TIMEOUT s.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kernel=$1 log=$2 smp=${3%%:*} cpu=()
[[ $3 != *:* ]] || cpu=(-cpu "${3#*:}") ACCEL=tcg,thread=multi # KVM has the host's cpu only
shift 3

rm -f "$log"
# shellcheck disable=SC2086
timeout -k 10 "${BOOT_TIMEOUT:-300}" "$QEMU" $QEMU_ARGS -accel ${ACCEL:-tcg,thread=multi} \
	${QEMU_EXTRA:-} "${cpu[@]}" -smp "$smp" -kernel "$kernel" -initrd "${INITRD:?}" \
	-append "console=$CONSOLE panic=-1 kunit.filter=speed>slow $*" \
	-display none -monitor none -serial "file:$log" -no-reboot
