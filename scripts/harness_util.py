# SPDX-License-Identifier: GPL-2.0
"""What every part of the harness shares: the repository's paths, errors,
timed stages, commands printed before they run, and the cache.

The cache, $XDG_CACHE_HOME/cn-proc-timestamps (~/.cache by default), holds
what outlives a clone: kernel sources, .configs, kernel images, the
results of static checks and kunit.py, herd7 and the guests' staged
programs. Each is an entry CACHE/KIND/KEY, KEY the cache_key() of the
inputs it is made from as its maker declares them (files, tool versions,
argv), never of the harness's own code; written whole or not at all, with
its SHA256SUMS, and used only when it matches them. bypass_cache() (the
--no-cache flag) makes every entry be made again. Downloads are apt's
(scripts/debs.sh keeps apt's lists and archives in CACHE/apt, each .deb
checked against the archive's signed index), the inputs of entries.
"""

import contextlib
import datetime
import fcntl
import glob
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(TOP, 'scripts')


class HarnessError(Exception):
	"""An input the harness cannot honour or a step that failed: one line
	that says what and why, printed as "error: ..."."""


def cache_dir() -> str:
	"""The cache's directory, the one definition (the shell scripts' too:
	run as a program, this prints it)."""
	base = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache')
	return os.path.join(base, 'cn-proc-timestamps')


# Kinds whose entries are used in place and too big to check on each use:
# a kernel source tree (1.5 GB, ~40 s to hash) is hard-linked into each
# line's tree, and quilt and patch replace a file they change, never write
# into it.
UNCHECKED_KINDS = ('src',)
_bypass = False


def bypass_cache(on: bool = True) -> None:
	"""--no-cache: no entry is used; each is made again and replaces the
	one there was."""
	global _bypass
	_bypass = on


def note(msg: str) -> None:
	print(f'  {msg}', flush=True)


def now() -> str:
	return datetime.datetime.now().strftime('%H:%M:%S')


# Every stage of the process, in the order they started: [depth, name,
# seconds, 'done' or 'FAILED' (None while it runs)], for stage_summary().
STAGES: List[list] = []
_depth = 0


@contextlib.contextmanager
def stage(name: str, quiet: bool = False) -> Iterator[None]:
	"""A timed stage: its name when it starts, its time when it ends
	(QUIET: neither, for a stage that says how it ended itself)."""
	global _depth
	start = time.monotonic()
	entry = [_depth, name, 0.0, None]
	STAGES.append(entry)
	if not quiet:
		print(f'[{now()}] {name} ...', flush=True)
	_depth += 1
	try:
		yield
	except BaseException:
		entry[2:] = [time.monotonic() - start, 'FAILED']
		print(f'[{now()}] {name}: FAILED in {entry[2]:.0f}s', flush=True)
		raise
	finally:
		_depth -= 1
	entry[2:] = [time.monotonic() - start, 'done']
	if not quiet:
		print(f'[{now()}] {name}: done in {entry[2]:.0f}s', flush=True)


def _mmss(seconds: float) -> str:
	s = int(seconds)
	return f'{s // 60}m{s % 60:02d}s'


def stage_summary() -> List[str]:
	"""The stages a reader looks for, with their times, nested as they
	ran: the steps and what they spent a minute on, and any that failed."""
	shown = [s for s in STAGES if s[0] == 0 or s[2] >= 60 or s[3] != 'done']
	width = max((2 * d + len(n) for d, n, _, _ in shown), default=0)
	return [f'  {"  " * d}{n:{width - 2 * d}}  {_mmss(t):>7}'
		+ ('' if ok == 'done' else '  ' + (ok or 'running'))
		for d, n, t, ok in shown]


# V=1: each command echoed as it runs; every one is in COMMANDS_LOG always.
VERBOSE = False
COMMANDS_LOG: Optional[str] = None
# A command with a log that runs longer than this says that it still runs.
PROGRESS_SECONDS = 60


def shown(argv: Sequence[str], cwd: Optional[str] = None, env: Optional[dict] = None,
	  log: Optional[str] = None) -> str:
	"""A command as run() prints it."""
	s = shlex.join(argv)
	if env:
		s = ' '.join(f'{k}={shlex.quote(v)}' for k, v in env.items()) + ' ' + s
	if cwd:
		s = f'(cd {shlex.quote(cwd)} && {s})'
	return s + (f' >{log} 2>&1' if log else '')


def run(argv: Sequence[str], log: Optional[str] = None, cwd: Optional[str] = None,
	env: Optional[dict] = None, check: bool = True, timeout: Optional[float] = None,
	what: Optional[str] = None, capture: str = '', input: Optional[str] = None,
	quiet: bool = False) -> subprocess.CompletedProcess:
	"""Run a command, the one way the harness runs one: written to
	COMMANDS_LOG first, and printed at V=1 (unless QUIET, for a query that
	changes nothing); its output to LOG if given (the tail of it shown on
	failure, and each PROGRESS_SECONDS what it is at), returned as text if
	CAPTURE ('stdout', or 'all' with stderr), else to the terminal; INPUT
	its standard input. With check, a failure raises HarnessError naming
	WHAT (the command by default) and the log. A TIMEOUT that passes raises
	subprocess.TimeoutExpired, the command killed."""
	if not quiet:
		if VERBOSE:
			print(f'  $ {shown(argv, cwd, env, log)}', flush=True)
		if COMMANDS_LOG and os.path.isdir(os.path.dirname(COMMANDS_LOG)):
			with open(COMMANDS_LOG, 'a') as c:
				c.write(f'[{now()}] {STAGES[-1][1] if STAGES else ""}\n'
					f'$ {shown(argv, cwd, env, log)}\n')
	full_env = None
	if env is not None:
		full_env = dict(os.environ)
		full_env.update(env)
	kwargs: Dict[str, Any] = dict(cwd=cwd, env=full_env, timeout=timeout, input=input,
				      text=bool(capture) or input is not None)
	if log and input is None:
		os.makedirs(os.path.dirname(log), exist_ok=True)
		with open(log, 'w') as f:
			proc = _run_saying_progress(argv, f, log, what or os.path.basename(argv[0]),
						    cwd, full_env, timeout)
	elif log:
		os.makedirs(os.path.dirname(log), exist_ok=True)
		with open(log, 'w') as f:
			proc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT, **kwargs)
	elif capture:
		proc = subprocess.run(argv, stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT if capture == 'all' else None,
				      **kwargs)
	else:
		proc = subprocess.run(argv, **kwargs)
	if check and proc.returncode != 0:
		if log:
			with open(log, errors='replace') as f:
				tail = f.readlines()[-15:]
			print(''.join('    | ' + l for l in tail), end='', flush=True)
		raise HarnessError(f'{what or argv[0]} failed (exit {proc.returncode})'
				   + (f', see {log}' if log else ''))
	return proc


def _run_saying_progress(argv: Sequence[str], f: Any, log: str, what: str, cwd: Optional[str],
			 env: Optional[dict],
			 timeout: Optional[float]) -> subprocess.CompletedProcess:
	"""subprocess.run() of ARGV, its output to F (LOG), saying each
	PROGRESS_SECONDS that WHAT still runs: for how long, its log and the
	log's last line."""
	start = time.monotonic()
	with subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, cwd=cwd, env=env) as p:
		while True:
			left = None if timeout is None else start + timeout - time.monotonic()
			try:
				p.wait(PROGRESS_SECONDS if left is None
				       else max(0.0, min(left, PROGRESS_SECONDS)))
				break
			except subprocess.TimeoutExpired:
				if left is not None and left <= PROGRESS_SECONDS:
					p.kill()
					raise
			with open(log, errors='replace') as r:
				last = (r.readlines() or [''])[-1].strip()
			print(f'[{now()}] {what}: still running after '
			      f'{_mmss(time.monotonic() - start)}; {log}: {last[:72]}', flush=True)
	return subprocess.CompletedProcess(argv, p.returncode)


def debs_argv(suite: str, *pkgs: str) -> List[str]:
	"""scripts/debs.sh: Debian packages of SUITE downloaded into the cache,
	their paths printed (a kernel line's source, a guest's packages)."""
	return [os.path.join(SCRIPTS, 'debs.sh'), suite, *pkgs]


def output(argv: Sequence[str], cwd: Optional[str] = None) -> str:
	"""The standard output of a quick query (a version, a path), through
	run() but not printed: it changes nothing."""
	proc = run(argv, cwd=cwd, capture='stdout', check=False, quiet=True)
	if proc.returncode != 0:
		raise HarnessError(f'{shlex.join(argv)} failed (exit {proc.returncode})')
	return str(proc.stdout)


def cache_key(*parts: str) -> str:
	"""The key of an entry made from PARTS, its declared inputs: the
	contents of files, tool versions, argv. The maker names them all;
	decisions_test.py's CacheKeys shows that each changes the key."""
	h = hashlib.sha256()
	for p in parts:
		h.update(p.encode())
		h.update(b'\0')
	return h.hexdigest()[:16]


def file_id(path: str) -> str:
	"""A big input file (a .deb) in a key: its name and SHA256."""
	h = hashlib.sha256()
	with open(path, 'rb') as f:
		for block in iter(lambda: f.read(1 << 20), b''):
			h.update(block)
	return f'{os.path.basename(path)} {h.hexdigest()}'


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


def cache_is_empty() -> bool:
	"""Whether the cache holds no entry: none KIND/KEY with its SHA256SUMS
	(apt's downloads are none)."""
	return not glob.glob(os.path.join(cache_dir(), '*', '*', 'SHA256SUMS'))


def cache_new(kind: str, key: str) -> str:
	"""An empty directory in which to make the entry KIND/KEY in place;
	cache_adopt() makes it the entry, or rmtree() drops it."""
	kind_dir = os.path.join(cache_dir(), kind)
	os.makedirs(kind_dir, exist_ok=True)
	tmp = tempfile.mkdtemp(prefix=key + '.tmp.', dir=kind_dir)
	os.chmod(tmp, 0o755)
	return tmp


def cache_adopt(tmp: str, kind: str, key: str) -> str:
	"""TMP, made by cache_new(KIND, KEY), becomes the entry, with its
	SHA256SUMS (empty for an unchecked kind: its mark of a whole
	entry); an entry already there is kept (unless bypassed: replaced), and
	TMP removed. The entry's path."""
	kind_dir = os.path.join(cache_dir(), kind)
	dest = os.path.join(kind_dir, key)
	try:
		with open(os.path.join(tmp, 'SHA256SUMS'), 'w') as f:
			f.write('' if kind in UNCHECKED_KINDS else _sums(tmp))
		with _locked(kind_dir):
			if _bypass or not os.path.isfile(os.path.join(dest, 'SHA256SUMS')):
				shutil.rmtree(dest, ignore_errors=True)
				os.rename(tmp, dest)
	finally:
		shutil.rmtree(tmp, ignore_errors=True)
	return dest


def cache_made(kind: str, key: str, make: Callable[[str], None]) -> str:
	"""The entry KIND/KEY, to be used in place: the one there is
	(cache_path()), or one MAKE makes in the empty directory it is given,
	whole or not at all (dropped if MAKE fails)."""
	found = cache_path(kind, key)
	if found:
		return found
	tmp = cache_new(kind, key)
	try:
		make(tmp)
	except BaseException:
		shutil.rmtree(tmp, ignore_errors=True)
		raise
	return cache_adopt(tmp, kind, key)


def cache_put(src: str, kind: str, key: str) -> None:
	"""SRC's files into the cache as KIND/KEY, whole or not at all; an
	entry already there is kept (unless bypassed: replaced)."""
	dest = os.path.join(cache_dir(), kind, key)
	if not _bypass and os.path.isfile(os.path.join(dest, 'SHA256SUMS')):
		return
	tmp = cache_new(kind, key)
	try:
		shutil.copytree(src, tmp, dirs_exist_ok=True)
	except BaseException:
		shutil.rmtree(tmp, ignore_errors=True)
		raise
	cache_adopt(tmp, kind, key)


def cache_path(kind: str, key: str) -> Optional[str]:
	"""The entry KIND/KEY, to be used in place (never written to), if it
	is there and matches its checksums; None otherwise, and a damaged
	entry is dropped."""
	src = os.path.join(cache_dir(), kind, key)
	sums = os.path.join(src, 'SHA256SUMS')
	if _bypass or not os.path.isfile(sums):
		return None
	if kind in UNCHECKED_KINDS or file_text(sums) == _sums(src):
		return src
	_drop(kind, key)
	return None


def _drop(kind: str, key: str) -> None:
	note(f'cache entry {kind}/{key} is damaged: not used')
	kind_dir = os.path.join(cache_dir(), kind)
	with _locked(kind_dir):
		shutil.rmtree(os.path.join(kind_dir, key), ignore_errors=True)


def cache_get(kind: str, key: str, dest: str) -> bool:
	"""The entry's files into DEST, replaced whole, only if the copy
	matches the entry's checksums; False, DEST untouched, otherwise, and a
	damaged entry is dropped so that the next cache_put replaces it."""
	kind_dir = os.path.join(cache_dir(), kind)
	src = os.path.join(kind_dir, key)
	sums = os.path.join(src, 'SHA256SUMS')
	if _bypass or not os.path.isfile(sums):
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
		_drop(kind, key)
		return False
	os.remove(os.path.join(tmp, 'SHA256SUMS'))
	shutil.rmtree(dest, ignore_errors=True)
	os.rename(tmp, dest)
	return True


def describe() -> str:
	"""The commit the harness runs at, as git describe --always --dirty."""
	proc = run(['git', '-C', TOP, 'describe', '--always', '--dirty'], capture='stdout',
		   check=False, quiet=True)
	return proc.stdout.strip() or 'unknown'


if __name__ == '__main__':
	# scripts/packaging.sh asks for the cache's directory.
	print(cache_dir())
