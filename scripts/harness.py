#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""harness.py COMMAND [OPTIONS]: the harness of the cn_proc ordered
timestamps series, one process per command (the Makefile's targets call
it, its variables become the options); every option and every file of
configs/ is checked before anything is fetched or built.
"""

import argparse
import dataclasses
import difflib
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

sys.dont_write_bytecode = True
import harness_config  # noqa: E402
from harness_config import (OPTIONS, Boot, KernelLine, Option,  # noqa: E402
			    Options, Run, load_lines, load_runs, select_boots, select_lines)
import harness_kernel  # noqa: E402
from harness_kernel import KUNIT_TOOL, fetch_source  # noqa: E402
import harness_boot  # noqa: E402
import harness_tables  # noqa: E402
import harness_util  # noqa: E402
from harness_util import (SCRIPTS, TOP, HarnessError, file_text, note, run, stage,  # noqa: E402
			  stage_summary)


def selftest_host_test_argv(selftests: str, work: str) -> List[str]:
	"""The build of the host test of the selftest's checks
	(tests/selftest/cn_proc_test_checks.c, not part of its posting, which
	includes the selftest's source), against the kselftest.h and
	kselftest_harness.h of SELFTESTS, into WORK/cn_proc_test_checks."""
	connector = os.path.join(TOP, 'tools/testing/selftests/connector')
	return ['gcc', '-Wall', '-Werror', '-O2', '-I', selftests,
		'-I', os.path.join(selftests, 'connector'), '-I', connector, '-o',
		os.path.join(work, 'cn_proc_test_checks'),
		os.path.join(TOP, 'tests/selftest/cn_proc_test_checks.c')]


@dataclasses.dataclass
class Session:
	"""What a command works on, resolved once in main(): its options; the
	kernel lines and runs of configs/, checked whole when they are loaded,
	and the lines it works on; the newest line's source, fetched once, when
	a step first needs it."""
	opts: Options
	every: List[KernelLine]		# configs/lines.toml's, the newest first
	chosen: List[KernelLine]	# --kernel's (or --ksrc's)
	runs: List[Run]			# configs/runs.toml's
	_source: str = ''

	@classmethod
	def load(cls, opts: Options, lines_opts: Optional[Options] = None) -> 'Session':
		"""LINES_OPTS, where given, choose the lines instead of OPTS."""
		every = load_lines()
		return cls(opts, every, select_lines(lines_opts or opts, every), load_runs(every))

	@property
	def newest(self) -> KernelLine:
		return self.every[0]

	def boots(self) -> Dict[str, List[Boot]]:
		"""The boots of the chosen lines that --runs and --arch select."""
		return select_boots(self.runs, self.chosen, self.opts)

	def source(self) -> str:
		"""The newest line's pristine source (harness_kernel.newest_source()),
		fetched the first time."""
		if not self._source:
			self._source = harness_kernel.newest_source(self.opts, self.chosen,
								    self.newest)
		return self._source

	def ktap_tool(self) -> str:
		"""The newest line's tools/testing/kunit, whose kunit_parser reads
		KTAP (harness_results.parse_log())."""
		return os.path.join(self.source(), KUNIT_TOOL)

	def cached_source(self) -> str:
		"""The newest line's source from KSRC or the cache, '' if it is in
		neither (nothing is fetched)."""
		return (harness_kernel.newest_ksrc(self.opts, self.chosen, self.newest)
			or harness_kernel.cached_source(self.newest) or '')


# The commands' handlers, as kunit.py's: typed inputs handed to the module
# that does the work; 0 if the command passed.

def boot_test_handler(s: Session) -> int:
	return harness_boot.boot_test(s.opts, s.chosen, s.boots(), s.source())


def target_boots(s: Session, name: str, run: str, variant: str) -> Tuple[KernelLine, List[Boot]]:
	"""The line and the boots (one) of LINE RUN VARIANT, as boot and parse
	name them."""
	line = [l for l in s.every if l.name == name]
	if not line:
		raise HarnessError(f'no line {name}; lines: {" ".join(l.name for l in s.every)}')
	runs = [r.name for r in s.runs if name in r.lines]
	if run not in runs:
		raise HarnessError(f'no run {run} of Linux {name} in configs/runs.toml; '
				   f'its runs: {" ".join(runs)}')
	boots = [b for b in select_boots(s.runs, line, Options(runs=(run,)))[name]
		 if b.variant == variant]
	if not boots:
		raise HarnessError(f'run {run} of Linux {name} boots no {variant} kernel')
	return line[0], boots


def boot_handler(s: Session, name: str, run: str, variant: str) -> int:
	"""boot LINE RUN VARIANT: one kernel of the cache booted and judged."""
	line, boots = target_boots(s, name, run, variant)
	return harness_boot.boot_one(s.opts, line, boots, s.source)


def parse_handler(s: Session, log: str, name: str, run: str, variant: str) -> int:
	"""parse LOG LINE RUN VARIANT: a saved serial log judged as the boot of
	LINE RUN VARIANT (with --selftest-args) judges it, booting nothing."""
	_, boots = target_boots(s, name, run, variant)
	if not os.path.isfile(log):
		raise HarnessError(f'{log}: no such file')
	return harness_boot.parse_one(s.opts, boots[0], log, s.ktap_tool())


def check_options_handler(s: Session) -> int:
	s.boots()
	return 0


def static_checks_handler(s: Session) -> int:
	import harness_static
	return harness_boot.each_line(
		s.chosen, 'static checks',
		lambda line: harness_static.static_checks(line, s.opts, s.newest.name) == 0)


def unit_tests(s: Session, required: bool = False) -> int:
	"""The selftest's host test, the harness's unit tests, its mutants
	held against the code, mypy, shellcheck.
	What needs the newest line's source (the kselftest headers,
	kunit_parser) takes it from KSRC or the cache, where make check
	(REQUIRED) has fetched it; make unit-tests alone fetches nothing and
	says SKIPPED, with the count, for what it cannot run."""
	opts = s.opts
	src = s.source() if required else s.cached_source()
	skipped = []
	with stage('selftest checks on crafted streams'):
		if not src:
			skipped.append('the selftest host test')
		else:
			work = os.path.join(opts.out, 'unit')
			shutil.rmtree(work, ignore_errors=True)
			os.makedirs(work)
			selftests = os.path.join(src, 'tools/testing/selftests')
			run(selftest_host_test_argv(selftests, work))
			run([os.path.join(work, 'cn_proc_test_checks')])
	with stage('the harness, the log parser, litmus and bench reports (unittest)'):
		env = {'PYTHONDONTWRITEBYTECODE': '1',
		       'KUNIT_TOOL': os.path.join(src, KUNIT_TOOL) if src else ''}
		log = os.path.join(opts.out, 'logs', 'unit-tests.log')
		run([sys.executable, '-m', 'unittest', 'discover', '-s', os.path.join(TOP, 'tests'),
		     '-p', '*_test.py'], env=env, log=log, what='the unit tests')
		summary = file_text(log).strip().splitlines()
		note(' '.join(summary[-3:]))
		n = re.search(r'skipped=(\d+)', summary[-1] if summary else '')
		if n and required:
			raise HarnessError(f'{n.group(1)} unit tests skipped (see {log}): '
					   'make check skips none')
		if n:
			skipped.append(f'{n.group(1)} unit tests')
	with stage('the mutants of tests/harness-mutants.toml fit the code'):
		# Each one's original text once in its function or file, or make mutation
		# could not apply it (a test of this inside the unit tests would
		# kill every mutant).
		import harness_mutation
		note(f'{len(harness_mutation.load_mutants())} mutants')
	with stage('mypy (scripts/mypy.ini, as kunit_tool\'s run_checks.py)'):
		run(['mypy', '--config-file', os.path.join(SCRIPTS, 'mypy.ini'), SCRIPTS])
	with stage('shellcheck'):
		run(['shellcheck', '-x', *shell_scripts()])
	if skipped:
		print(f'unit tests: SKIPPED {", ".join(skipped)}: no KSRC of Linux {s.newest.name} '
		      f'and no {s.newest.package} in the cache (make check fetches it)', flush=True)
	print('unit tests: passed', flush=True)
	return 0


def unit_tests_handler(s: Session) -> int:
	return unit_tests(s)


def file_diffs(s: Session, check: bool) -> int:
	import harness_diffs
	return harness_diffs.file_diffs(s.newest, fetch_source(s.newest, s.opts), check)


def file_diffs_handler(s: Session) -> int:
	return file_diffs(s, check=False)


def check_file_diffs_handler(s: Session) -> int:
	return file_diffs(s, check=True)


def mails_handler(s: Session) -> int:
	"""The newest line's series as mails in the poster's name
	(harness_mails.py), whose identity is refused before anything is
	fetched."""
	import harness_mails
	poster = harness_mails.the_poster()
	if s.opts.ksrc:
		base = harness_mails.poster_tree(s.opts.ksrc, s.newest)
	else:
		base = harness_mails.debian_repo(s.source())
	harness_mails.mails(s.newest, base, s.opts.out, poster)
	return 0


def mails_check_handler(s: Session) -> int:
	"""make mails with a test identity on a git tree made of the newest
	line's Debian source (never KSRC) and one later commit
	(harness_mails.py)."""
	import harness_mails
	src = fetch_source(s.newest, s.opts)
	return harness_mails.check_on_git_tree(s.newest, src, s.opts.out)


def kunit_handler(s: Session) -> int:
	import harness_kunit
	return harness_kunit.kunit(s.opts, s.newest)


def kcsan_handler(s: Session) -> int:
	"""make kcsan (harness_kcsan.py), on the newest line."""
	import harness_kcsan
	return harness_kcsan.kcsan(s.opts, s.newest, s.source())


def litmus_handler(s: Session) -> int:
	"""litmus.check(), as litmus.py run: each test and its mutant on the
	newest line's memory model."""
	import litmus
	tree = s.source()
	with stage('litmus tests (herd7)'):
		return litmus.check(Path(tree), (), s.opts.jobs)


def check_handler(s: Session) -> int:
	"""Each step in turn, the first that fails ends it; the time of
	every stage at the end, and the verdict, passed or not, in
	OUT/check.time (whence make results writes it in RESULTS)."""
	opts = s.opts
	start = time.monotonic()
	s.boots()	# the selection, checked before anything is fetched
	cold = opts.no_cache or harness_util.cache_is_empty()
	commit = harness_util.describe()
	times: List[Tuple[str, float]] = []
	failed = ''
	try:
		for name, step in check_steps():
			failed, began = name, time.monotonic()
			with stage(f'make check: {name}'):
				if step(s) != 0:
					raise HarnessError(f'make check: {name} failed')
			times.append((name, time.monotonic() - began))
		failed = ''
	finally:
		print('\nstage times:\n' + '\n'.join(stage_summary()), flush=True)
		what = ' '.join(filter(None, [f'KERNEL={opts.kernel or "all"}',
					      f'KSRC={opts.ksrc}' if opts.ksrc else '',
					      f'RUNS={" ".join(opts.runs)}' if opts.runs else '',
					      f'ARCH={opts.arch}' if opts.arch else '']))
		verdict = harness_tables.check_verdict(what, commit, cold, time.monotonic() - start,
						       times, failed)
		print(verdict, flush=True)
		with open(os.path.join(opts.out, 'check.time'), 'w') as f:
			f.write(verdict + '\n')
	return 0


Handler = Callable[[Session], int]


def check_steps() -> List[Tuple[str, Handler]]:
	"""make check's steps, in order: (name, the step)."""
	return [('per-file diffs', lambda s: file_diffs(s, check=True)),
		('unit tests', lambda s: unit_tests(s, required=True)),
		('mails', mails_check_handler),
		('static checks', static_checks_handler),
		('litmus tests', litmus_handler),
		('kunit.py', kunit_handler),
		('boot test', boot_test_handler)]


def results_handler(s: Session) -> int:
	harness_tables.write_results(s.opts.out, [l.name for l in s.every],
				     os.path.join(TOP, 'RESULTS'))
	return 0


def mutation_handler(s: Session) -> int:
	"""Each mutant of tests/harness-mutants.toml (those --mutants selects)
	alone against the unit tests; the newest line's kunit_parser is
	required (fetched)."""
	import harness_mutation
	mutants = harness_mutation.select(harness_mutation.load_mutants(), s.opts.mutants)
	return harness_mutation.mutation(s.ktap_tool(), s.opts.jobs, mutants)


def bench_handler(s: Session) -> int:
	import harness_bench
	return harness_bench.bench(s.opts, s.chosen, s.source)


def install_packages(command: str) -> None:
	"""The Debian packages make COMMAND needs, installed where missing
	(scripts/setup.sh COMMAND, which says which)."""
	run([os.path.join(SCRIPTS, 'setup.sh'), command], what=f'scripts/setup.sh {command}')


def shell_scripts() -> List[str]:
	return [os.path.join(SCRIPTS, f) for f in sorted(os.listdir(SCRIPTS))
		if f.endswith('.sh')] + \
		[os.path.join(TOP, p) for p in ('tests/init', 'tests/clients/run.sh', 'tests/kcsan/hook',
						'.ci/run')]


# Each command: what runs it, what it does. The options each takes are
# harness_config.OPTIONS'.
COMMANDS: Dict[str, Tuple[Callable[..., int], str]] = {
	'boot-test': (boot_test_handler,
		      'build base and patched kernels, boot them in QEMU, print base vs patched'),
	'boot': (boot_handler, 'boot one kernel of the cache (LINE RUN VARIANT, e.g. 7.3 smp2 '
		 'patched) and judge it'),
	'parse': (parse_handler, "judge a saved serial log (LOG LINE RUN VARIANT) as boot's "
		  'test of that kernel does, booting nothing'),
	'check': (check_handler, 'everything: per-file diffs, unit tests, mails, static checks, '
		  'litmus, kunit.py, boot-test'),
	'check-options': (check_options_handler, 'check the options and configs/, do nothing else'),
	'static-checks': (static_checks_handler, "the static checks of each line's series"),
	'litmus': (litmus_handler, 'the litmus tests of tests/litmus/ with herd7'),
	'kunit': (kunit_handler, 'kunit.py run --kunitconfig=kernel/time on the newest line, '
		  'x86_64 with 2 CPUs; every KUnit case of the series must run'),
	'kcsan': (kcsan_handler, 'KCSAN on the newest line\'s base, patched and a mutant, x86_64 with '
		  '2 CPUs, under the selftest\'s load, the real clients and listener churn; '
		  'the reports by function pair, none the series adds'),
	'unit-tests': (unit_tests_handler,
		       "the harness's unit tests, the selftest's host test, shellcheck"),
	'mutation': (mutation_handler,
		     'each mutant of tests/harness-mutants.toml alone against the unit tests'),
	'bench': (bench_handler,
		  'what the series and the designs it was chosen over cost and keep'),
	'file-diffs': (file_diffs_handler, 'write the per-file diffs of the series'),
	'check-file-diffs': (check_file_diffs_handler,
			     'compare the per-file diffs with the series; the boot test\'s mutants '
			     'must apply on it'),
	'results': (results_handler, "RESULTS, from the last run's tables"),
	'mails': (mails_handler, 'the series as mails for git send-email, From: and Signed-off-by: '
		  'your git identity, on KSRC, your git tree of the newest line or newer (never '
		  'modified)'),
}
# The commands no make target runs, scripts/harness.py's alone: boot and
# parse take LINE RUN VARIANT, check-options checks them and does nothing.
SCRIPT_ONLY = ('check-options', 'boot', 'parse')
# Print what the Makefile needs of OPTIONS (make_flags()), and make help;
# they read no option and no file of configs/.
MAKE_FLAGS = 'make-flags'
MAKE_HELP = 'make-help'
# Set by the Makefile: the options came from make's variables, and these
# variables were given on make's command line.
FROM_MAKE = 'HARNESS_FROM_MAKE'
MAKE_VARIABLES = 'HARNESS_MAKE_VARIABLES'


def options_of(command: str) -> List[Option]:
	return [o for o in OPTIONS if o.taken_by(command)]


def parser() -> argparse.ArgumentParser:
	"""harness.py's flags, each command with the OPTIONS it takes. An
	option not given is None: Options' default, not argparse's, holds."""
	p = argparse.ArgumentParser(prog='harness.py', description=__doc__.split('\n\n')[0],
				    epilog='harness.py COMMAND -h: the options of COMMAND, '
				    'and their defaults')
	sub = p.add_subparsers(dest='command', required=True, metavar='COMMAND')
	for name, (_, what) in COMMANDS.items():
		c = sub.add_parser(name, help=what, description=what)
		if name == 'parse':
			c.add_argument('log', metavar='LOG',
				       help='a serial log, e.g. '
				       'out/logs/7.3/boot-x86_64-smp2.patched.log')
		if name in ('boot', 'parse'):
			c.add_argument('line', metavar='LINE')
			c.add_argument('run', metavar='RUN')
			c.add_argument('variant', metavar='VARIANT',
				       help='base, patched or a mutant')
		for o in options_of(name):
			help = o.help_of(name) + (f' (default: {o.default})' if o.default else '')
			if o.metavar:
				c.add_argument(*o.flags, dest=o.name, metavar=o.metavar,
					       type=o.type, help=help)
			else:
				c.add_argument(*o.flags, dest=o.name, action='store_true',
					       default=None, help=help)
	sub.add_parser(MAKE_FLAGS, help="the Makefile's variables, each VARIABLE:FLAG= "
		       "(:command-line, from make's command line only)")
	sub.add_parser(MAKE_HELP, help='make help: TARGETS and the variables')
	return p


def make_flags() -> str:
	"""What the Makefile makes harness.py's flags from: each option (and
	alias) as VARIABLE:FLAG=, :command-line after it where only make's
	command line gives it."""
	return ' '.join(f'{v}:{f}=' + (':command-line' if o.command_line_only else '')
			for o in OPTIONS for v, f in zip(o.variables, o.flags))


def make_help(targets: List[str]) -> str:
	"""make help: the make TARGETS that are harness.py's commands, what
	each does, then the variables (doc/harness.txt's option list)."""
	out = ['make TARGET [VARIABLE=VALUE ...]; the targets (all: boot-test):']
	out += [textwrap.fill(COMMANDS[t][1], 76, initial_indent=f'  {t:18}',
			      subsequent_indent=' ' * 20)
		for t in targets if t in COMMANDS]
	out += ['  setup             install every Debian package the harness needs (each target',
		'                    installs those it needs)',
		'  clean             remove OUT',
		f'scripts/harness.py has {", ".join(SCRIPT_ONLY)} too (scripts/harness.py -h).',
		'', 'The variables (a switch: 1 is on, 0 off):']
	return '\n'.join(out) + '\n' + option_list()


def nearest(name: str, variables: Sequence[str]) -> str:
	"""The variable of VARIABLES that NAME, one that is none of them, was
	most likely meant to be ('' for none): in other case, a close spelling
	(RUN, KERNELS), the longest that NAME starts with, or the one that
	starts or ends with NAME (J: JOBS, TIMEOUT: BOOT_TIMEOUT)."""
	upper = name.upper()
	close = difflib.get_close_matches(upper, variables, 1, 0.75)
	longer = [v for v in variables if v.startswith(upper) or v.endswith('_' + upper)]
	return (upper if upper in variables else close[0] if close
		else max((v for v in variables if upper.startswith(v)), key=len, default='')
		or (longer[0] if len(longer) == 1 else ''))


def from_make(command: str, argv: List[str],
	      typed: Sequence[str] = ()) -> Tuple[List[str], List[str]]:
	"""The flags make made of its variables (ARGV, each --FLAG=VALUE) as
	harness.py takes them, a switch's 1 as its flag and its 0 as nothing;
	and what is wrong with them, named as the user typed them: a variable
	of make's command line (TYPED) that is no option, a variable COMMAND
	does not take, an option given twice (OUT and O), a value its type
	refuses. Each option is named by its variable in
	harness_config.GIVEN_AS."""
	errors, out = [], []
	taken = [v for o in options_of(command) for v in o.variables]
	for name in typed:
		if not any(name in o.variables for o in OPTIONS):
			near = nearest(name, taken)
			known = f'(its variables: {" ".join(taken)})'
			errors.append(f'{name}= is no variable of make {command}: '
				      + (f'{near}=?' if near else known))
	by_flag = {f: (o, v) for o in OPTIONS for v, f in zip(o.variables, o.flags)}
	for a in argv:
		flag, eq, value = a.partition('=')
		if flag not in by_flag or not eq:
			out.append(a)
			continue
		o, variable = by_flag[flag]
		if o.name in harness_config.GIVEN_AS:
			errors.append(f'{harness_config.GIVEN_AS[o.name]}= and {variable}= are one '
				      'option: give one')
			continue
		harness_config.GIVEN_AS[o.name] = variable
		if not o.taken_by(command):
			errors.append(f'{variable}= is no variable of make {command} (its '
				      f'variables: {" ".join(taken)})')
			continue
		try:
			if o.type(value) is not False:
				out.append(a if o.metavar else flag)
		except argparse.ArgumentTypeError as e:
			errors.append(f'{variable}: {e}')
	return out, errors


def option_list() -> str:
	"""doc/harness.txt's list of the options, as make variables, each with
	the make targets that take it (and the SCRIPT_ONLY commands)."""
	out = []
	for o in OPTIONS:
		but = f' but {", ".join(o.but)}' if o.but else ''
		cmds = ', '.join(c for c in o.commands or () if c not in SCRIPT_ONLY) \
			if o.commands else 'every command' + but
		script = [c for c in o.commands or () if c in SCRIPT_ONLY]
		if script:
			cmds += f'; scripts/harness.py {", ".join(script)}'
		where = f'{cmds}; on make\'s command line only' if o.command_line_only else cmds
		text = f'{o.help} ({where}' + (f'; default: {o.default})' if o.default else ')') \
			+ ''.join(f' {c}: {h}.' for c, h in o.helps)
		head = f'  {o.variable}={o.shown_example}'
		out += textwrap.wrap(text, 76,
				     initial_indent=head.ljust(28) if len(head) < 28
				     else head + '   ',
				     subsequent_indent=' ' * 28, break_on_hyphens=False)
	return '\n'.join(out)


def main(argv: List[str]) -> int:
	try:
		harness_config.GIVEN_AS.clear()
		# Not for the commands it runs (the unit tests run harness.py).
		typed = os.environ.pop(MAKE_VARIABLES, '').split()
		made = bool(os.environ.pop(FROM_MAKE, '')) and bool(argv) and argv[0] in COMMANDS
		if made:
			# make -jN, where JOBS is not given, is JOBS=N.
			j = re.search(r'(?:^| )-j(\d+)', os.environ.get('MAKEFLAGS', ''))
			if j and 'jobs' in {o.name for o in options_of(argv[0])} and \
			   not any(a.startswith('--jobs=') for a in argv):
				argv = [*argv, f'--jobs={j.group(1)}']
			rest, errors = from_make(argv[0], argv[1:], typed)
			argv = argv[:1] + rest
			for e in errors:
				print(f'make {argv[0]}: error: {e}', file=sys.stderr, flush=True)
			if errors:
				return 2
		try:
			args = parser().parse_args(argv if argv[:1] != [MAKE_HELP] else argv[:1])
		except SystemExit as e:		# -h, or a refused flag (argparse has said it)
			return e.code if isinstance(e.code, int) else 2
		if args.command == MAKE_FLAGS:
			print(make_flags())
			return 0
		if args.command == MAKE_HELP:
			print(make_help(argv[1:]))
			return 0
		harness_util.STAGES.clear()
		given = {o.name: getattr(args, o.name) for o in options_of(args.command)
			 if getattr(args, o.name) is not None}
		# check works on every line unless told otherwise.
		if args.command == 'check' and not given.get('kernel') and not given.get('ksrc'):
			given['kernel'] = 'all'
		opts = Options(**given)
		harness_util.bypass_cache(opts.no_cache)
		harness_util.VERBOSE = opts.verbose
		harness_util.COMMANDS_LOG = os.path.join(opts.out, 'logs', 'commands.log')
		# make mails' KSRC is the poster's git tree, of the newest line's
		# version or newer (harness_mails.poster_tree()), not a line's.
		session = Session.load(opts, dataclasses.replace(opts, ksrc='')
				       if args.command == 'mails' else None)
		os.makedirs(os.path.join(opts.out, 'logs'), exist_ok=True)
		if made:
			# Its input known good (the runs too), what it needs of Debian.
			if any(o.name == 'runs' for o in options_of(args.command)):
				session.boots()
			install_packages(args.command)
		handler = COMMANDS[args.command][0]
		if args.command == 'boot':
			return handler(session, args.line, args.run, args.variant)
		if args.command == 'parse':
			return handler(session, args.log, args.line, args.run, args.variant)
		return handler(session)
	except HarnessError as e:
		print(f'error: {e}', file=sys.stderr, flush=True)
		return 1


def exit_status(argv: List[str]) -> int:
	"""main(ARGV)'s exit status. A reader that stops reading (make help |
	head) ends the output without a traceback: help cut short is no
	error, a command cut short has not passed."""
	status = 1
	try:
		status = main(argv)
		sys.stdout.flush()
	except BrokenPipeError:
		os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
		if argv[:1] in ([MAKE_HELP], [MAKE_FLAGS]) or '-h' in argv or '--help' in argv:
			status = 0
	return status


if __name__ == '__main__':
	sys.exit(exit_status(sys.argv[1:]))
