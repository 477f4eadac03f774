#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""table.py RESULTS_DIR RUN...: base vs patched, side by side.

RESULTS_DIR holds RUN.base.json and RUN.patched.json from parse_log.py.
One column per run, each cell "base / patched"; one row per check, then
the figures. Exit 0 only if every patched kernel passed everything.
"""
import json
import os
import sys

FIGURES = [
    ('events', 'events'),
    ('cpus seen', 'cpus'),
    ('inversions', 'inversions'),
    ('largest inversion (us)', 'max_inversion_ns'),
    ('ties', 'ties'),
    ('duplicate stamps', 'duplicates'),
    ('seq gaps', 'gaps'),
    ('losses (ENOBUFS)', 'enobufs'),
    ('events/s', 'rate'),
    ('ack seq (sent 1234)', 'ack_seq'),
    ('ack cpu (want 4294967295)', 'ack_cpu'),
]


def load(results, run, variant):
    path = os.path.join(results, f'{run}.{variant}.json')
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def failures(res):
    """Why a run did not pass; empty when it passed everything."""
    if res is None:
        return ['not run']
    why = []
    if res['timed_out']:
        why.append('boot timed out')
    why += [p['what'] for p in res['problems']]
    if not res['kunit']:
        why.append('no KUnit results')
    why += [f'KUnit {k}' for k, v in res['kunit'].items() if v == 'FAIL']
    if res['selftest_exit'] is None:
        why.append('selftest did not finish')
    elif res['selftest_exit'] != 0:
        why.append(f'selftest exit {res["selftest_exit"]}')
    why += [k for k, v in res['selftest'].items() if v == 'FAIL']
    return why


def names(data, kind):
    """The check names of one kind, in the order the runs reported them."""
    seen = {}
    for pair in data.values():
        for res in pair:
            seen.update(dict.fromkeys((res or {}).get(kind, {})))
    return list(seen)


def cell(base, patched, get):
    vals = [get(r) if r is not None else '-' for r in (base, patched)]
    return ' / '.join(v if v is not None else '-' for v in vals)


def figure(key):
    def get(res):
        val = res['diag'].get(key)
        if val is not None and key == 'max_inversion_ns' and val.isdigit():
            return f'{int(val) / 1000:.0f}'
        return val
    return get


def main():
    results, runs = sys.argv[1], sys.argv[2:]
    data = {r: (load(results, r, 'base'), load(results, r, 'patched')) for r in runs}
    checks, kunit = names(data, 'selftest'), names(data, 'kunit')

    rows = [['check (base / patched)'] + runs]
    for name in checks:
        rows.append([name] + [cell(*data[r], lambda x, n=name: x['selftest'].get(n))
                              for r in runs])
    for name in kunit:
        rows.append([f'KUnit {name.split(".")[-1]}'] +
                    [cell(*data[r], lambda x, n=name: x['kunit'].get(n)) for r in runs])
    for label, key in FIGURES:
        rows.append([label] + [cell(*data[r], figure(key)) for r in runs])
    rows.append(['kernel reports'] + [cell(*data[r], lambda x: str(len(x['problems'])))
                                       for r in runs])
    rows.append(['verdict'] + [cell(*data[r], lambda x: 'FAIL' if failures(x) else 'PASS')
                               for r in runs])

    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print('| ' + ' | '.join(c.ljust(w) for c, w in zip(row, widths)) + ' |')
        if n == 0:
            print('|' + '|'.join('-' * (w + 2) for w in widths) + '|')

    bad = 0
    for run, (base, patched) in data.items():
        why = failures(patched)
        if why:
            bad += 1
            print(f'FAIL: {run} patched: {"; ".join(why)}')
        if base is not None and not failures(base):
            print(f'note: {run} base passed every check: nothing shown to fail')
    print(f'boot-test: {len(runs) - bad} passed, {bad} failed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
