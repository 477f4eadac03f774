# SPDX-License-Identifier: GPL-2.0
"""bench_stats.py: the statistics of make bench and stamp_native, imported
by bench_report.py and bench_native.py (standard library only).

The median of n values and a distribution-free confidence interval for it
from order statistics: the number of values below the true median is
binomial(n, 1/2), so [x(l), x(n+1-l)] (1-based ranks of the sorted values)
covers the median with probability 1 - 2 P(B <= l-1), B ~ binomial(n, 1/2).
l is the largest rank for which that is at least the level asked for; below
6 values no l exists at 95% (even [min, max] covers only 1 - 2/2^n).

A mode can show an effect only if its interval is narrower than the effect:
an interval wider than the distance between 1 (no effect) and the predicted
ratio 1 - effect (a cost lowers events/s) can hold both, so the run could
not tell them apart, whatever its median. Such a mode is reported as
"cannot show it", not as a result.
"""
import math
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple

LEVEL = 0.95

class Interval(NamedTuple):
	median: float
	low: Optional[float]
	high: Optional[float]
	n: int
	coverage: float


def binom_cdf(n: int, k: int) -> float:
	"""P(B <= k) for B ~ binomial(n, 1/2), exactly."""
	return sum(math.comb(n, i) for i in range(k + 1)) / float(2 ** n)


def ci_rank(n: int, level: float = LEVEL) -> int:
	"""The lower rank l (1-based) of the interval [x(l), x(n+1-l)], or 0
    when no interval of n values reaches the level."""
	tail = (1 - level) / 2
	l = 0
	while l + 1 <= (n + 1) // 2 and binom_cdf(n, l) <= tail:
		l += 1
	return l


def coverage(n: int, l: int) -> float:
	"""The probability that [x(l), x(n+1-l)] covers the median."""
	return 1 - 2 * binom_cdf(n, l - 1)


def smallest_n(level: float = LEVEL) -> int:
	"""The fewest values whose median has an interval at the level."""
	n = 1
	while not ci_rank(n, level):
		n += 1
	return n


def median(xs: Iterable[float]) -> float:
	s = sorted(xs)
	if not s:
		raise ValueError('median of no values')
	return (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2


def median_ci(xs: Iterable[float], level: float = LEVEL) -> Interval:
	"""The median of xs and its interval; low and high are None, and the
    coverage 0, when there are too few values for one."""
	s = sorted(xs)
	n = len(s)
	l = ci_rank(n, level)
	if not l:
		return Interval(median(s), None, None, n, 0.0)
	return Interval(median(s), s[l - 1], s[n - l], n, coverage(n, l))


def paired_ratios(pairs: Iterable[Tuple[float, float]]) -> List[float]:
	"""candidate/base for each (base, candidate) pair of one pair of boots."""
	out = []
	for base, cand in pairs:
		if base <= 0 or cand <= 0:
			raise ValueError(f'a rate that is not positive: {base}, {cand}')
		out.append(cand / base)
	return out


def width(iv: Interval) -> Optional[float]:
	return None if iv.low is None or iv.high is None else iv.high - iv.low


def can_show(iv: Interval, effect: Optional[float]) -> bool:
	"""True when the interval is narrower than the effect (a distance from
    ratio 1), so that it cannot hold both 1 and 1 +- effect."""
	w = width(iv)
	return w is not None and effect is not None and effect > 0 and w < effect


def verdict(iv: Interval, effect: Optional[float]) -> str:
	"""The report's word for a mode: its interval, or that it cannot show
    an effect of that size."""
	low, high, w = iv.low, iv.high, width(iv)
	if low is None or high is None or w is None:
		return f'cannot show it: {iv.n} pairs give no {LEVEL:.0%} interval (at least {smallest_n()} do)'
	if effect is None:
		return 'no predicted effect given: interval only, no verdict'
	if not can_show(iv, effect):
		return (f'cannot show it: the interval is {w:.4f} wide, '
				f'wider than the predicted effect {effect:.4f}')
	one, predicted = (('holds' if low <= x <= high else 'excludes') for x in (1, 1 - effect))
	return (f'result: the interval ({w:.4f} wide) {one} 1 and '
			f'{predicted} the predicted {1 - effect:.4f}')


def pairs_needed(iv: Interval, effect: Optional[float], level: float = LEVEL) -> Optional[int]:
	"""A rough count of pairs for an interval narrower than the effect,
    supposing the width shrinks as 1/sqrt(n) from what n pairs gave."""
	w = width(iv)
	if w is None or not effect or effect <= 0:
		return None
	if w < effect:
		return iv.n
	return max(smallest_n(level), math.ceil(iv.n * (w / effect) ** 2))
