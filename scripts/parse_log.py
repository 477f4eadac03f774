#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""parse_log.py LOG [--timed-out]: read one serial log of a test boot.

Prints JSON: the KUnit results (KTAP printed by the kernel), the selftest's
KTAP results and closing figures, and every kernel report that fails a run
(panic, oops, BUG, WARNING, lockdep, atomic sleep, UBSAN, KASAN) with an
excerpt of the log around it.
"""
import json
import re
import sys

PRINTK = re.compile(r'^\[\s*\d+\.\d+\]\s?')
PRINTK_ANYWHERE = re.compile(r'\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok) \d+ (?:# (SKIP|XFAIL) )?(\S+)(?:.*#\s*(SKIP|TODO|XFAIL)\b.*)?')
SUBTEST = re.compile(r'^\s*# Subtest: (\S+)')
PROBLEMS = re.compile(
    r'Kernel panic|Oops|BUG:|WARNING:|UBSAN:|KASAN:|'
    r'possible circular locking|possible recursive locking|'
    r'inconsistent lock state|suspicious RCU usage|'
    r'sleeping function called from invalid context|scheduling while atomic|'
    r'soft lockup|hard LOCKUP|rcu_.*stall|blocked for more than')


def status(word, directive):
    if directive in ('SKIP', 'XFAIL'):
        return 'skip'
    return 'ok' if word == 'ok' else 'FAIL'


def parse(lines):
    res = {'kunit': {}, 'selftest': {}, 'diag': {}, 'notes': [],
           'selftest_exit': None, 'problems': []}
    in_selftest = False
    suite = None
    for i, raw in enumerate(lines):
        line = raw.rstrip('\r\n')
        # A printk can land in the middle of a line the selftest wrote.
        kernel = PRINTK_ANYWHERE.search(line)
        if kernel and PROBLEMS.search(line[kernel.end():]) and len(res['problems']) < 5:
            res['problems'].append({
                'what': line[kernel.end():].strip(),
                'excerpt': [l.rstrip() for l in lines[max(0, i - 3):i + 15]]})
        kernel = PRINTK.match(line)
        if kernel:
            text = line[kernel.end():]
            sub = SUBTEST.match(text)
            if sub:
                suite = sub.group(1)
                continue
            m = RESULT.match(text)
            if m and not in_selftest and suite:
                indent, word, skip, name, directive = m.groups()
                if indent:
                    res['kunit'][f'{suite}.{name}'] = status(word, skip or directive)
                elif word != 'ok':
                    res['kunit'].setdefault(f'{suite}', 'FAIL')
            continue
        if line.startswith('cn_proc-selftest: start'):
            in_selftest = True
            continue
        m = re.match(r'cn_proc-selftest: exit (\d+)', line)
        if m:
            res['selftest_exit'] = int(m.group(1))
            in_selftest = False
            continue
        if not in_selftest:
            continue
        m = RESULT.match(line)
        if m and not m.group(1):
            indent, word, skip, name, directive = m.groups()
            res['selftest'][name.rstrip(':')] = status(word, skip or directive)
        elif line.startswith('# cn_proc:'):
            for kv in line[len('# cn_proc:'):].split():
                key, _, val = kv.partition('=')
                res['diag'][key] = val
        elif line.startswith('# '):
            res['notes'].append(line[2:])
    return res


def main():
    path = sys.argv[1]
    with open(path, errors='replace') as f:
        lines = f.readlines()
    res = parse(lines)
    res['log'] = path
    res['timed_out'] = '--timed-out' in sys.argv[2:]
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == '__main__':
    main()
