#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py DIR PAIRS CPUS STORM_ARGS ACCEL CANDIDATE MODE...:
make bench's tables.

Reads the microbenchmark boots' serial logs DIR/micro-N.log and the
storm boots' logs DIR/storm-NAME-PAIR-VARIANT.log, for each MODE, given as
NAME|ACCEL|QEMU_EXTRA; VARIANT is base or CANDIDATE (patched, or
slow-helper). Exits 1, saying why, when a log lacks its results or holds a
kernel report (see results.py), or when the clocksource left the TSC during
the microbenchmark. The last lines are, per mode, the median of the pairs'
ratios CANDIDATE/base events/s.
"""
import os
import re
import statistics
import sys

from results import parse

SWITCH = re.compile(r'clocksource: Switched to clocksource (\S+)')
MICRO = re.compile(r'ordered_ns_bench: cpus=(\d+) ktime_get_ns=(\d+) ktime_get_ordered_ns=(\d+)')
STORM = re.compile(r'^storm: rate=([\d.]+) enobufs=(\d+)')


def fail(msg):
    print(f'error: {msg}', file=sys.stderr)
    sys.exit(1)


def read_log(path):
    if not os.path.exists(path):
        fail(f'{path} is missing')
    with open(path, errors='replace') as f:
        lines = f.readlines()
    problems = parse(lines)['problems']
    if problems:
        fail(f'{path}: kernel report: {problems[0]["what"]}')
    return [l.rstrip('\r\n') for l in lines]


def micro(d, cpus, accel):
    """Per cpu count: the median over boots of each function's ns per call,
    and the median and range of the boots' ratios."""
    boots = sorted(f for f in os.listdir(d) if re.fullmatch(r'micro-\d+\.log', f))
    per = {}
    want = {1, int(cpus)}
    for f in boots:
        lines = read_log(os.path.join(d, f))
        rows, started = [], False
        for l in lines:
            started = started or 'ordered_ns_bench: start' in l
            m = SWITCH.search(l)
            if started and len(rows) < len(want) and m and m.group(1) not in ('tsc', 'tsc-early'):
                fail(f'{d}/{f}: clocksource switched to {m.group(1)} during the microbenchmark')
            m = MICRO.search(l)
            if m:
                rows.append(tuple(map(int, m.groups())))
        if {n for n, _, _ in rows} != want or any(p == 0 for _, p, _ in rows):
            fail(f'{d}/{f}: ordered_ns_bench results incomplete: {rows}')
        for n, plain, ordered in rows:
            per.setdefault(n, []).append((plain / 100, ordered / 100))
    if not per:
        fail(f'{d}: no microbenchmark boot')
    print(f'Microbenchmark, ns per call (patched kernel with ordered_ns_bench; -smp {cpus}, '
          f'-accel {accel}, tsc=reliable; each boot the median of 9 rounds of 100,000 calls per cpu, '
          f'then the median of {len(boots)} boots):')
    print()
    print('| cpus calling at once | ktime_get_ns() | ktime_get_ordered_ns() | ratio | ratio min-max |')
    print('|----------------------|----------------|------------------------|-------|---------------|')
    for n, vals in sorted(per.items()):
        ratios = [o / p for p, o in vals]
        print(f'| {n:<20} | {statistics.median(p for p, _ in vals):14.2f} | '
              f'{statistics.median(o for _, o in vals):22.2f} | '
              f'{statistics.median(ratios):5.2f} | {min(ratios):.2f}-{max(ratios):.2f}     |')
    print()


def storm_rate(path):
    lines = read_log(path)
    if 'cn_proc-storm: exit 0' not in lines:
        fail(f'{path}: the storm did not finish (no "cn_proc-storm: exit 0")')
    for l in lines:
        m = STORM.match(l)
        if m:
            return float(m.group(1)), int(m.group(2))
    fail(f'{path}: no storm result')


def storm(d, name, pairs, cpus, args, accel, cand):
    """One mode's table; returns the median, min and max of its ratios."""
    print(f'Fork/exec/exit storm, {name}, one listener (cn_proc_storm {args}; -smp {cpus}, '
          f'-accel {accel}); events/s is the median of the rounds of one boot:')
    print()
    print(f'| pair | first   | base events/s | {cand + " events/s":>16} | {"ratio " + cand + "/base":>18} | losses (ENOBUFS) |')
    print('|------|---------|---------------|------------------|--------------------|------------------|')
    ratios = []
    for p in range(1, pairs + 1):
        base, base_lost = storm_rate(os.path.join(d, f'storm-{name}-{p}-base.log'))
        patched, patched_lost = storm_rate(os.path.join(d, f'storm-{name}-{p}-{cand}.log'))
        if not base or not patched:
            fail(f'pair {p}: a kernel reached 0 events/s')
        ratios.append(patched / base)
        first = 'base' if p % 2 else cand
        print(f'| {p:<4} | {first:<7} | {base:13.1f} | {patched:16.1f} | {ratios[-1]:18.4f} | '
              f'{base_lost} / {patched_lost:<12} |')
    print()
    return statistics.median(ratios), min(ratios), max(ratios)


def main():
    d, pairs, cpus, args, accel, cand = sys.argv[1:7]
    modes = [m.split("|") for m in sys.argv[7:]]
    if not modes:
        fail('no storm mode given')
    micro(d, cpus, accel)
    summary = [(name, storm(d, name, int(pairs), cpus, args, f'{acc} {extra}'.strip(), cand))
               for name, acc, extra in modes]
    for name, (med, lo, hi) in summary:
        print(f'ratio {cand}/base events/s, {name}: {med:.4f} (min {lo:.4f}, max {hi:.4f})')


if __name__ == '__main__':
    main()
