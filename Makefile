# SPDX-License-Identifier: GPL-2.0
# cn_proc ordered timestamps: the series, its tests and the harness.
#
#   make boot-test   build base and patched kernels, boot them in QEMU with
#                    the selftest (and the real clients), print base vs
#                    patched; KERNEL=7.3|6.12|6.1|all picks the line (the
#                    newest by default), CONFIGS="smp2 rt" the runs,
#                    ARCH=x86_64|arm64 the guests' architecture (every
#                    one by default), KSRC=/path a tree of your own
#   make check       everything, every line: per-file diffs, unit tests,
#                    the static checks of each series, then boot-test
#   make bench       what the series costs: base vs patched events/s under a
#                    fork/exec/exit storm, the helper's ns per call
#   make file-diffs  regenerate the per-file diffs from patches/
#   make results     RESULTS, from the last run's tables
#   make setup       install the Debian packages the harness needs
#   make clean       remove $(OUT)

OUT ?= out
export KSRC KERNEL CONFIGS OUT SELFTEST_ARGS JOBS BOOT_TIMEOUT BENCH_PAIRS \
	BENCH_CANDIDATE BENCH_CPUS STORM_ARGS DEBS_MIRROR CLIENTS_SUITE
# ARCH, from make's command line only (an ARCH in the environment is
# kbuild's), reaches the scripts as BOOT_ARCH, and no make they run:
# kbuild's ARCH is the harness's to give (configs/arch/).
export BOOT_ARCH := $(if $(filter command line,$(origin ARCH)),$(ARCH))
unexport ARCH
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))
# make check's lines: every line, or KSRC's.
CHECK_KERNEL = $(or $(KERNEL),$(if $(KSRC),,all))

# The stages share trees and build directories: one at a time.
.NOTPARALLEL:
.PHONY: all check boot-test bench static-checks file-diffs check-file-diffs unit-tests results setup clean

all: boot-test

# The time goes to $(OUT)/check.time, and from there into RESULTS.
# Every option is checked (boot-test.sh --check-options) before anything
# is fetched or built.
check: setup
	@start=$$(date +%s); export KERNEL=$(CHECK_KERNEL); \
	scripts/boot-test.sh --check-options && \
	scripts/file-diffs.sh --check && scripts/unit-tests.sh && \
	BOOT_ARCH= scripts/check-series.sh && scripts/boot-test.sh && \
	s=$$(($$(date +%s) - start)) && \
	echo "make check (KERNEL=$(CHECK_KERNEL)$(if $(KSRC), KSRC=$(KSRC))$${CONFIGS:+ CONFIGS=$$CONFIGS}$${BOOT_ARCH:+ ARCH=$$BOOT_ARCH}): passed in $$((s / 60))m$$((s % 60))s" | \
		tee $(OUT)/check.time

boot-test: setup
	@scripts/boot-test.sh

bench: setup
	@scripts/bench.sh

static-checks: setup
	@scripts/check-series.sh

file-diffs:
	@scripts/file-diffs.sh

check-file-diffs: setup
	@scripts/file-diffs.sh --check

unit-tests: setup
	@scripts/unit-tests.sh

results:
	@scripts/publish.sh

setup:
	@scripts/setup.sh

clean:
	rm -rf $(OUT)
