# SPDX-License-Identifier: GPL-2.0
# cn_proc ordered timestamps: the series, its tests and the harness. Each
# target is one command of scripts/harness.py, each variable one of its
# options: "make help" lists them (and doc/harness.txt's option list); after
# make setup, "make boot-test" builds base and patched kernels, boots them
# in QEMU and prints base vs patched.

OUT ?= out
HARNESS = scripts/harness.py
# Each variable, where set (on make's command line or in the environment),
# becomes the harness's flag of that name; nothing else reaches it. The
# variables are the harness's options (OPTIONS of scripts/harness_config.py),
# each VARIABLE:FLAG=, :command-line after it where only make's command line
# gives it: ARCH and V, as kbuild's in the environment, and no make the
# harness runs gets make's (configs/arch/ gives ARCH). make -jN is JOBS=N
# (harness.py reads MAKEFLAGS).
OPTIONS := $(shell $(HARNESS) make-flags)
ifeq ($(OPTIONS),)
$(error $(HARNESS) make-flags printed no options)
endif
option_field = $(word $(2),$(subst :, ,$(1)))
option_value = $($(call option_field,$(1),1))
option_on_command_line = $(filter command line,$(origin $(call option_field,$(1),1)))
option_given = $(and $(call option_value,$(1)),$(if $(call option_field,$(1),3),$\
	$(call option_on_command_line,$(1)),set))
# The value in single quotes for the shell, each ' in it as '\''.
option_flag = $(call option_field,$(1),2)'$(subst ','\'',$($(call option_field,$(1),1)))'
FLAGS = $(foreach o,$(OPTIONS),$(if $(call option_given,$(o)),$(call option_flag,$(o))))
OPTION_VARIABLES := $(foreach o,$(OPTIONS),$(call option_field,$(o),1))
unexport $(OPTION_VARIABLES)
COMMAND_LINE_ONLY := $(foreach o,$(OPTIONS),$(if $(call option_field,$(o),3),$\
	$(call option_field,$(o),1)=%))
MAKEOVERRIDES := $(filter-out $(COMMAND_LINE_ONLY),$(MAKEOVERRIDES))

# There is no dry run, as kunit.py has none: DRY_RUN, which once asked for
# one, is refused rather than ignored.
ifneq ($(DRY_RUN),)
$(error DRY_RUN=$(DRY_RUN): there is no dry run; V=1 prints each command \
	as it runs, and OUT/logs/commands.log keeps them)
endif

# The commands share trees and build directories: one at a time.
.NOTPARALLEL:
NEED_SETUP = check boot-test bench litmus kunit kcsan static-checks check-file-diffs unit-tests \
	mutation
TARGETS = $(NEED_SETUP) file-diffs results mails
.PHONY: all help setup clean $(TARGETS)

all: boot-test

$(NEED_SETUP): setup

$(TARGETS):
	@HARNESS_FROM_MAKE=1 $(HARNESS) $@ $(FLAGS)

help:
	@$(HARNESS) make-help boot-test $(filter-out boot-test,$(TARGETS))

setup:
	@scripts/setup.sh

clean:
	rm -rf $(OUT)
