# SPDX-License-Identifier: GPL-2.0
"""make kunit: kunit.py run as the timekeeping maintainers run it
(--kunitconfig=kernel/time), on x86_64 with two CPUs so that the
concurrent case runs, on the newest line's patched tree.

Its kernel is the boot test's x86_64 kernel: kunit.py builds in that
kernel's build directory, with that kernel's .config given as a second
--kunitconfig (kunit.py merges the two, and the boot test's .config has
every option kernel/time/.kunitconfig asks for). kunit.py's kernel is then
the boot test's patched x86_64 kernel, built once: the boot test's own
builds in that directory are incremental (the objects the series'
patches change), not a second full build of another configuration."""

import os
import re
import shlex
import shutil
import types
from typing import List, Sequence

from harness_arch import Arch
from harness_config import KernelLine, Options, kunit_cases, load_arch, series_patches
from harness_kernel import Kernels, Tree, kunit_config
import harness_util
from harness_util import (HarnessError, cache_get, cache_key, cache_put, file_text, note, output,
			  stage)

# kunit.py's arguments: the maintainers' --kunitconfig, on x86_64 with two
# CPUs (CONFIG_SMP is not x86's default), where UML's one CPU makes the
# concurrent case skip.
KUNIT_ARGS = ('--kunitconfig=kernel/time', '--arch=x86_64', '--kconfig_add=CONFIG_SMP=y',
	      '--qemu_args=-smp 2')
# The boot test's kernel whose build directory and .config kunit.py uses.
KUNIT_ARCH = 'x86_64'
KUNIT_FLAVOUR = 'default'
# kunit.py runs QEMU with -accel kvm -accel hvf -accel tcg: where /dev/kvm
# is there but cannot run its kernel (an emulation failure), QEMU stops
# rather than falling back. It finds this one first in PATH: QEMU in
# software emulation, as every boot of the harness can run.
KUNIT_QEMU = 'qemu-system-x86_64'


def kunit_argv(kunit_py: str, boot_config: str, build: str, jobs: int) -> List[str]:
	"""kunit.py run: the maintainers' arguments, then the boot test's
	.config (BOOT_CONFIG) as a second kunitconfig, in its build directory."""
	return [kunit_py, 'run', *KUNIT_ARGS, f'--kunitconfig={boot_config}',
		f'--build_dir={build}', f'--jobs={jobs}']


def tcg_qemu(d: str) -> str:
	"""D/KUNIT_QEMU: the machine's QEMU, every -accel but tcg dropped."""
	real = shutil.which(KUNIT_QEMU)
	if not real:
		raise HarnessError(f'no {KUNIT_QEMU} (make setup installs it)')
	path = os.path.join(d, KUNIT_QEMU)
	os.makedirs(d, exist_ok=True)
	with open(path + '.tmp', 'w') as f:
		f.write('#!/bin/bash\n'
			'# kunit.py\'s QEMU in software emulation '
			'(scripts/harness_kunit.py: KUNIT_QEMU)\n'
			'args=()\nwhile [ $# -gt 0 ]; do\n'
			'\tif [ "$1" = -accel ] && [ "$2" != tcg ]; then shift 2; continue; fi\n'
			'\targs+=("$1")\n\tshift\ndone\n'
			f'exec {shlex.quote(real)} "${{args[@]}}"\n')
	os.chmod(path + '.tmp', 0o755)
	os.replace(path + '.tmp', path)
	return path


def kunit_unrun(log: str, cases: Sequence[str]) -> List[str]:
	"""The series' KUnit CASES that kunit.py's kernel output LOG does not
	show run: missing, or skipped (the concurrent case on one CPU). A line
	may carry printk's time ([    9.02] with CONFIG_PRINTK_TIME, which the
	boot test's kernel has)."""
	out = []
	for c in cases:
		ok = r'^(?:\[[ \d.]+\])?\s*(?:not )?ok \d+ ' + re.escape(c) + r'\b(.*)$'
		m = re.search(ok, log, re.M)
		if not m:
			out.append(f'{c} did not run')
		elif re.search(r'#\s*SKIP', m.group(1), re.I):
			out.append(f'{c} was skipped ({m.group(1).strip()})')
	return out


def kunit_id(tree: Tree, argv: Sequence[str], boot_config: str) -> str:
	"""The key of a kunit.py run: the source, the series, the kunitconfig,
	the boot test's .config, the compiler, kunit.py and its argv (but for
	the paths and --jobs)."""
	args = [a for a in argv[1:]
		if not a.startswith(('--build_dir=', '--jobs=', f'--kunitconfig={boot_config}'))]
	return cache_key(tree.id, tree.digest,
			 file_text(os.path.join(tree.path, 'kernel/time/.kunitconfig')),
			 file_text(boot_config), output(['gcc', '--version']).splitlines()[0],
			 file_text(argv[0]), shlex.join(args))


def missing_from_boot_config(kunitconfig: str, boot_config: str,
			     kconfig: types.ModuleType) -> List[str]:
	"""What kernel/time/.kunitconfig (KUNITCONFIG's text) asks that the
	boot test's .config does not have, judged by kunit_config (KCONFIG):
	kunit.py would then regenerate the .config and build another kernel."""
	want = kconfig.parse_from_string(kunitconfig)
	have = kconfig.parse_from_string(file_text(boot_config))
	return sorted(str(e) for e in set(want.as_entries()) - set(have.as_entries()))


def kunit(opts: Options, line: KernelLine) -> int:
	"""kunit.py run on LINE's patched tree in the boot test's x86_64 build
	directory: the result is kunit.py's, and every case the series adds
	must have run, none skipped (kunit_unrun()). The run's output is cached
	under the key of what it is built from, and a cached run is read again
	with kunit.py parse."""
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	arch: Arch = load_arch(KUNIT_ARCH)
	build = kernels.build_dir(arch, KUNIT_FLAVOUR)
	boot_config = os.path.join(tree.line_out, 'kunit', f'{arch.name}-{KUNIT_FLAVOUR}.config')
	kunit_py = os.path.join(tree.path, 'tools/testing/kunit/kunit.py')
	argv = kunit_argv(kunit_py, boot_config, build, opts.jobs)
	qemu = os.path.join(opts.out, 'kunit-qemu')
	env = {'PATH': qemu + os.pathsep + os.environ.get('PATH', '')}
	with stage(f'{line.name}: tree'):
		tree.prepare()
	with stage(f'{line.name}: config {arch.name} {KUNIT_FLAVOUR}'):
		kernels.configure(arch, KUNIT_FLAVOUR)
	with stage(f'{line.name}: tree at patched'):
		tree.patched()
	os.makedirs(os.path.dirname(boot_config), exist_ok=True)
	shutil.copy(os.path.join(build, '.config'), boot_config)
	missing = missing_from_boot_config(
		file_text(os.path.join(tree.path, 'kernel/time/.kunitconfig')), boot_config,
		kunit_config(tree.path))
	if missing:
		raise HarnessError(f'{boot_config}: the boot test\'s .config lacks what '
				   'kernel/time/.kunitconfig asks: ' + ', '.join(missing))
	key = kunit_id(tree, argv, boot_config)
	saved = os.path.join(tree.line_out, 'kunit-result')
	fresh = not cache_get('kunit', key, saved)
	if not fresh:
		note(f'kunit.py run: from the cache ({key}); '
		     'its kernel output read again by kunit.py parse')
		with stage('kunit.py parse'):
			parse = [kunit_py, 'parse', os.path.join(saved, 'test.log')]
			proc = harness_util.run(parse, check=False, cwd=tree.path)
	else:
		tcg_qemu(qemu)
		with stage(f'{line.name}: kunit.py run {" ".join(KUNIT_ARGS)}, '
			   f'the boot test\'s {arch.name} .config'):
			proc = harness_util.run(argv, check=False, cwd=tree.path, env=env)
		shutil.rmtree(saved, ignore_errors=True)
		os.makedirs(saved)
		if os.path.isfile(os.path.join(build, 'test.log')):
			shutil.copy(os.path.join(build, 'test.log'), saved)
	log = os.path.join(saved, 'test.log')
	unrun = kunit_unrun(file_text(log) if os.path.isfile(log) else '',
			    kunit_cases(series_patches(line.series_dir)))
	if proc.returncode:
		print('error: kunit.py: the KUnit cases did not all pass', flush=True)
		return 1
	if unrun:
		print(f'error: kunit.py: {"; ".join(unrun)}', flush=True)
		return 1
	if fresh:
		cache_put(saved, 'kunit', key)
	print('kunit.py: passed, every case of the series ran', flush=True)
	return 0
