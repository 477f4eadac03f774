# SPDX-License-Identifier: GPL-2.0
"""make bench: what the series and the designs it was chosen over cost and
keep, measured side by side in one run, on the default kernels of one line
(KERNEL, the newest by default). Not part of make check. In order:

  1. native: tests/bench/stamp_native.c on this machine's own cores, where
     contention is real: each design's stamping as the kernel does it,
     ns per call with one core and with two contending, the time a
     cacheline takes between the two cores, and the cost of the events
     themselves (fork, exec, exit), from which the overhead per event and
     the model for N CPUs follow (scripts/bench_native.py);
  2. what each design keeps: the selftest on each design's kernel (base,
     clock-under-lock, per-cpu-floor, the series; the middle two are
     tests/mutants/ of the series), on the default clocksource and on
     clocksource=jiffies;
  3. what each costs in the guest: BENCH_PAIRS rounds of the storm
     (tests/bench/cn_proc_storm.c, all three listener states in each boot),
     every design once a round, in each accelerator mode: on KVM in real
     time; in software emulation with -icount (one host thread runs every
     vCPU and guest time counts instructions: rounds repeat closely, but
     two vCPUs never run at once, so never contend for a line) and with
     multi-threaded TCG (a host thread per vCPU: guest atomics are host
     atomics, but wall-clock rounds vary by tens of percent).
The report, out/bench/report.md, says per mode whether its intervals are
narrow enough to show the effect the native figures predict. It fails when
something did not run or a kernel reported a problem, never on a figure.
"""

import dataclasses
import os
import shutil
from typing import Dict, List, Optional, Sequence, Tuple

import bench_native
import bench_report
from bench_report import DESIGNS
from harness_arch import Arch, Kernel
import harness_boot
from harness_config import DEFAULT_ARCH, KernelLine, Options, Run, given, kernel_cmdline, load_arch
from harness_kernel import Kernels, Tree
from harness_guest import KVM, TCG, accelerator, boot_and_parse, build_initramfs, qemu_argv
from harness_plan import Cmd, Executor
import harness_results
from harness_results import BootReport, Problem
from harness_util import TOP, HarnessError, describe, file_text, note

NATIVE_ROUNDS = 31
# What make bench boots: the default architecture, x86_64, whose TSC its
# figures rest on.
ARCH = DEFAULT_ARCH
STORM_STATES = ['-l', 'all', '-l', 'exits', '-l', 'overrun']
# The part of init whose results say what a design keeps.
SELFTEST = 'cn_proc-selftest'


def check_options(opts: Options, lines: Sequence[KernelLine]) -> None:
	"""bench takes no --runs or --arch (it boots runs of its own, on
	ARCH for its TSC): one line."""
	if len(lines) != 1:
		raise HarnessError(f'{given("kernel", opts.kernel)}: make bench measures one line, not '
				   + ' '.join(l.name for l in lines))


def native_argvs(out: str) -> List[List[str]]:
	"""The builds of stamp_native and its exec target, then stamp_native,
	at SCHED_FIFO priority when root (a busy machine would otherwise
	decide the figures)."""
	bins = os.path.join(out, 'native')
	src = os.path.join(TOP, 'tests', 'bench')
	argv = [os.path.join(bins, 'stamp_native'), '-r', str(NATIVE_ROUNDS), '-x', os.path.join(bins, 'exit_at_once')]
	return [['gcc', '-Wall', '-O2', '-pthread', '-o', os.path.join(bins, 'stamp_native'),
		 os.path.join(src, 'stamp_native.c')],
		['gcc', '-Wall', '-O2', '-static', '-nostdlib', '-fno-stack-protector', '-o',
		 os.path.join(bins, 'exit_at_once'), os.path.join(src, 'exit_at_once.c')],
		argv + (['-f'] if os.geteuid() == 0 else [])]


def native(out: str, ex: Executor) -> List[str]:
	"""stamp_native on this machine: its output (none in a dry run)."""
	if not ex.dry:
		os.makedirs(os.path.join(out, 'native'), exist_ok=True)
	*builds, argv = native_argvs(out)
	for b in builds:
		ex.run(Cmd.of(b))
	log = os.path.join(out, 'native.txt')
	ex.run(Cmd.of(argv, log=log, what='stamp_native'))
	return [] if ex.dry else file_text(log).splitlines(keepends=True)


def modes(accel: str) -> List[Tuple[str, str, List[str]]]:
	"""(name, accelerator, further QEMU options) of each storm mode."""
	if accel == KVM:
		return [('kvm', KVM, [])]
	return [('icount', 'tcg,thread=single', ['-icount', 'shift=3,sleep=off']), ('mttcg', TCG, [])]


@dataclasses.dataclass(frozen=True)
class BenchBoot:
	"""One boot of make bench: DESIGN's kernel with CMDLINE, its command
	line (harness_config.kernel_cmdline()); what a design keeps (MODE '',
	PART the selftest, CLOCK its clocksource) or ROUND of the storm in
	accelerator MODE."""
	name: str
	design: str
	cmdline: Tuple[str, ...]
	accel: str
	extra: Tuple[str, ...] = ()
	part: Optional[str] = None
	clock: Optional[str] = None
	mode: str = ''
	round: int = 0


def bench_boots(opts: Options, arch: Arch, accel: str) -> List[BenchBoot]:
	"""make bench's boots, in order: each design on each clocksource, then
	in each mode BENCH_PAIRS rounds of the storm, every design once a
	round, the first design of each round rotating."""
	def cmdline(clock: Optional[str] = None, mode: str = 'selftest', prog_args: Sequence[str] = ()) -> Tuple[str, ...]:
		return tuple(kernel_cmdline(Run('bench', (), (), arch, mode=mode, clocksource=clock), prog_args))
	# -a: the selftest decides the order checks on every design, base's
	# and the mutants' alike, whatever its probe finds
	boots = [BenchBoot(f'keeps-{design}-{clock or "default"}', design,
			   cmdline(clock, prog_args=('-a',)), accel, part=SELFTEST, clock=clock)
		 for design, _, _ in DESIGNS for clock in (None, 'jiffies')]
	storm = cmdline(mode='storm', prog_args=[*opts.storm_args, *STORM_STATES])
	for name, acc, extra in modes(accel):
		for r in range(opts.bench_pairs):
			order = [d for d, _, _ in DESIGNS]
			for design in order[r % len(order):] + order[:r % len(order)]:
				boots.append(BenchBoot(f'storm-{name}-{r + 1}-{design}', design, storm, acc, tuple(extra),
						       mode=name, round=r))
	return boots


def problems(reported: BootReport, part: Optional[str]) -> List[Problem]:
	"""Why a boot of make bench does not count, whatever its figures: what
	fails any boot (it hung, its kernel reported a problem), and PART, if
	the boot's figures come from one, not finished."""
	why = harness_results.boot_problems(reported)
	if part and (part not in reported.parts or reported.parts[part].exit is None):
		why.append(Problem('part_unfinished', part, f'{part} did not finish'))
	return why


def bench(opts: Options, lines: Sequence[KernelLine], newest: KernelLine, ex: Executor) -> int:
	"""make bench on the one line of LINES; the guest's kselftest is
	built from the NEWEST line's source, as is the parser of the boots'
	KTAP. A dry run builds and boots as the real run, on software
	emulation, and reports nothing."""
	check_options(opts, lines)
	line = lines[0]
	arch = load_arch(ARCH)
	out = os.path.join(opts.out, 'bench')
	if not ex.dry:
		shutil.rmtree(out, ignore_errors=True)
		os.makedirs(out)
	with ex.stage('native: stamp_native on this machine\'s cores'):
		native_lines = native(out, ex)
	ktap_tool = harness_boot.kunit_tool(opts, lines, newest, ex)
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	with ex.stage(f'{line.name}: tree'):
		tree.prepare(ex)
	kernels.ensure((Kernel(arch, 'default', d) for d, _, _ in DESIGNS), ex)
	with ex.stage(f'{line.name}: initramfs {ARCH}'):
		initrd = build_initramfs(tree, arch, opts, harness_boot.newest_source(opts, lines, newest, ex), ex)
	chosen: Dict[str, str] = {}
	accel = accelerator(arch, kernels.image(Kernel(arch, 'default', 'patched')), initrd, tree.logs, chosen, ex)
	cpus = opts.bench_cpus

	def boot_design(b: BenchBoot) -> Tuple[List[str], Optional[BootReport]]:
		"""Boot B, judged by problems(): its log's lines and what it
		reported (none in a dry run)."""
		log = os.path.join(out, b.name + '.log')
		argv = qemu_argv(arch, kernels.image(Kernel(arch, 'default', b.design)), initrd, log, cpus, b.cmdline,
				 b.accel, extra=b.extra)
		with ex.stage(f'{line.name}: bench boot {b.name}'):
			reported = boot_and_parse(argv, log, opts.boot_timeout, ktap_tool, ex)
		if reported is None:
			return [], None
		why = problems(reported, b.part)
		if why:
			raise HarnessError(f'{log}: {why[0]}')
		return file_text(log).splitlines(keepends=True), reported

	boots = bench_boots(opts, arch, accel)
	keeps: Dict[Tuple[str, Optional[str]], Tuple[BootReport, Optional[tuple]]] = {}
	for b in (b for b in boots if not b.mode):
		log_lines, reported = boot_design(b)
		if reported is not None:	# a dry run's is None
			keeps[b.design, b.clock] = (reported, bench_report.causal(log_lines))
	rounds_of = {}
	for name, _, _ in modes(accel):
		rounds: List[Dict[str, dict]] = [{} for _ in range(opts.bench_pairs)]
		for b in (b for b in boots if b.mode == name):
			log_lines, _ = boot_design(b)
			if not ex.dry:
				rounds[b.round][b.design] = bench_report.storm_results(log_lines, b.name)
		rounds_of[name] = rounds
	if ex.dry:
		return 0
	report = [f'## make bench: Linux {line.name} ({tree.id}), {cpus} vCPUs', '']
	report += ['### Native, on this machine\'s cores (tests/bench/stamp_native.c)', '']
	report += bench_native_report(native_lines)
	report += ['### In the guest', ''] + bench_report.keeps_table(keeps)
	for name, acc, extra in modes(accel):
		report += bench_report.storm_table(name, ' '.join([acc, *extra]), rounds_of[name],
						   bench_report.effects(native_lines, name))
	text = '\n'.join(report) + '\n'
	with open(os.path.join(out, 'report.md'), 'w') as f:
		f.write(text)
	with open(os.path.join(out, 'commit'), 'w') as f:
		f.write(describe() + '\n')
	print('\n' + text, flush=True)
	note(f'report: {os.path.join(out, "report.md")}')
	return 0


def bench_native_report(lines: List[str]) -> List[str]:
	import contextlib
	import io
	buf = io.StringIO()
	with contextlib.redirect_stdout(buf):
		bench_native.report(bench_native.parse(lines))
	return buf.getvalue().splitlines() + ['']
