# SPDX-License-Identifier: GPL-2.0
"""One plan, two executors. Every command that runs something (make,
kunit.py, herd7, QEMU, the staging) is a Cmd, handed to the Executor the
harness command was given: Real runs it through harness_util.run(), Dry
prints it as run() would and runs nothing. The code that builds and
boots is the same code in both cases, so a dry run prints the argv a real
run executes; tests/plan_test.py holds each harness command to that.

Where the real run decides something from what a command did (a cache
hit, a probe's answer), the code asks the executor (ex.dry) and a dry run
takes the branch that runs the most, saying so with ex.comment()."""

import dataclasses
import shlex
import subprocess
from typing import List, Mapping, Optional, Sequence, Tuple

import harness_util


@dataclasses.dataclass(frozen=True)
class Cmd:
	"""A command as the harness runs it (see harness_util.run())."""
	argv: Tuple[str, ...]
	cwd: Optional[str] = None
	env: Optional[Mapping[str, str]] = None	# added to the environment
	log: Optional[str] = None
	check: bool = True
	timeout: Optional[float] = None
	what: Optional[str] = None

	@staticmethod
	def of(argv: Sequence[str], **kw) -> 'Cmd':
		return Cmd(tuple(argv), **kw)

	def shown(self) -> str:
		"""The command as run() prints it."""
		s = shlex.join(self.argv)
		if self.env:
			s = ' '.join(f'{k}={shlex.quote(v)}' for k, v in self.env.items()) + ' ' + s
		if self.cwd:
			s = f'(cd {shlex.quote(self.cwd)} && {s})'
		return s + (f' >{self.log} 2>&1' if self.log else '')


class Executor:
	"""Runs the Cmds of a plan, or, dry, prints them."""
	dry = False

	def run(self, cmd: Cmd) -> subprocess.CompletedProcess:
		raise NotImplementedError

	def comment(self, text: str) -> None:
		"""What a dry run cannot show as a command (a condition, a
		copy); the real run says it through its stages instead."""


class Real(Executor):
	def run(self, cmd: Cmd) -> subprocess.CompletedProcess:
		return harness_util.run(list(cmd.argv), log=cmd.log, cwd=cmd.cwd,
					env=dict(cmd.env) if cmd.env is not None else None,
					check=cmd.check, timeout=cmd.timeout, what=cmd.what)


class Dry(Executor):
	"""Prints each Cmd as run() does, runs none; every one 'succeeds'."""
	dry = True

	def __init__(self) -> None:
		self.printed: List[Cmd] = []

	def run(self, cmd: Cmd) -> subprocess.CompletedProcess:
		self.printed.append(cmd)
		print(f'  $ {cmd.shown()}', flush=True)
		return subprocess.CompletedProcess(list(cmd.argv), 0, '', '')

	def comment(self, text: str) -> None:
		print(f'  # {text}', flush=True)
