# SPDX-License-Identifier: GPL-2.0
"""bench_stats.py: the statistics of stamp_native's figures, imported by
bench_native.py (standard library only).

The median of n values and a distribution-free confidence interval for it
from order statistics: the number of values below the true median is
binomial(n, 1/2), so [x(l), x(n+1-l)] (1-based ranks of the sorted values)
covers the median with probability 1 - 2 P(B <= l-1), B ~ binomial(n, 1/2).
l is the largest rank for which that is at least the level asked for; below
6 values no l exists at 95% (even [min, max] covers only 1 - 2/2^n).
"""
import math
from typing import Iterable, NamedTuple, Optional

LEVEL = 0.95


class Interval(NamedTuple):
	median: float
	low: Optional[float]
	high: Optional[float]
	n: int


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


def median(xs: Iterable[float]) -> float:
	s = sorted(xs)
	if not s:
		raise ValueError('median of no values')
	return (s[(len(s) - 1) // 2] + s[len(s) // 2]) / 2


def median_ci(xs: Iterable[float], level: float = LEVEL) -> Interval:
	"""The median of xs and its interval; low and high are None when there
	are too few values for one."""
	s = sorted(xs)
	n = len(s)
	l = ci_rank(n, level)
	if not l:
		return Interval(median(s), None, None, n)
	return Interval(median(s), s[l - 1], s[n - l], n)
