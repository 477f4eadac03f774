#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# unit-tests.sh: the selftest's checking logic against crafted event
# streams, on the host: no root, no special kernel. KTAP output.
. "$(dirname "$0")/tree.sh"

unpack_package
# The sources include "../kselftest.h", as they do in the tree.
work=$OUT/unit/selftests
rm -rf "$work"
mkdir -p "$work/cn_proc"
cp "$OUT/src/$SRC_PKG/tools/testing/selftests/kselftest.h" "$work/"
cp "$TOP"/tools/testing/selftests/cn_proc/event_check* "$work/cn_proc/"
gcc -Wall -Wextra -Werror -O2 -o "$work/event_check_test" \
	"$work/cn_proc/event_check_test.c" "$work/cn_proc/event_check.c" ||
	die "event_check_test did not build"
"$work/event_check_test"
