# SPDX-License-Identifier: GPL-2.0
"""make bench's guest table, from the serial logs of its boots: what each
design keeps, the selftest's figures on the default clocksource and on
clocksource=jiffies (harness_results' boot report, the harness's listener's
figures among it, and the line before causal_order that the selftest
prints).
"""

import re
from typing import Dict, List, Optional, Sequence, Tuple

from harness_results import BootReport, Status

# The designs make bench compares, as the kernels it builds: the base
# kernel, two designs the series was chosen over (mutants of the series),
# and the series.
DESIGNS = (
	('base', 'ktime_get_ns() in each proc_*_connector(), before the local lock'),
	('clock-under-lock', 'ktime_get_ns() in send_msg(), under the local lock'),
	('per-cpu-floor', 'a per-CPU floor under the local lock, no atomic'),
	('patched', 'ktime_stamp_ns() on one global domain (the series)'),
)
# The clocksources each design boots on: the default, and jiffies, whose
# ticks make equal stamps.
CLOCKS = (None, 'jiffies')
CAUSAL = re.compile(r'# \d+ events, \d+ ENOBUFS, (\d+) forks: (\d+) out of order')


def causal(lines: Sequence[str]) -> Optional[tuple]:
	"""(processes forked, their events out of causal order) from the
	selftest's line before its causal_order result."""
	for l in lines:
		m = CAUSAL.search(l)
		if m:
			return tuple(int(x) for x in m.groups())
	return None


def keeps_table(keeps: Dict[Tuple[str, Optional[str]],
			     Tuple[BootReport, Optional[tuple]]]) -> List[str]:
	"""KEEPS: (design, clocksource) -> (what the boot reported, its
	causal_order figures)."""
	out = ['What each design keeps: the selftest on each kernel (2 CPUs, its '
	       'fork/exec/exit load), on the default clocksource and on clocksource=jiffies; '
	       '"inversions": a stamp below that of the previous seq of its CPU; "ties": the '
	       'stamp of the previous message of its CPU; "shared": a stamp another message also '
	       'has; "causal faults": events of a process forked during the run stamped before its '
	       'fork or after its exit:', '',
	       '| design | clocksource | events | inversions | ties | shared | causal faults '
	       '| lead over clock, ns | selftest checks failed |',
	       '|--------|-------------|--------|------------|------|--------|'
	       '---------------|---------------------|------------------------|']
	for design, _ in DESIGNS:
		for clock in CLOCKS:
			reported, c = keeps[design, clock]
			d = reported.figures
			failed = sorted(k for k, v in reported.checks.items()
					if ':' not in k and v not in (Status.OK, Status.SKIP))
			cf = '-' if c is None else f'{c[1]} events of {c[0]} processes'
			clocks = '/'.join(dict.fromkeys(reported.clocksources)) or '?'
			out.append(f'| {design} | {clocks} | {d.get("events", "-")} | '
				   f'{d.get("inversions", "-")} | {d.get("ties", "-")} | '
				   f'{d.get("duplicates", "-")} | {cf} | {d.get("lead_ns", "-")} | '
				   f'{", ".join(failed) or "none"} |')
	out += ['', 'The designs:'] + [f'  - {d}: {what}' for d, what in DESIGNS] + ['']
	return out
