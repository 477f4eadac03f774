# SPDX-License-Identifier: GPL-2.0
# cn_proc ordered timestamps: the series, its tests and the harness.
#
#   make boot-test   build base and patched kernels, boot them in QEMU with
#                    the selftest, print base vs patched (CONFIGS="smp2 rt"
#                    selects runs from configs/runs; KSRC=/path uses a tree)
#   make check       every test: static checks of the series, per-file
#                    diffs, the selftest's host unit tests, then boot-test
#   make bench       what the series costs: base vs patched events/s under a
#                    fork/exec/exit storm (median ratio of alternating
#                    boots), the helper's ns per call, the harness's own
#                    build and boot times; not part of make check
#   make file-diffs  regenerate the per-file diffs from patches/
#   make setup       install the Debian packages the harness needs
#   make clean       remove out/

export KSRC CONFIGS OUT SELFTEST_ARGS BENCH_PAIRS BENCH_COST BENCH_CANDIDATE STORM_ARGS

.PHONY: all check boot-test bench static-checks file-diffs check-file-diffs unit-tests setup clean

all: boot-test

check: setup check-file-diffs unit-tests static-checks boot-test

boot-test:
	@scripts/boot-test.sh

bench:
	@scripts/bench.sh

static-checks: setup
	@scripts/check-series.sh

file-diffs:
	@scripts/file-diffs.sh

check-file-diffs: setup
	@scripts/file-diffs.sh --check

unit-tests: setup
	@scripts/unit-tests.sh

setup:
	@scripts/setup.sh

clean:
	rm -rf out
