# SPDX-License-Identifier: GPL-2.0
# 32-bit big-endian MIPS (MIPS32r1), for the static checks only: what mips'
# tinyconfig gives (uniprocessor), atomic64_t from lib/atomic64.c
# (CONFIG_GENERIC_ATOMIC64).
from harness_arch import Arch

ARCH = Arch(
	name='mips',
	linux_arch='mips',
	cross_compile='mips-linux-gnu-',
	kconfig='''
CONFIG_32BIT=y
# CONFIG_64BIT is not set
# CONFIG_SMP is not set
CONFIG_GENERIC_ATOMIC64=y
''')
