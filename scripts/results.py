#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results.py: read the serial logs of test boots; judge and tabulate them.

  results.py parse LOG [--timed-out]   one boot's results, as JSON
  results.py report TITLE MANIFEST     the side-by-side table of a line's
                                       boots and the verdict; exit 1 if a
                                       boot did not end as expected

A boot's checks are the KUnit cases the kernel ran ("kunit:CASE"), the
selftest's KTAP results and the real clients' KTAP results
("client:NAME"). MANIFEST has one boot per line: RUN VARIANT JSON EXPECT,
where EXPECT is "pass", or "fail:CHECK,CHECK..." for exactly those checks
failing; a CHECK? there may fail or pass; a CHECK the boot did not report
is an error. Whatever the expectation, a boot fails that timed out, did
not finish a part it was asked to run or report its whole plan, whose init
refused its parameters, whose kernel reported a problem (panic, oops,
BUG, WARNING, lockdep, atomic sleep, UBSAN, KASAN, stall), or whose atomics
(arm64's) are not the cnproc_atomics=lse|llsc its command line names.
"""
import json
import re
import sys

PRINTK = re.compile(r'\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok) \d+ (\S+)(.*)$')
SUBTEST = re.compile(r'^\s*# Subtest: (\S+)')
PROBLEMS = re.compile(
    r'Kernel panic|Oops|BUG:|WARNING:|UBSAN:|KASAN:|'
    r'possible circular locking|possible recursive locking|'
    r'inconsistent lock state|suspicious RCU usage|'
    r'sleeping function called from invalid context|scheduling while atomic|'
    r'soft lockup|hard LOCKUP|rcu_.*stall|blocked for more than')
# The parts of a boot, framed by "PART: start" and "PART: exit N" lines.
PARTS = {'cn_proc-selftest': '', 'cn_proc-clients': 'client:'}

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


def status(word, rest):
    if re.search(r'#\s*(SKIP|XFAIL)\b', rest):
        return 'skip'
    return 'ok' if word == 'ok' else 'FAIL'


def parse(lines):
    res = {'checks': {}, 'diag': {}, 'exits': {}, 'started': [],
           'plans': {}, 'wanted': None, 'problems': [], 'atomics': None,
           'want_atomics': None}
    part = None
    for i, raw in enumerate(lines):
        line = raw.rstrip('\r\n')
        kernel = PRINTK.search(line)
        # A printk can land in the middle of a line a program wrote.
        if kernel and PROBLEMS.search(line[kernel.end():]) and len(res['problems']) < 5:
            res['problems'].append({
                'what': line[kernel.end():].strip(),
                'excerpt': [l.rstrip() for l in lines[max(0, i - 3):i + 15]]})
        if kernel and kernel.start() == 0:
            msg = line[kernel.end():]
            m = re.match(r'Kernel command line:.*\bcnproc_atomics=(\S*)', msg)
            res['want_atomics'] = m.group(1) if m else res['want_atomics']
            # arm64's atomics: LL/SC unless LSE was detected by the time
            # the system-wide alternatives (which make the choice) apply.
            if msg.startswith('alternatives: applying system-wide alternatives'):
                res['atomics'] = res['atomics'] or 'llsc'
            elif msg.startswith('CPU features: detected: LSE atomic instructions'):
                res['atomics'] = 'lse'
            m = RESULT.match(msg)
            # KUnit cases are indented under their suite.
            if m and m.group(1) and part is None:
                res['checks']['kunit:' + m.group(3)] = status(m.group(2), m.group(4))
            continue
        if kernel:
            line = line[:kernel.start()]
        if line.startswith('cn_proc-init: error: '):
            res['problems'].append({'what': 'init: ' + line[21:], 'excerpt': []})
            continue
        m = re.match(r'cn_proc-init: run=(\S+) clients=(\d)', line)
        if m:
            if m.group(1) not in ('selftest', 'storm', 'kunit'):
                res['problems'].append({'what': 'init: unknown run ' + m.group(1), 'excerpt': []})
            res['wanted'] = ['cn_proc-selftest'] if m.group(1) == 'selftest' else []
            res['wanted'] += ['cn_proc-clients'] if m.group(2) == '1' else []
            continue
        m = re.match(r'(\S+): (start|exit (\d+))', line)
        if m and m.group(1) in PARTS:
            if m.group(2) == 'start':
                part = m.group(1)
                res['started'].append(part)
            else:
                res['exits'][m.group(1)] = int(m.group(3))
                part = None
            continue
        if part is None:
            continue
        m = RESULT.match(line)
        if m and not m.group(1):
            res['checks'][PARTS[part] + m.group(3)] = status(m.group(2), m.group(4))
        elif re.match(r'1\.\.\d+$', line):
            res['plans'][part] = int(line[3:])
        elif line.startswith('# cn_proc:'):
            for kv in line[len('# cn_proc:'):].split():
                key, _, val = kv.partition('=')
                res['diag'][key] = val
    return res


def problems(res, series=True):
    """What makes a boot fail whatever its expectation. A kernel with the
    series (any but base) must have run its KUnit cases."""
    why = []
    if res.get('timed_out'):
        why.append('boot timed out')
    why += ['kernel: ' + p['what'] for p in res['problems']]
    if series and not any(k.startswith('kunit:') for k in res['checks']):
        why.append('no KUnit results')
    if res['wanted'] is None:
        why.append('init did not start')
    if res['atomics'] != res['want_atomics']:
        why.append(f'atomics: {res["atomics"] or "none detected"}, '
                   f'cnproc_atomics={res["want_atomics"] or "(none)"}')
    for part in res['wanted'] or []:
        if part not in res['started']:
            why.append(f'{part} did not start')
        elif part not in res['exits']:
            why.append(f'{part} did not finish')
        else:
            why += part_problems(res, part)
    return why


def part_problems(res, part):
    """A finished part must have reported its whole plan, and exited 0
    when all passed, 1 when some failed (kselftest's codes)."""
    prefix = PARTS[part]
    mine = [k for k in res['checks']
            if (k.startswith(prefix) if prefix else ':' not in k)]
    failed = any(res['checks'][k] == 'FAIL' for k in mine)
    code = res['exits'][part]
    why = []
    if len(mine) != res['plans'].get(part, -1):
        why.append(f'{part} reported {len(mine)} results, planned '
                   f'{res["plans"].get(part, "none")}')
    if code != (1 if failed else 0):
        why.append(f'{part} exited {code}')
    return why


def verdict(res, expect, series=True):
    """Empty if the boot ended as expected, else why not."""
    why = problems(res, series)
    listed = [] if expect == 'pass' else expect.split(':', 1)[1].split(',')
    must = {c for c in listed if not c.endswith('?')}
    may = {c[:-1] for c in listed if c.endswith('?')}
    got = {k for k, v in res['checks'].items() if v == 'FAIL'}
    why += [f'{c}, expected, is no check of this boot' for c in sorted((must | may) - set(res['checks']))]
    why += [f'{c} failed' for c in sorted(got - must - may)]
    why += [f'{c} did not fail' for c in sorted(must - got)]
    return why


def cmd_parse(args):
    with open(args[0], errors='replace') as f:
        res = parse(f.readlines())
    res['log'] = args[0]
    res['timed_out'] = '--timed-out' in args[1:]
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


def table(boots):
    """Markdown: a column per run, each cell "base / patched" (or the one
    kernel the run boots); a row per check, then the figures."""
    runs = {}
    for b in boots:
        runs.setdefault(b['run'], {})[b['variant']] = b
    heads, order = [], []
    for run, kernels in runs.items():
        if set(kernels) <= {'base', 'patched'} and len(kernels) == 2:
            order.append((run, ['base', 'patched']))
            heads.append(run)
        else:
            order.append((run, list(kernels)))
            heads.append(f'{run} ({"/".join(kernels)})')
    names = list(dict.fromkeys(k for b in boots for k in b['res']['checks']))
    names.sort(key=lambda k: (k.startswith('kunit:'), k.startswith('client:')))

    def row(label, get):
        cells = []
        for run, variants in order:
            vals = [get(runs[run][v]) for v in variants]
            cells.append(' / '.join(v if v is not None else '-' for v in vals))
        return [label] + cells

    rows = [['check (base / patched)'] + heads]
    for n in names:
        if all(b['res']['checks'].get(n) == 'skip' for b in boots):
            continue
        label = 'KUnit ' + n[6:] if n.startswith('kunit:') else n
        rows.append(row(label, lambda b, n=n: b['res']['checks'].get(n)))
    for label, key in FIGURES:
        rows.append(row(label, lambda b, key=key: figure(b['res'], key)))
    if any(b['res']['atomics'] for b in boots):
        rows.append(row('atomics', lambda b: b['res']['atomics']))
    rows.append(row('kernel reports', lambda b: str(len(b['res']['problems']))))
    rows.append(row('as expected', lambda b: 'no' if b['why'] else 'yes'))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for i, r in enumerate(rows):
        out.append('| ' + ' | '.join(c.ljust(w) for c, w in zip(r, widths)) + ' |')
        if i == 0:
            out.append('|' + '|'.join('-' * (w + 2) for w in widths) + '|')
    return out


def figure(res, key):
    val = res['diag'].get(key)
    if val is not None and key == 'max_inversion_ns' and val.isdigit():
        return f'{int(val) / 1000:.0f}'
    return val


def cmd_report(args):
    title, manifest = args
    boots = []
    with open(manifest) as f:
        for line in f:
            if not line.strip():
                continue
            run, variant, path, expect = line.split()
            with open(path) as j:
                res = json.load(j)
            boots.append({'run': run, 'variant': variant, 'res': res,
                          'expect': expect,
                          'why': verdict(res, expect, variant != 'base')})
    print(f'### {title}')
    print()
    print('\n'.join(table(boots)))
    print()
    bad = [b for b in boots if b['why']]
    for b in bad:
        print(f'UNEXPECTED: {b["run"]} {b["variant"]}: {"; ".join(b["why"])}')
        for p in b['res']['problems'][:1]:
            print('\n'.join('    | ' + l for l in p['excerpt']))
    print(f'{title}: {len(boots) - len(bad)} of {len(boots)} boots as expected')
    return 1 if bad else 0


def main():
    cmds = {'parse': cmd_parse, 'report': cmd_report}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    sys.exit(cmds[sys.argv[1]](sys.argv[2:]))


if __name__ == '__main__':
    main()
