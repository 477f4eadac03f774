# SPDX-License-Identifier: GPL-2.0
"""make kcsan: KCSAN, the kernel's data-race detector, on the code the
series touches, base and patched, as syzbot would run it on a tree the
series has landed in.

The newest line's base, patched and KCSAN_MUTANT kernels (as
harness_kernel builds every kernel: base the series' patches that leave
cn_proc.c alone, patched the whole series, the mutant
tests/mutants/KCSAN_MUTANT.patch on it), of the kcsan flavour (configs/flavours/kcsan.config: syzbot's KCSAN
settings), on x86_64 with 2 CPUs, each booted once in QEMU as the boot
test boots smp2 (the selftest with its fork/exec/exit load, then the real
clients), with the guest's initramfs and tests/kcsan/ on it: tests/init
runs its hook before and after the parts, which turns KCSAN on as
syzkaller's executor does, runs the listener churn (tests/kcsan/churn.c:
listeners that subscribe, ignore, send an unknown op, exit without IGNORE
and are killed with SIGKILL) meanwhile, traces cn_proc_mcast_ctl(),
cn_release(), cn_filter() and send_msg()'s send to measure how often they
ran at once on different CPUs, and reports KCSAN's counters and the
addresses of the symbols the series adds.

Every KCSAN report of the serial logs ("BUG: KCSAN: data-race in A / B")
is read (parse_races()) and counted by its function pair. A report
involves the series (involves()) when its pair names a function the
series adds or changes (or one that inlines such a static function), a
frame of its stacks a function the series adds, or its address a
variable the series adds (series_symbols(), read from the patches and the
patched tree, so that the target follows whatever patches/series holds).
The verdict (judge_boot()): every boot ran as asked (it did not hang, no
kernel report but KCSAN's, init and its parts started and finished, KCSAN
was on, the churn did each of its requests, the functions overlapped);
patched has no report that involves the series unless base has the same
pair (then a finding about the connector, listed as such); the mutant has
a report on a variable the series adds (the stamps' domain). The
selftest's and the clients' own checks are not judged here: the churn's
listeners and acks, and KCSAN's slowdown, are not what they are built for
(make boot-test judges them).
"""

import dataclasses
import textwrap
import time
import os
import re
import shutil
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from harness_arch import Arch, Kernel
from harness_config import (KCSAN_TIMEOUT_SCALE, Boot, Expect, KernelLine, Options, Run,
			    check_run, kernel_cmdline, load_arch, series_patches)
import harness_boot
import harness_guest
from harness_kernel import KUNIT_TOOL, Kernels, Tree
import harness_results
import harness_tables
from harness_results import PRINTK, PROBLEMS, BootReport
import harness_util
from harness_util import TOP, HarnessError, describe, file_text, note, now, stage

KCSAN_ARCH = 'x86_64'
KCSAN_FLAVOUR = 'kcsan'
KCSAN_CPUS = 2
# The mutant whose stamp is updated with plain C accesses: it must race on
# the domain.
KCSAN_MUTANT = 'kcsan-plain-stamp'
VARIANTS = ('base', 'patched', KCSAN_MUTANT)
# What the guest gets beside the boot test's initramfs: tests/kcsan/.
GUEST_DIR = os.path.join(TOP, 'tests', 'kcsan')
# The pairs of functions (the hook's probes) that must have run at once on
# two CPUs, either beginning while the other ran: send is
# cn_netlink_send_mult(), send_msg()'s send, in which cn_filter() (filter)
# runs for each listener; mcast is cn_proc_mcast_ctl(), release
# cn_release().
OVERLAPS = (('send', 'send'), ('filter', 'mcast'), ('mcast', 'send'), ('release', 'send'))
# What the churn's listeners did, and the storm's renames: each must have
# happened.
CHURN_COUNTS = ('listen', 'ignore', 'unknown', 'einval', 'killed', 'storm')
# The kinds of harness_results' problems that fail a KCSAN boot: it did not
# run what it was asked to (the others judge the selftest's and the
# clients' results, which this target does not).
FATAL_KINDS = ('timed_out', 'init_error', 'kunit_error', 'no_kunit', 'cmdline', 'cpus',
	       'init_missing', 'init_mode', 'init_clients', 'part_unexpected', 'listener',
	       'part_missing', 'part_unfinished')
# The size a variable of the series is taken to span from its address in
# /proc/kallsyms: a cache line (the stamps' domain is cache-line aligned).
VARIABLE_SPAN = 64


# The series' symbols --------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SeriesSymbols:
	"""What the series adds (functions and what it declares), the
	functions whose bodies it changes (and those that call a static one
	of them, which the compiler may inline: send_msg()'s races are
	reported in its callers), and the variables it adds."""
	added: FrozenSet[str]
	changed: FrozenSet[str]
	variables: FrozenSet[str]

	@property
	def names(self) -> FrozenSet[str]:
		return self.added | self.changed | self.variables


HUNK = re.compile(r'^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$')
# A line at column 0 that begins a function's definition (its body follows)
# or declares one (ends with ;): the function's name.
FUNCTION = re.compile(r'^[A-Za-z_][^=;(]*?\b([A-Za-z_]\w*)\s*\((?!.*=)')
# A variable defined at file scope (no parenthesis, ends with ; or =).
VARIABLE = re.compile(r'^(?!(?:struct|union|enum)\s+\w+\s*;)[A-Za-z_][^(;=]*?\b([A-Za-z_]\w*)'
		      r'\s*(?:\[[^\]]*\]\s*)*(?:=[^(]*)?;\s*$')
LABEL = re.compile(r'^\w+:')


def _macro(name: str) -> bool:
	return re.fullmatch(r'[A-Z0-9_]+', name) is not None


def _top_level(line: str) -> Tuple[str, Optional[str]]:
	"""What a line of C at column 0 is: ('function', NAME), ('variable',
	NAME), ('end', None) for one that ends a function body or opens
	something else, ('same', None) for one that does not change where the
	next lines are (indented, blank, a brace that opens a body, a label,
	the preprocessor)."""
	if not line or line[0] in ' \t{#' or LABEL.match(line):
		return 'same', None
	m = FUNCTION.match(line)
	if m and not _macro(m.group(1)):
		return 'function', m.group(1)
	m = VARIABLE.match(line)
	if m and not _macro(m.group(1)):
		return 'variable', m.group(1)
	return 'end', None


def kernel_file(path: str) -> bool:
	"""A file of the kernel's C (not of tools/, whose programs KCSAN does
	not see)."""
	return path.endswith(('.c', '.h')) and not path.startswith('tools/')


def patch_symbols(texts: Iterable[str]) -> Tuple[Set[str], Set[str], Set[str], Set[str]]:
	"""From the patches' TEXTS: the functions declared or defined on added
	lines, those on removed lines, the functions whose bodies have an added
	or removed line, and the variables defined on added lines, in the
	kernel's C files (kernel_file()). A hunk
	starts in the function its header names; a line at column 0 moves to
	the function it begins, or out of any."""
	plus: Set[str] = set()
	minus: Set[str] = set()
	bodies: Set[str] = set()
	variables: Set[str] = set()
	for text in texts:
		where: Optional[str] = None
		in_hunk = False
		kernel = True
		for line in text.splitlines():
			if line.startswith('diff --git') or line.startswith('--- '):
				in_hunk = False
				continue
			if line.startswith('+++ '):
				kernel = kernel_file(line[4:].split('/', 1)[-1])
				continue
			if not kernel:
				continue
			m = HUNK.match(line)
			if m:
				in_hunk = True
				kind, name = _top_level(m.group(1))
				where = name if kind == 'function' else None
				continue
			if not in_hunk or not line or line[0] not in ' +-':
				continue
			sign, code = line[0], line[1:]
			kind, name = _top_level(code)
			if kind == 'function':
				where = name
				if sign == '+':
					plus.add(name or '')
				elif sign == '-':
					minus.add(name or '')
				continue
			if kind == 'variable':
				where = None
				if sign == '+':
					variables.add(name or '')
				continue
			if kind == 'end':
				where = None
				continue
			if sign in '+-' and where and code.strip() and code.strip() != '}':
				bodies.add(where)
	return plus, minus, bodies, variables


def c_functions(text: str) -> Dict[str, Tuple[bool, str]]:
	"""Each function defined in the C TEXT (kernel style: its signature at
	column 0, its body between braces at column 0): whether it is static,
	and its body."""
	out: Dict[str, Tuple[bool, str]] = {}
	lines = text.splitlines()
	i = 0
	while i < len(lines):
		kind, name = _top_level(lines[i])
		if kind != 'function' or lines[i].rstrip().endswith(';') or name is None:
			i += 1
			continue
		start = i
		while i < len(lines) and lines[i] != '{' and not lines[i].rstrip().endswith(';'):
			i += 1
		if i == len(lines) or lines[i] != '{':
			continue
		end = i
		while end < len(lines) and lines[end] != '}':
			end += 1
		out[name] = (re.match(r'static\b', lines[start]) is not None,
			     '\n'.join(lines[i + 1:end]))
		i = end + 1
	return out


def inlining_callers(texts: Iterable[str], functions: Set[str]) -> Set[str]:
	"""The functions of the C TEXTS that call, directly or through another
	static one, a static function of FUNCTIONS defined in the same text:
	where the compiler may have inlined it, KCSAN names the caller."""
	out: Set[str] = set()
	for text in texts:
		defs = c_functions(text)
		static = {f for f in functions if f in defs and defs[f][0]}
		while static:
			f = static.pop()
			for name, (is_static, body) in defs.items():
				if name in functions or name in out or \
				   not re.search(r'\b' + re.escape(f) + r'\s*\(', body):
					continue
				out.add(name)
				if is_static:
					static.add(name)
	return out


def series_symbols(patches: Sequence[str], tree: str) -> SeriesSymbols:
	"""The symbols of the series' PATCHES, with TREE (at the whole
	series) for the callers of its static functions."""
	from harness_kernel import patch_files
	plus, minus, bodies, variables = patch_symbols(file_text(p) for p in patches)
	added = plus - minus
	changed = (bodies | (plus & minus)) - added
	sources = [file_text(os.path.join(tree, f)) for f in patch_files(patches)
		   if kernel_file(f) and os.path.isfile(os.path.join(tree, f))]
	changed |= inlining_callers(sources, added | changed)
	return SeriesSymbols(frozenset(added), frozenset(changed), frozenset(variables))


# KCSAN's reports ------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Access:
	"""One access of a report: its type (read, write (marked), ...), its
	address and size, and its stack's functions (innermost first)."""
	type: str
	address: int
	size: int
	frames: Tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Race:
	"""A KCSAN report: its bug type (data-race, assert: race), the
	functions of its title (the pair, or one for a race of unknown
	origin), its accesses, its lines, and the kernel's time of it (s)."""
	bug: str
	pair: Tuple[str, ...]
	accesses: Tuple[Access, ...]
	lines: Tuple[str, ...]
	time: float = 0.0

	@property
	def title(self) -> str:
		return ' / '.join(self.pair)


TITLE = re.compile(r'BUG: KCSAN: (.+?) in (\S+?)(?:\+0x[0-9a-f]+/0x[0-9a-f]+)?'
		   r'(?: / (\S+))?\s*$')
ACCESS = re.compile(r'(?:race at unknown origin, with )?((?:read|write|read-write|assert)[^(]*?'
		    r'(?: \([^)]*\))?) to 0x([0-9a-f]+) of (\d+) bytes by (?:task \d+|interrupt) '
		    r'on cpu \d+:$')
FRAME = re.compile(r'^\s+(?:\+-> reordered to: )?([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+')
SEPARATOR = '=' * 66


def function(symbol: str) -> str:
	"""A function's name as a report prints it, without the suffix of a
	copy the compiler made of it (.isra.0, .constprop.0, .part.0, .cold)."""
	return symbol.split('.', 1)[0]


def printk_time(line: str) -> float:
	"""The kernel's time of a kernel message line, 0 for another line."""
	m = PRINTK.match(line)
	return float(m.group().strip()[1:-1]) if m else 0.0


def printk_text(line: str) -> Optional[str]:
	"""The text of a kernel message line (after printk's time), None for
	another line."""
	m = PRINTK.match(line)
	return line[m.end():].rstrip('\r\n') if m else None


def parse_races(lines: Sequence[str]) -> List[Race]:
	"""The KCSAN reports of a serial log's LINES, in order."""
	races: List[Race] = []
	cur: Optional[Dict] = None

	def close() -> None:
		if cur is not None:
			races.append(Race(cur['bug'], cur['pair'], tuple(
				Access(t, a, s, tuple(f)) for t, a, s, f in cur['accesses']),
				tuple(cur['lines']), cur['time']))

	for raw in lines:
		text = printk_text(raw)
		if text is None:
			continue
		m = TITLE.match(text)
		if m:
			close()
			pair = tuple(function(f) for f in m.group(2, 3) if f)
			cur = {'bug': m.group(1), 'pair': pair, 'accesses': [], 'lines': [text],
			       'time': printk_time(raw)}
			continue
		if cur is None:
			continue
		if text.startswith(SEPARATOR):
			close()
			cur = None
			continue
		cur['lines'].append(text)
		m = ACCESS.match(text)
		if m:
			cur['accesses'].append((m.group(1), int(m.group(2), 16),
						int(m.group(3)), []))
			continue
		m = FRAME.match(text)
		if m and cur['accesses'] and not text.startswith('Reported by'):
			cur['accesses'][-1][3].append(function(m.group(1)))
	close()
	return races


def other_reports(lines: Sequence[str]) -> List[str]:
	"""Every problem the kernel reported but KCSAN's (harness_results'
	PROBLEMS: a panic, an oops, a BUG, a WARNING, lockdep, a stall...),
	the whole log read (harness_results keeps the first five only, which
	KCSAN's reports can fill)."""
	out = []
	for raw in lines:
		m = PRINTK.search(raw)
		if not m:
			continue
		text = raw[m.end():].strip()
		if PROBLEMS.search(text) and not text.startswith('BUG: KCSAN:'):
			out.append(text)
	return out


# What the guest's hook reports ---------------------------------------------

@dataclasses.dataclass(frozen=True)
class GuestFacts:
	"""What tests/kcsan/hook reported ("cn_proc-kcsan: ..." lines): whether
	KCSAN was on, the churn's counts, the overlaps and the trace entries
	lost before the storm and in it, the kernel's time when the storm
	began, KCSAN's counters, the addresses of the series' symbols."""
	kcsan: Optional[str] = None
	churn: Tuple[Tuple[str, int], ...] = ()
	overlaps: Tuple[Tuple[str, int], ...] = ()
	trace_lost: Optional[int] = None
	storm_overlaps: Tuple[Tuple[str, int], ...] = ()
	storm_trace_lost: Optional[int] = None
	storm_at: Optional[float] = None
	stats: Tuple[Tuple[str, int], ...] = ()
	kallsyms: Tuple[Tuple[str, int], ...] = ()

	def overlap(self, a: str, b: str, phase: str = '') -> int:
		"""How often A began on one CPU while B ran on another, or B while
		A: before the storm (PHASE load), in it (storm), or in both."""
		n = 0
		for p, counts in (('load', self.overlaps), ('storm', self.storm_overlaps)):
			o = dict(counts)
			if phase in ('', p):
				n += o.get(f'{a}|{b}', 0) + (o.get(f'{b}|{a}', 0) if a != b else 0)
		return n

	def in_storm(self, race: 'Race') -> bool:
		return self.storm_at is not None and race.time >= self.storm_at


HOOK = 'cn_proc-kcsan: '


def _numbers(words: Iterable[str], sep: str) -> Tuple[Tuple[str, int], ...]:
	out = []
	for w in words:
		k, _, v = w.partition(sep)
		if v.isdigit():
			out.append((k, int(v)))
	return tuple(out)


def guest_facts(lines: Sequence[str]) -> GuestFacts:
	"""The hook's lines of a serial log (a printk that cut into one cut
	off)."""
	facts: Dict = {}
	stats, kallsyms = [], []
	for raw in lines:
		text = printk_text(raw)
		if text is not None and text.startswith(HOOK + 'storm') and 'storm_at' not in facts:
			facts['storm_at'] = printk_time(raw)
		line = raw.rstrip('\r\n')
		k = PRINTK.search(line)
		if k and k.start() > 0:
			line = line[:k.start()]
		if not line.startswith(HOOK):
			continue
		words = line[len(HOOK):].split()
		phase = ''
		if words[:1] == ['storm']:
			phase, words = 'storm_', words[1:]
		if not words:
			continue
		if words[0] == 'kcsan' and len(words) == 2:
			facts['kcsan'] = words[1]
		elif words[0] == 'churn:':
			facts['churn'] = _numbers(words[1:], '=')
		elif words[0] == 'overlap':
			facts[phase + 'overlaps'] = _numbers(words[1:], '=')
		elif words[0] == 'trace' and len(words) == 2 and words[1].startswith('lost='):
			lost = words[1][5:]
			facts[phase + 'trace_lost'] = int(lost) if lost.isdigit() else None
		elif words[0] == 'stat' and len(words) == 3 and words[2].isdigit():
			stats.append((words[1], int(words[2])))
		elif words[0] == 'kallsyms' and len(words) == 3 and \
			re.fullmatch(r'[0-9a-f]+', words[1]):
			kallsyms.append((words[2], int(words[1], 16)))
	return GuestFacts(stats=tuple(stats), kallsyms=tuple(kallsyms), **facts)


# The verdict ----------------------------------------------------------------

def on_variables(race: Race, symbols: SeriesSymbols, kallsyms: Dict[str, int]) -> List[str]:
	"""The variables of the series (at their addresses in KALLSYMS) that
	RACE's accesses are to."""
	out = []
	for v in sorted(symbols.variables):
		a = kallsyms.get(v)
		if a is not None and any(a <= x.address < a + VARIABLE_SPAN for x in race.accesses):
			out.append(v)
	return out


def involves(race: Race, symbols: SeriesSymbols, kallsyms: Dict[str, int]) -> List[str]:
	"""What of the series RACE names: a function of its pair the series
	adds or changes, a frame of its stacks the series adds, a variable of
	the series its accesses are to."""
	named = [f for f in race.pair if f in symbols.added | symbols.changed]
	named += [f for a in race.accesses for f in a.frames if f in symbols.added]
	named += on_variables(race, symbols, kallsyms)
	return list(dict.fromkeys(named))


@dataclasses.dataclass(frozen=True)
class KcsanProblem:
	"""Why a KCSAN boot is not as expected: its KIND (one of KINDS), what
	it is ABOUT, and its TEXT."""
	kind: str
	about: str
	text: str

	def __post_init__(self) -> None:
		assert self.kind in KINDS, self.kind


KINDS = ('boot', 'kernel_report', 'kcsan_off', 'churn', 'overlap', 'no_symbol', 'series_race',
	 'no_domain_race')


@dataclasses.dataclass(frozen=True)
class KcsanBoot:
	"""One boot of make kcsan: its variant, what harness_results read of
	its log, its KCSAN reports, the kernel's other reports, and what the
	hook reported."""
	variant: str
	report: BootReport
	races: Tuple[Race, ...]
	others: Tuple[str, ...]
	facts: GuestFacts
	seconds: float = 0.0


def ran_as_asked(b: KcsanBoot, boot: Boot, prog_args: Sequence[str]) -> List[KcsanProblem]:
	"""What shows that boot B did not run what it was asked to: a problem
	of harness_results of FATAL_KINDS, another report of the kernel, KCSAN
	off, a churn count of CHURN_COUNTS at 0 (or none), a pair of OVERLAPS
	that never overlapped."""
	why = [KcsanProblem('boot', f'{p.kind}:{p.about}', p.text)
	       for p in harness_results.problems(b.report, boot,
							 kernel_cmdline(boot.run, prog_args))
	       if p.kind in FATAL_KINDS]
	why += [KcsanProblem('kernel_report', r, 'kernel: ' + r) for r in b.others]
	if b.facts.kcsan != 'on':
		why.append(KcsanProblem('kcsan_off', b.facts.kcsan or '',
				   f'KCSAN was {b.facts.kcsan or "not reported"}, not on'))
	churn = dict(b.facts.churn)
	why += [KcsanProblem('churn', c, f'the churn made no {c} ({churn.get(c, "no count")})')
		for c in CHURN_COUNTS if not churn.get(c)]
	why += [KcsanProblem('overlap', f'{x}|{y}', f'{x} and {y} never ran at once on two CPUs')
		for x, y in OVERLAPS if not b.facts.overlap(x, y)]
	return why


def judge_boot(b: KcsanBoot, boot: Boot, prog_args: Sequence[str], symbols: SeriesSymbols,
	  base_pairs: Set[Tuple[str, ...]]) -> List[KcsanProblem]:
	"""Empty if boot B is as make kcsan expects (ran_as_asked(), and for
	patched no report that involves the series but those whose pair base
	has too, BASE_PAIRS; for the mutant a report on a variable of the
	series), else why not."""
	why = ran_as_asked(b, boot, prog_args)
	kallsyms = dict(b.facts.kallsyms)
	if b.variant != 'base':
		why += [KcsanProblem('no_symbol', v,
				     f'/proc/kallsyms has no {v}, a variable the series adds')
			for v in sorted(symbols.variables) if v not in kallsyms]
	if b.variant == 'patched':
		for r in b.races:
			named = involves(r, symbols, kallsyms)
			if named and r.pair not in base_pairs:
				why.append(KcsanProblem(
					'series_race', r.title,
					f'KCSAN: {r.bug} in {r.title}, which involves the series '
					f'({", ".join(named)}) and base does not have'))
	if b.variant == KCSAN_MUTANT and not any(on_variables(r, symbols, kallsyms)
						 for r in b.races):
		why.append(KcsanProblem('no_domain_race', ', '.join(sorted(symbols.variables)),
				   'no KCSAN report on a variable the series adds '
				   f'({", ".join(sorted(symbols.variables)) or "none"})'))
	return why


def judge_all(boots: Sequence[KcsanBoot], runs: Dict[str, Boot],
	      prog_args: Dict[str, Sequence[str]],
	      symbols: SeriesSymbols) -> Dict[str, List[KcsanProblem]]:
	"""Each boot judged (judge_boot()), patched against base's pairs."""
	base_pairs = {r.pair for b in boots if b.variant == 'base' for r in b.races}
	return {b.variant: judge_boot(b, runs[b.variant], prog_args[b.variant], symbols, base_pairs)
		for b in boots}


# The report ----------------------------------------------------------------

def pair_counts(boots: Sequence[KcsanBoot]) -> Dict[Tuple[str, ...], Dict[str, int]]:
	"""Each distinct pair of the boots' reports: its count in each variant."""
	out: Dict[Tuple[str, ...], Dict[str, int]] = {}
	for b in boots:
		for r in b.races:
			c = out.setdefault(r.pair, {})
			c[b.variant] = c.get(b.variant, 0) + 1
	return out


def findings(boots: Sequence[KcsanBoot], symbols: SeriesSymbols) -> List[str]:
	"""The pairs base reports that involve the connector or the series
	(a function or file of the series' patches in the pair): findings
	about the connector, which patched does not add."""
	out = []
	for b in boots:
		if b.variant != 'base':
			continue
		kallsyms = dict(b.facts.kallsyms)
		for pair in dict.fromkeys(r.pair for r in b.races):
			rs = [r for r in b.races if r.pair == pair]
			named = involves(rs[0], symbols, kallsyms) or \
				[f for f in pair if re.match(r'cn_|proc_\w+_connector', f)]
			if named:
				out.append(f'{" / ".join(pair)} ({", ".join(named)}): base has it, '
					   f'{len(rs)} report(s): a finding about the connector')
	return out


def kcsan_table(boots: Sequence[KcsanBoot], verdicts: Dict[str, List[KcsanProblem]],
	  symbols: SeriesSymbols) -> List[str]:
	"""Markdown: a row per distinct pair (those that involve the series
	marked *), then the boots' counts, a column per kernel."""
	variants = [b.variant for b in boots]
	counts = pair_counts(boots)
	series = set()
	on: Dict[Tuple[str, ...], List[str]] = {}
	for b in boots:
		for r in b.races:
			if involves(r, symbols, dict(b.facts.kallsyms)):
				series.add(r.pair)
			on.setdefault(r.pair, []).extend(on_variables(r, symbols,
								      dict(b.facts.kallsyms)))
	rows = [['KCSAN report: data-race in'] + variants]
	for pair in sorted(counts, key=lambda p: (p not in series, p)):
		label = ' / '.join(pair) + (' *' if pair in series else '')
		if on.get(pair):
			label += f' (on {", ".join(dict.fromkeys(on[pair]))})'
		cells = []
		for b in boots:
			n = counts[pair].get(b.variant, 0)
			storm = sum(1 for r in b.races if r.pair == pair and b.facts.in_storm(r))
			cells.append(f'{n} ({storm} in the storm)' if storm else str(n or '-'))
		rows.append([label] + cells)
	if not counts:
		rows.append(['(none)'] + ['-' for _ in variants])

	def row(label: str, cell: Callable[[KcsanBoot], str]) -> None:
		rows.append([label] + [cell(b) for b in boots])
	row('reports (KCSAN\'s data_races)',
	    lambda b: f'{len(b.races)} ({dict(b.facts.stats).get("data_races", "-")})')
	row('watchpoints set up', lambda b: str(dict(b.facts.stats).get('setup_watchpoints', '-')))
	row('churn: ' + '/'.join(CHURN_COUNTS),
	    lambda b: '/'.join(str(dict(b.facts.churn).get(c, '-')) for c in CHURN_COUNTS))
	for phase, what in (('load', 'before the storm'), ('storm', 'in the storm')):
		row(f'at once {what}: ' + ', '.join(f'{x}+{y}' for x, y in OVERLAPS),
		    lambda b: '/'.join(str(b.facts.overlap(x, y, phase)) for x, y in OVERLAPS))
	row('trace entries lost (before, in the storm)',
	    lambda b: f'{_or_dash(b.facts.trace_lost)}, {_or_dash(b.facts.storm_trace_lost)}')
	row('selftest events', lambda b: b.report.figures.get('events', '-'))
	row('other kernel reports', lambda b: str(len(b.others)))
	row('boot (s)', lambda b: f'{b.seconds:.0f}')
	row('as expected', lambda b: 'no' if verdicts.get(b.variant) else 'yes')
	return harness_tables.markdown_table(rows)


def _or_dash(n: Optional[int]) -> str:
	return '-' if n is None else str(n)


def kcsan_report(title: str, boots: Sequence[KcsanBoot], verdicts: Dict[str, List[KcsanProblem]],
	   symbols: SeriesSymbols, seconds: float) -> List[str]:
	"""make kcsan's section of RESULTS: what ran, the table, what the
	series names, the findings, every boot not as expected, the count."""
	out = [f'## make kcsan: {title}', '',
	       'KCSAN with syzbot\'s settings (configs/flavours/kcsan.config, from google/'
	       'syzkaller\'s dashboard/config/linux/bits/kcsan.yml), turned on after boot as '
	       'syz-executor does; each kernel booted once under the selftest\'s fork/exec/exit '
	       'load and the real clients, while tests/kcsan/churn\'s listeners subscribed, '
	       'ignored, sent an unknown op, exited without IGNORE and were killed, and then '
	       'in the churn\'s storm (the listeners still at it, both CPUs renaming processes '
	       'as fast as they can: a comm event each, stamped). Each row a distinct report '
	       'by its function pair, each cell its count; * it involves the series (a '
	       'function the series adds or changes in its pair, a function it adds in its '
	       'stacks, or a variable it adds as its address). "at once": how often one of '
	       'the pair began on one CPU while the other ran on another (send: send_msg()\'s '
	       'cn_netlink_send_mult(), filter: cn_filter(), mcast: cn_proc_mcast_ctl(), '
	       'release: cn_release()).', '']
	out[2:3] = _wrap(out[2])
	out += kcsan_table(boots, verdicts, symbols) + ['']
	out += _wrap('The series adds ' + (', '.join(sorted(symbols.added | symbols.variables))
					   or 'nothing') +
		     '; it changes ' + (', '.join(sorted(symbols.changed)) or 'nothing') +
		     ' (or a caller that inlines it).') + ['']
	found = findings(boots, symbols)
	out += ['Findings about the connector (base has them):'] if found else \
		['No report on base involves the connector.']
	for f in found:
		out += textwrap.wrap(f, 76, initial_indent='  - ', subsequent_indent='    ',
				     break_on_hyphens=False, break_long_words=False)
	out.append('')
	bad = [b for b in boots if verdicts.get(b.variant)]
	for b in bad:
		out += _wrap(f'UNEXPECTED: {b.variant}: '
			     + '; '.join(p.text for p in verdicts[b.variant]))
	if bad:
		out.append('')
	out.append(f'make kcsan: {len(boots) - len(bad)} of {len(boots)} boots as expected, in '
		   f'{int(seconds) // 60}m{int(seconds) % 60}s')
	return out


def _wrap(text: str) -> List[str]:
	return textwrap.wrap(text, 76, break_on_hyphens=False, break_long_words=False)


def kcsan_boot_line(b: KcsanBoot, why: Sequence[KcsanProblem], n: int, of: int, log: str) -> str:
	"""A boot as it ends: its reports by pair, whether as expected, why not."""
	pairs = pair_counts([b])
	seen = ', '.join(f'{" / ".join(p)} x{c[b.variant]}' for p, c in sorted(pairs.items()))
	line = (f'[{"FAILED" if why else "PASSED"}] {n}/{of} make kcsan {b.variant}: '
		f'{len(b.races)} KCSAN reports{": " + seen if seen else ""}; '
		f'{"UNEXPECTED" if why else "as expected"} ({b.seconds:.0f}s)')
	if why:
		line += f': {"; ".join(p.text for p in why)}; log {log}'
	return line


def race_details(boots: Sequence[KcsanBoot]) -> List[str]:
	"""The first report of each distinct pair of each boot, whole."""
	out = []
	for b in boots:
		seen: Set[Tuple[str, ...]] = set()
		for r in b.races:
			if r.pair in seen:
				continue
			seen.add(r.pair)
			out += [f'--- {b.variant}: {r.bug} in {r.title}', *r.lines, '']
	return out


def kcsan_run(line: KernelLine) -> Run:
	"""The run of make kcsan's boots: as configs/runs.toml's smp2 (the
	selftest, then the real clients, 2 CPUs), of the kcsan flavour, each
	of VARIANTS; checked as every run is."""
	run = Run('kcsan', (line.name,), tuple((v, Expect()) for v in VARIANTS),
		  load_arch(KCSAN_ARCH), flavour=KCSAN_FLAVOUR, cpus=KCSAN_CPUS, clients=True)
	check_run('make kcsan', run)
	return run


def churn_argv(arch: Arch, headers: str, out: str) -> List[str]:
	"""The churn, static, for the guest, against the tree's uapi HEADERS."""
	return [arch.cross_compile + 'gcc', '-Wall', '-Werror', '-O2', '-static', '-isystem',
		headers, '-o', out, os.path.join(GUEST_DIR, 'churn.c')]


def guest_initramfs(tree: Tree, arch: Arch, opts: Options, src: str,
		    symbols: SeriesSymbols) -> str:
	"""The boot test's initramfs (harness_guest.build_initramfs()) with
	another archive after it (the kernel unpacks each in turn): /kcsan,
	the hook, the churn, and symbols, the variables and functions the
	series adds, one a line, whose addresses the hook reports."""
	first = harness_guest.build_initramfs(tree, arch, opts, src)
	root = os.path.join(tree.line_out, f'initramfs-{arch.name}-kcsan')
	shutil.rmtree(root, ignore_errors=True)
	os.makedirs(os.path.join(root, 'kcsan'))
	headers = os.path.join(tree.line_out, f'headers-{arch.name}', 'usr', 'include')
	harness_util.run(churn_argv(arch, headers, os.path.join(root, 'kcsan', 'churn')),
			 log=os.path.join(tree.logs, f'churn-{arch.name}.log'), what='the churn')
	shutil.copy(os.path.join(GUEST_DIR, 'hook'), os.path.join(root, 'kcsan', 'hook'))
	os.chmod(os.path.join(root, 'kcsan', 'hook'), 0o755)
	with open(os.path.join(root, 'kcsan', 'symbols'), 'w') as f:
		f.write(''.join(s + '\n' for s in sorted(symbols.variables | symbols.added)))
	cpio = os.path.join(tree.line_out, f'initramfs-{arch.name}-kcsan.cpio.gz')
	harness_util.run(['bash', '-o', 'pipefail', '-c',
			  f'cat {first} >{cpio} && cd {root} && find . | LC_ALL=C sort | '
			  f'cpio -o -H newc --quiet -R 0:0 | gzip -6n >>{cpio}'])
	return cpio


def kcsan(opts: Options, line: KernelLine, src: str) -> int:
	"""make kcsan on LINE (the newest): VARIANTS built in the kcsan
	flavour (or taken from the cache), booted, judged; the report in
	OUT/kcsan/ (report.md, its commit, reports.txt: each distinct report
	whole), which make results puts in RESULTS. SRC: the newest line's
	source (the guest's kselftest, kunit_parser). 0 if every boot is as
	expected."""
	start = time.monotonic()
	out = os.path.join(opts.out, 'kcsan')
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	commit = describe()
	run = kcsan_run(line)
	arch = run.arch
	boots = [Boot(line.name, run, v, Expect()) for v in VARIANTS]
	tree = Tree(line, opts)
	kernels = Kernels(tree, opts)
	with stage(f'{line.name}: tree'):
		tree.prepare()
	kernels.ensure(b.kernel for b in boots)
	symbols = series_symbols(series_patches(line.series_dir), tree.path)
	note('the series adds ' + ' '.join(sorted(symbols.added | symbols.variables)) +
	     '; changes ' + ' '.join(sorted(symbols.changed)))
	with stage(f'{line.name}: initramfs {arch.name} with /kcsan'):
		initrd = guest_initramfs(tree, arch, opts, src, symbols)
	ktap_tool = os.path.join(src, KUNIT_TOOL)
	timeout = opts.boot_timeout * KCSAN_TIMEOUT_SCALE
	accels: Dict[str, str] = {}
	done: List[KcsanBoot] = []
	args = {b.variant: harness_boot.prog_args(b, opts) for b in boots}
	logs = {}
	for n, b in enumerate(boots, 1):
		image = kernels.image(b.kernel)
		accel = harness_guest.accelerator(arch, image, initrd, tree.logs, accels)
		log = os.path.join(tree.logs, f'boot-{arch.name}-kcsan.{b.variant}.log')
		logs[b.variant] = log
		argv = harness_guest.qemu_argv(arch, image, initrd, log, run.cpus,
					       kernel_cmdline(run, args[b.variant]), accel)
		began = time.monotonic()
		with stage(f'{line.name}: kcsan boot {b.variant} (-smp {run.cpus}, timeout '
			   f'{timeout}s)', quiet=True):
			reported = harness_boot.boot_and_parse(argv, log, timeout, ktap_tool)
		with open(log, errors='replace') as f:
			lines = f.readlines()
		kb = KcsanBoot(b.variant, reported, tuple(parse_races(lines)),
			       tuple(other_reports(lines)), guest_facts(lines),
			       time.monotonic() - began)
		done.append(kb)
		why = judge_boot(kb, b, args[b.variant], symbols,
			    {r.pair for d in done if d.variant == 'base' for r in d.races})
		print(f'[{now()}] {kcsan_boot_line(kb, why, n, len(boots), log)}', flush=True)
	verdicts = judge_all(done, {b.variant: b for b in boots}, args, symbols)
	title = (f'Linux {line.name} ({tree.id}) on {arch.name}, QEMU -accel '
		 f'{accels.get(arch.name, "?")}, {run.cpus} vCPUs')
	lines_out = kcsan_report(title, done, verdicts, symbols, time.monotonic() - start)
	with open(os.path.join(out, 'report.md'), 'w') as f:
		f.write('\n'.join(lines_out) + '\n')
	with open(os.path.join(out, 'reports.txt'), 'w') as f:
		f.write('\n'.join(race_details(done)) + '\n')
	with open(os.path.join(out, 'commit'), 'w') as f:
		f.write(commit + '\n')
	print('\n' + '\n'.join(lines_out) + f'\n(the reports whole: {out}/reports.txt)',
	      flush=True)
	return 1 if any(verdicts.values()) else 0
