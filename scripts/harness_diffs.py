# SPDX-License-Identifier: GPL-2.0
"""The per-file view of the upstream series, the selftest's patch, and
the cover letter's table of the boot test's figures.

For each file the series (the newest line's) touches outside the selftest,
the whole series' change to it as FILE.diff at that file's path in the
repository, against the line's pristine source. The selftest is kept whole
as it sits in the tree after its posting (tools/testing/selftests/connector/);
its posting, the series' last patch, is made from those files and its
changelog (tests/selftest/changelog) by git format-patch against the
pristine source's connector directory. Both are generated, never edited by
hand; with --check nothing is written, and a stale, missing or left-over
diff, a patch that differs from what the files make, or a series that does
not end with it fails. The cover letter's table is made from RESULTS (make
results), so that the figures it quotes are that run's; with --check, a
table that differs fails."""

import email.utils
import glob
import os
import re
import textwrap
import shutil
import tempfile
from typing import Dict, List, Tuple

from harness_config import KernelLine, series_patches
from harness_kernel import patch_files
from harness_tables import figures
from harness_util import TOP, HarnessError, file_text, note, run

# Where *.diff files are the harness's, not per-file diffs.
NOT_DIFFS = ('out', 'patches', 'tests', '.git')
SELFTEST = 'tools/testing/selftests/connector'
# The selftest's patch: its changelog (From:, Date:, Subject: headers, a
# blank line, the message) and its place in the series.
CHANGELOG = 'tests/selftest/changelog'
PATCH_NUMBER, PATCH_TOTAL = 3, 3
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


def expected(line: KernelLine, src: str) -> dict:
	"""PATH.diff -> its text, from the series applied to a copy of the
	touched files."""
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
		return {f + '.diff': diff(f, os.path.join(tmp, 'a', f), os.path.join(tmp, 'b', f))
			for f in files if not f.startswith(SELFTEST + '/')}


def selftest_files() -> list:
	"""The selftest's files as its posting leaves them in the tree."""
	return sorted(f for f in os.listdir(os.path.join(TOP, SELFTEST))
		      if os.path.isfile(os.path.join(TOP, SELFTEST, f)))


def changelog() -> Tuple[Dict[str, str], str]:
	"""The changelog's headers and its message."""
	text = file_text(os.path.join(TOP, CHANGELOG))
	head, sep, msg = text.partition('\n\n')
	headers = dict(l.split(': ', 1) for l in head.splitlines())
	if not sep or sorted(headers) != ['Date', 'From', 'Subject'] or not msg.strip():
		raise HarnessError(f'{CHANGELOG}: not From:, Date:, Subject:, a blank line and '
				   'the message')
	return headers, msg


def selftest_patch(src: str) -> Tuple[str, str]:
	"""(name, text) of the selftest's patch: the commit that puts the
	repository's selftest files into SRC's connector directory, and the
	directory into MAINTAINERS (maintainers_with_selftest()), with the changelog's author,
	date and message (the committer the same, so the commit id is too), as
	git format-patch writes it, numbered PATCH_NUMBER/PATCH_TOTAL."""
	headers, msg = changelog()
	name, addr = email.utils.parseaddr(headers['From'])
	who = {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': addr,
	       'GIT_AUTHOR_DATE': headers['Date'],
	       'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': addr,
	       'GIT_COMMITTER_DATE': headers['Date'],
	       # the same patch whatever the user's git configuration says
	       'GIT_CONFIG_GLOBAL': '/dev/null', 'GIT_CONFIG_NOSYSTEM': '1'}
	with tempfile.TemporaryDirectory() as repo:
		dst = os.path.join(repo, SELFTEST)
		shutil.copytree(os.path.join(src, SELFTEST), dst)
		git = ['git', '-C', repo, '-c', 'core.autocrlf=false', '-c', 'commit.gpgsign=false']
		shutil.copy(os.path.join(src, 'MAINTAINERS'), os.path.join(repo, 'MAINTAINERS'))
		for argv in (['init', '-q'], ['add', '-f', '.'],
			     ['commit', '-q', '--allow-empty', '-m', 'base']):
			run(git + argv, env=who, capture='all', quiet=True)
		for f in selftest_files():	# the tree's others (proc_filter.c) stay
			shutil.copy(os.path.join(TOP, SELFTEST, f), os.path.join(dst, f))
		with open(os.path.join(repo, 'MAINTAINERS'), 'w') as f:
			maintainers = file_text(os.path.join(src, 'MAINTAINERS'))
			f.write(maintainers_with_selftest(maintainers))
		run(git + ['add', '-f', '-A', '.'], env=who, capture='all', quiet=True)
		run(git + ['commit', '-q', '-F', '-'], env=who,
		    input=f'{headers["Subject"]}\n\n{msg}',
		    capture='all', quiet=True)
		out = os.path.join(repo, 'out')
		run(git + ['format-patch', '-q', '-1', f'--start-number={PATCH_NUMBER}',
			   f'--subject-prefix=PATCH {PATCH_NUMBER}/{PATCH_TOTAL}', '-o', out],
		    env=who, capture='all', quiet=True)
		made = os.listdir(out)
		return made[0], file_text(os.path.join(out, made[0]))


def check_series(name: str) -> list:
	"""What is wrong with patches/ for the selftest's patch NAME: another
	patch of its number, or a series that does not end with it."""
	bad = [f'patches/{os.path.basename(p)}: left over'
	       for p in glob.glob(os.path.join(TOP, 'patches', f'{PATCH_NUMBER:04d}-*'))
	       if os.path.basename(p) != name]
	series = [l for l in file_text(os.path.join(TOP, 'patches', 'series')).splitlines()
		  if l and not l.startswith('#')]
	if len(series) != PATCH_NUMBER or series[-1] != name:
		bad.append(f'patches/series: does not end with {name} as its patch {PATCH_NUMBER}')
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
	name, patch = selftest_patch(src)
	path = os.path.join(TOP, 'patches', name)
	if not check:	# first: the series applies it
		for p in glob.glob(os.path.join(TOP, 'patches', f'{PATCH_NUMBER:04d}-*')):
			os.remove(p)
		with open(path, 'w') as f:
			f.write(patch)
	want, have = expected(line, src), diffs_in_repository()
	cover = with_cover_table(file_text(os.path.join(TOP, COVER)),
				 cover_table(file_text(os.path.join(TOP, 'RESULTS'))))
	if check:
		bad = sorted(p for p in set(want) | set(have) if want.get(p) != have.get(p))
		for p in bad:
			why = 'missing' if p not in have else 'left over' if p not in want \
				else 'stale'
			print(f'  {p}: {why}', flush=True)
		if not os.path.isfile(path) or file_text(path) != patch:
			bad.append(path)
			why = 'stale' if os.path.isfile(path) else 'missing'
			print(f'  patches/{name}: {why}', flush=True)
		series = check_series(name)
		for b in series:
			print(f'  {b}', flush=True)
		if file_text(os.path.join(TOP, COVER)) != cover:
			bad.append(COVER)
			print(f'  {COVER}: its table is not RESULTS\'', flush=True)
		if bad or series:
			raise HarnessError('the per-file diffs, the selftest\'s patch or the '
					   'cover letter\'s table do not match patches/, the '
					   'selftest and RESULTS (run: make file-diffs)')
		note(f'{len(want)} per-file diffs match patches/; patches/{name} matches '
		     f'{SELFTEST} and {CHANGELOG}; the cover letter\'s table is RESULTS\'')
		return 0
	for p in have:
		os.remove(os.path.join(TOP, p))
	for p, text in want.items():
		os.makedirs(os.path.dirname(os.path.join(TOP, p)), exist_ok=True)
		with open(os.path.join(TOP, p), 'w') as f:
			f.write(text)
	with open(os.path.join(TOP, COVER), 'w') as f:
		f.write(cover)
	note(f'wrote {len(want)} per-file diffs, patches/{name} and the table of {COVER}')
	for b in check_series(name):
		print(f'  {b}: add it by hand', flush=True)
	return 0
