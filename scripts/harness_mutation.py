# SPDX-License-Identifier: GPL-2.0
"""make mutation: the harness's own tests, shown to fail when a decision
that can turn a verdict is broken.

tests/harness-mutants.toml lists mutants of the harness, each one small
edit and what it breaks: the text "original", which must occur exactly
once in the function it names (a function or Class.method of scripts/,
found wherever it is, or module.function where the name is not the only
one of its kind), or in the file it names (the Makefile, a shell script, a
test, a module's top level), replaced by "mutated". Naming the function,
not quoting its lines, lets a mutant survive edits elsewhere and moves
between modules. A mutated Python file must compile, so that what kills
a mutant is a test, not the import. Each is applied alone to a copy of the repository
(never to the working tree) and the unit tests (tests/*_test.py) run
against the copy: a mutant is killed when a test fails, and the tests that
failed are printed. The tests must pass on the unmutated copy first, with
nothing skipped. Exit status 1 if a mutant survives, its original text is
not in its function or file once, or the tests do not pass without mutants.
"""

import ast
import concurrent.futures
import dataclasses
import functools
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from typing import Dict, List, Optional, Sequence, Tuple

from harness_util import TOP, HarnessError, file_text, note, run, stage

MUTANTS = os.path.join(TOP, 'tests', 'harness-mutants.toml')
# What the copy leaves out: the build output and the repository.
NOT_COPIED = ('.git', 'out')
# A run of the unit tests takes seconds; one that takes this long hangs.
TIMEOUT = 300
FAILED = re.compile(r'^(?:FAIL|ERROR): (\w+) \(([\w.]+?)(?:\.\w+)?\)', re.M)


@dataclasses.dataclass(frozen=True)
class Mutant:
	file: str		# from TOP
	original: str
	mutated: str
	what: str
	function: str = ''	# the function original is in; '' is the whole file

	def apply(self, text: str) -> str:
		"""TEXT, the file's, with this mutant applied."""
		start, end = scope(text, self.function) if self.function else (0, len(text))
		return (text[:start] + text[start:end].replace(self.original, self.mutated)
			+ text[end:])


def scope(text: str, function: str) -> Tuple[int, int]:
	"""The span of FUNCTION (a name, or Class.name) in the Python TEXT;
	HarnessError if it has none or several."""
	spans = [s for name, s in functions(text) if name == function]
	if len(spans) != 1:
		raise HarnessError(f'{len(spans)} functions {function}')
	return spans[0]


@functools.lru_cache(maxsize=64)
def functions(text: str) -> List[Tuple[str, Tuple[int, int]]]:
	"""(Class.name or name, its span in TEXT) of each function of TEXT
	(parsed once for every mutant of its file)."""
	offsets = [0]
	for line in text.splitlines(keepends=True):
		offsets.append(offsets[-1] + len(line))
	out = []

	def walk(node: ast.AST, prefix: str) -> None:
		for child in ast.iter_child_nodes(node):
			if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
				first = min(d.lineno for d in [child, *child.decorator_list])
				last = child.end_lineno or child.lineno
				span = (offsets[first - 1], offsets[last])
				out.append((prefix + child.name, span))
				walk(child, prefix + child.name + '.')
			elif isinstance(child, ast.ClassDef):
				walk(child, prefix + child.name + '.')
	walk(ast.parse(text), '')
	return out


@functools.cache
def function_files() -> Dict[str, List[str]]:
	"""Each function of scripts/*.py: the files (from TOP) that define it,
	by its name and by module.name."""
	where: Dict[str, List[str]] = {}
	for path in sorted(glob.glob(os.path.join(TOP, 'scripts', '*.py'))):
		module = os.path.basename(path)[:-3]
		for name, _ in functions(file_text(path)):
			for n in (name, f'{module}.{name}'):
				where.setdefault(n, []).append(os.path.relpath(path, TOP))
	return where


def in_module(function: str, file: str) -> str:
	"""FUNCTION as named in FILE: without its module."""
	module = os.path.basename(file)[:-3] + '.'
	return function[len(module):] if function.startswith(module) else function


def load_mutants(path: str = MUTANTS) -> List[Mutant]:
	"""The mutants, each checked against the function or file it edits."""
	with open(path, 'rb') as f:
		try:
			table = tomllib.load(f)
		except tomllib.TOMLDecodeError as e:
			raise HarnessError(f'{os.path.relpath(path, TOP)}: {e}') from None
	out = []
	for i, t in enumerate(table.get('mutant', [])):
		where = f'{os.path.relpath(path, TOP)}: mutant {i + 1} ({t.get("what", "")})'
		if set(t) not in ({'function', 'original', 'mutated', 'what'},
				  {'file', 'original', 'mutated', 'what'}):
			raise HarnessError(f'{where}: needs function or file, original, mutated '
					   'and what, and nothing else')
		if 'function' in t:
			files = function_files().get(t['function'], [])
			if len(files) != 1:
				raise HarnessError(f'{where}: {len(files)} functions '
						   f'{t["function"]} in scripts/ {" ".join(files)}')
			m = Mutant(files[0], t['original'], t['mutated'], t['what'],
				   in_module(t['function'], files[0]))
		else:
			m = Mutant(t['file'], t['original'], t['mutated'], t['what'])
		target = os.path.join(TOP, m.file)
		if not os.path.isfile(target):
			raise HarnessError(f'{where}: no file {m.file}')
		text = file_text(target)
		start, end = scope(text, m.function) if m.function else (0, len(text))
		n = text[start:end].count(m.original)
		if n != 1:
			raise HarnessError(f'{where}: its original text is in '
					   f'{m.function or m.file} {n} times, not once')
		if m.original == m.mutated:
			raise HarnessError(f'{where}: mutated is the original')
		if m.file.endswith('.py'):
			try:
				compile(m.apply(text), m.file, 'exec', dont_inherit=True)
			except SyntaxError as e:
				raise HarnessError(f'{where}: the mutated {m.file} does not '
						   f'compile: {e.msg}, line {e.lineno}') from None
		out.append(m)
	if not out:
		raise HarnessError(f'{os.path.relpath(path, TOP)}: no mutant')
	return out


def select(mutants: Sequence[Mutant], words: Sequence[str]) -> List[Mutant]:
	"""The MUTANTS whose what has each of WORDS, in any case (every one
	for no word); HarnessError if that is none, which would pass."""
	chosen = [m for m in mutants if all(w.lower() in m.what.lower() for w in words)]
	if not chosen:
		raise HarnessError(f'--mutants "{" ".join(words)}": '
				   'no mutant\'s what has these words')
	return chosen


def copy_tree(dest: str) -> None:
	shutil.copytree(TOP, dest, symlinks=True,
			ignore=lambda d, names: [n for n in names if d == TOP and n in NOT_COPIED])


def unit_tests(top: str, kunit_tool: str, quiet: bool = True) -> Tuple[int, str]:
	"""The unit tests of the copy at TOP: exit status and output (124 if
	they hung). They stop at the first test that fails (--failfast): one
	kills a mutant, and most mutants die early in the run."""
	try:
		proc = run([sys.executable, '-m', 'unittest', 'discover', '--failfast', '-s',
			    os.path.join(top, 'tests'), '-p', '*_test.py'],
			   cwd=top, env={'PYTHONDONTWRITEBYTECODE': '1', 'KUNIT_TOOL': kunit_tool},
			   capture='all', check=False, timeout=TIMEOUT, quiet=quiet)
	except subprocess.TimeoutExpired as e:
		out = e.stdout if isinstance(e.stdout, str) else \
			(e.stdout or b'').decode(errors='replace')
		return 124, out + f'\n(the unit tests did not finish in {TIMEOUT}s)\n'
	return proc.returncode, proc.stdout


def killers(output: str) -> List[str]:
	"""The tests that failed (the first, with --failfast), as Class.test."""
	return list(dict.fromkeys(f'{cls.split(".")[-1]}.{test}'
				  for test, cls in FAILED.findall(output)))


def try_mutant(top: str, m: Mutant, kunit_tool: str) -> Optional[List[str]]:
	"""M applied to the copy at TOP, the tests run, the file restored: the
	tests that killed it, or None if it survived."""
	path = os.path.join(top, m.file)
	text = file_text(path)
	try:
		with open(path, 'w') as f:
			f.write(m.apply(text))
		status, output = unit_tests(top, kunit_tool)
	finally:
		with open(path, 'w') as f:
			f.write(text)
	if status == 0:
		return None
	last = output.strip().splitlines()[-1] if output.strip() else ''
	return killers(output) or [f'(exit {status}: {last})']


def mutation(kunit_tool: str, jobs: int = 2, mutants: Optional[Sequence[Mutant]] = None) -> int:
	mutants = list(mutants if mutants is not None else load_mutants())
	jobs = max(1, min(jobs, len(mutants)))
	with tempfile.TemporaryDirectory(prefix='harness-mutation.') as tmp:
		copies = [os.path.join(tmp, str(i)) for i in range(jobs)]
		with stage('the unit tests on a copy of the repository, no mutant'):
			for c in copies:
				copy_tree(c)
			status, output = unit_tests(copies[0], kunit_tool, quiet=False)
			skipped = re.search(r'skipped=(\d+)', output)
			if status != 0 or skipped:
				print(output, flush=True)
				why = f' ({skipped.group(1)} skipped)' if skipped else ''
				raise HarnessError('the unit tests do not pass on the unmutated '
						   'copy' + why)
			summary = output.strip().splitlines()
			note(summary[-3] if len(summary) >= 3 else output.strip())
		survived = []
		with stage(f'{len(mutants)} mutants, each alone, {jobs} at a time'):
			free = list(copies)
			with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
				def one(m: Mutant) -> Optional[List[str]]:
					top = free.pop()
					try:
						return try_mutant(top, m, kunit_tool)
					finally:
						free.append(top)
				for i, (m, killed) in enumerate(zip(mutants,
								    pool.map(one, mutants))):
					head = f'{i + 1:3}. {m.file}: {m.what}'
					if killed is None:
						survived.append(m)
						print(f'  SURVIVED {head}', flush=True)
					else:
						more = (f' (and {len(killed) - 3} more)'
							if len(killed) > 3 else '')
						print(f'  killed   {head}\n             by '
						      f'{", ".join(killed[:3])}{more}', flush=True)
	print(f'mutation: {len(mutants)} mutants, {len(mutants) - len(survived)} killed'
	      + (f', {len(survived)} SURVIVED' if survived else ''), flush=True)
	return 1 if survived else 0
