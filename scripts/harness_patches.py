# SPDX-License-Identifier: GPL-2.0
"""What the static checks (harness_static.py) and make mails
(harness_mails.py) both do with a series: checkpatch as netdev's CI runs
it, and git am onto a git repository of pristine files."""

import os
import re
import shutil
import subprocess
from typing import Any, List, Optional, Sequence, Tuple

from harness_util import TOP, note, run

# checkpatch as netdev's patchwork CI (NIPA: tests/patch/checkpatch/)
# runs it on every patch: --strict, codespell, 80 columns, its list of
# ignored types; and UNKNOWN_COMMIT_ID, as the tree has no git history to
# look commit ids up in. Debian's codespell keeps its dictionary in its
# Python package, where checkpatch looks for it only with a python3 that
# has codespell_lib: named here.
CHECKPATCH_IGNORE = ('COMMIT_LOG_LONG_LINE', 'MACRO_ARG_REUSE', 'ALLOC_SIZEOF_STRUCT',
		     'NO_AUTHOR_SIGN_OFF', 'GIT_COMMIT_ID', 'CAMELCASE', 'FILE_PATH_CHANGES',
		     'BAD_REPORTED_BY_LINK', 'UNKNOWN_COMMIT_ID')
CODESPELL_DICTIONARY = '/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt'
# What checkpatch says, and then checks no spelling, without it.
CODESPELL_MISSING = 'No codespell typos will be found'
CLEAN = 'total: 0 errors, 0 warnings, 0 checks,'
# Who commits a repository of pristine files.
PRISTINE_IDENT = ('cn_proc harness', 'harness@localhost')

Identity = Tuple[str, str]


def checkpatch_argv(patch: str) -> List[str]:
	"""checkpatch.pl as NIPA runs it, on PATCH."""
	return ['perl', 'scripts/checkpatch.pl', '--strict', '--codespell',
		f'--codespellfile={CODESPELL_DICTIONARY}', '--max-line-length=80',
		'--ignore=' + ','.join(CHECKPATCH_IGNORE), patch]


def checkpatch_verdict(out: str) -> str:
	"""Why checkpatch's output OUT is not clean, '' if it is."""
	if CODESPELL_MISSING in out:
		return (f'"{CODESPELL_MISSING}": it ran without {CODESPELL_DICTIONARY} '
			"(Debian's codespell)")
	if re.search('^' + re.escape(CLEAN), out, re.M):
		return ''
	return 'not clean'


def checkpatch(patch: str, tree: str) -> str:
	"""checkpatch as NIPA runs it, TREE's, on PATCH: '' if clean (said),
	else why not, its findings printed."""
	out = str(run(checkpatch_argv(patch), cwd=tree, capture='all', check=False).stdout)
	verdict = checkpatch_verdict(out)
	name = os.path.relpath(patch, TOP) if patch.startswith(TOP + '/') else \
		os.path.basename(patch)
	if verdict:
		print('\n'.join(l for l in out.splitlines()
				if re.match(r'(ERROR|WARNING|CHECK|total|#)', l)), flush=True)
		print(f'error: checkpatch (NIPA\'s flags): {name}: {verdict}', flush=True)
		return verdict
	total = re.search(r'^total: .*$', out, re.M)
	note(f'checkpatch (NIPA\'s flags): {os.path.basename(patch)}: '
	     f'{total.group(0) if total else "?"}')
	return ''


def git(repo: str, *args: str, ident: Optional[Identity] = None,
	**kw: Any) -> 'subprocess.CompletedProcess[str]':
	"""git in REPO, committing (and applying) as IDENT if given."""
	env = None
	if ident:
		env = {'GIT_AUTHOR_NAME': ident[0], 'GIT_AUTHOR_EMAIL': ident[1],
		       'GIT_COMMITTER_NAME': ident[0], 'GIT_COMMITTER_EMAIL': ident[1]}
	return run(['git', '-C', repo, *args], env=env, **kw)


def pristine_repo(git_dir: str, src: str, paths: Sequence[str], message: str,
		  ident: Identity = PRISTINE_IDENT) -> None:
	"""GIT_DIR, a bare git repository of SRC's PATHS as one commit by
	IDENT dated the epoch; SRC is read, never written."""
	run(['git', 'init', '-q', '--bare', git_dir], quiet=True)
	env = {'GIT_DIR': git_dir, 'GIT_WORK_TREE': src, 'GIT_AUTHOR_DATE': '@0 +0000',
	       'GIT_COMMITTER_DATE': '@0 +0000', 'GIT_AUTHOR_NAME': ident[0],
	       'GIT_AUTHOR_EMAIL': ident[1], 'GIT_COMMITTER_NAME': ident[0],
	       'GIT_COMMITTER_EMAIL': ident[1]}
	# Debian's .gitignore ignores everything: -f.
	run(['git', 'add', '-A', '-f', '--', *paths], cwd=src, env=env, quiet=True,
	    what=f'git add of {src}')
	run(['git', 'commit', '-q', '--allow-empty', '-m', message], cwd=src, env=env, quiet=True)


def git_am(work: str, patches: Sequence[str], what: str, ident: Identity = PRISTINE_IDENT,
	   at: str = '', origin: str = '') -> None:
	"""git am of PATCHES in WORK, as IDENT: a clone of ORIGIN made there
	first if given (WORK replaced), at the commit AT if given."""
	if origin:
		shutil.rmtree(work, ignore_errors=True)
		run(['git', 'clone', '-q', origin, work], quiet=True)
	if at:
		git(work, 'checkout', '-q', '--detach', at, quiet=True)
	git(work, 'am', '-q', *patches, ident=ident, what=what)
