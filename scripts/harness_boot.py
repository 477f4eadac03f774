# SPDX-License-Identifier: GPL-2.0
"""The boot pipeline of make boot-test and boot: a line's tree, its
kernels built (or taken from the cache), the guest's initramfs of each
architecture, each boot run and judged, the tables. One plan for the real
run and --dry-run (harness_plan): every command goes through the executor
EX, and where the real run decides from what is on disk or what a command
said, the dry run takes the branch stated there."""

import os
import shutil
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from harness_config import Boot, KernelLine, Options, harness_args, kernel_cmdline
from harness_guest import accelerator, boot_and_parse, build_initramfs, qemu_argv
from harness_kernel import Kernels, Tree, fetch_source
from harness_plan import Executor
import harness_results
import harness_tables
from harness_util import HarnessError, describe, file_text, note, now, stage

# Where a tree keeps kunit_tool, whose kunit_parser reads KTAP.
KUNIT_TOOL = 'tools/testing/kunit'


def newest_source(opts: Options, lines: Sequence[KernelLine], newest: KernelLine, ex: Executor) -> str:
	"""The newest line's pristine source, where KTAP's parser
	(tools/testing/kunit), the kselftest headers and the memory model
	come from: KSRC if it is that line (the first of LINES, the chosen
	ones), else the Debian package's in the cache, fetched."""
	if opts.ksrc and lines[0].name == newest.name:
		return os.path.realpath(opts.ksrc)
	return fetch_source(newest, opts, ex)


def kunit_tool(opts: Options, lines: Sequence[KernelLine], newest: KernelLine, ex: Executor) -> str:
	"""The newest line's tools/testing/kunit, whose kunit_parser reads
	KTAP (harness_results.kunit_parser())."""
	with ex.stage('kunit_parser'):
		return os.path.join(newest_source(opts, lines, newest, ex), KUNIT_TOOL)


def each_line(lines: Sequence[KernelLine], what: str, step: Callable[[KernelLine], Optional[bool]],
	      ex: Executor) -> int:
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
	if not ex.dry:
		print(f'{what}: passed for {" ".join(l.name for l in lines)}', flush=True)
	return 0


def prog_args(b: Boot, opts: Options) -> Sequence[str]:
	"""The arguments boot B gives the program its init runs. The
	selftest decides the order checks where it finds the stamps' domain
	(patch 2's proc_event_stamps); base has patch 1 alone and is booted to
	show them fail, so its selftest gets -a."""
	if b.run.mode == 'storm':
		return opts.storm_args
	return ('-a', *opts.selftest_args) if b.variant == 'base' else opts.selftest_args


def boot_argv(tree: Tree, kernels: Kernels, b: Boot, initrd: str, accel: str, opts: Options) -> Tuple[List[str], str]:
	"""QEMU's command line of boot B, and its serial log."""
	log = os.path.join(tree.logs, f'boot-{b.run.arch.name}-{b.name}.log')
	return qemu_argv(b.run.arch, kernels.image(b.kernel), initrd, log, b.run.cpus, kernel_cmdline(b.run, prog_args(b, opts)),
			 accel, b.run.cpu_model), log


def check_helper_instructions(line: KernelLine, kernels: Kernels, boots: Sequence[Boot], ex: Executor) -> List[str]:
	"""An arm64 kernel with the series must contain the helper's atomics
	as tests/litmus/ models them: what does not."""
	bad = []
	for k in dict.fromkeys(b.kernel for b in boots):
		if k.arch.name != 'arm64' or k.variant != 'patched':
			continue
		import litmus
		dis = os.path.join(kernels.image_dir(k), 'helper.dis')
		with ex.stage(f'{line.name}: {k}: the helper\'s atomics as tests/litmus/ models them'):
			if ex.dry:
				continue
			problems = litmus.check_arm64_sequence(file_text(dis))
			note(f'{dis}: ' + ('; '.join(problems) if problems else 'as modelled'))
		if problems:
			bad.append(f'{dis}: the helper\'s atomics are not those tests/litmus/aarch64-*.litmus model: '
				   + '; '.join(problems))
	return bad


def boot_line(line: KernelLine, boots: Sequence[Boot], opts: Options, kselftest_src: Callable[[], str], ktap_tool: str,
	      accels: Dict[str, str], ex: Executor, cached_only: bool = False) -> bool:
	"""BOOTS of LINE, their kernels built (or, CACHED_ONLY, taken from
	the cache or refused), each judged; False if one was not as its run
	expects. KSELFTEST_SRC() gives the source the guest's kselftest is
	built from; KTAP_TOOL, the tools/testing/kunit whose kunit_parser
	reads the boots' KTAP; ACCELS holds the accelerator chosen for each
	architecture. A dry run judges nothing."""
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	with ex.stage(f'{line.name}: tree'):
		tree.prepare(ex)
	if cached_only:
		for k in dict.fromkeys(b.kernel for b in boots):
			with ex.stage(f'{line.name}: config {k.arch.name} {k.flavour}'):
				kernels.configure(k.arch, k.flavour, ex)
			if ex.dry:
				ex.comment(f'Linux {line.name} {k}: from the cache (refused if not there)')
			elif not kernels.fetch_cached(k):
				raise HarnessError(f'Linux {line.name} {k}: no such kernel in the cache; '
						   'make boot-test builds it')
		# The guest is built from the tree at the series, as ensure() leaves it.
		with ex.stage(f'{line.name}: tree at patched'):
			if not ex.dry:
				tree.patched()
	else:
		kernels.ensure((b.kernel for b in boots), ex)
	# A wrong instruction sequence fails the line, after its boots.
	bad_helper = check_helper_instructions(line, kernels, boots, ex)
	archs = list(dict.fromkeys(b.run.arch for b in boots))
	initrd = {}
	for a in archs:
		with ex.stage(f'{line.name}: initramfs {a.name}'):
			initrd[a.name] = build_initramfs(tree, a, opts, kselftest_src(), ex)
	results = os.path.join(tree.line_out, 'results')
	if not ex.dry:
		shutil.rmtree(results, ignore_errors=True)
	judged: Dict[str, List[harness_results.Judged]] = {a.name: [] for a in archs}
	for n, b in enumerate(boots, 1):
		arch = b.run.arch
		accel = accelerator(arch, kernels.image(b.kernel), initrd[arch.name], tree.logs, accels, ex)
		argv, log = boot_argv(tree, kernels, b, initrd[arch.name], accel, opts)
		run_args = kernel_cmdline(b.run)[len(harness_args(arch)):]
		name = (f'{line.name}: boot {arch.name} {b.run.name} {b.variant} (-smp {b.run.cpus}'
			f'{", " + " ".join(run_args) if run_args else ""})')
		start = time.monotonic()
		# Its one line when it ends says how it ended (a dry run's: the stage).
		with (ex.stage(name) if ex.dry else stage(name, quiet=True)):
			reported = boot_and_parse(argv, log, opts.boot_timeout, ktap_tool, ex)
		if reported is None:	# a dry run's
			continue
		os.makedirs(os.path.join(results, arch.name), exist_ok=True)
		why = harness_results.verdict(reported, b, prog_args(b, opts))
		harness_results.save(reported, why, os.path.join(results, arch.name, b.name + '.json'))
		j = harness_results.Judged(b, reported, tuple(why))
		print(f'[{now()}] {harness_tables.boot_line(j, n, len(boots), time.monotonic() - start)}', flush=True)
		judged[arch.name].append(j)
	if ex.dry:
		return True
	ok = True
	for a in archs:
		title = f'Linux {line.name} ({tree.id}) on {a.name}, QEMU -accel {accels[a.name]}'
		md = os.path.join(results, f'{a.name}.md')
		print('\n' + '\n'.join(harness_tables.report(title, judged[a.name], terminal=True)) +
		      f'\n(every check and figure: {md})', flush=True)
		out = harness_tables.report(title, judged[a.name])
		with open(md, 'w') as f:
			f.write('\n'.join(out[:-1]).rstrip() + '\n\n' + out[-1] + '\n')
		ok = ok and not any(j.problems for j in judged[a.name])
	for problem in bad_helper:
		print(f'error: {problem}', flush=True)
	return ok and not bad_helper


def boot_test(opts: Options, lines: Sequence[KernelLine], boots: Dict[str, List[Boot]], newest: KernelLine,
	      ex: Executor) -> int:
	"""make boot-test: the BOOTS of each of LINES built, booted, judged."""
	if not ex.dry:
		with open(os.path.join(opts.out, 'commit'), 'w') as f:
			f.write(describe() + '\n')
	ktap_tool = kunit_tool(opts, lines, newest, ex)
	print(f'logs: {opts.out}/logs/LINE/; results: {opts.out}/LINE/results/', flush=True)
	accels: Dict[str, str] = {}
	return each_line(lines, 'boot test',
			 lambda line: boot_line(line, boots[line.name], opts,
						lambda: newest_source(opts, lines, newest, ex), ktap_tool, accels, ex), ex)


def boot_one(opts: Options, line: KernelLine, boots: Sequence[Boot], lines: Sequence[KernelLine], newest: KernelLine,
	     ex: Executor) -> int:
	"""boot LINE RUN VARIANT: BOOTS, one kernel of the cache, booted and
	judged."""
	ktap_tool = kunit_tool(opts, lines, newest, ex)
	ok = boot_line(line, boots, opts, lambda: newest_source(opts, lines, newest, ex), ktap_tool, {}, ex,
		       cached_only=True)
	return 0 if ok else 1


def parse_one(opts: Options, b: Boot, log: str, lines: Sequence[KernelLine], newest: KernelLine, ex: Executor) -> int:
	"""parse LOG LINE RUN VARIANT: LOG judged as boot_line() judges boot
	B's, its table and verdict printed; 0 if as its run expects. A saved
	log does not say whether its boot timed out: one that did has parts
	that did not finish, which fail it all the same."""
	reported = harness_results.parse_log(log, False, kunit_tool(opts, lines, newest, ex))
	j = harness_results.Judged(b, reported, tuple(harness_results.verdict(reported, b, prog_args(b, opts))))
	print(harness_tables.boot_line(j, 1, 1, 0) + '\n\n' +
	      '\n'.join(harness_tables.report(f'{log}: Linux {b.line} on {b.run.arch.name}', [j])), flush=True)
	return 1 if j.problems else 0
