#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make mails (scripts/harness_mails.py): it refuses, before
anything is fetched, without a git identity and with the placeholder's;
the mails carry the poster's identity in From: and the last
Signed-off-by:, nowhere the placeholder's; the cover letter's diffstat is
git's; and, on the newest line's pristine tree (the one whose
tools/testing/kunit KUNIT_TOOL names, as the other tests take it),
checkpatch --strict passes on the mails and git am applies them."""
import contextlib
import email.utils
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, 'scripts'))
import harness  # noqa: E402
import harness_config  # noqa: E402
import harness_mails  # noqa: E402
import harness_plan  # noqa: E402
from harness_config import series_patches  # noqa: E402
from harness_kernel import patch_files  # noqa: E402
from harness_util import HarnessError  # noqa: E402

KUNIT_TOOL = os.environ.get('KUNIT_TOOL', '')
SRC = KUNIT_TOOL[:-len('/tools/testing/kunit')] if KUNIT_TOOL.endswith('/tools/testing/kunit') else ''
LINE = types.SimpleNamespace(name='7.3', series_dir=os.path.join(TOP, 'patches'))
TESTER = ('Ada Tester', 'ada.tester@example.org')
PLACEHOLDER = harness_mails.placeholder()


def temp_dir(case):
	d = tempfile.mkdtemp()
	case.addCleanup(shutil.rmtree, d, ignore_errors=True)
	return d


def quiet():
	return contextlib.redirect_stdout(io.StringIO())


def no_identity(tmp):
	"""An environment where git finds no identity (a HOME, XDG config and
	system config without one) and a repository in TMP/repo; returns the
	started patch of os.environ."""
	env = {k: v for k, v in os.environ.items() if not k.startswith(('GIT_', 'EMAIL'))}
	env.update(HOME=tmp, XDG_CONFIG_HOME=tmp, GIT_CONFIG_NOSYSTEM='1')
	patcher = mock.patch.dict(os.environ, env, clear=True)
	patcher.start()
	subprocess.run(['git', 'init', '-q', os.path.join(tmp, 'repo')], check=True)
	return patcher


def config(repo, name=None, addr=None):
	for key, value in (('user.name', name), ('user.email', addr)):
		if value is not None:
			subprocess.run(['git', '-C', repo, 'config', key, value], check=True)


class Identity(unittest.TestCase):
	"""Only what a test sets is the identity git finds."""

	def setUp(self):
		self.tmp = temp_dir(self)
		self.addCleanup(no_identity(self.tmp).stop)
		self.repo = os.path.join(self.tmp, 'repo')

	def config(self, name=None, addr=None):
		config(self.repo, name, addr)

	def refused(self, what):
		with self.assertRaises(HarnessError) as cm, quiet():
			harness_mails.the_poster(repo=self.repo)
		self.assertIn(what, str(cm.exception))

	def test_no_identity_is_refused(self):
		self.refused('no git identity')

	def test_make_mails_refuses_before_anything_is_fetched(self):
		def fetch(*args):
			raise AssertionError('the source was fetched before the identity was checked')
		opts = harness_config.Options(out=os.path.join(self.tmp, 'out'))
		with mock.patch.object(harness, 'newest_source', fetch), \
		     mock.patch.object(harness_mails, 'git_identity', return_value=('', '')), \
		     self.assertRaises(HarnessError) as cm, quiet():
			harness.mails_handler(opts, harness.Lines.load(opts), harness_plan.Real())
		self.assertIn('no git identity', str(cm.exception))
		self.assertFalse(os.path.exists(os.path.join(self.tmp, 'out', 'mails')))

	def test_a_name_without_an_email_is_refused(self):
		self.config(name=TESTER[0])
		self.refused('no git identity')

	def test_an_email_without_a_name_is_refused(self):
		self.config(addr=TESTER[1])
		self.refused('no git identity')

	def test_the_placeholder_is_refused(self):
		self.config(*PLACEHOLDER)
		self.refused('placeholder')

	def test_the_placeholders_email_under_another_name_is_refused(self):
		self.config(TESTER[0], PLACEHOLDER[1])
		self.refused('placeholder')

	def test_the_placeholders_name_with_another_email_is_refused(self):
		self.config(PLACEHOLDER[0], TESTER[1])
		self.refused('placeholder')

	def test_the_posters_identity_is_taken(self):
		self.config(*TESTER)
		self.assertEqual(harness_mails.poster(self.repo, PLACEHOLDER), TESTER)


class SignedBy(unittest.TestCase):
	def test_the_placeholders_become_the_posters(self):
		msg = f'x: y\n\nBody.\n\nSigned-off-by: {harness_mails.fmt(PLACEHOLDER)}\nCc: a@b.c\n'
		out = harness_mails.signed_by(msg, PLACEHOLDER, TESTER)
		self.assertNotIn(PLACEHOLDER[1], out)
		self.assertEqual(harness_mails.SOB.findall(out), [harness_mails.fmt(TESTER)])

	def test_the_poster_signs_last(self):
		other = 'Co Developer <co@example.org>'
		out = harness_mails.signed_by(f'x: y\n\nBody.\n\nSigned-off-by: {other}\n', PLACEHOLDER, TESTER)
		self.assertEqual(harness_mails.SOB.findall(out), [other, harness_mails.fmt(TESTER)])

	def test_the_patches_carry_the_placeholder(self):
		"""What make mails replaces is what the patches have."""
		for p in series_patches(LINE.series_dir):
			text = open(p).read()
			self.assertEqual(email.utils.parseaddr(' '.join(re.search(r'^From: (.*\n(?: .*\n)*)', text,
										     re.M).group(1).split())),
					 PLACEHOLDER, p)
			self.assertIn(f'Signed-off-by: {harness_mails.fmt(PLACEHOLDER)}', text, p)


@unittest.skipUnless(SRC, 'KUNIT_TOOL: no pristine tree of the newest line')
class Mails(unittest.TestCase):
	"""make mails with a test identity on the pristine 7.3 tree, once for
	every case here."""

	@classmethod
	def setUpClass(cls):
		cls.tmp = tempfile.mkdtemp()
		cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
		cls.addClassCleanup(no_identity(cls.tmp).stop)
		config(os.path.join(cls.tmp, 'repo'), *TESTER)
		cls.checkpatch_runs = []
		real_run = harness_mails.run

		def run(argv, **kw):
			if 'scripts/checkpatch.pl' in argv:
				cls.checkpatch_runs.append(os.path.basename(argv[-1]))
			return real_run(argv, **kw)
		with quiet(), mock.patch.object(harness_mails, 'run', run):
			harness_mails.mails(LINE, SRC, os.path.join(cls.tmp, 'out'),
					    harness_mails.the_poster(repo=os.path.join(cls.tmp, 'repo')))
		d = os.path.join(cls.tmp, 'out', 'mails')
		cls.mails = sorted(os.path.join(d, f) for f in os.listdir(d))
		cls.patches = series_patches(LINE.series_dir)

	def headers(self, path):
		return harness_mails.header(path)

	def test_one_mail_per_patch_and_a_cover_letter(self):
		self.assertEqual(len(self.mails), len(self.patches) + 1)
		self.assertTrue(self.mails[0].endswith('0000-cover-letter.patch'))
		n = len(self.patches)
		for i, m in enumerate(self.mails):
			self.assertIn(f'[PATCH {i}/{n}]', ' '.join(self.headers(m)['Subject'].split()))

	def test_from_is_the_poster(self):
		for m in self.mails:
			self.assertEqual(email.utils.parseaddr(' '.join(self.headers(m)['From'].split())), TESTER, m)

	def test_the_last_signed_off_by_is_the_posters(self):
		for m in self.mails[1:]:
			msg = open(m).read().split('\n---\n', 1)[0]
			self.assertEqual(harness_mails.SOB.findall(msg)[-1], harness_mails.fmt(TESTER), m)

	def test_the_placeholder_is_nowhere(self):
		for m in self.mails:
			text = open(m).read()
			self.assertNotIn(PLACEHOLDER[1], text, m)
			self.assertNotIn(PLACEHOLDER[0], text, m)

	def test_the_cover_letter_is_the_series_with_gits_diffstat(self):
		text = open(self.mails[0]).read()
		subject, body = harness_mails.cover_text()
		self.assertIn(subject, ' '.join(self.headers(self.mails[0])['Subject'].split()))
		self.assertIn(body, text)
		added = removed = 0
		for p in self.patches:
			# the diff, without format-patch's "-- " signature
			diff = open(p).read().split('\ndiff --git ', 1)[1].rsplit('\n-- \n', 1)[0]
			added += len(re.findall(r'^\+(?!\+\+ )', diff, re.M))
			removed += len(re.findall(r'^-(?!-- )', diff, re.M))
		stat = re.search(r'^ \d+ files? changed, (\d+) insertions?\(\+\)(?:, (\d+) deletions?\(-\))?$', text, re.M)
		self.assertIsNotNone(stat)
		self.assertEqual((int(stat.group(1)), int(stat.group(2) or 0)), (added, removed))

	def test_to_and_cc(self):
		h = self.headers(self.mails[0])
		to = [a[1] for a in email.utils.getaddresses(h.get_all('To', []))]
		cc = [a[1] for a in email.utils.getaddresses(h.get_all('Cc', []))]
		self.assertIn('tglx@kernel.org', to)		# get_maintainer.pl, timekeeping
		self.assertIn('kuba@kernel.org', to)		# get_maintainer.pl, networking
		self.assertIn('linux-api@vger.kernel.org', cc)
		self.assertIn('linux-kernel@vger.kernel.org', cc)
		self.assertIn('lkmm@lists.linux.dev', cc)	# the cover letter's own
		self.assertEqual(len(to + cc), len(set(to + cc)))

	def test_checkpatch_strict_passed(self):
		"""mails() ran checkpatch --strict on each patch mail (and would
		have failed on anything but a clean result: CheckMails)."""
		self.assertEqual(self.checkpatch_runs, [os.path.basename(m) for m in self.mails[1:]])

	def test_git_am_applies_them_on_the_pristine_tree(self):
		repo = os.path.join(self.tmp, 'am')
		os.makedirs(repo)
		for f in patch_files(self.patches):
			if os.path.isfile(os.path.join(SRC, f)):
				os.makedirs(os.path.dirname(os.path.join(repo, f)), exist_ok=True)
				shutil.copy(os.path.join(SRC, f), os.path.join(repo, f))
		git = ['git', '-C', repo, '-c', f'user.name={TESTER[0]}', '-c', f'user.email={TESTER[1]}']
		subprocess.run(git[:3] + ['init', '-q'], check=True)
		subprocess.run(git + ['add', '-A'], check=True)
		subprocess.run(git + ['commit', '-q', '-m', 'pristine'], check=True)
		proc = subprocess.run(git + ['am', *self.mails[1:]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
				      text=True)
		self.assertEqual(proc.returncode, 0, proc.stdout)
		log = subprocess.run(git + ['log', '--format=%an <%ae>', f'HEAD~{len(self.patches)}..HEAD'],
				     stdout=subprocess.PIPE, text=True, check=True).stdout.split('\n')
		self.assertEqual([l for l in log if l], [harness_mails.fmt(TESTER)] * len(self.patches))


class CheckMails(unittest.TestCase):
	"""check_mails() passes only checkpatch's clean total, on crafted
	checkpatch output (the pristine tree is not needed)."""

	def check(self, total, returncode=0):
		def run(argv, **kw):
			if 'scripts/checkpatch.pl' in argv:
				return subprocess.CompletedProcess(argv, returncode, f'{total}\n', None)
			raise AssertionError(f'git am ran after checkpatch: {argv}')
		with quiet(), mock.patch.object(harness_mails, 'run', run), \
		     mock.patch.object(harness_mails, 'base_repo', lambda *a: None):
			harness_mails.check_mails('/nonexistent', [], ['cover', 'mail'], '/nonexistent', TESTER)

	def refused(self, total, returncode=0):
		with self.assertRaises(HarnessError) as cm:
			self.check(total, returncode)
		self.assertIn('checkpatch --strict', str(cm.exception))

	def test_a_warning_fails(self):
		self.refused('total: 0 errors, 1 warnings, 0 checks, 315 lines checked')

	def test_a_check_fails(self):
		self.refused('total: 0 errors, 0 warnings, 1 checks, 315 lines checked')

	def test_an_error_fails(self):
		self.refused('total: 1 errors, 0 warnings, 0 checks, 315 lines checked', returncode=1)

	def test_no_total_fails(self):
		self.refused('Usage: checkpatch.pl')

	def test_clean_passes_to_git_am(self):
		with self.assertRaisesRegex(AssertionError, 'git am ran'):
			self.check('total: 0 errors, 0 warnings, 0 checks, 315 lines checked')


if __name__ == '__main__':
	unittest.main()
