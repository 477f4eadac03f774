# SPDX-License-Identifier: GPL-2.0
"""make bench: the figures the changelogs quote on what the series and the
designs it was chosen over cost and keep, on the default kernels of one
line (KERNEL, the newest by default). Not part of make check. In order:

  1. what each costs, natively: tests/bench/stamp_native.c on this
     machine's own cores, where contention is real: each design's stamping
     as the kernel does it, ns per call with one core and with two
     contending, the time a cacheline takes between the two cores, and the
     cost of the events themselves (fork, exec, exit), from which the
     overhead per event and the model for N CPUs follow
     (scripts/bench_native.py);
  2. what each keeps: the selftest on each design's kernel (base,
     clock-under-lock, per-cpu-floor, the series; the middle two are
     tests/mutants/ of the series), on the default clocksource and on
     clocksource=jiffies, 2 vCPUs.
The report is out/bench/report.md. make bench fails when something did not
run or a kernel reported a problem, never on a figure.
"""

import contextlib
import io
import os
import shutil
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import bench_native
import bench_report
from bench_report import DESIGNS
from harness_arch import Kernel
from harness_config import DEFAULT_ARCH, KernelLine, Options, Run, given, kernel_cmdline, load_arch
from harness_boot import boot_and_parse
from harness_kernel import KUNIT_TOOL, Kernels, Tree
from harness_guest import accelerator, build_initramfs, qemu_argv
import harness_results
from harness_results import BootReport, Problem
from harness_util import TOP, HarnessError, describe, file_text, note, run, stage

NATIVE_ROUNDS = 31
# What make bench boots: the default architecture, x86_64, whose TSC its
# figures rest on.
ARCH = DEFAULT_ARCH
# The part of init whose results say what a design keeps.
SELFTEST = 'cn_proc-selftest'


def check_options(opts: Options, lines: Sequence[KernelLine]) -> None:
	"""bench takes no --runs or --arch (it boots runs of its own, on
	ARCH for its TSC): one line."""
	if len(lines) != 1:
		raise HarnessError(f'{given("kernel", opts.kernel)}: make bench measures one line, '
				   'not ' + ' '.join(l.name for l in lines))


def native_argvs(out: str) -> List[List[str]]:
	"""The builds of stamp_native and its exec target, then stamp_native,
	at SCHED_FIFO priority when root (a busy machine would otherwise
	decide the figures)."""
	bins = os.path.join(out, 'native')
	src = os.path.join(TOP, 'tests', 'bench')
	argv = [os.path.join(bins, 'stamp_native'), '-r', str(NATIVE_ROUNDS),
		'-x', os.path.join(bins, 'exit_at_once')]
	return [['gcc', '-Wall', '-O2', '-pthread', '-o', os.path.join(bins, 'stamp_native'),
		 os.path.join(src, 'stamp_native.c')],
		['gcc', '-Wall', '-O2', '-static', '-nostdlib', '-fno-stack-protector', '-o',
		 os.path.join(bins, 'exit_at_once'), os.path.join(src, 'exit_at_once.c')],
		argv + (['-f'] if os.geteuid() == 0 else [])]


def native(out: str) -> List[str]:
	"""stamp_native on this machine: its output."""
	os.makedirs(os.path.join(out, 'native'), exist_ok=True)
	*builds, argv = native_argvs(out)
	for b in builds:
		run(b)
	log = os.path.join(out, 'native.txt')
	run(argv, log=log, what='stamp_native')
	return file_text(log).splitlines(keepends=True)


def native_report(lines: List[str]) -> List[str]:
	"""bench_native's report of stamp_native's output LINES."""
	buf = io.StringIO()
	with contextlib.redirect_stdout(buf):
		bench_native.report(bench_native.parse(lines))
	return buf.getvalue().splitlines() + ['']


def problems(reported: BootReport) -> List[Problem]:
	"""Why a boot of make bench does not count, whatever its figures: what
	fails any boot (it hung, its kernel reported a problem), and the
	selftest, whose figures the report reads, not finished."""
	why = harness_results.boot_problems(reported)
	if SELFTEST not in reported.parts or reported.parts[SELFTEST].exit is None:
		why.append(Problem('part_unfinished', SELFTEST, f'{SELFTEST} did not finish'))
	return why


def bench(opts: Options, lines: Sequence[KernelLine], source: Callable[[], str]) -> int:
	"""make bench on the one line of LINES; the guest's kselftest is
	built from the newest line's source (SOURCE(), the session's, fetched
	once its options are checked), as is the parser of the boots' KTAP."""
	check_options(opts, lines)
	line = lines[0]
	arch = load_arch(ARCH)
	out = os.path.join(opts.out, 'bench')
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	with stage('native: stamp_native on this machine\'s cores'):
		native_lines = native(out)
	src = source()
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	with stage(f'{line.name}: tree'):
		tree.prepare()
	kernels.ensure(Kernel(arch, 'default', d) for d, _ in DESIGNS)
	with stage(f'{line.name}: initramfs {ARCH}'):
		initrd = build_initramfs(tree, arch, opts, src)
	accel = accelerator(arch, kernels.image(Kernel(arch, 'default', 'patched')), initrd,
			    tree.logs, {})
	runs = {c: Run('bench', (), (), arch, clocksource=c) for c in bench_report.CLOCKS}
	keeps: Dict[Tuple[str, Optional[str]], Tuple[BootReport, Optional[tuple]]] = {}
	for design, _ in DESIGNS:
		for clock, r in runs.items():
			name = f'keeps-{design}-{clock or "default"}'
			log = os.path.join(out, name + '.log')
			image = kernels.image(Kernel(arch, 'default', design))
			# -a: the selftest decides the order checks on every design,
			# base's and the mutants' alike, whatever its probe finds
			cmdline = kernel_cmdline(r, ('-a',))
			argv = qemu_argv(arch, image, initrd, log, r.cpus, cmdline, accel)
			with stage(f'{line.name}: bench boot {name}'):
				reported = boot_and_parse(argv, log, opts.boot_timeout,
							  os.path.join(src, KUNIT_TOOL))
			why = problems(reported)
			if why:
				raise HarnessError(f'{log}: {why[0]}')
			causal = bench_report.causal(file_text(log).splitlines())
			keeps[design, clock] = (reported, causal)
	report = [f'## make bench: Linux {line.name} ({tree.id}), {runs[None].cpus} vCPUs', '',
		  '### Native, on this machine\'s cores (tests/bench/stamp_native.c)', '']
	report += native_report(native_lines)
	report += ['### In the guest', ''] + bench_report.keeps_table(keeps)
	text = '\n'.join(report) + '\n'
	with open(os.path.join(out, 'report.md'), 'w') as f:
		f.write(text)
	with open(os.path.join(out, 'commit'), 'w') as f:
		f.write(describe() + '\n')
	print('\n' + text, flush=True)
	note(f'report: {os.path.join(out, "report.md")}')
	return 0
