# SPDX-License-Identifier: GPL-2.0
"""Programs of Debian's packages staged for the test guest, with every
shared library they load, as a fragment of a root file system: the real
clients (CLIENTS, of the --clients-suite), the newest releases of some of them
(NEWEST_CLIENTS, sid's, in a root of their own) and what run_kselftest.sh
needs beyond busybox (TOOLS).

Nothing is installed or run: debs.sh downloads the packages of the
guest's architecture, dpkg-deb -x unpacks each into a tree of its own.
The libraries are the closure of the programs' ELF NEEDED entries, read
here (no binutils of the guest's architecture needed), one file a soname
in usr/lib/TRIPLET; a soname no unpacked package has is looked for in
what the package needing it depends on. The loader the program names
(PT_INTERP) is linked to its copy among the libraries. A fragment with a
root of its own (Fragment.root) has its programs, libraries and loader
link under it: another suite's libc and libraries never mix with the
guest's; its programs run through its loader, with --library-path. Each
fragment says in staged/KIND which package versions of which suite it
holds, and where its loader and libraries are: what the guest reports.

A fragment is kept in the cache under the identities of the .deb files it
was staged from, the suite, the architecture and the guest-side files
(fragment_key()); which packages a fragment took is kept beside it, under
the key of its programs' packages, so that a rerun asks debs.sh for them
and unpacks nothing when none changed.
"""

import dataclasses
import hashlib
import os
import re
import shutil
import struct
import tempfile
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from harness_arch import Arch
from harness_config import Options
import harness_util
from harness_util import (TOP, HarnessError, cache_dir, cache_get, cache_key, cache_put,
			  debs_argv, file_text, note, output)


@dataclasses.dataclass(frozen=True)
class Program:
	package: str
	path: str	# in the package
	to: str		# in the guest


@dataclasses.dataclass(frozen=True)
class Fragment:
	"""What to stage; KIND names it in the cache."""
	kind: str
	programs: Tuple[Program, ...]
	# Files of the repository the guest runs: (path, in the guest, mode).
	guest_files: Tuple[Tuple[str, str, int], ...] = ()
	# The directory of the guest the programs (Program.to) and their
	# libraries are staged in; '' for its root.
	root: str = ''
	# Data files of the packages the programs read, staged as they are,
	# where the programs look for them (Program.to: from the guest's root).
	data: Tuple[Program, ...] = ()


CLIENTS = Fragment('guest-clients',
		   (Program('keepalived', 'usr/sbin/keepalived', 'usr/sbin/keepalived'),
		    Program('extrace', 'usr/bin/extrace', 'usr/bin/extrace'),
		    Program('cgroup-tools', 'usr/sbin/cgrulesengd', 'usr/sbin/cgrulesengd')),
		   (('tests/clients/run.sh', 'clients/run.sh', 0o755),
		    ('tests/clients/keepalived.conf', 'clients/keepalived.conf', 0o644),
		    ('tests/clients/cgrules.conf', 'etc/cgrules.conf', 0o644),
		    ('tests/clients/cgconfig.conf', 'etc/cgconfig.conf', 0o644)))

# The newest Debian releases of the clients that read more than the
# events' pids, run beside the --clients-suite's (tests/clients/run.sh): sid's
# binaries need sid's libc, so they live in /sid with sid's libraries.
NEWEST_SUITE = 'sid'
NEWEST_CLIENTS = Fragment('guest-clients-newest',
			  (Program('keepalived', 'usr/sbin/keepalived', 'usr/sbin/keepalived'),
			   Program('cgroup-tools', 'usr/sbin/cgrulesengd', 'usr/sbin/cgrulesengd')),
			  root='sid',
			  # keepalived 2.3 does not start without it (bookworm's 2.2.7
			  # reads its build options from its own binary instead).
			  data=(Program('keepalived', 'etc/keepalived/keepalived.config-opts',
					'etc/keepalived/keepalived.config-opts'),))

# bash for runner.sh's "ip netns exec NAME bash" (-n); iproute2's ip for
# "ip netns add" (-n), busybox's has no netns; coreutils' timeout takes
# --foreground (busybox's does not), and runner.sh uses it when it is there.
# Of the architecture's Debian suite (Arch.debian_suite).
TOOLS = Fragment('guest-tools',
		 (Program('bash', 'bin/bash', 'bin/bash'),
		  Program('iproute2', 'bin/ip', 'sbin/ip'),
		  Program('coreutils', 'usr/bin/timeout', 'usr/bin/timeout')))


def debs(opts: Options, suite: str, arch: Arch, *pkgs: str) -> List[str]:
	"""Debian packages of ARCH, downloaded into the cache
	(scripts/debs.sh); their paths."""
	proc = harness_util.run(debs_argv(suite, *pkgs), capture='stdout', check=False,
				env=debs_env(opts, arch))
	if proc.returncode:
		raise HarnessError(f'could not fetch {" ".join(pkgs)} ({arch.debian_arch}) '
				   f'from Debian {suite}')
	return str(proc.stdout).split()




def debs_env(opts: Options, arch: Arch) -> Dict[str, str]:
	return {'DEBS_ARCH': arch.debian_arch, 'OUT': opts.out, 'DEBS_MIRROR': opts.debs_mirror}


# ELF ------------------------------------------------------------------

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5


def elf_needs(path: str, machine: int) -> Tuple[List[str], str]:
	"""The NEEDED entries of a little-endian ELF64 file of MACHINE, in
	their order, and its interpreter ('' if it names none)."""
	with open(path, 'rb') as f:
		data = f.read()
	if data[:4] != b'\x7fELF' or data[4:6] != b'\x02\x01':
		raise HarnessError(f'{path}: not a little-endian 64-bit ELF file')
	if struct.unpack_from('<H', data, 18)[0] != machine:
		raise HarnessError(f'{path}: not of ELF machine {machine}')
	phoff, = struct.unpack_from('<Q', data, 0x20)
	phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
	interp, loads, dynamic = '', [], None
	for i in range(phnum):
		p_type, _, off, vaddr, _, filesz, _, _ = struct.unpack_from('<IIQQQQQQ', data,
									     phoff + i * phentsize)
		if p_type == PT_INTERP:
			interp = data[off:off + filesz].split(b'\0')[0].decode()
		elif p_type == PT_LOAD:
			loads.append((vaddr, off, filesz))
		elif p_type == PT_DYNAMIC:
			dynamic = (off, filesz)
	if dynamic is None:
		return [], interp
	needed, strtab = [], None
	for at in range(dynamic[0], dynamic[0] + dynamic[1] - 15, 16):
		tag, val = struct.unpack_from('<qQ', data, at)
		if tag == DT_NULL:
			break
		if tag == DT_NEEDED:
			needed.append(val)
		elif tag == DT_STRTAB:
			strtab = val
	if not needed:
		return [], interp
	# DT_STRTAB is an address: the file offset is the loaded segment's.
	base = next((strtab - vaddr + off for vaddr, off, size in loads
		     if strtab is not None and vaddr <= strtab < vaddr + size), None)
	if base is None:
		raise HarnessError(f'{path}: its dynamic string table is in no loaded segment')
	return [data[base + n:data.index(b'\0', base + n)].decode() for n in needed], interp


# Packages -------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Package:
	name: str
	root: str		# its unpacked tree
	depends: Tuple[str, ...]	# Pre-Depends and Depends, the first of each alternative
	deb: str = ''
	version: str = ''


def control_fields(text: str) -> Dict[str, str]:
	"""The fields of a package's control file (dpkg-deb -f)."""
	fields: Dict[str, str] = {}
	name = None
	for line in text.splitlines():
		if line[:1] in (' ', '\t') and name:
			fields[name] += ' ' + line.strip()
		elif ':' in line:
			name, value = line.split(':', 1)
			fields[name] = value.strip()
	return fields


def depends(fields: Dict[str, str]) -> Tuple[str, ...]:
	"""The packages named in Pre-Depends and Depends, the first of each
	alternative, without versions or architecture qualifiers."""
	names = []
	for field in ('Pre-Depends', 'Depends'):
		for dep in fields.get(field, '').split(','):
			first = re.sub(r'\(.*\)', '', dep.split('|')[0])
			name = re.sub(r'\s', '', re.sub(r':[a-z0-9]+', '', first))
			if name and name not in names:
				names.append(name)
	return tuple(names)


def unpack(opts: Options, suite: str, arch: Arch, work: str,
	   names: Sequence[str]) -> List[Package]:
	"""The packages NAMES downloaded and each unpacked into WORK/pkg/NAME."""
	out = []
	for deb in debs(opts, suite, arch, *names):
		fields = control_fields(output(['dpkg-deb', '-f', deb]))
		root = os.path.join(work, 'pkg', fields['Package'])
		os.makedirs(root, exist_ok=True)
		harness_util.run(['dpkg-deb', '-x', deb, root])
		out.append(Package(fields['Package'], root, depends(fields), deb,
				   fields.get('Version', '')))
	return out


def deb_identities(paths: Sequence[str]) -> Dict[str, str]:
	"""Each .deb's file name (package, version, architecture) and sha256."""
	ids = {}
	for p in paths:
		with open(p, 'rb') as f:
			ids[os.path.basename(p)] = hashlib.file_digest(f, 'sha256').hexdigest()
	return ids


# The resolver ----------------------------------------------------------

class Stager:
	"""Programs of packages and the closure of their libraries staged into
	STAGE; FETCH(names) unpacks packages and returns them."""

	def __init__(self, fetch: Callable[[Sequence[str]], List[Package]], arch: Arch, stage: str):
		self.fetch = fetch
		self.debian_arch = arch.debian_arch
		self.triplet, self.machine = arch.debian_triplet, arch.elf_machine
		self.stage = stage
		# In the order they were unpacked, which find_so() follows: the
		# staged tree does not depend on a hash order.
		self.unpacked: Dict[str, Package] = {}
		self.libs: Dict[str, str] = {}		# soname -> the file staged for it

	def add(self, names: Sequence[str]) -> None:
		for p in self.fetch(names):
			self.unpacked[p.name] = p

	def find_so(self, soname: str) -> Optional[Tuple[str, str]]:
		"""(package, path) of the first unpacked library of that name, in
		the multiarch and plain library directories."""
		for p in self.unpacked.values():
			for d in (f'lib/{self.triplet}', f'usr/lib/{self.triplet}', 'lib',
				  'usr/lib', 'lib64'):
				f = os.path.join(p.root, d, soname)
				if os.path.exists(f):
					return p.name, f
		return None

	def resolve(self, path: str, pkg: str) -> None:
		"""Stage the libraries PATH (of package PKG) needs, and theirs."""
		for soname in elf_needs(path, self.machine)[0]:
			if soname in self.libs:
				continue
			hit = self.find_so(soname)
			# Not unpacked yet: look in what the package depends on, its
			# lib* packages first (zlib1g is one not named lib*), so that
			# the others, often large, are unpacked only when needed.
			first_lib: Tuple[Callable[[str], bool], ...] = (
				lambda n: n.startswith('lib'), lambda n: True)
			for wanted in first_lib:
				if hit:
					break
				more = [n for n in self.unpacked[pkg].depends
					if wanted(n) and n not in self.unpacked]
				if more:
					self.add(more)
				hit = self.find_so(soname)
			if not hit:
				where = os.path.relpath(path,
							os.path.dirname(self.unpacked[pkg].root))
				raise HarnessError(f'{soname}, needed by {where}, is in none of: '
						   f'{" ".join(self.unpacked)}')
			owner, lib = hit
			self.libs[soname] = lib
			copy_file(os.path.realpath(lib),
				  os.path.join(self.stage, 'usr', 'lib', self.triplet, soname),
				  0o755)
			note(f'  {soname}  ({owner})')
			self.resolve(lib, owner)

	def program(self, prog: Program) -> None:
		"""PROG staged with its libraries, its loader among them."""
		pkg = self.unpacked.get(prog.package)
		path = os.path.join(pkg.root, prog.path) if pkg else ''
		if pkg is None or not os.path.isfile(path):
			raise HarnessError(f'package {prog.package} has no /{prog.path}')
		copy_file(path, os.path.join(self.stage, prog.to), 0o755)
		note(f'{prog.to} ({prog.package} {pkg.version}, {self.debian_arch})')
		self.resolve(path, prog.package)
		loader = elf_needs(path, self.machine)[1]
		if not loader or os.path.basename(loader) not in self.libs:
			raise HarnessError(f'/{prog.path}: its loader \'{loader}\' '
					   'is not among its libraries')


def copy_file(src: str, dest: str, mode: int) -> None:
	os.makedirs(os.path.dirname(dest), exist_ok=True)
	shutil.copyfile(src, dest)
	os.chmod(dest, mode)


def link_loaders(frag: Fragment, arch: Arch, dest: str) -> None:
	"""Each program's loader (PT_INTERP) linked, relatively, to its copy
	among the libraries: where the program looks for it. Made after the
	cache, which keeps files, not links."""
	triplet, machine = arch.debian_triplet, arch.elf_machine
	root = os.path.join(dest, frag.root)
	for prog in frag.programs:
		loader = elf_needs(os.path.join(root, prog.to), machine)[1]
		target = os.path.join(root, 'usr', 'lib', triplet, os.path.basename(loader))
		if not loader or not os.path.isfile(target):
			raise HarnessError(f'{root}/{prog.to}: its loader \'{loader}\' '
					   'is not among its libraries')
		link = os.path.normpath(root + loader)
		os.makedirs(os.path.dirname(link), exist_ok=True)
		if os.path.lexists(link):
			os.remove(link)
		os.symlink(os.path.relpath(target, os.path.dirname(link)), link)


# The fragment and its cache ---------------------------------------------

def fragment_key(frag: Fragment, suite: str, debian_arch: str, debs: Dict[str, str]) -> str:
	"""The key of what FRAG stages from the .deb files DEBS (file name ->
	sha256) of SUITE and DEBIAN_ARCH: those, the programs and the guest
	files' contents."""
	return cache_key(frag.kind, suite, debian_arch, f'root:{frag.root}',
			 *(f'{p.package}:{p.path}:{p.to}' for p in frag.programs),
			 *(f'data {p.package}:{p.path}:{p.to}' for p in frag.data),
			 *(f'{name} {sha}' for name, sha in sorted(debs.items())),
			 *(f'{to} {mode:o}\n{file_text(os.path.join(TOP, path))}'
			   for path, to, mode in frag.guest_files))


def stage_fragment(frag: Fragment, opts: Options, arch: Arch, suite: str, dest: str) -> None:
	"""FRAG of ARCH's packages of SUITE in DEST, replaced whole: from the
	cache when none of its inputs changed, else staged and cached."""
	da = arch.debian_arch
	os.makedirs(opts.out, exist_ok=True)
	with tempfile.TemporaryDirectory(prefix='stage.', dir=opts.out) as work:
		top = debs(opts, suite, arch, *(p.package for p in frag.programs))
		index = os.path.join(work, 'index')
		top_key = fragment_key(frag, suite, da, deb_identities(top))
		if cache_get(frag.kind + '-debs', top_key, index):
			names = file_text(os.path.join(index, 'packages')).split()
			key = fragment_key(frag, suite, da,
					   deb_identities(debs(opts, suite, arch, *names)))
			if cache_get(frag.kind, key, dest):
				link_loaders(frag, arch, dest)
				note(f'{dest}: from the cache ({cache_dir()}/{frag.kind}/{key})')
				return
		stage = os.path.join(work, 'stage')
		stager = Stager(lambda names: unpack(opts, suite, arch, work, names), arch,
				os.path.join(stage, frag.root))
		stager.add([p.package for p in frag.programs])
		for prog in frag.programs:
			stager.program(prog)
		for d in frag.data:
			path = os.path.join(stager.unpacked[d.package].root, d.path)
			if not os.path.isfile(path):
				raise HarnessError(f'package {d.package} has no /{d.path}')
			copy_file(path, os.path.join(stage, d.to), 0o644)
		staged = os.path.join(stage, 'staged', frag.kind)
		os.makedirs(os.path.dirname(staged), exist_ok=True)
		with open(staged, 'w') as f:
			loader = elf_needs(os.path.join(stager.stage, frag.programs[0].to),
					   stager.machine)[1]
			versions = {p.package: stager.unpacked[p.package].version
				    for p in frag.programs}
			f.write(staged_text(frag, suite, arch, versions, os.path.basename(loader)))
		for path, to, mode in frag.guest_files:
			copy_file(os.path.join(TOP, path), os.path.join(stage, to), mode)
		key = fragment_key(frag, suite, da,
				   deb_identities([p.deb for p in stager.unpacked.values()]))
		cache_put(stage, frag.kind, key)
		os.makedirs(index, exist_ok=True)
		with open(os.path.join(index, 'packages'), 'w') as f:
			f.write('\n'.join(stager.unpacked) + '\n')
		cache_put(index, frag.kind + '-debs', top_key)
		if not cache_get(frag.kind, key, dest):
			raise HarnessError(f'{frag.kind}/{key}: not in the cache just after it was '
					   'put there')
		link_loaders(frag, arch, dest)
		note(f'staged in {dest}: {len(stager.libs)} libraries')


def staged_text(frag: Fragment, suite: str, arch: Arch, versions: Dict[str, str],
		loader: str) -> str:
	"""The guest's staged/KIND: "package NAME VERSION SUITE" for each
	program's package (VERSIONS: name -> Debian version), then "loader
	PATH LIBDIR" (LOADER: the programs' loader's file name), both absolute
	in the guest, which run.sh runs the programs of a fragment with a root
	of its own through."""
	triplet = arch.debian_triplet
	root = '/' + frag.root if frag.root else ''
	lines = [f'package {name} {versions[name]} {suite}'
		 for name in dict.fromkeys(p.package for p in frag.programs)]
	lines.append(f'loader {root}/usr/lib/{triplet}/{loader} {root}/usr/lib/{triplet}')
	return '\n'.join(lines) + '\n'


def fragments(opts: Options, arch: Arch) -> List[Tuple[Fragment, str]]:
	"""What ARCH's guest holds, each with its suite: the real clients,
	the --clients-suite's and the newest, where the architecture runs them,
	the tools (of the architecture's suite) always."""
	clients = [(CLIENTS, opts.clients_suite), (NEWEST_CLIENTS, NEWEST_SUITE)]
	return (clients if arch.clients else []) + [(TOOLS, arch.debian_suite)]
