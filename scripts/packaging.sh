# SPDX-License-Identifier: GPL-2.0
# packaging.sh: a library, sourced by the shell scripts that fetch and
# stage Debian packages (debs.sh, source.sh, clients.sh, setup.sh), not run.
# shellcheck shell=bash disable=SC2034 # TOP, S, CACHE are the sourcing scripts'

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
S=$TOP/scripts
# Downloads and unpacked sources outlive a clone (harness_util.py).
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/cn-proc-timestamps
LOGS=$(realpath -m "${OUT:-$TOP/out}")/logs
mkdir -p "$LOGS"

die() {
	echo "error: $*" >&2
	exit 1
}

note() {
	echo "  $*" >&2
}
