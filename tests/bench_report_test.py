#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make bench's statistics and reports on crafted inputs:
scripts/bench_stats.py (the median's interval from order statistics),
scripts/bench_report.py (what each design keeps, from the selftest's
lines) and scripts/bench_native.py (stamp_native's output, its checks,
fractions and model)."""
import io
import os
import sys
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, '..', 'scripts')
sys.path.insert(0, SCRIPTS)
import bench_native  # noqa: E402
import bench_report  # noqa: E402
import bench_stats  # noqa: E402
import harness_results  # noqa: E402
from harness_util import HarnessError  # noqa: E402


def exits(test, fn, *args):
	"""fn(*args) must fail the report (the harness's error); returns what
	it said."""
	with test.assertRaises(HarnessError) as cm:
		fn(*args)
	return str(cm.exception)


def coverage(n, l):
	"""The probability that [x(l), x(n+1-l)] covers the median."""
	return 1 - 2 * bench_stats.binom_cdf(n, l - 1)


class OrderStatistics(unittest.TestCase):
	def test_ranks_against_the_binomial_by_hand(self):
		# n=6: P(B<=0) = 1/64, so [min, max] covers 1 - 2/64.
		self.assertEqual(bench_stats.ci_rank(6), 1)
		self.assertAlmostEqual(coverage(6, 1), 1 - 2 / 64)
		# n=9: P(B<=1) = 10/512 <= 0.025 < P(B<=2) = 46/512.
		self.assertEqual(bench_stats.ci_rank(9), 2)
		self.assertAlmostEqual(coverage(9, 2), 1 - 20 / 512)
		# n=15: P(B<=3) = 576/32768 <= 0.025 < P(B<=4) = 1941/32768.
		self.assertEqual(bench_stats.ci_rank(15), 4)
		# n=17: P(B<=4) = 3214/131072 = 0.0245, just inside.
		self.assertEqual(bench_stats.ci_rank(17), 5)

	def test_no_interval_below_six(self):
		self.assertEqual(bench_stats.ci_rank(6), 1)
		for n in range(1, 6):
			self.assertEqual(bench_stats.ci_rank(n), 0)
		iv = bench_stats.median_ci([1.0, 2.0, 3.0, 4.0, 5.0])
		self.assertEqual((iv.median, iv.low, iv.high), (3.0, None, None))

	def test_every_n_reaches_the_level(self):
		for n in range(6, 60):
			l = bench_stats.ci_rank(n)
			self.assertGreaterEqual(coverage(n, l), 0.95)
			# one rank further in would not
			if l + 1 <= (n + 1) // 2:
				self.assertLess(coverage(n, l + 1), 0.95)

	def test_interval_from_unsorted_values(self):
		xs = [9, 1, 8, 2, 7, 3, 6, 4, 5]
		iv = bench_stats.median_ci(xs)
		self.assertEqual((iv.median, iv.low, iv.high, iv.n), (5, 2, 8, 9))
		iv = bench_stats.median_ci([4, 1, 3, 2, 6, 5])
		self.assertEqual((iv.median, iv.low, iv.high), (3.5, 1, 6))


class Keeps(unittest.TestCase):
	"""What each design keeps: the selftest's causal_order figures, read
	from its diagnostic line."""
	LINE = '# 20030 events, 0 ENOBUFS, 3582 forks: 2 out of order\n'

	def test_the_causal_order_figures_are_read(self):
		lines = ['ok 13 delta\n', self.LINE, 'ok 14 causal_order\n']
		self.assertEqual(bench_report.causal(lines), (3582, 2))
		self.assertIsNone(bench_report.causal(['ok 14 causal_order\n']))

	def test_the_table_shows_them(self):
		reported = harness_results.BootReport({}, {}, {}, {}, (), None, (), ('tsc',), (),
						      None, None, None, None)
		keeps = {(d, c): (reported, bench_report.causal([self.LINE]))
			 for d, _ in bench_report.DESIGNS for c in bench_report.CLOCKS}
		rows = [r for r in bench_report.keeps_table(keeps) if r.startswith('| patched |')]
		self.assertEqual(len(rows), 2)
		for r in rows:
			self.assertIn('| 2 events of 3582 processes |', r)


CONFIGS = ((1, 0), (2, 0), (2, 200))


def native_output(series2=(100.0, 101.0, 99.0, 102.0, 98.0, 100.5), event=50000.0,
		  tamper=None):
	"""A stamp_native run of 6 rounds: base and the others at 20 ns (plus
	200 spaced), the series on two cores back to back as given and spaced
	105 ns above base, atomic-inc at 118 ns back to back and 90 ns above
	base spaced, events at about EVENT ns."""
	def ns(s, t, g, r):
		if s == 'series' and t == 2:
			return series2[r] if not g else 325.0 + r * 0.1
		if s == 'atomic-inc' and t == 2:
			return 118.0 if not g else 310.0 + r * 0.1
		return 20.0 + r * 0.1 + (200 if g else 0)

	p = 'stamp_native: '
	lines = [p + 'cpu="Test CPU" hypervisor=none cpus=0,1 online=2 kernel=test clocksource=tsc '
		 'rounds=6 calls=1000 gap=200 trips=1000 iterations=10 exec=/x',
		 p + 'loadavg_start="0.05 0.10 0.20 1/100 1"']
	for r in range(6):
		for t, g in CONFIGS:
			for s in bench_native.SCHEMES:
				fails = 0.05 if (s, t, g) == ('series', 2, 0) else 0
				lines.append(f'{p}round={r + 1} part=stamp scheme={s} threads={t} '
					     f'gap={g} ns_per_call={ns(s, t, g, r):.2f} '
					     f'fail_per_call={fails:.4f} overlap=0.990')
		lines.append(f'{p}round={r + 1} part=transfer ns_per_transfer={50 + r:.2f}')
		for state in ('none', 'one'):
			lines.append(f'{p}round={r + 1} part=events listener={state} '
				     f'ns_per_event={event + 100 * r:.2f} received=30 expected=30 '
				     'enobufs=0')
	lines.append(p + 'loadavg_end="0.05 0.10 0.20 1/100 1"')
	for t, g in CONFIGS:
		for s in bench_native.SCHEMES:
			iv = bench_stats.median_ci([ns(s, t, g, r) for r in range(6)])
			med = iv.median + (1 if tamper == (s, t, g) else 0)
			lines.append(f'{p}scheme={s} threads={t} gap={g} ns_per_call={med:.2f} '
				     f'ci_low={iv.low:.2f} ci_high={iv.high:.2f} fail_per_call=0 '
				     'overlap_min=0.990 rounds=6')
	lines.append(p + 'transfer ns_per_transfer=52.50 ci_low=50.00 ci_high=55.00 rounds=6')
	for state in ('none', 'one'):
		iv = bench_stats.median_ci([event + 100 * r for r in range(6)])
		lines.append(f'{p}events listener={state} ns_per_event={iv.median:.2f} '
			     f'ci_low={iv.low:.2f} ci_high={iv.high:.2f} rounds=6')
	return [l + '\n' for l in lines]


class Native(unittest.TestCase):
	def test_fractions_and_model(self):
		fig = bench_native.figures(bench_native.parse(native_output()))
		# series - base per round, back to back: 80, 80.9, 78.8, 81.7, 77.6, 80.0
		x = fig['extra'][('series', 2, 0)]
		self.assertAlmostEqual(x.median, 80.0)
		self.assertAlmostEqual(x.low, 77.6)
		self.assertAlmostEqual(x.high, 81.7)
		f, lo, hi = fig['fraction'][('series', 2, 0)]
		self.assertAlmostEqual(f, 80.0 / 50250.0)
		self.assertAlmostEqual(lo, 77.6 / 50500.0)
		self.assertAlmostEqual(hi, 81.7 / 50000.0)
		self.assertAlmostEqual(fig['extra'][('series', 2, 200)].median, 105.0)
		self.assertAlmostEqual(fig['extra'][('clock-under-lock', 2, 0)].median, 0.0)
		m = bench_native.model(fig)
		self.assertEqual((m['t'], m['e'], m['fails']), (52.5, 50250.0, 0.05))
		self.assertAlmostEqual(m['domain'], 105.0)
		self.assertAlmostEqual(m['atomic'], 90.0)
		rows = {name: (h, b, nsat) for name, h, b, nsat, _ in m['rows']}
		# the domain: one hand-off, and 0.05 lost races of an atomic each
		self.assertAlmostEqual(rows[bench_native.DOMAIN][1], 105.0 + 0.05 * 90.0)
		self.assertAlmostEqual(rows[bench_native.DOMAIN][2], 50250.0 / 109.5)
		# nl_table_users: two atomics per event
		self.assertAlmostEqual(rows['nl_table_users'][1], 180.0)
		self.assertAlmostEqual(m['cap2']['series'], 2e9 / 100.25)
		self.assertAlmostEqual(m['cap2']['atomic-inc'], 2e9 / 118.0)

	def test_no_model_without_the_reference_atomic(self):
		out = [l for l in native_output() if 'scheme=atomic-inc' not in l]
		fig = bench_native.figures(bench_native.parse(out))
		self.assertIsNone(bench_native.model(fig))

	def test_summary_that_disagrees_with_its_rounds_fails(self):
		out = bench_native.parse(native_output(tamper=('series', 2, 0)))
		msg = exits(self, bench_native.figures, out)
		self.assertIn('series threads=2 gap=0: the program says', msg)

	def test_report_prints(self):
		out = io.StringIO()
		with redirect_stdout(out):
			bench_native.report(bench_native.parse(native_output()))
		text = out.getvalue()
		self.assertIn('overhead per event, series over base, 2 cores, back to back: 0.159%',
			      text)
		self.assertIn('overhead per event, series over base, 2 cores, spaced by 200 steps: '
			      '0.209%', text)
		self.assertIn('the domain costs 105.0 ns per event over base (2.00 t) and one '
			      'atomic of a shared line 90.0 ns (1.71 t)', text)
		self.assertIn('model: line="ordering domain (series)" handoffs=1.00 busy_ns=109.5 '
			      'saturates_at_cpus=459', text)


if __name__ == '__main__':
	unittest.main()
