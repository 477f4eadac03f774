# SPDX-License-Identifier: GPL-2.0
"""What the harness prints and writes of judged boots
(harness_results.Judged): a line per boot as it ends, the base / patched
table of a line's boots (RESULTS' and the cover letter's), the table for
a terminal, the report under them, and the kernels the tables name.
"""

import dataclasses
import datetime
import os
import re
import textwrap
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from harness_config import DEFAULT_ARCH
from harness_results import PRINTK, BootReport, Judged, Status
from harness_util import HarnessError, file_text, note

FIGURES = [
	('events', 'events'),
	('cpus seen', 'cpus'),
	('inversions', 'inversions'),
	('largest inversion (us)', 'max_inversion_ns'),
	('ties', 'ties'),
	('duplicate stamps', 'duplicates'),
	('stamp ahead of clock (ns)', 'lead_ns'),
	('seq gaps', 'gaps'),
	('losses (ENOBUFS)', 'enobufs'),
	('events/s', 'rate'),
]


def markdown_table(rows: Sequence[Sequence[str]]) -> List[str]:
	"""ROWS, the first the header, as a markdown table's lines, each column
	as wide as its widest cell."""
	widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
	out = []
	for i, r in enumerate(rows):
		out.append('| ' + ' | '.join(c.ljust(w) for c, w in zip(r, widths)) + ' |')
		if i == 0:
			out.append('|' + '|'.join('-' * (w + 2) for w in widths) + '|')
	return out


def _check_cell(name: str) -> Callable[[Judged], Optional[str]]:
	"""A table cell: a judged boot's result of check NAME."""
	return lambda j: None if j.report.checks.get(name) is None else str(j.report.checks[name])


def _figure_cell(key: str) -> Callable[[Judged], Optional[str]]:
	"""A table cell: a judged boot's figure KEY."""
	return lambda j: _figure(j.report, key)


def _figure(reported: BootReport, key: str) -> Optional[str]:
	val = reported.figures.get(key)
	if val is not None and key == 'max_inversion_ns' and val.isdigit():
		return f'{int(val) / 1000:.0f}'
	return None if val is None else str(val)


def table(judged: Sequence[Judged]) -> List[str]:
	"""Markdown: a column per run, each cell "base / patched" (or the one
	kernel the run boots), a row per check, then the figures."""
	runs: Dict[str, Dict[str, Judged]] = {}
	for j in judged:
		runs.setdefault(j.boot.run.name, {})[j.boot.variant] = j
	order, heads = [], []
	for run, kernels in runs.items():
		if set(kernels) == {'base', 'patched'}:
			order.append((run, ['base', 'patched']))
			heads.append(run)
		else:
			order.append((run, list(kernels)))
			heads.append(f'{run} ({"/".join(kernels)})')
	names = list(dict.fromkeys(k for j in judged for k in j.report.checks))
	names.sort(key=lambda k: (k.startswith('kunit:'), k.startswith('client:')))

	def row(label: str, get: Callable[[Judged], Optional[str]]) -> List[str]:
		cells = []
		for run, variants in order:
			vals = [get(runs[run][v]) for v in variants]
			cells.append(' / '.join(v if v is not None else '-' for v in vals))
		return [label] + cells

	rows = [['check (base / patched)'] + heads]
	for n in names:
		if all(j.report.checks.get(n) is Status.SKIP for j in judged):
			continue
		label = 'KUnit ' + n[6:] if n.startswith('kunit:') else n
		# A client's row names the release that ran (every boot's).
		releases = list(dict.fromkeys(j.report.releases.get(n) for j in judged
					      if n in j.report.checks))
		if n.startswith('client:') and releases and None not in releases:
			label += f' ({"; ".join(r for r in releases if r is not None)})'
		rows.append(row(label, _check_cell(n)))
	for label, key in FIGURES:
		rows.append(row(label, _figure_cell(key)))
	if any(j.report.clocksources for j in judged):
		rows.append(row('clocksource',
				lambda j: '/'.join(dict.fromkeys(j.report.clocksources)) or None))
	if any(j.report.atomics for j in judged):
		rows.append(row('atomics', lambda j: j.report.atomics))
	rows.append(row('kernel reports', lambda j: str(len(j.report.kernel_reports))))
	rows.append(row('as expected', lambda j: 'no' if j.problems else 'yes'))
	return markdown_table(rows)


def first_failure(j: Judged) -> str:
	"""The first KTAP line of J's serial log that reports a failure (not
	ok), one naming a check of its problems first; '' if none."""
	if not j.report.log or not os.path.isfile(j.report.log):
		return ''
	with open(j.report.log, errors='replace') as f:
		lines = [re.sub(r'^[#\s]*', '', PRINTK.sub('', l)).rstrip() for l in f]
	bad = [l for l in lines if re.match(r'not ok \d+ ', l)]
	about = {p.about.split(':')[-1] for p in j.problems}
	return next((l for l in bad if about & set(l.split()[3:])), bad[0] if bad else '')


def boot_line(j: Judged, n: int, of: int, seconds: float) -> str:
	"""A boot as it ends, as kunit.py's line a test: boot N of OF, its
	kernel, the checks that passed, the inversions and ties, whether as its run
	expects, the time; if not, why, its log and its first failing line."""
	b, r = j.boot, j.report
	decided = [s for s in r.checks.values() if s is not Status.SKIP]
	line = (f'[{"FAILED" if j.problems else "PASSED"}] {n}/{of} Linux {b.line} '
		f'{b.run.arch.name} {b.run.name} {b.variant}: '
		f'{sum(s is Status.OK for s in decided)}/{len(decided)} checks ok, inversions '
		f'{r.figures.get("inversions", "-")}, ties {r.figures.get("ties", "-")}, '
		f'{"UNEXPECTED" if j.problems else "as expected"} ({seconds:.0f}s)')
	if j.problems:
		first = first_failure(j)
		line += f': {"; ".join(p.text for p in j.problems)}; log {r.log}'
		line += f': {first}' if first else ''
	return line


def terminal_table(judged: Sequence[Judged]) -> List[str]:
	"""The table for a terminal: a row per boot, the checks that failed
	named as far as 48 columns go (table()'s, RESULTS', has every one)."""
	rows = [('run', 'kernel', 'failed', 'inversions', 'ties', 'as expected')]
	for j in judged:
		failed = [k for k, v in j.report.checks.items()
			  if v not in (Status.OK, Status.SKIP)]
		rows.append((j.boot.run.name, j.boot.variant,
			     textwrap.shorten(' '.join(failed), 48, placeholder=' ...') or '-',
			     j.report.figures.get('inversions', '-'),
			     j.report.figures.get('ties', '-'), 'no' if j.problems else 'yes'))
	widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
	return ['  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


# Under each table: what base and patched are.
WHAT_EACH_KERNEL_IS = ("base: the series' patches that leave cn_proc.c alone (the "
		       "connector's helper and ktime_stamp_ns(), called by nothing; cn_proc, "
		       "its listener count included, as the line ships it); patched: the whole "
		       "series.")


def report(title: str, judged: Sequence[Judged], terminal: bool = False) -> List[str]:
	"""The table (TERMINAL: terminal_table()'s), every boot that did not
	end as expected and why, and the count."""
	out = [f'### {title}', ''] + (terminal_table(judged) if terminal else table(judged)) + \
		['', WHAT_EACH_KERNEL_IS, '']
	bad = [j for j in judged if j.problems]
	for j in bad:
		out.append(f'UNEXPECTED: {j.boot.run.name} {j.boot.variant}: '
			   f'{"; ".join(w.text for w in j.problems)}')
		for r in j.report.kernel_reports[:1]:
			out += ['    | ' + l for l in r.excerpt]
	out.append(f'{title}: {len(judged) - len(bad)} of {len(judged)} boots as expected')
	return out


# "### Linux 6.12 (linux-source-6.12 6.12.118-1~deb12u1) on x86_64, ..."
TABLE_TITLE = re.compile(r'^#+ Linux (\S+) \(([^)]*)\) on ', re.M)


def kernels_tested(tables: Sequence[str]) -> str:
	"""One line naming the kernel each line's tables were made on, from
	their titles (the tree's id: the Debian source package and its
	version, or KSRC's path): "Kernels tested: Linux 7.3.4
	(linux-source-7.3 7.3.4-1~bpo13+1), ..."; '' if no table has one."""
	seen: Dict[str, str] = {}
	for t in tables:
		for name, tree in TABLE_TITLE.findall(t):
			m = re.fullmatch(r'\S+ (?:\d+:)?(\d[\w.]*?)(?:-[\w.~+]+)?', tree)
			seen.setdefault(name, f'Linux {m.group(1) if m else name} ({tree})')
	return 'Kernels tested: ' + ', '.join(seen.values()) + '.' if seen else ''


# RESULTS (make results) -------------------------------------------------
#
# RESULTS holds the verdicts of the last make check, cold and warm, on its
# first lines, then each line's boots as the tables of OUT/LINE/results/
# ARCH.md (table()'s, every check and figure) record them, laid out for a
# terminal: a line per boot naming the checks that did not pass, and the
# figures per run; then the reports of make kcsan and make bench. No line is
# wider than WIDTH.

WIDTH = 80
RESULTS_TITLE = ['Results of the last run', '=======================']
# A verdict line of make check (check_verdict()), of either kind.
VERDICT = re.compile(r'make check .*?, (cold|warm)\b')
# The figures of RESULTS' tables, each (its column, table()'s row).
RESULTS_FIGURES = (('events', 'events'), ('inv.', 'inversions'),
		   ('max', 'largest inversion (us)'), ('ties', 'ties'),
		   ('shared', 'duplicate stamps'), ('ahead', 'stamp ahead of clock (ns)'),
		   ('ev/s', 'events/s'))
FIGURES_LEGEND = ('The figures of each run, base/patched or its one kernel: the events, '
		  'inversions (inv.) and the largest in us (max), ties, duplicate stamps '
		  '(shared), the largest lead of a stamp over the clock in ns (ahead), '
		  'events a second (ev/s).')
# The targets whose reports follow the boot test's tables in RESULTS, in
# this order, each headed by the commit it ran at.
SECTIONS = ('kcsan', 'bench')


def _head(name: str) -> str:
	return f'make {name} ran at commit '


def _section(out: str, name: str, old: str) -> str:
	"""RESULTS' section of make NAME: OUT/NAME/report.md, headed by
	OUT/NAME/commit, where that run left one; else OLD's (RESULTS as it
	was), up to the next section."""
	report = os.path.join(out, name, 'report.md')
	if os.path.isfile(report):
		commit = os.path.join(out, name, 'commit')
		head = f'{_head(name)}{file_text(commit).strip()}.\n\n' if os.path.isfile(commit) else ''
		return head + file_text(report).strip()
	_, found, rest = old.partition('\n' + _head(name))
	if not found:
		return ''
	for later in SECTIONS[SECTIONS.index(name) + 1:]:
		rest = rest.partition('\n' + _head(later))[0]
	return _head(name) + rest.strip()
STATUS_WORDS = {'FAIL': 'failed', 'skip': 'skipped'}
# What a boot's line says where it is not 0: (table()'s row, its name).
COUNTED = (('seq gaps', 'seq gaps'), ('losses (ENOBUFS)', 'losses'),
	   ('kernel reports', 'kernel reports'))


def check_verdict(what: str, commit: str, cold: bool, seconds: float,
		  steps: Sequence[Tuple[str, float]], failed: str = '') -> str:
	"""make check's verdict as RESULTS says it: WHAT (its options) at
	COMMIT, cold (no entry in the cache at its start) or warm, passed or
	FAILED at the step FAILED, its time, and each step's."""
	each = ', '.join(f'{n} {_mmss(t)}' for n, t in steps)
	end = f'FAILED at {failed} after {_mmss(seconds)}' if failed else \
		f'passed in {_mmss(seconds)}'
	return f'make check ({what}) at {commit}, {"cold" if cold else "warm"}: {end} ({each})'


def _mmss(seconds: float) -> str:
	s = int(seconds)
	return f'{s // 60}m{s % 60}s'


@dataclasses.dataclass
class BootTable:
	"""A table() of one line on one architecture, read back from its
	markdown (OUT/LINE/results/ARCH.md): its title, each run and the
	kernels it boots, each row's cells by run and kernel, the count."""
	title: str
	runs: List[Tuple[str, List[str]]]
	rows: Dict[str, List[List[str]]]
	count: str
	unexpected: List[str]


def read_boot_table(md: str) -> BootTable:
	"""The BootTable of report()'s markdown MD."""
	lines = md.splitlines()
	title = next((l[4:] for l in lines if l.startswith('### ')), '')
	table = [[c.strip() for c in l.strip().strip('|').split('|')]
		 for l in lines if l.startswith('|')]
	if not title or len(table) < 2:
		raise HarnessError(f'not a table of boots: {md[:60]!r}')
	runs = []
	for head in table[0][1:]:
		m = re.fullmatch(r'(\S+) \((\S+)\)', head)
		runs.append((m.group(1), m.group(2).split('/')) if m
			    else (head, ['base', 'patched']))
	rows = {}
	for r in table[2:]:
		rows[r[0]] = [c.split(' / ') if len(kernels) > 1 else [c]
			      for c, (_, kernels) in zip(r[1:], runs)]
	counted = re.compile(r': (\d+ of \d+ boots as expected)$')
	count = next((m.group(1) for m in map(counted.search, lines) if m), '')
	unexpected = [l for l in lines if l.startswith(('UNEXPECTED: ', '    | '))]
	return BootTable(title, runs, rows, count, unexpected)


def _wrapped(text: str, indent: str = '', more: str = '    ') -> List[str]:
	return textwrap.wrap(text, WIDTH, initial_indent=indent,
			     subsequent_indent=indent + more, break_on_hyphens=False,
			     break_long_words=False)


def _checks(t: BootTable) -> List[str]:
	"""T's rows of checks (not figures): each as its label."""
	return [l for l in t.rows if l not in dict(FIGURES) and l not in (
		'clocksource', 'atomics', 'kernel reports', 'as expected')]


def _name(label: str) -> str:
	"""A check's name: its label without the release that ran it."""
	return label.split(' (')[0]


def always_skipped(tables: Sequence[BootTable]) -> List[str]:
	"""The checks every boot of TABLES that reports them skips."""
	status: Dict[str, set] = {}
	for t in tables:
		for l in _checks(t):
			status.setdefault(_name(l), set()).update(c for r in t.rows[l] for c in r)
	return [n for n, s in status.items() if s - {'-'} == {'skip'}]


def releases(tables: Sequence[BootTable]) -> List[str]:
	"""Each client's check and the release that ran it, as TABLES' labels
	name them."""
	return list(dict.fromkeys(f'{_name(l)} {l[len(_name(l)) + 2:-1]}' for t in tables
				  for l in _checks(t) if _name(l) != l))


def results_section(t: BootTable, skipped: Sequence[str] = ()) -> List[str]:
	"""T laid out for RESULTS: its title, the count, a line per boot (the
	checks that did not pass, SKIPPED aside, with what else it shows), and
	a table of the figures per run: "base/patched", or the run's
	kernel."""
	head, _, qemu = t.title.rpartition(', ')
	out = [f'### {head}', ''] + _wrapped(f'{qemu}: {t.count}.', more='') + ['']

	def cell(label: str, i: int, j: int) -> str:
		return t.rows[label][i][j] if label in t.rows else '-'

	for i, (run, kernels) in enumerate(t.runs):
		for j, k in enumerate(kernels):
			cpus = cell('cpus seen', i, j)
			cpus += ' cpu' if cpus == '1' else ' cpus'
			shows = [cell('clocksource', i, j), cpus, cell('atomics', i, j)]
			says = [s for s in shows if not s.startswith('-')]
			bad: Dict[str, List[str]] = {}
			for l in _checks(t):
				c = t.rows[l][i][j]
				if c not in ('ok', '-') and _name(l) not in skipped:
					bad.setdefault(c, []).append(_name(l))
			notes = [f'{", ".join(ls)} {STATUS_WORDS.get(c, c)}'
				 for c, ls in bad.items()]
			for label, what in COUNTED:
				if cell(label, i, j) not in ('0', '-'):
					notes.append(f'{cell(label, i, j)} {what}')
			verdict = '; '.join(notes) or 'every check passed'
			if cell('as expected', i, j) == 'no':
				verdict = 'UNEXPECTED: ' + verdict
			out += _wrapped(f'{run} {k} ({", ".join(says)}): {verdict}', '  ')
	out += [''] + t.unexpected
	figured = [i for i, _ in enumerate(t.runs)
		   if any(v != '-' for v in t.rows.get('events', [[]] * len(t.runs))[i])]
	if figured:
		shown = [(c, r) for c, r in RESULTS_FIGURES if r in t.rows]
		rows = [['run'] + [c for c, _ in shown]]
		for i in figured:
			rows.append([t.runs[i][0]] + ['/'.join(t.rows[r][i]) for _, r in shown])
		widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
		out += [('  ' + '  '.join(v.ljust(w) for v, w in zip(r, widths))).rstrip()
			for r in rows]
	while out[-1] == '':
		out.pop()
	return out


def figures(results: str) -> List[Tuple[str, str, str, Dict[str, str]]]:
	"""(line, architecture, run, {column: cell}) of each run of RESULTS'
	figures tables (results_section()'s), in order: what the cover
	letter's table is made of (harness_diffs.cover_table())."""
	out = []
	for sect in re.split(r'^### ', results, flags=re.M)[1:]:
		head = re.match(r'Linux (\S+) \(.*\) on (\S+)', sect)
		lines = sect.splitlines()
		start = [i for i, l in enumerate(lines) if l.split()[:2] == ['run', 'events']]
		if not head or not start:
			continue
		columns = lines[start[0]].split()[1:]
		for l in lines[start[0] + 1:]:
			if not l.strip():
				break
			words = l.split()
			out.append((head.group(1), head.group(2), words[0],
				    dict(zip(columns, words[1:]))))
	return out


def fit(text: str) -> List[str]:
	"""TEXT (a report in markdown) in lines of WIDTH at most: a wider line
	wrapped at its words (a list item's under its text), and a wider
	table as a record per row: its first cell, then each other cell after
	its column's name. What fits is left as it is."""
	out: List[str] = []
	lines = text.splitlines()
	i = 0
	while i < len(lines):
		if lines[i].startswith('|'):
			block = []
			while i < len(lines) and lines[i].startswith('|'):
				block.append(lines[i])
				i += 1
			if max(map(len, block)) <= WIDTH:
				out += block
				continue
			rows = [[c.strip() for c in l.strip().strip('|').split('|')] for l in block
				if not re.fullmatch(r'[|\s:-]+', l)]
			for r in rows[1:]:
				cells = ', '.join(f'{h} {c}' for h, c in zip(rows[0][1:], r[1:]))
				out += _wrapped(f'{r[0]}: {cells}', '  ')
			continue
		line = lines[i]
		i += 1
		if len(line) <= WIDTH:
			out.append(line)
			continue
		body = line.lstrip()
		lead = line[:len(line) - len(body)] + ('- ' if body.startswith('- ') else '')
		out += textwrap.wrap(line[len(lead):], WIDTH, initial_indent=lead,
				     subsequent_indent=' ' * len(lead), break_on_hyphens=False,
				     break_long_words=False)
	return out


def _verdicts(text: str) -> Dict[str, str]:
	"""Each kind's verdict line in RESULTS' TEXT (before its first table),
	a wrapped one joined."""
	joined = re.sub(r'\n {2}(?=\S)', ' ', text.split('\n### ')[0])
	return {m.group(1): l for l in joined.splitlines() for m in [VERDICT.match(l)] if m}


def results_text(verdicts: Dict[str, str], ran: str, tables: Sequence[str],
		 sections: Sequence[str]) -> List[str]:
	"""RESULTS: the VERDICTS of make check, cold and warm; RAN, when and
	where the boots ran; each of TABLES (report()'s markdown) laid out by
	results_section(); SECTIONS, the reports of make kcsan and make bench,
	each headed by the commit it ran at."""
	out = RESULTS_TITLE + ['']
	for v in verdicts.values():
		out += _wrapped(v, more='  ')
	boots = [read_boot_table(t) for t in tables]
	skipped = always_skipped(boots)
	out += [''] + _wrapped(ran, more='') + ['']
	skips = f' (every boot that runs them skips {", ".join(skipped)})' if skipped else ''
	out += _wrapped(WHAT_EACH_KERNEL_IS + ' configs/runs.toml says what each run boots '
			f'and expects. A line per boot names the checks that did not pass{skips}. '
			+ FIGURES_LEGEND, more='')
	if releases(boots):
		out += [''] + _wrapped('The clients: ' + '; '.join(releases(boots)) + '.', more='')
	for b in boots:
		out += [''] + results_section(b, skipped)
	for section in sections:
		if section:
			out += [''] + fit(section)
	return out


def write_results(out: str, lines: Sequence[str], path: str) -> None:
	"""PATH (RESULTS) from OUT: the last make check's verdict (OUT/
	check.time) and, of the other kind, PATH's; the tables of the LINES'
	boots that ran since OUT/commit; the section of each of SECTIONS, OUT's
	or else PATH's. Where OUT has no tables but a section (make kcsan or
	make bench run alone), PATH's text before its sections is kept."""
	commit = os.path.join(out, 'commit')
	tables = []
	for line in lines:
		d = os.path.join(out, line, 'results')
		# The default architecture's table first.
		for name in sorted(os.listdir(d) if os.path.isdir(d) else [],
				   key=lambda n: (n != DEFAULT_ARCH + '.md', n)):
			t = os.path.join(d, name)
			# Not an older run's.
			if name.endswith('.md') and os.path.isfile(commit) and \
			   os.path.getmtime(t) >= os.path.getmtime(commit):
				tables.append(t)
	old = file_text(path) if os.path.isfile(path) else ''
	sections = [_section(out, name, old) for name in SECTIONS]
	if not tables:
		ran_alone = [n for n in SECTIONS if os.path.isfile(os.path.join(out, n, 'report.md'))]
		if not old or not ran_alone:
			raise HarnessError(f'no results in {out}: run make boot-test or make check first')
		for name in SECTIONS:
			old = old.partition('\n' + _head(name))[0]
		with open(path, 'w') as f:
			f.write('\n\n'.join([old.rstrip()] + ['\n'.join(fit(t)) for t in sections if t]) + '\n')
		note(f'wrote {path}')
		return
	verdicts = _verdicts(old)
	ct = os.path.join(out, 'check.time')
	if os.path.isfile(ct):
		new = _verdicts(file_text(ct))
		verdicts = {**new, **{k: v for k, v in verdicts.items() if k not in new}}
	texts = [file_text(t) for t in tables]
	when = datetime.datetime.utcfromtimestamp(os.path.getmtime(tables[0]))
	ran = (f'The boots below ran on {when:%Y-%m-%d} at commit {file_text(commit).strip()}, '
	       f'on {os.cpu_count()} cpus. ' + kernels_tested(texts))
	with open(path, 'w') as f:
		f.write('\n'.join(results_text(verdicts, ran, texts, sections)) + '\n')
	note(f'wrote {path}')
