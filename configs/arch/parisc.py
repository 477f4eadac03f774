# SPDX-License-Identifier: GPL-2.0
# 32-bit PA-RISC (Debian's hppa), for the static checks only: what
# parisc's tinyconfig gives, SMP, atomic64_t from lib/atomic64.c
# (CONFIG_GENERIC_ATOMIC64).
from harness_arch import Arch

ARCH = Arch(
	name='parisc',
	linux_arch='parisc',
	cross_compile='hppa-linux-gnu-',
	kconfig='''
# CONFIG_64BIT is not set
CONFIG_GENERIC_ATOMIC64=y
''')
