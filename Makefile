# SPDX-License-Identifier: GPL-2.0
# cn_proc ordered timestamps: the series, its tests and the harness. Each
# target is one command of scripts/harness.py (run "scripts/harness.py -h"),
# after make setup:
#
#   make boot-test      build base and patched kernels, boot them in QEMU
#                       with the selftest (and the real clients), print base
#                       vs patched; KERNEL=7.3|6.12|6.1|all picks the lines
#                       (the newest by default), CONFIGS="smp2 rt" the runs,
#                       ARCH=x86_64|arm64 the guests' architecture (every
#                       one by default), KSRC=/path a tree of your own
#   make check          everything, every line: per-file diffs, unit tests,
#                       static checks, litmus tests, kunit.py, boot-test
#   make litmus         the litmus tests (tests/litmus/) with herd7
#   make kunit          kunit.py run --kunitconfig=kernel/time (UML)
#   make bench          what the series and the designs it was chosen over
#                       cost and keep (not part of check)
#   make mutation       each mutant of the harness (tests/harness-mutants.toml)
#                       alone against its unit tests; all must be killed
#                       (not part of check)
#   make static-checks, unit-tests, file-diffs, check-file-diffs
#   make results        RESULTS, from the last run's tables
#   make setup          install the Debian packages the harness needs
#   make clean          remove $(OUT)

OUT ?= out
export KSRC KERNEL CONFIGS OUT SELFTEST_ARGS JOBS BOOT_TIMEOUT BENCH_PAIRS \
	BENCH_CPUS STORM_ARGS DEBS_MIRROR CLIENTS_SUITE
# ARCH, from make's command line only (an ARCH in the environment is
# kbuild's), reaches the harness as BOOT_ARCH, and no make it runs:
# kbuild's ARCH is the harness's to give (configs/arch/).
export BOOT_ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH))
unexport ARCH
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))

HARNESS = scripts/harness.py

# The commands share trees and build directories: one at a time.
.NOTPARALLEL:
.PHONY: all check boot-test bench litmus kunit static-checks file-diffs \
	check-file-diffs unit-tests mutation results setup clean

all: boot-test

# make check's lines: every line, or KSRC's.
check: setup
	@KERNEL=$(or $(KERNEL),$(if $(KSRC),,all)) $(HARNESS) check

boot-test bench litmus kunit static-checks check-file-diffs unit-tests mutation: setup
	@$(HARNESS) $@

file-diffs results:
	@$(HARNESS) $@

setup:
	@scripts/setup.sh

clean:
	rm -rf $(OUT)
