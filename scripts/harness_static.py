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
    series changes and base does not (cn_proc.o) compile to the same code
    (objdump -dr) in the pristine tree and in the boot test's base (the
    series' patches that leave cn_proc.c alone);
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
from functools import partial
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from harness_arch import Arch
from harness_config import KernelLine, Options, booting_arches, load_arch
from harness_kernel import (Kernels, Tree, config_fragments, configure, kmake_argv, make_argv_id,
			    patch_files, tool_versions)
from harness_patches import checkpatch, git_am, pristine_repo
from harness_util import (TOP, HarnessError, cache_get, cache_key, cache_made, cache_put,
			  debs_argv, file_id, file_text, note, output, run, stage)

# What a check build adds to make: sparse on every object it compiles, and
# W=1.
CHECK_FLAGS = ('C=2', 'W=1')
# The variants a check build builds: the pristine tree (the reference of
# every comparison), base (the boot test's: base_patches(); only
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
			raise HarnessError(f'could not fetch {" ".join(SPARSE_PACKAGES)} '
					   f'from Debian {SPARSE_SUITE}')
	got: Sequence[str] = debs

	def make(tmp: str) -> None:
		for deb in got:
			run(['dpkg-deb', '-x', deb, tmp])
		for f in (LOADER, SPARSE):
			if not os.path.exists(os.path.join(tmp, f)):
				raise HarnessError(f'{" ".join(got)}: no {f} in them')
	return cache_made('sparse', cache_key(*sorted(file_id(d) for d in got)), make)


def sparse_wrapper(root: str, path: str) -> str:
	"""PATH, a script that runs ROOT's sparse through ROOT's loader: what
	kbuild's CHECK= names (scripts/checker-valid.sh wants one command)."""
	loader, libdir, sparse = (shlex.quote(os.path.join(root, p))
					  for p in (LOADER, LIBDIR, SPARSE))
	text = ('#!/bin/sh\n'
		"# Debian sid's sparse through sid's own loader (scripts/harness_static.py)\n"
		f'exec {loader} --library-path {libdir} {sparse} "$@"\n')
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
		if not re.search(r'^\s+CHECK\s+(?:\S*/)?' + re.escape(o[:-2] + '.c') + '$',
				 text, re.M)]

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
			elif in_diff and path and l.startswith(sign) and \
			     fnmatch.fnmatchcase(path, pattern):
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
	argv = [a for a in shlex.split(m.group(1)) if not a.startswith('-Wp,-MMD,')]
	return [*argv, '-c', '-o', obj, src]


def include_closure(h_output: str, tree: str) -> List[str]:
	"""The headers gcc -H lists (a line of dots, a space, the path), each
	relative to TREE where it is in TREE."""
	paths = []
	for l in h_output.splitlines():
		m = re.fullmatch(r'\.+ (\S+)', l)
		if m:
			path = os.path.normpath(m.group(1))
			inside = path.startswith(tree.rstrip('/') + '/')
			paths.append(os.path.relpath(path, tree) if inside else path)
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
				problems.append(f'{os.path.basename(closure)}: reaches {h}: '
							'an include cycle')
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
	builds = kselftest_builds()
	arches = {arch.name: arch for arch, _, _, _ in builds}
	argvs = [(f'kselftest-headers-{a}',
		   kmake_argv(tree, os.path.join(out, f'headers-{a}'), arch, jobs, 'headers'))
		  for a, arch in arches.items()]
	for arch, cc, bits, flags in builds:
		name = f'{arch.name}-{cc}-{bits}'
		argvs.append((f'kselftest-{name}', [
			'make', '-C', os.path.join(tree, 'tools/testing/selftests'),
			f'O={os.path.join(out, name)}', f'-j{jobs}', f'ARCH={arch.linux_arch}',
			f'CROSS_COMPILE={arch.cross_compile}',
			*(['LLVM=1'] if cc == 'clang' else []),
			'KHDR_INCLUDES=-isystem '
			+ os.path.join(out, f'headers-{arch.name}', 'usr', 'include'),
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
SELFTEST_PROGRAMS = re.compile(
	r'(TEST_GEN_PROGS(?:_EXTENDED)?|TEST_GEN_FILES|TEST_PROGS|TEST_FILES)\s*\+?:?=')


def code_of(line: str) -> str:
	"""LINE of C without its comments (a line inside a block comment:
	nothing)."""
	if re.match(r'\s*(?:\*|/\*)', line):
		return re.sub(r'.*\*/', '', line) if '*/' in line else ''
	return re.sub(r'//.*', '', re.sub(r'/\*.*?(?:\*/|$)', '', line))


def header_inline_findings(patch: str) -> List[str]:
	return [f'{f}: "{l}": a function in a header without inline'
		for f, l in diff_lines([patch], '+', '*.h') if not l.rstrip().endswith('\\')
		and (HEADER_STATIC_NOT_INLINE.match(l) or HEADER_BODY_NOT_INLINE.match(l))]


def source_inline_findings(patch: str) -> List[str]:
	def inline(sign: str) -> List[Tuple[str, str]]:
		return [(f, l) for f, l in diff_lines([patch], sign, '*.c')
			if re.search(r'\binline\b', code_of(l))]
	added, removed = inline('+'), inline('-')
	if len(added) <= len(removed):
		return []
	return [f'{f}: "{l}": inline in a .c file ({len(added)} added, {len(removed)} removed)'
		for f, l in added]


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
	sob = re.compile(r'^\s*Signed-off-by:\s*(.*)$', re.M | re.I)
	sobs = [identity(s) for s in sob.findall(commit_message(patch))]
	name, addr = identity(author.group(1))

	def signs(s: Tuple[str, str]) -> bool:
		return bool((addr and s[1] == addr) or (name and s[0] == name))
	found = []
	if not any(map(signs, sobs)):
		found.append(f'no Signed-off-by of the author, {author.group(1)}')
	elif not signs(sobs[-1]):
		found.append(f'the last Signed-off-by is not the sender\'s ({author.group(1)}), '
				     'who commits what he sends')
	return found


def sort_findings(path: str, text: str) -> List[str]:
	"""A selftest's config (by option, '_' aside, as netdev sorts it) or
	.gitignore: each entry after the one before it."""
	entries = [l.strip() for l in text.splitlines()
		   if l.strip() and not l.strip().startswith('#')]
	if path.endswith('/config'):
		entries = [e for e in entries if '=' in e]

	def key(e: str) -> str:
		return e.split('=')[0].strip().replace('_', '') if '=' in e else e
	return [f'{path}: {b} should come before {a}'
		for a, b in zip(entries, entries[1:]) if key(b) < key(a)]


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
			if len(var) < 3 or 'FLAGS' in var or 'LIBS' in var or \
			   (value.startswith('$') and value != '\\'):
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
			found.append(f'{path}: {v} is assigned in more than one block '
					     f'(line {nums[0]} and on)')
		items = [(n, x.strip().rstrip('\\').strip()) for n, x in b
			 if not x.strip().startswith('#')]
		if len(b) > 1 and not b[-1][1].strip().startswith('#'):
			found.append(f'{path}:{b[-1][0]}: {v}\'s block does not end '
					     'in a comment line')
		found += [f'{path}:{n}: {v}: "{x}", more than one item on the line'
			  for n, x in items if ' ' in x and '$' not in x]
		found += [f'{path}:{n2}: {v}: {x2} should come before {x1}'
			  for (_, x1), (n2, x2) in zip(items, items[1:])
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
		if f not in new or not base.endswith(('.c', '.sh', '.py')) or \
		   base.endswith('.bpf.c'):
			continue
		mk = os.path.join(tree, d, 'Makefile')
		makefile = file_text(mk) if os.path.isfile(mk) else ''
		name = base[:-2] if base.endswith('.c') else base
		if not re.search(r'(?<![\w.-])' + re.escape(name) + r'(?![\w-])', makefile):
			found.append(f'{f}: not in {d}/Makefile')
		# A program of the Makefile: in a list of programs (its
		# continuation lines joined).
		named = re.compile(r'(?<![\w.-])' + re.escape(name) + r'(?![\w.-])')
		program = any(SELFTEST_PROGRAMS.match(l) and named.search(l)
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


# The checks, each a function of what it reads: the line's tree (Tree:
# its patches, files, line, options and output directories), an
# architecture, a variant. checks() lists them in the order they run.

def series_name(tree: Tree) -> str:
	return os.path.relpath(tree.line.series_dir, TOP)


def check_tags(tree: Tree) -> None:
	bad = [f'{os.path.relpath(p, TOP)}: \'{t}\' is outside the trailer block'
	       for p in tree.patches for t in tags_outside_trailers(p)]
	for b in bad:
		print(b, flush=True)
	if bad:
		raise HarnessError(f'{series_name(tree)}: tags outside the trailer block, '
					   'see above')
	note('tags: one trailer block in every patch (git interpret-trailers --parse)')


def pristine_files(tree: Tree) -> None:
	src = tree.source()
	for f in tree.files:
		a, b = os.path.join(src, f), os.path.join(tree.path, f)
		if os.path.exists(a):
			if not filecmp.cmp(a, b, shallow=False):
				raise HarnessError(f'quilt pop -a left {f} different from {src}')
		elif os.path.exists(b):
			raise HarnessError(f'quilt pop -a left {f}, which the series creates')


def quilt_round_trip(tree: Tree) -> None:
	tree.pristine()
	pristine_files(tree)
	tree.patched()
	tree.pristine()
	pristine_files(tree)
	note('quilt push -a --fuzz=0, pop -a: every touched file byte-identical '
	     'to the pristine tree')


def git_am_check(tree: Tree) -> None:
	"""git am of the series onto a git repository of the files it
	touches, pristine (OUT/LINE/git-am)."""
	src = tree.source()
	repo = os.path.join(tree.line_out, 'git-am')
	shutil.rmtree(repo + '.git', ignore_errors=True)
	pristine_repo(repo + '.git', src,
		      [f for f in tree.files if os.path.exists(os.path.join(src, f))], 'base')
	git_am(repo, tree.patches, f'git am of {series_name(tree)}', origin=repo + '.git')
	last = output(['git', '-C', repo, 'log', '-1', '--format=%s']).strip()
	note(f'git am: {len(tree.patches)} commits, the last: {last}')


def checkpatch_check(tree: Tree) -> None:
	"""checkpatch as NIPA runs it on each patch."""
	if [p for p in tree.patches if checkpatch(p, tree.path)]:
		raise HarnessError(f'checkpatch (NIPA\'s flags): {series_name(tree)} is not clean')


def netdev_checks(tree: Tree) -> None:
	"""NETDEV_CHECKS on each patch, the tree at patched."""
	bad = []
	for name, check in NETDEV_CHECKS:
		found = [f'{name}: {os.path.basename(p)}: {f}'
			 for p in tree.patches for f in check(p, tree.path)]
		for f in found:
			print(f, flush=True)
		bad += [name] if found else []
		if not found:
			note(f'{name}: {len(tree.patches)} patches clean')
	if bad:
		raise HarnessError(f'netdev\'s {", ".join(bad)}: {series_name(tree)} is not clean, '
					   'see above')


def patch_checks(tree: Tree) -> None:
	"""checkpatch and netdev's other patch checks, the tree at patched
	(check_selftest reads it): each one's findings shown before any
	fails."""
	tree.move_to('patched')
	failed: List[str] = []
	checks: List[Callable[[], None]] = [partial(checkpatch_check, tree),
							    partial(netdev_checks, tree)]
	for check in checks:
		try:
			check()
		except HarnessError as e:
			failed.append(str(e))
	if failed:
		raise HarnessError('; '.join(failed))


def sparse_path(tree: Tree) -> str:
	"""The CHECK= of the check builds: sid's sparse (sparse_wrapper())."""
	return os.path.join(tree.opts.out, 'sparse', 'sparse')


def sparse_check(tree: Tree) -> None:
	check = sparse_wrapper(sparse_root(tree.opts), sparse_path(tree))
	note(f'{check}: sparse {output([check, "--version"]).strip()}')


def kerneldoc_path(tree: Tree, variant: str) -> str:
	return os.path.join(tree.logs, f'kernel-doc-{variant}.txt')


def kerneldoc(tree: Tree, variant: str) -> None:
	"""kernel-doc's warnings on the touched files, line numbers dropped,
	into kerneldoc_path()."""
	kd = os.path.join(tree.path, 'scripts', 'kernel-doc')
	# 6.1's kernel-doc warns without being asked and knows no -Wall.
	helped = run([kd, '-h'], capture='all', check=False, quiet=True).stdout
	wall = ['-Wall'] if '-Wall' in helped else []
	lines: Set[str] = set()
	for f in tree.files:
		if f.endswith(('.c', '.h')) and os.path.isfile(os.path.join(tree.path, f)):
			argv = ['scripts/kernel-doc', '-none', *wall, f]
			out = str(run(argv, cwd=tree.path, capture='all', check=False).stdout)
			lines.update(re.sub(r'\.([ch]):[0-9]+:?', r'.\1:', l)
				     for l in out.splitlines() if l)
	with open(kerneldoc_path(tree, variant), 'w') as fh:
		fh.write(''.join(l + '\n' for l in sorted(lines)))


def has_selftest(tree: Tree) -> bool:
	return any(f.startswith(SELFTEST + '/') for f in tree.files)


def kselftest_check(tree: Tree) -> None:
	"""The selftest built as CI systems build it, in the tree at patched
	(the builds' output outside it)."""
	tree.move_to('patched')
	out = os.path.join(tree.line_out, 'kselftest-check')
	shutil.rmtree(out, ignore_errors=True)
	for name, argv in kselftest_argvs(tree.path, out, tree.opts.jobs):
		run(argv, log=os.path.join(tree.logs, name + '.log'), what=name)
	builds = kselftest_builds()
	bad = [elf_problem(os.path.join(out, f'{a.name}-{cc}-{bits}', 'kselftest', 'connector',
					   'cn_proc_test'), a, bits)
	       for a, cc, bits, _ in builds]
	bad = [b for b in bad if b]
	for b in bad:
		print(f'error: {b}', flush=True)
	if bad:
		raise HarnessError('the selftest\'s builds did not make their programs, see above')
	note('the selftest: ' + ', '.join(f'{a.name} {cc} {bits}-bit' for a, cc, bits, _ in builds)
	     + ': built with -Werror')


def objects(tree: Tree, files: Optional[Sequence[str]] = None) -> List[str]:
	"""The objects of FILES (the series' by default) that the
	configuration builds (cn_proc.o only with CONFIG_PROC_EVENTS, and so
	on: the Makefile names them); none of tools/ (the kselftest's
	patch), which kbuild does not build."""
	objs = []
	for f in tree.files if files is None else files:
		# tools/ (the kselftest) is no kbuild object.
		if f.endswith('.c') and not f.startswith('tools/'):
			o = f[:-2] + '.o'
			mk = os.path.join(tree.path, os.path.dirname(f), 'Makefile')
			if os.path.basename(o) in file_text(mk):
				objs.append(o)
	return objs


def unchanged_by_base(tree: Tree) -> List[str]:
	"""The files the rest of the series changes and base does not: the
	code of their objects must be the same in the pristine tree and at
	base, or base is no reference for the series' fixes."""
	at_base = set(patch_files(tree.base_patches))
	rest = [p for p in tree.patches if p not in tree.base_patches]
	return [f for f in patch_files(rest) if f not in at_base]


def variant_objects(tree: Tree, variant: str) -> List[str]:
	"""What a check build of VARIANT builds: at base, only the objects
	whose code must not change; else every object of the series."""
	return objects(tree, unchanged_by_base(tree)) if variant == 'base' else objects(tree)


def check_id(tree: Tree, arch: Arch, variant: str, frags: List[str], objs: List[str]) -> str:
	"""The key of what a check build's result depends on: the objects it
	builds too (a series that moves its code changes them; and their
	directories where it builds them whole), sparse's version, and what
	the tree has of the series."""
	targets = check_targets(arch, variant, objs)
	parts = [tree.id, *map(file_text, frags), tool_versions(arch),
		 make_argv_id(arch, *CHECK_FLAGS, *targets), *(objs if targets != objs else ()),
		 output([sparse_path(tree), '--version'])]
	if variant == 'base':
		parts.append(tree.base_digest)
	elif variant != 'pristine':
		parts.append(tree.digest)
	return cache_key(*parts)


def check_argv(tree: Tree, arch: Arch, build: str, targets: List[str]) -> List[str]:
	return kmake_argv(tree.path, build, arch, tree.opts.jobs, *CHECK_FLAGS,
			  f'CHECK={sparse_path(tree)}', *targets)


def check_dir(tree: Tree, arch: Arch, flavour: str, variant: str) -> str:
	return os.path.join(tree.logs, f'check-{arch.name}-{flavour}-{variant}')


def warnings_of(tree: Tree, log: str) -> List[str]:
	"""The warnings and errors of a build's LOG, the tree's path and line
	numbers dropped (so that variants compare)."""
	return sorted({re.sub(r':[0-9]+(:[0-9]+)?:', ':', l.replace(tree.path + '/', ''), count=1)
		       for l in file_text(log).splitlines() if 'warning:' in l or 'error:' in l})


def check_build(tree: Tree, arch: Arch, flavour: str, variant: str, newest: bool) -> None:
	"""sparse and W=1 on the objects of VARIANT (variant_objects()), the
	build's log, its warnings and each object's objdump -dr (OBJ.dis) in
	check_dir(), built in the boot test's build directory of the
	architecture and flavour (the same .config); at patched on the
	NEWEST line, the series' headers alone (header_alone()). A build in
	which kbuild ran no sparse on each object fails. Cached by
	check_id(), so an unchanged check is not rebuilt."""
	out = check_dir(tree, arch, flavour, variant)
	objs = variant_objects(tree, variant)
	targets = check_targets(arch, variant, objs)
	what = f'{arch.name} {flavour} {variant}: ' + ' '.join(
		t if t.endswith('/') else os.path.basename(t) for t in targets)
	kernels = Kernels(tree, tree.opts)
	frags = config_fragments(tree.opts, arch, flavour, kernels.extra_fragments(arch))
	build = kernels.build_dir(arch, flavour)
	key = check_id(tree, arch, variant, frags, objs)
	if cache_get('checks', key, out):
		note_warnings(what, out, objs, f' (from the cache, {key})')
		return
	configure(tree, build, arch, frags,
		  os.path.join(tree.logs, f'config-check-{arch.name}-{flavour}.log'),
		  tree.opts.jobs)
	log = os.path.join(out, 'log')
	# Every object the build is to compile, so that it shows each one's
	# warnings.
	for t in targets:
		whole = t.endswith('/')
		for o in glob.glob(os.path.join(build, t, '*.o')) if whole else \
				[os.path.join(build, t)]:
			if os.path.exists(o):
				os.remove(o)
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	run(check_argv(tree, arch, build, targets), log=log, what=f'{what} build')
	with open(os.path.join(out, 'warnings'), 'w') as f:
		f.write(''.join(w + '\n' for w in warnings_of(tree, log)))
	for o in objs:
		# Relative, so that no path of this build is in it.
		with open(os.path.join(out, os.path.basename(o) + '.dis'), 'w') as f:
			f.write(output([arch.cross_compile + 'objdump', '-dr', o], cwd=build))
	if variant == 'patched' and headers_checked(arch, newest):
		header_alone(tree, arch, build, out, objs)
	note_warnings(what, out, objs, '')
	cache_put(out, 'checks', key)


def headers_checked(arch: Arch, newest: bool) -> bool:
	"""The series' headers are compiled alone on the static-only
	architectures of the newest line: 6.1's <linux/timekeeping.h> does
	not stand alone in the pristine tree (it needs <linux/ktime.h>
	first)."""
	return not arch.boots and newest


def series_headers(tree: Tree) -> List[str]:
	"""The kernel headers the series changes (include/linux/)."""
	return [f for f in tree.files if re.fullmatch(r'include/linux/[\w/-]+\.h', f)]


def header_alone(tree: Tree, arch: Arch, build: str, out: str, objs: Sequence[str]) -> None:
	"""Into OUT, the results header_alone_problems() judges: for each
	header the series changes, a translation unit of that header alone
	that defines each struct the series adds to it, compiled as kbuild
	compiled the first of OBJS (W=1; HEADER_ALONE-N.log), and the
	include closure (gcc -H) of each header the series makes it include,
	beside the headers that include it (CLOSURE-N.txt)."""
	cmds = (os.path.join(build, os.path.dirname(o), f'.{os.path.basename(o)}.cmd')
		for o in objs)
	cmd_files = [c for c in cmds if os.path.isfile(c)]
	if not cmd_files:
		raise HarnessError(f'{arch.name}: no .o.cmd of {" ".join(objs)} in {build}')
	for i, h in enumerate(series_headers(tree)):
		name = h[len('include/'):]
		structs = [m.group(1) for _, l in diff_lines(tree.patches, '+', h)
			   for m in [re.match(r'struct (\w+) \{', l)] if m]
		tu = (f'// SPDX-License-Identifier: GPL-2.0\n'
		      f'/* <{name}> alone (scripts/harness_static.py) */\n#include <{name}>\n\n'
		      + ''.join(f'struct {t} header_alone_{t};\n' for t in structs))
		src = os.path.join(out, f'{HEADER_ALONE}-{i}.c')
		with open(src, 'w') as f:
			f.write(tu)
		compile_like(cmd_files[0], src, build, os.path.join(out, f'{HEADER_ALONE}-{i}.log'))
		# Who includes H: the closure of what H includes must reach none.
		includers = [os.path.relpath(f, tree.path) for f in sorted(
			glob.glob(os.path.join(tree.path, 'include', '**', '*.h'), recursive=True))
			if re.search(r'^\s*#\s*include\s*<' + re.escape(name) + '>',
				     file_text(f), re.M)]
		for j, inc in enumerate(m.group(1) for _, l in diff_lines(tree.patches, '+', h)
					for m in [re.match(r'#\s*include\s*<([^>]+)>', l)] if m):
			stem = os.path.join(out, f'{CLOSURE}-{i}-{j}')
			with open(stem + '.c', 'w') as f:
				f.write(f'#include <{inc}>\n')
			proc = compile_like(cmd_files[0], stem + '.c', build, stem + '.log', '-H')
			closure = include_closure(str(proc.stderr), tree.path)
			with open(stem + '.txt', 'w') as f:
				f.write(' '.join([h, *includers]) + '\n'
					+ ''.join(c + '\n' for c in closure))
			note(f'{arch.name}: <{inc}>, which the series includes in {h}: '
			     f'{len(closure)} headers (gcc -H), {CLOSURE}-{i}-{j}.txt')


def compile_like(cmd_file: str, src: str, build: str, log: str,
		 *flags: str) -> 'subprocess.CompletedProcess[str]':
	"""SRC compiled as CMD_FILE's object was (in BUILD), its output in
	LOG, and a line 'exit status N' there if it failed."""
	argv = compile_argv(cmd_file, src, src[:-2] + '.o')
	proc = subprocess.run([argv[0], *flags, *argv[1:]], cwd=build, capture_output=True,
			      text=True, check=False)
	# Only the verdict's inputs go into the cache.
	if os.path.exists(src[:-2] + '.o'):
		os.remove(src[:-2] + '.o')
	with open(log, 'w') as f:
		f.write(proc.stderr if '-H' not in flags else
			''.join(l + '\n' for l in proc.stderr.splitlines()
				if not re.match(r'\.+ |Multiple include guards', l)
				and not l.startswith(('/', './'))))
		if proc.returncode:
			f.write(f'exit status {proc.returncode}\n')
	return proc


def allmod_dir(tree: Tree, variant: str) -> str:
	return os.path.join(tree.logs, f'allmodconfig-{variant}')


def allmod_build(tree: Tree, variant: str) -> None:
	"""netdev's minimum build (maintainer-netdev.rst): allmodconfig, W=1,
	of the directories of the series' objects, with gcc, on x86_64, in
	its own build directory; its log and warnings (as check_build()'s) in
	allmod_dir(), cached under the source, compiler, commands and what
	the tree has of the series. allmodconfig makes CONNECTOR a module,
	and so no PROC_EVENTS: cn_proc.o is not among its objects. (Debian
	bookworm's clang 14 is older than 7.3's minimum, LLVM 17.)"""
	arch = load_arch('x86_64')
	out = allmod_dir(tree, variant)
	build = os.path.join(tree.line_out, 'build', 'allmodconfig')
	dirs = sorted({os.path.dirname(o) + '/' for o in objects(tree)})
	argv = kmake_argv(tree.path, build, arch, tree.opts.jobs, 'W=1', *dirs)
	key = cache_key(tree.id, tool_versions(arch), make_argv_id(arch, ALLMODCONFIG),
			make_argv_id(arch, 'W=1', *dirs),
			*([tree.digest] if variant == 'patched' else []))
	if cache_get('checks', key, out):
		n = len(file_text(os.path.join(out, 'warnings')).splitlines())
		note(f'allmodconfig {variant}: {n} warnings (from the cache, {key})')
		return
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	for d in dirs:
		for o in glob.glob(os.path.join(build, d, '*.o')):
			os.remove(o)
	if not os.path.isfile(os.path.join(build, '.config')):
		run(kmake_argv(tree.path, build, arch, tree.opts.jobs, ALLMODCONFIG),
		    log=os.path.join(tree.logs, 'config-allmodconfig.log'))
	run(argv, log=os.path.join(out, 'log'), what=f'allmodconfig {variant} build')
	warnings = warnings_of(tree, os.path.join(out, 'log'))
	with open(os.path.join(out, 'warnings'), 'w') as f:
		f.write(''.join(w + '\n' for w in warnings))
	note(f'allmodconfig {variant}: {" ".join(dirs)}: {len(warnings)} warnings')
	cache_put(out, 'checks', key)


def note_warnings(what: str, out: str, objs: Sequence[str], suffix: str) -> None:
	n = len(file_text(os.path.join(out, 'warnings')).splitlines())
	# Kbuild says so, and goes on without sparse, when it cannot check
	# the tree: the check then checks nothing of sparse's.
	problems = sparse_ran(os.path.join(out, 'log'), objs)
	if problems:
		raise HarnessError(f'{what}: {"; ".join(problems)} '
					   f'(see {os.path.join(out, "log")})')
	note(f'{what}: {n} warnings{suffix}')


def no_new(what: str, base: str, patched: str) -> None:
	old = set(file_text(base).splitlines())
	new = [l for l in file_text(patched).splitlines() if l not in old]
	if new:
		print('\n'.join(new), flush=True)
		raise HarnessError(f'{what}: the series adds the warnings above')
	note(f'{what}: no new warning ({len(old)} in the pristine tree)')


def headers_alone(tree: Tree, what: str, out: str) -> None:
	problems = header_alone_problems(out)
	for p in problems:
		print(p, flush=True)
	if problems:
		raise HarnessError(f'{what}: the series\' headers do not stand alone, '
					   f'see above ({out})')
	note(f'{what}: {", ".join(series_headers(tree))} alone: no warning (W=1); '
	     'no include cycle (gcc -H)')


def same_code(tree: Tree, arch: Arch, flavour: str) -> None:
	"""The objdump -dr of each object that base builds the same in the
	check builds of the pristine tree and of base: base's patches change no
	instruction and no relocation of them."""
	what = f'{arch.name} {flavour}'
	for o in variant_objects(tree, 'base'):
		a, b = (os.path.join(check_dir(tree, arch, flavour, v),
				     os.path.basename(o) + '.dis')
			for v in ('pristine', 'base'))
		if file_text(a) != file_text(b):
			raise HarnessError(f'{what}: {o} compiles to other code at base (the '
					   'series\' patches without cn_proc\'s) than in the pristine tree: '
					   f'the boot test\'s base is no reference (diff {a} {b})')
		note(f'{what}: {o}: the same code in the pristine tree and at base '
		     f'({len(file_text(a).splitlines())} lines of objdump -dr)')


Step = Tuple[str, Callable[[], None]]


def checks(tree: Tree, newest: bool) -> List[Step]:
	"""(stage, check) of each static check after the tags and the tree,
	in the order they run: the patch checks; each variant's builds and
	kernel-doc, every variant's on the same tree; then the comparisons
	of their results. NEWEST: the newest line's (the posted series)."""
	configs = [(load_arch(a), f) for a, f in tree.line.static_checks]
	steps: List[Step] = [
		('quilt round trip', partial(quilt_round_trip, tree)),
		('git am', partial(git_am_check, tree)),
		('netdev\'s patch checks (NIPA\'s): checkpatch, header_inline, source_inline, '
		 'verify_signedoff, check_selftest', partial(patch_checks, tree)),
		(f'sparse (Debian {SPARSE_SUITE})', partial(sparse_check, tree))]
	for v in VARIANTS:
		steps.append((f'tree at {v}', partial(tree.move_to, v)))
		if v != 'base':
			steps.append((f'kernel-doc {v}', partial(kerneldoc, tree, v)))
		steps += [(f'{v} {a.name} {f}: sparse, W=1',
			   partial(check_build, tree, a, f, v, newest)) for a, f in configs]
		if v != 'base' and newest:
			steps.append((f'{v} allmodconfig (netdev\'s minimum build): W=1',
				      partial(allmod_build, tree, v)))
	if has_selftest(tree):
		steps.append(('the selftest\'s builds', partial(kselftest_check, tree)))
	steps.append(('kernel-doc: new warnings', partial(
		no_new, 'kernel-doc -none', kerneldoc_path(tree, 'pristine'),
		kerneldoc_path(tree, 'patched'))))
	if newest:
		steps.append(('allmodconfig: new warnings', partial(
			no_new, 'allmodconfig W=1', *(os.path.join(allmod_dir(tree, v), 'warnings')
						      for v in ('pristine', 'patched')))))
	for a, f in configs:
		steps.append((f'{a.name} {f}: new warnings', partial(
			no_new, f'{a.name} {f}',
			*(os.path.join(check_dir(tree, a, f, v), 'warnings')
			  for v in ('pristine', 'patched')))))
		steps.append((f'{a.name} {f}: base\'s code of what the fix changes',
			      partial(same_code, tree, a, f)))
		if headers_checked(a, newest):
			steps.append((f'{a.name} {f}: the series\' headers alone, no include cycle',
				      partial(headers_alone, tree, f'{a.name} {f}',
						check_dir(tree, a, f, 'patched'))))
	return steps


def static_checks(line: KernelLine, opts: Options, newest_name: str) -> int:
	"""The static checks of LINE's series, on its private tree: the
	tags first (no tree needed), then each of checks() in a stage."""
	tree = Tree(line, opts)
	n = line.name
	with stage(f'{n}: tags'):
		check_tags(tree)
	with stage(f'{n}: tree'):
		tree.prepare()
	with tree.check_builds_only():
		for name, check in checks(tree, n == newest_name):
			with stage(f'{n}: {name}'):
				check()
	print(f'{n}: static checks clean', flush=True)
	return 0
