# SPDX-License-Identifier: GPL-2.0
"""make mails: the series of the newest line written as mails that
git send-email takes, in the poster's name.

The patches in patches/ carry a placeholder identity, which nobody can
post: a Signed-off-by is the Developer's Certificate of Origin, and only
the person who posts can give it. So the mails take From: and
Signed-off-by: from the git identity (user.name, user.email) of the
repository where make mails runs, and nothing is written without one, or
with the placeholder's. The patches are applied with git am to the
files they touch, taken from the line's pristine tree, and written again
by git format-patch with a cover letter: its subject and text from
patches/0000-cover-letter.patch, its shortlog and diffstat git's. To: is
what the tree's scripts/get_maintainer.pl gives for the patches
(maintainers and reviewers), Cc: its lists, the addresses of the cover
letter's own To: and Cc: and linux-api (patch 2 changes what a uapi
field means). Before the directory is named, checkpatch --strict must
pass on every patch mail and git am must apply them to the pristine
files.

Why git format-patch and not b4 (bookworm's 0.12): b4 prep keeps the
cover letter in an empty commit edited through $EDITOR, --auto-to-cc
runs get_maintainer.pl in the git repository of the whole tree (the
Debian source has none: it would be a 1.5 GB commit made for the
purpose), and b4 send -o writes a base-commit: and change-id: for that
local commit, which no maintainer has. The mails here are what b4 send
and git send-email send.
"""

import dataclasses
import email.message
import email.parser
import email.utils
import os
import re
import shutil
import subprocess
from typing import Any, List, Optional, Tuple

from harness_config import KernelLine, series_patches
from harness_kernel import patch_files
from harness_static import checkpatch_argv, checkpatch_blind
from harness_util import TOP, HarnessError, file_text, note, run

COVER_LETTER = os.path.join(TOP, 'patches', '0000-cover-letter.patch')
# Lists the series is sent to whatever get_maintainer.pl says.
EXTRA_CC = ('linux-api@vger.kernel.org',)
SOB = re.compile(r'^Signed-off-by: (.*)$', re.M)

Identity = Tuple[str, str]


def fmt(ident: Identity) -> str:
	return email.utils.formataddr(ident)


def git_identity(repo: str) -> Identity:
	"""user.name and user.email as git resolves them in REPO (its own
	config, the global and the system's); empty where there is none."""
	def get(key: str) -> str:
		proc = run(['git', 'config', key], cwd=repo, capture='stdout', check=False, quiet=True)
		return str(proc.stdout).strip() if proc.returncode == 0 else ''
	return get('user.name'), get('user.email')


def placeholder(cover_letter: str = COVER_LETTER) -> Identity:
	"""The identity the patches carry: the cover letter's From:, which
	every patch's From: and Signed-off-by: must match."""
	name, addr = email.utils.parseaddr(header(cover_letter)['From'] or '')
	if not addr:
		raise HarnessError(f'{cover_letter} has no From:')
	return name, addr


def poster(repo: str, ph: Identity) -> Identity:
	"""The poster's identity, refused (one error line, nothing written)
	if it is missing or is the placeholder's."""
	name, addr = git_identity(repo)
	if not name or not addr:
		raise HarnessError('no git identity to post as: set yours with git config user.name "Your Name" and '
				   'git config user.email you@example.org; the mails carry it in From: and '
				   "Signed-off-by:, which certifies the Developer's Certificate of Origin, yours to give")
	if name == ph[0] or addr.lower() == ph[1].lower():
		raise HarnessError(f'the git identity {fmt((name, addr))} is the placeholder of patches/: '
				   "set your own (git config user.name, user.email); only you can give the DCO")
	return name, addr


def header(path: str) -> email.message.Message:
	return email.parser.Parser().parsestr(file_text(path), headersonly=True)


def cover_text(path: str = COVER_LETTER) -> Tuple[str, str]:
	"""The cover letter's subject, without its [PATCH 0/N], and its text up
	to the shortlog that git writes."""
	text = file_text(path)
	subject = ' '.join(header(path)['Subject'].split())
	subject = re.sub(r'^\[[^]]*\]\s*', '', subject)
	body = text.split('\n\n', 1)[1]
	m = re.search(r'^\S.* \(\d+\):\n', body, re.M)
	return subject, (body[:m.start()] if m else body).rstrip('\n') + '\n'


def cover_addresses(path: str = COVER_LETTER) -> List[str]:
	h = header(path)
	addresses: List[str] = [str(a) for a in h.get_all('To', []) + h.get_all('Cc', [])]
	return [fmt(a) for a in email.utils.getaddresses(addresses) if a[1]]


def get_maintainer(src: str, patches: List[str]) -> Tuple[List[str], List[str]]:
	"""The tree's get_maintainer.pl on the patches: its people (maintainers
	and reviewers) and its lists, told apart by the role it gives each."""
	argv = ['perl', 'scripts/get_maintainer.pl', '--no-git', '--no-git-fallback', *patches]
	people: List[str] = []
	lists: List[str] = []
	for l in run(argv, cwd=src, capture='stdout').stdout.splitlines():
		m = re.match(r'^(.*\S)\s+\((.*)\)$', l.strip())
		if m:
			(lists if 'list' in m.group(2).split(':')[0] else people).append(m.group(1))
	return people, lists


def recipients(src: str, patches: List[str]) -> Tuple[List[str], List[str]]:
	"""To: get_maintainer.pl's maintainers and reviewers; Cc: its lists,
	the cover letter's own addresses and EXTRA_CC, each once."""
	to, lists = get_maintainer(src, patches)
	cc, seen = [], {email.utils.parseaddr(a)[1].lower() for a in to}
	for a in lists + cover_addresses() + list(EXTRA_CC):
		if email.utils.parseaddr(a)[1].lower() not in seen:
			seen.add(email.utils.parseaddr(a)[1].lower())
			cc.append(a)
	return to, cc


def git(repo: str, *args: str, ident: Optional[Identity] = None, **kw: Any) -> subprocess.CompletedProcess:
	env = None
	if ident:
		env = {'GIT_AUTHOR_NAME': ident[0], 'GIT_AUTHOR_EMAIL': ident[1],
		       'GIT_COMMITTER_NAME': ident[0], 'GIT_COMMITTER_EMAIL': ident[1]}
	return run(['git', '-C', repo, *args], env=env, **kw)


def base_repo(src: str, files: List[str], dest: str, ident: Identity) -> None:
	"""A git repository of the pristine FILES of SRC, one commit."""
	shutil.rmtree(dest, ignore_errors=True)
	for f in files:
		if os.path.isfile(os.path.join(src, f)):
			os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
			shutil.copy(os.path.join(src, f), os.path.join(dest, f))
	os.makedirs(dest, exist_ok=True)
	git(dest, 'init', '-q', quiet=True)
	git(dest, 'add', '-A', quiet=True)
	git(dest, 'commit', '-q', '--allow-empty', '-m', 'pristine', ident=ident, quiet=True)


def signed_by(message: str, ph: Identity, ident: Identity) -> str:
	"""MESSAGE with the placeholder's Signed-off-by lines the poster's,
	and the poster's the last one."""
	message = message.replace(f'Signed-off-by: {fmt(ph)}', f'Signed-off-by: {fmt(ident)}')
	sobs = SOB.findall(message)
	if not sobs or sobs[-1] != fmt(ident):
		message = message.rstrip('\n') + f'\nSigned-off-by: {fmt(ident)}\n'
	return message


def notes(patch: str) -> str:
	"""The Notes: section below the patch's ---, which git am drops."""
	m = re.search(r'\n---\n\nNotes:\n(.*?)\n\n [^ \n][^\n]*\|', file_text(patch), re.S)
	if not m:
		return ''
	return '\n'.join(l[4:] for l in m.group(1).split('\n')).strip('\n')


def write_mails(line: KernelLine, src: str, out: str, ident: Identity, ph: Identity) -> List[str]:
	"""The mails in OUT/mails, one a file, the cover letter first."""
	patches = series_patches(line.series_dir)
	files = patch_files(patches)
	work, mails = os.path.join(out, 'mails-work'), os.path.join(out, 'mails')
	base_repo(src, files, work, ident)
	for p in patches:
		git(work, 'am', '-q', p, ident=ident, what=f'git am of {os.path.relpath(p, TOP)}')
		msg = git(work, 'log', '-1', '--format=%B', capture='stdout', quiet=True).stdout
		git(work, 'commit', '-q', '--amend', '--reset-author', '-F', '-', input=signed_by(msg, ph, ident),
		    ident=ident)
		if notes(p):
			git(work, 'notes', 'add', '-F', '-', 'HEAD', input=notes(p), ident=ident)
	to, cc = recipients(src, patches)
	shutil.rmtree(mails, ignore_errors=True)
	git(work, 'format-patch', '-q', '--cover-letter', '--notes', '-o', mails, *[f'--to={a}' for a in to],
	    *[f'--cc={a}' for a in cc], f'HEAD~{len(patches)}..HEAD', ident=ident)
	out_files = sorted(os.path.join(mails, f) for f in os.listdir(mails))
	subject, body = cover_text()
	text = file_text(out_files[0])
	if '*** SUBJECT HERE ***' not in text or '*** BLURB HERE ***' not in text:
		raise HarnessError(f'git format-patch wrote no cover letter template in {out_files[0]}')
	text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***\n', body)
	with open(out_files[0], 'w') as f:
		f.write(text)
	return out_files


def check_mails(src: str, files: List[str], mails: List[str], scratch: str, ident: Identity) -> None:
	"""checkpatch --strict clean on each patch mail, and git am of them
	all on the pristine files."""
	for m in mails[1:]:
		proc = run(checkpatch_argv(m), cwd=src, capture='all', check=False)
		if checkpatch_blind(proc.stdout):
			raise HarnessError(f'checkpatch: {os.path.basename(m)}: {checkpatch_blind(proc.stdout)}')
		total = re.search(r'^total: .*$', proc.stdout, re.M)
		if proc.returncode or not total or not total.group(0).startswith('total: 0 errors, 0 warnings, 0 checks,'):
			print(proc.stdout, end='', flush=True)
			raise HarnessError(f'checkpatch --strict: {os.path.basename(m)} is not clean')
	base_repo(src, files, scratch, ident)
	git(scratch, 'am', '-q', *mails[1:], ident=ident, what='git am of the mails on the pristine files')


@dataclasses.dataclass(frozen=True)
class Poster:
	ident: Identity		# the poster's, git's
	placeholder: Identity	# the patches', the cover letter's


def the_poster(repo: str = TOP) -> Poster:
	"""Who posts the mails: git's identity in REPO, refused (HarnessError)
	if it is missing or the placeholder's; make mails asks first, before
	anything is fetched."""
	ph = placeholder()
	ident = poster(repo, ph)
	note(f'posting as {fmt(ident)}')
	return Poster(ident, ph)


def mails(line: KernelLine, src: str, out: str, who: Poster) -> int:
	"""LINE's series as mails from WHO, on its pristine tree SRC, and
	their checks."""
	written = write_mails(line, src, out, who.ident, who.placeholder)
	check_mails(src, patch_files(series_patches(line.series_dir)), written, os.path.join(out, 'mails-am'), who.ident)
	note(f'checkpatch --strict clean and git am applies them on Linux {line.name} ({src})')
	print(f'mails: {os.path.dirname(written[0])}', flush=True)
	print(f'  send them with: git send-email {os.path.dirname(written[0])}/*.patch', flush=True)
	return 0
