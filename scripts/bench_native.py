#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_native.py [FILE]: the native section of make bench's report, from
the output of tests/bench/stamp_native.c (FILE, or standard input).

Recomputes every figure from the program's per-round lines (bench_stats:
the median and its distribution-free 95% interval from order statistics),
checks them against the program's own summary lines, and prints:
  - the machine, its load averages, and what each scheme costs per call on
    one core and on two contending cores, the line transfer between them,
    and the events' own cost with no listener and with one;
  - the overhead per event of each candidate over base, as a fraction of
    the cost of an event with one listener;
  - the model for N CPUs: where each global line that the event path
    writes saturates, from the measured costs of an event, of the domain's
    update and of an atomic on a line the other core wrote.
Exits 1, saying why, when the output lacks a figure or disagrees with
itself.
"""
import re
import sys
from typing import Any, Dict, Iterable, List, NoReturn, Optional, Tuple

import bench_stats
from harness_util import HarnessError

SCHEMES = ('base', 'clock-under-lock', 'per-cpu-floor', 'series', 'atomic-inc')
PREFIX = 'stamp_native: '
KV = re.compile(r'(\w+)=("[^"]*"|\S+)')

# The global lines the event path writes, and per process event the fewest
# hand-offs of each to another CPU when the events of many CPUs interleave:
# an atomic read-modify-write or lock acquisition needs the line on its CPU,
# so one made after another CPU's moves it once; two back to back count as
# one, two with other work between them (where another CPU takes the line)
# as two. Counts per fork/exec/exit cycle are per 3 events. From Linux 7.3's
# kernel/fork.c, kernel/exit.c, kernel/pid.c, fs/exec.c and
# net/netlink/af_netlink.c; lock hold times come on top and are not
# modelled. The domain's hand-off is a read and then a cmpxchg; the others
# are one atomic each, as stamp_native's atomic-inc.
DOMAIN = 'ordering domain (series)'
LINES = [
	(DOMAIN, 1.0,
	 'atomic64_read() and atomic64_try_cmpxchg(): 1 per event, and 1 more '
	 'atomic per lost race (the failures per call back to back)'),
	('nl_table_lock', 1.0,
	 'read_lock_irqsave() and read_unlock_irqrestore() in '
	 'netlink_lock_table(), back to back: 1 per event'),
	('nl_table_users', 2.0,
	 'atomic_inc() in netlink_lock_table(), atomic_dec_and_test() in '
	 'netlink_unlock_table() after the broadcast: 2 per event'),
	("the listener's sk_refcnt", 2.0,
	 'sock_hold() and sock_put() around the delivery in do_one_broadcast(), '
	 'also for events its filter drops: 2 per event'),
	('tasklist_lock', 4 / 3,
	 'write_lock_irq() in copy_process(), exit_notify() and release_task(), '
	 "read_lock() in the parent's do_wait(): 4 per cycle; the write sections "
	 'serialize on top'),
	('pidmap_lock', 2 / 3,
	 'spin_lock() in alloc_pid() and free_pid(): 2 per cycle; the sections '
	 'serialize on top'),
	('binfmt_lock', 2 / 3,
	 'read_lock() and read_unlock() around the format list in '
	 'search_binary_handler(), before and after load_binary(): 2 per exec, '
	 'more for each format tried before ELF'),
]
CPU_COUNTS = (2, 8, 32, 64, 128, 256, 512, 1024)


def fail(msg: str) -> NoReturn:
	raise HarnessError(msg)


def fields(line: str) -> Dict[str, str]:
	return {k: v.strip('"') for k, v in KV.findall(line[len(PREFIX):])}


def parse(lines: Iterable[str]) -> Dict[str, Any]:
	"""The program's output as a dict: header, loadavg, rounds per figure,
    summaries, and whether the listener was available."""
	out: Dict[str, Any] = {'header': None, 'loadavg': {}, 'stamp': {}, 'fail': {},
		   'overlap': {}, 'transfer': [], 'events': {}, 'received': {},
		   'summary': {}, 'listener': None}
	for line in lines:
		line = line.rstrip('\n')
		if not line.startswith(PREFIX):
			continue
		f = fields(line)
		if 'unavailable' in line:
			out['listener'] = line.split('unavailable: ', 1)[1]
		elif 'cpu' in f and 'rounds' in f and 'calls' in f:
			out['header'] = f
		elif any(k.startswith('loadavg_') for k in f):
			for k, v in f.items():
				out['loadavg'][k[len('loadavg_'):]] = v
		elif 'round' in f:
			part = f['part']
			if part == 'stamp':
				key = (f['scheme'], int(f['threads']), int(f['gap']))
				out['stamp'].setdefault(key, []).append(float(f['ns_per_call']))
				out['fail'].setdefault(key, []).append(float(f['fail_per_call']))
				out['overlap'].setdefault(key, []).append(float(f['overlap']))
			elif part == 'transfer':
				out['transfer'].append(float(f['ns_per_transfer']))
			elif part == 'events':
				ns = float(f['ns_per_event'])
				out['events'].setdefault(f['listener'], []).append(ns)
				out['received'].setdefault(f['listener'], []).append(
					(int(f['received']), int(f['expected']), int(f['enobufs'])))
		elif 'scheme' in f and 'overhead' not in line:
			out['summary'][('stamp', f['scheme'], int(f['threads']), int(f['gap']))] = f
		elif line.startswith(PREFIX + 'transfer '):
			out['summary'][('transfer',)] = f
		elif line.startswith(PREFIX + 'events '):
			out['summary'][('events', f['listener'])] = f
	if not out['header']:
		fail('no stamp_native header line')
	return out


def check(name: str, iv: bench_stats.Interval, summary: Optional[Dict[str, str]], key: str) -> None:
	"""The program's median and interval must be this one's, to its 2 decimals."""
	if summary is None:
		fail(f'{name}: no summary line')
	want = [iv.median, iv.low, iv.high]
	got = [summary[key], summary['ci_low'], summary['ci_high']]
	for w, g in zip(want, got):
		if (w is None) != (g == 'none') or (w is not None and abs(w - float(g)) > 0.006):
			fail(f'{name}: the program says {got}, its rounds give {want}')


def fmt(iv: bench_stats.Interval, digits: int = 2) -> str:
	ci = 'no interval' if iv.low is None else f'{iv.low:.{digits}f}-{iv.high:.{digits}f}'
	return f'{iv.median:.{digits}f} | {ci}'


def configs(out: Dict[str, Any]) -> List[Tuple[int, int]]:
	"""The stamp's configurations measured, (threads, gap): one core, two
    back to back, two spaced."""
	return sorted({(t, g) for _, t, g in out['stamp']})


def config_name(threads: int, gap: int) -> str:
	if threads == 1:
		return '1 core'
	return f'2 cores, spaced by {gap} steps' if gap else '2 cores, back to back'


def paired_extra(out: Dict[str, Any], scheme: str, config: Tuple[int, int]) -> bench_stats.Interval:
	base = out['stamp'][('base', *config)]
	other = out['stamp'][(scheme, *config)]
	return bench_stats.median_ci([o - b for o, b in zip(other, base)])


def fraction(extra: bench_stats.Interval,
	     event: bench_stats.Interval) -> Tuple[float, Optional[float], Optional[float]]:
	"""The fraction and the extremes of it over both intervals (each 95%, so
    together at least 90%), or None for the extremes."""
	f = extra.median / event.median
	if extra.low is None or extra.high is None or event.low is None or event.high is None:
		return f, None, None
	ends = [x / e for x in (extra.low, extra.high) for e in (event.low, event.high)]
	return f, min(ends), max(ends)


def figures(out: Dict[str, Any]) -> Dict[Any, Any]:
	"""Every figure the report prints, recomputed and checked."""
	fig: Dict[Any, Any] = {'stamp': {}, 'extra': {}, 'fraction': {}}
	for key, xs in sorted(out['stamp'].items()):
		scheme, threads, gap = key
		iv = bench_stats.median_ci(xs)
		check(f'{scheme} threads={threads} gap={gap}', iv,
			  out['summary'].get(('stamp', *key)), 'ns_per_call')
		fig['stamp'][key] = (iv, bench_stats.median(out['fail'][key]),
				     min(out['overlap'][key]))
	if out['transfer']:
		fig['transfer'] = bench_stats.median_ci(out['transfer'])
		check('transfer', fig['transfer'], out['summary'].get(('transfer',)),
		      'ns_per_transfer')
	for state, xs in out['events'].items():
		fig[('events', state)] = bench_stats.median_ci(xs)
		check(f'events listener={state}', fig[('events', state)],
			  out['summary'].get(('events', state)), 'ns_per_event')
	event = fig.get(('events', 'one'))
	for scheme in SCHEMES[1:]:
		for config in configs(out):
			if ('base', *config) in out['stamp'] and (scheme, *config) in out['stamp']:
				x = paired_extra(out, scheme, config)
				fig['extra'][(scheme, *config)] = x
				if event:
					fig['fraction'][(scheme, *config)] = fraction(x, event)
	return fig


def series_key(fig: Dict[Any, Any], threads: int, spaced: bool) -> Optional[Tuple[str, int, int]]:
	"""The series' key of one configuration, or None if not measured."""
	key: Tuple[str, int, int]
	for key in fig['stamp']:
		if key[0] == 'series' and key[1] == threads and (key[2] > 0) == spaced:
			return key
	return None


def model(fig: Dict[Any, Any]) -> Optional[Dict[str, Any]]:
	"""The model's inputs, all measured: t, e, the domain's cost per event
    and an atomic's when the line is on the other core (spaced, over base),
    the failures per call back to back; and per line its hand-offs per
    event h, the time it is busy per event b and the CPU count N = e / b at
    which it is busy all the time. None when a figure is missing."""
	spaced = series_key(fig, 2, True)
	tight = series_key(fig, 2, False)
	inc = spaced and ('atomic-inc', 2, spaced[2])
	if not (spaced and tight and inc in fig['extra'] and 'transfer' in fig
			and ('events', 'one') in fig):
		return None
	m: Dict[str, Any] = {'t': fig['transfer'].median, 'e': fig[('events', 'one')].median,
		 'domain': fig['extra'][spaced].median, 'atomic': fig['extra'][inc].median,
		 'fails': fig['stamp'][tight][1], 'rows': []}
	for name, h, why in LINES:
		if name == DOMAIN:
			b = m['domain'] + m['fails'] * m['atomic']
		else:
			b = h * m['atomic']
		m['rows'].append((name, h, b, m['e'] / b if b > 0 else float('inf'), why))
	# Back to back on two cores, each scheme's line saturated: updates/s.
	m['cap2'] = {s: 2e9 / fig['stamp'][(s, 2, 0)][0].median
				 for s in ('series', 'atomic-inc') if (s, 2, 0) in fig['stamp']}
	return m


def report(out: Dict[str, Any]) -> None:
	h = out['header']
	fig = figures(out)
	la = out['loadavg']
	print(f'Native, on this machine ({h["cpu"]}, hypervisor {h["hypervisor"]}, cpus '
	      f'{h["cpus"]} of {h["online"]}, kernel {h["kernel"]}, clocksource '
	      f'{h["clocksource"]}); load average {la.get("start", "?")} at the start, '
	      f'{la.get("end", "?")} at the end; {h["rounds"]} interleaved rounds, each figure '
	      'the median and its distribution-free 95% interval (order statistics):')
	print()
	print('| scheme | callers | ns/call | 95% CI | cmpxchg failures/call | least overlap |')
	print('|--------|---------|---------|--------|-----------------------|---------------|')
	for config in configs(out):
		for scheme in SCHEMES:
			if (scheme, *config) in fig['stamp']:
				iv, fails, overlap = fig['stamp'][(scheme, *config)]
				print(f'| {scheme} | {config_name(*config)} | {fmt(iv)} | '
				      f'{fails:.4f} | {overlap:.3f} |')
	print()
	print('(spaced: with the local work between calls in ns/call; the overhead below '
	      'pairs it away)')
	print()
	if 'transfer' in fig:
		print(f'One transfer of a line between cpus {h["cpus"]} (half a ping-pong round '
		      f'trip), ns: {fmt(fig["transfer"])}')
	for state in ('none', 'one'):
		if ('events', state) in fig:
			rec = out['received'][state]
			got = sum(r for r, _, _ in rec)
			want = sum(x for _, x, _ in rec)
			lost = sum(x for _, _, x in rec)
			extra = (f'; the listener received {got} of the {want} events made '
				 f'(others\' events count too), {lost} ENOBUFS'
				 if state == 'one' else '')
			print(f'fork/exec/exit of {h["exec"]}, {state} listener, ns per event: '
			      f'{fmt(fig[("events", state)], 0)}{extra}')
	if out['listener']:
		print(f'no listener could subscribe on this kernel: {out["listener"]}')
	print()
	if fig['extra']:
		print_overhead(fig)
	m = model(fig)
	if m:
		print_model(m)


def print_overhead(fig: Dict[Any, Any]) -> None:
	"""Each scheme's overhead over base: the figures the changelogs quote."""
	print('Overhead over base, paired by round (ns per call), and as a fraction of an event '
	      'with one listener (interval: the extremes over both intervals):')
	print()
	print('| scheme | callers | extra ns/call | 95% CI | fraction of an event | interval |')
	print('|--------|---------|---------------|--------|----------------------|----------|')
	for key, x in sorted(fig['extra'].items(), key=lambda i: (i[0][1:], i[0][0])):
		scheme, threads, gap = key
		fr = fig['fraction'].get(key)
		if fr:
			f, lo, hi = fr
			rng = 'none' if lo is None else f'{lo:.3%} to {hi:.3%}'
			frs = f'{f:.3%} | {rng}'
		else:
			frs = 'no listener | -'
		print(f'| {scheme} | {config_name(threads, gap)} | {fmt(x)} | {frs} |')
	print()
	for (scheme, threads, gap), (f, lo, hi) in sorted(fig['fraction'].items()):
		print(f'overhead per event, {scheme} over base, {config_name(threads, gap)}: '
		      f'{f:.3%}' + ('' if lo is None else f' ({lo:.3%} to {hi:.3%})'))
	print()


def print_model(m: Dict[str, Any]) -> None:
	t, e = m['t'], m['e']
	print(f'Model for N CPUs. Measured here, on two cores of one socket: t = {t:.1f} ns '
	      f'per hand-off of a line (half a ping-pong round trip); e = {e:.0f} ns per event '
	      'with one listener on one core; with the line on the other core, the domain '
	      f'costs {m["domain"]:.1f} ns per event over base ({m["domain"] / t:.2f} t) and '
	      f'one atomic of a shared line {m["atomic"]:.1f} ns ({m["atomic"] / t:.2f} t); '
	      f'back to back, {m["fails"]:.4f} cmpxchg failures per call, and two cores '
	      'saturate the domain at '
	      + ', '.join(f'{s} {r / 1e6:.1f} M updates/s' for s, r in m['cap2'].items())
	      + '. Modelled: every CPU runs fork/exec/exit at e; a line busy b ns per event '
	      'is busy N b / e of the time, and saturates at N = e / b CPUs (transfers only: '
	      'lock hold times and cross-socket transfers, not measured here, come on top and '
	      'lower N).')
	print()
	print('| line | hand-offs per event | busy per event, ns | saturates at N CPUs | ' +
	      ' | '.join(f'busy at {n}' for n in CPU_COUNTS) + ' |')
	print('|------|-----|-----|-----|' + '-----|' * len(CPU_COUNTS))
	for name, h, b, nsat, _ in m['rows']:
		busy = ' | '.join(f'{n * b / e:.2f}' for n in CPU_COUNTS)
		print(f'| {name} | {h:.2f} | {b:.1f} | {nsat:.0f} | {busy} |')
	print()
	print('busy above 1: the line cannot keep up and the events wait for it. Hand-offs, '
	      'per line:')
	for name, _, _, _, why in m['rows']:
		print(f'  - {name}: {why}')
	others = sum(b for name, _, b, _, _ in m['rows'] if name != DOMAIN)
	print()
	print(f'The domain adds {m["rows"][0][2]:.1f} ns of line time per event to the '
	      f'{others:.1f} ns that the path\'s other global lines listed here already take.')
	print()
	for name, h, b, nsat, _ in m['rows']:
		print(f'model: line="{name}" handoffs={h:.2f} busy_ns={b:.1f} '
		      f'saturates_at_cpus={nsat:.0f}')


def main() -> None:
	if len(sys.argv) > 2:
		fail('usage: bench_native.py [FILE]')
	if len(sys.argv) == 2:
		with open(sys.argv[1]) as f:
			lines = f.readlines()
	else:
		lines = sys.stdin.readlines()
	report(parse(lines))


if __name__ == '__main__':
	try:
		main()
	except HarnessError as e:
		print(f'error: {e}', file=sys.stderr)
		sys.exit(1)
