# SPDX-License-Identifier: GPL-2.0
"""Arch: what the harness knows of an architecture, the type that each
configs/arch/NAME.py fills in (cf. kunit_tool's qemu_config.py). A module
of its own, which imports nothing of the harness, so that the
architectures and harness_config.py, which loads them, do not import each
other."""

import dataclasses
from typing import Optional, Tuple


@dataclasses.dataclass(frozen=True)
class Arch:
	"""An architecture (configs/arch/NAME.py). One without qemu is built
	by the static checks only."""
	name: str
	linux_arch: str			# kbuild's ARCH
	kconfig: str			# on top of tinyconfig, before the flavour
	cross_compile: str = ''
	kernel_path: str = ''		# the image to boot, in the build directory
	console: str = ''
	qemu: Optional[str] = None	# qemu-system-*
	qemu_params: Tuple[str, ...] = ()
	qemu_max_cpus: int = 0		# the most CPUs (-smp) QEMU's machine takes
	cpu: str = ''			# QEMU's -cpu in software emulation, if not its default
	# The -cpu models a run may name (cpu_model), cpu's among them: only
	# where the boots are in software emulation, as a model turns KVM
	# off. Each with the atomics its kernel chooses there (of atomics).
	cpu_models: Tuple[Tuple[str, str], ...] = ()
	# The clocksources its kernel registers: a run's clocksource= is one.
	clocksources: Tuple[str, ...] = ()
	# The guest's Debian packages (busybox-static, the tools, the
	# clients): their architecture, its multiarch triplet and ELF
	# e_machine, and the suite they come from.
	debian_arch: str = ''
	debian_triplet: str = ''
	elf_machine: int = 0
	compat_elf_machine: int = 0	# ELF e_machine of its 32-bit listener, if it has one
	debian_suite: str = ''
	listeners: Tuple[Tuple[int, Tuple[str, ...]], ...] = ()	# bits, CFLAGS
	clients: bool = False		# the real clients run in its guest
	atomics: Tuple[str, ...] = ()	# what a run must say its kernel chooses

	@property
	def boots(self) -> bool:
		return self.qemu is not None


@dataclasses.dataclass(frozen=True)
class Kernel:
	"""A kernel of a line: configs/arch/ARCH.py and
	configs/flavours/FLAVOUR.config, built at VARIANT (base, patched or a
	mutant)."""
	arch: Arch
	flavour: str
	variant: str

	def __str__(self) -> str:
		return f'{self.arch.name} {self.flavour} {self.variant}'
