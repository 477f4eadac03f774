# SPDX-License-Identifier: GPL-2.0
"""The guest: the test initramfs of a line and architecture, the QEMU
command line that boots a kernel with it, its accelerator, and the boot
itself (harness_boot.boot_and_parse() reads its log).

The initramfs holds Debian's busybox-static of the guest's architecture,
tests/init, its console_drain and cn_proc_listener (the harness's listener,
whose figures the tables show), cn_proc_request (the clients' requests of
their own), the kselftest install of the selftest
for each listener of the architecture (/kselftest, /kselftest32) (static),
what run_kselftest.sh needs beyond
busybox (harness_stage.TOOLS), and the real clients where the
architecture runs them (harness_stage.CLIENTS, and NEWEST_CLIENTS in /sid).

The kselftest install is what a CI system builds from mainline to run on
any kernel: the newest line's source (its run_kselftest.sh, lib.mk,
kselftest.h and uapi headers) with the selftest staged in
tools/testing/selftests/connector/ as its posting puts it, the whole
connector collection (proc_filter and proc_listeners too) built static
(USERLDFLAGS=-static). The guest runs cn_proc_test and proc_listeners of it
(tests/init): proc_filter listens until interrupted.
"""

import os
import shutil
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple

from harness_arch import Arch
from harness_config import KSELFTEST_INSTALLS, Options, Run, kernel_cmdline
from harness_kernel import Tree, kmake_argv
from harness_stage import (CLIENTS, NEWEST_CLIENTS, NEWEST_SUITE, TOOLS, debs,
			   stage_fragment)
import harness_util
from harness_util import TOP, HarnessError, file_text, note, output, stage

KSELFTEST = 'tools/testing/selftests'
SELFTEST = KSELFTEST + '/connector'


def kselftest_tree_path(opts: Options) -> str:
	return os.path.join(opts.out, 'kselftest', 'tree')


def kselftest_tree(src: str, opts: Options) -> str:
	"""OUT/kselftest/tree: a copy of SRC (the newest line's pristine
	source, or KSRC), hard-linked where the file system allows, with the
	selftest's files in connector/ (each replaced, never written into: the
	copy's files are the source's; not the *.diff of make file-diffs)."""
	top = os.path.join(opts.out, 'kselftest')
	tree = kselftest_tree_path(opts)
	id_file = os.path.join(top, 'tree.id')
	if not (os.path.isdir(tree) and os.path.isfile(id_file) and
		file_text(id_file).strip() == src):
		shutil.rmtree(tree, ignore_errors=True)
		os.makedirs(top, exist_ok=True)
		if harness_util.run(['cp', '-al', src, tree], check=False).returncode:
			shutil.rmtree(tree, ignore_errors=True)
			harness_util.run(['cp', '-a', src, tree])
		with open(id_file, 'w') as out:
			out.write(src + '\n')
	st = os.path.join(tree, SELFTEST)
	os.makedirs(st, exist_ok=True)
	for f in sorted(os.listdir(os.path.join(TOP, SELFTEST))):
		if f.endswith('.diff'):
			continue	# make file-diffs' view of the posting
		if os.path.lexists(os.path.join(st, f)):
			os.remove(os.path.join(st, f))
		shutil.copy(os.path.join(TOP, SELFTEST, f), os.path.join(st, f))
	return tree


def guest_build_argvs(tree: Tree, arch: Arch, opts: Options,
		      ksft: str) -> List[Tuple[str, List[str]]]:
	"""What build_initramfs() builds, in order, each with the name of its
	log: the tree's uapi headers, the kselftest tree's, the selftest's
	install of each listener (KSFT the kselftest tree, kselftest_tree()),
	the console drain, and the harness's own listener (tests/init), against
	the tree's headers."""
	hdrs = os.path.join(tree.line_out, f'headers-{arch.name}')
	root = os.path.join(tree.line_out, f'initramfs-{arch.name}')
	ksft_out = os.path.join(opts.out, 'kselftest')
	argvs = [(f'headers-{arch.name}', kmake_argv(tree.path, hdrs, arch, opts.jobs, 'headers')),
		 (f'kselftest-headers-{arch.name}',
		  kmake_argv(ksft, os.path.join(ksft_out, f'headers-{arch.name}'), arch, opts.jobs,
			     'headers'))]
	for bits, flags in arch.listeners:
		argvs.append((f'kselftest-{arch.name}-{bits}', [
			'make', '-C', os.path.join(ksft, KSELFTEST),
			f'O={ksft_out}/build-{arch.name}-{bits}',
			f'ARCH={arch.linux_arch}', f'CROSS_COMPILE={arch.cross_compile}',
			f'KHDR_INCLUDES=-isystem {ksft_out}/headers-{arch.name}/usr/include',
			'TARGETS=connector', 'USERCFLAGS=' + ' '.join(flags),
			'USERLDFLAGS=' + ' '.join([*flags, '-static']),
			'KSFT_INSTALL_PATH=' + os.path.join(root, KSELFTEST_INSTALLS[bits]),
			'install']))
	programs: Tuple[Tuple[str, List[str]], ...] = (
		('console_drain', []),
		('cn_proc_listener', ['-isystem', os.path.join(hdrs, 'usr/include')]),
		('cn_proc_request', ['-isystem', os.path.join(hdrs, 'usr/include')]))
	for prog, headers in programs:
		argvs.append((f'{prog}-{arch.name}', [
			arch.cross_compile + 'gcc', '-Wall', '-O2', '-static', *headers,
			'-o', os.path.join(root, 'bin', prog),
			os.path.join(TOP, f'tests/{prog}.c')]))
	return argvs


def guest_debs(opts: Options, arch: Arch, root: str) -> None:
	"""The guest's programs of Debian packages into ROOT: the real clients
	(of --clients-suite, and sid's) where the architecture runs them, the
	tools and busybox (of the architecture's suite)."""
	if arch.clients:
		clients = os.path.join(opts.out, 'clients')
		stage_fragment(CLIENTS, opts, arch, opts.clients_suite, clients)
		shutil.copytree(clients, root, symlinks=True, dirs_exist_ok=True)
		# sid's, under /sid with its libc: nothing of it in the root's.
		newest = os.path.join(opts.out, 'clients-newest')
		stage_fragment(NEWEST_CLIENTS, opts, arch, NEWEST_SUITE, newest)
		shutil.copytree(newest, root, symlinks=True, dirs_exist_ok=True)
	# The same libraries and loader link as the clients', where both are.
	tools = os.path.join(opts.out, 'kselftest', f'tools-{arch.name}')
	stage_fragment(TOOLS, opts, arch, arch.debian_suite, tools)
	harness_util.run(['cp', '-a', '--remove-destination', tools + '/.', root])
	# Unpacked, not installed (the architecture's suite, as the tools):
	# its busybox only.
	deb = debs(opts, arch.debian_suite, arch, 'busybox-static')[0]
	unpacked = root + '.busybox'
	shutil.rmtree(unpacked, ignore_errors=True)
	harness_util.run(['dpkg-deb', '-x', deb, unpacked])
	shutil.copy(os.path.join(unpacked, 'bin', 'busybox'), os.path.join(root, 'bin', 'busybox'))
	shutil.rmtree(unpacked)
	os.symlink('busybox', os.path.join(root, 'bin', 'sh'))


def build_initramfs(tree: Tree, arch: Arch, opts: Options, kselftest_src: str) -> str:
	"""OUT/LINE/initramfs-ARCH.cpio.gz, from the tree at patched;
	KSELFTEST_SRC: the kernel source whose kselftest build system and uapi
	headers build the selftest (the newest line's)."""
	logs = tree.logs
	root = os.path.join(tree.line_out, f'initramfs-{arch.name}')
	shutil.rmtree(root, ignore_errors=True)
	os.makedirs(os.path.join(root, 'bin'))
	ksft = kselftest_tree(kselftest_src, opts)
	for name, argv in guest_build_argvs(tree, arch, opts, ksft):
		harness_util.run(argv, log=os.path.join(logs, name + '.log'), what=name)
	for bits, _ in arch.listeners:
		prog = os.path.join(root, KSELFTEST_INSTALLS[bits], 'connector', 'cn_proc_test')
		if not os.path.isfile(prog) or 'INTERP' in output(['readelf', '-l', prog]):
			raise HarnessError(f'{prog}: missing or not static')
	guest_debs(opts, arch, root)
	shutil.copy(os.path.join(TOP, 'tests', 'init'), os.path.join(root, 'init'))
	os.chmod(os.path.join(root, 'init'), 0o755)
	cpio = os.path.join(tree.line_out, f'initramfs-{arch.name}.cpio.gz')
	harness_util.run(['bash', '-o', 'pipefail', '-c', f'cd {root} && find . | LC_ALL=C sort | '
	     f'cpio -o -H newc --quiet -R 0:0 | gzip -6n >{cpio}'])
	note(f'initramfs: {os.path.getsize(cpio) // 1024} KiB')
	return cpio


# Accelerators: KVM where the guest is the host's architecture, /dev/kvm
# is usable and a probe boot works (a nested /dev/kvm can exist and hang);
# software emulation otherwise, a host thread per vCPU.
KVM = 'kvm'
TCG = 'tcg,thread=multi'


def qemu_argv(arch: Arch, image: str, initrd: str, log: str, cpus: int, cmdline: Sequence[str],
	      accel: str = TCG, cpu_model: Optional[str] = None,
	      extra: Sequence[str] = ()) -> List[str]:
	"""The QEMU command line of one boot: the serial console to LOG, no
	reboot (init powers off with reboot -f); CMDLINE is
	harness_config.kernel_cmdline()'s."""
	if cpu_model:
		cpu = ['-cpu', cpu_model]
		accel = TCG if accel == KVM else accel	# KVM offers the host's CPU only
	elif accel == KVM:
		cpu = ['-cpu', 'host']
	else:
		cpu = ['-cpu', arch.cpu] if arch.cpu else []
	if not arch.qemu:
		raise HarnessError(f'{arch.name} does not boot: its Arch names no QEMU')
	return [arch.qemu, *arch.qemu_params, '-accel', accel, *extra, *cpu, '-smp', str(cpus),
		'-kernel', image, '-initrd', initrd, '-append', ' '.join(cmdline),
		'-display', 'none', '-monitor', 'none', '-serial', f'file:{log}', '-no-reboot']


def boot(argv: Sequence[str], log: str, timeout: int) -> bool:
	"""Run one boot, printed first; True if it ended by itself, False if it
	hung past TIMEOUT seconds (then QEMU is killed)."""
	if os.path.exists(log):
		os.remove(log)
	os.makedirs(os.path.dirname(log), exist_ok=True)
	try:
		harness_util.run(argv, timeout=timeout, what='qemu')
	except subprocess.TimeoutExpired:
		return False
	return True


def accelerator(arch: Arch, image: str, initrd: str, logs: str, chosen: Dict[str, str]) -> str:
	"""The accelerator of ARCH, chosen once a process (CHOSEN holds the
	choices made): one probe boot, and every boot of ARCH the command runs
	on the same accelerator."""
	if arch.name not in chosen:
		with stage(f'accelerator for {arch.name}'):
			chosen[arch.name] = choose_accel(arch, image, initrd, logs)
		note(f'accelerator: {chosen[arch.name]}')
	return chosen[arch.name]


def choose_accel(arch: Arch, image: str, initrd: str, logs: str) -> str:
	if arch.name != os.uname().machine or not os.access('/dev/kvm', os.W_OK):
		return TCG
	log = os.path.join(logs, 'kvm-probe.log')
	# No init: the kernel panics, on KVM only if KVM can run it.
	probe = Run('kvm-probe', (), (), arch, kernel_args=('rdinit=/none',))
	try:
		boot(qemu_argv(arch, image, initrd, log, 1, kernel_cmdline(probe), KVM), log, 10)
	except HarnessError:
		return TCG
	if os.path.exists(log) and 'Kernel panic' in open(log, errors='replace').read():
		return KVM
	return TCG
