# SPDX-License-Identifier: GPL-2.0
"""One plan, two executors. Every command that runs something (make,
kunit.py, herd7, QEMU, the staging) is a Cmd, handed to the Executor the
harness command was given: Real runs it through harness_util.run(), Dry
prints it as run() would and runs nothing. The code that builds and
boots is the same code in both cases, so a dry run prints the argv a real
run executes; tests/plan_test.py holds each harness command to that.

Where the real run decides something from what a command did or from
what is on disk (a cache hit, a probe's answer, a file's presence), the
code asks the executor (ex.dry) and a dry run takes the branch stated
there, the one that runs the most, saying so with ex.comment(); a Cmd
whose output the plan reads says, in dry_stdout, what the dry run takes
it to have printed. tests/plan_test.py runs each command's plan with
Real, harness_util.run() recording, on the same branches, and compares."""

import contextlib
import dataclasses
import subprocess
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Tuple

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
	capture: str = ''		# as run()'s: its output returned
	# What a dry run takes a capturing command to have printed.
	dry_stdout: str = ''

	@staticmethod
	def of(argv: Sequence[str], **kw: Any) -> 'Cmd':
		return Cmd(tuple(argv), **kw)

	def shown(self) -> str:
		"""The command as run() prints it."""
		return harness_util.shown(self.argv, self.cwd, dict(self.env) if self.env else None, self.log)


class Executor:
	"""Runs the Cmds of a plan, or, dry, prints them."""
	dry = False

	def run(self, cmd: Cmd) -> subprocess.CompletedProcess:
		raise NotImplementedError

	def comment(self, text: str) -> None:
		"""What a dry run cannot show as a command (a condition, a
		copy); the real run says it through its stages instead."""

	@contextlib.contextmanager
	def stage(self, name: str) -> Iterator[None]:
		"""A timed stage of the real run (harness_util.stage()), a
		comment of the dry run."""
		if self.dry:
			self.comment(name)
			yield
		else:
			with harness_util.stage(name):
				yield


class Real(Executor):
	def run(self, cmd: Cmd) -> subprocess.CompletedProcess:
		return harness_util.run(list(cmd.argv), log=cmd.log, cwd=cmd.cwd,
					env=dict(cmd.env) if cmd.env is not None else None,
					check=cmd.check, timeout=cmd.timeout, what=cmd.what, capture=cmd.capture)


class Dry(Executor):
	"""Prints each Cmd as run() does, runs none; every one 'succeeds'."""
	dry = True

	def __init__(self) -> None:
		self.printed: List[Cmd] = []

	def run(self, cmd: Cmd) -> subprocess.CompletedProcess:
		self.printed.append(cmd)
		print(f'  $ {cmd.shown()}', flush=True)
		return subprocess.CompletedProcess(list(cmd.argv), 0, cmd.dry_stdout, '')

	def comment(self, text: str) -> None:
		print(f'  # {text}', flush=True)


# The executor of what is not a harness command's plan (the static checks,
# the unit tests' own trees): it runs everything.
REAL = Real()
