#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# unit-tests.sh: what can be tested on the host, without root or a test
# kernel: the selftest's checks on crafted event streams (its host test,
# kselftest_harness), the log parser and table on sample serial logs
# (tests/results_test.py), the harness itself (tests/harness.bats, bats)
# and its shell (shellcheck). The host test takes kselftest.h, kselftest_harness.h and
# lib.mk from KSRC or the newest line's source if cached (make check fetches
# it first): nothing is downloaded for them; else it is SKIPPED, and says so.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# src: where the host test's three files come from, or nothing.
src=
if [ -n "${KSRC:-}" ]; then
	[ -f "$KSRC/tools/testing/selftests/kselftest_harness.h" ] ||
		die "KSRC=$KSRC is not a kernel tree with tools/testing/selftests/kselftest_harness.h"
	src=$KSRC
else
	for d in "$CACHE/src/$(line_field "$NEWEST" 2)"_*; do
		[ ! -f "$d/.unpacked" ] || src=$d
	done
fi

selftest_host_test() {
	local work=$OUT/unit
	if [ -z "$src" ]; then
		note "SKIPPED: no KSRC and no $(line_field "$NEWEST" 2) in $CACHE/src for the kselftest headers"
		return
	fi
	# The selftest includes ../kselftest_harness.h, as in a kernel tree.
	rm -rf "$work"
	mkdir -p "$work/selftests"
	cp "$src"/tools/testing/selftests/{kselftest.h,kselftest_harness.h,lib.mk} "$work/selftests/"
	cp -r "$TOP/tools/testing/selftests/cn_proc" "$work/selftests/"
	make -s -C "$work/selftests/cn_proc" OUTPUT="$work" host_test
	"$work/event_check_test"
}

stage "selftest checks on crafted streams" selftest_host_test
stage "log parser and table" python3 "$TOP/tests/results_test.py"
stage "the harness (bats)" bats "$TOP/tests/harness.bats"
stage "shellcheck" shellcheck -x "$S"/*.sh "$TOP/tests/init" "$TOP"/tests/clients/*.sh "$TOP/.ci/run"
echo "unit tests: passed$([ -n "$src" ] || echo " but for the selftest host test, SKIPPED: no kernel source")"
