#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One plan, two executors (scripts/harness_plan.py): for each command
that builds or boots, the dry run prints the argv the real run executes.

Each command runs twice with --dry-run: once as a user runs it (Dry, which
prints), once with the real run's executor (Real, which hands each Cmd to
harness_util.run()), harness_util.run() mocked to record what it is given
and to answer what Dry answers (Cmd.dry_stdout). Both take the dry run's
stated branches (no cache hit, software emulation, a fresh tree), so the
two lists are equal exactly when the plan runs every command through its
executor and Real runs each Cmd as Dry shows it. Nothing runs: a command
started either way fails the test."""

import os
import re
import subprocess
import sys
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True

import harness  # noqa: E402
import harness_plan  # noqa: E402
import harness_util  # noqa: E402
from harness_test import HarnessCase  # noqa: E402


class Rehearsal(harness_plan.Real):
	"""The real run's executor on the dry run's branches."""
	dry = True
	current = None

	def run(self, cmd):
		Rehearsal.current = cmd
		return super().run(cmd)


def recorded_run(argv, log=None, cwd=None, env=None, **kw):
	"""harness_util.run(), recording: what it would print, marked '@'."""
	print(f'  @ {harness_util.shown(argv, cwd, env, log)}', flush=True)
	return subprocess.CompletedProcess(list(argv), 0, Rehearsal.current.dry_stdout, '')


def sections(out, mark):
	"""The commands printed with MARK ('$' or '@') in each part of OUT that
	'# make check: NAME' starts ('' before the first)."""
	parts = {'': []}
	name = ''
	for l in out.splitlines():
		m = re.fullmatch(r'# make check: (.*)', l)
		if m:
			name = m.group(1)
			parts[name] = []
		elif l.startswith(f'  {mark} '):
			parts[name].append(l[4:])
	return parts


class OnePlan(HarnessCase):
	def both(self, command, *args, **variables):
		"""COMMAND's dry run as printed and as the real executor ran it:
		(the printed commands, the executed ones), each by check step."""
		status, printed = self.harness(command, False, '--dry-run', *args, **variables)
		self.assertEqual(status, 0, printed)
		with mock.patch.object(harness, 'Dry', Rehearsal), mock.patch.object(harness_util, 'run', recorded_run):
			status, executed = self.harness(command, False, '--dry-run', *args, **variables)
		self.assertEqual(status, 0, executed)
		return sections(printed, '$'), sections(executed, '@')

	def same(self, command, *args, steps=('',), **variables):
		printed, executed = self.both(command, *args, **variables)
		for s in steps:
			self.assertTrue(printed[s], f'{command} {s}: no command printed')
			self.assertEqual(printed[s], executed[s], f'{command} {s}')
		return printed

	def test_boot_test(self):
		printed = self.same('boot-test', KERNEL='7.3', CONFIGS='smp2 arm64-llsc')
		self.assertTrue(any(c.startswith('qemu-system-aarch64 ') for c in printed['']))

	def test_boot(self):
		printed = self.same('boot', '7.3', 'smp2', 'patched')
		self.assertEqual(sum(c.startswith('qemu-system-') for c in printed['']), 1)

	def test_bench(self):
		self.same('bench', BENCH_PAIRS='1')

	def test_litmus(self):
		self.same('litmus')

	def test_kunit(self):
		printed = self.same('kunit')
		self.assertTrue(any('kunit/kunit.py run ' in c for c in printed['']))

	def test_static_checks(self):
		printed = self.same('static-checks', KERNEL='all')
		self.assertTrue(any(' C=2 W=1 ' in c for c in printed['']))

	def test_check_steps_that_build_or_boot(self):
		"""make check's steps: each one that runs a command."""
		self.same('check', steps=('static checks', 'litmus tests', 'kunit.py', 'boot test'), KERNEL='7.3',
			  CONFIGS='smp2')

	def test_a_command_real_runs_differently_is_seen(self):
		"""The comparison fails when Real does not run a Cmd as shown."""
		real_run = harness_plan.Real.run

		def no_log(ex, cmd):
			return real_run(ex, harness_plan.Cmd(cmd.argv, cmd.cwd, cmd.env, None, cmd.check, cmd.timeout,
							     cmd.what, cmd.capture, cmd.dry_stdout))
		with mock.patch.object(harness_plan.Real, 'run', no_log):
			printed, executed = self.both('boot', '7.3', 'smp2', 'patched')
		self.assertNotEqual(printed[''], executed[''])


if __name__ == '__main__':
	unittest.main()
