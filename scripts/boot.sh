#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh KERNEL LOG SMP [CMDLINE...]: boot KERNEL with the test initramfs
# in QEMU (accelerator ACCEL, see boot-test.sh), serial console to LOG.
# Exit 124 when the boot did not end within BOOT_TIMEOUT seconds.
. "$(dirname "$0")/lib.sh"

kernel=$1 log=$2 smp=$3
shift 3
accel=${ACCEL:-tcg,thread=multi}

rm -f "$log"
# shellcheck disable=SC2086
timeout -k 10 "${BOOT_TIMEOUT:-300}" "$QEMU" $QEMU_ARGS -accel $accel -smp "$smp" \
	-kernel "$kernel" -initrd "$OUT/initramfs.cpio.gz" \
	-append "console=$CONSOLE panic=-1 kunit.filter=speed>slow $*" \
	-display none -monitor none -serial "file:$log" -no-reboot
