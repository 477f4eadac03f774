# SPDX-License-Identifier: GPL-2.0
"""What the harness is asked to do, as typed data validated once, before
anything is fetched or built:

  Options     the options of one command (harness.py's flags)
  KernelLine  a kernel line of configs/lines.toml: its Debian package,
              its series, its static checks
  Arch        an architecture, configs/arch/NAME.py (the type is
              harness_arch.py's; cf. kunit_tool's qemu_configs): its
              kbuild ARCH, kconfig, QEMU and guest
  Run         a run of configs/runs.toml: what its boots boot (line,
              architecture, CPUs, kernel arguments, what init runs) and
              what each kernel (base, patched, a mutant) must show
  Boot        one boot: a run's kernel on one line

Every rule about these (defaults, syntax, what goes with what) is here.
"""

import argparse
import dataclasses
import functools
import os
import re
import tomllib
import types
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from harness_arch import Arch, Kernel
from harness_util import TOP, HarnessError, file_text

CONFIGS = os.path.join(TOP, 'configs')
# Where lines.toml and runs.toml are: configs/ (the tests have their own).
LINES_AND_RUNS_DIR = CONFIGS
MUTANTS = os.path.join(TOP, 'tests', 'mutants')


# Architectures ----------------------------------------------------------

DEFAULT_ARCH = 'x86_64'


def load_arch(name: str) -> Arch:
	"""configs/arch/NAME.py's Arch, checked; the file is executed once a
	process (for each content it has), every caller sharing its Arch."""
	path = os.path.join(CONFIGS, 'arch', name + '.py')
	if not re.fullmatch(r'[a-z0-9_]+', name) or not os.path.isfile(path):
		raise HarnessError(f'no architecture {name}: no configs/arch/{name}.py')
	return _arch_of(name, path, file_text(path))


@functools.cache
def _arch_of(name: str, path: str, text: str) -> Arch:
	"""The Arch of configs/arch/NAME.py, PATH, whose content is TEXT."""
	mod = types.ModuleType(f'arch_{name}')
	mod.__file__ = path
	exec(compile(text, path, 'exec'), mod.__dict__)
	arch = getattr(mod, 'ARCH', None)
	if not isinstance(arch, Arch):
		raise HarnessError(f'configs/arch/{name}.py: no ARCH = Arch(...)')
	if arch.name != name:
		raise HarnessError(f'configs/arch/{name}.py describes {arch.name}')
	check_fragment(f'configs/arch/{name}.py: kconfig', arch.kconfig)
	guest_debs = ('debian_arch', 'debian_triplet', 'elf_machine', 'debian_suite')
	if arch.boots and not all(getattr(arch, f) for f in guest_debs):
		raise HarnessError(f'configs/arch/{name}.py: it boots, so its guest needs Debian '
				   f'packages: {", ".join(guest_debs)} must all be given')
	if arch.boots and not (arch.qemu_max_cpus and arch.clocksources):
		raise HarnessError(f'configs/arch/{name}.py: it boots, so its runs are held '
				   'against its qemu_max_cpus and clocksources: both must be given')
	if 32 in dict(arch.listeners) and not arch.compat_elf_machine:
		raise HarnessError(f'configs/arch/{name}.py: a 32-bit listener, whose build '
				   'the static checks hold against compat_elf_machine: it must be '
				   'given')
	return arch


# A line of a config fragment: an option set (a value as kunit_config's
# CONFIG_PATTERN reads it, which the olddefconfig check parses with) or
# unset, a comment (that does not start with an option, which would look
# unset and not be), blank.
FRAGMENT_LINE = re.compile(r'(CONFIG_\w+)=(\S+|".*")|# (CONFIG_\w+) is not set|'
			   r'#(?!\s*CONFIG_).*|\s*')


def check_fragment(where: str, text: str) -> Dict[str, str]:
	"""A config fragment merge_config.sh and the kconfig check read as
	written: each line an option, a comment or blank; its options,
	CONFIG_X -> value ('n' where unset). The harness's one reader of a
	fragment (a tree's kunit_config judges a .config)."""
	options = {}
	for i, l in enumerate(text.splitlines(), 1):
		m = FRAGMENT_LINE.fullmatch(l)
		if not m:
			raise HarnessError(f'{where}:{i}: {l!r} is not CONFIG_X=VALUE, '
					   '"# CONFIG_X is not set" or a comment')
		if m.group(1) or m.group(3):
			options[m.group(1) or m.group(3)] = m.group(2) or 'n'
	return options


def check_fragments() -> None:
	"""Every fragment of configs/ (configs/*.config, configs/flavours/)."""
	for d in (CONFIGS, os.path.join(CONFIGS, 'flavours')):
		for f in sorted(os.listdir(d)):
			if f.endswith('.config'):
				with open(os.path.join(d, f), errors='replace') as fh:
					where = os.path.relpath(os.path.join(d, f), TOP)
					check_fragment(where, fh.read())


def booting_arches() -> List[str]:
	names = sorted(f[:-3] for f in os.listdir(os.path.join(CONFIGS, 'arch'))
		       if f.endswith('.py'))
	return [n for n in names if load_arch(n).boots]


# Kernel lines -----------------------------------------------------------

def series_patches(series_dir: str) -> List[str]:
	"""The patches of the quilt series in SERIES_DIR, in order."""
	out = []
	with open(os.path.join(series_dir, 'series'), errors='replace') as f:
		for l in f.read().splitlines():
			l = l.split('#', 1)[0].strip()
			if l:
				out.append(os.path.join(series_dir, l.split()[0]))
	return out


# The file whose code the boot test's base keeps as the line ships it.
BASE_KEEPS = 'drivers/connector/cn_proc.c'


def base_patches(series_dir: str) -> List[str]:
	"""What the boot test's base kernel has of the series, in its order:
	the patches that leave cn_proc.c as the line ships it (the connector's
	helper and ktime_stamp_ns(), which nothing calls yet, and the
	selftests), so that base's cn_proc, its listener count and its stamps,
	are the line's, and its build shares the headers the series changes."""
	return [p for p in series_patches(series_dir)
		if f'\n+++ b/{BASE_KEEPS}\n' not in file_text(p)]


def kunit_cases(patches: Sequence[str]) -> List[str]:
	"""The KUnit cases PATCHES add (KUNIT_CASE*() lines they add)."""
	cases = []
	for p in patches:
		with open(p, errors='replace') as f:
			cases += re.findall(r'^\+\s*KUNIT_CASE\w*\((\w+)', f.read(), re.M)
	return cases


@dataclasses.dataclass(frozen=True)
class KernelLine:
	name: str			# "7.3"
	package: str			# Debian's linux-source-X
	suite: str
	series: str			# the quilt series' directory, from TOP
	static_checks: Tuple[Tuple[str, str], ...]	# (arch, flavour)

	@property
	def series_dir(self) -> str:
		return os.path.join(TOP, self.series)


def _load_toml(name: str) -> dict:
	path = os.path.join(LINES_AND_RUNS_DIR, name)
	where = os.path.relpath(path, TOP)
	try:
		with open(path, 'rb') as f:
			return tomllib.load(f)
	except tomllib.TOMLDecodeError as e:
		raise HarnessError(f'{where}: {e}') from None


def _keys(where: str, table: dict, allowed: Sequence[str], required: Sequence[str] = ()) -> None:
	unknown = sorted(set(table) - set(allowed))
	if unknown:
		raise HarnessError(f'{where}: unknown key {unknown[0]} '
				   f'(known: {", ".join(allowed)})')
	for k in required:
		if k not in table:
			raise HarnessError(f'{where}: no {k}')


def load_lines() -> List[KernelLine]:
	"""configs/lines.toml; the first line is the newest. The config
	fragments of configs/ are checked with it."""
	check_fragments()
	lines = []
	for i, t in enumerate(_load_toml('lines.toml').get('line', [])):
		where = f'configs/lines.toml: line {t.get("name", i + 1)}'
		_keys(where, t, ('name', 'package', 'suite', 'series', 'static_checks'),
		      ('name', 'package', 'suite', 'series'))
		checks = []
		for c in t.get('static_checks', []):
			_keys(where + ': static_checks', c, ('arch', 'flavour'),
			      ('arch', 'flavour'))
			load_arch(c['arch'])
			_flavour(where, c['flavour'])
			checks.append((c['arch'], c['flavour']))
		lines.append(KernelLine(t['name'], t['package'], t['suite'], t['series'],
					tuple(checks)))
	if not lines:
		raise HarnessError('configs/lines.toml has no line')
	return lines


def _flavour(where: str, name: str) -> str:
	if not re.fullmatch(r'[a-z0-9_-]+', name) or \
	   not os.path.isfile(os.path.join(CONFIGS, 'flavours', name + '.config')):
		raise HarnessError(f'{where}: no flavour {name} in configs/flavours/')
	return name


# Options ----------------------------------------------------------------
#
# Each option is one row of OPTIONS: harness.py's argparse flags (and so
# -h), the Makefile's variables (harness.py make-flags) and doc/harness.txt's
# option list are all made from it. A row's type, argparse's type=, checks
# and converts the value as given, raising ArgumentTypeError with what is
# accepted; what depends on configs/ as a whole (the lines, the runs) is
# checked by select_lines() and select_boots().

def positive(value: str) -> int:
	"""A count: a whole number, at least 1."""
	if not re.fullmatch(r'[1-9][0-9]*', value):
		raise argparse.ArgumentTypeError(f'{value}: a whole number, at least 1')
	return int(value)


def getopt_numbers(letters: str) -> Callable[[str], Tuple[str, ...]]:
	"""The type of the options of a program whose getopt() takes -L NUMBER
	for each of LETTERS, every NUMBER at least 1: the words, or
	ArgumentTypeError naming what the program would refuse."""
	def parse(value: str) -> Tuple[str, ...]:
		def refused(why: str) -> argparse.ArgumentTypeError:
			return argparse.ArgumentTypeError(f'"{value}": {why}')
		words = value.split()
		i = 0
		while i < len(words):
			m = re.fullmatch(r'-([a-z])(.*)', words[i])
			if not m or m.group(1) not in letters:
				raise refused(f'{words[i]} is not one of '
					      + ' '.join(f'-{l} N' for l in letters))
			num = m.group(2)
			if not num:
				i += 1
				if i == len(words):
					raise refused(f'-{m.group(1)} needs a number')
				num = words[i]
			if not re.fullmatch(r'[1-9][0-9]*', num):
				raise refused(f'-{m.group(1)} {num}: a whole number, at least 1')
			i += 1
		return tuple(words)
	return parse


def booting_arch(value: str) -> str:
	if value and value not in booting_arches():
		raise argparse.ArgumentTypeError(f'{value}: not an architecture the boot test '
						 'boots: ' + ' '.join(booting_arches()))
	return value


def switch(value: str) -> bool:
	"""A switch as kbuild's V= and C=: 1 is on, 0 off, nothing else."""
	if value not in ('0', '1'):
		raise argparse.ArgumentTypeError(f'{value}: 0 (off) or 1 (on)')
	return value == '1'


def words(value: str) -> Tuple[str, ...]:
	return tuple(value.split())


def out_dir(value: str) -> Optional[str]:
	"""An absolute path; '' is the default."""
	return os.path.realpath(value) if value else None


def http_url(value: str) -> str:
	if value and not re.fullmatch(r'https?://[^\s"\']+', value):
		raise argparse.ArgumentTypeError(f'{value}: not an http(s) URL')
	return value


def debian_suite(value: str) -> Optional[str]:
	"""A Debian suite's name; '' is the default."""
	if value and not re.fullmatch(r'[a-z][a-z0-9-]*', value):
		raise argparse.ArgumentTypeError(f'{value}: not a Debian suite name')
	return value or None


# The selftest's getopt() options.
SELFTEST_OPTIONS = 'wnt'	# workers, events, seconds


@dataclasses.dataclass(frozen=True)
class Options:
	"""The options of one command, typed and checked (OPTIONS, the flags
	of harness.py, made them). The defaults here are the only ones: -h and
	doc/harness.txt show them from these fields."""
	kernel: str = ''		# the lines; '' is the newest (check: all)
	ksrc: str = ''
	runs: Tuple[str, ...] = ()	# runs of configs/runs.toml; () is every one
	arch: str = ''			# the boots' architecture; '' is every one
	selftest_args: Tuple[str, ...] = ()
	out: str = os.path.join(TOP, 'out')
	jobs: int = os.cpu_count() or 1
	boot_timeout: int = 300
	debs_mirror: str = ''		# '' is the machine's apt mirror
	clients_suite: str = 'bookworm'
	# Words each mutant make mutation runs has in its what; () is every mutant.
	mutants: Tuple[str, ...] = ()
	no_cache: bool = False
	verbose: bool = False


@dataclasses.dataclass(frozen=True)
class Option:
	"""One option: the flag --NAME (_ as -) of harness.py, an Options
	field, and the make variable NAME in capitals."""
	name: str
	metavar: str			# '' for a switch, which takes no value
	# doc/harness.txt's VARIABLE=EXAMPLE; a function where configs/ gives it,
	# so that a line or an architecture is added there alone.
	example: Union[str, Callable[[], str]]
	help: str
	type: Callable[[str], Any] = str	# argparse's type=: the value checked and converted
	commands: Optional[Tuple[str, ...]] = None	# the commands that take it; None: every one
	but: Tuple[str, ...] = ()	# where COMMANDS is None, those that do not take it
	alias: str = ''			# another name of the flag and the variable
	make_variable: str = ''		# the variable, where not NAME in capitals
	# The default as -h and doc/harness.txt say it, where the field's is not that.
	shown_default: str = ''
	# Taken from make's command line only, never from the environment.
	command_line_only: bool = False
	# (command, help) where the option means something else to it.
	helps: Tuple[Tuple[str, str], ...] = ()

	def help_of(self, command: str) -> str:
		return dict(self.helps).get(command, self.help)

	@property
	def flag(self) -> str:
		return '--' + self.name.replace('_', '-')

	@property
	def shown_example(self) -> str:
		return self.example if isinstance(self.example, str) else self.example()

	@property
	def variable(self) -> str:
		return self.make_variable or self.name.upper()

	@property
	def flags(self) -> Tuple[str, ...]:
		"""--NAME, and the alias's flag."""
		return (self.flag, '--' + self.alias) if self.alias else (self.flag,)

	@property
	def variables(self) -> Tuple[str, ...]:
		"""The make variable, and the alias's: each of flags'."""
		return (self.variable, self.alias.upper()) if self.alias else (self.variable,)

	def taken_by(self, command: str) -> bool:
		if self.commands is not None:
			return command in self.commands
		return command not in self.but

	@property
	def default(self) -> str:
		"""The default as -h and doc/harness.txt say it, '' for none to say."""
		if self.shown_default:
			return self.shown_default
		value = getattr(Options(), self.name)
		if isinstance(value, bool):
			return ''
		return ' '.join(value) if isinstance(value, tuple) else str(value)


# make kcsan's boots (harness_kcsan.py) are slower than the boot test's (the
# instrumentation, the trace, the churn): their timeout is BOOT_TIMEOUT times
# this, as syzkaller scales its timeouts under emulation (Timeouts.Scale).
KCSAN_TIMEOUT_SCALE = 4
# The commands that take an option, where not every one does.
BOOTING_COMMANDS = ('boot-test', 'check', 'check-options')
# The commands that build with make -j, and those that stage the guest's clients.
JOBS_COMMANDS = BOOTING_COMMANDS + ('boot', 'static-checks', 'litmus', 'kunit', 'mutation', 'bench',
				    'kcsan')
CLIENTS_COMMANDS = BOOTING_COMMANDS + ('boot', 'bench', 'kcsan')
OPTIONS = (
	Option('kernel', 'LINES', lambda: '|'.join(l.name for l in load_lines()) + '|all',
	       'the kernel lines of configs/lines.toml, "7.3 6.1" or all; the newest by default '
	       '(check: all; with --ksrc, its version); bench takes one line', str.strip,
	       BOOTING_COMMANDS + ('static-checks', 'bench')),
	Option('ksrc', 'DIR', '/path/to/linux',
	       'your own kernel tree instead of the Debian package; copied, never modified; the '
	       'series whose base matches its version is used; if it is the newest line, '
	       'kunit_parser, the kselftest headers and build system come from it too; not '
	       "for the per-file diffs, which are of Debian's source",
	       but=('results', 'file-diffs', 'check-file-diffs'),
	       helps=(('mails', "your git tree (tip, net-next, mainline) of the newest line's "
		       'version or newer, whose HEAD the mails are based on; never modified'),)),
	Option('runs', 'RUNS', '"smp2 rt"',
	       'only these runs of configs/runs.toml, every run by default: each must be a run of '
	       'a chosen line, and each chosen line must keep at least one run (CONFIGS, its old '
	       'name, too)', words, BOOTING_COMMANDS, alias='configs'),
	Option('arch', 'ARCH',
	       lambda: '|'.join(sorted(booting_arches(), key=lambda a: a != DEFAULT_ARCH)),
	       'only the runs that boot this architecture (configs/arch/ARCH.py), with the same '
	       'rule; every one by default', booting_arch, BOOTING_COMMANDS,
	       command_line_only=True),
	Option('selftest_args', 'ARGS', '"-n 50000 -t 60"',
	       "the selftest's load: -w workers, -n events, -t seconds, each a number of at "
	       'least 1 (in the guest, KSELFTEST_CN_PROC_TEST_ARGS)',
	       getopt_numbers(SELFTEST_OPTIONS), BOOTING_COMMANDS + ('boot', 'parse', 'kcsan')),
	Option('out', 'DIR', '/path', "where trees, builds, logs and results go (O, kbuild's "
	       'name, too)', out_dir, alias='o', shown_default='out at the top of the tree'),
	Option('jobs', 'N', 'N',
	       "make -j for kernel builds; make -jN is JOBS=N (make's targets run one at a time)",
	       positive, JOBS_COMMANDS, shown_default='the number of CPUs'),
	Option('boot_timeout', 'SECONDS', '300',
	       'seconds before a boot counts as hung (make kcsan: '
	       f'{KCSAN_TIMEOUT_SCALE} times as many)', positive,
	       BOOTING_COMMANDS + ('boot', 'bench', 'kcsan')),
	Option('debs_mirror', 'URL', 'URL',
	       "the Debian mirror; the machine's apt mirror by default", http_url,
	       but=('results',)),
	Option('clients_suite', 'SUITE', 'bookworm',
	       "the Debian suite of keepalived, extrace and cgrulesengd (sid's keepalived and "
	       'cgrulesengd run beside them)', debian_suite, CLIENTS_COMMANDS),
	Option('mutants', 'WORDS', '"kunit cache"',
	       'only the mutants of tests/harness-mutants.toml whose what has each of these words '
	       "(in any case), as a change's own; every one by default", words, ('mutation',)),
	Option('no_cache', '', '1',
	       'use no entry of the cache: make every source tree, .config, kernel, check, '
	       'kunit.py run, herd7 and guest program again, each replacing its entry', switch,
	       but=('results',)),
	Option('verbose', '', '1',
	       'echo each command as it runs (OUT/logs/commands.log has them always)',
	       switch, make_variable='V', command_line_only=True),
)

# How the user gave each option (OPTIONS' name: its make variable or flag)
# where it was not as --NAME: what errors name (harness.main() sets it).
GIVEN_AS: Dict[str, str] = {}


def given(name: str, value: str) -> str:
	"""Option NAME with VALUE as the user gave it: KSRC=/x from make,
	--ksrc /x otherwise."""
	spelt = GIVEN_AS.get(name, '--' + name.replace('_', '-'))
	return f'{spelt}={value}' if spelt[0] != '-' else f'{spelt} {value}'



def select_lines(opts: Options, lines: List[KernelLine]) -> List[KernelLine]:
	"""The lines a command works on: --kernel (a list, or all; the newest
	by default), or the one whose version --ksrc's Makefile has."""
	names = [l.name for l in lines]
	want = opts.kernel
	if opts.ksrc:
		mk = os.path.join(opts.ksrc, 'Makefile')
		if not (os.path.isfile(mk) and os.path.isdir(os.path.join(opts.ksrc, 'kernel'))):
			raise HarnessError(f'{given("ksrc", opts.ksrc)} is not a kernel tree '
					   '(give the top directory of a Linux source tree)')
		with open(mk, errors='replace') as f:
			text = f.read()
		v = re.search(r'^VERSION = (\d+)', text, re.M)
		p = re.search(r'^PATCHLEVEL = (\d+)', text, re.M)
		version = f'{v.group(1) if v else "?"}.{p.group(1) if p else "?"}'
		if want and want != version:
			raise HarnessError(f'{given("ksrc", opts.ksrc)} is Linux {version}, '
					   f'not {given("kernel", want)}: give one of them, or '
					   f'{given("kernel", version)}')
		want = version
	if not want:
		want = names[0]
	chosen = names if want == 'all' else want.split()
	for n in chosen:
		if n not in names:
			ksrc = given("ksrc", opts.ksrc) + ", " if opts.ksrc else ""
			kernel = given('kernel', opts.kernel)
			raise HarnessError(f'no series for Linux {n} ({ksrc}{kernel}); '
					   f'lines: {" ".join(names)} or all')
	return [l for l in lines if l.name in chosen]


# Runs -------------------------------------------------------------------

# What init runs (tests/init's cnproc_run), and what it reports.
MODES = ('selftest', 'kunit')
PREEMPT_MODELS = ('none', 'voluntary', 'full', 'lazy')
# Kernel arguments the harness gives (console=, panic=, kunit.filter_glob=) or
# that a run names by field (clocksource=, preempt=, init's cnproc_*):
# kernel_cmdline() gives them all.
RESERVED_ARGS = ('console', 'panic', 'kunit.filter', 'kunit.filter_glob', 'clocksource', 'preempt')
CHECK = re.compile(r'(kunit:|client:|netns:|pidns:|userns:|proc_listeners:)?[a-z0-9_]+')
# The results the selftest (tools/testing/selftests/connector) and the real
# clients (tests/clients/run.sh) report, each once a boot: the checks a
# run can expect to fail, with the KUnit cases of the line's series.
SELFTEST_CHECKS = ('ack', 'ack_order', 'fork', 'exec', 'uid', 'gid', 'sid', 'ptrace_attach',
		   'ptrace_detach', 'comm', 'coredump', 'exit_code', 'exit_signal', 'causal_order',
		   'delta', 'load_order', 'load_unique')
CLIENT_CHECKS = ('keepalived', 'extrace', 'keepalived_sid', 'cgrulesengd', 'cgrulesengd_sid',
		 'extrace_killed', 'unbound_listener', 'proc_input_freed')
# The clients' checks that run no Debian program, only the harness's own
# (tests/cn_proc_request.c): they have no release to name.
OWN_CLIENT_CHECKS = ('unbound_listener', 'proc_input_freed')
# The guest's kselftest install of each listener (64- or 32-bit), a
# directory at its root.
KSELFTEST_INSTALLS = {64: 'kselftest', 32: 'kselftest32'}
# run_kselftest.sh's result for the selftest in each namespace the guest
# runs it in (each must SKIP).
NAMESPACE_CHECKS = ('netns:cn_proc_test', 'pidns:cn_proc_test', 'userns:cn_proc_test')
# The results of the collection's proc_listeners (the listener count), as
# proc_listeners:NAME, where a run asks for it.
PROC_LISTENERS_CHECKS = tuple(
	'proc_listeners:' + c for c in (
		'count_zero_at_start', 'listener_kept_after_nobody',
		*(f'{case}_as_{who}' for case in (
			'killed', 'closed_outside_group', 'listen_twice', 'ignore_twice',
			'unknown_op_then_listen', 'unknown_op_then_ignore')
		  for who in ('root', 'nobody'))))


@dataclasses.dataclass(frozen=True)
class Expect:
	"""What one kernel of a run must show: FAIL the checks that must fail,
	MAY_FAIL those that may; every other check must pass."""
	fail: Tuple[str, ...] = ()
	may_fail: Tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Run:
	name: str
	lines: Tuple[str, ...]
	kernels: Tuple[Tuple[str, Expect], ...]	# variant, what it must show
	arch: Arch
	flavour: str = 'default'
	cpus: int = 2
	cpu_model: Optional[str] = None	# QEMU's -cpu; software emulation
	mode: str = 'selftest'
	listener: int = 64
	clients: bool = False
	proc_listeners: bool = False	# the collection's proc_listeners too
	clocksource: Optional[str] = None
	preempt: Optional[str] = None
	atomics: Optional[str] = None
	kernel_args: Tuple[str, ...] = ()

	def parts(self) -> List[str]:
		"""The parts of a boot that must start, report and finish."""
		return ((['cn_proc-selftest', 'cn_proc-figures', 'cn_proc-selftest-netns',
			  'cn_proc-selftest-pidns', 'cn_proc-selftest-userns']
			 if self.mode == 'selftest' else [])
			+ (['cn_proc-clients'] if self.clients else [])
			+ (['cn_proc-proc_listeners'] if self.proc_listeners else []))


RUN_KEYS = [f.name for f in dataclasses.fields(Run)]

# The series' KUnit cases only: not time_test's date-range case, slow
# under emulation. By name, as the concurrent case is a slow one too
# (KUNIT_CASE_SLOW), which kunit.filter=speed>slow would leave out.
KUNIT_GLOB = 'time_test_cases.ktime_stamp_ns_*'


def harness_args(arch: Arch) -> List[str]:
	"""The kernel arguments of every boot: the serial console, no
	reboot on a panic, the series' KUnit cases."""
	return [f'console={arch.console}', 'panic=-1', f'kunit.filter_glob={KUNIT_GLOB}']


def kernel_cmdline(run: Run, prog_args: Sequence[str] = ()) -> List[str]:
	"""The kernel command line of a boot of RUN, the one place it is made
	(RESERVED_ARGS names what it gives): the harness's arguments, the
	run's fields, its kernel_args, init's parameters, and PROG_ARGS, the
	arguments of the program init runs (not kunit's)."""
	args = harness_args(run.arch)
	if run.clocksource:
		args.append(f'clocksource={run.clocksource}')
	if run.preempt:
		args.append(f'preempt={run.preempt}')
	args += run.kernel_args
	if run.mode != 'selftest':
		args.append(f'cnproc_run={run.mode}')
	if run.listener != 64:
		args.append(f'cnproc_listener={run.listener}')
	if run.clients:
		args.append('cnproc_clients=1')
	if run.proc_listeners:
		args.append('cnproc_proc_listeners=1')
	if prog_args and run.mode != 'kunit':
		args.append(f'cnproc_args="{" ".join(prog_args)}"')
	return args


def mutant_patch(name: str, out: str = '') -> Optional[str]:
	"""tests/mutants/NAME.patch, or one make bench generated in OUT."""
	for d in (MUTANTS, os.path.join(out, 'mutants') if out else None):
		if d and os.path.isfile(os.path.join(d, name + '.patch')):
			return os.path.join(d, name + '.patch')
	return None


def required_mutant_patch(name: str, out: str = '') -> str:
	"""mutant_patch() of a variant a run names, which parse_run() has
	found: its absence now is an error."""
	patch = mutant_patch(name, out)
	if patch is None:
		raise HarnessError(f'no mutant {name} (tests/mutants/{name}.patch)')
	return patch


def _expect(where: str, t: dict, run: dict) -> Expect:
	if not isinstance(t, dict):
		raise HarnessError(f'{where}: a table of fail and may_fail lists, not {t!r}')
	_keys(where, t, ('fail', 'may_fail'))
	e = Expect(tuple(t.get('fail', ())), tuple(t.get('may_fail', ())))
	for c in e.fail + e.may_fail:
		if not isinstance(c, str) or not CHECK.fullmatch(c):
			raise HarnessError(f'{where}: {c!r} is not a check '
					   '(NAME, kunit:CASE or client:NAME)')
		mode = run.get('mode', 'selftest')
		if c.startswith('client:') and not run.get('clients'):
			raise HarnessError(f'{where}: {c}: the run does not run the clients')
		if c.startswith('proc_listeners:') and not run.get('proc_listeners'):
			raise HarnessError(f'{where}: {c}: the run does not run proc_listeners')
		if ':' not in c and mode != 'selftest':
			raise HarnessError(f'{where}: {c}: a selftest check, '
					   f'but the run is mode {mode}')
	both = set(e.fail) & set(e.may_fail)
	if both:
		raise HarnessError(f'{where}: {sorted(both)[0]} both in fail and may_fail')
	return e


def parse_run(i: int, t: dict, lines: Sequence[str]) -> Run:
	where = f'configs/runs.toml: run {t.get("name", "#" + str(i + 1))}'
	_keys(where, t, RUN_KEYS, ('name', 'lines', 'kernels'))
	if not isinstance(t['name'], str) or not re.fullmatch(r'[a-z0-9][a-z0-9-]*', t['name']):
		raise HarnessError(f'{where}: name must be lower-case letters, digits and -')
	for l in t['lines']:
		if l not in lines:
			raise HarnessError(f'{where}: no line {l} in configs/lines.toml')
	try:
		arch = load_arch(t.get('arch', DEFAULT_ARCH))
	except HarnessError as e:
		raise HarnessError(f'{where}: {e}') from None
	if not arch.boots:
		raise HarnessError(f'{where}: {arch.name} does not boot '
				   f'(configs/arch/{arch.name}.py has no qemu)')
	_flavour(where, t.get('flavour', 'default'))
	cpus = t.get('cpus', 2)
	if not isinstance(cpus, int) or isinstance(cpus, bool) or cpus < 1:
		raise HarnessError(f'{where}: cpus {cpus!r} is not a number of CPUs')
	model = t.get('cpu_model')
	if model is not None and not re.fullmatch(r'[a-z0-9][a-z0-9.,=-]*', str(model)):
		raise HarnessError(f'{where}: cpu_model {model!r} is not a QEMU CPU model')
	mode = t.get('mode', 'selftest')
	if mode not in MODES:
		raise HarnessError(f'{where}: mode {mode!r} is not one of {", ".join(MODES)}')
	listener = t.get('listener', 64)
	if listener not in dict(arch.listeners):
		bits = ' and '.join(str(b) for b, _ in arch.listeners)
		raise HarnessError(f'{where}: listener {listener!r}: {arch.name} has the '
				   f'{bits}-bit listener')
	if t.get('clients') and not arch.clients:
		raise HarnessError(f'{where}: the real clients do not run on {arch.name}')
	if t.get('proc_listeners') and mode != 'selftest':
		raise HarnessError(f'{where}: proc_listeners runs with the selftest, '
				   f'not in mode {mode}')
	atomics = t.get('atomics')
	if not arch.atomics and atomics is not None:
		raise HarnessError(f'{where}: atomics {atomics!r}: '
				   f'{arch.name} has no choice of atomics')
	cs = t.get('clocksource')
	if cs is not None and not re.fullmatch(r'[a-z0-9_-]+', str(cs)):
		raise HarnessError(f'{where}: clocksource {cs!r} is not a clocksource name')
	preempt = t.get('preempt')
	if preempt is not None and preempt not in PREEMPT_MODELS:
		raise HarnessError(f'{where}: preempt {preempt!r} is not one of '
				   f'{", ".join(PREEMPT_MODELS)}')
	seen = set()
	for a in t.get('kernel_args', []):
		name = str(a).split('=', 1)[0]
		if not re.fullmatch(r'[a-z0-9_.-]+(=\S+)?', str(a)):
			raise HarnessError(f'{where}: kernel argument {a!r} '
					   'is not NAME or NAME=VALUE')
		if name in RESERVED_ARGS or name.startswith('cnproc_'):
			raise HarnessError(f'{where}: kernel argument {a}: '
					   f'{name}= is the harness\'s or a field of the run')
		if name in seen:
			raise HarnessError(f'{where}: kernel argument {name}= given twice')
		seen.add(name)
	kernels = []
	if not isinstance(t['kernels'], dict) or not t['kernels']:
		raise HarnessError(f'{where}: kernels: at least one of base, patched, a mutant')
	for v, expects in t['kernels'].items():
		if v not in ('base', 'patched') and not mutant_patch(v):
			raise HarnessError(f'{where}: kernel {v}: not base, patched or a mutant '
					   f'(tests/mutants/{v}.patch)')
		kernels.append((v, _expect(f'{where}: kernels.{v}', expects, t)))
	fields = {k: t[k] for k in RUN_KEYS if k in t}
	fields.update(lines=tuple(t['lines']), kernels=tuple(kernels), arch=arch,
		      kernel_args=tuple(t.get('kernel_args', ())))
	run = Run(**fields)
	check_run(where, run)
	return run


# The selftest's fragment, from TOP.
SELFTEST_CONFIG = 'tools/testing/selftests/connector/config'


def kernel_options(arch: Arch, flavour: str) -> Dict[str, str]:
	"""CONFIG_X -> value ('n' where unset) as the fragments of a kernel of
	ARCH and FLAVOUR that are known before a build set it, the last to
	name it winning, in the order harness_kernel.config_fragments() merges
	them; configure() refuses a .config that lost any of them."""
	texts = {'configs/common.config': file_text(os.path.join(CONFIGS, 'common.config')),
		 f'configs/arch/{arch.name}.py: kconfig': arch.kconfig,
		 SELFTEST_CONFIG: file_text(os.path.join(TOP, SELFTEST_CONFIG)),
		 f'configs/flavours/{flavour}.config':
			file_text(os.path.join(CONFIGS, 'flavours', flavour + '.config'))}
	options: Dict[str, str] = {}
	for where, text in texts.items():
		options.update(check_fragment(where, text))
	return options


def check_run(where: str, run: Run) -> None:
	"""RUN against what will boot it, its architecture's QEMU and kernel
	(of its flavour): a run they cannot honour is refused before any
	build, not booted as something it did not ask for."""
	arch = run.arch
	options = kernel_options(arch, run.flavour)
	# More CPUs than NR_CPUS boot, the rest left offline.
	nr_cpus = int(options.get('CONFIG_NR_CPUS', '1')) if options.get('CONFIG_SMP') == 'y' else 1
	if run.cpus > nr_cpus:
		raise HarnessError(f'{where}: cpus {run.cpus}: the {arch.name} {run.flavour} '
				   f'kernel has at most {nr_cpus} (CONFIG_NR_CPUS, CONFIG_SMP of '
				   f'configs/arch/{arch.name}.py and the fragments)')
	if run.cpus > arch.qemu_max_cpus:
		raise HarnessError(f'{where}: cpus {run.cpus}: QEMU\'s machine for {arch.name} '
				   f'takes at most {arch.qemu_max_cpus}')
	if run.clocksource is not None and run.clocksource not in arch.clocksources:
		raise HarnessError(f'{where}: clocksource {run.clocksource}: '
				   f'the {arch.name} kernel has {", ".join(arch.clocksources)}')
	models = dict(arch.cpu_models)
	if run.cpu_model is not None and run.cpu_model not in models:
		why = (f'{arch.name} runs name one of {", ".join(models)}' if models else
		       f'{arch.name} boots on KVM where it can, which a CPU model would turn off')
		raise HarnessError(f'{where}: cpu_model {run.cpu_model}: {why}')
	# A run names the atomics its kernel must choose, as the CPU has them.
	cpu = run.cpu_model or arch.cpu
	if arch.atomics and run.atomics != models.get(cpu):
		has = models.get(cpu) or f'what configs/arch/{arch.name}.py does not say'
		raise HarnessError(f'{where}: atomics {run.atomics}: a {arch.name} run names the '
				   f'atomics its kernel must choose ({" or ".join(arch.atomics)}), '
				   f'on -cpu {cpu} {has}')
	if run.preempt is not None and options.get('CONFIG_PREEMPT_DYNAMIC') != 'y':
		raise HarnessError(f'{where}: preempt {run.preempt}: flavour {run.flavour} has no '
				   'CONFIG_PREEMPT_DYNAMIC, '
				   'whose preempt= chooses the model at boot')


def reportable(run: Run, line: KernelLine, variant: str) -> List[str]:
	"""The checks a boot of RUN's VARIANT kernel on LINE reports: the
	KUnit cases of what it has of the series (the base kernel: its first
	patch's), the selftest's results when it runs, proc_listeners' where
	the run asks for it, the clients' when they run."""
	patches = (base_patches if variant == 'base' else series_patches)(line.series_dir)
	checks = ['kunit:' + c for c in kunit_cases(patches)]
	if run.mode == 'selftest':
		checks += SELFTEST_CHECKS + NAMESPACE_CHECKS
	if run.proc_listeners:
		checks += PROC_LISTENERS_CHECKS
	if run.clients:
		checks += ['client:' + c for c in CLIENT_CHECKS]
	return checks


def load_runs(lines: Sequence[KernelLine]) -> List[Run]:
	"""Every run of configs/runs.toml, each checked whole, every check it
	expects to fail one its boots report."""
	names = [l.name for l in lines]
	runs = [parse_run(i, t, names)
		for i, t in enumerate(_load_toml('runs.toml').get('run', []))]
	for r in runs:
		for line in (l for l in lines if l.name in r.lines):
			for v, e in r.kernels:
				known = reportable(r, line, v)
				for c in e.fail + e.may_fail:
					if c not in known:
						raise HarnessError(
							f'runs.toml: run {r.name}: kernels.{v}: '
							f'{c}: no check a {v} kernel of Linux '
							f'{line.name} reports in this run')
	for l in names:
		mine = [r.name for r in runs if l in r.lines]
		dup = {n for n in mine if mine.count(n) > 1}
		if dup:
			raise HarnessError(f'configs/runs.toml: two runs {sorted(dup)[0]} '
					   f'of line {l}')
	return runs


@dataclasses.dataclass(frozen=True)
class Boot:
	line: str
	run: Run
	variant: str
	expect: Expect

	@property
	def name(self) -> str:
		return f'{self.run.name}.{self.variant}'

	@property
	def kernel(self) -> Kernel:
		return Kernel(self.run.arch, self.run.flavour, self.variant)


def select_boots(runs: Sequence[Run], lines: Sequence[KernelLine],
		 opts: Options) -> Dict[str, List[Boot]]:
	"""The boots of each chosen line that --runs and --arch select (all
	by default); every chosen line must keep one, every --runs name a run
	of a chosen line."""
	boots = {}
	runs_given = given('runs', repr(' '.join(opts.runs)))
	for line in lines:
		mine = [r for r in runs if line.name in r.lines]
		chosen = [r for r in mine if (not opts.runs or r.name in opts.runs)
			  and (not opts.arch or r.arch.name == opts.arch)]
		if not chosen:
			arch = given('arch', opts.arch) + ' ' if opts.arch else ''
			theirs = ' '.join(r.name for r in mine)
			raise HarnessError(f'{arch}{runs_given} selects no run of Linux '
					   f'{line.name}; its runs: {theirs}')
		boots[line.name] = [Boot(line.name, r, v, e) for r in chosen for v, e in r.kernels]
	known = {r.name for r in runs for l in lines if l.name in r.lines
		 and (not opts.arch or r.arch.name == opts.arch)}
	for c in opts.runs:
		if c not in known:
			raise HarnessError(f'{runs_given}: no run \'{c}\' of Linux '
					   f'{" ".join(l.name for l in lines)}'
					   f'{" on " + opts.arch if opts.arch else ""} '
					   'in configs/runs.toml')
	return boots
