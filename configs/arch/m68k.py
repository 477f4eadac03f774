# SPDX-License-Identifier: GPL-2.0
# m68k (ColdFire), for the static checks only: what m68k's tinyconfig gives
# (uniprocessor, no MMU: no ELF binaries; HZ its own), atomic64_t from
# lib/atomic64.c (CONFIG_GENERIC_ATOMIC64).
from harness_arch import Arch

ARCH = Arch(
	name='m68k',
	linux_arch='m68k',
	cross_compile='m68k-linux-gnu-',
	kconfig='''
# CONFIG_SMP is not set
# CONFIG_HZ_1000 is not set
# CONFIG_BINFMT_ELF is not set
CONFIG_GENERIC_ATOMIC64=y
''')
