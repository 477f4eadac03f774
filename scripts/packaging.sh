# SPDX-License-Identifier: GPL-2.0
# packaging.sh: a library, sourced by the shell scripts that fetch and
# unpack Debian packages (debs.sh, source.sh, setup.sh), not run.
# shellcheck shell=bash disable=SC2034 # TOP, S, CACHE are the sourcing scripts'

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
S=$TOP/scripts
# The cache (harness_util.py defines where): debs.sh keeps its downloads there.
CACHE=$(python3 "$S/harness_util.py")
LOGS=$(realpath -m "${OUT:-$TOP/out}")/logs
mkdir -p "$LOGS"

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo "  $*" >&2
}
