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

import os
import shutil
from typing import List

import bench_native
import bench_report
from bench_report import DESIGNS
from harness_config import load_arch
from harness_kernel import Kernels, Tree
from harness_guest import KVM, TCG, boot, build_initramfs, qemu_argv
import harness_results
from harness_util import TOP, HarnessError, describe, file_text, note, run, stage

NATIVE_ROUNDS = 31
# What make bench boots: the architecture with the TSC its figures rest on.
ARCH = 'x86_64'
STORM_STATES = ['-l', 'all', '-l', 'exits', '-l', 'overrun']


def check_options(h) -> None:
	"""bench takes no --configs or --arch (it boots runs of its own, on
	ARCH for its TSC): one line."""
	opts = h.opts
	if len(h.lines) != 1:
		raise HarnessError(f'--kernel {opts.kernel}: make bench measures one line, not '
				   + ' '.join(l.name for l in h.lines))


def native(out: str) -> List[str]:
	"""stamp_native on this machine, at SCHED_FIFO priority when root (a
	busy machine would otherwise decide the figures)."""
	bins = os.path.join(out, 'native')
	os.makedirs(bins, exist_ok=True)
	src = os.path.join(TOP, 'tests', 'bench')
	run(['gcc', '-Wall', '-O2', '-pthread', '-o', os.path.join(bins, 'stamp_native'),
	     os.path.join(src, 'stamp_native.c')])
	run(['gcc', '-Wall', '-O2', '-static', '-nostdlib', '-fno-stack-protector', '-o',
	     os.path.join(bins, 'exit_at_once'), os.path.join(src, 'exit_at_once.c')])
	argv = [os.path.join(bins, 'stamp_native'), '-r', str(NATIVE_ROUNDS), '-x', os.path.join(bins, 'exit_at_once')]
	if os.geteuid() == 0:
		argv.append('-f')
	log = os.path.join(out, 'native.txt')
	run(argv, log=log, what='stamp_native')
	return file_text(log).splitlines(keepends=True)


def modes(accel: str):
	"""(name, accelerator, further QEMU options) of each storm mode."""
	if accel == KVM:
		return [('kvm', KVM, [])]
	return [('icount', 'tcg,thread=single', ['-icount', 'shift=3,sleep=off']), ('mttcg', TCG, [])]


def bench(h) -> int:
	check_options(h)
	opts = h.opts
	line = h.lines[0]
	arch = load_arch(ARCH)
	out = os.path.join(opts.out, 'bench')
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	with stage('native: stamp_native on this machine\'s cores'):
		native_lines = native(out)
	with stage('kunit_parser'):
		h.use_kunit_parser()
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	with stage(f'{line.name}: tree'):
		tree.prepare()
	kernels.ensure((ARCH, 'default', d) for d, _, _ in DESIGNS)
	with stage(f'{line.name}: initramfs {ARCH}'):
		initrd = build_initramfs(tree, arch, opts, h.newest_source())
	accel = h.accel_for(arch, kernels.image(ARCH, 'default', 'patched'), initrd, tree.logs)
	cpus = opts.bench_cpus

	def boot_design(design, name, args, acc=accel, extra=()):
		log = os.path.join(out, name + '.log')
		argv = qemu_argv(arch, kernels.image(ARCH, 'default', design), initrd, log, cpus, args, acc,
				 extra=extra)
		with stage(f'{line.name}: bench boot {name}'):
			if not boot(argv, log, opts.boot_timeout):
				raise HarnessError(f'{log}: the boot hung')
		lines = open(log, errors='replace').readlines()
		res = harness_results.parse(lines)
		if res['problems']:
			raise HarnessError(f'{log}: kernel report: {res["problems"][0]["what"]}')
		return lines, res

	keeps = {}
	for design, _, _ in DESIGNS:
		for clock in (None, 'jiffies'):
			args = [f'clocksource={clock}'] if clock else []
			lines, res = boot_design(design, f'keeps-{design}-{clock or "default"}', args)
			if 'cn_proc-selftest' not in res['parts'] or res['parts']['cn_proc-selftest']['exit'] is None:
				raise HarnessError(f'{design}: the selftest did not finish')
			keeps[design, clock] = (res, bench_report.causal(lines))
	report = [f'## make bench: Linux {line.name} ({tree.id}), {cpus} vCPUs', '']
	report += ['### Native, on this machine\'s cores (tests/bench/stamp_native.c)', '']
	report += bench_native_report(native_lines)
	report += ['### In the guest', ''] + bench_report.keeps_table(keeps)
	storm_args = [*opts.storm_args, *STORM_STATES]
	for name, acc, extra in modes(accel):
		rounds = []
		for r in range(opts.bench_pairs):
			order = [d for d, _, _ in DESIGNS]
			order = order[r % len(order):] + order[:r % len(order)]
			results = {}
			for design in order:
				lines, _ = boot_design(design, f'storm-{name}-{r + 1}-{design}',
						       ['cnproc_run=storm', f'cnproc_args="{" ".join(storm_args)}"'], acc, extra)
				results[design] = bench_report.storm_results(lines, f'storm-{name}-{r + 1}-{design}')
			rounds.append(results)
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
