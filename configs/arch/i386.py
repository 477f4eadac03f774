# SPDX-License-Identifier: GPL-2.0
# 32-bit x86, for the static checks only: atomic64_t on cmpxchg8b.
from harness_arch import Arch

ARCH = Arch(
	name='i386',
	linux_arch='i386',
	kconfig='''
# CONFIG_64BIT is not set
CONFIG_NR_CPUS=8
''')
