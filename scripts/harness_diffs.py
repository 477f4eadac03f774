# SPDX-License-Identifier: GPL-2.0
"""The per-file view of the upstream series: for each file the series (the
newest line's) touches, the whole series' change to it as FILE.diff at that
file's path in the repository, against the line's pristine source; and,
for the selftest, kept whole as it sits in the tree after its posting, the
change its posting makes to each file the tree has already (its
directory's Makefile and .gitignore). They are generated, never edited by
hand; with --check nothing is written and a stale, missing or left-over
one fails."""

import os
import shutil
import tempfile

from harness_config import Line
from harness_kernel import patch_files, series_patches
from harness_util import TOP, HarnessError, file_text, note, run

# Where *.diff files are the harness's, not per-file diffs.
NOT_DIFFS = ('out', 'patches', 'tests', '.git')
SELFTEST = 'tools/testing/selftests/connector'


def diff(f: str, old: str, new: str) -> str:
	res = run(['diff', '-up', '--label', f'a/{f}', '--label', f'b/{f}', old if os.path.isfile(old) else '/dev/null',
		   new], capture='stdout', check=False, quiet=True)
	if res.returncode > 1:
		raise HarnessError(f'diff of {f} failed')
	return res.stdout


def expected(line: Line, src: str) -> dict:
	"""PATH.diff -> its text, from the series applied to a copy of the
	touched files."""
	patches = series_patches(line.series_dir)
	files = patch_files(patches)
	with tempfile.TemporaryDirectory() as tmp:
		for side in ('a', 'b'):
			for f in files:
				os.makedirs(os.path.join(tmp, side, os.path.dirname(f)), exist_ok=True)
				if os.path.isfile(os.path.join(src, f)):
					shutil.copy(os.path.join(src, f), os.path.join(tmp, side, f))
		for p in patches:
			res = run(['patch', '-d', os.path.join(tmp, 'b'), '-p1', '-s', '--fuzz=0',
				   '--no-backup-if-mismatch', '-i', p], capture='all', check=False)
			if res.returncode:
				raise HarnessError(f'{os.path.relpath(p, TOP)} does not apply with --fuzz=0 to {src}')
		out = {f + '.diff': diff(f, os.path.join(tmp, 'a', f), os.path.join(tmp, 'b', f)) for f in files}
	for name in sorted(os.listdir(os.path.join(TOP, SELFTEST))):
		f = f'{SELFTEST}/{name}'
		if not name.endswith('.diff') and os.path.isfile(os.path.join(src, f)):
			out[f + '.diff'] = diff(f, os.path.join(src, f), os.path.join(TOP, f))
	return out


def present() -> dict:
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


def file_diffs(line: Line, src: str, check: bool) -> int:
	want, have = expected(line, src), present()
	if check:
		bad = sorted(p for p in set(want) | set(have) if want.get(p) != have.get(p))
		for p in bad:
			print(f'  {p}: ' + ('missing' if p not in have else 'left over' if p not in want else 'stale'),
			      flush=True)
		if bad:
			raise HarnessError('the per-file diffs do not match patches/ and the selftest (run: make file-diffs)')
		note(f'{len(want)} per-file diffs match patches/')
		return 0
	for p in have:
		os.remove(os.path.join(TOP, p))
	for p, text in want.items():
		os.makedirs(os.path.dirname(os.path.join(TOP, p)), exist_ok=True)
		with open(os.path.join(TOP, p), 'w') as f:
			f.write(text)
	note(f'wrote {len(want)} per-file diffs')
	return 0
