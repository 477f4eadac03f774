# SPDX-License-Identifier: GPL-2.0
# 32-bit SuperH (SH-2, built with Debian's sh4 compiler), for the static checks only: what sh's
# tinyconfig gives (uniprocessor, no MMU: no ELF binaries), atomic64_t
# from lib/atomic64.c (CONFIG_GENERIC_ATOMIC64).
from harness_arch import Arch

ARCH = Arch(
	name='sh',
	linux_arch='sh',
	cross_compile='sh4-linux-gnu-',
	kconfig='''
# CONFIG_SMP is not set
# CONFIG_BINFMT_ELF is not set
CONFIG_GENERIC_ATOMIC64=y
''')
