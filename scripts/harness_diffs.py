# SPDX-License-Identifier: GPL-2.0
"""The per-file view of the upstream series, the selftest's patches, and
the cover letter's table of the boot test's figures.

For each file the series (the newest line's) touches outside the selftest,
the whole series' change to it as FILE.diff at that file's path in the
repository, against the line's pristine source. The selftest directory
is kept whole as it sits in the tree after the series
(tools/testing/selftests/connector/); each of its patches
(SELFTEST_PATCHES: net's fix brings proc_listeners, the series
cn_proc_test) is made from those files, as they are once that patch is
applied, and its changelog (tests/selftest/PROGRAM.changelog) by git
format-patch against the pristine source's connector directory. Both are
generated, never edited by hand; with --check nothing is written, and a
stale, missing or left-over diff, a patch that differs from what the
files make, or a posting that does not end with its selftest patch
fails. The cover letter's table is made from RESULTS (make results), so
that the figures it quotes are that run's; with --check, a table that
differs fails, and so does a mutant of the boot test (tests/mutants/)
that no longer applies on top of the series, before any kernel is
built for it."""

import dataclasses
import email.utils
import glob
import os
import re
import textwrap
import shutil
import tempfile
from typing import Dict, List, Sequence, Tuple

from harness_config import MUTANTS, KernelLine, series_patches
from harness_kernel import overlay_argv, patch_files
from harness_tables import figures
from harness_util import TOP, HarnessError, file_text, note, run

# Where *.diff files are the harness's, not per-file diffs.
NOT_DIFFS = ('out', 'patches', 'tests', '.git')
SELFTEST = 'tools/testing/selftests/connector'


@dataclasses.dataclass(frozen=True)
class SelftestPatch:
	"""A patch of the series that makes the selftest directory: the
	directory of its posting under patches/ ('' for the series'), and the
	programs (PROGRAM.c, in TEST_GEN_PROGS and .gitignore) and the config
	fragment's options it adds. Its changelog (From:, Date:, Subject:
	headers, a blank line, the message) is tests/selftest/PROGRAM.changelog
	of its first program."""
	posting: str
	programs: Tuple[str, ...]
	config: Tuple[str, ...]

	@property
	def changelog(self) -> str:
		return f'tests/selftest/{self.programs[0]}.changelog'


# The selftest directory's patches, in the series' order.
SELFTEST_PATCHES = (
	SelftestPatch('net', ('proc_listeners',),
		      ('CONFIG_CONNECTOR', 'CONFIG_MULTIUSER', 'CONFIG_NET', 'CONFIG_PROC_EVENTS',
		       'CONFIG_PROC_FS')),
	SelftestPatch('', ('cn_proc_test',),
		      ('CONFIG_COREDUMP', 'CONFIG_KALLSYMS', 'CONFIG_KALLSYMS_ALL')),
)
# The patch adds the selftest's directory to the MAINTAINERS entry that
# has the connector (NETWORKING DRIVERS), among its F: lines in order.
CONNECTOR_F = 'F:\tdrivers/connector/'
SELFTEST_F = f'F:\t{SELFTEST}/'


def maintainers_with_selftest(text: str) -> str:
	"""MAINTAINERS TEXT with SELFTEST_F in the entry of CONNECTOR_F."""
	lines = text.split('\n')
	if lines.count(CONNECTOR_F) != 1:
		raise HarnessError(f'MAINTAINERS: not one entry with {CONNECTOR_F!r}')
	at = lines.index(CONNECTOR_F)
	while lines[at].startswith('F:') and lines[at] < SELFTEST_F:
		at += 1
	if lines[at] != SELFTEST_F:
		lines.insert(at, SELFTEST_F)
	return '\n'.join(lines)


def diff(f: str, old: str, new: str) -> str:
	proc = run(['diff', '-up', '--label', f'a/{f}', '--label', f'b/{f}',
		    old if os.path.isfile(old) else '/dev/null', new],
		   capture='stdout', check=False, quiet=True)
	if proc.returncode > 1:
		raise HarnessError(f'diff of {f} failed')
	return str(proc.stdout)


def expected(line: KernelLine, src: str, mutants: Sequence[str] = ()) -> dict:
	"""PATH.diff -> its text, from the series applied to a copy of the
	touched files; each of MUTANTS must apply on top of it as the boot
	test applies one (overlay_argv())."""
	patches = series_patches(line.series_dir)
	files = patch_files(patches)
	with tempfile.TemporaryDirectory() as tmp:
		for side in ('a', 'b'):
			for f in files:
				dest = os.path.join(tmp, side, f)
				os.makedirs(os.path.dirname(dest), exist_ok=True)
				if os.path.isfile(os.path.join(src, f)):
					shutil.copy(os.path.join(src, f), dest)
		for p in patches:
			proc = run(['patch', '-d', os.path.join(tmp, 'b'), '-p1', '-s', '--fuzz=0',
				    '--no-backup-if-mismatch', '-i', p], capture='all', check=False)
			if proc.returncode:
				raise HarnessError(f'{os.path.relpath(p, TOP)} does not apply with '
						   f'--fuzz=0 to {src}')
		stale = [m for m in mutants
			 if run(overlay_argv(os.path.join(tmp, 'b'), m) + ['--dry-run'],
				capture='all', check=False).returncode]
		if stale:
			raise HarnessError('mutants that no longer apply with --fuzz=0 on top of the '
					   'series, as the boot test applies them: '
					   + ', '.join(os.path.relpath(m, TOP) for m in stale))
		return {f + '.diff': diff(f, os.path.join(tmp, 'a', f), os.path.join(tmp, 'b', f))
			for f in files if not f.startswith(SELFTEST + '/')}


def selftest_files() -> list:
	"""The selftest's files as the series leaves them in the tree."""
	return sorted(f for f in os.listdir(os.path.join(TOP, SELFTEST))
		      if os.path.isfile(os.path.join(TOP, SELFTEST, f)))


def changelog(path: str) -> Tuple[Dict[str, str], str]:
	"""The changelog's headers and its message."""
	text = file_text(os.path.join(TOP, path))
	head, sep, msg = text.partition('\n\n')
	headers = dict(l.split(': ', 1) for l in head.splitlines())
	if not sep or sorted(headers) != ['Date', 'From', 'Subject'] or not msg.strip():
		raise HarnessError(f'{path}: not From:, Date:, Subject:, a blank line and '
				   'the message')
	return headers, msg


def selftest_state(k: int, pristine: str) -> Dict[str, str]:
	"""The selftest directory's files once SELFTEST_PATCHES[K] is applied:
	the pristine directory's (PRISTINE), and the repository's but for the
	later patches' programs, their lines of the Makefile and .gitignore,
	and their options of the config fragment; a line of the config or a
	program that no patch adds fails."""
	later = SELFTEST_PATCHES[k + 1:]
	progs = {g for t in later for g in t.programs}
	opts = {o for t in later for o in t.config}
	every = {o for t in SELFTEST_PATCHES for o in t.config}
	files = {f: file_text(os.path.join(pristine, f)) for f in os.listdir(pristine)}
	for f in selftest_files():
		text = file_text(os.path.join(TOP, SELFTEST, f))
		if f.endswith('.c') and f not in files and \
		   f[:-2] not in {g for t in SELFTEST_PATCHES for g in t.programs}:
			raise HarnessError(f'{SELFTEST}/{f}: no patch of SELFTEST_PATCHES adds it')
		if f.endswith('.c') and f[:-2] in progs:
			continue
		lines = text.splitlines(keepends=True)
		if f == 'Makefile':
			lines = [l for l in lines if l.strip().rstrip('\\').strip() not in progs]
		elif f == '.gitignore':
			lines = [l for l in lines if l.strip() not in progs]
		elif f == 'config':
			for l in lines:
				if l.split('=')[0] not in every:
					raise HarnessError(f'{SELFTEST}/config: {l.strip()}: no patch of '
							   'SELFTEST_PATCHES adds it')
			lines = [l for l in lines if l.split('=')[0] not in opts]
		files[f] = ''.join(lines)
	return files


def posting_total(posting: str) -> int:
	"""How many patches of patches/series are POSTING's."""
	return len([l for l in file_text(os.path.join(TOP, 'patches', 'series')).split()
		    if os.path.dirname(l) == posting])


def selftest_patches(src: str) -> List[Tuple[str, str]]:
	"""(path under patches/, text) of each of SELFTEST_PATCHES: the commits
	that make SRC's connector directory what each leaves (selftest_state()),
	the first also adding the directory to MAINTAINERS
	(maintainers_with_selftest()), each with its changelog's author, date
	and message (the committer the same, so the commit id is too), as git
	format-patch writes them, numbered in their posting (the last of it)."""
	out = []
	with tempfile.TemporaryDirectory() as repo:
		dst = os.path.join(repo, SELFTEST)
		pristine = os.path.join(repo, 'pristine')
		shutil.copytree(os.path.join(src, SELFTEST), dst)
		shutil.copytree(os.path.join(src, SELFTEST), pristine)
		git = ['git', '-C', repo, '-c', 'core.autocrlf=false', '-c', 'commit.gpgsign=false']
		shutil.copy(os.path.join(src, 'MAINTAINERS'), os.path.join(repo, 'MAINTAINERS'))
		for argv in (['init', '-q'], ['add', '-f', SELFTEST, 'MAINTAINERS'],
			     ['commit', '-q', '--allow-empty', '-m', 'base']):
			run(git + argv, env=identity(SELFTEST_PATCHES[0]), capture='all', quiet=True)
		for k, t in enumerate(SELFTEST_PATCHES):
			headers, msg = changelog(t.changelog)
			who = identity(t)
			shutil.rmtree(dst)
			os.makedirs(dst)
			for f, text in selftest_state(k, pristine).items():
				with open(os.path.join(dst, f), 'w') as fh:
					fh.write(text)
			with open(os.path.join(repo, 'MAINTAINERS'), 'w') as fh:
				fh.write(maintainers_with_selftest(file_text(os.path.join(src,
											 'MAINTAINERS'))))
			run(git + ['add', '-f', '-A', SELFTEST, 'MAINTAINERS'], env=who, capture='all',
			    quiet=True)
			run(git + ['commit', '-q', '-F', '-'], env=who,
			    input=f'{headers["Subject"]}\n\n{msg}', capture='all', quiet=True)
			total = posting_total(t.posting)
			d = os.path.join(repo, 'out', str(k))
			run(git + ['format-patch', '-q', '-1', f'--start-number={total}',
				   f'--subject-prefix=PATCH {total}/{total}', '-o', d],
			    env=who, capture='all', quiet=True)
			made = os.listdir(d)
			out.append((os.path.join(t.posting, made[0]),
				    file_text(os.path.join(d, made[0]))))
	return out


def identity(t: SelftestPatch) -> Dict[str, str]:
	"""The environment that commits as T's changelog says, whatever the
	user's git configuration says."""
	headers, _ = changelog(t.changelog)
	name, addr = email.utils.parseaddr(headers['From'])
	return {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': addr,
		'GIT_AUTHOR_DATE': headers['Date'],
		'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': addr,
		'GIT_COMMITTER_DATE': headers['Date'],
		'GIT_CONFIG_GLOBAL': '/dev/null', 'GIT_CONFIG_NOSYSTEM': '1'}


def check_series(path: str) -> list:
	"""What is wrong with patches/ for the selftest patch PATH (under
	patches/): another patch of its number in its posting's directory, or
	a posting that does not end with it."""
	d, name = os.path.split(path)
	number = name[:4]
	bad = [f'patches/{os.path.join(d, os.path.basename(p))}: left over'
	       for p in glob.glob(os.path.join(TOP, 'patches', d, f'{number}-*'))
	       if os.path.basename(p) != name]
	series = [l for l in file_text(os.path.join(TOP, 'patches', 'series')).split()
		  if os.path.dirname(l) == d]
	if not series or series[-1] != path or int(number) != len(series):
		bad.append(f'patches/series: its posting {d or "of the series"} does not end '
			   f'with {path} as its patch {int(number)}')
	return bad


COVER = 'patches/0000-cover-letter.patch'
# The cover letter's table: this paragraph, then the table's lines, up to
# a blank line.
COVER_TABLE_START = "The boot test's figures"
# RESULTS' figures the table quotes, each as (its column, RESULTS' column
# (harness_tables.RESULTS_FIGURES), scale).
COVER_COLUMNS = (('events', 'events', 1), ('invers.', 'inv.', 1), ('max ms', 'max', 1000),
		 ('ties', 'ties', 1), ('shared', 'shared', 1), ('ahead', 'ahead', 1))


def _figure(cell: str, scale: int) -> str:
	if cell in ('', '-'):
		return '-'
	if scale == 1:
		return f'{int(cell):,}'
	return f'{int(cell) / scale:.1f}'


def cover_table(results: str) -> List[str]:
	"""The cover letter's paragraph and table of the boot test's figures,
	from RESULTS (harness_tables.figures()): a row per run of each line and
	architecture (not the mutants), base/patched, "-" for a kernel the run
	does not boot."""
	m = re.search(r'The boots below ran on\s+\S+\s+at\s+commit\s+(\w+)', results)
	if not m:
		raise HarnessError('RESULTS names no commit (make results writes it)')
	rows = [['run'] + [c for c, _, _ in COVER_COLUMNS]]
	for line, _, run, cells in figures(results):
		if run.startswith('mutant-'):
			continue
		row = [f'{line} {run}']
		for _, column, scale in COVER_COLUMNS:
			if column not in cells:
				raise HarnessError(f'RESULTS: no figure {column!r} for '
						   f'Linux {line}')
			base, _, patched = cells[column].rpartition('/')
			row.append(f'{_figure(base or "-", scale)}/{_figure(patched, scale)}')
		rows.append(row)
	widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
	intro = (f"{COVER_TABLE_START} (make check at {m.group(1)}, as RESULTS keeps them; "
		 'QEMU, software emulation, 2 vCPUs unless the run names more), base/patched:')
	return textwrap.wrap(intro, 72) + [''] + \
		['  ' + ' '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def with_cover_table(cover: str, table: List[str]) -> str:
	"""COVER with its table (from COVER_TABLE_START to the blank line after
	the table) replaced by TABLE."""
	lines = cover.split('\n')
	starts = [i for i, l in enumerate(lines) if l.startswith(COVER_TABLE_START)]
	if len(starts) != 1:
		raise HarnessError(f'{COVER}: not one paragraph starting "{COVER_TABLE_START}"')
	end = lines.index('', starts[0])		# the paragraph
	end = lines.index('', end + 1)			# the table
	return '\n'.join(lines[:starts[0]] + table + lines[end:])


def diffs_in_repository() -> dict:
	"""The per-file diffs in the repository: every *.diff outside the
	harness's own directories."""
	out = {}
	for root, dirs, files in os.walk(TOP):
		rel = os.path.relpath(root, TOP)
		if rel.split(os.sep)[0] in NOT_DIFFS:
			dirs[:] = []
			continue
		for f in files:
			if f.endswith('.diff'):
				p = os.path.normpath(os.path.join(rel, f))
				out[p] = file_text(os.path.join(TOP, p))
	return out


def file_diffs(line: KernelLine, src: str, check: bool) -> int:
	made = selftest_patches(src)
	if not check:	# first: the series applies them
		for path, text in made:
			d, name = os.path.split(path)
			for p in glob.glob(os.path.join(TOP, 'patches', d, f'{name[:4]}-*')):
				os.remove(p)
			with open(os.path.join(TOP, 'patches', path), 'w') as f:
				f.write(text)
	mutants = sorted(glob.glob(os.path.join(MUTANTS, '*.patch'))) if check else []
	want, have = expected(line, src, mutants), diffs_in_repository()
	cover = with_cover_table(file_text(os.path.join(TOP, COVER)),
				 cover_table(file_text(os.path.join(TOP, 'RESULTS'))))
	if check:
		bad = sorted(p for p in set(want) | set(have) if want.get(p) != have.get(p))
		for p in bad:
			why = 'missing' if p not in have else 'left over' if p not in want \
				else 'stale'
			print(f'  {p}: {why}', flush=True)
		series = []
		for path, text in made:
			stored = os.path.join(TOP, 'patches', path)
			if not os.path.isfile(stored) or file_text(stored) != text:
				bad.append(path)
				why = 'stale' if os.path.isfile(stored) else 'missing'
				print(f'  patches/{path}: {why}', flush=True)
			series += check_series(path)
		for b in series:
			print(f'  {b}', flush=True)
		if file_text(os.path.join(TOP, COVER)) != cover:
			bad.append(COVER)
			print(f'  {COVER}: its table is not RESULTS\'', flush=True)
		if bad or series:
			raise HarnessError('the per-file diffs, the selftest\'s patches or the '
					   'cover letter\'s table do not match patches/, the '
					   'selftest and RESULTS (run: make file-diffs)')
		note(f'{len(want)} per-file diffs match patches/; '
		     + ', '.join(f'patches/{p}' for p, _ in made)
		     + f' match {SELFTEST} and their changelogs; the cover letter\'s table is RESULTS\'; '
		     f'the {len(mutants)} mutants of tests/mutants/ apply')
		return 0
	for p in have:
		os.remove(os.path.join(TOP, p))
	for p, text in want.items():
		os.makedirs(os.path.dirname(os.path.join(TOP, p)), exist_ok=True)
		with open(os.path.join(TOP, p), 'w') as f:
			f.write(text)
	with open(os.path.join(TOP, COVER), 'w') as f:
		f.write(cover)
	note(f'wrote {len(want)} per-file diffs, '
	     + ', '.join(f'patches/{p}' for p, _ in made) + f' and the table of {COVER}')
	for path, _ in made:
		for b in check_series(path):
			print(f'  {b}: add it by hand', flush=True)
	return 0
