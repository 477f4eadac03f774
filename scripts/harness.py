#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""harness.py COMMAND [OPTIONS]: the harness of the cn_proc ordered
timestamps series, one process per command (the Makefile's targets call
it, its variables become the options); every option and every file of
configs/ is checked before anything is fetched or built.
"""

import argparse
import datetime
import os
import re
import shlex
import shutil
import sys
import textwrap
import time
from typing import Callable, Dict, List, Tuple

sys.dont_write_bytecode = True
from harness_config import (DEFAULT_ARCH, Boot, Line, Options, kunit_cases, load_lines, load_runs,  # noqa: E402
			    select_boots, select_lines, series_patches)
from harness_kernel import Tree, cached_source, fetch_source  # noqa: E402
import harness_boot  # noqa: E402
from harness_boot import KUNIT_TOOL  # noqa: E402
from harness_plan import Cmd, Dry, Real  # noqa: E402
import harness_results  # noqa: E402
import harness_util  # noqa: E402
from harness_util import (SCRIPTS, TOP, HarnessError, cache_get, cache_key, cache_put, file_text, note,  # noqa: E402
			  output, run, show, stage, stage_summary)


def selftest_host_test_argv(selftests: str, work: str) -> List[str]:
	"""The build of the host test of the selftest's checks
	(tests/selftest/event_check_test.c, not part of its posting), against
	the kselftest_harness.h of SELFTESTS, into WORK/event_check_test."""
	connector = os.path.join(TOP, 'tools/testing/selftests/connector')
	return ['gcc', '-Wall', '-Werror', '-O2', '-I', selftests, '-I', connector, '-o',
		os.path.join(work, 'event_check_test'), os.path.join(TOP, 'tests/selftest/event_check_test.c'),
		os.path.join(connector, 'event_check.c')]


class Harness:
	"""What one command works on, checked whole when it is made."""

	def __init__(self, opts: Options, target: Tuple[str, str, str] = ('', '', ''), log: str = ''):
		self.opts = opts
		self.target = target	# boot's and parse's LINE RUN VARIANT
		self.log = log		# parse's LOG
		self.all_lines = load_lines()
		self.newest = self.all_lines[0]
		self.lines = select_lines(self.opts, self.all_lines)
		self.runs = load_runs(self.all_lines)
		# What runs the commands: the real run's or the dry run's executor.
		self.ex = Dry() if opts.dry_run else Real()
		os.makedirs(os.path.join(self.opts.out, 'logs'), exist_ok=True)

	def boots(self) -> Dict[str, List[Boot]]:
		return select_boots(self.runs, self.lines, self.opts)

	def newest_source(self, fetch: bool = True) -> str:
		"""The newest line's pristine source (harness_boot.newest_source()),
		or, unless FETCH, the one in the cache, '' if it is not there."""
		if fetch:
			return harness_boot.newest_source(self.opts, self.lines, self.newest, self.ex)
		if self.opts.ksrc and self.lines[0].name == self.newest.name:
			return os.path.realpath(self.opts.ksrc)
		return cached_source(self.newest) or ''

	def boot_test(self) -> int:
		return harness_boot.boot_test(self.opts, self.lines, self.boots(), self.newest, self.ex)

	def target_boots(self) -> Tuple[Line, List[Boot]]:
		"""The line and the boots (one) of the target LINE RUN VARIANT."""
		name, run, variant = self.target
		line = [l for l in self.all_lines if l.name == name]
		if not line:
			raise HarnessError(f'no line {name}; lines: {" ".join(l.name for l in self.all_lines)}')
		boots = [b for b in select_boots(self.runs, line, Options(configs=(run,)))[name] if b.variant == variant]
		if not boots:
			raise HarnessError(f'run {run} of Linux {name} boots no {variant} kernel')
		return line[0], boots

	def boot_one(self) -> int:
		"""boot LINE RUN VARIANT: one kernel of the cache booted and judged."""
		line, boots = self.target_boots()
		return harness_boot.boot_one(self.opts, line, boots, self.lines, self.newest, self.ex)

	def parse_one(self) -> int:
		"""parse LOG LINE RUN VARIANT: a saved serial log judged as the boot
		of LINE RUN VARIANT (with --selftest-args) judges it, booting
		nothing."""
		line, boots = self.target_boots()
		if not os.path.isfile(self.log):
			raise HarnessError(f'{self.log}: no such file')
		return harness_boot.parse_one(self.opts, boots[0], self.log, self.lines, self.newest, self.ex)

	# static checks, unit tests, file diffs --------------------------

	def static_checks(self) -> int:
		from harness_static import StaticChecks
		return harness_boot.each_line(self.lines, 'static checks',
					      lambda line: StaticChecks(line, self.opts, self.newest.name, self.ex).run_all(),
					      self.ex)

	def unit_tests(self, required: bool = False) -> int:
		"""The selftest's host test, the harness's unit tests, its mutants
		held against the code, mypy, shellcheck.
		What needs the newest line's source (the kselftest headers,
		kunit_parser) takes it from KSRC or the cache, where make check
		(REQUIRED) has fetched it; make unit-tests alone fetches nothing and
		says SKIPPED, with the count, for what it cannot run."""
		src = self.newest_source(fetch=required)
		skipped = []
		with stage('selftest checks on crafted streams'):
			if not src:
				skipped.append('the selftest host test')
			else:
				work = os.path.join(self.opts.out, 'unit')
				shutil.rmtree(work, ignore_errors=True)
				os.makedirs(work)
				run(selftest_host_test_argv(os.path.join(src, 'tools/testing/selftests'), work))
				run([os.path.join(work, 'event_check_test')])
		with stage('the harness, the log parser, litmus and bench reports (unittest)'):
			env = {'PYTHONDONTWRITEBYTECODE': '1', 'KUNIT_TOOL': os.path.join(src, KUNIT_TOOL) if src else ''}
			log = os.path.join(self.opts.out, 'logs', 'unit-tests.log')
			run([sys.executable, '-m', 'unittest', 'discover', '-s', os.path.join(TOP, 'tests'),
			     '-p', '*_test.py'], env=env, log=log, what='the unit tests')
			summary = file_text(log).strip().splitlines()
			note(' '.join(summary[-3:]))
			n = re.search(r'skipped=(\d+)', summary[-1] if summary else '')
			if n and required:
				raise HarnessError(f'{n.group(1)} unit tests skipped (see {log}): make check skips none')
			if n:
				skipped.append(f'{n.group(1)} unit tests')
		with stage('the mutants of tests/harness-mutants.toml fit the code'):
			# Each one's original text once in its file, or make mutation
			# could not apply it (a test of this inside the unit tests would
			# kill every mutant).
			import harness_mutation
			note(f'{len(harness_mutation.load_mutants())} mutants')
		with stage('mypy (scripts/mypy.ini, as kunit_tool\'s run_checks.py)'):
			run(['mypy', '--config-file', os.path.join(SCRIPTS, 'mypy.ini'), SCRIPTS])
		with stage('shellcheck'):
			run(['shellcheck', '-x', *shell_scripts()])
		if skipped:
			print(f'unit tests: SKIPPED {", ".join(skipped)}: no KSRC of Linux {self.newest.name} and no '
			      f'{self.newest.package} in the cache (make check fetches it)', flush=True)
		print('unit tests: passed', flush=True)
		return 0

	def file_diffs(self, check: bool) -> int:
		import harness_diffs
		return harness_diffs.file_diffs(self.newest, fetch_source(self.newest, self.opts), check)

	def mails(self) -> int:
		"""The newest line's series as mails in the poster's name
		(harness_mails.py)."""
		import harness_mails
		return harness_mails.mails(self.newest, self.newest_source, self.opts.out)

	# kunit.py ---------------------------------------------------------

	def kunit(self) -> int:
		import harness_kunit
		return harness_kunit.kunit(self.opts, self.newest, self.ex)

	# litmus ---------------------------------------------------------

	def litmus(self) -> int:
		"""litmus.py run, which prints each herd7 command as it runs it,
		on the newest line's memory model."""
		tree = self.newest_source()
		with self.ex.stage('litmus tests (herd7)'):
			return self.ex.run(Cmd.of([sys.executable, os.path.join(SCRIPTS, 'litmus.py'), 'run', '--tree', tree,
						   '--jobs', str(self.opts.jobs)], check=False)).returncode

	# check ----------------------------------------------------------

	def check(self) -> int:
		"""Each step in turn, the first that fails ends it; the time of
		every stage at the end, passed or not."""
		start = time.monotonic()
		self.boots()	# the selection, checked before anything is fetched
		if self.opts.dry_run:
			for name, step in self.check_steps():
				print(f'# make check: {name}', flush=True)
				if name in DRY_RUN_STEPS:
					step()
			return 0
		try:
			for name, step in self.check_steps():
				with stage(f'make check: {name}'):
					if step() != 0:
						raise HarnessError(f'make check: {name} failed')
		finally:
			print('\nstage times:\n' + '\n'.join(stage_summary()), flush=True)
		s = int(time.monotonic() - start)
		what = ' '.join(filter(None, [f'KERNEL={self.opts.kernel or "all"}',
					      f'KSRC={self.opts.ksrc}' if self.opts.ksrc else '',
					      f'CONFIGS={" ".join(self.opts.configs)}' if self.opts.configs else '',
					      f'ARCH={self.opts.arch}' if self.opts.arch else '']))
		msg = f'make check ({what}): passed in {s // 60}m{s % 60}s'
		print(msg, flush=True)
		with open(os.path.join(self.opts.out, 'check.time'), 'w') as f:
			f.write(msg + '\n')
		return 0

	def check_steps(self) -> List[Tuple[str, Callable[[], int]]]:
		"""make check's steps, in order: (name, the step)."""
		return [('per-file diffs', lambda: self.file_diffs(check=True)),
			('unit tests', lambda: self.unit_tests(required=True)),
			('static checks', self.static_checks),
			('litmus tests', self.litmus),
			('kunit.py', self.kunit),
			('boot test', self.boot_test)]

	# results --------------------------------------------------------

	def results(self) -> int:
		commit = os.path.join(self.opts.out, 'commit')
		tables = []
		for line in self.all_lines:
			d = os.path.join(self.opts.out, line.name, 'results')
			# The default architecture's table first.
			for name in sorted(os.listdir(d) if os.path.isdir(d) else [], key=lambda n: (n != DEFAULT_ARCH + '.md', n)):
				t = os.path.join(d, name)
				# Not an older run's.
				if name.endswith('.md') and os.path.isfile(commit) and os.path.getmtime(t) >= os.path.getmtime(commit):
					tables.append(t)
		if not tables:
			raise HarnessError(f'no results in {self.opts.out}: run make boot-test or make check first')
		when = datetime.datetime.utcfromtimestamp(os.path.getmtime(tables[0])).strftime('%Y-%m-%d')
		out = ['Results of the last run', '=======================', '',
		       f'Generated by make results on {datetime.datetime.utcnow():%Y-%m-%d} from {self.opts.out};',
		       f'the boots ran on {when}, at commit {file_text(commit).strip()},',
		       f'{os.cpu_count()} cpus.',
		       'Each cell is base / patched: base is the tree with the series\' first',
		       'patch (ktime_stamp_ns(), called by nothing; cn_proc as in the pristine',
		       'tree), patched the whole series; see configs/runs.toml for what each',
		       'run boots and expects.']
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

	# mutation -------------------------------------------------------

	def mutation(self) -> int:
		"""Each mutant of tests/harness-mutants.toml alone against the unit
		tests; the newest line's kunit_parser is required (fetched)."""
		import harness_mutation
		mutants = harness_mutation.load_mutants()
		src = self.newest_source()
		return harness_mutation.mutation(os.path.join(src, KUNIT_TOOL), self.opts.jobs, mutants)

	# bench ----------------------------------------------------------

	def bench(self) -> int:
		import harness_bench
		return harness_bench.bench(self.opts, self.lines, self.newest, self.ex)




def shell_scripts() -> List[str]:
	return [os.path.join(SCRIPTS, f) for f in sorted(os.listdir(SCRIPTS)) if f.endswith('.sh')] + \
		[os.path.join(TOP, p) for p in ('tests/init', 'tests/clients/run.sh', '.ci/run')]


# The flags, each an Options field; the default -h shows is the field's.
FLAGS = {
	'kernel': ('LINES', 'the kernel lines of configs/lines.toml, "7.3 6.1" or all; the newest by '
		   'default (check: all; with --ksrc, its version)'),
	'ksrc': ('DIR', 'your own kernel tree instead of the Debian package; copied, never modified'),
	'configs': ('RUNS', 'only these runs of configs/runs.toml, e.g. "smp2 rt"; every run by default'),
	'arch': ('ARCH', 'only the runs that boot this architecture (configs/arch/ARCH.py); every one by default'),
	'selftest_args': ('ARGS', "the selftest's load: -w workers, -n events, -t seconds"),
	'out': ('DIR', 'where trees, builds, logs and results go'),
	'jobs': ('N', 'make -j for kernel builds'),
	'boot_timeout': ('SECONDS', 'seconds before a boot counts as hung'),
	'debs_mirror': ('URL', "the Debian mirror; the machine's apt mirror by default"),
	'clients_suite': ('SUITE', "the Debian suite of keepalived, extrace and cgrulesengd (sid's run beside them)"),
	'bench_pairs': ('N', 'rounds of the storm, each booting every design once, in each accelerator mode'),
	'bench_cpus': ('N', "the bench guests' CPUs"),
	'storm_args': ('ARGS', "the storm's -w workers, -t seconds a round and -r rounds"),
}
# make check's steps that build or boot, which --dry-run shows; the
# others (per-file diffs, unit tests) build and boot nothing.
DRY_RUN_STEPS = ('static checks', 'litmus tests', 'kunit.py', 'boot test')
NO_CACHE = ('use no entry of the cache: make every source tree, .config, kernel, check, kunit.py run, '
	    'herd7 and guest program again, each replacing its entry')
# Every command takes these; the others, those named.
GENERAL = ('ksrc', 'out', 'jobs', 'debs_mirror', 'clients_suite')
BOOTS = ('kernel', 'configs', 'arch', 'selftest_args', 'boot_timeout')
COMMANDS: Dict[str, Tuple[Callable[[Harness], int], Tuple[str, ...], str]] = {
	'boot-test': (Harness.boot_test, BOOTS + ('dry_run',),
		      'build base and patched kernels, boot them in QEMU, print base vs patched'),
	'boot': (Harness.boot_one, ('selftest_args', 'boot_timeout', 'dry_run'),
		 'boot one kernel of the cache (LINE RUN VARIANT, e.g. 7.3 smp2 patched) and judge it'),
	'parse': (Harness.parse_one, ('selftest_args',),
		  "judge a saved serial log (LOG LINE RUN VARIANT) as boot's test of that kernel does, booting nothing"),
	'check': (Harness.check, BOOTS + ('dry_run',), 'everything: per-file diffs, unit tests, static checks, litmus, kunit.py, '
		  'boot-test'),
	'check-options': (lambda h: (h.boots(), 0)[1], BOOTS, 'check the options and configs/, do nothing else'),
	'static-checks': (Harness.static_checks, ('kernel', 'dry_run'), "the static checks of each line's series"),
	'litmus': (Harness.litmus, ('dry_run',), 'the litmus tests of tests/litmus/ with herd7'),
	'kunit': (Harness.kunit, ('dry_run',), 'kunit.py run --kunitconfig=kernel/time on the newest line, x86_64 '
		  'with 2 CPUs; every KUnit case of the series must run'),
	'unit-tests': (Harness.unit_tests, (), "the harness's unit tests, the selftest's host test, shellcheck"),
	'mutation': (Harness.mutation, (), 'each mutant of tests/harness-mutants.toml alone against the unit tests'),
	'bench': (Harness.bench, ('kernel', 'boot_timeout', 'bench_pairs', 'bench_cpus', 'storm_args', 'dry_run'),
		  'what the series and the designs it was chosen over cost and keep'),
	'file-diffs': (lambda h: h.file_diffs(check=False), (), 'write the per-file diffs of the series'),
	'check-file-diffs': (lambda h: h.file_diffs(check=True), (), 'compare the per-file diffs with the series'),
	'results': (Harness.results, (), "RESULTS, from the last run's tables"),
	'mails': (Harness.mails, (), 'the series as mails for git send-email, From: and Signed-off-by: your git identity'),
}


def every_option() -> str:
	"""For -h: every flag, its default and the commands that take it."""
	defaults = Options()
	out = ['options (harness.py COMMAND -h for one command\'s):']
	for f, (metavar, what) in FLAGS.items():
		default = getattr(defaults, f)
		default = ' '.join(default) if isinstance(default, tuple) else default
		if f == 'jobs':
			default = f'the number of CPUs, {default}'
		cmds = 'every command' if f in GENERAL else ', '.join(c for c, (_, flags, _) in COMMANDS.items()
									if f in flags)
		out.append(f'  --{f.replace("_", "-")} {metavar}' + (f' (default: {default})' if default != '' else ''))
		out.append(textwrap.fill(f'{what}; {cmds}', 78, initial_indent=' ' * 6, subsequent_indent=' ' * 6))
	out.append('  --no-cache')
	out.append(textwrap.fill(NO_CACHE + '; every command', 78, initial_indent=' ' * 6, subsequent_indent=' ' * 6))
	out.append('  --dry-run')
	out.append('      print every make and QEMU command, run none; '
		   + ', '.join(c for c, (_, flags, _) in COMMANDS.items() if 'dry_run' in flags))
	return '\n'.join(out)


def parser() -> argparse.ArgumentParser:
	p = argparse.ArgumentParser(prog='harness.py', description=__doc__.split('\n\n')[0],
				    epilog=every_option(), formatter_class=argparse.RawDescriptionHelpFormatter)
	sub = p.add_subparsers(dest='command', required=True, metavar='COMMAND')
	defaults = Options()
	for name, (_, flags, what) in COMMANDS.items():
		c = sub.add_parser(name, help=what, description=what)
		if name == 'parse':
			c.add_argument('log', metavar='LOG', help='a serial log, e.g. out/logs/7.3/boot-x86_64-smp2.patched.log')
		if name in ('boot', 'parse'):
			c.add_argument('line', metavar='LINE')
			c.add_argument('run', metavar='RUN')
			c.add_argument('variant', metavar='VARIANT', help='base, patched or a mutant')
		for f in GENERAL + tuple(x for x in flags if x != 'dry_run'):
			metavar, what = FLAGS[f]
			default = getattr(defaults, f)
			if isinstance(default, tuple):
				default = ' '.join(default)
			if f == 'jobs':
				default = f'the number of CPUs, {default}'
			c.add_argument('--' + f.replace('_', '-'), metavar=metavar,
				       help=what + (f' (default: {default})' if default not in ('', None) else ''))
		c.add_argument('--no-cache', action='store_true', help=NO_CACHE)
		if 'dry_run' in flags:
			c.add_argument('--dry-run', action='store_true',
				       help='print every make and QEMU command it would run, run none')
	return p


def main(argv: List[str]) -> int:
	try:
		args = parser().parse_args(argv)
	except SystemExit as e:		# -h, or a usage error (argparse has said it)
		return e.code if isinstance(e.code, int) else 2
	harness_util.STAGES.clear()
	func, flags, _ = COMMANDS[args.command]
	given = {f: getattr(args, f, None) for f in GENERAL + flags}
	given['no_cache'] = args.no_cache
	# check works on every line unless told otherwise.
	if args.command == 'check' and not given['kernel'] and not given['ksrc']:
		given['kernel'] = 'all'
	try:
		opts = Options.parse(**given)
		harness_util.bypass_cache(opts.no_cache)
		h = Harness(opts,
			    (args.line, args.run, args.variant) if args.command in ('boot', 'parse') else ('', '', ''),
			    getattr(args, 'log', ''))
		return func(h)
	except HarnessError as e:
		print(f'error: {e}', file=sys.stderr, flush=True)
		return 1


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
