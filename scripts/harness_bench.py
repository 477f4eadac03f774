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
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import bench_native
import bench_report
from bench_report import DESIGNS
from harness_config import DEFAULT_ARCH, Line, Options, load_arch
from harness_kernel import Kernels, Tree, build_order, config_argvs, config_fragments
from harness_guest import (KVM, TCG, accelerator, boot_and_parse, build_initramfs, guest_build_argvs,
			   kselftest_tree_path, qemu_argv)
import harness_results
from harness_results import Why
from harness_util import TOP, HarnessError, describe, file_text, note, run, show, stage

NATIVE_ROUNDS = 31
# What make bench boots: the default architecture, x86_64, whose TSC its
# figures rest on.
ARCH = DEFAULT_ARCH
STORM_STATES = ['-l', 'all', '-l', 'exits', '-l', 'overrun']
# The part of init whose results say what a design keeps.
SELFTEST = 'cn_proc-selftest'


def check_options(opts: Options, lines: Sequence[Line]) -> None:
	"""bench takes no --configs or --arch (it boots runs of its own, on
	ARCH for its TSC): one line."""
	if len(lines) != 1:
		raise HarnessError(f'--kernel {opts.kernel}: make bench measures one line, not '
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


def native(out: str) -> List[str]:
	"""stamp_native on this machine: its output."""
	os.makedirs(os.path.join(out, 'native'), exist_ok=True)
	*builds, argv = native_argvs(out)
	for b in builds:
		run(b)
	log = os.path.join(out, 'native.txt')
	run(argv, log=log, what='stamp_native')
	return file_text(log).splitlines(keepends=True)


def modes(accel: str):
	"""(name, accelerator, further QEMU options) of each storm mode."""
	if accel == KVM:
		return [('kvm', KVM, [])]
	return [('icount', 'tcg,thread=single', ['-icount', 'shift=3,sleep=off']), ('mttcg', TCG, [])]


@dataclasses.dataclass(frozen=True)
class BenchBoot:
	"""One boot of make bench: DESIGN's kernel with ARGS on its command
	line; what a design keeps (MODE '', PART the selftest, CLOCK its
	clocksource) or ROUND of the storm in accelerator MODE."""
	name: str
	design: str
	args: Tuple[str, ...]
	accel: str
	extra: Tuple[str, ...] = ()
	part: Optional[str] = None
	clock: Optional[str] = None
	mode: str = ''
	round: int = 0


def bench_boots(opts: Options, accel: str) -> List[BenchBoot]:
	"""make bench's boots, in order: each design on each clocksource, then
	in each mode BENCH_PAIRS rounds of the storm, every design once a
	round, the first design of each round rotating."""
	boots = [BenchBoot(f'keeps-{design}-{clock or "default"}', design,
			   (f'clocksource={clock}',) if clock else (), accel, part=SELFTEST, clock=clock)
		 for design, _, _ in DESIGNS for clock in (None, 'jiffies')]
	storm = ('cnproc_run=storm', f'cnproc_args="{" ".join([*opts.storm_args, *STORM_STATES])}"')
	for name, acc, extra in modes(accel):
		for r in range(opts.bench_pairs):
			order = [d for d, _, _ in DESIGNS]
			for design in order[r % len(order):] + order[:r % len(order)]:
				boots.append(BenchBoot(f'storm-{name}-{r + 1}-{design}', design, storm, acc, tuple(extra),
						       mode=name, round=r))
	return boots


def dry_run(opts: Options, line: Line) -> int:
	"""The commands make bench would run, none run: stamp_native, the
	designs' kernels (each unless built or in the cache), the guest's
	builds and every boot, with software emulation (KVM is chosen, where
	usable, by a probe boot)."""
	out = os.path.join(opts.out, 'bench')
	arch = load_arch(ARCH)
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	for argv in native_argvs(out):
		show(argv)
	build = kernels.build_dir(ARCH, 'default')
	frags = config_fragments(opts, arch, 'default', kernels.extra_fragments(arch))
	for argv in config_argvs(tree.path, build + '.config', arch, frags, opts.jobs):
		show(argv)
	for _, _, design in build_order((ARCH, 'default', d) for d, _, _ in DESIGNS):
		print(f'  # {ARCH} default {design}, the tree at {design}', flush=True)
		show(kernels.build_argv(arch, 'default'))
	for _, argv in guest_build_argvs(tree, arch, opts, kselftest_tree_path(opts)):
		show(argv)
	initrd = os.path.join(tree.lout, f'initramfs-{arch.name}.cpio.gz')
	for b in bench_boots(opts, TCG):
		show(qemu_argv(arch, kernels.image(ARCH, 'default', b.design), initrd, os.path.join(out, b.name + '.log'),
			       opts.bench_cpus, list(b.args), b.accel, extra=b.extra))
	return 0


def problems(res: dict, part: Optional[str]) -> List[Why]:
	"""Why a boot of make bench does not count, whatever its figures: what
	fails any boot (it hung, its kernel reported a problem), and PART, if
	the boot's figures come from one, not finished."""
	why = harness_results.boot_problems(res)
	if part and (part not in res['parts'] or res['parts'][part]['exit'] is None):
		why.append(Why('part_unfinished', part, f'{part} did not finish'))
	return why


def bench(opts: Options, lines: Sequence[Line], newest_source: Callable[[], str],
	  use_kunit_parser: Callable[[], None]) -> int:
	"""make bench on the one line of LINES; NEWEST_SOURCE gives the source
	the guest's kselftest is built from, USE_KUNIT_PARSER readies the
	parser of the boots' KTAP (both fetch what is not in the cache)."""
	check_options(opts, lines)
	line = lines[0]
	if opts.dry_run:
		return dry_run(opts, line)
	arch = load_arch(ARCH)
	out = os.path.join(opts.out, 'bench')
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	with stage('native: stamp_native on this machine\'s cores'):
		native_lines = native(out)
	with stage('kunit_parser'):
		use_kunit_parser()
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	with stage(f'{line.name}: tree'):
		tree.prepare()
	kernels.ensure((ARCH, 'default', d) for d, _, _ in DESIGNS)
	with stage(f'{line.name}: initramfs {ARCH}'):
		initrd = build_initramfs(tree, arch, opts, newest_source())
	chosen: Dict[str, str] = {}
	accel = accelerator(arch, kernels.image(ARCH, 'default', 'patched'), initrd, tree.logs, chosen)
	cpus = opts.bench_cpus

	def boot_design(b: BenchBoot):
		"""Boot B, judged by problems(): its log's lines and results."""
		log = os.path.join(out, b.name + '.log')
		argv = qemu_argv(arch, kernels.image(ARCH, 'default', b.design), initrd, log, cpus, list(b.args),
				 b.accel, extra=b.extra)
		with stage(f'{line.name}: bench boot {b.name}'):
			res = boot_and_parse(argv, log, opts.boot_timeout)
		why = problems(res, b.part)
		if why:
			raise HarnessError(f'{log}: {why[0]}')
		return file_text(log).splitlines(keepends=True), res

	boots = bench_boots(opts, accel)
	keeps = {}
	for b in (b for b in boots if not b.mode):
		log_lines, res = boot_design(b)
		keeps[b.design, b.clock] = (res, bench_report.causal(log_lines))
	report = [f'## make bench: Linux {line.name} ({tree.id}), {cpus} vCPUs', '']
	report += ['### Native, on this machine\'s cores (tests/bench/stamp_native.c)', '']
	report += bench_native_report(native_lines)
	report += ['### In the guest', ''] + bench_report.keeps_table(keeps)
	for name, acc, extra in modes(accel):
		rounds: List[Dict[str, dict]] = [{} for _ in range(opts.bench_pairs)]
		for b in (b for b in boots if b.mode == name):
			log_lines, _ = boot_design(b)
			rounds[b.round][b.design] = bench_report.storm_results(log_lines, b.name)
		report += bench_report.storm_table(name, ' '.join([acc, *extra]), rounds,
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
