# SPDX-License-Identifier: GPL-2.0
"""What the harness prints and writes of judged boots
(harness_results.Judged): a line per boot as it ends, the base / patched
table of a line's boots (RESULTS' and the cover letter's), the table for
a terminal, the report under them, and the kernels the tables name.
"""

import os
import re
import textwrap
from typing import Callable, Dict, List, Optional, Sequence

from harness_results import PRINTK, BootReport, Judged, Status

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
	widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
	out = []
	for i, r in enumerate(rows):
		out.append('| ' + ' | '.join(c.ljust(w) for c, w in zip(r, widths)) + ' |')
		if i == 0:
			out.append('|' + '|'.join('-' * (w + 2) for w in widths) + '|')
	return out


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
WHAT_EACH_KERNEL_IS = ("base: the tree with the series' first patch (ktime_stamp_ns(), "
		       "called by nothing; cn_proc as in the pristine tree); patched: the whole "
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
