#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# accel.sh KERNEL: print the QEMU accelerator to boot with: KVM where
# /dev/kvm exists and KERNEL really boots on it (a nested /dev/kvm can exist
# and hang), software emulation otherwise.
. "$(dirname "$0")/lib.sh"

kernel=$1 log=$LOGS/kvm-probe.log
rm -f "$log"
if [ -w /dev/kvm ]; then
	# In a subshell, whose report of a qemu abort goes nowhere.
	# shellcheck disable=SC2086
	(timeout -k 5 20 "$QEMU" $QEMU_ARGS -accel kvm \
		-cpu host -smp 1 -kernel "$kernel" \
		-append "console=$CONSOLE panic=-1 rdinit=/none" -display none \
		-monitor none -serial "file:$log" -no-reboot || true) >/dev/null 2>&1
	if grep -q 'Kernel panic' "$log" 2>/dev/null; then
		echo "kvm -cpu host"
		exit 0
	fi
fi
echo "tcg,thread=multi"
