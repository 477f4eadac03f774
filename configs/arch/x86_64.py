# SPDX-License-Identifier: GPL-2.0
# x86_64, the boot test's default architecture: QEMU's pc machine, the
# 64- and 32-bit listeners, and the real clients (cf. kunit_tool's
# qemu_configs/x86_64.py).
from harness_arch import Arch

ARCH = Arch(
	name='x86_64',
	linux_arch='x86_64',
	kernel_path='arch/x86/boot/bzImage',
	console='ttyS0',
	qemu='qemu-system-x86_64',
	qemu_params=('-machine', 'pc', '-m', '512'),
	qemu_max_cpus=255,
	# No cpu_models: the boots take KVM where it works.
	# The TSC, the HPET (CONFIG_HPET_TIMER), the ACPI PM timer (ACPI's
	# X86_PM_TIMER), and the jiffies clocks.
	clocksources=('tsc', 'hpet', 'acpi_pm', 'jiffies', 'refined-jiffies'),
	debian_arch='amd64',
	debian_triplet='x86_64-linux-gnu',
	elf_machine=62,
	compat_elf_machine=3,
	debian_suite='bookworm',
	listeners=((64, ('-m64',)), (32, ('-m32',))),
	clients=True,
	kconfig='''
CONFIG_64BIT=y
CONFIG_NR_CPUS=8
CONFIG_X86_MPPARSE=y
CONFIG_HPET_TIMER=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_IA32_EMULATION=y
# ACPI for QEMU's MADT (SeaBIOS's MP table lists one cpu only), without
# the drivers that the boots do not use.
CONFIG_ACPI=y
# CONFIG_ACPI_AC is not set
# CONFIG_ACPI_BATTERY is not set
# CONFIG_ACPI_BUTTON is not set
# CONFIG_ACPI_FAN is not set
# CONFIG_ACPI_PROCESSOR is not set
# CONFIG_ACPI_THERMAL is not set
# CONFIG_ACPI_TABLE_UPGRADE is not set
# CONFIG_ACPI_DEBUG is not set
# CONFIG_ACPI_CONTAINER is not set
# CONFIG_SCHED_MC is not set
# CONFIG_X86_INTEL_PSTATE is not set
# CONFIG_X86_AMD_PSTATE is not set
# CONFIG_CPU_FREQ is not set
# CONFIG_VT is not set
# CONFIG_CPU_IDLE is not set
# CONFIG_INPUT is not set
# CONFIG_THERMAL is not set
''')
