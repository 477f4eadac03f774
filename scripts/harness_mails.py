# SPDX-License-Identifier: GPL-2.0
"""make mails: the series of the newest line written as mails that
git send-email takes, in the poster's name, on the poster's own tree.

The patches in patches/ carry a placeholder identity, which nobody can
post: a Signed-off-by is the Developer's Certificate of Origin, and only
the person who posts can give it. So the mails take From: and
Signed-off-by: from the git identity (user.name, user.email) of the
repository where make mails runs, and nothing is written without one, or
with the placeholder's.

The tree: KSRC, a git tree of the line's version or newer (the poster's
checkout of tip, net-next or mainline), never modified: it is cloned
(git clone --shared, its objects borrowed) into OUT/mails-work, the
series applied there with git am -3 at its HEAD, whose commit the mails
name in base-commit:. What conflicts is said, and a tree that already
carries the series is refused as such. Without KSRC, a git repository of
the line's Debian source (made once, kept in the cache) stands in, and
the mails have no base-commit: (no maintainer has that commit).

git format-patch writes them with a cover letter (its subject and text
from patches/0000-cover-letter.patch, its shortlog and diffstat git's),
every subject "[PATCH vN n/M]", N being VERSION. To: and Cc: are what the
tree's scripts/get_maintainer.pl names, asked for with --norolestats,
one role a time as b4's auto-to-cc asks (its --roles and --rolestats
output is not for tools: a role can hold brackets of its own): To: the
maintainers and reviewers, Cc: the lists, the addresses of the cover
letter's own To: and Cc: and linux-api (patch 2 changes what a uapi
field means). Before the directory is named: every mail's To: and Cc:
read as receivers read them (email.utils.getaddresses(), and git
send-email --dry-run) must hold each address get_maintainer.pl names on
its own output, once and in its header; checkpatch --strict must pass
on every patch mail; and git am must apply the mails at the base to the
tree the series made.

b4 (bookworm's 0.12) is not used to write them: b4 prep keeps the
cover letter in an empty commit edited through $EDITOR, and its send -o
writes a change-id of that local commit; its --auto-to-cc runs
get_maintainer.pl as here (doc/posting.txt).
"""

import dataclasses
import difflib
import email.message
import email.parser
import email.utils
import hashlib
import os
import re
import shutil
import subprocess
from typing import Any, Dict, List, Optional, Sequence, Tuple

from harness_config import KernelLine, series_patches
from harness_kernel import patch_files
from harness_patches import checkpatch, git, git_am, pristine_repo
from harness_util import TOP, HarnessError, cache_adopt, cache_new, cache_path, file_text, note, run

# The series' version, the one place it is kept: every subject's
# "[PATCH vN n/M]"; the cover letter's newest changelog must be "Changes
# since v(N-1):".
VERSION = 8
# netdev's tree tag in the subject ("net-next"), were netdev to take the
# series; tip takes it (timers/core, with netdev's ack): none.
TREE_TAG = ''
COVER_LETTER = os.path.join(TOP, 'patches', '0000-cover-letter.patch')
COVER_NAME = '0000-cover-letter.patch'
# Lists the series is sent to whatever get_maintainer.pl says.
EXTRA_CC = ('linux-api@vger.kernel.org',)
# The quilt series holds more than one posting: the patches in a
# directory of it are one, sent before the series with a cover letter of
# their own there. (tree tag, version: 1 has no "vN" and no changelog,
# lists Cc'd whatever get_maintainer.pl says) of each such directory:
# net, the fix of the listener count, as netdev takes fixes, with its
# selftest. The series' own directory's is TREE_TAG, VERSION, EXTRA_CC.
OTHER_POSTINGS = {'net': ('net', 1, ())}
# A posting's report for the kernel's security team (security-bugs.rst),
# plain text beside its cover letter, written with the recipients in a
# temporary section that its sender removes.
REPORT_NAME = 'report.txt'
SECURITY_TEAM = 'security@kernel.org'
SOB = re.compile(r'^Signed-off-by: (.*)$', re.M)
# get_maintainer.pl as b4's auto-to-cc asks it: no git history, no roles.
GET_MAINTAINER = ('--nogit', '--nogit-fallback', '--nogit-chief-penguins', '--norolestats')
# Each role asked alone; the authors of a Fixes: commit (--fixes) with
# the maintainers.
ROLES = (('maintainer', ('--m', '--nor', '--nol')),
	 ('reviewer', ('--nom', '--r', '--nol', '--nofixes')),
	 ('list', ('--nom', '--nor', '--l', '--nofixes')))
# An address as NIPA's cc_maintainers test finds it in a line of
# get_maintainer.pl's output, whatever the role around it says.
ADDRESS = re.compile(r'([^ <"(]*@[^ >")]*)')

Identity = Tuple[str, str]


def fmt(ident: Identity) -> str:
	return email.utils.formataddr(ident)


def git_identity(repo: str) -> Identity:
	"""user.name and user.email as git resolves them in REPO (its own
	config, the global and the system's); empty where there is none."""
	def get(key: str) -> str:
		proc = run(['git', 'config', key], cwd=repo, capture='stdout', check=False,
			   quiet=True)
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
		raise HarnessError('no git identity to post as: set yours with git config '
				   'user.name "Your Name" and git config user.email '
				   'you@example.org; the mails carry it in From: and '
				   "Signed-off-by:, which certifies the Developer's Certificate "
				   'of Origin, yours to give')
	if name == ph[0] or addr.lower() == ph[1].lower():
		raise HarnessError(f'the git identity {fmt((name, addr))} is the placeholder of '
				   'patches/: set your own (git config user.name, user.email); '
				   'only you can give the DCO')
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


def subject_prefix(version: int = VERSION, tag: str = TREE_TAG) -> str:
	"""What every subject's brackets hold before n/M: no "v1"."""
	return ' '.join(filter(None, ['PATCH', tag, f'v{version}' if version > 1 else '']))


@dataclasses.dataclass(frozen=True)
class Posting:
	"""The series' patches in one of its directories, posted together with
	the cover letter there."""
	directory: str			# relative to the series' ('' for its own)
	patches: Tuple[str, ...]
	cover: str
	tag: str
	version: int
	extra_cc: Tuple[str, ...]

	@property
	def prefix(self) -> str:
		return subject_prefix(self.version, self.tag)

	@property
	def report(self) -> str:
		"""Its report for the security team, '' if it has none."""
		path = os.path.join(os.path.dirname(self.cover), REPORT_NAME)
		return path if os.path.isfile(path) else ''


def postings(series_dir: str) -> List[Posting]:
	"""SERIES_DIR's series as postings, in its order: the patches of each
	directory of OTHER_POSTINGS, then the series' own; a patch elsewhere,
	or a posting's patches not together, is refused."""
	patches = series_patches(series_dir)
	dirs = [os.path.dirname(os.path.relpath(p, series_dir)) for p in patches]
	out = []
	for d in dict.fromkeys(dirs):
		if d and d not in OTHER_POSTINGS:
			raise HarnessError(f'{os.path.relpath(series_dir, TOP)}/series: {d}/ is no '
					   f'posting (OTHER_POSTINGS: {", ".join(OTHER_POSTINGS)})')
		have = [p for p, pd in zip(patches, dirs) if pd == d]
		if patches[patches.index(have[0]):][:len(have)] != have:
			raise HarnessError(f'{os.path.relpath(series_dir, TOP)}/series: the patches '
					   f'of {d or "the series"} are not together')
		tag, version, cc = OTHER_POSTINGS[d] if d else (TREE_TAG, VERSION, EXTRA_CC)
		out.append(Posting(d, tuple(have), os.path.join(series_dir, d, COVER_NAME), tag,
				   version, tuple(cc)))
	return out


def check_version(path: str = COVER_LETTER, version: int = VERSION) -> None:
	"""The cover letter's newest changelog is "Changes since v(VERSION-1):"
	(none at version 1), and its subject names no other version."""
	since = [int(v) for v in re.findall(r'^Changes since v(\d+):', file_text(path), re.M)]
	if version == 1 and since:
		raise HarnessError(f'{os.path.relpath(path, TOP)} has "Changes since '
				   f'v{max(since)}:", and its posting is the first')
	if version > 1 and (not since or max(since) != version - 1):
		said = f'"Changes since v{max(since)}:"' if since else 'no "Changes since vN:"'
		raise HarnessError(f'{os.path.relpath(path, TOP)} has {said}, and the series is '
				   f'v{version} (VERSION, scripts/harness_mails.py): its changelog '
				   f'must say "Changes since v{version - 1}:"')
	brackets = re.match(r'^\[([^]]*)\]', ' '.join(str(header(path)['Subject'] or '').split()))
	v = re.search(r'\bv(\d+)\b', brackets.group(1)) if brackets else None
	if v and int(v.group(1)) != version:
		raise HarnessError(f'{os.path.relpath(path, TOP)}: its subject says v{v.group(1)}, '
				   f'the series is v{version}')


def cover_addresses(path: str = COVER_LETTER) -> List[str]:
	h = header(path)
	addresses: List[str] = [str(a) for a in h.get_all('To', []) + h.get_all('Cc', [])]
	return [fmt(a) for a in email.utils.getaddresses(addresses) if a[1]]


def addr_of(a: str) -> str:
	return email.utils.parseaddr(a)[1].lower()


def get_maintainer(tree: str, patches: Sequence[str], flags: Sequence[str]) -> List[str]:
	"""What TREE's get_maintainer.pl names for PATCHES with FLAGS (and
	GET_MAINTAINER's): one address a line, each read as a receiver reads
	it, or a HarnessError."""
	argv = ['perl', 'scripts/get_maintainer.pl', *GET_MAINTAINER, *flags, *patches]
	out = []
	for l in run(argv, cwd=tree, capture='stdout', quiet=True).stdout.splitlines():
		if not l.strip():
			continue
		parsed = email.utils.getaddresses([l])
		if len(parsed) != 1 or \
		   not re.fullmatch(r'[^@\s<>()]+@[^@\s<>()]+', parsed[0][1]) or \
		   re.search(r'[()]', re.sub(r'"[^"]*"', '', l)):
			raise HarnessError(f'get_maintainer.pl {" ".join(flags)}: {l!r} '
						   'is not one address')
		out.append(fmt(parsed[0]))
	return out


def named(tree: str, patches: Sequence[str]) -> List[str]:
	"""Every address get_maintainer.pl names for PATCHES, found as NIPA's
	cc_maintainers finds them: in its own output, roles and all."""
	argv = ['perl', 'scripts/get_maintainer.pl', '--nogit', '--nogit-fallback',
		'--nogit-chief-penguins', *patches]
	found = []
	for l in run(argv, cwd=tree, capture='stdout', quiet=True).stdout.splitlines():
		m = ADDRESS.search(l)
		if m and m.group(1).lower() not in found:
			found.append(m.group(1).lower())
	return found


def recipients(tree: str, patches: Sequence[str], cover: str = COVER_LETTER,
	       extra_cc: Sequence[str] = EXTRA_CC) -> Tuple[List[str], List[str]]:
	"""To: get_maintainer.pl's maintainers and reviewers; Cc: its lists,
	the cover letter's own addresses and EXTRA_CC; each once."""
	roles = {role: get_maintainer(tree, patches, flags) for role, flags in ROLES}
	to: List[str] = []
	cc: List[str] = []
	seen = set()
	for where, addresses in ((to, roles['maintainer'] + roles['reviewer']),
				 (cc, roles['list'] + cover_addresses(cover) + list(extra_cc))):
		for a in addresses:
			if addr_of(a) not in seen:
				seen.add(addr_of(a))
				where.append(a)
	return to, cc


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


# The poster's tree ---------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Base:
	"""The tree the series is applied to: a git repository, never
	modified, at its HEAD."""
	repo: str
	commit: str
	# The poster's own (base-commit: written), not the one made of
	# Debian's source.
	posted: bool


def tree_version(repo: str, commit: str = 'HEAD') -> Tuple[int, int]:
	"""VERSION.PATCHLEVEL of the Makefile at COMMIT of REPO."""
	text = git(repo, 'show', f'{commit}:Makefile', capture='stdout', check=False,
		   quiet=True).stdout or ''
	v = re.search(r'^VERSION = (\d+)', text, re.M)
	p = re.search(r'^PATCHLEVEL = (\d+)', text, re.M)
	if not v or not p:
		raise HarnessError(f'{repo}: its Makefile at {commit} has no VERSION and '
				   'PATCHLEVEL: not a kernel tree')
	return int(v.group(1)), int(p.group(1))


def poster_tree(ksrc: str, line: KernelLine) -> Base:
	"""KSRC, the poster's git tree of LINE's version or newer, at HEAD."""
	proc = run(['git', '-C', ksrc, 'rev-parse', '--show-toplevel', 'HEAD'], capture='all',
		   check=False, quiet=True)
	top = proc.stdout.split() if proc.returncode == 0 else []
	if len(top) != 2 or os.path.realpath(top[0]) != os.path.realpath(ksrc):
		raise HarnessError(f'KSRC {ksrc} is not the top of a git tree: make mails applies '
				   f'the series to your git tree of Linux {line.name} or newer '
				   "(tip, net-next or mainline), or, without KSRC, to Debian's "
				   'source')
	have = tree_version(ksrc)
	want = tuple(int(x) for x in line.name.split('.'))
	if have < want:
		raise HarnessError(f'KSRC {ksrc} is Linux {have[0]}.{have[1]}, older than '
				   f'{line.name}, the series\' base: give a tree of {line.name} '
				   'or newer')
	return Base(os.path.realpath(ksrc), top[1], posted=True)


def debian_repo(src: str) -> Base:
	"""A git repository of Debian's source SRC (the cache's, never
	written), one commit, made once and kept in the cache."""
	key = os.path.basename(os.path.normpath(src)) + '.git'
	repo = cache_path('src', key)
	if not repo:
		tmp = cache_new('src', key)
		unpacked = os.path.join(src, '.unpacked')
		try:
			pristine_repo(tmp, src, ['.'], f'Linux {file_text(unpacked).strip()}'
				      if os.path.isfile(unpacked) else 'Linux')
		except BaseException:
			shutil.rmtree(tmp, ignore_errors=True)
			raise
		repo = cache_adopt(tmp, 'src', key)
	commit = run(['git', '--git-dir', repo, 'rev-parse', 'HEAD'], capture='stdout',
		     quiet=True).stdout.strip()
	return Base(repo, commit, posted=False)


def tree_state(repo: str) -> str:
	"""What make mails must leave as it was in REPO: HEAD, the branch,
	the index, the status, the refs, the worktrees and the stash (read
	without refreshing the index)."""
	parts = []
	for args in (['rev-parse', 'HEAD'], ['symbolic-ref', '-q', 'HEAD'],
		     ['status', '--porcelain', '--ignored'], ['for-each-ref'],
		     ['worktree', 'list', '--porcelain'], ['stash', 'list']):
		proc = run(['git', '--no-optional-locks', '-C', repo, *args], capture='stdout',
			   check=False, quiet=True)
		parts.append(f'{" ".join(args)}: {proc.returncode}\n{proc.stdout}')
	index = git(repo, 'rev-parse', '--path-format=absolute', '--git-path', 'index',
		    capture='stdout', quiet=True)
	path = index.stdout.strip()
	if os.path.isfile(path):
		with open(path, 'rb') as f:
			digest = hashlib.sha256(f.read()).hexdigest()
			parts.append(f'index: {digest} {os.stat(path).st_mtime_ns}')
	return '\n'.join(parts)


# What get_maintainer.pl and checkpatch.pl need of a tree (their
# top_of_kernel_tree(): the top's files and these directories, each with
# a file) beside the files the series touches.
TOP_DIRS = ('arch', 'drivers', 'fs', 'include', 'init', 'ipc', 'kernel', 'lib')
WHOLE_DIRS = ('scripts', 'Documentation/process')


def sparse_clone(repo: str, dest: str, files: Sequence[str]) -> None:
	"""DEST, a clone of REPO (git clone --shared: REPO is read, never
	written) that checks out only what get_maintainer.pl and checkpatch.pl
	need and the directories of FILES; nothing checked out yet."""
	shutil.rmtree(dest, ignore_errors=True)
	run(['git', 'clone', '-q', '--shared', '--no-checkout', repo, dest], quiet=True)
	patterns = ['/*', '!/*/', *[p for d in TOP_DIRS for p in (f'/{d}/*', f'!/{d}/*/')],
		    *[f'/{d}/' for d in sorted(set(WHOLE_DIRS) |
							  {os.path.dirname(f) for f in files})]]
	git(dest, 'sparse-checkout', 'set', '--no-cone', *patterns, quiet=True)


def carried(work: str, patches: Sequence[str]) -> List[str]:
	"""The patches WORK's tree already has: those git apply -R takes."""
	return [p for p in patches
		if run(['git', '-C', work, 'apply', '--check', '-R', p], capture='all', check=False,
		       quiet=True).returncode == 0]


def apply_series(work: str, patches: Sequence[str], ident: Identity, ph: Identity,
		 where: str) -> None:
	"""git am -3 of each patch in WORK, signed by IDENT; what conflicted,
	or merged three ways, said."""
	for p in patches:
		name = os.path.basename(p)
		proc = git(work, 'am', '-3', p, ident=ident, capture='all', check=False, quiet=True)
		if proc.returncode:
			conflicts = git(work, 'diff', '--name-only', '--diff-filter=U',
					capture='stdout', check=False, quiet=True).stdout.split()
			said = [l for l in proc.stdout.splitlines()
				if l.startswith(('CONFLICT', 'error:'))]
			git(work, 'am', '--abort', check=False, quiet=True)
			why = (f'conflicts in {", ".join(conflicts)}' if conflicts else
			       'git am -3 failed')
			raise HarnessError(f'{name} does not apply to {where}: {why}'
					   + (f' ({"; ".join(said)})' if said else ''))
		merged = re.findall(r'^Auto-merging (\S+)$', proc.stdout, re.M)
		if 'Falling back to' in proc.stdout:
			note(f'{name}: applied by a three-way merge'
			     + (f' ({", ".join(merged)})' if merged else ''))
		msg = git(work, 'log', '-1', '--format=%B', capture='stdout', quiet=True).stdout
		git(work, 'commit', '-q', '--amend', '--reset-author', '-F', '-',
		    input=signed_by(msg, ph, ident), ident=ident, quiet=True)
		if notes(p):
			git(work, 'notes', 'add', '-F', '-', 'HEAD', input=notes(p), ident=ident,
			    quiet=True)


@dataclasses.dataclass
class Written:
	"""A posting's mails (the cover letter first), their To: and Cc:, and
	its report for the security team ('' if none)."""
	posting: Posting
	mails: List[str]
	to: List[str]
	cc: List[str]
	report: str = ''


def mails_dir(out: str, posting: Posting) -> str:
	"""OUT/mails for the series, OUT/mails/DIR for another posting."""
	return os.path.join(out, 'mails', posting.directory)


def cover_letter(mail: str, posting: Posting) -> None:
	"""git format-patch's cover letter template MAIL made POSTING's: the
	subject and text of its stored cover letter, git's shortlog and
	diffstat."""
	subject, body = cover_text(posting.cover)
	text = file_text(mail)
	if '*** SUBJECT HERE ***' not in text or '*** BLURB HERE ***' not in text:
		raise HarnessError(f'git format-patch wrote no cover letter template in {mail}')
	text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***\n', body)
	with open(mail, 'w') as f:
		f.write(text)


def write_report(work: str, posting: Posting, out: str) -> str:
	"""POSTING's report for the security team in OUT, plain text, after a
	temporary section saying to whom it and the mails go (security-bugs.rst:
	the maintainers alone for the report, with the security team; the
	maintainers and the lists for the patches), for its sender to remove;
	its path."""
	maintainers = get_maintainer(work, list(posting.patches), ROLES[0][1])
	temp = ['[ Remove this section before sending. Send this report in plain text',
		'  (Documentation/process/email-clients.rst) to the maintainers only:',
		*[f'    {a}' for a in maintainers], f'  Cc: {SECURITY_TEAM}',
		'  and the patches of this directory to their To: and Cc:, but a patch that',
		'  reproduces the bug (a selftest) only once the maintainers or the',
		'  security team agree to its publication. ]', '']
	path = os.path.join(out, REPORT_NAME)
	with open(path, 'w') as f:
		f.write('\n'.join(temp) + '\n' + file_text(posting.report))
	return path


def write_mails(line: KernelLine, base: Base, out: str, ident: Identity,
		ph: Identity) -> Tuple[str, List[Written]]:
	"""Each posting's mails in OUT/mails (another posting's in its
	directory), one a file, the cover letter first, made in OUT/mails-work
	(a clone of BASE's repository) with the postings applied in turn, each
	later one naming the earlier ones' patches in prerequisite-patch-id:;
	that clone and what was written."""
	posts = postings(line.series_dir)
	for p in posts:
		check_version(p.cover, p.version)
	patches = series_patches(line.series_dir)
	work = os.path.join(out, 'mails-work')
	sparse_clone(base.repo, work, patch_files(patches))
	git(work, 'checkout', '-q', '--detach', base.commit, quiet=True)
	where = f'{base.repo} at {base.commit[:12]}'
	have = carried(work, patches)
	if have:
		what = 'the series' if len(have) == len(patches) else \
			', '.join(os.path.basename(p) for p in have)
		raise HarnessError(f'{where} already carries {what}: give make mails a tree '
				   'without it (KSRC, its base)')
	shutil.rmtree(os.path.join(out, 'mails'), ignore_errors=True)
	written = []
	for p in posts:
		start = git(work, 'rev-parse', 'HEAD', capture='stdout', quiet=True).stdout.strip()
		apply_series(work, p.patches, ident, ph, where)
		to, cc = recipients(work, p.patches, p.cover, p.extra_cc)
		d = mails_dir(out, p)
		git(work, 'format-patch', '-q', '--cover-letter', '--notes',
		    f'--subject-prefix={p.prefix}', '-o', d,
		    *([f'--base={base.commit}'] if base.posted else []),
		    *[f'--to={a}' for a in to], *[f'--cc={a}' for a in cc],
		    f'{start}..HEAD', ident=ident, quiet=True)
		files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.patch'))
		cover_letter(files[0], p)
		report = write_report(work, p, d) if p.report else ''
		written.append(Written(p, files, to, cc, report))
	return work, written


# What the receivers read ---------------------------------------------------

def mail_recipients(path: str) -> Tuple[List[str], List[str]]:
	"""The To: and Cc: addresses of a mail, as email.utils.getaddresses()
	reads them, lower case."""
	h = header(path)

	def read(name: str) -> List[str]:
		addresses = email.utils.getaddresses([str(x) for x in h.get_all(name, [])])
		return [a.lower() for _, a in addresses]
	return read('To'), read('Cc')


def check_recipients(mails: Sequence[str], named: Sequence[str], to: Sequence[str],
			     cc: Sequence[str]) -> List[str]:
	"""What is wrong with the mails' To: and Cc:: an address of NAMED (what
	get_maintainer.pl names) missing or there twice, one of TO not in To:,
	one of CC not in Cc:, an address that is no address."""
	wrong = []
	for m in mails:
		got_to, got_cc = mail_recipients(m)
		both = got_to + got_cc
		n = os.path.basename(m)
		for a in both:
			if not re.fullmatch(r'[^@\s<>()]+@[^@\s<>()]+', a):
				wrong.append(f'{n}: {a!r} is not an address')
		for a in sorted({a for a in both if both.count(a) > 1}):
			wrong.append(f'{n}: {a} is there {both.count(a)} times')
		for a in named:
			if a not in both:
				wrong.append(f'{n}: {a}, named by get_maintainer.pl, is missing')
		for want, got, h in ((to, got_to, 'To'), (cc, got_cc, 'Cc')):
			for a in want:
				if addr_of(a) not in got:
					wrong.append(f'{n}: {addr_of(a)} is not in {h}:')
	return wrong


def check_subjects(mails: Sequence[str], prefix: str = '') -> List[str]:
	"""Each mail's subject "[PREFIX n/M] " (PREFIX: subject_prefix()'s by
	default), n its place, M the patches."""
	wrong = []
	for i, m in enumerate(mails):
		subject = ' '.join(str(header(m)['Subject'] or '').split())
		want = f'[{prefix or subject_prefix()} {i}/{len(mails) - 1}] '
		if not subject.startswith(want):
			wrong.append(f'{os.path.basename(m)}: the subject {subject!r} '
					     f'does not start {want!r}')
	return wrong


def check_base(cover: str, base: Base) -> List[str]:
	"""The cover letter's base-commit: BASE's commit where BASE is the
	poster's tree, none where it is Debian's."""
	said = re.findall(r'^base-commit: (\S+)$', file_text(cover), re.M)
	want = [base.commit] if base.posted else []
	return [] if said == want else [f'{os.path.basename(cover)}: base-commit: '
						 f'{" ".join(said) or "none"}, '
						 f'not {" ".join(want) or "none"}']


def send_email_argv(mails: Sequence[str], dry_run: bool) -> List[str]:
	"""git send-email of the mails: to their To: and Cc: only (none from
	the bodies' Cc: and Signed-off-by: lines, nor the poster), no
	question asked; the dry run with no network."""
	dry = ['--dry-run', '--smtp-server=localhost', '--smtp-domain=localhost', '--confirm=never']
	return ['git', 'send-email', *(dry if dry_run else []),
		'--suppress-cc=self', '--suppress-cc=body', *mails]


def dry_send(mails: Sequence[str], ident: Identity, cwd: str) -> Dict[str, List[str]]:
	"""git send-email --dry-run of the mails (no network, no question):
	the recipients (RCPT TO) it would send each to, by subject."""
	env = {'GIT_AUTHOR_NAME': ident[0], 'GIT_AUTHOR_EMAIL': ident[1],
	       'GIT_COMMITTER_NAME': ident[0], 'GIT_COMMITTER_EMAIL': ident[1]}
	proc = run([*send_email_argv(mails, dry_run=True), f'--from={fmt(ident)}'], cwd=cwd,
		   env=env, capture='all', check=False, quiet=True, input='')
	if proc.returncode:
		print(proc.stdout, end='', flush=True)
		raise HarnessError(f'git send-email --dry-run failed (exit {proc.returncode})')
	sent: Dict[str, List[str]] = {}
	for block in proc.stdout.split('Dry-OK. Log says:')[1:]:
		subject = re.search(r'^Subject: (.*)$', block, re.M)
		rcpt = re.findall(r'^RCPT TO:<([^>]*)>$', block, re.M)
		if subject:
			sent[' '.join(subject.group(1).split())] = [a.lower() for a in rcpt]
	return sent


def check_sent(mails: Sequence[str], sent: Dict[str, List[str]], ident: Identity) -> List[str]:
	"""Each mail sent once, to its To: and Cc: (and the poster, as From:
	git send-email adds nobody else), each address once."""
	wrong = []
	if len(sent) != len(mails):
		wrong.append(f'git send-email --dry-run sent {len(sent)} mails, not {len(mails)}')
	for m in mails:
		subject = ' '.join(str(header(m)['Subject'] or '').split())
		to, cc = mail_recipients(m)
		got = sent.get(subject)
		if got is None:
			wrong.append(f'{os.path.basename(m)}: git send-email --dry-run did not '
				     'send it')
		elif sorted(set(got)) != sorted(set(to + cc)) or len(got) != len(set(got)):
			wrong.append(f'{os.path.basename(m)}: git send-email --dry-run sends to '
				     f'{" ".join(got)}, '
				     f'not to its To: and Cc: ({" ".join(to + cc)})')
	return wrong


def check_mails(work: str, base: Base, written: Sequence[Written], ident: Identity) -> None:
	"""Of each posting: every recipient in its header (TO in To:, CC in
	Cc:), once, as the receivers read them, and each address
	get_maintainer.pl names on its own output; its prefix and version in
	every subject; base-commit:; checkpatch --strict clean on each patch
	mail. Then git am of every posting's mails in turn, at the base,
	giving the tree of the series."""
	for w in written:
		wrong = check_subjects(w.mails, w.posting.prefix)
		wrong += check_recipients(w.mails, named(work, w.posting.patches), w.to, w.cc)
		wrong += check_sent(w.mails, dry_send(w.mails, ident, work), ident)
		wrong += check_base(w.mails[0], base)
		if wrong:
			raise HarnessError('the mails are wrong:\n  ' + '\n  '.join(wrong))
		for m in w.mails[1:]:
			if checkpatch(m, work):
				raise HarnessError(f'checkpatch --strict: {os.path.basename(m)} '
						   'is not clean')
	tree = git(work, 'rev-parse', 'HEAD^{tree}', capture='stdout', quiet=True).stdout.strip()
	git_am(work, [m for w in written for m in w.mails[1:]], 'git am of the mails at the base',
	       ident, at=base.commit)
	if git(work, 'rev-parse', 'HEAD^{tree}', capture='stdout',
	       quiet=True).stdout.strip() != tree:
		raise HarnessError('git am of the mails at the base does not give the tree '
				   'of the series')


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


def mails(line: KernelLine, base: Base, out: str, who: Poster) -> List[Written]:
	"""LINE's series as mails from WHO, on BASE, and their checks; BASE's
	repository left as it was; what was written."""
	before = tree_state(base.repo)
	work, written = write_mails(line, base, out, who.ident, who.placeholder)
	check_mails(work, base, written, who.ident)
	if tree_state(base.repo) != before:
		raise HarnessError(f'{base.repo} changed while the mails were made')
	note('every recipient in its header once, as getaddresses() and git send-email '
	     '--dry-run read them; '
	     + ', '.join(f'[{w.posting.prefix} n/{len(w.posting.patches)}]' for w in written)
	     + f'; checkpatch --strict clean; git am applies them at {base.commit[:12]}')
	if base.posted:
		note(f'based on {base.repo} at {base.commit} (base-commit:), which is as it was')
	else:
		note(f"no KSRC: based on Debian's Linux {line.name} source, a commit no maintainer "
		     'has, so no base-commit:; post from your own tree '
		     '(make mails KSRC=/path/to/your/git/tree)')
	for w in written:
		d = os.path.dirname(w.mails[0])
		print(f'mails [{w.posting.prefix}]: {d}', flush=True)
		if w.report:
			print(f'  first: {w.report}, to the security team and the maintainers, '
			      'as it says at its top', flush=True)
		for what, dry in (('try them:  ', True), ('send them: ', False)):
			argv = send_email_argv([d + '/*.patch'], dry_run=dry)
			print(f'  {what} {" ".join(argv)}', flush=True)
	print("  (From: and Signed-off-by: are yours: the Developer's Certificate of Origin is "
	      'yours to give)', flush=True)
	return written


# make check ------------------------------------------------------------------

# The identity make check posts as.
TEST_IDENT = ('Make Check', 'make-check@example.org')
# The file make check's later commit touches, one the series touches.
LATER_FILE = 'drivers/connector/cn_proc.c'


def later_commit(tree: str, path: str, ident: Identity) -> None:
	"""A commit on TREE after its HEAD: a line at the end of PATH."""
	with open(os.path.join(tree, path), 'a') as f:
		f.write('/* A later commit, the poster\'s tree\'s own. */\n')
	git(tree, 'add', '-f', path, quiet=True)
	git(tree, 'commit', '-q', '-m', f'{path}: a later commit', ident=ident, quiet=True)


def comparable(text: str, ident: Identity, ph: Identity) -> List[str]:
	"""A cover letter's lines as make check compares the stored one with
	the one make mails writes: IDENT's name and address the placeholder
	PH's, and without git's commit line, Date:, base-commit: and
	prerequisite-patch-id: (the base) and git's signature."""
	text = text.replace(fmt(ident), fmt(ph)).replace(ident[1], ph[1]).replace(ident[0], ph[0])
	text = text.split('\n-- \n', 1)[0]
	lines = [l for l in text.splitlines()[1:]
		 if not re.match(r'(Date|base-commit|prerequisite-patch-id): ', l)]
	while lines and not lines[-1].strip():
		lines.pop()
	return lines


def check_cover_letters(written: Sequence[Written], ident: Identity, ph: Identity) -> None:
	"""Each posting's stored cover letter is the one make mails wrote,
	identity, date and base aside: its recipients, subject, shortlog and
	diffstat too."""
	for w in written:
		want = comparable(file_text(w.mails[0]), ident, ph)
		have = comparable(file_text(w.posting.cover), ident, ph)
		if have != want:
			diff = difflib.unified_diff(have, want, 'stored', 'written', lineterm='', n=1)
			print('\n'.join(diff), flush=True)
			raise HarnessError(f'{os.path.relpath(w.posting.cover, TOP)} is not the cover '
					   f'letter make mails writes ({w.mails[0]}), identity, date '
					   'and base aside: see the diff above')
	note('the stored cover letters are what make mails writes (identity, date and base '
	     'aside)')


def check_on_git_tree(line: KernelLine, src: str, out: str) -> int:
	"""make mails with TEST_IDENT on a git tree made of LINE's Debian
	source SRC (checked out sparse, as make mails' own clone is) with one
	later commit touching LATER_FILE, as a poster's:
	every check of mails() (the tree left as it was among them),
	base-commit: the tree's HEAD, and the stored cover letters what it
	wrote."""
	work = os.path.join(out, 'mails-check')
	tree = os.path.join(work, 'tree')
	shutil.rmtree(work, ignore_errors=True)
	sparse_clone(debian_repo(src).repo, tree, patch_files(series_patches(line.series_dir)))
	git(tree, 'reset', '-q', '--hard', quiet=True)
	later_commit(tree, LATER_FILE, TEST_IDENT)
	base = poster_tree(tree, line)
	cover = os.path.join(line.series_dir, COVER_NAME)
	ph = placeholder(cover)
	check_cover_letters(mails(line, base, work, Poster(TEST_IDENT, ph)), TEST_IDENT, ph)
	return 0
