# SPDX-License-Identifier: GPL-2.0
# cn_proc ordered timestamps: the series, its tests and the harness. Each
# target is one command of scripts/harness.py (run "scripts/harness.py -h";
# the variables are the README's option list),
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
#                       (not part of check); MUTANTS="words" only those
#                       whose what has the words, e.g. a change's own
#   make static-checks, unit-tests, file-diffs, check-file-diffs
#   make results        RESULTS, from the last run's tables
#   make mails          the series as mails for git send-email in $(OUT)/mails,
#                       From: and Signed-off-by: your git identity (refused
#                       without one): the DCO is yours to give; KSRC=your
#                       git tree of 7.3 or newer (never modified), its HEAD
#                       the base-commit:
#   NO_CACHE=1 with any: use nothing of the cache, make it all again
#   make setup          install the Debian packages the harness needs
#   make clean          remove $(OUT)

OUT ?= out
HARNESS = scripts/harness.py
# Each variable, where set (on make's command line or in the environment),
# becomes the harness's flag of that name; nothing else reaches it. The
# variables are the harness's options (OPTIONS of scripts/harness_config.py),
# each VARIABLE:FLAG, FLAG= taking the value, :command-line after it where
# only make's command line gives it: ARCH, as an ARCH in the environment is
# kbuild's, and no make the harness runs gets make's (configs/arch/ gives it).
OPTIONS := $(shell $(HARNESS) make-flags)
ifeq ($(OPTIONS),)
$(error $(HARNESS) make-flags printed no options)
endif
option_field = $(word $(2),$(subst :, ,$(1)))
option_given = $(and $($(call option_field,$(1),1)),$(if $(call option_field,$(1),3),$(filter command line,$(origin $(call option_field,$(1),1))),set))
# The value in single quotes for the shell, each ' in it as '\''.
option_flag = $(call option_field,$(1),2)$(if $(filter %=,$(call option_field,$(1),2)),'$(subst ','\'',$($(call option_field,$(1),1)))')
FLAGS = $(foreach o,$(OPTIONS),$(if $(call option_given,$(o)),$(call option_flag,$(o))))
OPTION_VARIABLES := $(foreach o,$(OPTIONS),$(call option_field,$(o),1))
unexport $(OPTION_VARIABLES)
MAKEOVERRIDES := $(filter-out $(foreach o,$(OPTIONS),$(if $(call option_field,$(o),3),$(call option_field,$(o),1)=%)),$(MAKEOVERRIDES))


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
