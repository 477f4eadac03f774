#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# accel.sh KERNEL: choose QEMU's accelerator, into $OUT/accel: KVM where
# /dev/kvm exists and KERNEL really boots on it (a nested /dev/kvm can exist
# and hang), software emulation otherwise.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=/dev/null
. "$TOP/configs/arch/${ARCH_NAME:-x86_64}.conf"

kernel=$1 log=$LOGS/kvm-probe.log
accel="tcg,thread=multi"
rm -f "$log"
if [ -w /dev/kvm ]; then
	# In a subshell, whose report of a qemu abort goes nowhere.
	# shellcheck disable=SC2086
	(timeout -k 5 20 "$QEMU" $QEMU_ARGS -accel kvm -cpu host -smp 1 -kernel "$kernel" \
		-append "console=$CONSOLE panic=-1 rdinit=/none" -display none \
		-monitor none -serial "file:$log" -no-reboot || true) >/dev/null 2>&1
	! grep -q 'Kernel panic' "$log" 2>/dev/null || accel="kvm -cpu host"
fi
echo "$accel" >"$OUT/accel"
