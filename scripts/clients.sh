#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# clients.sh DEST: stage the real process-connector clients for the test
# guest into DEST, laid out as a fragment of a root file system:
#
#   usr/sbin/keepalived, usr/bin/extrace    from Debian's packages (suite
#                                           CLIENTS_SUITE, bookworm)
#   usr/lib/x86_64-linux-gnu/SONAME         every shared library they load,
#                                           one file per soname
#   lib64/ld-linux-x86-64.so.2              -> the dynamic loader beside them
#   clients/run.sh, clients/keepalived.conf the guest side (tests/clients/)
#
# Nothing is installed or run here: debs.sh downloads the packages, dpkg-deb
# -x unpacks them. The libraries are the closure of the ELF NEEDED entries,
# a soname no unpacked package has looked for in what the package needing it
# depends on. DEST is replaced whole once all is staged; a rerun with the
# same inputs keeps it (DEST.stamp; remove it to restage).
# shellcheck source=packaging.sh
. "$(dirname "$0")/packaging.sh"

[ $# -eq 1 ] || die "usage: clients.sh DEST"
dest=$(realpath -m "$1")
suite=${CLIENTS_SUITE:-bookworm}
triplet=x86_64-linux-gnu
# The clients: package and the program staged from it.
clients=(keepalived:usr/sbin/keepalived extrace:usr/bin/extrace)

mkdir -p "$(dirname "$dest")"
exec 9>"$dest.lock"
flock 9
# Staged already from the same inputs: nothing to do. (DEST.stamp, beside
# DEST so that it stays out of the guest.)
stamp=$(cat "$S/clients.sh" "$S/stage_libs.sh" "$S/debs.sh" "$TOP/tests/clients/run.sh" \
	"$TOP/tests/clients/keepalived.conf" <(echo "$suite") | sha256sum | cut -c1-16)
if [ "$(cat "$dest.stamp" 2>/dev/null)" = "$stamp" ] &&
	[ -x "$dest/usr/sbin/keepalived" ] && [ -x "$dest/usr/bin/extrace" ]; then
	echo "$dest is up to date"
	exit 0
fi
rm -rf "$dest.stamp" "$dest".work.*
work=$(mktemp -d "$dest.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/stage

# shellcheck source=stage_libs.sh
. "$S/stage_libs.sh"

fetch "${clients[@]%%:*}"

for c in "${clients[@]}"; do
	stage_program "${c%%:*}" "${c#*:}" "${c#*:}"
done

install -D -m 0755 "$TOP/tests/clients/run.sh" "$stage/clients/run.sh"
install -D -m 0644 "$TOP/tests/clients/keepalived.conf" "$stage/clients/keepalived.conf"

rm -rf "$dest"
mv "$stage" "$dest"
echo "$stamp" >"$dest.stamp"
echo "staged in $dest: $(du -sh "$dest" | cut -f1), $(find "$dest" -type f | wc -l) files"
