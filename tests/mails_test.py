#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make mails (scripts/harness_mails.py): it refuses, before
anything is fetched, without a git identity and with the placeholder's;
on a fake git tree (stubs of get_maintainer.pl and checkpatch.pl, no
kernel tree needed) with a later commit, the mails carry the poster's
identity in From: and the last Signed-off-by:, nowhere the
placeholder's, the version in every subject, every address the stub
names once in its header as getaddresses() and git send-email
--dry-run read them, base-commit: the tree's HEAD, and the tree is left
as it was; the trees it refuses, and what it says of them; and each
check of the mails failing on crafted mails and tool output. make
check's "mails" step runs it on a real tree."""
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
import harness_kernel  # noqa: E402
import harness_mails  # noqa: E402
import harness_patches  # noqa: E402
from harness_config import series_patches  # noqa: E402
from harness_util import HarnessError  # noqa: E402

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
		with mock.patch.object(harness_kernel, 'newest_source', fetch), \
		     mock.patch.object(harness_mails, 'git_identity', return_value=('', '')), \
		     quiet(), contextlib.redirect_stderr(io.StringIO()) as err:
			self.assertNotEqual(harness.main(['mails', '--out', opts.out]), 0)
		self.assertIn('no git identity', err.getvalue())
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


# A fake kernel tree: a few files, and scripts/get_maintainer.pl and
# checkpatch.pl stubs. The get_maintainer.pl stub names the addresses of
# GM_ENTRIES (with their roles unless --norolestats; each role left out by
# --nom, --nor, --nol), the roles with brackets of their own as
# PREEMPT_RT's are.
RT = 'Real-time Linux (PREEMPT_RT):Keyword:PREEMPT_RT'
GM_ENTRIES = (('Thomas Gleixner <tglx@kernel.org>', 'maintainer:TIMEKEEPING', 'm'),
	      ('Sebastian Andrzej Siewior <bigeasy@linutronix.de>', f'maintainer:{RT}', 'm'),
	      ('Clark Williams <clrkwllms@kernel.org>', f'maintainer:{RT}', 'm'),
	      ('Stephen Boyd <sboyd@kernel.org>', 'reviewer:TIMEKEEPING', 'r'),
	      ('linux-rt-devel@lists.linux.dev', f'open list:{RT}', 'l'),
	      ('netdev@vger.kernel.org', 'open list:NETWORKING', 'l'),
	      ('linux-kernel@vger.kernel.org', 'open list', 'l'))
GET_MAINTAINER = """#!/usr/bin/perl
my %o = map { $_ => 1 } grep { /^--/ } @ARGV;
for my $e (ENTRIES) {
	next if $o{"--no$e->[2]"};
	print $o{'--norolestats'} ? "$e->[0]\\n" : "$e->[0] ($e->[1])\\n";
}
""".replace('ENTRIES', ', '.join("['%s', '%s', '%s']" % e for e in GM_ENTRIES))
CHECKPATCH = '#!/usr/bin/perl\nprint "total: 0 errors, 0 warnings, 0 checks, 9 lines checked\\n";\n'
FAKE_FILES = {'kernel/time.c': ''.join(f'int t{i};\n' for i in range(30)),
	      'drivers/connector/cn_proc.c': ''.join(f'int c{i};\n' for i in range(30))}
# What the fake series changes: (file, line, new line, subject).
FAKE_PATCHES = (('kernel/time.c', 5, 'int t5 = 1;\n', 'time: Set t5'),
		('drivers/connector/cn_proc.c', 5, 'int c5 = 1;\n', 'cn_proc: Set c5'))
COVER_TO = ('Jakub Kicinski <kuba@kernel.org>', 'Thomas Gleixner <tglx@kernel.org>')
COVER_CC = ('lkmm@lists.linux.dev', 'Will Deacon <will@kernel.org>')


def sh(*argv, cwd=None, ident=TESTER, check=True):
	env = dict(os.environ, GIT_AUTHOR_NAME=ident[0], GIT_AUTHOR_EMAIL=ident[1], GIT_COMMITTER_NAME=ident[0],
		   GIT_COMMITTER_EMAIL=ident[1])
	return subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
			      check=check)


def write(path, text, mode='w'):
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, mode) as f:
		f.write(text)


def set_line(tree, path, n, text):
	with open(os.path.join(tree, path)) as f:
		lines = f.readlines()
	lines[n] = text
	write(os.path.join(tree, path), ''.join(lines))


def fake_tree(tmp, patchlevel=3, version=harness_mails.VERSION, changes_since=None):
	"""TMP/linux, a git tree of Linux 7.PATCHLEVEL with the stubs, and
	TMP/series, a series of two patches for it (the placeholder's, as
	patches/ has them) with a cover letter of VERSION; the tree and a
	line whose series it is."""
	tree, series = os.path.join(tmp, 'linux'), os.path.join(tmp, 'series')
	write(os.path.join(tree, 'Makefile'), f'VERSION = 7\nPATCHLEVEL = {patchlevel}\n')
	write(os.path.join(tree, 'scripts/get_maintainer.pl'), GET_MAINTAINER)
	write(os.path.join(tree, 'scripts/checkpatch.pl'), CHECKPATCH)
	for path, text in FAKE_FILES.items():
		write(os.path.join(tree, path), text)
	sh('git', 'init', '-q', tree)
	sh('git', 'add', '-A', cwd=tree)
	sh('git', 'commit', '-q', '-m', 'Linux 7.x', cwd=tree)
	for path, n, text, subject in FAKE_PATCHES:
		set_line(tree, path, n, text)
		sh('git', 'commit', '-q', '-a', '-m', f'{subject}\n\nBecause.\n\nSigned-off-by: {harness_mails.fmt(PLACEHOLDER)}',
		   cwd=tree, ident=PLACEHOLDER)
	sh('git', 'format-patch', '-q', '-o', series, 'HEAD~2', cwd=tree)
	sh('git', 'reset', '-q', '--hard', 'HEAD~2', cwd=tree)
	names = sorted(os.listdir(series))
	write(os.path.join(series, 'series'), ''.join(f'{n}\n' for n in names))
	since = version - 1 if changes_since is None else changes_since
	write(os.path.join(series, '0000-cover-letter.patch'),
	      f'From: {harness_mails.fmt(PLACEHOLDER)}\nTo: {", ".join(COVER_TO)}\nCc: {", ".join(COVER_CC)}\n'
	      f'Subject: [PATCH 0/2] fake: A series\n\nThe text.\n\nChanges since v{since}:\n - a change\n\n'
	      f'{PLACEHOLDER[0]} (2):\n  time: Set t5\n')
	return tree, types.SimpleNamespace(name='7.3', series_dir=series)


def state(tree):
	"""HEAD, the index's bytes, the status and the refs of TREE, read as
	this test reads them."""
	with open(os.path.join(tree, '.git', 'index'), 'rb') as f:
		index = f.read()
	git = ['git', '--no-optional-locks', '-C', tree]
	return (sh(*git, 'rev-parse', 'HEAD').stdout, index, sh(*git, 'status', '--porcelain', '--ignored').stdout,
		sh(*git, 'for-each-ref').stdout, sh(*git, 'worktree', 'list').stdout)


def addresses(path, name):
	return [a.lower() for _, a in email.utils.getaddresses(harness_mails.header(path).get_all(name, []))]


def make_mails(tree, line, out):
	"""make mails as TESTER on TREE, KSRC, in OUT; the mails."""
	with quiet():
		harness_mails.mails(line, harness_mails.poster_tree(tree, line), out, harness_mails.Poster(TESTER, PLACEHOLDER))
	d = os.path.join(out, 'mails')
	return sorted(os.path.join(d, f) for f in os.listdir(d))


class OnTheTree(unittest.TestCase):
	"""make mails on a fake git tree with a later commit touching a file
	the series touches, as a poster's tree."""

	@classmethod
	def setUpClass(cls):
		cls.tmp = tempfile.mkdtemp()
		cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
		cls.tree, cls.line = fake_tree(cls.tmp)
		write(os.path.join(cls.tree, 'kernel/time.c'), 'int later;\n', 'a')
		sh('git', 'commit', '-q', '-a', '-m', 'time: A later commit', cwd=cls.tree)
		cls.head = sh('git', 'rev-parse', 'HEAD', cwd=cls.tree).stdout.strip()
		cls.before = state(cls.tree)
		cls.checkpatch_runs = []
		real_run = harness_mails.run

		def run(argv, **kw):
			if 'scripts/checkpatch.pl' in argv:
				cls.checkpatch_runs.append(os.path.basename(argv[-1]))
			return real_run(argv, **kw)
		with mock.patch.object(harness_mails, 'run', run), mock.patch.object(harness_patches, 'run', run):
			cls.mails = make_mails(cls.tree, cls.line, os.path.join(cls.tmp, 'out'))
		cls.after = state(cls.tree)

	def test_one_mail_per_patch_and_a_cover_letter(self):
		self.assertEqual(len(self.mails), 3)
		self.assertTrue(self.mails[0].endswith('0000-cover-letter.patch'))

	def test_every_subject_has_the_version(self):
		for i, m in enumerate(self.mails):
			subject = ' '.join(harness_mails.header(m)['Subject'].split())
			self.assertTrue(subject.startswith(f'[PATCH v{harness_mails.VERSION} {i}/2] '), subject)
		self.assertIn('fake: A series', ' '.join(harness_mails.header(self.mails[0])['Subject'].split()))

	def test_every_address_once_in_its_header(self):
		"""As getaddresses() reads To: and Cc:, each address the stub names
		is there once: maintainers and reviewers in To:, lists in Cc:."""
		people = [email.utils.parseaddr(e[0])[1] for e in GM_ENTRIES if e[2] in 'mr']
		lists = [e[0] for e in GM_ENTRIES if e[2] == 'l']
		own = [email.utils.parseaddr(a)[1].lower() for a in COVER_TO + COVER_CC]
		for m in self.mails:
			to, cc = addresses(m, 'To'), addresses(m, 'Cc')
			self.assertEqual(to, people, m)
			self.assertEqual(cc, lists + [a for a in own if a not in people] + ['linux-api@vger.kernel.org'], m)
			self.assertEqual(len(to + cc), len(set(to + cc)), m)

	def test_git_send_email_sends_each_to_its_to_and_cc(self):
		proc = sh('git', 'send-email', '--dry-run', '--smtp-server=localhost', '--smtp-domain=localhost',
			  '--confirm=never', '--suppress-cc=self', '--suppress-cc=body', f'--from={harness_mails.fmt(TESTER)}',
			  *self.mails, cwd=self.tree)
		blocks = proc.stdout.split('Dry-OK. Log says:')[1:]
		self.assertEqual(len(blocks), len(self.mails), proc.stdout)
		for m, block in zip(self.mails, blocks):
			rcpt = re.findall(r'^RCPT TO:<([^>]*)>$', block, re.M)
			self.assertEqual(sorted(rcpt), sorted(addresses(m, 'To') + addresses(m, 'Cc')), m)

	def test_base_commit_is_the_trees_head(self):
		self.assertEqual(re.findall(r'^base-commit: (\S+)$', open(self.mails[0]).read(), re.M), [self.head])

	def test_the_tree_is_as_it_was(self):
		self.assertEqual(self.after, self.before)

	def test_from_is_the_poster(self):
		for m in self.mails:
			self.assertEqual(email.utils.parseaddr(' '.join(harness_mails.header(m)['From'].split())), TESTER, m)

	def test_the_last_signed_off_by_is_the_posters(self):
		for m in self.mails[1:]:
			msg = open(m).read().split('\n---\n', 1)[0]
			self.assertEqual(harness_mails.SOB.findall(msg)[-1], harness_mails.fmt(TESTER), m)

	def test_the_placeholder_is_nowhere(self):
		for m in self.mails:
			text = open(m).read()
			self.assertNotIn(PLACEHOLDER[1], text, m)
			self.assertNotIn(PLACEHOLDER[0], text, m)

	def test_the_cover_letter_is_the_series_with_gits_shortlog(self):
		text = open(self.mails[0]).read()
		self.assertIn('The text.\n', text)
		self.assertIn(f'{TESTER[0]} (2):\n  time: Set t5\n  cn_proc: Set c5\n', text)
		self.assertIn(' 2 files changed, 2 insertions(+), 2 deletions(-)', text)

	def test_checkpatch_strict_ran_on_each_patch_mail(self):
		self.assertEqual(self.checkpatch_runs, [os.path.basename(m) for m in self.mails[1:]])


class Trees(unittest.TestCase):
	"""Which trees make mails takes, and what it says of the others."""

	def setUp(self):
		self.tmp = temp_dir(self)

	def refused(self, tree, line, what):
		before = state(tree)
		with self.assertRaises(HarnessError) as cm, quiet():
			make_mails(tree, line, os.path.join(self.tmp, 'out'))
		self.assertIn(what, str(cm.exception))
		self.assertEqual(state(tree), before)
		return str(cm.exception)

	def test_a_tree_that_carries_the_series_is_said_to(self):
		tree, line = fake_tree(self.tmp)
		sh('git', 'am', '-q', *series_patches(line.series_dir), cwd=tree)
		self.refused(tree, line, 'already carries the series')

	def test_a_conflict_is_said(self):
		tree, line = fake_tree(self.tmp)
		set_line(tree, 'drivers/connector/cn_proc.c', 5, 'int c5 = 2;\n')
		sh('git', 'commit', '-q', '-a', '-m', 'cn_proc: c5 is 2', cwd=tree)
		said = self.refused(tree, line, 'conflicts in drivers/connector/cn_proc.c')
		self.assertIn('0002-cn_proc-Set-c5.patch does not apply', said)

	def test_a_change_to_the_tree_fails(self):
		"""Were anything to change the poster's tree while the mails are
		made, make mails would fail."""
		tree, line = fake_tree(self.tmp)
		real = harness_mails.write_mails

		def write_mails(*args):
			sh('git', 'commit', '-q', '--allow-empty', '-m', "a commit in the poster's tree", cwd=tree)
			return real(*args)
		with mock.patch.object(harness_mails, 'write_mails', write_mails), self.assertRaises(HarnessError) as cm, \
		     quiet():
			make_mails(tree, line, os.path.join(self.tmp, 'out'))
		self.assertIn('changed while the mails were made', str(cm.exception))

	def test_a_newer_tree_is_taken(self):
		tree, line = fake_tree(self.tmp, patchlevel=4)
		self.assertEqual(len(make_mails(tree, line, os.path.join(self.tmp, 'out'))), 3)

	def test_make_mails_takes_a_newer_tree(self):
		"""KSRC a 7.4 tree reaches make mails, and is its base."""
		tree, _ = fake_tree(self.tmp, patchlevel=4)
		got = []
		with mock.patch.object(harness_mails, 'the_poster', return_value=None), \
		     mock.patch.object(harness_mails, 'mails', lambda line, base, out, who: got.append(base) or 0), \
		     quiet(), contextlib.redirect_stderr(io.StringIO()) as err:
			self.assertEqual(harness.main(['mails', '--ksrc', tree, '--out', os.path.join(self.tmp, 'out')]), 0,
					 err.getvalue())
		self.assertEqual([b.repo for b in got], [os.path.realpath(tree)])

	def test_an_older_tree_is_refused(self):
		tree, line = fake_tree(self.tmp, patchlevel=2)
		self.refused(tree, line, 'older than 7.3')

	def test_a_tree_without_git_is_refused(self):
		tree, line = fake_tree(self.tmp)
		shutil.rmtree(os.path.join(tree, '.git'))
		with self.assertRaises(HarnessError) as cm:
			harness_mails.poster_tree(tree, line)
		self.assertIn('not the top of a git tree', str(cm.exception))

	def test_the_series_cover_letter_is_of_the_version(self):
		"""patches/0000-cover-letter.patch's newest changelog is since
		v(VERSION-1): make mails would write the series' mails."""
		harness_mails.check_version()
		with self.assertRaises(HarnessError):
			harness_mails.check_version(version=harness_mails.VERSION + 1)

	def test_a_cover_letter_whose_subject_names_another_version_is_refused(self):
		v = harness_mails.VERSION
		cover = os.path.join(self.tmp, '0000-cover-letter.patch')
		for subject, refused in ((f'[PATCH v{v - 1} 0/2]', True), (f'[PATCH v{v + 1} 0/2]', True),
					 (f'[PATCH v{v} 0/2]', False), ('[PATCH 0/2]', False)):
			write(cover, f'Subject: {subject} fake: A series\n\nChanges since v{v - 1}:\n')
			with self.subTest(subject=subject):
				if refused:
					with self.assertRaisesRegex(HarnessError, 'its subject says v'):
						harness_mails.check_version(cover)
				else:
					harness_mails.check_version(cover)

	def test_a_cover_letter_of_another_version_is_refused(self):
		tree, line = fake_tree(self.tmp, changes_since=harness_mails.VERSION - 2)
		self.refused(tree, line, f'its changelog must say "Changes since v{harness_mails.VERSION - 1}:"')


def two_postings(tmp):
	"""fake_tree()'s tree and line, its first patch moved to a posting of
	its own in series/net/, with a cover letter of version 1 and a report
	for the security team."""
	tree, line = fake_tree(tmp)
	series = line.series_dir
	first = sorted(f for f in os.listdir(series) if f.startswith('0001-'))[0]
	os.makedirs(os.path.join(series, 'net'))
	os.rename(os.path.join(series, first), os.path.join(series, 'net', first))
	with open(os.path.join(series, 'series')) as f:
		names = [f'net/{first}'] + [n for n in f.read().split() if n != first]
	write(os.path.join(series, 'series'), ''.join(f'{n}\n' for n in names))
	write(os.path.join(series, 'net', '0000-cover-letter.patch'),
	      f'From: {harness_mails.fmt(PLACEHOLDER)}\nSubject: [PATCH net 0/1] time: A fix\n\n'
	      f'The fix.\n\n{PLACEHOLDER[0]} (1):\n  time: Set t5\n')
	write(os.path.join(series, 'net', 'report.txt'), 'time: anyone can set t5\n')
	return tree, line


class Postings(unittest.TestCase):
	"""A series of two postings, net's fix first: each its own mails,
	subjects, cover letter and recipients; the series' mails name the
	fix as their prerequisite; the report goes to the maintainers and the
	security team."""

	@classmethod
	def setUpClass(cls):
		cls.tmp = tempfile.mkdtemp()
		cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
		cls.tree, cls.line = two_postings(cls.tmp)
		cls.out = os.path.join(cls.tmp, 'out')
		with quiet():
			cls.written = harness_mails.mails(cls.line, harness_mails.poster_tree(cls.tree, cls.line),
							  cls.out, harness_mails.Poster(TESTER, PLACEHOLDER))

	def test_the_postings_in_the_series_order(self):
		posts = harness_mails.postings(self.line.series_dir)
		self.assertEqual([(p.directory, len(p.patches), p.prefix) for p in posts],
				 [('net', 1, 'PATCH net'), ('', 1, f'PATCH v{harness_mails.VERSION}')])

	def test_each_posting_in_its_directory_with_its_subjects(self):
		net, series = self.written
		self.assertEqual(os.path.dirname(net.mails[0]), os.path.join(self.out, 'mails', 'net'))
		self.assertEqual(os.path.dirname(series.mails[0]), os.path.join(self.out, 'mails'))
		for w, prefix in ((net, 'PATCH net'), (series, f'PATCH v{harness_mails.VERSION}')):
			self.assertEqual([' '.join(harness_mails.header(m)['Subject'].split())[:len(prefix) + 6]
					  for m in w.mails], [f'[{prefix} 0/1]', f'[{prefix} 1/1]'])
		self.assertIn('time: A fix', harness_mails.header(net.mails[0])['Subject'])

	def test_the_series_names_the_fix_as_its_prerequisite(self):
		net, series = self.written
		text = open(series.mails[0]).read()
		self.assertEqual(len(re.findall(r'^prerequisite-patch-id: \S+$', text, re.M)), 1)
		self.assertNotIn('prerequisite-patch-id:', open(net.mails[0]).read())

	def test_the_report_says_to_whom_then_reports(self):
		net, series = self.written
		self.assertEqual(series.report, '')
		text = open(net.report).read()
		head, body = text.split(' ]\n\n', 1)
		self.assertEqual(body, 'time: anyone can set t5\n')
		for e in GM_ENTRIES:
			if e[2] == 'm':
				self.assertIn(e[0], head)
			else:
				self.assertNotIn(e[0], head)
		self.assertIn(f'Cc: {harness_mails.SECURITY_TEAM}', head)

	def test_a_first_posting_has_no_changelog(self):
		cover = os.path.join(self.line.series_dir, 'net', '0000-cover-letter.patch')
		harness_mails.check_version(cover, 1)
		write(cover, 'Subject: [PATCH net 0/1] x\n\nChanges since v1:\n')
		with self.assertRaisesRegex(HarnessError, 'its posting is the first'):
			harness_mails.check_version(cover, 1)

	def test_a_directory_that_is_no_posting_is_refused(self):
		d = temp_dir(self)
		write(os.path.join(d, 'other', '0001-x.patch'), 'x')
		write(os.path.join(d, 'series'), 'other/0001-x.patch\n')
		with self.assertRaisesRegex(HarnessError, 'other/ is no posting'):
			harness_mails.postings(d)

	def test_a_postings_patches_apart_are_refused(self):
		d = temp_dir(self)
		for n in ('net/0001-a.patch', '0001-b.patch', 'net/0002-c.patch'):
			write(os.path.join(d, n), 'x')
		write(os.path.join(d, 'series'), 'net/0001-a.patch\n0001-b.patch\nnet/0002-c.patch\n')
		with self.assertRaisesRegex(HarnessError, 'not together'):
			harness_mails.postings(d)

	def test_the_stored_cover_letters_are_held_to_the_written(self):
		"""Equal but for identity, date and base; a diffstat of other, a
		recipient missing or a subject of another version differs."""
		net, series = self.written
		for w in self.written:
			stored = open(w.mails[0]).read().replace(harness_mails.fmt(TESTER), harness_mails.fmt(PLACEHOLDER))
			stored = re.sub(r'^Date: .*$', 'Date: Mon, 7 Dec 2026 12:00:00 +0000', stored, flags=re.M)
			stored = re.sub(r'^(base-commit|prerequisite-patch-id): .*\n', '', stored, flags=re.M)
			write(w.posting.cover, stored)
		with quiet():
			harness_mails.check_cover_letters(self.written, TESTER, PLACEHOLDER)
		good = open(series.posting.cover).read()
		for bad in (good.replace('1 file changed', '2 files changed'),
			    good.replace('Subject: [PATCH v', 'Subject: [PATCH net v'),
			    re.sub(r'^Cc: .*\n', '', good, count=1, flags=re.M)):
			write(series.posting.cover, bad)
			with self.assertRaisesRegex(HarnessError, 'is not the cover letter make mails writes'), \
			     quiet():
				harness_mails.check_cover_letters(self.written, TESTER, PLACEHOLDER)


def crafted(case, to, cc, subject='[PATCH v7 1/1] x: y'):
	path = os.path.join(temp_dir(case), '0001-x.patch')
	write(path, f'From: {harness_mails.fmt(TESTER)}\nTo: {to}\nCc: {cc}\nSubject: {subject}\n\nBody.\n')
	return path


class Receivers(unittest.TestCase):
	"""What check_mails() holds the mails to, on crafted mails and
	crafted tool output."""
	NAMED = ['tglx@kernel.org', 'bigeasy@linutronix.de', 'clrkwllms@kernel.org', 'rostedt@goodmis.org',
		 'linux-rt-devel@lists.linux.dev', 'netdev@vger.kernel.org']
	TO = ['Thomas Gleixner <tglx@kernel.org>', 'Sebastian Andrzej Siewior <bigeasy@linutronix.de>',
	      'Clark Williams <clrkwllms@kernel.org>', 'Steven Rostedt <rostedt@goodmis.org>']
	CC = ['linux-rt-devel@lists.linux.dev', 'netdev@vger.kernel.org']

	def wrong(self, to, cc):
		return harness_mails.check_recipients([crafted(self, to, cc)], self.NAMED, self.TO, self.CC)

	def test_right_mails_pass(self):
		self.assertEqual(self.wrong(', '.join(self.TO), ', '.join(self.CC)), [])

	def test_the_role_comments_of_v6_lose_addresses(self):
		"""v6's To:, each address with half its role (issue 45)."""
		to = ', '.join(f'{a} (maintainer:Real-time Linux' for a in self.TO[1:]) + \
			', linux-rt-devel@lists.linux.dev (open list:Real-time Linux'
		wrong = self.wrong(to, ', '.join(self.CC[1:]))
		self.assertTrue(any('clrkwllms@kernel.org, named by get_maintainer.pl, is missing' in w for w in wrong), wrong)

	def test_a_missing_address_fails(self):
		wrong = self.wrong(', '.join(self.TO[:-1]), ', '.join(self.CC))
		self.assertIn('0001-x.patch: rostedt@goodmis.org, named by get_maintainer.pl, is missing', wrong)

	def test_an_address_twice_fails(self):
		wrong = self.wrong(', '.join(self.TO), ', '.join(self.CC + ['TGLX@kernel.org']))
		self.assertIn('0001-x.patch: tglx@kernel.org is there 2 times', wrong)

	def test_a_list_in_to_fails(self):
		wrong = self.wrong(', '.join(self.TO + self.CC[:1]), ', '.join(self.CC[1:]))
		self.assertIn('0001-x.patch: linux-rt-devel@lists.linux.dev is not in Cc:', wrong)

	def test_a_subject_without_the_version_fails(self):
		for subject in ('[PATCH 1/1] x: y', f'[PATCH v{harness_mails.VERSION - 1} 1/1] x: y', '[PATCH v7 1/2] x: y'):
			cover = crafted(self, 'a@b.c', 'd@e.f', f'[PATCH v{harness_mails.VERSION} 0/1] x')
			mail = crafted(self, 'a@b.c', 'd@e.f', subject)
			self.assertEqual(len(harness_mails.check_subjects([cover, mail])), 1, subject)
		mail = crafted(self, 'a@b.c', 'd@e.f', f'[PATCH v{harness_mails.VERSION} 1/1] x: y')
		self.assertEqual(harness_mails.check_subjects([cover, mail]), [])

	def test_git_send_email_to_other_than_the_headers_fails(self):
		mail = crafted(self, ', '.join(self.TO), ', '.join(self.CC))
		subject = '[PATCH v7 1/1] x: y'
		rcpt = [email.utils.parseaddr(a)[1] for a in self.TO + self.CC]
		self.assertEqual(harness_mails.check_sent([mail], {subject: rcpt}, TESTER), [])
		for sent in ({subject: rcpt[1:]}, {subject: rcpt + ['stable+noautosel@kernel.org']}, {}):
			self.assertTrue(harness_mails.check_sent([mail], sent, TESTER), sent)

	def test_get_maintainer_output_with_roles_is_refused(self):
		def run(argv, **kw):
			return subprocess.CompletedProcess(argv, 0, f'Clark Williams <clrkwllms@kernel.org> (maintainer:{RT})\n')
		with mock.patch.object(harness_mails, 'run', run), self.assertRaises(HarnessError) as cm:
			harness_mails.get_maintainer('/nonexistent', [], ('--m',))
		self.assertIn('is not one address', str(cm.exception))

	def test_named_finds_every_address_whatever_its_role(self):
		out = ''.join(f'{e[0]} ({e[1]})\n' for e in GM_ENTRIES)
		with mock.patch.object(harness_mails, 'run', lambda argv, **kw: subprocess.CompletedProcess(argv, 0, out)):
			self.assertEqual(harness_mails.named('/nonexistent', []),
					 [email.utils.parseaddr(e[0])[1].lower() for e in GM_ENTRIES])

	def test_base_commit(self):
		cover = crafted(self, 'a@b.c', 'd@e.f')
		with open(cover, 'a') as f:
			f.write('base-commit: 1234\n')
		self.assertEqual(harness_mails.check_base(cover, harness_mails.Base('r', '1234', True)), [])
		self.assertTrue(harness_mails.check_base(cover, harness_mails.Base('r', '5678', True)))
		self.assertTrue(harness_mails.check_base(cover, harness_mails.Base('r', '1234', False)))


if __name__ == '__main__':
	unittest.main()
