#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make bench's statistics and reports on crafted inputs:
scripts/bench_stats.py (the median's interval from order statistics and the
"cannot show it" rule), scripts/bench_report.py (the storm's listener
states and its rounds, on crafted serial logs) and scripts/bench_native.py
(stamp_native's output, its checks and fractions)."""
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


def exits(test, fn, *args):
	"""fn(*args) must fail the report (the harness's error); returns what
	it said."""
	with test.assertRaises(bench_report.ReportError) as cm:
		fn(*args)
	return str(cm.exception)


class OrderStatistics(unittest.TestCase):
	def test_ranks_against_the_binomial_by_hand(self):
		# n=6: P(B<=0) = 1/64, so [min, max] covers 1 - 2/64.
		self.assertEqual(bench_stats.ci_rank(6), 1)
		self.assertAlmostEqual(bench_stats.coverage(6, 1), 1 - 2 / 64)
		# n=9: P(B<=1) = 10/512 <= 0.025 < P(B<=2) = 46/512.
		self.assertEqual(bench_stats.ci_rank(9), 2)
		self.assertAlmostEqual(bench_stats.coverage(9, 2), 1 - 20 / 512)
		# n=15: P(B<=3) = 576/32768 <= 0.025 < P(B<=4) = 1941/32768.
		self.assertEqual(bench_stats.ci_rank(15), 4)
		# n=17: P(B<=4) = 3214/131072 = 0.0245, just inside.
		self.assertEqual(bench_stats.ci_rank(17), 5)

	def test_no_interval_below_six(self):
		self.assertEqual(bench_stats.smallest_n(), 6)
		for n in range(1, 6):
			self.assertEqual(bench_stats.ci_rank(n), 0)
		iv = bench_stats.median_ci([1.0, 2.0, 3.0, 4.0, 5.0])
		self.assertEqual((iv.median, iv.low, iv.high), (3.0, None, None))

	def test_every_n_reaches_the_level(self):
		for n in range(6, 60):
			l = bench_stats.ci_rank(n)
			self.assertGreaterEqual(bench_stats.coverage(n, l), 0.95)
			# one rank further in would not
			if l + 1 <= (n + 1) // 2:
				self.assertLess(bench_stats.coverage(n, l + 1), 0.95)

	def test_interval_from_unsorted_values(self):
		xs = [9, 1, 8, 2, 7, 3, 6, 4, 5]
		iv = bench_stats.median_ci(xs)
		self.assertEqual((iv.median, iv.low, iv.high, iv.n), (5, 2, 8, 9))
		iv = bench_stats.median_ci([4, 1, 3, 2, 6, 5])
		self.assertEqual((iv.median, iv.low, iv.high), (3.5, 1, 6))

	def test_paired_ratios(self):
		self.assertEqual(bench_stats.paired_ratios([(100, 99), (200, 202)]), [0.99, 1.01])
		with self.assertRaises(ValueError):
			bench_stats.paired_ratios([(100, 0)])


class Verdict(unittest.TestCase):
	NARROW = [0.9960, 0.9965, 0.9970, 0.9972, 0.9975, 0.9978, 0.9980, 0.9985, 0.9990]
	# The spread of the -icount pairs of ad8e14a's make bench, 1.6%.
	WIDE = [0.9998, 1.0003, 1.0010, 1.0018, 1.0024, 1.0030, 1.0090, 1.0162]

	def test_too_wide_cannot_show_it(self):
		iv = bench_stats.median_ci(self.WIDE)
		self.assertFalse(bench_stats.can_show(iv, 0.002))
		self.assertTrue(bench_stats.verdict(iv, 0.002).startswith('cannot show it: the interval is 0.0164 wide'))
		self.assertGreater(bench_stats.pairs_needed(iv, 0.002), 100)

	def test_narrow_enough_is_a_result(self):
		iv = bench_stats.median_ci(self.NARROW)
		self.assertTrue(bench_stats.can_show(iv, 0.005))
		v = bench_stats.verdict(iv, 0.005)
		self.assertTrue(v.startswith('result:'), v)
		self.assertIn('excludes 1 and excludes the predicted 0.9950', v)
		self.assertIn('holds the predicted 0.9975', bench_stats.verdict(iv, 0.0025))
		self.assertEqual(bench_stats.pairs_needed(iv, 0.005), iv.n)

	def test_the_interval_must_be_narrower_than_the_effect(self):
		iv = bench_stats.median_ci(self.NARROW)   # 0.9965-0.9985, 0.0020 wide
		self.assertTrue(bench_stats.can_show(iv, 0.0021))
		self.assertFalse(bench_stats.can_show(iv, 0.0020))
		self.assertFalse(bench_stats.can_show(iv, None))

	def test_too_few_pairs_cannot_show_it(self):
		iv = bench_stats.median_ci(self.NARROW[:5])
		self.assertTrue(bench_stats.verdict(iv, 0.5).startswith('cannot show it: 5 pairs give no 95% interval'))


def storm_log(rates, overrun_lost=10, finished=True):
	"""A storm boot's serial log: RATES is {state: (received, made)}."""
	lines = ['[    1.000000] Linux version 7.3.4', 'cn_proc-storm: start -w 4']
	for state, (rate, made) in rates.items():
		lost = overrun_lost if state == 'overrun' else 0
		lines.append(f'storm: rate={rate} enobufs={lost} listener={state} made_rate={made}')
	if finished:
		lines.append('cn_proc-storm: exit 0')
	return [l + '\n' for l in lines]


def rates(x):
	return {'all': (1000.0 * x, 3000.0 * x), 'exits': (330.0 * x, 3100.0 * x), 'overrun': (90.0, 3200.0 * x)}


class Storm(unittest.TestCase):
	def test_every_state_is_read(self):
		self.assertEqual(bench_report.storm_results(storm_log(rates(1)), 'x'),
						 {'all': (1000.0, 0, 3000.0), 'exits': (330.0, 0, 3100.0),
						  'overrun': (90.0, 10, 3200.0)})

	def test_overrun_compares_the_events_made(self):
		self.assertEqual(bench_report.state_rate('overrun', (90.0, 10, 3200.0)), 3200.0)
		self.assertEqual(bench_report.state_rate('exits', (330.0, 0, 3100.0)), 330.0)

	def test_a_storm_that_did_not_finish_or_lacks_a_state_fails(self):
		with self.assertRaisesRegex(bench_report.ReportError, 'did not finish'):
			bench_report.storm_results(storm_log(rates(1), finished=False), 'x')
		partial = {k: v for k, v in rates(1).items() if k != 'exits'}
		with self.assertRaisesRegex(bench_report.ReportError, 'no storm result for listener state exits'):
			bench_report.storm_results(storm_log(partial), 'x')

	def test_an_overrun_that_lost_nothing_did_not_run(self):
		with self.assertRaisesRegex(bench_report.ReportError, 'overrun lost nothing'):
			bench_report.storm_results(storm_log(rates(1), overrun_lost=0), 'x')

	def rounds(self, series):
		designs = [d for d, _, _ in bench_report.DESIGNS]
		return [{d: bench_report.storm_results(storm_log(rates(x if d == 'patched' else 1.0)), 'x')
				 for d in designs} for x in series]

	def test_a_mode_too_wide_for_its_effect_cannot_show_it(self):
		out = bench_report.storm_table('icount', 'tcg', self.rounds(Verdict.WIDE),
									   {'patched': 0.002, 'clock-under-lock': 0.0, 'per-cpu-floor': 0.0})
		line = [l for l in out if l.startswith('bench: mode=icount listener=all design=patched')][0]
		self.assertIn('cannot-show', line)
		self.assertIn('median=1.0021 ci=0.9998-1.0162 rounds=8 predicted=0.9980', line)

	def test_a_mode_narrow_enough_is_a_result(self):
		out = bench_report.storm_table('mttcg', 'tcg', self.rounds(Verdict.NARROW), {'patched': 0.005})
		row = [l for l in out if l.startswith('| all | patched |')][0]
		self.assertIn('result:', row)
		line = [l for l in out if l.startswith('bench: mode=mttcg listener=exits design=patched')][0]
		self.assertTrue(line.endswith(' shows'), line)

	def test_without_an_effect_no_verdict(self):
		out = bench_report.storm_table('icount', 'tcg', self.rounds(Verdict.NARROW), {})
		self.assertIn('no predicted effect given', [l for l in out if l.startswith('| all | patched |')][0])


class Keeps(unittest.TestCase):
	"""What each design keeps: the selftest's causal_order figures, read
	from its diagnostic line."""
	LINE = '# causal_order: 3582 processes, 2 violations; 32 probes, 1 out of order\n'

	def test_the_causal_order_figures_are_read(self):
		self.assertEqual(bench_report.causal(['ok 13 exit_signal\n', self.LINE, 'ok 14 causal_order\n']),
				 (3582, 2, 32, 1))
		self.assertIsNone(bench_report.causal(['ok 14 causal_order\n']))

	def test_the_table_shows_them(self):
		reported = harness_results.BootReport({}, {}, {}, {}, (), None, (), ('tsc',), (), None, None, None, None)
		keeps = {(d, c): (reported, bench_report.causal([self.LINE])) for d, _, _ in bench_report.DESIGNS
			 for c in (None, 'jiffies')}
		rows = [r for r in bench_report.keeps_table(keeps) if r.startswith('| patched |')]
		self.assertEqual(len(rows), 2)
		for r in rows:
			self.assertIn('2 of 3582 processes; 1 of 32', r)


CONFIGS = ((1, 0), (2, 0), (2, 200))


def native_output(series2=(100.0, 101.0, 99.0, 102.0, 98.0, 100.5), event=50000.0, tamper=None):
	"""A stamp_native run of 6 rounds: base and the others at 20 ns (plus
    200 spaced), the series on two cores back to back as given and spaced
    105 ns above base, atomic-inc at 118 ns back to back and 90 ns above
    base spaced, events at about @event ns."""
	def ns(s, t, g, r):
		if s == 'series' and t == 2:
			return series2[r] if not g else 325.0 + r * 0.1
		if s == 'atomic-inc' and t == 2:
			return 118.0 if not g else 310.0 + r * 0.1
		return 20.0 + r * 0.1 + (200 if g else 0)

	lines = ['stamp_native: cpu="Test CPU" hypervisor=none cpus=0,1 online=2 kernel=test '
			 'clocksource=tsc rounds=6 calls=1000 gap=200 trips=1000 iterations=10 exec=/x',
			 'stamp_native: loadavg_start="0.05 0.10 0.20 1/100 1"']
	for r in range(6):
		for t, g in CONFIGS:
			for s in bench_native.SCHEMES:
				fails = 0.05 if (s, t, g) == ('series', 2, 0) else 0
				lines.append(f'stamp_native: round={r + 1} part=stamp scheme={s} threads={t} gap={g} '
							 f'ns_per_call={ns(s, t, g, r):.2f} fail_per_call={fails:.4f} overlap=0.990')
		lines.append(f'stamp_native: round={r + 1} part=transfer ns_per_transfer={50 + r:.2f}')
		for state in ('none', 'one'):
			lines.append(f'stamp_native: round={r + 1} part=events listener={state} '
						 f'ns_per_event={event + 100 * r:.2f} received=30 expected=30 enobufs=0')
	lines.append('stamp_native: loadavg_end="0.05 0.10 0.20 1/100 1"')
	for t, g in CONFIGS:
		for s in bench_native.SCHEMES:
			iv = bench_stats.median_ci([ns(s, t, g, r) for r in range(6)])
			med = iv.median + (1 if tamper == (s, t, g) else 0)
			lines.append(f'stamp_native: scheme={s} threads={t} gap={g} ns_per_call={med:.2f} '
						 f'ci_low={iv.low:.2f} ci_high={iv.high:.2f} fail_per_call=0 '
						 f'overlap_min=0.990 rounds=6')
	lines.append('stamp_native: transfer ns_per_transfer=52.50 ci_low=50.00 ci_high=55.00 rounds=6')
	for state in ('none', 'one'):
		iv = bench_stats.median_ci([event + 100 * r for r in range(6)])
		lines.append(f'stamp_native: events listener={state} ns_per_event={iv.median:.2f} '
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

	def test_native_effects_for_the_storm(self):
		mttcg = bench_report.effects(native_output(), 'mttcg')
		f2 = 105.0 / 50250.0
		self.assertAlmostEqual(mttcg['patched'], f2 / (1 + f2))
		self.assertAlmostEqual(mttcg['clock-under-lock'], 0.0)
		self.assertAlmostEqual(bench_report.effects(native_output(), 'icount')['patched'], 0.0)
		self.assertEqual(bench_report.effects(None, 'icount')['patched'], None)

	def test_summary_that_disagrees_with_its_rounds_fails(self):
		out = bench_native.parse(native_output(tamper=('series', 2, 0)))
		msg = exits(self, bench_native.figures, out)
		self.assertIn('series threads=2 gap=0: the program says', msg)

	def test_report_prints(self):
		out = io.StringIO()
		with redirect_stdout(out):
			bench_native.report(bench_native.parse(native_output()))
		text = out.getvalue()
		self.assertIn('overhead per event, series over base, 2 cores, back to back: 0.159%', text)
		self.assertIn('overhead per event, series over base, 2 cores, spaced by 200 steps: 0.209%', text)
		self.assertIn('the domain costs 105.0 ns per event over base (2.00 t) and one atomic '
					  'of a shared line 90.0 ns (1.71 t)', text)
		self.assertIn('model: line="ordering domain (series)" handoffs=1.00 busy_ns=109.5 '
					  'saturates_at_cpus=459', text)


if __name__ == '__main__':
	unittest.main()
