# SPDX-License-Identifier: GPL-2.0
# 32-bit powerpc (PPC32, Book3S), for the static checks only: what
# powerpc's tinyconfig gives, SMP, atomic64_t from lib/atomic64.c
# (CONFIG_GENERIC_ATOMIC64), where <linux/types.h> does not define it.
from harness_arch import Arch

ARCH = Arch(
	name='powerpc',
	linux_arch='powerpc',
	cross_compile='powerpc-linux-gnu-',
	kconfig='''
# CONFIG_PPC64 is not set
CONFIG_PPC32=y
CONFIG_GENERIC_ATOMIC64=y
''')
