#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/litmus.py, without herd7: its judgement of herd7's
output (real outputs in tests/litmus/samples/), the check of the helper's
arm64 instructions (a real disassembly there, and weaker forms made from
it), and the cache of herd7's unpacked packages (on small packages made
here)."""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / 'scripts'))
import litmus  # noqa: E402

TESTS = HERE / 'litmus'
SAMPLES = TESTS / 'samples'
# What the harness keeps of the patched 7.3 arm64 vmlinux it builds
# (harness_kernel.helper_disassembly): ktime_stamp_ns, and the out-of-line
# __cmpxchg_case_mb_64 it calls.
DISASSEMBLY = SAMPLES / 'ktime_stamp_ns.arm64.objdump'
# The same of the series' previous version, whose cmpxchg GCC inlined.
INLINE = SAMPLES / 'ktime_get_ordered_ns.arm64.objdump'


def sample(name):
	return (SAMPLES / name).read_text()


class ReadTest(unittest.TestCase):
	def test_c_test(self):
		t = litmus.read_test(TESTS / 'stamp-mp.litmus')
		self.assertEqual((t.arch, t.name, t.expected, t.flags),
				 ('C', 'stamp-mp', 'Never', ()))

	def test_aarch64_test_with_a_flag(self):
		t = litmus.read_test(TESTS / 'aarch64-llsc-mb-mp.litmus')
		self.assertEqual((t.arch, t.name, t.expected),
				 ('AArch64', 'aarch64-llsc-mb-mp', 'Never'))
		self.assertEqual(t.flags, ('Assuming-common-inner-shareable-domain',))

	def test_every_test_has_a_result_and_its_file_name(self):
		for p in TESTS.glob('*.litmus'):
			t = litmus.read_test(p)
			self.assertIn(t.expected, litmus.RESULTS, p.name)
			self.assertEqual(t.name + '.litmus', p.name)
			self.assertIn(t.arch, ('C', 'AArch64'), p.name)


def test(name='stamp-mp', expected='Never', flags=(), mutant=''):
	return litmus.Test(Path(name + '.litmus'), 'C', name, expected, flags, mutant)


class Judge(unittest.TestCase):
	def test_never_as_expected(self):
		r = litmus.judge(test(), sample('stamp-mp.out'))
		self.assertEqual((r.observed, r.positive, r.negative, r.problem),
				 ('Never', 0, 7, ''))

	def test_never_when_sometimes_expected_fails(self):
		r = litmus.judge(test(expected='Sometimes'), sample('stamp-mp.out'))
		self.assertEqual(r.problem, 'expected Sometimes, herd7 says Never')

	def test_sometimes_as_expected(self):
		r = litmus.judge(test('mutant-relaxed-mp', 'Sometimes'),
				 sample('mutant-relaxed-mp.out'))
		self.assertEqual((r.observed, r.positive, r.negative, r.problem),
				 ('Sometimes', 1, 7, ''))

	def test_sometimes_when_never_expected_fails(self):
		r = litmus.judge(test('mutant-relaxed-mp', 'Never'),
				 sample('mutant-relaxed-mp.out'))
		self.assertEqual(r.problem, 'expected Never, herd7 says Sometimes')

	def test_always(self):
		r = litmus.judge(test('mutant-no-plus-one', 'Always'),
				 sample('mutant-no-plus-one.out'))
		self.assertEqual((r.observed, r.problem), ('Always', ''))
		r = litmus.judge(test('mutant-no-plus-one', 'Sometimes'),
				 sample('mutant-no-plus-one.out'))
		self.assertEqual(r.problem, 'expected Sometimes, herd7 says Always')

	def test_a_test_herd7_cannot_parse_fails(self):
		# herd7 prints a lexer error as a warning and exits 0.
		r = litmus.judge(test(), sample('stamp-mp-lex-error.out'))
		self.assertEqual(r.observed, '')
		self.assertIn('herd7 gave 0 Observation lines', r.problem)
		self.assertIn('Lex error', r.problem)

	def test_no_output_fails(self):
		self.assertEqual(litmus.judge(test(), '').problem, 'herd7 gave 0 Observation lines')

	def test_other_test_name_fails(self):
		r = litmus.judge(test('stamp-fr'), sample('stamp-mp.out'))
		self.assertEqual(r.problem, "herd7 observed test 'stamp-mp', "
				 "the file's name line says 'stamp-fr'")

	def test_header_without_result_fails(self):
		r = litmus.judge(test(expected=''), sample('stamp-mp.out'))
		self.assertIn("no 'Result: Never|Sometimes|Always'", r.problem)

	def test_flag_not_in_the_header_fails(self):
		r = litmus.judge(test('race', 'Sometimes'), sample('data-race.out'))
		self.assertEqual(r.problem,
				 "herd7 flagged data-race, the header 'Flag:' lines say nothing")
		r = litmus.judge(test('race', 'Sometimes', ('data-race',)), sample('data-race.out'))
		self.assertEqual(r.problem, '')

	def test_flag_in_the_header_is_required(self):
		t = litmus.read_test(TESTS / 'aarch64-llsc-mb-mp.litmus')
		self.assertEqual(litmus.judge(t, sample('aarch64-llsc-mb-mp.out')).problem, '')
		r = litmus.judge(t, sample('aarch64-llsc-mb-mp.out').replace(
			'Flag Assuming-common-inner-shareable-domain\n', ''))
		self.assertIn('herd7 flagged nothing', r.problem)


def result(name, expected, observed, mutant=''):
	return litmus.Result(test(name, expected, mutant=mutant), observed)


class Pairs(unittest.TestCase):
	"""A Never test is evidence only with a mutant that herd7 finds."""

	def test_every_never_test_names_a_sometimes_mutant(self):
		for p in sorted(TESTS.glob('*.litmus')):
			t = litmus.read_test(p)
			if t.expected != 'Never':
				continue
			self.assertTrue(t.mutant, p.name)
			m = litmus.read_test(TESTS / (t.mutant + '.litmus'))
			self.assertEqual(m.expected, 'Sometimes', f'{p.name}: {t.mutant}')

	def test_mutant_line_read(self):
		t = litmus.read_test(TESTS / 'stamp-mp.litmus')
		self.assertEqual(t.mutant, 'mutant-relaxed-mp')
		self.assertEqual(litmus.read_test(TESTS / 'mutant-relaxed-mp.litmus').mutant, '')

	def test_pair_that_holds_passes(self):
		rs = [result('stamp-mp', 'Never', 'Never', 'mutant-relaxed-mp'),
			  result('mutant-relaxed-mp', 'Sometimes', 'Sometimes')]
		self.assertEqual(litmus.check_pairs(rs), [])

	def test_never_test_without_mutant_fails(self):
		rs = [result('stamp-mp', 'Never', 'Never')]
		self.assertEqual(litmus.check_pairs(rs), [
			('stamp-mp', "a Never test with no 'Mutant:' line in its header")])

	def test_missing_mutant_fails(self):
		rs = [result('stamp-mp', 'Never', 'Never', 'mutant-gone')]
		self.assertEqual(litmus.check_pairs(rs), [
			('stamp-mp', 'its mutant mutant-gone is not in tests/litmus/')])

	def test_mutant_that_herd7_finds_never_fails(self):
		# A mutant that still has the ordering, as cn-proc-migrate with
		# on_cpu made plain (the fully ordered cmpxchg alone orders it).
		rs = [result('cn-proc-migrate', 'Never', 'Never', 'mutant-plain-on-cpu'),
		      result('mutant-plain-on-cpu', 'Sometimes', 'Never')]
		self.assertEqual(litmus.check_pairs(rs), [
			('cn-proc-migrate',
			 'its mutant mutant-plain-on-cpu: herd7 says Never, not Sometimes')])

	def test_mutant_that_did_not_run_fails(self):
		rs = [result('stamp-mp', 'Never', 'Never', 'mutant-relaxed-mp'),
			  result('mutant-relaxed-mp', 'Sometimes', '')]
		self.assertEqual(len(litmus.check_pairs(rs)), 1)

	def test_self_as_mutant_fails(self):
		rs = [result('stamp-mp', 'Never', 'Never', 'stamp-mp')]
		self.assertEqual(litmus.check_pairs(rs),
				 [('stamp-mp', 'names itself as its mutant')])

	def test_sometimes_tests_need_no_mutant(self):
		rs = [result('cn-proc-fork-ptrace-window', 'Sometimes', 'Sometimes')]
		self.assertEqual(litmus.check_pairs(rs), [])

	def test_named_test_brings_its_mutant(self):
		paths = litmus.with_mutants([TESTS / 'stamp-mp.litmus'])
		self.assertEqual(paths,
				 [TESTS / 'stamp-mp.litmus', TESTS / 'mutant-relaxed-mp.litmus'])

	def run_with(self, *tests, unlike=()):
		"""litmus.py run on TESTS, herd7 replaced by a stub that gives each
		test the result its header expects, but those named in UNLIKE,
		which judge() finds unlike their header: the exit status."""
		def as_expected(cmd, test, tree):
			if test.name in unlike:
				return litmus.judge(test, f'Test {test.name} Allowed\n'
						    f'Observation {test.name} Sometimes 1 7\n')
			return litmus.Result(test, test.expected)
		with tempfile.TemporaryDirectory() as d:
			(Path(d) / 'tools' / 'memory-model').mkdir(parents=True)
			(Path(d) / 'tools' / 'memory-model' / 'linux-kernel.cfg').write_text('')
			lonely = Path(d) / 'lonely.litmus'
			lonely.write_text('C lonely\n\n(*\n * Result: Never\n *)\n')
			paths = [str(lonely if t == 'lonely' else TESTS / (t + '.litmus'))
				 for t in tests]
			with mock.patch.object(litmus, 'herd7', return_value=['herd7']), \
			     mock.patch.object(litmus, 'herd7_version', return_value='7.58'), \
			     mock.patch.object(litmus, 'run_test', side_effect=as_expected), \
			     mock.patch('builtins.print'):
				return litmus.main(['run', '--tree', d, *paths])

	def test_run_passes_with_the_pair(self):
		self.assertEqual(self.run_with('stamp-mp'), 0)

	def test_run_fails_on_a_test_herd7_finds_unlike_its_header(self):
		# Its pair holds (the mutant found): only the result fails it.
		self.assertEqual(self.run_with('stamp-mp', unlike=('stamp-mp',)), 1)

	def test_run_fails_on_a_never_test_without_mutant(self):
		# Every result as its header says: only the missing pair fails it.
		self.assertEqual(self.run_with('stamp-mp', 'lonely'), 1)


def inline_tests(text):
	"""{name: program} of each litmus test a changelog carries inline: a
	"C NAME" line, then the program from "{}" to its exists clause."""
	out = {}
	lines = text.splitlines()
	for i, line in enumerate(lines):
		if line.startswith('C ') and len(line.split()) == 2:
			prog = []
			for l in lines[i + 1:]:
				if prog or l == '{}':
					prog.append(l)
				if l.startswith('exists '):
					break
			out[line.split()[1]] = '\n'.join(prog)
	return out


def program(path):
	"""A litmus file's program: from "{}" to its exists clause."""
	text = Path(path).read_text()
	return text[text.index('\n{}\n') + 1:].rstrip('\n')


class InlineTests(unittest.TestCase):
	"""A test a changelog carries inline is the file herd7 runs; the cover
	letter carries none, and each test it names is a file herd7 runs."""

	PATCHES = sorted((HERE.parent / 'patches').glob('00*.patch')) + \
		sorted((HERE.parent / 'patches' / 'stable').glob('*/00*.patch'))

	def test_each_inline_test_is_its_file(self):
		for p in self.PATCHES:
			msg = p.read_text().split('\n---\n', 1)[0]
			for name, prog in inline_tests(msg).items():
				self.assertEqual(prog, program(TESTS / (name + '.litmus')),
						 f'{p.name}: {name}')

	def test_the_cover_letter_names_the_files(self):
		cover = (HERE.parent / 'patches' / '0000-cover-letter.patch').read_text()
		self.assertEqual(inline_tests(cover), {})
		# "stamp-unique-2, -3": a name, then its siblings by their suffix.
		named = re.findall(r'\b((?:stamp|cn-proc)(?:-[a-z0-9]+)+)(-\*)?((?:, -[a-z0-9-]+)*)',
				   cover)
		self.assertTrue(named)
		for name, star, more in named:
			stem = name.rsplit('-', 1)[0]
			for n in [name] + [stem + m for m in re.findall(r', (-[a-z0-9-]+)', more)]:
				found = sorted(TESTS.glob(n + star + '.litmus'))
				self.assertTrue(found, f'the cover letter names {n}{star}: no such test')

	def test_a_changed_inline_test_is_seen(self):
		relaxed = program(TESTS / 'stamp-mp.litmus').replace('atomic_cmpxchg(',
								     'atomic_cmpxchg_relaxed(')
		msg = 'C stamp-mp\n\n' + relaxed
		self.assertNotEqual(inline_tests(msg)['stamp-mp'],
				    program(TESTS / 'stamp-mp.litmus'))


class Arm64Sequence(unittest.TestCase):
	def setUp(self):
		self.real = DISASSEMBLY.read_text()

	def edit(self, old, new, count=1):
		"""The real disassembly with OLD replaced by NEW, which must occur."""
		self.assertEqual(self.real.count(old), count, old)
		return self.real.replace(old, new)

	def test_real_disassembly_passes(self):
		self.assertEqual(litmus.check_arm64_sequence(self.real), [])

	def test_the_cmpxchg_inlined_passes_too(self):
		self.assertEqual(litmus.check_arm64_sequence(INLINE.read_text()), [])

	def test_the_real_one_has_both_paths(self):
		names = [m for _, m, _ in litmus.instructions(self.real)]
		for m in ('casal', 'ldxr', 'stlxr', 'dmb'):
			self.assertEqual(names.count(m), 1, m)

	def test_cas_fails(self):
		self.assertIn('LSE: CAS (1), weaker than or other than CASAL',
			      litmus.check_arm64_sequence(self.edit('\tcasal\t', '\tcas\t')))

	def test_casa_fails(self):
		self.assertIn('LSE: CASA (1), weaker than or other than CASAL',
			      litmus.check_arm64_sequence(self.edit('\tcasal\t', '\tcasa\t')))

	def test_casl_fails(self):
		self.assertIn('LSE: CASL (1), weaker than or other than CASAL',
			      litmus.check_arm64_sequence(self.edit('\tcasal\t', '\tcasl\t')))

	def test_no_casal_fails(self):
		line = next(l for l in self.real.splitlines(True) if '\tcasal\t' in l)
		self.assertIn('LSE: 0 CASAL, not one',
			      litmus.check_arm64_sequence(self.edit(line, '')))

	def test_two_casal_fail(self):
		line = next(l for l in self.real.splitlines(True) if '\tcasal\t' in l)
		self.assertIn('LSE: 2 CASAL, not one',
			      litmus.check_arm64_sequence(self.edit(line, line + line)))

	def test_stxr_fails(self):
		problems = litmus.check_arm64_sequence(self.edit('\tstlxr\t', '\tstxr\t'))
		self.assertIn('LL/SC: STXR (1), not the LDXR/STLXR pair', problems)

	def test_ldaxr_fails(self):
		problems = litmus.check_arm64_sequence(self.edit('\tldxr\t', '\tldaxr\t'))
		self.assertIn('LL/SC: LDAXR (1), not the LDXR/STLXR pair', problems)

	def test_no_dmb_fails(self):
		problems = litmus.check_arm64_sequence(self.edit('\tdmb\tish', '\tnop'))
		self.assertEqual(problems, ['LL/SC: the retry branch not followed by DMB ISH'])

	def test_dmb_ishld_fails(self):
		problems = litmus.check_arm64_sequence(self.edit('\tdmb\tish', '\tdmb\tishld'))
		self.assertEqual(problems, ['LL/SC: the retry branch not followed by DMB ISH'])

	def test_retry_elsewhere_fails(self):
		stlxr = next(i for i, l in enumerate(self.real.splitlines()) if '\tstlxr\t' in l)
		retry = self.real.splitlines(True)[stlxr + 1]
		self.assertIn('\tcbnz\t', retry)
		cbz = retry.replace('\tcbnz\t', '\tcbz\t')
		problems = litmus.check_arm64_sequence(self.edit(retry, cbz))
		self.assertEqual(len(problems), 1)
		self.assertIn('LL/SC: STLXR not followed by CBNZ', problems[0])

	def test_no_compare_before_stlxr_fails(self):
		lines = self.real.splitlines(True)
		ldxr = next(i for i, l in enumerate(lines) if '\tldxr\t' in l)
		cmp_branch = next(l for l in lines[ldxr:] if '\tcbnz\t' in l)
		problems = litmus.check_arm64_sequence(self.edit(cmp_branch, ''))
		self.assertIn('LL/SC: no compare-and-branch between LDXR and STLXR', problems)

	def test_ldxr_and_stlxr_on_two_addresses_fail(self):
		stlxr = next(l for l in self.real.splitlines(True) if '\tstlxr\t' in l)
		address = re.search(r'\[(x\d+)\]', stlxr).group(1)
		other = 'x9' if address != 'x9' else 'x8'
		elsewhere = stlxr.replace(f'[{address}]', f'[{other}]')
		problems = litmus.check_arm64_sequence(self.edit(stlxr, elsewhere))
		self.assertEqual(len(problems), 1, problems)
		self.assertIn('not on one address', problems[0])

	def test_empty_fails(self):
		self.assertEqual(litmus.check_arm64_sequence(''),
				 ['no instructions in the disassembly'])


def make_deb(where, name, files):
	"""A minimal .deb with FILES ({path: text}); its path."""
	root = Path(where) / name
	(root / 'DEBIAN').mkdir(parents=True)
	(root / 'DEBIAN' / 'control').write_text(
		f'Package: {name}\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\n'
		'Description: t\n')
	for path, text in files.items():
		(root / path).parent.mkdir(parents=True, exist_ok=True)
		(root / path).write_text(text)
	deb = Path(where) / f'{name}_1_amd64.deb'
	subprocess.run(['dpkg-deb', '--root-owner-group', '-b', str(root), str(deb)], check=True,
				   stdout=subprocess.DEVNULL)
	return deb


class Herd7Cache(unittest.TestCase):
	def setUp(self):
		self.tmp = tempfile.TemporaryDirectory()
		self.addCleanup(self.tmp.cleanup)
		self.dir = Path(self.tmp.name)
		patch = mock.patch.dict(os.environ, {'XDG_CACHE_HOME': str(self.dir / 'xdg')})
		patch.start()
		self.addCleanup(patch.stop)
		self.cache = self.dir / 'xdg' / 'cn-proc-timestamps'
		herd = {litmus.HERD7: 'herd7', litmus.HERD_LIB + '/aarch64.cat': 'cat'}
		self.debs = [make_deb(self.dir, 'libc6', {litmus.LOADER: 'ld'}),
			     make_deb(self.dir, 'herdtools7', herd)]

	def unpack(self, debs):
		with contextlib.redirect_stdout(io.StringIO()):
			return litmus.unpack_root(debs)

	def test_unpacked_whole_under_the_key_of_the_debs(self):
		root = self.unpack(self.debs)
		self.assertEqual(root, self.cache / 'herd7' / litmus.debs_key(self.debs))
		self.assertEqual((root / litmus.HERD7).read_text(), 'herd7')
		self.assertTrue((root / 'SHA256SUMS').is_file())
		self.assertEqual(self.unpack(self.debs), root)
		entries = [p.name for p in (self.cache / 'herd7').iterdir() if p.name != '.lock']
		self.assertEqual(entries, [root.name])

	def test_incomplete_packages_leave_nothing(self):
		with self.assertRaisesRegex(litmus.Error, 'no usr/bin/herd7'):
			self.unpack(self.debs[:1])
		self.assertEqual(list((self.cache / 'herd7').iterdir()), [])

	def test_a_damaged_root_is_unpacked_again(self):
		root = self.unpack(self.debs)
		(root / litmus.HERD7).write_text('damaged')
		with contextlib.redirect_stdout(io.StringIO()) as out:
			self.assertEqual(litmus.unpack_root(self.debs), root)
		self.assertIn('damaged', out.getvalue())
		self.assertEqual((root / litmus.HERD7).read_text(), 'herd7')

	def test_a_cached_root_is_not_unpacked_again(self):
		root = self.unpack(self.debs)
		with mock.patch.object(litmus, 'run', side_effect=AssertionError('ran')):
			self.assertEqual(litmus.unpack_root(self.debs), root)

	def test_key_depends_on_the_contents(self):
		(self.dir / 'other').mkdir()
		other = make_deb(self.dir / 'other', 'libc6', {litmus.LOADER: 'another ld'})
		self.assertNotEqual(litmus.debs_key([other, self.debs[1]]),
				    litmus.debs_key(self.debs))
		self.assertEqual(litmus.debs_key(self.debs[::-1]), litmus.debs_key(self.debs))


if __name__ == '__main__':
	unittest.main()
