# SPDX-License-Identifier: GPL-2.0
# 32-bit ARMv7-M, for the static checks only: what arm's tinyconfig gives
# (no MMU, uniprocessor) and atomic64_t from lib/atomic64.c
# (CONFIG_GENERIC_ATOMIC64, hashed spinlocks), which the check is for.
from harness_arch import Arch

ARCH = Arch(
	name='arm',
	linux_arch='arm',
	cross_compile='arm-linux-gnueabi-',
	kconfig='''
CONFIG_CPU_V7M=y
CONFIG_GENERIC_ATOMIC64=y
# CONFIG_SMP is not set
# CONFIG_MMU is not set
# CONFIG_BINFMT_ELF is not set
''')
