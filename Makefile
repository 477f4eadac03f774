# SPDX-License-Identifier: GPL-2.0
# cn_proc ordered timestamps: the series, its tests and the harness. Each
# target is one command of scripts/harness.py, each variable one of its
# options: "make help" lists them (and doc/harness.txt's option list).
# "make boot-test" installs the Debian packages it needs (as root; make setup:
# every one), builds base and patched kernels, boots them in QEMU and prints
# base vs patched.

HARNESS = scripts/harness.py
# Each variable, where set (on make's command line or in the environment),
# becomes the harness's flag of that name; nothing else reaches it, and no
# make the harness runs gets it (kbuild reads ARCH, O and V). The variables
# are the harness's options (OPTIONS of scripts/harness_config.py), each
# VARIABLE:FLAG=, :command-line after it where only make's command line
# gives it (ARCH and V, kbuild's in the environment). make -jN is JOBS=N
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
MAKEOVERRIDES := $(filter-out $(addsuffix =%,$(OPTION_VARIABLES)),$(MAKEOVERRIDES))
# The variables given on make's command line: the harness refuses each that
# is none of its options, naming the nearest, rather than ignore it.
GIVEN := $(strip $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $(v))),$(v))))

# The commands share trees and build directories: one at a time.
.NOTPARALLEL:
TARGETS = check boot-test bench litmus kunit kcsan static-checks check-file-diffs unit-tests \
	mutation file-diffs results mails
.PHONY: all help setup clean $(TARGETS)

all: boot-test

# Each checks its options, then installs the Debian packages it needs
# (scripts/setup.sh TARGET), then runs.
$(TARGETS):
	@HARNESS_FROM_MAKE=1 HARNESS_MAKE_VARIABLES='$(GIVEN)' $(HARNESS) $@ $(FLAGS)

help:
	@$(HARNESS) make-help boot-test $(filter-out boot-test,$(TARGETS))

setup:
	@scripts/setup.sh

clean:
	rm -rf $(or $(OUT),$(O),out)
