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

import filecmp
import fnmatch
import glob
import os
import re
import shlex
import shutil
import struct
import subprocess
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from harness_arch import Arch
from harness_config import KernelLine, Options, booting_arches, load_arch
from harness_kernel import (Kernels, Tree, config_fragments, configure, kmake_argv, make_argv_id,
			    patch_files, tool_versions)
from harness_patches import checkpatch, git_am, pristine_repo
from harness_stage import debs_argv
from harness_util import (TOP, HarnessError, cache_adopt, cache_get, cache_key, cache_new, cache_path,
			  cache_put, file_id, file_text, note, output, run, stage)

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
# netdev's minimum build's configuration (allmod_build()).
ALLMODCONFIG = 'allmodconfig'
# What kbuild says, and then builds without sparse, when CHECK cannot
# check the tree (scripts/checker-valid.sh).
SPARSE_REFUSED = re.compile(r'C=\d specified, but .* (?:too old|not available|not up to date)')


def sparse_root(opts: Options, debs: Optional[Sequence[str]] = None) -> str:
	"""sid's sparse and libc6 (scripts/debs.sh) unpacked as the cache entry
	sparse/KEY, KEY their names and SHA256s; its path."""
	if debs is None:
		proc = run(debs_argv(SPARSE_SUITE, *SPARSE_PACKAGES), capture='stdout', check=False,
			   env={'OUT': opts.out, 'DEBS_MIRROR': opts.debs_mirror})
		debs = str(proc.stdout).split()
		if proc.returncode or len(debs) != len(SPARSE_PACKAGES):
			raise HarnessError(f'could not fetch {" ".join(SPARSE_PACKAGES)} from Debian {SPARSE_SUITE}')
	key = cache_key(*sorted(file_id(d) for d in debs))
	found = cache_path('sparse', key)
	if found:
		return found
	tmp = cache_new('sparse', key)
	try:
		for deb in debs:
			run(['dpkg-deb', '-x', deb, tmp])
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

def check_targets(arch: Arch, variant: str, objs: Sequence[str]) -> List[str]:
	"""What a check build of OBJS builds: on an architecture that is built
	for the static checks only (the 32-bit ones), the directories of the
	objects whole (DIR/, as kbuild takes a directory), so that a header
	the series changes is compiled by every object there that includes
	it (kernel/time/time.o as well as timekeeping.o); elsewhere, and at
	base (whose build is only for the code of OBJS), the objects."""
	if arch.boots or variant == 'base':
		return list(objs)
	return sorted({os.path.dirname(o) + '/' for o in objs})


def diff_lines(patches: Sequence[str], sign: str, pattern: str) -> List[Tuple[str, str]]:
	"""(file, text) of each line that PATCHES add (SIGN '+') or remove
	('-') in a file whose path matches PATTERN (fnmatch), in their
	diffs only (not the commit messages), the sign dropped."""
	found = []
	for p in patches:
		path = ''
		in_diff = False
		for l in file_text(p).splitlines():
			if l.startswith('diff --git '):
				in_diff, path = True, ''
			elif in_diff and l.startswith('+++ '):
				path = l[6:] if l.startswith('+++ b/') else ''
			elif in_diff and l.startswith('--- '):
				continue
			elif in_diff and l == '-- ':
				in_diff = False
			elif in_diff and path and l.startswith(sign) and fnmatch.fnmatchcase(path, pattern):
				found.append((path, l[1:]))
	return found


# The series' headers alone: a translation unit of one header
# (HEADER_ALONE, a struct it adds defined), compiled as kbuild compiles
# the objects of the check build (W=1), must give no warning; and each
# header the series makes it include must not include it back (gcc -H).
HEADER_ALONE = 'header-alone'
CLOSURE = 'closure'


def compile_argv(cmd_file: str, src: str, obj: str) -> List[str]:
	"""The command kbuild compiled an object with (CMD_FILE, its .o.cmd),
	compiling SRC into OBJ instead, without the dependency file."""
	# savedcmd_ since 6.4, cmd_ before (6.1).
	m = re.match(r'(?:saved)?cmd_\S+ := (.*?) -c -o \S+ \S+\.c(?:\s|$)', file_text(cmd_file))
	if not m:
		raise HarnessError(f'{cmd_file}: no compile command in it')
	return [*(a for a in shlex.split(m.group(1)) if not a.startswith('-Wp,-MMD,')), '-c', '-o', obj, src]


def include_closure(h_output: str, tree: str) -> List[str]:
	"""The headers gcc -H lists (a line of dots, a space, the path), each
	relative to TREE where it is in TREE."""
	paths = []
	for l in h_output.splitlines():
		m = re.fullmatch(r'\.+ (\S+)', l)
		if m:
			path = os.path.normpath(m.group(1))
			paths.append(os.path.relpath(path, tree) if path.startswith(tree.rstrip('/') + '/') else path)
	return paths


def header_alone_problems(out: str) -> List[str]:
	"""What the header-alone results in a check build's directory OUT show:
	each compile's warning or error (or failure), and each header the
	series' own header may not be included from that an added include's
	closure reaches (a cycle). None if the build has none of them to
	judge (a check of another architecture)."""
	problems = []
	for log in sorted(glob.glob(os.path.join(out, HEADER_ALONE + '-*.log'))):
		for l in file_text(log).splitlines():
			if 'warning:' in l or 'error:' in l or l.startswith('exit status'):
				problems.append(f'{os.path.basename(log)}: {l}')
	for closure in sorted(glob.glob(os.path.join(out, CLOSURE + '-*.txt'))):
		lines = file_text(closure).splitlines()
		# The first line: the headers that include the series' header
		# (and it), which the closure must not reach.
		forbidden = lines[0].split() if lines else []
		for h in lines[1:]:
			if any(h == f or h.endswith('/' + f) for f in forbidden):
				problems.append(f'{os.path.basename(closure)}: reaches {h}: an include cycle')
	return problems


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


# netdev's other patch checks (NIPA's tests/patch/), each on every patch
# of the series, in this project's own terms:
#   header_inline     a function a header adds static or with its body,
#                     without inline
#   source_inline     more lines with the inline keyword added to .c
#                     files than removed
#   verify_signedoff  the author's Signed-off-by, and the chain ending in
#                     the sender's (who commits what he posts)
#   check_selftest    a selftest file the series adds named in its
#                     directory's Makefile, a program it adds in its
#                     .gitignore; the config, .gitignore and Makefile it
#                     touches in the order netdev keeps them
# (kdoc, the fifth, is the kernel-doc check: no new warning.)
HEADER_STATIC_NOT_INLINE = re.compile(r'static\s+(?!(?:__always_)?inline\b).*\(')
HEADER_BODY_NOT_INLINE = re.compile(
	r'(?:static\s+)?(?!(?:__always_)?inline\s)(?:(?:unsigned|signed|long|short)\s+)*'
	r'(?:char|bool|void|int|[us]\d+)\s+\w+\(.*\)\s*\{')
SELFTESTS = 'tools/testing/selftests/'
# The Makefile variables that list a selftest directory's programs.
SELFTEST_PROGRAMS = re.compile(r'(TEST_GEN_PROGS(?:_EXTENDED)?|TEST_GEN_FILES|TEST_PROGS|TEST_FILES)\s*\+?:?=')


def code_of(line: str) -> str:
	"""LINE of C without its comments (a line inside a block comment:
	nothing)."""
	if re.match(r'\s*(?:\*|/\*)', line):
		return re.sub(r'.*\*/', '', line) if '*/' in line else ''
	return re.sub(r'//.*', '', re.sub(r'/\*.*?(?:\*/|$)', '', line))


def header_inline_findings(patch: str) -> List[str]:
	return [f'{f}: "{l}": a function in a header without inline' for f, l in diff_lines([patch], '+', '*.h')
		if not l.rstrip().endswith('\\') and (HEADER_STATIC_NOT_INLINE.match(l) or HEADER_BODY_NOT_INLINE.match(l))]


def source_inline_findings(patch: str) -> List[str]:
	added = [(f, l) for f, l in diff_lines([patch], '+', '*.c') if re.search(r'\binline\b', code_of(l))]
	removed = [(f, l) for f, l in diff_lines([patch], '-', '*.c') if re.search(r'\binline\b', code_of(l))]
	if len(added) <= len(removed):
		return []
	return [f'{f}: "{l}": inline in a .c file ({len(added)} added, {len(removed)} removed)' for f, l in added]


def identity(text: str) -> Tuple[str, str]:
	"""(name, address) of 'Name <address>', either '' where absent, both
	in lower case."""
	m = re.fullmatch(r'\s*"?(.*?)"?\s*(?:<([^>]*)>)?\s*', text)
	return (m.group(1).lower(), (m.group(2) or '').lower()) if m else (text.strip().lower(), '')


def signedoff_findings(patch: str) -> List[str]:
	text = file_text(patch)
	author = re.search(r'^From: (.*)$', text, re.M)
	if not author:
		return ['no From: (the author)']
	sobs = [identity(s) for s in re.findall(r'^\s*Signed-off-by:\s*(.*)$', commit_message(patch), re.M | re.I)]
	name, addr = identity(author.group(1))

	def signs(s: Tuple[str, str]) -> bool:
		return bool((addr and s[1] == addr) or (name and s[0] == name))
	found = []
	if not any(map(signs, sobs)):
		found.append(f'no Signed-off-by of the author, {author.group(1)}')
	elif not signs(sobs[-1]):
		found.append(f'the last Signed-off-by is not the sender\'s ({author.group(1)}), who commits what he sends')
	return found


def sort_findings(path: str, text: str) -> List[str]:
	"""A selftest's config (by option, '_' aside, as netdev sorts it) or
	.gitignore: each entry after the one before it."""
	entries = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith('#')]
	if path.endswith('/config'):
		entries = [e for e in entries if '=' in e]

	def key(e: str) -> str:
		return e.split('=')[0].strip().replace('_', '') if '=' in e else e
	return [f'{path}: {b} should come before {a}' for a, b in zip(entries, entries[1:]) if key(b) < key(a)]


def makefile_findings(path: str, text: str) -> List[str]:
	"""A selftest's Makefile as netdev keeps it: each list variable (not
	*FLAGS, *LIBS, short names, or what a function gives) assigned in one
	block, an item to a line, sorted, a block of more than one line ended
	by a comment line."""
	blocks: Dict[str, List[Tuple[int, str]]] = {}
	lines = text.splitlines()
	var = ''
	for i, l in enumerate(lines, 1):
		m = re.match(r'([A-Z_][A-Z0-9_]*)\s*(?:\+=|:?=)(.*)$', l)
		if m:
			var, value = m.group(1), m.group(2).strip()
			if len(var) < 3 or 'FLAGS' in var or 'LIBS' in var or (value.startswith('$') and value != '\\'):
				var = ''
			elif value != '\\':
				blocks.setdefault(var, []).append((i, value))
		elif var:
			blocks.setdefault(var, []).append((i, l))
		if var and not l.endswith('\\'):
			var = ''
	found = []
	for v, b in blocks.items():
		nums = [n for n, _ in b]
		if nums != list(range(nums[0], nums[0] + len(nums))):
			found.append(f'{path}: {v} is assigned in more than one block (line {nums[0]} and on)')
		items = [(n, x.strip().rstrip('\\').strip()) for n, x in b if not x.strip().startswith('#')]
		if len(b) > 1 and not b[-1][1].strip().startswith('#'):
			found.append(f'{path}:{b[-1][0]}: {v}\'s block does not end in a comment line')
		found += [f'{path}:{n}: {v}: "{x}", more than one item on the line' for n, x in items
			  if ' ' in x and '$' not in x]
		found += [f'{path}:{n2}: {v}: {x2} should come before {x1}' for (_, x1), (n2, x2) in zip(items, items[1:])
			  if not x1.startswith('$') and not x2.startswith('$')
			  and (x2.count('/'), x2.lower()) < (x1.count('/'), x1.lower())]
	return found


def selftest_findings(patch: str, tree: str) -> List[str]:
	"""check_selftest on PATCH, the series applied in TREE."""
	text = file_text(patch)
	files = re.findall(r'^(---|\+\+\+) (\S+)$', text, re.M)
	new: Set[str] = set()
	touched: Set[str] = set()
	for (_, a), (_, b) in zip(files[::2], files[1::2]):
		if b.startswith('b/' + SELFTESTS):
			(new if a == '/dev/null' else touched).add(b[2:])
	found = []
	for f in sorted(new | touched):
		d, base = os.path.dirname(f), os.path.basename(f)
		here = os.path.join(tree, f)
		if base in ('config', '.gitignore') and os.path.isfile(here):
			found += sort_findings(f, file_text(here))
		elif base == 'Makefile' and os.path.isfile(here):
			found += makefile_findings(f, file_text(here))
		if f not in new or not base.endswith(('.c', '.sh', '.py')) or base.endswith('.bpf.c'):
			continue
		mk = os.path.join(tree, d, 'Makefile')
		makefile = file_text(mk) if os.path.isfile(mk) else ''
		name = base[:-2] if base.endswith('.c') else base
		if not re.search(r'(?<![\w.-])' + re.escape(name) + r'(?![\w-])', makefile):
			found.append(f'{f}: not in {d}/Makefile')
		# A program of the Makefile: in a list of programs (its
		# continuation lines joined).
		program = any(SELFTEST_PROGRAMS.match(l) and re.search(r'(?<![\w.-])' + re.escape(name) + r'(?![\w.-])', l)
			      for l in re.sub(r'\\\n', ' ', makefile).splitlines())
		gitignore = os.path.join(tree, d, '.gitignore')
		if base.endswith('.c') and program and (not os.path.isfile(gitignore) or
							name not in file_text(gitignore).split()):
			found.append(f'{f}: the program {name} is not in {d}/.gitignore')
	return found


# Each: (NIPA's name, its findings on a patch, the tree given).
NETDEV_CHECKS: Tuple[Tuple[str, Callable[[str, str], List[str]]], ...] = (
	('header_inline', lambda p, tree: header_inline_findings(p)),
	('source_inline', lambda p, tree: source_inline_findings(p)),
	('verify_signedoff', lambda p, tree: signedoff_findings(p)),
	('check_selftest', selftest_findings))


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
	"""The static checks of LINE's series."""

	def __init__(self, line: KernelLine, opts: Options, newest: str):
		self.line = line
		self.opts = opts
		self.newest = newest
		self.tree = Tree(line, opts)
		self.kernels = Kernels(self.tree, opts)
		self.series = os.path.relpath(line.series_dir, TOP)
		self._check = ''

	def sparse(self) -> str:
		"""The CHECK= of the check builds: sid's sparse (sparse_wrapper())."""
		if not self._check:
			wrapper = os.path.join(self.opts.out, 'sparse', 'sparse')
			self._check = sparse_wrapper(sparse_root(self.opts), wrapper)
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
		"""git am of the series onto a git repository of the files it
		touches, pristine."""
		src = self.tree.source()
		repo = os.path.join(self.tree.line_out, 'git-am')
		shutil.rmtree(repo + '.git', ignore_errors=True)
		pristine_repo(repo + '.git', src, [f for f in self.tree.files if os.path.exists(os.path.join(src, f))],
			      'base')
		git_am(repo, self.tree.patches, f'git am of {self.series}', origin=repo + '.git')
		last = output(['git', '-C', repo, 'log', '-1', '--format=%s']).strip()
		note(f'git am: {len(self.tree.patches)} commits, the last: {last}')

	def checkpatch(self) -> None:
		backport = self.line.name != self.newest
		if [p for p in self.tree.patches if checkpatch(p, self.tree.path, backport)]:
			raise HarnessError(f'checkpatch (NIPA\'s flags): {self.series} is not clean')

	def netdev_checks(self) -> None:
		"""NETDEV_CHECKS on each patch, the tree at patched."""
		bad = []
		for name, check in NETDEV_CHECKS:
			found = [f'{name}: {os.path.basename(p)}: {f}' for p in self.tree.patches for f in check(p, self.tree.path)]
			for f in found:
				print(f, flush=True)
			bad += [name] if found else []
			if not found:
				note(f'{name}: {len(self.tree.patches)} patches clean')
		if bad:
			raise HarnessError(f'netdev\'s {", ".join(bad)}: {self.series} is not clean, see above')

	def kerneldoc(self, variant: str) -> str:
		"""kernel-doc's warnings on the touched files, line numbers dropped."""
		path = os.path.join(self.tree.logs, f'kernel-doc-{variant}.txt')
		kd = os.path.join(self.tree.path, 'scripts', 'kernel-doc')
		# 6.1's kernel-doc warns without being asked and knows no -Wall.
		wall = ['-Wall'] if '-Wall' in run([kd, '-h'], capture='all', check=False, quiet=True).stdout else []
		lines: Set[str] = set()
		for f in self.tree.files:
			if f.endswith(('.c', '.h')) and os.path.isfile(os.path.join(self.tree.path, f)):
				argv = ['scripts/kernel-doc', '-none', *wall, f]
				out = str(run(argv, cwd=self.tree.path, capture='all', check=False).stdout)
				lines.update(re.sub(r'\.([ch]):[0-9]+:?', r'.\1:', l) for l in out.splitlines() if l)
		with open(path, 'w') as fh:
			fh.write(''.join(l + '\n' for l in sorted(lines)))
		return path

	def has_selftest(self) -> bool:
		return any(f.startswith(SELFTEST + '/') for f in self.tree.files)

	def kselftest_check(self) -> None:
		"""The selftest built as CI systems build it, in the tree at
		patched (the builds' output outside it)."""
		out = os.path.join(self.tree.line_out, 'kselftest-check')
		shutil.rmtree(out, ignore_errors=True)
		for name, argv in kselftest_argvs(self.tree.path, out, self.opts.jobs):
			run(argv, log=os.path.join(self.tree.logs, name + '.log'), what=name)
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
				if os.path.basename(o) in file_text(mk):
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
		it builds too (a series that moves its code changes them; and
		their directories where it builds them whole), sparse's version,
		and what the tree has of the series."""
		targets = check_targets(arch, variant, objs)
		parts = [self.tree.id, *map(file_text, frags), tool_versions(arch),
			 make_argv_id(arch, *CHECK_FLAGS, *targets), *(objs if targets != objs else ()),
			 output([self.sparse(), '--version'])]
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
		what = f'{arch_name} {flavour} {variant}: ' + ' '.join(
			t if t.endswith('/') else os.path.basename(t) for t in check_targets(arch, variant, objs))
		frags = config_fragments(self.opts, arch, flavour, self.kernels.extra_fragments(arch))
		build = self.kernels.build_dir(arch, flavour)
		key = self.check_id(arch, flavour, variant, frags, objs)
		if cache_get('checks', key, out):
			self._notes(what, out, objs, f' (from the cache, {key})')
			return out
		configure(self.tree, build, arch, frags,
			  os.path.join(self.tree.logs, f'config-check-{arch_name}-{flavour}.log'), self.opts.jobs)
		log = os.path.join(out, 'log')
		targets = check_targets(arch, variant, objs)
		# Every object the build is to compile, so that it shows
		# each one's warnings.
		for t in targets:
			for o in glob.glob(os.path.join(build, t, '*.o')) if t.endswith('/') else [os.path.join(build, t)]:
				if os.path.exists(o):
					os.remove(o)
		shutil.rmtree(out, ignore_errors=True)
		os.makedirs(out)
		run(self.check_argv(arch, build, targets), log=log, what=f'{what} did not build')
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
		if variant == 'patched' and self.headers_checked(arch):
			self.header_alone(arch, build, out, objs)
		self._notes(what, out, objs, '')
		cache_put(out, 'checks', key)
		return out

	def headers_checked(self, arch: Arch) -> bool:
		"""The series' headers are compiled alone on the static-only
		architectures of the newest line: 6.1's <linux/timekeeping.h> does
		not stand alone in the pristine tree (it needs <linux/ktime.h>
		first)."""
		return not arch.boots and self.line.name == self.newest

	def series_headers(self) -> List[str]:
		"""The kernel headers the series changes (include/linux/)."""
		return [f for f in self.tree.files if re.fullmatch(r'include/linux/[\w/-]+\.h', f)]

	def header_alone(self, arch: Arch, build: str, out: str, objs: Sequence[str]) -> None:
		"""Into OUT, the results header_alone_problems() judges: for each
		header the series changes, a translation unit of that header alone
		that defines each struct the series adds to it, compiled as kbuild
		compiled the first of OBJS (W=1; HEADER_ALONE-N.log), and the
		include closure (gcc -H) of each header the series makes it
		include, beside the headers that include it (CLOSURE-N.txt)."""
		cmd_files = [f for f in (os.path.join(build, os.path.dirname(o), f'.{os.path.basename(o)}.cmd')
					 for o in objs) if os.path.isfile(f)]
		if not cmd_files:
			raise HarnessError(f'{arch.name}: no .o.cmd of {" ".join(objs)} in {build}')
		for i, h in enumerate(self.series_headers()):
			name = h[len('include/'):]
			structs = [m.group(1) for _, l in diff_lines(self.tree.patches, '+', h)
				   for m in [re.match(r'struct (\w+) \{', l)] if m]
			tu = (f'// SPDX-License-Identifier: GPL-2.0\n/* <{name}> alone (scripts/harness_static.py) */\n'
			      f'#include <{name}>\n\n' + ''.join(f'struct {t} header_alone_{t};\n' for t in structs))
			src = os.path.join(out, f'{HEADER_ALONE}-{i}.c')
			with open(src, 'w') as f:
				f.write(tu)
			self._compile(cmd_files[0], src, build, os.path.join(out, f'{HEADER_ALONE}-{i}.log'))
			# Who includes H: the closure of what H includes must reach none.
			includers = [os.path.relpath(f, self.tree.path) for f in sorted(
				glob.glob(os.path.join(self.tree.path, 'include', '**', '*.h'), recursive=True))
				if re.search(r'^\s*#\s*include\s*<' + re.escape(name) + '>', file_text(f), re.M)]
			for j, inc in enumerate(m.group(1) for _, l in diff_lines(self.tree.patches, '+', h)
						for m in [re.match(r'#\s*include\s*<([^>]+)>', l)] if m):
				isrc = os.path.join(out, f'{CLOSURE}-{i}-{j}.c')
				with open(isrc, 'w') as f:
					f.write(f'#include <{inc}>\n')
				proc = self._compile(cmd_files[0], isrc, build, os.path.join(out, f'{CLOSURE}-{i}-{j}.log'), '-H')
				closure = include_closure(str(proc.stderr), self.tree.path)
				with open(os.path.join(out, f'{CLOSURE}-{i}-{j}.txt'), 'w') as f:
					f.write(' '.join([h, *includers]) + '\n' + ''.join(c + '\n' for c in closure))
				note(f'{arch.name}: <{inc}>, which the series includes in {h}: {len(closure)} headers '
				     f'(gcc -H), {CLOSURE}-{i}-{j}.txt')

	def _compile(self, cmd_file: str, src: str, build: str, log: str, *flags: str) -> 'subprocess.CompletedProcess[str]':
		"""SRC compiled as CMD_FILE's object was (in BUILD), its output in
		LOG, and a line 'exit status N' there if it failed."""
		argv = compile_argv(cmd_file, src, src[:-2] + '.o')
		proc = subprocess.run([argv[0], *flags, *argv[1:]], cwd=build, capture_output=True, text=True, check=False)
		# Only the verdict's inputs go into the cache.
		if os.path.exists(src[:-2] + '.o'):
			os.remove(src[:-2] + '.o')
		with open(log, 'w') as f:
			f.write(proc.stderr if '-H' not in flags else
				''.join(l + '\n' for l in proc.stderr.splitlines() if not re.match(r'\.+ |Multiple include guards', l)
					and not l.startswith(('/', './'))))
			if proc.returncode:
				f.write(f'exit status {proc.returncode}\n')
		return proc

	def allmod_build(self, variant: str) -> str:
		"""netdev's minimum build (maintainer-netdev.rst): allmodconfig,
		W=1, of the directories of the series' objects, with gcc, on
		x86_64, in its own build directory; its log and warnings (as
		check_build()'s) in LOGS/LINE/allmodconfig-VARIANT/, cached under
		the source, compiler, commands and what the tree has of the
		series. allmodconfig makes CONNECTOR a module, and so no
		PROC_EVENTS: cn_proc.o is not among its objects. (Debian
		bookworm's clang 14 is older than 7.3's minimum, LLVM 17.)"""
		arch = load_arch('x86_64')
		out = os.path.join(self.tree.logs, f'allmodconfig-{variant}')
		build = os.path.join(self.tree.line_out, 'build', 'allmodconfig')
		dirs = check_targets(load_arch('i386'), 'patched', self._objects())
		argv = kmake_argv(self.tree.path, build, arch, self.opts.jobs, 'W=1', *dirs)
		key = cache_key(self.tree.id, tool_versions(arch), make_argv_id(arch, ALLMODCONFIG),
				make_argv_id(arch, 'W=1', *dirs),
				*([self.tree.digest] if variant == 'patched' else []))
		if cache_get('checks', key, out):
			note(f'allmodconfig {variant}: {len(file_text(os.path.join(out, "warnings")).splitlines())} '
			     f'warnings (from the cache, {key})')
			return out
		shutil.rmtree(out, ignore_errors=True)
		os.makedirs(out)
		for d in dirs:
			for o in glob.glob(os.path.join(build, d, '*.o')):
				os.remove(o)
		if not os.path.isfile(os.path.join(build, '.config')):
			run(kmake_argv(self.tree.path, build, arch, self.opts.jobs, ALLMODCONFIG),
			    log=os.path.join(self.tree.logs, 'config-allmodconfig.log'))
		run(argv, log=os.path.join(out, 'log'), what=f'allmodconfig {variant} did not build')
		warnings = sorted({re.sub(r':[0-9]+(:[0-9]+)?:', ':', l.replace(self.tree.path + '/', ''), count=1)
				   for l in file_text(os.path.join(out, 'log')).splitlines() if 'warning:' in l or 'error:' in l})
		with open(os.path.join(out, 'warnings'), 'w') as f:
			f.write(''.join(w + '\n' for w in warnings))
		note(f'allmodconfig {variant}: {" ".join(dirs)}: {len(warnings)} warnings')
		cache_put(out, 'checks', key)
		return out

	def check_argv(self, arch: Arch, build: str, targets: List[str], check: str = '') -> List[str]:
		return kmake_argv(self.tree.path, build, arch, self.opts.jobs, *CHECK_FLAGS,
				  f'CHECK={check or self.sparse()}', *targets)

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

	def headers_alone(self, what: str, out: str) -> None:
		problems = header_alone_problems(out)
		for p in problems:
			print(p, flush=True)
		if problems:
			raise HarnessError(f'{what}: the series\' headers do not stand alone, see above ({out})')
		note(f'{what}: {", ".join(self.series_headers())} alone: no warning (W=1); no include cycle (gcc -H)')

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
		n = self.line.name
		with stage(f'{n}: tags'):
			self.tags()
		with stage(f'{n}: tree'):
			self.tree.prepare()
		with self.tree.check_builds_only():
			self._run_all()
		print(f'{n}: static checks clean', flush=True)

	def _run_all(self) -> None:
		n = self.line.name
		with stage(f'{n}: quilt round trip'):
			self.quilt_round_trip()
		with stage(f'{n}: git am'):
			self.git_am()
		with stage(f'{n}: netdev\'s patch checks (NIPA\'s): checkpatch, header_inline, source_inline, '
			   'verify_signedoff, check_selftest'):
			# Each one's findings shown before any fails; the selftest
			# check reads the tree at patched.
			self.tree.move_to('patched')
			failed: List[str] = []
			for patch_check in (self.checkpatch, self.netdev_checks):
				try:
					patch_check()
				except HarnessError as e:
					failed.append(str(e))
			if failed:
				raise HarnessError('; '.join(failed))
		with stage(f'{n}: sparse (Debian {SPARSE_SUITE})'):
			check = self.sparse()
			note(f'{check}: sparse {output([check, "--version"]).strip()}')
		same = self._objects(self.unchanged_by_base())
		# (variant, 'kernel-doc'): its warnings; (variant, arch, flavour): the check build's directory
		results: Dict[Tuple[str, ...], str] = {}
		for variant in VARIANTS:
			with stage(f'{n}: tree at {variant}'):
				self.tree.move_to(variant)
			if variant != 'base':
				with stage(f'{n}: kernel-doc {variant}'):
					results[variant, 'kernel-doc'] = self.kerneldoc(variant)
			for arch, flavour in self.line.static_checks:
				objs = same if variant == 'base' else None
				with stage(f'{n}: {variant} {arch} {flavour}: sparse, W=1'):
					results[variant, arch, flavour] = self.check_build(arch, flavour, variant, objs)
			if variant != 'base' and n == self.newest:
				with stage(f'{n}: {variant} allmodconfig (netdev\'s minimum build): W=1'):
					results[variant, 'allmodconfig'] = self.allmod_build(variant)
		if self.has_selftest():
			with stage(f'{n}: the selftest\'s builds'):
				self.tree.move_to('patched')
				self.kselftest_check()
		with stage(f'{n}: kernel-doc: new warnings'):
			self.no_new('kernel-doc -none', results['pristine', 'kernel-doc'], results['patched', 'kernel-doc'])
		if n == self.newest:
			with stage(f'{n}: allmodconfig: new warnings'):
				self.no_new('allmodconfig W=1', os.path.join(results['pristine', 'allmodconfig'], 'warnings'),
					    os.path.join(results['patched', 'allmodconfig'], 'warnings'))
		for arch, flavour in self.line.static_checks:
			with stage(f'{n}: {arch} {flavour}: new warnings'):
				self.no_new(f'{arch} {flavour}', os.path.join(results['pristine', arch, flavour], 'warnings'),
					    os.path.join(results['patched', arch, flavour], 'warnings'))
			with stage(f'{n}: {arch} {flavour}: base\'s code of what the fix changes'):
				self.same_code(f'{arch} {flavour}', results['pristine', arch, flavour],
					       results['base', arch, flavour], same)
			if self.headers_checked(load_arch(arch)):
				with stage(f'{n}: {arch} {flavour}: the series\' headers alone, no include cycle'):
					self.headers_alone(f'{arch} {flavour}', results['patched', arch, flavour])
