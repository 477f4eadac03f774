#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""harness.py COMMAND: the harness of the cn_proc ordered timestamps series,
one process per command (make's targets call it; see the Makefile):

  boot-test      build base and patched kernels of the selected lines,
                 boot each in QEMU with the selftest (and the real
                 clients), print base vs patched; exit 0 only if every
                 boot ended as configs/runs.toml expects
  check          everything: the options, per-file diffs, unit tests,
                 static checks, litmus tests, kunit.py, boot-test
  static-checks  the static checks of each selected line's series
  litmus         the litmus tests of tests/litmus/ with herd7
  kunit          tools/testing/kunit/kunit.py run --kunitconfig=kernel/time
                 on the newest line's patched tree (UML)
  unit-tests     what runs on the host without a test kernel
  bench          what the series costs (make bench)
  file-diffs     write the per-file diffs of the series [--check: compare]
  results        RESULTS, from the last run's tables (and make bench's report)

Options are make variables, read from the environment (README, Options);
every one is checked before anything is fetched or built.
"""

import argparse
import datetime
import os
import shutil
import sys
import time
from typing import Dict, List

sys.dont_write_bytecode = True
from harness_config import (Boot, Line, Options, load_arch, load_lines, load_runs, select_boots,  # noqa: E402
			    select_lines)
from harness_kernel import Kernels, Tree, fetch_source  # noqa: E402
from harness_qemu import boot, build_initramfs, choose_accel, qemu_argv  # noqa: E402
import harness_results  # noqa: E402
from harness_util import (SCRIPTS, TOP, HarnessError, cache_dir, cache_get, cache_key, cache_put, describe,  # noqa: E402
			  file_text, note, output, run, stage)


class Harness:
	"""What one command works on, checked whole when it is made."""

	def __init__(self, env=None):
		self.opts = Options.from_env(env)
		self.all_lines = load_lines()
		self.newest = self.all_lines[0]
		self.lines = select_lines(self.opts, self.all_lines)
		self.runs = load_runs(self.all_lines)
		self.accel: Dict[str, str] = {}
		os.makedirs(os.path.join(self.opts.out, 'logs'), exist_ok=True)

	def boots(self) -> Dict[str, List[Boot]]:
		return select_boots(self.runs, self.lines, self.opts)

	# The newest line's pristine source: KSRC if it is that line.
	def newest_source(self) -> str:
		if self.opts.ksrc and self.lines[0].name == self.newest.name:
			return os.path.realpath(self.opts.ksrc)
		return fetch_source(self.newest, self.opts)

	def use_kunit_parser(self) -> None:
		"""KTAP is read with the newest line's tools/testing/kunit."""
		harness_results.use_kunit_parser(os.path.join(self.newest_source(), 'tools/testing/kunit'))

	# boot-test ------------------------------------------------------

	def boot_test(self) -> int:
		boots = self.boots()
		with open(os.path.join(self.opts.out, 'commit'), 'w') as f:
			f.write(describe() + '\n')
		with stage('kunit_parser'):
			self.use_kunit_parser()
		print(f'logs: {self.opts.out}/logs/LINE/; results: {self.opts.out}/LINE/results/', flush=True)
		return self.each_line('boot test', lambda line: self.boot_line(line, boots[line.name]))

	def each_line(self, what: str, step) -> int:
		"""STEP on every chosen line, the others still run when one fails
		(False or a HarnessError); 0 only if none did."""
		failed = []
		for line in self.lines:
			try:
				if step(line) is False:
					failed.append(line.name)
			except HarnessError as e:
				print(f'error: {e}', flush=True)
				failed.append(line.name)
		if failed:
			print(f'error: {what} failed for: {" ".join(failed)}', flush=True)
			return 1
		print(f'{what}: passed for {" ".join(l.name for l in self.lines)}', flush=True)
		return 0

	def accel_for(self, arch, image: str, initrd: str, logs: str) -> str:
		"""The accelerator of an architecture, chosen once a process."""
		if arch.name not in self.accel:
			with stage(f'accelerator for {arch.name}'):
				self.accel[arch.name] = choose_accel(arch, image, initrd, logs)
			note(f'accelerator: {self.accel[arch.name]}')
		return self.accel[arch.name]

	def boot_line(self, line: Line, boots: List[Boot]) -> bool:
		tree = Tree(line, self.opts)
		kernels = Kernels(tree, self.opts)
		with stage(f'{line.name}: tree'):
			tree.prepare()
		kernels.ensure(b.kernel for b in boots)
		# A wrong instruction sequence fails the line, after its boots.
		bad_helper = self.check_helper_instructions(line, kernels, boots)
		archs = list(dict.fromkeys(b.run.arch for b in boots))
		initrd = {}
		for a in archs:
			with stage(f'{line.name}: initramfs {a}'):
				initrd[a] = build_initramfs(tree, load_arch(a), self.opts, self.newest_source())
		results = os.path.join(tree.lout, 'results')
		shutil.rmtree(results, ignore_errors=True)
		judged = {a: [] for a in archs}
		for b in boots:
			arch = load_arch(b.run.arch)
			image = kernels.image(*b.kernel)
			accel = self.accel_for(arch, image, initrd[arch.name], tree.logs)
			args = list(b.run.kernel_cmdline())
			prog_args = self.opts.storm_args if b.run.mode == 'storm' else self.opts.selftest_args
			if prog_args and b.run.mode != 'kunit':
				args.append(f'cnproc_args="{" ".join(prog_args)}"')
			log = os.path.join(tree.logs, f'boot-{arch.name}-{b.name}.log')
			argv = qemu_argv(arch, image, initrd[arch.name], log, b.run.cpus, args, accel, b.run.cpu_model)
			with stage(f'{line.name}: boot {arch.name} {b.run.name} {b.variant} (-smp {b.run.cpus}'
				   f'{", " + " ".join(b.run.kernel_cmdline()) if b.run.kernel_cmdline() else ""})'):
				ended = boot(argv, log, self.opts.boot_timeout)
			res = harness_results.parse_log(log, not ended)
			os.makedirs(os.path.join(results, arch.name), exist_ok=True)
			harness_results.save(res, os.path.join(results, arch.name, b.name + '.json'))
			judged[arch.name].append({'boot': b, 'res': res, 'why': harness_results.verdict(res, b)})
		ok = True
		for a in archs:
			title = f'Linux {line.name} ({tree.id}) on {a}, QEMU -accel {self.accel[a]}'
			out = harness_results.report(title, judged[a])
			print('\n' + '\n'.join(out), flush=True)
			with open(os.path.join(results, f'{a}.md'), 'w') as f:
				f.write('\n'.join(out[:-1]).rstrip() + '\n\n' + out[-1] + '\n')
			ok = ok and not any(j['why'] for j in judged[a])
		for b in bad_helper:
			print(f'error: {b}', flush=True)
		return ok and not bad_helper

	def check_helper_instructions(self, line: Line, kernels: Kernels, boots: List[Boot]) -> List[str]:
		"""An arm64 kernel with the series must contain the helper's atomics
		as tests/litmus/ models them: what does not."""
		bad = []
		for arch, flavour, variant in dict.fromkeys(b.kernel for b in boots):
			if arch != 'arm64' or variant != 'patched':
				continue
			import litmus
			dis = os.path.join(kernels.image_dir(arch, flavour, variant), 'helper.dis')
			with stage(f'{line.name}: {arch} {flavour} {variant}: the helper\'s atomics as tests/litmus/ models them'):
				problems = litmus.check_arm64_sequence(file_text(dis))
				note(f'{dis}: ' + ('; '.join(problems) if problems else 'as modelled'))
			if problems:
				bad.append(f'{dis}: the helper\'s atomics are not those tests/litmus/aarch64-*.litmus model: '
					   + '; '.join(problems))
		return bad

	# static checks, unit tests, file diffs --------------------------

	def static_checks(self) -> int:
		from harness_static import StaticChecks
		return self.each_line('static checks', lambda line: StaticChecks(line, self.opts, self.newest.name).run_all())

	def kselftest_headers(self) -> str:
		"""Where the selftest's host test takes kselftest.h,
		kselftest_harness.h and lib.mk from: KSRC, or the newest line's
		source if it is in the cache already (nothing is downloaded for
		three files); '' otherwise."""
		if self.opts.ksrc:
			if not os.path.isfile(os.path.join(self.opts.ksrc, 'tools/testing/selftests/kselftest_harness.h')):
				raise HarnessError(f'KSRC={self.opts.ksrc} is not a kernel tree with '
						   'tools/testing/selftests/kselftest_harness.h')
			return self.opts.ksrc
		base = os.path.join(cache_dir(), 'src')
		found = [os.path.join(base, d) for d in sorted(os.listdir(base))
			 if d.startswith(self.newest.package + '_') and os.path.isfile(os.path.join(base, d, '.unpacked'))] \
			if os.path.isdir(base) else []
		return found[-1] if found else ''

	def unit_tests(self) -> int:
		src = self.kselftest_headers()
		skipped = []
		with stage('selftest checks on crafted streams'):
			if not src:
				note(f'SKIPPED: no KSRC and no {self.newest.package} in the cache for the kselftest headers')
				skipped.append('the selftest host test')
			else:
				work = os.path.join(self.opts.out, 'unit')
				shutil.rmtree(work, ignore_errors=True)
				os.makedirs(os.path.join(work, 'selftests'))
				for f in ('kselftest.h', 'kselftest_harness.h', 'lib.mk'):
					shutil.copy(os.path.join(src, 'tools/testing/selftests', f), os.path.join(work, 'selftests'))
				shutil.copytree(os.path.join(TOP, 'tools/testing/selftests/connector'),
						os.path.join(work, 'selftests/connector'))
				run(['make', '-s', '-C', os.path.join(work, 'selftests/connector'), f'OUTPUT={work}', 'host_test'])
				run([os.path.join(work, 'event_check_test')])
		with stage('the harness, the log parser, litmus and bench reports (unittest)'):
			env = {'PYTHONDONTWRITEBYTECODE': '1'}
			if src:
				env['KUNIT_TOOL'] = os.path.join(src, 'tools/testing/kunit')
			else:
				skipped.append('the log parser tests (no kunit_parser)')
			run([sys.executable, '-m', 'unittest', 'discover', '-s', os.path.join(TOP, 'tests'),
			     '-p', '*_test.py'], env=env, what='the unit tests')
		with stage('shellcheck'):
			run(['shellcheck', '-x', *shell_scripts()])
		print('unit tests: passed' + (f' but for {", ".join(skipped)}: SKIPPED' if skipped else ''), flush=True)
		return 0

	def file_diffs(self, check: bool) -> int:
		import harness_diffs
		return harness_diffs.file_diffs(self.newest, fetch_source(self.newest, self.opts), check)

	# kunit.py ---------------------------------------------------------

	def kunit(self) -> int:
		"""kunit.py as the timekeeping maintainers run it, on the newest
		line's patched tree: its result is kunit.py's. The run's output is
		cached under the key of what it is built from, and a cached run is
		read again with kunit.py parse."""
		line = self.newest
		tree = Tree(line, self.opts)
		with stage(f'{line.name}: tree'):
			tree.prepare()
		with stage(f'{line.name}: tree at patched'):
			tree.patched()
		build = os.path.join(tree.lout, 'kunit')
		kunit_py = os.path.join(tree.path, 'tools/testing/kunit/kunit.py')
		key = cache_key(tree.id, tree.digest, file_text(os.path.join(tree.path, 'kernel/time/.kunitconfig')),
				output(['gcc', '--version']).splitlines()[0], file_text(kunit_py))
		saved = os.path.join(tree.lout, 'kunit-result')
		if cache_get('kunit', key, saved):
			note(f'kunit.py run: from the cache ({key}); its kernel output read again by kunit.py parse')
			with stage('kunit.py parse'):
				res = run([kunit_py, 'parse', os.path.join(saved, 'test.log')], check=False, cwd=tree.path)
		else:
			with stage(f'{line.name}: kunit.py run --kunitconfig=kernel/time (UML)'):
				res = run([kunit_py, 'run', '--kunitconfig=kernel/time', f'--build_dir={build}',
					   f'--jobs={self.opts.jobs}'], check=False, cwd=tree.path)
			shutil.rmtree(saved, ignore_errors=True)
			os.makedirs(saved)
			if os.path.isfile(os.path.join(build, 'test.log')):
				shutil.copy(os.path.join(build, 'test.log'), saved)
				if res.returncode == 0:
					cache_put(saved, 'kunit', key)
		if res.returncode:
			print('error: kunit.py: the KUnit cases did not all pass', flush=True)
			return 1
		print('kunit.py: passed', flush=True)
		return 0

	# litmus ---------------------------------------------------------

	def litmus(self) -> int:
		import litmus
		with stage('litmus tests (herd7)'):
			return litmus.main(['run', '--tree', self.newest_source()])

	# check ----------------------------------------------------------

	def check(self) -> int:
		start = time.monotonic()
		self.boots()	# the selection, checked before anything is fetched
		steps = [('per-file diffs', lambda: self.file_diffs(check=True)),
			 ('unit tests', self.unit_tests),
			 ('static checks', self.static_checks),
			 ('litmus tests', self.litmus),
			 ('kunit.py', self.kunit),
			 ('boot test', self.boot_test)]
		for name, step in steps:
			print(f'[{time.strftime("%H:%M:%S")}] make check: {name}', flush=True)
			if step() != 0:
				print(f'error: make check: {name} failed', flush=True)
				return 1
		s = int(time.monotonic() - start)
		what = ' '.join(filter(None, [f'KERNEL={self.opts.kernel or "all"}',
					      self.opts.ksrc and f'KSRC={self.opts.ksrc}',
					      self.opts.configs and f'CONFIGS={" ".join(self.opts.configs)}',
					      self.opts.arch and f'ARCH={self.opts.arch}']))
		msg = f'make check ({what}): passed in {s // 60}m{s % 60}s'
		print(msg, flush=True)
		with open(os.path.join(self.opts.out, 'check.time'), 'w') as f:
			f.write(msg + '\n')
		return 0

	# results --------------------------------------------------------

	def publish(self) -> int:
		commit = os.path.join(self.opts.out, 'commit')
		tables = []
		for line in self.all_lines:
			d = os.path.join(self.opts.out, line.name, 'results')
			# The default architecture's table first.
			for f in sorted(os.listdir(d) if os.path.isdir(d) else [], key=lambda f: (f != 'x86_64.md', f)):
				t = os.path.join(d, f)
				# Not an older run's.
				if f.endswith('.md') and os.path.isfile(commit) and os.path.getmtime(t) >= os.path.getmtime(commit):
					tables.append(t)
		if not tables:
			raise HarnessError(f'no results in {self.opts.out}: run make boot-test or make check first')
		when = datetime.datetime.utcfromtimestamp(os.path.getmtime(tables[0])).strftime('%Y-%m-%d')
		out = ['Results of the last run', '=======================', '',
		       f'Generated by make results on {datetime.datetime.utcnow():%Y-%m-%d} from {self.opts.out};',
		       f'the boots ran on {when}, at commit {file_text(commit).strip()},',
		       f'{os.cpu_count()} cpus.',
		       'Each cell is base / patched; see configs/runs.toml for what each run',
		       'boots and expects.']
		kernels = harness_results.kernels_tested([file_text(t) for t in tables])
		if kernels:
			out += ['', kernels]
		ct = os.path.join(self.opts.out, 'check.time')
		if os.path.isfile(ct):
			out += ['', file_text(ct).strip()]
		for t in tables:
			out += ['', file_text(t).strip()]
		# make bench's report, when the same OUT has one.
		bench = os.path.join(self.opts.out, 'bench', 'report.md')
		if os.path.isfile(bench):
			bc = os.path.join(self.opts.out, 'bench', 'commit')
			if os.path.isfile(bc):
				out += ['', f'make bench ran at commit {file_text(bc).strip()}.']
			out += ['', file_text(bench).strip()]
		with open(os.path.join(TOP, 'RESULTS'), 'w') as f:
			f.write('\n'.join(out) + '\n')
		note('wrote RESULTS')
		return 0

	# bench ----------------------------------------------------------

	def bench(self) -> int:
		import harness_bench
		return harness_bench.bench(self)




def shell_scripts() -> List[str]:
	return [os.path.join(SCRIPTS, f) for f in sorted(os.listdir(SCRIPTS)) if f.endswith('.sh')] + \
		[os.path.join(TOP, p) for p in ('tests/init', 'tests/clients/run.sh', '.ci/run')]


COMMANDS = {
	'boot-test': Harness.boot_test,
	'check': Harness.check,
	'static-checks': Harness.static_checks,
	'litmus': Harness.litmus,
	'kunit': Harness.kunit,
	'unit-tests': Harness.unit_tests,
	'bench': Harness.bench,
	'file-diffs': lambda h: h.file_diffs(check=False),
	'check-file-diffs': lambda h: h.file_diffs(check=True),
	'results': Harness.publish,
	'check-options': lambda h: (h.boots(), 0)[1],
}


def main(argv: List[str]) -> int:
	parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
					 formatter_class=argparse.RawDescriptionHelpFormatter)
	parser.add_argument('command', choices=COMMANDS)
	args = parser.parse_args(argv)
	try:
		h = Harness()
		if args.command == 'static-checks' and h.opts.arch:
			raise HarnessError(f'ARCH={h.opts.arch}: the static checks are every configuration of '
					   'configs/lines.toml; ARCH selects boot-test\'s runs')
		return COMMANDS[args.command](h)
	except HarnessError as e:
		print(f'error: {e}', file=sys.stderr, flush=True)
		return 1


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
