#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make mutation's mutants: where a mutant named by its function applies."""

import contextlib
import io
import os
import sys
import tempfile
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True
import harness_mutation  # noqa: E402
from harness_util import HarnessError  # noqa: E402

MODULE = '''\
LIMIT = 1


class Boot:
	def judge(self, n):
		return n > LIMIT


def judge(n):
	return n > LIMIT
'''


class MutantsTest(unittest.TestCase):
	def load(self, entry: str, other: str = '') -> list:
		"""The mutants of ENTRY on scripts/m.py (and scripts/other.py of
		OTHER)."""
		with tempfile.TemporaryDirectory() as top:
			os.makedirs(os.path.join(top, 'scripts'))
			with open(os.path.join(top, 'scripts', 'm.py'), 'w') as f:
				f.write(MODULE)
			if other:
				with open(os.path.join(top, 'scripts', 'other.py'), 'w') as f:
					f.write(other)
			path = os.path.join(top, 'mutants.toml')
			with open(path, 'w') as f:
				f.write('[[mutant]]\n' + entry + "what = 'w'\n")
			harness_mutation.function_files.cache_clear()
			try:
				with mock.patch.object(harness_mutation, 'TOP', top):
					return harness_mutation.load_mutants(path)
			finally:
				harness_mutation.function_files.cache_clear()

	def test_a_mutant_edits_its_function_alone(self):
		m, = self.load('function = "Boot.judge"\noriginal = ">"\nmutated = "<"\n')
		self.assertEqual(m.file, 'scripts/m.py')
		mutated = m.apply(MODULE)
		self.assertIn('\t\treturn n < LIMIT', mutated)
		self.assertIn('\treturn n > LIMIT\n', mutated.split('def judge(n)')[1])
		m, = self.load('function = "judge"\noriginal = ">"\nmutated = "<"\n')
		self.assertEqual(m.apply(MODULE).split('def judge(n)')[1], ':\n\treturn n < LIMIT\n')

	def test_original_text_must_be_in_its_function_once(self):
		for entry in ('function = "judge"\noriginal = "LIMIT = 1"\nmutated = "x"\n',
			      'function = "no_such"\noriginal = ">"\nmutated = "<"\n',
			      'file = "scripts/m.py"\noriginal = ">"\nmutated = "<"\n',
			      'function = "judge"\noriginal = ">"\nmutated = ">"\n'):
			with self.subTest(entry=entry), self.assertRaises(HarnessError):
				self.load(entry)

	def test_a_function_of_two_modules_is_named_by_its_module(self):
		other = 'def judge(n):\n\treturn n > 2\n'
		with self.assertRaisesRegex(HarnessError, '2 functions judge'):
			self.load('function = "judge"\noriginal = ">"\nmutated = "<"\n', other)
		m, = self.load('function = "m.judge"\noriginal = ">"\nmutated = "<"\n', other)
		self.assertEqual((m.file, m.function), ('scripts/m.py', 'judge'))
		self.assertTrue(m.apply(MODULE).endswith('\treturn n < LIMIT\n'))
		m, = self.load('function = "other.judge"\noriginal = ">"\nmutated = "<"\n', other)
		self.assertEqual(m.apply(other), 'def judge(n):\n\treturn n < 2\n')
		m, = self.load('function = "m.Boot.judge"\noriginal = ">"\nmutated = "<"\n', other)
		self.assertIn('\t\treturn n < LIMIT', m.apply(MODULE))

	def test_a_mutant_whose_file_does_not_compile_is_refused(self):
		"""A test would not kill it: the import would."""
		with self.assertRaisesRegex(HarnessError, 'does not compile: unexpected indent'):
			self.load('function = "judge"\noriginal = "n > LIMIT"\nmutated = "n\\n\\t\\t> LIMIT"\n')

	def test_a_file_mutant_edits_the_file(self):
		m, = self.load('file = "scripts/m.py"\noriginal = "LIMIT = 1"\nmutated = "LIMIT = 2"\n')
		self.assertTrue(m.apply(MODULE).startswith('LIMIT = 2\n'))


class MutationRun(unittest.TestCase):
	"""make mutation's verdict: a mutant the unit tests pass survives and
	fails the run; the unmutated copy must pass with nothing skipped.
	The copies and the unit tests are stand-ins: OUTPUTS gives each run's
	status and output, the unmutated copy's first."""

	def mutation(self, *outputs):
		mutants = [harness_mutation.Mutant('scripts/m.py', 'LIMIT = 1', f'LIMIT = {i}', f'm{i}')
			   for i in range(2, len(outputs) + 1)]
		runs = list(outputs)

		def copy_tree(dest):
			os.makedirs(os.path.join(dest, 'scripts'))
			with open(os.path.join(dest, 'scripts', 'm.py'), 'w') as f:
				f.write(MODULE)

		with mock.patch.object(harness_mutation, 'copy_tree', copy_tree), \
		     mock.patch.object(harness_mutation, 'unit_tests',
				       lambda top, tool, quiet=True: runs.pop(0)), \
		     contextlib.redirect_stdout(io.StringIO()) as out:
			status = harness_mutation.mutation('kunit', 1, mutants)
		return status, out.getvalue()

	PASSED = (0, 'Ran 3 tests in 0.1s\n\nOK\n')
	KILLED = (1, 'FAIL: test_x (decisions_test.Check.test_x)\n\nFAILED (failures=1)\n')

	def test_every_mutant_killed_passes(self):
		status, out = self.mutation(self.PASSED, self.KILLED)
		self.assertEqual(status, 0)
		self.assertIn('by Check.test_x', out)

	def test_a_mutant_that_survives_fails_it(self):
		status, out = self.mutation(self.PASSED, self.KILLED, self.PASSED)
		self.assertEqual(status, 1)
		self.assertIn('SURVIVED', out)

	def test_the_unmutated_copy_must_pass_with_nothing_skipped(self):
		for first in (self.KILLED, (0, 'Ran 3 tests\n\nOK (skipped=1)\n')):
			with self.assertRaisesRegex(HarnessError, 'do not pass on the unmutated copy'):
				self.mutation(first, self.KILLED)


if __name__ == '__main__':
	unittest.main()
