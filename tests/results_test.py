#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the log parser and the verdict (scripts/harness_results.py) on
the serial logs in tests/logs/, one file a case, as kunit_tool_test.py has
its test_data/: boots of the test kernels (x86_64-*, arm64-*), and
crafted copies of them with one thing changed each (the others). The boots
from before the selftest ran through run_kselftest.sh have its selftest
part rewritten in that form (run_kselftest.sh's KTAP, the selftest's
nested in it, and the runs in a network, pid and user namespace).

They need the newest line's tools/testing/kunit, whose kunit_parser reads
the KTAP: make unit-tests gives its path in KUNIT_TOOL.
"""

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True

import harness_config  # noqa: E402
import harness_results  # noqa: E402

KUNIT_TOOL = os.environ.get('KUNIT_TOOL', '')
RUNS = {r.name: r for r in harness_config.load_runs(harness_config.load_lines())}


def boot(run, variant='patched', **changes):
	"""A boot of the run of configs/runs.toml, its run changed by CHANGES."""
	r = RUNS[run]
	if changes:
		r = harness_config.dataclasses.replace(r, **changes)
	return harness_config.Boot('7.3', r, variant, dict(r.kernels)[variant])


def judge(log, b, timed_out=False):
	res = harness_results.parse_log(os.path.join(TOP, 'tests', 'logs', log), timed_out)
	return res, harness_results.verdict(res, b)


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class Logs(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		harness_results.use_kunit_parser(KUNIT_TOOL)

	def assertVerdict(self, log, b, want, timed_out=False):
		res, why = judge(log, b, timed_out)
		self.assertEqual(why, want)
		return res

	# Real boots, as their runs expect.

	def test_a_patched_boot_passes(self):
		res = self.assertVerdict('x86_64-smp2-patched.log', boot('smp2'), [])
		self.assertEqual(res['checks']['load_order'], 'ok')
		self.assertEqual(res['checks']['kunit:ktime_stamp_ns_concurrent_test'], 'ok')
		self.assertEqual(res['checks']['client:keepalived'], 'ok')
		self.assertEqual(res['diag']['inversions'], '0')
		self.assertEqual(res['parts']['cn_proc-selftest']['plan'], 18)
		self.assertEqual(res['parts']['cn_proc-selftest']['runner'], 'ok')
		for ns in ('netns', 'pidns', 'userns'):
			self.assertEqual(res['checks'][ns + ':cn_proc_test'], 'skip')
		self.assertIn('network namespace', res['parts']['cn_proc-selftest-netns']['skip'])

	def test_a_base_boot_fails_as_its_run_expects(self):
		res = self.assertVerdict('x86_64-jiffies-base.log', boot('jiffies', 'base'), [])
		self.assertEqual(res['checks']['load_order'], 'FAIL')
		# The base kernel has no KUnit case of the series: fine for base only.
		self.assertVerdict('x86_64-jiffies-base.log', boot('jiffies', 'patched'),
				   ['no KUnit results', 'load_order failed', 'load_unique failed'])

	def test_must_fail_and_may_fail(self):
		b = boot('jiffies', 'base')
		e = harness_config.Expect
		for expect, want in ((e(fail=('load_order',)), ['load_unique failed']),
				     (e(fail=('load_order', 'load_unique', 'ack')), ['ack did not fail']),
				     (e(may_fail=('load_order', 'load_unique')), []),
				     (e(fail=('load_order',), may_fail=('load_unique',)), [])):
			self.assertEqual(judge('x86_64-jiffies-base.log',
					       harness_config.dataclasses.replace(b, expect=expect))[1], want)

	def test_an_expected_check_the_boot_does_not_have_is_an_error(self):
		b = harness_config.dataclasses.replace(boot('smp2'), expect=harness_config.Expect(
			may_fail=('load_ordr',), fail=('kunit:no_such_test',)))
		self.assertEqual(judge('x86_64-smp2-patched.log', b)[1],
				 ['kunit:no_such_test, expected, is no check of this boot',
				  'load_ordr, expected, is no check of this boot',
				  'kunit:no_such_test did not fail'])

	def test_the_mutants_kunit_cases_fail(self):
		self.assertVerdict('x86_64-mutant-helper.log', boot('mutant-helper', 'plain-ktime-get-ns'), [])

	def test_a_clocksource_the_run_asks_for_is_shown_used(self):
		res = self.assertVerdict('x86_64-jiffies-patched.log', boot('jiffies'), [])
		self.assertEqual(set(res['clocksources']), {'jiffies'})
		self.assertVerdict('clocksource-ignored.log', boot('jiffies'),
				   ['clocksource: tsc, tsc, the run asks for jiffies'])
		self.assertVerdict('x86_64-smp2-patched.log', boot('smp2', clocksource='jiffies'),
				   ['clocksource: tsc, tsc, the run asks for jiffies'])

	def test_a_preemption_model_the_run_asks_for_is_shown_used(self):
		self.assertVerdict('x86_64-lazy-patched.log', boot('lazy'), [])
		self.assertVerdict('x86_64-smp2-patched.log', boot('smp2', preempt='lazy'),
				   ['preemption: full, the run asks for lazy'])

	def test_arm64_atomics_as_the_run_names_them(self):
		for log, atomics in (('arm64-lse-patched.log', 'lse'), ('arm64-llsc-patched.log', 'llsc')):
			res = self.assertVerdict(log, boot(f'arm64-{atomics}'), [])
			self.assertEqual(res['atomics'], atomics)
		self.assertVerdict('arm64-lse-patched.log', boot('arm64-lse', atomics='llsc'),
				   ['atomics: lse, the run asks for llsc'])
		self.assertVerdict('arm64-llsc-patched.log', boot('arm64-llsc', atomics='lse'),
				   ['atomics: llsc, the run asks for lse'])
		# An x86_64 boot shows none.
		self.assertIsNone(judge('x86_64-smp2-patched.log', boot('smp2'))[0]['atomics'])

	def test_the_alternatives_make_the_choice(self):
		"""LL/SC once the system-wide alternatives apply without LSE; none if
		the boot never got that far."""
		self.assertVerdict('arm64-no-alternatives.log', boot('arm64-llsc'),
				   ['atomics: none detected, the run asks for llsc'])

	# Crafted: what makes any boot fail.

	def test_a_kernel_report_fails_a_boot(self):
		self.assertVerdict('warning.log', boot('smp2'),
				   ['kernel: WARNING: CPU: 1 PID: 77 at kernel/time/timekeeping.c:2800'])

	def test_a_report_inside_a_selftest_line(self):
		why = judge('report-inside-selftest-line.log', boot('smp2'))[1]
		self.assertTrue(why[0].startswith('kernel: BUG: sleeping function called from invalid context'), why)

	def test_a_printk_inside_the_plan_line(self):
		"""Seen in a boot: the kernel's line landed before the plan's newline."""
		self.assertVerdict('printk-inside-plan.log', boot('smp2'), [])

	def test_a_selftest_that_did_not_finish(self):
		self.assertVerdict('selftest-unfinished.log', boot('smp2'),
				   ['cn_proc-selftest did not finish', 'cn_proc-selftest-netns did not start',
				    'cn_proc-selftest-pidns did not start', 'cn_proc-selftest-userns did not start'])

	def test_a_missing_result(self):
		self.assertVerdict('result-missing.log', boot('smp2'),
				   ['cn_proc-selftest reported 17 results, planned 18'])

	def test_a_missing_plan(self):
		self.assertIn('cn_proc-selftest reported 18 results, planned none',
			      judge('plan-missing.log', boot('smp2'))[1])

	def test_arguments_the_selftest_rejects(self):
		self.assertEqual(judge('selftest-usage.log', boot('smp2'))[1][0],
				 'cn_proc-selftest reported 0 results, planned none')
		self.assertEqual(judge('selftest-usage.log', boot('smp2', 'base'))[1][0],
				 'cn_proc-selftest reported 0 results, planned none')

	def test_the_exit_status_must_match_the_results(self):
		"""The selftest's (139 after 18 passes), in run_kselftest.sh's result;
		and run_kselftest.sh's own."""
		self.assertVerdict('exit-status-wrong.log', boot('smp2'),
				   ['cn_proc-selftest: run_kselftest.sh reported cn_proc_test FAIL, its checks all passed'])
		self.assertVerdict('runner-exit-wrong.log', boot('smp2'), ['cn_proc-selftest exited 1'])

	# Crafted: run_kselftest.sh's nesting, and the namespaces.

	def test_a_nested_result_lost(self):
		"""run_kselftest.sh's result for the selftest, without the selftest's
		own KTAP in it; one nested result missing is test_a_missing_result."""
		self.assertVerdict('nested-missing.log', boot('smp2'),
				   ['cn_proc-selftest reported 0 results, planned none'])

	def test_run_kselftest_n_must_skip_for_the_network_namespace(self):
		"""A FAIL (the selftest's Bail out on ECONNREFUSED), and a SKIP
		whose reason is lost, both fail a boot, base or patched."""
		for variant in ('base', 'patched'):
			self.assertVerdict('netns-fail.log', boot('smp2', variant),
					   ['cn_proc-selftest-netns: cn_proc_test did not SKIP for the network namespace '
					    '(result FAIL, reason: none)', 'netns:cn_proc_test failed'])
		self.assertVerdict('netns-reason-missing.log', boot('smp2'),
				   ['cn_proc-selftest-netns: cn_proc_test did not SKIP for the network namespace '
				    '(result skip, reason: none)'])

	def test_a_skip_reason_with_a_failure(self):
		"""The selftest's SKIP line, but an exit status run_kselftest.sh
		reports as a failure."""
		self.assertVerdict('netns-skip-exit-wrong.log', boot('smp2'),
				   ['cn_proc-selftest-netns: cn_proc_test did not SKIP for the network namespace '
				    '(result FAIL, reason: in a network namespace other than the initial one, where the '
				    'connector is not (PROC_CN_MCAST_LISTEN: Connection refused))',
				    'netns:cn_proc_test failed'])

	def test_run_kselftest_runs_the_selftest_alone(self):
		"""proc_filter too (run_kselftest.sh without -t): it listens until its
		timeout."""
		self.assertVerdict('runner-other-test.log', boot('smp2'),
				   ['cn_proc-selftest: run_kselftest.sh planned 2 and reported selftests: connector: '
				    'proc_filter, selftests: connector: cn_proc_test, not selftests: connector: cn_proc_test '
				    'alone', 'cn_proc-selftest exited 1'])

	def test_a_new_pid_namespace_must_skip_naming_it(self):
		self.assertVerdict('pidns-wrong-reason.log', boot('smp2'),
				   ['cn_proc-selftest-pidns: cn_proc_test did not SKIP for the pid namespace '
				    '(result skip, reason: no ack (CONFIG_PROC_EVENTS=n?))'])

	def test_clients_asked_for_but_absent(self):
		self.assertVerdict('clients-missing.log', boot('smp2'), ['cn_proc-clients did not start'])

	def test_a_kernel_with_the_series_must_run_its_kunit_cases(self):
		self.assertVerdict('kunit-missing.log', boot('smp2'), ['no KUnit results'])

	def test_init_refused_its_parameters(self):
		self.assertVerdict('init-error.log', boot('smp2'),
				   ['init: unknown parameter cnproc_rnu (tests/init knows cnproc_run, _listener, '
				    '_args, _clients)', 'init did not start'])

	def test_init_ran_another_mode(self):
		self.assertIn('init ran kunti, the run asks for selftest', judge('init-unknown-run.log', boot('smp2'))[1])

	def test_a_hung_boot(self):
		self.assertEqual(judge('selftest-unfinished.log', boot('smp2'), timed_out=True)[1][:2],
				 ['boot timed out', 'cn_proc-selftest did not finish'])


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class Table(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		harness_results.use_kunit_parser(KUNIT_TOOL)

	def judged(self, log, b):
		res, why = judge(log, b)
		return {'boot': b, 'res': res, 'why': why}

	def test_base_and_patched_share_a_column(self):
		rows = harness_results.table([self.judged('x86_64-jiffies-base.log', boot('jiffies', 'base')),
					      self.judged('x86_64-jiffies-patched.log', boot('jiffies'))])
		self.assertIn('| jiffies ', rows[0])
		self.assertRegex([r for r in rows if r.startswith('| load_order ')][0], r'FAIL / ok')
		self.assertRegex([r for r in rows if r.startswith('| clocksource ')][0], r'jiffies / jiffies')
		self.assertIn('yes / yes', rows[-1])

	def test_a_run_of_one_kernel(self):
		rows = harness_results.table([self.judged('x86_64-lazy-patched.log', boot('lazy'))])
		self.assertIn('lazy (patched)', rows[0])

	def test_the_atomics_row_where_a_boot_shows_them(self):
		rows = harness_results.table([self.judged('arm64-lse-patched.log', boot('arm64-lse')),
					      self.judged('arm64-llsc-patched.log', boot('arm64-llsc'))])
		self.assertRegex([r for r in rows if r.startswith('| atomics ')][0], r'\| lse +\| llsc +\|')

	def test_the_report_names_what_was_not_as_expected(self):
		out = harness_results.report('Linux 7.3', [self.judged('result-missing.log', boot('smp2'))])
		self.assertIn('UNEXPECTED: smp2 patched: cn_proc-selftest reported 17 results, planned 18', out)
		self.assertEqual(out[-1], 'Linux 7.3: 0 of 1 boots as expected')


if __name__ == '__main__':
	unittest.main(verbosity=1)


class KernelsTested(unittest.TestCase):
	"""RESULTS names the versions the run's tables were made on."""

	def test_versions_from_the_table_titles(self):
		tables = ['### Linux 7.3 (linux-source-7.3 7.3.4-1~bpo13+1) on x86_64, QEMU -accel tcg\n| a |',
			  '### Linux 7.3 (linux-source-7.3 7.3.4-1~bpo13+1) on arm64, QEMU -accel tcg\n| a |',
			  '### Linux 6.12 (linux-source-6.12 6.12.118-1~deb12u1) on x86_64, QEMU\n',
			  '### Linux 6.1 (linux-source-6.1 6.1.192-3) on x86_64, QEMU\n']
		self.assertEqual(harness_results.kernels_tested(tables),
				 'Kernels tested: Linux 7.3.4 (linux-source-7.3 7.3.4-1~bpo13+1), '
				 'Linux 6.12.118 (linux-source-6.12 6.12.118-1~deb12u1), '
				 'Linux 6.1.192 (linux-source-6.1 6.1.192-3).')

	def test_a_ksrc_tree(self):
		# KSRC's tree id is "ksrc PATH KEY": no version to take from it.
		self.assertEqual(harness_results.kernels_tested(['### Linux 7.3 (ksrc /src/linux 0123abcd) on x86_64, q']),
				 'Kernels tested: Linux 7.3 (ksrc /src/linux 0123abcd).')

	def test_no_tables_no_line(self):
		self.assertEqual(harness_results.kernels_tested(['no title here']), '')

