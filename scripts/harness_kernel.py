# SPDX-License-Identifier: GPL-2.0
"""From a kernel line to a bootable image: the line's private tree
(pristine, at base, at the whole series or at a mutant), its
configurations, its builds, and the image cache.

A kernel is (ARCH, FLAVOUR, VARIANT) of a line: configs/arch/ARCH.py and
configs/flavours/FLAVOUR.config on tinyconfig, built as base (the
series' patches that leave cn_proc.c as the line ships it:
harness_config.base_patches()), patched (the whole series) or a mutant
(tests/mutants/NAME.patch on the series). The variants of one
architecture and flavour share a build directory: base first, the others
incremental rebuilds (the rest of the series changes the connector and
the uapi cn_proc.h, not the headers nearly every object includes). The pristine tree is built only by the static checks. Images are
cached under image_id(), the key of all they are built from, so that
another clone or a rerun boots them unbuilt.
"""

import contextlib
import functools
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import types
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from harness_arch import Arch, Kernel
from harness_config import (CONFIGS, KernelLine, Options, base_patches, required_mutant_patch,
			    series_patches)
import harness_util
from harness_util import (SCRIPTS, TOP, HarnessError, cache_dir, cache_get, cache_key,
			  cache_made, cache_path, cache_put, debs_argv,
			  file_id, file_text, note, output, run, stage)

# The series' helper, whose instructions a build keeps beside the image
# (tests/litmus/ models arm64's), with those of the out-of-line atomics it
# calls; and what an image's cache entry holds.
HELPER_SYMBOL = 'ktime_stamp_ns'
ATOMIC_CALLEE = re.compile(r'\sbl\s+([0-9a-f]+) <(__(?:cmpxchg|ll_sc|lse)\w*)>')
IMAGE_ENTRY_CONTENTS = (f'the image, id, helper.dis ({HELPER_SYMBOL} and the '
			f'{ATOMIC_CALLEE.pattern} it calls)')


def patch_files(patches: Iterable[str]) -> List[str]:
	"""The files the patches create or change."""
	files = set()
	for p in patches:
		files.update(re.findall(r'^\+\+\+ b/(\S+)', file_text(p), re.M))
	return sorted(files)


def overlay_argv(tree: str, patch: str) -> List[str]:
	"""patch applying PATCH, a test-only change (a mutant), to TREE at the
	series: exactly, as the boot test applies it."""
	return ['patch', '-d', tree, '-p1', '-s', '--batch', '--fuzz=0', '-i', patch]


def series_digest(patches: Iterable[str]) -> str:
	"""What the series changes, commit messages aside."""
	parts = []
	for p in patches:
		text = file_text(p)
		parts += [os.path.basename(p), text[text.find('\n--- '):]]
	return cache_key(*parts)


# The tree's quilt series files (QUILT_SERIES): the whole series, and
# base's (base_patches(), in the series' order).
SERIES, BASE_SERIES = 'series', 'series.base'

# With --no-cache, the trees this process has copied afresh (with their
# build directories gone): once each, however many commands use them.
_made_afresh = set()


class Tree:
	"""A line's private tree, OUT/LINE/tree: a copy of KSRC (which is never
	touched) or of the Debian package's source in the cache (hard-linked
	where the file system allows: quilt and patch replace a file they
	change, never write into it): pristine, at base (base_patches(), quilt's
	series.base), at the whole series, or at the series plus a test-only
	overlay (a mutant)."""

	def __init__(self, line: KernelLine, opts: Options):
		self.line = line
		self.opts = opts
		# The line's output directory.
		self.line_out = os.path.join(opts.out, line.name)
		self.path = os.path.join(self.line_out, 'tree')
		self.logs = os.path.join(opts.out, 'logs', line.name)
		self.patches = series_patches(line.series_dir)
		self.base_patches = base_patches(line.series_dir)
		self.files = patch_files(self.patches)
		self.digest = series_digest(self.patches)
		self.base_digest = series_digest(self.base_patches)
		self._overlay = os.path.join(self.path, '.cn-proc-overlay')
		# Which series file quilt applied the tree's patches from.
		self._series_file = os.path.join(self.path, '.cn-proc-series')
		self._source: Optional[str] = None
		os.makedirs(self.logs, exist_ok=True)

	def source(self) -> str:
		"""The pristine source the tree is copied from: KSRC, or the
		package's, fetched and unpacked into the cache by scripts/source.sh."""
		if self._source is None:
			if self.opts.ksrc:
				self._source = os.path.realpath(self.opts.ksrc)
			else:
				self._source = fetch_source(self.line, self.opts)
		return self._source

	def source_at_hand(self) -> bool:
		"""Whether the tree has a source without fetching one: KSRC, or
		the newest of the line's package in the cache (then source())."""
		if self._source is None:
			self._source = os.path.realpath(self.opts.ksrc) if self.opts.ksrc \
				else cached_source(self.line)
		return self._source is not None

	def source_id(self) -> str:
		"""What the tree is copied from; a change makes every build stale."""
		src = self.source()
		if not self.opts.ksrc:
			return file_text(os.path.join(src, '.unpacked')).strip()
		stamps = []
		for root, dirs, files in os.walk(src):
			dirs[:] = [d for d in dirs if d != '.git']
			for f in files:
				st = os.lstat(os.path.join(root, f))
				stamps.append(f'{st.st_mtime} {st.st_size} '
					      f'{os.path.relpath(root, src)}/{f}')
		return f'ksrc {src} {cache_key(*sorted(stamps))}'

	@property
	def id(self) -> str:
		return file_text(os.path.join(self.line_out, 'tree.id')).strip()

	def prepare(self) -> None:
		"""A fresh copy of the pristine source, unless the tree is one of
		the same source already."""
		src = self.source()
		id_file = os.path.join(self.line_out, 'tree.id')
		tmp = self.path + '.tmp'
		sid = self.source_id()
		fresh = self.opts.no_cache and self.path not in _made_afresh
		if not fresh and os.path.isdir(self.path) and os.path.isfile(id_file) and \
		   file_text(id_file).strip() == sid:
			return
		_made_afresh.add(self.path)
		for d in (self.path, tmp, os.path.join(self.line_out, 'build'),
			  os.path.join(self.line_out, 'kernels')):
			shutil.rmtree(d, ignore_errors=True)
		if os.path.exists(id_file):
			os.remove(id_file)
		os.makedirs(tmp)
		if self.opts.ksrc:
			# A copy the user's tree cannot be reached through.
			tar = (f'tar -C {shlex.quote(src)} --exclude=.git --exclude=.pc '
			       f'--exclude=./patches -cf - . | tar -C {shlex.quote(tmp)} -xf -')
			harness_util.run(['bash', '-o', 'pipefail', '-c', tar],
					 what=f'copying {src}')
			if any(os.path.exists(os.path.join(tmp, f))
			       for f in ('.config', 'include/config/auto.conf')):
				harness_util.run(['make', '-C', tmp, '-s', 'mrproper'])
		elif harness_util.run(['cp', '-al', src + '/.', tmp], check=False).returncode != 0:
			note('cannot hard-link the source (another file system?): copying it')
			shutil.rmtree(tmp)
			harness_util.run(['cp', '-a', src, tmp])
		os.rename(tmp, self.path)
		with open(id_file, 'w') as f:
			f.write(sid + '\n')

	def _quilt(self, *args: str, series: str = SERIES, check: bool = True,
		   log: Optional[str] = None) -> subprocess.CompletedProcess:
		return run(['quilt', *args], cwd=self.path, check=check, log=log,
			   env={'QUILT_PATCHES': 'patches', 'QUILT_PC': '.pc',
				'QUILT_SERIES': series})

	def _stack(self, series: str) -> List[str]:
		return self.base_patches if series == BASE_SERIES else self.patches

	def _current_series(self) -> str:
		return file_text(self._series_file).strip() \
			if os.path.isfile(self._series_file) else SERIES

	def _stamps(self) -> Dict[str, Tuple[Optional[str], int]]:
		"""Each file the series or an overlay touches: (its content's
		SHA256 or None if it is absent, its mtime in ns)."""
		files = set(self.files)
		if os.path.isfile(self._overlay):
			files.update(patch_files([self._overlay]))
		out = {}
		for f in sorted(files):
			p = os.path.join(self.path, f)
			out[f] = (file_id(p), os.stat(p).st_mtime_ns) if os.path.isfile(p) \
				else (None, 0)
		return out

	@staticmethod
	def _set_mtime(path: str, ns: Optional[int] = None) -> None:
		"""PATH's mtime set (to now, or NS), on an inode of the tree's own:
		a file still hard-linked to the cache's source is copied first, so
		that no other tree of that source sees its time change."""
		if os.stat(path).st_nlink > 1:
			shutil.copy2(path, path + '.own')
			os.replace(path + '.own', path)
		if ns is None:
			os.utime(path)
		else:
			os.utime(path, ns=(ns, ns))

	def _settle(self, before: Dict[str, Tuple[Optional[str], int]]) -> None:
		"""Kbuild decides by mtime, and a file quilt or patch restored keeps
		its old one: after a move, a file whose content changed gets the
		time of now, and one whose content is what it was before the move
		gets its mtime of then back (as if the move had not touched it), so
		that e.g. the header patch 1 changes, which nearly every object
		includes, does not make the next build a full one when a
		different series is applied again."""
		after = self._stamps()
		for f, (sha, _) in after.items():
			if sha is None:
				continue
			old_sha, old_mtime = before.get(f, (None, 0))
			p = os.path.join(self.path, f)
			if sha == old_sha:
				if os.stat(p).st_mtime_ns != old_mtime:
					self._set_mtime(p, old_mtime)
			else:
				self._set_mtime(p)

	@contextlib.contextmanager
	def check_builds_only(self) -> Iterator[None]:
		"""A tour of the tree's states in which only the static checks
		build (make C=2 W=1 of single objects, whose command line differs
		from a boot build's, so that Kbuild rebuilds for a boot build
		whatever they built). Left without an error, each file that is
		back to its content of the tour's start gets its mtime of then:
		the boot builds' directories see no change, and the tree's visit
		to pristine costs them no rebuild. Left by an error, every changed
		file keeps the time of now (a needless rebuild at worst)."""
		before = self._stamps()
		yield
		after = self._stamps()
		for f, (sha, _) in after.items():
			if sha is not None and before.get(f, (None, 0))[0] == sha and \
			   os.stat(os.path.join(self.path, f)).st_mtime_ns != before[f][1]:
				self._set_mtime(os.path.join(self.path, f), before[f][1])

	def _applied(self, series: str) -> Optional[int]:
		"""How many patches of SERIES (a series file of the tree's) are
		applied; None if the tree carries another series, the same applied
		from its other series file, or a broken quilt state."""
		pc = os.path.join(self.path, '.pc')
		if not os.path.isdir(pc):
			return 0
		applied = os.path.join(self.path, 'patches')
		if not os.path.isfile(os.path.join(applied, SERIES)) or \
		   series_digest(series_patches(applied)) != self.digest or \
		   self._current_series() != series:
			return None
		stack = os.path.join(pc, 'applied-patches')
		names = file_text(stack).split() if os.path.isfile(stack) else []
		want = [os.path.relpath(p, self.line.series_dir) for p in self._stack(series)]
		return len(names) if names == want[:len(names)] else None

	def _remove_overlay(self) -> None:
		if not os.path.isfile(self._overlay):
			return
		proc = run(['patch', '-d', self.path, '-p1', '-R', '-s', '--batch',
			    '--no-backup-if-mismatch', '-i', self._overlay], check=False)
		if proc.returncode:
			raise HarnessError(f'could not remove the test overlay from {self.path}; '
					   'delete it and rerun')
		os.remove(self._overlay)

	def _pop_all(self) -> None:
		"""No patch applied, no quilt state: the pristine source."""
		if os.path.isdir(os.path.join(self.path, '.pc')) and \
		   self._quilt('pop', '-a', '-q', series=self._current_series(),
			       check=False).returncode:
			raise HarnessError(f'quilt pop -a failed in {self.path}; '
					   'delete it and rerun')
		shutil.rmtree(os.path.join(self.path, 'patches'), ignore_errors=True)
		shutil.rmtree(os.path.join(self.path, '.pc'), ignore_errors=True)
		if os.path.isfile(self._series_file):
			os.remove(self._series_file)

	def _apply(self, n: int, series: str = SERIES) -> None:
		"""The first N patches of SERIES (the line's whole series, or
		base's) applied with quilt, exactly (--fuzz=0), and no overlay. A
		patch that does not apply leaves the tree pristine and fails naming
		it."""
		self._remove_overlay()
		have = self._applied(series)
		if have is None:
			self._pop_all()
			have = 0
		if n == 0:
			self._pop_all()
			return
		applied = os.path.join(self.path, 'patches')
		if have == 0:
			self._pop_all()
			os.makedirs(applied)
			shutil.copy(os.path.join(self.line.series_dir, SERIES), applied)
			with open(os.path.join(applied, BASE_SERIES), 'w') as f:
				f.writelines(os.path.relpath(p, self.line.series_dir) + '\n'
					     for p in self.base_patches)
			# A series may list patches in subdirectories (another posting's).
			for p in self.patches:
				dest = os.path.join(applied, os.path.relpath(p, self.line.series_dir))
				os.makedirs(os.path.dirname(dest), exist_ok=True)
				shutil.copy(p, dest)
			with open(self._series_file, 'w') as f:
				f.write(series + '\n')
		if have > n:
			if self._quilt('pop', '-q', str(have - n), series=series,
				       check=False).returncode:
				raise HarnessError(f'quilt pop failed in {self.path}; '
						   'delete it and rerun')
		elif have < n:
			log = os.path.join(self.logs, 'quilt-push.log')
			if self._quilt('push', '--fuzz=0', str(n - have), series=series,
				       check=False, log=log).returncode:
				text = file_text(log)
				failed = re.findall(r'^Applying patch (.*)$', text, re.M)
				rej = re.search(r'FAILED -- rejects in file (.*)$', text, re.M)
				self._pop_all()
				raise HarnessError(
					f'{os.path.relpath(self.line.series_dir, TOP)}/'
					f'{os.path.basename(failed[-1]) if failed else "?"}'
					f' does not apply with --fuzz=0 to {self.source()}: '
					f'{rej.group(1) if rej else "see " + log}')

	def _move(self, n: int, overlay: Optional[str] = None, series: str = SERIES) -> None:
		before = self._stamps()
		try:
			self._apply(n, series)
			if overlay:
				self._add_overlay(overlay)
		finally:
			self._settle(before)

	def pristine(self) -> None:
		"""The pristine tree: no patch of the series (only the static
		checks build it, as their reference)."""
		self._move(0)

	def base(self) -> None:
		"""The boot test's base: the series' patches that leave cn_proc.c as
		the line ships it (harness_config.base_patches())."""
		self._move(len(self.base_patches), series=BASE_SERIES)

	def patched(self) -> None:
		"""The whole series."""
		self._move(len(self.patches))

	def _add_overlay(self, patch: str) -> None:
		base = overlay_argv(self.path, patch)
		if run(base + ['--dry-run'], check=False).returncode:
			raise HarnessError(f'{os.path.basename(patch)} does not apply on top '
					   f'of the {self.line.name} series')
		shutil.copy(patch, self._overlay)
		run(base + ['--no-backup-if-mismatch'])

	def overlay(self, patch: str) -> None:
		"""The series plus a test-only change."""
		self._move(len(self.patches), patch)

	def move_to(self, state: str) -> None:
		"""The tree moved to STATE: pristine, base, patched or a mutant's
		name."""
		if state == 'pristine':
			self.pristine()
		elif state == 'base':
			self.base()
		elif state == 'patched':
			self.patched()
		else:
			self.overlay(required_mutant_patch(state, self.opts.out))


def source_argv(deb: str, dest: str) -> List[str]:
	return [os.path.join(SCRIPTS, 'source.sh'), deb, dest]


def fetch_source(line: KernelLine, opts: Options) -> str:
	"""The line's pristine source: its Debian package (scripts/debs.sh)
	unpacked (scripts/source.sh) into the cache entry src/KEY, KEY the
	package's name and SHA256."""
	proc = harness_util.run(debs_argv(line.suite, line.package), capture='stdout', check=False,
		   env={'OUT': opts.out, 'DEBS_MIRROR': opts.debs_mirror})
	if proc.returncode or len(proc.stdout.split()) != 1:
		raise HarnessError(f'could not fetch {line.package} from {line.suite}')
	deb = proc.stdout.split()[0]

	def unpack(tmp: str) -> None:
		harness_util.run(source_argv(deb, tmp), what=f'unpacking {os.path.basename(deb)}')
	return cache_made('src', cache_key(file_id(deb)), unpack)


# Where a tree keeps kunit_tool, whose kunit_parser reads KTAP.
KUNIT_TOOL = 'tools/testing/kunit'


def newest_ksrc(opts: Options, chosen: Sequence[KernelLine], newest: KernelLine) -> str:
	"""KSRC if it is the newest line's tree (the first of CHOSEN, the
	lines the command works on), else ''."""
	if opts.ksrc and chosen[0].name == newest.name:
		return os.path.realpath(opts.ksrc)
	return ''


def newest_source(opts: Options, chosen: Sequence[KernelLine], newest: KernelLine) -> str:
	"""The newest line's pristine source, where KTAP's parser
	(KUNIT_TOOL), the kselftest headers and build system and the memory
	model come from: newest_ksrc(), else the Debian package's in the
	cache, fetched."""
	return newest_ksrc(opts, chosen, newest) or fetch_source(newest, opts)


def cached_source(line: KernelLine) -> Optional[str]:
	"""The newest version of the line's pristine source in the cache (its
	.unpacked says "PACKAGE VERSION"), by Debian's version order; None if
	there is none. Nothing is fetched."""
	base = os.path.join(cache_dir(), 'src')
	found = {}
	for d in os.listdir(base) if os.path.isdir(base) else []:
		entry = os.path.join(base, d)
		stamp = os.path.join(entry, '.unpacked')
		if os.path.isfile(os.path.join(entry, 'SHA256SUMS')) and os.path.isfile(stamp):
			pkg, _, version = file_text(stamp).strip().partition(' ')
			if pkg == line.package:
				found[version] = entry
	if not found:
		return None

	def older(a: str, b: str) -> int:
		lt = run(['dpkg', '--compare-versions', a, 'lt', b], check=False, quiet=True)
		return -1 if lt.returncode == 0 else 1
	return found[sorted(found, key=functools.cmp_to_key(older))[-1]]


# Configurations and builds ----------------------------------------------

def kmake_argv(tree: str, build: str, arch: Arch, jobs: int, *targets: str) -> List[str]:
	"""make in an out-of-tree build directory for ARCH."""
	return ['make', '-C', tree, f'O={build}', f'ARCH={arch.linux_arch}',
		f'CROSS_COMPILE={arch.cross_compile}', f'-j{jobs}', *targets]


def config_fragments(opts: Options, arch: Arch, flavour: str,
		     extra: Sequence[str] = ()) -> List[str]:
	"""What configure() merges onto tinyconfig, in order; the last to name
	an option wins. The architecture's kconfig is written out for
	merge_config.sh."""
	arch_frag = os.path.join(opts.out, 'kconfig', arch.name + '.config')
	os.makedirs(os.path.dirname(arch_frag), exist_ok=True)
	if not os.path.isfile(arch_frag) or file_text(arch_frag) != arch.kconfig:
		with open(arch_frag, 'w') as f:
			f.write(arch.kconfig)
	return [os.path.join(CONFIGS, 'common.config'), arch_frag,
		os.path.join(TOP, 'tools/testing/selftests/connector/config'), *extra,
		os.path.join(CONFIGS, 'flavours', flavour + '.config')]


def make_argv_id(arch: Arch, *targets: str) -> str:
	"""kmake_argv() in a key: as run, but for the paths and -j, which
	change no output."""
	return shlex.join(kmake_argv('TREE', 'BUILD', arch, 1, *targets))


def config_id(tree_id: str, arch: Arch, frags: Sequence[str]) -> str:
	"""The key of a .config: the source, each fragment, the compiler and
	the commands make_config() runs."""
	return cache_key(tree_id, *map(file_text, frags), tool_versions(arch),
			 *(make_argv_id(arch, t) for t in CONFIG_TARGETS), MERGE_CONFIG)


def configure(tree: Tree, build: str, arch: Arch, frags: Sequence[str], log: str,
	      jobs: int) -> None:
	"""tinyconfig plus FRAGS into BUILD/.config, replaced only when it
	changes (so a rerun rebuilds nothing); every option the fragments ask
	for must survive olddefconfig. The .config is cached under the key of
	what it is made from, so that a second clone configures nothing."""
	key = config_id(tree.id, arch, frags)
	scratch = build + '.config'
	os.makedirs(build, exist_ok=True)
	if cache_get('configs', key, scratch):
		note(f'{arch.name} .config from the cache ({key})')
	else:
		make_config(tree.path, scratch, arch, frags, log, jobs)
		cache_put(scratch, 'configs', key)
	new, old = os.path.join(scratch, '.config'), os.path.join(build, '.config')
	if not os.path.isfile(old) or file_text(old) != file_text(new):
		shutil.copy(new, old)


# What make_config() runs: make tinyconfig, merge_config.sh -m of the
# fragments, make olddefconfig.
CONFIG_TARGETS = ('tinyconfig', 'olddefconfig')
MERGE_CONFIG = 'scripts/kconfig/merge_config.sh -m'


def config_argvs(tree: str, scratch: str, arch: Arch, frags: Sequence[str],
		 jobs: int) -> List[List[str]]:
	"""What make_config() runs, in order."""
	merge = MERGE_CONFIG.split()
	return [kmake_argv(tree, scratch, arch, jobs, CONFIG_TARGETS[0]),
		[os.path.join(tree, merge[0]), *merge[1:], '-O', scratch,
		 os.path.join(scratch, '.config'), *frags],
		kmake_argv(tree, scratch, arch, jobs, CONFIG_TARGETS[1])]


def make_config(tree: str, scratch: str, arch: Arch, frags: Sequence[str], log: str,
		jobs: int) -> None:
	"""SCRATCH/.config (and nothing else there) from tinyconfig and FRAGS,
	checked option by option."""
	shutil.rmtree(scratch, ignore_errors=True)
	os.makedirs(scratch)
	argvs = config_argvs(tree, scratch, arch, frags, jobs)
	for argv, suffix in zip(argvs, ('.tinyconfig', '.merge', '')):
		harness_util.run(argv, log=log + suffix)
	config = file_text(os.path.join(scratch, '.config'))
	lost = lost_options(kunit_config(tree), frags, config)
	if lost:
		raise HarnessError(f'{arch.name}: {lost[0]} did not survive olddefconfig'
				   + (f', and {len(lost) - 1} more' if len(lost) > 1 else ''))
	shutil.rmtree(scratch)
	os.makedirs(scratch)
	with open(os.path.join(scratch, '.config'), 'w') as f:
		f.write(config)


@functools.cache
def kunit_config(tree: str) -> types.ModuleType:
	"""kunit_tool's Kconfig parser (tools/testing/kunit/kunit_config.py),
	the one kunit.py checks its .config with: that of TREE, the tree being
	configured, loaded once a tree (as a module of its own, not through
	sys.path, so that two trees' do not meet)."""
	spec = importlib.util.spec_from_file_location(
		'kunit_config', os.path.join(tree, 'tools/testing/kunit/kunit_config.py'))
	if spec is None or spec.loader is None:
		raise HarnessError(f'{tree}: no tools/testing/kunit/kunit_config.py')
	mod = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(mod)
	return mod


def lost_options(kconfig: types.ModuleType, frags: Sequence[str], config: str) -> List[str]:
	"""What FRAGS ask for (the last to name an option winning) that the
	.config CONFIG does not have, as kunit.py's validate_config() judges it
	(is_subset_of(): an option asked unset may be absent): each as the
	fragment says it, with the fragment and what the .config has."""
	want = kconfig.Kconfig()
	origin: Dict[str, str] = {}
	for f in frags:
		entries = kconfig.parse_from_string(file_text(f))
		want.merge_in_entries(entries)
		origin.update((e.name, f) for e in entries.as_entries())
	got = kconfig.parse_from_string(config)
	have = {e.name: e for e in got.as_entries()}
	lost = []
	for e in want.as_entries():
		alone = kconfig.Kconfig()
		alone.add_entry(e.name, e.value)
		if not alone.is_subset_of(got):
			has = have[e.name] if e.name in have else 'no CONFIG_' + e.name
			lost.append(f'{e} (from {os.path.relpath(origin[e.name], TOP)}; '
				    f'the .config has {has})')
	return lost


def tool_versions(arch: Arch) -> str:
	"""The compiler and linker a build of ARCH uses, as they name
	themselves: in every key of what they build."""
	return ''.join(output([arch.cross_compile + t, '--version']).splitlines()[0] + '\n'
		       for t in ('gcc', 'ld'))


def helper_disassembly(arch: Arch, vmlinux: str) -> str:
	"""objdump -d of the series' helper and of each arch atomic it calls:
	where GCC does not inline it, arm64's cmpxchg is a static function of
	its own (__cmpxchg_case_mb_64), one copy per object, so each is taken at
	the address the helper calls."""
	objdump = arch.cross_compile + 'objdump'
	text = output([objdump, '-d', f'--disassemble={HELPER_SYMBOL}', vmlinux])
	calls = dict.fromkeys(ATOMIC_CALLEE.findall(text))
	if calls:
		sizes = {}
		for l in output([arch.cross_compile + 'nm', '-S', vmlinux]).splitlines():
			f = l.split()
			if len(f) == 4:
				sizes[f[0].lstrip('0')] = int(f[1], 16)
		for addr, name in calls:
			start = int(addr, 16)
			size = sizes.get(addr.lstrip('0'))
			if not size:
				raise HarnessError(f'{vmlinux}: no size for {name} at {addr}')
			text += output([objdump, '-d', f'--start-address={start:#x}',
					f'--stop-address={start + size:#x}', vmlinux])
	return text


def build_order(kernels: Iterable[Kernel]) -> List[Kernel]:
	"""Each kernel once: base first, then the series, then each mutant, so
	that the tree moves as little as it can."""
	return sorted(set(kernels), key=lambda k: (k.variant != 'base', k.variant != 'patched',
						   k.variant, k.arch.name, k.flavour))


class Kernels:
	"""The kernels of one line: configured, built (or copied from the
	cache), each in OUT/LINE/kernels/ARCH/FLAVOUR/VARIANT."""

	def __init__(self, tree: Tree, opts: Options):
		self.tree = tree
		self.opts = opts

	def build_dir(self, arch: Arch, flavour: str) -> str:
		"""Where the kernels of ARCH and FLAVOUR are built, every variant."""
		return os.path.join(self.tree.line_out, 'build', f'{arch.name}-{flavour}')

	def image_dir(self, k: Kernel) -> str:
		return os.path.join(self.tree.line_out, 'kernels', k.arch.name, k.flavour,
				    k.variant)

	def image(self, k: Kernel) -> str:
		return os.path.join(self.image_dir(k), os.path.basename(k.arch.kernel_path))

	def extra_fragments(self, arch: Arch) -> List[str]:
		# The guest runs the real clients there: their options too.
		return [os.path.join(CONFIGS, 'clients.config')] if arch.clients else []

	def image_id(self, k: Kernel, tree_id: str = '', config: str = '') -> str:
		"""The key of everything an image is built from: the source (the
		tree's, or TREE_ID), the .config (the build directory's, or
		CONFIG's text), the compiler, the make command, what the entry
		holds, and what it has of the series: base's patches for base,
		the whole series for the others (and a mutant's patch)."""
		arch = k.arch
		build = self.build_dir(arch, k.flavour)
		parts = [tree_id or self.tree.id,
			 config or file_text(os.path.join(build, '.config')),
			 tool_versions(arch),
			 make_argv_id(arch, os.path.basename(arch.kernel_path)),
			 IMAGE_ENTRY_CONTENTS]
		parts.append(self.tree.base_digest if k.variant == 'base' else self.tree.digest)
		if k.variant not in ('base', 'patched'):
			parts.append(file_text(required_mutant_patch(k.variant, self.opts.out)))
		return cache_key(*parts)

	def in_cache(self, k: Kernel) -> bool:
		"""Whether K's image is in the cache, looked up by its key with
		nothing fetched, copied, configured or built: the tree's source at
		hand (Tree.source_at_hand()), its .config in the cache under the key
		configure() would find it by."""
		if not self.tree.source_at_hand():
			return False
		tree_id = self.tree.source_id()
		frags = config_fragments(self.opts, k.arch, k.flavour, self.extra_fragments(k.arch))
		config = cache_path('configs', config_id(tree_id, k.arch, frags))
		if config is None:
			return False
		key = self.image_id(k, tree_id, file_text(os.path.join(config, '.config')))
		return cache_path('kernels', key) is not None

	def configure(self, arch: Arch, flavour: str) -> None:
		frags = config_fragments(self.opts, arch, flavour, self.extra_fragments(arch))
		configure(self.tree, self.build_dir(arch, flavour), arch, frags,
			  os.path.join(self.tree.logs, f'config-{arch.name}-{flavour}.log'),
			  self.opts.jobs)

	def fetch_cached(self, k: Kernel) -> bool:
		"""The image is there and up to date, or is copied whole from the
		cache."""
		d = self.image_dir(k)
		key = self.image_id(k)
		id_file = os.path.join(d, 'id')
		if not self.opts.no_cache and os.path.isfile(id_file) and \
		   file_text(id_file).strip() == key and os.path.isfile(self.image(k)):
			return True
		if not cache_get('kernels', key, d):
			return False
		note(f'{self.tree.line.name} {k}: from the cache ({key})')
		return True

	def build_argv(self, arch: Arch, flavour: str) -> List[str]:
		"""make of an image, in the build directory of ARCH and FLAVOUR."""
		return kmake_argv(self.tree.path, self.build_dir(arch, flavour), arch,
				  self.opts.jobs, os.path.basename(arch.kernel_path))

	def build(self, k: Kernel) -> None:
		"""Build the image (the tree is at its variant) and cache it, with
		the disassembly of the series' helper where there is one."""
		arch = k.arch
		build = self.build_dir(arch, k.flavour)
		log = os.path.join(self.tree.logs, f'build-{arch.name}-{k.flavour}-{k.variant}.log')
		harness_util.run(self.build_argv(arch, k.flavour), log=log,
				 what=f'{self.tree.line.name} {k} kernel build')
		objs = len(re.findall(r'^  (CC|AS|LD|AR) ', file_text(log), re.M))
		note(f'{self.tree.line.name} {k}: {objs} objects rebuilt')
		d = self.image_dir(k)
		shutil.rmtree(d, ignore_errors=True)
		os.makedirs(d)
		shutil.copy(os.path.join(build, arch.kernel_path), d)
		if k.variant != 'base':
			with open(os.path.join(d, 'helper.dis'), 'w') as f:
				f.write(helper_disassembly(arch, os.path.join(build, 'vmlinux')))
		key = self.image_id(k)
		with open(os.path.join(d, 'id'), 'w') as f:
			f.write(key + '\n')
		cache_put(d, 'kernels', key)

	def ensure(self, kernels: Iterable[Kernel]) -> None:
		"""Configure and build what is missing: base first, then the series,
		then each mutant, so the tree moves as little as it can."""
		kernels = build_order(kernels)
		line = self.tree.line.name
		for arch, flavour in dict.fromkeys((k.arch, k.flavour) for k in kernels):
			with stage(f'{line}: config {arch.name} {flavour}'):
				self.configure(arch, flavour)
		for k in kernels:
			if self.fetch_cached(k):
				continue
			with stage(f'{line}: tree at {k.variant}'):
				self.tree.move_to(k.variant)
			with stage(f'{line}: build {k} kernel'):
				self.build(k)
		with stage(f'{line}: tree at patched'):
			self.tree.patched()
