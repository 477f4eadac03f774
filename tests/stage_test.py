#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of harness_stage.py, the guest's programs staged with their
libraries: the ELF reader, the resolver's decisions on packages made here
(the libraries a program loads and theirs, where they are looked for, a
soname none has), and the keys of the staged fragments, each of which
must change with every declared input and nothing else.
"""

import contextlib
import dataclasses
import io
import os
import shutil
import struct
import subprocess
import sys
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'scripts'))
sys.dont_write_bytecode = True

import harness_config  # noqa: E402
import harness_stage  # noqa: E402
from harness_stage import Fragment, Package, Program, Stager  # noqa: E402
from harness_test import temp_dir  # noqa: E402
from harness_util import HarnessError  # noqa: E402

X86_64, AARCH64 = 62, 183
LOAD_AT = 0x400000


def elf(machine, needed=(), interp=''):
	"""A little-endian ELF64 file: NEEDED entries, an interpreter, one
	loaded segment at LOAD_AT that holds them."""
	phnum = 2 + bool(interp)
	at = 64 + 56 * phnum
	interp_b = interp.encode() + b'\0' if interp else b''
	interp_at = at
	strtab_at = interp_at + len(interp_b)
	strtab, names = b'\0', []
	for n in needed:
		names.append(len(strtab))
		strtab += n.encode() + b'\0'
	dyn_at = (strtab_at + len(strtab) + 7) & ~7
	dyn = b''.join(struct.pack('<qQ', 1, n) for n in names)
	dyn += struct.pack('<qQ', 5, LOAD_AT + strtab_at) + struct.pack('<qQ', 0, 0)
	size = dyn_at + len(dyn)
	head = b'\x7fELF' + bytes([2, 1, 1]) + bytes(9)
	head += struct.pack('<HHIQQQIHHHHHH', 3, machine, 1, 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0)
	ph = struct.pack('<IIQQQQQQ', 1, 5, 0, LOAD_AT, LOAD_AT, size, size, 0x1000)
	ph += struct.pack('<IIQQQQQQ', 2, 6, dyn_at, LOAD_AT + dyn_at, LOAD_AT + dyn_at, len(dyn),
			  len(dyn), 8)
	if interp:
		ph += struct.pack('<IIQQQQQQ', 3, 4, interp_at, LOAD_AT + interp_at, 0,
				  len(interp_b), len(interp_b), 1)
	body = head + ph + interp_b + strtab
	return body + bytes(dyn_at - len(body)) + dyn


def quiet():
	return contextlib.redirect_stdout(io.StringIO())


class Elf(unittest.TestCase):
	def write(self, data):
		path = os.path.join(temp_dir(self), 'f')
		with open(path, 'wb') as f:
			f.write(data)
		return path

	def test_needed_in_order_and_the_interpreter(self):
		for machine, loader in ((X86_64, '/lib64/ld-linux-x86-64.so.2'),
					(AARCH64, '/lib/ld-linux-aarch64.so.1')):
			path = self.write(elf(machine, ['libz.so.1', 'libc.so.6'], loader))
			self.assertEqual(harness_stage.elf_needs(path, machine),
					 (['libz.so.1', 'libc.so.6'], loader))

	def test_a_library_names_no_interpreter(self):
		path = self.write(elf(AARCH64, ['libc.so.6']))
		self.assertEqual(harness_stage.elf_needs(path, AARCH64), (['libc.so.6'], ''))

	def test_as_readelf_reads_a_program_of_this_machine(self):
		prog = shutil.which('bash')
		if os.uname().machine != 'x86_64' or not shutil.which('readelf'):
			self.skipTest('no x86_64 program and readelf to compare with')
		dyn = subprocess.run(['readelf', '-d', prog], stdout=subprocess.PIPE, text=True,
				     check=True).stdout
		needed = [l.split('[')[1].rstrip(']') for l in dyn.splitlines() if '(NEEDED)' in l]
		self.assertEqual(harness_stage.elf_needs(prog, X86_64)[0], needed)

	def test_not_elf_or_another_machine_refused(self):
		with self.assertRaises(HarnessError):
			harness_stage.elf_needs(self.write(b'#!/bin/sh\n'), X86_64)
		with self.assertRaises(HarnessError):
			harness_stage.elf_needs(self.write(elf(AARCH64, ['libc.so.6'])), X86_64)


class Depends(unittest.TestCase):
	def test_first_alternative_without_versions_or_qualifiers(self):
		fields = harness_stage.control_fields(
			'Package: p\nPre-Depends: libc6 (>= 2.34)\n'
			'Depends: libfoo1:any | libbar2, zlib1g (>= 1:1.2),\n libc6\n')
		self.assertEqual(harness_stage.depends(fields), ('libc6', 'libfoo1', 'zlib1g'))


class FakePackages(unittest.TestCase):
	"""Packages made here: PACKAGES maps a name to its Depends and files
	(path -> ELF bytes); fetch() unpacks them."""
	LOADER = '/lib64/ld-linux-x86-64.so.2'
	LIBDIR = 'usr/lib/x86_64-linux-gnu'

	def setUp(self):
		self.tmp = temp_dir(self)
		self.stage = os.path.join(self.tmp, 'stage')
		self.fetched = []
		libc = {'lib/x86_64-linux-gnu/libc.so.6': elf(X86_64, ['ld-linux-x86-64.so.2']),
			'lib/x86_64-linux-gnu/ld-linux-x86-64.so.2': elf(X86_64)}
		self.packages = {
			'prog': (('libc6', 'prog-data', 'liba1'),
				 {'usr/bin/prog': elf(X86_64, ['liba.so.1', 'libc.so.6'],
						      self.LOADER)}),
			'prog-data': ((), {}),
			'liba1': (('libb2', 'libc6'),
				  {f'{self.LIBDIR}/liba.so.1': elf(X86_64,
								   ['libb.so.2', 'libc.so.6'])}),
			'libb2': (('libc6',),
				  {f'{self.LIBDIR}/libb.so.2': elf(X86_64, ['libc.so.6'])}),
			'libc6': ((), libc),
		}

	def fetch(self, names):
		self.fetched.append(list(names))
		out = []
		for n in names:
			deps, files = self.packages[n]
			root = os.path.join(self.tmp, 'pkg', n)
			for path, data in files.items():
				os.makedirs(os.path.dirname(os.path.join(root, path)),
					    exist_ok=True)
				with open(os.path.join(root, path), 'wb') as f:
					f.write(data)
			out.append(Package(n, root, deps))
		return out

	def staged(self, prog=Program('prog', 'usr/bin/prog', 'usr/sbin/prog')):
		stager = Stager(self.fetch, harness_config.load_arch('x86_64'), self.stage)
		with quiet():
			stager.add([prog.package])
			stager.program(prog)
		return sorted(os.path.relpath(os.path.join(d, f), self.stage)
			      for d, _, files in os.walk(self.stage) for f in files)


class Resolver(FakePackages):
	"""The resolver's decisions."""

	def test_the_closure_of_needed_one_file_a_soname(self):
		self.assertEqual(self.staged(), sorted([
			'usr/sbin/prog', f'{self.LIBDIR}/liba.so.1', f'{self.LIBDIR}/libb.so.2',
			f'{self.LIBDIR}/libc.so.6', f'{self.LIBDIR}/ld-linux-x86-64.so.2']))

	def test_lib_packages_are_unpacked_before_the_others(self):
		# libc6 and liba1 hold what prog needs: prog-data is never unpacked.
		self.staged()
		self.assertEqual(self.fetched, [['prog'], ['libc6', 'liba1'], ['libb2']])

	def test_a_package_not_named_lib_is_looked_in_when_no_lib_one_has_it(self):
		self.packages['zlib1g'] = ((),
					   {f'{self.LIBDIR}/libz.so.1': elf(X86_64, ['libc.so.6'])})
		self.packages['prog'] = (('libc6', 'zlib1g'),
					 {'usr/bin/prog': elf(X86_64, ['libz.so.1', 'libc.so.6'],
							      self.LOADER)})
		self.assertIn(f'{self.LIBDIR}/libz.so.1', self.staged())
		self.assertEqual(self.fetched, [['prog'], ['libc6'], ['zlib1g']])

	def test_a_soname_in_no_package_is_an_error(self):
		self.packages['libb2'] = (('libc6',), {})
		with self.assertRaisesRegex(HarnessError, 'libb.so.2'):
			self.staged()

	def test_a_program_whose_loader_is_not_among_its_libraries_is_an_error(self):
		self.packages['prog'] = (('libc6',), {'usr/bin/prog': elf(X86_64, ['libc.so.6'],
									  '/lib/ld-other.so.1')})
		with self.assertRaisesRegex(HarnessError, 'loader'):
			self.staged()

	def test_a_missing_program_is_an_error(self):
		with self.assertRaises(HarnessError):
			self.staged(Program('prog', 'usr/bin/none', 'usr/bin/none'))

	def test_the_loader_linked_where_the_program_looks(self):
		self.staged()
		frag = Fragment('k', (Program('prog', 'usr/bin/prog', 'usr/sbin/prog'),))
		harness_stage.link_loaders(frag, harness_config.load_arch('x86_64'), self.stage)
		link = self.stage + self.LOADER
		self.assertEqual(os.readlink(link), f'../{self.LIBDIR}/ld-linux-x86-64.so.2')
		self.assertTrue(os.path.isfile(link))


class FragmentKeys(unittest.TestCase):
	"""The key of each fragment (the clients', the tools') changes with
	each .deb (its name and content), the suite, the architecture and each
	guest file of the fragment, and with nothing else. The guest files'
	contents are the test's."""

	def setUp(self):
		self.contents = {}
		p = mock.patch.object(harness_stage, 'file_text',
				      lambda path: self.contents[os.path.relpath(path, TOP)])
		p.start()
		self.addCleanup(p.stop)
		self.debs = {'p_1_amd64.deb': 'aa', 'libc6_2_amd64.deb': 'bb'}

	def key(self, frag, **change):
		args = {'frag': frag, 'suite': 'bookworm', 'debian_arch': 'amd64',
			'debs': self.debs, **change}
		return harness_stage.fragment_key(**args)

	def check(self, frag, guest_files):
		self.contents = {f: 'a\n' for f in guest_files}
		base = self.key(frag)
		self.assertEqual(self.key(frag, debs=dict(reversed(self.debs.items()))), base)
		changed = [self.key(frag, suite='trixie'), self.key(frag, debian_arch='arm64'),
			   self.key(frag, debs={**self.debs, 'libc6_2_amd64.deb': 'cc'}),
			   self.key(frag, debs={'p_1_amd64.deb': 'aa', 'libc6_3_amd64.deb': 'bb'}),
			   self.key(frag, debs={'p_1_amd64.deb': 'aa'})]
		for f in guest_files:
			self.contents[f] = 'b\n'
			changed.append(self.key(frag))
			self.contents[f] = 'a\n'
		self.assertEqual(self.key(frag), base)
		self.assertEqual(len(set(changed + [base])), len(changed) + 1, changed)

	def test_the_clients_key(self):
		self.check(harness_stage.CLIENTS,
			   ['tests/clients/run.sh', 'tests/clients/keepalived.conf',
			    'tests/clients/cgrules.conf', 'tests/clients/cgconfig.conf'])

	def test_the_newest_clients_key(self):
		self.check(harness_stage.NEWEST_CLIENTS, [])

	def test_the_root_and_the_data_files_are_in_the_key(self):
		frag = harness_stage.NEWEST_CLIENTS
		base = self.key(frag)
		self.assertNotEqual(self.key(dataclasses.replace(frag, root='')), base)
		self.assertNotEqual(self.key(dataclasses.replace(frag, data=())), base)

	def test_the_newest_clients_are_sids_in_a_root_of_their_own(self):
		"""sid's programs, their libraries and loader, beside bookworm's,
		never mixed with them: the suite is the fragment's, not the
		clients' (--clients-suite)."""
		opts = harness_config.Options(out='/nonexistent', clients_suite='trixie')
		frags = harness_stage.fragments(opts, harness_config.load_arch('x86_64'))
		self.assertIn((harness_stage.NEWEST_CLIENTS, 'sid'), frags)
		self.assertIn((harness_stage.CLIENTS, 'trixie'), frags)
		self.assertEqual(harness_stage.NEWEST_CLIENTS.root, 'sid')
		arm64 = harness_config.load_arch('arm64')
		trixie = dataclasses.replace(arm64, debian_suite='trixie')
		self.assertEqual(harness_stage.fragments(opts, trixie),
				 [(harness_stage.TOOLS, 'trixie')])
		self.assertEqual([f for f, _ in harness_stage.fragments(opts, arm64)],
				 [harness_stage.TOOLS])

	def test_the_tools_key(self):
		self.check(harness_stage.TOOLS, [])

	def test_the_kinds_differ(self):
		self.contents = {'tests/clients/run.sh': '', 'tests/clients/keepalived.conf': '',
				 'tests/clients/cgrules.conf': '',
				 'tests/clients/cgconfig.conf': ''}
		keys = [self.key(f, debs={})
			for f in (harness_stage.CLIENTS, harness_stage.NEWEST_CLIENTS,
				  harness_stage.TOOLS)]
		self.assertEqual(len(set(keys)), 3)


class StageFragment(FakePackages):
	"""stage_fragment(): staged once, then from the cache until a .deb it
	was staged from (a library's too) or a guest file changes."""

	def setUp(self):
		super().setUp()
		self.opts = harness_config.Options(out=os.path.join(self.tmp, 'out'))
		self.arch = harness_config.load_arch('x86_64')
		self.guest = os.path.join(self.tmp, 'run.sh')
		with open(self.guest, 'w') as f:
			f.write('#!/bin/sh\n')
		self.frag = Fragment('guest-test',
				     (Program('prog', 'usr/bin/prog', 'usr/sbin/prog'),),
				     ((self.guest, 'c/run.sh', 0o755),))
		self.deb_text = {n: n for n in self.packages}
		self.unpacks = 0
		for p in (mock.patch.object(harness_stage, 'debs', self.debs),
			  mock.patch.object(harness_stage, 'unpack', self.unpack),
			  mock.patch.dict(os.environ,
					  {'XDG_CACHE_HOME': os.path.join(self.tmp, 'cache')})):
			p.start()
			self.addCleanup(p.stop)

	def debs(self, opts, suite, arch, *names):
		paths = []
		for n in names:
			paths.append(os.path.join(self.tmp, 'debs', f'{n}.deb'))
			os.makedirs(os.path.dirname(paths[-1]), exist_ok=True)
			with open(paths[-1], 'w') as f:
				f.write(self.deb_text[n])
		return paths

	def unpack(self, opts, suite, arch, work, names):
		self.unpacks += 1
		return [Package(p.name, p.root, p.depends, deb, '1.2-3' if p.name == 'prog' else '')
			for p, deb in zip(self.fetch(names), self.debs(opts, suite, arch, *names))]

	def restaged(self):
		dest = os.path.join(self.tmp, 'dest')
		before = self.unpacks
		with quiet():
			harness_stage.stage_fragment(self.frag, self.opts, self.arch, 'bookworm',
						     dest)
		self.assertTrue(os.path.isfile(os.path.join(dest, 'c', 'run.sh')))
		self.assertTrue(os.path.isfile(dest + self.LOADER))
		return self.unpacks > before

	def test_staged_then_from_the_cache(self):
		self.assertTrue(self.restaged())
		self.assertFalse(self.restaged())

	def test_a_librarys_deb_restages(self):
		self.restaged()
		self.deb_text['libb2'] = 'libb2, rebuilt'
		self.assertTrue(self.restaged())
		self.assertFalse(self.restaged())

	def test_a_root_of_its_own(self):
		"""A fragment with a root: its program, libraries and loader link
		under it, nothing in the guest's own; staged/KIND names the
		package's version and suite, and the loader and libraries run.sh
		runs the program with; a data file where the program reads it."""
		self.packages['prog'][1]['etc/prog.conf'] = b'conf'
		self.frag = dataclasses.replace(self.frag, kind='guest-root', root='sid',
						data=(Program('prog', 'etc/prog.conf',
							      'etc/prog.conf'),))
		dest = os.path.join(self.tmp, 'dest')
		with quiet():
			harness_stage.stage_fragment(self.frag, self.opts, self.arch, 'sid', dest)
		for f in ('sid/usr/sbin/prog', f'sid/{self.LIBDIR}/liba.so.1',
			  f'sid/{self.LIBDIR}/libc.so.6', 'sid' + self.LOADER, 'etc/prog.conf',
			  'c/run.sh'):
			self.assertTrue(os.path.isfile(os.path.join(dest, f)), f)
		for f in ('usr', 'lib64'):
			self.assertFalse(os.path.exists(os.path.join(dest, f)), f)
		self.assertEqual(os.readlink(os.path.join(dest, 'sid' + self.LOADER)),
				 f'../{self.LIBDIR}/ld-linux-x86-64.so.2')
		staged = os.path.join(dest, 'staged', 'guest-root')
		self.assertEqual(harness_stage.file_text(staged),
				 'package prog 1.2-3 sid\n'
				 f'loader /sid/{self.LIBDIR}/ld-linux-x86-64.so.2 '
				 f'/sid/{self.LIBDIR}\n')

	def test_a_guest_file_restages(self):
		self.restaged()
		with open(self.guest, 'w') as f:
			f.write('#!/bin/sh\nexit 0\n')
		self.assertTrue(self.restaged())


if __name__ == '__main__':
	unittest.main()
