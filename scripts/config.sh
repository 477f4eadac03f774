#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# config.sh TREE BUILD_DIR ARCH FLAVOUR [FRAGMENT...]: tinyconfig plus the
# fragments of config_fragments (lib.sh), into BUILD_DIR, replaced only when
# it changes, so that a rerun rebuilds nothing; every option the fragments
# ask for must survive olddefconfig.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tree=$1 build=$2 arch=$3 flavour=$4
shift 4
mapfile -t frags < <(config_fragments "$arch" "$flavour" "$@")
for f in "${frags[@]}"; do
	[ -f "$f" ] || die "no config fragment ${f#"$TOP"/}"
done

scratch=$build.config
log=$build.config.log
mkdir -p "$scratch" "$build"
{
	kmake "$tree" "$scratch" "$arch" tinyconfig &&
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$scratch" \
			"$scratch/.config" "${frags[@]}" &&
		kmake "$tree" "$scratch" "$arch" olddefconfig
} >"$log" 2>&1 || die "config $arch $flavour failed, see $log"

# Every option must be as the last fragment that names it asks.
missing=0
while IFS='|' read -r want from; do
	case "$want" in
	*=n) opt=${want%=n}; grep -q "^$opt=" "$scratch/.config" || continue ;;
	*) grep -qxF "$want" "$scratch/.config" && continue ;;
	esac
	echo "error: $arch $flavour: '$want' (from ${from#"$TOP"/}) did not survive olddefconfig" >&2
	missing=1
done < <(for f in "${frags[@]}"; do
		sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*=.*\)$/\1/p' \
		       -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1=n/p' "$f" |
			sed "s|\$|\|$f|"
	done | awk -F'[=|]' '{ last[$1] = $0; order[NR] = $1 }
		END { for (i = 1; i <= NR; i++) if (!seen[order[i]]++) print last[order[i]] }')
[ $missing -eq 0 ] || exit 1

cmp -s "$scratch/.config" "$build/.config" || cp "$scratch/.config" "$build/.config"
