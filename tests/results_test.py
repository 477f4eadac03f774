#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the log parser, the verdict (scripts/harness_results.py) and
the tables (scripts/harness_tables.py) on
the serial logs in tests/logs/, one file a case, as kunit_tool_test.py has
its test_data/: boots of the test kernels (x86_64-*, arm64-*), and
crafted copies of them with one thing changed each (the others). The boots
from before the selftest ran through run_kselftest.sh have its selftest
part rewritten in that form (run_kselftest.sh's KTAP, the selftest's
nested in it, and the runs in a network, pid and user namespace); the
crafted copies made before the harness's own listener have its part added
after the selftest's (cn_proc-figures, their old "# cn_proc:" figures in
its line). tests/logs/real-boots.txt lists the real boots, each with the
command that judges it and its boot's verdict (RealBoots).

They need the newest line's tools/testing/kunit, whose kunit_parser reads
the KTAP: make unit-tests gives its path in KUNIT_TOOL.
"""

import os
import re
import subprocess
import sys
import tempfile
import types
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True

import harness_boot  # noqa: E402
import harness_config  # noqa: E402
import harness_results  # noqa: E402
import harness_tables  # noqa: E402
from harness_results import Status  # noqa: E402

KUNIT_TOOL = os.environ.get('KUNIT_TOOL', '')
LOGS = os.path.join(TOP, 'tests', 'logs')
# The tests' own runs (tests/configs/), not the boot matrix of configs/.
harness_config.LINES_AND_RUNS_DIR = os.path.join(TOP, 'tests', 'configs')
RUNS = {r.name: r for r in harness_config.load_runs(harness_config.load_lines())}


def boot(run, variant='patched', **changes):
	"""A boot of the run of configs/runs.toml, its run changed by CHANGES."""
	r = RUNS[run]
	if changes:
		r = harness_config.dataclasses.replace(r, **changes)
	return harness_config.Boot('7.3', r, variant, dict(r.kernels)[variant])


def cmdline(b, prog_args=()):
	"""The kernel command line boot B gives, the selftest's PROG_ARGS
	(and -a on base) among it."""
	return harness_boot.boot_cmdline(b, harness_config.Options(selftest_args=tuple(prog_args)))


def judge(log, b, timed_out=False):
	reported = harness_results.parse_log(os.path.join(LOGS, log), timed_out, KUNIT_TOOL)
	return reported, harness_results.verdict(reported, b, cmdline(b))


def kinds(why):
	"""A verdict as data: (kind, about) of each reason, not its words."""
	return [(w.kind, w.about) for w in why]


def log_lines(log):
	with open(os.path.join(LOGS, log), errors='replace') as f:
		return f.readlines()


def edited(log, old, new, count=1):
	"""The lines of LOG with OLD, which must occur COUNT times, replaced by
	NEW."""
	lines = log_lines(log)
	text = ''.join(lines)
	assert text.count(old) == count, (log, old, text.count(old))
	return text.replace(old, new).splitlines(True)


def edited_lines(lines, old, new):
	text = ''.join(lines)
	assert text.count(old) == 1, (old, text.count(old))
	return text.replace(old, new).splitlines(True)


def given(lines, old, new):
	"""LINES with OLD replaced by NEW in the kernel command line the kernel
	reports."""
	return [l.replace(old, new) if 'Kernel command line:' in l else l for l in lines]


def as_base(log):
	"""The lines of LOG, a crafted copy of a patched boot's, as a base boot
	of its run would have them: the selftest given -a."""
	return given(log_lines(log), 'cnproc_clients=1', 'cnproc_clients=1 cnproc_args="-a"')


def judge_lines(lines, b, timed_out=False, prog_args=()):
	reported = harness_config.dataclasses.replace(harness_results.parse(lines, KUNIT_TOOL),
						      timed_out=timed_out)
	return reported, harness_results.verdict(reported, b, cmdline(b, prog_args))


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class Logs(unittest.TestCase):
	def assertVerdict(self, log, b, want, timed_out=False):
		"""The boot's verdict is WANT: (kind, about) of each reason."""
		reported, why = judge(log, b, timed_out)
		self.assertEqual(kinds(why), want)
		return reported

	# Real boots, as their runs expect.

	def test_a_patched_boot_passes(self):
		reported = self.assertVerdict('x86_64-smp2-patched.log', boot('smp2'), [])
		self.assertEqual(reported.checks['load_order'], Status.OK)
		self.assertEqual(reported.checks['kunit:ktime_stamp_ns_concurrent_test'], Status.OK)
		self.assertEqual(reported.checks['client:keepalived'], Status.OK)
		self.assertEqual(reported.figures['inversions'], '0')
		self.assertEqual(reported.parts['cn_proc-selftest'].plan, 17)
		self.assertEqual(reported.parts['cn_proc-selftest'].runner.status, Status.OK)
		for ns in ('netns', 'pidns', 'userns'):
			self.assertEqual(reported.checks[ns + ':cn_proc_test'], Status.SKIP)
		self.assertIn('network namespace',
			      reported.parts['cn_proc-selftest-netns'].runner.skip)

	def test_the_figures_are_the_harness_listeners(self):
		"""The figures are those the listener's part printed, and only
		that part's: its line, and its exit status 0, are required."""
		keys = ['events', 'cpus', 'inversions', 'max_inversion_ns', 'ties', 'duplicates',
			'lead_ns', 'gaps', 'enobufs', 'rate']
		reported = self.assertVerdict('x86_64-smp2-patched.log', boot('smp2'), [])
		self.assertEqual(list(reported.figures), keys)
		self.assertGreaterEqual(int(reported.figures['events']), 20000)
		lines = log_lines('x86_64-smp2-patched.log')
		figures = next(l for l in lines if l.startswith('figures: '))
		elsewhere = edited_lines(lines, 'cn_proc-clients: start', 'cn_proc-clients: start\n'
					 'figures: events=1 cpus=1')
		self.assertEqual(harness_results.parse(elsewhere, KUNIT_TOOL).figures,
				 reported.figures)
		self.assertEqual(kinds(judge_lines(edited_lines(lines, figures, ''), boot('smp2'))[1]),
				 [('figures', 'cn_proc-figures')])
		self.assertEqual(kinds(judge_lines(edited_lines(lines, 'cn_proc-figures: exit 0',
								'cn_proc-figures: exit 1'),
						   boot('smp2'))[1]),
				 [('exit_status', 'cn_proc-figures')])
		gone = [l for l in lines if not l.startswith(('cn_proc-figures: ', 'figures: '))]
		self.assertEqual(kinds(judge_lines(gone, boot('smp2'))[1]),
				 [('part_missing', 'cn_proc-figures')])

	def test_proc_listeners_results_are_judged(self):
		"""proc_listeners, where the run asks, run through run_kselftest.sh
		and judged as the selftest is; where it does not, its part fails
		the boot."""
		b = boot('m32')
		reported = self.assertVerdict('x86_64-m32-patched.log', b, [])
		mine = sorted(k for k in reported.checks if k.startswith('proc_listeners:'))
		self.assertEqual(mine, sorted(harness_config.PROC_LISTENERS_CHECKS))
		self.assertEqual(reported.checks['proc_listeners:count_zero_at_start'], Status.OK)
		self.assertEqual(reported.parts['cn_proc-proc_listeners'].runner.status, Status.OK)
		self.assertIn(('part_unexpected', 'cn_proc-proc_listeners'),
			      kinds(judge('x86_64-m32-patched.log', boot('m32', proc_listeners=False))[1]))
		# run_kselftest.sh's result must be its test's results'
		lines = log_lines('x86_64-m32-patched.log')
		bad = edited_lines(lines, 'ok 1 selftests: connector: proc_listeners',
				   'not ok 1 selftests: connector: proc_listeners')
		bad = edited_lines(bad, 'cn_proc-proc_listeners: exit 0', 'cn_proc-proc_listeners: exit 1')
		self.assertEqual(kinds(judge_lines(bad, b)[1]),
				 [('runner_result', 'cn_proc-proc_listeners')])
		other = edited_lines(lines, 'ok 1 selftests: connector: proc_listeners',
				     'ok 1 selftests: connector: cn_proc_test')
		self.assertIn(('runner', 'cn_proc-proc_listeners'), kinds(judge_lines(other, b)[1]))
		# and each case as the run expects: a pass that must fail, a failure
		must = harness_config.dataclasses.replace(b, expect=harness_config.Expect(
			fail=('proc_listeners:count_zero_at_start',)))
		self.assertIn(('did_not_fail', 'proc_listeners:count_zero_at_start'),
			      kinds(judge('x86_64-m32-patched.log', must)[1]))
		failed = edited_lines(lines, '# ok 2 killed_as_root', '# not ok 2 killed_as_root')
		failed = edited_lines(failed, 'ok 1 selftests: connector: proc_listeners',
				      'not ok 1 selftests: connector: proc_listeners')
		failed = edited_lines(failed, 'cn_proc-proc_listeners: exit 0',
				      'cn_proc-proc_listeners: exit 1')
		self.assertIn(('failed', 'proc_listeners:killed_as_root'),
			      kinds(judge_lines(failed, b)[1]))

	def test_a_base_boot_fails_as_its_run_expects(self):
		b = boot('jiffies', 'base')
		reported = self.assertVerdict('x86_64-jiffies-base.log', b, [])
		self.assertEqual(reported.checks['load_order'], Status.FAIL)
		# The base kernel (the series' first patch) runs the KUnit cases.
		base = harness_config.base_patches(harness_config.load_lines()[0].series_dir)
		kunit = {k: v for k, v in reported.checks.items() if k.startswith('kunit:')}
		self.assertEqual(kunit, {'kunit:' + c: Status.OK
					 for c in harness_config.kunit_cases(base)})
		# As a patched boot's (without -a): the checks of the bug fail it.
		lines = given(log_lines('x86_64-jiffies-base.log'), ' cnproc_args="-a"', '')
		self.assertEqual(kinds(judge_lines(lines, boot('jiffies', 'patched'))[1]),
				 [('failed', 'load_order'), ('failed', 'load_unique')])

	def test_a_base_kernel_must_run_its_kunit_cases(self):
		"""It has the series' first patch, which adds them."""
		lines = [l for l in log_lines('x86_64-jiffies-base.log')
			 if 'ktime_stamp_ns' not in l]
		self.assertIn(('no_kunit', ''),
			      kinds(judge_lines(lines, boot('jiffies', 'base'))[1]))

	def test_must_fail_and_may_fail(self):
		b = boot('jiffies', 'base')
		e = harness_config.Expect
		for expect, want in ((e(fail=('load_order',)), [('failed', 'load_unique')]),
				     (e(fail=('load_order', 'load_unique', 'ack')),
				      [('did_not_fail', 'ack')]),
				     (e(may_fail=('load_order', 'load_unique')), []),
				     (e(fail=('load_order',), may_fail=('load_unique',)), [])):
			expecting = harness_config.dataclasses.replace(b, expect=expect)
			why = judge('x86_64-jiffies-base.log', expecting)[1]
			self.assertEqual(kinds(why), want)

	def test_an_expected_check_the_boot_does_not_have_is_an_error(self):
		b = harness_config.dataclasses.replace(boot('smp2'), expect=harness_config.Expect(
			may_fail=('load_ordr',), fail=('kunit:no_such_test',)))
		self.assertEqual(kinds(judge('x86_64-smp2-patched.log', b)[1]),
				 [('unknown_check', 'kunit:no_such_test'),
				  ('unknown_check', 'load_ordr'),
				  ('did_not_fail', 'kunit:no_such_test')])

	def test_the_mutants_kunit_cases_fail(self):
		self.assertVerdict('x86_64-mutant-helper.log',
				   boot('mutant-helper', 'plain-ktime-get-ns'), [])

	def test_a_clocksource_the_run_asks_for_is_shown_used(self):
		reported = self.assertVerdict('x86_64-jiffies-patched.log', boot('jiffies'), [])
		self.assertEqual(set(reported.clocksources), {'jiffies'})
		self.assertVerdict('clocksource-ignored.log', boot('jiffies', clients=True),
				   [('clocksource', 'tsc, tsc')])
		# A boot given clocksource=jiffies that ran on tsc.
		lines = given(log_lines('x86_64-smp2-patched.log'), 'cnproc_clients=1',
			      'clocksource=jiffies cnproc_clients=1')
		self.assertEqual(kinds(judge_lines(lines, boot('smp2', clocksource='jiffies'))[1]),
				 [('clocksource', 'tsc, tsc')])

	def test_a_preemption_model_the_run_asks_for_is_shown_used(self):
		self.assertVerdict('x86_64-lazy-patched.log', boot('lazy'), [])
		lines = given(log_lines('x86_64-smp2-patched.log'), 'cnproc_clients=1',
			      'preempt=lazy cnproc_clients=1')
		self.assertEqual(kinds(judge_lines(lines, boot('smp2', preempt='lazy'))[1]),
				 [('preempt', 'full')])

	def test_arm64_atomics_as_the_run_names_them(self):
		for log, atomics in (('arm64-lse-patched.log', 'lse'),
				     ('arm64-llsc-patched.log', 'llsc')):
			reported = self.assertVerdict(log, boot(f'arm64-{atomics}'), [])
			self.assertEqual(reported.atomics, atomics)
		self.assertVerdict('arm64-lse-patched.log', boot('arm64-lse', atomics='llsc'),
				   [('atomics', 'lse')])
		self.assertVerdict('arm64-llsc-patched.log', boot('arm64-llsc', atomics='lse'),
				   [('atomics', 'llsc')])
		# An x86_64 boot shows none.
		self.assertIsNone(judge('x86_64-smp2-patched.log', boot('smp2'))[0].atomics)

	def test_the_alternatives_make_the_choice(self):
		"""LL/SC once the system-wide alternatives apply without LSE; none if
		the boot never got that far."""
		self.assertVerdict('no-alternatives.log', boot('arm64-llsc'),
				   [('atomics', '')])

	def test_a_boot_reports_the_checks_configs_can_name(self):
		"""What a run may expect to fail (harness_config.reportable()) is
		what its boots report, in real boots of each kind."""
		line = harness_config.load_lines()[0]
		for log, b in (('x86_64-smp2-patched.log', boot('smp2')),
			       ('x86_64-smp2-base.log', boot('smp2', 'base')),
			       ('x86_64-mutant-helper.log',
				boot('mutant-helper', 'plain-ktime-get-ns'))):
			reported, _ = judge(log, b)
			want = harness_config.reportable(b.run, line, b.variant)
			self.assertEqual(sorted(reported.checks), sorted(want), log)

	# Crafted: what makes any boot fail.

	def test_a_kernel_report_fails_a_boot(self):
		self.assertVerdict('warning.log', boot('smp2'),
				   [('kernel_report',
				     'WARNING: CPU: 1 PID: 77 at kernel/time/timekeeping.c:2800')])

	def test_a_report_inside_a_selftest_line(self):
		why = judge('report-inside-selftest-line.log', boot('smp2'))[1]
		self.assertEqual(why[0].kind, 'kernel_report')
		self.assertTrue(why[0].about.startswith(
			'BUG: sleeping function called from invalid context'), why)

	def test_a_printk_inside_the_plan_line(self):
		"""Seen in a boot: the kernel's line landed before the plan's newline."""
		self.assertVerdict('printk-inside-plan.log', boot('smp2'), [])

	def test_a_selftest_that_did_not_finish(self):
		self.assertVerdict('selftest-unfinished.log', boot('smp2'),
				   [('part_unfinished', 'cn_proc-selftest'),
				    ('part_missing', 'cn_proc-figures'),
				    ('part_missing', 'cn_proc-selftest-netns'),
				    ('part_missing', 'cn_proc-selftest-pidns'),
				    ('part_missing', 'cn_proc-selftest-userns')])

	def test_a_missing_result(self):
		reported = self.assertVerdict('result-missing.log', boot('smp2'),
					      [('plan', 'cn_proc-selftest')])
		part = reported.parts['cn_proc-selftest']
		self.assertEqual((part.results, part.plan), (17, 18))

	def test_a_missing_plan(self):
		self.assertIn(('plan', 'cn_proc-selftest'),
			      kinds(judge('plan-missing.log', boot('smp2'))[1]))

	def test_arguments_the_selftest_rejects(self):
		for why in (judge('selftest-usage.log', boot('smp2'))[1],
			    judge_lines(as_base('selftest-usage.log'), boot('smp2', 'base'))[1]):
			self.assertEqual(kinds(why)[0], ('plan', 'cn_proc-selftest'))

	def test_the_exit_status_must_match_the_results(self):
		"""The selftest's (139 after 18 passes), in run_kselftest.sh's result;
		and run_kselftest.sh's own."""
		self.assertVerdict('exit-status-wrong.log', boot('smp2'),
				   [('runner_result', 'cn_proc-selftest')])
		self.assertVerdict('runner-exit-wrong.log', boot('smp2'),
				   [('exit_status', 'cn_proc-selftest')])

	# Crafted: run_kselftest.sh's nesting, and the namespaces.

	def test_a_nested_result_lost(self):
		"""run_kselftest.sh's result for the selftest, without the selftest's
		own KTAP in it; one nested result missing is test_a_missing_result."""
		reported = self.assertVerdict('nested-missing.log', boot('smp2'),
					      [('plan', 'cn_proc-selftest')])
		self.assertEqual(reported.parts['cn_proc-selftest'].results, 0)

	def test_run_kselftest_n_must_skip_for_the_network_namespace(self):
		"""A FAIL (the selftest's Bail out on ECONNREFUSED), and a SKIP
		whose reason is lost, both fail a boot, base or patched."""
		for reported, why in (judge_lines(as_base('netns-fail.log'), boot('smp2', 'base')),
				      judge('netns-fail.log', boot('smp2'))):
			self.assertEqual(kinds(why), [('namespace_skip', 'cn_proc-selftest-netns'),
						      ('failed', 'netns:cn_proc_test')])
			self.assertEqual(reported.parts['cn_proc-selftest-netns'].runner.status,
					 Status.FAIL)
		reported = self.assertVerdict('netns-reason-missing.log', boot('smp2'),
					      [('namespace_skip', 'cn_proc-selftest-netns')])
		runner = reported.parts['cn_proc-selftest-netns'].runner
		self.assertEqual((runner.status, runner.skip), (Status.SKIP, None))

	def test_a_skip_reason_with_a_failure(self):
		"""The selftest's SKIP line, but an exit status run_kselftest.sh
		reports as a failure."""
		reported = self.assertVerdict('netns-skip-exit-wrong.log', boot('smp2'),
					      [('namespace_skip', 'cn_proc-selftest-netns'),
					       ('failed', 'netns:cn_proc_test')])
		self.assertIn('network namespace',
			      reported.parts['cn_proc-selftest-netns'].runner.skip)

	def test_run_kselftest_runs_the_selftest_alone(self):
		"""proc_filter too (run_kselftest.sh without -t): it listens until its
		timeout."""
		reported = self.assertVerdict('runner-other-test.log', boot('smp2'),
					      [('runner', 'cn_proc-selftest'),
					       ('exit_status', 'cn_proc-selftest')])
		self.assertEqual(reported.parts['cn_proc-selftest'].runner.plan, 2)

	def test_a_new_pid_namespace_must_skip_naming_it(self):
		reported = self.assertVerdict('pidns-wrong-reason.log', boot('smp2'),
					      [('namespace_skip', 'cn_proc-selftest-pidns')])
		self.assertNotIn('pid namespace',
				 reported.parts['cn_proc-selftest-pidns'].runner.skip)

	def test_a_clients_result_must_name_the_release_that_ran(self):
		lines = edited('x86_64-smp2-patched.log',
			       '# cn_proc-staged: cgrulesengd_sid cgroup-tools 3.2.0-1 sid\n', '')
		reported, why = judge_lines(lines, boot('smp2'))
		self.assertEqual(reported.checks['client:cgrulesengd_sid'], Status.OK)
		self.assertEqual(kinds(why), [('release', 'client:cgrulesengd_sid')])

	def test_every_client_must_report(self):
		"""A guest whose run.sh planned and ran fewer clients: the boot
		fails, naming the client."""
		lines = edited('x86_64-smp2-patched.log', 'ok 5 cgrulesengd_sid\n', '')
		lines = edited_lines(lines, 'TAP version 13\n1..8\n', 'TAP version 13\n1..7\n')
		reported, why = judge_lines(lines, boot('smp2'))
		self.assertEqual(kinds(why), [('client_missing', 'client:cgrulesengd_sid')])

	def test_clients_asked_for_but_absent(self):
		self.assertVerdict('clients-missing.log', boot('smp2'),
				   [('part_missing', 'cn_proc-clients')])

	def test_a_kernel_with_the_series_must_run_its_kunit_cases(self):
		self.assertVerdict('kunit-missing.log', boot('smp2'), [('no_kunit', '')])

	def test_init_refused_its_parameters(self):
		why = judge('init-error.log', boot('smp2'))[1]
		self.assertEqual([w.kind for w in why], ['init_error', 'init_missing'])
		self.assertIn('cnproc_rnu', why[0].about)

	def test_init_ran_another_mode(self):
		self.assertIn(('init_mode', 'kunti'),
			      kinds(judge('init-unknown-run.log', boot('smp2'))[1]))

	# What the guest reports against what the run asked.

	def test_the_kernel_command_line_must_be_the_one_the_boot_gave(self):
		"""The selftest's arguments reach it through it (cnproc_args),
		and nothing else reports them."""
		self.assertEqual(judge_lines(log_lines('x86_64-smp2-patched.log'), boot('smp2'))[1],
				 [])
		reported, why = judge_lines(log_lines('x86_64-smp2-patched.log'), boot('smp2'),
					    prog_args=('-w', '2'))
		self.assertEqual(kinds(why), [('cmdline', reported.cmdline)])
		lines = given(log_lines('x86_64-smp2-patched.log'), 'cnproc_clients=1',
			      'cnproc_clients=1 cnproc_args="-w 2"')
		self.assertEqual(judge_lines(lines, boot('smp2'), prog_args=('-w', '2'))[1], [])
		lines = [l for l in log_lines('x86_64-smp2-patched.log')
			 if 'Kernel command line:' not in l]
		self.assertEqual(kinds(judge_lines(lines, boot('smp2'))[1]), [('cmdline', '')])

	def test_the_cpus_brought_up_must_be_the_runs(self):
		self.assertEqual(judge('x86_64-smp2-patched.log', boot('smp2'))[0].cpus, 2)
		self.assertEqual(kinds(judge('x86_64-smp2-patched.log', boot('smp2', cpus=4))[1]),
				 [('cpus', '2')])
		lines = edited('x86_64-smp2-patched.log', 'smp: Brought up 1 node, 2 CPUs\n',
			       'smp: Brought up 1 node, 1 CPU\n')
		self.assertEqual(kinds(judge_lines(lines, boot('smp2'))[1]), [('cpus', '1')])
		lines = [l for l in log_lines('x86_64-smp2-patched.log')
			 if 'smp: Brought up' not in l]
		self.assertEqual(kinds(judge_lines(lines, boot('smp2'))[1]), [('cpus', '')])

	def test_init_must_run_the_clients_as_the_run_asks(self):
		lines = edited('x86_64-smp2-patched.log', 'cn_proc-init: run=selftest clients=1\n',
			       'cn_proc-init: run=selftest clients=0\n')
		self.assertEqual(kinds(judge_lines(lines, boot('smp2'))[1]),
				 [('init_clients', '0')])
		lines = edited('x86_64-jiffies-patched.log',
			       'cn_proc-init: run=selftest clients=0\n',
			       'cn_proc-init: run=selftest clients=1\n')
		self.assertEqual(kinds(judge_lines(lines, boot('jiffies'))[1]),
				 [('init_clients', '1')])

	def test_a_part_the_run_does_not_ask_for_fails(self):
		"""The clients of a run without them; the selftest of a run of KUnit
		alone."""
		lines = edited('x86_64-smp2-patched.log', 'cn_proc-init: run=selftest clients=1\n',
			       'cn_proc-init: run=selftest clients=0\n')
		lines = given(lines, ' cnproc_clients=1', '')
		self.assertEqual(kinds(judge_lines(lines, boot('smp2', clients=False))[1]),
				 [('part_unexpected', 'cn_proc-clients')])
		selftest = [l for l in log_lines('x86_64-jiffies-patched.log')
			    if not l.startswith('[')]
		first = selftest.index('cn_proc-selftest: start bash /kselftest/run_kselftest.sh '
				       '-t connector:cn_proc_test\n')
		last = selftest.index('cn_proc-selftest: exit 0\n')
		lines = log_lines('x86_64-mutant-helper.log')
		at = lines.index('cn_proc-init: run=kunit clients=0\n') + 1
		lines[at:at] = selftest[first:last + 1]
		reported, why = judge_lines(lines, boot('mutant-helper', 'plain-ktime-get-ns'))
		self.assertEqual(kinds(why), [('part_unexpected', 'cn_proc-selftest')])

	def test_the_selftest_of_the_runs_listener(self):
		reported = judge('x86_64-smp2-patched.log', boot('smp2'))[0]
		self.assertEqual(reported.parts['cn_proc-selftest'].command,
				 'bash /kselftest/run_kselftest.sh -t connector:cn_proc_test')
		lines = given(log_lines('x86_64-smp2-patched.log'), 'cnproc_clients=1',
			      'cnproc_listener=32 cnproc_clients=1')
		self.assertEqual(kinds(judge_lines(lines, boot('smp2', listener=32))[1]),
				 [('listener', p) for p in harness_results.KSELFTEST_PARTS
				  if p in RUNS['smp2'].parts()])
		lines = [l.replace('/kselftest/run_kselftest.sh', '/kselftest32/run_kselftest.sh')
			 for l in lines]
		self.assertEqual(judge_lines(lines, boot('smp2', listener=32))[1], [])
		lines = [l.replace('/kselftest32/run_kselftest.sh',
				   '/kselftest/run_kselftest.sh', 1)
			 if 'pidns: start' in l else l for l in lines]
		self.assertEqual(kinds(judge_lines(lines, boot('smp2', listener=32))[1]),
				 [('listener', 'cn_proc-selftest-pidns')])

	def test_a_hung_boot(self):
		why = judge('selftest-unfinished.log', boot('smp2'), timed_out=True)[1]
		self.assertEqual(kinds(why)[:2],
				 [('timed_out', ''), ('part_unfinished', 'cn_proc-selftest')])

	# Each decision on a passing boot, edited to break it.

	REPORTS = ('Kernel panic - not syncing: Attempted to kill init!',
		   'Oops: 0000 [#1] PREEMPT SMP',
		   'BUG: kernel NULL pointer dereference, address: 0000000000000000',
		   'WARNING: CPU: 0 PID: 1 at kernel/time/timekeeping.c:2800 '
		   'ktime_stamp_ns+0x1/0x2',
		   'UBSAN: shift-out-of-bounds in kernel/time/timekeeping.c:10:5',
		   'KASAN: use-after-free in proc_fork_connector+0x1/0x2',
		   'WARNING: possible circular locking dependency detected',
		   'WARNING: possible recursive locking detected',
		   'WARNING: inconsistent lock state', 'WARNING: suspicious RCU usage',
		   'BUG: sleeping function called from invalid context at '
		   'kernel/locking/spinlock_rt.c:48',
		   'BUG: scheduling while atomic: swapper/0/0/0x00000002',
		   'watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [cn_proc_test:80]',
		   'Watchdog detected hard LOCKUP on cpu 1',
		   'rcu: INFO: rcu_preempt self-detected stall on CPU',
		   'INFO: task cn_proc_test:80 blocked for more than 120 seconds.')
	# The same words outside a report, which must not count.
	NOT_REPORTS = ('Run /init as init process', 'printk: console [ttyS0] enabled')

	def test_each_kind_of_kernel_report_fails_a_passing_boot(self):
		end = 'cn_proc-selftest: exit 0\n'
		for report in self.REPORTS:
			for where in (end, ''):
				# A line of its own, and inside the selftest's last line.
				alone = f'[    5.000000] {report}\n{end}'
				inside = f'cn_proc-selftest: exit 0[    5.000000] {report}\n'
				lines = edited('x86_64-smp2-patched.log', end,
					       alone if where else inside)
				reported, why = judge_lines(lines, boot('smp2'))
				self.assertEqual(kinds(why), [('kernel_report', report)])
		for line in self.NOT_REPORTS:
			lines = edited('x86_64-smp2-patched.log', end,
				       f'[    5.000000] {line}\n{end}')
			self.assertEqual(judge_lines(lines, boot('smp2'))[1], [], line)

	def test_a_printk_inside_a_result_and_the_exit_line_is_cut_off(self):
		lines = edited('x86_64-smp2-patched.log', 'ok 16 load_order\n',
			       'ok 16 load_order[    5.100000] random: crng init done\n')
		lines = [l.replace('cn_proc-selftest: exit 0\n',
				   'cn_proc-selftest: exit 0[    5.2] e1000: link up\n')
			 for l in lines]
		reported, why = judge_lines(lines, boot('smp2'))
		self.assertEqual(reported.checks['load_order'], Status.OK)
		self.assertEqual(reported.parts['cn_proc-selftest'].exit, 0)
		self.assertEqual(why, [])

	def test_every_clocksource_the_boot_reports_must_be_the_runs(self):
		lines = edited('x86_64-jiffies-patched.log', 'cn_proc-init: clocksource=jiffies\n',
			       'cn_proc-init: clocksource=tsc\n', count=2)
		self.assertEqual(kinds(judge_lines(lines, boot('jiffies'))[1]),
				 [('clocksource', 'tsc, tsc')])
		# The first of the two readings only.
		lines = log_lines('x86_64-jiffies-patched.log')
		first = lines.index('cn_proc-init: clocksource=jiffies\n')
		lines[first] = 'cn_proc-init: clocksource=tsc\n'
		reported, why = judge_lines(lines, boot('jiffies'))
		self.assertEqual(reported.clocksources, ('tsc', 'jiffies'))
		self.assertEqual(kinds(why), [('clocksource', 'tsc, jiffies')])

	def test_a_clocksource_not_reported_fails(self):
		lines = [l for l in log_lines('x86_64-jiffies-patched.log')
			 if not l.startswith('cn_proc-init: clocksource=')]
		reported, why = judge_lines(lines, boot('jiffies'))
		self.assertEqual(reported.clocksources, ())
		self.assertEqual(kinds(why), [('clocksource', '')])

	def test_the_exit_status_must_be_the_one_the_results_call_for(self):
		# All passed: 0, not 1.
		lines = edited('x86_64-smp2-patched.log', 'cn_proc-selftest: exit 0\n',
			       'cn_proc-selftest: exit 1\n')
		reported, why = judge_lines(lines, boot('smp2'))
		self.assertEqual(reported.parts['cn_proc-selftest'].exit, 1)
		self.assertEqual(kinds(why), [('exit_status', 'cn_proc-selftest')])
		# Some failed: 1, not 0.
		self.assertEqual(judge('x86_64-jiffies-base.log', boot('jiffies', 'base'))[1], [])
		lines = edited('x86_64-jiffies-base.log', 'cn_proc-selftest: exit 1\n',
			       'cn_proc-selftest: exit 0\n')
		self.assertEqual(kinds(judge_lines(lines, boot('jiffies', 'base'))[1]),
				 [('exit_status', 'cn_proc-selftest')])

	def test_a_skipped_order_check_is_a_failure(self):
		"""Every kernel the boot test boots has proc_event_stamps, or
		runs the selftest with -a (base): the selftest must decide the
		order checks there, on base too."""
		for check in harness_results.ORDER_CHECKS:
			n = {'ack_order': 2, 'load_order': 16, 'load_unique': 17}[check]
			lines = edited('x86_64-smp2-patched.log', f'ok {n} {check}\n',
				       f'ok {n} {check} # SKIP no proc_event_stamps in '
				       '/proc/kallsyms\n')
			reported, why = judge_lines(lines, boot('smp2'))
			self.assertEqual(reported.checks[check], Status.SKIP)
			self.assertEqual(kinds(why), [('undecided', check)], check)

	def test_a_skipped_result_is_no_failure(self):
		lines = edited('x86_64-smp2-patched.log', 'ok 4 coredump\n',
			       'ok 4 coredump # SKIP no core dumps\n')
		reported, why = judge_lines(lines, boot('smp2'))
		self.assertEqual(reported.checks['coredump'], Status.SKIP)
		self.assertEqual(why, [])

	def test_a_case_that_did_not_pass_fail_or_skip_is_a_failure(self):
		s = harness_results.kunit_parser(KUNIT_TOOL).TestStatus
		for status in (s.TEST_CRASHED, s.NO_TESTS, s.FAILURE_TO_PARSE_TESTS):
			got = harness_results.status(types.SimpleNamespace(status=status))
			self.assertNotIn(got, (Status.OK, Status.SKIP))
		self.assertEqual(harness_results.status(types.SimpleNamespace(status=s.SUCCESS)),
				 Status.OK)
		self.assertEqual(harness_results.status(types.SimpleNamespace(status=s.FAILURE)),
				 Status.FAIL)
		self.assertEqual(harness_results.status(types.SimpleNamespace(status=s.SKIPPED)),
				 Status.SKIP)


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class BootLine(unittest.TestCase):
	"""A boot's one line as it ends (kunit.py's line a test)."""

	def test_a_mutant_kernel_not_as_expected_names_its_log_and_first_failing_line(self):
		b = boot('mutant-helper', 'plain-ktime-get-ns')
		reported, why = judge('x86_64-mutant-helper.log', b)
		line = harness_tables.boot_line(harness_results.Judged(b, reported, tuple(why)), 3,
						12, 49.4)
		self.assertRegex(line, r'^\[PASSED\] 3/12 Linux 7.3 x86_64 mutant-helper '
				 r'plain-ktime-get-ns: 2/5 checks ok, '
				 r'inversions -, ties -, as expected \(49s\)$')
		# Booted as a kernel that must pass everything: the mutant is caught.
		b = harness_config.dataclasses.replace(b, expect=harness_config.Expect())
		why = harness_results.verdict(reported, b, cmdline(b))
		line = harness_tables.boot_line(harness_results.Judged(b, reported, tuple(why)), 3,
						12, 49.4)
		log = os.path.join(LOGS, 'x86_64-mutant-helper.log')
		self.assertEqual(line, '[FAILED] 3/12 Linux 7.3 x86_64 mutant-helper '
				 'plain-ktime-get-ns: 2/5 checks ok, inversions -, ties -, '
				 'UNEXPECTED (49s): '
				 'kunit:ktime_stamp_ns_clock_stalled_test failed; '
				 'kunit:ktime_stamp_ns_concurrent_test failed; '
				 'kunit:ktime_stamp_ns_increasing_test failed; '
				 f'log {log}: not ok 1 ktime_stamp_ns_increasing_test')

	def test_the_first_failing_line_is_one_of_a_check_that_made_it_unexpected(self):
		b = boot('jiffies', 'base')
		reported, _ = judge('x86_64-jiffies-base.log', b)
		unique = harness_results.Problem('failed', 'load_unique', 'load_unique failed')
		j = harness_results.Judged(b, reported, (unique,))
		self.assertEqual(harness_tables.first_failure(j), 'not ok 17 load_unique')
		other = harness_results.Problem('timed_out', '', 'boot timed out')
		j = harness_results.Judged(b, reported, (other,))
		self.assertEqual(harness_tables.first_failure(j), 'not ok 16 load_order')

	def test_the_terminal_table_is_narrow(self):
		judged = [harness_results.Judged(boot(r, v), judge(log, boot(r, v))[0], ())
			  for r, v, log in (('smp2', 'base', 'x86_64-smp2-base.log'),
					    ('smp2', 'patched', 'x86_64-smp2-patched.log'),
					    ('mutant-helper', 'plain-ktime-get-ns',
					     'x86_64-mutant-helper.log'))]
		rows = harness_tables.terminal_table(judged)
		self.assertLessEqual(max(len(r) for r in rows), 120)
		self.assertEqual(rows[1].split()[:2], ['smp2', 'base'])


@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class Table(unittest.TestCase):
	def judged(self, log, b):
		reported, why = judge(log, b)
		return harness_results.Judged(b, reported, tuple(why))

	def test_base_and_patched_share_a_column(self):
		rows = harness_tables.table([
			self.judged('x86_64-jiffies-base.log', boot('jiffies', 'base')),
			self.judged('x86_64-jiffies-patched.log', boot('jiffies'))])
		self.assertIn('| jiffies ', rows[0])
		self.assertRegex([r for r in rows if r.startswith('| load_order ')][0],
				 r'FAIL / ok')
		self.assertRegex([r for r in rows if r.startswith('| clocksource ')][0],
				 r'jiffies / jiffies')
		self.assertIn('yes / yes', rows[-1])

	def test_a_clients_row_names_the_release_that_ran(self):
		rows = harness_tables.table([
			self.judged('x86_64-smp2-base.log', boot('smp2', 'base')),
			self.judged('x86_64-smp2-patched.log', boot('smp2'))])
		for check, release in (('keepalived', 'keepalived 1:2.2.7-1+b2 bookworm'),
				       ('keepalived_sid', 'keepalived 1:2.3.4-1+b2 sid'),
				       ('cgrulesengd', 'cgroup-tools 2.0.2-2 bookworm'),
				       ('cgrulesengd_sid', 'cgroup-tools 3.2.0-1 sid')):
			mine = [r for r in rows if r.startswith(f'| client:{check} ({release}) ')]
			self.assertEqual(len(mine), 1, (check, rows))

	def test_a_run_of_one_kernel(self):
		rows = harness_tables.table([self.judged('x86_64-lazy-patched.log', boot('lazy'))])
		self.assertIn('lazy (patched)', rows[0])

	def test_the_atomics_row_where_a_boot_shows_them(self):
		rows = harness_tables.table([
			self.judged('arm64-lse-patched.log', boot('arm64-lse')),
			self.judged('arm64-llsc-patched.log', boot('arm64-llsc'))])
		self.assertRegex([r for r in rows if r.startswith('| atomics ')][0],
				 r'\| lse +\| llsc +\|')

	def test_what_save_writes_load_reads(self):
		"""make boot-test's saved results: the report and its verdict, each
		part and status as parsed."""
		for log, b in (('netns-fail.log', boot('smp2')), ('warning.log', boot('smp2')),
			       ('x86_64-jiffies-base.log', boot('jiffies', 'base'))):
			reported, why = judge(log, b, timed_out=True)
			with tempfile.TemporaryDirectory() as d:
				harness_results.save(reported, why, os.path.join(d, 'boot.json'))
				self.assertEqual(harness_results.load(os.path.join(d, 'boot.json')),
						 (reported, why), log)

	def test_the_report_names_what_was_not_as_expected(self):
		j = self.judged('result-missing.log', boot('smp2'))
		out = harness_tables.report('Linux 7.3', [j])
		unexpected = [l for l in out if 'smp2 patched' in l and j.problems[0].text in l]
		self.assertEqual(len(unexpected), 1, out)
		self.assertIn('0 of 1', out[-1])


if __name__ == '__main__':
	unittest.main(verbosity=1)


class KernelsTested(unittest.TestCase):
	"""RESULTS names the versions the run's tables were made on."""

	def test_versions_from_the_table_titles(self):
		tables = ['### Linux 7.3 (linux-source-7.3 7.3.4-1~bpo13+1) on x86_64, '
			  'QEMU -accel tcg\n| a |',
			  '### Linux 7.3 (linux-source-7.3 7.3.4-1~bpo13+1) on arm64, '
			  'QEMU -accel tcg\n| a |',
			  '### Linux 6.12 (linux-source-6.12 6.12.118-1~deb12u1) on x86_64, QEMU\n',
			  '### Linux 6.1 (linux-source-6.1 6.1.192-3) on x86_64, QEMU\n']
		self.assertEqual(harness_tables.kernels_tested(tables),
				 'Kernels tested: Linux 7.3.4 (linux-source-7.3 7.3.4-1~bpo13+1), '
				 'Linux 6.12.118 (linux-source-6.12 6.12.118-1~deb12u1), '
				 'Linux 6.1.192 (linux-source-6.1 6.1.192-3).')

	def test_a_ksrc_tree(self):
		# KSRC's tree id is "ksrc PATH KEY": no version to take from it.
		title = '### Linux 7.3 (ksrc /src/linux 0123abcd) on x86_64, q'
		self.assertEqual(harness_tables.kernels_tested([title]),
				 'Kernels tested: Linux 7.3 (ksrc /src/linux 0123abcd).')

	def test_no_tables_no_line(self):
		self.assertEqual(harness_tables.kernels_tested(['no title here']), '')



@unittest.skipUnless(KUNIT_TOOL, 'KUNIT_TOOL: no kunit_parser')
class RealBoots(unittest.TestCase):
	"""Each serial log of a real boot (tests/logs/real-boots.txt), judged
	again by the command a user types, scripts/harness.py parse LOG LINE
	RUN VARIANT, against configs/ (not the tests' own runs), gives the
	verdict its boot gave."""

	@staticmethod
	def index():
		with open(os.path.join(LOGS, 'real-boots.txt')) as f:
			return [l.split() for l in f if l.strip() and not l.startswith('#')]

	def test_every_real_boot_is_listed(self):
		named = {f for f in os.listdir(LOGS) if re.match(r'(x86_64|arm64)-.*\.log$', f)}
		self.assertEqual(sorted(named), sorted(row[0] for row in self.index()))

	def test_parse_gives_the_verdict_of_the_boot(self):
		# The newest line's source, whose kunit_parser KUNIT_TOOL is.
		ksrc = os.path.dirname(os.path.dirname(os.path.dirname(KUNIT_TOOL)))
		for log, line, run, variant, verdict in self.index():
			with self.subTest(log=log), tempfile.TemporaryDirectory() as out:
				proc = subprocess.run(
					[sys.executable, os.path.join(TOP, 'scripts', 'harness.py'), 'parse',
					 f'--ksrc={ksrc}', f'--out={out}', os.path.join(LOGS, log), line,
					 run, variant], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
					text=True, env={**os.environ, 'PYTHONDONTWRITEBYTECODE': '1'})
				self.assertEqual(proc.returncode, 0 if verdict == 'passed' else 1,
						 proc.stdout)
				self.assertIn('as expected' if verdict == 'passed' else 'UNEXPECTED',
					      proc.stdout.splitlines()[0])
