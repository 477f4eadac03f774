# SPDX-License-Identifier: GPL-2.0
"""The guest: the test initramfs of a line and architecture, and the QEMU
command line that boots a kernel with it.

The initramfs holds Debian's busybox-static of the guest's architecture,
tests/init and its console_drain, the selftest for each listener of the
architecture (built from its place in the line's patched tree against
that tree's uapi headers), make bench's event storm (all static), and the
real clients where the architecture runs them (scripts/clients.sh).
"""

import os
import shutil
import subprocess
from typing import List, Optional, Sequence

from harness_config import Arch, Options
from harness_kernel import Tree, kmake_argv
from harness_util import SCRIPTS, TOP, HarnessError, note, run

SELFTEST = 'tools/testing/selftests/cn_proc'


def debs(opts: Options, suite: str, arch: Arch, *pkgs: str) -> List[str]:
	"""Debian packages of ARCH, downloaded into the cache
	(scripts/debs.sh); their paths."""
	argv = [os.path.join(SCRIPTS, 'debs.sh'), suite, *pkgs]
	print(f'  $ DEBS_ARCH={arch.debian_arch} {" ".join(argv)}', flush=True)
	res = subprocess.run(argv, stdout=subprocess.PIPE, text=True,
			     env=dict(os.environ, DEBS_ARCH=arch.debian_arch, OUT=opts.out,
				      DEBS_MIRROR=opts.debs_mirror))
	if res.returncode:
		raise HarnessError(f'could not fetch {" ".join(pkgs)} ({arch.debian_arch}) from Debian {suite}')
	return res.stdout.split()


def build_initramfs(tree: Tree, arch: Arch, opts: Options) -> str:
	"""OUT/LINE/initramfs-ARCH.cpio.gz, from the tree at patched."""
	logs = tree.logs
	hdrs = os.path.join(tree.lout, f'headers-{arch.name}')
	run(kmake_argv(tree.path, hdrs, arch, opts.jobs, 'headers'), log=os.path.join(logs, f'headers-{arch.name}.log'))
	inc = os.path.join(hdrs, 'usr', 'include')
	bins = os.path.join(tree.lout, f'guest-{arch.name}')
	root = os.path.join(tree.lout, f'initramfs-{arch.name}')
	st = os.path.join(tree.path, SELFTEST)
	shutil.rmtree(st, ignore_errors=True)
	shutil.rmtree(root, ignore_errors=True)
	# The selftest sits in the tree as it would upstream.
	shutil.copytree(os.path.join(TOP, SELFTEST), st)
	os.makedirs(os.path.join(root, 'bin'))
	for bits, flags in arch.listeners:
		out = os.path.join(bins, str(bits))
		os.makedirs(out, exist_ok=True)
		run(['make', '-C', st, f'OUTPUT={out}', f'KHDR_INCLUDES=-isystem {inc}',
		     f'CROSS_COMPILE={arch.cross_compile}', 'LDFLAGS=' + ' '.join([*flags, '-static'])],
		    log=os.path.join(logs, f'selftest-{arch.name}-{bits}.log'), what=f'the {bits}-bit selftest build')
		shutil.copy(os.path.join(out, 'cn_proc_test'),
			    os.path.join(root, 'bin', 'cn_proc_test' + ('' if bits == 64 else str(bits))))
	gcc = arch.cross_compile + 'gcc'
	for prog, src, extra in (('cn_proc_storm', 'tests/bench/cn_proc_storm.c', ['-isystem', inc]),
				 ('console_drain', 'tests/console_drain.c', [])):
		run([gcc, '-Wall', '-O2', '-static', *extra, '-o', os.path.join(root, 'bin', prog),
		     os.path.join(TOP, src)], log=os.path.join(logs, f'{prog}-{arch.name}.log'))
	if arch.clients:
		clients = os.path.join(opts.out, 'clients')
		run([os.path.join(SCRIPTS, 'clients.sh'), clients], log=os.path.join(opts.out, 'logs', 'clients.log'),
		    env={'OUT': opts.out, 'CLIENTS_SUITE': opts.clients_suite, 'DEBS_MIRROR': opts.debs_mirror},
		    what='staging the real clients')
		shutil.copytree(clients, root, symlinks=True, dirs_exist_ok=True)
	# Unpacked, not installed (bookworm, as the clients).
	deb = debs(opts, 'bookworm', arch, 'busybox-static')[0]
	run(['bash', '-o', 'pipefail', '-c', f'dpkg-deb --fsys-tarfile {deb} | tar -x -C {root} ./bin/busybox'])
	os.symlink('busybox', os.path.join(root, 'bin', 'sh'))
	shutil.copy(os.path.join(TOP, 'tests', 'init'), os.path.join(root, 'init'))
	os.chmod(os.path.join(root, 'init'), 0o755)
	cpio = os.path.join(tree.lout, f'initramfs-{arch.name}.cpio.gz')
	run(['bash', '-o', 'pipefail', '-c',
	     f'cd {root} && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -6n >{cpio}'])
	note(f'initramfs: {os.path.getsize(cpio) // 1024} KiB')
	return cpio


# Accelerators: KVM where the guest is the host's architecture, /dev/kvm
# is usable and a probe boot works (a nested /dev/kvm can exist and hang);
# software emulation otherwise, a host thread per vCPU.
KVM = 'kvm'
TCG = 'tcg,thread=multi'


KUNIT_GLOB = 'time_test_cases.ktime_stamp_ns_*'


def qemu_argv(arch: Arch, image: str, initrd: str, log: str, cpus: int, cmdline: Sequence[str],
	      accel: str = TCG, cpu_model: Optional[str] = None, extra: Sequence[str] = ()) -> List[str]:
	"""The QEMU command line of one boot: the serial console to LOG, no
	reboot (init powers off with reboot -f)."""
	if cpu_model:
		cpu = ['-cpu', cpu_model]
		accel = TCG if accel == KVM else accel	# KVM offers the host's CPU only
	elif accel == KVM:
		cpu = ['-cpu', 'host']
	else:
		cpu = ['-cpu', arch.cpu] if arch.cpu else []
	# The series' KUnit cases only: not time_test's date-range case, slow
	# under emulation. By name, as the concurrent case is a slow one too
	# (KUNIT_CASE_SLOW), which kunit.filter=speed>slow would leave out.
	append = [f'console={arch.console}', 'panic=-1', f'kunit.filter_glob={KUNIT_GLOB}', *cmdline]
	return [arch.qemu, *arch.qemu_params, '-accel', accel, *extra, *cpu, '-smp', str(cpus),
		'-kernel', image, '-initrd', initrd, '-append', ' '.join(append),
		'-display', 'none', '-monitor', 'none', '-serial', f'file:{log}', '-no-reboot']


def boot(argv: Sequence[str], log: str, timeout: int) -> bool:
	"""Run one boot, printed first; True if it ended by itself, False if it
	hung past TIMEOUT seconds (then QEMU is killed)."""
	if os.path.exists(log):
		os.remove(log)
	os.makedirs(os.path.dirname(log), exist_ok=True)
	try:
		run(argv, timeout=timeout, what='qemu')
	except subprocess.TimeoutExpired:
		return False
	return True


def choose_accel(arch: Arch, image: str, initrd: str, logs: str) -> str:
	if arch.name != os.uname().machine or not os.access('/dev/kvm', os.W_OK):
		return TCG
	log = os.path.join(logs, 'kvm-probe.log')
	try:
		boot(qemu_argv(arch, image, initrd, log, 1, ['rdinit=/none'], KVM), log, 10)
	except HarnessError:
		return TCG
	if os.path.exists(log) and 'Kernel panic' in open(log, errors='replace').read():
		return KVM
	return TCG
