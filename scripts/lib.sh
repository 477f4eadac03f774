# SPDX-License-Identifier: GPL-2.0
# Shared by the harness stages: paths, stage timing, errors.
# shellcheck shell=bash

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m "${OUT:-$TOP/out}")
ARCH_NAME=${ARCH_NAME:-x86_64}
SRC_PKG=linux-source-6.12
TREE=${TREE:-$OUT/tree}
LOGS=$OUT/logs
JOBS=${JOBS:-$(nproc)}

# shellcheck source=/dev/null
. "$TOP/configs/arch/$ARCH_NAME.conf"

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo "  $*"
}

# stage NAME CMD...: run one stage, print its name and elapsed time.
stage() {
	local name=$1 start rc=0
	shift
	start=$(date +%s)
	echo "[$(date +%H:%M:%S)] $name ..."
	"$@" || rc=$?
	echo "[$(date +%H:%M:%S)] $name: $([ $rc -eq 0 ] && echo done || echo FAILED) in $(($(date +%s) - start))s"
	return $rc
}

# pick_accel KERNEL: set ACCEL for boot.sh (see accel.sh).
pick_accel() {
	ACCEL=$("$TOP/scripts/accel.sh" "$1") || die "could not choose a QEMU accelerator"
	export ACCEL
	note "accelerator: $ACCEL"
}

# The kernel source the series is applied to: KSRC, or the unpacked package.
source_tree() {
	if [ -n "${KSRC:-}" ]; then
		(cd "$KSRC" && pwd)
	else
		echo "$OUT/src/$SRC_PKG"
	fi
}

kmake() {
	local build=$1
	shift
	make -C "$TREE" O="$build" ARCH="$KARCH" -j"$JOBS" "$@"
}

# Files the series creates or changes, one per line.
series_files() {
	local p
	while read -r p _; do
		case "$p" in '' | \#*) continue ;; esac
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$TOP/patches/$p"
	done <"$TOP/patches/series" | sort -u
}
mkdir -p "$LOGS"
