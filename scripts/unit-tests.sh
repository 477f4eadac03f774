#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# unit-tests.sh: what can be tested on the host, without root or a test
# kernel: the selftest's checks on crafted event streams (its host test,
# kselftest_harness), the log parser and table on sample serial logs
# (tests/results_test.py), and shellcheck on the harness's shell.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

selftest_host_test() {
	local src work=$OUT/unit
	# The selftest includes ../kselftest_harness.h, as in a kernel tree.
	src=$("$S/source.sh" "$(all_lines | head -1)")
	rm -rf "$work"
	mkdir -p "$work/selftests"
	cp "$src"/tools/testing/selftests/{kselftest.h,kselftest_harness.h,lib.mk} "$work/selftests/"
	cp -r "$TOP/tools/testing/selftests/cn_proc" "$work/selftests/"
	make -s -C "$work/selftests/cn_proc" OUTPUT="$work" host_test
	"$work/event_check_test"
}

stage "selftest checks on crafted streams" selftest_host_test
stage "log parser and table" python3 "$TOP/tests/results_test.py"
stage "shellcheck" shellcheck -x "$S"/*.sh "$TOP/tests/init" "$TOP"/tests/clients/*.sh "$TOP/.ci/run"
