# SPDX-License-Identifier: GPL-2.0
# arm64 on QEMU's virt machine, in software emulation. -cpu max has LSE
# atomics (and pointer authentication with QEMU's own cheap algorithm,
# pauth-impdef: the architected one is slow to emulate); a run may name
# another CPU model, as cortex-a57 (ARMv8.0) for the LL/SC atomics. The
# kernel builds both and chooses at boot (ARM64_HAS_LSE_ATOMICS): each run
# names the one its kernel must choose. The guest has Debian's
# busybox-static:arm64 and the selftest cross-built static; no 32-bit
# listener, no real clients.
from harness_arch import Arch

ARCH = Arch(
	name='arm64',
	linux_arch='arm64',
	cross_compile='aarch64-linux-gnu-',
	kernel_path='arch/arm64/boot/Image',
	console='ttyAMA0',
	qemu='qemu-system-aarch64',
	qemu_params=('-machine', 'virt', '-m', '512'),
	# virt's default interrupt controller, GICv2, takes 8 CPUs.
	qemu_max_cpus=8,
	cpu='max,pauth-impdef=on',
	# ARMv8.0 without LSE atomics (LL/SC); ARMv8.2 and QEMU's max with.
	cpu_models=(('cortex-a57', 'llsc'), ('cortex-a72', 'llsc'), ('neoverse-n1', 'lse'),
		    ('max,pauth-impdef=on', 'lse')),
	# The generic timer (ARM_ARCH_TIMER), and jiffies.
	clocksources=('arch_sys_counter', 'jiffies'),
	debian_arch='arm64',
	debian_triplet='aarch64-linux-gnu',
	elf_machine=183,
	debian_suite='bookworm',
	listeners=((64, ()),),
	atomics=('lse', 'llsc'),
	kconfig='''
# The virt machine's PL011 serial console; the arch timer
# (arch_sys_counter), GIC and PSCI come with ARM64. 48-bit virtual
# addresses, not tinyconfig's 52: no LPA2 page tables to emulate.
CONFIG_NR_CPUS=8
CONFIG_ARM64_VA_BITS_48=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
''')
