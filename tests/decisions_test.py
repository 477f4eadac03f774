#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the harness's decisions that can turn a verdict and are not
the log's (results_test.py has those): make check's steps, kunit.py's
result, the static checks, the per-file diffs, the kconfig check, the
cache keys, the default line and a hung boot. Each runs the decision's
own code on inputs made here, with the commands it would run replaced
(make bench's boots too);
make mutation (tests/harness-mutants.toml) shows that each fails when its
decision is broken.
"""

import contextlib
import io
import json
import re
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True

import harness  # noqa: E402
import harness_bench  # noqa: E402
import harness_boot  # noqa: E402
import harness_results  # noqa: E402
import harness_config  # noqa: E402
import harness_diffs  # noqa: E402
import harness_kernel  # noqa: E402
import harness_mutation  # noqa: E402
import harness_guest  # noqa: E402
import harness_kunit  # noqa: E402
import harness_patches  # noqa: E402
import harness_static  # noqa: E402
import harness_tables  # noqa: E402
import harness_util  # noqa: E402
from harness_test import (KUNIT_TOOL, LOGS, HarnessCase, fake_prepare, patch_with,  # noqa: E402
			  temp_dir)
from harness_util import HarnessError  # noqa: E402

# How long a test waits for a call that must return before it counts it
# hung: far above the 1 s timeout the tests give the harness.
GUARD = 20


def quiet():
	return contextlib.redirect_stdout(io.StringIO())


def completed(argv, returncode=0, stdout=''):
	return subprocess.CompletedProcess(argv, returncode, stdout, '')


class Check(HarnessCase):
	"""make check: every step, in order, the first failure ends it."""
	STEPS = ['file_diffs', 'unit_tests', 'mails_check_handler', 'static_checks_handler', 'litmus_handler',
		 'kunit_handler', 'boot_test_handler']

	def check(self, fail=None):
		self.calls = []

		def step(name):
			def f(s, *args, **kwargs):
				self.calls.append((name, kwargs))
				self.lines = [l.name for l in s.chosen]
				return 1 if name == fail else 0
			return f
		with contextlib.ExitStack() as stack:
			for name in self.STEPS:
				stack.enter_context(mock.patch.object(harness, name, step(name)))
			status, out = self.harness('check', commands=True)
		return status, out

	def test_every_step_runs_in_order(self):
		status, out = self.check()
		self.assertEqual(status, 0, out)
		self.assertEqual([c for c, _ in self.calls], self.STEPS)
		self.assertEqual(dict(self.calls)['file_diffs'], {'check': True})
		# The unit tests of make check need kunit_parser: never skipped.
		self.assertEqual(dict(self.calls)['unit_tests'], {'required': True})
		# Every line by default.
		self.assertEqual(self.lines, [l.name for l in harness_config.load_lines()])

	def test_the_first_failed_step_ends_it(self):
		for i, name in enumerate(self.STEPS):
			status, out = self.check(fail=name)
			self.assertEqual(status, 1, name)
			self.assertEqual([c for c, _ in self.calls], self.STEPS[:i + 1])
			self.assertNotIn('passed', out)
			failed = [s for s in harness_util.STAGES if s[3] == 'FAILED']
			self.assertEqual(len(failed), 1)

	def test_its_verdict_is_kept_for_make_results_passed_or_not(self):
		"""OUT/check.time: cold on an empty cache, warm on one with an
		entry; passed, or where it failed; each step's time."""
		def verdict():
			return harness_util.file_text(os.path.join(self.env['OUT'], 'check.time'))
		# apt's downloads are no entry.
		lists = os.path.join(self.env['XDG_CACHE_HOME'], 'cn-proc-timestamps', 'apt', 'sid')
		os.makedirs(os.path.join(lists, 'lists'))
		self.check()
		self.assertRegex(verdict(), r'^make check \(KERNEL=all\) at \S+, cold: passed in '
				 r'0m\ds \(per-file diffs 0m\ds, unit tests 0m\ds, mails 0m\ds, ')
		entry = os.path.join(self.tmp, 'entry')
		os.makedirs(entry)
		with mock.patch.dict(os.environ, {'XDG_CACHE_HOME': self.env['XDG_CACHE_HOME']}):
			harness_util.cache_put(entry, 'kernels', 'k')
		self.check(fail='static_checks_handler')
		self.assertRegex(verdict(), r', warm: FAILED at static checks after 0m\ds '
				 r'\(per-file diffs 0m\ds, unit tests 0m\ds, mails 0m\ds\)$')

	def test_the_time_of_every_stage_at_the_end(self):
		status, out = self.check()
		summary = out[out.index('stage times:'):]
		self.assertEqual(len(harness_util.STAGES), len(self.STEPS))
		for _, name, _, ok in harness_util.STAGES:
			self.assertIn(name, summary)
			self.assertEqual(ok, 'done')


class UnitTests(HarnessCase):
	"""make check's unit tests need the newest line's kunit_parser; make
	unit-tests alone skips, and counts, what needs it."""

	def unit_tests(self, required, cached=None):
		self.ran = []

		def run(argv, log=None, **kwargs):
			self.ran.append(argv)
			if log:
				os.makedirs(os.path.dirname(log), exist_ok=True)
				with open(log, 'w') as f:
					f.write('....ss\n---\nRan 6 tests in 0.1s\n\nOK (skipped=2)\n')
			return completed(argv)
		out = io.StringIO()
		with mock.patch.object(harness_kernel, 'fetch_source', side_effect=HarnessError('fetch')) as fetch, \
		     mock.patch.object(harness_kernel, 'cached_source', return_value=cached), \
		     mock.patch.object(harness, 'run', run), contextlib.redirect_stdout(out), \
		     mock.patch.object(harness_mutation, 'load_mutants', return_value=[]):
			# load_mutants() not mocked, a mutant's copy (its original
			# text gone) would fail this test: every mutant killed.
			opts = harness_config.Options(out=self.env['OUT'])
			try:
				status = harness.unit_tests(harness.Session.load(opts), required=required)
			except HarnessError:
				status = None
		return status, fetch.called, out.getvalue()

	def test_required_a_skipped_test_fails(self):
		src = os.path.join(self.tmp, 'linux')
		os.makedirs(os.path.join(src, 'tools/testing/selftests'))
		for f in ('kselftest.h', 'kselftest_harness.h', 'lib.mk'):
			open(os.path.join(src, 'tools/testing/selftests', f), 'w').close()
		with mock.patch.object(harness_kernel, 'newest_source', return_value=src):
			status, fetched, out = self.unit_tests(required=True)
		self.assertIsNone(status)
		self.assertIn('unittest', ' '.join(self.ran[-1]))

	def test_required_the_source_is_fetched(self):
		status, fetched, out = self.unit_tests(required=True)
		self.assertTrue(fetched)
		self.assertIsNone(status)
		self.assertEqual(self.ran, [])

	def test_alone_nothing_is_fetched_and_skips_are_counted_on_one_line(self):
		status, fetched, out = self.unit_tests(required=False)
		self.assertEqual(status, 0)
		self.assertFalse(fetched)
		skipped = [l for l in out.splitlines() if 'SKIPPED' in l]
		self.assertEqual(len(skipped), 1, out)
		self.assertIn('2 unit tests', skipped[0])


class CachedSource(unittest.TestCase):
	def test_the_newest_version_by_debians_order(self):
		cache = temp_dir(self)
		for i, v in enumerate(('7.3.4-1~bpo13+1', '7.3.10-1~bpo13+1', '7.3.9-2~bpo13+1', '7.3.11-1~bpo13+1',
				       '6.12.9-1')):
			d = os.path.join(cache, 'cn-proc-timestamps', 'src', f'{i:016x}')
			os.makedirs(d)
			with open(os.path.join(d, '.unpacked'), 'w') as f:
				f.write(f'linux-source-{v[:v.index(".", 2)]} {v}\n')
			if v != '7.3.11-1~bpo13+1':	# being unpacked
				open(os.path.join(d, 'SHA256SUMS'), 'w').close()
		line = harness_config.load_lines()[0]
		with mock.patch.dict(os.environ, {'XDG_CACHE_HOME': cache}):
			got = harness_kernel.cached_source(line)
			self.assertEqual(harness_util.file_text(os.path.join(got, '.unpacked')),
					 'linux-source-7.3 7.3.10-1~bpo13+1\n')
		with mock.patch.dict(os.environ, {'XDG_CACHE_HOME': temp_dir(self)}):
			self.assertIsNone(harness_kernel.cached_source(line))


def private_cache(case):
	"""A temporary directory whose cache/ is the cache for CASE, which
	ends with the cache no longer bypassed; the directory."""
	tmp = temp_dir(case)
	p = mock.patch.dict(os.environ, {'XDG_CACHE_HOME': os.path.join(tmp, 'cache')})
	p.start()
	case.addCleanup(p.stop)
	case.addCleanup(harness_util.bypass_cache, False)
	return tmp


class FetchSource(unittest.TestCase):
	"""A line's source is the cache entry of its package's .deb: unpacked
	once, again for another .deb or with --no-cache."""

	def setUp(self):
		self.tmp = private_cache(self)
		self.deb = os.path.join(self.tmp, 'linux-source-7.3_7.3.4-1_all.deb')
		self.write_deb('one')
		self.unpacked = []

	def write_deb(self, text):
		with open(self.deb, 'w') as f:
			f.write(text)

	def fetch(self):
		def run(argv, **kw):
			if argv[0].endswith('debs.sh'):
				return completed(argv, 0, self.deb + '\n')
			self.unpacked.append(harness_util.file_text(argv[1]))
			with open(os.path.join(argv[2], '.unpacked'), 'w') as f:
				f.write('linux-source-7.3 7.3.4-1\n')
			return completed(argv)
		line = harness_config.load_lines()[0]
		with mock.patch.object(harness_util, 'run', run), quiet():
			return harness_kernel.fetch_source(line, harness_config.Options(out=self.tmp))

	def test_unpacked_once_per_deb(self):
		first = self.fetch()
		self.assertEqual(self.fetch(), first)
		self.write_deb('two')
		second = self.fetch()
		self.assertNotEqual(second, first)
		self.assertEqual(self.unpacked, ['one', 'two'])
		self.assertTrue(os.path.isfile(os.path.join(second, 'SHA256SUMS')))

	def test_no_cache_unpacks_again(self):
		self.fetch()
		harness_util.bypass_cache()
		self.fetch()
		self.assertEqual(self.unpacked, ['one', 'one'])


class DefaultLine(unittest.TestCase):
	def test_the_newest_line_by_default(self):
		lines = harness_config.load_lines()
		self.assertEqual(harness_config.select_lines(harness_config.Options(), lines), lines[:1])
		self.assertEqual(harness_config.select_lines(harness_config.Options(), lines[::-1]), lines[-1:])


def fake_tree(case, files=()):
	"""A Tree of a line whose series is two patches made here, the second
	changing cn_proc.c (so base has the first alone)."""
	d = temp_dir(case)
	series = os.path.join(d, 'series-dir')
	os.makedirs(series)
	for p in ('0001-x.patch', '0002-y.patch'):
		patch_with(os.path.join(series, p), '\nSigned-off-by: A <a@example.org>')
	with open(os.path.join(series, '0002-y.patch'), 'a') as f:
		f.write('diff --git a/drivers/connector/cn_proc.c b/drivers/connector/cn_proc.c\n'
			'--- a/drivers/connector/cn_proc.c\n+++ b/drivers/connector/cn_proc.c\n'
			'@@ -1 +1 @@\n-a\n+b\n')
	with open(os.path.join(series, 'series'), 'w') as f:
		f.write('0001-x.patch\n0002-y.patch\n')
	line = harness_config.KernelLine('7.3', 'linux-source-7.3', 'trixie-backports', series, ())
	opts = harness_config.Options(out=os.path.join(d, 'out'), jobs=2)
	tree = harness_kernel.Tree(line, opts)
	os.makedirs(tree.path)
	with open(os.path.join(tree.line_out, 'tree.id'), 'w') as f:
		f.write('linux-source-7.3 7.3.4-1\n')
	for name, text in dict(files).items():
		os.makedirs(os.path.dirname(os.path.join(tree.path, name)), exist_ok=True)
		with open(os.path.join(tree.path, name), 'w') as f:
			f.write(text)
	return tree, opts


def change_series(tree, patch=-1):
	"""The change (not the commit message) of the series' PATCH (the last
	by default) changed."""
	with open(tree.patches[patch], 'a') as f:
		f.write('diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1,2 @@\n x\n+y\n')
	before = tree.digest
	tree.digest = harness_kernel.series_digest(tree.patches)
	tree.base_digest = harness_kernel.series_digest(tree.base_patches)
	assert tree.digest != before


def kunit_log(skip=(), missing=()):
	"""kunit.py's kernel output with the series' KUnit cases, SKIP skipped
	and MISSING absent."""
	cases = harness_config.kunit_cases(harness_config.series_patches(harness_config.load_lines()[0].series_dir))
	out = ['KTAP version 1', '1..1', '    KTAP version 1', '    # Subtest: time_test_cases',
	       f'    1..{len(cases) + 1}', '    ok 1 time64_to_tm_test_date_range']
	for i, c in enumerate(cases, 2):
		if c not in missing:
			out.append(f'    ok {i} {c}' + (' # SKIP needs two CPUs or more' if c in skip else ''))
	return '\n'.join(out + ['ok 1 time_test_cases']) + '\n'


class Kunit(HarnessCase):
	"""kunit.py's result is the verdict, and every KUnit case of the series
	must have run (the concurrent one needs two CPUs: x86_64 with -smp 2);
	only a passing run is cached, under a key that changes with the
	series."""

	def kunit(self, returncode, digest='a', log=None, missing=()):
		self.ran, self.envs = [], []
		log = kunit_log() if log is None else log

		prepare = fake_prepare({'tools/testing/kunit/kunit.py': '',
					'kernel/time/.kunitconfig': 'CONFIG_KUNIT=y\n'}, digest)

		def run(argv, cwd=None, check=True, env=None, **kwargs):
			self.ran.append(argv[1:])
			self.envs.append(env)
			build = [a[len('--build_dir='):] for a in argv if a.startswith('--build_dir=')]
			if build:
				os.makedirs(build[0], exist_ok=True)
				with open(os.path.join(build[0], 'test.log'), 'w') as f:
					f.write(log)
			return completed(argv, returncode)
		def configure(kernels, arch, flavour):
			build = kernels.build_dir(arch, flavour)
			os.makedirs(build, exist_ok=True)
			with open(os.path.join(build, '.config'), 'w') as fh:
				fh.write('CONFIG_KUNIT=y\n')
		with mock.patch.object(harness_kernel.Tree, 'prepare', prepare), \
		     mock.patch.object(harness_kernel.Tree, 'patched', lambda t: None), \
		     mock.patch.object(harness_kernel.Kernels, 'configure', configure), \
		     mock.patch.object(harness_kunit, 'kunit_config', lambda tree: None), \
		     mock.patch.object(harness_kunit, 'missing_from_boot_config', lambda *a: list(missing)), \
		     mock.patch.object(harness_kunit, 'output', return_value='gcc 12\n'), \
		     mock.patch.object(harness_util, 'run', run):
			return self.harness('kunit', commands=True)[0]

	def test_a_failing_run_fails_and_is_not_cached(self):
		self.assertEqual(self.kunit(1), 1)
		self.assertEqual(self.kunit(0), 0)
		self.assertEqual([r[0] for r in self.ran], ['run'])

	def test_a_passing_run_is_read_again_from_the_cache(self):
		self.assertEqual(self.kunit(0), 0)
		self.assertEqual(self.kunit(0), 0)
		self.assertEqual([r[0] for r in self.ran], ['parse'])

	def test_another_series_runs_again(self):
		self.assertEqual(self.kunit(0, digest='a'), 0)
		self.assertEqual(self.kunit(0, digest='b'), 0)
		self.assertEqual([r[0] for r in self.ran], ['run'])

	def test_the_boot_tests_x86_64_kernel_is_kunit_pys(self):
		self.assertEqual(self.kunit(0), 0)
		args = self.ran[0]
		build = os.path.join(self.env['OUT'], '7.3', 'build', 'x86_64-default')
		self.assertIn(f'--build_dir={build}', args)
		configs = [a for a in args if a.startswith('--kunitconfig=')]
		self.assertEqual(configs[0], '--kunitconfig=kernel/time')
		self.assertEqual(len(configs), 2, args)
		with open(configs[1][len('--kunitconfig='):]) as f:
			self.assertEqual(f.read(), 'CONFIG_KUNIT=y\n')

	def test_a_boot_config_without_the_kunitconfigs_options_does_not_run(self):
		self.assertEqual(self.kunit(0, missing=['CONFIG_TIME_KUNIT_TEST=y']), 1)
		self.assertEqual(self.ran, [])

	@unittest.skipUnless(KUNIT_TOOL, 'no KUNIT_TOOL (the newest line\'s tools/testing/kunit)')
	def test_a_boot_config_without_the_kunitconfigs_options_is_refused(self):
		kconfig = harness_kernel.kunit_config(KUNIT_TOOL[:-len('/tools/testing/kunit')])
		boot = os.path.join(temp_dir(self), 'boot.config')
		kunitconfig = 'CONFIG_KUNIT=y\nCONFIG_TIME_KUNIT_TEST=y\n'
		for text, missing in (('CONFIG_KUNIT=y\nCONFIG_TIME_KUNIT_TEST=y\nCONFIG_SMP=y\n', []),
				      ('CONFIG_KUNIT=y\n# CONFIG_TIME_KUNIT_TEST is not set\n', ['CONFIG_TIME_KUNIT_TEST=y']),
				      ('CONFIG_SMP=y\n', ['CONFIG_KUNIT=y', 'CONFIG_TIME_KUNIT_TEST=y'])):
			with open(boot, 'w') as f:
				f.write(text)
			self.assertEqual(harness_kunit.missing_from_boot_config(kunitconfig, boot, kconfig), missing, text)

	def test_x86_64_with_two_cpus_in_software_emulation(self):
		self.assertEqual(self.kunit(0), 0)
		args = self.ran[0]
		for a in ('--kunitconfig=kernel/time', '--arch=x86_64', '--kconfig_add=CONFIG_SMP=y', '--qemu_args=-smp 2'):
			self.assertIn(a, args)
		# QEMU without -accel kvm, found first in PATH.
		qemu = os.path.join(self.envs[0]["PATH"].split(os.pathsep)[0], 'qemu-system-x86_64')
		got = subprocess.run(['bash', '-c', f'sed "s|^exec .* |exec echo |" {qemu} >{qemu}.echo && '
				      f'bash {qemu}.echo -m 1 -accel kvm -accel hvf -accel tcg -smp 2'],
				     stdout=subprocess.PIPE, text=True, check=True).stdout
		self.assertEqual(got.split(), ['-m', '1', '-accel', 'tcg', '-smp', '2'])

	def test_a_skipped_or_missing_case_of_the_series_fails_and_is_not_cached(self):
		for log in (kunit_log(skip=['ktime_stamp_ns_concurrent_test']),
			    kunit_log(missing=['ktime_stamp_ns_concurrent_test']),
			    kunit_log(missing=['ktime_stamp_ns_increasing_test'])):
			self.assertEqual(self.kunit(0, log=log), 1, log)
		self.assertEqual(self.kunit(0), 0)
		self.assertEqual([r[0] for r in self.ran], ['run'])

	def test_what_did_not_run(self):
		cases = ['a_test', 'b_test']
		self.assertEqual(harness_kunit.kunit_unrun('    ok 1 a_test\n    ok 2 b_test\n', cases), [])
		self.assertEqual(harness_kunit.kunit_unrun('    ok 1 a_test\n    ok 2 b_test # SKIP needs two CPUs or more\n',
						     cases), ['b_test was skipped (# SKIP needs two CPUs or more)'])
		self.assertEqual(harness_kunit.kunit_unrun('    ok 1 a_test\n    ok 2 b_test_more\n', cases),
				 ['b_test did not run'])
		# With printk's time, as the boot test's kernel prints.
		self.assertEqual(harness_kunit.kunit_unrun('[    9.02]     ok 1 a_test\n[    9.10]     ok 2 b_test\n', cases), [])
		self.assertEqual(harness_kunit.kunit_unrun('[    9.02]     ok 1 a_test\n'
							   '[    9.10]     ok 2 b_test # SKIP needs two CPUs or more\n', cases),
				 ['b_test was skipped (# SKIP needs two CPUs or more)'])

	def test_the_key_has_the_compiler_kunit_py_and_its_argv(self):
		tree, _ = fake_tree(self, {'kernel/time/.kunitconfig': 'CONFIG_KUNIT=y\n', 'kunit.py': 'v1'})
		boot_config = os.path.join(tree.path, 'boot.config')
		with open(boot_config, 'w') as f:
			f.write('CONFIG_KUNIT=y\n')
		argv = harness_kunit.kunit_argv(os.path.join(tree.path, 'kunit.py'), boot_config, '/b', 2)

		def key(gcc='gcc 12\n', argv=argv):
			with mock.patch.object(harness_kunit, 'output', return_value=gcc):
				return harness_kunit.kunit_id(tree, argv, boot_config)
		first = key()
		self.assertEqual(key(argv=argv[:-2] + ['--build_dir=/c', '--jobs=9']), first)
		# The boot test's .config, by its content, not its path.
		with open(boot_config, 'w') as f:
			f.write('CONFIG_KUNIT=y\nCONFIG_SMP=y\n')
		self.assertNotEqual(key(), first)
		with open(boot_config, 'w') as f:
			f.write('CONFIG_KUNIT=y\n')
		self.assertEqual(key(), first)
		self.assertNotEqual(key(gcc='gcc 13\n'), first)
		self.assertNotEqual(key(argv=argv[:2] + ['--kunitconfig=kernel'] + argv[3:]), first)
		# The architecture and the CPUs.
		for a in harness_kunit.KUNIT_ARGS[1:]:
			self.assertNotEqual(key(argv=[x for x in argv if x != a]), first, a)
		with open(argv[0], 'w') as f:
			f.write('v2')
		self.assertNotEqual(key(), first)


class Checkpatch(unittest.TestCase):
	def checkpatch(self, output):
		tree, opts = fake_tree(self)
		with mock.patch.object(harness_patches, 'run',
				       lambda argv, **kw: completed(argv, 0 if 'total: 0 errors, 0 w' in output else 1,
								    output)), quiet():
			try:
				harness_static.checkpatch_check(tree)
			except HarnessError:
				return False
		return True

	def test_clean_passes(self):
		self.assertTrue(self.checkpatch('total: 0 errors, 0 warnings, 0 checks, 40 lines checked\n'))

	def test_a_warning_or_a_check_fails(self):
		self.assertFalse(self.checkpatch('WARNING: line length of 101 exceeds 100 columns\n'
						 'total: 0 errors, 1 warnings, 0 checks, 40 lines checked\n'))
		self.assertFalse(self.checkpatch('CHECK: Alignment should match open parenthesis\n'
						 'total: 0 errors, 0 warnings, 1 checks, 40 lines checked\n'))
		self.assertFalse(self.checkpatch('ERROR: trailing whitespace\n'
						 'total: 1 errors, 0 warnings, 0 checks, 40 lines checked\n'))
		self.assertFalse(self.checkpatch('Usage: checkpatch.pl\n'))

	def test_a_duplicate_signature_fails_on_a_backport_too(self):
		"""A backport carries one Signed-off-by, after its note."""
		out = 'WARNING: Duplicate signature\ntotal: 0 errors, 1 warnings, 0 checks, 40 lines checked\n'
		self.assertFalse(self.checkpatch(out))


	def test_codespell_without_its_dictionary_fails(self):
		self.assertFalse(self.checkpatch('No codespell typos will be found - file \'/x\': No such file or directory\n'
						 'total: 0 errors, 0 warnings, 0 checks, 40 lines checked\n'))

	def test_it_runs_as_nipa_runs_it(self):
		"""NIPA's tests/patch/checkpatch/checkpatch.sh: its flags and
		ignored types, held here as NIPA has them."""
		argv = harness_patches.checkpatch_argv('x.patch')
		for flag in ('--strict', '--codespell', '--max-line-length=80'):
			self.assertIn(flag, argv)
		self.assertIn(f'--codespellfile={harness_patches.CODESPELL_DICTIONARY}', argv)
		ignored = [a for a in argv if a.startswith('--ignore=')]
		self.assertEqual(len(ignored), 1)
		self.assertTrue({'COMMIT_LOG_LONG_LINE', 'MACRO_ARG_REUSE', 'ALLOC_SIZEOF_STRUCT', 'NO_AUTHOR_SIGN_OFF',
				 'GIT_COMMIT_ID', 'CAMELCASE', 'FILE_PATH_CHANGES', 'BAD_REPORTED_BY_LINK'}
				<= set(ignored[0][len('--ignore='):].split(',')))
		self.assertEqual(argv[-1], 'x.patch')


def crafted_patch(case, diff, frm='A <a@example.org>', tags='Signed-off-by: A <a@example.org>'):
	"""A patch file of DIFF (git's format), by FRM, with TAGS."""
	path = os.path.join(temp_dir(case), '0001-x.patch')
	with open(path, 'w') as f:
		f.write(f'From 0 Mon Sep 17 00:00:00 2001\nFrom: {frm}\nSubject: [PATCH] x: Do y\n\nWhy.\n\n{tags}\n'
			f'---\n{diff}-- \n2.39.5\n')
	return path


def diff_of(path, added, removed=(), new=False):
	head = f'diff --git a/{path} b/{path}\n' + ('new file mode 100644\n--- /dev/null\n' if new else f'--- a/{path}\n')
	return head + f'+++ b/{path}\n@@ -1,1 +1,1 @@\n' + ''.join(f'-{l}\n' for l in removed) + \
		''.join(f'+{l}\n' for l in added)


class NetdevChecks(unittest.TestCase):
	"""NIPA's header_inline, source_inline, verify_signedoff and
	check_selftest, on crafted patches."""

	def test_header_inline(self):
		found = harness_static.header_inline_findings
		self.assertTrue(found(crafted_patch(self, diff_of('include/linux/x.h', ['static int x(void)']))))
		self.assertTrue(found(crafted_patch(self, diff_of('include/linux/x.h', ['int x(void) { return 0; }']))))
		self.assertEqual(found(crafted_patch(self, diff_of('include/linux/x.h', [
			'static inline int x(void)', 'static __always_inline u64 y(void)', 'u64 z(struct a *a);',
			'#define X(a) static int a(void) \\']))), [])
		# A .c file's static function is no header's.
		self.assertEqual(found(crafted_patch(self, diff_of('kernel/x.c', ['static int x(void)']))), [])

	def test_source_inline(self):
		found = harness_static.source_inline_findings
		self.assertTrue(found(crafted_patch(self, diff_of('kernel/x.c', ['static inline int x(void)']))))
		self.assertEqual(found(crafted_patch(self, diff_of('kernel/x.c', [
			'/* not inline: */ static int x(void)', ' * inline in a comment', '// inline']))), [])
		# Moved, not added.
		self.assertEqual(found(crafted_patch(self, diff_of('kernel/x.c', ['static inline int y(void)'],
								   ['static inline int x(void)']))), [])
		self.assertEqual(found(crafted_patch(self, diff_of('include/linux/x.h', ['static inline int x(void)']))), [])

	def test_verify_signedoff(self):
		found = harness_static.signedoff_findings
		d = diff_of('kernel/x.c', ['int x;'])
		self.assertEqual(found(crafted_patch(self, d)), [])
		self.assertEqual(found(crafted_patch(self, d, frm='A Name', tags='Signed-off-by: a name <a@example.org>')), [])
		self.assertTrue(found(crafted_patch(self, d, tags='Reviewed-by: A <a@example.org>')))
		self.assertTrue(found(crafted_patch(self, d, tags='Signed-off-by: B <b@example.org>')))
		self.assertTrue(found(crafted_patch(self, d, tags='Signed-off-by: A <a@example.org>\n'
							   'Signed-off-by: B <b@example.org>')))

	def selftest(self, files, diff):
		tree = temp_dir(self)
		for name, text in files.items():
			os.makedirs(os.path.dirname(os.path.join(tree, name)), exist_ok=True)
			with open(os.path.join(tree, name), 'w') as f:
				f.write(text)
		return harness_static.selftest_findings(crafted_patch(self, diff), tree)

	def test_check_selftest(self):
		d = 'tools/testing/selftests/x/'
		good = {d + 'Makefile': 'CFLAGS += -Wall\n\nTEST_GEN_PROGS := \\\n\ta_test \\\n\tb_test \\\n'
			'# end of TEST_GEN_PROGS\n\ninclude ../lib.mk\n\n$(OUTPUT)/b_test: helper.c\n',
			d + '.gitignore': 'a_test\nb_test\n', d + 'config': 'CONFIG_NET=y\nCONFIG_NET_NS=y\nCONFIG_PROC_FS=y\n',
			d + 'b_test.c': '', d + 'helper.c': ''}
		diff = (diff_of(d + 'b_test.c', ['int main(void);'], new=True) + diff_of(d + 'helper.c', ['int h;'], new=True)
			+ diff_of(d + 'config', ['CONFIG_PROC_FS=y']) + diff_of(d + '.gitignore', ['b_test'])
			+ diff_of(d + 'Makefile', ['\tb_test \\']))
		self.assertEqual(self.selftest(good, diff), [])
		# A new program the Makefile does not name, or .gitignore.
		self.assertTrue(self.selftest(dict(good, **{d + 'Makefile': 'TEST_GEN_PROGS := a_test\n'}), diff))
		self.assertTrue(self.selftest(dict(good, **{d + '.gitignore': 'a_test\n'}), diff))
		# Out of netdev's order: the config, .gitignore, the Makefile's list.
		self.assertTrue(self.selftest(dict(good, **{d + 'config': 'CONFIG_PROC_FS=y\nCONFIG_NET=y\n'}), diff))
		self.assertTrue(self.selftest(dict(good, **{d + '.gitignore': 'b_test\na_test\n'}), diff))
		self.assertTrue(self.selftest(dict(good, **{d + 'Makefile': good[d + 'Makefile'].replace(
			'\ta_test \\\n\tb_test', '\tb_test \\\n\ta_test')}), diff))
		self.assertTrue(self.selftest(dict(good, **{d + 'Makefile': 'TEST_GEN_PROGS = a_test\n'
							     'TEST_GEN_PROGS += b_test\n'}), diff))
		# Outside the selftests, nothing.
		self.assertEqual(self.selftest({}, diff_of('kernel/x.c', ['int x;'], new=True)), [])

	def test_any_finding_fails_the_static_checks(self):
		tree, opts = fake_tree(self)
		with mock.patch.object(harness_static, 'NETDEV_CHECKS', (('x', lambda p, t: []),)), quiet():
			harness_static.netdev_checks(tree)
		with mock.patch.object(harness_static, 'NETDEV_CHECKS', (('x', lambda p, t: ['bad']),)), quiet(), \
		     self.assertRaises(HarnessError):
			harness_static.netdev_checks(tree)


class HeaderAlone(unittest.TestCase):
	"""The series' headers alone on the 32-bit architectures, and their
	check builds of whole directories."""

	def test_the_32_bit_check_builds_build_the_directories(self):
		objs = ['drivers/connector/cn_proc.o', 'kernel/time/timekeeping.o', 'kernel/time/time_test.o']
		for name in ('powerpc', 'mips', 'parisc', 'm68k', 'sh', 'arc', 'i386', 'arm'):
			arch = harness_config.load_arch(name)
			self.assertEqual(harness_static.check_targets(arch, 'patched', objs),
					 ['drivers/connector/', 'kernel/time/'], name)
			self.assertEqual(harness_static.check_targets(arch, 'pristine', objs),
					 ['drivers/connector/', 'kernel/time/'], name)
			self.assertEqual(harness_static.check_targets(arch, 'base', objs[:1]), objs[:1], name)
		self.assertEqual(harness_static.check_targets(harness_config.load_arch('x86_64'), 'patched', objs), objs)

	def test_every_32_bit_architecture_debian_builds_is_checked(self):
		import tomllib
		with open(os.path.join(TOP, 'configs', 'lines.toml'), 'rb') as f:
			checks = tomllib.load(f)['line'][0]['static_checks']
		for name in ('i386', 'arm', 'powerpc', 'mips', 'parisc', 'm68k', 'sh', 'arc'):
			self.assertIn(name, [c['arch'] for c in checks])

	def results(self, logs=(), closures=()):
		out = temp_dir(self)
		for i, text in enumerate(logs):
			with open(os.path.join(out, f'{harness_static.HEADER_ALONE}-{i}.log'), 'w') as f:
				f.write(text)
		for i, text in enumerate(closures):
			with open(os.path.join(out, f'{harness_static.CLOSURE}-0-{i}.txt'), 'w') as f:
				f.write(text)
		return harness_static.header_alone_problems(out)

	def test_a_clean_header_passes(self):
		self.assertEqual(self.results([''], ['include/linux/timekeeping.h include/linux/ktime.h\n'
						     'include/linux/atomic.h\n./arch/powerpc/include/generated/asm/x.h\n']), [])

	def test_a_warning_or_an_error_fails(self):
		self.assertTrue(self.results(["include/linux/timekeeping.h:61:9: error: unknown type name 'atomic64_t'\n"
					      'exit status 1\n']))
		self.assertTrue(self.results(['include/linux/timekeeping.h:3:1: warning: no previous prototype\n']))
		self.assertTrue(self.results(['exit status 1\n']))

	def test_an_include_cycle_fails(self):
		self.assertTrue(self.results([''], ['include/linux/timekeeping.h include/linux/ktime.h\n'
						    'include/linux/atomic.h\ninclude/linux/ktime.h\n']))
		self.assertTrue(self.results([''], ['include/linux/timekeeping.h\ninclude/linux/timekeeping.h\n']))

	def test_the_compile_command_and_the_closure(self):
		with tempfile.NamedTemporaryFile('w', suffix='.cmd') as f:
			f.write("savedcmd_kernel/time/jiffies.o := powerpc-linux-gnu-gcc -Wp,-MMD,kernel/time/.jiffies.o.d "
				"-nostdinc -DKBUILD_MODFILE='\"kernel/time/jiffies\"' -c -o kernel/time/jiffies.o "
				"/src/kernel/time/jiffies.c   ; ./tools/objtool/objtool --static-call   kernel/time/jiffies.o\n")
			f.flush()
			self.assertEqual(harness_static.compile_argv(f.name, '/o/t.c', '/o/t.o'),
					 ['powerpc-linux-gnu-gcc', '-nostdinc', '-DKBUILD_MODFILE="kernel/time/jiffies"',
					  '-c', '-o', '/o/t.o', '/o/t.c'])
		with tempfile.NamedTemporaryFile('w', suffix='.cmd') as f:
			f.write("cmd_drivers/connector/cn_proc.o := gcc -Wp,-MMD,drivers/connector/.cn_proc.o.d -nostdinc "
				"-c -o drivers/connector/cn_proc.o /src/drivers/connector/cn_proc.c  \n")
			f.flush()
			self.assertEqual(harness_static.compile_argv(f.name, '/o/t.c', '/o/t.o'),
					 ['gcc', '-nostdinc', '-c', '-o', '/o/t.o', '/o/t.c'])
		self.assertEqual(harness_static.include_closure(
			'. /src/include/linux/atomic.h\n.. ./arch/x/include/generated/asm/a.h\nMultiple include guards\n',
			'/src'), ['include/linux/atomic.h', 'arch/x/include/generated/asm/a.h'])


def dataclass_replace(obj, **changes):
	return harness_config.dataclasses.replace(obj, **changes)


class NewWarnings(unittest.TestCase):
	def files(self, base, patched):
		d = temp_dir(self)
		paths = []
		for name, lines in (('base', base), ('patched', patched)):
			paths.append(os.path.join(d, name))
			with open(paths[-1], 'w') as f:
				f.write(''.join(l + '\n' for l in lines))
		return paths

	def test_a_warning_the_base_has_passes(self):
		with quiet():
			harness_static.no_new('x', *self.files(['a.c: warning: x'], ['a.c: warning: x']))

	def test_a_new_warning_fails(self):
		with quiet(), self.assertRaises(HarnessError):
			harness_static.no_new('x', *self.files(['a.c: warning: x'], ['a.c: warning: x', 'a.c: warning: y']))


class StaticBuilds(unittest.TestCase):
	"""What sparse, W=1 and kernel-doc say is collected to be compared."""

	def check_build(self, log_text, objs=('kernel/time/timekeeping.o',)):
		"""check_build() of the x86_64 default configuration whose make
		writes LOG_TEXT: its result directory, or the HarnessError; the
		make commands in self.made, what was cached in self.cached."""
		tree, opts = fake_tree(self)
		self.tree = tree
		self.made, self.cached = [], []

		def run(argv, log=None, **kwargs):
			self.made.append(argv)
			with open(log, 'w') as f:
				f.write(log_text.replace('TREE', tree.path))
			return completed(argv)
		with mock.patch.object(harness_static, 'check_id', return_value='k'), \
		     mock.patch.object(harness_static, 'sparse_path', return_value='/sid/sparse'), \
		     mock.patch.object(harness_static, 'objects', return_value=list(objs)), \
		     mock.patch.object(harness_static, 'config_fragments', return_value=[]), \
		     mock.patch.object(harness_static, 'output', lambda argv, cwd=None: f'{argv[-1]}: code\n'), \
		     mock.patch.object(harness_static, 'cache_put', lambda *a: self.cached.append(a)), \
		     mock.patch.object(harness_static, 'configure'), mock.patch.object(harness_static, 'run', run), \
		     mock.patch.dict(os.environ, {'XDG_CACHE_HOME': os.path.join(opts.out, 'cache')}), quiet():
			try:
				arch = harness_config.load_arch('x86_64')
				harness_static.check_build(tree, arch, 'default', 'patched', True)
				return harness_static.check_dir(tree, arch, 'default', 'patched')
			except HarnessError as e:
				return e

	def test_sparse_and_w1_warnings_and_errors_are_collected_without_line_numbers(self):
		out = self.check_build('  CC      kernel/time/timekeeping.o\n'
				       '  CHECK   TREE/kernel/time/timekeeping.c\n'
				       'TREE/kernel/time/timekeeping.c:120:5: warning: symbol \'x\' was not declared\n'
				       'kernel/time/timekeeping.c:99:1: error: bad thing\n')
		with open(os.path.join(out, 'warnings')) as f:
			self.assertEqual(f.read().splitlines(),
					 ['kernel/time/timekeeping.c: error: bad thing',
					  "kernel/time/timekeeping.c: warning: symbol 'x' was not declared"])
		# Each object's code, for the comparison of the pristine tree and base.
		with open(os.path.join(out, 'timekeeping.o.dis')) as f:
			self.assertEqual(f.read(), 'kernel/time/timekeeping.o: code\n')
		self.assertEqual(len(self.cached), 1)

	def test_kbuild_runs_sid_sparse(self):
		self.check_build('  CHECK   kernel/time/timekeeping.c\n')
		self.assertIn('CHECK=/sid/sparse', self.made[0])
		self.assertEqual([a for a in self.made[0] if a.startswith(('C=', 'W='))], ['C=2', 'W=1'])

	def test_a_sparse_kbuild_refuses_fails_and_is_not_cached(self):
		"""Kbuild's own words when scripts/checker-valid.sh refuses it: it then
		builds on, checking nothing."""
		for note in ('Makefile:1311: C=2 specified, but /sid/sparse is not available or not up to date',
			     'Makefile:1149: C=2 specified, but sparse is too old'):
			err = self.check_build(f'{note}\n  CC      kernel/time/timekeeping.o\n'
					       '  CHECK   kernel/time/timekeeping.c\n')
			self.assertIsInstance(err, HarnessError, note)
			self.assertIn('ran no sparse', str(err))
			self.assertEqual(self.cached, [])

	def test_an_object_sparse_did_not_check_fails(self):
		err = self.check_build('  CC      kernel/time/timekeeping.o\n  CHECK   drivers/connector/cn_proc.c\n',
				       objs=('kernel/time/timekeeping.o', 'drivers/connector/cn_proc.o'))
		self.assertIsInstance(err, HarnessError)
		self.assertIn('no sparse on kernel/time/timekeeping.c', str(err))
		self.assertEqual(self.cached, [])

	def test_a_wrapper_runs_sparse_through_its_roots_loader(self):
		d = temp_dir(self)
		path = harness_static.sparse_wrapper('/root of sid', os.path.join(d, 'sparse'))
		self.assertTrue(os.access(path, os.X_OK))
		self.assertEqual(harness_util.file_text(path).splitlines()[-1],
				 "exec '/root of sid/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2' "
				 "--library-path '/root of sid/usr/lib/x86_64-linux-gnu' '/root of sid/usr/bin/sparse' \"$@\"")

	def test_kernel_doc_runs_with_wall_where_it_has_it(self):
		script = ('#!/bin/sh\n'
			  'case "$1" in -h) echo "  -Wall  all warnings"; exit 0;; esac\n'
			  'for a; do [ "$a" = -Wall ] && echo "$(eval echo \\${$#}):12: warning: no description"; done\n'
			  'exit 0\n')
		tree, opts = fake_tree(self, {'scripts/kernel-doc': script, 'kernel/time/x.c': ''})
		os.chmod(os.path.join(tree.path, 'scripts/kernel-doc'), 0o755)
		tree.files = ['kernel/time/x.c']
		with quiet():
			harness_static.kerneldoc(tree, 'patched')
		with open(harness_static.kerneldoc_path(tree, 'patched')) as f:
			self.assertEqual(f.read().splitlines(), ['kernel/time/x.c: warning: no description'])


class StaticComparisons(unittest.TestCase):
	"""run_all(): kernel-doc and each configuration's sparse and W=1,
	patched against pristine; the code of what the fix changes, base (the
	series' first patch) against pristine."""

	def run_all(self, new_in=None, code=None, selftest_files=(), kselftest_check=None):
		"""static_checks() of a line of two configurations, each check
		that builds or reads the tree a stub: the builds write their
		warnings (a new one where NEW_IN says: (where, variant)) and
		objdump (another CODE: (arch, variant, object)) where check_dir()
		and the others say."""
		tree, opts = fake_tree(self)
		tree.files = list(tree.files) + list(selftest_files)
		line = dataclass_replace(tree.line, static_checks=(('x86_64', 'default'), ('arm64', 'default')))
		tree.line = line
		self.moves, self.builds = [], []

		def warnings(path, name, variant):
			os.makedirs(os.path.dirname(path), exist_ok=True)
			with open(path, 'w') as f:
				f.write('a.c: warning: old\n' + ('a.c: warning: new\n' if (name, variant) == new_in else ''))

		def allmod_build(tree, variant):
			warnings(os.path.join(harness_static.allmod_dir(tree, variant), 'warnings'), 'allmodconfig', variant)

		def check_build(tree, arch, flavour, variant, newest):
			objs = harness_static.variant_objects(tree, variant)
			self.builds.append((arch.name, variant, objs))
			out = harness_static.check_dir(tree, arch, flavour, variant)
			warnings(os.path.join(out, 'warnings'), arch.name, variant)
			for o in objs:
				with open(os.path.join(out, os.path.basename(o) + '.dis'), 'w') as f:
					f.write('call ktime_get_ns\n' if (arch.name, variant, o) == code else 'call ktime_get\n')
		with mock.patch.object(harness_static, 'Tree', lambda line, opts: tree), \
		     mock.patch.object(harness_static, 'check_tags'), \
		     mock.patch.object(harness_static, 'quilt_round_trip'), \
		     mock.patch.object(harness_static, 'git_am_check'), \
		     mock.patch.object(harness_static, 'checkpatch_check'), \
		     mock.patch.object(harness_static, 'netdev_checks'), \
		     mock.patch.object(harness_static, 'sparse_check'), \
		     mock.patch.object(harness_static, 'unchanged_by_base', return_value=['drivers/connector/cn_proc.c']), \
		     mock.patch.object(harness_static, 'objects', lambda tree, files=None: (
			     ['drivers/connector/cn_proc.o'] if files else ['kernel/x.o', 'drivers/connector/cn_proc.o'])), \
		     mock.patch.object(tree, 'prepare'), mock.patch.object(tree, 'move_to', self.moves.append), \
		     mock.patch.object(tree, 'check_builds_only', contextlib.nullcontext), \
		     mock.patch.object(harness_static, 'kerneldoc', lambda tree, v: warnings(
			     harness_static.kerneldoc_path(tree, v), 'kernel-doc', v)), \
		     mock.patch.object(harness_static, 'check_build', check_build), \
		     mock.patch.object(harness_static, 'allmod_build', allmod_build), \
		     mock.patch.object(harness_static, 'kselftest_check', kselftest_check or mock.Mock()), quiet():
			try:
				harness_static.static_checks(line, opts, '7.3')
			except HarnessError:
				return False
		return True

	def test_warnings_the_pristine_tree_has_pass(self):
		self.assertTrue(self.run_all(None))
		for where in ('kernel-doc', 'x86_64', 'arm64', 'allmodconfig'):
			self.assertTrue(self.run_all((where, 'pristine')), where)

	def test_a_warning_the_series_adds_fails(self):
		for where in ('kernel-doc', 'x86_64', 'arm64', 'allmodconfig'):
			self.assertFalse(self.run_all((where, 'patched')), where)

	def test_the_tree_pristine_base_patched_and_what_each_builds(self):
		self.assertTrue(self.run_all())
		# patched first for netdev's patch checks.
		self.assertEqual(self.moves, ['patched', 'pristine', 'base', 'patched'])
		same = ['drivers/connector/cn_proc.o']
		every = ['kernel/x.o', 'drivers/connector/cn_proc.o']
		self.assertEqual(self.builds, [('x86_64', 'pristine', every), ('arm64', 'pristine', every),
					       ('x86_64', 'base', same), ('arm64', 'base', same),
					       ('x86_64', 'patched', every), ('arm64', 'patched', every)])

	def test_other_code_at_base_fails(self):
		"""The boot test's A/B rests on it: the first patch changes no
		instruction of what the fix changes."""
		for arch in ('x86_64', 'arm64'):
			self.assertFalse(self.run_all(code=(arch, 'base', 'drivers/connector/cn_proc.o')), arch)
			self.assertFalse(self.run_all(code=(arch, 'pristine', 'drivers/connector/cn_proc.o')), arch)
		# Code the series changes on purpose is no failure.
		self.assertTrue(self.run_all(code=('x86_64', 'patched', 'drivers/connector/cn_proc.o')))

	def test_the_objects_the_fix_changes_and_base_does_not(self):
		tree, opts = fake_tree(self)
		for p, files in zip(tree.patches, (['include/linux/timekeeping.h', 'kernel/time/timekeeping.c'],
						   ['drivers/connector/cn_proc.c', 'include/uapi/linux/cn_proc.h',
						    'kernel/time/timekeeping.c'])):
			with open(p, 'a') as f:
				f.write(''.join(f'--- a/{x}\n+++ b/{x}\n@@ -1 +1 @@\n-a\n+b\n' for x in files))
		tree.base_patches = harness_config.base_patches(tree.line.series_dir)
		self.assertEqual(harness_static.unchanged_by_base(tree),
				 ['drivers/connector/cn_proc.c', 'include/uapi/linux/cn_proc.h'])

	def test_base_is_the_patches_that_leave_cn_proc_alone(self):
		"""In the series' order, wherever they are: a fix of cn_proc.c
		before them, a change to it between them."""
		d = temp_dir(self)
		touched = {'net/0001-fix.patch': ['drivers/connector/cn_proc.c', 'drivers/connector/connector.c'],
			   'net/0002-test.patch': ['tools/testing/selftests/connector/proc_listeners.c'],
			   '0001-helper.patch': ['drivers/connector/connector.c'],
			   '0002-stamp.patch': ['drivers/connector/cn_proc.c'],
			   '0003-time.patch': ['kernel/time/timekeeping.c']}
		for name, files in touched.items():
			os.makedirs(os.path.dirname(os.path.join(d, name)), exist_ok=True)
			with open(os.path.join(d, name), 'w') as f:
				f.write('Subject: x\n\n---\n' + ''.join(
					f'diff --git a/{x} b/{x}\n--- a/{x}\n+++ b/{x}\n@@ -1 +1 @@\n-a\n+b\n'
					for x in files))
		with open(os.path.join(d, 'series'), 'w') as f:
			f.write(''.join(n + '\n' for n in touched))
		self.assertEqual([os.path.relpath(p, d) for p in harness_config.base_patches(d)],
				 ['net/0002-test.patch', '0001-helper.patch', '0003-time.patch'])

	def test_no_object_of_tools(self):
		"""A kselftest patch's .c files are not kbuild's, even where its
		Makefile names their objects."""
		tree, opts = fake_tree(self, {'drivers/connector/Makefile': 'obj-y += cn_proc.o\n',
					      'tools/testing/selftests/connector/Makefile': 'x: event_check.o\n'})
		self.assertEqual(harness_static.objects(tree, ['drivers/connector/cn_proc.c',
							       'tools/testing/selftests/connector/event_check.c']),
				 ['drivers/connector/cn_proc.o'])

	def test_the_selftests_builds_run_where_the_series_has_it(self):
		check = mock.Mock()
		self.assertTrue(self.run_all(selftest_files=['tools/testing/selftests/connector/cn_proc_test.c'], kselftest_check=check))
		check.assert_called_once_with(mock.ANY)
		check = mock.Mock()
		self.assertTrue(self.run_all(selftest_files=['tools/testing/selftests/x/y.c'], kselftest_check=check))
		check.assert_not_called()

	def test_a_selftest_build_that_fails_fails(self):
		def check(tree):
			raise HarnessError('x')
		self.assertFalse(self.run_all(selftest_files=['tools/testing/selftests/connector/Makefile'], kselftest_check=check))


class KselftestBuilds(unittest.TestCase):
	"""The selftest built as CI systems build it: gcc and clang, each
	listener of each architecture that boots (configs/arch/), the headers
	once per architecture."""

	def test_the_builds(self):
		argvs = harness_static.kselftest_argvs('/t', '/o', 2)
		self.assertEqual([n for n, _ in argvs],
				 ['kselftest-headers-arm64', 'kselftest-headers-x86_64', 'kselftest-arm64-gcc-64',
				  'kselftest-arm64-clang-64', 'kselftest-x86_64-gcc-64', 'kselftest-x86_64-gcc-32',
				  'kselftest-x86_64-clang-64', 'kselftest-x86_64-clang-32'])
		for n, argv in argvs[:2]:
			self.assertEqual(argv[-1], 'headers', n)
		for n, argv in argvs[2:]:
			self.assertEqual(argv[:3], ['make', '-C', '/t/tools/testing/selftests'], n)
			self.assertIn('TARGETS=connector', argv, n)
			self.assertEqual('LLVM=1' in argv, '-clang-' in n, n)
			cflags = [a[len('USERCFLAGS='):] for a in argv if a.startswith('USERCFLAGS=')]
			ldflags = [a[len('USERLDFLAGS='):] for a in argv if a.startswith('USERLDFLAGS=')]
			self.assertEqual(len(cflags), 1, n)
			self.assertIn('-Werror', cflags[0].split(), n)
			self.assertEqual('-m32' in cflags[0].split(), n.endswith('-32'), n)
			self.assertEqual('-m32' in ldflags[0].split(), n.endswith('-32'), n)
			arch = n.split('-')[1]
			self.assertIn(f'KHDR_INCLUDES=-isystem /o/headers-{arch}/usr/include', argv, n)
			self.assertIn('CROSS_COMPILE=aarch64-linux-gnu-' if arch == 'arm64' else 'CROSS_COMPILE=', argv, n)

	def elf(self, bits, machine, arch, want_bits):
		"""elf_problem() of a program whose ELF header has class BITS and
		e_machine MACHINE (62 x86-64, 3 i386, 183 AArch64)."""
		prog = os.path.join(temp_dir(self), 'cn_proc_test')
		with open(prog, 'wb') as f:
			f.write(b'\x7fELF' + bytes([bits // 32, 1, 1]) + bytes(9) + struct.pack('<HH', 2, machine) + bytes(44))
		return harness_static.elf_problem(prog, harness_config.load_arch(arch), want_bits)

	def test_a_program_of_its_class_and_machine_passes(self):
		self.assertEqual(self.elf(64, 62, 'x86_64', 64), '')
		self.assertEqual(self.elf(32, 3, 'x86_64', 32), '')
		self.assertEqual(self.elf(64, 183, 'arm64', 64), '')

	def test_a_program_of_another_class_or_machine_or_none_fails(self):
		self.assertNotEqual(self.elf(64, 62, 'x86_64', 32), '')
		self.assertNotEqual(self.elf(32, 3, 'x86_64', 64), '')
		self.assertNotEqual(self.elf(32, 62, 'x86_64', 32), '')
		# The machine right, the class not: a 32-bit file of x86-64's e_machine.
		self.assertNotEqual(self.elf(32, 62, 'x86_64', 64), '')
		self.assertNotEqual(self.elf(64, 62, 'arm64', 64), '')
		self.assertNotEqual(harness_static.elf_problem('/nonexistent/cn_proc_test',
							       harness_config.load_arch('x86_64'), 64), '')

	def test_a_missing_program_fails_the_check(self):
		tree, opts = fake_tree(self)
		with mock.patch.object(harness_static, 'run', lambda argv, **kw: completed(argv)), quiet(), \
		     mock.patch.object(tree, 'move_to'), self.assertRaises(HarnessError):
			harness_static.kselftest_check(tree)


class FileDiffs(unittest.TestCase):
	WANT = {'kernel/time/timekeeping.c.diff': 'diff a\n', 'include/linux/x.h.diff': 'diff b\n'}
	# The selftest patches make file-diffs makes: net's, then the series'.
	PATCHES = (('net/0002-selftests-connector-Add-y.patch', 'patch y\n'),
		   ('0003-selftests-connector-Add-x.patch', 'patch x\n'))
	SERIES = 'net/0001-fix.patch\n' + PATCHES[0][0] + '\n0001-a.patch\n0002-b.patch\n' + \
		PATCHES[1][0] + '\n'

	TABLES = ['''### Linux 7.3 (linux-source-7.3 7.3.4-1) on x86_64, QEMU -accel tcg

| check (base / patched)    | smp2          | smp4 (patched) | mutant-x (y) |
|---------------------------|---------------|----------------|--------------|
| ack                       | ok / ok       | ok             | ok           |
| events                    | 20030 / 20035 | 20028          | 20000        |
| inversions                | 3 / 0         | 0              | 9            |
| largest inversion (us)    | 964 / 0       | 0              | 9            |
| ties                      | 0 / 0         | 0              | 9            |
| duplicate stamps          | 7 / 0         | 0              | 9            |
| stamp ahead of clock (ns) | 0 / 16        | 0              | 9            |

Linux 7.3 (linux-source-7.3 7.3.4-1) on x86_64, QEMU -accel tcg: 4 of 4 boots as expected
''', '''### Linux 6.1 (linux-source-6.1 6.1.192-3) on x86_64, QEMU -accel tcg

| check (base / patched)    | jiffies           |
|---------------------------|-------------------|
| events                    | 20036 / 20035     |
| inversions                | 3 / 0             |
| largest inversion (us)    | 2000 / 0          |
| ties                      | 9878 / 0          |
| duplicate stamps          | 13443 / 0         |
| stamp ahead of clock (ns) | 0 / 15            |

Linux 6.1 (linux-source-6.1 6.1.192-3) on x86_64, QEMU -accel tcg: 2 of 2 boots as expected
''']
	# RESULTS as make results writes it of these tables.
	RESULTS = '\n'.join(harness_tables.results_text(
		{}, 'The boots below ran on 2026-12-06 at commit 1234abc, on 2 cpus.', TABLES, '')) + '\n'
	TABLE = ["The boot test's figures (make check at 1234abc, as RESULTS keeps them;",
		 'QEMU, software emulation, 2 vCPUs unless the run names more),', 'base/patched:', '',
		 '  run         events        invers. max ms  ties    shared   ahead',
		 '  7.3 smp2    20,030/20,035 3/0     1.0/0.0 0/0     7/0      0/16',
		 '  7.3 smp4    -/20,028      -/0     -/0.0   -/0     -/0      -/0',
		 '  6.1 jiffies 20,036/20,035 3/0     2.0/0.0 9,878/0 13,443/0 0/15']
	COVER = 'Subject: x\n\nText.\n\n%s\n\n Legend.\n'

	def test_the_cover_letters_table_is_made_from_results(self):
		self.assertEqual(harness_diffs.cover_table(self.RESULTS), self.TABLE)
		cover = self.COVER % "The boot test's figures\n\n  run"
		self.assertEqual(harness_diffs.with_cover_table(cover, self.TABLE), self.COVER % '\n'.join(self.TABLE))

	def test_a_figure_results_lacks_fails(self):
		results = '\n'.join(harness_tables.results_text(
			{}, 'The boots below ran on 2026-12-06 at commit 1234abc.',
			[t.replace('| ties ', '| tie ') for t in self.TABLES], ''))
		with self.assertRaisesRegex(HarnessError, "no figure 'ties'"):
			harness_diffs.cover_table(results)

	def test_the_cover_letters_table_stale_fails(self):
		self.assertIsNone(self.check(dict(self.WANT), cover=self.COVER % '\n'.join(
			[*self.TABLE[:-1], '  6.1 jiffies 20,036/20,035 2/0     2.0/0.0 9,878/0 13,443/0 0/15'])))

	def check(self, have, stored=None, series=SERIES, others=(), cover=None):
		"""make check-file-diffs on a repository with HAVE per-file diffs,
		the selftest patches STORED ({path: text or None}: PATCHES' by
		default), SERIES, OTHERS (files of patches/) and COVER."""
		top = temp_dir(self)
		os.makedirs(os.path.join(top, 'patches', 'net'))
		with open(os.path.join(top, 'patches', 'series'), 'w') as f:
			f.write(series)
		with open(os.path.join(top, 'RESULTS'), 'w') as f:
			f.write(self.RESULTS)
		with open(os.path.join(top, harness_diffs.COVER), 'w') as f:
			f.write(cover or self.COVER % '\n'.join(self.TABLE))
		stored = dict(self.PATCHES) if stored is None else stored
		for name, text in (*stored.items(), *((o, 'x') for o in others)):
			if text is not None:
				with open(os.path.join(top, 'patches', name), 'w') as f:
					f.write(text)
		with mock.patch.object(harness_diffs, 'expected', return_value=dict(self.WANT)), \
		     mock.patch.object(harness_diffs, 'diffs_in_repository', return_value=have), \
		     mock.patch.object(harness_diffs, 'selftest_patches', return_value=list(self.PATCHES)), \
		     mock.patch.object(harness_diffs, 'TOP', top), quiet():
			try:
				return harness_diffs.file_diffs(None, '', check=True)
			except HarnessError:
				return None

	def test_up_to_date_passes(self):
		self.assertEqual(self.check(dict(self.WANT)), 0)

	def test_the_check_holds_every_boot_test_mutant_to_the_series(self):
		"""check-file-diffs hands expected() each tests/mutants/*.patch,
		which it must apply on top of the series."""
		with mock.patch.object(harness_diffs, 'expected', return_value=dict(self.WANT)) as e, \
		     mock.patch.object(harness_diffs, 'diffs_in_repository', return_value=dict(self.WANT)), \
		     mock.patch.object(harness_diffs, 'selftest_patches', return_value=[]), \
		     mock.patch.object(harness_diffs, 'cover_table', return_value=[]), \
		     mock.patch.object(harness_diffs, 'with_cover_table', return_value=''), \
		     mock.patch.object(harness_diffs, 'file_text', return_value=''), quiet():
			harness_diffs.file_diffs(None, '', check=True)
		mutants = e.call_args.args[2]
		self.assertEqual(sorted(os.path.basename(m) for m in mutants),
				 sorted(os.listdir(os.path.join(TOP, 'tests', 'mutants'))))

	def test_a_selftest_patch_stale_missing_or_out_of_its_posting_fails(self):
		(net, y), (own, x) = self.PATCHES
		for stored in ({net: y, own: 'patch x, older\n'}, {net: 'patch y, older\n', own: x},
			       {net: None, own: x}, {net: y, own: None}):
			self.assertIsNone(self.check(dict(self.WANT), stored=stored), stored)
		for series in ('net/0001-fix.patch\n0001-a.patch\n0002-b.patch\n' + own + '\n',
			       self.SERIES.replace(own + '\n', '') + '0003-c.patch\n',
			       own + '\n' + self.SERIES.replace(own + '\n', '')):
			self.assertIsNone(self.check(dict(self.WANT), series=series), series)
		for other in ('0003-selftests-connector-Old.patch', 'net/0002-selftests-connector-Old.patch'):
			self.assertIsNone(self.check(dict(self.WANT), others=[other]), other)

	def test_stale_missing_or_left_over_fails(self):
		for have in ({**self.WANT, 'kernel/time/timekeeping.c.diff': 'diff old\n'},
			     {'kernel/time/timekeeping.c.diff': 'diff a\n'},
			     {**self.WANT, 'kernel/old.c.diff': 'diff c\n'}):
			self.assertIsNone(self.check(have), have)


class ResultsFile(unittest.TestCase):
	"""make results: RESULTS from OUT's tables, the last make check's
	verdict on its first lines, every line of it as wide as a terminal."""

	def out(self, tables=None, check='', bench=''):
		"""An OUT with a boot test's TABLES (FileDiffs'), make check's
		verdict CHECK and make bench's report BENCH."""
		out = temp_dir(self)
		with open(os.path.join(out, 'commit'), 'w') as f:
			f.write('1234abc\n')
		past = time.time() - 60
		os.utime(os.path.join(out, 'commit'), (past, past))
		for t in FileDiffs.TABLES if tables is None else tables:
			line, arch = re.match(r'### Linux (\S+) .* on (\S+),', t).groups()
			os.makedirs(os.path.join(out, line, 'results'), exist_ok=True)
			with open(os.path.join(out, line, 'results', arch + '.md'), 'w') as f:
				f.write(t)
		for path, text in (('check.time', check), ('bench/report.md', bench),
				   ('bench/commit', '3efff49' if bench else '')):
			if text:
				os.makedirs(os.path.dirname(os.path.join(out, path)), exist_ok=True)
				with open(os.path.join(out, path), 'w') as f:
					f.write(text + '\n')
		return out

	def results(self, out, old=''):
		path = os.path.join(temp_dir(self), 'RESULTS')
		if old:
			with open(path, 'w') as f:
				f.write(old)
		with quiet():
			harness_tables.write_results(out, ['7.3', '6.1'], path)
		return harness_util.file_text(path)

	COLD = harness_tables.check_verdict('KERNEL=all', '1234abc', True, 2451,
					    [('unit tests', 30), ('boot test', 2000)])
	WARM = harness_tables.check_verdict('KERNEL=all', '5678def', False, 660,
					    [('unit tests', 30), ('boot test', 557)])

	@staticmethod
	def verdicts(text):
		"""RESULTS' first paragraph, its wrapped lines joined."""
		return text.split('\n\n')[1].replace('\n  ', ' ').splitlines()

	def test_the_verdicts_of_make_check_first_the_last_one_first(self):
		self.assertEqual(self.COLD, 'make check (KERNEL=all) at 1234abc, cold: passed in 40m51s '
				 '(unit tests 0m30s, boot test 33m20s)')
		text = self.results(self.out(check=self.COLD))
		self.assertEqual(self.verdicts(text), [self.COLD])
		self.assertTrue(text.splitlines()[3].startswith('make check (KERNEL=all) at 1234abc'))
		# A warm one after it: first, and the cold one kept after it.
		text = self.results(self.out(check=self.WARM), old=text)
		self.assertEqual(self.verdicts(text), [self.WARM, self.COLD])
		# Another cold one replaces the cold one; none in OUT keeps both.
		cold = self.COLD.replace('1234abc', '9999999')
		text = self.results(self.out(check=cold), old=text)
		self.assertEqual(self.verdicts(text), [cold, self.WARM])
		self.assertEqual(self.verdicts(self.results(self.out(), old=text)), [cold, self.WARM])

	def test_a_failed_make_check_says_so_first(self):
		failed = harness_tables.check_verdict('KERNEL=all', '1234abc', False, 90,
						      [('unit tests', 30)], failed='mails')
		self.assertIn(', warm: FAILED at mails after 1m30s (unit tests 0m30s)', failed)
		text = self.results(self.out(check=failed), old=self.results(self.out(check=self.WARM)))
		self.assertEqual(self.verdicts(text), [failed])

	def test_no_line_is_wider_than_a_terminal(self):
		wide = FileDiffs.TABLES[0].replace('| mutant-x (y) |', '| mutant-with-a-long-name (and-a-long-mutant) |')
		bench = ('## make bench\n\n' + 'A paragraph of many words ' * 20 + '\n\n'
			 '| scheme | callers | ns/call | 95% CI | cmpxchg failures/call | least overlap |\n'
			 '|--------|---------|---------|--------|-----------------------|---------------|\n'
			 '| clock-under-lock | 2 cores, spaced by 200 steps | 239.34 | 238.30-245.07 | '
			 '0.0000 | 1.000 |\n')
		text = self.results(self.out([wide, FileDiffs.TABLES[1]], check=self.COLD, bench=bench))
		self.assertEqual([l for l in text.splitlines() if len(l) > harness_tables.WIDTH], [])
		self.assertIn('  clock-under-lock: callers 2 cores, spaced by 200 steps, ns/call 239.34,',
			      text)
		# Laid out once, it stays as it is: RESULTS' bench report is kept.
		out = self.out([wide, FileDiffs.TABLES[1]], check=self.COLD)
		self.assertEqual(self.results(out, old=text), text)

	def test_each_boot_says_what_did_not_pass_and_whether_as_expected(self):
		table = FileDiffs.TABLES[0].replace('| ack                       | ok / ok       |',
						    '| ack                       | FAIL / skip   |') + \
			'| as expected | yes / no | yes | yes |\n'
		table = table.replace('\n\nLinux 7.3', '\n| as expected               | yes / no      '
				      '| yes            | yes          |\n\nLinux 7.3')
		lines = harness_tables.results_section(harness_tables.read_boot_table(table))
		self.assertIn('  smp2 base (): ack failed', lines)
		self.assertIn('  smp2 patched (): UNEXPECTED: ack skipped', lines)
		self.assertIn('  smp4 patched (): every check passed', lines)

	def test_what_every_boot_skips_is_said_once(self):
		table = ('### Linux 7.3 (t) on x86_64, QEMU\n\n| check | smp2 | smp1 (patched) | m (x) |\n'
			 '|-|-|-|-|\n| netns | skip / skip | skip | - |\n| kunit:c | ok / ok | skip | ok |\n'
			 '\nLinux 7.3 (t) on x86_64, QEMU: 4 of 4 boots as expected\n')
		t = harness_tables.read_boot_table(table)
		self.assertEqual(harness_tables.always_skipped([t]), ['netns'])
		self.assertEqual(harness_tables.results_section(t, ['netns'])[4:8],
				 ['  smp2 base (): every check passed', '  smp2 patched (): every check passed',
				  '  smp1 patched (): kunit:c skipped', '  m x (): every check passed'])


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_config')
class Kconfig(unittest.TestCase):
	"""Every option a fragment sets or unsets must survive olddefconfig, as
	the tree's kunit_config judges it."""
	FRAGMENT = 'CONFIG_PROC_EVENTS=y\n# CONFIG_VT is not set\n'

	def make_config(self, result, earlier=''):
		"""The error of make_config() (None if none) where olddefconfig
		gives RESULT, the fragments EARLIER (if any) then FRAGMENT."""
		d = temp_dir(self)
		frags = []
		for name, text in (('earlier', earlier), ('frag', self.FRAGMENT)):
			if text:
				frags.append(os.path.join(d, name + '.config'))
				with open(frags[-1], 'w') as f:
					f.write(text)
		scratch = os.path.join(d, 'scratch')

		def run(argv, **kwargs):
			if argv[-1] == 'olddefconfig':
				with open(os.path.join(scratch, '.config'), 'w') as f:
					f.write(result)
			return completed(argv)
		with mock.patch.object(harness_util, 'run', run):
			try:
				harness_kernel.make_config(os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL))), scratch, harness_config.load_arch('x86_64'), frags,
							   os.path.join(d, 'log'), 1)
			except HarnessError as e:
				return str(e)
		return None

	def test_the_options_as_asked_pass(self):
		self.assertIsNone(self.make_config('CONFIG_PROC_EVENTS=y\n# CONFIG_VT is not set\nCONFIG_X=y\n'))
		self.assertIsNone(self.make_config('CONFIG_PROC_EVENTS=y\n'))

	def test_an_option_set_and_dropped_fails(self):
		self.assertIn('CONFIG_PROC_EVENTS', self.make_config('# CONFIG_PROC_EVENTS is not set\n'))
		self.assertIn('CONFIG_PROC_EVENTS', self.make_config('CONFIG_PROC_EVENTS=m\n'))

	def test_an_option_unset_and_set_fails(self):
		self.assertIn('CONFIG_VT', self.make_config('CONFIG_PROC_EVENTS=y\nCONFIG_VT=y\n'))

	def test_the_last_fragment_to_name_an_option_wins(self):
		self.assertIsNone(self.make_config(self.FRAGMENT, earlier='CONFIG_VT=y\n# CONFIG_PROC_EVENTS is not set\n'))
		self.assertIn('CONFIG_VT', self.make_config('CONFIG_PROC_EVENTS=y\nCONFIG_VT=y\n', earlier='CONFIG_VT=y\n'))

	def test_the_error_names_the_option_its_fragment_and_what_the_config_has(self):
		self.assertRegex(self.make_config('CONFIG_PROC_EVENTS=m\n'),
				 r'^x86_64: CONFIG_PROC_EVENTS=y \(from \S*frag.config; the .config has CONFIG_PROC_EVENTS=m\) '
				 r'did not survive olddefconfig$')
		self.assertRegex(self.make_config('CONFIG_VT=y\n'),
				 r'^x86_64: CONFIG_PROC_EVENTS=y \(from \S*; the .config has no CONFIG_PROC_EVENTS\) '
				 r'did not survive olddefconfig, and 1 more$')


class CacheKeys(unittest.TestCase):
	"""A kernel image's key changes with what it is built from: the series
	(not for base), a mutant's patch, the .config and the compiler."""

	def setUp(self):
		self.tree, self.opts = fake_tree(self)
		self.kernels = harness_kernel.Kernels(self.tree, self.opts)
		self.arch = harness_config.load_arch('x86_64')
		self.config('CONFIG_X=y\n')
		self.gcc = 'gcc 12.2.0\n'
		p = mock.patch.object(harness_kernel, 'tool_versions', lambda arch: self.gcc)
		p.start()
		self.addCleanup(p.stop)
		os.makedirs(os.path.join(self.opts.out, 'mutants'))
		self.mutant('+a\n')

	def config(self, text):
		d = self.kernels.build_dir(self.arch, 'default')
		os.makedirs(d, exist_ok=True)
		with open(os.path.join(d, '.config'), 'w') as f:
			f.write(text)

	def mutant(self, text):
		with open(os.path.join(self.opts.out, 'mutants', 'test-mutant.patch'), 'w') as f:
			f.write(text)

	def keys(self):
		return {v: self.kernels.image_id(harness_config.Kernel(self.arch, 'default', v)) for v in ('base', 'patched', 'test-mutant')}

	def test_the_series_beyond_its_first_patch_changes_patched_and_mutant_keys_not_base(self):
		before = self.keys()
		change_series(self.tree)
		after = self.keys()
		self.assertEqual(before['base'], after['base'])
		self.assertNotEqual(before['patched'], after['patched'])
		self.assertNotEqual(before['test-mutant'], after['test-mutant'])

	def test_the_first_patch_changes_every_key(self):
		"""The base kernel is the tree with the series' first patch."""
		before = self.keys()
		change_series(self.tree, patch=0)
		after = self.keys()
		for v in before:
			self.assertNotEqual(before[v], after[v], v)

	def test_a_mutants_patch_changes_its_key(self):
		before = self.keys()
		self.mutant('+b\n')
		after = self.keys()
		self.assertEqual([before[v] == after[v] for v in ('base', 'patched', 'test-mutant')], [True, True, False])

	def test_the_compiler_and_the_config_change_every_key(self):
		before = self.keys()
		self.gcc = 'gcc 13.1.0\n'
		after = self.keys()
		self.config('CONFIG_X=n\n')
		last = self.keys()
		for v in before:
			self.assertEqual(len({before[v], after[v], last[v]}), 3, v)

	def test_the_fragments_change_the_configs_key(self):
		frag = os.path.join(temp_dir(self), 'f.config')
		made = []

		def make_config(tree, scratch, arch, frags, log, jobs):
			made.append(harness_util.file_text(frags[0]))
			os.makedirs(scratch, exist_ok=True)
			with open(os.path.join(scratch, '.config'), 'w') as f:
				f.write(made[-1])
		build = os.path.join(self.opts.out, 'b')
		with mock.patch.object(harness_kernel, 'make_config', make_config), \
		     mock.patch.dict(os.environ, {'XDG_CACHE_HOME': os.path.join(self.opts.out, 'cache')}), quiet():
			for text in ('CONFIG_A=y\n', 'CONFIG_A=n\n', 'CONFIG_A=y\n'):
				with open(frag, 'w') as f:
					f.write(text)
				harness_kernel.configure(self.tree, build, self.arch, [frag], os.path.join(build, 'log'), 1)
				with open(os.path.join(build, '.config')) as f:
					self.assertEqual(f.read(), text)
		self.assertEqual(made, ['CONFIG_A=y\n', 'CONFIG_A=n\n'])

	def test_the_source_changes_every_key(self):
		before = self.keys()
		with open(os.path.join(self.tree.line_out, 'tree.id'), 'w') as f:
			f.write('linux-source-7.3 7.3.5-1\n')
		after = self.keys()
		for v in before:
			self.assertNotEqual(before[v], after[v], v)

	def test_make_argv_not_its_paths_or_jobs(self):
		argv = harness_kernel.make_argv_id(self.arch, 'bzImage')
		self.assertNotIn(self.opts.out, argv)
		self.assertEqual(argv, 'make -C TREE O=BUILD ARCH=x86_64 CROSS_COMPILE= -j1 bzImage')
		before = self.keys()
		with mock.patch.object(harness_kernel, 'kmake_argv', lambda *a: ['make', 'LLVM=1', *a[4:]]):
			after = self.keys()
		for v in before:
			self.assertNotEqual(before[v], after[v], v)

	def test_a_configs_key_has_the_source_fragments_compiler_and_commands(self):
		frag = os.path.join(temp_dir(self), 'f.config')
		with open(frag, 'w') as f:
			f.write('CONFIG_A=y\n')
		first = harness_kernel.config_id('src 1', self.arch, [frag])
		self.assertNotEqual(harness_kernel.config_id('src 2', self.arch, [frag]), first)
		self.gcc = 'gcc 13.1.0\n'
		self.assertNotEqual(harness_kernel.config_id('src 1', self.arch, [frag]), first)
		self.gcc = 'gcc 12.2.0\n'
		with mock.patch.object(harness_kernel, 'CONFIG_TARGETS', ('allnoconfig', 'olddefconfig')):
			self.assertNotEqual(harness_kernel.config_id('src 1', self.arch, [frag]), first)
		self.assertEqual(harness_kernel.config_id('src 1', self.arch, [frag]), first)

	def check_keys(self, gcc='gcc\n', sparse='sparse 0.6\n', objs=('kernel/x.o',)):
		asked = []

		def output(argv, **kw):
			asked.append(argv)
			return sparse
		with mock.patch.object(harness_static, 'tool_versions', return_value=gcc), \
		     mock.patch.object(harness_static, 'sparse_path', return_value='/sid/sparse'), \
		     mock.patch.object(harness_static, 'output', output):
			keys = {v: harness_static.check_id(self.tree, self.arch, v, [], list(objs))
				for v in harness_static.VARIANTS}
		# The version of the sparse kbuild runs: sid's, the wrapper's.
		self.assertEqual(asked, [['/sid/sparse', '--version']] * len(keys))
		return keys

	def test_a_static_checks_key_changes_with_what_the_tree_has_of_the_series(self):
		before = self.check_keys()
		change_series(self.tree)
		after = self.check_keys()
		self.assertEqual([before[v] == after[v] for v in harness_static.VARIANTS], [True, True, False])
		change_series(self.tree, patch=0)
		last = self.check_keys()
		self.assertEqual([after[v] == last[v] for v in harness_static.VARIANTS], [True, False, False])
		self.assertEqual(len(set(last.values())), 3)

	def test_a_static_checks_key_has_the_compiler_sparse_objects_and_flags(self):
		first = self.check_keys()
		for other in (self.check_keys(gcc='gcc 13\n'), self.check_keys(sparse='sparse 0.7\n'),
			      self.check_keys(objs=('kernel/y.o',))):
			for v in first:
				self.assertNotEqual(other[v], first[v], v)
		with mock.patch.object(harness_static, 'CHECK_FLAGS', ('C=1', 'W=1')):
			self.assertNotEqual(self.check_keys(), first)


class ClientChecks(unittest.TestCase):
	"""The comparisons of tests/clients/run.sh, which only a boot runs,
	each on its cases here, in the host's sh (the guest's is busybox ash)."""

	def holds(self, check, *args):
		proc = subprocess.run(['sh', '-c', 'CN_PROC_CLIENTS_CHECKS=1; . "$0"; "$@"',
				       os.path.join(TOP, 'tests/clients/run.sh'), check, *args])
		return proc.returncode == 0

	def cases(self, check, cases):
		for args, holds in cases:
			with self.subTest(check=check, args=args):
				self.assertEqual(self.holds(check, *args), holds)

	def test_after_the_listener_is_killed_no_call_at_all(self):
		self.cases('stamped_none', ((('300', '300'), True), (('300', '301'), False),
					    (('300', '600'), False)))

	def test_with_a_listener_a_call_per_event(self):
		self.cases('stamped_each', ((('300', '300'), True), (('301', '300'), True),
					    (('299', '300'), False), (('0', '300'), False)))

	def test_each_socket_allocated_its_state_and_freed_it(self):
		self.cases('all_freed', ((('200', '200', '200'), True), (('0', '0', '0'), True),
					 (('200', '200', '0'), False), (('200', '200', '199'), False),
					 (('200', '0', '0'), False), (('0', '3', '3'), False),
					 (('200', '201', '201'), False)))

	def test_extraces_exec_to_exit_within_the_sleep_and_the_window(self):
		self.cases('in_window', ((('299', '400'), True), (('400', '400'), True),
					 (('298', '400'), False), (('401', '400'), False)))

	def test_keepalived_loses_the_quorum_after_it_gained_it(self):
		self.cases('quorum_in_order', ((('3', '7'), True), (('7', '3'), False),
					       (('3', '3'), False), (('', '3'), True), (('3', ''), True)))

	def test_run_sh_judges_by_them(self):
		"""Each is what its result is judged by, in the script's body."""
		body = harness_util.file_text(os.path.join(TOP, 'tests/clients/run.sh'))
		body = body[body.index('CN_PROC_CLIENTS_CHECKS:-'):]
		for call in ('quorum_in_order "$gained" "$lost" ||', 'if ! in_window "$ms" "$win"',
			     'stamped_each $((s1 - s0)) $((3 * LOAD)) ||', 'stamped_none "$s2" "$s3" ||',
			     'stamped_none "$s4" "$s5" ||', 'all_freed "$SOCKETS" "$got" "$gone" ||',
			     'all_freed 0 "$got" "$gone" ||'):
			self.assertEqual(body.count(call), 1, call)


class InCache(unittest.TestCase):
	"""boot's lookup of a kernel in the cache, before anything is fetched,
	copied or configured: by the keys make boot-test stored it under."""

	def setUp(self):
		tmp = private_cache(self)
		self.tree, self.opts = fake_tree(self)
		self.kernels = harness_kernel.Kernels(self.tree, self.opts)
		self.k = harness_config.Kernel(harness_config.load_arch('x86_64'), 'default', 'patched')
		p = mock.patch.object(harness_kernel, 'tool_versions', lambda arch: 'gcc 12.2.0\n')
		p.start()
		self.addCleanup(p.stop)
		self.entry = os.path.join(tmp, 'entry')
		self.put('src', 'srckey', {'.unpacked': 'linux-source-7.3 7.3.4-1\n'})
		frags = harness_kernel.config_fragments(self.opts, self.k.arch, 'default',
							self.kernels.extra_fragments(self.k.arch))
		self.put('configs', harness_kernel.config_id('linux-source-7.3 7.3.4-1', self.k.arch,
							    frags), {'.config': 'CONFIG_X=y\n'})
		self.image = self.kernels.image_id(self.k, 'linux-source-7.3 7.3.4-1', 'CONFIG_X=y\n')

	def put(self, kind, key, files):
		shutil.rmtree(self.entry, ignore_errors=True)
		os.makedirs(self.entry)
		for name, text in files.items():
			with open(os.path.join(self.entry, name), 'w') as f:
				f.write(text)
		harness_util.cache_put(self.entry, kind, key)

	def in_cache(self):
		kernels = harness_kernel.Kernels(harness_kernel.Tree(self.tree.line, self.opts),
						 self.opts)
		with mock.patch.object(harness_util, 'run', side_effect=AssertionError('a command ran')):
			return kernels.in_cache(self.k)

	def test_an_image_under_its_key_is_found_with_nothing_run(self):
		self.assertFalse(self.in_cache())
		self.put('kernels', self.image, {'bzImage': 'image'})
		self.assertTrue(self.in_cache())

	def test_without_its_config_there_is_none(self):
		self.put('kernels', self.image, {'bzImage': 'image'})
		shutil.rmtree(os.path.join(harness_util.cache_dir(), 'configs'))
		self.assertFalse(self.in_cache())

	def test_without_the_lines_source_there_is_none(self):
		self.put('kernels', self.image, {'bzImage': 'image'})
		shutil.rmtree(os.path.join(harness_util.cache_dir(), 'src'))
		self.assertFalse(self.in_cache())


class NoCache(unittest.TestCase):
	"""--no-cache: nothing is read from the cache, every tree is copied
	afresh once, every image is built again, and each entry is replaced."""

	def setUp(self):
		self.tmp = private_cache(self)
		self.src = os.path.join(self.tmp, 'src')
		os.makedirs(self.src)
		self.write('old')
		harness_util.cache_put(self.src, 'kernels', 'k')

	def write(self, text):
		with open(os.path.join(self.src, 'bzImage'), 'w') as f:
			f.write(text)

	def test_no_entry_is_read_and_a_new_one_replaces_it(self):
		dest = os.path.join(self.tmp, 'got')
		harness_util.bypass_cache()
		self.assertFalse(harness_util.cache_get('kernels', 'k', dest))
		self.assertIsNone(harness_util.cache_path('kernels', 'k'))
		self.write('new')
		harness_util.cache_put(self.src, 'kernels', 'k')
		harness_util.bypass_cache(False)
		self.assertTrue(harness_util.cache_get('kernels', 'k', dest))
		self.assertEqual(harness_util.file_text(os.path.join(dest, 'bzImage')), 'new')

	def test_an_entry_is_kept_when_not_bypassed(self):
		self.write('new')
		harness_util.cache_put(self.src, 'kernels', 'k')
		dest = os.path.join(self.tmp, 'got')
		self.assertTrue(harness_util.cache_get('kernels', 'k', dest))
		self.assertEqual(harness_util.file_text(os.path.join(dest, 'bzImage')), 'old')

	def test_the_flag_bypasses_the_cache(self):
		for argv, bypassed in ((['litmus', '--no-cache'], True), (['litmus'], False)):
			with mock.patch.object(harness.Session, 'load', side_effect=HarnessError('stop')), quiet(), \
			     contextlib.redirect_stderr(io.StringIO()):
				self.assertEqual(harness.main(argv), 1)
			self.assertIs(harness_util._bypass, bypassed)

	def test_an_image_in_out_is_built_again(self):
		tree, opts = fake_tree(self)
		kernels = harness_kernel.Kernels(tree, opts)
		arch = harness_config.load_arch('x86_64')
		base = harness_config.Kernel(arch, 'default', 'base')
		d = kernels.image_dir(base)
		os.makedirs(d)
		open(kernels.image(base), 'w').close()
		with mock.patch.object(kernels, 'image_id', return_value='k1'):
			with open(os.path.join(d, 'id'), 'w') as f:
				f.write('k1\n')
			self.assertTrue(kernels.fetch_cached(base))
			kernels.opts = harness_config.dataclasses.replace(opts, no_cache=True)
			self.assertFalse(kernels.fetch_cached(base))

	def test_a_tree_is_copied_afresh_once(self):
		tree, opts = fake_tree(self)
		opts = tree.opts = harness_config.dataclasses.replace(opts, no_cache=True)
		copies = []

		def run(argv, **kw):
			copies.append(argv[0])
			os.makedirs(argv[-1], exist_ok=True)
			return completed(argv)
		with mock.patch.object(harness_util, 'run', run), \
		     mock.patch.object(harness_kernel.Tree, 'source', lambda t: self.src), \
		     mock.patch.object(harness_kernel.Tree, 'source_id', lambda t: 'linux-source-7.3 7.3.4-1'):
			tree.prepare()
			tree.prepare()
			harness_kernel.Tree(tree.line, opts).prepare()
		self.assertEqual(copies, ['cp'])


def git_patch(old, new, subject='x: Change it', path='kernel/x.c'):
	return (f'From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@example.org>\nSubject: [PATCH] {subject}\n\n'
		f'Why.\n\nSigned-off-by: A <a@example.org>\n---\n {path} | 2 +-\n\n'
		f'diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n'
		f'-{old}\n+{new}\n')


class TreeStates(unittest.TestCase):
	"""The line's tree pristine, at base (the series' patches that leave
	cn_proc.c alone: patch 1), at the whole series (applied exactly,
	reapplied when the series changes) and at a mutant, with quilt and
	patch on a tree of two files, a header (include/x.h, patch 1's) and
	drivers/connector/cn_proc.c (patch 2's); and the mtimes Kbuild decides
	by."""

	def setUp(self):
		d = temp_dir(self)
		self.ksrc = os.path.join(d, 'linux')
		for f, text in (('Makefile', 'VERSION = 7\nPATCHLEVEL = 3\n'), ('drivers/connector/cn_proc.c', 'base\n'),
				('include/x.h', 'header\n')):
			os.makedirs(os.path.dirname(os.path.join(self.ksrc, f)), exist_ok=True)
			with open(os.path.join(self.ksrc, f), 'w') as fh:
				fh.write(text)
		self.series = os.path.join(d, 'series')
		os.makedirs(self.series)
		self.write_series('series')
		line = harness_config.KernelLine('7.3', 'linux-source-7.3', 'trixie-backports', self.series, ())
		self.opts = harness_config.Options(out=os.path.join(d, 'out'), ksrc=self.ksrc)
		self.mutant = os.path.join(d, 'mutant.patch')
		with open(self.mutant, 'w') as f:
			f.write('--- a/drivers/connector/cn_proc.c\n+++ b/drivers/connector/cn_proc.c\n@@ -1 +1 @@\n-series\n+mutant\n')
		self.tree = harness_kernel.Tree(line, self.opts)
		with quiet():
			self.tree.prepare()

	def write_series(self, new, old='base', header='header first'):
		with open(os.path.join(self.series, '0001-h.patch'), 'w') as f:
			f.write(git_patch('header', header, 'h: Declare it', 'include/x.h'))
		with open(os.path.join(self.series, '0002-x.patch'), 'w') as f:
			f.write(git_patch(old, new, path='drivers/connector/cn_proc.c'))
		with open(os.path.join(self.series, 'series'), 'w') as f:
			f.write('0001-h.patch\n0002-x.patch\n')

	def state(self):
		return tuple(harness_util.file_text(os.path.join(self.tree.path, f)).strip()
			     for f in ('include/x.h', 'drivers/connector/cn_proc.c'))

	def mtime(self, f):
		return os.stat(os.path.join(self.tree.path, f)).st_mtime_ns

	def age(self):
		"""Every file of the tree a day old, as a build long after it sees it."""
		for root, _, files in os.walk(self.tree.path):
			for f in files:
				p = os.path.join(root, f)
				st = os.stat(p)
				os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns - 86400 * 10**9))

	def test_pristine_base_series_and_back(self):
		with quiet():
			self.tree.move_to('base')
			self.assertEqual(self.state(), ('header first', 'base'))
			self.tree.move_to('patched')
			self.assertEqual(self.state(), ('header first', 'series'))
			self.tree.move_to('base')
			self.assertEqual(self.state(), ('header first', 'base'))
			self.tree.move_to('pristine')
			self.assertEqual(self.state(), ('header', 'base'))
			self.assertFalse(os.path.exists(os.path.join(self.tree.path, '.pc')))
			self.tree.move_to('patched')
			self.tree.move_to('pristine')
			self.assertEqual(self.state(), ('header', 'base'))
		self.assertEqual(harness_util.file_text(os.path.join(self.ksrc, 'drivers/connector/cn_proc.c')), 'base\n')
		self.assertEqual(harness_util.file_text(os.path.join(self.ksrc, 'include/x.h')), 'header\n')

	def test_base_again_applies_nothing_more(self):
		"""Base is the patches of series.base, all of them and no more: a
		tree at base moved to base again is left as it is."""
		with quiet():
			self.tree.move_to('base')
			self.tree.move_to('base')
		self.assertEqual(self.state(), ('header first', 'base'))

	def test_base_leaves_out_a_fix_of_cn_proc_before_it(self):
		"""A series with another posting's fix of cn_proc.c first, in a
		subdirectory: base applies the header's patch alone, from its own
		series file, and patched everything, in either order."""
		os.makedirs(os.path.join(self.series, 'net'))
		with open(os.path.join(self.series, 'net', '0001-fix.patch'), 'w') as f:
			f.write(git_patch('base', 'fixed', path='drivers/connector/cn_proc.c'))
		with open(os.path.join(self.series, '0002-x.patch'), 'w') as f:
			f.write(git_patch('fixed', 'series', path='drivers/connector/cn_proc.c'))
		with open(os.path.join(self.series, 'series'), 'w') as f:
			f.write('net/0001-fix.patch\n0001-h.patch\n0002-x.patch\n')
		tree = harness_kernel.Tree(self.tree.line, self.opts)
		with quiet():
			for state, want in (('patched', ('header first', 'series')),
					    ('base', ('header first', 'base')),
					    ('patched', ('header first', 'series')),
					    ('pristine', ('header', 'base')),
					    ('base', ('header first', 'base'))):
				tree.move_to(state)
				self.assertEqual(self.state(), want, state)

	def test_a_changed_series_is_applied_again(self):
		with quiet():
			self.tree.patched()
			self.write_series('series v2')
			self.tree = harness_kernel.Tree(self.tree.line, self.opts)
			self.tree.patched()
		self.assertEqual(self.state(), ('header first', 'series v2'))

	def test_a_series_that_does_not_apply_fails_and_leaves_it_pristine(self):
		with open(os.path.join(self.series, '0003-y.patch'), 'w') as f:
			f.write(git_patch('not there', 'more', path='drivers/connector/cn_proc.c'))
		with open(os.path.join(self.series, 'series'), 'a') as f:
			f.write('0003-y.patch\n')
		tree = harness_kernel.Tree(self.tree.line, self.opts)
		with quiet():
			tree.base()
		with quiet(), self.assertRaises(HarnessError):
			tree.patched()
		self.assertEqual(self.state(), ('header', 'base'))

	def test_a_mutant_on_the_series_and_off_again(self):
		with quiet(), mock.patch.object(harness_kernel, 'required_mutant_patch', lambda v, out: self.mutant):
			self.tree.move_to('mutant')
			self.assertEqual(self.state(), ('header first', 'mutant'))
			self.tree.move_to('patched')
			self.assertEqual(self.state(), ('header first', 'series'))
			self.tree.move_to('mutant')
			self.tree.move_to('base')
			self.assertEqual(self.state(), ('header first', 'base'))

	def test_a_changed_file_is_newer_than_every_build_and_an_unchanged_one_keeps_its_mtime(self):
		with quiet():
			self.tree.base()
			self.age()
			header, source = self.mtime('include/x.h'), self.mtime('drivers/connector/cn_proc.c')
			built = time.time_ns() - 1
			self.tree.patched()
			self.assertEqual(self.mtime('include/x.h'), header)
			self.assertGreater(self.mtime('drivers/connector/cn_proc.c'), built)
			self.age()
			header, built = self.mtime('include/x.h'), time.time_ns() - 1
			self.tree.base()	# quilt restores drivers/connector/cn_proc.c with its old mtime
			self.assertGreater(self.mtime('drivers/connector/cn_proc.c'), built)
			self.assertEqual(self.mtime('include/x.h'), header)
			# The series applied again (another patch 2): the header
			# patch 1 changes, as every object includes it, keeps its time.
			self.tree.patched()
			self.age()
			header = self.mtime('include/x.h')
			self.write_series('series v2')
			self.tree = harness_kernel.Tree(self.tree.line, self.opts)
			self.tree.patched()
			self.assertEqual(self.mtime('include/x.h'), header)
			self.assertEqual(self.state(), ('header first', 'series v2'))

	def test_a_file_restored_with_an_old_mtime_is_made_new(self):
		"""What quilt or patch restores may carry the mtime of its backup
		(this machine's quilt pop touches it; the tree does not rely on it)."""
		with quiet():
			self.tree.patched()
		built = time.time_ns() - 1

		def restore(n, series):
			p = os.path.join(self.tree.path, 'drivers/connector/cn_proc.c')
			with open(p, 'w') as f:
				f.write('base\n')
			os.utime(p, ns=(0, 0))
		with mock.patch.object(self.tree, '_apply', restore):
			self.tree.base()
		self.assertGreater(self.mtime('drivers/connector/cn_proc.c'), built)

	def test_the_static_checks_tour_leaves_what_it_restored_as_it_was(self):
		"""Pristine, base and patched in turn for the check builds: the header
		patch 1 changes is back at its mtime afterwards, so a boot build
		rebuilds nothing for it; every move within the tour is seen."""
		with quiet():
			self.tree.patched()
			self.age()
			header, source = self.mtime('include/x.h'), self.mtime('drivers/connector/cn_proc.c')
			built = time.time_ns() - 1
			with self.tree.check_builds_only():
				self.tree.pristine()
				self.assertGreater(self.mtime('include/x.h'), built)
				self.assertGreater(self.mtime('drivers/connector/cn_proc.c'), built)
				pristine = time.time_ns() - 1
				self.tree.base()
				self.assertGreater(self.mtime('include/x.h'), pristine)
				self.tree.patched()
			self.assertEqual((self.mtime('include/x.h'), self.mtime('drivers/connector/cn_proc.c')), (header, source))
			# Left at another state, a changed file stays new.
			with self.tree.check_builds_only():
				self.tree.pristine()
				self.tree.base()
			self.assertEqual(self.mtime('include/x.h'), header)
			self.assertGreater(self.mtime('drivers/connector/cn_proc.c'), built)
			# Left by an error: nothing restored.
			self.tree.patched()
			self.age()
			header = self.mtime('include/x.h')
			with self.assertRaises(HarnessError), self.tree.check_builds_only():
				self.tree.pristine()
				self.tree.patched()
				raise HarnessError('a check failed')
			self.assertGreater(self.mtime('include/x.h'), header)

	def test_the_source_a_tree_is_linked_to_keeps_its_mtimes(self):
		src = os.path.join(self.ksrc, 'include/x.h')
		before = os.stat(src).st_mtime_ns
		linked = os.path.join(self.tree.path, 'include/x.h')
		os.remove(linked)
		os.link(src, linked)
		harness_kernel.Tree._set_mtime(linked, before - 10**9)
		self.assertEqual(os.stat(src).st_mtime_ns, before)
		self.assertEqual(os.stat(linked).st_mtime_ns, before - 10**9)
		self.assertEqual(harness_util.file_text(linked), 'header\n')


FAKE_QEMU = '''#!/bin/sh
# A QEMU that hangs: it opens its serial log, as QEMU does, and never exits.
echo $$ >"{pidfile}"
: >"$1"
exec sleep 3600
'''


class HungBoot(HarnessCase):
	"""A boot that does not end is killed at its timeout and fails."""

	def setUp(self):
		super().setUp()
		self.pidfile = os.path.join(self.tmp, 'qemu.pid')
		self.qemu = os.path.join(self.tmp, 'qemu-hangs')
		with open(self.qemu, 'w') as f:
			f.write(FAKE_QEMU.format(pidfile=self.pidfile))
		os.chmod(self.qemu, 0o755)
		self.addCleanup(self.kill_qemu)

	def kill_qemu(self):
		try:
			with open(self.pidfile) as f:
				os.kill(int(f.read()), signal.SIGKILL)
		except (OSError, ValueError):
			pass

	def qemu_gone(self):
		with open(self.pidfile) as f:
			pid = int(f.read())
		try:
			os.kill(pid, 0)
		except ProcessLookupError:
			return True
		return False

	def guarded(self, fn):
		"""FN's result; the test fails if it has not returned in GUARD s."""
		result = []
		t = threading.Thread(target=lambda: result.append(fn()), daemon=True)
		t.start()
		t.join(GUARD)
		self.assertFalse(t.is_alive(), f'still running {GUARD}s after a 1s timeout')
		return result[0]

	def test_qemu_is_killed_at_the_timeout(self):
		log = os.path.join(self.tmp, 'boot.log')
		with quiet():
			ended = self.guarded(lambda: harness_guest.boot([self.qemu, log], log, 1))
		self.assertFalse(ended)
		self.assertTrue(self.qemu_gone())

	@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
	def test_boot_test_with_a_hung_qemu_fails_the_line(self):
		tree_root = os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL)))

		with mock.patch.object(harness_kernel, 'newest_source', return_value=tree_root), \
		     mock.patch.object(harness_kernel.Tree, 'prepare', fake_prepare()), \
		     mock.patch.object(harness_kernel.Kernels, 'ensure', lambda k, kernels: None), \
		     mock.patch.object(harness_boot, 'build_initramfs', lambda *a: 'initrd'), \
		     mock.patch.object(harness_guest, 'choose_accel', lambda *a: harness_guest.TCG), \
		     mock.patch.object(harness_boot, 'qemu_argv', lambda arch, image, initrd, log, *a, **k: [self.qemu, log]):
			status, out = self.guarded(lambda: self.harness('boot-test', commands=True, KERNEL='7.3',
									CONFIGS='smp1', BOOT_TIMEOUT='1'))
		self.assertEqual(status, 1, out)
		with open(os.path.join(self.env['OUT'], '7.3', 'results', 'x86_64', 'smp1.patched.json')) as f:
			self.assertTrue(json.load(f)['timed_out'])
		self.assertTrue(self.qemu_gone())


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class Arm64Helper(HarnessCase):
	"""An arm64 kernel with the series whose helper's atomics are not those
	the litmus tests model fails its line, however its boots went."""

	def boot_test(self, disassembly):
		tree_root = os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL)))


		def build(kernels, k):
			d = kernels.image_dir(k)
			os.makedirs(d, exist_ok=True)
			open(kernels.image(k), 'w').close()
			with open(os.path.join(d, 'helper.dis'), 'w') as f:
				f.write(disassembly)

		def boot(argv, log, timeout):
			with open(os.path.join(LOGS, 'arm64-lse-patched.log')) as f, open(log, 'w') as g:
				g.write(f.read())
			return True
		with mock.patch.object(harness_kernel, 'newest_source', return_value=tree_root), \
		     mock.patch.object(harness_kernel.Tree, 'prepare', fake_prepare()), \
		     mock.patch.object(harness_kernel.Tree, 'move_to', lambda t, v: None), \
		     mock.patch.object(harness_kernel.Tree, 'patched', lambda t: None), \
		     mock.patch.object(harness_kernel.Kernels, 'configure', lambda k, a, f: None), \
		     mock.patch.object(harness_kernel.Kernels, 'fetch_cached', lambda kernels, k: False), \
		     mock.patch.object(harness_kernel.Kernels, 'build', build), \
		     mock.patch.object(harness_boot, 'build_initramfs', lambda *a: 'initrd'), \
		     mock.patch.object(harness_guest, 'choose_accel', lambda *a: harness_guest.TCG), \
		     mock.patch.object(harness_guest, 'boot', boot):
			return self.harness('boot-test', commands=True, KERNEL='7.3', ARCH='arm64', CONFIGS='arm64-lse')

	def test_the_modelled_atomics_pass(self):
		with open(os.path.join(TOP, 'tests/litmus/samples/ktime_stamp_ns.arm64.objdump')) as f:
			status, out = self.boot_test(f.read())
		self.assertEqual(status, 0, out)

	def test_other_atomics_fail_the_line(self):
		with open(os.path.join(TOP, 'tests/litmus/samples/ktime_stamp_ns.arm64.objdump')) as f:
			status, out = self.boot_test(f.read().replace('\tcasal\t', '\tcas\t'))
		self.assertEqual(status, 1, out)
		self.assertNotIn('passed', out)


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class Bench(HarnessCase):
	"""make bench fails when a boot did not run what its figures need (it
	hung, its kernel reported a problem, the selftest did not finish),
	never on a figure; its boots are booted and read as boot-test's."""

	def parsed(self, name, timed_out=False):
		return harness_results.parse_log(os.path.join(LOGS, name), timed_out, KUNIT_TOOL)

	def kinds(self, reported):
		return [(w.kind, w.about) for w in harness_bench.problems(reported)]

	def test_what_fails_a_bench_boot(self):
		self.assertEqual(self.kinds(self.parsed('x86_64-smp2-patched.log')), [])
		self.assertEqual(self.kinds(self.parsed('x86_64-smp2-patched.log', timed_out=True)),
				 [('timed_out', '')])
		kinds = self.kinds(self.parsed('warning.log'))
		self.assertEqual([k for k, _ in kinds], ['kernel_report'])
		self.assertEqual(self.kinds(self.parsed('selftest-unfinished.log')),
				 [('part_unfinished', 'cn_proc-selftest')])

	def bench(self, keeps_log, ended=True):
		"""make bench on a mocked tree, every boot writing
		tests/logs/KEEPS_LOG; ENDED: whether boots end by themselves.
		(exit status, output); the timeouts boots got in self.timeouts."""
		self.timeouts = []
		tree_root = os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL)))


		def boot(argv, log, timeout, *_):
			self.timeouts.append(timeout)
			with open(log, 'w') as f:
				f.write(harness_util.file_text(os.path.join(LOGS, keeps_log)))
			return ended
		tcg = harness_guest.TCG
		with mock.patch.object(harness_kernel, 'newest_source', return_value=tree_root), \
		     mock.patch.object(harness_kernel.Tree, 'prepare', fake_prepare()), \
		     mock.patch.object(harness_kernel.Kernels, 'ensure', lambda *_: None), \
		     mock.patch.object(harness_bench, 'native', lambda out: []), \
		     mock.patch.object(harness_bench, 'native_report', lambda lines: []), \
		     mock.patch.object(harness_bench, 'build_initramfs', lambda *_: 'initrd'), \
		     mock.patch.object(harness_guest, 'choose_accel', lambda *_: tcg), \
		     mock.patch.object(harness_guest, 'boot', boot):
			return self.harness('bench', True, BOOT_TIMEOUT='7')

	def report(self):
		return os.path.join(self.env['OUT'], 'bench', 'report.md')

	def test_a_bench_whose_boots_ran_reports(self):
		status, out = self.bench('x86_64-smp2-patched.log')
		self.assertEqual(status, 0, out)
		# Each design on two clocksources.
		self.assertEqual(self.timeouts, [7] * 8)
		self.assertIn('| 0 events of 4010 processes |', harness_util.file_text(self.report()))

	def test_a_boot_that_does_not_count_fails_bench(self):
		for log, ended in (('x86_64-smp2-patched.log', False), ('warning.log', True),
				   ('selftest-unfinished.log', True)):
			with self.subTest(log=log, ended=ended):
				status, out = self.bench(log, ended)
				self.assertEqual(status, 1, out)
				self.assertFalse(os.path.exists(self.report()))



class NewestSource(unittest.TestCase):
	"""KSRC is the newest line's source only when it is that line's tree."""

	def test_ksrc_of_an_older_line_is_not_the_newest_lines_source(self):
		newest, older = types.SimpleNamespace(name='7.3'), types.SimpleNamespace(name='6.1')
		opts = harness_config.Options(ksrc='/some/linux')
		self.assertEqual(harness_kernel.newest_ksrc(opts, [newest], newest), '/some/linux')
		self.assertEqual(harness_kernel.newest_ksrc(opts, [older], newest), '')
		self.assertEqual(harness_kernel.newest_ksrc(harness_config.Options(), [newest], newest), '')


if __name__ == '__main__':
	unittest.main(verbosity=1)
