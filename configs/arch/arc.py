# SPDX-License-Identifier: GPL-2.0
# ARC (ARCv2, HS), 32-bit, for the static checks only: what arc's tinyconfig gives
# (SMP; HZ its own), atomic64_t from lib/atomic64.c
# (CONFIG_GENERIC_ATOMIC64).
from harness_arch import Arch

ARCH = Arch(
	name='arc',
	linux_arch='arc',
	cross_compile='arc-linux-gnu-',
	kconfig='''
# CONFIG_HZ_1000 is not set
CONFIG_GENERIC_ATOMIC64=y
''')
