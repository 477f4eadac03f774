# SPDX-License-Identifier: GPL-2.0
"""The boot pipeline of make boot-test and boot: a line's tree, its
kernels built (or taken from the cache), the guest's initramfs of each
architecture, each boot run and judged, the tables; and parse, which
judges a saved serial log as a boot's. SRC, wherever it is taken, is the
newest line's pristine source (harness_kernel.newest_source()): its
kunit_parser reads the boots' KTAP, its kselftest builds the guest's."""

import os
import shutil
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from harness_config import Boot, KernelLine, Options, harness_args, kernel_cmdline
import harness_guest
from harness_guest import accelerator, build_initramfs, qemu_argv
from harness_kernel import KUNIT_TOOL, Kernels, Tree
import harness_results
import harness_tables
from harness_util import HarnessError, describe, file_text, note, now, stage
import litmus


def boot_and_parse(argv: Sequence[str], log: str, timeout: int,
		   ktap_tool: str) -> harness_results.BootReport:
	"""One boot (harness_guest.boot()) and what its serial log says
	(harness_results.parse_log(), its KTAP read by KTAP_TOOL's
	kunit_parser), timed out if it hung: how make boot-test, boot and bench
	all boot a kernel, so that a hung boot or a kernel report is seen the
	same way."""
	ended = harness_guest.boot(argv, log, timeout)
	return harness_results.parse_log(log, not ended, ktap_tool)


def each_line(lines: Sequence[KernelLine], what: str,
	      step: Callable[[KernelLine], Optional[bool]]) -> int:
	"""STEP on every line of LINES, the others still run when one fails
	(False or a HarnessError); 0 only if none did."""
	failed = []
	for line in lines:
		try:
			if step(line) is False:
				failed.append(line.name)
		except HarnessError as e:
			print(f'error: {e}', flush=True)
			failed.append(line.name)
	if failed:
		print(f'error: {what} failed for: {" ".join(failed)}', flush=True)
		return 1
	print(f'{what}: passed for {" ".join(l.name for l in lines)}', flush=True)
	return 0


def prog_args(b: Boot, opts: Options) -> Sequence[str]:
	"""The arguments boot B gives the program its init runs. The
	selftest decides the order checks where it finds the stamps' domain
	(patch 2's proc_event_stamps); base has patch 1 alone and is booted to
	show them fail, so its selftest gets -a."""
	return ('-a', *opts.selftest_args) if b.variant == 'base' else opts.selftest_args


def boot_cmdline(b: Boot, opts: Options) -> List[str]:
	"""The kernel command line of boot B: what its boot gives the kernel
	and what its verdict, a boot's or parse's, holds the log to."""
	return kernel_cmdline(b.run, prog_args(b, opts))


def boot_argv(tree: Tree, kernels: Kernels, b: Boot, initrd: str, accel: str,
	      cmdline: Sequence[str]) -> Tuple[List[str], str]:
	"""QEMU's command line of boot B with the kernel's CMDLINE, and its
	serial log."""
	log = os.path.join(tree.logs, f'boot-{b.run.arch.name}-{b.name}.log')
	return qemu_argv(b.run.arch, kernels.image(b.kernel), initrd, log, b.run.cpus,
			 cmdline, accel, b.run.cpu_model), log


def check_helper_instructions(line: KernelLine, kernels: Kernels,
			      boots: Sequence[Boot]) -> List[str]:
	"""An arm64 kernel with the series must contain the helper's atomics
	as tests/litmus/ models them: what does not."""
	bad = []
	for k in dict.fromkeys(b.kernel for b in boots):
		if k.arch.name != 'arm64' or k.variant != 'patched':
			continue
		dis = os.path.join(kernels.image_dir(k), 'helper.dis')
		with stage(f'{line.name}: {k}: the helper\'s atomics as tests/litmus/ models them'):
			problems = litmus.check_arm64_sequence(file_text(dis))
			note(f'{dis}: ' + ('; '.join(problems) if problems else 'as modelled'))
		if problems:
			bad.append(f'{dis}: the helper\'s atomics are not those '
				   'tests/litmus/aarch64-*.litmus model: ' + '; '.join(problems))
	return bad


def boot_line(line: KernelLine, boots: Sequence[Boot], opts: Options, src: str,
	      accels: Dict[str, str], cached_only: bool = False) -> bool:
	"""BOOTS of LINE, their kernels built (or, CACHED_ONLY, taken from
	the cache or refused), each judged; False if one was not as its run
	expects. SRC: the newest line's source, whose kselftest the guest's is
	built from and whose kunit_parser reads the boots' KTAP; ACCELS holds
	the accelerator chosen for each architecture."""
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	if cached_only:		# the source the cache's kernels were built from
		tree.source_at_hand()
	with stage(f'{line.name}: tree'):
		tree.prepare()
	if cached_only:
		for k in dict.fromkeys(b.kernel for b in boots):
			with stage(f'{line.name}: config {k.arch.name} {k.flavour}'):
				kernels.configure(k.arch, k.flavour)
			if not kernels.fetch_cached(k):
				raise HarnessError(f'Linux {line.name} {k}: no such kernel in the '
						   'cache; make boot-test builds it')
		# The guest is built from the tree at the series, as ensure() leaves it.
		with stage(f'{line.name}: tree at patched'):
			tree.patched()
	else:
		kernels.ensure(b.kernel for b in boots)
	# A wrong instruction sequence fails the line, after its boots.
	bad_helper = check_helper_instructions(line, kernels, boots)
	archs = list(dict.fromkeys(b.run.arch for b in boots))
	initrd = {}
	for a in archs:
		with stage(f'{line.name}: initramfs {a.name}'):
			initrd[a.name] = build_initramfs(tree, a, opts, src)
	results = os.path.join(tree.line_out, 'results')
	shutil.rmtree(results, ignore_errors=True)
	judged: Dict[str, List[harness_results.Judged]] = {a.name: [] for a in archs}
	ktap_tool = os.path.join(src, KUNIT_TOOL)
	for n, b in enumerate(boots, 1):
		arch = b.run.arch
		accel = accelerator(arch, kernels.image(b.kernel), initrd[arch.name], tree.logs,
				    accels)
		cmdline = boot_cmdline(b, opts)
		argv, log = boot_argv(tree, kernels, b, initrd[arch.name], accel, cmdline)
		run_args = kernel_cmdline(b.run)[len(harness_args(arch)):]
		name = (f'{line.name}: boot {arch.name} {b.run.name} {b.variant} (-smp {b.run.cpus}'
			f'{", " + " ".join(run_args) if run_args else ""})')
		start = time.monotonic()
		# Its one line when it ends says how it ended.
		with stage(name, quiet=True):
			reported = boot_and_parse(argv, log, opts.boot_timeout, ktap_tool)
		os.makedirs(os.path.join(results, arch.name), exist_ok=True)
		why = harness_results.verdict(reported, b, cmdline)
		harness_results.save(reported, why,
				     os.path.join(results, arch.name, b.name + '.json'))
		j = harness_results.Judged(b, reported, tuple(why))
		done = harness_tables.boot_line(j, n, len(boots), time.monotonic() - start)
		print(f'[{now()}] {done}', flush=True)
		judged[arch.name].append(j)
	ok = True
	for a in archs:
		title = f'Linux {line.name} ({tree.id}) on {a.name}, QEMU -accel {accels[a.name]}'
		md = os.path.join(results, f'{a.name}.md')
		table = harness_tables.report(title, judged[a.name], terminal=True)
		print('\n' + '\n'.join(table) + f'\n(every check and figure: {md})', flush=True)
		out = harness_tables.report(title, judged[a.name])
		with open(md, 'w') as f:
			f.write('\n'.join(out[:-1]).rstrip() + '\n\n' + out[-1] + '\n')
		ok = ok and not any(j.problems for j in judged[a.name])
	for problem in bad_helper:
		print(f'error: {problem}', flush=True)
	return ok and not bad_helper


def boot_test(opts: Options, lines: Sequence[KernelLine], boots: Dict[str, List[Boot]],
	      src: str) -> int:
	"""make boot-test: the BOOTS of each of LINES built, booted, judged."""
	with open(os.path.join(opts.out, 'commit'), 'w') as f:
		f.write(describe() + '\n')
	print(f'logs: {opts.out}/logs/LINE/; results: {opts.out}/LINE/results/', flush=True)
	accels: Dict[str, str] = {}
	return each_line(lines, 'boot test',
			 lambda line: boot_line(line, boots[line.name], opts, src, accels))


def boot_one(opts: Options, line: KernelLine, boots: Sequence[Boot],
	     source: Callable[[], str]) -> int:
	"""boot LINE RUN VARIANT: BOOTS, one kernel of the cache, booted and
	judged; looked up in the cache first, and refused if it is not there,
	before anything is fetched (SOURCE() gives the newest line's source)."""
	kernels = Kernels(Tree(line, opts), opts)
	for k in dict.fromkeys(b.kernel for b in boots):
		if not kernels.in_cache(k):
			raise HarnessError(f'Linux {line.name} {k}: no such kernel in the cache; '
					   'make boot-test builds it')
	return 0 if boot_line(line, boots, opts, source(), {}, cached_only=True) else 1


def parse_one(opts: Options, b: Boot, log: str, ktap_tool: str) -> int:
	"""parse LOG LINE RUN VARIANT: LOG judged as boot_line() judges boot
	B's, its table and verdict printed; 0 if as its run expects. A saved
	log does not say whether its boot timed out: one that did has parts
	that did not finish, which fail it all the same."""
	reported = harness_results.parse_log(log, False, ktap_tool)
	why = harness_results.verdict(reported, b, boot_cmdline(b, opts))
	j = harness_results.Judged(b, reported, tuple(why))
	print(harness_tables.boot_line(j, 1, 1, 0) + '\n\n' +
	      '\n'.join(harness_tables.report(f'{log}: Linux {b.line} on {b.run.arch.name}', [j])),
	      flush=True)
	return 1 if j.problems else 0
