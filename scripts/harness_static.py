# SPDX-License-Identifier: GPL-2.0
"""The static checks of a line's series, on the line's private tree:

  - each patch's tags are one trailer block (git interpret-trailers
    --parse), as git, b4 and the stable scripts read them;
  - quilt push -a --fuzz=0 applies it and quilt pop -a restores every file
    byte-identical; git am applies it onto a repository of those files;
  - checkpatch.pl --strict is clean;
  - kernel-doc -none -Wall, sparse (C=2) and W=1, in each configuration
    of the line's static_checks (configs/lines.toml), add no warning to
    what the pristine tree has; sparse is Debian sid's (the tree's
    scripts/checker-valid.sh refuses bookworm's for 7.3), run through sid's
    own loader as herd7 is, and a check build in which kbuild ran no
    sparse fails;
  - the premise of the boot test's A/B: the objects that the rest of the
    series changes and its first patch does not (cn_proc.o) compile to
    the same code (objdump -dr) in the pristine tree and in the boot
    test's base, the tree with the first patch;
  - where the series has the selftest, make -C tools/testing/selftests
    TARGETS=connector builds it in the patched tree, with -Werror, as CI
    systems build it: with gcc and with clang (LLVM=1), for each listener
    (64- and 32-bit) of x86_64 and arm64 (cross), each architecture's uapi
    headers made once; each build's cn_proc_test must be of its class
    and machine.
"""

import contextlib
import filecmp
import os
import re
import shlex
import shutil
import struct
from typing import Dict, List, Optional, Sequence, Set, Tuple

from harness_arch import Arch
from harness_config import KernelLine, Options, booting_arches, load_arch
from harness_kernel import (Kernels, Tree, config_fragments, configure, kmake_argv, make_argv_id,
			    patch_files, tool_versions)
from harness_plan import REAL, Cmd, Executor
from harness_stage import debs_argv
from harness_util import (TOP, HarnessError, cache_adopt, cache_dir, cache_get, cache_key, cache_new, cache_path,
			  cache_put, file_id, file_text, note, output, run)

# What a check build adds to make: sparse on every object it compiles, and
# W=1.
CHECK_FLAGS = ('C=2', 'W=1')
# The variants a check build builds: the pristine tree (the reference of
# every comparison), base (the boot test's: the series' first patch; only
# the objects whose code must not change) and patched (the whole series).
VARIANTS = ('pristine', 'base', 'patched')

# sparse: Debian sid's, whose binary needs sid's C library, unpacked into
# an entry of the cache and run through that entry's own loader (as
# litmus.py runs herd7); kbuild runs it as CHECK, a wrapper script.
SPARSE_SUITE = 'sid'
SPARSE_PACKAGES = ('sparse', 'libc6')
SPARSE = 'usr/bin/sparse'
LIBDIR = 'usr/lib/x86_64-linux-gnu'
LOADER = LIBDIR + '/ld-linux-x86-64.so.2'
# What kbuild says, and then builds without sparse, when CHECK cannot
# check the tree (scripts/checker-valid.sh).
SPARSE_REFUSED = re.compile(r'C=\d specified, but .* (?:too old|not available|not up to date)')


def sparse_root(opts: Options, debs: Optional[Sequence[str]] = None, ex: Executor = REAL) -> str:
	"""sid's sparse and libc6 (scripts/debs.sh) unpacked as the cache entry
	sparse/KEY, KEY their names and SHA256s; its path (a dry run: the
	packages fetched, not in the cache)."""
	if debs is None:
		proc = ex.run(Cmd.of(debs_argv(SPARSE_SUITE, *SPARSE_PACKAGES), capture='stdout', check=False,
				     env={'OUT': opts.out, 'DEBS_MIRROR': opts.debs_mirror},
				     dry_stdout=''.join(f'{p}_VERSION_amd64.deb\n' for p in SPARSE_PACKAGES)))
		debs = str(proc.stdout).split()
		if proc.returncode or len(debs) != len(SPARSE_PACKAGES):
			raise HarnessError(f'could not fetch {" ".join(SPARSE_PACKAGES)} from Debian {SPARSE_SUITE}')
	if ex.dry:
		ex.comment('unpacked into the cache (sparse/KEY) with dpkg-deb -x, unless it is there')
		return os.path.join(cache_dir(), 'sparse', 'KEY')
	key = cache_key(*sorted(file_id(d) for d in debs))
	found = cache_path('sparse', key)
	if found:
		return found
	tmp = cache_new('sparse', key)
	try:
		for deb in debs:
			ex.run(Cmd.of(['dpkg-deb', '-x', deb, tmp]))
		for f in (LOADER, SPARSE):
			if not os.path.exists(os.path.join(tmp, f)):
				raise HarnessError(f'{" ".join(debs)}: no {f} in them')
	except BaseException:
		shutil.rmtree(tmp, ignore_errors=True)
		raise
	return cache_adopt(tmp, 'sparse', key)


def sparse_wrapper(root: str, path: str) -> str:
	"""PATH, a script that runs ROOT's sparse through ROOT's loader: what
	kbuild's CHECK= names (scripts/checker-valid.sh wants one command)."""
	text = ('#!/bin/sh\n# Debian sid\'s sparse through sid\'s own loader (scripts/harness_static.py)\n'
		f'exec {shlex.quote(os.path.join(root, LOADER))} --library-path {shlex.quote(os.path.join(root, LIBDIR))} '
		f'{shlex.quote(os.path.join(root, SPARSE))} "$@"\n')
	os.makedirs(os.path.dirname(path), exist_ok=True)
	if not os.path.isfile(path) or file_text(path) != text:
		with open(path + '.tmp', 'w') as f:
			f.write(text)
		os.chmod(path + '.tmp', 0o755)
		os.replace(path + '.tmp', path)
	return path


def sparse_ran(log: str, objs: Sequence[str]) -> List[str]:
	"""What a check build's LOG shows of sparse: the problems, none if
	kbuild ran it on every object of OBJS."""
	text = file_text(log)
	m = SPARSE_REFUSED.search(text)
	if m:
		return [f'kbuild ran no sparse: "{m.group(0)}"']
	return [f'no sparse on {o[:-2]}.c' for o in objs
		if not re.search(r'^\s+CHECK\s+(?:\S*/)?' + re.escape(o[:-2] + '.c') + '$', text, re.M)]
TAG = re.compile(r'^(Fixes|Cc|Link|Closes|[A-Z][A-Za-z-]*-by): ', re.M)
# The selftest's builds: each listener (configs/arch/) of each
# architecture that boots, with each compiler.
SELFTEST = 'tools/testing/selftests/connector'
KSELFTEST_COMPILERS = ('gcc', 'clang')


def kselftest_builds() -> List[Tuple[Arch, str, int, Tuple[str, ...]]]:
	"""(architecture, compiler, bits, CFLAGS) of each build of the selftest."""
	return [(arch, cc, bits, flags) for arch in map(load_arch, booting_arches())
		for cc in KSELFTEST_COMPILERS for bits, flags in arch.listeners]


def kselftest_argvs(tree: str, out: str, jobs: int) -> List[Tuple[str, List[str]]]:
	"""(log name, command) of what kselftest_check() runs, in order: the
	uapi headers of each architecture into OUT/headers-ARCH, then each
	build into OUT/ARCH-COMPILER-BITS (kselftest/connector/ in it)."""
	argvs = [(f'kselftest-headers-{a}', kmake_argv(tree, os.path.join(out, f'headers-{a}'), load_arch(a), jobs,
						      'headers')) for a in booting_arches()]
	for arch, cc, bits, flags in kselftest_builds():
		name = f'{arch.name}-{cc}-{bits}'
		argvs.append((f'kselftest-{name}', [
			'make', '-C', os.path.join(tree, 'tools/testing/selftests'), f'O={os.path.join(out, name)}',
			f'-j{jobs}', f'ARCH={arch.linux_arch}', f'CROSS_COMPILE={arch.cross_compile}',
			*(['LLVM=1'] if cc == 'clang' else []),
			f'KHDR_INCLUDES=-isystem {os.path.join(out, f"headers-{arch.name}", "usr", "include")}',
			'TARGETS=connector', 'USERCFLAGS=' + ' '.join([*flags, '-Werror']),
			'USERLDFLAGS=' + ' '.join(flags)]))
	return argvs


def elf_problem(prog: str, arch: Arch, bits: int) -> str:
	"""Why PROG is not the program of ARCH and BITS, '' if it is."""
	if not os.path.isfile(prog):
		return f'{prog}: missing'
	with open(prog, 'rb') as f:
		head = f.read(20)
	machine = arch.elf_machine if bits == 64 else arch.compat_elf_machine
	# ELF's class (1: 32-bit, 2: 64-bit) and little-endian e_machine.
	if len(head) < 20 or head[:4] != b'\x7fELF' or head[4] != bits // 32 or \
	   struct.unpack_from('<H', head, 18)[0] != machine:
		return f'{prog}: not {arch.name} {bits}-bit (ELF machine {machine})'
	return ''


def checkpatch_argv(patch: str) -> List[str]:
	# The tree has no git history to look commit ids up in.
	return ['perl', 'scripts/checkpatch.pl', '--strict', '--ignore', 'UNKNOWN_COMMIT_ID', patch]


def commit_message(patch: str) -> str:
	"""From the blank line after the Subject: header to the --- line."""
	text = file_text(patch)
	head = text[text.index('\nSubject:'):]
	head = head[head.index('\n\n') + 2:]
	return head[:head.index('\n---\n')]


def tags_outside_trailers(patch: str) -> List[str]:
	"""The tags of PATCH's commit message that git interpret-trailers
	--parse does not read as its trailer block."""
	msg = commit_message(patch)
	parsed = run(['git', 'interpret-trailers', '--parse'], input=msg, capture='stdout',
		     quiet=True).stdout.splitlines()
	return [l for l in msg.splitlines() if TAG.match(l) and l not in parsed]


class StaticChecks:
	"""The static checks of LINE's series. One plan for the real run and
	--dry-run (harness_plan): every command goes through the executor EX;
	what the real run decides from the tree or a command's answer, a dry
	run takes as stated with ex.comment()."""

	def __init__(self, line: KernelLine, opts: Options, newest: str, ex: Executor = REAL):
		self.line = line
		self.opts = opts
		self.newest = newest
		self.ex = ex
		self.tree = Tree(line, opts)
		self.kernels = Kernels(self.tree, opts)
		self.series = os.path.relpath(line.series_dir, TOP)
		self._check = ''
		self._said_no_tree = False

	def sparse(self) -> str:
		"""The CHECK= of the check builds: sid's sparse (sparse_wrapper())."""
		if not self._check:
			wrapper = os.path.join(self.opts.out, 'sparse', 'sparse')
			root = sparse_root(self.opts, ex=self.ex)
			if self.ex.dry:
				self.ex.comment(f'{wrapper}: sid\'s sparse through sid\'s loader')
				self._check = wrapper
			else:
				self._check = sparse_wrapper(root, wrapper)
		return self._check

	def tags(self) -> None:
		bad = [f'{os.path.relpath(p, TOP)}: \'{t}\' is outside the trailer block'
		       for p in self.tree.patches for t in tags_outside_trailers(p)]
		for b in bad:
			print(b, flush=True)
		if bad:
			raise HarnessError(f'{self.series}: tags outside the trailer block, see above')
		note('tags: one trailer block in every patch (git interpret-trailers --parse)')

	def _pristine_files(self) -> None:
		src = self.tree.source()
		for f in self.tree.files:
			a, b = os.path.join(src, f), os.path.join(self.tree.path, f)
			if os.path.exists(a):
				if not filecmp.cmp(a, b, shallow=False):
					raise HarnessError(f'quilt pop -a left {f} different from {src}')
			elif os.path.exists(b):
				raise HarnessError(f'quilt pop -a left {f}, which the series creates')

	def quilt_round_trip(self) -> None:
		self.tree.pristine()
		self._pristine_files()
		self.tree.patched()
		self.tree.pristine()
		self._pristine_files()
		note('quilt push -a --fuzz=0, pop -a: every touched file byte-identical to the pristine tree')

	def git_am(self) -> None:
		repo = os.path.join(self.tree.line_out, 'git-am')
		if self.ex.dry:
			self.ex.comment(f'{repo}: the files the series touches, from the pristine source')
		src = '' if self.ex.dry else self.tree.source()
		shutil.rmtree(repo, ignore_errors=True)
		os.makedirs(repo)
		for f in self.tree.files if src else ():
			if os.path.exists(os.path.join(src, f)):
				os.makedirs(os.path.dirname(os.path.join(repo, f)), exist_ok=True)
				shutil.copy(os.path.join(src, f), os.path.join(repo, f))
		git = ['git', '-C', repo, '-c', 'user.name=base', '-c', 'user.email=base@localhost']
		self.ex.run(Cmd.of(git + ['init', '-q']))
		self.ex.run(Cmd.of(git + ['add', '-f', '.']))
		self.ex.run(Cmd.of(git + ['commit', '-q', '-m', 'base']))
		self.ex.run(Cmd.of(git + ['am', '-q', *self.tree.patches], what=f'git am of {self.series}'))
		if not self.ex.dry:
			last = output(['git', '-C', repo, 'log', '-1', '--format=%s']).strip()
			note(f'git am: {len(self.tree.patches)} commits, the last: {last}')

	def checkpatch(self) -> None:
		bad = False
		for p in self.tree.patches:
			out = str(self.ex.run(Cmd.of(checkpatch_argv(p), cwd=self.tree.path, capture='all', check=False)).stdout)
			if self.ex.dry:
				continue
			total = re.search(r'^total: .*$', out, re.M)
			warnings = re.findall(r'^WARNING: (.*)$', out, re.M)
			# A backport ends in its backporter's Signed-off-by after the
			# note (backporting.rst): checkpatch's one duplicate signature.
			backport_ok = (self.line.name != self.newest and warnings == ['Duplicate signature']
				       and re.search(r'total: 0 errors, 1 warnings, 0 checks', out))
			if re.search(r'total: 0 errors, 0 warnings, 0 checks', out) or backport_ok:
				note(f'checkpatch --strict: {os.path.basename(p)}: {total.group(0) if total else "?"}'
				     + (" (the 1 warning: the backporter's Signed-off-by)" if backport_ok else ''))
			else:
				print('\n'.join(l for l in out.splitlines() if re.match(r'(ERROR|WARNING|CHECK|total|#)', l)),
				      flush=True)
				print(f'error: checkpatch --strict: {os.path.relpath(p, TOP)} is not clean', flush=True)
				bad = True
		if bad:
			raise HarnessError(f'checkpatch --strict: {self.series} is not clean')

	def kerneldoc(self, variant: str) -> str:
		"""kernel-doc's warnings on the touched files, line numbers dropped."""
		path = os.path.join(self.tree.logs, f'kernel-doc-{variant}.txt')
		kd = os.path.join(self.tree.path, 'scripts', 'kernel-doc')
		# 6.1's kernel-doc warns without being asked and knows no -Wall.
		if self.ex.dry:
			self.ex.comment('-Wall if kernel-doc -h lists it (6.1\'s does not); here it does')
			wall = ['-Wall']
		else:
			wall = ['-Wall'] if '-Wall' in run([kd, '-h'], capture='all', check=False, quiet=True).stdout else []
		lines: Set[str] = set()
		for f in self.tree.files:
			if f.endswith(('.c', '.h')) and self._in_tree(f, variant):
				argv = ['scripts/kernel-doc', '-none', *wall, f]
				out = str(self.ex.run(Cmd.of(argv, cwd=self.tree.path, capture='all', check=False)).stdout)
				lines.update(re.sub(r'\.([ch]):[0-9]+:?', r'.\1:', l) for l in out.splitlines() if l)
		if not self.ex.dry:
			with open(path, 'w') as fh:
				fh.write(''.join(l + '\n' for l in sorted(lines)))
		return path

	def _in_tree(self, f: str, variant: str) -> bool:
		"""F is in the tree at VARIANT (pristine or patched): a dry run,
		which does not move the tree, reads it from the series (a file
		one of its patches creates is not in the pristine tree)."""
		if self.ex.dry:
			return variant == 'patched' or f not in self._created()
		return os.path.isfile(os.path.join(self.tree.path, f))

	def _created(self) -> List[str]:
		"""The files the series creates (its diffs from /dev/null)."""
		return [f for p in self.tree.patches
			for f in re.findall(r'^--- /dev/null\n\+\+\+ b/(\S+)', file_text(p), re.M)]

	def _no_tree_yet(self) -> bool:
		"""A dry run on a cold cache: what the tree decides (a Makefile's
		objects, the files there) is taken as the series says."""
		no_tree = self.ex.dry and not os.path.isdir(self.tree.path)
		if no_tree and not self._said_no_tree:
			self.ex.comment(f'{self.tree.path}: not there yet: every object and file the series touches taken '
					'as built and present')
			self._said_no_tree = True
		return no_tree

	def has_selftest(self) -> bool:
		return any(f.startswith(SELFTEST + '/') for f in self.tree.files)

	def kselftest_check(self) -> None:
		"""The selftest built as CI systems build it, in the tree at
		patched (the builds' output outside it)."""
		out = os.path.join(self.tree.line_out, 'kselftest-check')
		if not self.ex.dry:
			shutil.rmtree(out, ignore_errors=True)
		for name, argv in kselftest_argvs(self.tree.path, out, self.opts.jobs):
			self.ex.run(Cmd.of(argv, log=os.path.join(self.tree.logs, name + '.log'), what=name))
		if self.ex.dry:
			return
		bad = [elf_problem(os.path.join(out, f'{arch.name}-{cc}-{bits}', 'kselftest', 'connector', 'cn_proc_test'),
				   arch, bits) for arch, cc, bits, _ in kselftest_builds()]
		bad = [b for b in bad if b]
		for b in bad:
			print(f'error: {b}', flush=True)
		if bad:
			raise HarnessError('the selftest\'s builds did not make their programs, see above')
		note('the selftest: ' + ', '.join(f'{a.name} {cc} {bits}-bit' for a, cc, bits, _ in kselftest_builds())
		     + ': built with -Werror')

	def _objects(self, files: Optional[Sequence[str]] = None) -> List[str]:
		"""The objects of FILES (the series' by default) that the
		configuration builds (cn_proc.o only with CONFIG_PROC_EVENTS, and
		so on: the Makefile names them); none of tools/ (the kselftest's
		patch), which kbuild does not build."""
		objs = []
		for f in self.tree.files if files is None else files:
			# tools/ (the kselftest) is no kbuild object.
			if f.endswith('.c') and not f.startswith('tools/'):
				o = f[:-2] + '.o'
				mk = os.path.join(self.tree.path, os.path.dirname(f), 'Makefile')
				if self._no_tree_yet() or os.path.basename(o) in file_text(mk):
					objs.append(o)
		return objs

	def unchanged_by_base(self) -> List[str]:
		"""The files the rest of the series changes and its first patch does
		not: the code of their objects must be the same in the pristine
		tree and at base, or base is no reference for the series' fix."""
		first = set(patch_files(self.tree.base_patches))
		return [f for f in patch_files(self.tree.patches[len(self.tree.base_patches):]) if f not in first]

	def check_id(self, arch: Arch, flavour: str, variant: str, frags: List[str], objs: List[str]) -> str:
		"""The key of what a check build's result depends on: the objects
		it builds too (a series that moves its code changes them), sparse's
		version, and what the tree has of the series."""
		parts = [self.tree.id, *map(file_text, frags), tool_versions(arch),
			 make_argv_id(arch, *CHECK_FLAGS, *objs), output([self.sparse(), '--version'])]
		if variant == 'base':
			parts.append(self.tree.base_digest)
		elif variant != 'pristine':
			parts.append(self.tree.digest)
		return cache_key(*parts)

	def check_build(self, arch_name: str, flavour: str, variant: str, objs: Optional[List[str]] = None) -> str:
		"""sparse and W=1 on OBJS (the series' objects by default), the
		build's log, its warnings (line numbers dropped, so that variants
		compare) and each object's objdump -dr (OBJ.dis) in
		LOGS/LINE/check-ARCH-FLAVOUR-VARIANT/, built in the boot test's
		build directory of the architecture and flavour (the same
		.config). A build in which kbuild ran no sparse on each object
		fails. Cached by check_id, so an unchanged check is not rebuilt."""
		arch = load_arch(arch_name)
		out = os.path.join(self.tree.logs, f'check-{arch_name}-{flavour}-{variant}')
		objs = self._objects() if objs is None else objs
		what = f'{arch_name} {flavour} {variant}: {" ".join(os.path.basename(o) for o in objs)}'
		frags = config_fragments(self.opts, arch, flavour, self.kernels.extra_fragments(arch))
		build = self.kernels.build_dir(arch, flavour)
		if self.ex.dry:
			self.ex.comment(f'{what}: unless the cache has its result')
		else:
			key = self.check_id(arch, flavour, variant, frags, objs)
			if cache_get('checks', key, out):
				self._notes(what, out, objs, f' (from the cache, {key})')
				return out
		configure(self.tree, build, arch, frags,
			  os.path.join(self.tree.logs, f'config-check-{arch_name}-{flavour}.log'), self.opts.jobs, self.ex)
		log = os.path.join(out, 'log')
		if not self.ex.dry:
			for o in objs:
				if os.path.exists(os.path.join(build, o)):
					os.remove(os.path.join(build, o))
			shutil.rmtree(out, ignore_errors=True)
			os.makedirs(out)
		self.ex.run(Cmd.of(self.check_argv(arch, build, objs), log=log, what=f'{what} did not build'))
		if self.ex.dry:
			for o in objs:
				self.ex.comment(f'{arch.cross_compile}objdump -dr {o} (in {build}) into {out}')
			return out
		warnings = set()
		for l in file_text(log).splitlines():
			if 'warning:' in l or 'error:' in l:
				l = l.replace(self.tree.path + '/', '')
				warnings.add(re.sub(r':[0-9]+(:[0-9]+)?:', ':', l, count=1))
		with open(os.path.join(out, 'warnings'), 'w') as f:
			f.write(''.join(w + '\n' for w in sorted(warnings)))
		for o in objs:
			# Relative, so that no path of this build is in it.
			with open(os.path.join(out, os.path.basename(o) + '.dis'), 'w') as f:
				f.write(output([arch.cross_compile + 'objdump', '-dr', o], cwd=build))
		self._notes(what, out, objs, '')
		cache_put(out, 'checks', key)
		return out

	def check_argv(self, arch: Arch, build: str, objs: List[str], check: str = '') -> List[str]:
		return kmake_argv(self.tree.path, build, arch, self.opts.jobs, *CHECK_FLAGS,
				  f'CHECK={check or self.sparse()}', *objs)

	def _notes(self, what: str, out: str, objs: Sequence[str], suffix: str) -> None:
		n = len(file_text(os.path.join(out, 'warnings')).splitlines())
		# Kbuild says so, and goes on without sparse, when it cannot check
		# the tree: the check then checks nothing of sparse's.
		problems = sparse_ran(os.path.join(out, 'log'), objs)
		if problems:
			raise HarnessError(f'{what}: {"; ".join(problems)} (see {os.path.join(out, "log")})')
		note(f'{what}: {n} warnings{suffix}')

	@staticmethod
	def no_new(what: str, base: str, patched: str) -> None:
		old = set(file_text(base).splitlines())
		new = [l for l in file_text(patched).splitlines() if l not in old]
		if new:
			print('\n'.join(new), flush=True)
			raise HarnessError(f'{what}: the series adds the warnings above')
		note(f'{what}: no new warning ({len(old)} in the pristine tree)')

	@staticmethod
	def same_code(what: str, pristine: str, base: str, objs: Sequence[str]) -> None:
		"""Each of OBJS's objdump -dr the same in check builds PRISTINE and
		BASE: the series' first patch changes no instruction and no
		relocation of them."""
		for o in objs:
			a, b = (os.path.join(d, os.path.basename(o) + '.dis') for d in (pristine, base))
			if file_text(a) != file_text(b):
				raise HarnessError(f'{what}: {o} compiles to other code at base (the series\' first patch) '
						   f'than in the pristine tree: the boot test\'s base is no reference '
						   f'(diff {a} {b})')
			note(f'{what}: {o}: the same code in the pristine tree and at base '
			     f'({len(file_text(a).splitlines())} lines of objdump -dr)')

	def run_all(self) -> None:
		n, ex = self.line.name, self.ex
		with ex.stage(f'{n}: tags'):
			if ex.dry:
				ex.comment('git interpret-trailers --parse of each patch\'s message')
			else:
				self.tags()
		with ex.stage(f'{n}: tree'):
			self.tree.prepare(ex)
		with contextlib.nullcontext() if ex.dry else self.tree.check_builds_only():
			self._run_all()
		if not ex.dry:
			print(f'{n}: static checks clean', flush=True)

	def _run_all(self) -> None:
		n, ex = self.line.name, self.ex
		with ex.stage(f'{n}: quilt round trip'):
			if ex.dry:
				ex.comment('quilt push -a --fuzz=0, pop -a: every touched file as in the pristine source')
			else:
				self.quilt_round_trip()
		with ex.stage(f'{n}: git am'):
			self.git_am()
		with ex.stage(f'{n}: checkpatch --strict'):
			self.checkpatch()
		with ex.stage(f'{n}: sparse (Debian {SPARSE_SUITE})'):
			check = self.sparse()
			if not ex.dry:
				note(f'{check}: sparse {output([check, "--version"]).strip()}')
		same = self._objects(self.unchanged_by_base())
		# (variant, 'kernel-doc'): its warnings; (variant, arch, flavour): the check build's directory
		results: Dict[Tuple[str, ...], str] = {}
		for variant in VARIANTS:
			with ex.stage(f'{n}: tree at {variant}'):
				if not ex.dry:
					self.tree.move_to(variant)
			if variant != 'base':
				with ex.stage(f'{n}: kernel-doc {variant}'):
					results[variant, 'kernel-doc'] = self.kerneldoc(variant)
			for arch, flavour in self.line.static_checks:
				objs = same if variant == 'base' else None
				with ex.stage(f'{n}: {variant} {arch} {flavour}: sparse, W=1'):
					results[variant, arch, flavour] = self.check_build(arch, flavour, variant, objs)
		if self.has_selftest():
			with ex.stage(f'{n}: the selftest\'s builds'):
				if not ex.dry:
					self.tree.move_to('patched')
				self.kselftest_check()
		if ex.dry:
			ex.comment('then: no new kernel-doc, sparse or W=1 warning; base\'s code of '
				   + ', '.join(same) + ' the pristine tree\'s')
			return
		with ex.stage(f'{n}: kernel-doc: new warnings'):
			self.no_new('kernel-doc -none', results['pristine', 'kernel-doc'], results['patched', 'kernel-doc'])
		for arch, flavour in self.line.static_checks:
			with ex.stage(f'{n}: {arch} {flavour}: new warnings'):
				self.no_new(f'{arch} {flavour}', os.path.join(results['pristine', arch, flavour], 'warnings'),
					    os.path.join(results['patched', arch, flavour], 'warnings'))
			with ex.stage(f'{n}: {arch} {flavour}: base\'s code of what the fix changes'):
				self.same_code(f'{arch} {flavour}', results['pristine', arch, flavour],
					       results['base', arch, flavour], same)
