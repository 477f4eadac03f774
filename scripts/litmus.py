#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""litmus.py: the series' ordering claims, checked with herd7; a library
(harness.py's litmus command, harness_boot's check of arm64's atomics)
whose main() is the command line below.

  litmus.py run --tree TREE [TEST...]
      check(): run every tests/litmus/*.litmus (or the TESTs named) with herd7 and
      compare each result with the "Result:" line of its header. C tests
      run against the Linux-kernel memory model of TREE/tools/memory-model
      (linux-kernel.cfg); AArch64 tests against herd7's own aarch64.cat.
      make litmus gives the newest line's tree. Every test whose header
      says "Result: Never" names on a "Mutant:" line the test of
      tests/litmus/ that lacks exactly the ordering it relies on; that
      mutant runs too (also when not named on the command line), and herd7
      must find it (Sometimes or Always). Exit status 1 if any result
      differs from its header, a test does not parse or run, or a Never
      test's mutant is missing or Never.

check_arm64_sequence() holds the series' helper of an arm64 build, as
harness_boot disassembles it, to the sequences the AArch64 tests model.

herd7 is Debian's herdtools7, which only sid ships and whose binary needs
sid's glibc: herdtools7, libc6 and libgmp10 from sid (scripts/debs.sh)
are unpacked into an entry of the harness's cache, keyed by the packages,
and herd7 runs through that entry's own dynamic loader.
"""

import argparse
import concurrent.futures
import dataclasses
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Sequence, Tuple, Union

# A problem that ends the command: one line, for "error: ..." (the
# harness's one error type). The cache is the harness's.
from harness_util import HarnessError as Error
from harness_util import cache_key, cache_made, file_id, run

TOP = Path(__file__).resolve().parent.parent
TESTS = TOP / "tests" / "litmus"
HERD_SUITE = "sid"
HERD_PACKAGES = ("herdtools7", "libc6", "libgmp10")
# Inside the unpacked root: libc6's loader (usr/lib64/ has a symlink to
# it), the libraries, herd7 and its model library.
LIBDIR = "usr/lib/x86_64-linux-gnu"
LOADER = LIBDIR + "/ld-linux-x86-64.so.2"
HERD7 = "usr/bin/herd7"
HERD_LIB = "usr/share/herdtools7/herd"
TIMEOUT = 300  # seconds for one test; the slowest takes a few
RESULTS = ("Never", "Sometimes", "Always")


# ---- herd7 --------------------------------------------------------------

def debs_key(debs: Sequence[str]) -> str:
	"""The key of an unpacked root: its .debs' names and SHA256s."""
	return cache_key(*sorted(file_id(d) for d in debs))


def unpack_root(debs: Sequence[str]) -> Path:
	"""DEBS unpacked as the cache entry herd7/KEY, whole or not at all;
	its path."""
	def make(tmp: str) -> None:
		for deb in debs:
			run(["dpkg-deb", "-x", str(deb), tmp])
		for f in (LOADER, HERD7, HERD_LIB + "/aarch64.cat"):
			if not (Path(tmp) / f).exists():
				raise Error(f"{' '.join(map(str, debs))}: no {f} in them")
	return Path(cache_made("herd7", debs_key(debs), make))


def herd7_root() -> Path:
	"""herd7's unpacked root: the cache entry of the packages debs.sh
	fetches (from its own downloads when they are the archive's)."""
	got = run([str(TOP / "scripts" / "debs.sh"), HERD_SUITE, *HERD_PACKAGES], capture="stdout",
		  check=False)
	debs: List[str] = got.stdout.split()
	if got.returncode != 0 or len(debs) != len(HERD_PACKAGES):
		raise Error(f"could not fetch {' '.join(HERD_PACKAGES)} from Debian {HERD_SUITE}")
	return unpack_root(debs)


def herd7() -> List[str]:
	"""The command that runs herd7, as a list; arguments go after it."""
	root = herd7_root()
	return [str(root / LOADER), "--library-path", str(root / LIBDIR), str(root / HERD7),
			"-set-libdir", str(root / HERD_LIB)]


def herd7_version(cmd: Sequence[str]) -> str:
	got = run([*cmd, "-version"], capture="all", check=False, quiet=True)
	if got.returncode != 0:
		raise Error(f"herd7 does not run: {' '.join(cmd)} -version: {got.stdout.strip()}")
	return str(got.stdout).strip()


# ---- tests and their results ---------------------------------------------

@dataclasses.dataclass
class Test:
	path: Path
	arch: str  # "C" (LKMM) or "AArch64"
	name: str
	expected: str  # Never, Sometimes or Always; "" if the header has none
	flags: Tuple[str, ...] = ()  # the "Flag:" lines of the header: what herd7 must flag
	mutant: str = ""  # the "Mutant:" line: the test without the ordering


def read_test(path: Union[str, Path]) -> Test:
	"""A litmus file's architecture, name and the Result: of its header."""
	text = Path(path).read_text()
	first = text.split("\n", 1)[0].split()
	arch, name = (first + ["", ""])[:2]
	# As the tree's judgelitmus.sh finds it: " * Result: Never".
	m = re.search(r"^[( ]\* Result: (\S+)", text, re.M)
	flags = tuple(sorted(re.findall(r"^[( ]\* Flag: (\S+)", text, re.M)))
	mutant = re.search(r"^[( ]\* Mutant: (\S+)", text, re.M)
	return Test(Path(path), arch, name, m.group(1) if m else "", flags,
				mutant.group(1) if mutant else "")


@dataclasses.dataclass
class Result:
	test: Test
	observed: str = ""  # herd7's Never, Sometimes or Always; "" if none
	positive: int = 0
	negative: int = 0
	problem: str = ""  # why the test failed; "" if it passed
	seconds: float = 0.0


def judge(test: Test, output: str) -> Result:
	"""Compare herd7's OUTPUT for TEST with the test's header: a Result."""
	r = Result(test)
	if test.expected not in RESULTS:
		r.problem = f"no 'Result: {'|'.join(RESULTS)}' in the header comment"
	obs = re.findall(r"^Observation (\S+) (\S+) (\d+) (\d+)\s*$", output, re.M)
	if len(obs) != 1:
		# herd7 prints a lexer or parser error as a warning and exits 0.
		why = next((line.strip() for line in output.splitlines()
					if re.search(r"Warning|Fatal|[Ee]rror", line)), "")
		r.problem = f"herd7 gave {len(obs)} Observation lines" + (f": {why}" if why else "")
		return r
	name, r.observed, pos, neg = obs[0]
	r.positive, r.negative = int(pos), int(neg)
	flags = tuple(sorted(re.findall(r"^Flag (\S+)", output, re.M)))
	if name != test.name:
		r.problem = f"herd7 observed test '{name}', the file's name line says '{test.name}'"
	elif r.observed not in RESULTS:
		r.problem = f"herd7 observed '{r.observed}'"
	elif flags != test.flags:
		# A data race (LKMM), or an assumption of the model: each test
		# names the ones it expects, with the reason.
		r.problem = (f"herd7 flagged {', '.join(flags) or 'nothing'}, the header "
					 f"'Flag:' lines say {', '.join(test.flags) or 'nothing'}")
	elif not r.problem and r.observed != test.expected:
		r.problem = f"expected {test.expected}, herd7 says {r.observed}"
	return r


def herd7_args(test: Test, tree: Union[str, Path]) -> Tuple[Optional[List[str]], Optional[Path]]:
	"""herd7's arguments and working directory for TEST."""
	if test.arch == "C":
		lkmm = Path(tree) / "tools" / "memory-model"
		return ["-conf", "linux-kernel.cfg", str(test.path)], lkmm
	if test.arch == "AArch64":
		return ["-model", "aarch64.cat", str(test.path)], None
	return None, None


def run_test(cmd: Sequence[str], test: Test, tree: Union[str, Path]) -> Result:
	"""Run one Test with herd7 command CMD: its Result."""
	args, cwd = herd7_args(test, tree)
	if args is None:
		return Result(test, problem=f"architecture '{test.arch}' is neither C nor AArch64")
	start = time.monotonic()
	try:
		# Printed as it runs: herd7's real command line.
		got = run([*cmd, *args], cwd=str(cwd) if cwd else None, capture="all", check=False,
			  timeout=TIMEOUT)
	except subprocess.TimeoutExpired:
		return Result(test, problem=f"herd7 did not finish within {TIMEOUT} s")
	r = judge(test, got.stdout)
	r.seconds = time.monotonic() - start
	if got.returncode != 0 and not r.problem:
		r.problem = f"herd7 exited with status {got.returncode}"
	return r


def run_tests(cmd: Sequence[str], tree: Union[str, Path], paths: Iterable[Union[str, Path]],
	      jobs: int = 1,
			  log: Callable[[str], None] = print) -> List[Result]:
	"""Run each litmus file of PATHS with herd7 command CMD, JOBS at a time:
	a Result each, in the order of PATHS. Each test's command line is
	printed as it runs, the table of results logged at the end."""
	tests = [read_test(p) for p in paths]

	def one(test: Test) -> Result:
		return run_test(cmd, test, tree)

	# herd7 runs in processes of its own: threads only wait for them.
	with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
		results = list(pool.map(one, tests))
	log(f"{'test':40} {'expected':9} {'observed':9} {'pos':>4} {'neg':>5} {'time':>7}")
	for r in results:
		log(f"{r.test.path.name:40} {r.test.expected or '-':9} {r.observed or '-':9} "
			f"{r.positive:>4} {r.negative:>5} {r.seconds:6.2f}s"
			f"{'  FAILED: ' + r.problem if r.problem else ''}")
	return results


def with_mutants(paths: Iterable[Path]) -> List[Path]:
	"""PATHS, and after them the mutants they name (and those mutants'
	own, if they name any), each once."""
	out = list(paths)
	for p in out:  # grows as it goes
		m = read_test(p).mutant
		if m and (TESTS / f"{m}.litmus") not in out and (TESTS / f"{m}.litmus").is_file():
			out.append(TESTS / f"{m}.litmus")
	return out


def check_pairs(results: Sequence[Result]) -> List[Tuple[str, str]]:
	"""Each Never test against its mutant: (test name, problem) for each pair
	that shows nothing. A Never test must name a mutant ("Mutant:" in its
	header) that was run, and herd7 must have found that mutant's exists
	clause (Sometimes or Always): else the test could not have failed for
	want of the ordering it is cited for."""
	by_name = {r.test.name: r for r in results}
	problems = []
	for r in results:
		t = r.test
		if t.expected != "Never":
			continue
		if not t.mutant:
			problems.append((t.name,
					 "a Never test with no 'Mutant:' line in its header"))
		elif t.mutant == t.name:
			problems.append((t.name, "names itself as its mutant"))
		elif t.mutant not in by_name:
			problems.append((t.name, f"its mutant {t.mutant} is not in tests/litmus/"))
		elif by_name[t.mutant].observed not in ("Sometimes", "Always"):
			got = by_name[t.mutant].observed or "no result"
			problems.append((t.name,
					 f"its mutant {t.mutant}: herd7 says {got}, not Sometimes"))
	return problems


def check(tree: Path, tests: Sequence[str] = (), jobs: int = 1) -> int:
	"""litmus.py run: TESTS (every test of tests/litmus/ by default) and
	their mutants, with TREE's memory model, JOBS herd7 at a time; 0 if
	each is as its header says and every Never test's mutant is found."""
	if not (tree / "tools" / "memory-model" / "linux-kernel.cfg").is_file():
		raise Error(f"--tree {tree}: no tools/memory-model/linux-kernel.cfg")
	paths = [Path(t).resolve() for t in tests] or sorted(TESTS.glob("*.litmus"))
	if not paths:
		raise Error(f"no litmus tests in {TESTS}")
	paths = with_mutants(paths)
	cmd = herd7()
	print(f"herd7 {herd7_version(cmd)}: {' '.join(cmd)}")
	print(f"LKMM: {tree}/tools/memory-model; AArch64: herd7's aarch64.cat")
	start = time.monotonic()
	results = run_tests(cmd, tree, paths, jobs=jobs)
	failed = [r for r in results if r.problem]
	print(f"herd7 took {time.monotonic() - start:.1f}s, {jobs} at a time")
	pairs = [r for r in results if r.test.expected == "Never"]
	bad = check_pairs(results)
	for name, problem in bad:
		print(f"  {name}: FAILED: {problem}")
	print(f"litmus: {len(results) - len(failed)} passed, {len(failed)} failed; "
		  f"{len(pairs) - len(bad)} of {len(pairs)} Never tests have a mutant herd7 finds")
	return 1 if failed or bad else 0


# ---- the helper's arm64 instructions --------------------------------------

# "ffff800080123456:\tc8e0fc41 \tcasal\tx1, x2, [x0]"
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{8}\s+)?([a-z][a-z0-9.]*)\s*(.*?)\s*(?://.*)?$")


def instructions(objdump_text: str) -> List[Tuple[int, str, str]]:
	"""(address, mnemonic, operands) of each instruction in objdump -d text."""
	out = []
	for line in objdump_text.splitlines():
		m = INSN.match(line)
		if m:
			ops = m.group(3).split("<")[0].strip()
			out.append((int(m.group(1), 16), m.group(2), ops))
	return out


def operands(ops: str) -> List[str]:
	return [o.strip() for o in re.split(r",\s*(?![^\[]*\])", ops)]


def check_arm64_sequence(objdump_text: str) -> List[str]:
	"""The problems with the helper's atomic sequences; [] if none.

	The AArch64 tests model the LSE path as one CASAL, and the LL/SC path
	as LDXR, a compare, STLXR, a CBNZ that retries at the LDXR, then
	DMB ISH. Any other compare-and-swap or exclusive, or a missing part,
	is a problem.
	"""
	insns = instructions(objdump_text)
	if not insns:
		return ["no instructions in the disassembly"]
	problems = []
	names = [m for _, m, _ in insns]
	cas = [m for m in names if re.fullmatch(r"cas[a-z]*", m)]
	if cas.count("casal") != 1:
		problems.append(f"LSE: {cas.count('casal')} CASAL, not one")
	for m in sorted(set(cas) - {"casal"}):
		problems.append(f"LSE: {m.upper()} ({cas.count(m)}), "
				"weaker than or other than CASAL")
	exclusive = re.compile(r"ld(a)?xr[bh]?|st(l)?xr[bh]?|ld(a)?xp|st(l)?xp")
	excl = [m for m in names if exclusive.fullmatch(m)]
	for m in sorted(set(excl) - {"ldxr", "stlxr"}):
		problems.append(f"LL/SC: {m.upper()} ({excl.count(m)}), not the LDXR/STLXR pair")
	if excl.count("ldxr") != 1 or excl.count("stlxr") != 1:
		problems.append(f"LL/SC: {excl.count('ldxr')} LDXR and "
				f"{excl.count('stlxr')} STLXR, not one each")
		return problems
	i = names.index("ldxr")
	j = names.index("stlxr")
	ldxr_addr = insns[i][0]
	if j < i:
		problems.append("LL/SC: STLXR before LDXR")
		return problems
	ld_ops, st_ops = operands(insns[i][2]), operands(insns[j][2])
	if len(ld_ops) != 2 or len(st_ops) != 3 or ld_ops[1] != st_ops[2]:
		problems.append(f"LL/SC: LDXR {insns[i][2]} and STLXR {insns[j][2]} "
				"not on one address")
	if not any(m in ("cbnz", "cbz", "b.ne", "b.eq") for m in names[i + 1:j]):
		problems.append("LL/SC: no compare-and-branch between LDXR and STLXR")
	after = insns[j + 1:j + 3]
	status = st_ops[0] if st_ops else "?"
	retry = after[0] if after else None
	if not retry or retry[1] != "cbnz" or operands(retry[2])[:1] != [status] or \
			not retry[2].endswith(f"{ldxr_addr:x}"):
		problems.append(f"LL/SC: STLXR not followed by CBNZ {status} "
				f"back to the LDXR at {ldxr_addr:x}")
	if len(after) < 2 or after[1][1] != "dmb" or after[1][2] != "ish":
		problems.append("LL/SC: the retry branch not followed by DMB ISH")
	return problems


def main(argv: Optional[Sequence[str]] = None) -> int:
	ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
	sub = ap.add_subparsers(dest="command", required=True)
	run = sub.add_parser("run", help="run the litmus tests")
	run.add_argument("--tree", required=True,
			 help="kernel tree whose tools/memory-model to use")
	run.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
			 help="herd7 runs at a time (default: the number of CPUs)")
	run.add_argument("tests", nargs="*", help="litmus files (default: tests/litmus/*.litmus)")
	args = ap.parse_args(argv)
	try:
		return check(Path(args.tree), args.tests, args.jobs)
	except Error as e:
		print(f"error: {e}", file=sys.stderr)
		return 1


if __name__ == "__main__":
	sys.exit(main())
