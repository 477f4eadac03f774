#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of scripts/results.py on the serial logs in tests/logs/:
real boots of the test kernels, cut to what the parser reads, and crafted
variants of them."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'scripts'))
import results  # noqa: E402


def load(name, edit=None):
    with open(os.path.join(HERE, 'logs', name), errors='replace') as f:
        lines = f.readlines()
    if edit:
        lines = edit(lines)
    return results.parse(lines)


def drop(pattern):
    return lambda lines: [l for l in lines if pattern not in l]


def replace(old, new):
    return lambda lines: [l.replace(old, new) for l in lines]


class Parse(unittest.TestCase):
    def test_patched_boot(self):
        res = load('patched.log')
        self.assertEqual(results.verdict(res, 'pass'), [])
        self.assertEqual(res['checks']['load_order'], 'ok')
        self.assertEqual(res['checks']['kunit:ktime_get_ordered_ns_concurrent_test'], 'ok')
        self.assertEqual(res['checks']['client:keepalived'], 'ok')
        self.assertEqual(res['diag']['inversions'], '0')

    def test_base_boot_fails_as_expected(self):
        res = load('base.log')
        self.assertEqual(results.verdict(res, 'fail:load_order', series=False), [])
        self.assertEqual(results.verdict(res, 'pass', series=False), ['load_order failed'])
        self.assertEqual(results.verdict(res, 'fail:load_order,load_unique', series=False),
                         ['load_unique did not fail'])
        self.assertEqual(results.verdict(res, 'fail:load_order,load_unique?', series=False), [])
        self.assertEqual(results.verdict(res, 'fail:load_order?', series=False), [])

    def test_base_kernel_has_no_kunit_cases(self):
        res = load('base.log')
        self.assertEqual(results.verdict(res, 'fail:load_order'), ['no KUnit results'])

    def test_skipped_case_is_not_a_failure(self):
        res = load('patched.log', replace('ok 2 ktime_get_ordered_ns_follows_clock_test',
                                          'ok 2 ktime_get_ordered_ns_follows_clock_test # SKIP x'))
        self.assertEqual(res['checks']['kunit:ktime_get_ordered_ns_follows_clock_test'], 'skip')
        self.assertEqual(results.verdict(res, 'pass'), [])

    def test_kernel_report_fails_any_boot(self):
        res = load('patched.log', lambda l: l[:40] + [
            '[   12.345678] WARNING: CPU: 1 PID: 77 at kernel/time/time.c:1100\n'] + l[40:])
        self.assertEqual(results.verdict(res, 'pass'),
                         ['kernel: WARNING: CPU: 1 PID: 77 at kernel/time/time.c:1100'])

    def test_report_inside_a_selftest_line(self):
        res = load('patched.log', replace(
            '# cn_proc: events=', '# cn_proc: [   40.100000] BUG: sleeping events='))
        self.assertIn('kernel: BUG: sleeping events=', ' '.join(results.verdict(res, 'pass')))

    def test_printk_inside_a_selftest_line(self):
        # Seen in a boot: the kernel's line landed before the plan's newline.
        res = load('patched.log', replace(
            '1..17\n', '1..17[    1.463683] tsc: Refined TSC clocksource calibration: 2596.109 MHz\n'))
        self.assertEqual(results.verdict(res, 'pass'), [])

    def test_selftest_that_did_not_finish(self):
        res = load('patched.log', drop('cn_proc-selftest: exit'))
        self.assertIn('cn_proc-selftest did not finish', results.verdict(res, 'pass'))

    def test_missing_results(self):
        res = load('patched.log', drop('ok 17 load_unique'))
        self.assertIn('cn_proc-selftest reported 16 results, planned 17',
                      results.verdict(res, 'pass'))

    def test_exit_status_must_match_results(self):
        res = load('patched.log', replace('cn_proc-selftest: exit 0', 'cn_proc-selftest: exit 139'))
        self.assertIn('cn_proc-selftest exited 139', results.verdict(res, 'pass'))

    def test_clients_asked_for_but_absent(self):
        res = load('patched.log', drop('cn_proc-clients:'))
        self.assertIn('cn_proc-clients did not start', results.verdict(res, 'pass'))

    def test_no_kunit(self):
        res = load('patched.log', drop('    ok '))
        self.assertIn('no KUnit results', results.verdict(res, 'pass'))

    def test_timed_out(self):
        res = load('patched.log', drop('cn_proc-'))
        res['timed_out'] = True
        self.assertEqual(results.verdict(res, 'pass')[:2],
                         ['boot timed out', 'init did not start'])

    def test_mutant_kunit_failures(self):
        res = load('mutant-helper.log')
        want = ('fail:kunit:ktime_get_ordered_ns_increasing_test,'
                'kunit:ktime_get_ordered_ns_clock_stalled_test,'
                'kunit:ktime_get_ordered_ns_concurrent_test')
        self.assertEqual(results.verdict(res, want), [])


class Atomics(unittest.TestCase):
    def test_x86_names_none(self):
        res = load('patched.log')
        self.assertIsNone(res['atomics'])
        self.assertEqual(results.verdict(res, 'pass'), [])

    def test_lse_and_llsc_as_named(self):
        for name in 'lse', 'llsc':
            res = load(f'arm64-{name}.log')
            self.assertEqual(res['atomics'], name)
            self.assertEqual(results.verdict(res, 'pass'), [])

    def test_other_atomics_than_named(self):
        res = load('arm64-lse.log', replace('cnproc_atomics=lse', 'cnproc_atomics=llsc'))
        self.assertEqual(results.verdict(res, 'pass'), ['atomics: lse, cnproc_atomics=llsc'])
        res = load('arm64-llsc.log', replace('cnproc_atomics=llsc', 'cnproc_atomics=lse'))
        self.assertEqual(results.verdict(res, 'pass'), ['atomics: llsc, cnproc_atomics=lse'])

    def test_arm64_boot_must_name_its_atomics(self):
        res = load('arm64-llsc.log', replace(' cnproc_atomics=llsc', ''))
        self.assertEqual(results.verdict(res, 'pass'), ['atomics: llsc, cnproc_atomics=(none)'])

    def test_named_but_not_arm64(self):
        res = load('patched.log', replace('cnproc_clients=1\n', 'cnproc_clients=1 cnproc_atomics=lse\n'))
        self.assertEqual(results.verdict(res, 'pass'),
                         ['atomics: none detected, cnproc_atomics=lse'])


class Table(unittest.TestCase):
    def boot(self, run, variant, log, expect):
        res = load(log)
        return {'run': run, 'variant': variant, 'res': res, 'expect': expect,
                'why': results.verdict(res, expect, variant != 'base')}

    def test_base_and_patched_share_a_column(self):
        rows = results.table([self.boot('smp2', 'base', 'base.log', 'fail:load_order'),
                              self.boot('smp2', 'patched', 'patched.log', 'pass')])
        self.assertIn('| smp2 ', rows[0])
        order = [r for r in rows if r.startswith('| load_order ')][0]
        self.assertIn('FAIL / ok', order)
        self.assertIn('yes / yes', rows[-1])

    def test_atomics_row_where_a_boot_shows_them(self):
        rows = results.table([self.boot('arm64-lse', 'patched', 'arm64-lse.log', 'pass'),
                              self.boot('arm64-llsc', 'patched', 'arm64-llsc.log', 'pass')])
        atomics = [r for r in rows if r.startswith('| atomics ')][0]
        self.assertRegex(atomics, r'\| lse +\| llsc +\|')

    def test_single_kernel_run(self):
        rows = results.table([self.boot('debug', 'patched', 'patched.log', 'pass')])
        self.assertIn('debug (patched)', rows[0])


if __name__ == '__main__':
    unittest.main(verbosity=1)
