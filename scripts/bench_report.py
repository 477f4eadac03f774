# SPDX-License-Identifier: GPL-2.0
"""make bench's guest tables, from the serial logs of its boots: what each
design keeps (the selftest's figures on the default clocksource and on
clocksource=jiffies) and what it costs (the fork/exec/exit storm, every
design once a round, paired with the base kernel of the same round).

A storm boot runs the storm once per listener state (cn_proc_storm -l):
  all      the events/s the listener received;
  exits    the same, of a listener that the kernel's filter (6.6 and later)
           sends exits only: the kernel still makes and stamps every event;
  overrun  the events/s the workers made (the listener, whose receive buffer
           is small, gets a fraction of them): a state that lost nothing
           did not run.
Each design's cost in a state is the median over the rounds of its
events/s over base's in that round, with the median's distribution-free
95% interval (bench_stats); a mode whose interval is wider than the
effect the native figures predict says "cannot show it", not a result.
"""

import re
from typing import Dict, List, Optional, Sequence, Tuple

import bench_native
import bench_stats
from harness_results import BootReport, Status

# The designs make bench compares, as the kernels it builds: the base
# kernel, two designs the series was chosen over (mutants of the series),
# and the series. Their names in stamp_native's output are the second.
DESIGNS = (
	('base', 'base', 'ktime_get_ns() in each proc_*_connector(), before the local lock'),
	('clock-under-lock', 'clock-under-lock', 'ktime_get_ns() in send_msg(), under the local lock'),
	('per-cpu-floor', 'per-cpu-floor', 'a per-CPU floor under the local lock, no atomic'),
	('patched', 'series', 'ktime_stamp_ns() on one global domain (the series)'),
)
STATES = ('all', 'exits', 'overrun')
STORM = re.compile(r'storm: rate=([\d.]+) enobufs=(\d+) listener=(\S+) made_rate=([\d.]+)')
CAUSAL = re.compile(r'# causal_order: (\d+) processes, (\d+) violations; (\d+) probes, (-?\d+) out of order')


from harness_util import HarnessError as ReportError  # noqa: E402  (the harness's one error type)


def storm_results(lines: Sequence[str], path: str) -> Dict[str, tuple]:
	"""Per listener state: (events/s received, ENOBUFS, events/s made)."""
	if not any(l.rstrip() == 'cn_proc-storm: exit 0' for l in lines):
		raise ReportError(f'{path}: the storm did not finish (no "cn_proc-storm: exit 0")')
	out: Dict[str, tuple] = {}
	for l in lines:
		m = STORM.match(l)
		if m:
			out[m.group(3)] = (float(m.group(1)), int(m.group(2)), float(m.group(4)))
	missing = [s for s in STATES if s not in out]
	if missing:
		raise ReportError(f'{path}: no storm result for listener state {missing[0]}')
	if not out['overrun'][1]:
		raise ReportError(f'{path}: listener state overrun lost nothing (no ENOBUFS): it did not overrun')
	return out


def state_rate(state: str, result: tuple) -> float:
	"""What a state's cost is read from: the events made when the listener
	overruns, the events received otherwise."""
	rate, _, made = result
	value = made if state == 'overrun' else rate
	if not value:
		raise ReportError(f'listener state {state}: 0 events/s')
	return float(value)


def effects(native_lines: Optional[List[str]], mode: str) -> Dict[str, Optional[float]]:
	"""Per design, the effect on events/s that the native figures predict
	for a mode: the overhead per event f of the design over base, as the
	distance 1 - 1 / (1 + f) of the ratio from 1; on one core for -icount,
	where the vCPUs never run at once, on two cores with spaced calls (each
	finds the domain's line on the other core, as events spread over CPUs
	do) otherwise."""
	out: Dict[str, Optional[float]] = {d: None for d, _, _ in DESIGNS}
	if not native_lines:
		return out
	fig = bench_native.figures(bench_native.parse(native_lines))
	threads, spaced = (1, False) if mode == 'icount' else (2, True)
	for design, scheme, _ in DESIGNS:
		for (s, t, g), (f, _, _) in fig['fraction'].items():
			if s == scheme and t == threads and (g > 0) == spaced:
				out[design] = f / (1 + f)
	return out


def storm_table(mode: str, accel: str, rounds: List[Dict[str, Dict[str, tuple]]],
		predicted: Dict[str, Optional[float]]) -> List[str]:
	"""One mode: per state and design, the median ratio to base over the
	rounds, its interval and the verdict."""
	out = [f'Storm, {mode} (-accel {accel}), {len(rounds)} rounds, each round every design once '
	       '(the order rotated a design each round), events/s over the base kernel\'s of the same round:',
	       '', '| listener | design | median ratio | 95% CI | coverage | min-max | predicted | verdict |',
	       '|----------|--------|--------------|--------|----------|---------|-----------|---------|']
	summary = []
	for state in STATES:
		for design, _, _ in DESIGNS[1:]:
			ratios = [state_rate(state, r[design][state]) / state_rate(state, r['base'][state]) for r in rounds]
			iv = bench_stats.median_ci(ratios)
			eff = predicted.get(design)
			ci = 'none' if iv.low is None else f'{iv.low:.4f}-{iv.high:.4f}'
			cov = '-' if iv.low is None else f'{iv.coverage:.1%}'
			pred = '-' if eff is None else f'{1 - eff:.4f}'
			verdict = bench_stats.verdict(iv, eff)
			out.append(f'| {state} | {design} | {iv.median:.4f} | {ci} | {cov} | '
				   f'{min(ratios):.4f}-{max(ratios):.4f} | {pred} | {verdict} |')
			summary.append(f'bench: mode={mode} listener={state} design={design} median={iv.median:.4f} '
				       f'ci={ci} rounds={iv.n} predicted={pred} '
				       f'{"shows" if bench_stats.can_show(iv, eff) else "cannot-show"}')
	return out + [''] + summary + ['']


def causal(lines: Sequence[str]) -> Optional[tuple]:
	"""(processes, violations, probes, probes out of order) from the
	selftest's causal_order line."""
	for l in lines:
		m = CAUSAL.search(l)
		if m:
			return tuple(int(x) for x in m.groups())
	return None


def keeps_table(keeps: Dict[Tuple[str, Optional[str]], Tuple[BootReport, Optional[tuple]]]) -> List[str]:
	"""KEEPS: (design, clocksource) -> (what the boot reported, its
	causal_order figures)."""
	out = ['What each design keeps: the selftest on each kernel (2 CPUs, its fork/exec/exit load), '
	       'on the default clocksource and on clocksource=jiffies; "inversions": a stamp below that of the '
	       'previous seq of its CPU; "ties": the stamp of the previous message of its CPU; "shared": a stamp '
	       'another message also has; "causal faults": events stamped before their process\'s fork or '
	       'after its exit, and probes (a mark on CPU0 after a burst ending with a mark on CPU1) whose '
	       'second mark is stamped below the first:', '',
	       '| design | clocksource | events | inversions | ties | shared | causal faults (events; probes) | '
	       'lead over clock, ns | selftest checks failed |',
	       '|--------|-------------|--------|------------|------|--------|-------------------------------|'
	       '---------------------|------------------------|']
	for design, _, what in DESIGNS:
		for clock in (None, 'jiffies'):
			reported, c = keeps[design, clock]
			d = reported.figures
			failed = sorted(k for k, v in reported.checks.items()
					if ':' not in k and v not in (Status.OK, Status.SKIP))
			cf = '-' if c is None else f'{c[1]} of {c[0]} processes; {c[3]} of {c[2]}'
			out.append(f'| {design} | {"/".join(dict.fromkeys(reported.clocksources)) or "?"} | '
				   f'{d.get("events", "-")} | {d.get("inversions", "-")} | {d.get("ties", "-")} | '
				   f'{d.get("duplicates", "-")} | {cf} | {d.get("lead_ns", "-")} | '
				   f'{", ".join(failed) or "none"} |')
	out += ['', 'The designs:'] + [f'  - {d}: {what}' for d, _, what in DESIGNS] + ['']
	return out
