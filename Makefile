# SPDX-License-Identifier: GPL-2.0
# cn_proc ordered timestamps: the series, its tests and the harness. Each
# target is one command of scripts/harness.py (run "scripts/harness.py -h"),
# after make setup:
#
#   make boot-test      build base (the series' first patch) and patched (the
#                       whole series) kernels, boot them in QEMU
#                       with the selftest (and the real clients), print base
#                       vs patched; KERNEL=7.3|6.12|6.1|all picks the lines
#                       (the newest by default), CONFIGS="smp2 rt" the runs,
#                       ARCH=x86_64|arm64 the guests' architecture (every
#                       one by default), KSRC=/path a tree of your own
#   make check          everything, every line: per-file diffs, unit tests,
#                       static checks, litmus tests, kunit.py, boot-test
#   make litmus         the litmus tests (tests/litmus/) with herd7
#   make kunit          kunit.py run --kunitconfig=kernel/time on x86_64 with
#                       2 CPUs, in the boot test's x86_64 kernel (its build
#                       directory and .config); every KUnit case of the
#                       series must run
#   make bench          what the series and the designs it was chosen over
#                       cost and keep (not part of check)
#   make mutation       each mutant of the harness (tests/harness-mutants.toml)
#                       alone against its unit tests; all must be killed
#                       (not part of check)
#   make static-checks, unit-tests, file-diffs, check-file-diffs
#   make results        RESULTS, from the last run's tables
#   make mails          the series as mails for git send-email in $(OUT)/mails,
#                       From: and Signed-off-by: your git identity (refused
#                       without one): the DCO is yours to give
#   NO_CACHE=1 with any: use nothing of the cache, make it all again
#   make setup          install the Debian packages the harness needs
#   make clean          remove $(OUT)

OUT ?= out
# Each variable, where set (on make's command line or in the environment),
# becomes the harness's flag of that name; nothing else reaches it. ARCH
# only from make's command line: an ARCH in the environment is kbuild's,
# and no make the harness runs gets make's (configs/arch/ gives it).
flag = $(if $($(1)),--$(2)='$($(1))')
FLAGS = $(call flag,KERNEL,kernel) $(call flag,KSRC,ksrc) $(call flag,CONFIGS,configs) \
	$(if $(filter command line,$(origin ARCH)),$(call flag,ARCH,arch)) \
	$(call flag,SELFTEST_ARGS,selftest-args) $(call flag,OUT,out) $(call flag,JOBS,jobs) \
	$(call flag,BOOT_TIMEOUT,boot-timeout) $(call flag,DEBS_MIRROR,debs-mirror) \
	$(call flag,CLIENTS_SUITE,clients-suite) $(call flag,BENCH_PAIRS,bench-pairs) \
	$(call flag,BENCH_CPUS,bench-cpus) $(call flag,STORM_ARGS,storm-args) \
	$(if $(DRY_RUN),--dry-run) $(if $(NO_CACHE),--no-cache)
unexport ARCH KERNEL KSRC CONFIGS SELFTEST_ARGS OUT JOBS BOOT_TIMEOUT DEBS_MIRROR CLIENTS_SUITE \
	BENCH_PAIRS BENCH_CPUS STORM_ARGS DRY_RUN NO_CACHE
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))

HARNESS = scripts/harness.py

# The commands share trees and build directories: one at a time.
.NOTPARALLEL:
.PHONY: all check boot-test bench litmus kunit static-checks file-diffs \
	check-file-diffs unit-tests mutation results mails setup clean

all: boot-test

check boot-test bench litmus kunit static-checks check-file-diffs unit-tests mutation: setup
	@$(HARNESS) $@ $(FLAGS)

file-diffs results mails:
	@$(HARNESS) $@ $(FLAGS)

setup:
	@scripts/setup.sh

clean:
	rm -rf $(OUT)
