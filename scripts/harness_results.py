# SPDX-License-Identifier: GPL-2.0
"""Read a test boot's serial log, judge it against its run, tabulate a
line's boots.

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
"# " taken off, by kunit_parser again. The run with -n (a network
namespace per test) and those in a new pid and user namespace must SKIP
the selftest, naming the namespace.

A boot's checks are the KUnit cases the kernel ran ("kunit:CASE"), the
selftest's results ("NAME"), the selftest's result in each namespace
("netns:cn_proc_test", "pidns:", "userns:") and the real clients'
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

import functools
import importlib
import json
import re
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from harness_config import CLIENT_CHECKS, Boot, kernel_cmdline
import harness_guest

PRINTK = re.compile(r'\[\s*\d+\.\d+\]\s?')
PROBLEMS = re.compile(
	r'Kernel panic|Oops|BUG:|WARNING:|UBSAN:|KASAN:|'
	r'possible circular locking|possible recursive locking|'
	r'inconsistent lock state|suspicious RCU usage|'
	r'sleeping function called from invalid context|scheduling while atomic|'
	r'soft lockup|hard LOCKUP|rcu_.*stall|blocked for more than')
# "PART: start COMMAND" (what init ran), "PART: per-test log", "PART: exit STATUS".
PART = re.compile(r'(cn_proc-selftest(?:-netns|-pidns|-userns)?|cn_proc-clients|cn_proc-storm): '
		  r'(?:(start)\b ?(.*)$|(per-test log)$|exit (\d+)$)')
# The checks of each part are named with its prefix.
PREFIX = {'cn_proc-selftest': '', 'cn_proc-clients': 'client:', 'cn_proc-selftest-netns': 'netns:',
	  'cn_proc-selftest-pidns': 'pidns:', 'cn_proc-selftest-userns': 'userns:'}
# The parts run through run_kselftest.sh, and what the selftest must SKIP
# for in each namespace.
KSELFTEST_PARTS = ('cn_proc-selftest', 'cn_proc-selftest-netns', 'cn_proc-selftest-pidns',
		   'cn_proc-selftest-userns')
SKIP_FOR = {'cn_proc-selftest-netns': 'network namespace', 'cn_proc-selftest-pidns': 'pid namespace',
	    'cn_proc-selftest-userns': 'user namespace'}
KSELFTEST_NAME = 'selftests: connector: cn_proc_test'
SKIP_ALL = re.compile(r'1\.\.0 # SKIP ?(.*)$')
STAGED = re.compile(r'# cn_proc-staged: ([a-z0-9_]+) (\S+) (\S+) (\S+)$')

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


def _status(test: Any) -> str:
	"""A kunit_parser Test's status, by its TestStatus's name: any other
	(a crash, no tests, KTAP that did not parse) is 'crashed'."""
	return {'SUCCESS': 'ok', 'FAILURE': 'FAIL', 'SKIPPED': 'skip'}.get(test.status.name, 'crashed')


def split_log(lines: Sequence[str]) -> Tuple[List[str], List[str], Dict[str, dict], List[dict]]:
	"""The kernel's messages, init's lines, each part's lines, and the
	kernel's problem reports (with the log around them)."""
	kernel: List[str] = []
	init: List[str] = []
	parts: Dict[str, dict] = {}
	problems: List[dict] = []
	part, where = None, 'lines'
	for i, raw in enumerate(lines):
		line = raw.rstrip('\r\n')
		k = PRINTK.search(line)
		if k and PROBLEMS.search(line[k.end():]) and len(problems) < 5:
			problems.append({'what': line[k.end():].strip(),
					 'excerpt': [l.rstrip() for l in lines[max(0, i - 3):i + 15]]})
		if k and k.start() == 0:
			kernel.append(line[k.end():])
			continue
		if k:
			line = line[:k.start()]
		m = PART.match(line)
		if m:
			if m.group(2):
				part = m.group(1)
				parts[part] = {'lines': [], 'log': [], 'exit': None, 'command': m.group(3)}
				where = 'lines'
			elif m.group(4) and m.group(1) == part:
				where = 'log'
			elif m.group(1) in parts:
				parts[m.group(1)]['exit'] = int(m.group(5))
				part = None
			continue
		if line.startswith('cn_proc-init: '):
			init.append(line[len('cn_proc-init: '):])
		elif part:
			parts[part][where].append(line)
	return kernel, init, parts, problems


def parse(lines: Sequence[str], kunit_tool: str) -> dict:
	"""One boot's results, JSON-serialisable, its KTAP read by
	KUNIT_TOOL's kunit_parser."""
	kernel, init, parts, problems = split_log(lines)
	res: Dict[str, Any] = {'checks': {}, 'diag': {}, 'staged': {}, 'parts': {}, 'problems': problems, 'init': None,
	       'init_errors': [], 'clocksources': [], 'atomics': None, 'preempt': None, 'kunit_errors': [],
	       'cpus': None, 'cmdline': None}
	for msg in kernel:
		m = re.match(r'smp: Brought up \d+ nodes?, (\d+) CPUs?$', msg)
		if m:
			res['cpus'] = int(m.group(1))
		if msg.startswith('Kernel command line: '):
			res['cmdline'] = msg[len('Kernel command line: '):].strip()
		# arm64's atomics: LL/SC unless LSE was detected by the time the
		# system-wide alternatives (which make the choice) apply.
		if msg.startswith('alternatives: applying system-wide alternatives'):
			res['atomics'] = res['atomics'] or 'llsc'
		elif msg.startswith('CPU features: detected: LSE atomic instructions'):
			res['atomics'] = 'lse'
		m = re.match(r'Dynamic Preempt: (\S+)', msg)
		if m:
			res['preempt'] = m.group(1)
	main = _ktap(kernel, kunit_tool)
	for suite in main.subtests:
		for case in suite.subtests:
			if case.name:
				res['checks']['kunit:' + case.name] = _status(case)
			else:
				res['kunit_errors'].append(f'suite {suite.name}: a case did not report')
	for l in init:
		if l.startswith('error: '):
			res['init_errors'].append(l[len('error: '):])
		m = re.match(r'run=(\S+) clients=(\d)$', l)
		if m:
			res['init'] = {'run': m.group(1), 'clients': m.group(2) == '1'}
		m = re.match(r'clocksource=(\S*)$', l)
		if m:
			res['clocksources'].append(m.group(1))
	for name, p in parts.items():
		info = {'exit': p['exit'], 'plan': None, 'results': 0, 'ktap': True, 'command': p['command']}
		res['parts'][name] = info
		lines = kselftest_part(p, info, kunit_tool) if name in KSELFTEST_PARTS else p['lines']
		for l in lines:
			m = STAGED.match(l)
			if m and name == 'cn_proc-clients':
				res['staged']['client:' + m.group(1)] = ' '.join(m.group(2, 3, 4))
			if l.startswith('# cn_proc:'):
				for kv in l[len('# cn_proc:'):].split():
					key, _, val = kv.partition('=')
					res['diag'][key] = val
		if name not in PREFIX:
			continue
		if name in SKIP_FOR:
			if info['runner'] is not None:
				res['checks'][PREFIX[name] + 'cn_proc_test'] = info['runner']
			continue
		test = _ktap(lines, kunit_tool)
		info['ktap'] = test.status.name != 'FAILURE_TO_PARSE_TESTS'
		info['plan'] = test.expected_count if info['ktap'] else None
		for t in test.subtests:
			if t.name:
				info['results'] += 1
				res['checks'][PREFIX[name] + t.name] = _status(t)
	return res


def kselftest_part(p: dict, info: dict, kunit_tool: str) -> List[str]:
	"""run_kselftest.sh's KTAP: its plan and its result for the selftest
	into INFO; the selftest's own lines, nested in its result's log (and
	in the per-test log of a run with -p), one "# " taken off."""
	runner = _ktap(p['lines'], kunit_tool)
	info['runner_plan'] = runner.expected_count
	info['runner_results'] = [t.name.strip() for t in runner.subtests if t.name]
	info['runner'] = None
	info['skip'] = None
	nested = []
	for t in runner.subtests:
		if t.name and t.name.strip() == KSELFTEST_NAME:
			info['runner'] = _status(t)
			nested = t.log
	nested = [l[2:] if l.startswith('# ') else l for l in nested + p['log']]
	for l in nested:
		m = SKIP_ALL.match(l)
		if m:
			info['skip'] = m.group(1)
	return nested


class Why(str):
	"""One reason a boot did not end as its run expects: the line the
	report prints, with what kind of reason it is (KIND, one of KINDS) and
	the check, part or setting it is about (ABOUT), which the tests read."""
	kind: str
	about: str

	def __new__(cls, kind: str, about: str, text: str) -> 'Why':
		assert kind in KINDS, kind
		w = super().__new__(cls, text)
		w.kind, w.about = kind, about
		return w


KINDS = ('timed_out', 'kernel_report', 'init_error', 'kunit_error', 'no_kunit', 'cmdline', 'cpus', 'init_missing',
	 'init_mode', 'init_clients', 'part_unexpected', 'listener',
	 'clocksource', 'preempt', 'atomics', 'part_missing', 'part_unfinished', 'plan', 'exit_status', 'release',
	 'client_missing',
	 'runner', 'runner_result', 'namespace_skip', 'unknown_check', 'failed', 'did_not_fail', 'undecided')

# The selftest's checks of the order the series promises: it reports them
# SKIP on a kernel without ktime_stamp_ns(). Every kernel the boot test
# boots has it (base is the tree with the series' first patch), so each
# must be decided: a SKIP there is a probe that went wrong.
ORDER_CHECKS = ('ack_order', 'load_order', 'load_unique')


def boot_problems(res: dict) -> List[Why]:
	"""What fails any boot, make bench's too: it hung, or its kernel
	reported a problem."""
	why = []
	if res.get('timed_out'):
		why.append(Why('timed_out', '', 'boot timed out'))
	why += [Why('kernel_report', p['what'], 'kernel: ' + p['what']) for p in res['problems']]
	return why


def problems(res: dict, boot: Boot, prog_args: Sequence[str]) -> List[Why]:
	"""What makes a boot of a run fail whatever its expectation. PROG_ARGS:
	the arguments the boot gave the program init runs (the selftest's
	load), part of the kernel command line it was given."""
	run = boot.run
	why = boot_problems(res)
	why += [Why('init_error', e, 'init: ' + e) for e in res['init_errors']]
	why += [Why('kunit_error', e, 'KUnit: ' + e) for e in res['kunit_errors']]
	# Every kernel has the series' KUnit cases: base has its first patch.
	if not any(k.startswith('kunit:') for k in res['checks']):
		why.append(Why('no_kunit', '', 'no KUnit results'))
	# What the boot asked, as the kernel received it: init's parameters,
	# the selftest's arguments among them, which nothing else reports.
	asked = ' '.join(kernel_cmdline(run, prog_args))
	if res['cmdline'] != asked:
		why.append(Why('cmdline', res['cmdline'] or '',
			       f'kernel command line: {res["cmdline"] or "not reported"}, the boot gave {asked}'))
	if res['cpus'] != run.cpus:
		why.append(Why('cpus', str(res['cpus'] or ''),
			       f'CPUs brought up: {res["cpus"] or "not reported"}, the run asks for {run.cpus}'))
	if res['init'] is None:
		why.append(Why('init_missing', '', 'init did not start'))
	else:
		if res['init']['run'] != run.mode:
			why.append(Why('init_mode', res['init']['run'],
				       f'init ran {res["init"]["run"]}, the run asks for {run.mode}'))
		if res['init']['clients'] != run.clients:
			why.append(Why('init_clients', str(int(res['init']['clients'])),
				       f'init {"ran" if res["init"]["clients"] else "did not run"} the clients, '
				       f'the run asks {"for" if run.clients else "for none of"} them'))
	if run.clocksource and (not res['clocksources'] or
				any(c != run.clocksource for c in res['clocksources'])):
		why.append(Why('clocksource', ', '.join(res['clocksources']),
			       f'clocksource: {", ".join(res["clocksources"]) or "not reported"}, '
			       f'the run asks for {run.clocksource}'))
	if run.preempt and res['preempt'] != run.preempt:
		why.append(Why('preempt', res['preempt'] or '',
			       f'preemption: {res["preempt"] or "not reported"}, the run asks for {run.preempt}'))
	if run.arch.atomics or res['atomics']:
		if res['atomics'] != run.atomics:
			why.append(Why('atomics', res['atomics'] or '',
				       f'atomics: {res["atomics"] or "none detected"}, the run asks for {run.atomics or "none"}'))
	if res['init'] is not None:
		for part in run.parts():
			why += part_problems(res, part, run.listener)
	# A part the run does not ask for: the selftest of a run of KUnit
	# alone, clients nobody asked for.
	why += [Why('part_unexpected', p, f'{p} ran, the run does not ask for it')
		for p in res['parts'] if p not in run.parts()]
	# Every client runs on every kernel of a run with the clients.
	if run.clients and 'cn_proc-clients' in res['parts']:
		why += [Why('client_missing', 'client:' + c, f'client:{c}: no result')
			for c in CLIENT_CHECKS if 'client:' + c not in res['checks']]
	# What ran must be named: a client's result without its release.
	why += [Why('release', c, f'{c}: the guest did not name the release that ran')
		for c in res['checks'] if c.startswith('client:') and c not in res.get('staged', {})]
	return why


def part_problems(res: dict, part: str, listener: int) -> List[Why]:
	"""A part must have started and finished, reported its whole plan, and
	exited 0 when all passed, 1 when some failed (kselftest's codes). One
	run through run_kselftest.sh must have run the LISTENER's kselftest
	install, reported the selftest's result as its results call for; one
	in a namespace, a SKIP naming it."""
	info = res['parts'].get(part)
	if info is None:
		return [Why('part_missing', part, f'{part} did not start')]
	if info['exit'] is None:
		return [Why('part_unfinished', part, f'{part} did not finish')]
	why = []
	prefix = PREFIX[part]
	if part in KSELFTEST_PARTS:
		runner = f'/{harness_guest.INSTALLS[listener]}/run_kselftest.sh'
		if runner not in info['command'].split():
			why.append(Why('listener', part, f'{part} ran {info["command"] or "nothing"}, not the {listener}-bit '
				       f'listener\'s {runner}'))
		if info['runner_plan'] != 1 or info['runner_results'] != [KSELFTEST_NAME]:
			why.append(Why('runner', part, f'{part}: run_kselftest.sh planned {info["runner_plan"]} and reported '
				       f'{", ".join(info["runner_results"]) or "nothing"}, not {KSELFTEST_NAME} alone'))
	if part in SKIP_FOR:
		if info['runner'] != 'skip' or not info['skip'] or SKIP_FOR[part] not in info['skip']:
			why.append(Why('namespace_skip', part, f'{part}: cn_proc_test did not SKIP for the {SKIP_FOR[part]} '
				       f'(result {info["runner"] or "none"}, reason: {info["skip"] or "none"})'))
	elif not info['ktap'] or info['plan'] is None or info['results'] != info['plan']:
		why.append(Why('plan', part, f'{part} reported {info["results"]} results, planned '
			       f'{info["plan"] if info["plan"] is not None else "none"}'))
	mine = [k for k in res['checks'] if (k.startswith(prefix) if prefix else ':' not in k)]
	failed = any(res['checks'][k] != 'ok' and res['checks'][k] != 'skip' for k in mine)
	if part == 'cn_proc-selftest' and info['runner'] is not None and not why and \
	   info['runner'] != ('FAIL' if failed else 'ok'):
		why.append(Why('runner_result', part, f'{part}: run_kselftest.sh reported cn_proc_test {info["runner"]}, '
			       f'its checks {"some failed" if failed else "all passed"}'))
	if info['exit'] != (1 if failed or info.get('runner') == 'FAIL' else 0):
		why.append(Why('exit_status', part, f'{part} exited {info["exit"]}'))
	return why


def verdict(res: dict, boot: Boot, prog_args: Sequence[str]) -> List[Why]:
	"""Empty if the boot ended as its run expects, else why not.
	PROG_ARGS: as problems()."""
	why = problems(res, boot, prog_args)
	must, may = set(boot.expect.fail), set(boot.expect.may_fail)
	got = {k for k, v in res['checks'].items() if v not in ('ok', 'skip')}
	why += [Why('unknown_check', c, f'{c}, expected, is no check of this boot')
		for c in sorted((must | may) - set(res['checks']))]
	why += [Why('failed', c, f'{c} failed') for c in sorted(got - must - may)]
	why += [Why('did_not_fail', c, f'{c} did not fail') for c in sorted(must - got)]
	why += [Why('undecided', c, f'{c} skipped: the selftest did not decide it on a kernel with ktime_stamp_ns()')
		for c in ORDER_CHECKS if res['checks'].get(c) == 'skip']
	return why


def parse_log(path: str, timed_out: bool, kunit_tool: str) -> dict:
	with open(path, errors='replace') as f:
		res = parse(f.readlines(), kunit_tool)
	res['log'] = path
	res['timed_out'] = timed_out
	return res


def save(res: dict, path: str) -> None:
	with open(path, 'w') as f:
		json.dump(res, f, indent=1)
		f.write('\n')


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


def _check_cell(name: str) -> Callable[[dict], Optional[str]]:
	"""A table cell: a judged boot's result of check NAME."""
	return lambda j: None if j['res']['checks'].get(name) is None else str(j['res']['checks'][name])


def _figure_cell(key: str) -> Callable[[dict], Optional[str]]:
	"""A table cell: a judged boot's figure KEY."""
	return lambda j: _figure(j['res'], key)


def _figure(res: dict, key: str) -> Optional[str]:
	val = res['diag'].get(key)
	if val is not None and key == 'max_inversion_ns' and val.isdigit():
		return f'{int(val) / 1000:.0f}'
	return None if val is None else str(val)


def table(judged: Sequence[dict]) -> List[str]:
	"""Markdown: a column per run, each cell "base / patched" (or the one
	kernel the run boots), a row per check, then the figures. JUDGED:
	{'boot': Boot, 'res': dict, 'why': [...]}."""
	runs: Dict[str, Dict[str, dict]] = {}
	for j in judged:
		runs.setdefault(j['boot'].run.name, {})[j['boot'].variant] = j
	order, heads = [], []
	for run, kernels in runs.items():
		if set(kernels) == {'base', 'patched'}:
			order.append((run, ['base', 'patched']))
			heads.append(run)
		else:
			order.append((run, list(kernels)))
			heads.append(f'{run} ({"/".join(kernels)})')
	names = list(dict.fromkeys(k for j in judged for k in j['res']['checks']))
	names.sort(key=lambda k: (k.startswith('kunit:'), k.startswith('client:')))

	def row(label: str, get: Callable[[dict], Optional[str]]) -> List[str]:
		cells = []
		for run, variants in order:
			vals = [get(runs[run][v]) for v in variants]
			cells.append(' / '.join(v if v is not None else '-' for v in vals))
		return [label] + cells

	rows = [['check (base / patched)'] + heads]
	for n in names:
		if all(j['res']['checks'].get(n) == 'skip' for j in judged):
			continue
		label = 'KUnit ' + n[6:] if n.startswith('kunit:') else n
		# A client's row names the release that ran (every boot's).
		releases = list(dict.fromkeys(j['res'].get('staged', {}).get(n) for j in judged if n in j['res']['checks']))
		if n.startswith('client:') and releases and None not in releases:
			label += f' ({"; ".join(releases)})'
		rows.append(row(label, _check_cell(n)))
	for label, key in FIGURES:
		rows.append(row(label, _figure_cell(key)))
	if any(j['res']['clocksources'] for j in judged):
		rows.append(row('clocksource', lambda j: '/'.join(dict.fromkeys(j['res']['clocksources'])) or None))
	if any(j['res']['atomics'] for j in judged):
		rows.append(row('atomics', lambda j: None if j['res']['atomics'] is None else str(j['res']['atomics'])))
	rows.append(row('kernel reports', lambda j: str(len(j['res']['problems']))))
	rows.append(row('as expected', lambda j: 'no' if j['why'] else 'yes'))
	widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
	out = []
	for i, r in enumerate(rows):
		out.append('| ' + ' | '.join(c.ljust(w) for c, w in zip(r, widths)) + ' |')
		if i == 0:
			out.append('|' + '|'.join('-' * (w + 2) for w in widths) + '|')
	return out


# Under each table: what base and patched are.
WHAT_EACH_KERNEL_IS = ("base: the tree with the series' first patch (ktime_stamp_ns(), called by nothing; "
		       "cn_proc as in the pristine tree); patched: the whole series.")


def report(title: str, judged: Sequence[dict]) -> List[str]:
	"""The table, every boot that did not end as expected and why, and the
	count."""
	out = [f'### {title}', ''] + table(judged) + ['', WHAT_EACH_KERNEL_IS, '']
	bad = [j for j in judged if j['why']]
	for j in bad:
		out.append(f'UNEXPECTED: {j["boot"].run.name} {j["boot"].variant}: {"; ".join(j["why"])}')
		for p in j['res']['problems'][:1]:
			out += ['    | ' + l for l in p['excerpt']]
	out.append(f'{title}: {len(judged) - len(bad)} of {len(judged)} boots as expected')
	return out


# "### Linux 6.12 (linux-source-6.12 6.12.118-1~deb12u1) on x86_64, ..."
TABLE_TITLE = re.compile(r'^#+ Linux (\S+) \(([^)]*)\) on ', re.M)


def kernels_tested(tables: Sequence[str]) -> str:
	"""One line naming the kernel each line's tables were made on, from
	their titles (the tree's id: the Debian source package and its
	version, or KSRC's path): "Kernels tested: Linux 7.3.4
	(linux-source-7.3 7.3.4-1~bpo13+1), ..."; '' if no table has one."""
	seen: Dict[str, str] = {}
	for t in tables:
		for name, tree in TABLE_TITLE.findall(t):
			m = re.fullmatch(r'\S+ (?:\d+:)?(\d[\w.]*?)(?:-[\w.~+]+)?', tree)
			seen.setdefault(name, f'Linux {m.group(1) if m else name} ({tree})')
	return 'Kernels tested: ' + ', '.join(seen.values()) + '.' if seen else ''
