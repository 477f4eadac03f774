#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the harness (scripts/harness*.py), in the style of
tools/testing/kunit/kunit_tool_test.py: no kernel is fetched, built or
booted. Bad input must be refused before any command runs (subprocess is
replaced by one that fails the test); the orchestration runs on a mocked
kernel tree whose builds and boots are recorded, so that the build order,
the QEMU command lines and the exit status can be asserted.

The log parser's tests need the newest line's tools/testing/kunit: make
unit-tests gives its path in KUNIT_TOOL (they are skipped without it).
"""

import contextlib
import dataclasses
import io
import json
import multiprocessing
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True

import harness  # noqa: E402
import harness_boot  # noqa: E402
import harness_config  # noqa: E402
import harness_kernel  # noqa: E402
import harness_mutation  # noqa: E402
import harness_guest  # noqa: E402
import harness_static  # noqa: E402
import harness_util  # noqa: E402
from harness_util import HarnessError  # noqa: E402

KUNIT_TOOL = os.environ.get('KUNIT_TOOL', '')
LOGS = os.path.join(TOP, 'tests', 'logs')
LINES = ['7.3', '6.12', '6.1']
# The tests' own lines and runs (tests/configs/), not configs/'s.
TEST_LINES_AND_RUNS_DIR = os.path.join(TOP, 'tests', 'configs')
harness_config.LINES_AND_RUNS_DIR = TEST_LINES_AND_RUNS_DIR


def temp_dir(case):
	"""A directory removed when CASE ends, failed or not."""
	d = tempfile.mkdtemp()
	case.addCleanup(shutil.rmtree, d, ignore_errors=True)
	return d


def fake_prepare(files=(), digest=None):
	"""A Tree.prepare() that copies no source: the tree's directory, with
	FILES (path: text) in it, and its id; DIGEST, the series' digest, if
	given."""
	def prepare(tree, *args):
		os.makedirs(tree.path, exist_ok=True)
		for name, text in dict(files).items():
			os.makedirs(os.path.dirname(os.path.join(tree.path, name)), exist_ok=True)
			with open(os.path.join(tree.path, name), 'w') as f:
				f.write(text)
		with open(os.path.join(tree.line_out, 'tree.id'), 'w') as f:
			f.write('tree\n')
		if digest is not None:
			tree.digest = digest
	return prepare


REAL_RUN = subprocess.run
REAL_POPEN = subprocess.Popen


def no_commands(*args, **kwargs):
	raise AssertionError(f'a command ran: {args[0] if args else kwargs}')


def only_git(*args, **kwargs):
	"""git interpret-trailers, which reads the tags, and nothing else."""
	if args[0][:2] != ['git', 'interpret-trailers']:
		no_commands(*args, **kwargs)
	return REAL_POPEN(*args, **kwargs)


class HarnessCase(unittest.TestCase):
	"""A fresh OUT and cache for each test, and a way to run a command of
	harness.py as make would, with its output."""

	def setUp(self):
		self.tmp = temp_dir(self)
		self.env = {'OUT': os.path.join(self.tmp, 'out'),
			    'XDG_CACHE_HOME': os.path.join(self.tmp, 'cache')}
		# A kernel tree of Linux 6.1, as far as the options are concerned.
		self.linux61 = os.path.join(self.tmp, 'linux-6.1')
		os.makedirs(os.path.join(self.linux61, 'kernel'))
		with open(os.path.join(self.linux61, 'Makefile'), 'w') as f:
			f.write('VERSION = 6\nPATCHLEVEL = 1\n')

	def harness(self, command, commands=False, *args, from_make=False, typed=(), **variables):
		"""harness.py COMMAND with the flags that the make VARIABLES (and
		the test's OUT) become, as the Makefile maps them (FROM_MAKE: and
		says, with TYPED the variables of make's command line), and ARGS:
		(exit status, output). Unless COMMANDS, a command it runs fails the
		test."""
		variables = {**self.env, **variables}
		flag = {v: f for o in harness_config.OPTIONS
			for v, f in zip((o.variable, o.alias.upper()), o.flags)}
		flags = [f'{flag[v]}={x}' for v, x in variables.items()
			 if v != 'XDG_CACHE_HOME' and x]
		out = io.StringIO()
		with contextlib.ExitStack() as stack:
			stack.enter_context(mock.patch.dict(os.environ, {
				'XDG_CACHE_HOME': self.env['XDG_CACHE_HOME'],
				harness.FROM_MAKE: '1' if from_make else '',
				harness.MAKE_VARIABLES: ' '.join(typed)}))
			if not commands:
				stack.enter_context(mock.patch('subprocess.Popen',
							       side_effect=no_commands))
			stack.enter_context(contextlib.redirect_stdout(out))
			stack.enter_context(contextlib.redirect_stderr(out))
			status = harness.main([command, *args, *flags])
		return status, out.getvalue()

	def refused(self, command, word, *args, **env):
		"""COMMAND (with ARGS) exits non-zero with a line naming WORD, never
		says "passed", and runs no command."""
		status, out = self.harness(command, False, *args, **env)
		self.assertNotEqual(status, 0, out)
		self.assertIn(word, out)
		self.assertNotIn('passed', out)
		return out


class Options(HarnessCase):
	COMMANDS = ('boot-test', 'check', 'static-checks', 'bench', 'unit-tests', 'litmus', 'kunit',
		    'check-options')

	def test_a_ksrc_that_does_not_exist_is_refused_by_every_command(self):
		for c in self.COMMANDS:
			self.refused(c, '--ksrc /no/such/tree', KSRC='/no/such/tree')

	def test_the_per_file_diffs_refuse_ksrc_which_they_would_not_use(self):
		for c in ('file-diffs', 'check-file-diffs'):
			self.refused(c, f'KSRC= is no variable of make {c}', from_make=True,
				     KSRC=self.linux61)
			self.refused(c, 'unrecognized arguments: --ksrc', KSRC=self.linux61)

	def test_a_ksrc_that_is_no_kernel_tree_is_refused(self):
		self.refused('boot-test', f'--ksrc {self.tmp}', KSRC=self.tmp)

	def test_a_line_with_no_series_is_refused(self):
		for c in ('boot-test', 'static-checks', 'check'):
			self.refused(c, '5.10', KERNEL='5.10')

	def test_ksrc_of_one_line_and_kernel_of_another_contradict(self):
		self.refused('boot-test', '--kernel 7.3', KSRC=self.linux61, KERNEL='7.3')
		self.refused('static-checks', '--kernel all', KSRC=self.linux61, KERNEL='all')

	def test_configs_that_selects_no_run_of_a_chosen_line_is_refused(self):
		self.refused('boot-test', '--runs', KERNEL='6.1', RUNS='rt')
		self.refused('check', '--runs', KERNEL='all', CONFIGS='rt')
		self.refused('boot-test', 'smpp2', CONFIGS='smp2 smpp2')

	def test_a_run_expecting_a_check_it_cannot_report_is_refused_before_any_work(self):
		tables = temp_dir(self)
		shutil.copy(os.path.join(TEST_LINES_AND_RUNS_DIR, 'lines.toml'), tables)
		with open(os.path.join(tables, 'runs.toml'), 'w') as f:
			f.write('[[run]]\nname = "smp2"\nlines = ["7.3"]\n'
				'kernels.patched = { fail = ["load_ordr"] }\n')
		with mock.patch.object(harness_config, 'LINES_AND_RUNS_DIR', tables):
			for c in self.COMMANDS:
				self.refused(c, 'load_ordr')

	def test_good_options_run_nothing(self):
		status, out = self.harness('check-options', KERNEL='all', CONFIGS='smp2 jiffies')
		self.assertEqual(status, 0, out)
		status, out = self.harness('check-options', KERNEL='7.3', ARCH='arm64',
					   CONFIGS='arm64-llsc')
		self.assertEqual(status, 0, out)

	def test_an_architecture_that_does_not_boot_is_refused(self):
		self.refused('boot-test', 'argument --arch: mips', ARCH='mips')
		self.refused('check', 'argument --arch: i386', ARCH='i386')

	def test_arch_that_leaves_a_chosen_line_no_run_is_refused(self):
		self.refused('boot-test', '--arch arm64', KERNEL='6.1', ARCH='arm64')
		self.refused('boot-test', '--arch arm64', ARCH='arm64', CONFIGS='smp2')

	def test_the_static_checks_refuse_arch(self):
		self.refused('static-checks', '--arch', ARCH='arm64')

	def test_bench_measures_one_line_on_x86_64(self):
		self.refused('bench', '--kernel all', KERNEL='all')
		self.refused('bench', '--configs', CONFIGS='smp2')
		self.refused('bench', '--runs', RUNS='smp2')
		self.refused('bench', '--arch', ARCH='arm64')

	def test_program_arguments_are_checked_as_the_programs_would(self):
		for args in ('-n "5', '-n 0', '-x 3', '-n', '-n 5x'):
			self.refused('boot-test', '--selftest-args', SELFTEST_ARGS=args)
		status, out = self.harness('check-options', SELFTEST_ARGS='-w 2 -n50000 -t 60')
		self.assertEqual(status, 0, out)

	def test_numeric_and_other_options_are_checked(self):
		for name, value in (('JOBS', '0'), ('BOOT_TIMEOUT', 'x'), ('DEBS_MIRROR', 'ftp://x'),
				    ('CLIENTS_SUITE', 'Bookworm!')):
			flag = name.lower().replace('_', '-')
			self.refused('bench', f'argument --{flag}: {value}', **{name: value})

	def test_mutants_selects_the_mutants_whose_what_has_each_word(self):
		mutants = [harness_mutation.Mutant('f', 'a', 'b', what) for what in
			   ('kunit.py: the cache key', 'kunit.py: a skipped case passes',
			    'Cache keys: kunit.py')]
		chosen = harness_mutation.select(mutants, ('kunit', 'CACHE'))
		self.assertEqual([m.what for m in chosen],
				 ['kunit.py: the cache key', 'Cache keys: kunit.py'])
		self.assertEqual(harness_mutation.select(mutants, ()), mutants)
		with self.assertRaises(HarnessError):
			harness_mutation.select(mutants, ('kunit', 'no-such-word'))

	def test_mutants_that_select_none_are_refused_before_anything_is_fetched(self):
		# load_mutants() mocked: in a mutant's copy, where that mutant's
		# original text is gone, it would fail this test for every mutant.
		one = [harness_mutation.Mutant('f', 'a', 'b', 'kunit.py: x')]
		with mock.patch.object(harness_mutation, 'load_mutants', return_value=one):
			self.refused('mutation', 'no mutant', MUTANTS='no-such-word')
		self.refused('boot-test', 'unrecognized arguments: --mutants', MUTANTS='kunit')

	def test_the_readmes_option_list_is_the_table(self):
		readme = harness_util.file_text(os.path.join(TOP, 'doc', 'harness.txt'))
		# Its examples of --kernel and --arch are configs/' lines and
		# architectures.
		with mock.patch.object(harness_config, 'LINES_AND_RUNS_DIR',
				       harness_config.CONFIGS):
			options = harness.option_list()
		self.assertTrue('\n\n' + options + '\n\n' in readme,
				"doc/harness.txt's option list is not harness.option_list(): paste it")

	def test_the_option_lists_lines_and_architectures_are_those_of_configs(self):
		line = harness_config.load_lines()[0]
		with mock.patch.object(harness_config, 'load_lines',
				       return_value=[dataclasses.replace(line, name='7.9'),
						     line]), \
		     mock.patch.object(harness_config, 'booting_arches',
				       return_value=['riscv64', 'x86_64']):
			options = harness.option_list()
		self.assertIn('KERNEL=7.9|7.3|all ', options)
		self.assertIn('ARCH=x86_64|riscv64 ', options)

	def make_flags(self, environment=None, **variables):
		"""The flags make gives harness.py for VARIABLES on its command
		line (and ENVIRONMENT), as make -n prints them."""
		env = {k: v for k, v in os.environ.items()
		       if k not in {o.variable for o in harness_config.OPTIONS}
		       and k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
		out = subprocess.run(['make', '-n', '-s', '--no-print-directory', '-C', TOP,
				      'file-diffs',
				      *(f'{k}={v}' for k, v in variables.items())],
				     env={**env, **(environment or {})}, capture_output=True,
				     text=True,
				     check=True).stdout
		words = shlex.split(out)
		return words[words.index('file-diffs') + 1:]

	def test_the_makefile_makes_each_variable_that_is_set_its_flag(self):
		values = {o.variable: '1' if not o.metavar else f'x {o.name}'
			  for o in harness_config.OPTIONS}
		want = [f'{o.flag}=1' if not o.metavar else f'{o.flag}=x {o.name}'
			for o in harness_config.OPTIONS]
		self.assertEqual(self.make_flags(**values), want)
		self.assertEqual(self.make_flags(environment=values),
				 [f for f in want if not f.startswith(('--arch=', '--verbose='))])
		# A switch's 0 reaches it, to mean off; CONFIGS is RUNS's old name,
		# O kbuild's of OUT.
		self.assertEqual(self.make_flags(NO_CACHE='0', CONFIGS='rt', O='/o'),
				 ['--configs=rt', '--o=/o', '--no-cache=0'])
		self.assertEqual(self.make_flags(OUT='out', KERNEL=''), ['--out=out'])
		self.assertEqual(self.make_flags(), [])
		# A value reaches the harness as it was given, quotes and all.
		self.assertIn('--mutants=case\'s "x" \\',
			      self.make_flags(MUTANTS="case's \"x\" \\"))

	def test_every_option_is_named_by_its_commands_help(self):
		status, out = self.harness('-h')
		self.assertEqual(status, 0)
		for c in harness.COMMANDS:
			self.assertIn(c, out)
		for o in harness_config.OPTIONS:
			self.assertTrue(o.commands is None
					or set(o.commands) <= set(harness.COMMANDS), o.name)
		for c in harness.COMMANDS:
			status, out = self.harness(c, False, '-h')
			self.assertEqual(status, 0)
			out = ' '.join(out.split())
			for o in harness.options_of(c):
				self.assertIn(o.flag, out)
				if o.default:
					self.assertIn(f'(default: {o.default})', out)
		status, out = self.harness('bench', False, '-h')
		for default in ('300', 'bookworm'):
			self.assertIn(f'(default: {default})', out)

	def test_each_commands_help_names_only_its_options(self):
		for c in harness.COMMANDS:
			out = self.harness(c, False, '-h')[1]
			for o in harness_config.OPTIONS:
				if o not in harness.options_of(c):
					self.assertNotRegex(out, f'{o.flag}\\b', f'{c} -h')
		self.assertEqual([o.name for o in harness.options_of('results')],
				 ['out', 'verbose'])
		self.assertNotIn('jobs', [o.name for o in harness.options_of('mails')])
		# make mails' KSRC is the poster's git tree, not a line's.
		for c, poster in (('mails', True), ('boot-test', False)):
			out = ' '.join(self.harness(c, False, '-h')[1].split())
			self.assertEqual('--ksrc DIR your git tree' in out, poster, c)

	def given(self, command, *args, **variables):
		"""The Options COMMAND runs with, given VARIABLES by make (and ARGS),
		once it has installed its packages."""
		got, self.installed = [], []
		with mock.patch.dict(harness.COMMANDS,
				     {command: (lambda s: got.append((self.installed[:], s.opts)) or 0,
						'')}), \
		     mock.patch.object(harness, 'install_packages', self.installed.append):
			status, out = self.harness(command, False, *args, from_make=True,
						   **variables)
		self.assertEqual(status, 0, out)
		self.assertEqual(got[0][0], [command])
		return got[0][1]

	def test_a_switch_is_on_at_1_and_off_at_0_as_kbuilds(self):
		for value in ('0', '1'):
			opts = self.given('boot-test', NO_CACHE=value, V=value)
			self.assertEqual((opts.no_cache, opts.verbose, harness_util.VERBOSE,
					  harness_util._bypass),
					 (value == '1',) * 4)
		harness_util.bypass_cache(False)
		harness_util.VERBOSE = False
		# The flag alone is on.
		self.assertTrue(self.given('boot-test', '--no-cache').no_cache)
		harness_util.bypass_cache(False)
		out = self.refused('boot-test',
				   'make boot-test: error: NO_CACHE: 2: 0 (off) or 1 (on)',
				   from_make=True, NO_CACHE='2')
		self.assertNotIn('usage', out)
		self.refused('kunit', 'NO_CACHE: yes: 0 (off) or 1 (on)', from_make=True,
			     NO_CACHE='yes')

	def test_a_variable_of_makes_command_line_that_is_no_option_is_refused(self):
		"""make boot-test O=/tmp/x RUN=smp2 KERNELS=6.1 J=4, as kbuild's
		users type it: O is OUT; the others are refused before anything
		runs or is installed, each with the option it is nearest."""
		o = os.path.join(self.tmp, 'o')
		out = self.refused('boot-test', 'make boot-test: error: RUN= is no variable of '
				   'make boot-test: RUNS=?\n', from_make=True,
				   typed=('O', 'RUN', 'KERNELS', 'J'), OUT='', O=o)
		self.assertIn('KERNELS= is no variable of make boot-test: KERNEL=?\n', out)
		self.assertIn('J= is no variable of make boot-test: JOBS=?\n', out)
		self.assertNotIn(' O=', out)
		self.refused('mails', 'LLVM= is no variable of make mails: (its variables: KSRC OUT O ',
			     from_make=True, typed=('LLVM',))
		self.refused('results', 'OUT= and O= are one option: give one', from_make=True,
			     typed=('O', 'OUT'), O=o)
		self.assertEqual(self.given('boot-test', OUT='', O=o).out, o)
		self.assertEqual(harness_config.GIVEN_AS['out'], 'O')

	def test_the_nearest_option(self):
		variables = ['KERNEL', 'RUNS', 'OUT', 'O', 'JOBS', 'BOOT_TIMEOUT', 'CLIENTS_SUITE',
			     'CONFIGS']
		for typed, near in (('RUN', 'RUNS'), ('KERNELS', 'KERNEL'), ('J', 'JOBS'),
				    ('jobs', 'JOBS'), ('OUTPUT', 'OUT'), ('TIMEOUT', 'BOOT_TIMEOUT'),
				    ('C', ''), ('LLVM', ''), ('W', '')):
			self.assertEqual(harness.nearest(typed, variables), near, typed)

	def test_make_names_the_variables_the_user_typed(self):
		out = self.refused('mails', 'make mails: error: JOBS= is no variable of make mails',
				   from_make=True, JOBS='1')
		self.assertNotIn('unrecognized', out)
		self.refused('boot-test', "CONFIGS='smp9'", from_make=True, CONFIGS='smp9')
		self.refused('boot-test', "RUNS='smp9'", from_make=True, RUNS='smp9')
		self.refused('boot-test', 'KSRC=/no/such/tree is not', from_make=True,
			     KSRC='/no/such/tree')
		self.assertEqual(self.given('boot-test', RUNS='smp2').runs, ('smp2',))
		self.assertEqual(self.given('boot-test', CONFIGS='smp2').runs, ('smp2',))

	def test_commands_are_echoed_at_v1_and_logged_always(self):
		log = os.path.join(self.tmp, 'commands.log')
		with mock.patch.object(harness_util, 'COMMANDS_LOG', log):
			for verbose in (False, True):
				out = io.StringIO()
				with mock.patch.object(harness_util, 'VERBOSE',
						       verbose), contextlib.redirect_stdout(out):
					harness_util.run(['true', 'x'])
				self.assertEqual('$ true x' in out.getvalue(), verbose)
		self.assertEqual(harness_util.file_text(log).count('$ true x\n'), 2)

	def test_a_long_command_says_it_still_runs_its_log_and_the_logs_last_line(self):
		log = os.path.join(self.tmp, 'build.log')
		out = io.StringIO()
		with mock.patch.object(harness_util, 'PROGRESS_SECONDS', 0.15), \
		     contextlib.redirect_stdout(out):
			harness_util.run(['sh', '-c', 'echo "  CC      kernel/fork.o"; sleep 0.4'],
					 log=log, what='7.3 x86_64 default base kernel build')
		self.assertRegex(out.getvalue(), r'(?m)^\[[\d:]+\] 7\.3 x86_64 default base kernel '
				 r'build: still running after 0m00s; ' + re.escape(log)
				 + r': CC      kernel/fork\.o$')

	def test_make_j_is_jobs(self):
		with mock.patch.dict(os.environ, {'MAKEFLAGS': ' -j3 --jobserver-auth=3,4'}):
			self.assertEqual(self.given('boot-test').jobs, 3)
			self.assertEqual(self.given('boot-test', JOBS='5').jobs, 5)
			self.given('results')	# which builds nothing: -j3 is no error

	def test_make_help_lists_the_targets_and_variables(self):
		out = subprocess.run(['make', '-s', '--no-print-directory', '-C', TOP, 'help'],
				     capture_output=True,
				     text=True, check=True).stdout
		for t in ('boot-test', 'check', 'mails', 'setup', 'clean'):
			self.assertRegex(out, f'\\n  {t} ')
		with mock.patch.object(harness_config, 'LINES_AND_RUNS_DIR',
				       harness_config.CONFIGS):
			self.assertIn(harness.option_list(), out)


	def test_help_to_a_reader_that_stops_early_is_no_error(self):
		"""make help | head: the pipe's reader gone before a word is
		written (deterministically, where head is a race)."""
		for args in (['make-help', 'boot-test'], ['make-flags'], ['-h'], ['boot', '-h']):
			r, w = os.pipe()
			os.close(r)
			proc = subprocess.run([sys.executable, os.path.join(TOP, 'scripts', 'harness.py'),
					       *args], stdout=w, stderr=subprocess.PIPE, text=True)
			os.close(w)
			self.assertEqual((proc.returncode, proc.stderr), (0, ''), args)


class StageSummary(unittest.TestCase):
	def test_the_summary_keeps_the_steps_what_took_a_minute_and_what_failed(self):
		stages = [[0, 'step', 70.0, 'done'], [1, 'quick', 2.0, 'done'],
			  [1, 'build', 61.0, 'done'],
			  [1, 'boot', 3.0, 'FAILED'], [0, 'next', 1.0, 'done']]
		with mock.patch.object(harness_util, 'STAGES', stages):
			self.assertEqual([l.split()[0] for l in harness_util.stage_summary()],
					 ['step', 'build', 'boot', 'next'])


class Runs(unittest.TestCase):
	"""configs/runs.toml: every run is checked before anything is built."""
	GOOD = {'name': 'new', 'lines': ['7.3'], 'kernels': {'patched': {}}}

	def refused(self, *named, **fields):
		"""The run with FIELDS is refused, the error naming the run and
		NAMED (the offending key or value, not a sentence)."""
		with self.assertRaises(HarnessError) as e:
			harness_config.parse_run(0, {**self.GOOD, **fields}, LINES)
		for word in ('run new',) + named:
			self.assertIn(word, str(e.exception))

	def test_the_matrix_loads(self):
		with mock.patch.object(harness_config, 'LINES_AND_RUNS_DIR',
				       harness_config.CONFIGS):
			runs = harness_config.load_runs(harness_config.load_lines())
		self.assertTrue(runs)

	def test_a_good_run(self):
		r = harness_config.parse_run(0,
					     {**self.GOOD, 'clocksource': 'jiffies',
					      'preempt': 'lazy',
					      'kernel_args': ['tsc=reliable'], 'listener': 32,
					      'clients': True}, LINES)
		own = ['console=ttyS0', 'panic=-1',
		       'kunit.filter_glob=time_test_cases.ktime_stamp_ns_*']
		self.assertEqual(harness_config.kernel_cmdline(r),
				 own + ['clocksource=jiffies', 'preempt=lazy', 'tsc=reliable',
					'cnproc_listener=32',
					'cnproc_clients=1'])
		self.assertEqual(harness_config.kernel_cmdline(r, ['-w', '4'])[-1],
				 'cnproc_args="-w 4"')
		kunit = harness_config.parse_run(0, {**self.GOOD, 'mode': 'kunit'}, LINES)
		self.assertEqual(harness_config.kernel_cmdline(kunit, ['-w', '4']),
				 own + ['cnproc_run=kunit'])
		self.assertEqual(r.parts(),
				 ['cn_proc-selftest', 'cn_proc-figures', 'cn_proc-selftest-netns',
				  'cn_proc-selftest-pidns',
				  'cn_proc-selftest-userns', 'cn_proc-clients'])
		r = harness_config.parse_run(0, {**self.GOOD, 'proc_listeners': True}, LINES)
		self.assertEqual(harness_config.kernel_cmdline(r)[-1], 'cnproc_proc_listeners=1')
		self.assertEqual(r.parts()[-1], 'cn_proc-proc_listeners')

	def test_unknown_keys_modes_and_values_are_errors(self):
		self.refused('mdoe', mdoe='kunit')
		self.refused('mode', 'kunti', mode='kunti')
		self.refused('listener', '33', listener=33)
		self.refused('defualt', flavour='defualt')
		self.refused('cpus', 'two', cpus='two')
		self.refused('cpus', '0', cpus=0)
		self.refused('preempt', 'ful', preempt='ful')
		self.refused('5.10', lines=['5.10'])
		self.refused('pathced', kernels={'pathced': {}})
		self.refused('kernels.patched', kernels={'patched': 'pass'})
		self.refused('kernels.patched', 'fails', kernels={'patched': {'fails': ['ack']}})

	def test_architectures(self):
		self.refused('mips', arch='mips')
		self.refused('i386', arch='i386')
		self.refused('atomics', arch='arm64')
		self.refused('atomics', 'cas', arch='arm64', atomics='cas')
		self.refused('atomics', 'lse', atomics='lse')
		self.refused('clients', 'arm64', arch='arm64', atomics='lse', clients=True)
		self.refused('listener', '32', arch='arm64', atomics='lse', listener=32)

	def test_a_run_is_held_against_the_kernel_and_qemu_that_boot_it(self):
		x86_64 = harness_config.load_arch('x86_64')
		# CONFIG_NR_CPUS=8 in configs/arch/x86_64.py, QEMU's pc takes 255.
		self.refused('cpus', '9', 'CONFIG_NR_CPUS', cpus=9)
		# A later fragment wins: a uniprocessor kernel has one.
		with mock.patch.object(harness_config, 'load_arch',
				       lambda name: dataclasses.replace(
				x86_64, kconfig=x86_64.kconfig + '# CONFIG_SMP is not set\n')):
			self.refused('cpus', '2', 'at most 1', cpus=2)
			self.assertTrue(harness_config.parse_run(0, {**self.GOOD, 'cpus': 1},
								 LINES))
		self.assertEqual(harness_config.parse_run(0, {**self.GOOD, 'cpus': 8}, LINES).cpus,
				 8)
		with mock.patch.object(harness_config, 'load_arch',
				       lambda name: dataclasses.replace(x86_64, qemu_max_cpus=4)):
			self.refused('cpus', '5', 'QEMU', cpus=5)
			self.assertTrue(harness_config.parse_run(0, {**self.GOOD, 'cpus': 4},
								 LINES))
		# The clocksources its kernel has.
		self.refused('clocksource', 'arch_sys_counter', clocksource='arch_sys_counter')
		self.refused('clocksource', 'tsc', arch='arm64', atomics='lse', clocksource='tsc')
		for cs in x86_64.clocksources:
			self.assertTrue(harness_config.parse_run(0,
								 {**self.GOOD, 'clocksource': cs},
								 LINES))
		# A CPU model where the boots are in software emulation, one of its own.
		self.refused('cpu_model', 'KVM', cpu_model='qemu64')
		self.refused('cpu_model', 'cortex-a99', arch='arm64', atomics='llsc',
			     cpu_model='cortex-a99')
		self.assertTrue(harness_config.parse_run(0,
							 {**self.GOOD, 'arch': 'arm64',
							  'atomics': 'llsc',
							  'cpu_model': 'cortex-a57'}, LINES))
		# The atomics its kernel chooses on that CPU.
		self.refused('atomics', 'lse', 'cortex-a57', arch='arm64', atomics='lse',
			     cpu_model='cortex-a57')
		self.refused('atomics', 'llsc', 'max', arch='arm64', atomics='llsc')
		self.assertTrue(harness_config.parse_run(0,
							 {**self.GOOD, 'arch': 'arm64',
							  'atomics': 'lse'}, LINES))
		# preempt= on a flavour with PREEMPT_DYNAMIC only.
		self.refused('preempt', 'rt', 'PREEMPT_DYNAMIC', flavour='rt', preempt='full')
		self.assertTrue(harness_config.parse_run(0, {**self.GOOD, 'preempt': 'full'},
							 LINES))

	def test_an_architecture_that_boots_names_its_limits(self):
		d = os.path.join(temp_dir(self), 'arch')
		os.makedirs(d)
		for field in ('qemu_max_cpus', 'clocksources'):
			text = harness_util.file_text(os.path.join(harness_config.CONFIGS, 'arch',
								   'arm64.py'))
			with open(os.path.join(d, 'arm64.py'), 'w') as f:
				f.write(re.sub(rf'\n\t{field}=[^\n]*,\n', '\n', text))
			with mock.patch.object(harness_config, 'CONFIGS', os.path.dirname(d)), \
			     self.assertRaisesRegex(HarnessError,
						    'arm64.py: it boots, so its runs'):
				harness_config.load_arch('arm64')

	def test_an_architecture_with_a_32_bit_listener_names_its_elf_machine(self):
		d = os.path.join(temp_dir(self), 'arch')
		os.makedirs(d)
		text = harness_util.file_text(os.path.join(harness_config.CONFIGS, 'arch',
							   'x86_64.py'))
		with open(os.path.join(d, 'x86_64.py'), 'w') as f:
			f.write(re.sub(r'\n\tcompat_elf_machine=[^\n]*,\n', '\n', text))
		with mock.patch.object(harness_config, 'CONFIGS', os.path.dirname(d)), \
		     self.assertRaisesRegex(HarnessError, 'x86_64.py: a 32-bit listener'):
			harness_config.load_arch('x86_64')
		self.assertEqual(harness_config.load_arch('x86_64').compat_elf_machine, 3)

	def test_an_architecture_file_must_define_an_arch(self):
		d = os.path.join(temp_dir(self), 'arch')
		os.makedirs(d)
		for text in ('ARCH = None\n', 'ARCH = dict(name="x86_64")\n', 'X86_64 = None\n'):
			with open(os.path.join(d, 'x86_64.py'), 'w') as f:
				f.write(text)
			with mock.patch.object(harness_config, 'CONFIGS', os.path.dirname(d)), \
			     self.assertRaisesRegex(HarnessError,
						    r'x86_64.py: no ARCH = Arch\(...\)'):
				harness_config.load_arch('x86_64')

	def test_an_architecture_that_boots_names_its_guests_debian_packages(self):
		d = os.path.join(temp_dir(self), 'arch')
		os.makedirs(d)
		for field in ('debian_arch', 'debian_triplet', 'elf_machine', 'debian_suite'):
			text = harness_util.file_text(os.path.join(harness_config.CONFIGS, 'arch',
								   'x86_64.py'))
			with open(os.path.join(d, 'x86_64.py'), 'w') as f:
				f.write(re.sub(rf'\n\t{field}=[^\n]*,\n', '\n', text))
			with mock.patch.object(harness_config, 'CONFIGS', os.path.dirname(d)), \
			     self.assertRaisesRegex(HarnessError, 'x86_64.py: it boots'):
				harness_config.load_arch('x86_64')
		self.assertEqual(harness_config.load_arch('x86_64').debian_suite, 'bookworm')

	def test_kernel_arguments(self):
		self.refused('tsc=', kernel_args=['tsc=reliable', 'tsc=unstable'])
		self.refused('clocksource=', kernel_args=['clocksource=hpet'])
		self.refused('cnproc_run=', kernel_args=['cnproc_run=kunit'])
		self.refused('console=', kernel_args=['console=ttyS1'])
		self.refused("'a b'", kernel_args=['a b'])
		self.assertTrue(harness_config.parse_run(0,
							 {**self.GOOD,
							  'kernel_args': ['tsc=reliable', 'nosmt']},
							 LINES))

	def test_expectations(self):
		self.refused('load order', kernels={'patched': {'fail': ['load order']}})
		self.refused('client:keepalived',
			     kernels={'patched': {'fail': ['client:keepalived']}})
		self.refused('load_order', 'kunit', mode='kunit',
			     kernels={'patched': {'fail': ['load_order']}})
		self.refused('ack', kernels={'patched': {'fail': ['ack'], 'may_fail': ['ack']}})

	def test_config_fragments_are_options_or_comments(self):
		good = 'CONFIG_A=y\n# CONFIG_B is not set\n# a comment\n\nCONFIG_C="x y"\n'
		harness_config.check_fragment('f', good)
		for bad in ('CONFIG_A y', 'CONFIG_A=', 'A=y', '#CONFIG_B is not set ',
			    'CONFIG_A=y\nCONFG_B=y', 'CONFIG_A=x y'):
			with self.assertRaises(HarnessError, msg=bad):
				harness_config.check_fragment('f', bad)
		# Those of configs/ are checked with the lines, before any work.
		with mock.patch.object(harness_config, 'check_fragment') as check:
			harness_config.load_lines()
		checked = [c.args[0] for c in check.call_args_list]
		for f in ('configs/common.config', 'configs/clients.config',
			  'configs/flavours/rt.config'):
			self.assertIn(f, checked)

	def test_a_key_given_twice_is_an_error(self):
		configs = temp_dir(self)
		with open(os.path.join(configs, 'runs.toml'), 'w') as f:
			f.write('[[run]]\nname = "x"\nclocksource = "tsc"\n'
				'clocksource = "jiffies"\n')
		with mock.patch.object(harness_config, 'LINES_AND_RUNS_DIR', configs), \
		     self.assertRaises(HarnessError) as e:
			harness_config.load_runs([])
		self.assertIn('runs.toml', str(e.exception))

	def test_two_runs_of_one_name_on_a_line(self):
		lines = harness_config.load_lines()
		with mock.patch.object(harness_config, '_load_toml',
				       return_value={'run': [self.GOOD, self.GOOD]}), \
		     self.assertRaises(HarnessError) as e:
			harness_config.load_runs(lines)
		self.assertIn('two runs new of line 7.3', str(e.exception))

	def load(self, *runs):
		lines = harness_config.load_lines()
		with mock.patch.object(harness_config, '_load_toml',
				       return_value={'run': list(runs)}):
			return harness_config.load_runs(lines)

	def test_every_expected_failure_is_a_check_the_run_reports(self):
		kunit = 'kunit:ktime_stamp_ns_concurrent_test'
		# The base kernel has the series' first patch, and its KUnit cases.
		ok = [{'patched': {'fail': ['load_order', kunit]}},
		      {'base': {'may_fail': ['ack_order']}},
		      {'base': {'fail': [kunit]}},
		      {'patched': {'may_fail': ['client:keepalived']},
		       'base': {'fail': ['client:extrace']}}]
		for kernels in ok:
			self.assertTrue(self.load({**self.GOOD, 'clients': True,
						   'kernels': kernels}))
		bad = [{'patched': {'fail': ['load_ordr']}},
		       {'patched': {'fail': ['kunit:ktime_stamp_ns_concurent_test']}},
		       {'base': {'fail': ['kunit:ktime_stamp_ns_concurent_test']}},
		       {'patched': {'fail': ['client:keepalive']}}]
		for kernels in bad:
			with self.assertRaises(HarnessError, msg=kernels):
				self.load({**self.GOOD, 'clients': True, 'kernels': kernels})
		with self.assertRaises(HarnessError):
			self.load({**self.GOOD,
				   'kernels': {'patched': {'fail': ['client:keepalived']}},
				   'clients': False})

	def test_the_checks_the_selftest_reports(self):
		"""SELFTEST_CHECKS: every name the selftest gives a result
		(results_test holds them to a real boot)."""
		source = harness_util.file_text(os.path.join(TOP, harness_guest.SELFTEST,
							     'cn_proc_test.c'))
		names = re.findall(r'report\([^;]*"([a-z_]+)", NULL\);', source)
		order = re.findall(r'report\([^;]*"([a-z_]+)", undecided\);', source)
		kinds = re.findall(r'\bK\("([a-z_]+)",', source)
		self.assertEqual(sorted(order), ['ack_order', 'load_order', 'load_unique'])
		self.assertEqual(len(kinds), 11)
		self.assertEqual(sorted(names + order + kinds), sorted(harness_config.SELFTEST_CHECKS))

	def test_the_checks_proc_listeners_reports(self):
		"""PROC_LISTENERS_CHECKS: every name proc_listeners gives a result."""
		source = harness_util.file_text(os.path.join(TOP, harness_guest.SELFTEST,
							     'proc_listeners.c'))
		cases = re.findall(r'\{ "([a-z_]+)", (?:true|false), (?:true|false),', source)
		self.assertIn('"%s_as_%s\\n", l->name,', source)
		names = re.findall(r'ksft_test_result\([^;]*"([a-z_]+)\\n"\);', source)
		names += [f'{c}_as_{who}' for c in cases for who in ('root', 'nobody')]
		self.assertEqual(sorted('proc_listeners:' + n for n in names),
				 sorted(harness_config.PROC_LISTENERS_CHECKS))

	def test_the_kunit_cases_are_the_series(self):
		cases = ['ktime_stamp_ns_increasing_test', 'ktime_stamp_ns_follows_clock_test',
			 'ktime_stamp_ns_lead_test', 'ktime_stamp_ns_clock_stalled_test',
			 'ktime_stamp_ns_concurrent_test']
		for line in harness_config.load_lines():
			series = harness_config.series_patches(line.series_dir)
			self.assertEqual(harness_config.kunit_cases(series), cases)
			# Patch 1 adds them: the base kernel runs them too.
			base = harness_config.base_patches(line.series_dir)
			self.assertEqual(harness_config.kunit_cases(base), cases)
			run = harness_config.load_runs(harness_config.load_lines())[0]
			for variant in ('base', 'patched'):
				reportable = harness_config.reportable(run, line, variant)
				self.assertEqual([c for c in reportable if c.startswith('kunit:')],
						 ['kunit:' + c for c in cases], variant)

	def init_check(self, params):
		return subprocess.run(['sh', os.path.join(TOP, 'tests', 'init'), '--check'],
				      env={'PATH': os.environ['PATH'], **params},
				      stdout=subprocess.PIPE, text=True)

	def test_init_accepts_every_parameter_the_harness_gives(self):
		with mock.patch.object(harness_config, 'LINES_AND_RUNS_DIR',
				       harness_config.CONFIGS):
			runs = harness_config.load_runs(harness_config.load_lines())
		for r in runs + harness_config.load_runs(harness_config.load_lines()):
			params = dict(a.split('=', 1) for a in harness_config.kernel_cmdline(r)
				      if a.startswith('cnproc_'))
			params['cnproc_args'] = '-n 5'
			proc = self.init_check(params)
			self.assertEqual(proc.returncode, 0, f'{r.name}: {proc.stdout}')

	def test_init_refuses_what_it_does_not_know(self):
		for params, why in (({'cnproc_run': 'kunti'}, 'cnproc_run=kunti'),
				    ({'cnproc_rnu': 'kunit'}, 'unknown parameter cnproc_rnu'),
				    ({'cnproc_listener': '33'}, 'cnproc_listener=33'),
				    ({'cnproc_clients': 'yes'}, 'cnproc_clients=yes')):
			proc = self.init_check(params)
			self.assertNotEqual(proc.returncode, 0)
			self.assertIn(why, proc.stdout)


class Qemu(unittest.TestCase):
	def test_the_command_line_of_a_boot(self):
		arch = harness_config.load_arch('x86_64')
		self.assertEqual(
			harness_guest.qemu_argv(arch, 'bzImage', 'initrd', 'log', 2,
						harness_config.harness_args(arch)
						+ ['clocksource=jiffies']),
			['qemu-system-x86_64', '-machine', 'pc', '-m', '512', '-accel',
			 'tcg,thread=multi',
			 '-smp', '2', '-kernel', 'bzImage', '-initrd', 'initrd',
			 '-append',
			 'console=ttyS0 panic=-1 '
			 'kunit.filter_glob=time_test_cases.ktime_stamp_ns_* clocksource=jiffies',
			 '-display', 'none', '-monitor', 'none', '-serial', 'file:log',
			 '-no-reboot'])

	def test_kvm_has_the_hosts_cpu(self):
		argv = harness_guest.qemu_argv(harness_config.load_arch('x86_64'), 'i', 'r', 'l', 1,
					       [], harness_guest.KVM)
		self.assertIn('-accel kvm -cpu host -smp 1', ' '.join(argv))

	def test_a_cpu_model_runs_in_software_emulation(self):
		argv = harness_guest.qemu_argv(harness_config.load_arch('arm64'), 'i', 'r', 'l', 2,
					       [],
					       harness_guest.KVM, 'cortex-a57')
		self.assertIn('-accel tcg,thread=multi -cpu cortex-a57 -smp 2', ' '.join(argv))
		arm64 = harness_config.load_arch('arm64')
		argv = harness_guest.qemu_argv(arm64, 'i', 'r', 'l', 2,
					       harness_config.harness_args(arm64))
		self.assertIn('-machine virt -m 512 -accel tcg,thread=multi '
			      '-cpu max,pauth-impdef=on', ' '.join(argv))
		self.assertIn('console=ttyAMA0', ' '.join(argv))


def put_concurrently(cache, src, n):
	os.environ['XDG_CACHE_HOME'] = cache
	harness_util.cache_put(src, 'kernels', 'k')


class Cache(unittest.TestCase):
	def setUp(self):
		self.tmp = temp_dir(self)
		self.patch = mock.patch.dict(os.environ,
					     {'XDG_CACHE_HOME': os.path.join(self.tmp, 'cache')})
		self.patch.start()
		self.addCleanup(self.patch.stop)
		self.src = os.path.join(self.tmp, 'src')
		os.makedirs(self.src)
		with open(os.path.join(self.src, 'bzImage'), 'wb') as f:
			f.write(os.urandom(100000))
		harness_util.cache_put(self.src, 'kernels', 'k')
		self.entry = os.path.join(self.tmp, 'cache', 'cn-proc-timestamps', 'kernels', 'k')

	def get(self):
		dest = os.path.join(self.tmp, 'got')
		with contextlib.redirect_stdout(io.StringIO()):
			return harness_util.cache_get('kernels', 'k', dest), dest

	def test_an_entry_comes_back_whole(self):
		ok, dest = self.get()
		self.assertTrue(ok)
		with open(os.path.join(dest, 'bzImage'),
			  'rb') as a, open(os.path.join(self.src, 'bzImage'), 'rb') as b:
			self.assertEqual(a.read(), b.read())
		self.assertFalse(os.path.exists(os.path.join(dest, 'SHA256SUMS')))

	def test_a_damaged_entry_is_not_used_and_is_replaced(self):
		with open(os.path.join(self.entry, 'bzImage'), 'wb') as f:
			f.write(b'corrupt')
		ok, dest = self.get()
		self.assertFalse(ok)
		self.assertFalse(os.path.exists(dest))
		harness_util.cache_put(self.src, 'kernels', 'k')
		self.assertTrue(self.get()[0])

	def test_an_entry_without_checksums_is_not_trusted(self):
		os.remove(os.path.join(self.entry, 'SHA256SUMS'))
		self.assertFalse(self.get()[0])

	def test_a_failed_copy_never_records_the_image_as_present(self):
		with mock.patch('shutil.copytree', side_effect=OSError('disk full')):
			ok, dest = self.get()
		self.assertFalse(ok)
		self.assertFalse(os.path.exists(dest))

	def test_concurrent_puts_leave_one_whole_entry(self):
		shutil.rmtree(self.entry)
		os.makedirs(self.entry + '.tmp.left')	# an interrupted put
		cache = os.path.join(self.tmp, 'cache')
		procs = [multiprocessing.Process(target=put_concurrently,
						 args=(cache, self.src, i)) for i in range(6)]
		for p in procs:
			p.start()
		for p in procs:
			p.join()
		self.assertTrue(self.get()[0])
		self.assertEqual(sorted(os.listdir(os.path.dirname(self.entry))),
				 ['.lock', 'k', 'k.tmp.left'])


def patch_with(path, tags):
	with open(path, 'w') as f:
		f.write('From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.org>\n'
			'Subject: [PATCH] x: Do y\n'
			f' that wraps\n\nWhy.\n{tags}\n---\n x.c | 1 +\n')


class Tags(unittest.TestCase):
	def outside(self, tags):
		with tempfile.NamedTemporaryFile('w', suffix='.patch') as f:
			patch_with(f.name, tags)
			return harness_static.tags_outside_trailers(f.name)

	def test_one_trailer_block_passes(self):
		self.assertEqual(self.outside('\nFixes: 0123456789ab ("x: y")\n'
					      'Cc: stable@vger.kernel.org # 6.1\n'
					      'Signed-off-by: A <a@example.org>'), [])

	def test_no_blank_line_before_the_tags_fails(self):
		self.assertEqual(self.outside('Signed-off-by: A <a@example.org>'),
				 ['Signed-off-by: A <a@example.org>'])

	def test_a_blank_line_inside_the_tags_fails(self):
		self.assertEqual(self.outside('\nFixes: 0123456789ab ("x: y")\n'
					      'Cc: stable@vger.kernel.org\n\n'
					      'Signed-off-by: A <a@example.org>'),
				 ['Fixes: 0123456789ab ("x: y")', 'Cc: stable@vger.kernel.org'])

	def test_the_static_checks_start_with_the_tags(self):
		"""A series whose tags are not one block fails the first stage, which
		needs no tree."""
		d = temp_dir(self)
		patch_with(os.path.join(d, '0001-x.patch'), 'Signed-off-by: A <a@example.org>')
		with open(os.path.join(d, 'series'), 'w') as f:
			f.write('0001-x.patch\n')
		line = harness_config.KernelLine('7.3', 'linux-source-7.3', 'trixie-backports', d,
						 ())
		opts = harness_config.Options(out=os.path.join(d, 'out'))
		out = io.StringIO()
		with contextlib.redirect_stdout(out), mock.patch('subprocess.Popen',
								 side_effect=only_git), \
		     self.assertRaises(HarnessError) as e:
			harness_static.static_checks(line, opts, '7.3')
		self.assertIn('tags outside the trailer block', str(e.exception))
		self.assertIn("0001-x.patch: 'Signed-off-by: A <a@example.org>' is outside the "
			      'trailer block', out.getvalue())


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class Orchestration(HarnessCase):
	"""make boot-test on a mocked kernel tree: what is built in which order,
	the QEMU command lines, and the exit status."""

	def boot_test(self, log_of, ended=True, command=('boot-test',), **env):
		self.built, self.argvs, self.moves, self.fetched = [], [], [], []
		tree_root = os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL)))

		def newest_source(*args):
			self.fetched.append('the newest source')
			return tree_root

		def build(kernels, k):
			self.built.append((k.arch.name, k.flavour, k.variant))
			os.makedirs(kernels.image_dir(k), exist_ok=True)
			open(kernels.image(k), 'w').close()

		def boot(argv, log, timeout):
			"""A guest that got the command line it was given."""
			self.argvs.append(argv)
			name = os.path.basename(log)[len('boot-x86_64-'):-len('.log')]
			given = 'Kernel command line: ' + argv[argv.index('-append') + 1]
			with open(os.path.join(LOGS, log_of(name)),
				  errors='replace') as f, open(log, 'w') as to:
				to.writelines(re.sub(r'Kernel command line: .*', lambda m: given,
						     l) for l in f)
			return ended

		with mock.patch.object(harness_kernel, 'newest_source', newest_source), \
		     mock.patch.object(harness_kernel.Tree, 'prepare', fake_prepare()), \
		     mock.patch.object(harness_kernel.Tree, 'move_to', 
				       lambda t, v: self.moves.append(v)), \
		     mock.patch.object(harness_kernel.Tree, 'patched',
				       lambda t: self.moves.append('patched')), \
		     mock.patch.object(harness_kernel.Kernels, 'configure', lambda k, a, f: None), \
		     mock.patch.object(harness_kernel.Kernels, 'build', build), \
		     mock.patch.object(harness_boot, 'build_initramfs', lambda t, a, o,
				       k: 'initrd'), \
		     mock.patch.object(harness_guest, 'choose_accel',
				       lambda *a: harness_guest.TCG), \
		     mock.patch.object(harness_guest, 'boot',
				       boot), contextlib.ExitStack() as stack:
			if command[0] == 'boot-test':	# boot's test decides what the cache has
				stack.enter_context(mock.patch.object(harness_kernel.Kernels,
								      'fetch_cached',
								      lambda kernels, k: False))
			if command[0] == 'boot-test':
				env.setdefault('KERNEL', '7.3')
			return self.harness(command[0], True, *command[1:], **env)

	def verdicts(self):
		"""Each boot's verdict, as boot-test saved it: (kind, about) of each
		reason."""
		d = os.path.join(self.env['OUT'], '7.3', 'results', 'x86_64')
		out = {}
		for f in sorted(os.listdir(d)):
			with open(os.path.join(d, f)) as fh:
				out[f[:-len('.json')]] = [(w['kind'], w['about'])
							  for w in json.load(fh)['verdict']]
		return out

	def test_what_is_built_and_booted(self):
		logs = {'smp2.base': 'x86_64-smp2-base.log',
			'smp2.patched': 'x86_64-smp2-patched.log'}
		status, out = self.boot_test(lambda name: logs.get(name, 'x86_64-smp1-patched.log'),
					     CONFIGS='smp2 smp1', SELFTEST_ARGS='-n 500')
		self.assertEqual(status, 0, out)
		self.assertEqual(self.built,
				 [('x86_64', 'default', 'base'), ('x86_64', 'default', 'patched')])
		self.assertEqual(self.moves, ['base', 'patched', 'patched'])
		self.assertEqual([a[a.index('-smp') + 1] for a in self.argvs], ['2', '2', '1'])
		# base has patch 1 alone, not the domain the selftest probes: -a
		# there, and only there
		self.assertEqual(self.argvs[0][self.argvs[0].index('-append') + 1],
				 'console=ttyS0 panic=-1 '
				 'kunit.filter_glob=time_test_cases.ktime_stamp_ns_* '
				 'cnproc_clients=1 cnproc_args="-a -n 500"')
		self.assertIn('cnproc_args="-n 500"',
			      self.argvs[1][self.argvs[1].index('-append') + 1])
		self.assertEqual(self.verdicts(),
				 {'smp2.base': [], 'smp2.patched': [], 'smp1.patched': []})

	def test_a_boot_that_is_not_as_expected_fails_the_line(self):
		status, out = self.boot_test(lambda name: 'x86_64-jiffies-base.log',
					     CONFIGS='jiffies')
		self.assertEqual(status, 1)
		self.assertEqual(self.verdicts(), {'jiffies.base': [], 'jiffies.patched': [
			('failed', 'load_order'), ('failed', 'load_unique')]})
		self.assertNotIn('passed', out)

	def test_a_hung_boot_fails(self):
		status, out = self.boot_test(lambda name: 'selftest-unfinished.log', ended=False,
					     CONFIGS='smp1')
		self.assertEqual(status, 1)
		self.assertEqual(self.verdicts()['smp1.patched'][0], ('timed_out', ''))

	def test_boot_takes_one_kernel_from_the_cache(self):
		"""Looked up first (in_cache()), then copied (fetch_cached(), which
		finds a damaged entry): either missing, it is refused; a kernel
		not there is refused before anything is fetched."""
		for there, copied in ((True, True), (False, False), (True, False)):
			with mock.patch.object(harness_kernel.Kernels, 'fetch_cached',
					       lambda kernels, k: copied), \
			     mock.patch.object(harness_kernel.Kernels, 'in_cache',
					       lambda kernels, k: there):
				status, out = self.boot_test(lambda name: 'x86_64-smp2-patched.log',
							     command=('boot', '6.1', 'smp2',
								      'patched'))
			self.assertEqual(status, 0 if copied else 1, out)
			self.assertEqual((self.built, len(self.argvs)), ([], 1 if copied else 0))
			self.assertEqual('no such kernel in the cache' in out, not copied)
			# The guest is built from the tree at the series.
			self.assertEqual(self.moves, ['patched'] if copied else [])
			self.assertEqual(self.fetched, ['the newest source'] if there else [])
		self.assertNotEqual(self.harness('boot', False, '6.1', 'smp2', 'pathced')[0], 0)
		out = self.refused('boot', 'error: no run rt of Linux 6.1', '6.1', 'rt', 'patched')
		self.assertNotIn('--runs', out)

	def test_parse_judges_a_saved_log_as_boot_does(self):
		"""parse LOG LINE RUN VARIANT: the verdict and table of the boot,
		booting nothing; 0 as the run expects, 1 if not, refused without
		the log."""
		tree_root = os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL)))
		log = os.path.join(LOGS, 'x86_64-smp2-patched.log')
		with mock.patch.object(harness_kernel, 'newest_source', return_value=tree_root):
			status, out = self.harness('parse', False, log, '7.3', 'smp2', 'patched')
			self.assertEqual(status, 0, out)
			self.assertIn('| load_order ', out)
			self.assertIn(': 1 of 1 boots as expected', out)
			status, out = self.harness('parse', False, log, '7.3', 'smp1', 'patched')
			self.assertEqual(status, 1, out)
			self.assertIn('UNEXPECTED: smp1 patched: ', out)
			# The selftest's arguments are the boot's: a log of a boot without them.
			status, out = self.harness('parse', False, log, '7.3', 'smp2', 'patched',
						   SELFTEST_ARGS='-n 500')
			self.assertEqual(status, 1, out)
			status, out = self.harness('parse', False, log + '.none', '7.3', 'smp2',
						   'patched')
			self.assertEqual(status, 1, out)
			self.assertIn('no such file', out)
			# Its one line, as a boot's when it ends: an unexpected one with
			# its log and first failing KTAP line; a mutant's as its run expects.
			base = os.path.join(LOGS, 'x86_64-smp2-base.log')
			status, out = self.harness('parse', False, base, '7.3', 'smp2', 'patched')
			self.assertRegex(out, r'(?m)^\[FAILED\] 1/1 Linux 7.3 x86_64 smp2 patched: '
					 r'\d+/\d+ checks ok, inversions 9, ties 0, '
					 r'UNEXPECTED \(0s\): .*load_order failed.*; log '
					 + re.escape(base) + ': not ok 16 load_order$')
			mutant = os.path.join(LOGS, 'x86_64-mutant-helper.log')
			status, out = self.harness('parse', False, mutant, '7.3', 'mutant-helper',
						   'plain-ktime-get-ns')
			self.assertEqual(status, 0, out)
			self.assertRegex(out, r'(?m)^\[PASSED\] 1/1 Linux 7.3 x86_64 mutant-helper '
					 r'plain-ktime-get-ns: \d+/\d+ checks ok, inversions -, '
					 r'ties -, as expected \(0s\)$')

	def test_mutants_are_built_after_the_series(self):
		status, out = self.boot_test(lambda name: 'x86_64-smp2-patched.log',
					     CONFIGS='mutant-domains jiffies')
		self.assertEqual(self.built,
				 [('x86_64', 'default', 'base'), ('x86_64', 'default', 'patched'),
				  ('x86_64', 'default', 'per-cpu-domains')])


class GuestDebs(HarnessCase):
	def test_the_guests_debian_packages_are_of_the_architectures_suite(self):
		"""busybox and the tools of Arch.debian_suite; the clients of
		--clients-suite and sid."""
		opts = harness_config.Options(out=self.env['OUT'])
		arch = dataclasses.replace(harness_config.load_arch('x86_64'),
					   debian_suite='trixie')
		suites = set()

		def stage_fragment(frag, opts, arch, suite, dest):
			suites.update((suite, p.package) for p in frag.programs)

		def debs(opts, suite, arch, *pkgs):
			suites.update((suite, p) for p in pkgs)
			raise HarnessError('no busybox here')

		with mock.patch.object(harness_guest, 'stage_fragment', stage_fragment), \
		     mock.patch.object(harness_guest, 'debs', debs), \
		     mock.patch.object(harness_util, 'run'), mock.patch('shutil.copytree'), \
		     self.assertRaisesRegex(HarnessError, 'no busybox'):
			harness_guest.guest_debs(opts, arch, os.path.join(self.env['OUT'], 'root'))
		self.assertEqual({(s, p) for s,
				  p in suites if p in ('cgroup-tools', 'coreutils',
						       'busybox-static')},
				 {('bookworm', 'cgroup-tools'), ('sid', 'cgroup-tools'),
				  ('trixie', 'coreutils'),
				  ('trixie', 'busybox-static')})


class Makefile(unittest.TestCase):
	"""make's variables become the harness's flags, and nothing else
	reaches it: what make would run (make -n)."""

	def harness_line(self, *args, **env):
		env = {k: v for k,
		       v in os.environ.items() if k not in ('ARCH', 'KERNEL', 'CONFIGS',
							    'OUT')} | env
		out = subprocess.run(['make', '-n', '-s', '-C', TOP, 'boot-test', *args], env=env,
				     stdout=subprocess.PIPE, text=True).stdout
		return [l for l in out.splitlines() if 'harness.py boot-test' in l][0]

	def test_variables_become_flags(self):
		line = self.harness_line('ARCH=arm64', 'CONFIGS=arm64-lse arm64-llsc', KERNEL='7.3')
		self.assertIn("--arch='arm64'", line)
		self.assertIn("--configs='arm64-lse arm64-llsc'", line)
		self.assertIn("--kernel='7.3'", line)

	def test_an_arch_in_the_environment_is_kbuilds_and_ignored(self):
		self.assertNotIn('--arch', self.harness_line(ARCH='arm'))

	def test_make_has_a_target_for_each_command_but_the_scripts_own(self):
		"""What make help and the option list call a target is one: make
		runs harness.py COMMAND for it; harness.SCRIPT_ONLY have none."""
		env = {k: v for k, v in os.environ.items() if k not in ('MAKEFLAGS', 'MAKELEVEL')}
		targets = [c for c in harness.COMMANDS if c not in harness.SCRIPT_ONLY]
		out = subprocess.run(['make', '-n', '-s', '-C', TOP, *targets], env=env,
				     capture_output=True, text=True, check=True).stdout
		for c in targets:
			self.assertRegex(out, f'harness.py {c}( |$)', c)
		for c in harness.SCRIPT_ONLY:
			proc = subprocess.run(['make', '-n', '-s', '-C', TOP, c], env=env,
					      capture_output=True, text=True)
			self.assertIn(f"No rule to make target '{c}'", proc.stderr)

	def test_makes_command_line_reaches_the_harness_whole(self):
		"""make's command-line variables, options or not, reach the harness,
		which refuses the others (DRY_RUN, which once asked for a dry run;
		kbuild's C and W): a target that does nothing else."""
		with tempfile.TemporaryDirectory() as out:
			proc = subprocess.run(['make', '-s', '-C', TOP, 'results', f'OUT={out}',
					       'DRY_RUN=1', 'C=1'], capture_output=True, text=True)
		self.assertNotEqual(proc.returncode, 0)
		self.assertIn('make results: error: DRY_RUN= is no variable of make results',
			      proc.stderr)
		self.assertIn('make results: error: C= is no variable', proc.stderr)


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kselftest_harness.h of the newest line')
class SelftestHostTest(unittest.TestCase):
	"""The host test of the selftest's checks (tests/selftest/), built as
	make unit-tests builds it, passes; so a broken check fails here."""

	def test_it_passes(self):
		selftests = os.path.join(os.path.dirname(KUNIT_TOOL), 'selftests')
		with tempfile.TemporaryDirectory() as tmp:
			subprocess.run(harness.selftest_host_test_argv(selftests, tmp), check=True)
			proc = subprocess.run([os.path.join(tmp, 'cn_proc_test_checks')],
					      stdout=subprocess.PIPE, text=True)
		self.assertEqual(proc.returncode, 0, proc.stdout)
		self.assertRegex(proc.stdout, r'\nok [0-9]+ global.kallsyms\n')

	def test_the_guests_programs_build(self):
		"""tests/cn_proc_listener.c and cn_proc_request.c, which the guest
		builds against the tree's headers, build here too: -Wall, no
		warning."""
		for prog in ('cn_proc_listener.c', 'cn_proc_request.c'):
			subprocess.run(['gcc', '-Wall', '-Werror', '-fsyntax-only',
					os.path.join(TOP, 'tests', prog)], check=True)


class SelftestPatch(unittest.TestCase):
	"""make file-diffs: the selftest's patches, made from its files and
	their changelogs against a pristine tree's connector directory."""
	MAINTAINERS = ('NETWORKING DRIVERS\nM:\tA <a@example.org>\nF:\tdrivers/connector/\n'
		       'F:\tdrivers/net/\nF:\ttools/testing/selftests/drivers/net/\n'
		       'X:\tdrivers/net/can/\n\nOTHER\nF:\tz/\n')

	def src(self, tmp):
		import harness_diffs
		st = os.path.join(tmp, 'src', harness_diffs.SELFTEST)
		os.makedirs(st)
		for name, text in (('Makefile', '# SPDX-License-Identifier: GPL-2.0\n'
				    'CFLAGS += -Wall $(KHDR_INCLUDES)\n\n'
				    'TEST_GEN_PROGS = proc_filter\n\ninclude ../lib.mk\n'),
				   ('.gitignore', 'proc_filter\n'),
				   ('proc_filter.c', 'int main(void) {}\n')):
			with open(os.path.join(st, name), 'w') as f:
				f.write(text)
		with open(os.path.join(tmp, 'src', 'MAINTAINERS'), 'w') as f:
			f.write(self.MAINTAINERS)
		return os.path.join(tmp, 'src')

	def test_the_patches(self):
		"""Each the last of its posting, signed as its changelog says; the
		net posting's brings proc_listeners and the directory's
		MAINTAINERS line, the series' cn_proc_test; together, every file
		of the directory; the Makefile, .gitignore and config of each the
		lines of its programs and options."""
		import harness_diffs
		with tempfile.TemporaryDirectory() as tmp:
			made = harness_diffs.selftest_patches(self.src(tmp))
		series = harness_util.file_text(os.path.join(TOP, 'patches', 'series')).split()
		self.assertEqual([p for p, _ in made],
				 [[s for s in series if os.path.dirname(s) == t.posting][-1]
				  for t in harness_diffs.SELFTEST_PATCHES])
		(net, net_text), (own, own_text) = made
		self.assertIn('\nSubject: [PATCH 2/2] selftests: connector: ', net_text)
		self.assertIn('\nSubject: [PATCH 4/4] selftests: connector: ', own_text)
		for t, (_, text) in zip(harness_diffs.SELFTEST_PATCHES, made):
			head = text[:text.index('\n---\n')]
			self.assertTrue(head.rstrip().endswith(
				'\nSigned-off-by: ' + harness_diffs.changelog(t.changelog)[0]['From']), head)
			added = re.findall(r'^\+\+\+ b/(\S+)', text, re.M)
			for f in ('cn_proc_test_checks.c', 'changelog', '.diff', 'settings', 'proc_filter.c'):
				self.assertFalse([a for a in added if a.endswith(f)], f)
		files = re.findall(r'^\+\+\+ b/\S+/connector/(\S+)', net_text + own_text, re.M)
		self.assertEqual(set(files), set(harness_diffs.selftest_files()) - {'proc_filter.c'})
		self.assertIn('+++ b/tools/testing/selftests/connector/proc_listeners.c', net_text)
		self.assertNotIn('cn_proc_test', net_text)
		self.assertIn('+++ b/tools/testing/selftests/connector/cn_proc_test.c', own_text)
		self.assertNotIn('proc_listeners.c', own_text)
		self.assertIn('\n+CONFIG_KALLSYMS_ALL=y\n', own_text)
		self.assertNotIn('KALLSYMS', net_text)
		self.assertIn('\n+F:\ttools/testing/selftests/connector/\n'
			      ' F:\ttools/testing/selftests/drivers/net/\n', net_text)
		self.assertNotIn('MAINTAINERS', own_text)

	def test_a_program_or_option_no_patch_adds_fails(self):
		import harness_diffs
		with tempfile.TemporaryDirectory() as tmp:
			src = self.src(tmp)
			for patches in ((harness_diffs.SELFTEST_PATCHES[0],),
					(harness_diffs.SelftestPatch('net', ('proc_listeners', 'cn_proc_test'),
								     ('CONFIG_NET',)),)):
				with mock.patch.object(harness_diffs, 'SELFTEST_PATCHES', patches), \
				     self.assertRaisesRegex(HarnessError, 'no patch of SELFTEST_PATCHES adds it'):
					harness_diffs.selftest_state(0, os.path.join(src, harness_diffs.SELFTEST))

	def test_maintainers_once_in_its_entry(self):
		import harness_diffs
		once = harness_diffs.maintainers_with_selftest(self.MAINTAINERS)
		self.assertEqual(once.count('selftests/connector'), 1)
		self.assertLess(once.index('drivers/net/\n'), once.index('selftests/connector'))
		self.assertLess(once.index('selftests/connector'),
				once.index('selftests/drivers/net'))
		self.assertEqual(harness_diffs.maintainers_with_selftest(once), once)
		with self.assertRaises(HarnessError):
			harness_diffs.maintainers_with_selftest('OTHER\nF:\tz/\n')

	def test_the_per_file_diffs_leave_the_selftest_out(self):
		import harness_diffs
		with tempfile.TemporaryDirectory() as tmp:
			src = self.src(tmp)
			os.makedirs(os.path.join(tmp, 'series'))
			made = harness_diffs.selftest_patches(src)
			for name, text in made:
				os.makedirs(os.path.dirname(os.path.join(tmp, 'series', name)), exist_ok=True)
				with open(os.path.join(tmp, 'series', name), 'w') as f:
					f.write(text)
			with open(os.path.join(tmp, 'series', 'series'), 'w') as f:
				f.write(''.join(name + '\n' for name, _ in made))
			line = harness_config.KernelLine('7.3', 'linux-source-7.3',
							 'trixie-backports',
							 os.path.join(tmp, 'series'), ())
			self.assertEqual(sorted(harness_diffs.expected(line, src)),
					 ['MAINTAINERS.diff'])


class MutantsOnTheSeries(unittest.TestCase):
	"""expected(): a boot-test mutant that no longer applies on top of
	the series fails check-file-diffs, not the boot test's build."""

	def test_a_mutant_that_no_longer_applies_fails(self):
		import harness_diffs
		with tempfile.TemporaryDirectory() as tmp:
			for d in ('src', 'series'):
				os.makedirs(os.path.join(tmp, d))
			with open(os.path.join(tmp, 'src', 'f.c'), 'w') as f:
				f.write('a\nb\nc\n')
			texts = {'series/series': '0001-b.patch\n',
				 'series/0001-b.patch': '--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n',
				 'fits.patch': '--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,3 @@\n a\n-B\n+BB\n c\n',
				 'stale.patch': '--- a/f.c\n+++ b/f.c\n@@ -1,3 +1,3 @@\n a\n-b\n+bb\n c\n'}
			for name, text in texts.items():
				with open(os.path.join(tmp, name), 'w') as f:
					f.write(text)
			line = harness_config.KernelLine('7.3', 'linux-source-7.3', 'trixie-backports',
							 os.path.join(tmp, 'series'), ())
			src = os.path.join(tmp, 'src')
			fits, stale = os.path.join(tmp, 'fits.patch'), os.path.join(tmp, 'stale.patch')
			self.assertEqual(list(harness_diffs.expected(line, src, [fits])), ['f.c.diff'])
			with self.assertRaisesRegex(HarnessError, r'no longer apply .*: \S*stale\.patch$'):
				harness_diffs.expected(line, src, [fits, stale])


if __name__ == '__main__':
	unittest.main(verbosity=1)
