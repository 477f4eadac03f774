# SPDX-License-Identifier: GPL-2.0
"""What every part of the harness shares: the repository's paths, errors,
timed stages, commands printed before they run, and the cache.

The cache, $XDG_CACHE_HOME/cn-proc-timestamps (~/.cache by default), holds
what outlives a clone: Debian packages and unpacked sources (the shell
scripts' part), kernel images and the results of static checks and
kunit.py. An entry is CACHE/KIND/KEY, KEY the cache_key() of everything
it is made from, written whole or not at all with its SHA256SUMS, and used
only when a copy of it matches them.
"""

import contextlib
import datetime
import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from typing import Iterator, List, Optional, Sequence

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(TOP, 'scripts')


class HarnessError(Exception):
	"""An input the harness cannot honour or a step that failed: one line
	that says what and why, printed as "error: ..."."""


def cache_dir() -> str:
	base = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache')
	return os.path.join(base, 'cn-proc-timestamps')


def note(msg: str) -> None:
	print(f'  {msg}', flush=True)


def _now() -> str:
	return datetime.datetime.now().strftime('%H:%M:%S')


# Every stage of the process, in the order they started: [depth, name,
# seconds, 'done' or 'FAILED' (None while it runs)], for stage_summary().
STAGES: List[list] = []
_depth = 0


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
	"""A timed stage: its name when it starts, its time when it ends."""
	global _depth
	start = time.monotonic()
	entry = [_depth, name, 0.0, None]
	STAGES.append(entry)
	print(f'[{_now()}] {name} ...', flush=True)
	_depth += 1
	try:
		yield
	except BaseException:
		entry[2:] = [time.monotonic() - start, 'FAILED']
		print(f'[{_now()}] {name}: FAILED in {entry[2]:.0f}s', flush=True)
		raise
	finally:
		_depth -= 1
	entry[2:] = [time.monotonic() - start, 'done']
	print(f'[{_now()}] {name}: done in {entry[2]:.0f}s', flush=True)


def _mmss(seconds: float) -> str:
	s = int(seconds)
	return f'{s // 60}m{s % 60:02d}s'


def stage_summary() -> List[str]:
	"""Every stage so far with its time, nested as they ran."""
	width = max((2 * d + len(n) for d, n, _, _ in STAGES), default=0)
	return [f'  {"  " * d}{n:{width - 2 * d}}  {_mmss(t):>7}{"" if ok == "done" else "  " + (ok or "running")}'
		for d, n, t, ok in STAGES]


def run(argv: Sequence[str], log: Optional[str] = None, cwd: Optional[str] = None,
	env: Optional[dict] = None, check: bool = True, timeout: Optional[float] = None,
	what: Optional[str] = None, capture: str = '', input: Optional[str] = None,
	quiet: bool = False) -> subprocess.CompletedProcess:
	"""Run a command, the one way the harness runs one: printed first
	(unless QUIET, for a query that changes nothing); its output to LOG if
	given (the tail of it shown on failure), returned as text if CAPTURE
	('stdout', or 'all' with stderr), else to the terminal; INPUT its
	standard input. With check, a failure raises HarnessError naming WHAT
	(the command by default) and the log. A TIMEOUT that passes raises
	subprocess.TimeoutExpired, the command killed."""
	shown = shlex.join(argv)
	if env:
		shown = ' '.join(f'{k}={shlex.quote(v)}' for k, v in env.items()) + ' ' + shown
	if cwd:
		shown = f'(cd {shlex.quote(cwd)} && {shown})'
	if not quiet:
		print(f'  $ {shown}' + (f' >{log} 2>&1' if log else ''), flush=True)
	full_env = None
	if env is not None:
		full_env = dict(os.environ)
		full_env.update(env)
	kwargs = dict(cwd=cwd, env=full_env, timeout=timeout, input=input,
		      text=bool(capture) or input is not None)
	if log:
		os.makedirs(os.path.dirname(log), exist_ok=True)
		with open(log, 'w') as f:
			res = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, **kwargs)
	elif capture:
		res = subprocess.run(argv, stdout=subprocess.PIPE,
				     stderr=subprocess.STDOUT if capture == 'all' else None, **kwargs)
	else:
		res = subprocess.run(argv, **kwargs)
	if check and res.returncode != 0:
		if log:
			with open(log, errors='replace') as f:
				tail = f.readlines()[-15:]
			print(''.join('    | ' + l for l in tail), end='', flush=True)
		raise HarnessError(f'{what or argv[0]} failed (exit {res.returncode})'
				   + (f', see {log}' if log else ''))
	return res


def output(argv: Sequence[str], cwd: Optional[str] = None) -> str:
	"""The standard output of a quick query (a version, a path), through
	run() but not printed: it changes nothing."""
	res = run(argv, cwd=cwd, capture='stdout', check=False, quiet=True)
	if res.returncode != 0:
		raise HarnessError(f'{shlex.join(argv)} failed (exit {res.returncode})')
	return res.stdout


def cache_key(*parts: str) -> str:
	h = hashlib.sha256()
	for p in parts:
		h.update(p.encode())
		h.update(b'\0')
	return h.hexdigest()[:16]


def file_text(path: str) -> str:
	with open(path, errors='replace') as f:
		return f.read()


def _sums(d: str) -> str:
	lines = []
	for root, _, files in os.walk(d):
		for name in files:
			p = os.path.join(root, name)
			rel = os.path.relpath(p, d)
			if rel == 'SHA256SUMS':
				continue
			with open(p, 'rb') as f:
				lines.append(f'{hashlib.sha256(f.read()).hexdigest()}  {rel}')
	return '\n'.join(sorted(lines, key=lambda l: l[66:])) + '\n'


@contextlib.contextmanager
def _locked(kind_dir: str) -> Iterator[None]:
	with open(os.path.join(kind_dir, '.lock'), 'w') as lock:
		fcntl.flock(lock, fcntl.LOCK_EX)
		yield


def cache_put(src: str, kind: str, key: str) -> None:
	"""SRC's files into the cache as KIND/KEY, whole or not at all; an
	entry already there is kept."""
	kind_dir = os.path.join(cache_dir(), kind)
	dest = os.path.join(kind_dir, key)
	if os.path.isfile(os.path.join(dest, 'SHA256SUMS')):
		return
	os.makedirs(kind_dir, exist_ok=True)
	tmp = tempfile.mkdtemp(prefix=key + '.tmp.', dir=kind_dir)
	try:
		os.chmod(tmp, 0o755)
		shutil.copytree(src, tmp, dirs_exist_ok=True)
		with open(os.path.join(tmp, 'SHA256SUMS'), 'w') as f:
			f.write(_sums(tmp))
		with _locked(kind_dir):
			if not os.path.isfile(os.path.join(dest, 'SHA256SUMS')):
				shutil.rmtree(dest, ignore_errors=True)
				os.rename(tmp, dest)
	finally:
		shutil.rmtree(tmp, ignore_errors=True)


def cache_get(kind: str, key: str, dest: str) -> bool:
	"""The entry's files into DEST, replaced whole, only if the copy
	matches the entry's checksums; False, DEST untouched, otherwise, and a
	damaged entry is dropped so that the next cache_put replaces it."""
	kind_dir = os.path.join(cache_dir(), kind)
	src = os.path.join(kind_dir, key)
	sums = os.path.join(src, 'SHA256SUMS')
	if not os.path.isfile(sums):
		return False
	parent = os.path.dirname(os.path.abspath(dest))
	os.makedirs(parent, exist_ok=True)
	tmp = tempfile.mkdtemp(prefix=os.path.basename(dest) + '.get.', dir=parent)
	try:
		shutil.copytree(src, tmp, dirs_exist_ok=True)
		if file_text(os.path.join(tmp, 'SHA256SUMS')) != _sums(tmp):
			raise OSError('checksums differ')
	except OSError:
		shutil.rmtree(tmp, ignore_errors=True)
		note(f'cache entry {kind}/{key} is damaged: not used')
		with _locked(kind_dir):
			shutil.rmtree(src, ignore_errors=True)
		return False
	os.remove(os.path.join(tmp, 'SHA256SUMS'))
	shutil.rmtree(dest, ignore_errors=True)
	os.rename(tmp, dest)
	return True


def describe() -> str:
	"""The commit the harness runs at, as git describe --always --dirty."""
	res = run(['git', '-C', TOP, 'describe', '--always', '--dirty'], capture='stdout', check=False, quiet=True)
	return res.stdout.strip() or 'unknown'
