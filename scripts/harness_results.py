# SPDX-License-Identifier: GPL-2.0
"""Read a test boot's serial log and judge it against its run
(harness_tables.py prints and tabulates what this judged).

A serial log interleaves the kernel's printk lines ("[  1.234567] ...")
with what the guest's programs write, and a printk can land inside a
program's line. So the log is first split: the kernel's messages, and each
part init ran ("PART: start" ... "PART: exit STATUS"), a printk cut off
where it starts. The KTAP in each, the kernel's KUnit results and the
parts' kselftest results, is parsed by the tree's own parser,
tools/testing/kunit/kunit_parser.py; the project's checks are on top of
its Test objects.

The selftest runs through its kselftest install's run_kselftest.sh, whose
KTAP has one result for it, the selftest's own KTAP nested in it as "# "
lines (tests/init): parsed by kunit_parser, then the nested lines, one
"# " taken off, by kunit_parser again; so does proc_listeners, where the
run asks for it. The run with -n (a network namespace per test) and those
in a new pid and user namespace must SKIP the selftest, naming the
namespace. The figures the tables show are the harness's own listener's,
which init runs beside the plain run of the selftest (tests/init,
tests/cn_proc_listener.c): its part ("cn_proc-figures") must exit 0 having
printed "figures: KEY=VALUE ...".

A boot's checks are the KUnit cases the kernel ran ("kunit:CASE"), the
selftest's results ("NAME"), the selftest's result in each namespace
("netns:cn_proc_test", "pidns:", "userns:"), proc_listeners' results
("proc_listeners:NAME") and the real clients'
("client:NAME"); before each client's result the guest names the Debian
release that ran ("# cn_proc-staged: NAME PACKAGE VERSION SUITE"), which
the table shows beside the check.
Whatever the run expects, a boot fails that timed out; whose init refused
its parameters or did not start; whose part did not start, finish, report
its whole plan, or exit with the status its results call for; without
a result of every client, or with one but not the release that ran; whose
kernel reported a problem (panic, oops, BUG, WARNING, lockdep, atomic
sleep, UBSAN, KASAN, stall); or, with the series, ran no KUnit case.
Every field the guest reports is held against what the run asked: the
kernel command line (the kernel's, the selftest's arguments among it,
against what the boot gave), the CPUs brought up, the preemption model
(if the run names one), arm64's atomics, init's mode and whether it ran
the clients, the clocksource in use before and after the parts, each
kselftest part's install (the listener's), and no part the run does not
ask for.
"""

import dataclasses
import enum
import functools
import importlib
import json
import re
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from harness_config import CLIENT_CHECKS, KSELFTEST_INSTALLS, OWN_CLIENT_CHECKS, Boot

PRINTK = re.compile(r'\[\s*\d+\.\d+\]\s?')
PROBLEMS = re.compile(
	r'Kernel panic|Oops|BUG:|WARNING:|UBSAN:|KASAN:|'
	r'possible circular locking|possible recursive locking|'
	r'inconsistent lock state|suspicious RCU usage|'
	r'sleeping function called from invalid context|scheduling while atomic|'
	r'soft lockup|hard LOCKUP|rcu_.*stall|blocked for more than')
# "PART: start COMMAND" (what init ran), "PART: per-test log", "PART: exit STATUS".
PART = re.compile(r'(cn_proc-selftest(?:-netns|-pidns|-userns)?|cn_proc-clients|'
		  r'cn_proc-figures|cn_proc-proc_listeners): '
		  r'(?:(start)\b ?(.*)$|(per-test log)$|exit (\d+)$)')
# The checks of each part are named with its prefix.
PREFIX = {'cn_proc-selftest': '', 'cn_proc-clients': 'client:', 'cn_proc-selftest-netns': 'netns:',
	  'cn_proc-selftest-pidns': 'pidns:', 'cn_proc-selftest-userns': 'userns:',
	  'cn_proc-proc_listeners': 'proc_listeners:'}
# The parts run through run_kselftest.sh, the one test each runs, and what
# the selftest must SKIP for in each namespace.
KSELFTEST_NAME = 'selftests: connector: cn_proc_test'
KSELFTEST_PARTS = {'cn_proc-selftest': KSELFTEST_NAME, 'cn_proc-selftest-netns': KSELFTEST_NAME,
		   'cn_proc-selftest-pidns': KSELFTEST_NAME,
		   'cn_proc-selftest-userns': KSELFTEST_NAME,
		   'cn_proc-proc_listeners': 'selftests: connector: proc_listeners'}
SKIP_FOR = {'cn_proc-selftest-netns': 'network namespace',
	    'cn_proc-selftest-pidns': 'pid namespace',
	    'cn_proc-selftest-userns': 'user namespace'}
# The harness's listener's part and its line (tests/cn_proc_listener.c).
FIGURES_PART = 'cn_proc-figures'
FIGURES = re.compile(r'figures: ((?:[a-z_]+=\d+ ?)+)$')
SKIP_ALL = re.compile(r'1\.\.0 # SKIP ?(.*)$')
STAGED = re.compile(r'# cn_proc-staged: ([a-z0-9_]+) (\S+) (\S+) (\S+)$')


class Status(enum.Enum):
	"""A check's result; its value is what the table shows."""
	OK = 'ok'
	FAIL = 'FAIL'
	SKIP = 'skip'
	CRASHED = 'crashed'

	def __str__(self) -> str:
		return self.value


# kunit_parser's TestStatus, by name: any other (a crash, no tests, KTAP
# that did not parse) is CRASHED.
STATUS_OF = {'SUCCESS': Status.OK, 'FAILURE': Status.FAIL, 'SKIPPED': Status.SKIP}


@dataclasses.dataclass(frozen=True)
class KernelReport:
	"""A problem the kernel reported (WHAT), with the log around it."""
	what: str
	excerpt: Tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class InitMode:
	"""What init says it runs: the run's mode, and whether the clients."""
	run: str
	clients: bool


@dataclasses.dataclass(frozen=True)
class Runner:
	"""run_kselftest.sh's KTAP in a part: its plan, the names of its
	results, its result for the selftest, and the reason of the
	selftest's own SKIP of all its tests."""
	plan: Optional[int] = None
	results: Tuple[str, ...] = ()
	status: Optional[Status] = None
	skip: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Part:
	"""A part init ran: its command, exit status (None: it did not
	finish), its KTAP's plan and count of results (KTAP False: none that
	parses) and, run through run_kselftest.sh, its RUNNER."""
	command: str
	exit: Optional[int]
	plan: Optional[int] = None
	results: int = 0
	ktap: bool = True
	runner: Runner = Runner()


@dataclasses.dataclass(frozen=True)
class BootReport:
	"""What a boot's serial log reports: each check's status, the
	harness's listener's figures ("figures: KEY=VALUE ..."), the release
	each client check ran, the parts, the kernel's reports, what init
	said, and what the kernel says of itself; LOG and TIMED_OUT from
	parse_log()."""
	checks: Mapping[str, Status]
	figures: Mapping[str, str]
	releases: Mapping[str, str]
	parts: Mapping[str, Part]
	kernel_reports: Tuple[KernelReport, ...]
	init: Optional[InitMode]
	init_errors: Tuple[str, ...]
	clocksources: Tuple[str, ...]
	kunit_errors: Tuple[str, ...]
	atomics: Optional[str]
	preempt: Optional[str]
	cpus: Optional[int]
	cmdline: Optional[str]
	log: str = ''
	timed_out: bool = False


@dataclasses.dataclass
class PartLog:
	"""What a part wrote to the log: its lines, those of its per-test
	log, and its exit status, once it finished."""
	command: str
	lines: List[str] = dataclasses.field(default_factory=list)
	log: List[str] = dataclasses.field(default_factory=list)
	exit: Optional[int] = None


@functools.cache
def kunit_parser(kunit_tool: str) -> Any:
	"""kunit_parser of a tree's tools/testing/kunit, loaded once, its
	printer silenced: loaded from a tree, so untyped here."""
	sys.path.insert(0, kunit_tool)
	parser: Any = importlib.import_module('kunit_parser')
	parser.null = importlib.import_module('kunit_printer').null_printer
	return parser


def _ktap(lines: Sequence[str], kunit_tool: str) -> Any:
	parser = kunit_parser(kunit_tool)
	return parser.parse_run_tests(lines, parser.null)


def status(test: Any) -> Status:
	"""A kunit_parser Test's status."""
	return STATUS_OF.get(test.status.name, Status.CRASHED)


def split_log(lines: Sequence[str]) -> Tuple[List[str], List[str], Dict[str, PartLog],
					     List[KernelReport]]:
	"""The kernel's messages, init's lines, each part's lines, and the
	kernel's problem reports (with the log around them)."""
	kernel: List[str] = []
	init: List[str] = []
	parts: Dict[str, PartLog] = {}
	reports: List[KernelReport] = []
	part, where = None, 'lines'
	for i, raw in enumerate(lines):
		line = raw.rstrip('\r\n')
		k = PRINTK.search(line)
		if k and PROBLEMS.search(line[k.end():]) and len(reports) < 5:
			excerpt = tuple(l.rstrip() for l in lines[max(0, i - 3):i + 15])
			reports.append(KernelReport(line[k.end():].strip(), excerpt))
		if k and k.start() == 0:
			kernel.append(line[k.end():])
			continue
		if k:
			line = line[:k.start()]
		m = PART.match(line)
		if m:
			if m.group(2):
				part = m.group(1)
				parts[part] = PartLog(m.group(3))
				where = 'lines'
			elif m.group(4) and m.group(1) == part:
				where = 'log'
			elif m.group(1) in parts:
				parts[m.group(1)].exit = int(m.group(5))
				part = None
			continue
		if line.startswith('cn_proc-init: '):
			init.append(line[len('cn_proc-init: '):])
		elif part:
			(parts[part].log if where == 'log' else parts[part].lines).append(line)
	return kernel, init, parts, reports


def parse(lines: Sequence[str], kunit_tool: str) -> BootReport:
	"""One boot's report, its KTAP read by KUNIT_TOOL's kunit_parser."""
	kernel, init_lines, part_logs, kernel_reports = split_log(lines)
	cpus, cmdline, atomics, preempt = kernel_facts(kernel)
	checks: Dict[str, Status] = {}
	kunit_errors = kunit_results(kernel, kunit_tool, checks)
	init, init_errors, clocksources = init_facts(init_lines)
	figures: Dict[str, str] = {}
	releases: Dict[str, str] = {}
	parts = {name: read_part(name, p, kunit_tool, checks, figures, releases)
		 for name, p in part_logs.items()}
	return BootReport(checks, figures, releases, parts, tuple(kernel_reports), init,
			  tuple(init_errors), tuple(clocksources), tuple(kunit_errors), atomics,
			  preempt, cpus, cmdline)


def kernel_facts(kernel: Sequence[str]) -> Tuple[Optional[int], Optional[str], Optional[str],
						 Optional[str]]:
	"""What the kernel's messages say of it: the CPUs brought up, its
	command line, arm64's atomics, the preemption model."""
	cpus: Optional[int] = None
	cmdline: Optional[str] = None
	atomics: Optional[str] = None
	preempt: Optional[str] = None
	for msg in kernel:
		m = re.match(r'smp: Brought up \d+ nodes?, (\d+) CPUs?$', msg)
		if m:
			cpus = int(m.group(1))
		if msg.startswith('Kernel command line: '):
			cmdline = msg[len('Kernel command line: '):].strip()
		# arm64's atomics: LL/SC unless LSE was detected by the time the
		# system-wide alternatives (which make the choice) apply.
		if msg.startswith('alternatives: applying system-wide alternatives'):
			atomics = atomics or 'llsc'
		elif msg.startswith('CPU features: detected: LSE atomic instructions'):
			atomics = 'lse'
		m = re.match(r'Dynamic Preempt: (\S+)', msg)
		if m:
			preempt = m.group(1)
	return cpus, cmdline, atomics, preempt


def kunit_results(kernel: Sequence[str], kunit_tool: str, checks: Dict[str, Status]) -> List[str]:
	"""The kernel's KUnit cases into CHECKS ("kunit:CASE"); a case that
	did not report, as an error."""
	errors = []
	for suite in _ktap(kernel, kunit_tool).subtests:
		for case in suite.subtests:
			if case.name:
				checks['kunit:' + case.name] = status(case)
			else:
				errors.append(f'suite {suite.name}: a case did not report')
	return errors


def init_facts(init_lines: Sequence[str]) -> Tuple[Optional[InitMode], List[str], List[str]]:
	"""What init said: its mode, its errors, the clocksources it saw."""
	init = None
	errors = []
	clocksources = []
	for l in init_lines:
		if l.startswith('error: '):
			errors.append(l[len('error: '):])
		m = re.match(r'run=(\S+) clients=(\d)$', l)
		if m:
			init = InitMode(m.group(1), m.group(2) == '1')
		m = re.match(r'clocksource=(\S*)$', l)
		if m:
			clocksources.append(m.group(1))
	return init, errors, clocksources


def read_part(name: str, p: PartLog, kunit_tool: str, checks: Dict[str, Status],
	      figures: Dict[str, str], releases: Dict[str, str]) -> Part:
	"""Part NAME as its log P says; its checks, the listener's figures and
	the releases the clients ran into CHECKS, FIGURES and RELEASES."""
	runner = Runner()
	part_lines = p.lines
	if name in KSELFTEST_PARTS:
		runner, part_lines = kselftest_part(p, kunit_tool, KSELFTEST_PARTS[name])
	part = Part(p.command, p.exit, runner=runner)
	for l in part_lines:
		m = STAGED.match(l)
		if m and name == 'cn_proc-clients':
			releases['client:' + m.group(1)] = ' '.join(m.group(2, 3, 4))
		m = FIGURES.match(l)
		if m and name == FIGURES_PART:
			for kv in m.group(1).split():
				key, _, val = kv.partition('=')
				figures[key] = val
	if name not in PREFIX:
		return part
	if name in SKIP_FOR:
		if runner.status is not None:
			checks[PREFIX[name] + 'cn_proc_test'] = runner.status
		return part
	test = _ktap(part_lines, kunit_tool)
	ktap = test.status.name != 'FAILURE_TO_PARSE_TESTS'
	results = 0
	for t in test.subtests:
		if t.name:
			results += 1
			checks[PREFIX[name] + t.name] = status(t)
	plan = test.expected_count if ktap else None
	return dataclasses.replace(part, plan=plan, results=results, ktap=ktap)


def kselftest_part(p: PartLog, kunit_tool: str, test: str) -> Tuple[Runner, List[str]]:
	"""run_kselftest.sh's KTAP: its plan and its result for TEST; the
	test's own lines, nested in its result's log (and in the per-test log
	of a run with -p), one "# " taken off."""
	runner = _ktap(p.lines, kunit_tool)
	result = None
	nested = []
	for t in runner.subtests:
		if t.name and t.name.strip() == test:
			result = status(t)
			nested = t.log
	nested = [l[2:] if l.startswith('# ') else l for l in nested + p.log]
	skip = None
	for l in nested:
		m = SKIP_ALL.match(l)
		if m:
			skip = m.group(1)
	names = tuple(t.name.strip() for t in runner.subtests if t.name)
	return Runner(runner.expected_count, names, result, skip), nested


@dataclasses.dataclass(frozen=True)
class Problem:
	"""One reason a boot did not end as its run expects: what KIND of
	reason it is (one of KINDS), the check, part or setting it is ABOUT
	(which the tests read), and the TEXT the report prints."""
	kind: str
	about: str
	text: str

	def __post_init__(self) -> None:
		assert self.kind in KINDS, self.kind

	def __str__(self) -> str:
		return self.text


KINDS = ('timed_out', 'kernel_report', 'init_error', 'kunit_error', 'no_kunit', 'cmdline', 'cpus',
	 'init_missing', 'init_mode', 'init_clients', 'part_unexpected', 'listener', 'clocksource',
	 'preempt', 'atomics', 'part_missing', 'part_unfinished', 'plan', 'exit_status', 'release',
	 'client_missing', 'runner', 'runner_result', 'namespace_skip', 'unknown_check', 'failed',
	 'did_not_fail', 'undecided', 'figures')

# The selftest's checks of the order the series promises: it reports them
# SKIP on a kernel whose /proc/kallsyms does not list proc_event_stamps,
# the stamps' domain the series adds to cn_proc.c. Every kernel the boot
# test boots decides them: the series and its mutants have the domain, and
# base (whose cn_proc is the line's) runs the selftest with -a
# (harness_boot.prog_args()). A SKIP there is a probe that went wrong.
ORDER_CHECKS = ('ack_order', 'load_order', 'load_unique')


@dataclasses.dataclass(frozen=True)
class Judged:
	"""A boot, what its log reported, and why it did not end as its run
	expects (PROBLEMS empty if it did)."""
	boot: Boot
	report: BootReport
	problems: Tuple[Problem, ...]


def boot_problems(reported: BootReport) -> List[Problem]:
	"""What fails any boot, make bench's too: it hung, or its kernel
	reported a problem."""
	why: List[Problem] = []
	if reported.timed_out:
		why.append(Problem('timed_out', '', 'boot timed out'))
	why += [Problem('kernel_report', r.what, 'kernel: ' + r.what)
		for r in reported.kernel_reports]
	return why


def problems(reported: BootReport, boot: Boot, cmdline: Sequence[str]) -> List[Problem]:
	"""What makes a boot of a run fail whatever its expectation. CMDLINE:
	the kernel command line the boot gave (harness_boot.boot_cmdline()),
	the arguments of the program init runs among it."""
	run = boot.run
	why = boot_problems(reported)
	why += [Problem('init_error', e, 'init: ' + e) for e in reported.init_errors]
	why += [Problem('kunit_error', e, 'KUnit: ' + e) for e in reported.kunit_errors]
	# Every kernel has the series' KUnit cases: base has ktime_stamp_ns()'s.
	if not any(k.startswith('kunit:') for k in reported.checks):
		why.append(Problem('no_kunit', '', 'no KUnit results'))
	# What the boot asked, as the kernel received it: init's parameters,
	# the selftest's arguments among them, which nothing else reports.
	asked = ' '.join(cmdline)
	if reported.cmdline != asked:
		why.append(Problem('cmdline', reported.cmdline or '',
				   f'kernel command line: expected {asked}, the boot reported '
				   f'{reported.cmdline or "none"}'))
	if reported.cpus != run.cpus:
		why.append(Problem('cpus', str(reported.cpus or ''),
				   f'CPUs brought up: {reported.cpus or "not reported"}, '
				   f'the run asks for {run.cpus}'))
	init = reported.init
	if init is None:
		why.append(Problem('init_missing', '', 'init did not start'))
	else:
		if init.run != run.mode:
			why.append(Problem('init_mode', init.run,
					   f'init ran {init.run}, the run asks for {run.mode}'))
		if init.clients != run.clients:
			ran = 'ran' if init.clients else 'did not run'
			asks = 'for' if run.clients else 'for none of'
			why.append(Problem('init_clients', str(int(init.clients)),
					   f'init {ran} the clients, the run asks {asks} them'))
	clocksources = reported.clocksources
	if run.clocksource and (not clocksources or
				any(c != run.clocksource for c in clocksources)):
		why.append(Problem('clocksource', ', '.join(clocksources),
				   f'clocksource: {", ".join(clocksources) or "not reported"}, '
				   f'the run asks for {run.clocksource}'))
	if run.preempt and reported.preempt != run.preempt:
		why.append(Problem('preempt', reported.preempt or '',
				   f'preemption: {reported.preempt or "not reported"}, '
				   f'the run asks for {run.preempt}'))
	if run.arch.atomics or reported.atomics:
		if reported.atomics != run.atomics:
			why.append(Problem('atomics', reported.atomics or '',
					   f'atomics: {reported.atomics or "none detected"}, '
					   f'the run asks for {run.atomics or "none"}'))
	if init is not None:
		for part in run.parts():
			why += part_problems(reported, part, run.listener)
	# A part the run does not ask for: the selftest of a run of KUnit
	# alone, clients nobody asked for.
	why += [Problem('part_unexpected', p, f'{p} ran, the run does not ask for it')
		for p in reported.parts if p not in run.parts()]
	# Every client runs on every kernel of a run with the clients.
	if run.clients and 'cn_proc-clients' in reported.parts:
		why += [Problem('client_missing', 'client:' + c, f'client:{c}: no result')
			for c in CLIENT_CHECKS if 'client:' + c not in reported.checks]
	# What ran must be named: a client's result without its release (the
	# harness's own checks run none).
	why += [Problem('release', c, f'{c}: the guest did not name the release that ran')
		for c in reported.checks if c.startswith('client:') and c not in reported.releases
		and c[len('client:'):] not in OWN_CLIENT_CHECKS]
	return why


def part_problems(reported: BootReport, part: str, listener: int) -> List[Problem]:
	"""A part must have started and finished, reported its whole plan, and
	exited 0 when all passed, 1 when some failed (kselftest's codes). One
	run through run_kselftest.sh must have run the LISTENER's kselftest
	install, reported its test's result as its results call for; one in a
	namespace, a SKIP naming it. The harness's listener must have exited 0
	with its figures."""
	p = reported.parts.get(part)
	if p is None:
		return [Problem('part_missing', part, f'{part} did not start')]
	if p.exit is None:
		return [Problem('part_unfinished', part, f'{part} did not finish')]
	why: List[Problem] = []
	if part == FIGURES_PART:
		if not reported.figures:
			why.append(Problem('figures', part,
					   f'{part}: the listener printed no figures'))
		if p.exit != 0:
			why.append(Problem('exit_status', part, f'{part} exited {p.exit}'))
		return why
	prefix = PREFIX[part]
	runner = p.runner
	if part in KSELFTEST_PARTS:
		script = f'/{KSELFTEST_INSTALLS[listener]}/run_kselftest.sh'
		if script not in p.command.split():
			why.append(Problem('listener', part,
					   f'{part} ran {p.command or "nothing"}, '
					   f'not the {listener}-bit listener\'s {script}'))
		if runner.plan != 1 or runner.results != (KSELFTEST_PARTS[part],):
			why.append(Problem('runner', part,
					   f'{part}: run_kselftest.sh planned {runner.plan} and '
					   f'reported {", ".join(runner.results) or "nothing"}, '
					   f'not {KSELFTEST_PARTS[part]} alone'))
	if part in SKIP_FOR:
		if runner.status is not Status.SKIP or not runner.skip or \
		   SKIP_FOR[part] not in runner.skip:
			why.append(Problem('namespace_skip', part,
					   f'{part}: cn_proc_test did not SKIP for the '
					   f'{SKIP_FOR[part]} (result {runner.status or "none"}, '
					   f'reason: {runner.skip or "none"})'))
	elif not p.ktap or p.plan is None or p.results != p.plan:
		why.append(Problem('plan', part, f'{part} reported {p.results} results, planned '
				   f'{p.plan if p.plan is not None else "none"}'))
	mine = [k for k in reported.checks if (k.startswith(prefix) if prefix else ':' not in k)]
	failed = any(reported.checks[k] is not Status.OK and reported.checks[k] is not Status.SKIP
		     for k in mine)
	if part in KSELFTEST_PARTS and part not in SKIP_FOR and runner.status is not None and \
	   not why and runner.status is not (Status.FAIL if failed else Status.OK):
		why.append(Problem('runner_result', part,
				   f'{part}: run_kselftest.sh reported {KSELFTEST_PARTS[part]} '
				   f'{runner.status}, its checks '
				   f'{"some failed" if failed else "all passed"}'))
	if p.exit != (1 if failed or runner.status is Status.FAIL else 0):
		why.append(Problem('exit_status', part, f'{part} exited {p.exit}'))
	return why


def verdict(reported: BootReport, boot: Boot, cmdline: Sequence[str]) -> List[Problem]:
	"""Empty if the boot ended as its run expects, else why not.
	CMDLINE: as problems()."""
	why = problems(reported, boot, cmdline)
	must, may = set(boot.expect.fail), set(boot.expect.may_fail)
	got = {k for k, v in reported.checks.items() if v not in (Status.OK, Status.SKIP)}
	why += [Problem('unknown_check', c, f'{c}, expected, is no check of this boot')
		for c in sorted((must | may) - set(reported.checks))]
	why += [Problem('failed', c, f'{c} failed') for c in sorted(got - must - may)]
	why += [Problem('did_not_fail', c, f'{c} did not fail') for c in sorted(must - got)]
	why += [Problem('undecided', c, f'{c} skipped: the selftest did not decide it on a kernel '
			'with the stamps\' domain, or with -a')
		for c in ORDER_CHECKS if reported.checks.get(c) is Status.SKIP]
	return why


def parse_log(path: str, timed_out: bool, kunit_tool: str) -> BootReport:
	with open(path, errors='replace') as f:
		reported = parse(f.readlines(), kunit_tool)
	return dataclasses.replace(reported, log=path, timed_out=timed_out)


def _json(o: object) -> str:
	if isinstance(o, Status):
		return o.value
	raise TypeError(f'{o!r}: not JSON')


def save(reported: BootReport, why: Sequence[Problem], path: str) -> None:
	"""REPORTED as JSON, its verdict WHY in it; load() reads it back."""
	with open(path, 'w') as f:
		verdict = [dataclasses.asdict(w) for w in why]
		json.dump({**dataclasses.asdict(reported), 'verdict': verdict}, f, indent=1,
			  default=_json)
		f.write('\n')


def _part(d: Dict[str, Any]) -> Part:
	r = d['runner']
	status = None if r['status'] is None else Status(r['status'])
	runner = Runner(r['plan'], tuple(r['results']), status, r['skip'])
	return Part(d['command'], d['exit'], d['plan'], d['results'], d['ktap'], runner)


def load(path: str) -> Tuple[BootReport, List[Problem]]:
	"""What save() wrote: the report and its verdict."""
	with open(path) as f:
		d = json.load(f)
	why = [Problem(**w) for w in d.pop('verdict')]
	d.update(checks={k: Status(v) for k, v in d['checks'].items()},
		 parts={k: _part(p) for k, p in d['parts'].items()},
		 kernel_reports=tuple(KernelReport(r['what'], tuple(r['excerpt']))
				      for r in d['kernel_reports']),
		 init=None if d['init'] is None else InitMode(**d['init']))
	for k in ('init_errors', 'clocksources', 'kunit_errors'):
		d[k] = tuple(d[k])
	return BootReport(**d), why
